//! fitcard web calculator entry point: fetches the catalog, then mounts the app (wasm32 only).

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    fitcard::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("fitcard-web is the browser build; run `bash scripts/serve.sh` (see README.md) or use the `fitcard` CLI.");
}
