//! Weights JSON for both games: refused with an error or read exactly
//! (checks: `fuzz_support::check_weights_json`, which `cargo test` also
//! runs on the committed corpus).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fuzz_support::check_weights_json(data);
});
