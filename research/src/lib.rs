//! Research on the two games with the engine: the opening atlas (every
//! opening line measured by a deep search and by self-play, ranked and
//! classified, with a report) and the inventory of tactics (combinations
//! mined from games, verified, classified by motif).

pub mod atlas;
pub mod chart;
pub mod inventory;
pub mod report;
pub mod tactics;
