//! Bashnya features (docs/rules.md section 2): columns by commander, prisoners,
//! column shape, piece-square values, back-rank guard, mobility, tempo and
//! columns open to capture.
//!
//! Each side is measured from its own side of the board; the values emitted
//! are White minus Black (see [`super::features`]). Prisoners appear once:
//! the prisoners a side holds are exactly the other side's pieces under its
//! commanders, so in White-minus-Black form "own pieces held prisoner" is
//! minus `prisoners_held` and is not a separate feature; `prisoners_near`
//! counts the prisoners one capture would free instead.

use super::features::{
    add_weighted_diff, compiled_or_plain, emit_diff, fold_piece, for_side, unfolded, FeatureSink,
    Features, FEATURE_CAPACITY, PHASE_MAX,
};
use super::weights::{taper, Weights};
use super::Evaluator;
use crate::bashnya::geometry::{
    file_of, open_run, rank_of, shift, square_at, Bitboard, NE, NEIGHBOUR, NONE, NW, RANK_1,
    RANK_8, SE, SQUARES, SW,
};
use crate::bashnya::Position;
use crate::game::Color;

/// Columns commanded by a man.
pub const MAN_COLUMNS: usize = 0;
/// Columns commanded by a king.
pub const KING_COLUMNS: usize = 1;
/// Own men under own commanders (free material in reserve).
pub const MEN_BELOW: usize = 2;
/// Own kings under own commanders.
pub const KINGS_BELOW: usize = 3;
/// Enemy pieces under own commanders.
pub const PRISONERS_HELD: usize = 4;
/// Enemy kings under own commanders.
pub const KINGS_HELD: usize = 5;
/// Own pieces directly under an enemy commander: one capture frees them.
pub const PRISONERS_NEAR: usize = 6;
/// Own columns whose second piece is own: a capture leaves them ours.
pub const SAFE_COLUMNS: usize = 7;
/// Own columns of three pieces or more.
pub const TALL_COLUMNS: usize = 8;
/// Own man-commanded columns still on their own back rank.
pub const BACK_RANK: usize = 9;
/// Own columns on the eight centre squares.
pub const CENTRE: usize = 10;
/// Quiet moves of man-commanded columns.
pub const MOBILITY_MEN: usize = 11;
/// Quiet moves of king-commanded columns.
pub const MOBILITY_KINGS: usize = 12;
/// Sum of the ranks the man-commanded columns have advanced.
pub const TEMPO: usize = 13;
/// Own columns an enemy column could jump if it were the enemy's move. In a
/// position the search scores (no capture pending) only the side to move can
/// have such columns: an exposed column of the other side would be a capture
/// for the side to move. So the feature reads "columns of the side to move
/// that the opponent threatens". The tuned weights make it a bonus: 194 mg,
/// 139 eg in the feature set (`data/weights/bashnya.json`, `--eval
/// features`), 151 and 70 in the default pattern set's features
/// (`data/weights/bashnya.patterns`). The tests check that in the
/// quiet positions of played games only the side to move has it
/// (`engine/tests/engine/eval_features.rs`).
pub const EXPOSED: usize = 14;
/// Number of scalar features; the piece-square features follow.
pub const SCALARS: usize = 15;
/// First man piece-square feature (28 squares: a man never commands on its far rank).
pub const MAN_PST: usize = SCALARS;
/// First king piece-square feature (32 squares).
pub const KING_PST: usize = MAN_PST + 28;
/// Total number of Bashnya features.
pub const COUNT: usize = KING_PST + 32;

/// Feature names; piece-square names use the square seen from the owner
/// (White's names), by commander rank.
pub const NAMES: [&str; COUNT] = [
    "man_columns",
    "king_columns",
    "men_below",
    "kings_below",
    "prisoners_held",
    "kings_held",
    "prisoners_near",
    "safe_columns",
    "tall_columns",
    "back_rank",
    "centre",
    "mobility_men",
    "mobility_kings",
    "tempo",
    "exposed",
    "man_a1",
    "man_c1",
    "man_e1",
    "man_g1",
    "man_b2",
    "man_d2",
    "man_f2",
    "man_h2",
    "man_a3",
    "man_c3",
    "man_e3",
    "man_g3",
    "man_b4",
    "man_d4",
    "man_f4",
    "man_h4",
    "man_a5",
    "man_c5",
    "man_e5",
    "man_g5",
    "man_b6",
    "man_d6",
    "man_f6",
    "man_h6",
    "man_a7",
    "man_c7",
    "man_e7",
    "man_g7",
    "king_a1",
    "king_c1",
    "king_e1",
    "king_g1",
    "king_b2",
    "king_d2",
    "king_f2",
    "king_h2",
    "king_a3",
    "king_c3",
    "king_e3",
    "king_g3",
    "king_b4",
    "king_d4",
    "king_f4",
    "king_h4",
    "king_a5",
    "king_c5",
    "king_e5",
    "king_g5",
    "king_b6",
    "king_d6",
    "king_f6",
    "king_h6",
    "king_a7",
    "king_c7",
    "king_e7",
    "king_g7",
    "king_b8",
    "king_d8",
    "king_f8",
    "king_h8",
];

// One entry per square plus one per scalar must fit a FeatureVec.
const _: () = assert!(SQUARES + SCALARS <= FEATURE_CAPACITY);

/// Colour flags of every piece in an encoded column (bit `2i`: piece `i` is black).
const COLOUR_BITS: u64 = 0x5555_5555_5555_5555;

/// The eight centre squares c3 e3 d4 f4 c5 e5 d6 f6 (ranks 3-6, files c-f).
const CENTRE_SQUARES: Bitboard = centre();

const fn centre() -> Bitboard {
    let mut bb = 0;
    let mut sq = 0;
    while sq < SQUARES as u8 {
        let (f, r) = (file_of(sq), rank_of(sq));
        if f >= 2 && f <= 5 && r >= 2 && r <= 5 {
            bb |= 1 << sq;
        }
        sq += 1;
    }
    bb
}

// The centre must be what the docs say (and symmetric under turning).
const _: () = assert!(CENTRE_SQUARES.count_ones() == 8);
const _: () = assert!(CENTRE_SQUARES.reverse_bits() == CENTRE_SQUARES);
const _: () = assert!(matches!(square_at(2, 2), Some(9)));

/// What one column contributes to its owner and to its prisoners' side.
#[derive(Clone, Copy, Default)]
struct ColumnCounts {
    men_below: u32,
    kings_below: u32,
    held: u32,
    kings_held: u32,
    safe: bool,
    tall: bool,
    /// The piece under the commander belongs to the other side.
    near: bool,
}

/// Reads an encoded column (non-empty, commander's colour `black`).
#[inline(always)]
fn column_counts(col: u64, black: bool) -> ColumnCounts {
    let height = (63 - col.leading_zeros()) / 2;
    let mask = (1u64 << (2 * height)) - 1;
    // Flags of the pieces below the commander, one bit per piece at bit 2i.
    let below = COLOUR_BITS & mask & !3;
    let blacks = col & below;
    let kings = (col >> 1) & below;
    let (own, enemy) = if black {
        (blacks, below & !blacks)
    } else {
        (below & !blacks, blacks)
    };
    ColumnCounts {
        men_below: (own & !kings).count_ones(),
        kings_below: (own & kings).count_ones(),
        held: enemy.count_ones(),
        kings_held: (enemy & kings).count_ones(),
        safe: own & 4 != 0,
        tall: height >= 3,
        near: enemy & 4 != 0,
    }
}

/// Scalar features of both sides, `[white, black]`. Without `folded`, the
/// features that are sums over single columns ([`MAN_COLUMNS`],
/// [`KING_COLUMNS`], [`BACK_RANK`], [`CENTRE`], [`TEMPO`]) are left at zero
/// (see [`Compiled`]).
#[inline(always)]
fn scalars(pos: &Position, folded: bool) -> [[u32; SCALARS]; 2] {
    let mut f = [[0u32; SCALARS]; 2];
    let occ = pos.occupied();
    let empty = !occ;
    let kings = pos.king_columns();
    let mut exposed: [Bitboard; 2] = [0; 2];
    for us in [Color::White, Color::Black] {
        let (u, t) = (us as usize, us.opponent() as usize);
        let own = pos.columns_of(us);
        let enemy = pos.columns_of(us.opponent());
        let (men_cols, king_cols) = (own & !kings, own & kings);
        let s = &mut f[u];
        let (home, forward) = match us {
            Color::White => (RANK_1, [NE, NW]),
            Color::Black => (RANK_8, [SE, SW]),
        };
        if folded {
            s[MAN_COLUMNS] = men_cols.count_ones();
            s[KING_COLUMNS] = king_cols.count_ones();
            s[BACK_RANK] = (men_cols & home).count_ones();
            s[CENTRE] = (own & CENTRE_SQUARES).count_ones();
            for rank in 0..8u32 {
                s[TEMPO] += advance(rank, us) * (men_cols & (0xF << (4 * rank))).count_ones();
            }
        }
        for d in forward {
            s[MOBILITY_MEN] += (shift(men_cols, d) & empty).count_ones();
        }
        // Enemy men jump an adjacent column onto the empty square beyond, in
        // any of the four directions.
        let enemy_men = enemy & !kings;
        for d in 0..4 {
            exposed[u] |= own & shift(enemy_men, 3 - d) & shift(empty, d);
        }
        let mut bb = king_cols;
        while bb != 0 {
            let k = bb.trailing_zeros() as u8;
            bb &= bb - 1;
            for (d, next) in NEIGHBOUR.iter().enumerate() {
                let run = open_run(k, d, occ);
                s[MOBILITY_KINGS] += run.count_ones();
                // The first column met from a king is exposed when the
                // square beyond it is empty.
                let from = match (run, d) {
                    (0, _) => k,
                    // NE and NW raise the index, so the run ends at its highest square.
                    (_, NE | NW) => (31 - run.leading_zeros()) as u8,
                    _ => run.trailing_zeros() as u8,
                };
                let hit = next[from as usize & 31];
                if hit != NONE && enemy & (1 << hit) != 0 {
                    let land = next[hit as usize & 31];
                    if land != NONE && occ & (1 << land) == 0 {
                        exposed[t] |= 1 << hit;
                    }
                }
            }
        }
    }
    f[0][EXPOSED] = exposed[0].count_ones();
    f[1][EXPOSED] = exposed[1].count_ones();
    let mut bb = occ;
    while bb != 0 {
        let sq = bb.trailing_zeros() as u8;
        bb &= bb - 1;
        let col = pos.column(sq).raw();
        let black = col & 1 != 0;
        let c = column_counts(col, black);
        let (u, t) = (black as usize, !black as usize);
        let s = &mut f[u];
        s[MEN_BELOW] += c.men_below;
        s[KINGS_BELOW] += c.kings_below;
        s[PRISONERS_HELD] += c.held;
        s[KINGS_HELD] += c.kings_held;
        s[SAFE_COLUMNS] += c.safe as u32;
        s[TALL_COLUMNS] += c.tall as u32;
        f[t][PRISONERS_NEAR] += c.near as u32;
    }
    f
}

/// Ranks a man-commanded column on `rank` (0 = White's first) has advanced.
#[inline(always)]
fn advance(rank: u32, us: Color) -> u32 {
    if us == Color::White {
        rank
    } else {
        7 - rank
    }
}

/// Bashnya weights compiled for the search: exactly the score of
/// [`Weights::score_white`], computed faster.
///
/// The evaluation is linear in the features, so the features that are sums
/// over single columns (columns by commander, piece-square values, back
/// rank, centre, tempo) fold into one table per commander kind and colour;
/// the rest are counted as before and weighted in one pass.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// `(mg, eg)` of a column by its commander and square, in White's
    /// favour: white man, white king, black man, black king.
    table: [[(i32, i32); SQUARES]; 4],
    /// `(mg, eg)` weights of the other scalar features (zero for the folded ones).
    rest: [(i32, i32); SCALARS],
}

impl Compiled {
    /// Folds Bashnya weights; `None` for weights of another game.
    pub fn new(w: &Weights) -> Option<Compiled> {
        if w.kind() != <Position as crate::Game>::KIND || w.mg().len() != COUNT {
            return None;
        }
        let mut table = [[(0, 0); SQUARES]; 4];
        let kinds = [
            (Color::White, false),
            (Color::White, true),
            (Color::Black, false),
            (Color::Black, true),
        ];
        for (row, (side, king)) in table.iter_mut().zip(kinds) {
            for (sq, entry) in row.iter_mut().enumerate() {
                let rank = (sq / 4) as u32;
                let own = if side == Color::White {
                    sq
                } else {
                    SQUARES - 1 - sq
                };
                let mut features: Vec<(usize, i64)> =
                    vec![(if king { KING_COLUMNS } else { MAN_COLUMNS }, 1)];
                if king {
                    features.push((KING_PST + own, 1));
                } else if own < 28 {
                    features.push((MAN_PST + own, 1));
                }
                if CENTRE_SQUARES & (1 << sq) != 0 {
                    features.push((CENTRE, 1));
                }
                if !king {
                    let home = if side == Color::White { RANK_1 } else { RANK_8 };
                    if home & (1 << sq) != 0 {
                        features.push((BACK_RANK, 1));
                    }
                    features.push((TEMPO, advance(rank, side) as i64));
                }
                // At most five weights of at most MAX_WEIGHT, the tempo one
                // times seven: far inside i32.
                *entry = fold_piece(w, &features, side == Color::White);
            }
        }
        let rest = unfolded(w, &[MAN_COLUMNS, KING_COLUMNS, BACK_RANK, CENTRE, TEMPO]);
        Some(Compiled { table, rest })
    }

    /// White's score: the same value as [`Weights::score_white`].
    #[inline]
    pub fn score_white(&self, pos: &Position) -> i32 {
        let (mg, eg) = self.sums_white(pos);
        taper(mg, eg, pos.phase())
    }

    /// The middle- and end-game sums of White's score: the same as
    /// [`Weights::sums_white`].
    #[inline(always)]
    pub fn sums_white(&self, pos: &Position) -> (i64, i64) {
        let (mut mg, mut eg) = (0i64, 0i64);
        let kings = pos.king_columns();
        let (w, b) = (pos.columns_of(Color::White), pos.columns_of(Color::Black));
        for (table, bb) in self
            .table
            .iter()
            .zip([w & !kings, w & kings, b & !kings, b & kings])
        {
            let mut bb = bb;
            while bb != 0 {
                let (m, e) = table[bb.trailing_zeros() as usize & (SQUARES - 1)];
                bb &= bb - 1;
                mg += m as i64;
                eg += e as i64;
            }
        }
        let [white, black] = scalars(pos, false);
        let mut sums = (mg, eg);
        add_weighted_diff(&mut sums, &self.rest, &white, &black);
        sums
    }
}

impl Evaluator<Position> for Compiled {
    #[inline]
    fn evaluate(&self, pos: &Position) -> i32 {
        for_side(self.score_white(pos), pos.side())
    }
}

/// Emits one piece-square entry per column commander of `bb`.
#[inline(always)]
fn emit_pst<S: FeatureSink>(out: &mut S, bb: Bitboard, base: usize, white: bool) {
    let mut bb = bb;
    while bb != 0 {
        let sq = bb.trailing_zeros() as usize;
        bb &= bb - 1;
        let own = if white { sq } else { SQUARES - 1 - sq };
        // A man commander on its own far rank cannot exist; a hand-made
        // position with one simply gets no piece-square entry.
        if base == MAN_PST && own >= 28 {
            continue;
        }
        out.add((base + own) as u16, if white { 1 } else { -1 });
    }
}

impl Features for Position {
    const NAMES: &'static [&'static str] = &NAMES;
    const MATERIAL_UNIT: &'static str = "man_columns";
    // Free pieces count, whether they command or sit below their own commander.
    const MATERIAL_WEIGHTS: &'static [(&'static str, i32)] = &[
        ("man_columns", 100),
        ("men_below", 100),
        ("king_columns", 300),
        ("kings_below", 300),
    ];
    const DEFAULT_WEIGHTS: &'static str = include_str!("../../../data/weights/bashnya.json");

    #[inline]
    fn features<S: FeatureSink>(&self, out: &mut S) {
        let [white, black] = scalars(self, true);
        for i in 0..SCALARS {
            emit_diff(out, i, white[i], black[i]);
        }
        let kings = self.king_columns();
        let (w, b) = (self.columns_of(Color::White), self.columns_of(Color::Black));
        emit_pst(out, w & !kings, MAN_PST, true);
        emit_pst(out, b & !kings, MAN_PST, false);
        emit_pst(out, w & kings, KING_PST, true);
        emit_pst(out, b & kings, KING_PST, false);
    }

    fn compile(weights: &Weights) -> std::sync::Arc<dyn Evaluator<Self>> {
        compiled_or_plain(weights, Compiled::new(weights))
    }

    /// Columns on the board: captures merge them, 24 being the start.
    #[inline]
    fn phase(&self) -> i32 {
        let columns = self.occupied().count_ones() as i32;
        (columns * PHASE_MAX / 24).min(PHASE_MAX)
    }
}
