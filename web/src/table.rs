//! One game on the board: its moves, what the page is told about it, and
//! the searches made from it. Generic over the game, used through
//! [`Table`] so a session can hold either game.

use crate::svg::{self, Marks, SvgOptions};
use crate::view::{BoardView, Drawable, MoveView};
use crate::ApiError;
use engine::eval::EvalSource;
use engine::record::GameRecord as Record;
use engine::search::{Engine, Info, Limits, Score, SearchInput};
use engine::tt::HashSize;
use engine::{Color, Game, GameKind, MoveList};
use selfplay::pdn::{self, GameRecord as PdnRecord, PdnResult};
use serde::Serialize;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Transposition table of one search from the page.
const SEARCH_HASH: HashSize = HashSize::fixed(16);

/// Everything the page needs to show a game.
#[derive(Clone, Debug, Serialize)]
pub struct GameState {
    /// The game's name.
    pub game: &'static str,
    /// The start position's text.
    pub start: String,
    /// The position text now.
    pub position: String,
    /// `white` or `black`.
    pub side: &'static str,
    /// Plies played.
    pub ply: usize,
    /// The moves played, as they were legal when played.
    pub moves: Vec<MoveView>,
    /// The legal moves now (none when the game is over).
    pub legal: Vec<MoveView>,
    /// `1-0`, `0-1`, `1/2-1/2`, `*` (at [`MAX_GAME_PLIES`]), or `None`
    /// while the game goes on.
    pub result: Option<&'static str>,
    /// Why the game ended, when it did.
    pub reason: Option<String>,
    /// The board now, for the page's own drawing.
    pub board: BoardView,
    /// Tags of a game read from PDN (`White`, `Black`, `Event`, ...).
    pub tags: Vec<(String, String)>,
}

/// One completed search iteration, for the page.
#[derive(Clone, Debug, Serialize)]
pub struct InfoView {
    /// Iteration depth.
    pub depth: u32,
    /// The score for the side to move: centi-men, or a win or loss.
    pub score: ScoreView,
    /// The same score from White's side, in centi-men (a win is ±30000).
    pub white_cp: i32,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds since the search began.
    pub time_ms: u64,
    /// Nodes per second.
    pub nps: u64,
    /// The principal variation in notation.
    pub pv: Vec<String>,
}

/// A score the page can print.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "lowercase")]
pub enum ScoreView {
    /// Centi-men for the side to move.
    Cp(i32),
    /// The side to move wins in this many plies.
    Win(u32),
    /// The side to move loses in this many plies.
    Loss(u32),
}

/// What a search found.
#[derive(Clone, Debug, Serialize)]
pub struct SearchOutcome {
    /// The best move's notation (none when there is no legal move).
    pub best: Option<String>,
    /// The last iteration.
    pub info: Option<InfoView>,
}

/// A search that runs on a blocking thread, reporting each iteration.
pub type SearchJob = Box<dyn FnOnce(&mut dyn FnMut(InfoView)) -> SearchOutcome + Send>;

/// A search to make ready on a blocking thread: it takes its table there,
/// not while the sessions are locked (a table the memory cannot hold is a
/// 503 of the request).
pub type SearchSetup = Box<dyn FnOnce() -> Result<SearchJob, ApiError> + Send>;

/// A game of either kind, as a session holds it.
pub trait Table: Send {
    /// Which game.
    fn kind(&self) -> GameKind;
    /// The page's view of the game.
    fn state(&self) -> GameState;
    /// Plays a move given in notation.
    fn play(&mut self, text: &str) -> Result<(), ApiError>;
    /// Takes moves back until `ply` plies remain.
    fn undo_to(&mut self, ply: usize) -> Result<(), ApiError>;
    /// Plies played.
    fn ply(&self) -> usize;
    /// The board after `ply` plies, with the move that led there marked.
    fn svg(&self, ply: usize, flip: bool) -> Result<String, ApiError>;
    /// The game as PDN text.
    fn pdn(&self) -> String;
    /// A search of the position after `ply` plies (now, for `None`), with
    /// the game's history up to it; `stop` ends it early.
    fn search(
        &self,
        ply: Option<usize>,
        limits: Limits,
        stop: Arc<AtomicBool>,
    ) -> Result<SearchSetup, ApiError>;
}

/// A game of type `G`, with the tags of the record it was read from.
pub struct Board<G: Game> {
    record: Record<G>,
    /// Tags kept from a PDN record; those that tell how the game ended
    /// ([`ENDING_TAGS`]) are dropped when a move changes the game.
    tags: Vec<(String, String)>,
    /// A recorded result that the rules cannot see (an adjudicated end).
    recorded: Option<PdnResult>,
    /// The most plies the game may have ([`MAX_GAME_PLIES`]).
    cap: usize,
}

impl<G: EvalSource + Drawable> Board<G> {
    /// A game from `start`.
    pub fn new(start: G) -> Self {
        Board {
            record: Record::new(start),
            tags: Vec::new(),
            recorded: None,
            cap: MAX_GAME_PLIES,
        }
    }

    /// A game from a position text, or the start for `None`, empty or `start`.
    pub fn from_text(text: Option<&str>) -> Result<Self, ApiError> {
        let start = match text.map(str::trim) {
            None | Some("" | "start") => G::start(),
            Some(t) => {
                G::parse_position(t).map_err(|e| ApiError::bad(format!("position text: {e}")))?
            }
        };
        Ok(Board::new(start))
    }

    /// The game of a PDN record, every move replayed by the rules (at most
    /// [`MAX_GAME_PLIES`]).
    pub fn from_record(rec: &PdnRecord) -> Result<Self, ApiError> {
        if rec.moves.len() > MAX_GAME_PLIES {
            return Err(ApiError::bad(format!(
                "PDN game: {} plies, more than the {MAX_GAME_PLIES} the board replays",
                rec.moves.len()
            )));
        }
        let r = pdn::replay::<G>(rec).map_err(|e| ApiError::bad(format!("PDN game: {e}")))?;
        let mut board = Board::new(r.start);
        for m in r.moves {
            board.record.push(m);
        }
        board.tags = vec![
            ("Event".into(), rec.event.clone()),
            ("White".into(), rec.white.clone()),
            ("Black".into(), rec.black.clone()),
            ("Round".into(), rec.round.clone()),
            ("Date".into(), rec.date.clone()),
        ];
        board.tags.extend(rec.extra.iter().cloned());
        board.recorded = (rec.result != PdnResult::Unknown).then_some(rec.result);
        Ok(board)
    }

    /// The result and its reason, by the rules or as recorded.
    fn result(&self) -> Option<(PdnResult, String)> {
        if let Some((outcome, reason)) = self.record.outcome() {
            return Some((PdnResult::from_outcome(outcome), reason.describe().into()));
        }
        self.recorded
            .map(|r| {
                let why = self
                    .tags
                    .iter()
                    .find(|(n, _)| n == "Termination")
                    .map_or_else(|| "as recorded".to_string(), |(_, v)| v.clone());
                (r, why)
            })
            .or_else(|| at_the_cap(self.record.len(), self.cap))
    }

    /// The moves played, each described in the position it was played from.
    fn played(&self) -> Vec<MoveView> {
        self.record
            .positions()
            .iter()
            .zip(self.record.moves())
            .map(|(p, m)| p.move_view(m))
            .collect()
    }

    /// A change to the game: a recorded result, and the tags that tell how
    /// the game ended, no longer apply (the players, event and opening
    /// still name where the game came from).
    fn changed(&mut self) {
        self.recorded = None;
        self.tags
            .retain(|(name, _)| !ENDING_TAGS.contains(&name.as_str()));
    }
}

fn score_view(score: Score) -> ScoreView {
    match score {
        Score::Cp(c) => ScoreView::Cp(c),
        Score::Win(n) => ScoreView::Win(n),
        Score::Loss(n) => ScoreView::Loss(n),
    }
}

/// A search iteration in the page's terms.
fn info_view<G: Game>(pos: &G, info: &Info<G::Move>) -> InfoView {
    let mut p = *pos;
    let mut pv = Vec::with_capacity(info.pv.len());
    for m in &info.pv {
        pv.push(p.move_text(m));
        p = p.play(m);
    }
    let own = info.score.internal();
    let white_cp = if pos.side_to_move() == Color::White {
        own
    } else {
        -own
    };
    InfoView {
        depth: info.depth,
        score: score_view(info.score),
        white_cp,
        nodes: info.nodes,
        time_ms: info.time.as_millis() as u64,
        nps: info.nps(),
        pv,
    }
}

impl<G: EvalSource + Drawable> Table for Board<G> {
    fn kind(&self) -> GameKind {
        G::KIND
    }

    fn state(&self) -> GameState {
        let pos = self.record.current();
        let result = self.result();
        let legal = if result.is_some() {
            Vec::new()
        } else {
            let mut list = MoveList::new();
            pos.generate(&mut list);
            list.iter().map(|m| pos.move_view(m)).collect()
        };
        GameState {
            game: G::KIND.name(),
            start: self.record.start().to_text(),
            position: pos.to_text(),
            side: pos.side_to_move().name(),
            ply: self.record.len(),
            moves: self.played(),
            legal,
            result: result.as_ref().map(|(r, _)| r.as_str()),
            reason: result.map(|(_, why)| why),
            board: pos.board_view(),
            tags: self.tags.clone(),
        }
    }

    fn play(&mut self, text: &str) -> Result<(), ApiError> {
        if let Some((r, why)) = self.result() {
            return Err(ApiError::conflict(format!(
                "the game is over ({r}, {why}): no move can be played"
            )));
        }
        self.record
            .push_text(text)
            .map_err(|e| ApiError::bad(e.to_string()))?;
        self.changed();
        Ok(())
    }

    fn undo_to(&mut self, ply: usize) -> Result<(), ApiError> {
        if ply > self.record.len() {
            return Err(ApiError::bad(format!(
                "cannot go back to ply {ply}: the game has {} plies",
                self.record.len()
            )));
        }
        if ply < self.record.len() {
            while self.record.len() > ply {
                self.record.pop();
            }
            self.changed();
        }
        Ok(())
    }

    fn ply(&self) -> usize {
        self.record.len()
    }

    fn svg(&self, ply: usize, flip: bool) -> Result<String, ApiError> {
        let positions = self.record.positions();
        let Some(pos) = positions.get(ply) else {
            return Err(ApiError::bad(format!(
                "no ply {ply}: the game has {} plies",
                self.record.len()
            )));
        };
        let marks = match ply.checked_sub(1) {
            Some(prev) => {
                let v = positions[prev].move_view(&self.record.moves()[prev]);
                let mut last = vec![v.from];
                last.extend(v.path);
                Marks {
                    last,
                    captured: v.captured,
                }
            }
            None => Marks::default(),
        };
        Ok(svg::render(&pos.board_view(), &SvgOptions { flip, marks }))
    }

    fn pdn(&self) -> String {
        let mut rec = PdnRecord::new(G::KIND);
        rec.event = "bushka serve".into();
        for (name, value) in &self.tags {
            match name.as_str() {
                "Event" => rec.event.clone_from(value),
                "White" => rec.white.clone_from(value),
                "Black" => rec.black.clone_from(value),
                "Round" => rec.round.clone_from(value),
                "Date" => rec.date.clone_from(value),
                _ => rec.set_tag(name, value.clone()),
            }
        }
        if *self.record.start() != G::start() {
            rec.fen = Some(self.record.start().to_text());
        }
        rec.moves = self.played().into_iter().map(|m| m.text).collect();
        rec.result = self.result().map_or(PdnResult::Unknown, |(r, _)| r);
        rec.to_pdn()
    }

    fn search(
        &self,
        ply: Option<usize>,
        limits: Limits,
        stop: Arc<AtomicBool>,
    ) -> Result<SearchSetup, ApiError> {
        let input = match ply {
            None => SearchInput {
                position: *self.record.current(),
                history: self.record.search_history(),
                limits,
            },
            Some(ply) if ply > self.record.len() => {
                return Err(ApiError::bad(format!(
                    "no ply {ply}: the game has {} plies",
                    self.record.len()
                )))
            }
            Some(ply) => {
                // The game as it stood then: its repetitions count.
                let mut then = Record::new(*self.record.start());
                for m in &self.record.moves()[..ply] {
                    then.push(*m);
                }
                SearchInput {
                    position: *then.current(),
                    history: then.search_history(),
                    limits,
                }
            }
        };
        Ok(Box::new(move || {
            // Made before the search's thread runs, so that a table the
            // memory cannot hold is a 503 of this request.
            let mut engine = Engine::<G>::try_new(SEARCH_HASH, 1).map_err(ApiError::unavailable)?;
            let job: SearchJob = Box::new(move |report: &mut dyn FnMut(InfoView)| {
                // A stop asked before the search begins is seen after its
                // first iteration, as one asked while it runs.
                engine.set_stop_flag(stop);
                let eval = G::default_eval();
                let pos = input.position;
                let mut last = None;
                let result = engine.search(&*eval, &input, |info| {
                    let v = info_view(&pos, info);
                    last = Some(v.clone());
                    report(v);
                });
                SearchOutcome {
                    best: result.best.map(|m| pos.move_text(&m)),
                    info: last,
                }
            });
            Ok(job)
        }))
    }
}

/// Tags of a PDN record that tell how its game ended (self-play writes the
/// termination and each side's clock left and time used; `PlyCount` is
/// PDN's own), dropped once the game on the board is changed.
pub const ENDING_TAGS: [&str; 6] = [
    "Termination",
    "WhiteClock",
    "BlackClock",
    "WhiteTimeUsed",
    "BlackTimeUsed",
    "PlyCount",
];

/// The longest game the board replays from a PDN record, in plies.
pub const MAX_GAME_PLIES: usize = 10_000;

/// The board's end of a game of `plies` plies, as long as a game read from
/// PDN may be ([`MAX_GAME_PLIES`], so that its export reads back): no
/// result (`*`), and no more moves, the engine's neither.
fn at_the_cap(plies: usize, cap: usize) -> Option<(PdnResult, String)> {
    (plies >= cap).then(|| {
        (
            PdnResult::Unknown,
            format!("{cap} plies, the most the board keeps"),
        )
    })
}

/// A new table of the named game.
pub fn new_table(kind: GameKind, position: Option<&str>) -> Result<Box<dyn Table>, ApiError> {
    engine::with_game!(kind, G => Ok(Box::new(Board::<G>::from_text(position)?) as Box<dyn Table>))
}

/// The table of a PDN record, in the game its `[GameType]` names (Bushka
/// when it names none).
pub fn table_of_record(rec: &PdnRecord) -> Result<Box<dyn Table>, ApiError> {
    let kind = if rec.game_type.is_empty() {
        GameKind::Bushka
    } else {
        rec.game_kind().ok_or_else(|| {
            ApiError::bad(format!(
                "PDN game type '{}' is not bushka or bashnya",
                engine::files::quoted(&rec.game_type, 40)
            ))
        })?
    };
    engine::with_game!(kind, G => Ok(Box::new(Board::<G>::from_record(rec)?) as Box<dyn Table>))
}

#[cfg(test)]
mod tests {
    use super::{Board, Table, MAX_GAME_PLIES};

    /// At the cap (here two plies) the game is over without a result: no
    /// legal move, a move refused, the engine's too (its route checks the
    /// legal moves first); taking one back goes on.
    #[test]
    fn a_game_stops_growing_at_the_most_a_pdn_game_may_hold() {
        let mut board =
            Board::<engine::bushka::Position>::from_text(Some("W:We1,e6,e7:Be4,e5")).unwrap();
        assert_eq!(board.cap, MAX_GAME_PLIES);
        board.cap = 2;
        board.play("e12").unwrap();
        assert_eq!(board.state().result, None);
        board.play("e5x3").unwrap();
        let state = board.state();
        assert_eq!(
            (state.result, state.reason.as_deref()),
            (Some("*"), Some("2 plies, the most the board keeps"))
        );
        assert!(state.legal.is_empty());
        let e = board.play("e7x5").unwrap_err();
        assert!(
            e.message.starts_with("the game is over (*, 2 plies"),
            "{}",
            e.message
        );
        assert!(board.pdn().contains(" *\n"), "{}", board.pdn());
        board.undo_to(1).unwrap();
        assert!(board.state().result.is_none() && !board.state().legal.is_empty());
    }
}
