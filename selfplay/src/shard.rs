//! Shards: one run's schedule cut into N parts that separate processes (or
//! cluster nodes) play, and the run identity every part records so that
//! [`crate::merge`] puts back together only the parts of one run.
//!
//! A shard is a contiguous block of whole game pairs of the schedule (both
//! colours of an opening stay in one shard, so pentanomial pairs are never
//! split), and the blocks differ in size by at most one pair. Games keep their
//! numbers, openings, colours and seeds: with depth or node limits, the N
//! shards together play the unsharded run game for game.

use crate::game::{Adjudication, MAX_WIN_MOVES};
use crate::spec::EngineSpec;
use crate::stats::Sprt;
use crate::tournament::{Config, MAX_GAMES};
use engine::eval::Patterns;
use engine::zobrist::{fnv1a, FNV1A_START};
use engine::GameKind;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// Part `index` (1-based) of `count` parts of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    /// Which part, from 1 to `count`.
    pub index: usize,
    /// How many parts the run is cut into.
    pub count: usize,
}

/// Most shards a run is cut into (a shard plays at least one game pair,
/// and a run has at most a few million).
pub const MAX_SHARDS: usize = 1_000_000;

impl Shard {
    /// Part `index` of `count`, checked.
    pub fn new(index: usize, count: usize) -> Result<Self, String> {
        if count == 0 {
            return Err(format!(
                "shard {index}/{count}: a run is cut into at least one shard"
            ));
        }
        if count > MAX_SHARDS {
            return Err(format!(
                "shard {index}/{count}: a run is cut into at most {MAX_SHARDS} shards"
            ));
        }
        if index == 0 || index > count {
            return Err(format!(
                "shard {index}/{count}: the part must be between 1 and {count}"
            ));
        }
        Ok(Shard { index, count })
    }

    /// The game pairs (indices in schedule order, of `pairs` in all) this
    /// shard plays: a contiguous block, sizes differing by at most one.
    pub fn pairs(&self, pairs: usize) -> Range<usize> {
        // In 128 bits, so that no count can overflow the product.
        let cut = |i: usize| (i as u128 * pairs as u128 / self.count as u128) as usize;
        cut(self.index - 1)..cut(self.index)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N`, for example `3/8`.
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "shard '{}': expected K/N with 1 <= K <= N, for example 3/8",
                engine::files::quoted(text, 40)
            )
        };
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        Shard::new(k, n)
    }
}

impl serde::Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Everything that decides which games a run plays and how they are counted:
/// the run id is a hash of these. Output paths, the shard, the number of
/// games played at once, resuming and the progress bar are left out: they
/// change where and how fast games are played, not the games.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunOptions {
    /// `bushka` or `bashnya`.
    pub game: String,
    /// The engine descriptions, in full (defaults written out).
    pub engines: Vec<String>,
    /// The first engine plays each other one.
    pub gauntlet: bool,
    /// Games per pairing asked for.
    pub games: usize,
    /// The seed.
    pub seed: u64,
    /// The opening positions, in book order.
    pub openings: Vec<String>,
    /// Openings shuffled by the seed.
    pub random_order: bool,
    /// Draw after this many plies.
    pub max_plies: usize,
    /// Draw after this many plies without progress.
    pub no_progress_plies: usize,
    /// Win adjudication score, if any.
    pub win_score: Option<i32>,
    /// Win adjudication moves.
    pub win_moves: usize,
    /// SPRT parameters: elo0, elo1, alpha, beta.
    pub sprt: Option<[f64; 4]>,
    /// Positions written once across the run.
    pub dedup: bool,
    /// The `Event` tag.
    pub event: String,
    /// Endgame tables folder.
    pub tb: Option<String>,
    /// How far a move on a game clock may overrun it, in milliseconds.
    #[serde(default)]
    pub time_margin_ms: u64,
    /// Moves annotated with score, depth and time in the PDN.
    #[serde(default)]
    pub annotate: bool,
    /// The anchor of the joint ratings (`NAME=ELO`).
    #[serde(default)]
    pub anchor: Option<String>,
    /// What each engine evaluates with ([`EngineSpec::eval_id`]): the
    /// engine descriptions name a weights file, not what it holds, nor the
    /// weights built into the program.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evaluations: Vec<String>,
}

impl RunOptions {
    /// The options of a tournament of game `G`; an engine's weights file
    /// that cannot be read is an error.
    pub fn of<G: Patterns>(cfg: &Config) -> Result<Self, String> {
        let evaluations = cfg
            .engines
            .iter()
            .map(EngineSpec::eval_id::<G>)
            .collect::<Result<_, _>>()?;
        Ok(RunOptions {
            game: G::KIND.name().to_string(),
            engines: cfg.engines.iter().map(ToString::to_string).collect(),
            gauntlet: cfg.gauntlet,
            games: cfg.games,
            seed: cfg.seed,
            openings: cfg.openings.clone(),
            random_order: cfg.random_order,
            max_plies: cfg.adjudication.max_plies,
            no_progress_plies: cfg.adjudication.no_progress_plies,
            win_score: cfg.adjudication.win_score,
            win_moves: cfg.adjudication.win_moves,
            sprt: cfg.sprt.map(|s| [s.elo0, s.elo1, s.alpha, s.beta]),
            dedup: cfg.dedup,
            event: cfg.event.clone(),
            tb: cfg.tb.as_ref().map(|p| p.display().to_string()),
            time_margin_ms: u64::try_from(cfg.time_margin.as_millis()).unwrap_or(u64::MAX),
            annotate: cfg.annotate,
            anchor: cfg.anchor.clone(),
            evaluations,
        })
    }

    /// The game these options play.
    pub fn kind(&self) -> Result<GameKind, String> {
        self.game.parse().map_err(|_| {
            format!(
                "unknown game '{}' in the run's options",
                engine::files::quoted(&self.game, 40)
            )
        })
    }

    /// A configuration that plays and counts the same games, writing no file.
    pub fn config(&self) -> Result<Config, String> {
        if self.engines.len() < 2 {
            return Err("a tournament needs at least two engines".into());
        }
        if self.openings.is_empty() {
            return Err("no openings".into());
        }
        if !(1..=MAX_GAMES).contains(&self.games) {
            return Err(format!(
                "{} games a pairing: expected 1 to {MAX_GAMES}",
                self.games
            ));
        }
        crate::tournament::check_run_size(self.engines.len(), self.gauntlet, self.games)?;
        if !(1..=MAX_WIN_MOVES).contains(&self.win_moves) {
            return Err(format!(
                "win adjudication after {} moves: expected 1 to {MAX_WIN_MOVES}",
                self.win_moves
            ));
        }
        let engines = self
            .engines
            .iter()
            .map(|e| {
                EngineSpec::parse(e)
                    .map_err(|err| format!("engine '{}': {err}", engine::files::quoted(e, 60)))
            })
            .collect::<Result<_, _>>()?;
        let sprt = match self.sprt {
            Some([e0, e1, a, b]) => Some(Sprt::new(e0, e1, a, b).map_err(|e| e.to_string())?),
            None => None,
        };
        Ok(Config {
            engines,
            gauntlet: self.gauntlet,
            games: self.games,
            concurrency: 1,
            seed: self.seed,
            openings: self.openings.clone(),
            random_order: self.random_order,
            adjudication: Adjudication {
                max_plies: self.max_plies,
                no_progress_plies: self.no_progress_plies,
                win_score: self.win_score,
                win_moves: self.win_moves,
            },
            sprt,
            pdn: None,
            data: None,
            dedup: self.dedup,
            json: None,
            resume: false,
            progress: false,
            event: self.event.clone(),
            tb: self.tb.as_ref().map(Into::into),
            shard: None,
            command: Vec::new(),
            time_margin: std::time::Duration::from_millis(self.time_margin_ms),
            annotate: self.annotate,
            anchor: self.anchor.clone(),
        })
    }

    /// The run id: 16 hex digits of a 64-bit FNV-1a hash of the options as
    /// JSON (stable across machines and builds).
    pub fn id(&self) -> String {
        let text = serde_json::to_string(self).unwrap_or_default();
        format!("{:016x}", fnv1a(FNV1A_START, text.as_bytes()))
    }
}

/// The run a summary belongs to, written in every `--json` summary.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunInfo {
    /// The run id ([`RunOptions::id`]).
    pub id: String,
    /// The command that wrote the summary, word for word.
    pub command: Vec<String>,
    /// The shard this summary covers; `None` for a whole run.
    pub shard: Option<Shard>,
    /// The shards a merged summary was made from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<Shard>,
    /// The game records of this part, as an absolute path.
    pub pdn: Option<String>,
    /// The training data of this part, as an absolute path.
    pub data: Option<String>,
    /// What decides the games.
    pub options: RunOptions,
}

impl RunInfo {
    /// The run of a tournament of game `G`, from its configuration.
    pub fn of<G: Patterns>(cfg: &Config) -> Result<Self, String> {
        let options = RunOptions::of::<G>(cfg)?;
        let absolute = |p: &Option<std::path::PathBuf>| {
            p.as_ref().map(|p| {
                std::path::absolute(p)
                    .unwrap_or_else(|_| p.clone())
                    .display()
                    .to_string()
            })
        };
        Ok(RunInfo {
            id: options.id(),
            command: cfg.command.clone(),
            shard: cfg.shard,
            merged: Vec::new(),
            pdn: absolute(&cfg.pdn),
            data: absolute(&cfg.data),
            options,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_pair_once_in_order() {
        for pairs in [1, 2, 7, 8, 100] {
            for count in 1..=pairs.min(9) {
                let mut next = 0;
                for index in 1..=count {
                    let r = Shard::new(index, count).unwrap().pairs(pairs);
                    assert_eq!(r.start, next);
                    assert!(r.len() == pairs / count || r.len() == pairs / count + 1);
                    next = r.end;
                }
                assert_eq!(next, pairs);
            }
        }
        // No overflow at the largest counts.
        let s = Shard {
            index: usize::MAX,
            count: usize::MAX,
        };
        assert_eq!(s.pairs(usize::MAX), usize::MAX - 1..usize::MAX);
    }

    #[test]
    fn shard_text_reads_back_and_bad_text_is_refused() {
        let s: Shard = "3/8".parse().unwrap();
        assert_eq!((s.index, s.count, s.to_string()), (3, 8, "3/8".to_string()));
        for bad in ["", "3", "a/4", "1/-2", "/", "2/4/8"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("expected K/N"), "{bad}: {e}");
        }
        // Numbers out of range are named with the range.
        for (bad, why) in [
            ("0/4", "shard 0/4: the part must be between 1 and 4"),
            ("5/4", "shard 5/4: the part must be between 1 and 4"),
            ("1/0", "shard 1/0: a run is cut into at least one shard"),
            (
                "1/1000001",
                "shard 1/1000001: a run is cut into at most 1000000 shards",
            ),
        ] {
            assert_eq!(bad.parse::<Shard>().unwrap_err(), why);
        }
        assert_eq!("1/1000000".parse::<Shard>().unwrap().count, MAX_SHARDS);
    }

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        assert_eq!(fnv1a(FNV1A_START, b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(FNV1A_START, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(FNV1A_START, b"foobar"), 0x8594_4171_f739_67e8);
    }
}
