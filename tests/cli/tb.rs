//! Endgame tables through the command line: build, probe, search and adjudication.

use std::process::Command;

fn run(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_bushka"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn three_piece_tables_drive_probe_analyze_and_selfplay() {
    let dir = std::env::temp_dir().join(format!("bushka-tb-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    run(&["tb", "build", "--pieces", "3", "--dir", d]);
    // Two kings against one: some positions are won, and the search finds the
    // table's distance exactly.
    let pos = "W:WKe1,Kf2:BKa6";
    let probe = run(&["tb", "probe", "--position", pos, "--dir", d]);
    let value = probe.lines().next().unwrap().to_string();
    let analyze = run(&["analyze", "--position", pos, "--tb", d, "--depth", "4"]);
    let last_info = analyze.lines().rfind(|l| l.starts_with("info")).unwrap();
    let expect = match value.split(' ').collect::<Vec<_>>()[..] {
        ["value", "win", n] => format!("score win {n} "),
        ["value", "loss", n] => format!("score loss {n} "),
        _ => "score 0 ".to_string(),
    };
    assert!(last_info.contains(&expect), "{probe} / {last_info}");

    // A game that reaches a table position ends with the table's value.
    let book = dir.join("book.txt");
    std::fs::write(&book, "W:Wf2,Ke5:BKa6\n").unwrap();
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
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tables_are_for_bushka_only() {
    let o = Command::new(env!("CARGO_BIN_EXE_bushka"))
        .args([
            "analyze", "--game", "bashnya", "--tb", "/tmp", "--depth", "1",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Bushka only"));
}
