//! `ncmoe=` (llama.cpp `--n-cpu-moe N` / `--cpu-moe`): the routed experts of the first N
//! layers leave the card for system RAM. The moved bytes are checked against the expert tensors
//! sized by hand from the model's public config (Qwen3-30B-A3B: hidden 2048, 48 layers, 128
//! experts of width 768, <https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json>) at
//! ggml's block sizes (Q8_0: 34 bytes per 32 values; Q4_K: 144 per 256; Q6_K: 210 per 256,
//! ggml/src/ggml-common.h), and llama.cpp's Q4_K_M choice for ffn_down (Q6_K in the first and
//! last eighth of the layers and every third between, src/llama-quant.cpp `use_more_bits`).

use fitcard_estimator::catalog::size_rule::is_cpu_moe_tensor;
use fitcard_estimator::inputs::Key;
use fitcard_estimator::solve::{solve, Target};
use fitcard_estimator::{estimate, from_query, Estimate};

const QWEN3_30B: &str = "model=Qwen/Qwen3-30B-A3B&engine=llama.cpp&gpu=rtx-4090&ctx=8192";

fn at(extra: &str) -> Estimate {
    let d = from_query(&format!("{QWEN3_30B}&{extra}"));
    assert!(d.notices.is_empty(), "{extra}: {:?}", d.notices);
    estimate(&d.inputs)
}

mod common;
use common::term;

/// One Qwen3-30B-A3B layer's experts: gate and up `[2048 → 768] × 128`, down `[768 → 2048] × 128`.
fn layer_experts(gate_up_row: u64, down_row: u64) -> u64 {
    2 * gate_up_row * 768 * 128 + down_row * 2048 * 128
}

#[test]
fn every_layers_experts_at_q8_0_leave_the_card() {
    let q8_row_2048 = 2048 / 32 * 34;
    let q8_row_768 = 768 / 32 * 34;
    let e = at("quant=Q8_0&ncmoe=all");
    assert_eq!(
        term(&e, "experts_host"),
        48 * layer_experts(q8_row_2048, q8_row_768)
    );
    assert_eq!(term(&e, "experts_host"), 30_802_968_576);
    let o = e.offload.expect("an offload");
    assert_eq!((o.expert_layers, o.cpu_layers), (48, 0));
    assert!(o.experts_exact);
    assert!(
        e.commands[0].command.contains(" --cpu-moe"),
        "{}",
        e.commands[0].command
    );
}

#[test]
fn the_q4_k_m_mix_gives_each_layers_experts_its_own_bytes() {
    let q4k_2048 = 2048 / 256 * 144;
    let (q4k_768, q6k_768) = (768 / 256 * 144, 768 / 256 * 210);
    let host = |n: u32| term(&at(&format!("quant=Q4_K_M&ncmoe={n}")), "experts_host");
    // Layer 0 is in the first eighth: ffn_down_exps at Q6_K.
    assert_eq!(host(1), layer_experts(q4k_2048, q6k_768));
    // Layer 6 (48 / 8 = 6) is the first at the plain Q4_K.
    assert_eq!(host(7) - host(6), layer_experts(q4k_2048, q4k_768));
    // Layer 8 is the third after the first eighth: Q6_K again.
    assert_eq!(host(9) - host(8), layer_experts(q4k_2048, q6k_768));
}

#[test]
fn what_leaves_the_card_is_what_ram_gains() {
    let base = at("quant=Q4_K_M");
    let weights = term(&base, "weights");
    let kv = term(&base, "kv_cache");
    let mut last = base.total_device_bytes.get();
    for n in [1, 8, 20, 47, 48] {
        let e = at(&format!("quant=Q4_K_M&ncmoe={n}"));
        assert_eq!(
            term(&e, "weights") + term(&e, "experts_host"),
            weights,
            "ncmoe={n}"
        );
        assert_eq!(
            term(&e, "kv_cache"),
            kv,
            "ncmoe={n}: the KV cache stays on the card"
        );
        assert!(e.total_device_bytes.get() < last, "ncmoe={n}");
        last = e.total_device_bytes.get();
        assert!(
            e.commands[0].command.contains(&format!(" --n-cpu-moe {n}")),
            "{}",
            e.commands[0].command
        );
    }
    // 48 layers is every layer: the same bytes as --cpu-moe.
    assert_eq!(
        term(&at("quant=Q4_K_M&ncmoe=48"), "experts_host"),
        term(&at("quant=Q4_K_M&ncmoe=all"), "experts_host")
    );
}

#[test]
fn blocks_already_on_the_cpu_are_not_counted_twice() {
    // -ngl 41 leaves the first 48 + 1 − 41 = 8 blocks on the CPU whole.
    let e = at("quant=Q8_0&ngl=41&ncmoe=20");
    let o = e.offload.expect("an offload");
    assert_eq!((o.cpu_layers, o.expert_layers), (8, 12));
    assert_eq!(term(&e, "experts_host"), 12 * layer_experts(2176, 816));
}

#[test]
fn experts_read_from_ram_slow_decoding() {
    let on_card = at("quant=Q4_K_M").speed.expect("a speed");
    let split = at("quant=Q4_K_M&ncmoe=all").speed.expect("a speed");
    assert!(split.decode_tps < on_card.decode_tps / 2.0, "{split:?}");
    assert!(split.offloaded_bytes > 0);
}

#[test]
fn the_solver_finds_the_fewest_layers_that_fit() {
    let q = format!("{QWEN3_30B}&quant=Q8_0&ctx=16384");
    let d = from_query(&q);
    let s = solve(&d.inputs, Target::Ncmoe);
    let n: u32 = s.value.as_deref().expect("a solution").parse().unwrap();
    assert!(n > 0 && n < 48, "{s:?}");
    let fits = |k: u32| estimate(&from_query(&format!("{q}&ncmoe={k}")).inputs).fits;
    assert!(fits(n) && !fits(n - 1), "{s:?}");
    // A dense model has no experts to move.
    let dense = from_query("model=Qwen/Qwen3-8B&engine=llama.cpp");
    assert_eq!(solve(&dense.inputs, Target::Ncmoe).value, None);
}

#[test]
fn llama_cpps_expert_pattern() {
    for (name, moved) in [
        ("ffn_gate_exps.weight", true),
        ("ffn_up_exps.weight", true),
        ("ffn_down_exps.weight", true),
        ("ffn_gate_up_exps.weight", true),
        ("ffn_down_chexps.weight", true),
        // Searched, not anchored: the experts' biases (gpt-oss) and scales (Gemma 4) go too.
        ("ffn_gate_exps.bias", true),
        ("ffn_down_exps.scale", true),
        ("ffn_gate_inp.weight", false),
        ("ffn_up_shexp.weight", false),
        ("ffn_down.weight", false),
        ("attn_q.weight", false),
    ] {
        assert_eq!(is_cpu_moe_tensor(name), moved, "{name}");
    }
}

#[test]
fn other_engines_and_dense_models_refuse_the_key() {
    for q in [
        "model=Qwen/Qwen3-30B-A3B&engine=sglang&ncmoe=8",
        "model=Qwen/Qwen3-30B-A3B&engine=ollama&ncmoe=8",
        "model=Qwen/Qwen3-8B&engine=vllm&ncmoe=8",
        "model=Qwen/Qwen3-8B&engine=llama.cpp&ncmoe=8",
    ] {
        let d = from_query(q);
        assert!(
            d.notices.iter().any(|n| n.key == Key::Ncmoe),
            "{q}: {:?}",
            d.notices
        );
        assert_eq!(d.inputs.ncmoe, None, "{q}");
    }
}

#[test]
fn one_layers_experts_are_sized_as_the_whole_file_sizes_them() {
    use fitcard_estimator::catalog::quant::Container;
    use fitcard_estimator::catalog::size_rule::{expert_layer_bytes, layer_expert_bytes};
    let mut checked = 0;
    for fam in &fitcard_estimator::catalog::catalog().families {
        for v in fam.variants.iter().filter(|v| v.arch.experts > 1) {
            let output = !v.arch.tied_embeddings;
            for f in v.formats.iter().filter(|f| f.container == Container::Gguf) {
                if fitcard_estimator::catalog::size_rule::counts_ffn_down(f.id) {
                    continue;
                }
                let Ok(whole) = expert_layer_bytes(&v.arch, f.id, output) else {
                    continue;
                };
                for il in 0..v.arch.layers {
                    let one = layer_expert_bytes(&v.arch, f.id, il).expect("a rule");
                    assert_eq!(one, whole[il as usize], "{} {} layer {il}", v.id, f.id);
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "{checked} MoE GGUF formats checked");
}

/// The weights term on each card.
fn weights_per_card(e: &Estimate) -> Vec<u64> {
    e.per_card
        .iter()
        .map(|c| {
            c.terms
                .iter()
                .filter(|(n, _)| n.id() == "weights")
                .map(|(_, b)| b.get())
                .sum()
        })
        .collect()
}

#[test]
fn on_several_cards_the_first_cards_give_up_their_layers_experts() {
    // Two cards, 24 of the 48 layers each (llama.cpp's layer split, the first layers on the
    // first card): --n-cpu-moe N takes the experts of layers 0..N, so card 0 loses all of them
    // up to N = 24, and card 1 only those of layers 24..N beyond.
    let two = |n: u32| at(&format!("quant=Q8_0&cards=2&ncmoe={n}"));
    let none = at("quant=Q8_0&cards=2");
    let base = weights_per_card(&none);
    assert_eq!(base.len(), 2);
    let q8_layer = layer_experts(34 * 2048 / 32, 34 * 768 / 32);
    let e = two(10);
    let w = weights_per_card(&e);
    assert_eq!(term(&e, "experts_host"), 10 * q8_layer);
    assert_eq!(w[1], base[1], "card 1 keeps its layers' experts");
    assert_eq!(w[0], base[0] - 10 * q8_layer);
    let e = two(30);
    let w = weights_per_card(&e);
    assert_eq!(
        base[0] - w[0],
        24 * q8_layer,
        "card 0 gave up every layer's experts"
    );
    assert_eq!(base[1] - w[1], 6 * q8_layer);
    // The cards and the RAM still hold the whole file's weights.
    assert_eq!(
        w.iter().sum::<u64>() + term(&e, "experts_host"),
        base.iter().sum::<u64>()
    );
}

/// A byte count as llama.cpp prints a buffer: MiB with two decimals.
fn mib(b: u64) -> String {
    format!("{:.2}", b as f64 / 1048576.0)
}

fn plan(q: &str) -> Estimate {
    let d = from_query(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    estimate(&d.inputs)
}

#[test]
fn the_experts_moved_are_the_buffers_llama_cpp_forks_print() {
    // Qwen3-235B-A22B Q8_0 (lmstudio-community's file), ik_llama.cpp build 3772 (a llama.cpp
    // fork with its buffer split), `--no-mmap`, `-ot "blk\.([6-9]|[1-9][0-9])\.ffn_.*_exps=CPU"`:
    // 88 layers' experts on the CPU, "CPU buffer size = 215424.00 MiB"; with layers 15–93 (79):
    // 193392.00 MiB; the token embedding "CUDA_Host buffer size = 630.59 MiB"; KV at 32,768
    // cells f16 "6016.00 MiB" (https://github.com/ikawrakow/ik_llama.cpp/issues/629). Every
    // layer's experts are alike at Q8_0, so the first 88 weigh what layers 6–93 do.
    let q = "model=Qwen/Qwen3-235B-A22B&quant=Q8_0&engine=llama.cpp&gpu=h200&ctx=32768";
    let e = plan(&format!("{q}&ncmoe=88"));
    assert_eq!(mib(term(&e, "experts_host")), "215424.00");
    assert_eq!(term(&e, "experts_host"), 215_424 * 1_048_576);
    assert_eq!(mib(term(&e, "weights_host")), "630.59");
    assert_eq!(mib(term(&e, "kv_cache")), "6016.00");
    assert_eq!(
        term(&plan(&format!("{q}&ncmoe=79")), "experts_host"),
        193_392 * 1_048_576
    );
    // gpt-oss-120b, unsloth's "F16" file (MXFP4 experts), ik_llama.cpp build 3947, `-rtr`
    // (mmap off) `--cpu-moe`: "CPU buffer size = 58244.06 MiB", "CUDA_Host buffer size =
    // 1104.61 MiB" (https://github.com/ikawrakow/ik_llama.cpp/issues/895).
    let e = plan(
        "model=openai/gpt-oss-120b&quant=F16&engine=llama.cpp&gpu=rtx-4090&ctx=16768&ncmoe=all",
    );
    assert_eq!(mib(term(&e, "experts_host")), "58244.06");
    assert_eq!(mib(term(&e, "weights_host")), "1104.61");
}

#[test]
fn what_stays_on_the_card_is_what_llama_cpp_prints() {
    // gpt-oss-20b MXFP4 on an RTX 3070, llama.cpp build 6699 (mainline), `-ngl 99 --n-cpu-moe 99
    // -c 131072 -fa on`: "CUDA0 model buffer size = 1242.03 MiB", KV "3072.00 MiB" (global) +
    // "18.00 MiB" (SWA), "CUDA_Host output buffer size = 0.77 MiB"; on ik_llama.cpp the same
    // file's token embedding is its own "CPU buffer size = 586.82 MiB"
    // (https://github.com/ikawrakow/ik_llama.cpp/issues/822). The weights on the card come
    // from the catalog row's file size, bartowski's MXFP4 file listed as 12.1 GB (rounded), not
    // ggml-org's file of the log: within 0.3 %, the rest exact to the print.
    let e = plan(
        "model=openai/gpt-oss-20b&quant=MXFP4&engine=llama.cpp&gpu=rtx-3070&ctx=131072&ncmoe=all",
    );
    let card = term(&e, "weights") as f64 / 1048576.0;
    assert!(
        (card / 1242.03 - 1.0).abs() < 0.003,
        "{card:.2} MiB on the card"
    );
    assert_eq!(mib(term(&e, "kv_cache")), "3090.00");
    assert_eq!(mib(term(&e, "weights_host")), "586.82");
    assert_eq!(mib(term(&e, "logits")), "0.77");
}
