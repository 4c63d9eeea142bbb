//! Perft: counting the leaves of the legal move tree, for proving move generators.

use crate::bashnya;
use crate::game::Game;
use crate::movelist::MoveList;
use rayon::prelude::*;
use std::any::Any;

/// Leaf count of the move tree `depth` plies deep, counting the last ply in bulk.
///
/// Bashnya positions take the game's own faster walk (same counts; see
/// `games::bashnya::perft`). The type test is resolved at compile time.
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    if let Some(pos) = (pos as &dyn Any).downcast_ref::<bashnya::Position>() {
        return bashnya::perft::perft(pos, depth);
    }
    match depth {
        0 => 1,
        1 => pos.count_moves(),
        _ => {
            let mut list = MoveList::new();
            pos.generate(&mut list);
            list.iter().map(|m| perft(&pos.play(m), depth - 1)).sum()
        }
    }
}

/// Per-root-move counts (`divide`), computed in parallel on the current rayon pool.
pub fn divide<G: Game>(pos: &G, depth: u32) -> Vec<(G::Move, u64)> {
    let mut list = MoveList::new();
    pos.generate(&mut list);
    list.par_iter()
        .map(|m| {
            (
                *m,
                if depth == 0 {
                    1
                } else {
                    perft(&pos.play(m), depth - 1)
                },
            )
        })
        .collect()
}

/// Perft split over the current rayon pool. Splits two plies deep when the
/// root has few moves, so that both cores stay busy. Bashnya positions are
/// split by the game's own walk (see `games::bashnya::perft`).
pub fn perft_parallel<G: Game>(pos: &G, depth: u32) -> u64 {
    if let Some(pos) = (pos as &dyn Any).downcast_ref::<bashnya::Position>() {
        return bashnya::perft::perft_parallel(pos, depth);
    }
    if depth <= 2 {
        return perft(pos, depth);
    }
    let mut list = MoveList::new();
    pos.generate(&mut list);
    let children: Vec<G> = list.iter().map(|m| pos.play(m)).collect();
    if children.len() >= 2 * rayon::current_num_threads() || depth == 3 {
        return children.par_iter().map(|c| perft(c, depth - 1)).sum();
    }
    let mut grand: Vec<G> = Vec::new();
    for c in &children {
        let mut l2 = MoveList::new();
        c.generate(&mut l2);
        grand.extend(l2.iter().map(|m| c.play(m)));
    }
    grand.par_iter().map(|g| perft(g, depth - 2)).sum()
}
