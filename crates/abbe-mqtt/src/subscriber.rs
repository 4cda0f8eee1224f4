//! The subscribing side, without I/O: MQTT messages in, readings and
//! reports out. Nothing is released before it authenticated.
//!
//! What a subscriber can promise depends on whether it verifies signatures
//! (docs/FORMAT.md, "MQTT records", says the same):
//! - **With a verifying key** (`--verify-with`), only records whose
//!   signature verifies touch the state a publisher's readings need: its
//!   epoch keys (signed inside their encryption), its sequence, the readings
//!   waiting for a key (a reading's signature is checked before anything
//!   else). Per publisher, a reading is released once and in order: its seq
//!   above every seq released.
//! - **Without**, anyone with the public key can make epoch keys and sealed
//!   readings under any publisher id (ABE encryption is public), and
//!   whoever reads an epoch key can make readings under it: such records
//!   cannot be told from the publisher's. The subscriber still promises
//!   confidentiality and each record's integrity (bound to its publisher
//!   id, topic, epoch and seq), not who made it. It releases a reading at
//!   most once per stream — an epoch key, or a publisher id's sealed
//!   readings — in any order, and no record moves a mark that a later
//!   honest one must pass: a forged key is a stream of its own, and a forged
//!   sealed reading takes the place of at most the one honest reading with
//!   its seq.
//! - A record this key cannot read (policy not satisfied) can be neither
//!   checked nor verified: it only marks its publisher (and epoch) in a
//!   table of its own, to say once that the publisher is unreadable and to
//!   skip its readings; that table takes no room from readable publishers.
//!
//! Every table is bounded and drops its least recently used entries first.
//! So a flood of forgeries can make an unsigned subscriber forget (a
//! dropped stream's replays could pass again; a dropped epoch key's
//! readings wait for the next key), never keep an honest reading out
//! forever.

use crate::record::{self, PublisherId, Record, EPOCH_KEY_LEN};
use crate::Error;
use abbe::curve::CurveId;
use abbe::facade;
use abbe::signature;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::Aes256Gcm;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::Hash;
use zeroize::Zeroizing;

/// Publishers with a readable epoch key or reading tracked at once.
pub const MAX_PUBLISHERS: usize = 4096;
/// Publishers this key cannot read, remembered to tell it once.
pub const MAX_UNREADABLE: usize = 4096;
/// Readings waiting for their epoch key, and their total bytes.
pub const MAX_PENDING: usize = 1024;
pub const MAX_PENDING_BYTES: usize = 8 << 20;
/// Readable epoch keys kept per publisher (the current one, the one before
/// it, and room for forged ones that cannot be told from them).
const KEYS_KEPT: usize = 4;
/// Records of dropped epoch keys remembered per publisher (not opened again).
const RETIRED_KEPT: usize = 8;
/// Runs of consecutive released seqs remembered per unverified stream.
const RUNS_KEPT: usize = 8;
/// Unreadable epochs remembered per publisher.
const UNREADABLE_EPOCHS_KEPT: usize = 4;
/// Topics remembered to report an oversized message once per topic.
const OVERSIZED_TOPICS_KEPT: usize = 1024;

/// What a message brought.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    /// An authenticated reading.
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
    /// by `count` + 1 between two readings this key read (an indicator:
    /// unsigned, a forged reading can make one up).
    Missed { publisher: PublisherId, count: u64 },
    /// A message refused, and why.
    Rejected {
        publisher: Option<PublisherId>,
        reason: String,
    },
    /// A message above [`record::MAX_LEN`] bytes, skipped unread; `first`
    /// on the first such message of its topic (report that one).
    Oversized {
        topic: String,
        len: usize,
        first: bool,
    },
    /// The connection to the broker dropped (from
    /// [`crate::MqttSubscriber::next`], once per cause until a message
    /// arrives again); the client reconnects.
    Disconnected { reason: String },
}

/// A map of at most `cap` entries that drops the least recently used.
struct Lru<K, V> {
    cap: usize,
    clock: u64,
    map: HashMap<K, (u64, V)>,
    order: BTreeMap<u64, K>,
}

impl<K: Hash + Eq + Clone, V> Lru<K, V> {
    fn new(cap: usize) -> Self {
        Lru {
            cap,
            clock: 0,
            map: HashMap::new(),
            order: BTreeMap::new(),
        }
    }

    fn contains(&self, k: &K) -> bool {
        self.map.contains_key(k)
    }

    /// The entry, left where it is in the order.
    fn peek_mut(&mut self, k: &K) -> Option<&mut V> {
        self.map.get_mut(k).map(|(_, v)| v)
    }

    /// The entry, now the most recently used.
    fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        self.clock += 1;
        let (used, v) = self.map.get_mut(k)?;
        let key = self
            .order
            .remove(used)
            .expect("every entry is in the order");
        self.order.insert(self.clock, key);
        *used = self.clock;
        Some(v)
    }

    /// The entry, inserted (dropping the least recently used one when
    /// full) if absent; now the most recently used.
    fn get_or_insert_with(&mut self, k: K, make: impl FnOnce() -> V) -> &mut V {
        if !self.map.contains_key(&k) {
            if self.map.len() >= self.cap {
                if let Some((_, oldest)) = self.order.pop_first() {
                    self.map.remove(&oldest);
                }
            }
            self.clock += 1;
            self.order.insert(self.clock, k.clone());
            self.map.insert(k.clone(), (self.clock, make()));
        }
        self.get_mut(&k).expect("just inserted")
    }
}

/// The seqs one stream released.
#[derive(Debug)]
enum Released {
    /// A verified publisher's: in order; the highest so far.
    InOrder(Option<u64>),
    /// An unverified stream's, in any order: runs (lo, hi) of consecutive
    /// seqs, the most recently extended first (an honest stream is one
    /// run, and one more per loss). A forged far jump is a run of its own,
    /// so it moves no mark that later readings must pass.
    Runs(VecDeque<(u64, u64)>),
}

impl Released {
    fn new(in_order: bool) -> Self {
        match in_order {
            true => Released::InOrder(None),
            false => Released::Runs(VecDeque::new()),
        }
    }

    /// The seq released last (in order: the highest).
    fn latest(&self) -> Option<u64> {
        match self {
            Released::InOrder(last) => *last,
            Released::Runs(runs) => runs.front().map(|&(_, hi)| hi),
        }
    }

    /// Refuses a seq this stream released (in order: or passed).
    fn check(&self, seq: u64) -> Result<(), Error> {
        match self {
            Released::InOrder(Some(last)) if seq <= *last => Err(Error::Invalid(format!(
                "replayed or reordered reading (sequence {seq} after {last})"
            ))),
            Released::Runs(runs) if runs.iter().any(|&(lo, hi)| (lo..=hi).contains(&seq)) => Err(
                Error::Invalid(format!("replayed reading (sequence {seq} released before)")),
            ),
            _ => Ok(()),
        }
    }

    /// Records a checked `seq`; returns how many seqs it skipped after the
    /// latest (after `before` for a stream's first).
    fn record(&mut self, seq: u64, before: Option<u64>) -> u64 {
        let gap = match self.latest().or(before) {
            Some(last) if seq > last => seq - last - 1,
            _ => 0,
        };
        match self {
            Released::InOrder(last) => *last = Some(seq),
            Released::Runs(runs) => {
                let below = runs
                    .iter()
                    .position(|&(_, hi)| hi.checked_add(1) == Some(seq));
                let above = runs
                    .iter()
                    .position(|&(lo, _)| seq.checked_add(1) == Some(lo));
                let run = match (below, above) {
                    (Some(b), Some(a)) => {
                        let run = (runs[b].0, runs[a].1);
                        runs.remove(b.max(a));
                        runs.remove(b.min(a));
                        run
                    }
                    (Some(b), None) => (runs.remove(b).expect("found").0, seq),
                    (None, Some(a)) => (seq, runs.remove(a).expect("found").1),
                    (None, None) => (seq, seq),
                };
                runs.push_front(run);
                runs.truncate(RUNS_KEPT);
            }
        }
        gap
    }
}

/// A readable epoch key.
struct EpochKey {
    epoch: u32,
    /// SHA-256 of its record: the same record again is this key.
    record: [u8; 32],
    cipher: Aes256Gcm,
    /// Unverified: the readings under this key (a stream of its own).
    released: Released,
    /// The subscriber's clock when it last stored or opened something.
    used: u64,
}

/// What is known of a publisher some record of which was readable (and,
/// under `--verify-with`, verified).
struct PublisherState {
    keys: Vec<EpochKey>,
    /// Records of keys dropped for room: not opened again, so a replayed
    /// old key neither brings its readings back nor pushes a current key
    /// out.
    retired: VecDeque<[u8; 32]>,
    /// Verified: all its readings. Unverified: its sealed readings.
    released: Released,
    /// A reading this key could not read came after the last released: a
    /// jump in the sequence is then no loss.
    unread_since: bool,
}

impl PublisherState {
    fn new(verified: bool) -> Self {
        PublisherState {
            keys: Vec::new(),
            retired: VecDeque::new(),
            released: Released::new(verified),
            unread_since: false,
        }
    }
}

/// A publisher this key cannot read (its records unverifiable, so
/// nothing more is kept).
#[derive(Default)]
struct Unreadable {
    /// Epochs whose key this key cannot read: their readings are skipped.
    epochs: VecDeque<u32>,
    told: bool,
}

/// A reading waiting for its epoch key (its signature, if any, checked).
struct Waiting {
    publisher: PublisherId,
    epoch: u32,
    topic: String,
    payload: Vec<u8>,
    signer: Option<String>,
}

/// One subscriber's key and state.
pub struct Subscriber {
    /// Decoded once: its pairing lines are computed once for every record.
    key: Box<dyn facade::UserKey>,
    verify_with: Option<Vec<u8>>,
    verify_point: Option<Vec<u8>>,
    publishers: Lru<PublisherId, PublisherState>,
    unreadable: Lru<PublisherId, Unreadable>,
    pending: VecDeque<Waiting>,
    pending_bytes: usize,
    /// SHA-256 of topics an oversized message was reported on.
    oversized: Lru<[u8; 32], ()>,
    /// Counts messages: when an epoch key was last used.
    clock: u64,
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
            publishers: Lru::new(MAX_PUBLISHERS),
            unreadable: Lru::new(MAX_UNREADABLE),
            pending: VecDeque::new(),
            pending_bytes: 0,
            oversized: Lru::new(OVERSIZED_TOPICS_KEPT),
            clock: 0,
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
        self.clock += 1;
        if payload.len() > record::MAX_LEN {
            let id: [u8; 32] = Sha256::digest(topic.as_bytes()).into();
            let first = !self.oversized.contains(&id);
            self.oversized.get_or_insert_with(id, || ());
            events.push(Event::Oversized {
                topic: topic.to_owned(),
                len: payload.len(),
                first,
            });
            return events;
        }
        if payload.is_empty() && split_key_topic(topic).is_some() {
            // MQTT's way to clear a retained message: a retired epoch key.
            return events;
        }
        match self.handle(topic, payload, None, &mut events) {
            Ok(Some(epoch)) => self.retry(epoch, &mut events),
            Ok(None) => {}
            Err(e) => events.push(rejected(payload, e)),
        }
        events
    }

    /// Handles the readings that waited for (publisher, epoch)'s key.
    fn retry(&mut self, (publisher, epoch): (PublisherId, u32), events: &mut Vec<Event>) {
        let (ready, waiting) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition::<Vec<_>, _>(|w| w.publisher == publisher && w.epoch == epoch);
        self.pending = waiting.into();
        for w in ready {
            self.pending_bytes -= w.payload.len();
            if let Err(e) = self.handle(&w.topic, &w.payload, Some(w.signer), events) {
                events.push(rejected(&w.payload, e));
            }
        }
    }

    /// Ok(Some((publisher, epoch))) when that epoch's key (or the news
    /// that it is unreadable) was stored. `checked`: a waiting reading's
    /// signer, its signature already checked.
    fn handle(
        &mut self,
        topic: &str,
        payload: &[u8],
        checked: Option<Option<String>>,
        events: &mut Vec<Event>,
    ) -> Result<Option<(PublisherId, u32)>, Error> {
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
                self.epoch_key(data_topic, payload, publisher, epoch, file, events)
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
                let aad = record::reading_aad(authenticated, topic)?;
                // The signature first: under --verify-with, nothing
                // unverified goes further (not even into the waiting room).
                let signer = match checked {
                    Some(signer) => signer,
                    None => self.check_signature(signature, &aad, ciphertext)?,
                };
                let reading = EpochReading {
                    publisher,
                    epoch,
                    seq,
                    aad: &aad,
                    ciphertext,
                };
                self.reading(topic, payload, reading, signer, events)?;
                Ok(None)
            }
            Record::Sealed {
                publisher,
                seq,
                file,
            } => {
                self.sealed(topic, publisher, seq, file, events)?;
                Ok(None)
            }
        }
    }

    fn epoch_key(
        &mut self,
        data_topic: &str,
        payload: &[u8],
        publisher: PublisherId,
        epoch: u32,
        file: &[u8],
        events: &mut Vec<Event>,
    ) -> Result<Option<(PublisherId, u32)>, Error> {
        let record: [u8; 32] = Sha256::digest(payload).into();
        let verified = self.verify_point.is_some();
        if let Some(state) = self.publishers.peek_mut(&publisher) {
            if let Some(k) = state.keys.iter_mut().find(|k| k.record == record) {
                // A retained key seen again.
                k.used = self.clock;
                return Ok(None);
            }
            // Verified numbers are the signer's, and go up: an older key is
            // a replay. Unverified ones prove nothing: a forged key numbered
            // u32::MAX must not shut out the publisher's next epochs.
            if state.retired.contains(&record)
                || (verified && state.keys.iter().any(|k| k.epoch >= epoch))
            {
                return Ok(None);
            }
        }
        let plain = match self.open(file) {
            Ok((plain, _)) => plain,
            Err(Error::NotSatisfied) => {
                self.unreadable(publisher, Some(epoch), false, events);
                return Ok(Some((publisher, epoch)));
            }
            Err(e) => return Err(e),
        };
        let bind = record::binding(&publisher, epoch.into(), data_topic)?;
        let key = plain
            .strip_prefix(bind.as_slice())
            .filter(|k| k.len() == EPOCH_KEY_LEN)
            .ok_or_else(|| {
                Error::Invalid("an epoch key bound to another topic, publisher or epoch".into())
            })?;
        let key = EpochKey {
            epoch,
            record,
            cipher: Aes256Gcm::new_from_slice(key).expect("32-byte key"),
            released: Released::new(false),
            used: self.clock,
        };
        let state = self
            .publishers
            .get_or_insert_with(publisher, || PublisherState::new(verified));
        if state.keys.len() >= KEYS_KEPT {
            let oldest = (0..state.keys.len())
                .min_by_key(|&i| state.keys[i].used)
                .expect("keys kept");
            let dropped = state.keys.swap_remove(oldest);
            if state.retired.len() >= RETIRED_KEPT {
                state.retired.pop_front();
            }
            state.retired.push_back(dropped.record);
        }
        state.keys.push(key);
        if let Some(u) = self.unreadable.peek_mut(&publisher) {
            u.told = false;
        }
        events.push(Event::EpochKey { publisher, epoch });
        Ok(Some((publisher, epoch)))
    }

    /// An epoch reading, its signature checked.
    fn reading(
        &mut self,
        topic: &str,
        payload: &[u8],
        reading: EpochReading<'_>,
        signer: Option<String>,
        events: &mut Vec<Event>,
    ) -> Result<(), Error> {
        let EpochReading {
            publisher,
            epoch,
            seq,
            aad,
            ciphertext,
        } = reading;
        if let Some(state) = self.publishers.peek_mut(&publisher) {
            if self.verify_point.is_some() {
                // A verified replay does not wait for a key.
                state.released.check(seq)?;
            }
            let mut candidates = state
                .keys
                .iter()
                .enumerate()
                .filter(|(_, k)| k.epoch == epoch);
            let mut found = false;
            // Unverified, several keys may claim the epoch (forged ones):
            // the reading opens under at most one.
            let opened = candidates.find_map(|(i, k)| {
                found = true;
                k.cipher
                    .decrypt(
                        &record::nonce(seq).into(),
                        Payload {
                            msg: ciphertext,
                            aad,
                        },
                    )
                    .ok()
                    .map(|data| (i, Zeroizing::new(data)))
            });
            if let Some((i, data)) = opened {
                return self.release(publisher, Some(i), epoch, seq, topic, data, signer, events);
            }
            if found {
                return Err(Error::Invalid(
                    "reading failed authentication (tampered, or another topic's)".into(),
                ));
            }
        }
        if self
            .unreadable
            .get_mut(&publisher)
            .is_some_and(|u| u.epochs.contains(&epoch))
        {
            self.unreadable(publisher, None, true, events);
            return Ok(());
        }
        self.wait(topic, payload, publisher, epoch, signer)
    }

    fn sealed(
        &mut self,
        topic: &str,
        publisher: PublisherId,
        seq: u64,
        file: &[u8],
        events: &mut Vec<Event>,
    ) -> Result<(), Error> {
        // A replay costs no pairing (refusing changes nothing).
        if let Some(state) = self.publishers.peek_mut(&publisher) {
            state.released.check(seq)?;
        }
        let (plain, signer) = match self.open(file) {
            Err(Error::NotSatisfied) => {
                self.unreadable(publisher, None, true, events);
                return Ok(());
            }
            other => other?,
        };
        let bind = record::binding(&publisher, seq, topic)?;
        let data = plain.strip_prefix(bind.as_slice()).ok_or_else(|| {
            Error::Invalid("a sealed reading bound to another topic, publisher or position".into())
        })?;
        let verified = self.verify_point.is_some();
        self.publishers
            .get_or_insert_with(publisher, || PublisherState::new(verified));
        let data = Zeroizing::new(data.to_vec());
        self.release(publisher, None, 0, seq, topic, data, signer, events)
    }

    /// Marks `publisher` (and `epoch`) unreadable, telling it once; counts
    /// a skipped reading.
    fn unreadable(
        &mut self,
        publisher: PublisherId,
        epoch: Option<u32>,
        reading: bool,
        events: &mut Vec<Event>,
    ) {
        let u = self
            .unreadable
            .get_or_insert_with(publisher, Unreadable::default);
        if let Some(e) = epoch.filter(|e| !u.epochs.contains(e)) {
            if u.epochs.len() >= UNREADABLE_EPOCHS_KEPT {
                u.epochs.pop_front();
            }
            u.epochs.push_back(e);
        }
        if !u.told {
            u.told = true;
            events.push(Event::NotReadable { publisher });
        }
        if reading {
            events.push(Event::Skipped { publisher });
            if let Some(state) = self.publishers.peek_mut(&publisher) {
                state.unread_since = true;
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
                    facade::Error::NotSatisfied | facade::Error::Expired(_) => Error::NotSatisfied,
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

    /// Releases an authenticated reading of a tracked publisher: under
    /// epoch key `key` (an index into its keys) or sealed.
    #[allow(clippy::too_many_arguments)]
    fn release(
        &mut self,
        publisher: PublisherId,
        key: Option<usize>,
        epoch: u32,
        seq: u64,
        topic: &str,
        data: Zeroizing<Vec<u8>>,
        signer: Option<String>,
        events: &mut Vec<Event>,
    ) -> Result<(), Error> {
        let verified = self.verify_point.is_some();
        let clock = self.clock;
        let state = self
            .publishers
            .get_mut(&publisher)
            .expect("a tracked publisher");
        let released = match key {
            Some(i) if !verified => {
                // A key's first reading: a loss is counted from the last
                // reading under the epoch before.
                let before = match state.keys[i].released.latest() {
                    Some(_) => None,
                    None => state
                        .keys
                        .iter()
                        .filter(|k| Some(k.epoch) == epoch.checked_sub(1))
                        .filter_map(|k| k.released.latest())
                        .max(),
                };
                state.keys[i].used = clock;
                (&mut state.keys[i].released, before)
            }
            Some(i) => {
                state.keys[i].used = clock;
                (&mut state.released, None)
            }
            None => (&mut state.released, None),
        };
        let (released, before) = released;
        released.check(seq)?;
        let gap = released.record(seq, before);
        if gap > 0 && !state.unread_since {
            events.push(Event::Missed {
                publisher,
                count: gap,
            });
        }
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
    fn wait(
        &mut self,
        topic: &str,
        payload: &[u8],
        publisher: PublisherId,
        epoch: u32,
        signer: Option<String>,
    ) -> Result<(), Error> {
        if payload.len() > MAX_PENDING_BYTES {
            return Err(Error::Invalid("a reading without its epoch key".into()));
        }
        let mut dropped = false;
        while self.pending.len() >= MAX_PENDING
            || self.pending_bytes + payload.len() > MAX_PENDING_BYTES
        {
            let Some(w) = self.pending.pop_front() else {
                break;
            };
            self.pending_bytes -= w.payload.len();
            dropped = true;
        }
        self.pending.push_back(Waiting {
            publisher,
            epoch,
            topic: topic.to_owned(),
            payload: payload.to_vec(),
            signer,
        });
        self.pending_bytes += payload.len();
        if dropped {
            return Err(Error::Invalid(
                "readings waited too long for their epoch key: the oldest were dropped".into(),
            ));
        }
        Ok(())
    }
}

/// What opens an epoch reading.
struct EpochReading<'a> {
    publisher: PublisherId,
    epoch: u32,
    seq: u64,
    /// The AEAD's associated data (what its signature covers, with the
    /// ciphertext).
    aad: &'a [u8],
    ciphertext: &'a [u8],
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

#[cfg(test)]
mod tests {
    //! The attacks of abbe issue 34 (point 5), each record forged the way
    //! an attacker would: with the public key only.
    use super::*;
    use crate::publisher::{key_topic, Protection, Publisher};
    use crate::Message;
    use abbe::curve::Bls12;
    use abbe::facade::Mode;
    use abbe::kem::SetupParams;
    use abbe::signature::{AnySigningKey, Bls};
    use abbe::wire::SchemeId;
    use rand_core::{OsRng, RngCore};
    use std::time::Instant;

    const TOPIC: &str = "ward/9";
    const EPOCHS_OF_4: Protection = Protection::Epochs {
        messages: Some(4),
        age: None,
    };

    /// A public key and a user key with the attribute `doctor`.
    fn keys() -> (Vec<u8>, Zeroizing<Vec<u8>>) {
        let scheme = facade::scheme(SchemeId::Waters11, CurveId::Bls12_381).unwrap();
        let (pk, mk) = scheme.setup(&SetupParams::default(), &mut OsRng).unwrap();
        let doctor = scheme.keygen(&mk, "doctor", Some(&pk), &mut OsRng).unwrap();
        (pk, doctor)
    }

    /// A signing key (bytes) and its verifying key.
    fn signer() -> (Zeroizing<Vec<u8>>, Vec<u8>) {
        let sk = Bls::<Bls12>::keygen(&mut OsRng);
        let vk = sk.verifying_key().to_bytes();
        (sk.to_bytes(), vk)
    }

    fn publisher(pk: &[u8], protection: Protection, sk: Option<&[u8]>) -> Publisher {
        let signer = sk.map(|sk| AnySigningKey::from_bytes(sk).unwrap());
        Publisher::new(pk.to_vec(), "doctor", TOPIC, protection, signer).unwrap()
    }

    /// Readings `r{from}` .. `r{to - 1}`.
    fn publish(p: &mut Publisher, from: usize, to: usize) -> Vec<Message> {
        (from..to)
            .flat_map(|i| {
                p.publish(format!("r{i}").as_bytes(), Instant::now())
                    .unwrap()
            })
            .collect()
    }

    fn honest(from: usize, to: usize) -> Vec<String> {
        (from..to).map(|i| format!("r{i}")).collect()
    }

    fn abe(pk: &[u8], policy: &str, plain: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        facade::encrypt(
            pk,
            policy,
            Mode::Cca,
            plain,
            &mut out,
            &Default::default(),
            &mut OsRng,
        )
        .unwrap();
        out
    }

    /// An epoch key for `publisher` readable under the policy `doctor`,
    /// and the key.
    fn forged_epoch_key(pk: &[u8], publisher: &PublisherId, epoch: u32) -> (Message, [u8; 32]) {
        let mut key = [0u8; 32];
        OsRng.fill_bytes(&mut key);
        let plain = record::epoch_key_plaintext(publisher, epoch, TOPIC, &key).unwrap();
        let payload = [
            record::epoch_key_head(publisher, epoch),
            abe(pk, "doctor", &plain),
        ]
        .concat();
        let topic = key_topic(TOPIC, publisher);
        (Message::new(&topic, payload, true), key)
    }

    /// A reading under a forged epoch key.
    fn forged_reading(key: &[u8; 32], publisher: &PublisherId, epoch: u32, seq: u64) -> Message {
        let head = record::reading_head(publisher, epoch, seq, false);
        let aad = record::reading_aad(&head, TOPIC).unwrap();
        let ct = Aes256Gcm::new_from_slice(key)
            .unwrap()
            .encrypt(
                &record::nonce(seq).into(),
                Payload {
                    msg: b"forged",
                    aad: &aad,
                },
            )
            .unwrap();
        Message::new(TOPIC, [head, ct].concat(), false)
    }

    fn forged_sealed(pk: &[u8], publisher: &PublisherId, seq: u64) -> Message {
        let plain = [
            record::binding(publisher, seq, TOPIC).unwrap(),
            b"forged".to_vec(),
        ]
        .concat();
        let payload = [
            record::sealed_head(publisher, seq),
            abe(pk, "doctor", &plain),
        ]
        .concat();
        Message::new(TOPIC, payload, false)
    }

    fn feed(s: &mut Subscriber, messages: &[Message]) -> Vec<Event> {
        messages
            .iter()
            .flat_map(|m| s.receive(&m.topic, &m.payload))
            .collect()
    }

    fn readings(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Reading { data, .. } => Some(String::from_utf8(data.to_vec()).unwrap()),
                _ => None,
            })
            .collect()
    }

    fn honest_readings(events: &[Event]) -> Vec<String> {
        readings(events)
            .into_iter()
            .filter(|r| r != "forged")
            .collect()
    }

    fn rejections(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Rejected { reason, .. } => Some(reason.clone()),
                _ => None,
            })
            .collect()
    }

    fn missed(events: &[Event]) -> u64 {
        events
            .iter()
            .map(|e| match e {
                Event::Missed { count, .. } => *count,
                _ => 0,
            })
            .sum()
    }

    /// (a) A readable epoch key numbered u32::MAX under an honest unsigned
    /// publisher's id, a reading at seq u64::MAX under it, and a key
    /// taking the publisher's next epoch number with a reading at its next
    /// seq: the 26 later honest readings all pass. With --verify-with the
    /// forgeries are refused and touch nothing.
    #[test]
    fn forged_jumps_in_epoch_or_sequence_shut_out_no_later_reading() {
        let (pk, doctor) = keys();
        let (sk, vk) = signer();
        for signed in [false, true] {
            let mut p = publisher(&pk, EPOCHS_OF_4, signed.then_some(&sk[..]));
            let mut sub = Subscriber::new(doctor.clone(), signed.then(|| vk.clone())).unwrap();
            let id = *p.id();
            let mut ev = feed(&mut sub, &publish(&mut p, 0, 4));
            let (far, far_key) = forged_epoch_key(&pk, &id, u32::MAX);
            let (next, next_key) = forged_epoch_key(&pk, &id, 2);
            let forged = [
                far,
                forged_reading(&far_key, &id, u32::MAX, u64::MAX),
                next,
                forged_reading(&next_key, &id, 2, 4),
            ];
            ev.extend(feed(&mut sub, &forged));
            ev.extend(feed(&mut sub, &publish(&mut p, 4, 30)));
            assert_eq!(honest_readings(&ev), honest(0, 30), "signed: {signed}");
            assert_eq!(missed(&ev), 0, "{ev:?}");
            match signed {
                // Unsigned: the forgeries cannot be told from the
                // publisher's, and are released as their own streams.
                false => {
                    assert_eq!(readings(&ev).len(), 32);
                    assert_eq!(rejections(&ev), Vec::<String>::new());
                }
                true => {
                    assert_eq!(readings(&ev).len(), 30);
                    assert_eq!(rejections(&ev).len(), 4, "{ev:?}");
                }
            }
        }
        // Per message: a forged sealed reading at seq u64::MAX, and one at
        // the publisher's next seq (3), which takes that one's place (it
        // cannot be told from it) and no other.
        for signed in [false, true] {
            let mut p = publisher(&pk, Protection::PerMessage, signed.then_some(&sk[..]));
            let mut sub = Subscriber::new(doctor.clone(), signed.then(|| vk.clone())).unwrap();
            let id = *p.id();
            let mut ev = feed(&mut sub, &publish(&mut p, 0, 3));
            ev.extend(feed(
                &mut sub,
                &[
                    forged_sealed(&pk, &id, u64::MAX),
                    forged_sealed(&pk, &id, 3),
                ],
            ));
            ev.extend(feed(&mut sub, &publish(&mut p, 3, 8)));
            let rejected = rejections(&ev);
            if signed {
                assert_eq!(honest_readings(&ev), honest(0, 8));
                assert_eq!(readings(&ev).len(), 8);
                assert_eq!(rejected.len(), 2, "{ev:?}");
            } else {
                let mut want = honest(0, 8);
                want.remove(3);
                assert_eq!(honest_readings(&ev), want);
                assert_eq!(rejected.len(), 1, "{ev:?}");
                assert!(rejected[0].contains("replayed"), "{rejected:?}");
            }
        }
    }

    /// (b) 4 200 epoch keys under random publisher ids, all one ABE file
    /// for a policy nobody holds (its binding cannot be checked, so one
    /// encryption serves them all), then unreadable keys under the honest
    /// publisher's own id numbered after its current epoch: a new
    /// publisher, signed or not, still gets every reading through.
    #[test]
    fn unreadable_records_take_no_room_from_readable_publishers() {
        let (pk, doctor) = keys();
        let (sk, vk) = signer();
        let junk = abe(&pk, "nobody", &[0u8; 32]);
        let junk_key = |id: &PublisherId, epoch: u32| {
            let payload = [record::epoch_key_head(id, epoch), junk.clone()].concat();
            Message::new(&key_topic(TOPIC, id), payload, true)
        };
        let flood: Vec<Message> = (0..MAX_PUBLISHERS + 104)
            .map(|_| {
                let mut id = [0u8; 16];
                OsRng.fill_bytes(&mut id);
                junk_key(&id, 1)
            })
            .collect();
        for signed in [false, true] {
            let mut sub = Subscriber::new(doctor.clone(), signed.then(|| vk.clone())).unwrap();
            let ev = feed(&mut sub, &flood);
            assert_eq!(rejections(&ev), Vec::<String>::new());
            let mut p = publisher(&pk, EPOCHS_OF_4, signed.then_some(&sk[..]));
            let mut ev = feed(&mut sub, &publish(&mut p, 0, 2));
            let id = *p.id();
            for epoch in [2, 3, u32::MAX] {
                ev.extend(feed(&mut sub, &[junk_key(&id, epoch)]));
            }
            ev.extend(feed(&mut sub, &publish(&mut p, 2, 10)));
            assert_eq!(readings(&ev), honest(0, 10), "signed: {signed}");
            assert_eq!(rejections(&ev), Vec::<String>::new());
        }
    }

    /// (c) Messages above the record limit are skipped unread and reported
    /// once per topic; the publisher's records then pass.
    #[test]
    fn oversized_messages_are_reported_once_per_topic_and_skipped() {
        let (pk, doctor) = keys();
        let mut sub = Subscriber::new(doctor, None).unwrap();
        let big = vec![0u8; record::MAX_LEN + 1];
        let keys = key_topic(TOPIC, &[7; 16]);
        let mut firsts = Vec::new();
        for topic in [&keys[..], &keys[..], TOPIC] {
            match sub.receive(topic, &big).as_slice() {
                [Event::Oversized { len, first, .. }] if *len == big.len() => firsts.push(*first),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(firsts, [true, false, true]);
        // At the limit, a message is decoded (and refused for what it is).
        let ev = sub.receive(TOPIC, &big[1..]);
        assert!(rejections(&ev)[0].contains("bad magic"), "{ev:?}");
        let mut p = publisher(&pk, EPOCHS_OF_4, None);
        assert_eq!(
            readings(&feed(&mut sub, &publish(&mut p, 0, 3))),
            honest(0, 3)
        );
    }

    #[test]
    fn runs_release_each_seq_once_in_any_order_within_bounded_memory() {
        let mut r = Released::new(false);
        let mut gaps = Vec::new();
        for seq in [5, 6, u64::MAX, 7, 9, 8, 0] {
            r.check(seq).unwrap();
            gaps.push(r.record(seq, None));
        }
        // 9 after 7 skips one; u64::MAX after 6 claims a gap it cannot
        // enforce (an unsigned forgery may make it up).
        assert_eq!(gaps, [0, 0, u64::MAX - 7, 0, 1, 0, 0]);
        for seq in [0, 5, 6, 7, 8, 9, u64::MAX] {
            assert!(r.check(seq).is_err(), "{seq}");
        }
        for seq in [1, 4, 10, u64::MAX - 1] {
            assert!(r.check(seq).is_ok(), "{seq}");
        }
        let Released::Runs(runs) = &r else {
            unreachable!()
        };
        assert_eq!(runs.len(), 3, "{runs:?}");
        for seq in (100..200).step_by(2) {
            r.record(seq, None);
        }
        let Released::Runs(runs) = &r else {
            unreachable!()
        };
        assert_eq!(runs.len(), RUNS_KEPT);
        // In order (verified): a seq must pass the highest.
        let mut r = Released::new(true);
        r.record(5, None);
        assert!(r.check(4).is_err() && r.check(5).is_err() && r.check(6).is_ok());
    }

    #[test]
    fn format_md_states_the_bounds_in_force() {
        let doc = include_str!("../../../docs/FORMAT.md");
        let section = &doc[doc.find("## MQTT records").unwrap()..];
        let section = &section[..section[3..].find("\n## ").unwrap()];
        let section = section.split_whitespace().collect::<Vec<_>>().join(" ");
        for bound in [
            format!("{MAX_PUBLISHERS} publishers with a readable record"),
            format!("{MAX_UNREADABLE} unreadable ones"),
            format!("{KEYS_KEPT} epoch keys per publisher"),
            format!("its {RETIRED_KEPT} last dropped keys"),
            format!(
                "{MAX_PENDING} readings ({} MiB) waiting",
                MAX_PENDING_BYTES >> 20
            ),
            format!("above {} MiB is skipped", record::MAX_LEN >> 20),
        ] {
            assert!(section.contains(&bound), "FORMAT.md lacks {bound:?}");
        }
    }

    #[test]
    fn lru_drops_the_least_recently_used_entry() {
        let mut lru = Lru::new(2);
        lru.get_or_insert_with(1, || "a");
        lru.get_or_insert_with(2, || "b");
        lru.get_mut(&1);
        lru.get_or_insert_with(3, || "c");
        assert!(lru.contains(&1) && !lru.contains(&2) && lru.contains(&3));
        lru.peek_mut(&1);
        lru.get_or_insert_with(4, || "d");
        assert!(!lru.contains(&1) && lru.contains(&3) && lru.contains(&4));
    }
}
