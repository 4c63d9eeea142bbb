//! `tune`: fit evaluation weights to self-play training data (Texel-style).

use anyhow::{Context, Result};
use engine::eval::{
    EvalKind, Features, PatternEval, PatternWeights, Patterns, SharedEval, Weights,
};
use engine::{with_game, GameKind};
use std::path::{Path, PathBuf};
use tuner::{TuneConfig, TuneOutcome};

/// Options of `bushka tune`.
#[derive(clap::Args, Debug, Clone)]
pub struct TuneArgs {
    /// The game: bushka or bashnya.
    #[arg(long, default_value = "bushka")]
    pub game: GameKind,
    /// Training data written by `bushka selfplay --data` (one or more files).
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// The tuned weights file (written atomically); the loss curve goes beside
    /// it as OUT.loss.csv and OUT.loss.png (OUT's whole name, then the suffix).
    #[arg(long)]
    pub out: PathBuf,
    /// Passes over the training set.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub epochs: u64,
    /// Adam step size, in centi-men.
    #[arg(long, default_value_t = 1.0)]
    pub lr: f64,
    /// Weight of the search score in the target: 0 = game result only, 1 = score only.
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f64,
    /// Sigmoid scale per man of evaluation (default: fitted to the initial weights).
    #[arg(long)]
    pub k: Option<f64>,
    /// Share of the games held out for validation, chosen by the hash of
    /// their opening position (the two games of a pair stay together); their
    /// positions that no training game reached are the validation set.
    #[arg(long, default_value_t = 0.1)]
    pub validation: f64,
    /// Regularisation toward the initial weights: they weigh as much as this
    /// many positions where a weight is one man away from them (0: none).
    /// Default 1000 for `--eval features`, 0 for `--eval patterns` (a
    /// pattern weight is seen in far fewer positions than 1000, and the pull
    /// held nearly all of them at their start; docs/patterns.md).
    #[arg(long)]
    pub regularize: Option<f64>,
    /// Initial weights file: JSON feature weights (pattern weights start at
    /// zero) or a binary weights file. Default: the game's built-in weights
    /// of what is fitted: its feature set (data/weights/GAME.json, what
    /// `--eval features` plays) for `--eval features`, its pattern set
    /// (data/weights/GAME.patterns) for `--eval patterns`.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// Positions per Adam step; 0 for the full training set.
    #[arg(long, default_value_t = 16384)]
    pub batch: usize,
    /// Weights kept at their initial values, comma-separated (`none` for
    /// none). The default keeps the man's own weight (`man` for Bushka,
    /// `man_columns` for Bashnya): every man also has a piece-square weight,
    /// so the man's value is theirs plus it, and holding it removes the one
    /// direction in which the fit could move them all at no change in any
    /// score. It does not hold a man at 100 centi-men: the scale of the
    /// scores is set by k.
    #[arg(long, value_delimiter = ',')]
    pub freeze: Vec<String>,
    /// The loss plot (default: OUT.loss.png).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Positions whose side to move must capture: `resolve` replaces each by
    /// the quiet position at the end of its best capture line (judged by the
    /// initial weights, with their patterns for `--eval patterns`), `skip`
    /// leaves them out.
    #[arg(long, value_enum, default_value_t = Captures::Skip)]
    pub captures: Captures,
    /// What to fit: `features` (the named features, written as JSON) or
    /// `patterns` (features and pattern weights together, written as a
    /// binary weights file; docs/patterns.md). `auto` is refused: say which.
    #[arg(long, default_value = "features")]
    pub eval: EvalKind,
    /// Carry on from the fit saved in OUT.checkpoint (OUT's whole name, then the suffix),
    /// after a break or past its last epoch with a larger `--epochs`. The
    /// fit's state is saved there at most every 30 s and after the last
    /// epoch; without `--resume`, the checkpoint of a fit stopped before its
    /// end is not replaced.
    #[arg(long)]
    pub resume: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// What `bushka tune` does with capture-pending positions.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Captures {
    /// Play the captures out to a quiet position and fit that.
    Resolve,
    /// Leave them out.
    Skip,
}

/// `bushka tune`.
pub fn tune(args: &TuneArgs) -> Result<()> {
    with_game!(args.game, G => run::<G>(args))
}

/// A file beside `out`: its whole name, then `.` and `ext` (so that fits
/// whose outputs differ only in extension, `tuned.json` and
/// `tuned.patterns`, keep their own checkpoints and loss curves).
fn beside(out: &Path, ext: &str) -> PathBuf {
    engine::files::with_suffix(out, &format!(".{ext}"))
}

/// Loads, tunes and writes for one game.
fn run<G: Patterns>(args: &TuneArgs) -> Result<()> {
    if !(0.0..1.0).contains(&args.validation) {
        anyhow::bail!(
            "--validation {}: expected a fraction in [0, 1)",
            args.validation
        );
    }
    let freeze = frozen::<G>(&args.freeze)?;
    if args.eval == EvalKind::Auto {
        anyhow::bail!("--eval auto: say what to fit, features or patterns");
    }
    let patterns = args.eval == EvalKind::Patterns;
    let cfg = TuneConfig {
        epochs: args.epochs as usize,
        lr: args.lr,
        batch: args.batch,
        lambda: args.lambda,
        k: args.k,
        freeze: freeze.clone(),
        regularize: args
            .regularize
            .unwrap_or(tuner::train::default_regularize(patterns)),
        progress: !args.quiet,
        checkpoint: Some(beside(&args.out, "checkpoint")),
        resume: args.resume,
    };
    // Everything that can be refused is, before the data is read.
    cfg.check()?;
    check_files(args)?;
    let init = initial::<G>(args.init.as_deref(), patterns)?;
    let clock = std::time::Instant::now();
    let resolver = match args.captures {
        Captures::Skip => None,
        Captures::Resolve if patterns => Some(
            PatternEval::<G>::new(&init)
                .map(|e| std::sync::Arc::new(e) as SharedEval<G>)
                .ok_or_else(|| {
                    anyhow::anyhow!("the initial weights are not {}'s", G::KIND.name())
                })?,
        ),
        Captures::Resolve => Some(G::compile(init.features())),
    };
    let mut loaded = tuner::load_files_with::<G>(&args.data, args.validation, resolver, patterns)?;
    let r = &loaded.report;
    for b in &r.bad_examples {
        eprintln!("warning: skipped {b}");
    }
    if r.bad > r.bad_examples.len() as u64 {
        eprintln!(
            "warning: ... and {} more bad lines",
            r.bad - r.bad_examples.len() as u64
        );
    }
    let pending = match args.captures {
        Captures::Skip => format!("{} with a capture pending (skipped)", r.non_quiet),
        Captures::Resolve => format!(
            "{} with a capture pending ({} resolved to a quiet position, {} skipped)",
            r.non_quiet + r.resolved,
            r.resolved,
            r.non_quiet
        ),
    };
    outln!(
        "data: {} lines, {} bad (skipped), {pending}, {} terminal, \
         {} duplicates merged; {} training positions from {} games, {} validation \
         positions from {} games (split by {}) ({:.1} s)",
        r.lines,
        r.bad,
        r.terminal,
        r.duplicates,
        r.train,
        r.train_games,
        r.validation,
        r.validation_games,
        if r.split_by_opening {
            "opening"
        } else {
            "game"
        },
        clock.elapsed().as_secs_f64()
    );
    outln!(
        "stored: {:.1} MiB for {} positions ({} pattern indices each)",
        (loaded.train.memory_bytes() + loaded.validation.memory_bytes()) as f64
            / (1u64 << 20) as f64,
        loaded.train.len() + loaded.validation.len(),
        loaded.train.stride()
    );
    // One pass over the data for both checks.
    let exercised = loaded.train.exercised();
    warn_if_few(&loaded, &exercised, &freeze);
    note_unexercised::<G>(&loaded, &exercised);
    let outcome = if patterns {
        tuner::tune_patterns(&mut loaded, &init, &cfg)?
    } else {
        tuner::tune(&mut loaded, init.features(), &cfg)?
    };
    // The files first: a reader that closed the pipe must not cost the result
    // (a plot asked for that failed is reported after the summary).
    let written = write_outputs(args, &outcome)?;
    report(&outcome, &loaded, cfg.regularize)?;
    written
}

/// The loss plot's file: `--plot`, or beside `--out`.
fn plot_path(args: &TuneArgs) -> PathBuf {
    args.plot
        .clone()
        .unwrap_or_else(|| beside(&args.out, "loss.png"))
}

/// Refuses outputs that would replace an input or each other, a data file
/// named twice, and outputs that cannot be written where they are named
/// (a folder, or a folder that does not exist): found after a long fit,
/// they would cost it.
fn check_files(args: &TuneArgs) -> Result<()> {
    use selfplay::output::has_content;
    let csv = beside(&args.out, "loss.csv");
    let png = plot_path(args);
    // A fit stopped before its end is not replaced without --resume; a
    // finished one is (its weights are written).
    let checkpoint = beside(&args.out, "checkpoint");
    if args.resume {
        match tuner::Checkpoint::read(&checkpoint) {
            Ok(Some(c)) if c.epoch > args.epochs as usize => anyhow::bail!(
                "{} is at epoch {}, past --epochs {}",
                checkpoint.display(),
                c.epoch,
                args.epochs
            ),
            Ok(Some(_)) => {}
            // Earlier builds named it with OUT's extension replaced.
            Ok(None) if has_content(&args.out.with_extension("checkpoint")) => anyhow::bail!(
                "--resume: no {}, but there is {} (where earlier builds kept this fit's checkpoint, or another fit's): if it is this fit's, rename it to {}",
                checkpoint.display(),
                args.out.with_extension("checkpoint").display(),
                checkpoint.display()
            ),
            Ok(None) => eprintln!(
                "warning: --resume: no {}, the fit starts afresh",
                checkpoint.display()
            ),
            Err(e) => anyhow::bail!("{e}: remove it, or name another --out"),
        }
    } else if has_content(&checkpoint) {
        match tuner::Checkpoint::read(&checkpoint) {
            Ok(Some(c)) if c.finished() => {}
            Ok(Some(c)) => anyhow::bail!(
                "{} holds a fit stopped at epoch {} of {}: use --resume to continue it, or remove it",
                checkpoint.display(),
                c.epoch,
                c.planned
            ),
            Ok(None) => {}
            Err(e) => anyhow::bail!("{e}: remove it, or name another --out"),
        }
    }
    let mut files: Vec<(&str, Option<&Path>)> = vec![
        ("--out", Some(args.out.as_path())),
        ("the loss table", Some(csv.as_path())),
        ("the checkpoint", Some(checkpoint.as_path())),
        ("--plot", Some(png.as_path())),
        ("--init", args.init.as_deref()),
    ];
    files.extend(args.data.iter().map(|d| ("--data", Some(d.as_path()))));
    selfplay::output::distinct_outputs(&files).map_err(anyhow::Error::msg)?;
    selfplay::output::writable_file_with_sides("--out", &args.out).map_err(anyhow::Error::msg)?;
    selfplay::output::writable_place("--plot", &png).map_err(anyhow::Error::msg)
}

/// The initial weights of `--init`: a binary weights file, or JSON feature
/// weights with zero pattern weights. Without it, the built-in weights of
/// what is fitted: the pattern set for `patterns`, else the feature set
/// (whose weights differ from the pattern set's features, fitted with the
/// patterns).
fn initial<G: Patterns>(path: Option<&Path>, patterns: bool) -> Result<PatternWeights> {
    let Some(path) = path else {
        return Ok(if patterns {
            PatternWeights::default_for(G::KIND)
        } else {
            PatternWeights::zero_patterns(Weights::default_for(G::KIND))
        });
    };
    let bytes = engine::eval::read_weights_file(path)
        .with_context(|| format!("--init {}", path.display()))?;
    if engine::eval::patterns::file::is_binary(&bytes) {
        PatternWeights::from_bytes(G::KIND, &bytes)
            .map_err(|e| anyhow::anyhow!("--init {}: {e}", path.display()))
    } else {
        let w =
            Weights::load(G::KIND, path).with_context(|| format!("--init {}", path.display()))?;
        Ok(PatternWeights::zero_patterns(w))
    }
}

/// Games a free weight needs for its fit to be trusted: fewer, and the
/// tuner says so.
const GAMES_PER_WEIGHT: usize = 10;

/// Warns when the training games are few for the weights the data would move.
fn warn_if_few(loaded: &tuner::Loaded, exercised: &[bool], freeze: &[usize]) {
    let n = loaded.train.feature_count();
    let free = exercised
        .iter()
        .enumerate()
        .filter(|&(j, &used)| used && !(j < 2 * n && freeze.contains(&(j % n))))
        .count();
    let games = loaded.report.train_games;
    if games < GAMES_PER_WEIGHT * free {
        eprintln!(
            "warning: {games} training games for {free} free weights (fewer than \
             {GAMES_PER_WEIGHT} games a weight): the fit will follow these games' \
             chances more than the evaluation's; trust it only if the validation loss \
             falls and a match confirms it"
        );
    }
}

/// The feature indices named by `--freeze` (default: the game's man).
fn frozen<G: Features>(names: &[String]) -> Result<Vec<usize>> {
    let names: Vec<&str> = if names.is_empty() {
        vec![G::MATERIAL_UNIT]
    } else {
        names.iter().map(|s| s.trim()).collect()
    };
    if names == ["none"] {
        return Ok(Vec::new());
    }
    names
        .iter()
        .map(|n| {
            G::feature_index(n).ok_or_else(|| {
                anyhow::anyhow!(
                    "--freeze: '{}' is not a weight of {}",
                    engine::files::quoted(n, 60),
                    G::KIND.name()
                )
            })
        })
        .collect()
}

/// Names the features no training position has (in either half): their
/// weights keep their initial values. Some features fire only where a
/// capture is pending (`engine::eval::bushka::CAPTURE_PENDING_ONLY`), and the
/// tuner fits quiet positions only.
fn note_unexercised<G: Features>(loaded: &tuner::Loaded, used: &[bool]) {
    let n = loaded.train.feature_count();
    let idle: Vec<&str> = (0..n.min(G::NAMES.len()))
        .filter(|&j| !used[j] && !used[n + j])
        .map(|j| G::NAMES[j])
        .collect();
    if !idle.is_empty() {
        eprintln!(
            "note: {} features occur in no training position and keep their initial weights: {}",
            idle.len(),
            idle.join(", ")
        );
    }
}

/// Prints K, the losses and the exercised weights.
fn report(o: &TuneOutcome, loaded: &tuner::Loaded, pull: f64) -> Result<()> {
    let how = if o.k_fitted { "fitted" } else { "given" };
    outln!("k = {:.4} ({how})", o.k);
    if o.k_fitted && tuner::kfit::at_a_bound(o.k) {
        eprintln!(
            "warning: the fitted k {:.4} is at an end of the range searched ({} to {}): {}; \
             choose one with --k",
            o.k,
            tuner::kfit::K_MIN,
            tuner::kfit::K_MAX,
            if o.k < 1.0 {
                "the results barely follow the initial weights' evaluation"
            } else {
                "the initial weights' evaluations are on too small a scale for the results"
            }
        );
    }
    outln!("pull toward the initial weights: {pull} positions (--regularize)");
    // From the start to the epoch whose weights are kept.
    let (first, kept) = (o.curve.first(), o.curve.get(o.best_epoch));
    if let (Some(a), Some(b)) = (first, kept) {
        outln!(
            "loss: training {:.6} -> {:.6}, validation {:.6} -> {:.6} (epoch {})",
            a.train,
            b.train,
            a.validation,
            b.validation,
            o.best_epoch
        );
    }
    let run = o.curve.len().saturating_sub(1 + o.resumed);
    let resumed = if o.resumed > 0 {
        format!(" (resumed after epoch {})", o.resumed)
    } else {
        String::new()
    };
    outln!(
        "{run} epochs{resumed} in {:.1} s ({:.0} ms each over {} positions); weights of epoch {} kept; \
         {} of {} weights exercised by the data",
        o.seconds,
        1000.0 * o.seconds / run.max(1) as f64,
        loaded.train.len(),
        o.best_epoch,
        o.exercised,
        loaded.train.param_count()
    );
    Ok(())
}

/// Writes the weights file, the loss CSV and the plot; a plot asked for
/// by `--plot` that failed is the inner error (the rest is written).
fn write_outputs(args: &TuneArgs, o: &TuneOutcome) -> Result<Result<()>> {
    match &o.patterns {
        Some(p) => p.save(&args.out)?,
        None => o.weights.save(&args.out)?,
    }
    let csv = beside(&args.out, "loss.csv");
    tuner::plot::write_atomic(&csv, &tuner::plot::curve_csv(&o.curve))?;
    let png = plot_path(args);
    // The weights and the table are written: a plot that fails costs nothing
    // else. Asked for by --plot, its failure is the command's (exit 2);
    // else a warning.
    match tuner::plot::draw_png(&o.curve, &png) {
        Ok(()) => outln!(
            "wrote {}, {}, {}",
            args.out.display(),
            csv.display(),
            png.display()
        ),
        Err(e) => {
            outln!("wrote {}, {}", args.out.display(), csv.display());
            if args.plot.is_some() {
                return Ok(Err(anyhow::anyhow!(
                    "--plot: {e} (the weights and the loss table are written)"
                )));
            }
            eprintln!("warning: no loss plot: {e}");
        }
    }
    Ok(Ok(()))
}
