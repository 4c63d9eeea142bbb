//! The research crate's tests, one binary.

mod atlas;
mod tactics;
