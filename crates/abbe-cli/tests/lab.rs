//! End-to-end test of `abbe lab`: the quick profile (with no time budget
//! per point: its minimum repetitions only, to keep the suite short) produces
//! every experiment's results, plots and page; a re-run resumes (measured points are
//! kept, not measured again); and the page, opened in headless Chromium,
//! renders every section, table and figure without a single network request.
//!
//! Chromium comes from Debian's `chromium` package, which `scripts/test.sh`
//! installs and then sets `ABBE_REQUIRE_BROWSER=1`; without a browser and
//! without that variable the browser part is skipped with a message.

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn abbe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_abbe"))
}

fn find_browser() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("ABBE_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::var("PATH").unwrap_or_default().split(':') {
            let p = Path::new(dir).join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

#[test]
fn quick_profile_report_renders_offline_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let st = abbe()
        .args(["lab", "--profile", "quick", "--point-time", "0", "--quiet"])
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success(), "abbe lab failed");

    // Every experiment: CSV + JSON with rows; every figure on disk.
    let experiments: Vec<&str> = abbe_lab::experiments::all()
        .iter()
        .map(|e| e.name)
        .collect();
    for e in &experiments {
        let csv = std::fs::read_to_string(out.join(format!("results/{e}.csv"))).unwrap();
        assert!(csv.lines().count() > 5, "{e}: too few rows");
        let json = std::fs::read_to_string(out.join(format!("results/{e}.json"))).unwrap();
        assert!(json.trim_start().starts_with('['), "{e}: not a JSON array");
    }
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    let svgs: Vec<_> = std::fs::read_dir(out.join("plots"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(svgs.len() >= 20, "only {} figures", svgs.len());
    for s in &svgs {
        let text = std::fs::read_to_string(s).unwrap();
        assert!(
            text.contains("<svg") && text.contains("<text"),
            "{}",
            s.display()
        );
    }
    assert_eq!(
        html.matches("<figure").count(),
        svgs.len(),
        "every figure is on the page"
    );
    for e in &experiments {
        assert!(
            html.contains(&format!("<section class=paper id=\"{e}\"")),
            "section {e} missing"
        );
    }
    // No typed-in numbers: the environment and claims are there.
    for needle in [
        "Claims and verdicts",
        "curve backends",
        "blstrs",
        "profile",
        "seed",
        // `abbe lab` ran in the abbe-lab binary, whose allocator counts.
        "measured by the instrumented global allocator",
    ] {
        assert!(html.contains(needle), "{needle} missing");
    }
    for v in ["holds", "does not hold"] {
        assert!(html.contains(&format!("\">{v}</span>")), "no claim '{v}'");
    }
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "the page references a URL"
    );

    // Resume: a second run of one experiment keeps every measured row (in
    // its own order: a resumed point's rows come back together, where the
    // first run recorded sizes before the interleaved timings).
    let rows = |path: &Path| {
        let text = std::fs::read_to_string(path).unwrap();
        let v: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        let mut rows: Vec<String> = v.iter().map(|r| r.to_string()).collect();
        rows.sort();
        rows
    };
    let before = rows(&out.join("results/wang14.json"));
    let st = abbe()
        .args(["lab", "--only", "wang14", "--point-time", "0", "--quiet"])
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let after = rows(&out.join("results/wang14.json"));
    assert!(
        before == after,
        "a re-run measured points again (results/wang14.json changed)"
    );

    // An unknown experiment is a clear error, not a panic.
    let o = abbe()
        .args(["lab", "--only", "nope", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    // (--only takes the lab's own list of names: a usage error, exit 1.)
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("'nope'") && err.contains("possible values") && err.contains("fabeo"),
        "{err}"
    );

    browser_check(&out.join("index.html"), &html);
}

fn browser_check(index: &Path, html: &str) {
    let Some(chromium) = find_browser() else {
        assert!(
            std::env::var("ABBE_REQUIRE_BROWSER").is_err(),
            "no Chromium found (scripts/test.sh installs Debian's chromium)"
        );
        eprintln!("SKIPPED the browser check: no Chromium (scripts/test.sh installs it)");
        return;
    };
    // Every request the page would make goes through this proxy, which only
    // counts connections: the page must make none.
    let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = proxy.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    std::thread::spawn(move || {
        for mut s in proxy.incoming().flatten() {
            let mut buf = [0u8; 1024];
            let n = s.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]);
            let first = head.lines().next().unwrap_or("").to_string();
            // The browser's own service traffic (time, component updates,
            // accounts), which no flag fully turns off, is not the page's.
            let browser_own = ["google.com", "googleapis.com", "gvt1.com", "gstatic.com"]
                .iter()
                .any(|d| {
                    first
                        .split_whitespace()
                        .nth(1)
                        .is_some_and(|u| u.contains(d))
                });
            if !browser_own {
                eprintln!("page request through the proxy: {first}");
                h.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-default-browser-check",
            "--virtual-time-budget=10000",
            "--window-size=1280,2000",
        ])
        .arg(format!("--proxy-server=http://127.0.0.1:{port}"))
        .arg("--proxy-bypass-list=<-loopback>")
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", index.display()))
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("<pre id=\"render-check\">")
        .expect("render check element in the DOM");
    let rest = &dom[start + "<pre id=\"render-check\">".len()..];
    let check = &rest[..rest.find("</pre>").unwrap()];
    let expect_tables = html.matches("<table class=data").count();
    let expect_figures = html.matches("<svg").count();
    assert!(
        check.starts_with('{'),
        "the page's check did not run: {check}"
    );
    for (k, v) in [
        ("sections", abbe_lab::experiments::all().len()),
        ("tables", expect_tables),
        ("figures", expect_figures),
        ("bad_tables", 0),
        ("bad_figures", 0),
        ("resources", 0),
        ("csp_violations", 0),
    ] {
        assert!(
            check.contains(&format!("\"{k}\":{v}")),
            "{k} != {v} in {check}"
        );
    }
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the page made network requests"
    );
}

/// A run killed half-way keeps every point it measured: they are journaled
/// as measured, and the next run takes them over instead of measuring them
/// again.
#[test]
fn a_killed_run_resumes_from_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let journal = out.join("results/wang14.journal");
    let mut child = abbe()
        .args(["lab", "--only", "wang14", "--quiet", "--out"])
        .arg(&out)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    let lines = |p: &Path| {
        std::fs::read_to_string(p)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    while lines(&journal) < 12 {
        assert!(
            std::time::Instant::now() < deadline,
            "no journal after 300 s"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it was killed"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let journaled: Vec<serde_json::Value> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(journaled.len() >= 12);
    let st = abbe()
        .args(["lab", "--only", "wang14", "--quiet", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    assert!(
        !journal.exists(),
        "the journal is gone once the results are written"
    );
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(out.join("results/wang14.json")).unwrap())
            .unwrap();
    let id = |r: &serde_json::Value| {
        ["scheme", "curve", "operation", "x", "params"]
            .map(|k| r[k].to_string())
            .join("|")
    };
    // Rows of a point cut short may be measured again; the others are kept
    // exactly. A point has at most five rows (kem_point), so all but the
    // last five journaled rows must survive unchanged.
    for r in &journaled[..journaled.len() - 5] {
        let kept = rows
            .iter()
            .find(|x| id(x) == id(r))
            .expect("a journaled row was lost");
        assert_eq!(
            kept["median_ms"],
            r["median_ms"],
            "{} was measured again",
            id(r)
        );
        assert_eq!(kept["bytes"], r["bytes"]);
    }
}
