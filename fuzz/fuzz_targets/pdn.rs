//! PDN files: arbitrary bytes through the streaming reader, then every record
//! that reads is written back and replayed in its game (both games when it
//! names none), and the records' clock tags and time comments are read as
//! `pdn clock` reads them. The checks are in
//! `selfplay/tests/selfplay/fuzz_pdn_check.rs` (included below), which
//! `cargo test` also runs on the committed corpus.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../selfplay/tests/selfplay/fuzz_pdn_check.rs");

fuzz_target!(|data: &[u8]| {
    check_pdn(data);
});
