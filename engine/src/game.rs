//! The interface every game implements.

use crate::movelist::MoveList;
use std::fmt::Debug;
use std::hash::Hash;
use thiserror::Error;

/// A side: White moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The side that moves first, playing up the board.
    White = 0,
    /// The second side.
    Black = 1,
}

impl Color {
    /// The other side.
    #[inline]
    pub fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `W` or `B`, as in position texts.
    pub fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }

    /// `white` or `black`.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

/// Which of the two games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameKind {
    /// Freeling's Bushka, 10x10.
    Bushka,
    /// Russian column draughts, 8x8.
    Bashnya,
}

impl GameKind {
    /// The lower-case name used on the command line and in records.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Bushka => "bushka",
            GameKind::Bashnya => "bashnya",
        }
    }
}

impl std::str::FromStr for GameKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "bushka" => Ok(GameKind::Bushka),
            "bashnya" | "bashni" => Ok(GameKind::Bashnya),
            _ => Err(format!(
                "unknown game '{}' (expected bushka or bashnya)",
                crate::files::quoted(s, 40)
            )),
        }
    }
}

/// The end of a game, from the rules' point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The given side won (its opponent had no legal move).
    Win(Color),
    /// Drawn (threefold repetition or adjudication).
    Draw,
}

/// Why a position text was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    /// The overall shape is wrong (missing fields, bad side letter, ...).
    #[error("malformed position: {}", crate::files::quoted(.0, 200))]
    Malformed(String),
    /// A square name that does not exist on this board.
    #[error("unknown square '{}'", crate::files::quoted(.0, 120))]
    UnknownSquare(String),
    /// A light square, where no piece stands.
    #[error("square '{}' is a light square (pieces stand on the dark ones)", crate::files::quoted(.0, 120))]
    LightSquare(String),
    /// The same square given twice.
    #[error("square {} listed twice", crate::files::quoted(.0, 120))]
    DuplicateSquare(String),
    /// A man standing where it would already have been promoted.
    #[error("{} man on {}, its promotion row, would be a king", .0, crate::files::quoted(.1, 120))]
    ManOnPromotionRow(&'static str, String),
    /// A column description with no pieces or an unknown piece letter.
    #[error("bad column on {}: {}", crate::files::quoted(.0, 120), crate::files::quoted(.1, 120))]
    BadColumn(String, String),
    /// More pieces than the game can hold.
    #[error("too many pieces: {}", crate::files::quoted(.0, 120))]
    TooManyPieces(String),
}

/// Why a move text was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveError {
    /// The text is not in the game's notation.
    #[error("cannot read move '{}': {}", crate::files::quoted(.0, 120), crate::files::quoted(.1, 120))]
    Syntax(String, String),
    /// Well-formed, but no legal move matches.
    #[error("illegal move '{}'", crate::files::quoted(.0, 120))]
    Illegal(String),
    /// Several legal moves match the text.
    #[error("ambiguous move '{}': could be {}", crate::files::quoted(.0, 120), .1)]
    Ambiguous(String, String),
    /// No legal move matches, and a capture is due: the legal moves (the
    /// captures the rules leave) are named, as new players most often try
    /// a quiet move then.
    #[error("illegal move '{}': a capture is due, the legal moves are {}", crate::files::quoted(.0, 120), .1)]
    CaptureDue(String, String),
}

impl MoveError {
    /// [`MoveError::Illegal`] for `text`, or [`MoveError::CaptureDue`]
    /// naming the legal moves `names` (at most eight, then how many more)
    /// when `capture_due`.
    pub fn no_match(text: &str, capture_due: bool, names: &[String]) -> MoveError {
        if !capture_due || names.is_empty() {
            return MoveError::Illegal(text.to_string());
        }
        MoveError::CaptureDue(text.to_string(), crate::files::first_named(names, 8))
    }
}

/// A game's position and rules: everything generic code needs.
///
/// Positions are small `Copy` values; [`Game::play`] returns the next one
/// (copy-make). Moves are identified by the position they produce: the
/// generator never emits two moves with the same result.
pub trait Game: Copy + Eq + Hash + Debug + Send + Sync + 'static {
    /// A legal move of this game.
    type Move: Copy + Eq + Hash + Debug + Send + Sync + 'static;

    /// Which game this is.
    const KIND: GameKind;

    /// The least remaining depth at which a search running alone reads and
    /// writes the transposition table (with helper threads it is always 1:
    /// shallow entries are what the threads share). See
    /// `search::worker::table_depth` for the measurements behind each game's value.
    const SINGLE_THREAD_TABLE_DEPTH: i32 = 1;

    /// The depth `bushka bench` searches its positions to: a few seconds a
    /// game at one thread.
    const BENCH_DEPTH: u32;

    /// The bench positions, one position text a line (`data/bench/`).
    const BENCH_POSITIONS: &'static str;

    /// The built-in opening book, one position text a line (`data/openings/`).
    const OPENING_BOOK: &'static str;

    /// The initial position.
    fn start() -> Self;

    /// The side to move.
    fn side_to_move(&self) -> Color;

    /// Appends every legal move to `out` (which is cleared first).
    fn generate(&self, out: &mut MoveList<Self::Move>);

    /// The number of legal moves, as fast as the game allows (perft leaves).
    fn count_moves(&self) -> u64 {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list.len() as u64
    }

    /// Leaf count of the move tree `depth` plies deep (see [`crate::perft`]).
    /// The generic walk; a game with a faster one of its own replaces it.
    fn perft(&self, depth: u32) -> u64 {
        crate::perft::walk(self, depth)
    }

    /// What the search asks of a leaf before scoring it statically: `None`
    /// when the side to move must capture, else whether it has any move at
    /// all (none is a loss). Games answer it with a few bitboard operations.
    fn quiet_moves_exist(&self) -> Option<bool> {
        if self.must_capture() {
            None
        } else {
            Some(self.count_moves() > 0)
        }
    }

    /// The position after a legal move.
    fn play(&self, mv: &Self::Move) -> Self;

    /// The Zobrist hash of the whole position, side to move included.
    fn hash(&self) -> u64;

    /// The same hash computed from the pieces, not kept incrementally: equal
    /// to [`Game::hash`] always (debug builds check it during searches).
    fn hash_from_scratch(&self) -> u64;

    /// True when the side to move must capture.
    fn must_capture(&self) -> bool;

    /// True when the move captures.
    fn is_capture(mv: &Self::Move) -> bool;

    /// Pieces the move captures (0 for a quiet move).
    fn captured_count(mv: &Self::Move) -> u32;

    /// True when no position before the move `mv` (which leads to `after`)
    /// can occur again after it, so repetitions need not look back past it.
    /// In Bushka, a capture or a man move; in Bashnya, where no piece
    /// leaves the board, only a move that empties a square or crowns a man
    /// (a capture that only shortens columns can be undone).
    fn is_irreversible(&self, mv: &Self::Move, after: &Self) -> bool;

    /// True for a capture or a man move (in Bashnya, a move of a column
    /// commanded by a man): the moves that end a run of plies without
    /// progress (docs/rules.md, section 4).
    fn is_progress(&self, mv: &Self::Move) -> bool;

    /// Reads a position text (docs/rules.md 1.8 / 2.5).
    fn parse_position(text: &str) -> Result<Self, PositionError>;

    /// Writes the position text; `parse_position` reads it back unchanged.
    fn to_text(&self) -> String;

    /// The notation of a legal move, disambiguated against the legal list.
    fn move_text(&self, mv: &Self::Move) -> String;

    /// Reads a move text and finds the legal move it names.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// The same position with colours swapped and the board turned round.
    fn mirror(&self) -> Self;

    /// A picture of the board for a terminal, with coordinates.
    fn diagram(&self) -> String {
        self.to_text()
    }

    /// A number that tells moves apart for the history heuristic and the
    /// killer moves (collisions only blur ordering; quiet moves should not
    /// collide). Games override it with their from and to squares.
    fn history_key(mv: &Self::Move) -> usize {
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        BuildHasherDefault::<DefaultHasher>::default().hash_one(mv) as usize
    }
}

/// Runs `$body` with the type name `$G` standing for the position type of the
/// game that `$kind` (a [`GameKind`]) names: the one place where a game chosen
/// at run time (`--game`, a record's `GameType`) becomes a type.
///
/// ```
/// use engine::{with_game, Game, GameKind};
/// let moves = with_game!(GameKind::Bashnya, G => G::start().count_moves());
/// assert_eq!(moves, 7);
/// ```
#[macro_export]
macro_rules! with_game {
    ($kind:expr, $G:ident => $body:expr) => {
        match $kind {
            $crate::GameKind::Bushka => {
                #[allow(unused_imports)]
                use $crate::Game as _;
                type $G = $crate::bushka::Position;
                $body
            }
            $crate::GameKind::Bashnya => {
                #[allow(unused_imports)]
                use $crate::Game as _;
                type $G = $crate::bashnya::Position;
                $body
            }
        }
    };
}

/// Removes trailing annotation marks (`!`, `?`, `!!`, `+`, `=`, ...) of game records.
pub fn strip_annotations(text: &str) -> &str {
    text.trim()
        .trim_end_matches(['!', '?', '+', '=', '-', '#'])
        .trim_end()
}
