//! Resolving a capture-pending position to the quiet position its captures
//! lead to, so that the tuner can learn from it.
//!
//! Captures are compulsory in both games, so a position whose side to move
//! must capture has no static value: the search never scores one (its
//! quiescence plays the captures out). The tuner does the same: it follows
//! the capture line that best play under an evaluation chooses (a full
//! minimax over the captures, no standing pat) to its first quiet position,
//! and fits the weights on that position with the game's result, as Texel
//! tuning does with a quiescence search.

use engine::eval::Evaluator;
use engine::{Game, MoveList};

/// Nodes one resolution may visit before it gives up (the position is then
/// skipped): long chains of alternating captures are rare, but have no bound.
pub const NODE_BUDGET: u32 = 20_000;

/// Captures one line may have before the resolution gives up: in Bashnya a
/// capture moves a piece under the capturer instead of off the board, so
/// captures can go on and on.
pub const MAX_LINE: usize = 40;

/// Above any evaluation: a side left without a move has lost.
const LOST: i32 = -1_000_000;

/// The position at the end of the best capture line from `pos`, by `eval`:
/// one whose side to move need not capture (it may have no move at all: the
/// line ended the game); `pos` itself when it need not capture. `None` when
/// the search passes [`NODE_BUDGET`] nodes or a line passes [`MAX_LINE`]
/// captures.
pub fn quiet_end<G: Game>(pos: &G, eval: &dyn Evaluator<G>) -> Option<G> {
    let mut budget = NODE_BUDGET;
    minimax(pos, LOST - 1, -(LOST - 1), eval, &mut budget, 0).map(|(_, leaf)| leaf)
}

/// Negamax over captures (fail-soft alpha-beta): the score for the side to
/// move and the quiet position the best line ends in. A score inside the
/// window is exact and so is its line; outside it, the caller discards both.
fn minimax<G: Game>(
    pos: &G,
    mut alpha: i32,
    beta: i32,
    eval: &dyn Evaluator<G>,
    budget: &mut u32,
    ply: usize,
) -> Option<(i32, G)> {
    *budget = budget.checked_sub(1)?;
    match pos.quiet_moves_exist() {
        Some(true) => return Some((eval.evaluate(pos), *pos)),
        Some(false) => return Some((LOST, *pos)),
        None => {}
    }
    if ply >= MAX_LINE {
        return None;
    }
    let mut list = MoveList::new();
    pos.generate(&mut list);
    if list.is_empty() {
        return Some((LOST, *pos));
    }
    let mut best: Option<(i32, G)> = None;
    for m in &list {
        let child = pos.play(m);
        let (s, leaf) = minimax(&child, -beta, -alpha, eval, budget, ply + 1)?;
        let s = -s;
        if best.as_ref().is_none_or(|b| s > b.0) {
            best = Some((s, leaf));
            if s > alpha {
                alpha = s;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::eval::Material;
    use engine::{bashnya, bushka};

    #[test]
    fn a_quiet_position_is_its_own_end() {
        let pos = <bushka::Position as Game>::start();
        assert!(!pos.must_capture());
        assert_eq!(quiet_end(&pos, &Material::default()), Some(pos));
    }

    #[test]
    fn the_end_is_quiet_and_reached_by_legal_captures() {
        // Positions from seeded random play that have a capture pending, in
        // both games: every resolution ends quiet, with moves left, is one
        // of the positions the capture moves lead to, and is the end of the
        // best line (checked against a minimax without pruning).
        use rand_xoshiro::rand_core::{RngCore, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        let mut found = [0; 2];
        for game in 0..2 {
            for _ in 0..200 {
                let plies = 4 + rng.next_u32() % 60;
                if game == 0 {
                    let start = <bushka::Position as Game>::start();
                    found[0] += check_walk(start, plies, &mut rng) as usize;
                } else {
                    let start = <bashnya::Position as Game>::start();
                    found[1] += check_walk(start, plies, &mut rng) as usize;
                }
            }
        }
        assert!(
            found[0] > 100 && found[1] > 100,
            "capture positions: {found:?}"
        );
    }

    /// Plays `plies` random moves, stopping at the first capture-pending
    /// position; checks its resolution. True when one was checked in full.
    fn check_walk<G: Game>(
        mut pos: G,
        plies: u32,
        rng: &mut impl rand_xoshiro::rand_core::RngCore,
    ) -> bool
    where
        Material: Evaluator<G>,
    {
        for _ in 0..plies {
            let mut list = MoveList::new();
            pos.generate(&mut list);
            if list.is_empty() {
                return false;
            }
            if pos.must_capture() {
                let Some(end) = quiet_end(&pos, &Material::default()) else {
                    return false;
                };
                assert!(!end.must_capture());
                assert!(reachable_by_captures(&pos, &end, 0), "{pos:?} -> {end:?}");
                // The end is the best line's: its value, seen by the side
                // that had to capture, is the minimax value (when a minimax
                // without pruning fits in the same line length).
                let v = leaf_value(&end);
                let v = if end.side_to_move() == pos.side_to_move() {
                    v
                } else {
                    -v
                };
                let Some(m) = plain_minimax(&pos, 0) else {
                    return false;
                };
                assert_eq!(v, m, "{pos:?} -> {end:?}");
                return true;
            }
            pos = pos.play(&list[rng.next_u32() as usize % list.len()]);
        }
        false
    }

    /// True when `end` is reached from `pos` by a sequence of forced captures.
    fn reachable_by_captures<G: Game>(pos: &G, end: &G, ply: usize) -> bool {
        if !pos.must_capture() {
            return pos == end;
        }
        let mut list = MoveList::new();
        pos.generate(&mut list);
        ply < MAX_LINE
            && list
                .iter()
                .any(|m| reachable_by_captures(&pos.play(m), end, ply + 1))
    }

    /// The value of `pos` for its side to move by plain minimax over the
    /// captures (no pruning), the leaves scored by material.
    fn plain_minimax<G: Game>(pos: &G, ply: usize) -> Option<i32>
    where
        Material: Evaluator<G>,
    {
        if !pos.must_capture() {
            return Some(leaf_value(pos));
        }
        if ply >= MAX_LINE {
            return None;
        }
        let mut list = MoveList::new();
        pos.generate(&mut list);
        let mut best = LOST;
        for m in &list {
            best = best.max(-plain_minimax(&pos.play(m), ply + 1)?);
        }
        Some(best)
    }

    /// A position that need not capture, for its side to move: lost without
    /// a move, else its material (counted independently of
    /// `quiet_moves_exist`, which the resolution uses).
    fn leaf_value<G: Game>(pos: &G) -> i32
    where
        Material: Evaluator<G>,
    {
        if pos.count_moves() == 0 {
            LOST
        } else {
            Material::default().evaluate(pos)
        }
    }
}
