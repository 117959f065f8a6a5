//! Calibration with the visitor's own readings, fitted in the importer.

use crate::app::state::use_app;
use crate::components::fields::Disclosure;
use crate::model::edit::Edit;
use crate::worker::importer;
use leptos::prelude::*;

/// Calibration with the visitor's own readings (built only while open): `context:GiB` lines
/// fitted by the estimator, the result in lines, a button that applies the measured global-layer
/// count (`gl=`), and the measuring loop for this engine and model.
#[component]
pub fn CalibratePanel() -> impl IntoView {
    let st = use_app();
    view! {
        <Disclosure
            class="calibrate"
            summary="Calibrate with your own measurements"
            hidden=Signal::derive(move || st.mode.get() == fitcard_estimator::Mode::Train)
        >
            <Calibrate />
        </Disclosure>
    }
}

/// The calibration panel's content. The fit is computed in the importer (its code stays out of
/// the calculator's first transfer): each edit of the readings or of the configuration asks
/// it again; answers come back in the order asked.
#[component]
fn Calibrate() -> impl IntoView {
    let st = use_app();
    let text = RwSignal::new(String::new());
    let fit = RwSignal::new(String::new());
    let gl = RwSignal::new(None::<f64>);
    let how = RwSignal::new(String::new());
    Effect::new(move |_| {
        let (q, t) = (st.query.get(), text.get());
        leptos::task::spawn_local(async move {
            match importer::calibrate(&q, &t).await {
                Ok((f, g, h)) => {
                    fit.set(f);
                    gl.set(g);
                    how.set(h);
                }
                Err(m) => {
                    fit.set(m);
                    gl.set(None);
                }
            }
        });
    });
    view! {
        <label for="cal-points">
            "Readings at concurrency 1, one context:GiB a line (as fitcard measure takes them)"
        </label>
        <textarea
            id="cal-points"
            rows=5
            placeholder="8192:10.75"
            prop:value=move || text.get()
            on:input=move |ev| text.set(event_target_value(&ev))
        ></textarea>
        <pre class="command cal-lines">{move || fit.get()}</pre>
        <button
            type="button"
            id="cal-apply"
            hidden=move || gl.get().is_none()
            on:click=move |_| st.edit(Edit::Gl(gl.get_untracked()))
        >
            "Apply the measured global layers (gl=)"
        </button>
        <p>"How to measure:"</p>
        <pre class="command" id="cal-how"><code>{move || how.get()}</code></pre>
    }
}
