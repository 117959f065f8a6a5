//! Defects found by driving the page and the CLI as a new user would (exact reproductions),
//! one test each; every one failed before its fix.

use fitcard_estimator::estimate::{Severity, Sharing};
use fitcard_estimator::inputs::Key;
use fitcard_estimator::inputs::{ECHO_CHARS, MAX_NOTICES};
use fitcard_estimator::{estimate, from_query, train, Estimate};

fn est(q: &str) -> Estimate {
    let d = from_query(q);
    assert!(d.clean(), "{q}: {:?}", d.notices);
    estimate(&d.inputs)
}

/// Per-card bytes add up to the totals, term by term, whatever the layout.
fn assert_cards_sum(e: &Estimate) {
    let sum: u64 = e.per_card.iter().map(|c| c.bytes.get()).sum();
    assert_eq!(sum, e.total_device_bytes.get(), "{:?}", e.per_card);
    for t in e
        .terms
        .iter()
        .filter(|t| t.place == fitcard_estimator::terms::Place::Device)
    {
        let on_cards: u64 = e
            .per_card
            .iter()
            .map(|c| {
                c.terms
                    .iter()
                    .find(|x| x.0 == t.name)
                    .map_or(0, |x| x.1.get())
            })
            .sum();
        assert_eq!(on_cards, t.bytes.get(), "{}", t.name);
    }
}

/// `fits` is the AND of the hard checks; the others are information.
fn assert_fits_is_and_of_hard(e: &Estimate) {
    let hard = e
        .checks
        .iter()
        .filter(|c| c.severity == Severity::Hard)
        .all(|c| c.ok);
    assert_eq!(e.fits, hard, "{:?}", e.checks);
}

/// 1. Qwen3-8B on 3 cards: 8 KV heads and 32 heads do not divide by 3. Both engines run it split
///    by layer, and the command says so (llama.cpp `-sm layer`; vLLM pipeline parallelism, not a
///    `--tensor-parallel-size 3` that cannot start).
#[test]
fn three_cards_fit_by_layer_split() {
    // (query, the layout flag the command must write, a flag it must not write)
    let rows = [
        ("model=Qwen/Qwen3-8B&cards=3", "-sm layer", "-sm row"),
        (
            "model=Qwen/Qwen3-8B&cards=3&engine=vllm&quant=BF16",
            "--pipeline-parallel-size 3",
            "--tensor-parallel-size 3",
        ),
    ];
    for (q, want, not) in rows {
        let e = est(q);
        assert!(e.fits, "{q}: {:?}", e.checks);
        assert!(e.headroom().0 > 0);
        assert_eq!(e.layout, Sharing::Layer);
        let tp = e
            .checks
            .iter()
            .find(|c| c.name.id() == "tensor_parallel")
            .unwrap();
        assert!(!tp.ok && tp.severity == Severity::Info, "{q}");
        assert!(
            e.command.contains(want) && !e.command.contains(not),
            "{q}: {}",
            e.command
        );
        assert_fits_is_and_of_hard(&e);
        assert_cards_sum(&e);
    }
    // Where tensor parallelism starts and its KV pool is within 5 % of the largest, it is
    // used, and said (on 2 × RTX 4090 Qwen3-8B's all-reduce buffers cost more than 5 % of the
    // pool, and two pipeline stages run: crate::estimate::ParallelChoice).
    let e = est("model=Qwen/Qwen3-32B&cards=2&engine=vllm&quant=BF16&gpu=h100-sxm");
    assert_eq!(e.layout, Sharing::Tensor);
    assert!(e.command.contains("--tensor-parallel-size 2"));
}

/// 2. vLLM, Llama-3.1-8B BF16 on 3 × 6.65 GiB: the cards sum to the totals (the KV was shown as
///    256 MiB per card of a 1 GiB cache), and the fullest card decides: it does not fit.
#[test]
fn vllm_cards_sum_to_totals_and_fullest_card_decides() {
    let e = est("model=meta-llama/Llama-3.1-8B-Instruct&engine=vllm&quant=BF16&cards=3&vram=6.65");
    assert_cards_sum(&e);
    let kv = e
        .terms
        .iter()
        .find(|t| t.name.id() == "kv_cache")
        .unwrap()
        .bytes
        .get();
    assert_eq!(kv, 1 << 30); // 32 layers × 8192 tokens × 2 × 8 × 128 × 2 B
                             // 32 layers over 3 cards: 11, 11, 10.
    let kv_cards: Vec<u64> = e.per_card.iter().map(|c| c.terms[1].1.get()).collect();
    assert_eq!(kv_cards[0], kv_cards[1]);
    assert!(kv_cards[0] > kv_cards[2]);
    assert!(!e.fits);
    let vram = e
        .checks
        .iter()
        .find(|c| c.name.id() == "vram_per_card")
        .unwrap();
    assert!(
        !vram.ok && vram.message.contains("on card 0 (the least headroom)"),
        "{}",
        vram.message
    );
    assert!(e.per_card.iter().any(|c| c.bytes > c.budget));
    assert_fits_is_and_of_hard(&e);
    // Every engine and card count keeps the sums exact.
    for engine in ["llama.cpp", "ollama", "vllm", "transformers"] {
        for cards in 1..=9 {
            let quant = if matches!(engine, "vllm" | "transformers") {
                "BF16"
            } else {
                "Q8_0"
            };
            let e = est(&format!(
                "model=google/gemma-3-27b-it&engine={engine}&quant={quant}&cards={cards}&par=3&ctx=20000"
            ));
            assert_cards_sum(&e);
            assert_fits_is_and_of_hard(&e);
        }
    }
}

/// 3a. Train mode: a picked GPU with no free memory got a 2-byte remainder and the plan "fit".
#[test]
fn train_picked_gpu_without_room_does_not_fit() {
    let d = from_query("mode=train&model=google/gemma-3-1b-it&free=24,24,24,0&pick=0,1,2,3");
    assert!(d.clean());
    let t = train::estimate(&d.inputs);
    assert!(!t.estimate.fits);
    let room = t
        .estimate
        .checks
        .iter()
        .find(|c| c.name.id() == "gpu_room")
        .unwrap();
    assert!(
        !room.ok && room.message.contains("GPU 3"),
        "{}",
        room.message
    );
    let g3 = t.estimate.per_card.iter().find(|c| c.index == 3).unwrap();
    assert_eq!(g3.bytes.get(), 0);
    let sum: u64 = t.estimate.per_card.iter().map(|c| c.bytes.get()).sum();
    assert_eq!(sum, t.estimate.total_device_bytes.get());
    // Without the empty GPU it fits.
    let d = from_query("mode=train&model=google/gemma-3-1b-it&free=24,24,24,0&pick=0,1,2");
    assert!(train::estimate(&d.inputs).estimate.fits);
}

/// 3b. `free` defines the GPUs: `cards` does not widen the range of `pick` (it said "the
///     requested no GPU give only 0.0 MiB" with `cards=4`), and a contradicting `cards` is
///     reported.
#[test]
fn train_free_defines_the_gpus() {
    for q in [
        "mode=train&free=24&cards=4&pick=3",
        "mode=train&free=24&pick=3",
        "mode=train&free=24,24&pick=1,1",
    ] {
        let d = from_query(q);
        let n = d.notices.iter().find(|n| n.key == Key::Pick);
        assert!(n.is_some(), "{q}: {:?}", d.notices);
        assert!(d.inputs.train.pick.is_empty(), "{q}");
    }
    let d = from_query("mode=train&free=24,24&cards=4");
    assert!(
        d.notices.iter().any(|n| n.key == Key::Cards),
        "{:?}",
        d.notices
    );
    // Old links written with the default one card keep decoding cleanly.
    assert!(from_query("mode=train&free=24,24&cards=1&pick=1").clean());
}

/// 5. The llama-server default-slots warning said "1.12 GiB … not the 1.12 GiB budgeted": it
///    now compares only when the numbers differ, and says why when they are equal.
#[test]
fn default_slots_warning_does_not_contradict_itself() {
    let e = est("model=Qwen/Qwen3-8B");
    let w = e.warnings.iter().find(|w| w.contains("4 slots")).unwrap();
    assert!(!w.contains("not the"), "{w}");
    assert!(w.contains("the same"), "{w}");
    // gemma-3 has sliding-window layers: 4 unified slots need more SWA cells, so they differ.
    let e = est("model=google/gemma-3-1b-it&quant=F16&ctx=4096");
    let w = e.warnings.iter().find(|w| w.contains("4 slots")).unwrap();
    assert!(w.contains("not the"), "{w}");
}

/// 7. Echoed input is quoted, shortened to 60 characters and escaped; notices from the URL are
///    capped like the page's edits.
#[test]
fn echoes_are_bounded_and_notices_capped() {
    let d = from_query("ab%0Acd%1B=1");
    let n = &d.notices[0];
    assert!(
        !n.to_string().contains('\n') && !n.to_string().contains('\x1b'),
        "{n}"
    );
    let long = "x".repeat(100_000);
    let d = from_query(&format!("model={long}"));
    let shown = d.notices[0].to_string();
    assert!(shown.len() < 200, "{} chars", shown.len());
    assert!(shown.contains(&format!("{}…", "x".repeat(ECHO_CHARS))));
    let q: String = (0..3000).map(|k| format!("u{k}=1&")).collect();
    let d = from_query(&q);
    assert_eq!(d.notices.len(), MAX_NOTICES + 1);
    assert_eq!(d.notices[MAX_NOTICES].to_string(), "… and 2,992 more");
}

/// 8. `%+A` is a malformed escape (a sign is not a hex digit): it stays literal, it is not a
///    newline.
#[test]
fn plus_sign_is_not_a_hex_digit() {
    let d = from_query("model=%+A");
    assert!(!d.notices[0].message.contains('\n'));
    assert!(
        d.notices[0].message.contains("\"% A\""),
        "{}",
        d.notices[0].message
    );
}
