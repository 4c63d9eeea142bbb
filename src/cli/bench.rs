//! `bench`: a fixed search workload whose node count at one thread is a
//! signature of the search's behaviour, and the time-to-depth speed-up of
//! several threads over one on the same workload.

use super::analyze::EvalArgs;
use anyhow::{bail, Context, Result};
use engine::eval::EvalSource;
use engine::eval::Evaluator;
use engine::search::{Engine, Limits, SearchInput, SearchResult};
use engine::tt::HashSize;
use engine::{with_game, GameKind};

/// What `bushka bench` is asked.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The game: bushka or bashnya.
    #[arg(long, default_value = "bushka")]
    game: GameKind,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Depth of every search (default: 12 for Bushka, 13 for Bashnya).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60))]
    depth: Option<u32>,
    /// Transposition table size in MiB (1 to half of the memory this process
    /// may use; default 64, the size the bench signature is measured with).
    #[arg(long)]
    hash: Option<HashSize>,
    #[command(flatten)]
    evaluation: EvalArgs,
    /// Measure the time-to-depth speed-up of `--threads` threads over one:
    /// the set is searched alternately by each, and a table of median times printed.
    #[arg(long)]
    speedup: bool,
    /// Rounds of `--speedup` (each searches the set once with each thread count).
    #[arg(long, requires = "speedup", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    rounds: u32,
}

/// `bushka bench`.
pub fn bench(a: &BenchArgs) -> Result<()> {
    with_game!(a.game, G => run::<G>(a))
}

/// Search time in milliseconds (the table's clearing before it left out).
fn millis<M>(r: &SearchResult<M>) -> f64 {
    r.time.as_secs_f64() * 1000.0
}

fn run<G: EvalSource>(a: &BenchArgs) -> Result<()> {
    let depth = a.depth.unwrap_or(G::BENCH_DEPTH);
    let eval = a.evaluation.evaluator::<G>()?;
    let set: Vec<G> = G::BENCH_POSITIONS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| G::parse_position(l).with_context(|| format!("bench position {}", i + 1)))
        .collect::<Result<_>>()?;
    if a.speedup {
        speedup(&set, &*eval, depth, a, a.rounds)
    } else {
        signature(&set, &*eval, depth, a)
    }
}

/// Searches every position from an empty table; `each` hears of each as it ends.
fn search_set<G: EvalSource>(
    engine: &mut Engine<G>,
    eval: &dyn Evaluator<G>,
    set: &[G],
    depth: u32,
    mut each: impl FnMut(usize, &SearchResult<G::Move>) -> Result<()>,
) -> Result<Vec<SearchResult<G::Move>>> {
    let mut out = Vec::with_capacity(set.len());
    for (i, pos) in set.iter().enumerate() {
        engine.clear();
        let r = engine.search(eval, &SearchInput::new(*pos, Limits::depth(depth)), |_| {});
        each(i, &r)?;
        out.push(r);
    }
    Ok(out)
}

/// The table size: `--hash`, or the 64 MiB the bench signature is measured
/// with, which a small container or job may not allow.
fn hash(a: &BenchArgs) -> Result<HashSize> {
    match a.hash {
        Some(h) => Ok(h),
        None => HashSize::mib(HashSize::DEFAULT.get()).map_err(|e| {
            anyhow::anyhow!(
                "the bench's default table of {} MiB (its signature's) is too big here: {e}; give a smaller --hash",
                HashSize::DEFAULT
            )
        }),
    }
}

/// The plain bench: one line per position, then the node count and speed.
fn signature<G: EvalSource>(
    set: &[G],
    eval: &dyn Evaluator<G>,
    depth: u32,
    a: &BenchArgs,
) -> Result<()> {
    let mut engine = Engine::<G>::try_new(hash(a)?, a.threads as usize)
        .map_err(|e| anyhow::anyhow!("--hash: {e}"))?;
    let done = search_set(&mut engine, eval, set, depth, |i, r| {
        let best = r.best.map_or("none".to_string(), |m| set[i].move_text(&m));
        outln!(
            "position {:2} depth {} score {} nodes {} time {:.0} bestmove {}",
            i + 1,
            r.depth,
            r.score,
            r.nodes,
            millis(r),
            best
        );
        Ok(())
    })?;
    let nodes: u64 = done.iter().map(|r| r.nodes).sum();
    let ms: f64 = done.iter().map(millis).sum();
    // The threads that ran (a helper the system refused is left out).
    let ran = done.iter().map(|r| r.threads).min().unwrap_or(1);
    let varies = if ran > 1 {
        " (with more than one thread the node count varies from run to run)"
    } else {
        ""
    };
    let plural = if ran == 1 { "" } else { "s" };
    outln!(
        "search time {:.0} ms, {ran} thread{plural}; {}, depth {depth}, hash {} MiB, {}{varies}",
        ms,
        a.game.name(),
        hash(a)?,
        a.evaluation.describe()
    );
    outln!(
        "bench {} nodes {:.0} nps",
        nodes,
        nodes as f64 * 1000.0 / ms.max(1e-6)
    );
    Ok(())
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Search times of the bench set, per thread count (one thread first).
struct Timings {
    /// `ms[config][position]`: each round's search time of the position.
    ms: [Vec<Vec<f64>>; 2],
    /// Each round's total time, per config.
    totals: [Vec<f64>; 2],
    /// Each round's total nodes, per config.
    nodes: [Vec<f64>; 2],
}

/// Time to depth of `a.threads` threads against one: the bench set searched
/// `rounds` times by each, alternately (which goes first swaps every round,
/// so that a machine's drift falls on both alike).
fn speedup<G: EvalSource>(
    set: &[G],
    eval: &dyn Evaluator<G>,
    depth: u32,
    a: &BenchArgs,
    rounds: u32,
) -> Result<()> {
    if a.threads < 2 {
        bail!("--speedup compares --threads T (2 or more) with one thread; got --threads 1");
    }
    let t = time_rounds(set, eval, depth, a, rounds)?;
    print_speedup(&t, depth, a.threads, rounds)
}

/// Runs the alternating rounds under a progress bar.
fn time_rounds<G: EvalSource>(
    set: &[G],
    eval: &dyn Evaluator<G>,
    depth: u32,
    a: &BenchArgs,
    rounds: u32,
) -> Result<Timings> {
    // One engine, so one table: the thread count is set before each run.
    let mut engine =
        Engine::<G>::try_new(hash(a)?, 1).map_err(|e| anyhow::anyhow!("--hash: {e}"))?;
    let thread_counts = [1, a.threads as usize];
    let mut t = Timings {
        ms: [vec![Vec::new(); set.len()], vec![Vec::new(); set.len()]],
        totals: [Vec::new(), Vec::new()],
        nodes: [Vec::new(), Vec::new()],
    };
    let bar = engine::progress::bar(2 * u64::from(rounds), "bench runs", true);
    for round in 0..rounds {
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for c in order {
            engine.set_threads(thread_counts[c]);
            let done = search_set(&mut engine, eval, set, depth, |_, _| Ok(()))?;
            for (i, r) in done.iter().enumerate() {
                t.ms[c][i].push(millis(r));
            }
            t.totals[c].push(done.iter().map(millis).sum());
            t.nodes[c].push(done.iter().map(|r| r.nodes as f64).sum());
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    Ok(t)
}

/// The table of median times per position, the totals, and the last line.
fn print_speedup(t: &Timings, depth: u32, threads: u32, rounds: u32) -> Result<()> {
    let many = format!("{threads} threads");
    // A row: one thread's time, the threads' time, and their ratio.
    let row = |label: &str, x: f64, y: f64| -> Result<()> {
        outln!(
            "{:>8}  {:>9.0} ms  {:>9.0} ms  {:>8.2}",
            label,
            x,
            y,
            x / y.max(1e-6)
        );
        Ok(())
    };
    outln!("position  {:>12}  {:>12}  speed-up", "1 thread", many);
    for (i, (one, several)) in t.ms[0].iter().zip(&t.ms[1]).enumerate() {
        row(&(i + 1).to_string(), median(one), median(several))?;
    }
    let per_round: Vec<f64> = t.totals[0]
        .iter()
        .zip(&t.totals[1])
        .map(|(x, y)| x / y.max(1e-6))
        .collect();
    let (lo, hi) = per_round
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), &r| (l.min(r), h.max(r)));
    let (t1, tn) = (median(&t.totals[0]), median(&t.totals[1]));
    row("total", t1, tn)?;
    outln!(
        "{:>8}  {:>12.0}  {:>12.0}  (medians of {} rounds)",
        "nodes",
        median(&t.nodes[0]),
        median(&t.nodes[1]),
        rounds
    );
    outln!(
        "speedup {:.2} at depth {}, {} over 1, median totals of {} rounds (single rounds {:.2} to {:.2})",
        t1 / tn.max(1e-6),
        depth,
        many,
        rounds,
        lo,
        hi
    );
    Ok(())
}
