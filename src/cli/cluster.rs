//! `bushka cluster selfplay`: a sharded selfplay run on a Slurm cluster.

use super::selfplay::{config, SelfplayArgs};
use anyhow::{anyhow, bail, Result};
use engine::with_game;
use selfplay::cluster::{run, ClusterConfig};
use selfplay::merge::MergeOutputs;
use selfplay::shard::RunInfo;
use selfplay::tournament::table;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Commands of `bushka cluster`.
#[derive(clap::Subcommand, Debug)]
pub enum ClusterCommand {
    /// Play a selfplay run as shards on a Slurm cluster (job arrays), merging
    /// them as they finish; --pdn, --data and --json name the merged files.
    Selfplay(Box<ClusterSelfplayArgs>),
}

/// Options of `bushka cluster selfplay`.
#[derive(clap::Args, Debug, Clone)]
pub struct ClusterSelfplayArgs {
    /// The run, as for `bushka selfplay`.
    #[command(flatten)]
    pub selfplay: SelfplayArgs,
    /// Shards the run is cut into (whole game pairs each).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub shards: u64,
    /// Shards running at once (default: all); with --sprt the test is decided
    /// after each whole wave.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub wave: Option<u64>,
    /// The Slurm partition (default: the cluster's default one).
    #[arg(long)]
    pub partition: Option<String>,
    /// Further sbatch options, e.g. "--time=01:00:00 --account=chess".
    #[arg(long, allow_hyphen_values = true)]
    pub sbatch_args: Option<String>,
    /// The run's folder, on a filesystem the nodes share: shard files, logs, state.
    #[arg(long)]
    pub dir: PathBuf,
    /// Times a shard whose job ended without finishing it is submitted again.
    #[arg(long, default_value_t = 2)]
    pub retries: u32,
    /// Seconds between looks at the queue.
    #[arg(long, default_value_t = 2.0)]
    pub poll: f64,
}

/// `bushka cluster ...`.
pub fn cluster(command: &ClusterCommand) -> Result<()> {
    match command {
        ClusterCommand::Selfplay(a) => cluster_selfplay(a),
    }
}

/// Options of this command that the shard jobs do not get: the driver's own,
/// and those it sets per shard. `true` when the option takes a value.
const DRIVER_OPTIONS: [(&str, bool); 13] = [
    ("--shards", true),
    ("--wave", true),
    ("--partition", true),
    ("--sbatch-args", true),
    ("--dir", true),
    ("--retries", true),
    ("--poll", true),
    ("--pdn", true),
    ("--data", true),
    ("--json", true),
    ("--concurrency", true),
    ("--quiet", false),
    ("--resume", false),
];

/// The `selfplay` options among this command's arguments (after
/// `cluster selfplay`): the driver's own and the per-shard ones removed.
fn selfplay_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let name = a.split_once('=').map_or(a.as_str(), |(n, _)| n);
        match DRIVER_OPTIONS.iter().find(|(n, _)| *n == name) {
            Some((_, takes_value)) => {
                i += if *takes_value && !a.contains('=') {
                    2
                } else {
                    1
                };
            }
            None => {
                out.push(a.clone());
                i += 1;
            }
        }
    }
    out
}

fn cluster_selfplay(a: &ClusterSelfplayArgs) -> Result<()> {
    if a.selfplay.resume || a.selfplay.shard.is_some() {
        bail!(
            "cluster selfplay resumes by itself and chooses the shards: drop --resume and --shard"
        );
    }
    if !(a.poll > 0.0 && a.poll <= 3600.0) {
        bail!(
            "--poll {}: expected more than 0 and at most 3600 seconds",
            a.poll
        );
    }
    let cfg = config(&a.selfplay)?;
    let mut run_info =
        with_game!(a.selfplay.game, G => RunInfo::of::<G>(&cfg)).map_err(|e| anyhow!(e))?;
    // The shards' jobs run the same words: each must be text, as the job
    // script holds them.
    let argv: Vec<String> = std::env::args_os()
        .map(|a| {
            a.into_string().map_err(|a| {
                anyhow!(
                    "the argument '{}' is not UTF-8 text, which the jobs' script cannot hold",
                    a.to_string_lossy()
                )
            })
        })
        .collect::<Result<_>>()?;
    run_info.command.clone_from(&argv);
    let after = argv
        .iter()
        .position(|w| w == "selfplay")
        .map_or(&argv[..0], |i| &argv[i + 1..]);
    let shards = a.shards as usize;
    let dir = a.dir.clone();
    let outputs = MergeOutputs {
        pdn: a
            .selfplay
            .pdn
            .clone()
            .unwrap_or_else(|| dir.join("merged.pdn")),
        data: a.selfplay.data.clone(),
        json: Some(
            a.selfplay
                .json
                .clone()
                .unwrap_or_else(|| dir.join("merged.json")),
        ),
    };
    // The merged files are written last: those not directly in the run's
    // folder (made when the run starts) are checked now.
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let folder = absolute(&dir);
    let outside = |p: &&Path| absolute(p).parent() != Some(folder.as_path());
    selfplay::output::writable_places(&[
        ("--pdn", Some(outputs.pdn.as_path()).filter(outside)),
        ("--data", outputs.data.as_deref().filter(outside)),
        ("--json", outputs.json.as_deref().filter(outside)),
    ])
    .map_err(anyhow::Error::msg)?;
    let cc = ClusterConfig {
        dir,
        shards,
        wave: a.wave.map_or(shards, |w| w as usize).min(shards),
        partition: a.partition.clone(),
        sbatch_args: a
            .sbatch_args
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(String::from)
            .collect(),
        retries: a.retries,
        poll: Duration::from_secs_f64(a.poll),
        cpus: a.selfplay.concurrency.map_or(1, |c| c as usize),
        program: std::env::current_exe().map_err(|e| anyhow!("cannot find this program: {e}"))?,
        selfplay_args: selfplay_args(after),
        data: a.selfplay.data.is_some(),
        outputs,
        progress: !a.selfplay.quiet,
    };
    let start = Instant::now();
    let mut log = |line: &str| eprintln!("{line}");
    let outcome = with_game!(a.selfplay.game, G => run::<G>(&cc, &run_info, &mut log))
        .map_err(anyhow::Error::msg)?;
    out!("{}", table(&outcome.summary));
    outln!(
        "{} games from {} of {} shards of run {} in {:.1} s; {} resubmission(s){}",
        outcome.summary.games,
        outcome.merged,
        shards,
        outcome.summary.run.id,
        start.elapsed().as_secs_f64(),
        outcome.resubmitted,
        if outcome.cancelled {
            "; the remaining shards were cancelled"
        } else {
            ""
        }
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::selfplay_args;

    #[test]
    fn the_driver_options_are_not_passed_to_the_shards() {
        let words = |t: &str| t.split(' ').map(String::from).collect::<Vec<_>>();
        let got = selfplay_args(&words(
            "--engine name=a,depth=2 --shards 4 --wave=2 --dir /x --pdn p --data=d --quiet --games 8 --sbatch-args --time=5 --concurrency 2",
        ));
        assert_eq!(got, words("--engine name=a,depth=2 --games 8"));
    }
}
