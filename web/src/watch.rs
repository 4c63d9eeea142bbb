//! The watch panel: a self-play tournament read from its PDN file (and its
//! JSON summary) while it is played. Both paths come from the command line;
//! a request only ever names a game by its index.

use selfplay::pdn::{GameRecord, PdnReader, PdnResult};
use selfplay::stats::Trinomial;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
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
    /// The file is being read still (more was new than one look reads):
    /// the games, standings and latest games are those read so far.
    pub reading: bool,
    /// The JSON summary as written by `bushka selfplay --json` (Elo,
    /// pentanomial, SPRT with its LLR), when it exists and reads.
    pub summary: Option<serde_json::Value>,
    /// Why the summary named by `--summary` cannot be read, when it exists
    /// but does not read (none while it is not yet written).
    pub summary_error: Option<String>,
}

/// Where a game read is in the file: the bytes of the complete game it was
/// read from (a game's text as the harness writes it, which may hold more
/// than one record when written otherwise) and its place among their
/// records.
#[derive(Clone, Copy)]
struct Place {
    start: u64,
    len: u32,
    nth: u32,
}

/// What has been read of the watched file: for the complete games up to
/// the read place, read once each as the file grows, only what the panel
/// shows (each engine's results, the latest games, where every game is, to
/// be read again when opened), so that the memory stays small however many
/// games the file holds; and the games of a last part that may still be
/// being written, read again at each change.
#[derive(Default)]
struct Cache {
    stamp: Option<(SystemTime, u64)>,
    /// The bytes of complete games read (and the last of them, to see
    /// that the file was appended to rather than replaced).
    place: engine::files::ReadPlace,
    /// Lines in those bytes (errors name lines of the whole file).
    lines: usize,
    /// Every complete game read, in order.
    places: Vec<Place>,
    /// Each engine's results in those games.
    tally: BTreeMap<String, Trinomial>,
    /// The last [`LATEST`] of them, newest last.
    latest: VecDeque<GameLine>,
    errors: usize,
    first_error: Option<String>,
    /// The games of the last part, not yet ended as the harness ends a
    /// game (a game being written).
    tail: Vec<GameRecord>,
    /// The file was not read to its end at the last look (more than
    /// [`READ_AT_ONCE`] new bytes): the next look goes on.
    behind: bool,
    /// Within a game longer than a chunk, counted as an error already and
    /// passed over to its end (which a later look may reach).
    skipping: bool,
}

/// The most bytes held at once while reading: a game longer than this
/// (no game the harness writes) is counted as an error and skipped.
const CHUNK: usize = 16 << 20;

/// The most new bytes one look reads, so that a request on a large file
/// answers within seconds; the next look goes on from there.
const READ_AT_ONCE: u64 = 64 << 20;

/// Reads the watched files again when they change.
pub struct Watcher {
    files: WatchFiles,
    cache: Mutex<Cache>,
    /// [`CHUNK`] and [`READ_AT_ONCE`] (smaller in tests).
    chunk: usize,
    read_at_once: u64,
}

impl Watcher {
    /// A watcher of `files` (nothing is read yet).
    pub fn new(files: WatchFiles) -> Self {
        Watcher {
            files,
            cache: Mutex::new(Cache::default()),
            chunk: CHUNK,
            read_at_once: READ_AT_ONCE,
        }
    }

    /// Game `index` of the file now (read again if it changed), or the
    /// number of games when there is no such game.
    pub fn game(&self, index: usize) -> Result<Result<GameRecord, usize>, String> {
        let path = &self.files.pdn;
        let named = |e: std::io::Error| format!("{}: {e}", path.display());
        let mut cache = self.lock();
        self.refresh(&mut cache)?;
        let Some(place) = cache.places.get(index).copied() else {
            let tail = index - cache.places.len();
            return Ok(cache
                .tail
                .get(tail)
                .cloned()
                .ok_or(cache.places.len() + cache.tail.len()));
        };
        let mut file = engine::files::open_regular(path).map_err(named)?;
        let mut bytes = vec![0; place.len as usize];
        file.seek(SeekFrom::Start(place.start)).map_err(named)?;
        file.read_exact(&mut bytes).map_err(named)?;
        match PdnReader::new(&bytes[..]).nth(place.nth as usize) {
            Some(Ok(rec)) => Ok(Ok(rec)),
            _ => Err(format!(
                "{}: game {} is no longer where it was read (the file changed)",
                path.display(),
                index + 1
            )),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|poisoned| {
            // A look that panicked part-way (a defect) may have left games
            // half counted: the file is read again from its start.
            let mut cache = poisoned.into_inner();
            *cache = Cache::default();
            self.cache.clear_poison();
            cache
        })
    }

    /// Reads what was appended to the file since the last look (the whole
    /// file again when it was replaced).
    fn refresh(&self, cache: &mut Cache) -> Result<(), String> {
        let path = &self.files.pdn;
        let named = |e: std::io::Error| format!("{}: {e}", path.display());
        let meta = std::fs::metadata(path).map_err(named)?;
        if !meta.is_file() {
            return Err(format!("{}: not a regular file", path.display()));
        }
        let stamp = (
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            meta.len(),
        );
        if cache.stamp == Some(stamp) && !cache.behind {
            return Ok(());
        }
        let mut file = engine::files::open_regular(path).map_err(named)?;
        if !cache.place.still_in(&mut file).map_err(named)? {
            *cache = Cache::default();
        }
        file.seek(SeekFrom::Start(cache.place.read()))
            .map_err(named)?;
        cache.tail.clear();
        cache.behind = false;
        let mut buf: Vec<u8> = Vec::new();
        let mut read = 0u64;
        loop {
            let want = ((self.chunk - buf.len()) as u64).min(self.read_at_once - read);
            let n = (&mut file)
                .take(want)
                .read_to_end(&mut buf)
                .map_err(named)? as u64;
            read += n;
            let at_end = n < want;
            let mut complete = 0;
            for end in selfplay::output::game_ends(&buf) {
                if cache.skipping {
                    // The end of the game too long to hold.
                    cache.pass(&buf[..end]);
                    cache.skipping = false;
                } else {
                    cache.add_games(&buf[complete..end]);
                }
                complete = end;
            }
            if complete == 0 && buf.len() == self.chunk {
                // No game ends in a whole chunk: not a game the harness
                // writes. One error, and passed over up to its end.
                if !cache.skipping {
                    cache.errors += 1;
                    cache.first_error.get_or_insert_with(|| {
                        format!(
                            "line {}: a game longer than {} bytes",
                            cache.lines + 1,
                            self.chunk
                        )
                    });
                    cache.skipping = true;
                }
                cache.pass(&buf);
                complete = self.chunk;
            }
            buf.drain(..complete);
            if at_end {
                // A last part that does not end a game yet may be a game
                // being written: its games that read are shown, its errors
                // are not counted (it is read again when the file changes).
                // (Nothing while within a game too long to hold.)
                if !cache.skipping {
                    cache.tail = PdnReader::after_lines(&buf[..], cache.lines)
                        .filter_map(Result::ok)
                        .collect();
                }
                break;
            }
            if read >= self.read_at_once {
                cache.behind = true;
                break;
            }
        }
        cache.stamp = Some(stamp);
        Ok(())
    }

    /// The panel's view now.
    pub fn view(&self) -> Result<WatchView, String> {
        let (summary, summary_error) = match &self.files.summary {
            None => (None, None),
            Some(path) => read_summary(path),
        };
        let mut cache = self.lock();
        self.refresh(&mut cache)?;
        let complete = cache.places.len();
        let mut tally = cache.tally.clone();
        for rec in &cache.tail {
            count(&mut tally, rec);
        }
        let tail = cache.tail.iter().enumerate().rev();
        let latest = tail
            .map(|(i, r)| GameLine::of(complete + i, r))
            .chain(cache.latest.iter().rev().cloned())
            .take(LATEST)
            .collect();
        Ok(WatchView {
            file: self
                .files
                .pdn
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            games: complete + cache.tail.len(),
            errors: cache.errors,
            first_error: cache.first_error.clone(),
            standings: standings_of(tally),
            latest,
            reading: cache.behind,
            summary,
            summary_error,
        })
    }
}

impl Cache {
    /// Reads the records of one complete game's text, the next bytes of the
    /// file after the read place.
    fn add_games(&mut self, text: &[u8]) {
        let start = self.place.read();
        // Counted as `game` counts them again: records that read or not.
        for (nth, rec) in PdnReader::after_lines(text, self.lines).enumerate() {
            match rec {
                Ok(r) => {
                    let index = self.places.len();
                    self.places.push(Place {
                        start,
                        // A game's text is under CHUNK bytes.
                        len: text.len() as u32,
                        nth: nth as u32,
                    });
                    count(&mut self.tally, &r);
                    if self.latest.len() == LATEST {
                        self.latest.pop_front();
                    }
                    self.latest.push_back(GameLine::of(index, &r));
                }
                Err(e) => {
                    self.errors += 1;
                    self.first_error.get_or_insert_with(|| e.to_string());
                }
            }
        }
        self.pass(text);
    }

    /// Moves the read place past `text`, the next bytes of the file.
    fn pass(&mut self, text: &[u8]) {
        self.lines += text.iter().filter(|&&b| b == b'\n').count();
        self.place.pass(text);
    }
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

/// Counts a game's result for both its engines (a game without one is not
/// counted).
fn count(tally: &mut BTreeMap<String, Trinomial>, g: &GameRecord) {
    let (w, b) = match g.result {
        PdnResult::WhiteWins => ((1, 0, 0), (0, 0, 1)),
        PdnResult::BlackWins => ((0, 0, 1), (1, 0, 0)),
        PdnResult::Draw => ((0, 1, 0), (0, 1, 0)),
        PdnResult::Unknown => return,
    };
    for (name, (win, draw, loss)) in [(&g.white, w), (&g.black, b)] {
        let t = tally.entry(name.clone()).or_default();
        t.wins += win;
        t.draws += draw;
        t.losses += loss;
    }
}

/// The standings of counted results, best score first.
fn standings_of(tally: BTreeMap<String, Trinomial>) -> Vec<Standing> {
    let mut out: Vec<Standing> = tally
        .into_iter()
        .map(|(name, t)| {
            let e = t.estimates();
            Standing {
                name,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A game as the harness writes it, told apart by its round.
    fn game(round: usize, result: &str) -> String {
        format!(
            "[Event \"t\"]\n[Round \"{round}\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"{result}\"]\n\n1. ig6 ef8 {result}\n\n"
        )
    }

    fn watcher(dir: &Path, text: &str, chunk: usize, read_at_once: u64) -> Watcher {
        let pdn = dir.join("run.pdn");
        std::fs::write(&pdn, text).unwrap();
        let mut w = Watcher::new(WatchFiles { pdn, summary: None });
        (w.chunk, w.read_at_once) = (chunk, read_at_once);
        w
    }

    /// A large file is read a part a look, in chunks, holding only the
    /// tallies, the latest games and where each game is; every game opens.
    #[test]
    fn a_large_file_is_read_in_parts_and_its_games_reopened() {
        let dir = tempfile::tempdir().unwrap();
        let results = ["1-0", "0-1", "1/2-1/2"];
        let text: String = (0..40).map(|i| game(i + 1, results[i % 3])).collect();
        let one = game(1, "1-0").len();
        let w = watcher(dir.path(), &text, 3 * one + 7, 10 * one as u64);
        let mut looks = 0;
        let view = loop {
            looks += 1;
            let v = w.view().unwrap();
            assert!(looks < 10, "never read to the end");
            if !v.reading {
                break v;
            }
            assert!(v.games < 40);
        };
        assert!(looks >= 4, "read at once ({looks} looks)");
        assert_eq!((view.games, view.errors), (40, 0));
        let a = &view.standings.iter().find(|s| s.name == "a").unwrap().wdl;
        assert_eq!(*a, [14, 13, 13]);
        let latest: Vec<usize> = view.latest.iter().map(|g| g.index).collect();
        assert_eq!(latest, (10..40).rev().collect::<Vec<_>>());
        for i in [0, 17, 39] {
            assert_eq!(w.game(i).unwrap().unwrap().round, (i + 1).to_string());
        }
        assert_eq!(w.game(40).unwrap().unwrap_err(), 40);
        // A game being written shows; once ended it is counted.
        let pdn = dir.path().join("run.pdn");
        let next = game(41, "1-0");
        let cut = next.len() - 1;
        std::fs::write(&pdn, format!("{text}{}", &next[..cut])).unwrap();
        let v = w.view().unwrap();
        assert_eq!((v.games, v.latest[0].index, v.errors), (41, 40, 0));
        assert_eq!(w.game(40).unwrap().unwrap().round, "41");
        std::fs::write(&pdn, format!("{text}{next}")).unwrap();
        assert_eq!(w.view().unwrap().games, 41);
    }

    /// A record that does not read, then games in the same block of text
    /// (no blank line between them): each game listed opens as itself.
    #[test]
    fn a_game_after_a_bad_record_opens() {
        let dir = tempfile::tempdir().unwrap();
        // A comment never closed: the record is refused, and the reader
        // takes up again after it.
        let bad = "[Event \"t\"]\n[Round \"0\"]\n[Result \"1-0\"]\n\n1. ig6 {unclosed\n\n";
        let text = format!("{bad}{}\n{}", game(1, "1-0").trim_end(), game(2, "0-1"));
        let w = watcher(dir.path(), &text, CHUNK, READ_AT_ONCE);
        let v = w.view().unwrap();
        // (How the reader takes up again after the refused record is its
        // own affair: here the next game reads, and an error comes before
        // the one after, which reads without its tags.)
        assert!(v.errors >= 1 && v.games == 2, "{v:?}");
        assert_eq!(v.latest[1].round, "1", "{v:?}");
        for line in &v.latest {
            let rec = w.game(line.index).unwrap().unwrap();
            assert_eq!(
                (&rec.round, &rec.white, rec.moves.len()),
                (&line.round, &line.white, line.plies)
            );
        }
    }

    /// A game longer than a chunk, still being written at one look and
    /// ended at the next, is one error; a look reads no more than its
    /// limit.
    #[test]
    fn a_long_game_ended_at_a_later_look_is_one_error() {
        let dir = tempfile::tempdir().unwrap();
        let head = format!("{}[Event \"t\"]\n\n{}", game(1, "1-0"), "x ".repeat(400));
        let w = watcher(dir.path(), &head, 300, 1 << 20);
        let v = w.view().unwrap();
        assert_eq!((v.games, v.errors), (1, 1), "{v:?}");
        std::fs::write(
            dir.path().join("run.pdn"),
            format!("{head}1-0\n\n{}", game(2, "0-1")),
        )
        .unwrap();
        let v = w.view().unwrap();
        assert_eq!((v.games, v.errors), (2, 1), "{v:?}");
        assert_eq!(w.game(1).unwrap().unwrap().round, "2");
        // The limit of a look is kept to the byte.
        let text: String = (0..10).map(|i| game(i + 1, "1-0")).collect();
        let one = game(1, "1-0").len() as u64;
        let w = watcher(dir.path(), &text, 1 << 20, 2 * one + 5);
        let v = w.view().unwrap();
        assert!(v.reading);
        assert_eq!(v.games, 2);
        assert_eq!(w.lock().place.read(), 2 * one);
    }

    /// A part where no game ends within a chunk is one error; the games
    /// after it read.
    #[test]
    fn a_game_longer_than_a_chunk_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let long = format!("[Event \"t\"]\n\n{}1-0\n\n", "x ".repeat(400));
        let text = format!("{}{long}{}", game(1, "1-0"), game(2, "0-1"));
        let w = watcher(dir.path(), &text, 300, 1 << 20);
        let v = w.view().unwrap();
        assert_eq!(v.errors, 1);
        assert!(
            v.first_error
                .as_deref()
                .unwrap()
                .contains("longer than 300 bytes"),
            "{:?}",
            v.first_error
        );
        assert_eq!(v.games, 2, "{v:?}");
        assert_eq!(w.game(1).unwrap().unwrap().round, "2");
    }

    /// A look that panicked with the lock held leaves no half-counted
    /// games: the next look reads the file again from its start.
    #[test]
    fn a_look_that_panicked_counts_nothing_twice() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{}{}", game(1, "1-0"), game(2, "0-1"));
        let w = watcher(dir.path(), &text, 1 << 20, 1 << 20);
        assert_eq!(w.view().unwrap().games, 2);
        let third = game(3, "1-0");
        std::fs::write(&w.files.pdn, format!("{text}{third}")).unwrap();
        let poisoned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut cache = w.lock();
            // As a look stopped between counting game 3 and moving past it.
            let (place, lines) = (cache.place.clone(), cache.lines);
            cache.add_games(third.as_bytes());
            (cache.place, cache.lines) = (place, lines);
            panic!("a defect");
        }));
        assert!(poisoned.is_err() && w.cache.is_poisoned());
        let v = w.view().unwrap();
        assert_eq!((v.games, v.errors), (3, 0), "{v:?}");
        let tally: Vec<_> = v.standings.iter().map(|s| s.games).collect();
        assert_eq!(tally, [3, 3], "{v:?}");
    }
}
