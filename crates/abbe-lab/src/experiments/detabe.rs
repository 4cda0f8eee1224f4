//! detabe: digital envelopes for cloud file sharing — time to secure a file
//! (ABE encapsulation of a fresh key + the envelope's streamed AES-GCM over
//! the file) for 1 KB, 1 MB, 10 MB and 100 MB, with
//! flat AND policies of 1–4 attributes, BSW07 (DET-ABE's tree) vs Waters11
//! (AES4SeC's LSSS matrix), at each security level abbe supports; the median
//! of 31 runs as the paper. Figs. 4–7.
//!
//! Levels: the paper pairs AES-128/192/256 with BN curves of 256/640/1280
//! bits; abbe's `--level` pairs 100 → BN254 + AES-128-GCM, 128 → BLS12-381 +
//! AES-256-GCM, 192 → BLS24-479 + AES-192-GCM, 256 → BLS48-581 +
//! AES-256-GCM. AES4SeC's full form (Fig. 7) is AES4SeCi plus a signature:
//! here the envelope's BLS signature over the header and the whole file
//! (inside the encryption). At 192/256 the quick profile measures 4
//! attributes with 5 runs (their pairings and GT exponentiations are the
//! slowest of the grid), and 100 MB
//! files at 4 attributes with 3 runs; the full profile runs the paper's
//! grid and 31 runs everywhere.

use super::{fail, published_base};
use crate::harness::Budget;
use crate::judge::{self, Measured};
use crate::papers::paper;
use crate::plot::Figure;
use crate::record::Row;
use crate::report::{Cell, Claim, Section, Table, Verdict};
use crate::{Ctx, LabError, Profile, ReportCtx, Timed};
use abbe::abe::{Bsw07, Waters11};
use abbe::curve::{Curve, CurveId, Swapped};
use abbe::envelope::{self, Aead, SealOptions};
use abbe::kem::Authority;
use abbe::policy::generate;
use abbe::signature::{AnySigningKey, Bls};
use abbe::wire::Encoded;
use abbe::Kem;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::rc::Rc;

const KB: usize = 1000;
const MB: usize = 1_000_000;

fn file_sizes(p: Profile) -> Vec<usize> {
    match p {
        Profile::Quick | Profile::Full => vec![KB, MB, 10 * MB, 100 * MB],
    }
}

/// The paper's statistic: the median of 31 runs.
const RUNS: u32 = 31;

/// The security levels, lowest first.
const LEVELS: [CurveId; 4] = [
    CurveId::Bn254,
    CurveId::Bls12_381,
    CurveId::Bls24_479,
    CurveId::Bls48_581,
];

/// Scheme label of AES4SeC's complete, signed form.
const SIGNED: &str = "waters11+bls-sig";
/// Waters11 in the placement `--optimize encrypt` picks (G1 and G2
/// swapped: the per-attribute work of encryption in G1).
const SWAPPED: &str = "waters11-swapped";

/// Attribute counts and runs at a level and file size: the quick profile
/// measures only the 4-attribute point where the work is long (the high
/// levels' pairings, 100 MB files), with fewer runs — except the paper's
/// own case of §4.4 (192-bit, 100 MB, 1–4 attributes), a few seconds.
fn grid(p: Profile, curve: CurveId, size: usize) -> (std::ops::RangeInclusive<usize>, u32) {
    match p {
        Profile::Quick if size >= 100 * MB && curve == CurveId::Bls24_479 => (1..=4, 3),
        Profile::Quick if size >= 100 * MB => (4..=4, 3),
        Profile::Quick if curve.level() > 128 => (4..=4, 5),
        _ => (1..=4, RUNS),
    }
}

pub fn measure(ctx: &mut Ctx) -> Result<(), LabError> {
    let sizes = file_sizes(ctx.profile);
    let points: usize = LEVELS
        .iter()
        .filter(|c| ctx.wants(**c))
        .flat_map(|c| {
            sizes
                .iter()
                .map(|s| 2 * grid(ctx.profile, *c, *s).0.count() + 2)
        })
        .sum();
    ctx.plan(points as u64 + 1);
    let mut data = vec![0u8; *sizes.last().unwrap_or(&KB)];
    ChaCha20Rng::seed_from_u64(ctx.seed).fill_bytes(&mut data);
    // Every point of every level is prepared first and then timed
    // interleaved with the others: the comparisons across attributes,
    // schemes and levels are between points measured under the same
    // conditions.
    let mut ops = Vec::new();
    macro_rules! level {
        ($id:expr, $C:ty) => {
            if ctx.wants($id) {
                ops.extend(curve::<$C>(ctx, &sizes, &data)?);
            }
        };
    }
    level!(CurveId::Bn254, abbe::curve::Bn254);
    level!(CurveId::Bls12_381, abbe::curve::Bls12);
    level!(CurveId::Bls24_479, abbe::curve::Bls24);
    level!(CurveId::Bls48_581, abbe::curve::Bls48);
    ctx.time_interleaved("every level, size and scheme", 1, ops);
    Ok(())
}

fn curve<'a, C: Curve>(
    ctx: &mut Ctx,
    sizes: &[usize],
    data: &'a [u8],
) -> Result<Vec<Timed<'a>>, LabError> {
    let mut rng = ChaCha20Rng::seed_from_u64(ctx.seed ^ 0xde7);
    let (cp_pk, _) = Bsw07::<C>::setup(&Default::default(), &mut rng).unwrap();
    let (w_pk, _) = Waters11::<C>::setup(&Default::default(), &mut rng).unwrap();
    let (sw_pk, _) = Waters11::<Swapped<C>>::setup(&Default::default(), &mut rng).unwrap();
    let (cp_pk, w_pk, sw_pk) = (Rc::new(cp_pk), Rc::new(w_pk), Rc::new(sw_pk));
    let signer = AnySigningKey::from_bytes(&Bls::<C>::keygen(&mut rng).to_bytes()).map_err(fail)?;
    let signer = Rc::new(signer);
    let mut ops = Vec::new();
    for &size in sizes {
        let (attr_range, runs) = grid(ctx.profile, C::ID, size);
        for attrs in attr_range {
            let point = Point {
                policy: Rc::new(generate::flat_and(attrs).map_err(fail)?),
                file: &data[..size],
                attrs,
                runs,
                signer: None,
                curve: C::ID,
            };
            ops.extend(secure::<Bsw07<C>>(ctx, "bsw07", &cp_pk, &point)?);
            ops.extend(secure::<Waters11<C>>(ctx, "waters11", &w_pk, &point)?);
            if attrs == 4 {
                let signed = Point {
                    signer: Some(signer.clone()),
                    ..point.clone()
                };
                ops.extend(secure::<Waters11<C>>(ctx, SIGNED, &w_pk, &signed)?);
                ops.extend(secure::<Waters11<Swapped<C>>>(
                    ctx, SWAPPED, &sw_pk, &point,
                )?);
            }
        }
    }
    Ok(ops)
}

/// One measured point: a file, a policy, and whether to sign.
#[derive(Clone)]
struct Point<'a> {
    policy: Rc<abbe::policy::Policy>,
    file: &'a [u8],
    attrs: usize,
    runs: u32,
    signer: Option<Rc<AnySigningKey>>,
    curve: CurveId,
}

/// Records the envelope's size of one point and returns its timing.
fn secure<'a, K: Kem<CiphertextSide = abbe::policy::Policy>>(
    ctx: &mut Ctx,
    scheme: &str,
    pk: &Rc<K::PublicKey>,
    p: &Point<'a>,
) -> Result<Option<Timed<'a>>, LabError>
where
    K::PublicKey: 'a,
{
    let curve = p.curve;
    let bits = curve.security_bits();
    let file = p.file;
    ctx.tick(format!(
        "{scheme} {} {} B {}A",
        curve.name(),
        file.len(),
        p.attrs
    ));
    let aead = Aead::for_curve(curve);
    let params = format!(
        "attributes={};aes={}",
        p.attrs,
        aead.name().to_ascii_lowercase()
    );
    let key = ctx.key(
        scheme,
        curve.name(),
        "secure-file",
        "file_bytes",
        file.len() as f64,
        &params,
    );
    let size_key = ctx.key(
        scheme,
        curve.name(),
        "envelope-bytes",
        "file_bytes",
        file.len() as f64,
        &params,
    );
    if ctx.done(&[key.clone(), size_key.clone()]) {
        return Ok(None);
    }
    let mut rng = ChaCha20Rng::seed_from_u64(ctx.seed);
    let (pk, policy, signer) = (pk.clone(), p.policy.clone(), p.signer.clone());
    let mut seal = move || -> Result<u64, LabError> {
        let (session, header) = K::encapsulate(&pk, &policy, &mut rng).map_err(fail)?;
        let mut out = CountingSink(0);
        let options = SealOptions {
            aead: Some(aead),
            signer: signer.as_deref(),
        };
        envelope::seal_with(
            &header.to_bytes(),
            &session,
            &mut rng,
            file,
            &mut out,
            &options,
        )
        .map_err(fail)?;
        Ok(out.0)
    };
    let len = seal()?;
    ctx.bytes(size_key, bits, len as usize);
    Ok(Some(Timed::new(key, bits, Budget::exactly(p.runs), seal)))
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
    secure_m(rows, scheme, curve, size, attrs).map(|m| m.value)
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
        for c in LEVELS {
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
    for c in LEVELS {
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
        "Figs. 4–6 — time to secure a file at each security level, 4 AND attributes",
        &[
            "level (curve + AES)",
            "file",
            "DET-ABE: BSW07 envelope",
            "AES4SeCi: Waters11 envelope",
            "Waters11 / BSW07",
            "throughput (BSW07)",
            "Waters11, --optimize encrypt",
        ],
    );
    for c in LEVELS {
        for s in SIZES {
            let b = secure_ms(rows, "bsw07", c.name(), s, 4);
            let w = secure_ms(rows, "waters11", c.name(), s, 4);
            if b.is_none() && w.is_none() {
                continue;
            }
            t.rows.push(vec![
                Cell::Text(level_label(c)),
                Cell::Text(size_label(s).into()),
                Cell::opt(b, "ms"),
                Cell::opt(w, "ms"),
                match (w, b) {
                    (Some(w), Some(b)) => Cell::Num(w / b, "×"),
                    _ => Cell::Empty,
                },
                Cell::opt(b.map(|b| s / 1e6 / (b / 1e3)), "MB/s"),
                Cell::opt(secure_ms(rows, SWAPPED, c.name(), s, 4), "ms"),
            ]);
        }
    }
    t.note = "Securing = encapsulating a fresh key under the policy + HKDF + AES-GCM STREAM over the file held in memory (64 KiB chunks, on one thread like every lab timing), output counted, not written; median of 31 runs (in the quick profile 5 at 192/256, and 3 for 100 MB files, at 4 attributes only). The paper: Java 8 on a 2.5 GHz Core i7, AES-128/192/256 with BN curves of 256/640/1280 bits. The last column is AES4SeCi in the placement `abbe setup --optimize encrypt` picks (G1 and G2 swapped).".into();
    tables.push(t);
    let mut t7 = Table::new(
        "detabe-fig7",
        "Fig. 7 — impact of signing (AES4SeC vs AES4SeCi), 4 attributes",
        &[
            "level (curve + AES)",
            "file",
            "AES4SeCi: unsigned",
            "AES4SeC: signed",
            "overhead",
        ],
    );
    for c in LEVELS {
        for s in SIZES {
            if let (Some(w), Some(sg)) = (
                secure_ms(rows, "waters11", c.name(), s, 4),
                secure_ms(rows, SIGNED, c.name(), s, 4),
            ) {
                t7.rows.push(vec![
                    Cell::Text(level_label(c)),
                    Cell::Text(size_label(s).into()),
                    Cell::Num(w, "ms"),
                    Cell::Num(sg, "ms"),
                    Cell::Num((sg / w - 1.0) * 100.0, "%"),
                ]);
            }
        }
    }
    let mut f7 = Figure::new(
        "detabe-fig7",
        "detabe Fig. 7 — impact of signing: AES4SeCi (unsigned) vs AES4SeC (signed), 4 attributes",
        "file size (bytes)",
        "time (ms)",
    )
    .log(true, true);
    for c in LEVELS {
        for (scheme, what, dashed) in [("waters11", "unsigned", false), (SIGNED, "signed", true)] {
            let pts: Vec<(f64, f64)> = SIZES
                .iter()
                .filter_map(|&sz| secure_ms(rows, scheme, c.name(), sz, 4).map(|v| (sz, v)))
                .collect();
            f7.line(format!("{what}, {}", c.name()), pts, dashed);
        }
    }
    figures.push(f7);
    t7.note = "Signed: a BLS signature (min-sig, the level's curve) over the KEM header and the whole file, hashed with BLAKE3 up to 128-bit and SHA-512 above while the file streams, placed inside the encryption. AES4SeC signs a SHA-2 hash with a pairing-based short signature.".into();
    tables.push(t7);
    tables.push(table3(p));
    let mut tp = super::compare_table("detabe-stated", "The numbers the paper states vs ours");
    let stated = |op: &str| {
        p.find(|v| v.operation == op)
            .first()
            .and_then(published_base)
    };
    let top = LEVELS
        .iter()
        .rev()
        .find(|c| secure_ms(rows, "bsw07", c.name(), 1e8, 4).is_some())
        .map(|c| c.name())
        .unwrap_or("bls48-581");
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
        intro: "DET-ABE is BSW07 + AES and AES4SeCi is Waters11 + AES; here both are abbe's envelope (the same AES-GCM STREAM, key size after the level) with the respective KEM, flat AND policies of 1–4 attributes (the paper's DET-ABE policies are nested 2-of-2 gates, semantically equal). Levels as `abbe --level`: 100 = BN254 + AES-128, 128 = BLS12-381 + AES-256, 192 = BLS24-479 + AES-192, 256 = BLS48-581 + AES-256.".into(),
        tables,
        figures,
        claims,
        notes: vec!["The quick profile secures 100 MB files at 4 attributes only (3 runs), except at the 192-bit level, where §4.4 states its attribute claim (1–4 attributes); the paper's whole 1–4-attribute grid at 100 MB is the full profile's.".into(), "Tables 1 (a qualitative comparison: security model, access structure, services) and 2 (the SkyCDS cloud instances) hold no measurements, so there is nothing to regenerate; the paper measures only the file generator node.".into()],
        decided_by: Vec::new(),
        under_load: (0, 0),
        heading: None,
    }
}

/// Table 3: the paper's key and element sizes per level beside ours.
fn table3(p: &crate::papers::Paper) -> Table {
    fn bits<C: Curve>() -> [usize; 4] {
        use abbe::curve::{Group as _, Scalar as _, Target as _};
        [
            8 * <C::G1>::COMPRESSED_BYTES,
            8 * <C::G2>::COMPRESSED_BYTES,
            8 * <C::Gt>::BYTES,
            8 * <C::Scalar>::BYTES,
        ]
    }
    let mut t = Table::new(
        "detabe-table3",
        "Table 3 — key sizes per security level: the paper's BN (Type F) curves vs ours (bits)",
        &[
            "paper level",
            "paper AES",
            "paper G1 / G2 / GT / Zr",
            "our curve + AEAD",
            "our G1 / G2 / GT / Zr",
        ],
    );
    for (level, (label, c)) in ["aes-128", "aes-192", "aes-256"]
        .into_iter()
        .zip(PAPER_LEVELS)
    {
        let paper = |what: &str| {
            p.find(|v| {
                v.source == "Table 3" && v.setting == level && v.operation == format!("{what}-bits")
            })
            .first()
            .map(|v| format!("{:.0}", v.value))
            .unwrap_or_else(|| "—".into())
        };
        let ours = match c {
            CurveId::Bn254 => bits::<abbe::curve::Bn254>(),
            CurveId::Bls24_479 => bits::<abbe::curve::Bls24>(),
            _ => bits::<abbe::curve::Bls48>(),
        };
        t.rows.push(vec![
            Cell::Text(format!("{label} ({})", &level[4..])),
            Cell::Text(paper("aes-key")),
            Cell::Text(["g1", "g2", "gt", "zr"].map(paper).join(" / ")),
            Cell::Text(level_label(c)),
            Cell::Text(ours.map(|b| b.to_string()).join(" / ")),
        ]);
    }
    t.note = "The paper's Type F BN curves over 256/640/1280-bit fields, with uncompressed points (G1 = 2|q|); ours are BN254, BLS24-479 and BLS48-581 with compressed points (one coordinate and its flag bits) and GT in its full extension field. Our 128-bit level (BLS12-381 + AES-256-GCM) has no row in the paper.".into();
    t
}

fn level_label(c: CurveId) -> String {
    format!(
        "{} ({} + {})",
        c.level(),
        c.name(),
        Aead::for_curve(c).name()
    )
}

fn secure_m(rows: &[Row], scheme: &str, curve: &str, size: f64, attrs: usize) -> Option<Measured> {
    rows.iter()
        .find(|r| {
            r.scheme == scheme
                && r.curve == curve
                && r.operation == "secure-file"
                && r.x == size
                && r.param("attributes") == Some(&attrs.to_string())
        })
        .and_then(Measured::of)
}

/// What a user of file sharing notices: a difference of 100 ms.
const NOTICEABLE_MS: f64 = 100.0;

/// Whether going from time `a` to time `b` stays below what a user
/// notices, beyond the noise of both.
fn unnoticeable(a: Measured, b: Measured) -> Verdict {
    let (diff, slack) = (b.value - a.value, b.value * b.noise + a.value * a.noise);
    if diff + slack < NOTICEABLE_MS {
        Verdict::Holds
    } else if diff - slack >= NOTICEABLE_MS {
        Verdict::DoesNotHold
    } else {
        Verdict::WithinNoise
    }
}

/// The paper's levels (minimum, medium, high) and ours.
const PAPER_LEVELS: [(&str, CurveId); 3] = [
    ("minimum", CurveId::Bn254),
    ("medium", CurveId::Bls24_479),
    ("high", CurveId::Bls48_581),
];

fn claims(rows: &[Row]) -> Vec<Claim> {
    vec![
        attributes_no_impact(rows),
        small_files_no_difference(rows),
        impact_at_100mb(rows),
        level_slowdowns_detabe(rows),
        level_slowdown_aes4seci(rows),
        similar_at_low_levels(rows),
        tree_beats_matrix(rows),
        detabe_surpasses_at_high_levels(rows),
        claim_100mb_in_2_8s(rows),
        signing_overhead(rows),
    ]
}

/// Attributes have no considerable impact "in terms of absolute time":
/// the extra time of 4 over 1 attributes against what a user notices.
fn attributes_no_impact(rows: &[Row]) -> Claim {
    let mut vs = Vec::new();
    let mut ev = Vec::new();
    for c in LEVELS {
        for s in ["bsw07", "waters11"] {
            for size in SIZES {
                if let (Some(a1), Some(a4)) = (
                    secure_m(rows, s, c.name(), size, 1),
                    secure_m(rows, s, c.name(), size, 4),
                ) {
                    vs.push(unnoticeable(a1, a4));
                    ev.push(format!(
                        "{s} {} {}: {:+.1} ms ({:+.0} %)",
                        c.name(),
                        size_label(size),
                        a4.value - a1.value,
                        (a4.value / a1.value - 1.0) * 100.0
                    ));
                }
            }
        }
    }
    let papers_case = secure_ms(rows, "bsw07", CurveId::Bls24_479.name(), 1e8, 1).is_some();
    Claim {
        id: "attributes-no-impact",
        verdict: if papers_case {
            judge::combine(&vs)
        } else {
            Verdict::Pending
        },
        evidence: judge::with_points(
            &vs,
            format!(
                "4 vs 1 attributes: {}{}",
                if ev.is_empty() {
                    "no file measured with 1 and 4 attributes".into()
                } else {
                    ev.join(", ")
                },
                if papers_case {
                    String::new()
                } else {
                    "; the paper's own case (192-bit, 100 MB, 1–4 attributes) is measured by the full profile".into()
                }
            ),
        ),
        ..Claim::STATED
    }
}

/// 1 KB .. 10 MB: no noticeable difference.
fn small_files_no_difference(rows: &[Row]) -> Claim {
    let mut vs = Vec::new();
    let mut ev = Vec::new();
    for c in LEVELS {
        for s in ["bsw07", "waters11"] {
            if let (Some(a), Some(b)) = (
                secure_m(rows, s, c.name(), 1e3, 4),
                secure_m(rows, s, c.name(), 1e7, 4),
            ) {
                vs.push(unnoticeable(a, b));
                ev.push(format!(
                    "{s} {}: 1 KB {:.2} ms, 10 MB {:.2} ms",
                    c.name(),
                    a.value,
                    b.value
                ));
            }
        }
    }
    Claim {
        id: "small-files-no-difference",
        verdict: judge::combine(&vs),
        evidence: judge::with_points(&vs, ev.join("; ")),
        ..Claim::STATED
    }
}

/// 100 MB is where the impact shows: in what a user notices, and, where
/// our AES keeps that below notice, relative to each level's own cost.
fn impact_at_100mb(rows: &[Row]) -> Claim {
    let mut vs = Vec::new();
    let mut ev = Vec::new();
    let mut dominant = Vec::new();
    for c in LEVELS {
        if let (Some(a), Some(b), Some(h)) = (
            secure_ms(rows, "waters11", c.name(), 1e3, 4),
            secure_ms(rows, "waters11", c.name(), 1e7, 4),
            secure_ms(rows, "waters11", c.name(), 1e8, 4),
        ) {
            vs.push(judge::check(
                b - a < NOTICEABLE_MS && h - b >= NOTICEABLE_MS,
            ));
            // The 100 MB step against the whole 1 KB operation (ABE and
            // signing): the file's size dominates where it is larger.
            if h - b >= a {
                dominant.push(c);
            }
            ev.push(format!(
                "{}: 1 KB {a:.1} ms; 1 KB → 10 MB {:+.0} ms, 10 MB → 100 MB {:+.0} ms (×{:.1} the 1 KB operation)",
                c.name(),
                b - a,
                h - b,
                (h - b) / a
            ));
        }
    }
    let relative = PAPER_LEVELS[..2].iter().all(|(_, c)| dominant.contains(c));
    let verdict = match judge::combine(&vs) {
        Verdict::DoesNotHold if relative => Verdict::Depends,
        v => v,
    };
    Claim {
        id: "impact-at-100mb",
        verdict,
        evidence: if ev.is_empty() {
            "no 100 MB file measured yet".into()
        } else {
            judge::with_points(&vs, format!("{}. Judged first against what a user notices ({NOTICEABLE_MS} ms), as the claims above; where our AES keeps every 100 MB step below that, the paper's pattern is looked for relative to each level's cost: the 100 MB step outweighs the whole 1 KB operation at {} of the minimum and medium levels{}", ev.join("; "), if relative { "both" } else { "not both" }, if relative { " (so: depends on the AES's speed)" } else { "" }))
        },
        ..Claim::STATED
    }
}

/// Similar performance at the low level.
fn similar_at_low_levels(rows: &[Row]) -> Claim {
    let mut vs = Vec::new();
    let mut ev = Vec::new();
    for c in LEVELS.into_iter().filter(|c| c.level() <= 128) {
        for size in SIZES {
            if let (Some(b), Some(w)) = (
                secure_m(rows, "bsw07", c.name(), size, 4),
                secure_m(rows, "waters11", c.name(), size, 4),
            ) {
                vs.push(judge::within(w.ratio(b), 0.8, 1.2));
                ev.push(format!(
                    "{} {}: ×{:.2}",
                    c.name(),
                    size_label(size),
                    w.value / b.value
                ));
            }
        }
    }
    Claim {
        id: "similar-at-low-levels",
        verdict: judge::combine(&vs),
        evidence: judge::with_points(
            &vs,
            format!("Waters11 / BSW07 time to secure: {}", ev.join(", ")),
        ),
        ..Claim::STATED
    }
}

fn tree_beats_matrix(rows: &[Row]) -> Claim {
    let mut vs = Vec::new();
    let mut ev = Vec::new();
    for c in LEVELS {
        if let (Some(b), Some(w)) = (
            secure_m(rows, "bsw07", c.name(), 1e3, 4),
            secure_m(rows, "waters11", c.name(), 1e3, 4),
        ) {
            vs.push(judge::less(b, w));
            ev.push(format!(
                "{}: BSW07 {:.2} ms vs Waters11 {:.2} ms",
                c.name(),
                b.value,
                w.value
            ));
        }
    }
    Claim {
        id: "tree-beats-matrix",
        verdict: judge::combine(&vs),
        evidence: judge::with_points(
            &vs,
            ev.join("; ") + " (1 KB files, 4 attributes: the ABE part dominates)",
        ),
        ..Claim::STATED
    }
}

/// At 192/256 the tree beats the matrix by more than a quarter.
fn detabe_surpasses_at_high_levels(rows: &[Row]) -> Claim {
    let mut vs = Vec::new();
    let mut ev = Vec::new();
    for c in LEVELS.into_iter().filter(|c| c.level() > 128) {
        for size in SIZES {
            if let (Some(b), Some(w)) = (
                secure_m(rows, "bsw07", c.name(), size, 4),
                secure_m(rows, "waters11", c.name(), size, 4),
            ) {
                vs.push(judge::at_least(w.ratio(b), 1.25));
                ev.push(format!(
                    "{} {}: ×{:.2}",
                    c.name(),
                    size_label(size),
                    w.value / b.value
                ));
            }
        }
    }
    Claim {
        id: "detabe-surpasses-at-high-levels",
        verdict: judge::combine(&vs),
        evidence: judge::with_points(
            &vs,
            format!(
                "Waters11 / BSW07 time to secure at 192/256, 4 attributes: {}",
                ev.join(", ")
            ),
        ),
        ..Claim::STATED
    }
}

fn claim_100mb_in_2_8s(rows: &[Row]) -> Claim {
    let t100 = secure_m(rows, "bsw07", "bls48-581", 1e8, 4);
    Claim {
        id: "100mb-in-2.8s",
        verdict: t100.map_or(Verdict::Pending, |t| judge::at_most(t, 3000.0)),
        evidence: t100.map_or("no 100 MB file measured yet".into(), |t| {
            format!(
                "256-bit (BLS48-581 + AES-256-GCM): {:.0} ms = {:.0} files per minute",
                t.value,
                60_000.0 / t.value
            )
        }),
        ..Claim::STATED
    }
}

/// Signing: almost null at the lowest level, at most 27 % (100 MB, 256).
fn signing_overhead(rows: &[Row]) -> Claim {
    let mut low = Vec::new();
    let mut all = Vec::new();
    let mut ev = Vec::new();
    for c in LEVELS {
        for size in SIZES {
            if let (Some(w), Some(sg)) = (
                secure_m(rows, "waters11", c.name(), size, 4),
                secure_m(rows, SIGNED, c.name(), size, 4),
            ) {
                let r = sg.ratio(w);
                if c == LEVELS[0] {
                    low.push(judge::at_most(r, 1.10));
                }
                all.push(judge::at_most(r, 1.27));
                ev.push(format!(
                    "{} {}: {:+.0} %",
                    c.level(),
                    size_label(size),
                    (r.value - 1.0) * 100.0
                ));
            }
        }
    }
    Claim {
        id: "signing-overhead",
        verdict: signing_verdict(&low, &all),
        evidence: format!(
            "signing overhead (level, file): {}. At the minimum level, ≤ 10 % ({}); everywhere, ≤ 27 % ({}). The file is hashed with BLAKE3 up to 128 bits and SHA-512 above, so the overheads at 192 and 256 bits are mostly SHA-512's",
            ev.join(", "),
            judge::tally(&low),
            judge::tally(&all)
        ),
        ..Claim::STATED
    }
}

/// Holds when every lowest-level overhead is almost null and none exceeds
/// 27 %, each beyond noise (a point within noise leaves the claim within
/// noise); does not hold when a lowest-level overhead is considerable
/// beyond noise (the claim's point: "almost null at the minimum level");
/// depends when that part holds and only the 27 % bound is exceeded.
fn signing_verdict(low: &[Verdict], all: &[Verdict]) -> Verdict {
    if low.is_empty() {
        return Verdict::Pending;
    }
    if low.contains(&Verdict::DoesNotHold) {
        return Verdict::DoesNotHold;
    }
    match (judge::every(low), judge::every(all)) {
        (Verdict::Holds, Verdict::Holds) => Verdict::Holds,
        (Verdict::Holds | Verdict::WithinNoise, Verdict::Holds | Verdict::WithinNoise) => {
            Verdict::WithinNoise
        }
        _ => Verdict::Depends,
    }
}

/// `scheme`'s time to secure a 10 MB file with 4 attributes at level `to`
/// over level `from` (levels as [`PAPER_LEVELS`]).
fn level_ratio(rows: &[Row], scheme: &str, from: usize, to: usize) -> Option<Measured> {
    let t = |i: usize| secure_m(rows, scheme, PAPER_LEVELS[i].1.name(), 1e7, 4);
    Some(t(to)?.ratio(t(from)?))
}

const LEVEL_SETTING: &str = "10 MB, 4 attributes; levels: minimum = BN254 + AES-128, medium = BLS24-479 + AES-192, high = BLS48-581 + AES-256";

/// ×1.5 and ×4 are "about": within a factor 2; "more than 11×" is a floor.
fn level_slowdowns_detabe(rows: &[Row]) -> Claim {
    let mut vs = Vec::new();
    let mut ev = Vec::new();
    for (from, to, paper) in [(0, 1, 1.5), (1, 2, 4.0), (0, 2, 11.0)] {
        if let Some(r) = level_ratio(rows, "bsw07", from, to) {
            let (v, said) = match to - from {
                1 => (
                    judge::within(r, paper / 2.0, paper * 2.0),
                    format!("about ×{paper}"),
                ),
                _ => (judge::at_least(r, paper), format!("more than ×{paper}")),
            };
            vs.push(v);
            ev.push(format!(
                "{} → {}: ×{:.1} (paper: {said}; {})",
                PAPER_LEVELS[from].0,
                PAPER_LEVELS[to].0,
                r.value,
                v.label()
            ));
        }
    }
    Claim {
        id: "level-slowdowns-detabe",
        verdict: judge::combine(&vs),
        evidence: judge::with_points(&vs, format!("BSW07 at {LEVEL_SETTING}: {}", ev.join(", "))),
        ..Claim::STATED
    }
}

/// Two parts: more than DET-ABE (the sentence's point), and about ×24.
fn level_slowdown_aes4seci(rows: &[Row]) -> Claim {
    let (Some(w), Some(b)) = (
        level_ratio(rows, "waters11", 0, 2),
        level_ratio(rows, "bsw07", 0, 2),
    ) else {
        return Claim {
            id: "level-slowdown-aes4seci",
            verdict: Verdict::Pending,
            evidence: "not measured yet".into(),
            ..Claim::STATED
        };
    };
    let more = judge::less(b, w);
    let about = judge::within(w, 12.0, 48.0);
    let verdict = match (more, about) {
        (Verdict::DoesNotHold, _) => Verdict::DoesNotHold,
        (Verdict::Holds, Verdict::Holds) => Verdict::Holds,
        (Verdict::Holds, _) | (_, Verdict::Holds) => Verdict::Depends,
        (_, Verdict::DoesNotHold) => Verdict::DoesNotHold,
        _ => Verdict::WithinNoise,
    };
    Claim {
        id: "level-slowdown-aes4seci",
        verdict,
        evidence: format!(
            "minimum → high at {LEVEL_SETTING}: Waters11 (AES4SeCi) ×{:.1} against BSW07 (DET-ABE) ×{:.1}, so degrading more: {}; ×{:.1} against the paper's ×24 (×{:.2} of it; a factor 2 is ×12–×48): {}",
            w.value,
            b.value,
            more.label(),
            w.value,
            w.value / 24.0,
            about.label()
        ),
        ..Claim::STATED
    }
}

#[cfg(test)]
mod tests {
    use super::super::synth::{timed, verdict};
    use super::*;
    use Verdict::*;

    fn secure(scheme: &str, c: CurveId, size: f64, attrs: usize, ms: f64) -> Row {
        timed(
            scheme,
            c.name(),
            "secure-file",
            size,
            &format!("attributes={attrs};aes=x"),
            ms,
        )
    }

    fn claim(rows: &[Row], id: &str) -> Verdict {
        verdict(&claims(rows), id)
    }

    #[test]
    fn attribute_impact_waits_for_the_papers_case_and_can_fail() {
        let rows = |four: f64| {
            let mut v = Vec::new();
            for c in LEVELS {
                for s in ["bsw07", "waters11"] {
                    v.push(secure(s, c, 1e8, 1, 1000.0));
                    v.push(secure(s, c, 1e8, 4, four));
                }
            }
            v
        };
        assert_eq!(claim(&rows(1009.0), "attributes-no-impact"), Holds);
        assert_eq!(claim(&rows(1500.0), "attributes-no-impact"), DoesNotHold);
        assert_eq!(claim(&rows(1100.0), "attributes-no-impact"), WithinNoise);
        let mut quick = rows(1009.0);
        quick.retain(|r| r.curve != CurveId::Bls24_479.name());
        assert_eq!(claim(&quick, "attributes-no-impact"), Pending);
    }

    #[test]
    fn signing_overhead_reversed_pattern_does_not_hold() {
        let rows = |low: f64, high: f64| {
            let mut v = Vec::new();
            for (c, o) in [(CurveId::Bn254, low), (CurveId::Bls48_581, high)] {
                for s in SIZES {
                    v.push(secure("waters11", c, s, 4, 100.0));
                    v.push(secure(SIGNED, c, s, 4, 100.0 * (1.0 + o)));
                }
            }
            v
        };
        assert_eq!(claim(&rows(0.0, 0.15), "signing-overhead"), Holds);
        assert_eq!(claim(&rows(0.5, 0.05), "signing-overhead"), DoesNotHold);
        // Considerable at one lowest-level size is enough to refute it.
        let mut one = rows(0.0, 0.15);
        one.retain(|r| !(r.scheme == SIGNED && r.curve == CurveId::Bn254.name() && r.x == 1e3));
        one.push(secure(SIGNED, CurveId::Bn254, 1e3, 4, 130.0));
        assert_eq!(claim(&one, "signing-overhead"), DoesNotHold);
        assert_eq!(claim(&rows(0.0, 0.6), "signing-overhead"), Depends);
        assert_eq!(claim(&[], "signing-overhead"), Pending);
        // At the 27 % bound within noise at every high-level size: not
        // shown at every size, so not "holds".
        assert_eq!(claim(&rows(0.0, 0.27), "signing-overhead"), WithinNoise);
    }

    #[test]
    fn comparisons_between_the_envelopes_take_each_outcome() {
        let rows = |ratio: f64| {
            let mut v = Vec::new();
            for c in LEVELS {
                for s in SIZES {
                    v.push(secure("bsw07", c, s, 4, 10.0));
                    v.push(secure("waters11", c, s, 4, 10.0 * ratio));
                }
            }
            v
        };
        assert_eq!(claim(&rows(1.0), "similar-at-low-levels"), Holds);
        assert_eq!(claim(&rows(2.0), "similar-at-low-levels"), DoesNotHold);
        assert_eq!(claim(&rows(2.0), "detabe-surpasses-at-high-levels"), Holds);
        assert_eq!(
            claim(&rows(1.0), "detabe-surpasses-at-high-levels"),
            DoesNotHold
        );
        assert_eq!(claim(&rows(2.0), "tree-beats-matrix"), Holds);
        assert_eq!(claim(&rows(0.5), "tree-beats-matrix"), DoesNotHold);
        assert_eq!(claim(&rows(1.01), "tree-beats-matrix"), WithinNoise);
    }

    #[test]
    fn file_size_claims_take_each_outcome() {
        let rows = |k: f64, m10: f64, m100: f64| {
            let mut v = Vec::new();
            for c in LEVELS {
                for s in ["bsw07", "waters11"] {
                    v.push(secure(s, c, 1e3, 4, k));
                    v.push(secure(s, c, 1e7, 4, m10));
                    v.push(secure(s, c, 1e8, 4, m100));
                }
            }
            v
        };
        assert_eq!(
            claim(&rows(10.0, 50.0, 500.0), "small-files-no-difference"),
            Holds
        );
        assert_eq!(
            claim(&rows(10.0, 500.0, 5000.0), "small-files-no-difference"),
            DoesNotHold
        );
        assert_eq!(claim(&rows(10.0, 50.0, 500.0), "impact-at-100mb"), Holds);
        // Below notice everywhere, but the 100 MB step outweighs the 1 KB
        // operation: the paper's pattern at our AES's speed.
        assert_eq!(claim(&rows(10.0, 50.0, 60.0), "impact-at-100mb"), Depends);
        assert_eq!(
            claim(&rows(10.0, 50.0, 55.0), "impact-at-100mb"),
            DoesNotHold
        );
        assert_eq!(claim(&rows(10.0, 50.0, 2000.0), "100mb-in-2.8s"), Holds);
        assert_eq!(
            claim(&rows(10.0, 50.0, 5000.0), "100mb-in-2.8s"),
            DoesNotHold
        );
        // The paper's ratios at 10 MB for BSW07: about ×1.5 and ×4, and
        // more than ×11.
        let levels = |a: f64, b: f64, c: f64| {
            vec![
                secure("bsw07", CurveId::Bn254, 1e7, 4, a),
                secure("bsw07", CurveId::Bls24_479, 1e7, 4, b),
                secure("bsw07", CurveId::Bls48_581, 1e7, 4, c),
            ]
        };
        let id = "level-slowdowns-detabe";
        assert_eq!(claim(&levels(10.0, 20.0, 140.0), id), Holds);
        assert_eq!(claim(&levels(10.0, 100.0, 100.0), id), DoesNotHold);
        assert_eq!(claim(&levels(10.0, 15.0, 300.0), id), Depends);
        // ×1.5 and ×4 exactly, but ×6 from minimum to high: not more than ×11.
        assert_eq!(claim(&levels(10.0, 15.0, 60.0), id), Depends);
        // AES4SeCi (Waters11) from minimum to high: more than BSW07's ×6,
        // and about ×24.
        let both = |bsw_high: f64, lo: f64, hi: f64| {
            let mut rows = levels(10.0, 20.0, bsw_high);
            rows.push(secure("waters11", CurveId::Bn254, 1e7, 4, lo));
            rows.push(secure("waters11", CurveId::Bls48_581, 1e7, 4, hi));
            rows
        };
        let id = "level-slowdown-aes4seci";
        assert_eq!(claim(&both(60.0, 10.0, 240.0), id), Holds);
        assert_eq!(claim(&both(60.0, 10.0, 40.0), id), DoesNotHold);
        assert_eq!(claim(&both(60.0, 10.0, 100.0), id), Depends);
        assert_eq!(claim(&both(60.0, 10.0, 2000.0), id), Depends);
        // As much as BSW07, and far from ×24: nothing shown, the number refuted.
        assert_eq!(claim(&both(60.0, 10.0, 61.0), id), DoesNotHold);
        assert_eq!(claim(&both(120.0, 10.0, 122.0), id), WithinNoise);
        assert_eq!(claim(&[], id), Pending);
    }
}
