//! A terminal picture of a Bashnya position.

use super::geometry::square_at;
use super::position::Position;

/// The board seen from White, rank 8 on top, files and ranks marked. Each
/// column shows its pieces from the top down (`w` `W` White man and king,
/// `b` `B` Black), so the first letter is its commander.
pub fn diagram(pos: &Position) -> String {
    let width = (0..32u8)
        .map(|sq| pos.column(sq).height() as usize)
        .max()
        .unwrap_or(1)
        .clamp(1, 24);
    let mut out = String::new();
    for rank in (0..8).rev() {
        out.push_str(&format!(" {} ", rank + 1));
        for file in 0..8 {
            let cell = match square_at(file, rank) {
                None => String::new(),
                Some(sq) => {
                    let col = pos.column(sq);
                    if col.is_empty() {
                        ".".to_string()
                    } else {
                        col.text()
                    }
                }
            };
            out.push_str(&format!(" {cell:<width$}"));
        }
        out.push('\n');
    }
    out.push_str("   ");
    for f in "abcdefgh".chars() {
        out.push_str(&format!(" {f:<width$}"));
    }
    out.push_str(&format!("\n   {} to move\n", pos.side().name()));
    out
}
