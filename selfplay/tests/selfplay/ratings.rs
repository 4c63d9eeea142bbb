//! Joint ratings against an independent computation.

use selfplay::ratings::{joint_ratings, PairResult};

/// Engines 0, 1 and 2 beat each other in a cycle (0 over 1, 1 over 2, 2
/// over 0); engine 3 is the weakest. The expected values come from
/// `python3 scripts/ratings-check.py`, which fits the same model by Hunter's
/// MM algorithm and takes the errors from the sandwich of a finite-difference
/// Hessian and the games' finite-difference gradients (standard library only,
/// not this crate's code):
/// `elo [0.0, -30.0959, -67.2, -142.754]`,
/// `95% half-width [0.0, 119.737, 121.32, 118.516]`.
#[test]
fn joint_ratings_match_an_independent_fit_with_a_cycle() {
    let table = [
        (0, 1, 7, 2, 3),
        (1, 2, 6, 4, 2),
        (2, 0, 5, 5, 2),
        (0, 3, 8, 3, 1),
        (1, 3, 6, 4, 2),
        (2, 3, 5, 2, 5),
    ];
    let results: Vec<PairResult> = table
        .iter()
        .map(|&(a, b, wins, draws, losses)| PairResult {
            a,
            b,
            wins,
            draws,
            losses,
        })
        .collect();
    let r = joint_ratings(4, &results, 0, 0.0).unwrap();
    let elo = [0.0, -30.0959, -67.2, -142.754];
    let half = [0.0, 119.737, 121.32, 118.516];
    for i in 0..4 {
        let [v, lo, hi] = r.interval(i);
        assert!((v - elo[i]).abs() < 0.001, "engine {i}: {v} vs {}", elo[i]);
        assert!(
            ((hi - lo) / 2.0 - half[i]).abs() < 0.01,
            "engine {i}: ±{}",
            (hi - lo) / 2.0
        );
    }
    assert_eq!(r.prior_draws, 0.0);
    // Anchored elsewhere, the same differences.
    let moved = joint_ratings(4, &results, 3, 1000.0).unwrap();
    for i in 0..4 {
        assert!((moved.elo[i] - (r.elo[i] - r.elo[3] + 1000.0)).abs() < 1e-6);
    }
}
