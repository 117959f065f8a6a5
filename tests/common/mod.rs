//! The source scanner the layout and house tests share: where a comment or literal ends.

pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The index just past the literal or comment that starts at `k`, or `None` when none does:
/// `//` and `/* */` comments (nested), string literals (raw and byte ones too) and char
/// literals (not lifetimes).
pub fn skip_literal(c: &[char], k: usize) -> Option<usize> {
    let at = |i: usize| c.get(i).copied();
    match (c[k], at(k + 1)) {
        ('/', Some('/')) => Some((k..c.len()).find(|&i| c[i] == '\n').unwrap_or(c.len())),
        ('/', Some('*')) => {
            let (mut i, mut depth) = (k + 2, 1);
            while i < c.len() && depth > 0 {
                match (c[i], at(i + 1)) {
                    ('/', Some('*')) => (depth, i) = (depth + 1, i + 2),
                    ('*', Some('/')) => (depth, i) = (depth - 1, i + 2),
                    _ => i += 1,
                }
            }
            Some(i)
        }
        ('"', _) => {
            let mut i = k + 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            Some(i + 1)
        }
        // A raw string: r"…", r#"…"#, br#"…"# (not an identifier ending in r).
        ('r', _)
            if k == 0
                || !is_ident(c[k - 1])
                || (c[k - 1] == 'b' && (k < 2 || !is_ident(c[k - 2]))) =>
        {
            let hashes = c[k + 1..].iter().take_while(|&&h| h == '#').count();
            if at(k + 1 + hashes) != Some('"') {
                return None;
            }
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let from = k + 2 + hashes;
            let end = (from..c.len())
                .find(|&i| c[i..].starts_with(&close))
                .map_or(c.len(), |i| i + close.len());
            Some(end)
        }
        // A char literal ('x', '\n', '\u{2192}'), not a lifetime ('a).
        ('\'', _) if at(k + 2) == Some('\'') || at(k + 1) == Some('\\') => {
            let mut i = k + 1;
            while i < c.len() && c[i] != '\'' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            Some(i + 1)
        }
        _ => None,
    }
}
