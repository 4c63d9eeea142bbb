//! `play`: a game in the terminal against the engine.

use super::rules::read_position;
use anyhow::Result;
use engine::eval::{EvalSource, SharedEval};
use engine::record::GameRecord;
use engine::search::{Engine, Limits, SearchInput};
use engine::{with_game, Color, GameKind, MoveList, Outcome};

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
pub struct PlayArgs {
    pub game: GameKind,
    pub position: String,
    pub human: Human,
    pub movetime: u64,
    pub max_plies: usize,
    pub threads: u32,
    pub hash: engine::tt::HashSize,
    pub weights: Option<String>,
    pub tb: Option<std::path::PathBuf>,
}

/// `bushka play`.
pub fn play(args: &PlayArgs) -> Result<()> {
    with_game!(args.game, G => play_of::<G>(args))
}

const HELP: &str =
    "Type a move in the game's notation, or: moves (list legal moves), undo, resign, help, quit.";

fn play_of<G: EvalSource>(args: &PlayArgs) -> Result<()> {
    let start: G = read_position(&args.position)?;
    let eval: SharedEval<G> = match &args.weights {
        Some(w) => G::load_eval(w).map_err(anyhow::Error::msg)?,
        None => G::default_eval(),
    };
    let mut engine = Engine::<G>::new(args.hash, args.threads as usize);
    if let Some(dir) = &args.tb {
        let oracle =
            G::open_tables(dir).map_err(|e| anyhow::anyhow!("--tb {}: {e}", dir.display()))?;
        engine.set_oracle(Some(oracle));
    }
    let mut game = GameRecord::new(start);
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout();
    writeln!(out, "{HELP}")?;
    let mut shown = usize::MAX;
    loop {
        let pos = *game.current();
        if shown != game.len() {
            writeln!(out, "\n{}", pos.diagram())?;
            shown = game.len();
        }
        if let Some((outcome, reason)) = game.outcome() {
            announce(&mut out, outcome, reason.describe())?;
            return Ok(());
        }
        if game.len() >= args.max_plies {
            announce(&mut out, Outcome::Draw, "adjudicated: maximum game length")?;
            return Ok(());
        }
        let side = pos.side_to_move();
        if !args.human.plays(side) {
            let input = SearchInput {
                position: pos,
                history: game.search_history(),
                limits: Limits::movetime(args.movetime),
            };
            let r = engine.search(&*eval, &input, |_| {});
            let Some(mv) = r.best else {
                break;
            };
            writeln!(
                out,
                "engine ({}) plays {}   score {} depth {} nodes {}",
                side.name(),
                pos.move_text(&mv),
                r.score,
                r.depth,
                r.nodes
            )?;
            game.push(mv);
            continue;
        }
        write!(out, "{} to move> ", side.name())?;
        out.flush()?;
        let Some(line) = lines.next() else {
            writeln!(out, "\nend of input: game abandoned")?;
            return Ok(());
        };
        let line = line?;
        match line.trim() {
            "" => {}
            "quit" | "exit" => return Ok(()),
            "help" => writeln!(out, "{HELP}")?,
            "resign" => {
                announce(
                    &mut out,
                    Outcome::Win(side.opponent()),
                    &format!("{} resigns", side.name()),
                )?;
                return Ok(());
            }
            "moves" => {
                let mut list = MoveList::new();
                pos.generate(&mut list);
                let texts: Vec<String> = list.iter().map(|m| pos.move_text(m)).collect();
                writeln!(out, "legal moves: {}", texts.join(" "))?;
            }
            "undo" => {
                // Take back to the human's previous turn.
                let mut undone = game.pop();
                while undone && !args.human.plays(game.current().side_to_move()) {
                    undone = game.pop();
                }
                if !undone {
                    writeln!(out, "nothing to undo")?;
                }
            }
            text => {
                if let Err(e) = game.push_text(text) {
                    writeln!(out, "{e}")?;
                }
            }
        }
    }
    Ok(())
}

fn announce(out: &mut impl Write, outcome: Outcome, reason: &str) -> std::io::Result<()> {
    match outcome {
        Outcome::Win(c) => writeln!(out, "{} wins ({reason})", c.name()),
        Outcome::Draw => writeln!(out, "draw ({reason})"),
    }
}
