//! The two games.

pub mod bashnya;
pub mod bushka;
