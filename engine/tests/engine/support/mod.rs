//! Helpers shared by the engine's test modules.

pub mod bashnya_oracle;
pub mod bushka_oracle;
pub mod perft_suite;
