//! Binary pattern weights files for both games: refused with a one-line
//! error or read exactly (written back byte for byte, read back equal).
//! (checks: `fuzz_support::check_pattern_weights`, which `cargo test` also
//! runs on the committed corpus).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fuzz_support::check_pattern_weights(data);
});
