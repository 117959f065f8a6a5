//! The query string's keys, and what a notice is about.

use serde::Serialize;

ids! {
    /// A key of the query string: every key the decoder reads, in the order it reads them (the
    /// CLI's usage text names each one; a test holds both lists to the decoder).
    Key {
        /// The link's format version.
        V = "v",
        /// Serve or train.
        Mode = "mode",
        /// The model variant (catalog id or Hub repo).
        Model = "model",
        /// The file format.
        Quant = "quant",
        /// Context length, tokens.
        Ctx = "ctx",
        /// Concurrent requests.
        Par = "par",
        /// Number of cards.
        Cards = "cards",
        /// The catalog card.
        Gpu = "gpu",
        /// A free-form card's memory, GiB.
        Vram = "vram",
        /// Mixed cards, one id per card.
        Gpus = "gpus",
        /// The inference engine.
        Engine = "engine",
        /// KV cache type (both halves).
        Kv = "kv",
        /// The K half's cache type.
        Kvk = "kvk",
        /// The V half's cache type.
        Kvv = "kvv",
        /// llama.cpp's unified KV cache.
        Kvu = "kvu",
        /// llama.cpp's micro-batch, tokens.
        Ubatch = "ubatch",
        /// llama.cpp's full-size sliding-window cache.
        Swafull = "swafull",
        /// Load the vision projector.
        Mmproj = "mmproj",
        /// vLLM's memory utilization, hundredths.
        Util = "util",
        /// Tensor-parallel size.
        Tp = "tp",
        /// Pipeline-parallel size.
        Pp = "pp",
        /// Measured equivalent global-attention layers (`fitcard measure`).
        Gl = "gl",
        /// A free-form card's bandwidth, GB/s.
        Bw = "bw",
        /// Host RAM bandwidth, GB/s.
        RamBw = "ram_bw",
        /// llama.cpp's layers on the cards.
        Ngl = "ngl",
        /// llama.cpp's KV cache in host RAM.
        Nkvo = "nkvo",
        /// Layers whose experts stay in host RAM.
        Ncmoe = "ncmoe",
        /// The draft model of speculative decoding.
        Draft = "draft",
        /// The draft model's format.
        Draftq = "draftq",
        /// Draft tokens per step.
        Ndraft = "ndraft",
        /// Recurrent states per sequence.
        Rsseq = "rsseq",
        /// How the next tokens are drafted.
        Spec = "spec",
        /// Serve-time LoRA adapters.
        Loras = "loras",
        /// The adapters' rank.
        Lorarank = "lorarank",
        /// Other models on the same cards.
        With = "with",
        /// Images per request.
        Images = "images",
        /// GiB kept free on each card for other programs.
        Reserve = "reserve",
        /// The compact view for iframes.
        Embed = "embed",
        /// The Hub commit read.
        Rev = "rev",
        /// The file read from the repo.
        File = "file",
        /// The best-model view.
        Best = "best",
        /// The best-model view's family filter.
        Family = "family",
        /// The best-model view's licence filter.
        License = "license",
        /// The best-model view's least context.
        Minctx = "minctx",
        /// The best-model view's reasoning filter.
        Reasoning = "reasoning",
        /// Fine-tuning method.
        Method = "method",
        /// LoRA rank.
        Rank = "rank",
        /// Micro-batch size (train).
        Bsz = "bsz",
        /// Sequence length (train).
        Seq = "seq",
        /// Gradient checkpointing.
        Gc = "gc",
        /// Optimizer.
        Optim = "optim",
        /// Trainer profile.
        Trainer = "trainer",
        /// LoRA target modules.
        Targets = "targets",
        /// Train mode: free GiB per GPU.
        Free = "free",
        /// Train mode: the GPU indices used.
        Pick = "pick",
    }
}

/// What a [`Notice`](super::Notice) is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoticeKey {
    /// A key the decoder reads.
    Known(Key),
    /// A key it does not read, as written ([`clean`](super::clean)ed).
    Unknown(String),
    /// Nothing: the "… and N more" summary.
    Summary,
}

impl NoticeKey {
    /// `key` as written in a query: the decoder's key of that name, else an unknown one.
    pub fn of(key: &str) -> NoticeKey {
        // A search of `ALL` rather than `FromStr`'s match: the page links one table of the
        // names, not two.
        Key::ALL.iter().find(|k| k.id() == key).map_or_else(
            || NoticeKey::Unknown(super::clean(key)),
            |&k| NoticeKey::Known(k),
        )
    }

    /// The key as the query writes it; empty for the summary.
    pub fn as_str(&self) -> &str {
        match self {
            NoticeKey::Known(k) => k.id(),
            NoticeKey::Unknown(s) => s,
            NoticeKey::Summary => "",
        }
    }
}

impl From<Key> for NoticeKey {
    fn from(k: Key) -> NoticeKey {
        NoticeKey::Known(k)
    }
}

impl PartialEq<Key> for NoticeKey {
    fn eq(&self, k: &Key) -> bool {
        *self == NoticeKey::Known(*k)
    }
}

impl std::fmt::Display for NoticeKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for NoticeKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_key_is_the_decoders_key_or_the_cleaned_text() {
        assert_eq!(NoticeKey::of("ram_bw"), Key::RamBw);
        assert_eq!(NoticeKey::of("model").to_string(), "model");
        // Not a key: kept as written, on one line.
        let odd = NoticeKey::of("a\nb");
        assert_eq!(odd, NoticeKey::Unknown("a\\nb".into()));
        assert_ne!(odd, Key::Model);
        assert_eq!(NoticeKey::Summary.as_str(), "");
        // Every key reads back as itself.
        for k in Key::ALL {
            assert_eq!(NoticeKey::of(k.id()), *k);
        }
    }
}
