//! The position: every square's column, commander bitboards, side to move, hash.

use super::column::{
    swap_colours, with_bottom, without_top, Column, Piece, BLACK_BIT, KING_BIT, MAX_HEIGHT,
};
use super::geometry::{far_rank, square_name, Bitboard, NONE, SQUARES};
use super::moves::{Move, MAX_JUMPS};
use crate::game::{Color, PositionError};
use crate::zobrist;

/// Most pieces of one colour: the twelve each side starts with.
pub const MAX_PIECES_PER_SIDE: u32 = 12;

/// Per-square keys for the column hash.
const SQUARE_KEYS: [u64; SQUARES] = zobrist::keys(0xBA54_1A00);
/// Added when Black is to move.
const SIDE_KEY: u64 = zobrist::splitmix64(0xBA54_1A00_51DE);

/// The hash contribution of one square's column. `splitmix64` is a bijection,
/// so on one square distinct columns (any difference, at any depth) never
/// collide; the empty square contributes nothing.
#[inline(always)]
fn column_key(sq: usize, col: u64) -> u64 {
    if col == 0 {
        0
    } else {
        zobrist::splitmix64(col ^ SQUARE_KEYS[sq])
    }
}

/// Whether the piece right under a column's commander belongs to the other
/// side. A column of two or more pieces has its sentinel at bit 4 or above;
/// bit 0 is the commander's colour and bit 2 the colour of the piece under it.
#[inline(always)]
const fn freed(col: u64) -> bool {
    col >= 16 && (col ^ (col >> 2)) & 1 != 0
}

/// A Bashnya position: a small `Copy` value, changed by copy-make.
///
/// Columns are stored in 32 bits per square (up to 15 pieces). A column of 16
/// or more pieces keeps its upper bits in `tall_hi`: at most one column can
/// be that tall, since two would need 32 of the 24 pieces. This halves the
/// bytes copied by every `play`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// The low 32 bits of each square's column code (see [`super::column`]).
    pub(crate) cols: [u32; SQUARES],
    /// The high 32 bits of the code of the column on `tall_sq`.
    pub(crate) tall_hi: u32,
    /// Occupied squares.
    pub(crate) occ: Bitboard,
    /// Squares whose commander is black.
    pub(crate) black: Bitboard,
    /// Squares whose commander is a king.
    pub(crate) kings: Bitboard,
    /// Squares whose column has the other side's piece right under the
    /// commander (a capture of the column would free it).
    pub(crate) freed: Bitboard,
    /// Side to move.
    pub(crate) side: Color,
    /// Zobrist hash, kept incrementally.
    pub(crate) hash: u64,
    /// The square of the column taller than 15 pieces, or [`NONE`].
    pub(crate) tall_sq: u8,
}

/// The fields of a position besides its columns and side, changed
/// apart from them while a move is made (see [`Position::after`]).
#[derive(Clone, Copy)]
struct Meta {
    occ: Bitboard,
    black: Bitboard,
    kings: Bitboard,
    freed: Bitboard,
    hash: u64,
    tall_hi: u32,
    tall_sq: u8,
}

impl Meta {
    /// The full column code of a square.
    #[inline(always)]
    fn code(&self, cols: &[u32; SQUARES], sq: usize) -> u64 {
        let low = cols[sq & (SQUARES - 1)] as u64;
        if sq == self.tall_sq as usize {
            low | (self.tall_hi as u64) << 32
        } else {
            low
        }
    }

    /// Puts an encoded column on a square, keeping bitboards (and when
    /// `HASH`, the hash) in step.
    #[inline(always)]
    fn put<const HASH: bool>(&mut self, cols: &mut [u32; SQUARES], sq: usize, col: u64) {
        let sq = sq & (SQUARES - 1);
        if HASH {
            self.hash ^= column_key(sq, self.code(cols, sq)) ^ column_key(sq, col);
        }
        cols[sq] = col as u32;
        let high = (col >> 32) as u32;
        if high != 0 {
            self.tall_sq = sq as u8;
            self.tall_hi = high;
        } else if self.tall_sq as usize == sq {
            self.tall_sq = NONE;
            self.tall_hi = 0;
        }
        let bit = 1u32 << sq;
        let present = if col != 0 { bit } else { 0 };
        self.occ = (self.occ & !bit) | present;
        self.black = (self.black & !bit) | if col & BLACK_BIT != 0 { present } else { 0 };
        self.kings = (self.kings & !bit) | if col & KING_BIT != 0 { present } else { 0 };
        self.freed = (self.freed & !bit) | if freed(col) { bit } else { 0 };
    }

    /// Makes a non-capturing move: two squares change.
    #[inline(always)]
    fn quiet(&mut self, cols: &mut [u32; SQUARES], mv: &Move) {
        let from = mv.from as usize & (SQUARES - 1);
        let to = mv.path[0] as usize & (SQUARES - 1);
        let old = self.code(cols, from);
        let col = if mv.promotes { old | KING_BIT } else { old };
        self.hash ^= column_key(from, old) ^ column_key(to, col);
        cols[from] = 0;
        cols[to] = col as u32;
        self.carry(from, to, old, mv.promotes);
    }

    /// Moves the bitboard bits (and the tall column's square) of the column
    /// `old` from `from` to the empty `to`, crowning it when `promotes`.
    #[inline(always)]
    fn carry(&mut self, from: usize, to: usize, old: u64, promotes: bool) {
        let both = (1u32 << from) | (1u32 << to);
        self.occ ^= both;
        if old & BLACK_BIT != 0 {
            self.black ^= both;
        }
        if old & KING_BIT != 0 {
            self.kings ^= both;
        } else if promotes {
            self.kings |= 1 << to;
        }
        if self.freed & (1 << from) != 0 {
            self.freed ^= both;
        }
        if self.tall_sq as usize == from {
            self.tall_sq = to as u8;
        }
    }

    /// Makes a capture. Captured pieces go to the bottom of the moving column
    /// in the order they were taken. The hash is kept only when `HASH`.
    #[inline(always)]
    fn capture<const HASH: bool>(&mut self, cols: &mut [u32; SQUARES], mv: &Move) {
        let from = mv.from as usize & (SQUARES - 1);
        let mut col = self.code(cols, from);
        self.put::<HASH>(cols, from, 0);
        for &j in mv.jumped() {
            let j = j as usize & (SQUARES - 1);
            let jumped = self.code(cols, j);
            col = with_bottom(col, jumped & 3);
            self.put::<HASH>(cols, j, without_top(jumped));
        }
        if mv.promotes {
            col |= KING_BIT;
        }
        self.put::<HASH>(cols, mv.to() as usize, col);
    }
}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.text())
    }
}

impl Position {
    /// A position with no pieces and the given side to move.
    pub fn empty(side: Color) -> Position {
        let mut p = Position {
            cols: [0; SQUARES],
            tall_hi: 0,
            tall_sq: NONE,
            occ: 0,
            black: 0,
            kings: 0,
            freed: 0,
            side,
            hash: 0,
        };
        p.hash = p.compute_hash();
        p
    }

    /// Builds a validated position from its columns.
    pub fn from_columns(side: Color, columns: &[(u8, Column)]) -> Result<Position, PositionError> {
        let mut p = Position::empty(side);
        let mut count = [0u32; 2];
        for &(sq, col) in columns {
            if sq as usize >= SQUARES {
                return Err(PositionError::UnknownSquare(sq.to_string()));
            }
            if p.occ & (1 << sq) != 0 {
                return Err(PositionError::DuplicateSquare(square_name(sq)));
            }
            let Some(top) = col.top() else {
                return Err(PositionError::BadColumn(
                    square_name(sq),
                    "no pieces".into(),
                ));
            };
            if col.height() > MAX_HEIGHT {
                return Err(PositionError::TooManyPieces(format!(
                    "{} in one column",
                    col.height()
                )));
            }
            if !top.is_king() && far_rank(top.color() == Color::Black) & (1 << sq) != 0 {
                return Err(PositionError::ManOnPromotionRow(
                    top.color().name(),
                    square_name(sq),
                ));
            }
            for piece in col.pieces() {
                count[piece.color() as usize] += 1;
            }
            p.set(sq as usize, col.raw());
        }
        for c in [Color::White, Color::Black] {
            if count[c as usize] > MAX_PIECES_PER_SIDE {
                return Err(PositionError::TooManyPieces(format!(
                    "{} {} pieces, at most {MAX_PIECES_PER_SIDE}",
                    count[c as usize],
                    c.name()
                )));
            }
        }
        Ok(p)
    }

    /// The initial position.
    pub fn initial() -> Position {
        let mut p = Position::empty(Color::White);
        for sq in 0..12 {
            p.set(
                sq,
                Column::from_pieces(&[Piece::WhiteMan])
                    .unwrap_or_default()
                    .raw(),
            );
            p.set(
                31 - sq,
                Column::from_pieces(&[Piece::BlackMan])
                    .unwrap_or_default()
                    .raw(),
            );
        }
        p
    }

    /// Side to move.
    pub fn side(&self) -> Color {
        self.side
    }

    /// The column on a square (empty if none or off the board).
    pub fn column(&self, sq: u8) -> Column {
        if (sq as usize) < SQUARES {
            Column(self.code(sq as usize))
        } else {
            Column::EMPTY
        }
    }

    /// Occupied squares.
    pub fn occupied(&self) -> Bitboard {
        self.occ
    }

    /// Squares of the columns `color` commands.
    pub fn columns_of(&self, color: Color) -> Bitboard {
        match color {
            Color::White => self.occ & !self.black,
            Color::Black => self.black,
        }
    }

    /// Squares of the columns commanded by a king.
    pub fn king_columns(&self) -> Bitboard {
        self.kings
    }

    /// Squares of the columns whose piece right under the commander belongs
    /// to the other side, kept by every move.
    pub fn freed_columns(&self) -> Bitboard {
        self.freed
    }

    /// [`Position::freed_columns`] computed from the columns, square by
    /// square; always equal to it.
    pub fn computed_freed(&self) -> Bitboard {
        (0..SQUARES)
            .filter(|&sq| freed(self.code(sq)))
            .fold(0, |b, sq| b | 1 << sq)
    }

    /// The stored (incremental) Zobrist hash.
    pub fn zobrist(&self) -> u64 {
        self.hash
    }

    /// The hash computed from scratch; always equals [`Position::zobrist`].
    pub(crate) fn compute_hash(&self) -> u64 {
        let side = if self.side == Color::Black {
            SIDE_KEY
        } else {
            0
        };
        (0..SQUARES).fold(side, |h, sq| h ^ column_key(sq, self.code(sq)))
    }

    /// The full column code of a square (`sq` < 32).
    #[inline(always)]
    pub(crate) fn code(&self, sq: usize) -> u64 {
        self.meta().code(&self.cols, sq)
    }

    /// Puts an encoded column on a square, keeping bitboards and hash in step.
    #[inline(always)]
    pub(crate) fn set(&mut self, sq: usize, col: u64) {
        let mut meta = self.meta();
        meta.put::<true>(&mut self.cols, sq, col);
        self.set_meta(meta);
    }

    /// Sets everything but the columns and side.
    #[inline(always)]
    fn set_meta(&mut self, meta: Meta) {
        self.occ = meta.occ;
        self.black = meta.black;
        self.kings = meta.kings;
        self.freed = meta.freed;
        self.hash = meta.hash;
        self.tall_hi = meta.tall_hi;
        self.tall_sq = meta.tall_sq;
    }

    /// Everything but the columns and side.
    #[inline(always)]
    fn meta(&self) -> Meta {
        Meta {
            occ: self.occ,
            black: self.black,
            kings: self.kings,
            freed: self.freed,
            hash: self.hash,
            tall_hi: self.tall_hi,
            tall_sq: self.tall_sq,
        }
    }

    /// The position after `mv` (copy-make). The columns are copied as one
    /// 128-byte array and the result is built field by field: copying the
    /// whole position and then changing it costs two library `memcpy` calls.
    #[inline(always)]
    pub(crate) fn after(&self, mv: &Move) -> Position {
        let mut cols = self.cols;
        let mut meta = self.meta();
        if mv.jumps == 0 {
            meta.quiet(&mut cols, mv);
        } else {
            meta.capture::<true>(&mut cols, mv);
        }
        let next = Position {
            cols,
            tall_hi: meta.tall_hi,
            occ: meta.occ,
            black: meta.black,
            kings: meta.kings,
            freed: meta.freed,
            side: self.side.opponent(),
            hash: meta.hash ^ SIDE_KEY,
            tall_sq: meta.tall_sq,
        };
        // Capture bookkeeping: every jump puts one piece under the moving
        // column, and no piece ever leaves the board.
        debug_assert_eq!(
            next.height(mv.to()),
            self.height(mv.from()) + mv.jumps as u32,
            "{mv} from {self:?}"
        );
        debug_assert!(
            mv.jumps == 0
                || (
                    next.piece_count(Color::White),
                    next.piece_count(Color::Black)
                ) == (
                    self.piece_count(Color::White),
                    self.piece_count(Color::Black)
                ),
            "{mv} from {self:?}"
        );
        next
    }

    /// Runs `f` on the position after `mv`, made in place and undone
    /// afterwards: make-unmake, for perft, where copying the position for
    /// every move would cost more than the move. The hash is left as it was
    /// (perft never reads it), so `f` must not read it; anything `f` changes
    /// must be undone by `f` itself.
    #[inline(always)]
    pub(crate) fn with_move<R>(&mut self, mv: &Move, f: impl FnOnce(&mut Position) -> R) -> R {
        if mv.jumps == 0 {
            return self.with_quiet(mv.from, mv.path[0], mv.promotes, f);
        }
        // A capture changes its start, end and jumped squares. The end square
        // was empty (or the start square), and restoring in reverse order
        // puts back a square jumped twice as it was before the first jump.
        let (meta, side) = (self.meta(), self.side);
        let from = mv.from as usize & (SQUARES - 1);
        let jumped = mv.jumped();
        let start = self.cols[from];
        let mut saved = [0u32; MAX_JUMPS];
        for (s, &j) in saved.iter_mut().zip(jumped) {
            *s = self.cols[j as usize & (SQUARES - 1)];
        }
        let mut changed = meta;
        changed.capture::<false>(&mut self.cols, mv);
        self.set_meta(changed);
        self.side = side.opponent();
        let result = f(self);
        self.cols[mv.to() as usize & (SQUARES - 1)] = 0;
        for (&s, &j) in saved.iter().zip(jumped).rev() {
            self.cols[j as usize & (SQUARES - 1)] = s;
        }
        self.cols[from] = start;
        self.set_meta(meta);
        self.side = side;
        result
    }

    /// [`Position::with_move`] for the non-capturing move `from`-`to`
    /// (crowning when `promotes`), given by its squares: only the two
    /// squares, the bitboards and the side change.
    #[inline(always)]
    pub(crate) fn with_quiet<R>(
        &mut self,
        from: u8,
        to: u8,
        promotes: bool,
        f: impl FnOnce(&mut Position) -> R,
    ) -> R {
        let (from, to) = (from as usize & (SQUARES - 1), to as usize & (SQUARES - 1));
        let (meta, side) = (self.meta(), self.side);
        let col = self.cols[from];
        let mut changed = meta;
        changed.carry(from, to, col as u64, promotes);
        self.set_meta(changed);
        self.side = side.opponent();
        self.cols[from] = 0;
        self.cols[to] = if promotes { col | KING_BIT as u32 } else { col };
        let result = f(self);
        self.cols[to] = 0;
        self.cols[from] = col;
        self.set_meta(meta);
        self.side = side;
        result
    }

    /// The position with colours swapped and the board turned round.
    pub fn mirrored(&self) -> Position {
        let mut p = Position::empty(self.side.opponent());
        for sq in 0..SQUARES {
            p.set(SQUARES - 1 - sq, swap_colours(self.code(sq)));
        }
        p
    }

    /// Total number of pieces of a colour on the board (commanders and prisoners).
    pub fn piece_count(&self, color: Color) -> u32 {
        let want = color == Color::Black;
        (0..SQUARES)
            .map(|sq| {
                Column(self.code(sq))
                    .pieces()
                    .filter(|p| (p.color() == Color::Black) == want)
                    .count() as u32
            })
            .sum()
    }

    /// Height of the column on a square.
    pub fn height(&self, sq: u8) -> u32 {
        self.column(sq).height()
    }
}
