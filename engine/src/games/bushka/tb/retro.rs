//! Moves played backwards: the positions one quiet move before a given one.
//!
//! Only moves that stay in the material are undone (a king's flight, a man's
//! step, a line move); captures and promotions lead into other materials,
//! whose values the builder reads when it first generates the moves forwards.

use crate::bushka::board::{bit, forward, step, Bits, BOARD, DIRS};
use crate::bushka::movegen::has_capture;
use crate::bushka::Position;

/// Calls `f` with every position from which a legal non-capturing,
/// non-promoting move leads to `pos`, each once.
pub fn predecessors(pos: &Position, mut f: impl FnMut(Position)) {
    let mover = pos.side().opponent();
    let own = pos.pieces(mover);
    let men = pos.men(mover);
    let empty = BOARD & !pos.occupied();
    let them = pos.pieces(pos.side());
    let mut emit = |from: u8, to: u8, king: bool| {
        // The piece now on `to` stood on `from`.
        let moved = own ^ bit(from) ^ bit(to);
        let kings = if king {
            pos.kings(mover) ^ bit(from) ^ bit(to)
        } else {
            pos.kings(mover)
        } | pos.kings(pos.side());
        let prev = match mover {
            crate::game::Color::White => Position::from_parts(moved, them, kings, mover),
            crate::game::Color::Black => Position::from_parts(them, moved, kings, mover),
        };
        // A quiet move is legal only when there is no capture to make.
        if !has_capture(&prev) {
            f(prev);
        }
    };
    for to in Bits(pos.kings(mover)) {
        for d in DIRS {
            let mut s = to;
            while let Some(n) = step(s, d) {
                if empty & bit(n) == 0 {
                    break;
                }
                emit(n, to, true);
                s = n;
            }
        }
    }
    for to in Bits(men) {
        for d in forward(mover) {
            // Back along the line: own men (a line move) until an empty square.
            let back = d.reverse();
            let mut s = to;
            while let Some(n) = step(s, back) {
                if empty & bit(n) != 0 {
                    emit(n, to, false);
                    break;
                }
                if men & bit(n) == 0 {
                    break;
                }
                s = n;
            }
        }
    }
}
