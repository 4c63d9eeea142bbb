//! Training-data files: the resume path (`selfplay::output::recover_data`)
//! over arbitrary bytes written to a temporary file, and the position field
//! of every line read in both games.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../selfplay/tests/selfplay/fuzz_data_check.rs");

fuzz_target!(|data: &[u8]| {
    let dir = if std::path::Path::new("/dev/shm").is_dir() {
        std::path::PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let path = dir.join(format!("bushka-fuzz-data-{}.txt", std::process::id()));
    check_data_file(data, &path);
});
