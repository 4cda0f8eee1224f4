//! `abbe demo`: a short guided run in a temporary directory.

use crate::{curve_label, on_curve, CliError, Result};
use abbe::abe::waters11::{self, Waters11};
use abbe::curve::{Curve, CurveId};
use abbe::envelope;
use abbe::kem::Authority;
use abbe::kem::{Kem, KemError, Outsourcing};
use abbe::policy::{AttributeSet, Policy};
use rand_core::OsRng;
use std::time::Instant;

/// `println!` that tolerates a closed stdout (`abbe demo | head`).
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

fn ms(t: Instant) -> String {
    format!("{:.2} ms", t.elapsed().as_secs_f64() * 1e3)
}

fn fail<E: std::fmt::Display>(e: E) -> CliError {
    CliError::Other(e.to_string())
}

pub fn run(curve: CurveId) -> Result<()> {
    on_curve!(curve, C => demo::<C>())
}

fn demo<C: Curve>() -> Result<()> {
    let dir = tempfile::tempdir().map_err(fail)?;
    say!(
        "abbe demo — Waters11 CP-ABE with GHW11 outsourced decryption on {}",
        curve_label(C::ID)
    );
    say!("working in {}\n", dir.path().display());

    let t = Instant::now();
    let (pk, mk) = Waters11::<C>::setup(&Default::default(), &mut OsRng).unwrap();
    say!(
        "1. setup                                   {:>10}   public key {} B",
        ms(t),
        pk.to_bytes().len()
    );
    std::fs::write(dir.path().join("public.key"), pk.to_bytes()).map_err(fail)?;

    let alice_attrs = AttributeSet::parse("doctor, cardiology").map_err(fail)?;
    let bob_attrs = AttributeSet::parse("nurse, age = 25").map_err(fail)?;
    let t = Instant::now();
    let alice = Waters11::<C>::keygen(&pk, &mk, &alice_attrs, &mut OsRng).map_err(fail)?;
    say!(
        "2. key for alice {{doctor, cardiology}}      {:>10}   {} B",
        ms(t),
        alice.to_bytes().len()
    );
    let t = Instant::now();
    let bob = Waters11::<C>::keygen(&pk, &mk, &bob_attrs, &mut OsRng).map_err(fail)?;
    say!(
        "   key for bob {{nurse, age = 25}}           {:>10}   {} B (age expands to bag-of-bits)",
        ms(t),
        bob.to_bytes().len()
    );

    let policy = Policy::parse("(doctor and cardiology) or 2 of (nurse, ward25, age >= 30)")
        .map_err(fail)?;
    let message = b"Patient 1234: ECG normal, follow-up in 6 months.";
    let t = Instant::now();
    let (session, header) = Waters11::<C>::encapsulate(&pk, &policy, &mut OsRng).map_err(fail)?;
    let mut file = Vec::new();
    envelope::seal(
        &header.to_bytes(),
        &session,
        &mut OsRng,
        &message[..],
        &mut file,
    )
    .map_err(fail)?;
    say!("3. encrypt {} B to \"{}\"", message.len(), policy);
    say!(
        "                                           {:>10}   ciphertext {} B",
        ms(t),
        file.len()
    );
    std::fs::write(dir.path().join("record.abbe"), &file).map_err(fail)?;

    let mut cur = &file[..];
    let head = envelope::read_head(&mut cur).map_err(fail)?;
    let hdr = waters11::Header::<C>::from_bytes(&head.header).map_err(fail)?;
    let t = Instant::now();
    let k = Waters11::<C>::decapsulate(&alice, &hdr).map_err(fail)?;
    let mut out = Vec::new();
    envelope::open(&head, &k, cur, &mut out).map_err(fail)?;
    say!(
        "4. alice decrypts                          {:>10}   \"{}\"",
        ms(t),
        String::from_utf8_lossy(&out)
    );

    match Waters11::<C>::decapsulate(&bob, &hdr) {
        Err(KemError::NotSatisfied) => say!(
            "5. bob is refused: nurse, but age 25 < 30 and not in ward25 (exit code 2 in the CLI)"
        ),
        Ok(_) => return Err(CliError::Other("bob should not decrypt".into())),
        Err(e) => return Err(fail(e)),
    }

    let t = Instant::now();
    let (tk, rk) = Waters11::<C>::transform_key(&alice, &mut OsRng);
    say!(
        "6. alice derives a transformation key      {:>10}   TK {} B, RK {} B",
        ms(t),
        tk.to_bytes().len(),
        rk.to_bytes().len()
    );
    let t = Instant::now();
    let transformed = Waters11::<C>::transform(&tk, &hdr).map_err(fail)?;
    say!(
        "   the proxy transforms the header         {:>10}   {} B -> {} B",
        ms(t),
        head.header.len(),
        transformed.to_bytes().len()
    );
    let t = Instant::now();
    let k2 = Waters11::<C>::decrypt_transformed(&rk, &transformed).map_err(fail)?;
    let mut out2 = Vec::new();
    envelope::open(&head, &k2, cur, &mut out2).map_err(fail)?;
    say!(
        "   alice finishes with one GT exponentiation {:>8}   \"{}\"",
        ms(t),
        String::from_utf8_lossy(&out2)
    );
    if out2 != out {
        return Err(CliError::Other("outsourced decryption disagrees".into()));
    }
    say!("\nThe same from a shell: abbe setup / keygen / encrypt / decrypt / transform-key / transform (see README).");
    Ok(())
}
