//! The research readers: problem-set lines of both games, mining journal
//! lines, an atlas folder's `settings.txt` and atlas results files. The
//! checks are in `research/tests/research/fuzz_research_check.rs` (included
//! below), which `cargo test` also runs on the committed corpus.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../research/tests/research/fuzz_research_check.rs");

fuzz_target!(|data: &[u8]| {
    check_research(data, &fuzz_support::input_dir("research"));
});
