//! What an experiment reports (tables with the paper's value beside ours,
//! figures, claims with verdicts) and the self-contained `index.html`.

use crate::papers::Paper;
use crate::plot::Figure;
use crate::Profile;
use std::fmt::Write as _;

/// A cell of a report table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Text(String),
    /// A number with its unit.
    Num(f64, &'static str),
    /// ours / paper.
    Ratio(f64),
    Empty,
}

impl Cell {
    pub fn opt(v: Option<f64>, unit: &'static str) -> Cell {
        v.map_or(Cell::Empty, |v| Cell::Num(v, unit))
    }

    pub fn ratio(ours: Option<f64>, paper: Option<f64>) -> Cell {
        match (ours, paper) {
            (Some(o), Some(p)) if p != 0.0 => Cell::Ratio(o / p),
            _ => Cell::Empty,
        }
    }

    fn html(&self) -> String {
        match self {
            Cell::Text(s) => esc(s),
            Cell::Num(v, u) => format!("{}<span class=u> {}</span>", fmt_num(*v), esc(u)),
            Cell::Ratio(r) => {
                let cls = if *r <= 1.0 { "good" } else { "bad" };
                format!("<span class={cls}>×{}</span>", fmt_num(*r))
            }
            Cell::Empty => "<span class=na>—</span>".into(),
        }
    }
}

/// A number with 3–4 significant digits.
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        "—".into()
    } else if a == 0.0 {
        "0".into()
    } else if a >= 1e6 {
        format!("{v:.3e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    }
}

/// A table of the report.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub id: String,
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
    pub note: String,
}

impl Table {
    pub fn new(id: &str, title: &str, columns: &[&str]) -> Table {
        Table {
            id: id.into(),
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            ..Table::default()
        }
    }
}

/// Our verdict on a claim of a paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    DoesNotHold,
    Depends,
    /// The claim compares quantities that differ here by less than their
    /// measured noise: no winner can be named.
    WithinNoise,
    /// The evidence is not measured yet: a point of the full profile (the
    /// evidence says which).
    Pending,
    /// Not judged: it needs hardware or data the lab lacks (the evidence
    /// says what).
    NotJudged,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
            Verdict::Depends => "depends",
            Verdict::WithinNoise => "within noise",
            Verdict::Pending => "pending",
            Verdict::NotJudged => "not judged",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Claim {
    /// The claim's id in its paper's `.md`, where its rule is stated
    /// (`Rule {id}: holds if …`); the report prints the rule beside the
    /// verdict.
    pub id: &'static str,
    /// Where in the paper.
    pub source: String,
    /// The claim, quoted or closely paraphrased.
    pub text: String,
    pub verdict: Verdict,
    /// Which rows decide it, with their numbers.
    pub evidence: String,
}

impl Claim {
    /// The rest of a claim whose place and text its paper's `.md` states
    /// (`Claim {id}: [§…] …`): `Claim { id, verdict, evidence,
    /// ..Claim::STATED }`, filled in by [`Section::state_claims`].
    pub const STATED: Claim = Claim {
        id: "",
        source: String::new(),
        text: String::new(),
        verdict: Verdict::NotJudged,
        evidence: String::new(),
    };
}

/// One paper's section of the report.
#[derive(Clone, Debug)]
pub struct Section {
    pub experiment: &'static str,
    pub paper: &'static Paper,
    pub intro: String,
    pub tables: Vec<Table>,
    pub figures: Vec<Figure>,
    pub claims: Vec<Claim>,
    pub notes: Vec<String>,
    /// Per claim, the profile whose points decided its verdict (see
    /// `decided_by` in lib.rs); filled in by the run, empty in tests.
    pub decided_by: Vec<Option<Profile>>,
    /// Timed points measured under load (other processes competing for
    /// the lab's core), of the section's timed points; filled in by the run.
    pub under_load: (usize, usize),
    /// The section's own heading, for results that are not a paper's (the
    /// paper's title otherwise).
    pub heading: Option<String>,
}

impl Section {
    /// Gives each claim without its own text ([`Claim::STATED`]) its place
    /// and text from the paper's `.md`.
    pub fn state_claims(mut self) -> Self {
        for c in self.claims.iter_mut().filter(|c| c.text.is_empty()) {
            if let Some((source, text)) = self.paper.claim(c.id) {
                (c.source, c.text) = (source, text);
            }
        }
        self
    }

    /// "; 3 of 40 points measured under load", or nothing.
    fn load_note(&self) -> String {
        match self.under_load {
            (0, _) => String::new(),
            (k, n) => format!("; {k} of {n} timed points measured under load"),
        }
    }

    /// Whether the summary marks the section's claims "under load": when at
    /// least 5 % of its timed points were, so that one stray point (a
    /// build's burst) does not mark claims that may not even use it.
    fn marked_under_load(&self) -> bool {
        let (k, n) = self.under_load;
        k > 0 && k * 20 >= n
    }

    fn decided_by(&self, i: usize) -> &'static str {
        match self.decided_by.get(i).copied().flatten() {
            Some(p) => p.name(),
            None => "—",
        }
    }
}

/// Timed points measured under load, of all timed points, over `sections`.
pub fn under_load<'a>(sections: impl IntoIterator<Item = &'a Section>) -> (usize, usize) {
    sections
        .into_iter()
        .fold((0, 0), |a, s| (a.0 + s.under_load.0, a.1 + s.under_load.1))
}

pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The environment block of the report.
#[derive(Clone, Debug, Default)]
pub struct Environment {
    pub items: Vec<(String, String)>,
}

const CSS: &str = r#"
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2228;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:1.5em 2em 4em}
h1{font-size:1.7em;margin:.2em 0}h2{margin-top:2.2em;border-bottom:2px solid #d0d7de;padding-bottom:.2em}
h3{margin-top:1.6em}
nav a{margin-right:1em}
table{border-collapse:collapse;margin:.6em 0 1.2em;background:#fff;font-size:13px}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:right}
th{background:#f0f3f6;text-align:center}td:first-child{text-align:left}
.u{color:#667}.na{color:#aaa}.good{color:#116329;font-weight:600}.bad{color:#a40e26;font-weight:600}
figure{margin:1em 0;background:#fff;border:1px solid #d0d7de;padding:6px;display:inline-block}
figure svg{display:block;max-width:100%;height:auto}
figcaption{font-size:12px;color:#555}
.claims li{margin:.6em 0}.verdict{display:inline-block;padding:0 .5em;border-radius:3px;font-weight:600;font-size:12px}
.v-holds{background:#dafbe1;color:#116329}.v-does-not-hold{background:#ffebe9;color:#a40e26}
.v-depends{background:#fff8c5;color:#7d4e00}.v-pending,.v-not-judged{background:#eaeef2;color:#57606a}.v-within-noise{background:#ddf4ff;color:#0a3069}.rule{color:#444;font-size:12px}
.note{color:#555;font-size:13px}.warn{background:#fff8c5;border:1px solid #d4a72c;padding:.5em 1em}dl.env{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}
dl.env dt{font-weight:600}
"#;

/// Counts Content-Security-Policy violations (an attempted fetch) from the
/// first byte of the page on.
const CSP_WATCH: &str = "window.__csp=0;document.addEventListener('securitypolicyviolation',function(){window.__csp++;});";

/// Checks, in the browser, that every section, table and figure rendered
/// (non-empty layout boxes); the end-to-end test reads the verdict from the
/// DOM. Inline, so the page stays self-contained.
const RENDER_CHECK: &str = r#"
window.addEventListener('load',function(){
 var s=document.querySelectorAll('section.paper'),t=document.querySelectorAll('table.data'),f=document.querySelectorAll('figure svg');
 var badT=0,badF=0;
 t.forEach(function(x){var r=x.getBoundingClientRect();if(r.width<10||r.height<10||x.rows.length<2)badT++;});
 f.forEach(function(x){var r=x.getBoundingClientRect();if(r.width<50||r.height<50||x.querySelectorAll('text').length<3)badF++;});
 var res=performance.getEntriesByType('resource').length;
 document.getElementById('render-check').textContent=JSON.stringify({sections:s.length,tables:t.length,figures:f.length,bad_tables:badT,bad_figures:badF,resources:res,csp_violations:window.__csp||0});
});
"#;

/// The SVG element alone, for inlining: no XML prolog, and no namespace
/// attributes (HTML knows inline SVG; the URIs are names, not fetches, but
/// the page is easier to audit with no URI in it at all).
fn strip_prolog(svg: &str) -> String {
    let s = match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    };
    s.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
        .replace(" xmlns:xlink=\"http://www.w3.org/1999/xlink\"", "")
}

/// The whole report: one page, inline CSS and SVG, no network access (a
/// Content-Security-Policy forbids any fetch).
pub fn index_html(title: &str, env: &Environment, sections: &[(Section, Vec<String>)]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\
<meta name=viewport content=\"width=device-width,initial-scale=1\"><title>{}</title><script>{CSP_WATCH}</script><style>{CSS}</style></head><body><main>",
        esc(title)
    );
    let _ = write!(h, "<h1>{}</h1><nav>", esc(title));
    for (s, _) in sections {
        let _ = write!(h, "<a href=\"#{}\">{}</a>", s.experiment, s.experiment);
    }
    h.push_str("<a href=\"#environment\">environment</a></nav>");
    let loaded = under_load(sections.iter().map(|(s, _)| s));
    if loaded.0 > 0 {
        let _ = write!(
            h,
            "<p class=warn id=load-warning><b>Measured under load:</b> {} of {} timed points were taken while other processes kept more than this machine's spare cores busy. The verdicts rest on process CPU time, which no longer counts the time others held the core, but where cores share execution units (SMT, or vCPUs of one host core) a busy neighbour still slows some code, so verdicts near a threshold may differ from an idle run's; the wall times in results/*.csv are inflated. Each claim's note says how many of its paper's points were; the summary marks a paper's claims <q>under load</q> when at least 5 % were.</p>",
            loaded.0, loaded.1
        );
    }
    // Claims summary first: what a reader wants to know.
    let all: Vec<Verdict> = sections
        .iter()
        .flat_map(|(s, _)| s.claims.iter().map(|c| c.verdict))
        .collect();
    let count = |v: Verdict| all.iter().filter(|x| **x == v).count();
    let tally: Vec<String> = [
        Verdict::Holds,
        Verdict::DoesNotHold,
        Verdict::Depends,
        Verdict::WithinNoise,
        Verdict::Pending,
        Verdict::NotJudged,
    ]
    .into_iter()
    .filter(|v| count(*v) > 0)
    .map(|v| format!("{} {}", count(v), v.label()))
    .collect();
    let _ = write!(
        h,
        "<h2 id=claims>Claims and verdicts</h2><p id=tally>{} claim{}: {}.</p><p class=note>Each verdict applies the rule written in the paper's notes, which states its reasoning (rules an audit found unfair to the paper were rewritten after measuring); comparisons closer than the repetitions' spread say <q>within noise</q>; <q>model</q> marks a verdict computed from a board model, not measured on the paper's hardware (its section says what it rests on).</p><table class=data><tr><th>paper</th><th>claim</th><th>verdict</th><th>decided by</th><th>rule</th></tr>",
        all.len(),
        if all.len() == 1 { "" } else { "s" },
        tally.join(", ")
    );
    for (s, _) in sections {
        for (i, c) in s.claims.iter().enumerate() {
            let _ = write!(
                h,
                "<tr><td>{}</td><td style=\"text-align:left\">{}</td><td><span class=\"verdict v-{}\">{}</span>{}{}</td><td>{}</td><td class=rule style=\"text-align:left\">{}</td></tr>",
                s.experiment,
                esc(&c.text),
                c.verdict.label().replace(' ', "-"),
                c.verdict.label(),
                if s.paper.model(c.id).is_some() { " <span class=note>model</span>" } else { "" },
                if s.marked_under_load() { " <span class=note>under load</span>" } else { "" },
                s.decided_by(i),
                esc(&s.paper.rule(c.id).unwrap_or_default())
            );
        }
    }
    h.push_str("</table>");
    for (s, svgs) in sections {
        let _ = write!(
            h,
            "<section class=paper id=\"{}\"><h2>{} <small>({})</small></h2><p>{}</p>",
            s.experiment,
            esc(s.heading.as_deref().unwrap_or(s.paper.title)),
            s.experiment,
            esc(&s.intro)
        );
        let remarks = s.paper.remarks();
        // A section of our own results has no paper setting to recall.
        if !remarks.is_empty() && s.heading.is_none() {
            let _ = write!(
                h,
                "<p class=note>Paper's setting: {}</p>",
                esc(&remarks.join(" "))
            );
        }
        for t in &s.tables {
            let _ = write!(
                h,
                "<h3 id=\"{}\">{}</h3><table class=data><tr>",
                esc(&t.id),
                esc(&t.title)
            );
            for c in &t.columns {
                let _ = write!(h, "<th>{}</th>", esc(c));
            }
            h.push_str("</tr>");
            for r in &t.rows {
                h.push_str("<tr>");
                for c in r {
                    let _ = write!(h, "<td>{}</td>", c.html());
                }
                h.push_str("</tr>");
            }
            h.push_str("</table>");
            if !t.note.is_empty() {
                let _ = write!(h, "<p class=note>{}</p>", esc(&t.note));
            }
        }
        for (f, svg) in s.figures.iter().zip(svgs) {
            let _ = write!(
                h,
                "<figure id=\"fig-{}\">{}<figcaption>{} — plots/{}.svg</figcaption></figure> ",
                esc(&f.id),
                strip_prolog(svg),
                esc(&f.title),
                esc(&f.id)
            );
        }
        if !s.claims.is_empty() {
            h.push_str("<h3>Claims</h3><ul class=claims>");
            for (i, c) in s.claims.iter().enumerate() {
                let _ = write!(
                    h,
                    "<li><span class=\"verdict v-{}\">{}</span> <q>{}</q> <span class=note>({}; decided by the {} profile{})</span><br><span class=rule>Rule: {}</span>{}<br><span class=note>Evidence: {}</span></li>",
                    c.verdict.label().replace(' ', "-"),
                    c.verdict.label(),
                    esc(&c.text),
                    esc(&c.source),
                    s.decided_by(i),
                    s.load_note(),
                    esc(&s.paper.rule(c.id).unwrap_or_default()),
                    s.paper
                        .model(c.id)
                        .map(|m| format!("<br><span class=rule>A model's verdict, resting on: {}</span>", esc(&m)))
                        .unwrap_or_default(),
                    esc(&c.evidence)
                );
            }
            h.push_str("</ul>");
        }
        for n in &s.notes {
            let _ = write!(h, "<p class=note>{}</p>", esc(n));
        }
        h.push_str("</section>");
    }
    h.push_str("<h2 id=environment>Environment</h2><dl class=env>");
    for (k, v) in &env.items {
        let _ = write!(h, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
    }
    let _ = writeln!(
        h,
        "</dl><pre id=render-check>not rendered</pre><script>{RENDER_CHECK}</script></main></body></html>"
    );
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::papers::PAPERS;

    #[test]
    fn page_is_self_contained_and_escapes_text() {
        let mut t = Table::new("t1", "Table <1>", &["op", "paper", "ours", "ratio"]);
        t.rows.push(vec![
            Cell::Text("decrypt".into()),
            Cell::Num(10.0, "ms"),
            Cell::Num(2.0, "ms"),
            Cell::ratio(Some(2.0), Some(10.0)),
        ]);
        let mut f = Figure::new("f1", "Fig", "x", "y");
        f.line("ours", vec![(1.0, 1.0), (2.0, 3.0)], false);
        let svg = f.to_svg().unwrap();
        let s = Section {
            experiment: "ghw11-fig8",
            paper: &PAPERS[0],
            intro: "a & b".into(),
            tables: vec![t],
            figures: vec![f],
            claims: vec![
                Claim {
                    id: "advantage-from-10",
                    source: "§6".into(),
                    text: "fast".into(),
                    verdict: Verdict::Holds,
                    evidence: "rows".into(),
                },
                Claim {
                    id: "problematic-on-limited-devices",
                    source: "§6.1".into(),
                    text: "slow on a phone".into(),
                    verdict: Verdict::Holds,
                    evidence: "a board".into(),
                },
            ],
            notes: vec![],
            decided_by: vec![Some(Profile::Full), Some(Profile::Quick)],
            under_load: (0, 4),
            heading: None,
        };
        let env = Environment {
            items: vec![("CPU".into(), "x".into())],
        };
        let html = index_html("Lab", &env, &[(s.clone(), vec![svg.clone()])]);
        assert_eq!(s.paper.id, "ghw11");
        assert!(html.contains("2 claims: 2 holds."));
        assert_eq!(html.matches("<span class=note>model</span>").count(), 1);
        assert!(html.contains("A model's verdict, resting on: the RE-Mote"));
        assert!(!html.contains("load-warning") && !html.contains("under load"));
        let loaded = Section {
            under_load: (3, 4),
            ..s.clone()
        };
        let warned = index_html("Lab", &env, &[(loaded, vec![svg.clone()])]);
        assert!(warned.contains("id=load-warning"), "a warning at the top");
        assert!(warned.contains("3 of 4 timed points were taken"));
        assert!(
            warned.contains("decided by the full profile; 3 of 4 timed points measured under load")
        );
        assert_eq!(
            warned.matches("<span class=note>under load</span>").count(),
            2
        );
        // One stray point of many is said in the claims' notes, not marked
        // on every claim of the summary.
        let stray = Section {
            under_load: (1, 1000),
            ..s.clone()
        };
        let noted = index_html("Lab", &env, &[(stray, vec![svg.clone()])]);
        assert!(noted.contains("1 of 1000 timed points measured under load"));
        assert!(!noted.contains("<span class=note>under load</span>"));
        assert!(html.contains("Table &lt;1&gt;") && html.contains("a &amp; b"));
        assert!(html.contains("×0.200"));
        assert!(html.contains("v-holds"));
        assert!(html.contains("decided by the full profile"));
        assert!(
            !html.contains("http://") && !html.contains("https://www"),
            "no external references"
        );
        assert_eq!(html.matches("<svg").count(), 1);
        assert!(!html.contains("<?xml"));
    }

    #[test]
    fn number_format() {
        assert_eq!(fmt_num(349.52), "350");
        assert_eq!(fmt_num(26.71), "26.7");
        assert_eq!(fmt_num(0.9234), "0.923");
        assert_eq!(fmt_num(1.5e7), "1.500e7");
    }
}
