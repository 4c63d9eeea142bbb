//! `bench`: a fixed search workload whose node count at one thread is a
//! signature of the search's behaviour.

use super::analyze::evaluator;
use anyhow::{Context, Result};
use engine::hub::EvalSource;
use engine::search::{Engine, Limits, SearchInput};
use engine::{bashnya, bushka, GameKind};
use std::time::Instant;

/// The bench positions of each game (compiled in from `data/bench/`).
fn positions(game: GameKind) -> &'static str {
    match game {
        GameKind::Bushka => include_str!("../../data/bench/bushka.txt"),
        GameKind::Bashnya => include_str!("../../data/bench/bashnya.txt"),
    }
}

/// Default bench depth of each game: a few seconds per game at one thread.
pub fn default_depth(game: GameKind) -> u32 {
    match game {
        GameKind::Bushka => 12,
        GameKind::Bashnya => 13,
    }
}

/// `bushka bench`.
pub fn bench(
    game: GameKind,
    threads: u32,
    depth: Option<u32>,
    hash: u32,
    weights: Option<&str>,
) -> Result<()> {
    let depth = depth.unwrap_or_else(|| default_depth(game));
    match game {
        GameKind::Bushka => run::<bushka::Position>(game, threads, depth, hash, weights),
        GameKind::Bashnya => run::<bashnya::Position>(game, threads, depth, hash, weights),
    }
}

fn run<G: EvalSource>(
    game: GameKind,
    threads: u32,
    depth: u32,
    hash: u32,
    weights: Option<&str>,
) -> Result<()> {
    let eval = evaluator::<G>(weights)?;
    engine::tt::check_hash_mib(hash as usize).map_err(anyhow::Error::msg)?;
    let mut engine = Engine::<G>::new(hash as usize, threads as usize);
    let (mut nodes, start) = (0u64, Instant::now());
    for (i, line) in positions(game)
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .enumerate()
    {
        let pos = G::parse_position(line).with_context(|| format!("bench position {}", i + 1))?;
        engine.clear();
        let r = engine.search(&*eval, &SearchInput::new(pos, Limits::depth(depth)), |_| {});
        let best = r.best.map_or("none".to_string(), |m| pos.move_text(&m));
        outln!(
            "position {:2} depth {} score {} nodes {} time {} bestmove {}",
            i + 1,
            r.depth,
            r.score,
            r.nodes,
            r.time.as_millis(),
            best
        );
        nodes += r.nodes;
    }
    let secs = start.elapsed().as_secs_f64();
    outln!("time {:.0} ms, {} threads", secs * 1000.0, threads);
    outln!(
        "bench {} nodes {:.0} nps",
        nodes,
        nodes as f64 / secs.max(1e-9)
    );
    Ok(())
}
