//! Ready-to-run engine commands. The concurrency flag is always written, even at its default
//! (a flag written out is visible to the next reader; one left to its default is found
//! only after it bites).

use crate::catalog::Format;
use crate::engine::Engine;
use crate::estimate::Layout;
use crate::inputs::Inputs;

/// The command line that runs `format` as configured by `i`, with the cards in `layout` (the
/// layout that starts: see [`crate::estimate::tensor_parallel`]).
pub fn command(i: &Inputs, format: &Format, layout: Layout) -> String {
    let ctx = i.ctx as u64;
    let par = i.par as u64;
    let kv = i.kv.id();
    match i.engine {
        Engine::LlamaCpp => {
            let mut s = format!(
                "llama-server -hf {}:{} -ngl 999 -c {} -np {}",
                format.repo,
                format.id,
                ctx * par,
                par
            );
            if i.kvu {
                s.push_str(" -kvu");
            }
            if i.kv.is_quantized() || kv != "f16" {
                s.push_str(&format!(" -fa on -ctk {kv} -ctv {kv}"));
            }
            if i.ubatch != 512 {
                s.push_str(&format!(" -ub {}", i.ubatch));
            }
            if i.swa_full {
                s.push_str(" --swa-full");
            }
            if i.cards > 1 {
                let split = if layout == Layout::Tensor { "row" } else { "layer" };
                let ts = vec!["1"; i.cards as usize].join(",");
                s.push_str(&format!(" -sm {split} -ts {ts}"));
            }
            s
        }
        Engine::Ollama => {
            let mut s = format!("OLLAMA_NUM_PARALLEL={par} OLLAMA_CONTEXT_LENGTH={ctx}");
            if kv != "f16" {
                s.push_str(&format!(" OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE={kv}"));
            }
            s.push_str(&format!(" ollama serve\nollama run hf.co/{}:{}", format.repo, format.id));
            s
        }
        Engine::Vllm => {
            // Pipeline parallelism when tensor parallelism cannot start on these cards.
            let parallel = if layout == Layout::Layer {
                format!("--pipeline-parallel-size {}", i.cards)
            } else {
                format!("--tensor-parallel-size {}", i.cards)
            };
            let mut s = format!(
                "vllm serve {} --max-model-len {} --max-num-seqs {} {parallel} --gpu-memory-utilization {}",
                format.repo, ctx, par, i.util
            );
            if kv == "fp8" {
                s.push_str(" --kv-cache-dtype fp8");
            }
            s
        }
        Engine::Transformers => format!(
            "python -c \"from transformers import pipeline; p = pipeline('text-generation', model='{}', torch_dtype='auto', device_map='auto'); print(p(['Hello'] * {par}, max_new_tokens={ctx}, batch_size={par}))\"",
            format.repo
        ),
    }
}
