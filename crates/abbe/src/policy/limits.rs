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

/// Default of the policy work budget: the number of non-zero entries of a
/// policy's LSSS matrix ([`super::AccessTree::work`]).
///
/// Every scheme's cost per policy is linear in this number: shares and
/// Lagrange coefficients are field operations per entry, and FAME's rows and
/// every Fujisaki–Okamoto re-encapsulation (CCA decryption) do group work
/// per entry. Flat AND/OR policies cost about one unit per leaf (a flat AND of
/// the maximum 4096 leaves: 8191), a k-of-n gate n·(k−1) more — so a
/// threshold over many leaves is what the budget stops: `2048 of (4096
/// leaves)` would be 8.4 million units, and a header carrying it quadratic
/// work for whoever decrypts it. Enforced by [`super::Policy::to_tree`],
/// i.e. when a policy is parsed for encryption or key generation and when a
/// header or key carrying one is decoded, before any group operation.
pub const DEFAULT_MAX_POLICY_WORK: u64 = 1 << 15;

static MAX_POLICY_WORK: core::sync::atomic::AtomicU64 =
    core::sync::atomic::AtomicU64::new(DEFAULT_MAX_POLICY_WORK);

/// The policy work budget in force in this process (see
/// [`DEFAULT_MAX_POLICY_WORK`]).
pub fn max_policy_work() -> u64 {
    MAX_POLICY_WORK.load(core::sync::atomic::Ordering::Relaxed)
}

/// Sets the policy work budget for this process: a front end's
/// `--max-policy-work`, for users who really need bigger thresholds. One
/// process-wide value, so that every decoder — the CLI's, the proxy's, the
/// bindings' — enforces the same one without threading it through every
/// `from_bytes`.
pub fn set_max_policy_work(units: u64) {
    MAX_POLICY_WORK.store(units, core::sync::atomic::Ordering::Relaxed);
}

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
