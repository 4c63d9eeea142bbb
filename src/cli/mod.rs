//! Argument parsing and the commands.

/// `println!` that returns a failed write (a reader that closed the pipe,
/// as in `bushka bench | head`) to the caller as an error instead of
/// panicking; [`run`] ends quietly on a closed pipe.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*)?;
    }};
}

/// `print!` that returns the write's error (a closed pipe ends the command
/// quietly) instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout(), $($arg)*)?;
    }};
}

mod analyze;
mod atlas;
mod bench;
mod clockchart;
mod cluster;
mod play;
mod rules;
mod selfplay;
mod serve;
mod tactics;
mod tb;
mod tune;

use clap::{Parser, Subcommand};
use engine::GameKind;

/// `--eval` of the research commands: which built-in weights they search
/// with.
#[derive(clap::Args, Debug, Clone)]
pub struct BuiltInEval {
    /// Evaluation: `auto` (the game's default), `features` or `patterns`
    /// (the built-in feature or pattern weights).
    #[arg(long = "eval", default_value = "auto")]
    pub kind: engine::eval::EvalKind,
}

/// Writes boards as SVG diagrams (the board renderer of `bushka serve`)
/// into `folder`, `(file name, board)` each, after removing the SVG files an
/// earlier report left there: the folder holds the diagrams of the report
/// beside it, no more.
fn write_diagrams(
    folder: &std::path::Path,
    boards: &[(String, web::view::BoardView)],
) -> anyhow::Result<()> {
    use anyhow::Context as _;
    if boards.is_empty() && !folder.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    let listing =
        std::fs::read_dir(folder).with_context(|| format!("reading {}", folder.display()))?;
    for entry in listing {
        let path = entry
            .with_context(|| format!("reading {}", folder.display()))?
            .path();
        if path.extension().is_some_and(|e| e == "svg") {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        }
    }
    for (name, board) in boards {
        let svg = web::svg::render(board, &web::svg::SvgOptions::default());
        let path = folder.join(name);
        engine::files::write_atomic(&path, svg.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Engine and research workbench for Bushka and Bashnya.
#[derive(Parser, Debug)]
#[command(name = "bushka", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Options shared by every command that works on one position.
#[derive(clap::Args, Debug, Clone)]
pub struct PositionArgs {
    /// The game: bushka or bashnya.
    #[arg(long, default_value = "bushka")]
    pub game: GameKind,
    /// A position text, or `start` for the initial position.
    #[arg(long, default_value = "start")]
    pub position: String,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the legal moves: `<notation><TAB><resulting position>` per line.
    Moves {
        #[command(flatten)]
        pos: PositionArgs,
    },
    /// Count the leaves of the legal move tree.
    Perft {
        #[command(flatten)]
        pos: PositionArgs,
        /// Depth in plies (0 to 30; depth 0 counts the position itself).
        #[arg(long, value_parser = clap::value_parser!(u32).range(0..=30))]
        depth: u32,
        /// Worker threads (default: all cores).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: Option<u32>,
        /// First print the count below each root move.
        #[arg(long)]
        divide: bool,
    },
    /// Search a position: one `info` line per completed iteration, then `bestmove`.
    Analyze {
        #[command(flatten)]
        pos: PositionArgs,
        #[command(flatten)]
        search: analyze::SearchArgs,
    },
    /// Play a game in the terminal against the engine.
    Play(play::PlayArgs),
    /// Run a tournament between engines; with no --engine, a short built-in match.
    Selfplay(Box<selfplay::SelfplayCommand>),
    /// Run work on a Slurm cluster: `cluster selfplay` plays a run as shards.
    Cluster {
        #[command(subcommand)]
        command: cluster::ClusterCommand,
    },
    /// Make an opening book: random plies kept when a short search finds them balanced
    /// (`--weights material` is the built-in books' recipe).
    Openings(selfplay::OpeningsArgs),
    /// Game records (PDN).
    Pdn {
        #[command(subcommand)]
        command: PdnCommand,
    },
    /// Fit evaluation weights to self-play training data.
    Tune(Box<tune::TuneArgs>),
    /// Measure every opening line by a deep search and by self-play; rank and classify them.
    Atlas(Box<atlas::AtlasArgs>),
    /// Combinations: mine them from games into a problem set, or solve a problem set.
    Tactics {
        #[command(subcommand)]
        command: tactics::TacticsCommand,
    },
    /// Endgame tablebases (Bushka): build, probe, statistics.
    Tb {
        #[command(subcommand)]
        command: tb::TbCommand,
    },
    /// Speak the engine protocol (Hub-style) on standard input and output; see docs/hub.md.
    Hub,
    /// Search the fixed bench positions; the last line is `bench <nodes> nodes <nps> nps`
    /// (node counts differ by evaluation: `--weights`, `--eval`).
    Bench(bench::BenchArgs),
    /// Serve the board in a browser: play, analyse, replay, watch a tournament; see docs/web.md.
    Serve(serve::ServeArgs),
}

/// An error in one line: a clap error's message without the usage and help
/// hints, an error chain's lines joined, any control character left escaped.
fn one_line(text: &str) -> String {
    let line = text
        .lines()
        .take_while(|l| !l.starts_with("Usage:"))
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("For more information") && !l.starts_with("tip:")
        })
        .collect::<Vec<_>>()
        .join(" ");
    // Escaped and cut: whatever an error quotes, it is one readable line.
    engine::files::quoted(line.trim_start_matches("error: "), 2000)
}

#[derive(Subcommand, Debug)]
enum PdnCommand {
    /// Replay every game of a PDN file and report any illegal move.
    Check {
        /// The PDN file.
        file: std::path::PathBuf,
        /// The game, when the records have no GameType tag.
        #[arg(long)]
        game: Option<GameKind>,
    },
    /// Time use in annotated games on a clock (selfplay --annotate): forfeits,
    /// share of the clock used, time per move number (CSV and a PNG chart).
    Clock {
        /// The PDN files.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
        /// Time per move number as CSV.
        #[arg(long)]
        csv: Option<std::path::PathBuf>,
        /// Chart of the mean and longest time per move number.
        #[arg(long)]
        png: Option<std::path::PathBuf>,
    },
}

/// Runs the program and returns its exit status: 0, or 2 after a one-line
/// error on standard error.
pub fn run() -> i32 {
    match parse() {
        Ok(cli) => exit_status(dispatch(cli.command)),
        Err(status) => status,
    }
}

/// The parsed command line, or the exit status when there is nothing to
/// run: 0 after `--help` or `--version`, 2 after a usage error (one line).
fn parse() -> Result<Cli, i32> {
    use clap::error::ErrorKind;
    Cli::try_parse().map_err(|e| match e.kind() {
        // Help that cannot be written (a closed pipe aside) is an error.
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => match e.print() {
            Err(w) if w.kind() != std::io::ErrorKind::BrokenPipe => {
                eprintln!("error: cannot write to standard output: {w}");
                2
            }
            _ => 0,
        },
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            eprintln!("{}", missing_subcommand(std::env::args_os().skip(1)));
            2
        }
        _ => {
            eprintln!("{}", one_line(&e.to_string()));
            2
        }
    })
}

/// The command line word for word, as a run records it (a word that is not
/// UTF-8 is recorded with replacement characters, never a panic).
pub fn command_line() -> Vec<String> {
    std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// The one line for a command given without the subcommand it needs
/// (`bushka pdn`): which command, and the subcommands it takes.
fn missing_subcommand(args: impl Iterator<Item = std::ffi::OsString>) -> String {
    use clap::CommandFactory;
    let mut command = Cli::command();
    let mut path = vec!["bushka".to_string()];
    for arg in args {
        let next = arg
            .to_str()
            .and_then(|a| command.find_subcommand(a))
            .cloned();
        if let Some(sub) = next {
            path.push(sub.get_name().to_string());
            command = sub;
        }
    }
    let path = path.join(" ");
    let names: Vec<&str> = command
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .map(clap::Command::get_name)
        .collect();
    if names.is_empty() {
        format!("error: `{path}` needs arguments (`{path} --help` lists them)")
    } else {
        format!(
            "error: `{path}` needs a subcommand: {} (`{path} --help` says more)",
            names.join(", ")
        )
    }
}

/// Runs one command.
fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Moves { pos } => rules::moves(&pos),
        Command::Perft {
            pos,
            depth,
            threads,
            divide,
        } => rules::perft(&pos, depth, threads, divide),
        Command::Analyze { pos, search } => analyze::analyze(&pos, &search),
        Command::Play(args) => play::play(&args),
        Command::Selfplay(args) => selfplay::selfplay_command(&args),
        Command::Cluster { command } => cluster::cluster(&command),
        Command::Openings(args) => selfplay::openings(&args),
        Command::Pdn {
            command: PdnCommand::Check { file, game },
        } => selfplay::pdn_check(&file, game),
        Command::Pdn {
            command: PdnCommand::Clock { files, csv, png },
        } => clockchart::pdn_clock(&files, csv.as_deref(), png.as_deref()),
        Command::Tune(args) => tune::tune(&args),
        Command::Atlas(args) => atlas::atlas(&args),
        Command::Tactics { command } => tactics::tactics(&command),
        Command::Tb { command } => tb::tb(&command),
        Command::Hub => {
            let failed = std::sync::Arc::new(std::sync::Mutex::new(None));
            let out: engine::hub::Output = std::sync::Arc::new(std::sync::Mutex::new(Noted {
                inner: std::io::stdout(),
                failed: std::sync::Arc::clone(&failed),
            }));
            engine::hub::run(std::io::BufReader::new(std::io::stdin()), out)
                .map_err(anyhow::Error::msg)?;
            // Replies that could not be written were lost: an error (a
            // closed pipe, the reader gone, is not one).
            let failed = failed
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            match failed {
                Some(e) => Err(anyhow::Error::new(e).context("cannot write to standard output")),
                None => Ok(()),
            }
        }
        Command::Bench(args) => bench::bench(&args),
        Command::Serve(args) => serve::serve(&args),
    }
}

/// A writer that keeps the first error of its writes (the hub answers
/// through it and goes on; the error is its exit's).
struct Noted<W> {
    inner: W,
    failed: std::sync::Arc<std::sync::Mutex<Option<std::io::Error>>>,
}

impl<W: std::io::Write> Noted<W> {
    fn note<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &r {
            let mut failed = self
                .failed
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if failed.is_none() {
                *failed = Some(std::io::Error::new(e.kind(), e.to_string()));
            }
        }
        r
    }
}

impl<W: std::io::Write> std::io::Write for Noted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.inner.write(buf);
        self.note(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.inner.flush();
        self.note(r)
    }
}

/// The exit status of a command's result, its error printed in one line.
fn exit_status(result: anyhow::Result<()>) -> i32 {
    let Err(e) = result else { return 0 };
    // A closed pipe (`bushka moves | head`) is the reader's choice, not an error.
    let broken_pipe = e
        .downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe);
    if broken_pipe {
        return 0;
    }
    eprintln!("error: {}", one_line(&format!("{e:#}")));
    2
}
