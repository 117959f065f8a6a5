//! The command panel: the command that starts this configuration, and the same plan on every
//! engine that loads the file.

use super::copy::CopyButton;
use crate::app::state::use_app;
use crate::components::fields::Disclosure;
use fitcard_estimator::Engine;
use leptos::prelude::*;

/// The command that starts this configuration, with a copy button; and the same plan on every
/// engine that loads this file, side by side, each with the memory it was planned for (built
/// only while it is open).
#[component]
pub fn CommandPanel() -> impl IntoView {
    let st = use_app();
    // One frame after the verdict (`AppState::late`).
    let cmd = Signal::derive(move || st.late(|e| e.command.clone()));
    let others = Signal::derive(move || {
        st.late(|e| {
            format!(
                "This plan on every engine that loads this file ({})",
                e.commands.len()
            )
        })
    });
    view! {
        <pre class="command" id="command"><code>{move || cmd.get()}</code></pre>
        <CopyButton id="copy-command" label="Copy command" text=cmd />
        <Disclosure
            class="engines"
            summary=others
            hidden=Signal::derive(move || st.late(|e| e.commands.len() < 2))
        >
            <ul class="engine-commands">
                <EngineCommands />
            </ul>
        </Disclosure>
    }
}

/// Every engine's command for the plan, with the bytes on its fullest card and whether it fits.
#[component]
fn EngineCommands() -> impl IntoView {
    let st = use_app();
    move || {
        st.late(|e| {
            e.commands
                .iter()
                .map(|c| {
                    let label = c.engine.parse::<Engine>().map_or(c.engine, Engine::label);
                    let (chip, verdict) = if c.fits {
                        ("chip v-fits", "fits")
                    } else {
                        ("chip v-nofit", "does not fit")
                    };
                    view! {
                        <li data-engine=c.engine>
                            <strong>{label}</strong>
                            " "
                            <span class=chip>{verdict}</span>
                            " "
                            <span class="num muted">
                                {format!("{} on the fullest card", c.device_bytes)}
                            </span>
                            <pre class="command"><code>{c.command.clone()}</code></pre>
                            {(!c.differs.is_empty())
                                .then(|| view! { <p class="hint">{c.differs.join(" · ")}</p> })}
                        </li>
                    }
                })
                .collect_view()
        })
    }
}
