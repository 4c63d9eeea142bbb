//! Legal move generation and bulk counting (RULES.md 2.2-2.3).

use super::captures::{CaptureSearch, CountSink, MoveSink};
use super::geometry::{
    far_rank, nearest, open_run, shift, squares, Bitboard, NE, NEIGHBOUR, NONE, NW, RAY, SE, SW,
};
use super::moves::Move;
use super::position::Position;
use crate::game::Color;
use crate::movelist::MoveList;

/// The pieces a side moves with, seen through bitboards.
struct Sides {
    enemy: Bitboard,
    empty: Bitboard,
    men: Bitboard,
    kings: Bitboard,
    black: bool,
}

impl Sides {
    #[inline(always)]
    fn of(pos: &Position) -> Sides {
        let black = pos.side == Color::Black;
        let own = if black {
            pos.black
        } else {
            pos.occ & !pos.black
        };
        Sides {
            enemy: pos.occ & !own,
            empty: !pos.occ,
            men: own & !pos.kings,
            kings: own & pos.kings,
            black,
        }
    }

    /// The two forward directions of the side's men.
    #[inline(always)]
    fn forward(&self) -> [usize; 2] {
        if self.black {
            [SE, SW]
        } else {
            [NE, NW]
        }
    }
}

/// True when the side to move has a capture (and so must capture).
#[inline]
pub(crate) fn has_capture(pos: &Position) -> bool {
    capturers(pos, &Sides::of(pos)) != 0
}

/// The side's columns that can capture now.
#[inline(always)]
fn capturers(pos: &Position, s: &Sides) -> Bitboard {
    let mut men = 0;
    for d in 0..4 {
        let back = 3 - d;
        men |= shift(shift(s.empty, back) & s.enemy, back);
    }
    let kings = squares(s.kings)
        .filter(|&k| king_can_capture(k, pos.occ, s.enemy))
        .fold(0, |acc, k| acc | 1 << k);
    (men & s.men) | kings
}

/// True when a king on `k` can jump some enemy column.
#[inline(always)]
fn king_can_capture(k: u8, occ: Bitboard, enemy: Bitboard) -> bool {
    (0..4).any(|d| {
        let blockers = RAY[d][k as usize] & occ;
        if blockers == 0 {
            return false;
        }
        let over = nearest(blockers, d);
        let land = NEIGHBOUR[d][over as usize];
        enemy & (1 << over) != 0 && land != NONE && occ & (1 << land) == 0
    })
}

/// Fills `out` with every legal move, one per resulting position.
pub(crate) fn generate(pos: &Position, out: &mut MoveList<Move>) {
    out.clear();
    let sides = Sides::of(pos);
    match capturers(pos, &sides) {
        0 => generate_quiet(pos, &sides, out),
        from => generate_captures(pos, from, out),
    }
}

/// Every capture, one per resulting position. Different start squares always
/// give different positions (the start square is emptied in one and not in
/// the other), so duplicates are only looked for among one column's captures.
fn generate_captures(pos: &Position, capturers: Bitboard, out: &mut MoveList<Move>) {
    let mut search = CaptureSearch::new(pos);
    let mut sink = MoveSink { out, first: 0 };
    for from in squares(capturers) {
        if pos.kings & (1 << from) == 0 && search.single_jumps(from).is_some() {
            push_single_jumps(pos, from, sink.out);
            continue;
        }
        sink.first = sink.out.len();
        search.run(from, &mut sink);
    }
}

/// The one-jump captures of a man-commanded column known to have no longer
/// ones (see `CaptureSearch::single_jumps`).
fn push_single_jumps(pos: &Position, from: u8, out: &mut MoveList<Move>) {
    let black = pos.side == Color::Black;
    let enemy = if black {
        pos.occ & !pos.black
    } else {
        pos.black
    };
    let empty = !pos.occ | 1 << from;
    for next in &NEIGHBOUR {
        let over = next[from as usize];
        if over == NONE || enemy & (1 << over) == 0 {
            continue;
        }
        let land = next[over as usize];
        if land != NONE && empty & (1 << land) != 0 {
            let mut mv = Move::quiet(from, land, false);
            mv.jumps = 1;
            mv.over[0] = over;
            out.push(mv);
        }
    }
}

/// Every non-capturing move: men step forward, kings fly.
fn generate_quiet(pos: &Position, s: &Sides, out: &mut MoveList<Move>) {
    let far = far_rank(s.black);
    for d in s.forward() {
        let back = 3 - d;
        for to in squares(shift(s.men, d) & s.empty) {
            let from = NEIGHBOUR[back][to as usize];
            out.push(Move::quiet(from, to, far & (1 << to) != 0));
        }
    }
    for k in squares(s.kings) {
        for d in 0..4 {
            for to in squares(open_run(k, d, pos.occ)) {
                out.push(Move::quiet(k, to, false));
            }
        }
    }
}

/// The number of legal moves: non-capturing moves are counted with popcounts,
/// captures are searched and deduplicated.
#[inline]
pub(crate) fn count(pos: &Position) -> u64 {
    let sides = Sides::of(pos);
    match capturers(pos, &sides) {
        0 => count_quiet(pos, &sides),
        from => count_captures(pos, from),
    }
}

/// Captures are searched and deduplicated, but not built into a list.
fn count_captures(pos: &Position, capturers: Bitboard) -> u64 {
    let mut search = CaptureSearch::new(pos);
    let mut sink = CountSink {
        count: 0,
        longer: MoveList::new(),
    };
    for from in squares(capturers) {
        if pos.kings & (1 << from) == 0 {
            if let Some(n) = search.single_jumps(from) {
                sink.count += n;
                continue;
            }
        }
        sink.longer.clear();
        search.run(from, &mut sink);
    }
    sink.count
}

#[inline(always)]
fn count_quiet(pos: &Position, s: &Sides) -> u64 {
    // Two 32-bit sets per 64-bit popcount: half the work without POPCNT.
    let pair = |a: Bitboard, b: Bitboard| (a as u64 | (b as u64) << 32).count_ones();
    let [a, b] = s.forward();
    let men = pair(shift(s.men, a) & s.empty, shift(s.men, b) & s.empty);
    let kings: u32 = squares(s.kings)
        .map(|k| {
            let run = |d| open_run(k, d, pos.occ);
            pair(run(0), run(1)) + pair(run(2), run(3))
        })
        .sum();
    (men + kings) as u64
}
