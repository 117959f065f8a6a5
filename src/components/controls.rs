//! The configuration controls: keyboard-operable range sliders with visible labels and values,
//! and selectors. Each turns a DOM event into an [`Edit`]; nothing here computes a size.

use crate::app::use_app;
use crate::snap;
use crate::state::{self, Edit};
use fitcard_estimator::catalog::{catalog, SizeKind};
use fitcard_estimator::inputs::{GradCkpt, Method, Optim, TargetModule, TrainInputs};
use fitcard_estimator::{Engine, GpuChoice, KvDtype, Mode};
use leptos::prelude::*;

/// Default upper end of the concurrency slider (a larger value from a link widens it).
const PAR_MAX: u32 = 64;
/// Default upper end of the card-count slider.
const CARDS_MAX: u32 = 8;
/// The `<option>` value standing for "enter the VRAM size".
const CUSTOM_GPU: &str = "custom";

/// A range slider over positions `min..=max` with a visible label and value.
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
    view! {
        <div class="field slider">
            <div class="field-head">
                <label for=id>{label}</label>
                <output id=value_id for=id>
                    {move || text.get()}
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
                        aria-valuetext=move || text.get()
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

/// All controls (`compact`: only the sliders, for the embed).
#[component]
pub fn Controls(
    /// Embed layout: the model, engine and card type are fixed by the link.
    compact: bool,
) -> impl IntoView {
    let st = use_app();
    let inputs = st.inputs;
    let engine = Memo::new(move |_| inputs.with(|i| i.engine));
    let model = Memo::new(move |_| inputs.with(|i| i.model.clone()));
    let serve = move || st.mode.get() == Mode::Serve;
    let train = move || st.mode.get() == Mode::Train;

    // Variant slider.
    let variants = Memo::new(move |_| {
        let (f, _) = state::family_of(&model.get());
        state::variants(f)
            .iter()
            .map(|v| (v.id.clone(), v.name.clone()))
            .collect::<Vec<_>>()
    });
    let variant_text = Signal::derive(move || {
        let (f, v) = model.with(|m| state::family_of(m));
        format!(
            "{} · {}",
            v.name,
            state::capability_words(v.capability_rank, f.variants.len())
        )
    });

    // Format slider.
    let formats = Memo::new(move |_| {
        let (_, v) = state::family_of(&model.get());
        state::formats(v, engine.get())
            .iter()
            .map(|f| (f.id, f.size(), f.size == SizeKind::Computed))
            .collect::<Vec<_>>()
    });
    let quant_pos = Signal::derive(move || {
        let q = inputs.with(|i| i.quant);
        formats.with(|fs| fs.iter().position(|f| f.0 == q).unwrap_or(0))
    });
    let quant_text = Signal::derive(move || {
        let q = inputs.with(|i| i.quant);
        formats.with(|fs| match fs.iter().find(|f| f.0 == q) {
            Some((id, size, computed)) => format!(
                "{id} · {size} file{}",
                if *computed { " (size computed*)" } else { "" }
            ),
            None => format!("{q} (not published for this engine)"),
        })
    });

    // Context slider (serve) and sequence-length slider (train) share the model's stops.
    let stops = Memo::new(move |_| {
        let (_, v) = state::family_of(&model.get());
        snap::ctx_stops(v.arch.max_ctx, &v.arch.native_ctx)
    });
    let ctx = Memo::new(move |_| inputs.with(|i| i.ctx));
    let seq = Memo::new(move |_| inputs.with(|i| i.train.seq));
    let tokens_text = move |c: u32| {
        let (_, v) = model.with(|m| state::family_of(m));
        let native = if v.arch.native_ctx.contains(&c) {
            " · native"
        } else if c > v.arch.max_ctx {
            " · beyond the model's maximum"
        } else {
            ""
        };
        format!("{} tokens{native}", crate::share::tokens(c))
    };

    let par = Memo::new(move |_| inputs.with(|i| i.par));
    let cards = Memo::new(move |_| inputs.with(|i| i.cards));
    let bsz = Memo::new(move |_| inputs.with(|i| i.train.bsz));
    let rank = Memo::new(move |_| inputs.with(|i| i.train.rank));
    let method = Memo::new(move |_| inputs.with(|i| i.train.method));

    let quant_slider = move || {
        view! {
            <Slider
                id="quant"
                label="Format (precision)"
                max=Signal::derive(move || formats.with(|f| f.len().saturating_sub(1)))
                value=quant_pos
                text=quant_text
                on_input=Callback::new(move |p| st.edit(Edit::Quant(p)))
            >
                <ul class="stops" aria-hidden="true">
                    {move || {
                        let q = inputs.with(|i| i.quant);
                        formats
                            .get()
                            .into_iter()
                            .map(|(id, _, computed)| {
                                view! {
                                    <li class:on=id == q>
                                        {id.id()}
                                        {computed.then_some("*")}
                                    </li>
                                }
                            })
                            .collect_view()
                    }}
                </ul>
            </Slider>
        }
    };
    // A slider over the model's token stops: context (serve) or sequence length (train).
    let tokens_slider =
        move |id: &'static str, label: &'static str, value: Memo<u32>, edit: fn(u32) -> Edit| {
            view! {
                <Slider
                    id=id
                    label=label
                    max=Signal::derive(move || stops.with(|s| s.len().saturating_sub(1)))
                    value=Signal::derive(move || stops.with(|s| snap::nearest(s, value.get())))
                    text=Signal::derive(move || tokens_text(value.get()))
                    on_input=Callback::new(move |p: usize| {
                        if let Some(c) = stops.with(|s| s.get(p).copied()) {
                            st.edit(edit(c));
                        }
                    })
                />
            }
        };
    // A slider over a fixed list of stops (batch size, LoRA rank).
    let stop_slider = move |id: &'static str,
                            label: &'static str,
                            stops: &'static [u32],
                            value: Memo<u32>,
                            text: Signal<String>,
                            edit: fn(u32) -> Edit| {
        view! {
            <Slider
                id=id
                label=label
                max=stops.len() - 1
                value=Signal::derive(move || snap::nearest(stops, value.get()))
                text=text
                on_input=Callback::new(move |p: usize| {
                    if let Some(&v) = stops.get(p) {
                        st.edit(edit(v));
                    }
                })
            />
        }
    };
    // A count from 1 (slots, cards); a larger value from a link widens the range.
    let count_slider = move |id: &'static str,
                             label: &'static str,
                             default_max: u32,
                             value: Memo<u32>,
                             unit: &'static str,
                             edit: fn(u32) -> Edit| {
        view! {
            <Slider
                id=id
                label=label
                min=1
                max=Memo::new(move |prev: Option<&usize>| {
                    // Widens for a larger value from a link, never narrows while dragging back.
                    let m = snap::linear_max(default_max, value.get()) as usize;
                    prev.map_or(m, |&p| p.max(m))
                })
                value=Signal::derive(move || value.get() as usize)
                text=Signal::derive(move || plural(value.get(), unit))
                on_input=Callback::new(move |n: usize| st.edit(edit(n as u32)))
            />
        }
    };
    let ctx_slider = move || tokens_slider("ctx", "Context per request", ctx, Edit::Ctx);
    let seq_slider = move || tokens_slider("seq", "Sequence length", seq, Edit::Seq);
    let par_slider = move || {
        count_slider(
            "par",
            "Concurrent requests (slots)",
            PAR_MAX,
            par,
            "slot",
            Edit::Par,
        )
    };
    let cards_slider =
        move || count_slider("cards", "Cards", CARDS_MAX, cards, "card", Edit::Cards);
    let bsz_slider = move || {
        let text = Signal::derive(move || plural(bsz.get(), "sequence"));
        stop_slider("bsz", "Batch size", &state::BSZ_STOPS, bsz, text, Edit::Bsz)
    };
    let rank_slider = move || {
        let text = Signal::derive(move || {
            if method.get() == Method::Full {
                format!("r = {} (unused: full fine-tuning)", rank.get())
            } else {
                format!("r = {}", rank.get())
            }
        });
        stop_slider(
            "rank",
            "LoRA rank",
            &state::RANK_STOPS,
            rank,
            text,
            Edit::Rank,
        )
    };

    if compact {
        return view! {
            <div class="controls compact">
                <Show
                    when=serve
                    fallback=move || view! { {bsz_slider()} {seq_slider()} {rank_slider()} }
                >
                    {quant_slider()}
                    {ctx_slider()}
                    {par_slider()}
                </Show>
                {cards_slider()}
            </div>
        }
        .into_any();
    }

    let family_id = Memo::new(move |_| state::family_of(&model.get()).0.id.clone());
    let families = catalog()
        .families
        .iter()
        .map(|f| (f.id.clone(), f.name.clone()))
        .collect::<Vec<_>>();
    let engines = Engine::ALL
        .iter()
        .map(|e| (e.id().to_string(), e.label().to_string()))
        .collect::<Vec<_>>();
    view! {
        <div class="controls">
            <ModeSwitch />
            <SelectField
                id="family"
                label="Model family"
                options=families
                selected=family_id
                on_change=Callback::new(move |v| st.edit(Edit::Family(v)))
            />
            <Slider
                id="variant"
                label="Model (weakest → most capable)"
                max=Signal::derive(move || variants.with(|v| v.len().saturating_sub(1)))
                value=Signal::derive(move || model.with(|m| state::variant_pos(m)))
                text=variant_text
                on_input=Callback::new(move |p| st.edit(Edit::Variant(p)))
            >
                <ul class="stops" aria-hidden="true">
                    {move || {
                        let m = model.get();
                        variants
                            .get()
                            .into_iter()
                            .map(|(id, name)| view! { <li class:on=id == m>{name}</li> })
                            .collect_view()
                    }}
                </ul>
            </Slider>
            <Show when=serve>
                <SelectField
                    id="engine"
                    label="Engine"
                    options=engines.clone()
                    selected=Signal::derive(move || engine.get().id().to_string())
                    on_change=Callback::new(move |v: String| {
                        if let Ok(e) = v.parse::<Engine>() {
                            st.edit(Edit::Engine(e));
                        }
                    })
                />
                {quant_slider()}
                {ctx_slider()}
                {par_slider()}
            </Show>
            <Show when=train>
                <TrainChoices />
                {bsz_slider()}
                {seq_slider()}
                {rank_slider()}
                <Targets />
            </Show>
            <GpuField />
            {cards_slider()}
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

/// `1 card`, `2 cards`.
fn plural(n: u32, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
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

/// A labelled `<select>`: the options as `(value, text)` pairs, the selected one by value.
#[component]
fn SelectField(
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

/// A labelled number input.
#[component]
fn NumberField(
    /// Element id and form name; the label points at it.
    id: &'static str,
    /// Visible label.
    label: &'static str,
    /// Lowest value the input offers.
    min: &'static str,
    /// Highest value the input offers.
    max: &'static str,
    /// Step of the input's arrows.
    step: &'static str,
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
                min=min
                max=max
                step=step
                prop:value=move || value.get()
                on:change=move |ev| {
                    let el = event_target::<web_sys::HtmlInputElement>(&ev);
                    on_change.run(el.value());
                    // A refused or adjusted entry is replaced by the value in use.
                    let used = value.get_untracked();
                    if el.value() != used {
                        el.set_value(&used);
                    }
                }
            />
        </div>
    }
}

/// A checkbox with its label after it.
#[component]
fn CheckField(
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

/// A [`SelectField`] over a fixed table of `(choice, text)`: each option's value is the
/// choice's permalink id, the selected one is `current` of the train inputs, and a change
/// applies `edit`.
fn table_select<T: Copy + PartialEq + Send + Sync + 'static>(
    id: &'static str,
    label: &'static str,
    table: &'static [(T, &'static str)],
    value_id: fn(T) -> &'static str,
    current: fn(&TrainInputs) -> T,
    edit: fn(T) -> Edit,
) -> impl IntoView {
    let st = use_app();
    let options = table
        .iter()
        .map(|&(c, text)| (value_id(c).to_string(), text.to_string()))
        .collect::<Vec<_>>();
    view! {
        <SelectField
            id=id
            label=label
            options=options
            selected=Signal::derive(move || value_id(st.inputs.with(|i| current(&i.train))).to_string())
            on_change=Callback::new(move |v: String| {
                if let Some(&(c, _)) = table.iter().find(|(c, _)| value_id(*c) == v) {
                    st.edit(edit(c));
                }
            })
        />
    }
}

/// Method, optimizer and gradient-checkpointing selectors.
#[component]
fn TrainChoices() -> impl IntoView {
    view! {
        {table_select("method", "Method", &state::METHODS, Method::id, |t| t.method, Edit::Method)}
        {table_select("optim", "Optimizer", &state::OPTIMS, Optim::id, |t| t.optim, Edit::Optim)}
        {table_select(
            "gc",
            "Gradient checkpointing",
            &state::GCS,
            GradCkpt::id,
            |t| t.gc,
            Edit::Gc,
        )}
    }
}

/// LoRA target modules, one checkbox each.
#[component]
fn Targets() -> impl IntoView {
    let st = use_app();
    let set = Memo::new(move |_| st.inputs.with(|i| i.train.targets));
    let full = Memo::new(move |_| st.inputs.with(|i| i.train.method == Method::Full));
    view! {
        <fieldset class="targets" prop:disabled=move || full.get()>
            <legend>"LoRA target modules"</legend>
            {TargetModule::ALL
                .iter()
                .map(|&m| {
                    let id = format!("target-{m}");
                    view! {
                        <span class="target">
                            <input
                                type="checkbox"
                                id=id.clone()
                                prop:checked=move || set.get().contains(m)
                                on:change=move |ev| st.edit(Edit::Target(m, event_target_checked(&ev)))
                            />
                            <label for=id>{m.proj()}</label>
                        </span>
                    }
                })
                .collect_view()}
            <Show when=move || full.get()>
                <p class="hint">"Full fine-tuning trains every parameter: no adapters."</p>
            </Show>
        </fieldset>
    }
}

/// The training GPU pool: free GiB per GPU (add, remove, edit), and which GPUs the estimator
/// picks.
#[component]
fn GpuPool() -> impl IntoView {
    let st = use_app();
    let pool = Memo::new(move |_| st.inputs.with(state::pool_gib));
    let explicit_list = Memo::new(move |_| st.inputs.with(|i| !i.train.free.is_empty()));
    let pick = Memo::new(move |_| st.inputs.with(|i| i.train.pick.clone()));
    let picked = Memo::new(move |_| {
        st.train.with(|t| {
            t.as_ref()
                .map(|t| t.selection.picked.clone())
                .unwrap_or_default()
        })
    });
    let message = move || {
        st.train.with(|t| {
            t.as_ref()
                .map(|t| t.selection.message.clone())
                .unwrap_or_default()
        })
    };
    // The rows are redrawn only when their number changes; each row reads its own values, so
    // editing one box leaves the focus where it is.
    let count = Memo::new(move |_| pool.with(Vec::len));
    let rows = move || {
        (0..count.get())
            .map(|k| view! { <PoolRow pool=pool picked=picked k=k /> })
            .collect_view()
    };
    // A button that hides itself hands the focus to "Add GPU".
    let to_add = || crate::dom::keep_focus(vec!["add-gpu".into()]);
    view! {
        <fieldset class="pool">
            <legend>"Training GPUs (free memory each)"</legend>
            <ul class="pool-list">{rows}</ul>
            <div class="row">
                <button type="button" id="add-gpu" on:click=move |_| st.edit(Edit::AddGpu)>
                    "Add GPU"
                </button>
                <Show when=move || explicit_list.get()>
                    <button
                        type="button"
                        id="reset-gpus"
                        on:click=move |_| {
                            st.edit(Edit::ResetGpus);
                            to_add();
                        }
                    >
                        "Use the cards above"
                    </button>
                </Show>
                <Show when=move || !pick.get().is_empty()>
                    <button
                        type="button"
                        id="auto-pick"
                        on:click=move |_| {
                            st.edit(Edit::AutoPick);
                            to_add();
                        }
                    >
                        "Select automatically"
                    </button>
                </Show>
            </div>
            <p class="hint selection">
                {move || {
                    if pick.get().is_empty() {
                        "Automatic selection: the fewest GPUs, most free memory first. "
                    } else {
                        "GPUs chosen by the link (pick=). "
                    }
                }}
                {move || crate::share::capitalize(&message())}
            </p>
            <Show when=move || explicit_list.get()>
                <p class="hint">"This list replaces the GPU and card count above."</p>
            </Show>
        </fieldset>
    }
}

/// One GPU of the training pool: its free GiB (the box always shows the value in use: a
/// refused entry is put back), whether the selection picked it, and its remove button.
#[component]
fn PoolRow(
    /// Free GiB per GPU as used.
    pool: Memo<Vec<f64>>,
    /// The GPUs picked, in order.
    picked: Memo<Vec<u32>>,
    /// This GPU's position.
    k: usize,
) -> impl IntoView {
    let st = use_app();
    let id = format!("free-{k}");
    let gib = move || pool.with(|p| p.get(k).copied().unwrap_or_default());
    let pos = Memo::new(move |_| picked.with(|p| p.iter().position(|&g| g as usize == k)));
    let badge = move || match pos.get() {
        Some(0) => "picked (counts 100 %)",
        Some(_) => "picked (counts 85 %)",
        None => "spare",
    };
    let change = move |ev: leptos::ev::Event| {
        let el = event_target::<web_sys::HtmlInputElement>(&ev);
        if let Ok(g) = el.value().parse::<f64>() {
            st.edit(Edit::Free(k, g));
        }
        let used = gib().to_string();
        if el.value() != used {
            el.set_value(&used);
        }
    };
    // Removing a GPU keeps the focus on a remove button: the one that moved into this place,
    // or the previous one when this was the last.
    let remove = move |_| {
        st.edit(Edit::RemoveGpu(k));
        let mut ids = vec![format!("remove-gpu-{k}")];
        if k > 0 {
            ids.push(format!("remove-gpu-{}", k - 1));
        }
        ids.push("add-gpu".into());
        crate::dom::keep_focus(ids);
    };
    view! {
        <li class:picked=move || pos.get().is_some() data-gpu=k>
            <label for=id.clone()>{format!("GPU {k}")}</label>
            <input
                type="number"
                id=id
                min="0"
                max="4096"
                step="0.5"
                prop:value=move || gib().to_string()
                aria-label=format!("Free memory of GPU {k} in GiB")
                on:change=change
            />
            <span class="unit">"GiB free"</span>
            <span class="badge">{badge}</span>
            <button
                type="button"
                class="remove"
                id=format!("remove-gpu-{k}")
                aria-label=format!("Remove GPU {k}")
                on:click=remove
            >
                "Remove"
            </button>
        </li>
    }
}

/// GPU selector, or a free VRAM size per card.
#[component]
fn GpuField() -> impl IntoView {
    let st = use_app();
    let gpu = Memo::new(move |_| st.inputs.with(|i| i.gpu.clone()));
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
                min="0.25"
                max="4096"
                step="0.25"
                value=Signal::derive(move || match gpu.get() {
                    GpuChoice::VramGib(g) => g.to_string(),
                    GpuChoice::Catalog(_) => String::new(),
                })
                on_change=Callback::new(move |v: String| {
                    if let Ok(g) = v.parse::<f64>() {
                        st.edit(Edit::Vram(g));
                    }
                })
            />
        </Show>
    }
}

/// KV cache element type, among those the engine accepts.
#[component]
fn KvField() -> impl IntoView {
    let st = use_app();
    let engine = Memo::new(move |_| st.inputs.with(|i| i.engine));
    let kv = Memo::new(move |_| st.inputs.with(|i| i.kv));
    let options = Signal::derive(move || {
        let e = engine.get();
        e.kv_choices()
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

/// The engine settings that change what is allocated.
#[component]
fn EngineKnobs() -> impl IntoView {
    let st = use_app();
    let i = st.inputs;
    let engine = Memo::new(move |_| i.with(|i| i.engine));
    view! {
        <details class="knobs">
            <summary>"Engine settings"</summary>
            <Show when=move || engine.get() == Engine::LlamaCpp>
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
                <NumberField
                    id="ubatch"
                    label="Physical batch (-ub)"
                    min="1"
                    max="65536"
                    step="1"
                    value=Signal::derive(move || i.with(|i| i.ubatch.to_string()))
                    on_change=Callback::new(move |v: String| {
                        if let Ok(u) = v.parse::<u32>() {
                            st.edit(Edit::Ubatch(u));
                        }
                    })
                />
            </Show>
            <Show when=move || engine.get() == Engine::Vllm>
                <NumberField
                    id="util"
                    label="GPU memory utilization (--gpu-memory-utilization)"
                    min="0.05"
                    max="1"
                    step="0.01"
                    value=Signal::derive(move || i.with(|i| i.util.to_string()))
                    on_change=Callback::new(move |v: String| {
                        if let Ok(u) = v.parse::<f64>() {
                            st.edit(Edit::Util(u));
                        }
                    })
                />
            </Show>
            <Show when=move || matches!(engine.get(), Engine::Ollama | Engine::Transformers)>
                <p class="hint">"No further settings change this engine's allocation."</p>
            </Show>
        </details>
    }
}
