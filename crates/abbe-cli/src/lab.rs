//! `abbe lab`: runs the lab's experiments (crates/abbe-lab) and writes the
//! report. The binary's global allocator is the lab's instrumented System
//! allocator, so the report has the peak heap of each operation.

use crate::{parse_curve, CliError, Result};
use abbe_lab::{Options, Profile};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ProfileArg {
    /// A few minutes (N up to 10^4, files up to 10 MB, 1 000 random policies per point).
    Quick,
    /// The papers' full ranges: several hours (see the README).
    Full,
}

#[derive(Args)]
pub struct LabArgs {
    /// How much to measure.
    #[arg(long, value_enum, default_value = "quick")]
    profile: ProfileArg,
    /// Run only these experiments (ghw11-fig8, wang14, chhatrapati22, detabe, perazzo); the report still shows every experiment with stored results.
    #[arg(long, num_args = 1.., value_delimiter = ',')]
    only: Vec<String>,
    /// Output directory: results/*.csv|json, plots/*.svg, index.html.
    #[arg(long, default_value = "lab-report")]
    out: PathBuf,
    /// Pairing curves for the experiments that sweep curves (default: both).
    #[arg(long, value_delimiter = ',')]
    curve: Vec<String>,
    /// Seed of the generated keys, policies and attribute sets.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// Measure again the points an earlier run already measured.
    #[arg(long)]
    force: bool,
    /// No progress bars (for scripts).
    #[arg(long)]
    quiet: bool,
    /// A directory of extra board profiles (*.toml, like crates/abbe-lab/data/devices/re-mote.toml).
    #[arg(long)]
    devices: Option<PathBuf>,
}

pub fn run(a: LabArgs) -> Result<()> {
    let curves = a
        .curve
        .iter()
        .map(|c| parse_curve(c))
        .collect::<Result<Vec<_>>>()?;
    let opts = Options {
        profile: match a.profile {
            ProfileArg::Quick => Profile::Quick,
            ProfileArg::Full => Profile::Full,
        },
        only: a.only,
        out: a.out,
        curves,
        seed: a.seed,
        force: a.force,
        quiet: a.quiet,
        devices: a.devices,
    };
    let s = abbe_lab::run(&opts).map_err(|e| CliError::Other(e.to_string()))?;
    if !a.quiet {
        eprintln!("claims:");
        for (exp, text, v) in &s.claims {
            eprintln!("  [{:>13}] {exp}: {text}", v.label());
        }
    }
    println!("{} ({:.0} s)", s.index.display(), s.seconds);
    Ok(())
}
