//! `cargo run --release -p abbe-mqtt --example bench -- [--full] [--broker URL]`
//! (scripts/mqtt-bench.sh): readings/s and latency through a real broker,
//! per-message ABE vs epochs, 64 B and 1 KiB, 1/10/30 attributes. Without
//! `--broker` it starts its own mosquitto on a free loopback port.

use abbe::curve::CurveId;
use abbe::wire::SchemeId;
use abbe_mqtt::bench::{run, Case, Load};
use abbe_mqtt::{mosquitto, Broker};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let full = args.iter().any(|a| a == "--full");
    let url = args
        .iter()
        .position(|a| a == "--broker")
        .and_then(|i| args.get(i + 1).cloned());
    let dir = tempfile::tempdir()?;
    let (_broker, url) = match url {
        Some(u) => (None, u),
        None => {
            let bin = mosquitto::find().ok_or("no mosquitto: run scripts/install-mosquitto.sh")?;
            let m = mosquitto::Mosquitto::start(&bin, dir.path(), None, None)?;
            let u = m.url();
            (Some(m), u)
        }
    };
    let broker = Broker::parse(&url, None, None)?;
    let scale = if full { 10 } else { 1 };
    let rt = tokio::runtime::Runtime::new()?;
    println!("| mode | scheme | attrs | reading | readings/s | offered | p50 ms | p99 ms | record B | missed |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for per_message in [false, true] {
        let load = match per_message {
            false => Load {
                burst: 10_000 * scale,
                paced: 10_000 * scale,
                rate: 20_000.0,
            },
            true => Load {
                burst: 100 * scale,
                paced: 100 * scale,
                rate: 100.0,
            },
        };
        for scheme in [SchemeId::Waters11, SchemeId::Gpsw06] {
            for attrs in [1, 10, 30] {
                for reading_len in [64, 1024] {
                    let case = Case {
                        scheme,
                        curve: CurveId::Bls12_381,
                        attrs,
                        reading_len,
                        per_message,
                    };
                    let o = rt.block_on(run(&broker, &case, &load))?;
                    println!(
                        "| {} | {} | {attrs} | {reading_len} B | {:.0} | {:.0} | {:.2} | {:.2} | {} | {} |",
                        if per_message { "per-message" } else { "epochs" },
                        scheme.name(),
                        o.per_second,
                        o.offered_rate,
                        o.p50_ms,
                        o.p99_ms,
                        o.reading_bytes,
                        o.missed
                    );
                }
            }
        }
    }
    Ok(())
}
