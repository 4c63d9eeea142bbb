//! Training-data files: the resume path (`selfplay::output::recover_data`)
//! over arbitrary bytes written to a temporary file, and the position field
//! of every line read in both games.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../selfplay/tests/selfplay/fuzz_data_check.rs");

fuzz_target!(|data: &[u8]| {
    let path = fuzz_support::input_dir("data").join("run.data");
    check_data_file(data, &path);
});
