//! What the page and the SVG renderer see of a game: squares with their
//! pieces, and moves as square names.

use engine::bushka::board::{self as bb, Bits};
use engine::{bashnya, bushka, Game, GameKind};
use serde::Serialize;

/// One playable square and what stands on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SquareView {
    /// The square's name in the game's notation (`e1`, `c3`).
    pub name: String,
    /// Column from the left seen from White (0-based).
    pub x: u8,
    /// Row from White's edge (0-based).
    pub y: u8,
    /// The pieces, top first (`w` `W` `b` `B`); empty for an empty square.
    /// A Bushka square holds at most one piece, a Bashnya column any number.
    pub stack: String,
}

/// A position as a board to draw: its size and its playable squares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BoardView {
    /// The game.
    #[serde(serialize_with = "kind_name")]
    pub game: GameKind,
    /// Squares per side (10 for Bushka, 8 for Bashnya).
    pub size: u8,
    /// Every playable square, in the game's own order.
    pub squares: Vec<SquareView>,
}

// serde's `serialize_with` passes the field by reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn kind_name<S: serde::Serializer>(kind: &GameKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.name())
}

/// A legal or played move in the terms the page uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveView {
    /// The move in the game's notation (what `/api/move` reads back).
    pub text: String,
    /// The square the moving piece or column starts on.
    pub from: String,
    /// The square it ends on.
    pub to: String,
    /// Every square it lands on in order, `to` last (one square for a quiet
    /// move and for the capture of a Bushka line; a Bushka piece lands
    /// before each piece it takes, by one route that makes the capture).
    pub path: Vec<String>,
    /// The squares whose pieces it takes, in capture order.
    pub captured: Vec<String>,
}

/// A game the page can show: how to draw its position and describe its moves.
pub trait Drawable: Game {
    /// The board with its pieces.
    fn board_view(&self) -> BoardView;
    /// A legal move of this position as the page sees it.
    fn move_view(&self, mv: &Self::Move) -> MoveView;
}

impl Drawable for bushka::Position {
    fn board_view(&self) -> BoardView {
        let squares = Bits(bb::BOARD)
            .map(|sq| {
                let (x, y) = bb::to_xy(sq);
                let b = bb::bit(sq);
                let king = self.kings(engine::Color::White) & b != 0
                    || self.kings(engine::Color::Black) & b != 0;
                let stack = if self.pieces(engine::Color::White) & b != 0 {
                    if king {
                        "W"
                    } else {
                        "w"
                    }
                } else if self.pieces(engine::Color::Black) & b != 0 {
                    if king {
                        "B"
                    } else {
                        "b"
                    }
                } else {
                    ""
                };
                SquareView {
                    name: bb::name(sq),
                    x: x as u8,
                    y: y as u8,
                    stack: stack.to_string(),
                }
            })
            .collect();
        BoardView {
            game: GameKind::Bushka,
            size: 10,
            squares,
        }
    }

    fn move_view(&self, mv: &bushka::Move) -> MoveView {
        // A piece capture lands on a square before each piece it takes; a
        // line's capture and a quiet move land once.
        let (path, captured) = if mv.kind == bushka::MoveKind::Piece {
            bushka::notation::capture_route(self, mv)
        } else {
            let captured = if mv.captured == 0 {
                Vec::new()
            } else {
                bushka::notation::capture_order(self, mv)
            };
            (vec![mv.to], captured)
        };
        let names = |squares: Vec<u8>| squares.into_iter().map(bb::name).collect();
        MoveView {
            text: self.move_text(mv),
            from: bb::name(mv.from),
            to: bb::name(mv.to),
            path: names(path),
            captured: names(captured),
        }
    }
}

impl Drawable for bashnya::Position {
    fn board_view(&self) -> BoardView {
        let squares = (0..32u8)
            .map(|sq| SquareView {
                name: bashnya::square_name(sq),
                x: bashnya::geometry::file_of(sq),
                y: bashnya::geometry::rank_of(sq),
                stack: self.column(sq).text(),
            })
            .collect();
        BoardView {
            game: GameKind::Bashnya,
            size: 8,
            squares,
        }
    }

    fn move_view(&self, mv: &bashnya::Move) -> MoveView {
        MoveView {
            text: self.move_text(mv),
            from: bashnya::square_name(mv.from()),
            to: bashnya::square_name(mv.to()),
            path: mv
                .route()
                .iter()
                .map(|&s| bashnya::square_name(s))
                .collect(),
            captured: mv
                .jumped()
                .iter()
                .map(|&s| bashnya::square_name(s))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_boards_hold_every_piece() {
        let b = bushka::Position::start().board_view();
        assert_eq!(b.squares.len(), 50);
        assert_eq!(b.squares.iter().filter(|s| !s.stack.is_empty()).count(), 30);
        let e1 = b.squares.iter().find(|s| s.name == "e1").unwrap();
        assert_eq!((e1.x, e1.y, e1.stack.as_str()), (0, 0, "w"));
        let c = bashnya::Position::start().board_view();
        assert_eq!(c.squares.len(), 32);
        let a1 = c.squares.iter().find(|s| s.name == "a1").unwrap();
        assert_eq!((a1.x, a1.y, a1.stack.as_str()), (0, 0, "w"));
        assert_eq!(c.squares.iter().filter(|s| !s.stack.is_empty()).count(), 24);
    }
}
