//! Measurement: warm-up, repetitions until a time budget, median and spread
//! of wall time and of process CPU time, the machine's load average, peak
//! heap of one run, and the results store that makes experiments resumable.
//!
//! The lab judges single-threaded operations on process CPU time: the time
//! another process holds the core delays an operation (wall time) but is
//! not counted in it. It is not immune to load — where cores share execution
//! units, a busy neighbour slows some code — so each point also records how
//! many cores other processes kept busy. The minimum wall time would do
//! worse: under a sustained load few repetitions of a long operation run
//! uninterrupted. Nor does CPU time undo a virtual machine whose cores run
//! faster and slower over seconds, so the points a claim compares are timed
//! interleaved (`time_interleaved`).

use crate::record::{Key, Row};
use cpu_time::ProcessTime;
use peakmem_alloc::{PeakMemAllocTrait, INSTRUMENTED_SYSTEM};
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// How long and how often to measure one point.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Keep repeating until this much wall time has been spent…
    pub time: Duration,
    /// …and at least this many repetitions were made…
    pub min_reps: u32,
    /// …but never more than this.
    pub max_reps: u32,
    /// One untimed run first (caches, lazily built tables, page faults);
    /// off for operations of many seconds.
    pub warmup: bool,
}

impl Budget {
    /// Exactly `n` repetitions (detabe takes the median of 31 runs).
    pub fn exactly(n: u32) -> Budget {
        Budget {
            time: Duration::ZERO,
            min_reps: n,
            max_reps: n,
            warmup: true,
        }
    }

    /// One timed run, no warm-up (setup of a million users).
    pub fn once() -> Budget {
        Budget {
            time: Duration::ZERO,
            min_reps: 1,
            max_reps: 1,
            warmup: false,
        }
    }
}

/// Summary statistics of a set of timings, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// Lower and upper quartiles of the wall times.
    pub q1_ms: f64,
    pub q3_ms: f64,
    /// Median and quartiles of the process CPU times: what the verdicts
    /// judge, and the spread they call noise.
    pub cpu_ms: f64,
    pub cpu_q1_ms: f64,
    pub cpu_q3_ms: f64,
    pub reps: u32,
    /// The 1-minute load average when the point was done (`None` where the
    /// system does not say).
    pub load_avg: Option<f64>,
    /// Cores other processes kept busy on average while the point was
    /// measured (`None` where the system does not say): unlike the load
    /// average, it does not lag behind by a minute.
    pub others_busy: Option<f64>,
    /// Peak heap of the first run (`None` without the instrumented allocator).
    pub peak_heap: Option<u64>,
}

impl Stats {
    /// The statistics of one of `k` equal parts (one pair of a k-pair
    /// Miller loop, one term of a k-term MSM).
    pub fn per(self, k: f64) -> Stats {
        Stats {
            median_ms: self.median_ms / k,
            min_ms: self.min_ms / k,
            max_ms: self.max_ms / k,
            q1_ms: self.q1_ms / k,
            q3_ms: self.q3_ms / k,
            cpu_ms: self.cpu_ms / k,
            cpu_q1_ms: self.cpu_q1_ms / k,
            cpu_q3_ms: self.cpu_q3_ms / k,
            ..self
        }
    }
}

/// Median of a non-empty sample (mean of the two middle values when even).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The `q`-quantile (0 ≤ q ≤ 1) of a sorted non-empty sample, linearly
/// interpolated.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (i, f) = (pos.floor() as usize, pos.fract());
    let next = sorted.get(i + 1).copied().unwrap_or(sorted[i]);
    sorted[i] + (next - sorted[i]) * f
}

/// Times `op(input)` where a fresh input comes from `setup` before every
/// repetition (outside the timed region). The peak heap is that of the first
/// run (the warm-up when there is one), measured when `heap` is set.
pub fn time_with_setup<S, T>(
    budget: Budget,
    heap: bool,
    mut setup: impl FnMut() -> S,
    mut op: impl FnMut(S) -> T,
) -> Stats {
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    let mut peak = None;
    if budget.warmup {
        let input = setup();
        peak = peak_heap(heap, || op(input)).1;
    }
    let start = Instant::now();
    let (own0, busy0) = (ProcessTime::now(), machine_busy_secs());
    while (wall.len() as u32) < budget.max_reps
        && ((wall.len() as u32) < budget.min_reps || start.elapsed() < budget.time)
    {
        let input = setup();
        let first = wall.is_empty() && !budget.warmup;
        let c0 = ProcessTime::now();
        let t0 = Instant::now();
        if first {
            peak = peak_heap(heap, || op(input)).1;
        } else {
            black_box(op(input));
        }
        wall.push(t0.elapsed().as_secs_f64() * 1e3);
        cpu.push(c0.elapsed().as_secs_f64() * 1e3);
    }
    let others_busy = others_busy(start, own0, busy0);
    summarise(wall, cpu, others_busy, peak)
}

/// The statistics of one point's per-repetition wall and CPU times (ms).
fn summarise(
    mut wall: Vec<f64>,
    mut cpu: Vec<f64>,
    others_busy: Option<f64>,
    peak_heap: Option<u64>,
) -> Stats {
    let min_ms = wall.iter().copied().fold(f64::INFINITY, f64::min);
    let max_ms = wall.iter().copied().fold(0.0, f64::max);
    let median_ms = median(&mut wall);
    let cpu_ms = median(&mut cpu);
    Stats {
        median_ms,
        min_ms,
        max_ms,
        q1_ms: quantile(&wall, 0.25),
        q3_ms: quantile(&wall, 0.75),
        cpu_ms,
        cpu_q1_ms: quantile(&cpu, 0.25),
        cpu_q3_ms: quantile(&cpu, 0.75),
        reps: wall.len() as u32,
        load_avg: load_average(),
        others_busy,
        peak_heap,
    }
}

/// Calls per timed sample for an operation that took `one_secs` once:
/// enough for a sample of about a millisecond, so that clock and CPU-time
/// resolution do not dominate.
fn batch(one_secs: f64) -> u32 {
    if one_secs < 1e-3 {
        ((1e-3 / one_secs.max(1e-8)).ceil() as u32).clamp(1, 100_000)
    } else {
        1
    }
}

/// Whether an operation of `reps` repetitions takes a sample in round `j`
/// of `rounds`: its samples spread evenly over all rounds.
fn due(j: u32, reps: u32, rounds: u32) -> bool {
    let done_after = |j: u32| u64::from(j) * u64::from(reps) / u64::from(rounds);
    done_after(j + 1) > done_after(j)
}

/// Times several operations interleaved, each within its own budget, and
/// returns their statistics in order.
///
/// The points a claim compares are measured this way. On a shared or
/// virtual machine the speed of a core drifts over seconds (a neighbour's
/// work, the host's other tenants), and process CPU time drifts with it:
/// points measured one after the other can land in a fast and a slow
/// period, and a comparison between them then measures the machine. Here
/// every operation takes its samples in rounds spread over the whole
/// group's time, so a slow period falls on all of them alike.
///
/// Each operation first runs once untimed (its warm-up, where it measures
/// the peak heap when `heap` is set), which also sets how many calls make
/// one sample (sub-millisecond operations are batched) and how many
/// samples its time budget buys, within its minimum and maximum. An
/// operation without warm-up takes its minimum number of repetitions, one
/// call each, and its first timed call gives the peak heap.
pub fn time_interleaved<'o>(
    heap: bool,
    ops: &mut [(Budget, &mut (dyn FnMut() + 'o))],
) -> Vec<Stats> {
    struct Plan {
        calls: u32,
        reps: u32,
        peak: Option<u64>,
        wall: Vec<f64>,
        cpu: Vec<f64>,
    }
    let mut plans: Vec<Plan> = ops
        .iter_mut()
        .map(|(budget, op)| {
            let (calls, reps, peak) = if budget.warmup {
                let t0 = Instant::now();
                let ((), peak) = peak_heap(heap, &mut **op);
                let one = t0.elapsed().as_secs_f64();
                let calls = batch(one);
                let sample = one * f64::from(calls);
                let reps = (budget.time.as_secs_f64() / sample.max(1e-9)).ceil();
                let reps = (reps.min(f64::from(u32::MAX)) as u32)
                    .clamp(budget.min_reps, budget.max_reps.max(budget.min_reps));
                (calls, reps, peak)
            } else {
                (1, budget.min_reps, None)
            };
            Plan {
                calls,
                reps: reps.max(1),
                peak,
                wall: Vec::new(),
                cpu: Vec::new(),
            }
        })
        .collect();
    let rounds = plans.iter().map(|p| p.reps).max().unwrap_or(0);
    let start = Instant::now();
    let (own0, busy0) = (ProcessTime::now(), machine_busy_secs());
    for j in 0..rounds {
        for ((budget, op), plan) in ops.iter_mut().zip(&mut plans) {
            if !due(j, plan.reps, rounds) {
                continue;
            }
            let c0 = ProcessTime::now();
            let t0 = Instant::now();
            if plan.wall.is_empty() && !budget.warmup {
                plan.peak = peak_heap(heap, &mut **op).1;
            } else {
                for _ in 0..plan.calls {
                    op();
                }
            }
            let per = f64::from(plan.calls);
            plan.wall.push(t0.elapsed().as_secs_f64() * 1e3 / per);
            plan.cpu.push(c0.elapsed().as_secs_f64() * 1e3 / per);
        }
    }
    let others_busy = others_busy(start, own0, busy0);
    plans
        .into_iter()
        .map(|p| summarise(p.wall, p.cpu, others_busy, p.peak))
        .collect()
}

/// Seconds the whole machine's CPUs have been busy (Linux's `/proc/stat`:
/// user, nice, system, irq, softirq and steal, counted in USER_HZ, which
/// is 100 on Linux).
fn machine_busy_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let v: Vec<f64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .map_while(|x| x.parse().ok())
        .collect();
    let busy: f64 = [0, 1, 2, 5, 6, 7]
        .iter()
        .map(|&i| v.get(i).copied())
        .sum::<Option<f64>>()?;
    Some(busy / 100.0)
}

/// Cores other processes kept busy on average since `start`: the machine's
/// busy time less this process's CPU time, over the wall time.
fn others_busy(start: Instant, own0: ProcessTime, busy0: Option<f64>) -> Option<f64> {
    let wall = start.elapsed().as_secs_f64();
    let busy = machine_busy_secs()? - busy0?;
    // Below a few ticks of /proc/stat the estimate is noise.
    (wall >= 0.05).then(|| ((busy - own0.elapsed().as_secs_f64()) / wall).max(0.0))
}

/// The 1-minute load average (Linux's `/proc/loadavg`): the runnable
/// processes, the lab's own measuring thread included.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// CPU time of the calling thread: for a single operation timed inside a
/// larger loop (the average case of random policies), where process CPU
/// time would also count the loop's bookkeeping on other threads.
pub fn thread_cpu_ms<T>(op: impl FnOnce() -> T) -> (T, f64) {
    let t0 = cpu_time::ThreadTime::now();
    let r = op();
    (r, t0.elapsed().as_secs_f64() * 1e3)
}

/// Times `op()`. Operations under a millisecond are run in batches of k
/// calls per sample (k from one calibration call), so that clock and
/// CPU-time resolution do not dominate; the statistics are per call.
pub fn time<T>(budget: Budget, heap: bool, mut op: impl FnMut() -> T) -> Stats {
    if !budget.warmup {
        return time_with_setup(budget, heap, || (), |()| op());
    }
    // The calibration call is the warm-up.
    let t0 = Instant::now();
    black_box(op());
    let k = batch(t0.elapsed().as_secs_f64());
    time_with_setup(
        Budget {
            warmup: false,
            ..budget
        },
        heap,
        || (),
        |()| {
            for _ in 0..k {
                black_box(op());
            }
        },
    )
    .per(f64::from(k))
}

/// Whether the running binary's global allocator is the instrumented one
/// (the `abbe` binary installs it; unit tests do not).
pub fn heap_tracking() -> bool {
    INSTRUMENTED_SYSTEM.reset_peak_memory();
    let v: Vec<u8> = black_box(Vec::with_capacity(1 << 20));
    let seen = INSTRUMENTED_SYSTEM.get_peak_memory() >= 1 << 20;
    drop(v);
    seen
}

/// Peak heap (bytes above what was live before) of one run of `op`, or
/// `None` when the allocator is not instrumented. Other threads' allocations
/// count too, so the lab measures one operation at a time.
pub fn peak_heap<T>(tracking: bool, op: impl FnOnce() -> T) -> (T, Option<u64>) {
    if !tracking {
        return (op(), None);
    }
    INSTRUMENTED_SYSTEM.reset_peak_memory();
    let r = black_box(op());
    (r, Some(INSTRUMENTED_SYSTEM.get_peak_memory() as u64))
}

/// Rows of one experiment: those measured in this run and those of an
/// earlier run with the same parameters (kept unless `--force`).
pub struct Store {
    prior: HashMap<String, Row>,
    pub rows: Vec<Row>,
    force: bool,
}

impl Store {
    pub fn new(prior: Vec<Row>, force: bool) -> Store {
        let prior = prior.into_iter().map(|r| (r.key().id(), r)).collect();
        Store {
            prior,
            rows: Vec::new(),
            force,
        }
    }

    /// Whether every key is already measured; if so, their earlier rows are
    /// taken into this run's results.
    pub fn have_all(&mut self, keys: &[Key]) -> bool {
        if self.force || keys.is_empty() {
            return false;
        }
        if !keys.iter().all(|k| self.prior.contains_key(&k.id())) {
            return false;
        }
        for k in keys {
            if let Some(r) = self.prior.remove(&k.id()) {
                self.rows.push(r);
            }
        }
        true
    }

    pub fn push(&mut self, row: Row) {
        self.prior.remove(&row.key().id());
        self.rows.push(row);
    }

    /// All rows: this run's, then earlier ones this run did not revisit
    /// (e.g. the full profile's larger points after a quick run).
    pub fn finish(mut self) -> Vec<Row> {
        let mut rest: Vec<Row> = self.prior.into_values().collect();
        rest.sort_by_key(|a| a.key().id());
        self.rows.extend(rest);
        self.rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_samples() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn quartiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&v, 0.25), 2.0);
        assert_eq!(quantile(&v, 0.75), 4.0);
        assert_eq!(quantile(&[1.0, 3.0], 0.5), 2.0);
        assert_eq!(quantile(&[7.0], 0.75), 7.0);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn budget_bounds_the_repetitions() {
        let mut calls = 0u32;
        let s = time(Budget::exactly(7), false, || calls += 1);
        assert_eq!(s.reps, 7);
        // One calibration call, then batches (a trivial call is batched).
        assert!(calls > 8, "{calls}");
        let s = time(
            Budget {
                time: Duration::from_millis(20),
                min_reps: 2,
                max_reps: 1000,
                warmup: true,
            },
            false,
            || std::thread::sleep(Duration::from_millis(5)),
        );
        assert!(s.reps >= 2 && s.reps <= 6, "{s:?}");
        assert!(s.min_ms >= 5.0 && s.median_ms >= s.min_ms && s.max_ms >= s.median_ms);
        assert!(s.cpu_q1_ms <= s.cpu_ms && s.cpu_ms <= s.cpu_q3_ms, "{s:?}");
        // No assertion on `cpu_ms`: it is process CPU time, and the test
        // harness runs other tests on other threads of this process meanwhile.
        assert!(s.cpu_ms.is_finite() && s.cpu_ms >= 0.0, "{s:?}");
    }

    #[test]
    fn what_others_do_meanwhile_is_measured() {
        let s = time(Budget::once(), false, || {
            std::thread::sleep(Duration::from_millis(60))
        });
        if cfg!(target_os = "linux") {
            assert!(s.others_busy.is_some_and(|o| o >= 0.0), "{s:?}");
        }
        // Too short for /proc/stat's 10 ms ticks: not estimated.
        let s = time(Budget::once(), false, || ());
        assert_eq!(s.others_busy, None, "{s:?}");
    }

    #[test]
    fn setup_is_not_timed() {
        let s = time_with_setup(
            Budget::exactly(3),
            false,
            || std::thread::sleep(Duration::from_millis(20)),
            |()| 1,
        );
        // Were the setup timed, every sample would take ≥ 20 ms; the minimum
        // (not the maximum) keeps a descheduled sample from failing the test.
        assert!(s.min_ms < 20.0, "{s:?}");
    }

    #[test]
    fn samples_of_an_interleaved_group_spread_over_its_rounds() {
        assert!((0..10).all(|j| due(j, 10, 10)));
        let rounds: Vec<u32> = (0..10).filter(|&j| due(j, 3, 10)).collect();
        assert_eq!(rounds.len(), 3);
        // Spread out, the last in the second half: not three rounds in a row.
        assert!(rounds.windows(2).all(|w| w[1] - w[0] >= 3), "{rounds:?}");
        assert!(*rounds.last().unwrap() >= 5, "{rounds:?}");
    }

    #[test]
    fn an_interleaved_group_alternates_its_operations() {
        let log = std::cell::RefCell::new(Vec::new());
        let (mut a, mut b) = (
            || {
                log.borrow_mut().push('a');
                std::thread::sleep(Duration::from_millis(2));
            },
            || {
                log.borrow_mut().push('b');
                std::thread::sleep(Duration::from_millis(2));
            },
        );
        let stats = time_interleaved(
            false,
            &mut [
                (Budget::exactly(4), &mut a as &mut dyn FnMut()),
                (Budget::exactly(2), &mut b),
            ],
        );
        assert_eq!(stats.iter().map(|s| s.reps).collect::<Vec<_>>(), [4, 2]);
        // Warm-ups first, then the rounds: b's two samples spread out.
        assert_eq!(log.borrow().iter().collect::<String>(), "abaabaab");
        assert!(stats.iter().all(|s| s.min_ms >= 2.0), "{stats:?}");
        // A time budget buys samples from the warm-up's duration.
        let mut c = || std::thread::sleep(Duration::from_millis(5));
        let budget = Budget {
            time: Duration::from_millis(20),
            min_reps: 2,
            max_reps: 1000,
            warmup: true,
        };
        let s = time_interleaved(false, &mut [(budget, &mut c as &mut dyn FnMut())]);
        assert!((2..=4).contains(&s[0].reps), "{s:?}");
        // Without warm-up: the minimum, one call per sample.
        let mut calls = 0;
        let mut d = || calls += 1;
        let s = time_interleaved(false, &mut [(Budget::once(), &mut d as &mut dyn FnMut())]);
        assert_eq!(s[0].reps, 1);
        assert_eq!(calls, 1);
    }
}
