//! Bashnya (Russian column draughts): RULES.md section 2.
//!
//! Files by idea: [`geometry`] (squares, rays, bitboard shifts), [`column`]
//! (pieces and the column encoding), [`position`] (the position and
//! copy-make), `captures` (the capture search), `movegen` (generation and
//! bulk counting), `notation` (move text) and `text` (position text).

mod captures;
pub mod column;
pub mod geometry;
mod movegen;
mod moves;
mod notation;
pub mod position;
mod text;

pub use column::{Column, Piece};
pub use geometry::{parse_square, square_name, Bitboard};
pub use moves::{Move, MAX_JUMPS};
pub use position::{Position, Rules};

use crate::game::{Color, Game, GameKind, MoveError, PositionError};
use crate::movelist::MoveList;

impl Game for Position {
    type Move = Move;

    const KIND: GameKind = GameKind::Bashnya;

    fn start() -> Self {
        Position::initial()
    }

    fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline]
    fn generate(&self, out: &mut MoveList<Move>) {
        movegen::generate(self, out);
    }

    #[inline]
    fn count_moves(&self) -> u64 {
        movegen::count(self)
    }

    #[inline(always)]
    fn play(&self, mv: &Move) -> Self {
        let mut next = *self;
        next.apply(mv);
        next
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn must_capture(&self) -> bool {
        movegen::has_capture(self)
    }

    fn is_capture(mv: &Move) -> bool {
        mv.is_capture()
    }

    fn captured_count(mv: &Move) -> u32 {
        mv.captures()
    }

    fn is_irreversible(&self, mv: &Move) -> bool {
        mv.is_capture() || self.kings & (1 << mv.from) == 0
    }

    fn parse_position(text: &str) -> Result<Self, PositionError> {
        Position::parse(text)
    }

    fn to_text(&self) -> String {
        self.text()
    }

    fn move_text(&self, mv: &Move) -> String {
        Position::move_text(self, mv)
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        Position::parse_move(self, text)
    }

    fn mirror(&self) -> Self {
        self.mirrored()
    }
}
