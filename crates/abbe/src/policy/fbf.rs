//! AES4SeC Formatted Boolean Formula syntax: `(F1, F2, ..., Fn, t)` is a
//! t-of-n gate over the formulas `F1..Fn`; leaves are attribute names (bare or
//! quoted, see the infix syntax; pure numbers are not names).
//! Example: `((A,B,2),(C,D,1),2)` is `(A and B) and (C or D)`.

use super::ast::{make_gate, validate_name, Policy};
use super::error::{ErrorKind, PolicyError};
use super::lex::{tokenize, Cursor, Tok};
use super::limits::MAX_DEPTH;
use super::parse::{finish, nesting_error};

/// Parses the FBF syntax.
pub(crate) fn parse_fbf(input: &str) -> Result<Policy, PolicyError> {
    let toks = tokenize(input)?;
    let mut cur = Cursor::new(toks, input.len());
    let p = node(&mut cur, 0)?;
    if cur.peek().tok != Tok::End {
        return Err(cur.error("end of input"));
    }
    finish(p)
}

fn node(cur: &mut Cursor<'_>, depth: usize) -> Result<Policy, PolicyError> {
    let t = cur.peek().clone();
    if t.tok != Tok::LParen {
        let Some(name) = t.as_plain_name() else {
            return Err(cur.error("an attribute name or '('"));
        };
        cur.bump();
        validate_name(&name).map_err(|e| e.with_position(t.pos))?;
        return Ok(Policy::Attr(name));
    }
    if depth + 1 > MAX_DEPTH {
        return Err(nesting_error(t.pos));
    }
    cur.bump();
    let mut items = Vec::new();
    loop {
        if let (Tok::Number(k), Tok::RParen) = (&cur.peek().tok, &cur.peek2().tok) {
            let k = *k;
            let kpos = cur.peek().pos;
            if items.is_empty() {
                return Err(cur.error("a formula before the threshold"));
            }
            cur.bump();
            cur.bump();
            let k = usize::try_from(k).unwrap_or(usize::MAX);
            return make_gate(k, items).map_err(|e| e.with_position(kpos));
        }
        items.push(node(cur, depth + 1)?);
        if cur.peek().tok != Tok::Comma {
            return Err(PolicyError::at(
                ErrorKind::Syntax,
                cur.peek().pos,
                "',' followed by a formula or the threshold",
                cur.peek().describe(),
            ));
        }
        cur.bump();
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
            Policy::parse_fbf("((A,B,2),(C,D,1),2)"),
            Ok(Policy::And(vec![
                a("A"),
                a("B"),
                Policy::Or(vec![a("C"), a("D")])
            ]))
        );
        assert_eq!(
            Policy::parse_fbf(" ( A , \"b c\" , E , 2 ) "),
            Ok(Policy::Threshold {
                k: 2,
                children: vec![a("A"), a("b c"), a("E")]
            })
        );
        assert_eq!(Policy::parse_fbf("(A, 1)"), Ok(a("A")));
        assert_eq!(Policy::parse_fbf("A"), Ok(a("A")));
    }

    #[test]
    fn errors() {
        assert_eq!(
            Policy::parse_fbf("(A,B,3)").unwrap_err().position(),
            Some(5)
        );
        assert!(Policy::parse_fbf("(A,B)").is_err());
        assert!(Policy::parse_fbf("(2)").is_err());
        assert!(Policy::parse_fbf("(A,B,2").is_err());
        assert!(Policy::parse_fbf("(A,B,2))").is_err());
        assert!(Policy::parse_fbf("(1,B,2)").is_err());
        assert!(Policy::parse_fbf("").is_err());
        let deep = "(".repeat(100_000);
        assert_eq!(
            Policy::parse_fbf(&deep).unwrap_err().kind(),
            ErrorKind::Limit
        );
        let ok = "(".repeat(64) + "A" + &",1)".repeat(64);
        assert_eq!(Policy::parse_fbf(&ok), Ok(a("A")));
        let bad = "(".repeat(65) + "A" + &",1)".repeat(65);
        assert_eq!(
            Policy::parse_fbf(&bad).unwrap_err().kind(),
            ErrorKind::Limit
        );
    }
}
