//! Bushka position text (first line) and move notation (later lines).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fuzz_support::check_text::<engine::bushka::Position>(data);
});
