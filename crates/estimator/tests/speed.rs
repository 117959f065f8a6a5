//! Decode speed against published llama-bench runs (`data/speed.json`, each row with its
//! URL): the fit of `fitcard_estimator::serve::speed` reproduces every decode row within 20 %, and a
//! spill to host memory costs what it should.

use fitcard_estimator::catalog::MemoryKind;
use fitcard_estimator::serve::speed::{param_counts, tp_comm_s, Fit, GDDR, HBM};
use fitcard_estimator::{catalog, estimate, from_query};

/// The published rows, `data/speed.json`.
fn speed_data() -> serde_json::Value {
    serde_json::from_str(include_str!("../data/speed.json")).expect("speed.json")
}

/// Print each row's line and the fit and held-out medians and worsts; returns them.
fn report(
    what: &str,
    lines: &[String],
    fit: &mut [f64],
    held: &mut [f64],
) -> ((f64, f64), (f64, f64)) {
    println!("{}", lines.join("\n"));
    let (f, h) = (stats(fit), stats(held));
    println!(
        "{what}, fit: {} rows, median {:.1} %, worst {:.1} %; held out: {} rows, median {:.1} %, worst {:.1} %",
        fit.len(),
        f.0 * 100.0,
        f.1 * 100.0,
        held.len(),
        h.0 * 100.0,
        h.1 * 100.0
    );
    (f, h)
}

/// One row run through the estimator as its query says: the speed, the error against
/// `measured` (estimate ÷ measured − 1), and a line for the report.
fn end_to_end(
    q: &str,
    measured: f64,
    lines: &mut Vec<String>,
) -> (fitcard_estimator::serve::speed::Speed, f64) {
    let d = from_query(q);
    assert!(d.notices.is_empty(), "{q}: {:?}", d.notices);
    let sp = estimate(&d.inputs).speed.expect(q);
    let err = sp.decode_tps / measured - 1.0;
    lines.push(format!(
        "{q}: measured {measured}, estimated {:.1} ({:+.0} %)",
        sp.decode_tps,
        err * 100.0
    ));
    (sp, err)
}

/// The step time model on one row: `bytes / (eff × bw) + fixed`.
fn predict(bytes: f64, bw_gbs: f64, fit: Fit) -> f64 {
    1.0 / (bytes / (fit.eff * bw_gbs * 1e9) + fit.fixed_s)
}

/// What the card reads per token on one `llama_bench` row: the file without the token
/// embedding llama.cpp keeps in host memory (vocab × hidden at the file's embedding type).
fn row_bytes(r: &serde_json::Value) -> Option<f64> {
    let size = r["size_gib"].as_f64()?;
    let model = r["model"].as_str().unwrap_or_default();
    let quant = r["quant"].as_str().unwrap_or_default();
    let (vocab, hidden) = if model.contains("70B") {
        (128_256.0, 8192.0)
    } else if model.contains("Llama-3") {
        (128_256.0, 4096.0)
    } else {
        (32_016.0, 4096.0)
    };
    let per_value = match quant {
        "F16" => 2.0,
        "Q8_0" => 34.0 / 32.0,
        "Q4_0" => 18.0 / 32.0,
        _ => 144.0 / 256.0,
    };
    Some(size * (1u64 << 30) as f64 - vocab * hidden * per_value)
}

/// Decode rows of llama-bench. Rows without a `split` are the NVIDIA and Apple rows the CUDA
/// and Metal fits come from: each within 20 %. AMD rows carry a `split`: `fit` rows (the RX
/// 7900 XTX) set `RDNA`; `held_out` rows (RX 7900 XT, W7900, MI300X, Ryzen AI Max+ 395) are
/// predicted with the fit the estimator picks for the card (`decode_fit`): median within 20 %,
/// every row within a factor 1.5.
#[test]
fn llama_bench_decode_rows_within_twenty_percent() {
    use fitcard_estimator::serve::speed::{decode_fit, RDNA};
    let data = speed_data();
    let mut checked = 0;
    let mut bad = Vec::new();
    let (mut held, mut rdna_effs, mut lines) = (Vec::new(), Vec::new(), Vec::new());
    for r in data["llama_bench"].as_array().unwrap() {
        let test = r["test"].as_str().unwrap_or_default();
        if !test.starts_with("tg") {
            continue;
        }
        assert!(r["url"].as_str().unwrap().starts_with("https://"));
        // A row with a caution is a known miss: its mechanism is named there (the M1 Max's
        // compute-bound K-quant decode). It must stay a miss, or the caution is stale.
        let known_miss = r.get("caution").is_some_and(|c| !c.is_null());
        let (Some(gpu), Some(bytes), Some(tps)) = (
            r["gpu"].as_str().and_then(|id| catalog().gpu(id)),
            row_bytes(r),
            r["tokens_per_s"].as_f64(),
        ) else {
            continue;
        };
        let Some(bw) = gpu.bandwidth_gbs else {
            continue;
        };
        let model = r["model"].as_str().unwrap_or_default();
        let quant = r["quant"].as_str().unwrap_or_default();
        let fit = decode_fit(gpu);
        let p = predict(bytes, bw, fit);
        let err = (p - tps) / tps;
        checked += 1;
        let line = format!(
            "{} {model} {quant} {test}: {tps} t/s measured, {p:.1} predicted ({:+.0} %)",
            gpu.id,
            err * 100.0
        );
        match r["split"].as_str() {
            Some("fit") => {
                // The share of the bandwidth this row reached at the fit's fixed time.
                rdna_effs.push(bytes / ((1.0 / tps - RDNA.fixed_s) * bw * 1e9));
                if err.abs() > 0.20 {
                    bad.push(line.clone());
                }
            }
            Some(_) => {
                held.push(err.abs());
                if !(1.0 / 1.5..=1.5).contains(&(p / tps)) {
                    bad.push(line.clone());
                }
            }
            None if known_miss => {
                if err.abs() <= 0.20 {
                    bad.push(format!(
                        "{} {model} {quant}: the known miss is gone",
                        gpu.id
                    ));
                }
            }
            None => {
                if err.abs() > 0.20 {
                    bad.push(line.clone());
                }
            }
        }
        lines.push(line);
    }
    println!("{}", lines.join("\n"));
    // `RDNA.eff` is the mean of what its fit rows reached.
    let mean = rdna_effs.iter().sum::<f64>() / rdna_effs.len() as f64;
    assert!(
        rdna_effs.len() >= 2 && (mean - RDNA.eff).abs() < 0.01,
        "{rdna_effs:?}"
    );
    let (hm, hw) = stats(&mut held);
    println!(
        "decode, held-out AMD rows: {} rows, median {:.0} %, worst {:.0} %",
        held.len(),
        hm * 100.0,
        hw * 100.0
    );
    assert!(checked >= 49, "only {checked} rows");
    assert!(held.len() >= 10 && hm <= 0.20, "held out: median {hm}");
    assert!(bad.is_empty(), "outside the bounds:\n{}", bad.join("\n"));
}

/// CPU-only decode (llama-bench, CPU backend, each row with its machine's RAM and theoretical
/// bandwidth): the share of the RAM bandwidth each run reached. Single-socket machines reach
/// 0.4–0.75 and `HOST_EFF` is their median; the two-socket EPYC stays under 0.15 (NUMA, outside
/// the domain; module docs).
#[test]
fn cpu_only_rows_read_less_than_the_theoretical_ram_bandwidth() {
    let data = speed_data();
    let rows = data["cpu_only"].as_array().expect("cpu_only rows");
    assert!(rows.len() >= 5);
    let (mut bad, mut single) = (Vec::new(), Vec::new());
    for r in rows {
        assert!(r["url"].as_str().unwrap().starts_with("https://"));
        assert!(!r["ram_bw_source"].as_str().unwrap().is_empty());
        let bw = r["ram_bw_gbs"].as_f64().unwrap() * 1e9;
        let tps = r["tokens_per_s"].as_f64().unwrap();
        let share = row_bytes(r).unwrap() * tps / bw;
        let machine = r["machine"].as_str().unwrap();
        println!(
            "{machine} {} {}: {tps} t/s, {:.0} % of {:.1} GB/s",
            r["model"].as_str().unwrap(),
            r["quant"].as_str().unwrap(),
            share * 100.0,
            bw / 1e9
        );
        let expected = if machine.starts_with("2x") {
            0.0..0.15
        } else {
            0.4..0.75
        };
        if !expected.contains(&share) {
            bad.push(format!("{machine}: {share:.2}"));
        }
        if !machine.starts_with("2x") {
            single.push(share);
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let (median, _) = stats(&mut single);
    assert!(
        (median - fitcard_estimator::serve::speed::HOST_EFF).abs() < 0.005,
        "HOST_EFF is the median single-socket share: {median:.3}"
    );
}

/// The estimator's own numbers: an 8B Q4_K_M model on an RTX 4090 decodes in the range the
/// benchmarks show; a MoE model reads only its routed experts; more slots raise the aggregate
/// and lower each request's speed; a spill to host memory is named and slows decoding by an
/// order of magnitude.
#[test]
fn estimator_speed() {
    let s = |q: &str| estimate(&from_query(q).inputs).speed.expect(q);
    let dense = s("model=meta-llama/Llama-3.1-8B-Instruct&ctx=4096");
    assert!((100.0..160.0).contains(&dense.decode_tps), "{dense:?}");
    let four = s("model=meta-llama/Llama-3.1-8B-Instruct&ctx=4096&par=4");
    assert!(four.aggregate_tps > dense.aggregate_tps && four.decode_tps < dense.decode_tps);
    let moe = s("model=Qwen/Qwen3-30B-A3B&quant=Q4_K_M&gpu=rtx-5090&ctx=4096");
    let dense32 = s("model=Qwen/Qwen3-32B&quant=Q4_K_M&gpu=rtx-5090&ctx=4096");
    assert!(
        moe.decode_tps > 3.0 * dense32.decode_tps,
        "{moe:?} {dense32:?}"
    );
    let spill = s("model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&ctx=4096");
    assert!(spill.offloaded_layers > 0 && spill.offloaded_bytes > 0);
    assert!(spill.decode_tps * 5.0 < spill.on_card_tps, "{spill:?}");
    // A free-form card has no bandwidth: no speed rather than a guess; with `bw=` it has one,
    // the same as the catalog card of that bandwidth and size.
    assert!(estimate(&from_query("vram=24").inputs).speed.is_none());
    let free = s("model=meta-llama/Llama-3.1-8B-Instruct&ctx=4096&vram=24&bw=1008");
    assert!(
        (free.decode_tps / dense.decode_tps - 1.0).abs() < 0.02,
        "{free:?} {dense:?}"
    );
    assert_eq!((free.bandwidth_gbs, free.efficiency), (1008.0, 0.81));
}

/// Push a model past the card: the speed drops, the command pins `-ngl` to the layers that
/// fit, and pinning them with `ngl=` moves those layers (and their KV cache) off the card's
/// bar and reads them at `ram_bw`.
#[test]
fn offload_pins_ngl_and_reads_host_layers_at_ram_bandwidth() {
    let q = "model=Qwen/Qwen3-32B&quant=Q4_K_M&gpu=rtx-3060-12gb&ctx=8192";
    let spill = estimate(&from_query(q).inputs);
    let sp = spill.speed.clone().unwrap();
    assert!(!spill.fits && sp.offloaded_layers > 0);
    let layers = 64; // Qwen3-32B's blocks
    let pinned: u32 = spill.command.split(" -ngl ").nth(1).unwrap()[..2]
        .trim()
        .parse()
        .unwrap();
    // The pinned number is the most that fit: one more does not.
    let e = estimate(&from_query(&format!("{q}&ngl={pinned}")).inputs);
    assert!(e.fits, "{:?}", e.checks);
    assert!(!estimate(&from_query(&format!("{q}&ngl={}", pinned + 1)).inputs).fits);
    let o = e.offload.unwrap();
    assert_eq!(o.cpu_layers, layers + 1 - pinned);
    // The proportional spill estimate and the pinned one agree on the layers within two.
    assert!(
        o.cpu_layers.abs_diff(sp.offloaded_layers) <= 2,
        "{o:?} {sp:?}"
    );
    assert!(o.layers_host.get() > 0 && o.kv_host.get() > 0);
    assert!(e.terms.iter().any(|t| t.name.id() == "layers_host"));
    let pe = e.speed.clone().unwrap();
    assert!(
        (pe.decode_tps / sp.decode_tps - 1.0).abs() < 0.1,
        "{pe:?} {sp:?}"
    );
    assert!(pe.decode_tps * 2.0 < pe.on_card_tps);
    // Twice the RAM bandwidth: the host part takes half the time.
    let fast = estimate(&from_query(&format!("{q}&ngl={pinned}&ram_bw=153.6")).inputs)
        .speed
        .unwrap();
    assert!(fast.decode_tps > 1.5 * pe.decode_tps, "{fast:?}");
    assert_eq!(fast.ram_bw_gbs, 153.6);
    // ngl=0: everything on the CPU (the output layer too); ngl=65: everything on the GPU.
    let cpu = estimate(&from_query(&format!("{q}&ngl=0")).inputs);
    assert_eq!(cpu.offload.unwrap().cpu_layers, 64);
    let all = estimate(&from_query(&format!("{q}&ngl=65")).inputs);
    assert_eq!(all.offload.unwrap().cpu_layers, 0);
    assert_eq!(all.total_device_bytes, spill.total_device_bytes);
    // Ollama writes the pin as num_gpu.
    let ol = estimate(&from_query(&format!("{q}&ngl={pinned}&engine=ollama")).inputs);
    assert!(
        ol.command.contains(&format!("PARAMETER num_gpu {pinned}")),
        "{}",
        ol.command
    );
    // --no-kv-offload: the KV cache leaves the card and is read from host RAM.
    let q8 = "model=meta-llama/Llama-3.1-8B-Instruct&ctx=32768";
    let on = estimate(&from_query(q8).inputs);
    let off = estimate(&from_query(&format!("{q8}&nkvo=1")).inputs);
    assert!(off.command.contains("--no-kv-offload"));
    assert!(off.total_device_bytes < on.total_device_bytes);
    assert!(off.speed.unwrap().decode_tps < 0.5 * on.speed.unwrap().decode_tps);
}

/// Partial offload, held out: llama.cpp decode with `-ngl` below the layer count on an RTX 2080
/// (8 GB) with a quad-channel DDR4 host (`partial_offload` rows with a `ram_bw_gbs`: llmfit PRs
/// #773–#778, seven models at `-ngl` 16–44 and four on the card alone). No constant is fitted on
/// them: the card's part is the GDDR fit, the host's `HOST_EFF` (fitted on the CPU-only rows).
/// Median within 20 %, every row within a factor 1.5; and without `HOST_EFF` (the host read at
/// the full RAM bandwidth) the median miss would be more than 30 %.
#[test]
fn partial_offload_rows_held_out() {
    let data = speed_data();
    let rows = data["partial_offload"]
        .as_array()
        .expect("partial_offload rows");
    let (mut errs, mut raw, mut lines) = (Vec::new(), Vec::new(), Vec::new());
    for r in rows.iter().filter(|r| r["ram_bw_gbs"].is_f64()) {
        assert!(r["url"].as_str().unwrap().starts_with("https://"));
        assert_eq!(r["split"], "held_out");
        // The query states the row's card, RAM bandwidth and pinned layers.
        let q = r["catalog_query"].as_str().expect("catalog_query");
        assert!(q.contains(&format!("ram_bw={}", r["ram_bw_gbs"])), "{q}");
        assert_eq!(q.contains("&ngl="), r["ngl"].is_u64(), "{q}");
        let measured = r["tokens_per_s"].as_f64().unwrap();
        let (sp, err) = end_to_end(q, measured, &mut lines);
        if r["ngl"].is_u64() {
            // The same estimate with the host read at the full bandwidth.
            let full = 1.0
                / (1.0 / sp.decode_tps
                    - (1.0 - fitcard_estimator::serve::speed::HOST_EFF) * host_part(&sp));
            raw.push((full / measured - 1.0).abs());
        }
        errs.push(err.abs());
    }
    println!("{}", lines.join("\n"));
    assert!(errs.len() >= 10 && raw.len() >= 7, "{} rows", errs.len());
    let (m, w) = stats(&mut errs);
    let (rm, _) = stats(&mut raw);
    println!(
        "partial offload, held out: {} rows, median {:.0} %, worst {:.0} %; at the full RAM bandwidth the median would be {:.0} %",
        errs.len(),
        m * 100.0,
        w * 100.0,
        rm * 100.0
    );
    assert!(m <= 0.20 && w <= 0.5, "median {m}, worst {w}");
    assert!(
        rm > 0.30,
        "the host efficiency is what closes the gap: {rm}"
    );
}

/// The host part of a step, seconds: what `decode_tps` spends beyond `on_card_tps` plus the
/// same bytes at the card's speed is the host read.
fn host_part(sp: &fitcard_estimator::serve::speed::Speed) -> f64 {
    // step = card + host; on_card step = card + host bytes on the card. The host bytes are
    // `host × HOST_EFF × ram_bw`; on the card they take that over `eff × bw`.
    let step = 1.0 / sp.decode_tps;
    let on_card = 1.0 / sp.on_card_tps;
    let host_bw = sp.ram_efficiency * sp.ram_bw_gbs;
    let card_bw = sp.efficiency * sp.bandwidth_gbs;
    // step − on_card = host × (1 − host_bw / card_bw)
    (step - on_card) / (1.0 - host_bw / card_bw)
}

/// MLX decode (mlx-lm's generation speed on Apple GPUs, `mlx` rows with a `split`): bytes per
/// token = the parameters a token goes through (without the embedding lookup) at the format's
/// bits plus a BF16 scale and bias per group (`bits + 32 / group`; 64 by default) + the KV cache
/// at the mean context of the run (the estimator's mlx-lm cache term) at `KV_EFF_RATIO`. The
/// `fit` rows (Qwen3-4B at 16/8/4 bits on the M4 Max) set `MLX`: each within 3 %; the held-out
/// rows (other bit widths and group sizes, an M3 Pro, four models on an M2 Pro, the M2 Ultra's
/// 16-bit 70B): median within 10 %, each within a factor 1.5 (gemma-3-12b on the M2 Pro, +26 %,
/// is the widest; that source prints neither the context nor the prompt). The Qwen3-30B-A3B rows
/// are a named miss: estimated 35–60 % faster than measured (module docs). End to end, the estimator gives the catalog's
/// Qwen3-4B MLX-4bit on an M4 Max within 3 % of the 4-bit row.
#[test]
fn mlx_rows() {
    use fitcard_estimator::serve::speed::{KV_EFF_RATIO, MLX};
    let data = speed_data();
    let rows = data["mlx"].as_array().expect("mlx rows");
    let (mut fit, mut held, mut moe, mut lines) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in rows.iter().filter(|r| r["split"].is_string()) {
        assert!(r["url"].as_str().unwrap().starts_with("https://"));
        assert!(r["bw_source"].as_str().unwrap().len() > 20);
        let id = r["catalog_model"].as_str().unwrap();
        let (_, v) = catalog().variant(id).expect(id);
        let p = param_counts(&v.arch);
        let read = (p.active() - p.embedding) as f64;
        let bits = r["bits"].as_f64().unwrap();
        let group = r["group_size"].as_f64().unwrap_or(64.0);
        let per_param = if bits >= 16.0 {
            2.0
        } else {
            (bits + 32.0 / group) / 8.0
        };
        let ctx = match (r["prompt_tokens"].as_u64(), r["generation_tokens"].as_u64()) {
            (Some(p), Some(g)) => p + g / 2,
            _ => 512,
        };
        let e = estimate(
            &from_query(&format!(
                "model={id}&engine=mlx&ctx={ctx}&par=1&gpu=m2-ultra-192gb"
            ))
            .inputs,
        );
        let kv = e
            .terms
            .iter()
            .find(|t| t.name.id() == "kv_cache")
            .map_or(0, |t| t.bytes.get()) as f64;
        let bytes = read * per_param + kv / KV_EFF_RATIO;
        let bw = r["bw_gbs"].as_f64().unwrap();
        let est = predict(bytes, bw, MLX);
        let measured = r["generation_tps"].as_f64().unwrap();
        let err = est / measured - 1.0;
        let split = r["split"].as_str().unwrap();
        lines.push(format!(
            "{} {} ({split}): measured {measured}, estimated {est:.1} ({:+.0} %)",
            r["chip"].as_str().unwrap(),
            r["model"].as_str().unwrap(),
            err * 100.0
        ));
        match split {
            "fit" => fit.push(err.abs()),
            "held_out" => held.push(err.abs()),
            "moe_miss" => moe.push(err),
            other => panic!("split {other}"),
        }
    }
    let ((fm, fw), (hm, hw)) = report("mlx decode", &lines, &mut fit, &mut held);
    assert!(fit.len() == 3 && fm <= 0.03 && fw <= 0.03, "fit: {fw}");
    assert!(
        held.len() >= 8 && hm <= 0.10 && hw <= 0.5,
        "held out: {hm} {hw}"
    );
    assert!(
        moe.len() == 4 && moe.iter().all(|e| (0.35..0.6).contains(e)),
        "{moe:?}"
    );
    // End to end: the catalog's Qwen3-4B MLX-4bit (the Instruct-2507 shapes) on an M4 Max.
    let d =
        from_query("model=Qwen/Qwen3-4B&quant=MLX-4bit&engine=mlx&ctx=2112&par=1&gpu=m4-max-128gb");
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let sp = estimate(&d.inputs).speed.unwrap();
    assert_eq!(sp.efficiency, MLX.eff);
    assert!((sp.decode_tps / 134.52 - 1.0).abs() < 0.03, "{sp:?}");
}

/// Prefill on Apple GPUs (llama.cpp Metal): the LLaMA-2-7B `pp512` rows of llama.cpp discussion
/// #4167 (`metal_prefill`) for the chips whose FP16 throughput the GPU catalog holds, matched by
/// GPU core count (M1 Max 32, M2 Max 38, M2 Ultra 76, M3 Max 40 cores). The M2 Ultra and M3 Max
/// rows set `PREFILL_METAL` (each within 15 %); the M1 Max and M2 Max rows are held out: each
/// within 10 %. End to end, the estimator gives the catalog's M2 Ultra a prefill speed.
#[test]
fn metal_prefill_rows() {
    use fitcard_estimator::serve::speed::{prefill_token_s, PREFILL_METAL, UNIFIED};
    let data = speed_data();
    let chips = [
        ("M1 Max", 32, "m1-max-64gb", false),
        ("M2 Max", 38, "m2-max-96gb", false),
        ("M2 Ultra", 76, "m2-ultra-192gb", true),
        ("M3 Max", 40, "m3-max-128gb", true),
    ];
    let (mut fit, mut held, mut lines) = (Vec::new(), Vec::new(), Vec::new());
    for r in data["metal_prefill"].as_array().unwrap() {
        assert!(r["url"].as_str().unwrap().starts_with("https://"));
        let Some(&(chip, cores, id, fit_row)) = chips
            .iter()
            .find(|c| r["chip"] == c.0 && r["gpu_cores"] == c.1)
        else {
            continue;
        };
        let g = catalog().gpu(id).unwrap();
        let tflops = g.fp16_tflops.unwrap();
        // LLaMA-2-7B: 6.74e9 parameters less the embedding and the output head (32016 × 4096
        // each); 32 heads × 32 layers scoring a 512-token causal prompt.
        let p = 6.74e9 - 2.0 * 32_016.0 * 4096.0;
        let scores = 32.0 * 32.0 * 512.0 / 2.0;
        let t = prefill_token_s(
            2.0 * p,
            scores,
            tflops,
            PREFILL_METAL,
            0.0,
            UNIFIED.eff * g.bandwidth_gbs.unwrap() * 1e9,
        );
        let (est, tps) = (1.0 / t, r["pp512_tps"].as_f64().unwrap());
        let err = est / tps - 1.0;
        lines.push(format!(
            "{chip} {cores} cores {} pp512: measured {tps}, estimated {est:.0} ({:+.0} %)",
            r["quant"].as_str().unwrap(),
            err * 100.0
        ));
        if fit_row { &mut fit } else { &mut held }.push(err.abs());
    }
    let ((_, fw), (hm, hw)) = report("Metal prefill", &lines, &mut fit, &mut held);
    assert!(fit.len() == 6 && fw <= 0.15, "fit: {fw}");
    assert!(held.len() == 6 && hw <= 0.10, "held out: {hm} {hw}");
    let sp = estimate(
        &from_query(
            "model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&gpu=m2-ultra-192gb&ctx=512",
        )
        .inputs,
    )
    .speed
    .unwrap();
    assert!(
        sp.prefill_tps.is_some_and(|t| (600.0..2000.0).contains(&t)),
        "{sp:?}"
    );
    let mlx = estimate(
        &from_query("model=Qwen/Qwen3-4B&quant=MLX-4bit&engine=mlx&gpu=m2-ultra-192gb&ctx=512")
            .inputs,
    )
    .speed
    .unwrap();
    assert!(mlx.prefill_tps.is_none(), "MLX's prefill is not fitted");
}

/// A CPU-only machine (a `host` entry of the GPU list): the whole file in RAM (no host-resident
/// embedding, no tied copy), nothing spills, decode at `HOST_EFF` of the RAM's bandwidth
/// (`ram_bw=` overrides the entry's), no prefill estimate, `-ngl 0` / `num_gpu 0` in the
/// commands, and GPU-only engines and several "cards" refused.
#[test]
fn cpu_only_machine() {
    use fitcard_estimator::serve::speed::HOST_EFF;
    let q =
        "model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&gpu=cpu-ddr5-5600-64gb&ctx=4096&par=1";
    let d = from_query(q);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let e = estimate(&d.inputs);
    let (_, v) = catalog()
        .variant("meta-llama/Llama-3.1-8B-Instruct")
        .unwrap();
    let file = v
        .formats
        .iter()
        .find(|f| {
            f.id == d.inputs.quant
                && f.container == fitcard_estimator::catalog::quant::Container::Gguf
        })
        .unwrap()
        .bytes;
    let term = |id: &str| e.terms.iter().find(|t| t.name.id() == id).map(|t| t.bytes);
    assert_eq!(term("weights"), Some(file));
    assert_eq!(term("weights_host"), None);
    assert!(e.fits, "{:?}", e.checks);
    assert!(e.command.contains(" -ngl 0 "), "{}", e.command);
    let sp = e.speed.clone().unwrap();
    assert_eq!((sp.efficiency, sp.bandwidth_gbs), (HOST_EFF, 89.6));
    assert!(sp.prefill_tps.is_none() && sp.offloaded_layers == 0);
    // An 8B Q4_K_M model reads about 4.6 GB per token: about 11 tokens/s at 0.603 × 89.6 GB/s.
    assert!((9.0..13.0).contains(&sp.decode_tps), "{sp:?}");
    let slow = estimate(&from_query(&format!("{q}&ram_bw=51.2")).inputs)
        .speed
        .unwrap();
    assert!(
        (sp.decode_tps / slow.decode_tps - 89.6 / 51.2).abs() < 0.01,
        "{slow:?}"
    );
    // Too big for the RAM: it does not fit, and nothing is said to spill.
    let big = estimate(
        &from_query("model=Qwen/Qwen3-32B&quant=Q8_0&gpu=cpu-ddr5-5600-32gb&ctx=4096&par=1").inputs,
    );
    assert!(!big.fits && big.speed.unwrap().offloaded_layers == 0);
    assert!(big.command.contains(" -ngl 0 "), "{}", big.command);
    // GPU engines and card pools are refused.
    for bad in [
        format!("{q}&engine=vllm&quant=BF16"),
        format!("{q}&cards=2"),
    ] {
        let e = estimate(&from_query(&bad).inputs);
        assert!(
            e.checks
                .iter()
                .any(|c| c.name.id() == "engine_supports" && !c.ok),
            "{bad}: {:?}",
            e.checks
        );
    }
    let ol = estimate(&from_query(&format!("{q}&engine=ollama")).inputs);
    assert!(ol.command.contains("PARAMETER num_gpu 0"), "{}", ol.command);
}

/// vLLM at one request (`vllm_decode` rows with a `catalog_query`): the two `fit` rows (Qwen2.5
/// 7B and 14B BF16 on one A100 80GB, vLLM 0.6.3) set `VLLM_HBM`, each within 1 %; the
/// `held_out` rows (Qwen2.5-3B, 32B, 7B at 6K and 30K tokens, 72B on 2 and 4 cards under tensor
/// parallelism, Llama-3.1-8B on an A100 40GB and an H100): median within 20 %, each within a
/// factor 1.5. Under the llama.cpp HBM fit the same rows were 10–30 % low.
#[test]
fn vllm_single_request_rows() {
    use fitcard_estimator::serve::speed::VLLM_HBM;
    let data = speed_data();
    let rows = data["vllm_decode"].as_array().expect("vllm_decode rows");
    assert!(rows.len() >= 20);
    let (mut fit, mut held, mut lines) = (Vec::new(), Vec::new(), Vec::new());
    for r in rows {
        assert!(r["url"].as_str().unwrap().starts_with("http"));
        assert!(!r["quote"].as_str().unwrap_or_default().is_empty());
        let Some(q) = r["catalog_query"].as_str() else {
            continue;
        };
        let (sp, err) = end_to_end(q, r["decode_tps"].as_f64().unwrap(), &mut lines);
        assert_eq!(sp.efficiency, VLLM_HBM.eff, "{q}");
        if r["split"] == "fit" {
            &mut fit
        } else {
            &mut held
        }
        .push(err.abs());
    }
    let ((_, fw), (hm, hw)) = report("vLLM decode", &lines, &mut fit, &mut held);
    assert!(fit.len() == 2 && fw <= 0.01, "fit: {fw}");
    assert!(
        held.len() >= 7 && hm <= 0.20 && hw <= 0.5,
        "held out: {hm} {hw}"
    );
}

/// MoE active parameters from the architecture against the counts the vendors publish. Vendors
/// differ on whether the token embedding counts as active (OpenAI and Zhipu leave it out,
/// DeepSeek and Qwen keep it in), so a count matches if either reading is within 7 %.
#[test]
fn moe_active_parameters_match_the_published_counts() {
    let rows = [
        (
            "deepseek-ai/DeepSeek-V3-0324",
            37.0,
            "https://huggingface.co/deepseek-ai/DeepSeek-V3",
        ),
        (
            "moonshotai/Kimi-K2-Instruct-0905",
            32.0,
            "https://huggingface.co/moonshotai/Kimi-K2-Instruct-0905",
        ),
        (
            "zai-org/GLM-4.5",
            32.0,
            "https://huggingface.co/zai-org/GLM-4.5",
        ),
        (
            "zai-org/GLM-4.5-Air",
            12.0,
            "https://huggingface.co/zai-org/GLM-4.5-Air",
        ),
        (
            "openai/gpt-oss-120b",
            5.1,
            "https://huggingface.co/openai/gpt-oss-120b",
        ),
        (
            "openai/gpt-oss-20b",
            3.6,
            "https://huggingface.co/openai/gpt-oss-20b",
        ),
        (
            "Qwen/Qwen3-30B-A3B",
            3.3,
            "https://huggingface.co/Qwen/Qwen3-30B-A3B",
        ),
        (
            "Qwen/Qwen3-235B-A22B",
            22.0,
            "https://huggingface.co/Qwen/Qwen3-235B-A22B",
        ),
        (
            "meta-llama/Llama-4-Scout-17B-16E-Instruct",
            17.0,
            "https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct",
        ),
        (
            "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
            17.0,
            "https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E-Instruct",
        ),
        (
            "MiniMaxAI/MiniMax-M2",
            10.0,
            "https://huggingface.co/MiniMaxAI/MiniMax-M2",
        ),
        (
            "deepseek-ai/DeepSeek-V3.1",
            37.0,
            "https://huggingface.co/deepseek-ai/DeepSeek-V3.1",
        ),
        (
            "deepseek-ai/DeepSeek-V3",
            37.0,
            "https://huggingface.co/deepseek-ai/DeepSeek-V3",
        ),
        (
            "deepseek-ai/DeepSeek-R1",
            37.0,
            "https://huggingface.co/deepseek-ai/DeepSeek-R1",
        ),
        (
            "Qwen/Qwen3-Coder-480B-A35B-Instruct",
            35.0,
            "https://huggingface.co/Qwen/Qwen3-Coder-480B-A35B-Instruct",
        ),
        (
            "Qwen/Qwen3-Coder-30B-A3B-Instruct",
            3.3,
            "https://huggingface.co/Qwen/Qwen3-Coder-30B-A3B-Instruct",
        ),
        (
            "Qwen/Qwen3-235B-A22B-Instruct-2507",
            22.0,
            "https://huggingface.co/Qwen/Qwen3-235B-A22B-Instruct-2507",
        ),
        (
            "Qwen/Qwen3-30B-A3B-Instruct-2507",
            3.3,
            "https://huggingface.co/Qwen/Qwen3-30B-A3B-Instruct-2507",
        ),
        (
            "mistralai/Mixtral-8x7B-Instruct-v0.1",
            12.9,
            "https://mistral.ai/news/mixtral-of-experts",
        ),
        (
            "mistralai/Mixtral-8x22B-Instruct-v0.1",
            39.0,
            "https://mistral.ai/news/mixtral-8x22b",
        ),
    ];
    let mut bad = Vec::new();
    let mut errs = Vec::new();
    for (id, published, url) in rows {
        assert!(url.starts_with("https://"));
        let (_, v) = catalog().variant(id).expect(id);
        let p = param_counts(&v.arch);
        let with = p.active() as f64 / 1e9;
        let without = (p.active() - p.embedding) as f64 / 1e9;
        let err = ((with - published) / published)
            .abs()
            .min(((without - published) / published).abs());
        errs.push(err);
        if err > 0.07 {
            bad.push(format!(
                "{id}: {with:.2}B / {without:.2}B computed, {published}B published"
            ));
        }
    }
    errs.sort_by(f64::total_cmp);
    println!(
        "active params: median {:.1} %, worst {:.1} %",
        errs[errs.len() / 2] * 100.0,
        errs[errs.len() - 1] * 100.0
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // DeepSeek-V3 before the layout fields: every layer MoE, no shared expert, attention and
    // head ignored, about 3 % of the weights; now about 5.6 %.
    let (_, v) = catalog().variant("deepseek-ai/DeepSeek-V3-0324").unwrap();
    let p = param_counts(&v.arch);
    let share = p.active() as f64 / p.total() as f64;
    assert!((0.05..0.06).contains(&share), "{share}");
}

/// Decode at depth: llama.cpp's DGX Spark llama-bench rows (`tg32 @ d0 … d32768`, each with its
/// URL in `data/speed.json`) through the estimator end to end: active bytes from the
/// catalog file, the KV term at that context read at `KV_EFF_RATIO` of the weights' bandwidth.
/// `KV_EFF_RATIO` was fitted on the gpt-oss-120b and Qwen3-Coder rows; gpt-oss-20b and
/// Qwen2.5-Coder-7B are held out.
#[test]
fn dgx_spark_depth_rows_within_fifteen_percent() {
    let data = speed_data();
    let rows = data["depth"].as_array().expect("depth rows");
    assert!(rows.len() >= 20);
    let mut bad = Vec::new();
    let (mut fit, mut held) = (Vec::new(), Vec::new());
    // Step time at d0 and d32768 per model, measured and estimated: the context slope.
    let mut ends: std::collections::BTreeMap<String, [f64; 4]> = Default::default();
    for r in rows {
        assert!(r["url"].as_str().unwrap().starts_with("https://"));
        let depth = r["depth"].as_u64().unwrap();
        let q = r["catalog_query"].as_str().expect("catalog_query");
        assert!(q.ends_with(&format!("&ctx={}", depth + 32)), "{q}");
        let s = estimate(&from_query(q).inputs).speed.expect(q);
        let tps = r["tokens_per_s"].as_f64().unwrap();
        let err = (s.decode_tps - tps) / tps;
        if r["split"] == "held_out" {
            held.push(err.abs());
        } else {
            fit.push(err.abs());
        }
        if err.abs() > 0.15 {
            bad.push(format!(
                "{q}: {tps} measured, {:.1} estimated",
                s.decode_tps
            ));
        }
        let e = ends
            .entry(r["model"].as_str().unwrap().to_string())
            .or_default();
        match depth {
            0 => (e[0], e[1]) = (1.0 / tps, 1.0 / s.decode_tps),
            32768 => (e[2], e[3]) = (1.0 / tps, 1.0 / s.decode_tps),
            _ => {}
        }
    }
    // The mechanism on its own: the time 32768 cached tokens add per generated token.
    for (m, [m0, e0, m1, e1]) in &ends {
        let (measured, estimated) = (m1 - m0, e1 - e0);
        println!(
            "{m}: +{:.2} ms measured, +{:.2} ms estimated at d32768",
            measured * 1e3,
            estimated * 1e3
        );
        if ((estimated - measured) / measured).abs() > 0.15 {
            bad.push(format!("{m}: context slope off"));
        }
    }
    for (name, v) in [("fit", &mut fit), ("held out", &mut held)] {
        v.sort_by(f64::total_cmp);
        println!(
            "depth rows, {name}: {} rows, median {:.1} %, worst {:.1} %",
            v.len(),
            v[v.len() / 2] * 100.0,
            v[v.len() - 1] * 100.0
        );
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The start of a conversation (`Speed::decode_tps_start`): the same configuration at its
/// deepest measured context (`tg32 @ d32768`, ctx 32800), with no KV cache read yet, against the
/// same model's `tg32` row at an empty cache (llama.cpp's DGX Spark benchmark, `data/speed.json`):
/// each within 15 %, as the depth rows themselves; and never slower than at the full context.
#[test]
fn the_start_of_a_conversation_reads_as_an_empty_cache() {
    let data = speed_data();
    let rows = data["depth"].as_array().expect("depth rows");
    let mut checked = 0;
    for r in rows.iter().filter(|r| r["depth"] == 0) {
        let model = r["model"].as_str().unwrap();
        let deep = rows
            .iter()
            .find(|d| d["model"] == model && d["depth"] == 32768)
            .expect("a d32768 row beside each d0 row");
        let q = deep["catalog_query"].as_str().unwrap();
        let s = estimate(&from_query(q).inputs).speed.expect(q);
        assert!(s.decode_tps_start > s.decode_tps, "{q}: {s:?}");
        let tps = r["tokens_per_s"].as_f64().unwrap();
        let err = (s.decode_tps_start - tps) / tps;
        println!(
            "{model}: {tps} tokens/s measured at d0, {:.1} estimated at the start of a 32K context ({:+.1} %)",
            s.decode_tps_start,
            err * 100.0
        );
        assert!(
            err.abs() <= 0.15,
            "{q}: {tps} measured, {:.1}",
            s.decode_tps_start
        );
        checked += 1;
    }
    assert!(checked >= 4, "{checked} models");
}

/// Tensor parallelism: two all-reduces per layer, latency-bound at batch 1; more on PCIe than
/// over NVLink; nothing on one card. Unvalidated against a decode measurement (module docs).
#[test]
fn tensor_parallel_communication_term() {
    let (_, v) = catalog()
        .variant("meta-llama/Llama-3.1-70B-Instruct")
        .unwrap();
    assert_eq!(tp_comm_s(&v.arch, 1, MemoryKind::Gddr), 0.0);
    let pcie = tp_comm_s(&v.arch, 2, MemoryKind::Gddr);
    let nvlink = tp_comm_s(&v.arch, 2, MemoryKind::Hbm);
    // 160 all-reduces of 16 KiB: ~7 ms over PCIe, ~1 ms over NVLink.
    assert!((0.006..0.009).contains(&pcie), "{pcie}");
    assert!((0.0009..0.0012).contains(&nvlink), "{nvlink}");
}

/// Every catalog variant with experts records its layer layout (`moe`), so that decode reads
/// the dense first layers and the shared experts its config has. A plain layout (every layer
/// routed, nothing shared: Mixtral, Qwen3-MoE, gpt-oss, MiniMax-M2) is written out explicitly.
/// The layout agrees with what the variant's cited config says: `first_k_dense_replace N` in
/// the source means N dense layers, a shared expert named there means a shared FFN width, and a
/// plain layout's source says that nothing is shared.
#[test]
fn every_moe_variant_records_its_layer_layout() {
    let mut bad = Vec::new();
    let mut n = 0;
    for f in &catalog().families {
        for v in f.variants.iter().filter(|v| v.arch.is_moe()) {
            n += 1;
            let a = &v.arch;
            let Some(m) = a.moe else {
                bad.push(format!("{}: {} experts but no moe layout", v.id, a.experts));
                continue;
            };
            let src = a.source.to_ascii_lowercase();
            // DeepSeek-style `first_k_dense_replace N`, LFM2-MoE's `num_dense_layers N`.
            let dense = ["first_k_dense_replace ", "num_dense_layers "]
                .iter()
                .find_map(|key| src.split(key).nth(1))
                .and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|d| d.parse::<u32>().ok())
                .unwrap_or(0);
            if m.dense_layers != dense {
                bad.push(format!(
                    "{}: moe.dense_layers {} but the source says first_k_dense_replace {dense}",
                    v.id, m.dense_layers
                ));
            }
            let none_shared = src.contains("no shared expert") || src.contains("none shared");
            let shared = !none_shared && src.contains("shared expert");
            if shared != (m.shared_ffn > 0) {
                bad.push(format!(
                    "{}: moe.shared_ffn {} but the source {} a shared expert",
                    v.id,
                    m.shared_ffn,
                    if shared { "names" } else { "names no" }
                ));
            }
            if m.dense_layers >= a.layers || m.step == 0 || m.step > 4 {
                bad.push(format!("{}: implausible layout {m:?}", v.id));
            }
        }
    }
    assert!(n >= 20, "{n} MoE variants");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn stats(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[v.len() - 1])
}

/// Prefill against the published `pp512` llama-bench rows (`data/speed.json`): the
/// efficiencies of `fitcard_estimator::serve::speed` were fitted on the Llama-3-8B rows; the 70B rows
/// and the CodeLlama/LLaMA-7B rows of llama.cpp PR #4766 are held out. Rows with a caution are
/// known outliers of their notebook and must stay misses.
#[test]
fn llama_bench_prefill_rows() {
    const NEW_CARDS: [&str; 2] = ["rtx-3080-10gb", "rtx-6000-ada"];
    use fitcard_estimator::serve::speed::{
        prefill_token_s, PREFILL_GDDR, PREFILL_HBM, SCORE_FLOPS, UBATCH,
    };
    let data = speed_data();
    let (mut fit, mut held) = (Vec::new(), Vec::new());
    let mut bad = Vec::new();
    let mut lines = Vec::new();
    for r in data["llama_bench"].as_array().unwrap() {
        if r["test"] != "pp512" {
            continue;
        }
        assert!(r["url"].as_str().unwrap().starts_with("https://"));
        let Some(gpu) = r["gpu"].as_str().and_then(|id| catalog().gpu(id)) else {
            continue;
        };
        let (Some(tflops), Some(bw)) = (gpu.fp16_tflops, gpu.bandwidth_gbs) else {
            continue;
        };
        // Parameters a prompt token goes through (printed count less the embedding and the
        // output head, `vocab × hidden` each), layers and query heads of the printed model.
        let printed = r["model_printed"].as_str().unwrap();
        let (params, vocab, hidden, layers, heads, fit_row) = if printed.contains("70B") {
            (70.55e9, 128_256.0, 8192.0, 80.0, 64.0, false)
        } else if printed.contains("8B") {
            (8.03e9, 128_256.0, 4096.0, 32.0, 32.0, true)
        } else {
            (6.74e9, 32_016.0, 4096.0, 32.0, 32.0, false)
        };
        let p = params - 2.0 * vocab * hidden;
        let quant = r["quant"].as_str().unwrap();
        let per_value = match quant {
            "F16" => 2.0,
            "Q8_0" => 34.0 / 32.0,
            "Q4_0" => 18.0 / 32.0,
            _ => 4.85 / 8.0,
        };
        let (pfit, dfit) = match gpu.memory_kind {
            MemoryKind::Hbm => (PREFILL_HBM, HBM),
            _ => (PREFILL_GDDR, GDDR),
        };
        let dequant = if quant == "F16" {
            0.0
        } else {
            p * per_value + 2.0 * p
        };
        let scores = heads * layers * 512.0 / 2.0;
        let t = prefill_token_s(2.0 * p, scores, tflops, pfit, dequant, dfit.eff * bw * 1e9);
        let (est, tps) = (1.0 / t, r["tokens_per_s"].as_f64().unwrap());
        let err = (est - tps) / tps;
        lines.push(format!(
            "{} {printed} pp512: {tps} measured, {est:.0} estimated ({:+.0} %)",
            gpu.id,
            err * 100.0
        ));
        if r.get("caution").is_some_and(|c| !c.is_null()) {
            if err.abs() < 0.5 {
                bad.push(format!("{}: the known miss is gone", gpu.id));
            }
            continue;
        }
        // Cards whose FP16 throughput entered the catalog after the fit (RTX 3080, RTX 6000
        // Ada) are held out even for their 8B rows.
        let fit_row = fit_row && !NEW_CARDS.contains(&gpu.id.as_str());
        // The RTX 6000 Ada: the AD102 of the RTX 4090 with more SMs at 300 W instead of 450 W.
        // NVIDIA's 364 TFLOPS assume the 2.5 GHz boost clock, which the card cannot hold under
        // sustained tensor load at its power limit, so the compute-bound estimate runs high
        // (8B F16: 6663 t/s against the 4090's 9382, though the spec says 10 % faster). A named
        // miss: reported, kept out of the medians, and it must stay an over-estimate.
        if gpu.id == "rtx-6000-ada" {
            if est <= tps {
                bad.push(format!(
                    "{}: the power-limit miss is gone",
                    lines.last().unwrap()
                ));
            }
            continue;
        }
        if fit_row { &mut fit } else { &mut held }.push(err.abs());
        // Every row within a factor 1.7; the H100 PCIe is the named miss (module docs).
        if !(1.0 / 1.7..=1.7).contains(&(est / tps)) {
            bad.push(lines.last().unwrap().clone());
        }
    }
    println!("{}", lines.join("\n"));
    let (fm, fw) = stats(&mut fit);
    let (hm, hw) = stats(&mut held);
    println!(
        "prefill pp512, fit: {} rows, median {:.0} %, worst {:.0} %; held out: {} rows, median {:.0} %, worst {:.0} %",
        fit.len(),
        fm * 100.0,
        fw * 100.0,
        held.len(),
        hm * 100.0,
        hw * 100.0
    );
    assert!(
        fit.len() >= 12 && held.len() >= 9,
        "{} {}",
        fit.len(),
        held.len()
    );
    assert!(
        hm <= 0.20 && hw <= 0.30,
        "held out: median {hm}, worst {hw}"
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let _ = (SCORE_FLOPS, UBATCH);
}

/// Prefill at depth on the DGX Spark (`pp2048 @ d0 … d32768`, llama.cpp's benchmark, each row
/// with its URL): end to end through the estimator, the weights at the GB10 efficiency and the
/// attention scores at `SCORE_FLOPS` each. The efficiency is fitted on the dense
/// Qwen2.5-Coder-7B rows; the MoE rows (gpt-oss-20b/120b, Qwen3-Coder-30B-A3B) are held out and
/// run slower than estimated (few tokens per routed expert, module docs): within a factor 2.2.
#[test]
fn dgx_spark_prefill_depth_rows() {
    use fitcard_estimator::serve::speed::{prefill_scores, prefill_token_s, PREFILL_GB10};
    let data = speed_data();
    let rows = data["prefill_depth"].as_array().expect("prefill rows");
    assert!(rows.len() >= 20);
    let (mut fit, mut held) = (Vec::new(), Vec::new());
    let mut bad = Vec::new();
    let spark = catalog().gpu("dgx-spark").unwrap();
    for r in rows {
        assert!(r["url"].as_str().unwrap().starts_with("https://"));
        let id = r["model"].as_str().unwrap();
        let (_, v) = catalog().variant(id).expect(id);
        let depth = r["depth"].as_u64().unwrap();
        let flops = fitcard_estimator::serve::speed::prefill_weight_flops(&v.arch);
        let scores = prefill_scores(&v.arch, 2048, depth) / 2048.0;
        let t = prefill_token_s(
            flops,
            scores,
            spark.fp16_tflops.unwrap(),
            PREFILL_GB10,
            0.0,
            1.0,
        );
        let tps = r["tokens_per_s"].as_f64().unwrap();
        let err = (1.0 / t - tps) / tps;
        println!(
            "{id} pp2048 @ d{depth}: {tps} measured, {:.0} estimated ({:+.0} %)",
            1.0 / t,
            err * 100.0
        );
        if r["split"] == "fit" {
            fit.push(err.abs());
        } else {
            held.push(err.abs());
        }
        if !(1.0 / 2.2..=2.2).contains(&(1.0 / t / tps)) {
            bad.push(format!("{id} d{depth}"));
        }
    }
    let (fm, fw) = stats(&mut fit);
    let (hm, hw) = stats(&mut held);
    println!(
        "DGX Spark prefill, fit: median {:.0} %, worst {:.0} %; held out: {} rows, median {:.0} %, worst {:.0} %",
        fm * 100.0,
        fw * 100.0,
        held.len(),
        hm * 100.0,
        hw * 100.0
    );
    assert!(fw <= 0.20, "fit rows: worst {fw}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // End to end: the estimator's own prefill for the fitted model at a 2048-token context.
    let e = estimate(
        &from_query(
            "model=Qwen/Qwen3-Coder-30B-A3B-Instruct&quant=Q8_0&gpu=dgx-spark&engine=llama.cpp&ctx=2048",
        )
        .inputs,
    );
    let p = e
        .speed
        .and_then(|s| s.prefill())
        .expect("prefill on the DGX Spark");
    assert!((2500.0..7000.0).contains(&p.prefill_tps), "{p:?}");
    assert!((p.ttft_s - 2048.0 / p.prefill_tps).abs() < 1e-9);
}

/// The estimator's prefill: an 8B model on an RTX 4090 in the thousands of tokens per second,
/// the first token of a long prompt later than of a short one (attention grows with the
/// square of the prompt), layers in host memory streamed over PCIe each micro-batch, and no
/// prefill where the card's throughput is unknown.
#[test]
fn estimator_prefill() {
    let p = |q: &str| {
        estimate(&from_query(q).inputs)
            .speed
            .and_then(|s| s.prefill())
    };
    let short = p("model=meta-llama/Llama-3.1-8B-Instruct&ctx=4096").expect("4090");
    assert!((3000.0..12000.0).contains(&short.prefill_tps), "{short:?}");
    let long = p("model=meta-llama/Llama-3.1-8B-Instruct&ctx=65536").expect("4090");
    assert!(long.prefill_tps < short.prefill_tps && long.ttft_s > 16.0 * short.ttft_s);
    let spill = p("model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&ctx=4096").expect("spill");
    let fits = p("model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&ctx=4096&gpu=h100-sxm")
        .expect("h100");
    assert!(spill.prefill_tps < fits.prefill_tps, "{spill:?} {fits:?}");
    assert!(p("vram=24").is_none());
    // Apple: llama.cpp's Metal has a fit (`metal_prefill_rows`); a chip without an FP16
    // throughput in the catalog has no prefill estimate.
    assert!(p("model=meta-llama/Llama-3.1-8B-Instruct&gpu=m2-ultra-192gb").is_some());
    assert!(p("model=meta-llama/Llama-3.1-8B-Instruct&gpu=m4-max-128gb").is_none());
    // The JSON speed object carries both.
    let e = estimate(&from_query("model=meta-llama/Llama-3.1-8B-Instruct&ctx=4096").inputs);
    let j = serde_json::to_value(&e).unwrap();
    assert!(j["speed"]["decode_tps"].as_f64().is_some());
    assert!(j["speed"]["prefill_tps"].as_f64().is_some());
    assert!(j["speed"]["ttft_s"].as_f64().is_some());
}
