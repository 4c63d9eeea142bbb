//! Iterative deepening principal-variation search with quiescence over forced
//! captures, aspiration windows, and lazy SMP over a shared table.

pub mod limits;
mod ordering;
mod worker;

pub use limits::{Clock, Limits};

use crate::eval::Evaluator;
use crate::game::Game;
use crate::tt::{HashSize, Table};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use worker::Worker;

/// Score of a win at the root; a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Deepest ply the search reaches.
pub const MAX_PLY: usize = 128;
/// The longest distance in plies a win or loss score holds: a win found by
/// the search is at most [`MAX_PLY`] away, one read from an endgame table
/// up to 253 plies beyond the ply where it is read; 512 covers both.
pub const MAX_WIN_DISTANCE: i32 = 512;
/// Scores beyond this are wins or losses with a distance.
pub const MATE_BOUND: i32 = MATE - MAX_WIN_DISTANCE;
const INF: i32 = 32_000;

/// A score as reported to people and protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// An evaluation in centi-men.
    Cp(i32),
    /// The side to move wins in this many plies.
    Win(u32),
    /// The side to move loses in this many plies.
    Loss(u32),
}

impl Score {
    /// Reads an internal score.
    pub fn from_internal(s: i32) -> Score {
        if s >= MATE_BOUND {
            Score::Win((MATE - s) as u32)
        } else if s <= -MATE_BOUND {
            Score::Loss((MATE + s) as u32)
        } else {
            Score::Cp(s)
        }
    }

    /// A plain number for sorting and statistics (wins far above any evaluation).
    pub fn internal(&self) -> i32 {
        match *self {
            Score::Cp(c) => c,
            Score::Win(n) => MATE - n as i32,
            Score::Loss(n) => -MATE + n as i32,
        }
    }
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(c) => write!(f, "{c}"),
            Score::Win(n) => write!(f, "win {n}"),
            Score::Loss(n) => write!(f, "loss {n}"),
        }
    }
}

/// The exact value of a position for the side to move, from an oracle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exact {
    /// The side to move wins; the opponent has no move after this many plies.
    Win(u32),
    /// The side to move loses after this many plies.
    Loss(u32),
    /// Neither side can force the end of the game.
    Draw,
}

/// An oracle that can be shared with the search threads.
pub type SharedOracle<G> = Arc<dyn Oracle<G>>;

/// Something that knows some positions exactly (endgame tables).
pub trait Oracle<G>: Send + Sync {
    /// The exact value of `pos`, when it is known.
    fn probe(&self, pos: &G) -> Option<Exact>;
}

/// One completed iteration, as reported while searching.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info<M> {
    /// Iteration depth.
    pub depth: u32,
    /// Deepest ply reached, quiescence included.
    pub seldepth: u32,
    /// Score for the side to move.
    pub score: Score,
    /// Nodes searched so far (all threads).
    pub nodes: u64,
    /// Time since the search began.
    pub time: Duration,
    /// Principal variation, best move first.
    pub pv: Vec<M>,
}

impl<M> Info<M> {
    /// Nodes per second so far.
    pub fn nps(&self) -> u64 {
        let ms = self.time.as_micros().max(1) as u64;
        self.nodes.saturating_mul(1_000_000) / ms
    }
}

/// What a search is asked: the position, the game so far, the limits.
#[derive(Clone, Debug)]
pub struct SearchInput<G> {
    /// The position to search.
    pub position: G,
    /// Hashes of the positions since the last irreversible move, oldest
    /// first, without the position itself: a position the search reaches
    /// that occurs here twice already (its third occurrence) is a draw.
    pub history: Vec<u64>,
    /// When to stop.
    pub limits: Limits,
}

impl<G: Game> SearchInput<G> {
    /// A position with no game history.
    pub fn new(position: G, limits: Limits) -> Self {
        SearchInput {
            position,
            history: Vec::new(),
            limits,
        }
    }
}

/// The answer of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult<M> {
    /// The best move (none when the side to move has no legal move).
    pub best: Option<M>,
    /// Its score for the side to move.
    pub score: Score,
    /// The deepest completed iteration.
    pub depth: u32,
    /// Nodes searched (all threads).
    pub nodes: u64,
    /// Principal variation.
    pub pv: Vec<M>,
    /// Time used.
    pub time: Duration,
    /// Threads that searched: the engine's count, less any helper the
    /// system refused to start (a search goes on without it).
    pub threads: usize,
}

/// The deepest completed iteration of any thread.
#[derive(Clone, Debug)]
struct Completed<M> {
    depth: u32,
    score: i32,
    pv: Vec<M>,
    seldepth: u32,
}

/// State shared by the threads of one search.
struct Shared<'a, G: Game> {
    tt: &'a Table,
    oracle: Option<&'a dyn Oracle<G>>,
    /// Ends this search's threads (a limit reached, or the main thread done).
    stop: AtomicBool,
    /// The engine's [`Engine::stop_flag`]: a stop asked from outside.
    requested: &'a AtomicBool,
    nodes: AtomicU64,
    best: Mutex<Option<Completed<G::Move>>>,
    start: Instant,
    limits: Limits,
    hard: Option<Duration>,
    soft: Option<Duration>,
    /// One thread only: node limits are exact and results deterministic.
    single: bool,
}

impl<G: Game> Shared<'_, G> {
    /// True once the search should end: a limit reached or a stop asked.
    fn stopping(&self) -> bool {
        self.stop.load(Relaxed) || self.requested.load(Relaxed)
    }

    /// Records an iteration if it is the deepest so far; returns the deepest.
    /// Once the search is ending (`stop`), nothing more is recorded: the main
    /// thread sets `stop` and then reports the deepest iteration, and one
    /// that a helper finished after that would be the answer without its
    /// `info` line. (The first iteration is always recorded: the search has
    /// a move.)
    fn complete(&self, c: Completed<G::Move>) -> Completed<G::Move> {
        let mut best = self.best_guard();
        let ending = self.stop.load(Relaxed) && best.is_some();
        if !ending && best.as_ref().is_none_or(|b| c.depth > b.depth) {
            *best = Some(c);
        }
        best.clone().expect("set by the first iteration")
    }

    /// The deepest iteration completed so far.
    fn deepest(&self) -> Option<Completed<G::Move>> {
        self.best_guard().clone()
    }

    /// The deepest iteration, locked (a thread that panicked holding it left
    /// a whole value: it is only ever replaced whole).
    fn best_guard(&self) -> std::sync::MutexGuard<'_, Option<Completed<G::Move>>> {
        self.best
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A search engine: its table and settings, kept between moves of a game.
pub struct Engine<G: Game> {
    tt: Table,
    /// The size `tt` was made with.
    hash: HashSize,
    oracle: Option<Arc<dyn Oracle<G>>>,
    stop: Arc<AtomicBool>,
    threads: usize,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> Engine<G> {
    /// An engine with a table of `hash` and `threads` search threads;
    /// aborts when the table's memory cannot be had (for a size a user
    /// chose, [`Engine::try_new`] says so instead).
    pub fn new(hash: HashSize, threads: usize) -> Self {
        Self::try_new(hash, threads).unwrap_or_else(|e| panic!("{e}"))
    }

    /// An engine with a table of `hash` and `threads` search threads, or
    /// why the table's memory could not be had.
    pub fn try_new(hash: HashSize, threads: usize) -> Result<Self, String> {
        Ok(Engine {
            tt: Table::try_new(hash)?,
            hash,
            oracle: None,
            stop: Arc::new(AtomicBool::new(false)),
            threads: threads.max(1),
            _game: std::marker::PhantomData,
        })
    }

    /// Positions the oracle knows are scored by it instead of searched.
    pub fn set_oracle(&mut self, oracle: Option<Arc<dyn Oracle<G>>>) {
        self.oracle = oracle;
    }

    /// Replaces the table by one of `size`. The old table gives back its
    /// memory first, so that the two are never held at once; when the new
    /// one cannot be had, one of the old size comes back (failing that too,
    /// the smallest stays, and the error says so: [`Engine::hash_size`]).
    pub fn set_hash(&mut self, size: HashSize) -> Result<(), String> {
        let old = self.hash;
        self.tt = Table::try_new(HashSize::MIN)?;
        self.hash = HashSize::MIN;
        let e = match Table::try_new(size) {
            Ok(t) => {
                (self.tt, self.hash) = (t, size);
                return Ok(());
            }
            Err(e) => e,
        };
        match Table::try_new(old) {
            Ok(t) => {
                (self.tt, self.hash) = (t, old);
                Err(e)
            }
            Err(_) => Err(format!(
                "{e}; the table is now the smallest ({} MiB)",
                HashSize::MIN.get()
            )),
        }
    }

    /// The size the table now was made with (any size [`HashSize`] takes,
    /// beyond the built-in 1 GiB too).
    pub fn hash_size(&self) -> HashSize {
        self.hash
    }

    /// Sets the number of search threads (at least one).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// Number of search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Forgets everything learned (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    /// A flag that stops the running search when set (from any thread). The
    /// search never clears it: a stop asked before a search begins ends that
    /// search after its first iteration, and the owner clears the flag before
    /// it starts a search that should run.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// Makes `flag` the engine's [`Engine::stop_flag`], for an owner that
    /// keeps a flag of its own for each search.
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        self.stop = flag;
    }

    /// Searches; `on_info` hears of every completed iteration.
    pub fn search<E: Evaluator<G> + ?Sized>(
        &mut self,
        eval: &E,
        input: &SearchInput<G>,
        mut on_info: impl FnMut(&Info<G::Move>),
    ) -> SearchResult<G::Move> {
        let start = Instant::now();
        self.tt.new_search();
        let deadlines = input.limits.deadlines();
        let shared = Shared {
            tt: &self.tt,
            oracle: self.oracle.as_deref(),
            stop: AtomicBool::new(false),
            requested: &self.stop,
            nodes: AtomicU64::new(0),
            best: Mutex::new(None),
            start,
            limits: input.limits,
            hard: deadlines.hard,
            soft: deadlines.soft,
            single: self.threads == 1,
        };
        let max_depth = input
            .limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 8)
            .clamp(1, MAX_PLY as u32 - 8);
        let mut threads = 1;
        std::thread::scope(|scope| {
            for id in 1..self.threads {
                let shared = &shared;
                let builder = std::thread::Builder::new()
                    .name(format!("search-{id}"))
                    .stack_size(32 << 20);
                // A helper that cannot start only makes the search weaker;
                // the result says how many threads ran.
                let started = builder.spawn_scoped(scope, move || {
                    Worker::new(id, shared, eval, input).iterate(max_depth, &mut |_| {});
                });
                threads += usize::from(started.is_ok());
            }
            // The helpers stop when the main search ends, also when it
            // unwinds (a panic in `on_info`): the scope then joins them
            // rather than waiting for a depth they may never finish.
            struct StopHelpers<'a>(&'a AtomicBool);
            impl Drop for StopHelpers<'_> {
                fn drop(&mut self) {
                    self.0.store(true, Relaxed);
                }
            }
            let _stop = StopHelpers(&shared.stop);
            Worker::new(0, &shared, eval, input).iterate(max_depth, &mut on_info);
        });
        let best = shared
            .best
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let nodes = shared.nodes.load(Relaxed);
        let time = start.elapsed();
        match best {
            Some(c) => SearchResult {
                best: c.pv.first().copied(),
                score: Score::from_internal(c.score),
                depth: c.depth,
                nodes,
                pv: c.pv,
                time,
                threads,
            },
            None => SearchResult {
                best: None,
                score: Score::Loss(0),
                depth: 0,
                nodes,
                pv: Vec::new(),
                time,
                threads,
            },
        }
    }
}
