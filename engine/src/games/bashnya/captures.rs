//! Capture search: every complete capture sequence of one column (docs/rules.md 2.3).
//!
//! The search works on a scratch copy of the board. Each jump takes the
//! jumped column's commander at once (the rest of that column stays, under its
//! new commander) and is undone on the way back. Complete sequences go to a
//! [`Sink`], which decides what to keep: the generator keeps one move per
//! resulting position, the notation parser keeps every route.

use super::column::{without_top, BLACK_BIT, KING_BIT};
use super::geometry::{far_rank, nearest, open_run, squares, Bitboard, NEIGHBOUR, NONE, RAY};
use super::moves::{Move, MAX_JUMPS};
use super::position::Position;
use crate::game::Color;
use smallvec::SmallVec;

/// `MAN_OVERS[s]`: the neighbours of `s` that have a square beyond them,
/// the only squares a man on `s` could jump.
const MAN_OVERS: [Bitboard; 32] = build_man_overs();

const fn build_man_overs() -> [Bitboard; 32] {
    let mut t = [0; 32];
    let mut s = 0;
    while s < 32 {
        let mut d = 0;
        while d < 4 {
            let n = NEIGHBOUR[d][s];
            if n != NONE && NEIGHBOUR[d][n as usize] != NONE {
                t[s] |= 1 << n;
            }
            d += 1;
        }
        s += 1;
    }
    t
}

/// `BEYOND[s][n]`: the square beyond the neighbour `n` of `s`, seen from `s`
/// (where a man on `s` jumping `n` lands), or [`NONE`].
const BEYOND: [[u8; 32]; 32] = build_beyond();

const fn build_beyond() -> [[u8; 32]; 32] {
    let mut t = [[NONE; 32]; 32];
    let mut s = 0;
    while s < 32 {
        let mut d = 0;
        while d < 4 {
            let n = NEIGHBOUR[d][s];
            if n != NONE {
                t[s][n as usize] = NEIGHBOUR[d][n as usize];
            }
            d += 1;
        }
        s += 1;
    }
    t
}

/// True when a king on `k` can jump some enemy column.
#[inline(always)]
pub(crate) fn king_can_capture(k: u8, occ: Bitboard, enemy: Bitboard) -> bool {
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

/// The bitboard of one square, empty for [`NONE`].
#[inline(always)]
const fn bit_of(sq: u8) -> Bitboard {
    if sq == NONE {
        0
    } else {
        1 << (sq & 31)
    }
}

/// Counting fast path for the captures of a man-commanded column: a plain walk of its jump sequences that counts the
/// complete ones, with the board state in arguments and nothing recorded.
///
/// Counting sequences counts moves as long as no two sequences give the same
/// position, which holds while every jump is a man's (a crowning ends the
/// sequence) and none is longer than three jumps. A jump from `p` over `q`
/// lands on `2q - p`; each `q` is one diagonal step from where the man stands.
/// So two jumps over `a, b` end on `2(b - a) + s`, which tells the order apart;
/// three over `q1, q2, q3` end on `2(q1 - q2 + q3) - s`, which is the same for
/// `q3, q2, q1` and for no other reordering, and working the steps through
/// shows that the reversed order can only start from `s` when `q1 = q2`, an
/// immediate re-jump, which the rules forbid. (The same steps show
/// that within three jumps a man never jumps one column twice, so the
/// columns it jumps are read as they stand.) A longer sequence, or a crowned
/// man that can go on as a king, makes [`ManChains::count`] answer `None`,
/// and the full search decides.
pub(crate) struct ManChains<'a> {
    pos: &'a Position,
    /// The opponent's piece colour bit.
    enemy_colour: u64,
    /// The capturing side's promotion rank.
    far: Bitboard,
}

impl<'a> ManChains<'a> {
    /// The fast path for the side to move in `pos`.
    #[inline]
    pub(crate) fn new(pos: &'a Position) -> ManChains<'a> {
        let black = pos.side == Color::Black;
        ManChains {
            pos,
            enemy_colour: if black { 0 } else { BLACK_BIT },
            far: far_rank(black),
        }
    }

    /// The number of captures of the man-commanded column on `from`, given
    /// the occupied squares and the opponent's columns; `None` when the full
    /// search is needed (see the type's documentation).
    #[inline]
    pub(crate) fn count(&self, from: u8, occ: Bitboard, enemy: Bitboard) -> Option<u32> {
        self.walk(from, NONE, occ & !(1 << from), enemy, 0)
    }

    /// The complete sequences going on from `sq` after `depth` jumps, the
    /// last of them over `last`.
    fn walk(&self, sq: u8, last: u8, occ: Bitboard, enemy: Bitboard, depth: u32) -> Option<u32> {
        // The enemy columns next to `sq` with a square beyond them (the
        // order they are tried in does not matter for a count).
        let targets = enemy & MAN_OVERS[sq as usize] & !bit_of(last);
        let mut sequences = 0;
        let mut found = false;
        for over in squares(targets) {
            let land = BEYOND[sq as usize][over as usize];
            let to = 1u32 << (land & 31);
            if occ & to != 0 {
                continue;
            }
            if depth == 3 {
                return None;
            }
            found = true;
            let bit = 1u32 << over;
            // As `CaptureSearch::take`: the commander is taken; the rest of
            // the column stays, under its new commander.
            let rest = without_top(self.pos.code(over as usize));
            let occ = if rest == 0 { occ & !bit } else { occ };
            let enemy = if rest == 0 || rest & BLACK_BIT != self.enemy_colour {
                enemy & !bit
            } else {
                enemy
            };
            if self.far & to != 0 {
                // Crowned: the capture ends here unless the new king can go
                // on (not over the column just jumped), which is left to the
                // full search.
                if king_can_capture(land, occ, enemy & !bit) {
                    return None;
                }
                sequences += 1;
            } else {
                sequences += self.walk(land, over, occ, enemy, depth + 1)?;
            }
        }
        Some(if found {
            sequences
        } else {
            u32::from(depth > 0)
        })
    }
}

/// Receives every complete capture sequence.
pub(crate) trait Sink {
    /// Called with the search state at the end of a sequence; the column ends
    /// on `to`, commanded by a king when `king`.
    fn finish(&mut self, search: &CaptureSearch, to: u8, king: bool);
}

/// The scratch state of a capture search. The columns are only read: a
/// jumped column's current contents are its original column without as many
/// top pieces as it has been jumped (`times`), so nothing is copied.
pub(crate) struct CaptureSearch<'a> {
    pos: &'a Position,
    occ: Bitboard,
    /// Squares commanded by the opponent of the capturing side.
    enemy: Bitboard,
    /// The opponent's piece colour bit.
    enemy_colour: u64,
    /// The capturing side's promotion rank.
    far: Bitboard,
    from: u8,
    start_king: bool,
    depth: usize,
    path: [u8; MAX_JUMPS],
    over: [u8; MAX_JUMPS],
    taken: u64,
    /// How often each square has been jumped so far.
    times: [u8; 32],
}

impl<'a> CaptureSearch<'a> {
    /// A search for the side to move in `pos`.
    #[inline]
    pub(crate) fn new(pos: &'a Position) -> CaptureSearch<'a> {
        let black = pos.side == Color::Black;
        CaptureSearch {
            pos,
            occ: pos.occ,
            enemy: if black {
                pos.occ & !pos.black
            } else {
                pos.black
            },
            enemy_colour: if black { 0 } else { BLACK_BIT },
            far: far_rank(black),
            from: 0,
            start_king: false,
            depth: 0,
            path: [0; MAX_JUMPS],
            over: [0; MAX_JUMPS],
            taken: 0,
            times: [0; 32],
        }
    }

    /// Runs every capture of the column on `from` into `sink`. The start square
    /// counts as empty while the column is on its way.
    #[inline]
    pub(crate) fn run<S: Sink>(&mut self, from: u8, sink: &mut S) {
        let bit = 1u32 << from;
        self.from = from;
        self.start_king = self.pos.code(from as usize) & KING_BIT != 0;
        self.occ &= !bit;
        if self.start_king {
            self.king_jumps(sink, from, NONE);
        } else {
            self.man_jumps(sink, from, NONE);
        }
        self.occ |= bit;
    }

    /// Continues from `sq` if possible; otherwise the sequence is complete.
    fn step<S: Sink>(&mut self, sink: &mut S, sq: u8, king: bool, last: u8) {
        let found = if king {
            self.king_jumps(sink, sq, last)
        } else {
            self.man_jumps(sink, sq, last)
        };
        if !found {
            sink.finish(self, sq, king);
        }
    }

    /// A man commander's jumps from `sq`, forward and backward, never over `last`.
    fn man_jumps<S: Sink>(&mut self, sink: &mut S, sq: u8, last: u8) -> bool {
        // The enemy columns next to `sq` with a square beyond them.
        let targets = self.enemy & MAN_OVERS[sq as usize] & !bit_of(last);
        if targets == 0 {
            return false;
        }
        let mut found = false;
        for next in &NEIGHBOUR {
            let over = next[sq as usize];
            if targets & bit_of(over) == 0 {
                continue;
            }
            // `over` is in MAN_OVERS, so there is a square beyond it.
            let land = next[over as usize & 31];
            if self.occ & (1 << (land & 31)) != 0 {
                continue;
            }
            found = true;
            self.take(over, land);
            // A man reaching the far rank is crowned at once and goes on as a king.
            let king = self.far & (1 << (land & 31)) != 0;
            self.step(sink, land, king, over);
            self.untake(over);
        }
        found
    }

    /// A king commander's jumps from `sq`. When some landing squares beyond the
    /// jumped column allow the capture to go on, only those are allowed.
    fn king_jumps<S: Sink>(&mut self, sink: &mut S, sq: u8, last: u8) -> bool {
        let mut found = false;
        for (d, ray) in RAY.iter().enumerate() {
            let blockers = ray[sq as usize] & self.occ;
            if blockers == 0 {
                continue;
            }
            let over = nearest(blockers, d);
            if over == last || self.enemy & (1 << over) == 0 {
                continue;
            }
            let landings = open_run(over, d, self.occ);
            if landings == 0 {
                continue;
            }
            found = true;
            self.take(over, 0);
            // The column just jumped may not be jumped again at once.
            let going_on = squares(landings)
                .filter(|&l| self.can_jump(l, true, over))
                .fold(0, |acc, l| acc | 1u32 << l);
            for land in squares(if going_on != 0 { going_on } else { landings }) {
                self.path[self.depth - 1] = land;
                if going_on != 0 {
                    self.step(sink, land, true, over);
                } else {
                    sink.finish(self, land, true);
                }
            }
            self.untake(over);
        }
        found
    }

    /// True when a column on `sq` could jump now (not over `last`).
    fn can_jump(&self, sq: u8, king: bool, last: u8) -> bool {
        if !king && self.enemy & MAN_OVERS[sq as usize] & !bit_of(last) == 0 {
            return false;
        }
        (0..4).any(|d| {
            let over = if king {
                let blockers = RAY[d][sq as usize] & self.occ;
                if blockers == 0 {
                    return false;
                }
                nearest(blockers, d)
            } else {
                NEIGHBOUR[d][sq as usize]
            };
            if over == NONE || over == last || self.enemy & (1 << over) == 0 {
                return false;
            }
            let land = NEIGHBOUR[d][over as usize];
            land != NONE && self.occ & (1 << land) == 0
        })
    }

    /// Takes the commander of the column on `over`, landing on `land`.
    #[inline(always)]
    fn take(&mut self, over: u8, land: u8) {
        let jumped_before = self.times[over as usize & 31] as u32;
        let old = self.pos.code(over as usize) >> (2 * jumped_before);
        let rest = without_top(old);
        let bit = 1u32 << over;
        if rest == 0 {
            self.occ &= !bit;
        }
        // Released prisoners of the capturing side now command the column.
        if rest == 0 || rest & BLACK_BIT != self.enemy_colour {
            self.enemy &= !bit;
        }
        self.taken |= (old & 3) << (2 * self.depth);
        self.times[over as usize & 31] += 1;
        self.path[self.depth] = land;
        self.over[self.depth] = over;
        self.depth += 1;
    }

    /// Undoes [`CaptureSearch::take`].
    #[inline(always)]
    fn untake(&mut self, over: u8) {
        self.depth -= 1;
        self.occ |= 1 << over;
        self.enemy |= 1 << over;
        self.taken &= !(3 << (2 * self.depth));
        self.times[over as usize & 31] -= 1;
    }

    /// True when `mv`, a capture from the same start square, gives the same
    /// position as the current complete sequence ending on `to`.
    #[inline]
    fn same_result(&self, mv: &Move, to: u8, promotes: bool) -> bool {
        mv.to() == to && mv.promotes == promotes && self.same_jumps(mv.jumped())
    }

    /// True when the jumps `over` (a capture from the same start square,
    /// ending where the current complete sequence ends, with the same
    /// commander rank) give the same position as the current sequence.
    /// Resulting positions are compared exactly through what a capture
    /// changes: the end square, the commander's rank, how often each square
    /// was jumped and the pieces taken in order (all other squares are
    /// untouched).
    #[inline]
    fn same_jumps(&self, over: &[u8]) -> bool {
        if over.len() != self.depth {
            return false;
        }
        let mut left = self.times;
        let mut taken = 0u64;
        for (i, &over) in over.iter().enumerate() {
            let over = over as usize & 31;
            if left[over] == 0 {
                return false;
            }
            // The piece taken is the one `times - left` places below the top.
            let k = self.times[over] - left[over];
            left[over] -= 1;
            taken |= ((self.pos.code(over) >> (2 * k)) & 3) << (2 * i);
        }
        taken == self.taken
    }

    /// The current complete sequence as a move.
    #[inline(always)]
    pub(crate) fn to_move(&self, king: bool) -> Move {
        let mut mv = Move::quiet(self.from, 0, king && !self.start_king);
        mv.jumps = self.depth as u8;
        mv.path[..self.depth].copy_from_slice(&self.path[..self.depth]);
        mv.over[..self.depth].copy_from_slice(&self.over[..self.depth]);
        mv
    }
}

/// Keeps one move per resulting position.
pub(crate) struct MoveSink<'a> {
    /// Where the moves go.
    pub(crate) out: &'a mut crate::movelist::MoveList<Move>,
    /// Index in `out` of the first move from the current start square.
    pub(crate) first: usize,
}

impl Sink for MoveSink<'_> {
    #[inline]
    fn finish(&mut self, search: &CaptureSearch, to: u8, king: bool) {
        // One-jump captures never coincide (see CountSink); skip the scan.
        let promotes = king && !search.start_king;
        if search.depth == 1
            || !self.out[self.first..]
                .iter()
                .any(|m| search.same_result(m, to, promotes))
        {
            self.out.push(search.to_move(king));
        }
    }
}

/// A longer capture as [`CountSink`] keeps it for comparison: what
/// [`CaptureSearch::same_jumps`] needs, in a fixed-size record.
#[derive(Clone, Copy)]
pub(crate) struct Finished {
    /// The pieces taken, in order (as `CaptureSearch::taken`).
    taken: u64,
    /// The jumped squares, in order; entries past `jumps` mean nothing.
    over: [u8; MAX_JUMPS],
    to: u8,
    jumps: u8,
    king: bool,
}

/// Counts distinct resulting positions. A one-jump capture differs from every
/// other capture of its column (another one-jump capture takes another piece
/// or lands elsewhere; a longer one takes more pieces), so only longer
/// captures are kept for comparison.
#[derive(Default)]
pub(crate) struct CountSink {
    /// Distinct captures counted so far.
    pub(crate) count: u64,
    /// The longer captures of the current start square.
    pub(crate) longer: SmallVec<[Finished; 16]>,
}

impl Sink for CountSink {
    #[inline]
    fn finish(&mut self, search: &CaptureSearch, to: u8, king: bool) {
        if search.depth == 1 {
            self.count += 1;
            return;
        }
        let same = |f: &Finished| {
            f.to == to
                && f.jumps as usize == search.depth
                && f.king == king
                && f.taken == search.taken
                && search.same_jumps(&f.over[..search.depth])
        };
        if !self.longer.iter().any(same) {
            self.count += 1;
            self.longer.push(Finished {
                taken: search.taken,
                over: search.over,
                to,
                jumps: search.depth as u8,
                king,
            });
        }
    }
}

/// Keeps every route, duplicates included (for reading notation).
pub(crate) struct RouteSink {
    /// Every complete sequence, as a move.
    pub(crate) routes: Vec<Move>,
}

impl Sink for RouteSink {
    fn finish(&mut self, search: &CaptureSearch, _to: u8, king: bool) {
        self.routes.push(search.to_move(king));
    }
}
