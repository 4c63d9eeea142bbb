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
pub fn default_eval<G: Features>() -> std::sync::Arc<dyn Evaluator<G>>
where
    Material: Evaluator<G>,
{
    G::compile(&Weights::default_for(G::KIND))
}

/// The evaluation named by a `--weights` value: `material`, `default`, or a weights file.
pub fn load_eval<G: Features>(path: &str) -> Result<std::sync::Arc<dyn Evaluator<G>>, String>
where
    Material: Evaluator<G>,
{
    match path {
        "material" => Ok(std::sync::Arc::new(Material::default())),
        "default" => Ok(default_eval::<G>()),
        _ => Weights::load(G::KIND, std::path::Path::new(path))
            .map(|w| G::compile(&w))
            .map_err(|e| e.to_string()),
    }
}
