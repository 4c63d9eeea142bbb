//! Pieces and the compact column encoding.
//!
//! A column is one `u64`: two bits per piece, the top piece in the lowest two
//! bits, and a single sentinel bit just above the bottom piece, so the height
//! is found from the highest set bit and every piece code (white man is `00`)
//! is usable. The empty column is `0`. 24 pieces need 49 bits.

use crate::game::Color;

/// Most pieces one column can hold: every piece of both sides.
pub const MAX_HEIGHT: u32 = 24;

/// Piece code bit: set for a black piece.
pub(crate) const BLACK_BIT: u64 = 1;
/// Piece code bit: set for a king.
pub(crate) const KING_BIT: u64 = 2;
/// Bits of every piece-colour flag in a column of up to 24 pieces.
const COLOUR_BITS: u64 = 0x5555_5555_5555;

/// A piece: its colour and rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// A white man (`w`).
    WhiteMan = 0,
    /// A black man (`b`).
    BlackMan = 1,
    /// A white king (`W`).
    WhiteKing = 2,
    /// A black king (`B`).
    BlackKing = 3,
}

impl Piece {
    /// The piece for a two-bit code.
    pub const fn from_code(code: u64) -> Piece {
        match code & 3 {
            0 => Piece::WhiteMan,
            1 => Piece::BlackMan,
            2 => Piece::WhiteKing,
            _ => Piece::BlackKing,
        }
    }

    /// The two-bit code of the piece (bit 0 black, bit 1 king).
    pub const fn code(self) -> u64 {
        self as u64
    }

    /// The side the piece belongs to.
    pub const fn color(self) -> Color {
        if self.code() & BLACK_BIT != 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// True for a king.
    pub const fn is_king(self) -> bool {
        self.code() & KING_BIT != 0
    }

    /// The letter of position texts: `w`, `W`, `b`, `B`.
    pub const fn letter(self) -> char {
        match self {
            Piece::WhiteMan => 'w',
            Piece::BlackMan => 'b',
            Piece::WhiteKing => 'W',
            Piece::BlackKing => 'B',
        }
    }

    /// The piece for a position-text letter.
    pub const fn from_letter(c: char) -> Option<Piece> {
        match c {
            'w' => Some(Piece::WhiteMan),
            'b' => Some(Piece::BlackMan),
            'W' => Some(Piece::WhiteKing),
            'B' => Some(Piece::BlackKing),
            _ => None,
        }
    }
}

/// A column of pieces, read from the top down.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Column(pub(crate) u64);

impl Column {
    /// The empty column (no pieces).
    pub const EMPTY: Column = Column(0);

    /// Builds a column from its pieces, top first; `None` if empty or taller than [`MAX_HEIGHT`].
    pub fn from_pieces(pieces: &[Piece]) -> Option<Column> {
        if pieces.is_empty() || pieces.len() > MAX_HEIGHT as usize {
            return None;
        }
        let mut raw = 0u64;
        for (i, p) in pieces.iter().enumerate() {
            raw |= p.code() << (2 * i);
        }
        Some(Column(raw | 1 << (2 * pieces.len())))
    }

    /// The encoded form (see the module documentation).
    pub const fn raw(self) -> u64 {
        self.0
    }

    /// Number of pieces.
    pub const fn height(self) -> u32 {
        height(self.0)
    }

    /// True when the column has no pieces.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The commander (top piece), if any.
    pub const fn top(self) -> Option<Piece> {
        if self.0 == 0 {
            None
        } else {
            Some(Piece::from_code(self.0))
        }
    }

    /// The piece `i` places below the top (0 is the top).
    pub const fn piece(self, i: u32) -> Option<Piece> {
        if i >= self.height() {
            None
        } else {
            Some(Piece::from_code(self.0 >> (2 * i)))
        }
    }

    /// The pieces from the top down.
    pub fn pieces(self) -> impl Iterator<Item = Piece> {
        (0..self.height()).map(move |i| Piece::from_code(self.0 >> (2 * i)))
    }

    /// The column's text, top first, as in position texts (`Bww`).
    pub fn text(self) -> String {
        self.pieces().map(Piece::letter).collect()
    }
}

impl std::fmt::Debug for Column {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Column({})", self.text())
    }
}

/// Height of an encoded column.
#[inline(always)]
pub(crate) const fn height(col: u64) -> u32 {
    if col == 0 {
        0
    } else {
        (63 - col.leading_zeros()) / 2
    }
}

/// The column without its top piece (empty when it had one piece).
#[inline(always)]
pub(crate) const fn without_top(col: u64) -> u64 {
    let rest = col >> 2;
    if rest == 1 {
        0
    } else {
        rest
    }
}

/// The column with `piece` added at the bottom (`col` must not be empty).
#[inline(always)]
pub(crate) const fn with_bottom(col: u64, piece: u64) -> u64 {
    let sentinel = 63 - col.leading_zeros();
    (col ^ (1 << sentinel)) | (piece << sentinel) | (1 << (sentinel + 2))
}

/// The column with every piece's colour swapped (for mirroring).
#[inline(always)]
pub(crate) const fn swap_colours(col: u64) -> u64 {
    if col == 0 {
        0
    } else {
        let pieces_mask = (1u64 << (2 * height(col))) - 1;
        col ^ (COLOUR_BITS & pieces_mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_operations() {
        let c = Column::from_pieces(&[Piece::BlackKing, Piece::WhiteMan, Piece::WhiteMan]).unwrap();
        assert_eq!(c.height(), 3);
        assert_eq!(c.text(), "Bww");
        assert_eq!(Column(without_top(c.0)).text(), "ww");
        assert_eq!(
            Column(with_bottom(c.0, Piece::BlackMan.code())).text(),
            "Bwwb"
        );
        assert_eq!(Column(swap_colours(c.0)).text(), "Wbb");
        let one = Column::from_pieces(&[Piece::WhiteMan]).unwrap();
        assert_eq!(without_top(one.0), 0);
        let full = Column::from_pieces(&[Piece::BlackKing; 24]).unwrap();
        assert_eq!(full.height(), 24);
        assert_eq!(Column(swap_colours(full.0)).text(), "W".repeat(24));
        assert!(Column::from_pieces(&[Piece::BlackKing; 25]).is_none());
    }
}
