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
//! window's row is a two-square slice of a row. Each row's key (its five
//! white bits and five black bits) is read once, and a 1,024-entry table per
//! in-row offset gives the slice's two base-3 digits: four lookups a window.

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

/// `PAIR3[j][w | b << 5]`: the two base-3 digits (`0..9`) of the squares
/// `j` and `j + 1` of a row whose white men are `w` and black men `b` (five
/// bits each): a window's row in one lookup.
static PAIR3: [[u8; 1024]; SIDE] = pair3();

const fn pair3() -> [[u8; 1024]; SIDE] {
    let mut t = [[0u8; 1024]; SIDE];
    let mut j = 0;
    while j < SIDE {
        let mut key = 0;
        while key < 1024 {
            let (w, b) = (key & 31, key >> 5);
            let mut value = 0;
            let mut k = 1;
            // Square j + 1 first: it is the higher digit.
            while k <= 2 {
                let bit = 1 << (j + 2 - k);
                let digit = if w & bit != 0 {
                    1
                } else if b & bit != 0 {
                    2
                } else {
                    0
                };
                value = 3 * value + digit;
                k += 1;
            }
            t[j][key] = value as u8;
            key += 1;
        }
        j += 1;
    }
    t
}

/// The row keys `w | b << 5` of the ten rows.
#[inline(always)]
fn row_keys(white: u64, black: u64) -> [usize; 10] {
    let mut keys = [0usize; 10];
    for (key, &s) in keys.iter_mut().zip(&ROW_SHIFT) {
        *key = (((white >> s) & 31) | (((black >> s) & 31) << 5)) as usize;
    }
    keys
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
        configs: CONFIGS,
    };

    const DEFAULT_PATTERNS: &'static [u8] =
        include_bytes!("../../../../data/weights/bushka.patterns");

    const PATTERNS_BY_DEFAULT: bool = true;

    fn regions() -> &'static [&'static [u8]] {
        &REGION_SLICES
    }

    fn region_states(_region: usize) -> u32 {
        3
    }

    fn square_state(&self, _region: usize, sq: u8) -> u32 {
        let bit = 1u64 << sq;
        if self.men(Color::White) & bit != 0 {
            1
        } else if self.men(Color::Black) & bit != 0 {
            2
        } else {
            0
        }
    }

    fn swap_state(_region: usize, state: u32) -> u32 {
        [0, 2, 1][state as usize % 3]
    }

    fn turn_square(sq: u8) -> u8 {
        rotate(sq)
    }

    #[inline(always)]
    fn for_each_pattern<F: FnMut(usize)>(&self, mut f: F) {
        let keys = row_keys(self.men(Color::White), self.men(Color::Black));
        let mut base = 0usize;
        for band in keys.windows(4).step_by(2) {
            for pair in &PAIR3 {
                let digits = |k: usize| pair[band[k] & 1023] as usize;
                f(base + digits(0) + 9 * digits(1) + 81 * digits(2) + 729 * digits(3));
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
