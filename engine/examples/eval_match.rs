//! Fixed-depth match: the default feature weights against material alone.
//!
//! Openings are made by a few seeded random plies from the start; each is
//! played twice with colours swapped. A game ends when the side to move has
//! no move (it loses), on threefold repetition, after `--quiet` plies with
//! no capture or man move, or at the `--max-plies` cap (draws).
//!
//! `cargo run --release -p bushka-engine --example eval_match -- \
//!     [--game bushka|bashnya|both] [--openings 60] [--depth 4] [--random-plies 4]
//!     [--max-plies 300] [--quiet 60] [--seed 1] [--weights FILE]`
//!
//! Games run in parallel on rayon's pool (set `RAYON_NUM_THREADS`).

use engine::eval::{Evaluator, Features, Material, Weights};
use engine::search::{Engine, Limits, SearchInput};
use engine::{bashnya, bushka, Color, Game, GameKind, MoveList};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};

/// Match settings from the command line.
#[derive(Clone, Debug)]
struct Settings {
    games: Vec<GameKind>,
    openings: usize,
    depth: u32,
    random_plies: usize,
    max_plies: usize,
    quiet: usize,
    seed: u64,
    weights: Option<String>,
}

fn parse_args() -> Result<Settings, String> {
    let mut s = Settings {
        games: vec![GameKind::Bushka, GameKind::Bashnya],
        openings: 60,
        depth: 4,
        random_plies: 4,
        max_plies: 300,
        quiet: 60,
        seed: 1,
        weights: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let num = |v: &String| v.parse::<u64>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--game" => {
                let v = value()?;
                s.games = match v.as_str() {
                    "both" => vec![GameKind::Bushka, GameKind::Bashnya],
                    g => vec![g.parse()?],
                }
            }
            "--openings" => s.openings = num(value()?)? as usize,
            "--depth" => s.depth = num(value()?)? as u32,
            "--random-plies" => s.random_plies = num(value()?)? as usize,
            "--max-plies" => s.max_plies = num(value()?)? as usize,
            "--quiet" => s.quiet = num(value()?)? as usize,
            "--seed" => s.seed = num(value()?)?,
            "--weights" => s.weights = Some(value()?.clone()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(s)
}

/// Distinct positions after `plies` random moves from the start (none already decided).
fn openings<G: Game>(n: usize, plies: usize, seed: u64) -> Vec<G> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut list = MoveList::new();
    let mut tries = 0;
    while out.len() < n && tries < n * 100 {
        tries += 1;
        let mut p = G::start();
        let mut ok = true;
        for _ in 0..plies {
            p.generate(&mut list);
            if list.is_empty() {
                ok = false;
                break;
            }
            p = p.play(&list[rng.random_range(0..list.len())]);
        }
        p.generate(&mut list);
        if ok && !list.is_empty() && seen.insert(Game::hash(&p)) {
            out.push(p);
        }
    }
    out
}

/// How a game ended, from the candidate's (the weights') point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Result3 {
    Win,
    Draw,
    Loss,
}

/// Plays one game; `cand_white` says which colour the weights play.
fn play_game<G, A, B>(
    start: G,
    cand: &A,
    base: &B,
    cand_white: bool,
    s: &Settings,
) -> (Result3, usize, &'static str)
where
    G: Game,
    A: Evaluator<G>,
    B: Evaluator<G>,
{
    let mut engines = [Engine::<G>::new(8, 1), Engine::<G>::new(8, 1)];
    let mut pos = start;
    let mut history: Vec<u64> = Vec::new();
    let mut counts: HashMap<u64, u32> = HashMap::new();
    counts.insert(Game::hash(&pos), 1);
    let mut list = MoveList::new();
    let mut since_progress = 0;
    for ply in 0..s.max_plies {
        pos.generate(&mut list);
        let white_to_move = pos.side_to_move() == Color::White;
        let cand_to_move = white_to_move == cand_white;
        if list.is_empty() {
            let r = if cand_to_move {
                Result3::Loss
            } else {
                Result3::Win
            };
            return (r, ply, "no move");
        }
        let input = SearchInput {
            position: pos,
            history: history.clone(),
            limits: Limits::depth(s.depth),
        };
        let result = if cand_to_move {
            engines[0].search(cand, &input, |_| {})
        } else {
            engines[1].search(base, &input, |_| {})
        };
        let mv = result.best.unwrap_or(list[0]);
        if pos.is_irreversible(&mv) {
            history.clear();
            since_progress = 0;
        } else {
            history.push(Game::hash(&pos));
            since_progress += 1;
        }
        pos = pos.play(&mv);
        let c = counts.entry(Game::hash(&pos)).or_insert(0);
        *c += 1;
        if *c >= 3 {
            return (Result3::Draw, ply + 1, "repetition");
        }
        if since_progress >= s.quiet {
            return (Result3::Draw, ply + 1, "no progress");
        }
    }
    (Result3::Draw, s.max_plies, "ply cap")
}

/// Score, Elo and its 95% interval from wins, draws and losses.
fn summary(w: usize, d: usize, l: usize) -> String {
    let n = (w + d + l).max(1) as f64;
    let s = (w as f64 + d as f64 / 2.0) / n;
    let var = (w as f64 * (1.0 - s).powi(2) + d as f64 * (0.5 - s).powi(2) + l as f64 * s * s) / n;
    let se = (var / n).sqrt();
    let elo = |x: f64| -400.0 * (1.0 / x.clamp(1e-6, 1.0 - 1e-6) - 1.0).log10();
    format!(
        "+{w} ={d} -{l}: score {:.1}%, Elo {:+.0} [{:+.0}, {:+.0}] (95%)",
        100.0 * s,
        elo(s),
        elo(s - 1.96 * se),
        elo(s + 1.96 * se)
    )
}

fn run<G>(s: &Settings, cand: &Weights)
where
    G: Features,
    Material: Evaluator<G>,
{
    let base = Material::default();
    let starts = openings::<G>(s.openings, s.random_plies, s.seed);
    let jobs: Vec<(usize, bool)> = (0..starts.len())
        .flat_map(|i| [(i, true), (i, false)])
        .collect();
    let t0 = std::time::Instant::now();
    let results: Vec<(Result3, usize, &str)> = jobs
        .par_iter()
        .map(|&(i, white)| play_game(starts[i], cand, &base, white, s))
        .collect();
    let count = |r| results.iter().filter(|x| x.0 == r).count();
    let (w, d, l) = (
        count(Result3::Win),
        count(Result3::Draw),
        count(Result3::Loss),
    );
    let mut reasons: HashMap<&str, usize> = HashMap::new();
    for r in &results {
        *reasons.entry(r.2).or_default() += 1;
    }
    let mut reasons: Vec<_> = reasons.into_iter().collect();
    reasons.sort();
    let plies: usize = results.iter().map(|r| r.1).sum();
    println!(
        "{}: weights vs material, depth {}, {} openings x 2 colours = {} games ({} random plies), \
         {:.0} plies/game, {:.0}s",
        G::KIND.name(),
        s.depth,
        starts.len(),
        results.len(),
        s.random_plies,
        plies as f64 / results.len().max(1) as f64,
        t0.elapsed().as_secs_f64()
    );
    println!("  endings: {reasons:?}");
    println!("  weights {}", summary(w, d, l));
}

fn main() {
    let s = match parse_args() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("eval_match: {e}");
            std::process::exit(2);
        }
    };
    for &kind in &s.games {
        let weights = match &s.weights {
            Some(path) => match Weights::load(kind, std::path::Path::new(path)) {
                Ok(w) => w,
                Err(e) => {
                    eprintln!("eval_match: {e}");
                    std::process::exit(2);
                }
            },
            None => Weights::default_for(kind),
        };
        match kind {
            GameKind::Bushka => run::<bushka::Position>(&s, &weights),
            GameKind::Bashnya => run::<bashnya::Position>(&s, &weights),
        }
    }
}
