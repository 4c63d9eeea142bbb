//! Bushka features (docs/rules.md section 1): material, piece-square values, lines
//! of men, linear-capture exposure and threats, structure, mobility, tempo.
//!
//! Each side is measured from its own side of the board with bitboard shifts;
//! the values emitted are White minus Black (see [`super::features`]).

use super::features::{
    compiled_or_plain, emit_diff, fold_piece, for_side, FeatureSink, Features, FEATURE_CAPACITY,
    PHASE_MAX,
};
use super::weights::{taper, Weights, MAX_WEIGHT};
use super::Evaluator;
use crate::bushka::board::{
    each_dir, forward, promotion_row, rotate, shift, to_xy, Bits, Dir, BOARD, DIRS,
};
use crate::bushka::movegen::ray_fill;
use crate::bushka::Position;
use crate::game::Color;

/// Men of a side.
pub const MAN: usize = 0;
/// Kings of a side.
pub const KING: usize = 1;
/// Lines of exactly two men along a letter line.
pub const LINE2_LETTER: usize = 2;
/// Lines of exactly three men along a letter line.
pub const LINE3_LETTER: usize = 3;
/// Lines of four or more men along a letter line.
pub const LINE4_LETTER: usize = 4;
/// Lines of exactly two men along a number line.
pub const LINE2_NUMBER: usize = 5;
/// Lines of exactly three men along a number line.
pub const LINE3_NUMBER: usize = 6;
/// Lines of four or more men along a number line.
pub const LINE4_NUMBER: usize = 7;
/// Men of own lines that an enemy line can take by a linear capture: the
/// line's head has an empty square in front and an enemy line aimed at it
/// beyond. (A plain count of exposed heads would always cancel out: two lines
/// facing each other expose both heads.)
pub const EXPOSED_LINE_MEN: usize = 8;
/// Own men with no own man behind them exposed the same way.
pub const EXPOSED_SINGLE: usize = 9;
/// Own kings an enemy line can take by a linear capture.
pub const EXPOSED_KING: usize = 10;
/// Heads of own lines with an empty square in front and an enemy piece beyond.
pub const LINEAR_THREAT: usize = 11;
/// The features that fire only where a capture is pending: [`EXPOSED_LINE_MEN`],
/// [`EXPOSED_SINGLE`], [`EXPOSED_KING`] and [`LINEAR_THREAT`]. Each needs an own
/// piece, an empty square and an enemy piece in a line, and that gives the
/// side to move a capture by approach whichever side it is (docs/rules.md
/// 1.5). The search scores statically only positions without a capture
/// (unless it stops at the quiescence cap or the maximum depth), and the tuner
/// fits quiet positions only, so these weights act at those caps alone and
/// keep their hand-set values (`bushka tune` names them as never exercised).
/// `engine/tests/engine/eval_features.rs` checks that no quiet position of
/// played games has them and that every other feature fires in one.
pub const CAPTURE_PENDING_ONLY: [usize; 4] = [
    EXPOSED_LINE_MEN,
    EXPOSED_SINGLE,
    EXPOSED_KING,
    LINEAR_THREAT,
];
/// Men with no own man on any neighbouring square.
pub const ISOLATED: usize = 12;
/// Men still on their own back rank (the opponent's promotion row).
pub const BACK_RANK: usize = 13;
/// Pieces on the eight centre squares (x and y in 3..=6).
pub const CENTRE: usize = 14;
/// Quiet moves of men (steps and line moves) available to a side.
pub const MOBILITY_MEN: usize = 15;
/// Quiet moves of kings available to a side.
pub const MOBILITY_KINGS: usize = 16;
/// Sum of the rows the men have advanced (in balance: White minus Black).
pub const TEMPO: usize = 17;
/// Number of scalar features; the piece-square features follow.
pub const SCALARS: usize = 18;
/// First man piece-square feature (45 squares: a man never stands on its promotion row).
pub const MAN_PST: usize = SCALARS;
/// Number of man piece-square features.
pub const MAN_PST_LEN: usize = 45;
/// First king piece-square feature (50 squares).
pub const KING_PST: usize = MAN_PST + MAN_PST_LEN;
/// Total number of Bushka features.
pub const COUNT: usize = KING_PST + 50;

/// Feature names; the piece-square names use the square seen from the owner
/// (White's names), so `man_e1` is a man on its own corner square.
pub const NAMES: [&str; COUNT] = [
    "man",
    "king",
    "line2_letter",
    "line3_letter",
    "line4_letter",
    "line2_number",
    "line3_number",
    "line4_number",
    "exposed_line_men",
    "exposed_single",
    "exposed_king",
    "linear_threat",
    "isolated",
    "back_rank",
    "centre",
    "mobility_men",
    "mobility_kings",
    "tempo",
    "man_e1",
    "man_f2",
    "man_g3",
    "man_h4",
    "man_i5",
    "man_e2",
    "man_f3",
    "man_g4",
    "man_h5",
    "man_i6",
    "man_d2",
    "man_e3",
    "man_f4",
    "man_g5",
    "man_h6",
    "man_d3",
    "man_e4",
    "man_f5",
    "man_g6",
    "man_h7",
    "man_c3",
    "man_d4",
    "man_e5",
    "man_f6",
    "man_g7",
    "man_c4",
    "man_d5",
    "man_e6",
    "man_f7",
    "man_g8",
    "man_b4",
    "man_c5",
    "man_d6",
    "man_e7",
    "man_f8",
    "man_b5",
    "man_c6",
    "man_d7",
    "man_e8",
    "man_f9",
    "man_a5",
    "man_b6",
    "man_c7",
    "man_d8",
    "man_e9",
    "king_e1",
    "king_f2",
    "king_g3",
    "king_h4",
    "king_i5",
    "king_e2",
    "king_f3",
    "king_g4",
    "king_h5",
    "king_i6",
    "king_d2",
    "king_e3",
    "king_f4",
    "king_g5",
    "king_h6",
    "king_d3",
    "king_e4",
    "king_f5",
    "king_g6",
    "king_h7",
    "king_c3",
    "king_d4",
    "king_e5",
    "king_f6",
    "king_g7",
    "king_c4",
    "king_d5",
    "king_e6",
    "king_f7",
    "king_g8",
    "king_b4",
    "king_c5",
    "king_d6",
    "king_e7",
    "king_f8",
    "king_b5",
    "king_c6",
    "king_d7",
    "king_e8",
    "king_f9",
    "king_a5",
    "king_b6",
    "king_c7",
    "king_d8",
    "king_e9",
    "king_a6",
    "king_b7",
    "king_c8",
    "king_d9",
    "king_e0",
];

// One entry per occupied square plus one per scalar must fit a FeatureVec.
const _: () = assert!(50 + SCALARS <= FEATURE_CAPACITY);

/// Marks a square without a piece-square feature.
const NO_INDEX: u16 = u16::MAX;

/// `PST_INDEX[king as usize][bit]`: the feature index of a White piece on a
/// square (Black pieces use the turned square), in bit order like [`NAMES`].
const PST_INDEX: [[u16; 64]; 2] = pst_index();

const fn pst_index() -> [[u16; 64]; 2] {
    let mut t = [[NO_INDEX; 64]; 2];
    let (mut man, mut king) = (MAN_PST, KING_PST);
    let mut sq = 0;
    while sq < 64 {
        if BOARD & (1 << sq) != 0 {
            if promotion_row(Color::White) & (1 << sq) == 0 {
                t[0][sq] = man as u16;
                man += 1;
            }
            t[1][sq] = king as u16;
            king += 1;
        }
        sq += 1;
    }
    t
}

/// Each square turned round: where a Black piece stands in White's terms.
const TURNED: [u8; 64] = turned();

const fn turned() -> [u8; 64] {
    let mut t = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        t[sq] = rotate(sq as u8);
        sq += 1;
    }
    t
}

/// Squares of each row `y`.
const ROWS: [u64; 10] = rows();

const fn rows() -> [u64; 10] {
    let mut t = [0u64; 10];
    let mut sq = 0;
    while sq < 55 {
        if BOARD & (1 << sq) != 0 {
            t[to_xy(sq as u8).1 as usize] |= 1 << sq;
        }
        sq += 1;
    }
    t
}

/// The lowest bit of each row `y`: its five squares are the bits
/// `ROW_SHIFT[y]..ROW_SHIFT[y] + 5` (rows alternately follow a ghost bit).
const ROW_SHIFT: [u32; 10] = row_shift();

const fn row_shift() -> [u32; 10] {
    let mut t = [0; 10];
    let mut y = 0;
    while y < 10 {
        t[y] = ROWS[y].trailing_zeros();
        assert!(ROWS[y] >> t[y] == 31);
        y += 1;
    }
    t
}

/// The eight centre squares, x and y in 3..=6 (symmetric under turning).
const CENTRE_SQUARES: u64 = centre();

const fn centre() -> u64 {
    let mut bb = 0u64;
    let mut sq = 0;
    while sq < 55 {
        let (x, y) = to_xy(sq as u8);
        if BOARD & (1 << sq) != 0 && x >= 3 && x <= 6 && y >= 3 && y <= 6 {
            bb |= 1 << sq;
        }
        sq += 1;
    }
    bb
}

/// A bitboard moved `n` steps in direction `d`.
#[inline(always)]
fn shift_n(mut bb: u64, d: Dir, n: u32) -> u64 {
    for _ in 0..n {
        bb = shift(bb, d);
    }
    bb
}

/// Maximal lines of men in `men` along direction `d`: (exactly 2, exactly 3, 4+).
#[inline(always)]
fn line_counts(men: u64, d: Dir) -> [u32; 3] {
    let heads = men & !shift(men, d.reverse());
    let two = men & shift(men, d);
    let three = men & shift(two, d);
    let four = men & shift(three, d);
    let (n2, n3, n4) = (
        (heads & two).count_ones(),
        (heads & three).count_ones(),
        (heads & four).count_ones(),
    );
    [n2 - n3, n3 - n4, n4]
}

/// The scalar features of one side that depend on how pieces stand together
/// (lines, exposure, isolation, mobility), measured from its own side of the
/// board. The others ([`MAN`], [`KING`], [`BACK_RANK`], [`CENTRE`],
/// [`TEMPO`]) are sums over single pieces and are left at zero here (see
/// [`side_scalars`] and [`Compiled`]).
#[inline(always)]
fn pattern_scalars(pos: &Position, us: Color) -> [u32; SCALARS] {
    let them = us.opponent();
    let (men, kings) = (pos.men(us), pos.kings(us));
    let (opp, opp_men) = (pos.pieces(them), pos.men(them));
    let empty = BOARD & !pos.occupied();
    let mut f = [0u32; SCALARS];
    let letter = line_counts(men, Dir::NE);
    let number = line_counts(men, Dir::NW);
    f[LINE2_LETTER..=LINE4_LETTER].copy_from_slice(&letter);
    f[LINE2_NUMBER..=LINE4_NUMBER].copy_from_slice(&number);
    let mut neighbours = 0;
    for d in DIRS {
        let r = d.reverse();
        let behind_is_man = shift(men, d);
        neighbours |= behind_is_man;
        let front_empty = shift(empty, r);
        // An enemy line aimed at the square: its head two steps ahead, one more man behind.
        let aimed = front_empty & shift_n(opp_men, r, 2) & shift_n(opp_men, r, 3);
        let mut taken = men & aimed & behind_is_man;
        while taken != 0 {
            f[EXPOSED_LINE_MEN] += taken.count_ones();
            taken = shift(taken, r) & men;
        }
        f[EXPOSED_SINGLE] += (men & aimed & !behind_is_man).count_ones();
        f[EXPOSED_KING] += (kings & aimed).count_ones();
        f[LINEAR_THREAT] += (men & behind_is_man & front_empty & shift_n(opp, r, 2)).count_ones();
    }
    f[ISOLATED] = (men & !neighbours).count_ones();
    for d in forward(us) {
        // Each man whose chain of own men ahead ends on an empty square is one move.
        let r = d.reverse();
        let mut front = men & shift(empty, r);
        while front != 0 {
            f[MOBILITY_MEN] += front.count_ones();
            front = men & shift(front, r);
        }
    }
    if kings != 0 {
        for d in DIRS {
            f[MOBILITY_KINGS] += ray_fill(kings, empty, d).count_ones();
        }
    }
    f
}

/// How far a man on `sq` of `side` has advanced: rows from its own back rank.
#[inline(always)]
fn advance(sq: u8, side: Color) -> u32 {
    let y = to_xy(sq).1 as u32;
    if side == Color::White {
        y
    } else {
        9 - y
    }
}

/// Every scalar feature of one side, measured from its own side of the board.
#[inline(always)]
fn side_scalars(pos: &Position, us: Color) -> [u32; SCALARS] {
    let them = us.opponent();
    let (men, kings) = (pos.men(us), pos.kings(us));
    let mut f = pattern_scalars(pos, us);
    f[MAN] = men.count_ones();
    f[KING] = kings.count_ones();
    f[BACK_RANK] = (men & promotion_row(them)).count_ones();
    f[CENTRE] = ((men | kings) & CENTRE_SQUARES).count_ones();
    for (y, row) in ROWS.iter().enumerate() {
        let advance = if us == Color::White { y } else { 9 - y } as u32;
        f[TEMPO] += advance * (men & row).count_ones();
    }
    f
}

/// Every square of `bb` moved one step in direction `d`, without dropping the
/// squares that leave the board: a step off a side edge lands on a ghost bit
/// and a step past the top on a bit above 54. Exact wherever the result is
/// then masked with a set of board squares (no ghost bit is one), which every
/// use below does before shifting again.
#[inline(always)]
fn raw(bb: u64, d: Dir) -> u64 {
    match d {
        Dir::NE => bb << 6,
        Dir::NW => bb << 5,
        Dir::SE => bb >> 5,
        Dir::SW => bb >> 6,
    }
}

/// `raw` applied `n` times in one shift. Exact for the squares of a mask whose
/// members have every intermediate square on the board too (then no step
/// touched a ghost bit): the fills below mask with runs of men, which are.
#[inline(always)]
fn raw_n(bb: u64, d: Dir, n: u32) -> u64 {
    match d {
        Dir::NE => bb << (6 * n),
        Dir::NW => bb << (5 * n),
        Dir::SE => bb >> (5 * n),
        Dir::SW => bb >> (6 * n),
    }
}

/// Terms of the compiled pattern sum: per-side counts whose White-minus-Black
/// differences, weighted, give exactly the weighted pattern features.
///
/// The line features are counted as lines of *at least* 2, 3 and 4 men
/// (`a2`, `a3`, `a4`); with `n2 = a2 - a3`, `n3 = a3 - a4`, `n4 = a4`
/// (what [`line_counts`] returns), `w2 n2 + w3 n3 + w4 n4 =
/// w2 a2 + (w3 - w2) a3 + (w4 - w3) a4`, so the terms' weights are those
/// differences (see [`Compiled::new`]). The other terms are the features.
const T_LETTER: usize = 0;
/// Lines of at least 2, 3, 4 men along a number line (three terms).
const T_NUMBER: usize = 3;
/// [`EXPOSED_LINE_MEN`].
const T_EXPOSED_LINE_MEN: usize = 6;
/// [`EXPOSED_SINGLE`].
const T_EXPOSED_SINGLE: usize = 7;
/// [`LINEAR_THREAT`].
const T_LINEAR_THREAT: usize = 8;
/// [`ISOLATED`].
const T_ISOLATED: usize = 9;
/// [`MOBILITY_MEN`].
const T_MOBILITY_MEN: usize = 10;
/// [`EXPOSED_KING`].
const T_EXPOSED_KING: usize = 11;
/// [`MOBILITY_KINGS`].
const T_MOBILITY_KINGS: usize = 12;
/// Number of terms.
const TERMS: usize = 13;

/// The boards [`pattern_diffs`] reads, by colour (White, Black).
#[derive(Clone, Copy)]
struct Boards {
    men: [u64; 2],
    kings: [u64; 2],
    pieces: [u64; 2],
    empty: u64,
}

impl Boards {
    #[inline(always)]
    fn of(pos: &Position) -> Boards {
        let [w, b] = [Color::White, Color::Black];
        Boards {
            men: [pos.men(w), pos.men(b)],
            kings: [pos.kings(w), pos.kings(b)],
            pieces: [pos.pieces(w), pos.pieces(b)],
            empty: BOARD & !pos.occupied(),
        }
    }
}

/// Men of `men` whose neighbour behind (one step against `d`) is a man too:
/// `men & shift(men, d)` (`men` holds board squares only, so masking with it
/// drops what the raw shift moved off the board).
#[inline(always)]
fn pairs(men: u64, d: Dir) -> u64 {
    men & raw(men, d)
}

/// The men reached from `start` (a set of men) by stepping in direction `r`
/// through `men`, `start` included. `p1` is `pairs(men, r)`. `long` when a
/// run may hold 9 men (a letter line has 10 squares, a number line at most
/// 9), else runs hold at most 8. Each step of the Kogge-Stone fill doubles
/// the distance covered: 1, then 3, then 7 (then 8). The raw shifts by 2 and
/// 4 steps are exact because they are masked with runs of men (`p1`, `p2`),
/// whose intermediate squares are all on the board.
#[inline(always)]
fn run_fill(men: u64, p1: u64, start: u64, r: Dir, long: bool) -> u64 {
    // `p2`: men with three more men in a row against `r`.
    let p2 = p1 & raw_n(p1, r, 2);
    let mut g = start | (men & raw(start, r));
    g |= p1 & raw_n(g, r, 2);
    g |= p2 & raw_n(g, r, 4);
    if long {
        g |= men & raw(g, r);
    }
    g
}

/// Where [`pattern_diffs`] writes the White-minus-Black difference of each
/// term: the weighted sum of the search, or the plain differences (tests).
trait TermSink {
    /// Adds `diff` to term `term` (a term may be added more than once).
    fn add(&mut self, term: usize, diff: i32);
}

/// The squares with an empty square ahead along `d` and an enemy line aimed
/// at them beyond, given `them_pairs = pairs(them_men, d.reverse())` (not
/// masked to the board: the caller masks with a set of pieces).
#[inline(always)]
fn aimed(them_pairs: u64, empty: u64, d: Dir) -> u64 {
    let r = d.reverse();
    // `shift_n(x, r, 2) & shift_n(x, r, 3) == shift_n(x & shift(x, r), r, 2)`
    // (shifts distribute over `&`), and `x & shift(x, r)` of the enemy men
    // is `them_pairs`.
    raw(empty & raw(them_pairs, r), r)
}

/// Lines of at least 2, 3 and 4 men along `d` (NE or NW), given
/// `ahead = pairs(men, d)` and `back = pairs(men, d.reverse())`.
#[inline(always)]
fn line_heads(men: u64, ahead: u64, back: u64, d: Dir) -> [i32; 3] {
    // As `line_counts`: heads have no man ahead, `two` a man behind, ...
    let heads = men & !back;
    let two = ahead;
    let three = men & raw(two, d);
    let four = men & raw(three, d);
    [
        (heads & two).count_ones() as i32,
        (heads & three).count_ones() as i32,
        (heads & four).count_ones() as i32,
    ]
}

/// The pattern counts of one side along `d` that need no loop: (exposed
/// single men, linear threats, exposed lines' heads), given
/// `behind_is_man = pairs(men, d)`, `them_pairs = pairs(them_men,
/// d.reverse())` and the enemy pieces.
#[inline(always)]
fn exposure(
    men: u64,
    behind_is_man: u64,
    them_pairs: u64,
    them: u64,
    empty: u64,
    d: Dir,
) -> (i32, i32, u64) {
    let r = d.reverse();
    let aimed = aimed(them_pairs, empty, d);
    let beyond_enemy = raw(empty & raw(them, r), r);
    (
        (men & !behind_is_man & aimed).count_ones() as i32,
        (behind_is_man & beyond_enemy).count_ones() as i32,
        behind_is_man & aimed,
    )
}

/// [`EXPOSED_LINE_MEN`] of the side `us` (0 White, 1 Black): the men of the
/// runs behind the heads of exposed lines.
#[inline(never)]
fn exposed_line_men(b: &Boards, us: usize) -> i32 {
    let (men, them) = (b.men[us], b.men[1 - us]);
    let mut n = 0;
    // Written out per direction (`each_dir`): constant shifts, no jump table.
    each_dir(|d| {
        let r = d.reverse();
        let mut taken = pairs(men, d) & aimed(pairs(them, r), b.empty, d);
        while taken != 0 {
            n += taken.count_ones() as i32;
            taken = raw(taken, r) & men;
        }
    });
    n
}

/// The king terms of the side `us` (0 White, 1 Black): ([`EXPOSED_KING`],
/// [`MOBILITY_KINGS`]).
#[inline(never)]
fn king_terms(b: &Boards, us: usize) -> (i32, i32) {
    let (kings, them) = (b.kings[us], b.men[1 - us]);
    let (mut exposed, mut moves) = (0, 0);
    if kings != 0 {
        each_dir(|d| {
            exposed += (kings & aimed(pairs(them, d.reverse()), b.empty, d)).count_ones() as i32;
            moves += ray_fill(kings, b.empty, d).count_ones() as i32;
        });
    }
    (exposed, moves)
}

/// The White-minus-Black differences of the [`TERMS`] (the counts of
/// [`pattern_scalars`], with the line counts as "at least").
///
/// Both sides are counted together, one axis at a time (the letter lines,
/// NE and SW, then the number lines, NW and SE), so that the four boards of
/// men with a man behind along the axis serve every feature: the lines, the
/// exposure of both sides both ways, the men's moves (White moves NE and NW,
/// Black SW and SE) and the isolated men.
#[inline(always)]
fn pattern_diffs<S: TermSink>(b: &Boards, out: &mut S) {
    let mut acc = AxisSums::default();
    // Two calls rather than a loop: each is compiled with its constant shifts.
    axis(b, T_LETTER, Dir::NE, &mut acc, out);
    axis(b, T_NUMBER, Dir::NW, &mut acc, out);
    out.add(T_EXPOSED_SINGLE, acc.single);
    out.add(T_LINEAR_THREAT, acc.threat);
    out.add(T_MOBILITY_MEN, acc.mobility);
    let [wm, bm] = b.men;
    let isolated = (wm & !acc.neighbours[0]).count_ones() as i32
        - (bm & !acc.neighbours[1]).count_ones() as i32;
    out.add(T_ISOLATED, isolated);
    // Exposed lines are rare: their men are counted only when there is one.
    if acc.taken != 0 {
        out.add(
            T_EXPOSED_LINE_MEN,
            exposed_line_men(b, 0) - exposed_line_men(b, 1),
        );
    }
    // Without kings on the board the king terms are zero.
    if b.kings[0] | b.kings[1] != 0 {
        let (we, wm) = king_terms(b, 0);
        let (be, bm) = king_terms(b, 1);
        out.add(T_EXPOSED_KING, we - be);
        out.add(T_MOBILITY_KINGS, wm - bm);
    }
}

/// The differences [`pattern_diffs`] sums over both axes.
#[derive(Default)]
struct AxisSums {
    single: i32,
    threat: i32,
    mobility: i32,
    /// Heads of exposed lines of either side.
    taken: u64,
    /// Men with a man of their own on some neighbouring square, by colour.
    neighbours: [u64; 2],
}

/// The part of [`pattern_diffs`] along the axis of `d` (NE or NW) and its
/// reverse; the line terms from `base` on.
#[inline(always)]
fn axis<S: TermSink>(b: &Boards, base: usize, d: Dir, acc: &mut AxisSums, out: &mut S) {
    let [wm, bm] = b.men;
    let [wp, bp] = b.pieces;
    let empty = b.empty;
    let r = d.reverse();
    let (w_ahead, w_back) = (pairs(wm, d), pairs(wm, r));
    let (b_ahead, b_back) = (pairs(bm, d), pairs(bm, r));
    acc.neighbours[0] |= w_ahead | w_back;
    acc.neighbours[1] |= b_ahead | b_back;
    let (wl, bl) = (
        line_heads(wm, w_ahead, w_back, d),
        line_heads(bm, b_ahead, b_back, d),
    );
    for k in 0..3 {
        out.add(base + k, wl[k] - bl[k]);
    }
    for (ws, wt, wtaken) in [
        exposure(wm, w_ahead, b_back, bp, empty, d),
        exposure(wm, w_back, b_ahead, bp, empty, r),
    ] {
        acc.single += ws;
        acc.threat += wt;
        acc.taken |= wtaken;
    }
    for (bs, bt, btaken) in [
        exposure(bm, b_ahead, w_back, wp, empty, d),
        exposure(bm, b_back, w_ahead, wp, empty, r),
    ] {
        acc.single -= bs;
        acc.threat -= bt;
        acc.taken |= btaken;
    }
    // Each man whose chain of own men ahead ends on an empty square is one
    // move: the runs filled back from the men before an empty square (runs
    // along one direction are disjoint, so one count is the sum). White
    // moves along `d`, Black along `r`.
    let long = d.along_letter_line();
    let w_front = wm & raw(empty, r);
    acc.mobility += run_fill(wm, w_back, w_front, r, long).count_ones() as i32;
    let b_front = bm & raw(empty, d);
    acc.mobility -= run_fill(bm, b_ahead, b_front, d, long).count_ones() as i32;
}

/// The weighted sum of the pattern terms, packed (see [`pack`]): one
/// multiplication a term for both halves.
struct Weighted<'a> {
    compiled: &'a Compiled,
    packed: i64,
}

impl TermSink for Weighted<'_> {
    #[inline(always)]
    fn add(&mut self, term: usize, diff: i32) {
        let weight = self.compiled.term[term];
        self.packed = self.packed.wrapping_add(weight.wrapping_mul(diff as i64));
    }
}

/// Packs `(mg, eg)` into one integer, `eg * 2^32 + mg`.
///
/// Packing is linear modulo `2^64`: wrapping sums and multiples of packed
/// values are the packed sums and multiples. So one wrapping sum of packed
/// values gives `MG + EG * 2^32 (mod 2^64)`, from which [`unpack`] recovers
/// `MG` and `EG` exactly when both lie in `i32` (see [`MAX_SUM_WEIGHTS`]),
/// whatever the intermediate sums were.
#[inline]
fn pack(mg: i32, eg: i32) -> i64 {
    ((eg as i64) << 32).wrapping_add(mg as i64)
}

/// The `(mg, eg)` of a packed sum (see [`pack`]) whose halves lie in `i32`:
/// the low half is `mg` as an `i32`, and what remains is exactly `eg * 2^32`.
#[inline(always)]
fn unpack(packed: i64) -> (i64, i64) {
    let mg = packed as i32 as i64;
    (mg, packed.wrapping_sub(mg) >> 32)
}

/// A bound on `|MG|` and `|EG|`, the middle- and end-game sums of one
/// position, in [`MAX_WEIGHT`]s: each is `sum |w_f| |white_f - black_f|`
/// over the features `f` at most, and `|white_f - black_f| <= white_f +
/// black_f`. Summed over both sides and all directions, with at most 50
/// squares:
/// - piece entries: at most 10 weights a piece (a man: its own, piece-square,
///   centre and tempo times at most 6 rows, or its own, piece-square and tempo
///   times 8 rows; a man on its promotion row, which only a hand-made
///   position has, its own and tempo times 9; a king 3), so 10 a square;
/// - lines: a side has at most `men / 2` lines of two or more men along a
///   direction, and each weighs one line weight: 2 directions times 25;
/// - exposure and threat: along one direction a man counts once at most in
///   [`EXPOSED_LINE_MEN`] and [`EXPOSED_SINGLE`] together (the runs of
///   exposed lines are disjoint, and an exposed single man has an empty
///   square ahead, so it is in no run), once in [`LINEAR_THREAT`], and a king
///   once in [`EXPOSED_KING`]: 2 a piece, 4 directions;
/// - isolated men 1 a man; men's moves 1 a man for each of 2 directions;
/// - kings' moves: at most the empty squares along each of 4 directions, for
///   each side.
const MAX_SUM_WEIGHTS: i64 = 10 * 50 + 2 * 25 + 2 * 4 * 50 + 50 + 2 * 50 + 2 * 4 * 50;

// Both halves of every packed sum lie in `i32` for every legal weight.
const _: () = assert!(MAX_SUM_WEIGHTS * MAX_WEIGHT as i64 <= i32::MAX as i64);
// A term's weight is a weight or the difference of two (see [`T_LETTER`]).
const _: () = assert!(2 * MAX_WEIGHT as i64 <= i32::MAX as i64);

/// Bushka weights compiled for the search: exactly the score of
/// [`Weights::score_white`], computed faster.
///
/// The evaluation is linear in the features, so every feature that is a sum
/// over single pieces (material, piece-square values, back rank, centre,
/// tempo) is folded into one table per piece kind and colour: a piece costs
/// one table read instead of five feature entries, and the men of a row one
/// read together. The pattern features are counted for both sides in one
/// pass that shares their shifted boards and weights each White-minus-Black
/// difference as it goes (see [`pattern_diffs`]); all sums are exact (see
/// [`MAX_SUM_WEIGHTS`]).
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The packed (see [`pack`]) `(mg, eg)` of a piece on a square, in
    /// White's favour (Black's entries negative): white man, white king,
    /// black man, black king.
    table: [[i64; 64]; 4],
    /// `men_rows[colour][y][bits]`: the packed sum of the men's entries of
    /// `table` for the men of row `y` given by the five bits `bits` (the row's
    /// squares from its lowest, [`ROW_SHIFT`]): one read per row instead of
    /// one per man.
    men_rows: [[[i64; 32]; 10]; 2],
    /// Packed `(mg, eg)` weights of the [`TERMS`].
    term: [i64; TERMS],
}

impl Compiled {
    /// Folds Bushka weights; `None` for weights of another game.
    pub fn new(w: &Weights) -> Option<Compiled> {
        if w.kind() != <Position as crate::Game>::KIND || w.mg().len() != COUNT {
            return None;
        }
        let mut table = [[0; 64]; 4];
        for sq in Bits(BOARD) {
            for (slot, side, king) in [
                (0, Color::White, false),
                (1, Color::White, true),
                (2, Color::Black, false),
                (3, Color::Black, true),
            ] {
                // The features of one piece, in its owner's terms.
                let mut features: Vec<(usize, i64)> = vec![(if king { KING } else { MAN }, 1)];
                let own = if side == Color::White {
                    sq
                } else {
                    TURNED[sq as usize]
                };
                let pst = PST_INDEX[king as usize][own as usize];
                if pst != NO_INDEX {
                    features.push((pst as usize, 1));
                }
                if CENTRE_SQUARES & (1 << sq) != 0 {
                    features.push((CENTRE, 1));
                }
                if !king {
                    if promotion_row(side.opponent()) & (1 << sq) != 0 {
                        features.push((BACK_RANK, 1));
                    }
                    features.push((TEMPO, advance(sq, side) as i64));
                }
                // At most 10 weights of at most MAX_WEIGHT: inside i32.
                debug_assert!(features.iter().map(|f| f.1).sum::<i64>() <= 10);
                let (mg, eg) = fold_piece(w, &features, side == Color::White);
                table[slot][sq as usize] = pack(mg, eg);
            }
        }
        let mut term = [0; TERMS];
        let weight = |i: usize| (w.mg()[i], w.eg()[i]);
        let mut set = |t: usize, (mg, eg): (i32, i32)| term[t] = pack(mg, eg);
        for (base, first) in [(T_LETTER, LINE2_LETTER), (T_NUMBER, LINE2_NUMBER)] {
            let (w2, w3, w4) = (weight(first), weight(first + 1), weight(first + 2));
            set(base, w2);
            set(base + 1, (w3.0 - w2.0, w3.1 - w2.1));
            set(base + 2, (w4.0 - w3.0, w4.1 - w3.1));
        }
        set(T_EXPOSED_LINE_MEN, weight(EXPOSED_LINE_MEN));
        set(T_EXPOSED_SINGLE, weight(EXPOSED_SINGLE));
        set(T_EXPOSED_KING, weight(EXPOSED_KING));
        set(T_LINEAR_THREAT, weight(LINEAR_THREAT));
        set(T_ISOLATED, weight(ISOLATED));
        set(T_MOBILITY_MEN, weight(MOBILITY_MEN));
        set(T_MOBILITY_KINGS, weight(MOBILITY_KINGS));
        let mut men_rows = [[[0; 32]; 10]; 2];
        for (colour, rows) in men_rows.iter_mut().enumerate() {
            for (y, row) in rows.iter_mut().enumerate() {
                for (bits, sum) in row.iter_mut().enumerate() {
                    let men = ((bits as u64) << ROW_SHIFT[y]) & ROWS[y];
                    *sum = Bits(men).map(|sq| table[2 * colour][sq as usize]).sum();
                }
            }
        }
        Some(Compiled {
            table,
            men_rows,
            term,
        })
    }

    /// The packed sum of the pieces' table entries.
    #[inline(always)]
    fn piece_sum(&self, pos: &Position) -> i64 {
        let mut packed = 0i64;
        for (rows, men) in self
            .men_rows
            .iter()
            .zip([pos.men(Color::White), pos.men(Color::Black)])
        {
            for (row, &shift) in rows.iter().zip(&ROW_SHIFT) {
                packed = packed.wrapping_add(row[(men >> shift) as usize & 31]);
            }
        }
        if pos.kings(Color::White) | pos.kings(Color::Black) != 0 {
            for (table, bb) in [
                (&self.table[1], pos.kings(Color::White)),
                (&self.table[3], pos.kings(Color::Black)),
            ] {
                for sq in Bits(bb) {
                    packed = packed.wrapping_add(table[sq as usize & 63]);
                }
            }
        }
        packed
    }

    /// The middle- and end-game sums of White's score.
    #[inline(always)]
    fn sums(&self, pos: &Position) -> (i64, i64) {
        let mut sum = Weighted {
            compiled: self,
            packed: self.piece_sum(pos),
        };
        pattern_diffs(&Boards::of(pos), &mut sum);
        unpack(sum.packed)
    }

    /// The middle- and end-game sums of White's score: the same as
    /// [`Weights::sums_white`].
    #[inline]
    pub fn sums_white(&self, pos: &Position) -> (i64, i64) {
        self.sums(pos)
    }

    /// White's score: the same value as [`Weights::score_white`].
    #[inline]
    pub fn score_white(&self, pos: &Position) -> i32 {
        let (mg, eg) = self.sums(pos);
        taper(mg, eg, pos.phase())
    }
}

impl Evaluator<Position> for Compiled {
    #[inline]
    fn evaluate(&self, pos: &Position) -> i32 {
        for_side(self.score_white(pos), pos.side())
    }
}

/// Emits one piece-square entry per piece of `bb` (`king` picks the table).
#[inline(always)]
fn emit_pst<S: FeatureSink>(out: &mut S, bb: u64, king: bool, white: bool) {
    let table = &PST_INDEX[king as usize];
    for sq in Bits(bb) {
        let own = if white { sq } else { TURNED[sq as usize & 63] };
        let index = table[own as usize & 63];
        if index != NO_INDEX {
            out.add(index, if white { 1 } else { -1 });
        }
    }
}

impl Features for Position {
    const NAMES: &'static [&'static str] = &NAMES;
    const MATERIAL_UNIT: &'static str = "man";
    const MATERIAL_WEIGHTS: &'static [(&'static str, i32)] = &[("man", 100), ("king", 300)];
    const DEFAULT_WEIGHTS: &'static str = include_str!("../../../data/weights/bushka.json");

    #[inline]
    fn features<S: FeatureSink>(&self, out: &mut S) {
        let white = side_scalars(self, Color::White);
        let black = side_scalars(self, Color::Black);
        for i in 0..SCALARS {
            emit_diff(out, i, white[i], black[i]);
        }
        emit_pst(out, self.men(Color::White), false, true);
        emit_pst(out, self.men(Color::Black), false, false);
        emit_pst(out, self.kings(Color::White), true, true);
        emit_pst(out, self.kings(Color::Black), true, false);
    }

    fn compile(weights: &Weights) -> std::sync::Arc<dyn Evaluator<Self>> {
        compiled_or_plain(weights, Compiled::new(weights))
    }

    /// Pieces on the board, 30 (the start) or more being the full middle game.
    #[inline]
    fn phase(&self) -> i32 {
        let pieces = self.occupied().count_ones() as i32;
        (pieces * PHASE_MAX / 30).min(PHASE_MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, GameKind};
    use crate::zobrist::splitmix64;
    use crate::MoveList;

    /// Random placements of every density, from a nearly empty board to a
    /// full one, with few or many kings (men never on their promotion row),
    /// plus positions of seeded random games.
    fn sample() -> Vec<Position> {
        let mut out = Vec::new();
        let mut s = 7u64;
        let mut next = |n: u64| {
            s = splitmix64(s);
            s % n
        };
        for i in 0..20_000u64 {
            let density = 5 + i % 96;
            let king_rate = [0, 0, 3, 10, 40][(i / 96 % 5) as usize];
            let (mut pieces, mut kings) = ([0u64; 2], 0u64);
            for sq in Bits(BOARD) {
                if next(100) >= density {
                    continue;
                }
                let side = next(2) as usize;
                let colour = [Color::White, Color::Black][side];
                if next(100) < king_rate || promotion_row(colour) & (1 << sq) != 0 {
                    kings |= 1 << sq;
                }
                pieces[side] |= 1 << sq;
            }
            let side = [Color::White, Color::Black][next(2) as usize];
            out.push(Position::from_parts(pieces[0], pieces[1], kings, side));
        }
        let mut list = MoveList::new();
        for _ in 0..100 {
            let mut p = Position::start();
            for _ in 0..200 {
                out.push(p);
                p.generate(&mut list);
                if list.is_empty() {
                    break;
                }
                p = p.play(&list[next(list.len() as u64) as usize]);
            }
        }
        out
    }

    /// Lines longer than any fill step: whole long diagonals and number lines
    /// of men, with and without an empty square ahead and enemy lines aimed.
    fn long_lines() -> Vec<Position> {
        let mut out = Vec::new();
        for d in DIRS {
            for start in Bits(BOARD) {
                let mut line = 0u64;
                let mut sq = start;
                while let Some(next) = crate::bushka::board::step(sq, d) {
                    line |= 1 << sq;
                    sq = next;
                }
                line |= 1 << sq;
                // Every prefix of the line as men of either colour, the rest
                // of the line enemy men or empty.
                let squares: Vec<u8> = Bits(line).collect();
                for cut in 0..=squares.len() {
                    for gap in 0..3 {
                        let (mut own, mut enemy) = (0u64, 0u64);
                        for (i, &s) in squares.iter().enumerate() {
                            if i < cut {
                                own |= 1 << s;
                            } else if i >= cut + gap {
                                enemy |= 1 << s;
                            }
                        }
                        for (w, b) in [(own, enemy), (enemy, own)] {
                            let kings = (w & promotion_row(Color::White))
                                | (b & promotion_row(Color::Black));
                            out.push(Position::from_parts(w, b, kings, Color::White));
                        }
                    }
                }
            }
        }
        out
    }

    /// The terms from the reference per-side features.
    fn reference_terms(pos: &Position, side: Color) -> [u32; TERMS] {
        let f = pattern_scalars(pos, side);
        let mut t = [0; TERMS];
        for (base, first) in [(T_LETTER, LINE2_LETTER), (T_NUMBER, LINE2_NUMBER)] {
            let (n2, n3, n4) = (f[first], f[first + 1], f[first + 2]);
            t[base] = n2 + n3 + n4;
            t[base + 1] = n3 + n4;
            t[base + 2] = n4;
        }
        t[T_EXPOSED_LINE_MEN] = f[EXPOSED_LINE_MEN];
        t[T_EXPOSED_SINGLE] = f[EXPOSED_SINGLE];
        t[T_EXPOSED_KING] = f[EXPOSED_KING];
        t[T_LINEAR_THREAT] = f[LINEAR_THREAT];
        t[T_ISOLATED] = f[ISOLATED];
        t[T_MOBILITY_MEN] = f[MOBILITY_MEN];
        t[T_MOBILITY_KINGS] = f[MOBILITY_KINGS];
        t
    }

    /// The plain differences of the terms.
    struct Diffs([i32; TERMS]);

    impl TermSink for Diffs {
        fn add(&mut self, term: usize, diff: i32) {
            self.0[term] += diff;
        }
    }

    #[test]
    fn pattern_diffs_count_the_pattern_features() {
        let (mut exposed, mut long_mobility) = (0, 0);
        for pos in sample().into_iter().chain(long_lines()) {
            let boards = Boards::of(&pos);
            let mut diffs = Diffs([0; TERMS]);
            pattern_diffs(&boards, &mut diffs);
            let (w, b) = (
                reference_terms(&pos, Color::White),
                reference_terms(&pos, Color::Black),
            );
            let expected: [i32; TERMS] = std::array::from_fn(|t| w[t] as i32 - b[t] as i32);
            assert_eq!(diffs.0, expected, "{pos:?}");
            // The rare paths are reached, and count each side right.
            for (side, t) in [(0, w), (1, b)] {
                assert_eq!(
                    exposed_line_men(&boards, side),
                    t[T_EXPOSED_LINE_MEN] as i32
                );
                let kings = (t[T_EXPOSED_KING] as i32, t[T_MOBILITY_KINGS] as i32);
                assert_eq!(king_terms(&boards, side), kings);
            }
            exposed += (w[T_EXPOSED_LINE_MEN] > 0) as u32;
            long_mobility += (b[T_MOBILITY_MEN] >= 8) as u32;
        }
        assert!(
            exposed > 500 && long_mobility > 50,
            "{exposed} {long_mobility}"
        );
    }

    /// Weights all at the largest magnitude, of one sign per half or random
    /// signs, on boards full of one colour's pieces (men even on the
    /// promotion row, where a man's entry is largest) and on the sample: the
    /// packed sums are the sums of the weighted features.
    #[test]
    fn packed_sums_do_not_overflow() {
        let n = COUNT;
        let max = MAX_WEIGHT;
        let mut positions = vec![];
        for kings in [0, BOARD, BOARD & !promotion_row(Color::White)] {
            positions.push(Position::from_parts(BOARD, 0, kings, Color::White));
            positions.push(Position::from_parts(0, BOARD, kings, Color::Black));
        }
        // Lone kings on an empty board: the most king moves.
        for sq in Bits(BOARD) {
            positions.push(Position::from_parts(1 << sq, 0, 1 << sq, Color::White));
        }
        positions.extend(sample().into_iter().step_by(3));
        let mut s = 11u64;
        let mut random = || {
            (0..n)
                .map(|_| {
                    s = splitmix64(s);
                    if s & 1 == 0 {
                        max
                    } else {
                        -max
                    }
                })
                .collect::<Vec<i32>>()
        };
        let mut weights = vec![];
        for (m, e) in [(max, max), (max, -max), (-max, max), (-max, -max)] {
            weights.push((vec![m; n], vec![e; n]));
        }
        for _ in 0..4 {
            weights.push((random(), random()));
        }
        for (m, e) in weights {
            let w = Weights::from_vectors(GameKind::Bushka, m, e).unwrap();
            let c = Compiled::new(&w).unwrap();
            for p in &positions {
                let f = p.feature_vec().to_dense(COUNT);
                let dot = |v: &[i32]| f.iter().zip(v).map(|(&x, &y)| x as i64 * y as i64).sum();
                assert_eq!(c.sums(p), (dot(w.mg()), dot(w.eg())), "{p:?}");
                assert_eq!(c.score_white(p), w.score_white(p), "{p:?}");
            }
        }
    }
}
