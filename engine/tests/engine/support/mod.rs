//! Helpers shared by the engine's test modules.

pub mod bashnya_oracle;
pub mod bushka_oracle;
