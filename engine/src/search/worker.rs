//! One search thread: iterative deepening and the recursive search.

use super::ordering::{self, Ordering};
use super::{Completed, Exact, Info, Score, SearchInput, Shared, INF, MATE, MATE_BOUND, MAX_PLY};
use crate::eval::Evaluator;
use crate::game::Game;
use crate::movelist::MoveList;
use crate::tt::{Bound, Hit};
use std::sync::atomic::Ordering::Relaxed;

/// Nodes between checks of the clock and the shared stop flag.
const CHECK_EVERY: u64 = 1024;
/// The ordering key of a move already searched: below every real key.
const TAKEN: i64 = i64::MIN;
/// First aspiration half-window, in centi-men.
const ASPIRATION: i32 = 40;

/// A search thread's own state.
pub(super) struct Worker<'a, G: Game, E: ?Sized> {
    id: usize,
    shared: &'a Shared<'a, G>,
    eval: &'a E,
    root: G,
    /// Hashes of the game so far and the current search path.
    path: Vec<u64>,
    /// Plies since the last irreversible move, for each entry of `path`.
    reversible: Vec<usize>,
    /// The root's index in `path` (the game's positions come before it).
    root_at: usize,
    ordering: Ordering,
    pv: Vec<Vec<G::Move>>,
    nodes: u64,
    flushed: u64,
    seldepth: usize,
    completed: u32,
    stopped: bool,
    /// Direct-mapped cache of static evaluations: quiet leaves transpose often.
    eval_cache: Vec<u64>,
}

/// Entries of the per-thread evaluation cache (a power of two).
const EVAL_CACHE: usize = 1 << 12;

/// Plies of forced captures searched beyond the horizon (quiescence) before
/// a position with a capture still pending is scored statically. A Bushka
/// capture removes pieces, so its capture lines end long before this; a
/// Bashnya capture only moves a piece under its captor (docs/rules.md 2.3),
/// and among tall columns and flying kings both sides can go on capturing,
/// branching at every ply, up to the ply limit: without this bound a
/// depth-4 search of such an endgame can take minutes.
const QUIESCENCE_PLIES: i32 = 24;

/// The least depth at which a node reads and writes the transposition table.
///
/// Quiescence nodes (depth 0) never do: their entries would crowd out deeper
/// ones and save almost no nodes. A lone Bushka thread leaves depth-1 nodes
/// out too ([`Game::SINGLE_THREAD_TABLE_DEPTH`]): its tree to the bench depth
/// is smaller and each node cheaper without them. Helper threads reach the
/// depth sooner with depth-1 entries shared, and Bashnya's tree is 11% larger
/// without them, so those keep them (figures in `docs/experiments.md`).
#[inline(always)]
fn table_depth<G: Game>(single: bool) -> i32 {
    if single {
        G::SINGLE_THREAD_TABLE_DEPTH
    } else {
        1
    }
}

/// Win and loss scores are stored relative to the node, not the root.
fn to_tt(score: i32, ply: usize) -> i16 {
    let s = if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    };
    s.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

fn from_tt(score: i16, ply: usize) -> i32 {
    let s = score as i32;
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// A cut-off by the table at a null-window node below the root: an entry
/// searched at least as deep whose bound settles the window.
#[inline(always)]
fn table_cutoff(hit: Option<Hit>, depth: i32, alpha: i32, beta: i32, ply: usize) -> Option<i32> {
    let h = hit?;
    let s = from_tt(h.score, ply);
    let cut = h.depth as i32 >= depth
        && match h.bound {
            Bound::Exact => true,
            Bound::Lower => s >= beta,
            Bound::Upper => s <= alpha,
        };
    cut.then_some(s)
}

/// The move's index in its list, from its ordering key.
#[inline(always)]
fn index_of(key: i64) -> usize {
    0xFFFF - (key & 0xFFFF) as usize
}

/// The best move not yet searched: a maximum over every key (a branch-free
/// loop the compiler vectorises); a taken move's key is set below every
/// other. The keys do not change while the moves are searched, so the next
/// move is known before this one's search.
#[inline(always)]
fn take_best(keys: &mut [i64]) -> i64 {
    let top = keys.iter().copied().fold(TAKEN, i64::max);
    keys[index_of(top)] = TAKEN;
    top
}

/// Plies a late move (the `n`th searched, with ordering key `top`) is
/// searched shallower first: late quiet moves one, very late ones in deep
/// nodes two; captures and moves the ordering rates (the table's, killers)
/// none.
#[inline(always)]
fn reduction<G: Game>(depth: i32, n: usize, mv: &G::Move, top: i64) -> i32 {
    let reduce =
        depth >= 3 && n >= 3 && !G::is_capture(mv) && (top >> 16) < ordering::PLAIN_LIMIT as i64;
    if !reduce {
        0
    } else if n >= 8 && depth >= 6 {
        2
    } else {
        1
    }
}

impl<'a, G: Game, E: Evaluator<G> + ?Sized> Worker<'a, G, E> {
    pub(super) fn new(
        id: usize,
        shared: &'a Shared<'a, G>,
        eval: &'a E,
        input: &SearchInput<G>,
    ) -> Self {
        let mut path: Vec<u64> = input.history.clone();
        let reversible: Vec<usize> = (0..path.len()).collect();
        path.reserve(MAX_PLY + 8);
        let mut w = Worker {
            id,
            shared,
            eval,
            root: input.position,
            root_at: path.len(),
            path,
            reversible,
            ordering: Ordering::new(),
            pv: (0..=MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
            nodes: 0,
            flushed: 0,
            seldepth: 0,
            completed: 0,
            stopped: false,
            eval_cache: vec![0; EVAL_CACHE],
        };
        let root_rev = w.path.len();
        w.reversible.push(root_rev);
        w.path.push(<G as Game>::hash(&input.position));
        w
    }

    /// Iterative deepening up to `max_depth`; reports completed iterations.
    pub(super) fn iterate(&mut self, max_depth: u32, on_info: &mut dyn FnMut(&Info<G::Move>)) {
        let mut score = 0;
        let mut list = MoveList::new();
        self.root.generate(&mut list);
        if list.is_empty() {
            return;
        }
        let mut reported = 0;
        for depth in 1..=max_depth {
            // Half the helpers search one ply deeper, so threads spread over depths.
            let d = if self.id % 2 == 1 { depth + 1 } else { depth };
            self.ordering.new_search();
            self.seldepth = 0;
            score = self.aspiration(d as i32, score);
            if self.stopped {
                break;
            }
            self.completed = d;
            let done = self.shared.complete(Completed {
                depth: d,
                score,
                pv: self.pv[0].clone(),
                seldepth: self.seldepth as u32,
            });
            if self.id != 0 {
                // A helper that completes the depth asked for ends the
                // search: its iteration is the answer, as deep as required.
                let limit = self.shared.limits.depth;
                if limit.is_some_and(|l| done.depth >= l) {
                    self.shared.stop.store(true, Relaxed);
                    break;
                }
                continue;
            }
            // One line per depth: a helper may have got there first.
            if done.depth > reported {
                self.report(&done, on_info);
                reported = done.depth;
            }
            if self.enough(done.depth, done.score, list.len()) {
                break;
            }
        }
        self.flush_nodes();
        if self.id == 0 {
            self.shared.stop.store(true, Relaxed);
            // A helper may have completed a deeper iteration than the main
            // thread's last: it is the result, so it is reported too.
            if let Some(done) = self.shared.deepest().filter(|b| b.depth > reported) {
                self.report(&done, on_info);
            }
        }
    }

    /// One `info` report of a completed iteration (the main thread's duty).
    fn report(&mut self, done: &Completed<G::Move>, on_info: &mut dyn FnMut(&Info<G::Move>)) {
        self.flush_nodes();
        on_info(&Info {
            depth: done.depth,
            seldepth: done.seldepth,
            score: Score::from_internal(done.score),
            nodes: self.shared.nodes.load(Relaxed),
            time: self.shared.start.elapsed(),
            pv: done.pv.clone(),
        });
    }

    /// True when the main thread should not start another iteration.
    fn enough(&self, depth: u32, score: i32, root_moves: usize) -> bool {
        let sh = self.shared;
        enough(
            &sh.limits,
            Done {
                depth,
                score,
                root_moves,
            },
            || sh.soft.is_some_and(|s| sh.start.elapsed() >= s) || sh.stopping(),
        )
    }

    /// The root search with a window around the previous score, widened on failure.
    fn aspiration(&mut self, depth: i32, prev: i32) -> i32 {
        let mut window = ASPIRATION;
        let (mut alpha, mut beta) = if depth >= 4 && prev.abs() < MATE_BOUND {
            (prev - window, prev + window)
        } else {
            (-INF, INF)
        };
        loop {
            let root = self.root;
            let score = self.search(&root, alpha, beta, depth, 0);
            if self.stopped {
                return score;
            }
            if score <= alpha {
                alpha = (score - window).max(-INF);
            } else if score >= beta {
                beta = (score + window).min(INF);
            } else {
                return score;
            }
            window *= 2;
            if window > 1000 {
                (alpha, beta) = (-INF, INF);
            }
        }
    }

    fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.nodes - self.flushed, Relaxed);
        self.flushed = self.nodes;
    }

    /// Checks the limits; the main thread always completes depth 1 so that a
    /// move is always known.
    #[inline]
    fn check_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        let sh = self.shared;
        if let Some(limit) = sh.limits.nodes {
            let total = if self.id == 0 && sh.single {
                self.nodes
            } else {
                sh.nodes.load(Relaxed) + (self.nodes - self.flushed)
            };
            if total >= limit && self.completed > 0 {
                self.stopped = true;
                sh.stop.store(true, Relaxed);
                return true;
            }
        }
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            self.flush_nodes();
            if self.completed == 0 && self.id == 0 {
                return false;
            }
            if sh.stopping() || sh.hard.is_some_and(|h| sh.start.elapsed() >= h) {
                self.stopped = true;
                sh.stop.store(true, Relaxed);
            }
        }
        self.stopped
    }

    /// The static evaluation, from the cache when this position was scored before.
    #[inline]
    fn evaluate(&mut self, pos: &G, key: u64) -> i32 {
        // An entry is the key's upper 48 bits over the score's 16: the low
        // bits chose the slot, the upper ones check it.
        let slot = &mut self.eval_cache[key as usize & (EVAL_CACHE - 1)];
        if (*slot ^ key) >> 16 == 0 {
            return *slot as u16 as i16 as i32;
        }
        let v = self.eval.evaluate(pos);
        if let Ok(small) = i16::try_from(v) {
            *slot = (key & !0xFFFF) | small as u16 as u64;
        }
        v
    }

    /// True when the current position is scored a draw as a repetition:
    /// it repeats a position of the search path after the root (the side
    /// that chose to come back may come back again, so it is a draw as good
    /// as any), or it occurs for the third time counting the game before
    /// the root (a draw by the rules, RULES 1.6 and 2.4). Its second
    /// occurrence counting the game is no draw: a win that passes through a
    /// position the game has seen once is still a win.
    #[inline]
    fn repeated(&self) -> bool {
        let n = self.path.len() - 1;
        let key = self.path[n];
        let rev = self.reversible[n];
        let mut i = n;
        let mut in_game = 0;
        while i >= 2 && n - (i - 2) <= rev {
            i -= 2;
            if self.path[i] == key {
                if i > self.root_at {
                    return true;
                }
                in_game += 1;
                if in_game == 2 {
                    return true;
                }
            }
        }
        false
    }

    /// Negamax with principal variation search; `depth <= 0` searches only
    /// forced captures (quiescence), scoring quiet positions statically.
    fn search(&mut self, pos: &G, mut alpha: i32, beta: i32, depth: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        let key = <G as Game>::hash(pos);
        debug_assert!(
            !self.nodes.is_multiple_of(CHECK_EVERY) || key == pos.hash_from_scratch(),
            "incremental hash differs from the hash of the pieces in {}",
            pos.to_text()
        );
        let table_depth = table_depth::<G>(self.shared.single);
        let tabled = depth >= table_depth;
        if tabled {
            self.shared.tt.prefetch(key);
        }
        if self.check_stop() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply > 0 {
            if let Some(score) = self.known_score(pos, &mut alpha, beta, ply) {
                return score;
            }
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            if let Some(score) = self.leaf_score(pos, key, depth, ply) {
                return score;
            }
        }
        let pv_node = beta - alpha > 1;
        // Nodes below the table's depth (see [`table_depth`]) neither read
        // nor write it. A cut-off by the table spares generating the moves.
        let hit = if tabled {
            self.shared.tt.probe(key)
        } else {
            None
        };
        if ply > 0 && !pv_node {
            if let Some(score) = table_cutoff(hit, depth, alpha, beta, ply) {
                return score;
            }
        }
        let mut list = MoveList::new();
        pos.generate(&mut list);
        if list.is_empty() {
            return -MATE + ply as i32;
        }
        if ply >= MAX_PLY - 1 {
            return self.eval.evaluate(pos);
        }
        // Below the horizon the depth counts the capture plies searched
        // (0, -1, -2, ...) for the quiescence limit.
        let list: &[G::Move] = &list;
        // The table's move is an index into this list: checked against it
        // (the generator lists each move once, so the index names it).
        let tt_index = hit
            .and_then(|h| h.move_index)
            .map(usize::from)
            .filter(|&i| i < list.len());
        // A lone legal move costs no depth: forced lines are seen to their end.
        let child_depth = if list.len() == 1 && depth > 0 {
            depth
        } else {
            depth - 1
        };
        // Where the children use the table, each is made one move ahead of
        // its search and its table entry fetched meanwhile (the entry is far
        // in memory; the search of the move before hides the wait). The
        // table's move, searched first, is made before the others are ranked.
        let fetch = child_depth >= table_depth;
        let tt = self.shared.tt;
        let make_and_fetch = |i: usize| {
            let c = pos.play(&list[i]);
            tt.prefetch(<G as Game>::hash(&c));
            c
        };
        let made_first = tt_index.filter(|_| fetch).map(|i| (i, make_and_fetch(i)));
        // Filled in place: a returned list would be copied (a kilobyte a node).
        let mut key_store: MoveList<i64> = MoveList::new();
        self.ordering_keys(pos, list, tt_index, ply, &mut key_store);
        let keys: &mut [i64] = &mut key_store;

        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_index = 0;
        let mut ahead: Option<(i64, G)> = made_first.map(|(i, c)| {
            let top = keys[i];
            keys[i] = TAKEN;
            (top, c)
        });
        for n in 0..keys.len() {
            let (top, child) = ahead.take().unwrap_or_else(|| {
                let top = take_best(keys);
                (top, pos.play(&list[index_of(top)]))
            });
            if fetch && n + 1 < keys.len() {
                let next = take_best(keys);
                ahead = Some((next, make_and_fetch(index_of(next))));
            }
            let idx = index_of(top);
            let mv = list[idx];
            let score = self.on_path(pos, &mv, &child, |w| {
                if n == 0 {
                    -w.search(&child, -beta, -alpha, child_depth, ply + 1)
                } else {
                    let r = reduction::<G>(depth, n, &mv, top);
                    w.search_late(&child, alpha, beta, child_depth, r, ply)
                }
            });
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_index = idx;
                if score > alpha {
                    alpha = score;
                    if pv_node {
                        self.extend_pv(ply, mv);
                    }
                    if score >= beta {
                        // Every move searched before this one (in any order:
                        // each updates its own history entry); the move made
                        // ahead is taken but was not searched.
                        let searched = if n == 0 { 0 } else { list.len() };
                        let made = ahead.as_ref().map(|a| index_of(a.0));
                        let tried = (0..searched)
                            .filter(|&i| i != idx && keys[i] == TAKEN && Some(i) != made)
                            .map(|i| &list[i]);
                        self.ordering.cutoff(pos, &mv, ply, depth, tried);
                        break;
                    }
                }
            }
        }
        if tabled {
            debug_assert!(best_index < list.len() && list.len() <= u16::MAX as usize);
            self.store(key, best, (alpha0, beta), best_index, depth, ply);
        }
        best
    }

    /// `search` with `child` (made by `mv` from `pos`) on the path, for
    /// the repetitions below it.
    #[inline(always)]
    fn on_path(
        &mut self,
        pos: &G,
        mv: &G::Move,
        child: &G,
        search: impl FnOnce(&mut Self) -> i32,
    ) -> i32 {
        let rev = if pos.is_irreversible(mv, child) {
            0
        } else {
            self.reversible[self.path.len() - 1] + 1
        };
        self.path.push(<G as Game>::hash(child));
        self.reversible.push(rev);
        let score = search(self);
        self.path.pop();
        self.reversible.pop();
        score
    }

    /// The score of a node below the root known without a search (a
    /// repetition, an endgame table's verdict), or a window narrowed by the
    /// distance to a win (no score can beat a win found already nearer the
    /// root) that leaves nothing to search.
    #[inline(always)]
    fn known_score(&mut self, pos: &G, alpha: &mut i32, beta: i32, ply: usize) -> Option<i32> {
        if self.repeated() {
            return Some(0);
        }
        if let Some(exact) = self.shared.oracle.and_then(|o| o.probe(pos)) {
            return Some(match exact {
                Exact::Win(d) => MATE - ply as i32 - d as i32,
                Exact::Loss(d) => -MATE + ply as i32 + d as i32,
                Exact::Draw => 0,
            });
        }
        let (a, b) = (
            (*alpha).max(-MATE + ply as i32),
            beta.min(MATE - ply as i32 - 1),
        );
        if a >= b {
            return Some(a);
        }
        *alpha = a;
        None
    }

    /// At the horizon (or the ply limit): a quiet leaf is scored without
    /// generating its moves; so is a position at the end of the capture
    /// lines quiescence may follow. `None` when its captures are searched.
    #[inline(always)]
    fn leaf_score(&mut self, pos: &G, key: u64, depth: i32, ply: usize) -> Option<i32> {
        match pos.quiet_moves_exist() {
            Some(false) => Some(-MATE + ply as i32),
            Some(true) => Some(self.evaluate(pos, key)),
            None if depth <= -QUIESCENCE_PLIES => Some(self.evaluate(pos, key)),
            None => None,
        }
    }

    /// Ordering keys, one per move in list order: the move's score above
    /// its index counted down, so that the largest key is the best move
    /// and, among equal scores, the one listed first (the table's move
    /// above all).
    #[inline(always)]
    fn ordering_keys(
        &self,
        pos: &G,
        list: &[G::Move],
        tt_index: Option<usize>,
        ply: usize,
        keys: &mut MoveList<i64>,
    ) {
        for (i, m) in list.iter().enumerate() {
            let score = if tt_index == Some(i) {
                ordering::TT_MOVE
            } else {
                self.ordering.score(pos, m, ply)
            };
            keys.push(((score as i64) << 16) | (0xFFFF - i) as i64);
        }
    }

    /// A move after the first: a null window, a ply shallower first when it
    /// is reduced (searched again at full depth only when it beats alpha),
    /// and the full window again when it lands inside it.
    #[inline(always)]
    fn search_late(
        &mut self,
        child: &G,
        alpha: i32,
        beta: i32,
        child_depth: i32,
        r: i32,
        ply: usize,
    ) -> i32 {
        let mut s = -self.search(child, -alpha - 1, -alpha, child_depth - r, ply + 1);
        if r > 0 && s > alpha {
            s = -self.search(child, -alpha - 1, -alpha, child_depth, ply + 1);
        }
        if s > alpha && s < beta {
            -self.search(child, -beta, -alpha, child_depth, ply + 1)
        } else {
            s
        }
    }

    /// The variation of `ply`: `mv`, then the child's. Only
    /// principal-variation nodes build one: a null-window node's line is
    /// never reported.
    #[inline(always)]
    fn extend_pv(&mut self, ply: usize, mv: G::Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(mv);
        head[ply].extend_from_slice(&tail[0]);
    }

    /// Stores a node's result: its bound against the window it was searched
    /// with, and its best move as an index into its legal list (a later
    /// probe takes it only when it is inside that list).
    #[inline(always)]
    fn store(
        &self,
        key: u64,
        best: i32,
        (alpha0, beta): (i32, i32),
        best_index: usize,
        depth: i32,
        ply: usize,
    ) {
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared.tt.store(
            key,
            Hit {
                move_index: Some(best_index as u16),
                score: to_tt(best, ply),
                depth: depth.clamp(0, 255) as u8,
                bound,
            },
        );
    }
}

/// What the last completed iteration found, for [`enough`].
#[derive(Clone, Copy)]
struct Done {
    depth: u32,
    score: i32,
    root_moves: usize,
}

/// Whether to start no further iteration after `done`, under `limits`;
/// `out_of_time` tells whether the soft time limit has passed or a stop was
/// asked (asked last, as it reads the clock).
fn enough(limits: &super::Limits, done: Done, out_of_time: impl FnOnce() -> bool) -> bool {
    // One legal move under time limits alone: deeper search would only
    // spend the clock. (With a depth or node limit too, the search goes on
    // to it, as every limit given holds, unless time ends it first.)
    let timed = limits.movetime.is_some() || limits.clock.is_some();
    if timed && done.root_moves == 1 && limits.depth.is_none() && limits.nodes.is_none() {
        return true;
    }
    if done.score.abs() >= MATE_BOUND
        && done.depth as i32 > 2 * (MATE - done.score.abs()) + 2
        && limits.depth.is_none()
    {
        // A forced result well inside the horizon: deeper search cannot
        // change it. (With a depth limit the search goes on to it, unless
        // time or a stop, checked below, ends it first.)
        return true;
    }
    if limits.depth.is_some_and(|d| done.depth >= d) {
        return true;
    }
    out_of_time()
}

#[cfg(test)]
mod tests {
    use super::{enough, Done, MATE};
    use crate::search::{Clock, Limits};
    use std::time::Duration;

    /// A forced result ends the deepening only without a depth limit; with
    /// one, the depth, the time and a stop still decide, so a clock's soft
    /// limit is kept.
    #[test]
    fn a_forced_result_under_a_depth_limit_still_heeds_the_time() {
        let forced = Done {
            depth: 9,
            score: MATE - 2,
            root_moves: 5,
        };
        let clock = Some(Clock::new(Duration::from_secs(60), Duration::from_secs(1)));
        let both = Limits {
            depth: Some(100),
            clock,
            ..Limits::default()
        };
        assert!(enough(&both, forced, || true), "the soft limit has passed");
        assert!(
            !enough(&both, forced, || false),
            "time is left, depth 100 not reached"
        );
        let clock_only = Limits {
            clock,
            ..Limits::default()
        };
        assert!(enough(&clock_only, forced, || false));
        assert!(enough(&Limits::depth(9), forced, || false));
        assert!(!enough(&Limits::depth(10), forced, || false));
        // Not yet well inside the horizon: search on.
        let near = Done { depth: 5, ..forced };
        assert!(!enough(&clock_only, near, || false));
        // One legal move under a time limit: no need to search it deeper.
        let single = Done {
            root_moves: 1,
            score: 0,
            ..forced
        };
        assert!(enough(&clock_only, single, || false));
        assert!(!enough(&Limits::depth(20), single, || false));
        // ...but with a depth or node limit as well, the search goes on to
        // it while time is left.
        let depth_and_clock = Limits {
            depth: Some(20),
            clock,
            ..Limits::default()
        };
        assert!(!enough(&depth_and_clock, single, || false));
        assert!(enough(&depth_and_clock, single, || true), "time is up");
        assert!(enough(
            &depth_and_clock,
            Done {
                depth: 20,
                ..single
            },
            || false
        ));
        let nodes_and_movetime = Limits {
            nodes: Some(1_000_000),
            movetime: Some(Duration::from_secs(5)),
            ..Limits::default()
        };
        assert!(!enough(&nodes_and_movetime, single, || false));
    }
}
