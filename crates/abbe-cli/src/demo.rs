//! `abbe demo`: a short guided run of the README's story, through the
//! facade the CLI uses: setup, keys, a CCA file, a refusal, then RCCA
//! outsourcing — the proxy transforms, Alice finishes against the
//! original's header id.

use crate::{curve_label, CliError, Result};
use abbe::curve::CurveId;
use abbe::envelope;
use abbe::facade::{self, Error, Mode};
use abbe::outsource::Expect;
use abbe::wire::SchemeId;
use abbe::OsRng;
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

const POLICY: &str = "(doctor and cardiology) or 2 of (nurse, ward25, age >= 30)";
const MESSAGE: &[u8] = b"Patient 1234: ECG normal, follow-up in 6 months.";

pub fn run(curve: CurveId) -> Result<()> {
    let waters11 = facade::scheme(SchemeId::Waters11, curve)?;
    say!(
        "abbe demo — Waters11 CP-ABE with GHW11 outsourced decryption on {}",
        curve_label(curve)
    );
    say!("(the README's commands, step by step; no file is written)\n");

    let t = Instant::now();
    let (pk, mk) = waters11.setup(&Default::default(), &mut OsRng)?;
    say!(
        "1. abbe setup                              {:>10}   public key {} B",
        ms(t),
        pk.len()
    );
    let t = Instant::now();
    let alice = waters11.keygen(&mk, "doctor, cardiology", None, &mut OsRng)?;
    say!(
        "2. abbe keygen -a \"doctor, cardiology\"     {:>10}   {} B",
        ms(t),
        alice.len()
    );
    let bob = waters11.keygen(&mk, "nurse, age = 25", None, &mut OsRng)?;
    say!(
        "   abbe keygen -a \"nurse, age = 25\"        (age as bag-of-bits: {} B)",
        bob.len()
    );

    let seal = |mode: Mode| -> Result<Vec<u8>> {
        let mut file = Vec::new();
        let options = Default::default();
        facade::encrypt(&pk, POLICY, mode, MESSAGE, &mut file, &options, &mut OsRng)?;
        Ok(file)
    };
    let t = Instant::now();
    let file = seal(Mode::Cca)?;
    say!("3. abbe encrypt -p \"{POLICY}\"");
    say!(
        "   (CCA, the default)                      {:>10}   {} B -> {} B",
        ms(t),
        MESSAGE.len(),
        file.len()
    );

    let t = Instant::now();
    let mut plain = Vec::new();
    facade::decrypt(&alice, &file[..], &mut plain, None)?;
    say!(
        "4. abbe decrypt -k alice.key               {:>10}   \"{}\"",
        ms(t),
        String::from_utf8_lossy(&plain)
    );
    match facade::decrypt(&bob, &file[..], &mut Vec::new(), None) {
        Err(Error::NotSatisfied) => {
            say!("5. bob is refused: nurse, but age 25 < 30 and not in ward25 (exit code 2)")
        }
        Ok(_) => return Err(CliError::Other("bob should not decrypt".into())),
        Err(e) => return Err(e.into()),
    }

    // Outsourcing: an RCCA file, which a proxy can transform and whose
    // final decryption detects a lying proxy.
    let shared = seal(Mode::Rcca)?;
    let t = Instant::now();
    let (tk, rk) = waters11.transform_key(&alice, &mut OsRng)?;
    say!(
        "6. abbe encrypt --mode rcca; abbe transform-key {:>6}   TK {} B (to the proxy), RK {} B",
        ms(t),
        tk.len(),
        rk.len()
    );
    let head = envelope::read_head(&mut &shared[..]).map_err(Error::from)?;
    let t = Instant::now();
    let mut t_file = Vec::new();
    facade::transform(&tk, &shared[..], &mut t_file)?;
    let elapsed = ms(t);
    let transformed = envelope::read_head(&mut &t_file[..]).map_err(Error::from)?;
    say!(
        "7. abbe transform (the proxy)              {:>10}   header {} B -> {} B",
        elapsed,
        head.header.len(),
        transformed.header.len()
    );
    let expect = Expect {
        header_id: Some(facade::header_id(&head.header)?),
        ..Default::default()
    };
    let t = Instant::now();
    let mut out = Vec::new();
    facade::decrypt_expecting(&rk, &t_file[..], &mut out, None, &expect)?;
    say!(
        "8. abbe decrypt -k alice.rk --original     {:>10}   \"{}\"",
        ms(t),
        String::from_utf8_lossy(&out)
    );
    say!("   (two GT exponentiations; a transformation of any other ciphertext is refused)");
    if out != MESSAGE {
        return Err(CliError::Other("outsourced decryption disagrees".into()));
    }
    Ok(())
}
