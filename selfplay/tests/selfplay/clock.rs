//! Games on a clock: annotated records that replay, and a clock that
//! survives `--resume`.

use crate::tournament::config;
use engine::{bushka, Game};
use selfplay::pdn::{replay, GameRecord, PdnReader};
use selfplay::tournament::run;
use std::path::Path;

fn read_games(pdn: &Path) -> Vec<GameRecord> {
    PdnReader::new(std::io::BufReader::new(std::fs::File::open(pdn).unwrap()))
        .map(Result::unwrap)
        .collect()
}

/// A comment `{+0.12/9 0.040s}`: score, depth and a time.
fn well_formed(comment: &str) -> bool {
    let Some((score_depth, time)) = comment.split_once(' ') else {
        return false;
    };
    let Some((score, depth)) = score_depth.split_once('/') else {
        return false;
    };
    let score_ok = score.parse::<f64>().is_ok()
        || score
            .strip_prefix("+W")
            .is_some_and(|n| n.parse::<u32>().is_ok())
        || score
            .strip_prefix("-L")
            .is_some_and(|n| n.parse::<u32>().is_ok());
    score_ok
        && depth.parse::<u32>().is_ok()
        && time
            .strip_suffix('s')
            .is_some_and(|t| t.parse::<f64>().is_ok())
}

#[test]
fn annotated_records_on_a_clock_replay_and_read_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let pdn = dir.join("a.pdn");
    let mut cfg = config(
        &["name=a,tc=1+0.01", "name=b,kind=material,tc=1+0.01"],
        2,
        vec![bushka::Position::start().to_text()],
    );
    cfg.pdn = Some(pdn.clone());
    cfg.annotate = true;
    cfg.adjudication.max_plies = 40;
    // Shared test machines stall threads now and then; a loss on time is not
    // what this test is about.
    cfg.time_margin = std::time::Duration::from_millis(300);
    let s = run::<bushka::Position>(&cfg).unwrap();
    assert_eq!(s.games, 2);
    let games = read_games(&pdn);
    assert_eq!(games.len(), 2);
    for g in &games {
        let r = replay::<bushka::Position>(g).unwrap();
        assert_eq!(r.moves.len(), g.moves.len());
        // Every move has its comment, and each reads as score/depth time.
        assert_eq!(g.comments.len(), g.moves.len());
        for c in g.comments.values() {
            assert!(well_formed(c), "{c}");
        }
        assert_eq!(g.tag("TimeControl"), Some("1+0.01"));
        for side in ["White", "Black"] {
            let left: f64 = g.tag(&format!("{side}Clock")).unwrap().parse().unwrap();
            let used: f64 = g.tag(&format!("{side}TimeUsed")).unwrap().parse().unwrap();
            assert!(left > 0.0 && used > 0.0, "{side} {left} {used}");
        }
        // The record writes back to the same text.
        let text = g.to_pdn();
        let back = PdnReader::new(text.as_bytes()).next().unwrap().unwrap();
        assert_eq!(&back, g);
    }
    let a = s.engines[0].clock.unwrap();
    assert_eq!((a.games, a.forfeits), (2, 0));
    assert!(a.share() > 0.0 && a.share() < 1.0, "{}", a.share());
}

/// The time engine `a` used in these games, by their `...TimeUsed` tags.
fn time_used_by_a(games: &[GameRecord]) -> f64 {
    games
        .iter()
        .map(|g| {
            let side = if g.white == "a" { "White" } else { "Black" };
            g.tag(&format!("{side}TimeUsed"))
                .unwrap()
                .parse::<f64>()
                .unwrap()
        })
        .sum()
}

#[test]
fn a_game_clock_survives_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let pdn = dir.join("r.pdn");
    let engines = ["name=a,tc=0.5+0.01", "name=b,kind=material,tc=0.5+0.01"];
    let opening = vec![bushka::Position::start().to_text()];
    let mut cfg = config(&engines, 4, opening.clone());
    cfg.pdn = Some(pdn.clone());
    cfg.annotate = true;
    cfg.adjudication.max_plies = 30;
    cfg.time_margin = std::time::Duration::from_millis(300);
    let whole = run::<bushka::Position>(&cfg).unwrap();
    // The run's clock figures are its records' (to the millisecond of the
    // tags), as `pdn clock` reads them.
    let mut profile = selfplay::clock::TimeProfile::default();
    for g in read_games(&pdn) {
        profile.add(&g);
    }
    let [a, b] = [0, 1].map(|i| whole.engines[i].clock.unwrap());
    assert!(
        (profile.used - (a.used + b.used)).abs() < 1e-9,
        "{} vs {}",
        profile.used,
        a.used + b.used
    );
    assert!((a.used - time_used_by_a(&read_games(&pdn))).abs() < 1e-9);
    // A run killed after its first two games: the file keeps only those.
    let text = std::fs::read_to_string(&pdn).unwrap();
    let third = text.match_indices("[Event").nth(2).unwrap().0;
    std::fs::write(&pdn, &text[..third]).unwrap();
    let kept = read_games(&pdn);
    assert_eq!(kept.len(), 2);
    let used_before = time_used_by_a(&kept);
    cfg.resume = true;
    let s = run::<bushka::Position>(&cfg).unwrap();
    assert_eq!((s.games, s.resumed), (4, 2));
    // The clock use of the two games read back is counted with the two played.
    let a = s.engines[0].clock.unwrap();
    assert_eq!(a.games, 4);
    let recorded = time_used_by_a(&read_games(&pdn));
    assert!((a.used - recorded).abs() < 1e-9, "{} vs {recorded}", a.used);
    assert!(a.used > used_before);
    let mut other = config(
        &["name=a,tc=1+0.01", "name=b,kind=material,tc=0.5+0.01"],
        4,
        opening,
    );
    other.pdn = Some(pdn.clone());
    other.resume = true;
    // Resuming with another clock is refused: the engines' descriptions,
    // clocks included, make the run's id.
    let err = run::<bushka::Position>(&other).unwrap_err();
    assert!(
        err.contains("not to this run") && err.contains("resume with the same options"),
        "{err}"
    );
    // A record without its run's id (written by another program, say)
    // cannot be told to be of this run: refused.
    let text = std::fs::read_to_string(&pdn).unwrap();
    let untagged: String = text
        .lines()
        .filter(|l| !l.starts_with("[RunId "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(untagged, text, "the records carried a run id");
    std::fs::write(&pdn, untagged).unwrap();
    let err = run::<bushka::Position>(&other).unwrap_err();
    assert!(
        err.contains("has no [RunId] tag: it is not a game of run"),
        "{err}"
    );
}
