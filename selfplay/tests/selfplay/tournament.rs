//! Tournaments in process: results add up, baselines behave, records replay.

use engine::{bashnya, bushka, Game, Outcome};
use selfplay::game::{play_game, Adjudication};
use selfplay::openings::{generate_book, BookRecipe};
use selfplay::pdn::{replay, PdnReader, PdnResult};
use selfplay::player::{make_player, Choice, Forfeit, Player, RandomPlayer};
use selfplay::spec::EngineSpec;
use selfplay::tournament::{run, Config};

pub(crate) fn config(engines: &[&str], games: usize, openings: Vec<String>) -> Config {
    Config {
        engines: engines
            .iter()
            .map(|e| EngineSpec::parse(e).unwrap())
            .collect(),
        gauntlet: false,
        games,
        concurrency: 2,
        seed: 7,
        openings,
        random_order: true,
        adjudication: Adjudication::default(),
        sprt: None,
        pdn: None,
        data: None,
        dedup: false,
        json: None,
        resume: false,
        progress: false,
        event: "test".into(),
        tb: None,
        shard: None,
        command: Vec::new(),
        time_margin: std::time::Duration::ZERO,
        annotate: false,
        anchor: None,
    }
}

fn starts<G: Game>() -> Vec<String> {
    vec![G::start().to_text()]
}

#[test]
fn a_short_match_adds_up_and_its_records_replay() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let pdn = dir.join("m.pdn");
    let data = dir.join("m.data");
    let json = dir.join("m.json");
    let _ = std::fs::remove_file(&pdn);
    let _ = std::fs::remove_file(&data);
    let book = generate_book::<bushka::Position, _>(
        &BookRecipe {
            count: 4,
            min_plies: 2,
            max_plies: 4,
            depth: 2,
            max_score: 200,
            seed: 3,
        },
        &engine::eval::Material::default(),
    );
    let mut cfg = config(
        &["name=a,depth=2", "name=b,kind=material,depth=2"],
        8,
        book.iter().map(Game::to_text).collect(),
    );
    cfg.pdn = Some(pdn.clone());
    cfg.data = Some(data.clone());
    cfg.json = Some(json.clone());
    let s = run::<bushka::Position>(&cfg).unwrap();
    assert_eq!(s.games, 8);
    let a = &s.engines[0];
    assert_eq!(a.wins + a.draws + a.losses, 8);
    assert_eq!((a.wins, a.losses), (s.engines[1].losses, s.engines[1].wins));
    assert_eq!(s.pairings[0].pentanomial.iter().sum::<u64>(), 4);
    let games: Vec<_> = PdnReader::new(std::io::BufReader::new(std::fs::File::open(&pdn).unwrap()))
        .map(|g| g.unwrap())
        .collect();
    assert_eq!(games.len(), 8);
    let mut rounds: Vec<u64> = games.iter().map(|g| g.round.parse().unwrap()).collect();
    rounds.sort();
    assert_eq!(rounds, (1..=8).collect::<Vec<_>>());
    for g in &games {
        let r = replay::<bushka::Position>(g).unwrap_or_else(|e| panic!("round {}: {e}", g.round));
        assert_eq!(r.moves.len(), g.moves.len());
        assert!(g.tag("Termination").is_some() && g.tag("MaxPlies") == Some("300"));
    }
    // One data line per position of every game, in order of ply, each with
    // the position replayed from the record and the game's result from
    // White's view (a game's id in the data is its round less one).
    let text = std::fs::read_to_string(&data).unwrap();
    let lines: Vec<engine::data::DataLine> = text
        .lines()
        .map(|l| engine::data::DataLine::parse(l).unwrap())
        .collect();
    let positions: usize = games.iter().map(|g| g.moves.len() + 1).sum();
    assert_eq!(lines.len(), positions);
    for g in &games {
        let id = (g.round.parse::<u64>().unwrap() - 1).to_string();
        let mine: Vec<_> = lines.iter().filter(|l| l.game == id).collect();
        assert_eq!(mine.len(), g.moves.len() + 1, "round {}", g.round);
        let want = match g.result {
            PdnResult::WhiteWins => 1.0,
            PdnResult::BlackWins => 0.0,
            PdnResult::Draw => 0.5,
            PdnResult::Unknown => panic!("round {}: no result", g.round),
        };
        let r = replay::<bushka::Position>(g).unwrap();
        let mut pos = r.start;
        for (ply, l) in mine.iter().enumerate() {
            assert_eq!(l.ply as usize, ply, "round {}", g.round);
            assert_eq!(l.result, want, "round {} ply {ply}", g.round);
            assert_eq!(l.position, pos.to_text(), "round {} ply {ply}", g.round);
            if let Some(m) = r.moves.get(ply) {
                pos = pos.play(m);
            }
        }
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(summary["games"], 8);
}

/// The engine at a few plies against the random player, 100 games.
fn beats_random<G: engine::eval::EvalSource>() -> f64
where
    engine::eval::Material: engine::eval::Evaluator<G>,
{
    let cfg = config(
        &["name=engine,depth=3", "name=random,kind=random"],
        100,
        starts::<G>(),
    );
    let s = run::<G>(&cfg).unwrap();
    let e = &s.engines[0];
    assert_eq!(e.wins + e.draws + e.losses, 100);
    e.score
}

#[test]
fn the_engine_crushes_random_play_in_bushka() {
    let score = beats_random::<bushka::Position>();
    assert!(score >= 0.99, "{score}");
}

#[test]
fn the_engine_crushes_random_play_in_bashnya() {
    let score = beats_random::<bashnya::Position>();
    assert!(score >= 0.99, "{score}");
}

#[test]
fn random_players_are_reproducible_and_adjudication_ends_games() {
    let adj = Adjudication {
        max_plies: 30,
        ..Adjudication::default()
    };
    let play = |seed| {
        let (mut w, mut b) = (RandomPlayer::new(seed), RandomPlayer::new(seed + 1));
        play_game(bushka::Position::start(), [&mut w, &mut b], &adj, None)
    };
    let (x, y) = (play(5), play(5));
    assert_eq!(x.record.moves(), y.record.moves());
    assert!(x.record.len() <= 30);
    // Either the rules ended the game early, or the ply limit drew it at 30.
    if x.record.len() < 30 {
        assert!(x.record.outcome().is_some(), "{}", x.reason);
    } else {
        assert_eq!(x.outcome, Outcome::Draw);
        assert!(x.reason.contains("30 plies"), "{}", x.reason);
    }
}

#[test]
fn bad_configurations_are_refused() {
    let mut cfg = config(&["name=a", "name=a"], 2, starts::<bushka::Position>());
    assert!(run::<bushka::Position>(&cfg)
        .unwrap_err()
        .contains("two engines are named"));
    cfg = config(&["name=a", "name=b"], 2, vec!["W:Wz9:B".into()]);
    let err = run::<bushka::Position>(&cfg).unwrap_err();
    assert!(
        err.contains("opening 'W:Wz9:B'") && err.contains("z9"),
        "{err}"
    );
    cfg = config(&["name=a", "name=b"], 2, Vec::new());
    assert_eq!(run::<bushka::Position>(&cfg).unwrap_err(), "no openings");
    cfg = config(&["name=a"], 2, starts::<bushka::Position>());
    assert_eq!(
        run::<bushka::Position>(&cfg).unwrap_err(),
        "a tournament needs at least two engines"
    );
    let refusal = |spec: &str| match make_player::<bushka::Position>(
        &EngineSpec::parse(spec).unwrap(),
        1,
        None,
    ) {
        Ok(_) => panic!("{spec} accepted"),
        Err(e) => e,
    };
    let err = refusal("name=x,weights=/nonexistent.json");
    assert!(err.contains("/nonexistent.json"), "{err}");
    let err = refusal("name=x,cmd=/nonexistent/engine");
    assert!(err.contains("/nonexistent/engine"), "{err}");
    // Tables each within bounds, more than the memory together: refused
    // before any is made. Random players have none; another program is
    // told its size.
    let half = engine::tt::max_hash_mib();
    let big = format!("name=a,depth=1,hash={half}");
    cfg = config(
        &[&big, "name=b,depth=1,hash=1"],
        2,
        starts::<bushka::Position>(),
    );
    let err = run::<bushka::Position>(&cfg).unwrap_err();
    assert!(
        err.starts_with("the hash tables would take ") && err.contains("2 games at once"),
        "{err}"
    );
    use selfplay::tournament::check_hash_total;
    cfg = config(
        &[&big, "name=r,kind=random"],
        2,
        starts::<bushka::Position>(),
    );
    assert_eq!(check_hash_total(&cfg, 1), Ok(()));
    assert!(check_hash_total(&cfg, 2).is_err());
    cfg = config(
        &[&big, "name=x,cmd=/nonexistent/engine,hash=1"],
        2,
        starts::<bushka::Position>(),
    );
    assert!(check_hash_total(&cfg, 1).is_err());
}

#[test]
fn the_sprt_stops_a_match_once_it_decides() {
    let mut cfg = config(
        &["name=engine,depth=2", "name=random,kind=random"],
        400,
        starts::<bushka::Position>(),
    );
    cfg.sprt = Some(selfplay::stats::Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap());
    let s = run::<bushka::Position>(&cfg).unwrap();
    let sprt = s.sprt.expect("a two-engine match reports its SPRT");
    assert!(sprt.status.starts_with("H1 accepted"), "{}", sprt.status);
    assert!(s.games < 400, "stopped early: {} games", s.games);
    assert!(sprt.upper > 0.0 && sprt.lower < 0.0);
}

#[test]
fn the_eval_option_is_read_written_and_checked() {
    use engine::eval::EvalKind;
    let spec = EngineSpec::parse("name=p,eval=patterns,depth=2").unwrap();
    assert_eq!(spec.eval, Some(EvalKind::Patterns));
    let again = EngineSpec::parse(&spec.to_string()).unwrap();
    assert_eq!(again.eval, Some(EvalKind::Patterns));
    assert!(EngineSpec::parse("name=p,eval=neural").is_err());
    // The embedded pattern weights play (a legal move from the start);
    // material has no patterns.
    let Ok(mut player) = make_player::<bashnya::Position>(&spec, 1, None) else {
        panic!("the embedded pattern weights do not load");
    };
    let start = bashnya::Position::start();
    let choice = player
        .choose(&engine::record::GameRecord::new(start))
        .unwrap_or_else(|_| panic!("no move from the start"));
    let mut legal = engine::MoveList::new();
    start.generate(&mut legal);
    assert!(legal.contains(&choice.mv));
    assert_eq!(choice.depth, Some(2));
    let material = EngineSpec::parse("name=m,eval=patterns,weights=material").unwrap();
    assert!(make_player::<bushka::Position>(&material, 1, None).is_err());
}

/// A run's whole schedule is bounded, not only each pairing's games: many
/// engines in a round robin at many games are refused before the schedule
/// is made (a summary read from disk is held to it too).
#[test]
fn a_run_of_too_many_games_is_refused_before_its_schedule() {
    use selfplay::tournament::{check_run_size, MAX_RUN_GAMES};
    assert_eq!(check_run_size(2, false, MAX_RUN_GAMES), Ok(()));
    let err = check_run_size(3, false, MAX_RUN_GAMES).unwrap_err();
    assert!(err.contains("3 engines at"), "{err}");
    assert!(check_run_size(1000, true, 20_000).is_err());
    assert_eq!(check_run_size(1000, true, 10_000), Ok(()));
    assert!(check_run_size(usize::MAX, false, usize::MAX).is_err());
    let names: Vec<String> = (0..200).map(|i| format!("name=e{i},kind=random")).collect();
    let specs: Vec<&str> = names.iter().map(String::as_str).collect();
    let cfg = config(&specs, 1_000, vec![bushka::Position::start().to_text()]);
    let err = run::<bushka::Position>(&cfg).unwrap_err();
    assert!(err.contains("at most"), "{err}");
}

/// The games played at once (for the cores warning) are counted from the
/// run's size, shard and concurrency, not from its schedule, which a run
/// too large to be allowed could not hold (it is refused after the
/// warning's count).
#[test]
fn games_at_once_are_counted_without_the_schedule() {
    use selfplay::tournament::games_at_once;
    let start = vec![bushka::Position::start().to_text()];
    let two = ["name=a,kind=random", "name=b,kind=random"];
    let four = [
        "name=a,kind=random",
        "name=b,kind=random",
        "name=c,kind=random",
        "name=d,kind=random",
    ];
    let at_once = |engines: &[&str], games, concurrency, gauntlet, shard: Option<&str>| {
        let mut cfg = config(engines, games, start.clone());
        cfg.concurrency = concurrency;
        cfg.gauntlet = gauntlet;
        cfg.shard = shard.map(|s| s.parse().unwrap());
        games_at_once(&cfg)
    };
    assert_eq!(at_once(&two, 3, 2, false, None), 2);
    assert_eq!(at_once(&two, 3, 9, false, None), 4, "3 games are 2 pairs");
    assert_eq!(at_once(&four, 2, 9, true, None), 6, "3 pairings");
    assert_eq!(at_once(&four, 2, 20, false, None), 12, "6 pairings");
    // Shard 1 of 5 of those 6 pairs plays 1 pair; shard 5 of 5 plays 2.
    assert_eq!(at_once(&four, 2, 9, false, Some("1/5")), 2);
    assert_eq!(at_once(&four, 2, 9, false, Some("5/5")), 4);
    // 60,000,000 games, six times the most a run may have: counted at once.
    assert_eq!(at_once(&four, 10_000_000, 2, false, None), 2);
    let mut none = config(&two, 2, Vec::new());
    none.concurrency = 4;
    assert_eq!(games_at_once(&none), 1, "no opening, no game");
}

/// A book holds the positions asked for, each new, none with a capture
/// due, and each balanced by its check (a search of the recipe's depth
/// scores it within `max_score`); the same recipe makes the same book.
#[test]
fn a_book_holds_new_balanced_positions() {
    use engine::search::{Engine, Limits, SearchInput};
    let recipe = BookRecipe {
        count: 20,
        min_plies: 4,
        max_plies: 10,
        depth: 2,
        max_score: 60,
        seed: 11,
    };
    let eval = engine::eval::Material::default();
    let book = generate_book::<bushka::Position, _>(&recipe, &eval);
    assert_eq!(book.len(), 20);
    let hashes: std::collections::HashSet<u64> = book.iter().map(Game::hash).collect();
    assert_eq!(hashes.len(), 20, "a position twice");
    let mut scores = Vec::new();
    for pos in &book {
        assert!(!pos.must_capture(), "{}", pos.to_text());
        let mut engine = Engine::<bushka::Position>::new(engine::tt::HashSize::MIN, 1);
        let r = engine.search(&eval, &SearchInput::new(*pos, Limits::depth(2)), |_| {});
        scores.push(r.score.internal());
    }
    assert!(scores.iter().all(|s| s.abs() <= 60), "{scores:?}");
    let again = generate_book::<bushka::Position, _>(&recipe, &eval);
    assert_eq!(
        again.iter().map(Game::to_text).collect::<Vec<_>>(),
        book.iter().map(Game::to_text).collect::<Vec<_>>()
    );
}

/// Plays the moves it is given, in turn.
struct Script(std::vec::IntoIter<&'static str>);

impl Player<bushka::Position> for Script {
    fn choose(
        &mut self,
        game: &engine::record::GameRecord<bushka::Position>,
    ) -> Result<Choice<<bushka::Position as Game>::Move>, Forfeit> {
        let text = self.0.next().expect("a move left in the script");
        let mv = game.current().parse_move(text).unwrap();
        Ok(Choice {
            mv,
            score: None,
            depth: None,
        })
    }
}

/// A game of king moves alone is drawn after `no_progress_plies` of them;
/// a man move before then starts the count again.
#[test]
fn king_moves_alone_draw_after_the_no_progress_plies() {
    let start = bushka::Position::parse_position("W:WKe1,h4:BKa5,c8").unwrap();
    let adj = Adjudication {
        no_progress_plies: 4,
        ..Adjudication::default()
    };
    for (white, black, plies) in [
        (vec!["e12", "e23"], vec!["a56", "a65"], 4),
        (
            vec!["e12", "h45", "e23", "e34"],
            vec!["a56", "ab6", "ba6"],
            7,
        ),
    ] {
        let (mut w, mut b) = (Script(white.into_iter()), Script(black.into_iter()));
        let g = play_game(start, [&mut w, &mut b], &adj, None);
        assert_eq!(g.record.len(), plies);
        assert_eq!(g.outcome, Outcome::Draw);
        assert_eq!(
            g.reason,
            "adjudication: 4 plies without a capture or a man move"
        );
    }
}

/// A gauntlet pairs the first engine with each other one, and no other two:
/// the games played are the games counted.
#[test]
fn a_gauntlet_plays_the_first_engine_against_each_other() {
    use selfplay::tournament::games_at_once;
    let three = [
        "name=a,kind=random",
        "name=b,kind=random",
        "name=c,kind=random",
    ];
    let dir = tempfile::tempdir().unwrap();
    let pdn = dir.path().join("g.pdn");
    let mut cfg = config(&three, 2, starts::<bushka::Position>());
    cfg.gauntlet = true;
    cfg.concurrency = 9;
    cfg.pdn = Some(pdn.clone());
    let s = run::<bushka::Position>(&cfg).unwrap();
    assert_eq!(s.games, 4);
    assert_eq!(games_at_once(&cfg), 4);
    let pairings: Vec<(&str, &str)> = s
        .pairings
        .iter()
        .map(|p| (p.first.as_str(), p.second.as_str()))
        .collect();
    assert_eq!(pairings, [("a", "b"), ("a", "c")]);
    for p in &s.pairings {
        assert_eq!(p.wdl.iter().sum::<u64>(), 2, "{p:?}");
    }
    let games: Vec<_> = PdnReader::new(std::io::BufReader::new(std::fs::File::open(&pdn).unwrap()))
        .map(|g| g.unwrap())
        .collect();
    let mut sides: Vec<(String, String)> = games
        .iter()
        .map(|g| (g.white.clone(), g.black.clone()))
        .collect();
    sides.sort();
    let want = [("a", "b"), ("a", "c"), ("b", "a"), ("c", "a")];
    assert_eq!(sides, want.map(|(w, b)| (w.to_string(), b.to_string())));
}

/// The options `--sprt`, `--adjudicate-win` and `--each` read their text
/// here; a refusal names the problem in one line, the text escaped.
#[test]
fn option_texts_read_or_are_refused_in_one_line() {
    use selfplay::game::parse_win;
    use selfplay::spec::with_each;
    use selfplay::stats::Sprt;
    let s = Sprt::parse("beta=0.05,alpha=0.05,elo1=5,elo0=0").unwrap();
    assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (0.0, 5.0, 0.05, 0.05));
    for (bad, word) in [
        ("elo0=0,elo1=5,alpha=0.05", "needs beta="),
        ("elo0\n0", "expected key=value, got 'elo0\\n0'"),
        ("elo\r0=1", "unknown key 'elo\\r0'"),
        ("elo0=x\u{2028}", "must be a number, got 'x\\u{2028}'"),
        ("elo0=5,elo1=0,alpha=0.05,beta=0.05", "elo"),
        (
            "elo0=0,elo1=5,alpha=0.05,beta=0.05, elo0=1",
            "elo0= given twice",
        ),
    ] {
        let e = Sprt::parse(bad).unwrap_err();
        assert!(e.contains(word), "{bad:?}: {e}");
        assert!(!e.contains(['\n', '\r', '\u{2028}']), "{e:?}");
    }
    assert_eq!(parse_win("400, 6"), Ok((400, 6)));
    for (bad, word) in [
        ("400", "SCORE,MOVES"),
        ("0,6", "SCORE must be"),
        ("400,0", "MOVES must be"),
    ] {
        assert!(parse_win(bad).unwrap_err().contains(word), "{bad}");
    }
    assert_eq!(with_each(None, "name=a").unwrap(), "name=a");
    for (each, engine, want) in [
        ("tc=8+0.1", "name=a", "tc=8+0.1,name=a"),
        // The engine's own items win: what it gives itself is left out of
        // --each, and kind= and cmd= are one choice.
        ("depth=3,tc=8", "name=a,depth=5", "tc=8,name=a,depth=5"),
        (
            "kind=material,hash=8",
            "name=x,cmd=prog",
            "hash=8,name=x,cmd=prog",
        ),
        ("cmd=prog", "name=x,kind=random", "name=x,kind=random"),
        // A quoted value may hold a comma, or "name=", and keeps its quotes.
        (
            "weights=\"a,name=b\"",
            "name=a",
            "weights=\"a,name=b\",name=a",
        ),
    ] {
        assert_eq!(with_each(Some(each), engine).unwrap(), want, "{each}");
    }
    let e = with_each(Some("depth=1,tc=8,depth=2"), "name=a").unwrap_err();
    assert_eq!(e, "depth=1,tc=8,depth=2: depth= given twice");
    for (twice, key) in [
        ("name=a,depth=1,depth=2", "depth"),
        ("name=a,name=b", "name"),
        ("name=a,kind=random, kind=material", "kind"),
    ] {
        let e = EngineSpec::parse(twice).unwrap_err();
        assert_eq!(e.to_string(), format!("engine option {key}= given twice"));
    }
    let e = with_each(Some("depth"), "name=a").unwrap_err();
    assert!(e.contains("expected key=value"), "{e}");
    let e = with_each(Some("name=\nx"), "name=a").unwrap_err();
    assert!(
        e.contains("name= belongs to each --engine") && !e.contains('\n'),
        "{e}"
    );
}

/// Openings from records: the position after N plies of each game; a game
/// shorter than that, or over at that ply (no move left), is skipped and
/// counted, and so is one that reaches a position an earlier game reached.
#[test]
fn openings_from_records_skip_games_over_by_then() {
    use selfplay::openings::book_from_pdn;
    use selfplay::pdn::GameRecord;
    // White's one capture takes Black's only man: over after one ply.
    let mut over = GameRecord::new(engine::GameKind::Bashnya);
    over.fen = Some("W:c3=w,d4=b".into());
    over.moves = vec!["c3:e5".into()];
    over.result = PdnResult::WhiteWins;
    let text = over.to_pdn();
    let read = |text: &str, plies| {
        let b = book_from_pdn::<bashnya::Position, _>(text.as_bytes(), plies)
            .unwrap_or_else(|e| panic!("{e}: {text}"));
        (b.positions, b.short, b.repeated)
    };
    let (book, skipped, repeated) = read(&text, 0);
    assert_eq!((book.len(), skipped, repeated), (1, 0, 0));
    assert_eq!(
        book[0].to_text(),
        bashnya::Position::parse_position("W:c3=w,d4=b")
            .unwrap()
            .to_text()
    );
    let (book, skipped, _) = read(&text, 1);
    assert_eq!((book.len(), skipped), (0, 1));
    let (book, skipped, _) = read(&text, 2);
    assert_eq!((book.len(), skipped), (0, 1));
    // Two games reaching one position (a pair played alike) open once.
    let twice = format!("{text}{text}");
    let (book, skipped, repeated) = read(&twice, 0);
    assert_eq!((book.len(), skipped, repeated), (1, 0, 1));
}

/// Engines that have not all met get no joint ratings, and the summary says
/// why: here the first of three shards of a round robin of three, which
/// holds one pairing.
#[test]
fn without_joint_ratings_the_summary_says_why() {
    let engines = [
        "name=a,kind=random",
        "name=b,kind=random",
        "name=c,kind=random",
    ];
    let opening = vec![bushka::Position::start().to_text()];
    let mut cfg = config(&engines, 2, opening);
    cfg.adjudication.max_plies = 10;
    cfg.shard = Some(selfplay::shard::Shard::new(1, 3).unwrap());
    let s = run::<bushka::Position>(&cfg).unwrap();
    assert_eq!(s.games, 2);
    assert!(s.ratings.is_none());
    let why = "the engines do not all meet each other, directly or through others";
    assert_eq!(s.ratings_missing.as_deref(), Some(why));
    let table = selfplay::tournament::table(&s);
    assert!(
        table.contains(&format!("no joint ratings: {why}\n")),
        "{table}"
    );
    // The whole round robin has them.
    cfg.shard = None;
    let s = run::<bushka::Position>(&cfg).unwrap();
    assert!(s.ratings.is_some() && s.ratings_missing.is_none());
}
