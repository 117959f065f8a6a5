//! fitcard web calculator entry point: fetches the catalog, then mounts the app (wasm32 only).

/// Talc instead of the default dlmalloc: the same allocator contract in fewer bytes of wasm
/// (<https://github.com/SFBdragon/talc/blob/master/talc/README_WASM.md>).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

// No panic hook here (the worker has one): the page's code does not panic on any input (the
// fuzzed query strings, tests/properties.rs), and the hook's message formatting would cost the
// initial transfer 1.3 KB gzip.
#[cfg(target_arch = "wasm32")]
fn main() {
    fitcard::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("fitcard-web is the browser build; run `bash scripts/serve.sh` (see README.md) or use the `fitcard` CLI.");
}
