//! Header bytes of the two file formats the readers take.

/// A GGUF metadata value.
pub enum Value {
    /// `GGUF_TYPE_UINT32` (4).
    U32(u32),
    /// `GGUF_TYPE_STRING` (8).
    Str(String),
    /// An array (9) of `n` strings `tok0`, `tok1` …: a tokenizer's size without its words.
    Tokens(u64),
}

/// A GGUF v3 header (github.com/ggml-org/ggml, docs/gguf.md): the magic, the version, the
/// counts, the key-value pairs, then each tensor's name, dimensions, ggml type and offset 0.
/// The tensor data is not written.
pub fn gguf(kv: &[(&str, Value)], tensors: &[(&str, &[u64], u32)]) -> Vec<u8> {
    let mut out = b"GGUF".to_vec();
    let u32le = |o: &mut Vec<u8>, x: u32| o.extend_from_slice(&x.to_le_bytes());
    let u64le = |o: &mut Vec<u8>, x: u64| o.extend_from_slice(&x.to_le_bytes());
    let text = |o: &mut Vec<u8>, s: &str| {
        o.extend_from_slice(&(s.len() as u64).to_le_bytes());
        o.extend_from_slice(s.as_bytes());
    };
    u32le(&mut out, 3);
    u64le(&mut out, tensors.len() as u64);
    u64le(&mut out, kv.len() as u64);
    for (k, v) in kv {
        text(&mut out, k);
        match v {
            Value::U32(x) => {
                u32le(&mut out, 4);
                u32le(&mut out, *x);
            }
            Value::Str(s) => {
                u32le(&mut out, 8);
                text(&mut out, s);
            }
            Value::Tokens(n) => {
                u32le(&mut out, 9);
                u32le(&mut out, 8);
                u64le(&mut out, *n);
                for i in 0..*n {
                    text(&mut out, &format!("tok{i}"));
                }
            }
        }
    }
    for (name, dims, ty) in tensors {
        text(&mut out, name);
        u32le(&mut out, dims.len() as u32);
        for d in *dims {
            u64le(&mut out, *d);
        }
        u32le(&mut out, *ty);
        u64le(&mut out, 0);
    }
    out
}

/// Bytes per element of the safetensors dtypes used here.
fn width(dtype: &str) -> u64 {
    match dtype {
        "F32" => 4,
        "F8_E4M3" => 1,
        _ => 2,
    }
}

/// A safetensors header (github.com/huggingface/safetensors, README "Format"): 8 bytes of
/// little-endian header length, then the JSON header, each tensor's data offsets laid end to
/// end; `pad` characters of metadata make it longer. The data is not written.
pub fn safetensors(tensors: &[(String, &str, Vec<u64>)], pad: usize) -> Vec<u8> {
    let mut json = String::from("{");
    let mut off = 0u64;
    for (name, dtype, shape) in tensors {
        let bytes = shape.iter().product::<u64>() * width(dtype);
        let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
        json.push_str(&format!(
            r#""{name}":{{"dtype":"{dtype}","shape":[{}],"data_offsets":[{off},{}]}},"#,
            dims.join(","),
            off + bytes
        ));
        off += bytes;
    }
    json.push_str(&format!(
        r#""__metadata__":{{"format":"pt","pad":"{}"}}}}"#,
        "x".repeat(pad)
    ));
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    out
}
