//! The configuration panel: the mode, the model and the cards (shared by both modes), then the
//! serve or the train controls. Each control turns a DOM event into an [`Edit`]; nothing here
//! computes a size.

use self::serve::{ContextSlider, EngineField, EngineKnobs, KvField, ParSlider, QuantSlider};
use self::train::{BszSlider, GpuPool, RankSlider, SeqSlider, Targets, TrainChoices};
use super::fields::{count_stops, plural, NameSlider, SelectField, ValueSlider};
use crate::app::use_app;
use crate::model::choices;
use crate::model::edit::Edit;
use crate::model::snap;
use fitcard_estimator::catalog::catalog;
use fitcard_estimator::inputs::limits;
use fitcard_estimator::{GpuChoice, Mode};
use leptos::prelude::*;

pub mod serve;
pub mod train;

/// Default upper end of the card-count slider (a larger value from a link widens it).
const CARDS_MAX: u32 = 8;
/// The `<option>` value standing for "enter the VRAM size".
const CUSTOM_GPU: &str = "custom";

/// All controls (`compact`: only the sliders, for the embed).
#[component]
pub fn Controls(
    /// Embed layout: the model, engine and card type are fixed by the link.
    compact: bool,
) -> impl IntoView {
    let st = use_app();
    let serve = move || st.mode.get() == Mode::Serve;
    let train = move || st.mode.get() == Mode::Train;
    if compact {
        return view! {
            <div class="controls compact">
                <Show when=serve fallback=TrainSliders>
                    <ServeSliders />
                </Show>
                <CardsSlider />
            </div>
        }
        .into_any();
    }
    view! {
        <div class="controls">
            <ModeSwitch />
            <FamilyField />
            <VariantSlider />
            <Show when=serve>
                <EngineField />
                <ServeSliders />
            </Show>
            <Show when=train>
                <TrainChoices />
                <TrainSliders />
                <Targets />
            </Show>
            <GpuField />
            <CardsSlider />
            <Show when=serve>
                <KvField />
                <EngineKnobs />
            </Show>
            <Show when=train>
                <GpuPool />
            </Show>
        </div>
    }
    .into_any()
}

/// The sliders of serve mode, on the full page and in the embed.
#[component]
fn ServeSliders() -> impl IntoView {
    view! {
        <QuantSlider />
        <ContextSlider />
        <ParSlider />
    }
}

/// The sliders of train mode, on the full page and in the embed.
#[component]
fn TrainSliders() -> impl IntoView {
    view! {
        <BszSlider />
        <SeqSlider />
        <RankSlider />
    }
}

/// Serve (inference) or train (fine-tuning).
#[component]
fn ModeSwitch() -> impl IntoView {
    let st = use_app();
    let option = move |m: Mode, id: &'static str, label: &'static str| {
        view! {
            <label class="radio">
                <input
                    type="radio"
                    name="mode"
                    id=id
                    value=id
                    prop:checked=move || st.mode.get() == m
                    on:change=move |_| st.edit(Edit::Mode(m))
                />
                {label}
            </label>
        }
    };
    view! {
        <fieldset class="mode">
            <legend>"What for"</legend>
            {option(Mode::Serve, "mode-serve", "Serve (inference)")}
            {option(Mode::Train, "mode-train", "Train (fine-tune with Unsloth)")}
        </fieldset>
    }
}

/// The model's repo id, as a memo (it changes only when another model is chosen).
pub fn model_memo() -> Memo<String> {
    let st = use_app();
    Memo::new(move |_| st.inputs.with(|i| i.model.clone()))
}

/// The model family selector.
#[component]
fn FamilyField() -> impl IntoView {
    let families = catalog()
        .families
        .iter()
        .map(|f| (f.id.clone(), f.name.clone()))
        .collect::<Vec<_>>();
    let (st, model) = (use_app(), model_memo());
    view! {
        <SelectField
            id="family"
            label="Model family"
            options=families
            selected=Signal::derive(move || model.with(|m| choices::family_of(m).0.id.clone()))
            on_change=Callback::new(move |v| st.edit(Edit::Family(v)))
        />
    }
}

/// The variant within the family, weakest on the left, most capable on the right.
#[component]
fn VariantSlider() -> impl IntoView {
    let st = use_app();
    let model = model_memo();
    let names = Memo::new(move |_| {
        model.with(|m| {
            choices::variants(choices::family_of(m).0)
                .iter()
                .map(|v| v.name.clone())
                .collect::<Vec<_>>()
        })
    });
    let pos = Memo::new(move |_| model.with(|m| choices::variant_pos(m)));
    let text = Signal::derive(move || {
        model.with(|m| {
            let (f, v) = choices::family_of(m);
            format!(
                "{} · {}",
                v.name,
                choices::capability_words(v.capability_rank, f.variants.len())
            )
        })
    });
    view! {
        <NameSlider
            id="variant"
            label="Model (weakest → most capable)"
            names=names
            current=pos
            text=text
            on_input=Callback::new(move |p| st.edit(Edit::Variant(p)))
        />
    }
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
            <super::fields::NumberField
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
