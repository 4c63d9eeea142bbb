//! Players: our search, the baselines, and external programs.

use crate::external::ExternalPlayer;
use crate::spec::{EngineSpec, Kind};
use engine::eval::Material;
use engine::eval::{EvalSource, SharedEval};
use engine::record::GameRecord;
use engine::search::SharedOracle;
use engine::search::{Clock, Engine, Limits, Score, SearchInput};
use engine::tt::HashSize;
use engine::{Game, MoveList};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Arc;
use std::time::Duration;

/// A chosen move and what the player thought of the position.
#[derive(Clone, Copy, Debug)]
pub struct Choice<M> {
    /// The move.
    pub mv: M,
    /// Score for the side to move, when the player searched.
    pub score: Option<Score>,
    /// Depth of the deepest search iteration completed, when the player searched.
    pub depth: Option<u32>,
}

/// Why a player lost a game without the board deciding it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forfeit {
    /// The program died or its pipe broke.
    Crash(String),
    /// No move in time.
    Timeout,
    /// The move sent is not legal (or unreadable).
    IllegalMove(String),
}

/// The most characters of another program's text a forfeit quotes: the
/// reason becomes the record's `Termination` tag, which must stay one
/// readable line well within the PDN readers' line limit.
pub const MAX_QUOTED: usize = 200;

impl std::fmt::Display for Forfeit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let quote = |t: &str| engine::files::quoted(t, MAX_QUOTED);
        match self {
            Forfeit::Crash(why) => write!(f, "engine failure: {}", quote(why)),
            Forfeit::Timeout => write!(f, "time forfeit"),
            Forfeit::IllegalMove(m) => write!(f, "illegal move {}", quote(m)),
        }
    }
}

/// Anything that can play a game.
pub trait Player<G: Game>: Send {
    /// Prepares for a new game.
    fn new_game(&mut self) {}
    /// False once the player can play no more (a crashed program): it is then restarted.
    fn is_alive(&mut self) -> bool {
        true
    }
    /// Tells the player its game clock before a move (`None` without one):
    /// the search budgets its time from it. `allowance` is the longest the
    /// harness waits before the side loses on time.
    fn set_clock(&mut self, _clock: Option<Clock>, _allowance: Option<Duration>) {}
    /// Chooses a move in the current position of `game` (which has legal moves).
    fn choose(&mut self, game: &GameRecord<G>) -> Result<Choice<G::Move>, Forfeit>;
}

/// The search limits an engine description asks for.
pub fn limits_of(spec: &EngineSpec) -> Limits {
    Limits {
        depth: spec.depth,
        nodes: spec.nodes,
        movetime: spec.movetime.map(Duration::from_millis),
        clock: None,
    }
}

/// Our engine with an evaluation.
pub struct SearchPlayer<G: Game> {
    engine: Engine<G>,
    eval: SharedEval<G>,
    limits: Limits,
}

impl<G: Game> SearchPlayer<G> {
    /// A player searching with `eval` within `limits`, or why its hash
    /// table's memory could not be had.
    pub fn new(
        eval: SharedEval<G>,
        limits: Limits,
        threads: usize,
        hash: HashSize,
    ) -> Result<Self, String> {
        Ok(SearchPlayer {
            engine: Engine::try_new(hash, threads)?,
            eval,
            limits,
        })
    }
}

impl<G: Game> Player<G> for SearchPlayer<G> {
    fn new_game(&mut self) {
        self.engine.clear();
    }

    fn set_clock(&mut self, clock: Option<Clock>, _allowance: Option<Duration>) {
        self.limits.clock = clock;
    }

    fn choose(&mut self, game: &GameRecord<G>) -> Result<Choice<G::Move>, Forfeit> {
        let input = SearchInput {
            position: *game.current(),
            history: game.search_history(),
            limits: self.limits,
        };
        let r = self.engine.search(&*self.eval, &input, |_| {});
        let mv = r
            .best
            .ok_or_else(|| Forfeit::Crash("search returned no move".into()))?;
        Ok(Choice {
            mv,
            score: Some(r.score),
            depth: Some(r.depth),
        })
    }
}

/// Uniformly random legal moves from a seeded generator.
pub struct RandomPlayer {
    rng: Xoshiro256PlusPlus,
}

impl RandomPlayer {
    /// A random player; the same seed plays the same moves.
    pub fn new(seed: u64) -> Self {
        RandomPlayer {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }
}

impl<G: Game> Player<G> for RandomPlayer {
    fn choose(&mut self, game: &GameRecord<G>) -> Result<Choice<G::Move>, Forfeit> {
        let mut list = MoveList::new();
        game.current().generate(&mut list);
        if list.is_empty() {
            return Err(Forfeit::Crash("asked to move with no legal move".into()));
        }
        let mv = list[self.rng.random_range(0..list.len())];
        Ok(Choice {
            mv,
            score: None,
            depth: None,
        })
    }
}

/// Builds the player an engine description names; `seed` drives randomness.
pub fn make_player<G: EvalSource>(
    spec: &EngineSpec,
    seed: u64,
    oracle: Option<SharedOracle<G>>,
) -> Result<Box<dyn Player<G>>, String>
where
    Material: engine::eval::Evaluator<G>,
{
    let limits = limits_of(spec);
    let searcher = |eval: SharedEval<G>| {
        let mut p = SearchPlayer::<G>::new(eval, limits, spec.threads, spec.hash)
            .map_err(|e| format!("engine {}: {e}", spec.name))?;
        p.engine.set_oracle(oracle.clone());
        Ok::<_, String>(Box::new(p) as Box<dyn Player<G>>)
    };
    Ok(match &spec.kind {
        Kind::Random => Box::new(RandomPlayer::new(seed)),
        Kind::Material => searcher(Arc::new(Material::default()))?,
        Kind::Search => searcher(
            G::select_eval(spec.weights.as_deref(), spec.eval.unwrap_or_default())
                .map_err(|e| format!("engine {}: {e}", spec.name))?,
        )?,
        Kind::External(cmd) => Box::new(ExternalPlayer::<G>::start(cmd, spec)?),
    })
}
