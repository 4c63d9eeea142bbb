//! One game between two players, with the harness's adjudication rules.

use crate::player::{Forfeit, Player};
use engine::record::GameRecord;
use engine::search::{Exact, Oracle, Score};
use engine::{Color, Game, Outcome};

/// The harness's limits; all recorded with every game (docs/rules.md 1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Adjudication {
    /// Draw after this many plies in all.
    pub max_plies: usize,
    /// Draw after this many plies without a capture or a man move.
    pub no_progress_plies: usize,
    /// Win for a side when both engines' scores agree it is ahead by at least
    /// `win_score` for `win_moves` consecutive moves each.
    pub win_score: Option<i32>,
    /// See `win_score`.
    pub win_moves: usize,
}

impl Default for Adjudication {
    fn default() -> Self {
        Adjudication {
            max_plies: 300,
            no_progress_plies: 80,
            win_score: None,
            win_moves: 4,
        }
    }
}

impl Adjudication {
    /// The limits as PDN tag pairs.
    pub fn tags(&self) -> Vec<(String, String)> {
        let mut t = vec![
            ("MaxPlies".to_string(), self.max_plies.to_string()),
            (
                "NoProgressPlies".to_string(),
                self.no_progress_plies.to_string(),
            ),
        ];
        if let Some(s) = self.win_score {
            t.push((
                "WinAdjudication".to_string(),
                format!("{s} for {} moves", self.win_moves),
            ));
        }
        t
    }
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct Finished<G: Game> {
    /// The moves and positions.
    pub record: GameRecord<G>,
    /// The result.
    pub outcome: Outcome,
    /// Why it ended, for people and the `Termination` tag.
    pub reason: String,
    /// The mover's score at each ply, when the mover searched.
    pub scores: Vec<Option<Score>>,
}

/// Plays `start` to the end: `players[0]` is White. A position the oracle
/// (endgame tables) knows ends the game with its value.
pub fn play_game<G: Game>(
    start: G,
    players: [&mut dyn Player<G>; 2],
    adj: &Adjudication,
    oracle: Option<&dyn Oracle<G>>,
) -> Finished<G> {
    let [white, black] = players;
    white.new_game();
    black.new_game();
    let mut record = GameRecord::new(start);
    let mut scores: Vec<Option<Score>> = Vec::new();
    // Consecutive plies on which the mover's score backs the same winner.
    let mut agree: (Option<Color>, usize) = (None, 0);
    let finish = |record: GameRecord<G>, scores, outcome, reason: String| Finished {
        record,
        outcome,
        reason,
        scores,
    };
    loop {
        if let Some((outcome, why)) = record.outcome() {
            return finish(record, scores, outcome, why.describe().to_string());
        }
        if let Some(exact) = oracle.and_then(|o| o.probe(record.current())) {
            let side = record.current().side_to_move();
            let (outcome, why) = match exact {
                Exact::Win(d) => (
                    Outcome::Win(side),
                    format!(
                        "adjudication: endgame table, {} wins in {d} plies",
                        side.name()
                    ),
                ),
                Exact::Loss(d) => (
                    Outcome::Win(side.opponent()),
                    format!(
                        "adjudication: endgame table, {} wins in {d} plies",
                        side.opponent().name()
                    ),
                ),
                Exact::Draw => (
                    Outcome::Draw,
                    "adjudication: endgame table, draw".to_string(),
                ),
            };
            return finish(record, scores, outcome, why);
        }
        if record.len() >= adj.max_plies {
            return finish(
                record,
                scores,
                Outcome::Draw,
                format!("adjudication: {} plies played", adj.max_plies),
            );
        }
        if record.reversible_plies() >= adj.no_progress_plies {
            let why = format!(
                "adjudication: {} plies without a capture or a man move",
                adj.no_progress_plies
            );
            return finish(record, scores, Outcome::Draw, why);
        }
        let side = record.current().side_to_move();
        let player: &mut dyn Player<G> = if side == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let choice = match player.choose(&record) {
            Ok(c) => c,
            Err(f) => return forfeit(record, scores, side, f),
        };
        let mut legal = engine::MoveList::new();
        record.current().generate(&mut legal);
        if !legal.contains(&choice.mv) {
            return forfeit(
                record,
                scores,
                side,
                Forfeit::IllegalMove(format!("{:?}", choice.mv)),
            );
        }
        scores.push(choice.score);
        record.push(choice.mv);
        if let (Some(bound), Some(score)) = (adj.win_score, choice.score) {
            let backs = if score.internal() >= bound {
                Some(side)
            } else if score.internal() <= -bound {
                Some(side.opponent())
            } else {
                None
            };
            agree = match (backs, agree) {
                (Some(w), (Some(prev), n)) if w == prev => (Some(w), n + 1),
                (Some(w), _) => (Some(w), 1),
                (None, _) => (None, 0),
            };
            if let (Some(w), n) = agree {
                if n >= 2 * adj.win_moves {
                    let why = format!(
                        "adjudication: both engines score {} winning for {} moves",
                        w.name(),
                        adj.win_moves
                    );
                    return finish(record, scores, Outcome::Win(w), why);
                }
            }
        }
    }
}

fn forfeit<G: Game>(
    record: GameRecord<G>,
    scores: Vec<Option<Score>>,
    loser: Color,
    why: Forfeit,
) -> Finished<G> {
    Finished {
        record,
        outcome: Outcome::Win(loser.opponent()),
        reason: format!("{} forfeits: {why}", loser.name()),
        scores,
    }
}
