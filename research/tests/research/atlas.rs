//! The opening atlas at small settings: every line once, consistent numbers,
//! resume, shards, damaged files refused.

use engine::{bashnya, bushka, Game, MoveList};
use research::atlas::{self, AtlasConfig, LineResult};
use selfplay::shard::Shard;
use std::collections::BTreeSet;

/// A quick configuration: one ply, two games a line at depth 1.
fn quick(plies: usize) -> AtlasConfig {
    AtlasConfig {
        plies,
        search_depth: 3,
        movetime: None,
        game_depth: Some(1),
        games: 2,
        concurrency: 2,
        hash: engine::tt::HashSize::MIN,
        ..AtlasConfig::default()
    }
}

fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
}

#[test]
fn the_lines_are_every_opening_once() {
    let one = atlas::lines::<bushka::Position>(1);
    assert_eq!(one.len(), 24, "Bushka's first moves");
    let two = atlas::lines::<bushka::Position>(2);
    let mut list = MoveList::new();
    let replies: usize = one
        .iter()
        .map(|l| {
            l.position.generate(&mut list);
            list.len()
        })
        .sum();
    assert_eq!(replies, 576);
    assert_eq!(two.len(), 24 + 576);
    let keys: BTreeSet<String> = two.iter().map(atlas::Line::key).collect();
    assert_eq!(keys.len(), two.len(), "a line listed twice");
    assert_eq!(atlas::lines::<bashnya::Position>(1).len(), 7);
    assert_eq!(atlas::lines::<bashnya::Position>(2).len(), 7 + 49);
    // Each line's position is the start with its moves played.
    for l in two.iter().take(40) {
        let mut pos = bushka::Position::start();
        for m in &l.moves {
            let mv = pos.parse_move(m).unwrap();
            pos = pos.play(&mv);
        }
        assert_eq!(pos.to_text(), l.position.to_text());
    }
}

#[test]
fn a_small_atlas_lists_every_first_move_once_with_consistent_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = quick(1);
    cfg.check().unwrap();
    let file = cfg.results_file(dir.path());
    let pool = pool();
    for (_, line) in atlas::todo::<bashnya::Position>(&cfg, &Default::default()) {
        let r = atlas::measure_line(&line, &cfg, &pool).unwrap();
        atlas::append_result(&file, &r).unwrap();
    }
    let results = atlas::read_results(dir.path()).unwrap();
    assert_eq!(results.len(), 7);
    for r in results.values() {
        r.consistent().unwrap();
        assert_eq!(r.games, 2);
        assert_eq!(r.plies, 1);
        assert!(r.search.depth >= 1 && !r.search.pv.is_empty(), "{r:?}");
        let points = r.white_wins as f64 + r.draws as f64 / 2.0;
        assert!((r.score - points / r.games as f64).abs() < 1e-9);
        assert!((r.draw_rate - r.draws as f64 / 2.0).abs() < 1e-9);
    }
    let built = research::report::build("bashnya", 1, "test", "material test", 7, &results);
    let firsts: Vec<&str> = built.first_moves.iter().map(|f| f.line.as_str()).collect();
    let unique: BTreeSet<&str> = firsts.iter().copied().collect();
    assert_eq!(firsts.len(), 7);
    assert_eq!(unique.len(), 7);
    let ranks: Vec<usize> = built.first_moves.iter().map(|f| f.rank).collect();
    assert_eq!(ranks, (1..=7).collect::<Vec<_>>());
    // Ranked best for White first.
    for w in built.first_moves.windows(2) {
        assert!(w[0].result.score >= w[1].result.score);
    }
    for f in &built.first_moves {
        assert_eq!(f.verdict, research::report::verdict(&f.result));
    }
    let md = research::report::markdown(&built, Some("atlas.png"), &[]);
    for m in &firsts {
        assert!(
            md.contains(&format!("`{m}`")),
            "{m} missing from the report"
        );
    }
    let png = research::chart::first_moves_png("bashnya", &built.first_moves).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let json = serde_json::to_value(&built).unwrap();
    assert_eq!(json["first_moves"].as_array().unwrap().len(), 7);
}

/// A made-up result for a line (the numbers agree with each other).
fn fake(line: &str) -> LineResult {
    LineResult {
        line: line.into(),
        plies: line.split(' ').count(),
        position: "W:".into(),
        search: atlas::SearchFigures {
            depth: 1,
            score: 0,
            score_text: "0".into(),
            pv: vec![],
            nodes: 1,
        },
        games: 4,
        white_wins: 2,
        draws: 2,
        black_wins: 0,
        pairs: [0, 0, 0, 2, 0],
        score: 0.75,
        elo: Some(190.8),
        elo_lower: None,
        elo_upper: None,
        draw_rate: 0.5,
        mean_plies: 10.0,
        white_wins_by: [("no moves".to_string(), 2)].into(),
        black_wins_by: Default::default(),
        draws_by: [("repetition".to_string(), 2)].into(),
        seconds: 0.1,
    }
}

/// A line that won every game gains and one that lost every game loses:
/// the infinite Elo the results file writes as null keeps its sign in the
/// verdicts, the main alleys, the intervals and the chart. Every score the
/// report prints is White's, the deep search's too.
#[test]
fn lines_won_or_lost_in_every_game_keep_their_sign() {
    let mut won = fake("e3");
    (won.white_wins, won.draws, won.pairs, won.score) = (4, 0, [0, 0, 0, 0, 2], 1.0);
    won.white_wins_by = [("no moves".to_string(), 4)].into();
    won.draws_by = Default::default();
    (won.elo, won.search.score, won.search.score_text) = (None, -20, "20".into());
    let mut lost = fake("c3");
    (lost.white_wins, lost.draws, lost.black_wins) = (0, 0, 4);
    (lost.pairs, lost.score, lost.elo) = ([2, 0, 0, 0, 0], 0.0, None);
    lost.white_wins_by = Default::default();
    lost.black_wins_by = [("no moves".to_string(), 4)].into();
    lost.draws_by = Default::default();
    let mut open = fake("g3");
    (open.elo_lower, open.elo_upper) = (Some(-50.0), None);
    for r in [&won, &lost, &open] {
        r.consistent().unwrap();
    }
    let inf = f64::INFINITY;
    assert_eq!(won.elo_interval(), (inf, inf, inf));
    assert_eq!(lost.elo_interval(), (-inf, -inf, -inf));
    assert_eq!(open.elo_interval(), (190.8, -50.0, inf));
    let results = [won, lost, open]
        .into_iter()
        .map(|r| (r.line.clone(), r))
        .collect();
    let built = research::report::build("bushka", 1, "test", "material test", 3, &results);
    let summary: Vec<(&str, &str, bool)> = built
        .first_moves
        .iter()
        .map(|f| (f.line.as_str(), f.verdict, f.main_alley))
        .collect();
    assert_eq!(
        summary,
        [
            ("e3", "gains", true),
            ("g3", "holds", true),
            ("c3", "loses", false)
        ]
    );
    let md = research::report::markdown(&built, None, &[]);
    let row = |m: &str| {
        md.lines()
            .find(|l| l.starts_with("| ") && l.contains(&format!("`{m}`")))
            .unwrap_or_else(|| panic!("no row for {m}:\n{md}"))
            .to_string()
    };
    assert!(row("e3").contains("+inf [+inf, +inf]"), "{}", row("e3"));
    assert!(row("c3").contains("-inf [-inf, -inf]"), "{}", row("c3"));
    // Pairs all alike (a win and a draw each) have no interval in the
    // report, whatever the file recorded; two such pairs hold.
    assert!(row("g3").contains("+191 [-inf, +inf]"), "{}", row("g3"));
    // The table's deep search is White's, as the alleys' text says.
    assert!(row("e3").ends_with("| -20 `` |"), "{}", row("e3"));
    assert!(md.contains("deep search -20 for White"), "{md}");
    assert!(research::chart::first_moves_png("bushka", &built.first_moves).is_ok());
}

#[test]
fn a_run_resumes_where_it_stopped_and_shards_split_the_lines() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = quick(2);
    let all = atlas::lines::<bashnya::Position>(2);
    let file = cfg.results_file(dir.path());
    for l in all.iter().take(5) {
        atlas::append_result(&file, &fake(&l.key())).unwrap();
    }
    // A kill mid-write leaves half a line: dropped on reading, cut on writing.
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("{\"line\": \"c3-");
    std::fs::write(&file, &text).unwrap();
    let done = atlas::read_results(dir.path()).unwrap();
    assert_eq!(done.len(), 5);
    let todo = atlas::todo::<bashnya::Position>(&cfg, &done);
    assert_eq!(todo.len(), all.len() - 5);
    atlas::append_result(&file, &fake(&todo[0].1.key())).unwrap();
    assert_eq!(atlas::read_results(dir.path()).unwrap().len(), 6);
    // A whole last line without its line break (a file edited by hand) is a
    // result: read, and kept when the next is appended.
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.trim_end()).unwrap();
    assert_eq!(atlas::read_results(dir.path()).unwrap().len(), 6);
    atlas::append_result(&file, &fake(&todo[1].1.key())).unwrap();
    let done = atlas::read_results(dir.path()).unwrap();
    assert_eq!(done.len(), 7);
    assert!(done.contains_key(&todo[0].1.key()) && done.contains_key(&todo[1].1.key()));
    assert_eq!(std::fs::read_to_string(&file).unwrap().lines().count(), 7);
    // Shards: disjoint, and together every line.
    let mut seen = BTreeSet::new();
    for k in 1..=3 {
        let shard = AtlasConfig {
            shard: Some(Shard::new(k, 3).unwrap()),
            ..quick(2)
        };
        for (_, l) in atlas::todo::<bashnya::Position>(&shard, &Default::default()) {
            assert!(seen.insert(l.key()), "{} in two shards", l.key());
        }
    }
    assert_eq!(seen.len(), all.len());
}

#[test]
fn damaged_or_doubled_results_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("lines-1-of-2.jsonl");
    let b = dir.path().join("lines-2-of-2.jsonl");
    atlas::append_result(&a, &fake("c3-d4")).unwrap();
    atlas::append_result(&b, &fake("c3-d4")).unwrap();
    let err = atlas::read_results(dir.path()).unwrap_err();
    assert!(err.contains("measured twice"), "{err}");
    std::fs::remove_file(&b).unwrap();
    let mut bad = fake("a3-b4");
    bad.games = 3;
    atlas::append_result(&b, &bad).unwrap();
    atlas::append_result(&b, &fake("e3-f4")).unwrap();
    let err = atlas::read_results(dir.path()).unwrap_err();
    assert!(
        err.contains("lines-2-of-2.jsonl line 1") && err.contains("a3-b4"),
        "{err}"
    );
    std::fs::write(&b, "not json\n{}\n").unwrap();
    let err = atlas::read_results(dir.path()).unwrap_err();
    assert!(err.contains("lines-2-of-2.jsonl line 1"), "{err}");
}

#[test]
fn bad_settings_are_refused() {
    // A shard outside its count cannot be made (the one K/N of the program).
    let err = "3/2".parse::<Shard>().unwrap_err();
    assert_eq!(err, "shard 3/2: the part must be between 1 and 2");
    for (cfg, word) in [
        (
            AtlasConfig {
                plies: 0,
                ..quick(1)
            },
            "--plies",
        ),
        (
            AtlasConfig {
                games: 0,
                ..quick(1)
            },
            "--games",
        ),
        (
            AtlasConfig {
                search_depth: 0,
                ..quick(1)
            },
            "--search-depth",
        ),
        (
            AtlasConfig {
                movetime: Some(10),
                ..quick(1)
            },
            "not both",
        ),
        (
            AtlasConfig {
                plies: 3,
                ..quick(1)
            },
            "--plies 3",
        ),
        // Games at a fixed depth repeat: one pair a line.
        (
            AtlasConfig {
                games: 4,
                ..quick(1)
            },
            "--games 4",
        ),
        // Bounds of the games' engine, found before anything is written.
        (
            AtlasConfig {
                game_depth: Some(101),
                ..quick(1)
            },
            "--game-depth 101: engine option depth=101: expected a whole number from 1 to 100",
        ),
        (
            AtlasConfig {
                movetime: Some(86_400_001),
                game_depth: None,
                ..quick(1)
            },
            "--movetime 86400001",
        ),
    ] {
        let err = cfg.check().unwrap_err();
        assert!(err.contains(word), "{err}");
    }
}

/// A folder's `settings.txt` is checked line by line: the settings, then the
/// evaluation (not for a report alone); text from the file comes back
/// escaped, in one line.
#[test]
fn the_settings_file_is_checked_and_its_text_escaped() {
    let (s, e) = ("bushka atlas --plies 2", "material 00");
    assert_eq!(
        atlas::check_settings(&format!("{s}\nevaluation {e}\n"), s, e, false),
        Ok(())
    );
    assert_eq!(
        atlas::check_settings(&format!("{s}\r\n"), s, e, true),
        Ok(())
    );
    for (text, report_only, word) in [
        (
            "other\x1b[2J\nevaluation material 00\n",
            false,
            "other settings (other\\u{1b}[2J)",
        ),
        (
            "other\n",
            true,
            "other settings (other); give those settings for its report",
        ),
        (
            "other\n",
            false,
            "other settings (other); use another --out",
        ),
        (
            "bushka atlas --plies 2\nevaluation x\x07\n",
            false,
            "another evaluation (x\\u{7};",
        ),
        (
            "bushka atlas --plies 2\n",
            false,
            "does not record the evaluation",
        ),
        ("", false, "has an empty settings.txt"),
        (" \n", true, "has an empty settings.txt"),
    ] {
        let err = atlas::check_settings(text, s, e, report_only).unwrap_err();
        assert!(err.contains(word), "{err}");
        assert!(!err.chars().any(char::is_control), "{err:?}");
    }
}

/// One pair gives no interval (at a fixed depth both games repeat): the
/// verdict is `n/a`, not a gain or a loss with a zero-width interval.
#[test]
fn a_line_of_one_pair_has_no_verdict() {
    let mut one = fake("e3");
    (one.games, one.white_wins, one.draws, one.pairs) = (2, 2, 0, [0, 0, 0, 0, 1]);
    (one.score, one.elo) = (1.0, None);
    one.white_wins_by = [("no moves".to_string(), 2)].into();
    one.draws_by = Default::default();
    one.consistent().unwrap();
    assert_eq!(research::report::verdict(&one), "n/a");
    assert_eq!(research::report::verdict(&fake("g3")), "holds");
}

/// Counts that overflow when added (an edited results file) are refused,
/// not wrapped round to agree or a panic.
#[test]
fn counts_that_overflow_are_refused() {
    let mut r = fake("e3");
    (r.games, r.white_wins, r.draws, r.black_wins) = (0, u64::MAX, 1, 0);
    let err = r.consistent().unwrap_err();
    assert!(err.contains("is not 0 games"), "{err}");
    let mut r = fake("e3");
    r.pairs = [u64::MAX / 2 + 1, 0, 0, 0, 0];
    r.games = 0;
    (r.white_wins, r.draws, r.black_wins) = (0, 0, 0);
    let err = r.consistent().unwrap_err();
    assert!(err.contains("pairs do not make"), "{err}");
    let mut r = fake("e3");
    r.white_wins_by.insert("overflow".to_string(), u64::MAX);
    let err = r.consistent().unwrap_err();
    assert!(err.contains("reasons do not add up"), "{err}");
}

/// Of 24 first moves with distinct draw rates, 8 are sharp and 8 quiet.
#[test]
fn sharp_and_quiet_are_thirds_of_equal_size() {
    let lines: Vec<LineResult> = (0..24)
        .map(|i| {
            let mut r = fake(&format!("m{i}"));
            r.draw_rate = f64::from(i) / 24.0;
            r
        })
        .collect();
    let refs: Vec<&LineResult> = lines.iter().collect();
    let chars = research::report::characters(&refs);
    let count = |c: &str| chars.iter().filter(|x| **x == c).count();
    assert_eq!(
        (count("sharp"), count("quiet"), count("balanced")),
        (8, 8, 8)
    );
    // The fewest draws are the sharpest.
    assert_eq!(chars[0], "sharp");
    assert_eq!(chars[23], "quiet");
}

/// The deep search's score is White's: after a first move (Black to move)
/// it is the engine's score for Black, negated.
#[test]
fn the_deep_search_score_is_whites() {
    use engine::eval::EvalSource;
    let cfg = quick(1);
    for line in atlas::lines::<bashnya::Position>(1).iter().take(3) {
        assert_eq!(line.position.side_to_move(), engine::Color::Black);
        let figures = atlas::deep_search(line, &cfg).unwrap();
        let mut e = engine::search::Engine::<bashnya::Position>::new(cfg.hash, 1);
        let eval = bashnya::Position::default_eval();
        let input = engine::search::SearchInput::new(
            line.position,
            engine::search::Limits::depth(cfg.search_depth),
        );
        let r = e.search(eval.as_ref(), &input, |_| {});
        assert_eq!(figures.score, -r.score.internal(), "{}", line.key());
        assert_eq!(figures.score_text, r.score.to_string());
    }
}

/// Student's t quantiles, and an interval from ten pairs of
/// `[1, 2, 4, 2, 1]`: mean 1/2, sample variance 0.75 / 9, so the score's
/// interval is 1/2 ± 2.262 · sqrt(0.0833 / 10) = 1/2 ± 0.2065, which is
/// ±152.6 Elo; the normal interval the results file records is narrower.
#[test]
fn atlas_intervals_use_students_t_over_the_pairs() {
    use research::atlas::student_t_975;
    assert_eq!(student_t_975(1), 12.706);
    assert_eq!(student_t_975(9), 2.262);
    assert_eq!(student_t_975(30), 2.042);
    assert!((student_t_975(31) - 2.040).abs() < 0.001);
    assert!((student_t_975(1000) - 1.962).abs() < 0.001);
    assert!(student_t_975(0).is_infinite());
    let line = r#"{"line":"c3-d4","plies":1,"position":"B:a1=w","search":{"depth":1,"score":0,"score_text":"0","pv":["f6-e5"],"nodes":1},"games":20,"white_wins":5,"draws":10,"black_wins":5,"pairs":[1,2,4,2,1],"score":0.5,"elo":0.0,"elo_lower":-120.0,"elo_upper":120.0,"draw_rate":0.5,"mean_plies":60.0,"white_wins_by":{},"black_wins_by":{},"draws_by":{},"seconds":1.0}"#;
    let r: LineResult = serde_json::from_str(line).unwrap();
    let t = r.with_t_interval();
    let (lo, hi) = (t.elo_lower.unwrap(), t.elo_upper.unwrap());
    assert!(
        (lo + 152.6).abs() < 0.2 && (hi - 152.6).abs() < 0.2,
        "{lo} {hi}"
    );
    assert_eq!(t.elo, r.elo);
    // One pair keeps what was recorded; pairs that do not vary have no
    // interval, whatever an older file recorded.
    let mut one = r.clone();
    one.pairs = [0, 0, 1, 0, 0];
    assert_eq!(one.with_t_interval().elo_lower, Some(-120.0));
    let mut same = r;
    same.pairs = [0, 0, 10, 0, 0];
    let t = same.with_t_interval();
    assert_eq!((t.elo_lower, t.elo_upper), (None, None));
    assert_eq!(t.elo_interval(), (0.0, f64::NEG_INFINITY, f64::INFINITY));
}

/// Pairs that all scored alike have no interval; their LOS gives the
/// verdict, whether the file recorded an interval of zero width (older
/// builds) or none: a win and a draw in every pair gains from four pairs.
#[test]
fn pairs_all_alike_are_judged_by_their_los() {
    let line = |pairs: [u64; 5], recorded: Option<f64>| {
        let mut r = fake("e3");
        let n: u64 = pairs.iter().sum();
        let (w, d, l) = (
            2 * pairs[4] + pairs[3] + pairs[2],
            pairs[3] + pairs[1],
            2 * pairs[0] + pairs[1] + pairs[2],
        );
        // DD/WL pairs here are all WL (a win and a loss).
        (r.games, r.white_wins, r.draws, r.black_wins, r.pairs) = (2 * n, w, d, l, pairs);
        r.score = (w as f64 + d as f64 / 2.0) / (2 * n) as f64;
        (r.elo, r.elo_lower, r.elo_upper) = (recorded, recorded, recorded);
        r.with_t_interval()
    };
    let verdict = research::report::verdict;
    assert_eq!(verdict(&line([0, 0, 0, 3, 0], Some(190.8))), "holds");
    assert_eq!(verdict(&line([0, 0, 0, 4, 0], Some(190.8))), "gains");
    assert_eq!(verdict(&line([0, 0, 0, 4, 0], None)), "gains");
    assert_eq!(verdict(&line([0, 4, 0, 0, 0], Some(-190.8))), "loses");
    assert_eq!(verdict(&line([0, 0, 0, 0, 2], None)), "gains");
    assert_eq!(verdict(&line([0, 0, 5, 0, 0], Some(0.0))), "holds");
}
