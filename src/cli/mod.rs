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

mod analyze;
mod bench;
mod play;
mod rules;
mod selfplay;
mod tb;
mod tune;

use clap::{Parser, Subcommand};
use engine::GameKind;

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
        /// Depth in plies (1 to 30).
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
    Play {
        #[command(flatten)]
        pos: PositionArgs,
        /// Which side the human plays.
        #[arg(long, value_enum, default_value = "white")]
        human: play::Human,
        /// Engine thinking time per move in milliseconds.
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
        movetime: u64,
        /// Declare a draw after this many plies.
        #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..=100_000))]
        max_plies: u64,
        /// Engine search threads.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
        threads: u32,
        /// Transposition table size in MiB (1 to half of this machine\'s memory).
        #[arg(long, default_value = "64")]
        hash: engine::tt::HashSize,
        /// Evaluation weights file (`material` for material only).
        #[arg(long)]
        weights: Option<String>,
        /// Folder of Bushka endgame tables for the engine.
        #[arg(long)]
        tb: Option<std::path::PathBuf>,
    },
    /// Run a tournament between engines; with no --engine, a short built-in match.
    Selfplay(Box<selfplay::SelfplayArgs>),
    /// Make an opening book: random plies kept when a short search finds them balanced.
    Openings(selfplay::OpeningsArgs),
    /// Game records (PDN).
    Pdn {
        #[command(subcommand)]
        command: PdnCommand,
    },
    /// Fit evaluation weights to self-play training data.
    Tune(Box<tune::TuneArgs>),
    /// Endgame tablebases (Bushka): build, probe, statistics.
    Tb {
        #[command(subcommand)]
        command: tb::TbCommand,
    },
    /// Speak the engine protocol (Hub-style) on standard input and output; see docs/hub.md.
    Hub,
    /// Search the fixed bench positions; the last line is `bench <nodes> nodes <nps> nps`.
    Bench {
        /// The game: bushka or bashnya.
        #[arg(long, default_value = "bushka")]
        game: GameKind,
        /// Search threads.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
        threads: u32,
        /// Depth of every search (default: 12 for Bushka, 13 for Bashnya).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60))]
        depth: Option<u32>,
        /// Transposition table size in MiB (1 to half of this machine\'s memory).
        #[arg(long, default_value = "64")]
        hash: engine::tt::HashSize,
        /// Evaluation: `default`, `material`, or a weights file (node counts differ by evaluation).
        #[arg(long)]
        weights: Option<String>,
        /// Measure the time-to-depth speed-up of `--threads` threads over one:
        /// the set is searched alternately by each, and a table of median times printed.
        #[arg(long)]
        speedup: bool,
        /// Rounds of `--speedup` (each searches the set once with each thread count).
        #[arg(long, requires = "speedup", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
        rounds: u32,
    },
}

/// A clap error in one line: its message without the usage and help hints.
fn one_line(text: &str) -> String {
    text.lines()
        .take_while(|l| !l.starts_with("Usage:"))
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("For more information") && !l.starts_with("tip:")
        })
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches("error: ")
        .to_string()
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
}

/// Runs the program and returns its exit status.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    2
                } else {
                    0
                };
            }
            eprintln!("{}", one_line(&e.to_string()));
            return 2;
        }
    };
    let result = match cli.command {
        Command::Moves { pos } => rules::moves(&pos),
        Command::Perft {
            pos,
            depth,
            threads,
            divide,
        } => rules::perft(&pos, depth, threads, divide),
        Command::Analyze { pos, search } => analyze::analyze(&pos, &search),
        Command::Play {
            pos,
            human,
            movetime,
            max_plies,
            threads,
            hash,
            weights,
            tb,
        } => play::play(&play::PlayArgs {
            game: pos.game,
            position: pos.position,
            human,
            movetime,
            max_plies: max_plies as usize,
            threads,
            hash,
            weights,
            tb,
        }),
        Command::Selfplay(args) => selfplay::selfplay(&args),
        Command::Openings(args) => selfplay::openings(&args),
        Command::Pdn {
            command: PdnCommand::Check { file, game },
        } => selfplay::pdn_check(&file, game),
        Command::Tune(args) => tune::tune(&args),
        Command::Tb { command } => tb::tb(&command),
        Command::Hub => {
            let out: engine::hub::Output =
                std::sync::Arc::new(std::sync::Mutex::new(std::io::stdout()));
            engine::hub::run(std::io::stdin().lock(), out);
            Ok(())
        }
        Command::Bench {
            game,
            threads,
            depth,
            hash,
            weights,
            speedup,
            rounds,
        } => bench::bench(&bench::BenchArgs {
            game,
            threads,
            depth,
            hash,
            weights: weights.as_deref(),
            speedup_rounds: speedup.then_some(rounds),
        }),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            // A closed pipe (`bushka moves | head`) is the reader's choice, not an error.
            let broken_pipe = e
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe);
            if broken_pipe {
                return 0;
            }
            eprintln!("error: {e:#}");
            2
        }
    }
}
