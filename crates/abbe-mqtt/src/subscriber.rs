//! The subscribing side, without I/O: MQTT messages in, readings and
//! reports out. Nothing is released before it authenticated; per publisher,
//! a sequence number is accepted once and only after every earlier one.

use crate::record::{self, PublisherId, Record, EPOCH_KEY_LEN};
use crate::Error;
use abbe::curve::CurveId;
use abbe::facade;
use abbe::signature;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::Aes256Gcm;
use std::collections::{HashMap, VecDeque};
use zeroize::Zeroizing;

/// Publishers tracked at once; readings of further ones are refused.
pub const MAX_PUBLISHERS: usize = 4096;
/// Readings waiting for their epoch key, and their total bytes.
pub const MAX_PENDING: usize = 1024;
pub const MAX_PENDING_BYTES: usize = 8 << 20;
/// Epochs kept per publisher (the current one and the one before it).
const EPOCHS_KEPT: usize = 2;

/// What a message brought.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    /// An authenticated reading, released in sequence.
    Reading {
        publisher: PublisherId,
        seq: u64,
        topic: String,
        data: Zeroizing<Vec<u8>>,
        /// Fingerprint of the signer's key, for a signed reading.
        signer: Option<String>,
    },
    /// A readable epoch key arrived.
    EpochKey { publisher: PublisherId, epoch: u32 },
    /// The key does not satisfy this publisher's policy: said once per
    /// publisher (until one of its epochs is readable again).
    NotReadable { publisher: PublisherId },
    /// A reading this key may not read (after [`Event::NotReadable`]).
    Skipped { publisher: PublisherId },
    /// Readings of this publisher that never arrived: the sequence jumped
    /// by `count` + 1 between two readings this key read.
    Missed { publisher: PublisherId, count: u64 },
    /// A message refused, and why.
    Rejected {
        publisher: Option<PublisherId>,
        reason: String,
    },
}

#[derive(Default)]
struct PublisherState {
    last_seq: Option<u64>,
    /// A reading this key could not read came after `last_seq`: a jump in
    /// the sequence is then no loss.
    unread_since: bool,
    /// (epoch, cipher); None: the key does not satisfy that epoch's policy.
    epochs: VecDeque<(u32, Option<Aes256Gcm>)>,
    told_unreadable: bool,
}

/// One subscriber's key and state.
pub struct Subscriber {
    /// Decoded once: its pairing lines are computed once for every record.
    key: Box<dyn facade::UserKey>,
    verify_with: Option<Vec<u8>>,
    verify_point: Option<Vec<u8>>,
    publishers: HashMap<PublisherId, PublisherState>,
    pending: VecDeque<(String, Vec<u8>)>,
    pending_bytes: usize,
}

impl Subscriber {
    /// A subscriber holding user key bundle `key`; with `verify_with` (a
    /// verifying-key object), only what that key signed is released.
    pub fn new(key: Zeroizing<Vec<u8>>, verify_with: Option<Vec<u8>>) -> Result<Self, Error> {
        if abbe::wire::Preamble::parse(&key)
            .map_err(facade::Error::from)?
            .kind
            != abbe::wire::ObjectKind::UserKey
        {
            return Err(Error::Invalid(
                "a subscriber needs a user key (written by `abbe keygen`)".into(),
            ));
        }
        let key = facade::of_object(&key)?.user_key(&key)?;
        let verify_point = match &verify_with {
            Some(vk) => Some(signature::verifying_key_point(vk)?.1),
            None => None,
        };
        Ok(Subscriber {
            key,
            verify_with,
            verify_point,
            publishers: HashMap::new(),
            pending: VecDeque::new(),
            pending_bytes: 0,
        })
    }

    /// The topics to subscribe to for readings on `filter` (a topic or
    /// filter): the readings and their epoch keys.
    pub fn filters(filter: &str) -> [String; 2] {
        let keys = match filter.strip_suffix('#') {
            // `a/#` already matches `a/x/abbe-epoch/p`.
            Some(_) => filter.to_owned(),
            None => format!("{filter}/{}/+", crate::KEY_TOPIC_SEGMENT),
        };
        [filter.to_owned(), keys]
    }

    /// Whether handling `payload` may run pairings (an epoch key, a
    /// per-message record, a signed reading), as opposed to one AES-GCM
    /// reading.
    pub fn needs_pairings(payload: &[u8]) -> bool {
        payload.get(5) != Some(&(record::RecordType::Reading as u8))
            || payload.get(6).is_some_and(|f| f & record::FLAG_SIGNED != 0)
    }

    /// Handles one MQTT message.
    pub fn receive(&mut self, topic: &str, payload: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        if payload.is_empty() && split_key_topic(topic).is_some() {
            // MQTT's way to clear a retained message: a retired epoch key.
            return events;
        }
        match self.handle(topic, payload, &mut events) {
            Ok(Some(())) => {
                // An epoch key arrived: retry the readings that waited for it.
                let waiting: Vec<_> = std::mem::take(&mut self.pending).into_iter().collect();
                self.pending_bytes = 0;
                for (t, p) in waiting {
                    if let Err(e) = self.handle(&t, &p, &mut events) {
                        events.push(rejected(&p, e));
                    }
                }
            }
            Ok(None) => {}
            Err(e) => events.push(rejected(payload, e)),
        }
        events
    }

    /// Ok(Some(())) when an epoch key was stored.
    fn handle(
        &mut self,
        topic: &str,
        payload: &[u8],
        events: &mut Vec<Event>,
    ) -> Result<Option<()>, Error> {
        let rec = record::decode(payload, |c| {
            CurveId::from_u8(c).and_then(signature::block_len)
        })?;
        let key_topic = split_key_topic(topic);
        match rec {
            Record::EpochKey {
                publisher,
                epoch,
                file,
            } => {
                let Some((data_topic, owner)) = key_topic else {
                    return Err(Error::Invalid("an epoch key outside a key topic".into()));
                };
                if owner != abbe::wire::hex(&publisher) {
                    return Err(Error::Invalid(
                        "an epoch key on another publisher's key topic".into(),
                    ));
                }
                self.epoch_key(data_topic, publisher, epoch, file, events)
            }
            _ if key_topic.is_some() => Err(Error::Invalid("a reading on a key topic".into())),
            Record::Reading {
                publisher,
                epoch,
                seq,
                signature,
                ciphertext,
                authenticated,
            } => {
                let Some(state) = self.publishers.get(&publisher) else {
                    return self.wait(topic, payload);
                };
                let Some((_, cipher)) = state.epochs.iter().find(|(n, _)| *n == epoch) else {
                    let newest = state.epochs.back().map_or(0, |(n, _)| *n);
                    if epoch < newest {
                        return Err(Error::Invalid(format!(
                            "a reading of expired epoch {epoch}"
                        )));
                    }
                    return self.wait(topic, payload);
                };
                let Some(cipher) = cipher else {
                    events.push(Event::Skipped { publisher });
                    self.publishers.entry(publisher).or_default().unread_since = true;
                    return Ok(None);
                };
                let aad = record::reading_aad(authenticated, topic)?;
                let signer = self.check_signature(signature, &aad, ciphertext)?;
                let data = cipher
                    .decrypt(
                        &record::nonce(seq).into(),
                        Payload {
                            msg: ciphertext,
                            aad: &aad,
                        },
                    )
                    .map_err(|_| {
                        Error::Invalid(
                            "reading failed authentication (tampered, or another topic's)".into(),
                        )
                    })?;
                self.accept(publisher, seq, topic, Zeroizing::new(data), signer, events)?;
                Ok(None)
            }
            Record::Sealed {
                publisher,
                seq,
                file,
            } => {
                if !self.publishers.contains_key(&publisher)
                    && self.publishers.len() >= MAX_PUBLISHERS
                {
                    return Err(Error::Invalid("too many publishers".into()));
                }
                let (plain, signer) = match self.open(file) {
                    Err(Error::NotSatisfied) => {
                        self.unreadable(publisher, events, true);
                        return Ok(None);
                    }
                    other => other?,
                };
                let bind = record::binding(&publisher, seq, topic)?;
                let data = plain.strip_prefix(bind.as_slice()).ok_or_else(|| {
                    Error::Invalid(
                        "a sealed reading bound to another topic, publisher or position".into(),
                    )
                })?;
                self.accept(
                    publisher,
                    seq,
                    topic,
                    Zeroizing::new(data.to_vec()),
                    signer,
                    events,
                )?;
                Ok(None)
            }
        }
    }

    fn epoch_key(
        &mut self,
        data_topic: &str,
        publisher: PublisherId,
        epoch: u32,
        file: &[u8],
        events: &mut Vec<Event>,
    ) -> Result<Option<()>, Error> {
        if let Some(s) = self.publishers.get(&publisher) {
            // A retained key seen again, or an older one replayed. An
            // unreadable key blocks only its own number: anyone with the
            // public key can make one under any publisher id, and one
            // numbered u32::MAX would otherwise shut out every later epoch.
            if s.epochs
                .iter()
                .any(|(n, c)| *n == epoch || (*n > epoch && c.is_some()))
            {
                return Ok(None);
            }
        } else if self.publishers.len() >= MAX_PUBLISHERS {
            return Err(Error::Invalid("too many publishers".into()));
        }
        let cipher = match self.open(file) {
            Ok((plain, _)) => {
                let bind = record::binding(&publisher, epoch.into(), data_topic)?;
                let key = plain
                    .strip_prefix(bind.as_slice())
                    .filter(|k| k.len() == EPOCH_KEY_LEN)
                    .ok_or_else(|| {
                        Error::Invalid(
                            "an epoch key bound to another topic, publisher or epoch".into(),
                        )
                    })?;
                Some(Aes256Gcm::new_from_slice(key).expect("32-byte key"))
            }
            Err(Error::NotSatisfied) => None,
            Err(e) => return Err(e),
        };
        let readable = cipher.is_some();
        let state = self.publishers.entry(publisher).or_default();
        state.epochs.push_back((epoch, cipher));
        while state.epochs.len() > EPOCHS_KEPT {
            state.epochs.pop_front();
        }
        if readable {
            state.told_unreadable = false;
            events.push(Event::EpochKey { publisher, epoch });
        } else {
            self.unreadable(publisher, events, false);
        }
        Ok(Some(()))
    }

    /// Tells once that `publisher` is unreadable; counts a skipped reading.
    fn unreadable(&mut self, publisher: PublisherId, events: &mut Vec<Event>, reading: bool) {
        let state = self.publishers.entry(publisher).or_default();
        state.unread_since |= reading;
        if state.told_unreadable {
            if reading {
                events.push(Event::Skipped { publisher });
            }
        } else {
            state.told_unreadable = true;
            events.push(Event::NotReadable { publisher });
            if reading {
                events.push(Event::Skipped { publisher });
            }
        }
    }

    /// Opens an abbe encrypted file with the key (checking the signer when
    /// asked to): its plaintext and signer fingerprint.
    fn open(&self, file: &[u8]) -> Result<(Zeroizing<Vec<u8>>, Option<String>), Error> {
        let mut plain = Zeroizing::new(Vec::new());
        let opened =
            facade::decrypt_with(&*self.key, file, &mut *plain, self.verify_with.as_deref())
                .map_err(|e| match e {
                    facade::Error::NotSatisfied => Error::NotSatisfied,
                    other => Error::Invalid(other.to_string()),
                })?;
        Ok((plain, opened.signer.map(|s| s.fingerprint)))
    }

    fn check_signature(
        &self,
        signature: Option<(u8, &[u8])>,
        aad: &[u8],
        ciphertext: &[u8],
    ) -> Result<Option<String>, Error> {
        let Some((curve, block)) = signature else {
            if self.verify_point.is_some() {
                return Err(Error::Invalid(
                    "an unsigned reading (--verify-with requires a signature)".into(),
                ));
            }
            return Ok(None);
        };
        let curve = CurveId::from_u8(curve)
            .ok_or_else(|| Error::Invalid("signature on an unknown curve".into()))?;
        let pk = &block[..signature::public_key_len(curve).unwrap_or(0)];
        // The cheap comparison first: another key's signature costs no
        // pairing.
        if let Some(want) = &self.verify_point {
            if want.as_slice() != pk {
                return Err(Error::Invalid(
                    "reading signed by another key than --verify-with".into(),
                ));
            }
        }
        let mut signed = aad.to_vec();
        signed.extend_from_slice(ciphertext);
        signature::verify_block(curve, block, &signed)
            .map_err(|_| Error::Invalid("reading signature does not verify".into()))?;
        Ok(Some(signature::fingerprint(curve, pk)))
    }

    fn accept(
        &mut self,
        publisher: PublisherId,
        seq: u64,
        topic: &str,
        data: Zeroizing<Vec<u8>>,
        signer: Option<String>,
        events: &mut Vec<Event>,
    ) -> Result<(), Error> {
        let state = self.publishers.entry(publisher).or_default();
        if let Some(last) = state.last_seq {
            if seq <= last {
                return Err(Error::Invalid(format!(
                    "replayed or reordered reading (sequence {seq} after {last})"
                )));
            }
            if seq > last + 1 && !state.unread_since {
                events.push(Event::Missed {
                    publisher,
                    count: seq - last - 1,
                });
            }
        }
        state.last_seq = Some(seq);
        state.unread_since = false;
        events.push(Event::Reading {
            publisher,
            seq,
            topic: topic.to_owned(),
            data,
            signer,
        });
        Ok(())
    }

    /// Keeps a reading until its epoch key arrives (bounded: the oldest
    /// waiting reading is dropped first).
    fn wait(&mut self, topic: &str, payload: &[u8]) -> Result<Option<()>, Error> {
        if payload.len() > MAX_PENDING_BYTES {
            return Err(Error::Invalid("a reading without its epoch key".into()));
        }
        let mut dropped = false;
        while self.pending.len() >= MAX_PENDING
            || self.pending_bytes + payload.len() > MAX_PENDING_BYTES
        {
            let Some((_, p)) = self.pending.pop_front() else {
                break;
            };
            self.pending_bytes -= p.len();
            dropped = true;
        }
        self.pending.push_back((topic.to_owned(), payload.to_vec()));
        self.pending_bytes += payload.len();
        if dropped {
            return Err(Error::Invalid(
                "readings waited too long for their epoch key: the oldest were dropped".into(),
            ));
        }
        Ok(None)
    }
}

fn rejected(payload: &[u8], e: Error) -> Event {
    let publisher = (payload.len() >= record::HEAD_LEN && &payload[..4] == record::MAGIC)
        .then(|| payload[7..record::HEAD_LEN].try_into().expect("16 bytes"));
    Event::Rejected {
        publisher,
        reason: e.to_string(),
    }
}

/// (data topic, publisher id in hex) of a key topic `T/abbe-epoch/<id>`.
fn split_key_topic(topic: &str) -> Option<(&str, &str)> {
    let (rest, id) = topic.rsplit_once('/')?;
    let data = rest
        .strip_suffix(crate::KEY_TOPIC_SEGMENT)?
        .strip_suffix('/')?;
    (id.len() == 2 * record::PUBLISHER_ID_LEN && id.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some((data, id))
}
