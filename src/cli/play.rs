//! `play`: a game in the terminal against the engine.

use super::rules::read_position;
use super::PositionArgs;
use anyhow::Result;
use engine::eval::{EvalSource, SharedEval};
use engine::files::{read_line_capped, skip_line, LineRead, MAX_LINE};
use engine::record::GameRecord;
use engine::search::{Engine, Limits, SearchInput};
use engine::tt::HashSize;
use engine::{with_game, Color, MoveList, Outcome};

use std::io::{BufRead, Write};

/// Who the people at the keyboard play.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Human {
    /// The human plays White.
    White,
    /// The human plays Black.
    Black,
    /// Two humans (the engine only watches).
    Both,
    /// The engine plays itself.
    None,
}

impl Human {
    fn plays(self, side: Color) -> bool {
        match self {
            Human::White => side == Color::White,
            Human::Black => side == Color::Black,
            Human::Both => true,
            Human::None => false,
        }
    }
}

/// Settings of `bushka play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pos: PositionArgs,
    /// Which side the human plays.
    #[arg(long, value_enum, default_value = "white")]
    human: Human,
    /// Engine thinking time per move in milliseconds.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: u64,
    /// Declare a draw after this many plies.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    max_plies: u64,
    /// Engine search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Transposition table size in MiB (1 to half of the memory this process may use).
    #[arg(long, default_value_t = engine::tt::HashSize::default_here())]
    hash: HashSize,
    #[command(flatten)]
    evaluation: super::analyze::EvalArgs,
    /// Folder of Bushka endgame tables for the engine.
    #[arg(long)]
    tb: Option<std::path::PathBuf>,
}

/// `bushka play`.
pub fn play(args: &PlayArgs) -> Result<()> {
    with_game!(args.pos.game, G => play_of::<G>(args))
}

const HELP: &str =
    "Type a move in the game's notation, or: moves (list legal moves), undo, resign, help, quit.";

fn play_of<G: EvalSource>(args: &PlayArgs) -> Result<()> {
    let start: G = read_position(&args.pos.position)?;
    let mut engine = engine_for::<G>(args)?;
    let mut game = GameRecord::new(start);
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout();
    if args.human != Human::None {
        writeln!(out, "{HELP}")?;
    }
    let mut shown = usize::MAX;
    loop {
        let pos = *game.current();
        if shown != game.len() {
            writeln!(out, "\n{}", pos.diagram())?;
            shown = game.len();
        }
        if let Some((outcome, reason)) = game.outcome() {
            return announce(&mut out, outcome, reason.describe());
        }
        if game.len() as u64 >= args.max_plies {
            return announce(&mut out, Outcome::Draw, "adjudicated: maximum game length");
        }
        let side = pos.side_to_move();
        let turn = if args.human.plays(side) {
            write!(out, "{} to move> ", side.name())?;
            out.flush()?;
            match read_line(&mut input)? {
                Some(Typed::Line(line)) => {
                    human_turn(&mut game, args.human, line.trim(), &mut out)?
                }
                Some(Typed::TooLong) => {
                    writeln!(out, "a line longer than {MAX_LINE} bytes: ignored")?;
                    Turn::Continue
                }
                None => {
                    writeln!(out, "\nend of input: game abandoned")?;
                    Turn::Quit
                }
            }
        } else {
            engine_turn(&mut engine, &mut game, args.movetime, &mut out)?
        };
        if turn == Turn::Quit {
            return Ok(());
        }
    }
}

/// Whether the game goes on after a turn.
#[derive(PartialEq, Eq)]
enum Turn {
    Continue,
    Quit,
}

/// The engine of `bushka play`, with its evaluation and tables.
struct Player<G: EvalSource> {
    engine: Engine<G>,
    eval: SharedEval<G>,
}

fn engine_for<G: EvalSource>(args: &PlayArgs) -> Result<Player<G>> {
    let eval: SharedEval<G> = args.evaluation.evaluator::<G>()?;
    let mut engine = Engine::<G>::try_new(args.hash, args.threads as usize)
        .map_err(|e| anyhow::anyhow!("--hash: {e}"))?;
    if let Some(dir) = &args.tb {
        let oracle =
            G::open_tables(dir).map_err(|e| anyhow::anyhow!("--tb {}: {e}", dir.display()))?;
        engine.set_oracle(Some(oracle));
    }
    Ok(Player { engine, eval })
}

/// The engine searches and plays its move.
fn engine_turn<G: EvalSource>(
    player: &mut Player<G>,
    game: &mut GameRecord<G>,
    movetime: u64,
    out: &mut impl Write,
) -> Result<Turn> {
    let pos = *game.current();
    let input = SearchInput {
        position: pos,
        history: game.search_history(),
        limits: Limits::movetime(movetime),
    };
    let r = player.engine.search(&*player.eval, &input, |_| {});
    let Some(mv) = r.best else {
        return Ok(Turn::Quit);
    };
    writeln!(
        out,
        "engine ({}) plays {}   score {} depth {} nodes {}",
        pos.side_to_move().name(),
        pos.move_text(&mv),
        r.score,
        r.depth,
        r.nodes
    )?;
    game.push(mv);
    Ok(Turn::Continue)
}

/// One line typed by the person to move: a command or a move.
fn human_turn<G: EvalSource>(
    game: &mut GameRecord<G>,
    human: Human,
    line: &str,
    out: &mut impl Write,
) -> Result<Turn> {
    let pos = *game.current();
    let side = pos.side_to_move();
    match line {
        "" => {}
        "quit" | "exit" => return Ok(Turn::Quit),
        "help" => writeln!(out, "{HELP}")?,
        "resign" => {
            let reason = format!("{} resigns", side.name());
            announce(out, Outcome::Win(side.opponent()), &reason)?;
            return Ok(Turn::Quit);
        }
        "moves" => {
            let mut list = MoveList::new();
            pos.generate(&mut list);
            let texts: Vec<String> = list.iter().map(|m| pos.move_text(m)).collect();
            writeln!(out, "legal moves: {}", texts.join(" "))?;
        }
        "undo" => {
            // Back to the human's previous turn, if there was one (the
            // engine's first move, made before it, stays).
            let positions = game.positions();
            let back = (0..game.len())
                .rev()
                .find(|&k| human.plays(positions[k].side_to_move()));
            match back {
                Some(k) => {
                    while game.len() > k {
                        game.pop();
                    }
                }
                None => writeln!(out, "nothing to undo")?,
            }
        }
        text => {
            if let Err(e) = game.push_text(text) {
                writeln!(out, "{e}")?;
            }
        }
    }
    Ok(Turn::Continue)
}

/// Says how the game ended.
fn announce(out: &mut impl Write, outcome: Outcome, reason: &str) -> Result<()> {
    match outcome {
        Outcome::Win(c) => writeln!(out, "{} wins ({reason})", c.name())?,
        Outcome::Draw => writeln!(out, "draw ({reason})")?,
    }
    Ok(())
}

/// What one typed line was.
#[derive(Debug, PartialEq, Eq)]
enum Typed {
    /// A line; bytes that are not UTF-8 are read as replacement characters
    /// (and then as no move).
    Line(String),
    /// A line longer than [`MAX_LINE`] bytes (no command is that long),
    /// passed over, so a line without an end cannot fill the memory.
    TooLong,
}

/// The next line typed, `None` at the end of input.
fn read_line(input: &mut impl BufRead) -> std::io::Result<Option<Typed>> {
    let mut buf = Vec::new();
    match read_line_capped(input, &mut buf, MAX_LINE)? {
        LineRead::End => Ok(None),
        LineRead::TooLong => {
            skip_line(input)?;
            Ok(Some(Typed::TooLong))
        }
        LineRead::Line => Ok(Some(Typed::Line(
            String::from_utf8_lossy(&buf).into_owned(),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_line_is_read_within_the_cap() {
        // "resign" and a million spaces is not a resignation.
        let mut text = b"e1-e2\r\nresign".to_vec();
        text.extend(std::iter::repeat_n(b' ', MAX_LINE as usize));
        text.extend(b"x\nmoves\n\xff\n");
        let mut input = std::io::Cursor::new(text);
        let line = |s: &str| Some(Typed::Line(s.to_string()));
        assert_eq!(read_line(&mut input).unwrap(), line("e1-e2\r\n"));
        assert_eq!(read_line(&mut input).unwrap(), Some(Typed::TooLong));
        assert_eq!(read_line(&mut input).unwrap(), line("moves\n"));
        assert_eq!(read_line(&mut input).unwrap(), line("\u{fffd}\n"));
        assert_eq!(read_line(&mut input).unwrap(), None);
    }
}
