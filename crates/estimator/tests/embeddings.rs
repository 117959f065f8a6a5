//! Embedding models (a family with `task: embed`): served by llama.cpp (`--embedding`) and
//! Ollama (`/api/embed`), refused by name elsewhere, kept out of the best-model view; their
//! output buffer holds a logits row and an embedding row per sequence. Figures by hand from
//! Qwen3-Embedding-0.6B's public config (28 layers, 8 KV heads of 128, hidden 1024:
//! <https://huggingface.co/Qwen/Qwen3-Embedding-0.6B/blob/main/config.json>).

use fitcard_estimator::{best::best, estimate, from_query};

mod common;
use common::term;

const EMBED: &str = "model=Qwen/Qwen3-Embedding-0.6B&quant=Q8_0&gpu=rtx-4090&ctx=8192&par=4";

#[test]
fn an_embedding_server_holds_its_kv_cache_and_an_output_row_per_sequence() {
    let d = from_query(EMBED);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let e = estimate(&d.inputs);
    assert!(e.fits);
    // 4 slots × 8192 cells × 28 layers × 8 KV heads × 128 × (K + V) × 2 B: a causal model keeps
    // its cache while it embeds.
    assert_eq!(term(&e, "kv_cache"), 4 * 8192 * 28 * 8 * 128 * 2 * 2);
    // llama.cpp's output buffer reserves a row of logits and one of the hidden size per
    // sequence, embeddings on or not (output_reserve since ggml-org/llama.cpp#14208): 4 slots ×
    // (151,669 + 1,024) × 4 B.
    assert_eq!(term(&e, "logits"), 4 * (151_669 + 1024) * 4);
    // The parameters the config gives (595,776,512, no language-model head) at 2 bytes.
    let (_, v) = fitcard_estimator::catalog()
        .variant("Qwen/Qwen3-Embedding-0.6B")
        .unwrap();
    let bf16 = v.formats.iter().find(|f| f.id.id() == "BF16").unwrap();
    assert_eq!(bf16.bytes.get(), 2 * 595_776_512);
    // Its command: an embedding server whose micro-batch holds a whole input, and a logical
    // batch as large: llama.cpp cuts `-ub` to `-b` (default 2048; src/llama-context.cpp,
    // `cparams.n_ubatch = std::min(cparams.n_batch, params.n_ubatch)`), and the server refuses an
    // input longer than the micro-batch.
    assert!(
        e.command
            .ends_with("--embedding --pooling last -b 8192 -ub 8192"),
        "{}",
        e.command
    );
    assert!(
        e.speed.is_none(),
        "no decode speed for a model that generates nothing"
    );
}

#[test]
fn ollama_pulls_it_and_other_engines_are_refused_by_name() {
    let e = estimate(&from_query(&format!("{EMBED}&engine=ollama")).inputs);
    assert!(e.fits);
    assert!(e
        .command
        .ends_with("ollama pull hf.co/Qwen/Qwen3-Embedding-0.6B-GGUF:Q8_0"));
    for engine in ["vllm", "sglang", "transformers"] {
        refused(
            &format!("{EMBED}&engine={engine}"),
            &["is an embedding model", "not estimated yet"],
        );
    }
}

/// `query` does not fit, and one of its reasons says every one of `words`.
fn refused(query: &str, words: &[&str]) {
    let e = estimate(&from_query(query).inputs);
    assert!(!e.fits, "{query}");
    assert!(
        e.reasons()
            .iter()
            .any(|r| words.iter().all(|w| r.contains(w))),
        "{query}: {:?}",
        e.reasons()
    );
}

#[test]
fn the_best_model_view_lists_chat_models_only() {
    let b = best(&from_query("gpu=h100-sxm&ctx=4096").inputs);
    assert!(!b.rows.is_empty());
    assert!(b.rows.iter().all(|r| !r.model.contains("Embedding")));
    // No family with a task (embedding, reranking) at all.
    assert!(b
        .rows
        .iter()
        .all(|r| fitcard_estimator::catalog::task_of(&r.model).is_none()));
}

#[test]
fn beside_a_chat_model_it_takes_what_it_takes_alone() {
    let chat = "model=Qwen/Qwen3-8B&quant=Q4_K_M&ctx=16384&gpu=rtx-4090";
    let set = estimate(
        &from_query(&format!(
            "{chat}&with=Qwen/Qwen3-Embedding-0.6B:Q8_0:8192:4"
        ))
        .inputs,
    );
    let alone = estimate(&from_query(EMBED).inputs);
    assert_eq!(term(&set, "with_models"), alone.per_card[0].bytes.get());
    assert!(set.models[1]
        .command
        .ends_with("--embedding --pooling last -b 8192 -ub 8192 --port 8081"));
    // Under the router, the same flags in its preset section.
    assert!(set
        .command
        .contains("\nembedding = true\npooling = last\nb = 8192\nub = 8192\n"));
}

#[test]
fn the_best_model_for_the_card_leaves_room_for_the_embedder() {
    let base = "gpu=rtx-4090&ctx=16384";
    let alone = best(&from_query(base).inputs);
    let beside = best(
        &from_query(&format!(
            "{base}&with=Qwen/Qwen3-Embedding-0.6B:Q8_0:8192:4"
        ))
        .inputs,
    );
    let embedder = estimate(&from_query(EMBED).inputs).per_card[0].bytes;
    // A model at the same format needs the embedder's bytes more; none that fits beside it
    // leaves less room than that.
    let mut compared = 0;
    for r in &beside.rows {
        if let Some(a) = alone
            .rows
            .iter()
            .find(|a| a.model == r.model && a.quant == r.quant)
        {
            assert_eq!(
                r.device_bytes.get(),
                a.device_bytes.get() + embedder.get(),
                "{}",
                r.model
            );
            compared += 1;
        }
    }
    assert!(compared > 10, "{compared}");
    // Some that fit alone no longer do (the 35B-A3B at Q4_K_M needs 21.8 GiB by itself).
    assert!(beside.rows.len() < alone.rows.len() || beside.not_fitting > alone.not_fitting);
}

/// A reranking model (`task: rerank`, Qwen3-Reranker-0.6B: Qwen3-Embedding-0.6B's shapes).
const RERANK: &str = "model=Qwen/Qwen3-Reranker-0.6B&quant=Q8_0&gpu=rtx-4090&ctx=8192&par=2";

#[test]
fn a_reranker_is_served_by_llama_server_reranking() {
    let d = from_query(RERANK);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let e = estimate(&d.inputs);
    assert!(e.fits, "{:?}", e.reasons());
    // A causal model: its cache while it scores, 2 slots × 8192 cells × 28 layers × 8 KV heads ×
    // 128 × (K + V) × 2 B.
    assert_eq!(term(&e, "kv_cache"), 2 * 8192 * 28 * 8 * 128 * 2 * 2);
    // --reranking sets embeddings on: the same output buffer as an embedding server.
    assert_eq!(term(&e, "logits"), 2 * (151_669 + 1024) * 4);
    // llama.cpp's own GGUF of it (the converter's classifier rows and rank pooling), and the
    // flag that sets rank pooling, each query–document pair in one micro-batch.
    assert!(
        e.command
            .starts_with("llama-server -hf ggml-org/Qwen3-Reranker-0.6B-Q8_0-GGUF:Q8_0 "),
        "{}",
        e.command
    );
    assert!(
        e.command.ends_with(" --reranking -b 8192 -ub 8192"),
        "{}",
        e.command
    );
    assert!(!e.command.contains("--embedding"), "{}", e.command);
    assert!(e.speed.is_none(), "a reranker generates nothing");
    // Nor in the family's ranking (the page's "Best fit in this family", `fitcard rank`).
    for model in ["Qwen/Qwen3-Reranker-0.6B", "Qwen/Qwen3-Embedding-0.6B"] {
        let r = fitcard_estimator::rank(&from_query(&format!("model={model}&gpu=rtx-4090")).inputs);
        assert!(!r.is_empty());
        assert!(r.iter().all(|c| c.decode_tps.is_none()), "{model}: {r:?}");
    }
}

#[test]
fn ollama_and_the_other_engines_refuse_a_reranker_by_name() {
    refused(
        &format!("{RERANK}&engine=ollama"),
        &["is a reranking model", "no reranking endpoint"],
    );
    for engine in ["vllm", "sglang", "transformers"] {
        refused(
            &format!("{RERANK}&engine={engine}"),
            &["is a reranking model", "not estimated yet"],
        );
    }
    // The best-model view ranks chat models only.
    let b = best(&from_query("gpu=h100-sxm&ctx=4096").inputs);
    assert!(b.rows.iter().all(|r| !r.model.contains("Reranker")));
}

#[test]
fn a_chat_model_an_embedder_and_a_reranker_share_a_card() {
    let chat = "model=Qwen/Qwen3-8B&quant=Q4_K_M&ctx=16384&gpu=rtx-4090";
    let set = estimate(
        &from_query(&format!(
            "{chat}&with=Qwen/Qwen3-Embedding-0.6B:Q8_0:8192:4,Qwen/Qwen3-Reranker-0.6B:Q8_0:8192:2"
        ))
        .inputs,
    );
    let embed = estimate(&from_query(EMBED).inputs).per_card[0].bytes.get();
    let rerank = estimate(&from_query(RERANK).inputs).per_card[0].bytes.get();
    assert_eq!(term(&set, "with_models"), embed + rerank);
    // Under llama.cpp's router each is a section of the preset, its flags as keys.
    assert!(
        set.command.contains("\nreranking = true\n"),
        "{}",
        set.command
    );
    assert!(
        set.command.contains("\nembedding = true\n"),
        "{}",
        set.command
    );
}

/// An embedding server takes each input whole in one micro-batch and reserves its prompt graph
/// for that many outputs (an embedding server's output limit is its logical batch), so the
/// compute buffer grows by a row of logits, one of the final norm and a column of the fp16 mask
/// per token over the 512 the overhead fit was measured at. The rows: llama.cpp's own allocator
/// at ggml-org/llama.cpp@0c1e57098bba (CPU backend) on Qwen3-Embedding-0.6B's shapes, read by
/// `gen/encoder_buffers.py --decoder` (context, sequences, micro-batch, bytes); the estimate's
/// growth from 512 is held to the measured growth within 0.005 %.
#[test]
fn an_embedding_servers_outputs_grow_with_its_micro_batch() {
    use fitcard_estimator::terms::batch::pooled_extra;
    const ROWS: [(u32, u32, u32, u64); 12] = [
        (8192, 4, 512, 314_843_168),
        (8192, 4, 1024, 629_653_536),
        (8192, 4, 2048, 1_259_307_040),
        (8192, 4, 4096, 2_518_614_048),
        (16384, 2, 512, 321_118_240),
        (16384, 2, 1024, 642_236_448),
        (16384, 2, 2048, 1_284_472_864),
        (16384, 2, 4096, 2_568_945_696),
        (4096, 2, 512, 314_826_784),
        (4096, 2, 1024, 629_653_536),
        (4096, 2, 2048, 1_259_307_040),
        (4096, 2, 4096, 2_518_614_048),
    ];
    let (_, v) = fitcard_estimator::catalog()
        .variant("Qwen/Qwen3-Embedding-0.6B")
        .unwrap();
    let (vocab, hidden) = (v.arch.vocab, v.arch.hidden);
    let mut served = 0;
    for (total, n_seq, ub, bytes) in ROWS {
        let at_512 = ROWS
            .iter()
            .find(|r| (r.0, r.1, r.2) == (total, n_seq, 512))
            .unwrap()
            .3;
        // One stream's cells: llama-embedding's -c is the context of all sequences.
        let ctx = total / n_seq;
        let rule = u64::from(ub - 512) * (4 * (vocab + hidden) + 2 * u64::from(ctx));
        let grown = bytes - at_512;
        let off = (rule as f64 - grown as f64).abs() / (grown.max(1) as f64);
        assert!(off < 5e-5, "{total} {n_seq} {ub}: {rule} vs {grown}");
        // The estimate gives the rule wherever a server would run that micro-batch (-ub holds a
        // whole input, so at least the context).
        if ub >= ctx {
            let q = format!(
                "model=Qwen/Qwen3-Embedding-0.6B&quant=Q8_0&ctx={ctx}&par={n_seq}&ubatch={ub}"
            );
            assert_eq!(
                pooled_extra(&from_query(&q).inputs, &v.arch).get(),
                rule,
                "{q}"
            );
            served += 1;
        }
    }
    assert_eq!(served, 4);
    // Ollama's embedding servers and a chat server grow no logits with the micro-batch.
    let q = "model=Qwen/Qwen3-Embedding-0.6B&quant=Q8_0&ctx=8192&engine=ollama";
    assert_eq!(pooled_extra(&from_query(q).inputs, &v.arch).get(), 0);
    let (_, chat) = fitcard_estimator::catalog()
        .variant("Qwen/Qwen3-8B")
        .unwrap();
    let q = "model=Qwen/Qwen3-8B&quant=Q4_K_M&ctx=8192&ubatch=4096";
    assert_eq!(pooled_extra(&from_query(q).inputs, &chat.arch).get(), 0);
}
