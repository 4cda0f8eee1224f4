//! `abbe proxy ...` (the outsourcing proxy: serve, tokens, registration)
//! and `abbe decrypt --proxy` (the thin client).

use crate::{io, read_object, CliError, Result};
use abbe::envelope;
use abbe::wire::{ObjectKind, Preamble};
use abbe_proxy::fetch::FetchPolicy;
use abbe_proxy::{ClientError, Config, ProxyClient};
use clap::Subcommand;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Subcommand)]
pub enum ProxyCommand {
    /// Run the proxy (HTTP; SQLite by default, PostgreSQL for a fleet).
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8700")]
        listen: String,
        /// The key store: sqlite:PATH or postgres://USER@HOST:PORT/DB.
        #[arg(long, default_value = "sqlite:abbe-proxy.db")]
        store: String,
        /// Largest request body (pushed ciphertext), bytes. A pushed file is streamed (memory stays constant); without Content-Length, a body over the limit cuts the answer.
        #[arg(long, default_value_t = 64 << 20)]
        max_body: usize,
        /// Time limit until the answer starts, seconds (for a pushed file: its head received and transformed).
        #[arg(long, default_value_t = 60)]
        request_timeout: u64,
        /// A pushed file's payload streaming through is cut after this many seconds without request bytes.
        #[arg(long, default_value_t = 60)]
        idle_timeout: u64,
        /// transform-url: fetch time limit, seconds.
        #[arg(long, default_value_t = 20)]
        fetch_timeout: u64,
        /// transform-url: largest fetched object, bytes.
        #[arg(long, default_value_t = 64 << 20)]
        fetch_max: usize,
        /// transform-url may fetch from loopback addresses (tests, a local web server).
        #[arg(long)]
        allow_loopback_fetch: bool,
        /// transform-url may fetch from private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7).
        #[arg(long)]
        allow_private_fetch: bool,
        /// transform-url over https://: also trust the CA certificate(s) of this PEM file (a private S3-compatible store); Mozilla's roots are always trusted.
        #[arg(long, value_name = "FILE")]
        fetch_ca: Option<PathBuf>,
        /// Concurrent transformations (default: the number of cores).
        #[arg(long)]
        workers: Option<usize>,
        /// Decoded transformation keys kept in memory, least recently used evicted (0: none).
        #[arg(long, default_value_t = 256)]
        tk_cache: usize,
        /// Estimated memory the decoded keys may take, MiB (a key counts 256x its encoded size).
        #[arg(long, default_value_t = 512)]
        tk_cache_mb: usize,
        /// Requests of one tenant in progress at once; more are answered 429 with Retry-After (default: the workers; 0: no limit).
        #[arg(long)]
        tenant_concurrency: Option<usize>,
        /// Requests one tenant may start per second, sustained; more are answered 429 with Retry-After (0: no limit).
        #[arg(long, default_value_t = 20.0)]
        tenant_rate: f64,
        /// Requests one tenant may start at once after a pause.
        #[arg(long, default_value_t = 40.0)]
        tenant_burst: f64,
        /// Append a line per request to this file (mode 0600; `-`: stderr): time, peer, method, route, status, duration — never a token, key id or body.
        #[arg(long, value_name = "FILE")]
        access_log: Option<PathBuf>,
    },
    /// Manage tenants' bearer tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Upload a transformation key to a proxy; prints its id.
    Register {
        /// The transformation key (`abbe transform-key --tk`).
        #[arg(long)]
        tk: PathBuf,
        #[command(flatten)]
        remote: Remote,
    },
    /// List the ids of your transformation keys on a proxy.
    List {
        #[command(flatten)]
        remote: Remote,
    },
    /// Delete a transformation key from a proxy.
    Delete {
        /// The id `abbe proxy register` printed.
        #[arg(long)]
        tk_id: String,
        #[command(flatten)]
        remote: Remote,
    },
}

/// A proxy as a tenant reaches it.
#[derive(clap::Args)]
pub struct Remote {
    /// The proxy, e.g. http://127.0.0.1:8700 or https://...
    #[arg(long)]
    proxy: String,
    /// A file holding your tenant's bearer token (default: $ABBE_PROXY_TOKEN).
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Trust only the CA certificate(s) of this PEM file for an https:// proxy (default: Mozilla's roots).
    #[arg(long, value_name = "FILE")]
    proxy_ca: Option<PathBuf>,
}

impl Remote {
    fn client(&self) -> Result<ProxyClient> {
        client(
            &self.proxy,
            self.token_file.as_deref(),
            self.proxy_ca.as_deref(),
        )
    }
}

#[derive(Subcommand)]
pub enum TokenCommand {
    /// Create a bearer token for a tenant (printed once; only its hash is stored).
    Create {
        /// The key store, as for `serve`.
        #[arg(long, default_value = "sqlite:abbe-proxy.db")]
        store: String,
        /// The tenant's name (default: a fresh random one).
        #[arg(long)]
        tenant: Option<String>,
        /// Write the token to this file (mode 0600) instead of stdout.
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        /// Overwrite an existing output file.
        #[arg(short = 'f', long)]
        force: bool,
    },
    /// List tokens: id, tenant, creation time (never the token itself).
    List {
        /// The key store, as for `serve`.
        #[arg(long, default_value = "sqlite:abbe-proxy.db")]
        store: String,
        /// Only this tenant's tokens.
        #[arg(long)]
        tenant: Option<String>,
    },
    /// Revoke a token by its id (from `list`) or the file holding it; requests with it get 401 at once, on every instance.
    Revoke {
        /// The token's id (16 hex digits, as listed).
        #[arg(required_unless_present = "token_file")]
        id: Option<String>,
        /// The token itself, in this file (a token that leaked: whoever holds it can name it).
        #[arg(long, conflicts_with = "id")]
        token_file: Option<PathBuf>,
        /// The key store, as for `serve`.
        #[arg(long, default_value = "sqlite:abbe-proxy.db")]
        store: String,
    },
}

impl From<ClientError> for CliError {
    fn from(e: ClientError) -> Self {
        match e.status() {
            Some(422) => CliError::NotSatisfied,
            Some(400) => CliError::Invalid(e.to_string()),
            _ => CliError::Other(e.to_string()),
        }
    }
}

fn token(file: Option<&Path>) -> Result<Option<String>> {
    match file {
        Some(f) => {
            let t = std::fs::read_to_string(f)
                .map_err(|e| CliError::Other(format!("cannot read {}: {e}", f.display())))?;
            let t = t.trim().to_owned();
            if t.is_empty() {
                return Err(CliError::Other(format!("{} is empty", f.display())));
            }
            Ok(Some(t))
        }
        None => Ok(std::env::var("ABBE_PROXY_TOKEN")
            .ok()
            .filter(|t| !t.trim().is_empty())),
    }
}

/// A client of the proxy at `url` with the tenant's token and, for a
/// private https:// deployment, only the CAs of `ca` trusted.
pub fn client(url: &str, token_file: Option<&Path>, ca: Option<&Path>) -> Result<ProxyClient> {
    let token = token(token_file)?;
    Ok(match ca {
        Some(f) => ProxyClient::with_ca(
            url,
            token,
            &abbe_proxy::fetch::load_ca_pem(f).map_err(CliError::Other)?,
        ),
        None => ProxyClient::new(url, token),
    })
}

pub fn run(cmd: ProxyCommand) -> Result<()> {
    match cmd {
        ProxyCommand::Serve {
            listen,
            store,
            max_body,
            request_timeout,
            idle_timeout,
            fetch_timeout,
            fetch_max,
            allow_loopback_fetch,
            allow_private_fetch,
            fetch_ca,
            workers,
            tk_cache,
            tk_cache_mb,
            tenant_concurrency,
            tenant_rate,
            tenant_burst,
            access_log,
        } => {
            let d = Config::default();
            let extra_roots = match fetch_ca {
                Some(f) => abbe_proxy::fetch::load_ca_pem(&f).map_err(CliError::Other)?,
                None => Vec::new(),
            };
            release_freed_memory();
            let workers = workers.unwrap_or(d.workers).max(1);
            let cfg = Config {
                max_body,
                request_timeout: Duration::from_secs(request_timeout.max(1)),
                stream_idle_timeout: Duration::from_secs(idle_timeout.max(1)),
                fetch: FetchPolicy {
                    allow_loopback: allow_loopback_fetch,
                    allow_private: allow_private_fetch,
                    timeout: Duration::from_secs(fetch_timeout.max(1)),
                    max_bytes: fetch_max,
                    extra_roots,
                },
                workers,
                tk_cache_entries: tk_cache,
                tk_cache_memory: tk_cache_mb.saturating_mul(1 << 20),
                quota: abbe_proxy::quota::QuotaConfig {
                    concurrency: tenant_concurrency.unwrap_or(workers),
                    rate: tenant_rate.max(0.0),
                    burst: tenant_burst.max(1.0),
                },
                access_log: access_log
                    .map(|p| {
                        abbe_proxy::access_log::AccessLog::open(&p).map_err(|e| {
                            CliError::Other(format!("cannot open {}: {e}", p.display()))
                        })
                    })
                    .transpose()?,
            };
            abbe_proxy::server::run_blocking(&listen, &store, cfg).map_err(CliError::Other)
        }
        ProxyCommand::Token(TokenCommand::Create {
            store,
            tenant,
            output,
            force,
        }) => {
            let overwrite = crate::io::Overwrite::checked(force, &output)?;
            let tenant = tenant.unwrap_or_else(|| {
                let mut b = [0u8; 8];
                rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut b);
                format!(
                    "tenant-{}",
                    b.iter().map(|x| format!("{x:02x}")).collect::<String>()
                )
            });
            let (t, id) = abbe_proxy::server::create_token_blocking(&store, &tenant)
                .map_err(CliError::Other)?;
            let t = zeroize::Zeroizing::new(format!("{t}\n"));
            match &output {
                Some(o) => {
                    crate::io::write_atomic(
                        o,
                        t.as_bytes(),
                        crate::io::Secrecy::Secret,
                        overwrite,
                    )?;
                    eprintln!(
                        "abbe: token {id} for tenant '{tenant}' written to {} (keep it secret)",
                        o.display()
                    );
                }
                None => {
                    eprintln!(
                        "abbe: token {id} for tenant '{tenant}' (shown once; keep it secret):"
                    );
                    print!("{}", *t);
                }
            }
            Ok(())
        }
        ProxyCommand::Token(TokenCommand::List { store, tenant }) => {
            let tokens = abbe_proxy::server::list_tokens_blocking(&store, tenant.as_deref())
                .map_err(CliError::Other)?;
            let width = tokens
                .iter()
                .map(|t| t.tenant.len())
                .max()
                .unwrap_or(0)
                .max(6);
            println!("{:<16}  {:<width$}  CREATED (UTC)", "ID", "TENANT");
            for t in &tokens {
                println!(
                    "{:<16}  {:<width$}  {}",
                    t.id,
                    t.tenant,
                    abbe_proxy::access_log::utc(t.created_at)
                );
            }
            Ok(())
        }
        ProxyCommand::Token(TokenCommand::Revoke {
            id,
            token_file,
            store,
        }) => {
            let id = match id {
                Some(id) => id,
                None => token(token_file.as_deref())?
                    .map(|t| abbe_proxy::store::token_id(&t))
                    .ok_or_else(|| CliError::Other("give the token's id or --token-file".into()))?,
            };
            match abbe_proxy::server::revoke_token_blocking(&store, &id).map_err(CliError::Other)? {
                Some(t) => {
                    eprintln!("abbe: revoked token {} of tenant '{}'", t.id, t.tenant);
                    Ok(())
                }
                None => Err(CliError::Other(format!(
                    "no token with id '{id}' (see `abbe proxy token list`)"
                ))),
            }
        }
        ProxyCommand::Register { tk, remote } => {
            let (_, bytes) = read_object(&tk, &[ObjectKind::TransformationKey])?;
            println!("{}", remote.client()?.register(&bytes)?);
            Ok(())
        }
        ProxyCommand::List { remote } => {
            for id in remote.client()?.list()? {
                println!("{id}");
            }
            Ok(())
        }
        ProxyCommand::Delete { tk_id, remote } => {
            remote.client()?.delete(&tk_id)?;
            eprintln!("abbe: deleted {tk_id}");
            Ok(())
        }
    }
}

/// `abbe decrypt --key RK --proxy URL --tk-id ID IN`: sends only the KEM
/// header, finishes with the retrieval key (an RCCA transformation from a
/// lying proxy is rejected there), then decrypts the payload locally.
pub fn decrypt(
    key: &Path,
    client: &ProxyClient,
    id: &str,
    verify_with: Option<&[u8]>,
    expect: &abbe::outsource::Expect,
    (output, overwrite): (Option<PathBuf>, crate::io::Overwrite),
    input: Option<PathBuf>,
) -> Result<()> {
    let (kpre, rk) = read_object(
        key,
        &[ObjectKind::RetrievalKey, ObjectKind::CpaRetrievalKey],
    )
    .map_err(|e| match e {
        CliError::Invalid(m) => CliError::Invalid(format!(
            "{m} (with --proxy, --key is the retrieval key from `abbe transform-key`)"
        )),
        other => other,
    })?;
    let mut reader = io::open_ciphertext(input.as_ref(), "decrypting")?;
    let head = envelope::read_head(&mut reader)?;
    if head.preamble.kind != ObjectKind::EncryptedFile {
        return Err(CliError::Invalid(
            "this ciphertext is already transformed: decrypt it without --proxy".into(),
        ));
    }
    let hpre = Preamble::parse(&head.header)?;
    crate::check_same_setup(&kpre, &hpre, "retrieval key")?;
    // What the answer must be: the transformation of the header sent, in
    // its mode. An RCCA answer must carry the sent header's C (its header
    // id), so a proxy cannot answer with the transformation of a ciphertext
    // it made itself; a CPA one cannot be checked and needs --allow-cpa.
    let (wanted, expect) = match abbe::outsource::header_mode(&head.header)? {
        abbe::outsource::Mode::Rcca => {
            crate::check_expected_header(&head.header, expect)?;
            let id = abbe::facade::header_id(&head.header)?;
            let expect = abbe::outsource::Expect {
                header_id: Some(id),
                ..*expect
            };
            (ObjectKind::RccaTransformedKemHeader, expect)
        }
        abbe::outsource::Mode::Cpa if !expect.allow_cpa => {
            return Err(CliError::Invalid(abbe::outsource::cpa_refused(
                "CPA ciphertext (encrypted with --mode cpa)",
            )))
        }
        abbe::outsource::Mode::Cpa => (ObjectKind::TransformedKemHeader, *expect),
    };
    let transformed = client.transform(id, &head.header)?;
    let tpre = Preamble::parse(&transformed).map_err(|e| {
        CliError::Invalid(format!(
            "the proxy's answer is not a transformed header: {e}"
        ))
    })?;
    if tpre.kind != wanted {
        return Err(CliError::Invalid(format!(
            "the proxy answered a {}, not the {} of the header sent",
            tpre.kind.describe(),
            wanted.describe()
        )));
    }
    let session = abbe::facade::decrypt_transformed_bytes(&rk, &transformed, &expect)?;
    crate::open_payload(
        &head,
        &session,
        reader,
        verify_with,
        output.as_ref(),
        overwrite,
    )
}

/// Lets the proxy's memory come back after a burst. glibc raises its
/// mmap threshold to the size of each large block it frees, so after the
/// first 16 MiB request body every later one is carved from its arenas
/// and stays in the process once freed (measured: RSS 13 → 31 MiB after a
/// burst of 16 bodies, and 45 → 83 MiB at its peak). A fixed threshold of
/// 1 MiB keeps every large buffer a mapping of its own, unmapped when
/// freed (RSS back to 15 MiB). glibc reads it from the environment at
/// start-up only, so the server re-executes itself once with it set.
fn release_freed_memory() {
    const VAR: &str = "MALLOC_MMAP_THRESHOLD_";
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os(VAR).is_none() {
        use std::os::unix::process::CommandExt;
        if let Ok(exe) = std::env::current_exe() {
            // exec returns only if it failed; then serve as we are.
            let e = std::process::Command::new(exe)
                .args(std::env::args_os().skip(1))
                .env(VAR, "1048576")
                .exec();
            eprintln!("abbe: warning: cannot set {VAR} ({e}); memory freed after bursts may stay with the process");
        }
    }
}
