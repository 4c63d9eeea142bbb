//! Move ordering: table move, captures by size, killers, history.

use super::MAX_PLY;
use crate::game::Game;

/// Size of the history table (moves are hashed into it).
pub const HISTORY_SIZE: usize = 4096;

/// Per-thread ordering memory: killer moves per ply and a history table.
///
/// Moves are remembered by their [`Game::history_key`] (from and to squares
/// in both games): killers are quiet moves, which those squares name
/// exactly, and a key compares in one instruction.
pub struct Ordering {
    killers: Vec<[usize; 2]>,
    history: Vec<i32>,
}

/// A killer slot that holds no move (no move has this key).
const NO_KILLER: usize = usize::MAX;
/// Rank of the table's move, above everything.
pub const TT_MOVE: i32 = 1 << 30;
const KILLER: i32 = 1 << 24;
/// Scores below this are plain quiet moves, ordered by history only (no
/// table move, capture or killer).
pub const PLAIN_LIMIT: i32 = KILLER;
const CAPTURE: i32 = 1 << 26;

impl Ordering {
    /// Empty memory.
    pub fn new() -> Self {
        Ordering {
            killers: vec![[NO_KILLER; 2]; MAX_PLY + 1],
            history: vec![0; 2 * HISTORY_SIZE],
        }
    }

    /// Forgets killers (history is kept between iterations and aged).
    pub fn new_search(&mut self) {
        for k in &mut self.killers {
            *k = [NO_KILLER; 2];
        }
        for h in &mut self.history {
            *h /= 8;
        }
    }

    /// The ordering score of a move other than the table's move (which
    /// ranks [`TT_MOVE`]).
    #[inline]
    pub fn score<G: Game>(&self, pos: &G, mv: &G::Move, ply: usize) -> i32 {
        let n = G::captured_count(mv);
        if n > 0 {
            return CAPTURE + n as i32 * 1024;
        }
        let key = G::history_key(mv);
        let k = &self.killers[ply];
        if k[0] == key {
            return KILLER + 1;
        }
        if k[1] == key {
            return KILLER;
        }
        self.history[Self::slot(pos, key)]
    }

    #[inline]
    fn slot<G: Game>(pos: &G, key: usize) -> usize {
        pos.side_to_move() as usize * HISTORY_SIZE + key % HISTORY_SIZE
    }

    /// A quiet move caused a cut-off: remember it; penalise the moves tried before it.
    pub fn cutoff<'t, G: Game>(
        &mut self,
        pos: &G,
        mv: &G::Move,
        ply: usize,
        depth: i32,
        tried: impl Iterator<Item = &'t G::Move>,
    ) {
        if G::is_capture(mv) {
            return;
        }
        let key = G::history_key(mv);
        let k = &mut self.killers[ply];
        if k[0] != key {
            k[1] = k[0];
            k[0] = key;
        }
        let bonus = (depth * depth).min(400);
        Self::update(&mut self.history[Self::slot(pos, key)], bonus);
        for m in tried {
            if m != mv {
                let bad = Self::slot(pos, G::history_key(m));
                Self::update(&mut self.history[bad], -bonus);
            }
        }
    }

    /// History gravity: values stay within +-16384.
    fn update(h: &mut i32, bonus: i32) {
        *h += bonus - *h * bonus.abs() / 16384;
    }
}

impl Default for Ordering {
    fn default() -> Self {
        Self::new()
    }
}
