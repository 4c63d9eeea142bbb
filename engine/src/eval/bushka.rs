//! Bushka features (RULES.md section 1): material, piece-square values, lines
//! of men, linear-capture exposure and threats, structure, mobility, tempo.
//!
//! Each side is measured from its own side of the board with bitboard shifts;
//! the values emitted are White minus Black (see [`super::features`]).

use super::features::{
    add_weighted_diff, compiled_or_plain, emit_diff, fold_piece, for_side, unfolded, FeatureSink,
    Features, FEATURE_CAPACITY, PHASE_MAX,
};
use super::weights::{taper, Weights};
use super::Evaluator;
use crate::bushka::board::{forward, promotion_row, rotate, shift, to_xy, Bits, Dir, BOARD, DIRS};
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

/// Bushka weights compiled for the search: exactly the score of
/// [`Weights::score_white`], computed faster.
///
/// The evaluation is linear in the features, so every feature that is a sum
/// over single pieces (material, piece-square values, back rank, centre,
/// tempo) is folded into one table per piece kind and colour: a piece costs
/// one table read instead of five feature entries. The pattern features are
/// counted for both sides as before and weighted in one pass.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// `(mg, eg)` of a piece on a square, in White's favour (Black's
    /// entries negative): white man, white king, black man, black king.
    table: [[(i32, i32); 64]; 4],
    /// `(mg, eg)` weights of the pattern features (zero for the folded ones).
    pattern: [(i32, i32); SCALARS],
}

impl Compiled {
    /// Folds Bushka weights; `None` for weights of another game.
    pub fn new(w: &Weights) -> Option<Compiled> {
        if w.kind() != crate::game::GameKind::Bushka || w.mg().len() != COUNT {
            return None;
        }
        let mut table = [[(0, 0); 64]; 4];
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
                // At most five weights of at most MAX_WEIGHT, the tempo one
                // times nine: far inside i32.
                table[slot][sq as usize] = fold_piece(w, &features, side == Color::White);
            }
        }
        let pattern = unfolded(w, &[MAN, KING, BACK_RANK, CENTRE, TEMPO]);
        Some(Compiled { table, pattern })
    }

    /// White's score: the same value as [`Weights::score_white`].
    #[inline]
    pub fn score_white(&self, pos: &Position) -> i32 {
        let (mut mg, mut eg) = (0i64, 0i64);
        let boards = [
            pos.men(Color::White),
            pos.kings(Color::White),
            pos.men(Color::Black),
            pos.kings(Color::Black),
        ];
        for (table, bb) in self.table.iter().zip(boards) {
            for sq in Bits(bb) {
                let (m, e) = table[sq as usize & 63];
                mg += m as i64;
                eg += e as i64;
            }
        }
        let white = pattern_scalars(pos, Color::White);
        let black = pattern_scalars(pos, Color::Black);
        let mut sums = (mg, eg);
        add_weighted_diff(&mut sums, &self.pattern, &white, &black);
        taper(sums.0, sums.1, pos.phase())
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
