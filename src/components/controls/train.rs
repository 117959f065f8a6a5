//! Train-mode controls: method, optimizer, checkpointing, batch, sequence length, LoRA rank,
//! target modules, and the GPU pool editor.

use super::shared::TokensSlider;
use crate::app::state::use_app;
use crate::components::fields::{plural, put_back, table_select, ValueSlider};
use crate::model::choices;
use crate::model::edit::Edit;
use fitcard_estimator::inputs::{limits, GradCkpt, Method, Optim, TargetModule, Trainer};
use fitcard_estimator::units::Shortest;
use leptos::prelude::*;

/// Trainer, method, optimizer and gradient-checkpointing selectors.
#[component]
pub fn TrainChoices() -> impl IntoView {
    let st = use_app();
    view! {
        {table_select(
            "trainer",
            "Trainer",
            &choices::TRAINERS,
            Trainer::id,
            move || st.inputs.with(|i| i.train.trainer),
            move |t| st.edit(Edit::Trainer(t)),
        )}
        {table_select(
            "method",
            "Method",
            &choices::METHODS,
            Method::id,
            move || st.inputs.with(|i| i.train.method),
            move |m| st.edit(Edit::Method(m)),
        )}
        {table_select(
            "optim",
            "Optimizer",
            &choices::OPTIMS,
            Optim::id,
            move || st.inputs.with(|i| i.train.optim),
            move |o| st.edit(Edit::Optim(o)),
        )}
        {table_select(
            "gc",
            "Gradient checkpointing",
            &choices::GCS,
            GradCkpt::id,
            move || st.inputs.with(|i| i.train.gc),
            move |g| st.edit(Edit::Gc(g)),
        )}
    }
}

/// Sequences per step.
#[component]
pub fn BszSlider() -> impl IntoView {
    let st = use_app();
    let bsz = st.pick(|i| i.train.bsz);
    view! {
        <ValueSlider
            id="bsz"
            label="Batch size"
            stops=choices::BSZ_STOPS.to_vec()
            value=bsz
            text=Signal::derive(move || plural(bsz.get(), "sequence"))
            on_pick=Callback::new(move |b| st.edit(Edit::Bsz(b)))
        />
    }
}

/// Tokens per training sequence, over the model's token stops.
#[component]
pub fn SeqSlider() -> impl IntoView {
    let st = use_app();
    let seq = st.pick(|i| i.train.seq);
    view! {
        <TokensSlider
            id="seq"
            label="Sequence length"
            value=seq
            on_pick=Callback::new(move |q| st.edit(Edit::Seq(q)))
        />
    }
}

/// The adapters' rank (unused by full fine-tuning, which the label says).
#[component]
pub fn RankSlider() -> impl IntoView {
    let st = use_app();
    let rank = st.pick(|i| i.train.rank);
    let full = st.pick(|i| i.train.method == Method::Full);
    let text = Signal::derive(move || {
        if full.get() {
            format!("r = {} (unused: full fine-tuning)", rank.get())
        } else {
            format!("r = {}", rank.get())
        }
    });
    view! {
        <ValueSlider
            id="rank"
            label="LoRA rank"
            stops=choices::RANK_STOPS.to_vec()
            value=rank
            text=text
            on_pick=Callback::new(move |r| st.edit(Edit::Rank(r)))
        />
    }
}

/// LoRA target modules, one checkbox each.
#[component]
pub fn Targets() -> impl IntoView {
    let st = use_app();
    let set = st.pick(|i| i.train.targets);
    let full = st.pick(|i| i.train.method == Method::Full);
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
pub fn GpuPool() -> impl IntoView {
    let st = use_app();
    let pool = Memo::new(move |_| st.inputs.with(choices::pool_gib));
    let explicit_list = st.pick(|i| !i.train.free.is_empty());
    let pick = st.pick(|i| i.train.pick.clone());
    let picked = Memo::new(move |_| {
        st.train.with(|t| {
            t.as_ref()
                .map(|t| t.selection.picked.clone())
                .unwrap_or_default()
        })
    });
    let message = Memo::new(move |_| {
        st.train.with(|t| {
            t.as_ref()
                .map(|t| crate::text::share::capitalize(&t.selection.message))
                .unwrap_or_default()
        })
    });
    // The rows are redrawn only when their number changes; each row reads its own values, so
    // editing one box leaves the focus where it is.
    let count = Memo::new(move |_| pool.with(Vec::len));
    let rows = move || {
        (0..count.get())
            .map(|k| view! { <PoolRow pool=pool picked=picked k=k /> })
            .collect_view()
    };
    // A button that hides itself hands the focus to "Add GPU".
    let to_add = || crate::browser::dom::keep_focus(vec!["add-gpu".into()]);
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
                <Show when=move || !pick.with(Vec::is_empty)>
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
                    if pick.with(Vec::is_empty) {
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
        // A row removed while its box holds an unsent entry (back to serve mode) fires `change`
        // as it goes: the pool is gone by then, and so is the entry.
        if pool.try_with_untracked(|_| ()).is_none() {
            return;
        }
        let el = event_target::<web_sys::HtmlInputElement>(&ev);
        if let Some(g) = fitcard_estimator::units::parse_decimal(&el.value()) {
            st.edit(Edit::Free(k, g));
        }
        put_back(&el, &Shortest(gib()).to_string());
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
        crate::browser::dom::keep_focus(ids);
    };
    view! {
        <li class:picked=move || pos.get().is_some() data-gpu=k>
            <label for=id.clone()>{format!("GPU {k}")}</label>
            <input
                type="number"
                id=id
                min=Shortest(limits::FREE_GIB.0).to_string()
                max=Shortest(limits::FREE_GIB.1).to_string()
                step="0.5"
                prop:value=move || Shortest(gib()).to_string()
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
