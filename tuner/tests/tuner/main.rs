//! The tuner's integration tests, built as one test binary
//! (`cargo test -p bushka-tuner --test tuner`); new subjects go in new modules.

mod checkpoint;
mod fuzz_corpus;
mod fuzz_tuner_data_check;
mod patterns;
mod tuning;
