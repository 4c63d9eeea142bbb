//! The command-line contract: output shapes, exit codes, one-line errors.

use crate::strs;
use std::process::{Command, Output};

fn bushka(args: &[&str]) -> Output {
    Command::new(crate::bin())
        .args(args)
        .output()
        .expect("run bushka")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A refused command: exit status 2 and exactly one line on stderr naming the problem.
fn refused(args: &[&str], expect: &str) {
    let err = crate::refusal(&bushka(args));
    assert!(err.contains(expect), "{args:?}: {err}");
}

#[test]
fn moves_lists_notation_and_resulting_position() {
    let o = bushka(&["moves"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 24);
    for l in lines {
        let (mv, pos) = l.split_once('\t').expect("tab");
        assert!(!mv.is_empty() && pos.starts_with("B:W"), "{l}");
    }
    let o = bushka(&["moves", "--game", "bashnya"]);
    assert_eq!(stdout(&o).lines().count(), 7);
    let o = bushka(&["moves", "--position", "W:We1,e2:Be4,e5,e6"]);
    assert_eq!(stdout(&o), "e1x3\tB:We2,e3:B\n");
}

#[test]
fn perft_prints_nodes_last_and_speed_before() {
    let o = bushka(&["perft", "--depth", "3"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"nodes 13920"));
    assert!(lines[lines.len() - 2].contains("nodes/s"), "{text}");
    let o = bushka(&[
        "perft",
        "--game",
        "bashnya",
        "--depth",
        "4",
        "--threads",
        "2",
        "--divide",
    ]);
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"nodes 1469"));
    assert_eq!(lines.len(), 7 + 2);
    let sum: u64 = lines[..7]
        .iter()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 1469);
}

#[test]
fn analyze_ends_with_bestmove() {
    let o = bushka(&[
        "analyze",
        "--position",
        "W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0",
        "--depth",
        "10",
    ]);
    let text = stdout(&o);
    assert!(
        text.lines()
            .any(|l| l.starts_with("info depth 10 score win")),
        "{text}"
    );
    assert_eq!(text.lines().last(), Some("bestmove dc3"));
}

#[test]
fn bench_prints_its_signature_line() {
    let o = bushka(&["bench", "--depth", "3"]);
    let text = stdout(&o);
    let last = text.lines().last().unwrap();
    let f: Vec<&str> = last.split(' ').collect();
    assert_eq!((f[0], f[2], f[4]), ("bench", "nodes", "nps"), "{last}");
    // One thread: the same count every time.
    assert_eq!(
        stdout(&bushka(&["bench", "--depth", "3"]))
            .lines()
            .last()
            .unwrap()
            .split(' ')
            .nth(1),
        Some(f[1])
    );
}

/// The node counts of a shallow bench, pinned: a change meant only to make
/// the search faster must leave them as they are, and a change of what is
/// searched updates them here and in the full bench's test below.
#[test]
fn shallow_bench_signatures_are_pinned() {
    assert_bench_nodes(
        &["--depth", "6"],
        [
            ("bushka", "auto", "169062"),
            ("bushka", "features", "132861"),
            ("bashnya", "auto", "35512"),
            ("bashnya", "features", "43021"),
        ],
    );
}

/// `bushka bench` with `extra` options counts `nodes` for each (game,
/// evaluation): the number on its last line.
fn assert_bench_nodes(extra: &[&str], expected: [(&str, &str, &str); 4]) {
    for (game, eval, nodes) in expected {
        let mut args = vec!["bench", "--game", game, "--eval", eval];
        args.extend_from_slice(extra);
        let o = bushka(&args);
        let text = stdout(&o);
        let last = text.lines().last().unwrap();
        assert_eq!(last.split(' ').nth(1), Some(nodes), "{game} {eval}: {last}");
    }
}

/// The full bench's node counts (default depth and hash: the bench
/// signatures the README quotes), pinned as the shallow ones are.
#[test]
#[ignore = "about 15 s in the test profile: cargo test -p bushka --test cli -- --ignored full_bench_signatures_are_pinned"]
fn full_bench_signatures_are_pinned() {
    assert_bench_nodes(
        &[],
        [
            ("bushka", "auto", "20654972"),
            ("bushka", "features", "18109474"),
            ("bashnya", "auto", "6282267"),
            ("bashnya", "features", "6119990"),
        ],
    );
}

/// `bench --speedup` searches the set with one thread and with several, and
/// prints a row per position, the totals, and the speed-up of the totals.
#[test]
fn bench_speedup_prints_a_table_of_both_thread_counts() {
    let o = bushka(&[
        "bench",
        "--speedup",
        "--threads",
        "2",
        "--rounds",
        "2",
        "--depth",
        "5",
        "--hash",
        "4",
    ]);
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("1 thread") && lines[0].contains("2 threads"),
        "{text}"
    );
    let positions = include_str!("../../data/bench/bushka.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .count();
    for (i, row) in lines[1..=positions].iter().enumerate() {
        let f: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(f[0], (i + 1).to_string(), "{row}");
        assert_eq!((f[2], f[4]), ("ms", "ms"), "{row}");
        // A number, not a speed: a position searched in microseconds can
        // print 0.00 when the threads' start is slow on a loaded machine.
        let ratio: f64 = f[5].parse().expect(row);
        assert!(ratio.is_finite() && ratio >= 0.0, "{row}");
    }
    let total: Vec<&str> = lines[positions + 1].split_whitespace().collect();
    assert_eq!(total[0], "total", "{text}");
    // One thread's node count is the plain bench's, every round.
    let single = stdout(&bushka(&["bench", "--depth", "5", "--hash", "4"]));
    let single = single.lines().last().unwrap().split(' ').nth(1).unwrap();
    let nodes: Vec<&str> = lines[positions + 2].split_whitespace().collect();
    assert_eq!((nodes[0], nodes[1]), ("nodes", single), "{text}");
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("speedup ") && last.contains("at depth 5, 2 threads over 1"),
        "{last}"
    );
    // The speed-up is the ratio of the median totals, as the total row gives it.
    let x = last.split(' ').nth(1).unwrap();
    assert_eq!(x, total[5], "{text}");
    assert!(x.parse::<f64>().expect(last) > 0.0, "{last}");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    // A command without the subcommand it needs names the ones it takes.
    refused(&[], "`bushka` needs a subcommand: moves, perft,");
    refused(&["pdn"], "`bushka pdn` needs a subcommand: check, clock (");
    refused(
        &["tb"],
        "`bushka tb` needs a subcommand: build, probe, stats (",
    );
    refused(
        &["tactics"],
        "`bushka tactics` needs a subcommand: mine, solve (",
    );
    refused(&["bench", "--speedup"], "--threads T (2 or more)");
    refused(&["bench", "--rounds", "3"], "--speedup");
    refused(
        &["bench", "--speedup", "--threads", "2", "--rounds", "0"],
        "invalid value '0' for '--rounds <ROUNDS>': 0 is not in 1..=1000",
    );
    refused(&["moves", "--position", "W:Wz9:B"], "unknown square 'z9'");
    refused(&["moves", "--position", "nonsense"], "malformed position");
    refused(&["moves", "--game", "chess"], "unknown game 'chess'");
    refused(&["perft"], "--depth");
    refused(&["perft", "--depth", "-1"], "unexpected argument '-1'");
    refused(
        &["perft", "--depth", "99"],
        "invalid value '99' for '--depth <DEPTH>': 99 is not in 0..=30",
    );
    refused(
        &["perft", "--depth", "2", "--threads", "0"],
        "invalid value '0' for '--threads <THREADS>': 0 is not in 1..=1024",
    );
    refused(
        &["perft", "--depth", "x"],
        "invalid value 'x' for '--depth <DEPTH>': invalid digit",
    );
    refused(&["frobnicate"], "frobnicate");
    refused(&["moves", "--bogus"], "--bogus");
    refused(
        &["moves", "--game", "bashnya", "--position", "W:a2=w"],
        "square 'a2' is a light square",
    );
    refused(
        &["analyze", "--depth", "0"],
        "invalid value '0' for '--depth <DEPTH>': 0 is not in 1..=100",
    );
    refused(
        &["tune", "--data", "x", "--out", "y", "--captures", "keep"],
        "keep",
    );
    refused(
        &["analyze", "--depth", "1", "--hash", "60000"],
        "hash must be from 1 to",
    );
    refused(&["openings", "--max-score=-1"], "-1");
    refused(
        &["tb", "stats", "--material", "KKKKKKvK", "--dir", "."],
        "at most 5 pieces",
    );
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.pdn");
    std::fs::write(&empty, "").unwrap();
    refused(&["pdn", "check", empty.to_str().unwrap()], "no game in");
    refused(
        &["pdn", "check", dir.path().to_str().unwrap()],
        "is a folder, not a PDN file",
    );
    // A record's [GameType] decides; --game is for records without one.
    let tagged = dir.path().join("tagged.pdn");
    std::fs::write(
        &tagged,
        "[GameType \"bushka\"]\n[Result \"*\"]\n\n1. d23 *\n",
    )
    .unwrap();
    let o = bushka(&[
        "pdn",
        "check",
        tagged.to_str().unwrap(),
        "--game",
        "bashnya",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("1 games legal, 0 with errors"));
    // A Bashnya game without the tag, read as Bushka for want of --game:
    // the error says so; with --game bashnya it replays.
    let untagged = dir.path().join("untagged.pdn");
    std::fs::write(&untagged, "[Result \"*\"]\n\n1. c3-d4 f6-g5 *\n").unwrap();
    let path = untagged.to_str().unwrap();
    let o = bushka(&["pdn", "check", path]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("(no [GameType] tag: read as bushka; give --game bashnya for Bashnya)"),
        "{}",
        stdout(&o)
    );
    let o = bushka(&["pdn", "check", path, "--game", "bashnya"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // A tag naming another game is refused as such, with no such hint.
    let other = dir.path().join("other.pdn");
    std::fs::write(&other, "[GameType \"20\"]\n[Result \"*\"]\n\n1. c3-d4 *\n").unwrap();
    let o = bushka(&["pdn", "check", other.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stdout(&o).contains("game type '20'"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("no [GameType] tag"), "{}", stdout(&o));
}

/// `bushka play` with the human on `side` (20 ms engine moves), `input`
/// typed.
fn play(side: &str, input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(crate::bin())
        .args(["play", "--human", side, "--movetime", "20"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// Human moves, as `bushka play` reads them: text that is not UTF-8 is no
/// move (the game goes on), and `undo` before the human's first move, the
/// engine having moved first, takes nothing back.
#[test]
fn play_reads_any_bytes_and_undoes_only_the_humans_turns() {
    let out = play("black", b"undo\n\xe9\nundo\nresign\n");
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.matches("nothing to undo").count(), 2, "{text}");
    assert_eq!(text.matches("engine (white) plays").count(), 1, "{text}");
    assert!(text.contains("cannot read move"), "{text}");
    assert!(text.contains("white wins (black resigns)"), "{text}");
}

/// Moves typed, mistakes named, and `undo` taking back the human's move and
/// the engine's reply: the same move can be played again.
#[test]
fn play_takes_moves_and_reports_mistakes() {
    let out = play("white", b"e99\nzz\ne23\nd23\nundo\nd23\nresign\n");
    let text = stdout(&out);
    assert!(text.contains("illegal move 'e99'"), "{text}");
    assert!(text.contains("illegal move 'e23'"), "{text}");
    assert!(!text.contains("illegal move 'd23'"), "{text}");
    assert_eq!(text.matches("engine (black) plays").count(), 2, "{text}");
    assert!(text.contains("cannot read move 'zz'"), "{text}");
    assert!(text.contains("engine (black) plays"), "{text}");
    assert!(text.contains("black wins (white resigns)"), "{text}");
    assert!(text.contains("we1"), "the board shows coordinates: {text}");
}

/// docs/rules.md 2.3's first worked example as `bushka moves` prints it: the man
/// may not jump straight back over d4, although a black man commands it again.
#[test]
fn bashnya_moves_never_jump_straight_back() {
    let out = bushka(&["moves", "--game", "bashnya", "--position", "W:c3=w,d4=bb"]);
    assert_eq!(stdout(&out), "c3:e5\tB:d4=b,e5=wb\n");
}

/// Output that cannot be written (a full disk: /dev/full) is an error,
/// exit status 2 with one line: the hub's replies and the help as well as
/// a command's results.
#[cfg(target_os = "linux")]
#[test]
fn output_that_cannot_be_written_is_an_error() {
    use std::io::Write;
    use std::process::Stdio;
    for (args, input) in [
        (&["hub"][..], "hub\ninit\nping\nquit\n"),
        (&["--help"][..], ""),
        (&["--version"][..], ""),
        (&["moves", "--help"][..], ""),
        (&["moves"][..], ""),
    ] {
        let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
            eprintln!("skipped: no /dev/full here");
            return;
        };
        let mut child = Command::new(crate::bin())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::from(full))
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        let err = crate::refusal(&o);
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
    }
}

/// A reader that stops reading (`bushka bench | head -1`) ends the program
/// quietly: exit status 0 and no panic message; a book of openings written
/// at once (more than a pipe holds) too.
#[test]
fn closed_stdout_is_not_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    for args in [
        &["bench", "--depth", "9", "--hash", "1"][..],
        &[
            "openings",
            "--count",
            "2000",
            "--depth",
            "1",
            "--max-plies",
            "12",
            "--quiet",
        ][..],
    ] {
        let mut child = Command::new(crate::bin())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run bushka");
        let mut out = child.stdout.take().expect("stdout");
        let mut first = [0u8; 8];
        out.read_exact(&mut first).expect("some output");
        drop(out);
        let o = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
    }
}

/// Training data of `games` self-play games at depth 2 into `data`.
fn self_play_data(game: &str, games: u32, data: &std::path::Path) {
    let games = games.to_string();
    let o = bushka(&[
        "selfplay",
        "--game",
        game,
        "--engine",
        "name=a,depth=2",
        "--engine",
        "name=b,depth=2",
        "--games",
        &games,
        "--data",
        data.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Bushka's four features that fire only with a capture pending occur in no
/// quiet training position: `tune` names them as keeping their weights.
#[test]
fn tune_names_the_features_its_data_never_has() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("train.data");
    let out = dir.path().join("tuned.json");
    self_play_data("bushka", 8, &data);
    let o = bushka(&[
        "tune",
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--epochs",
        "1",
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let note = err
        .lines()
        .find(|l| l.starts_with("note: "))
        .unwrap_or_else(|| panic!("no note in {err}"));
    assert!(note.contains("keep their initial weights"), "{note}");
    for name in [
        "exposed_line_men",
        "exposed_single",
        "exposed_king",
        "linear_threat",
    ] {
        assert!(note.contains(name), "{name} not in {note}");
    }
    // Features the games do reach are fitted.
    assert!(
        !note.contains("tempo") && !note.contains("mobility_men"),
        "{note}"
    );
}

#[test]
fn tune_fits_self_play_data_and_resolves_capture_positions_when_asked() {
    let dir = crate::temp_dir("cli-tune");
    let data = dir.join("train.data");
    let data_s = data.to_str().unwrap();
    self_play_data("bashnya", 16, &data);
    // "data: L lines, 0 bad (skipped), N with a capture pending (...), ..."
    let pending = |text: &str| -> (u64, String) {
        let line = text
            .lines()
            .find(|l| l.starts_with("data: "))
            .expect("data line");
        let n = line
            .split(", ")
            .find(|f| f.contains("with a capture pending"))
            .and_then(|f| f.split(' ').next())
            .and_then(|n| n.parse().ok())
            .expect("pending count");
        (n, line.to_string())
    };
    let mut kept = Vec::new();
    let mut resolved_count = 0;
    for captures in ["skip", "resolve"] {
        let out = dir.join(format!("{captures}.json"));
        let o = bushka(&[
            "tune",
            "--game",
            "bashnya",
            "--data",
            data_s,
            "--out",
            out.to_str().unwrap(),
            "--epochs",
            "3",
            "--captures",
            captures,
            "--quiet",
        ]);
        let text = stdout(&o);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(out.exists(), "{text}");
        // A feature fit is pulled toward its start by default.
        assert!(
            text.contains("pull toward the initial weights: 1000 positions"),
            "{text}"
        );
        let (n, line) = pending(&text);
        assert!(n > 0, "{line}");
        if captures == "resolve" {
            // "N with a capture pending (R resolved to a quiet position, S skipped)"
            let inner = line
                .split_once("with a capture pending (")
                .and_then(|(_, rest)| rest.split_once(')'))
                .map(|(inner, _)| inner)
                .expect("resolved and skipped counts");
            let counts: Vec<u64> = inner
                .split(", ")
                .filter_map(|f| f.split(' ').next()?.parse().ok())
                .collect();
            let [resolved, skipped] = counts[..] else {
                panic!("{line}")
            };
            assert!(line.contains("resolved to a quiet position"), "{line}");
            assert!(resolved > 0, "{line}");
            assert_eq!(resolved + skipped, n, "{line}");
            resolved_count = resolved;
        } else {
            assert!(line.contains("pending (skipped)"), "{line}");
        }
        let positions: usize = line
            .split("; ")
            .nth(1)
            .and_then(|f| f.split(' ').next())
            .and_then(|n| n.parse().ok())
            .expect("training count");
        kept.push(positions);
    }
    // Resolved capture lines add positions (their quiet ends) to the set:
    // at most one each, as quiet ends can repeat positions already there,
    // and some go to the validation split with their games.
    assert!(
        kept[1] >= kept[0] && kept[1] <= kept[0] + resolved_count as usize,
        "{kept:?}, {resolved_count} resolved"
    );
    // A pattern fit is not pulled by default (the pull held every weight at
    // its start, docs/patterns.md); `--regularize` still sets it.
    for (extra, pull) in [(None, "0"), (Some("250"), "250")] {
        let out = dir.join(format!("p{pull}.patterns"));
        let mut args = vec![
            "tune",
            "--game",
            "bashnya",
            "--eval",
            "patterns",
            "--data",
            data_s,
            "--out",
            out.to_str().unwrap(),
            "--epochs",
            "1",
            "--quiet",
        ];
        if let Some(r) = extra {
            args.extend(["--regularize", r]);
        }
        let o = bushka(&args);
        let text = stdout(&o);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(out.exists(), "{text}");
        let want = format!("pull toward the initial weights: {pull} positions");
        assert!(text.contains(&want), "{text}");
    }
    // Refused before the data is read (a missing data file is not what is
    // named), and no input or output replaced.
    let out = dir.join("w.json");
    let out_s = out.to_str().unwrap();
    let before = std::fs::read(&data).unwrap();
    for (extra, expect) in [
        (
            &["--data", "/nonexistent.data", "--out", out_s, "--lr=0"][..],
            "--lr 0",
        ),
        (
            &[
                "--data",
                "/nonexistent.data",
                "--out",
                out_s,
                "--k",
                "1e300",
            ][..],
            "--k 1e300",
        ),
        (
            &[
                "--data",
                "/nonexistent.data",
                "--out",
                out_s,
                "--lambda",
                "1.5",
            ][..],
            "--lambda 1.5",
        ),
        (
            &["--data", data_s, "--out", data_s][..],
            "name the same file",
        ),
        (
            &["--data", data_s, data_s, "--out", out_s][..],
            "name the same file",
        ),
        (
            &["--data", data_s, "--out", out_s, "--plot", out_s][..],
            "name the same file",
        ),
        (
            &["--data", data_s, "--out", dir.to_str().unwrap()][..],
            "is a folder",
        ),
        (
            &["--data", data_s, "--out", "/nonexistent/w.json"][..],
            "does not exist",
        ),
        // Not a file: the checkpoint, loss table and plot are named after it.
        (
            &["--data", data_s, "--out", "/dev/null"][..],
            "--out /dev/null: not a regular file, and the files written beside it are named after it",
        ),
    ] {
        let mut args = vec!["tune", "--game", "bashnya", "--quiet"];
        args.extend(extra);
        let o = bushka(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(expect), "{extra:?}: {err}");
        assert!(stdout(&o).is_empty(), "{extra:?}: read before refusing");
    }
    assert_eq!(std::fs::read(&data).unwrap(), before);
    assert!(!out.exists());
    // A folder that exists but cannot be written into (/sys, which not
    // even root may write where it is a sysfs): found before the fit,
    // whose weights would be lost.
    if engine::files::writable_dir(std::path::Path::new("/sys")).is_err() {
        let o = bushka(&[
            "tune",
            "--game",
            "bashnya",
            "--quiet",
            "--data",
            data_s,
            "--out",
            "/sys/bushka-w.json",
        ]);
        let err = crate::refusal(&o);
        assert!(
            err.contains("--out /sys/bushka-w.json: cannot write in the folder /sys: "),
            "{err}"
        );
        assert!(stdout(&o).is_empty(), "read before refusing");
    } else {
        eprintln!("skipped: /sys can be written into here");
    }
    // A plot asked for that cannot be drawn costs only the plot, but is an
    // error (exit 2) once the weights are written; the summary names the
    // epoch whose weights are kept.
    let o = bushka(&[
        "tune",
        "--game",
        "bashnya",
        "--data",
        data_s,
        "--out",
        out_s,
        "--epochs",
        "2",
        "--plot",
        &dir.join("plot.txt/").display().to_string(),
        "--quiet",
    ]);
    let text = stdout(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(out.exists(), "{text}");
    let last = err.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: --plot: ")
            && last.ends_with("(the weights and the loss table are written)")
            && !err.contains("panicked"),
        "{err}"
    );
    let loss = text
        .lines()
        .find(|l| l.starts_with("loss: "))
        .expect("loss line");
    let epoch: usize = loss
        .rsplit("(epoch ")
        .next()
        .and_then(|e| e.trim_end_matches(')').parse().ok())
        .expect("the kept epoch");
    let table = std::fs::read_to_string(dir.join("w.json.loss.csv")).unwrap();
    let row: Vec<&str> = table.lines().nth(epoch + 1).unwrap().split(',').collect();
    let train: f64 = row[1].parse().unwrap();
    assert!(
        loss.contains(&format!("-> {train:.6},")),
        "{loss} vs {row:?}"
    );
    // The fit's state is in w.json.checkpoint. A finished fit's is replaced by
    // the same command again; one stopped before its end is not (refused
    // before the data is read), and `--resume` with more epochs goes on to
    // what one run of as many epochs writes.
    let run = |out: &str, epochs: &str, extra: &[&str]| {
        let mut args = vec![
            "tune", "--game", "bashnya", "--data", data_s, "--out", out, "--epochs", epochs,
            "--quiet",
        ];
        args.extend(extra);
        bushka(&args)
    };
    let o = run(out_s, "2", &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ckpt = dir.join("w.json.checkpoint");
    let mut stopped = tuner::Checkpoint::read(&ckpt).unwrap().unwrap();
    assert_eq!((stopped.epoch, stopped.planned), (2, 2));
    stopped.planned = 10;
    stopped.write(&ckpt).unwrap();
    let o = run(out_s, "2", &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("w.json.checkpoint holds a fit stopped at epoch 2 of 10: use --resume"),
        "{err}"
    );
    assert!(stdout(&o).is_empty());
    let o = run(out_s, "4", &["--resume"]);
    let text = stdout(&o);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("2 epochs (resumed after epoch 2)"), "{text}");
    let straight = dir.join("s.json");
    let o = run(straight.to_str().unwrap(), "4", &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&straight).unwrap()
    );
    assert_eq!(
        std::fs::read(dir.join("w.json.loss.csv")).unwrap(),
        std::fs::read(dir.join("s.json.loss.csv")).unwrap()
    );
    // A fit whose output differs only in extension keeps its own state:
    // w.json's checkpoint and loss curve are untouched.
    let (state, curve) = (
        std::fs::read(&ckpt).unwrap(),
        std::fs::read(dir.join("w.json.loss.csv")).unwrap(),
    );
    let other = dir.join("w.txt");
    let o = run(other.to_str().unwrap(), "1", &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(dir.join("w.txt.checkpoint").exists() && dir.join("w.txt.loss.csv").exists());
    assert_eq!(std::fs::read(&ckpt).unwrap(), state);
    assert_eq!(std::fs::read(dir.join("w.json.loss.csv")).unwrap(), curve);
    // A checkpoint under the name earlier builds gave it (OUT's extension
    // replaced) is not passed over by --resume: refused with the new name.
    let moved = dir.join("w.checkpoint");
    std::fs::rename(&ckpt, &moved).unwrap();
    let o = run(out_s, "6", &["--resume"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("rename it to") && err.contains("w.json.checkpoint"),
        "{err}"
    );
    std::fs::rename(&moved, &ckpt).unwrap();
    // Other settings, or a damaged file: refused by name, nothing written.
    let before = std::fs::read(&out).unwrap();
    let o = run(out_s, "6", &["--resume", "--lr", "2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("is of another fit: lr 1.0 there, 2.0 here"),
        "{err}"
    );
    let mut bytes = std::fs::read(&ckpt).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&ckpt, &bytes).unwrap();
    let o = run(out_s, "6", &["--resume"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    let last = err.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with("error: checkpoint "), "{err}");
    assert!(last.contains("w.json.checkpoint: damaged"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), before);
    // A feature fit starts from the feature set the engine plays
    // (data/weights/bashnya.json), not from the pattern set's features: a
    // fit that cannot move writes it back.
    let still = dir.join("still.json");
    let o = run(
        still.to_str().unwrap(),
        "1",
        &["--lr", "1e-9", "--regularize", "0"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        engine::eval::Weights::load(engine::GameKind::Bashnya, &still).unwrap(),
        engine::eval::Weights::default_for(engine::GameKind::Bashnya)
    );
    // `--eval auto` does not say what to fit.
    let o = run(out_s, "1", &["--eval", "auto"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--eval auto: say what to fit"), "{err}");
}

#[test]
fn the_eval_option_chooses_the_evaluation_and_bad_weights_files_are_named() {
    // The default is the pattern evaluation: the same search, the same
    // score; the features search another tree.
    let a = bushka(&["analyze", "--depth", "3"]);
    let b = bushka(&["analyze", "--depth", "3", "--eval", "patterns"]);
    let c = bushka(&["analyze", "--depth", "3", "--eval", "features"]);
    assert!(a.status.success() && b.status.success() && c.status.success());
    // Scores, node counts and lines agree; the times may not.
    let shape = |o: &Output| -> Vec<String> {
        stdout(o)
            .lines()
            .map(|l| {
                let words: Vec<&str> = l.split(' ').collect();
                words
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| {
                        !matches!(words.get(i.wrapping_sub(1)), Some(&"time" | &"nps"))
                    })
                    .map(|(_, w)| *w)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    assert_eq!(shape(&a), shape(&b));
    assert_ne!(shape(&a), shape(&c));
    refused(&["analyze", "--eval", "neural"], "neural");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.patterns");
    let mut bytes = b"BSKPATW\0".to_vec();
    bytes.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
    std::fs::write(&path, &bytes).unwrap();
    let p = path.to_str().unwrap();
    refused(&["analyze", "--depth", "1", "--weights", p], "truncated");
    refused(&["analyze", "--depth", "1", "--weights", p], p);
}

/// Mistakes in naming files or numbers are refused before anything is
/// written, and nothing a user had is lost.
#[test]
fn output_mistakes_are_refused_and_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let (pdn, data) = (path("run.pdn"), path("run.data"));
    let game = |extra: &[&str]| {
        let mut a = vec![
            "selfplay",
            "--engine",
            "name=a,depth=1",
            "--engine",
            "name=b,depth=1",
            "--games",
            "4",
            "--concurrency",
            "1",
            "--quiet",
        ];
        a.extend_from_slice(extra);
        a.iter().map(ToString::to_string).collect::<Vec<String>>()
    };
    // Two outputs named alike would replace one another.
    let same = game(&["--pdn", &pdn, "--json", &pdn]);
    refused(&strs(&same), "name the same file");
    assert!(!std::path::Path::new(&pdn).exists());
    // Nor may an output replace an input: the book, an engine's weights
    // (which two engines may share), the records openings are taken from.
    let (book, w) = (path("book.txt"), path("w.json"));
    std::fs::write(&book, "W:W31,32,33,34,35:B1,2,3,4,5\n").unwrap();
    let weights = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/weights/bushka.json"
    ))
    .unwrap();
    std::fs::write(&w, &weights).unwrap();
    let shared = format!("weights={w}");
    let w_bin = path("w.bin");
    std::fs::write(&w_bin, [0xff, 0xfe, 0x00, 0x80]).unwrap();
    for (extra, expect) in [
        (
            vec!["--openings", &book, "--json", &book],
            "--json and --openings name the same file",
        ),
        (
            vec!["--openings-pdn", &book, "--pdn", &book],
            "--pdn and --openings-pdn name the same file",
        ),
        (
            vec!["--each", &shared, "--data", &w],
            "--data and engine a's weights= name the same file",
        ),
        (vec!["--json", dir.path().to_str().unwrap()], "is a folder"),
        (vec!["--json", "/nonexistent/s.json"], "does not exist"),
        // A book that is not a text file of reasonable size: refused, not
        // read into the memory without end.
        (
            vec!["--openings", "/dev/zero"],
            "longer than 268435456 bytes",
        ),
        (vec!["--openings", &w_bin], "not UTF-8 text"),
    ] {
        refused(&strs(&game(&extra)), expect);
    }
    // The records implied beside --data are named as such.
    let implied = format!("{}.pdn", path("beside.data"));
    std::fs::write(&implied, "").unwrap();
    refused(
        &strs(&game(&[
            "--data",
            &path("beside.data"),
            "--openings-pdn",
            &implied,
        ])),
        "the records beside --data and --openings-pdn name the same file",
    );
    assert_eq!(std::fs::read(&w).unwrap(), weights);
    assert_eq!(
        std::fs::read_to_string(&book).unwrap(),
        "W:W31,32,33,34,35:B1,2,3,4,5\n"
    );
    // Two engines may share their weights, and the summary may go to
    // standard output, whether a file opened to append (`>>`, after what
    // was there) or to write (`>`: the table printed after it follows it):
    // written through the process's own descriptor, never renamed over.
    let args = game(&["--each", &shared, "--json", "/dev/stdout"]);
    for append in [true, false] {
        let log = path("log.txt");
        std::fs::write(&log, "before\n").unwrap();
        let out = std::fs::OpenOptions::new()
            .append(append)
            .write(!append)
            .truncate(!append)
            .open(&log)
            .unwrap();
        let o = Command::new(crate::bin())
            .args(&args)
            .stdout(out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&log).unwrap();
        let json = if append {
            text.strip_prefix("before\n").expect("kept")
        } else {
            &text[..]
        };
        // One summary (none rewritten as the run went), then the table.
        assert_eq!(text.matches("\"resumed\":").count(), 1, "{text}");
        let mut docs = serde_json::Deserializer::from_str(json).into_iter::<serde_json::Value>();
        let summary = docs.next().unwrap().unwrap();
        assert_eq!(summary["games"], 4, "{text}");
        let rest = &json[docs.byte_offset()..];
        assert!(rest.contains("4 games in "), "{text}");
    }
    // So are the game records: the table printed after them follows them.
    let log = path("records.txt");
    let o = Command::new(crate::bin())
        .args(game(&["--pdn", "/dev/stdout"]))
        .stdout(std::fs::File::create(&log).unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("[Event "), "{text}");
    assert_eq!(text.matches("[Result ").count(), 4, "{text}");
    let last = text.rfind("[Result ").unwrap();
    assert!(text[last..].contains("4 games in "), "{text}");
    // A run, then a resume given another PDN file: the data is kept whole.
    let run = game(&["--pdn", &pdn, "--data", &data]);
    let o = bushka(&strs(&run));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let before = std::fs::read_to_string(&data).unwrap();
    assert!(!before.is_empty());
    let typo = path("typo.pdn");
    let wrong = game(&["--pdn", &typo, "--data", &data, "--resume"]);
    refused(
        &strs(&wrong),
        "The data file was not changed (game records: ",
    );
    assert_eq!(std::fs::read_to_string(&data).unwrap(), before);
    // Numbers past any sensible range are named, not wrapped around.
    refused(
        &strs(&game(&["--adjudicate-win", "1,9223372036854775808"])),
        "MOVES must be a whole number from 1 to",
    );
    refused(
        &[
            "atlas",
            "--games",
            "18446744073709551615",
            "--out",
            &path("atlas"),
        ],
        "--games 18446744073709551615",
    );
    // The report of `tactics mine` goes to <out>.md: a set named .md is refused.
    refused(
        &["tactics", "mine", "--pdn", &pdn, "--out", &path("t.md")],
        "the report is written beside the set",
    );
    // A move time no clock could hold is not read as one (a record from
    // elsewhere): the game's clock is not known, and it is refused in one
    // line, not taken as a time.
    let odd = path("odd.pdn");
    std::fs::write(
        &odd,
        "[GameType \"bushka\"]\n[TimeControl \"10\"]\n\n1. e23 {1e20s} 1-0\n\n",
    )
    .unwrap();
    refused(
        &["pdn", "clock", &odd],
        "no game on a clock with the time of every move",
    );
}

/// `bushka openings` can make a book with the material-only evaluation, as
/// the built-in books were made, and its first line says so.
#[test]
fn openings_name_the_evaluation_of_their_balance_check() {
    let o = bushka(&[
        "openings",
        "--count",
        "3",
        "--depth",
        "2",
        "--weights",
        "material",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("with the material-only evaluation"),
        "{text}"
    );
    assert_eq!(lines.len(), 4, "{text}");
    let o = bushka(&["openings", "--count", "3", "--depth", "2"]);
    assert!(stdout(&o)
        .lines()
        .next()
        .unwrap()
        .contains("the default evaluation"));
    refused(
        &["openings", "--weights", "nonexistent.json"],
        "--weights: weights file nonexistent.json:",
    );
    // The book may not replace the weights it is made with.
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w.json");
    let weights = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/weights/bushka.json"
    ))
    .unwrap();
    std::fs::write(&w, &weights).unwrap();
    let w_s = w.to_str().unwrap();
    refused(
        &["openings", "--count", "1", "--weights", w_s, "--out", w_s],
        "--out and --weights name the same file",
    );
    assert_eq!(std::fs::read(&w).unwrap(), weights);
    // Nor is a book made that could not be written where it is named.
    let folder = dir.path().to_str().unwrap();
    refused(
        &["openings", "--count", "1", "--out", folder],
        "is a folder",
    );
    refused(
        &["openings", "--count", "1", "--out", "/nonexistent/b.txt"],
        "the folder /nonexistent does not exist",
    );
}

/// A hash table the memory cannot hold is refused in one line, not by an
/// abort: here the address space is limited to 1 GiB and the table asked
/// for is 4,000 MiB (on a machine with less than 8 GiB the size itself is
/// refused as more than half the memory).
#[test]
fn a_hash_table_beyond_the_memory_is_refused() {
    let bin = env!("CARGO_BIN_EXE_bushka");
    for args in [
        "analyze --depth 1 --hash 4000",
        "selfplay --engine name=a,depth=1,hash=4000 --engine name=b,depth=1 --games 2 --quiet",
    ] {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v 1048576 && exec \"$0\" {args}"))
            .arg(bin)
            .output()
            .expect("run sh");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args}: {err}");
        assert!(err.contains("hash"), "{args}: {err}");
        assert!(!err.contains("memory allocation of"), "{args}: {err}");
    }
    // `tactics solve` searches with a built-in 16 MiB table: under address
    // space limits from too small for the program to run at all to enough
    // for everything, each run either solves, or is refused in one line
    // for its table, never by a panic; some limit reaches the refusal.
    let problems = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/tactics/bushka/tactics.tsv"
    );
    let mut refused = 0;
    for kib in (12_000..=64_000).step_by(2_000) {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v {kib} && exec \"$0\" tactics solve --problems \"$1\" --depth 1"
            ))
            .arg(bin)
            .arg(problems)
            .output()
            .expect("run sh");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{kib} KiB: {err}");
        if err.contains("cannot have 16 MiB of memory for the hash table") {
            assert_eq!(o.status.code(), Some(2), "{kib} KiB: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{kib} KiB: {err}");
            refused += 1;
        }
    }
    assert!(refused > 0, "no limit reached the table");
}
