//! Evaluation: a static judgement of a position for the search.
//!
//! [`Material`] counts pieces; [`Weights`] is the tunable evaluation: a
//! tapered weighted sum of the named features of [`features`], whose
//! extractors live in [`bushka`] and [`bashnya`]. The search and the tuner
//! both score through those extractors, so the evaluation exists once.

pub mod bashnya;
pub mod bushka;
pub mod features;
pub mod weights;

pub use features::{FeatureSink, FeatureVec, Features, FEATURE_CAPACITY, PHASE_MAX};
pub use weights::{Weights, WeightsError};

use crate::game::Game;
use crate::search::SharedOracle;
use std::sync::Arc;

/// An evaluator that can be shared with the search threads.
pub type SharedEval<G> = Arc<dyn Evaluator<G>>;

/// What the commands load for a game: its evaluation and its endgame tables.
pub trait EvalSource: Features {
    /// The evaluation used when no weights file is set.
    fn default_eval() -> SharedEval<Self>;
    /// The evaluation of a `--weights` value: `material` (the material-only
    /// baseline), `default`, or a weights file.
    fn load_eval(path: &str) -> Result<SharedEval<Self>, String>;
    /// The endgame tables of a folder (built by `bushka tb build`).
    fn open_tables(dir: &std::path::Path) -> Result<SharedOracle<Self>, String>;
}

impl EvalSource for crate::bushka::Position {
    fn default_eval() -> SharedEval<Self> {
        default_eval::<Self>()
    }
    fn load_eval(path: &str) -> Result<SharedEval<Self>, String> {
        load_eval::<Self>(path)
    }
    fn open_tables(dir: &std::path::Path) -> Result<SharedOracle<Self>, String> {
        crate::bushka::tb::Tablebase::open_oracle(dir).map_err(|e| e.to_string())
    }
}

impl EvalSource for crate::bashnya::Position {
    fn default_eval() -> SharedEval<Self> {
        default_eval::<Self>()
    }
    fn load_eval(path: &str) -> Result<SharedEval<Self>, String> {
        load_eval::<Self>(path)
    }
    fn open_tables(_dir: &std::path::Path) -> Result<SharedOracle<Self>, String> {
        Err("endgame tables exist for Bushka only".into())
    }
}

/// A static evaluation, in centi-men (a man = 100 at default weights), from
/// the side to move's point of view.
pub trait Evaluator<G: Game>: Send + Sync {
    /// The score of `pos` for the side to move.
    fn evaluate(&self, pos: &G) -> i32;
}

/// Counts material only: a man 100, a king `king` (the `material` baseline).
#[derive(Clone, Copy, Debug)]
pub struct Material {
    /// Value of a king in centi-men.
    pub king: i32,
}

impl Default for Material {
    fn default() -> Self {
        Material { king: 300 }
    }
}

impl Evaluator<crate::bushka::Position> for Material {
    fn evaluate(&self, pos: &crate::bushka::Position) -> i32 {
        let us = pos.side();
        let them = us.opponent();
        let score =
            |c| pos.men(c).count_ones() as i32 * 100 + pos.kings(c).count_ones() as i32 * self.king;
        score(us) - score(them)
    }
}

impl Evaluator<crate::bashnya::Position> for Material {
    /// Pieces free under their own commander count; prisoners count for nobody.
    fn evaluate(&self, pos: &crate::bashnya::Position) -> i32 {
        let us = pos.side();
        let mut score = 0;
        let mut occ = pos.occupied();
        while occ != 0 {
            let sq = occ.trailing_zeros() as u8;
            occ &= occ - 1;
            let col = pos.column(sq);
            let Some(top) = col.top() else { continue };
            let owner = top.color();
            let value: i32 = col
                .pieces()
                .filter(|p| p.color() == owner)
                .map(|p| if p.is_king() { self.king } else { 100 })
                .sum();
            score += if owner == us { value } else { -value };
        }
        score
    }
}

/// The evaluation every command uses unless told otherwise: the default weights.
fn default_eval<G: Features>() -> SharedEval<G>
where
    Material: Evaluator<G>,
{
    G::compile(&Weights::default_for(G::KIND))
}

/// The evaluation named by a `--weights` value: `material`, `default`, or a weights file.
fn load_eval<G: Features>(path: &str) -> Result<SharedEval<G>, String>
where
    Material: Evaluator<G>,
{
    match path {
        "material" => Ok(Arc::new(Material::default())),
        "default" => Ok(default_eval::<G>()),
        _ => Weights::load(G::KIND, std::path::Path::new(path))
            .map(|w| G::compile(&w))
            .map_err(|e| e.to_string()),
    }
}
