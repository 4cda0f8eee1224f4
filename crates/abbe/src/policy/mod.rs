//! Policy engine: parsing, normalisation, printing, numeric attributes,
//! access trees, LSSS matrices and benchmark policy generators.
//!
//! # Syntaxes
//!
//! * **Infix** ([`Policy::parse`]): `(doctor and cardiology) or 2 of (nurse,
//!   ward25, age >= 30)`; `and`/`&&`, `or`/`||` (AND binds tighter),
//!   `K of (...)` thresholds, quoted names with `\"` and `\\` escapes,
//!   numeric comparisons `age >= 18`, `level < 5#4` (width suffix, default 32),
//!   `ward != 7`, and `not`, pushed down to the comparisons as it is read
//!   ([`Policy::negate`]: a plain attribute cannot be negated).
//! * **Postfix** ([`Policy::parse_postfix`]), DET-ABE style: `A B 2of2 C 1of2`.
//! * **FBF** ([`Policy::parse_fbf`]), AES4SeC style: `((A,B,2),(C,D,1),2)`.
//! * [`Policy::parse_any`] guesses the syntax: FBF if the trimmed input starts
//!   with `(`, ends with `, <digits> )` and parses as FBF; otherwise postfix
//!   if some whitespace-separated word is a `KofN`/`K-of-N` gate and no word
//!   is an infix keyword (`and`, `or`, `of`, `&&`, `||`) or contains a
//!   parenthesis; otherwise infix.
//!
//! Every parser returns the canonical form (see [`Policy`]) and enforces the
//! limits of [`limits`] while parsing; untrusted input never panics.
//! [`Policy`]'s `Display` prints canonical infix that parses back to the same
//! value.
//!
//! # Attribute names
//!
//! User attribute names are 1..=256 bytes and may not contain `#`, which is
//! reserved for the bag-of-bits markers of numeric attributes (see
//! [`numeric`]), nor characters that do not show ([`visible`]).
//!
//! # From policy to scheme
//!
//! [`Policy::to_tree`] yields an [`AccessTree`] (threshold gates over
//! attribute leaves), which supports satisfaction checks, minimum-leaf
//! satisfying selections and conversion to an [`Lsss`] matrix over any
//! [`ShareField`].

mod ast;
mod attrs;
pub mod error;
pub mod expiry;
mod fbf;
pub mod generate;
mod lex;
pub mod limits;
mod lsss;
pub mod numeric;
mod parse;
mod postfix;
mod print;
pub mod sharing;
mod tree;
pub mod visible;

#[cfg(test)]
mod proptests;

pub use ast::{validate_name, CmpOp, Policy};
pub use attrs::AttributeSet;
pub use error::{ErrorKind, PolicyError};
pub use lsss::{Lsss, ShareField};
pub use print::{is_bare_name, quote_name};
pub use sharing::lagrange_at_zero;
pub use tree::{AccessTree, GateKind, NegatingPolicyTree, Node, PolicyTree, Selection};

impl Policy {
    /// Parses the infix syntax (see the module docs).
    pub fn parse(input: &str) -> Result<Policy, PolicyError> {
        parse::parse_infix(input)
    }

    /// Parses the DET-ABE postfix syntax, e.g. `A B 2of2 C 1of2`.
    pub fn parse_postfix(input: &str) -> Result<Policy, PolicyError> {
        postfix::parse_postfix(input)
    }

    /// Parses the AES4SeC Formatted Boolean Formula syntax, e.g.
    /// `((A,B,2),(C,D,1),2)`.
    pub fn parse_fbf(input: &str) -> Result<Policy, PolicyError> {
        fbf::parse_fbf(input)
    }

    /// Parses any of the three syntaxes, detected as described in the
    /// module docs.
    pub fn parse_any(input: &str) -> Result<Policy, PolicyError> {
        parse::parse_any(input)
    }
}

impl core::str::FromStr for Policy {
    type Err = PolicyError;

    /// Same as [`Policy::parse`] (infix).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Policy::parse(s)
    }
}
