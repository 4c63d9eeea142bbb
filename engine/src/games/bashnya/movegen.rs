//! Legal move generation and bulk counting (docs/rules.md 2.2-2.3).

use super::captures::{king_can_capture, CaptureSearch, CountSink, ManChains, MoveSink};
use super::geometry::{
    far_rank, open_run, shift, shift2, squares, Bitboard, NE, NEIGHBOUR, NW, SE, SW,
};
use super::moves::Move;
use super::position::Position;
use crate::game::Color;
use crate::movelist::MoveList;

/// The pieces a side moves with, seen through bitboards: everything needed to
/// list the non-capturing moves and to tell whether a capture exists, without
/// reading a single column.
pub(crate) struct Sides {
    /// Squares of the opponent's columns.
    pub(crate) enemy: Bitboard,
    /// Empty squares.
    pub(crate) empty: Bitboard,
    /// The side's man-commanded columns.
    pub(crate) men: Bitboard,
    /// The side's king-commanded columns.
    pub(crate) kings: Bitboard,
    /// True when the side is Black.
    pub(crate) black: bool,
}

impl Sides {
    #[inline(always)]
    pub(crate) fn of(pos: &Position) -> Sides {
        Sides::from_bits(pos.occ, pos.black, pos.kings, pos.side == Color::Black)
    }

    /// The sides of a board given by its occupied, black-commanded and
    /// king-commanded squares, `black` to move.
    #[inline(always)]
    pub(crate) fn from_bits(
        occ: Bitboard,
        blacks: Bitboard,
        kings: Bitboard,
        black: bool,
    ) -> Sides {
        let own = if black { blacks } else { occ & !blacks };
        Sides {
            enemy: occ & !own,
            empty: !occ,
            men: own & !kings,
            kings: own & kings,
            black,
        }
    }

    /// The two forward directions of the side's men.
    #[inline(always)]
    pub(crate) fn forward(&self) -> [usize; 2] {
        if self.black {
            [SE, SW]
        } else {
            [NE, NW]
        }
    }
}

/// Where captures start, direction by direction.
pub(crate) struct Jumps {
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
    pub(crate) fn of(s: &Sides) -> Jumps {
        let mut from = [0; 4];
        let mut men = [0; 4];
        for d in 0..4 {
            let back = 3 - d;
            from[d] = shift(s.enemy, back) & shift2(s.empty, back);
            men[d] = from[d] & s.men;
        }
        let kings = squares(s.kings)
            .filter(|&k| king_can_capture(k, !s.empty, s.enemy))
            .fold(0, |acc, k| acc | 1 << k);
        Jumps { from, men, kings }
    }

    /// Every column that can capture.
    #[inline(always)]
    pub(crate) fn capturers(&self) -> Bitboard {
        self.men[0] | self.men[1] | self.men[2] | self.men[3] | self.kings
    }

    /// The capturing men all of whose jumps end at once: no crowning, no
    /// further jump. Under docs/rules.md 2.3 the only changes a man's jump makes
    /// near its landing square are behind it (its start square and the jumped
    /// column, which it may not jump again at once), so whether it could go on
    /// is read from the squares' present state: `from` of every direction but
    /// the way back.
    #[inline(always)]
    fn one_jump_men(&self, far: Bitboard) -> Bitboard {
        let capturing = self.men[0] | self.men[1] | self.men[2] | self.men[3];
        if capturing == 0 {
            return 0;
        }
        let f = &self.from;
        let (low, high) = (f[0] | f[1], f[2] | f[3]);
        // Every direction but `3 - d` (the way back), for each d.
        let onward = [low | f[2], low | f[3], f[0] | high, f[1] | high];
        let mut longer = 0;
        for (d, (&men, &ahead)) in self.men.iter().zip(&onward).enumerate() {
            let back = 3 - d;
            let landings = shift2(men, d);
            let stop = landings & (ahead | far);
            longer |= shift2(stop, back);
        }
        capturing & !longer
    }
}

/// True when the side to move has a capture (and so must capture).
#[inline]
pub(crate) fn has_capture(pos: &Position) -> bool {
    Jumps::of(&Sides::of(pos)).capturers() != 0
}

/// `None` when the side to move must capture, else whether it has a move:
/// a man with an empty square ahead, or a king with an empty neighbour.
#[inline]
pub(crate) fn quiet_moves_exist(pos: &Position) -> Option<bool> {
    let s = Sides::of(pos);
    if Jumps::of(&s).capturers() != 0 {
        return None;
    }
    let [a, b] = s.forward();
    let mut reach = shift(s.men, a) | shift(s.men, b);
    if s.kings != 0 {
        reach |= shift(s.kings, NE) | shift(s.kings, NW) | shift(s.kings, SE) | shift(s.kings, SW);
    }
    Some(reach & s.empty != 0)
}

/// Fills `out` with every legal move, one per resulting position.
pub(crate) fn generate(pos: &Position, out: &mut MoveList<Move>) {
    out.clear();
    let sides = Sides::of(pos);
    let jumps = Jumps::of(&sides);
    if jumps.capturers() == 0 {
        generate_quiet(&sides, out);
    } else {
        generate_captures(pos, &sides, &jumps, out);
    }
}

/// Every capture, one per resulting position. Different start squares always
/// give different positions (the start square is emptied in one and not in
/// the other), so duplicates are only looked for among one column's captures.
pub(crate) fn generate_captures(
    pos: &Position,
    s: &Sides,
    jumps: &Jumps,
    out: &mut MoveList<Move>,
) {
    let simple = jumps.one_jump_men(far_rank(s.black));
    for (d, &men) in jumps.men.iter().enumerate() {
        for from in squares(men & simple) {
            let over = NEIGHBOUR[d][from as usize];
            push_jump(from, over, NEIGHBOUR[d][over as usize & 31], out);
        }
    }
    let mut search = CaptureSearch::new(pos);
    let mut sink = MoveSink { out, first: 0 };
    for from in squares(jumps.capturers() & !simple) {
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

/// Every non-capturing move: men step forward, kings fly.
fn generate_quiet(s: &Sides, out: &mut MoveList<Move>) {
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
            for to in squares(open_run(k, d, !s.empty)) {
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
    let jumps = Jumps::of(&sides);
    if jumps.capturers() == 0 {
        count_quiet(&sides)
    } else {
        count_captures(pos, &sides, &jumps)
    }
}

/// Captures are deduplicated, so only men whose jumps all end at once are
/// counted with popcounts. The other men are counted by a quicker test where
/// one answers (see below); the rest, kings included, are searched.
pub(crate) fn count_captures(pos: &Position, s: &Sides, jumps: &Jumps) -> u64 {
    let simple = jumps.one_jump_men(far_rank(s.black));
    let m = &jumps.men;
    let mut count =
        pair_count(m[0] & simple, m[1] & simple) + pair_count(m[2] & simple, m[3] & simple);
    let searched = jumps.capturers() & !simple;
    if searched == 0 {
        return count as u64;
    }
    let chains = ManChains::new(pos);
    let mut search = None;
    let mut sink = CountSink::default();
    for from in squares(searched) {
        if pos.kings & (1 << from) == 0 {
            // The walk of the man's jump chains, where it answers.
            if let Some(n) = chains.count(from, !s.empty, s.enemy) {
                count += n;
                continue;
            }
        }
        sink.longer.clear();
        search
            .get_or_insert_with(|| CaptureSearch::new(pos))
            .run(from, &mut sink);
    }
    count as u64 + sink.count
}

/// Sizes of two 32-bit sets with one 64-bit popcount (half the work without POPCNT).
#[inline(always)]
fn pair_count(a: Bitboard, b: Bitboard) -> u32 {
    (a as u64 | (b as u64) << 32).count_ones()
}

/// The number of non-capturing moves (when no capture exists, the number of moves).
#[inline(always)]
pub(crate) fn count_quiet(s: &Sides) -> u64 {
    let [a, b] = s.forward();
    let men = pair_count(shift(s.men, a) & s.empty, shift(s.men, b) & s.empty);
    let kings: u32 = squares(s.kings)
        .map(|k| {
            let run = |d| open_run(k, d, !s.empty);
            pair_count(run(0), run(1)) + pair_count(run(2), run(3))
        })
        .sum();
    (men + kings) as u64
}
