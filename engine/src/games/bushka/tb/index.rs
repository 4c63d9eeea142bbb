//! A perfect index of the piece placements of one material.
//!
//! Men come first, split into blocks by how many white men stand on Black's
//! promotion row (where no black man may stand) and how many black men stand
//! on White's: within a block the rows are independent combinations, so every
//! index names exactly one legal placement and every placement has one index.
//! Kings then take combinations of the squares the men leave free.

use super::material::Material;
use crate::bushka::board::{bit, promotion_row, Bits, BOARD};
use crate::bushka::Position;
use crate::game::Color;

/// Binomial coefficients `C(n, k)` for `n <= 50`, `k <= 8`.
const BINOM: [[u64; 9]; 51] = binomials();

const fn binomials() -> [[u64; 9]; 51] {
    let mut t = [[0u64; 9]; 51];
    let mut n = 0;
    while n <= 50 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= 8 && k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
}

/// `C(n, k)`, zero when `k > n`.
#[inline(always)]
fn binom(n: u32, k: u32) -> u64 {
    if k > n || k > 8 || n > 50 {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

/// Black's promotion row, where white men may stand and black men may not.
const ROW0: u64 = promotion_row(Color::Black);
/// White's promotion row.
const ROW9: u64 = promotion_row(Color::White);
/// The 40 squares where men of both colours may stand.
const MIDDLE: u64 = BOARD & !ROW0 & !ROW9;

/// The rank of `sq` among the squares of `set` (how many lie below it).
#[inline(always)]
fn rank_in(set: u64, sq: u8) -> u32 {
    (set & (bit(sq) - 1)).count_ones()
}

/// The `n`-th lowest square of `set`.
#[inline(always)]
fn select(mut set: u64, n: u32) -> u8 {
    for _ in 0..n {
        set &= set.wrapping_sub(1);
    }
    set.trailing_zeros() as u8
}

/// The combinadic rank of `chosen` (a subset of `set`) among subsets of its size.
#[inline]
fn rank_subset(set: u64, chosen: u64) -> u64 {
    Bits(chosen)
        .enumerate()
        .map(|(i, sq)| binom(rank_in(set, sq), i as u32 + 1))
        .sum()
}

/// The `k`-subset of `set` with combinadic rank `r`.
#[inline]
fn unrank_subset(set: u64, k: u32, mut r: u64) -> u64 {
    let mut out = 0u64;
    let mut p = set.count_ones();
    for i in (1..=k).rev() {
        // The largest p with C(p, i) <= r.
        p -= 1;
        while binom(p, i) > r {
            p -= 1;
        }
        r -= binom(p, i);
        out |= bit(select(set, p));
    }
    out
}

/// Index arithmetic of one material (the same for both sides to move).
#[derive(Clone, Debug)]
pub struct Indexer {
    mat: Material,
    /// First men index of block `(a, b)`.
    block: [[u64; 9]; 9],
    /// Placements of the kings for any placement of the men.
    kings: u64,
    /// Placements of Black's kings once White's are placed.
    black_kings: u64,
    /// Positions per side to move.
    size: u64,
}

impl Indexer {
    /// The index of a material (an out-of-range material indexes nothing).
    pub fn new(mat: Material) -> Indexer {
        let (wm, bm) = (mat.men[0] as u32, mat.men[1] as u32);
        let (wk, bk) = (mat.kings[0] as u32, mat.kings[1] as u32);
        let mut block = [[0u64; 9]; 9];
        let mut men = 0u64;
        for (a, row) in block.iter_mut().enumerate().take(wm.min(5) as usize + 1) {
            for (b, first) in row.iter_mut().enumerate().take(bm.min(5) as usize + 1) {
                *first = men;
                men = men.saturating_add(Self::block_len(wm, bm, a as u32, b as u32));
            }
        }
        let free = 50u32.saturating_sub(wm + bm);
        let black_kings = binom(free - wk.min(free), bk);
        let kings = binom(free, wk).saturating_mul(black_kings);
        Indexer {
            mat,
            block,
            kings,
            black_kings,
            size: men.saturating_mul(kings),
        }
    }

    /// Placements of the men in block `(a, b)`.
    fn block_len(wm: u32, bm: u32, a: u32, b: u32) -> u64 {
        if a > wm || b > bm {
            return 0;
        }
        let mid_w = wm - a;
        binom(5, a)
            .saturating_mul(binom(5, b))
            .saturating_mul(binom(40, mid_w))
            .saturating_mul(binom(40u32.saturating_sub(mid_w), bm - b))
    }

    /// The material indexed.
    pub fn material(&self) -> Material {
        self.mat
    }

    /// Positions with one side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The index of a position of this material (side to move ignored), or
    /// `None` when its pieces do not match the material.
    pub fn index(&self, pos: &Position) -> Option<u64> {
        if Material::of(pos) != self.mat {
            return None;
        }
        let wm = pos.men(Color::White);
        let bm = pos.men(Color::Black);
        if wm & ROW9 != 0 || bm & ROW0 != 0 {
            return None;
        }
        Some(self.index_unchecked(wm, bm, pos.kings(Color::White), pos.kings(Color::Black)))
    }

    /// The index of a placement known to be of this material.
    #[inline]
    pub fn index_unchecked(&self, wm: u64, bm: u64, wk: u64, bk: u64) -> u64 {
        let (nwm, nbm) = (self.mat.men[0] as u32, self.mat.men[1] as u32);
        let w0 = wm & ROW0;
        let b9 = bm & ROW9;
        let (a, b) = (w0.count_ones(), b9.count_ones());
        let (wmid, bmid) = (wm & MIDDLE, bm & MIDDLE);
        let (mid_w, mid_b) = (nwm - a, nbm - b);
        let mut men = rank_subset(ROW0, w0);
        men = men * binom(5, b) + rank_subset(ROW9, b9);
        men = men * binom(40, mid_w) + rank_subset(MIDDLE, wmid);
        men = men * binom(40 - mid_w, mid_b) + rank_subset(MIDDLE & !wmid, bmid);
        let men = self.block[a as usize][b as usize] + men;
        let free = BOARD & !wm & !bm;
        let kings = rank_subset(free, wk) * self.black_kings + rank_subset(free & !wk, bk);
        men * self.kings + kings
    }

    /// The position with index `idx` and `side` to move, or `None` past the end.
    pub fn position(&self, idx: u64, side: Color) -> Option<Position> {
        if idx >= self.size {
            return None;
        }
        let (nwm, nbm) = (self.mat.men[0] as u32, self.mat.men[1] as u32);
        let (nwk, nbk) = (self.mat.kings[0] as u32, self.mat.kings[1] as u32);
        let mut men = idx / self.kings;
        let kings = idx % self.kings;
        let (mut a, mut b) = (0u32, 0u32);
        'find: for aa in 0..=nwm.min(5) {
            for bb in 0..=nbm.min(5) {
                let first = self.block[aa as usize][bb as usize];
                if men >= first && men - first < Self::block_len(nwm, nbm, aa, bb) {
                    (a, b) = (aa, bb);
                    men -= first;
                    break 'find;
                }
            }
        }
        let (mid_w, mid_b) = (nwm - a, nbm - b);
        let nb = binom(40 - mid_w, mid_b);
        let r_bmid = men % nb;
        men /= nb;
        let nw = binom(40, mid_w);
        let r_wmid = men % nw;
        men /= nw;
        let n9 = binom(5, b);
        let r9 = men % n9;
        let r0 = men / n9;
        let w0 = unrank_subset(ROW0, a, r0);
        let b9 = unrank_subset(ROW9, b, r9);
        let wmid = unrank_subset(MIDDLE, mid_w, r_wmid);
        let bmid = unrank_subset(MIDDLE & !wmid, mid_b, r_bmid);
        let (wm, bm) = (w0 | wmid, b9 | bmid);
        let free = BOARD & !wm & !bm;
        let wk = unrank_subset(free, nwk, kings / self.black_kings);
        let bk = unrank_subset(free & !wk, nbk, kings % self.black_kings);
        Some(Position::from_parts(wm | wk, bm | bk, wk | bk, side))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials_are_right() {
        assert_eq!(binom(50, 3), 19600);
        assert_eq!(binom(40, 0), 1);
        assert_eq!(binom(5, 6), 0);
    }

    #[test]
    fn subsets_round_trip() {
        for r in 0..binom(40, 3) {
            let s = unrank_subset(MIDDLE, 3, r);
            assert_eq!(s.count_ones(), 3);
            assert_eq!(s & !MIDDLE, 0);
            assert_eq!(rank_subset(MIDDLE, s), r);
        }
    }
}
