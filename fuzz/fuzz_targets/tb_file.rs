//! Endgame-table files: arbitrary bytes through the file check, then a
//! file made whole from the input must pass, lose its pass with one byte
//! changed, and give a table whose indices and positions map onto each
//! other (checks: `fuzz_support::check_tb_file`, which `cargo test` also
//! runs on the committed corpus).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fuzz_support::check_tb_file(data);
});
