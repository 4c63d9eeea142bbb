//! The Bushka position: three bitboards, the side to move and a Zobrist hash.

use super::board::{bit, promotion_row, rotate, Bits, Square};
use crate::game::Color;
use crate::zobrist;

/// Zobrist keys: `[white man, white king, black man, black king][bit]`.
static PIECE_KEYS: [[u64; 64]; 4] = [
    zobrist::keys::<64>(0xB05_0001),
    zobrist::keys::<64>(0xB05_0002),
    zobrist::keys::<64>(0xB05_0003),
    zobrist::keys::<64>(0xB05_0004),
];
/// Hashed in when Black is to move.
const BLACK_TO_MOVE_KEY: u64 = zobrist::splitmix64(0xB05_0005);

/// The key of one piece on one square.
#[inline(always)]
pub(crate) fn piece_key(side: Color, king: bool, sq: Square) -> u64 {
    PIECE_KEYS[side as usize * 2 + king as usize][sq as usize]
}

/// A Bushka position (copy-make: [`crate::Game::play`] returns a new one).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    /// Pieces of each colour, indexed by [`Color`].
    pub(crate) pieces: [u64; 2],
    /// Kings of both colours.
    pub(crate) kings: u64,
    /// The side to move.
    pub(crate) side: Color,
    /// Zobrist hash, kept incrementally.
    pub(crate) hash: u64,
}

impl Position {
    /// Builds a position from piece sets; the sets must be disjoint subsets of the board.
    pub fn from_parts(white: u64, black: u64, kings: u64, side: Color) -> Position {
        let mut p = Position {
            pieces: [white, black],
            kings,
            side,
            hash: 0,
        };
        p.hash = p.compute_hash();
        p
    }

    /// The start position of docs/rules.md 1.2.
    pub fn initial() -> Position {
        // White fills rows 0..=2, Black rows 7..=9.
        let white = ((1u64 << 16) - 1) & !(1 << 5);
        let black = super::board::BOARD & !((1u64 << 38) - 1);
        Position::from_parts(white, black, 0, Color::White)
    }

    /// The pieces of one side.
    #[inline(always)]
    pub fn pieces(&self, side: Color) -> u64 {
        self.pieces[side as usize]
    }

    /// The men of one side.
    #[inline(always)]
    pub fn men(&self, side: Color) -> u64 {
        self.pieces[side as usize] & !self.kings
    }

    /// The kings of one side.
    #[inline(always)]
    pub fn kings(&self, side: Color) -> u64 {
        self.pieces[side as usize] & self.kings
    }

    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> u64 {
        self.pieces[0] | self.pieces[1]
    }

    /// The side to move.
    #[inline(always)]
    pub fn side(&self) -> Color {
        self.side
    }

    /// The hash computed from scratch (tests compare it with the incremental one).
    pub(crate) fn compute_hash(&self) -> u64 {
        let mut h = if self.side == Color::Black {
            BLACK_TO_MOVE_KEY
        } else {
            0
        };
        for side in [Color::White, Color::Black] {
            for sq in Bits(self.pieces(side)) {
                h ^= piece_key(side, self.kings & bit(sq) != 0, sq);
            }
        }
        h
    }

    /// Plays a move given as from-square, to-square and captured set; promotion
    /// applies only to a man ending a non-capturing move on its promotion row.
    #[inline]
    pub(crate) fn apply(&self, from: Square, to: Square, captured: u64) -> Position {
        let us = self.side;
        let them = us.opponent();
        let (fb, tb) = (bit(from), bit(to));
        let king = self.kings & fb != 0;
        let mut p = *self;
        p.pieces[us as usize] ^= fb ^ tb;
        p.hash ^= piece_key(us, king, from);
        let promote = !king && captured == 0 && tb & promotion_row(us) != 0;
        if king {
            p.kings ^= fb ^ tb;
        } else if promote {
            p.kings |= tb;
        }
        p.hash ^= piece_key(us, king || promote, to);
        if captured != 0 {
            // Capture bookkeeping: only the opponent's pieces are taken.
            debug_assert_eq!(
                captured & self.pieces[them as usize],
                captured,
                "captures a square without an enemy piece"
            );
            for sq in Bits(captured) {
                p.hash ^= piece_key(them, self.kings & bit(sq) != 0, sq);
            }
            p.pieces[them as usize] &= !captured;
            p.kings &= !captured;
        }
        p.side = them;
        p.hash ^= BLACK_TO_MOVE_KEY;
        p
    }

    /// Colours swapped and the board turned 180 degrees, the other side to move.
    pub fn mirrored(&self) -> Position {
        let turn = |bb: u64| Bits(bb).fold(0u64, |acc, sq| acc | bit(rotate(sq)));
        Position::from_parts(
            turn(self.pieces[1]),
            turn(self.pieces[0]),
            turn(self.kings),
            self.side.opponent(),
        )
    }
}
