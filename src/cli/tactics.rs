//! `tactics`: mine combinations from games into a problem set, and solve a
//! problem set with the engine (the research crate's inventory of tactics).

use anyhow::{anyhow, bail, Context, Result};
use engine::eval::{EvalSource, Evaluator, Material};
use engine::search::{Engine, Limits, SearchInput};
use engine::tt::HashSize;
use engine::{with_game, Game, GameKind};
use research::tactics::{self, MineConfig, Motifs, Tactic};
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
    let journal_path = journal_of(&args.out);
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
        .map(|p| input_key(p))
        .collect::<Result<Vec<_>>>()?
        .join(", ");
    let (games, positions) = read_games::<G>(&args.pdn)?;
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
    let (done, journal, lock) = open_journal::<G>(&journal_path, &journal_key)?;
    let distinct = tactics::distinct(&positions).len();
    let bar = if args.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(distinct as u64)
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "positions {pos}/{len} {wide_bar} [{elapsed_precise}<{eta_precise}]",
    ) {
        bar.set_style(style);
    }
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
    let examples = examples(&found);
    let drawn = draw_best::<G>(&args.out, &examples)?;
    let counts = (positions.len(), distinct);
    let md = report_text(
        &found,
        &examples,
        &settings,
        games,
        counts,
        (seconds, done.len()),
        &drawn,
    );
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

/// The journal of a mining run writing `out`: `OUT.partial.jsonl`.
fn journal_of(out: &Path) -> PathBuf {
    engine::files::with_suffix(out, ".partial.jsonl")
}

/// Reads a journal left by a stopped run (its first line the settings and
/// inputs it mined, then `{"hash": H, "tactic": T or null}` a position) and
/// opens it, locked, to append; a new journal starts with `key`. A journal
/// of other settings or inputs is refused; a last line cut short by a stop
/// is cut off. Returns what is done, the file to append to, and the handle
/// holding the lock.
fn open_journal<G: Game>(
    path: &Path,
    key: &str,
) -> Result<(tactics::Mined, std::fs::File, std::fs::File)> {
    let head = serde_json::json!({ "settings": key }).to_string();
    // Locked before anything is read or cut: one run writes a journal.
    let lock = engine::files::lock_exclusive(path).map_err(|e| anyhow!(e))?;
    let mut file = engine::files::append_after_whole_lines(path, |tail| {
        tail == head.as_bytes() || tactics::parse_journal_line::<G>(tail).is_ok()
    })
    .with_context(|| format!("{}", path.display()))?;
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    let mut lines = text.lines();
    match lines.next() {
        None => std::io::Write::write_all(&mut file, format!("{head}\n").as_bytes())
            .with_context(|| format!("{}", path.display()))?,
        Some(first) if first == head => {}
        Some(first) => bail!(
            "{} is the journal of another mining run ({}); remove it, or mine as it did",
            path.display(),
            engine::files::quoted(first, 200)
        ),
    }
    let mut done = tactics::Mined::new();
    for (i, line) in lines.enumerate() {
        let (hash, tactic) = tactics::parse_journal_line::<G>(line.as_bytes())
            .map_err(|e| anyhow!("{} line {}: {e}", path.display(), i + 2))?;
        done.insert(hash, tactic);
    }
    Ok((done, file, lock))
}

/// What a journal's settings line names an input by: its canonical path
/// (the same file however the command spells it), its size and a hash of
/// its bytes (an input changed since is another input).
fn input_key(path: &Path) -> Result<String> {
    // A file (a pipe or a device would not read the same again, and is
    // read once more for the games), hashed in blocks.
    let file = std::fs::File::open(path).with_context(|| format!("{}", path.display()))?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        bail!("{}: not a regular file", path.display());
    }
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let (mut hash, mut size) = (engine::zobrist::FNV1A_START, 0usize);
    loop {
        let block = std::io::BufRead::fill_buf(&mut reader)
            .with_context(|| format!("{}", path.display()))?;
        if block.is_empty() {
            break;
        }
        hash = engine::zobrist::fnv1a(hash, block);
        let n = block.len();
        size += n;
        std::io::BufRead::consume(&mut reader, n);
    }
    let canonical = std::fs::canonicalize(path).with_context(|| format!("{}", path.display()))?;
    Ok(format!(
        "{} ({size} bytes, fnv1a {hash:016x})",
        canonical.display()
    ))
}

/// Writes a file atomically, naming it in an error.
fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    engine::files::write_atomic(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// Every position of every game in the files, with where it is from.
fn read_games<G: Game>(files: &[PathBuf]) -> Result<(usize, Vec<(String, G)>)> {
    let mut games = 0;
    let mut positions = Vec::new();
    for file in files {
        let f = std::fs::File::open(file).with_context(|| format!("{}", file.display()))?;
        let reader = selfplay::pdn::PdnReader::new(std::io::BufReader::new(f));
        let before = games;
        for (i, record) in reader.enumerate() {
            let record = record.map_err(|e| anyhow!("{}: {e}", file.display()))?;
            let replay = selfplay::pdn::replay::<G>(&record)
                .map_err(|e| anyhow!("{} game {}: {e}", file.display(), i + 1))?;
            games += 1;
            let name = file.file_name().map_or_else(
                || file.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            for (source, pos) in tactics::positions_of(&replay, i + 1) {
                positions.push((format!("{name} {source}"), pos));
            }
        }
        // A file of no game is a mistake (the wrong file), not a set of
        // no tactics.
        if games == before {
            bail!("no game in {}", file.display());
        }
    }
    Ok((games, positions))
}

/// What the report gives of one motif.
struct Examples<'a> {
    /// Its tactics.
    count: usize,
    /// Those that begin with a sacrifice.
    sacrifices: usize,
    /// The ones shown: wins first, then the largest gains, three at most.
    best: Vec<&'a Tactic>,
}

/// The tactics by motif, with the examples shown of each.
fn examples(found: &[Tactic]) -> BTreeMap<&str, Examples<'_>> {
    let mut by_motif: BTreeMap<&str, Vec<&Tactic>> = BTreeMap::new();
    for t in found {
        by_motif.entry(t.motif.as_str()).or_default().push(t);
    }
    by_motif
        .into_iter()
        .map(|(motif, mut list)| {
            let sacrifices = list
                .iter()
                .filter(|t| t.first_move_kind == "sacrifice")
                .count();
            let count = list.len();
            list.sort_by_key(|t| std::cmp::Reverse(t.gain.unwrap_or(i32::MAX)));
            list.truncate(3);
            (
                motif,
                Examples {
                    count,
                    sacrifices,
                    best: list,
                },
            )
        })
        .collect()
}

/// The report: counts per motif and the best examples of each. `resumed`
/// is how many positions an earlier, stopped run looked at (its time is
/// not in `seconds`).
fn report_text(
    found: &[Tactic],
    examples: &BTreeMap<&str, Examples>,
    settings: &str,
    games: usize,
    (positions, distinct): (usize, usize),
    (seconds, resumed): (f64, usize),
    drawn: &BTreeMap<String, String>,
) -> String {
    let time = if resumed == 0 {
        format!("{seconds:.0} s")
    } else {
        format!("{seconds:.0} s for the positions left after a stopped run had looked at {resumed}")
    };
    let mut md = String::from("# Inventory of tactics\n\n");
    let _ = writeln!(
        md,
        "Positions where the side to move has a forced gain (at least the \
         minimum material by the end of the line, or the game) that begins with \
         a sacrifice or a quiet move, that a shallow look misses and a deeper \
         search confirms (docs/tactics.md).\n\nSettings: `{settings}`. Games: \
         {games}; positions: {positions}, {distinct} of them distinct (each looked at \
         once); tactics: {}; time: {time}.\n",
        found.len()
    );
    let _ = writeln!(md, "| motif | tactics | sacrifices | quiet moves |");
    let _ = writeln!(md, "| --- | ---: | ---: | ---: |");
    for (motif, e) in examples {
        let _ = writeln!(
            md,
            "| {motif} | {} | {} | {} |",
            e.count,
            e.sacrifices,
            e.count - e.sacrifices
        );
    }
    for (motif, e) in examples {
        let _ = writeln!(md, "\n## {motif}\n");
        for t in &e.best {
            let gain = t
                .gain
                .map_or_else(|| "wins".to_string(), |g| format!("gains {g}"));
            let _ = writeln!(
                md,
                "* `{}` ({}): `{}` {gain} ({}, score {}); a shallow look plays `{}`",
                t.position,
                t.source,
                t.solution.join(" "),
                t.first_move_kind,
                t.score,
                t.shallow_move
            );
            if let Some(file) = drawn.get(&t.position) {
                let _ = writeln!(md, "\n  ![{}]({file})\n", t.position);
            }
        }
    }
    md
}

/// Draws the examples the report shows into `<out stem>.diagrams/` with the
/// board renderer of `bushka serve`; returns each drawn position's file,
/// relative to the report.
fn draw_best<G: Game + Drawable>(
    out: &Path,
    examples: &BTreeMap<&str, Examples>,
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
