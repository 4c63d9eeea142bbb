//! Board geometry: square numbering, names, neighbour and ray tables, bitboard shifts.
//!
//! The 32 dark squares are numbered rank by rank from White's side, four per
//! rank, left to right: `a1 c1 e1 g1` are 0..3, `b2 d2 f2 h2` are 4..7, ...,
//! `b8 d8 f8 h8` are 28..31. Turning the board round maps square `s` to `31 - s`,
//! so mirroring a bitboard is one `reverse_bits`.

/// A set of squares: bit `s` is square `s`.
pub type Bitboard = u32;

/// Number of playable (dark) squares.
pub const SQUARES: usize = 32;

/// Marks "no square" in the neighbour tables.
pub(crate) const NONE: u8 = 255;

/// Direction towards higher files and ranks (White's forward right).
pub(crate) const NE: usize = 0;
/// Direction towards lower files, higher ranks (White's forward left).
pub(crate) const NW: usize = 1;
/// Direction towards higher files, lower ranks (Black's forward left).
pub(crate) const SE: usize = 2;
/// Direction towards lower files and ranks (Black's forward right).
pub(crate) const SW: usize = 3;

/// Squares on even rows (ranks 1, 3, 5, 7), where the files are a, c, e, g.
const EVEN_ROWS: Bitboard = 0x0F0F_0F0F;
/// Squares on odd rows (ranks 2, 4, 6, 8), where the files are b, d, f, h.
const ODD_ROWS: Bitboard = 0xF0F0_F0F0;
/// The a-file.
const FILE_A: Bitboard = 0x0101_0101;
/// The h-file.
const FILE_H: Bitboard = 0x8080_8080;
/// Rank 1: Black's promotion rank.
pub(crate) const RANK_1: Bitboard = 0x0000_000F;
/// Rank 8: White's promotion rank.
pub(crate) const RANK_8: Bitboard = 0xF000_0000;

/// File (0 = a) of a square.
pub const fn file_of(sq: u8) -> u8 {
    2 * (sq % 4) + (sq / 4) % 2
}

/// Rank (0 = rank 1) of a square.
pub const fn rank_of(sq: u8) -> u8 {
    sq / 4
}

/// The square at a file and rank (0-based), or `None` off the board or on a light square.
pub const fn square_at(file: i32, rank: i32) -> Option<u8> {
    if file < 0 || file > 7 || rank < 0 || rank > 7 || (file + rank) % 2 != 0 {
        None
    } else {
        Some((rank * 4 + file / 2) as u8)
    }
}

/// File step of each direction.
const DFILE: [i32; 4] = [1, -1, 1, -1];
/// Rank step of each direction.
const DRANK: [i32; 4] = [1, 1, -1, -1];

/// `NEIGHBOUR[d][s]`: the square next to `s` in direction `d`, or [`NONE`].
pub(crate) const NEIGHBOUR: [[u8; SQUARES]; 4] = build_neighbours();

/// `RAY[d][s]`: every square from `s` (exclusive) to the edge in direction `d`.
pub(crate) const RAY: [[Bitboard; SQUARES]; 4] = build_rays();

const fn build_neighbours() -> [[u8; SQUARES]; 4] {
    let mut t = [[NONE; SQUARES]; 4];
    let mut d = 0;
    while d < 4 {
        let mut s = 0;
        while s < SQUARES {
            let f = file_of(s as u8) as i32 + DFILE[d];
            let r = rank_of(s as u8) as i32 + DRANK[d];
            if let Some(n) = square_at(f, r) {
                t[d][s] = n;
            }
            s += 1;
        }
        d += 1;
    }
    t
}

const fn build_rays() -> [[Bitboard; SQUARES]; 4] {
    let mut t = [[0; SQUARES]; 4];
    let mut d = 0;
    while d < 4 {
        let mut s = 0;
        while s < SQUARES {
            let mut f = file_of(s as u8) as i32 + DFILE[d];
            let mut r = rank_of(s as u8) as i32 + DRANK[d];
            while let Some(n) = square_at(f, r) {
                t[d][s] |= 1 << n;
                f += DFILE[d];
                r += DRANK[d];
            }
            s += 1;
        }
        d += 1;
    }
    t
}

/// Every square moved one step in direction `d` (squares leaving the board vanish).
#[inline(always)]
pub(crate) const fn shift(bb: Bitboard, d: usize) -> Bitboard {
    match d {
        NE => ((bb & EVEN_ROWS) << 4) | ((bb & ODD_ROWS & !FILE_H) << 5),
        NW => ((bb & EVEN_ROWS & !FILE_A) << 3) | ((bb & ODD_ROWS) << 4),
        SE => ((bb & EVEN_ROWS) >> 4) | ((bb & ODD_ROWS & !FILE_H) >> 3),
        _ => ((bb & EVEN_ROWS & !FILE_A) >> 5) | ((bb & ODD_ROWS) >> 4),
    }
}

/// Every square moved two steps in direction `d` (squares leaving the board
/// vanish). Two steps keep the row parity, so this is one mask and one shift:
/// NE adds 9, NW adds 7, SE subtracts 7, SW subtracts 9, and the mask drops
/// the last square of every row (going east) or the first (going west).
#[inline(always)]
pub(crate) const fn shift2(bb: Bitboard, d: usize) -> Bitboard {
    const ROW_LAST: Bitboard = 0x8888_8888;
    const ROW_FIRST: Bitboard = 0x1111_1111;
    match d {
        NE => (bb & !ROW_LAST) << 9,
        NW => (bb & !ROW_FIRST) << 7,
        SE => (bb & !ROW_LAST) >> 7,
        _ => (bb & !ROW_FIRST) >> 9,
    }
}

/// The nearest square of `set` seen from a square looking in direction `d`
/// (`set` must lie on that ray and be non-empty). NE and NW raise the index.
#[inline(always)]
pub(crate) const fn nearest(set: Bitboard, d: usize) -> u8 {
    if d <= NW {
        set.trailing_zeros() as u8
    } else {
        (31 - set.leading_zeros()) as u8
    }
}

/// The empty squares reached from `sq` in direction `d` before the first occupied one.
#[inline(always)]
pub(crate) const fn open_run(sq: u8, d: usize, occ: Bitboard) -> Bitboard {
    let ray = RAY[d][sq as usize];
    let blockers = ray & occ;
    if blockers == 0 {
        ray
    } else {
        let b = nearest(blockers, d);
        ray ^ (RAY[d][b as usize] | (1 << b))
    }
}

/// The promotion rank of a side (rank 8 for White, rank 1 for Black).
#[inline(always)]
pub(crate) const fn far_rank(black: bool) -> Bitboard {
    if black {
        RANK_1
    } else {
        RANK_8
    }
}

/// The name of a square, such as `c3`.
pub fn square_name(sq: u8) -> String {
    let f = (b'a' + file_of(sq)) as char;
    let r = (b'1' + rank_of(sq)) as char;
    format!("{f}{r}")
}

/// Why a square name was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SquareNameError {
    /// Not a file letter `a..h` followed by a rank digit `1..8`.
    Unknown,
    /// A light square, which is never used.
    Light,
}

/// Reads a square name such as `c3` (lower-case file letter, rank digit).
pub fn parse_square(text: &str) -> Result<u8, SquareNameError> {
    let mut chars = text.chars();
    let (Some(f), Some(r), None) = (chars.next(), chars.next(), chars.next()) else {
        return Err(SquareNameError::Unknown);
    };
    if !('a'..='h').contains(&f) || !('1'..='8').contains(&r) {
        return Err(SquareNameError::Unknown);
    }
    square_at(f as i32 - 'a' as i32, r as i32 - '1' as i32).ok_or(SquareNameError::Light)
}

/// Iterates the squares of a bitboard, lowest first.
#[inline(always)]
pub(crate) fn squares(mut bb: Bitboard) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if bb == 0 {
            None
        } else {
            let s = bb.trailing_zeros() as u8;
            bb &= bb - 1;
            Some(s)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_agree_with_neighbour_table() {
        for (d, next) in NEIGHBOUR.iter().enumerate() {
            for s in 0..32u8 {
                let expect = match next[s as usize] {
                    NONE => 0,
                    n => 1u32 << n,
                };
                assert_eq!(
                    shift(1 << s, d),
                    expect,
                    "dir {d} square {}",
                    square_name(s)
                );
            }
        }
    }

    #[test]
    fn double_shifts_are_two_shifts() {
        for d in 0..4 {
            for s in 0..32u8 {
                assert_eq!(
                    shift2(1 << s, d),
                    shift(shift(1 << s, d), d),
                    "dir {d} square {s}"
                );
            }
            assert_eq!(shift2(!0, d), shift(shift(!0, d), d), "dir {d}");
        }
    }

    #[test]
    fn names_round_trip() {
        for s in 0..32u8 {
            assert_eq!(parse_square(&square_name(s)), Ok(s));
        }
        assert_eq!(square_name(0), "a1");
        assert_eq!(square_name(31), "h8");
        assert_eq!(parse_square("b1"), Err(SquareNameError::Light));
        assert_eq!(parse_square("i1"), Err(SquareNameError::Unknown));
        assert_eq!(parse_square("é1"), Err(SquareNameError::Unknown));
    }

    #[test]
    fn mirror_is_index_reversal() {
        for s in 0..32u8 {
            let m = square_at(7 - file_of(s) as i32, 7 - rank_of(s) as i32);
            assert_eq!(m, Some(31 - s));
        }
    }
}
