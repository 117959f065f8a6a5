//! The stand-in's HTTP server: one thread per connection, one request each
//! (`Connection: close`), answered from a table of paths; every request and every byte of file
//! data it sends is logged, and `/_standin/log` (`/_standin/reset`) reads (clears) that log
//! from another process; `/_standin/head/{repo}/{file}` on a file host gives a fixture file's
//! first bytes (unlogged), so that another process can use the same bytes.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The commit every stand-in repo is at.
pub const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

/// One answer of the stand-in.
#[derive(Clone)]
pub enum Answer {
    /// Status, headers, body; a `Range: bytes=A-B` sends bytes A..=B of the body.
    Plain(u16, Vec<(String, String)>, Vec<u8>),
    /// A file of `size` bytes whose first bytes are `head` (zeros after): a closed `Range` is
    /// answered with 206 and `Content-Range`, and its bytes count as sent; `cut` sends half of
    /// them, then drops the connection. Without a closed range: 400.
    File {
        /// The file's size (what the listing says).
        size: u64,
        /// Its first bytes.
        head: Arc<Vec<u8>>,
        /// Half the answer, then the connection drops.
        cut: bool,
    },
    /// `Content-Length: 10 GB`, then `{` bytes until the client goes.
    Endless,
    /// One byte a second.
    Drip,
    /// `Content-Length` says ten times what is sent, then the connection closes.
    Short(Vec<u8>),
    /// The answer, after this many milliseconds.
    After(u64, Box<Answer>),
}

/// 200 with `body`.
pub fn ok(body: impl Into<Vec<u8>>) -> Answer {
    Answer::Plain(200, Vec::new(), body.into())
}

/// 200 with a JSON `body`.
pub fn json(body: impl Into<Vec<u8>>) -> Answer {
    Answer::Plain(
        200,
        vec![("Content-Type".into(), "application/json".into())],
        body.into(),
    )
}

/// `code` with the Hub's `X-Error-Code` when given.
pub fn status(code: u16, error_code: Option<&str>) -> Answer {
    let h = error_code.map(|c| ("X-Error-Code".to_string(), c.to_string()));
    Answer::Plain(code, h.into_iter().collect(), b"{}".to_vec())
}

/// A 302 to `to`.
pub fn redirect(to: &str) -> Answer {
    Answer::Plain(302, vec![("Location".into(), to.into())], Vec::new())
}

/// Path (with its query) → answer.
pub type Routes = HashMap<String, Answer>;

/// A request as the stand-in saw it.
#[derive(Clone, Debug)]
pub struct Request {
    /// `GET` …
    pub method: String,
    /// The path and query, after the listener's prefix (`cdn:` on a file host).
    pub path: String,
    /// The `Range` header, or empty.
    pub range: String,
    /// The `Authorization` header.
    pub auth: Option<String>,
}

/// What the stand-in was asked, and the bytes of file data it sent.
#[derive(Default)]
pub struct Log {
    /// Every request, in order.
    pub requests: Vec<Request>,
    /// Bytes of [`Answer::File`] data sent.
    pub sent: u64,
}

/// A log shared by the listeners of one stand-in (the Hub, its file host …).
pub type Shared = Arc<Mutex<Log>>;

/// A running stand-in: its base URL and its log.
pub struct StandIn {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// What it was asked and sent.
    pub log: Shared,
}

fn lock(log: &Shared) -> std::sync::MutexGuard<'_, Log> {
    log.lock().unwrap_or_else(PoisonError::into_inner)
}

impl StandIn {
    /// `routes` on a free port.
    ///
    /// # Panics
    /// When no port on 127.0.0.1 can be had.
    pub fn start(routes: Routes) -> StandIn {
        StandIn::on(0, routes, "", Shared::default()).expect("a free port on 127.0.0.1")
    }

    /// `routes` on `port` (0: any free one), its requests logged in `log` under `prefix`.
    ///
    /// # Errors
    /// When the port cannot be had.
    pub fn on(port: u16, routes: Routes, prefix: &'static str, log: Shared) -> io::Result<StandIn> {
        let l = TcpListener::bind(("127.0.0.1", port))?;
        let base = format!("http://{}", l.local_addr()?);
        let (routes, shared) = (Arc::new(routes), log.clone());
        std::thread::spawn(move || {
            for s in l.incoming().flatten() {
                let (routes, log) = (routes.clone(), shared.clone());
                std::thread::spawn(move || serve(s, &routes, prefix, &log));
            }
        });
        Ok(StandIn { base, log })
    }

    /// Each request's path and `Authorization`.
    pub fn seen(&self) -> Vec<(String, Option<String>)> {
        lock(&self.log)
            .requests
            .iter()
            .map(|r| (r.path.clone(), r.auth.clone()))
            .collect()
    }

    /// Bytes of file data sent.
    pub fn sent(&self) -> u64 {
        lock(&self.log).sent
    }
}

/// The answer for `path`: its own; the path without its query; any revision of a file or of a
/// model info (`/resolve/*/`, `/api/models/{repo}`); a missing repo or file.
fn find(routes: &Routes, path: &str) -> Answer {
    let bare = path.split('?').next().unwrap_or(path);
    let any = any_revision(bare);
    [path, bare, any.as_str()]
        .iter()
        .find_map(|p| routes.get(*p).cloned())
        .unwrap_or_else(|| {
            if bare.starts_with("/api/models/") {
                status(404, Some("RepoNotFound"))
            } else {
                status(404, Some("EntryNotFound"))
            }
        })
}

/// `/org/name/resolve/REV/file` → `/org/name/resolve/*/file`;
/// `/api/models/org/name/revision/REV` → `/api/models/org/name`.
fn any_revision(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    if path.starts_with("/api/models/") && parts.len() == 7 && parts[5] == "revision" {
        return parts[..5].join("/");
    }
    if parts.len() >= 6 && parts[3] == "resolve" {
        let mut p = parts.clone();
        p[4] = "*";
        return p.join("/");
    }
    path.to_string()
}

/// The request line's method and path, and the `Range` and `Authorization` headers (the head
/// read is bounded: 64 KiB).
fn read_head(s: &TcpStream) -> Option<Request> {
    let mut r = BufReader::new(s.try_clone().ok()?.take(64 * 1024));
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut words = line.split_whitespace();
    let (method, path) = (words.next()?.to_string(), words.next()?.to_string());
    let (mut range, mut auth) = (String::new(), None);
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        let (k, v) = h.split_once(':').unwrap_or((&h, ""));
        match k.trim().to_ascii_lowercase().as_str() {
            "range" => range = v.trim().to_string(),
            "authorization" => auth = Some(v.trim().to_string()),
            _ => {}
        }
    }
    Some(Request {
        method,
        path,
        range,
        auth,
    })
}

/// `bytes=A-B` → (A, B).
fn closed_range(range: &str) -> Option<(u64, u64)> {
    let (a, b) = range.strip_prefix("bytes=")?.split_once('-')?;
    let (a, b) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    (a <= b).then_some((a, b))
}

/// The status line and headers (CORS on every answer, as the Hub sends them).
fn head(code: u16, len: u64, headers: &[(String, String)]) -> String {
    let mut h = format!(
        "HTTP/1.1 {code} X\r\nContent-Length: {len}\r\nConnection: close\r\n\
Access-Control-Allow-Origin: *\r\n\
Access-Control-Expose-Headers: Content-Range, Content-Length, X-Error-Code\r\n"
    );
    for (k, v) in headers {
        h.push_str(&format!("{k}: {v}\r\n"));
    }
    h.push_str("\r\n");
    h
}

fn serve(mut s: TcpStream, routes: &Routes, prefix: &str, log: &Shared) {
    let Some(mut req) = read_head(&s) else {
        return;
    };
    if let Some(rest) = req.path.strip_prefix("/_standin/head/") {
        let first = match routes.get(&format!("/cdn/{rest}")) {
            Some(Answer::File { head, .. }) => head.to_vec(),
            _ => Vec::new(),
        };
        let code = if first.is_empty() { 404 } else { 200 };
        let _ = s.write_all(head(code, first.len() as u64, &[]).as_bytes());
        let _ = s.write_all(&first);
        return;
    }
    if let Some(body) = control(&req.path, log) {
        let _ = s.write_all(head(200, body.len() as u64, &[]).as_bytes());
        let _ = s.write_all(body.as_bytes());
        return;
    }
    let answer = if req.method == "GET" {
        find(routes, &req.path)
    } else {
        Answer::Plain(405, Vec::new(), Vec::new())
    };
    req.path = format!("{prefix}{}", req.path);
    let range = req.range.clone();
    lock(log).requests.push(req);
    answer_with(&mut s, answer, &range, log);
}

/// `/_standin/log`: `{"sent":N,"requests":[[method, path, range] …]}`; `/_standin/reset`
/// clears the log. `None` for any other path.
fn control(path: &str, log: &Shared) -> Option<String> {
    let mut l = lock(log);
    match path {
        "/_standin/reset" => {
            *l = Log::default();
            Some("{}".into())
        }
        "/_standin/log" => {
            let q = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
            let rows: Vec<String> = l
                .requests
                .iter()
                .map(|r| format!(r#"["{}","{}","{}"]"#, q(&r.method), q(&r.path), q(&r.range)))
                .collect();
            Some(format!(
                r#"{{"sent":{},"requests":[{}]}}"#,
                l.sent,
                rows.join(",")
            ))
        }
        _ => None,
    }
}

fn answer_with(s: &mut TcpStream, answer: Answer, range: &str, log: &Shared) {
    let _ = match answer {
        Answer::Plain(code, headers, body) => {
            let body = match closed_range(range) {
                Some((a, b)) if !body.is_empty() => {
                    let end = usize::try_from(b).unwrap_or(usize::MAX).min(body.len() - 1);
                    let start = usize::try_from(a).unwrap_or(usize::MAX).min(end + 1);
                    body.get(start..=end).unwrap_or_default().to_vec()
                }
                _ => body,
            };
            s.write_all(head(code, body.len() as u64, &headers).as_bytes())
                .and_then(|()| s.write_all(&body))
        }
        Answer::File {
            size,
            head: first,
            cut,
        } => file(s, size, &first, cut, range, log),
        Answer::Endless => {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n");
            let braces = vec![b'{'; 1 << 16];
            while s.write_all(&braces).is_ok() {}
            Ok(())
        }
        Answer::Drip => {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
            for _ in 0..1000 {
                if s.write_all(b" ").is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_secs(1));
            }
            Ok(())
        }
        Answer::Short(body) => s
            .write_all(head(200, body.len() as u64 * 10, &[]).as_bytes())
            .and_then(|()| s.write_all(&body)),
        Answer::After(ms, inner) => {
            std::thread::sleep(Duration::from_millis(ms));
            answer_with(s, *inner, range, log);
            Ok(())
        }
    };
}

/// A file's closed range: 206, its bytes (the head, then zeros), counted as sent.
fn file(
    s: &mut TcpStream,
    size: u64,
    first: &[u8],
    cut: bool,
    range: &str,
    log: &Shared,
) -> io::Result<()> {
    let Some((a, b)) = closed_range(range).filter(|&(a, _)| a < size) else {
        let msg = b"a closed range within the file is required here";
        s.write_all(head(400, msg.len() as u64, &[]).as_bytes())?;
        return s.write_all(msg);
    };
    let b = b.min(size - 1);
    // The stand-in's files are small heads with large listed sizes: at most 64 MiB is sent.
    let len = usize::try_from(b - a + 1)
        .unwrap_or(usize::MAX)
        .min(64 << 20);
    let mut body = vec![0u8; len];
    let from = usize::try_from(a).unwrap_or(usize::MAX);
    if let Some(src) = first.get(from..) {
        let n = src.len().min(len);
        body[..n].copy_from_slice(&src[..n]);
    }
    let range_header = vec![
        ("Content-Type".into(), "application/octet-stream".into()),
        ("Content-Range".into(), format!("bytes {a}-{b}/{size}")),
    ];
    s.write_all(head(206, len as u64, &range_header).as_bytes())?;
    let send = if cut { len / 2 } else { len };
    s.write_all(&body[..send])?;
    lock(log).sent += send as u64;
    if cut {
        s.shutdown(Shutdown::Both)?;
    }
    Ok(())
}
