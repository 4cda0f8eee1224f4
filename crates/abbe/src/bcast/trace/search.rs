//! The search behind [`trace`](super): which indices to probe next, and when
//! a drop between two adjacent indices is established.
//!
//! **Steering.** The probed positions of a line ([`Line`]) cut it into
//! intervals; the interval with the largest estimated drop is split at a
//! position drawn at random near its middle, until it is two adjacent
//! positions (a, a+1) that the line can accuse on. Steering only decides
//! where to look: a decoder that misleads it can waste the budget, never
//! cause an accusation.
//!
//! **Accusation: a permutation test on fresh, shuffled rounds.** An
//! accusable step a → a+1 (which differs only for one user u) is tested in
//! rounds of m queries at a and m at a+1, each round fresh (no earlier query
//! counts), in batches of at most [`BATCH`] queries that hold as many of
//! each, shuffled with the tracer's secret coins. Every header of a batch is
//! made before the decoder sees the first, so neither the order of the
//! queries nor the tracer's timing says which is which. If the decoder lacks
//! u's key, the scheme's index hiding makes a query at a look like one at
//! a+1 to it, so whatever it does — keep state, count queries, read the
//! clock, simulate the tracer — its answers are independent of the coins
//! that placed a and a+1 in the batch. Given its answers, the number of
//! successes that fell on a is then a sum of independent hypergeometric
//! variables (one per batch), whose upper tail we compute exactly. u is
//! accused only when that tail is at most δ/(P·j(j+1)) for the step's j-th
//! round, P the number of accusable steps of all lines: over every round of
//! every step, a false accusation has probability at most δ, for stateless
//! and stateful decoders alike (up to the decoder's advantage against the
//! scheme's index hiding).
//!
//! What the search cannot promise against a stateful decoder is an
//! accusation at all: a decoder holding keys can tell some probes from real
//! traffic (one of its keys fails where another succeeds) and stop
//! decrypting (Kiayias–Yung's self-protecting pirates). The trace then ends
//! without accusing anyone.

use super::{
    IndexEstimate, Line, PairEvidence, TraceOptions, TraceProgress, TraceReport, TraceVerdict,
};
use rand_core::RngCore;
use std::collections::BTreeMap;

/// One query: the hybrid encryption at position `index` of line `line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Query {
    pub line: usize,
    pub index: u32,
}

/// The decoder as the search sees it: a batch of queries in, whether each
/// was decrypted out.
pub type Probe<'a, E> = dyn FnMut(&[Query]) -> Result<Vec<bool>, E> + 'a;

/// Most queries in one batch given to the decoder: the headers of a batch
/// are all made before its first query is sent.
pub const BATCH: usize = 64;

/// Most queries at each index of one accusation round: the round's exact
/// tail costs O(m²) (about a second at this size), and later rounds repeat
/// at this size instead of doubling.
const MAX_ROUND: u64 = 1 << 14;

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

/// Binomial coefficients C(n, k) for n ≤ 2·(BATCH/2), as f64 (C(64, 32) ≈
/// 1.8·10¹⁸ carries a relative rounding error near 10⁻¹⁶).
fn binomials() -> Vec<Vec<f64>> {
    let mut rows: Vec<Vec<f64>> = vec![vec![1.0]];
    for n in 1..=BATCH {
        let prev = &rows[n - 1];
        let row = (0..=n)
            .map(|k| {
                let left = if k > 0 { prev[k - 1] } else { 0.0 };
                let right = prev.get(k).copied().unwrap_or(0.0);
                left + right
            })
            .collect();
        rows.push(row);
    }
    rows
}

/// One shuffled batch of an accusation round: `half` queries at each
/// index, `successes` decrypted in all, `at_low` of them at the lower index.
#[derive(Clone, Copy, Debug)]
struct BatchCount {
    half: usize,
    successes: usize,
    at_low: usize,
}

/// P(X ≥ observed) for X = Σ X_b, X_b ~ Hypergeometric(2·half_b, successes_b,
/// half_b) independent: the number of a batch's successes that land on the
/// lower index when its positions are a uniformly random half.
fn upper_tail(batches: &[BatchCount], observed: usize, c: &[Vec<f64>]) -> f64 {
    let mut dist = vec![1.0f64];
    for b in batches {
        let (h, k) = (b.half, b.successes);
        let lo = k.saturating_sub(h);
        let hi = k.min(h);
        let total = c[2 * h][h];
        let pmf: Vec<f64> = (lo..=hi)
            .map(|j| c[k][j] * c[2 * h - k][h - j] / total)
            .collect();
        let mut next = vec![0.0f64; dist.len() + hi];
        for (i, &p) in dist.iter().enumerate() {
            if p == 0.0 {
                continue;
            }
            for (off, &q) in pmf.iter().enumerate() {
                next[i + lo + off] += p * q;
            }
        }
        dist = next;
    }
    dist.iter().skip(observed).sum::<f64>().min(1.0)
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
    /// The user of the accusing round.
    Accused(PairEvidence),
    DoesNotDecrypt,
    /// Its drops lie only between indices it cannot separate.
    Exhausted,
    Budget,
}

struct Search<'a, E> {
    users: u32,
    lines: Vec<Line>,
    /// Σ of the lines' lengths: the number of (line, position) bounds.
    points: f64,
    /// The number of steps the lines can accuse on: P.
    pairs_possible: f64,
    options: &'a TraceOptions,
    /// Every query's outcome by (line, index): steering and evidence.
    tallies: BTreeMap<(usize, u32), Tally>,
    /// The accusation rounds run on each (line, lower index).
    rounds: BTreeMap<(usize, u32), PairEvidence>,
    queries: u64,
    coins: &'a mut dyn RngCore,
    binomials: Vec<Vec<f64>>,
    probe: &'a mut Probe<'a, E>,
    progress: &'a mut dyn FnMut(&TraceProgress),
}

impl<E> Search<'_, E> {
    /// ln(2/δ_n) with δ_n = δ/(P·n(n+1)), P the number of (line, index)
    /// pairs: every steering bound ever computed holds at once except with
    /// probability ≤ δ. Used to say that a decoder does not decrypt.
    fn level(&self, n: u64) -> f64 {
        let n = n as f64;
        (2.0 * self.points * n * (n + 1.0) / self.options.error).ln()
    }
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
    /// A uniform integer in [0, n), n ≥ 1, from the secret coins.
    fn below(&mut self, n: usize) -> usize {
        super::uniform(n as u64, &mut *self.coins) as usize
    }
    fn shuffle(&mut self, batch: &mut [Query]) {
        for i in (1..batch.len()).rev() {
            let j = self.below(i + 1);
            batch.swap(i, j);
        }
    }
    fn budget_left(&self) -> u64 {
        self.options.max_queries.saturating_sub(self.queries)
    }
    /// Gives one batch to the decoder and tallies its answers (an answer
    /// missing from the probe's reply counts as not decrypted).
    fn send(&mut self, batch: &[Query], around: (u32, u32)) -> Result<Vec<bool>, E> {
        let mut answers = (self.probe)(batch)?;
        answers.resize(batch.len(), false);
        for (q, &ok) in batch.iter().zip(&answers) {
            let t = self.tallies.entry((q.line, q.index)).or_default();
            t.n += 1;
            t.k += u64::from(ok);
        }
        self.queries += batch.len() as u64;
        (self.progress)(&TraceProgress {
            queries: self.queries,
            max_queries: self.options.max_queries,
            line: batch.first().map_or(0, |q| q.line),
            interval: around,
        });
        Ok(answers)
    }
    /// `count` queries at each of `indices` (within the budget), in shuffled
    /// batches that hold as many of each; how many were sent at each (0
    /// when the budget cannot take one at every index).
    fn sample(
        &mut self,
        line: usize,
        indices: &[u32],
        count: u64,
        around: (u32, u32),
    ) -> Result<u64, E> {
        let per_batch = (BATCH / indices.len().max(1)).max(1) as u64;
        let count = count.min(self.budget_left() / indices.len().max(1) as u64);
        let mut left = count;
        while left > 0 {
            let each = left.min(per_batch);
            let mut batch: Vec<Query> = indices
                .iter()
                .flat_map(|&index| (0..each).map(move |_| Query { line, index }))
                .collect();
            self.shuffle(&mut batch);
            self.send(&batch, around)?;
            left -= each;
        }
        Ok(count)
    }
    /// One fresh accusation round of the step a → a+1 of `line`, which
    /// accuses `user`, with `m` queries at each; its evidence when it
    /// establishes the drop.
    fn accusation_round(
        &mut self,
        line: usize,
        a: u32,
        user: u32,
        m: u64,
    ) -> Result<Option<PairEvidence>, E> {
        let half = (BATCH / 2) as u64;
        let mut counts = Vec::new();
        let mut left = m;
        while left > 0 {
            let h = left.min(half);
            let mut batch: Vec<Query> = (0..h)
                .map(|_| Query { line, index: a })
                .chain((0..h).map(|_| Query { line, index: a + 1 }))
                .collect();
            self.shuffle(&mut batch);
            let answers = self.send(&batch, (a, a + 1))?;
            let mut count = BatchCount {
                half: h as usize,
                successes: 0,
                at_low: 0,
            };
            for (q, ok) in batch.iter().zip(answers) {
                count.successes += usize::from(ok);
                count.at_low += usize::from(ok && q.index == a);
            }
            counts.push(count);
            left -= h;
        }
        let low: usize = counts.iter().map(|c| c.at_low).sum();
        let all: usize = counts.iter().map(|c| c.successes).sum();
        let p_value = upper_tail(&counts, low, &self.binomials);
        let evidence = self.rounds.entry((line, a)).or_insert(PairEvidence {
            line,
            index: a,
            user,
            rounds: 0,
            queries_each: 0,
            decrypted_low: 0,
            decrypted_high: 0,
            p_value: 1.0,
            threshold: 0.0,
        });
        evidence.rounds += 1;
        let j = f64::from(evidence.rounds);
        let threshold = self.options.error / (self.pairs_possible * j * (j + 1.0));
        *evidence = PairEvidence {
            queries_each: m,
            decrypted_low: low as u64,
            decrypted_high: (all - low) as u64,
            p_value,
            threshold,
            ..*evidence
        };
        Ok((p_value <= threshold).then_some(*evidence))
    }
    /// The size of the next round of (line, a): the first is
    /// `first_queries`, each next one twice the last, up to [`MAX_ROUND`].
    fn next_round(&self, line: usize, a: u32) -> u64 {
        let n0 = self.options.first_queries.max(1);
        match self.rounds.get(&(line, a)) {
            Some(e) => (e.queries_each * 2).min(MAX_ROUND),
            None => n0.min(MAX_ROUND),
        }
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
        let l = self.lines[line].clone();
        let (first, last) = (1, l.last(self.users));
        let n0 = self.options.first_queries.max(1);
        if self.sample(line, &[first, last], n0, (first, last))? == 0 {
            return Ok(LineEnd::Budget);
        }
        loop {
            if self.interval((line, first)).1 < self.options.min_success {
                return Ok(LineEnd::DoesNotDecrypt);
            }
            if self.queries >= stop_at || self.budget_left() == 0 {
                return Ok(LineEnd::Budget);
            }
            let probed = self.probed(line);
            let users = self.users;
            // The interval with the largest estimated drop among those that
            // can still be refined (a position between) or tested (an
            // accusable step).
            let best = probed
                .iter()
                .zip(probed.iter().skip(1))
                .filter(|((a, _), (b, _))| *b > a + 1 || l.accused_at(*a, users).is_some())
                .map(|(&(a, ta), &(b, tb))| (a, b, ta.mean() - tb.mean()))
                .fold(None::<(u32, u32, f64)>, |best, c| match best {
                    Some(bst) if bst.2 >= c.2 => Some(bst),
                    _ => Some(c),
                });
            let sent = match best {
                Some((a, b, drop)) if drop > 0.0 => match l.accused_at(a, users) {
                    Some(user) if b == a + 1 => {
                        let m = self
                            .next_round(line, a)
                            .min(stop_at.saturating_sub(self.queries) / 2);
                        if m == 0 {
                            return Ok(LineEnd::Budget);
                        }
                        if let Some(evidence) = self.accusation_round(line, a, user, m)? {
                            return Ok(LineEnd::Accused(evidence));
                        }
                        m
                    }
                    _ => {
                        let c = Line::pick_between(a, b, &mut *self.coins);
                        self.sample(line, &[c], n0, (a, b))?
                    }
                },
                // No visible drop where one could be found: on a PLBE's line
                // the decoder may not decrypt at all (or barely), so its
                // ends are sampled further; on a line of hybrids the drops
                // are at steps that accuse nobody.
                _ if l == Line::All || probed.len() == 2 => {
                    let more = self.tally((line, first)).n.max(n0);
                    self.sample(line, &[first, last], more, (first, last))?
                }
                _ => return Ok(LineEnd::Exhausted),
            };
            // A budget too small for one more query at each index.
            if sent == 0 {
                return Ok(LineEnd::Budget);
            }
        }
    }
    fn run(&mut self) -> Result<(TraceVerdict, Option<PairEvidence>), E> {
        let lines = self.lines.len();
        let mut budget_ended = false;
        for line in 0..lines {
            // An equal share of what is left for each line still to search.
            let budget = self.budget_left() / (lines - line) as u64;
            match self.run_line(line, budget.max(1))? {
                LineEnd::Accused(e) => return Ok((TraceVerdict::Accused(e.user), Some(e))),
                LineEnd::DoesNotDecrypt => return Ok((TraceVerdict::DoesNotDecrypt, None)),
                LineEnd::Budget => budget_ended = true,
                LineEnd::Exhausted => {}
            }
            if self.budget_left() == 0 {
                return Ok((TraceVerdict::BudgetExhausted, None));
            }
        }
        Ok((
            if budget_ended {
                TraceVerdict::BudgetExhausted
            } else {
                TraceVerdict::NoAccusation
            },
            None,
        ))
    }
}

/// Traces a decoder given as `probe(batch)`: one fresh encryption per query
/// of the batch, given to the decoder in order; whether it decrypted each.
/// `coins` decide the order within batches and the positions probed: they
/// must be secret from the decoder (OS randomness).
pub fn trace_indices<E>(
    users: u32,
    lines: Vec<Line>,
    options: &TraceOptions,
    coins: &mut dyn RngCore,
    probe: &mut Probe<'_, E>,
    progress: &mut dyn FnMut(&TraceProgress),
) -> Result<TraceReport, E> {
    let points = lines.iter().map(|l| u64::from(l.last(users))).sum::<u64>() as f64;
    let pairs_possible = lines.iter().map(|l| l.accusable_steps(users)).sum::<u64>() as f64;
    let mut search = Search {
        users,
        lines,
        points,
        pairs_possible: pairs_possible.max(1.0),
        options,
        tallies: BTreeMap::new(),
        rounds: BTreeMap::new(),
        queries: 0,
        coins,
        binomials: binomials(),
        probe,
        progress,
    };
    let (verdict, accusing) = search.run()?;
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
        rounds: search.rounds.into_values().collect(),
        accusing,
        queries: search.queries,
        users,
        error: options.error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// A stateless decoder holding `keys` (user indices) that decrypts
    /// index u with one of its keys chosen at random per query (so
    /// p_u = q·|{k ≥ u}|/|keys|), or with any of them (`any`: p_u = q when
    /// some k ≥ u).
    fn synthetic(
        keys: &[u32],
        q: f64,
        any: bool,
        seed: u64,
    ) -> impl FnMut(&[Query]) -> Result<Vec<bool>, ()> + '_ {
        let mut r = ChaCha20Rng::seed_from_u64(seed);
        move |batch| {
            Ok(batch
                .iter()
                .map(|query| {
                    let coin = (r.next_u64() as f64) / (u64::MAX as f64);
                    let able = if any {
                        keys.iter().any(|&k| k >= query.index)
                    } else {
                        keys[(r.next_u32() as usize) % keys.len()] >= query.index
                    };
                    able && coin < q
                })
                .collect())
        }
    }

    fn trace_with(
        n: u32,
        lines: Vec<Line>,
        options: &TraceOptions,
        probe: &mut Probe<'_, ()>,
        seed: u64,
    ) -> TraceReport {
        let mut coins = ChaCha20Rng::seed_from_u64(seed);
        trace_indices(n, lines, options, &mut coins, probe, &mut |_| {}).unwrap()
    }

    fn run(n: u32, keys: &[u32], q: f64, any: bool, seed: u64) -> TraceReport {
        let mut probe = synthetic(keys, q, any, seed);
        trace_with(
            n,
            vec![Line::All],
            &TraceOptions::default(),
            &mut probe,
            seed ^ 1,
        )
    }

    #[test]
    fn bounds_contain_the_mean_and_shrink() {
        let level = 10.0;
        assert!(bound(0.5, 100.0, level, false) < 0.5 && bound(0.5, 100.0, level, true) > 0.5);
        assert!(bound(0.0, 64.0, level, true) < 0.2);
        assert!(bound(1.0, 64.0, level, false) > 0.8);
        assert!(bound(0.5, 1e4, level, true) - 0.5 < bound(0.5, 100.0, level, true) - 0.5);
    }

    /// The tail is the hypergeometric one: exact values, and a sum over
    /// batches equal to the convolution computed by hand.
    #[test]
    fn upper_tail_is_the_exact_hypergeometric_tail() {
        let c = binomials();
        assert!((c[64][32] / 1_832_624_140_942_590_534u64 as f64 - 1.0).abs() < 1e-15);
        // One batch of 2 + 2, 2 successes: both on the low index with
        // probability C(2,2)·C(2,0)/C(4,2) = 1/6.
        let one = |k, low| {
            upper_tail(
                &[BatchCount {
                    half: 2,
                    successes: k,
                    at_low: low,
                }],
                low,
                &c,
            )
        };
        assert!((one(2, 2) - 1.0 / 6.0).abs() < 1e-15);
        assert!((one(2, 1) - 5.0 / 6.0).abs() < 1e-15);
        assert!((one(2, 0) - 1.0).abs() < 1e-15);
        // 32 + 32, 32 successes all on the low index: 1/C(64, 32).
        let all = upper_tail(
            &[BatchCount {
                half: 32,
                successes: 32,
                at_low: 32,
            }],
            32,
            &c,
        );
        assert!((all * c[64][32] - 1.0).abs() < 1e-9);
        // Two batches (1+1 with one success, 1+1 with two): X = X₁ + 1,
        // X₁ ∈ {0, 1} evenly, so P(X ≥ 2) = 1/2 and P(X ≥ 3) = 0.
        let two = [
            BatchCount {
                half: 1,
                successes: 1,
                at_low: 0,
            },
            BatchCount {
                half: 1,
                successes: 2,
                at_low: 0,
            },
        ];
        assert!((upper_tail(&two, 2, &c) - 0.5).abs() < 1e-15);
        assert_eq!(upper_tail(&two, 3, &c), 0.0);
        // The tail of a large round sums to one and stays finite.
        let big: Vec<BatchCount> = (0..512)
            .map(|i| BatchCount {
                half: 32,
                successes: i % 65,
                at_low: 0,
            })
            .collect();
        assert!((upper_tail(&big, 0, &c) - 1.0).abs() < 1e-9);
    }

    /// Under the null hypothesis (a decoder whose answers do not depend on
    /// which of the two indices a query is at) the p-value of a round is
    /// valid: P(p ≤ α) ≤ α, checked empirically for several α.
    #[test]
    fn the_round_p_value_is_valid_under_the_null() {
        let c = binomials();
        let mut r = ChaCha20Rng::seed_from_u64(5);
        let runs = 4000;
        let mut below = [0u32; 3];
        let alphas = [0.01, 0.05, 0.2];
        for _ in 0..runs {
            // Answers chosen first (any pattern: here correlated runs),
            // then the positions of the low index drawn as the tracer does.
            let mut counts = Vec::new();
            let mut low = 0;
            for _ in 0..4 {
                let answers: Vec<bool> = (0..64)
                    .map(|i| (i / 8 + r.next_u32() % 3) % 2 == 0)
                    .collect();
                let mut idx: Vec<usize> = (0..64).collect();
                for i in (1..64).rev() {
                    idx.swap(i, (r.next_u32() as usize) % (i + 1));
                }
                let at_low = idx[..32].iter().filter(|&&i| answers[i]).count();
                counts.push(BatchCount {
                    half: 32,
                    successes: answers.iter().filter(|&&a| a).count(),
                    at_low,
                });
                low += at_low;
            }
            let p = upper_tail(&counts, low, &c);
            for (k, a) in alphas.iter().enumerate() {
                below[k] += u32::from(p <= *a);
            }
        }
        for (k, a) in alphas.iter().enumerate() {
            let rate = f64::from(below[k]) / f64::from(runs);
            assert!(rate <= a * 1.25 + 0.005, "α {a}: rate {rate}");
        }
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
        let report = trace_with(50, vec![Line::All], &tight, &mut probe, 3);
        assert_eq!(report.verdict, TraceVerdict::BudgetExhausted);
        assert!(report.queries <= 40);
        // A budget of nothing ends before a first query (and check()
        // refuses it before a trace starts).
        let none = TraceOptions {
            max_queries: 0,
            ..TraceOptions::default()
        };
        assert!(none.check().is_err());
        let report = trace_with(50, vec![Line::All], &none, &mut probe, 4);
        assert_eq!(report.verdict, TraceVerdict::BudgetExhausted);
        assert_eq!(report.queries, 0);
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
            let mut probe = |batch: &[Query]| {
                Ok::<_, ()>(batch.iter().map(|_| rr.next_u32() % 2 == 0).collect())
            };
            let report = trace_with(64, vec![Line::All], &options, &mut probe, r.next_u64());
            assert_eq!(report.verdict, TraceVerdict::BudgetExhausted);
        }
    }

    /// Lines of four hybrids (a risky scheme's copies, each with one hidden
    /// position i*: normal, reaching i*, reaching i*+1, nobody): a line
    /// accuses the decoder's key k only when k is its i*; elsewhere the
    /// trace ends without accusing anyone, though the success drops.
    #[test]
    fn risky_lines_accuse_only_at_their_hidden_positions() {
        let mut r = ChaCha20Rng::seed_from_u64(3);
        let n = 30u32;
        for run_no in 0..20 {
            let key = 1 + r.next_u32() % n;
            let stars: Vec<u32> = (0..4).map(|_| 1 + r.next_u32() % n).collect();
            let lines: Vec<Line> = stars
                .iter()
                .map(|&s| Line::Hybrids {
                    len: 4,
                    accuse: vec![(2, s)],
                })
                .collect();
            let mut dr = ChaCha20Rng::seed_from_u64(r.next_u64());
            let mut probe = |batch: &[Query]| {
                Ok::<_, ()>(
                    batch
                        .iter()
                        .map(|q| {
                            let s = stars[q.line];
                            let from = [1, s, s + 1, n + 1][q.index as usize - 1];
                            key >= from && dr.next_u32() % 8 != 0
                        })
                        .collect(),
                )
            };
            let report = trace_with(n, lines, &TraceOptions::default(), &mut probe, r.next_u64());
            if stars.contains(&key) {
                assert_eq!(report.verdict, TraceVerdict::Accused(key), "run {run_no}");
                assert_eq!(report.accusation().map(|e| e.user), Some(key));
            } else {
                assert_eq!(report.verdict, TraceVerdict::NoAccusation, "run {run_no}");
            }
        }
    }

    /// A budget that an odd remainder leaves too small for one more batch
    /// ends the trace instead of spinning (review finding).
    #[test]
    fn an_odd_budget_ends() {
        let mut probe = |batch: &[Query]| Ok::<_, ()>(vec![false; batch.len()]);
        for max_queries in [1, 3, 101, 1001] {
            let options = TraceOptions {
                max_queries,
                ..TraceOptions::default()
            };
            let report = trace_with(50, vec![Line::All], &options, &mut probe, 7);
            assert!(report.queries <= max_queries);
            assert_eq!(report.verdict, TraceVerdict::BudgetExhausted);
        }
    }

    /// Batches hold as many queries at each index they probe, and the
    /// order within them varies with the coins.
    #[test]
    fn batches_are_balanced_and_shuffled() {
        let mut seen: Vec<Vec<Query>> = Vec::new();
        let mut probe = |batch: &[Query]| {
            assert!(batch.len() <= BATCH);
            let mut by: BTreeMap<u32, usize> = BTreeMap::new();
            for q in batch {
                *by.entry(q.index).or_default() += 1;
            }
            let counts: Vec<usize> = by.values().copied().collect();
            assert!(counts.windows(2).all(|w| w[0] == w[1]), "{counts:?}");
            seen.push(batch.to_vec());
            // A decoder holding user 7's key.
            Ok::<_, ()>(batch.iter().map(|q| q.index <= 7).collect())
        };
        let report = trace_with(
            20,
            vec![Line::All],
            &TraceOptions::default(),
            &mut probe,
            11,
        );
        assert_eq!(report.verdict, TraceVerdict::Accused(7));
        let pair: Vec<&Vec<Query>> = seen
            .iter()
            .filter(|b| b.iter().any(|q| q.index == 7) && b.iter().any(|q| q.index == 8))
            .collect();
        assert!(!pair.is_empty());
        // Shuffled: neither sorted (one switch between the two indices)
        // nor alternating (63).
        for b in pair {
            let switches = b.windows(2).filter(|w| w[0].index != w[1].index).count();
            assert!((2..62).contains(&switches), "{switches} switches");
        }
    }
}
