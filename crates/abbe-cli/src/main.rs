//! `abbe` — attribute-based encryption from the command line, shaped after
//! `age`: small commands, files or stdin/stdout, one-line errors.
//!
//! Exit codes: 0 success, 2 "your key does not satisfy this policy",
//! 3 invalid or corrupt input, 1 anything else.

mod broadcast;
mod demo;
mod inspect;
mod io;
mod keyfile;
mod lab;
mod ops;
mod passphrase;
mod progress;
mod proxy;

use abbe::curve::CurveId;
use abbe::envelope::{self, EnvelopeError};
use abbe::kem::{Kem, KemError, Side};
use abbe::policy::PolicyError;
use abbe::wire::{ObjectKind, Preamble, SchemeId, WireError};
use clap::{Parser, Subcommand};
use rand_core::OsRng;
use std::path::PathBuf;
use std::process::ExitCode;

// Counts heap bytes (current and peak) so `abbe lab` can report the peak
// heap of each operation; two relaxed atomic updates per allocation.
#[global_allocator]
static ALLOCATOR: &peakmem_alloc::PeakMemAlloc<std::alloc::System> =
    &peakmem_alloc::INSTRUMENTED_SYSTEM;

#[derive(Parser)]
#[command(name = "abbe", version, about = "Attribute-based encryption: encrypt files to access policies", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Allow the BROKEN yct14 scheme (published attacks) on this command:
    /// only to reproduce published benchmarks, and only in a build with the
    /// `insecure-benchmark-only` feature.
    #[arg(long, global = true)]
    insecure_benchmark_only: bool,
    /// The policy work budget: the most non-zero entries a policy's LSSS
    /// matrix may have (a k-of-n gate costs n·(k−1)), enforced on policies
    /// you give and on every ciphertext and key read, before any group
    /// operation. Raise it only for big threshold policies you trust.
    #[arg(long, global = true, value_name = "UNITS", default_value_t = abbe::policy::limits::DEFAULT_MAX_POLICY_WORK)]
    max_policy_work: u64,
}

/// Whether this run may touch YCT14 objects (`--insecure-benchmark-only`).
static INSECURE_ALLOWED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Why YCT14 is refused, when it is: every dispatch of a YCT14 object goes
/// through here ([`any_scheme`], the small-universe setup), so no command
/// can reach the broken scheme by accident.
pub(crate) fn yct14_refusal() -> Option<CliError> {
    const WHY: &str = "yct14 is BROKEN (published attacks recover keys and plaintexts): it exists only to reproduce perazzo's benchmarks";
    if !cfg!(feature = "insecure-benchmark-only") {
        return Some(CliError::Other(format!(
            "{WHY}, and this build of abbe does not include it (build abbe-cli with --features insecure-benchmark-only; `abbe lab` measures it either way)"
        )));
    }
    (!INSECURE_ALLOWED.load(std::sync::atomic::Ordering::Relaxed)).then(|| {
        CliError::Other(format!(
            "{WHY}; pass --insecure-benchmark-only if that is what you are doing"
        ))
    })
}

#[derive(Subcommand)]
enum Command {
    /// Create a public key and a master key (mode 0600) in DIR.
    Setup {
        /// The scheme: waters11, bsw07, fame-cp (ciphertext-policy); gpsw06,
        /// gpsw06-small, fame-kp (key-policy); yct14 (BROKEN, needs
        /// --insecure-benchmark-only).
        #[arg(long, default_value = "waters11")]
        scheme: String,
        /// Attribute universe for small-universe schemes (gpsw06-small, yct14),
        /// e.g. "doctor, nurse, cardiology".
        #[arg(long)]
        universe: Option<String>,
        /// Number of users N, for broadcast schemes (bgw05, bgw05-sqrt, gw09,
        /// waters09, elgamal-p256; default 1024).
        #[arg(long)]
        users: Option<u32>,
        /// Security level: 100 (BN254 + AES-128-GCM), 128 (BLS12-381 +
        /// AES-256-GCM, the default), 192 (BLS24-479 + AES-192-GCM), 256
        /// (BLS48-581 + AES-256-GCM).
        #[arg(long, conflicts_with = "curve")]
        level: Option<u32>,
        /// For experts: the pairing curve (bn254, bls12-381, bls24-479,
        /// bls48-581); the AES key size follows the curve's level.
        #[arg(long)]
        curve: Option<String>,
        /// Directory to write public.key and master.key into.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite existing key files.
        #[arg(long)]
        force: bool,
        /// Write both keys as ASCII armor (BEGIN ABBE ... KEY).
        #[arg(long)]
        armor: bool,
        /// Protect master.key with a passphrase (from $ABBE_PASSPHRASE_FILE or the terminal).
        #[arg(long)]
        passphrase: bool,
    },
    /// Issue a user decryption key for a set of attributes.
    Keygen {
        /// The master key.
        #[arg(long)]
        master: PathBuf,
        /// Attributes, e.g. "doctor, cardiology, age = 42" (ciphertext-policy schemes).
        #[arg(long)]
        attrs: Option<String>,
        /// A policy, for key-policy schemes.
        #[arg(long)]
        policy: Option<String>,
        /// A user index i in [1, N], for broadcast schemes.
        #[arg(long)]
        user: Option<u32>,
        /// The setup's public key, for broadcast schemes: read instead of
        /// recomputed from the master key (BGW05's is O(N), 35 s at 10^6 users).
        #[arg(long)]
        public: Option<PathBuf>,
        /// Where to write the key.
        #[arg(short = 'o', long)]
        output: PathBuf,
        /// Write the key as ASCII armor.
        #[arg(long)]
        armor: bool,
        /// Protect the key with a passphrase (from $ABBE_PASSPHRASE_FILE or the terminal).
        #[arg(long)]
        passphrase: bool,
    },
    /// Create a BLS signing key (mode 0600) and its public verifying key, for
    /// `abbe encrypt --sign-with` and `abbe decrypt --verify-with`.
    SignerKeygen {
        /// Security level (100, 128, 192, 256): must match the level of the
        /// public keys you encrypt to.
        #[arg(long, conflicts_with = "curve")]
        level: Option<u32>,
        /// For experts: the pairing curve.
        #[arg(long)]
        curve: Option<String>,
        /// The signing key file, e.g. owner.sig.key.
        #[arg(short = 'o', long)]
        output: PathBuf,
        /// The verifying key file (default: the signing key's name with .pub
        /// for .key, e.g. owner.sig.pub).
        #[arg(long)]
        public: Option<PathBuf>,
        /// Overwrite existing key files.
        #[arg(long)]
        force: bool,
        /// Write both keys as ASCII armor.
        #[arg(long)]
        armor: bool,
        /// Protect the signing key with a passphrase (from $ABBE_PASSPHRASE_FILE or the terminal).
        #[arg(long)]
        passphrase: bool,
    },
    /// Encrypt a file (or stdin) to a policy.
    Encrypt {
        /// The public key.
        #[arg(long)]
        public: PathBuf,
        /// The access policy, for ciphertext-policy schemes, e.g. "(doctor and cardiology)
        /// or 2 of (nurse, ward25, age >= 30)". Infix, DET-ABE postfix ("A B 2of2") and
        /// AES4SeC formulas ("(A,B,2)") are accepted.
        #[arg(long)]
        policy: Option<String>,
        /// Attributes, for key-policy schemes (gpsw06, gpsw06-small, fame-kp, yct14).
        #[arg(long)]
        attrs: Option<String>,
        /// Recipients for broadcast schemes: indices and ranges, e.g. "1-1000,2000,3000-3100".
        #[arg(long)]
        to: Option<String>,
        /// A file of recipient indices (whitespace, comma or newline separated, ranges allowed).
        #[arg(long)]
        to_file: Option<PathBuf>,
        /// cca (default), rcca (outsourceable through a proxy, checked), cpa
        /// (outsourceable, GHW11's CPA scheme).
        #[arg(long, value_enum, default_value = "cca")]
        mode: ops::Mode,
        /// Sign the header and the whole plaintext with this signing key
        /// (`abbe signer-keygen`); the signature is encrypted with the data,
        /// so only readers who can decrypt learn who signed.
        #[arg(long, value_name = "KEY")]
        sign_with: Option<PathBuf>,
        /// Write the ciphertext as ASCII armor (BEGIN ABBE ENCRYPTED FILE).
        #[arg(long)]
        armor: bool,
        /// Output file (default: stdout).
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        /// Input file (default: stdin).
        input: Option<PathBuf>,
    },
    /// Decrypt a ciphertext with a user key, or a transformed ciphertext with a retrieval key.
    /// With --proxy and --tk-id, a ciphertext is transformed by an outsourcing proxy
    /// (only its KEM header is sent) and finished here with the retrieval key.
    Decrypt {
        /// A user key, or a retrieval key for a transformed ciphertext or --proxy.
        #[arg(long)]
        key: PathBuf,
        /// An outsourcing proxy (`abbe proxy serve`), e.g. http://127.0.0.1:8700 or https://...
        #[arg(long, requires = "tk_id")]
        proxy: Option<String>,
        /// The id of your transformation key on the proxy (`abbe proxy register`).
        #[arg(long, requires = "proxy")]
        tk_id: Option<String>,
        /// Trust only the CA certificate(s) of this PEM file for an https:// proxy (default: Mozilla's roots).
        #[arg(long, value_name = "FILE", requires = "proxy")]
        proxy_ca: Option<PathBuf>,
        /// A file holding your tenant's bearer token (default: $ABBE_PROXY_TOKEN).
        #[arg(long)]
        token_file: Option<PathBuf>,
        /// Require a valid signature by this verifying key (`abbe
        /// signer-keygen`): unsigned files and files signed by anyone else are
        /// refused. (A signature that is present is always checked.)
        #[arg(long, value_name = "PUBLIC KEY")]
        verify_with: Option<PathBuf>,
        /// Accept a CPA ciphertext or CPA transformation (`encrypt --mode
        /// cpa`): nothing checks those, so whoever made it chose its content.
        #[arg(long)]
        allow_cpa: bool,
        /// Decrypt a transformed file only if it is a transformation of the
        /// ciphertext whose header id `abbe inspect` printed (RCCA files):
        /// a proxy that hands back whole transformed files could otherwise
        /// substitute any ciphertext it can create.
        #[arg(long, value_name = "HEADER ID")]
        expect_header: Option<String>,
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
        /// Write both keys as ASCII armor.
        #[arg(long)]
        armor: bool,
        /// Protect the retrieval key with a passphrase (the transformation key goes to the proxy).
        #[arg(long)]
        passphrase: bool,
    },
    /// Partially decrypt a ciphertext with a transformation key (what a proxy runs).
    Transform {
        #[arg(long)]
        tk: PathBuf,
        /// Write the transformed file as ASCII armor.
        #[arg(long)]
        armor: bool,
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        input: Option<PathBuf>,
    },
    /// The outsourcing proxy: serve, tokens, TK registration.
    #[command(subcommand)]
    Proxy(proxy::ProxyCommand),
    /// Describe a key or ciphertext (never prints secret material).
    Inspect { file: PathBuf },
    /// The lab: regenerate the papers' tables and figures here, with the
    /// papers' values beside ours and a verdict on each claim.
    Lab(lab::LabArgs),
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
            EnvelopeError::Io(io) | EnvelopeError::Stream(envelope::StreamError::Io(io)) => {
                // A malformed armor around the ciphertext is corrupt input.
                match abbe::armor::ArmorError::from_io(&io) {
                    Some(a) => CliError::Invalid(format!("corrupt ciphertext: {a}")),
                    None => CliError::Other(format!("I/O error: {io}")),
                }
            }
            e @ (EnvelopeError::NotSigned
            | EnvelopeError::WrongSigner { .. }
            | EnvelopeError::Signature(_)) => CliError::Invalid(format!("refused: {e}")),
            e @ EnvelopeError::SignerCurve { .. } => CliError::Other(e.to_string()),
            other => CliError::Invalid(format!("corrupt ciphertext: {other}")),
        }
    }
}
impl From<abbe::signature::SignatureError> for CliError {
    fn from(e: abbe::signature::SignatureError) -> Self {
        CliError::Invalid(e.to_string())
    }
}

impl From<abbe::outsource::OutsourceError> for CliError {
    fn from(e: abbe::outsource::OutsourceError) -> Self {
        use abbe::outsource::OutsourceError as E;
        match e {
            E::Kem(k) => k.into(),
            E::Unsupported(_) => CliError::Other(e.to_string()),
            other => CliError::Invalid(other.to_string()),
        }
    }
}

pub type Result<T> = std::result::Result<T, CliError>;

/// Runs `$body` with `$C` bound to the pairing curve named by `$id` (every
/// security level: bn254, bls12-381, bls24-479, bls48-581).
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
            abbe::curve::CurveId::Bls24_479 => {
                type $C = abbe::curve::Bls24;
                $body
            }
            abbe::curve::CurveId::Bls48_581 => {
                type $C = abbe::curve::Bls48;
                $body
            }
            abbe::curve::CurveId::P256 => {
                return Err($crate::CliError::Other(
                    "P-256 is not a pairing curve (it carries only the elgamal-p256 baseline)"
                        .into(),
                )
                .into())
            }
        }
    };
}
pub(crate) use on_curve;

/// Like [`on_curve`] for the schemes offered on BLS12-381 and BN254 only
/// (broadcast encryption and the broken YCT14, both benchmarked there).
macro_rules! on_classic_curve {
    ($scheme:expr, $id:expr, $C:ident => $body:expr) => {
        match $id {
            abbe::curve::CurveId::Bls12_381 => {
                type $C = abbe::curve::Bls12;
                $body
            }
            abbe::curve::CurveId::Bn254 => {
                type $C = abbe::curve::Bn254;
                $body
            }
            c => {
                return Err($crate::CliError::Other(format!(
                    "{} is offered on bls12-381 and bn254 only, not on {}",
                    $scheme.name(),
                    c.name()
                ))
                .into())
            }
        }
    };
}
pub(crate) use on_classic_curve;

/// Runs `$body` with `$K` bound to the scheme type named by the preamble's
/// scheme and curve. `$body` returns a `Result`.
macro_rules! any_scheme {
    ($pre:expr, $K:ident => $body:expr) => {{
        use abbe::abe::*;
        use abbe::wire::SchemeId as S;
        let pre: abbe::wire::Preamble = $pre;
        match pre.scheme {
            S::Waters11 => $crate::on_curve!(pre.curve, C => { type $K = Waters11<C>; $body }),
            S::Bsw07 => $crate::on_curve!(pre.curve, C => { type $K = Bsw07<C>; $body }),
            S::FameCp => $crate::on_curve!(pre.curve, C => { type $K = FameCp<C>; $body }),
            S::FameKp => $crate::on_curve!(pre.curve, C => { type $K = FameKp<C>; $body }),
            S::Gpsw06 => $crate::on_curve!(pre.curve, C => { type $K = Gpsw06<C>; $body }),
            S::Gpsw06Small => {
                $crate::on_curve!(pre.curve, C => { type $K = Gpsw06Small<C>; $body })
            }
            #[cfg(feature = "insecure-benchmark-only")]
            S::Yct14 => {
                if let Some(e) = $crate::yct14_refusal() {
                    return Err(e.into());
                }
                $crate::on_classic_curve!(pre.scheme, pre.curve, C => {
                    type $K = yct14::InsecureYct14<C>;
                    $body
                })
            }
            #[cfg(not(feature = "insecure-benchmark-only"))]
            S::Yct14 => {
                return Err($crate::yct14_refusal()
                    .unwrap_or_else(|| CliError::Other("yct14 is not in this build".into()))
                    .into())
            }
            S::Bgw05 => $crate::on_classic_curve!(pre.scheme, pre.curve, C => {
                type $K = abbe::bcast::Bgw05<C>;
                $body
            }),
            S::Bgw05Sqrt => $crate::on_classic_curve!(pre.scheme, pre.curve, C => {
                type $K = abbe::bcast::Bgw05Sqrt<C>;
                $body
            }),
            S::Gw09 => $crate::on_classic_curve!(pre.scheme, pre.curve, C => {
                type $K = abbe::bcast::Gw09<C>;
                $body
            }),
            S::Waters09 => $crate::on_classic_curve!(pre.scheme, pre.curve, C => {
                type $K = abbe::bcast::Waters09<C>;
                $body
            }),
            S::ElGamalP256 if pre.curve == CurveId::P256 => {
                type $K = abbe::bcast::ElGamalP256;
                $body
            }
            s => {
                return Err(CliError::Other(format!(
                    "{} on {} is not available in the command-line tool",
                    s.name(),
                    pre.curve.name()
                ))
                .into())
            }
        }
    }};
}
pub(crate) use any_scheme;

/// Like [`any_scheme`], for the schemes with GHW11 outsourcing.
macro_rules! outsourcing_scheme {
    ($pre:expr, $K:ident => $body:expr) => {{
        use abbe::abe::*;
        use abbe::wire::SchemeId as S;
        let pre: abbe::wire::Preamble = $pre;
        match pre.scheme {
            S::Waters11 => $crate::on_curve!(pre.curve, C => { type $K = Waters11<C>; $body }),
            S::Gpsw06 => $crate::on_curve!(pre.curve, C => { type $K = Gpsw06<C>; $body }),
            s => Err(CliError::Other(format!(
                "{} does not support outsourced decryption (waters11 and gpsw06 do)",
                s.name()
            ))),
        }
    }};
}
pub(crate) use outsourcing_scheme;

/// Setup of a small-universe scheme (gpsw06-small, yct14) with the given
/// universe.
fn small_universe_setup(pre: Preamble, universe: &[String]) -> Result<(Vec<u8>, Vec<u8>)> {
    use abbe::abe::Gpsw06Small;
    use abbe::wire::Encoded;
    fn pair<P: Encoded, M: Encoded>(
        r: std::result::Result<(P, M), KemError>,
    ) -> Result<(Vec<u8>, Vec<u8>)> {
        let (pk, mk) = r?;
        Ok((pk.to_bytes(), mk.to_bytes()))
    }
    match pre.scheme {
        SchemeId::Gpsw06Small => on_curve!(pre.curve, C => pair(
            Gpsw06Small::<C>::setup_with_universe(universe, &mut OsRng),
        )),
        #[cfg(feature = "insecure-benchmark-only")]
        SchemeId::Yct14 => {
            if let Some(e) = yct14_refusal() {
                return Err(e);
            }
            on_classic_curve!(pre.scheme, pre.curve, C => pair(
                abbe::abe::yct14::InsecureYct14::<C>::setup_with_universe(universe, &mut OsRng),
            ))
        }
        _ => Err(CliError::Other(format!(
            "--universe applies only to small-universe schemes (gpsw06-small, yct14), not {}",
            pre.scheme.name()
        ))),
    }
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
    INSECURE_ALLOWED.store(
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

fn parse_curve(name: &str) -> Result<CurveId> {
    CurveId::from_name(name)
        .filter(|c| *c != CurveId::P256)
        .ok_or_else(|| {
            CliError::Other(format!(
                "unknown curve '{name}' (expected bn254, bls12-381, bls24-479 or bls48-581)"
            ))
        })
}

/// The curve of `--level` or `--curve` (clap makes them exclusive); the
/// default is level 128 (BLS12-381).
fn pick_curve(level: Option<u32>, curve: Option<&str>) -> Result<CurveId> {
    match (level, curve) {
        (Some(l), _) => CurveId::for_level(l).ok_or_else(|| {
            CliError::Other(format!(
                "unknown security level {l} (expected 100, 128, 192 or 256)"
            ))
        }),
        (None, Some(c)) => parse_curve(c),
        (None, None) => Ok(CurveId::Bls12_381),
    }
}

fn parse_scheme(name: &str) -> Result<SchemeId> {
    SchemeId::from_name(name).ok_or_else(|| {
        CliError::Other(format!(
            "unknown scheme '{name}' (this build supports: waters11)"
        ))
    })
}

/// Reads a key file (armored or not, passphrase-protected or not: see
/// `keyfile::read`) and checks its preamble.
pub(crate) fn read_object(
    path: &std::path::Path,
    expected: &[ObjectKind],
) -> Result<(Preamble, zeroize::Zeroizing<Vec<u8>>)> {
    let bytes = keyfile::read(path, expected)?;
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

fn run(cmd: Command) -> Result<()> {
    match cmd {
        Command::Setup {
            scheme,
            universe,
            users,
            level,
            curve,
            out,
            force,
            armor,
            passphrase,
        } => {
            let scheme = parse_scheme(&scheme)?;
            // The ElGamal baseline lives on NIST P-256, not on a pairing curve.
            let curve = if scheme == SchemeId::ElGamalP256 {
                CurveId::P256
            } else {
                pick_curve(level, curve.as_deref())?
            };
            if users.is_some()
                && scheme != SchemeId::ElGamalP256
                && !matches!(curve, CurveId::Bls12_381 | CurveId::Bn254)
            {
                return Err(CliError::Other(format!(
                    "broadcast schemes are offered on bls12-381 and bn254 only, not on {}",
                    curve.name()
                )));
            }
            if scheme == SchemeId::Yct14 {
                if let Some(e) = yct14_refusal() {
                    return Err(e);
                }
            }
            let pre = Preamble::new(ObjectKind::PublicKey, scheme, curve);
            std::fs::create_dir_all(&out)
                .map_err(|e| CliError::Other(format!("cannot create {}: {e}", out.display())))?;
            let pk_path = out.join("public.key");
            let mk_path = out.join("master.key");
            refuse_overwrite(&[&pk_path, &mk_path], force)?;
            let keys = keyfile::KeyOut::new(armor, passphrase, &mk_path.display().to_string())?;
            if let (Some(n), SchemeId::Bgw05) = (users, scheme) {
                // BGW05's public key is linear in N (128 MB at N = 10^6 on
                // BN254): stream it to disk instead of building it in memory.
                return broadcast::bgw05_streamed_setup(curve, n, &pk_path, &mk_path, &keys);
            }
            let (pk, mk) = match (universe, users) {
                (Some(u), _) => universe_setup(pre, &u)?,
                (None, Some(n)) => {
                    let pb = (n >= progress::MIN_USERS).then(|| {
                        progress::spinner(format!("setup of {} for {n} users", scheme.name()))
                    });
                    let r = broadcast::setup(pre, n);
                    if let Some(pb) = pb {
                        pb.finish_and_clear();
                    }
                    r?
                }
                (None, None) => any_scheme!(pre, K => ops::setup::<K>()),
            };
            let mk = zeroize::Zeroizing::new(mk);
            keys.write_secret(&mk_path, &mk)?;
            keys.write_public(&pk_path, &pk)?;
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
            user,
            public,
            output,
            armor,
            passphrase,
        } => {
            // Broadcast keys are for a user index.
            let attrs = attrs.or(user.map(|u| u.to_string()));
            let (pre, bytes) = read_object(&master, &[ObjectKind::MasterKey])?;
            let public = match &public {
                Some(p) => {
                    let (ppre, pk) = read_object(p, &[ObjectKind::PublicKey])?;
                    check_same_scheme(&ppre, &pre, "public key", "master key")?;
                    Some(pk)
                }
                None => None,
            };
            let keys = keyfile::KeyOut::new(armor, passphrase, &output.display().to_string())?;
            // GW09 and Waters09 keys are O(N): seconds at 10^6 users.
            let pb = user.map(|u| progress::spinner(format!("key for user {u}")));
            let key = any_scheme!(pre, K => {
                let (wanted, other) = if <K as Kem>::KeySide::IS_POLICY { (policy, attrs) } else { (attrs, policy) };
                let side = ops::side_text::<<K as Kem>::KeySide>(pre.scheme.name(), "keygen", wanted, other)?;
                ops::keygen::<K>(&bytes, &side, public.as_deref().map(|p| &p[..]))
            });
            if let Some(pb) = pb {
                pb.finish_and_clear();
            }
            keys.write_secret(&output, &zeroize::Zeroizing::new(key?))
        }
        Command::Encrypt {
            public,
            policy,
            attrs,
            to,
            to_file,
            mode,
            sign_with,
            armor,
            output,
            input,
        } => {
            // Broadcast ciphertexts are for a set of users.
            let attrs = match (attrs, to, to_file) {
                (a @ Some(_), _, _) => a,
                (None, Some(t), _) => Some(t),
                (None, None, Some(f)) => Some(broadcast::read_index_file(&f)?),
                (None, None, None) => None,
            };
            let (pre, bytes) = read_object(&public, &[ObjectKind::PublicKey])?;
            let side = any_scheme!(pre, K => {
                let (wanted, other) =
                    if <K as Kem>::CiphertextSide::IS_POLICY { (policy, attrs) } else { (attrs, policy) };
                ops::side_text::<<K as Kem>::CiphertextSide>(pre.scheme.name(), "encrypt", wanted, other)
            })?;
            let (session, header) = if mode == ops::Mode::Rcca {
                outsourcing_scheme!(pre, K => ops::encrypt_rcca::<K>(&bytes, &side))?
            } else {
                if mode == ops::Mode::Cpa && !abbe::outsource::supports(pre.scheme) {
                    return Err(CliError::Other(format!(
                        "{} does not support outsourced decryption (waters11 and gpsw06 do)",
                        pre.scheme.name()
                    )));
                }
                any_scheme!(pre, K => ops::encrypt::<K>(&bytes, &side, mode))?
            };
            let signer = sign_with.as_deref().map(read_signing_key).transpose()?;
            if let Some(s) = &signer {
                if s.curve() != pre.curve {
                    return Err(CliError::Other(format!(
                        "the signing key is for level {} ({}), the public key for level {} ({}): make a signing key with `abbe signer-keygen --level {}`",
                        s.curve().level(),
                        s.curve().name(),
                        pre.curve.level(),
                        pre.curve.name(),
                        pre.curve.level()
                    )));
                }
            }
            let (reader, len) = io::open_input_len(input.as_ref())?;
            let reader = progress::reading(reader, len, "encrypting");
            io::with_output(output.as_ref(), io::Secrecy::Public, |w| {
                io::maybe_armored(w, armor, ObjectKind::Ciphertext, |w| {
                    let options = envelope::SealOptions {
                        aead: None,
                        signer: signer.as_ref(),
                    };
                    envelope::seal_with(&header, &session, &mut OsRng, reader, w, &options)?;
                    Ok(())
                })
            })
        }
        Command::SignerKeygen {
            level,
            curve,
            output,
            public,
            force,
            armor,
            passphrase,
        } => {
            let curve = pick_curve(level, curve.as_deref())?;
            let public = public.unwrap_or_else(|| default_public_path(&output));
            if public == output {
                return Err(CliError::Other(
                    "the verifying key would overwrite the signing key: pass --public".into(),
                ));
            }
            refuse_overwrite(&[&output, &public], force)?;
            let keys = keyfile::KeyOut::new(armor, passphrase, &output.display().to_string())?;
            let (sk, vk) = on_curve!(curve, C => {
                let sk = abbe::signature::Bls::<C>::keygen(&mut OsRng);
                (sk.to_bytes(), sk.verifying_key().to_bytes())
            });
            keys.write_secret(&output, &sk)?;
            keys.write_public(&public, &vk)?;
            let (c, pk) = abbe::signature::verifying_key_point(&vk)?;
            eprintln!(
                "abbe: wrote {} (secret) and {}; fingerprint {}",
                output.display(),
                public.display(),
                abbe::signature::fingerprint(c, &pk)
            );
            Ok(())
        }
        Command::Decrypt {
            key,
            proxy: Some(url),
            tk_id: Some(id),
            proxy_ca,
            token_file,
            verify_with,
            allow_cpa,
            expect_header,
            output,
            input,
        } => {
            let client = proxy::client(&url, token_file.as_deref(), proxy_ca.as_deref())?;
            let verify_with = verify_with.as_deref().map(read_verifying_key).transpose()?;
            let expect = expected(expect_header.as_deref(), allow_cpa)?;
            proxy::decrypt(
                &key,
                &client,
                &id,
                verify_with.as_deref(),
                &expect,
                output,
                input,
            )
        }
        Command::Decrypt {
            key,
            verify_with,
            allow_cpa,
            expect_header,
            output,
            input,
            ..
        } => {
            let expect = expected(expect_header.as_deref(), allow_cpa)?;
            let verify_with = verify_with.as_deref().map(read_verifying_key).transpose()?;
            let (kpre, kbytes) = read_object(
                &key,
                &[
                    ObjectKind::CcaUserKey,
                    ObjectKind::UserKey,
                    ObjectKind::RccaRetrievalKey,
                    ObjectKind::RetrievalKey,
                ],
            )?;
            let mut reader = io::open_ciphertext(input.as_ref(), "decrypting")?;
            let head = envelope::read_head(&mut reader)?;
            let hpre = Preamble::parse(&head.header)?;
            check_same_setup(&kpre, &hpre, "key")?;
            if head.preamble.kind == ObjectKind::Ciphertext {
                check_expected_header(&head.header, &expect)?;
            }
            let session = match (head.preamble.kind, kpre.kind) {
                (ObjectKind::Ciphertext, ObjectKind::CcaUserKey | ObjectKind::UserKey) => {
                    if hpre.kind == ObjectKind::RccaHeader {
                        outsourcing_scheme!(kpre, K => ops::decrypt_rcca::<K>(&kbytes, &head.header))?
                    } else {
                        any_scheme!(kpre, K => ops::decrypt::<K>(&kbytes, &head.header, allow_cpa))?
                    }
                }
                (ObjectKind::TransformedCiphertext, ObjectKind::RccaRetrievalKey) => {
                    abbe::outsource::decrypt_transformed_bytes(&kbytes, &head.header, &expect)?
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
            };
            open_payload(
                &head,
                &session,
                reader,
                verify_with.as_deref(),
                output.as_ref(),
            )
        }
        Command::TransformKey {
            key,
            tk,
            rk,
            armor,
            passphrase,
        } => {
            let (pre, bytes) = read_object(&key, &[ObjectKind::CcaUserKey])?;
            let rk_out = keyfile::KeyOut::new(armor, passphrase, &rk.display().to_string())?;
            let (tkb, rkb) = outsourcing_scheme!(pre, K => ops::transform_key::<K>(&bytes))?;
            let (tkb, rkb) = (zeroize::Zeroizing::new(tkb), zeroize::Zeroizing::new(rkb));
            rk_out.write_secret(&rk, &rkb)?;
            // The transformation key is for the proxy: never passphrase-protected.
            keyfile::KeyOut::new(armor, false, "")?.write_secret(&tk, &tkb)
        }
        Command::Transform {
            tk,
            armor,
            output,
            input,
        } => {
            let (pre, bytes) = read_object(&tk, &[ObjectKind::TransformKey])?;
            let mut reader = io::open_ciphertext(input.as_ref(), "transforming")?;
            let head = envelope::read_head(&mut reader)?;
            if head.preamble.kind != ObjectKind::Ciphertext {
                return Err(CliError::Invalid(
                    "this ciphertext is already transformed".into(),
                ));
            }
            let hpre = Preamble::parse(&head.header)?;
            check_same_setup(&pre, &hpre, "transformation key")?;
            let transformed = abbe::outsource::transform_bytes(&bytes, &head.header)?;
            io::with_output(output.as_ref(), io::Secrecy::Public, |w| {
                io::maybe_armored(w, armor, ObjectKind::TransformedCiphertext, |w| {
                    envelope::write_transformed(&head, &transformed, reader, w)?;
                    Ok(())
                })
            })
        }
        Command::Proxy(cmd) => proxy::run(cmd),
        Command::Inspect { file } => inspect::run(&file),
        Command::Demo { curve } => demo::run(parse_curve(&curve)?),
        Command::Lab(args) => lab::run(args),
    }
}

/// Decrypts the payload to the output (atomically, or stdout), checking a
/// signature that is present and requiring one by `verify_with` if given;
/// says who signed on stderr.
pub(crate) fn open_payload(
    head: &envelope::Head,
    session: &abbe::kem::SessionKey,
    reader: impl std::io::Read,
    verify_with: Option<&[u8]>,
    output: Option<&PathBuf>,
) -> Result<()> {
    if verify_with.is_some() && output.is_none() && head.is_signed() && !head.signer_known_first() {
        // Its signer is known only after the last byte, and a stream cannot
        // take back what it already wrote.
        return Err(CliError::Invalid(
            "this file has the first signed layout, whose signer is known only at its end: with --verify-with, decrypt it to a file (-o), which is written only once the signer is verified".into(),
        ));
    }
    let mut signer = None;
    io::with_output(output, io::Secrecy::Secret, |w| {
        signer = envelope::open_with(head, session, reader, w, verify_with)?.signer;
        Ok(())
    })?;
    if let Some(s) = signer {
        let how = if verify_with.is_some() {
            "verified"
        } else {
            "valid; pass --verify-with to require this signer"
        };
        eprintln!("abbe: signed by {} ({how})", s.fingerprint);
    }
    Ok(())
}

/// The checks of a final outsourced decryption: `--expect-header` (64 hex
/// digits, as `abbe inspect` prints them) and `--allow-cpa`.
fn expected(header_id: Option<&str>, allow_cpa: bool) -> Result<abbe::outsource::Expect> {
    let header_id = header_id
        .map(|h| {
            let h = h.trim();
            let bytes: Option<Vec<u8>> = (h.len() == 64 && h.is_ascii())
                .then(|| {
                    (0..32)
                        .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).ok())
                        .collect()
                })
                .flatten();
            bytes
                .and_then(|b| <[u8; 32]>::try_from(b).ok())
                .ok_or_else(|| {
                    CliError::Other(format!(
                        "--expect-header takes the 64 hex digits of a header id (`abbe inspect` prints it), not '{h}'"
                    ))
                })
        })
        .transpose()?;
    Ok(abbe::outsource::Expect {
        header_id,
        allow_cpa,
    })
}

/// Refuses an original ciphertext's KEM header whose header id is not the
/// one given with `--expect-header` (if one was).
pub(crate) fn check_expected_header(header: &[u8], expect: &abbe::outsource::Expect) -> Result<()> {
    let Some(want) = expect.header_id else {
        return Ok(());
    };
    let id = abbe::outsource::header_id(header)?;
    if id != want {
        return Err(CliError::Invalid(
            "this ciphertext's header id is not the one given with --expect-header".into(),
        ));
    }
    Ok(())
}

/// Refuses to overwrite existing key files unless `force`.
fn refuse_overwrite(paths: &[&PathBuf], force: bool) -> Result<()> {
    match paths.iter().find(|p| !force && p.exists()) {
        Some(p) => Err(CliError::Other(format!(
            "{} already exists (use --force to overwrite)",
            p.display()
        ))),
        None => Ok(()),
    }
}

fn default_public_path(signing_key: &std::path::Path) -> PathBuf {
    match signing_key.extension() {
        Some(e) if e == "key" => signing_key.with_extension("pub"),
        _ => {
            let mut p = signing_key.as_os_str().to_owned();
            p.push(".pub");
            PathBuf::from(p)
        }
    }
}

fn read_signing_key(path: &std::path::Path) -> Result<abbe::signature::AnySigningKey> {
    let (_, bytes) = read_object(path, &[ObjectKind::SigningKey])?;
    abbe::signature::AnySigningKey::from_bytes(&bytes)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))
}

/// Reads a verifying-key file; returns the object's bytes.
fn read_verifying_key(path: &std::path::Path) -> Result<Vec<u8>> {
    let (_, bytes) = read_object(path, &[ObjectKind::VerifyingKey])?;
    abbe::signature::verifying_key_point(&bytes)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))?;
    Ok(bytes.to_vec())
}

pub(crate) fn check_same_setup(key: &Preamble, header: &Preamble, what: &str) -> Result<()> {
    check_same_scheme(key, header, what, "ciphertext")
}

/// Refuses objects `a` (the `a_what`) and `b` (the `b_what`) made for
/// different schemes or curves.
fn check_same_scheme(a: &Preamble, b: &Preamble, a_what: &str, b_what: &str) -> Result<()> {
    if a.curve != b.curve || a.scheme != b.scheme {
        return Err(CliError::Invalid(format!(
            "the {a_what} is for {} on {}, the {b_what} for {} on {}",
            a.scheme.name(),
            a.curve.name(),
            b.scheme.name(),
            b.curve.name()
        )));
    }
    Ok(())
}

/// Setup of a small-universe scheme with an explicit universe.
fn universe_setup(pre: Preamble, universe: &str) -> Result<(Vec<u8>, Vec<u8>)> {
    let names: Vec<String> = abbe::policy::AttributeSet::parse(universe)?
        .iter()
        .map(str::to_owned)
        .collect();
    small_universe_setup(pre, &names)
}

/// The curve's name and security level, for messages.
pub fn curve_label(id: CurveId) -> String {
    if id == CurveId::P256 {
        return format!("P-256 (~{}-bit security)", id.security_bits());
    }
    format!("{} (~{}-bit security)", id.name(), id.security_bits())
}
