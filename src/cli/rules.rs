//! `moves` and `perft`: the rules core on the command line.

use super::PositionArgs;
use anyhow::{bail, Context, Result};
use engine::{with_game, Game, MoveList};
use std::io::Write;
use std::time::Instant;

/// Reads `--position` for game `G` (`start` or a position text).
pub fn read_position<G: Game>(text: &str) -> Result<G> {
    if text.trim() == "start" {
        Ok(G::start())
    } else {
        G::parse_position(text)
            .with_context(|| format!("bad --position '{}'", engine::files::quoted(text, 60)))
    }
}

/// The position of `--position` for game `G`.
pub fn position_of<G: Game>(args: &PositionArgs) -> Result<G> {
    read_position(&args.position)
}

/// `bushka moves`.
pub fn moves(args: &PositionArgs) -> Result<()> {
    with_game!(args.game, G => moves_of::<G>(args))
}

fn moves_of<G: Game>(args: &PositionArgs) -> Result<()> {
    let pos: G = position_of(args)?;
    let mut list = MoveList::new();
    pos.generate(&mut list);
    let mut out = std::io::stdout().lock();
    for m in &list {
        writeln!(out, "{}\t{}", pos.move_text(m), pos.play(m).to_text())?;
    }
    Ok(())
}

/// `bushka perft`.
pub fn perft(args: &PositionArgs, depth: u32, threads: Option<u32>, divide: bool) -> Result<()> {
    let threads = threads.map_or_else(num_cpus, |t| t as usize);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start the worker threads")?;
    pool.install(|| with_game!(args.game, G => perft_of::<G>(args, depth, divide)))
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

fn perft_of<G: Game>(args: &PositionArgs, depth: u32, divide: bool) -> Result<()> {
    let pos: G = position_of(args)?;
    if divide && depth == 0 {
        bail!("--divide needs --depth 1 or more");
    }
    let start = Instant::now();
    let mut out = std::io::stdout().lock();
    let nodes = if divide {
        let bar = engine::progress::bar(pos.count_moves(), "root moves", true);
        let parts = engine::perft::divide_with(&pos, depth, || bar.inc(1));
        bar.finish_and_clear();
        for (m, n) in &parts {
            writeln!(out, "{} {}", pos.move_text(m), n)?;
        }
        parts.iter().map(|(_, n)| n).sum()
    } else {
        let split = engine::perft::split(&pos, depth);
        let bar = engine::progress::bar(split.tasks.len() as u64, "subtrees", true);
        let nodes = split.count(|| bar.inc(1));
        bar.finish_and_clear();
        nodes
    };
    let secs = start.elapsed().as_secs_f64();
    let nps = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
    writeln!(out, "time {secs:.3} s, {nps:.0} nodes/s")?;
    writeln!(out, "nodes {nodes}")?;
    Ok(())
}
