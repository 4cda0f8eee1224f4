//! Every object decoder on BN254, BLS12-381 and P-256 (see
//! `abbe_fuzz::objects`).
#![no_main]

use abbe_fuzz::objects::{decode_all, Curves};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| decode_all(data, Curves::Low));
