//! `analyze`: search one position and print each completed iteration.

use super::rules::read_position;
use super::PositionArgs;
use anyhow::Result;
use engine::eval::{EvalKind, EvalSource, SharedEval};
use engine::search::{Engine, Info, Limits, SearchInput};
use engine::{with_game, Game};
use std::io::Write;

/// Search settings shared by `analyze`, `play` and `bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct SearchArgs {
    /// Stop after this depth (depth 12 when no limit is given).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub depth: Option<u32>,
    /// Stop after about this many nodes.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Stop after this many milliseconds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
    /// Search threads (lazy SMP).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// Transposition table size in MiB (1 to half of the memory this process may use).
    #[arg(long, default_value_t = engine::tt::HashSize::default_here())]
    pub hash: engine::tt::HashSize,
    #[command(flatten)]
    pub evaluation: EvalArgs,
    /// Folder of Bushka endgame tables (`bushka tb build`), probed at every node they cover.
    #[arg(long)]
    pub tb: Option<std::path::PathBuf>,
}

impl SearchArgs {
    /// The limits these options ask for (depth 12 when none is given).
    pub fn limits(&self) -> Limits {
        let mut l = Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime.map(std::time::Duration::from_millis),
            clock: None,
        };
        if l.depth.is_none() && l.nodes.is_none() && l.movetime.is_none() {
            l.depth = Some(12);
        }
        l
    }
}

/// The evaluation options of every command that searches (`analyze`,
/// `bench`, `play`, `openings`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct EvalArgs {
    /// Evaluation weights: `default` (the built-in weights, the default),
    /// `material` (material only), or a file of JSON features or binary
    /// pattern weights (docs/patterns.md).
    #[arg(long)]
    pub weights: Option<String>,
    /// Evaluation: `auto`, `features` (the named features) or `patterns`
    /// (features and pattern weights, docs/patterns.md). Default (`auto`):
    /// what a weights file holds; without one, the game's embedded pattern
    /// weights.
    #[arg(long)]
    pub eval: Option<EvalKind>,
}

impl EvalArgs {
    /// The evaluation these options name.
    pub fn evaluator<G: EvalSource>(&self) -> Result<SharedEval<G>> {
        let weights = self.weights.as_deref();
        G::select_eval(weights, self.eval.unwrap_or_default()).map_err(|e| match weights {
            // The message names the file.
            Some(_) => anyhow::anyhow!("--weights: {e}"),
            None => anyhow::anyhow!("--eval: {e}"),
        })
    }

    /// The weights file these options read (none for the built-in
    /// `default` and `material`).
    pub fn weights_file(&self) -> Option<&std::path::Path> {
        engine::eval::weights_file(self.weights.as_deref()).map(std::path::Path::new)
    }

    /// The evaluation in words, for a file's header.
    pub fn describe(&self) -> String {
        match (self.weights.as_deref(), self.eval) {
            (Some("material"), _) => "the material-only evaluation".into(),
            (None | Some("default"), None | Some(EvalKind::Auto)) => {
                "the default evaluation".into()
            }
            (w, e) => format!(
                "the evaluation of{}{}",
                w.map(|w| format!(" --weights {w}")).unwrap_or_default(),
                e.map(|e| format!(" --eval {}", e.name()))
                    .unwrap_or_default()
            ),
        }
    }
}

/// One `info` line.
pub fn info_line<G: Game>(pos: &G, info: &Info<G::Move>) -> String {
    format!(
        "info depth {} score {} nodes {} time {} nps {} pv {}",
        info.depth,
        info.score,
        info.nodes,
        info.time.as_millis(),
        info.nps(),
        pv_text(pos, &info.pv)
    )
}

/// A principal variation in the game's notation.
pub fn pv_text<G: Game>(pos: &G, pv: &[G::Move]) -> String {
    let mut p = *pos;
    let mut out = Vec::with_capacity(pv.len());
    for m in pv {
        out.push(p.move_text(m));
        p = p.play(m);
    }
    out.join(" ")
}

/// `bushka analyze`.
pub fn analyze(pos: &PositionArgs, search: &SearchArgs) -> Result<()> {
    with_game!(pos.game, G => analyze_of::<G>(&pos.position, search))
}

fn analyze_of<G: EvalSource>(position: &str, args: &SearchArgs) -> Result<()> {
    let pos: G = read_position(position)?;
    let mut engine = Engine::<G>::try_new(args.hash, args.threads as usize)
        .map_err(|e| anyhow::anyhow!("--hash: {e}"))?;
    let eval = args.evaluation.evaluator::<G>()?;
    if let Some(dir) = &args.tb {
        let oracle =
            G::open_tables(dir).map_err(|e| anyhow::anyhow!("--tb {}: {e}", dir.display()))?;
        engine.set_oracle(Some(oracle));
    }
    let input = SearchInput::new(pos, args.limits());
    let mut out = std::io::stdout();
    // A reader that went away (`| head -1`) ends the search.
    let stop = engine.stop_flag();
    let result = engine.search(&*eval, &input, |info| {
        let written = writeln!(out, "{}", info_line(&pos, info)).and_then(|()| out.flush());
        if written.is_err() {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    match result.best {
        Some(m) => outln!("bestmove {}", pos.move_text(&m)),
        None => outln!("bestmove none"),
    }
    Ok(())
}
