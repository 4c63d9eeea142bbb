//! Perft against the reference counts of an independent implementation.

use engine::bushka::Position;
use engine::perft::{divide_with, perft, perft_parallel, split, TASKS_PER_THREAD};
use engine::Game;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support::perft_suite::{self, QUICK_CAP};

/// Every reference line, all under the quick cap today (the largest is
/// 312,334 leaves).
#[test]
fn reference_perft_counts() {
    assert_eq!(
        perft_suite::lines("bushka").len(),
        34,
        "lines of data/perft/bushka.txt"
    );
    assert_eq!(perft_suite::check::<Position>("bushka", 0..=QUICK_CAP), 34);
}

#[test]
fn start_position_depth_5() {
    // Our own figure (the reference stops at depth 4), cross-checked with the
    // oracle by `oracle_depth_5_agrees` in bushka_oracle_compare.rs.
    assert_eq!(perft(&Position::start(), 5), 6_462_815);
}

/// The deep counts the README's speed table quotes (our own figures, past
/// the reference's depth 4), so that a change to the generator that alters
/// them fails here rather than in a reader's hands.
#[test]
#[ignore = "seconds in release, minutes in the test profile: cargo test --release -p bushka-engine --test engine -- --ignored published_deep_counts"]
fn published_deep_counts() {
    assert_eq!(perft_parallel(&Position::start(), 7), 2_103_321_455);
    let middle = Position::parse_position(
        "W:We1,g3,h4,e2,f3,h5,e3,f4,h6,f5,g6:Bd3,d6,b5,c6,e8,f9,b6,d8,e9,a6,b7,c8,d9,e0",
    )
    .unwrap();
    assert_eq!(perft_parallel(&middle, 7), 109_447_879);
}

/// The parallel split counts what the serial walk counts on any number of
/// threads: it cuts where it has enough subtrees per thread (or three plies
/// above the leaves), its subtrees are the positions at the cut, and each is
/// reported done once; `divide` reports each root move once and sums to the
/// same count.
#[test]
fn split_counts_every_leaf_once() {
    let pos = Position::parse_position(
        "W:We1,g3,h4,e2,f3,h5,e3,f4,h6,f5,g6:Bd3,d6,b5,c6,e8,f9,b6,d8,e9,a6,b7,c8,d9,e0",
    )
    .unwrap();
    let depth = 5;
    let serial = perft(&pos, depth);
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let cut = split(&pos, depth);
            assert!(cut.depth < depth, "{threads} threads: no cut");
            assert!(
                cut.depth == 3 || cut.tasks.len() >= TASKS_PER_THREAD * threads,
                "{threads} threads: {} subtrees, {} plies each",
                cut.tasks.len(),
                cut.depth
            );
            assert_eq!(
                cut.tasks.len() as u64,
                perft(&pos, depth - cut.depth),
                "{threads} threads: the subtrees are the positions at the cut"
            );
            let done = AtomicUsize::new(0);
            let nodes = cut.count(|| {
                done.fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(nodes, serial, "{threads} threads");
            assert_eq!(done.into_inner(), cut.tasks.len());
            assert_eq!(perft_parallel(&pos, depth), serial);

            let roots = std::cell::Cell::new(0);
            let parts = divide_with(&pos, depth, || roots.set(roots.get() + 1));
            assert_eq!(roots.get() as u64, pos.count_moves());
            assert_eq!(parts.len() as u64, pos.count_moves());
            assert_eq!(parts.iter().map(|(_, n)| n).sum::<u64>(), serial);
            for (m, n) in &parts {
                assert_eq!(*n, perft(&pos.play(m), depth - 1));
            }
        });
    }
    // Too shallow to cut: one subtree, the position itself.
    let shallow = split(&pos, 3);
    assert_eq!((shallow.tasks, shallow.depth), (vec![pos], 3));
}
