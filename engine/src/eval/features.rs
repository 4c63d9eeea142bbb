//! Named evaluation features: the one description of a position that both the
//! search (through [`super::Weights`]) and the tuner read.
//!
//! Convention: every feature value is **White's count minus Black's count**
//! of the same property, each side measured from its own side of the board
//! (piece-square features use the square as seen by the piece's owner). So
//! mirroring a position (colours swapped, board turned) negates every value,
//! and the phase is the same for both colours; the side-to-move score is the
//! White score, negated when Black is to move.

use super::{Evaluator, Weights};
use crate::game::Game;
use std::sync::Arc;

/// The phase of a full board (pure middle game); 0 is a bare end game.
pub const PHASE_MAX: i32 = 256;

/// Most entries a [`FeatureVec`] holds. Every extractor emits at most one
/// entry per occupied square (piece-square features) plus one per scalar
/// feature, and checks that bound at compile time.
pub const FEATURE_CAPACITY: usize = 128;

/// Where a feature extractor writes its `(index, value)` entries.
///
/// The search writes straight into a weighted sum and the tuner into a
/// [`FeatureVec`]; both run the same extraction code.
pub trait FeatureSink {
    /// Adds `value` to feature `index`; an index may be added more than once
    /// (values of repeated indices add up).
    fn add(&mut self, index: u16, value: i16);
}

/// A sparse feature vector of fixed capacity: no heap allocation.
#[derive(Clone, Copy)]
pub struct FeatureVec {
    len: u16,
    entries: [(u16, i16); FEATURE_CAPACITY],
}

impl Default for FeatureVec {
    fn default() -> Self {
        FeatureVec::new()
    }
}

impl std::fmt::Debug for FeatureVec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.entries()).finish()
    }
}

impl FeatureVec {
    /// An empty vector.
    pub const fn new() -> Self {
        FeatureVec {
            len: 0,
            entries: [(0, 0); FEATURE_CAPACITY],
        }
    }

    /// Removes every entry.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Number of entries (repeated indices counted separately).
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when there is no entry.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entries in the order they were added.
    #[inline]
    pub fn entries(&self) -> &[(u16, i16)] {
        &self.entries[..self.len as usize]
    }

    /// The summed value of one feature (0 when absent).
    pub fn value(&self, index: u16) -> i32 {
        self.entries()
            .iter()
            .filter(|e| e.0 == index)
            .map(|e| e.1 as i32)
            .sum()
    }

    /// Dense form: the summed value of every feature `0..n`.
    pub fn to_dense(&self, n: usize) -> Vec<i32> {
        let mut out = vec![0; n];
        for &(i, v) in self.entries() {
            if let Some(slot) = out.get_mut(i as usize) {
                *slot += v as i32;
            }
        }
        out
    }
}

impl FeatureSink for FeatureVec {
    #[inline(always)]
    fn add(&mut self, index: u16, value: i16) {
        // The extractors cannot exceed the capacity (checked at compile
        // time), so the guard only keeps a future mistake from panicking.
        if let Some(slot) = self.entries.get_mut(self.len as usize) {
            *slot = (index, value);
            self.len += 1;
        }
    }
}

/// A game whose positions can be described by named features.
pub trait Features: Game {
    /// Every feature's name, by index; these are the keys of a weights file.
    const NAMES: &'static [&'static str];

    /// The feature that counts the unit of material (a free man), whose
    /// weight the tuner holds fixed unless told otherwise.
    const MATERIAL_UNIT: &'static str;

    /// The material-only weights (a man 100, a king 300), by feature name;
    /// every other weight of the `material` baseline is zero.
    const MATERIAL_WEIGHTS: &'static [(&'static str, i32)];

    /// The compiled-in default weights, a weights file's JSON text
    /// (`data/weights/<game>.json`).
    const DEFAULT_WEIGHTS: &'static str;

    /// Writes the position's non-zero features (White minus Black) to `out`.
    fn features<S: FeatureSink>(&self, out: &mut S);

    /// The game phase, `0` (end game) ..= [`PHASE_MAX`] (full board).
    fn phase(&self) -> i32;

    /// An evaluator that gives exactly the score of `weights` on every
    /// position, built for the search's speed; by default the weights
    /// themselves.
    fn compile(weights: &Weights) -> Arc<dyn Evaluator<Self>> {
        Arc::new(weights.clone())
    }

    /// The features collected into a vector (for the tuner and tests).
    fn feature_vec(&self) -> FeatureVec {
        let mut v = FeatureVec::new();
        self.features(&mut v);
        v
    }

    /// The index of a feature name.
    fn feature_index(name: &str) -> Option<usize> {
        Self::NAMES.iter().position(|n| *n == name)
    }
}

/// Emits `white - black` under `index` when it is not zero.
#[inline(always)]
pub(crate) fn emit_diff<S: FeatureSink>(out: &mut S, index: usize, white: u32, black: u32) {
    let d = white as i32 - black as i32;
    if d != 0 {
        // Counts are bounded by the board size, far inside i16.
        out.add(
            index as u16,
            d.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
        );
    }
}

/// Adds the weighted White-minus-Black difference of per-side counts to the
/// two sums (the compiled evaluators' pattern features).
#[inline(always)]
pub(crate) fn add_weighted_diff<const N: usize>(
    sums: &mut (i64, i64),
    weights: &[(i32, i32); N],
    white: &[u32; N],
    black: &[u32; N],
) {
    for i in 0..N {
        let d = white[i] as i64 - black[i] as i64;
        sums.0 += weights[i].0 as i64 * d;
        sums.1 += weights[i].1 as i64 * d;
    }
}

/// The compiled evaluator when the weights compiled (they are the game's),
/// else the weights themselves.
pub(crate) fn compiled_or_plain<G: Features, C: Evaluator<G> + 'static>(
    weights: &Weights,
    compiled: Option<C>,
) -> Arc<dyn Evaluator<G>> {
    match compiled {
        Some(c) => Arc::new(c),
        None => Arc::new(weights.clone()),
    }
}

/// A White score seen from the side to move.
#[inline(always)]
pub(crate) fn for_side(white: i32, side: crate::game::Color) -> i32 {
    match side {
        crate::game::Color::White => white,
        crate::game::Color::Black => -white,
    }
}

/// One table entry of a compiled evaluator: the `(mg, eg)` weight of a single
/// piece's features `(index, count)`, negated for a Black piece (`white`
/// false). Callers keep the sum inside `i32` (a few weights of at most
/// `MAX_WEIGHT`, each times a small count).
pub(crate) fn fold_piece(w: &Weights, features: &[(usize, i64)], white: bool) -> (i32, i32) {
    let (mg, eg) = (w.mg(), w.eg());
    let (m, e) = features.iter().fold((0i64, 0i64), |(m, e), &(i, n)| {
        (m + mg[i] as i64 * n, e + eg[i] as i64 * n)
    });
    let sign = if white { 1 } else { -1 };
    ((sign * m) as i32, (sign * e) as i32)
}

/// The `(mg, eg)` weights of the first `N` (scalar) features, zero for the
/// ones `folded` into a compiled evaluator's piece tables.
pub(crate) fn unfolded<const N: usize>(w: &Weights, folded: &[usize]) -> [(i32, i32); N] {
    let mut out = [(0, 0); N];
    for (i, r) in out.iter_mut().enumerate() {
        if !folded.contains(&i) {
            *r = (w.mg()[i], w.eg()[i]);
        }
    }
    out
}
