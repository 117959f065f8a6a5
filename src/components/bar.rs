//! The stacked memory bar (SVG), its legend and the term detail. Geometry comes from
//! [`crate::bar::layout`]; this module only draws it.

use crate::app::use_app;
use crate::bar::{self, term_class, Segment};
use fitcard_estimator::terms::{Place, TermName};
use fitcard_estimator::{Bytes, Mode};
use leptos::prelude::*;

const LEFT: f64 = 64.0;
/// Room right of the plot for the capacity label (`23.99 GiB`) beside the capacity line.
const RIGHT: f64 = 48.0;
/// Narrowest plot drawn; a narrower box scales the drawing down instead.
const MIN_PLOT: f64 = 160.0;
const TOP: f64 = 20.0;
const ROW_H: f64 = 26.0;
const ROW_GAP: f64 = 22.0;
const AXIS: f64 = 22.0;

/// Memory per card as a stacked bar against each card's capacity, the host-resident part on
/// the same scale, a legend, and the formula of the term under the pointer or focus.
#[component]
pub fn MemoryBar() -> impl IntoView {
    let st = use_app();
    let active = RwSignal::new(None::<TermName>);
    let est = st.est;
    let set = move |n: TermName| active.set(Some(n));

    // The drawing is laid out at the width of its box, one SVG unit per CSS pixel, so its text
    // keeps its size on a phone; until the box is measured, the default width.
    let figure = NodeRef::<leptos::html::Figure>::new();
    let box_w = RwSignal::new(LEFT + bar::WIDTH + RIGHT);
    Effect::new(move |_| {
        if let Some(f) = figure.get() {
            let el = f.clone();
            crate::dom::on_resize(&f, move || {
                let w = f64::from(el.client_width());
                if w > 0.0 && (w - box_w.get_untracked()).abs() >= 1.0 {
                    box_w.set(w);
                }
            });
        }
    });

    let chart = move || {
        est.with(|e| {
            let host: Vec<(TermName, Bytes)> = e
                .terms
                .iter()
                .filter(|t| t.place == Place::Host)
                .map(|t| (t.name, t.bytes))
                .collect();
            let total_w = box_w.get().max(LEFT + MIN_PLOT + RIGHT).round();
            let l = bar::layout(&e.per_card, &host, total_w - LEFT - RIGHT);
            let rows = l.cards.len() + usize::from(!l.host.is_empty());
            let height = TOP + rows as f64 * (ROW_H + ROW_GAP) + AXIS;
            let y_of = |k: usize| TOP + k as f64 * (ROW_H + ROW_GAP);
            let seg_view = |s: &Segment, y: f64| {
                let name = s.name;
                let tip = format!("{}: {}", name.label(), s.bytes);
                let cls = term_class(name);
                let aria = tip.clone();
                view! {
                    <rect
                        class=move || {
                            format!(
                                "seg {cls}{}",
                                if active.get() == Some(name) { " active" } else { "" },
                            )
                        }
                        data-term=name.id()
                        x=LEFT + s.x
                        y=y
                        width=s.width.max(0.0)
                        height=ROW_H
                        tabindex="0"
                        aria-label=aria
                        on:mouseenter=move |_| set(name)
                        on:focus=move |_| set(name)
                    >
                        <title>{tip}</title>
                    </rect>
                }
            };
            let card_rows = l
                .cards
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    let y = y_of(k);
                    let cap = e.per_card.get(k).map(|u| u.capacity).unwrap_or_default();
                    let budget = e.per_card.get(k).map(|u| u.budget).unwrap_or_default();
                    let segs = c.segments.iter().map(|s| seg_view(s, y)).collect_view();
                    let budget_line = c.budget_x.map(|bx| {
                        view! {
                            <line
                                class="budget"
                                x1=LEFT + bx
                                x2=LEFT + bx
                                y1=y - 4.0
                                y2=y + ROW_H + 4.0
                            />
                            <text class="mark-label budget-label" x=LEFT + bx - 3.0 y=y - 6.0 text-anchor="end">
                                {format!("budget {budget}")}
                            </text>
                        }
                    });
                    view! {
                        <g class=if c.over { "card over" } else { "card" } data-card=c.index>
                            <text class="row-label" x=LEFT - 8.0 y=y + ROW_H / 2.0 text-anchor="end" dominant-baseline="middle">
                                {format!("GPU {}", c.index)}
                            </text>
                            <rect class="track" x=LEFT y=y width=c.capacity_x height=ROW_H />
                            {segs}
                            <line
                                class="cap"
                                x1=LEFT + c.capacity_x
                                x2=LEFT + c.capacity_x
                                y1=y - 6.0
                                y2=y + ROW_H + 6.0
                            />
                            <text class="mark-label" x=LEFT + c.capacity_x + 3.0 y=y - 6.0>
                                {format!("{cap}")}
                            </text>
                            {budget_line}
                        </g>
                    }
                })
                .collect_view();
            let host_row = (!l.host.is_empty()).then(|| {
                let y = y_of(l.cards.len());
                let segs = l.host.iter().map(|s| seg_view(s, y)).collect_view();
                view! {
                    <g class="host">
                        <text class="row-label" x=LEFT - 8.0 y=y + ROW_H / 2.0 text-anchor="end" dominant-baseline="middle">
                            "Host RAM"
                        </text>
                        {segs}
                    </g>
                }
            });
            let axis_y = TOP + rows as f64 * (ROW_H + ROW_GAP) - ROW_GAP / 2.0;
            let ticks = l
                .ticks
                .iter()
                .map(|t| {
                    view! {
                        <line class="tick" x1=LEFT + t.x x2=LEFT + t.x y1=TOP - 2.0 y2=axis_y />
                        <text class="tick-label" x=LEFT + t.x y=axis_y + 14.0 text-anchor="middle">
                            {t.label.clone()}
                        </text>
                    }
                })
                .collect_view();
            let summary = format!(
                "Memory per card: {} of {} on each of {} card{}; {} in host RAM.",
                e.per_card.first().map(|c| c.bytes).unwrap_or_default(),
                e.per_card.first().map(|c| c.capacity).unwrap_or_default(),
                e.per_card.len(),
                if e.per_card.len() == 1 { "" } else { "s" },
                e.total_host_bytes
            );
            view! {
                <svg
                    class="bar-svg"
                    viewBox=format!("0 0 {total_w} {height}")
                    role="group"
                    aria-label=summary
                    preserveAspectRatio="xMinYMin meet"
                >
                    <g class="axis">{ticks}</g>
                    {card_rows}
                    {host_row}
                </svg>
            }
        })
    };

    let legend = move || {
        est.with(|e| {
            e.terms
                .iter()
                .map(|t| {
                    let name = t.name;
                    let host = t.place == Place::Host;
                    view! {
                        <li>
                            <button
                                type="button"
                                class=move || {
                                    if active.get() == Some(name) { "key active" } else { "key" }
                                }
                                aria-pressed=move || (active.get() == Some(name)).to_string()
                                on:click=move |_| set(name)
                                on:focus=move |_| set(name)
                                on:mouseenter=move |_| set(name)
                            >
                                <span class=format!("swatch {}", term_class(name))></span>
                                <span class="key-label">{t.label}</span>
                                <span class="num">{t.bytes.to_string()}</span>
                                {host.then(|| view! { <span class="where">"host"</span> })}
                            </button>
                        </li>
                    }
                })
                .collect_view()
        })
    };

    let detail = move || {
        est.with(|e| {
            let name = active.get();
            let t = name
                .and_then(|n| e.terms.iter().find(|t| t.name == n))
                .or_else(|| e.terms.first())?;
            let per_card = (e.per_card.len() > 1 && t.place == Place::Device).then(|| {
                let b: Bytes = e
                    .per_card
                    .first()
                    .and_then(|c| c.terms.iter().find(|x| x.0 == t.name))
                    .map(|x| x.1)
                    .unwrap_or_default();
                format!(" ({b} per card)")
            });
            Some(view! {
                <h3>
                    <span class=format!("swatch {}", term_class(t.name))></span>
                    {t.label}
                    ": "
                    <span class="num">{t.bytes.to_string()}</span>
                    {per_card}
                    {(t.place == Place::Host).then_some(" in host RAM")}
                </h3>
                <p class="formula">
                    <span class="k">"Formula "</span>
                    <code>{t.formula.clone()}</code>
                </p>
                <p class="provenance">
                    <span class="k">"Source "</span>
                    {t.provenance}
                </p>
            })
        })
    };

    // The dashed line is explained only when one is drawn.
    let budget_note = move || {
        let budget = est.with(|e| e.per_card.iter().any(|c| c.budget < c.capacity));
        budget.then(|| match st.mode.get() {
            Mode::Serve => " The dashed line is vLLM's budget: utilization × capacity.",
            Mode::Train => " The dashed line is the 85 % of each extra GPU that counts.",
        })
    };
    view! {
        <figure class="bar" node_ref=figure>
            <figcaption>
                "Memory per card against its capacity (solid line)."
                {budget_note}
                " Hover, focus or click a segment or a key below for its formula."
            </figcaption>
            {chart}
            <ul class="legend">{legend}</ul>
            <div class="term-detail" aria-live="polite">{detail}</div>
        </figure>
    }
}
