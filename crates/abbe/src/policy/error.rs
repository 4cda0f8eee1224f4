//! Error type shared by every part of the policy engine.

use core::fmt;

/// Broad classification of a [`PolicyError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input does not follow the grammar of the chosen syntax.
    Syntax,
    /// A size, depth or count limit from [`super::limits`] was exceeded.
    Limit,
    /// A threshold gate has `k == 0`, `k > n`, or a gate has no children.
    Threshold,
    /// A number is malformed, too large, or does not fit its declared width.
    Number,
    /// An attribute name is empty, too long or uses a reserved character.
    Name,
    /// A numeric comparison can never be satisfied (e.g. `age < 0`).
    Unsatisfiable,
    /// A numeric comparison is satisfied by every value (e.g. `age >= 0`).
    TriviallyTrue,
    /// An argument of an API call is out of range or inconsistent.
    Argument,
    /// A randomised generator gave up after its bounded number of retries.
    RetryLimit,
    /// An identity (identity-based broadcast) is empty, too long, or holds
    /// a comma or a character that does not show.
    Identity,
    /// A user index or set of user indices (broadcast) is malformed or out
    /// of range.
    Users,
}

impl ErrorKind {
    /// What the erroneous input was, for messages.
    fn subject(self) -> &'static str {
        match self {
            ErrorKind::Identity => "identity",
            ErrorKind::Users => "user index",
            _ => "policy",
        }
    }
}

/// Error returned by every fallible operation of the policy engine.
///
/// It records the byte position in the input (when the error is tied to a
/// position), what was expected and what was found.  Its `Display` reads like
/// `policy error at byte 12: expected ')' but found 'and'`; for an item of a
/// list, `policy error in list item [1] "a, b" at byte 1: ...` (the
/// position is then within the item).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError {
    kind: ErrorKind,
    position: Option<usize>,
    expected: String,
    found: String,
    /// The list item the error is in: its index (from 0) and its text,
    /// shortened for display.
    /// (Boxed, as the pointer: errors travel inside every `Result` of the
    /// schemes, which should stay small.)
    item: Option<Box<(usize, String)>>,
    /// The input was an attribute list, not what the kind says.
    attribute_list: bool,
    /// The input's line around the position with a caret under it.
    pointer: Option<Box<str>>,
}

impl PolicyError {
    /// Creates an error tied to byte `position` of the input.
    pub fn at(
        kind: ErrorKind,
        position: usize,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Self {
        PolicyError {
            kind,
            position: Some(position),
            expected: expected.into(),
            found: found.into(),
            item: None,
            attribute_list: false,
            pointer: None,
        }
    }

    /// Creates an error that is not tied to a position in some input.
    pub fn new(kind: ErrorKind, expected: impl Into<String>, found: impl Into<String>) -> Self {
        PolicyError {
            kind,
            position: None,
            expected: expected.into(),
            found: found.into(),
            item: None,
            attribute_list: false,
            pointer: None,
        }
    }

    /// The error class.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Byte offset in the parsed input, if the error is tied to one.
    pub fn position(&self) -> Option<usize> {
        self.position
    }

    /// Description of what was expected.
    pub fn expected(&self) -> &str {
        &self.expected
    }

    /// Description of what was found instead.
    pub fn found(&self) -> &str {
        &self.found
    }

    /// The list item the error is in (its index from 0), for errors of
    /// `from_items`.
    pub fn item(&self) -> Option<usize> {
        self.item.as_ref().map(|item| item.0)
    }

    /// Returns the same error as being about item `index` (from 0) of a
    /// list, whose text is `item`.
    pub(crate) fn in_item(mut self, index: usize, item: &str) -> Self {
        self.item = Some(Box::new((index, super::lex::truncate(item, 60))));
        self
    }

    /// Returns the same error as being about an attribute list (a key's
    /// attributes, a key-policy ciphertext's), not a policy.
    pub(crate) fn in_attribute_list(mut self) -> Self {
        self.attribute_list = true;
        self
    }

    /// Returns the same error with the input it is about, so that
    /// [`PolicyError::pointer`] can show where in it the error is.
    pub fn with_input(mut self, input: &str) -> Self {
        if self.item.is_none() {
            self.pointer = self
                .position
                .and_then(|p| pointer(input, p))
                .map(String::into_boxed_str);
        }
        self
    }

    /// Two lines for a front end to show under the message: the input's
    /// line around the error (shortened, control characters blanked), and
    /// a caret under the position. Present once [`PolicyError::with_input`]
    /// gave the input of an error tied to a position.
    pub fn pointer(&self) -> Option<&str> {
        self.pointer.as_deref()
    }

    /// The error's subject: what the input was.
    fn subject(&self) -> &'static str {
        if self.attribute_list {
            "attribute list"
        } else {
            self.kind.subject()
        }
    }

    /// Returns the same error with a position attached (if it had none).
    pub(crate) fn with_position(mut self, position: usize) -> Self {
        if self.position.is_none() {
            self.position = Some(position);
        }
        self
    }
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((index, item)) = self.item.as_deref() {
            // Debug-quoted: the item is the caller's, control characters
            // and all.
            write!(
                f,
                "{} error in list item [{index}] {item:?}",
                self.subject()
            )?;
            if let Some(p) = self.position {
                write!(f, " at byte {p}")?;
            }
            return write!(f, ": expected {} but found {}", self.expected, self.found);
        }
        match self.position {
            Some(p) => write!(
                f,
                "{} error at byte {p}: expected {} but found {}",
                self.subject(),
                self.expected,
                self.found
            ),
            None => write!(
                f,
                "{} error: expected {} but found {}",
                self.subject(),
                self.expected,
                self.found
            ),
        }
    }
}

impl std::error::Error for PolicyError {}

/// Characters of the input shown before and after the error's position.
const SHOWN_BEFORE: usize = 50;
const SHOWN_AFTER: usize = 25;

/// The line of `input` holding byte `position`, shortened around it, and a
/// caret under the position; both indented by two spaces.
fn pointer(input: &str, position: usize) -> Option<String> {
    let position = position.min(input.len());
    if !input.is_char_boundary(position) {
        return None;
    }
    let start = input[..position].rfind('\n').map_or(0, |i| i + 1);
    let end = input[position..]
        .find('\n')
        .map_or(input.len(), |i| position + i);
    // Shown, not obeyed: a character that is invisible or reorders the
    // line (U+200B, U+202E, a tab) stands as one visible dot.
    let blank = |c: char| {
        if super::visible::invisible(c) {
            '·'
        } else {
            c
        }
    };
    let before: Vec<char> = input[start..position].chars().map(blank).collect();
    let skipped = before.len().saturating_sub(SHOWN_BEFORE);
    let mut line: String = if skipped > 0 {
        "…".into()
    } else {
        String::new()
    };
    line.extend(&before[skipped..]);
    let column = line.chars().count();
    let mut after = input[position..end].chars().map(blank);
    line.extend(after.by_ref().take(SHOWN_AFTER));
    if after.next().is_some() {
        line.push('…');
    }
    Some(format!("  {line}\n  {}^", " ".repeat(column)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(input: &str, position: usize) -> String {
        PolicyError::at(ErrorKind::Syntax, position, "x", "y")
            .with_input(input)
            .pointer()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn the_caret_stands_under_the_position() {
        assert_eq!(
            shown("doctor and (nurse or", 20),
            "  doctor and (nurse or\n                      ^"
        );
        assert_eq!(shown("a nd b", 2), "  a nd b\n    ^");
        // Columns count characters, not bytes; what would not show, or
        // would reorder the line, is a dot.
        assert_eq!(shown("ärzt\tb", 6), "  ärzt·b\n       ^");
        assert_eq!(shown("a\u{202e}b\u{200b}c", 5), "  a·b·c\n     ^");
    }

    #[test]
    fn a_long_input_is_shortened_around_the_position() {
        let input = format!("{} and bad( {}", "a and ".repeat(40), "or b ".repeat(40));
        let p = input.find("bad(").unwrap() + 3;
        let s = shown(&input, p);
        let (line, caret) = s.split_once('\n').unwrap();
        assert!(line.starts_with("  …") && line.ends_with('…'), "{line}");
        assert_eq!(line.chars().count(), 2 + 1 + SHOWN_BEFORE + SHOWN_AFTER + 1);
        assert_eq!(caret.chars().count(), 2 + 1 + SHOWN_BEFORE + 1);
        assert_eq!(line.chars().nth(2 + 1 + SHOWN_BEFORE), Some('('));
    }

    #[test]
    fn only_the_line_of_the_position_is_shown() {
        assert_eq!(shown("a b 2of2\nc d 3of2", 13), "  c d 3of2\n      ^");
    }

    #[test]
    fn errors_without_position_or_in_a_list_item_point_at_nothing() {
        let e = PolicyError::new(ErrorKind::Limit, "x", "y").with_input("a and b");
        assert_eq!(e.pointer(), None);
        let e = PolicyError::at(ErrorKind::Syntax, 1, "x", "y")
            .in_item(0, "a b")
            .with_input("a b");
        assert_eq!(e.pointer(), None);
    }
}
