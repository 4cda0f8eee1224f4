//! Black-box traitor tracing for private linear broadcast encryption.
//!
//! A PLBE ([`Traceable`]) can encrypt at an index u ∈ [1, N+1] so that only
//! the users ≥ u decrypt; index 1 is a normal encryption and N+1 reaches
//! nobody. A pirate decoder D, built from some users' keys, decrypts index u
//! with probability p_u: p_1 is its success on real traffic and p_{N+1} ≈ 0.
//! By index hiding, D cannot tell an encryption at u from one at u+1 unless
//! user u's key is in D, so a drop between u and u+1 names a traitor
//! (D. Boneh, A. Sahai, B. Waters, EUROCRYPT 2006, §3; GKSW ePrint 2009/532
//! reuses it; Zhandry, CRYPTO 2020, §9, for the risky and compiled schemes).
//!
//! BSW06's Trace estimates every p_u with 8λ(N/ε)² queries — O(λN³/ε²) in
//! all, out of reach beyond toy N. [`search`] keeps its test and searches
//! for the drop instead, and accuses only on fresh rounds of queries at u and
//! u+1 shuffled by secret coins, so that its guarantee holds for decoders
//! that keep state:
//!
//! **What a trace promises.** Whatever the decoder does — stateless or not,
//! counting queries, reading the clock, simulating the tracer, switching
//! keys — an innocent user is accused with probability at most
//! [`TraceOptions::error`] per trace (plus the decoder's advantage against
//! the scheme's index hiding; k traces of one decoder, kδ). Accusations rest
//! only on steps between hybrids that the scheme's proof makes
//! indistinguishable without the accused user's key ([`Line`]). The
//! decoder must not see the tracer's secrets: run it where it cannot read
//! the master key or the tracer's memory (`abbe trace --decoder-user`). A decoder that decrypts real traffic and treats
//! probes as it treats real traffic is traced to one of its keys. A decoder
//! that recognises probes can refuse them and escape (no scheme can prevent
//! that), but never frame anyone. Probes are complete abbe files whose
//! plaintexts follow [`Probes`]: random bytes of varied lengths by default,
//! or the operator's own files, for decoders that inspect what they
//! decrypt.
//!
//! The risky scheme ([`super::zha20_risky`]) can only accuse its hidden
//! position i* (and only when the decoder holds i*'s key); the compiled one
//! ([`super::zha20`]) the users its copies' hidden positions fall on.
//! Elsewhere they end without an accusation: the promise above holds, the
//! chance of an accusation is the scheme's.

pub mod search;

use crate::kem::{Kem, KemError, MasterKeyOf, SessionKey};
use rand_core::{CryptoRng, RngCore};
use std::sync::Arc;

pub use search::trace_indices;

/// A broadcast scheme with a tracing encryption (a PLBE, an augmented
/// broadcast encryption, a risky broadcast-and-trace).
pub trait Traceable: Kem {
    /// Tracing needs the master key (private tracing: PLBE, Zhandry); an
    /// augmented broadcast encryption traces with the public key alone.
    const PRIVATE: bool;
    /// N, the number of users of the setup.
    fn users(pk: &Self::PublicKey) -> u32;
    /// The ciphertext side a decoder is traced for when none is given:
    /// every user.
    fn everyone(pk: &Self::PublicKey) -> Self::CiphertextSide;
    /// The lines of hybrid encryptions the tracer may probe ([`Line`]): the
    /// N+1 indices of a PLBE; one short line per copy of a risky scheme.
    fn lines(pk: &Self::PublicKey, mk: Option<&MasterKeyOf<Self>>) -> Vec<Line> {
        let _ = (pk, mk);
        vec![Line::All]
    }
    /// The least user `position` of `line` reaches: its encryption is
    /// decryptable exactly by the users ≥ this of the target (N+1: by
    /// nobody). For tests and simulations with ideal keys.
    fn reach(
        pk: &Self::PublicKey,
        mk: Option<&MasterKeyOf<Self>>,
        line: usize,
        position: u32,
    ) -> u32 {
        let _ = (pk, mk, line);
        position
    }
    /// The hybrid encryption to `target` at `position` of `line` (position
    /// 1: distributed as a normal encryption; the last: decryptable by
    /// nobody). On [`Line::All`] the position is the index u, decryptable
    /// exactly by the users ≥ u. `mk` is given when [`Self::PRIVATE`].
    fn encapsulate_at<R: RngCore + CryptoRng>(
        pk: &Self::PublicKey,
        mk: Option<&MasterKeyOf<Self>>,
        target: &Self::CiphertextSide,
        line: usize,
        position: u32,
        rng: &mut R,
    ) -> Result<(SessionKey, Self::Header), KemError>;
}

/// A sequence of hybrid encryptions, positions 1..=len: position 1 is
/// distributed as a normal encryption and the last is decryptable by
/// nobody. A drop in a decoder's success between positions p and p+1
/// accuses a user only where the scheme's proof makes p and p+1
/// indistinguishable to anyone without that user's key; every other step
/// only steers the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A PLBE's indices u ∈ [1, N+1] (len = N+1): u reaches the users ≥ u,
    /// so u and u+1 differ only for user u, whom a drop between them
    /// accuses (BSW06's index hiding).
    All,
    /// `len` hybrids, and the steps (p, user) a drop across p → p+1 accuses
    /// that user on (a risky scheme: TrEnc(0,1) → TrEnc(1,0) at the hidden
    /// position).
    Hybrids { len: u32, accuse: Vec<(u32, u32)> },
}

impl Line {
    /// The last position.
    fn last(&self, users: u32) -> u32 {
        match self {
            Line::All => users + 1,
            Line::Hybrids { len, .. } => *len,
        }
    }
    /// The steps it can accuse on: P's share of this line.
    fn accusable_steps(&self, users: u32) -> u64 {
        match self {
            Line::All => u64::from(users),
            Line::Hybrids { accuse, .. } => accuse.len() as u64,
        }
    }
    /// The user a drop across p → p+1 accuses, if any.
    fn accused_at(&self, p: u32, users: u32) -> Option<u32> {
        match self {
            Line::All => (1..=users).contains(&p).then_some(p),
            Line::Hybrids { accuse, .. } => {
                accuse.iter().find(|(q, _)| *q == p).map(|&(_, user)| user)
            }
        }
    }
    /// A position strictly between a and b (b > a + 1), drawn by `coins`
    /// from the middle quarter of them: the decoder cannot compute which
    /// position the search probes next.
    fn pick_between(a: u32, b: u32, coins: &mut dyn RngCore) -> u32 {
        let inside = u64::from(b - a - 1);
        let spread = (inside / 4).max(1);
        let start = (inside - spread) / 2;
        a + 1 + (start + uniform(spread, coins)) as u32
    }
}

/// The plaintexts of the tracer's probes. A decoder that inspects what it
/// decrypts (its length, whether it looks like real content) can refuse
/// probes; probes like its real traffic leave it nothing to go by.
#[derive(Clone, Debug)]
pub enum Probes {
    /// Random bytes (as compressed media look), of a length drawn
    /// log-uniformly from [min, max].
    Random { min: usize, max: usize },
    /// The content of one of these files, drawn uniformly per probe (the
    /// operator's real content: `abbe trace --probe-like`). A decoder that
    /// already has a file can output it without decrypting: use content the
    /// decoder cannot have.
    Like(Vec<Arc<[u8]>>),
}

impl Default for Probes {
    /// 64 B to 1 MiB: messages, documents and images alike.
    fn default() -> Self {
        Probes::Random {
            min: 64,
            max: 1 << 20,
        }
    }
}

/// The largest file `--probe-like` takes: probes are held in memory.
pub const MAX_PROBE_BYTES: usize = 16 << 20;

impl Probes {
    /// Why these probes cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), &'static str> {
        match self {
            Probes::Random { min, max } if *min == 0 || min > max || *max > MAX_PROBE_BYTES => {
                Err("probe lengths must satisfy 1 ≤ min ≤ max ≤ 16 MiB")
            }
            Probes::Like(files) if files.is_empty() => Err("no probe files given"),
            Probes::Like(files) if files.iter().any(|f| f.is_empty()) => {
                Err("an empty probe file (a decoder's empty output would match it)")
            }
            Probes::Like(files) if files.iter().any(|f| f.len() > MAX_PROBE_BYTES) => {
                Err("a probe file over 16 MiB")
            }
            _ => Ok(()),
        }
    }
    /// The longest plaintext a probe can have: a decoder's output longer
    /// than this is not a decryption.
    pub fn max_len(&self) -> usize {
        match self {
            Probes::Random { max, .. } => *max,
            Probes::Like(files) => files.iter().map(|f| f.len()).max().unwrap_or(0),
        }
    }
    /// One probe's plaintext.
    pub(crate) fn draw(&self, rng: &mut impl RngCore) -> Arc<[u8]> {
        match self {
            Probes::Random { min, max } => {
                let mut m = vec![0u8; random_length(*min, *max, rng)];
                rng.fill_bytes(&mut m);
                m.into()
            }
            Probes::Like(files) => files[uniform(files.len() as u64, rng) as usize].clone(),
        }
    }
    /// The length of one probe's plaintext, drawn as `Probes::draw`
    /// draws it (for simulations that need only the length).
    pub fn draw_len(&self, rng: &mut impl RngCore) -> usize {
        match self {
            Probes::Random { min, max } => random_length(*min, *max, rng),
            Probes::Like(files) => files[uniform(files.len() as u64, rng) as usize].len(),
        }
    }
}

/// A uniform integer in [0, n), n ≥ 1 (Lemire's multiply-and-reject:
/// unbiased).
fn uniform(n: u64, rng: &mut (impl RngCore + ?Sized)) -> u64 {
    let threshold = n.wrapping_neg() % n;
    loop {
        let m = u128::from(rng.next_u64()) * u128::from(n);
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
    }
}

/// A length drawn log-uniformly from [min, max].
fn random_length(min: usize, max: usize, rng: &mut (impl RngCore + ?Sized)) -> usize {
    let (lo, hi) = ((min as f64).ln(), (max as f64).ln());
    let t = uniform(1 << 53, rng) as f64 / (1u64 << 53) as f64;
    ((lo + t * (hi - lo)).exp().round() as usize).clamp(min, max)
}

/// How sure the tracer must be, how much it may spend, and what it sends.
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// Bound on the probability of accusing an innocent user (default
    /// 10⁻⁶).
    pub error: f64,
    /// Stop after this many decoder queries (default 100 000).
    pub max_queries: u64,
    /// Queries for an index the first time it is probed, and in the first
    /// accusation round of a pair (default 32).
    pub first_queries: u64,
    /// A decoder whose success on normal ciphertexts is shown to be below
    /// this is reported as not decrypting (default 0.01).
    pub min_success: f64,
    /// The probes' plaintexts.
    pub probes: Probes,
}

impl TraceOptions {
    /// Why these options cannot trace, if they cannot.
    pub fn check(&self) -> Result<(), &'static str> {
        // Below 10⁻²⁰ the exact tails would approach f64's range.
        if !(self.error >= 1e-20 && self.error < 1.0) {
            return Err("the error bound must be in [1e-20, 1)");
        }
        if !(self.min_success > 0.0 && self.min_success < 1.0) {
            return Err("the minimum success must be in (0, 1)");
        }
        if self.max_queries == 0 {
            return Err("the query budget must be at least 1");
        }
        self.probes.check()
    }
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            error: 1e-6,
            max_queries: 100_000,
            first_queries: 32,
            min_success: 0.01,
            probes: Probes::default(),
        }
    }
}

/// What the tracer knows about one index: the decoder was queried
/// `queries` times on encryptions at `index` (of `line`) and decrypted
/// `successes`; [low, high] holds p_index (jointly with every other bound,
/// except with the run's error probability, for a stateless decoder).
/// Steering only: no accusation rests on these.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexEstimate {
    pub line: usize,
    pub index: u32,
    pub queries: u64,
    pub successes: u64,
    pub low: f64,
    pub high: f64,
}

/// The accusation rounds of one step (index, index + 1) of a line, which
/// accuses `user`: how many, and the last one — `queries_each` shuffled
/// queries at each position, of which the decoder decrypted
/// `decrypted_low` at `index` and `decrypted_high` at `index + 1`;
/// `p_value`, the probability of a split at least this uneven if the
/// decoder could not tell the two apart; the round accuses when it is at
/// most `threshold`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairEvidence {
    pub line: usize,
    pub index: u32,
    pub user: u32,
    pub rounds: u32,
    pub queries_each: u64,
    pub decrypted_low: u64,
    pub decrypted_high: u64,
    pub p_value: f64,
    pub threshold: f64,
}

/// How a trace ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceVerdict {
    /// This user's key is in the decoder (within the error bound).
    Accused(u32),
    /// The decoder does not decrypt normal ciphertexts (success shown to be
    /// below `min_success`): there is nothing to trace.
    DoesNotDecrypt,
    /// Every line's drops lie between indices the tracer cannot separate
    /// (a risky scheme whose hidden positions missed the coalition).
    NoAccusation,
    /// The query budget ran out before a drop was established.
    BudgetExhausted,
}

/// The result of a trace, with its evidence.
#[derive(Clone, Debug)]
pub struct TraceReport {
    pub verdict: TraceVerdict,
    /// The estimates at every index probed, by line and index.
    pub evidence: Vec<IndexEstimate>,
    /// The accusation rounds, by line and pair.
    pub rounds: Vec<PairEvidence>,
    /// The round that accused, when one did.
    pub accusing: Option<PairEvidence>,
    pub queries: u64,
    pub users: u32,
    /// The bound on a false accusation this run was made with.
    pub error: f64,
}

impl TraceReport {
    /// The round that accused, when a user was accused.
    pub fn accusation(&self) -> Option<&PairEvidence> {
        self.accusing.as_ref()
    }
}

/// Progress of a trace: queries so far and the interval being searched.
#[derive(Clone, Copy, Debug)]
pub struct TraceProgress {
    pub queries: u64,
    pub max_queries: u64,
    pub line: usize,
    pub interval: (u32, u32),
}

#[cfg(test)]
mod tests;
