//! Bashnya's region set: twenty-one 2x4 blocks of the board (two ranks, four
//! files: four dark squares), then the twenty-five runs of four squares
//! along a diagonal; nine states a square.
//!
//! A square's state says what matters about its column: empty, or its
//! commander's colour and kind, and whether the piece right under the
//! commander belongs to the other side (a capture of the column would free
//! it and the column would change hands): `0` empty, else
//! `1 + 4 black + 2 king + freed`. Nine states make a region of eight
//! squares 43 million configurations, so the regions are four squares
//! (6,561 configurations). The blocks start on every rank from 1 to 7 and
//! on the files a, c and e, overlapping by a rank and by two files; they
//! see the men side by side and one behind the other. The diagonal runs
//! (13 rising to the right, 12 to the left, overlapping by three squares)
//! see what a capture needs: a column, what stands beyond it and whether
//! the square behind is free. The set extends the blocks alone
//! (`bashnya-2x4-columns`), whose files are read with the runs' weights
//! zero.
//!
//! Fast index: in the 32-square layout (see [`crate::bashnya::geometry`])
//! rank `y` is bits `4y..4y+4`, and the block at files `2j..2j+4` takes the
//! bits `j, j+1` of its two ranks: a four-bit slice of each of the four
//! bitboards (occupied, black, kings, freed; all four kept by the position
//! as moves are made) through a 16-entry base-9 table. For the runs each
//! bitboard is first permuted, a byte at a time through tables, into a
//! diagonal-major word (each diagonal's squares consecutive, from rank 1
//! up), where a run is again a four-bit slice.

use super::{FeatureSums, Patterns, RegionSet};
use crate::bashnya::geometry::{file_of, rank_of, square_at, SQUARES as BOARD_SQUARES};
use crate::bashnya::Position;
use crate::eval::bashnya::Compiled;
use crate::eval::Weights;
use std::sync::Arc;

/// Blocks along the files.
const ACROSS: usize = 3;
/// Blocks along the ranks.
const UP: usize = 7;
/// Number of blocks.
const BLOCKS: usize = ACROSS * UP;
/// Runs of four along the diagonals rising to the right (NE).
const RUNS_NE: usize = 13;
/// Runs of four along the diagonals rising to the left (NW).
const RUNS_NW: usize = 12;
/// Number of regions: the blocks, then the NE runs, then the NW runs.
const REGIONS: usize = BLOCKS + RUNS_NE + RUNS_NW;
/// Squares in a region.
const SQUARES: usize = 4;
/// Configurations of a region (`9^4`).
const CONFIGS: usize = 6561;

/// `DIAG_ORDER[d][i]`: the square at bit `i` of direction `d`'s
/// diagonal-major word (`d` 0: diagonals rising to the right, ordered by
/// file minus rank; 1: rising to the left, by file plus rank; each from
/// rank 1 up).
const DIAG_ORDER: [[u8; BOARD_SQUARES]; 2] = {
    let mut t = [[0u8; BOARD_SQUARES]; 2];
    let mut d = 0;
    while d < 2 {
        let mut i = 0;
        let mut key = -7;
        while key <= 14 {
            let mut rank = 0;
            while rank < 8 {
                let file = if d == 0 { key + rank } else { key - rank };
                if let Some(sq) = square_at(file, rank) {
                    t[d][i] = sq;
                    i += 1;
                }
                rank += 1;
            }
            key += 1;
        }
        assert!(i == BOARD_SQUARES);
        d += 1;
    }
    t
};

/// The diagonal key of a square in direction `d` (file minus rank, or file plus rank).
const fn diag_key(d: usize, sq: u8) -> i32 {
    if d == 0 {
        file_of(sq) as i32 - rank_of(sq) as i32
    } else {
        file_of(sq) as i32 + rank_of(sq) as i32
    }
}

/// `RUN_STARTS[d]`: the first bit, in direction `d`'s word, of every run of
/// four squares on one diagonal (the NE list padded with its last entry).
const RUN_STARTS: [[u32; RUNS_NE]; 2] = {
    let mut t = [[0u32; RUNS_NE]; 2];
    let mut d = 0;
    while d < 2 {
        let mut n = 0;
        let mut i = 0;
        while i + 4 <= BOARD_SQUARES {
            if diag_key(d, DIAG_ORDER[d][i]) == diag_key(d, DIAG_ORDER[d][i + 3]) {
                t[d][n] = i as u32;
                n += 1;
            }
            i += 1;
        }
        assert!(n == if d == 0 { RUNS_NE } else { RUNS_NW });
        while n < RUNS_NE {
            t[d][n] = t[d][n - 1];
            n += 1;
        }
        d += 1;
    }
    t
};

/// `DIAG_BYTE[d][k][b]`: the bits of direction `d`'s word for the squares
/// set in byte `k` (squares `8k..8k+8`) of a bitboard being `b`.
static DIAG_BYTE: [[[u32; 256]; 4]; 2] = {
    let mut pos = [[0u8; BOARD_SQUARES]; 2];
    let mut d = 0;
    while d < 2 {
        let mut i = 0;
        while i < BOARD_SQUARES {
            pos[d][DIAG_ORDER[d][i] as usize] = i as u8;
            i += 1;
        }
        d += 1;
    }
    let mut t = [[[0u32; 256]; 4]; 2];
    let mut d = 0;
    while d < 2 {
        let mut k = 0;
        while k < 4 {
            let mut b = 0;
            while b < 256 {
                let mut v = 0u32;
                let mut bit = 0;
                while bit < 8 {
                    if b & (1 << bit) != 0 {
                        v |= 1 << pos[d][8 * k + bit];
                    }
                    bit += 1;
                }
                t[d][k][b] = v;
                b += 1;
            }
            k += 1;
        }
        d += 1;
    }
    t
};

/// A bitboard in direction `d`'s diagonal-major order.
#[inline(always)]
fn diagonal_word(bb: u32, d: usize) -> u32 {
    let t = &DIAG_BYTE[d];
    t[0][(bb & 255) as usize]
        | t[1][((bb >> 8) & 255) as usize]
        | t[2][((bb >> 16) & 255) as usize]
        | t[3][(bb >> 24) as usize]
}

/// The squares of every region in digit order: a block's lower rank then
/// its upper, left to right; a run's from rank 1 up.
const REGION_SQUARES: [[u8; SQUARES]; REGIONS] = region_squares();

const fn region_squares() -> [[u8; SQUARES]; REGIONS] {
    let mut t = [[0u8; SQUARES]; REGIONS];
    let mut r = 0;
    while r < BLOCKS {
        let s = (4 * (r / ACROSS) + r % ACROSS) as u8;
        t[r] = [s, s + 1, s + 4, s + 5];
        r += 1;
    }
    while r < REGIONS {
        let (d, k) = if r < BLOCKS + RUNS_NE {
            (0, r - BLOCKS)
        } else {
            (1, r - BLOCKS - RUNS_NE)
        };
        let s = RUN_STARTS[d][k] as usize;
        let o = &DIAG_ORDER[d];
        t[r] = [o[s], o[s + 1], o[s + 2], o[s + 3]];
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

// Every block lies in its 2x4 block, and every run goes up one diagonal.
const _: () = {
    let mut r = BLOCKS;
    while r < REGIONS {
        let sq = REGION_SQUARES[r];
        let step = file_of(sq[1]) as i32 - file_of(sq[0]) as i32;
        assert!(step == 1 || step == -1);
        let mut k = 1;
        while k < SQUARES {
            assert!(rank_of(sq[k]) == rank_of(sq[k - 1]) + 1);
            assert!(file_of(sq[k]) as i32 - file_of(sq[k - 1]) as i32 == step);
            k += 1;
        }
        r += 1;
    }
    let mut r = 0;
    while r < BLOCKS {
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

/// Calls `f` with the index of every block, then, when `RUNS`, of every run.
#[inline(always)]
fn for_each_index<const RUNS: bool, F: FnMut(usize)>(pos: &Position, mut f: F) {
    let (occ, black, kings, freed) = (pos.occ, pos.black, pos.kings, pos.freed);
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
    if !RUNS {
        return;
    }
    for (d, runs) in [RUNS_NE, RUNS_NW].into_iter().enumerate() {
        let (o, b) = (diagonal_word(occ, d), diagonal_word(black, d));
        let (k, fr) = (diagonal_word(kings, d), diagonal_word(freed, d));
        for &s in &RUN_STARTS[d][..runs] {
            let four = |x: u32| ((x >> s) & 15) as usize;
            let low = LOW[four(o) | four(b) << 4] as usize;
            let high = HIGH[four(k) | four(fr) << 4] as usize;
            f(base + low + high);
            base += CONFIGS;
        }
    }
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
        name: "bashnya-2x4-columns-diagonals",
        regions: REGIONS,
        squares: SQUARES,
        states: 9,
        extends: Some((0x4241_0001, BLOCKS)),
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
    fn for_each_pattern<F: FnMut(usize)>(&self, f: F) {
        for_each_index::<true, F>(self, f);
    }

    #[inline(always)]
    fn for_each_base_pattern<F: FnMut(usize)>(&self, f: F) {
        for_each_index::<false, F>(self, f);
    }

    fn feature_sums(weights: &Weights) -> Option<Arc<dyn FeatureSums<Self>>> {
        Compiled::new(weights).map(|c| Arc::new(c) as Arc<dyn FeatureSums<Self>>)
    }
}
