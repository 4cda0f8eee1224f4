//! Board profiles (perazzo's RE-Mote and ESP32, and any board a user adds):
//! TOML files with the board's radio, sleep power, battery and, when known,
//! the cost of each basic operation (Table 2). The built-in ones are in
//! `data/devices/`; `abbe lab --devices DIR` adds every `*.toml` of DIR.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Clone, Debug, Deserialize)]
pub struct Device {
    pub name: String,
    pub radio_bitrate_kbps: Option<f64>,
    pub radio_tx_mw: Option<f64>,
    pub sleep_mw: Option<f64>,
    pub ram_kb: Option<f64>,
    pub battery: Option<Battery>,
    pub lifetime_model: Option<LifetimeModel>,
    #[serde(default)]
    pub ops: Ops,
    /// `[limits]`: where the paper's runs ran out of memory
    /// (`max_encrypt_attributes_<scheme>`, `max_decrypt_attributes`).
    #[serde(default)]
    pub limits: BTreeMap<String, f64>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Battery {
    pub energy_wh: Option<f64>,
    pub cells: Option<f64>,
    pub cell_voltage_v: Option<f64>,
    pub cell_capacity_mah: Option<f64>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct LifetimeModel {
    pub sampling_period_s: f64,
}

/// `[ops.software]` / `[ops.hardware]`: `<op>_ms` and `<op>_mj` per basic
/// operation (pairing, gt_exp, gt_mul, g1_exp, g1_add).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Ops {
    #[serde(default)]
    pub software: BTreeMap<String, f64>,
    #[serde(default)]
    pub hardware: BTreeMap<String, f64>,
}

const BUILT_IN: [(&str, &str); 2] = [
    ("re-mote.toml", include_str!("../data/devices/re-mote.toml")),
    ("esp32.toml", include_str!("../data/devices/esp32.toml")),
];

impl Device {
    pub fn parse(name: &str, text: &str) -> Result<Device, String> {
        toml::from_str(text).map_err(|e| format!("device profile {name}: {e}"))
    }

    fn table(&self, hw: bool) -> &BTreeMap<String, f64> {
        if hw && !self.ops.hardware.is_empty() {
            &self.ops.hardware
        } else {
            &self.ops.software
        }
    }

    pub fn has_ops(&self) -> bool {
        !self.ops.software.is_empty()
    }

    /// Milliseconds of one basic operation (software, or hardware-accelerated
    /// when the board has such a table).
    pub fn op_ms(&self, hw: bool, op: &str) -> Option<f64> {
        self.table(hw).get(&format!("{op}_ms")).copied()
    }

    /// Millijoules of one basic operation: the published `_uwh` × 3.6
    /// (1 µWh = 3.6 mJ), else a `_mj` value.
    pub fn op_mj(&self, hw: bool, op: &str) -> Option<f64> {
        let t = self.table(hw);
        t.get(&format!("{op}_uwh"))
            .map(|u| u * 3.6)
            .or_else(|| t.get(&format!("{op}_mj")).copied())
    }

    /// The most attributes the paper's `scheme` encrypted with on this board
    /// before running out of RAM, when the profile says.
    pub fn max_encrypt_attributes(&self, scheme: &str) -> Option<f64> {
        self.limits
            .get(&format!("max_encrypt_attributes_{scheme}"))
            .copied()
    }

    /// Battery energy in joules.
    pub fn battery_j(&self) -> Option<f64> {
        let b = self.battery.as_ref()?;
        // From the published cells, voltage and capacity when given.
        let wh = match (b.cells, b.cell_voltage_v, b.cell_capacity_mah) {
            (Some(n), Some(v), Some(mah)) => n * v * mah / 1000.0,
            _ => b.energy_wh?,
        };
        Some(wh * 3600.0)
    }

    /// §6.3: a sensor that every period encrypts (`enc_ms`, `enc_mj`),
    /// transmits `ct_bytes` and sleeps for the rest of the period.
    pub fn lifetime_days(&self, enc_ms: f64, enc_mj: f64, ct_bytes: f64) -> Option<f64> {
        let period = self.lifetime_model.as_ref()?.sampling_period_s;
        let t_tx = 8.0 * ct_bytes / (self.radio_bitrate_kbps? * 1000.0);
        let sleep = (period - enc_ms / 1000.0 - t_tx).max(0.0);
        let e =
            enc_mj / 1000.0 + self.radio_tx_mw? / 1000.0 * t_tx + self.sleep_mw? / 1000.0 * sleep;
        Some(self.battery_j()? / e * period / 86_400.0)
    }
}

/// The built-in boards and those of `extra` (a directory of `*.toml`).
pub fn load(extra: Option<&Path>) -> Result<Vec<Device>, String> {
    let mut out = Vec::new();
    for (name, text) in BUILT_IN {
        out.push(Device::parse(name, text)?);
    }
    if let Some(dir) = extra {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            let d = Device::parse(&p.display().to_string(), &text)?;
            out.retain(|o: &Device| o.name != d.name);
            out.push(d);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_boards_parse_and_reproduce_the_no_encryption_lifetimes() {
        let d = load(None).unwrap();
        let remote = d.iter().find(|d| d.name == "RE-Mote").unwrap();
        let esp = d.iter().find(|d| d.name == "ESP32").unwrap();
        // §6.3: "about 198" and "134" days without encryption.
        assert!((remote.lifetime_days(0.0, 0.0, 0.0).unwrap() - 197.9).abs() < 0.5);
        assert!((esp.lifetime_days(0.0, 0.0, 0.0).unwrap() - 134.9).abs() < 0.5);
        assert_eq!(remote.op_ms(false, "g1_exp"), Some(167.0));
        assert_eq!(remote.op_ms(true, "g1_exp"), Some(74.0));
        assert!((remote.op_mj(true, "g1_exp").unwrap() - 10.8).abs() < 1e-9);
        assert!(!esp.has_ops());
        assert_eq!(remote.ram_kb, Some(32.0));
        assert_eq!(remote.max_encrypt_attributes("bsw07"), Some(20.0));
        assert_eq!(remote.max_encrypt_attributes("yct14"), Some(50.0));
        assert_eq!(esp.max_encrypt_attributes("bsw07"), None);
    }

    #[test]
    fn a_broken_profile_is_an_error() {
        assert!(Device::parse("x", "name = 3").is_err());
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("b.toml"),
            "name = \"Board\"\n[ops.software]\npairing_ms = 1.0\n",
        )
        .unwrap();
        let d = load(Some(dir.path())).unwrap();
        assert!(d
            .iter()
            .any(|d| d.name == "Board" && d.op_ms(true, "pairing") == Some(1.0)));
    }
}
