//! Published measurements of the configuration being estimated, shown beside the estimate: a
//! reader trusts a measured speed over a modelled one, and a measurement next to the model shows
//! how far to trust the model.
//!
//! **Rows.** The llama-bench decode rows of `data/speed.json` (the regression rows of
//! `tests/speed.rs`, each with its URL and the line it was copied from) whose model is a catalog
//! variant, whose format is one of that variant's GGUF files and whose card is a catalog card,
//! with every layer on the card (`-ngl 99`); selected when the catalog is built (`build.rs`). A
//! row measured on a base checkpoint (`Meta-Llama-3-8B`) stands for its instruction-tuned release
//! (`Meta-Llama-3-8B-Instruct`): the two share every tensor shape, so they read the same bytes
//! per token; the row keeps the model's name as measured, and the page shows it.
//!
//! **Same configuration.** llama.cpp (the engine llama-bench runs), one card of the row's kind,
//! one request, an F16 KV cache (llama-bench's default), nothing spilled to host memory. Of the
//! rows that match, the one measured with the most tokens in the cache up to the chosen context
//! (`tg32 @ d4096` for a 6K context); a context below every measured depth takes the shallowest.

use crate::catalog::catalog;
use crate::catalog::engine::KvDtype;
use crate::catalog::quant::{GgmlType, Quant};
pub use crate::catalog::MeasuredSpeed;
use crate::estimate::Estimate;
use crate::inputs::{GpuChoice, Inputs};
use crate::Engine;

/// The published measurement of the configuration `i` (estimated as `e`), if there is one.
pub fn find(i: &Inputs, e: &Estimate) -> Option<MeasuredSpeed> {
    let gpu = match (i.gpus.as_slice(), &i.gpu) {
        ([], GpuChoice::Catalog(id)) => id,
        _ => return None,
    };
    let spilled = e.speed.as_ref().is_some_and(|s| s.offloaded_layers > 0);
    if i.engine != Engine::LlamaCpp
        || i.cards != 1
        || i.par != 1
        || !matches!(i.kv, KvDtype::Auto | KvDtype::Ggml(GgmlType::F16))
        || i.kv_v.is_some()
        || spilled
    {
        return None;
    }
    same(
        &catalog().measured,
        &i.model,
        i.quant,
        gpu,
        u64::from(i.ctx),
    )
}

/// Of `rows`, the measurement of `model` in `quant` on `gpu` at the deepest cache up to `ctx`
/// tokens (else the shallowest).
fn same(
    rows: &[MeasuredSpeed],
    model: &str,
    quant: Quant,
    gpu: &str,
    ctx: u64,
) -> Option<MeasuredSpeed> {
    let mut best: Option<&MeasuredSpeed> = None;
    for r in rows.iter().filter(|r| {
        r.quant == quant && r.variant.eq_ignore_ascii_case(model) && r.gpu.eq_ignore_ascii_case(gpu)
    }) {
        let fits = |m: &MeasuredSpeed| u64::from(m.depth) <= ctx;
        best = Some(match best {
            None => r,
            Some(b) if fits(r) && (!fits(b) || r.depth > b.depth) => r,
            Some(b) if !fits(r) && !fits(b) && r.depth < b.depth => r,
            Some(b) => b,
        });
    }
    best.cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(depth: u32, tps: f64) -> MeasuredSpeed {
        MeasuredSpeed {
            variant: "org/M".into(),
            model: "M".into(),
            quant: Quant::Q4KM,
            gpu: "rtx-4090".into(),
            depth,
            test: format!("tg32 @ d{depth}"),
            decode_tps: tps,
            url: "https://example.org".into(),
        }
    }

    #[test]
    fn the_deepest_cache_up_to_the_context_else_the_shallowest() {
        let rows = [row(4096, 90.0), row(0, 100.0), row(16384, 70.0)];
        let at = |ctx| same(&rows, "org/m", Quant::Q4KM, "RTX-4090", ctx).map(|m| m.depth);
        assert_eq!(at(8192), Some(4096));
        assert_eq!(at(4096), Some(4096));
        assert_eq!(at(100), Some(0));
        assert_eq!(at(32768), Some(16384));
        assert_eq!(
            same(&rows[..1], "org/m", Quant::Q4KM, "rtx-4090", 10).map(|m| m.depth),
            Some(4096)
        );
        assert_eq!(same(&rows, "org/m", Quant::Q8_0, "rtx-4090", 8192), None);
        assert_eq!(same(&rows, "org/m", Quant::Q4KM, "rtx-3090", 8192), None);
    }
}
