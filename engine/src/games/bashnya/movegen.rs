//! Legal move generation and bulk counting (RULES.md 2.2-2.3).

use super::captures::{CaptureSearch, CountSink, MoveSink};
use super::geometry::{
    far_rank, nearest, open_run, shift, squares, Bitboard, NE, NEIGHBOUR, NONE, NW, RAY, SE, SW,
};
use super::moves::Move;
use super::position::{Position, Rules};
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

/// Where captures start, direction by direction.
struct Jumps {
    /// `from[d]`: squares from which a man could jump in direction `d` now
    /// (an enemy column next to it, an empty square beyond).
    from: [Bitboard; 4],
    /// The side's men among them, per direction.
    men: [Bitboard; 4],
    /// The side's king-commanded columns that can capture.
    kings: Bitboard,
}

impl Jumps {
    #[inline(always)]
    fn of(pos: &Position, s: &Sides) -> Jumps {
        let mut from = [0; 4];
        let mut men = [0; 4];
        for d in 0..4 {
            let back = 3 - d;
            from[d] = shift(shift(s.empty, back) & s.enemy, back);
            men[d] = from[d] & s.men;
        }
        let kings = squares(s.kings)
            .filter(|&k| king_can_capture(k, pos.occ, s.enemy))
            .fold(0, |acc, k| acc | 1 << k);
        Jumps { from, men, kings }
    }

    /// Every column that can capture.
    #[inline(always)]
    fn capturers(&self) -> Bitboard {
        self.men[0] | self.men[1] | self.men[2] | self.men[3] | self.kings
    }

    /// The capturing men all of whose jumps end at once: no crowning, no
    /// further jump. Under RULES.md 2.3 the only changes a man's jump makes
    /// near its landing square are behind it (its start square and the jumped
    /// column, which it may not jump again at once), so whether it could go on
    /// is read from the squares' present state: `from` of every direction but
    /// the way back. With an immediate re-jump allowed, the jumped column's
    /// new commander matters, so no man qualifies and each is searched.
    #[inline(always)]
    fn one_jump_men(&self, pos: &Position, far: Bitboard) -> Bitboard {
        let capturing = self.men[0] | self.men[1] | self.men[2] | self.men[3];
        if pos.rules == Rules::ImmediateRejump || capturing == 0 {
            return 0;
        }
        let f = &self.from;
        let (low, high) = (f[0] | f[1], f[2] | f[3]);
        // Every direction but `3 - d` (the way back), for each d.
        let onward = [low | f[2], low | f[3], f[0] | high, f[1] | high];
        let mut longer = 0;
        for (d, (&men, &ahead)) in self.men.iter().zip(&onward).enumerate() {
            let back = 3 - d;
            let landings = shift(shift(men, d), d);
            let stop = landings & (ahead | far);
            longer |= shift(shift(stop, back), back);
        }
        capturing & !longer
    }
}

/// True when the side to move has a capture (and so must capture).
#[inline]
pub(crate) fn has_capture(pos: &Position) -> bool {
    Jumps::of(pos, &Sides::of(pos)).capturers() != 0
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
    let jumps = Jumps::of(pos, &sides);
    if jumps.capturers() == 0 {
        generate_quiet(pos, &sides, out);
    } else {
        generate_captures(pos, &sides, &jumps, out);
    }
}

/// Every capture, one per resulting position. Different start squares always
/// give different positions (the start square is emptied in one and not in
/// the other), so duplicates are only looked for among one column's captures.
fn generate_captures(pos: &Position, s: &Sides, jumps: &Jumps, out: &mut MoveList<Move>) {
    let simple = jumps.one_jump_men(pos, far_rank(s.black));
    for (d, &men) in jumps.men.iter().enumerate() {
        for from in squares(men & simple) {
            let over = NEIGHBOUR[d][from as usize];
            push_jump(from, over, NEIGHBOUR[d][over as usize & 31], out);
        }
    }
    let mut search = CaptureSearch::new(pos);
    let mut sink = MoveSink { out, first: 0 };
    for from in squares(jumps.capturers() & !simple) {
        if pos.kings & (1 << from) == 0 && search.single_jumps(from).is_some() {
            push_single_jumps(pos, from, sink.out);
            continue;
        }
        sink.first = sink.out.len();
        search.run(from, &mut sink);
    }
}

/// Adds a one-jump capture.
#[inline(always)]
fn push_jump(from: u8, over: u8, land: u8, out: &mut MoveList<Move>) {
    let mut mv = Move::quiet(from, land, false);
    mv.jumps = 1;
    mv.over[0] = over;
    out.push(mv);
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
            push_jump(from, over, land, out);
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
    let jumps = Jumps::of(pos, &sides);
    if jumps.capturers() == 0 {
        count_quiet(pos, &sides)
    } else {
        count_captures(pos, &sides, &jumps)
    }
}

/// Captures are deduplicated, so only men whose jumps all end at once are
/// counted with popcounts; the other columns are searched.
fn count_captures(pos: &Position, s: &Sides, jumps: &Jumps) -> u64 {
    let simple = jumps.one_jump_men(pos, far_rank(s.black));
    let m = &jumps.men;
    let mut count =
        pair_count(m[0] & simple, m[1] & simple) + pair_count(m[2] & simple, m[3] & simple);
    let mut search = CaptureSearch::new(pos);
    let mut sink = CountSink {
        count: 0,
        longer: MoveList::new(),
    };
    for from in squares(jumps.capturers() & !simple) {
        if pos.kings & (1 << from) == 0 {
            if let Some(n) = search.single_jumps(from) {
                count += n as u32;
                continue;
            }
        }
        sink.longer.clear();
        search.run(from, &mut sink);
    }
    count as u64 + sink.count
}

/// Sizes of two 32-bit sets with one 64-bit popcount (half the work without POPCNT).
#[inline(always)]
fn pair_count(a: Bitboard, b: Bitboard) -> u32 {
    (a as u64 | (b as u64) << 32).count_ones()
}

#[inline(always)]
fn count_quiet(pos: &Position, s: &Sides) -> u64 {
    let [a, b] = s.forward();
    let men = pair_count(shift(s.men, a) & s.empty, shift(s.men, b) & s.empty);
    let kings: u32 = squares(s.kings)
        .map(|k| {
            let run = |d| open_run(k, d, pos.occ);
            pair_count(run(0), run(1)) + pair_count(run(2), run(3))
        })
        .sum();
    (men + kings) as u64
}
