//! The watch panel: a self-play tournament read from its PDN file (and its
//! JSON summary) while it is played. Both paths come from the command line;
//! a request only ever names a game by its index.

use selfplay::pdn::{GameRecord, PdnReader, PdnResult};
use selfplay::stats::Trinomial;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
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
    /// Elo against the field with its 95% interval (value, lower, upper);
    /// `"inf"` or `"-inf"` for a 100% or 0% score.
    #[serde(serialize_with = "selfplay::stats::serialize_elo")]
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

/// What has been read of the watched file: the complete games up to
/// `consumed`, read once each as the file grows, and the games of a last
/// part that may still be being written, read again at each change.
#[derive(Default)]
struct Cache {
    stamp: Option<(SystemTime, u64)>,
    /// Bytes of complete games read.
    consumed: u64,
    /// Lines in those bytes (errors name lines of the whole file).
    lines: usize,
    /// The last bytes before `consumed`, to see that the file was appended
    /// to rather than replaced.
    seam: Vec<u8>,
    games: Arc<Vec<GameRecord>>,
    errors: usize,
    first_error: Option<String>,
    snapshot: Snapshot,
}

/// Bytes kept before the read position to recognise the file.
const SEAM: u64 = 256;

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
        let path = &self.files.pdn;
        let named = |e: std::io::Error| format!("{}: {e}", path.display());
        let meta = std::fs::metadata(path).map_err(named)?;
        let stamp = (
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            meta.len(),
        );
        let mut cache = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.stamp != Some(stamp) {
            let mut file = std::fs::File::open(path).map_err(named)?;
            if !appended_to(&mut file, &cache).map_err(named)? {
                *cache = Cache::default();
            }
            let mut new = Vec::new();
            file.seek(SeekFrom::Start(cache.consumed)).map_err(named)?;
            file.read_to_end(&mut new).map_err(named)?;
            let complete = selfplay::output::complete_len(&new);
            let cache = &mut *cache;
            // The games are added to in place unless a view still holds them.
            cache.snapshot = Snapshot::default();
            let games = Arc::make_mut(&mut cache.games);
            for rec in PdnReader::after_lines(&new[..complete], cache.lines) {
                match rec {
                    Ok(r) => games.push(r),
                    Err(e) => {
                        cache.errors += 1;
                        cache.first_error.get_or_insert_with(|| e.to_string());
                    }
                }
            }
            cache.consumed += complete as u64;
            cache.lines += new[..complete].iter().filter(|&&b| b == b'\n').count();
            let kept = (cache.consumed.min(SEAM) as usize).min(complete);
            if kept > 0 {
                cache.seam = new[complete - kept..complete].to_vec();
            }
            // A last part that does not end a game yet may be a game being
            // written: its games that read are shown, its errors are not
            // counted (it is read again when the file changes).
            let tail: Vec<GameRecord> = PdnReader::after_lines(&new[complete..], cache.lines)
                .filter_map(Result::ok)
                .collect();
            let shown = if tail.is_empty() {
                Arc::clone(&cache.games)
            } else {
                let mut all = Vec::clone(&cache.games);
                all.extend(tail);
                Arc::new(all)
            };
            cache.snapshot = Snapshot {
                games: shown,
                errors: cache.errors,
                first_error: cache.first_error.clone(),
            };
            cache.stamp = Some(stamp);
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

/// True when `file` still holds what was read into `cache` (it grew, or
/// was rewritten with the same start): the bytes before the read position
/// are those seen there.
fn appended_to(file: &mut std::fs::File, cache: &Cache) -> std::io::Result<bool> {
    if cache.consumed == 0 {
        return Ok(true);
    }
    let seam = cache.seam.len() as u64;
    if file.metadata()?.len() < cache.consumed || seam > cache.consumed {
        return Ok(false);
    }
    let mut now = vec![0; cache.seam.len()];
    file.seek(SeekFrom::Start(cache.consumed - seam))?;
    file.read_exact(&mut now)?;
    Ok(now == cache.seam)
}

/// The JSON summary at `path`, or why it does not read (nothing while the
/// file does not exist yet).
fn read_summary(path: &Path) -> (Option<serde_json::Value>, Option<String>) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match engine::files::read_regular_to_string(path, engine::files::MAX_TEXT_FILE) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
        Err(e) => (None, Some(format!("cannot read the summary {name}: {e}"))),
        Ok(text) => match serde_json::from_str(&text) {
            Ok(v) => (Some(v), None),
            Err(e) => {
                let e = engine::files::escape_controls(&e.to_string());
                (None, Some(format!("the summary {name} is not JSON: {e}")))
            }
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
