//! The context × concurrency frontier, checked the way the solver's answers are: each point
//! re-estimated fits, one slot more does not ([`solve::proof`]); slots never grow with the
//! context; the plot's geometry and its SVG apart.

use fitcard_estimator::frontier::plot::{self, ctx_label, layout, X_TICK_SPACING};
use fitcard_estimator::frontier::{frontier, grid, svg, Frontier, GRID_START};
use fitcard_estimator::solve::{self, proof, Solution, Target};
use fitcard_estimator::{estimate, from_query, Engine, Inputs, KvDtype};

fn inputs(q: &str) -> Inputs {
    let d = from_query(q);
    assert!(d.clean(), "{q}: {:?}", d.notices);
    d.inputs
}

/// One row per engine (llama.cpp SWA and padding, Ollama slots, vLLM blocks, SGLang,
/// transformers), on cards where the lines bend.
const ROWS: [&str; 6] = [
    "model=google/gemma-3-12b-it&par=4&kvu=1",
    "model=Qwen/Qwen3-8B&engine=llama.cpp&kv=q8_0&par=3&vram=12",
    "model=meta-llama/Llama-3.1-8B-Instruct&engine=ollama&par=2",
    "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&gpu=h100-sxm&ctx=8192&par=16",
    "model=meta-llama/Llama-3.1-8B-Instruct&engine=sglang&quant=BF16&gpu=rtx-4090&par=8",
    "model=Qwen/Qwen3-14B&engine=transformers&quant=BF16&gpu=h100-sxm&par=2",
];

/// `base` with the line's cache type, cache layout and context.
fn at(base: &Inputs, kv: KvDtype, unified: Option<bool>, ctx: u32) -> Inputs {
    Inputs {
        kv,
        kv_v: None,
        kvu: unified.unwrap_or(false),
        ctx,
        ..base.clone()
    }
}

#[test]
fn every_point_is_the_exact_edge_and_slots_never_grow_with_context() {
    for q in ROWS {
        let i = inputs(q);
        let f = frontier(&i);
        assert!(f.reason.is_none(), "{q}: {:?}", f.reason);
        assert!(!f.lines.is_empty(), "{q}");
        for l in &f.lines {
            let label = l.label();
            for w in l.points.windows(2) {
                assert!(w[0].0 < w[1].0, "{q} {label}: contexts ascend");
                assert!(w[1].1 <= w[0].1, "{q} {label}: {w:?}");
            }
            for (k, &(ctx, slots)) in l.points.iter().enumerate() {
                assert_eq!(ctx, f.grid[k], "{q} {label}: the grid, from its start");
                // The solver's own check: fits at the value, not one step past it.
                for kv in std::iter::once(l.kv).chain(l.also.iter().copied()) {
                    let j = at(&i, kv, l.unified, ctx);
                    let s = Solution {
                        target: Target::Par,
                        value: Some(slots.to_string()),
                        message: String::new(),
                        evaluations: 0,
                    };
                    let p = proof(&j, &s).expect("a numeric answer");
                    assert!(p.fits, "{q} {label} {kv}: {slots} at {ctx}");
                    assert_eq!(
                        p.next_fits,
                        (slots < f.cap).then_some(false),
                        "{q} {label} {kv}: {} slots at {ctx}",
                        slots + 1
                    );
                }
            }
            // The line ends where not even one slot fits.
            if let Some(&next) = f.grid.get(l.points.len()) {
                assert!(
                    !estimate(&Inputs {
                        par: 1,
                        ..at(&i, l.kv, l.unified, next)
                    })
                    .fits,
                    "{q} {label}: one slot at {next}"
                );
            }
        }
    }
}

#[test]
fn points_agree_with_the_solver() {
    // The bounded search the frontier runs gives the solver's unbounded answer.
    let i = inputs(ROWS[3]);
    let f = frontier(&i);
    let l = &f.lines[0];
    for &(ctx, slots) in &l.points {
        let s = solve::solve(&at(&i, l.kv, l.unified, ctx), Target::Par);
        assert_eq!(s.value, Some(slots.to_string()), "{ctx}");
    }
}

#[test]
fn lines_per_engine() {
    // llama.cpp: every cache type, unified and per slot; q4_0 and iq4_nl share their bytes.
    let f = frontier(&inputs(ROWS[0]));
    assert!(f.lines.iter().all(|l| l.unified.is_some()));
    let q4 = f
        .lines
        .iter()
        .find(|l| l.kv.id() == "q4_0" && l.unified == Some(true))
        .expect("q4_0");
    assert!(q4.also.iter().any(|k| k.id() == "iq4_nl"), "{:?}", q4.also);
    assert_eq!(q4.label(), "q4_0 = iq4_nl unified");
    let cur = &f.lines[f.current_line.expect("f16 unified is a line")];
    assert_eq!((cur.kv, cur.unified), (KvDtype::F16, Some(true)));
    assert_eq!(f.current, (8192, 4));
    // Ollama: its three types, never unified.
    let f = frontier(&inputs(ROWS[2]));
    let kinds: Vec<&str> = f.lines.iter().map(|l| l.kv.id()).collect();
    assert_eq!(kinds, ["f16", "q8_0", "q4_0"]);
    assert!(f.lines.iter().all(|l| l.unified.is_none()));
    // vLLM: the 16-bit spellings are one line, the fp8 ones another.
    let f = frontier(&inputs(ROWS[3]));
    let labels: Vec<String> = f.lines.iter().map(|l| l.label()).collect();
    assert_eq!(labels, ["auto = bf16 = f16", "fp8 = fp8_e4m3 = fp8_e5m2"]);
    // An fp8 cache holds about twice the requests of a 16-bit one at the same context.
    let (a, b) = (&f.lines[0], &f.lines[1]);
    let r = f64::from(b.slots_at(32768).unwrap()) / f64::from(a.slots_at(32768).unwrap());
    assert!((1.8..=2.2).contains(&r), "{r}");
    // K and V of different types: no line is the chosen configuration.
    let f = frontier(&inputs("model=Qwen/Qwen3-8B&kvk=q8_0&kvv=q4_0"));
    assert_eq!(f.current_line, None);
    assert_eq!(
        f.lines.iter().filter(|l| l.unified.is_some()).count(),
        f.lines.len()
    );
    assert_eq!(Engine::LlamaCpp, inputs("").engine);
}

#[test]
fn a_model_that_never_fits_has_empty_lines_and_a_reason() {
    let f = frontier(&inputs(
        "model=deepseek-ai/DeepSeek-R1-Distill-Llama-70B&quant=Q8_0&vram=8",
    ));
    assert!(!f.lines.is_empty());
    assert!(f.lines.iter().all(|l| l.points.is_empty()));
    let r = f.reason.as_deref().expect("a reason");
    assert!(
        r.starts_with("not even one request of 512 tokens fits"),
        "{r}"
    );
    assert!(!f.current_fits);
    // Each line stopped at its first context: one estimate per configuration (9 llama.cpp
    // cache types, unified and per slot), and one for the chosen point.
    assert_eq!(f.evaluations, 1 + 9 * 2);
    let s = svg::svg(&f, 720.0, 360.0);
    assert_eq!(s.matches("<polyline").count(), 0);
    assert!(s.contains(r#"<text class="reason""#), "{s}");
    assert!(s.contains("(none fits)"));
    balanced(&s);
    // Train mode: no frontier, said so.
    let f = frontier(&inputs("mode=train&model=Qwen/Qwen3-8B"));
    assert!(f.lines.is_empty());
    assert!(f.reason.unwrap().contains("serving"));
}

#[test]
fn the_grid_is_powers_of_two_then_the_longest_context() {
    assert_eq!(grid(131072).first(), Some(&GRID_START));
    assert_eq!(grid(131072).len(), 9);
    assert_eq!(grid(131072).last(), Some(&131072));
    let g = grid(40960);
    assert_eq!(g[g.len() - 2..], [32768, 40960]);
    assert_eq!(grid(512), [512]);
    // A model shorter than the grid's start: its own context alone.
    assert_eq!(grid(256), [256]);
    assert_eq!(grid(1), [1]);
    assert!(grid(16_777_216).len() == 16);
}

/// A frontier by hand, for the geometry.
fn synthetic(grid: Vec<u32>, lines: Vec<Vec<(u32, u32)>>, current: (u32, u32)) -> Frontier {
    let mut f = frontier(&inputs("model=Qwen/Qwen3-8B&engine=ollama"));
    f.grid = grid;
    f.lines.truncate(lines.len());
    for (l, p) in f.lines.iter_mut().zip(lines) {
        l.points = p;
    }
    f.current = current;
    f
}

#[test]
fn geometry_log_axes_and_ticks() {
    let f = frontier(&inputs(ROWS[3]));
    let p = layout(&f, 500.0, 300.0);
    assert_eq!(p.x_range, (512, 131072));
    // The most slots (1024+) set a power-of-two top; one slot sits on the floor.
    assert_eq!(p.y_range, (1, 1024));
    let labels: Vec<&str> = p.x_ticks.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(
        labels,
        ["512", "1K", "2K", "4K", "8K", "16K", "32K", "64K", "128K"]
    );
    assert_eq!(p.x_ticks[0].at, 0.0);
    assert!((p.x_ticks[8].at - 500.0).abs() < 1e-9);
    // Equal ratios are equal distances (log axis).
    let d: Vec<f64> = p.x_ticks.windows(2).map(|w| w[1].at - w[0].at).collect();
    assert!(d.iter().all(|x| (x - d[0]).abs() < 1e-9), "{d:?}");
    for pl in &p.lines {
        for w in pl.marks.windows(2) {
            assert!(w[1].x > w[0].x);
            assert!(w[1].y >= w[0].y, "fewer slots are lower");
        }
    }
    // The chosen point: 16 slots at 8K.
    assert!((p.current.x - 4.0 / 8.0 * 500.0).abs() < 1e-9);
    assert!((p.current.y - (300.0 - 4.0 / 10.0 * 300.0)).abs() < 1e-9);
    let y: Vec<&str> = p.y_ticks.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(
        y,
        ["1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024"]
    );
    assert_eq!(p.y_ticks[0].at, 300.0);
    // A narrow plot keeps its labels apart: every other power of two.
    let p = layout(&f, 200.0, 100.0);
    let labels: Vec<&str> = p.x_ticks.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(labels, ["1K", "4K", "16K", "64K"]);
    for w in p.x_ticks.windows(2) {
        assert!(w[1].at - w[0].at >= X_TICK_SPACING);
    }
    assert_eq!(ctx_label(1 << 20), "1M");
    assert_eq!(ctx_label(40960), "40K");
    assert_eq!(ctx_label(32768), "32K");
    assert_eq!(ctx_label(4096), "4K");
}

#[test]
fn geometry_edge_cases() {
    // A model shorter than 512 tokens: one context; the axis still spans a doubling.
    let f = synthetic(vec![256], vec![vec![(256, 3)], vec![]], (256, 1));
    let p = layout(&f, 400.0, 200.0);
    assert_eq!(p.x_range, (256, 512));
    assert_eq!(p.lines.len(), 1, "an empty line draws nothing");
    assert_eq!(p.lines[0].marks[0].x, 0.0);
    assert_eq!(p.y_range, (1, 4));
    let s = svg::svg(&f, 720.0, 360.0);
    assert_eq!(s.matches("<polyline").count(), 1);
    balanced(&s);
    // A chosen context past the grid widens the axis to hold it.
    let f = synthetic(vec![512, 1024], vec![vec![(512, 2), (1024, 1)]], (4096, 9));
    let p = layout(&f, 400.0, 200.0);
    assert_eq!(p.x_range, (512, 4096));
    assert_eq!(p.current.x, 400.0);
    assert_eq!(p.y_range.1, 16);
    assert!(plot::log_pos(1, (1, 16), 100.0).abs() < 1e-12);
}

/// Tags open and close in order: a stack over `<name`, `</name>` and `/>` (the writer emits
/// no comments, no CDATA and escapes every `<` in text).
fn balanced(s: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = s;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        let end = rest.find('>').expect("every tag closes");
        let tag = &rest[..end];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name), "{s}");
        } else if !tag.ends_with('/') {
            let name = tag.split([' ', '>']).next().unwrap();
            stack.push(name);
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
}

#[test]
fn svg_is_well_formed_with_one_polyline_per_line_and_a_name_per_point() {
    for q in ROWS {
        let f = frontier(&inputs(q));
        let s = svg::svg(&f, 720.0, 360.0);
        assert!(
            s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{q}"
        );
        assert!(s.ends_with("</svg>"));
        balanced(&s);
        let drawn = f.lines.iter().filter(|l| !l.points.is_empty()).count();
        assert_eq!(s.matches("<polyline").count(), drawn, "{q}");
        let points: usize = f.lines.iter().map(|l| l.points.len()).sum();
        assert_eq!(s.matches("<circle class=\"pt\"").count(), points, "{q}");
        // Hover (a title) and focus (tabindex, aria-label) on every point and the chosen one.
        assert_eq!(s.matches("<title>").count(), points + 1, "{q}");
        assert_eq!(s.matches("tabindex=\"0\"").count(), points + 1, "{q}");
        assert!(s.contains(r#"<g class="current"#), "{q}");
        // Per-slot llama.cpp lines are dashed; unified ones solid.
        let dashed = f.lines.iter().filter(|l| l.unified == Some(false));
        let (legend, drawn) = (
            dashed.clone().count(),
            dashed.filter(|l| !l.points.is_empty()).count(),
        );
        assert_eq!(s.matches("stroke-dasharray").count(), legend + drawn, "{q}");
    }
    let f = frontier(&inputs(ROWS[3]));
    let s = svg::svg(&f, 720.0, 360.0);
    assert!(
        s.contains("<title>fp8 = fp8_e4m3 = fp8_e5m2: 95 slots at 8K tokens</title>"),
        "{s}"
    );
    assert!(s.contains("1024+ slots at 512 tokens"), "{s}");
    assert!(s.contains("<title>chosen: 16 slots at 8K tokens (fits)</title>"));
    assert!(s.contains(&format!("aria-label=\"{}\"", svg::summary(&f))));
}
