//! `loras=` / `lorarank=` (serve-time LoRA adapters) and `reserve=` (GiB kept free per card).
//!
//! The adapters' bytes are checked by hand from Llama-3.1-8B's public config (hidden 4096, 32
//! heads and 8 KV heads of 128, FFN 14336, 32 layers:
//! <https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/blob/main/config.json>) against the
//! stacks vLLM allocates (`vllm/lora/layers/base_linear.py`, `create_lora_weights`) and the
//! all-linear f32 adapters llama.cpp loads; the reserve against vLLM's startup check
//! (`vllm/v1/worker/utils.py`, `request_memory`) and SGLang's free-memory budget.

use fitcard_estimator::{encode, estimate, from_query, Estimate};

mod common;
use common::term;

const LLAMA: &str = "model=meta-llama/Llama-3.1-8B-Instruct&quant=BF16";

fn plan(q: &str) -> (Estimate, Vec<String>) {
    let d = from_query(q);
    let notes = d.notices.iter().map(|n| n.message.clone()).collect();
    (estimate(&d.inputs), notes)
}

/// One layer's adapter elements per unit of rank on one of `tp` cards, from the config.
fn layer(tp: u64) -> u64 {
    let (h, q, kv, ffn) = (4096, 32 * 128 / tp, (8 / tp).max(1) * 128, 14336 / tp);
    7 * h + 2 * q + 2 * kv + 3 * ffn
}

#[test]
fn vllm_preallocates_every_linear_modules_stacks_before_the_pool() {
    let q = format!("{LLAMA}&engine=vllm&gpu=h100-sxm&ctx=8192");
    let (e, notes) = plan(&format!("{q}&loras=4&lorarank=64"));
    assert!(notes.is_empty(), "{notes:?}");
    let want = 4 * 64 * 2 * 32 * layer(1);
    assert_eq!(want, 1_342_177_280);
    assert_eq!(term(&e, "lora_adapters"), want);
    // The stacks come off the KV pool (to within one 16-token page of the pool's rounding).
    let (none, _) = plan(&q);
    let shrunk = none.kv_pool_bytes.unwrap().get() - e.kv_pool_bytes.unwrap().get();
    let page = 32 * 16 * 8 * 128 * 2 * 2;
    assert!(shrunk.abs_diff(want) < page, "{shrunk} vs {want}");
    assert_eq!(
        e.per_card[0].bytes.get(),
        none.per_card[0].bytes.get() + want
    );
    assert!(e
        .command
        .contains("--enable-lora --max-loras 4 --max-lora-rank 64"));
}

#[test]
fn under_tensor_parallelism_each_card_holds_the_sharded_stacks() {
    let (e, notes) = plan(&format!(
        "{LLAMA}&engine=vllm&gpu=h100-sxm&cards=2&tp=2&ctx=8192&loras=2"
    ));
    assert!(notes.is_empty(), "{notes:?}");
    let per_card = 2 * 16 * 2 * 32 * layer(2);
    assert_eq!(term(&e, "lora_adapters"), 2 * per_card);
    for c in &e.per_card {
        let t = c.terms.iter().find(|(n, _)| n.id() == "lora_adapters");
        assert_eq!(t.map(|(_, b)| b.get()), Some(per_card));
    }
}

#[test]
fn llama_cpp_loads_each_adapter_file_on_the_card() {
    let (e, notes) = plan(
        "model=meta-llama/Llama-3.1-8B-Instruct&quant=Q8_0&engine=llama.cpp&gpu=h100-sxm&ctx=8192&loras=2&lorarank=16",
    );
    assert!(notes.is_empty(), "{notes:?}");
    // Two all-linear rank-16 adapters at f32: 2 × 16 × 4 B × 32 layers × 81,920.
    assert_eq!(term(&e, "lora_adapters"), 2 * 16 * 4 * 32 * layer(1));
    assert!(e
        .command
        .contains("--lora adapter-1.gguf --lora adapter-2.gguf"));
    let card: u64 = e.per_card.iter().map(|c| c.bytes.get()).sum();
    assert_eq!(card, e.total_device_bytes.get());
}

#[test]
fn adapters_not_estimated_are_refused_by_name() {
    for (q, key_words) in [
        (
            "model=Qwen/Qwen3-30B-A3B&quant=Q4_K_M&engine=llama.cpp&loras=1",
            "mixture of experts",
        ),
        (&*format!("{LLAMA}&engine=sglang&loras=1"), "SGLang"),
        (&*format!("{LLAMA}&engine=vllm&lorarank=16"), "needs loras="),
    ] {
        let (e, notes) = plan(q);
        assert!(
            notes.iter().any(|n| n.contains(key_words)),
            "{q}: {notes:?}"
        );
        assert_eq!(term(&e, "lora_adapters"), 0, "{q}");
    }
    // vLLM takes only its own ranks: the next one up.
    let d = from_query(&format!("{LLAMA}&engine=vllm&loras=1&lorarank=20"));
    assert!(encode(&d.inputs).contains("&loras=1&lorarank=32"));
}

#[test]
fn the_keys_round_trip() {
    let q = format!("{LLAMA}&engine=vllm&gpu=h100-sxm&loras=3&lorarank=128&reserve=2.5");
    let once = encode(&from_query(&q).inputs);
    assert!(once.contains("&loras=3&lorarank=128&reserve=2.5"), "{once}");
    assert_eq!(encode(&from_query(&once).inputs), once);
    // Without them nothing is written.
    let plain = encode(&from_query(LLAMA).inputs);
    assert!(
        !plain.contains("loras") && !plain.contains("reserve"),
        "{plain}"
    );
}

#[test]
fn a_reserve_comes_off_what_llama_cpp_may_use() {
    // 8 GiB of Q8_0 weights on a 24 GiB card: fits, and with 18 GiB kept free it does not.
    let q =
        "model=meta-llama/Llama-3.1-8B-Instruct&quant=Q8_0&engine=llama.cpp&gpu=rtx-4090&ctx=4096";
    let (free, _) = plan(q);
    let (kept, _) = plan(&format!("{q}&reserve=18"));
    assert!(free.fits && !kept.fits);
    assert_eq!(
        free.per_card[0].budget.get() - kept.per_card[0].budget.get(),
        18 << 30
    );
    let vram = kept.checks.iter().find(|c| c.name.id() == "vram_per_card");
    assert!(
        vram.is_some_and(|c| c.message.contains("less 18.00 GiB kept free")),
        "{vram:?}"
    );
}

#[test]
fn vllm_refuses_to_start_when_the_reserve_eats_into_its_share() {
    // H100 SXM: 79.65 GiB; util 0.9 asks 71.68 GiB. 4 GiB kept free leaves 75.65: starts; 10
    // GiB leaves 69.65: "Free memory on device … is less than desired GPU memory utilization".
    let q = format!("{LLAMA}&engine=vllm&gpu=h100-sxm&ctx=8192");
    let (ok, _) = plan(&format!("{q}&reserve=4"));
    assert!(ok.fits);
    let (none, _) = plan(&q);
    assert_eq!(ok.kv_pool_bytes, none.kv_pool_bytes);
    let (bad, _) = plan(&format!("{q}&reserve=10"));
    assert!(!bad.fits);
    let msg = bad
        .checks
        .iter()
        .filter(|c| c.name.id() == "vllm_startup" && !c.ok)
        .map(|c| c.message.clone())
        .collect::<Vec<_>>();
    assert!(
        msg.iter()
            .any(|m| m.contains("--gpu-memory-utilization 0.87 or less starts")),
        "{msg:?}"
    );
    // The util it names starts.
    let (again, _) = plan(&format!("{q}&reserve=10&util=0.87"));
    assert!(again.fits);
}

#[test]
fn ollama_is_told_the_reserve_in_its_own_setting() {
    let (e, _) = plan("model=Qwen/Qwen3-8B&engine=ollama&gpu=rtx-4090&reserve=1.5");
    assert!(
        e.command.contains("OLLAMA_GPU_OVERHEAD=1610612736"),
        "{}",
        e.command
    );
    let (none, _) = plan("model=Qwen/Qwen3-8B&engine=ollama&gpu=rtx-4090");
    assert!(!none.command.contains("OLLAMA_GPU_OVERHEAD"));
}

#[test]
fn sglang_takes_its_share_of_what_is_free() {
    let q = format!("{LLAMA}&engine=sglang&gpu=h100-sxm&ctx=8192");
    let (none, _) = plan(&q);
    let (kept, _) = plan(&format!("{q}&reserve=8"));
    // mem_fraction_static × (total − reserve): 0.9 × 8 GiB less for the static pool.
    let less = none.per_card[0].budget.get() - kept.per_card[0].budget.get();
    assert!(
        less.abs_diff((0.9 * 8.0 * (1u64 << 30) as f64) as u64) < 16,
        "{less}"
    );
    assert!(kept.kv_pool_bytes.unwrap() < none.kv_pool_bytes.unwrap());
}

/// The same plan on the other engines says what each leaves out: SGLang's command has no
/// adapters, and its line says why, in the words of its notice.
#[test]
fn the_other_engines_plans_say_they_leave_the_adapters_out() {
    let (e, notes) = plan(&format!(
        "{LLAMA}&engine=vllm&gpu=h100-sxm&ctx=8192&loras=2"
    ));
    assert!(notes.is_empty(), "{notes:?}");
    assert!(e.commands[0].differs.is_empty());
    let sglang = e
        .commands
        .iter()
        .find(|c| c.engine == "sglang")
        .expect("SGLang loads safetensors too");
    assert!(!sglang.command.contains("lora"), "{}", sglang.command);
    assert!(
        sglang.differs.iter().any(|d| d.contains("SGLang")),
        "{:?}",
        sglang.differs
    );
    // Without adapters nothing differs there.
    let (plain, _) = plan(&format!("{LLAMA}&engine=vllm&gpu=h100-sxm&ctx=8192"));
    let s = plain
        .commands
        .iter()
        .find(|c| c.engine == "sglang")
        .expect("sglang");
    assert!(s.differs.is_empty(), "{:?}", s.differs);
}
