//! Running the shards of a run on a Slurm cluster: job arrays submitted with
//! `sbatch`, followed with `squeue`, cancelled with `scancel`, and merged
//! ([`crate::merge`]) as shards finish.
//!
//! Every shard job runs `bushka selfplay ... --shard K/N --resume` into the
//! run's folder. A shard counts as finished only once its summary exists
//! (written atomically after its last game). A shard whose job is gone from
//! the queue without its summary (failed, cancelled, timed out, its node
//! lost) is submitted again, up to a limit; the new job resumes from the
//! complete games already written, so no game is lost or counted twice. The
//! driver keeps no job ids: the jobs of a run are found by their name (the
//! run id and a hash of the folder), so a driver that was killed and started
//! again adopts the jobs still queued and submits only what is missing.
//!
//! With an SPRT, shards run `wave` at a time (an array throttle) and the
//! test is decided after each whole wave, on the shards 1..=k·wave: the
//! result is then exactly the unsharded run's first games, whatever the
//! order shards finished in. When it decides, the run's jobs still queued or
//! running are cancelled; shards past the deciding wave are not counted.

use crate::merge::{check, merge, read_part, Following, MergeOutputs, Plan, ShardResults};
use crate::shard::{RunInfo, Shard};
use crate::stats::SprtStatus;
use crate::tournament::{Decision, Summary};
use engine::Game;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How to run a sharded selfplay on the cluster.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    /// The run's folder (on a filesystem the nodes share): job script,
    /// shard files, logs, state.
    pub dir: PathBuf,
    /// Shards the run is cut into.
    pub shards: usize,
    /// Shards running at once; with an SPRT, the test is decided after each
    /// whole wave.
    pub wave: usize,
    /// The Slurm partition, if not the default one.
    pub partition: Option<String>,
    /// Further `sbatch` options, word by word.
    pub sbatch_args: Vec<String>,
    /// Times a shard is submitted again after its job ended without it.
    pub retries: u32,
    /// Time between looks at the queue.
    pub poll: Duration,
    /// Games each shard plays at once (and CPUs it asks for).
    pub cpus: usize,
    /// The program the jobs run (this one, on a shared filesystem).
    pub program: PathBuf,
    /// The `selfplay` options of the run, without shard, output files,
    /// concurrency, resume or progress options.
    pub selfplay_args: Vec<String>,
    /// Shards write training data (merged into `outputs.data`).
    pub data: bool,
    /// The merged files.
    pub outputs: MergeOutputs,
    /// Show a progress bar.
    pub progress: bool,
}

/// Consecutive failed looks at the queue before the driver gives up.
const QUEUE_FAILURES: u32 = 10;

/// How a cluster run ended.
#[derive(Clone, Debug)]
pub struct ClusterOutcome {
    /// The merged summary.
    pub summary: Summary,
    /// Shards merged.
    pub merged: usize,
    /// Shard submissions after a job ended without its summary.
    pub resubmitted: usize,
    /// Whether queued or running jobs were cancelled after an SPRT decision.
    pub cancelled: bool,
}

/// What the driver keeps between runs (`cluster.json` in its folder): the
/// run it belongs to and how often each shard was submitted.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    run: String,
    shards: usize,
    submissions: BTreeMap<usize, u32>,
    /// The last job (array job id) each shard was submitted in.
    #[serde(default)]
    jobs: BTreeMap<usize, u64>,
}

impl State {
    /// A fresh state for run `run` in `shards` shards.
    pub fn new(run: &str, shards: usize) -> State {
        State {
            run: run.to_string(),
            shards,
            ..State::default()
        }
    }

    /// Reads a state file's text, refusing one of another run or cut into
    /// other shards, and one that names a shard the run does not have. Text
    /// from the file is escaped in the error.
    pub fn parse(text: &str, run: &str, shards: usize) -> Result<State, String> {
        let state: State = serde_json::from_str(text).map_err(|e| {
            format!(
                "not a cluster state file: {}",
                engine::files::quoted(&e.to_string(), 400)
            )
        })?;
        if state.run != run || state.shards != shards {
            return Err(format!(
                "the state of run {} in {} shards, not of this run ({} in {shards} shards): use another --dir",
                engine::files::quoted(&state.run, 40),
                state.shards,
                engine::files::quoted(run, 40),
            ));
        }
        let named = state.submissions.keys().chain(state.jobs.keys());
        if let Some(k) = named.into_iter().find(|k| !(1..=shards).contains(*k)) {
            return Err(format!(
                "not a cluster state file: it names shard {k} of a run in {shards} shards"
            ));
        }
        Ok(state)
    }

    /// The state file's text, as [`State::parse`] reads it.
    pub fn to_json(&self) -> String {
        // Maps keyed by integers and plain values: writing cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// A word quoted for `sh`.
fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,%+@".contains(&b))
    {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// 64-bit FNV-1a of a text (for the folder's part of the job name).
fn short_hash(text: &str) -> String {
    let h = engine::zobrist::fnv1a(engine::zobrist::FNV1A_START, text.as_bytes());
    format!("{:06x}", h & 0xff_ffff)
}

/// One run of an external command; its standard output, or an error that
/// names the command and what it said.
fn command_output(program: &str, args: &[String]) -> Result<String, String> {
    let out = Command::new(program).args(args).output().map_err(|e| {
        format!("cannot run {program}: {e} (is Slurm installed and SLURM_CONF set?)")
    })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "{program} {} failed: {}",
            args.join(" "),
            engine::files::quoted(err.trim().lines().next().unwrap_or("no message"), 200)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// An array task in the queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// Its state (`PENDING`, `RUNNING`, ...).
    pub state: String,
    /// Why it waits, as `squeue` gives it (`Priority`, `JobHeldAdmin`, ...;
    /// empty when not given).
    pub reason: String,
}

impl Task {
    /// Held: it will not run until someone releases it (a launch that
    /// failed and was queued again held, or a hold put by a user or an
    /// administrator).
    pub fn held(&self) -> bool {
        self.state == "PENDING" && self.reason.to_ascii_lowercase().contains("held")
    }
}

/// The tasks of a job name's array in the queue, by task id, from
/// `squeue -h -r -o %K|%T|%r` lines.
pub fn parse_squeue(text: &str) -> HashMap<usize, Task> {
    text.lines()
        .filter_map(|l| {
            let mut fields = l.trim().splitn(3, '|');
            let task = fields.next()?.trim().parse().ok()?;
            let state = fields.next()?.trim().to_string();
            let reason = fields.next().unwrap_or("").trim().to_string();
            Some((task, Task { state, reason }))
        })
        .collect()
}

/// The job id `sbatch --parsable` printed (`ID` or `ID;CLUSTER`).
pub fn parse_sbatch(text: &str) -> Result<u64, String> {
    let first = text.trim().split(';').next().unwrap_or("");
    first.parse().map_err(|_| {
        format!(
            "sbatch answered '{}', not a job id",
            engine::files::quoted(text.trim(), 200)
        )
    })
}

/// Array ranges for `sbatch --array`: `1-3,5,7-8`.
pub fn array_list(shards: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < shards.len() {
        let mut j = i;
        while j + 1 < shards.len() && shards[j + 1] == shards[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            shards[i].to_string()
        } else {
            format!("{}-{}", shards[i], shards[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// How an array task ended, from `sacct` (`CANCELLED by 0, exit 0:15`),
/// when the cluster keeps accounting; `None` when it does not.
fn accounting(job: u64, task: usize) -> Option<String> {
    let (state, exit) = accounting_fields(job, task)?;
    let q = |t: &str| engine::files::quoted(t, 40);
    Some(format!("sacct: {}, exit {}", q(&state), q(&exit)))
}

/// A task's state and exit code as `sacct` has them, where accounting runs.
fn accounting_fields(job: u64, task: usize) -> Option<(String, String)> {
    let args = [
        "-n".to_string(),
        "-P".into(),
        "-X".into(),
        "-j".into(),
        format!("{job}_{task}"),
        "-o".into(),
        "State,ExitCode".into(),
    ];
    let out = command_output("sacct", &args).ok()?;
    let line = out.lines().next()?.trim().to_string();
    let (state, exit) = line.split_once('|')?;
    Some((state.trim().to_string(), exit.trim().to_string()))
}

/// The driver of one run.
struct Driver<'a> {
    /// `DIR/driver.lock`, held while the driver runs.
    _lock: std::fs::File,
    cfg: &'a ClusterConfig,
    run: &'a RunInfo,
    plan: Plan,
    name: String,
    state: State,
    /// Results of finished shards, by index.
    done: BTreeMap<usize, ShardResults>,
    /// The games of shards still running, read as their files grow.
    running: HashMap<usize, Following>,
    resubmitted: usize,
    /// Held shards already reported.
    held_told: HashSet<usize>,
    /// Shards whose job completed without error but whose summary is not
    /// seen yet, since when.
    completed_unseen: HashMap<usize, Instant>,
}

/// How long a shard whose job completed without error is waited for before
/// it is submitted again: its summary, written on another node, may take
/// that long to be seen through a network file system's cache.
const SUMMARY_GRACE: Duration = Duration::from_secs(120);

/// The jobs' name: the run's id and a hash of the run folder, resolved
/// (links, `..`, a trailing slash), so that a driver started again finds its
/// jobs however the folder is spelt.
fn job_name(run_id: &str, dir: &Path) -> String {
    let dir = dir
        .canonicalize()
        .or_else(|_| std::path::absolute(dir))
        .unwrap_or_else(|_| dir.to_path_buf());
    format!(
        "bushka-{}-{}",
        &run_id[..8.min(run_id.len())],
        short_hash(&dir.display().to_string())
    )
}

impl<'a> Driver<'a> {
    fn new(cfg: &'a ClusterConfig, run: &'a RunInfo) -> Result<Self, String> {
        let plan = Plan::new(&run.options)?;
        let pairs = plan.games() / 2;
        let most = pairs.min(crate::shard::MAX_SHARDS);
        if cfg.shards == 0 || cfg.shards > most {
            return Err(format!(
                "--shards {}: the run has {pairs} game pairs, so 1 to {most} shards{}",
                cfg.shards,
                if most < pairs {
                    " (the most a run is cut into)"
                } else {
                    ""
                }
            ));
        }
        std::fs::create_dir_all(cfg.dir.join("logs"))
            .map_err(|e| format!("cannot create {}: {e}", cfg.dir.display()))?;
        // One driver a folder: a second would submit every shard again and
        // write the state over the first's.
        let lock = engine::files::lock_exclusive(&cfg.dir.join("driver.lock"))?;
        let name = job_name(&run.id, &cfg.dir);
        let state = Self::load_state(cfg, run)?;
        Ok(Driver {
            _lock: lock,
            cfg,
            run,
            plan,
            name,
            state,
            done: BTreeMap::new(),
            running: HashMap::new(),
            resubmitted: 0,
            held_told: HashSet::new(),
            completed_unseen: HashMap::new(),
        })
    }

    fn state_path(cfg: &ClusterConfig) -> PathBuf {
        cfg.dir.join("cluster.json")
    }

    /// The folder's state; refuses a folder that holds another run.
    fn load_state(cfg: &ClusterConfig, run: &RunInfo) -> Result<State, String> {
        let path = Self::state_path(cfg);
        let text = match engine::files::read_regular_to_string(&path, engine::files::MAX_TEXT_FILE)
        {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(State::new(&run.id, cfg.shards))
            }
            // Anything else is no fresh start: the file would be written over.
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        State::parse(&text, &run.id, cfg.shards).map_err(|e| format!("{}: {e}", path.display()))
    }

    fn save_state(&self) -> Result<(), String> {
        crate::output::write_atomic(&Self::state_path(self.cfg), &self.state.to_json())
    }

    fn file(&self, k: usize, ext: &str) -> PathBuf {
        self.cfg.dir.join(format!("shard-{k}.{ext}"))
    }

    /// The job script: the same program playing shard `$SLURM_ARRAY_TASK_ID`.
    fn write_script(&self) -> Result<PathBuf, String> {
        let dir = std::path::absolute(&self.cfg.dir).unwrap_or_else(|_| self.cfg.dir.clone());
        let d = |k: &str| quote(&dir.join(k).display().to_string());
        let n = self.cfg.shards;
        let mut cmd: Vec<String> = vec![quote(&self.cfg.program.display().to_string())];
        cmd.push("selfplay".into());
        cmd.extend(self.cfg.selfplay_args.iter().map(|a| quote(a)));
        cmd.push(format!("--shard \"$K/{n}\""));
        cmd.push(format!("--pdn {}\"$K\".pdn", d("shard-")));
        if self.cfg.data {
            cmd.push(format!("--data {}\"$K\".data", d("shard-")));
        }
        cmd.push(format!("--json {}\"$K\".json", d("shard-")));
        cmd.push(format!("--concurrency {} --resume --quiet", self.cfg.cpus));
        let text = format!(
            "#!/bin/sh\n# Shard $SLURM_ARRAY_TASK_ID of run {} ({} shards): written by bushka cluster selfplay.\nK=${{SLURM_ARRAY_TASK_ID:?this script runs as a Slurm array task}}\nexec {}\n",
            self.run.id,
            n,
            cmd.join(" \\\n  ")
        );
        let path = self.cfg.dir.join("shard.sh");
        crate::output::write_atomic(&path, &text)?;
        Ok(path)
    }

    /// The run's tasks in the queue, by shard.
    fn queued(&self) -> Result<HashMap<usize, Task>, String> {
        let args: Vec<String> = ["-h", "-r", "--name", &self.name, "-o", "%K|%T|%r"]
            .map(String::from)
            .to_vec();
        Ok(parse_squeue(&command_output("squeue", &args)?))
    }

    /// Finished shards not yet read: a valid summary of this run and shard.
    fn collect_finished(&mut self) -> Result<(), String> {
        for k in 1..=self.cfg.shards {
            if self.done.contains_key(&k) {
                continue;
            }
            let json = self.file(k, "json");
            if !json.exists() {
                continue;
            }
            let part = read_part(&json)?;
            let shard = Shard::new(k, self.cfg.shards)?;
            if part.run.id != self.run.id || part.shard != shard {
                return Err(format!(
                    "{} is shard {} of run {}, not shard {shard} of run {}",
                    json.display(),
                    part.shard,
                    part.run.id,
                    self.run.id
                ));
            }
            let results = self.plan.read_results(shard, &part.pdn, true)?;
            self.done.insert(k, results);
        }
        Ok(())
    }

    /// Submits the shards as one job array, `wave` at a time.
    fn submit(&mut self, script: &Path, shards: &[usize]) -> Result<u64, String> {
        let dir = std::path::absolute(&self.cfg.dir).unwrap_or_else(|_| self.cfg.dir.clone());
        let cwd = std::env::current_dir().map_err(|e| format!("no working folder: {e}"))?;
        let mut args: Vec<String> = vec![
            "--parsable".into(),
            format!("--job-name={}", self.name),
            format!("--array={}%{}", array_list(shards), self.cfg.wave),
            format!(
                "--output={}",
                dir.join("logs").join("shard-%a.%A.out").display()
            ),
            format!("--cpus-per-task={}", self.cfg.cpus),
            format!("--chdir={}", cwd.display()),
        ];
        if let Some(p) = &self.cfg.partition {
            args.push(format!("--partition={p}"));
        }
        args.extend(self.cfg.sbatch_args.iter().cloned());
        args.push(script.display().to_string());
        let job = parse_sbatch(&command_output("sbatch", &args)?)?;
        for k in shards {
            let n = self.state.submissions.entry(*k).or_insert(0);
            *n = n.saturating_add(1);
            self.state.jobs.insert(*k, job);
        }
        self.save_state()?;
        Ok(job)
    }

    /// Cancels the run's jobs still queued or running.
    fn cancel(&self) -> Result<(), String> {
        command_output("scancel", &[format!("--name={}", self.name)]).map(|_| ())
    }

    /// The shards to submit now: neither finished nor queued. A shard
    /// submitted before whose job is gone failed or was killed: it is
    /// submitted again unless it used up its retries.
    fn missing(
        &mut self,
        queued: &HashMap<usize, Task>,
        log: &mut dyn FnMut(&str),
    ) -> Result<Vec<usize>, String> {
        let mut out = Vec::new();
        for k in 1..=self.cfg.shards {
            if let Some(task) = queued.get(&k) {
                if task.held() && self.held_told.insert(k) {
                    let job = self
                        .state
                        .jobs
                        .get(&k)
                        .map_or_else(|| "its job".to_string(), |j| format!("{j}_{k}"));
                    log(&format!(
                        "shard {k}/{} is held by Slurm ({}): it runs once released (scontrol release {job}); cancelled (scancel {job}), it is submitted again",
                        self.cfg.shards,
                        engine::files::quoted(&task.reason, 80)
                    ));
                }
                continue;
            }
            if self.done.contains_key(&k) {
                continue;
            }
            let before = self.state.submissions.get(&k).copied().unwrap_or(0);
            if before > 0 && self.summary_awaited(k, log) {
                continue;
            }
            if before > self.cfg.retries {
                return Err(format!(
                    "shard {k}/{} ended without its summary {before} times (see {}); to go on, run the same command with a larger --retries",
                    self.cfg.shards,
                    self.cfg
                        .dir
                        .join("logs")
                        .join(format!("shard-{k}.*.out"))
                        .display()
                ));
            }
            if before > 0 {
                self.resubmitted += 1;
                // The next job gets its own grace.
                self.completed_unseen.remove(&k);
                let how = self
                    .state
                    .jobs
                    .get(&k)
                    .and_then(|job| accounting(*job, k))
                    .map(|h| format!(" ({h})"))
                    .unwrap_or_default();
                log(&format!(
                    "shard {k}/{}: its job ended without the shard's summary{how}; submitting it again ({} of {} retries)",
                    self.cfg.shards, before, self.cfg.retries
                ));
            }
            out.push(k);
        }
        Ok(out)
    }

    /// Whether shard `k`, out of the queue without its summary, is still
    /// waited for: its job completed without error (as `sacct` says, where
    /// accounting runs), so its summary was written and is on its way
    /// through a network file system's cache, for up to [`SUMMARY_GRACE`].
    fn summary_awaited(&mut self, k: usize, log: &mut dyn FnMut(&str)) -> bool {
        let Some(&job) = self.state.jobs.get(&k) else {
            return false;
        };
        let completed = accounting_fields(job, k)
            .is_some_and(|(state, exit)| state == "COMPLETED" && exit == "0:0");
        if !completed {
            return false;
        }
        let since = *self.completed_unseen.entry(k).or_insert_with(|| {
            log(&format!(
                "shard {k}/{}: its job completed, but its summary is not seen yet; waiting up to {} s for it",
                self.cfg.shards,
                SUMMARY_GRACE.as_secs()
            ));
            Instant::now()
        });
        since.elapsed() < SUMMARY_GRACE
    }

    /// The complete games of the shards still running (read, not changed):
    /// what each shard's file gained since the last look. A file that does
    /// not read is shown as last read.
    fn follow_running(&mut self, queued: &HashMap<usize, Task>) {
        self.running
            .retain(|k, _| queued.contains_key(k) && !self.done.contains_key(k));
        for &k in queued.keys().filter(|k| !self.done.contains_key(k)) {
            let Ok(shard) = Shard::new(k, self.cfg.shards) else {
                continue;
            };
            let pdn = self.file(k, "pdn");
            let f = self
                .running
                .entry(k)
                .or_insert_with(|| Following::new(shard));
            let _ = self.plan.follow_results(shard, &pdn, f);
        }
    }

    /// The SPRT decision on the finished whole waves, if it decided.
    fn decide(&self, waves_checked: &mut usize) -> Option<(usize, Decision)> {
        let w = self.cfg.wave;
        loop {
            let end = ((*waves_checked + 1) * w).min(self.cfg.shards);
            if end <= *waves_checked * w || !(1..=end).all(|k| self.done.contains_key(&k)) {
                return None;
            }
            *waves_checked += 1;
            let prefix: Vec<&ShardResults> = (1..=end).filter_map(|k| self.done.get(&k)).collect();
            let games = prefix.iter().map(|r| r.games() as u64).sum();
            if let Some((llr, status)) = self.plan.sprt(prefix.iter().copied()) {
                if status != SprtStatus::Continue {
                    return Some((end, (status, llr, games)));
                }
            }
            if end == self.cfg.shards {
                return None;
            }
        }
    }

    fn merge_first<G: Game>(
        &self,
        end: usize,
        decided: Option<Decision>,
    ) -> Result<Summary, String> {
        let parts = (1..=end)
            .map(|k| read_part(&self.file(k, "json")))
            .collect::<Result<Vec<_>, _>>()?;
        let set = check(parts, true)?;
        let mut command = self.run.command.clone();
        if command.is_empty() {
            command.push("bushka cluster selfplay".into());
        }
        merge::<G>(&set, &self.cfg.outputs, decided, command)
    }
}

/// Runs the shards of `run` on the cluster until they are all merged, or the
/// SPRT decides; `log` gets the driver's notes (resubmissions, decisions).
pub fn run<G: Game>(
    cfg: &ClusterConfig,
    run: &RunInfo,
    log: &mut dyn FnMut(&str),
) -> Result<ClusterOutcome, String> {
    let mut d = Driver::new(cfg, run)?;
    // The merged files are checked before anything is submitted.
    let planned: Vec<(String, PathBuf)> = (1..=cfg.shards)
        .flat_map(|k| {
            [("summary", "json"), ("PDN", "pdn"), ("data", "data")]
                .map(|(what, ext)| (format!("shard {k}'s {what}"), d.file(k, ext)))
        })
        .collect();
    cfg.outputs.check_against(&run.id, &planned)?;
    d.save_state()?;
    let script = d.write_script()?;
    let bar = engine::progress::bar(d.plan.games() as u64, "games", cfg.progress);
    // Notes are printed above the bar, not through it.
    let log = &mut |line: &str| bar.suspend(|| log(line));
    let mut waves_checked = 0;
    let mut failures = 0;
    let result = loop {
        // The queue first, then the files: a shard that leaves the queue
        // between the two has written its summary before leaving.
        let queued = match d.queued() {
            Ok(q) => {
                failures = 0;
                q
            }
            // The controller may be briefly out of reach (restarting, busy):
            // without the queue nothing is known missing, so wait and ask again.
            Err(e) if failures < QUEUE_FAILURES => {
                failures += 1;
                log(&format!(
                    "{e}; asking again ({failures} of {QUEUE_FAILURES})"
                ));
                std::thread::sleep(cfg.poll.max(Duration::from_secs(1)));
                continue;
            }
            Err(e) => return Err(e),
        };
        d.collect_finished()?;
        if run.options.sprt.is_some() {
            if let Some((end, decision)) = d.decide(&mut waves_checked) {
                d.cancel()?;
                let status = if decision.0 == SprtStatus::AcceptH1 {
                    "H1"
                } else {
                    "H0"
                };
                log(&format!(
                    "SPRT: {status} accepted after shards 1-{end} ({} games, LLR {:.3}); queued and running shards cancelled",
                    decision.2, decision.1
                ));
                let summary = d.merge_first::<G>(end, Some(decision))?;
                break ClusterOutcome {
                    summary,
                    merged: end,
                    resubmitted: d.resubmitted,
                    cancelled: true,
                };
            }
        }
        if d.done.len() == cfg.shards {
            let summary = d.merge_first::<G>(cfg.shards, None)?;
            break ClusterOutcome {
                summary,
                merged: cfg.shards,
                resubmitted: d.resubmitted,
                cancelled: false,
            };
        }
        let missing = d.missing(&queued, log)?;
        if !missing.is_empty() {
            let job = d.submit(&script, &missing)?;
            log(&format!(
                "submitted shards {} as job {job} ({})",
                array_list(&missing),
                d.name
            ));
        }
        d.follow_running(&queued);
        let running = d.running.values().map(|f| &f.results);
        let shown: Vec<&ShardResults> = d.done.values().chain(running).collect();
        let games: usize = shown.iter().map(|r| r.games()).sum();
        let pending = queued.values().filter(|t| t.state == "PENDING").count();
        bar.set_position(games as u64);
        bar.set_message(format!(
            "{} [shards: {} done, {} running, {} pending]",
            d.plan.progress_message(shown.iter().copied()),
            d.done.len(),
            queued.len() - pending,
            pending
        ));
        std::thread::sleep(cfg.poll);
    };
    bar.finish_and_clear();
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A driver started again with the folder spelt otherwise (a trailing
    /// slash, `./`, `..`, a link) names its jobs as before, so it adopts them.
    #[cfg(unix)]
    #[test]
    fn the_job_name_does_not_depend_on_how_the_folder_is_spelt() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("run");
        std::fs::create_dir_all(run.join("logs")).unwrap();
        let name = job_name("0123456789abcdef", &run);
        assert!(name.starts_with("bushka-01234567-"), "{name}");
        let slash = PathBuf::from(format!("{}/", run.display()));
        let dots = run.join("logs").join("..");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&run, &link).unwrap();
        for other in [slash, dots, link, run.join(".")] {
            assert_eq!(job_name("0123456789abcdef", &other), name, "{other:?}");
        }
        let elsewhere = tmp.path().join("other");
        std::fs::create_dir_all(&elsewhere).unwrap();
        assert_ne!(job_name("0123456789abcdef", &elsewhere), name);
    }

    #[test]
    fn squeue_lines_give_task_states() {
        let q = parse_squeue(
            "3|RUNNING|None\n4|PENDING|Priority\n\nN/A|RUNNING\n garbage\n5|PENDING|launch failed requeued held\n6|PENDING|JobHeldAdmin\n7|PENDING\n",
        );
        assert_eq!(q.len(), 5);
        assert_eq!(q[&3].state, "RUNNING");
        assert_eq!(q[&4].state, "PENDING");
        assert_eq!(q[&4].reason, "Priority");
        assert_eq!(q[&7].reason, "");
        let held: Vec<usize> = [3, 4, 5, 6, 7]
            .into_iter()
            .filter(|k| q[k].held())
            .collect();
        assert_eq!(held, [5, 6]);
    }

    #[test]
    fn sbatch_answers_are_read_or_refused() {
        assert_eq!(parse_sbatch("1234\n"), Ok(1234));
        assert_eq!(parse_sbatch("77;cluster"), Ok(77));
        assert!(parse_sbatch("sbatch: error: x").is_err());
        // The answer is quoted in one line (a fuzz find: "W\n\u{6}").
        let e = parse_sbatch("W\n\u{6}").unwrap_err();
        assert!(e.contains("'W\\n\\u{6}'"), "{e}");
    }

    #[test]
    fn arrays_are_written_as_ranges() {
        assert_eq!(array_list(&[1, 2, 3, 5, 7, 8]), "1-3,5,7-8");
        assert_eq!(array_list(&[4]), "4");
    }

    #[test]
    fn words_are_quoted_for_the_shell() {
        assert_eq!(quote("name=a,depth=3"), "name=a,depth=3");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote(""), "''");
    }

    /// The state file reads back what was written, and refuses another
    /// run's, another cut's, a shard outside the run and text that is no
    /// state, each in one line with the file's text escaped.
    #[test]
    fn the_state_file_reads_back_and_refuses_what_is_not_this_runs() {
        let mut state = State::new("abc", 4);
        state.submissions.insert(2, 1);
        state.jobs.insert(2, 77);
        let text = state.to_json();
        assert_eq!(State::parse(&text, "abc", 4), Ok(state));
        for (text, run, shards, word) in [
            (text.as_str(), "abd", 4, "not of this run"),
            (&text, "abc", 5, "not of this run"),
            (
                r#"{"run":"abc","shards":4,"submissions":{"5":1}}"#,
                "abc",
                4,
                "names shard 5",
            ),
            (
                r#"{"run":"abc","shards":4,"submissions":{},"jobs":{"0":3}}"#,
                "abc",
                4,
                "names shard 0",
            ),
            (
                r#"{"run":"a\nb","shards":4,"submissions":{}}"#,
                "abc",
                4,
                "run a\\nb in 4",
            ),
            (
                r#"{"run":"abc","shards":4,"submissions":{},"extra":1}"#,
                "abc",
                4,
                "unknown field",
            ),
            ("[1, 2", "abc", 4, "not a cluster state file"),
            // serde quotes an unknown key decoded: its line break is escaped.
            (r#"{"a\u000ab":1}"#, "abc", 4, "unknown field `a\\nb`"),
        ] {
            let e = State::parse(text, run, shards).unwrap_err();
            assert!(e.contains(word), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
