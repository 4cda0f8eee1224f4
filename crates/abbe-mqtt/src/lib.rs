//! Publish/subscribe through an MQTT broker that only ever sees ciphertext
//! (perazzo §3, Fig. 2–3; wang14's publishers and subscribers).
//!
//! Two protections ([`Protection`]), both specified in docs/FORMAT.md
//! ("MQTT records"):
//! - **per message**: every reading is an abbe encrypted file of its own
//!   (perazzo's measured worst case);
//! - **epochs** (perazzo §6): a random epoch key is ABE-encrypted once and
//!   retained by the broker on the key topic `T/abbe-epoch/<publisher>`;
//!   readings on `T` are AES-256-GCM records naming the epoch. A new epoch
//!   starts every N readings or T seconds and when the policy changes; a
//!   subscriber that joins late gets the current key from the retained
//!   message.
//!
//! Either way the broker sees topics, sizes, publisher ids and sequence
//! numbers — never a reading. Every record carries its publisher's sequence
//! number inside what is authenticated (the AEAD's associated data, or the
//! ABE plaintext, with the topic), so a subscriber refuses replays and
//! records moved between topics. ABE encryption is public and the epoch key
//! is shared by all readers, so without signatures anyone with the public
//! key can make records under any publisher id: an unsigned subscriber
//! promises confidentiality and each record's integrity, not who made it,
//! and no forgery makes it refuse a later honest record. With a signing key
//! every record is signed, and a subscriber with the verifying key lets only
//! what it signed touch its state ([`subscriber`] says what each mode
//! promises).
//!
//! [`Publisher`] and [`Subscriber`] are the protocol without I/O; the
//! [`client`] module runs them on a broker (rumqttc, tokio).

pub mod bench;
pub mod client;
pub mod mosquitto;
pub mod publisher;
pub mod record;
pub mod subscriber;

pub use client::{Broker, MqttPublisher, MqttSubscriber, Sent};
pub use publisher::{Protection, Publisher};
pub use subscriber::{Event, Subscriber};

/// The topic segment under which epoch keys are retained.
pub const KEY_TOPIC_SEGMENT: &str = "abbe-epoch";

/// Why an MQTT operation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The key does not satisfy the policy.
    #[error("your key does not satisfy this publisher's policy")]
    NotSatisfied,
    /// Invalid input: a record, a key, a topic, a target.
    #[error("{0}")]
    Invalid(String),
    /// The broker could not be reached or refused us.
    #[error("broker: {0}")]
    Broker(String),
    /// A scheme or option this build does not serve.
    #[error("{0}")]
    Unsupported(String),
}

impl From<abbe::facade::Error> for Error {
    fn from(e: abbe::facade::Error) -> Self {
        match e {
            // An expired key is not a recipient of newer messages.
            abbe::facade::Error::NotSatisfied | abbe::facade::Error::Expired(_) => {
                Error::NotSatisfied
            }
            abbe::facade::Error::Unsupported(m) => Error::Unsupported(m),
            other => Error::Invalid(other.to_string()),
        }
    }
}

impl From<abbe::signature::SignatureError> for Error {
    fn from(e: abbe::signature::SignatureError) -> Self {
        Error::Invalid(e.to_string())
    }
}

/// An MQTT message to publish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub topic: String,
    pub payload: Vec<u8>,
    /// Kept by the broker for subscribers that join later (epoch keys).
    pub retain: bool,
}

impl Message {
    fn new(topic: &str, payload: Vec<u8>, retain: bool) -> Self {
        Message {
            topic: topic.to_owned(),
            payload,
            retain,
        }
    }
}
