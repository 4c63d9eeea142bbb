//! `selfplay`, `openings` and `pdn check`: the tournament harness on the command line.

use anyhow::{anyhow, bail, Context, Result};
use engine::eval::EvalSource;
use engine::eval::{Evaluator, Material};
use engine::{with_game, GameKind};
use selfplay::game::Adjudication;
use selfplay::openings::{generate_book_with_progress, parse_book, BookRecipe};
use selfplay::spec::EngineSpec;
use selfplay::stats::Sprt;
use selfplay::tournament::{run, table, Config};
use std::path::{Path, PathBuf};

/// Options of `bushka selfplay`.
#[derive(clap::Args, Debug, Clone)]
pub struct SelfplayArgs {
    /// The game: bushka or bashnya.
    #[arg(long, default_value = "bushka")]
    pub game: GameKind,
    /// An engine: name=NAME[,kind=search|random|material][,weights=FILE][,eval=auto|features|patterns][,depth=D][,nodes=N][,movetime=MS][,tc=[MOVES/]BASE[+INC]][,threads=T][,hash=MB] (without a limit depth=4; hash=16 MiB) or name=NAME,cmd="PATH ARGS". Repeat for each engine; none runs the built-in default match.
    #[arg(long = "engine")]
    pub engines: Vec<String>,
    /// The first engine plays every other one (else round robin).
    #[arg(long)]
    pub gauntlet: bool,
    /// Games per pairing (rounded up to an even number: each opening is played with both colours).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=selfplay::tournament::MAX_GAMES as u64))]
    pub games: Option<u64>,
    /// Games played at once (default: the number of cores).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub concurrency: Option<u64>,
    /// Seed of the opening order and of random players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Opening book: one position text per line (default: the built-in book of the game).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Openings from game records: each game's position after --opening-plies plies (instead of --openings).
    #[arg(long, conflicts_with = "openings")]
    pub openings_pdn: Option<PathBuf>,
    /// Plies of each game of --openings-pdn played before the opening position [default: 8].
    #[arg(long, requires = "openings_pdn", value_parser = clap::value_parser!(u64).range(0..=1000))]
    pub opening_plies: Option<u64>,
    /// Options for every engine, KEY=VAL,... as in --engine (an engine's own options win).
    #[arg(long)]
    pub each: Option<String>,
    /// Opening order: sequential or random (seeded).
    #[arg(long, default_value = "random", value_parser = ["sequential", "random"])]
    pub order: String,
    /// Draw after this many plies.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_plies: u64,
    /// Draw after this many plies without a capture or a man move.
    #[arg(long, default_value_t = 80, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub no_progress: u64,
    /// Win adjudication: SCORE,MOVES (both engines agree for MOVES moves each that one side leads by SCORE centi-men).
    #[arg(long)]
    pub adjudicate_win: Option<String>,
    /// SPRT for a two-engine match: elo0=E0,elo1=E1,alpha=A,beta=B (normalized Elo).
    #[arg(long)]
    pub sprt: Option<String>,
    /// Game records (PDN), appended as games finish.
    #[arg(long)]
    pub pdn: Option<PathBuf>,
    /// Training data, appended as games finish (without --pdn, the game
    /// records go to DATA.pdn, for --resume).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Write each position to the data file only once, but each game's start position always (a shard writes them all; the merge keeps each once).
    #[arg(long)]
    pub dedup: bool,
    /// Summary as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Continue the run whose --pdn (and --data) files are given (with --data
    /// alone, its records are in DATA.pdn).
    #[arg(long)]
    pub resume: bool,
    /// The Event tag of the records.
    #[arg(long, default_value = "bushka selfplay")]
    pub event: String,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Folder of Bushka endgame tables: searching engines probe them, and a game
    /// reaching a position they cover is adjudicated by the table.
    #[arg(long)]
    pub tb: Option<PathBuf>,
    /// Play only part K of N of the schedule (K from 1): whole game pairs, the
    /// same games the unsharded run plays; `bushka selfplay merge` joins the parts.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<selfplay::shard::Shard>,
    /// Milliseconds a move on a game clock (tc=) may overrun it before its side loses on time.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    pub time_margin: u64,
    /// Write each move's score, depth and time into the PDN as a comment ({+0.12/9 0.040s}).
    #[arg(long)]
    pub annotate: bool,
    /// NAME=ELO: the engine the joint ratings of three or more engines are anchored on (default: the first engine at 0).
    #[arg(long)]
    pub anchor: Option<String>,
}

/// `bushka selfplay`, or one of its subcommands.
pub fn selfplay_command(c: &SelfplayCommand) -> Result<()> {
    match &c.command {
        Some(SelfplaySub::Merge(m)) => merge(m),
        None => selfplay(&c.args),
    }
}

/// `bushka selfplay` and its subcommands.
#[derive(clap::Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SelfplayCommand {
    /// A subcommand instead of a run.
    #[command(subcommand)]
    pub command: Option<SelfplaySub>,
    /// The run.
    #[command(flatten)]
    pub args: SelfplayArgs,
}

/// Subcommands of `bushka selfplay`.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum SelfplaySub {
    /// Merge the shards of a run (their --json summaries) into the files and
    /// statistics of the unsharded run.
    Merge(MergeArgs),
}

/// Options of `bushka selfplay merge`.
#[derive(clap::Args, Debug, Clone)]
pub struct MergeArgs {
    /// The merged game records.
    #[arg(long)]
    pub out_pdn: PathBuf,
    /// The merged training data (the shards must have written --data).
    #[arg(long)]
    pub out_data: Option<PathBuf>,
    /// The merged summary.
    #[arg(long)]
    pub out_json: Option<PathBuf>,
    /// Merge the shards given even when some are missing (they are named).
    #[arg(long)]
    pub partial: bool,
    /// The shards' summaries (written by `selfplay --shard K/N --json FILE`).
    #[arg(required = true, value_name = "SHARD_JSON")]
    pub shards: Vec<PathBuf>,
}

/// `bushka selfplay merge`.
fn merge(m: &MergeArgs) -> Result<()> {
    use selfplay::merge::{check, merge, read_part, MergeOutputs};
    let parts = m
        .shards
        .iter()
        .map(|p| read_part(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(anyhow::Error::msg)?;
    let set = check(parts, m.partial).map_err(anyhow::Error::msg)?;
    if !set.missing.is_empty() {
        eprintln!(
            "merging without shard(s) {}",
            selfplay::merge::shard_names(&set.missing)
        );
    }
    // Checked before anything is written: the summary comes last.
    selfplay::output::writable_places(&[
        ("--out-pdn", Some(m.out_pdn.as_path())),
        ("--out-data", m.out_data.as_deref()),
        ("--out-json", m.out_json.as_deref()),
    ])
    .map_err(anyhow::Error::msg)?;
    let out = MergeOutputs {
        pdn: m.out_pdn.clone(),
        data: m.out_data.clone(),
        json: m.out_json.clone(),
    };
    let kind = set.parts[0]
        .run
        .options
        .kind()
        .map_err(anyhow::Error::msg)?;
    let command: Vec<String> = super::command_line();
    let summary =
        with_game!(kind, G => merge::<G>(&set, &out, None, command)).map_err(anyhow::Error::msg)?;
    out!("{}", table(&summary));
    outln!(
        "{} games from {} shard(s) of run {}",
        summary.games,
        set.parts.len(),
        summary.run.id
    );
    Ok(())
}

/// `bushka selfplay`.
pub fn selfplay(a: &SelfplayArgs) -> Result<()> {
    // Records are written to --pdn, or beside a --data file (not a stream);
    // the cluster writes its shards' records whatever is given.
    let records = a.pdn.is_some() || records_beside_data(a.data.as_deref(), None).is_some();
    if a.annotate && !records && !a.resume {
        bail!(
            "--annotate writes into the game records: give --pdn (or a --data file, beside which they go)"
        );
    }
    let mut cfg = config(a)?;
    // `--resume` reads the finished games from the PDN: a run writing data
    // only keeps its records beside the data, so that it can be resumed
    // (not beside a pipe or a device, which cannot be resumed anyway).
    let beside = records_beside_data(cfg.data.as_deref(), cfg.pdn.as_deref());
    if beside.is_some() {
        cfg.pdn.clone_from(&beside);
    }
    // Written last (a cluster run writes it after making its folder).
    if let Some(json) = &a.json {
        selfplay::output::writable_place("--json", json).map_err(anyhow::Error::msg)?;
    }
    if a.engines.is_empty() {
        // What the engines play at: depth 4 unless --each says otherwise.
        let e = &cfg.engines[0];
        let how = [
            e.depth.map(|d| format!("depth {d}")),
            e.nodes.map(|n| format!("{n} nodes")),
            e.movetime.map(|m| format!("{m} ms a move")),
            e.tc.map(|tc| format!("clock {tc}")),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ");
        outln!(
            "default match: our engine against the material-only baseline ({how}), {} games",
            cfg.games.div_ceil(2) * 2
        );
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    warn_oversubscribed(&cfg, cores);
    let start = std::time::Instant::now();
    let summary = with_game!(a.game, G => run_game::<G>(&cfg))?;
    out!("{}", table(&summary));
    let secs = start.elapsed().as_secs_f64();
    // The rate counts the games played now, not those a resume read back.
    let played = summary.games.saturating_sub(summary.resumed);
    let rate = if secs > 0.0 {
        played as f64 * 60.0 / secs
    } else {
        0.0
    };
    let games = if summary.resumed > 0 {
        format!(
            "{} games: {} resumed, {played} played",
            summary.games, summary.resumed
        )
    } else {
        format!("{} games", summary.games)
    };
    outln!("{games} in {secs:.1} s ({rate:.0} games/min)");
    if let Some(p) = beside {
        outln!("game records (read by --resume) in {}", p.display());
    }
    Ok(())
}

/// The tournament `bushka selfplay` runs with these options.
pub fn config(a: &SelfplayArgs) -> Result<Config> {
    // A shard is only of use to `selfplay merge`: refused before it plays
    // if it would not leave what the merge reads.
    if let Some(shard) = a.shard {
        if a.json.is_none() || (a.pdn.is_none() && a.data.is_none()) {
            bail!(
                "--shard {shard}: a shard must write --json and --pdn (or --data), which `selfplay merge` joins"
            );
        }
    }
    let default_match = a.engines.is_empty();
    // The default match's engines take --each like any others.
    let texts: Vec<&str> = if default_match {
        vec!["name=bushka,kind=search", "name=material,kind=material"]
    } else {
        a.engines.iter().map(String::as_str).collect()
    };
    let engines: Vec<EngineSpec> = texts
        .iter()
        .map(|t| {
            let text = selfplay::spec::with_each(a.each.as_deref(), t)
                .map_err(|e| anyhow!("--each {e}"))?;
            EngineSpec::parse(&text).map_err(|e| {
                if a.each.is_some() {
                    anyhow!("--engine {} with --each: {e}", engine::files::quoted(t, 60))
                } else {
                    anyhow!("--engine {}: {e}", engine::files::quoted(t, 60))
                }
            })
        })
        .collect::<Result<_>>()?;
    if engines.len() < 2 {
        bail!("--engine given once: a tournament needs at least two engines");
    }
    let beside = records_beside_data(a.data.as_deref(), a.pdn.as_deref());
    let records = match &beside {
        Some(p) => ("the records beside --data", Some(p.as_path())),
        None => ("--pdn", a.pdn.as_deref()),
    };
    outputs_spare_inputs(a, &engines, records)?;
    if a.sprt.is_some() && engines.len() > 2 {
        bail!(
            "--sprt is for a match of two engines, not {} (a round robin or gauntlet gives joint ratings instead)",
            engines.len()
        );
    }
    // Options that would do nothing are mistakes (a run resumed keeps the
    // options it was started with, which are part of its identity).
    if a.anchor.is_some() && engines.len() < 3 && !a.resume {
        bail!(
            "--anchor is for the joint ratings of three or more engines, not {}",
            engines.len()
        );
    }
    if a.dedup && a.data.is_none() && !a.resume {
        bail!("--dedup applies to the training data: give --data too");
    }
    let book = match (&a.openings, &a.openings_pdn) {
        (Some(p), _) => read_book(p)?,
        (None, Some(p)) => {
            with_game!(a.game, G => pdn_book::<G>(p, a.opening_plies.unwrap_or(8) as usize))?
        }
        (None, None) => with_game!(a.game, G => G::OPENING_BOOK).to_string(),
    };
    let openings: Vec<String> = book
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    let (win_score, win_moves) = match &a.adjudicate_win {
        Some(t) => {
            let (s, m) =
                selfplay::game::parse_win(t).map_err(|e| anyhow!("--adjudicate-win: {e}"))?;
            (Some(s), m)
        }
        None => (None, 4),
    };
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let cfg = Config {
        engines,
        gauntlet: a.gauntlet,
        games: a.games.unwrap_or(if default_match { 40 } else { 100 }) as usize,
        concurrency: a.concurrency.map_or(cores, |c| c as usize),
        seed: a.seed,
        openings,
        random_order: a.order == "random",
        adjudication: Adjudication {
            max_plies: a.max_plies as usize,
            no_progress_plies: a.no_progress as usize,
            win_score,
            win_moves,
        },
        sprt: a
            .sprt
            .as_deref()
            .map(|t| Sprt::parse(t).map_err(|e| anyhow!("--sprt: {e}")))
            .transpose()?,
        pdn: a.pdn.clone(),
        data: a.data.clone(),
        dedup: a.dedup,
        json: a.json.clone(),
        resume: a.resume,
        progress: !a.quiet,
        event: a.event.clone(),
        tb: a.tb.clone(),
        shard: a.shard,
        command: super::command_line(),
        time_margin: std::time::Duration::from_millis(a.time_margin),
        annotate: a.annotate,
        anchor: a.anchor.clone(),
    };
    Ok(cfg)
}

/// The PDN file kept beside a data file when no `--pdn` is given, so that
/// the run can be resumed (not beside a pipe or a device, which cannot be
/// resumed anyway).
fn records_beside_data(data: Option<&Path>, pdn: Option<&Path>) -> Option<PathBuf> {
    match (data, pdn) {
        (Some(data), None) if engine::files::replaces_a_file(data) => {
            Some(engine::files::with_suffix(data, ".pdn"))
        }
        _ => None,
    }
}

/// Refuses outputs that would replace an input (the opening book or
/// records, an engine's weights) or each other. `pdn` is the records'
/// file, given or implied, and what to call it.
fn outputs_spare_inputs(
    a: &SelfplayArgs,
    engines: &[EngineSpec],
    pdn: (&str, Option<&Path>),
) -> Result<()> {
    let outputs = [
        pdn,
        ("--data", a.data.as_deref()),
        ("--json", a.json.as_deref()),
    ];
    let weights: Vec<(String, &Path)> = engines
        .iter()
        .filter_map(|e| {
            let file = engine::eval::weights_file(e.weights.as_deref())?;
            Some((format!("engine {}'s weights=", e.name), Path::new(file)))
        })
        .collect();
    let inputs: Vec<(&str, Option<&Path>)> = [
        ("--openings", a.openings.as_deref()),
        ("--openings-pdn", a.openings_pdn.as_deref()),
    ]
    .into_iter()
    .chain(weights.iter().map(|(o, p)| (o.as_str(), Some(*p))))
    .collect();
    selfplay::output::spare_inputs(&outputs, &inputs).map_err(anyhow::Error::msg)
}

/// Warns when the games played at once could ask for more threads than
/// the machine has cores (timed games then lose time to each other).
fn warn_oversubscribed(cfg: &Config, cores: usize) {
    let threads = cfg.engines.iter().map(|e| e.threads).max().unwrap_or(1);
    let at_once = selfplay::tournament::games_at_once(cfg);
    if threads * at_once > cores {
        eprintln!(
            "warning: {at_once} games at once with up to {threads} search threads each need {} cores; this machine has {cores}",
            threads * at_once
        );
    }
}

/// The longest `--openings` book read: far beyond any real book (a million
/// positions take about 100 MB), short of filling the memory with a file
/// named by mistake (`/dev/zero`).
const MAX_BOOK: u64 = 256 << 20;

/// The text of an `--openings` book.
fn read_book(path: &Path) -> Result<String> {
    let bytes = engine::files::read_capped(path, MAX_BOOK)
        .with_context(|| format!("cannot read --openings {}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| anyhow!("--openings {}: not UTF-8 text", path.display()))
}

/// An opening book (position texts, one a line) from the games of a PDN
/// file, each after its first `plies` plies.
fn pdn_book<G: engine::Game>(path: &PathBuf, plies: usize) -> Result<String> {
    let f = std::fs::File::open(path)
        .with_context(|| format!("cannot read --openings-pdn {}", path.display()))?;
    let book = selfplay::openings::book_from_pdn::<G, _>(std::io::BufReader::new(f), plies)
        .map_err(|e| anyhow!("--openings-pdn {}: {e}", path.display()))?;
    let short = book.short;
    if book.positions.is_empty() {
        bail!(
            "--openings-pdn {}: no game has {plies} plies ({short} shorter or over by then)",
            path.display()
        );
    }
    if short > 0 {
        eprintln!(
            "--openings-pdn {}: {short} game(s) shorter than {plies} plies or over by then skipped",
            path.display()
        );
    }
    if book.repeated > 0 {
        eprintln!(
            "--openings-pdn {}: {} game(s) reaching a position an earlier game reached skipped (each position is one opening)",
            path.display(),
            book.repeated
        );
    }
    Ok(book
        .positions
        .iter()
        .map(engine::Game::to_text)
        .collect::<Vec<_>>()
        .join("\n"))
}

fn run_game<G: EvalSource>(cfg: &Config) -> Result<selfplay::tournament::Summary>
where
    Material: Evaluator<G>,
{
    parse_book::<G>(&cfg.openings.join("\n")).map_err(anyhow::Error::msg)?;
    run::<G>(cfg).map_err(anyhow::Error::msg)
}

/// Options of `bushka openings`.
#[derive(clap::Args, Debug, Clone)]
pub struct OpeningsArgs {
    /// The game: bushka or bashnya.
    #[arg(long, default_value = "bushka")]
    pub game: GameKind,
    /// Positions wanted.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub count: u64,
    /// Fewest random plies from the start.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(0..=200))]
    pub min_plies: u64,
    /// Most random plies from the start.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(0..=200))]
    pub max_plies: u64,
    /// Depth of the balance check.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=30))]
    pub depth: u32,
    /// Largest accepted absolute score, centi-men.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(i32).range(0..=100_000))]
    pub max_score: i32,
    /// Seed of the random plies.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub evaluation: super::analyze::EvalArgs,
    /// Output file (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// `bushka openings`: random plies filtered by a short search.
pub fn openings(a: &OpeningsArgs) -> Result<()> {
    if a.min_plies > a.max_plies {
        bail!(
            "--min-plies {} is more than --max-plies {}",
            a.min_plies,
            a.max_plies
        );
    }
    // The book may not replace the weights it is made with, and is not
    // made to be lost at the end for want of a place to write it.
    selfplay::output::distinct_outputs(&[
        ("--out", a.out.as_deref()),
        ("--weights", a.evaluation.weights_file()),
    ])
    .map_err(anyhow::Error::msg)?;
    if let Some(out) = &a.out {
        selfplay::output::writable_place("--out", out).map_err(anyhow::Error::msg)?;
    }
    let recipe = BookRecipe {
        count: a.count as usize,
        min_plies: a.min_plies as usize,
        max_plies: a.max_plies as usize,
        depth: a.depth,
        max_score: a.max_score,
        seed: a.seed,
    };
    let lines = with_game!(a.game, G => book_lines::<G>(&recipe, &a.evaluation, a.quiet))?;
    let evaluation = a.evaluation.describe();
    let header = format!(
        "# {} openings: {}-{} random plies from the start (seed {}), kept when a depth-{} search with {evaluation} scores within +-{} and the position is new\n",
        a.game.name(), a.min_plies, a.max_plies, a.seed, a.depth, a.max_score
    );
    if lines.is_empty() {
        anyhow::bail!(
            "no balanced position found (a score within +-{} at depth {}): nothing written",
            a.max_score,
            a.depth
        );
    }
    let text = header + &lines.join("\n") + "\n";
    if lines.len() < recipe.count {
        eprintln!(
            "only {} balanced positions found of {} wanted",
            lines.len(),
            recipe.count
        );
    }
    match &a.out {
        Some(p) => selfplay::output::write_atomic(p, &text).map_err(anyhow::Error::msg)?,
        None => out!("{text}"),
    }
    Ok(())
}

fn book_lines<G: EvalSource>(
    recipe: &BookRecipe,
    evaluation: &super::analyze::EvalArgs,
    quiet: bool,
) -> Result<Vec<String>> {
    let eval = evaluation.evaluator::<G>()?;
    let bar = engine::progress::bar(recipe.count as u64, "positions", !quiet);
    let book = generate_book_with_progress::<G, _>(recipe, &*eval, &bar);
    bar.finish_and_clear();
    Ok(book.iter().map(|p| engine::Game::to_text(p)).collect())
}

/// `bushka pdn check FILE`: replays every game and reports illegal moves.
pub fn pdn_check(file: &PathBuf, game: Option<GameKind>) -> Result<()> {
    use selfplay::pdn::{replay, PdnReader};
    if file.is_dir() {
        bail!("{} is a folder, not a PDN file", file.display());
    }
    let f = std::fs::File::open(file).with_context(|| format!("cannot open {}", file.display()))?;
    let (mut ok, mut bad) = (0u64, 0u64);
    for (i, rec) in PdnReader::new(std::io::BufReader::new(f)).enumerate() {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                outln!("game {}: {e}", i + 1);
                bad += 1;
                continue;
            }
        };
        // The record's [GameType] decides; --game is for records without one.
        let guessed = rec.game_type.is_empty() && game.is_none();
        let kind = rec.game_kind().or(game).unwrap_or(GameKind::Bushka);
        let r = with_game!(kind, G => replay::<G>(&rec).map(|_| ()));
        match r {
            Ok(()) => ok += 1,
            Err(e) => {
                // Read as Bushka for want of a tag: say so, the error may
                // be that the game is Bashnya.
                let hint = if guessed {
                    " (no [GameType] tag: read as bushka; give --game bashnya for Bashnya)"
                } else {
                    ""
                };
                outln!(
                    "game {} (round {}): {e}{hint}",
                    i + 1,
                    engine::files::quoted(&rec.round, 40)
                );
                bad += 1;
            }
        }
    }
    outln!("{ok} games legal, {bad} with errors");
    if ok + bad == 0 {
        bail!("no game in {}", file.display());
    }
    if bad > 0 {
        bail!("{bad} game(s) in {} did not replay", file.display());
    }
    Ok(())
}
