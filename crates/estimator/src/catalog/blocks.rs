//! Per-layer blocks of a model whose layers each hold ONE block (Nemotron-H): a Mamba-2 mixer,
//! attention, an MLP or a mixture of experts, spelled as the config's `hybrid_override_pattern`
//! (`M`, `*`, `-`, `E`; <https://huggingface.co/nvidia/NVIDIA-Nemotron-Nano-9B-v2/blob/main/config.json>).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One layer's block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// `M`: a Mamba-2 mixer (a conv + SSM state per sequence, no KV cache).
    Mamba2,
    /// `*`: attention (the only block with a KV cache).
    Attention,
    /// `-`: a non-gated MLP (up, squared ReLU, down).
    Mlp,
    /// `E`: routed experts plus shared experts.
    Moe,
}

impl Block {
    /// The block a pattern letter names; `None` for a letter nobody has modelled.
    pub fn from_letter(c: char) -> Option<Block> {
        Some(match c {
            'M' => Block::Mamba2,
            '*' => Block::Attention,
            '-' => Block::Mlp,
            'E' => Block::Moe,
            _ => return None,
        })
    }

    /// The pattern letter.
    pub fn letter(self) -> char {
        match self {
            Block::Mamba2 => 'M',
            Block::Attention => '*',
            Block::Mlp => '-',
            Block::Moe => 'E',
        }
    }
}

/// The blocks of every layer, in layer order; stored as the pattern string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocks(Vec<Block>);

/// The longest pattern read (the deepest published model has under 200 layers).
pub const MAX_BLOCKS: usize = 4096;

impl Blocks {
    /// The pattern `p` for a model of `layers` layers (hostile input: bounded before anything
    /// is allocated). Err, one line, names what is wrong: a length that is not the layer count,
    /// or a letter nobody has modelled.
    pub fn parse(p: &str, layers: u32) -> Result<Blocks, String> {
        if p.len() > MAX_BLOCKS || p.len() != layers as usize {
            return Err(format!(
                "hybrid_override_pattern has {} letters for {layers} layers",
                p.len().min(MAX_BLOCKS + 1)
            ));
        }
        let mut v = Vec::with_capacity(p.len());
        for c in p.chars() {
            let b = Block::from_letter(c).ok_or_else(|| {
                format!(
                    "layer kind '{}' of hybrid_override_pattern is not modelled yet",
                    c.escape_default()
                )
            })?;
            v.push(b);
        }
        Ok(Blocks(v))
    }

    /// The blocks of a file that says, per layer, which layers attend (`kv_heads > 0`), which
    /// have a feed-forward width (`ff > 0`), and whether the model has experts: attention where
    /// there are KV heads, a Mamba-2 mixer where there is neither, else an MLP or the experts
    /// (llama.cpp's nemotron_h loader: `is_recurrent(il)` iff `n_head_kv(il) == 0 && n_ff(il) == 0`).
    pub fn from_layers(kv_heads: &[i128], ff: &[i128], moe: bool) -> Blocks {
        let ffn = if moe { Block::Moe } else { Block::Mlp };
        let v = kv_heads
            .iter()
            .zip(ff)
            .take(MAX_BLOCKS)
            .map(|(&kv, &f)| match (kv > 0, f > 0) {
                (true, _) => Block::Attention,
                (false, false) => Block::Mamba2,
                (false, true) => ffn,
            })
            .collect();
        Blocks(v)
    }

    /// The block of layer `il` (`None` past the last layer).
    pub fn at(&self, il: u32) -> Option<Block> {
        self.0.get(il as usize).copied()
    }

    /// Layers.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No layers.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Layers of block `b`.
    pub fn count(&self, b: Block) -> u32 {
        self.0.iter().filter(|&&x| x == b).count() as u32
    }

    /// Indices of the layers of block `b`.
    pub fn indices(&self, b: Block) -> Vec<u32> {
        (0..self.0.len() as u32)
            .filter(|&il| self.0[il as usize] == b)
            .collect()
    }

    /// The pattern string.
    pub fn pattern(&self) -> String {
        self.0.iter().map(|b| b.letter()).collect()
    }
}

impl Serialize for Blocks {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.pattern())
    }
}

impl<'de> Deserialize<'de> for Blocks {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Blocks, D::Error> {
        // The catalog's own pattern (written by [`Serialize`], checked against the layer count
        // by `Arch::absurd`): letters only, without the reader's worded refusals.
        let p = String::deserialize(d)?;
        p.chars()
            .take(MAX_BLOCKS + 1)
            .map(Block::from_letter)
            .collect::<Option<Vec<Block>>>()
            .filter(|v| v.len() <= MAX_BLOCKS)
            .map(Blocks)
            .ok_or_else(|| serde::de::Error::custom("not a layer block pattern"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_round_trips_and_counts_its_blocks() {
        let b = Blocks::parse("M-M*E", 5).unwrap();
        assert_eq!(b.pattern(), "M-M*E");
        assert_eq!(b.count(Block::Mamba2), 2);
        assert_eq!(b.indices(Block::Attention), vec![3]);
        assert_eq!(b.at(4), Some(Block::Moe));
        assert_eq!(b.at(5), None);
    }

    #[test]
    fn a_bad_pattern_is_refused_in_one_line() {
        let e = Blocks::parse("M-X", 3).unwrap_err();
        assert!(e.contains("'X'") && !e.contains('\n'), "{e}");
        let e = Blocks::parse("M-", 3).unwrap_err();
        assert!(e.contains("2 letters for 3 layers"), "{e}");
        let long = "M".repeat(MAX_BLOCKS + 10);
        assert!(Blocks::parse(&long, 5000).is_err());
        assert!(serde_json::from_str::<Blocks>("\"M*Q\"").is_err());
    }

    #[test]
    fn per_layer_arrays_name_the_blocks() {
        let b = Blocks::from_layers(&[0, 2, 0, 0], &[0, 0, 1856, 0], true);
        assert_eq!(b.pattern(), "M*EM");
        let b = Blocks::from_layers(&[0, 8, 0], &[0, 0, 15680], false);
        assert_eq!(b.pattern(), "M*-");
    }
}
