//! Move ordering: table move, captures by size, killers, history.

use super::MAX_PLY;
use crate::game::Game;

/// Size of the history table (moves are hashed into it).
pub const HISTORY_SIZE: usize = 4096;

/// Per-thread ordering memory: killer moves per ply and a history table.
pub struct Ordering<M> {
    killers: Vec<[Option<M>; 2]>,
    history: Vec<i32>,
}

/// Rank of the table's move, above everything.
pub const TT_MOVE: i32 = 1 << 30;
const KILLER: i32 = 1 << 24;
/// Scores below this are plain quiet moves, ordered by history only (no
/// table move, capture or killer).
pub const PLAIN_LIMIT: i32 = KILLER;
const CAPTURE: i32 = 1 << 26;

impl<M: Copy + PartialEq + 'static> Ordering<M> {
    /// Empty memory.
    pub fn new() -> Self {
        Ordering {
            killers: vec![[None, None]; MAX_PLY + 1],
            history: vec![0; 2 * HISTORY_SIZE],
        }
    }

    /// Forgets killers (history is kept between iterations and aged).
    pub fn new_search(&mut self) {
        for k in &mut self.killers {
            *k = [None, None];
        }
        for h in &mut self.history {
            *h /= 8;
        }
    }

    /// The ordering score of a move other than the table's move (which
    /// ranks [`TT_MOVE`]).
    #[inline]
    pub fn score<G: Game<Move = M>>(&self, pos: &G, mv: &M, ply: usize) -> i32 {
        let n = G::captured_count(mv);
        if n > 0 {
            return CAPTURE + n as i32 * 1024;
        }
        let k = &self.killers[ply];
        if k[0].as_ref() == Some(mv) {
            return KILLER + 1;
        }
        if k[1].as_ref() == Some(mv) {
            return KILLER;
        }
        self.history[self.slot(pos, mv)]
    }

    #[inline]
    fn slot<G: Game<Move = M>>(&self, pos: &G, mv: &M) -> usize {
        pos.side_to_move() as usize * HISTORY_SIZE + G::history_key(mv) % HISTORY_SIZE
    }

    /// A quiet move caused a cut-off: remember it; penalise the quiet moves tried before it.
    pub fn cutoff<'t, G: Game<Move = M>>(
        &mut self,
        pos: &G,
        mv: &M,
        ply: usize,
        depth: i32,
        tried: impl Iterator<Item = &'t M>,
    ) {
        if G::is_capture(mv) {
            return;
        }
        let k = &mut self.killers[ply];
        if k[0].as_ref() != Some(mv) {
            k[1] = k[0];
            k[0] = Some(*mv);
        }
        let bonus = (depth * depth).min(400);
        let good = self.slot(pos, mv);
        Self::update(&mut self.history[good], bonus);
        for m in tried {
            if m != mv {
                let bad = self.slot(pos, m);
                Self::update(&mut self.history[bad], -bonus);
            }
        }
    }

    /// History gravity: values stay within +-16384.
    fn update(h: &mut i32, bonus: i32) {
        *h += bonus - *h * bonus.abs() / 16384;
    }
}

impl<M: Copy + PartialEq + 'static> Default for Ordering<M> {
    fn default() -> Self {
        Self::new()
    }
}
