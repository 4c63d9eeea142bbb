//! Bashnya (Russian column draughts): docs/rules.md section 2.
//!
//! Files by idea: [`geometry`] (squares, rays, bitboard shifts), [`column`]
//! (pieces and the column encoding), [`position`] (the position and
//! copy-make), `captures` (the capture search), `movegen` (generation and
//! bulk counting), `perft` (the leaf count's fast path), `notation` (move text) and `text` (position text).
//!
//! Choices made where the original rule pages leave room (docs/rules.md section 3 lists them all; each one is tested):
//!
//! * **Re-jumping at once.** docs/rules.md 2.3 forbids jumping the column just
//!   jumped by the very next jump; the reference counts in
//!   `data/perft/bashnya.txt` count under that reading, and the generator
//!   agrees with every line.
//! * **Passing emptied squares.** A jumped single piece leaves at once, so a
//!   king may fly back over its square (and over its own start square) to
//!   take something beyond it.
//! * **Identity of moves.** Captures are compared by what they change (end
//!   square, commander rank, pieces taken in order, times each square was
//!   jumped), which is an exact comparison of the resulting positions.
//! * **Piece limits.** At most 12 pieces of a colour (so at most 12 jumps in
//!   a capture) and 24 in one column; more is a position-text error.
//! * **No pieces.** `W:` (no columns at all) is a valid position text; the
//!   side to move has no move and has lost.
//! * **Notation.** `start:end` names a capture when exactly one legal capture
//!   goes from start to end, unless the text is itself a complete route. A
//!   light square in a position text is `PositionError::LightSquare`, an
//!   unknown one `PositionError::UnknownSquare`.

mod captures;
pub mod column;
pub mod diagram;
pub mod geometry;
mod movegen;
mod moves;
mod notation;
pub(crate) mod perft;
pub mod position;
mod text;

pub use column::{Column, Piece};
pub use geometry::{parse_square, square_name, Bitboard};
pub use moves::{Move, MAX_JUMPS};
pub use position::Position;

use crate::game::{Color, Game, GameKind, MoveError, PositionError};
use crate::movelist::MoveList;

impl Game for Position {
    type Move = Move;

    const KIND: GameKind = GameKind::Bashnya;
    const BENCH_DEPTH: u32 = 13;
    const BENCH_POSITIONS: &'static str = include_str!("../../../../data/bench/bashnya.txt");
    const OPENING_BOOK: &'static str = include_str!("../../../../data/openings/bashnya.txt");

    fn perft(&self, depth: u32) -> u64 {
        perft::perft(self, depth)
    }

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
        self.after(mv)
    }

    fn hash_from_scratch(&self) -> u64 {
        self.compute_hash()
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn diagram(&self) -> String {
        diagram::diagram(self)
    }

    fn must_capture(&self) -> bool {
        movegen::has_capture(self)
    }

    #[inline]
    fn quiet_moves_exist(&self) -> Option<bool> {
        movegen::quiet_moves_exist(self)
    }

    fn is_capture(mv: &Move) -> bool {
        mv.is_capture()
    }

    fn captured_count(mv: &Move) -> u32 {
        mv.captures()
    }

    /// From and first landing square: a quiet move is named exactly.
    #[inline(always)]
    fn history_key(mv: &Move) -> usize {
        mv.from as usize * 32 + mv.path[0] as usize
    }

    /// The number of columns never grows and a king is never a man again;
    /// anything else can come back (captured pieces stay on the board, and
    /// men capture backwards).
    #[inline(always)]
    fn is_irreversible(&self, mv: &Move, after: &Self) -> bool {
        mv.promotes || after.occ.count_ones() < self.occ.count_ones()
    }

    #[inline(always)]
    fn is_progress(&self, mv: &Move) -> bool {
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
