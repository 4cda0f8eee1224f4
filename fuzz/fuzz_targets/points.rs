//! Structure-aware point decoding on BN254 and BLS12-381 (see
//! `abbe_fuzz::points`).
#![no_main]

use abbe_fuzz::points::{check, Case, Low};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (Low, Case)| check(input.0, &input.1));
