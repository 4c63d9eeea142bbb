//! `bushka selfplay --shard K/N` and `bushka selfplay merge`: the shards of a
//! run merge into exactly the unsharded run's files and statistics.

use crate::{bin, run_ok, temp_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

pub(crate) fn run_err(args: &[String]) -> String {
    crate::refusal(&Command::new(bin()).args(args).output().unwrap())
}

/// A depth-limited match (so that every game replays exactly) with an SPRT
/// that cannot decide in so few games, so its LLR is compared too.
pub(crate) fn match_args(seed: u64, games: u64) -> Vec<String> {
    [
        "--engine",
        "name=a,depth=2",
        "--engine",
        "name=b,kind=material,depth=2",
        "--games",
        &games.to_string(),
        "--seed",
        &seed.to_string(),
        "--sprt",
        "elo0=0,elo1=5,alpha=0.05,beta=0.05",
        "--quiet",
    ]
    .map(String::from)
    .to_vec()
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// Runs `selfplay` with `args` and output files `dir/name.{pdn,data,json}`.
fn play(dir: &Path, name: &str, args: &[String], extra: &[&str]) -> PathBuf {
    let mut a = vec!["selfplay".to_string()];
    a.extend(args.iter().cloned());
    a.extend(extra.iter().map(ToString::to_string));
    for (opt, ext) in [("--pdn", "pdn"), ("--data", "data"), ("--json", "json")] {
        a.push(opt.into());
        a.push(s(&dir.join(format!("{name}.{ext}"))));
    }
    run_ok(&a);
    dir.join(format!("{name}.json"))
}

/// The statistics of a summary: everything but the run's identity.
pub(crate) fn statistics(json: &Path) -> Value {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let m = v.as_object_mut().unwrap();
    m.remove("run");
    m.remove("resumed");
    v
}

fn merge(dir: &Path, name: &str, shards: &[PathBuf]) -> Vec<String> {
    let mut a: Vec<String> = ["selfplay", "merge"].map(String::from).to_vec();
    for (opt, ext) in [
        ("--out-pdn", "pdn"),
        ("--out-data", "data"),
        ("--out-json", "json"),
    ] {
        a.push(opt.into());
        a.push(s(&dir.join(format!("{name}.{ext}"))));
    }
    a.extend(shards.iter().map(|p| s(p)));
    a
}

/// Test (1): four shards, each playing its games two at a time, merge into
/// the unsharded run's files byte for byte (the unsharded run plays one game
/// at a time, so its files are in schedule order) and its statistics.
#[test]
fn four_shards_merge_into_the_unsharded_run() {
    four_shards_merge(false);
}

/// The same with `--dedup`: shards write every position and the merge keeps
/// the first of each in schedule order, as the unsharded run does.
#[test]
fn four_shards_merge_into_the_unsharded_run_with_dedup() {
    four_shards_merge(true);
}

fn four_shards_merge(dedup: bool) {
    {
        let dir = temp_dir(&format!("shard-merge-{dedup}"));
        let mut args = match_args(3, 16);
        if dedup {
            args.push("--dedup".into());
        }
        let full = play(&dir, "full", &args, &["--concurrency", "1"]);
        let shards: Vec<PathBuf> = (1..=4)
            .map(|k| {
                let shard = format!("{k}/4");
                play(
                    &dir,
                    &format!("s{k}"),
                    &args,
                    &["--shard", &shard, "--concurrency", "2"],
                )
            })
            .collect();
        // Shards are given in any order.
        let mut given = shards.clone();
        given.reverse();
        let out = run_ok(&merge(&dir, "merged", &given));
        assert!(out.contains("16 games from 4 shard(s)"), "{out}");
        for ext in ["pdn", "data"] {
            let read = |n: &str| std::fs::read_to_string(dir.join(format!("{n}.{ext}"))).unwrap();
            assert!(read("merged") == read("full"), "merged .{ext} differs");
        }
        // Every game has its start position's line, even with --dedup: it
        // names the opening that keeps a pair on one side of the tuner's split.
        let data = std::fs::read_to_string(dir.join("merged.data")).unwrap();
        let mut games = std::collections::BTreeMap::new();
        for line in data
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let d = engine::data::DataLine::parse(line).unwrap();
            *games.entry(d.game.to_string()).or_insert(0) += u32::from(d.ply == 0);
        }
        assert_eq!(games.len(), 16);
        assert!(games.values().all(|&n| n == 1), "{games:?}");
        assert_eq!(statistics(&dir.join("merged.json")), statistics(&full));
        let merged: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("merged.json")).unwrap())
                .unwrap();
        let unsharded: Value =
            serde_json::from_str(&std::fs::read_to_string(&full).unwrap()).unwrap();
        assert_eq!(merged["run"]["id"], unsharded["run"]["id"]);
        assert_eq!(merged["run"]["merged"].as_array().unwrap().len(), 4);
        assert!(merged["sprt"]["llr"].as_f64().unwrap().abs() > 0.0);
        if !dedup {
            // `bushka tune` reads the shard files as it reads the merged one.
            let data_of = |files: Vec<PathBuf>, out: &str| {
                let mut a: Vec<String> = ["tune", "--data"].map(String::from).to_vec();
                a.extend(files.iter().map(|p| s(p)));
                a.extend(
                    ["--out", &s(&dir.join(out)), "--epochs", "1", "--quiet"].map(String::from),
                );
                let out = run_ok(&a);
                out.lines()
                    .find(|l| l.starts_with("data: "))
                    .unwrap_or_else(|| panic!("no data line: {out}"))
                    .to_string()
            };
            let shard_data = (1..=4).map(|k| dir.join(format!("s{k}.data"))).collect();
            assert_eq!(
                data_of(shard_data, "ws.json"),
                data_of(vec![dir.join("merged.data")], "wm.json")
            );
        } else {
            // A game whose lines are missing from a shard's data is named,
            // with --dedup too (it once dropped the game silently).
            let path = dir.join("s1.data");
            let text = std::fs::read_to_string(&path).unwrap();
            let game_of = |l: &str| {
                engine::data::DataLine::parse(l)
                    .ok()
                    .map(|d| d.game.to_string())
            };
            let first = text.lines().find_map(game_of).unwrap();
            let kept: Vec<&str> = text
                .lines()
                .filter(|l| game_of(l).as_deref() != Some(first.as_str()))
                .collect();
            std::fs::write(&path, kept.join("\n") + "\n").unwrap();
            let err = run_err(&merge(&dir, "again", &shards));
            assert!(err.contains(&format!("no data for game {first}")), "{err}");
        }
    }
}

/// Test (5): shards of another run are refused, naming both runs; a
/// missing shard and a repeated one are named.
#[test]
fn merge_refuses_mixed_runs_and_names_missing_and_repeated_shards() {
    let dir = temp_dir("shard-refuse");
    let shard = |seed: u64, k: usize| {
        let part = format!("{k}/3");
        play(
            &dir,
            &format!("seed{seed}-{k}"),
            &match_args(seed, 6),
            &["--shard", &part],
        )
    };
    let (a1, a2, a3) = (shard(1, 1), shard(1, 2), shard(1, 3));
    let b2 = shard(2, 2);
    let err = run_err(&merge(&dir, "m", &[a1.clone(), b2.clone(), a3.clone()]));
    assert!(err.contains("different runs"), "{err}");
    assert!(err.contains(&s(&b2)) && err.contains(&s(&a1)), "{err}");
    let err = run_err(&merge(&dir, "m", &[a1.clone(), a3.clone()]));
    assert!(err.contains("missing shard 2/3"), "{err}");
    let err = run_err(&merge(&dir, "m", &[a1.clone(), a2.clone(), a2.clone(), a3]));
    assert!(err.contains("shard 2/3 given twice"), "{err}");
    assert!(!dir.join("m.pdn").exists(), "nothing written on refusal");
    // With --partial the shards given are merged, and the missing one named.
    let mut partial = merge(&dir, "m", &[a1.clone(), a2.clone()]);
    partial.insert(2, "--partial".into());
    let o = Command::new(bin()).args(&partial).output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("without shard(s) 3/3"));
    assert!(String::from_utf8_lossy(&o.stdout).contains("4 games from 2 shard(s)"));
    // Merging the same run again rewrites its own files...
    let all = [a1.clone(), a2.clone(), dir.join("seed1-3.json")];
    let out = run_ok(&merge(&dir, "m", &all));
    assert!(out.contains("6 games from 3 shard(s)"), "{out}");
    // Every game of a shard names the run, and its slot's engines.
    let pdn3 = dir.join("seed1-3.pdn");
    let kept = std::fs::read_to_string(&pdn3).unwrap();
    let untagged: String = kept
        .lines()
        .filter(|l| !l.starts_with("[RunId "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&pdn3, untagged).unwrap();
    let err = run_err(&merge(&dir, "m4", &all));
    assert!(err.contains("has no [RunId] tag"), "{err}");
    std::fs::write(&pdn3, kept.replacen("[White \"", "[White \"x", 1)).unwrap();
    let err = run_err(&merge(&dir, "m4", &all));
    assert!(err.contains("was played by x"), "{err}");
    std::fs::write(&pdn3, &kept).unwrap();
    assert!(!dir.join("m4.pdn").exists(), "nothing written on refusal");
    // ...but a file holding anything else, or a shard's own file, is left alone.
    std::fs::write(dir.join("other.pdn"), "my notes\n").unwrap();
    let err = run_err(&merge(&dir, "other", &all));
    assert!(err.contains("holds no merge of run"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("other.pdn")).unwrap(),
        "my notes\n"
    );
    // An unrelated data file beside this run's merged records is not theirs.
    std::fs::write(dir.join("mine.data"), "my data\n").unwrap();
    let mut other_data = merge(&dir, "m", &all);
    other_data[5] = s(&dir.join("mine.data"));
    let err = run_err(&other_data);
    assert!(
        err.contains("mine.data exists and no merged summary of run"),
        "{err}"
    );
    let mut onto_shard = merge(&dir, "m2", &all);
    onto_shard[3] = s(&dir.join("seed1-2.pdn"));
    let err = run_err(&onto_shard);
    assert!(err.contains("name the same file"), "{err}");
    // A summary that could not be written is found before the records are.
    let mut nowhere = merge(&dir, "m3", &all);
    nowhere[7] = "/nonexistent/m3.json".into();
    let err = run_err(&nowhere);
    assert!(
        err.contains("--out-json /nonexistent/m3.json: the folder /nonexistent does not exist"),
        "{err}"
    );
    assert!(!dir.join("m3.pdn").exists() && !dir.join("m3.data").exists());
    // A summary edited to hold no openings is refused, not a crash: as it
    // is (its options no longer give its run id), and with the id made to
    // match.
    let text = std::fs::read_to_string(&a1).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["run"]["options"]["openings"] = Value::Array(Vec::new());
    let edited = dir.join("edited.json");
    std::fs::write(&edited, v.to_string()).unwrap();
    let mut a = merge(&dir, "e", std::slice::from_ref(&edited));
    a.insert(2, "--partial".into());
    let o = Command::new(bin()).args(&a).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("edited.json: its options give run id ")
            && err.contains("(changed by hand, or written by another version of the program)"),
        "{err}"
    );
    let options: selfplay::shard::RunOptions =
        serde_json::from_value(v["run"]["options"].clone()).unwrap();
    v["run"]["id"] = Value::String(options.id());
    std::fs::write(&edited, v.to_string()).unwrap();
    let o = Command::new(bin()).args(&a).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.ends_with("error: no openings\n"), "{err}");
}

/// Every shard's PDN, and the unsharded run's, hold the run's games: a merge
/// may rewrite only a PDN (and summary) this run's merged summary names.
/// Shard 1 merged alone onto shard 2's records, or onto the unsharded
/// run's files, is refused and leaves them as they were.
#[test]
fn a_merge_never_writes_over_a_shard_or_the_unsharded_run() {
    let dir = temp_dir("shard-overwrite");
    let args = match_args(5, 4);
    let s1 = play(&dir, "s1", &args, &["--shard", "1/2"]);
    let s2 = play(&dir, "s2", &args, &["--shard", "2/2"]);
    let full = play(&dir, "full", &args, &[]);
    let before: Vec<(PathBuf, Vec<u8>)> = ["s2.pdn", "s2.json", "full.pdn", "full.json"]
        .iter()
        .map(|f| (dir.join(f), std::fs::read(dir.join(f)).unwrap()))
        .collect();
    let onto = |pdn: &str, json: &str| -> Vec<String> {
        vec![
            "selfplay".into(),
            "merge".into(),
            "--partial".into(),
            "--out-pdn".into(),
            s(&dir.join(pdn)),
            "--out-json".into(),
            s(&dir.join(json)),
            s(&s1),
        ]
    };
    // (--partial first says which shard it merges without.)
    let refused = |args: Vec<String>| -> String {
        let o = Command::new(bin()).args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?} should fail");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        let last = err.trim().lines().last().unwrap_or_default().to_string();
        assert!(last.starts_with("error: "), "{err}");
        last
    };
    let err = refused(onto("s2.pdn", "m.json"));
    assert!(
        err.contains("s2.pdn exists and no merged summary of run") && err.contains("a shard's"),
        "{err}"
    );
    let err = refused(onto("m.pdn", "full.json"));
    assert!(
        err.contains("full.json exists and holds no merge of run"),
        "{err}"
    );
    let err = refused(onto("full.pdn", "m.json"));
    assert!(
        err.contains("full.pdn exists and no merged summary"),
        "{err}"
    );
    for (path, bytes) in &before {
        assert_eq!(&std::fs::read(path).unwrap(), bytes, "{}", path.display());
    }
    // A merge of its own is rewritten, and a full merge then goes through.
    run_ok(&onto("m.pdn", "m.json"));
    run_ok(&onto("m.pdn", "m.json"));
    run_ok(&merge(&dir, "all", &[s1, s2]));
    assert_eq!(statistics(&dir.join("all.json")), statistics(&full));
}

/// An SPRT bound that is not a short decimal (Python's `1 - 0.95`) is read
/// back from a shard's summary exactly, so the run id the merge rebuilds
/// from the recorded options is the run's.
#[test]
fn an_sprt_bound_of_many_digits_merges() {
    let dir = temp_dir("shard-float");
    let mut args = match_args(3, 2);
    let at = args.iter().position(|a| a == "--sprt").unwrap();
    args[at + 1] = "elo0=0,elo1=5,alpha=0.050000000000000044,beta=0.05".into();
    let s1 = play(&dir, "s1", &args, &["--shard", "1/1"]);
    let out = run_ok(&merge(&dir, "m", &[s1]));
    assert!(out.contains("2 games from 1 shard(s)"), "{out}");
}

/// A file name that is not UTF-8 is no panic: the merge records its command
/// with replacement characters and writes where it was told.
#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_is_no_panic() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("shard-bytes");
    let s1 = play(&dir, "s1", &match_args(4, 2), &["--shard", "1/1"]);
    let mut name = dir.as_os_str().as_bytes().to_vec();
    name.extend_from_slice(b"/m\xff.pdn");
    let pdn = std::ffi::OsStr::from_bytes(&name);
    let json = dir.join("m.json");
    let o = Command::new(bin())
        .args(["selfplay", "merge", "--out-pdn"])
        .arg(pdn)
        .arg("--out-json")
        .arg(&json)
        .arg(&s1)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(Path::new(pdn).exists());
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let run = &summary["run"];
    let command: Vec<&str> = run["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        command.iter().any(|w| w.ends_with("/m\u{FFFD}.pdn")),
        "{command:?}"
    );
    assert!(
        run["pdn"].as_str().unwrap().ends_with("/m\u{FFFD}.pdn"),
        "{run}"
    );
}

#[test]
fn bad_shards_are_refused_in_one_line() {
    let dir = temp_dir("shard-bad");
    for (bad, says) in [
        ("0/4", "shard 0/4: the part must be between 1 and 4"),
        ("5/4", "shard 5/4: the part must be between 1 and 4"),
        ("x", "expected K/N"),
        ("1/2000000", "a run is cut into at most 1000000 shards"),
        ("4/4", "at most 3 shards"),
    ] {
        let mut a = vec!["selfplay".to_string()];
        a.extend(match_args(1, 6));
        a.extend(["--shard", bad].map(String::from));
        a.extend(
            [
                "--json",
                &s(&dir.join("b.json")),
                "--pdn",
                &s(&dir.join("b.pdn")),
            ]
            .map(String::from),
        );
        let err = run_err(&a);
        assert!(err.contains(says), "{bad}: {err}");
    }
    // A shard that would leave nothing to merge is refused before it plays.
    let (pdn, json) = (s(&dir.join("b.pdn")), s(&dir.join("b.json")));
    for outputs in [vec!["--pdn", &pdn], vec!["--json", &json], vec![]] {
        let mut a = vec!["selfplay".to_string()];
        a.extend(match_args(1, 6));
        a.extend(["--shard", "1/2"].map(String::from));
        a.extend(outputs.iter().map(ToString::to_string));
        let err = run_err(&a);
        assert!(
            err.contains("a shard must write --json and --pdn (or --data)"),
            "{outputs:?}: {err}"
        );
    }
    assert!(!dir.join("b.pdn").exists() && !dir.join("b.json").exists());
    // Shards without data merged with --out-data: refused before the merged
    // records are written.
    let parts: Vec<PathBuf> = (1..=2)
        .map(|k| {
            let mut a = vec!["selfplay".to_string()];
            a.extend(match_args(1, 4));
            a.extend(["--shard".to_string(), format!("{k}/2")]);
            for ext in ["pdn", "json"] {
                a.extend([format!("--{ext}"), s(&dir.join(format!("nd{k}.{ext}")))]);
            }
            run_ok(&a);
            dir.join(format!("nd{k}.json"))
        })
        .collect();
    let err = run_err(&merge(&dir, "nd", &parts));
    assert!(err.contains("shard 1/2 wrote no --data file"), "{err}");
    assert!(!dir.join("nd.pdn").exists() && !dir.join("nd.json").exists());
    // A shard's data file cut short (a line broken) and merged with
    // --out-data: refused before anything is written, so the same merge
    // runs once the file is whole again (the merge into files of its own
    // name, "cut", named in no summary, would otherwise be refused).
    let cut: Vec<PathBuf> = (1..=2)
        .map(|k| {
            play(
                &dir,
                &format!("cut{k}"),
                &match_args(1, 4),
                &["--shard", &format!("{k}/2")],
            )
        })
        .collect();
    let data = dir.join("cut2.data");
    let whole_data = std::fs::read(&data).unwrap();
    let broken = whole_data.len() - 10;
    std::fs::write(&data, &whole_data[..broken]).unwrap();
    let mut no_json = merge(&dir, "cut", &cut);
    let at = no_json.iter().position(|a| a == "--out-json").unwrap();
    no_json.drain(at..at + 2);
    let err = run_err(&no_json);
    assert!(err.contains("cut2.data line"), "{err}");
    for ext in ["pdn", "data", "json"] {
        assert!(
            !dir.join(format!("cut.{ext}")).exists(),
            "cut.{ext} written"
        );
    }
    std::fs::write(&data, &whole_data).unwrap();
    run_ok(&no_json);
    assert!(dir.join("cut.pdn").exists() && dir.join("cut.data").exists());
    // A shard's record that lost its last game names the rounds it lacks;
    // one that is not a file (a pipe, which would never end) is refused.
    let record = dir.join("cut1.pdn");
    let whole_record = std::fs::read_to_string(&record).unwrap();
    let last = whole_record.rfind("[Event ").unwrap();
    std::fs::write(&record, &whole_record[..last]).unwrap();
    // Games are written as they end: the last may be either round.
    let round = whole_record[last..]
        .split("[Round \"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    let err = run_err(&merge(&dir, "short", &cut));
    assert!(
        err.contains(&format!(
            "shard 1/2 has 1 of its 2 games (lacking rounds {round})"
        )),
        "{err}"
    );
    std::fs::remove_file(&record).unwrap();
    crate::mkfifo(&record);
    let err = run_err(&merge(&dir, "pipe", &cut));
    assert!(err.contains("cut1.pdn: not a regular file"), "{err}");
    std::fs::remove_file(&record).unwrap();
    std::fs::write(&record, &whole_record).unwrap();
    // A summary that is a pipe (which would wait for a writer) is refused.
    let pipe = dir.join("pipe.json");
    crate::mkfifo(&pipe);
    let err = run_err(&merge(&dir, "m", &[pipe]));
    assert!(
        err.contains("cannot read shard summary") && err.contains("pipe.json: not a regular file"),
        "{err}"
    );
    // A summary that is not a shard's, and a file that is not a summary.
    let whole = play(&dir, "whole", &match_args(1, 2), &[]);
    let err = run_err(&merge(&dir, "m", &[whole]));
    assert!(err.contains("not of a shard"), "{err}");
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{\"games\": 1}").unwrap();
    let err = run_err(&merge(&dir, "m", &[junk]));
    assert!(err.contains("not a selfplay summary"), "{err}");
}

/// Shards on a clock merge with their time use: the merged summary's clock
/// figures are the shards' together (read back from the records' clock
/// tags, to their three decimals), and the table keeps its clock lines.
#[test]
fn clocked_shards_merge_with_their_time_use() {
    let dir = temp_dir("shard-clock");
    let args: Vec<String> = [
        "--engine",
        "name=a,depth=2,tc=5+0.1",
        "--engine",
        "name=b,depth=1,tc=5+0.1",
        "--games",
        "8",
        "--seed",
        "5",
        "--quiet",
    ]
    .map(String::from)
    .to_vec();
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            play(
                &dir,
                &format!("s{k}"),
                &args,
                &["--shard", &format!("{k}/2")],
            )
        })
        .collect();
    let out = run_ok(&merge(&dir, "merged", &shards));
    assert!(out.contains("clock a: 8 games, 0 lost on time"), "{out}");
    assert!(out.contains("clock b: 8 games, 0 lost on time"), "{out}");
    let read =
        |p: &Path| -> Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap() };
    let merged = read(&dir.join("merged.json"));
    for e in 0..2 {
        let clock = |v: &Value, f: &str| v["engines"][e]["clock"][f].as_f64().unwrap();
        let parts: Vec<Value> = shards.iter().map(|p| read(p)).collect();
        for field in ["games", "forfeits", "allotted"] {
            let sum: f64 = parts.iter().map(|p| clock(p, field)).sum();
            assert!(
                (clock(&merged, field) - sum).abs() < 1e-9,
                "{field}: {merged}"
            );
        }
        let used: f64 = parts.iter().map(|p| clock(p, "used")).sum();
        assert!(used > 0.0);
        assert!(
            (clock(&merged, "used") - used).abs() < 8.0 * 0.001,
            "used: {merged}"
        );
        let most = parts
            .iter()
            .map(|p| clock(p, "max_share"))
            .fold(0.0, f64::max);
        assert!(
            (clock(&merged, "max_share") - most).abs() < 0.01,
            "max_share: {merged}"
        );
    }
}

/// A running shard's file read a part at a time as it grows (what the
/// cluster driver shows every few seconds) gives the games a whole read
/// gives, each once; a game cut short is not counted, and a file written
/// anew is read again from its start.
#[test]
fn a_growing_shard_file_is_followed_a_part_at_a_time() {
    let dir = temp_dir("follow");
    let json = play(&dir, "s1", &match_args(3, 12), &["--shard", "1/2"]);
    let part = selfplay::merge::read_part(&json).unwrap();
    let plan = selfplay::merge::Plan::new(&part.run.options).unwrap();
    let text = std::fs::read_to_string(&part.pdn).unwrap();
    let games = selfplay::output::complete_games(&text);
    assert!(games.len() >= 4 && text.is_ascii(), "{}", games.len());
    let whole = plan.read_results(part.shard, &part.pdn, true).unwrap();
    let growing = dir.join("growing.pdn");
    let mut f = selfplay::merge::Following::new(part.shard);
    let follow = |f: &mut selfplay::merge::Following, text: &str| {
        std::fs::write(&growing, text).unwrap();
        plan.follow_results(part.shard, &growing, f).unwrap();
        f.results.games()
    };
    let mut written = String::new();
    for (i, g) in games.iter().enumerate() {
        assert_eq!(
            follow(&mut f, &format!("{written}{}", &g[..g.len() / 2])),
            i
        );
        written.push_str(g);
        assert_eq!(follow(&mut f, &written), i + 1);
    }
    // Read again unchanged: nothing counted twice.
    assert_eq!(follow(&mut f, &written), games.len());
    assert_eq!(
        plan.progress_message([&f.results]),
        plan.progress_message([&whole])
    );
    // Written anew, shorter than what was read, then longer with other
    // games before the read position: read again from the start.
    assert_eq!(follow(&mut f, &games[1..].concat()), games.len() - 1);
    assert_eq!(follow(&mut f, games[0]), 1);
    let reordered: String = games.iter().rev().copied().collect::<String>() + games[0];
    assert_eq!(follow(&mut f, &games[..2].concat()), 2);
    assert_eq!(follow(&mut f, &reordered), games.len());
    // A game of another shard: an error, and nothing taken.
    let other = play(&dir, "s2", &match_args(3, 12), &["--shard", "2/2"]);
    let other = selfplay::merge::read_part(&other).unwrap();
    let theirs = std::fs::read_to_string(&other.pdn).unwrap();
    let theirs = selfplay::output::complete_games(&theirs)[0].to_string();
    assert_eq!(follow(&mut f, games[0]), 1);
    std::fs::write(&growing, format!("{}{theirs}", games[0])).unwrap();
    let err = plan
        .follow_results(part.shard, &growing, &mut f)
        .unwrap_err();
    assert!(err.contains("is not part of shard 1/2"), "{err}");
    assert_eq!(f.results.games(), 1);
    // A pipe is refused unopened (opening it would wait for a writer).
    let fifo = dir.join("fifo.pdn");
    crate::mkfifo(&fifo);
    let err = plan.follow_results(part.shard, &fifo, &mut f).unwrap_err();
    assert!(err.contains("not a regular file"), "{err}");
}
