//! Self-play tournaments: engine descriptions, players, the match runner,
//! opening books, statistics (Elo, pentanomial SPRT), PDN game records and
//! training data.

pub mod clock;
pub mod external;
pub mod game;
pub mod openings;
pub mod output;
pub mod pdn;
pub mod player;
pub mod ratings;
pub mod spec;
pub mod stats;
pub mod tournament;
