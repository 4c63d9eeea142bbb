//! `bushka tactics mine` and `solve` on the rules' worked examples.

use std::process::{Command, Output};

fn bushka(args: &[&str]) -> Output {
    Command::new(crate::bin())
        .args(args)
        .output()
        .expect("run bushka")
}

const GAMES: &str =
    "[GameType \"bushka\"]\n[FEN \"W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0\"]\n[Result \"*\"]\n\n\
1. dc3 c54x 2. f34 cxe4 3. e1x3 *\n\n\
[GameType \"bushka\"]\n[FEN \"W:We4,f4:Bd4,e7\"]\n[Result \"1-0\"]\n\n1. e45 de4x 2. e5x 1-0\n";

/// `tactics mine` of `pdn` into `out`, shallow enough for a test.
fn mine_args<'a>(pdn: &'a std::path::Path, out: &'a std::path::Path) -> [&'a str; 13] {
    [
        "tactics",
        "mine",
        "--pdn",
        pdn.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--deep",
        "6",
        "--verify",
        "8",
        "--hash",
        "1",
        "--quiet",
    ]
}

#[test]
fn mine_writes_a_problem_set_that_solve_reads() {
    let dir = tempfile::tempdir().unwrap();
    let pdn = dir.path().join("g.pdn");
    std::fs::write(&pdn, GAMES).unwrap();
    let out = dir.path().join("t.tsv");
    let o = bushka(&mine_args(&pdn, &out));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let set = std::fs::read_to_string(&out).unwrap();
    let problems: Vec<&str> = set.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(problems.len() >= 2, "{set}");
    assert!(set.contains("\tdc3 c54x f34 cxe4 e1x3"), "{set}");
    assert!(set.contains("\te45 "), "{set}");
    let report = std::fs::read_to_string(out.with_extension("md")).unwrap();
    assert!(
        report.contains("T-strike") && report.contains("| motif |"),
        "{report}"
    );
    // The mined set, and a problem whose stated first move is legal but not
    // the engine's (it plays the shot e45): solved all but that one.
    let wrong = dir.path().join("wrong.tsv");
    std::fs::write(
        &wrong,
        format!("{set}W:We4,f4:Bd4,e7\tf45\tT-strike\twin\n"),
    )
    .unwrap();
    for (file, of) in [(&out, problems.len()), (&wrong, problems.len() + 1)] {
        let o = bushka(&[
            "tactics",
            "solve",
            "--problems",
            file.to_str().unwrap(),
            "--depth",
            "6",
        ]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(
            text.starts_with(&format!("solved {} of {of} at depth 6", problems.len())),
            "{text}"
        );
    }
}

#[test]
fn tactics_refuses_bad_input_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.tsv");
    std::fs::write(&bad, "W:We4,f4:Bd4,e7\tzz9\tT-strike\twin\n").unwrap();
    let pdn = dir.path().join("g.pdn");
    std::fs::write(&pdn, "[GameType \"bushka\"]\n\n1. zz9 *\n").unwrap();
    let empty = dir.path().join("empty.tsv");
    std::fs::write(&empty, "# nothing yet\n\n").unwrap();
    let nothing = dir.path().join("nothing.pdn");
    std::fs::write(&nothing, "").unwrap();
    let (pdn_s, folder) = (pdn.to_str().unwrap(), dir.path().to_str().unwrap());
    let mine_into = |out| vec!["tactics", "mine", "--pdn", pdn_s, "--out", out];
    for (args, word) in [
        (
            vec!["tactics", "solve", "--problems", bad.to_str().unwrap()],
            "bad.tsv line 1",
        ),
        (
            vec!["tactics", "solve", "--problems", empty.to_str().unwrap()],
            "empty.tsv holds no problems",
        ),
        (
            vec!["tactics", "mine", "--pdn", pdn.to_str().unwrap()],
            "g.pdn game 1",
        ),
        (
            vec!["tactics", "mine", "--pdn", "x.pdn", "--shallow", "0"],
            "--shallow",
        ),
        // Not a file: the report and the journal are named after it.
        (
            mine_into("/dev/null"),
            "--out /dev/null: not a regular file",
        ),
        // A file of no game (an empty one here) is named.
        (
            vec!["tactics", "mine", "--pdn", nothing.to_str().unwrap()],
            "no game in ",
        ),
        (
            vec!["tactics", "mine", "--pdn", "/nonexistent/x.pdn"],
            "x.pdn",
        ),
        // A device or a pipe would not read the same for the journal's key
        // and for the games: refused before it is read.
        (
            vec!["tactics", "mine", "--pdn", "/dev/null"],
            "/dev/null: not a regular file",
        ),
        // The set may not replace the games it is mined from, nor be mined
        // into a folder (found only at the end).
        (mine_into(pdn_s), "name the same file"),
        (mine_into(folder), "is a folder, not a file"),
    ] {
        let o = bushka(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(word), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
    assert_eq!(
        std::fs::read_to_string(&pdn).unwrap(),
        "[GameType \"bushka\"]\n\n1. zz9 *\n"
    );
}

/// A mining run keeps a journal beside the set while it works; a run
/// stopped and started again reads it and searches only what is left, and a
/// journal of other settings is refused.
#[test]
fn mine_goes_on_from_the_journal_of_a_stopped_run() {
    use engine::Game;
    let dir = tempfile::tempdir().unwrap();
    let pdn = dir.path().join("g.pdn");
    std::fs::write(&pdn, GAMES).unwrap();
    let out = dir.path().join("t.tsv");
    let journal = dir.path().join("t.tsv.partial.jsonl");
    let args = mine_args(&pdn, &out);
    let o = bushka(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !journal.exists(),
        "the journal is removed once the set is written"
    );
    let whole = std::fs::read_to_string(&out).unwrap();
    assert!(whole.contains("\tdc3 c54x f34 cxe4 e1x3"), "{whole}");

    // A stopped run's journal: the first game's start looked at and found
    // quiet (so the resumed run must not search it again, and does not find
    // its combination), then half a line cut by the stop.
    let start = engine::bushka::Position::parse_position("W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0")
        .unwrap();
    let bytes = std::fs::read(&pdn).unwrap();
    let fnv = engine::zobrist::fnv1a(engine::zobrist::FNV1A_START, &bytes);
    let head = serde_json::json!({
        "settings": format!(
            "bushka tactics mine --game bushka --shallow 2 --deep 6 --verify 8 --min-gain 100 --eval auto --hash 1; bushka {}, evaluation {}; {} ({} bytes, fnv1a {fnv:016x})",
            env!("CARGO_PKG_VERSION"),
            engine::eval::default_eval_id::<engine::bushka::Position>(),
            std::fs::canonicalize(&pdn).unwrap().display(),
            bytes.len()
        )
    });
    std::fs::write(
        &journal,
        format!(
            "{head}\n{{\"hash\":{},\"tactic\":null}}\n{{\"hash\":12",
            start.hash()
        ),
    )
    .unwrap();
    let o = bushka(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("going on from 1 positions of a stopped run"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let resumed = std::fs::read_to_string(&out).unwrap();
    assert!(!resumed.contains("\tdc3 c54x f34 cxe4 e1x3"), "{resumed}");
    assert!(resumed.contains("\te45 "), "{resumed}");
    assert!(!journal.exists());

    // A journal of other settings is refused, and left for the user.
    std::fs::write(&journal, "{\"settings\":\"something else\"}\n").unwrap();
    let o = bushka(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is the journal of another mining run"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(journal.exists());
}

/// The report counts every position of the games read, repeats too, and
/// how many of them are distinct (the ones mined).
#[test]
fn the_report_counts_positions_with_their_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let pdn = dir.path().join("g.pdn");
    // The two games twice: 6 + 4 positions each time.
    std::fs::write(&pdn, format!("{GAMES}\n{GAMES}")).unwrap();
    let out = dir.path().join("t.tsv");
    let o = bushka(&mine_args(&pdn, &out));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = std::fs::read_to_string(out.with_extension("md")).unwrap();
    assert!(
        report.contains("positions: 20, 10 of them distinct"),
        "{report}"
    );
}
