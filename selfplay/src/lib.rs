//! Self-play tournaments (issue 6): match runner, statistics, records.

pub mod pdn;
pub mod stats;
