//! Position text (docs/rules.md 1.8): `W:We1,e2,Kd3:Bc5,d4`.

use super::board::{bit, name, parse_square, promotion_row, Bits, Square};
use super::position::Position;
use crate::game::{Color, PositionError};

/// Reads a position text; every malformed input is a typed error.
pub fn parse(text: &str) -> Result<Position, PositionError> {
    let text = text.trim();
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() != 3 {
        return Err(PositionError::Malformed(format!(
            "expected 'side:Wsquares:Bsquares' (three fields separated by ':'), got {} field(s)",
            parts.len()
        )));
    }
    let mut side_text = parts[0].trim().chars();
    let side = (side_text.next().and_then(side_letter))
        .filter(|_| side_text.next().is_none())
        .ok_or_else(|| {
            PositionError::Malformed(format!(
                "side to move must be W or B, got '{}'",
                crate::files::quoted(parts[0].trim(), 40)
            ))
        })?;
    let mut pieces = [None::<u64>; 2];
    let mut kings = 0u64;
    for part in &parts[1..] {
        let part = part.trim();
        let mut chars = part.chars();
        let colour = chars.next().and_then(side_letter).ok_or_else(|| {
            PositionError::Malformed(format!(
                "piece list must start with W or B, got '{}'",
                crate::files::quoted(part, 40)
            ))
        })?;
        if pieces[colour as usize].is_some() {
            return Err(PositionError::Malformed(format!(
                "the {} pieces are listed twice",
                colour.name()
            )));
        }
        let (set, k) = parse_list(
            chars.as_str(),
            colour,
            pieces[colour.opponent() as usize].unwrap_or(0),
        )?;
        pieces[colour as usize] = Some(set);
        kings |= k;
    }
    let (white, black) = (pieces[0].unwrap_or(0), pieces[1].unwrap_or(0));
    if let Some(sq) = Bits(white & black).next() {
        return Err(PositionError::DuplicateSquare(name(sq)));
    }
    Ok(Position::from_parts(white, black, kings, side))
}

/// The colour named by a side letter.
fn side_letter(c: char) -> Option<Color> {
    match c {
        'W' => Some(Color::White),
        'B' => Some(Color::Black),
        _ => None,
    }
}

/// Reads `e1,Kd3,...`: returns the side's pieces and its kings.
fn parse_list(list: &str, colour: Color, other: u64) -> Result<(u64, u64), PositionError> {
    let (mut set, mut kings) = (0u64, 0u64);
    if list.trim().is_empty() {
        return Ok((0, 0));
    }
    for item in list.split(',') {
        let item = item.trim();
        let (king, sq_text) = match item.strip_prefix('K') {
            Some(rest) => (true, rest.trim()),
            None => (false, item),
        };
        if sq_text.is_empty() {
            return Err(PositionError::Malformed(format!(
                "empty entry in the {} piece list",
                colour.name()
            )));
        }
        let sq: Square = parse_square(sq_text)
            .ok_or_else(|| PositionError::UnknownSquare(sq_text.to_string()))?;
        if (set | other) & bit(sq) != 0 {
            return Err(PositionError::DuplicateSquare(name(sq)));
        }
        if !king && promotion_row(colour) & bit(sq) != 0 {
            return Err(PositionError::ManOnPromotionRow(colour.name(), name(sq)));
        }
        set |= bit(sq);
        if king {
            kings |= bit(sq);
        }
    }
    Ok((set, kings))
}

/// Writes the position text, squares in board order.
pub fn format(pos: &Position) -> String {
    let list = |side: Color| {
        Bits(pos.pieces(side))
            .map(|sq| {
                let k = if pos.kings(side) & bit(sq) != 0 {
                    "K"
                } else {
                    ""
                };
                format!("{k}{}", name(sq))
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        "{}:W{}:B{}",
        pos.side().letter(),
        list(Color::White),
        list(Color::Black)
    )
}
