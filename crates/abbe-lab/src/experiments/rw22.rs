//! FABEO (Riepel–Wee, CCS 2022) beside the schemes its authors measured it
//! against, on their workload (a flat AND of N attributes, the key holding
//! all N): key generation, encryption and decryption of FABEO, FAME and
//! BSW07 (CP) and of FABEO, FAME and small-universe GPSW06 (KP), each
//! family timed interleaved per N. Not one of the five papers: the
//! authors' claim of speed, judged as a paper's would be (`rw22.md`).

use super::{fail, kem_point, measured, measured_on, At, CURVES};
use crate::judge;
use crate::papers::paper;
use crate::record::Row;
use crate::report::{Cell, Claim, Section, Table, Verdict};
use crate::{for_each_curve, Ctx, LabError, ReportCtx};
use abbe::abe::fabeo::{FabeoCp, FabeoKp};
use abbe::abe::{Bsw07, FameCp, FameKp, Gpsw06Small, Universe};
use abbe::curve::Curve;
use abbe::kem::setup;
use abbe::policy::{generate, AttributeSet};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::collections::BTreeMap;

/// A family of the comparison: FABEO and the schemes its authors compared
/// it with (abbe's names).
struct Family {
    name: &'static str,
    fabeo: &'static str,
    rivals: [&'static str; 2],
}

const FAMILIES: [Family; 2] = [
    Family {
        name: "CP-ABE",
        fabeo: "fabeo-cp",
        rivals: ["fame-cp", "bsw07"],
    },
    Family {
        name: "KP-ABE",
        fabeo: "fabeo-kp",
        rivals: ["fame-kp", "gpsw06-small"],
    },
];

const OPS: [&str; 3] = ["keygen", "encrypt", "decrypt"];
const PARAMS: &str = "policy=flat-and";

/// N of the flat AND: the ends of the authors' 10…100 in the quick
/// profile, four points on both curves in the full one.
fn points(p: crate::Profile) -> &'static [usize] {
    match p {
        crate::Profile::Quick => &[10, 100],
        crate::Profile::Full => &[10, 25, 50, 100],
    }
}

pub fn measure(ctx: &mut Ctx) -> Result<(), LabError> {
    let curves = CURVES.iter().filter(|c| measured_on(ctx, **c)).count();
    ctx.plan((curves * points(ctx.profile).len() * FAMILIES.len()) as u64);
    for_each_curve!(ctx, C => {
        if measured_on(ctx, C::ID) {
            on_curve::<C>(ctx)
        } else {
            Ok(())
        }
    });
    Ok(())
}

fn on_curve<C: Curve>(ctx: &mut Ctx) -> Result<(), LabError> {
    let mut rng = ChaCha20Rng::seed_from_u64(ctx.seed ^ 0xfabe0);
    let fabeo_cp = setup::<FabeoCp<C>>(&(), &mut rng).map_err(fail)?;
    let fame_cp = setup::<FameCp<C>>(&(), &mut rng).map_err(fail)?;
    let bsw07 = setup::<Bsw07<C>>(&(), &mut rng).map_err(fail)?;
    let fabeo_kp = setup::<FabeoKp<C>>(&(), &mut rng).map_err(fail)?;
    let fame_kp = setup::<FameKp<C>>(&(), &mut rng).map_err(fail)?;
    for &n in points(ctx.profile) {
        let policy = generate::flat_and(n).map_err(fail)?;
        let set = AttributeSet::from_names(policy.attributes()).map_err(fail)?;
        // The authors' GPSW06 has a universe of exactly the N attributes.
        let gpsw06 = setup::<Gpsw06Small<C>>(&Universe::from_iter(policy.attributes()), &mut rng)
            .map_err(fail)?;
        let at = |scheme| At {
            scheme,
            curve: C::NAME,
            bits: C::ID.security_bits(),
            x: n as f64,
            params: PARAMS,
        };
        let mut cp = kem_point::<FabeoCp<C>>(
            ctx,
            &at("fabeo-cp"),
            &OPS,
            &fabeo_cp.0,
            &fabeo_cp.1,
            &set,
            &policy,
            &mut rng,
        )?;
        cp.extend(kem_point::<FameCp<C>>(
            ctx,
            &at("fame-cp"),
            &OPS,
            &fame_cp.0,
            &fame_cp.1,
            &set,
            &policy,
            &mut rng,
        )?);
        cp.extend(kem_point::<Bsw07<C>>(
            ctx,
            &at("bsw07"),
            &OPS,
            &bsw07.0,
            &bsw07.1,
            &set,
            &policy,
            &mut rng,
        )?);
        ctx.time_interleaved(&format!("CP-ABE {} N={n}", C::NAME), 1, cp);
        let mut kp = kem_point::<FabeoKp<C>>(
            ctx,
            &at("fabeo-kp"),
            &OPS,
            &fabeo_kp.0,
            &fabeo_kp.1,
            &policy,
            &set,
            &mut rng,
        )?;
        kp.extend(kem_point::<FameKp<C>>(
            ctx,
            &at("fame-kp"),
            &OPS,
            &fame_kp.0,
            &fame_kp.1,
            &policy,
            &set,
            &mut rng,
        )?);
        kp.extend(kem_point::<Gpsw06Small<C>>(
            ctx,
            &at("gpsw06-small"),
            &OPS,
            &gpsw06.0,
            &gpsw06.1,
            &policy,
            &set,
            &mut rng,
        )?);
        ctx.time_interleaved(&format!("KP-ABE {} N={n}", C::NAME), 1, kp);
    }
    Ok(())
}

pub fn report(rows: &[Row], _r: &ReportCtx) -> Section {
    let p = paper("rw22").expect("rw22 is a paper of the lab");
    let mut tables = Vec::new();
    for c in CURVES {
        for f in &FAMILIES {
            let [r0, r1] = f.rivals;
            let mut t = Table::new(
                &format!("fabeo-{}-{}", f.fabeo, c.name()),
                &format!(
                    "{}: FABEO beside the schemes its authors compared it with, {} (flat AND of N; ms, CPU time)",
                    f.name,
                    c.name()
                ),
                &[
                    "N",
                    "operation",
                    f.fabeo,
                    r0,
                    r1,
                    &format!("{r0} / {}", f.fabeo),
                    &format!("{r1} / {}", f.fabeo),
                ],
            );
            for n in xs(rows, f.fabeo, c.name()) {
                for op in OPS {
                    let v = |s| measured(rows, s, c.name(), op, n).map(|m| m.value);
                    let (a, b0, b1) = (v(f.fabeo), v(r0), v(r1));
                    if a.is_none() {
                        continue;
                    }
                    t.rows.push(vec![
                        Cell::Num(n, ""),
                        Cell::Text(op.into()),
                        Cell::opt(a, "ms"),
                        Cell::opt(b0, "ms"),
                        Cell::opt(b1, "ms"),
                        Cell::ratio(b0, a),
                        Cell::ratio(b1, a),
                    ]);
                }
            }
            if !t.rows.is_empty() {
                tables.push(t);
            }
        }
    }
    Section {
        experiment: "fabeo",
        paper: p,
        intro: "Not a paper of the lab: FABEO (Riepel–Wee, CCS 2022), the fastest published pairing ABE, beside the schemes its authors compared it with, on their workload (a flat AND of N attributes; the key holds all N, so decryption uses every row). Each scheme in its own file's placement; per N the three schemes of a family are timed interleaved, single thread, on process CPU time. The authors' claim is judged by the rule in `rw22.md`. Small-universe GPSW06 publishes one point per attribute, which abbe exponentiates with fixed-base tables; FABEO hashes its attributes (a large universe), so its per-attribute exponentiations are variable-base — the authors' Charm code precomputes neither. The quick profile measures BLS12-381 at N = 10 and 100; `--profile full` adds N = 25, 50 and BN254. Reproduce: `abbe lab --only fabeo --profile full`.".into(),
        tables,
        figures: Vec::new(),
        claims: vec![
            Claim {
                id: "fabeo-cp-fastest",
                ..fastest(rows, &FAMILIES[0])
            },
            Claim {
                id: "fabeo-kp-fastest",
                ..fastest(rows, &FAMILIES[1])
            },
        ],
        notes: Vec::new(),
        decided_by: Vec::new(),
        under_load: (0, 0),
        heading: Some("Beyond the papers: FABEO against its authors' comparison".into()),
    }
}

/// The N measured for `scheme` on `curve`, ascending.
fn xs(rows: &[Row], scheme: &str, curve: &str) -> Vec<f64> {
    let mut v: Vec<f64> = rows
        .iter()
        .filter(|r| r.scheme == scheme && r.curve == curve)
        .map(|r| r.x)
        .collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// The authors' claim for one family: FABEO faster than each rival on
/// every operation at every measured point.
fn fastest(rows: &[Row], f: &Family) -> Claim {
    let mut vs = Vec::new();
    // Per (operation, rival): the points compared, and those where FABEO
    // is not faster beyond noise with their rival / FABEO ratios.
    let mut pairs: BTreeMap<(&str, &str), (usize, Vec<f64>)> = BTreeMap::new();
    let mut ratios: Vec<(f64, String)> = Vec::new();
    for c in CURVES {
        let cn = c.name();
        for n in xs(rows, f.fabeo, cn) {
            for op in OPS {
                let Some(a) = measured(rows, f.fabeo, cn, op, n) else {
                    continue;
                };
                for rival in f.rivals {
                    let Some(b) = measured(rows, rival, cn, op, n) else {
                        continue;
                    };
                    let v = judge::less(a, b);
                    let r = b.value / a.value;
                    let pair = pairs.entry((op, rival)).or_default();
                    pair.0 += 1;
                    if v != Verdict::Holds {
                        pair.1.push(r);
                    }
                    ratios.push((r, format!("{cn} N = {n} {op} vs {rival}")));
                    vs.push(v);
                }
            }
        }
    }
    ratios.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut evidence = match (ratios.first(), ratios.last()) {
        (Some(lo), Some(hi)) => format!(
            "{} comparisons, rival / FABEO from ×{:.2} ({}) to ×{:.2} ({})",
            vs.len(),
            lo.0,
            lo.1,
            hi.0,
            hi.1
        ),
        _ => "nothing measured".into(),
    };
    let against: Vec<String> = pairs
        .iter()
        .filter(|(_, (_, not))| !not.is_empty())
        .map(|((op, rival), (of, not))| {
            let lo = not.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = not.iter().copied().fold(0.0, f64::max);
            format!(
                "{op} vs {rival} at {} of {of} points (×{lo:.2}–×{hi:.2})",
                not.len()
            )
        })
        .collect();
    if !against.is_empty() {
        evidence += &format!("; FABEO not faster: {}", against.join(", "));
    }
    Claim {
        verdict: judge::every(&vs),
        evidence: judge::with_points(&vs, evidence),
        ..Claim::STATED
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::synth::{timed, verdict};

    fn rows(kp_encrypt_ms: f64) -> Vec<Row> {
        let mut rows = Vec::new();
        for n in [10.0, 100.0] {
            for op in OPS {
                for (s, ms) in [
                    ("fabeo-cp", 1.0),
                    ("fame-cp", 5.0),
                    ("bsw07", 2.0),
                    ("fabeo-kp", 1.0),
                    ("fame-kp", 5.0),
                ] {
                    rows.push(timed(s, "bls12-381", op, n, PARAMS, ms * n));
                }
                let gpsw = if op == "encrypt" && n == 10.0 {
                    kp_encrypt_ms
                } else {
                    2.0
                };
                rows.push(timed("gpsw06-small", "bls12-381", op, n, PARAMS, gpsw * n));
            }
        }
        rows
    }

    fn report_of(rows: &[Row]) -> Section {
        report(
            rows,
            &ReportCtx {
                profile: crate::Profile::Quick,
                devices: Vec::new(),
            },
        )
    }

    /// Each claim holds only when FABEO is faster on every operation at
    /// every point, and one slower point beyond noise is named and
    /// decides it.
    #[test]
    fn one_slower_point_fails_the_claim() {
        let s = report_of(&rows(2.0));
        assert_eq!(verdict(&s.claims, "fabeo-cp-fastest"), Verdict::Holds);
        assert_eq!(verdict(&s.claims, "fabeo-kp-fastest"), Verdict::Holds);
        let s = report_of(&rows(0.5));
        assert_eq!(verdict(&s.claims, "fabeo-cp-fastest"), Verdict::Holds);
        let kp = s
            .claims
            .iter()
            .find(|c| c.id == "fabeo-kp-fastest")
            .unwrap();
        assert_eq!(kp.verdict, Verdict::DoesNotHold);
        assert!(
            kp.evidence.contains(
                "FABEO not faster: encrypt vs gpsw06-small at 1 of 2 points (×0.50–×0.50)"
            ),
            "{}",
            kp.evidence
        );
        // A tie leaves the claim within noise.
        let s = report_of(&rows(1.0));
        assert_eq!(verdict(&s.claims, "fabeo-kp-fastest"), Verdict::WithinNoise);
    }

    /// One table per family and curve measured, with both rivals' ratios.
    #[test]
    fn tables_show_both_rivals() {
        let s = report_of(&rows(2.0));
        assert_eq!(s.tables.len(), 2);
        let t = &s.tables[0];
        assert_eq!(t.rows.len(), 6);
        assert!(matches!(t.rows[0][5], Cell::Ratio(r) if (r - 5.0).abs() < 1e-9));
        assert!(matches!(t.rows[0][6], Cell::Ratio(r) if (r - 2.0).abs() < 1e-9));
    }
}
