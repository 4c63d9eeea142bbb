//! Position text (docs/rules.md 2.5): `W:a1=w,c3=wb,d6=Bww,h8=b`.
//!
//! The side to move, a colon, then every occupied square as `square=column`
//! with the column written from the top piece down. A text with no columns
//! (`W:`) is accepted: it is a finished game, the side to move has no move.
//! Printing lists the squares in index order (`a1 c1 e1 g1 b2 ...`).

use super::column::{Column, Piece, MAX_HEIGHT};
use super::geometry::{parse_square, square_name, SquareNameError, SQUARES};
use super::position::Position;
use crate::game::{Color, PositionError};

impl Position {
    /// Reads a position text; every problem is a typed error, never a panic.
    pub fn parse(text: &str) -> Result<Position, PositionError> {
        let text = text.trim();
        let Some((side, list)) = text.split_once(':') else {
            return Err(malformed("expected the side to move, ':' and the columns"));
        };
        let side = match side.trim() {
            "W" => Color::White,
            "B" => Color::Black,
            other => {
                return Err(malformed(&format!(
                    "side to move must be W or B, not '{}'",
                    crate::files::quoted(other, 40)
                )))
            }
        };
        let list = list.trim();
        if list.contains(':') {
            // Bushka's `W:W...:B...` shape: Bashnya has no piece lists.
            return Err(malformed(
                "one ':' only, after the side to move; columns follow as square=column, separated by commas (W:a1=w,c3=wb)",
            ));
        }
        let mut columns = Vec::new();
        if !list.is_empty() {
            for item in list.split(',') {
                columns.push(parse_entry(item.trim())?);
            }
        }
        Position::from_columns(side, &columns)
    }

    /// Writes the position text, squares in index order.
    pub fn text(&self) -> String {
        let entries: Vec<String> = (0..SQUARES as u8)
            .filter(|&sq| self.occ & (1 << sq) != 0)
            .map(|sq| format!("{}={}", square_name(sq), self.column(sq).text()))
            .collect();
        format!("{}:{}", self.side.letter(), entries.join(","))
    }
}

fn malformed(why: &str) -> PositionError {
    PositionError::Malformed(why.to_string())
}

/// Reads one `square=column` entry.
fn parse_entry(item: &str) -> Result<(u8, Column), PositionError> {
    if item.is_empty() {
        return Err(malformed("empty entry in the column list"));
    }
    let Some((name, pieces)) = item.split_once('=') else {
        return Err(malformed(&format!(
            "'{}' is not square=column",
            crate::files::quoted(item, 40)
        )));
    };
    let name = name.trim();
    let sq = match parse_square(name) {
        Ok(sq) => sq,
        Err(SquareNameError::Unknown) => {
            return Err(PositionError::UnknownSquare(name.to_string()))
        }
        Err(SquareNameError::Light) => return Err(PositionError::LightSquare(name.to_string())),
    };
    Ok((sq, parse_column(sq, pieces.trim())?))
}

/// Reads a column, top piece first.
fn parse_column(sq: u8, text: &str) -> Result<Column, PositionError> {
    let bad = |why: String| PositionError::BadColumn(square_name(sq), why);
    if text.is_empty() {
        return Err(bad("no pieces".into()));
    }
    let mut pieces = Vec::new();
    for c in text.chars() {
        let Some(piece) = Piece::from_letter(c) else {
            return Err(bad(format!("unknown piece '{c}' (expected w, W, b or B)")));
        };
        if pieces.len() == MAX_HEIGHT as usize {
            return Err(PositionError::TooManyPieces(format!(
                "more than {MAX_HEIGHT} pieces on {}",
                square_name(sq)
            )));
        }
        pieces.push(piece);
    }
    Column::from_pieces(&pieces).ok_or_else(|| bad("no pieces".into()))
}
