//! detabe: digital envelopes for cloud file sharing — time to secure a file
//! (ABE encapsulation of a fresh key + the envelope's streamed AES-GCM over
//! the file) for 1 KB, 1 MB, 10 MB (and 100 MB in the full profile), with
//! flat AND policies of 1–4 attributes, BSW07 (DET-ABE's tree) vs Waters11
//! (AES4SeC's LSSS matrix), at each security level abbe supports; the median
//! of 31 runs as the paper. Figs. 4–7.
//!
//! Levels: the paper pairs AES-128/192/256 with BN curves of 256/640/1280
//! bits. abbe's envelope is AES-256-GCM on BN254 (~100-bit) and BLS12-381
//! (~120-bit); the 192- and 256-bit levels and signing (AES4SeC's full
//! form, Fig. 7) come with the envelope issue and are shown as pending.

use super::{fail, published_base, verdict_of, CURVES};
use crate::harness::Budget;
use crate::papers::paper;
use crate::plot::Figure;
use crate::record::Row;
use crate::report::{Cell, Claim, Section, Table, Verdict};
use crate::{for_each_curve, Ctx, LabError, Profile, ReportCtx};
use abbe::abe::{Bsw07, Waters11};
use abbe::curve::Curve;
use abbe::envelope;
use abbe::policy::generate;
use abbe::wire::Encoded;
use abbe::Kem;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

const KB: usize = 1000;
const MB: usize = 1_000_000;

fn file_sizes(p: Profile) -> Vec<usize> {
    match p {
        Profile::Quick => vec![KB, MB, 10 * MB],
        Profile::Full => vec![KB, MB, 10 * MB, 100 * MB],
    }
}

/// The paper's statistic: the median of 31 runs.
const RUNS: u32 = 31;

pub fn measure(ctx: &mut Ctx) -> Result<(), LabError> {
    let sizes = file_sizes(ctx.profile);
    ctx.plan((sizes.len() * 2 * 2 * 4) as u64);
    let mut data = vec![0u8; *sizes.last().unwrap_or(&KB)];
    ChaCha20Rng::seed_from_u64(ctx.seed).fill_bytes(&mut data);
    for_each_curve!(ctx, C => curve::<C>(ctx, &sizes, &data));
    Ok(())
}

fn curve<C: Curve>(ctx: &mut Ctx, sizes: &[usize], data: &[u8]) -> Result<(), LabError> {
    let mut rng = ChaCha20Rng::seed_from_u64(ctx.seed ^ 0xde7);
    let (cp_pk, _) = Bsw07::<C>::setup(&mut rng);
    let (w_pk, _) = Waters11::<C>::setup(&mut rng);
    for &size in sizes {
        for attrs in 1..=4usize {
            let policy = generate::flat_and(attrs).map_err(fail)?;
            secure::<Bsw07<C>>(
                ctx,
                "bsw07",
                C::NAME,
                C::ID.security_bits(),
                &cp_pk,
                &policy,
                &data[..size],
                attrs,
            )?;
            secure::<Waters11<C>>(
                ctx,
                "waters11",
                C::NAME,
                C::ID.security_bits(),
                &w_pk,
                &policy,
                &data[..size],
                attrs,
            )?;
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn secure<K: Kem<CiphertextSide = abbe::policy::Policy>>(
    ctx: &mut Ctx,
    scheme: &str,
    curve: &str,
    bits: u32,
    pk: &K::PublicKey,
    policy: &abbe::policy::Policy,
    file: &[u8],
    attrs: usize,
) -> Result<(), LabError> {
    ctx.tick(format!("{scheme} {curve} {} B {attrs}A", file.len()));
    let params = format!("attributes={attrs};aes=256-gcm");
    let key = ctx.key(
        scheme,
        curve,
        "secure-file",
        "file_bytes",
        file.len() as f64,
        &params,
    );
    let size_key = ctx.key(
        scheme,
        curve,
        "envelope-bytes",
        "file_bytes",
        file.len() as f64,
        &params,
    );
    if ctx.done(&[key.clone(), size_key.clone()]) {
        return Ok(());
    }
    let mut rng = ChaCha20Rng::seed_from_u64(ctx.seed);
    let mut seal = || -> Result<u64, LabError> {
        let (session, header) = K::encapsulate(pk, policy, &mut rng).map_err(fail)?;
        let mut out = CountingSink(0);
        envelope::seal(&header.to_bytes(), &session, &mut rng, file, &mut out).map_err(fail)?;
        Ok(out.0)
    };
    let len = seal()?;
    ctx.time(key, bits, Budget::exactly(RUNS), &mut seal);
    ctx.bytes(size_key, bits, len as usize);
    Ok(())
}

/// Counts the bytes of the envelope without keeping them: the paper times
/// securing, not the disk.
struct CountingSink(u64);

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn secure_ms(rows: &[Row], scheme: &str, curve: &str, size: f64, attrs: usize) -> Option<f64> {
    rows.iter()
        .find(|r| {
            r.scheme == scheme
                && r.curve == curve
                && r.operation == "secure-file"
                && r.x == size
                && r.param("attributes") == Some(&attrs.to_string())
        })
        .and_then(|r| r.median_ms)
}

const SIZES: [f64; 4] = [1e3, 1e6, 1e7, 1e8];

fn size_label(s: f64) -> &'static str {
    match s as u64 {
        1_000 => "1 KB",
        1_000_000 => "1 MB",
        10_000_000 => "10 MB",
        _ => "100 MB",
    }
}

pub fn report(rows: &[Row], _r: &ReportCtx) -> Section {
    let p = paper("detabe").expect("detabe is a paper of the lab");
    let mut figures = Vec::new();
    for (fig, scheme, app) in [
        ("fig4", "bsw07", "DET-ABE (BSW07)"),
        ("fig5", "waters11", "AES4SeCi (Waters11)"),
    ] {
        let mut f = Figure::new(
            format!("detabe-{fig}"),
            format!("detabe Fig. {} — time to secure files, {app}", &fig[3..]),
            "file size (bytes)",
            "time (ms)",
        )
        .log(true, true);
        for c in CURVES {
            for attrs in 1..=4 {
                let pts: Vec<(f64, f64)> = SIZES
                    .iter()
                    .filter_map(|&s| secure_ms(rows, scheme, c.name(), s, attrs).map(|v| (s, v)))
                    .collect();
                f.line(format!("{} {attrs}A", c.name()), pts, false);
            }
        }
        figures.push(f);
    }
    let mut f6 = Figure::new(
        "detabe-fig6",
        "detabe Fig. 6 — DET-ABE (BSW07) vs AES4SeCi (Waters11), 4 attributes",
        "file size (bytes)",
        "time (ms)",
    )
    .log(true, true);
    for c in CURVES {
        for (s, app) in [("bsw07", "BSW07"), ("waters11", "Waters11")] {
            let pts: Vec<(f64, f64)> = SIZES
                .iter()
                .filter_map(|&sz| secure_ms(rows, s, c.name(), sz, 4).map(|v| (sz, v)))
                .collect();
            f6.line(format!("{app}, {}", c.name()), pts, false);
        }
    }
    figures.push(f6);

    let mut tables = Vec::new();
    let mut t = Table::new(
        "detabe-secure",
        "Figs. 4–6 — time to secure a file (median of 31 runs), 4 AND attributes",
        &[
            "level (curve)",
            "file",
            "DET-ABE: BSW07 + AES-256-GCM",
            "AES4SeCi: Waters11 + AES-256-GCM",
            "Waters11 / BSW07",
            "throughput (BSW07)",
        ],
    );
    for c in CURVES {
        for s in SIZES {
            let b = secure_ms(rows, "bsw07", c.name(), s, 4);
            let w = secure_ms(rows, "waters11", c.name(), s, 4);
            if b.is_none() && w.is_none() {
                continue;
            }
            t.rows.push(vec![
                Cell::Text(format!("~{}-bit ({})", c.security_bits(), c.name())),
                Cell::Text(size_label(s).into()),
                Cell::opt(b, "ms"),
                Cell::opt(w, "ms"),
                match (w, b) {
                    (Some(w), Some(b)) => Cell::Num(w / b, "×"),
                    _ => Cell::Empty,
                },
                Cell::opt(b.map(|b| s / 1e6 / (b / 1e3)), "MB/s"),
            ]);
        }
    }
    for lvl in ["192-bit (AES-192 + BLS24)", "256-bit (AES-256 + BLS48)"] {
        t.rows.push(vec![
            Cell::Text(lvl.into()),
            Cell::Text("all".into()),
            Cell::Text("pending: curves of this level arrive with the envelope issue".into()),
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
        ]);
    }
    t.note = "Securing = encapsulating a fresh key under the policy + HKDF + AES-256-GCM STREAM over the file held in memory (64 KiB chunks, two worker threads), output counted, not written. The paper: Java 8 on a 2.5 GHz Core i7, AES-128/192/256 with BN curves of 256/640/1280 bits.".into();
    tables.push(t);
    let mut t7 = Table::new(
        "detabe-fig7",
        "Fig. 7 — impact of signing (AES4SeC vs AES4SeCi), 4 attributes",
        &[
            "level (curve)",
            "file",
            "unsigned (Waters11)",
            "signed",
            "overhead",
        ],
    );
    for c in CURVES {
        for s in SIZES {
            if let Some(w) = secure_ms(rows, "waters11", c.name(), s, 4) {
                t7.rows.push(vec![
                    Cell::Text(c.name().into()),
                    Cell::Text(size_label(s).into()),
                    Cell::Num(w, "ms"),
                    Cell::Text("pending: signatures arrive with the envelope issue".into()),
                    Cell::Empty,
                ]);
            }
        }
    }
    tables.push(t7);
    let mut tp = super::compare_table("detabe-stated", "The numbers the paper states vs ours");
    let stated = |op: &str| {
        p.find(|v| v.operation == op)
            .first()
            .and_then(published_base)
    };
    let top = CURVES
        .iter()
        .rev()
        .find(|c| secure_ms(rows, "bsw07", c.name(), 1e8, 4).is_some())
        .map(|c| c.name())
        .unwrap_or("bls12-381");
    tp.rows.push(super::compare_row(
        format!("DET-ABE, 100 MB, highest level, 4 attributes (paper: 256-bit; ours: {top})"),
        stated("secure-file"),
        secure_ms(rows, "bsw07", top, 1e8, 4),
        "ms",
    ));
    tables.push(tp);

    let claims = claims(rows);
    Section {
        experiment: "detabe",
        paper: p,
        intro: "DET-ABE is BSW07 + AES and AES4SeCi is Waters11 + AES; here both are abbe's envelope (the same AES-256-GCM STREAM) with the respective KEM, flat AND policies of 1–4 attributes (the paper's DET-ABE policies are nested 2-of-2 gates, semantically equal).".into(),
        tables,
        figures,
        claims,
        notes: vec!["100 MB files are measured by the full profile.".into()],
    }
}

fn claims(rows: &[Row]) -> Vec<Claim> {
    let mut out = Vec::new();
    // Attributes have no considerable impact.
    let mut ev = Vec::new();
    let mut ok = Vec::new();
    for c in CURVES {
        for s in ["bsw07", "waters11"] {
            for size in SIZES {
                let v: Vec<f64> = (1..=4)
                    .filter_map(|a| secure_ms(rows, s, c.name(), size, a))
                    .collect();
                if v.len() == 4 {
                    let spread = v.iter().copied().fold(0.0, f64::max)
                        - v.iter().copied().fold(f64::INFINITY, f64::min);
                    ok.push(spread <= 10.0);
                    if size >= 1e7 {
                        ev.push(format!(
                            "{s} {} {}: {spread:.2} ms",
                            c.name(),
                            size_label(size)
                        ));
                    }
                }
            }
        }
    }
    out.push(Claim {
        source: "§4.4".into(),
        text: "The number of attributes (1–4) has no considerable impact in absolute time (about 9 ms between 1 and 4 attributes for 100 MB at 192-bit).".into(),
        verdict: verdict_of(&ok),
        evidence: format!("spread (max − min over 1–4 attributes) ≤ 10 ms at {} of {} points; at the largest files: {}", ok.iter().filter(|b| **b).count(), ok.len(), ev.join(", ")),
    });
    // 1 KB .. 10 MB: no noticeable difference.
    let mut ok = Vec::new();
    let mut ev = Vec::new();
    for c in CURVES {
        for s in ["bsw07", "waters11"] {
            if let (Some(a), Some(b)) = (
                secure_ms(rows, s, c.name(), 1e3, 4),
                secure_ms(rows, s, c.name(), 1e7, 4),
            ) {
                ok.push(b - a < 100.0);
                ev.push(format!("{s} {}: 1 KB {a:.2} ms, 10 MB {b:.2} ms", c.name()));
            }
        }
    }
    out.push(Claim {
        source: "§4.4".into(),
        text: "Users will not notice differences when sharing files from 1 KB to 10 MB (the difference in performance is null).".into(),
        verdict: verdict_of(&ok),
        evidence: ev.join("; ") + " (not noticeable: < 100 ms)",
    });
    // Similar performance at the low level; the tree faster than the matrix.
    let mut ok = Vec::new();
    let mut ev = Vec::new();
    for c in CURVES {
        for size in SIZES {
            if let (Some(b), Some(w)) = (
                secure_ms(rows, "bsw07", c.name(), size, 4),
                secure_ms(rows, "waters11", c.name(), size, 4),
            ) {
                ok.push((w / b - 1.0).abs() <= 0.2);
                ev.push(format!("{} {}: ×{:.2}", c.name(), size_label(size), w / b));
            }
        }
    }
    out.push(Claim {
        source: "Abstract, §4.5".into(),
        text: "DET-ABE and AES4SeC have similar performance at low security levels (128-bit keys), with four attributes.".into(),
        verdict: verdict_of(&ok),
        evidence: format!("Waters11 / BSW07 time to secure: {} (similar: within ±20 %)", ev.join(", ")),
    });
    let mut ok = Vec::new();
    let mut ev = Vec::new();
    for c in CURVES {
        if let (Some(b), Some(w)) = (
            secure_ms(rows, "bsw07", c.name(), 1e3, 4),
            secure_ms(rows, "waters11", c.name(), 1e3, 4),
        ) {
            ok.push(b < w);
            ev.push(format!(
                "{}: BSW07 {b:.2} ms vs Waters11 {w:.2} ms",
                c.name()
            ));
        }
    }
    out.push(Claim {
        source: "§4.5".into(),
        text: "The tree structures of CP-ABE in DET-ABE (BSW07) perform better than the matrix implementation of AES4SeC (Waters11).".into(),
        verdict: verdict_of(&ok),
        evidence: ev.join("; ") + " (1 KB files, 4 attributes: the ABE part dominates)",
    });
    let t100 = secure_ms(rows, "bsw07", "bls12-381", 1e8, 4);
    out.push(Claim {
        source: "§4.4".into(),
        text: "Securing a 100 MB file at the high security level with DET-ABE and 4 attributes takes only 2.8 s (more than 20 files per minute).".into(),
        verdict: match t100 {
            Some(t) if t <= 2800.0 => Verdict::Holds,
            Some(_) => Verdict::DoesNotHold,
            None => Verdict::Pending,
        },
        evidence: t100.map_or("100 MB files are measured by the full profile; the 256-bit level arrives with the envelope issue".into(), |t| format!("BLS12-381 (our highest level today): {t:.0} ms = {:.0} files per minute", 60_000.0 / t)),
    });
    out.push(Claim {
        source: "§4.5".into(),
        text: "The impact of AES4SeC's signing is almost null at the minimum security level; the largest is 27 % at the high level for 100 MB files.".into(),
        verdict: Verdict::Pending,
        evidence: "signed envelopes arrive with the envelope issue (BLS signatures)".into(),
    });
    out
}
