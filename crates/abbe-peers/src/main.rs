//! `abbe-peers`: abbe's schemes side by side with other ABE libraries, in one
//! process and one run, on the same workload (a flat AND of N attributes
//! `A1..An`: CP — ciphertext policy the AND, key with exactly those N; KP —
//! key policy the AND, ciphertext with those N).
//!
//! ```text
//! cargo run --release -p abbe-peers -- [--quick] [--n 1,10,50,100] [--reps K] [--csv FILE]
//! cargo run --release -p abbe-peers -- --bound [--n 100] [--only NAME]
//! ```
//!
//! `--bound` replaces the peer tables by ours against their counted lower
//! bounds ([`bound`]): each operation's curve operations counted, priced at
//! their times measured in the same run.
//!
//! Peers, for measurement only (this crate is never a dependency of abbe):
//! Fraunhofer-AISEC's rabe 0.4 (BN254 through rabe-bn) and Cosmian's
//! abe_gpsw 2.0 (GPSW KP-ABE on BLS12-381). rabe is compared with our schemes
//! on `Bn254`; ours on `Bls12` are printed for reference.

mod bound;
mod cca;
mod measure;
mod ours;
mod peers;

use std::fmt::Write as _;
use std::time::Duration;

use abbe::abe::fabeo::{FabeoCp, FabeoKp};
use abbe::abe::yct14::InsecureYct14;
use abbe::abe::{Bsw07, Cca, FameCp, FameKp, Gpsw06, Gpsw06Small, Tkn20, Waters11};
use abbe::curve::{Bls12, Bn254, Counted, Swapped};
use clap::Parser;

use measure::{measure, Config, Measured, Subject};
use ours::{Ours, OursOutsourced};

/// Who an implementation is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// Ours, on the peers' curve: the baseline of the ratios.
    Ours,
    /// Ours on another curve or path, for reference.
    Ref,
    Peer,
}

impl Role {
    fn tag(self) -> &'static str {
        match self {
            Role::Ours => "ours",
            Role::Ref => "ref",
            Role::Peer => "peer",
        }
    }
}

type Runner = fn(usize, &Config, Option<(usize, &Measured)>) -> Measured;

struct Entry {
    role: Role,
    name: &'static str,
    curve: &'static str,
    /// How the sizes were obtained.
    sizes: &'static str,
    /// For peers: the entries of the same group it is compared with.
    against: &'static [usize],
    run: Runner,
}

struct Group {
    title: &'static str,
    entries: Vec<Entry>,
}

/// The runner of an entry left out by `--only`.
fn skipped(_: usize, _: &Config, _: Option<(usize, &Measured)>) -> Measured {
    Measured {
        note: "left out by --only".into(),
        ..Measured::default()
    }
}

fn run<S: Subject>(n: usize, cfg: &Config, prev: Option<(usize, &Measured)>) -> Measured {
    measure::<S>(n, cfg, prev)
}

const WIRE: &str = "abbe wire (to_bytes)";
const JSON: &str = "serde_json";
const COSMIAN_BYTES: &str = "own bytes (AsBytes)";

fn e(
    role: Role,
    name: &'static str,
    curve: &'static str,
    sizes: &'static str,
    run: Runner,
) -> Entry {
    Entry {
        role,
        name,
        curve,
        sizes,
        against: &[],
        run,
    }
}

fn peer(
    name: &'static str,
    curve: &'static str,
    sizes: &'static str,
    against: &'static [usize],
    run: Runner,
) -> Entry {
    Entry {
        role: Role::Peer,
        name,
        curve,
        sizes,
        against,
        run,
    }
}

/// The mirrored placements (G1 and G2 exchanged).
type SBn = Swapped<Bn254>;
type SBls = Swapped<Bls12>;

/// Every pairing, ours first in each group.
fn groups() -> Vec<Group> {
    use Role::{Ours as O, Ref as R};
    vec![
        Group {
            title: "BSW07 CP-ABE",
            entries: vec![
                e(O, "abbe Bsw07", "BN254", WIRE, run::<Ours<Bsw07<Bn254>>>),
                e(
                    R,
                    "abbe Bsw07",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<Bsw07<Bls12>>>,
                ),
                peer("rabe bsw", "BN254", JSON, &[0], run::<peers::RabeBsw>),
                e(
                    R,
                    "abbe Bsw07 swapped",
                    "BN254",
                    WIRE,
                    run::<Ours<Bsw07<SBn>>>,
                ),
                e(
                    R,
                    "abbe Bsw07 swapped",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<Bsw07<SBls>>>,
                ),
            ],
        },
        Group {
            title:
                "Waters11 CP-ABE, GHW11 outsourced decryption (decrypt = transform + final step)",
            entries: vec![
                e(
                    O,
                    "abbe Waters11 outsourced",
                    "BN254",
                    WIRE,
                    run::<OursOutsourced<Waters11<Bn254>>>,
                ),
                e(
                    R,
                    "abbe Waters11 outsourced",
                    "BLS12-381",
                    WIRE,
                    run::<OursOutsourced<Waters11<Bls12>>>,
                ),
                e(
                    R,
                    "abbe Waters11 direct decap",
                    "BN254",
                    WIRE,
                    run::<Ours<Waters11<Bn254>>>,
                ),
                e(
                    R,
                    "abbe Waters11 direct decap",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<Waters11<Bls12>>>,
                ),
                peer("rabe ghw11", "BN254", JSON, &[0], run::<peers::RabeGhw11>),
                e(
                    R,
                    "abbe Waters11 outsourced swapped",
                    "BN254",
                    WIRE,
                    run::<OursOutsourced<Waters11<SBn>>>,
                ),
                e(
                    R,
                    "abbe Waters11 outsourced swapped",
                    "BLS12-381",
                    WIRE,
                    run::<OursOutsourced<Waters11<SBls>>>,
                ),
                e(
                    R,
                    "abbe Waters11 direct swapped",
                    "BN254",
                    WIRE,
                    run::<Ours<Waters11<SBn>>>,
                ),
                e(
                    R,
                    "abbe Waters11 direct swapped",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<Waters11<SBls>>>,
                ),
            ],
        },
        Group {
            title: "GPSW06 KP-ABE on BN254 (rabe has no GPSW: LSW10 KP-ABE shown as the nearest)",
            entries: vec![
                e(
                    O,
                    "abbe Gpsw06 (large univ.)",
                    "BN254",
                    WIRE,
                    run::<Ours<Gpsw06<Bn254>>>,
                ),
                e(
                    R,
                    "abbe Gpsw06Small",
                    "BN254",
                    WIRE,
                    run::<Ours<Gpsw06Small<Bn254>>>,
                ),
                peer(
                    "rabe lsw (LSW10, not GPSW)",
                    "BN254",
                    JSON,
                    &[0],
                    run::<peers::RabeLsw>,
                ),
                e(
                    R,
                    "abbe Gpsw06 swapped",
                    "BN254",
                    WIRE,
                    run::<Ours<Gpsw06<SBn>>>,
                ),
                e(
                    R,
                    "abbe Gpsw06Small swapped",
                    "BN254",
                    WIRE,
                    run::<Ours<Gpsw06Small<SBn>>>,
                ),
            ],
        },
        Group {
            title: "GPSW06 KP-ABE on BLS12-381",
            entries: vec![
                e(
                    O,
                    "abbe Gpsw06 (large univ.)",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<Gpsw06<Bls12>>>,
                ),
                e(
                    O,
                    "abbe Gpsw06Small",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<Gpsw06Small<Bls12>>>,
                ),
                peer(
                    "cosmian abe_gpsw",
                    "BLS12-381",
                    COSMIAN_BYTES,
                    &[0, 1],
                    run::<peers::Cosmian>,
                ),
                e(
                    R,
                    "abbe Gpsw06 swapped",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<Gpsw06<SBls>>>,
                ),
                e(
                    R,
                    "abbe Gpsw06Small swapped",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<Gpsw06Small<SBls>>>,
                ),
            ],
        },
        Group {
            title: "YCT14 KP-ABE (BROKEN, benchmark only; universe A1..A256)",
            entries: vec![
                e(
                    O,
                    "abbe InsecureYct14",
                    "BN254",
                    WIRE,
                    run::<Ours<InsecureYct14<Bn254>>>,
                ),
                e(
                    R,
                    "abbe InsecureYct14",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<InsecureYct14<Bls12>>>,
                ),
                peer("rabe yct14", "BN254", JSON, &[0], run::<peers::RabeYct14>),
            ],
        },
        Group {
            title: "FAME CP-ABE = AC17 CP (rabe: the AND as a tree of binary ANDs)",
            entries: vec![
                e(O, "abbe FameCp", "BN254", WIRE, run::<Ours<FameCp<Bn254>>>),
                e(
                    R,
                    "abbe FameCp",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<FameCp<Bls12>>>,
                ),
                peer(
                    "rabe ac17 cp",
                    "BN254",
                    JSON,
                    &[0],
                    run::<peers::RabeAc17Cp>,
                ),
                e(
                    R,
                    "abbe FameCp swapped",
                    "BN254",
                    WIRE,
                    run::<Ours<FameCp<SBn>>>,
                ),
                e(
                    R,
                    "abbe FameCp swapped",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<FameCp<SBls>>>,
                ),
            ],
        },
        Group {
            title: "FAME KP-ABE = AC17 KP (rabe: the AND as a tree of binary ANDs)",
            entries: vec![
                e(O, "abbe FameKp", "BN254", WIRE, run::<Ours<FameKp<Bn254>>>),
                e(
                    R,
                    "abbe FameKp",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<FameKp<Bls12>>>,
                ),
                peer(
                    "rabe ac17 kp",
                    "BN254",
                    JSON,
                    &[0],
                    run::<peers::RabeAc17Kp>,
                ),
                e(
                    R,
                    "abbe FameKp swapped",
                    "BN254",
                    WIRE,
                    run::<Ours<FameKp<SBn>>>,
                ),
                e(
                    R,
                    "abbe FameKp swapped",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<FameKp<SBls>>>,
                ),
            ],
        },
        Group {
            title: "FABEO CP-ABE (Riepel-Wee 2022; no Rust peer)",
            entries: vec![
                e(
                    O,
                    "abbe FabeoCp",
                    "BN254",
                    WIRE,
                    run::<Ours<FabeoCp<Bn254>>>,
                ),
                e(
                    R,
                    "abbe FabeoCp",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<FabeoCp<Bls12>>>,
                ),
                e(
                    R,
                    "abbe FabeoCp swapped",
                    "BN254",
                    WIRE,
                    run::<Ours<FabeoCp<SBn>>>,
                ),
                e(
                    R,
                    "abbe FabeoCp swapped",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<FabeoCp<SBls>>>,
                ),
            ],
        },
        Group {
            title: "FABEO KP-ABE (Riepel-Wee 2022; no Rust peer)",
            entries: vec![
                e(
                    O,
                    "abbe FabeoKp",
                    "BN254",
                    WIRE,
                    run::<Ours<FabeoKp<Bn254>>>,
                ),
                e(
                    R,
                    "abbe FabeoKp",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<FabeoKp<Bls12>>>,
                ),
                e(
                    R,
                    "abbe FabeoKp swapped",
                    "BN254",
                    WIRE,
                    run::<Ours<FabeoKp<SBn>>>,
                ),
                e(
                    R,
                    "abbe FabeoKp swapped",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<FabeoKp<SBls>>>,
                ),
            ],
        },
        Group {
            title: "TKN20 CP-ABE (Tomida-Kawahara-Nishimaki 2020; CIRCL's in Go: scripts/bench-tkn20.sh)",
            entries: vec![
                e(O, "abbe Tkn20", "BLS12-381", WIRE, run::<Ours<Tkn20<Bls12>>>),
                e(
                    R,
                    "abbe Tkn20 CCA",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<Cca<Tkn20<Bls12>>>>,
                ),
                e(R, "abbe Tkn20", "BN254", WIRE, run::<Ours<Tkn20<Bn254>>>),
                e(
                    R,
                    "abbe Tkn20 swapped",
                    "BLS12-381",
                    WIRE,
                    run::<Ours<Tkn20<SBls>>>,
                ),
            ],
        },
    ]
}

/// One measured cell.
struct Cell {
    n: usize,
    group: usize,
    entry: usize,
    m: Measured,
}

/// Runs every entry of every group at every N (ascending N, so each cell
/// can be skipped from the same entry's previous N).
fn run_all(
    groups: &[Group],
    ns: &[usize],
    cfg: &Config,
    mut progress: impl FnMut(&Cell),
) -> Vec<Cell> {
    let mut ns = ns.to_vec();
    ns.sort_unstable();
    ns.dedup();
    let mut cells: Vec<Cell> = Vec::new();
    for &n in &ns {
        for (gi, g) in groups.iter().enumerate() {
            for (ei, en) in g.entries.iter().enumerate() {
                let prev = cells
                    .iter()
                    .rev()
                    .find(|c| c.group == gi && c.entry == ei)
                    .map(|c| (c.n, &c.m));
                let m = (en.run)(n, cfg, prev);
                let cell = Cell {
                    n,
                    group: gi,
                    entry: ei,
                    m,
                };
                progress(&cell);
                cells.push(cell);
            }
        }
    }
    cells
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn fmt_ms(d: Duration) -> String {
    let v = ms(d);
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        f64::NAN
    }
}

fn fmt_ratio(r: f64) -> String {
    if r.is_nan() {
        "—".into()
    } else if r >= 10.0 {
        format!("×{r:.0}")
    } else {
        format!("×{r:.2}")
    }
}

/// Peer/ours ratios of (keygen, encrypt, decrypt, key size, ct size, compact
/// key size, compact ct size).
fn ratios(peer: &Measured, ours: &Measured) -> Option<[f64; 7]> {
    let (p, o) = (peer.times?, ours.times?);
    Some([
        ratio(ms(p[0]), ms(o[0])),
        ratio(ms(p[1]), ms(o[1])),
        ratio(ms(p[2]), ms(o[2])),
        ratio(peer.key_bytes as f64, ours.key_bytes as f64),
        ratio(peer.ct_bytes as f64, ours.ct_bytes as f64),
        ratio(peer.compact.0 as f64, ours.compact.0 as f64),
        ratio(peer.compact.1 as f64, ours.compact.1 as f64),
    ])
}

fn find(cells: &[Cell], n: usize, g: usize, e: usize) -> Option<&Cell> {
    cells
        .iter()
        .find(|c| c.n == n && c.group == g && c.entry == e)
}

/// The readable table, one block per N and group.
fn table(groups: &[Group], cells: &[Cell], ns: &[usize]) -> String {
    let mut out = String::new();
    let w = 34;
    for &n in ns {
        let _ = writeln!(
            out,
            "\n================ N = {n} (flat AND of {n} attributes) ================"
        );
        for (gi, g) in groups.iter().enumerate() {
            let _ = writeln!(out, "\n{}", g.title);
            let _ = writeln!(
                out,
                "  {:<5} {:<w$} {:<9} {:>10} {:>10} {:>10} {:>9} {:>9} {:>8} {:>8}  {:<8} sizes / note",
                "", "implementation", "curve", "keygen ms", "encrypt ms", "decrypt ms", "key B", "ct B", "key ≈B", "ct ≈B", "reps"
            );
            for (ei, en) in g.entries.iter().enumerate() {
                let Some(c) = find(cells, n, gi, ei) else {
                    continue;
                };
                let m = &c.m;
                match m.times {
                    Some(t) => {
                        let note = if m.note.is_empty() {
                            en.sizes.to_string()
                        } else {
                            format!("{}; {}", en.sizes, m.note)
                        };
                        let _ = writeln!(
                            out,
                            "  {:<5} {:<w$} {:<9} {:>10} {:>10} {:>10} {:>9} {:>9} {:>8} {:>8}  {:<8} {}",
                            en.role.tag(),
                            en.name,
                            en.curve,
                            fmt_ms(t[0]),
                            fmt_ms(t[1]),
                            fmt_ms(t[2]),
                            m.key_bytes,
                            m.ct_bytes,
                            m.compact.0,
                            m.compact.1,
                            format!("{}/{}/{}", m.reps[0], m.reps[1], m.reps[2]),
                            note
                        );
                    }
                    None => {
                        let _ = writeln!(
                            out,
                            "  {:<5} {:<w$} {:<9} {:>10} {:>10} {:>10} {:>9} {:>9} {:>8} {:>8}  {:<8} {}",
                            en.role.tag(),
                            en.name,
                            en.curve,
                            "—",
                            "—",
                            "—",
                            "—",
                            "—",
                            "—",
                            "—",
                            "",
                            m.note
                        );
                    }
                }
                for &base in en.against {
                    let Some(b) = find(cells, n, gi, base) else {
                        continue;
                    };
                    let _ = writeln!(
                        out,
                        "  {:<5}   ratio peer/ours: {} / {} {}",
                        "", en.name, g.entries[base].name, g.entries[base].curve
                    );
                    let label = "    (ratio)".to_string();
                    match ratios(m, &b.m) {
                        Some(r) => {
                            let _ = writeln!(
                                out,
                                "  {:<5} {:<w$} {:<9} {:>10} {:>10} {:>10} {:>9} {:>9} {:>8} {:>8}",
                                "",
                                label,
                                "",
                                fmt_ratio(r[0]),
                                fmt_ratio(r[1]),
                                fmt_ratio(r[2]),
                                fmt_ratio(r[3]),
                                fmt_ratio(r[4]),
                                fmt_ratio(r[5]),
                                fmt_ratio(r[6])
                            );
                        }
                        None => {
                            let _ = writeln!(out, "  {:<5} {label}: —", "");
                        }
                    }
                }
            }
        }
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The CSV: one row per cell and one `ratio` row per peer and baseline.
fn csv(groups: &[Group], cells: &[Cell]) -> String {
    let mut out = String::from(
        "n,group,role,implementation,curve,size_encoding,keygen_ms,encrypt_ms,decrypt_ms,key_bytes,ct_bytes,key_bytes_compact,ct_bytes_compact,reps_keygen,reps_encrypt,reps_decrypt,ratio_against,note\n",
    );
    for c in cells {
        let g = &groups[c.group];
        let en = &g.entries[c.entry];
        let m = &c.m;
        let (t, sz, reps) = match m.times {
            Some(t) => (
                t.map(|d| format!("{:.6}", ms(d))),
                [
                    m.key_bytes.to_string(),
                    m.ct_bytes.to_string(),
                    m.compact.0.to_string(),
                    m.compact.1.to_string(),
                ],
                m.reps.map(|r| r.to_string()),
            ),
            None => (
                [String::new(), String::new(), String::new()],
                [String::new(), String::new(), String::new(), String::new()],
                [String::new(), String::new(), String::new()],
            ),
        };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},,{}",
            c.n,
            csv_field(g.title),
            en.role.tag(),
            csv_field(en.name),
            en.curve,
            csv_field(en.sizes),
            t[0],
            t[1],
            t[2],
            sz[0],
            sz[1],
            sz[2],
            sz[3],
            reps[0],
            reps[1],
            reps[2],
            csv_field(&m.note)
        );
        for &base in en.against {
            let Some(b) = find(cells, c.n, c.group, base) else {
                continue;
            };
            let against = format!("{} {}", g.entries[base].name, g.entries[base].curve);
            let r = ratios(m, &b.m).map(|r| {
                r.map(|x| {
                    if x.is_nan() {
                        String::new()
                    } else {
                        format!("{x:.4}")
                    }
                })
            });
            let r = r.unwrap_or_default();
            let _ = writeln!(
                out,
                "{},{},ratio,{},{},,{},{},{},{},{},{},{},,,,{},",
                c.n,
                csv_field(g.title),
                csv_field(en.name),
                en.curve,
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                r[6],
                csv_field(&against)
            );
        }
    }
    out
}

#[derive(Parser, Debug)]
#[command(about = "abbe side by side with rabe and Cosmian abe_gpsw (flat AND of N attributes)")]
struct Args {
    /// Fewer repetitions and a shorter time budget per operation.
    #[arg(long)]
    quick: bool,
    /// Numbers of attributes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,10,50,100")]
    n: Vec<usize>,
    /// Repetitions per operation after the warm-up (median reported); slow
    /// operations get fewer (see --budget).
    #[arg(long)]
    reps: Option<usize>,
    /// Seconds allowed for the repetitions of one operation.
    #[arg(long)]
    budget: Option<f64>,
    /// Seconds: an operation slower than this is measured once, and a cell
    /// predicted to exceed it is skipped.
    #[arg(long, default_value_t = 10.0)]
    limit: f64,
    /// Threads for our schemes (rayon); 1 matches the single-threaded peers.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Only the entries whose name contains this text, or one of these
    /// comma-separated texts (peers are kept when one of the entries they
    /// are compared with is).
    #[arg(long)]
    only: Option<String>,
    /// Write the results as CSV to this file.
    #[arg(long)]
    csv: Option<std::path::PathBuf>,
    /// Instead of the peer tables: our FABEO, GPSW06, BSW07 and Waters11 at
    /// the largest N against their counted lower bounds (see `bound.rs`).
    #[arg(long)]
    bound: bool,
    /// Instead of the peer tables: each ABE scheme's CPA decapsulation
    /// against its CCA one at the largest N (see `cca.rs`); `--reps` rounds.
    #[arg(long)]
    cca: bool,
}

/// Whether `name` is kept by `--only` (texts separated by commas).
fn matches_only(name: &str, only: &str) -> bool {
    only.split(',').any(|o| name.contains(o.trim()))
}

/// `bound::row` for scheme `$k` on curve `$c`, in the standard placement
/// or the swapped one.
macro_rules! bound_row {
    ($k:ident, $c:ty, std) => {
        bound::row::<$c, Ours<$k<$c>>, Ours<$k<Counted<$c>>>> as bound::RowFn
    };
    ($k:ident, $c:ty, swapped) => {
        bound::row::<$c, Ours<$k<Swapped<$c>>>, Ours<$k<Swapped<Counted<$c>>>>> as bound::RowFn
    };
}

/// The `--bound` table: each operation's median against its counted lower
/// bound, in the placement `--optimize` picks for it.
fn bound_table(n: usize, cfg: &Config, only: Option<&str>) -> String {
    let rows: [(&str, &str, bound::RowFn); 12] = [
        ("FABEO-CP", "BN254", bound_row!(FabeoCp, Bn254, std)),
        ("FABEO-CP", "BLS12-381", bound_row!(FabeoCp, Bls12, std)),
        ("FABEO-KP", "BN254", bound_row!(FabeoKp, Bn254, std)),
        ("FABEO-KP", "BLS12-381", bound_row!(FabeoKp, Bls12, std)),
        ("GPSW06", "BN254", bound_row!(Gpsw06, Bn254, std)),
        ("GPSW06", "BLS12-381", bound_row!(Gpsw06, Bls12, std)),
        ("BSW07", "BN254", bound_row!(Bsw07, Bn254, std)),
        ("BSW07", "BLS12-381", bound_row!(Bsw07, Bls12, std)),
        ("Waters11", "BN254", bound_row!(Waters11, Bn254, std)),
        ("Waters11", "BLS12-381", bound_row!(Waters11, Bls12, std)),
        (
            "Waters11 swapped",
            "BN254",
            bound_row!(Waters11, Bn254, swapped),
        ),
        (
            "Waters11 swapped",
            "BLS12-381",
            bound_row!(Waters11, Bls12, swapped),
        ),
    ];
    let mut out = format!(
        "Counted lower bounds, N = {n}: measured median (ms) / bound (ms) = ratio; the bound prices each counted curve operation at its median time on that curve, measured in this run.\n"
    );
    let _ = writeln!(
        out,
        "{:<18} {:<10} {:>24} {:>24} {:>24}",
        "scheme", "curve", "keygen", "encrypt", "decrypt"
    );
    for (name, curve, row) in rows {
        if only.is_some_and(|o| !matches_only(name, o)) {
            continue;
        }
        let r = row(name, curve, n, cfg);
        eprintln!("  {} {}", r.name, r.curve);
        let cells: Vec<String> = (0..3)
            .map(|i| {
                let m = ms(r.measured[i]);
                let b = r.bound[i] * 1e3;
                format!("{m:.2} / {b:.2} = {:.2}", m / b)
            })
            .collect();
        let _ = writeln!(
            out,
            "{:<18} {:<10} {:>24} {:>24} {:>24}",
            r.name, r.curve, cells[0], cells[1], cells[2]
        );
    }
    out
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    if args.n.is_empty() || args.n.iter().any(|&n| n == 0 || n > 256) {
        eprintln!("--n: numbers of attributes between 1 and 256");
        std::process::exit(2);
    }
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.max(1))
        .build_global();
    let cfg = Config {
        reps: args.reps.unwrap_or(if args.quick { 3 } else { 11 }),
        budget: Duration::from_secs_f64(args.budget.unwrap_or(if args.quick { 0.5 } else { 2.0 })),
        limit: Duration::from_secs_f64(args.limit),
    };
    if args.bound {
        if args.threads > 1 {
            eprintln!("--bound: the bound is a serial sum; run it with --threads 1");
            std::process::exit(2);
        }
        let n = *args.n.iter().max().expect("--n is not empty");
        print!("{}", bound_table(n, &cfg, args.only.as_deref()));
        return Ok(());
    }
    if args.cca {
        let n = *args.n.iter().max().expect("--n is not empty");
        print!("{}", cca::table(n, cfg.reps, args.only.as_deref()));
        return Ok(());
    }
    let mut groups = groups();
    if let Some(only) = &args.only {
        for g in &mut groups {
            let keep: Vec<bool> = g
                .entries
                .iter()
                .map(|e| matches_only(e.name, only))
                .collect();
            for en in &mut g.entries {
                if en.role == Role::Peer && en.against.iter().any(|&i| keep[i]) {
                    continue;
                }
                if !matches_only(en.name, only) {
                    en.run = skipped;
                }
            }
        }
    }
    let mut ns = args.n.clone();
    ns.sort_unstable();
    ns.dedup();
    eprintln!(
        "abbe-peers: N = {ns:?}, up to {} reps after a warm-up, {:.1} s per operation, limit {:.0} s, {} thread(s) for ours",
        cfg.reps,
        cfg.budget.as_secs_f64(),
        cfg.limit.as_secs_f64(),
        args.threads.max(1)
    );
    let cells = run_all(&groups, &ns, &cfg, |c| {
        let en = &groups[c.group].entries[c.entry];
        match c.m.times {
            Some(t) => eprintln!(
                "  N={:<3} {:<34} {:<9} {:>10} {:>10} {:>10} ms",
                c.n,
                en.name,
                en.curve,
                fmt_ms(t[0]),
                fmt_ms(t[1]),
                fmt_ms(t[2])
            ),
            None => eprintln!(
                "  N={:<3} {:<34} {:<9} {}",
                c.n, en.name, en.curve, c.m.note
            ),
        }
    });
    println!(
        "Times: median of up to {} repetitions after one warm-up (reps column: keygen/encrypt/decrypt), ours cold (attribute-hash cache emptied before each call), {} thread(s) for ours.",
        cfg.reps,
        args.threads.max(1)
    );
    println!("Ours are KEMs (header + 32-byte session key); rabe encrypts a 32-byte message (hybrid, AES-GCM included in its times and ciphertext sizes); Cosmian encrypts a GT element.");
    println!("Ratios are peer / ours: above 1 the peer is slower or larger. key/ct B: each library's own encoding (sizes column); key/ct ≈B: compact estimate (rabe: points compressed, GT 384 B, strings and bytes as is; others: = key/ct B).");
    print!("{}", table(&groups, &cells, &ns));
    if let Some(path) = &args.csv {
        std::fs::write(path, csv(&groups, &cells))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pairing once at N = 2, one repetition: every implementation
    /// must decrypt (measure asserts it) and report sizes.
    #[test]
    fn every_pairing_decrypts_at_n_2() {
        let cfg = Config {
            reps: 1,
            budget: Duration::ZERO,
            limit: Duration::from_secs(3600),
        };
        let groups = groups();
        let cells = run_all(&groups, &[2], &cfg, |_| {});
        let total: usize = groups.iter().map(|g| g.entries.len()).sum();
        assert_eq!(cells.len(), total);
        for c in &cells {
            let en = &groups[c.group].entries[c.entry];
            assert!(
                c.m.times.is_some(),
                "{} {} was skipped: {}",
                en.name,
                en.curve,
                c.m.note
            );
            assert!(
                c.m.key_bytes > 0 && c.m.ct_bytes > 0,
                "{} {}",
                en.name,
                en.curve
            );
        }
        let t = table(&groups, &cells, &[2]);
        assert!(t.contains("rabe bsw") && t.contains("cosmian abe_gpsw"));
        let csv = csv(&groups, &cells);
        assert!(csv.lines().count() > total);
    }

    #[test]
    fn rabe_policies() {
        assert_eq!(peers::rabe_flat_and(1), "\"A1\"");
        assert_eq!(peers::rabe_flat_and(3), "\"A1\" and \"A2\" and \"A3\"");
        assert_eq!(
            peers::rabe_binary_and(3),
            "(\"A1\" and (\"A2\" and \"A3\"))"
        );
        assert_eq!(peers::rabe_binary_and(1), "\"A1\"");
    }

    #[test]
    fn skip_prediction_is_quadratic() {
        let p = measure::predict(Duration::from_secs(1), 10, 20);
        assert_eq!(p, Duration::from_secs(4));
    }
}
