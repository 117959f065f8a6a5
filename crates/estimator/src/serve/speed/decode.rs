//! Decode: the time of one step over the cards and the host, per request and over the
//! concurrent requests.

use super::*;

/// Per-token tensor-parallel communication on `tp` cards (see the module docs), seconds.
pub fn tp_comm_s(a: &Arch, tp: u32, kind: MemoryKind) -> f64 {
    if tp <= 1 {
        return 0.0;
    }
    let (latency, link) = match kind {
        MemoryKind::Hbm => (6e-6, 450e9),
        _ => (42.56e-6, 31.5e9),
    };
    let n = f64::from(tp);
    let bytes = 2.0 * (n - 1.0) / n * a.hidden as f64 * 2.0;
    2.0 * f64::from(a.layers) * (latency + bytes / link)
}

/// Bandwidth (bytes/s) and fit of card `k`.
pub(super) fn card(i: &Inputs, k: usize) -> Option<(f64, Fit, MemoryKind)> {
    let id = match (i.gpus.get(k), &i.gpu) {
        (Some(id), _) => id.clone(),
        (None, GpuChoice::Catalog(id)) => id.clone(),
        (None, GpuChoice::VramGib(_)) => return None,
    };
    let g = catalog().gpu(&id)?;
    let fit = match decode_fit(g) {
        f if f == UNIFIED && i.engine == crate::catalog::engine::Engine::Mlx => MLX,
        f if f == HBM && i.engine.preallocates() => VLLM_HBM,
        f => f,
    };
    // A CPU-only machine's bandwidth is its RAM's: `ram_bw=` when given.
    let bw = match (g.memory_kind, i.ram_bw) {
        (MemoryKind::Host, Some(r)) => r,
        _ => g.bandwidth_gbs?,
    };
    Some((bw * 1e9, fit, g.memory_kind))
}

/// Bandwidth (bytes/s), fit and memory kind of card `k`: a catalog card's, or a free-form
/// (`vram=`) card's with the `bw=` it was given, on the GDDR (CUDA) fit.
fn card_bw(i: &Inputs, k: usize) -> Option<(f64, Fit, MemoryKind)> {
    match (&i.gpu, i.bw) {
        (GpuChoice::VramGib(_), Some(bw)) if i.gpus.is_empty() => {
            Some((bw * 1e9, GDDR, MemoryKind::Gddr))
        }
        _ => card(i, k),
    }
}

/// Host RAM bandwidth of `i`, bytes/s (the theoretical peak).
pub fn ram_bw(i: &Inputs) -> f64 {
    i.ram_bw.unwrap_or(DEFAULT_RAM_BW_GBS) * 1e9
}

/// Blocks that do not fit the cards and stay in host RAM when no `ngl=` is given (llama.cpp's
/// `--fit`, Ollama's own choice): the bytes over each card's budget in whole layers of
/// `total_device_bytes / layers`.
pub fn spill_layers(i: &Inputs, layers: u32, e: &Estimate) -> (u64, u32) {
    if !crate::serve::support::spills(i) {
        return (0, 0);
    }
    // Bytes sum saturating: per-card bytes from a hostile header can be near u64::MAX.
    let over = e
        .per_card
        .iter()
        .map(|c| Bytes(c.bytes.get().saturating_sub(c.budget.get())))
        .sum::<Bytes>()
        .get();
    let per_layer = e.total_device_bytes.get() / u64::from(layers.max(1));
    (
        over,
        (over.div_ceil(per_layer.max(1)).min(u64::from(layers))) as u32,
    )
}

/// Decode speed of `e` (serve mode), or `None` when a card's bandwidth is unknown or the model
/// generates nothing.
pub fn decode(i: &Inputs, v: &Variant, e: &Estimate) -> Option<Speed> {
    // An embedding or reranking model generates no token: no decode speed, in the estimate and
    // in the ranking alike.
    if crate::catalog::task_of(&i.model).is_some() {
        return None;
    }
    let active = active_fraction(i, v, e);
    let par = f64::from(i.par.max(1));
    let ram_bw = ram_bw(i);
    let host_bw = HOST_EFF * ram_bw;
    let cards = card_times(i, e, active, host_bw, kv_read_share(i, &v.arch))?;
    let (card_t, host_t, spill_on_card_t) = step_times(v, e, &cards);
    // The same step at the start of a conversation: no KV cache read yet.
    let start = card_times(i, e, active, host_bw, 0.0)?;
    let (card_t0, host_t0, _) = step_times(v, e, &start);
    // `ngl=` / `nkvo=1`: the blocks and KV cache kept in host RAM are read from there.
    let (bw0, fit0) = cards.slowest?;
    // vLLM's offloaded experts stay where they are: the card reads them over PCIe through
    // unified addressing (vllm/model_executor/offloader/uva.py), at the link's rate.
    let host_bw = if cfg!(feature = "cpu-moe") && i.engine == crate::catalog::engine::Engine::Vllm {
        super::prefill::PCIE_GBS * 1e9
    } else {
        host_bw
    };
    let (pinned_t, pinned_w_t, pinned_on_card_t, pinned_layers) = match e.offload {
        Some(o) => {
            // `ncmoe=`: a token reads its routed experts only, `experts_active` of `experts`,
            // from host RAM.
            let routed = f64::from(v.arch.experts_active) / f64::from(v.arch.experts.max(1));
            let w =
                o.layers_host.get() as f64 * active + o.experts_host.get() as f64 * routed.min(1.0);
            let kv = o.kv_host.get() as f64;
            (
                (w + kv) / host_bw,
                w / host_bw,
                // What the same bytes cost on the card, for `on_card_tps`.
                w / (fit0.eff * bw0) + kv / (KV_EFF_RATIO * fit0.eff * bw0),
                o.cpu_layers,
            )
        }
        None => (0.0, 0.0, 0.0, 0),
    };
    let fixed = cards.fixed;
    let spilled = cards.spilled;
    let step = card_t + host_t + pinned_t + fixed;
    let (_, spill_layers) = spill_layers(i, v.arch.layers, e);
    let pinned_host = e.offload.map_or(0, |o| {
        o.layers_host.get() + o.kv_host.get() + o.experts_host.get()
    });
    let step_start = card_t0 + host_t0 + pinned_w_t + fixed;
    Some(Speed {
        decode_tps: 1.0 / step,
        decode_tps_start: 1.0 / step_start,
        aggregate_tps: par / step,
        offloaded_bytes: spilled + pinned_host,
        offloaded_layers: (spill_layers + pinned_layers).min(v.arch.layers),
        on_card_tps: 1.0 / (card_t + spill_on_card_t + pinned_on_card_t + fixed),
        bandwidth_gbs: bw0 / 1e9,
        efficiency: fit0.eff,
        ram_bw_gbs: ram_bw / 1e9,
        ram_efficiency: HOST_EFF,
        prefill_tps: None,
        ttft_s: None,
        measured: None,
        spec_speedup: spec_speedup(i),
    })
}

/// With speculative decoding: the speedups of published runs of the same method
/// (tokens/s with it over tokens/s without, same machine). A range, not a prediction: what
/// drafting gains depends on how often the drafts are accepted. N-grams: none, their gain
/// depends on how much the output repeats the prompt (no figure).
#[cfg(feature = "spec")]
fn spec_speedup(i: &Inputs) -> Option<crate::estimate::SpecSpeedup> {
    use crate::inputs::Spec;
    let vllm = i.engine == crate::catalog::engine::Engine::Vllm;
    match i.spec? {
        // No published vLLM draft-model run with and without the draft compiled yet.
        Spec::Draft if vllm => None,
        Spec::Draft => Some(crate::estimate::SpecSpeedup {
            // 10.781 t/s with the draft against "about 11" without.
            low: 0.98,
            // 55.473 t/s against 32.49.
            high: 1.71,
            source: "llama.cpp llama-speculative runs: Llama 3.1 8B Q8_0 drafted by Llama 3.2 1B Q8_0 on an RTX 3060, 32.49 → 55.47 tokens/s at 72 % acceptance (https://github.com/ggml-org/llama.cpp/issues/5877); Qwen2.5-Coder-32B Q4_K_L drafted by Qwen2.5-Coder-3B Q4_0 on an M4 Pro, about 11 → 10.78 tokens/s at 34 % acceptance (https://github.com/ggml-org/llama.cpp/pull/10455)",
        }),
        // 126 → 111, 11.5 → 9.2 and 63.3 → 116.3 tokens/s.
        Spec::Mtp if vllm => Some(crate::estimate::SpecSpeedup {
            low: 0.8,
            high: 1.84,
            source: "vLLM --speculative-config method mtp on Qwen3.5/3.6-family models: Qwen3.6-35B-A3B-AWQ on 2× RTX 3090, 126 → 111 tokens/s at 1 draft token (https://github.com/vllm-project/vllm/issues/38182); a 27B NVFP4 on a DGX Spark, 11.5 → 9.2 tokens/s at 2 (https://github.com/vllm-project/vllm/issues/35387); a 27B NVFP4 on an RTX PRO 6000 Max-Q, 63.3 → 116.3 tokens/s at 4 (https://github.com/sudoingX/qwen38-mtp/pull/11)",
        }),
        // 1.8× for one request, 1.5× for 32.
        Spec::Mtp if i.engine == crate::catalog::engine::Engine::Sglang => {
            Some(crate::estimate::SpecSpeedup {
                low: 1.5,
                high: 1.8,
                source: "SGLang --speculative-algorithm EAGLE on DeepSeek-V3's MTP layer, H200 × 8 with tensor parallelism: decoding 1.8× faster for one request and 1.5× for 32 (SGLang's DeepSeek V3 usage page, https://github.com/sgl-project/sglang/blob/f6af149607d0cd0bb6f0c732b90845cdcba2674f/docs/basic_usage/deepseek_v3.md)",
            })
        }
        Spec::Mtp => Some(crate::estimate::SpecSpeedup {
            low: 1.06,
            high: 1.8,
            source: "llama-server --spec-type draft-mtp on Qwen3.5/3.6 27B: about 1.06× on an RTX 5090 and about 1.8× on an RTX 4090 at 4 draft tokens (https://github.com/ggml-org/llama.cpp/issues/28196); 53 → 76 tokens/s (1.43×) at 90.6 % acceptance on an RTX 5080 (https://huggingface.co/GazTrab/Qwen3.6-27B-MTP-UD-IQ3_XXS-GGUF, model card)",
        }),
        // 7.07 ms per token without, 4.05 to 4.32 ms with 2 to 7 draft tokens.
        Spec::Eagle if vllm => Some(crate::estimate::SpecSpeedup {
            low: 1.63,
            high: 1.75,
            source: "vLLM --speculative-config method eagle3 with yuhuili/EAGLE3-LLaMA3.1-Instruct-8B on Llama-3.1-8B-Instruct, one request on an H100, MT-bench: 7.07 ms per token without, 4.05 to 4.32 ms with 2 to 7 draft tokens (https://github.com/vllm-project/vllm/issues/20780); 133 → 220 tokens/s at 2 (https://github.com/vllm-project/vllm/pull/16937)",
        }),
        // 69.76 → 75.25 and 10.25 → 24.23 tokens/s.
        Spec::Eagle if i.engine == crate::catalog::engine::Engine::LlamaCpp => {
            Some(crate::estimate::SpecSpeedup {
                low: 1.08,
                high: 2.36,
                source: "llama-server --spec-type draft-eagle3 on a DGX Spark, Q4_K_M target and head, 8 draft tokens: Gemma 4 26B-A4B 69.76 → 75.25 to 88.19 tokens/s, Gemma 4 31B 10.18 → 20.35 to 10.25 → 24.23 tokens/s at 49 to 68 % acceptance (https://github.com/ggml-org/llama.cpp/pull/18039, comment of 2026-05-21); MiniMax-M2 14.2 → 17.2 tokens/s (https://github.com/ggml-org/llama.cpp/pull/25604). No llama.cpp run of a Llama head published with and without it",
            })
        }
        // The chain on vLLM: 7.07 → 4.32 ms per token; SGLang's page: 158.34 → 373.25 tokens/s.
        Spec::Eagle => Some(crate::estimate::SpecSpeedup {
            low: 1.63,
            high: 2.36,
            source: "EAGLE-3 heads for Llama-3.1-8B-Instruct, one request on an H100, MT-bench: SGLang --speculative-algorithm EAGLE3, 158.34 → 373.25 tokens/s (SGLang's speculative decoding page, https://docs.sglang.io/advanced_features/speculative_decoding.html, its draft tree's flags not given); the chain the command writes (top-k 1), measured on vLLM with yuhuili/EAGLE3-LLaMA3.1-Instruct-8B: 7.07 ms per token without, 4.05 to 4.32 ms with 2 to 7 draft tokens (https://github.com/vllm-project/vllm/issues/20780)",
        }),
        Spec::Ngram => None,
    }
}

#[cfg(not(feature = "spec"))]
fn spec_speedup(_: &Inputs) -> Option<crate::estimate::SpecSpeedup> {
    None
}

/// The share of the weights on the cards that one decoded token reads (all of a dense model;
/// the active experts' share of a mixture of experts).
fn active_fraction(i: &Inputs, v: &Variant, e: &Estimate) -> f64 {
    // The token embedding is held with the weights unless the sizing kept it in host memory
    // (llama.cpp and Ollama with a GGUF on a card: its `weights_host` term).
    let on_card = !e.terms.iter().any(|t| t.name == TermName::WeightsHost);
    let held = e
        .per_card
        .iter()
        .flat_map(|c| c.terms.iter())
        .filter(|t| t.0 == TermName::Weights)
        .map(|t| t.1)
        .sum::<Bytes>()
        .get();
    // GGUF's K-quant, legacy and IQ recipes give the expert tensors their share of the
    // recipe's larger types (llama.cpp's llama_tensor_get_type raises ffn_down, experts included,
    // to Q6_K in part of the layers of Q4_K_M), so an expert weighs the file's average;
    // MXFP4 (gpt-oss) and the safetensors quantizations (AWQ, GPTQ, FP8, NVFP4, MLX) store the
    // experts at the format's precision and keep other tensors wider.
    let expert_bits = if i.engine.container() == crate::catalog::quant::Container::Gguf
        && i.quant != crate::catalog::quant::Quant::MXFP4
    {
        f64::INFINITY
    } else {
        i.quant.precision_bits()
    };
    active_share(v, held as f64, expert_bits, on_card)
}

/// Each card's read times for one token: `(on the card, spilled to host, the spilled bytes if
/// they were on the card)`, with what the cards have in common.
struct CardTimes {
    times: Vec<(f64, f64, f64)>,
    /// Bytes over the cards' budgets, read from host memory.
    spilled: u64,
    /// The largest fixed per-token time of the cards' fits.
    fixed: f64,
    /// The slowest link between the cards (for tensor parallelism's all-reduce).
    slowest_link: MemoryKind,
    /// The slowest card's bandwidth and fit.
    slowest: Option<(f64, Fit)>,
}

/// The share of the KV cache term a token reads with every request's context full: all of it,
/// except on vLLM with sliding layers, whose term also holds the one prefill step a sliding
/// layer is admitted with beyond its window ([`crate::terms::kv::paged`]), held but not read.
fn kv_read_share(i: &Inputs, a: &crate::catalog::Arch) -> f64 {
    let step = crate::serve::placement::admission_step(i);
    if step == 0 || a.swa.is_none() {
        return 1.0;
    }
    let (ctx, par) = (u64::from(i.ctx), u64::from(i.par.max(1)));
    let read = crate::terms::kv::paged(a, ctx, par, i.kv, 1, 0).get() as f64;
    let held = crate::terms::kv::paged(a, ctx, par, i.kv, 1, step).get() as f64;
    if held > 0.0 {
        (read / held).min(1.0)
    } else {
        1.0
    }
}

/// The read times of every card, or `None` when a card's bandwidth is unknown. `kv_read`: the
/// share of each card's KV cache one token reads (1 with every request's context full, 0 at the
/// start of a conversation); which layers spill follows the allocation either way.
fn card_times(
    i: &Inputs,
    e: &Estimate,
    active: f64,
    host_bw: f64,
    kv_read: f64,
) -> Option<CardTimes> {
    let mut out = CardTimes {
        times: Vec::with_capacity(e.per_card.len()),
        spilled: 0,
        fixed: 0.0,
        slowest_link: MemoryKind::Hbm,
        slowest: None,
    };
    for (k, c) in e.per_card.iter().enumerate() {
        let (bw, fit, kind) = card_bw(i, k)?;
        if out.slowest.is_none_or(|(b, _)| bw < b) {
            out.slowest = Some((bw, fit));
        }
        if kind != MemoryKind::Hbm {
            out.slowest_link = kind;
        }
        let part = |n: TermName| c.terms.iter().find(|t| t.0 == n).map_or(0, |t| t.1.get());
        // The vision projector (card 0) is not read to decode text.
        let projector = if k == 0 {
            e.mmproj_bytes.map_or(0, |b| b.get())
        } else {
            0
        };
        let weights = part(TermName::Weights).saturating_sub(projector) as f64 * active;
        let kv = part(TermName::KvCache) as f64;
        // What does not fit this card stays in host memory (llama.cpp, Ollama).
        let over = if crate::serve::support::spills(i) {
            c.bytes.get().saturating_sub(c.budget.get())
        } else {
            0
        };
        out.spilled = out.spilled.saturating_add(over);
        // The spill takes whole layers: weights and their KV in proportion.
        let spill_share = if weights + kv > 0.0 {
            (over as f64 / (weights / active + kv)).min(1.0)
        } else {
            0.0
        };
        let w_card = weights * (1.0 - spill_share);
        let kv_card = kv * kv_read * (1.0 - spill_share);
        let host = (weights + kv * kv_read) * spill_share;
        out.times.push((
            w_card / (fit.eff * bw) + kv_card / (KV_EFF_RATIO * fit.eff * bw),
            host / host_bw,
            // The spilled bytes read on this card instead, for `on_card_tps`.
            (weights * spill_share) / (fit.eff * bw)
                + (kv * kv_read * spill_share) / (KV_EFF_RATIO * fit.eff * bw),
        ));
        out.fixed = out.fixed.max(fit.fixed_s);
    }
    Some(out)
}

/// One token's times over the cards: in parallel under tensor parallelism (the slowest card
/// plus the all-reduce), one after another under layer split.
fn step_times(v: &Variant, e: &Estimate, c: &CardTimes) -> (f64, f64, f64) {
    let times = &c.times;
    if e.layout == Sharing::Tensor {
        let t = times.iter().map(|t| t.0).fold(0.0, f64::max);
        let comm = tp_comm_s(&v.arch, e.per_card.len() as u32, c.slowest_link);
        (
            t + comm,
            times.iter().map(|t| t.1).sum(),
            times.iter().map(|t| t.2).fold(0.0, f64::max),
        )
    } else {
        (
            times.iter().map(|t| t.0).sum(),
            times.iter().map(|t| t.1).sum(),
            times.iter().map(|t| t.2).sum(),
        )
    }
}
