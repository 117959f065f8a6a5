//! The page's state: the inputs, the estimate and the edits that change them.

use crate::model::edit::{self, Edit};
use crate::model::hub;
use crate::model::query;
use crate::worker::importer;
use fitcard_estimator::inputs::Key;
#[cfg(feature = "train")]
use fitcard_estimator::train;
#[cfg(feature = "train")]
use fitcard_estimator::train::TrainCandidate;
use fitcard_estimator::train::TrainEstimate;
use fitcard_estimator::{
    encode, estimate, from_query, rank, Candidate, Estimate, Inputs, Mode, Notice,
};
use leptos::prelude::*;

/// How long the controls stay still before the inputs count as settled: the ranking is
/// recomputed and the URL rewritten then, not on every tick of a drag.
pub const SETTLE: std::time::Duration = std::time::Duration::from_millis(150);

/// Notices kept on screen at most (oldest dropped first).
const MAX_NOTICES: usize = 8;

/// The page's state: the one input signal, the notices shown above the page, and the memos
/// derived from the inputs. Provided once by [`App`](super::App) as a context; components read it with
/// [`use_app`].
#[derive(Clone, Copy)]
pub struct AppState {
    /// The whole configuration (what the permalink holds).
    pub inputs: RwSignal<Inputs>,
    /// Parameters that were refused or adjusted, until dismissed.
    pub notices: RwSignal<Vec<Notice>>,
    /// Serve or train.
    pub mode: Memo<Mode>,
    /// The train-mode estimate (with its GPU selection); `None` in serve mode.
    pub train: Memo<Option<TrainEstimate>>,
    /// The estimate shown: serve mode's, or train mode's common part.
    pub est: Memo<Estimate>,
    /// The inputs once the controls have been still for [`SETTLE`]: the ranking and the URL
    /// follow these, so that a slider tick redraws only the estimate itself.
    pub settled: RwSignal<Inputs>,
    /// Ranked serve candidates of the current family (empty in train mode).
    pub ranked: Memo<Vec<Candidate>>,
    /// Ranked train candidates of the current family (empty in serve mode).
    #[cfg(feature = "train")]
    pub train_ranked: Memo<Vec<TrainCandidate>>,
    /// The permalink query (without `?`) of the settled inputs.
    pub query: Memo<String>,
    /// A model the link (or the search) asked for that the catalog does not hold: the page imports it from the
    /// Hub, and when that fails estimates nothing and offers the closest catalog entries.
    pub missing: RwSignal<Option<Missing>>,
    /// Where an import from the Hub stands.
    pub import: RwSignal<ImportState>,
    /// The commit the imported repo was read at.
    pub rev: StoredValue<Option<String>>,
    /// Counts imports: the views that list the catalog are rebuilt after each.
    pub generation: RwSignal<u32>,
    /// Is the whole catalog in (not only the family of the link's model)? The family list
    /// follows it.
    pub whole: RwSignal<bool>,
    /// Notified once after the frame that shows a new estimate (see [`AppState::late`]).
    pub later: Trigger,
    /// The settings only the whole calculator has (other models on the cards, images, adapters)
    /// were asked for: the page built without them hands over to it, as for train mode.
    pub more: RwSignal<bool>,
}

thread_local! {
    /// Numbers the reads started: only the last one's answer is used (a later read, or a
    /// cancel, makes an earlier one's answer stale). Plain cells, not signals: nothing is
    /// drawn from them.
    static TICKET: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// The Hub repo of the last import, offered again when it failed (none for a file).
    static RETRY: std::cell::RefCell<Option<hub::Target>> = const { std::cell::RefCell::new(None) };
}

/// Train mode's estimate of `inputs` (None in serve mode, and in the page built without train
/// mode: that page hands over to the whole one when train mode is asked for).
fn train_estimate(mode: Mode, inputs: RwSignal<Inputs>) -> Option<TrainEstimate> {
    #[cfg(feature = "train")]
    if mode == Mode::Train {
        return Some(inputs.with(train::estimate));
    }
    let _ = (mode, inputs);
    None
}

/// Train mode's ranking of the family (empty in serve mode).
#[cfg(feature = "train")]
fn train_rank(i: &Inputs) -> Vec<TrainCandidate> {
    match i.mode {
        Mode::Train => train::rank(i),
        Mode::Serve => Vec::new(),
    }
}

/// The ticket of the last read started.
pub(super) fn ticket() -> u32 {
    TICKET.with(std::cell::Cell::get)
}

/// Where an import from the Hub stands (one line of text each).
#[derive(Clone, Debug, PartialEq)]
pub enum ImportState {
    /// Nothing asked.
    Idle,
    /// Under way: what is being read.
    Busy(String),
    /// Stopped: why (the configuration is unchanged).
    Failed(String),
    /// Done: what was imported.
    Done(String),
}

/// A read in the importer, as [`AppState::finish`] awaits it.
type Read = std::pin::Pin<Box<dyn std::future::Future<Output = Result<importer::Joined, String>>>>;

/// The page state, as [`App`](super::App) provides it to every component below it.
pub fn use_app() -> AppState {
    expect_context::<AppState>()
}

/// A requested model the catalog lacks: nothing is estimated for it, and the URL keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct Missing {
    /// The id as requested (decoded).
    pub id: String,
    /// The `model=` value exactly as the link wrote it, written back to the URL.
    pub raw: String,
}

impl Missing {
    /// The requested model of `query` when the catalog does not hold it.
    pub(super) fn from_query(query: &str) -> Option<Missing> {
        let raw = query::raw_param(query, "model")?;
        let id = query::percent_decode(raw).trim().to_string();
        (!id.is_empty() && fitcard_estimator::catalog().variant(&id).is_none()).then(|| Missing {
            id,
            raw: raw.to_string(),
        })
    }
}

/// The page's first inputs from `query`, the notices its decoding gave, and the requested model
/// when the catalog lacks it: what the calculator starts from, and what the first estimate
/// drawn before it mounts is estimated from (`app::draw_early`).
pub(super) fn first_inputs(query: &str) -> (Inputs, Vec<Notice>, Option<Missing>) {
    let mut d = from_query(query);
    let missing = Missing::from_query(query);
    // A link that names no model lands on the best model for its card (the embed and train
    // mode keep their calculator).
    if query::raw_param(query, "model").is_none() && !d.inputs.embed && d.inputs.mode == Mode::Serve
    {
        d.inputs.best.on = true;
    }
    // The page says itself that the model is not available: the decoder's "using the default
    // model instead" would be wrong here.
    let notices = d
        .notices
        .into_iter()
        .filter(|n| missing.is_none() || n.key != Key::Model)
        .collect();
    let mut first = d.inputs;
    if missing.is_none() {
        hub::pin(&mut first, None);
    }
    (first, notices, missing)
}

impl AppState {
    pub(super) fn new(query: &str) -> Self {
        let (first, notices, missing) = first_inputs(query);
        let settled = RwSignal::new(first.clone());
        let inputs = RwSignal::new(first);
        let mode = Memo::new(move |_| inputs.with(|i| i.mode));
        // The estimates change with almost every input change, so they are not compared with
        // the previous one (a deep `PartialEq` of the estimate would cost the page its code
        // for nothing): a new estimate always notifies.
        // The whole catalog arriving after the first estimate (read from a part or the landing
        // catalog, which has no repos) changes what the commands name: the estimates follow it.
        let whole = RwSignal::new(fitcard_estimator::catalog::is_whole());
        let train = Memo::new_with_compare(
            move |_| {
                whole.track();
                train_estimate(mode.get(), inputs)
            },
            |a, b| !matches!((a, b), (Some(None), Some(None))),
        );
        AppState {
            inputs,
            notices: RwSignal::new(notices),
            mode,
            train,
            est: Memo::new_with_compare(
                move |_| match train.get() {
                    Some(t) => t.estimate,
                    None => {
                        whole.track();
                        inputs.with(estimate)
                    }
                },
                |_, _| true,
            ),
            settled,
            ranked: Memo::new(move |_| {
                settled.with(|i| match i.mode {
                    Mode::Serve => rank(i),
                    Mode::Train => Vec::new(),
                })
            }),
            #[cfg(feature = "train")]
            train_ranked: Memo::new(move |_| settled.with(train_rank)),
            query: Memo::new(move |_| settled.with(encode)),
            missing: RwSignal::new(missing),
            import: RwSignal::new(ImportState::Idle),
            rev: StoredValue::new(None),
            generation: RwSignal::new(0),
            whole,
            later: Trigger::new(),
            more: RwSignal::new(false),
        }
    }

    /// Read the estimate for a view off the verdict's path (the legend, the lines under the
    /// verdict, the warnings, the command, the badge): such a view follows [`AppState::later`],
    /// not the estimate, so a slider tick's frame redraws the verdict and the bar alone, and
    /// these one frame after (the page's tick budget is one frame on a slow phone: every DOM
    /// change costs the page a layout and a paint, and these would double the tick's script).
    pub fn late<T>(self, f: impl FnOnce(&Estimate) -> T) -> T {
        self.later.track();
        self.est.with_untracked(f)
    }

    /// Read the estimate for the verdict and the bar: at once while their panel is on the
    /// screen, one frame late ([`AppState::late`]) while the page is scrolled away from it
    /// (`dom::away`: on a phone the estimate sits above the controls, and a slider tick's frame
    /// then draws what is in view, the slider and the one-line verdict over the controls, and
    /// these in the frame after). Scrolled back, they are already up to date. Whether it is in
    /// view is read, not tracked (a signal and its callback cost the first load more than the
    /// frame they would save): a view follows a scroll from its next update, so the first
    /// tick after the panel leaves the screen still draws it in the key's frame.
    pub fn seen<T>(self, f: impl FnOnce(&Estimate) -> T) -> T {
        if crate::browser::dom::away() {
            self.late(f)
        } else {
            self.est.with(f)
        }
    }

    /// After every new estimate, notify [`AppState::later`] once the frame that shows it has
    /// been produced (an animation frame, then a task): several estimates in one frame notify
    /// once.
    pub(super) fn follow_later(self) {
        let pending = std::rc::Rc::new(std::cell::Cell::new(false));
        Effect::new(move |_| {
            self.est.track();
            if pending.replace(true) {
                return;
            }
            let pending = pending.clone();
            request_animation_frame(move || {
                set_timeout(
                    move || {
                        pending.set(false);
                        self.later.notify();
                    },
                    std::time::Duration::ZERO,
                );
            });
        });
    }

    /// Import `t` from the Hub; on success it joins the catalog and becomes the model shown,
    /// on failure nothing changes but the one-line message. (Called from several places: one
    /// copy of its code.)
    #[inline(never)]
    pub fn start_import(self, t: hub::Target) {
        let engine = self.inputs.with_untracked(|i| i.engine);
        RETRY.with(|r| r.replace(Some(t.clone())));
        let (mine, progress) = self.begin(format!("Importing {}…", t.repo));
        let read: Read = Box::pin(async move { importer::run(&t, engine, progress).await });
        self.finish(mine, read, |j| {
            let Some(rev) = j.rev.as_deref() else {
                // The Hub did not give the repo; its sibling release's architecture stands in.
                return format!(
                    "{}: the Hub did not send its files; estimated with the architecture of its catalog sibling release",
                    j.model
                );
            };
            let n = fitcard_estimator::catalog()
                .family(&j.family)
                .map_or(0, |f| f.variants.iter().map(|v| v.formats.len()).sum());
            format!(
                "Imported {} at {}: {n} format{}",
                j.model,
                rev.chars().take(7).collect::<String>(),
                if n == 1 { "" } else { "s" }
            )
        });
    }

    /// A format the link names and the catalog lacks for its model: its size computed by the
    /// rule in the importer joins the catalog, and it becomes the format shown (marked
    /// computed); a format with no rule is said in one line and the fallback stays.
    pub fn start_computed(self, model: String, quant: fitcard_estimator::Quant) {
        let engine = self.inputs.with_untracked(|i| i.engine);
        RETRY.with(|r| r.take());
        let (mine, _) = self.begin(format!("Computing the size of {quant} for {model}…"));
        let read: Read = Box::pin(async move { importer::computed(&model, quant, engine).await });
        self.finish(mine, read, |j| {
            format!(
                "{} {}: no published file here, its size computed from the architecture by the format's rule (marked *)",
                j.model, j.quant
            )
        });
    }

    /// Read the model in `files` (picked on the disk) in the importer, headers only, and
    /// open it; a failure is said in one line and changes nothing else.
    pub fn start_disk(self, files: Vec<web_sys::File>) {
        RETRY.with(|r| r.take());
        let (mine, progress) = self.begin("Reading the file from your disk…".into());
        let read: Read = Box::pin(async move { importer::disk(&files, progress).await });
        self.finish(mine, read, |j| {
            format!(
                "Read {} from your disk (headers only): a link to it works where the file is picked again",
                j.model.trim_start_matches("file:")
            )
        });
    }

    /// Start a read (`busy` says what it does): it takes the next ticket, so that the answer
    /// of any read still under way is dropped. Its ticket, and the status line's progress
    /// function (silent once the read is stale).
    pub(super) fn begin(self, busy: String) -> (u32, impl Fn(String) + 'static) {
        let mine = ticket().wrapping_add(1);
        TICKET.with(|t| t.set(mine));
        self.import.set(ImportState::Busy(busy));
        (mine, move |m| {
            if ticket() == mine {
                self.import.set(ImportState::Busy(m))
            }
        })
    }

    /// Read the last Hub import again (none after a file from the disk).
    pub fn retry_import(self) {
        if let Some(t) = RETRY.with(|r| r.borrow().clone()) {
            self.start_import(t);
        }
    }

    /// Is there a Hub import to try again?
    pub fn can_retry(self) -> bool {
        RETRY.with(|r| r.borrow().is_some())
    }

    /// Stop the read under way: its answer is dropped, the importer stops its requests, and
    /// the configuration stays as it was.
    pub fn cancel_import(self) {
        TICKET.with(|t| t.set(t.get().wrapping_add(1)));
        importer::cancel();
        self.import.set(ImportState::Failed(
            "Import cancelled: nothing changed".into(),
        ));
    }

    /// Run `read` (boxed: one copy of this code for every kind of read) under ticket `mine`: when it is still the last read, the model it read joins
    /// the catalog and is opened (from the best-model view too) with `said(model)` as the
    /// status line; a failure is said in one line and changes nothing else.
    pub(super) fn finish(self, mine: u32, read: Read, said: fn(&importer::Joined) -> String) {
        leptos::task::spawn_local(async move {
            let got = read.await;
            if ticket() != mine {
                return;
            }
            match got.and_then(|j| j.install().map(|()| j)) {
                Ok(j) => {
                    let said = said(&j);
                    // The model and format are set below: what the link's were replaced
                    // with no longer holds.
                    self.notices
                        .update(|v| v.retain(|n| n.key != Key::Quant && n.key != Key::Model));
                    self.rev.set_value(j.rev);
                    self.edit(Edit::Family(j.family));
                    self.edit(Edit::Candidate {
                        model: j.model,
                        quant: j.quant,
                    });
                    self.edit(Edit::ShowBest(false));
                    self.missing.set(None);
                    self.generation.update(|g| *g += 1);
                    self.import.set(ImportState::Done(said));
                }
                Err(m) => self.import.set(ImportState::Failed(m)),
            }
        });
    }

    /// A memo of one part of the inputs, `f(inputs)`: it notifies only when that part changes.
    /// (`f` is a function, not a closure: one instance of the memo per type, however many
    /// controls use it, keeps the wasm small.)
    pub fn pick<T>(self, f: fn(&Inputs) -> T) -> Memo<T>
    where
        T: PartialEq + Send + Sync + 'static,
    {
        let inputs = self.inputs;
        Memo::new(move |_| inputs.with(f))
    }

    /// Apply one user action; adjustments it caused are shown as notices.
    pub fn edit(&self, e: Edit) {
        let mut notes = Vec::new();
        let rev = self.rev.get_value();
        self.inputs.update(|i| {
            notes = edit::apply(i, e);
            hub::pin(i, rev.as_deref());
        });
        if !notes.is_empty() {
            self.notices.update(|v| {
                v.retain(|n| !notes.iter().any(|m| m.key == n.key));
                v.extend(notes);
                let extra = v.len().saturating_sub(MAX_NOTICES);
                v.drain(..extra);
            });
        }
    }
}
