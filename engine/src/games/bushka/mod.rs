//! Bushka: docs/rules.md section 1.
//!
//! Freeling's 10x10 game of capture by approach and moving lines of men.

pub mod board;
pub mod diagram;
pub mod movegen;
pub mod notation;
pub mod position;
pub mod tb;
pub mod text;

pub use movegen::{Move, MoveKind};
pub use position::Position;

use crate::game::{Color, Game, GameKind, MoveError, PositionError};
use crate::movelist::MoveList;

/// The start position's text (docs/rules.md 1.2).
pub const START: &str =
    "W:We1,f2,g3,h4,i5,e2,f3,g4,h5,i6,d2,e3,f4,g5,h6:Bb5,c6,d7,e8,f9,a5,b6,c7,d8,e9,a6,b7,c8,d9,e0";

impl Game for Position {
    type Move = Move;
    const KIND: GameKind = GameKind::Bushka;
    // Depth-1 entries crowd the table of a lone Bushka thread (see
    // `search::worker::table_depth`).
    const SINGLE_THREAD_TABLE_DEPTH: i32 = 2;
    const BENCH_DEPTH: u32 = 12;
    const BENCH_POSITIONS: &'static str = include_str!("../../../../data/bench/bushka.txt");
    const OPENING_BOOK: &'static str = include_str!("../../../../data/openings/bushka.txt");

    fn start() -> Self {
        Position::initial()
    }

    #[inline(always)]
    fn side_to_move(&self) -> Color {
        self.side()
    }

    #[inline]
    fn generate(&self, out: &mut MoveList<Move>) {
        movegen::generate(self, out);
    }

    #[inline]
    fn count_moves(&self) -> u64 {
        movegen::count_moves(self)
    }

    #[inline]
    fn play(&self, mv: &Move) -> Self {
        self.apply(mv.from, mv.to, mv.captured)
    }

    #[inline(always)]
    fn hash_from_scratch(&self) -> u64 {
        self.compute_hash()
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    #[inline]
    fn quiet_moves_exist(&self) -> Option<bool> {
        movegen::quiet_moves_exist(self)
    }

    fn must_capture(&self) -> bool {
        movegen::has_capture(self)
    }

    #[inline(always)]
    fn is_capture(mv: &Move) -> bool {
        mv.captured != 0
    }

    #[inline(always)]
    fn captured_count(mv: &Move) -> u32 {
        mv.capture_count()
    }

    /// Captured pieces leave the board and men only go forward.
    #[inline(always)]
    fn is_irreversible(&self, mv: &Move, _after: &Self) -> bool {
        self.is_progress(mv)
    }

    #[inline(always)]
    fn is_progress(&self, mv: &Move) -> bool {
        mv.captured != 0 || self.kings & board::bit(mv.from) == 0
    }

    fn parse_position(text: &str) -> Result<Self, PositionError> {
        text::parse(text)
    }

    fn to_text(&self) -> String {
        text::format(self)
    }

    fn move_text(&self, mv: &Move) -> String {
        notation::move_text(self, mv)
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        notation::parse_move(self, text)
    }

    fn mirror(&self) -> Self {
        self.mirrored()
    }

    fn diagram(&self) -> String {
        diagram::diagram(self)
    }

    #[inline(always)]
    fn history_key(mv: &Move) -> usize {
        mv.from as usize * 64 + mv.to as usize
    }
}
