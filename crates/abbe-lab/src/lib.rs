//! The lab: `abbe lab` regenerates the tables and figures of the five papers
//! abbe implements, on today's curves, with each paper's published value
//! beside ours and a verdict on each of its claims.
//!
//! Layout: [`harness`] measures (budgeted repetitions, median and
//! quartiles, CPU time, peak heap); [`judge`] applies each claim's rule
//! (stated in the paper's `.md`) with the noise of the measurements; [`record`] is one measured point and the
//! `results/*.csv|json` files; [`papers`] loads the published values
//! (`data/papers/<paper>.csv`, the only numbers typed in by hand); [`plot`]
//! draws SVG figures; [`report`] writes `index.html`; [`experiments`](mod@experiments) has one
//! module per paper, each split into *measure* (rows) and *report* (tables,
//! figures, claims from the rows), so the page can be rebuilt from stored
//! results and an interrupted run resumes where it stopped.

pub mod devices;
pub mod experiments;
pub mod harness;
pub mod judge;
pub mod papers;
pub mod plot;
pub mod record;
pub mod report;

use harness::{Budget, Stats, Store};
use indicatif::{ProgressBar, ProgressStyle};
use record::{Key, Row};
use report::{Environment, Section, Verdict};
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How much to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// A few minutes: smaller sweeps, short time budgets.
    Quick,
    /// The papers' full ranges (N up to 10^6, files up to 100 MB,
    /// 100 000 random policies per point): hours — see the README.
    Full,
}

impl Profile {
    /// The default budget of a timed point.
    pub fn budget(self) -> Budget {
        match self {
            Profile::Quick => Budget {
                time: Duration::from_millis(150),
                min_reps: 3,
                max_reps: 200,
                warmup: true,
            },
            Profile::Full => Budget {
                time: Duration::from_millis(1500),
                min_reps: 11,
                max_reps: 2000,
                warmup: true,
            },
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Quick => "quick",
            Profile::Full => "full",
        }
    }
}

/// One point of an interleaved group (`Ctx::time_interleaved`): the row it
/// makes, its budget and the operation, whose result is discarded.
pub struct Timed<'a> {
    pub key: Key,
    pub bits: u32,
    pub budget: Budget,
    op: Box<dyn FnMut() + 'a>,
}

impl<'a> Timed<'a> {
    pub fn new<T>(key: Key, bits: u32, budget: Budget, mut op: impl FnMut() -> T + 'a) -> Self {
        Timed {
            key,
            bits,
            budget,
            op: Box::new(move || {
                std::hint::black_box(op());
            }),
        }
    }
}

/// Options of `abbe lab`.
#[derive(Clone, Debug)]
pub struct Options {
    pub profile: Profile,
    /// Experiments to run (all when empty); the report includes every
    /// experiment with stored results either way.
    pub only: Vec<String>,
    pub out: PathBuf,
    /// Pairing curves for the experiments that sweep curves (both when empty).
    pub curves: Vec<abbe::curve::CurveId>,
    pub seed: u64,
    pub force: bool,
    pub quiet: bool,
    /// A directory of extra board profiles (`*.toml`, see `devices`).
    pub devices: Option<PathBuf>,
    /// Wall time to spend on each timed point instead of the profile's
    /// (the minimum number of repetitions still applies): short for a smoke
    /// run of every experiment, long for tighter figures.
    pub point_time: Option<Duration>,
}

#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error("unknown experiment {0:?} (known: {1})")]
    UnknownExperiment(String, String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Other(String),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> LabError + '_ {
    move |source| LabError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// An experiment: a paper's tables and figures.
pub struct Experiment {
    /// `--only` value.
    pub name: &'static str,
    pub paper: &'static str,
    pub measure: fn(&mut Ctx) -> Result<(), LabError>,
    pub report: fn(&[Row], &ReportCtx) -> Section,
}

/// What a report function knows besides the rows.
pub struct ReportCtx {
    pub profile: Profile,
    pub devices: Vec<devices::Device>,
}

/// What a measuring experiment works with.
pub struct Ctx {
    pub experiment: &'static str,
    pub profile: Profile,
    pub seed: u64,
    pub curves: Vec<abbe::curve::CurveId>,
    point_time: Option<Duration>,
    store: Store,
    bar: ProgressBar,
    /// Progress as lines on stderr (when it is not a terminal, where the
    /// bar does not draw), and when the last one was printed.
    progress_lines: Option<Instant>,
    heap: bool,
    /// `results/<experiment>.journal`: every row as it is measured, one JSON
    /// line each, so a killed run loses at most the point in progress.
    journal: Option<std::fs::File>,
}

impl Ctx {
    pub fn key(
        &self,
        scheme: &str,
        curve: &str,
        operation: &str,
        x_name: &str,
        x: f64,
        params: &str,
    ) -> Key {
        Key {
            experiment: self.experiment.to_string(),
            scheme: scheme.to_string(),
            curve: curve.to_string(),
            operation: operation.to_string(),
            x_name: x_name.to_string(),
            x,
            params: params.to_string(),
        }
    }

    pub fn wants(&self, curve: abbe::curve::CurveId) -> bool {
        self.curves.is_empty() || self.curves.contains(&curve)
    }

    /// The default budget of a timed point.
    pub fn budget(&self) -> Budget {
        let budget = self.profile.budget();
        Budget {
            time: self.point_time.unwrap_or(budget.time),
            ..budget
        }
    }

    /// Sets the number of steps of the progress bar.
    pub fn plan(&self, steps: u64) {
        self.bar.set_length(steps);
    }

    pub fn tick(&mut self, msg: impl Into<String>) {
        let msg = msg.into();
        self.bar.inc(1);
        if let Some(last) = self.progress_lines {
            // A line every few seconds: a log, not a flood.
            if last.elapsed() >= Duration::from_secs(5) || self.bar.position() == 1 {
                eprintln!(
                    "abbe lab: {} {}/{} ({:.0} s) {msg}",
                    self.experiment,
                    self.bar.position(),
                    self.bar.length().unwrap_or(0),
                    self.bar.elapsed().as_secs_f64()
                );
                self.progress_lines = Some(Instant::now());
            }
        }
        self.bar.set_message(msg);
    }

    /// True (and the earlier rows taken over) when every key was measured
    /// by an earlier run with the same parameters.
    pub fn done(&mut self, keys: &[Key]) -> bool {
        self.store.have_all(keys)
    }

    pub fn heap_tracking(&self) -> bool {
        self.heap
    }

    pub fn push(&mut self, mut row: Row) {
        row.profile = Some(self.profile.name().into());
        row.cores = std::thread::available_parallelism()
            .ok()
            .and_then(|n| u32::try_from(n.get()).ok());
        self.journal(&row);
        self.store.push(row);
    }

    /// Appends `row` to the journal. A journal that cannot be written only
    /// costs the checkpoint: the results are still written at the end.
    fn journal(&mut self, row: &Row) {
        use std::io::Write as _;
        if let (Some(f), Ok(mut line)) = (self.journal.as_mut(), serde_json::to_vec(row)) {
            line.push(b'\n');
            if f.write_all(&line).is_err() {
                self.journal = None;
            }
        }
    }

    /// Adds operation counts to the row of `key` measured in this run.
    pub fn attach_ops(&mut self, key: &Key, counts: &abbe::curve::OpCounts) {
        let id = key.id();
        if let Some(r) = self
            .store
            .rows
            .iter_mut()
            .rev()
            .find(|r| r.key().id() == id)
        {
            r.ops = Some(record::ops_map(counts));
            let r = r.clone();
            self.journal(&r);
        }
    }

    /// Times `op` and records the row.
    pub fn time<T>(&mut self, key: Key, bits: u32, budget: Budget, op: impl FnMut() -> T) -> Stats {
        let s = harness::time(budget, self.heap, op);
        self.push(Row::from_key(&key, bits).with_stats(s));
        s
    }

    /// Times the operations interleaved (`harness::time_interleaved`: the
    /// points a claim compares share the machine's fast and slow periods)
    /// and records their rows in order; the progress bar advances by `ticks`
    /// as the group starts.
    pub fn time_interleaved(&mut self, what: &str, ticks: u64, ops: Vec<Timed<'_>>) -> Vec<Stats> {
        self.bar.inc(ticks.saturating_sub(1));
        if ops.is_empty() {
            self.tick(format!("{what}: measured before"));
            return Vec::new();
        }
        self.tick(format!("{what}: {} points, interleaved", ops.len()));
        let (heads, mut fns): (Vec<_>, Vec<_>) = ops
            .into_iter()
            .map(|t| ((t.key, t.bits), (t.budget, t.op)))
            .unzip();
        let mut refs: Vec<(Budget, &mut (dyn FnMut() + '_))> =
            fns.iter_mut().map(|(b, op)| (*b, &mut **op)).collect();
        let stats = harness::time_interleaved(self.heap, &mut refs);
        for ((key, bits), s) in heads.into_iter().zip(&stats) {
            self.push(Row::from_key(&key, bits).with_stats(*s));
        }
        stats
    }

    /// Times `op` and records the row, to be judged on wall time: for an
    /// operation that waits on other threads or the network, whose CPU
    /// time is not its cost.
    pub fn time_latency<T>(
        &mut self,
        key: Key,
        bits: u32,
        budget: Budget,
        op: impl FnMut() -> T,
    ) -> Stats {
        let s = harness::time(budget, self.heap, op);
        self.push(Row::from_key(&key, bits).with_stats(s).judged_on_wall());
        s
    }

    /// Times `op(setup())` (setup untimed) and records the row.
    pub fn time_with_setup<S, T>(
        &mut self,
        key: Key,
        bits: u32,
        budget: Budget,
        setup: impl FnMut() -> S,
        op: impl FnMut(S) -> T,
    ) -> Stats {
        let s = harness::time_with_setup(budget, self.heap, setup, op);
        self.push(Row::from_key(&key, bits).with_stats(s));
        s
    }

    /// Records a size in bytes.
    pub fn bytes(&mut self, key: Key, bits: u32, bytes: usize) {
        let mut r = Row::from_key(&key, bits);
        r.bytes = Some(bytes as u64);
        r.unit = "B".into();
        self.push(r);
    }

    /// Records a derived value (a count, a prediction, an energy).
    pub fn value(&mut self, key: Key, bits: u32, value: f64, unit: &str) {
        let mut r = Row::from_key(&key, bits);
        r.value = Some(value);
        r.unit = unit.into();
        self.push(r);
    }
}

/// Every experiment, in the report's order.
pub fn experiments() -> Vec<Experiment> {
    experiments::all()
}

/// Writes `bytes` to `path` through a temporary file and a rename, so a
/// reader (or an interrupted run) never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), LabError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("out"),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

fn load_rows(path: &Path) -> Result<Vec<Row>, LabError> {
    match std::fs::read(path) {
        Ok(b) => serde_json::from_slice(&b).map_err(|e| {
            LabError::Other(format!(
                "{}: not a results file of this lab ({e}); move it away or use another --out",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// The rows of a journal (see [`Ctx`]); a line cut short by a kill is
/// skipped.
fn load_journal(path: &Path) -> Vec<Row> {
    std::fs::read_to_string(path)
        .map(|t| {
            t.lines()
                .filter_map(|l| serde_json::from_str::<Row>(l).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Which profile decided each claim of `section` (made from `rows`):
/// `quick` when the quick profile's points alone give the same verdict,
/// `full` when the full profile's points changed it, none when it is
/// pending or the rows do not record their profile.
fn decided_by(
    section: &Section,
    rows: &[Row],
    report: fn(&[Row], &ReportCtx) -> Section,
    rctx: &ReportCtx,
) -> Vec<Option<Profile>> {
    let recorded = rows.iter().any(|r| r.profile.is_some());
    let from_full = |r: &Row| r.profile.as_deref() == Some(Profile::Full.name());
    let quick = if rows.iter().any(from_full) {
        let q: Vec<Row> = rows.iter().filter(|r| !from_full(r)).cloned().collect();
        // With no quick points, the quick profile decided nothing (a claim
        // judged the same on no rows is still the full profile's).
        Some(if q.is_empty() {
            Vec::new()
        } else {
            report(&q, rctx).state_claims().claims
        })
    } else {
        None
    };
    section
        .claims
        .iter()
        .map(|c| {
            if !recorded || matches!(c.verdict, Verdict::Pending | Verdict::NotJudged) {
                return None;
            }
            let same = quick.as_ref().is_none_or(|q| {
                q.iter()
                    .any(|o| o.id == c.id && o.text == c.text && o.verdict == c.verdict)
            });
            Some(if same { Profile::Quick } else { Profile::Full })
        })
        .collect()
}

/// How many of the timed points of `rows` were measured under load (other
/// processes competing for the lab's core), of how many timed points.
fn under_load(rows: &[Row]) -> (usize, usize) {
    let timed = rows.iter().filter(|r| r.median_ms.is_some());
    let (mut loaded, mut all) = (0, 0);
    for r in timed {
        all += 1;
        loaded += usize::from(r.under_load());
    }
    (loaded, all)
}

/// The result of a run.
pub struct Summary {
    pub index: PathBuf,
    pub claims: Vec<(String, String, Verdict)>,
    /// Timed points measured under load, of all timed points.
    pub under_load: (usize, usize),
    pub seconds: f64,
}

fn environment(opts: &Options, heap: bool) -> Environment {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .next()
                .map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
        })
        .and_then(|kb| kb.parse::<f64>().ok())
        .map(|kb| format!("{:.1} GiB", kb / 1024.0 / 1024.0))
        .unwrap_or_else(|| "unknown".into());
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    Environment {
        items: vec![
            ("CPU".into(), cpu),
            ("cores".into(), cores.to_string()),
            ("memory".into(), mem),
            ("load average at the end".into(), load),
            (
                "curve backends".into(),
                env!("ABBE_LAB_BACKENDS").to_string(),
            ),
            ("compiler".into(), env!("ABBE_LAB_RUSTC").to_string()),
            ("abbe".into(), env!("CARGO_PKG_VERSION").to_string()),
            ("profile".into(), opts.profile.name().to_string()),
            ("seed".into(), opts.seed.to_string()),
            ("date (UTC)".into(), utc_now()),
            ("statistics".into(), {
                let b = opts.profile.budget();
                let time = opts.point_time.unwrap_or(b.time);
                format!("every operation on one thread (abbe's parallelism follows rayon's pool, and the lab installs a one-thread pool); median of repetitions after one warm-up run, repeated for {} s and at least {} times{} unless a paper fixes the count, the points a claim compares timed interleaved (their repetitions in rounds over the same span of time, so that a slow period of the machine falls on all of them); tables, figures and verdicts show the median process CPU time, which does not count the time other processes held the core, and its quartiles are the noise the verdicts allow for (GHW11 Fig. 9's reads, which wait on a proxy and a web server, show wall time); wall-time median, quartiles and min–max, the load average and the cores other processes kept busy at each point, in results/*.csv",
                        time.as_secs_f64(), b.min_reps,
                        if opts.point_time.is_some() { " (--point-time)" } else { "" })
            }),
            (
                "peak heap".into(),
                if heap {
                    "measured by the instrumented global allocator (first run of each point)".into()
                } else {
                    "not measured (allocator not instrumented)".into()
                },
            ),
        ],
    }
}

/// `YYYY-MM-DD HH:MM` (UTC) from the system clock.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let full = abbe_proxy::access_log::utc(secs);
    format!("{} {}", &full[..10], &full[11..16])
}

/// Runs the selected experiments and writes the report.
pub fn run(opts: &Options) -> Result<Summary, LabError> {
    let started = Instant::now();
    let all = experiments();
    let names: Vec<&str> = all.iter().map(|e| e.name).collect();
    for o in &opts.only {
        if !names.contains(&o.as_str()) {
            return Err(LabError::UnknownExperiment(o.clone(), names.join(", ")));
        }
    }
    let results = opts.out.join("results");
    let plots = opts.out.join("plots");
    std::fs::create_dir_all(&results).map_err(io_err(&results))?;
    std::fs::create_dir_all(&plots).map_err(io_err(&plots))?;
    let heap = harness::heap_tracking();
    let single_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(|_| "abbe-lab".into())
        // As much stack as a main thread: measuring runs here.
        .stack_size(8 << 20)
        .build()
        .map_err(|e| LabError::Other(format!("cannot start the measuring thread: {e}")))?;
    let style = ProgressStyle::with_template(
        "{prefix:>14} [{bar:28}] {pos}/{len} {elapsed:>4} eta {eta:>4} {msg}",
    )
    .map_err(|e| LabError::Other(e.to_string()))?
    .progress_chars("=> ");
    for e in &all {
        if !opts.only.is_empty() && !opts.only.iter().any(|o| o == e.name) {
            continue;
        }
        let json = results.join(format!("{}.json", e.name));
        let journal = results.join(format!("{}.journal", e.name));
        // Rows of earlier runs, then those an interrupted run journaled
        // (later rows of one key replace earlier ones).
        let mut prior = load_rows(&json)?;
        prior.extend(load_journal(&journal));
        let bar = if opts.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(0)
                .with_style(style.clone())
                .with_prefix(e.name)
        };
        let mut ctx = Ctx {
            experiment: e.name,
            profile: opts.profile,
            seed: opts.seed,
            curves: opts.curves.clone(),
            point_time: opts.point_time,
            store: Store::new(prior, opts.force),
            bar: bar.clone(),
            progress_lines: (!opts.quiet && !std::io::stderr().is_terminal()).then(Instant::now),
            heap,
            journal: std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&journal)
                .ok(),
        };
        // One thread: the papers' implementations were single-threaded, and
        // a parallel operation's wall time on a shared machine waits for
        // the scheduler to run its other threads (up to a 4 ms tick each).
        let outcome = single_thread.install(|| (e.measure)(&mut ctx));
        // Whatever was measured is kept, even if the experiment failed
        // half-way: the next run resumes from it.
        let rows = ctx.store.finish();
        write_atomic(
            &json,
            serde_json::to_string_pretty(&rows)
                .map_err(|e| LabError::Other(e.to_string()))?
                .as_bytes(),
        )?;
        write_atomic(
            &results.join(format!("{}.csv", e.name)),
            record::to_csv(&rows).as_bytes(),
        )?;
        // Everything journaled is in the results file now.
        let _ = std::fs::remove_file(&journal);
        bar.finish_with_message("done");
        outcome?;
    }
    let rctx = ReportCtx {
        profile: opts.profile,
        devices: devices::load(opts.devices.as_deref()).map_err(LabError::Other)?,
    };
    let mut sections = Vec::new();
    let mut claims = Vec::new();
    for e in &all {
        let rows = load_rows(&results.join(format!("{}.json", e.name)))?;
        if rows.is_empty() {
            continue;
        }
        let mut section = (e.report)(&rows, &rctx).state_claims();
        section.decided_by = decided_by(&section, &rows, e.report, &rctx);
        section.under_load = under_load(&rows);
        for floor in judge::wall_floors(&rows) {
            if !opts.quiet {
                eprintln!("abbe lab: {}: wall-time floor suspected: {floor}", e.name);
            }
            section.notes.push(format!(
                "Wall-time floor suspected — these times do not follow their work (a timer or a thread wake-up waiting for the scheduler), so claims resting on them are unreliable: {floor}"
            ));
        }
        let mut svgs = Vec::new();
        for f in &section.figures {
            let svg = f
                .to_svg()
                .map_err(|m| LabError::Other(format!("figure {}: {m}", f.id)))?;
            write_atomic(&plots.join(format!("{}.svg", f.id)), svg.as_bytes())?;
            svgs.push(svg);
        }
        for c in &section.claims {
            claims.push((e.name.to_string(), c.text.clone(), c.verdict));
        }
        sections.push((section, svgs));
    }
    let env = environment(opts, heap);
    let html = report::index_html(
        "abbe lab — the papers' tables and figures, measured here",
        &env,
        &sections,
    );
    let index = opts.out.join("index.html");
    write_atomic(&index, html.as_bytes())?;
    Ok(Summary {
        index,
        claims,
        under_load: report::under_load(sections.iter().map(|(s, _)| s)),
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_is_formatted() {
        let d = utc_now();
        assert_eq!(d.len(), 16, "{d}");
        assert!(d.starts_with("20"), "{d}");
    }

    #[test]
    fn atomic_write_replaces_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(
            std::fs::read_dir(p.parent().unwrap()).unwrap().count(),
            1,
            "no temp file left"
        );
    }

    #[test]
    fn a_journal_cut_short_keeps_its_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.journal");
        let row = Row {
            scheme: "s".into(),
            bytes: Some(3),
            ..Row::default()
        };
        let mut text = serde_json::to_string(&row).unwrap();
        text.push('\n');
        text.push_str(&serde_json::to_string(&row).unwrap()[..10]);
        std::fs::write(&p, text).unwrap();
        assert_eq!(load_journal(&p), vec![row]);
        assert!(load_journal(&dir.path().join("missing")).is_empty());
    }

    /// A report whose one claim holds when some row has x ≥ 10 (only the
    /// full profile measures there).
    fn large_n_report(rows: &[Row], _: &ReportCtx) -> Section {
        let large = rows.iter().any(|r| r.x >= 10.0);
        Section {
            experiment: "ghw11-fig8",
            paper: &papers::PAPERS[0],
            intro: String::new(),
            tables: vec![],
            figures: vec![],
            claims: vec![report::Claim {
                id: "advantage-from-10",
                source: String::new(),
                text: "t".into(),
                verdict: if rows.is_empty() {
                    Verdict::Pending
                } else {
                    judge::check(large)
                },
                evidence: String::new(),
            }],
            notes: vec![],
            decided_by: vec![],
            under_load: (0, 0),
            heading: None,
        }
    }

    #[test]
    fn a_claim_is_decided_by_the_profile_whose_points_set_its_verdict() {
        let rctx = ReportCtx {
            profile: Profile::Full,
            devices: vec![],
        };
        let row = |x: f64, p: Option<Profile>| Row {
            x,
            profile: p.map(|p| p.name().into()),
            ..Row::default()
        };
        let decide = |rows: &[Row]| {
            let s = large_n_report(rows, &rctx);
            decided_by(&s, rows, large_n_report, &rctx)
        };
        // Quick points alone: quick decided it.
        assert_eq!(
            decide(&[row(1.0, Some(Profile::Quick))]),
            [Some(Profile::Quick)]
        );
        // The full profile's large point turns it: full decided it.
        let mixed = [
            row(1.0, Some(Profile::Quick)),
            row(10.0, Some(Profile::Full)),
        ];
        assert_eq!(decide(&mixed), [Some(Profile::Full)]);
        // Full points that agree with the quick ones leave it to quick.
        let agree = [
            row(1.0, Some(Profile::Quick)),
            row(2.0, Some(Profile::Full)),
        ];
        assert_eq!(decide(&agree), [Some(Profile::Quick)]);
        // Everything from a full run, where quick alone would be pending.
        assert_eq!(
            decide(&[row(10.0, Some(Profile::Full))]),
            [Some(Profile::Full)]
        );
        // A claim judged the same on no rows at all, after a fresh full
        // run: the quick profile measured nothing, so full decided it.
        fn always(_: &[Row], rctx: &ReportCtx) -> Section {
            let mut s = large_n_report(&[], rctx);
            s.claims[0].verdict = Verdict::Holds;
            s
        }
        let s = always(&[], &rctx);
        let full = [row(1.0, Some(Profile::Full))];
        assert_eq!(decided_by(&s, &full, always, &rctx), [Some(Profile::Full)]);
        // Results of an older lab do not say.
        assert_eq!(decide(&[row(1.0, None)]), [None]);
    }

    #[test]
    fn a_foreign_results_file_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.json");
        std::fs::write(&p, b"{not json").unwrap();
        assert!(matches!(load_rows(&p), Err(LabError::Other(_))));
        assert!(load_rows(&dir.path().join("missing.json"))
            .unwrap()
            .is_empty());
    }
}
