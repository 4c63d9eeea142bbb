//! The reference perft suites (`data/perft/GAME.txt`: position, depth and
//! leaf count, tab-separated, from an independent implementation), read and
//! checked the same way for both games, with a node cap so that `cargo test`
//! stays quick (DESIGN: fast code checked against slow code).

use engine::perft::perft;
use engine::Game;

/// Lines with more expected leaves than this run only in the ignored deep
/// tests.
pub const QUICK_CAP: u64 = 2_000_000;

/// One reference line.
pub struct Line {
    /// The position's text.
    pub text: String,
    /// The depth counted.
    pub depth: u32,
    /// The leaves at that depth.
    pub nodes: u64,
}

/// Every line of `data/perft/{game}.txt` (comments and blank lines
/// skipped); a malformed line fails the test, naming it.
pub fn lines(game: &str) -> Vec<Line> {
    let path = format!("{}/../data/perft/{game}.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 3, "bad perft line: {l}");
            Line {
                text: f[0].to_string(),
                depth: f[1].parse().unwrap_or_else(|_| panic!("bad depth: {l}")),
                nodes: f[2].parse().unwrap_or_else(|_| panic!("bad count: {l}")),
            }
        })
        .collect()
}

/// Checks the lines of `game` whose counts lie in `nodes`: each position's
/// text reads back as written, and its perft is the reference's. Returns
/// how many were checked.
pub fn check<G: Game>(game: &str, nodes: std::ops::RangeInclusive<u64>) -> usize {
    let mut checked = 0;
    for line in lines(game) {
        if !nodes.contains(&line.nodes) {
            continue;
        }
        let pos = G::parse_position(&line.text).unwrap();
        assert_eq!(pos.to_text(), line.text, "position text round trip");
        assert_eq!(
            perft(&pos, line.depth),
            line.nodes,
            "{} depth {}",
            line.text,
            line.depth
        );
        checked += 1;
    }
    checked
}
