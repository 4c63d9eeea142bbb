//! `bushka atlas` at small settings: the report's files, a resumed run that
//! measures nothing twice, settings that do not match the folder, bad options.

use std::process::{Command, Output};

fn bushka(args: &[&str]) -> Output {
    Command::new(crate::bin())
        .args(args)
        .output()
        .expect("run bushka")
}

const QUICK: &[&str] = &[
    "atlas",
    "--game",
    "bashnya",
    "--plies",
    "1",
    "--game-depth",
    "1",
    "--games",
    "2",
    "--search-depth",
    "3",
    "--hash",
    "1",
    "--quiet",
];

#[test]
fn atlas_writes_its_report_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a");
    let out_s = out.to_str().unwrap();
    let mut args = QUICK.to_vec();
    args.extend(["--out", out_s]);
    let o = bushka(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("7 of 7 lines measured"));
    for f in [
        "atlas.md",
        "atlas.json",
        "atlas.png",
        "lines.jsonl",
        "settings.txt",
    ] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("atlas.json")).unwrap()).unwrap();
    assert_eq!(json["first_moves"].as_array().unwrap().len(), 7);
    let before = std::fs::read_to_string(out.join("lines.jsonl")).unwrap();
    // Run again: nothing is left to measure, nothing is added.
    let o = bushka(&args);
    assert!(o.status.success());
    assert_eq!(
        std::fs::read_to_string(out.join("lines.jsonl")).unwrap(),
        before
    );
    // Other settings into the same folder are refused.
    let mut other = args.clone();
    assert_eq!(other[9], "--search-depth");
    other[10] = "4";
    let o = bushka(&other);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("other settings"), "{err}");
    // The folder keeps the evaluation its results were measured with: a
    // build with other weights (or one that did not record them) measures
    // nothing into it, and may still write its report.
    let settings = out.join("settings.txt");
    let text = std::fs::read_to_string(&settings).unwrap();
    let eval_line = text.lines().nth(1).unwrap_or_default().to_string();
    assert!(eval_line.starts_with("evaluation patterns "), "{text}");
    let first = text.lines().next().unwrap().to_string();
    for (kept, word, stated) in [
        (
            format!("{first}\nevaluation patterns 0123456789abcdef\n"),
            "another evaluation (patterns 0123456789abcdef; this build's is",
            "Evaluation: `patterns 0123456789abcdef`",
        ),
        (
            format!("{first}\n"),
            "does not record the evaluation",
            "Evaluation: `not recorded`",
        ),
    ] {
        std::fs::write(&settings, &kept).unwrap();
        let o = bushka(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(word), "{err}");
        let mut report = args.clone();
        report.push("--report-only");
        remove_report(&out);
        let o = bushka(&report);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), kept);
        assert_report(&out, stated);
    }
}

/// Removes a folder's report files, so that a report alone must write them.
fn remove_report(out: &std::path::Path) {
    for f in ["atlas.md", "atlas.json", "atlas.png"] {
        std::fs::remove_file(out.join(f)).unwrap();
    }
}

/// The report files are there again, of all seven first moves, and the
/// page states the evaluation the folder records.
fn assert_report(out: &std::path::Path, evaluation: &str) {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("atlas.json")).unwrap()).unwrap();
    assert_eq!(json["first_moves"].as_array().unwrap().len(), 7);
    assert!(std::fs::metadata(out.join("atlas.png")).unwrap().len() > 0);
    let md = std::fs::read_to_string(out.join("atlas.md")).unwrap();
    assert!(md.contains(evaluation), "{evaluation} not in {md}");
}

#[test]
fn atlas_refuses_bad_options_in_one_line() {
    for (extra, word) in [
        (vec!["--plies", "0"], "--plies"),
        (vec!["--plies", "3"], "--plies 3"),
        (vec!["--game-depth", "1", "--games", "4"], "--games 4"),
        (vec!["--shard", "5/4"], "5/4"),
        (vec!["--shard", "x"], "K/N"),
    ] {
        let mut args = vec!["atlas", "--out", "/nonexistent-atlas-dir/x"];
        args.extend(extra);
        let o = bushka(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(word), "{err}");
    }
    // An --out that is a file is named as not a folder.
    let file = tempfile::NamedTempFile::new().unwrap();
    let path = file.path().to_str().unwrap();
    let o = bushka(&["atlas", "--out", path, "--quiet"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end(), format!("error: --out {path}: not a folder"));
}

/// `--eval` chooses the built-in weights of the searches and the games, and
/// the folder records it; a report alone over a folder without settings
/// writes none (it cannot tell what measured the results there), and two
/// runs cannot measure into one results file at once.
#[test]
fn atlas_records_its_evaluation_and_a_report_alone_claims_none() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f");
    let mut args = QUICK.to_vec();
    let out_s = out.to_str().unwrap();
    args.extend(["--out", out_s, "--eval", "features"]);
    let o = bushka(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("settings.txt")).unwrap();
    let mut lines = text.lines();
    assert!(
        lines.next().unwrap().ends_with(" --eval features"),
        "{text}"
    );
    assert!(
        lines.next().unwrap().starts_with("evaluation features "),
        "{text}"
    );
    // The same folder with the default evaluation is another setting.
    let o = bushka(&args[..args.len() - 2]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("other settings"), "{err}");

    // At a fixed depth a line plays one pair unless told otherwise.
    let depth = dir.path().join("depth");
    let mut fixed = QUICK.to_vec();
    let at = fixed.iter().position(|a| *a == "--games").unwrap();
    fixed.drain(at..at + 2);
    fixed.extend(["--out", depth.to_str().unwrap()]);
    let o = bushka(&fixed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(depth.join("settings.txt")).unwrap();
    assert!(text.contains("--game-depth 1 --games 2 "), "{text}");
    // One pair gives no interval: no verdict, no alley, and the report says why.
    let md = std::fs::read_to_string(depth.join("atlas.md")).unwrap();
    assert!(md.contains("None: one pair a line"), "{md}");
    assert!(md.contains(" n/a "), "{md}");

    let bare = dir.path().join("bare");
    let mut report = QUICK.to_vec();
    report.extend(["--out", bare.to_str().unwrap(), "--report-only"]);
    // A report of a folder that is not there (a typo) is refused, and
    // makes none; so is one of a folder that holds no results.
    let o = bushka(&report);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("is not a folder of atlas results"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!bare.exists());
    std::fs::create_dir(&bare).unwrap();
    let o = bushka(&report);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("holds no atlas results"), "{err}");
    assert!(!bare.join("settings.txt").exists() && !bare.join("atlas.md").exists());

    // A results file another run holds is refused, in one line.
    let held = out.join("lines.jsonl");
    let lock = std::fs::OpenOptions::new()
        .append(true)
        .open(&held)
        .unwrap();
    lock.try_lock().unwrap();
    let o = bushka(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("being written by another process"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// Results in a folder without `settings.txt` are not measured into (what
/// measured them is unknown); a report alone of a folder ignores `--eval`
/// (it measures nothing), and names the evaluation its folder records.
#[test]
fn atlas_results_without_settings_are_not_adopted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a");
    let mut args = QUICK.to_vec();
    args.extend(["--out", out.to_str().unwrap()]);
    let o = bushka(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("atlas.md")).unwrap();
    assert!(md.contains("Evaluation: `patterns "), "{md}");
    // A report alone with an `--eval` the folder was not measured with.
    let mut report = args.clone();
    report.extend(["--report-only", "--eval", "features"]);
    remove_report(&out);
    let o = bushka(&report);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The report states the settings the folder records, not the --eval given.
    assert_report(&out, "Evaluation: `patterns ");
    let md = std::fs::read_to_string(out.join("atlas.md")).unwrap();
    assert!(!md.contains("--eval features"), "{md}");
    // An empty settings.txt (a run stopped while writing it) is named.
    let settings = out.join("settings.txt");
    let kept = std::fs::read(&settings).unwrap();
    std::fs::write(&settings, "").unwrap();
    let o = bushka(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("has an empty settings.txt"), "{err}");
    std::fs::write(&settings, kept).unwrap();
    // The results alone, moved to a folder of their own.
    let moved = dir.path().join("b");
    std::fs::create_dir(&moved).unwrap();
    std::fs::copy(out.join("lines.jsonl"), moved.join("lines.jsonl")).unwrap();
    let mut again = QUICK.to_vec();
    again.extend(["--out", moved.to_str().unwrap()]);
    let o = bushka(&again);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("holds atlas results but no settings.txt"),
        "{err}"
    );
    assert!(!moved.join("settings.txt").exists());
}
