//! `abbe trace`: find a traitor whose key is in a pirate decoder, given only
//! as a command that reads a ciphertext on stdin and writes the plaintext.

use crate::dispatch::check_same_scheme;
use crate::keyfile::{open_public, read_object};
use crate::{CliError, Result};
use abbe::bcast::trace::{Probes, TraceOptions, TraceProgress, TraceVerdict, MAX_PROBE_BYTES};
use abbe::facade;
use abbe::wire::ObjectKind;
use indicatif::{ProgressBar, ProgressStyle};
use rand_core::OsRng;
use std::cell::{Cell, RefCell};
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// The setup's master key, for schemes that trace privately (a publicly
    /// traceable scheme traces with the public key alone).
    #[arg(long)]
    master: Option<PathBuf>,
    /// The setup's public key.
    #[arg(long)]
    public: PathBuf,
    /// The pirate decoder: a shell command (run by `sh -c` once per query,
    /// in an empty private directory with only PATH in its environment)
    /// that reads an abbe ciphertext on stdin and writes its plaintext on
    /// stdout; anything else it writes, or a failure, counts as not
    /// decrypting. It must not be able to read the master key or this
    /// process's memory: run it as another user (--decoder-user) or in a
    /// sandbox of your own.
    #[arg(long, value_name = "COMMAND")]
    decoder: String,
    /// Run the decoder as this user (a name or uid; abbe must run as root
    /// to switch), so that it cannot read the keys or the tracer's memory.
    #[arg(long, value_name = "USER")]
    decoder_user: Option<String>,
    /// The recipient set the decoder decrypts for (schemes with recipient
    /// sets; default: every user).
    #[arg(long)]
    to: Option<String>,
    /// Bound on the probability of accusing an innocent user.
    #[arg(long, default_value_t = 1e-6)]
    error: f64,
    /// Stop after this many decoder queries.
    #[arg(long, default_value_t = 100_000)]
    max_queries: u64,
    /// A decoder shown to decrypt normal ciphertexts less often than this
    /// is reported as not decrypting (showing it takes about 30/ε queries).
    #[arg(long, value_name = "ε", default_value_t = 0.01)]
    min_success: f64,
    /// Seconds one query may take (1 to 604800); a decoder still running
    /// then is killed with every process it started, and the query counts
    /// as not decrypted.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    query_timeout: u64,
    /// Probes carry the content of these files (one drawn at random per
    /// query, each at most 16 MiB) instead of random bytes of varied length
    /// (64 B to 1 MiB): for a decoder that inspects what it decrypts. Use
    /// content the decoder cannot already have.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    probe_like: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let probes = if args.probe_like.is_empty() {
        Probes::default()
    } else {
        Probes::Like(
            args.probe_like
                .iter()
                .map(|p| read_probe(p))
                .collect::<Result<_>>()?,
        )
    };
    let options = TraceOptions {
        error: args.error,
        max_queries: args.max_queries,
        min_success: args.min_success,
        probes,
        ..TraceOptions::default()
    };
    options.check().map_err(|why| {
        CliError::Other(format!(
            "{why} (--error, --max-queries, --min-success, --probe-like)"
        ))
    })?;
    let (ppre, src) = open_public(&args.public)?;
    let mk = match &args.master {
        Some(path) => {
            let (pre, mk) = read_object(path, &[ObjectKind::MasterKey])?;
            check_same_scheme(&ppre, &pre, "public key", "master key")?;
            Some(mk)
        }
        None => None,
    };
    let timeout = Duration::from_secs(args.query_timeout.max(1));
    // An output longer than every probe is not a decryption.
    let max_output = options.probes.max_len() as u64;
    let sandbox = Sandbox::new(args.decoder_user.as_deref())?;
    if sandbox.user.is_none() {
        eprintln!(
            "abbe: warning: the decoder runs as your user: a hostile one could read the master key \
             or this process's memory and frame anyone; run it as another user (--decoder-user) \
             or in a sandbox"
        );
    }
    // On a terminal a bar; otherwise (a log, CI) a line every 10 s, from
    // the decoder's runs themselves, so a long trace or a decoder that
    // never answers is never silent. The time left on the bar is an upper
    // bound: the rest of the query budget at the rate so far.
    let pb = ProgressBar::new(args.max_queries);
    if let Ok(style) = ProgressStyle::with_template(
        "tracing: {pos}/{len} queries ({elapsed}, at most {eta} more) {msg}",
    ) {
        pb.set_style(style);
    }
    let lines = !std::io::IsTerminal::is_terminal(&std::io::stderr());
    let started = Instant::now();
    let (runs, last_line) = (Cell::new(0u64), Cell::new(started));
    let doing = RefCell::new(String::from("first queries"));
    let mut decoder = |ct: &[u8]| {
        runs.set(runs.get() + 1);
        if lines && last_line.get().elapsed() >= Duration::from_secs(10) {
            last_line.set(Instant::now());
            eprintln!(
                "abbe: tracing: {} of at most {} queries ({:.0} s), {}",
                runs.get(),
                args.max_queries,
                started.elapsed().as_secs_f64(),
                doing.borrow()
            );
        }
        run_decoder(&args.decoder, ct, timeout, max_output, &sandbox)
    };
    let mut progress = |p: &TraceProgress| {
        *doing.borrow_mut() = if p.line > 0 {
            format!(
                "copy {}: users {}–{}",
                p.line + 1,
                p.interval.0,
                p.interval.1
            )
        } else {
            format!("users {}–{}", p.interval.0, p.interval.1)
        };
        pb.set_position(p.queries);
        pb.set_message(doing.borrow().clone());
    };
    let mut tracing = facade::Tracing {
        options: &options,
        decoder: &mut decoder,
        progress: &mut progress,
        rng: &mut OsRng,
    };
    let report = facade::trace(
        src,
        mk.as_deref().map(|m| &m[..]),
        args.to.as_deref(),
        &mut tracing,
    );
    pb.finish_and_clear();
    let report = report?;
    let mut out = String::new();
    let verdict = match report.verdict {
        TraceVerdict::Accused(u) => format!("accused: user {u}"),
        TraceVerdict::DoesNotDecrypt => "accused: nobody (the decoder does not decrypt)".into(),
        TraceVerdict::NoAccusation => {
            "accused: nobody (every drop lies where this risky scheme's hidden positions cannot separate users)".into()
        }
        TraceVerdict::BudgetExhausted => {
            "accused: nobody (no drop established within --max-queries)".into()
        }
    };
    out.push_str(&format!(
        "{verdict}\nqueries: {} in {:.1} s; N = {}; false accusation probability ≤ {:e}\n",
        report.queries,
        started.elapsed().as_secs_f64(),
        report.users,
        report.error
    ));
    if let Some(r) = report.accusation() {
        out.push_str(&format!(
            "evidence: {} queries at each of positions {} and {} (line {}; they differ only for user {}), \
             shuffled, decrypted {} and {} times; p = {:.1e} ≤ {:.1e} (round {} of this step)\n",
            r.queries_each,
            r.index,
            r.index + 1,
            r.line + 1,
            r.user,
            r.decrypted_low,
            r.decrypted_high,
            r.p_value,
            r.threshold,
            r.rounds
        ));
    }
    out.push_str("accusation rounds: line\tposition\tuser\trounds\tqueries each\tdecrypted at position\tat position+1\tp\tthreshold\n");
    for r in &report.rounds {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.1e}\t{:.1e}\n",
            r.line + 1,
            r.index,
            r.user,
            r.rounds,
            r.queries_each,
            r.decrypted_low,
            r.decrypted_high,
            r.p_value,
            r.threshold
        ));
    }
    out.push_str("steering estimates: line\tposition\tqueries\tdecrypted\tp low\tp high\n");
    for e in &report.evidence {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{:.3}\t{:.3}\n",
            e.line + 1,
            e.index,
            e.queries,
            e.successes,
            e.low,
            e.high
        ));
    }
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| CliError::Other(format!("writing the report: {e}")))?;
    match report.verdict {
        TraceVerdict::Accused(_) => Ok(()),
        _ => Err(CliError::Other("no user accused".into())),
    }
}

/// Pipe threads of earlier queries still blocked on a process a decoder
/// left behind (see [`run_decoder`]).
static STUCK_PIPES: AtomicUsize = AtomicUsize::new(0);

/// Most such threads before the trace stops: a decoder that leaves a
/// process holding its pipes on every query would otherwise cost a thread
/// (and a copy of the ciphertext) per query.
const MAX_STUCK_PIPES: usize = 64;

/// Runs `f` on a thread counted in [`STUCK_PIPES`] until it ends.
fn pipe_thread(f: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    STUCK_PIPES.fetch_add(1, Ordering::SeqCst);
    struct Done;
    impl Drop for Done {
        fn drop(&mut self) {
            STUCK_PIPES.fetch_sub(1, Ordering::SeqCst);
        }
    }
    let done = Done;
    std::thread::Builder::new()
        .name("decoder-pipe".into())
        .spawn(move || {
            let _done = done;
            f()
        })
        .map(drop)
}

/// Where the decoder runs: an empty private directory (its working
/// directory and HOME), PATH as the tracer's, and the user it runs as.
struct Sandbox {
    dir: tempfile::TempDir,
    path: std::ffi::OsString,
    user: Option<(u32, u32)>,
}

impl Sandbox {
    fn new(user: Option<&str>) -> Result<Sandbox> {
        let dir = tempfile::Builder::new()
            .prefix("abbe-trace-")
            .tempdir()
            .map_err(|e| CliError::Other(format!("cannot make the decoder's directory: {e}")))?;
        let user = user.map(lookup_user).transpose()?;
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).map_err(|e| {
                CliError::Other(format!(
                    "--decoder-user: cannot give the decoder its directory ({e}; abbe must run as root to switch users)"
                ))
            })?;
        }
        Ok(Sandbox {
            dir,
            path: std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
            user,
        })
    }
}

/// (uid, gid) of a user name or numeric uid, from /etc/passwd.
fn lookup_user(user: &str) -> Result<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd")
        .map_err(|e| CliError::Other(format!("--decoder-user: cannot read /etc/passwd: {e}")))?;
    passwd
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            Some((
                f.first()?.to_string(),
                f.get(2)?.parse().ok()?,
                f.get(3)?.parse().ok()?,
            ))
        })
        .find(|(name, uid, _): &(String, u32, u32)| name == user || uid.to_string() == user)
        .map(|(_, uid, gid)| (uid, gid))
        .ok_or_else(|| CliError::Other(format!("--decoder-user: no user '{user}' in /etc/passwd")))
}

/// One `--probe-like` file.
fn read_probe(path: &std::path::Path) -> Result<std::sync::Arc<[u8]>> {
    let mut data = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_PROBE_BYTES as u64 + 1).read_to_end(&mut data))
        .map_err(|e| CliError::Other(format!("--probe-like {}: {e}", path.display())))?;
    if data.len() > MAX_PROBE_BYTES {
        return Err(CliError::Other(format!(
            "--probe-like {}: over 16 MiB (probes are held in memory)",
            path.display()
        )));
    }
    Ok(data.into())
}

/// Runs the decoder on one ciphertext: its stdout (when at most
/// `max_output` bytes), or nothing when it runs past `timeout`.
///
/// The decoder runs in a process group of its own, killed whole when the
/// query ends: nothing it started outlives its query. The pipes are served
/// by detached threads and never waited on past the deadline: a process
/// that left the group may hold them open. Too many of those at once end
/// the trace with an error.
fn run_decoder(
    command: &str,
    ct: &[u8],
    timeout: Duration,
    max_output: u64,
    sandbox: &Sandbox,
) -> std::io::Result<Vec<u8>> {
    let stuck = STUCK_PIPES.load(Ordering::SeqCst);
    if stuck > MAX_STUCK_PIPES {
        return Err(std::io::Error::other(format!(
            "the decoder leaves processes holding its pipes ({stuck} still open)"
        )));
    }
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .process_group(0)
        .env_clear()
        .env("PATH", &sandbox.path)
        .env("HOME", sandbox.dir.path())
        .current_dir(sandbox.dir.path());
    if let Some((uid, gid)) = sandbox.user {
        cmd.uid(uid).gid(gid);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let (mut stdin, stdout) = (child.stdin.take(), child.stdout.take());
    let input = ct.to_vec();
    // A decoder may exit without reading its input: a broken pipe is its
    // answer, not an error of the tracer.
    let writer = pipe_thread(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(&input);
        }
    });
    let (sender, output) = std::sync::mpsc::channel();
    let reader = writer.and_then(|()| {
        pipe_thread(move || {
            let mut out = Vec::new();
            if let Some(s) = stdout {
                let _ = s.take(max_output + 1).read_to_end(&mut out);
            }
            let _ = sender.send(out);
        })
    });
    if let Err(e) = reader {
        stop(&mut child);
        return Err(e);
    }
    let deadline = Instant::now().checked_add(timeout);
    let mut pause = Duration::from_micros(200);
    loop {
        if child.try_wait()?.is_some() {
            break;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            stop(&mut child);
            return Ok(Vec::new());
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
    // The shell is done: whatever it left running in its group goes too
    // (its output so far stays in the pipe for the reader).
    kill_group(&child);
    let left = deadline.map_or(Duration::from_secs(1), |d| {
        d.saturating_duration_since(Instant::now())
    });
    Ok(match output.recv_timeout(left) {
        Ok(out) if out.len() as u64 <= max_output => out,
        _ => Vec::new(),
    })
}

/// Kills every process of the decoder's group (its shell is the leader).
fn kill_group(child: &Child) {
    if let Some(pgid) = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
    }
}

/// Kills the decoder's group and reaps its shell.
fn stop(child: &mut Child) {
    kill_group(child);
    let _ = child.kill();
    let _ = child.wait();
}
