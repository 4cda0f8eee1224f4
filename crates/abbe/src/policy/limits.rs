//! Hard limits that protect the engine against hostile or accidental input.
//!
//! Every parser checks these limits while it runs, so that inputs such as
//! 100 000 opening parentheses are rejected with a [`super::PolicyError`]
//! instead of exhausting the stack or the heap.

/// Maximum length in bytes of any textual input (policy or attribute list).
pub const MAX_INPUT_BYTES: usize = 64 * 1024;

/// Maximum nesting depth: both the parenthesis / gate nesting seen while
/// parsing and the gate depth of the resulting policy tree (numeric
/// comparisons count as leaves for this purpose).
pub const MAX_DEPTH: usize = 64;

/// Maximum number of leaves of a policy after bag-of-bits expansion of the
/// numeric comparisons.
pub const MAX_LEAVES: usize = 4096;

/// Minimum length in bytes of an attribute name.
pub const MIN_NAME_BYTES: usize = 1;

/// Maximum length in bytes of an attribute name.
pub const MAX_NAME_BYTES: usize = 256;

/// Maximum number of attributes in an [`super::AttributeSet`], counted after
/// the expansion of numeric attributes into their markers.
pub const MAX_ATTRIBUTES: usize = 4096;

/// Default bit width of a numeric comparison when no `#k` suffix is given.
pub const DEFAULT_WIDTH: u8 = 32;

/// Largest allowed bit width of a numeric comparison.
pub const MAX_WIDTH: u8 = 64;

/// Number of attempts made by the randomised generators before giving up.
pub const MAX_RETRIES: usize = 10_000;
