//! The configuration panel: the mode, the model and the cards (shared by both modes), then the
//! serve or the train controls. Each control turns a DOM event into an [`Edit`]; nothing here
//! computes a size.

use self::serve::{ContextSlider, EngineField, EngineKnobs, KvField, ParSlider, QuantSlider};
use self::shared::{model_memo, CardsSlider, GpuField};
#[cfg(feature = "train")]
use self::train::{BszSlider, GpuPool, RankSlider, SeqSlider, Targets, TrainChoices};
use super::fields::{NameSlider, SelectField};
use crate::app::state::use_app;
use crate::model::choices;
use crate::model::edit::Edit;
use fitcard_estimator::catalog::catalog;
use fitcard_estimator::Mode;
use leptos::prelude::*;

pub mod serve;
pub mod shared;
#[cfg(feature = "train")]
pub mod train;

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
                <TrainUpper />
            </Show>
            <GpuField />
            <CardsSlider />
            <Show when=serve>
                <KvField />
                <EngineKnobs />
            </Show>
            <Show when=train>
                <TrainLower />
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
#[cfg(feature = "train")]
#[component]
fn TrainSliders() -> impl IntoView {
    view! {
        <BszSlider />
        <SeqSlider />
        <RankSlider />
    }
}

/// Train mode's choices, sliders and targets, under the model.
#[cfg(feature = "train")]
#[component]
fn TrainUpper() -> impl IntoView {
    view! {
        <TrainChoices />
        <TrainSliders />
        <Targets />
    }
}

/// Train mode's GPU pool, under the cards.
#[cfg(feature = "train")]
#[component]
fn TrainLower() -> impl IntoView {
    view! { <GpuPool /> }
}

// The page built without train mode draws none of it: it hands the page over to the whole
// calculator when train mode is asked for (`crate::app`).
#[cfg(not(feature = "train"))]
#[component]
fn TrainSliders() -> impl IntoView {}
#[cfg(not(feature = "train"))]
#[component]
fn TrainUpper() -> impl IntoView {}
#[cfg(not(feature = "train"))]
#[component]
fn TrainLower() -> impl IntoView {}

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

/// The model family selector: drawn again once the whole catalog is in (a link's first
/// estimate has its own family only).
#[component]
fn FamilyField() -> impl IntoView {
    let (st, model) = (use_app(), model_memo());
    move || {
        st.whole.track();
        let families = catalog()
            .families
            .iter()
            .map(|f| (f.id.clone(), f.name.clone()))
            .collect::<Vec<_>>();
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
