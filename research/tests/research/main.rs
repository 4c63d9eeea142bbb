//! The research crate's tests, one binary.

mod atlas;
mod fuzz_research_check;
mod tactics;
