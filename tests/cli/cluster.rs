//! `bushka cluster selfplay` through the one-node Slurm cluster of
//! `scripts/slurm-local.sh` (started by `.ci/run`). Without Slurm the tests
//! say why and pass, except under CI=true, where they fail.

use crate::shard::{match_args, statistics};
use crate::{bin, run_ok, temp_dir};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The local cluster's configuration when it is up; otherwise the reason
/// is printed and the test skips (or fails under CI=true).
fn slurm() -> Option<PathBuf> {
    let conf = std::env::var_os("SLURM_CONF").map_or_else(
        || {
            let dir = std::env::var_os("BUSHKA_SLURM_DIR")
                .map_or_else(|| PathBuf::from("/tmp/bushka-slurm"), PathBuf::from);
            dir.join("slurm.conf")
        },
        PathBuf::from,
    );
    let why = match Command::new("sinfo")
        .args(["-h", "-o", "%T"])
        .env("SLURM_CONF", &conf)
        .output()
    {
        Err(_) => "sbatch/sinfo not found (apt-get install slurm-wlm munge)".to_string(),
        Ok(o) if !o.status.success() || !conf.exists() => format!(
            "the local Slurm cluster is not up ({}; start it with scripts/slurm-local.sh start)",
            conf.display()
        ),
        Ok(_) => return Some(conf),
    };
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true needs Slurm: {why}"
    );
    eprintln!("skipped: {why}");
    None
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// `cluster selfplay` with the match, its outputs in `dir`.
fn cluster_args(dir: &Path, args: &[String], shards: u32, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = ["cluster", "selfplay"].map(String::from).to_vec();
    a.extend(args.iter().cloned());
    a.extend(
        [
            "--shards",
            &shards.to_string(),
            "--dir",
            &s(&dir.join("run")),
            "--pdn",
            &s(&dir.join("merged.pdn")),
            "--data",
            &s(&dir.join("merged.data")),
            "--json",
            &s(&dir.join("merged.json")),
            "--poll",
            "0.1",
        ]
        .map(String::from),
    );
    a.extend(extra.iter().map(ToString::to_string));
    a
}

/// The unsharded run on this machine, one game at a time.
fn unsharded(dir: &Path, args: &[String]) {
    let mut a = vec!["selfplay".to_string()];
    a.extend(args.iter().cloned());
    a.extend(["--concurrency", "1"].map(String::from));
    for (opt, ext) in [("--pdn", "pdn"), ("--data", "data"), ("--json", "json")] {
        a.push(opt.into());
        a.push(s(&dir.join(format!("full.{ext}"))));
    }
    run_ok(&a);
}

fn assert_same_as_unsharded(dir: &Path) {
    for ext in ["pdn", "data"] {
        let read = |n: &str| std::fs::read_to_string(dir.join(format!("{n}.{ext}"))).unwrap();
        assert!(read("merged") == read("full"), "merged .{ext} differs");
    }
    assert_eq!(
        statistics(&dir.join("merged.json")),
        statistics(&dir.join("full.json"))
    );
}

fn cluster_cmd(conf: &Path, args: &[String]) -> Command {
    let mut c = Command::new(bin());
    c.args(args).env("SLURM_CONF", conf);
    c
}

/// Test (2): four shards through Slurm merge into the unsharded run.
#[test]
fn a_four_shard_cluster_run_merges_into_the_unsharded_run() {
    let Some(conf) = slurm() else { return };
    let dir = temp_dir("cluster-4");
    let args = match_args(3, 24);
    unsharded(&dir, &args);
    let o = cluster_cmd(&conf, &cluster_args(&dir, &args, 4, &[]))
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{err}");
    assert!(out.contains("24 games from 4 of 4 shards"), "{out}");
    assert_same_as_unsharded(&dir);
    // Started again, it finds every shard finished and submits nothing.
    let o = cluster_cmd(&conf, &cluster_args(&dir, &args, 4, &[]))
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stderr).contains("submitted"));
    assert_same_as_unsharded(&dir);
    // Another run in the same folder is refused.
    let o = cluster_cmd(&conf, &cluster_args(&dir, &match_args(4, 24), 4, &[]))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("use another --dir"));
}

/// A driver a test started and waits for. Dropped before (a failed
/// assertion), it is killed and its jobs are cancelled, so that nothing of
/// the test runs on in the queue or writes into its removed folder.
struct Started {
    child: Option<std::process::Child>,
    conf: PathBuf,
    /// Its jobs' name, once noted.
    name: Option<String>,
}

impl Started {
    /// Waits for the driver to end; its output.
    fn output(mut self) -> std::process::Output {
        let child = self.child.take().expect("a running driver");
        child.wait_with_output().unwrap()
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = child.kill();
        let _ = child.wait();
        if let Some(name) = &self.name {
            let _ = Command::new("scancel")
                .arg(format!("--name={name}"))
                .env("SLURM_CONF", &self.conf)
                .status();
        }
    }
}

/// The driver's notes, line by line, as it runs.
fn notes(child: &mut std::process::Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    rx
}

/// [`match_args`] at depth 3: games long enough for a shard to be caught
/// running.
fn depth3_match_args(seed: u64, games: u64) -> Vec<String> {
    match_args(seed, games)
        .into_iter()
        .map(|a| a.replace("depth=2", "depth=3"))
        .collect()
}

fn complete_games(pdn: &Path) -> usize {
    std::fs::read_to_string(pdn).map_or(0, |t| t.matches("\n\n[Event").count())
}

/// Test (3): a shard cancelled with `scancel` after its first games is
/// submitted again, resumes, and the merged run is still the unsharded one.
#[test]
fn a_shard_killed_by_scancel_is_resubmitted_and_nothing_changes() {
    let Some(conf) = slurm() else { return };
    let dir = temp_dir("cluster-kill");
    let args = depth3_match_args(5, 32);
    unsharded(&dir, &args);
    let child = cluster_cmd(&conf, &cluster_args(&dir, &args, 2, &[]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut driver = Started {
        child: Some(child),
        conf: conf.clone(),
        name: None,
    };
    let rx = notes(driver.child.as_mut().unwrap());
    let first = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    let name = first
        .split('(')
        .nth(1)
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no job name in '{first}'"))
        .to_string();
    driver.name = Some(name.clone());
    // Shard 2's job is found in the queue first, so that the cancel follows
    // its first finished game at once: a shard of depth-3 games ends within
    // a second, and a queue query between the game and the cancel could
    // outlast the rest of it.
    let t = Instant::now();
    let job = loop {
        let q = Command::new("squeue")
            .args(["-h", "-r", "--name", &name, "-o", "%i|%K"])
            .env("SLURM_CONF", &conf)
            .output()
            .unwrap();
        let listing = String::from_utf8_lossy(&q.stdout).into_owned();
        if let Some(job) = listing.lines().find_map(|l| l.strip_suffix("|2")) {
            break job.to_string();
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "shard 2 not in the queue: {listing}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // Shard 2 is cancelled once it has written a game and before its summary.
    let pdn = dir.join("run").join("shard-2.pdn");
    let t = Instant::now();
    while complete_games(&pdn) < 1 && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let killed_at = complete_games(&pdn);
    let status = Command::new("scancel")
        .arg(&job)
        .env("SLURM_CONF", &conf)
        .status()
        .unwrap();
    assert!(
        !dir.join("run").join("shard-2.json").exists(),
        "shard 2 ended too soon to kill"
    );
    assert!(status.success());
    let out = driver.output();
    // Every line: the reader ends when the exited run's stderr closes.
    let err: Vec<String> = rx.iter().collect();
    assert!(
        out.status.success(),
        "{err:?} {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        err.iter()
            .any(|l| l.contains("shard 2/2") && l.contains("again")),
        "{err:?}"
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("32 games from 2 of 2 shards"), "{summary}");
    assert!(summary.contains("1 resubmission"), "{summary}");
    assert!(killed_at < 16, "shard 2 finished before the kill");
    assert_same_as_unsharded(&dir);
}

/// Test (4): an SPRT run stops by itself after a wave and cancels the shards
/// still queued.
#[test]
fn an_sprt_run_stops_by_itself_and_cancels_pending_shards() {
    let Some(conf) = slurm() else { return };
    let dir = temp_dir("cluster-sprt");
    let args: Vec<String> = [
        "--engine",
        "name=a,depth=2",
        "--engine",
        "name=r,kind=random",
        "--games",
        "96",
        "--sprt",
        "elo0=0,elo1=20,alpha=0.05,beta=0.05",
        "--quiet",
    ]
    .map(String::from)
    .to_vec();
    let o = cluster_cmd(&conf, &cluster_args(&dir, &args, 12, &["--wave", "2"]))
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{err}");
    assert!(err.contains("SPRT: H1 accepted after shards 1-"), "{err}");
    assert!(out.contains("the remaining shards were cancelled"), "{out}");
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("merged.json")).unwrap()).unwrap();
    let games = merged["games"].as_u64().unwrap();
    assert!(
        games < 96 && games.is_multiple_of(16),
        "{games} games: whole waves of 2 shards of 8"
    );
    assert!(merged["sprt"]["status"]
        .as_str()
        .unwrap()
        .starts_with("H1 accepted at"));
    assert_eq!(
        merged["run"]["merged"].as_array().unwrap().len() as u64,
        games / 8
    );
    // Nothing of the run is left in the queue: its jobs' name, as the driver
    // noted it, is the run's id and its folder's (another run of this test
    // at the same time has the same id but another folder).
    let name = err
        .lines()
        .find_map(|l| {
            l.strip_prefix("submitted shards ")
                .and_then(|rest| rest.rsplit_once(" ("))
                .and_then(|(_, name)| name.strip_suffix(')'))
        })
        .unwrap_or_else(|| panic!("no job name noted: {err}"))
        .to_string();
    let t = Instant::now();
    loop {
        let q = Command::new("squeue")
            .args(["-h", "-r", "-o", "%j|%K|%T"])
            .env("SLURM_CONF", &conf)
            .output()
            .unwrap();
        let left: Vec<String> = String::from_utf8_lossy(&q.stdout)
            .lines()
            .filter(|l| l.starts_with(&format!("{name}|")) && !l.ends_with("COMPLETING"))
            .map(String::from)
            .collect();
        if left.is_empty() {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "still queued: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A driver killed mid-run and started again keeps the finished shards,
/// adopts the queued ones and submits nothing twice.
#[test]
fn a_restarted_driver_submits_only_what_is_missing() {
    let Some(conf) = slurm() else { return };
    let dir = temp_dir("cluster-restart");
    let args = depth3_match_args(6, 32);
    unsharded(&dir, &args);
    let run = cluster_args(&dir, &args, 4, &["--wave", "1"]);
    let mut child = cluster_cmd(&conf, &run)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !dir.join("run").join("shard-1.json").exists() && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    // A second driver on the folder while the first runs is refused.
    let second = cluster_cmd(&conf, &run).output().unwrap();
    let err = crate::refusal(&second);
    assert!(
        err.contains("driver.lock is being written by another process"),
        "{err}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !dir.join("run").join("shard-4.json").exists(),
        "the run ended before the driver was killed"
    );
    let o = cluster_cmd(&conf, &run).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        !err.contains("submitted") && !err.contains("again"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("0 resubmission(s)"));
    assert_same_as_unsharded(&dir);
}

/// A binary built for a newer processor than the node's names what the node
/// lacks in one line and exits with status 3 (pretended here with
/// BUSHKA_CPU_LACKS, as the build machine has everything it was built for).
#[test]
fn a_processor_lacking_the_build_instructions_gets_one_line() {
    let o = Command::new(bin())
        .args(["moves"])
        .env("BUSHKA_CPU_LACKS", "popcnt,sse4.2,avx2,bmi2")
        .output()
        .unwrap();
    if !cfg!(any(
        target_feature = "popcnt",
        target_feature = "sse4.2",
        target_feature = "avx2",
        target_feature = "bmi2"
    )) {
        assert!(o.status.success(), "a baseline build runs anywhere");
        return;
    }
    assert_eq!(o.status.code(), Some(3));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("lacks them") && err.contains("popcnt"),
        "{err}"
    );
}

/// A state file that cannot be read is no fresh start (it would be written
/// over): the driver stops with one line before it asks Slurm anything.
#[test]
fn an_unreadable_state_file_is_refused() {
    let dir = temp_dir("cluster-unreadable");
    std::fs::create_dir_all(dir.join("run").join("cluster.json")).unwrap();
    let o = Command::new(bin())
        .args(cluster_args(&dir, &match_args(3, 8), 2, &[]))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot read") && err.contains("cluster.json"),
        "{err}"
    );
    // A poll of no time is refused as such, before Slurm is asked.
    let mut args = cluster_args(&dir, &match_args(3, 8), 2, &[]);
    let at = args.iter().position(|a| a == "--poll").unwrap();
    args[at + 1] = "0".into();
    let o = Command::new(bin()).args(&args).output().unwrap();
    let err = crate::refusal(&o);
    assert!(
        err.contains("--poll 0: expected more than 0 and at most 3600 seconds"),
        "{err}"
    );
    // More shards than the command takes (100,000), however many games.
    let mut args = match_args(3, 8);
    let at = args.iter().position(|a| a == "--games").unwrap();
    args[at + 1] = "1000000".into();
    let o = Command::new(bin())
        .args(cluster_args(&dir, &args, 100_001, &[]))
        .output()
        .unwrap();
    let err = crate::refusal(&o);
    assert!(err.contains("100001 is not in 1..=100000"), "{err}");
}
