//! Bashnya's region set: twenty-one 2x4 blocks of the board (two ranks, four
//! files: four dark squares), nine states a square.
//!
//! A square's state says what matters about its column: empty, or its
//! commander's colour and kind, and whether the piece right under the
//! commander belongs to the other side (a capture of the column would free
//! it and the column would change hands): `0` empty, else
//! `1 + 4 black + 2 king + freed`. Nine states make a region of eight
//! squares 43 million configurations, so the regions are four squares
//! (6,561 configurations): the blocks start on every rank from 1 to 7 and
//! on the files a, c and e, overlapping by a rank and by two files.
//!
//! Fast index: in the 32-square layout (see [`crate::bashnya::geometry`])
//! rank `y` is bits `4y..4y+4`, and the block at files `2j..2j+4` takes the
//! bits `j, j+1` of its two ranks: a four-bit slice of each of the four
//! bitboards (occupied, black, kings, freed; all four kept by the position
//! as moves are made) through a 16-entry base-9 table.

use super::{FeatureSums, Patterns, RegionSet};
use crate::bashnya::geometry::{file_of, rank_of, SQUARES as BOARD_SQUARES};
use crate::bashnya::Position;
use crate::eval::bashnya::Compiled;
use crate::eval::Weights;
use std::sync::Arc;

/// Blocks along the files.
const ACROSS: usize = 3;
/// Blocks along the ranks.
const UP: usize = 7;
/// Number of regions.
const REGIONS: usize = ACROSS * UP;
/// Squares in a region.
const SQUARES: usize = 4;
/// Configurations of a region (`9^4`).
const CONFIGS: usize = 6561;

/// The squares of every region in digit order: the lower rank then the upper, left to right.
const REGION_SQUARES: [[u8; SQUARES]; REGIONS] = region_squares();

const fn region_squares() -> [[u8; SQUARES]; REGIONS] {
    let mut t = [[0u8; SQUARES]; REGIONS];
    let mut r = 0;
    while r < REGIONS {
        let s = (4 * (r / ACROSS) + r % ACROSS) as u8;
        t[r] = [s, s + 1, s + 4, s + 5];
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

// Every region lies in its 2x4 block.
const _: () = {
    let mut r = 0;
    while r < REGIONS {
        let (f0, r0) = (2 * (r % ACROSS) as u8, (r / ACROSS) as u8);
        let mut k = 0;
        while k < SQUARES {
            let sq = REGION_SQUARES[r][k];
            assert!((sq as usize) < BOARD_SQUARES);
            assert!(file_of(sq) >= f0 && file_of(sq) < f0 + 4);
            assert!(rank_of(sq) >= r0 && rank_of(sq) < r0 + 2);
            k += 1;
        }
        r += 1;
    }
};

/// `BASE9[b]`: the base-9 number whose digit `k` is bit `k` of `b`.
const BASE9: [u16; 16] = {
    let mut t = [0u16; 16];
    let mut b = 0;
    while b < 16 {
        let (mut v, mut p, mut k) = (0u16, 1u16, 0);
        while k < 4 {
            if b & (1 << k) != 0 {
                v += p;
            }
            p *= 9;
            k += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
};

/// `LOW[b]`: digits for the byte `occupied | black << 4` of a region.
const LOW: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = BASE9[b & 15] + 4 * BASE9[b >> 4];
        b += 1;
    }
    t
};

/// `HIGH[b]`: digits for the byte `king | freed << 4` of a region.
const HIGH: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = 2 * BASE9[b & 15] + BASE9[b >> 4];
        b += 1;
    }
    t
};

/// The four bits of a region starting at square `s`: `s, s+1` and `s+4, s+5`.
#[inline(always)]
fn nibble(bb: u32, s: u32) -> usize {
    (((bb >> s) & 3) | ((bb >> (s + 2)) & 12)) as usize
}

impl FeatureSums<Position> for Compiled {
    #[inline]
    fn sums(&self, pos: &Position) -> (i64, i64) {
        self.sums_white(pos)
    }
}

impl Patterns for Position {
    const SET: RegionSet = RegionSet {
        id: 0x4241_0001,
        name: "bashnya-2x4-columns",
        regions: REGIONS,
        squares: SQUARES,
        states: 9,
    };

    const DEFAULT_PATTERNS: &'static [u8] =
        include_bytes!("../../../../data/weights/bashnya.patterns");

    const PATTERNS_BY_DEFAULT: bool = true;

    fn regions() -> &'static [&'static [u8]] {
        &REGION_SLICES
    }

    fn square_state(&self, sq: u8) -> u32 {
        let col = self.column(sq);
        let Some(top) = col.top() else { return 0 };
        let under = col.piece(1).is_some_and(|p| p.color() != top.color());
        1 + 4 * u32::from(top.color() == crate::Color::Black)
            + 2 * u32::from(top.is_king())
            + u32::from(under)
    }

    fn swap_state(state: u32) -> u32 {
        if state == 0 {
            0
        } else {
            1 + ((state - 1) ^ 4)
        }
    }

    fn turn_square(sq: u8) -> u8 {
        (BOARD_SQUARES - 1) as u8 - sq
    }

    #[inline(always)]
    fn for_each_pattern<F: FnMut(usize)>(&self, mut f: F) {
        let (occ, black, kings, freed) = (self.occ, self.black, self.kings, self.freed);
        let mut base = 0usize;
        for y in 0..UP as u32 {
            for j in 0..ACROSS as u32 {
                let s = 4 * y + j;
                let low = LOW[nibble(occ, s) | nibble(black, s) << 4] as usize;
                let high = HIGH[nibble(kings, s) | nibble(freed, s) << 4] as usize;
                f(base + low + high);
                base += CONFIGS;
            }
        }
    }

    fn feature_sums(weights: &Weights) -> Option<Arc<dyn FeatureSums<Self>>> {
        Compiled::new(weights).map(|c| Arc::new(c) as Arc<dyn FeatureSums<Self>>)
    }
}
