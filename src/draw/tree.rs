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
#[derive(Clone, Debug)]
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
    /// Its markup's byte range in the source, its end tag included.
    span: (usize, usize),
}

/// Elements in document order, and the markup they were read from: what the page compares with
/// what is on the screen to change only what differs ([`patch`], [`edits`]).
#[derive(Clone, Debug, Default)]
pub struct Tree(pub Vec<Node>, String);

/// Two elements are equal when they show the same (where their markup sat aside).
impl PartialEq for Node {
    fn eq(&self, o: &Node) -> bool {
        (&self.tag, &self.attrs, &self.text, self.mixed, self.end)
            == (&o.tag, &o.attrs, &o.text, o.mixed, o.end)
    }
}

/// Two trees are equal when their elements are (however the markup spelled them).
impl PartialEq for Tree {
    fn eq(&self, o: &Tree) -> bool {
        self.0 == o.0
    }
}

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
            let start = markup.len() - rest.len();
            let tag = &rest[1..gt];
            rest = &rest[gt + 1..];
            let at = markup.len() - rest.len();
            if let Some(name) = tag.strip_prefix('/') {
                let k = open.pop()?;
                if nodes[k].tag != name {
                    return None;
                }
                nodes[k].end = nodes.len();
                nodes[k].span.1 = at;
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
                span: (start, markup.len() - rest.len()),
            });
            if !closed {
                open.push(k);
            }
        }
        open.is_empty().then(|| Tree(nodes, markup.to_string()))
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
/// attributes (a slider tick moves segments and rewrites numbers): [`edits`] with nothing
/// removed or inserted; `None` when they differ in shape (a term, a card or a line comes or
/// goes).
pub fn patch(old: &Tree, new: &Tree) -> Option<Vec<Change>> {
    edits(old, new)
        .filter(|e| e.removes.is_empty() && e.inserts.is_empty())
        .map(|e| e.changes)
}

/// Markup to put among an element's children: before the element `before` (in the old tree's
/// document order), or after the last child when `None`; `parent` `None` is the drawing's own
/// container.
#[derive(Clone, Debug, PartialEq)]
pub struct Insert {
    pub parent: Option<u32>,
    pub before: Option<u32>,
    pub markup: String,
}

/// What turns `old` on the screen into `new` when they differ by whole elements added or
/// removed among one parent's children (a card comes or goes): the changes of [`patch`] on the
/// elements both have, the elements to remove (old document order) and the markup to insert.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Edits {
    pub changes: Vec<Change>,
    pub removes: Vec<u32>,
    pub inserts: Vec<Insert>,
}

/// [`Edits`] from `old` to `new`: children are paired from the front and from the back while
/// they have the same shape (each pair patched in place), and what is left between is removed
/// from `old` and inserted from `new` (an element whose tag or attribute names change is one
/// removed and one inserted; so is an element whose children come or go beside text of its
/// own). `None` only for a tree too large to count in `u32`.
pub fn edits(old: &Tree, new: &Tree) -> Option<Edits> {
    let mut out = Edits::default();
    let (oc, nc) = (children(old, None), children(new, None));
    pair_children(old, new, None, &oc, &nc, &mut out).then_some(out)
}

/// The children of element `k` (the top level for `None`), as indices in document order.
fn children(t: &Tree, k: Option<usize>) -> Vec<usize> {
    let (mut j, end) = match k {
        Some(k) => (k + 1, t.0[k].end),
        None => (0, t.0.len()),
    };
    let mut out = Vec::new();
    while j < end {
        out.push(j);
        j = t.0[j].end.max(j + 1);
    }
    out
}

/// Element `o` of `old` made element `n` of `new` in place, its children paired
/// ([`pair_children`]); false when the two differ in shape.
fn edit_node(old: &Tree, new: &Tree, o: usize, n: usize, out: &mut Edits) -> bool {
    let (a, b) = (&old.0[o], &new.0[n]);
    let same = a.tag == b.tag
        && a.mixed == b.mixed
        && (!a.mixed || a.text == b.text)
        && a.attrs.len() == b.attrs.len()
        && a.attrs.iter().zip(&b.attrs).all(|(x, y)| x.0 == y.0);
    let Ok(k) = u32::try_from(o) else {
        return false;
    };
    if !same {
        return false;
    }
    for (x, y) in a.attrs.iter().zip(&b.attrs) {
        if x.1 != y.1 {
            out.changes.push(Change {
                k,
                name: y.0.clone(),
                value: y.1.clone(),
            });
        }
    }
    if a.text != b.text {
        out.changes.push(Change {
            k,
            name: String::new(),
            value: b.text.clone().unwrap_or_default(),
        });
    }
    let (oc, nc) = (children(old, Some(o)), children(new, Some(n)));
    pair_children(old, new, Some(o), &oc, &nc, out)
}

/// `oc` (children of `parent` in `old`) made `nc` (in `new`): pairs from the front, then from
/// the back, edited in place; the rest of `oc` removed and the rest of `nc` inserted.
fn pair_children(
    old: &Tree,
    new: &Tree,
    parent: Option<usize>,
    oc: &[usize],
    nc: &[usize],
    out: &mut Edits,
) -> bool {
    let tried = |o: usize, n: usize, out: &mut Edits| {
        let mut e = Edits::default();
        let ok = edit_node(old, new, o, n, &mut e);
        if ok {
            out.changes.extend(e.changes);
            out.removes.extend(e.removes);
            out.inserts.extend(e.inserts);
        }
        ok
    };
    let shorter = oc.len().min(nc.len());
    let mut front = 0;
    while front < shorter && tried(oc[front], nc[front], out) {
        front += 1;
    }
    let mut back = 0;
    while front + back < shorter && tried(oc[oc.len() - 1 - back], nc[nc.len() - 1 - back], out) {
        back += 1;
    }
    let (gone, come) = (&oc[front..oc.len() - back], &nc[front..nc.len() - back]);
    if gone.is_empty() && come.is_empty() {
        return true;
    }
    if parent.is_some_and(|p| old.0[p].mixed) {
        return false;
    }
    for &g in gone {
        let Ok(g) = u32::try_from(g) else {
            return false;
        };
        out.removes.push(g);
    }
    if let (Some(&first), Some(&last)) = (come.first(), come.last()) {
        let markup = new.1[new.0[first].span.0..new.0[last].span.1].to_string();
        out.inserts.push(Insert {
            parent: parent.and_then(|p| u32::try_from(p).ok()),
            before: (back > 0)
                .then(|| u32::try_from(oc[oc.len() - back]).ok())
                .flatten(),
            markup,
        });
    }
    true
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

    /// An element as the screen holds it: `id` is its index in the old tree (`usize::MAX` for
    /// one inserted).
    #[derive(Clone, Debug, PartialEq)]
    struct El {
        id: usize,
        tag: String,
        attrs: Vec<(String, String)>,
        text: Option<String>,
        kids: Vec<El>,
    }

    fn forest(t: &Tree, k: Option<usize>, ids: bool) -> Vec<El> {
        children(t, k)
            .into_iter()
            .map(|c| El {
                id: if ids { c } else { usize::MAX },
                tag: t.0[c].tag.clone(),
                attrs: t.0[c].attrs.clone(),
                text: t.0[c].text.clone(),
                kids: forest(t, Some(c), ids),
            })
            .collect()
    }

    fn each(els: &mut [El], f: &mut dyn FnMut(&mut El)) {
        for e in els.iter_mut() {
            f(e);
            each(&mut e.kids, f);
        }
    }

    /// `e` applied to the screen showing `old` as the page applies it (elements found by their
    /// old index before anything moves); what the screen shows then, without ids.
    fn screen_after(old: &Tree, e: &Edits) -> Vec<El> {
        let mut top = forest(old, None, true);
        each(&mut top, &mut |el| {
            for c in e.changes.iter().filter(|c| c.k as usize == el.id) {
                if c.name.is_empty() {
                    el.text = Some(c.value.clone());
                } else if let Some(a) = el.attrs.iter_mut().find(|a| a.0 == c.name) {
                    a.1 = c.value.clone();
                }
            }
        });
        for ins in &e.inserts {
            let new = forest(&Tree::parse(&ins.markup).expect("markup"), None, false);
            let put = |kids: &mut Vec<El>| {
                let at = ins
                    .before
                    .and_then(|b| kids.iter().position(|k| k.id == b as usize))
                    .unwrap_or(kids.len());
                kids.splice(at..at, new.clone());
            };
            match ins.parent {
                None => put(&mut top),
                Some(p) => each(&mut top, &mut |el| {
                    if el.id == p as usize {
                        put(&mut el.kids)
                    }
                }),
            }
        }
        let gone = |el: &El| e.removes.iter().any(|&r| r as usize == el.id);
        top.retain(|el| !gone(el));
        each(&mut top, &mut |el| el.kids.retain(|k| !gone(k)));
        each(&mut top, &mut |el| el.id = usize::MAX);
        for el in top.iter_mut() {
            el.id = usize::MAX;
        }
        top
    }

    /// Elements added or removed among one parent's children become inserts and removes, and
    /// applying them shows exactly the new markup; same-shape pairs are only patched.
    #[test]
    fn elements_that_come_and_go_are_inserted_and_removed() {
        let parse = |m: &str| Tree::parse(m).expect("parses");
        let card = |i: u32, w: u32| {
            format!(
                r#"<g class="card" data-card="{i}"><rect width="{w}"/><text>GPU {i}</text></g>"#
            )
        };
        let svg = |cards: &[u32], host: bool| {
            let mut m = String::from(r#"<svg viewBox="0 0 10 "#);
            m.push_str(&format!(
                r#"{}"><g class="axis"><line x1="1"/></g>"#,
                cards.len()
            ));
            for (i, w) in cards.iter().enumerate() {
                m.push_str(&card(i as u32, *w));
            }
            if host {
                m.push_str(r#"<g class="host"><rect width="3"/></g>"#);
            }
            m.push_str("</svg><p>after</p>");
            m
        };
        let pairs = [
            (svg(&[5], false), svg(&[5, 6], false)),
            (svg(&[5, 6, 7], false), svg(&[4], false)),
            (svg(&[5], true), svg(&[5, 6, 9], true)),
            (svg(&[5, 6], true), svg(&[5], true)),
            (svg(&[], false), svg(&[1, 2], true)),
            (svg(&[5], false), svg(&[5], false)),
            (
                "<p>a</p>".to_string(),
                "<p>a</p><p>b</p><p>c</p>".to_string(),
            ),
            ("<p>a</p><p>b</p>".to_string(), String::new()),
        ];
        for (a, b) in &pairs {
            let (old, new) = (parse(a), parse(b));
            let e = edits(&old, &new).unwrap_or_else(|| panic!("{a} → {b}"));
            assert_eq!(
                screen_after(&old, &e),
                forest(&new, None, false),
                "{a} → {b}"
            );
        }
        // One card more: the shared card and the axis are patched, one group inserted.
        let e = edits(&parse(&pairs[0].0), &parse(&pairs[0].1)).unwrap();
        assert_eq!((e.removes.len(), e.inserts.len()), (0, 1));
        assert!(e.inserts[0]
            .markup
            .starts_with(r#"<g class="card" data-card="1">"#));
        // Same shape: exactly what `patch` gives.
        let (x, y) = (parse(&svg(&[5, 6], true)), parse(&svg(&[7, 6], true)));
        assert_eq!(edits(&x, &y).map(|e| e.changes), patch(&x, &y));
        // A tag changed, or children that come beside the parent's own text: that element is
        // removed and inserted whole.
        for (a, b) in [
            ("<p>a</p>", "<b>a</b>"),
            ("<p>a <b>1</b></p>", "<p>a <b>1</b><b>2</b></p>"),
        ] {
            let (a, b) = (parse(a), parse(b));
            let e = edits(&a, &b).expect("edits");
            assert_eq!((e.removes.len(), e.inserts.len()), (1, 1));
            assert_eq!(screen_after(&a, &e), forest(&b, None, false));
        }
    }
}
