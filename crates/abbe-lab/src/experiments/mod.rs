//! One module per paper. Each has `measure` (runs the schemes, records rows)
//! and `report` (tables, figures and claim verdicts computed from the rows
//! alone, so the report can be rebuilt from `results/` at any time). Each
//! claim is judged by one function named after its id, which returns the
//! verdict and evidence; its place and text are the paper's `.md`'s.

pub mod chhatrapati22;
mod chhatrapati22_full;
mod chhatrapati22_tables;
pub mod detabe;
pub mod ghw11;
mod ghw11_fig9;
pub mod perazzo;
mod perazzo_boards;
mod perazzo_broker;
pub mod placement;
pub mod rw22;
pub mod wang14;

use crate::judge::Measured;
use crate::papers::{to_base_unit, Published};
use crate::record::Row;
use crate::report::{Cell, Table};
use crate::{Experiment, LabError};
use abbe::curve::CurveId;
use abbe::kem::MasterKeyOf;

pub fn all() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "ghw11-fig8",
            paper: "ghw11",
            measure: ghw11::measure,
            report: ghw11::report,
        },
        Experiment {
            name: "wang14",
            paper: "wang14",
            measure: wang14::measure,
            report: wang14::report,
        },
        Experiment {
            name: "placement",
            paper: "wang14",
            measure: placement::measure,
            report: placement::report,
        },
        Experiment {
            name: "fabeo",
            paper: "rw22",
            measure: rw22::measure,
            report: rw22::report,
        },
        Experiment {
            name: "chhatrapati22",
            paper: "chhatrapati22",
            measure: chhatrapati22::measure,
            report: chhatrapati22::report,
        },
        Experiment {
            name: "detabe",
            paper: "detabe",
            measure: detabe::measure,
            report: detabe::report,
        },
        Experiment {
            name: "perazzo",
            paper: "perazzo",
            measure: perazzo::measure,
            report: perazzo::report,
        },
    ]
}

/// Runs `$body` with `$C` bound to each pairing curve the options select.
#[macro_export]
macro_rules! for_each_curve {
    ($ctx:expr, $C:ident => $body:expr) => {{
        if $ctx.wants(abbe::curve::CurveId::Bls12_381) {
            type $C = abbe::curve::Bls12;
            $body?;
        }
        if $ctx.wants(abbe::curve::CurveId::Bn254) {
            type $C = abbe::curve::Bn254;
            $body?;
        }
    }};
}

/// The pairing curves of the report, in order.
pub const CURVES: [CurveId; 2] = [CurveId::Bls12_381, CurveId::Bn254];

/// Whether an experiment measured on the first curve only in the quick
/// profile (every curve asked for in the full one) measures on `c`.
pub fn measured_on(ctx: &crate::Ctx, c: CurveId) -> bool {
    ctx.wants(c) && (ctx.profile == crate::Profile::Full || c == CURVES[0])
}

pub fn fail(what: impl std::fmt::Display) -> LabError {
    LabError::Other(what.to_string())
}

/// Rows matching scheme, curve and operation (and params when given), as
/// (x, `pick(row)`) sorted by x.
fn series_of(
    rows: &[Row],
    scheme: &str,
    curve: &str,
    op: &str,
    params: Option<&str>,
    pick: impl Fn(&Row) -> Option<f64>,
) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.scheme == scheme && r.curve == curve && r.operation == op)
        .filter(|r| params.is_none_or(|p| r.params == p))
        .filter_map(|r| pick(r).map(|y| (r.x, y)))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// (x, main value) of the matching rows, sorted by x.
pub fn series(
    rows: &[Row],
    scheme: &str,
    curve: &str,
    op: &str,
    params: Option<&str>,
) -> Vec<(f64, f64)> {
    series_of(rows, scheme, curve, op, params, Row::main_value)
}

/// Like [`series`], but process CPU time: the work done, which another
/// process on the machine does not bend as it bends wall time.
pub fn cpu_series(
    rows: &[Row],
    scheme: &str,
    curve: &str,
    op: &str,
    params: Option<&str>,
) -> Vec<(f64, f64)> {
    series_of(rows, scheme, curve, op, params, |r| r.cpu_ms)
}

/// The row for one point.
pub fn point<'a>(rows: &'a [Row], scheme: &str, curve: &str, op: &str, x: f64) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.scheme == scheme && r.curve == curve && r.operation == op && r.x == x)
}

pub fn value(rows: &[Row], scheme: &str, curve: &str, op: &str, x: f64) -> Option<f64> {
    point(rows, scheme, curve, op, x).and_then(Row::main_value)
}

/// The point's main value with its noise (see [`crate::judge`]).
pub fn measured(rows: &[Row], scheme: &str, curve: &str, op: &str, x: f64) -> Option<Measured> {
    point(rows, scheme, curve, op, x).and_then(Measured::of)
}

/// The exponent k of the power law y ∝ x^k that fits `pts` best (the
/// slope of the log–log least-squares line); points ≤ 0 are left out.
pub fn power_law_exponent(pts: &[(f64, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = pts
        .iter()
        .filter(|p| p.0 > 0.0 && p.1 > 0.0)
        .map(|p| (p.0.ln(), p.1.ln()))
        .collect();
    linear_fit(&logs).map(|f| f.0)
}

/// Least-squares line through `pts`: (slope, intercept, R²).
pub fn linear_fit(pts: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    Line::fit(pts).map(|l| (l.slope, l.intercept, l.r2))
}

/// A least-squares line with the scatter its fit leaves: a trend over many
/// points is judged by its own precision, not by one point's spread (which
/// a few repetitions estimate poorly, so it would move verdicts between runs).
#[derive(Clone, Copy, Debug)]
pub struct Line {
    pub slope: f64,
    pub intercept: f64,
    pub r2: f64,
    /// The standard error of the slope (residuals with n − 2 degrees of
    /// freedom).
    pub slope_se: f64,
}

impl Line {
    /// The line through `pts` (3 or more, not all at one x).
    pub fn fit(pts: &[(f64, f64)]) -> Option<Line> {
        let n = pts.len() as f64;
        if pts.len() < 3 {
            return None;
        }
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
        if sxx == 0.0 {
            return None;
        }
        let slope = sxy / sxx;
        let intercept = my - slope * mx;
        // From the residuals themselves, not syy·(1 − R²), which cancels
        // to rounding noise on a near-exact line.
        let ssr: f64 = pts
            .iter()
            .map(|p| (p.1 - intercept - slope * p.0).powi(2))
            .sum();
        Some(Line {
            slope,
            intercept,
            r2: if syy == 0.0 {
                1.0
            } else {
                (sxy * sxy) / (sxx * syy)
            },
            slope_se: (ssr / (n - 2.0) / sxx).sqrt(),
        })
    }
}

/// A published value in our base unit (ms or bytes).
pub fn published_base(p: &Published) -> Option<f64> {
    to_base_unit(p.value, &p.unit)
}

/// One "paper vs ours" table row: label, paper, ours, ratio ours/paper.
pub fn compare_row(
    label: String,
    paper: Option<f64>,
    ours: Option<f64>,
    unit: &'static str,
) -> Vec<Cell> {
    vec![
        Cell::Text(label),
        Cell::opt(paper, unit),
        Cell::opt(ours, unit),
        Cell::ratio(ours, paper),
    ]
}

pub fn compare_table(id: &str, title: &str) -> Table {
    Table::new(id, title, &["", "paper", "ours", "ours / paper"])
}

/// Where a KEM is measured: scheme, curve, x (attributes) and parameters.
pub struct At<'a> {
    pub scheme: &'a str,
    pub curve: &'a str,
    pub bits: u32,
    pub x: f64,
    pub params: &'a str,
}

/// Prepares the operations `ops` (any of keygen, encrypt, decrypt,
/// key-bytes, ct-bytes) of one KEM at one point, after checking that the
/// key decrypts: sizes are recorded at once, the timed operations are
/// returned for `Ctx::time_interleaved`, and none when an earlier run has
/// them all.
#[allow(clippy::too_many_arguments)]
pub fn kem_point<'a, K: abbe::Kem>(
    ctx: &mut crate::Ctx,
    at: &At<'_>,
    ops: &[&str],
    pk: &'a K::PublicKey,
    mk: &'a MasterKeyOf<K>,
    key_side: &'a K::KeySide,
    ct_side: &'a K::CiphertextSide,
    rng: &mut rand_chacha::ChaCha20Rng,
) -> Result<Vec<crate::Timed<'a>>, LabError>
where
    K::UserKey: 'a,
    K::Header: 'a,
{
    use abbe::wire::Encoded;
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use std::rc::Rc;
    let keys: Vec<_> = ops
        .iter()
        .map(|op| ctx.key(at.scheme, at.curve, op, "attributes", at.x, at.params))
        .collect();
    if ctx.done(&keys) {
        return Ok(Vec::new());
    }
    let key = abbe::kem::keygen::<K>(pk, mk, key_side, rng).map_err(fail)?;
    let (k0, header) = K::encapsulate(pk, ct_side, rng).map_err(fail)?;
    if K::decapsulate(&key, &header).map_err(fail)? != k0 {
        return Err(fail(format!(
            "{} {} x={}: decryption returned another key",
            at.scheme, at.curve, at.x
        )));
    }
    let b = ctx.budget();
    let (key, header) = (Rc::new(key), Rc::new(header));
    let mut timed = Vec::new();
    for (k, op) in keys.into_iter().zip(ops) {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(rng.next_u64());
        match *op {
            "keygen" => timed.push(crate::Timed::new(k, at.bits, b, move || {
                abbe::kem::keygen::<K>(pk, mk, key_side, &mut rng)
            })),
            "encrypt" => timed.push(crate::Timed::new(k, at.bits, b, move || {
                K::encapsulate(pk, ct_side, &mut rng)
            })),
            "decrypt" => {
                let (key, header) = (key.clone(), header.clone());
                timed.push(crate::Timed::new(k, at.bits, b, move || {
                    K::decapsulate(&key, &header)
                }));
            }
            "key-bytes" => ctx.bytes(k, at.bits, key.to_bytes().len()),
            "ct-bytes" => ctx.bytes(k, at.bits, header.to_bytes().len()),
            other => return Err(fail(format!("unknown KEM measurement {other}"))),
        }
    }
    Ok(timed)
}

/// Milliseconds of one RSA-PKCS#1 v1.5 decryption (and encryption, and key
/// generation) with the `rsa` crate, for wang14 Fig. 3 and ghw11's remark.
pub mod rsa_ops {
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    use rsa::{Pkcs1v15Encrypt, RsaPrivateKey, RsaPublicKey};

    pub fn keygen(bits: usize, seed: u64) -> Result<RsaPrivateKey, String> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        RsaPrivateKey::new(&mut rng, bits).map_err(|e| e.to_string())
    }

    pub fn encrypt(
        pk: &RsaPublicKey,
        msg: &[u8],
        rng: &mut ChaCha20Rng,
    ) -> Result<Vec<u8>, String> {
        pk.encrypt(rng, Pkcs1v15Encrypt, msg)
            .map_err(|e| e.to_string())
    }

    pub fn decrypt(sk: &RsaPrivateKey, ct: &[u8]) -> Result<Vec<u8>, String> {
        sk.decrypt(Pkcs1v15Encrypt, ct).map_err(|e| e.to_string())
    }
}

/// Synthetic rows for the claims' unit tests.
#[cfg(test)]
pub mod synth {
    use crate::record::Row;

    /// A timed point with ±1 % quartiles (below the noise floor).
    pub fn timed(scheme: &str, curve: &str, op: &str, x: f64, params: &str, ms: f64) -> Row {
        Row {
            scheme: scheme.into(),
            curve: curve.into(),
            operation: op.into(),
            x,
            params: params.into(),
            median_ms: Some(ms),
            q1_ms: Some(ms * 0.99),
            q3_ms: Some(ms * 1.01),
            cpu_ms: Some(ms),
            unit: "ms".into(),
            ..Row::default()
        }
    }

    pub fn sized(scheme: &str, curve: &str, op: &str, x: f64, params: &str, bytes: u64) -> Row {
        Row {
            scheme: scheme.into(),
            curve: curve.into(),
            operation: op.into(),
            x,
            params: params.into(),
            bytes: Some(bytes),
            unit: "B".into(),
            ..Row::default()
        }
    }

    /// The verdict of claim `id` among `claims`.
    pub fn verdict(claims: &[crate::report::Claim], id: &str) -> crate::report::Verdict {
        claims
            .iter()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no claim {id}"))
            .verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every claim the report code makes has its rule in its paper's `.md`,
    /// stating when it holds and when it does not; every rule has a claim.
    #[test]
    fn every_claim_has_a_rule_and_every_rule_a_claim() {
        let sources = [
            (
                "ghw11",
                concat!(include_str!("ghw11.rs"), include_str!("ghw11_fig9.rs")),
            ),
            ("wang14", include_str!("wang14.rs")),
            (
                "chhatrapati22",
                concat!(
                    include_str!("chhatrapati22.rs"),
                    include_str!("chhatrapati22_tables.rs"),
                    include_str!("chhatrapati22_full.rs")
                ),
            ),
            ("detabe", include_str!("detabe.rs")),
            ("rw22", include_str!("rw22.rs")),
            (
                "perazzo",
                concat!(
                    include_str!("perazzo.rs"),
                    include_str!("perazzo_boards.rs"),
                    include_str!("perazzo_broker.rs")
                ),
            ),
        ];
        for (paper_id, src) in sources {
            let p = crate::papers::paper(paper_id).unwrap();
            let mut ids: Vec<&str> = src
                .match_indices("id: \"")
                .filter_map(|(i, _)| {
                    let rest = &src[i + 5..];
                    rest.find('"').map(|j| &rest[..j])
                })
                .collect();
            // detabe names two claims in a loop.
            if paper_id == "detabe" {
                ids.extend(["level-slowdowns-detabe", "level-slowdown-aes4seci"]);
            }
            assert!(!ids.is_empty(), "{paper_id}");
            for id in &ids {
                let rule = p
                    .rule(id)
                    .unwrap_or_else(|| panic!("{paper_id}.md has no rule for claim {id}"));
                let r = rule.to_lowercase();
                assert!(
                    r.contains("holds if") && r.contains("not hold"),
                    "{paper_id} {id}: {rule}"
                );
            }
            // A claim states its place and text in the `.md` unless it
            // writes its own (one claim per application or level).
            for (i, _) in src.match_indices("..Claim::STATED") {
                let at = src[..i].rfind("id: \"").unwrap() + 5;
                let id = &src[at..at + src[at..].find('"').unwrap()];
                assert!(p.claim(id).is_some(), "{paper_id}.md states no claim {id}");
            }
            for id in p.rule_ids() {
                assert!(
                    ids.contains(&id),
                    "{paper_id}.md has a rule for {id}, which no claim uses"
                );
            }
            for id in p.model_ids() {
                assert!(
                    ids.contains(&id),
                    "{paper_id}.md has a model for {id}, which no claim uses"
                );
            }
        }
    }

    #[test]
    fn fit_of_a_line_is_exact() {
        let pts: Vec<(f64, f64)> = (1..10).map(|x| (x as f64, 3.0 * x as f64 + 2.0)).collect();
        let (s, i, r2) = linear_fit(&pts).unwrap();
        assert!((s - 3.0).abs() < 1e-9 && (i - 2.0).abs() < 1e-9 && (r2 - 1.0).abs() < 1e-12);
        assert!(linear_fit(&pts[..2]).is_none());
        let exact = Line::fit(&pts).unwrap();
        assert!(exact.slope_se.abs() < 1e-9);
        // Residuals ±1 around y = x at x = 0..3: SSR 4 over 2 degrees of
        // freedom, Sxx = 5, so the slope's standard error is √(2/5).
        let scattered = [(0.0, 1.0), (1.0, 0.0), (2.0, 3.0), (3.0, 2.0)];
        let line = Line::fit(&scattered).unwrap();
        assert!((line.slope - 0.6).abs() < 1e-12, "{line:?}");
        let ssr: f64 = scattered
            .iter()
            .map(|p| (p.1 - line.intercept - line.slope * p.0).powi(2))
            .sum();
        assert!((line.slope_se - (ssr / 2.0 / 5.0).sqrt()).abs() < 1e-12);
        assert!(Line::fit(&scattered[..2]).is_none());
    }

    #[test]
    fn rsa_round_trip() {
        let sk = rsa_ops::keygen(1024, 1).unwrap();
        let mut rng =
            <rand_chacha::ChaCha20Rng as rand_chacha::rand_core::SeedableRng>::seed_from_u64(2);
        let ct = rsa_ops::encrypt(&sk.to_public_key(), b"sixteen byte key", &mut rng).unwrap();
        assert_eq!(rsa_ops::decrypt(&sk, &ct).unwrap(), b"sixteen byte key");
    }
}
