//! Bashnya perft against the reference counts in `data/perft/bashnya.txt`,
//! which an independent implementation counted under docs/rules.md 2.3 (a capture
//! never jumps straight back over the column it has just jumped). The plain
//! oracle agrees with the small lines too (`bashnya_oracle.rs`).

use engine::bashnya::Position;
use engine::perft::{perft, perft_parallel, walk};
use engine::Game;

use crate::support::perft_suite::{self, QUICK_CAP};

/// `(position, depth, nodes)` for every line of the reference file.
fn cases() -> Vec<(String, u32, u64)> {
    perft_suite::lines("bashnya")
        .into_iter()
        .map(|l| (l.text, l.depth, l.nodes))
        .collect()
}

#[test]
fn reference_perft_quick() {
    // Every line of the file is below the cap today.
    assert_eq!(cases().len(), 35, "lines of data/perft/bashnya.txt");
    assert_eq!(perft_suite::check::<Position>("bashnya", 0..=QUICK_CAP), 35);
}

#[test]
#[ignore = "slow: the serial and parallel walks three plies past every reference line, and the reference lines above the quick node cap (none today) (cargo test -p bushka-engine --test engine -- --ignored reference_perft_deep)"]
fn reference_perft_deep() {
    let deep = perft_suite::check::<Position>("bashnya", QUICK_CAP + 1..=u64::MAX);
    eprintln!("{deep} reference lines above the quick cap");
    // Three plies deeper than the reference: the serial and parallel drivers agree.
    for (fen, depth, _) in cases() {
        let pos = Position::parse_position(&fen).unwrap();
        assert_eq!(
            perft_parallel(&pos, depth + 3),
            perft(&pos, depth + 3),
            "{fen}"
        );
    }
}

#[test]
fn russian_draughts_cross_check() {
    let start = Position::start();
    let expect = [7, 49, 302, 1469, 7482];
    for (depth, &nodes) in expect.iter().enumerate() {
        assert_eq!(
            perft(&start, depth as u32 + 1),
            nodes,
            "depth {}",
            depth + 1
        );
    }
}

/// Bashnya's own walk (`Game::perft`) counts what the generic walk over
/// `generate` and `play` counts, also split over threads.
#[test]
fn own_walk_agrees_with_the_generic_walk() {
    for (fen, depth, nodes) in cases() {
        if nodes > 200_000 {
            continue;
        }
        let pos = Position::parse_position(&fen).unwrap();
        assert_eq!(perft(&pos, depth), walk(&pos, depth), "{fen}");
    }
    let start = Position::start();
    assert_eq!(perft_parallel(&start, 6), walk(&start, 6));
}

#[test]
fn parallel_perft_agrees() {
    let start = Position::start();
    assert_eq!(perft_parallel(&start, 6), perft(&start, 6));
}

#[test]
fn mirrored_positions_have_mirrored_perft() {
    for (fen, depth, nodes) in cases() {
        if nodes > 100_000 {
            continue;
        }
        let pos = Position::parse_position(&fen).unwrap();
        assert_eq!(perft(&pos.mirror(), depth), nodes, "mirror of {fen}");
    }
}

/// docs/rules.md 2.6: from the start, depth 9 is the first count that the ban on
/// jumping straight back over the column just jumped changes.
#[test]
fn start_counts_of_the_rules_text() {
    let start = Position::start();
    let expect = [7, 49, 302, 1469, 7482, 37_908, 189_912, 925_939];
    for (depth, &nodes) in expect.iter().enumerate() {
        assert_eq!(
            perft(&start, depth as u32 + 1),
            nodes,
            "depth {}",
            depth + 1
        );
    }
}

#[test]
#[ignore = "about a second in release, longer in the test profile: cargo test -p bushka-engine --test engine -- --ignored start_depth_nine"]
fn start_depth_nine() {
    assert_eq!(perft_parallel(&Position::start(), 9), 4_533_812);
}

/// The depth the README's speed table times (our own figure; depth 9 above
/// is the rules text's, docs/rules.md).
#[test]
#[ignore = "under a second in release, minutes in the test profile: cargo test --release -p bushka-engine --test engine -- --ignored start_depth_eleven"]
fn start_depth_eleven() {
    assert_eq!(perft_parallel(&Position::start(), 11), 107_800_496);
}
