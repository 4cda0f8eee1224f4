//! DET-ABE postfix syntax: whitespace-separated tokens, where `KofN` (or
//! `K-of-N`, case-insensitive `of`) pops the last `N` operands and pushes a
//! K-of-N gate over them (in their original order); every other token is an
//! attribute name (any non-whitespace characters except `#`).
//! Example: `A B 2of2 C 1of2` is `(A and B) or C`.

use super::ast::{make_gate, validate_name, Policy};
use super::error::{ErrorKind, PolicyError};
use super::lex::{check_input_len, truncate};
use super::limits::{MAX_DEPTH, MAX_LEAVES};
use super::parse::{finish, split_postfix_gate};

/// Iterates over whitespace-separated words with their byte offsets.
fn words(input: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = input;
    let mut offset = 0usize;
    core::iter::from_fn(move || {
        let trimmed = rest.trim_start();
        offset += rest.len() - trimmed.len();
        if trimmed.is_empty() {
            return None;
        }
        let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
        let (w, r) = trimmed.split_at(end);
        let start = offset;
        offset += w.len();
        rest = r;
        Some((start, w))
    })
}

fn parse_count(s: &str, pos: usize) -> Result<usize, PolicyError> {
    s.parse::<usize>().map_err(|_| {
        PolicyError::at(
            ErrorKind::Number,
            pos,
            "a gate size that fits in a machine word",
            format!("'{}'", truncate(s, 40)),
        )
    })
}

/// Parses the postfix syntax.
pub(crate) fn parse_postfix(input: &str) -> Result<Policy, PolicyError> {
    check_input_len(input)?;
    let mut stack: Vec<(Policy, usize)> = Vec::new();
    let mut leaves = 0usize;
    for (pos, w) in words(input) {
        let found = || format!("'{}'", truncate(w, 40));
        let Some((ks, ns)) = split_postfix_gate(w) else {
            validate_name(w).map_err(|e| e.with_position(pos))?;
            leaves += 1;
            if leaves > MAX_LEAVES {
                return Err(PolicyError::at(
                    ErrorKind::Limit,
                    pos,
                    format!("at most {MAX_LEAVES} leaves"),
                    format!("leaf number {leaves}"),
                ));
            }
            stack.push((Policy::Attr(w.to_string()), 0));
            continue;
        };
        let k = parse_count(ks, pos)?;
        let n = parse_count(ns, pos)?;
        if n == 0 || n > stack.len() {
            return Err(PolicyError::at(
                ErrorKind::Syntax,
                pos,
                format!("a gate over 1 to {} operands", stack.len()),
                found(),
            ));
        }
        let operands = stack.split_off(stack.len() - n);
        let is_and = k == n;
        let is_or = k == 1 && !is_and;
        let depth = if n == 1 {
            operands.first().map_or(0, |(_, d)| *d)
        } else {
            1 + operands
                .iter()
                .map(|(p, d)| match p {
                    Policy::And(_) if is_and => d.saturating_sub(1),
                    Policy::Or(_) if is_or => d.saturating_sub(1),
                    _ => *d,
                })
                .max()
                .unwrap_or(0)
        };
        if depth > MAX_DEPTH {
            return Err(PolicyError::at(
                ErrorKind::Limit,
                pos,
                format!("at most {MAX_DEPTH} levels of nesting"),
                format!("level {depth}"),
            ));
        }
        let children = operands.into_iter().map(|(p, _)| p).collect();
        let gate = make_gate(k, children).map_err(|e| e.with_position(pos))?;
        stack.push((gate, depth));
    }
    let len = stack.len();
    match (stack.pop(), len) {
        (Some((p, _)), 1) => finish(p),
        (None, _) => Err(PolicyError::at(
            ErrorKind::Syntax,
            input.len(),
            "a postfix policy",
            "end of input",
        )),
        (Some(_), n) => Err(PolicyError::at(
            ErrorKind::Syntax,
            input.len(),
            "a single policy (a final gate over the remaining operands)",
            format!("{n} operands left on the stack"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> Policy {
        Policy::attr(s)
    }

    #[test]
    fn examples() {
        assert_eq!(
            Policy::parse_postfix("A B 2of2 C 1of2"),
            Ok(Policy::Or(vec![Policy::And(vec![a("A"), a("B")]), a("C")]))
        );
        assert_eq!(
            Policy::parse_postfix("  A\tB 2-of-2\nC 1-OF-2 "),
            Policy::parse_postfix("A B 2of2 C 1of2")
        );
        assert_eq!(
            Policy::parse_postfix("A B C 2of3"),
            Ok(Policy::Threshold {
                k: 2,
                children: vec![a("A"), a("B"), a("C")]
            })
        );
        assert_eq!(
            Policy::parse_postfix("A B 2of2 C 2of2"),
            Ok(Policy::And(vec![a("A"), a("B"), a("C")]))
        );
        assert_eq!(Policy::parse_postfix("A"), Ok(a("A")));
        assert_eq!(Policy::parse_postfix("A 1of1"), Ok(a("A")));
    }

    #[test]
    fn errors() {
        let e = Policy::parse_postfix("A B 2of3").unwrap_err();
        assert_eq!(e.position(), Some(4));
        let e = Policy::parse_postfix("A B 3of2").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Threshold);
        assert_eq!(e.position(), Some(4));
        assert!(Policy::parse_postfix("A B 0of2").is_err());
        assert!(Policy::parse_postfix("A B").is_err());
        assert!(Policy::parse_postfix("").is_err());
        assert!(Policy::parse_postfix("A#1").is_err());
        assert!(Policy::parse_postfix("A B 1of99999999999999999999999").is_err());
    }

    #[test]
    fn limits() {
        // A chain of alternating gates 100 deep.
        let mut s = String::from("X0");
        for i in 1..100 {
            s.push_str(&format!(" X{i} {}of2", if i % 2 == 0 { 2 } else { 1 }));
        }
        assert_eq!(
            Policy::parse_postfix(&s).unwrap_err().kind(),
            ErrorKind::Limit
        );
        // A chain of ANDs flattens, so it is fine.
        let mut s = String::from("X0");
        for i in 1..100 {
            s.push_str(&format!(" X{i} 2of2"));
        }
        assert_eq!(Policy::parse_postfix(&s).map(|p| p.depth()), Ok(1));
        let many = vec!["x"; 4097].join(" ");
        assert_eq!(
            Policy::parse_postfix(&many).unwrap_err().kind(),
            ErrorKind::Limit
        );
        let huge = "x ".repeat(40_000);
        assert_eq!(
            Policy::parse_postfix(&huge).unwrap_err().kind(),
            ErrorKind::Limit
        );
    }
}
