//! "Detect my GPU": the catalog card a browser's renderer string names.
//!
//! Browsers name the GPU in WebGL's unmasked renderer string (`WEBGL_debug_renderer_info`),
//! wrapped in whatever the graphics layer adds: `ANGLE (NVIDIA, NVIDIA GeForce RTX 5080
//! (0x00002C02) Direct3D11 vs_5_0 ps_5_0, D3D11)`, `GeForce RTX 2080 Ti/PCIe/SSE2`, `ANGLE (Apple,
//! Apple M1 Max, OpenGL 4.1 Metal - 76.3)`. The card's model words are found in it as a run of
//! whole words (`RTX 4070` is not read in `RTX 4070 Ti`); the renderer never names the memory
//! size, so of cards that differ only by it the first in the catalog is chosen. Pure: tested on
//! the host.

use fitcard_estimator::catalog::{catalog, Gpu};

/// Words of a catalog name that say nothing about which chip it is.
const NOISE: &[&str] = &[
    "nvidia",
    "geforce",
    "tesla",
    "amd",
    "intel",
    "instinct",
    "generation",
    "per",
    "gpu",
    "one",
    "gcd",
];

/// Words that, right after a model number, make it another card (`RTX 4070 Ti`, `RX 7900 XT`).
/// (A laptop chip of the same number is another card too: `RTX 4090 Laptop GPU` has 16 GB.)
const SUFFIXES: &[&str] = &[
    "ti", "super", "xt", "xtx", "pro", "max", "ultra", "nvl", "laptop", "mobile",
];

/// Trademark marks, dropped from renderer strings (`Intel(R) Arc(TM) B580`).
const MARKS: &[&str] = &["r", "tm"];

/// Renderer words that stand for a catalog card whose own name is not in them (the chip's name
/// instead of the machine's): `(words, catalog id)`.
const ALIASES: &[(&[&str], &str)] = &[
    // Ryzen AI Max+ 395's integrated GPU.
    (&["radeon", "8060s"], "ryzen-ai-max-395-128gb"),
    // DGX Spark's GB10 superchip.
    (&["gb10"], "dgx-spark"),
];

/// Lower-case runs of letters and digits: `Intel(R) Arc(TM) B580` → `intel r arc tm b580`.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// A memory size word (`12gb`, `80gb`) or the number before a separate `gb`.
fn is_size(w: &[String], k: usize) -> bool {
    let x = &w[k];
    (x.ends_with("gb") && x[..x.len() - 2].bytes().all(|b| b.is_ascii_digit()))
        || (x.bytes().all(|b| b.is_ascii_digit()) && w.get(k + 1).is_some_and(|n| n == "gb"))
        || x == "gb"
}

/// The words of a catalog card's name that must all appear in a renderer string, in order:
/// the name without vendor words, memory sizes and bracketed qualifiers (`(SXM)`, `(PCIe)`);
/// the bracketed words are returned apart, as tie-breakers.
fn key(name: &str) -> (Vec<String>, Vec<String>) {
    let (main, extra) = match name.find('(') {
        Some(k) => (&name[..k], &name[k..]),
        None => (name, ""),
    };
    let w = words(main);
    let required = (0..w.len())
        .filter(|&k| !is_size(&w, k) && !NOISE.contains(&w[k].as_str()))
        .map(|k| w[k].clone())
        .collect();
    let mut extras: Vec<String> = words(extra);
    extras.extend(
        (0..w.len())
            .filter(|&k| is_size(&w, k))
            .map(|k| w[k].clone()),
    );
    (required, extras)
}

/// Where `needle` occurs in `hay` as a run of whole words not followed by a word that makes it
/// another model (`SUFFIXES`), unless the needle itself ends the name there.
fn find_run(hay: &[String], needle: &[String]) -> bool {
    if needle.is_empty() || needle.len() > hay.len() {
        return false;
    }
    (0..=hay.len() - needle.len()).any(|s| {
        hay[s..s + needle.len()] == *needle
            && hay
                .get(s + needle.len())
                .is_none_or(|next| !SUFFIXES.contains(&next.as_str()))
    })
}

/// The catalog GPU a renderer string names, if any: the longest matching name wins; among
/// equally long ones, the one whose bracketed qualifiers or memory size the string also names,
/// then catalog order.
pub fn match_gpu(renderer: &str) -> Option<&'static Gpu> {
    // Renderer strings are short; a long one is not read past this many characters.
    let text: String = renderer.chars().take(400).collect();
    let all = words(&text);
    // Memory sizes are tie-breakers, not part of the model's name.
    let hay: Vec<String> = (0..all.len())
        .filter(|&k| !is_size(&all, k) && !MARKS.contains(&all[k].as_str()))
        .map(|k| all[k].clone())
        .collect();
    let cat = catalog();
    let mut best: Option<(usize, usize, &'static Gpu)> = None;
    for g in &cat.gpus {
        let (required, extras) = key(&g.name);
        if !find_run(&hay, &required) {
            continue;
        }
        let bonus = extras.iter().filter(|e| all.contains(e)).count();
        let score = (required.len(), bonus);
        if best.is_none_or(|(l, b, _)| score > (l, b)) {
            best = Some((score.0, score.1, g));
        }
    }
    best.map(|(_, _, g)| g).or_else(|| {
        ALIASES
            .iter()
            .find(|(w, _)| {
                let w: Vec<String> = w.iter().map(|s| s.to_string()).collect();
                find_run(&hay, &w)
            })
            .and_then(|(_, id)| cat.gpu(id))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(renderer: &str) -> Option<&'static str> {
        match_gpu(renderer).map(|g| g.id.as_str())
    }

    /// Renderer strings as browsers printed them in public reports (each with its source).
    #[test]
    fn real_renderer_strings() {
        // Chromium on Linux over Vulkan: Kitware/trame-vtklocal pull request #86.
        assert_eq!(
            id("ANGLE (NVIDIA, Vulkan 1.4.312 (NVIDIA NVIDIA GeForce RTX 5080 (0x00002C02)), NVIDIA)"),
            Some("rtx-5080")
        );
        // Chrome on Linux, native OpenGL: pmndrs/detect-gpu issue #42.
        assert_eq!(id("GeForce RTX 2080 Ti/PCIe/SSE2"), Some("rtx-2080-ti"));
        // ANGLE on an M1 Max: gfx-rs/wgpu pull request #2461.
        assert_eq!(
            id("ANGLE (Apple, Apple M1 Max, OpenGL 4.1 Metal - 76.3)"),
            Some("m1-max-64gb")
        );
        // Cards the catalog does not hold: kkapsner/CanvasBlocker issues #48 and #493.
        assert_eq!(
            id("ANGLE (NVIDIA GeForce GTX 750 Direct3D11 vs_5_0 ps_5_0)"),
            None
        );
        assert_eq!(
            id("ANGLE (NVIDIA Quadro K600 Direct3D9Ex vs_3_0 ps_3_0)"),
            None
        );
        assert_eq!(id("Mesa DRI Intel(R) Haswell Mobile"), None);
        // Safari masks the chip: pmndrs/detect-gpu pull request #128.
        assert_eq!(id("Apple GPU"), None);
        // A plain M1 (zen-browser/desktop issue #8932) is not an M1 Max.
        assert_eq!(id("Apple -- Apple M1"), None);
        // WebGPU's adapter info names vendor and architecture only (trame-vtklocal #86).
        assert_eq!(id("nvidia blackwell"), None);
    }

    /// The shapes ANGLE prints on Windows (Direct3D 11) and macOS (Metal), over catalog cards.
    #[test]
    fn angle_shapes_and_near_names() {
        let d3d = |card: &str| {
            format!("ANGLE (NVIDIA, NVIDIA GeForce {card} (0x00002684) Direct3D11 vs_5_0 ps_5_0, D3D11)")
        };
        assert_eq!(id(&d3d("RTX 4090")), Some("rtx-4090"));
        assert_eq!(id(&d3d("RTX 4070")), Some("rtx-4070"));
        assert_eq!(id(&d3d("RTX 4070 Ti")), Some("rtx-4070-ti"));
        assert_eq!(id(&d3d("RTX 4070 Ti SUPER")), Some("rtx-4070-ti-super"));
        assert_eq!(id(&d3d("RTX 3060")), Some("rtx-3060-12gb"));
        assert_eq!(id(&d3d("RTX 3060 Ti")), Some("rtx-3060-ti"));
        // A model the catalog lacks is not read as its neighbour.
        assert_eq!(id(&d3d("RTX 4080 Ti")), None);
        assert_eq!(
            id("ANGLE (Apple, ANGLE Metal Renderer: Apple M3 Max, Unspecified Version)"),
            Some("m3-max-128gb")
        );
        assert_eq!(
            id("ANGLE (Apple, ANGLE Metal Renderer: Apple M3 Pro, Unspecified Version)"),
            None
        );
        assert_eq!(
            id("ANGLE (Intel, Intel(R) Arc(TM) B580 Graphics (0x0000E20B) Direct3D11 vs_5_0 ps_5_0, D3D11)"),
            Some("arc-b580")
        );
        assert_eq!(id("NVIDIA A100-SXM4-80GB"), Some("a100-80gb"));
        assert_eq!(id("NVIDIA H100 PCIe"), Some("h100-pcie"));
        assert_eq!(id("NVIDIA H100 NVL"), Some("h100-nvl"));
        assert_eq!(
            id("NVIDIA RTX 6000 Ada Generation/PCIe/SSE2"),
            Some("rtx-6000-ada")
        );
        assert_eq!(id("NVIDIA RTX A6000/PCIe/SSE2"), Some("rtx-a6000"));
        assert_eq!(id("ANGLE (AMD, AMD Radeon(TM) 8060S Graphics (0x00001586) Direct3D11 vs_5_0 ps_5_0, D3D11)"), Some("ryzen-ai-max-395-128gb"));
        assert_eq!(id(""), None);
        assert_eq!(id(&"x".repeat(100_000)), None);
    }
}
