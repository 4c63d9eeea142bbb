//! Tuning checkpoints: refused with a one-line error, or read exactly
//! (written back byte for byte).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tuner::Checkpoint;

fuzz_target!(|data: &[u8]| match Checkpoint::from_bytes(data) {
    Ok(c) => assert_eq!(c.to_bytes(), data, "checkpoint round trip"),
    Err(e) => fuzz_support::assert_one_line(&e),
});
