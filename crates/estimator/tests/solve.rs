//! Inverse solving, checked the only way that proves exactness: the estimate at the solution
//! fits, and one step past it does not.

use fitcard_estimator::catalog::catalog;
use fitcard_estimator::solve::{solve, Target};
use fitcard_estimator::{decode, estimate, training, GpuChoice, Inputs};

fn inputs(q: &str) -> Inputs {
    let d = decode(q);
    assert!(d.clean(), "{q}: {:?}", d.notices);
    d.inputs
}

fn fits(i: &Inputs) -> bool {
    estimate(i).fits
}

/// One row per engine and allocator quirk (llama.cpp 256-cell padding and SWA, Ollama slots,
/// vLLM blocks and startup, transformers exact tokens).
const ROWS: [&str; 6] = [
    "model=google/gemma-3-27b-it&par=4",
    "model=Qwen/Qwen3-8B&engine=llama.cpp&kv=q8_0&par=3&vram=12",
    "model=meta-llama/Llama-3.1-8B-Instruct&engine=ollama&par=2",
    "model=meta-llama/Llama-3.1-8B-Instruct&engine=vllm&quant=BF16&gpu=rtx-4090&par=8",
    "model=Qwen/Qwen3-14B&engine=transformers&quant=BF16&gpu=h100-sxm&par=2",
    "model=google/gemma-3-12b-it&engine=vllm&quant=BF16&cards=2&gpu=rtx-4090",
];

#[test]
fn longest_context_is_exact() {
    for q in ROWS {
        let i = inputs(q);
        let s = solve(&i, Target::Ctx);
        let c: u32 = s.value.as_deref().expect(q).parse().unwrap();
        assert!(
            fits(&Inputs {
                ctx: c,
                ..i.clone()
            }),
            "{q}: {c}"
        );
        let a = &catalog().variant(&i.model).unwrap().1.arch;
        let max = a.yarn.as_ref().map_or(a.max_ctx, |y| y.max_ctx());
        assert!(
            c == max
                || !fits(&Inputs {
                    ctx: c + 1,
                    ..i.clone()
                }),
            "{q}: {c}"
        );
        assert!(s.evaluations <= 26, "{q}: {} estimates", s.evaluations);
    }
}

#[test]
fn most_slots_are_exact() {
    for q in ROWS {
        let i = inputs(q);
        let s = solve(&i, Target::Par);
        let p: u32 = s.value.as_deref().expect(q).parse().unwrap();
        assert!(
            fits(&Inputs {
                par: p,
                ..i.clone()
            }),
            "{q}: {p}"
        );
        assert!(
            !fits(&Inputs {
                par: p + 1,
                ..i.clone()
            }),
            "{q}: {p}"
        );
    }
}

#[test]
fn fewest_cards_and_smallest_gpu() {
    let i = inputs(
        "model=meta-llama/Llama-3.1-70B-Instruct&engine=vllm&quant=BF16&gpu=h100-sxm&ctx=32768",
    );
    let c: u32 = solve(&i, Target::Cards).value.unwrap().parse().unwrap();
    assert!(fits(&Inputs {
        cards: c,
        ..i.clone()
    }));
    assert!((1..c).all(|k| !fits(&Inputs {
        cards: k,
        ..i.clone()
    })));
    let i = inputs("model=google/gemma-3-12b-it&ctx=32768");
    let g = solve(&i, Target::Gpu).value.unwrap();
    let with = |id: &str| Inputs {
        gpu: GpuChoice::Catalog(id.into()),
        ..i.clone()
    };
    assert!(fits(&with(&g)));
    let size = catalog().gpu(&g).unwrap().vram_bytes;
    assert!(catalog()
        .gpus
        .iter()
        .filter(|x| x.vram_bytes < size)
        .all(|x| !fits(&with(&x.id))));
}

/// Nothing fits: said, not a number.
#[test]
fn nothing_fits_is_said() {
    let i = inputs("model=meta-llama/Llama-3.1-70B-Instruct&quant=Q8_0&vram=4");
    for t in [Target::Ctx, Target::Par] {
        let s = solve(&i, t);
        assert!(
            s.value.is_none() && s.message.starts_with("not even"),
            "{s:?}"
        );
    }
}

/// Train mode: the longest sequence and the largest batch that fit the GPUs.
#[test]
fn longest_training_sequence() {
    let i0 = inputs("mode=train&model=meta-llama/Llama-3.1-8B-Instruct&free=24&seq=4096");
    let b: u32 = solve(&i0, Target::Bsz).value.unwrap().parse().unwrap();
    let at_b = |x: u32| {
        let mut j = i0.clone();
        j.train.bsz = x;
        training::estimate(&j).estimate.fits
    };
    assert!(at_b(b) && !at_b(b + 1), "{b}");
    let i = inputs("mode=train&model=meta-llama/Llama-3.1-8B-Instruct&free=24");
    let q: u32 = solve(&i, Target::Seq).value.unwrap().parse().unwrap();
    let at = |s: u32| {
        let mut j = i.clone();
        j.train.seq = s;
        training::estimate(&j).estimate.fits
    };
    assert!(at(q) && !at(q + 1), "{q}");
}
