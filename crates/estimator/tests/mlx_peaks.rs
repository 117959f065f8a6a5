//! MLX's peak memory: `mlx_lm.benchmark` prints mlx's `get_peak_memory` (mlx-lm's
//! `BENCHMARKS.md`, <https://github.com/ml-explore/mlx-lm/blob/d78bf58e217c904ec282ed8da9b947491f78c022/mlx_lm/BENCHMARKS.md>:
//! M4 Max 64 GB, mlx 0.29.2, 2048-token prompt and 128 generated tokens) against the
//! estimator's device total at that context, for every published M4 Max row of a uniform
//! quantization: Qwen3-4B and Qwen3-30B-A3B at 4, 5, 6 and 8 bits (the Instruct-2507
//! checkpoints the benchmark ran have their shapes). Formats the catalog does not publish are
//! computed by the size rule, as the page and the CLI do (a process of its own: that changes
//! the catalog).

use fitcard_estimator::catalog::install_computed;
use fitcard_estimator::catalog::quant::Container;
use fitcard_estimator::terms::overhead::MLX_IN_FLIGHT;
use fitcard_estimator::{estimate, from_query, Quant};

#[test]
fn mlx_peaks_within_two_percent() {
    let data: serde_json::Value =
        serde_json::from_str(include_str!("../data/speed.json")).expect("speed.json");
    let rows = data["mlx"].as_array().expect("mlx rows");
    let mut n = 0;
    for r in rows.iter().filter(|r| {
        r["chip"].as_str().unwrap_or("").starts_with("M4 Max")
            && r["group_size"].is_null()
            && r["peak_memory_gb"].is_f64()
            && matches!(r["bits"].as_u64(), Some(4 | 5 | 6 | 8))
    }) {
        assert!(r["url"].as_str().unwrap().starts_with("https://"));
        let model = r["catalog_model"].as_str().expect("a catalog model");
        let bits = r["bits"].as_u64().unwrap();
        let quant: Quant = format!("MLX-{bits}bit").parse().expect("an MLX format");
        install_computed(model, quant, Container::Mlx).expect("the size rule covers it");
        let peak = r["peak_memory_gb"].as_f64().unwrap() * 1e9;
        let d = from_query(&format!(
            "model={model}&quant={quant}&engine=mlx&ctx=2176&par=1&gpu=m4-max-64gb"
        ));
        assert!(d.notices.is_empty(), "{:?}", d.notices);
        let est = estimate(&d.inputs).total_device_bytes.get() as f64;
        let err = est / peak - 1.0;
        println!(
            "{model} {bits}-bit: measured peak {:.2} GB, estimated {:.2} GB, {:+.1} %",
            peak / 1e9,
            est / 1e9,
            err * 100.0
        );
        assert!(err.abs() < 0.02, "{model} {bits}: {err}");
        // Without the command buffers in flight (11 × 51 MiB on a Max chip) every row falls
        // short by more than 0.35 GB: the term carries the gap, not a margin.
        let bare = est - MLX_IN_FLIGHT.get() as f64;
        assert!(peak - bare > 0.35e9, "{model} {bits}");
        n += 1;
    }
    assert_eq!(n, 8);
    assert_eq!(MLX_IN_FLIGHT.get(), 11 * 51 * 1024 * 1024);
}
