//! Fast bitboard generator against the plain oracle over seeded random games.

use crate::support::bushka_oracle;

use engine::bushka::board::{bit, from_xy, promotion_row, BOARD};
use engine::bushka::Position;
use engine::{Color, Game, MoveList};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::BTreeSet;

/// Checks one position: both generators give the same set of results, every
/// move's text reads back as that move, and the hash is right.
fn check(pos: &Position) -> MoveList<engine::bushka::Move> {
    let mut list = MoveList::new();
    pos.generate(&mut list);
    let text = pos.to_text();
    let oracle = bushka_oracle::successors(&bushka_oracle::parse(&text));
    let fast: BTreeSet<_> = list
        .iter()
        .map(|m| bushka_oracle::parse(&pos.play(m).to_text()))
        .collect();
    assert_eq!(fast.len(), list.len(), "duplicate results in {text}");
    if fast != oracle {
        let extra: Vec<_> = fast
            .difference(&oracle)
            .map(bushka_oracle::to_text)
            .collect();
        let missing: Vec<_> = oracle
            .difference(&fast)
            .map(bushka_oracle::to_text)
            .collect();
        panic!("generators disagree in {text}\nonly fast: {extra:?}\nonly oracle: {missing:?}");
    }
    assert_eq!(
        pos.count_moves(),
        list.len() as u64,
        "count_moves in {text}"
    );
    assert_eq!(
        pos.hash(),
        pos.hash_from_scratch(),
        "incremental hash in {text}"
    );
    assert_eq!(Position::parse_position(&text), Ok(*pos));
    for m in &list {
        let t = pos.move_text(m);
        assert_eq!(
            pos.parse_move(&t),
            Ok(*m),
            "notation round trip of {t} in {text}"
        );
    }
    list
}

/// A random position with men and kings of both sides (men off their promotion rows).
fn random_position(rng: &mut Xoshiro256PlusPlus) -> Position {
    let (mut white, mut black, mut kings) = (0u64, 0u64, 0u64);
    let n_white = rng.random_range(1..=15);
    let n_black = rng.random_range(1..=15);
    let king_share = rng.random_range(0.0..0.5);
    for (count, side) in [(n_white, Color::White), (n_black, Color::Black)] {
        let mut placed = 0;
        while placed < count {
            let Some(sq) = from_xy(rng.random_range(0..10), rng.random_range(0..10)) else {
                continue;
            };
            if (white | black) & bit(sq) != 0 {
                continue;
            }
            let king = rng.random_bool(king_share);
            if !king && promotion_row(side) & bit(sq) != 0 {
                continue;
            }
            if side == Color::White {
                white |= bit(sq);
            } else {
                black |= bit(sq);
            }
            if king {
                kings |= bit(sq);
            }
            placed += 1;
        }
    }
    assert_eq!((white | black) & !BOARD, 0);
    let side = if rng.random_bool(0.5) {
        Color::White
    } else {
        Color::Black
    };
    Position::from_parts(white, black, kings, side)
}

/// Plays one random game from `pos`, checking every position on the way.
fn play_out(mut pos: Position, rng: &mut Xoshiro256PlusPlus, max_plies: usize) -> usize {
    for ply in 0..max_plies {
        let list = check(&pos);
        if list.is_empty() {
            return ply;
        }
        pos = pos.play(&list[rng.random_range(0..list.len())]);
    }
    max_plies
}

fn run(games: u64, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut positions = 0;
    for g in 0..games {
        let start = if g % 2 == 0 {
            Position::start()
        } else {
            random_position(&mut rng)
        };
        positions += play_out(start, &mut rng, 150);
    }
    assert!(
        positions as u64 > games * 10,
        "games too short to test much: {positions}"
    );
}

/// The quick run (about a second); the ignored run below plays forty times
/// as many games.
#[test]
fn fast_generator_matches_oracle_on_500_random_games() {
    run(500, 0x0B05_C4A0);
}

#[test]
#[ignore = "long: 20,000 more games (cargo test -p bushka-engine --test engine -- --ignored fast_generator_matches_oracle_on_20000_random_games)"]
fn fast_generator_matches_oracle_on_20000_random_games() {
    run(20_000, 0x0005_EED2);
}

#[test]
#[ignore = "slow: the plain oracle counts 6.5 million leaves (cargo test -p bushka-engine --test engine -- --ignored oracle_depth_5_agrees)"]
fn oracle_depth_5_agrees() {
    let start = bushka_oracle::parse(engine::bushka::START);
    assert_eq!(bushka_oracle::perft(&start, 5), 6_462_815);
}
