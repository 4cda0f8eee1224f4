//! Canonical infix printer.
//!
//! `Policy::parse(&p.to_string()) == Ok(p)` holds for every canonical
//! (normalised) policy: names are quoted when they are not valid bare names
//! (or are keywords / pure numbers), `Or` operands of an `And` are
//! parenthesised, thresholds print as `2 of (a, b, c)` and comparisons as
//! `age >= 18` with a `#k` suffix only when `k != 32`.

use core::fmt;

use super::ast::Policy;
use super::lex::is_bare_byte;
use super::limits::DEFAULT_WIDTH;

/// Whether `name` can be printed without quotes in infix syntax.
pub fn is_bare_name(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(is_bare_byte)
        && !name.bytes().all(|b| b.is_ascii_digit())
        && !["and", "or", "of"]
            .iter()
            .any(|k| name.eq_ignore_ascii_case(k))
}

/// Returns `name` as it must be written in infix syntax (quoted and escaped
/// if it is not a valid bare name).
pub fn quote_name(name: &str) -> String {
    if is_bare_name(name) {
        return name.to_string();
    }
    let mut s = String::with_capacity(name.len() + 2);
    s.push('"');
    for c in name.chars() {
        if c == '"' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

fn write_list(
    f: &mut fmt::Formatter<'_>,
    children: &[Policy],
    sep: &str,
    paren_or: bool,
) -> fmt::Result {
    for (i, c) in children.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        let wrap = match c {
            Policy::Or(_) => paren_or,
            Policy::And(v) | Policy::Threshold { children: v, .. } => v.is_empty(),
            _ => false,
        };
        if wrap {
            write!(f, "({c})")?;
        } else {
            write!(f, "{c}")?;
        }
    }
    Ok(())
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Attr(a) => f.write_str(&quote_name(a)),
            Policy::Compare {
                attr,
                op,
                value,
                bits,
            } => {
                write!(f, "{} {} {value}", quote_name(attr), op.symbol())?;
                if *bits != DEFAULT_WIDTH {
                    write!(f, "#{bits}")?;
                }
                Ok(())
            }
            Policy::And(c) if c.is_empty() => f.write_str("()"),
            Policy::Or(c) if c.is_empty() => f.write_str("()"),
            Policy::And(c) => write_list(f, c, " and ", true),
            Policy::Or(c) => write_list(f, c, " or ", false),
            Policy::Threshold { k, children } => {
                write!(f, "{k} of (")?;
                write_list(f, children, ", ", false)?;
                f.write_str(")")
            }
        }
    }
}
