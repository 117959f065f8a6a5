//! Serve-mode controls: engine, format, context, concurrency, KV cache type and the engine
//! settings that change what is allocated.

use super::shared::{model_memo, TokensSlider};
use crate::app::state::use_app;
use crate::components::fields::{count_stops, plural, CheckField, NumberField, SelectField};
use crate::components::fields::{NameSlider, ValueSlider};
use crate::model::choices;
use crate::model::edit::Edit;
use crate::text::share;
use fitcard_estimator::catalog::SizeKind;
use fitcard_estimator::inputs::limits;
use fitcard_estimator::{Engine, KvDtype};
use leptos::prelude::*;

/// Default upper end of the concurrency slider (a larger value from a link widens it).
const PAR_MAX: u32 = 64;

/// A box for a whole number of the inputs (`get`) within `bounds`, changed by `edit`.
#[component]
fn CountField(
    id: &'static str,
    label: &'static str,
    bounds: (u32, u32),
    get: fn(&fitcard_estimator::Inputs) -> u32,
    edit: fn(u32) -> Edit,
) -> impl IntoView {
    let st = use_app();
    view! {
        <NumberField
            id=id
            label=label
            bounds=(f64::from(bounds.0), f64::from(bounds.1))
            step=1.0
            value=Signal::derive(move || st.inputs.with(|i| get(i).to_string()))
            on_change=Callback::new(move |v: String| {
                if let Ok(n) = v.trim().parse::<u32>() {
                    st.edit(edit(n));
                }
            })
        />
    }
}

/// The engine as a memo.
fn engine_memo() -> Memo<Engine> {
    let st = use_app();
    Memo::new(move |_| st.inputs.with(|i| i.engine))
}

/// The engine selector (every engine the estimator models).
#[component]
pub fn EngineField() -> impl IntoView {
    let st = use_app();
    let engine = engine_memo();
    let engines = Engine::ALL
        .iter()
        .map(|e| (e.id().to_string(), e.label().to_string()))
        .collect::<Vec<_>>();
    view! {
        <SelectField
            id="engine"
            label="Engine"
            options=engines
            selected=Signal::derive(move || engine.get().id().to_string())
            on_change=Callback::new(move |v: String| {
                if let Ok(e) = v.parse::<Engine>() {
                    st.edit(Edit::Engine(e));
                }
            })
        />
    }
}

/// The format, lowest precision on the left; `*` marks a size computed from tensor shapes.
#[component]
pub fn QuantSlider() -> impl IntoView {
    let st = use_app();
    let model = model_memo();
    let engine = engine_memo();
    let quant = st.pick(|i| i.quant);
    // (format, file size, computed) of the formats the engine loads.
    let formats = Memo::new(move |_| {
        let e = engine.get();
        model.with(|m| {
            choices::formats(choices::family_of(m).1, e)
                .iter()
                .map(|f| {
                    (
                        f.id,
                        f.size(),
                        f.size == SizeKind::Computed,
                        f.holds.clone(),
                    )
                })
                .collect::<Vec<_>>()
        })
    });
    let names = Memo::new(move |_| {
        formats.with(|fs| {
            fs.iter()
                .map(|(id, _, computed, _)| format!("{id}{}", if *computed { "*" } else { "" }))
                .collect::<Vec<_>>()
        })
    });
    let pos = Memo::new(move |_| {
        let q = quant.get();
        formats.with(|fs| fs.iter().position(|f| f.0 == q).unwrap_or(0))
    });
    let text = Signal::derive(move || {
        let q = quant.get();
        formats.with(|fs| match fs.iter().find(|f| f.0 == q) {
            // What the file holds where its name alone misleads (gpt-oss's "F16": MXFP4 experts).
            Some((id, size, computed, holds)) => format!(
                "{id}{} · {size} file{}",
                holds.as_ref().map_or(String::new(), |h| format!(" ({h})")),
                if *computed { " (size computed*)" } else { "" }
            ),
            None => format!("{q} (not published for this engine)"),
        })
    });
    view! {
        <NameSlider
            id="quant"
            label="Format (precision)"
            names=names
            current=pos
            text=text
            on_input=Callback::new(move |p| st.edit(Edit::Quant(p)))
        />
    }
}

/// The context per request.
#[component]
pub fn ContextSlider() -> impl IntoView {
    let st = use_app();
    let ctx = st.pick(|i| i.ctx);
    view! {
        <TokensSlider
            id="ctx"
            label="Context per request"
            value=ctx
            on_pick=Callback::new(move |c| st.edit(Edit::Ctx(c)))
        />
    }
}

/// The number of concurrent requests (slots), each with the whole context.
#[component]
pub fn ParSlider() -> impl IntoView {
    let st = use_app();
    let par = st.pick(|i| i.par);
    view! {
        <ValueSlider
            id="par"
            label="Concurrent requests (slots)"
            stops=count_stops(PAR_MAX.min(limits::PAR.1), par)
            first=1
            value=par
            text=Signal::derive(move || plural(par.get(), "slot"))
            on_pick=Callback::new(move |n| st.edit(Edit::Par(n)))
        />
    }
}

/// KV cache element type, among those the engine accepts.
#[component]
pub fn KvField() -> impl IntoView {
    let st = use_app();
    let engine = engine_memo();
    let kv = st.pick(|i| i.kv);
    let options = Signal::derive(move || {
        engine
            .get()
            .kv_choices()
            .into_iter()
            .map(|k| {
                let label = if k == KvDtype::Auto {
                    "auto (model dtype)"
                } else {
                    k.id()
                };
                (k.id().to_string(), label.to_string())
            })
            .collect::<Vec<_>>()
    });
    view! {
        <SelectField
            id="kv"
            label="KV cache type"
            options=options
            selected=Signal::derive(move || kv.get().id().to_string())
            on_change=Callback::new(move |v: String| {
                if let Ok(k) = v.parse::<KvDtype>() {
                    st.edit(Edit::Kv(k));
                }
            })
        />
    }
}

/// llama.cpp's settings that change what it allocates.
#[component]
fn LlamaCppKnobs() -> impl IntoView {
    let st = use_app();
    let i = st.inputs;
    view! {
        <CheckField
            id="kvu"
            label="Unified KV cache shared by all slots (-kvu)"
            checked=Signal::derive(move || i.with(|i| i.kvu))
            on_change=Callback::new(move |on| st.edit(Edit::Kvu(on)))
        />
        <CheckField
            id="swafull"
            label="Full-size cache for sliding-window layers (--swa-full)"
            checked=Signal::derive(move || i.with(|i| i.swa_full))
            on_change=Callback::new(move |on| st.edit(Edit::SwaFull(on)))
        />
        <CountField
            id="ubatch"
            label="Physical batch (-ub)"
            bounds=limits::UBATCH
            get=|i| i.ubatch
            edit=Edit::Ubatch
        />
    }
}

/// A mixture of experts: the routed experts of the first layers can stay in system RAM
/// (llama.cpp `--n-cpu-moe`; vLLM `--cpu-offload-gb` with `--cpu-offload-params experts`;
/// a dense model's is refused with a notice).
#[component]
fn ExpertsField() -> impl IntoView {
    let st = use_app();
    let i = st.inputs;
    let engine = engine_memo();
    view! {
        <NumberField
            id="ncmoe"
            label="Experts kept in RAM, layers (ncmoe)"
            bounds=(0.0, f64::from(limits::NGL.1))
            step=1.0
            value=Signal::derive(move || {
                i.with(|i| i.ncmoe.map_or(0, |m| m.layers(limits::NGL.1)).to_string())
            })
            on_change=Callback::new(move |v: String| {
                if let Ok(n) = v.parse::<u32>() {
                    st.edit(Edit::CpuMoe(n));
                    // The first load sizes no checkpoint's experts: the whole calculator does.
                    if cfg!(not(feature = "cpu-moe")) && engine.get_untracked() == Engine::Vllm {
                        st.more.set(true);
                    }
                }
            })
        />
    }
}

/// GiB kept free on each card for a desktop or other programs (`reserve=`).
#[component]
pub fn ReserveField() -> impl IntoView {
    let st = use_app();
    let i = st.inputs;
    view! {
        <NumberField
            id="reserve"
            label="Keep free per card, GiB (desktop, other programs)"
            bounds=limits::RESERVE_GIB
            step=0.5
            value=Signal::derive(move || i.with(|i| fitcard_estimator::units::Shortest(i.reserve).to_string()))
            on_change=Callback::new(move |v: String| {
                if let Some(r) = fitcard_estimator::units::parse_decimal(&v) {
                    st.edit(Edit::Reserve(r));
                }
            })
        />
    }
}

/// Other models on the same cards (`with=`), typed as the link spells them: the box shows the
/// set in use after each change (an entry left out is said in the notices).
#[cfg(feature = "extras")]
#[component]
fn WithField() -> impl IntoView {
    use fitcard_estimator::inputs::permalink::co_models_text;
    let st = use_app();
    let i = st.inputs;
    let shown = move || i.with(|i| co_models_text(&i.with));
    view! {
        <div class="field">
            <label for="with">"Other models on the cards (repo:format[:context[:slots]][@engine], comma-separated)"</label>
            <input
                type="text"
                id="with"
                name="with"
                placeholder="Qwen/Qwen3-Embedding-0.6B:Q8_0"
                spellcheck="false"
                autocomplete="off"
                prop:value=shown
                on:change=move |ev| {
                    let el = event_target::<web_sys::HtmlInputElement>(&ev);
                    st.edit(Edit::With(el.value()));
                    if let Some(used) = i.try_with_untracked(|i| co_models_text(&i.with)) {
                        crate::components::fields::put_back(&el, &used);
                    }
                }
            />
        </div>
    }
}

/// Images per request (`images=`), for a model whose image processor has a rule: they take
/// tokens of each request's context (the check under the verdict says how many).
#[cfg(feature = "extras")]
#[component]
fn ImagesField() -> impl IntoView {
    let st = use_app();
    let i = st.inputs;
    let takes = move || i.with(|i| fitcard_estimator::catalog::images::rule(&i.model).is_some());
    view! {
        <Show when=takes>
            <CountField
                id="images"
                label="Images per request (their tokens count into the context)"
                bounds=limits::IMAGES
                get=|i| i.images
                edit=Edit::Images
            />
        </Show>
    }
}

/// Speculative decoding (`spec=`) on the engines that draft: off, the model's own MTP layers
/// (llama.cpp and vLLM), n-grams, or the catalog's EAGLE-3 head for the model; a draft
/// model stays as its link set it.
#[cfg(feature = "spec")]
#[component]
fn SpecField() -> impl IntoView {
    use fitcard_estimator::inputs::Spec;
    let st = use_app();
    let i = st.inputs;
    let engine = engine_memo();
    let drafts = move || {
        matches!(
            engine.get(),
            Engine::LlamaCpp | Engine::Vllm | Engine::Sglang
        )
    };
    let options = Signal::derive(move || {
        let mut o = vec![
            (String::new(), "off".to_string()),
            ("mtp".into(), "the model's MTP layers".into()),
            ("ngram".into(), "n-grams from the text so far".into()),
        ];
        if i.with(|i| i.draft.is_some()) {
            o.push(("draft".into(), "the draft model of the link".into()));
        }
        // llama.cpp's draft-eagle3, vLLM's eagle3 and SGLang's EAGLE3 with the catalog's head.
        let head = i.with(|i| fitcard_estimator::inputs::eagle3_head(&i.model));
        if let Some(h) = head.filter(|_| drafts()) {
            o.push(("eagle".into(), format!("an EAGLE-3 head ({})", h.repo)));
        }
        o
    });
    view! {
        <Show when=drafts>
            <SelectField
                id="spec"
                label="Speculative decoding"
                options=options
                selected=Signal::derive(move || i.with(|i| i.spec.map_or("", |s| s.id()).to_string()))
                on_change=Callback::new(move |v: String| st.edit(Edit::Spec(v.parse::<Spec>().ok())))
            />
        </Show>
    }
}

/// What only the whole calculator sets: other models on the cards, images per request and
/// speculative decoding.
#[cfg(feature = "extras")]
#[component]
fn ExtrasFields() -> impl IntoView {
    view! {
        <WithField />
        <ImagesField />
        <SpecField />
    }
}

/// The first load reads neither (it hands a `with=` or `images=` link to the whole calculator):
/// a button loads the whole calculator with the configuration as it is.
#[cfg(not(feature = "extras"))]
#[component]
fn ExtrasFields() -> impl IntoView {
    let st = use_app();
    view! {
        <button type="button" on:click=move |_| st.more.set(true)>
            "More: images, other models, speculative decoding"
        </button>
    }
}

/// The engine settings that change what is allocated.
#[component]
pub fn EngineKnobs() -> impl IntoView {
    let st = use_app();
    let i = st.inputs;
    let engine = engine_memo();
    view! {
        <details class="knobs">
            <summary>"Engine settings"</summary>
            <Show when=move || engine.get() == Engine::LlamaCpp>
                <LlamaCppKnobs />
            </Show>
            <Show when=move || matches!(engine.get(), Engine::LlamaCpp | Engine::Vllm)>
                <ExpertsField />
            </Show>
            // llama.cpp puts a multimodal repo's vision projector on card 0 unless told not to.
            <Show when=move || i.with(choices::has_projector)>
                <CheckField
                    id="mmproj"
                    label="Vision projector (mmproj; off: --no-mmproj, text only)"
                    checked=Signal::derive(move || i.with(|i| i.mmproj))
                    on_change=Callback::new(move |on| st.edit(Edit::Mmproj(on)))
                />
            </Show>
            // vLLM and SGLang both take a fixed share of each card up front.
            <Show when=move || engine.get().preallocates()>
                <NumberField
                    id="util"
                    label=Signal::derive(move || {
                        let e = engine.get();
                        let what = if e == Engine::Sglang {
                            "Share of each card for weights and KV cache"
                        } else {
                            "GPU memory utilization"
                        };
                        format!("{what} ({})", share::util_flag(e))
                    })
                    bounds=limits::UTIL
                    step=0.01
                    value=Signal::derive(move || i.with(|i| fitcard_estimator::units::Shortest(i.util).to_string()))
                    on_change=Callback::new(move |v: String| {
                        if let Some(u) = fitcard_estimator::units::parse_decimal(&v) {
                            st.edit(Edit::Util(u));
                        }
                    })
                />
            </Show>
            <ReserveField />
            <ExtrasFields />
        </details>
    }
}
