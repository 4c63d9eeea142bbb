//! Legal move generation (docs/rules.md 1.3-1.5) and bulk move counting.
//!
//! Order of precedence: linear captures (most pieces), else piece captures
//! (most pieces), else non-capturing moves. Each resulting position is listed
//! once.

use super::board::{bit, each_dir, each_forward, shift, step, Bits, Dir, Square, BOARD, DIRS};
use super::position::Position;
use crate::movelist::MoveList;

/// How a move is made; decides its notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MoveKind {
    /// A man step, a line move or a king move.
    Quiet,
    /// A line of men steps towards an enemy piece and takes it (with its line).
    Linear,
    /// A single man or king captures by approach, possibly in several steps.
    Piece,
}

/// A Bushka move: the piece picked up, where it is put, and what it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The square of the piece picked up (for a line move, the back man moved).
    pub from: Square,
    /// The square where that piece ends.
    pub to: Square,
    /// How the move is made.
    pub kind: MoveKind,
    /// Every enemy piece taken (empty for a quiet move).
    pub captured: u64,
}

impl Move {
    /// Number of pieces the move takes.
    #[inline(always)]
    pub fn capture_count(&self) -> u32 {
        self.captured.count_ones()
    }

    /// Two piece captures lead to the same position exactly when this key is
    /// equal: a capture that ends where it started leaves the capturer's
    /// pieces as they were, whichever piece made it.
    #[inline(always)]
    fn identity(&self) -> (Square, Square, u64) {
        if self.from == self.to {
            (0, 0, self.captured)
        } else {
            (self.from, self.to, self.captured)
        }
    }
}

/// The squares of the side to move and its opponent, from the mover's view.
#[derive(Clone, Copy)]
struct Sides {
    men: u64,
    kings: u64,
    opp: u64,
    opp_men: u64,
    empty: u64,
}

impl Sides {
    #[inline(always)]
    fn of(pos: &Position) -> Sides {
        let us = pos.side();
        let them = us.opponent();
        Sides {
            men: pos.men(us),
            kings: pos.kings(us),
            opp: pos.pieces(them),
            opp_men: pos.men(them),
            empty: BOARD & !pos.occupied(),
        }
    }
}

/// Heads of lines of men in direction `d` that have a linear capture.
#[inline(always)]
fn linear_heads(s: &Sides, d: Dir) -> u64 {
    let r = d.reverse();
    s.men & shift(s.men, d) & shift(s.empty, r) & shift(shift(s.opp, r), r)
}

/// Men isolated in direction `d` that can start a piece capture that way.
#[inline(always)]
fn man_capture_starts(s: &Sides, d: Dir) -> u64 {
    let r = d.reverse();
    s.men & !shift(s.men, d) & shift(s.empty, r) & shift(shift(s.opp, r), r)
}

/// Squares on the empty rays of `sliders` in direction `d` (the king moves).
#[inline(always)]
pub(crate) fn ray_fill(sliders: u64, empty: u64, d: Dir) -> u64 {
    let mut reach = 0;
    let mut front = shift(sliders, d) & empty;
    while front != 0 {
        reach |= front;
        front = shift(front, d) & empty;
    }
    reach
}

/// True when some king of the mover can capture in direction `d`.
#[inline(always)]
fn king_can_capture(s: &Sides, d: Dir) -> bool {
    shift(ray_fill(s.kings, s.empty, d), d) & s.opp != 0
}

/// True when the mover has a linear capture.
#[inline(always)]
fn sides_have_linear_capture(s: &Sides) -> bool {
    let mut heads = 0;
    each_dir(|d| heads |= linear_heads(s, d));
    heads != 0
}

/// True when the side to move must capture (a linear or a piece capture).
pub fn has_capture(pos: &Position) -> bool {
    sides_have_capture(&Sides::of(pos))
}

/// A man with an empty square and then an enemy piece ahead in some direction
/// captures either way: as the head of a line, or alone when isolated.
#[inline(always)]
fn sides_have_capture(s: &Sides) -> bool {
    let mut men = 0;
    each_dir(|d| {
        let r = d.reverse();
        men |= s.men & shift(s.empty, r) & shift(shift(s.opp, r), r);
    });
    men != 0 || (s.kings != 0 && kings_can_capture(s))
}

/// True when some king of the mover can capture.
#[inline(always)]
fn kings_can_capture(s: &Sides) -> bool {
    let mut any = false;
    each_dir(|d| any |= king_can_capture(s, d));
    any
}

/// Number of legal moves: popcounts when there is no capture.
pub fn count_moves(pos: &Position) -> u64 {
    count_if_quiet(pos).unwrap_or_else(|| {
        let mut list = MoveList::new();
        generate(pos, &mut list);
        list.len() as u64
    })
}

/// Number of legal moves when the side to move has no capture, else `None`.
#[inline]
pub fn count_if_quiet(pos: &Position) -> Option<u64> {
    let s = Sides::of(pos);
    if sides_have_capture(&s) {
        return None;
    }
    let mut n = 0u64;
    each_forward(pos.side(), |d| {
        // Men whose chain of own men ahead ends on an empty square: each one
        // gives one move (the head's step, or a line move placing it in front).
        let r = d.reverse();
        let mut front = s.men & shift(s.empty, r);
        while front != 0 {
            n += front.count_ones() as u64;
            front = s.men & shift(front, r);
        }
    });
    if s.kings != 0 {
        each_dir(|d| n += ray_fill(s.kings, s.empty, d).count_ones() as u64);
    }
    Some(n)
}

/// `None` when the side to move must capture, else whether it has a move.
#[inline]
pub fn quiet_moves_exist(pos: &Position) -> Option<bool> {
    let s = Sides::of(pos);
    if sides_have_capture(&s) {
        return None;
    }
    // The front man of every chain that can move has an empty square ahead,
    // so some man can move exactly when some man has one; a king can move
    // when any neighbouring square is empty.
    let mut movers = 0;
    each_forward(pos.side(), |d| {
        movers |= s.men & shift(s.empty, d.reverse());
    });
    if s.kings != 0 {
        each_dir(|d| movers |= s.kings & shift(s.empty, d.reverse()));
    }
    Some(movers != 0)
}

/// Fills `out` with every legal move of the side to move.
pub fn generate(pos: &Position, out: &mut MoveList<Move>) {
    out.clear();
    let s = Sides::of(pos);
    if sides_have_linear_capture(&s) {
        linear_captures(pos, &s, out);
    } else if has_piece_capture(&s) {
        piece_captures(&s, out);
    } else {
        quiet_moves(pos, &s, out);
    }
}

/// True when a man or king can start a piece capture (no linear capture given).
#[inline(always)]
fn has_piece_capture(s: &Sides) -> bool {
    let mut men = 0;
    each_dir(|d| men |= man_capture_starts(s, d));
    men != 0 || (s.kings != 0 && kings_can_capture(s))
}

/// Non-capturing moves: man steps, line moves, king moves.
fn quiet_moves(pos: &Position, s: &Sides, out: &mut MoveList<Move>) {
    each_forward(pos.side(), |d| {
        let r = d.reverse();
        let delta = super::board::DELTA[d as usize] as i32;
        let mut front = s.men & shift(s.empty, r);
        let mut dist = 1;
        while front != 0 {
            for from in Bits(front) {
                let to = (from as i32 + dist * delta) as Square;
                out.push(quiet(from, to));
            }
            front = s.men & shift(front, r);
            dist += 1;
        }
    });
    for k in Bits(s.kings) {
        for d in DIRS {
            let mut t = step(k, d);
            while let Some(sq) = t {
                if s.empty & bit(sq) == 0 {
                    break;
                }
                out.push(quiet(k, sq));
                t = step(sq, d);
            }
        }
    }
}

#[inline(always)]
fn quiet(from: Square, to: Square) -> Move {
    Move {
        from,
        to,
        kind: MoveKind::Quiet,
        captured: 0,
    }
}

/// Linear captures, keeping those that take the most pieces.
fn linear_captures(pos: &Position, s: &Sides, out: &mut MoveList<Move>) {
    let mut best = 0;
    for d in DIRS {
        for head in Bits(linear_heads(s, d)) {
            let (Some(front), r) = (step(head, d), d.reverse()) else {
                continue;
            };
            let Some(target) = step(front, d) else {
                continue;
            };
            let captured = if pos.kings & bit(target) != 0 {
                bit(target)
            } else {
                let mut line = 0;
                let mut t = Some(target);
                while let Some(sq) = t.filter(|&sq| s.opp_men & bit(sq) != 0) {
                    line |= bit(sq);
                    t = step(sq, d);
                }
                line
            };
            let count = captured.count_ones();
            if count < best {
                continue;
            }
            if count > best {
                best = count;
                out.clear();
            }
            let mut back = step(head, r);
            while let Some(sq) = back.filter(|&sq| s.men & bit(sq) != 0) {
                out.push(Move {
                    from: sq,
                    to: front,
                    kind: MoveKind::Linear,
                    captured,
                });
                back = step(sq, r);
            }
        }
    }
}

/// State of the piece-capture search: the best count so far and the board.
struct CaptureSearch<'a> {
    out: &'a mut MoveList<Move>,
    best: u32,
    /// Occupied squares with the capturing piece lifted off its start.
    occupied: u64,
    opp: u64,
    from: Square,
}

impl CaptureSearch<'_> {
    fn record(&mut self, to: Square, captured: u64) {
        let count = captured.count_ones();
        if count < self.best {
            return;
        }
        if count > self.best {
            self.best = count;
            self.out.clear();
        }
        let mv = Move {
            from: self.from,
            to,
            kind: MoveKind::Piece,
            captured,
        };
        let id = mv.identity();
        if !self.out.iter().any(|m| m.identity() == id) {
            self.out.push(mv);
        }
    }

    /// A man on `sq` has taken `captured`; try every next step.
    fn man(&mut self, sq: Square, captured: u64) {
        let mut any = false;
        for d in DIRS {
            let Some(land) = step(sq, d).filter(|&a| self.occupied & bit(a) == 0) else {
                continue;
            };
            if let Some(t) = step(land, d) {
                if (self.opp & !captured) & bit(t) != 0 {
                    any = true;
                    self.man(land, captured | bit(t));
                }
            }
        }
        if !any {
            self.record(sq, captured);
        }
    }

    /// A king on `sq` has taken `captured`; try every next step.
    fn king(&mut self, sq: Square, captured: u64) {
        let mut any = false;
        for d in DIRS {
            let mut land = None;
            let mut t = step(sq, d);
            while let Some(x) = t.filter(|&x| self.occupied & bit(x) == 0) {
                land = Some(x);
                t = step(x, d);
            }
            if let (Some(land), Some(t)) = (land, t) {
                if (self.opp & !captured) & bit(t) != 0 {
                    any = true;
                    self.king(land, captured | bit(t));
                }
            }
        }
        if !any && captured != 0 {
            self.record(sq, captured);
        }
    }
}

/// Piece captures by single men and kings, keeping those that take the most.
fn piece_captures(s: &Sides, out: &mut MoveList<Move>) {
    let all = s.men | s.kings | s.opp;
    let mut search = CaptureSearch {
        out,
        best: 1,
        occupied: all,
        opp: s.opp,
        from: 0,
    };
    for d in DIRS {
        for m in Bits(man_capture_starts(s, d)) {
            let Some(land) = step(m, d) else { continue };
            let Some(target) = step(land, d) else {
                continue;
            };
            search.from = m;
            search.occupied = all & !bit(m);
            search.man(land, bit(target));
        }
    }
    for k in Bits(s.kings) {
        search.from = k;
        search.occupied = all & !bit(k);
        search.king(k, 0);
    }
}
