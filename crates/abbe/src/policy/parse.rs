//! Infix policy syntax.
//!
//! ```text
//! expr      := and_expr (OR and_expr)*            OR  := 'or' | '||'
//! and_expr  := unary (AND unary)*                 AND := 'and' | '&&'
//! unary     := '(' expr ')'
//!            | NUMBER 'of' '(' expr (',' expr)* ')'
//!            | NOT unary                           NOT := 'not'
//!            | name [cmp NUMBER ['#' NUMBER]]
//! cmp       := '<' | '<=' | '>' | '>=' | '=' | '==' | '!='
//! name      := bare | '"' (char | '\"' | '\\')* '"'
//! bare      := [A-Za-z0-9_.:/@-]+  that is not a pure number, 'and' or 'or'
//! ```
//!
//! Keywords are case-insensitive; NOT binds tighter than AND, AND tighter
//! than OR. A negation is pushed down to the comparisons as it is read
//! ([`Policy::negate`]), so the result holds no NOT: `not (a and x > 3)` is
//! refused (a plain attribute cannot be negated), `not (x > 3 or y = 1)`
//! is `x <= 3 and y != 1`.

use super::ast::{
    check_leaf_limit, depth_error, make_gate, validate_compare, validate_name, Policy,
};
use super::error::{ErrorKind, PolicyError};
use super::lex::{tokenize, Cursor, Tok};
use super::limits::{DEFAULT_WIDTH, MAX_DEPTH};

/// Final checks common to all parsers: gate depth and expanded leaf count.
pub(crate) fn finish(p: Policy) -> Result<Policy, PolicyError> {
    let d = p.depth();
    if d > MAX_DEPTH {
        return Err(depth_error(d));
    }
    check_leaf_limit(&p)?;
    Ok(p)
}

/// Nesting error at byte `pos`.
pub(crate) fn nesting_error(pos: usize) -> PolicyError {
    PolicyError::at(
        ErrorKind::Limit,
        pos,
        format!("at most {MAX_DEPTH} levels of nesting"),
        format!("level {}", MAX_DEPTH + 1),
    )
}

struct Infix<'a> {
    cur: Cursor<'a>,
    depth: usize,
}

/// Parses the infix syntax.
pub(crate) fn parse_infix(input: &str) -> Result<Policy, PolicyError> {
    let toks = tokenize(input)?;
    let mut p = Infix {
        cur: Cursor::new(toks, input.len()),
        depth: 0,
    };
    let pol = p.expr()?;
    if p.cur.peek().tok != Tok::End {
        return Err(p.cur.error("'and', 'or' or end of input"));
    }
    finish(pol)
}

impl Infix<'_> {
    fn enter(&mut self, pos: usize) -> Result<(), PolicyError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(nesting_error(pos));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Policy, PolicyError> {
        let pos = self.cur.peek().pos;
        let mut items = vec![self.and_expr()?];
        while self.cur.peek().tok == Tok::Or {
            self.cur.bump();
            items.push(self.and_expr()?);
        }
        make_gate(1, items).map_err(|e| e.with_position(pos))
    }

    fn and_expr(&mut self) -> Result<Policy, PolicyError> {
        let pos = self.cur.peek().pos;
        let mut items = vec![self.unary()?];
        while self.cur.peek().tok == Tok::And {
            self.cur.bump();
            items.push(self.unary()?);
        }
        make_gate(items.len(), items).map_err(|e| e.with_position(pos))
    }

    fn unary(&mut self) -> Result<Policy, PolicyError> {
        let t = self.cur.peek().clone();
        match &t.tok {
            Tok::LParen => {
                self.enter(t.pos)?;
                self.cur.bump();
                let e = self.expr()?;
                self.cur.expect(&Tok::RParen, "')'")?;
                self.depth -= 1;
                Ok(e)
            }
            Tok::Number(k) if matches!(&self.cur.peek2().tok, Tok::Word(w) if w.eq_ignore_ascii_case("of")) =>
            {
                self.cur.bump();
                self.cur.bump();
                let lp = self.cur.peek().pos;
                self.cur.expect(&Tok::LParen, "'(' after 'of'")?;
                self.enter(lp)?;
                let mut items = vec![self.expr()?];
                while self.cur.peek().tok == Tok::Comma {
                    self.cur.bump();
                    items.push(self.expr()?);
                }
                self.cur.expect(&Tok::RParen, "',' or ')'")?;
                self.depth -= 1;
                let k = usize::try_from(*k).unwrap_or(usize::MAX);
                make_gate(k, items).map_err(|e| e.with_position(t.pos))
            }
            Tok::Word(name)
                if name.eq_ignore_ascii_case("not")
                    && matches!(
                        self.cur.peek2().tok,
                        Tok::Word(_) | Tok::Quoted(_) | Tok::LParen | Tok::Number(_)
                    ) =>
            {
                // `not x` is a negation, pushed down to comparisons at once
                // (`Policy::negate`); an attribute named "not" stays usable
                // on its own or quoted.
                self.enter(t.pos)?;
                self.cur.bump();
                let negated = self.unary()?.negate();
                self.depth -= 1;
                negated.map_err(|e| e.with_position(t.pos))
            }
            Tok::Word(name) | Tok::Quoted(name) => {
                self.cur.bump();
                validate_name(name).map_err(|e| e.with_position(t.pos))?;
                let Tok::Cmp(op) = self.cur.peek().tok else {
                    return Ok(Policy::Attr(name.clone()));
                };
                self.cur.bump();
                let vt = self.cur.bump();
                let Tok::Number(value) = vt.tok else {
                    return Err(PolicyError::at(
                        ErrorKind::Syntax,
                        vt.pos,
                        "an unsigned integer",
                        vt.describe(),
                    ));
                };
                let mut bits = DEFAULT_WIDTH;
                if self.cur.peek().tok == Tok::Hash {
                    self.cur.bump();
                    let bt = self.cur.bump();
                    match bt.tok {
                        Tok::Number(b @ 1..=64) => bits = b as u8,
                        _ => {
                            return Err(PolicyError::at(
                                ErrorKind::Number,
                                bt.pos,
                                "a bit width between 1 and 64",
                                bt.describe(),
                            ))
                        }
                    }
                }
                validate_compare(name, op, value, bits).map_err(|e| e.with_position(vt.pos))?;
                Ok(Policy::Compare {
                    attr: name.clone(),
                    op,
                    value,
                    bits,
                })
            }
            _ => Err(self
                .cur
                .error("an attribute name, '(' or a threshold 'K of (...)'")),
        }
    }
}

/// Whether a whitespace-separated token is a postfix gate `NofM` / `N-of-M`.
pub(crate) fn split_postfix_gate(tok: &str) -> Option<(&str, &str)> {
    let lower_pos = tok
        .char_indices()
        .find(|(_, c)| !c.is_ascii_digit())
        .map(|(i, _)| i)?;
    let (k, rest) = tok.split_at(lower_pos);
    let n = if let Some(r) = strip_prefix_ci(rest, "-of-") {
        r
    } else {
        strip_prefix_ci(rest, "of")?
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(k) && digits(n)).then_some((k, n))
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    if head.eq_ignore_ascii_case(prefix) {
        s.get(prefix.len()..)
    } else {
        None
    }
}

/// Whether `s` looks like FBF: starts with `(` and ends with `, <digits> )`.
fn looks_like_fbf(s: &str) -> bool {
    let t = s.trim();
    let Some(inner) = t.strip_prefix('(').and_then(|x| x.strip_suffix(')')) else {
        return false;
    };
    let inner = inner.trim_end();
    let without_digits = inner.trim_end_matches(|c: char| c.is_ascii_digit());
    without_digits.len() < inner.len() && without_digits.trim_end().ends_with(',')
}

/// Syntax auto-detection used by `Policy::parse_any`.
pub(crate) fn parse_any(input: &str) -> Result<Policy, PolicyError> {
    super::lex::check_input_len(input)?;
    if looks_like_fbf(input) {
        if let Ok(p) = super::fbf::parse_fbf(input) {
            return Ok(p);
        }
    }
    let mut has_gate = false;
    let mut has_infix = false;
    for w in input.split_whitespace() {
        if split_postfix_gate(w).is_some() {
            has_gate = true;
        }
        if ["and", "or", "of"]
            .iter()
            .any(|k| w.eq_ignore_ascii_case(k))
            || w.contains("&&")
            || w.contains("||")
            || w.contains('(')
            || w.contains(')')
        {
            has_infix = true;
        }
    }
    if has_gate && !has_infix {
        super::postfix::parse_postfix(input)
    } else {
        parse_infix(input)
    }
}

#[cfg(test)]
mod tests {
    use super::super::CmpOp;
    use super::*;

    fn a(s: &str) -> Policy {
        Policy::attr(s)
    }

    #[test]
    fn basic_precedence() {
        assert_eq!(
            Policy::parse("a and b or c"),
            Ok(Policy::Or(vec![Policy::And(vec![a("a"), a("b")]), a("c")]))
        );
        assert_eq!(
            Policy::parse("a || b && c"),
            Ok(Policy::Or(vec![a("a"), Policy::And(vec![a("b"), a("c")])]))
        );
        assert_eq!(
            Policy::parse("(a OR b) AnD c"),
            Ok(Policy::And(vec![Policy::Or(vec![a("a"), a("b")]), a("c")]))
        );
        assert_eq!(
            Policy::parse("a and (b and c) and ((d))"),
            Ok(Policy::And(vec![a("a"), a("b"), a("c"), a("d")]))
        );
        assert_eq!(Policy::parse("  x  "), Ok(a("x")));
    }

    #[test]
    fn example_from_brief() {
        let p =
            Policy::parse("(doctor and cardiology) or 2 of (nurse, ward25, age >= 30)").unwrap();
        assert_eq!(
            p,
            Policy::Or(vec![
                Policy::And(vec![a("doctor"), a("cardiology")]),
                Policy::Threshold {
                    k: 2,
                    children: vec![
                        a("nurse"),
                        a("ward25"),
                        Policy::Compare {
                            attr: "age".into(),
                            op: CmpOp::Ge,
                            value: 30,
                            bits: 32
                        }
                    ]
                }
            ])
        );
        assert_eq!(
            p.to_string(),
            "doctor and cardiology or 2 of (nurse, ward25, age >= 30)"
        );
        assert_eq!(Policy::parse(&p.to_string()), Ok(p));
    }

    #[test]
    fn thresholds_normalise() {
        assert_eq!(
            Policy::parse("3 of (a, b, c)"),
            Ok(Policy::And(vec![a("a"), a("b"), a("c")]))
        );
        assert_eq!(
            Policy::parse("1 OF (a, b or c)"),
            Ok(Policy::Or(vec![a("a"), a("b"), a("c")]))
        );
        assert_eq!(Policy::parse("1 of (a)"), Ok(a("a")));
        let e = Policy::parse("x and 4 of (a, b, c)").unwrap_err();
        assert_eq!(e.position(), Some(6));
        assert_eq!(e.kind(), ErrorKind::Threshold);
        assert!(Policy::parse("0 of (a, b)").is_err());
        assert!(Policy::parse("99999999999999999999 of (a, b)").is_err());
    }

    #[test]
    fn names_and_quotes() {
        assert_eq!(
            Policy::parse(r#""head of ward" and "a\"b\\c""#),
            Ok(Policy::And(vec![a("head of ward"), a("a\"b\\c")]))
        );
        assert_eq!(
            Policy::parse("dept:cardio/x@y.z-1 or _a1"),
            Ok(Policy::Or(vec![a("dept:cardio/x@y.z-1"), a("_a1")]))
        );
        assert_eq!(Policy::parse("2of3"), Ok(a("2of3")));
        assert_eq!(
            Policy::parse("\"and\" and \"42\""),
            Ok(Policy::And(vec![a("and"), a("42")]))
        );
        assert!(Policy::parse("42").is_err());
        assert!(Policy::parse("\"a#b\"").is_err());
        assert!(Policy::parse("\"\"").is_err());
        assert!(Policy::parse("\"abc").is_err());
        assert!(Policy::parse(r#""a\n""#).is_err());
        assert!(Policy::parse("héllo").is_err());
        assert_eq!(Policy::parse("\"héllo\""), Ok(a("héllo")));
    }

    #[test]
    fn comparisons() {
        let c = |op, value, bits| Policy::Compare {
            attr: "age".into(),
            op,
            value,
            bits,
        };
        assert_eq!(Policy::parse("age >= 18"), Ok(c(CmpOp::Ge, 18, 32)));
        assert_eq!(Policy::parse("age>18"), Ok(c(CmpOp::Gt, 18, 32)));
        assert_eq!(Policy::parse("age <= 18"), Ok(c(CmpOp::Le, 18, 32)));
        assert_eq!(Policy::parse("age < 18"), Ok(c(CmpOp::Lt, 18, 32)));
        assert_eq!(Policy::parse("age = 42"), Ok(c(CmpOp::Eq, 42, 32)));
        assert_eq!(Policy::parse("age == 42"), Ok(c(CmpOp::Eq, 42, 32)));
        assert_eq!(Policy::parse("age < 5#4"), Ok(c(CmpOp::Lt, 5, 4)));
        assert_eq!(Policy::parse("age < 5 # 64"), Ok(c(CmpOp::Lt, 5, 64)));
        assert_eq!(c(CmpOp::Lt, 5, 4).to_string(), "age < 5#4");
        assert_eq!(c(CmpOp::Eq, 5, 32).to_string(), "age = 5");
        let e = Policy::parse("level < 16#4").unwrap_err();
        assert_eq!(e.position(), Some(8));
        assert_eq!(e.kind(), ErrorKind::Number);
        assert!(Policy::parse("age < 5#0").is_err());
        assert!(Policy::parse("age < 5#65").is_err());
        assert!(Policy::parse("age < 4294967296").is_err());
        assert!(Policy::parse("age < 4294967296#33").is_ok());
        assert!(Policy::parse("age < 0").is_err());
        assert!(Policy::parse("age >= 0").is_err());
        assert!(Policy::parse("age <= 18446744073709551615#64").is_err());
        assert!(Policy::parse("age > 18446744073709551615#64").is_err());
        assert!(Policy::parse("age > x").is_err());
        assert!(Policy::parse("age > 18 #").is_err());
    }

    #[test]
    fn negations_are_pushed_down_to_comparisons() {
        let parsed = |text: &str| Policy::parse(text).unwrap().to_string();
        assert_eq!(parsed("not (ward = 7)"), "ward != 7");
        assert_eq!(parsed("ward != 7"), "ward != 7");
        assert_eq!(
            parsed("doctor and not (age < 18 or level >= 3#4)"),
            "doctor and age >= 18 and level < 3#4"
        );
        assert_eq!(
            parsed("not (age > 30 and ward = 2)"),
            "age <= 30 or ward != 2"
        );
        // not (2 of 3) is 2 of the 3 negated.
        assert_eq!(
            parsed("NOT 2 of (a1 = 1, a2 = 2, a3 = 3)"),
            "2 of (a1 != 1, a2 != 2, a3 != 3)"
        );
        assert_eq!(parsed("not not (x = 1)"), "x = 1");
        for text in [
            "not (ward != 7)",
            "ward != 0",
            "ward != 18446744073709551615#64",
        ] {
            let p = Policy::parse(text).unwrap();
            assert_eq!(Policy::parse(&p.to_string()), Ok(p), "{text}");
        }
    }

    #[test]
    fn a_negated_plain_attribute_is_refused_where_it_is_written() {
        for (text, at) in [
            ("doctor and not nurse", 11),
            ("NOT (a or b)", 0),
            ("a or not \"b c\"", 5),
            ("x = 1 and not (x = 2 and intern)", 10),
        ] {
            let e = Policy::parse(text).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Syntax, "{text}");
            assert_eq!(e.position(), Some(at), "{text}");
            assert!(
                e.to_string()
                    .contains("no scheme can negate a plain attribute"),
                "{text}: {e}"
            );
        }
        // An attribute named "not" is still an attribute.
        assert!(Policy::parse("doctor and not").is_ok());
        assert!(Policy::parse("\"not\" and nurse").is_ok());
        // A tower of negations is held to the nesting limit.
        let tower = "not ".repeat(100_000) + "(x = 1)";
        assert_eq!(Policy::parse(&tower).unwrap_err().kind(), ErrorKind::Limit);
    }

    #[test]
    fn error_positions_and_display() {
        let e = Policy::parse("(a or b and c").unwrap_err();
        assert_eq!(e.position(), Some(13));
        assert_eq!(
            e.to_string(),
            "policy error at byte 13: expected ')' but found end of input"
        );
        let e = Policy::parse("(a or b) c").unwrap_err();
        assert_eq!(e.position(), Some(9));
        let e = Policy::parse("2 of (a b c) and x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "policy error at byte 8: expected ',' or ')' but found 'b'"
        );
        let e = Policy::parse("a and and b").unwrap_err();
        assert_eq!(e.position(), Some(6));
        assert!(e.to_string().contains("found 'and'"));
        let e = Policy::parse("2 of (x, y  and").unwrap_err();
        assert_eq!(e.position(), Some(15));
        assert!(Policy::parse("").is_err());
        assert!(Policy::parse("a $ b").unwrap_err().position() == Some(2));
        let e = Policy::parse("(a or b) and (c").unwrap_err();
        assert_eq!(
            e.to_string(),
            "policy error at byte 15: expected ')' but found end of input"
        );
        let e = Policy::parse("a or (b c)").unwrap_err();
        assert_eq!(
            e.to_string(),
            "policy error at byte 8: expected ')' but found 'c'"
        );
    }

    #[test]
    fn limits() {
        let deep = "(".repeat(100_000);
        let e = Policy::parse(&deep).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Limit);
        let deep = "(".repeat(60_000) + "a" + &")".repeat(60_000);
        assert_eq!(Policy::parse(&deep).unwrap_err().kind(), ErrorKind::Limit);
        let ok = "(".repeat(64) + "a" + &")".repeat(64);
        assert_eq!(Policy::parse(&ok), Ok(a("a")));
        let bad = "(".repeat(65) + "a" + &")".repeat(65);
        assert_eq!(Policy::parse(&bad).unwrap_err().position(), Some(64));
        let nested_thr = "2 of (a, ".repeat(70) + "b" + &", c)".repeat(70);
        assert_eq!(
            Policy::parse(&nested_thr).unwrap_err().kind(),
            ErrorKind::Limit
        );
        let huge = "a or ".repeat(20_000) + "a";
        let e = Policy::parse(&huge).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Limit);
        assert!(e.to_string().contains("65536"));
        let many = vec!["x"; 4097].join(" or ");
        assert_eq!(Policy::parse(&many).unwrap_err().kind(), ErrorKind::Limit);
        let ok = vec!["x"; 4096].join(" or ");
        assert!(Policy::parse(&ok).is_ok());
        let cmp = vec!["age > 1431655765"; 200].join(" or ");
        assert_eq!(Policy::parse(&cmp).unwrap_err().kind(), ErrorKind::Limit);
        let long = "n".repeat(257);
        assert_eq!(Policy::parse(&long).unwrap_err().kind(), ErrorKind::Name);
        let alternating: String = (0..70)
            .map(|i| if i % 2 == 0 { "(a and " } else { "(b or " })
            .collect::<String>();
        let p = alternating + "c" + &")".repeat(70);
        assert_eq!(Policy::parse(&p).unwrap_err().kind(), ErrorKind::Limit);
    }

    #[test]
    fn any_detection() {
        let expect = Policy::Threshold {
            k: 2,
            children: vec![
                Policy::And(vec![a("A"), a("B")]),
                Policy::Or(vec![a("C"), a("D")]),
                a("E"),
            ],
        };
        assert_eq!(
            Policy::parse_any("((A,B,2),(C,D,1),E,2)"),
            Ok(expect.clone())
        );
        assert_eq!(
            Policy::parse_any("A B 2of2 C D 1-of-2 E 2of3"),
            Ok(expect.clone())
        );
        assert_eq!(Policy::parse_any("2 of (A and B, C or D, E)"), Ok(expect));
        assert_eq!(
            Policy::parse_any("a and b2of2"),
            Ok(Policy::And(vec![a("a"), a("b2of2")]))
        );
        assert_eq!(Policy::parse_any("x"), Ok(a("x")));
        assert!(Policy::parse_any("(a, b, 3)").is_err());
        assert_eq!(split_postfix_gate("2of3"), Some(("2", "3")));
        assert_eq!(split_postfix_gate("2-OF-3"), Some(("2", "3")));
        assert_eq!(split_postfix_gate("2of"), None);
        assert_eq!(split_postfix_gate("of3"), None);
    }
}
