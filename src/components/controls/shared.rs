//! The controls both modes share, and the best-model view too: the model's repo id as a memo,
//! the token slider, the GPU and the number of cards.

use crate::app::state::use_app;
use crate::components::fields::{count_stops, plural, NumberField, SelectField, ValueSlider};
use crate::model::choices;
use crate::model::edit::Edit;
use crate::model::snap;
use fitcard_estimator::catalog::catalog;
use fitcard_estimator::inputs::limits;
use fitcard_estimator::GpuChoice;
use leptos::prelude::*;

/// Default upper end of the card-count slider (a larger value from a link widens it).
const CARDS_MAX: u32 = 8;
/// The `<option>` value standing for "enter the VRAM size".
const CUSTOM_GPU: &str = "custom";

/// The model's repo id, as a memo (it changes only when another model is chosen).
pub fn model_memo() -> Memo<String> {
    let st = use_app();
    Memo::new(move |_| st.inputs.with(|i| i.model.clone()))
}

/// A slider over the model's token stops (powers of two and its native lengths): the context
/// per request (serve) or the sequence length (train).
#[component]
pub fn TokensSlider(
    /// Element id.
    id: &'static str,
    /// Visible label.
    label: &'static str,
    /// The token count in use.
    #[prop(into)]
    value: Signal<u32>,
    /// Called with the token count picked.
    on_pick: Callback<u32>,
) -> impl IntoView {
    let model = model_memo();
    let engine = use_app().pick(|i| i.engine);
    // The stops reach the longest context the model runs at on the engine (with YaRN where
    // the publisher validated it): the same limit the checks and the solver use.
    let stops = Memo::new(move |_| {
        let e = engine.get();
        model.with(|m| {
            let (_, v) = choices::family_of(m);
            snap::ctx_stops(v.arch.longest_ctx(e), &v.arch.native_ctx)
        })
    });
    let text = Signal::derive(move || {
        let c = value.get();
        let e = engine.get();
        model.with(|m| {
            let (_, v) = choices::family_of(m);
            let native = if v.arch.native_ctx.contains(&c) {
                " · native"
            } else if c > v.arch.longest_ctx(e) {
                " · beyond the model's maximum"
            } else if c > v.arch.max_ctx {
                " · with YaRN"
            } else {
                ""
            };
            format!("{} tokens{native}", crate::text::share::tokens(c))
        })
    });
    view! { <ValueSlider id=id label=label stops=stops value=value text=text on_pick=on_pick /> }
}

/// GPU selector, or a free VRAM size per card.
#[component]
pub fn GpuField() -> impl IntoView {
    let st = use_app();
    let gpu = st.pick(|i| i.gpu.clone());
    let is_custom = move || matches!(gpu.get(), GpuChoice::VramGib(_));
    let options = catalog()
        .gpus
        .iter()
        .map(|g| (g.id.clone(), format!("{} ({})", g.name, g.vram_bytes)))
        .chain([(
            CUSTOM_GPU.to_string(),
            "Other: enter VRAM per card".to_string(),
        )])
        .collect::<Vec<_>>();
    view! {
        <SelectField
            id="gpu"
            label="GPU"
            options=options
            selected=Signal::derive(move || match gpu.get() {
                GpuChoice::Catalog(c) => c,
                GpuChoice::VramGib(_) => CUSTOM_GPU.to_string(),
            })
            on_change=Callback::new(move |v: String| {
                st.edit(Edit::Gpu((v != CUSTOM_GPU).then_some(v)))
            })
        />
        <Show when=is_custom>
            <NumberField
                id="vram"
                label="VRAM per card (GiB)"
                bounds=limits::VRAM_GIB
                step=0.25
                value=Signal::derive(move || match gpu.get() {
                    GpuChoice::VramGib(g) => fitcard_estimator::units::Shortest(g).to_string(),
                    GpuChoice::Catalog(_) => String::new(),
                })
                on_change=Callback::new(move |v: String| {
                    if let Some(g) = fitcard_estimator::units::parse_decimal(&v) {
                        st.edit(Edit::Vram(g));
                    }
                })
            />
        </Show>
    }
}

/// The number of cards.
#[component]
pub fn CardsSlider() -> impl IntoView {
    let st = use_app();
    let cards = st.pick(|i| i.cards);
    view! {
        <ValueSlider
            id="cards"
            label="Cards"
            stops=count_stops(CARDS_MAX.min(limits::CARDS.1), cards)
            first=1
            value=cards
            text=Signal::derive(move || plural(cards.get(), "card"))
            on_pick=Callback::new(move |n| st.edit(Edit::Cards(n)))
        />
    }
}
