//! `bushka selfplay` on game clocks: a slow protocol engine loses on time.

use crate::temp_dir;
use std::process::Command;

/// Writes an executable script.
fn write_script(path: &std::path::Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// A protocol engine that greets properly and then thinks for a second
/// on every move, on a 0.1-second clock: it loses every game on time, and
/// the records say so and keep its clock.
#[test]
fn a_slow_protocol_engine_loses_on_time() {
    let dir = temp_dir("slow");
    let path = dir.join("slow.sh");
    write_script(
        &path,
        &format!(
            "#!/bin/sh\n{}",
            super::selfplay::hub_loop("sleep 1; echo 'done move=a1'")
        ),
    );
    let pdn = dir.join("slow.pdn");
    let slow = format!("name=slow,cmd={},tc=0.1", path.display());
    let o = Command::new(crate::bin())
        .args([
            "selfplay",
            "--engine",
            &slow,
            "--engine",
            "name=fast,depth=1,tc=10",
            "--games",
            "2",
            "--time-margin",
            "20",
            "--quiet",
            "--pdn",
            pdn.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("clock slow: 2 games, 2 lost on time"), "{out}");
    let text = std::fs::read_to_string(&pdn).unwrap();
    // Once as White (it moves first) and once as Black.
    for side in ["white", "black"] {
        assert_eq!(
            text.matches(&format!("[Termination \"time forfeit: {side} took 0."))
                .count(),
            1,
            "{text}"
        );
    }
    assert_eq!(
        text.matches("[WhiteTimeControl \"0.1\"]").count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.matches("[BlackTimeControl \"0.1\"]").count(),
        1,
        "{text}"
    );
    // The slow side's clock is left as it was before the move it lost on.
    assert_eq!(text.matches("Clock \"0.100\"]").count(), 2, "{text}");
}

fn run(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(crate::bin()).args(args).output().unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `--each` sets every engine's options (an engine's own win), a round
/// robin of three prints the joint ladder and writes it to the JSON, and a
/// machine with too few cores for threads x concurrency is warned about.
#[test]
fn each_options_a_joint_ladder_and_the_cores_warning() {
    let dir = temp_dir("ladder");
    let json = dir.join("s.json");
    let pdn = dir.join("s.pdn");
    let (ok, out, err) = run(&[
        "selfplay",
        "--engine",
        "name=one",
        "--engine",
        "name=two,depth=2",
        "--engine",
        "name=rnd,kind=random",
        "--each",
        "depth=1,threads=3",
        "--concurrency",
        "1000",
        "--games",
        "2",
        "--anchor",
        "two=1000",
        "--quiet",
        "--json",
        json.to_str().unwrap(),
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        // --concurrency 1000, but only the schedule's six games can be
        // played at once.
        err.contains("warning: 6 games at once with up to 3 search threads each need 18 cores"),
        "{err}"
    );
    assert!(out.contains("joint ratings (anchor two = 1000"), "{out}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ladder = s["ratings"]["ladder"].as_array().unwrap();
    assert_eq!(ladder.len(), 3);
    let two = ladder.iter().find(|e| e["name"] == "two").unwrap();
    assert_eq!(two["elo"][0], 1000.0);
    let specs: Vec<&str> = s["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["spec"].as_str().unwrap())
        .collect();
    assert!(
        specs[0].contains("depth=1") && specs[0].contains("threads=3"),
        "{specs:?}"
    );
    assert!(specs[1].contains("depth=2"), "{specs:?}");
    // The records of this run are openings for the next: the position after
    // four plies of each game, in the file's order (the first game's, played
    // once with each colour).
    let next = dir.join("next.pdn");
    let (ok, out, err) = run(&[
        "selfplay",
        "--engine",
        "name=a,depth=1",
        "--engine",
        "name=b,depth=1",
        "--openings-pdn",
        pdn.to_str().unwrap(),
        "--opening-plies",
        "4",
        "--order",
        "sequential",
        "--games",
        "2",
        "--quiet",
        "--pdn",
        next.to_str().unwrap(),
    ]);
    assert!(ok && out.contains("2 games"), "{out}{err}");
    let records = std::fs::read_to_string(&pdn).unwrap();
    let (fen, moves) = first_game(&records);
    let want = after_plies(&fen, &moves[..4]);
    let played = std::fs::read_to_string(&next).unwrap();
    let fens: Vec<String> = played
        .lines()
        .filter_map(|l| l.strip_prefix("[FEN \""))
        .map(|l| l.trim_end_matches("\"]").to_string())
        .collect();
    assert_eq!(fens, [want.clone(), want], "{played}");
    let whites: Vec<&str> = played
        .lines()
        .filter(|l| l.starts_with("[White "))
        .collect();
    assert!(
        whites.contains(&"[White \"a\"]") && whites.contains(&"[White \"b\"]"),
        "{played}"
    );
    for (bad, why) in [
        (
            vec!["--each", "name=x"],
            "--each name=x: name= belongs to each --engine",
        ),
        (
            vec!["--engine", "name=c,depth=1", "--anchor", "nobody=0"],
            "--anchor 'nobody=0': no engine is named 'nobody'",
        ),
        // Options that would do nothing: refused, not ignored.
        (
            vec!["--anchor", "a=0"],
            "--anchor is for the joint ratings of three or more engines, not 2",
        ),
        (
            vec!["--dedup"],
            "--dedup applies to the training data: give --data too",
        ),
        (
            vec!["--annotate"],
            "--annotate writes into the game records: give --pdn",
        ),
        // Data into a stream keeps no records beside it.
        (
            vec!["--annotate", "--data", "/dev/null"],
            "--annotate writes into the game records: give --pdn",
        ),
        // Records with no game long enough: one line, the count of the
        // games too short in it.
        (
            vec![
                "--openings-pdn",
                pdn.to_str().unwrap(),
                "--opening-plies",
                "1000",
            ],
            "no game has 1000 plies (6 shorter or over by then)",
        ),
        (
            vec!["--openings-pdn", "/nonexistent.pdn"],
            "cannot read --openings-pdn /nonexistent.pdn: No such file",
        ),
        // Plies of records not given: refused, not ignored.
        (
            vec!["--opening-plies", "4"],
            "required arguments were not provided: --openings-pdn",
        ),
    ] {
        let mut args = vec![
            "selfplay",
            "--engine",
            "name=a,depth=1",
            "--engine",
            "name=b,depth=1",
        ];
        args.extend(bad.iter().copied());
        let (ok, _, err) = run(&args);
        assert!(
            !ok && err.lines().count() == 1 && err.contains(why),
            "{bad:?}: {err}"
        );
    }
}

/// `bushka pdn clock` on a fixed annotated game: the forfeits, the share of
/// the clock used, the most by a side, the least time left after a move,
/// the CSV by move number and the chart; a file without clocks is refused.
#[test]
fn pdn_clock_reports_time_use_and_the_least_time_left() {
    let dir = temp_dir("pdn-clock");
    let pdn = dir.join("g.pdn");
    // White on 2+0.5: 1.5 s, then 0.75 s (left 0.5, then 2.5 - 2.25 = 0.25).
    // Black: 0.5 s, then 0.25 s (left 1.5, then 1.75).
    std::fs::write(
        &pdn,
        "[GameType \"bushka\"]\n[TimeControl \"2+0.5\"]\n[Result \"*\"]\n\n\
         1. ig6 {+0.38/11 1.500s} f98 {-0.39/10 0.500s} 2. gf6 {+0.46/11 0.750s} \
         f87x {-0.37/1 0.250s} *\n",
    )
    .unwrap();
    let (csv, png) = (dir.join("t.csv"), dir.join("t.png"));
    let (ok, out, err) = run(&[
        "pdn",
        "clock",
        pdn.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    // Used 3.0 s of 2 x (2 + 2 x 0.5) = 6 s; White 2.25 of 3.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "1 games, 1 on a clock: 0 lost on time, 50.0% of the time given used \
         (most by a side in one game 75.0%), the least left after a move 0.250 s"
    );
    // Both sides made two moves: one band, White's clock 0.25 + 0.5 at the
    // end and Black's 1.75 + 0.5 (median 1.5 s), all the unused time theirs.
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[1].starts_with("moves of a side"), "{out}");
    let row: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(row, ["0-29", "2", "50.0%", "100.0%", "1.500", "s"], "{out}");
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "move,moves,mean_ms,max_ms\n1,2,1000.000,1500.000\n2,2,500.000,750.000\n"
    );
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    // Neither output may replace the records, or the other output; nor
    // point at a folder.
    let records = std::fs::read(&pdn).unwrap();
    let (p, c) = (pdn.to_str().unwrap(), csv.to_str().unwrap());
    let folder = dir.to_str().unwrap();
    for (extra, expect) in [
        (["--csv", p], "--csv and the records name the same file"),
        (["--png", p], "--png and the records name the same file"),
        (["--png", c], "name the same file"),
        (["--png", folder], "is a folder"),
    ] {
        let mut args = vec!["pdn", "clock", p, "--csv", c];
        if extra[0] == "--csv" {
            args.truncate(3);
        }
        args.extend(extra);
        let (ok, _, err) = run(&args);
        assert!(
            !ok && err.lines().count() == 1 && err.contains(expect),
            "{args:?}: {err}"
        );
    }
    assert_eq!(std::fs::read(&pdn).unwrap(), records);
    // Comments without move times: the game's clock cannot be followed, so
    // it is not counted (its time used is not known, not zero).
    let untimed = dir.join("untimed.pdn");
    std::fs::write(
        &untimed,
        "[GameType \"bushka\"]\n[TimeControl \"2+0.5\"]\n[Result \"*\"]\n\n\
         1. ig6 {opening} f98 {reply} *\n",
    )
    .unwrap();
    let (ok, _, err) = run(&["pdn", "clock", untimed.to_str().unwrap()]);
    assert!(
        !ok && err.lines().count() == 1 && err.contains("no game on a clock with the time"),
        "{err}"
    );
    let bare = dir.join("bare.pdn");
    std::fs::write(&bare, "[GameType \"bushka\"]\n\n1. ig6 f98 *\n").unwrap();
    let (ok, _, err) = run(&["pdn", "clock", bare.to_str().unwrap()]);
    assert!(
        !ok && err.lines().count() == 1 && err.contains("no game on a clock"),
        "{err}"
    );
}

/// An engine behind a wrapper script that hangs: when it is stopped (on
/// time, and at the end), what the wrapper started goes too, not only the
/// wrapper.
#[cfg(target_os = "linux")]
#[test]
fn a_hung_engine_behind_a_wrapper_is_stopped_with_its_children() {
    let dir = temp_dir("wrapped");
    let wrap = dir.join("wrap.sh");
    write_script(&wrap, "#!/bin/sh\nsh \"$(dirname \"$0\")/inner.sh\"\n");
    std::fs::write(
        dir.join("inner.sh"),
        format!(
            "echo $$ >> \"$(dirname \"$0\")/pids\"\n{}",
            super::selfplay::hub_loop("sleep 1000")
        ),
    )
    .unwrap();
    let hang = format!("name=hang,cmd={},movetime=100", wrap.display());
    let o = Command::new(crate::bin())
        .args([
            "selfplay",
            "--engine",
            &hang,
            "--engine",
            "name=fast,depth=1",
            "--games",
            "2",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let pids = std::fs::read_to_string(dir.join("pids")).unwrap();
    assert_eq!(
        pids.lines().count(),
        2,
        "started again after the first hang"
    );
    // A process killed is gone, or a zombie until its new parent reaps it.
    let alive = |pid: &str| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.split_whitespace().nth(2) != Some("Z"))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while pids.lines().any(alive) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let left: Vec<&str> = pids.lines().filter(|p| alive(p)).collect();
    assert!(left.is_empty(), "still running: {left:?}");
}

/// The first game of a PDN text: its `[FEN]` and its moves (move numbers
/// and the result left out).
fn first_game(pdn: &str) -> (String, Vec<String>) {
    // The first game: from its `[Event` line (the rest of which is skipped
    // below) to the next.
    let game = pdn.split("[Event ").nth(1).expect("a game");
    let fen = game
        .lines()
        .find_map(|l| l.strip_prefix("[FEN \""))
        .expect("a [FEN] tag")
        .trim_end_matches("\"]")
        .to_string();
    let moves = game
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('[') && !l.is_empty())
        .flat_map(str::split_whitespace)
        .filter(|w| !w.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*"].contains(w))
        .map(str::to_string)
        .collect();
    (fen, moves)
}

/// The position after `moves` from `fen`, as `bushka moves` plays them.
fn after_plies(fen: &str, moves: &[String]) -> String {
    let mut pos = fen.to_string();
    for m in moves {
        let o = Command::new(crate::bin())
            .args(["moves", "--position", &pos])
            .output()
            .unwrap();
        let list = String::from_utf8_lossy(&o.stdout).to_string();
        pos = list
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{m}\t")))
            .unwrap_or_else(|| panic!("{m} not legal in {pos}: {list}"))
            .to_string();
    }
    pos
}
