//! A game in progress: its positions and moves, and how it ended.

use crate::game::{Color, Game, MoveError, Outcome};

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The side to move has no legal move (no pieces, or all blocked).
    NoMoves,
    /// The same position with the same side to move occurred a third time.
    Repetition,
}

impl EndReason {
    /// A few words for people and game records.
    pub fn describe(self) -> &'static str {
        match self {
            EndReason::NoMoves => "no legal move",
            EndReason::Repetition => "threefold repetition",
        }
    }
}

/// A game from a start position: every position reached and every move played.
#[derive(Clone, Debug)]
pub struct GameRecord<G: Game> {
    positions: Vec<G>,
    moves: Vec<G::Move>,
    /// Index in `positions` of the first position after the last irreversible move.
    irreversible: Vec<usize>,
    /// Index in `positions` of the first position after the last capture or
    /// man move.
    progress: Vec<usize>,
}

impl<G: Game> GameRecord<G> {
    /// A game starting from `start`.
    pub fn new(start: G) -> Self {
        GameRecord {
            positions: vec![start],
            moves: Vec::new(),
            irreversible: vec![0],
            progress: vec![0],
        }
    }

    /// The position now.
    pub fn current(&self) -> &G {
        self.positions
            .last()
            .expect("a record always has its start")
    }

    /// The start position.
    pub fn start(&self) -> &G {
        &self.positions[0]
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[G::Move] {
        &self.moves
    }

    /// The positions so far, start first.
    pub fn positions(&self) -> &[G] {
        &self.positions
    }

    /// Plies played.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// True before the first move.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Plays a move that must be legal in the current position.
    pub fn push(&mut self, mv: G::Move) {
        let pos = *self.current();
        let after = pos.play(&mv);
        let floor = |now: bool, floors: &[usize]| {
            if now {
                self.positions.len()
            } else {
                *floors.last().expect("non-empty")
            }
        };
        let irreversible = floor(pos.is_irreversible(&mv, &after), &self.irreversible);
        let progress = floor(pos.is_progress(&mv), &self.progress);
        self.positions.push(after);
        self.moves.push(mv);
        self.irreversible.push(irreversible);
        self.progress.push(progress);
    }

    /// Reads a move text in the current position and plays it.
    pub fn push_text(&mut self, text: &str) -> Result<G::Move, MoveError> {
        let mv = self.current().parse_move(text)?;
        self.push(mv);
        Ok(mv)
    }

    /// Takes back the last move; false at the start.
    pub fn pop(&mut self) -> bool {
        if self.moves.is_empty() {
            return false;
        }
        self.moves.pop();
        self.positions.pop();
        self.irreversible.pop();
        self.progress.pop();
        true
    }

    /// Plies since the last capture or man move.
    pub fn plies_without_progress(&self) -> usize {
        self.positions.len() - 1 - self.progress.last().expect("non-empty")
    }

    /// Hashes of the positions since the last irreversible move, without the
    /// current one: what the search needs to see repetitions.
    pub fn search_history(&self) -> Vec<u64> {
        let floor = *self.irreversible.last().expect("non-empty");
        let n = self.positions.len() - 1;
        self.positions[floor..n]
            .iter()
            .map(|p| <G as Game>::hash(p))
            .collect()
    }

    /// How often the current position has occurred (1 the first time).
    pub fn repetitions(&self) -> usize {
        let floor = *self.irreversible.last().expect("non-empty");
        let now = self.current();
        self.positions[floor..].iter().filter(|p| *p == now).count()
    }

    /// The result by the rules, if the game is over.
    pub fn outcome(&self) -> Option<(Outcome, EndReason)> {
        let pos = self.current();
        if pos.count_moves() == 0 {
            let winner: Color = pos.side_to_move().opponent();
            return Some((Outcome::Win(winner), EndReason::NoMoves));
        }
        if self.repetitions() >= 3 {
            return Some((Outcome::Draw, EndReason::Repetition));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bushka::Position;

    #[test]
    fn kings_shuffling_draw_by_threefold_repetition() {
        let mut g = GameRecord::new(Position::parse_position("W:WKe1:BKa5").unwrap());
        for round in 0..2 {
            for m in ["e12", "a56", "e21", "a65"] {
                assert_eq!(g.outcome(), None, "round {round} before {m}");
                g.push_text(m).unwrap();
            }
        }
        assert_eq!(g.repetitions(), 3);
        assert_eq!(g.outcome(), Some((Outcome::Draw, EndReason::Repetition)));
        assert_eq!(g.search_history().len(), 8);
        assert!(g.pop());
        assert_eq!(g.outcome(), None);
    }

    /// King moves count as plies without progress, one each; a man move
    /// starts the count again.
    #[test]
    fn king_moves_count_until_a_man_moves() {
        let mut g = GameRecord::new(Position::parse_position("W:WKe1,h4:BKa5,c8").unwrap());
        for (n, m) in ["e12", "a56", "e23", "a65", "e34", "a56"]
            .iter()
            .enumerate()
        {
            g.push_text(m).unwrap();
            assert_eq!(g.plies_without_progress(), n + 1, "after {m}");
            assert_eq!(g.repetitions(), 1, "after {m}");
        }
        g.push_text("h45").unwrap();
        assert_eq!(g.plies_without_progress(), 0);
        g.push_text("a65").unwrap();
        assert_eq!(g.plies_without_progress(), 1);
        assert!(g.pop() && g.pop());
        assert_eq!(g.plies_without_progress(), 6);
    }

    #[test]
    fn no_legal_move_loses_and_man_moves_reset_repetition() {
        let mut g = GameRecord::new(Position::parse_position("W:We1,e6,e7:Be4,e5").unwrap());
        for m in ["e12", "e5x3", "e7x5"] {
            g.push_text(m).unwrap();
        }
        assert_eq!(
            g.outcome(),
            Some((Outcome::Win(Color::White), EndReason::NoMoves))
        );
        assert_eq!(g.plies_without_progress(), 0);
        assert!(g.search_history().is_empty());
    }
}
