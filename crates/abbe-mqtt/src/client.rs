//! [`Publisher`] and [`Subscriber`] on a real broker (rumqttc, tokio):
//! QoS 1, reconnecting, TLS (`mqtts://`) and username/password.

use crate::{Error, Event, Message, Publisher, Subscriber};
use rand_core::{OsRng, RngCore};
use rumqttc::{AsyncClient, EventLoop, MqttOptions, Packet, QoS, TlsConfiguration, Transport};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;
use tokio_rustls::rustls;

/// The largest MQTT packet we send (a broadcast header to many users is
/// large), and the largest a publisher accepts.
pub const MAX_PACKET: usize = 16 << 20;
/// The largest packet a subscriber takes: MQTT's own bound (a remaining
/// length of 2^28 − 1). rumqttc drops the connection on a packet above its
/// limit, and the broker sends a retained one again after every
/// reconnection, so a lower limit lets one message cut a subscriber off;
/// the subscriber skips records above [`crate::record::MAX_LEN`] itself.
/// Memory stays bounded by this one packet.
pub const MAX_INCOMING: usize = (1 << 28) - 1;
/// How long to wait for the first connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Waits before reconnecting: doubled after each failure, up to
/// [`MAX_RETRY`], until a message arrives again.
const RETRY: Duration = Duration::from_millis(200);
const MAX_RETRY: Duration = Duration::from_secs(5);
/// Events kept from messages a broker sends before SUBACK (a clean
/// session has none; a hostile broker must not grow this).
const MAX_EARLY: usize = 1024;

/// Where the broker is and how to log in.
#[derive(Clone)]
pub struct Broker {
    host: String,
    port: u16,
    tls: Option<Arc<rustls::ClientConfig>>,
    credentials: Option<(String, String)>,
}

impl Broker {
    /// `mqtt://HOST[:PORT]` (1883) or `mqtts://HOST[:PORT]` (8883, verified
    /// against `ca_file` when given, else Mozilla's roots); `auth_file`
    /// holds the username on its first line and the password on its second.
    pub fn parse(
        url: &str,
        ca_file: Option<&Path>,
        auth_file: Option<&Path>,
    ) -> Result<Broker, Error> {
        let bad = || {
            Error::Invalid(format!(
                "broker {url:?}: expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
            ))
        };
        let (tls, rest) = if let Some(r) = url.strip_prefix("mqtt://") {
            (false, r)
        } else if let Some(r) = url.strip_prefix("mqtts://") {
            (true, r)
        } else {
            return Err(bad());
        };
        let rest = rest.trim_end_matches('/');
        let (host, port) = match rest.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => {
                (h, p.parse::<u16>().map_err(|_| bad())?)
            }
            _ => (rest, if tls { 8883 } else { 1883 }),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() || host.contains(['/', '@', ' ']) {
            return Err(bad());
        }
        if ca_file.is_some() && !tls {
            return Err(Error::Invalid("--ca-file is for mqtts:// brokers".into()));
        }
        let tls = match tls {
            true => Some(tls_config(ca_file)?),
            false => None,
        };
        let credentials = match auth_file {
            Some(p) => Some(read_credentials(p)?),
            None => None,
        };
        Ok(Broker {
            host: host.to_owned(),
            port,
            tls,
            credentials,
        })
    }

    /// A client on this broker; readings are small and latency matters, so
    /// Nagle's algorithm is off (else a reading can wait for a delayed ACK,
    /// 40 ms on Linux).
    fn client(&self, role: &str, max_incoming: usize) -> (AsyncClient, EventLoop) {
        let (client, mut events) = AsyncClient::new(self.options(role, max_incoming), 64);
        let mut net = events.network_options();
        net.set_tcp_nodelay(true);
        events.set_network_options(net);
        (client, events)
    }

    fn options(&self, role: &str, max_incoming: usize) -> MqttOptions {
        let mut id = [0u8; 8];
        OsRng.fill_bytes(&mut id);
        let mut o = MqttOptions::new(
            format!("abbe-{role}-{}", abbe::wire::hex(&id)),
            &self.host,
            self.port,
        );
        o.set_keep_alive(Duration::from_secs(30));
        o.set_max_packet_size(max_incoming, MAX_PACKET);
        o.set_clean_session(true);
        if let Some(cfg) = &self.tls {
            o.set_transport(Transport::Tls(TlsConfiguration::Rustls(cfg.clone())));
        }
        if let Some((u, p)) = &self.credentials {
            o.set_credentials(u, p);
        }
        o
    }
}

fn tls_config(ca_file: Option<&Path>) -> Result<Arc<rustls::ClientConfig>, Error> {
    let mut roots = rustls::RootCertStore::empty();
    match ca_file {
        Some(p) => {
            let pem =
                std::fs::read(p).map_err(|e| Error::Invalid(format!("{}: {e}", p.display())))?;
            for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
                let cert = cert.map_err(|e| Error::Invalid(format!("{}: {e}", p.display())))?;
                roots
                    .add(cert)
                    .map_err(|e| Error::Invalid(format!("{}: {e}", p.display())))?;
            }
            if roots.is_empty() {
                return Err(Error::Invalid(format!(
                    "{}: no PEM certificate",
                    p.display()
                )));
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let cfg = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Invalid(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(cfg))
}

fn read_credentials(p: &Path) -> Result<(String, String), Error> {
    let text =
        std::fs::read_to_string(p).map_err(|e| Error::Invalid(format!("{}: {e}", p.display())))?;
    let mut lines = text.lines();
    match (lines.next(), lines.next()) {
        (Some(u), Some(pw)) if !u.is_empty() => Ok((u.to_owned(), pw.to_owned())),
        _ => Err(Error::Invalid(format!(
            "{}: expected the username on the first line and the password on the second",
            p.display()
        ))),
    }
}

/// Polls until the first ConnAck, or fails with the broker's error.
async fn first_connection(events: &mut EventLoop) -> Result<(), Error> {
    let deadline = Instant::now() + CONNECT_TIMEOUT;
    loop {
        match tokio::time::timeout_at(deadline.into(), events.poll()).await {
            Ok(Ok(rumqttc::Event::Incoming(Packet::ConnAck(_)))) => return Ok(()),
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(Error::Broker(e.to_string())),
            Err(_) => return Err(Error::Broker("no answer within 10 s".into())),
        }
    }
}

/// Runs CPU-bound `f` (a pairing-based encryption or decryption) where it
/// does not stall the other tasks of a multi-threaded runtime.
fn off_the_runtime<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// One MQTT message a publish sent.
#[derive(Clone, Copy, Debug)]
pub struct Sent {
    /// A retained epoch key (else a reading).
    pub retain: bool,
    pub payload_len: usize,
}

/// A [`Publisher`] connected to a broker.
pub struct MqttPublisher {
    client: AsyncClient,
    publisher: Publisher,
    sent: u64,
    acked: Arc<AtomicU64>,
    reconnected: Arc<AtomicBool>,
    task: JoinHandle<()>,
}

impl MqttPublisher {
    pub async fn connect(broker: &Broker, publisher: Publisher) -> Result<Self, Error> {
        let (client, mut events) = broker.client("pub", MAX_PACKET);
        first_connection(&mut events).await?;
        let acked = Arc::new(AtomicU64::new(0));
        let reconnected = Arc::new(AtomicBool::new(false));
        let (a, r) = (acked.clone(), reconnected.clone());
        let task = tokio::spawn(async move {
            loop {
                match events.poll().await {
                    Ok(rumqttc::Event::Incoming(Packet::PubAck(_))) => {
                        a.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(rumqttc::Event::Incoming(Packet::ConnAck(_))) => {
                        r.store(true, Ordering::SeqCst)
                    }
                    Ok(rumqttc::Event::Outgoing(rumqttc::Outgoing::Disconnect)) => break,
                    Ok(_) => {}
                    Err(_) => tokio::time::sleep(RETRY).await,
                }
            }
        });
        Ok(MqttPublisher {
            client,
            publisher,
            sent: 0,
            acked,
            reconnected,
            task,
        })
    }

    pub fn publisher(&mut self) -> &mut Publisher {
        &mut self.publisher
    }

    /// Encrypts and publishes one reading (QoS 1); what went out.
    pub async fn publish(&mut self, reading: &[u8]) -> Result<Vec<Sent>, Error> {
        let now = Instant::now();
        let mut out = match self.publisher.will_encapsulate(now) {
            // Pairings take milliseconds: let the runtime's other tasks on.
            true => off_the_runtime(|| self.publisher.publish(reading, now))?,
            false => self.publisher.publish(reading, now)?,
        };
        // The broker may have lost the retained epoch key while we were
        // away: publish it again unless a new one is going out anyway.
        if self.reconnected.swap(false, Ordering::SeqCst) && !out.iter().any(|m| m.retain) {
            if let Some(k) = self.publisher.current_epoch_key() {
                out.insert(0, k.clone());
            }
        }
        let mut sent = Vec::with_capacity(out.len());
        for m in out {
            sent.push(Sent {
                retain: m.retain,
                payload_len: m.payload.len(),
            });
            self.send(m).await?;
        }
        Ok(sent)
    }

    async fn send(&mut self, m: Message) -> Result<(), Error> {
        self.client
            .publish(m.topic, QoS::AtLeastOnce, m.retain, m.payload)
            .await
            .map_err(|e| Error::Broker(e.to_string()))?;
        self.sent += 1;
        Ok(())
    }

    /// Clears the retained epoch key from the broker (an empty retained
    /// message): readers that join later find none.
    pub async fn retire_epoch_key(&mut self) -> Result<(), Error> {
        let topic = self.publisher.key_topic();
        self.send(Message {
            topic,
            payload: Vec::new(),
            retain: true,
        })
        .await
    }

    /// Waits until the broker acknowledged every message (up to `wait`),
    /// then disconnects. Returns how many were not acknowledged.
    pub async fn close(self, wait: Duration) -> Result<u64, Error> {
        let deadline = Instant::now() + wait;
        while self.acked.load(Ordering::SeqCst) < self.sent && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let missing = self.sent.saturating_sub(self.acked.load(Ordering::SeqCst));
        let _ = self.client.disconnect().await;
        let _ = tokio::time::timeout(Duration::from_secs(2), self.task).await;
        Ok(missing)
    }
}

/// A [`Subscriber`] connected to a broker.
pub struct MqttSubscriber {
    client: AsyncClient,
    events: EventLoop,
    subscriber: Subscriber,
    filters: [String; 2],
    /// Events of messages that arrived while `connect` waited for SUBACK.
    early: Vec<Event>,
    /// The connection error last reported, until a message arrives again.
    down: Option<String>,
    retry: Duration,
}

impl MqttSubscriber {
    /// Subscribes to the readings on `filter` (a topic or a filter with
    /// `+`/`#`) and to their epoch keys; returns once the broker granted
    /// the subscription, so what is published from then on arrives.
    pub async fn connect(
        broker: &Broker,
        filter: &str,
        subscriber: Subscriber,
    ) -> Result<Self, Error> {
        if filter.is_empty() {
            return Err(Error::Invalid("empty topic filter".into()));
        }
        let (client, mut events) = broker.client("sub", MAX_INCOMING);
        first_connection(&mut events).await?;
        let filters = Subscriber::filters(filter);
        let mut s = MqttSubscriber {
            client,
            events,
            subscriber,
            filters,
            early: Vec::new(),
            down: None,
            retry: RETRY,
        };
        s.subscribe()?;
        let deadline = Instant::now() + CONNECT_TIMEOUT;
        loop {
            match tokio::time::timeout_at(deadline.into(), s.events.poll()).await {
                Ok(Ok(rumqttc::Event::Incoming(Packet::SubAck(ack)))) => {
                    if ack
                        .return_codes
                        .iter()
                        .any(|c| matches!(c, rumqttc::SubscribeReasonCode::Failure))
                    {
                        return Err(Error::Broker(format!(
                            "the broker refused the subscription to {filter:?}"
                        )));
                    }
                    return Ok(s);
                }
                Ok(Ok(rumqttc::Event::Incoming(Packet::Publish(p)))) => {
                    if s.early.len() >= MAX_EARLY {
                        return Err(Error::Broker(format!(
                            "more than {MAX_EARLY} messages before the broker granted the subscription"
                        )));
                    }
                    let sub = &mut s.subscriber;
                    let ev = off_the_runtime(|| sub.receive(&p.topic, &p.payload));
                    s.early.extend(ev);
                }
                Ok(Ok(_)) => {}
                Ok(Err(e)) => return Err(Error::Broker(e.to_string())),
                Err(_) => return Err(Error::Broker("no SUBACK within 10 s".into())),
            }
        }
    }

    fn subscribe(&self) -> Result<(), Error> {
        let topics = self
            .filters
            .iter()
            .map(|f| rumqttc::SubscribeFilter::new(f.clone(), QoS::AtLeastOnce));
        self.client
            .try_subscribe_many(topics)
            .map_err(|e| Error::Broker(e.to_string()))
    }

    /// The events of the next message from the broker (reconnecting and
    /// subscribing again when the connection drops, which is reported once
    /// per cause as [`Event::Disconnected`]).
    pub async fn next(&mut self) -> Result<Vec<Event>, Error> {
        if !self.early.is_empty() {
            return Ok(std::mem::take(&mut self.early));
        }
        loop {
            match self.events.poll().await {
                Ok(rumqttc::Event::Incoming(Packet::Publish(p))) => {
                    self.down = None;
                    self.retry = RETRY;
                    let s = &mut self.subscriber;
                    return Ok(match Subscriber::needs_pairings(&p.payload) {
                        true => off_the_runtime(|| s.receive(&p.topic, &p.payload)),
                        false => s.receive(&p.topic, &p.payload),
                    });
                }
                Ok(rumqttc::Event::Incoming(Packet::ConnAck(_))) => self.subscribe()?,
                Ok(_) => {}
                Err(e) => {
                    tokio::time::sleep(self.retry).await;
                    self.retry = (self.retry * 2).min(MAX_RETRY);
                    let reason = e.to_string();
                    if self.down.as_deref() != Some(reason.as_str()) {
                        self.down = Some(reason.clone());
                        return Ok(vec![Event::Disconnected { reason }]);
                    }
                }
            }
        }
    }

    pub async fn disconnect(self) {
        let _ = self.client.disconnect().await;
    }
}
