//! How the lab judges a claim. Each claim's rule is written in its paper's
//! `.md` before anything is measured (`Rule {id}: holds if …; does not hold
//! if …`); the report code applies it with the tools here. Times carry their
//! noise (the spread of their repetitions), so a difference smaller than the
//! noise names no winner: the verdict is "within noise".

use crate::record::Row;
use crate::report::Verdict;

/// The least relative noise of a timing: drift between points measured at
/// different moments on a shared two-core machine (frequency, the other
/// core's load), which the spread of one point does not show.
pub const NOISE_FLOOR: f64 = 0.03;

/// A measured value and its relative noise (0 for exact counts and sizes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub value: f64,
    pub noise: f64,
}

impl Measured {
    pub fn exact(value: f64) -> Measured {
        Measured { value, noise: 0.0 }
    }

    /// A timing with the given relative noise (at least [`NOISE_FLOOR`]).
    pub fn timing(value: f64, noise: f64) -> Measured {
        Measured {
            value,
            noise: noise.max(NOISE_FLOOR),
        }
    }

    /// The row's main value (for a timing, its judged time: see
    /// [`Row::judged_ms`]) with its noise.
    pub fn of(row: &Row) -> Option<Measured> {
        Some(Measured {
            value: row.main_value()?,
            noise: noise(row),
        })
    }

    /// The row's main value with the noise of its median
    /// ([`median_noise`]) rather than of one repetition.
    pub fn of_median(row: &Row) -> Option<Measured> {
        Some(Measured {
            value: row.main_value()?,
            noise: median_noise(row),
        })
    }

    /// The sum of two measurements; the noise is the value-weighted mean.
    pub fn plus(self, o: Measured) -> Measured {
        let value = self.value + o.value;
        let noise = if value == 0.0 {
            0.0
        } else {
            (self.value * self.noise + o.value * o.noise) / value
        };
        Measured { value, noise }
    }

    /// a / b, with the noise of both.
    pub fn ratio(self, b: Measured) -> Measured {
        Measured {
            value: self.value / b.value,
            noise: self.noise + b.noise,
        }
    }

    /// Lowest and highest value within the noise.
    pub fn bounds(self) -> (f64, f64) {
        (
            self.value * (1.0 - self.noise),
            self.value * (1.0 + self.noise),
        )
    }
}

/// Relative noise of a row: the spread of its judged time below the median
/// (median − lower quartile; a quarter of min–max in wall-time results
/// without quartiles) over the median, at least [`NOISE_FLOOR`]; 0 for a
/// size or a derived value. Below the median because interference — another
/// process's cache and memory traffic, a busy host under a virtual machine —
/// only ever adds time to a single-threaded computation, so it fattens the
/// upper tail, while the lower half is the measurement's own spread (for a
/// symmetric spread the two halves agree). A point measured under load
/// keeps the same floor: a wider one turns the loaded run's decided points
/// into ties, which moves as many verdicts.
pub fn noise(r: &Row) -> f64 {
    let Some((m, quartiles)) = r.judged_ms().filter(|(m, _)| *m > 0.0) else {
        return 0.0;
    };
    let spread = match (quartiles, r.min_ms, r.max_ms) {
        (Some((q1, _)), _, _) => m - q1,
        (None, Some(lo), Some(hi)) => (hi - lo) / 4.0,
        _ => 0.0,
    };
    (spread / m).max(NOISE_FLOOR)
}

/// Relative noise of a row's median rather than of one repetition: two
/// standard errors of the median (1.2533 σ/√reps, σ from the interquartile
/// range's lower half, as in [`noise`]), at least [`NOISE_FLOOR`]. For a rule comparing a ratio of
/// medians with a threshold near it, where [`noise`] (one repetition's
/// spread, estimated from few samples) would leave every point undecided
/// in one run and decide it in the next.
pub fn median_noise(r: &Row) -> f64 {
    let (Some((m, Some((q1, _)))), Some(reps)) = (r.judged_ms(), r.reps) else {
        return noise(r);
    };
    if m <= 0.0 || reps == 0 {
        return noise(r);
    }
    let sigma = 2.0 * (m - q1) / 1.349;
    (2.0 * 1.2533 * sigma / (f64::from(reps).sqrt() * m)).max(NOISE_FLOOR)
}

/// How two measurements compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Less,
    /// The difference is within the two noises.
    Tie,
    Greater,
}

/// Compares `a` with `b`: a tie when they differ by no more than the sum of
/// their noises (relative to the smaller), so the answer never depends on
/// which comes first.
pub fn order(a: Measured, b: Measured) -> Order {
    let tol = (a.noise + b.noise) * a.value.abs().min(b.value.abs());
    if (a.value - b.value).abs() <= tol {
        Order::Tie
    } else if a.value < b.value {
        Order::Less
    } else {
        Order::Greater
    }
}

/// "a is faster (smaller) than b": holds beyond noise, does not hold when
/// it is larger beyond noise, within noise otherwise.
pub fn less(a: Measured, b: Measured) -> Verdict {
    match order(a, b) {
        Order::Less => Verdict::Holds,
        Order::Tie => Verdict::WithinNoise,
        Order::Greater => Verdict::DoesNotHold,
    }
}

/// `x` inside [lo, hi] beyond noise (holds), outside beyond noise (does not
/// hold), or within noise of a bound.
pub fn within(x: Measured, lo: f64, hi: f64) -> Verdict {
    let (a, b) = x.bounds();
    if a >= lo && b <= hi {
        Verdict::Holds
    } else if b < lo || a > hi {
        Verdict::DoesNotHold
    } else {
        Verdict::WithinNoise
    }
}

/// Lowest and highest ratio a / b within the noises.
pub fn ratio_bounds(a: Measured, b: Measured) -> (f64, f64) {
    let (alo, ahi) = a.bounds();
    let (blo, bhi) = b.bounds();
    (alo / bhi, ahi / blo)
}

/// "x ≥ threshold": holds when even its lowest value within the noise
/// reaches it, does not hold when even its highest does not, within noise
/// otherwise.
pub fn at_least(x: Measured, threshold: f64) -> Verdict {
    let (lo, hi) = x.bounds();
    if lo >= threshold {
        Verdict::Holds
    } else if hi < threshold {
        Verdict::DoesNotHold
    } else {
        Verdict::WithinNoise
    }
}

/// "x ≤ threshold", as [`at_least`].
pub fn at_most(x: Measured, threshold: f64) -> Verdict {
    let (lo, hi) = x.bounds();
    if hi <= threshold {
        Verdict::Holds
    } else if lo > threshold {
        Verdict::DoesNotHold
    } else {
        Verdict::WithinNoise
    }
}

/// "a is sensibly faster than b", for a ratio `r` = a / b and a threshold
/// below 1 that may lie inside the noise (0.95 against a 6 % noise floor):
/// the threshold is applied to the measured ratio — above it a is not
/// sensibly faster, whatever the noise — and the noise decides only whether
/// a below-threshold ratio differs from 1 at all.
pub fn sensibly_less(r: Measured, threshold: f64) -> Verdict {
    if r.value > threshold {
        Verdict::DoesNotHold
    } else if less(r, Measured::exact(1.0)) == Verdict::Holds {
        Verdict::Holds
    } else {
        Verdict::WithinNoise
    }
}

/// A verdict from a yes/no check (sizes, counts: no noise).
pub fn check(ok: bool) -> Verdict {
    if ok {
        Verdict::Holds
    } else {
        Verdict::DoesNotHold
    }
}

/// A claim judged two ways its rule allows (two libraries, two ends of a
/// band the paper leaves open): their verdict when they agree, depends when
/// they do not.
pub fn agreeing(a: Verdict, b: Verdict) -> Verdict {
    if a == b {
        a
    } else {
        Verdict::Depends
    }
}

/// The verdict of a claim checked at several points: pending when nothing
/// is measured; ties (within noise) count neither way, and only ties give
/// "within noise"; holds or does not hold when every decided point agrees;
/// depends otherwise.
pub fn combine(vs: &[Verdict]) -> Verdict {
    let decided: Vec<Verdict> = vs
        .iter()
        .copied()
        .filter(|v| {
            !matches!(
                v,
                Verdict::Pending | Verdict::NotJudged | Verdict::WithinNoise
            )
        })
        .collect();
    if decided.is_empty() {
        return if vs.contains(&Verdict::WithinNoise) {
            Verdict::WithinNoise
        } else {
            Verdict::Pending
        };
    }
    if decided.iter().all(|v| *v == Verdict::Holds) {
        Verdict::Holds
    } else if decided.iter().all(|v| *v == Verdict::DoesNotHold) {
        Verdict::DoesNotHold
    } else {
        Verdict::Depends
    }
}

/// The verdict of a claim about every point ("consistently", "all"): one
/// point beyond noise against it and it does not hold; it holds only when
/// every point holds — a point within noise leaves it within noise, since
/// the claim is then not shown there.
pub fn every(vs: &[Verdict]) -> Verdict {
    if vs.contains(&Verdict::DoesNotHold) {
        Verdict::DoesNotHold
    } else if vs.contains(&Verdict::Depends) {
        Verdict::Depends
    } else if vs.contains(&Verdict::WithinNoise) {
        Verdict::WithinNoise
    } else {
        combine(vs)
    }
}

/// The verdict of a claim about a trend over many points ("sensibly
/// faster", "similar"): holds when ≥ 90 % of the decided points hold, does
/// not hold when ≥ 50 % do not, depends otherwise; within noise when no
/// point is decided.
pub fn mostly(vs: &[Verdict]) -> Verdict {
    let decided: Vec<Verdict> = vs
        .iter()
        .copied()
        .filter(|v| matches!(v, Verdict::Holds | Verdict::DoesNotHold))
        .collect();
    if decided.is_empty() {
        return combine(vs);
    }
    let n = decided.len() as f64;
    let holds = decided.iter().filter(|v| **v == Verdict::Holds).count() as f64;
    if holds / n >= 0.9 {
        Verdict::Holds
    } else if (n - holds) / n >= 0.5 {
        Verdict::DoesNotHold
    } else {
        Verdict::Depends
    }
}

/// Counts of each outcome, for the evidence: "3 of 6 points hold; 1 does
/// not; 2 within noise".
pub fn tally(vs: &[Verdict]) -> String {
    let n = |v: Verdict| vs.iter().filter(|x| **x == v).count();
    let mut parts = vec![format!("{} of {} points hold", n(Verdict::Holds), vs.len())];
    match n(Verdict::DoesNotHold) {
        0 => {}
        1 => parts.push("1 does not".into()),
        k => parts.push(format!("{k} do not")),
    }
    for (v, what) in [
        (Verdict::Depends, "depend"),
        (Verdict::WithinNoise, "within noise"),
        (Verdict::Pending, "not measured"),
        (Verdict::NotJudged, "not judged"),
    ] {
        if n(v) > 0 {
            parts.push(format!("{} {what}", n(v)));
        }
    }
    parts.join("; ")
}

/// What a verdict on several points rests on, when not on all of them:
/// "decided on 2 of 7 points; 5 within noise" (empty when every point is
/// decided). Appended to the evidence so that no within-noise point counts
/// silently for either side.
pub fn decided_on(vs: &[Verdict]) -> String {
    let n = |v: Verdict| vs.iter().filter(|x| **x == v).count();
    let (ties, pending) = (n(Verdict::WithinNoise), n(Verdict::Pending));
    if ties + pending == 0 {
        return String::new();
    }
    let mut s = format!(
        "decided on {} of {} points",
        vs.len() - ties - pending,
        vs.len()
    );
    if ties > 0 {
        s += &format!("; {ties} within noise");
    }
    if pending > 0 {
        s += &format!("; {pending} not measured");
    }
    s
}

/// `evidence`, followed by [`decided_on`]`(vs)` when that is not empty.
pub fn with_points(vs: &[Verdict], evidence: impl Into<String>) -> String {
    let mut e = evidence.into();
    let d = decided_on(vs);
    if !d.is_empty() {
        e += &format!(" ({d})");
    }
    e
}

/// Timed rows whose wall time does not follow their work: two points of
/// one operation where one does ≥ 1.5× the CPU work of the other yet their
/// wall medians are within 5 %, while the lighter one spent < 90 % of its
/// wall time on the CPU. That is a floor — a timer, a thread wake-up
/// waiting for the scheduler's tick — and not the operation (detabe's 1 MB
/// points once all sat at 4.0 ms, one tick at 250 Hz). Returns one line
/// per affected operation.
pub fn wall_floors(rows: &[Row]) -> Vec<String> {
    let timed: Vec<&Row> = rows
        .iter()
        .filter(|r| r.median_ms.is_some_and(|m| m > 0.0) && r.cpu_ms.is_some())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for a in &timed {
        let (wa, ca) = (a.median_ms.unwrap_or(0.0), a.cpu_ms.unwrap_or(0.0));
        // Under load, wall time above CPU time is the load's, not a floor's.
        if ca <= 0.0 || ca / wa >= 0.9 || a.under_load() {
            continue;
        }
        let twin = timed.iter().find(|b| {
            let (wb, cb) = (b.median_ms.unwrap_or(0.0), b.cpu_ms.unwrap_or(0.0));
            b.operation == a.operation && cb >= 1.5 * ca && (wb / wa - 1.0).abs() <= 0.05
        });
        if let Some(b) = twin {
            let line = format!(
                "{} at {} = {}: {} {} takes {:.2} ms wall for {:.2} ms CPU, {} {} {:.2} ms wall for {:.2} ms CPU",
                a.operation,
                a.x_name,
                a.x,
                a.scheme,
                a.curve,
                wa,
                ca,
                b.scheme,
                b.curve,
                b.median_ms.unwrap_or(0.0),
                b.cpu_ms.unwrap_or(0.0)
            );
            if !out.iter().any(|l| l.starts_with(&a.operation)) {
                out.push(line);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(scheme: &str, op: &str, x: f64, wall: f64, cpu: f64) -> Row {
        Row {
            scheme: scheme.into(),
            operation: op.into(),
            x_name: "file_bytes".into(),
            x,
            median_ms: Some(wall),
            q1_ms: Some(wall * 0.99),
            q3_ms: Some(wall * 1.01),
            cpu_ms: Some(cpu),
            ..Row::default()
        }
    }

    #[test]
    fn noise_comes_from_the_quartiles_with_a_floor() {
        let mut r = timed("s", "op", 1.0, 10.0, 10.0);
        assert_eq!(noise(&r), NOISE_FLOOR);
        r.q1_ms = Some(8.0);
        r.q3_ms = Some(12.0);
        assert!((noise(&r) - 0.2).abs() < 1e-12);
        let sized = Row {
            bytes: Some(100),
            ..Row::default()
        };
        assert_eq!(noise(&sized), 0.0);
    }

    #[test]
    fn a_median_of_many_repetitions_is_less_noisy_than_one_repetition() {
        let mut r = timed("s", "op", 1.0, 10.0, 10.0);
        (r.cpu_q1_ms, r.cpu_q3_ms, r.reps) = (Some(8.0), Some(12.0), Some(100));
        assert!((noise(&r) - 0.2).abs() < 1e-12);
        // σ = 4 / 1.349 ms; 2 × 1.2533 σ / √100 over 10 ms.
        let want = 2.0 * 1.2533 * (4.0 / 1.349) / 10.0 / 10.0;
        assert!((median_noise(&r) - want).abs() < 1e-12);
        r.reps = Some(1);
        assert!(median_noise(&r) > noise(&r));
        (r.cpu_q1_ms, r.cpu_q3_ms, r.reps) = (Some(9.99), Some(10.01), Some(100));
        assert_eq!(median_noise(&r), NOISE_FLOOR);
        r.reps = None;
        assert_eq!(median_noise(&r), noise(&r));
    }

    #[test]
    fn timings_are_judged_on_cpu_time_and_its_own_spread() {
        // The same work under load: wall time doubled and spread out, CPU
        // time as before.
        let mut idle = timed("s", "op", 1.0, 10.0, 10.0);
        idle.cpu_q1_ms = Some(9.9);
        idle.cpu_q3_ms = Some(10.1);
        let mut loaded = idle.clone();
        loaded.median_ms = Some(21.0);
        loaded.q1_ms = Some(14.0);
        loaded.q3_ms = Some(30.0);
        loaded.cpu_ms = Some(10.2);
        for r in [&idle, &loaded] {
            let m = Measured::of(r).unwrap();
            assert!(m.value <= 10.2 && m.noise == NOISE_FLOOR, "{m:?}");
        }
        let other = Measured::of(&{
            let mut r = idle.clone();
            r.cpu_ms = Some(12.0);
            r.cpu_q1_ms = Some(11.9);
            r.cpu_q3_ms = Some(12.1);
            r
        })
        .unwrap();
        for r in [&idle, &loaded] {
            assert_eq!(less(Measured::of(r).unwrap(), other), Verdict::Holds);
        }
        // CPU quartiles wider than the floor are the noise.
        let mut wide = idle.clone();
        wide.cpu_q1_ms = Some(9.0);
        wide.cpu_q3_ms = Some(11.0);
        assert!((noise(&wide) - 0.1).abs() < 1e-12);
        // A row judged on wall time (it waits on the network) keeps wall.
        let wall = loaded.clone().judged_on_wall();
        assert_eq!(Measured::of(&wall).unwrap().value, 21.0);
        assert!((noise(&wall) - 7.0 / 21.0).abs() < 1e-12);
        // Interference fattens the upper tail only: it is not the noise.
        let mut tail = idle.clone();
        tail.cpu_q3_ms = Some(14.0);
        assert_eq!(noise(&tail), NOISE_FLOOR);
    }

    #[test]
    fn a_difference_below_the_noise_is_a_tie_in_either_order() {
        let a = Measured::timing(0.556, 0.0);
        let b = Measured::timing(0.558, 0.0);
        assert_eq!(order(a, b), Order::Tie);
        assert_eq!(order(b, a), Order::Tie);
        let c = Measured::timing(0.7, 0.0);
        assert_eq!(order(a, c), Order::Less);
        assert_eq!(order(c, a), Order::Greater);
        assert_eq!(
            order(Measured::exact(1.0), Measured::exact(1.0)),
            Order::Tie
        );
        assert_eq!(
            order(Measured::exact(1.0), Measured::exact(2.0)),
            Order::Less
        );
    }

    #[test]
    fn thresholds_give_each_outcome() {
        let x = Measured::timing(100.0, 0.1);
        assert_eq!(at_least(x, 80.0), Verdict::Holds);
        assert_eq!(at_least(x, 105.0), Verdict::WithinNoise);
        assert_eq!(at_least(x, 120.0), Verdict::DoesNotHold);
        assert_eq!(at_most(x, 120.0), Verdict::Holds);
        assert_eq!(at_most(x, 95.0), Verdict::WithinNoise);
        assert_eq!(at_most(x, 80.0), Verdict::DoesNotHold);
        assert_eq!(within(x, 80.0, 120.0), Verdict::Holds);
        assert_eq!(within(x, 105.0, 200.0), Verdict::WithinNoise);
        assert_eq!(within(x, 150.0, 200.0), Verdict::DoesNotHold);
        assert_eq!(less(x, Measured::exact(200.0)), Verdict::Holds);
        assert_eq!(less(x, Measured::exact(50.0)), Verdict::DoesNotHold);
        assert_eq!(less(x, Measured::exact(101.0)), Verdict::WithinNoise);
        let ratio = |v| Measured {
            value: v,
            noise: 2.0 * NOISE_FLOOR,
        };
        assert_eq!(sensibly_less(ratio(0.8), 0.95), Verdict::Holds);
        assert_eq!(sensibly_less(ratio(0.95), 0.95), Verdict::WithinNoise);
        assert_eq!(sensibly_less(ratio(1.0), 0.95), Verdict::DoesNotHold);
        let r = x.ratio(Measured::timing(50.0, 0.05));
        assert!((r.value - 2.0).abs() < 1e-12 && (r.noise - 0.15).abs() < 1e-12);
        let (lo, hi) = ratio_bounds(x, Measured::exact(50.0));
        assert!((lo - 1.8).abs() < 1e-9 && (hi - 2.2).abs() < 1e-9);
    }

    #[test]
    fn combining_points() {
        use Verdict::*;
        assert_eq!(combine(&[]), Pending);
        assert_eq!(combine(&[Pending]), Pending);
        assert_eq!(combine(&[WithinNoise, Pending]), WithinNoise);
        assert_eq!(combine(&[Holds, WithinNoise]), Holds);
        assert_eq!(combine(&[DoesNotHold, WithinNoise]), DoesNotHold);
        assert_eq!(combine(&[Holds, DoesNotHold]), Depends);
        assert_eq!(combine(&[Depends, Holds]), Depends);
        assert_eq!(every(&[Holds, DoesNotHold]), DoesNotHold);
        let mut nine = vec![Holds; 9];
        nine.push(DoesNotHold);
        assert_eq!(mostly(&nine), Holds);
        assert_eq!(mostly(&[Holds, Holds, DoesNotHold]), Depends);
        assert_eq!(mostly(&[Holds, DoesNotHold]), DoesNotHold);
        assert_eq!(mostly(&[WithinNoise]), WithinNoise);
        assert_eq!(every(&[Holds, WithinNoise]), WithinNoise);
        assert_eq!(every(&[Holds, Holds]), Holds);
        assert_eq!(every(&[WithinNoise]), WithinNoise);
        assert_eq!(every(&[Holds, WithinNoise, DoesNotHold]), DoesNotHold);
        assert_eq!(
            tally(&[Holds, DoesNotHold, WithinNoise]),
            "1 of 3 points hold; 1 does not; 1 within noise"
        );
        assert_eq!(decided_on(&[Holds, DoesNotHold]), "");
        assert_eq!(
            decided_on(&[
                Holds,
                Holds,
                WithinNoise,
                WithinNoise,
                WithinNoise,
                WithinNoise,
                WithinNoise
            ]),
            "decided on 2 of 7 points; 5 within noise"
        );
        assert_eq!(
            with_points(&[Holds, Pending], "ratios 1.2"),
            "ratios 1.2 (decided on 1 of 2 points; 1 not measured)"
        );
    }

    #[test]
    fn a_wall_time_floor_is_caught() {
        // detabe's 1 MB points as they once were: 4.0 ms whatever the work.
        let floor = vec![
            timed("bsw07", "secure-file", 1e6, 4.0, 1.5),
            timed("waters11", "secure-file", 1e6, 4.02, 2.4),
            timed("waters11+bls-sig", "secure-file", 1e6, 3.98, 3.4),
        ];
        let found = wall_floors(&floor);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("secure-file"), "{found:?}");
        // The same wall time under load is the load's.
        let mut loaded = floor.clone();
        (loaded[0].others_busy, loaded[0].cores) = (Some(1.5), Some(2));
        assert!(wall_floors(&loaded).is_empty());
        // Wall time that follows the work, serial or on two threads.
        let honest = vec![
            timed("bsw07", "secure-file", 1e6, 1.5, 1.5),
            timed("waters11", "secure-file", 1e6, 2.4, 2.4),
            timed("waters11+bls-sig", "secure-file", 1e6, 2.0, 3.4),
            timed("bsw07", "secure-file", 1e7, 5.6, 9.4),
        ];
        assert!(wall_floors(&honest).is_empty());
    }
}
