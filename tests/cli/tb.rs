//! Endgame tables through the command line: build, probe, search and adjudication.

use crate::run_ok as run;
use std::process::Command;

#[test]
fn three_piece_tables_drive_probe_analyze_and_selfplay() {
    let tmp = crate::temp_dir("tb-cli");
    let dir = tmp.join("tables");
    let d = dir.to_str().unwrap();
    let built = run(&["tb", "build", "--pieces", "3", "--dir", d, "--quiet"]);
    // Run again (as after a stop), every table is kept.
    let again = run(&["tb", "build", "--pieces", "3", "--dir", d]);
    let materials = |text: &str| {
        text.lines()
            .filter(|l| l.starts_with("material "))
            .map(|l| l.split(' ').nth(1).unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(materials(&built).len(), 16, "{built}");
    assert_eq!(materials(&again), materials(&built));
    assert!(
        again
            .lines()
            .filter(|l| l.starts_with("material "))
            .all(|l| l.ends_with(" reused")),
        "{again}"
    );
    // `tb stats` gives each side's longest win and longest loss, each with
    // a position that the probe values so: White to move wins KKvK in at
    // most 5 plies, Black to move loses in at most 6 (and sometimes wins,
    // taking a king that cannot be defended).
    let stats = run(&["tb", "stats", "--material", "KKvK", "--dir", d]);
    let side = |name: &str| {
        stats
            .lines()
            .find(|l| l.starts_with(&format!("KKvK {name} to move:")))
            .unwrap_or_else(|| panic!("no {name} line: {stats}"))
            .to_string()
    };
    let example = |line: &str, what: &str| -> String {
        let at = line.find(&format!("longest {what} ")).expect(what);
        let rest = &line[at..];
        let open = rest.find('(').expect("example");
        let close = rest.find(')').expect("example");
        rest[open + 1..close].to_string()
    };
    let (white, black) = (side("white"), side("black"));
    assert!(white.contains("longest win 5 ("), "{white}");
    assert!(white.ends_with("longest loss none"), "{white}");
    assert!(black.contains("longest loss 6 ("), "{black}");
    assert!(black.contains("longest win 1 ("), "{black}");
    for (line, what, value) in [
        (&white, "win", "value win 5"),
        (&black, "loss", "value loss 6"),
    ] {
        let pos = example(line, what);
        let probe = run(&["tb", "probe", "--position", &pos, "--dir", d]);
        assert_eq!(probe.lines().next(), Some(value), "{pos}: {probe}");
    }
    // Two kings against one: the longest win of KKvK, 5 plies, and the
    // search finds it exactly; a drawn one.
    for (pos, value, score) in [
        ("W:WKh4,Kh5:BKi6", "value win 5", "score win 5 "),
        ("W:WKe1,Kf2:BKa6", "value draw", "score 0 "),
    ] {
        let probe = run(&["tb", "probe", "--position", pos, "--dir", d]);
        assert_eq!(probe.lines().next(), Some(value), "{pos}: {probe}");
        let analyze = run(&["analyze", "--position", pos, "--tb", d, "--depth", "4"]);
        let last_info = analyze.lines().rfind(|l| l.starts_with("info")).unwrap();
        assert!(last_info.contains(score), "{pos}: {last_info}");
    }

    // `start`, as everywhere a position is taken, is outside these tables.
    let o = Command::new(crate::bin())
        .args(["tb", "probe", "--position", "start", "--dir", d])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("outside the built tables"), "{err}");

    // A game that reaches a table position ends with the table's value: the
    // king and man win for White to move (7 plies), whoever plays White.
    let book = dir.join("book.txt");
    std::fs::write(&book, "W:WKb6,c7:BKa6\n").unwrap();
    let pdn = dir.join("g.pdn");
    run(&[
        "selfplay",
        "--engine",
        "name=a,depth=2",
        "--engine",
        "name=b,depth=2",
        "--games",
        "2",
        "--quiet",
        "--openings",
        book.to_str().unwrap(),
        "--tb",
        d,
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert_eq!(
        text.matches("[Termination \"adjudication: endgame table")
            .count(),
        2,
        "{text}"
    );
    assert_eq!(text.matches("[Result \"1-0\"]").count(), 2, "{text}");
    assert_eq!(
        text.matches("[TableAdjudication \"yes\"]").count(),
        2,
        "{text}"
    );
    // A table under another material's name is refused by `tb stats`,
    // which reads what the file's header says it holds.
    let wrong = dir.join("wrong");
    std::fs::create_dir(&wrong).unwrap();
    std::fs::copy(dir.join("KvM.tb"), wrong.join("KvK.tb")).unwrap();
    let o = Command::new(crate::bin())
        .args(["tb", "stats", "--material", "KvK", "--dir"])
        .arg(&wrong)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("KvK.tb holds the table of KvM, not of KvK"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn tables_are_for_bushka_only() {
    let o = Command::new(crate::bin())
        .args([
            "analyze", "--game", "bashnya", "--tb", "/tmp", "--depth", "1",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Bushka only"));
}
