//! Weights files as the commands load them (`--weights`, an engine's
//! `weights=`, the hub's `weights` parameter): the bytes written to a file,
//! read by `engine::eval::select_eval` under each `--eval` choice in both
//! games (JSON or binary told apart, text that is neither refused, the
//! weights compiled into the evaluator the search uses) and named by
//! `eval_id` (checks: `fuzz_support::check_weights_file`).
#![no_main]

use engine::{bashnya, bushka};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = fuzz_support::input_dir("weights-file").join("weights");
    std::fs::write(&path, data).expect("temporary file");
    let text = path.to_str().expect("a UTF-8 temporary path");
    fuzz_support::check_weights_file::<bushka::Position>(text);
    fuzz_support::check_weights_file::<bashnya::Position>(text);
    let _ = std::fs::remove_file(&path);
});
