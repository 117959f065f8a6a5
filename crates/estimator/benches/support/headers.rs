#![allow(dead_code)] // Each includer uses part of it.

// Header builders shared by the native benchmark (`benches/headers.rs`) and the in-browser one
// (`tests/bench_headers.rs` of the page crate), included by path in both: the same bytes are
// parsed natively and in wasm. Plain std, no dependency.
//
// - `gguf_262k`: the header of a GGUF with a 262,144-token vocabulary (the size of Gemma 3's,
//   <https://huggingface.co/google/gemma-3-4b-it/blob/main/config.json> `vocab_size`): the
//   `tokenizer.ggml.tokens` string array, its `scores` (f32) and `token_type` (i32) arrays, a
//   chat template, the architecture keys of a 34-layer Gemma 3, and its 444-tensor table.
// - `index_60mb`: a `model.safetensors.index.json` of at least 60 MB, pretty-printed as
//   transformers writes it (`json.dumps(indent=2)`), for an MoE checkpoint of 163 shards whose
//   weight map names every expert projection and its scale.

/// Tokens of the vocabulary.
pub const VOCAB: u64 = 262_144;
/// Layers of the GGUF's model.
pub const LAYERS: u64 = 34;
/// Tensors per layer (Gemma 3's blocks in llama.cpp) and besides the layers.
pub const TENSORS: u64 = LAYERS * 13 + 2;
/// Shards the index names.
pub const SHARDS: u64 = 163;
/// Bytes the index reaches at least.
pub const INDEX_BYTES: usize = 60_000_000;

/// xorshift64*: token lengths and bytes, the same on every run and target.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn put_str(b: &mut Vec<u8>, s: &[u8]) {
    b.extend((s.len() as u64).to_le_bytes());
    b.extend(s);
}

fn put_key(b: &mut Vec<u8>, k: &str, t: u32) {
    put_str(b, k.as_bytes());
    b.extend(t.to_le_bytes());
}

fn kv_u32(b: &mut Vec<u8>, k: &str, v: u32) {
    put_key(b, k, 4);
    b.extend(v.to_le_bytes());
}

fn kv_f32(b: &mut Vec<u8>, k: &str, v: f32) {
    put_key(b, k, 6);
    b.extend(v.to_le_bytes());
}

fn kv_str(b: &mut Vec<u8>, k: &str, v: &str) {
    put_key(b, k, 8);
    put_str(b, v.as_bytes());
}

/// The GGUF header (metadata and tensor table; no tensor data) and the number of metadata
/// pairs it holds.
pub fn gguf_262k() -> (Vec<u8>, u64) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut kv = Vec::with_capacity(4 << 20);
    let mut n_kv = 0u64;
    let a = "gemma3";
    kv_str(&mut kv, "general.architecture", a);
    n_kv += 1;
    kv_str(&mut kv, "general.name", "Gemma 3 4b It");
    n_kv += 1;
    kv_u32(&mut kv, "general.file_type", 15);
    n_kv += 1;
    kv_u32(&mut kv, "general.quantization_version", 2);
    n_kv += 1;
    for (k, v) in [
        ("context_length", 131_072),
        ("embedding_length", 2560),
        ("block_count", LAYERS as u32),
        ("feed_forward_length", 10_240),
        ("attention.head_count", 8),
        ("attention.head_count_kv", 4),
        ("attention.key_length", 256),
        ("attention.value_length", 256),
        ("attention.sliding_window", 1024),
    ] {
        kv_u32(&mut kv, &format!("{a}.{k}"), v);
        n_kv += 1;
    }
    kv_f32(&mut kv, &format!("{a}.rope.freq_base"), 1_000_000.0);
    n_kv += 1;
    kv_f32(
        &mut kv,
        &format!("{a}.attention.layer_norm_rms_epsilon"),
        1e-6,
    );
    n_kv += 1;
    kv_str(&mut kv, "tokenizer.ggml.model", "llama");
    n_kv += 1;
    // The tokens: 1 to 16 bytes, most of them 3 to 9 (a SentencePiece vocabulary's spread).
    put_key(&mut kv, "tokenizer.ggml.tokens", 9);
    kv.extend(8u32.to_le_bytes());
    kv.extend(VOCAB.to_le_bytes());
    for _ in 0..VOCAB {
        let r = rng.next();
        let len = match r % 10 {
            0 => 1 + (r >> 8) % 3,
            9 => 10 + (r >> 8) % 7,
            _ => 3 + (r >> 8) % 7,
        } as usize;
        let mut tok = vec![0u8; len];
        for (k, c) in tok.iter_mut().enumerate() {
            *c = b'a' + ((r >> (16 + 3 * (k % 14))) % 26) as u8;
        }
        put_str(&mut kv, &tok);
    }
    n_kv += 1;
    put_key(&mut kv, "tokenizer.ggml.scores", 9);
    kv.extend(6u32.to_le_bytes());
    kv.extend(VOCAB.to_le_bytes());
    for k in 0..VOCAB {
        kv.extend((-(k as f32)).to_le_bytes());
    }
    n_kv += 1;
    put_key(&mut kv, "tokenizer.ggml.token_type", 9);
    kv.extend(5u32.to_le_bytes());
    kv.extend(VOCAB.to_le_bytes());
    for k in 0..VOCAB {
        kv.extend((if k < 256 { 3i32 } else { 1 }).to_le_bytes());
    }
    n_kv += 1;
    for (k, v) in [
        ("tokenizer.ggml.bos_token_id", 2),
        ("tokenizer.ggml.eos_token_id", 1),
        ("tokenizer.ggml.unknown_token_id", 3),
        ("tokenizer.ggml.padding_token_id", 0),
    ] {
        kv_u32(&mut kv, k, v);
        n_kv += 1;
    }
    let template = "{{ bos_token }}{% for message in messages %}<start_of_turn>{{ message['role'] }}\n{{ message['content'] | trim }}<end_of_turn>\n{% endfor %}".repeat(12);
    kv_str(&mut kv, "tokenizer.chat_template", &template);
    n_kv += 1;

    // The tensor table: Q4_K matrices, Q6_K embeddings, F32 norms (ggml type numbers 12, 14, 0).
    let (h, ff, hd) = (2560u64, 10_240u64, 256u64);
    let mut tensors: Vec<(String, Vec<u64>, u32)> = vec![
        ("token_embd.weight".into(), vec![h, VOCAB], 14),
        ("output_norm.weight".into(), vec![h], 0),
    ];
    for l in 0..LAYERS {
        for (n, dims, t) in [
            ("attn_norm", vec![h], 0),
            ("attn_q", vec![h, 8 * hd], 12),
            ("attn_k", vec![h, 4 * hd], 12),
            ("attn_v", vec![h, 4 * hd], 12),
            ("attn_output", vec![8 * hd, h], 12),
            ("attn_q_norm", vec![hd], 0),
            ("attn_k_norm", vec![hd], 0),
            ("post_attention_norm", vec![h], 0),
            ("ffn_norm", vec![h], 0),
            ("ffn_gate", vec![h, ff], 12),
            ("ffn_up", vec![h, ff], 12),
            ("ffn_down", vec![ff, h], 14),
            ("post_ffw_norm", vec![h], 0),
        ] {
            tensors.push((format!("blk.{l}.{n}.weight"), dims, t));
        }
    }
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend((tensors.len() as u64).to_le_bytes());
    b.extend(n_kv.to_le_bytes());
    b.extend(kv);
    let mut offset = 0u64;
    for (name, dims, t) in &tensors {
        put_str(&mut b, name.as_bytes());
        b.extend((dims.len() as u32).to_le_bytes());
        for d in dims {
            b.extend(d.to_le_bytes());
        }
        b.extend(t.to_le_bytes());
        b.extend(offset.to_le_bytes());
        // Bytes per 256 weights: Q4_K 144, Q6_K 210, F32 1024; aligned to 32.
        let per = match t {
            12 => 144,
            14 => 210,
            _ => 1024,
        };
        offset += (dims.iter().product::<u64>() / 256 * per).div_ceil(32) * 32;
    }
    (b, n_kv)
}

/// The index (at least [`INDEX_BYTES`]) and the number of tensors its weight map lists.
pub fn index_60mb() -> (Vec<u8>, u64) {
    let mut s = String::with_capacity(INDEX_BYTES + (1 << 20));
    s.push_str(
        "{\n  \"metadata\": {\n    \"total_size\": 688586727753\n  },\n  \"weight_map\": {\n",
    );
    let per_shard = 2600u64;
    let mut n = 0u64;
    'fill: for l in 0.. {
        for e in 0..256 {
            for p in ["gate_proj", "up_proj", "down_proj"] {
                for suffix in ["weight", "weight_scale_inv"] {
                    if s.len() >= INDEX_BYTES {
                        break 'fill;
                    }
                    let shard = (n / per_shard) % SHARDS + 1;
                    if n > 0 {
                        s.push_str(",\n");
                    }
                    s.push_str(&format!(
                        "    \"model.layers.{l}.mlp.experts.{e}.{p}.{suffix}\": \"model-{shard:05}-of-{SHARDS:05}.safetensors\""
                    ));
                    n += 1;
                }
            }
        }
    }
    s.push_str("\n  }\n}\n");
    (s.into_bytes(), n)
}
