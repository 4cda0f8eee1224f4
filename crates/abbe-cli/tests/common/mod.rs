//! Helpers shared by the end-to-end tests that run the real `abbe` binary
//! in a temporary directory.
#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_abbe");
pub const ENV: &str = "ABBE_PASSPHRASE_FILE";
pub const KIND_PROTECTED: u8 = 17;

pub struct Run {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code(),
            stdout: out.stdout,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// A temporary directory with passphrase files `pw` and `wrong`.
pub struct T {
    pub dir: tempfile::TempDir,
}

impl T {
    pub fn new() -> T {
        let t = T {
            dir: tempfile::tempdir().unwrap(),
        };
        fs::write(t.path("pw"), "correct horse battery staple\n").unwrap();
        fs::write(t.path("wrong"), "correct horse battery stapler\n").unwrap();
        t
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs abbe in the directory; `pass` names the passphrase file
    /// (None: the variable is removed). stdin is empty, stderr a pipe: no
    /// terminal.
    pub fn run_with(&self, pass: Option<&str>, args: &[&str], stdin: Option<Vec<u8>>) -> Run {
        let mut cmd = Command::new(BIN);
        cmd.current_dir(self.dir.path())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        match pass {
            Some(f) => cmd.env(ENV, self.path(f)),
            None => cmd.env_remove(ENV),
        };
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut child = cmd.spawn().expect("cannot run abbe");
        let writer = stdin.map(|data| {
            let mut s = child.stdin.take().unwrap();
            std::thread::spawn(move || {
                let _ = s.write_all(&data);
            })
        });
        let out = child.wait_with_output().unwrap();
        if let Some(w) = writer {
            w.join().unwrap();
        }
        out.into()
    }

    pub fn run(&self, pass: Option<&str>, args: &[&str]) -> Run {
        self.run_with(pass, args, None)
    }

    #[track_caller]
    pub fn ok(&self, pass: Option<&str>, args: &[&str]) -> Vec<u8> {
        let r = self.run(pass, args);
        assert_eq!(r.code, Some(0), "abbe {args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        r.stdout
    }

    #[track_caller]
    pub fn fails(&self, pass: Option<&str>, args: &[&str], code: i32) -> String {
        let r = self.run(pass, args);
        assert_fails(&r, code);
        r.stderr
    }

    pub fn read(&self, name: &str) -> Vec<u8> {
        fs::read(self.path(name)).unwrap()
    }
}

#[track_caller]
pub fn assert_fails(r: &Run, code: i32) {
    assert_eq!(r.code, Some(code), "expected exit {code}: {}", r.stderr);
    assert!(r.stderr.starts_with("abbe: error: "), "{:?}", r.stderr);
    // One line, or under it only indented context (a policy error's input
    // with a caret).
    assert!(
        r.stderr.lines().skip(1).all(|l| l.starts_with("  ")),
        "{:?}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
}

/// Neither `name` nor a temporary file of an atomic write is left.
#[track_caller]
pub fn assert_no_output(t: &T, name: &str) {
    assert!(!t.path(name).exists(), "{name} was left behind");
    for e in fs::read_dir(t.dir.path()).unwrap() {
        let n = e.unwrap().file_name();
        assert!(
            !n.to_string_lossy().starts_with(".abbe-tmp-"),
            "stray temporary file {n:?}"
        );
    }
}

#[cfg(unix)]
pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

pub fn data(len: usize) -> Vec<u8> {
    (0..len as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}

impl T {
    /// [`run_measured`] in this directory, where the peak RSS can be measured.
    pub fn run_measured(&self, args: &[&str]) -> (Run, u64) {
        let (run, kib) = run_measured(self.dir.path(), args);
        (
            run,
            kib.expect("the peak RSS is measured (/usr/bin/time or /proc)"),
        )
    }
}

/// Runs abbe in `dir` with no stdin and measures its peak RSS in KiB:
/// under /usr/bin/time, or else by polling VmHWM until it exits (`None`
/// where neither is available).
pub fn run_measured(dir: &Path, args: &[&str]) -> (Run, Option<u64>) {
    if !Path::new("/usr/bin/time").exists() {
        return run_polling_peak(dir, args);
    }
    let out = Command::new("/usr/bin/time")
        .current_dir(dir)
        .args(["-f", "%M", BIN])
        .args(args)
        .env_remove(ENV)
        .stdin(Stdio::null())
        .output()
        .expect("cannot run /usr/bin/time abbe");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let mut lines: Vec<&str> = stderr.lines().collect();
    let kib = lines.pop().and_then(|l| l.trim().parse::<u64>().ok());
    // time's own line about a failed command is not abbe's output.
    lines.retain(|l| !l.starts_with("Command exited with non-zero status"));
    let run = Run {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: lines.join("\n"),
    };
    (run, kib)
}

fn run_polling_peak(dir: &Path, args: &[&str]) -> (Run, Option<u64>) {
    let mut child = Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .env_remove(ENV)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run abbe");
    let drain = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            r.read_to_end(&mut v).unwrap();
            v
        })
    };
    let out_reader = drain(Box::new(child.stdout.take().unwrap()));
    let err_reader = drain(Box::new(child.stderr.take().unwrap()));
    let mut peak: Option<u64> = None;
    let status = loop {
        if let Some(m) = memory_kib(child.id()) {
            peak = Some(peak.map_or(m.peak, |p| p.max(m.peak)));
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let run = Run {
        code: status.code(),
        stdout: out_reader.join().unwrap(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
    };
    (run, peak)
}

/// Runs abbe in `dir` with no stdin; its output, whatever the status.
pub fn abbe(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("cannot run abbe")
}

/// [`abbe`], which must succeed; its stdout as text.
#[track_caller]
pub fn ok(dir: &Path, args: &[&str]) -> String {
    let out = abbe(dir, args);
    assert!(
        out.status.success(),
        "abbe {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("abbe's output is text")
}

/// A process's resident memory, KiB (/proc/<pid>/status).
#[derive(Clone, Copy, Debug)]
pub struct Memory {
    /// VmRSS.
    pub current: u64,
    /// VmHWM.
    pub peak: u64,
}

/// `None` where /proc is not there or the process has ended.
pub fn memory_kib(pid: u32) -> Option<Memory> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
    };
    Some(Memory {
        current: field("VmRSS:")?,
        peak: field("VmHWM:")?,
    })
}
