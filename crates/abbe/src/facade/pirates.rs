//! Pirate decoders made of real user keys, for testing a tracer: the
//! stateless ones the papers model, and stateful ones that try to frame an
//! innocent user or to escape (they count queries, read the clock, follow
//! their own earlier answers, simulate the tracer, switch keys). The
//! tracer's tests and the lab's tracing table run them against
//! [`super::trace`]; none of them may make it accuse a user whose key it
//! does not hold.

use crate::bcast::trace::search::{trace_indices, Query};
use crate::bcast::trace::{Line, TraceOptions};
use crate::facade::{self, UserKey};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;
use std::collections::VecDeque;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::{Duration, Instant};

/// How a pirate decides whether to answer a query.
#[derive(Clone, Debug)]
pub enum Strategy {
    /// One of its keys drawn at random per query (stateless; its success
    /// drops by 1/k at each of k keys).
    RandomKey,
    /// Any of its keys that decrypts (stateless).
    AnyKey,
    /// Any key, answering half the queries at random (stateless,
    /// unreliable).
    Half,
    /// By query count: query q is answered when `pattern[(q / size) %
    /// pattern.len()]` holds — blocks aligned with a deterministic
    /// tracer's rounds.
    Blocks { size: u64, pattern: Vec<bool> },
    /// By the clock: answers during every other `period` since its first
    /// query.
    Clock { period: Duration },
    /// By its own earlier answers: answers when its success rate so far is
    /// at most `rate`, so its rate looks the same at every index.
    RateKeeper { rate: f64 },
    /// Its first key for the first `after` queries, then its last key.
    SwitchKeys { after: u64 },
    /// Refuses plaintexts shorter than `min` bytes (a decoder that ignores
    /// small messages: tracing probes of one fixed size).
    Picky { min: usize },
    /// Simulates the tracer ([`trace_indices`] on its own thread, fed with
    /// this pirate's answers) to predict the index of every query, and
    /// answers as if it held user `frame`'s key and no higher one: when the
    /// predicted index is at most `frame`. Its coins are guessed from
    /// `seed`: a tracer whose coins are this seed (leaked, or a
    /// deterministic tracer) is framed; one with secret coins is not.
    Shadow {
        frame: u32,
        users: u32,
        lines: Vec<Line>,
        options: TraceOptions,
        seed: u64,
    },
}

impl Strategy {
    /// A short name, for tables.
    pub fn name(&self) -> String {
        match self {
            Strategy::RandomKey => "random key per query".into(),
            Strategy::AnyKey => "any key".into(),
            Strategy::Half => "any key, half the queries".into(),
            Strategy::Blocks { size, pattern } => {
                let p: String = pattern.iter().map(|&b| if b { '1' } else { '0' }).collect();
                format!("blocks of {size} queries ({p})")
            }
            Strategy::Clock { period } => format!("by the clock ({} µs)", period.as_micros()),
            Strategy::RateKeeper { rate } => format!("rate keeper ({rate})"),
            Strategy::SwitchKeys { after } => format!("switches keys after {after}"),
            Strategy::Picky { min } => format!("refuses plaintexts < {min} B"),
            Strategy::Shadow { frame, .. } => format!("simulates the tracer to frame {frame}"),
        }
    }

    /// The stateful pirates of issue 34, for a setup of `users` on `lines`:
    /// by query count (the blocks that framed the risky scheme's i*, and
    /// halves), by the clock, by their own earlier answers, switching keys,
    /// refusing small plaintexts, and simulating the tracer to frame
    /// `frame` (its coins guessed from `seed`).
    pub fn adversaries(
        users: u32,
        frame: u32,
        lines: &[Line],
        options: &TraceOptions,
        seed: u64,
    ) -> Vec<Strategy> {
        vec![
            Strategy::Blocks {
                size: 32,
                pattern: vec![true, false, false, true, true, false],
            },
            Strategy::Blocks {
                size: 64,
                pattern: vec![true, false],
            },
            Strategy::Clock {
                period: Duration::from_micros(300),
            },
            Strategy::RateKeeper { rate: 0.5 },
            Strategy::SwitchKeys { after: 300 },
            Strategy::Picky { min: 4096 },
            Strategy::Shadow {
                frame,
                users,
                lines: lines.to_vec(),
                options: options.clone(),
                seed,
            },
        ]
    }
}

/// The coins [`super::trace`] draws first from an rng seeded with `seed`
/// (`ChaCha20Rng::from_rng` reads 32 bytes).
fn coins_from(seed: u64) -> ChaCha20Rng {
    let mut s = [0u8; 32];
    ChaCha20Rng::seed_from_u64(seed).fill_bytes(&mut s);
    ChaCha20Rng::from_seed(s)
}

/// The shadow tracer's side of [`Strategy::Shadow`].
struct Shadow {
    batches: Receiver<Vec<Query>>,
    answers: Sender<Vec<bool>>,
    current: VecDeque<Query>,
    given: Vec<bool>,
    /// The shadow trace ended (or could not follow): answer honestly.
    done: bool,
}

impl Shadow {
    fn start(users: u32, lines: Vec<Line>, options: TraceOptions, seed: u64) -> Shadow {
        let (batch_tx, batches) = channel::<Vec<Query>>();
        let (answers, answer_rx) = channel::<Vec<bool>>();
        std::thread::spawn(move || {
            let mut coins = coins_from(seed);
            let mut probe = |batch: &[Query]| -> Result<Vec<bool>, ()> {
                batch_tx.send(batch.to_vec()).map_err(drop)?;
                answer_rx.recv().map_err(drop)
            };
            let _ = trace_indices(users, lines, &options, &mut coins, &mut probe, &mut |_| {});
        });
        Shadow {
            batches,
            answers,
            current: VecDeque::new(),
            given: Vec::new(),
            done: false,
        }
    }
    /// The index the shadow predicts for the next query.
    fn next(&mut self) -> Option<u32> {
        if self.done {
            return None;
        }
        if self.current.is_empty() {
            if !self.given.is_empty() && self.answers.send(std::mem::take(&mut self.given)).is_err()
            {
                self.done = true;
                return None;
            }
            match self.batches.recv() {
                Ok(b) => self.current = b.into(),
                Err(_) => {
                    self.done = true;
                    return None;
                }
            }
        }
        self.current.pop_front().map(|q| q.index)
    }
}

/// How a pirate plays, whatever keys it holds: its strategy and what it
/// remembers. [`Pirate`] runs it on real keys; tests of the search run it
/// on simulated ones.
pub struct Tactics {
    strategy: Strategy,
    rng: ChaCha20Rng,
    queries: u64,
    successes: u64,
    started: Option<Instant>,
    shadow: Option<Shadow>,
}

impl Tactics {
    /// `strategy` with the pirate's own coins from `seed`.
    pub fn new(strategy: Strategy, seed: u64) -> Tactics {
        let shadow = match &strategy {
            Strategy::Shadow {
                users,
                lines,
                options,
                seed,
                ..
            } => Some(Shadow::start(*users, lines.clone(), options.clone(), *seed)),
            _ => None,
        };
        Tactics {
            strategy,
            rng: ChaCha20Rng::seed_from_u64(seed),
            queries: 0,
            successes: 0,
            started: None,
            shadow,
        }
    }

    /// Answers one query with one of `keys` keys: `open(k)` tries key k and
    /// gives the plaintext's length when it decrypts. Returns the key whose
    /// plaintext the pirate outputs, or `None` when it outputs nothing.
    pub fn answer(
        &mut self,
        keys: usize,
        open: &mut dyn FnMut(usize) -> Option<usize>,
    ) -> Option<usize> {
        let q = self.queries;
        self.queries += 1;
        let started = *self.started.get_or_insert_with(Instant::now);
        let any =
            |open: &mut dyn FnMut(usize) -> Option<usize>| (0..keys).find(|&k| open(k).is_some());
        let out = match &self.strategy {
            Strategy::RandomKey => {
                let k = (self.rng.next_u32() as usize) % keys.max(1);
                open(k).map(|_| k)
            }
            Strategy::AnyKey => any(open),
            Strategy::Half => (self.rng.next_u32() % 2 == 0).then(|| any(open)).flatten(),
            Strategy::Blocks { size, pattern } => {
                let block = (q / (*size).max(1)) as usize;
                (pattern.get(block % pattern.len().max(1)) == Some(&true))
                    .then(|| any(open))
                    .flatten()
            }
            Strategy::Clock { period } => {
                let slot = started.elapsed().as_nanos() / period.as_nanos().max(1);
                (slot % 2 == 0).then(|| any(open)).flatten()
            }
            Strategy::RateKeeper { rate } => ((self.successes as f64) <= rate * q as f64)
                .then(|| any(open))
                .flatten(),
            Strategy::SwitchKeys { after } => {
                let k = if q < *after {
                    0
                } else {
                    keys.saturating_sub(1)
                };
                open(k).map(|_| k)
            }
            Strategy::Picky { min } => (0..keys).find(|&k| open(k).is_some_and(|n| n >= *min)),
            Strategy::Shadow { frame, .. } => {
                let frame = *frame;
                let predicted = self.shadow.as_mut().and_then(Shadow::next);
                let out = match predicted {
                    Some(u) if u > frame => None,
                    _ => any(open),
                };
                if let Some(s) = self.shadow.as_mut() {
                    if !s.done {
                        s.given.push(out.is_some());
                    }
                }
                out
            }
        };
        self.successes += u64::from(out.is_some());
        out
    }
}

/// A pirate decoder: the real keys of a coalition, and its tactics.
pub struct Pirate {
    keys: Vec<Box<dyn UserKey>>,
    tactics: Tactics,
}

impl Pirate {
    /// A pirate holding `keys` (decoded user keys of one setup; at least
    /// one), its own coins from `seed`.
    pub fn new(keys: Vec<Box<dyn UserKey>>, strategy: Strategy, seed: u64) -> Pirate {
        Pirate {
            keys,
            tactics: Tactics::new(strategy, seed),
        }
    }

    /// Its answer to one ciphertext: the plaintext, or nothing.
    pub fn decode(&mut self, ct: &[u8]) -> Vec<u8> {
        let mut opened: Vec<Option<Vec<u8>>> = vec![None; self.keys.len()];
        let keys = &self.keys;
        let pick = self.tactics.answer(keys.len(), &mut |k| {
            if opened[k].is_none() {
                let mut out = Vec::new();
                opened[k] = facade::decrypt_with(&*keys[k], ct, &mut out, None)
                    .ok()
                    .map(|_| out);
            }
            opened[k].as_ref().map(Vec::len)
        });
        pick.and_then(|k| opened[k].take()).unwrap_or_default()
    }
}

/// Runs a pirate playing `strategy` with ideal keys — key k decrypts
/// position p of line l exactly when k ≥ `reach(l, p)` ([`Traceable::reach`];
/// the position itself on a PLBE's line) — against the search, with
/// plaintext lengths drawn as `options.probes` draws them and the search's
/// coins drawn from `seed` as [`super::trace`] draws them from its rng (so
/// a [`Strategy::Shadow`] given the same seed knows them). The tracer's
/// whole logic runs; only the cryptography is idealised, so thousands of
/// traces take seconds (the lab's accusation statistics, the tests). Ideal
/// keys are as indistinguishable as the scheme's proof says: a scheme
/// whose hybrids a coalition can tell apart needs real keys to show it.
///
/// [`Traceable::reach`]: crate::bcast::trace::Traceable::reach
pub fn simulate(
    users: u32,
    lines: Vec<Line>,
    reach: &dyn Fn(usize, u32) -> u32,
    keys: &[u32],
    strategy: Strategy,
    options: &TraceOptions,
    seed: u64,
) -> super::TraceReport {
    let mut tactics = Tactics::new(strategy, seed ^ 0x7ac);
    let mut lengths = ChaCha20Rng::seed_from_u64(seed ^ 0x1e9);
    let mut coins = coins_from(seed);
    let mut probe = |batch: &[Query]| -> Result<Vec<bool>, std::convert::Infallible> {
        Ok(batch
            .iter()
            .map(|q| {
                let len = options.probes.draw_len(&mut lengths);
                tactics
                    .answer(keys.len(), &mut |k| {
                        (keys[k] >= reach(q.line, q.index)).then_some(len)
                    })
                    .is_some()
            })
            .collect())
    };
    match trace_indices(users, lines, options, &mut coins, &mut probe, &mut |_| {}) {
        Ok(report) => report,
        Err(never) => match never {},
    }
}
