//! Rules, move generation and analysis tools for Bushka and Bashnya.
//!
//! Every game implements [`Game`]; search, self-play, the protocol and the
//! tuner are generic over it, so each exists once for both games.

pub mod data;
pub mod eval;
pub mod files;
pub mod game;
pub mod games;
pub mod hub;
pub mod movelist;
pub mod perft;
pub mod progress;
pub mod record;
pub mod search;
pub mod tt;
pub mod zobrist;

pub use game::{Color, Game, GameKind, MoveError, Outcome, PositionError};
pub use games::bashnya;
pub use games::bushka;
pub use movelist::MoveList;
