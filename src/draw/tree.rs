//! Markup read back as its elements in document order, and the patch that turns one such list
//! into another of the same shape: the page draws a panel once and then rewrites only the
//! attributes and texts that changed, so a slider tick touches a few numbers and not whole
//! views (a rebuilt element would have every attribute removed and set again), and focus stays
//! where it was.
//!
//! It reads the markup this crate writes (`draw/`): elements with double-quoted attributes,
//! text escaped as [`fitcard_estimator::badge::xml_escape`] escapes it. Anything else is no tree
//! (`None`), and the page then writes the markup anew.

/// One element, in document order.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub tag: String,
    /// Its attributes, in the order written (unescaped).
    pub attrs: Vec<(String, String)>,
    /// Its own text (unescaped), when it has no child elements.
    pub text: Option<String>,
    /// It has child elements and text of its own: its text is not patched.
    mixed: bool,
    /// One past the index of its last descendant.
    end: usize,
}

/// Elements in document order: what the page compares with what is on the screen to change
/// only what differs ([`patch`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tree(pub Vec<Node>);

/// A change to what is on the screen: element `k` (in document order) gets attribute `name`'s
/// new value, or (`name` empty) its new text.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub k: u32,
    pub name: String,
    pub value: String,
}

/// Longest markup read back (a drawing is a few kilobytes).
const MAX_MARKUP: usize = 1 << 20;

/// `s` with the entities of `xml_escape` (and numeric ones) replaced.
fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find(';').filter(|&e| e <= 10);
        let ent = end.map(|e| &rest[1..e]);
        let c = match ent {
            Some("amp") => Some('&'),
            Some("lt") => Some('<'),
            Some("gt") => Some('>'),
            Some("quot") => Some('"'),
            Some("apos") => Some('\''),
            Some(n) if n.starts_with('#') => n[1..].parse::<u32>().ok().and_then(char::from_u32),
            _ => None,
        };
        match (c, end) {
            (Some(c), Some(e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

impl Tree {
    /// The elements of `markup`, or `None` when it is not markup this crate writes.
    pub fn parse(markup: &str) -> Option<Tree> {
        if markup.len() > MAX_MARKUP {
            return None;
        }
        let mut nodes: Vec<Node> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        let mut rest = markup;
        while !rest.is_empty() {
            let lt = rest.find('<').unwrap_or(rest.len());
            let text = &rest[..lt];
            if !text.is_empty() {
                let k = *open.last()?;
                let children = nodes.len() > k + 1;
                let node = &mut nodes[k];
                node.mixed |= children;
                node.text
                    .get_or_insert_with(String::new)
                    .push_str(&unescape(text));
            }
            rest = &rest[lt..];
            if rest.is_empty() {
                break;
            }
            let gt = rest.find('>')?;
            let tag = &rest[1..gt];
            rest = &rest[gt + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                let k = open.pop()?;
                if nodes[k].tag != name {
                    return None;
                }
                nodes[k].end = nodes.len();
                continue;
            }
            let (tag, closed) = match tag.strip_suffix('/') {
                Some(t) => (t, true),
                None => (tag, false),
            };
            if let Some(&p) = open.last() {
                let parent = &mut nodes[p];
                parent.mixed |= parent.text.is_some();
            }
            let (name, attrs) = Self::tag(tag)?;
            let k = nodes.len();
            nodes.push(Node {
                tag: name,
                attrs,
                text: None,
                mixed: false,
                end: k + 1,
            });
            if !closed {
                open.push(k);
            }
        }
        open.is_empty().then_some(Tree(nodes))
    }

    /// A start tag's name and attributes (`name a="v" b="w"`).
    fn tag(s: &str) -> Option<(String, Vec<(String, String)>)> {
        let s = s.trim_end();
        let (name, mut rest) = s.split_once(' ').unwrap_or((s, ""));
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return None;
        }
        let mut attrs = Vec::new();
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                break;
            }
            let (key, after) = rest.split_once("=\"")?;
            let (value, after) = after.split_once('"')?;
            attrs.push((key.to_string(), unescape(value)));
            rest = after;
        }
        Some((name.to_string(), attrs))
    }
}

/// What changes `old` on the screen into `new`, when both have the same elements with the same
/// attributes (a slider tick moves segments and rewrites numbers); `None` when they differ in
/// shape (a term, a card or a line comes or goes), and the markup is written anew.
pub fn patch(old: &Tree, new: &Tree) -> Option<Vec<Change>> {
    if old.0.len() != new.0.len() {
        return None;
    }
    let mut out = Vec::new();
    for (k, (a, b)) in old.0.iter().zip(&new.0).enumerate() {
        let same_shape = a.tag == b.tag
            && a.end == b.end
            && a.mixed == b.mixed
            && (!a.mixed || a.text == b.text)
            && a.attrs.len() == b.attrs.len()
            && a.attrs.iter().zip(&b.attrs).all(|(x, y)| x.0 == y.0);
        if !same_shape {
            return None;
        }
        let k = u32::try_from(k).ok()?;
        for (x, y) in a.attrs.iter().zip(&b.attrs) {
            if x.1 != y.1 {
                out.push(Change {
                    k,
                    name: y.0.clone(),
                    value: y.1.clone(),
                });
            }
        }
        if a.text != b.text {
            out.push(Change {
                k,
                name: String::new(),
                value: b.text.clone().unwrap_or_default(),
            });
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `changes` applied to `t` as the page applies them: element `k` in document order.
    fn apply(t: &Tree, changes: &[Change]) -> Tree {
        let mut t = t.clone();
        for c in changes {
            let node = &mut t.0[c.k as usize];
            if c.name.is_empty() {
                node.text = Some(c.value.clone());
            } else if let Some(a) = node.attrs.iter_mut().find(|a| a.0 == c.name) {
                a.1 = c.value.clone();
            } else {
                panic!("no attribute {} on element {}", c.name, c.k);
            }
        }
        t
    }

    fn sample(n: &str) -> Tree {
        let m = format!(
            r#"<div class="box"><strong>Fits</strong><p title="{n}"><span class="num">{n}</span></p><line x1="2"/></div>"#
        );
        Tree::parse(&m).expect("parses")
    }

    #[test]
    fn a_patch_rewrites_what_differs() {
        let a = sample("1 GiB");
        assert_eq!(a.0.len(), 5);
        assert_eq!(a.0[0].end, 5);
        assert_eq!(a.0[2].end, 4);
        assert_eq!(a.0[4].tag, "line");
        assert_eq!(a.0[3].text.as_deref(), Some("1 GiB"));
        let b = sample("2 &lt;GiB&gt; &amp; &#39;x&apos;");
        assert_eq!(b.0[3].text.as_deref(), Some("2 <GiB> & 'x'"));
        let changes = patch(&a, &b).expect("same shape");
        assert_eq!(changes.len(), 2);
        assert_eq!((changes[0].k, changes[0].name.as_str()), (2, "title"));
        assert_eq!(changes[0].value, "2 <GiB> & 'x'");
        assert_eq!((changes[1].k, changes[1].name.as_str()), (3, ""));
        assert_eq!(apply(&a, &changes), b);
        assert_eq!(patch(&a, &a), Some(Vec::new()));
    }

    #[test]
    fn another_shape_is_written_anew() {
        let a = sample("1 GiB");
        let parse = |m: &str| Tree::parse(m).expect("parses");
        let other = [
            r#"<div class="box"><b>Fits</b><p title="1"><span class="num">1</span></p><line x1="2"/></div>"#,
            r#"<div class="box"><strong>Fits</strong><p><span class="num">1</span></p><line x1="2"/></div>"#,
            r#"<div class="box"><strong>Fits</strong><p title="1"></p><span class="num">1</span><line x1="2"/></div>"#,
        ];
        for m in other {
            assert_eq!(patch(&a, &parse(m)), None, "{m}");
        }
        // Text beside child elements is not patched: a change to it redraws.
        let (x, y) = (parse("<p>a <b>1</b></p>"), parse("<p>b <b>1</b></p>"));
        assert_eq!(patch(&x, &y), None);
        assert_eq!(
            patch(&x, &parse("<p>a <b>2</b></p>")).map(|c| c.len()),
            Some(1)
        );
    }

    #[test]
    fn what_is_not_our_markup_is_no_tree() {
        for m in [
            "<div>",
            "</div>",
            "<div></p>",
            "<div a=b></div>",
            "<>x</>",
            "text",
            "<div",
            "<p>x</p>y",
        ] {
            assert_eq!(Tree::parse(m), None, "{m}");
        }
        assert_eq!(Tree::parse(""), Some(Tree::default()));
        assert_eq!(
            unescape("a &bogus; &#99999999; &"),
            "a &bogus; &#99999999; &"
        );
        assert!(Tree::parse(&"<b>".repeat(MAX_MARKUP)).is_none());
    }
}
