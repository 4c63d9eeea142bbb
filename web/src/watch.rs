//! The watch panel: a self-play tournament read from its PDN file (and its
//! JSON summary) while it is played. Both paths come from the command line;
//! a request only ever names a game by its index.

use selfplay::pdn::{GameRecord, PdnReader, PdnResult};
use selfplay::stats::Trinomial;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// Latest games listed by the panel.
pub const LATEST: usize = 30;

/// The files `--watch` and `--summary` name.
#[derive(Clone, Debug)]
pub struct WatchFiles {
    /// The tournament's PDN output.
    pub pdn: PathBuf,
    /// Its `--json` summary, when given.
    pub summary: Option<PathBuf>,
}

/// One engine's standing, counted from the games in the PDN file.
#[derive(Clone, Debug, Serialize)]
pub struct Standing {
    /// The engine's name (`[White]` / `[Black]`).
    pub name: String,
    /// Games played.
    pub games: u64,
    /// Wins, draws, losses.
    pub wdl: [u64; 3],
    /// Score in `[0, 1]`.
    pub score: f64,
    /// Elo against the field with its 95% interval (value, lower, upper).
    pub elo: [f64; 3],
}

/// A game in the list.
#[derive(Clone, Debug, Serialize)]
pub struct GameLine {
    /// Index in the file (what `/api/watch/open` takes).
    pub index: usize,
    /// `[White]`.
    pub white: String,
    /// `[Black]`.
    pub black: String,
    /// `[Round]`.
    pub round: String,
    /// The result token.
    pub result: &'static str,
    /// Plies.
    pub plies: usize,
    /// `[GameType]`.
    pub game: String,
}

impl GameLine {
    /// The line of record `index`.
    pub fn of(index: usize, rec: &GameRecord) -> Self {
        GameLine {
            index,
            white: rec.white.clone(),
            black: rec.black.clone(),
            round: rec.round.clone(),
            result: rec.result.as_str(),
            plies: rec.moves.len(),
            game: rec.game_type.clone(),
        }
    }
}

/// What the panel shows.
#[derive(Clone, Debug, Serialize)]
pub struct WatchView {
    /// The watched file's name (not its folder).
    pub file: String,
    /// Games read.
    pub games: usize,
    /// Records that did not read (their first error, if any).
    pub errors: usize,
    /// First read error.
    pub first_error: Option<String>,
    /// Standings from the games, best score first.
    pub standings: Vec<Standing>,
    /// The latest games, newest first.
    pub latest: Vec<GameLine>,
    /// The JSON summary as written by `bushka selfplay --json` (Elo,
    /// pentanomial, SPRT with its LLR), when it exists and reads.
    pub summary: Option<serde_json::Value>,
    /// Why the summary named by `--summary` cannot be read, when it exists
    /// but does not read (none while it is not yet written).
    pub summary_error: Option<String>,
}

/// The games read from the file.
#[derive(Clone, Default)]
struct Snapshot {
    games: Arc<Vec<GameRecord>>,
    errors: usize,
    first_error: Option<String>,
}

/// The last snapshot, kept while the file does not change.
#[derive(Default)]
struct Cache {
    stamp: Option<(SystemTime, u64)>,
    snapshot: Snapshot,
}

/// Reads the watched files again when they change.
pub struct Watcher {
    files: WatchFiles,
    cache: Mutex<Cache>,
}

impl Watcher {
    /// A watcher of `files` (nothing is read yet).
    pub fn new(files: WatchFiles) -> Self {
        Watcher {
            files,
            cache: Mutex::new(Cache::default()),
        }
    }

    /// The games of the file now (read again if it changed).
    pub fn games(&self) -> Result<Arc<Vec<GameRecord>>, String> {
        self.refresh().map(|s| s.games)
    }

    fn refresh(&self) -> Result<Snapshot, String> {
        let meta = std::fs::metadata(&self.files.pdn)
            .map_err(|e| format!("{}: {e}", self.files.pdn.display()))?;
        let stamp = (
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            meta.len(),
        );
        let mut cache = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.stamp != Some(stamp) {
            let file = std::fs::File::open(&self.files.pdn)
                .map_err(|e| format!("{}: {e}", self.files.pdn.display()))?;
            let mut games = Vec::new();
            let (mut errors, mut first_error) = (0, None);
            for rec in PdnReader::new(std::io::BufReader::new(file)) {
                match rec {
                    Ok(r) => games.push(r),
                    Err(e) => {
                        errors += 1;
                        first_error.get_or_insert_with(|| e.to_string());
                    }
                }
            }
            *cache = Cache {
                stamp: Some(stamp),
                snapshot: Snapshot {
                    games: Arc::new(games),
                    errors,
                    first_error,
                },
            };
        }
        Ok(cache.snapshot.clone())
    }

    /// The panel's view now.
    pub fn view(&self) -> Result<WatchView, String> {
        let Snapshot {
            games,
            errors,
            first_error,
        } = self.refresh()?;
        let (summary, summary_error) = match &self.files.summary {
            None => (None, None),
            Some(path) => read_summary(path),
        };
        Ok(WatchView {
            file: self
                .files
                .pdn
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            games: games.len(),
            errors,
            first_error,
            standings: standings(&games),
            latest: games
                .iter()
                .enumerate()
                .rev()
                .take(LATEST)
                .map(|(i, r)| GameLine::of(i, r))
                .collect(),
            summary,
            summary_error,
        })
    }
}

/// The JSON summary at `path`, or why it does not read (nothing while the
/// file does not exist yet).
fn read_summary(path: &Path) -> (Option<serde_json::Value>, Option<String>) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match std::fs::read_to_string(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
        Err(e) => (None, Some(format!("cannot read the summary {name}: {e}"))),
        Ok(text) => match serde_json::from_str(&text) {
            Ok(v) => (Some(v), None),
            Err(e) => (None, Some(format!("the summary {name} is not JSON: {e}"))),
        },
    }
}

/// Each engine's results against the field, from finished games.
pub fn standings(games: &[GameRecord]) -> Vec<Standing> {
    let mut tally: BTreeMap<&str, Trinomial> = BTreeMap::new();
    for g in games {
        let (w, b) = match g.result {
            PdnResult::WhiteWins => ((1, 0, 0), (0, 0, 1)),
            PdnResult::BlackWins => ((0, 0, 1), (1, 0, 0)),
            PdnResult::Draw => ((0, 1, 0), (0, 1, 0)),
            PdnResult::Unknown => continue,
        };
        for (name, (win, draw, loss)) in [(g.white.as_str(), w), (g.black.as_str(), b)] {
            let t = tally.entry(name).or_default();
            t.wins += win;
            t.draws += draw;
            t.losses += loss;
        }
    }
    let mut out: Vec<Standing> = tally
        .into_iter()
        .map(|(name, t)| {
            let e = t.estimates();
            Standing {
                name: name.to_string(),
                games: t.games(),
                wdl: [t.wins, t.draws, t.losses],
                score: e.score,
                elo: [e.elo.value, e.elo.lower, e.elo.upper],
            }
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out
}
