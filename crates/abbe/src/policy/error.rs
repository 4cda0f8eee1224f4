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
    item: Option<(usize, String)>,
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
        self.item.as_ref().map(|(i, _)| *i)
    }

    /// Returns the same error as being about item `index` (from 0) of a
    /// list, whose text is `item`.
    pub(crate) fn in_item(mut self, index: usize, item: &str) -> Self {
        self.item = Some((index, super::lex::truncate(item, 60)));
        self
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
        if let Some((index, item)) = &self.item {
            // Debug-quoted: the item is the caller's, control characters
            // and all.
            write!(
                f,
                "{} error in list item [{index}] {item:?}",
                self.kind.subject()
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
                self.kind.subject(),
                self.expected,
                self.found
            ),
            None => write!(
                f,
                "{} error: expected {} but found {}",
                self.kind.subject(),
                self.expected,
                self.found
            ),
        }
    }
}

impl std::error::Error for PolicyError {}
