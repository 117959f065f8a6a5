//! The configuration controls: keyboard-operable range sliders with visible labels and values,
//! and selectors. Each turns a DOM event into an [`Edit`]; nothing here computes a size.

use crate::app::AppState;
use crate::snap;
use crate::state::{self, Edit};
use fitcard_estimator::catalog::{catalog, SizeKind};
use fitcard_estimator::inputs::{Method, TARGET_MODULES};
use fitcard_estimator::permalink::{gc_id, method_id};
use fitcard_estimator::{Bytes, Engine, GpuChoice, KvDtype, Mode};
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
    /// Highest position. The input is rebuilt when it changes, so the value is never clamped
    /// against a stale maximum.
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
    /// Page state.
    st: AppState,
    /// Embed layout: the model, engine and card type are fixed by the link.
    compact: bool,
) -> impl IntoView {
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
            "{} · capability {} of {}",
            v.name,
            v.capability_rank,
            f.variants.len()
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
        format!("{}{native} tokens", crate::share::tokens(c))
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
    let ctx_slider = move || {
        view! {
            <Slider
                id="ctx"
                label="Context per request"
                max=Signal::derive(move || stops.with(|s| s.len().saturating_sub(1)))
                value=Signal::derive(move || stops.with(|s| snap::nearest(s, ctx.get())))
                text=Signal::derive(move || tokens_text(ctx.get()))
                on_input=Callback::new(move |p: usize| {
                    if let Some(c) = stops.with(|s| s.get(p).copied()) {
                        st.edit(Edit::Ctx(c));
                    }
                })
            />
        }
    };
    let par_slider = move || {
        view! {
            <Slider
                id="par"
                label="Concurrent requests (slots)"
                min=1
                max=Signal::derive(move || snap::linear_max(PAR_MAX, par.get()) as usize)
                value=Signal::derive(move || par.get() as usize)
                text=Signal::derive(move || plural(par.get(), "slot"))
                on_input=Callback::new(move |p: usize| st.edit(Edit::Par(p as u32)))
            />
        }
    };
    let cards_slider = move || {
        view! {
            <Slider
                id="cards"
                label="Cards"
                min=1
                max=Signal::derive(move || snap::linear_max(CARDS_MAX, cards.get()) as usize)
                value=Signal::derive(move || cards.get() as usize)
                text=Signal::derive(move || plural(cards.get(), "card"))
                on_input=Callback::new(move |c: usize| st.edit(Edit::Cards(c as u32)))
            />
        }
    };
    let bsz_slider = move || {
        view! {
            <Slider
                id="bsz"
                label="Batch size"
                max=state::BSZ_STOPS.len() - 1
                value=Signal::derive(move || snap::nearest(&state::BSZ_STOPS, bsz.get()))
                text=Signal::derive(move || plural(bsz.get(), "sequence"))
                on_input=Callback::new(move |p: usize| {
                    if let Some(&b) = state::BSZ_STOPS.get(p) {
                        st.edit(Edit::Bsz(b));
                    }
                })
            />
        }
    };
    let seq_slider = move || {
        view! {
            <Slider
                id="seq"
                label="Sequence length"
                max=Signal::derive(move || stops.with(|s| s.len().saturating_sub(1)))
                value=Signal::derive(move || stops.with(|s| snap::nearest(s, seq.get())))
                text=Signal::derive(move || tokens_text(seq.get()))
                on_input=Callback::new(move |p: usize| {
                    if let Some(c) = stops.with(|s| s.get(p).copied()) {
                        st.edit(Edit::Seq(c));
                    }
                })
            />
        }
    };
    let rank_slider = move || {
        view! {
            <Slider
                id="rank"
                label="LoRA rank"
                max=state::RANK_STOPS.len() - 1
                value=Signal::derive(move || snap::nearest(&state::RANK_STOPS, rank.get()))
                text=Signal::derive(move || {
                    if method.get() == Method::Full {
                        format!("r = {} (unused: full fine-tuning)", rank.get())
                    } else {
                        format!("r = {}", rank.get())
                    }
                })
                on_input=Callback::new(move |p: usize| {
                    if let Some(&r) = state::RANK_STOPS.get(p) {
                        st.edit(Edit::Rank(r));
                    }
                })
            />
        }
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
    view! {
        <div class="controls">
            <ModeSwitch st=st />
            <div class="field">
                <label for="family">"Model family"</label>
                <select
                    id="family"
                    name="family"
                    on:change=move |ev| st.edit(Edit::Family(event_target_value(&ev)))
                >
                    {catalog()
                        .families
                        .iter()
                        .map(|f| {
                            let id = f.id.clone();
                            let sel = id.clone();
                            view! {
                                <option value=id prop:selected=move || family_id.with(|x| *x == sel)>
                                    {f.name.clone()}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </div>
            <Slider
                id="variant"
                label="Model (by capability)"
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
                <div class="field">
                    <label for="engine">"Engine"</label>
                    <select
                        id="engine"
                        name="engine"
                        on:change=move |ev| {
                            if let Ok(e) = event_target_value(&ev).parse::<Engine>() {
                                st.edit(Edit::Engine(e));
                            }
                        }
                    >
                        {Engine::ALL
                            .iter()
                            .map(|&e| {
                                view! {
                                    <option value=e.id() prop:selected=move || engine.get() == e>
                                        {e.label()}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </div>
                {quant_slider()}
                {ctx_slider()}
                {par_slider()}
            </Show>
            <Show when=train>
                <TrainChoices st=st />
                {bsz_slider()}
                {seq_slider()}
                {rank_slider()}
                <Targets st=st />
            </Show>
            <GpuField st=st />
            {cards_slider()}
            <Show when=serve>
                <KvField st=st />
                <EngineKnobs st=st />
            </Show>
            <Show when=train>
                <GpuPool st=st />
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
fn ModeSwitch(
    /// Page state.
    st: AppState,
) -> impl IntoView {
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

/// Method, optimizer and gradient-checkpointing selectors.
#[component]
fn TrainChoices(
    /// Page state.
    st: AppState,
) -> impl IntoView {
    let t = Memo::new(move |_| st.inputs.with(|i| i.train.clone()));
    view! {
        <div class="field">
            <label for="method">"Method"</label>
            <select
                id="method"
                name="method"
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    if let Some((m, _)) = state::METHODS.iter().find(|(m, _)| method_id(*m) == v) {
                        st.edit(Edit::Method(*m));
                    }
                }
            >
                {state::METHODS
                    .iter()
                    .map(|&(m, label)| {
                        view! {
                            <option value=method_id(m) prop:selected=move || t.with(|t| t.method == m)>
                                {label}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </div>
        <div class="field">
            <label for="optim">"Optimizer"</label>
            <select
                id="optim"
                name="optim"
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    if let Some((o, _)) = state::OPTIMS.iter().find(|(_, id)| *id == v) {
                        st.edit(Edit::Optim(*o));
                    }
                }
            >
                {state::OPTIMS
                    .iter()
                    .map(|&(o, id)| {
                        view! {
                            <option value=id prop:selected=move || t.with(|t| t.optim == o)>
                                {id}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </div>
        <div class="field">
            <label for="gc">"Gradient checkpointing"</label>
            <select
                id="gc"
                name="gc"
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    if let Some((g, _)) = state::GCS.iter().find(|(g, _)| gc_id(*g) == v) {
                        st.edit(Edit::Gc(*g));
                    }
                }
            >
                {state::GCS
                    .iter()
                    .map(|&(g, label)| {
                        view! {
                            <option value=gc_id(g) prop:selected=move || t.with(|t| t.gc == g)>
                                {label}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </div>
    }
}

/// LoRA target modules, one checkbox each.
#[component]
fn Targets(
    /// Page state.
    st: AppState,
) -> impl IntoView {
    let bits = Memo::new(move |_| st.inputs.with(|i| i.train.targets));
    let full = Memo::new(move |_| st.inputs.with(|i| i.train.method == Method::Full));
    view! {
        <fieldset class="targets" prop:disabled=move || full.get()>
            <legend>"LoRA target modules"</legend>
            {TARGET_MODULES
                .iter()
                .enumerate()
                .map(|(k, name)| {
                    let id = format!("target-{name}");
                    view! {
                        <span class="target">
                            <input
                                type="checkbox"
                                id=id.clone()
                                prop:checked=move || bits.get() & (1 << k) != 0
                                on:change=move |ev| st.edit(Edit::Target(k, event_target_checked(&ev)))
                            />
                            <label for=id>{format!("{name}_proj")}</label>
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
fn GpuPool(
    /// Page state.
    st: AppState,
) -> impl IntoView {
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
    let rows = move || {
        let p = picked.get();
        pool.get()
            .into_iter()
            .enumerate()
            .map(|(k, gib)| {
                let id = format!("free-{k}");
                let pos = p.iter().position(|&g| g as usize == k);
                let badge = match pos {
                    Some(0) => "picked (counts 100 %)",
                    Some(_) => "picked (counts 85 %)",
                    None => "spare",
                };
                view! {
                    <li class:picked=pos.is_some() data-gpu=k>
                        <label for=id.clone()>{format!("GPU {k}")}</label>
                        <input
                            type="number"
                            id=id
                            min="0"
                            max="4096"
                            step="0.5"
                            prop:value=gib.to_string()
                            aria-label=format!("Free memory of GPU {k} in GiB")
                            on:change=move |ev| {
                                if let Ok(g) = event_target_value(&ev).parse::<f64>() {
                                    st.edit(Edit::Free(k, g));
                                }
                            }
                        />
                        <span class="unit">"GiB free"</span>
                        <span class="badge">{badge}</span>
                        <button
                            type="button"
                            class="remove"
                            aria-label=format!("Remove GPU {k}")
                            on:click=move |_| st.edit(Edit::RemoveGpu(k))
                        >
                            "Remove"
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <fieldset class="pool">
            <legend>"GPUs for training (free memory each)"</legend>
            <ul class="pool-list">{rows}</ul>
            <div class="row">
                <button type="button" id="add-gpu" on:click=move |_| st.edit(Edit::AddGpu)>
                    "Add GPU"
                </button>
                <Show when=move || explicit_list.get()>
                    <button type="button" id="reset-gpus" on:click=move |_| st.edit(Edit::ResetGpus)>
                        "Use the cards above"
                    </button>
                </Show>
                <Show when=move || !pick.get().is_empty()>
                    <button type="button" id="auto-pick" on:click=move |_| st.edit(Edit::AutoPick)>
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
                {message}
            </p>
            <Show when=move || explicit_list.get()>
                <p class="hint">"This list replaces the GPU and card count above."</p>
            </Show>
        </fieldset>
    }
}

/// GPU selector, or a free VRAM size per card.
#[component]
fn GpuField(
    /// Page state.
    st: AppState,
) -> impl IntoView {
    let gpu = Memo::new(move |_| st.inputs.with(|i| i.gpu.clone()));
    let is_custom = move || matches!(gpu.get(), GpuChoice::VramGib(_));
    view! {
        <div class="field">
            <label for="gpu">"GPU"</label>
            <select
                id="gpu"
                name="gpu"
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    st.edit(Edit::Gpu((v != CUSTOM_GPU).then_some(v)));
                }
            >
                {catalog()
                    .gpus
                    .iter()
                    .map(|g| {
                        let id = g.id.clone();
                        let sel = id.clone();
                        let text = format!("{} ({})", g.name, Bytes(g.vram_bytes));
                        view! {
                            <option
                                value=id
                                prop:selected=move || {
                                    gpu.with(|x| matches!(x, GpuChoice::Catalog(c) if *c == sel))
                                }
                            >
                                {text}
                            </option>
                        }
                    })
                    .collect_view()}
                <option value=CUSTOM_GPU prop:selected=is_custom>
                    "Other: enter VRAM per card"
                </option>
            </select>
        </div>
        <Show when=is_custom>
            <div class="field">
                <label for="vram">"VRAM per card (GiB)"</label>
                <input
                    type="number"
                    id="vram"
                    name="vram"
                    min="0.25"
                    max="4096"
                    step="0.25"
                    prop:value=move || match gpu.get() {
                        GpuChoice::VramGib(g) => g.to_string(),
                        GpuChoice::Catalog(_) => String::new(),
                    }
                    on:change=move |ev| {
                        if let Ok(g) = event_target_value(&ev).parse::<f64>() {
                            st.edit(Edit::Vram(g));
                        }
                    }
                />
            </div>
        </Show>
    }
}

/// KV cache element type, among those the engine accepts.
#[component]
fn KvField(
    /// Page state.
    st: AppState,
) -> impl IntoView {
    let engine = Memo::new(move |_| st.inputs.with(|i| i.engine));
    let kv = Memo::new(move |_| st.inputs.with(|i| i.kv));
    view! {
        <div class="field">
            <label for="kv">"KV cache type"</label>
            <select
                id="kv"
                name="kv"
                on:change=move |ev| {
                    if let Ok(k) = event_target_value(&ev).parse::<KvDtype>() {
                        st.edit(Edit::Kv(k));
                    }
                }
            >
                {move || {
                    engine
                        .get()
                        .kv_choices()
                        .into_iter()
                        .map(|k| {
                            let label = if engine.get() == Engine::Vllm && k == KvDtype::F16 {
                                "auto (model dtype)".to_string()
                            } else {
                                k.id().to_string()
                            };
                            view! {
                                <option value=k.id() prop:selected=move || kv.get() == k>
                                    {label}
                                </option>
                            }
                        })
                        .collect_view()
                }}
            </select>
        </div>
    }
}

/// The engine settings that change what is allocated.
#[component]
fn EngineKnobs(
    /// Page state.
    st: AppState,
) -> impl IntoView {
    let i = st.inputs;
    let engine = Memo::new(move |_| i.with(|i| i.engine));
    view! {
        <details class="knobs">
            <summary>"Engine settings"</summary>
            <Show when=move || engine.get() == Engine::LlamaCpp>
                <div class="field check">
                    <input
                        type="checkbox"
                        id="kvu"
                        prop:checked=move || i.with(|i| i.kvu)
                        on:change=move |ev| st.edit(Edit::Kvu(event_target_checked(&ev)))
                    />
                    <label for="kvu">"Unified KV cache shared by all slots (-kvu)"</label>
                </div>
                <div class="field check">
                    <input
                        type="checkbox"
                        id="swafull"
                        prop:checked=move || i.with(|i| i.swa_full)
                        on:change=move |ev| st.edit(Edit::SwaFull(event_target_checked(&ev)))
                    />
                    <label for="swafull">"Full-size cache for sliding-window layers (--swa-full)"</label>
                </div>
                <div class="field">
                    <label for="ubatch">"Physical batch (-ub)"</label>
                    <input
                        type="number"
                        id="ubatch"
                        min="1"
                        max="65536"
                        step="1"
                        prop:value=move || i.with(|i| i.ubatch.to_string())
                        on:change=move |ev| {
                            if let Ok(u) = event_target_value(&ev).parse::<u32>() {
                                st.edit(Edit::Ubatch(u));
                            }
                        }
                    />
                </div>
            </Show>
            <Show when=move || engine.get() == Engine::Vllm>
                <div class="field">
                    <label for="util">"GPU memory utilization (--gpu-memory-utilization)"</label>
                    <input
                        type="number"
                        id="util"
                        min="0.05"
                        max="1"
                        step="0.01"
                        prop:value=move || i.with(|i| i.util.to_string())
                        on:change=move |ev| {
                            if let Ok(u) = event_target_value(&ev).parse::<f64>() {
                                st.edit(Edit::Util(u));
                            }
                        }
                    />
                </div>
            </Show>
            <Show when=move || matches!(engine.get(), Engine::Ollama | Engine::Transformers)>
                <p class="hint">"No further settings change this engine's allocation."</p>
            </Show>
        </details>
    }
}
