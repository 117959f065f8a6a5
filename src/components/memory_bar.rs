//! The memory figure: the stacked bar (SVG markup from [`crate::draw::bar_svg`], geometry from
//! [`crate::draw::bar_geometry`]), its legend and the detail of the term under the pointer or focus.
//!
//! The plot is drawn in one DOM write when its shape changes and patched in place when only its
//! numbers do; its segments and the legend's keys hand their events to their containers, which
//! read the term from `data-term`.

use super::fields::patched;
use crate::app::state::{use_app, AppState};
use crate::draw::bar_geometry::term_class;
use crate::draw::bar_svg;
use crate::draw::tree::Tree;
use crate::draw::verdict_html::Detail;
use fitcard_estimator::terms::{Place, TermName};
use fitcard_estimator::{Bytes, Estimate, Mode};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The term named by the `data-term` of the element an event came from (or an ancestor).
fn term_of(ev: &web_sys::Event) -> Option<TermName> {
    let el = ev.target()?.dyn_into::<web_sys::Element>().ok()?;
    let id = el
        .closest("[data-term]")
        .ok()??
        .get_attribute("data-term")?;
    TermName::ALL.iter().copied().find(|n| n.id() == id)
}

/// On several cards, what the device term `name` takes on the fullest card, and whether every
/// card holds as much.
fn on_card(e: &Estimate, name: TermName) -> Option<(Bytes, bool)> {
    let c = (e.per_card.len() > 1).then(|| fitcard_estimator::serve::fullest(&e.per_card))?;
    let b = c
        .terms
        .iter()
        .find(|x| x.0 == name)
        .map_or(Bytes::ZERO, |x| x.1);
    Some((b, e.per_card.iter().all(|x| x.bytes == c.bytes)))
}

/// Memory per card as a stacked bar against each card's capacity, the host-resident part on
/// the same scale, a legend, and the formula of the term under the pointer or focus.
#[component]
pub fn MemoryBar() -> impl IntoView {
    let st = use_app();
    let active = RwSignal::new(None::<TermName>);
    let pick = move |ev: &web_sys::Event| {
        if let Some(n) = term_of(ev) {
            if active.get_untracked() != Some(n) {
                active.set(Some(n));
            }
        }
    };
    let figure = NodeRef::<leptos::html::Figure>::new();
    let box_w = box_width(figure);
    let drawing = Memo::new(move |_| {
        let w = box_w.get();
        st.seen(|e| bar_svg::drawing(e, w))
    });
    let plot = NodeRef::<leptos::html::Div>::new();
    draw(plot, drawing, active);
    highlight(plot, active);
    view! {
        <figure class="bar" node_ref=figure>
            <figcaption>
                "Memory per card against its capacity (solid line)."
                {budget_note(st)}
                " Hover, focus or click a segment or a key below for its formula."
            </figcaption>
            <div
                class="bar-plot"
                node_ref=plot
                on:mouseover=move |ev| pick(&ev)
                on:focusin=move |ev| pick(&ev)
            ></div>
            <div
                class="patched"
                on:click=move |ev| pick(&ev)
                on:focusin=move |ev| pick(&ev)
                on:mouseover=move |ev| pick(&ev)
            >
                {legend(st, active)}
            </div>
            <div class="term-detail" aria-live="polite">
                <TermDetail active=active />
            </div>
        </figure>
    }
}

/// The width of the figure's box: the drawing is laid out at it, one SVG unit per CSS pixel,
/// so its text keeps its size on a phone; until the box is measured, the default width. The
/// same effect watches whether the panel is on the screen (`AppState::seen`).
fn box_width(figure: NodeRef<leptos::html::Figure>) -> RwSignal<f64> {
    let box_w = RwSignal::new(bar_svg::DEFAULT_WIDTH);
    Effect::new(move |_| {
        if let Some(f) = figure.get() {
            // Whether the estimate's panel (else the figure) is on the screen
            // (`AppState::seen`).
            let panel = f.closest("section").ok().flatten();
            crate::browser::dom::watch(panel.as_ref().unwrap_or(&f));
            let el = f.clone();
            crate::browser::dom::on_resize(&f, move || {
                let w = f64::from(el.client_width());
                if w > 0.0 && (w - box_w.get_untracked()).abs() >= 1.0 {
                    box_w.set(w);
                }
            });
        }
    });
    box_w
}

/// The plot drawn: anew when its shape changes (a term or a card comes or goes), else only
/// the attributes and texts that differ, so a slider tick touches a few numbers and a focused
/// segment keeps its focus.
fn draw(
    plot: NodeRef<leptos::html::Div>,
    drawing: Memo<bar_svg::Drawing>,
    active: RwSignal<Option<TermName>>,
) {
    let shown = StoredValue::new_local(None::<Tree>);
    Effect::new(move |_| {
        let svg = drawing.with(bar_svg::markup);
        let Some(plot) = plot.get() else { return };
        let (now, anew) =
            shown.with_value(|old| crate::browser::dom::show_markup(&plot, old.as_ref(), &svg));
        // A segment given another term's class loses its highlight.
        let recoloured = shown.with_value(|old| {
            old.as_ref().zip(now.as_ref()).is_some_and(|(o, n)| {
                o.0.iter()
                    .zip(&n.0)
                    .any(|(a, b)| a.attrs.first() != b.attrs.first())
            })
        });
        if anew || recoloured {
            mark(&plot, active.get_untracked());
        }
        shown.set_value(now);
    });
}

/// The highlighted segment of the plot: a class set in place (after each new drawing too), so
/// that the focused segment stays.
fn highlight(plot: NodeRef<leptos::html::Div>, active: RwSignal<Option<TermName>>) {
    Effect::new(move |_| {
        let on = active.get();
        if let Some(plot) = plot.get() {
            mark(&plot, on);
        }
    });
}

/// The segments of term `on` marked active, every other one not.
fn mark(plot: &web_sys::Element, on: Option<TermName>) {
    let on = on.map(TermName::id);
    let Ok(segs) = plot.query_selector_all("rect.seg") else {
        return;
    };
    for k in 0..segs.length() {
        if let Some(el) = segs
            .item(k)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        {
            let here = el.get_attribute("data-term");
            let _ = el
                .class_list()
                .toggle_with_force("active", here.as_deref() == on);
        }
    }
}

/// A key per term: its colour, name and size; hovering, focusing or clicking one shows its
/// formula (the list takes the events of its keys). Drawn as markup and patched: a tick
/// rewrites the sizes (one frame after the bar: `AppState::late`), a highlight the pressed
/// state.
fn legend(st: AppState, active: RwSignal<Option<TermName>>) -> impl IntoView {
    patched(Memo::new(move |_| {
        let on = active.get();
        st.late(|e| {
            let keys: Vec<bar_svg::Key> = e
                .terms
                .iter()
                .map(|t| {
                    let host = t.place == Place::Host;
                    bar_svg::Key {
                        name: t.name,
                        label: t.label,
                        bytes: key_bytes(e, t.name, t.bytes, host),
                        host,
                        outside: t.outside_domain.is_some(),
                    }
                })
                .collect();
            bar_svg::legend(&keys, on)
        })
    }))
}

/// The size on the key of term `name` (`total` in all); on several cards a device term's key
/// says what one card holds, as the verdict does.
fn key_bytes(e: &Estimate, name: TermName, total: Bytes, host: bool) -> String {
    match (!host).then(|| on_card(e, name)).flatten() {
        Some((b, all)) => format!(
            "{b} {}",
            if all {
                "per card"
            } else {
                "on the fullest card"
            }
        ),
        None => total.to_string(),
    }
}

/// What the dashed line is, explained only when one is drawn.
fn budget_note(st: AppState) -> impl Fn() -> Option<String> {
    move || {
        let budget = st.late(|e| e.per_card.iter().any(|c| c.budget < c.capacity));
        budget.then(|| match st.mode.get() {
            Mode::Serve => {
                let e = st.inputs.with_untracked(|i| i.engine);
                format!(
                    " The dashed line is {}'s budget: {} × capacity.",
                    e.label(),
                    crate::text::share::util_flag(e)
                )
            }
            Mode::Train => " The dashed line is the 85 % of each extra GPU that counts.".into(),
        })
    }
}

/// The detail of the highlighted term (the first one until one is chosen), one frame after the
/// bar.
fn detail(st: AppState, name: Option<TermName>) -> Option<Detail> {
    let train = st.mode.get_untracked() == Mode::Train;
    st.late(|e| {
        let t = name
            .and_then(|n| e.terms.iter().find(|t| t.name == n))
            .or_else(|| e.terms.first())?;
        Some(Detail {
            swatch: format!("swatch {}", term_class(t.name)),
            label: t.label,
            bytes: t.bytes.to_string(),
            per_card: (t.place == Place::Device)
                .then(|| on_card(e, t.name))
                .flatten()
                .map(|(b, _)| format!(" ({b} per card)")),
            host: t.place == Place::Host,
            formula: t.formula.clone(),
            provenance: t.provenance,
            section: if train { "train" } else { t.name.id() },
            outside: t.outside_domain.clone(),
        })
    })
}

/// The formula and source of the highlighted term (the first one until one is chosen), with a
/// link to its section of the method page (train mode has one section for all its terms; from
/// an embed, in a new tab).
#[component]
fn TermDetail(
    /// The term highlighted.
    active: RwSignal<Option<TermName>>,
) -> impl IntoView {
    let st = use_app();
    let new_tab = st.inputs.with_untracked(|i| i.embed);
    patched(Memo::new(move |_| {
        detail(st, active.get()).map_or_else(String::new, |d| d.markup(new_tab))
    }))
}
