//! Evaluation: a static judgement of a position for the search.

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
