//! fitcard's whole calculator, train mode included (wasm32 only): the page built without train
//! mode loads it on demand and hands the page over to it (`fitcard::app`).

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(target_arch = "wasm32")]
fn main() {
    fitcard::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("fitcard-full is the browser build; run `bash scripts/serve.sh` (see README.md) or use the `fitcard` CLI.");
}
