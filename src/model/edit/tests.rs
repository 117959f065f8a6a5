//! Host tests of the module above.

use super::*;
use crate::model::choices::{capability_words, format_pos, has_projector, licenses, variant_pos};
use fitcard_estimator::inputs::permalink::{encode, from_query};
use fitcard_estimator::train;

#[test]
fn opening_a_model_leaves_the_best_view_and_keeps_the_cards() {
    let mut i =
        from_query("best=1&gpu=rtx-3090&cards=2&engine=vllm&ctx=4096&par=3&minctx=32768").inputs;
    assert!(i.best.on);
    let before = i.clone();
    let q = encode(&i);
    assert!(q.contains("best=1") && q.contains("minctx=32768"), "{q}");
    apply(
        &mut i,
        Edit::Open {
            model: "Qwen/Qwen3-8B".into(),
            quant: Some(Quant::BF16),
        },
    );
    assert!(!i.best.on);
    assert_eq!(i.model, "Qwen/Qwen3-8B");
    assert_eq!(i.quant, Quant::BF16);
    assert_eq!(
        (i.gpu.clone(), i.cards, i.engine, i.ctx, i.par),
        (before.gpu, 2, Engine::Vllm, 4096, 3)
    );
    let q = encode(&i);
    assert!(
        q.contains("model=Qwen/Qwen3-8B") && !q.contains("best=1"),
        "{q}"
    );
    // Not in the catalog: nothing changes.
    let was = i.clone();
    apply(
        &mut i,
        Edit::Open {
            model: "no/such".into(),
            quant: None,
        },
    );
    assert_eq!(i, was);
    // And back.
    apply(&mut i, Edit::ShowBest(true));
    assert!(encode(&i).contains("best=1"));
}

#[test]
fn best_filters_round_trip_and_refuse_unknown_families() {
    let mut i = base();
    let fam = catalog().families[0].id.clone();
    apply(&mut i, Edit::BestFamily(Some(fam.clone())));
    apply(&mut i, Edit::BestLicense(Some("Apache-2.0".into())));
    apply(&mut i, Edit::MinCtx(Some(32768)));
    apply(&mut i, Edit::Reasoning(Some(false)));
    let d = from_query(&encode(&i));
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(d.inputs.best, i.best);
    assert_eq!(i.best.license.as_deref(), Some("apache-2.0"));
    apply(&mut i, Edit::BestFamily(Some("no-such-family".into())));
    assert_eq!(i.best.family, None);
    apply(&mut i, Edit::MinCtx(Some(0)));
    assert_eq!(i.best.min_ctx, Some(limits::CTX.0));
    let l = licenses();
    assert!(!l.is_empty() && l.windows(2).all(|w| w[0] < w[1]));
}

fn base() -> Inputs {
    from_query("").inputs
}

#[test]
fn variant_and_format_orders_put_the_strongest_right() {
    for f in &catalog().families {
        let vs = variants(f);
        assert_eq!(vs.last().unwrap().capability_rank, 1, "{}", f.id);
        for v in vs {
            for e in Engine::ALL {
                let fs = formats(v, e);
                for w in fs.windows(2) {
                    assert!(w[0].id.precision_bits() <= w[1].id.precision_bits());
                }
                assert!(fs.iter().all(|x| x.container == e.container()));
            }
        }
    }
}

#[test]
fn positions_round_trip_through_edits() {
    let mut i = base();
    let (f, _) = family_of(&i.model);
    for (pos, v) in variants(f).iter().enumerate() {
        apply(&mut i, Edit::Variant(pos));
        assert_eq!(i.model, v.id);
        assert_eq!(variant_pos(&i.model), pos);
        let fs = formats(v, i.engine);
        for (q, fm) in fs.iter().enumerate() {
            apply(&mut i, Edit::Quant(q));
            assert_eq!(i.quant, fm.id);
            assert_eq!(format_pos(v, i.engine, i.quant), q);
        }
    }
    // Out-of-range positions clamp to the strongest / most precise.
    apply(&mut i, Edit::Variant(99));
    assert_eq!(variant_pos(&i.model), variants(f).len() - 1);
}

#[test]
fn family_change_keeps_every_setting_that_applies() {
    let cat = catalog();
    for f in &cat.families {
        let mut i = base();
        apply(&mut i, Edit::Ctx(4096));
        apply(&mut i, Edit::Par(3));
        apply(&mut i, Edit::Cards(2));
        apply(&mut i, Edit::Engine(Engine::Vllm));
        apply(&mut i, Edit::Util(0.8));
        let before = i.clone();
        let notes = apply(&mut i, Edit::Family(f.id.clone()));
        let (now, _) = family_of(&i.model);
        assert_eq!(now.id, f.id);
        // A family without safetensors files moves to an engine that loads its GGUFs,
        // and says so; every other setting stays.
        let vllm = f
            .variants
            .iter()
            .any(|v| !formats(v, Engine::Vllm).is_empty());
        let engine = if vllm {
            Engine::Vllm
        } else {
            assert!(
                notes.iter().any(|n| n.key == Key::Engine),
                "family {}",
                f.id
            );
            Engine::LlamaCpp
        };
        assert_eq!(
            (
                i.ctx.min(4096),
                i.par,
                i.cards,
                i.engine,
                i.util,
                &i.gpu,
                i.kv
            ),
            // A model shorter than 4096 tokens (all-MiniLM's 512) clamps the context to its own.
            (
                4096.min(family_of(&i.model).1.arch.max_ctx),
                3,
                2,
                engine,
                0.8,
                &before.gpu,
                before.kv
            ),
            "family {}",
            f.id
        );
        // The format is one the engine can load for the new model.
        let (_, v) = family_of(&i.model);
        assert!(formats(v, i.engine).iter().any(|x| x.id == i.quant));
    }
}

#[test]
fn the_vision_projector_switch_applies_to_llama_cpp_repos_that_have_one() {
    // The default model (Gemma 3 12B, Q4_K_M GGUF on llama.cpp) has a projector.
    let mut i = base();
    assert!(has_projector(&i));
    let with = estimate(&i);
    assert!(with.mmproj_bytes.is_some());
    apply(&mut i, Edit::Mmproj(false));
    assert!(
        !i.mmproj && has_projector(&i),
        "the switch stays to turn it back on"
    );
    let without = estimate(&i);
    assert_eq!(without.mmproj_bytes, None);
    assert!(
        without.command.contains(" --no-mmproj"),
        "{}",
        without.command
    );
    assert!(fitcard_estimator::encode(&i).contains("mmproj=0"));
    assert!(without.total_device_bytes < with.total_device_bytes);
    apply(&mut i, Edit::Mmproj(true));
    assert!(!fitcard_estimator::encode(&i).contains("mmproj="));
    // Not on an engine that runs text only, nor on a model without a projector.
    apply(&mut i, Edit::Engine(Engine::Ollama));
    assert!(!has_projector(&i));
    let q = from_query("model=Qwen/Qwen3-8B&quant=Q4_K_M").inputs;
    assert!(!has_projector(&q));
}

#[test]
fn a_measured_global_layer_count_applies_and_is_carried_in_the_link() {
    let mut i = base();
    let before = estimate(&i).total_device_bytes;
    apply(&mut i, Edit::Gl(Some(12.0)));
    assert_eq!(i.gl, Some(12.0));
    assert!(fitcard_estimator::encode(&i).contains("gl=12"));
    assert!(
        estimate(&i).total_device_bytes > before,
        "12 global layers, not 8"
    );
    // More than the model's KV layers: refused by the permalink's own rule.
    let n = apply(&mut i, Edit::Gl(Some(1000.0)));
    assert!(n.iter().any(|n| n.key == Key::Gl) && i.gl.is_none());
    apply(&mut i, Edit::Gl(Some(f64::NAN)));
    assert_eq!(i.gl, None);
    apply(&mut i, Edit::Gl(Some(12.0)));
    apply(&mut i, Edit::Gl(None));
    assert!(!fitcard_estimator::encode(&i).contains("gl="));
}

#[test]
fn capability_reads_one_way() {
    // (rank, family size, words)
    let rows = [
        (1, 4, "most capable of 4"),
        (2, 4, "2nd most capable of 4"),
        (3, 4, "3rd most capable of 4"),
        (4, 4, "least capable of 4"),
        (1, 1, "the only size in its family"),
        (11, 20, "11th most capable of 20"),
        (21, 30, "21st most capable of 30"),
    ];
    for (r, n, want) in rows {
        assert_eq!(capability_words(r, n), want, "rank {r} of {n}");
    }
}

#[test]
fn unknown_family_or_gpu_changes_nothing() {
    let mut i = base();
    let before = i.clone();
    assert!(apply(&mut i, Edit::Family("no-such".into())).is_empty());
    assert!(apply(&mut i, Edit::Gpu(Some("no-such".into()))).is_empty());
    assert_eq!(i, before);
}

#[test]
fn custom_vram_starts_at_the_current_card_and_is_checked() {
    let mut i = base();
    let cap = fitcard_estimator::serve::card_capacity(&i).gib();
    apply(&mut i, Edit::Gpu(None));
    match i.gpu {
        GpuChoice::VramGib(g) => assert!((g - cap).abs() <= 0.125),
        ref other => panic!("{other:?}"),
    }
    apply(&mut i, Edit::Vram(48.0));
    assert_eq!(i.gpu, GpuChoice::VramGib(48.0));
    let n = apply(&mut i, Edit::Vram(-1.0));
    assert_eq!(n[0].key, Key::Vram);
    assert_eq!(i.gpu, GpuChoice::VramGib(48.0));
}

#[test]
fn engine_change_moves_quant_and_kv_to_what_it_supports() {
    let mut i = base();
    apply(&mut i, Edit::Kv("q8_0".parse().unwrap()));
    apply(&mut i, Edit::Engine(Engine::Vllm));
    assert!(Engine::Vllm.kv_choices().contains(&i.kv));
    // The default model has safetensors formats, so the format moves to one of them.
    let (_, v) = family_of(&i.model);
    let vllm = formats(v, Engine::Vllm);
    assert!(!vllm.is_empty(), "{} has no vLLM format", v.id);
    assert!(vllm.iter().any(|f| f.id == i.quant), "{}", i.quant);
}

#[test]
fn candidate_applies_model_and_format() {
    let mut i = base();
    let c = fitcard_estimator::rank(&i);
    let last = c.last().expect("candidates");
    apply(
        &mut i,
        Edit::Candidate {
            model: last.model.clone(),
            quant: last.quant,
        },
    );
    assert_eq!(
        (i.model.as_str(), i.quant),
        (last.model.as_str(), last.quant)
    );
}

#[test]
fn context_beyond_the_new_model_is_lowered_with_a_notice() {
    let cat = catalog();
    let (v, big) = cat
        .families
        .iter()
        .flat_map(|f| f.variants.iter())
        .map(|v| (v, v.arch.max_ctx))
        .min_by_key(|x| x.1)
        .map(|(v, m)| (v, m + 1))
        .expect("the catalog has variants");
    let mut i = base();
    i.ctx = big;
    let n = apply(
        &mut i,
        Edit::Candidate {
            model: v.id.clone(),
            quant: v.formats[0].id,
        },
    );
    assert_eq!(i.ctx, v.arch.longest_ctx(i.engine));
    assert!(n.iter().any(|n| n.key == Key::Ctx));
}

/// One context limit: a link at 131,072 tokens on Qwen3-8B (40,960 native, 131,072 with
/// YaRN) keeps its context on llama.cpp, where the checks pass and the command enables
/// YaRN, and is lowered to the native maximum on Ollama, which cannot switch YaRN on.
#[test]
fn a_yarn_context_is_kept_where_the_engine_can_run_it() {
    for (engine, want) in [(Engine::LlamaCpp, 131_072), (Engine::Ollama, 40_960)] {
        let mut i = base();
        i.engine = engine;
        i.ctx = 131_072;
        apply(
            &mut i,
            Edit::Candidate {
                model: "Qwen/Qwen3-8B".into(),
                quant: Quant::Q4KM,
            },
        );
        assert_eq!(i.ctx, want, "{engine}");
    }
}

#[test]
fn train_edits_set_the_train_inputs() {
    let mut i = base();
    // (edit, check)
    apply(&mut i, Edit::Mode(Mode::Train));
    apply(&mut i, Edit::Method(Method::Lora));
    apply(&mut i, Edit::Bsz(8));
    apply(&mut i, Edit::Seq(4096));
    apply(&mut i, Edit::Rank(64));
    apply(&mut i, Edit::Optim(Optim::Sgd));
    apply(&mut i, Edit::Trainer(Trainer::Llamafactory));
    assert_eq!(i.train.trainer, Trainer::Llamafactory);
    assert!(fitcard_estimator::encode(&i).contains("trainer=llamafactory"));
    apply(&mut i, Edit::Gc(GradCkpt::None));
    let t = &i.train;
    assert_eq!(i.mode, Mode::Train);
    assert_eq!(
        (t.method, t.bsz, t.seq, t.rank),
        (Method::Lora, 8, 4096, 64)
    );
    assert_eq!((t.optim, t.gc), (Optim::Sgd, GradCkpt::None));
    // Out-of-range values clamp to the permalink's limits.
    apply(&mut i, Edit::Bsz(0));
    assert_eq!(i.train.bsz, limits::BSZ.0);
}

#[test]
fn target_modules_toggle_but_one_always_stays() {
    let mut i = base();
    for &m in &TargetModule::ALL[1..] {
        assert!(apply(&mut i, Edit::Target(m, false)).is_empty());
    }
    assert_eq!(i.train.targets.to_string(), "q");
    let n = apply(&mut i, Edit::Target(TargetModule::Q, false));
    assert_eq!(n[0].key, Key::Targets);
    assert_eq!(i.train.targets.to_string(), "q");
    apply(&mut i, Edit::Target(TargetModule::Down, true));
    assert_eq!(i.train.targets.to_string(), "q,down");
}

#[test]
fn the_gpu_pool_editor_materialises_then_edits_the_list() {
    let mut i = base();
    apply(&mut i, Edit::Cards(2));
    let cap = pool_gib(&i)[0];
    assert_eq!(pool_gib(&i), vec![cap, cap], "cards × the chosen card");
    assert!(i.train.free.is_empty());
    apply(&mut i, Edit::Free(1, 10.5));
    assert_eq!(i.train.free, vec![cap, 10.5]);
    apply(&mut i, Edit::AddGpu);
    assert_eq!(i.train.free, vec![cap, 10.5, 10.5]);
    i.train.pick = vec![2];
    apply(&mut i, Edit::RemoveGpu(0));
    assert_eq!(i.train.free, vec![10.5, 10.5]);
    assert!(
        i.train.pick.is_empty(),
        "positions changed: back to automatic"
    );
    assert_eq!(apply(&mut i, Edit::Free(0, -3.0))[0].key, Key::Free);
    apply(&mut i, Edit::RemoveGpu(0));
    apply(&mut i, Edit::RemoveGpu(0));
    assert_eq!(i.train.free, vec![10.5], "one GPU always stays");
    apply(&mut i, Edit::ResetGpus);
    assert!(i.train.free.is_empty());
    assert_eq!(pool_gib(&i), vec![cap, cap]);
}

#[test]
fn train_candidate_sets_model_and_method() {
    let mut i = base();
    apply(&mut i, Edit::Mode(Mode::Train));
    let c = train::rank(&i);
    let last = c.last().expect("candidates");
    let m = last.method;
    apply(
        &mut i,
        Edit::TrainCandidate {
            model: last.model.clone(),
            method: m,
        },
    );
    assert_eq!(i.model, last.model);
    assert_eq!(i.train.method, m);
}

#[test]
fn the_experts_field_sets_and_clears_ncmoe() {
    let mut i = from_query("model=Qwen/Qwen3-30B-A3B&quant=Q4_K_M&engine=llama.cpp").inputs;
    apply(&mut i, Edit::CpuMoe(20));
    assert!(encode(&i).contains("&ncmoe=20"), "{}", encode(&i));
    // More than the model's layers: every layer (the estimate moves all 48 layers' experts).
    apply(&mut i, Edit::CpuMoe(500));
    let e = fitcard_estimator::estimate(&i);
    assert_eq!(e.offload.map(|o| o.expert_layers), Some(48));
    apply(&mut i, Edit::CpuMoe(0));
    assert_eq!(i.ncmoe, None);
    assert!(!encode(&i).contains("ncmoe"));
}

#[cfg(feature = "spec")]
#[test]
fn the_speculative_field_sets_a_method_and_clears_what_it_set() {
    use fitcard_estimator::inputs::Spec;
    let q = "model=Qwen/Qwen3.6-27B&quant=Q4_K_M&engine=llama.cpp&gpu=rtx-4090&ctx=8192";
    let mut i = from_query(q).inputs;
    apply(&mut i, Edit::Spec(Some(Spec::Mtp)));
    let link = encode(&i);
    assert!(link.contains("rsseq=3&spec=mtp&ndraft=3"), "{link}");
    apply(&mut i, Edit::Spec(Some(Spec::Ngram)));
    let link = encode(&i);
    assert!(
        link.contains("spec=ngram&ndraft=64") && !link.contains("rsseq"),
        "{link}"
    );
    apply(&mut i, Edit::Spec(None));
    assert_eq!((i.spec, i.ndraft, i.rsseq), (None, None, 0));
    // A draft model is left when another method is chosen.
    let mut d = from_query(&format!("{q}&draft=Qwen/Qwen3.5-0.8B")).inputs;
    apply(&mut d, Edit::Spec(Some(Spec::Ngram)));
    assert!(d.draft.is_none());
}

#[cfg(feature = "extras")]
#[test]
fn the_other_models_field_sets_clears_and_says_what_it_left_out() {
    let mut i = from_query("model=Qwen/Qwen3-8B&quant=Q4_K_M&gpu=rtx-4090").inputs;
    let notes = apply(
        &mut i,
        Edit::With("Qwen/Qwen3-Embedding-0.6B:Q8_0:8192:4, nope/x".into()),
    );
    assert!(
        encode(&i).contains("&with=Qwen/Qwen3-Embedding-0.6B:Q8_0:8192:4"),
        "{}",
        encode(&i)
    );
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0]
        .message
        .contains("\"nope/x\" is not in the catalog"));
    let e = fitcard_estimator::estimate(&i);
    assert!(e.terms.iter().any(|t| t.name.id() == "with_models"));
    // An empty box clears the set.
    assert!(apply(&mut i, Edit::With(String::new())).is_empty());
    assert!(i.with.is_empty() && !encode(&i).contains("with="));
}
