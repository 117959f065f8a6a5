//! Plain-text tables (binary units: 1 GiB = 2^30 bytes).
use fitcard_estimator::train::{TrainCandidate, TrainEstimate};
use fitcard_estimator::{Bytes, Candidate, Estimate};

/// `fitcard estimate`: the terms, the cards, the layouts, the verdict, the speed, the checks and
/// the commands, in that order.
pub fn estimate(e: &Estimate) -> String {
    let mut s = format!("{} {} on {}\n", e.model, e.quant, e.engine);
    s.push_str(&terms(e));
    for c in &e.per_card {
        s.push_str(&format!(
            "  card {}: {} of {}\n",
            c.index, c.bytes, c.budget
        ));
    }
    s.push_str(&layouts(e));
    s.push_str(&format!("verdict: {}", e.verdict.label()));
    if let Some(why) = e.lead_reason() {
        s.push_str(&format!(": {why}"));
    }
    s.push('\n');
    if let Some(sp) = e.shown_speed() {
        s.push_str(&speed(e, sp));
    }
    s.push_str(&checks(e));
    s.push_str(&commands(e));
    s
}

/// One line a memory term (its bytes, where they live, its formula), and a second where the
/// term is outside its checked domain.
fn terms(e: &Estimate) -> String {
    let mut s = String::new();
    for t in &e.terms {
        let place = match t.place {
            fitcard_estimator::terms::Place::Device => "card",
            fitcard_estimator::terms::Place::Host => "host",
        };
        s.push_str(&format!(
            "  {:<14} {:>12}  [{place}]  {}\n",
            t.name,
            t.bytes.to_string(),
            t.formula
        ));
        if let Some(d) = &t.outside_domain {
            s.push_str(&format!("  {:<14} outside its checked domain: {d}\n", ""));
        }
    }
    s
}

/// The tensor × pipeline parallel layouts tried, when there are any.
fn layouts(e: &Estimate) -> String {
    if e.layouts.is_empty() {
        return String::new();
    }
    let mut s = "  layouts (tensor × pipeline parallel, memory on the fullest GPU):\n".to_string();
    for l in &e.layouts {
        let stages: Vec<String> = l.stage_layers.iter().map(u64::to_string).collect();
        s.push_str(&format!(
            "    tp {} × pp {} (layers {}): {} of {}, {}{}{}\n",
            l.tp,
            l.pp,
            stages.join("+"),
            l.per_gpu_bytes,
            l.budget,
            if l.fits {
                "fits"
            } else if l.valid {
                "does not fit"
            } else {
                "cannot start"
            },
            l.reason
                .as_deref()
                .map_or(String::new(), |r| format!(": {r}")),
            if l.chosen { " [used]" } else { "" }
        ));
    }
    s
}

/// The speed lines: decode (with what it rests on), prefill, the layers left in system RAM and
/// a published measurement of this model, each where known.
fn speed(e: &Estimate, sp: &fitcard_estimator::estimate::Speed) -> String {
    let mut s = format!(
        "speed: ≈{:.0} tokens/s per request, {:.0} over all requests (decode at the full context; {})\n  ≈{:.0} tokens/s per request at the start of a conversation (no KV cache read yet)\n",
        sp.decode_tps,
        sp.aggregate_tps,
        speed_basis(e, sp),
        sp.decode_tps_start,
    );
    if let Some(x) = &sp.spec_speedup {
        s.push_str(&format!(
            "  with speculative decoding: published runs of this method on this engine measured {}× to {}× this speed (its own gain depends on how often the drafts are accepted)\n",
            fitcard_estimator::units::Shortest(x.low),
            fitcard_estimator::units::Shortest(x.high),
        ));
    }
    if let Some(pf) = sp.prefill() {
        s.push_str(&format!(
            "  prefill ≈{:.0} tokens/s, first token after ≈{:.2} s for a prompt that fills the context (batch 1)\n",
            pf.prefill_tps, pf.ttft_s
        ));
    }
    if sp.offloaded_bytes > 0 {
        // vLLM's card reads its offloaded experts over PCIe; llama.cpp's CPU reads from RAM.
        let read = if e.engine == fitcard_estimator::Engine::Vllm.id() {
            format!(
                "read by the card over PCIe at {} GB/s",
                fitcard_estimator::units::Shortest(fitcard_estimator::serve::speed::PCIE_GBS)
            )
        } else {
            format!(
                "read at {} of {} GB/s",
                fitcard_estimator::units::Shortest(sp.ram_efficiency),
                fitcard_estimator::units::Shortest(sp.ram_bw_gbs)
            )
        };
        s.push_str(&format!(
            "  {} layer(s){} ({}) stay in system RAM, {read}: ≈{:.1} tokens/s instead of {:.0} with everything on the card\n",
            sp.offloaded_layers,
            match e.offload.map_or(0, |o| o.expert_layers) {
                0 => String::new(),
                n => format!(" and the routed experts of {n} more"),
            },
            fitcard_estimator::Bytes(sp.offloaded_bytes),
            sp.decode_tps,
            sp.on_card_tps
        ));
    }
    if let Some(m) = &sp.measured {
        s.push_str(&format!("  measured: {m}: {}\n", m.url));
    }
    s
}

/// What the decode speed rests on, by engine (and CPU only).
fn speed_basis(e: &Estimate, sp: &fitcard_estimator::estimate::Speed) -> String {
    if e.engine == "mlx" {
        "median 7 % on mlx-lm's published dense-model runs; mixture-of-experts models run a third slower".to_string()
    } else if matches!(e.engine, "vllm" | "sglang") {
        "median 15 % on published single-request vLLM runs of dense BF16 models on HBM cards"
            .to_string()
    } else if sp.efficiency == fitcard_estimator::serve::speed::CPU.eff {
        format!(
            "CPU only: the weights read at {} of the RAM's bandwidth, the median of published CPU-only llama.cpp runs",
            fitcard_estimator::units::Shortest(fitcard_estimator::serve::speed::HOST_EFF)
        )
    } else if e.engine == "transformers" {
        "llama.cpp's bandwidth fit (±20 % on its published runs); no transformers run compared"
            .to_string()
    } else {
        "±20 % on the published llama.cpp runs".to_string()
    }
}

/// The checks (`ok`, `FAIL` or `info`) and the warnings.
fn checks(e: &Estimate) -> String {
    let mut s = String::new();
    for c in &e.checks {
        let mark = match (c.ok, c.severity) {
            (true, _) => "ok",
            (false, fitcard_estimator::estimate::Severity::Hard) => "FAIL",
            (false, fitcard_estimator::estimate::Severity::Info) => "info",
        };
        s.push_str(&format!("  [{mark}] {}: {}\n", c.name, c.message));
    }
    for w in &e.warnings {
        s.push_str(&format!("  warning: {w}\n"));
    }
    s
}

/// The command for the engine, then the same model on each other engine.
fn commands(e: &Estimate) -> String {
    let mut s = String::new();
    if !e.command.is_empty() {
        s.push_str(&format!(
            "command:\n  {}\n",
            e.command.replace('\n', "\n  ")
        ));
    }
    for c in e.commands.iter().skip(1) {
        s.push_str(&format!(
            "on {} ({} on the fullest card, {}):\n  {}\n",
            c.engine,
            c.device_bytes,
            if c.fits { "fits" } else { "does not fit" },
            c.command.replace('\n', "\n  ")
        ));
        for d in &c.differs {
            s.push_str(&format!("  (on {}: {d})\n", c.engine));
        }
    }
    s
}

pub fn train(e: &TrainEstimate) -> String {
    let mut s = estimate(&e.estimate);
    s.push_str(&format!(
        "trainer profile: {}{}\n",
        e.trainer,
        if e.trainer == fitcard_estimator::inputs::Trainer::UnslothFormula {
            " (Unsloth's published formula)"
        } else {
            ""
        }
    ));
    s.push_str(&format!(
        "GPUs: {} (device_map {})\n",
        e.selection.message, e.selection.device_map
    ));
    s
}

pub fn rank(r: &[Candidate]) -> String {
    let mut s = format!(
        "{:>3}  {:<40} {:<8} {:>12} {:>11} {:>7}  reason\n",
        "#", "model", "format", "on card", "headroom", "tok/s"
    );
    for (n, c) in r.iter().enumerate() {
        s.push_str(&format!(
            "{:>3}  {:<40} {:<8} {:>12} {:>12} {:>7}  {}\n",
            n + 1,
            c.model,
            c.quant,
            c.device_bytes.to_string(),
            c.headroom.to_string(),
            // "-": a model that generates nothing (embedding, reranking); "?": unknown.
            match c.decode_tps {
                Some(t) => format!("{t:.0}"),
                None if fitcard_estimator::catalog::task_of(&c.model).is_some() => "-".into(),
                None => "?".into(),
            },
            if c.fits {
                c.verdict.label().to_string()
            } else {
                c.reasons.join("; ")
            }
        ));
    }
    s
}

pub fn best(b: &fitcard_estimator::best::Best) -> String {
    let mut s = match &b.evaluation {
        Some((name, date, url)) => format!("ordered by {name} ({date}, {url})\n"),
        None => "no cross-family evaluation in this build: family order\n".to_string(),
    };
    s.push_str(&format!(
        "{:>3}  {:<44} {:<9} {:>7} {:>12} {:>12} {:>8}\n",
        "#", "model", "format", "score", "on card", "headroom", "tok/s"
    ));
    for (n, r) in b.rows.iter().enumerate() {
        s.push_str(&format!(
            "{:>3}  {:<44} {:<9} {:>7} {:>12} {:>12} {:>8}{}\n",
            n + 1,
            r.model,
            r.quant.to_string(),
            r.score.map_or("-".to_string(), |x| format!(
                "{x:.1}{}",
                if r.estimated { "*" } else { "" }
            )),
            r.device_bytes.to_string(),
            r.headroom.to_string(),
            r.decode_tps.map_or("-".to_string(), |t| format!("{t:.0}")),
            r.unscored
                .as_ref()
                .map_or(String::new(), |u| format!("  ({u})"))
        ));
    }
    if b.rows.iter().any(|r| r.estimated) {
        s.push_str("* the evaluation marks this score as estimated\n");
    }
    s.push_str(&format!(
        "{} more variant(s) do not fit; {} left out by the filters\n",
        b.not_fitting, b.filtered_out
    ));
    s
}

pub fn train_rank(r: &[TrainCandidate]) -> String {
    let mut s = String::new();
    for (n, c) in r.iter().enumerate() {
        s.push_str(&format!(
            "{:>3}  {:<40} {:<6} {:>12}  {}\n",
            n + 1,
            c.model,
            c.method,
            Bytes::to_string(&c.total),
            if c.fits {
                "fits".to_string()
            } else {
                c.reasons.join("; ")
            }
        ));
    }
    s
}
