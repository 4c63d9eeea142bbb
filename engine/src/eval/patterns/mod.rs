//! Pattern evaluation: the board covered by overlapping regions, each
//! region's configuration indexing a learned `(mg, eg)` weight pair, added to
//! the named features and tapered with them (docs/patterns.md).
//!
//! Parameters and symmetry: a game has `regions * configs` pattern
//! parameters `theta`, each read as "this configuration of this region, seen
//! by its owner". White reads the board as it stands, Black reads the board
//! turned round with the colours swapped, so a position scores
//! `sum_r theta[i_r] - sum_r theta[mirror(i_r)]`, where `i_r` is the index of
//! region `r`'s configuration and `mirror(i)` the index of the same squares
//! turned round with the colours swapped. Evaluation is thereby exactly
//! antisymmetric under the colour mirror, whatever the weights; the search
//! reads one precomputed table `theta[i] - theta[mirror(i)]`, one lookup a
//! region.
//!
//! The per-game region sets and their fast index computations are in
//! [`bushka`] and [`bashnya`]; the weights file is in [`file`].

pub mod bashnya;
pub mod bushka;
pub mod file;

pub use file::{PatternFileError, PatternWeights, MAX_PATTERN_WEIGHT, PATTERN_SCALE};

use super::features::{for_side, Features};
use super::weights::taper_units;
use super::{Evaluator, Weights};
use std::sync::Arc;

/// Describes a game's region set (the key a weights file must match).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionSet {
    /// The identifier written in weights files; changes whenever the regions,
    /// their square order or the square states change.
    pub id: u32,
    /// A short name for messages and docs.
    pub name: &'static str,
    /// Number of regions.
    pub regions: usize,
    /// Configurations of every region: `states ^ squares` of its kind
    /// ([`Patterns::region_states`]); regions of different kinds (more
    /// squares with fewer states, or fewer with more) have the same count,
    /// so that region `r`'s parameters start at `r * configs`.
    pub configs: usize,
}

impl RegionSet {
    /// Configurations of one region.
    pub const fn configs(&self) -> usize {
        self.configs
    }

    /// Pattern parameters of the game: `regions * configs`.
    pub const fn len(&self) -> usize {
        self.regions * self.configs
    }

    /// False: a region set always has parameters (for clippy's `len` rule).
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A game evaluated by patterns as well as by features.
pub trait Patterns: Features {
    /// The game's region set.
    const SET: RegionSet;

    /// The embedded default weights file (`data/weights/<game>.patterns`).
    const DEFAULT_PATTERNS: &'static [u8];

    /// Whether the embedded pattern weights are the game's default
    /// evaluation (`--eval auto` without a weights file). A trained set is
    /// adopted only after an equal-time match shows it better
    /// (docs/patterns.md); until then the default is the named features
    /// alone, and the embedded file holds them with zero patterns.
    const PATTERNS_BY_DEFAULT: bool;

    /// The squares of each region, in digit order (digit `k` of a region's
    /// configuration is the state of its square `k`).
    fn regions() -> &'static [&'static [u8]];

    /// The number of states a square has in `region` (the base of its
    /// digits): `region_states(r) ^ regions()[r].len()` is `SET.configs`.
    fn region_states(region: usize) -> u32;

    /// The state of one square as `region` reads it,
    /// `0..region_states(region)` (the plain reference; the search uses
    /// [`Patterns::for_each_pattern`]).
    fn square_state(&self, region: usize, sq: u8) -> u32;

    /// The state seen by the other colour in `region`: the same square with
    /// colours swapped.
    fn swap_state(region: usize, state: u32) -> u32;

    /// The square turned 180 degrees about the centre of the board.
    fn turn_square(sq: u8) -> u8;

    /// Calls `f` with the parameter index (`region * configs + config`) of
    /// every region's configuration, computed from the bitboards.
    fn for_each_pattern<F: FnMut(usize)>(&self, f: F);

    /// The features evaluator of `weights` as a source of `(mg, eg)` sums
    /// (`None` for weights of another game).
    fn feature_sums(weights: &Weights) -> Option<Arc<dyn FeatureSums<Self>>>;
}

/// An evaluator that gives the untapered middle- and end-game sums of
/// White's feature score (the compiled feature evaluators).
pub trait FeatureSums<G>: Send + Sync {
    /// `(mg, eg)` sums of White's feature score.
    fn sums(&self, pos: &G) -> (i64, i64);
}

/// The parameter indices of a position computed square by square (the
/// reference the fast [`Patterns::for_each_pattern`] is tested against).
pub fn plain_indices<G: Patterns>(pos: &G) -> Vec<usize> {
    let set = G::SET;
    G::regions()
        .iter()
        .enumerate()
        .map(|(r, squares)| {
            let base = G::region_states(r) as usize;
            let config = squares.iter().rev().fold(0usize, |acc, &sq| {
                acc * base + pos.square_state(r, sq) as usize
            });
            r * set.configs() + config
        })
        .collect()
}

/// `mirror[i]`: the parameter index of configuration `i` turned round with
/// the colours swapped (the configuration Black sees). An involution.
///
/// # Panics
/// When the region set is not closed under turning the board (a bug in the
/// region tables, caught by the tests).
pub fn mirror_table<G: Patterns>() -> Vec<u32> {
    let set = G::SET;
    let regions = G::regions();
    let configs = set.configs();
    let mut out = vec![0u32; set.len()];
    for (r, squares) in regions.iter().enumerate() {
        // A region of the same kind made of the turned squares, and where
        // each digit goes.
        let turned: Vec<u8> = squares.iter().map(|&s| G::turn_square(s)).collect();
        let base = G::region_states(r) as usize;
        let (m, target) = regions
            .iter()
            .enumerate()
            .find(|&(i, t)| {
                G::region_states(i) as usize == base
                    && t.len() == turned.len()
                    && turned.iter().all(|s| t.contains(s))
            })
            .expect("region set closed under turning the board");
        let place: Vec<usize> = turned
            .iter()
            .map(|s| target.iter().position(|t| t == s).unwrap_or(0))
            .collect();
        for c in 0..configs {
            let mut rest = c;
            let mut mirrored = 0usize;
            for &p in &place {
                let state = (rest % base) as u32;
                rest /= base;
                mirrored += G::swap_state(m, state) as usize * base.pow(p as u32);
            }
            out[r * configs + c] = (m * configs + mirrored) as u32;
        }
    }
    out
}

/// The evaluation of features plus patterns, for the search.
pub struct PatternEval<G: Patterns> {
    features: Arc<dyn FeatureSums<G>>,
    /// `theta[i] - theta[mirror(i)]` for every index `i`, `[mg, eg]`
    /// (inside `i16`: each parameter is at most [`MAX_PATTERN_WEIGHT`]).
    table: Vec<[i16; 2]>,
}

impl<G: Patterns> PatternEval<G> {
    /// Compiles weights; `None` when they are not the game's.
    pub fn new(weights: &PatternWeights) -> Option<PatternEval<G>> {
        if weights.kind() != G::KIND || weights.pattern_mg().len() != G::SET.len() {
            return None;
        }
        let features = G::feature_sums(weights.features())?;
        let mirror = mirror_table::<G>();
        let (mg, eg) = (weights.pattern_mg(), weights.pattern_eg());
        let table = mirror
            .iter()
            .enumerate()
            .map(|(i, &m)| {
                let m = m as usize;
                let d = |v: &[i16]| {
                    let x = i32::from(v[i]) - i32::from(v[m]);
                    x.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
                };
                [d(mg), d(eg)]
            })
            .collect();
        Some(PatternEval { features, table })
    }

    /// White's score: features and patterns, tapered.
    #[inline]
    pub fn score_white(&self, pos: &G) -> i32 {
        let (mg, eg) = self.features.sums(pos);
        let scale = i64::from(PATTERN_SCALE);
        let (mut mg, mut eg) = (mg * scale, eg * scale);
        let (mut pm, mut pe) = (0i32, 0i32);
        let table = &self.table[..];
        pos.for_each_pattern(|i| {
            if let Some(&[m, e]) = table.get(i) {
                pm += i32::from(m);
                pe += i32::from(e);
            }
        });
        mg += i64::from(pm);
        eg += i64::from(pe);
        taper_units(mg, eg, pos.phase(), scale)
    }
}

impl<G: Patterns> Evaluator<G> for PatternEval<G> {
    #[inline]
    fn evaluate(&self, pos: &G) -> i32 {
        for_side(self.score_white(pos), pos.side_to_move())
    }
}

/// Which evaluation a command uses (`--eval`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EvalKind {
    /// The game's default: its embedded pattern weights where they are
    /// adopted ([`Patterns::PATTERNS_BY_DEFAULT`]), else the named features;
    /// a weights file gives what it holds.
    #[default]
    Auto,
    /// The named features only, even from a binary weights file.
    Features,
    /// Features and patterns.
    Patterns,
}

impl std::str::FromStr for EvalKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(EvalKind::Auto),
            "features" => Ok(EvalKind::Features),
            "patterns" => Ok(EvalKind::Patterns),
            _ => Err(format!(
                "unknown evaluation '{}' (auto, features or patterns)",
                crate::files::quoted(s, 40)
            )),
        }
    }
}

impl EvalKind {
    /// The option's value (`features` or `patterns`; `auto` for the default).
    pub fn name(self) -> &'static str {
        match self {
            EvalKind::Auto => "auto",
            EvalKind::Features => "features",
            EvalKind::Patterns => "patterns",
        }
    }
}

/// Every pattern parameter index of a position, White's view first then
/// Black's (the mirrored index), for the tuner: White's count `+1`, Black's
/// `-1`. `mirror` is [`mirror_table`].
pub fn signed_indices<G: Patterns>(pos: &G, mirror: &[u32], out: &mut Vec<(u32, i8)>) {
    pos.for_each_pattern(|i| {
        out.push((i as u32, 1));
        out.push((mirror.get(i).copied().unwrap_or(0), -1));
    });
}
