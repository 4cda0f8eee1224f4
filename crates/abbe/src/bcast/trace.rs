//! Black-box traitor tracing for private linear broadcast encryption.
//!
//! A PLBE ([`Traceable`]) can encrypt at an index u ∈ [1, N+1] so that only
//! the users ≥ u decrypt; index 1 is a normal encryption and N+1 reaches
//! nobody. A pirate decoder D, built from some users' keys, decrypts index u
//! with probability p_u: p_1 is its success on real traffic and p_{N+1} ≈ 0.
//! By index hiding, p_u − p_{u+1} is negligible unless user u's key is in D,
//! so a significant drop between u and u+1 names a traitor (D. Boneh,
//! A. Sahai, B. Waters, EUROCRYPT 2006, §3; GKSW ePrint 2009/532 reuses it).
//!
//! BSW06's Trace estimates every p_u with 8λ(N/ε)² queries — O(λN³/ε²)
//! in all, out of reach beyond toy N. We keep its test and its guarantee
//! and search instead: the sampled indices cut [1, N+1] into intervals whose
//! estimated drops sum to p̂_1 − p̂_{N+1}; the interval with the largest drop
//! is split at its middle, and an interval of two adjacent indices is sampled
//! further until its drop is established or it stops being the largest. A
//! user u is accused only when the Chernoff (KL) confidence bounds separate:
//! low(p_u) > high(p_{u+1}).
//!
//! **Error bound.** Every bound is computed on the first n queries of one
//! index, each query with fresh randomness; the bound for index u after n
//! queries fails with probability ≤ δ/((N+1)·n(n+1)), so all bounds ever
//! computed hold at once except with probability ≤ δ (union bound over u and
//! n). While they hold, an accused u has p_u > p_{u+1}, which for a
//! stateless decoder means u's key is in it, up to the decoder's advantage
//! against the scheme's index hiding. A decoder that keeps state between
//! queries (to detect tracing) is outside this model, as in the papers.

use crate::envelope;
use crate::kem::{Kem, KemError, MasterKeyOf, SessionKey};
use rand_core::{CryptoRng, RngCore};
use std::collections::BTreeMap;

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
    /// The lines of indices the tracer may encrypt at ([`Line`]): one line
    /// of every index for a PLBE; one line per copy, each with the few
    /// indices its hidden positions allow, for a risky scheme.
    fn lines(pk: &Self::PublicKey, mk: Option<&MasterKeyOf<Self>>) -> Vec<Line> {
        let _ = (pk, mk);
        vec![Line::All]
    }
    /// An encryption to `target` decryptable exactly by its users ≥ u,
    /// u ∈ [1, N+1] an index of `line` (u = 1: distributed as a normal
    /// encryption; N+1: by nobody). `mk` is given when [`Self::PRIVATE`].
    fn encapsulate_at<R: RngCore + CryptoRng>(
        pk: &Self::PublicKey,
        mk: Option<&MasterKeyOf<Self>>,
        target: &Self::CiphertextSide,
        line: usize,
        u: u32,
        rng: &mut R,
    ) -> Result<(SessionKey, Self::Header), KemError>;
}

/// The indices of one line: every index in [1, N+1], or these (sorted,
/// with 1 and N+1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    All,
    Points(Vec<u32>),
}

impl Line {
    fn len(&self, users: u32) -> u64 {
        match self {
            Line::All => users as u64 + 1,
            Line::Points(p) => p.len() as u64,
        }
    }
    /// An index strictly between a and b, near the middle.
    fn between(&self, a: u32, b: u32) -> Option<u32> {
        match self {
            Line::All => (b > a + 1).then(|| a + (b - a) / 2),
            Line::Points(p) => {
                let lo = p.partition_point(|&x| x <= a);
                let hi = p.partition_point(|&x| x < b);
                (lo < hi).then(|| p[lo + (hi - lo) / 2])
            }
        }
    }
}

/// How sure the tracer must be and how much it may spend.
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// Bound on the probability of accusing an innocent user (default
    /// 10⁻⁶).
    pub error: f64,
    /// Stop after this many decoder queries (default 100 000).
    pub max_queries: u64,
    /// Queries for an index the first time it is probed (default 32).
    pub first_queries: u64,
    /// A decoder whose success on normal ciphertexts is shown to be below
    /// this is reported as not decrypting (default 0.01).
    pub min_success: f64,
}

impl TraceOptions {
    /// Why these options cannot trace, if they cannot.
    pub fn check(&self) -> Result<(), &'static str> {
        if !(self.error > 0.0 && self.error < 1.0) {
            return Err("the error bound must be in (0, 1)");
        }
        if !(self.min_success > 0.0 && self.min_success < 1.0) {
            return Err("the minimum success must be in (0, 1)");
        }
        if self.max_queries == 0 {
            return Err("the query budget must be at least 1");
        }
        Ok(())
    }
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            error: 1e-6,
            max_queries: 100_000,
            first_queries: 32,
            min_success: 0.01,
        }
    }
}

/// What the tracer knows about one index: the decoder was queried
/// `queries` times on encryptions at `index` (of `line`) and decrypted
/// `successes`; [low, high] holds p_index (jointly with every other bound,
/// except with the run's error probability).
#[derive(Clone, Debug, PartialEq)]
pub struct IndexEstimate {
    pub line: usize,
    pub index: u32,
    pub queries: u64,
    pub successes: u64,
    pub low: f64,
    pub high: f64,
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
    pub queries: u64,
    pub users: u32,
    /// The bound on a false accusation this run was made with.
    pub error: f64,
}

/// Progress of a trace: queries so far and the interval being searched.
#[derive(Clone, Copy, Debug)]
pub struct TraceProgress {
    pub queries: u64,
    pub max_queries: u64,
    pub line: usize,
    pub interval: (u32, u32),
}

/// KL(p ‖ q) of two Bernoulli means.
fn kl(p: f64, q: f64) -> f64 {
    let term = |a: f64, b: f64| if a <= 0.0 { 0.0 } else { a * (a / b).ln() };
    term(p, q) + term(1.0 - p, 1.0 - q)
}

/// The Chernoff (KL) bound of a Bernoulli mean p̂ over n queries: the
/// furthest q below (or above) p̂ with n·KL(p̂ ‖ q) ≤ level.
fn bound(p: f64, n: f64, level: f64, upper: bool) -> f64 {
    let (mut lo, mut hi) = if upper { (p, 1.0) } else { (0.0, p) };
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        let inside = n * kl(p, mid) <= level;
        if inside == upper {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    if upper {
        hi
    } else {
        lo
    }
}

#[derive(Clone, Copy, Default)]
struct Tally {
    n: u64,
    k: u64,
}

impl Tally {
    fn mean(self) -> f64 {
        self.k as f64 / self.n as f64
    }
}

/// How the search of one line ended.
enum LineEnd {
    Accused(u32),
    DoesNotDecrypt,
    /// Its drops lie only between indices it cannot separate.
    Exhausted,
    Budget,
}

struct Search<'a, E> {
    users: u32,
    lines: Vec<Line>,
    /// Σ of the lines' lengths: the number of (line, index) bounds.
    points: f64,
    options: &'a TraceOptions,
    tallies: BTreeMap<(usize, u32), Tally>,
    queries: u64,
    probe: &'a mut dyn FnMut(usize, u32) -> Result<bool, E>,
    progress: &'a mut dyn FnMut(&TraceProgress),
}

impl<E> Search<'_, E> {
    /// ln(2/δ_n) with δ_n = δ/(P·n(n+1)), P the number of (line, index)
    /// pairs: every bound ever computed holds at once except with
    /// probability Σ_{pairs} Σ_n δ/(P·n(n+1)) ≤ δ.
    fn level(&self, n: u64) -> f64 {
        let n = n as f64;
        (2.0 * self.points * n * (n + 1.0) / self.options.error).ln()
    }
    /// The tally at `key` (empty where never probed: a budget may end
    /// before a first query).
    fn tally(&self, key: (usize, u32)) -> Tally {
        self.tallies.get(&key).copied().unwrap_or_default()
    }
    fn interval(&self, key: (usize, u32)) -> (f64, f64) {
        let t = self.tally(key);
        if t.n == 0 {
            return (0.0, 1.0);
        }
        let level = self.level(t.n);
        let p = t.mean();
        (
            bound(p, t.n as f64, level, false),
            bound(p, t.n as f64, level, true),
        )
    }
    /// Queries the decoder `count` more times at (line, u), within the
    /// budget.
    fn sample(&mut self, line: usize, u: u32, count: u64, around: (u32, u32)) -> Result<(), E> {
        let count = count.min(self.options.max_queries.saturating_sub(self.queries));
        for _ in 0..count {
            let ok = (self.probe)(line, u)?;
            let t = self.tallies.entry((line, u)).or_default();
            t.n += 1;
            t.k += ok as u64;
            self.queries += 1;
        }
        (self.progress)(&TraceProgress {
            queries: self.queries,
            max_queries: self.options.max_queries,
            line,
            interval: around,
        });
        Ok(())
    }
    /// The probed indices of `line`, in order.
    fn probed(&self, line: usize) -> Vec<(u32, Tally)> {
        self.tallies
            .range((line, 0)..=(line, u32::MAX))
            .map(|(&(_, u), &t)| (u, t))
            .collect()
    }
    /// Searches one line until an accusation, its end, or `budget` queries.
    fn run_line(&mut self, line: usize, budget: u64) -> Result<LineEnd, E> {
        let stop_at = (self.queries + budget).min(self.options.max_queries);
        let (first, last) = (1, self.users + 1);
        let n0 = self.options.first_queries.max(1);
        let l = self.lines[line].clone();
        self.sample(line, first, n0, (first, last))?;
        self.sample(line, last, n0, (first, last))?;
        loop {
            let probed = self.probed(line);
            let pairs: Vec<((u32, Tally), (u32, Tally))> = probed
                .iter()
                .copied()
                .zip(probed.iter().copied().skip(1))
                .collect();
            // An established drop between adjacent indices accuses.
            if let Some(&((a, _), _)) = pairs.iter().find(|((a, _), (b, _))| {
                *b == a + 1 && self.interval((line, *a)).0 > self.interval((line, *b)).1
            }) {
                return Ok(LineEnd::Accused(a));
            }
            if self.interval((line, first)).1 < self.options.min_success {
                return Ok(LineEnd::DoesNotDecrypt);
            }
            if self.queries >= stop_at {
                return Ok(LineEnd::Budget);
            }
            // The interval with the largest estimated drop among those that
            // can still be refined (an index between) or accuse (adjacent).
            let best = pairs
                .iter()
                .filter(|((a, _), (b, _))| *b == a + 1 || l.between(*a, *b).is_some())
                .map(|&((a, ta), (b, tb))| (a, b, ta.mean() - tb.mean()))
                .fold(None::<(u32, u32, f64)>, |best, c| match best {
                    Some(bst) if bst.2 >= c.2 => Some(bst),
                    _ => Some(c),
                });
            match best {
                Some((a, b, drop)) if drop > 0.0 => match l.between(a, b) {
                    Some(mid) => self.sample(line, mid, n0, (a, b))?,
                    None => {
                        // Adjacent: more queries at both ends, doubling the
                        // smaller tally.
                        let (ta, tb) = (self.tally((line, a)), self.tally((line, b)));
                        let more = ta.n.min(tb.n).max(n0);
                        self.sample(line, a, more, (a, b))?;
                        self.sample(line, b, more, (a, b))?;
                    }
                },
                // No visible drop where one could be found: on a line of
                // every index the decoder may not decrypt at all (or barely),
                // so its ends are sampled further; on a line of a few
                // indices the drops are where the line cannot separate them.
                _ if l == Line::All || pairs.len() == 1 => {
                    let more = self.tally((line, first)).n.max(n0);
                    self.sample(line, first, more, (first, last))?;
                    self.sample(line, last, more, (first, last))?;
                }
                _ => return Ok(LineEnd::Exhausted),
            }
        }
    }
    fn run(&mut self) -> Result<TraceVerdict, E> {
        let lines = self.lines.len();
        for line in 0..lines {
            // An equal share of what is left for each line still to search.
            let left = self.options.max_queries.saturating_sub(self.queries);
            let budget = left / (lines - line) as u64;
            match self.run_line(line, budget.max(1))? {
                LineEnd::Accused(u) => return Ok(TraceVerdict::Accused(u)),
                LineEnd::DoesNotDecrypt => return Ok(TraceVerdict::DoesNotDecrypt),
                LineEnd::Exhausted | LineEnd::Budget => {}
            }
            if self.queries >= self.options.max_queries {
                return Ok(TraceVerdict::BudgetExhausted);
            }
        }
        Ok(TraceVerdict::NoAccusation)
    }
}

/// Traces a decoder given as `probe(line, u)`: one query with a fresh
/// encryption at index u of `lines[line]`, true when the decoder decrypted
/// it correctly.
pub fn trace_indices<E>(
    users: u32,
    lines: Vec<Line>,
    options: &TraceOptions,
    probe: &mut dyn FnMut(usize, u32) -> Result<bool, E>,
    progress: &mut dyn FnMut(&TraceProgress),
) -> Result<TraceReport, E> {
    let points = lines.iter().map(|l| l.len(users)).sum::<u64>() as f64;
    let mut search = Search {
        users,
        lines,
        points,
        options,
        tallies: BTreeMap::new(),
        queries: 0,
        probe,
        progress,
    };
    let verdict = search.run()?;
    let evidence = search
        .tallies
        .iter()
        .map(|(&(line, index), t)| {
            let (low, high) = search.interval((line, index));
            IndexEstimate {
                line,
                index,
                queries: t.n,
                successes: t.k,
                low,
                high,
            }
        })
        .collect();
    Ok(TraceReport {
        verdict,
        evidence,
        queries: search.queries,
        users,
        error: options.error,
    })
}

/// Length of the random plaintext of a tracing query.
const PROBE_BYTES: usize = 32;

/// Traces a pirate decoder of `K` for `target` (every user when `None`):
/// each query is a complete abbe file (a fresh tracing header, an
/// authenticated payload of 32 random bytes) given to `decoder`, whose
/// output counts as a success when it equals that payload. An `Err` from
/// the decoder (it could not be run) ends the trace. `mk` is required by
/// private tracing ([`Traceable::PRIVATE`]).
pub fn trace<K: Traceable>(
    pk: &K::PublicKey,
    mk: Option<&MasterKeyOf<K>>,
    target: Option<&K::CiphertextSide>,
    options: &TraceOptions,
    decoder: &mut dyn FnMut(&[u8]) -> std::io::Result<Vec<u8>>,
    progress: &mut dyn FnMut(&TraceProgress),
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<TraceReport, crate::facade::Error> {
    use crate::wire::Encoded;
    if K::PRIVATE && mk.is_none() {
        return Err(crate::facade::Error::Unsupported(format!(
            "{} traces privately: tracing needs the master key (--master)",
            K::SCHEME.name()
        )));
    }
    let everyone;
    let target = match target {
        Some(t) => t,
        None => {
            everyone = K::everyone(pk);
            &everyone
        }
    };
    let mut probe = |line: usize, u: u32| -> Result<bool, crate::facade::Error> {
        let (session, header) = K::encapsulate_at(pk, mk, target, line, u, &mut *rng)?;
        let mut message = [0u8; PROBE_BYTES];
        rng.fill_bytes(&mut message);
        let mut file = Vec::new();
        envelope::seal_with(
            &header.to_bytes(),
            &session,
            &mut *rng,
            &message[..],
            &mut file,
            &envelope::SealOptions::default(),
        )?;
        let out = decoder(&file).map_err(|e| {
            crate::facade::Error::Invalid(format!("the decoder could not be run: {e}"))
        })?;
        Ok(out == message)
    };
    trace_indices(
        K::users(pk),
        K::lines(pk, mk),
        options,
        &mut probe,
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// A decoder holding `keys` (user indices) that decrypts index u with
    /// one of its keys chosen at random per query (so p_u = q·|{k ≥ u}|/|keys|),
    /// or with any of them (`any`: p_u = q when some k ≥ u).
    fn synthetic(
        keys: &[u32],
        q: f64,
        any: bool,
        seed: u64,
    ) -> impl FnMut(usize, u32) -> Result<bool, ()> + '_ {
        let mut r = ChaCha20Rng::seed_from_u64(seed);
        move |_, u| {
            let coin = (r.next_u64() as f64) / (u64::MAX as f64);
            let able = if any {
                keys.iter().any(|&k| k >= u)
            } else {
                keys[(r.next_u32() as usize) % keys.len()] >= u
            };
            Ok(able && coin < q)
        }
    }

    fn run(n: u32, keys: &[u32], q: f64, any: bool, seed: u64) -> TraceReport {
        let mut probe = synthetic(keys, q, any, seed);
        trace_indices(
            n,
            vec![Line::All],
            &TraceOptions::default(),
            &mut probe,
            &mut |_| {},
        )
        .unwrap()
    }

    #[test]
    fn bounds_contain_the_mean_and_shrink() {
        let level = 10.0;
        assert!(bound(0.5, 100.0, level, false) < 0.5 && bound(0.5, 100.0, level, true) > 0.5);
        assert!(bound(0.0, 64.0, level, true) < 0.2);
        assert!(bound(1.0, 64.0, level, false) > 0.8);
        assert!(bound(0.5, 1e4, level, true) - 0.5 < bound(0.5, 100.0, level, true) - 0.5);
    }

    /// 1, 2 and 5 colluders, random-key and any-key decoders, perfect and
    /// half-reliable: a colluder is accused every time, never an innocent.
    #[test]
    fn accuses_a_colluder_and_never_an_innocent() {
        let mut r = ChaCha20Rng::seed_from_u64(7);
        for (n, k) in [(100u32, 1usize), (100, 2), (1000, 5)] {
            for (q, any) in [(1.0, false), (1.0, true), (0.5, false), (0.5, true)] {
                for run_no in 0..20 {
                    let mut keys: Vec<u32> = (0..k).map(|_| 1 + r.next_u32() % n).collect();
                    keys.sort_unstable();
                    let report = run(n, &keys, q, any, r.next_u64());
                    match report.verdict {
                        TraceVerdict::Accused(u) => {
                            assert!(
                                keys.contains(&u),
                                "innocent {u} accused ({keys:?}, q {q}, run {run_no})"
                            )
                        }
                        v => panic!("{v:?} for {keys:?}, q {q}, any {any}"),
                    }
                }
            }
        }
    }

    #[test]
    fn a_decoder_that_decrypts_nothing_is_said_so() {
        let report = run(50, &[3], 0.0, true, 1);
        assert_eq!(report.verdict, TraceVerdict::DoesNotDecrypt);
        let mut probe = synthetic(&[30], 1.0, true, 2);
        let tight = TraceOptions {
            max_queries: 40,
            ..TraceOptions::default()
        };
        let report = trace_indices(50, vec![Line::All], &tight, &mut probe, &mut |_| {}).unwrap();
        assert_eq!(report.verdict, TraceVerdict::BudgetExhausted);
        assert!(report.queries <= 40);
        // A budget of nothing ends before a first query (and check()
        // refuses it before a trace starts).
        let none = TraceOptions {
            max_queries: 0,
            ..TraceOptions::default()
        };
        assert!(none.check().is_err());
        let report = trace_indices(50, vec![Line::All], &none, &mut probe, &mut |_| {}).unwrap();
        assert_eq!(report.verdict, TraceVerdict::BudgetExhausted);
        assert_eq!(report.queries, 0);
        for bad in [0.0, 1.0, f64::NAN] {
            let o = TraceOptions {
                error: bad,
                ..TraceOptions::default()
            };
            assert!(o.check().is_err(), "error {bad}");
            let o = TraceOptions {
                min_success: bad,
                ..TraceOptions::default()
            };
            assert!(o.check().is_err(), "min_success {bad}");
        }
        assert!(TraceOptions::default().check().is_ok());
    }

    /// A decoder that succeeds everywhere with the same probability (it
    /// guesses, holding no key) is never traced to anyone.
    #[test]
    fn a_flat_decoder_accuses_nobody() {
        let mut r = ChaCha20Rng::seed_from_u64(9);
        let options = TraceOptions {
            max_queries: 5_000,
            ..TraceOptions::default()
        };
        for _ in 0..5 {
            let mut rr = ChaCha20Rng::seed_from_u64(r.next_u64());
            let mut probe = |_: usize, _: u32| Ok::<_, ()>(rr.next_u32() % 2 == 0);
            let report =
                trace_indices(64, vec![Line::All], &options, &mut probe, &mut |_| {}).unwrap();
            assert_eq!(report.verdict, TraceVerdict::BudgetExhausted);
        }
    }

    /// Lines of a few indices (a risky scheme's copies, each with one hidden
    /// position i* and the indices i*, i*+1): the copy whose i* is the
    /// decoder's key accuses it; copies whose i* is another user end
    /// without accusing anyone.
    #[test]
    fn lines_of_few_indices_accuse_only_at_their_hidden_positions() {
        let mut r = ChaCha20Rng::seed_from_u64(3);
        let n = 30u32;
        for run_no in 0..20 {
            let key = 1 + r.next_u32() % n;
            let stars: Vec<u32> = (0..4).map(|_| 1 + r.next_u32() % n).collect();
            let lines = stars
                .iter()
                .map(|&s| {
                    let mut p = vec![1, s, s + 1, n + 1];
                    p.dedup();
                    Line::Points(p)
                })
                .collect();
            let keys = [key];
            let mut probe = synthetic(&keys, 1.0, true, r.next_u64());
            let report =
                trace_indices(n, lines, &TraceOptions::default(), &mut probe, &mut |_| {}).unwrap();
            if stars.contains(&key) {
                assert_eq!(report.verdict, TraceVerdict::Accused(key), "run {run_no}");
            } else {
                assert_eq!(report.verdict, TraceVerdict::NoAccusation, "run {run_no}");
            }
        }
    }

    /// A setup of `scheme` on BN254 through the facade: (public key, master
    /// key).
    fn real_setup(
        scheme: crate::wire::SchemeId,
        params: crate::kem::SetupParams,
        r: &mut ChaCha20Rng,
    ) -> (&'static dyn crate::facade::Scheme, Vec<u8>, Vec<u8>) {
        let s = crate::facade::scheme(scheme, crate::curve::CurveId::Bn254).unwrap();
        let (pk, mk) = s.setup(&params, r).unwrap();
        (s, pk, mk.to_vec())
    }

    /// Traces a decoder made of real keys of `coalition` (`style`: "one"
    /// key, a "random" key per query, "every" key in turn, or "half": one
    /// key, answering half the time) with `facade::trace`.
    fn trace_real(
        (s, pk, mk): (&'static dyn crate::facade::Scheme, &[u8], &[u8]),
        coalition: &[u32],
        style: &str,
        public_only: bool,
        r: &mut ChaCha20Rng,
    ) -> TraceReport {
        use crate::facade;
        use std::sync::Arc;
        let public = Arc::new(pk.to_vec()) as super::super::Source;
        let keys: Vec<_> = coalition
            .iter()
            .map(|u| {
                let k = s.keygen(mk, &u.to_string(), Some(pk), r).unwrap();
                s.user_key_with(&k, Some(public.clone())).unwrap()
            })
            .collect();
        let mut dr = ChaCha20Rng::seed_from_u64(r.next_u64());
        let mut decoder = |ct: &[u8]| -> std::io::Result<Vec<u8>> {
            let open = |k: &dyn facade::UserKey| {
                let mut out = Vec::new();
                facade::decrypt_with(k, ct, &mut out, None)
                    .ok()
                    .map(|_| out)
            };
            let pick = (dr.next_u32() as usize) % keys.len();
            Ok(match style {
                "every" => keys.iter().find_map(|k| open(&**k)),
                "half" if dr.next_u32() % 2 == 0 => None,
                _ => open(&*keys[pick]),
            }
            .unwrap_or_default())
        };
        facade::trace(
            public,
            (!public_only).then_some(mk),
            None,
            &mut facade::Tracing {
                // δ = 10⁻³ (the default is 10⁻⁶): half the queries; the
                // synthetic tests check the error bound over many runs.
                options: &TraceOptions {
                    error: 1e-3,
                    ..TraceOptions::default()
                },
                decoder: &mut decoder,
                progress: &mut |_| {},
                rng: r,
            },
        )
        .unwrap()
    }

    fn users(n: u32) -> crate::kem::SetupParams {
        crate::kem::SetupParams {
            users: Some(n),
            ..Default::default()
        }
    }

    /// The GKSW schemes through the facade: pirate decoders made of real
    /// user keys (1, 2 and 5 colluders; one key at random per query, every
    /// key in turn, and a decoder that answers only half the time) are
    /// traced to one of their keys — PLBE with the master key, AugBE with
    /// the public key alone.
    #[test]
    fn real_decoders_are_traced_to_a_colluder() {
        use crate::wire::SchemeId;
        let mut r = ChaCha20Rng::seed_from_u64(11);
        for (scheme, public_only) in [(SchemeId::Gksw10Plbe, false), (SchemeId::Gksw10AugBe, true)]
        {
            let (s, pk, mk) = real_setup(scheme, users(16), &mut r);
            // AugBE shares the tracer and the grid: one style suffices.
            let cases: &[(&[u32], &str)] = match scheme {
                SchemeId::Gksw10Plbe => &[
                    (&[11], "one"),
                    (&[5, 14], "random"),
                    (&[2, 6, 9, 13, 16], "random"),
                    (&[2, 6, 9, 13, 16], "every"),
                    (&[7, 12], "half"),
                ],
                _ => &[(&[7, 12], "half")],
            };
            for &(coalition, style) in cases {
                let report = trace_real((s, &pk, &mk), coalition, style, public_only, &mut r);
                match report.verdict {
                    TraceVerdict::Accused(u) => {
                        assert!(coalition.contains(&u), "{u} not in {coalition:?}")
                    }
                    v => panic!("{v:?} for {coalition:?} ({style}, {scheme:?})"),
                }
            }
        }
    }

    /// A master key carrying the setup's id but other secrets (another
    /// setup's, relabelled) is refused before any query: its bases would
    /// make the evidence meaningless.
    #[test]
    fn a_relabelled_master_key_does_not_trace() {
        use crate::wire::{SchemeId, PREAMBLE_LEN};
        use std::sync::Arc;
        let mut r = ChaCha20Rng::seed_from_u64(13);
        for scheme in [
            SchemeId::Gksw10Plbe,
            SchemeId::Gksw10AugBe,
            SchemeId::Zha20Risky,
        ] {
            let (_, pk, mk) = real_setup(scheme, users(8), &mut r);
            let (_, _, other) = real_setup(scheme, users(8), &mut r);
            let mut forged = other.clone();
            forged[PREAMBLE_LEN..PREAMBLE_LEN + 16]
                .copy_from_slice(&mk[PREAMBLE_LEN..PREAMBLE_LEN + 16]);
            let mut queries = 0;
            let result = crate::facade::trace(
                Arc::new(pk) as super::super::Source,
                Some(&forged),
                None,
                &mut crate::facade::Tracing {
                    options: &TraceOptions::default(),
                    decoder: &mut |_: &[u8]| {
                        queries += 1;
                        Ok(Vec::new())
                    },
                    progress: &mut |_| {},
                    rng: &mut r,
                },
            );
            let err = result.expect_err("refused");
            assert!(
                err.to_string().contains("not the public key"),
                "{scheme:?}: {err}"
            );
            assert_eq!(queries, 0);
        }
    }

    /// Zhandry's schemes trace only where a hidden position falls on the
    /// decoder's key: the risky one accuses user i* when the decoder holds
    /// i*'s key and nobody otherwise; the compiled one accuses the key's
    /// user exactly when one of its copies hides that position there.
    #[test]
    fn zhandry_decoders_are_traced_where_a_hidden_position_falls() {
        use crate::bcast::{zha20, zha20_risky};
        use crate::curve::Bn254;
        use crate::wire::SchemeId;
        let mut r = ChaCha20Rng::seed_from_u64(12);
        let (s, pk, mk) = real_setup(SchemeId::Zha20Risky, users(12), &mut r);
        let star = zha20_risky::MasterKey::<Bn254>::from_bytes(&mk)
            .unwrap()
            .hidden_position();
        let other = if star == 12 { 1 } else { star + 1 };
        for (key, want) in [
            (star, TraceVerdict::Accused(star)),
            (other, TraceVerdict::NoAccusation),
        ] {
            let report = trace_real((s, &pk, &mk), &[key], "one", false, &mut r);
            assert_eq!(report.verdict, want, "key {key}, i* {star}");
        }
        let params = crate::kem::SetupParams {
            users: Some(16),
            expansion: Some(0.5),
            ..Default::default()
        };
        let (s, pk, mk) = real_setup(SchemeId::Zha20, params, &mut r);
        let master = zha20::MasterKey::<Bn254>::from_bytes(&mk).unwrap();
        let public = zha20::PublicKey::<Bn254>::from_bytes(&pk).unwrap();
        let lines = <zha20::Zha20<Bn254> as Traceable>::lines(&public, Some(&master));
        let (mut hit, mut miss) = (false, false);
        for u in [1u32, 6, 11, 16] {
            // Traceable where some copy can separate u from u + 1.
            let separable = lines
                .iter()
                .any(|l| matches!(l, Line::Points(p) if p.contains(&u) && p.contains(&(u + 1))));
            let report = trace_real((s, &pk, &mk), &[u], "one", false, &mut r);
            let want = if separable {
                TraceVerdict::Accused(u)
            } else {
                TraceVerdict::NoAccusation
            };
            assert_eq!(report.verdict, want, "user {u}");
            hit |= separable;
            miss |= !separable;
        }
        assert!(hit || miss);
    }

    /// Tracing needs the master key where tracing is private, and a public
    /// key of a traceable scheme.
    #[test]
    fn private_tracing_needs_the_master_key() {
        use crate::facade;
        use crate::wire::SchemeId;
        use std::sync::Arc;
        let mut r = ChaCha20Rng::seed_from_u64(13);
        let (_, pk, mk) = real_setup(SchemeId::Gksw10Plbe, users(9), &mut r);
        let public = Arc::new(pk.clone()) as super::super::Source;
        let mut tracing = facade::Tracing {
            options: &TraceOptions::default(),
            decoder: &mut |_| Ok(vec![]),
            progress: &mut |_| {},
            rng: &mut r,
        };
        let err = facade::trace(public.clone(), Some(&pk), None, &mut tracing);
        assert!(err.unwrap_err().to_string().contains("master key"));
        let err = facade::trace(public.clone(), None, None, &mut tracing);
        assert!(err.unwrap_err().to_string().contains("master key"));
        let err = facade::trace(Arc::new(mk.clone()), Some(&mk), None, &mut tracing);
        assert!(err.unwrap_err().to_string().contains("public key"));
        let (_, wpk, _) = real_setup(
            SchemeId::Waters09,
            users(9),
            &mut ChaCha20Rng::seed_from_u64(1),
        );
        let err = facade::trace(Arc::new(wpk), None, None, &mut tracing);
        assert!(err.unwrap_err().to_string().contains("no traitor tracing"));
    }
}
