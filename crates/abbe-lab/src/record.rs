//! One measured point (`Row`), its identity (`Key`), and the CSV/JSON files
//! of `results/`.

use crate::harness::Stats;
use abbe::curve::OpCounts;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What identifies a point: re-running an experiment skips the keys it
/// already has.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub experiment: String,
    pub scheme: String,
    pub curve: String,
    pub operation: String,
    pub x_name: String,
    pub x: f64,
    /// Other parameters, `name=value;…` (policy shape, |S| fraction, seed…).
    pub params: String,
}

impl Key {
    pub fn id(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}={}|{}",
            self.experiment,
            self.scheme,
            self.curve,
            self.operation,
            self.x_name,
            self.x,
            self.params
        )
    }
}

/// One row of `results/<experiment>.csv`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub experiment: String,
    pub scheme: String,
    pub curve: String,
    pub security_bits: u32,
    pub operation: String,
    pub x_name: String,
    pub x: f64,
    pub params: String,
    pub median_ms: Option<f64>,
    pub min_ms: Option<f64>,
    pub max_ms: Option<f64>,
    /// Quartiles of the wall times (absent in results of older labs).
    #[serde(default)]
    pub q1_ms: Option<f64>,
    #[serde(default)]
    pub q3_ms: Option<f64>,
    /// Median process CPU time: what the verdicts judge a single-threaded
    /// operation on.
    pub cpu_ms: Option<f64>,
    /// Quartiles of the process CPU times, the noise of `cpu_ms` (absent
    /// in results of older labs, and for operations judged on wall time:
    /// those that wait on other threads or the network).
    #[serde(default)]
    pub cpu_q1_ms: Option<f64>,
    #[serde(default)]
    pub cpu_q3_ms: Option<f64>,
    /// Process CPU time / wall time (> 1 when several cores work).
    pub cpu_util: Option<f64>,
    pub reps: Option<u32>,
    /// The 1-minute load average when the point was done, and the cores
    /// of the machine that did it.
    #[serde(default)]
    pub load_avg: Option<f64>,
    #[serde(default)]
    pub cores: Option<u32>,
    /// Cores other processes kept busy on average during the point.
    #[serde(default)]
    pub others_busy: Option<f64>,
    pub bytes: Option<u64>,
    /// A derived or modelled value (energy, lifetime, prediction) in `unit`.
    pub value: Option<f64>,
    pub unit: String,
    pub peak_heap_bytes: Option<u64>,
    /// Basic operations counted by the curve layer (non-zero ones only).
    pub ops: Option<BTreeMap<String, u64>>,
    /// The profile of the run that measured the point (absent in results
    /// of older labs): the report says which profile decided each claim.
    #[serde(default)]
    pub profile: Option<String>,
}

impl Row {
    pub fn key(&self) -> Key {
        Key {
            experiment: self.experiment.clone(),
            scheme: self.scheme.clone(),
            curve: self.curve.clone(),
            operation: self.operation.clone(),
            x_name: self.x_name.clone(),
            x: self.x,
            params: self.params.clone(),
        }
    }

    pub fn from_key(k: &Key, security_bits: u32) -> Row {
        Row {
            experiment: k.experiment.clone(),
            scheme: k.scheme.clone(),
            curve: k.curve.clone(),
            security_bits,
            operation: k.operation.clone(),
            x_name: k.x_name.clone(),
            x: k.x,
            params: k.params.clone(),
            ..Row::default()
        }
    }

    pub fn with_stats(mut self, s: Stats) -> Row {
        self.median_ms = Some(s.median_ms);
        self.min_ms = Some(s.min_ms);
        self.max_ms = Some(s.max_ms);
        self.q1_ms = Some(s.q1_ms);
        self.q3_ms = Some(s.q3_ms);
        self.cpu_ms = Some(s.cpu_ms);
        self.cpu_q1_ms = Some(s.cpu_q1_ms);
        self.cpu_q3_ms = Some(s.cpu_q3_ms);
        self.load_avg = s.load_avg;
        self.others_busy = s.others_busy;
        self.cpu_util = (s.median_ms > 0.0).then(|| s.cpu_ms / s.median_ms);
        self.reps = Some(s.reps);
        self.peak_heap_bytes = s.peak_heap;
        self.unit = "ms".into();
        self
    }

    /// The same row judged on wall time: the operation waits on other
    /// threads or the network, so its CPU time is not its cost.
    pub fn judged_on_wall(mut self) -> Row {
        self.cpu_q1_ms = None;
        self.cpu_q3_ms = None;
        self
    }

    /// The time the verdicts judge, with its quartiles: process CPU time
    /// when the row has its quartiles, wall time otherwise.
    pub fn judged_ms(&self) -> Option<(f64, Option<(f64, f64)>)> {
        match (self.cpu_ms, self.cpu_q1_ms, self.cpu_q3_ms) {
            (Some(m), Some(q1), Some(q3)) => Some((m, Some((q1, q3)))),
            _ => Some((self.median_ms?, self.q1_ms.zip(self.q3_ms))),
        }
    }

    /// Whether the point was measured while other processes competed for
    /// the lab's core: they kept busy more than the machine's spare cores
    /// (a quarter core of margin for /proc/stat's 10 ms ticks). Rows
    /// without that measure fall back on the 1-minute load average, which
    /// lags a minute behind.
    pub fn under_load(&self) -> bool {
        match (self.others_busy, self.load_avg, self.cores) {
            (Some(o), _, Some(c)) => o > f64::from(c) - 1.0 + 0.25,
            (None, Some(l), Some(c)) => l > f64::from(c),
            _ => false,
        }
    }

    pub fn with_ops(mut self, c: &OpCounts) -> Row {
        self.ops = Some(ops_map(c));
        self
    }

    /// The row's main number, which tables, figures and verdicts show: the
    /// judged time ([`Row::judged_ms`]), else the byte count, else the
    /// derived value.
    pub fn main_value(&self) -> Option<f64> {
        self.judged_ms()
            .map(|(ms, _)| ms)
            .or(self.bytes.map(|b| b as f64))
            .or(self.value)
    }

    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.split(';').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k == name).then_some(v)
        })
    }
}

/// The non-zero counts of `c`, by name.
pub fn ops_map(c: &OpCounts) -> BTreeMap<String, u64> {
    let all = [
        ("miller_loops", c.miller_loops),
        ("final_exps", c.final_exps),
        ("g2_prepared", c.g2_prepared),
        ("g1_exp", c.g1_exp),
        ("g2_exp", c.g2_exp),
        ("g1_fixed_exp", c.g1_fixed_exp),
        ("g2_fixed_exp", c.g2_fixed_exp),
        ("g1_msm_terms", c.g1_msm_terms),
        ("g2_msm_terms", c.g2_msm_terms),
        ("g1_add", c.g1_add),
        ("g2_add", c.g2_add),
        ("gt_exp", c.gt_exp),
        ("gt_mul", c.gt_mul),
        ("hash_g1", c.hash_g1),
        ("hash_g2", c.hash_g2),
    ];
    all.into_iter()
        .filter(|(_, v)| *v != 0)
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

const CSV_HEADER: &str = "experiment,scheme,curve,security_bits,operation,x_name,x,params,median_ms,min_ms,max_ms,q1_ms,q3_ms,cpu_ms,cpu_q1_ms,cpu_q3_ms,cpu_util,reps,load_avg,cores,others_busy,bytes,value,unit,peak_heap_bytes,ops,profile";

fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
    v.as_ref().map(|v| v.to_string()).unwrap_or_default()
}

/// Quotes a CSV field when it needs it (RFC 4180).
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn to_csv(rows: &[Row]) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for r in rows {
        let ops = r
            .ops
            .as_ref()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(";")
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            field(&r.experiment),
            field(&r.scheme),
            field(&r.curve),
            r.security_bits,
            field(&r.operation),
            field(&r.x_name),
            r.x,
            field(&r.params),
            opt(&r.median_ms),
            opt(&r.min_ms),
            opt(&r.max_ms),
            opt(&r.q1_ms),
            opt(&r.q3_ms),
            opt(&r.cpu_ms),
            opt(&r.cpu_q1_ms),
            opt(&r.cpu_q3_ms),
            opt(&r.cpu_util.map(|u| (u * 1000.0).round() / 1000.0)),
            opt(&r.reps),
            opt(&r.load_avg),
            opt(&r.cores),
            opt(&r.others_busy.map(|o| (o * 100.0).round() / 100.0)),
            opt(&r.bytes),
            opt(&r.value),
            field(&r.unit),
            opt(&r.peak_heap_bytes),
            field(&ops),
            field(r.profile.as_deref().unwrap_or_default()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_is_judged_on_the_cores_others_kept_busy() {
        let r = |others, load| Row {
            cores: Some(2),
            others_busy: others,
            load_avg: load,
            ..Row::default()
        };
        // Two CPU-bound neighbours on two cores keep 1.33 busy besides us.
        assert!(r(Some(1.33), Some(1.0)).under_load());
        // Idle, just after a build: the lagging load average is ignored.
        assert!(!r(Some(0.05), Some(2.9)).under_load());
        // One neighbour on the spare core does not take ours.
        assert!(!r(Some(1.0), Some(2.0)).under_load());
        // Older rows: the load average.
        assert!(r(None, Some(3.0)).under_load());
        assert!(!r(None, Some(1.5)).under_load());
        assert!(!Row::default().under_load());
    }

    #[test]
    fn csv_quotes_fields_and_leaves_missing_values_empty() {
        let r = Row {
            experiment: "e".into(),
            scheme: "s".into(),
            curve: "c".into(),
            operation: "op".into(),
            x_name: "n".into(),
            x: 3.0,
            params: "shape=flat;p=0,5".into(),
            bytes: Some(10),
            unit: "B".into(),
            ..Row::default()
        };
        let csv = to_csv(std::slice::from_ref(&r));
        let line = csv.lines().nth(1).unwrap();
        assert_eq!(
            line,
            "e,s,c,0,op,n,3,\"shape=flat;p=0,5\",,,,,,,,,,,,,,10,,B,,,"
        );
        assert_eq!(r.param("shape"), Some("flat"));
        assert_eq!(r.main_value(), Some(10.0));
        let json = serde_json::to_string(&r).unwrap();
        let back: Row = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
    }
}
