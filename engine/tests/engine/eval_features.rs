//! The feature evaluation of both games: colour symmetry, the score as the
//! tapered dot product of weights and features, every feature firing
//! somewhere and staying silent somewhere, and the meaning of a few features
//! on hand-made positions.

use engine::bashnya::{Column, Piece};
use engine::eval::weights::taper;
use engine::eval::{Evaluator, Features, Weights, PHASE_MAX};
use engine::{bashnya, bushka, Color, Game, GameKind, MoveList};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

type Rng64 = Xoshiro256PlusPlus;

/// Positions met in seeded random games from the start.
fn played<G: Game>(seed: u64, games: usize, plies: usize) -> Vec<G> {
    let mut rng = Rng64::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut list = MoveList::new();
    for _ in 0..games {
        let mut p = G::start();
        for _ in 0..plies {
            out.push(p);
            p.generate(&mut list);
            if list.is_empty() {
                break;
            }
            p = p.play(&list[rng.random_range(0..list.len())]);
        }
    }
    out
}

/// Random Bushka placements (not necessarily reachable), to reach every square.
fn placed_bushka(seed: u64, n: usize) -> Vec<bushka::Position> {
    use engine::bushka::board::{bit, promotion_row, Bits, BOARD};
    let mut rng = Rng64::seed_from_u64(seed);
    let squares: Vec<u8> = Bits(BOARD).collect();
    (0..n)
        .map(|_| {
            let (mut pieces, mut kings) = ([0u64; 2], 0u64);
            for &sq in &squares {
                let roll = rng.random_range(0..100);
                if roll >= 40 {
                    continue;
                }
                let side = (roll % 2) as usize;
                let colour = if side == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                // A man never stands on its own promotion row.
                if roll < 8 || promotion_row(colour) & bit(sq) != 0 {
                    kings |= bit(sq);
                }
                pieces[side] |= bit(sq);
            }
            let side = if rng.random_bool(0.5) {
                Color::White
            } else {
                Color::Black
            };
            bushka::Position::from_parts(pieces[0], pieces[1], kings, side)
        })
        .collect()
}

/// Random Bashnya columns (not necessarily reachable), to reach every square and shape.
fn placed_bashnya(seed: u64, n: usize) -> Vec<bashnya::Position> {
    let mut rng = Rng64::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut pieces = Vec::new();
        for colour in [Color::White, Color::Black] {
            for _ in 0..rng.random_range(1..=12) {
                let king = rng.random_bool(0.2);
                pieces.push(match (colour, king) {
                    (Color::White, false) => Piece::WhiteMan,
                    (Color::White, true) => Piece::WhiteKing,
                    (Color::Black, false) => Piece::BlackMan,
                    (Color::Black, true) => Piece::BlackKing,
                });
            }
        }
        let mut squares: Vec<u8> = (0..32).collect();
        for i in (1..squares.len()).rev() {
            squares.swap(i, rng.random_range(0..=i));
        }
        let ncols = rng.random_range(1..=pieces.len().min(24));
        let mut cols: Vec<Vec<Piece>> = vec![Vec::new(); ncols];
        for (i, p) in pieces.into_iter().enumerate() {
            let c = if i < ncols {
                i
            } else {
                rng.random_range(0..ncols)
            };
            cols[c].push(p);
        }
        let columns: Vec<(u8, Column)> = cols
            .iter()
            .zip(&squares)
            .filter_map(|(c, &sq)| Some((sq, Column::from_pieces(c)?)))
            .collect();
        let side = if rng.random_bool(0.5) {
            Color::White
        } else {
            Color::Black
        };
        // Columns commanded by a man on its far rank are refused; try again.
        if let Ok(p) = bashnya::Position::from_columns(side, &columns) {
            out.push(p);
        }
    }
    out
}

fn bushka_sample() -> Vec<bushka::Position> {
    let mut v = played::<bushka::Position>(1, 200, 160);
    v.extend(placed_bushka(2, 2000));
    v
}

fn bashnya_sample() -> Vec<bashnya::Position> {
    let mut v = played::<bashnya::Position>(3, 200, 160);
    v.extend(placed_bashnya(4, 2000));
    v
}

/// Weights with every value random, so symmetry is checked feature by feature.
fn random_weights(kind: GameKind, seed: u64) -> Weights {
    let mut rng = Rng64::seed_from_u64(seed);
    let n = Weights::zero(kind).names().len();
    let mut v = || (0..n).map(|_| rng.random_range(-500..=500)).collect();
    Weights::from_vectors(kind, v(), v()).unwrap()
}

fn check_symmetry<G: Features>(positions: &[G]) {
    let weights = [
        Weights::default_for(G::KIND),
        random_weights(G::KIND, 7),
        random_weights(G::KIND, 8),
    ];
    let n = G::NAMES.len();
    for p in positions {
        let m = p.mirror();
        assert_eq!(m.side_to_move(), p.side_to_move().opponent());
        assert_eq!(p.phase(), m.phase(), "{p:?}");
        let f = p.feature_vec().to_dense(n);
        let g = m.feature_vec().to_dense(n);
        let neg: Vec<i32> = f.iter().map(|x| -x).collect();
        assert_eq!(g, neg, "features of the mirror of {p:?}");
        for w in &weights {
            assert_eq!(w.evaluate(p), w.evaluate(&m), "{p:?}");
        }
    }
}

#[test]
fn bushka_colour_symmetry() {
    check_symmetry(&bushka_sample());
}

#[test]
fn bashnya_colour_symmetry() {
    check_symmetry(&bashnya_sample());
}

/// The score computed here from dense vectors, independently of the scorer.
fn dot<G: Features>(w: &Weights, p: &G) -> i32 {
    let f = p.feature_vec().to_dense(G::NAMES.len());
    let mg: i64 = f
        .iter()
        .zip(w.mg())
        .map(|(&x, &y)| x as i64 * y as i64)
        .sum();
    let eg: i64 = f
        .iter()
        .zip(w.eg())
        .map(|(&x, &y)| x as i64 * y as i64)
        .sum();
    let phase = p.phase() as i64;
    let white = ((mg * phase + eg * (PHASE_MAX as i64 - phase)) / PHASE_MAX as i64)
        .clamp(-20_000, 20_000) as i32;
    if p.side_to_move() == Color::White {
        white
    } else {
        -white
    }
}

/// Every weight at the largest magnitude a file may give, signs at random:
/// the compiled evaluator must not overflow where the plain sum does not.
fn extreme_weights(kind: GameKind, seed: u64) -> Weights {
    let mut rng = Rng64::seed_from_u64(seed);
    let n = Weights::zero(kind).names().len();
    let max = engine::eval::weights::MAX_WEIGHT;
    let mut v = || {
        (0..n)
            .map(|_| if rng.random_bool(0.5) { max } else { -max })
            .collect()
    };
    Weights::from_vectors(kind, v(), v()).unwrap()
}

fn check_dot<G: Features>(positions: &[G]) {
    for w in [
        Weights::default_for(G::KIND),
        Weights::material(G::KIND),
        random_weights(G::KIND, 9),
        extreme_weights(G::KIND, 10),
    ] {
        // The search's evaluator, compiled from the weights, scores the same.
        let compiled = G::compile(&w);
        for p in positions {
            assert_eq!(w.evaluate(p), dot(&w, p), "{p:?}");
            assert_eq!(compiled.evaluate(p), w.evaluate(p), "compiled: {p:?}");
            let fv = p.feature_vec();
            assert_eq!(w.score_features(&fv, p.phase()), w.score_white(p));
            assert!((0..=PHASE_MAX).contains(&p.phase()));
        }
    }
}

#[test]
fn bushka_eval_is_tapered_dot_product() {
    check_dot(&bushka_sample());
}

#[test]
fn bashnya_eval_is_tapered_dot_product() {
    check_dot(&bashnya_sample());
}

#[test]
fn material_weights_agree_with_material() {
    let m = engine::eval::Material::default();
    let w = Weights::material(GameKind::Bushka);
    for p in played::<bushka::Position>(11, 50, 200) {
        assert_eq!(w.evaluate(&p), m.evaluate(&p), "{p:?}");
    }
    let w = Weights::material(GameKind::Bashnya);
    for p in played::<bashnya::Position>(12, 50, 200) {
        assert_eq!(w.evaluate(&p), m.evaluate(&p), "{p:?}");
    }
}

#[test]
fn taper_blends_and_bounds() {
    assert_eq!(taper(100, 300, PHASE_MAX), 100);
    assert_eq!(taper(100, 300, 0), 300);
    assert_eq!(taper(100, 300, PHASE_MAX / 2), 200);
    assert_eq!(taper(i64::MAX / 1024, 0, PHASE_MAX), 20_000);
    assert_eq!(taper(-(i64::MAX / 1024), 0, PHASE_MAX), -20_000);
}

/// Every feature is non-zero in some position and zero in another.
fn check_fires<G: Features>(positions: &[G]) {
    let n = G::NAMES.len();
    let mut fired = vec![false; n];
    let mut silent = vec![false; n];
    for p in positions {
        for (i, v) in p.feature_vec().to_dense(n).into_iter().enumerate() {
            if v != 0 {
                fired[i] = true;
            } else {
                silent[i] = true;
            }
        }
    }
    let never: Vec<_> = (0..n).filter(|&i| !fired[i]).map(|i| G::NAMES[i]).collect();
    let always: Vec<_> = (0..n)
        .filter(|&i| !silent[i])
        .map(|i| G::NAMES[i])
        .collect();
    assert!(never.is_empty(), "never fire: {never:?}");
    assert!(always.is_empty(), "never zero: {always:?}");
}

#[test]
fn bushka_every_feature_fires_somewhere() {
    check_fires(&bushka_sample());
}

#[test]
fn bashnya_every_feature_fires_somewhere() {
    check_fires(&bashnya_sample());
}

#[test]
fn every_feature_fires_in_played_games() {
    // Reachable positions alone, not just random placements.
    check_fires(&played::<bushka::Position>(21, 400, 250));
    check_fires(&played::<bashnya::Position>(22, 400, 250));
}

/// The positions the search scores statically and the tuner fits: no
/// capture pending.
fn quiet<G: Game>(positions: Vec<G>) -> Vec<G> {
    positions
        .into_iter()
        .filter(|p| !p.must_capture())
        .collect()
}

#[test]
fn bushka_capture_features_never_fire_in_quiet_positions() {
    use engine::eval::bushka::CAPTURE_PENDING_ONLY;
    let names = <bushka::Position as Features>::NAMES;
    let all = played::<bushka::Position>(21, 400, 250);
    let quiet = quiet(all.clone());
    assert!(quiet.len() > 10_000 && quiet.len() < all.len());
    let n = names.len();
    let mut fired = vec![false; n];
    for p in &quiet {
        for (i, v) in p.feature_vec().to_dense(n).into_iter().enumerate() {
            if v != 0 {
                fired[i] = true;
                assert!(
                    !CAPTURE_PENDING_ONLY.contains(&i),
                    "{} fires in the quiet position {}",
                    names[i],
                    p.to_text()
                );
            }
        }
    }
    let silent: Vec<_> = (0..n)
        .filter(|&i| !fired[i] && !CAPTURE_PENDING_ONLY.contains(&i))
        .map(|i| names[i])
        .collect();
    assert!(
        silent.is_empty(),
        "never fire in quiet positions: {silent:?}"
    );
    // Where a capture is pending they do fire: they are not dead code.
    for &i in &CAPTURE_PENDING_ONLY {
        assert!(
            all.iter().any(|p| p.feature_vec().to_dense(n)[i] != 0),
            "{} never fires",
            names[i]
        );
    }
}

#[test]
fn bashnya_exposed_columns_belong_to_the_side_to_move_in_quiet_positions() {
    use engine::eval::bashnya::EXPOSED;
    let n = <bashnya::Position as Features>::NAMES.len();
    let quiet = quiet(played::<bashnya::Position>(22, 400, 250));
    assert!(quiet.len() > 10_000);
    let (mut white, mut black) = (0, 0);
    for p in &quiet {
        // White minus Black: the side not to move contributes nothing.
        let v = p.feature_vec().to_dense(n)[EXPOSED];
        match p.side_to_move() {
            Color::White => {
                assert!(v >= 0, "{}: exposed {v}", p.to_text());
                white += usize::from(v > 0);
            }
            Color::Black => {
                assert!(v <= 0, "{}: exposed {v}", p.to_text());
                black += usize::from(v < 0);
            }
        }
    }
    assert!(
        white > 100 && black > 100,
        "exposed fired {white} and {black} times"
    );
}

#[test]
fn piece_square_names_follow_the_board() {
    use engine::eval::{bashnya as eb, bushka as ek};
    let names = <bushka::Position as Features>::NAMES;
    let mut man = ek::MAN_PST;
    for sq in bushka::board::Bits(bushka::board::BOARD) {
        let name = bushka::board::name(sq);
        if bushka::board::promotion_row(Color::White) & (1 << sq) == 0 {
            assert_eq!(names[man], format!("man_{name}"));
            man += 1;
        }
    }
    assert_eq!(man, ek::KING_PST);
    let names = <bashnya::Position as Features>::NAMES;
    for sq in 0..32u8 {
        let name = bashnya::square_name(sq);
        if sq < 28 {
            assert_eq!(names[eb::MAN_PST + sq as usize], format!("man_{name}"));
        }
        assert_eq!(names[eb::KING_PST + sq as usize], format!("king_{name}"));
    }
    let mut all: Vec<_> = names.to_vec();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), names.len());
}

fn value<G: Features>(text: &str, name: &str) -> i32 {
    let p = G::parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let i = G::feature_index(name).unwrap_or_else(|| panic!("no feature {name}"));
    p.feature_vec().value(i as u16)
}

#[test]
fn bushka_features_mean_what_they_say() {
    type P = bushka::Position;
    let start = bushka::START;
    assert_eq!(value::<P>(start, "man"), 0);
    assert_eq!(value::<P>(start, "man_e1"), 0);
    assert_eq!(value::<P>(start, "back_rank"), 0);
    // A white line e1-e2 aims at the single black man e4 over the empty e3.
    let t = "W:We1,e2:Be4";
    assert_eq!(value::<P>(t, "man"), 1);
    assert_eq!(value::<P>(t, "line2_letter"), 1);
    assert_eq!(value::<P>(t, "line2_number"), 0);
    assert_eq!(value::<P>(t, "linear_threat"), 1);
    assert_eq!(value::<P>(t, "exposed_single"), -1);
    assert_eq!(value::<P>(t, "exposed_line_men"), 0);
    assert_eq!(value::<P>(t, "isolated"), -1);
    assert_eq!(value::<P>(t, "back_rank"), 1);
    assert_eq!(value::<P>(t, "man_e1"), 1);
    // Black's e4 is White's e7 seen from Black's side of the board.
    assert_eq!(value::<P>(t, "man_e7"), -1);
    // Two lines face each other: each would take the other whole.
    let t = "W:We1,e2:Be4,e5,e6";
    assert_eq!(value::<P>(t, "exposed_line_men"), 2 - 3);
    assert_eq!(value::<P>(t, "exposed_single"), 0);
    assert_eq!(value::<P>(t, "linear_threat"), 0);
    let t = "W:We1,e2:Be4,e5,Ke8";
    assert_eq!(value::<P>(t, "exposed_line_men"), 0);
    assert_eq!(value::<P>(t, "king"), -1);
    assert_eq!(value::<P>(t, "king_e3"), -1);
    let t = "W:We1,e2,e3,e4:BKe6";
    assert_eq!(value::<P>(t, "line4_letter"), 1);
    assert_eq!(value::<P>(t, "exposed_king"), -1);
    assert_eq!(value::<P>(t, "centre"), 1 - 1);
    // Tempo: rows advanced, White's e4 is on row 3.
    assert_eq!(value::<P>("W:We4:Be9", "tempo"), 3 - 1);
    // Mobility: e4 has two steps; a king on e5 with an empty board has 17.
    assert_eq!(value::<P>("W:We4:B", "mobility_men"), 2);
    assert_eq!(value::<P>("W:WKe5:B", "mobility_kings"), 17);
}

#[test]
fn bashnya_features_mean_what_they_say() {
    type P = bashnya::Position;
    let start = "W:a1=w,c1=w,e1=w,g1=w,b2=w,d2=w,f2=w,h2=w,a3=w,c3=w,e3=w,g3=w,\
                 b6=b,d6=b,f6=b,h6=b,a7=b,c7=b,e7=b,g7=b,b8=b,d8=b,f8=b,h8=b";
    assert_eq!(P::parse_position(start).unwrap(), P::start());
    assert_eq!(value::<P>(start, "man_columns"), 0);
    assert_eq!(value::<P>(start, "mobility_men"), 0);
    // A black man commands a white prisoner; a white column with a reserve man.
    let t = "W:c3=bw,a1=ww,h8=B";
    assert_eq!(value::<P>(t, "man_columns"), 1 - 1);
    assert_eq!(value::<P>(t, "king_columns"), -1);
    assert_eq!(value::<P>(t, "prisoners_held"), -1);
    assert_eq!(value::<P>(t, "prisoners_near"), 1);
    assert_eq!(value::<P>(t, "men_below"), 1);
    assert_eq!(value::<P>(t, "safe_columns"), 1);
    assert_eq!(value::<P>(t, "back_rank"), 1);
    assert_eq!(value::<P>(t, "king_h8"), 0, "h8 is Black's a1");
    assert_eq!(value::<P>(t, "king_a1"), -1);
    // Black's man on c3 is White's f6 turned round.
    assert_eq!(value::<P>(t, "man_f6"), -1);
    let t = "W:d4=wbbW,a7=B";
    assert_eq!(value::<P>(t, "tall_columns"), 1);
    assert_eq!(value::<P>(t, "kings_below"), 1);
    assert_eq!(value::<P>(t, "kings_held"), 0);
    assert_eq!(value::<P>(t, "prisoners_held"), 2);
    assert_eq!(value::<P>(t, "centre"), 1);
    assert_eq!(value::<P>(t, "tempo"), 3);
    // The black king on a7 could jump d4 (b6, c5 empty; e3 empty beyond).
    assert_eq!(value::<P>(t, "exposed"), 1);
    // A white man next to a black man with an empty square behind each.
    let t = "W:c3=w,d4=b";
    assert_eq!(value::<P>(t, "exposed"), 0);
    assert_eq!(value::<P>("W:c3=w,h8=b", "mobility_men"), 2 - 1);
}

#[test]
fn no_feature_vector_overflows() {
    for p in bushka_sample() {
        assert!(p.feature_vec().len() <= engine::eval::FEATURE_CAPACITY);
    }
    // A full Bushka board: every square occupied.
    let board = bushka::board::BOARD;
    let white = board & ((1u64 << 27) - 1);
    let p = bushka::Position::from_parts(white, board & !white, board, Color::White);
    let w = Weights::default_for(GameKind::Bushka);
    assert_eq!(w.evaluate(&p), dot(&w, &p));
}
