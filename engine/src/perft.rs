//! Perft: counting the leaves of the legal move tree, for proving move generators.

use crate::game::Game;
use crate::movelist::MoveList;
use rayon::prelude::*;

/// Leaf count of the move tree `depth` plies deep, counting the last ply in
/// bulk: the game's [`Game::perft`] (Bashnya has a faster walk of its own,
/// `games::bashnya::perft`, with the same counts).
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    pos.perft(depth)
}

/// The generic walk behind [`Game::perft`].
pub fn walk<G: Game>(pos: &G, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(),
        _ => {
            let mut list = MoveList::new();
            pos.generate(&mut list);
            list.iter().map(|m| walk(&pos.play(m), depth - 1)).sum()
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

/// Perft split over the current rayon pool: the game's
/// [`Game::perft_parallel`].
pub fn perft_parallel<G: Game>(pos: &G, depth: u32) -> u64 {
    pos.perft_parallel(depth)
}

/// The generic split behind [`Game::perft_parallel`]: two plies deep when the
/// root has few moves, so that both cores stay busy.
pub fn walk_parallel<G: Game>(pos: &G, depth: u32) -> u64 {
    if depth <= 2 {
        return pos.perft(depth);
    }
    let mut list = MoveList::new();
    pos.generate(&mut list);
    let children: Vec<G> = list.iter().map(|m| pos.play(m)).collect();
    if children.len() >= 2 * rayon::current_num_threads() || depth == 3 {
        return children.par_iter().map(|c| c.perft(depth - 1)).sum();
    }
    let mut grand: Vec<G> = Vec::new();
    for c in &children {
        let mut l2 = MoveList::new();
        c.generate(&mut l2);
        grand.extend(l2.iter().map(|m| c.play(m)));
    }
    grand.par_iter().map(|g| g.perft(depth - 2)).sum()
}
