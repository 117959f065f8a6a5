//! The few browser calls the page makes: read and replace the query string, set the title, copy
//! text, watch an element's size and whether it is in view, and report the embed's height to
//! its parent. Nothing is leaked: a size observer belongs to the component that made it, and
//! the view observer is one per page (index.html's, handed each new panel). Failures are
//! swallowed on purpose: a browser that refuses one of them still shows a working calculator.

use crate::text::share::HEIGHT_MESSAGE;
use leptos::prelude::{window, StoredValue};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The current query string, with its leading `?` (or empty).
pub fn query() -> String {
    window().location().search().unwrap_or_default()
}

/// Replace the URL's query in place: no new history entry, no reload.
pub fn replace_query(q: &str) {
    if let Ok(h) = window().history() {
        let url = format!("?{}", q.trim_start_matches('?'));
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Id of the static placeholder `index.html` shows until the calculator mounts.
const PLACEHOLDER: &str = "boot";

/// Remove the static placeholder (the app takes its place).
pub fn remove_placeholder() {
    if let Some(el) = window()
        .document()
        .and_then(|d| d.get_element_by_id(PLACEHOLDER))
    {
        el.remove();
    }
}

/// The placeholder's panel of class `class` (`#boot .{class}`), while the placeholder is shown.
pub fn boot_panel(class: &str) -> Option<web_sys::Element> {
    window()
        .document()?
        .query_selector(&format!("#{PLACEHOLDER} .{class}"))
        .ok()
        .flatten()
}

/// The window property that carries the focused control's id across the hand-over to the whole
/// calculator.
const FOCUS_KEY: &str = "fitcardFocus";

/// Remember the focused control (the page is about to hand over to the whole calculator).
pub fn remember_focus() {
    if let Some(a) = window().document().and_then(|d| d.active_element()) {
        let _ = js_sys::Reflect::set(&window(), &FOCUS_KEY.into(), &a.id().into());
    }
}

/// Focus the control [`remember_focus`] named, once (the whole calculator, having mounted in
/// place of the page that handed over: a keyboard user stays on the control they used).
pub fn restore_focus() {
    let key = JsValue::from(FOCUS_KEY);
    if let Some(id) = js_sys::Reflect::get(&window(), &key)
        .ok()
        .and_then(|v| v.as_string())
    {
        let _ = js_sys::Reflect::delete_property(&window(), &key);
        keep_focus(vec![id]);
    }
}

/// The window property that carries the notices across the hand-over (a family that moved the
/// engine, say so in the whole calculator too): one `key<TAB>message` line each.
const NOTICES_KEY: &str = "fitcardNotices";

/// Keep `lines` (the notices shown) for the whole calculator the page hands over to.
pub fn hand_notices(lines: String) {
    let _ = js_sys::Reflect::set(&window(), &NOTICES_KEY.into(), &lines.into());
}

/// The notices [`hand_notices`] kept, once (the whole calculator).
#[cfg(feature = "train")]
pub fn take_notices() -> Option<String> {
    let key = JsValue::from(NOTICES_KEY);
    let v = js_sys::Reflect::get(&window(), &key).ok()?.as_string();
    let _ = js_sys::Reflect::delete_property(&window(), &key);
    v
}

/// Load the whole calculator (`fitcard-full`: train mode too) in place of the page built without
/// train mode, which has just unmounted itself: a start-up placeholder says so until it mounts,
/// and why, in one line, if it cannot be loaded.
pub fn load_full() {
    let Some(d) = window().document() else {
        return;
    };
    if let (Ok(boot), Ok(status), Some(body)) =
        (d.create_element("div"), d.create_element("p"), d.body())
    {
        boot.set_id(PLACEHOLDER);
        boot.set_class_name("page boot");
        status.set_class_name("boot-status");
        let _ = status.set_attribute("role", "status");
        status.set_text_content(Some("Loading the whole calculator…"));
        let _ = boot.append_child(&status);
        let _ = body.append_child(&boot);
    }
    // trunk's loader module of the whole calculator (`import init from './fitcard-full.js';
    // await init();`, beside it in `train/`): its name is here only, so nothing the first
    // estimate downloads points at it.
    let Ok(script) = d.create_element("script") else {
        return boot_failed("the whole calculator cannot be loaded in this browser");
    };
    let _ = script.set_attribute("type", "module");
    let failed = Closure::once_into_js(|| {
        boot_failed(
            "the whole calculator could not be loaded (no network and no cached copy): reload",
        )
    });
    let _ = script.add_event_listener_with_callback("error", failed.unchecked_ref());
    let _ = script.set_attribute("src", FULL_LOADER);
    if let Some(head) = d.head() {
        let _ = head.append_child(&script);
    }
}

/// The whole calculator's loader (trunk's `data-loader-shim`), in its own folder of the site
/// (`data-target-path="train"` in index.html): a build apart from what the page loads first.
const FULL_LOADER: &str = "train/fitcard-full_loader.js";

/// Say in the start-up placeholder why the calculator could not start (as text).
pub fn boot_failed(msg: &str) {
    if let Some(el) = window()
        .document()
        .and_then(|d| d.query_selector(".boot-status").ok().flatten())
    {
        el.set_text_content(Some(&format!("fitcard could not start: {msg}.")));
    }
}

/// Set the document's title (plain text: a title is never parsed as markup).
pub fn set_title(title: &str) {
    if let Some(d) = window().document() {
        d.set_title(title);
    }
}

/// Origin and path of this page, without query or fragment (the base of shared links).
pub fn page_url() -> String {
    let l = window().location();
    format!(
        "{}{}",
        l.origin().unwrap_or_default(),
        l.pathname().unwrap_or_default()
    )
}

/// After the page has re-rendered, give focus to the first of `ids` that exists, but only when
/// the focused element was removed by the change (focus fell back to `<body>`): a keyboard user
/// stays where they were, or lands on the nearest neighbour.
pub fn keep_focus(ids: Vec<String>) {
    leptos::prelude::request_animation_frame(move || {
        let Some(doc) = window().document() else {
            return;
        };
        let lost = match (doc.active_element(), doc.body()) {
            (Some(a), Some(b)) => a.is_same_node(Some(&b)),
            _ => true,
        };
        if !lost {
            return;
        }
        if let Some(el) = ids
            .iter()
            .find_map(|id| doc.get_element_by_id(id))
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    });
}

/// Post the page height to the parent window whenever the body changes size, so an embedding
/// page can size its `<iframe>` (message `{type: "fitcard:height", height}`), for as long as
/// the calling component lives.
pub fn report_height() {
    let Some(body) = window().document().and_then(|d| d.body()) else {
        return;
    };
    let target = body.clone();
    on_resize(&body, move || {
        let height = target.offset_height();
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"type".into(), &HEIGHT_MESSAGE.into());
        let _ = js_sys::Reflect::set(&msg, &"height".into(), &height.into());
        if let Ok(Some(parent)) = window().parent() {
            let _ = parent.post_message(&msg, "*");
        }
    });
}

/// A `ResizeObserver` and its callback, disconnected when dropped.
struct SizeObserver {
    observer: web_sys::ResizeObserver,
    _callback: Closure<dyn FnMut(JsValue)>,
}

impl Drop for SizeObserver {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// Call `f` whenever `el` changes size (and once when the observation starts), for as long as
/// the current reactive owner (the calling component) lives: the observer is kept in the
/// owner's arena, which drops it, disconnected, when the component is cleaned up.
pub fn on_resize(el: &web_sys::Element, mut f: impl FnMut() + 'static) {
    let callback = Closure::<dyn FnMut(JsValue)>::new(move |_entries: JsValue| f());
    if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
        observer.observe(el);
        StoredValue::new_local(SizeObserver {
            observer,
            _callback: callback,
        });
    }
}

/// Watch whether `el` (the estimate's panel) is in the viewport: index.html's
/// `window.fitcardWatch` observes it (an `IntersectionObserver`, one per page: watching another
/// element disconnects the last) and keeps the answer for [`away`]. The browser tells after
/// its frames: nothing is laid out for it.
pub fn watch(el: &web_sys::Element) {
    let w = window();
    if let Ok(f) = js_sys::Reflect::get(&w, &"fitcardWatch".into()) {
        if let Some(f) = f.dyn_ref::<js_sys::Function>() {
            let _ = f.call1(&w, el);
        }
    }
}

/// Is the element [`watch`]ed scrolled wholly out of view (as the browser last observed it)?
/// A plain read, not a signal: a view reading it follows the change from its next update.
pub fn away() -> bool {
    js_sys::Reflect::get(&window(), &"fitcardAway".into()).is_ok_and(|v| v.is_truthy())
}

/// Put `text` on the clipboard. `false` when the browser refused.
pub async fn copy(text: String) -> bool {
    let p = window().navigator().clipboard().write_text(&text);
    wasm_bindgen_futures::JsFuture::from(p).await.is_ok()
}

/// `markup` shown as the content of `el`, which shows `old` now: the attributes and texts that
/// differ are written, and whole elements that come or go are inserted or removed
/// ([`crate::draw::tree::edits`]: a card added to the bar is one group inserted, not the bar
/// rewritten); elements are counted in `old`'s document order and found before anything moves.
/// Markup that is not this crate's is written anew. Gives what `el` shows then, and whether it
/// was written anew.
pub fn show_markup(
    el: &web_sys::Element,
    old: Option<&crate::draw::tree::Tree>,
    markup: &str,
) -> (Option<crate::draw::tree::Tree>, bool) {
    let new = crate::draw::tree::Tree::parse(markup);
    let edits = old
        .zip(new.as_ref())
        .and_then(|(o, n)| crate::draw::tree::edits(o, n));
    let Some(edits) = edits else {
        write_anew(el, markup);
        return (new, true);
    };
    let quiet = edits.changes.is_empty() && edits.removes.is_empty() && edits.inserts.is_empty();
    let focused = (!quiet).then(|| focused_id(el)).flatten();
    if let (false, Ok(all)) = (quiet, el.query_selector_all("*")) {
        let at = |k: u32| {
            all.item(k)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        };
        for c in &edits.changes {
            let Some(e) = at(c.k) else { continue };
            if c.name.is_empty() {
                set_text(&e, &c.value);
            } else {
                let _ = e.set_attribute(&c.name, &c.value);
            }
        }
        // Every element is found before any moves (the list above is a snapshot); one not
        // found means the screen is not what `old` says, and it is written anew.
        let removes: Option<Vec<_>> = edits.removes.iter().map(|&k| at(k)).collect();
        let inserts: Option<Vec<_>> = edits
            .inserts
            .iter()
            .map(|i| {
                let parent = match i.parent {
                    Some(p) => at(p)?,
                    None => el.clone(),
                };
                let before = match i.before {
                    Some(b) => Some(at(b)?),
                    None => None,
                };
                Some((parent, before, &i.markup))
            })
            .collect();
        let (Some(removes), Some(inserts)) = (removes, inserts) else {
            write_anew(el, markup);
            return (new, true);
        };
        for r in removes {
            r.remove();
        }
        for (parent, before, markup) in inserts {
            let _ = match before {
                Some(b) => b.insert_adjacent_html("beforebegin", markup),
                None => parent.insert_adjacent_html("beforeend", markup),
            };
        }
        refocus(el, focused);
    }
    (new, false)
}

/// `markup` written as `el`'s content; the element with the focus, if it is in what is
/// rewritten, gets it back.
fn write_anew(el: &web_sys::Element, markup: &str) {
    let focused = focused_id(el);
    el.set_inner_html(markup);
    refocus(el, focused);
}

/// The id of the element with the focus, when it is inside `el` and has one.
fn focused_id(el: &web_sys::Element) -> Option<String> {
    window()
        .document()
        .as_ref()
        .and_then(web_sys::Document::active_element)
        .filter(|a| el.contains(Some(a)))
        .map(|a| a.id())
        .filter(|id| !id.is_empty())
}

/// The focus put on the element of `el` with id `id` (the focus follows the id: a patched
/// element may now show another row, and the row it had may be another element), unless it
/// has it already.
fn refocus(el: &web_sys::Element, id: Option<String>) {
    let doc = window().document();
    let Some(again) = id
        .zip(doc.as_ref())
        .and_then(|(id, d)| d.get_element_by_id(&id))
        .filter(|a| el.contains(Some(a)))
    else {
        return;
    };
    let active = doc.as_ref().and_then(web_sys::Document::active_element);
    if active.as_ref() != Some(&again) {
        if let Ok(h) = again.dyn_into::<web_sys::HtmlElement>() {
            let _ = h.focus();
        }
    }
}

/// `el`'s text made `text`: its one text node rewritten in place where it has one (the layout
/// keeps its text object, as a character change, not a child replaced), else its children
/// replaced by the text.
fn set_text(el: &web_sys::Element, text: &str) {
    match el.first_child() {
        Some(t) if t.node_type() == web_sys::Node::TEXT_NODE && t.next_sibling().is_none() => {
            t.set_node_value(Some(text));
        }
        _ => el.set_text_content(Some(text)),
    }
}
