//! The move type: a step, a king move or a capture with its full route.

use super::geometry::square_name;
use std::fmt;

/// Most jumps in one capture: each takes an enemy piece, and a side has at most 12.
pub const MAX_JUMPS: usize = 12;

/// A legal move. A capture keeps its route (every landing square) and the
/// squares it jumped, in order, so it can be printed and replayed.
///
/// Unused route entries are always zero, so derived equality is exact.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    pub(crate) from: u8,
    /// Number of jumps; 0 for a non-capturing move.
    pub(crate) jumps: u8,
    /// True when the moving column's commander is a man that becomes a king.
    pub(crate) promotes: bool,
    /// Landing squares; a non-capturing move has its destination in `path[0]`.
    pub(crate) path: [u8; MAX_JUMPS],
    /// The jumped squares, in capture order.
    pub(crate) over: [u8; MAX_JUMPS],
}

impl Move {
    /// A non-capturing move from `from` to `to`.
    #[inline(always)]
    pub(crate) fn quiet(from: u8, to: u8, promotes: bool) -> Move {
        let mut path = [0; MAX_JUMPS];
        path[0] = to;
        Move {
            from,
            jumps: 0,
            promotes,
            path,
            over: [0; MAX_JUMPS],
        }
    }

    /// The square the moving column starts on.
    pub fn from(&self) -> u8 {
        self.from
    }

    /// The square the moving column ends on.
    pub fn to(&self) -> u8 {
        self.path[(self.jumps as usize).clamp(1, MAX_JUMPS) - 1]
    }

    /// True for a capture.
    pub fn is_capture(&self) -> bool {
        self.jumps > 0
    }

    /// Number of pieces taken (0 for a non-capturing move).
    pub fn captures(&self) -> u32 {
        self.jumps as u32
    }

    /// True when the moving commander is a man that becomes a king.
    pub fn promotes(&self) -> bool {
        self.promotes
    }

    /// The landing squares of a capture in order (the destination of a quiet move).
    pub fn route(&self) -> &[u8] {
        &self.path[..(self.jumps as usize).clamp(1, MAX_JUMPS)]
    }

    /// The squares jumped by a capture, in order (empty for a quiet move).
    pub fn jumped(&self) -> &[u8] {
        &self.over[..(self.jumps as usize).min(MAX_JUMPS)]
    }
}

/// The notation of docs/rules.md 2.5: `c3-d4`, or `c3:e5:c7` for a capture.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", square_name(self.from))?;
        let sep = if self.is_capture() { ':' } else { '-' };
        for &sq in self.route() {
            write!(f, "{sep}{}", square_name(sq))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self})")
    }
}
