//! iHealthEHR with an outsourcing proxy (GHW11 §6.2, Fig. 9).
//!
//! A health record is split in sections, each encrypted (Waters11 CP-ABE,
//! RCCA mode, BLS12-381) under its own policy. A thin client holding only
//! a retrieval key reads the record four ways and counts its bytes:
//!
//! * local-only — ciphertexts on the device, full ABE decryption there;
//! * local+web — downloads each ciphertext, full decryption on the device;
//! * proxy — ciphertexts on the device, only the KEM header is sent to the
//!   proxy, the constant-size transformation comes back;
//! * proxy+web — the client sends a URL; the proxy fetches the record and
//!   returns the transformed file (a constant 584-byte RCCA header + payload).
//!
//! Everything runs on loopback: a proxy (SQLite in a temp dir) and a small
//! web server holding the records.
//!
//! `cargo run --release -p abbe-proxy --example ihealthehr`

use abbe::abe::cca::CcaKey;
use abbe::abe::rcca::RccaHeader;
use abbe::abe::{Cca, Rcca, Waters11};
use abbe::curve::Bls12;
use abbe::envelope;
use abbe::kem::Authority;
use abbe::kem::{Kem, Outsourcing};
use abbe::policy::{AttributeSet, Policy};
use abbe::wire::Encoded;
use abbe_proxy::fetch::FetchPolicy;
use abbe_proxy::{server, Config, ProxyClient, Store};
use rand_core::OsRng;
use std::time::{Duration, Instant};

type W = Waters11<Bls12>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let imaging: Vec<String> = (1..=30).map(|i| format!("radiology{i}")).collect();
    let sections: Vec<(&str, String, usize)> = vec![
        ("summary", "doctor or nurse".into(), 1_500),
        (
            "medications",
            "doctor and (cardiology or pharmacy)".into(),
            3_000,
        ),
        (
            "labs",
            "doctor and cardiology and ward25 and (mercy or general)".into(),
            8_000,
        ),
        ("imaging", imaging.join(" and "), 200_000),
        ("psychiatry", "psychiatrist and doctor".into(), 2_000),
    ];
    let user_attrs = format!("doctor, cardiology, ward25, mercy, {}", imaging.join(", "));

    // The hospital: setup, the clinician's key, the records.
    let (pk, mk) = W::setup(&Default::default(), &mut OsRng).unwrap();
    let key: CcaKey<W> =
        abbe::kem::keygen::<Cca<W>>(&pk, &mk, &AttributeSet::parse(&user_attrs)?, &mut OsRng)?;
    let (tk, rk) = Rcca::<W>::transform_key(&key, &mut OsRng);
    let (tk, rk) = (tk.to_bytes(), rk.to_bytes());
    let mut records = Vec::new();
    for (name, policy, size) in &sections {
        let text: Vec<u8> = format!("{name}: ")
            .bytes()
            .chain((0..*size).map(|i| b'a' + (i % 26) as u8))
            .collect();
        let (session, header) = Rcca::<W>::encapsulate(&pk, &Policy::parse(policy)?, &mut OsRng)?;
        let mut file = Vec::new();
        envelope::seal(
            &header.to_bytes(),
            &session,
            &mut OsRng,
            &text[..],
            &mut file,
        )?;
        records.push((*name, policy.clone(), text, file));
    }

    // The proxy and the web server, on loopback.
    let rt = tokio::runtime::Runtime::new()?;
    let dir = tempfile::tempdir()?;
    let store = rt.block_on(Store::open(&format!(
        "sqlite:{}",
        dir.path().join("proxy.db").display()
    )))?;
    let token = rt.block_on(store.create_token("ihealthehr"))?;
    let cfg = Config {
        fetch: FetchPolicy {
            allow_loopback: true,
            allow_private: false,
            timeout: Duration::from_secs(10),
            ..FetchPolicy::default()
        },
        ..Config::default()
    };
    let proxy = rt.block_on(server::spawn("127.0.0.1:0".parse()?, store, cfg))?;
    let mut app = axum::Router::new();
    for (name, _, _, file) in &records {
        let f = file.clone();
        app = app.route(
            &format!("/ehr/{name}"),
            axum::routing::get(move || async move { f }),
        );
    }
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let web = format!("http://{}", listener.local_addr()?);
    rt.spawn(async move {
        let _ = axum::serve(listener, app).await;
    });

    // The device registers its TK once (GHW11: "pushed a TK to it via HTTP").
    let setup_client = ProxyClient::new(&proxy.url(), Some(token.clone()));
    let id = setup_client.register(&tk)?;
    println!(
        "proxy {} · web {web} · TK {id} ({} bytes, registered once)\n",
        proxy.url(),
        tk.len()
    );
    println!(
        "{:<12} {:>6} {:>9} | {:>9} | {:>9} {:>10} | {:>9} {:>12} | {:>9} {:>12}",
        "section",
        "leaves",
        "ct bytes",
        "local",
        "local+web",
        "up/down",
        "proxy",
        "up/down",
        "proxy+web",
        "up/down"
    );
    for (name, policy, text, file) in &records {
        let leaves = Policy::parse(policy)?.leaf_count();
        let mut cur = &file[..];
        let head = envelope::read_head(&mut cur)?;
        let payload = cur;

        // local-only: full RCCA decryption on the device.
        let t0 = Instant::now();
        let local = Rcca::<W>::decapsulate(&key, &RccaHeader::<W>::from_bytes(&head.header)?);
        let t_local = t0.elapsed();
        let Ok(session) = local else {
            println!(
                "{name:<12} {leaves:>6} {:>9} | refused: the key does not satisfy \"{policy}\"",
                file.len()
            );
            let r = setup_client.transform(&id, &head.header);
            println!(
                "{:<12} {:>6} {:>9} | proxy answers: {}",
                "",
                "",
                "",
                r.err().map(|e| e.to_string()).unwrap_or_default()
            );
            continue;
        };
        let mut out = Vec::new();
        envelope::open(&head, &session, payload, &mut out)?;
        assert_eq!(&out, text);

        // local+web: download, then as local-only.
        let webc = ProxyClient::new(&web, None);
        let t0 = Instant::now();
        let downloaded = webc.get(&format!("/ehr/{name}"))?;
        let mut c2 = &downloaded[..];
        let h2 = envelope::read_head(&mut c2)?;
        let s2 = Rcca::<W>::decapsulate(&key, &RccaHeader::<W>::from_bytes(&h2.header)?)?;
        let mut out = Vec::new();
        envelope::open(&h2, &s2, c2, &mut out)?;
        let t_web = t0.elapsed();
        let (up_w, down_w) = webc.traffic();

        // proxy: only the header goes up, the transformation comes down.
        let pc = ProxyClient::new(&proxy.url(), Some(token.clone()));
        let t0 = Instant::now();
        let t = pc.transform(&id, &head.header)?;
        // The answer must be the transformation of this very header.
        let expect = abbe::outsource::Expect {
            header_id: Some(abbe::outsource::header_id(&head.header)?),
            allow_cpa: false,
        };
        let s3 = abbe::outsource::decrypt_transformed_bytes(&rk, &t, &expect)?;
        let mut out = Vec::new();
        envelope::open(&head, &s3, payload, &mut out)?;
        let t_proxy = t0.elapsed();
        assert_eq!(&out, text);
        let (up_p, down_p) = pc.traffic();

        // proxy+web: a URL goes up, the transformed file comes down.
        let pw = ProxyClient::new(&proxy.url(), Some(token.clone()));
        let t0 = Instant::now();
        let tf = pw.transform_url(&id, &format!("{web}/ehr/{name}"))?;
        let mut c4 = &tf[..];
        let h4 = envelope::read_head(&mut c4)?;
        let s4 = abbe::outsource::decrypt_transformed_bytes(&rk, &h4.header, &expect)?;
        let mut out = Vec::new();
        envelope::open(&h4, &s4, c4, &mut out)?;
        let t_pw = t0.elapsed();
        assert_eq!(&out, text);
        let (up_pw, down_pw) = pw.traffic();

        println!(
            "{name:<12} {leaves:>6} {:>9} | {:>7.1}ms | {:>7.1}ms {:>10} | {:>7.1}ms {:>12} | {:>7.1}ms {:>12}",
            file.len(),
            ms(t_local),
            ms(t_web),
            format!("{up_w}/{down_w}"),
            ms(t_proxy),
            format!("{up_p}/{down_p}"),
            ms(t_pw),
            format!("{up_pw}/{down_pw}"),
        );
    }
    println!(
        "\nup/down: request/response body bytes at the device (HTTP headers excluded).\n\
         With the proxy the device downloads a constant 584-byte RCCA transformation per\n\
         record (plus the payload for proxy+web) and does one GT exponentiation, whatever\n\
         the policy; locally it pays a pairing per used leaf."
    );
    rt.block_on(proxy.stop());
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
