//! A terminal picture of a Bushka position.

use super::board::{bit, from_xy, name};
use super::position::Position;
use crate::game::Color;

/// The board seen from White, top row first. Every dark square shows its
/// name, after the piece on it if any: `w` `W` (White man, king), `b` `B`.
pub fn diagram(pos: &Position) -> String {
    let mut out = String::new();
    for y in (0..10).rev() {
        out.push_str("   ");
        for x in 0..10 {
            match from_xy(x, y) {
                None => out.push_str("    "),
                Some(sq) => {
                    let b = bit(sq);
                    let king = pos.kings & b != 0;
                    let piece = match (
                        pos.pieces(Color::White) & b != 0,
                        pos.pieces(Color::Black) & b != 0,
                    ) {
                        (true, _) if king => 'W',
                        (true, _) => 'w',
                        (_, true) if king => 'B',
                        (_, true) => 'b',
                        _ => ' ',
                    };
                    out.push_str(&format!("{piece}{} ", name(sq)));
                }
            }
        }
        out.push('\n');
    }
    out.push_str(&format!("   {} to move\n", pos.side().name()));
    out
}
