//! Bushka's region set: sixteen 4x4 windows of the board, eight dark squares
//! each, with three states a square (empty, white man, black man).
//!
//! The windows start on every even column and row (`x0, y0` in 0, 2, 4, 6),
//! so each overlaps its neighbours by two rows or columns and the sixteen
//! cover the board. Kings are not part of the patterns (a king square reads
//! as empty): they are few, the features already value them by square and
//! mobility, and five states would make a window 390,625 configurations
//! instead of 6,561 (docs/patterns.md).
//!
//! Fast index: in the 55-bit layout (see [`crate::bushka::board`]) row `y`
//! is five consecutive bits from `ROW_SHIFT[y]`, and the window at `x0`
//! takes the bits `x0/2` and `x0/2 + 1` of each of its four rows. So a
//! window's men are four two-bit slices of a bitboard, packed into a byte,
//! and one 256-entry table turns the byte of White's men and the byte of
//! Black's men into the base-3 index.

use super::{FeatureSums, Patterns, RegionSet};
use crate::bushka::board::{rotate, to_xy, Bits, BOARD};
use crate::bushka::Position;
use crate::eval::bushka::Compiled;
use crate::eval::Weights;
use crate::game::Color;
use std::sync::Arc;

/// Windows along each axis.
const SIDE: usize = 4;
/// Number of regions.
const REGIONS: usize = SIDE * SIDE;
/// Squares in a region.
const SQUARES: usize = 8;
/// Configurations of a region (`3^8`).
const CONFIGS: usize = 6561;

/// The lowest bit of each row `y`.
const ROW_SHIFT: [u32; 10] = [0, 6, 11, 17, 22, 28, 33, 39, 44, 50];

/// The squares of every region in digit order: row by row upwards, left to right.
const REGION_SQUARES: [[u8; SQUARES]; REGIONS] = region_squares();

const fn region_squares() -> [[u8; SQUARES]; REGIONS] {
    let mut t = [[0u8; SQUARES]; REGIONS];
    let mut r = 0;
    while r < REGIONS {
        let (j, y0) = ((r % SIDE) as u32, 2 * (r / SIDE));
        let mut k = 0;
        while k < 4 {
            let base = ROW_SHIFT[y0 + k] + j;
            t[r][2 * k] = base as u8;
            t[r][2 * k + 1] = (base + 1) as u8;
            k += 1;
        }
        r += 1;
    }
    t
}

/// The same, as slices.
static REGION_SLICES: [&[u8]; REGIONS] = {
    let mut t: [&[u8]; REGIONS] = [&[]; REGIONS];
    let mut r = 0;
    while r < REGIONS {
        t[r] = &REGION_SQUARES[r];
        r += 1;
    }
    t
};

// Every region square is a board square inside its 4x4 window.
const _: () = {
    let mut r = 0;
    while r < REGIONS {
        let (x0, y0) = (2 * (r % SIDE) as i32, 2 * (r / SIDE) as i32);
        let mut k = 0;
        while k < SQUARES {
            let sq = REGION_SQUARES[r][k];
            assert!(BOARD & (1 << sq) != 0);
            let (x, y) = to_xy(sq);
            assert!(x >= x0 && x < x0 + 4 && y >= y0 && y < y0 + 4);
            k += 1;
        }
        r += 1;
    }
};

/// `BASE3[b]`: the base-3 number whose digit `k` is bit `k` of `b`.
const BASE3: [u16; 256] = base3();

const fn base3() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        let (mut v, mut p, mut k) = (0u32, 1u32, 0);
        while k < 8 {
            if b & (1 << k) != 0 {
                v += p;
            }
            p *= 3;
            k += 1;
        }
        t[b] = v as u16;
        b += 1;
    }
    t
}

/// The byte of a window's squares in `bb`: two bits of each of four rows
/// from `row` upwards, at in-row offset `j`.
#[inline(always)]
fn window_byte(bb: u64, row: usize, j: u32) -> usize {
    let s = |k: usize| ROW_SHIFT[row + k] + j;
    (((bb >> s(0)) & 3)
        | (((bb >> s(1)) & 3) << 2)
        | (((bb >> s(2)) & 3) << 4)
        | (((bb >> s(3)) & 3) << 6)) as usize
}

impl FeatureSums<Position> for Compiled {
    #[inline]
    fn sums(&self, pos: &Position) -> (i64, i64) {
        self.sums_white(pos)
    }
}

impl Patterns for Position {
    const SET: RegionSet = RegionSet {
        id: 0x4255_0001,
        name: "bushka-4x4-men",
        regions: REGIONS,
        squares: SQUARES,
        states: 3,
    };

    const DEFAULT_PATTERNS: &'static [u8] =
        include_bytes!("../../../../data/weights/bushka.patterns");

    fn regions() -> &'static [&'static [u8]] {
        &REGION_SLICES
    }

    fn square_state(&self, sq: u8) -> u32 {
        let bit = 1u64 << sq;
        if self.men(Color::White) & bit != 0 {
            1
        } else if self.men(Color::Black) & bit != 0 {
            2
        } else {
            0
        }
    }

    fn swap_state(state: u32) -> u32 {
        [0, 2, 1][state as usize % 3]
    }

    fn turn_square(sq: u8) -> u8 {
        rotate(sq)
    }

    #[inline(always)]
    fn for_each_pattern<F: FnMut(usize)>(&self, mut f: F) {
        let (white, black) = (self.men(Color::White), self.men(Color::Black));
        let mut base = 0usize;
        for y in 0..SIDE {
            let row = 2 * y;
            for j in 0..SIDE as u32 {
                let w = BASE3[window_byte(white, row, j)] as usize;
                let b = BASE3[window_byte(black, row, j)] as usize;
                f(base + w + 2 * b);
                base += CONFIGS;
            }
        }
    }

    fn feature_sums(weights: &Weights) -> Option<Arc<dyn FeatureSums<Self>>> {
        Compiled::new(weights).map(|c| Arc::new(c) as Arc<dyn FeatureSums<Self>>)
    }
}

/// Squares covered by at least one region (all of them; checked by the tests).
pub fn covered() -> u64 {
    REGION_SQUARES
        .iter()
        .flatten()
        .fold(0u64, |acc, &sq| acc | 1 << sq)
}

/// Squares covered by `n` regions, for the docs' coverage count.
pub fn coverage_counts() -> Vec<(u8, usize)> {
    Bits(BOARD)
        .map(|sq| {
            let n = REGION_SQUARES.iter().filter(|r| r.contains(&sq)).count();
            (sq, n)
        })
        .collect()
}
