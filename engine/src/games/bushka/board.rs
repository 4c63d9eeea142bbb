//! Board geometry: the 50 dark squares in a 55-bit layout with ghost squares.
//!
//! A dark square `(x, y)` (with `x + y` even) has bit index `(11 y + x) / 2`.
//! The four diagonal directions are then shifts by 6 or 5 bits; a step off
//! the left or right edge lands on one of the ghost bits 5, 16, 27, 38, 49,
//! which are not part of [`BOARD`], and a step past the top or bottom leaves
//! the 55-bit range, so one shift and one mask move a whole set of pieces.

use crate::game::Color;

/// A square as a bit index 0..55 (ghost indices are never valid squares).
pub type Square = u8;

/// The 50 playable squares.
pub const BOARD: u64 = ((1u64 << 55) - 1) & !GHOSTS;
/// The ghost bits between rows, where steps off the side edges land.
pub const GHOSTS: u64 = (1 << 5) | (1 << 16) | (1 << 27) | (1 << 38) | (1 << 49);

/// The four directions, in bit-shift terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Dir {
    /// `(+1, +1)`: up a letter line (number N+1).
    NE = 0,
    /// `(-1, +1)`: along a number line towards `a` (letter L-1).
    NW = 1,
    /// `(+1, -1)`: along a number line towards `i` (letter L+1).
    SE = 2,
    /// `(-1, -1)`: down a letter line (number N-1).
    SW = 3,
}

/// All four directions; index `d` and its reverse `3 - d`.
pub const DIRS: [Dir; 4] = [Dir::NE, Dir::NW, Dir::SE, Dir::SW];
/// Bit offset of one step in each direction.
pub const DELTA: [i8; 4] = [6, 5, -5, -6];

impl Dir {
    /// The opposite direction.
    #[inline(always)]
    pub fn reverse(self) -> Dir {
        DIRS[3 - self as usize]
    }

    /// True for the two directions along a letter line (the number changes).
    #[inline(always)]
    pub fn along_letter_line(self) -> bool {
        matches!(self, Dir::NE | Dir::SW)
    }
}

/// Calls `f` with each direction in [`DIRS`] order, written out so that
/// after inlining every direction is a constant and each [`shift`] inside `f`
/// compiles to one shift and a mask.
#[inline(always)]
pub fn each_dir(mut f: impl FnMut(Dir)) {
    f(Dir::NE);
    f(Dir::NW);
    f(Dir::SE);
    f(Dir::SW);
}

/// Calls `f` with the forward directions of `side` in [`forward`] order,
/// each a constant after inlining (see [`each_dir`]).
#[inline(always)]
pub fn each_forward(side: Color, mut f: impl FnMut(Dir)) {
    match side {
        Color::White => {
            f(Dir::NE);
            f(Dir::NW);
        }
        Color::Black => {
            f(Dir::SW);
            f(Dir::SE);
        }
    }
}

/// The forward directions of a side.
#[inline(always)]
pub fn forward(side: Color) -> [Dir; 2] {
    match side {
        Color::White => [Dir::NE, Dir::NW],
        Color::Black => [Dir::SW, Dir::SE],
    }
}

/// Left and right shift amounts of one step in each direction: a step is a
/// shift left then right, one of them by zero.
const SHIFTS: [(u32, u32); 4] = [(6, 0), (5, 0), (0, 5), (0, 6)];

/// Every square of `bb` moved one step in direction `d` (off-board bits dropped).
///
/// Branch-free: with `d` known when compiling this is one shift and a mask;
/// with `d` a loop variable it is two table-driven shifts, where a `match`
/// would compile to a jump table that the processor often mispredicts.
#[inline(always)]
pub fn shift(bb: u64, d: Dir) -> u64 {
    let (left, right) = SHIFTS[d as usize];
    ((bb << left) >> right) & BOARD
}

/// The neighbour of `sq` in direction `d`, if it is on the board.
#[inline(always)]
pub fn step(sq: Square, d: Dir) -> Option<Square> {
    let t = sq as i32 + DELTA[d as usize] as i32;
    if (0..64).contains(&t) && BOARD & (1u64 << t) != 0 {
        Some(t as Square)
    } else {
        None
    }
}

/// The bit of a square.
#[inline(always)]
pub const fn bit(sq: Square) -> u64 {
    1u64 << sq
}

/// Iterates the squares of a bitboard, lowest first.
#[derive(Clone, Copy)]
pub struct Bits(pub u64);

impl Iterator for Bits {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let s = self.0.trailing_zeros() as Square;
            self.0 &= self.0 - 1;
            Some(s)
        }
    }
}

/// The square at Cartesian `(x, y)`, if it is a dark square of the board.
pub const fn from_xy(x: i32, y: i32) -> Option<Square> {
    if x < 0 || x > 9 || y < 0 || y > 9 || (x + y) % 2 != 0 {
        None
    } else {
        Some(((11 * y + x) / 2) as Square)
    }
}

/// The Cartesian `(x, y)` of a square.
pub const fn to_xy(sq: Square) -> (i32, i32) {
    let twice = 2 * sq as i32;
    let y = twice / 11;
    (twice - 11 * y, y)
}

/// The letter line (0..9 for `a`..`i`) and number line (1..=10) of a square.
pub const fn lines(sq: Square) -> (u8, u8) {
    let (x, y) = to_xy(sq);
    (((x - y) / 2 + 4) as u8, ((x + y) / 2 + 1) as u8)
}

/// The square on letter line `l` (0..9) and number line `n` (1..=10).
pub const fn from_lines(l: u8, n: u8) -> Option<Square> {
    let (l, n) = (l as i32, n as i32);
    from_xy((n - 1) + (l - 4), (n - 1) - (l - 4))
}

/// The letter of a letter line.
pub fn letter_char(l: u8) -> char {
    (b'a' + l) as char
}

/// The digit of a number line (`0` stands for 10).
pub fn number_char(n: u8) -> char {
    (b'0' + n % 10) as char
}

/// A square's name, letter line first: `e1`, `e0`, `a5`.
pub fn name(sq: Square) -> String {
    let (l, n) = lines(sq);
    format!("{}{}", letter_char(l), number_char(n))
}

/// Reads a letter-line letter.
pub fn parse_letter(c: char) -> Option<u8> {
    ('a'..='i').contains(&c).then(|| c as u8 - b'a')
}

/// Reads a number-line digit (`0` means 10).
pub fn parse_number(c: char) -> Option<u8> {
    c.to_digit(10).map(|d| if d == 0 { 10 } else { d as u8 })
}

/// Reads a square name such as `e1`.
pub fn parse_square(text: &str) -> Option<Square> {
    let mut cs = text.chars();
    let (l, n) = (cs.next()?, cs.next()?);
    if cs.next().is_some() {
        return None;
    }
    from_lines(parse_letter(l)?, parse_number(n)?)
}

/// A side's promotion row: White's is `y = 9`, Black's is `y = 0`.
pub const fn promotion_row(side: Color) -> u64 {
    match side {
        Color::White => 0b11111u64 << 50,
        Color::Black => 0b11111,
    }
}

/// The square turned 180 degrees about the board's centre.
pub const fn rotate(sq: Square) -> Square {
    let (x, y) = to_xy(sq);
    match from_xy(9 - x, 9 - y) {
        Some(s) => s,
        None => sq,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifty_squares_and_names_round_trip() {
        assert_eq!(BOARD.count_ones(), 50);
        for sq in Bits(BOARD) {
            assert_eq!(parse_square(&name(sq)), Some(sq));
            let (x, y) = to_xy(sq);
            assert_eq!(from_xy(x, y), Some(sq));
        }
        assert_eq!(name(from_xy(0, 0).unwrap()), "e1");
        assert_eq!(name(from_xy(9, 9).unwrap()), "e0");
        assert_eq!(name(from_xy(0, 8).unwrap()), "a5");
        assert_eq!(name(from_xy(8, 0).unwrap()), "i5");
        assert_eq!(parse_square("a1"), None);
        assert_eq!(parse_square("j5"), None);
    }

    #[test]
    fn shifts_match_steps() {
        for sq in Bits(BOARD) {
            let (x, y) = to_xy(sq);
            for (d, (dx, dy)) in DIRS.iter().zip([(1, 1), (-1, 1), (1, -1), (-1, -1)]) {
                let expect = from_xy(x + dx, y + dy);
                assert_eq!(step(sq, *d), expect);
                assert_eq!(shift(bit(sq), *d), expect.map_or(0, bit));
            }
        }
    }

    #[test]
    fn line_lengths() {
        let letter: Vec<usize> = (0..9)
            .map(|l| (1..=10).filter(|&n| from_lines(l, n).is_some()).count())
            .collect();
        assert_eq!(letter, [2, 4, 6, 8, 10, 8, 6, 4, 2]);
        let number: Vec<usize> = (1..=10)
            .map(|n| (0..9).filter(|&l| from_lines(l, n).is_some()).count())
            .collect();
        assert_eq!(number, [1, 3, 5, 7, 9, 9, 7, 5, 3, 1]);
        let promo: Vec<String> = Bits(promotion_row(Color::White)).map(name).collect();
        assert_eq!(promo, ["a6", "b7", "c8", "d9", "e0"]);
        let promo: Vec<String> = Bits(promotion_row(Color::Black)).map(name).collect();
        assert_eq!(promo, ["e1", "f2", "g3", "h4", "i5"]);
    }
}
