//! Research on the two games with the engine: the opening atlas (every
//! opening line measured by a deep search and by self-play, ranked and
//! classified, with a report).

pub mod atlas;
pub mod chart;
pub mod report;
