//! `tactics`: mine combinations from games into a problem set, and solve a
//! problem set with the engine (the research crate's inventory of tactics).

use anyhow::{anyhow, bail, Context, Result};
use engine::eval::{EvalSource, Evaluator, Material};
use engine::search::{Engine, Limits, SearchInput};
use engine::tt::HashSize;
use engine::{with_game, Game, GameKind};
use research::inventory;
use research::tactics::{self, MineConfig, Motifs};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use web::view::Drawable;

/// `bushka tactics` subcommands.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum TacticsCommand {
    /// Find combinations in the games of PDN files.
    Mine(MineArgs),
    /// Search every problem of a problem set and count the solutions found.
    Solve(SolveArgs),
}

/// Options of `bushka tactics mine`.
#[derive(clap::Args, Debug, Clone)]
pub struct MineArgs {
    /// The game: bushka or bashnya.
    #[arg(long, default_value = "bushka")]
    pub game: GameKind,
    /// PDN files to mine (self-play output or any games of this game).
    #[arg(long, required = true, num_args = 1..)]
    pub pdn: Vec<PathBuf>,
    /// The problem set to write: `position<TAB>solution<TAB>motif<TAB>gain`
    /// per line; the report goes beside it (extension `.md`).
    #[arg(long, default_value = "tactics.tsv")]
    pub out: PathBuf,
    /// Plies of the shallow look that must miss the combination.
    #[arg(long, default_value_t = MineConfig::default().shallow)]
    pub shallow: u32,
    /// Depth of the search that finds it.
    #[arg(long, default_value_t = MineConfig::default().deep)]
    pub deep: u32,
    /// Depth of the search that confirms it.
    #[arg(long, default_value_t = MineConfig::default().verify)]
    pub verify: u32,
    /// Least material gain, in centi-men (a man is 100).
    #[arg(long, default_value_t = MineConfig::default().min_gain)]
    pub min_gain: i32,
    /// Table size of each search thread, in MiB.
    #[arg(long, default_value_t = MineConfig::default().hash)]
    pub hash: HashSize,
    /// Evaluation of the searches.
    #[command(flatten)]
    pub eval: super::BuiltInEval,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Options of `bushka tactics solve`.
#[derive(clap::Args, Debug, Clone)]
pub struct SolveArgs {
    /// The game: bushka or bashnya.
    #[arg(long, default_value = "bushka")]
    pub game: GameKind,
    /// A problem set written by `bushka tactics mine`.
    #[arg(long)]
    pub problems: PathBuf,
    /// Search depth per problem.
    #[arg(long, default_value_t = 6)]
    pub depth: u32,
    /// Evaluation of the search.
    #[command(flatten)]
    pub eval: super::BuiltInEval,
}

/// `bushka tactics`.
pub fn tactics(command: &TacticsCommand) -> Result<()> {
    match command {
        TacticsCommand::Mine(a) => with_game!(a.game, G => mine::<G>(a)),
        TacticsCommand::Solve(a) => with_game!(a.game, G => solve::<G>(a)),
    }
}

/// Reads every game, mines its positions, writes the set and the report.
fn mine<G: EvalSource + Motifs + Drawable>(args: &MineArgs) -> Result<()>
where
    Material: Evaluator<G>,
{
    let cfg = MineConfig {
        shallow: args.shallow,
        deep: args.deep,
        verify: args.verify,
        min_gain: args.min_gain,
        hash: args.hash,
        eval: args.eval.kind,
    };
    cfg.check().map_err(|e| anyhow!(e))?;
    if args.out.extension().is_some_and(|e| e == "md") {
        bail!(
            "--out {}: the report is written beside the set as .md; name the set otherwise (say tactics.tsv)",
            args.out.display()
        );
    }
    // No output may replace an input game file or another output.
    let report = args.out.with_extension("md");
    let journal_path = inventory::journal_of(&args.out);
    let mut files: Vec<(&str, Option<&Path>)> = vec![
        ("--out", Some(args.out.as_path())),
        ("the report", Some(report.as_path())),
        ("the journal", Some(journal_path.as_path())),
    ];
    files.extend(args.pdn.iter().map(|p| ("--pdn", Some(p.as_path()))));
    selfplay::output::distinct_outputs(&files).map_err(|e| anyhow!(e))?;
    selfplay::output::writable_file_with_sides("--out", &args.out).map_err(|e| anyhow!(e))?;
    let clock = std::time::Instant::now();
    // The inputs as the journal names them, checked (files, each read the
    // same again) before they are read.
    let inputs = args
        .pdn
        .iter()
        .map(|p| inventory::input_key(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow!(e))?
        .join(", ");
    let inventory::GamesRead {
        games,
        all,
        positions,
    } = inventory::read_games::<G>(&args.pdn).map_err(|e| anyhow!(e))?;
    let settings = format!(
        "bushka tactics mine --game {} --shallow {} --deep {} --verify {} --min-gain {} --eval {}",
        args.game.name(),
        cfg.shallow,
        cfg.deep,
        cfg.verify,
        cfg.min_gain,
        cfg.eval.name()
    );
    // The journal: every position's result as it is found, so that a run
    // stopped and started again goes on where it was. It is keyed by the
    // settings, the inputs and the evaluation (its kind and weights, which
    // decide what is found).
    let eval_id = engine::eval::eval_id::<G>(None, cfg.eval).map_err(|e| anyhow!("--eval: {e}"))?;
    let journal_key = format!(
        "{settings} --hash {}; bushka {}, evaluation {eval_id}; {inputs}",
        cfg.hash,
        env!("CARGO_PKG_VERSION"),
    );
    let inventory::Journal {
        done,
        file: journal,
        lock,
    } = inventory::open_journal::<G>(&journal_path, &journal_key).map_err(|e| anyhow!(e))?;
    let distinct = tactics::distinct(&positions).len();
    let bar = engine::progress::bar(distinct as u64, "positions", !args.quiet);
    bar.set_position(done.len().min(distinct) as u64);
    if !done.is_empty() {
        bar.suspend(|| {
            eprintln!(
                "going on from {}: {} of {distinct} positions looked at",
                journal_path.display(),
                done.len()
            );
        });
    }
    // A journal that cannot be written is given up (the mining goes on and
    // the set is written; only a later resume loses): the first error is
    // reported at the end.
    let failed = std::sync::Mutex::new(None::<String>);
    let journal = std::sync::Mutex::new(Some(journal));
    let found = tactics::mine(&positions, &cfg, &done, &|hash, t| {
        let line = tactics::journal_line(hash, t) + "\n";
        let mut slot = journal
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(file) = slot.as_mut() {
            if let Err(e) = std::io::Write::write_all(file, line.as_bytes()) {
                *slot = None;
                failed
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .get_or_insert_with(|| format!("writing {}: {e}", journal_path.display()));
            }
        }
        bar.inc(1);
    })
    .map_err(|e| anyhow!(e))?;
    bar.finish_and_clear();
    let failed = failed
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(e) = &failed {
        eprintln!("warning: {e}; the journal was given up, the set is whole");
    }
    let seconds = clock.elapsed().as_secs_f64();
    let mut set = String::from("# position\tsolution\tmotif\tgain (centi-men, or win)\n");
    for t in &found {
        let _ = writeln!(set, "{}", t.problem_line());
    }
    write(&args.out, set.as_bytes())?;
    let examples = inventory::examples(&found);
    let drawn = draw_best::<G>(&args.out, &examples)?;
    let facts = inventory::RunFacts {
        settings: &settings,
        games,
        positions: (all, distinct),
        seconds,
        resumed: done.len(),
    };
    let md = inventory::report_text(&found, &examples, &facts, &drawn);
    write(&report, md.as_bytes())?;
    // The set and the report are written: the journal has done its work.
    drop(journal);
    drop(lock);
    match std::fs::remove_file(&journal_path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => bail!("removing {}: {e}", journal_path.display()),
    }
    let resumed = if done.is_empty() {
        String::new()
    } else {
        format!(", going on from {} positions of a stopped run", done.len())
    };
    outln!(
        "{} tactics in {distinct} distinct positions of {games} games ({seconds:.0} s{resumed}); wrote {} and {}",
        found.len(),
        args.out.display(),
        report.display()
    );
    Ok(())
}

/// Writes a file atomically, naming it in an error.
fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    engine::files::write_atomic(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// Draws the examples the report shows into `<out stem>.diagrams/` with the
/// board renderer of `bushka serve`; returns each drawn position's file,
/// relative to the report.
fn draw_best<G: Game + Drawable>(
    out: &Path,
    examples: &BTreeMap<&str, inventory::Examples>,
) -> Result<BTreeMap<String, String>> {
    let stem = out
        .file_stem()
        .map_or_else(|| "tactics".into(), |s| s.to_string_lossy().into_owned());
    let folder_name = format!("{stem}.diagrams");
    let folder = out.with_file_name(&folder_name);
    let mut drawn = BTreeMap::new();
    let mut boards = Vec::new();
    for e in examples.values() {
        for t in &e.best {
            if drawn.contains_key(&t.position) {
                continue;
            }
            let pos = G::parse_position(&t.position).map_err(|e| anyhow!("{e}"))?;
            let name = format!("{}.svg", drawn.len() + 1);
            boards.push((name.clone(), pos.board_view()));
            drawn.insert(t.position.clone(), format!("{folder_name}/{name}"));
        }
    }
    super::write_diagrams(&folder, &boards)?;
    Ok(drawn)
}

/// Searches each problem and counts how often the first move is the solution's.
fn solve<G: EvalSource>(args: &SolveArgs) -> Result<()> {
    if args.depth == 0 || args.depth > 40 {
        bail!("--depth {}: expected 1 to 40", args.depth);
    }
    let text = engine::files::read_to_string_capped(&args.problems, engine::files::MAX_TEXT_FILE)
        .with_context(|| format!("{}", args.problems.display()))?;
    let eval = G::select_eval(None, args.eval.kind).map_err(|e| anyhow!("--eval: {e}"))?;
    let mut engine = Engine::<G>::try_new(HashSize::fixed(16), 1).map_err(|e| anyhow!(e))?;
    let (mut solved, mut total) = (0, 0);
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let problem = tactics::parse_problem::<G>(line)
            .map_err(|e| anyhow!("{} line {}: {e}", args.problems.display(), i + 1))?;
        let want = problem.solution[0];
        let pos = problem.position;
        engine.clear();
        let r = engine.search(
            eval.as_ref(),
            &SearchInput::new(pos, Limits::depth(args.depth)),
            |_| {},
        );
        total += 1;
        if r.best == Some(want) {
            solved += 1;
        }
    }
    if total == 0 {
        bail!(
            "{} holds no problems (only blank and # lines)",
            args.problems.display()
        );
    }
    outln!(
        "solved {solved} of {total} at depth {} ({:.0}%)",
        args.depth,
        100.0 * f64::from(solved) / f64::from(total)
    );
    Ok(())
}
