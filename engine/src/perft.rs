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

/// Per-root-move counts (`divide`), each root move's subtree counted by
/// [`perft_parallel`].
pub fn divide<G: Game>(pos: &G, depth: u32) -> Vec<(G::Move, u64)> {
    divide_with(pos, depth, || {})
}

/// [`divide`], calling `done` after each root move is counted (for progress).
pub fn divide_with<G: Game>(pos: &G, depth: u32, done: impl Fn()) -> Vec<(G::Move, u64)> {
    let mut list = MoveList::new();
    pos.generate(&mut list);
    list.iter()
        .map(|m| {
            let nodes = if depth == 0 {
                1
            } else {
                perft_parallel(&pos.play(m), depth - 1)
            };
            done();
            (*m, nodes)
        })
        .collect()
}

/// Perft split over the current rayon pool: the subtrees of [`split`], each
/// counted by the game's own [`Game::perft`].
pub fn perft_parallel<G: Game>(pos: &G, depth: u32) -> u64 {
    split(pos, depth).count(|| {})
}

/// Subtrees per thread that [`split`] aims for.
pub const TASKS_PER_THREAD: usize = 32;

/// A perft cut into subtrees of equal depth, to be counted in parallel.
#[derive(Clone, Debug)]
pub struct Split<G> {
    /// The positions at the cut.
    pub tasks: Vec<G>,
    /// Plies left below each of them.
    pub depth: u32,
}

/// Cuts the tree of `pos`, `depth` plies deep, where it has at least
/// [`TASKS_PER_THREAD`] subtrees per thread of the current rayon pool, or three
/// plies above the leaves, so that the threads finish together even though
/// subtrees differ a lot in size (at Bashnya's start the largest of the seven
/// is a fifth of the tree). The leaves of the split are the tree's leaves.
pub fn split<G: Game>(pos: &G, depth: u32) -> Split<G> {
    let wanted = TASKS_PER_THREAD * rayon::current_num_threads();
    let mut tasks = vec![*pos];
    let mut left = depth;
    let mut list = MoveList::new();
    while left > 3 && tasks.len() < wanted {
        let mut next = Vec::new();
        for task in &tasks {
            task.generate(&mut list);
            next.extend(list.iter().map(|m| task.play(m)));
        }
        tasks = next;
        left -= 1;
    }
    Split { tasks, depth: left }
}

impl<G: Game> Split<G> {
    /// The leaf count of every subtree, summed, counted on the current rayon
    /// pool; `done` is called after each subtree (for progress).
    pub fn count(&self, done: impl Fn() + Sync) -> u64 {
        self.tasks
            .par_iter()
            .map(|task| {
                let nodes = task.perft(self.depth);
                done();
                nodes
            })
            .sum()
    }
}
