//! iHealthEHR on loopback (GHW11 §6.2, Fig. 9): a health record whose
//! sections are encrypted (Waters11 CP-ABE, RCCA mode, BLS12-381) under
//! their own policies, a proxy and a web server holding the record, and a
//! thin client that reads a section four ways:
//!
//! * local-only — ciphertext on the device, full ABE decryption there;
//! * local+web — downloads the ciphertext, full decryption on the device;
//! * proxy — ciphertext on the device, only its KEM header goes to the
//!   proxy, the constant-size transformation comes back;
//! * proxy+web — the client sends a URL; the proxy fetches the section and
//!   returns the transformed file.
//!
//! Each read checks the plaintext and returns the body bytes the device sent
//! and received. The example `ihealthehr` prints a table; the lab times the
//! reads for its Fig. 9.

use crate::fetch::FetchPolicy;
use crate::{server, Config, ProxyClient, Store};
use abbe::abe::cca::CcaKey;
use abbe::abe::rcca::RccaHeader;
use abbe::abe::{Cca, Rcca, Waters11};
use abbe::curve::Bls12;
use abbe::envelope;
use abbe::kem::{Authority, Kem, Outsourcing};
use abbe::policy::{AttributeSet, Policy};
use abbe::wire::Encoded;
use rand_core::OsRng;
use std::time::Duration;

type W = Waters11<Bls12>;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// One section of the record.
pub struct Section {
    pub name: String,
    pub policy: Policy,
    /// The plaintext.
    pub text: Vec<u8>,
    /// The encrypted file, as stored on the device and the web server.
    pub file: Vec<u8>,
}

/// How one read went: body bytes the device sent and received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traffic {
    pub up: u64,
    pub down: u64,
}

/// The four ways of Fig. 9.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    LocalOnly,
    LocalWeb,
    Proxy,
    ProxyWeb,
}

impl Scenario {
    pub const ALL: [Scenario; 4] = [
        Scenario::LocalOnly,
        Scenario::LocalWeb,
        Scenario::Proxy,
        Scenario::ProxyWeb,
    ];

    /// The paper's column name.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::LocalOnly => "local-only",
            Scenario::LocalWeb => "local+web",
            Scenario::Proxy => "proxy",
            Scenario::ProxyWeb => "proxy+web",
        }
    }
}

/// The hospital's record, a proxy with the clinician's TK registered once,
/// and a web server, all on loopback.
pub struct Loopback {
    pub sections: Vec<Section>,
    key: CcaKey<W>,
    rk: Vec<u8>,
    tk_id: String,
    proxy: ProxyClient,
    web: ProxyClient,
    web_url: String,
    running: Option<server::Running>,
    rt: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl Loopback {
    /// Encrypts `sections` (name, policy, plaintext bytes) and starts the
    /// proxy (SQLite in a temporary directory) and the web server; the
    /// clinician holds `user_attrs`.
    pub fn start(sections: &[(&str, &str, usize)], user_attrs: &str) -> Result<Loopback, Error> {
        let (pk, mk) = W::setup(&Default::default(), &mut OsRng)?;
        let key: CcaKey<W> =
            abbe::kem::keygen::<Cca<W>>(&pk, &mk, &AttributeSet::parse(user_attrs)?, &mut OsRng)?;
        let (tk, rk) = Rcca::<W>::transform_key(&key, &mut OsRng);
        let mut out = Vec::new();
        for (name, policy, size) in sections {
            let policy = Policy::parse(policy)?;
            let text: Vec<u8> = format!("{name}: ")
                .bytes()
                .chain((0..*size).map(|i| b'a' + (i % 26) as u8))
                .collect();
            let (session, header) = Rcca::<W>::encapsulate(&pk, &policy, &mut OsRng)?;
            let mut file = Vec::new();
            envelope::seal(
                &header.to_bytes(),
                &session,
                &mut OsRng,
                &text[..],
                &mut file,
            )?;
            out.push(Section {
                name: name.to_string(),
                policy,
                text,
                file,
            });
        }
        let rt = tokio::runtime::Runtime::new()?;
        let dir = tempfile::tempdir()?;
        let store = rt.block_on(Store::open(&format!(
            "sqlite:{}",
            dir.path().join("proxy.db").display()
        )))?;
        let token = rt.block_on(store.create_token("ihealthehr"))?;
        let cfg = Config {
            // One device reading as fast as it can (the lab repeats reads
            // to time them): no request rate limit.
            quota: crate::quota::QuotaConfig {
                rate: 0.0,
                ..Config::default().quota
            },
            fetch: FetchPolicy {
                allow_loopback: true,
                allow_private: false,
                timeout: Duration::from_secs(10),
                ..FetchPolicy::default()
            },
            ..Config::default()
        };
        let running = rt.block_on(server::spawn("127.0.0.1:0".parse()?, store, cfg))?;
        let mut app = axum::Router::new();
        for s in &out {
            let f = s.file.clone();
            app = app.route(
                &format!("/ehr/{}", s.name),
                axum::routing::get(move || async move { f }),
            );
        }
        let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
        let web_url = format!("http://{}", listener.local_addr()?);
        rt.spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        // The device registers its TK once (GHW11: "pushed a TK to it via HTTP").
        let proxy = ProxyClient::new(&running.url(), Some(token));
        let tk_id = proxy.register(&tk.to_bytes())?;
        Ok(Loopback {
            sections: out,
            key,
            rk: rk.to_bytes(),
            tk_id,
            proxy,
            web: ProxyClient::new(&web_url, None),
            web_url,
            running: Some(running),
            rt,
            _dir: dir,
        })
    }

    pub fn proxy_url(&self) -> String {
        self.running.as_ref().map(|r| r.url()).unwrap_or_default()
    }

    pub fn web_url(&self) -> &str {
        &self.web_url
    }

    /// Whether the clinician's key satisfies section `i`'s policy.
    pub fn readable(&self, i: usize) -> Result<bool, Error> {
        let mut cur = &self.sections[i].file[..];
        let head = envelope::read_head(&mut cur)?;
        Ok(Rcca::<W>::decapsulate(&self.key, &RccaHeader::<W>::from_bytes(&head.header)?).is_ok())
    }

    /// Reads section `i` the way of `how`, checks the plaintext, and
    /// returns the device's traffic.
    pub fn read(&self, i: usize, how: Scenario) -> Result<Traffic, Error> {
        let s = &self.sections[i];
        let client = match how {
            Scenario::LocalOnly => None,
            Scenario::LocalWeb => Some(&self.web),
            Scenario::Proxy | Scenario::ProxyWeb => Some(&self.proxy),
        };
        let before = client.map(|c| c.traffic());
        // The record's header id, from the catalogue: a transformation must
        // be of this very header.
        let expect = {
            let mut cur = &s.file[..];
            abbe::outsource::Expect {
                header_id: Some(abbe::facade::header_id(
                    &envelope::read_head(&mut cur)?.header,
                )?),
                ..abbe::outsource::Expect::default()
            }
        };
        let fetched: Vec<u8>;
        let file: &[u8] = match how {
            Scenario::LocalOnly | Scenario::Proxy => &s.file,
            Scenario::LocalWeb => {
                fetched = self.web.get(&format!("/ehr/{}", s.name))?;
                &fetched
            }
            Scenario::ProxyWeb => {
                let url = format!("{}/ehr/{}", self.web_url, s.name);
                fetched = self.proxy.transform_url(&self.tk_id, &url)?;
                &fetched
            }
        };
        let mut payload = file;
        let head = envelope::read_head(&mut payload)?;
        let session = match how {
            Scenario::LocalOnly | Scenario::LocalWeb => {
                Rcca::<W>::decapsulate(&self.key, &RccaHeader::<W>::from_bytes(&head.header)?)?
            }
            Scenario::Proxy => {
                let t = self.proxy.transform(&self.tk_id, &head.header)?;
                abbe::facade::decrypt_transformed_bytes(&self.rk, &t, &expect)?
            }
            Scenario::ProxyWeb => {
                abbe::facade::decrypt_transformed_bytes(&self.rk, &head.header, &expect)?
            }
        };
        let mut out = Vec::new();
        envelope::open(&head, &session, payload, &mut out)?;
        if out != s.text {
            return Err(format!("{}: {} returned another plaintext", s.name, how.name()).into());
        }
        let (up, down) = match (client, before) {
            (Some(c), Some((u0, d0))) => {
                let (u, d) = c.traffic();
                (u - u0, d - d0)
            }
            _ => (0, 0),
        };
        Ok(Traffic { up, down })
    }

    /// What the proxy answers for an unreadable section (an error message).
    pub fn proxy_refusal(&self, i: usize) -> String {
        let mut cur = &self.sections[i].file[..];
        match envelope::read_head(&mut cur) {
            Ok(head) => match self.proxy.transform(&self.tk_id, &head.header) {
                Ok(_) => "transformed (unexpected)".into(),
                Err(e) => e.to_string(),
            },
            Err(e) => e.to_string(),
        }
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            self.rt.block_on(r.stop());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_read_returns_the_record_and_the_proxy_sends_back_a_constant_size() {
        let ehr = Loopback::start(
            &[
                ("small", "doctor", 100),
                ("large", "doctor and cardiology and ward25", 100),
                ("closed", "psychiatrist", 100),
            ],
            "doctor, cardiology, ward25",
        )
        .unwrap();
        let mut proxy_down = Vec::new();
        for i in 0..2 {
            assert!(ehr.readable(i).unwrap());
            let file = ehr.sections[i].file.len() as u64;
            assert_eq!(
                ehr.read(i, Scenario::LocalOnly).unwrap(),
                Traffic { up: 0, down: 0 }
            );
            assert_eq!(ehr.read(i, Scenario::LocalWeb).unwrap().down, file);
            let p = ehr.read(i, Scenario::Proxy).unwrap();
            assert!(p.up > 0 && p.up < file, "only the header goes up");
            proxy_down.push(p.down);
            let w = ehr.read(i, Scenario::ProxyWeb).unwrap();
            assert!(w.up < 200, "a URL goes up, not the file: {w:?}");
        }
        assert_eq!(
            proxy_down[0], proxy_down[1],
            "the transformation does not grow with the policy"
        );
        assert!(!ehr.readable(2).unwrap());
        assert!(ehr.read(2, Scenario::Proxy).is_err());
        assert!(
            ehr.proxy_refusal(2).contains("422"),
            "{}",
            ehr.proxy_refusal(2)
        );
    }
}
