//! The short texts of the command line (engine descriptions, time controls,
//! endgame-table materials, `--anchor`, `--sprt`, `--adjudicate-win`,
//! `--each`, opening books) and an external engine's words, values and
//! scores. The checks are in `selfplay/tests/selfplay/fuzz_specs_check.rs`
//! (included below), which `cargo test` also runs on the committed corpus.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../selfplay/tests/selfplay/fuzz_specs_check.rs");

fuzz_target!(|data: &[u8]| {
    check_specs_texts(data);
});
