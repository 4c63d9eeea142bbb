//! `atlas`: every opening line measured, ranked and classified (the
//! research crate's atlas), with a progress bar, resumable and shardable.

use anyhow::{anyhow, bail, Context, Result};
use engine::eval::{EvalKind, EvalSource, Evaluator, Material};
use engine::tt::HashSize;
use engine::{with_game, GameKind};
use research::atlas::{self, AtlasConfig};
use selfplay::shard::Shard;
use std::path::{Path, PathBuf};
use web::view::Drawable;

/// Options of `bushka atlas`.
#[derive(clap::Args, Debug, Clone)]
pub struct AtlasArgs {
    /// The game: bushka or bashnya.
    #[arg(long, default_value = "bushka")]
    pub game: GameKind,
    /// Longest opening line, in plies (1 or 2); every shorter line is measured too.
    #[arg(long, default_value_t = AtlasConfig::default().plies)]
    pub plies: usize,
    /// Time per move of the games from each line, in milliseconds (default 40).
    #[arg(long, conflicts_with = "game_depth")]
    pub movetime: Option<u64>,
    /// Depth per move of the games instead of a move time: such games all
    /// repeat the first, so a line plays one pair (for quick checks).
    #[arg(long)]
    pub game_depth: Option<u32>,
    /// Games per line, counted in pairs (odd numbers round up; default 20,
    /// or 2 with --game-depth).
    #[arg(long)]
    pub games: Option<usize>,
    /// Depth of the deep search of each line's position.
    #[arg(long, default_value_t = AtlasConfig::default().search_depth)]
    pub search_depth: u32,
    /// Games played at once (default: the number of cores).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Table size of each engine, in MiB.
    #[arg(long, default_value_t = AtlasConfig::default().hash)]
    pub hash: HashSize,
    /// Evaluation of the deep search and of the games.
    #[command(flatten)]
    pub eval: super::BuiltInEval,
    /// Measure only the lines of shard K of N (`K/N`); shards share the folder.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// The folder of results and report (created; a run over a folder that
    /// holds results goes on from them).
    #[arg(long, default_value = "atlas")]
    pub out: PathBuf,
    /// Only write the report from the results already in the folder.
    #[arg(long)]
    pub report_only: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Main alleys drawn as diagrams in the report.
const DIAGRAMS: usize = 6;

/// `bushka atlas`.
pub fn atlas(args: &AtlasArgs) -> Result<()> {
    with_game!(args.game, G => run::<G>(args))
}

/// The configuration the options describe.
fn config(args: &AtlasArgs) -> Result<AtlasConfig> {
    let defaults = AtlasConfig::default();
    let cfg = AtlasConfig {
        plies: args.plies,
        search_depth: args.search_depth,
        movetime: match (args.movetime, args.game_depth) {
            (None, None) => defaults.movetime,
            (m, _) => m,
        },
        game_depth: args.game_depth,
        games: match (args.games, args.game_depth) {
            (Some(g), _) => g,
            (None, Some(_)) => atlas::FIXED_DEPTH_GAMES,
            (None, None) => defaults.games,
        },
        concurrency: args.concurrency.unwrap_or(defaults.concurrency),
        hash: args.hash,
        eval: args.eval.kind,
        shard: args.shard,
        ..defaults
    };
    if args.report_only {
        // A report measures nothing: any folder's settings may be read back,
        // bounded only so that the list of lines stays small.
        if !(1..=atlas::MAX_REPORT_PLIES).contains(&cfg.plies) {
            bail!(
                "--plies {}: a report reads lines of 1 to {} plies",
                cfg.plies,
                atlas::MAX_REPORT_PLIES
            );
        }
    } else {
        cfg.check().map_err(|e| anyhow!(e))?;
    }
    Ok(cfg)
}

/// Measures what is left, then writes the report.
fn run<G: EvalSource + Drawable>(args: &AtlasArgs) -> Result<()>
where
    Material: Evaluator<G>,
{
    let cfg = config(args)?;
    // A report is of results measured before: a folder to make is a typo.
    if args.report_only && !args.out.is_dir() {
        bail!(
            "--report-only: {} is not a folder of atlas results (run without --report-only to measure)",
            args.out.display()
        );
    }
    if args.out.exists() && !args.out.is_dir() {
        bail!("--out {}: not a folder", args.out.display());
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    // One run measures into a results file at a time (a shard started
    // twice would measure its lines twice); locked before it is read.
    let results = cfg.results_file(&args.out);
    let existed = results.exists();
    let lock = if args.report_only {
        None
    } else {
        Some(engine::files::lock_exclusive(&results).map_err(|e| anyhow!(e))?)
    };
    let eval = engine::eval::eval_id::<G>(None, cfg.eval).map_err(|e| anyhow!("--eval: {e}"))?;
    let checked = atlas::read_results(&args.out)
        .map_err(|e| anyhow!(e))
        .and_then(|done| {
            check_settings(
                &args.out,
                &settings(args, &cfg),
                &eval,
                args.report_only,
                !done.is_empty(),
            )?;
            Ok(done)
        });
    let done = match checked {
        Ok(done) => done,
        Err(e) => {
            // A refused run leaves no empty results file of its own behind.
            if lock.is_some() && !existed && std::fs::metadata(&results).is_ok_and(|m| m.len() == 0)
            {
                let _ = std::fs::remove_file(&results);
            }
            return Err(e);
        }
    };
    if !args.report_only {
        measure::<G>(args, &cfg, &done)?;
    } else if done.is_empty() {
        bail!(
            "--report-only: {} holds no atlas results (run without --report-only to measure)",
            args.out.display()
        );
    }
    write_report::<G>(args, &cfg)
}

/// The settings as the report states them (the shard left out: shards of
/// one run share them).
fn settings(args: &AtlasArgs, cfg: &AtlasConfig) -> String {
    let games = match (cfg.movetime, cfg.game_depth) {
        (Some(ms), _) => format!("--movetime {ms}"),
        (None, Some(d)) => format!("--game-depth {d}"),
        (None, None) => String::new(),
    };
    // `--eval auto` is left out: folders made before the option read on.
    let eval = match cfg.eval {
        EvalKind::Auto => String::new(),
        e => format!(" --eval {}", e.name()),
    };
    format!(
        "bushka atlas --game {} --plies {} {games} --games {} --search-depth {} --hash {}{eval}",
        args.game.name(),
        cfg.plies,
        cfg.games,
        cfg.search_depth,
        cfg.hash
    )
}

/// Refuses to mix results of other settings or of another evaluation into a
/// folder: the first run writes its settings and its evaluation
/// ([`engine::eval::default_eval_id`]) to `settings.txt` (created only if
/// no other run has: two shards starting at once agree or one is refused),
/// later runs must match them. Results without a `settings.txt` are
/// refused: what measured them is unknown. A report alone (`report_only`)
/// needs only the settings: it measures nothing, and writes no settings
/// into a folder that has none.
fn check_settings(
    dir: &Path,
    settings: &str,
    eval: &str,
    report_only: bool,
    has_results: bool,
) -> Result<()> {
    let file = dir.join("settings.txt");
    let text = match read_settings(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && report_only => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && has_results => bail!(
            "{} holds atlas results but no settings.txt: what measured them is unknown; \
             measure into another --out, or put back its settings.txt",
            dir.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Written whole beside it, then linked into place: the link
            // fails if another run's is there already, and a reader never
            // sees a file half written.
            // (Named by process and time: shards on other nodes share the
            // folder, and may share a process id.)
            let text = format!("{settings}\nevaluation {eval}\n");
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let aside = dir.join(format!("settings.txt.{}.{stamp}.tmp", std::process::id()));
            engine::files::write_atomic(&aside, text.as_bytes())
                .with_context(|| format!("writing {}", aside.display()))?;
            let linked = std::fs::hard_link(&aside, &file);
            let _ = std::fs::remove_file(&aside);
            match linked {
                Ok(()) => return Ok(()),
                // Another run wrote it first: its settings must be these.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    read_settings(&file).map_err(|e| anyhow!("{}: {e}", file.display()))?
                }
                // A file system without hard links: created in place.
                Err(_) => {
                    let mut f = std::fs::OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .open(&file)
                        .with_context(|| format!("creating {}", file.display()))?;
                    return std::io::Write::write_all(&mut f, text.as_bytes())
                        .and_then(|()| f.sync_all())
                        .with_context(|| format!("writing {}", file.display()));
                }
            }
        }
        Err(e) => return Err(anyhow!("{}: {e}", file.display())),
    };
    atlas::check_settings(&text, settings, eval, report_only)
        .map_err(|e| anyhow!("{} {e}", dir.display()))
}

/// A folder's `settings.txt` (two short lines: a file over 64 KiB is refused).
fn read_settings(file: &Path) -> std::io::Result<String> {
    engine::files::read_capped(file, 1 << 16).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Measures the lines not yet in the folder, appending each as it ends.
fn measure<G: EvalSource>(
    args: &AtlasArgs,
    cfg: &AtlasConfig,
    done: &std::collections::BTreeMap<String, atlas::LineResult>,
) -> Result<()>
where
    Material: Evaluator<G>,
{
    let todo = atlas::todo::<G>(cfg, done);
    let file = cfg.results_file(&args.out);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.concurrency)
        .build()
        .context("starting the game threads")?;
    let bar = engine::progress::bar(todo.len() as u64, "lines", !args.quiet);
    for (_, line) in &todo {
        bar.set_message(line.key());
        let r = atlas::measure_line::<G>(line, cfg, &pool).map_err(|e| anyhow!(e))?;
        atlas::append_result(&file, &r).map_err(|e| anyhow!(e))?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(())
}

/// Writes atlas.json, atlas.md and atlas.png from every result in the folder.
fn write_report<G: EvalSource + Drawable>(args: &AtlasArgs, cfg: &AtlasConfig) -> Result<()> {
    let results = atlas::read_results(&args.out).map_err(|e| anyhow!(e))?;
    let expected = atlas::lines::<G>(cfg.plies).len();
    // The settings and the evaluation that measured the results, as the
    // folder records them (a report alone may be given another `--eval`).
    let recorded = read_settings(&args.out.join("settings.txt")).ok();
    let evaluation = recorded
        .as_deref()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.trim().strip_prefix("evaluation "))
                .map(str::to_string)
        })
        .unwrap_or_else(|| "not recorded".to_string());
    let settings = recorded
        .as_deref()
        .and_then(|t| t.lines().next())
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map_or_else(|| settings(args, cfg), str::to_string);
    let built = research::report::build(
        args.game.name(),
        cfg.plies,
        &settings,
        &evaluation,
        expected,
        &results,
    );
    let json = serde_json::to_string_pretty(&built).context("writing the atlas as JSON")?;
    let write = |name: &str, bytes: &[u8]| {
        let path = args.out.join(name);
        engine::files::write_atomic(&path, bytes)
            .with_context(|| format!("writing {}", path.display()))
    };
    write("atlas.json", json.as_bytes())?;
    let chart = match research::chart::first_moves_png(args.game.name(), &built.first_moves) {
        Ok(png) => {
            write("atlas.png", &png)?;
            Some("atlas.png")
        }
        Err(e) => {
            eprintln!("warning: no chart: {e}");
            None
        }
    };
    let diagrams = diagrams::<G>(&args.out, &built)?;
    write(
        "atlas.md",
        research::report::markdown(&built, chart, &diagrams).as_bytes(),
    )?;
    outln!(
        "{} of {} lines measured; wrote {}",
        built.lines_measured,
        expected,
        args.out.join("atlas.md").display()
    );
    Ok(())
}

/// Draws the key positions (each main alley's position, and the one after
/// its most testing reply) into `DIR/diagrams/` with the board renderer of
/// `bushka serve`; returns `(file, caption)` pairs for the report.
fn diagrams<G: EvalSource + Drawable>(
    dir: &Path,
    built: &research::report::Atlas,
) -> Result<Vec<(String, String)>> {
    let folder = dir.join("diagrams");
    let mut boards = Vec::new();
    let by_line: std::collections::HashMap<&str, &atlas::LineResult> =
        built.lines.iter().map(|r| (r.line.as_str(), r)).collect();
    let mut out = Vec::new();
    for f in built
        .first_moves
        .iter()
        .filter(|f| f.main_alley)
        .take(DIAGRAMS)
    {
        let mut shown = vec![(&f.result, "after")];
        if let Some(r) = f.most_testing_reply.as_deref().and_then(|l| by_line.get(l)) {
            shown.push((r, "after the most testing reply"));
        }
        for (r, what) in shown {
            let pos = G::parse_position(&r.position)
                .map_err(|e| anyhow!("atlas line {}: {e}", engine::files::quoted(&r.line, 80)))?;
            let name = format!("{}.svg", r.line.replace([' ', ':'], "_"));
            boards.push((name.clone(), pos.board_view()));
            out.push((
                format!("diagrams/{name}"),
                format!("{} ({what}): White scores {:.0}%", r.line, 100.0 * r.score),
            ));
        }
    }
    super::write_diagrams(&folder, &boards)?;
    Ok(out)
}
