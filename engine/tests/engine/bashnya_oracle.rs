//! The fast Bashnya generator against the plain oracle of
//! `support/bashnya_oracle.rs`, over thousands of seeded random games.

use crate::support::bashnya_oracle;

use bashnya_oracle::Board;
use engine::bashnya::Position;
use engine::{Game, MoveList};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// What the random games covered, so the test can insist on tall mixed columns.
#[derive(Default, Debug)]
struct Coverage {
    positions: u64,
    captures: u64,
    tallest: u32,
    mixed_tall: u64,
    king_captures: u64,
}

/// A random legal start with tall mixed columns: both sides' pieces (some
/// kings, some already lost) shuffled into a few columns on random squares.
fn random_tall_start(rng: &mut Xoshiro256PlusPlus) -> Position {
    let mut pieces = Vec::new();
    for (man, king) in [('w', 'W'), ('b', 'B')] {
        let n = rng.random_range(3..=12);
        for _ in 0..n {
            pieces.push(if rng.random_bool(0.2) { king } else { man });
        }
    }
    pieces.shuffle(rng);
    let mut squares: Vec<u8> = (0..32).collect();
    squares.shuffle(rng);
    let columns = rng.random_range(4..=12).min(pieces.len());
    let mut stacks: Vec<Vec<char>> = vec![Vec::new(); columns];
    for (i, p) in pieces.into_iter().enumerate() {
        let c = if i < columns {
            i
        } else {
            rng.random_range(0..columns)
        };
        stacks[c].push(p);
    }
    let mut items = Vec::new();
    for (stack, &sq) in stacks.iter_mut().zip(&squares) {
        let name = engine::bashnya::square_name(sq);
        let far = if stack[0] == 'w' { '8' } else { '1' };
        if name.ends_with(far) {
            stack[0] = stack[0].to_ascii_uppercase();
        }
        items.push((sq, format!("{name}={}", stack.iter().collect::<String>())));
    }
    items.sort();
    let side = if rng.random_bool(0.5) { "W" } else { "B" };
    let list: Vec<String> = items.into_iter().map(|(_, s)| s).collect();
    Position::parse_position(&format!("{side}:{}", list.join(","))).expect("valid random position")
}

/// Compares the two generators on one position; returns the fast moves.
fn compare(pos: &Position, cov: &mut Coverage) -> MoveList<engine::bashnya::Move> {
    let mut moves = MoveList::new();
    pos.generate(&mut moves);
    let mut fast: Vec<String> = moves.iter().map(|m| pos.play(m).to_text()).collect();
    fast.sort();
    let n = fast.len();
    fast.dedup();
    assert_eq!(
        fast.len(),
        n,
        "duplicate resulting positions from {}",
        pos.to_text()
    );
    let slow = bashnya_oracle::results(&Board::parse(&pos.to_text()));
    assert_eq!(fast, slow, "move sets differ in {}", pos.to_text());
    assert_eq!(
        pos.count_moves(),
        n as u64,
        "count_moves in {}",
        pos.to_text()
    );
    assert_eq!(
        pos.must_capture(),
        moves.iter().any(engine::bashnya::Move::is_capture)
    );
    note(pos, &moves, cov);
    moves
}

fn note(pos: &Position, moves: &[engine::bashnya::Move], cov: &mut Coverage) {
    cov.positions += 1;
    if moves.first().is_some_and(engine::bashnya::Move::is_capture) {
        cov.captures += 1;
        if moves
            .iter()
            .any(|m| pos.king_columns() & (1 << m.from()) != 0)
        {
            cov.king_captures += 1;
        }
    }
    for sq in 0..32 {
        let col = pos.column(sq);
        cov.tallest = cov.tallest.max(col.height());
        let mixed = col
            .pieces()
            .any(|p| p.color() != col.top().unwrap().color());
        if col.height() >= 5 && mixed {
            cov.mixed_tall += 1;
        }
    }
}

/// Plays `games` random games from `first_seed` on, checking every position.
fn run_games(first_seed: u64, games: u64, max_plies: u32) -> Coverage {
    let mut cov = Coverage::default();
    for seed in first_seed..first_seed + games {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut pos = if seed % 2 == 0 {
            Position::start()
        } else {
            random_tall_start(&mut rng)
        };
        for _ in 0..max_plies {
            let moves = compare(&pos, &mut cov);
            if moves.is_empty() {
                break;
            }
            pos = pos.play(&moves[rng.random_range(0..moves.len())]);
            assert_eq!(pos.zobrist(), pos.hash_from_scratch(), "incremental hash");
            assert_eq!(pos.freed_columns(), pos.computed_freed(), "freed columns");
        }
    }
    cov
}

/// The quick run: 500 games, about a second, check about 24,000 positions
/// (19,000 with a tall mixed column, 3,000 king captures); the ignored run
/// below plays a hundred times as many.
#[test]
fn fast_generator_matches_oracle_in_random_games() {
    let cov = run_games(0, 500, 160);
    println!("{cov:?}");
    assert!(cov.positions > 20_000, "{cov:?}");
    assert!(cov.tallest >= 10, "{cov:?}");
    assert!(cov.mixed_tall > 10_000, "{cov:?}");
    assert!(cov.king_captures > 1_000, "{cov:?}");
}

#[test]
#[ignore = "slow: many more random games (cargo test -p bushka-engine --test engine -- --ignored fast_generator_matches_oracle_in_many_games)"]
fn fast_generator_matches_oracle_in_many_games() {
    let cov = run_games(1_000_000, 50_000, 300);
    println!("{cov:?}");
}

#[test]
fn oracle_agrees_with_reference_perft() {
    for line in crate::support::perft_suite::lines("bashnya") {
        if line.nodes <= 10_000 {
            assert_eq!(
                bashnya_oracle::perft(&line.text, line.depth),
                line.nodes,
                "{} depth {}",
                line.text,
                line.depth
            );
        }
    }
}
