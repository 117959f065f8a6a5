//! The size rule ([`size_rule::computed`]) against every format row of the catalog: the rows
//! whose size is `published` or `exact` (the publishers' own files) and the `computed` rows
//! (made by data/gen/compute_sizes.py, an independent implementation of the same rules).
//! Run with `--nocapture` to see the distributions; each row off by more than 1 % is listed
//! here with the mechanism that explains it, and a row off by more than 1 % that is not listed
//! fails (so does a listed row that no longer is).

use fitcard_estimator::catalog::{base, size_rule, SizeKind};

/// Published or exact rows more than 1 % from the rule, with why.
const PUBLISHED_OFF: &[(&str, &str, &str)] = &[
    (
        "sentence-transformers/all-MiniLM-L6-v2",
        "Q8_0",
        "older conversion: second-state's files carry 393,456 B less tokenizer metadata than \
         nomic-embed-text's for the same 30,522-token WordPiece vocabulary (the rule's fit); its \
         F16 and Q8_0 are off by the same bytes, to 32, so the tensors agree (+1.57 % of 25 MB; \
         the F16 row, +0.86 %, is inside 1 %)",
    ),
    (
        "google/gemma-3n-E2B-it",
        "Q4_K_M",
        "publisher recipe: unsloth's file stores per_layer_token_embd at ~Q5_K (its size implies \
         5.5 bits for the 2 B-parameter table); llama.cpp's mix gives a tied model's \
         per_layer_token_embd the output type, Q6_K (tensor_name_match_token_embd)",
    ),
    (
        "google/gemma-4-E2B-it",
        "Q4_K_M",
        "publisher recipe: unsloth's file stores per_layer_token_embd at Q5_K, not llama.cpp's \
         Q6_K for a tied model (the catalog row's note)",
    ),
    (
        "google/gemma-4-E2B-it",
        "Q8_0",
        "publisher recipe: unsloth's Gemma 4 Q8_0 files keep some tensors wider than llama.cpp's \
         plain Q8_0 (not identified; ggml-org's E4B Q8_0 agrees with the rule to 0.1 %, unsloth's \
         E4B Q8_0 lies 2.1 % above it)",
    ),
    (
        "Qwen/Qwen3.5-35B-A3B",
        "Q4_K_M",
        "publisher recipe: unsloth re-uploaded the Qwen3.5-35B-A3B GGUFs with its own recipe \
         (wider types on some tensors than llama.cpp's Q4_K_M mix)",
    ),
    (
        "Qwen/Qwen3.5-397B-A17B",
        "Q4_K_M",
        "publisher recipe: unsloth's Qwen3.5 re-upload (its own per-tensor types)",
    ),
    (
        "Qwen/Qwen3.5-27B",
        "Q4_K_M",
        "publisher recipe: the sweep that prints this file lists bartowski's Q4_K_M at 15.952 \
         GiB and unsloth's at 15.591 GiB, two recipes both wider than llama.cpp's plain mix \
         (Q8_0 of the same model agrees to 0.001 %, so the tensor list is right)",
    ),
    (
        "Qwen/Qwen3.5-4B",
        "Q4_K_M",
        "publisher recipe: unsloth's Qwen3.5 small-model files keep some tensors wider than \
         llama.cpp's plain mix (its 0.8B and 2B Q4_K_M files sit 0.6 % and 0.5 % above the rule, \
         the 4B 1.2 %)",
    ),
    (
        "zai-org/GLM-4.7-Flash",
        "Q4_K_M",
        "publisher's llama.cpp build gives some tensors of this MLA MoE wider types than the \
         mix (not identified; its Q8_0, which has no mix, agrees to 0.001 %)",
    ),
];

/// Computed rows where the rule and data/gen/compute_sizes.py differ by more than 0.1 %, with why.
const COMPUTED_OFF: &[(&str, &str, &str)] = &[
    (
        "zai-org/GLM-4.6",
        "BF16",
        "computed from the Hub's parameter count, which is 2 x 151,552 x 5,120 below GLM-4.5's: \
         the checkpoint stores the MTP layer without its own embedding and head, which the \
         glm4_moe tensor list (GLM-4.5/4.7) counts",
    ),
    (
        "google/gemma-3n-E4B-it",
        "Q4_K_M",
        "the script stores per_layer_token_embd at Q5_K (calibrated on the E2B file); the rule \
         follows llama.cpp (Q6_K)",
    ),
    (
        "Qwen/Qwen3-4B",
        "AWQ",
        "the row's duplicate_output flag says the AWQ file stores an lm_head; the script's \
         st-awq counts none",
    ),
];

struct Row {
    model: String,
    quant: String,
    kind: SizeKind,
    err: f64,
}

fn rows() -> Vec<Row> {
    let mut out = Vec::new();
    for f in &base().families {
        for v in &f.variants {
            for fm in &v.formats {
                let output = !v.arch.tied_embeddings || fm.duplicate_output;
                let c = size_rule::computed(&v.arch, fm.id, fm.container, output)
                    .unwrap_or_else(|e| panic!("{} {}: no rule: {e}", v.id, fm.id));
                out.push(Row {
                    model: v.id.clone(),
                    quant: fm.id.to_string(),
                    kind: fm.size,
                    err: c.bytes as f64 / fm.bytes.get() as f64 - 1.0,
                });
            }
        }
    }
    out
}

/// Median, 90th percentile and worst of |err|.
fn spread(errs: &mut [f64]) -> (f64, f64, f64) {
    errs.sort_by(f64::total_cmp);
    let at = |p: f64| errs[((errs.len() - 1) as f64 * p).round() as usize];
    (at(0.5), at(0.9), at(1.0))
}

fn check(rows: &[&Row], listed: &[(&str, &str, &str)], limit: f64, what: &str) {
    let mut abs: Vec<f64> = rows.iter().map(|r| r.err.abs()).collect();
    let (median, p90, worst) = spread(&mut abs);
    println!(
        "{what}: {} rows; |error| median {:.3} %, p90 {:.3} %, worst {:.2} %",
        rows.len(),
        100.0 * median,
        100.0 * p90,
        100.0 * worst
    );
    let mut wrong = Vec::new();
    for r in rows {
        let why = listed
            .iter()
            .find(|(m, q, _)| *m == r.model && *q == r.quant)
            .map(|l| l.2);
        let off = r.err.abs() > limit;
        if off {
            println!(
                "  {:+.2} %  {} {}: {}",
                100.0 * r.err,
                r.model,
                r.quant,
                why.unwrap_or("NOT LISTED")
            );
        }
        match (off, why) {
            (true, None) => wrong.push(format!(
                "{} {} is {:+.2} % off and not listed",
                r.model,
                r.quant,
                100.0 * r.err
            )),
            (false, Some(_)) => wrong.push(format!(
                "{} {} is listed but within {} % ({:+.3} %)",
                r.model,
                r.quant,
                100.0 * limit,
                100.0 * r.err
            )),
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "{what}:\n{}", wrong.join("\n"));
}

#[test]
fn the_rule_matches_the_published_sizes() {
    let all = rows();
    let known: Vec<&Row> = all
        .iter()
        .filter(|r| r.kind != SizeKind::Computed)
        .collect();
    assert!(known.len() >= 120, "{} published/exact rows", known.len());
    check(&known, PUBLISHED_OFF, 0.01, "published and exact rows");
    // Without the listed recipes the rule is far inside 1 %: the median is what a plain
    // llama.cpp / publisher file comes to.
    let mut plain: Vec<f64> = known
        .iter()
        .filter(|r| {
            !PUBLISHED_OFF
                .iter()
                .any(|l| l.0 == r.model && l.1 == r.quant)
        })
        .map(|r| r.err.abs())
        .collect();
    let (median, p90, _) = spread(&mut plain);
    assert!(median < 0.001 && p90 < 0.003, "median {median}, p90 {p90}");
}

#[test]
fn the_rule_reproduces_the_computed_rows() {
    let all = rows();
    let computed: Vec<&Row> = all
        .iter()
        .filter(|r| r.kind == SizeKind::Computed)
        .collect();
    assert!(computed.len() >= 380, "{} computed rows", computed.len());
    check(&computed, COMPUTED_OFF, 0.001, "computed rows");
}

/// Dimensions at the edge of what [`Arch::absurd`] lets through, or past it: every format and
/// container answers (a size or a refusal) without a panic.
#[test]
fn hostile_dimensions_never_panic() {
    use fitcard_estimator::catalog::quant::{Container, Quant};
    let containers = [Container::Gguf, Container::Safetensors, Container::Mlx];
    for f in &base().families {
        for v in f.variants.iter().step_by(3) {
            for (hidden, layers, experts, vocab) in [
                (1u64 << 20, 4u32, 1u32 << 16, 1u64 << 24),
                (1 << 21, 4, 8, 1 << 25),
                (7, 3, 0, 1),
            ] {
                let mut a = v.arch.clone();
                a.hidden = hidden;
                a.layers = layers;
                a.experts = experts.min(if a.experts > 1 { u32::MAX } else { 0 });
                a.vocab = vocab;
                a.intermediate = 1 << 24;
                for q in Quant::ALL {
                    for c in containers {
                        let _ = size_rule::computed(&a, q, c, true);
                    }
                }
            }
        }
    }
}

/// Where the tensor list holds more than the decode-speed parameter groups count, by
/// architecture: tensors the groups leave out (the tensor list is what the file sizes above
/// check).
const GROUPS_LEAVE_OUT: &[(&str, &str)] = &[
    (
        "glm4_moe",
        "the nextn block the GGUF and the checkpoint keep after the main layers",
    ),
    ("qwen3_5", "the output-gate half of the gated q projection"),
    (
        "glm_moe_dsa",
        "the nextn block the checkpoint keeps after the main layers, and the sparse-attention \
         indexer (which llama.cpp's glm-dsa graph does not run)",
    ),
    (
        "gemma3n",
        "altup, laurel and the per-layer input gates and projections",
    ),
    (
        "gemma4_text",
        "the global layers' own head size and KV heads, E2B's double-wide MLP, the per-layer \
         input gates and projections",
    ),
];

/// The tensor list and the decode-speed parameter groups ([`param_counts`]) count the same
/// model two ways: per tensor here, per group there (norms and biases left out). They agree
/// within 1 % for every catalog variant but the architectures listed with what the groups
/// leave out.
#[test]
fn the_tensor_list_agrees_with_param_counts() {
    use fitcard_estimator::catalog::tensors::tensors;
    use fitcard_estimator::serve::speed::param_counts;
    let mut wrong = Vec::new();
    for f in &base().families {
        for v in &f.variants {
            let listed: u64 = tensors(&v.arch, true).iter().map(|t| t.elements()).sum();
            let counted = param_counts(&v.arch).total();
            let err = listed as f64 / counted as f64 - 1.0;
            let why = GROUPS_LEAVE_OUT
                .iter()
                .find(|(t, _)| *t == v.arch.model_type)
                .map(|l| l.1);
            let limit = if why.is_some() { 0.2 } else { 0.01 };
            if err.abs() > 0.01 {
                println!(
                    "{:+.2} % {}: {}",
                    100.0 * err,
                    v.id,
                    why.unwrap_or("NOT LISTED")
                );
            }
            if err.abs() > limit {
                wrong.push(format!("{} {:+.2} %", v.id, 100.0 * err));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:?}");
}

/// What the catalog answers: every variant × the formats publishers put out for a model of its
/// kind (the common GGUF mixes; a checkpoint's BF16, FP8, AWQ, GPTQ, NVFP4, W8A8, bitsandbytes;
/// MLX 4 and 8 bit). Typed: a row of the catalog; answered: a row, or a size by the rule (the
/// CLI and the page compute it). Printed, and held: the rule answers at least 95 % of the pairs,
/// and each pair it refuses is named by its reason.
#[test]
fn the_rule_answers_the_formats_publishers_put_out() {
    use fitcard_estimator::catalog::quant::{Container, Quant};
    use std::collections::BTreeMap;
    let gguf = [
        "F16",
        "BF16",
        "Q8_0",
        "Q6_K",
        "Q5_K_M",
        "Q5_K_S",
        "Q4_K_M",
        "Q4_K_S",
        "Q4_0",
        "IQ4_XS",
        "Q3_K_M",
        "Q2_K",
        "UD-Q4_K_XL",
    ];
    let st = [
        "BF16",
        "FP8",
        "AWQ",
        "GPTQ",
        "GPTQ-Int8",
        "NVFP4",
        "W8A8",
        "BNB-NF4",
    ];
    let mlx = ["MLX-4bit", "MLX-8bit"];
    let sets: [(Container, &[&str]); 3] = [
        (Container::Gguf, &gguf),
        (Container::Safetensors, &st),
        (Container::Mlx, &mlx),
    ];
    let (mut pairs, mut typed, mut answered) = (0usize, 0usize, 0usize);
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    for f in &base().families {
        for v in &f.variants {
            for (c, ids) in &sets {
                for id in *ids {
                    let q: Quant = id.parse().expect("a known format");
                    pairs += 1;
                    if v.formats.iter().any(|x| x.id == q && x.container == *c) {
                        typed += 1;
                        answered += 1;
                        continue;
                    }
                    let output = !v.arch.tied_embeddings;
                    match size_rule::computed(&v.arch, q, *c, output) {
                        Ok(_) => answered += 1,
                        Err(why) => {
                            let why: String = why.chars().take(60).collect();
                            *refused.entry(format!("{id}: {why}")).or_default() += 1;
                        }
                    }
                }
            }
        }
    }
    let share = |n: usize| 100.0 * n as f64 / pairs as f64;
    println!(
        "variants × formats publishers put out: {pairs} pairs; typed {typed} ({:.1} %), answered {answered} ({:.1} %)",
        share(typed),
        share(answered)
    );
    for (why, n) in &refused {
        println!("  refused {n}: {why}");
    }
    assert!(share(answered) >= 95.0, "{:.1} % answered", share(answered));
    assert!(answered > typed, "the rule adds nothing");
}

/// DeepSeek-V3.2's sparse-attention indexer (llama.cpp's "DSA indexer" tensors) against the
/// Hub's parameter counts of the vendor checkpoints, as the llmfit transcription lists them
/// (<https://github.com/AlexsJones/llmfit/blob/a3e0eb27c57fe05298292f4c61699b9aed2824ea/llmfit-core/data/hf_models.json>):
/// DeepSeek-V3.2 685,396,921,376 and DeepSeek-V3 684,531,386,000. The shapes are otherwise
/// equal, so the difference is the indexer of each of the 62 stored layers (61 and the
/// multi-token-prediction layer) with the F32 block scales the FP8 checkpoint stores for its
/// quantized tensors: the query and key projections (128 × 128 blocks), not the weights
/// projection, which stays BF16 (the FP8 rule keeps it so).
#[test]
fn deepseek_v32s_indexer_accounts_for_the_hub_count() {
    use fitcard_estimator::catalog::tensors;
    let arch = |id: &str| &base().variant(id).unwrap().1.arch;
    let count = |id: &str| -> u64 {
        tensors::tensors(arch(id), true)
            .iter()
            .map(|t| t.elements())
            .sum()
    };
    let v32 = arch("deepseek-ai/DeepSeek-V3.2");
    let indexer: Vec<_> = tensors::tensors(v32, true)
        .into_iter()
        .filter(|t| t.name.starts_with("indexer."))
        .collect();
    assert_eq!(indexer.len(), 5 * 61, "five indexer tensors in each layer");
    let added = count("deepseek-ai/DeepSeek-V3.2") - count("deepseek-ai/DeepSeek-V3");
    assert_eq!(added % 61, 0);
    let per_layer = added / 61;
    let scales: u64 = indexer
        .iter()
        .filter(|t| matches!(t.name, "indexer.attn_q_b.weight" | "indexer.attn_k.weight"))
        .map(|t| t.ne[0].div_ceil(128) * t.ne[1].div_ceil(128))
        .sum::<u64>()
        / 61;
    assert_eq!(
        685_396_921_376u64 - 684_531_386_000,
        62 * (per_layer + scales),
        "indexer {per_layer} + scales {scales} per layer"
    );
}

/// GLM-5's tensor list against the Hub's parameter counts, as the llmfit transcription lists
/// them (<https://github.com/AlexsJones/llmfit/blob/a3e0eb27c57fe05298292f4c61699b9aed2824ea/llmfit-core/data/hf_models.json>):
/// zai-org/GLM-5 753,864,139,008 (78 layers with DeepSeek-V3.2's indexer, and the nextn layer
/// without a head of its own), and zai-org/GLM-5-FP8 753,910,024,032, whose excess is one F32
/// scale per 128 × 128 block of every weight the FP8 rule quantizes (not the indexer's weights
/// projection, not the nextn projection).
#[test]
fn glm_5s_tensor_list_accounts_for_the_hub_counts() {
    use fitcard_estimator::catalog::tensors;
    let list = tensors::tensors(&base().variant("zai-org/GLM-5").unwrap().1.arch, true);
    let count: u64 = list.iter().map(|t| t.elements()).sum();
    assert_eq!(count, 753_864_139_008);
    assert!(!list.iter().any(|t| t.name == "nextn.embed_tokens.weight"));
    let fp8 = size_rule::computed(
        &base().variant("zai-org/GLM-5").unwrap().1.arch,
        fitcard_estimator::Quant::FP8,
        fitcard_estimator::catalog::quant::Container::Safetensors,
        true,
    )
    .unwrap()
    .bytes;
    // FP8 bytes = 2 × every element − 1 × the quantized ones + 4 × their blocks; the Hub counts
    // the blocks as parameters.
    let blocks = 753_910_024_032u64 - 753_864_139_008;
    assert_eq!(blocks, 45_885_024);
    let quantized = 2 * count + 4 * blocks - fp8;
    let kept: u64 = list
        .iter()
        .filter(|t| {
            t.kind != tensors::Kind::Weight
                || t.name.starts_with("nextn.")
                || matches!(
                    t.name,
                    "token_embd.weight" | "output.weight" | "indexer.proj.weight"
                )
        })
        .map(|t| t.elements())
        .sum();
    assert_eq!(
        quantized + kept,
        count,
        "the rule quantizes every other weight"
    );
}

/// Olmo 3's tensor lists (OLMo 2's post-norm block, q/k norms over the projection) against
/// the Hub's parameter counts as the llmfit transcription lists them
/// (<https://github.com/AlexsJones/llmfit/blob/a3e0eb27c57fe05298292f4c61699b9aed2824ea/llmfit-core/data/hf_models.json>):
/// Olmo-3.1-32B-Think 32,233,522,176, and the 7B's base allenai/Olmo-3-1025-7B 7,298,011,136
/// (the Think release lists 528,384 fewer, which the catalog row's source names).
#[test]
fn olmo_3s_tensor_lists_reproduce_the_hub_counts() {
    assert_eq!(
        stored_parameters("allenai/Olmo-3.1-32B-Think"),
        32_233_522_176
    );
    assert_eq!(stored_parameters("allenai/Olmo-3-7B-Think"), 7_298_011_136);
}

/// Gemma's (the first release) tensor lists, tied embeddings stored once, against the Hub's
/// parameter counts of the 1.1 releases of the same shapes as the llmfit transcription lists
/// them (<https://github.com/AlexsJones/llmfit/blob/a3e0eb27c57fe05298292f4c61699b9aed2824ea/llmfit-core/data/hf_models.json>):
/// google/gemma-1.1-7b-it 8,537,680,896 and google/gemma-1.1-2b-it 2,506,172,416.
#[test]
fn gemmas_tensor_lists_reproduce_the_hub_counts() {
    assert_eq!(stored_parameters("google/gemma-7b-it"), 8_537_680_896);
    assert_eq!(stored_parameters("google/gemma-2b-it"), 2_506_172_416);
}

/// The parameters of a catalog variant's tensor list as its checkpoint stores them: an output
/// matrix only when the embeddings are untied.
fn stored_parameters(id: &str) -> u64 {
    let arch = &base().variant(id).expect("a catalog variant").1.arch;
    fitcard_estimator::catalog::tensors::tensors(arch, !arch.tied_embeddings)
        .iter()
        .map(|t| t.elements())
        .sum()
}

/// An encoder's published files all sit the same bytes from the rule, to the 32-byte alignment,
/// whatever the mix: the tensor types and shapes (BERT's position and token-type tables, a
/// reranker's classifier) are the converter's and llama-quantize's, and only the tokenizer
/// metadata, one figure per family, is off. A tensor sized wrong in one mix moves that mix's
/// offset alone.
#[test]
fn an_encoders_files_sit_one_offset_from_the_rule_in_every_mix() {
    for id in [
        "BAAI/bge-m3",
        "BAAI/bge-reranker-v2-m3",
        "nomic-ai/nomic-embed-text-v1.5",
        "sentence-transformers/all-MiniLM-L6-v2",
    ] {
        let (_, v) = base().variant(id).unwrap();
        let offsets: Vec<i64> = v
            .formats
            .iter()
            .filter(|f| f.size != SizeKind::Computed)
            .map(|f| {
                let c = size_rule::computed(&v.arch, f.id, f.container, false).unwrap();
                c.bytes as i64 - f.bytes.get() as i64
            })
            .collect();
        assert!(offsets.len() >= 2, "{id}: {offsets:?}");
        let (lo, hi) = (offsets.iter().min().unwrap(), offsets.iter().max().unwrap());
        assert!(hi - lo <= 32, "{id}: {offsets:?}");
    }
}
