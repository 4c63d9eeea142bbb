//! Property tests over random legal positions of both games, reached by seeded
//! random play from the start and from random placements:
//!
//! * the incremental hash equals the hash recomputed from scratch;
//! * position text and move notation round trips;
//! * colour-mirror symmetry of move counts, of the resulting positions (as a
//!   multiset) and of the default evaluation;
//! * copy-make: playing any generated move leaves the original unchanged.
//!
//! The default run checks a few thousand positions per game in seconds; the
//! ignored `properties_long` checks ten times as many seeds.

use engine::bashnya::{self, Column, Piece};
use engine::bushka::{self, board};
use engine::eval::{Evaluator, Material, Weights};
use engine::{Color, Game, MoveList};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

type Rng64 = Xoshiro256PlusPlus;

/// What the properties need of a game beyond [`Game`].
trait Subject: Game
where
    Weights: Evaluator<Self>,
    Material: Evaluator<Self>,
{
    /// A random legal position made by placing pieces.
    fn random_placement(rng: &mut Rng64) -> Self;
    /// True when the side to move has a piece on the board.
    fn mover_has_pieces(&self) -> bool;
}

impl Subject for bushka::Position {
    fn mover_has_pieces(&self) -> bool {
        self.pieces(self.side()) != 0
    }

    fn random_placement(rng: &mut Rng64) -> Self {
        let (mut white, mut black, mut kings) = (0u64, 0u64, 0u64);
        let king_share = rng.random_range(0.0..0.5);
        for side in [Color::White, Color::Black] {
            let count = rng.random_range(0..=15);
            let mut placed = 0;
            while placed < count {
                let Some(sq) = board::from_xy(rng.random_range(0..10), rng.random_range(0..10))
                else {
                    continue;
                };
                if (white | black) & board::bit(sq) != 0 {
                    continue;
                }
                let king = rng.random_bool(king_share);
                if !king && board::promotion_row(side) & board::bit(sq) != 0 {
                    continue;
                }
                match side {
                    Color::White => white |= board::bit(sq),
                    Color::Black => black |= board::bit(sq),
                }
                if king {
                    kings |= board::bit(sq);
                }
                placed += 1;
            }
        }
        let side = if rng.random_bool(0.5) {
            Color::White
        } else {
            Color::Black
        };
        bushka::Position::from_parts(white, black, kings, side)
    }
}

impl Subject for bashnya::Position {
    fn mover_has_pieces(&self) -> bool {
        self.columns_of(self.side()) != 0
    }

    /// Both sides' pieces (some kings, some already lost) shuffled into
    /// columns on random squares; a man on its far rank is made a king.
    fn random_placement(rng: &mut Rng64) -> Self {
        let mut pieces = Vec::new();
        for (man, king) in [
            (Piece::WhiteMan, Piece::WhiteKing),
            (Piece::BlackMan, Piece::BlackKing),
        ] {
            for _ in 0..rng.random_range(0..=12) {
                pieces.push(if rng.random_bool(0.2) { king } else { man });
            }
        }
        pieces.shuffle(rng);
        let mut squares: Vec<u8> = (0..32).collect();
        squares.shuffle(rng);
        let columns = rng.random_range(1..=24).min(pieces.len());
        let mut stacks: Vec<Vec<Piece>> = vec![Vec::new(); columns];
        for (i, p) in pieces.into_iter().enumerate() {
            let c = if i < columns {
                i
            } else {
                rng.random_range(0..columns)
            };
            stacks[c].push(p);
        }
        let mut cols = Vec::new();
        for (mut stack, &sq) in stacks.into_iter().zip(&squares) {
            let far = if stack[0].color() == Color::White {
                '8'
            } else {
                '1'
            };
            if bashnya::square_name(sq).ends_with(far) {
                stack[0] = match stack[0] {
                    Piece::WhiteMan => Piece::WhiteKing,
                    Piece::BlackMan => Piece::BlackKing,
                    p => p,
                };
            }
            cols.push((sq, Column::from_pieces(&stack).expect("a column")));
        }
        let side = if rng.random_bool(0.5) {
            Color::White
        } else {
            Color::Black
        };
        bashnya::Position::from_columns(side, &cols).expect("a legal placement")
    }
}

/// The Zobrist hash kept by the position.
fn zob<G: Game>(p: &G) -> u64 {
    <G as Game>::hash(p)
}

/// Checks every property on one position; returns its legal moves.
fn check<G: Subject>(p: &G, weights: &Weights) -> MoveList<G::Move>
where
    Weights: Evaluator<G>,
    Material: Evaluator<G>,
{
    let text = p.to_text();
    let before = *p;

    // Hash and text.
    assert_eq!(zob(p), p.hash_from_scratch(), "incremental hash of {text}");
    let back = G::parse_position(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(back, *p, "text round trip of {text}");
    assert_eq!(zob(&back), zob(p));

    // Mirror: an involution with the same move count and mirrored results.
    let m = p.mirror();
    assert_eq!(m.mirror(), *p, "mirror twice of {text}");
    assert_eq!(
        zob(&m),
        m.hash_from_scratch(),
        "hash of the mirror of {text}"
    );
    assert_eq!(m.count_moves(), p.count_moves(), "mirror count of {text}");
    assert_eq!(
        weights.evaluate(&m),
        weights.evaluate(p),
        "mirror evaluation of {text}"
    );
    assert_eq!(
        Material::default().evaluate(&m),
        Material::default().evaluate(p)
    );

    let mut list = MoveList::new();
    p.generate(&mut list);
    assert_eq!(p.count_moves(), list.len() as u64, "count_moves of {text}");
    assert_eq!(
        p.must_capture(),
        list.iter().any(|m| G::is_capture(m)),
        "must_capture of {text}"
    );
    let leaf = if p.must_capture() {
        None
    } else {
        Some(!list.is_empty())
    };
    assert_eq!(p.quiet_moves_exist(), leaf, "quiet_moves_exist of {text}");
    let mut results = Vec::with_capacity(list.len());
    for mv in &list {
        let t = p.move_text(mv);
        assert_eq!(p.parse_move(&t), Ok(*mv), "notation '{t}' in {text}");
        let next = p.play(mv);
        assert_eq!(*p, before, "play({t}) changed {text}");
        assert_eq!(
            zob(&next),
            next.hash_from_scratch(),
            "hash after {t} in {text}"
        );
        results.push(next.mirror().to_text());
    }
    let mut mirrored = MoveList::new();
    m.generate(&mut mirrored);
    let mut from_mirror: Vec<String> = mirrored.iter().map(|mv| m.play(mv).to_text()).collect();
    results.sort();
    from_mirror.sort();
    assert_eq!(results, from_mirror, "mirrored results of {text}");
    let mut unique = results.clone();
    unique.dedup();
    assert_eq!(
        unique.len(),
        results.len(),
        "two moves, one result in {text}"
    );
    assert_eq!(p.to_text(), text);
    list
}

/// Random games from the start and from random placements; returns the
/// number of positions checked.
fn run<G: Subject>(seeds: std::ops::Range<u64>, max_plies: usize) -> usize
where
    Weights: Evaluator<G>,
    Material: Evaluator<G>,
{
    let weights = Weights::default_for(G::KIND);
    let mut checked = 0;
    for seed in seeds {
        let mut rng = Rng64::seed_from_u64(seed ^ 0x5EED_0000 ^ (G::KIND as u64) << 40);
        let mut p = if seed % 2 == 0 {
            G::start()
        } else {
            G::random_placement(&mut rng)
        };
        for _ in 0..max_plies {
            let list = check(&p, &weights);
            checked += 1;
            if list.is_empty() {
                break;
            }
            p = p.play(&list[rng.random_range(0..list.len())]);
        }
    }
    checked
}

/// Random placements: the search's leaf test (`quiet_moves_exist`) agrees
/// with the generator, including blocked sides that have pieces but no move.
/// Returns how many blocked positions were seen.
fn blocked_leaves<G: Subject>(samples: u64) -> usize
where
    Weights: Evaluator<G>,
    Material: Evaluator<G>,
{
    let mut rng = Rng64::seed_from_u64(0xB10C_0000 ^ (G::KIND as u64) << 40);
    let mut blocked = 0;
    for _ in 0..samples {
        let p = G::random_placement(&mut rng);
        let mut list = MoveList::new();
        p.generate(&mut list);
        let expect = if list.iter().any(|m| G::is_capture(m)) {
            None
        } else {
            Some(!list.is_empty())
        };
        assert_eq!(p.quiet_moves_exist(), expect, "{}", p.to_text());
        if expect == Some(false) && p.mover_has_pieces() {
            blocked += 1;
        }
    }
    blocked
}

#[test]
fn leaf_test_agrees_with_generator() {
    let b = blocked_leaves::<bushka::Position>(200_000);
    let c = blocked_leaves::<bashnya::Position>(200_000);
    eprintln!("blocked positions seen: Bushka {b}, Bashnya {c}");
    assert!(b > 0 && c > 0, "no blocked position seen ({b}, {c})");
}

#[test]
fn bushka_properties() {
    let n = run::<bushka::Position>(0..300, 160);
    eprintln!("checked {n} Bushka positions");
    assert!(n > 5_000, "only {n} positions");
}

#[test]
fn bashnya_properties() {
    let n = run::<bashnya::Position>(0..300, 160);
    eprintln!("checked {n} Bashnya positions");
    assert!(n > 5_000, "only {n} positions");
}

#[test]
#[ignore = "long: ten times the default seeds (cargo test -p bushka-engine --test engine -- --ignored properties_long)"]
fn properties_long() {
    let a = run::<bushka::Position>(1_000..4_000, 300);
    let b = run::<bashnya::Position>(1_000..4_000, 300);
    eprintln!("checked {a} Bushka and {b} Bashnya positions");
}
