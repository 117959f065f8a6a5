//! Local model files read without trusting them: only regular files are opened (a FIFO would
//! block `open()` forever, a device such as `/dev/zero` reports a size of 0 and never ends),
//! every read is bounded before it allocates, a shard reached through two names is read once,
//! and every message names the file and says what is wrong in one line.

use fitcard_estimator::catalog::{Format, Variant};
use fitcard_estimator::inputs::quote;
use fitcard_estimator::readers::hf::{self, HeaderError, Tensor};
use fitcard_estimator::{readers::gguf, Bytes};
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

/// An io error in words (not "failed to fill whole buffer").
fn io_words(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => "no such file".into(),
        K::PermissionDenied => "permission denied".into(),
        K::UnexpectedEof => "the file ends inside its header".into(),
        K::IsADirectory => "is a directory".into(),
        _ => e.to_string(),
    }
}

/// `path`'s metadata after following symlinks, if it is a regular file.
fn regular(path: &Path) -> Result<Metadata, String> {
    let m = std::fs::metadata(path).map_err(|e| io_words(&e))?;
    if m.is_file() {
        Ok(m)
    } else if m.is_dir() {
        Err("is a directory, not a file".into())
    } else {
        Err("is not a regular file (a device, FIFO or socket)".into())
    }
}

/// Open `path` if it is a regular file (checked again on the open file: it may have been
/// replaced in between); its size.
fn open(path: &Path) -> Result<(File, u64), String> {
    regular(path)?;
    let f = File::open(path).map_err(|e| io_words(&e))?;
    let m = f.metadata().map_err(|e| io_words(&e))?;
    if !m.is_file() {
        return Err("is not a regular file".into());
    }
    Ok((f, m.len()))
}

/// Read at most `max` bytes of `f` from where it stands, appending to `buf`.
fn read_up_to(f: &mut File, buf: &mut Vec<u8>, max: u64) -> Result<(), String> {
    f.take(max)
        .read_to_end(buf)
        .map(|_| ())
        .map_err(|e| io_words(&e))
}

/// The whole of a small regular file, refused when it holds more than `max` bytes (read
/// through `take(max + 1)`: a size the file system reports is not trusted).
fn read_small(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let (mut f, _) = open(path)?;
    let mut buf = Vec::new();
    read_up_to(&mut f, &mut buf, max + 1)?;
    if buf.len() as u64 > max {
        return Err(format!("is over {max} bytes"));
    }
    Ok(buf)
}

/// Read the header of the GGUF file at `path`: the first MiB, then as much more as the header
/// says it needs (at most [`gguf::MAX_HEADER`]), never the tensor data. `who` starts every
/// message (`--file "x.gguf"`, `inspect "x.gguf"`).
pub fn read_gguf(path: &Path, who: &str) -> Result<(gguf::Header, u64), String> {
    let (mut f, size) = open(path).map_err(|e| format!("{who}: {e}"))?;
    let mut buf = Vec::new();
    let mut want: u64 = 1 << 20;
    loop {
        let need = want.min(size).min(gguf::MAX_HEADER);
        if need > buf.len() as u64 {
            let extra = need - buf.len() as u64;
            read_up_to(&mut f, &mut buf, extra).map_err(|e| format!("{who}: {e}"))?;
        }
        match gguf::parse(&buf) {
            Ok(h) => return Ok((h, size)),
            Err(gguf::Error::NeedMore(n)) if n > buf.len() as u64 => {
                if n > gguf::MAX_HEADER {
                    return Err(format!(
                        "{who}: its GGUF header needs over {} bytes",
                        gguf::MAX_HEADER
                    ));
                }
                if buf.len() as u64 >= size {
                    return Err(format!(
                        "{who}: the file ends inside its GGUF header (the file has {size} \
                         bytes; the header needs at least {n})"
                    ));
                }
                want = n.max(want.saturating_mul(2));
            }
            Err(e) => return Err(format!("{who}: {e}")),
        }
    }
}

/// The `.safetensors` files of `dir`, each once however many names reach it (symlinks,
/// hard links: the same device and inode, or else the same canonical path), sorted by name.
fn shards(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| io_words(&e))?
        .flatten()
        .map(|e| e.path())
        .filter(|q| q.extension().is_some_and(|x| x == "safetensors"))
        .collect();
    files.sort();
    let mut seen = std::collections::BTreeSet::new();
    files.retain(|f| seen.insert(identity(f)));
    Ok(files)
}

/// What makes two names one file.
#[cfg(unix)]
fn identity(p: &Path) -> (u64, u64, PathBuf) {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(p) {
        Ok(m) => (m.dev(), m.ino(), PathBuf::new()),
        Err(_) => (0, 0, p.to_path_buf()),
    }
}

/// What makes two names one file.
#[cfg(not(unix))]
fn identity(p: &Path) -> (u64, u64, PathBuf) {
    (
        0,
        0,
        std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()),
    )
}

/// A shard's header: its declared length checked before it is read.
fn shard_header(path: &Path) -> Result<(Vec<Tensor>, u64, u64), String> {
    let (mut f, size) = open(path)?;
    let mut len = [0u8; 8];
    f.read_exact(&mut len).map_err(|e| io_words(&e))?;
    let n = hf::header_len(len, size).map_err(|e| match e {
        HeaderError::Bad(m) => m,
        HeaderError::NeedMore(_) => "the file ends inside its header".into(),
    })?;
    let mut buf = len.to_vec();
    read_up_to(&mut f, &mut buf, n)?;
    match hf::safetensors_header(&buf) {
        Ok(t) => Ok((t, size, n)),
        Err(HeaderError::NeedMore(_)) => Err("the file ends inside its header".into()),
        Err(HeaderError::Bad(m)) => Err(m),
    }
}

/// A Hugging Face checkpoint folder (or one `.safetensors` file of it): its `config.json`, the
/// total size of its `.safetensors` files, and their headers (at most [`hf::MAX_HEADERS`] of
/// them in all).
pub fn read_checkpoint(p: &Path, who: &str) -> Result<(Variant, Format, Vec<Tensor>), String> {
    let dir = if p.is_dir() {
        p
    } else {
        p.parent().unwrap_or(p)
    };
    let config = read_small(&dir.join("config.json"), hf::MAX_CONFIG as u64)
        .map_err(|e| format!("{who}: config.json {e}"))?;
    let config =
        String::from_utf8(config).map_err(|_| format!("{who}: config.json is not UTF-8 text"))?;
    let files = shards(dir).map_err(|e| format!("{who}: {e}"))?;
    if files.is_empty() {
        return Err(format!("{who}: no .safetensors file"));
    }
    let (mut total, mut headers) = (0u64, 0u64);
    let mut tensors = Vec::new();
    for f in &files {
        let name = quote(&f.file_name().unwrap_or_default().to_string_lossy());
        let (t, size, n) = shard_header(f).map_err(|e| format!("{who}: {name}: {e}"))?;
        headers += n;
        if headers > hf::MAX_HEADERS {
            return Err(format!(
                "{who}: the shards' headers are over {} bytes in all",
                hf::MAX_HEADERS
            ));
        }
        total = total.saturating_add(size);
        tensors.extend(t);
    }
    let id = dir.file_name().map_or("checkpoint".to_string(), |n| {
        n.to_string_lossy().into_owned()
    });
    let (v, f) =
        hf::to_variant(&id, &config, Bytes(total), &tensors).map_err(|e| format!("{who}: {e}"))?;
    Ok((v, f, tensors))
}

/// Text bound for a terminal: control characters (ESC, OSC sequences, carriage returns) and
/// bidirectional-formatting characters escaped, newlines kept. Every line the CLI prints as
/// text goes through it (JSON is escaped by its encoder).
pub fn terminal_safe(s: &str) -> String {
    s.split('\n')
        .map(|line| {
            let mut out = String::with_capacity(line.len());
            for c in line.chars() {
                if c != '\t' && c.is_control()
                    || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
                {
                    out.extend(c.escape_default());
                } else {
                    out.push(c);
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}
