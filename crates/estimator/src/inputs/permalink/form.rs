//! The form encoding of the query string: `key=value` pairs split and percent-decoded (the URL
//! Standard's urlencoded parser), and values percent-encoded for a permalink.

/// The `application/x-www-form-urlencoded` pairs of `q` (the URL Standard's parser,
/// <https://url.spec.whatwg.org/#urlencoded-parsing>): `&`-separated, empty pieces skipped, split
/// at the first `=`, each side unescaped by [`form_decode`].
pub(super) fn pairs(q: &str) -> impl Iterator<Item = (String, String)> + '_ {
    q.split('&').filter(|p| !p.is_empty()).map(|p| {
        let (k, v) = p.split_once('=').unwrap_or((p, ""));
        (form_decode(k), form_decode(v))
    })
}

/// The first value `q` gives `key` (keys compared trimmed), form-decoded and trimmed: the value
/// the decoder keeps when a key is given twice.
pub fn first_value(q: &str, key: &str) -> Option<String> {
    pairs(q.trim().trim_start_matches('?'))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim().to_string())
}

/// One side of a pair: `+` is a space, `%XX` the byte it names, a malformed escape stays as it
/// is, and bytes that are not UTF-8 become U+FFFD.
pub fn form_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |k: usize| b.get(k).and_then(|&x| char::from(x).to_digit(16));
    let mut out = Vec::with_capacity(b.len());
    let mut k = 0;
    while k < b.len() {
        match (b[k], hex(k + 1), hex(k + 2)) {
            (b'+', _, _) => out.push(b' '),
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                k += 2;
            }
            (c, _, _) => out.push(c),
        }
        k += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encode a query value: letters, digits and `- _ . ~ / ,` are written literally (the
/// repo id's `/` and a list's `,` stay readable); every other byte as [`percent_encode`] writes it.
pub(super) fn escape(s: &str) -> String {
    percent_encode(s, b"-_.~/,")
}

/// Percent-encode `s`: ASCII letters, digits and the bytes of `keep` literally, every other byte
/// of the UTF-8 text as `%XX` (RFC 3986, section 2.1, upper-case hex). The one encoder of the
/// permalink and of the Hub addresses the page requests.
pub fn percent_encode(s: &str, keep: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || keep.contains(&b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}
