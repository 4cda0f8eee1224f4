//! The publish/subscribe benchmark through a real broker (issue targets:
//! epochs ≥ 20 000 readings/s with p99 ≤ 5 ms; per-message ABE at 10
//! attributes ≥ 100 readings/s). `scripts/mqtt-bench.sh` and the lab's
//! perazzo-broker experiment run it.
//!
//! One case is two rounds, each a fresh publisher and subscriber in this
//! process on the same broker:
//! - **burst**: `burst` readings published as fast as QoS 1 allows;
//!   throughput = readings / (last arrival − first publish), the first
//!   epoch's ABE encryption and decryption included;
//! - **paced**: after one untimed warm-up reading (which starts the epoch
//!   and fills the keys' caches), `paced` readings offered at a fixed rate
//!   (the target rate, or 80 % of the burst throughput when that is lower);
//!   latency = arrival − the moment the reading was due by the schedule
//!   (so a publisher falling behind shows as latency, not as fewer
//!   samples); it includes encryption, both hops through the broker and
//!   decryption.

use crate::{
    Broker, Error, Event, MqttPublisher, MqttSubscriber, Protection, Publisher, Subscriber,
};
use abbe::curve::CurveId;
use abbe::facade;
use abbe::kem::{ParamsKind, SetupParams, SideKind};
use abbe::wire::SchemeId;
use rand_core::OsRng;
use std::time::{Duration, Instant};
use zeroize::Zeroizing;

/// What one case measures.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub scheme: SchemeId,
    pub curve: CurveId,
    /// Attributes in the policy (an AND of all) and in the set.
    pub attrs: usize,
    pub reading_len: usize,
    pub per_message: bool,
}

/// How many readings, and the paced round's target rate.
#[derive(Clone, Copy, Debug)]
pub struct Load {
    pub burst: usize,
    pub paced: usize,
    /// Readings per second offered in the paced round (capped at 80 % of
    /// the burst throughput).
    pub rate: f64,
}

/// What a case measured.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Burst throughput, readings per second.
    pub per_second: f64,
    /// The paced round's offered rate, and its latency percentiles (ms).
    pub offered_rate: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// One reading's MQTT payload, and the epoch key's (epoch mode).
    pub reading_bytes: usize,
    pub key_bytes: Option<usize>,
    /// Readings published but never delivered, over both rounds.
    pub missed: u64,
}

/// What a case encrypts with and decrypts with.
pub struct Material {
    pub public_key: Vec<u8>,
    /// What every reading is encrypted for.
    pub target: String,
    /// A user key that satisfies `target`.
    pub key: Zeroizing<Vec<u8>>,
}

/// Keys for `case`: `attrs` attributes A1…An, and their AND as policy.
pub fn material(case: &Case) -> Result<Material, Error> {
    let scheme = facade::scheme(case.scheme, case.curve)?;
    let names: Vec<String> = (1..=case.attrs)
        .map(abbe::policy::generate::attr_name)
        .collect();
    let (set, policy) = (names.join(", "), names.join(" and "));
    let (target, key_side) = match scheme.info().ciphertext_side {
        SideKind::Policy => (policy, set),
        SideKind::Attributes => (set, policy),
        _ => {
            return Err(Error::Unsupported(format!(
                "{}: the benchmark runs attribute-based schemes",
                case.scheme.name()
            )))
        }
    };
    let params = SetupParams {
        // A small-universe scheme is set up for exactly these attributes.
        universe: (scheme.info().params == ParamsKind::Universe).then(|| names.clone()),
        ..SetupParams::default()
    };
    let (pk, mk) = scheme.setup(&params, &mut OsRng)?;
    let key = scheme.keygen(&mk, &key_side, Some(&pk), &mut OsRng)?;
    Ok(Material {
        public_key: pk,
        target,
        key,
    })
}

/// Runs one case on `broker`.
pub async fn run(broker: &Broker, case: &Case, load: &Load) -> Result<Outcome, Error> {
    let Material {
        public_key: pk,
        target,
        key,
    } = material(case)?;
    let reading = vec![0x5a; case.reading_len];
    let mut run_id = [0u8; 4];
    rand_core::RngCore::fill_bytes(&mut OsRng, &mut run_id);
    // A topic of its own: no earlier case's retained key reaches this one.
    let topic = format!(
        "abbe-bench/{}/{}/{}/{}/{}",
        abbe::wire::hex(&run_id),
        case.scheme.name(),
        case.attrs,
        case.reading_len,
        if case.per_message { "sealed" } else { "epochs" }
    );
    let round = |n: usize, rate: Option<f64>| {
        let publisher = Publisher::new(
            pk.clone(),
            &target,
            &topic,
            match case.per_message {
                true => Protection::PerMessage,
                false => Protection::Epochs {
                    messages: None,
                    age: Some(Duration::from_secs(3600)),
                },
            },
            None,
        );
        let subscriber = Subscriber::new(key.clone(), None);
        let (topic, reading) = (topic.clone(), reading.clone());
        async move { one_round(broker, &topic, publisher?, subscriber?, &reading, n, rate).await }
    };
    let burst = round(load.burst, None).await?;
    let per_second = burst.delivered() as f64 / burst.span().as_secs_f64();
    let offered_rate = load.rate.min(0.8 * per_second);
    if !(offered_rate.is_finite() && offered_rate > 0.0) {
        return Err(Error::Broker(format!(
            "the burst delivered {} of {} readings",
            burst.delivered(),
            load.burst
        )));
    }
    let paced = round(load.paced, Some(offered_rate)).await?;
    let mut lat = paced.latencies_ms();
    lat.sort_by(f64::total_cmp);
    Ok(Outcome {
        per_second,
        offered_rate,
        p50_ms: percentile(&lat, 0.50),
        p99_ms: percentile(&lat, 0.99),
        reading_bytes: burst.reading_bytes,
        key_bytes: burst.key_bytes,
        missed: burst.missed() + paced.missed(),
    })
}

/// The `q` quantile of sorted values (nearest rank); NaN when empty.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

struct Round {
    sent: Vec<Instant>,
    arrived: Vec<Option<Instant>>,
    reading_bytes: usize,
    key_bytes: Option<usize>,
}

impl Round {
    fn delivered(&self) -> usize {
        self.arrived.iter().flatten().count()
    }
    fn missed(&self) -> u64 {
        (self.arrived.len() - self.delivered()) as u64
    }
    /// First publish to last arrival.
    fn span(&self) -> Duration {
        let last = self.arrived.iter().flatten().max();
        match (self.sent.first(), last) {
            (Some(a), Some(b)) => b.duration_since(*a).max(Duration::from_micros(1)),
            _ => Duration::MAX,
        }
    }
    fn latencies_ms(&self) -> Vec<f64> {
        self.sent
            .iter()
            .zip(&self.arrived)
            .filter_map(|(s, a)| a.map(|a| a.duration_since(*s).as_secs_f64() * 1e3))
            .collect()
    }
}

async fn one_round(
    broker: &Broker,
    topic: &str,
    publisher: Publisher,
    subscriber: Subscriber,
    reading: &[u8],
    n: usize,
    rate: Option<f64>,
) -> Result<Round, Error> {
    let mut sub = MqttSubscriber::connect(broker, topic, subscriber).await?;
    // The subscriber runs on its own task and reports each reading's
    // arrival (sequence number, instant).
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let listener = tokio::spawn(async move {
        loop {
            let events = tokio::select! {
                e = sub.next() => e?,
                _ = tx.closed() => break,
            };
            let now = Instant::now();
            for e in events {
                if let Event::Reading { seq, .. } = e {
                    let _ = tx.send((seq, now));
                }
            }
        }
        sub.disconnect().await;
        Ok::<_, Error>(())
    });
    let mut client = MqttPublisher::connect(broker, publisher).await?;
    let (mut reading_bytes, mut key_bytes) = (0, None);
    let mut publish = async |client: &mut MqttPublisher| -> Result<(), Error> {
        for m in client.publish(reading).await? {
            match m.retain {
                true => key_bytes = Some(m.payload_len),
                false => reading_bytes = m.payload_len,
            }
        }
        Ok(())
    };
    let quiet = Duration::from_secs(30);
    if rate.is_some() {
        // Warm-up, untimed: the first reading starts the epoch (an ABE
        // encryption and decryption) and fills the keys' caches; latency
        // is measured in the steady state after it arrived.
        publish(&mut client).await?;
        tokio::time::timeout(quiet, rx.recv())
            .await
            .map_err(|_| Error::Broker("the warm-up reading never arrived".into()))?;
    }
    let first = usize::from(rate.is_some());
    let mut sent = Vec::with_capacity(n);
    let start = Instant::now();
    for i in 0..n {
        match rate {
            Some(r) => {
                let due = start + Duration::from_secs_f64(i as f64 / r);
                tokio::time::sleep_until(due.into()).await;
                sent.push(due);
            }
            None => sent.push(Instant::now()),
        }
        publish(&mut client).await?;
    }
    let mut arrived = vec![None; n];
    let mut left = n;
    while left > 0 {
        let Ok(Some((seq, at))) = tokio::time::timeout(quiet, rx.recv()).await else {
            break;
        };
        if let Some(slot @ None) = (seq as usize)
            .checked_sub(first)
            .and_then(|i| arrived.get_mut(i))
        {
            *slot = Some(at);
            left -= 1;
        }
    }
    client.retire_epoch_key().await?;
    client.close(Duration::from_secs(30)).await?;
    drop(rx);
    listener
        .await
        .map_err(|e| Error::Broker(format!("subscriber task: {e}")))??;
    Ok(Round {
        sent,
        arrived,
        reading_bytes,
        key_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.50), 50.0);
        assert_eq!(percentile(&v, 0.99), 99.0);
        assert_eq!(percentile(&[7.0], 0.99), 7.0);
        assert!(percentile(&[], 0.5).is_nan());
    }
}
