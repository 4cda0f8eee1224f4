//! The protocol without a broker: publishers' messages fed to subscribers.

use abbe::curve::{Bls12, CurveId};
use abbe::facade;
use abbe::kem::SetupParams;
use abbe::signature::{AnySigningKey, Bls};
use abbe::wire::SchemeId;
use abbe_mqtt::record::PublisherId;
use abbe_mqtt::{Event, Message, Protection, Publisher, Subscriber};
use rand_core::OsRng;
use std::time::{Duration, Instant};
use zeroize::Zeroizing;

const EPOCHS: Protection = Protection::Epochs {
    messages: Some(3),
    age: None,
};

struct Setup {
    pk: Vec<u8>,
    mk: Zeroizing<Vec<u8>>,
    scheme: &'static dyn facade::Scheme,
}

fn setup(scheme: SchemeId) -> Setup {
    let scheme = facade::scheme(scheme, CurveId::Bls12_381).unwrap();
    let (pk, mk) = scheme.setup(&SetupParams::default(), &mut OsRng).unwrap();
    Setup { pk, mk, scheme }
}

impl Setup {
    fn subscriber(&self, key_side: &str, verify_with: Option<Vec<u8>>) -> Subscriber {
        let key = self
            .scheme
            .keygen(&self.mk, key_side, Some(&self.pk), &mut OsRng)
            .unwrap();
        Subscriber::new(key, verify_with).unwrap()
    }
    fn publisher(&self, target: &str, p: Protection) -> Publisher {
        Publisher::new(self.pk.clone(), target, "plant/line1", p, None).unwrap()
    }
}

fn feed(s: &mut Subscriber, messages: &[Message]) -> Vec<Event> {
    messages
        .iter()
        .flat_map(|m| s.receive(&m.topic, &m.payload))
        .collect()
}

fn readings(events: &[Event]) -> Vec<Vec<u8>> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Reading { data, .. } => Some(data.to_vec()),
            _ => None,
        })
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

fn publish_all(p: &mut Publisher, readings: &[&[u8]]) -> Vec<Message> {
    readings
        .iter()
        .flat_map(|r| p.publish(r, Instant::now()).unwrap())
        .collect()
}

#[test]
fn both_modes_deliver_to_satisfying_keys_only_and_tell_the_others_once() {
    let s = setup(SchemeId::Waters11);
    for protection in [Protection::PerMessage, EPOCHS] {
        let mut p = s.publisher("doctor and cardiology", protection);
        let msgs = publish_all(&mut p, &[b"r1", b"r2", b"r3", b"r4", b"r5"]);
        // Epochs of 3 readings: two epoch keys, retained on the key topic.
        let keys: Vec<_> = msgs.iter().filter(|m| m.retain).collect();
        if protection == EPOCHS {
            assert_eq!(keys.len(), 2);
            assert!(keys.iter().all(|k| k.topic == p.key_topic()));
            assert_eq!(msgs.len(), 7);
        } else {
            assert!(keys.is_empty());
        }
        let mut good = s.subscriber("doctor, cardiology", None);
        let ev = feed(&mut good, &msgs);
        assert_eq!(
            readings(&ev),
            [b"r1", b"r2", b"r3", b"r4", b"r5"].map(|r| r.to_vec())
        );
        assert!(rejections(&ev).is_empty(), "{ev:?}");
        let mut other = s.subscriber("doctor, oncology", None);
        let ev = feed(&mut other, &msgs);
        assert!(readings(&ev).is_empty());
        let told = ev
            .iter()
            .filter(|e| matches!(e, Event::NotReadable { .. }))
            .count();
        let skipped = ev
            .iter()
            .filter(|e| matches!(e, Event::Skipped { .. }))
            .count();
        assert_eq!(told, 1, "told once: {ev:?}");
        assert!(skipped >= 4, "{ev:?}");
    }
}

#[test]
fn kp_schemes_put_the_policy_on_the_subscriber() {
    let s = setup(SchemeId::Gpsw06);
    let mut p = s.publisher("temperature, line1", EPOCHS);
    let msgs = publish_all(&mut p, &[b"21.5"]);
    let mut yes = s.subscriber("temperature and line1", None);
    assert_eq!(readings(&feed(&mut yes, &msgs)), [b"21.5".to_vec()]);
    let mut no = s.subscriber("temperature and line2", None);
    assert!(readings(&feed(&mut no, &msgs)).is_empty());
}

#[test]
fn replays_reordering_tampering_and_moved_records_are_refused() {
    let s = setup(SchemeId::Waters11);
    for protection in [Protection::PerMessage, EPOCHS] {
        let mut p = s.publisher("a", protection);
        let msgs = publish_all(&mut p, &[b"one", b"two"]);
        let data: Vec<&Message> = msgs.iter().filter(|m| !m.retain).collect();
        let mut sub = s.subscriber("a", None);
        let ev = feed(&mut sub, &msgs);
        assert_eq!(readings(&ev).len(), 2);
        // Replaying either reading, or the first after the second
        // (unsigned: each is released at most once, in any order).
        for m in &data {
            let ev = sub.receive(&m.topic, &m.payload);
            assert!(readings(&ev).is_empty());
            assert!(rejections(&ev)[0].contains("replayed reading"), "{ev:?}");
        }
        // A flipped byte anywhere after the head.
        let mut sub = s.subscriber("a", None);
        feed(
            &mut sub,
            &msgs
                .iter()
                .filter(|m| m.retain)
                .cloned()
                .collect::<Vec<_>>(),
        );
        let mut bad = data[0].payload.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        let ev = sub.receive(&data[0].topic, &bad);
        assert!(
            readings(&ev).is_empty() && rejections(&ev).len() == 1,
            "{ev:?}"
        );
        // The same record on another topic.
        let ev = sub.receive("plant/line2", &data[0].payload);
        assert!(
            readings(&ev).is_empty() && rejections(&ev).len() == 1,
            "{ev:?}"
        );
        // A sequence number rewritten by the broker.
        let mut moved = data[1].payload.clone();
        let seq_at = if protection == EPOCHS { 27 } else { 23 };
        moved[seq_at + 7] ^= 1;
        let ev = sub.receive(&data[1].topic, &moved);
        assert!(
            readings(&ev).is_empty() && rejections(&ev).len() == 1,
            "{ev:?}"
        );
        // The genuine records still go through afterwards.
        assert_eq!(
            readings(&feed(
                &mut sub,
                &data.into_iter().cloned().collect::<Vec<_>>()
            ))
            .len(),
            2
        );
    }
}

#[test]
fn a_late_subscriber_reads_with_the_retained_key_and_waits_for_a_missing_one() {
    let s = setup(SchemeId::Waters11);
    let mut p = s.publisher(
        "a",
        Protection::Epochs {
            messages: None,
            age: Some(Duration::from_secs(3600)),
        },
    );
    let first = publish_all(&mut p, &[b"early"]);
    let later = publish_all(&mut p, &[b"late"]);
    assert_eq!(later.len(), 1, "no new epoch within the hour");
    let retained = p.current_epoch_key().unwrap().clone();
    // Joins late: gets the retained key first, then the new reading.
    let mut sub = s.subscriber("a", None);
    let ev = feed(&mut sub, &[retained.clone(), later[0].clone()]);
    assert_eq!(readings(&ev), [b"late".to_vec()]);
    // The key arriving after the reading: the reading waits for it.
    let mut sub = s.subscriber("a", None);
    let ev = feed(&mut sub, &[first[1].clone(), retained]);
    assert_eq!(readings(&ev), [b"early".to_vec()]);
    // A policy change starts a new epoch at once.
    p.set_target("a and b").unwrap();
    let msgs = publish_all(&mut p, &[b"x"]);
    assert!(msgs[0].retain && msgs.len() == 2);
    let ev = feed(&mut sub, &msgs);
    assert!(readings(&ev).is_empty() && ev.iter().any(|e| matches!(e, Event::NotReadable { .. })));
}

#[test]
fn epoch_keys_are_accepted_only_on_their_own_key_topic() {
    let s = setup(SchemeId::Waters11);
    let mut p = s.publisher("a", EPOCHS);
    let msgs = publish_all(&mut p, &[b"r"]);
    let key = &msgs[0];
    let mut sub = s.subscriber("a", None);
    for topic in [
        "plant/line1",
        "plant/line2/abbe-epoch/00000000000000000000000000000000",
    ] {
        let ev = sub.receive(topic, &key.payload);
        assert_eq!(rejections(&ev).len(), 1, "{topic}: {ev:?}");
    }
    // Another publisher's id in the key topic.
    let other: PublisherId = [9; 16];
    let topic = abbe_mqtt::publisher::key_topic("plant/line1", &other);
    assert_eq!(rejections(&sub.receive(&topic, &key.payload)).len(), 1);
    // A reading on the key topic.
    assert_eq!(
        rejections(&sub.receive(&key.topic, &msgs[1].payload)).len(),
        1
    );
}

#[test]
fn signed_records_verify_and_verify_with_refuses_others() {
    let s = setup(SchemeId::Waters11);
    let signer = |_: ()| {
        let sk = Bls::<Bls12>::keygen(&mut OsRng);
        let vk = sk.verifying_key().to_bytes();
        (sk.to_bytes(), vk)
    };
    let (sk, vk) = signer(());
    let (other_sk, _) = signer(());
    for protection in [Protection::PerMessage, EPOCHS] {
        let mut p = Publisher::new(
            s.pk.clone(),
            "a",
            "t",
            protection,
            Some(AnySigningKey::from_bytes(&sk).unwrap()),
        )
        .unwrap();
        let msgs = publish_all(&mut p, &[b"signed"]);
        let mut sub = s.subscriber("a", Some(vk.clone()));
        let ev = feed(&mut sub, &msgs);
        match &ev[ev.len() - 1] {
            Event::Reading { signer, .. } => assert!(signer.is_some()),
            e => panic!("{e:?}"),
        }
        // Another signer, or none, is refused under --verify-with.
        for key in [Some(AnySigningKey::from_bytes(&other_sk).unwrap()), None] {
            let mut p = Publisher::new(s.pk.clone(), "a", "t", protection, key).unwrap();
            let msgs = publish_all(&mut p, &[b"forged"]);
            let mut sub = s.subscriber("a", Some(vk.clone()));
            let ev = feed(&mut sub, &msgs);
            assert!(readings(&ev).is_empty(), "{ev:?}");
            assert!(!rejections(&ev).is_empty());
        }
    }
}

#[test]
fn publishers_refuse_bad_topics_and_targets_at_once() {
    let s = setup(SchemeId::Waters11);
    for topic in ["", "a/+", "a/#", "a/abbe-epoch/x"] {
        assert!(
            Publisher::new(s.pk.clone(), "a", topic, EPOCHS, None).is_err(),
            "{topic}"
        );
    }
    assert!(Publisher::new(s.pk.clone(), "a and (", "t", EPOCHS, None).is_err());
    assert!(Publisher::new(b"not a key".to_vec(), "a", "t", EPOCHS, None).is_err());
}

#[test]
fn readings_the_broker_dropped_are_counted_as_missed_not_skipped_ones() {
    let s = setup(SchemeId::Waters11);
    let mut p = s.publisher("doctor", EPOCHS);
    let mut doctor = s.subscriber("doctor", None);
    // Epoch key, r0, r1, r2, [epoch key], r3, r4: r1 and r3 never arrive.
    let m = publish_all(&mut p, &[b"r0", b"r1", b"r2", b"r3", b"r4"]);
    let lost: Vec<usize> = m
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.retain)
        .map(|(i, _)| i)
        .enumerate()
        .filter(|(n, _)| *n == 1 || *n == 3)
        .map(|(_, i)| i)
        .collect();
    let kept: Vec<Message> = m
        .iter()
        .enumerate()
        .filter(|(i, _)| !lost.contains(i))
        .map(|(_, m)| m.clone())
        .collect();
    let events = feed(&mut doctor, &kept);
    assert_eq!(
        readings(&events),
        [b"r0".to_vec(), b"r2".to_vec(), b"r4".to_vec()]
    );
    let missed: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            Event::Missed { count, .. } => Some(*count),
            _ => None,
        })
        .collect();
    assert_eq!(missed, [1, 1]);
    // A reading under a policy this key does not satisfy is skipped, not
    // missed: the jump in the sequence after it is no loss.
    let mut p = s.publisher("doctor", Protection::PerMessage);
    let mut doctor = s.subscriber("doctor", None);
    let mut m = publish_all(&mut p, &[b"r0"]);
    p.set_target("nurse").unwrap();
    m.extend(publish_all(&mut p, &[b"r1"]));
    p.set_target("doctor").unwrap();
    m.extend(publish_all(&mut p, &[b"r2"]));
    let events = feed(&mut doctor, &m);
    assert_eq!(readings(&events), [b"r0".to_vec(), b"r2".to_vec()]);
    assert!(events.iter().any(|e| matches!(e, Event::Skipped { .. })));
    assert!(events.iter().all(|e| !matches!(e, Event::Missed { .. })));
}

#[test]
fn a_forged_unreadable_epoch_key_does_not_shut_out_later_epochs() {
    let s = setup(SchemeId::Waters11);
    let mut p = s.publisher("doctor", EPOCHS);
    let mut doctor = s.subscriber("doctor", None);
    let mut m = publish_all(&mut p, &[b"r0", b"r1", b"r2"]);
    // Anyone with the public key: an epoch key numbered u32::MAX under the
    // victim's publisher id, for a policy the reader does not satisfy.
    let mut forged = abbe_mqtt::record::epoch_key_head(p.id(), u32::MAX);
    facade::encrypt(
        &s.pk,
        "nurse",
        facade::Mode::Cca,
        &[0u8; 32][..],
        &mut forged,
        &Default::default(),
        &mut OsRng,
    )
    .unwrap();
    m.push(Message {
        topic: p.key_topic(),
        payload: forged,
        retain: true,
    });
    m.extend(publish_all(&mut p, &[b"r3"]));
    // And the empty retained message that clears a key: ignored.
    m.push(Message {
        topic: p.key_topic(),
        payload: Vec::new(),
        retain: true,
    });
    let events = feed(&mut doctor, &m);
    let want: Vec<Vec<u8>> = ["r0", "r1", "r2", "r3"]
        .map(|r| r.as_bytes().to_vec())
        .into();
    assert_eq!(readings(&events), want);
    assert!(rejections(&events).is_empty(), "{:?}", rejections(&events));
}
