//! The publishing side, without I/O: readings in, MQTT messages out.

use crate::record::{self, PublisherId, EPOCH_KEY_LEN};
use crate::{Error, Message};
use abbe::envelope::SealOptions;
use abbe::facade::{self, Mode};
use abbe::signature::AnySigningKey;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::Aes256Gcm;
use rand_core::{OsRng, RngCore};
use std::time::{Duration, Instant};
use zeroize::Zeroizing;

/// How readings are protected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protection {
    /// Every reading ABE-encrypted on its own (perazzo's measured case).
    PerMessage,
    /// Readings under an epoch key, ABE-encrypted once per epoch and kept
    /// on the broker as a retained message (perazzo §6). A new epoch starts
    /// after `messages` readings or `age`, whichever comes first, and when
    /// the target changes.
    Epochs {
        messages: Option<u64>,
        age: Option<Duration>,
    },
}

/// The topic an epoch key of `publisher` for readings on `topic` is
/// retained on.
pub fn key_topic(topic: &str, publisher: &PublisherId) -> String {
    format!(
        "{topic}/{}/{}",
        crate::KEY_TOPIC_SEGMENT,
        abbe::wire::hex(publisher)
    )
}

struct Epoch {
    number: u32,
    cipher: Aes256Gcm,
    started: Instant,
    readings: u64,
}

/// One publisher on one topic.
pub struct Publisher {
    /// Decoded once: its attribute hashes are cached across readings.
    public_key: Box<dyn facade::PublicKey>,
    target: String,
    topic: String,
    protection: Protection,
    signer: Option<AnySigningKey>,
    id: PublisherId,
    next_seq: u64,
    epoch: Option<Epoch>,
    epochs_made: u32,
    last_key: Option<Message>,
}

impl Publisher {
    /// A publisher of readings on `topic` for `target` (a policy, or
    /// attributes for a KP scheme) under `public_key`. The public key and
    /// target are checked here: an error now, not at the first reading.
    pub fn new(
        public_key: Vec<u8>,
        target: &str,
        topic: &str,
        protection: Protection,
        signer: Option<AnySigningKey>,
    ) -> Result<Self, Error> {
        check_topic(topic)?;
        let public_key = facade::of_object(&public_key)?.public_key(&public_key)?;
        // Encapsulating once validates the target the way every reading will.
        public_key.encapsulate(target, Mode::Cca, &mut OsRng)?;
        let mut id = [0u8; record::PUBLISHER_ID_LEN];
        OsRng.fill_bytes(&mut id);
        Ok(Publisher {
            public_key,
            target: target.to_owned(),
            topic: topic.to_owned(),
            protection,
            signer,
            id,
            next_seq: 0,
            epoch: None,
            epochs_made: 0,
            last_key: None,
        })
    }

    pub fn id(&self) -> &PublisherId {
        &self.id
    }

    /// Where this publisher's epoch keys are retained.
    pub fn key_topic(&self) -> String {
        key_topic(&self.topic, &self.id)
    }

    /// Changes the target; the next reading starts a new epoch.
    pub fn set_target(&mut self, target: &str) -> Result<(), Error> {
        self.public_key.encapsulate(target, Mode::Cca, &mut OsRng)?;
        self.target = target.to_owned();
        self.epoch = None;
        self.last_key = None;
        Ok(())
    }

    /// The messages that publish `reading` at time `now`: a new epoch key
    /// first when an epoch starts, then the reading.
    pub fn publish(&mut self, reading: &[u8], now: Instant) -> Result<Vec<Message>, Error> {
        let seq = self.next_seq;
        self.next_seq = seq
            .checked_add(1)
            .ok_or_else(|| Error::Invalid("sequence numbers exhausted".into()))?;
        let mut out = Vec::with_capacity(2);
        match self.protection {
            Protection::PerMessage => {
                let mut plain = Zeroizing::new(record::binding(&self.id, seq, &self.topic)?);
                plain.extend_from_slice(reading);
                let mut payload = record::sealed_head(&self.id, seq);
                self.seal(&plain, &mut payload)?;
                out.push(Message::new(&self.topic, payload, false));
            }
            Protection::Epochs { .. } => {
                if self.will_encapsulate(now) {
                    out.push(self.new_epoch(now)?);
                }
                out.push(self.reading(seq, reading)?);
            }
        }
        Ok(out)
    }

    /// Whether publishing a reading at `now` runs the ABE encryption (per
    /// message, or a new epoch due).
    pub fn will_encapsulate(&self, now: Instant) -> bool {
        match self.protection {
            Protection::PerMessage => true,
            Protection::Epochs { messages, age } => self.epoch.as_ref().is_none_or(|e| {
                messages.is_some_and(|m| e.readings >= m)
                    || age.is_some_and(|a| now.duration_since(e.started) >= a)
            }),
        }
    }

    /// The retained message of the current epoch key (to publish it again,
    /// e.g. after reconnecting to a broker that may have lost it).
    pub fn current_epoch_key(&self) -> Option<&Message> {
        self.last_key.as_ref()
    }

    fn seal(&self, plain: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let options = SealOptions {
            aead: None,
            signer: self.signer.as_ref(),
        };
        facade::encrypt_with(
            &*self.public_key,
            &self.target,
            Mode::Cca,
            plain,
            out,
            &options,
            &mut OsRng,
        )?;
        Ok(())
    }

    fn new_epoch(&mut self, now: Instant) -> Result<Message, Error> {
        let number = self
            .epochs_made
            .checked_add(1)
            .ok_or_else(|| Error::Invalid("epoch numbers exhausted".into()))?;
        let mut key = Zeroizing::new([0u8; EPOCH_KEY_LEN]);
        OsRng.fill_bytes(&mut *key);
        let plain = record::epoch_key_plaintext(&self.id, number, &self.topic, &key)?;
        let mut payload = record::epoch_key_head(&self.id, number);
        self.seal(&plain, &mut payload)?;
        self.epochs_made = number;
        self.epoch = Some(Epoch {
            number,
            cipher: Aes256Gcm::new_from_slice(&*key).expect("32-byte key"),
            started: now,
            readings: 0,
        });
        let message = Message::new(&self.key_topic(), payload, true);
        self.last_key = Some(message.clone());
        Ok(message)
    }

    fn reading(&mut self, seq: u64, reading: &[u8]) -> Result<Message, Error> {
        let e = self.epoch.as_mut().expect("an epoch was started");
        e.readings += 1;
        let head = record::reading_head(&self.id, e.number, seq, self.signer.is_some());
        let aad = record::reading_aad(&head, &self.topic)?;
        let ct = e
            .cipher
            .encrypt(
                &record::nonce(seq).into(),
                Payload {
                    msg: reading,
                    aad: &aad,
                },
            )
            .map_err(|_| Error::Invalid("reading too long to encrypt".into()))?;
        let mut payload = head;
        if let Some(signer) = &self.signer {
            let mut signed = aad;
            signed.extend_from_slice(&ct);
            payload.push(signer.curve() as u8);
            payload.extend_from_slice(&signer.sign_block(&signed));
        }
        payload.extend_from_slice(&ct);
        Ok(Message::new(&self.topic, payload, false))
    }
}

/// A topic a publisher may write: non-empty, no wildcards, not a key topic.
pub fn check_topic(topic: &str) -> Result<(), Error> {
    if topic.is_empty() || topic.len() > u16::MAX as usize {
        return Err(Error::Invalid("a topic has 1 to 65535 bytes".into()));
    }
    if topic.contains(['+', '#', '\0']) {
        return Err(Error::Invalid(format!(
            "cannot publish to {topic:?}: wildcards (+, #) are for subscribing"
        )));
    }
    if topic.split('/').any(|s| s == crate::KEY_TOPIC_SEGMENT) {
        return Err(Error::Invalid(format!(
            "topic {topic:?} contains the segment {:?}, reserved for epoch keys",
            crate::KEY_TOPIC_SEGMENT
        )));
    }
    Ok(())
}
