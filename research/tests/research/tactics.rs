//! The miner on the rules' worked examples (docs/rules.md 1.9) and on a
//! game without tactics.

use engine::bushka::Position;
use engine::eval::EvalSource;
use engine::search::Engine;
use engine::tt::HashSize;
use engine::Game;
use research::tactics::{self, MineConfig};
use selfplay::pdn::{replay, PdnReader};

fn cfg() -> MineConfig {
    MineConfig {
        deep: 6,
        verify: 8,
        hash: HashSize::MIN,
        ..MineConfig::default()
    }
}

fn mine_one(text: &str) -> Option<tactics::Tactic> {
    let pos = Position::parse_position(text).unwrap();
    let mut engine = Engine::<Position>::new(HashSize::MIN, 1);
    let eval = Position::default_eval();
    tactics::mine_position(&pos, &cfg(), &mut engine, eval.as_ref(), "test")
}

#[test]
fn the_t_strike_is_found_and_named() {
    let t = mine_one("W:We4,f4:Bd4,e7").expect("the T-strike");
    assert_eq!(t.solution[0], "e45");
    assert_eq!(t.motif, "T-strike");
    // e45 offers a man: Black must take it, one way or the other.
    assert_eq!(t.first_move_kind, "sacrifice");
    assert_eq!(t.gain, None, "it wins the game: {t:?}");
    assert_ne!(t.shallow_move, "e45");
}

#[test]
fn the_seven_men_combination_is_found_and_named() {
    let t = mine_one("W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0").expect("the combination");
    assert_eq!(t.solution[0], "dc3");
    assert_eq!(&t.solution[..5], ["dc3", "c54x", "f34", "cxe4", "e1x3"]);
    assert_eq!(t.first_move_kind, "sacrifice");
    assert_eq!(t.motif, "a man given to open a line");
    assert!(t.gain.is_none_or(|g| g >= 100), "{t:?}");
    // The problem line reads back as the position and its solution.
    let line = t.problem_line();
    let fields: Vec<&str> = line.split('\t').collect();
    assert_eq!(fields.len(), 4);
    assert_eq!(
        Position::parse_position(fields[0]).unwrap().to_text(),
        t.position
    );
    assert_eq!(fields[1], t.solution.join(" "));
    let problem = tactics::parse_problem::<Position>(&line).unwrap();
    let mut at = problem.position;
    let mut again = Vec::new();
    for mv in &problem.solution {
        again.push(at.move_text(mv));
        at = at.play(mv);
    }
    assert_eq!(again, t.solution);
    assert_eq!(problem.motif, t.motif);
}

/// A game from the start whose moves are the first legal move each time.
fn quiet_game(plies: usize) -> String {
    let mut pos = Position::start();
    let mut list = engine::MoveList::new();
    let mut text = String::new();
    for ply in 0..plies {
        pos.generate(&mut list);
        let mv = list[0];
        if ply % 2 == 0 {
            text.push_str(&format!("{}. ", ply / 2 + 1));
        }
        text.push_str(&format!("{} ", pos.move_text(&mv)));
        pos = pos.play(&mv);
    }
    text
}

#[test]
fn mining_games_finds_the_combinations_and_nothing_in_a_quiet_game() {
    let pdn = format!(
        "[GameType \"bushka\"]\n[FEN \"W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0\"]\n[Result \"*\"]\n\n\
         1. dc3 c54x 2. f34 cxe4 3. e1x3 *\n\n\
         [GameType \"bushka\"]\n[FEN \"W:We4,f4:Bd4,e7\"]\n[Result \"1-0\"]\n\n1. e45 de4x 2. e5x 1-0\n\n\
         [GameType \"bushka\"]\n[Result \"*\"]\n\n{}*\n",
        // Four plies: after the fifth of this game (each side's first
        // legal move) the pattern evaluation, deep enough, sees a quiet
        // move (d86) that wins a man, and the miner reports it.
        quiet_game(4)
    );
    let mut positions = Vec::new();
    for (i, record) in PdnReader::new(std::io::Cursor::new(pdn)).enumerate() {
        let r = replay::<Position>(&record.unwrap()).unwrap();
        positions.extend(tactics::positions_of(&r, i + 1));
    }
    assert_eq!(positions.len(), 6 + 4 + 5);
    let journal = std::sync::Mutex::new(tactics::Mined::new());
    let found = tactics::mine(&positions, &cfg(), &Default::default(), &|h, t| {
        assert!(journal.lock().unwrap().insert(h, t.clone()).is_none());
    })
    .unwrap();
    let journal = journal.into_inner().unwrap();
    assert_eq!(journal.len(), tactics::distinct(&positions).len());
    // A run stopped half way goes on from its journal: it searches only the
    // rest, and finds what the whole run found.
    let half: tactics::Mined = journal
        .iter()
        .take(journal.len() / 2)
        .map(|(h, t)| (*h, t.clone()))
        .collect();
    let searched = std::sync::atomic::AtomicUsize::new(0);
    let resumed = tactics::mine(&positions, &cfg(), &half, &|h, _| {
        assert!(!half.contains_key(&h));
        searched.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(resumed, found);
    assert_eq!(searched.into_inner(), journal.len() - half.len());
    let sources: Vec<&str> = found.iter().map(|t| t.source.as_str()).collect();
    assert!(sources.contains(&"game 1 ply 0"), "{found:?}");
    // The positions further along the combination are the same combination.
    assert_eq!(
        sources.iter().filter(|s| s.starts_with("game 1 ")).count(),
        1,
        "{sources:?}"
    );
    assert!(sources.contains(&"game 2 ply 0"), "{found:?}");
    assert!(
        found.iter().all(|t| !t.source.starts_with("game 3")),
        "a quiet opening holds no tactic: {found:?}"
    );
    let firsts: Vec<&str> = found.iter().map(|t| t.solution[0].as_str()).collect();
    assert!(
        firsts.contains(&"dc3") && firsts.contains(&"e45"),
        "{firsts:?}"
    );
}

#[test]
fn bad_settings_are_refused() {
    for (c, word) in [
        (
            MineConfig {
                shallow: 0,
                ..cfg()
            },
            "--shallow",
        ),
        (MineConfig { deep: 2, ..cfg() }, "--deep"),
        (MineConfig { verify: 4, ..cfg() }, "--verify"),
        (
            MineConfig {
                min_gain: 0,
                ..cfg()
            },
            "--min-gain",
        ),
    ] {
        assert!(c.check().unwrap_err().contains(word));
    }
}

/// The fuzz corpus of the research target, through the target's own checks
/// (`fuzz_research_check.rs`, which the target includes); its problem lines
/// read (the seeds are the rules' two combinations), and its journal seed
/// reads with its tactic.
#[test]
fn the_fuzz_corpus_reads() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/research");
    let scratch = tempfile::tempdir().unwrap();
    let (mut read, mut journal) = (0, 0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        super::fuzz_research_check::check_research(&bytes, scratch.path());
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        for line in text.lines() {
            if tactics::parse_problem::<Position>(line).is_ok() {
                read += 1;
            }
            if let Ok((_, Some(_))) = tactics::parse_journal_line::<Position>(line.as_bytes()) {
                journal += 1;
            }
        }
    }
    assert!(read >= 2, "the seeds read as problems");
    assert!(journal >= 1, "the journal seed reads with its tactic");
    let bad = tactics::parse_problem::<Position>("W:We4,f4:Bd4,e7\te45 zz\tT\twin").unwrap_err();
    assert!(bad.contains("solution move 2"), "{bad}");
    let bad = tactics::parse_problem::<Position>("W:We4,f4:Bd4,e7\te45\tT\tlots").unwrap_err();
    assert!(bad.contains("gain 'lots'"), "{bad}");
}

/// A mining journal line reads back what mining wrote; a tactic it could not
/// have written (changed by hand or by a fault) is refused in one line, so
/// no line that does not read gets into the problem set.
#[test]
fn journal_lines_read_back_and_refuse_what_mining_cannot_write() {
    let t = mine_one("W:We4,f4:Bd4,e7").expect("the T-strike");
    let hash = Position::parse_position(&t.position).unwrap().hash();
    let line = tactics::journal_line(hash, &Some(t.clone()));
    assert_eq!(
        tactics::parse_journal_line::<Position>(line.as_bytes()),
        Ok((hash, Some(t.clone())))
    );
    for text in [r#"{"hash":7,"tactic":null}"#, r#"{"hash":7}"#] {
        assert_eq!(
            tactics::parse_journal_line::<Position>(text.as_bytes()),
            Ok((7, None))
        );
    }
    let changed = |f: &dyn Fn(&mut tactics::Tactic)| {
        let mut c = t.clone();
        f(&mut c);
        tactics::journal_line(hash, &Some(c))
    };
    for (line, word) in [
        (
            tactics::journal_line(hash + 1, &Some(t.clone())),
            "not the position of hash",
        ),
        (
            changed(&|c| c.motif = "T\tstrike".into()),
            "motif holds a control character",
        ),
        (
            changed(&|c| c.source = "game 1\nply 2".into()),
            "source holds a control character",
        ),
        (changed(&|c| c.motif = " T".into()), "empty or padded"),
        (
            changed(&|c| c.solution = vec!["e45 e56".into()]),
            "not one token",
        ),
        (changed(&|c| c.solution.clear()), "the solution is empty"),
        (
            changed(&|c| c.solution = vec!["a1x9".into()]),
            "solution move 1",
        ),
        (changed(&|c| c.position = "W:Wz9".into()), "position: "),
        (
            r#"{"hash":7,"tactic":null,"more":1}"#.into(),
            "unknown field",
        ),
        (r#"{"hash":-1}"#.into(), "not a journal line"),
        (r#"{"\u000a":1}"#.into(), "unknown field `\\n`"),
    ] {
        let e = tactics::parse_journal_line::<Position>(line.as_bytes()).unwrap_err();
        assert!(e.contains(word), "{line}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

/// The motif `Motifs` names for a line given in notation from a position.
fn motif_of<G: tactics::Motifs>(position: &str, line: &str) -> &'static str {
    let pos = G::parse_position(position).unwrap();
    let mut at = pos;
    let mut moves = Vec::new();
    for text in line.split_whitespace() {
        let mv = at
            .parse_move(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        moves.push(mv);
        at = at.play(&mv);
    }
    G::motif(&pos, &moves)
}

#[test]
fn bushka_motifs_are_named_by_what_the_line_does() {
    // The rules' T-strike: two captures that take different men.
    assert_eq!(
        motif_of::<Position>("W:We4,f4:Bd4,e7", "e45 de4x e5x"),
        "T-strike"
    );
    // A mined line of the committed inventory: after g78 Black's line
    // c8-d8-e8 has two linear captures (cxf8, dxf8) of the same man g8:
    // one choice, no T-strike.
    let row = "W:We1,g3,i5,e2,f3,g4,g5,h6,g6,d4,e5,g7:Bf6,f7,b5,c6,d7,e8,a5,b6,c7,d8,e9,c8,d9";
    let after = {
        let p = Position::parse_position(row).unwrap();
        p.play(&p.parse_move("g78").unwrap())
    };
    let mut list = engine::MoveList::new();
    after.generate(&mut list);
    assert!(after.must_capture() && list.len() >= 2, "two captures");
    assert!(list.iter().all(|m| m.captured == list[0].captured));
    assert_ne!(motif_of::<Position>(row, "g78 dxf8"), "T-strike");
    // The rules' backward linear capture: a man given (e12), then the
    // line's capture.
    assert_eq!(
        motif_of::<Position>("W:We1,e6,e7:Be4,e5", "e12 e5x3 e7x5"),
        "a man given to open a line"
    );
    // A linear capture with nothing given first.
    let pos = Position::parse_position("W:We1,e2:Be4").unwrap();
    pos.generate(&mut list);
    assert!(list.len() == 1 && list[0].kind == engine::bushka::MoveKind::Linear);
    let take = pos.move_text(&list[0]);
    assert_eq!(
        motif_of::<Position>("W:We1,e2:Be4", &take),
        "linear capture"
    );
    // The rules' wrong order, from Black's side: a piece capture of two.
    let start = Position::parse_position("W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0").unwrap();
    let after = start.play(&start.parse_move("f34").unwrap());
    assert_eq!(
        motif_of::<Position>(&after.to_text(), "d4e3x"),
        "piece-capture chain"
    );
    // A quiet move and nothing more.
    assert_eq!(
        motif_of::<Position>(&Position::start().to_text(), "e34"),
        "quiet build-up"
    );
}

#[test]
fn bashnya_motifs_are_named_by_what_the_line_does() {
    use engine::bashnya::Position as B;
    // Taking the top of d4 frees the white man under it: White has two
    // columns after the capture, one before.
    assert_eq!(motif_of::<B>("W:c3=w,d4=bw", "c3:e5"), "prisoners freed");
    // A king's capture of three jumps (a1 over c3, e3 and g3, landing where
    // the capture goes on), and one of two (a1:e5:h2): a free choice.
    let pos = B::parse_position("W:a1=W,c3=b,e3=b,g3=b").unwrap();
    let mut list = engine::MoveList::new();
    pos.generate(&mut list);
    let texts: Vec<String> = list.iter().map(|m| pos.move_text(m)).collect();
    assert_eq!(texts, ["a1:d4:f2:h4", "a1:e5:h2"]);
    assert_eq!(list[0].captures(), 3);
    assert_eq!(
        motif_of::<B>("W:a1=W,c3=b,e3=b,g3=b", "a1:e5:h2"),
        "forcing sequence"
    );
    let take = pos.move_text(&list[0]);
    assert_eq!(
        motif_of::<B>("W:a1=W,c3=b,e3=b,g3=b", &take),
        "king's long route"
    );
    // A man offered, taken by a column of two, and the column taken back
    // (its lower black man stays on top: nothing is freed).
    assert_eq!(
        motif_of::<B>("W:c3=w,d2=w,e1=w,e5=bb", "c3-d4 e5:c3 d2:b4"),
        "column recaptured"
    );
    // A quiet move and nothing more.
    assert_eq!(
        motif_of::<B>(&B::start().to_text(), "c3-d4"),
        "forcing sequence"
    );
}

/// A line the deep search finds lost for the solver is no tactic, whatever
/// it takes on the way: this position of the first Bushka set (published
/// as gaining 400, its line ending with the solver to move and no move) is
/// scored lost by the search and not mined.
#[test]
fn a_lost_line_is_no_tactic() {
    let text = "W:WKg8:BKi5,Kd6,e7,Kb6";
    let pos = Position::parse_position(text).unwrap();
    let mut engine = Engine::<Position>::new(HashSize::MIN, 1);
    let eval = Position::default_eval();
    let r = engine.search(
        eval.as_ref(),
        &engine::search::SearchInput::new(pos, engine::search::Limits::depth(8)),
        |_| {},
    );
    assert!(
        matches!(r.score, engine::search::Score::Loss(_)),
        "{:?}",
        r.score
    );
    assert!(mine_one(text).is_none());
}

/// A line in which the solver takes nothing and crowns a man is a
/// breakthrough to a king (a published example of the Bushka set).
#[test]
fn a_crowning_without_a_capture_is_a_breakthrough() {
    let t = mine_one("W:Wf4,c3,d4,e7:Be4,e8,c8").expect("the breakthrough");
    assert_eq!(t.solution[0], "ed7");
    assert_eq!(t.motif, "breakthrough to a king");
}
