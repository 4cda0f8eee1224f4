//! Tokenizer shared by the infix parser, the FBF parser and the attribute
//! list parser.

use super::ast::CmpOp;
use super::error::{ErrorKind, PolicyError};
use super::limits::MAX_INPUT_BYTES;

/// Kind of a token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    LParen,
    RParen,
    Comma,
    Hash,
    /// `and` (any case) or `&&`.
    And,
    /// `or` (any case) or `||`.
    Or,
    Cmp(CmpOp),
    /// A run of ASCII digits.
    Number(u64),
    /// A bare name (not a pure number, not `and`/`or`).
    Word(String),
    /// A double-quoted name, escapes resolved.
    Quoted(String),
    /// End of input.
    End,
}

/// A token with its byte span in the input.
#[derive(Clone, Debug)]
pub(crate) struct Token<'a> {
    pub tok: Tok,
    pub pos: usize,
    pub text: &'a str,
}

impl Token<'_> {
    /// Human readable rendering of the token for error messages.
    pub fn describe(&self) -> String {
        match self.tok {
            Tok::End => "end of input".to_string(),
            _ => format!("'{}'", truncate(self.text, 40)),
        }
    }

    /// The token as an attribute name, for syntaxes without keywords (FBF,
    /// attribute lists): bare words, quoted strings and bare `and`/`or`.
    pub fn as_plain_name(&self) -> Option<String> {
        match &self.tok {
            Tok::Word(w) | Tok::Quoted(w) => Some(w.clone()),
            Tok::And | Tok::Or if self.text.bytes().all(|b| b.is_ascii_alphabetic()) => {
                Some(self.text.to_string())
            }
            _ => None,
        }
    }
}

/// Shortens `s` to at most `max` characters for display in messages.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push_str("...");
        out
    }
}

/// Is `b` allowed in a bare (unquoted) name?
pub(crate) fn is_bare_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'/' | b'@' | b'-')
}

/// Checks the global input size limit.
pub(crate) fn check_input_len(input: &str) -> Result<(), PolicyError> {
    if input.len() > MAX_INPUT_BYTES {
        return Err(PolicyError::at(
            ErrorKind::Limit,
            MAX_INPUT_BYTES,
            format!("an input of at most {MAX_INPUT_BYTES} bytes"),
            format!("{} bytes", input.len()),
        ));
    }
    Ok(())
}

/// Splits `input` into tokens; the last token is always [`Tok::End`].
pub(crate) fn tokenize(input: &str) -> Result<Vec<Token<'_>>, PolicyError> {
    check_input_len(input)?;
    let bytes = input.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let next = bytes.get(i + 1).copied();
        let (tok, len) = match b {
            b'(' => (Tok::LParen, 1),
            b')' => (Tok::RParen, 1),
            b',' => (Tok::Comma, 1),
            b'#' => (Tok::Hash, 1),
            b'&' if next == Some(b'&') => (Tok::And, 2),
            b'|' if next == Some(b'|') => (Tok::Or, 2),
            b'>' if next == Some(b'=') => (Tok::Cmp(CmpOp::Ge), 2),
            b'>' => (Tok::Cmp(CmpOp::Gt), 1),
            b'<' if next == Some(b'=') => (Tok::Cmp(CmpOp::Le), 2),
            b'<' => (Tok::Cmp(CmpOp::Lt), 1),
            b'=' if next == Some(b'=') => (Tok::Cmp(CmpOp::Eq), 2),
            b'=' => (Tok::Cmp(CmpOp::Eq), 1),
            b'!' if next == Some(b'=') => (Tok::Cmp(CmpOp::Ne), 2),
            b'"' => {
                let (name, len) = lex_quoted(input, start)?;
                (Tok::Quoted(name), len)
            }
            _ if is_bare_byte(b) => {
                let mut j = i;
                while bytes.get(j).is_some_and(|&c| is_bare_byte(c)) {
                    j += 1;
                }
                let word = input.get(start..j).unwrap_or_default();
                (classify_word(word, start)?, j - start)
            }
            _ => {
                let found = input
                    .get(start..)
                    .and_then(|s| s.chars().next())
                    .map(|c| format!("'{}'", c.escape_debug()))
                    .unwrap_or_else(|| "an invalid byte".to_string());
                return Err(PolicyError::at(
                    ErrorKind::Syntax,
                    start,
                    "a name, number, operator or parenthesis",
                    found,
                ));
            }
        };
        i = start + len;
        out.push(Token {
            tok,
            pos: start,
            text: input.get(start..i).unwrap_or_default(),
        });
    }
    out.push(Token {
        tok: Tok::End,
        pos: input.len(),
        text: "",
    });
    Ok(out)
}

fn classify_word(word: &str, pos: usize) -> Result<Tok, PolicyError> {
    if word.bytes().all(|b| b.is_ascii_digit()) {
        return word.parse::<u64>().map(Tok::Number).map_err(|_| {
            PolicyError::at(
                ErrorKind::Number,
                pos,
                "a number below 2^64",
                format!("'{}'", truncate(word, 40)),
            )
        });
    }
    if word.eq_ignore_ascii_case("and") {
        Ok(Tok::And)
    } else if word.eq_ignore_ascii_case("or") {
        Ok(Tok::Or)
    } else {
        Ok(Tok::Word(word.to_string()))
    }
}

/// Lexes a quoted name starting at the `"` at byte `start`; returns the
/// unescaped name and the number of bytes consumed.
fn lex_quoted(input: &str, start: usize) -> Result<(String, usize), PolicyError> {
    let bytes = input.as_bytes();
    let mut buf: Vec<u8> = Vec::new();
    let mut i = start + 1;
    loop {
        match bytes.get(i) {
            None => {
                return Err(PolicyError::at(
                    ErrorKind::Syntax,
                    input.len(),
                    "closing '\"'",
                    "end of input",
                ))
            }
            Some(b'"') => {
                i += 1;
                break;
            }
            Some(b'\\') => match bytes.get(i + 1) {
                Some(&c @ (b'"' | b'\\')) => {
                    buf.push(c);
                    i += 2;
                }
                Some(_) => {
                    let found = input
                        .get(i..)
                        .map(|s| s.chars().take(2).collect::<String>())
                        .unwrap_or_default();
                    return Err(PolicyError::at(
                        ErrorKind::Syntax,
                        i,
                        "an escape sequence '\\\"' or '\\\\'",
                        format!("'{}'", found.escape_debug()),
                    ));
                }
                None => {
                    return Err(PolicyError::at(
                        ErrorKind::Syntax,
                        input.len(),
                        "closing '\"'",
                        "end of input",
                    ))
                }
            },
            Some(&c) => {
                buf.push(c);
                i += 1;
            }
        }
    }
    // Only ASCII bytes were treated specially, so `buf` is valid UTF-8.
    let name = String::from_utf8(buf)
        .map_err(|_| PolicyError::at(ErrorKind::Syntax, start, "a UTF-8 name", "invalid UTF-8"))?;
    Ok((name, i - start))
}

/// Cursor over a token list.
pub(crate) struct Cursor<'a> {
    toks: Vec<Token<'a>>,
    idx: usize,
    end: Token<'a>,
}

impl<'a> Cursor<'a> {
    pub fn new(toks: Vec<Token<'a>>, input_len: usize) -> Self {
        Cursor {
            toks,
            idx: 0,
            end: Token {
                tok: Tok::End,
                pos: input_len,
                text: "",
            },
        }
    }

    pub fn peek(&self) -> &Token<'a> {
        self.toks.get(self.idx).unwrap_or(&self.end)
    }

    pub fn peek2(&self) -> &Token<'a> {
        self.toks.get(self.idx + 1).unwrap_or(&self.end)
    }

    pub fn bump(&mut self) -> Token<'a> {
        let t = self.peek().clone();
        if self.idx < self.toks.len() {
            self.idx += 1;
        }
        t
    }

    /// Consumes a token equal to `want` or fails with "expected `what`".
    pub fn expect(&mut self, want: &Tok, what: &str) -> Result<Token<'a>, PolicyError> {
        if &self.peek().tok == want {
            Ok(self.bump())
        } else {
            Err(self.error(what))
        }
    }

    /// Syntax error at the current token.
    pub fn error(&self, expected: &str) -> PolicyError {
        let t = self.peek();
        PolicyError::at(ErrorKind::Syntax, t.pos, expected, t.describe())
    }
}
