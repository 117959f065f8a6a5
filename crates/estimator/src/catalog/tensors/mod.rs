//! The tensors a model file stores, enumerated from the architecture ([`Arch`]): llama.cpp's
//! tensor list of each architecture kind the catalog holds (the shapes its loaders ask for in
//! `load_tensors`, <https://github.com/ggml-org/llama.cpp/blob/master/src/llama-model.cpp> and
//! `src/models/*.cpp`), which is also the list the Hugging Face checkpoint stores under other
//! names (the converter, `convert_hf_to_gguf.py`, renames and fuses tensors without changing
//! their element counts). [`crate::catalog::size_rule`] sizes each tensor for a format.
//!
//! Shapes are in ggml order: `ne[0]` is the row length (the input dimension of a projection),
//! `ne[1]` the rows, `ne[2]` the experts of a merged expert tensor. Every product saturates: the
//! dimensions come from configs and headers, which are hostile input.

mod encoder;
mod layers;
mod style;

use super::Arch;
use layers::{has_routed_experts, layer, routed_experts};
use style::style;

/// How a tensor is stored, whatever the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A weight matrix the format quantizes (projections, experts, embeddings, output).
    Weight,
    /// One-dimensional (norms, biases, per-head scalars): F32 in GGUF (`convert_hf_to_gguf.py`
    /// writes `n_dims <= 1` tensors and names not ending in `.weight` as F32), 16-bit in a
    /// checkpoint.
    Vector,
    /// The MoE router (`ffn_gate_inp`): F32 in GGUF (the converter's `FFN_GATE_INP` rule), never
    /// quantized (`tensor_allows_quantization` in src/llama-quant.cpp), 16-bit in a checkpoint.
    Router,
    /// A small matrix the converter forces to F32 (`ssm_conv1d`, Mamba-2's grouped `ssm_norm`
    /// and `ssm_a`/`ssm_d`).
    F32Matrix,
    /// A matrix llama-quantize leaves at the source's 16-bit type (`altup*`, `laurel*`,
    /// `per_layer_model_proj`: `tensor_allows_quantization` in src/llama-quant.cpp).
    Keep16,
    /// Expert matrices the publisher ships as MXFP4 (gpt-oss, whose checkpoint stores them so:
    /// <https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json>,
    /// `quantization_config`), kept so in every GGUF mix.
    Mxfp4Experts,
}

/// One stored tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// llama.cpp's GGUF name without the `blk.N.` prefix (`attn_v.weight`).
    pub name: &'static str,
    /// The block it belongs to (`blk.N.`), `None` for the global tensors.
    pub layer: Option<u32>,
    /// Shape in ggml order: row length, rows, experts (1 when not an expert tensor).
    pub ne: [u64; 3],
    /// Dimensions as stored (1, 2 or 3).
    pub dims: u8,
    /// How it is stored.
    pub kind: Kind,
}

impl Tensor {
    /// Elements (saturating).
    pub fn elements(&self) -> u64 {
        self.ne.iter().fold(1u64, |p, x| p.saturating_mul(*x))
    }

    /// Rows of `ne[0]` values (saturating).
    pub fn rows(&self) -> u64 {
        self.ne[1].saturating_mul(self.ne[2])
    }

    /// The full GGUF name's length (`blk.12.attn_v.weight`).
    pub fn name_len(&self) -> u64 {
        let prefix = self.layer.map_or(0, |l| {
            let digits = l.checked_ilog10().unwrap_or(0) as u64 + 1;
            "blk.".len() as u64 + digits + 1
        });
        prefix + self.name.len() as u64
    }

    /// A merged expert tensor (`ne[2] > 1`).
    pub fn is_experts(&self) -> bool {
        self.ne[2] > 1
    }
}

/// The tensor list being built.
struct List {
    t: Vec<Tensor>,
    layer: Option<u32>,
}

impl List {
    fn push(&mut self, name: &'static str, ne: [u64; 3], dims: u8, kind: Kind) {
        if ne.iter().all(|&x| x > 0) {
            self.t.push(Tensor {
                name,
                layer: self.layer,
                ne,
                dims,
                kind,
            });
        }
    }
    /// A weight matrix of `cols` inputs and `rows` outputs.
    fn w(&mut self, name: &'static str, cols: u64, rows: u64) {
        self.push(name, [cols, rows, 1], 2, Kind::Weight);
    }
    /// A merged expert tensor.
    fn e(&mut self, name: &'static str, cols: u64, rows: u64, experts: u64, kind: Kind) {
        self.push(name, [cols, rows, experts], 3, kind);
    }
    /// A vector of `n`.
    fn v(&mut self, name: &'static str, n: u64) {
        self.push(name, [n, 1, 1], 1, Kind::Vector);
    }
    /// A 2-D tensor stored like a vector (F32 in GGUF, 16-bit in a checkpoint): biases of merged experts.
    fn v2(&mut self, name: &'static str, cols: u64, rows: u64) {
        self.push(name, [cols, rows, 1], 2, Kind::Vector);
    }
}

/// Vision tower of the Gemma 3 4B/12B/27B checkpoints (SigLIP so400m at 896 px: hidden 1152,
/// MLP 4304, 27 layers, patch 14; <https://huggingface.co/google/gemma-3-4b-it/blob/main/config.json>,
/// `vision_config`) with the multimodal projector into the text model's `hidden`: parameters the
/// Hugging Face repo stores beside the text model (the GGUF keeps them in a separate mmproj file).
pub fn gemma3_vision_params(hidden: u64) -> u64 {
    let (d, ff, layers, patch, npos) = (1152u64, 4304u64, 27u64, 14u64, (896u64 / 14).pow(2));
    let per_layer = 4 * (d * d + d) + (d * ff + ff) + (ff * d + d) + 4 * d;
    let embeddings = patch * patch * 3 * d + d + npos * d + 2 * d;
    let projector = d.saturating_mul(hidden).saturating_add(d);
    (layers * per_layer + embeddings).saturating_add(projector)
}

/// Does the Hugging Face checkpoint of `a` hold a vision tower beside the text model that its
/// text-only GGUF leaves out? (Gemma 3's multimodal repos: `model_type` `gemma3`.)
pub fn has_gemma3_vision(a: &Arch) -> bool {
    a.model_type == "gemma3"
}

/// Layers the GGUF stores: the decoder layers and any multi-token-prediction block kept after
/// them (llama.cpp's `n_layer_all`, the `block_count` of the file).
pub fn stored_layers(a: &Arch) -> u32 {
    a.layers.saturating_add(style(a).mtp_layers)
}

/// The tensors of `a` as llama.cpp stores them; `output` adds the output matrix (an untied model,
/// or a tied one whose file stores it anyway).
pub fn tensors(a: &Arch, output: bool) -> Vec<Tensor> {
    if let Some(e) = crate::catalog::encoder(a) {
        return encoder::tensors(a, e);
    }
    let s = style(a);
    let h = a.hidden;
    let mut l = List {
        t: Vec::new(),
        layer: None,
    };
    l.w("token_embd.weight", h, a.vocab);
    l.v("output_norm.weight", h);
    if output {
        l.w("output.weight", h, a.vocab);
    }
    if let Some(p) = a.ple {
        // gemma-3n / Gemma 4 E-models (src/models/gemma3n-iswa.cpp): per-layer embeddings, their
        // projection from the hidden state (kept 16-bit) and its norm.
        let width = p.dim.saturating_mul(u64::from(a.layers));
        l.w("per_layer_token_embd.weight", width, p.vocab);
        l.push(
            "per_layer_model_proj.weight",
            [h, width, 1],
            2,
            Kind::Keep16,
        );
        l.v("per_layer_proj_norm.weight", p.dim);
    }
    if a.model_type.starts_with("gemma3n") {
        // altup_num_inputs 4 (https://huggingface.co/google/gemma-3n-E2B-it/blob/main/config.json).
        l.push("altup_proj.weight", [h, h, 3], 3, Kind::Keep16);
        l.push("altup_unembd_proj.weight", [h, h, 3], 3, Kind::Keep16);
    }
    let all = stored_layers(a);
    for il in 0..all.min(1 << 16) {
        l.layer = Some(il);
        layer(&mut l, a, &s, il, il >= a.layers);
    }
    l.t
}

/// The tensors of `n` multi-token-prediction blocks after the stack of `a`, as a GGUF that
/// carries them stores them (`blk.N.nextn.*` after the last layer: a full-attention layer, its
/// FFN, the projection of [embedding; hidden] and its norms; llama.cpp PR #22673,
/// <https://github.com/ggml-org/llama.cpp/pull/22673>), whatever the architecture's usual files
/// keep.
pub fn mtp_blocks(a: &Arch, n: u32) -> Vec<Tensor> {
    let s = style(a);
    let mut l = List {
        t: Vec::new(),
        layer: None,
    };
    for il in a.layers..a.layers.saturating_add(n.min(16)) {
        l.layer = Some(il);
        layer(&mut l, a, &s, il, true);
    }
    l.t
}

/// The routed-expert tensors of layer `il` (none on a layer without experts): those llama.cpp's
/// `--n-cpu-moe` keeps in system RAM, listed without the rest of the model (the page's estimate
/// carries this, not the whole tensor list; `tests/cpu_moe.rs` holds the two to each other).
pub fn layer_routed_experts(a: &Arch, il: u32) -> Vec<Tensor> {
    let mut l = List {
        t: Vec::new(),
        layer: Some(il),
    };
    if il < a.layers && has_routed_experts(a, il) {
        routed_experts(&mut l, a);
    }
    l.t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_their_layer_prefix() {
        let t = Tensor {
            name: "attn_v.weight",
            layer: Some(12),
            ne: [4096, 1024, 1],
            dims: 2,
            kind: Kind::Weight,
        };
        assert_eq!(t.name_len(), "blk.12.attn_v.weight".len() as u64);
        assert_eq!(t.elements(), 4096 * 1024);
    }

    #[test]
    fn the_vision_tower_is_siglip_so400m() {
        // SigLIP so400m has about 400 M parameters (the name); the 4B projector adds 1152 × 2560.
        let p = gemma3_vision_params(2560);
        assert!((410_000_000..=420_000_000).contains(&p), "{p}");
    }
}
