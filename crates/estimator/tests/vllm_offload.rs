//! `ncmoe=` on vLLM (`--cpu-offload-gb X --cpu-offload-params experts`): vLLM moves whole
//! parameters named `*.experts.*` of its decoder layers, in order, to pinned host memory until
//! X GiB are moved, per GPU (`vllm/config/offload.py`, `vllm/model_executor/offloader/uva.py`;
//! selective offload since <https://github.com/vllm-project/vllm/pull/34535>). The moved bytes
//! are checked against the expert tensors sized by hand from Qwen3-30B-A3B's public config
//! (hidden 2048, 48 layers, 128 experts of width 768,
//! <https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json>) at each checkpoint's
//! layout: BF16 2 bytes a weight; the publisher's FP8 one byte a weight and an F32 scale per
//! 128 × 128 block (`weight_block_size`, <https://huggingface.co/Qwen/Qwen3-8B-FP8/blob/main/config.json>).

use fitcard_estimator::inputs::Key;
use fitcard_estimator::solve::{solve, Target};
use fitcard_estimator::{estimate, from_query, Estimate};

mod common;
use common::term;

const BASE: &str = "model=Qwen/Qwen3-30B-A3B&engine=vllm&gpu=rtx-4090&ctx=8192";
const GIB: u64 = 1 << 30;

fn at(extra: &str) -> Estimate {
    let d = from_query(&format!("{BASE}&{extra}"));
    assert!(d.notices.is_empty(), "{extra}: {:?}", d.notices);
    estimate(&d.inputs)
}

/// One layer's routed experts: gate and up `[2048 → 768]`, down `[768 → 2048]`, 128 of each,
/// at `per(cols, rows)` bytes a matrix.
fn layer(per: impl Fn(u64, u64) -> u64) -> u64 {
    128 * (2 * per(2048, 768) + per(768, 2048))
}

fn bf16(cols: u64, rows: u64) -> u64 {
    2 * cols * rows
}

fn fp8_block(cols: u64, rows: u64) -> u64 {
    cols * rows + 4 * cols.div_ceil(128) * rows.div_ceil(128)
}

#[test]
fn the_first_layers_experts_leave_the_card_at_the_checkpoints_layout() {
    let e = at("quant=BF16&ncmoe=40");
    assert_eq!(term(&e, "experts_host"), 40 * layer(bf16));
    // 45 GiB exactly: 40 × 128 × 3 × 2048 × 768 × 2 B.
    assert_eq!(term(&e, "experts_host"), 45 * GIB);
    let all = from_query(&format!("{BASE}&quant=BF16"));
    let whole = estimate(&all.inputs);
    assert_eq!(
        term(&whole, "weights") - term(&e, "weights"),
        40 * layer(bf16),
        "what leaves the card is what host memory gains"
    );
    let fp8 = at("quant=FP8&ncmoe=all&cards=2");
    assert_eq!(term(&fp8, "experts_host"), 48 * layer(fp8_block));
    let o = fp8.offload.expect("an offload");
    assert_eq!((o.expert_layers, o.cpu_layers), (48, 0));
}

#[test]
fn the_command_moves_one_cards_share_rounded_down() {
    let e = at("quant=BF16&ncmoe=40");
    let c = &e.commands[0].command;
    assert!(
        c.contains(" --cpu-offload-gb 45 --cpu-offload-params experts"),
        "{c}"
    );
    // Two cards under tensor parallelism: each holds half of every layer's experts, and vLLM's
    // figure is per GPU. 48 × 604,127,232 B / 2 = 13.503 GiB: written 13.5, so that vLLM stops
    // within the last layer's last parameters, not one expert tensor into the next layer.
    let e = at("quant=FP8&ncmoe=all&cards=2");
    let c = &e.commands[0].command;
    assert!(c.contains("--tensor-parallel-size 2"), "{c}");
    assert!(
        c.contains(" --cpu-offload-gb 13.5 --cpu-offload-params experts"),
        "{c}"
    );
    let (per_card, gib) = ((48 * layer(fp8_block) / 2) as f64, GIB as f64);
    assert!(13.5 * gib <= per_card && per_card - 13.5 * gib < 0.01 * gib);
}

#[test]
fn the_kv_pool_gains_what_the_card_gave_up() {
    // The card's budget is fixed (util × capacity): the experts' bytes go to the KV pool, per
    // card (each of two holds half of every layer's experts).
    let with = at("quant=FP8&ncmoe=8&cards=2");
    let without = estimate(&from_query(&format!("{BASE}&quant=FP8&cards=2")).inputs);
    assert!(without.fits);
    let gained = with.kv_pool_bytes.expect("vLLM's pool").get()
        - without.kv_pool_bytes.expect("vLLM's pool").get();
    assert_eq!(gained, 8 * layer(fp8_block) / 2);
}

#[test]
fn pipeline_stages_move_nothing() {
    // Cards of two sizes: vLLM runs pipeline stages, each of which would move the figure from
    // its own first layers; not modelled, so nothing moves and the command writes no flag.
    let d = from_query(&format!("{BASE}&quant=FP8&ncmoe=8&gpus=rtx-4090,rtx-3090"));
    let e = estimate(&d.inputs);
    assert_eq!(term(&e, "experts_host"), 0);
    assert!(!e.commands[0].command.contains("--cpu-offload-gb"));
}

#[test]
fn the_card_reads_the_routed_share_over_pcie() {
    let e = at("quant=BF16&ncmoe=40");
    let s = e.speed.expect("the RTX 4090's bandwidth is known");
    assert_eq!(s.offloaded_bytes, 45 * GIB);
    // Each token reads its 8 of 128 experts over the link (31.5 GB/s) where the card would
    // have read them at its own bandwidth.
    let routed = 45.0 * GIB as f64 * 8.0 / 128.0;
    let link = routed / 31.5e9;
    let card = routed / (s.efficiency * s.bandwidth_gbs * 1e9);
    let extra = 1.0 / s.decode_tps - 1.0 / s.on_card_tps;
    assert!(
        (extra - (link - card)).abs() < 1e-9,
        "{extra} vs {}",
        link - card
    );
}

#[test]
fn the_solver_finds_the_fewest_layers_on_vllm_too() {
    let d = from_query(&format!("{BASE}&quant=BF16"));
    let r = solve(&d.inputs, Target::Ncmoe);
    let n: u32 = r.value.as_deref().expect("a count").parse().unwrap();
    assert!(
        r.message.contains("--cpu-offload-params experts"),
        "{}",
        r.message
    );
    let fits = |k: u32| estimate(&from_query(&format!("{BASE}&quant=BF16&ncmoe={k}")).inputs).fits;
    assert!(fits(n) && !fits(n - 1), "{n}");
}

#[test]
fn sglang_and_dense_models_refuse_it() {
    for q in [
        "model=Qwen/Qwen3-30B-A3B&engine=sglang&ncmoe=8",
        "model=Qwen/Qwen3-8B&engine=vllm&ncmoe=8",
    ] {
        let d = from_query(q);
        assert!(d.notices.iter().any(|n| n.key == Key::Ncmoe), "{q}");
    }
}
