//! `tb`: endgame tablebases for Bushka: build, probe, statistics.

use anyhow::{anyhow, bail, Result};
use engine::bushka::tb::{BuildOptions, Material, Tablebase, DEFAULT_DIR};
use engine::bushka::Position;
use engine::search::Exact;
use engine::{Color, Game};
use std::path::PathBuf;
use std::time::Instant;

/// The tablebase commands.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum TbCommand {
    /// Build (or reuse) every table with at most N pieces.
    Build {
        /// Most pieces on the board, both sides together (2 to 5).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(2..=MAX_BUILD_PIECES as i64))]
        pieces: u8,
        /// Folder of the table files.
        #[arg(long, default_value = DEFAULT_DIR)]
        dir: PathBuf,
        /// No progress bars (the line of each material is still printed).
        #[arg(long)]
        quiet: bool,
    },
    /// The exact value of a position and its best move.
    Probe {
        /// A position text (docs/rules.md 1.8), or `start` for the initial
        /// position.
        #[arg(long)]
        position: String,
        /// Folder of the table files.
        #[arg(long, default_value = DEFAULT_DIR)]
        dir: PathBuf,
    },
    /// Wins, draws, losses and the longest result of one material.
    Stats {
        /// The material: White's pieces v Black's, K a king, M a man (KKKvK).
        #[arg(long)]
        material: String,
        /// Folder of the table files.
        #[arg(long, default_value = DEFAULT_DIR)]
        dir: PathBuf,
    },
}

/// `bushka tb ...`.
pub fn tb(cmd: &TbCommand) -> Result<()> {
    match cmd {
        TbCommand::Build { pieces, dir, quiet } => build(*pieces, dir, *quiet),
        TbCommand::Probe { position, dir } => probe(position, dir),
        TbCommand::Stats { material, dir } => stats(material, dir),
    }
}

/// `tb build`: one line per material as it is done (a build stopped and
/// run again starts after the last), then a summary per piece count.
fn build(pieces: u8, dir: &std::path::Path, quiet: bool) -> Result<()> {
    let start = Instant::now();
    let mut opts = BuildOptions::new(pieces, dir);
    opts.progress = Some(progress_bars(quiet));
    let (_, reports) = engine::bushka::tb::build(&opts).map_err(|e| anyhow!("{e}"))?;
    let mut per_count = std::collections::BTreeMap::<u8, (u64, u64, f64, u32)>::new();
    for r in &reports {
        let e = per_count.entry(r.material.total()).or_default();
        e.0 += r.positions;
        e.1 += r.bytes;
        e.2 += r.seconds;
        e.3 += 1;
    }
    for (n, (positions, bytes, seconds, count)) in per_count {
        outln!(
            "pieces {n} materials {count} positions {positions} bytes {bytes} seconds {seconds:.1}"
        );
    }
    outln!(
        "built {} in {:.1}s",
        dir.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `tb probe`: the value, then the best move when there is one.
fn probe(text: &str, dir: &std::path::Path) -> Result<()> {
    let pos: Position = super::rules::read_position(text)?;
    let tb = Tablebase::open(dir).map_err(|e| anyhow!("{e}"))?;
    let mat = Material::of(&pos);
    let both_sides = pos.pieces(Color::White) != 0 && pos.pieces(Color::Black) != 0;
    if both_sides && tb.table(mat).is_none() {
        bail!(
            "position outside the built tables: no {mat} table in {} (its tables go up to {} pieces)",
            dir.display(),
            tb.max_pieces()
        );
    }
    let (value, best) = tb.best_move(&pos).map_err(|e| anyhow!("{e}"))?;
    match value {
        Exact::Win(d) => outln!("value win {d}"),
        Exact::Loss(d) => outln!("value loss {d}"),
        Exact::Draw => outln!("value draw"),
    }
    if let Some(mv) = best {
        outln!("bestmove {}", pos.move_text(&mv));
    }
    Ok(())
}

/// The most pieces `tb build` builds tables for.
const MAX_BUILD_PIECES: u8 = 5;

/// `tb stats`: one line per side to move.
fn stats(text: &str, dir: &std::path::Path) -> Result<()> {
    let mat = Material::parse(text).map_err(|e| anyhow!("{e}"))?;
    let path = dir.join(mat.file_name());
    if !path.exists() {
        if mat.total() > MAX_BUILD_PIECES {
            bail!(
                "no table for {mat} in {}: tables are built for at most {MAX_BUILD_PIECES} pieces",
                dir.display()
            );
        }
        bail!(
            "no table for {mat} in {} (run `bushka tb build --pieces {}`)",
            dir.display(),
            mat.total()
        );
    }
    let table = engine::bushka::tb::Table::load(&path).map_err(|e| anyhow!("{e}"))?;
    // The file's name is not trusted: its header says what it holds.
    if table.material() != mat {
        bail!(
            "{} holds the table of {}, not of {mat}: remove it and run `bushka tb build --pieces {}`",
            path.display(),
            table.material(),
            mat.total()
        );
    }
    // "longest win 15 (W:...)", or "longest win none".
    let longest = |what: &str, l: Option<engine::bushka::tb::Longest>| match l {
        Some(l) => format!(
            "longest {what} {} ({})",
            l.plies,
            l.example.map(|p| p.to_text()).unwrap_or_default()
        ),
        None => format!("longest {what} none"),
    };
    for side in [Color::White, Color::Black] {
        let s = table.stats(side);
        outln!(
            "{mat} {} to move: positions {} wins {} draws {} losses {}; {}; {}",
            side.name(),
            s.positions,
            s.wins,
            s.draws,
            s.losses,
            longest("win", s.longest_win),
            longest("loss", s.longest_loss)
        );
    }
    Ok(())
}

/// Draws a table build's progress on standard error: a bar per material
/// while its moves are counted, then a spinner through the backward passes.
fn progress_bars(quiet: bool) -> engine::bushka::tb::ProgressSink {
    use engine::bushka::tb::BuildProgress;
    use indicatif::ProgressBar;
    // The bar of the material being built, and the material's name.
    let current = std::sync::Mutex::new((ProgressBar::hidden(), String::new()));
    std::sync::Arc::new(move |step: &BuildProgress| {
        let mut guard = current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (bar, name) = &mut *guard;
        match step {
            BuildProgress::Unusable(path) => {
                bar.suspend(|| eprintln!("{}: unusable, building it again", path.display()));
            }
            BuildProgress::Start {
                material,
                positions,
            } => {
                *name = material.to_string();
                *bar = engine::progress::bar(*positions, &format!("{name} positions"), !quiet);
                bar.set_message("counting moves");
            }
            BuildProgress::Counted(n) => bar.inc(*n),
            BuildProgress::Level(k) => {
                // The backward passes: how many, no one knows beforehand.
                if bar.position() > 0 {
                    engine::progress::spinner(bar, name);
                }
                bar.set_message(format!("level {k}"));
                bar.tick();
            }
            BuildProgress::Solved { longest } => {
                bar.finish_with_message(format!("solved, longest {longest} plies"));
            }
            BuildProgress::Done(r) => bar.suspend(|| {
                // A closed output is reported by the summary's lines after the build.
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stdout(),
                    "material {} positions {} bytes {} seconds {:.1} longest {}{}",
                    r.material,
                    r.positions,
                    r.bytes,
                    r.seconds,
                    r.longest,
                    if r.reused { " reused" } else { "" }
                );
            }),
        }
    })
}
