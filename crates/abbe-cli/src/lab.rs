//! `abbe lab`: runs the lab's experiments (crates/abbe-lab) and writes the
//! report. Compiled into both binaries: `abbe lab` hands its arguments to
//! the `abbe-lab` binary beside it, whose global allocator is the lab's
//! instrumented System allocator (so the report has the peak heap of each
//! operation, and the other `abbe` commands do not pay for counting).

use abbe::curve::CurveId;
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
    /// Run only these experiments; the report still shows every experiment with stored results.
    #[arg(long, num_args = 1.., value_delimiter = ',', value_parser = experiment_names())]
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
    /// Milliseconds to spend on each timed point instead of the profile's
    /// (quick 150, full 1500; the minimum repetitions still apply): 0 for a
    /// smoke run of every experiment, more for tighter figures.
    #[arg(long, value_name = "MS")]
    point_time: Option<u64>,
}

/// The lab's experiments, by name (the lab's own list).
fn experiment_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        abbe_lab::experiments::all().into_iter().map(|e| e.name),
    )
}

pub fn run(a: LabArgs) -> Result<(), String> {
    let curves = a
        .curve
        .iter()
        .map(|c| {
            CurveId::from_name(c)
                .filter(|c| *c != CurveId::P256)
                .ok_or_else(|| {
                    format!(
                        "unknown curve '{c}' (expected bn254, bls12-381, bls24-479 or bls48-581)"
                    )
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
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
        point_time: a.point_time.map(std::time::Duration::from_millis),
    };
    let s = abbe_lab::run(&opts).map_err(|e| e.to_string())?;
    if s.under_load.0 > 0 {
        eprintln!(
            "abbe lab: warning: {} of {} timed points were measured under load (other processes kept more than the spare cores busy); verdicts use process CPU time, but a busy neighbour on a shared core still slows some code, so verdicts near a threshold may differ from an idle run's",
            s.under_load.0, s.under_load.1
        );
    }
    if !a.quiet {
        eprintln!("claims:");
        for (exp, text, v) in &s.claims {
            eprintln!("  [{:>13}] {exp}: {text}", v.label());
        }
    }
    println!("{} ({:.0} s)", s.index.display(), s.seconds);
    Ok(())
}
