//! Self-play tournaments: engine descriptions, players, the match runner,
//! opening books, statistics (Elo, pentanomial SPRT), PDN game records and
//! training data; shards of a run and their merge.

pub mod clock;
pub mod cluster;
pub mod external;
pub mod game;
pub mod merge;
pub mod openings;
pub mod output;
pub mod pdn;
pub mod player;
pub mod ratings;
pub mod shard;
pub mod spec;
pub mod stats;
pub mod tournament;
