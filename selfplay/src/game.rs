//! One game between two players, with the harness's adjudication rules.

use crate::clock::{GameClock, TimeControl};
use crate::player::{Forfeit, Player};
use engine::record::GameRecord;
use engine::search::{Exact, Oracle, Score};
use engine::{Color, Game, Outcome};
use std::time::{Duration, Instant};

/// The game clocks of both sides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// White's and Black's time controls (`None`: that side plays untimed).
    pub controls: [Option<TimeControl>; 2],
    /// A move may overrun the clock by this much before the side loses on time.
    pub margin: Duration,
}

/// What the harness noted of one move besides the move itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveNote {
    /// The mover's score, when it searched.
    pub score: Option<Score>,
    /// The depth it reached, when it searched.
    pub depth: Option<u32>,
    /// The time the move took, measured by the harness.
    pub time: Duration,
}

/// The most moves win adjudication may ask for (longer than any game the
/// ply limits allow).
pub const MAX_WIN_MOVES: usize = 100_000;

/// Reads `SCORE,MOVES` (the `--adjudicate-win` option): a positive score
/// in centi-men and 1 to [`MAX_WIN_MOVES`] moves.
pub fn parse_win(text: &str) -> Result<(i32, usize), String> {
    let (s, m) = text.split_once(',').ok_or("expected SCORE,MOVES")?;
    let s: i32 = s
        .trim()
        .parse()
        .ok()
        .filter(|&s| s > 0)
        .ok_or("SCORE must be a positive whole number")?;
    let m: usize = m
        .trim()
        .parse()
        .ok()
        .filter(|&m| (1..=MAX_WIN_MOVES).contains(&m))
        .ok_or_else(|| format!("MOVES must be a whole number from 1 to {MAX_WIN_MOVES}"))?;
    Ok((s, m))
}

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
    /// Score, depth and time of each ply.
    pub notes: Vec<MoveNote>,
    /// White's and Black's clocks at the end (for timed sides).
    pub clocks: [Option<GameClock>; 2],
}

/// Plays `start` to the end: `players[0]` is White. A position the oracle
/// (endgame tables) knows ends the game with its value. No clocks.
pub fn play_game<G: Game>(
    start: G,
    players: [&mut dyn Player<G>; 2],
    adj: &Adjudication,
    oracle: Option<&dyn Oracle<G>>,
) -> Finished<G> {
    play_timed(start, players, adj, oracle, &Timing::default())
}

/// The state of a game under way.
struct Play<G: Game> {
    record: GameRecord<G>,
    scores: Vec<Option<Score>>,
    notes: Vec<MoveNote>,
    clocks: [Option<GameClock>; 2],
}

impl<G: Game> Play<G> {
    fn end(self, outcome: Outcome, reason: String) -> Finished<G> {
        Finished {
            record: self.record,
            outcome,
            reason,
            scores: self.scores,
            notes: self.notes,
            clocks: self.clocks,
        }
    }

    /// The loss of `loser` without the board deciding it.
    fn forfeit(self, loser: Color, why: &Forfeit) -> Finished<G> {
        let reason = format!("{} forfeits: {why}", loser.name());
        self.end(Outcome::Win(loser.opponent()), reason)
    }

    /// The loss on time of `loser`, whose move took `took` with `left` on its clock.
    fn flag(self, loser: Color, took: Duration, left: Duration) -> Finished<G> {
        let reason = crate::clock::forfeit_text(loser, took, left);
        self.end(Outcome::Win(loser.opponent()), reason)
    }

    /// The end the harness's rules give the current position, if any: the
    /// game's rules, the endgame tables, then `agreed` (a win both engines'
    /// scores back), then the plies limits.
    fn adjudicated(
        &self,
        adj: &Adjudication,
        oracle: Option<&dyn Oracle<G>>,
        agreed: Option<Color>,
    ) -> Option<(Outcome, String)> {
        if let Some((outcome, why)) = self.record.outcome() {
            return Some((outcome, why.describe().to_string()));
        }
        if let Some(exact) = oracle.and_then(|o| o.probe(self.record.current())) {
            let side = self.record.current().side_to_move();
            return Some(match exact {
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
            });
        }
        if let Some(w) = agreed {
            let why = format!(
                "adjudication: both engines score {} winning for {} moves",
                w.name(),
                adj.win_moves
            );
            return Some((Outcome::Win(w), why));
        }
        if self.record.len() >= adj.max_plies {
            return Some((
                Outcome::Draw,
                format!("adjudication: {} plies played", adj.max_plies),
            ));
        }
        if self.record.plies_without_progress() >= adj.no_progress_plies {
            let why = format!(
                "adjudication: {} plies without a capture or a man move",
                adj.no_progress_plies
            );
            return Some((Outcome::Draw, why));
        }
        None
    }
}

/// Plays `start` to the end as [`play_game`] does, each side on its clock
/// (when it has one): the player hears its clock before each move, the
/// harness times the move, and a side whose move takes longer than its
/// clock held plus `timing.margin` loses on time.
pub fn play_timed<G: Game>(
    start: G,
    players: [&mut dyn Player<G>; 2],
    adj: &Adjudication,
    oracle: Option<&dyn Oracle<G>>,
    timing: &Timing,
) -> Finished<G> {
    let [white, black] = players;
    white.new_game();
    black.new_game();
    let mut play = Play {
        record: GameRecord::new(start),
        scores: Vec::new(),
        notes: Vec::new(),
        clocks: timing.controls.map(|tc| tc.map(GameClock::new)),
    };
    // Consecutive plies on which the mover's score backs the same winner.
    let mut agree: (Option<Color>, usize) = (None, 0);
    loop {
        // The rules' end of the position comes before the scores' (a move
        // that repeats it a third time or leaves no move ends the game so).
        let agreed = agree
            .0
            .filter(|_| agree.1 >= adj.win_moves.saturating_mul(2));
        if let Some((outcome, why)) = play.adjudicated(adj, oracle, agreed) {
            return play.end(outcome, why);
        }
        let side = play.record.current().side_to_move();
        let (player, slot): (&mut dyn Player<G>, usize) = if side == Color::White {
            (&mut *white, 0)
        } else {
            (&mut *black, 1)
        };
        let clock = play.clocks[slot];
        player.set_clock(
            clock.map(|c| c.search_clock()),
            clock.map(|c| c.allowance(timing.margin)),
        );
        let began = Instant::now();
        let chosen = player.choose(&play.record);
        let took = began.elapsed();
        // The move, or why the side forfeits.
        let made = chosen.and_then(|choice| {
            let mut legal = engine::MoveList::new();
            play.record.current().generate(&mut legal);
            if legal.contains(&choice.mv) {
                Ok(choice)
            } else {
                Err(Forfeit::IllegalMove(format!("{:?}", choice.mv)))
            }
        });
        if let Some(c) = play.clocks[slot].as_mut() {
            let charged = match &made {
                // An engine the harness stopped waiting for has run out of time.
                Err(Forfeit::Timeout) => {
                    took.max(c.allowance(timing.margin) + Duration::from_nanos(1))
                }
                _ => took,
            };
            // A move not made (the engine failed, or broke the rules) earns
            // no increment and is not a move of the period; out of time,
            // the side lost on time first.
            let charge = if made.is_ok() {
                c.charge(charged, timing.margin)
            } else {
                c.charge_unmade(charged, timing.margin)
            };
            if let Err(f) = charge {
                return play.flag(side, f.took, f.left);
            }
        }
        let choice = match made {
            Ok(c) => c,
            Err(f) => return play.forfeit(side, &f),
        };
        play.scores.push(choice.score);
        play.notes.push(MoveNote {
            score: choice.score,
            depth: choice.depth,
            time: took,
        });
        play.record.push(choice.mv);
        if let Some(bound) = adj.win_score {
            // A move without a score (a random player, a program that sends
            // none) backs no one: both engines must agree.
            let backs = choice.score.and_then(|score| {
                if score.internal() >= bound {
                    Some(side)
                } else if score.internal() <= -bound {
                    Some(side.opponent())
                } else {
                    None
                }
            });
            agree = match (backs, agree) {
                (Some(w), (Some(prev), n)) if w == prev => (Some(w), n + 1),
                (Some(w), _) => (Some(w), 1),
                (None, _) => (None, 0),
            };
        }
    }
}
