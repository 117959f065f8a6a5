//! The Unsloth command for a train-mode estimate: `CUDA_VISIBLE_DEVICES` for the picked GPUs and
//! a short Python snippet with the knobs the estimate depends on (Unsloth Studio's "Parameter Flow":
//! batch_size, max_seq_length, lora_r, target_modules, gradient_checkpointing, optim).

use super::select;
use crate::inputs::{GradCkpt, Method, TrainInputs};
use std::fmt::Write;

fn gc_py(g: GradCkpt) -> &'static str {
    match g {
        GradCkpt::None => "False",
        GradCkpt::True => "True",
        GradCkpt::Unsloth => "\"unsloth\"",
    }
}

/// Shell line + Python snippet.
pub fn command(model: &str, t: &TrainInputs, picked: &[u32], device_map: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "CUDA_VISIBLE_DEVICES={} python train.py",
        select::list(picked)
    );
    s.push_str("# train.py\nfrom unsloth import FastLanguageModel\n");
    let full = t.method == Method::Full;
    let _ = write!(
        s,
        "model, tokenizer = FastLanguageModel.from_pretrained(\"{model}\", max_seq_length={}, load_in_4bit={}",
        t.seq,
        if t.method == Method::Qlora { "True" } else { "False" }
    );
    if full {
        let _ = write!(
            s,
            ", full_finetuning=True, use_gradient_checkpointing={}",
            gc_py(t.gc)
        );
    }
    let _ = writeln!(s, ", device_map=\"{device_map}\")");
    if !full {
        let targets: Vec<String> = t
            .targets
            .iter()
            .map(|m| format!("\"{}\"", m.proj()))
            .collect();
        let _ = writeln!(
            s,
            "model = FastLanguageModel.get_peft_model(model, r={}, target_modules=[{}], use_gradient_checkpointing={})",
            t.rank,
            targets.join(", "),
            gc_py(t.gc)
        );
    }
    let _ = write!(
        s,
        "# trainer args: per_device_train_batch_size={}, optim=\"{}\"",
        t.bsz, t.optim
    );
    s
}
