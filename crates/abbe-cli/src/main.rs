//! `abbe` — attribute-based encryption from the command line, shaped after
//! `age`: small commands, files or stdin/stdout, one-line errors.
//!
//! Exit codes: 0 success, 2 "your key does not satisfy this policy",
//! 3 invalid or corrupt input, 1 anything else.

mod broadcast;
mod cmd;
mod demo;
mod dispatch;
mod error;
mod inspect;
mod interrupt;
mod io;
mod keyfile;
mod lab;
mod ops;
mod passphrase;
mod progress;
mod proxy;
mod vocabulary;

use clap::{Parser, Subcommand};
pub(crate) use cmd::decrypt::{check_expected_header, open_payload};
pub(crate) use dispatch::{check_same_setup, curve_label, parse_curve};
pub(crate) use error::{CliError, Result};
pub(crate) use keyfile::read_object;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "abbe",
    version,
    about = "Attribute-based encryption: encrypt files to access policies",
    long_about = None,
    after_help = GLOBAL_OPTIONS
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    // Both options below are taken by every command but shown once, here
    // (GLOBAL_OPTIONS), not in every command's help.
    #[arg(long, global = true, hide = true)]
    insecure_benchmark_only: bool,
    #[arg(long, global = true, hide = true, value_name = "UNITS", default_value_t = abbe::policy::limits::DEFAULT_MAX_POLICY_WORK)]
    max_policy_work: u64,
}

const GLOBAL_OPTIONS: &str = "\
Options every command takes:
      --max-policy-work <UNITS>  The policy work budget: the most non-zero entries a policy's
                                 LSSS matrix may have (a k-of-n gate costs n·(k−1)), enforced on
                                 policies you give and on every ciphertext and key read, before
                                 any group operation. Raise it only for big threshold policies
                                 you trust [default: 32768]
      --insecure-benchmark-only  Allow a BROKEN scheme (published attacks; `abbe schemes`) on
                                 this command: only to reproduce published benchmarks, and only
                                 in a build with the `insecure-benchmark-only` feature";

#[derive(Subcommand)]
enum Command {
    /// The schemes of this build: family, security levels, placements, what
    /// setup takes and what each is for.
    Schemes,
    /// Create a public key and a master key (mode 0600) in DIR.
    Setup(cmd::setup::Args),
    /// Issue a user decryption key for a set of attributes.
    Keygen(cmd::keygen::Args),
    /// Create a BLS signing key (mode 0600) and its public verifying key, for
    /// `abbe encrypt --sign-with` and `abbe decrypt --verify-with`.
    SignerKeygen(cmd::signer_keygen::Args),
    /// Encrypt a file (or stdin) to a policy.
    Encrypt(cmd::encrypt::Args),
    /// Decrypt a ciphertext with a user key, or a transformed ciphertext with a retrieval key.
    /// With --proxy and --tk-id, a ciphertext is transformed by an outsourcing proxy
    /// (only its KEM header is sent) and finished here with the retrieval key.
    Decrypt(cmd::decrypt::Args),
    /// Trace a pirate decoder (a command reading a ciphertext on stdin) to a
    /// user whose key is in it (the schemes with tracing in `abbe schemes`).
    Trace(cmd::trace::Args),
    /// Split a user key into a transformation key (for a proxy) and a retrieval key (kept secret).
    TransformKey(cmd::transform_key::Args),
    /// Partially decrypt a ciphertext with a transformation key (what a proxy runs).
    Transform(cmd::transform::Args),
    /// The outsourcing proxy: serve, tokens, TK registration.
    #[command(subcommand)]
    Proxy(proxy::ProxyCommand),
    /// Publish and subscribe through an MQTT broker that sees only ciphertext.
    #[command(subcommand)]
    Mqtt(cmd::mqtt::MqttCommand),
    /// Describe a key or ciphertext (never prints secret material).
    Inspect {
        /// The key, ciphertext or other abbe object (armored or binary).
        file: PathBuf,
        /// One JSON object of the fields' values (sizes as numbers, the
        /// header id as hex), for scripts.
        #[arg(long)]
        json: bool,
    },
    /// The lab: regenerate the papers' tables and figures here, with the
    /// papers' values beside ours and a verdict on each claim.
    Lab(lab::LabArgs),
    /// A short guided run: setup, two keys, encrypt, decrypt, refusal, outsourcing.
    Demo {
        /// The pairing curve.
        #[arg(long, default_value = "bls12-381")]
        curve: String,
    },
    /// Print a completion script for SHELL, e.g.
    /// `abbe completions bash > /etc/bash_completion.d/abbe`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `abbe manpage > abbe.1; man ./abbe.1`.
    Manpage,
}

fn main() -> ExitCode {
    // clap exits with 2 on usage errors, which is our "not satisfied" code:
    // report usage errors as 1 instead.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    dispatch::INSECURE_ALLOWED.store(
        cli.insecure_benchmark_only,
        std::sync::atomic::Ordering::Relaxed,
    );
    abbe::policy::limits::set_max_policy_work(cli.max_policy_work);
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("abbe: error: {}", e.message());
            ExitCode::from(e.code())
        }
    }
}

fn run(cmd: Command) -> Result<()> {
    match cmd {
        Command::Schemes => cmd::schemes::run(),
        Command::Setup(a) => cmd::setup::run(a),
        Command::Keygen(a) => cmd::keygen::run(a),
        Command::SignerKeygen(a) => cmd::signer_keygen::run(a),
        Command::Trace(a) => cmd::trace::run(a),
        Command::Encrypt(a) => cmd::encrypt::run(a),
        Command::Decrypt(a) => cmd::decrypt::run(a),
        Command::TransformKey(a) => cmd::transform_key::run(a),
        Command::Transform(a) => cmd::transform::run(a),
        Command::Proxy(cmd) => proxy::run(cmd),
        Command::Mqtt(cmd) => cmd::mqtt::run(cmd),
        Command::Inspect { file, json } => inspect::run(&file, json),
        Command::Demo { curve } => demo::run(parse_curve(&curve)?),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "abbe", &mut text);
            print_all(&text)
        }
        Command::Manpage => {
            use clap::CommandFactory;
            let mut text = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut text)
                .map_err(|e| CliError::Other(format!("cannot render the manual page: {e}")))?;
            print_all(&text)
        }
        Command::Lab(args) => run_lab(args),
    }
}

/// Writes `text` to stdout; a reader that stopped early (`| head`) is no
/// error.
fn print_all(text: &[u8]) -> Result<()> {
    use std::io::Write as _;
    match std::io::stdout().lock().write_all(text) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::Other(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

/// `abbe lab` runs in the `abbe-lab` binary beside this one (its allocator
/// counts the peak heap); a lone `abbe` runs the lab here, without
/// peak-heap figures.
fn run_lab(args: lab::LabArgs) -> Result<()> {
    let name = format!("abbe-lab{}", std::env::consts::EXE_SUFFIX);
    let sibling = std::env::current_exe()
        .map(|exe| exe.with_file_name(name))
        .ok()
        .filter(|p| p.is_file());
    let Some(sibling) = sibling else {
        eprintln!("abbe: abbe-lab is not beside this binary: the lab runs without peak-heap figures (`cargo build --release -p abbe-cli` builds both)");
        return lab::run(args).map_err(CliError::Other);
    };
    let rest = std::env::args_os().skip_while(|a| a != "lab").skip(1);
    let status = std::process::Command::new(&sibling)
        .args(rest)
        .status()
        .map_err(|e| CliError::Other(format!("cannot run {}: {e}", sibling.display())))?;
    match status.code() {
        Some(0) => Ok(()),
        // It said why on stderr.
        code => std::process::exit(code.unwrap_or(1)),
    }
}

#[cfg(test)]
mod tests {
    /// clap's own checks of every command (no flag twice, short flags
    /// unique), which release builds skip.
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }

    #[test]
    fn the_global_options_text_states_the_real_default() {
        let default = abbe::policy::limits::DEFAULT_MAX_POLICY_WORK;
        assert!(super::GLOBAL_OPTIONS.contains(&format!("[default: {default}]")));
    }
}
