//! Encoder-only models (BERT, XLM-RoBERTa, nomic-bert) on llama.cpp: no KV cache, and a compute
//! buffer that grows with the square of the micro-batch. The buffer formula
//! (`terms::encoder::compute_buffer`) is held byte-exact to llama.cpp's own allocator: the rows
//! of `data/llama-encoder-buffers.tsv`, read by `gen/encoder_buffers.py` (the script says how).

use fitcard_estimator::catalog::{encoder, Arch};
use fitcard_estimator::terms::encoder::{compute_buffer, tokens};

/// One measured row.
struct Row {
    arch: String,
    hidden: u64,
    heads: u32,
    ffn: u64,
    cls: bool,
    rank: bool,
    ubatch: u64,
    flash: bool,
    n_seq: u64,
    bytes: u64,
}

fn rows() -> Vec<Row> {
    let text = include_str!("data/llama-encoder-buffers.tsv");
    let rows: Vec<Row> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert_eq!(c.len(), 10, "{l}");
            let n = |k: usize| c[k].parse::<u64>().expect(l);
            Row {
                arch: c[0].into(),
                hidden: n(1),
                heads: n(2) as u32,
                ffn: n(3),
                cls: c[5] == "cls",
                rank: c[5].starts_with("rank"),
                ubatch: n(6),
                flash: c[7] == "on",
                n_seq: n(8),
                bytes: n(9),
            }
        })
        .collect();
    assert_eq!(rows.len(), 320);
    rows
}

fn arch(r: &Row) -> Arch {
    let mut a = Arch::read(r.arch.clone(), r.hidden, 2, r.heads, r.heads).expect("plausible");
    a.intermediate = r.ffn;
    a.rank_labels = r.rank.then_some(1);
    a
}

/// Flash attention on (llama-server's `-fa auto` on a backend with a kernel): the formula is the
/// allocator's buffer to the byte with mean pooling, and CLS pooling holds one 32-byte-aligned
/// vector of sequence ids instead of the T × n_seq matrix; a reranker (rank pooling into a
/// one-label classifier) is the formula to the byte as well, its buffer that of CLS pooling.
#[test]
fn the_compute_buffer_is_llama_cpps_to_the_byte() {
    let mut checked = 0;
    for r in rows().iter().filter(|r| r.flash) {
        let a = arch(r);
        let e = encoder(&a).expect("an encoder");
        let mean = compute_buffer(&a, e, r.ubatch, r.n_seq).get();
        let want = if r.cls {
            mean - 4 * r.ubatch * r.n_seq + 32
        } else {
            mean
        };
        if r.rank {
            let cls = rows().into_iter().find(|c| {
                c.cls
                    && (c.arch.as_str(), c.hidden, c.ffn, c.ubatch, c.flash, c.n_seq)
                        == (r.arch.as_str(), r.hidden, r.ffn, r.ubatch, r.flash, r.n_seq)
            });
            assert_eq!(cls.map(|c| c.bytes), Some(r.bytes), "rank = CLS pooling");
        }
        assert_eq!(
            r.bytes, want,
            "{} {} {} {}",
            r.arch, r.hidden, r.ubatch, r.n_seq
        );
        checked += 1;
    }
    assert_eq!(checked, 160);
}

/// Without flash attention (what the domain says of it): the fp32 mask and the scores of every
/// head, `4 B × (heads + 1) × T²`, beside the attention step's `6 × hidden` floats a token (8 with
/// nomic-bert's rotated q and k), which then outweighs the FFN step in every measured shape.
#[test]
fn without_flash_attention_the_scores_dominate() {
    for r in rows().iter().filter(|r| !r.flash) {
        let (t, h) = (r.ubatch, r.hidden);
        let floats = if r.arch == "nomic-bert" { 8 * h } else { 6 * h };
        let pooling = if r.cls || r.rank { 32 } else { 4 * t * r.n_seq };
        let want = 4 * t * t * (u64::from(r.heads) + 1) + 4 * t * floats + 12 * t + pooling;
        assert_eq!(r.bytes, want, "{} {} {}", r.arch, h, t);
        let a = arch(r);
        let on = compute_buffer(&a, encoder(&a).unwrap(), t, r.n_seq).get();
        assert!(r.bytes > on, "flash attention always takes less here");
    }
}

/// The micro-batch the buffer is reserved for: one whole input at least (non-causal attention),
/// at most the context of every slot, a multiple of the slots.
#[test]
fn the_micro_batch_holds_a_whole_input() {
    let tokens = |ubatch, ctx, par| {
        tokens(&fitcard_estimator::Inputs {
            ubatch,
            ctx,
            par,
            ..Default::default()
        })
    };
    assert_eq!(tokens(512, 8192, 1), 8192);
    assert_eq!(tokens(16384, 8192, 1), 8192);
    assert_eq!(tokens(16384, 8192, 4), 16384);
    assert_eq!(tokens(512, 2049, 2), 2050);
}
