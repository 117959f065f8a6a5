//! Generic form fields. Each has a visible label, is operable by keyboard, and hands what the
//! user did to a callback; none knows which input it edits (the serve and train controls do).

use crate::model::snap;
use fitcard_estimator::units::Shortest;
use leptos::prelude::*;

/// A range slider over positions `min..=max` with a visible label and value. The building block
/// of [`ValueSlider`] and [`NameSlider`].
#[component]
pub fn Slider(
    /// Element id; the label and the value text point at it.
    id: &'static str,
    /// Visible label.
    label: &'static str,
    /// Lowest position.
    #[prop(default = 0)]
    min: usize,
    /// Highest position. The input's attributes are rewritten only when it really changes
    /// (rewriting them during a drag ends the drag), and then before the value, so the value is
    /// never clamped against a stale maximum.
    #[prop(into)]
    max: Signal<usize>,
    /// Current position.
    #[prop(into)]
    value: Signal<usize>,
    /// The current value in words (shown, and read out as `aria-valuetext`).
    #[prop(into)]
    text: Signal<String>,
    /// Called with the new position on every `input` event.
    on_input: Callback<usize>,
    /// Optional line under the slider (the stops, a note).
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    let value_id = format!("{id}-value");
    // A memo notifies only on a real change: a maximum derived from the value (the count
    // sliders) would otherwise rewrite the attributes on every step.
    let max = Memo::new(move |_| max.get());
    let text = Memo::new(move |_| text.get());
    view! {
        <div class="field slider">
            <div class="field-head">
                <label for=id>{label}</label>
                <output id=value_id for=id>
                    {text}
                </output>
            </div>
            {move || {
                let m = max.get();
                view! {
                    <input
                        type="range"
                        id=id
                        name=id
                        min=min.to_string()
                        max=m.to_string()
                        step="1"
                        disabled=m <= min
                        prop:value=move || value.get().to_string()
                        aria-valuetext=text
                        on:input=move |ev| {
                            if let Ok(v) = event_target_value(&ev).parse::<usize>() {
                                on_input.run(v);
                            }
                        }
                    />
                }
            }}
            {children.map(|c| c())}
        </div>
    }
}

/// The one slider over values: the thumb moves over the positions of `stops` (ascending), the
/// label shows the value in words, and moving it picks the value of the stop under the thumb.
/// A value that is not a stop (from a link) puts the thumb at its nearest stop on a log scale
/// ([`snap::nearest`]) while the label keeps the exact value. Context, sequence length, batch
/// size, LoRA rank, concurrency and card count are all this slider, with their own stops
/// ([`count_stops`] for counts).
#[component]
pub fn ValueSlider(
    /// Element id; the label and the value text point at it.
    id: &'static str,
    /// Visible label.
    label: &'static str,
    /// The values offered, ascending; the stops are rebuilt only when they change.
    #[prop(into)]
    stops: Signal<Vec<u32>>,
    /// Position of the first stop: 1 for a count, so that the input's value is the count.
    #[prop(default = 0)]
    first: usize,
    /// The value in use.
    #[prop(into)]
    value: Signal<u32>,
    /// The value in words.
    #[prop(into)]
    text: Signal<String>,
    /// Called with the value of the stop chosen, on every `input` event.
    on_pick: Callback<u32>,
) -> impl IntoView {
    let stops = Memo::new(move |_| stops.get());
    view! {
        <Slider
            id=id
            label=label
            min=first
            max=Signal::derive(move || first + stops.with(|s| s.len().saturating_sub(1)))
            value=Signal::derive(move || first + stops.with(|s| snap::nearest(s, value.get())))
            text=text
            on_input=Callback::new(move |p: usize| {
                let picked = stops.with(|s| p.checked_sub(first).and_then(|k| s.get(k).copied()));
                if let Some(v) = picked {
                    on_pick.run(v);
                }
            })
        />
    }
}

/// The stops of a count slider (slots, cards): `1..=default_max`, widened for a larger value
/// from a link and never narrowed again while the thumb is dragged back.
pub fn count_stops(default_max: u32, value: Memo<u32>) -> Memo<Vec<u32>> {
    let top = Memo::new(move |prev: Option<&u32>| {
        let m = snap::linear_max(default_max, value.get());
        prev.map_or(m, |&p| p.max(m))
    });
    Memo::new(move |_| (1..=top.get()).collect())
}

/// A slider over names (variant, format): the thumb moves over their positions and the names
/// are listed under it, the current one marked (the list is hidden from assistive technology:
/// the slider's value text says the same).
#[component]
pub fn NameSlider(
    /// Element id; the label and the value text point at it.
    id: &'static str,
    /// Visible label.
    label: &'static str,
    /// The names in slider order; the list is redrawn only when they change.
    #[prop(into)]
    names: Signal<Vec<String>>,
    /// Position of the current one.
    #[prop(into)]
    current: Signal<usize>,
    /// The current value in words.
    #[prop(into)]
    text: Signal<String>,
    /// Called with the new position on every `input` event.
    on_input: Callback<usize>,
) -> impl IntoView {
    let names = Memo::new(move |_| names.get());
    let list = move || {
        let on = current.get();
        names.with(|n| {
            n.iter()
                .enumerate()
                .map(|(k, name)| view! { <li class:on=k == on>{name.clone()}</li> })
                .collect_view()
        })
    };
    view! {
        <Slider
            id=id
            label=label
            max=Signal::derive(move || names.with(|n| n.len().saturating_sub(1)))
            value=current
            text=text
            on_input=on_input
        >
            <ul class="stops" aria-hidden="true">
                {list}
            </ul>
        </Slider>
    }
}

/// A labelled `<select>`: the options as `(value, text)` pairs, the selected one by value.
#[component]
pub fn SelectField(
    /// Element id and form name; the label points at it.
    id: &'static str,
    /// Visible label.
    label: &'static str,
    /// The options in order, as `(value, shown text)`; re-rendered when they change.
    #[prop(into)]
    options: Signal<Vec<(String, String)>>,
    /// The value of the option shown as selected.
    #[prop(into)]
    selected: Signal<String>,
    /// Called with the chosen option's value on every `change` event.
    on_change: Callback<String>,
) -> impl IntoView {
    let options = Memo::new(move |_| options.get());
    let selected = Memo::new(move |_| selected.get());
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <select id=id name=id on:change=move |ev| on_change.run(event_target_value(&ev))>
                {move || {
                    options
                        .get()
                        .into_iter()
                        .map(|(value, text)| {
                            let v = value.clone();
                            view! {
                                <option value=value prop:selected=move || selected.with(|s| *s == v)>
                                    {text}
                                </option>
                            }
                        })
                        .collect_view()
                }}
            </select>
        </div>
    }
}

/// A [`SelectField`] over a fixed table of `(choice, text)`: each option's value is the
/// choice's permalink id (`value_id`), `current` is the choice in use, and choosing another
/// one calls `on_pick` with it. Generic only on the surface: the field itself is built once
/// for every table.
#[cfg(feature = "train")]
pub fn table_select<T>(
    id: &'static str,
    label: &'static str,
    table: &'static [(T, &'static str)],
    value_id: fn(T) -> &'static str,
    current: impl Fn() -> T + Send + Sync + 'static,
    on_pick: impl Fn(T) + Send + Sync + 'static,
) -> impl IntoView
where
    T: Copy + Send + Sync + 'static,
{
    let options = table
        .iter()
        .map(|&(c, text)| (value_id(c).to_string(), text.to_string()))
        .collect::<Vec<_>>();
    view! {
        <SelectField
            id=id
            label=label
            options=options
            selected=Signal::derive(move || value_id(current()).to_string())
            on_change=Callback::new(move |v: String| {
                if let Some(&(c, _)) = table.iter().find(|(c, _)| value_id(*c) == v) {
                    on_pick(c);
                }
            })
        />
    }
}

/// A labelled number input. The box always shows the value in use: an entry that was refused
/// or adjusted is replaced by it.
#[component]
pub fn NumberField(
    /// Element id and form name; the label points at it.
    id: &'static str,
    /// Visible label.
    #[prop(into)]
    label: Signal<String>,
    /// Lowest and highest value the input offers: the permalink's limits for this key.
    bounds: (f64, f64),
    /// Step of the input's arrows.
    step: f64,
    /// The value shown.
    #[prop(into)]
    value: Signal<String>,
    /// Called with the typed text on every `change` event; the box then shows `value` again.
    on_change: Callback<String>,
) -> impl IntoView {
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <input
                type="number"
                id=id
                name=id
                min=Shortest(bounds.0).to_string()
                max=Shortest(bounds.1).to_string()
                step=Shortest(step).to_string()
                prop:value=move || value.get()
                on:change=move |ev| {
                    // A box removed while it holds an unsent entry (the engine changed) fires
                    // `change` as it goes: its field is gone by then, and so is the entry.
                    let el = event_target::<web_sys::HtmlInputElement>(&ev);
                    if on_change.try_run(el.value()).is_some() {
                        if let Some(used) = value.try_get_untracked() {
                            put_back(&el, &used);
                        }
                    }
                }
            />
        </div>
    }
}

/// Show `used` in a number box whose entry was refused or adjusted.
pub fn put_back(el: &web_sys::HtmlInputElement, used: &str) {
    if el.value() != used {
        el.set_value(used);
    }
}

/// A checkbox with its label after it.
#[component]
pub fn CheckField(
    /// Element id and form name; the label points at it.
    id: &'static str,
    /// Visible label.
    label: &'static str,
    /// Whether the box is ticked.
    #[prop(into)]
    checked: Signal<bool>,
    /// Called with the new state on every `change` event.
    on_change: Callback<bool>,
) -> impl IntoView {
    view! {
        <div class="field check">
            <input
                type="checkbox"
                id=id
                name=id
                prop:checked=move || checked.get()
                on:change=move |ev| on_change.run(event_target_checked(&ev))
            />
            <label for=id>{label}</label>
        </div>
    }
}

/// A `<details>` whose content is built only while it is open (and dropped when it closes):
/// what it holds costs nothing on a slider tick while nobody reads it.
#[component]
pub fn Disclosure(
    /// The `<details>` element's class.
    class: &'static str,
    /// The summary's words.
    #[prop(into)]
    summary: Signal<String>,
    /// Hide the whole disclosure (nothing to disclose).
    #[prop(optional, into)]
    hidden: Signal<bool>,
    /// The content, built when opened.
    children: ChildrenFn,
) -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <details
            class=class
            hidden=hidden
            on:toggle=move |ev| {
                open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())
            }
        >
            <summary>{summary}</summary>
            <Show when=move || open.get()>{children()}</Show>
        </details>
    }
}

/// `1 card`, `2 cards`.
pub fn plural(n: u32, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// A panel drawn from `markup` and patched as it changes
/// ([`crate::browser::dom::show_markup`]): its wrapper has no box of its own
/// (`display: contents`), so the markup's elements lay out as children of the wrapper's parent.
pub fn patched(markup: Memo<String>) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    let shown = StoredValue::new_local(None::<crate::draw::tree::Tree>);
    Effect::new(move |_| {
        let Some(el) = node.get() else { return };
        let now = markup.with(|m| {
            shown.with_value(|old| crate::browser::dom::show_markup(&el, old.as_ref(), m).0)
        });
        shown.set_value(now);
    });
    view! { <div class="patched" node_ref=node></div> }
}
