//! Training-data lines as the tuner reads them: each line parsed and
//! written back, then the streaming loader of both games over the whole
//! input. The checks are in `tuner/tests/tuner/fuzz_tuner_data_check.rs`
//! (included below), which `cargo test` also runs on the committed corpus.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../tuner/tests/tuner/fuzz_tuner_data_check.rs");

fuzz_target!(|data: &[u8]| {
    check_tuner_data(data);
});
