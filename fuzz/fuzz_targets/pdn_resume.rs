//! The PDN half of `selfplay --resume` (`selfplay::output::recover_pdn`)
//! over arbitrary bytes written to a temporary file: the first byte modulo
//! 4 names the game the caller refuses (counting from 0; none when the file
//! has fewer), the rest is the file. The checks are in
//! `selfplay/tests/selfplay/fuzz_pdn_resume_check.rs` (included below),
//! which `cargo test` also runs on the committed corpus.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../selfplay/tests/selfplay/fuzz_pdn_resume_check.rs");

fuzz_target!(|data: &[u8]| {
    let path = fuzz_support::input_dir("pdn-resume").join("run.pdn");
    check_pdn_resume(data, &path);
});
