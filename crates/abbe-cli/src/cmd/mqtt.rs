//! `abbe mqtt publish|subscribe`: readings through an MQTT broker that sees
//! only ciphertext (abbe_mqtt; docs/FORMAT.md "MQTT records").

use crate::keyfile::{read_object, read_signing_key, read_verifying_key};
use crate::{dispatch::scheme_for, ops, CliError, Result};
use abbe::kem::SideKind;
use abbe::wire::{self, ObjectKind};
use abbe_mqtt::{Broker, Event, MqttPublisher, MqttSubscriber, Protection, Publisher, Subscriber};
use std::io::{BufRead, Read, Write};
use std::path::PathBuf;
use std::time::Duration;

/// The largest reading accepted on stdin (the MQTT packet bound, less room
/// for the record around it).
const MAX_READING: usize = abbe_mqtt::client::MAX_PACKET - (1 << 20);

#[derive(clap::Subcommand)]
pub enum MqttCommand {
    /// Encrypt readings from stdin (one per line, or length-delimited) and
    /// publish them on a topic.
    Publish(PublishArgs),
    /// Print the readings on a topic that your key may read; report, on
    /// stderr, those it may not and anything refused.
    Subscribe(SubscribeArgs),
}

#[derive(clap::Args)]
pub struct BrokerArgs {
    /// mqtt://HOST[:PORT] or mqtts://HOST[:PORT].
    #[arg(long)]
    broker: String,
    /// For mqtts://: the CA certificate (PEM) to verify the broker with
    /// (default: Mozilla's roots).
    #[arg(long)]
    ca_file: Option<PathBuf>,
    /// A file with the broker username on its first line and the password
    /// on its second.
    #[arg(long)]
    auth_file: Option<PathBuf>,
    /// Records on stdin/stdout are a 4-byte big-endian length and the
    /// bytes, instead of lines.
    #[arg(long)]
    length_delimited: bool,
}

impl BrokerArgs {
    fn broker(&self) -> Result<Broker> {
        Ok(Broker::parse(
            &self.broker,
            self.ca_file.as_deref(),
            self.auth_file.as_deref(),
        )?)
    }
}

#[derive(clap::Args)]
pub struct PublishArgs {
    #[command(flatten)]
    broker: BrokerArgs,
    /// The topic (no wildcards).
    #[arg(long)]
    topic: String,
    /// The public key.
    #[arg(long)]
    public: PathBuf,
    /// The policy, for ciphertext-policy schemes.
    #[arg(long)]
    policy: Option<String>,
    /// Attributes, for key-policy schemes.
    #[arg(long)]
    attrs: Option<String>,
    /// Recipients, for broadcast schemes ("1-100,500").
    #[arg(long)]
    to: Option<String>,
    /// ABE-encrypt every reading on its own instead of under epoch keys.
    #[arg(long, conflicts_with_all = ["rekey_every", "rekey_after"])]
    per_message: bool,
    /// Start a new epoch key every N readings.
    #[arg(long, value_name = "N")]
    rekey_every: Option<u64>,
    /// Start a new epoch key after this long, e.g. 90s, 10m, 1h (default
    /// 1h when --rekey-every is not given).
    #[arg(long, value_name = "DURATION")]
    rekey_after: Option<String>,
    /// Sign every record with this signing key (`abbe signer-keygen`).
    #[arg(long, value_name = "KEY")]
    sign_with: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct SubscribeArgs {
    #[command(flatten)]
    broker: BrokerArgs,
    /// The topic or filter (+ and # allowed).
    #[arg(long)]
    topic: String,
    /// Your user key.
    #[arg(short = 'k', long)]
    key: PathBuf,
    /// Accept only records signed by this verifying key.
    #[arg(long, value_name = "KEY")]
    verify_with: Option<PathBuf>,
    /// Exit after printing this many readings.
    #[arg(long)]
    count: Option<u64>,
    /// Exit after this long, e.g. 30s (default: run until interrupted).
    #[arg(long, value_name = "DURATION")]
    timeout: Option<String>,
}

pub fn run(cmd: MqttCommand) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Other(format!("cannot start the async runtime: {e}")))?;
    match cmd {
        MqttCommand::Publish(a) => rt.block_on(publish(a)),
        MqttCommand::Subscribe(a) => rt.block_on(subscribe(a)),
    }
}

/// `90`, `90s`, `10m`, `1h`.
fn duration(text: &str) -> Result<Duration> {
    let t = text.trim();
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: u64 = num.parse().map_err(|_| {
        CliError::Other(format!("{text:?}: expected a duration like 90s, 10m or 1h"))
    })?;
    let secs = match unit {
        "" | "s" => n,
        "m" => n.saturating_mul(60),
        "h" => n.saturating_mul(3600),
        _ => return Err(CliError::Other(format!("{text:?}: the unit is s, m or h"))),
    };
    if secs == 0 {
        return Err(CliError::Other(format!("{text:?}: must be positive")));
    }
    Ok(Duration::from_secs(secs))
}

async fn publish(a: PublishArgs) -> Result<()> {
    let (pre, pk) = read_object(&a.public, &[ObjectKind::PublicKey])?;
    let scheme = scheme_for(&pre)?;
    let is_policy = scheme.info().ciphertext_side == SideKind::Policy;
    let attrs = a.attrs.or(a.to);
    let target = ops::side_text(is_policy, pre.scheme.name(), "encrypt", a.policy, attrs)?;
    let protection = if a.per_message {
        Protection::PerMessage
    } else {
        let age = match (&a.rekey_after, a.rekey_every) {
            (Some(t), _) => Some(duration(t)?),
            (None, Some(_)) => None,
            (None, None) => Some(Duration::from_secs(3600)),
        };
        if a.rekey_every == Some(0) {
            return Err(CliError::Other("--rekey-every must be positive".into()));
        }
        Protection::Epochs {
            messages: a.rekey_every,
            age,
        }
    };
    let signer = a.sign_with.as_deref().map(read_signing_key).transpose()?;
    if let Some(s) = &signer {
        if s.curve() != pre.curve {
            return Err(CliError::Other(format!(
                "the signing key is for level {}, the public key for level {}",
                s.curve().level(),
                pre.curve.level()
            )));
        }
    }
    let publisher = Publisher::new(pk.to_vec(), &target, &a.topic, protection, signer)?;
    let broker = a.broker.broker()?;
    let mut client = MqttPublisher::connect(&broker, publisher).await?;
    let mut input = std::io::BufReader::new(std::io::stdin().lock());
    let mut n = 0u64;
    while let Some(reading) = next_record(&mut input, a.broker.length_delimited)? {
        client.publish(&reading).await?;
        n += 1;
    }
    let missing = client.close(Duration::from_secs(30)).await?;
    if missing > 0 {
        return Err(CliError::Other(format!(
            "the broker did not acknowledge {missing} of the messages within 30 s"
        )));
    }
    eprintln!("abbe: published {n} readings on {}", a.topic);
    Ok(())
}

/// The next reading on stdin: a line (without its newline) or a
/// length-delimited record; None at the end.
fn next_record(input: &mut impl BufRead, length_delimited: bool) -> Result<Option<Vec<u8>>> {
    let io_err = |e: std::io::Error| CliError::Other(format!("reading stdin: {e}"));
    let too_long = || CliError::Invalid(format!("a reading longer than {MAX_READING} bytes"));
    if length_delimited {
        let mut len = [0u8; 4];
        match input.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(io_err(e)),
        }
        let len = u32::from_be_bytes(len) as usize;
        if len > MAX_READING {
            return Err(too_long());
        }
        let mut buf = vec![0u8; len];
        input.read_exact(&mut buf).map_err(io_err)?;
        return Ok(Some(buf));
    }
    let mut line = Vec::new();
    let n = input
        .take(MAX_READING as u64 + 1)
        .read_until(b'\n', &mut line)
        .map_err(io_err)?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    } else if line.len() > MAX_READING {
        return Err(too_long());
    }
    Ok(Some(line))
}

async fn subscribe(a: SubscribeArgs) -> Result<()> {
    let (_, key) = read_object(&a.key, &[ObjectKind::UserKey])?;
    let verify_with = a
        .verify_with
        .as_deref()
        .map(read_verifying_key)
        .transpose()?;
    let subscriber = Subscriber::new(key, verify_with)?;
    let broker = a.broker.broker()?;
    let deadline = a.timeout.as_deref().map(duration).transpose()?;
    let mut client = MqttSubscriber::connect(&broker, &a.topic, subscriber).await?;
    // Scripts wait for this line before publishing.
    eprintln!("abbe: subscribed to {} on {}", a.topic, a.broker.broker);
    let stop = async {
        match deadline {
            Some(d) => tokio::time::sleep(d).await,
            None => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    };
    tokio::pin!(stop);
    let mut out = std::io::stdout().lock();
    let (mut read, mut skipped, mut rejected, mut missed) = (0u64, 0u64, 0u64, 0u64);
    'run: while a.count.is_none_or(|c| read < c) {
        let events = tokio::select! {
            e = client.next() => e?,
            _ = &mut stop => break 'run,
        };
        for e in events {
            match e {
                Event::Reading { data, .. } => {
                    write_record(&mut out, &data, a.broker.length_delimited)
                        .map_err(|e| CliError::Other(format!("writing stdout: {e}")))?;
                    read += 1;
                }
                Event::NotReadable { publisher } => eprintln!(
                    "abbe: publisher {}: your key does not satisfy its policy; its readings are skipped",
                    wire::hex(&publisher[..4])
                ),
                Event::Skipped { .. } => skipped += 1,
                // A forged sequence number can claim 2^64 gaps.
                Event::Missed { count, .. } => missed = missed.saturating_add(count),
                Event::Rejected { publisher, reason } => {
                    rejected += 1;
                    let who = publisher.map(|p| format!(" from publisher {}", wire::hex(&p[..4])));
                    eprintln!("abbe: refused a message{}: {reason}", who.unwrap_or_default());
                }
                Event::Oversized { topic, len, first } => {
                    rejected += 1;
                    if first {
                        eprintln!(
                            "abbe: skipped a message of {len} bytes on {topic:?}: above the {} MiB a record may have (said once per topic)",
                            abbe_mqtt::record::MAX_LEN >> 20
                        );
                    }
                }
                Event::Disconnected { reason } => {
                    eprintln!("abbe: lost the broker connection ({reason}); reconnecting")
                }
                Event::EpochKey { .. } => {}
            }
            if a.count.is_some_and(|c| read >= c) {
                break 'run;
            }
        }
    }
    client.disconnect().await;
    eprintln!(
        "abbe: {read} readings, {skipped} skipped (policy not satisfied), {rejected} refused, {missed} missed (never arrived)"
    );
    Ok(())
}

fn write_record(out: &mut impl Write, data: &[u8], length_delimited: bool) -> std::io::Result<()> {
    if length_delimited {
        out.write_all(&(data.len() as u32).to_be_bytes())?;
        out.write_all(data)?;
    } else {
        out.write_all(data)?;
        out.write_all(b"\n")?;
    }
    out.flush()
}
