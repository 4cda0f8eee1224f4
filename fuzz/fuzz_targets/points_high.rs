//! Structure-aware point decoding on BLS24-479 and BLS48-581 (see
//! `abbe_fuzz::points`).
#![no_main]

use abbe_fuzz::points::{check, Case, High};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (High, Case)| check(input.0, &input.1));
