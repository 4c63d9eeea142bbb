//! A shard's summary as `selfplay merge` and `bushka cluster` read it
//! (`selfplay::merge::read_part`, then `selfplay::merge::check`), from
//! arbitrary bytes written to a temporary file. The checks are in
//! `selfplay/tests/selfplay/fuzz_merge_summary_check.rs` (included below),
//! which `cargo test` also runs on the committed corpus.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../selfplay/tests/selfplay/fuzz_merge_summary_check.rs");

fuzz_target!(|data: &[u8]| {
    let path = fuzz_support::input_dir("merge-summary").join("summary.json");
    check_merge_summary(data, &path);
});
