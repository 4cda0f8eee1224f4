//! The papers' published values: one data file per paper,
//! `data/papers/<paper>.csv`, each value with the table or figure it comes
//! from. These are the only numbers of the report typed in by hand.

/// One published value.
#[derive(Clone, Debug, PartialEq)]
pub struct Published {
    /// "Table 7", "Fig. 8a", "§6.2 text".
    pub source: String,
    pub scheme: String,
    /// The paper's security level, curve, library or device.
    pub setting: String,
    pub operation: String,
    pub x_name: String,
    pub x: Option<f64>,
    /// The value; NaN when the paper gives a formula (op counts such as
    /// `2N+1`, kept verbatim in `text`).
    pub value: f64,
    pub text: String,
    pub unit: String,
    /// "table", "text" or "figure (approximate)".
    pub read_from: String,
}

/// A paper of the lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paper {
    pub id: &'static str,
    pub title: &'static str,
    csv: &'static str,
    /// The paper's notes, `data/papers/<paper>.md`: what to regenerate and
    /// the rule of each claim (see [`Paper::rule`]).
    md: &'static str,
}

pub const PAPERS: [Paper; 6] = [
    Paper {
        id: "ghw11",
        title: "Green, Hohenberger, Waters — Outsourcing the Decryption of ABE Ciphertexts (USENIX Security 2011)",
        csv: include_str!("../data/papers/ghw11.csv"),
        md: include_str!("../data/papers/ghw11.md"),
    },
    Paper {
        id: "wang14",
        title: "Wang, Zhang, Schooler, Ion — Performance Evaluation of Attribute-Based Encryption: Toward Data Privacy in the IoT (ICC 2014)",
        csv: include_str!("../data/papers/wang14.csv"),
        md: include_str!("../data/papers/wang14.md"),
    },
    Paper {
        id: "chhatrapati22",
        title: "Chhatrapati, Hohenberger, Trombo, Vusirikala — A Performance Evaluation of Pairing-Based Broadcast Encryption Systems (ACNS 2022)",
        csv: include_str!("../data/papers/chhatrapati22.csv"),
        md: include_str!("../data/papers/chhatrapati22.md"),
    },
    Paper {
        id: "detabe",
        title: "DET-ABE vs AES4SeC — digital envelopes for cloud file sharing",
        csv: include_str!("../data/papers/detabe.csv"),
        md: include_str!("../data/papers/detabe.md"),
    },
    Paper {
        id: "perazzo",
        title: "Perazzo et al. — Performance evaluation of attribute-based encryption on constrained IoT devices",
        csv: include_str!("../data/papers/perazzo.csv"),
        md: include_str!("../data/papers/perazzo.md"),
    },
    Paper {
        id: "rw22",
        title: "Riepel, Wee — FABEO: Fast Attribute-Based Encryption with Optimal Security (CCS 2022)",
        csv: include_str!("../data/papers/rw22.csv"),
        md: include_str!("../data/papers/rw22.md"),
    },
];

pub fn paper(id: &str) -> Option<&'static Paper> {
    PAPERS.iter().find(|p| p.id == id)
}

/// Splits one CSV line (RFC 4180 quoting, no embedded newlines).
pub fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

impl Paper {
    /// The comment lines at the top of the data file (citation, machine).
    pub fn remarks(&self) -> Vec<&'static str> {
        self.csv
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| l.trim_start_matches('#').trim())
            .collect()
    }

    /// Every published value; a malformed line is an error naming it (the
    /// data files are checked by a unit test, so this never fails at run time).
    pub fn values(&self) -> Result<Vec<Published>, String> {
        let mut out = Vec::new();
        let mut header_seen = false;
        for (i, line) in self.csv.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            if !header_seen {
                header_seen = true;
                if t.starts_with("source,") {
                    continue;
                }
            }
            let f = split_csv(t);
            if f.len() < 9 {
                return Err(format!(
                    "{}.csv line {}: {} fields, 9 expected",
                    self.id,
                    i + 1,
                    f.len()
                ));
            }
            let unit = f[7].trim();
            let formula_ok = unit == "count" || unit == "big-O";
            let value: f64 = match f[6].trim().parse() {
                Ok(v) => v,
                Err(_) if formula_ok => f64::NAN,
                Err(_) => {
                    return Err(format!(
                        "{}.csv line {}: value {:?} is not a number",
                        self.id,
                        i + 1,
                        f[6]
                    ));
                }
            };
            let x = match f[5].trim() {
                "" => None,
                s => Some(s.parse::<f64>().map_err(|_| {
                    format!("{}.csv line {}: x {:?} is not a number", self.id, i + 1, s)
                })?),
            };
            out.push(Published {
                source: f[0].trim().to_string(),
                scheme: f[1].trim().to_string(),
                setting: f[2].trim().to_string(),
                operation: f[3].trim().to_string(),
                x_name: f[4].trim().to_string(),
                x,
                value,
                text: f[6].trim().to_string(),
                unit: unit.to_string(),
                read_from: f[8].trim().to_string(),
            });
        }
        Ok(out)
    }

    /// The rule of the claim `id`, written in the paper's `.md` before
    /// anything was measured, as `Rule {id}: holds if …; does not hold if …`
    /// (continued on the following indented lines).
    pub fn rule(&self, id: &str) -> Option<String> {
        self.tagged("Rule", id)
    }

    /// Where the paper makes the claim `id` and what it says, as `Claim {id}:
    /// [§…] …` in the paper's `.md` (before its rule).
    pub fn claim(&self, id: &str) -> Option<(String, String)> {
        let stated = self.tagged("Claim", id)?;
        let (source, text) = stated.strip_prefix('[')?.split_once("] ")?;
        Some((source.to_string(), text.to_string()))
    }

    /// What a model-based verdict rests on, as `Model {id}: …` in the
    /// paper's `.md` (after its rule): the inputs that decide it. `None` for
    /// a claim judged on measurements alone.
    pub fn model(&self, id: &str) -> Option<String> {
        self.tagged("Model", id)
    }

    /// The text of `{tag} {id}:` and its indented continuation lines.
    fn tagged(&self, tag: &str, id: &str) -> Option<String> {
        let tag = format!("{tag} {{{id}}}:");
        let mut lines = self.md.lines();
        let first = lines.by_ref().find_map(|l| {
            let i = l.find(&tag)?;
            Some(l[i + tag.len()..].trim().to_string())
        })?;
        let mut text = first;
        for l in lines {
            let t = l.trim();
            if !l.starts_with("    ") || t.is_empty() {
                break;
            }
            text.push(' ');
            text.push_str(t);
        }
        Some(text)
    }

    /// Every claim id with a rule in the paper's `.md`.
    pub fn rule_ids(&self) -> Vec<&'static str> {
        self.tag_ids("Rule {")
    }

    /// Every claim id with a model in the paper's `.md`.
    pub fn model_ids(&self) -> Vec<&'static str> {
        self.tag_ids("Model {")
    }

    fn tag_ids(&self, open: &str) -> Vec<&'static str> {
        self.md
            .match_indices(open)
            .filter_map(|(i, _)| {
                let rest = &self.md[i + open.len()..];
                rest.find("}:").map(|j| &rest[..j])
            })
            .collect()
    }

    /// Values matching `pred`, in file order.
    pub fn find(&self, pred: impl Fn(&Published) -> bool) -> Vec<Published> {
        self.values()
            .unwrap_or_default()
            .into_iter()
            .filter(|p| pred(p))
            .collect()
    }
}

/// Converts a published value to milliseconds or bytes (the units of our
/// rows), or `None` for a unit that is neither a time nor a size.
pub fn to_base_unit(value: f64, unit: &str) -> Option<f64> {
    let u = unit.trim().to_ascii_lowercase();
    Some(match u.as_str() {
        "ms" => value,
        "s" | "sec" | "seconds" => value * 1e3,
        "min" | "minutes" => value * 60e3,
        "h" | "hours" => value * 3.6e6,
        "us" | "µs" => value / 1e3,
        "b" | "bytes" | "byte" => value,
        "kb" => value * 1e3,
        "kib" => value * 1024.0,
        "mb" => value * 1e6,
        "mib" => value * 1024.0 * 1024.0,
        "gb" => value * 1e9,
        "bits" => value / 8.0,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_data_file_parses_and_has_values() {
        for p in PAPERS {
            let v = p.values().unwrap_or_else(|e| panic!("{e}"));
            assert!(!v.is_empty(), "{} has no published values", p.id);
            assert!(!p.remarks().is_empty(), "{} has no citation line", p.id);
            for x in &v {
                assert!(
                    !x.source.is_empty() && !x.unit.is_empty(),
                    "{}: {x:?}",
                    p.id
                );
            }
        }
    }

    #[test]
    fn csv_split_handles_quotes() {
        assert_eq!(split_csv(r#"a,"b,c",d"#), vec!["a", "b,c", "d"]);
        assert_eq!(split_csv(r#""x ""y""",,"#), vec![r#"x "y""#, "", ""]);
    }

    #[test]
    fn units_convert() {
        assert_eq!(to_base_unit(2.0, "s"), Some(2000.0));
        assert_eq!(to_base_unit(1.5, "KB"), Some(1500.0));
        assert_eq!(to_base_unit(3.0, "mJ"), None);
    }
}
