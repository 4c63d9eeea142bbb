//! Merging the shards of a run ([`crate::shard`]) into the files and the
//! statistics the unsharded run would have written: the games in schedule
//! order, the training data in the same order (de-duplicated across the
//! whole run with `--dedup`), and a summary with the same per-engine W/D/L,
//! pentanomial pairs, Elo, normalized Elo and LLR.
//!
//! A shard is taken only once its summary exists: the summary is written
//! atomically after its last game, so a shard that was killed or is still
//! running is never counted. Merge refuses shards of different runs and
//! names duplicated and missing shards.

use crate::clock::ClockStats;
use crate::output::{complete_games, has_content};
use crate::pdn::PdnReader;
use crate::shard::{RunInfo, RunOptions, Shard};
use crate::tournament::{
    mark_decision, part, schedule, Config, Decision, Slot, Summary, Tally, RUN_ID_TAG,
};
use engine::data::DataLine;
use engine::{Color, Game, Outcome};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A finished shard: where its summary is, its run, and its files.
#[derive(Clone, Debug)]
pub struct ShardPart {
    /// The shard's summary (`--json`).
    pub json: PathBuf,
    /// The run recorded in it.
    pub run: RunInfo,
    /// Which part it is.
    pub shard: Shard,
    /// Its game records.
    pub pdn: PathBuf,
    /// Its training data, if it wrote any.
    pub data: Option<PathBuf>,
}

/// The `run` member of a summary; the rest is recomputed from the games.
#[derive(serde::Deserialize)]
struct SummaryRun {
    run: RunInfo,
}

/// A recorded path, or the file of the same name beside the summary when
/// the recorded one is gone (files copied off the cluster together).
fn locate(recorded: &str, json: &Path) -> PathBuf {
    let path = PathBuf::from(recorded);
    if path.exists() {
        return path;
    }
    let beside = match (json.parent(), path.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => return path,
    };
    if beside.exists() {
        beside
    } else {
        path
    }
}

/// Reads a shard's summary.
pub fn read_part(json: &Path) -> Result<ShardPart, String> {
    let text = engine::files::read_regular_to_string(json, engine::files::MAX_TEXT_FILE)
        .map_err(|e| format!("cannot read shard summary {}: {e}", json.display()))?;
    let SummaryRun { run } = serde_json::from_str(&text).map_err(|e| {
        let e = engine::files::quoted(&e.to_string(), 400);
        format!("{}: not a selfplay summary: {e}", json.display())
    })?;
    // The id is printed and compared as it is: 16 hex digits, as written.
    if run.id.len() != 16 || !run.id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "{}: run id '{}' is not 16 hex digits",
            json.display(),
            engine::files::quoted(&run.id, 40)
        ));
    }
    // The games are checked against the id the recorded options give.
    let rebuilt = run.options.id();
    if rebuilt != run.id {
        return Err(format!(
            "{}: its options give run id {rebuilt}, not the {} it records (changed by hand, \
             or written by another version of the program)",
            json.display(),
            run.id
        ));
    }
    let shard = run.shard.ok_or_else(|| {
        format!(
            "{}: the summary of a whole run, not of a shard (no --shard)",
            json.display()
        )
    })?;
    let pdn = run
        .pdn
        .as_deref()
        .map(|p| locate(p, json))
        .ok_or_else(|| format!("{}: shard {shard} wrote no --pdn file", json.display()))?;
    let data = run.data.as_deref().map(|p| locate(p, json));
    Ok(ShardPart {
        json: json.to_path_buf(),
        run,
        shard,
        pdn,
        data,
    })
}

/// Shards checked to belong together, in order.
#[derive(Clone, Debug)]
pub struct ShardSet {
    /// The parts, by shard index.
    pub parts: Vec<ShardPart>,
    /// The shards not given (only with `partial`).
    pub missing: Vec<Shard>,
}

/// Checks that `parts` are shards of one run cut the same way, each once,
/// and (unless `partial`) all of them.
pub fn check(mut parts: Vec<ShardPart>, partial: bool) -> Result<ShardSet, String> {
    let Some(first) = parts.first() else {
        return Err("no shard summaries given".into());
    };
    let runs: BTreeMap<&str, Vec<String>> = parts.iter().fold(BTreeMap::new(), |mut m, p| {
        m.entry(p.run.id.as_str())
            .or_insert_with(Vec::new)
            .push(p.json.display().to_string());
        m
    });
    if runs.len() > 1 {
        let list: Vec<String> = runs
            .iter()
            .map(|(id, files)| format!("run {id}: {}", files.join(", ")))
            .collect();
        return Err(format!(
            "the shards belong to different runs ({}); merge the shards of one run",
            list.join("; ")
        ));
    }
    let count = first.shard.count;
    if let Some(p) = parts.iter().find(|p| p.shard.count != count) {
        return Err(format!(
            "{} is shard {} but {} is shard {}: the run was cut into different numbers of shards",
            p.json.display(),
            p.shard,
            first.json.display(),
            first.shard
        ));
    }
    parts.sort_by_key(|p| p.shard.index);
    for w in parts.windows(2) {
        if w[0].shard == w[1].shard {
            return Err(format!(
                "shard {} given twice: {} and {}",
                w[0].shard,
                w[0].json.display(),
                w[1].json.display()
            ));
        }
    }
    let have: HashSet<usize> = parts.iter().map(|p| p.shard.index).collect();
    let missing: Vec<Shard> = (1..=count)
        .filter(|i| !have.contains(i))
        .map(|index| Shard { index, count })
        .collect();
    if !missing.is_empty() && !partial {
        return Err(format!(
            "missing shard{} {} of run {}",
            if missing.len() > 1 { "s" } else { "" },
            shard_names(&missing),
            parts[0].run.id
        ));
    }
    Ok(ShardSet { parts, missing })
}

/// Shards named in a message: the first ten, then how many more (a run
/// may be cut into a million).
pub fn shard_names(shards: &[Shard]) -> String {
    engine::files::first_named(shards, 10)
}

/// The results of one shard's games.
#[derive(Clone, Debug)]
pub struct ShardResults {
    /// The shard.
    pub shard: Shard,
    /// Each game's id, outcome and time use, in the order the records were
    /// read.
    outcomes: Vec<GameResult>,
}

/// A running shard's games as [`Plan::follow_results`] reads them, a part
/// at a time as its PDN file grows.
#[derive(Clone, Debug)]
pub struct Following {
    /// The games read.
    pub results: ShardResults,
    /// The bytes of complete games read (and the last of them: the file
    /// still starts as read).
    place: engine::files::ReadPlace,
    /// The ids of the games read.
    seen: HashSet<u64>,
}

impl Following {
    /// Nothing read yet of `shard`.
    pub fn new(shard: Shard) -> Self {
        Following {
            results: ShardResults {
                shard,
                outcomes: Vec::new(),
            },
            place: engine::files::ReadPlace::default(),
            seen: HashSet::new(),
        }
    }
}

/// What a shard's record of one game adds to the totals.
#[derive(Clone, Debug)]
struct GameResult {
    id: u64,
    outcome: Outcome,
    /// The time use of each side on a clock: the engine and its figures.
    clocks: Vec<(usize, ClockStats)>,
}

impl ShardResults {
    /// Games read.
    pub fn games(&self) -> usize {
        self.outcomes.len()
    }
}

/// The full schedule of a run: what merging and counting need.
pub struct Plan {
    cfg: Config,
    all: Vec<Slot>,
    id: String,
}

impl Plan {
    /// The plan of the run with these options.
    pub fn new(options: &RunOptions) -> Result<Plan, String> {
        let cfg = options.config()?;
        let all = schedule(&cfg);
        Ok(Plan {
            cfg,
            all,
            id: options.id(),
        })
    }

    /// Games in the whole run.
    pub fn games(&self) -> usize {
        self.all.len()
    }

    /// Games of one shard.
    pub fn shard_games(&self, shard: Shard) -> Result<usize, String> {
        Ok(part(&self.all, Some(shard))?.len())
    }

    /// The complete games of a shard's PDN text, each with its id, checked
    /// against the shard's part of the schedule and the run id. With
    /// `complete`, every game of the shard must be there exactly once;
    /// without (a shard still running), a repeated game is read once.
    fn games_of<'t>(
        &self,
        shard: Shard,
        text: &'t str,
        origin: &Path,
        complete: bool,
    ) -> Result<Vec<(&Slot, GameResult, &'t str)>, String> {
        let slots = part(&self.all, Some(shard))?;
        let by_id: HashMap<u64, &Slot> = slots.iter().map(|s| (s.id, s)).collect();
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for block in complete_games(text) {
            let Some(rec) = PdnReader::new(block.as_bytes()).next() else {
                continue;
            };
            let rec = rec.map_err(|e| format!("{}: {e}", origin.display()))?;
            let round = rec.round.clone();
            let slot = round
                .parse::<u64>()
                .ok()
                .and_then(|r| r.checked_sub(1))
                .and_then(|id| by_id.get(&id))
                .ok_or_else(|| {
                    format!(
                        "{}: game round '{}' is not part of shard {shard}",
                        origin.display(),
                        engine::files::quoted(&round, 40)
                    )
                })?;
            // A shard's games are all this program's: each names its run,
            // and the engines its slot of the schedule gives.
            match rec.tag(RUN_ID_TAG) {
                Some(id) if id == self.id => {}
                Some(id) => {
                    return Err(format!(
                        "{}: game {round} belongs to run {}, not to run {}",
                        origin.display(),
                        engine::files::quoted(id, 40),
                        self.id
                    ))
                }
                None => {
                    return Err(format!(
                        "{}: game {round} has no [{RUN_ID_TAG}] tag: it is not a game of run {}",
                        origin.display(),
                        self.id
                    ))
                }
            }
            let (white, black) = (
                &self.cfg.engines[slot.white].name,
                &self.cfg.engines[slot.black].name,
            );
            if rec.white != *white || rec.black != *black {
                return Err(format!(
                    "{}: game {round} was played by {} and {}, not by {white} and {black} as in run {}",
                    origin.display(),
                    engine::files::quoted(&rec.white, 40),
                    engine::files::quoted(&rec.black, 40),
                    self.id
                ));
            }
            let outcome = rec
                .result
                .outcome()
                .ok_or_else(|| format!("{}: game {round} has no result", origin.display()))?;
            if !seen.insert(slot.id) {
                if complete {
                    return Err(format!("{}: game {round} is there twice", origin.display()));
                }
                continue;
            }
            // Time use, read back from the record as `--resume` does.
            let mut clocks = Vec::new();
            for (side, engine) in [(Color::White, slot.white), (Color::Black, slot.black)] {
                if let Some(tc) = self.cfg.engines[engine].tc {
                    let mut c = ClockStats::default();
                    c.add_record(&rec, side, tc)
                        .map_err(|e| format!("{}: {e}", origin.display()))?;
                    clocks.push((engine, c));
                }
            }
            let result = GameResult {
                id: slot.id,
                outcome,
                clocks,
            };
            out.push((*slot, result, block));
        }
        if complete && out.len() != slots.len() {
            let lacking: Vec<u64> = slots
                .iter()
                .filter(|s| !seen.contains(&s.id))
                .map(|s| s.id + 1)
                .collect();
            return Err(format!(
                "{}: shard {shard} has {} of its {} games (lacking rounds {})",
                origin.display(),
                out.len(),
                slots.len(),
                engine::files::first_named(&lacking, 5)
            ));
        }
        Ok(out)
    }

    /// Reads the results in a shard's PDN file; `complete` as for a
    /// finished shard (see [`Plan::games_of`]), else the complete games
    /// of a shard still being written.
    pub fn read_results(
        &self,
        shard: Shard,
        pdn: &Path,
        complete: bool,
    ) -> Result<ShardResults, String> {
        let text = match engine::files::read_regular_to_string(pdn, u64::MAX) {
            Ok(t) => t,
            Err(e) if !complete && e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("cannot read {}: {e}", pdn.display())),
        };
        let outcomes = self
            .games_of(shard, &text, pdn, complete)?
            .into_iter()
            .map(|(_, r, _)| r)
            .collect();
        Ok(ShardResults { shard, outcomes })
    }

    /// Reads what was appended to a running shard's PDN file since `f`
    /// last looked (all of it after the file was written anew) and adds
    /// its complete games to `f`'s results, each game once: a driver
    /// looking every few seconds reads each game once, not the whole file
    /// each time. On an error nothing is taken, and the next look tries
    /// again from the same place.
    pub fn follow_results(
        &self,
        shard: Shard,
        pdn: &Path,
        f: &mut Following,
    ) -> Result<(), String> {
        use std::io::{Read, Seek, SeekFrom};
        let named = |e: std::io::Error| format!("cannot read {}: {e}", pdn.display());
        if f.results.shard != shard {
            *f = Following::new(shard);
        }
        let mut file = match engine::files::open_regular(pdn) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
                return Err(format!("{}: {e}", pdn.display()))
            }
            Err(e) => return Err(named(e)),
        };
        // Written anew (a resumed shard cuts its file to its whole games,
        // and may have written more since): read from the start.
        if !f.place.still_in(&mut file).map_err(named)? {
            *f = Following::new(shard);
        }
        let mut new = Vec::new();
        file.seek(SeekFrom::Start(f.place.read())).map_err(named)?;
        file.read_to_end(&mut new).map_err(named)?;
        let complete = crate::output::complete_len(&new);
        let text = std::str::from_utf8(&new[..complete])
            .map_err(|_| format!("{}: not UTF-8 text", pdn.display()))?;
        for (_, game, _) in self.games_of(shard, text, pdn, false)? {
            if f.seen.insert(game.id) {
                f.results.outcomes.push(game);
            }
        }
        f.place.pass(&new[..complete]);
        Ok(())
    }

    /// The summary of the games in `results`, as the unsharded run would
    /// count them; `decided` marks an SPRT decision taken at that point.
    pub fn summary<'r>(
        &self,
        results: impl IntoIterator<Item = &'r ShardResults>,
        decided: Option<Decision>,
        run: RunInfo,
    ) -> Summary {
        let tally = self.tally(results);
        let mut s = tally.summary(run);
        mark_decision(&mut s, decided);
        s
    }

    /// The live line (score, Elo, LLR) of these results.
    pub fn progress_message<'r>(
        &self,
        results: impl IntoIterator<Item = &'r ShardResults>,
    ) -> String {
        self.tally(results).progress_message()
    }

    /// The LLR of these results and the SPRT's decision on them, for a
    /// match with an SPRT.
    pub fn sprt<'r>(
        &self,
        results: impl IntoIterator<Item = &'r ShardResults>,
    ) -> Option<(f64, crate::stats::SprtStatus)> {
        let tally = self.tally(results);
        tally.sprt().map(|(llr, s)| (llr, s.status(llr)))
    }

    fn tally<'r>(&self, results: impl IntoIterator<Item = &'r ShardResults>) -> Tally<'_> {
        let by_id: HashMap<u64, &Slot> = self.all.iter().map(|s| (s.id, s)).collect();
        let mut tally = Tally::new(&self.cfg, &self.all);
        for r in results {
            for game in &r.outcomes {
                if let Some(slot) = by_id.get(&game.id) {
                    tally.add(slot, game.outcome);
                    for (engine, c) in &game.clocks {
                        tally.add_clock(*engine, c);
                    }
                }
            }
        }
        tally
    }
}

/// Where a merge writes.
#[derive(Clone, Debug)]
pub struct MergeOutputs {
    /// The merged game records.
    pub pdn: PathBuf,
    /// The merged training data (every shard must have written data).
    pub data: Option<PathBuf>,
    /// The merged summary.
    pub json: Option<PathBuf>,
}

impl MergeOutputs {
    /// Refuses outputs that would destroy a file: two outputs named alike,
    /// an output that is one of the shards' files, or an existing file that
    /// holds something other than a merge of run `run_id` (merging the same
    /// run again, as `bushka cluster selfplay` does when resumed, rewrites
    /// its own files).
    pub fn check(&self, run_id: &str, parts: &[ShardPart]) -> Result<(), String> {
        let mut files = Vec::new();
        for p in parts {
            files.push((format!("shard {}'s summary", p.shard), p.json.clone()));
            files.push((format!("shard {}'s PDN", p.shard), p.pdn.clone()));
            if let Some(d) = &p.data {
                files.push((format!("shard {}'s data", p.shard), d.clone()));
            }
        }
        self.check_against(run_id, &files)
    }

    /// [`MergeOutputs::check`] against named shard files (planned or written).
    pub fn check_against(
        &self,
        run_id: &str,
        shard_files: &[(String, PathBuf)],
    ) -> Result<(), String> {
        let mut named: Vec<(&str, Option<&Path>)> = vec![
            ("the merged PDN", Some(self.pdn.as_path())),
            ("the merged data", self.data.as_deref()),
            ("the merged summary", self.json.as_deref()),
        ];
        named.extend(
            shard_files
                .iter()
                .map(|(l, p)| (l.as_str(), Some(p.as_path()))),
        );
        crate::output::distinct_outputs(&named)?;
        let refuse = |path: &Path| {
            Err(format!(
                "{} exists and holds no merge of run {run_id}: name another file, or remove it",
                path.display()
            ))
        };
        if has_content(&self.pdn) && pdn_run_id(&self.pdn).as_deref() != Some(run_id) {
            return refuse(&self.pdn);
        }
        // The merged summary of this run, if one is there (not a shard's,
        // nor the unsharded run's: a merge names the shards it merged).
        let summary = self
            .json
            .as_deref()
            .filter(|j| has_content(j))
            .map(|j| {
                engine::files::read_regular_to_string(j, engine::files::MAX_TEXT_FILE)
                    .ok()
                    .and_then(|t| serde_json::from_str::<SummaryRun>(&t).ok())
                    .map(|s| s.run)
                    .filter(|r| r.id == run_id && r.shard.is_none() && !r.merged.is_empty())
                    .ok_or(j)
            })
            .transpose();
        let summary = match summary {
            Ok(s) => s,
            Err(j) => return refuse(j),
        };
        // Every shard's PDN, and the unsharded run's, hold this run's games
        // too: an existing PDN is this merge's to rewrite only when this
        // run's merged summary names it (the summary is written first).
        let names = |recorded: Option<&str>, path: &Path| {
            recorded.is_some_and(|r| Path::new(r) == std::path::absolute(path).unwrap_or_default())
        };
        if has_content(&self.pdn)
            && !names(summary.as_ref().and_then(|r| r.pdn.as_deref()), &self.pdn)
        {
            return Err(format!(
                "{} exists and no merged summary of run {run_id} names it (it may be a shard's \
                 records, or the unsharded run's): name another file, or remove it (a merge \
                 that writes --out-json may rewrite its own PDN)",
                self.pdn.display()
            ));
        }
        // Data lines name no run: an existing data file is this run's only
        // when this run's merged summary names it.
        if let Some(data) = self.data.as_deref().filter(|d| has_content(d)) {
            if !names(summary.as_ref().and_then(|r| r.data.as_deref()), data) {
                return Err(format!(
                    "{} exists and no merged summary of run {run_id} names it: name another \
                     file, or remove it (a merge that writes --out-json may rewrite its own data)",
                    data.display()
                ));
            }
        }
        Ok(())
    }
}

/// The run id of the first game of a PDN file, if it has one.
fn pdn_run_id(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let first = PdnReader::new(std::io::BufReader::new(file)).next()?.ok()?;
    first.tag(RUN_ID_TAG).map(str::to_string)
}

fn io_err(e: String) -> std::io::Error {
    std::io::Error::other(e)
}

/// Merges the checked shards into `out`; `decided` records an SPRT decision
/// taken on exactly these shards, `command` the command that merges.
pub fn merge<G: Game>(
    set: &ShardSet,
    out: &MergeOutputs,
    decided: Option<Decision>,
    command: Vec<String>,
) -> Result<Summary, String> {
    let first = set.parts.first().ok_or("no shard summaries given")?;
    out.check(&first.run.id, &set.parts)?;
    let plan = Plan::new(&first.run.options)?;
    // Every shard's games and data read (and checked: a shard that wrote no
    // data too) before anything is written: a merge refused for a shard's
    // fault leaves no output behind (which the next merge would take for
    // another's).
    let mut results = Vec::new();
    for p in &set.parts {
        results.push(plan.read_results(p.shard, &p.pdn, true)?);
    }
    if let Some(data) = &out.data {
        data_lines::<G, _>(&plan, set, &mut std::io::sink())
            .map_err(|e| format!("merging into {}: {e}", data.display()))?;
    }
    let absolute = |p: &Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    let run = RunInfo {
        id: first.run.id.clone(),
        command,
        shard: None,
        merged: set.parts.iter().map(|p| p.shard).collect(),
        pdn: Some(absolute(&out.pdn)),
        data: out.data.as_deref().map(absolute),
        options: first.run.options.clone(),
    };
    let summary = plan.summary(&results, decided, run);
    // The summary first: it names the PDN and data files, so a merge
    // stopped before they are written is this run's to run again (its check
    // takes a PDN or data file a merged summary of the run names).
    let again = if out.json.is_some() {
        " (the merged summary is written, the rest is not: merge again)"
    } else {
        ""
    };
    if let Some(json) = &out.json {
        let text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
        crate::output::write_atomic(json, &text)?;
    }
    engine::files::write_atomic_with(&out.pdn, |w| {
        for p in &set.parts {
            let text = engine::files::read_regular_to_string(&p.pdn, u64::MAX)
                .map_err(|e| io_err(format!("cannot read {}: {e}", p.pdn.display())))?;
            let games = plan
                .games_of(p.shard, &text, &p.pdn, true)
                .map_err(io_err)?;
            let blocks: HashMap<u64, &str> = games
                .into_iter()
                .map(|(slot, _, block)| (slot.id, block))
                .collect();
            for slot in part(&plan.all, Some(p.shard)).map_err(io_err)? {
                w.write_all(blocks[&slot.id].as_bytes())?;
            }
        }
        Ok(())
    })
    .map_err(|e| format!("merging into {}: {e}{again}", out.pdn.display()))?;
    if let Some(data) = &out.data {
        merge_data::<G>(&plan, set, data).map_err(|e| format!("{e}{again}"))?;
    }
    Ok(summary)
}

/// The shards' training data in schedule order, into `out`; with the run's
/// `--dedup`, each position once across all shards (the first in schedule
/// order is kept).
fn merge_data<G: Game>(plan: &Plan, set: &ShardSet, out: &Path) -> Result<(), String> {
    engine::files::write_atomic_with(out, |w| data_lines::<G, _>(plan, set, w))
        .map_err(|e| format!("merging into {}: {e}", out.display()))
}

/// Writes the shards' training data in schedule order to `w` (each line
/// checked: an `io::sink` checks them all).
fn data_lines<G: Game, W: Write>(plan: &Plan, set: &ShardSet, w: &mut W) -> std::io::Result<()> {
    let mut seen: Option<HashSet<u64>> = plan.cfg.dedup.then(HashSet::new);
    for p in &set.parts {
        let path = p.data.as_ref().ok_or_else(|| {
            io_err(format!(
                "{}: shard {} wrote no --data file",
                p.json.display(),
                p.shard
            ))
        })?;
        let text = engine::files::read_regular_to_string(path, u64::MAX)
            .map_err(|e| io_err(format!("cannot read {}: {e}", path.display())))?;
        let slots = part(&plan.all, Some(p.shard)).map_err(io_err)?;
        let ids: HashSet<u64> = slots.iter().map(|s| s.id).collect();
        let mut blocks: HashMap<u64, Vec<&str>> = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            let d = DataLine::parse(line)
                .map_err(|e| io_err(format!("{} line {}: {e}", path.display(), n + 1)))?;
            let id = d
                .game
                .parse::<u64>()
                .ok()
                .filter(|id| ids.contains(id))
                .ok_or_else(|| {
                    io_err(format!(
                        "{} line {}: game '{}' is not part of shard {}",
                        path.display(),
                        n + 1,
                        engine::files::quoted(d.game, 40),
                        p.shard
                    ))
                })?;
            blocks.entry(id).or_default().push(line);
        }
        for slot in slots {
            // Every game has its block, at least its start position
            // (written with `--dedup` too).
            let Some(lines) = blocks.get(&slot.id) else {
                return Err(io_err(format!(
                    "{}: no data for game {} of shard {}",
                    path.display(),
                    slot.id,
                    p.shard
                )));
            };
            for line in lines {
                if let Some(seen) = seen.as_mut() {
                    let d = DataLine::parse(line).map_err(io_err)?;
                    let pos = G::parse_position(d.position).map_err(|e| {
                        io_err(format!(
                            "{}: position '{}': {e}",
                            path.display(),
                            engine::files::quoted(d.position, 80)
                        ))
                    })?;
                    // A game's start position is always kept, as the
                    // unsharded run writes it.
                    if !seen.insert(<G as Game>::hash(&pos)) && d.ply != 0 {
                        continue;
                    }
                }
                writeln!(w, "{line}")?;
            }
        }
    }
    Ok(())
}
