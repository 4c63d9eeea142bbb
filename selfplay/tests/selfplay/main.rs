//! The self-play crate's integration tests, one module per subject, built as
//! one test binary (`cargo test -p bushka-selfplay --test selfplay`).

mod clock;
mod fuzz_data_check;
mod fuzz_merge_summary_check;
mod fuzz_pdn_check;
mod fuzz_pdn_resume_check;
mod fuzz_regressions;
mod fuzz_shard_check;
mod fuzz_specs_check;
mod pdn;
mod ratings;
mod tournament;
