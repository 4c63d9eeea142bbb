//! Tournaments: schedule, concurrent games, files written as games end,
//! statistics, SPRT, resume.

use crate::clock::{annotation, pdn_tags, recorded_control, ClockStats};
use crate::game::{play_timed, Adjudication, Finished, Timing};
use crate::output::{
    distinct_outputs, has_content, recover_data, recover_pdn, write_atomic, AppendFile,
};
use crate::pdn::{GameRecord as PdnRecord, PdnResult};
use crate::player::{make_player, Player};
use crate::ratings::{joint_ratings, ladder, parse_anchor, PairResult};
use crate::shard::{RunInfo, Shard};
use crate::spec::EngineSpec;
use crate::stats::{Estimates, GameResult, Pentanomial, Sprt, SprtStatus, Trinomial};
use engine::data::{result_for_white, DataLine};
use engine::eval::EvalSource;
use engine::eval::{Evaluator, Material};
use engine::search::Score;
use engine::search::SharedOracle;
use engine::{Color, Game, Outcome};
use indicatif::ProgressBar;
use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

/// Everything a tournament needs to know.
#[derive(Clone, Debug)]
pub struct Config {
    /// The engines; the first is the gauntlet's challenger.
    pub engines: Vec<EngineSpec>,
    /// The first engine plays each other one (else round robin).
    pub gauntlet: bool,
    /// Games per pairing (rounded up to whole pairs).
    pub games: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// Seed for opening order and random players.
    pub seed: u64,
    /// Start positions (texts), each played twice with colours swapped.
    pub openings: Vec<String>,
    /// Shuffle the openings (seeded) instead of taking them in order.
    pub random_order: bool,
    /// Harness limits.
    pub adjudication: Adjudication,
    /// Stop a two-engine match when the SPRT decides.
    pub sprt: Option<Sprt>,
    /// Game records.
    pub pdn: Option<PathBuf>,
    /// Training data.
    pub data: Option<PathBuf>,
    /// Write each position to the data file once across the whole run.
    pub dedup: bool,
    /// JSON summary at the end.
    pub json: Option<PathBuf>,
    /// Continue the run recorded in the PDN and data files.
    pub resume: bool,
    /// Show a progress bar.
    pub progress: bool,
    /// The `Event` tag.
    pub event: String,
    /// Endgame tables: searching players probe them, and a game that reaches
    /// a position they cover ends with the table's value.
    pub tb: Option<PathBuf>,
    /// Play only this part of the schedule ([`crate::shard`]); a shard
    /// plays its whole part even with an SPRT, which is decided over the
    /// merged shards.
    pub shard: Option<Shard>,
    /// The command line, recorded in the summary.
    pub command: Vec<String>,
    /// A move on a game clock may overrun it by this much before its side
    /// loses on time.
    pub time_margin: Duration,
    /// Write each move's score, depth and time as a PDN comment.
    pub annotate: bool,
    /// `NAME=ELO`: the engine the joint ratings are anchored on (default:
    /// the first engine at 0).
    pub anchor: Option<String>,
}

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) id: u64,
    pub(crate) white: usize,
    pub(crate) black: usize,
    pub(crate) pairing: usize,
    pub(crate) opening: usize,
}

/// The order games are played in: pairings, then game pairs per opening.
/// The two games of a pair are next to each other.
pub(crate) fn schedule(cfg: &Config) -> Vec<Slot> {
    let n = cfg.engines.len();
    let pairings: Vec<(usize, usize)> = if n == 2 {
        vec![(0, 1)]
    } else if cfg.gauntlet {
        (1..n).map(|j| (0, j)).collect()
    } else {
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect()
    };
    let pairs = cfg.games.div_ceil(2);
    let mut order: Vec<usize> = (0..cfg.openings.len()).collect();
    if cfg.random_order {
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        order.shuffle(&mut rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(
            cfg.seed,
        ));
    }
    let mut slots = Vec::new();
    if order.is_empty() {
        return slots;
    }
    for k in 0..pairs {
        for (p, &(a, b)) in pairings.iter().enumerate() {
            let opening = order[k % order.len()];
            for (c, (white, black)) in [(a, b), (b, a)].into_iter().enumerate() {
                let id = ((p * pairs + k) * 2 + c) as u64;
                slots.push(Slot {
                    id,
                    white,
                    black,
                    pairing: p,
                    opening,
                });
            }
        }
    }
    slots
}

/// The games of `shard` in the full schedule `all` (all of them without a
/// shard): its block of whole game pairs.
pub(crate) fn part(all: &[Slot], shard: Option<Shard>) -> Result<&[Slot], String> {
    let r = shard_pairs(all.len() / 2, shard)?;
    Ok(&all[2 * r.start..2 * r.end])
}

/// The block of a run's `pairs` game pairs that `shard` plays (all of them
/// without a shard).
fn shard_pairs(pairs: usize, shard: Option<Shard>) -> Result<std::ops::Range<usize>, String> {
    let Some(shard) = shard else {
        return Ok(0..pairs);
    };
    if shard.count > pairs {
        return Err(format!(
            "--shard {shard}: the run has {pairs} game pairs, so at most {pairs} shards"
        ));
    }
    Ok(shard.pairs(pairs))
}

/// Results of one pairing from its first engine's view.
#[derive(Clone, Debug, Default)]
struct PairingStats {
    a: usize,
    b: usize,
    tri: Trinomial,
    penta: Pentanomial,
    /// First game of each pair, waiting for its twin.
    half: HashMap<u64, GameResult>,
}

/// The summary written with `--json` and printed as a table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Summary {
    /// Games finished (resumed ones included).
    pub games: u64,
    /// Of those, games read back from the PDN file by `--resume`.
    pub resumed: u64,
    /// Per engine results against the field.
    pub engines: Vec<EngineSummary>,
    /// Per pairing results.
    pub pairings: Vec<PairingSummary>,
    /// SPRT state of a two-engine match, when asked.
    pub sprt: Option<SprtSummary>,
    /// Joint ratings of a tournament of three or more engines.
    pub ratings: Option<RatingsSummary>,
    /// Why a tournament of three or more engines has no joint ratings (yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratings_missing: Option<String>,
    /// The harness limits.
    pub adjudication: Adjudication,
    /// The run (and shard) these results belong to.
    pub run: RunInfo,
}

/// One engine's results.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EngineSummary {
    /// Name.
    pub name: String,
    /// Description.
    pub spec: String,
    /// Wins, draws, losses.
    pub wins: u64,
    /// See `wins`.
    pub draws: u64,
    /// See `wins`.
    pub losses: u64,
    /// Score in [0, 1].
    pub score: f64,
    /// Elo against the field, with its 95% interval.
    #[serde(serialize_with = "crate::stats::serialize_elo")]
    pub elo: [f64; 3],
    /// Likelihood of superiority.
    pub los: f64,
    /// Time use on a game clock (`None` when the engine played none).
    pub clock: Option<ClockStats>,
}

/// Joint maximum-likelihood ratings ([`crate::ratings`]).
#[derive(Clone, Debug, serde::Serialize)]
pub struct RatingsSummary {
    /// The engine held fixed.
    pub anchor: String,
    /// Its rating.
    pub anchor_elo: f64,
    /// Virtual draws added per pairing (0 unless an engine won or lost every game).
    pub prior_draws: f64,
    /// How the intervals are computed.
    pub method: String,
    /// Each engine, best first.
    pub ladder: Vec<RatedEngine>,
    /// The ladder as printed.
    #[serde(skip)]
    pub text: String,
}

/// One engine's joint rating.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RatedEngine {
    /// Name.
    pub name: String,
    /// Elo (value, lower, upper of the 95% interval relative to the anchor).
    #[serde(serialize_with = "crate::stats::serialize_elo")]
    pub elo: [f64; 3],
    /// Games played.
    pub games: u64,
}

/// One pairing's results, from the first engine's view.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PairingSummary {
    /// First engine.
    pub first: String,
    /// Second engine.
    pub second: String,
    /// Wins, draws, losses of the first.
    pub wdl: [u64; 3],
    /// Pair counts LL, LD, DD+WL, WD, WW.
    pub pentanomial: [u64; 5],
    /// Elo (value, lower, upper) from the game pairs.
    #[serde(serialize_with = "crate::stats::serialize_elo")]
    pub elo: [f64; 3],
    /// Normalized Elo (value, lower, upper).
    #[serde(serialize_with = "crate::stats::serialize_elo")]
    pub nelo: [f64; 3],
    /// Likelihood of superiority.
    pub los: f64,
}

/// The SPRT's state.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SprtSummary {
    /// Log-likelihood ratio.
    pub llr: f64,
    /// Lower bound (accept H0).
    pub lower: f64,
    /// Upper bound (accept H1).
    pub upper: f64,
    /// `H1 accepted`, `H0 accepted` or `continue`.
    pub status: String,
}

fn triple(e: &crate::stats::Interval) -> [f64; 3] {
    [e.value, e.lower, e.upper]
}

fn result_for(outcome: Outcome, side: Color) -> GameResult {
    match outcome {
        Outcome::Draw => GameResult::Draw,
        Outcome::Win(c) if c == side => GameResult::Win,
        Outcome::Win(_) => GameResult::Loss,
    }
}

/// The running totals.
pub(crate) struct Tally<'a> {
    cfg: &'a Config,
    pairings: Vec<PairingStats>,
    per_engine: Vec<Trinomial>,
    /// Time use of each engine on a clock.
    clocks: Vec<ClockStats>,
    done: u64,
    /// Of `done`, the games read back by `--resume`.
    resumed: u64,
}

impl<'a> Tally<'a> {
    /// Empty totals for the full schedule `slots`.
    pub(crate) fn new(cfg: &'a Config, slots: &[Slot]) -> Self {
        let mut pairings: Vec<PairingStats> = Vec::new();
        for s in slots {
            if pairings.len() <= s.pairing {
                pairings.push(PairingStats {
                    a: s.white,
                    b: s.black,
                    ..Default::default()
                });
            }
        }
        Tally {
            cfg,
            pairings,
            per_engine: vec![Trinomial::default(); cfg.engines.len()],
            clocks: vec![ClockStats::default(); cfg.engines.len()],
            done: 0,
            resumed: 0,
        }
    }

    /// Adds an engine's time use in one game read back from its record.
    pub(crate) fn add_clock(&mut self, engine: usize, c: &ClockStats) {
        self.clocks[engine].absorb(c);
    }

    /// Counts a finished game.
    pub(crate) fn add(&mut self, slot: &Slot, outcome: Outcome) {
        let p = &mut self.pairings[slot.pairing];
        let a_side = if slot.white == p.a {
            Color::White
        } else {
            Color::Black
        };
        let r = result_for(outcome, a_side);
        p.tri.add(r);
        let pair = slot.id / 2;
        match p.half.remove(&pair) {
            Some(first) => p.penta.add_pair(first, r),
            None => {
                p.half.insert(pair, r);
            }
        }
        self.per_engine[slot.white].add(result_for(outcome, Color::White));
        self.per_engine[slot.black].add(result_for(outcome, Color::Black));
        self.done += 1;
    }

    /// The LLR and the test, for a two-engine match with an SPRT.
    pub(crate) fn sprt(&self) -> Option<(f64, &Sprt)> {
        let s = self.cfg.sprt.as_ref()?;
        (self.pairings.len() == 1).then(|| (s.llr(&self.pairings[0].penta), s))
    }

    /// The SPRT's decision with the games so far, if it has one (a shard
    /// plays its whole part: the test is decided over merged shards).
    pub(crate) fn decision(&self) -> Option<Decision> {
        if self.cfg.shard.is_some() {
            return None;
        }
        let (llr, s) = self.sprt()?;
        let status = s.status(llr);
        (status != SprtStatus::Continue).then_some((status, llr, self.done))
    }

    /// The live line: score, Elo and LLR of the first pairing.
    pub(crate) fn progress_message(&self) -> String {
        let p = &self.pairings[0];
        let e: Estimates = p.tri.estimates();
        let names = &self.cfg.engines;
        let mut m = format!(
            "{} vs {}: +{} ={} -{} ({:.1}%) Elo {:.1} ± {:.1}",
            names[p.a].name,
            names[p.b].name,
            p.tri.wins,
            p.tri.draws,
            p.tri.losses,
            100.0 * e.score,
            e.elo.value,
            e.elo.margin()
        );
        if let Some((llr, s)) = self.sprt() {
            m.push_str(&format!(
                " LLR {:.2} [{:.2}, {:.2}]",
                llr,
                s.lower_bound(),
                s.upper_bound()
            ));
        }
        m
    }

    /// Joint ratings of three or more engines, once every engine has met
    /// the others (directly or not); `Ok(None)` for two engines, and why
    /// there are none for more.
    fn ratings(&self) -> Result<Option<RatingsSummary>, String> {
        let names: Vec<String> = self.cfg.engines.iter().map(|e| e.name.clone()).collect();
        if names.len() < 3 {
            return Ok(None);
        }
        let (anchor, anchor_elo) = match &self.cfg.anchor {
            Some(text) => parse_anchor(text, &names)?,
            None => (0, 0.0),
        };
        let results: Vec<PairResult> = self
            .pairings
            .iter()
            .map(|p| PairResult {
                a: p.a,
                b: p.b,
                wins: p.tri.wins,
                draws: p.tri.draws,
                losses: p.tri.losses,
            })
            .collect();
        let r =
            joint_ratings(names.len(), &results, anchor, anchor_elo).map_err(|e| e.to_string())?;
        let games: Vec<u64> = self.per_engine.iter().map(Trinomial::games).collect();
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by(|&x, &y| r.elo[y].total_cmp(&r.elo[x]));
        Ok(Some(RatingsSummary {
            anchor: names[anchor].clone(),
            anchor_elo,
            prior_draws: r.prior_draws,
            method: "maximum likelihood, logistic (Bradley-Terry) model, draws as half; 95% intervals from the sandwich of the information matrix and the games' score spread, relative to the anchor".into(),
            ladder: order
                .iter()
                .map(|&i| RatedEngine {
                    name: names[i].clone(),
                    elo: r.interval(i),
                    games: games[i],
                })
                .collect(),
            text: ladder(&r, &names, &games),
        }))
    }

    /// The summary of the games counted so far.
    pub(crate) fn summary(&self, run: RunInfo) -> Summary {
        let engines = self
            .cfg
            .engines
            .iter()
            .zip(&self.per_engine)
            .zip(&self.clocks)
            .map(|((spec, t), clock)| {
                let e = t.estimates();
                EngineSummary {
                    name: spec.name.clone(),
                    spec: spec.to_string(),
                    wins: t.wins,
                    draws: t.draws,
                    losses: t.losses,
                    score: e.score,
                    elo: triple(&e.elo),
                    los: e.los,
                    clock: (clock.games > 0).then_some(*clock),
                }
            })
            .collect();
        let pairings = self
            .pairings
            .iter()
            .map(|p| {
                let e = p.penta.estimates();
                PairingSummary {
                    first: self.cfg.engines[p.a].name.clone(),
                    second: self.cfg.engines[p.b].name.clone(),
                    wdl: [p.tri.wins, p.tri.draws, p.tri.losses],
                    pentanomial: p.penta.counts,
                    elo: triple(&e.elo),
                    nelo: triple(&e.nelo),
                    los: e.los,
                }
            })
            .collect();
        let sprt = self.sprt().map(|(llr, s)| SprtSummary {
            llr,
            lower: s.lower_bound(),
            upper: s.upper_bound(),
            status: match s.status(llr) {
                SprtStatus::AcceptH1 => "H1 accepted".into(),
                SprtStatus::AcceptH0 => "H0 accepted".into(),
                SprtStatus::Continue => "continue".into(),
            },
        });
        let (ratings, ratings_missing) = match self.ratings() {
            Ok(r) => (r, None),
            Err(e) => (None, Some(e)),
        };
        Summary {
            games: self.done,
            resumed: self.resumed,
            engines,
            pairings,
            sprt,
            ratings,
            ratings_missing,
            adjudication: self.cfg.adjudication,
            run,
        }
    }
}

/// The table printed at the end.
pub fn table(s: &Summary) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{:<16} {:>6} {:>5} {:>5} {:>5} {:>7} {:>22} {:>6}\n",
        "engine", "games", "wins", "draws", "losses", "score", "Elo (95%)", "LOS"
    ));
    for e in &s.engines {
        let games = e.wins + e.draws + e.losses;
        out.push_str(&format!(
            "{:<16} {:>6} {:>5} {:>5} {:>5} {:>6.1}% {:>7.1} [{:>6.1}, {:>6.1}] {:>5.1}%\n",
            e.name,
            games,
            e.wins,
            e.draws,
            e.losses,
            100.0 * e.score,
            e.elo[0],
            e.elo[1],
            e.elo[2],
            100.0 * e.los
        ));
    }
    for p in &s.pairings {
        out.push_str(&format!(
            "{} vs {}: +{} ={} -{}  pairs LL {} LD {} DD/WL {} WD {} WW {}  Elo {:.1} [{:.1}, {:.1}]  nElo {:.1} [{:.1}, {:.1}]  LOS {:.1}%\n",
            p.first, p.second, p.wdl[0], p.wdl[1], p.wdl[2], p.pentanomial[0], p.pentanomial[1], p.pentanomial[2],
            p.pentanomial[3], p.pentanomial[4], p.elo[0], p.elo[1], p.elo[2], p.nelo[0], p.nelo[1], p.nelo[2], 100.0 * p.los
        ));
    }
    if let Some(r) = &s.ratings {
        out.push_str(&r.text);
    }
    if let Some(why) = &s.ratings_missing {
        out.push_str(&format!("no joint ratings: {why}\n"));
    }
    for e in &s.engines {
        if let Some(c) = &e.clock {
            out.push_str(&format!(
                "clock {}: {} games, {} lost on time, {:.1}% of the time given used (most in one game {:.1}%)\n",
                e.name,
                c.games,
                c.forfeits,
                100.0 * c.share(),
                100.0 * c.max_share
            ));
        }
    }
    if let Some(sp) = &s.sprt {
        out.push_str(&format!(
            "SPRT: LLR {:.3} [{:.3}, {:.3}] {}\n",
            sp.llr, sp.lower, sp.upper, sp.status
        ));
    }
    out
}

/// The PDN record of a finished game of run `run_id`.
fn pdn_record<G: Game>(cfg: &Config, run_id: &str, slot: &Slot, f: &Finished<G>) -> PdnRecord {
    let mut r = PdnRecord::new(G::KIND);
    r.event = cfg.event.clone();
    r.round = (slot.id + 1).to_string();
    r.white = cfg.engines[slot.white].name.clone();
    r.black = cfg.engines[slot.black].name.clone();
    r.result = PdnResult::from_outcome(f.outcome);
    r.fen = Some(f.record.start().to_text());
    r.set_tag("Termination", f.reason.clone());
    r.set_tag("Opening", (slot.opening + 1).to_string());
    for (k, v) in cfg.adjudication.tags() {
        r.set_tag(&k, v);
    }
    if cfg.tb.is_some() {
        // Whether or not they decided this game, the tables were in force.
        r.set_tag("TableAdjudication", "yes");
    }
    r.set_tag(RUN_ID_TAG, run_id);
    for (k, v) in pdn_tags(&f.clocks) {
        r.set_tag(&k, v);
    }
    let mut p = *f.record.start();
    for m in f.record.moves() {
        r.moves.push(p.move_text(m));
        p = p.play(m);
    }
    if cfg.annotate {
        for (i, n) in f.notes.iter().enumerate() {
            r.comments.insert(i, annotation(n.score, n.depth, n.time));
        }
    }
    r
}

/// Adds the time use of a finished game's timed sides to the tally.
fn add_clocks<G: Game>(tally: &mut Tally, slot: &Slot, f: &Finished<G>) {
    for (side, engine) in [(Color::White, slot.white), (Color::Black, slot.black)] {
        let i = usize::from(side == Color::Black);
        if let Some(c) = &f.clocks[i] {
            let flagged = crate::clock::lost_on_time(&f.reason, side);
            tally.clocks[engine].add(c, flagged);
        }
    }
}

/// Training data lines ([`DataLine`]) of a finished game; with `dedup`,
/// only positions not written before in the run, and the game's start
/// position always (its ply-0 line names the opening, which keeps the two
/// games of a pair on one side of the tuner's validation split).
fn data_lines<G: Game>(
    slot: &Slot,
    f: &Finished<G>,
    mut dedup: Option<&mut HashSet<u64>>,
) -> String {
    let game = slot.id.to_string();
    let result = result_for_white(f.outcome);
    let mut out = String::new();
    for (ply, pos) in f.record.positions().iter().enumerate() {
        if let Some(seen) = dedup.as_deref_mut() {
            if !seen.insert(<G as Game>::hash(pos)) && ply != 0 {
                continue;
            }
        }
        let score = f.scores.get(ply).copied().flatten().map(|s| match s {
            Score::Cp(c) => c,
            s => s.internal(),
        });
        let text = pos.to_text();
        let line = DataLine {
            game: &game,
            position: &text,
            ply: ply as u32,
            score,
            result,
        };
        out.push_str(&format!("{line}\n"));
    }
    out
}

/// The PDN tag naming the run a game belongs to ([`crate::shard`]).
pub const RUN_ID_TAG: &str = "RunId";

/// The most games a pairing may ask for (`--games`).
pub const MAX_GAMES: usize = 10_000_000;

/// The most games a run may schedule, all pairings together (the schedule
/// is held in memory: a few tens of bytes a game).
pub const MAX_RUN_GAMES: usize = 10_000_000;

/// Refuses a run whose pairings and games per pairing make more than
/// [`MAX_RUN_GAMES`] games, before its schedule is made.
pub fn check_run_size(engines: usize, gauntlet: bool, games: usize) -> Result<(), String> {
    let total = run_games(engines, gauntlet, games);
    if total > MAX_RUN_GAMES {
        return Err(format!(
            "{engines} engines{} at {games} games a pairing make {total} games: at most {MAX_RUN_GAMES} a run",
            if gauntlet { " in a gauntlet" } else { "" }
        ));
    }
    Ok(())
}

/// The games of a run of `engines` (at least two) at `games` a pairing,
/// as [`schedule`] makes them (whole pairs, each pairing), counted without
/// making them (saturating).
fn run_games(engines: usize, gauntlet: bool, games: usize) -> usize {
    let pairings = if engines <= 2 {
        1
    } else if gauntlet {
        engines - 1
    } else {
        engines.saturating_mul(engines - 1) / 2
    };
    pairings.saturating_mul(games.div_ceil(2).saturating_mul(2))
}

/// What a decided SPRT said, and after how many games.
pub type Decision = (SprtStatus, f64, u64);

/// Runs the tournament; returns its summary.
pub fn run<G: EvalSource>(cfg: &Config) -> Result<Summary, String>
where
    Material: Evaluator<G>,
{
    if cfg.engines.len() < 2 {
        return Err("a tournament needs at least two engines".into());
    }
    check_run_size(cfg.engines.len(), cfg.gauntlet, cfg.games)?;
    EngineSpec::check_names(&cfg.engines).map_err(|e| e.to_string())?;
    if let Some(a) = &cfg.anchor {
        let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
        parse_anchor(a, &names)?;
    }
    let openings = parse_openings::<G>(cfg)?;
    let oracle: Option<SharedOracle<G>> = match &cfg.tb {
        Some(dir) => Some(G::open_tables(dir).map_err(|e| format!("--tb {}: {e}", dir.display()))?),
        None => None,
    };
    distinct_outputs(&[
        ("--pdn", cfg.pdn.as_deref()),
        ("--data", cfg.data.as_deref()),
        ("--json", cfg.json.as_deref()),
    ])?;
    refuse_to_overwrite(cfg)?;
    let run = RunInfo::of::<G>(cfg)?;
    let all = schedule(cfg);
    let slots = part(&all, cfg.shard)?;
    check_hash_total(cfg, workers(cfg, slots.len()))?;
    let mut tally = Tally::new(cfg, &all);
    let mut outputs = Outputs::open(cfg, run)?;
    let (finished, decided_before) = if cfg.resume {
        resume::<G>(cfg, slots, &mut tally, &mut outputs)?
    } else {
        (HashSet::new(), None)
    };
    outputs.start_appending(cfg)?;
    // A run whose SPRT was decided plays nothing more when resumed: the
    // decision is found again where it was taken, the games in their order.
    let pending: Vec<Slot> = slots
        .iter()
        .filter(|s| !finished.contains(&s.id) && decided_before.is_none())
        .copied()
        .collect();
    let bar = progress_bar(cfg, slots.len(), &tally);
    let played = play_all(
        cfg,
        &pending,
        &openings,
        oracle.as_ref(),
        &mut tally,
        &mut outputs,
        &bar,
    );
    bar.finish_and_clear();
    let decided = decided_before.or(played?);
    // The records on the disk before the summary that says they are all
    // there (a cluster takes a shard with its summary as finished).
    if let Some(p) = outputs.pdn.as_mut() {
        p.sync()?;
    }
    let summary = finish(cfg, &tally, decided, outputs.run.clone())?;
    outputs.made.keep();
    Ok(summary)
}

/// The record and data files a run made (those missing before it). A run
/// that fails before its first game is written (an engine that cannot be
/// started, say) removes them, still empty, rather than leave them to be
/// found later; a run that wrote a game keeps its files for `--resume`.
/// Held by [`Outputs`], so that they are removed while the run still holds
/// the record's lock (no other run can have taken them up).
struct MadeFiles(Vec<PathBuf>);

impl MadeFiles {
    /// The record and data files that do not exist yet.
    fn missing(cfg: &Config) -> Vec<PathBuf> {
        [&cfg.pdn, &cfg.data]
            .into_iter()
            .flatten()
            .filter(|p| std::fs::symlink_metadata(p).is_err())
            .cloned()
            .collect()
    }

    /// The run ended well: its files stay, whatever they hold.
    fn keep(&mut self) {
        self.0.clear();
    }
}

impl Drop for MadeFiles {
    fn drop(&mut self) {
        for path in &self.0 {
            let empty = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0);
            if empty {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// The opening positions, each checked.
fn parse_openings<G: Game>(cfg: &Config) -> Result<Vec<G>, String> {
    let openings: Vec<G> = cfg
        .openings
        .iter()
        .map(|t| G::parse_position(t).map_err(|e| format!("opening '{t}': {e}")))
        .collect::<Result<_, _>>()?;
    if openings.is_empty() {
        return Err("no openings".into());
    }
    Ok(openings)
}

/// Refuses to write into files that hold a run, unless resuming it.
fn refuse_to_overwrite(cfg: &Config) -> Result<(), String> {
    for path in [&cfg.pdn, &cfg.data].into_iter().flatten() {
        // A folder holds no run to resume: say what it is.
        if path.is_dir() {
            return Err(format!(
                "{} is a folder, not a file to write",
                path.display()
            ));
        }
        if !cfg.resume && has_content(path) {
            return Err(format!(
                "{} exists: use --resume to continue that run, or name another file",
                path.display()
            ));
        }
    }
    Ok(())
}

/// The files written as games end, and the positions already in the data
/// file (for `--dedup`).
struct Outputs {
    pdn: Option<AppendFile>,
    data: Option<AppendFile>,
    seen: Option<HashSet<u64>>,
    /// The run the games belong to (its id tags every record; the running
    /// summary names it).
    run: RunInfo,
    /// The files this run made; dropped before the lock.
    made: MadeFiles,
    /// The PDN file, locked against a second process writing the same run.
    _lock: Option<std::fs::File>,
}

impl Outputs {
    fn open(cfg: &Config, run: RunInfo) -> Result<Outputs, String> {
        // Looked at before the lock makes the record; taken up as this run's
        // only once the lock is held (a run refused by it made nothing).
        let missing = MadeFiles::missing(cfg);
        let lock = cfg
            .pdn
            .as_deref()
            .map(engine::files::lock_exclusive)
            .transpose()?;
        Ok(Outputs {
            pdn: None,
            data: None,
            // A shard writes every position: the merge de-duplicates across
            // all shards in schedule order, as one run playing a game at a time.
            seen: (cfg.dedup && cfg.shard.is_none()).then(HashSet::new),
            run,
            made: MadeFiles(missing),
            _lock: lock,
        })
    }

    /// Opens the record and data files for appending (after any recovery).
    fn start_appending(&mut self, cfg: &Config) -> Result<(), String> {
        self.pdn = cfg.pdn.as_deref().map(AppendFile::open).transpose()?;
        self.data = cfg.data.as_deref().map(AppendFile::open).transpose()?;
        Ok(())
    }

    /// Writes a finished game: data first, then the record, since a game is
    /// finished once its record is written.
    fn write<G: Game>(&mut self, cfg: &Config, slot: &Slot, f: &Finished<G>) -> Result<(), String> {
        if let Some(d) = self.data.as_mut() {
            d.append(&data_lines(slot, f, self.seen.as_mut()))?;
            // On the disk before the record that makes the game finished:
            // after a crash of the machine, a finished game has its data.
            d.sync()?;
        }
        if let Some(p) = self.pdn.as_mut() {
            p.append(&pdn_record(cfg, &self.run.id, slot, f).to_pdn())?;
            // With data, the record too before the next game's data: a
            // crash then leaves the data of one game at most without its
            // record, which is what a resume drops (more is refused, as the
            // sign of records that are not the run's).
            if self.data.as_ref().is_some_and(AppendFile::is_regular) {
                p.sync()?;
            }
        }
        Ok(())
    }
}

/// Reads back the finished games of an interrupted run (those in its PDN
/// file) into the tally, and keeps the data lines of exactly those games;
/// returns their ids.
fn resume<G: Game>(
    cfg: &Config,
    slots: &[Slot],
    tally: &mut Tally,
    outputs: &mut Outputs,
) -> Result<(HashSet<u64>, Option<Decision>), String> {
    let pdn = cfg
        .pdn
        .as_ref()
        .ok_or("--resume needs the --pdn file of the run")?;
    let mut decided = None;
    let by_id: HashMap<u64, &Slot> = slots.iter().map(|s| (s.id, s)).collect();
    let mut finished: HashSet<u64> = HashSet::new();
    recover_pdn(pdn, |rec| {
        let id = rec.round.parse::<u64>().ok().and_then(|r| r.checked_sub(1));
        let slot = id.and_then(|id| by_id.get(&id)).ok_or_else(|| {
            format!(
                "{}: game round '{}' is not part of this run",
                pdn.display(),
                engine::files::quoted(&rec.round, 40)
            )
        })?;
        let Some(id) = rec.tag(RUN_ID_TAG) else {
            return Err(format!(
                "{}: game {} has no [{RUN_ID_TAG}] tag: it is not a game of run {} (written by hand, \
                 or by another program)",
                pdn.display(),
                rec.round,
                outputs.run.id
            ));
        };
        if *id != outputs.run.id {
            return Err(format!(
                "{}: game {} belongs to run {}, not to this run ({}): resume with the same options and the same evaluation weights",
                pdn.display(),
                rec.round,
                engine::files::quoted(id, 40),
                outputs.run.id
            ));
        }
        if rec.white != cfg.engines[slot.white].name || rec.black != cfg.engines[slot.black].name {
            return Err(format!(
                "{}: game {} was played by other engines: resume with the same options",
                pdn.display(),
                rec.round
            ));
        }
        let outcome = rec
            .result
            .outcome()
            .ok_or_else(|| format!("{}: game {} has no result", pdn.display(), rec.round))?;
        if finished.insert(slot.id) {
            for (side, engine) in [(Color::White, slot.white), (Color::Black, slot.black)] {
                if let Some(tc) = cfg.engines[engine].tc {
                    tally.clocks[engine]
                        .add_record(&rec, side, tc)
                        .map_err(|e| format!("{}: {e}", pdn.display()))?;
                } else if let Some(found) = recorded_control(&rec, side) {
                    return Err(format!(
                        "{}: game {} was played with {} time control {}, not without a clock: resume with the same options",
                        pdn.display(),
                        rec.round,
                        side.name(),
                        engine::files::quoted(&found, 40)
                    ));
                }
            }
            tally.add(slot, outcome);
            tally.resumed += 1;
            if decided.is_none() {
                decided = tally.decision();
            }
        }
        Ok(())
    })?;
    if let Some(data) = &cfg.data {
        // The positions already written count as seen for `--dedup`.
        let seen = &mut outputs.seen;
        // The lines of the one game a stop or a crash leaves without its
        // record are dropped.
        recover_data(data, &finished, 1, |text| {
            if let (Some(seen), Ok(pos)) = (seen.as_mut(), G::parse_position(text)) {
                seen.insert(<G as Game>::hash(&pos));
            }
        })
        .map_err(|e| format!("{e} (game records: {})", pdn.display()))?;
    }
    Ok((finished, decided))
}

/// The live progress bar (hidden unless asked for), starting at the games
/// already finished.
fn progress_bar(cfg: &Config, games: usize, tally: &Tally) -> ProgressBar {
    let bar = engine::progress::bar(games as u64, "games", cfg.progress);
    bar.set_position(tally.done);
    if tally.done > 0 {
        bar.set_message(tally.progress_message());
    }
    bar
}

/// Plays the pending games on `cfg.concurrency` worker threads, writing and
/// counting each as it ends; stops early when the SPRT decides (returned)
/// or on the first error.
fn play_all<G: EvalSource>(
    cfg: &Config,
    pending: &[Slot],
    openings: &[G],
    oracle: Option<&SharedOracle<G>>,
    tally: &mut Tally,
    outputs: &mut Outputs,
    bar: &ProgressBar,
) -> Result<Option<Decision>, String>
where
    Material: Evaluator<G>,
{
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = channel::<(Slot, Result<Finished<G>, String>)>();
    let mut error: Option<String> = None;
    let decided = std::thread::scope(|scope| {
        let wanted = workers(cfg, pending.len());
        let mut started = 0;
        let mut refused = None;
        for w in 0..wanted {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            let spawned = std::thread::Builder::new()
                .name(format!("game-{w}"))
                .stack_size(64 << 20)
                .spawn_scoped(scope, move || {
                    let mut players: HashMap<(usize, u64), Box<dyn Player<G>>> = HashMap::new();
                    while !stop.load(Relaxed) {
                        let i = next.fetch_add(1, Relaxed);
                        let Some(slot) = pending.get(i) else { break };
                        // A game that panics (a defect) ends the run as an
                        // error at once, with the games finished kept,
                        // rather than after every other game is played.
                        let played = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            play_slot(cfg, slot, openings, oracle, &mut players)
                        }));
                        let failed = played.is_err();
                        let result = played.unwrap_or_else(|p| {
                            Err(format!(
                                "round {}: internal error: {}",
                                slot.id + 1,
                                engine::files::panic_message(p.as_ref())
                            ))
                        });
                        if tx.send((*slot, result)).is_err() || failed {
                            break;
                        }
                    }
                });
            match spawned {
                Ok(_) => started += 1,
                Err(e) => refused = Some(e),
            }
        }
        drop(tx);
        // The system may refuse a thread (its 64 MiB stack under a memory
        // limit): with none the run would end at once with 0 games; with
        // some, it plays fewer games at a time than asked.
        if let Some(e) = refused {
            if started == 0 {
                error = Some(format!("cannot start a thread to play games: {e}"));
                return None;
            }
            bar.suspend(|| {
                eprintln!(
                    "warning: {started} of {wanted} game threads started ({e}): fewer games at a time"
                );
            });
        }
        let mut decided = None;
        let mut summary_written: Option<Instant> = None;
        // Set once a write has failed: nothing more is written, so a resumed
        // run finds at most the one game cut short in its files.
        let mut output_failed = false;
        for (slot, result) in rx {
            if output_failed {
                continue;
            }
            // A game that could not be played (an engine that cannot be
            // started again) ends the run, but the games the other workers
            // finish meanwhile are kept.
            let f = match result {
                Ok(f) => f,
                Err(e) => {
                    error.get_or_insert(e);
                    stop.store(true, Relaxed);
                    continue;
                }
            };
            if let Err(e) = outputs.write(cfg, &slot, &f) {
                error.get_or_insert(e);
                output_failed = true;
                stop.store(true, Relaxed);
                continue;
            }
            add_clocks(tally, &slot, &f);
            let outcome = f.outcome;
            tally.add(&slot, outcome);
            if let Err(e) = running_summary(cfg, tally, &outputs.run, &mut summary_written) {
                error.get_or_insert(e);
                output_failed = true;
                stop.store(true, Relaxed);
            }
            bar.set_position(tally.done);
            bar.set_message(tally.progress_message());
            if decided.is_none() {
                if let Some(d) = tally.decision() {
                    decided = Some(d);
                    stop.store(true, Relaxed);
                }
            }
        }
        decided
    });
    match error {
        Some(e) => Err(e),
        None => Ok(decided),
    }
}

/// Shortest time between two writes of the running summary.
const SUMMARY_EVERY: Duration = Duration::from_secs(1);

/// Writes the summary so far to `--json` (at most once a second), so that
/// `bushka serve --watch` can show the standings and the LLR while the
/// games are played; `finish` writes the final one. A shard writes only its
/// final summary: its summary's existence is what tells a merge and the
/// cluster driver that the shard is complete.
fn running_summary(
    cfg: &Config,
    tally: &Tally,
    run: &RunInfo,
    last: &mut Option<Instant>,
) -> Result<(), String> {
    let Some(path) = &cfg.json else {
        return Ok(());
    };
    // A shard's summary is for the merge; a pipe or `/dev/stdout` gets the
    // final one only.
    if cfg.shard.is_some() || !engine::files::replaces_a_file(path) {
        return Ok(());
    }
    if last.is_some_and(|t| t.elapsed() < SUMMARY_EVERY) {
        return Ok(());
    }
    *last = Some(Instant::now());
    let summary = tally.summary(run.clone());
    let text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
    write_atomic(path, &text)
}

/// The summary, with the SPRT's decision as taken, written to `--json`.
fn finish(
    cfg: &Config,
    tally: &Tally,
    decided: Option<Decision>,
    run: RunInfo,
) -> Result<Summary, String> {
    let mut summary = tally.summary(run);
    mark_decision(&mut summary, decided);
    if let Some(path) = &cfg.json {
        let text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
        write_atomic(path, &text)?;
    }
    Ok(summary)
}

/// The most games the run (or its shard) plays at once: `--concurrency`,
/// or fewer when fewer are scheduled.
pub fn games_at_once(cfg: &Config) -> usize {
    // Counted, not scheduled: this is asked before a run too large is
    // refused, whose schedule would not fit in the memory.
    let all = if cfg.openings.is_empty() {
        0
    } else {
        run_games(cfg.engines.len(), cfg.gauntlet, cfg.games)
    };
    let games = shard_pairs(all / 2, cfg.shard).map_or(all, |r| r.len() * 2);
    workers(cfg, games)
}

/// The games played at once for `games` to play: `--concurrency`, at most
/// one a game, at least one.
fn workers(cfg: &Config, games: usize) -> usize {
    cfg.concurrency.max(1).min(games.max(1))
}

/// Refuses a run whose hash tables could not all be held: each of the
/// `workers` games played at once keeps a table for every engine and colour
/// it has played (its players, and the programs it started, are kept from
/// game to game), which the allocator would promise and the kernel kill for
/// once touched.
pub fn check_hash_total(cfg: &Config, workers: usize) -> Result<(), String> {
    use crate::spec::Kind;
    let per_game: usize = cfg
        .engines
        .iter()
        // A program of the Hub protocol is told its size (`hash`), as ours
        // does; random players have none.
        .filter(|e| !matches!(e.kind, Kind::Random))
        .map(|e| 2 * e.hash.get())
        .sum();
    let total = per_game.saturating_mul(workers);
    let memory = 2 * engine::tt::max_hash_mib();
    if total > memory {
        return Err(format!(
            "the hash tables would take {total} MiB (hash= of each engine, for both colours, in each of {workers} games at once), more than the {memory} MiB this process may use: lower hash= or --concurrency"
        ));
    }
    Ok(())
}

/// Writes the SPRT's decision, as taken, into the summary.
pub(crate) fn mark_decision(summary: &mut Summary, decided: Option<Decision>) {
    // Games under way when the test decided are kept and counted, which can
    // move the final LLR; the decision stands as taken.
    if let (Some((status, llr, games)), Some(sp)) = (decided, summary.sprt.as_mut()) {
        let verdict = if status == SprtStatus::AcceptH1 {
            "H1 accepted"
        } else {
            "H0 accepted"
        };
        sp.status = format!("{verdict} at {games} games (LLR {llr:.3})");
    }
}

/// Plays one scheduled game with this worker's players (made on first use).
fn play_slot<G: EvalSource>(
    cfg: &Config,
    slot: &Slot,
    openings: &[G],
    oracle: Option<&SharedOracle<G>>,
    players: &mut HashMap<(usize, u64), Box<dyn Player<G>>>,
) -> Result<Finished<G>, String>
where
    Material: Evaluator<G>,
{
    for (e, side) in [(slot.white, 0u64), (slot.black, 1u64)] {
        let spec = &cfg.engines[e];
        // Random players are re-made per game so that each game's moves depend
        // only on the seed and the game, not on which worker played before.
        let key = (e, side);
        let fresh = matches!(spec.kind, crate::spec::Kind::Random);
        let usable = players.get_mut(&key).is_some_and(|p| p.is_alive());
        if fresh || !usable {
            let seed = cfg.seed ^ engine::zobrist::splitmix64(slot.id * 2 + side);
            players.insert(key, make_player::<G>(spec, seed, oracle.cloned())?);
        }
    }
    let [mut w, mut b] = [
        players.remove(&(slot.white, 0)),
        players.remove(&(slot.black, 1)),
    ];
    let (Some(white), Some(black)) = (w.as_deref_mut(), b.as_deref_mut()) else {
        return Err("internal: players missing".into());
    };
    let timing = Timing {
        controls: [cfg.engines[slot.white].tc, cfg.engines[slot.black].tc],
        margin: cfg.time_margin,
    };
    let f = play_timed(
        openings[slot.opening],
        [white, black],
        &cfg.adjudication,
        oracle.map(|o| &**o),
        &timing,
    );
    players.insert((slot.white, 0), w.take().expect("just used"));
    players.insert((slot.black, 1), b.take().expect("just used"));
    Ok(f)
}
