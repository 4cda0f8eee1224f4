//! `abbe` — attribute-based encryption from the command line, shaped after
//! `age`: small commands, files or stdin/stdout, one-line errors.
//!
//! Exit codes: 0 success, 2 "your key does not satisfy this policy",
//! 3 invalid or corrupt input, 1 anything else.

mod demo;
mod inspect;
mod io;

use abbe::abe::waters11::{self, Waters11};
use abbe::curve::{Curve, CurveId};
use abbe::envelope::{self, EnvelopeError};
use abbe::kem::{Kem, KemError, Outsourcing};
use abbe::policy::{AttributeSet, Policy, PolicyError};
use abbe::wire::{ObjectKind, Preamble, SchemeId, WireError};
use clap::{Parser, Subcommand};
use rand_core::OsRng;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "abbe", version, about = "Attribute-based encryption: encrypt files to access policies", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create a public key and a master key (mode 0600) in DIR.
    Setup {
        /// The scheme: waters11 (CP-ABE, Waters 2011 with GHW11 outsourcing).
        #[arg(long, default_value = "waters11")]
        scheme: String,
        /// The pairing curve: bls12-381 (~120-bit, default) or bn254 (~100-bit).
        #[arg(long, default_value = "bls12-381")]
        curve: String,
        /// Directory to write public.key and master.key into.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite existing key files.
        #[arg(long)]
        force: bool,
    },
    /// Issue a user decryption key for a set of attributes.
    Keygen {
        /// The master key.
        #[arg(long)]
        master: PathBuf,
        /// Attributes, e.g. "doctor, cardiology, age = 42".
        #[arg(long)]
        attrs: Option<String>,
        /// (KP-ABE schemes take a policy here; waters11 is CP-ABE.)
        #[arg(long)]
        policy: Option<String>,
        /// Where to write the key.
        #[arg(short = 'o', long)]
        output: PathBuf,
    },
    /// Encrypt a file (or stdin) to a policy.
    Encrypt {
        /// The public key.
        #[arg(long)]
        public: PathBuf,
        /// The access policy, e.g. "(doctor and cardiology) or 2 of (nurse, ward25, age >= 30)".
        /// Infix, DET-ABE postfix ("A B 2of2") and AES4SeC formulas ("(A,B,2)") are accepted.
        #[arg(long)]
        policy: Option<String>,
        /// (KP-ABE schemes take attributes here; waters11 is CP-ABE.)
        #[arg(long)]
        attrs: Option<String>,
        /// Output file (default: stdout).
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        /// Input file (default: stdin).
        input: Option<PathBuf>,
    },
    /// Decrypt a ciphertext with a user key, or a transformed ciphertext with a retrieval key.
    Decrypt {
        /// A user key, or a retrieval key for a transformed ciphertext.
        #[arg(long)]
        key: PathBuf,
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        input: Option<PathBuf>,
    },
    /// Split a user key into a transformation key (for a proxy) and a retrieval key (kept secret).
    TransformKey {
        #[arg(long)]
        key: PathBuf,
        #[arg(long)]
        tk: PathBuf,
        #[arg(long)]
        rk: PathBuf,
    },
    /// Partially decrypt a ciphertext with a transformation key (what a proxy runs).
    Transform {
        #[arg(long)]
        tk: PathBuf,
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        input: Option<PathBuf>,
    },
    /// Describe a key or ciphertext (never prints secret material).
    Inspect { file: PathBuf },
    /// A short guided run: setup, two keys, encrypt, decrypt, refusal, outsourcing.
    Demo {
        /// The pairing curve.
        #[arg(long, default_value = "bls12-381")]
        curve: String,
    },
}

/// A CLI failure with its exit code.
#[derive(Debug)]
pub enum CliError {
    /// Exit 2: the key does not satisfy the policy.
    NotSatisfied,
    /// Exit 3: invalid or corrupt input.
    Invalid(String),
    /// Exit 1: anything else (I/O, usage).
    Other(String),
}

impl CliError {
    fn code(&self) -> u8 {
        match self {
            CliError::NotSatisfied => 2,
            CliError::Invalid(_) => 3,
            CliError::Other(_) => 1,
        }
    }
    fn message(&self) -> String {
        match self {
            CliError::NotSatisfied => "your key does not satisfy this ciphertext's policy".into(),
            CliError::Invalid(m) | CliError::Other(m) => m.clone(),
        }
    }
}

impl From<KemError> for CliError {
    fn from(e: KemError) -> Self {
        match e {
            KemError::NotSatisfied => CliError::NotSatisfied,
            other => CliError::Invalid(other.to_string()),
        }
    }
}
impl From<WireError> for CliError {
    fn from(e: WireError) -> Self {
        CliError::Invalid(e.to_string())
    }
}
impl From<PolicyError> for CliError {
    fn from(e: PolicyError) -> Self {
        CliError::Invalid(e.to_string())
    }
}
impl From<EnvelopeError> for CliError {
    fn from(e: EnvelopeError) -> Self {
        match e {
            EnvelopeError::Io(io) => CliError::Other(format!("I/O error: {io}")),
            EnvelopeError::Stream(envelope::StreamError::Io(io)) => {
                CliError::Other(format!("I/O error: {io}"))
            }
            other => CliError::Invalid(format!("corrupt ciphertext: {other}")),
        }
    }
}

pub type Result<T> = std::result::Result<T, CliError>;

/// Runs `$body` with `$C` bound to the curve type named by `$id`.
macro_rules! on_curve {
    ($id:expr, $C:ident => $body:expr) => {
        match $id {
            abbe::curve::CurveId::Bls12_381 => {
                type $C = abbe::curve::Bls12;
                $body
            }
            abbe::curve::CurveId::Bn254 => {
                type $C = abbe::curve::Bn254;
                $body
            }
        }
    };
}
pub(crate) use on_curve;

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
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("abbe: error: {}", e.message());
            ExitCode::from(e.code())
        }
    }
}

fn parse_curve(name: &str) -> Result<CurveId> {
    CurveId::from_name(name).ok_or_else(|| {
        CliError::Other(format!(
            "unknown curve '{name}' (expected bls12-381 or bn254)"
        ))
    })
}

fn parse_scheme(name: &str) -> Result<SchemeId> {
    SchemeId::from_name(name).ok_or_else(|| {
        CliError::Other(format!(
            "unknown scheme '{name}' (this build supports: waters11)"
        ))
    })
}

/// Reads a key file and checks its preamble.
fn read_object(path: &std::path::Path, expected: &[ObjectKind]) -> Result<(Preamble, Vec<u8>)> {
    let bytes = io::read_small_file(path)?;
    let pre = Preamble::parse(&bytes)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))?;
    if !expected.contains(&pre.kind) {
        return Err(CliError::Invalid(format!(
            "{}: this is a {}, expected a {}",
            path.display(),
            pre.kind.describe(),
            expected
                .iter()
                .map(|k| k.describe())
                .collect::<Vec<_>>()
                .join(" or ")
        )));
    }
    Ok((pre, bytes))
}

/// The argument a CP-ABE command needs, or an error that says which side
/// takes the policy when the user gave the other one.
fn cp_abe_side(
    given: Option<String>,
    other_given: bool,
    wrong_side: &str,
    missing: &str,
) -> Result<String> {
    match given {
        Some(v) => Ok(v),
        None if other_given => Err(CliError::Other(wrong_side.into())),
        None => Err(CliError::Other(missing.into())),
    }
}

fn run(cmd: Command) -> Result<()> {
    match cmd {
        Command::Setup {
            scheme,
            curve,
            out,
            force,
        } => {
            parse_scheme(&scheme)?;
            let curve = parse_curve(&curve)?;
            let (pk, mk) = on_curve!(curve, C => {
                let (pk, mk) = Waters11::<C>::setup(&mut OsRng);
                (pk.to_bytes(), mk.to_bytes())
            });
            std::fs::create_dir_all(&out)
                .map_err(|e| CliError::Other(format!("cannot create {}: {e}", out.display())))?;
            let pk_path = out.join("public.key");
            let mk_path = out.join("master.key");
            if !force {
                for p in [&pk_path, &mk_path] {
                    if p.exists() {
                        return Err(CliError::Other(format!(
                            "{} already exists (use --force to overwrite)",
                            p.display()
                        )));
                    }
                }
            }
            io::write_atomic(&mk_path, &mk, io::Secrecy::Secret)?;
            io::write_atomic(&pk_path, &pk, io::Secrecy::Public)?;
            eprintln!(
                "abbe: wrote {} and {} (keep the master key secret)",
                pk_path.display(),
                mk_path.display()
            );
            Ok(())
        }
        Command::Keygen {
            master,
            attrs,
            policy,
            output,
        } => {
            let attrs = cp_abe_side(
                attrs,
                policy.is_some(),
                "waters11 is ciphertext-policy ABE: keys take attributes (--attrs \"a, b, age = 42\"); the policy goes to `abbe encrypt --policy`",
                "keygen needs --attrs \"a, b, ...\"",
            )?;
            let set = AttributeSet::parse(&attrs)?;
            let (pre, bytes) = read_object(&master, &[ObjectKind::MasterKey])?;
            let key = on_curve!(pre.curve, C => {
                let mk = waters11::MasterKey::<C>::from_bytes(&bytes)?;
                let pk = mk.public_key();
                Waters11::<C>::keygen(&pk, &mk, &set, &mut OsRng)?.to_bytes()
            });
            io::write_atomic(&output, &key, io::Secrecy::Secret)
        }
        Command::Encrypt {
            public,
            policy,
            attrs,
            output,
            input,
        } => {
            let policy = cp_abe_side(
                policy,
                attrs.is_some(),
                "waters11 is ciphertext-policy ABE: ciphertexts take a policy (--policy \"a and b\"); attributes go to `abbe keygen --attrs`",
                "encrypt needs --policy \"...\"",
            )?;
            let policy = Policy::parse_any(&policy)?;
            let (pre, bytes) = read_object(&public, &[ObjectKind::PublicKey])?;
            let (session, header) = on_curve!(pre.curve, C => {
                let pk = waters11::PublicKey::<C>::from_bytes(&bytes)?;
                let (k, h) = Waters11::<C>::encapsulate(&pk, &policy, &mut OsRng)?;
                (k, h.to_bytes())
            });
            let reader = io::open_input(input.as_ref())?;
            io::with_output(output.as_ref(), io::Secrecy::Public, |w| {
                envelope::seal(&header, &session, &mut OsRng, reader, w)?;
                Ok(())
            })
        }
        Command::Decrypt { key, output, input } => {
            let (kpre, kbytes) =
                read_object(&key, &[ObjectKind::UserKey, ObjectKind::RetrievalKey])?;
            let mut reader = io::open_input(input.as_ref())?;
            let head = envelope::read_head(&mut reader)?;
            let hpre = Preamble::parse(&head.header)?;
            if hpre.curve != kpre.curve || hpre.scheme != kpre.scheme {
                return Err(CliError::Invalid(format!(
                    "the key is for {} on {}, the ciphertext for {} on {}",
                    kpre.scheme.name(),
                    kpre.curve.name(),
                    hpre.scheme.name(),
                    hpre.curve.name()
                )));
            }
            let session = on_curve!(kpre.curve, C => {
                match (head.preamble.kind, kpre.kind) {
                    (ObjectKind::Ciphertext, ObjectKind::UserKey) => {
                        let uk = waters11::UserKey::<C>::from_bytes(&kbytes)?;
                        let h = waters11::Header::<C>::from_bytes(&head.header)?;
                        Waters11::<C>::decapsulate(&uk, &h)?
                    }
                    (ObjectKind::TransformedCiphertext, ObjectKind::RetrievalKey) => {
                        let rk = waters11::RetrievalKey::<C>::from_bytes(&kbytes)?;
                        let t = waters11::Transformed::<C>::from_bytes(&head.header)?;
                        Waters11::<C>::decrypt_transformed(&rk, &t)?
                    }
                    (ObjectKind::TransformedCiphertext, _) => {
                        return Err(CliError::Invalid(
                            "this is a transformed ciphertext: decrypt it with the retrieval key (--key alice.rk)".into(),
                        ))
                    }
                    _ => {
                        return Err(CliError::Invalid(
                            "a retrieval key only decrypts transformed ciphertexts (run `abbe transform` first, or use the user key)".into(),
                        ))
                    }
                }
            });
            io::with_output(output.as_ref(), io::Secrecy::Secret, |w| {
                envelope::open(&head, &session, reader, w)?;
                Ok(())
            })
        }
        Command::TransformKey { key, tk, rk } => {
            let (pre, bytes) = read_object(&key, &[ObjectKind::UserKey])?;
            let (tkb, rkb) = on_curve!(pre.curve, C => {
                let uk = waters11::UserKey::<C>::from_bytes(&bytes)?;
                let (t, r) = Waters11::<C>::transform_key(&uk, &mut OsRng);
                (t.to_bytes(), r.to_bytes())
            });
            io::write_atomic(&rk, &rkb, io::Secrecy::Secret)?;
            io::write_atomic(&tk, &tkb, io::Secrecy::Secret)
        }
        Command::Transform { tk, output, input } => {
            let (pre, bytes) = read_object(&tk, &[ObjectKind::TransformKey])?;
            let mut reader = io::open_input(input.as_ref())?;
            let head = envelope::read_head(&mut reader)?;
            if head.preamble.kind != ObjectKind::Ciphertext {
                return Err(CliError::Invalid(
                    "this ciphertext is already transformed".into(),
                ));
            }
            let hpre = Preamble::parse(&head.header)?;
            if hpre.curve != pre.curve || hpre.scheme != pre.scheme {
                return Err(CliError::Invalid(
                    "the transformation key and the ciphertext are for different curves or schemes"
                        .into(),
                ));
            }
            let transformed = on_curve!(pre.curve, C => {
                let t = waters11::TransformKey::<C>::from_bytes(&bytes)?;
                let h = waters11::Header::<C>::from_bytes(&head.header)?;
                Waters11::<C>::transform(&t, &h)?.to_bytes()
            });
            io::with_output(output.as_ref(), io::Secrecy::Public, |w| {
                envelope::write_transformed(&head, &transformed, reader, w)?;
                Ok(())
            })
        }
        Command::Inspect { file } => inspect::run(&file),
        Command::Demo { curve } => demo::run(parse_curve(&curve)?),
    }
}

/// The curve's name and security level, for messages.
pub fn curve_label(id: CurveId) -> String {
    on_curve!(id, C => format!("{} (~{}-bit security)", C::NAME, C::SECURITY_BITS))
}
