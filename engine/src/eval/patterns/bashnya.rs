//! Bashnya's region set: two kinds of regions, each 6,561 configurations.
//!
//! **Blocks**, to read columns: twenty-one 2x4 blocks of the board (two
//! ranks, four files: four dark squares), nine states a square. A square's
//! state says what matters about its column: empty, or its commander's
//! colour and kind, and whether the piece right under the commander belongs
//! to the other side (a capture of the column would free it and the column
//! would change hands): `0` empty, else `1 + 4 black + 2 king + freed`.
//! Nine states make a region of eight squares 43 million configurations, so
//! the blocks are four squares (6,561 configurations): they start on every
//! rank from 1 to 7 and on the files a, c and e, overlapping by a rank and
//! by two files.
//!
//! **Windows**, to read formations: fifteen 4x4 windows (four ranks, four
//! files: eight dark squares), three states a square (empty, or the colour
//! of its commander), as Bushka's windows and Scan's regions read men. They
//! start on the ranks 1 to 5 and on the files a, c and e. A window is two
//! blocks one above the other, so its index comes from the same slices.
//!
//! Fast index: in the 32-square layout (see [`crate::bashnya::geometry`])
//! rank `y` is bits `4y..4y+4`, and the block at files `2j..2j+4` takes the
//! bits `j, j+1` of its two ranks: a four-bit slice of each of the four
//! bitboards (occupied, black, kings, freed; all four kept by the position
//! as moves are made) through a 16-entry base-9 table. A window at rank
//! `y` adds the base-3 digits of the occupied and black slices of the
//! blocks at `y` and `y + 2` (a 256-entry table).

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
/// Blocks (the regions `0..BLOCKS`).
const BLOCKS: usize = ACROSS * UP;
/// Squares in a block.
const BLOCK_SQUARES: usize = 4;
/// Window rows (ranks 1 to 5).
const WINDOW_UP: usize = 5;
/// Windows (the regions `BLOCKS..REGIONS`).
const WINDOWS: usize = ACROSS * WINDOW_UP;
/// Squares in a window.
const WINDOW_SQUARES: usize = 8;
/// Number of regions.
const REGIONS: usize = BLOCKS + WINDOWS;
/// Configurations of a region (`9^4` for a block, `3^8` for a window).
const CONFIGS: usize = 6561;

/// The squares of every block in digit order: the lower rank then the upper, left to right.
const BLOCK_TABLE: [[u8; BLOCK_SQUARES]; BLOCKS] = {
    let mut t = [[0u8; BLOCK_SQUARES]; BLOCKS];
    let mut r = 0;
    while r < BLOCKS {
        let s = (4 * (r / ACROSS) + r % ACROSS) as u8;
        t[r] = [s, s + 1, s + 4, s + 5];
        r += 1;
    }
    t
};

/// The squares of every window in digit order: the block at its rank, then
/// the block two ranks up (the order [`Patterns::for_each_pattern`] reads).
const WINDOW_TABLE: [[u8; WINDOW_SQUARES]; WINDOWS] = {
    let mut t = [[0u8; WINDOW_SQUARES]; WINDOWS];
    let mut w = 0;
    while w < WINDOWS {
        let (low, high) = (BLOCK_TABLE[w], BLOCK_TABLE[w + 2 * ACROSS]);
        let mut k = 0;
        while k < BLOCK_SQUARES {
            t[w][k] = low[k];
            t[w][BLOCK_SQUARES + k] = high[k];
            k += 1;
        }
        w += 1;
    }
    t
};

/// Every region's squares, as slices: the blocks, then the windows.
static REGION_SLICES: [&[u8]; REGIONS] = {
    let mut t: [&[u8]; REGIONS] = [&[]; REGIONS];
    let mut r = 0;
    while r < REGIONS {
        t[r] = if r < BLOCKS {
            &BLOCK_TABLE[r]
        } else {
            &WINDOW_TABLE[r - BLOCKS]
        };
        r += 1;
    }
    t
};

// Every block lies in its 2x4 rectangle and every window in its 4x4 one.
const _: () = {
    let mut r = 0;
    while r < REGIONS {
        let (i, ranks) = if r < BLOCKS { (r, 2) } else { (r - BLOCKS, 4) };
        let (f0, r0) = (2 * (i % ACROSS) as u8, (i / ACROSS) as u8);
        let squares = REGION_SLICES[r];
        assert!(squares.len() == 2 * ranks as usize);
        let mut k = 0;
        while k < squares.len() {
            let sq = squares[k];
            assert!((sq as usize) < BOARD_SQUARES);
            assert!(file_of(sq) >= f0 && file_of(sq) < f0 + 4);
            assert!(rank_of(sq) >= r0 && rank_of(sq) < r0 + ranks);
            k += 1;
        }
        r += 1;
    }
};

/// The base-`base` number whose digit `k` is bit `k` of the nibble `b`.
const fn spread(b: usize, base: u16) -> u16 {
    let (mut v, mut p, mut k) = (0u16, 1u16, 0);
    while k < 4 {
        if b & (1 << k) != 0 {
            v += p;
        }
        p *= base;
        k += 1;
    }
    v
}

/// `BASE9[b]`: the base-9 number whose digit `k` is bit `k` of `b`.
const BASE9: [u16; 16] = {
    let mut t = [0u16; 16];
    let mut b = 0;
    while b < 16 {
        t[b] = spread(b, 9);
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

/// `TOPS[b]`: base-3 digits (empty, white, black commander) for the byte
/// `occupied | black << 4` of a block: a window's lower or upper half.
const TOPS: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        // An occupied square's digit is 1, plus 1 when its commander is black.
        t[b] = spread(b & 15, 3) + spread(b & (b >> 4) & 15, 3);
        b += 1;
    }
    t
};

/// The four bits of a block starting at square `s`: `s, s+1` and `s+4, s+5`.
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
        id: 0x4241_0002,
        name: "bashnya-2x4-columns-4x4-tops",
        regions: REGIONS,
        configs: CONFIGS,
    };

    const DEFAULT_PATTERNS: &'static [u8] =
        include_bytes!("../../../../data/weights/bashnya.patterns");

    const PATTERNS_BY_DEFAULT: bool = true;

    fn regions() -> &'static [&'static [u8]] {
        &REGION_SLICES
    }

    fn region_states(region: usize) -> u32 {
        if region < BLOCKS {
            9
        } else {
            3
        }
    }

    fn square_state(&self, region: usize, sq: u8) -> u32 {
        let col = self.column(sq);
        let Some(top) = col.top() else { return 0 };
        let black = top.color() == crate::Color::Black;
        if region >= BLOCKS {
            return 1 + u32::from(black);
        }
        let under = col.piece(1).is_some_and(|p| p.color() != top.color());
        1 + 4 * u32::from(black) + 2 * u32::from(top.is_king()) + u32::from(under)
    }

    fn swap_state(region: usize, state: u32) -> u32 {
        if state == 0 {
            0
        } else if region >= BLOCKS {
            3 - state
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
        // The base-3 tops of every block, for the windows.
        let mut tops = [0u16; BLOCKS];
        let mut base = 0usize;
        for (r, top) in tops.iter_mut().enumerate() {
            let s = (4 * (r / ACROSS) + r % ACROSS) as u32;
            let men = nibble(occ, s) | nibble(black, s) << 4;
            *top = TOPS[men];
            let high = HIGH[nibble(kings, s) | nibble(freed, s) << 4] as usize;
            f(base + LOW[men] as usize + high);
            base += CONFIGS;
        }
        for w in 0..WINDOWS {
            f(base + tops[w] as usize + 81 * tops[w + 2 * ACROSS] as usize);
            base += CONFIGS;
        }
    }

    fn feature_sums(weights: &Weights) -> Option<Arc<dyn FeatureSums<Self>>> {
        Compiled::new(weights).map(|c| Arc::new(c) as Arc<dyn FeatureSums<Self>>)
    }
}
