//! Timing harness: one warm-up call per operation (also the correctness
//! check), then the median of up to K repetitions, fewer for slow operations;
//! a cell whose operation is predicted or measured to exceed the time limit is
//! skipped or measured once, with a note.

use std::time::{Duration, Instant};

/// One implementation under test, set up for N attributes.
pub trait Subject {
    type Key;
    type Ct;
    /// What decryption must give back (a session key, a plaintext, a GT
    /// element).
    type Secret: PartialEq;

    /// Setup (not timed) for a flat AND of `n` attributes `A1..An`.
    fn new(n: usize) -> Self;
    /// Called before every timed operation, outside the timing (ours: empty
    /// the attribute-hash cache so every call pays its hashes, as the peers'
    /// calls do).
    fn before_op(&mut self) {}
    /// Called before every timed decryption, outside the timing (defaults to
    /// [`Subject::before_op`]); outsourcing subjects make the transformation
    /// key here once, and peers whose calls consume their arguments clone
    /// them here.
    fn before_decrypt(&mut self, key: &Self::Key, ct: &Self::Ct) {
        let _ = (key, ct);
        self.before_op();
    }
    fn keygen(&mut self) -> Self::Key;
    fn encrypt(&mut self) -> (Self::Secret, Self::Ct);
    /// `None` when decryption fails.
    fn decrypt(&mut self, key: &Self::Key, ct: &Self::Ct) -> Option<Self::Secret>;
    fn key_bytes(&self, key: &Self::Key) -> usize;
    fn ct_bytes(&self, ct: &Self::Ct) -> usize;
    /// Key and ciphertext sizes in a compact encoding, when the reported
    /// sizes are of a verbose one (rabe's JSON); `None` when they are already
    /// compact.
    fn compact_bytes(&self, key: &Self::Key, ct: &Self::Ct) -> Option<(usize, usize)> {
        let _ = (key, ct);
        None
    }
}

/// How much to measure.
#[derive(Clone, Debug)]
pub struct Config {
    /// Repetitions after the warm-up (at most).
    pub reps: usize,
    /// Time allowed for the repetitions of one operation: slow operations get
    /// `budget / warm-up time` repetitions (at least one).
    pub budget: Duration,
    /// An operation slower than this is measured once (no repetitions), and
    /// a cell whose operation is predicted to exceed it is skipped.
    pub limit: Duration,
}

/// The result of one cell (one implementation at one N).
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// Median keygen, encrypt, decrypt times; `None` when skipped.
    pub times: Option<[Duration; 3]>,
    /// Repetitions that made each median.
    pub reps: [usize; 3],
    pub key_bytes: usize,
    pub ct_bytes: usize,
    /// Compact-encoding sizes (key, ciphertext): equal to the reported sizes
    /// unless those are of a verbose encoding.
    pub compact: (usize, usize),
    pub note: String,
}

pub const OPS: [&str; 3] = ["keygen", "encrypt", "decrypt"];

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2
    }
}

fn reps_for(first: Duration, cfg: &Config) -> usize {
    if first > cfg.limit {
        return 0;
    }
    let fit = cfg.budget.as_secs_f64() / first.as_secs_f64().max(1e-9);
    (fit as usize).clamp(1, cfg.reps.max(1))
}

/// Times `f` once.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let v = f();
    (v, t.elapsed())
}

/// Predicted time of an operation at `n` from its time at `prev_n`, assuming
/// at most quadratic growth in N.
pub fn predict(prev: Duration, prev_n: usize, n: usize) -> Duration {
    let r = n as f64 / prev_n.max(1) as f64;
    prev.mul_f64(r * r)
}

/// Measures one cell. `prev` is the same implementation's cell at a smaller
/// N, used to skip cells that would run longer than the limit.
pub fn measure<S: Subject>(n: usize, cfg: &Config, prev: Option<(usize, &Measured)>) -> Measured {
    if let Some((pn, Some(pt))) = prev.map(|(pn, m)| (pn, m.times)) {
        for (op, t) in OPS.iter().zip(pt) {
            let p = predict(t, pn, n);
            if p > cfg.limit {
                return Measured {
                    note: format!(
                        "skipped: {op} predicted ≈{:.0} s (from {:.2} s at N={pn}, ×(N/{pn})²) > limit {:.0} s",
                        p.as_secs_f64(),
                        t.as_secs_f64(),
                        cfg.limit.as_secs_f64()
                    ),
                    ..Measured::default()
                };
            }
        }
    } else if let Some((pn, m)) = prev {
        if m.times.is_none() {
            return Measured {
                note: format!("skipped: already skipped at N={pn}"),
                ..Measured::default()
            };
        }
    }

    let mut s = S::new(n);
    let mut notes = Vec::new();

    // Warm-up and correctness check.
    s.before_op();
    let (key, t_kg) = timed(|| s.keygen());
    s.before_op();
    let ((secret, ct), t_enc) = timed(|| s.encrypt());
    s.before_decrypt(&key, &ct);
    let (got, t_dec) = timed(|| s.decrypt(&key, &ct));
    assert!(
        got.as_ref() == Some(&secret),
        "decryption did not recover the encapsulated key/message (N = {n})"
    );
    let key_bytes = s.key_bytes(&key);
    let ct_bytes = s.ct_bytes(&ct);
    let compact = s.compact_bytes(&key, &ct).unwrap_or((key_bytes, ct_bytes));

    let r = [
        reps_for(t_kg, cfg),
        reps_for(t_enc, cfg),
        reps_for(t_dec, cfg),
    ];
    for (op, (ri, t)) in OPS.iter().zip(r.iter().zip([t_kg, t_enc, t_dec])) {
        if *ri == 0 {
            notes.push(format!(
                "{op} {:.1} s > limit: measured once",
                t.as_secs_f64()
            ));
        }
    }

    let mut kg = Vec::new();
    for _ in 0..r[0] {
        s.before_op();
        let (k, t) = timed(|| s.keygen());
        drop(k);
        kg.push(t);
    }
    let mut enc = Vec::new();
    let mut cts = Vec::new();
    for _ in 0..r[1] {
        s.before_op();
        let (c, t) = timed(|| s.encrypt());
        enc.push(t);
        cts.push(c);
    }
    let mut dec = Vec::new();
    for i in 0..r[2] {
        // Decrypt fresh ciphertexts where there are some, each checked.
        let (want, c) = match cts.get(i) {
            Some((w, c)) => (w, c),
            None => (&secret, &ct),
        };
        s.before_decrypt(&key, c);
        let (got, t) = timed(|| s.decrypt(&key, c));
        assert!(got.as_ref() == Some(want), "decryption failed (N = {n})");
        dec.push(t);
    }
    let pick = |v: Vec<Duration>, first: Duration| if v.is_empty() { first } else { median(v) };
    let times = [pick(kg, t_kg), pick(enc, t_enc), pick(dec, t_dec)];
    Measured {
        times: Some(times),
        reps: r.map(|x| x.max(1)),
        key_bytes,
        ct_bytes,
        compact,
        note: notes.join("; "),
    }
}
