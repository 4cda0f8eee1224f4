//! Every object decoder on BLS24-479 and BLS48-581 (see
//! `abbe_fuzz::objects`).
#![no_main]

use abbe_fuzz::objects::{decode_all, Curves};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| decode_all(data, Curves::High));
