//! `abbe-lab`: the lab behind `abbe lab` (which runs this binary with its
//! arguments). Its own binary so that only the lab counts heap bytes: the
//! global allocator here is the lab's instrumented System allocator (two
//! atomic updates per allocation), which gives the report the peak heap of
//! each operation.

use clap::Parser;
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: &peakmem_alloc::PeakMemAlloc<std::alloc::System> =
    &peakmem_alloc::INSTRUMENTED_SYSTEM;

#[path = "../lab.rs"]
mod lab;

#[derive(Parser)]
#[command(
    name = "abbe lab",
    version,
    about = "The lab: regenerate the papers' tables and figures here, with the papers' values beside ours"
)]
struct Cli {
    #[command(flatten)]
    args: lab::LabArgs,
}

fn main() -> ExitCode {
    match lab::run(Cli::parse().args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) => {
            eprintln!("abbe: error: {m}");
            ExitCode::from(1)
        }
    }
}
