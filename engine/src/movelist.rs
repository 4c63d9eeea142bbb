//! A move list that lives on the stack in every realistic position.

use smallvec::SmallVec;

/// Moves held inline before the list spills to the heap (a pathological
/// position only; the list never drops a move).
pub const INLINE_MOVES: usize = 128;

/// The list every generator fills: inline storage, never loses a move.
pub type MoveList<M> = SmallVec<[M; INLINE_MOVES]>;
