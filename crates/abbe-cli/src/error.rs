//! The CLI's errors and their exit codes: 0 success, 2 "your key does not
//! satisfy this policy", 3 invalid or corrupt input, 1 anything else.

use abbe::envelope::{self, EnvelopeError};
use abbe::kem::KemError;
use abbe::policy::PolicyError;
use abbe::wire::WireError;

/// A CLI failure with its exit code.
#[derive(Debug)]
pub enum CliError {
    /// Exit 2: the key does not satisfy the policy.
    NotSatisfied,
    /// Exit 2: a broadcast key whose user or identity is not a recipient.
    NotRecipient,
    /// Exit 2: a key past its last day, or older than key expiry.
    Expired(String),
    /// Exit 3: invalid or corrupt input.
    Invalid(String),
    /// Exit 1: anything else (I/O, usage).
    Other(String),
}

impl CliError {
    pub fn code(&self) -> u8 {
        match self {
            CliError::NotSatisfied | CliError::NotRecipient | CliError::Expired(_) => 2,
            CliError::Invalid(_) => 3,
            CliError::Other(_) => 1,
        }
    }
    /// The error as it concerns a key of `scheme`: a broadcast key that
    /// cannot decrypt is not a recipient (it has no policy to satisfy).
    pub fn for_key_of(self, scheme: abbe::wire::SchemeId) -> CliError {
        match self {
            CliError::NotSatisfied if scheme.is_broadcast() => CliError::NotRecipient,
            e => e,
        }
    }

    pub fn message(&self) -> String {
        match self {
            CliError::NotSatisfied => "your key does not satisfy this ciphertext's policy".into(),
            CliError::NotRecipient => "your key is not one of this ciphertext's recipients".into(),
            CliError::Invalid(m) | CliError::Other(m) | CliError::Expired(m) => m.clone(),
        }
    }
}

/// The library's errors, classified once by the facade.
macro_rules! via_facade {
    ($($E:ty),*) => {$(
        impl From<$E> for CliError {
            fn from(e: $E) -> Self {
                abbe::facade::Error::from(e).into()
            }
        }
    )*};
}
via_facade!(
    KemError,
    WireError,
    PolicyError,
    abbe::outsource::OutsourceError
);

impl From<EnvelopeError> for CliError {
    fn from(e: EnvelopeError) -> Self {
        match e {
            EnvelopeError::Io(io) | EnvelopeError::Stream(envelope::StreamError::Io(io)) => {
                // A malformed armor around the ciphertext is corrupt input.
                match abbe::armor::ArmorError::from_io(&io) {
                    Some(a) => CliError::Invalid(format!("corrupt ciphertext: {a}")),
                    None => CliError::Other(format!("I/O error: {io}")),
                }
            }
            e @ (EnvelopeError::NotSigned
            | EnvelopeError::WrongSigner { .. }
            | EnvelopeError::Signature(_)) => CliError::Invalid(format!("refused: {e}")),
            e @ EnvelopeError::SignerCurve { .. } => CliError::Other(e.to_string()),
            other => CliError::Invalid(format!("corrupt ciphertext: {other}")),
        }
    }
}
impl From<abbe::signature::SignatureError> for CliError {
    fn from(e: abbe::signature::SignatureError) -> Self {
        CliError::Invalid(e.to_string())
    }
}

impl From<abbe::facade::Error> for CliError {
    fn from(e: abbe::facade::Error) -> Self {
        use abbe::facade::Error as E;
        match e {
            E::NotSatisfied => CliError::NotSatisfied,
            E::Expired(m) => CliError::Expired(m),
            E::Invalid(m) => CliError::Invalid(m),
            E::Unsupported(m) => CliError::Other(m),
            E::Envelope(e) => e.into(),
        }
    }
}

pub type Result<T> = std::result::Result<T, CliError>;

impl From<abbe_mqtt::Error> for CliError {
    fn from(e: abbe_mqtt::Error) -> Self {
        use abbe_mqtt::Error as E;
        match e {
            E::NotSatisfied => CliError::NotSatisfied,
            E::Invalid(m) => CliError::Invalid(m),
            E::Broker(_) | E::Unsupported(_) => CliError::Other(e.to_string()),
        }
    }
}
