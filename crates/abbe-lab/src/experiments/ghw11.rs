//! GHW11 Fig. 8: Waters11 CP-ABE with outsourced decryption, flat AND
//! policies of N = 1..100 attributes, the key holding exactly those N:
//! ABE ciphertext size, partially decrypted (transformed) size, standard
//! decryption, transformation-key generation, transform, final decryption;
//! on both curves. Plus the paper's RSA-1024 remark, measured here.

use super::{
    compare_row, compare_table, fail, linear_fit, measured, published_base, rsa_ops, series, value,
    Line, CURVES,
};
use crate::judge::{self, Measured};
use crate::papers::paper;
use crate::plot::Figure;
use crate::record::Row;
use crate::report::{Cell, Claim, Section, Table, Verdict};
use crate::{for_each_curve, Ctx, LabError, Profile, ReportCtx, Timed};
use abbe::abe::Waters11;
use abbe::curve::{Counted, Curve, OpCounts};
use abbe::kem::Authority;
use abbe::policy::{generate, AttributeSet};
use abbe::{Kem, Outsourcing};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

const SCHEME: &str = "waters11";

fn points(p: Profile) -> Vec<usize> {
    match p {
        Profile::Quick => vec![1, 5, 10, 20, 40, 60, 80, 100],
        Profile::Full => (1..=100).collect(),
    }
}

const OPS: [&str; 7] = [
    "ct-bytes",
    "partial-ct-bytes",
    "encrypt",
    "decrypt",
    "tk-keygen",
    "transform",
    "final-decrypt",
];

pub fn measure(ctx: &mut Ctx) -> Result<(), LabError> {
    let pts = points(ctx.profile);
    ctx.plan((pts.len() * 2 + 2) as u64);
    for_each_curve!(ctx, C => curve::<C>(ctx, &pts));
    rsa(ctx)?;
    super::ghw11_fig9::measure(ctx)
}

fn curve<C: Curve>(ctx: &mut Ctx, pts: &[usize]) -> Result<(), LabError> {
    let mut rng = ChaCha20Rng::seed_from_u64(ctx.seed);
    let (pk, mk) = Waters11::<C>::setup(&Default::default(), &mut rng).unwrap();
    let bits = C::ID.security_bits();
    let name = C::NAME;
    // Every point is prepared first and then timed interleaved with the
    // others: the fitted lines and the "constant" final decryption compare
    // points measured under the same conditions.
    let mut points = Vec::new();
    for &n in pts {
        let x = n as f64;
        let keys: Vec<_> = OPS
            .iter()
            .map(|op| ctx.key(SCHEME, name, op, "attributes", x, "policy=flat-and"))
            .collect();
        if ctx.done(&keys) {
            continue;
        }
        let policy = generate::flat_and(n).map_err(fail)?;
        let set = AttributeSet::from_names(policy.attributes()).map_err(fail)?;
        let key = Waters11::<C>::keygen(&pk, &mk, &set, &mut rng).map_err(fail)?;
        let (k0, header) = Waters11::<C>::encapsulate(&pk, &policy, &mut rng).map_err(fail)?;
        let (tk, rk) = Waters11::<C>::transform_key(&key, &mut rng);
        let t = Waters11::<C>::transform(&tk, &header).map_err(fail)?;
        let ok = Waters11::<C>::decapsulate(&key, &header).map_err(fail)? == k0
            && Waters11::<C>::decrypt_transformed(&rk, &t).map_err(fail)? == k0;
        if !ok {
            return Err(fail(format!(
                "{name} N={n}: decryption returned another key"
            )));
        }
        ctx.bytes(keys[0].clone(), bits, header.to_bytes().len());
        ctx.bytes(keys[1].clone(), bits, t.to_bytes().len());
        // Operation counts from the counting curve, same seed and sizes.
        let counts = counts::<C>(n, ctx.seed)?;
        points.push((keys, policy, key, header, tk, rk, t, counts));
    }
    let b = ctx.budget();
    let pk = &pk;
    let mut ops = Vec::new();
    for (i, (keys, policy, key, header, tk, rk, t, _)) in points.iter().enumerate() {
        let seeded = |k: u64| ChaCha20Rng::seed_from_u64(ctx.seed ^ (i as u64) << 8 ^ k);
        let (mut enc_rng, mut tk_rng) = (seeded(1), seeded(2));
        ops.push(Timed::new(keys[2].clone(), bits, b, move || {
            Waters11::<C>::encapsulate(pk, policy, &mut enc_rng)
        }));
        ops.push(Timed::new(keys[3].clone(), bits, b, || {
            Waters11::<C>::decapsulate(key, header)
        }));
        ops.push(Timed::new(keys[4].clone(), bits, b, move || {
            Waters11::<C>::transform_key(key, &mut tk_rng)
        }));
        ops.push(Timed::new(keys[5].clone(), bits, b, || {
            Waters11::<C>::transform(tk, header)
        }));
        ops.push(Timed::new(keys[6].clone(), bits, b, || {
            Waters11::<C>::decrypt_transformed(rk, t)
        }));
    }
    ctx.time_interleaved(&format!("{name} N={pts:?}"), pts.len() as u64, ops);
    for (keys, .., counts) in &points {
        for (k, c) in keys[3..].iter().zip(counts) {
            ctx.attach_ops(k, c);
        }
    }
    Ok(())
}

/// Op counts of decrypt, tk-keygen, transform, final-decrypt at `n`.
fn counts<C: Curve>(n: usize, seed: u64) -> Result<[OpCounts; 4], LabError> {
    type W<C> = Waters11<Counted<C>>;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let (pk, mk) = W::<C>::setup(&Default::default(), &mut rng).unwrap();
    let policy = generate::flat_and(n).map_err(fail)?;
    let set = AttributeSet::from_names(policy.attributes()).map_err(fail)?;
    let key = W::<C>::keygen(&pk, &mk, &set, &mut rng).map_err(fail)?;
    let (_, header) = W::<C>::encapsulate(&pk, &policy, &mut rng).map_err(fail)?;
    let (_, dec) = OpCounts::measure(|| W::<C>::decapsulate(&key, &header));
    let ((tk, rk), tkg) = OpCounts::measure(|| W::<C>::transform_key(&key, &mut rng));
    let (t, tr) = OpCounts::measure(|| W::<C>::transform(&tk, &header));
    let t = t.map_err(fail)?;
    let (_, fin) = OpCounts::measure(|| W::<C>::decrypt_transformed(&rk, &t));
    Ok([dec, tkg, tr, fin])
}

fn rsa(ctx: &mut Ctx) -> Result<(), LabError> {
    ctx.tick("rsa-1024");
    let key = ctx.key("rsa-1024", "rsa", "decrypt", "", 0.0, "pkcs1v15");
    if ctx.done(std::slice::from_ref(&key)) {
        return Ok(());
    }
    let sk = rsa_ops::keygen(1024, ctx.seed).map_err(fail)?;
    let mut rng = ChaCha20Rng::seed_from_u64(ctx.seed);
    let ct = rsa_ops::encrypt(&sk.to_public_key(), &[7u8; 16], &mut rng).map_err(fail)?;
    let b = ctx.budget();
    ctx.time(key, 80, b, || rsa_ops::decrypt(&sk, &ct));
    Ok(())
}

pub fn report(rows: &[Row], r: &ReportCtx) -> Section {
    let p = paper("ghw11").expect("ghw11 is a paper of the lab");
    let published = |op: &str, setting: &str| {
        p.find(|v| v.operation == op && v.setting == setting && v.source.starts_with("Fig. 8"))
            .first()
            .and_then(published_base)
    };
    let paper_ct100 = published("ct-bytes", "mnt224");
    let paper_partial = published("partial-ct-bytes", "mnt224");
    let paper_dec100 = published("decrypt", "mnt224-intel");
    let paper_final = published("final-decrypt", "mnt224-intel");
    let paper_rsa = p
        .find(|v| v.scheme == "rsa-1024")
        .first()
        .and_then(published_base);

    let mut tables = Vec::new();
    let mut t = compare_table(
        "ghw11-fig8-stated",
        "Fig. 8: the numbers the paper states (Intel, MNT224) vs ours at N = 100",
    );
    for c in CURVES {
        let cn = c.name();
        let v = |op| value(rows, SCHEME, cn, op, 100.0);
        t.rows.push(compare_row(
            format!("ABE ciphertext, N = 100 ({cn})"),
            paper_ct100,
            v("ct-bytes"),
            "B",
        ));
        t.rows.push(compare_row(
            format!("partially decrypted ciphertext ({cn})"),
            paper_partial,
            v("partial-ct-bytes"),
            "B",
        ));
        t.rows.push(compare_row(
            format!("decryption, N = 100 ({cn})"),
            paper_dec100,
            v("decrypt"),
            "ms",
        ));
        t.rows.push(compare_row(
            format!("final decryption ({cn})"),
            paper_final,
            v("final-decrypt"),
            "ms",
        ));
    }
    let rsa_ours = value(rows, "rsa-1024", "rsa", "decrypt", 0.0);
    t.rows.push(compare_row(
        "RSA-1024 decryption (OpenSSL 1.0 vs RustCrypto rsa)".into(),
        paper_rsa,
        rsa_ours,
        "ms",
    ));
    t.note = "Our ciphertext sizes are whole encoded headers (preamble, policy text, setup id) in the KEM form, as the paper's; the paper's curve is a 224-bit MNT curve on a 3 GHz Core Duo.".into();
    tables.push(t);

    let mut sp = Table::new(
        "ghw11-fig8-speedup",
        "Outsourcing at each N: local decryption vs the proxy's transform and the client's final decryption",
        &["curve", "N", "decrypt", "transform", "final decrypt", "decrypt / final", "pairings in decrypt (Miller loops + final exps)"],
    );
    for c in CURVES {
        let cn = c.name();
        for (x, dec) in series(rows, SCHEME, cn, "decrypt", None) {
            let tr = value(rows, SCHEME, cn, "transform", x);
            let fin = value(rows, SCHEME, cn, "final-decrypt", x);
            let ops = super::point(rows, SCHEME, cn, "decrypt", x)
                .and_then(|r| r.ops.as_ref())
                .map(|o| {
                    format!(
                        "{} + {}",
                        o.get("miller_loops").unwrap_or(&0),
                        o.get("final_exps").unwrap_or(&0)
                    )
                })
                .unwrap_or_default();
            sp.rows.push(vec![
                Cell::Text(cn.into()),
                Cell::Num(x, ""),
                Cell::Num(dec, "ms"),
                Cell::opt(tr, "ms"),
                Cell::opt(fin, "ms"),
                fin.map_or(Cell::Empty, |f| Cell::Num(dec / f, "×")),
                Cell::Text(ops),
            ]);
        }
    }
    tables.push(sp);

    let mut figures = Vec::new();
    let panels: [(&str, &str, &str, Option<f64>, bool); 6] = [
        (
            "ct-bytes",
            "ABE ciphertext size",
            "bytes",
            paper_ct100,
            false,
        ),
        (
            "partial-ct-bytes",
            "Partially decrypted ciphertext size",
            "bytes",
            paper_partial,
            true,
        ),
        (
            "decrypt",
            "ABE decryption time",
            "time (ms)",
            paper_dec100,
            false,
        ),
        (
            "tk-keygen",
            "Outsourcing keygen (time)",
            "time (ms)",
            None,
            false,
        ),
        ("transform", "Transform (time)", "time (ms)", None, false),
        (
            "final-decrypt",
            "Final decryption (time)",
            "time (ms)",
            paper_final,
            true,
        ),
    ];
    for (op, title, unit, paper_v, constant) in panels {
        let mut f = Figure::new(
            format!("ghw11-fig8-{op}"),
            format!("GHW11 Fig. 8 — {title}"),
            "attributes in the policy (N)",
            unit,
        );
        if op == "decrypt" {
            // The paper's ~2 s on MNT224 against our milliseconds: on a
            // linear axis ours would be a flat line at zero.
            f = f.log(false, true);
        }
        for c in CURVES {
            f.line(
                format!("ours, {}", c.name()),
                series(rows, SCHEME, c.name(), op, None),
                false,
            );
        }
        if let Some(v) = paper_v {
            let pts = if constant {
                vec![(1.0, v), (100.0, v)]
            } else {
                vec![(100.0, v)]
            };
            f.line("paper (Intel, MNT224, as stated in the text)", pts, true);
        }
        figures.push(f);
    }

    tables.push(super::ghw11_fig9::table(rows, p));
    let mut claims = claims(rows, paper_rsa, rsa_ours);
    claims.push(super::ghw11_fig9::limited_devices_claim(rows, &r.devices));
    Section {
        experiment: "ghw11-fig8",
        paper: p,
        intro: "Waters11 CP-ABE in KEM form with GHW11's CPA outsourcing (backwards-compatible TK = key^{1/z}); flat AND policies A1 ∧ … ∧ AN, the key holds exactly A1…AN; the same N-attribute key decrypts every ciphertext (its G2 lines cached). Sizes are exact encoded byte counts.".into(),
        tables,
        figures,
        claims,
        notes: vec!["The paper's Fig. 8 gives curves only; the values above are the ones its text states. Its ARM (iPhone 3G) series needs that phone or its per-operation costs, which the paper does not publish; the lab's one constrained board with costs (the RE-Mote) stands in for the limited-device claim. `cargo run --release -p abbe-proxy --example ihealthehr` prints the Fig. 9 reads for a larger record.".into(), "Not judged here, for want of the hardware: §6.1 \"decrypting a 100-component ciphertext policy on the ARM processor required nearly 30 seconds\" needs the iPhone 3G (412 MHz ARM) or its per-operation costs; §6.2's proxy launch times (93 s cold, 45 s from pause) are Amazon EC2's.".into()],
        decided_by: Vec::new(),
        under_load: (0, 0),
        heading: None,
    }
}

/// "Minimal" and "constant" in this paper's claims: within 10 % beyond the
/// measurements' noise (one tolerance for the sibling claims).
const MINIMAL: f64 = 1.10;

/// A noticeable saving on a PC (the paper's own figures: 4 ms final
/// decryption against ~200 ms local decryption at N = 10).
const NOTICEABLE_MS: f64 = 10.0;

fn claims(rows: &[Row], paper_rsa: Option<f64>, rsa_ours: Option<f64>) -> Vec<Claim> {
    vec![
        advantage_from_10(rows),
        outsourcing_reduces(rows),
        partial_ct_fixed_size(rows),
        linear(rows),
        final_decrypt_constant(rows),
        bandwidth(rows),
        self_outsourcing(rows),
        rsa_orders_of_magnitude(rows, paper_rsa, rsa_ours),
    ]
}

/// 10-attribute advantage: the first N with a 2× advantage, and the first
/// with a saving a user notices (≥ 10 ms), which hardware moves.
fn advantage_from_10(rows: &[Row]) -> Claim {
    let mut ev = Vec::new();
    let mut vs = Vec::new();
    for c in CURVES {
        let cn = c.name();
        let dec = series(rows, SCHEME, cn, "decrypt", None);
        let advantage = |x: f64, min_ms: f64| -> bool {
            let (Some(d), Some(f)) = (
                measured(rows, SCHEME, cn, "decrypt", x),
                measured(rows, SCHEME, cn, "final-decrypt", x),
            ) else {
                return false;
            };
            let ((lo, _), (_, fhi)) = (d.bounds(), f.bounds());
            lo - fhi >= min_ms && lo >= 2.0 * fhi
        };
        let from = |min_ms: f64| dec.iter().map(|p| p.0).find(|x| advantage(*x, min_ms));
        let (Some(_), twice, noticeable) = (dec.first(), from(0.0), from(NOTICEABLE_MS)) else {
            continue;
        };
        let at10 = value(rows, SCHEME, cn, "decrypt", 10.0)
            .zip(value(rows, SCHEME, cn, "final-decrypt", 10.0))
            .map_or(String::new(), |(d, f)| {
                format!(" (at N = 10: ×{:.1}, {:.2} ms saved)", d / f, d - f)
            });
        let n =
            |f: Option<f64>| f.map_or("— (never up to the largest N)".into(), |f| f.to_string());
        ev.push(format!(
            "{cn}: ≥ 2× from N = {}, and a saving of ≥ {NOTICEABLE_MS} ms from N = {}{at10}",
            n(twice),
            n(noticeable)
        ));
        vs.push(match (twice, noticeable) {
            (_, Some(f)) if f <= 10.0 => Verdict::Holds,
            (Some(t), _) if t <= 10.0 => Verdict::Depends,
            _ => Verdict::DoesNotHold,
        });
    }
    Claim {
        id: "advantage-from-10",
        verdict: judge::combine(&vs),
        evidence: judge::with_points(&vs, format!("{}. Depends: the advantage is there from N ≤ 10, but how many milliseconds it saves is the hardware's (the paper's 2011 Intel machine saved ~200 ms at N = 10)", ev.join("; "))),
        ..Claim::STATED
    }
}

fn outsourcing_reduces(rows: &[Row]) -> Claim {
    // Outsourcing reduces both size and final decryption time.
    let mut vs = Vec::new();
    let mut not = Vec::new();
    for c in CURVES {
        let cn = c.name();
        for (x, ct) in series(rows, SCHEME, cn, "ct-bytes", None) {
            let (Some(p), Some(d), Some(f)) = (
                value(rows, SCHEME, cn, "partial-ct-bytes", x),
                measured(rows, SCHEME, cn, "decrypt", x),
                measured(rows, SCHEME, cn, "final-decrypt", x),
            ) else {
                continue;
            };
            let size = judge::check(2.0 * p <= ct);
            let time = judge::at_least(d.ratio(f), 2.0);
            let v = judge::combine(&[size, time]);
            if v != Verdict::Holds {
                not.push(format!(
                    "{cn} N = {x}: {p:.0} B vs {ct:.0} B, {:.3} ms vs {:.3} ms",
                    f.value, d.value
                ));
            }
            vs.push(v);
        }
    }
    Claim {
        id: "outsourcing-reduces",
        verdict: judge::combine(&vs),
        evidence: format!(
            "{}{}",
            judge::tally(&vs),
            if not.is_empty() {
                String::new()
            } else {
                format!("; not at: {}", not.join(", "))
            }
        ),
        ..Claim::STATED
    }
}

fn partial_ct_fixed_size(rows: &[Row]) -> Claim {
    // Constant partially decrypted size.
    let mut ev = Vec::new();
    let mut vs = Vec::new();
    for c in CURVES {
        let s = series(rows, SCHEME, c.name(), "partial-ct-bytes", None);
        if s.is_empty() {
            continue;
        }
        let same = s.iter().all(|p| p.1 == s[0].1);
        ev.push(format!(
            "{}: {} bytes at every N{}",
            c.name(),
            s[0].1,
            if same { "" } else { " — NOT constant" }
        ));
        vs.push(judge::check(same));
    }
    Claim {
        id: "partial-ct-fixed-size",
        verdict: judge::combine(&vs),
        evidence: judge::with_points(&vs, ev.join("; ")),
        ..Claim::STATED
    }
}

fn linear(rows: &[Row]) -> Claim {
    // Linear in N.
    let mut ev = Vec::new();
    let mut vs = Vec::new();
    for c in CURVES {
        for (op, min_r2) in [("ct-bytes", 0.99), ("decrypt", 0.98), ("transform", 0.98)] {
            // Sizes as they are; times as CPU time, the work, which other
            // processes on the machine do not bend.
            let pts = if op == "ct-bytes" {
                series(rows, SCHEME, c.name(), op, None)
            } else {
                super::cpu_series(rows, SCHEME, c.name(), op, None)
            };
            if let Some((slope, icpt, r2)) = linear_fit(&pts) {
                ev.push(format!(
                    "{} {op}: {slope:.3}/attribute + {icpt:.2}, R² = {r2:.4}",
                    c.name()
                ));
                vs.push(judge::check(r2 >= min_r2));
            }
        }
    }
    Claim {
        id: "linear",
        verdict: judge::combine(&vs),
        evidence: judge::with_points(&vs, ev.join("; ")),
        ..Claim::STATED
    }
}

fn final_decrypt_constant(rows: &[Row]) -> Claim {
    // Final decryption constant in N.
    let mut ev = Vec::new();
    let mut vs = Vec::new();
    for c in CURVES {
        let xy = series(rows, SCHEME, c.name(), "final-decrypt", None);
        // The trend over N, not the extremes: with 100 points the slowest
        // and the fastest differ by noise alone. Its noise is the fit's
        // (two standard errors of the slope), not one point's spread.
        let (Some(line), Some(first), Some(last)) = (Line::fit(&xy), xy.first(), xy.last()) else {
            continue;
        };
        let mean = xy.iter().map(|p| p.1).sum::<f64>() / xy.len() as f64;
        let range = last.0 - first.0;
        let change = line.slope.abs() * range / mean;
        let noise = 2.0 * line.slope_se * range / mean;
        let (lo, hi) = xy
            .iter()
            .fold((f64::INFINITY, 0.0f64), |a, p| (a.0.min(p.1), a.1.max(p.1)));
        vs.push(judge::at_most(
            Measured::timing(1.0 + change, noise),
            MINIMAL,
        ));
        ev.push(format!(
            "{}: the fitted trend of final decryption changes it by {:.1} % ± {:.1} % from N = {} to {} (points {lo:.3}–{hi:.3} ms)",
            c.name(),
            change * 100.0,
            noise * 100.0,
            first.0,
            last.0,
        ));
        let dec = series(rows, SCHEME, c.name(), "decrypt", None);
        let grow = dec.last().map(|l| l.1 / dec[0].1).unwrap_or(f64::NAN);
        ev.push(format!(
            "{}: local decryption grows ×{grow:.1} from N = {} to {}",
            c.name(),
            dec[0].0,
            dec.last().map_or(0.0, |l| l.0)
        ));
    }
    Claim {
        id: "final-decrypt-constant",
        verdict: judge::combine(&vs),
        evidence: judge::with_points(&vs, ev.join("; ")),
        ..Claim::STATED
    }
}

fn bandwidth(rows: &[Row]) -> Claim {
    // Bandwidth: from which N is the transformed ciphertext ≥ 5× smaller?
    let mut ev = Vec::new();
    let mut vs = Vec::new();
    for c in CURVES {
        let ct = series(rows, SCHEME, c.name(), "ct-bytes", None);
        let small = |x: f64| value(rows, SCHEME, c.name(), "partial-ct-bytes", x);
        let from = ct
            .iter()
            .find(|(x, b)| small(*x).is_some_and(|pb| pb * 5.0 <= *b))
            .map(|p| p.0);
        let at = |n: f64| {
            ct.iter()
                .find(|p| p.0 == n)
                .map(|p| (p.1, small(n).unwrap_or(f64::NAN)))
        };
        if let (Some((b10, p10)), Some((b100, p100))) = (at(10.0), at(100.0)) {
            ev.push(format!(
                "{}: ABE ciphertext / transformed = {b10:.0} B / {p10:.0} B (×{:.1}) at N = 10 and {b100:.0} B / {p100:.0} B (×{:.0}) at N = 100; ≥ 5× smaller from N = {}",
                c.name(),
                b10 / p10,
                b100 / p100,
                from.map_or("never".into(), |f| f.to_string())
            ));
            vs.push(match from {
                Some(f) if f <= 10.0 => Verdict::Holds,
                Some(_) => Verdict::Depends,
                None => Verdict::DoesNotHold,
            });
        }
    }
    Claim {
        id: "bandwidth",
        verdict: judge::combine(&vs),
        evidence: judge::with_points(&vs, format!("{}. The transformed ciphertext is mostly GT elements, which our format writes in 384 B on BN254 (uncompressed) and 288 B on BLS12-381 (torus-compressed), so the curves reach 5× at different N", ev.join("; "))),
        ..Claim::STATED
    }
}

fn self_outsourcing(rows: &[Row]) -> Claim {
    // Self-outsourcing overhead, every point judged alike, with the noise of
    // the medians (the ratio sits near its threshold over a range of N).
    let mut ev = Vec::new();
    let mut vs = Vec::new();
    for c in CURVES {
        let at = |op, x| super::point(rows, SCHEME, c.name(), op, x).and_then(Measured::of_median);
        let mut worst = (0.0, 0.0);
        for (x, _) in series(rows, SCHEME, c.name(), "decrypt", None) {
            let (Some(d), Some(t), Some(f)) =
                (at("decrypt", x), at("transform", x), at("final-decrypt", x))
            else {
                continue;
            };
            let r = t.plus(f).ratio(d);
            vs.push(judge::at_most(r, MINIMAL));
            if r.value > worst.0 {
                worst = (r.value, x);
            }
        }
        if worst.1 > 0.0 {
            ev.push(format!(
                "{}: transform + final decryption is at most ×{:.2} of local decryption (N = {})",
                c.name(),
                worst.0,
                worst.1
            ));
        }
    }
    Claim {
        id: "self-outsourcing",
        verdict: judge::combine(&vs),
        evidence: format!("{}; {}", ev.join("; "), judge::tally(&vs)),
        ..Claim::STATED
    }
}

fn rsa_orders_of_magnitude(rows: &[Row], paper_rsa: Option<f64>, rsa_ours: Option<f64>) -> Claim {
    // RSA comparison.
    let dec100 = value(rows, SCHEME, "bls12-381", "decrypt", 100.0);
    let (v, e) = match (dec100, rsa_ours, paper_rsa) {
        (Some(d), Some(r), Some(pr)) => (
            if d / r >= 100.0 {
                Verdict::Holds
            } else if d / r < 10.0 {
                Verdict::DoesNotHold
            } else {
                Verdict::Depends
            },
            format!("ours: N = 100 decryption on BLS12-381 {d:.2} ms = ×{:.0} an RSA-1024 decryption ({r:.3} ms); the paper: ×{:.0} (2 s vs {pr} ms). The ratio is also the libraries': our ABE runs on blst's assembly, our RSA on the RustCrypto `rsa` crate (portable, constant-time), the paper's on OpenSSL, whose assembly RSA-1024 is about 3× faster than RustCrypto's on x86-64 (`openssl speed rsa1024`): with it the ratio would pass 100, so the verdict rests on the RSA library as much as on ABE", d / r, 2000.0 / pr),
        ),
        _ => (Verdict::Pending, "not measured".into()),
    };
    Claim {
        id: "rsa-orders-of-magnitude",
        verdict: v,
        evidence: e,
        ..Claim::STATED
    }
}

#[cfg(test)]
mod tests {
    use super::super::synth::{sized, timed, verdict};
    use super::*;
    use Verdict::*;

    const C: &str = "bls12-381";

    /// Rows at N = 1, 10, 100: decryption d·N ms, final decryption f ms,
    /// transform t·N ms, ABE ciphertext 300·N B, transformed 600 B.
    fn rows(d: f64, f: f64, t: f64) -> Vec<Row> {
        let mut v = Vec::new();
        for n in [1.0, 10.0, 100.0] {
            v.push(timed(SCHEME, C, "decrypt", n, "", d * n));
            v.push(timed(SCHEME, C, "final-decrypt", n, "", f));
            v.push(timed(SCHEME, C, "transform", n, "", t * n));
            v.push(sized(SCHEME, C, "ct-bytes", n, "", 300 * n as u64));
            v.push(sized(SCHEME, C, "partial-ct-bytes", n, "", 600));
        }
        v
    }

    fn claim(rows: &[Row], id: &str) -> Verdict {
        verdict(&claims(rows, None, None), id)
    }

    #[test]
    fn advantage_from_10_takes_each_outcome() {
        // 2011's PC: 20 ms per attribute against a 4 ms final step.
        assert_eq!(claim(&rows(20.0, 4.0, 19.0), "advantage-from-10"), Holds);
        // Ours: 0.15 ms per attribute — ×5 at N = 10, but 1.2 ms saved.
        assert_eq!(claim(&rows(0.15, 0.3, 0.14), "advantage-from-10"), Depends);
        // No 2× advantage by N = 10.
        assert_eq!(
            claim(&rows(0.01, 0.3, 0.01), "advantage-from-10"),
            DoesNotHold
        );
        assert_eq!(claim(&[], "advantage-from-10"), Pending);
    }

    #[test]
    fn outsourcing_reduces_is_false_at_n_1() {
        assert_eq!(
            claim(&rows(20.0, 4.0, 19.0), "outsourcing-reduces"),
            Depends
        );
        let mut big = rows(20.0, 4.0, 19.0);
        big.retain(|r| r.x >= 10.0);
        assert_eq!(claim(&big, "outsourcing-reduces"), Holds);
        let mut small = rows(0.001, 4.0, 0.001);
        small.retain(|r| r.x == 1.0);
        assert_eq!(claim(&small, "outsourcing-reduces"), DoesNotHold);
        let ev = claims(&small, None, None)
            .into_iter()
            .find(|c| c.id == "outsourcing-reduces")
            .unwrap()
            .evidence;
        assert!(ev.contains("; not at: "), "{ev}");
    }

    #[test]
    fn self_outsourcing_and_constant_final_decrypt_share_one_tolerance() {
        assert_eq!(claim(&rows(1.0, 0.01, 1.0), "self-outsourcing"), Holds);
        assert_eq!(
            claim(&rows(1.0, 0.01, 1.5), "self-outsourcing"),
            DoesNotHold
        );
        assert_eq!(
            claim(&rows(1.0, 0.01, 1.1), "self-outsourcing"),
            WithinNoise
        );
        let mut v = rows(1.0, 1.0, 1.0);
        assert_eq!(claim(&v, "final-decrypt-constant"), Holds);
        v.iter_mut()
            .filter(|r| r.operation == "final-decrypt" && r.x == 100.0)
            .for_each(|r| r.median_ms = Some(1.5));
        assert_eq!(claim(&v, "final-decrypt-constant"), DoesNotHold);
    }

    #[test]
    fn linearity_takes_each_outcome() {
        // Linear at N = 1, 10, 100 (plus a fourth point, for a fit).
        let mut v = rows(1.0, 1.0, 1.0);
        v.push(timed(SCHEME, C, "decrypt", 50.0, "", 50.0));
        v.push(timed(SCHEME, C, "transform", 50.0, "", 50.0));
        v.push(sized(SCHEME, C, "ct-bytes", 50.0, "", 15_000));
        assert_eq!(claim(&v, "linear"), Holds);
        // Decryption flat then jumping: not linear, while sizes still are.
        let jump = |r: &mut Row| {
            if r.operation != "ct-bytes" && r.x >= 50.0 {
                r.cpu_ms = Some(r.x.powi(3));
            }
        };
        let mut bent = v.clone();
        bent.iter_mut().for_each(jump);
        assert_eq!(claim(&bent, "linear"), Depends);
        // And every fit bent, sizes too.
        for r in bent
            .iter_mut()
            .filter(|r| r.operation == "ct-bytes" && r.x >= 50.0)
        {
            r.bytes = Some((r.x as u64).pow(3));
        }
        assert_eq!(claim(&bent, "linear"), DoesNotHold);
        assert_eq!(claim(&[], "linear"), Pending);
    }

    #[test]
    fn size_claims_take_each_outcome() {
        assert_eq!(claim(&rows(1.0, 1.0, 1.0), "partial-ct-fixed-size"), Holds);
        let mut v = rows(1.0, 1.0, 1.0);
        v.iter_mut()
            .filter(|r| r.operation == "partial-ct-bytes" && r.x == 100.0)
            .for_each(|r| r.bytes = Some(700));
        assert_eq!(claim(&v, "partial-ct-fixed-size"), DoesNotHold);
        // 300·N B against 600 B: ≥ 5× smaller from N = 10; against 700 B
        // only from N = 100.
        assert_eq!(claim(&rows(1.0, 1.0, 1.0), "bandwidth"), Holds);
        v.iter_mut()
            .filter(|r| r.operation == "partial-ct-bytes")
            .for_each(|r| r.bytes = Some(700));
        assert_eq!(claim(&v, "bandwidth"), Depends);
        let r = |d| {
            verdict(
                &claims(
                    &[timed(SCHEME, C, "decrypt", 100.0, "", d)],
                    Some(1.7),
                    Some(1.0),
                ),
                "rsa-orders-of-magnitude",
            )
        };
        assert_eq!(r(500.0), Holds);
        assert_eq!(r(50.0), Depends);
        assert_eq!(r(5.0), DoesNotHold);
    }
}
