//! fitcard importer: the web worker that reads a Hugging Face Hub repo for the page (wasm32
//! only; see `fitcard::worker::import`).

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    fitcard::worker::import::serve();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "fitcard-import is the page's importer (a web worker); use `fitcard inspect` natively."
    );
}
