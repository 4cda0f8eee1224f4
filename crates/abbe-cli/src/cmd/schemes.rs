//! `abbe schemes`: the table of schemes this build offers.

use crate::dispatch::offered_schemes;
use crate::Result;
use abbe::curve::Placement;
use abbe::facade;
use abbe::wire::SchemeId;

/// One line per scheme of the library's table: its name, family, security
/// levels, which placement favours which operation, what setup takes, and
/// what it is; then the rows this build does not offer as a KEM.
pub fn run() -> Result<()> {
    print!("{}", table());
    Ok(())
}

fn table() -> String {
    let mut rows = vec![[
        "SCHEME".to_owned(),
        "FAMILY".to_owned(),
        "LEVELS".to_owned(),
        "PLACEMENT".to_owned(),
        "SETUP TAKES".to_owned(),
        "ALSO".to_owned(),
        "WHAT IT IS".to_owned(),
    ]];
    for id in offered_schemes() {
        rows.push(row(id));
    }
    let mut out = String::new();
    let widths: Vec<usize> = (0..6)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let mut line = String::new();
        for (cell, w) in r[..6].iter().zip(&widths) {
            line.push_str(cell);
            line.push_str(&" ".repeat(w - cell.chars().count() + 2));
        }
        line.push_str(&r[6]);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let others: Vec<SchemeId> = SchemeId::ALL
        .into_iter()
        .filter(|s| !offered_schemes().any(|o| o == *s))
        .collect();
    if !others.is_empty() {
        out.push_str("\nNot offered for encryption by this build:\n");
        for s in others {
            let why = match s.family() {
                abbe::wire::Family::Signature => {
                    "not a KEM: abbe signer-keygen, encrypt --sign-with"
                }
                _ => "needs a build with the insecure-benchmark-only feature",
            };
            out.push_str(&format!("  {:<14}{} ({why})\n", s.name(), s.what()));
        }
    }
    out.push_str(
        "\nLEVELS: security levels (--level): 100 BN254, 128 BLS12-381 (the default), \
         192 BLS24-479, 256 BLS48-581.\n\
         PLACEMENT: the placement of G1 and G2 that favours each operation \
         (setup --optimize decrypt|encrypt).\n",
    );
    out
}

fn row(id: SchemeId) -> [String; 7] {
    let (info, levels) = facade::summary(id).expect("a scheme this build offers");
    let levels = levels
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let placement = if facade::curves(id).any(|c| c.is_swapped()) {
        let name = |p: Placement| p.name();
        format!(
            "decrypt: {}, encrypt: {}",
            name(info.for_decryption),
            name(info.for_encryption)
        )
    } else {
        "-".to_owned()
    };
    let takes = info.params.takes();
    let takes = if takes.is_empty() {
        "-".to_owned()
    } else {
        takes
            .iter()
            .map(|t| format!("--{t}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut also = Vec::new();
    if info.outsourcing {
        also.push("outsourcing");
    }
    if info.traceable {
        also.push("tracing");
    }
    if info.insecure {
        also.push("BROKEN");
    }
    let also = if also.is_empty() {
        "-".to_owned()
    } else {
        also.join(", ")
    };
    [
        id.name().to_owned(),
        id.family().label().to_owned(),
        levels,
        placement,
        takes,
        also,
        id.what().to_owned(),
    ]
}
