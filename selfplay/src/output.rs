//! Result files written as games finish, and their recovery on `--resume`.

use crate::pdn::{GameRecord, PdnReader};
use engine::data::DataLine;
use engine::files::{read_line_capped, skip_line, LineRead, MAX_LINE};
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// A file that every finished game is appended to and flushed.
pub struct AppendFile {
    file: File,
    path: PathBuf,
    /// A regular file (not a pipe or a device, which cannot be synced).
    regular: bool,
}

impl AppendFile {
    /// Opens for appending (creating it).
    pub fn open(path: &Path) -> Result<Self, String> {
        // Standard output through the process's own descriptor: what it
        // prints after (the table) follows the games, not over them.
        let file = engine::files::open_append(path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        Ok(AppendFile {
            file,
            path: path.to_path_buf(),
            regular,
        })
    }

    /// Appends a block in one write and flushes it to the operating system.
    pub fn append(&mut self, text: &str) -> Result<(), String> {
        self.file
            .write_all(text.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }

    /// Whether this is a regular file, which [`AppendFile::sync`] flushes.
    pub fn is_regular(&self) -> bool {
        self.regular
    }

    /// Flushes what was appended to the disk itself (a pipe or a device
    /// has no disk: nothing to do).
    pub fn sync(&mut self) -> Result<(), String> {
        if !self.regular {
            return Ok(());
        }
        self.file
            .sync_data()
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// True when a file exists and has content.
pub fn has_content(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() > 0)
}

/// Refuses two outputs of one run named by the same path (`--pdn`, `--data`,
/// `--json`, ...): one would replace the other. `outputs` pairs each option
/// with its path, if given.
pub fn distinct_outputs(outputs: &[(&str, Option<&Path>)]) -> Result<(), String> {
    // The folder resolved (links, `..`) and the file's name: a file not
    // written yet is named alike however its folder is spelt.
    let key = |p: &Path| {
        // Links followed as the writer follows them (a dangling one too).
        let p = engine::files::output_target(p).unwrap_or_else(|_| p.to_path_buf());
        let p = p.canonicalize().unwrap_or(p);
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let dir = dir
            .canonicalize()
            .or_else(|_| std::path::absolute(&dir))
            .unwrap_or(dir);
        dir.join(p.file_name().unwrap_or_default())
    };
    // By key: a cluster run names three files a shard, for up to 100,000.
    let mut seen: HashMap<PathBuf, &str> = HashMap::new();
    for &(a, path) in outputs {
        let Some(path) = path else { continue };
        if let Some(b) = seen.insert(key(path), a) {
            return Err(format!(
                "{b} and {a} name the same file {}: give each its own",
                path.display()
            ));
        }
    }
    Ok(())
}

/// Refuses outputs that would replace an input or each other; inputs may
/// share a file (two engines with the same weights).
pub fn spare_inputs(
    outputs: &[(&str, Option<&Path>)],
    inputs: &[(&str, Option<&Path>)],
) -> Result<(), String> {
    distinct_outputs(outputs)?;
    for &input in inputs.iter().filter(|(_, p)| p.is_some()) {
        let mut files = outputs.to_vec();
        files.push(input);
        distinct_outputs(&files)?;
    }
    Ok(())
}

/// [`writable_place`] for each output given.
pub fn writable_places(outputs: &[(&str, Option<&Path>)]) -> Result<(), String> {
    for &(option, path) in outputs {
        if let Some(path) = path {
            writable_place(option, path)?;
        }
    }
    Ok(())
}

/// Refuses an output file that could not be written where it is named (a
/// folder, a socket, in a folder that does not exist or cannot be written
/// into): checked before the work, whose result would be lost when written
/// at the end.
pub fn writable_place(option: &str, path: &Path) -> Result<(), String> {
    // What the writer would refuse, and where a link leads.
    let target = engine::files::output_target(path).map_err(|e| format!("{option}: {e}"))?;
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(format!(
            "{option} {}: the folder {} does not exist",
            path.display(),
            dir.display()
        ));
    }
    // A file is replaced through a temporary beside it; a stream is
    // written into, and its folder is not tried.
    if engine::files::replaces_a_file(path) {
        engine::files::writable_dir(dir).map_err(|e| {
            format!(
                "{option} {}: cannot write in the folder {}: {e}",
                path.display(),
                dir.display()
            )
        })?;
    }
    Ok(())
}

/// [`writable_place`] for an output whose side files (a checkpoint, a
/// report, a journal) are named after it: it must be a file, since a
/// stream's name (`/dev/stdout`, a FIFO) would put them beside a device.
pub fn writable_file_with_sides(option: &str, path: &Path) -> Result<(), String> {
    writable_place(option, path)?;
    if !engine::files::replaces_a_file(path) {
        return Err(format!(
            "{option} {}: not a regular file, and the files written beside it are named after it: name a file",
            path.display()
        ));
    }
    Ok(())
}

/// Reads the games of a PDN file back one at a time (never the whole file
/// at once) up to its last complete game, then cuts the file there (a game
/// being written when the run was killed is dropped), unless `on_game`
/// refused a game.
pub fn recover_pdn(
    path: &Path,
    mut on_game: impl FnMut(GameRecord) -> Result<(), String>,
) -> Result<(), String> {
    if !path.exists() {
        return Ok(());
    }
    // Standard output, a pipe or a device cannot be read back (or cut).
    if !engine::files::replaces_a_file(path) {
        return Err(format!(
            "{} is not a regular file: a run writing its records there cannot be resumed with them; resume with a PDN file",
            path.display()
        ));
    }
    let end = complete_prefix(path)?;
    let reader = BufReader::new(
        File::open(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?
            .take(end),
    );
    for g in PdnReader::new(reader) {
        on_game(g.map_err(|e| format!("{}: {e}", path.display()))?)?;
    }
    torn_record(path, end)?;
    // The torn end is cut only once every whole game has been accepted: a
    // file refused is left as it was.
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    file.set_len(end)
        .map_err(|e| format!("cannot truncate {}: {e}", path.display()))
}

/// The most bytes a game record being written when a run was killed can
/// have (a game of thousands of annotated plies is well under it).
const MAX_TORN: u64 = 1 << 20;

/// How every record the harness writes begins.
const RECORD_START: &[u8] = b"[Event \"";

/// Checks that what follows the complete games of a PDN file, from `end`,
/// can be a record the harness was writing when it was stopped: nothing,
/// text that begins as the harness's records do (`[Event "`), or zero bytes
/// a crash left where the last writes did not reach the disk; and shorter
/// than [`MAX_TORN`]. Anything else (a file of other text, notes after the
/// games) is not cut.
fn torn_record(path: &Path, end: u64) -> Result<(), String> {
    let refuse = || {
        format!(
            "{} ends with text that is not game records this program wrote: it was not changed; resume with the run's PDN file",
            path.display()
        )
    };
    let mut file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let len = file
        .metadata()
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .len();
    if len.saturating_sub(end) > MAX_TORN {
        return Err(refuse());
    }
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(end))
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let start = tail.iter().position(|b| !b.is_ascii_whitespace());
    let torn = match start.map(|i| &tail[i..]) {
        None => true,
        Some(rest) => {
            let n = rest.len().min(RECORD_START.len());
            rest[0] == 0 || rest[..n] == RECORD_START[..n]
        }
    };
    if torn {
        Ok(())
    } else {
        Err(refuse())
    }
}

/// Byte length of the part of a PDN file made of complete games: each game
/// written by the harness ends with its result token and a blank line.
fn complete_prefix(path: &Path) -> Result<u64, String> {
    let mut reader = BufReader::new(
        File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?,
    );
    let (mut offset, mut end) = (0u64, 0u64);
    let mut ends = GameEnds::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        // Bytes, not text: a write cut inside a character is no error here.
        let read = read_line_capped(&mut reader, &mut line, MAX_LINE)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        match read {
            LineRead::End => break,
            LineRead::TooLong => {
                return Err(format!(
                "{} has a line longer than {MAX_LINE} bytes: not game records this program wrote",
                path.display()
            ))
            }
            LineRead::Line => {}
        }
        // Zero bytes are a crash's hole where writes did not reach the disk:
        // the games after it are not counted (they are played again).
        if line.contains(&0) {
            break;
        }
        offset += line.len() as u64;
        if ends.ends_game(&String::from_utf8_lossy(&line)) {
            end = offset;
        }
    }
    Ok(end)
}

/// Finds where the games of a PDN file written by the harness end: each
/// ends with its result token and then a blank line.
#[derive(Default)]
struct GameEnds {
    result_seen: bool,
}

impl GameEnds {
    /// Takes the next line (with its end of line); true when it ends a game.
    fn ends_game(&mut self, line: &str) -> bool {
        let t = line.trim();
        if t.is_empty() {
            if self.result_seen && line.ends_with('\n') {
                self.result_seen = false;
                return true;
            }
        } else if !t.starts_with('[') {
            let last = t.rsplit(' ').next().unwrap_or("");
            self.result_seen = matches!(last, "1-0" | "0-1" | "1/2-1/2" | "*");
        }
        false
    }
}

/// The complete games of a PDN text as written by the harness, each with
/// its blank line; a game cut short at the end is left out.
pub fn complete_games(text: &str) -> Vec<&str> {
    let mut start = 0;
    game_ends(text.as_bytes())
        .into_iter()
        .map(|end| {
            let game = &text[start..end];
            start = end;
            game
        })
        .collect()
}

/// The byte offsets just past each complete game of a PDN file as written
/// by the harness; text that is not UTF-8 counts as bytes.
pub fn game_ends(bytes: &[u8]) -> Vec<usize> {
    let mut ends = GameEnds::default();
    let (mut out, mut offset) = (Vec::new(), 0);
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        offset += line.len();
        if ends.ends_game(&String::from_utf8_lossy(line)) {
            out.push(offset);
        }
    }
    out
}

/// The length in bytes of the complete games at the start of `bytes` (a PDN
/// file as written by the harness, perhaps with a game being written at its
/// end); text that is not UTF-8 counts as bytes.
pub fn complete_len(bytes: &[u8]) -> usize {
    game_ends(bytes).last().copied().unwrap_or(0)
}

/// Keeps the data lines of finished games only, streaming them into a new
/// file that replaces the old one; `on_kept` sees the position text of every
/// line kept. A game's lines are written as one block: should a game's block
/// appear twice, the first is kept, and within it the first line of each
/// ply. Memory is a set of game ids and one block's plies, not the file.
///
/// The harness writes each game's data, then its record, one game at a
/// time (both on the disk before the next game's), so what a stopped run
/// or a crash leaves beyond its finished games is a tail: the block of the
/// game whose record was not written, a torn last line (a prefix of a data
/// line), zero bytes where the last writes did not reach the disk. That
/// tail is dropped. The lines of more than `max_dropped` games without
/// records, a finished game's line after the tail began, or a line that is
/// not data elsewhere mean the file is not the run's or the PDN file is not
/// (another run's, notes, an old copy): nothing is rewritten and the answer
/// says so.
pub fn recover_data(
    path: &Path,
    finished: &HashSet<u64>,
    max_dropped: usize,
    mut on_kept: impl FnMut(&str),
) -> Result<Recovered, String> {
    // Every game's data begins with its start (ply 0, written even with
    // --dedup): a finished game without it was not written to this file.
    let missing = |mut ids: Vec<u64>| {
        ids.sort_unstable();
        ids.first().map(|first| {
            format!(
                "{} holds no positions of {} finished game(s) (round {} first): it is not the run's data file, or --data was added on resume; resume with the run's data file, or without --data",
                path.display(),
                ids.len(),
                first + 1
            )
        })
    };
    if !path.exists() {
        return match missing(finished.iter().copied().collect()) {
            Some(e) => Err(e),
            None => Ok(Recovered::default()),
        };
    }
    // A pipe, a device or standard output (even on a file) holds nothing
    // to keep, and is never replaced.
    if !engine::files::replaces_a_file(path) {
        return Err(format!(
            "{} is not a regular file: a run writing its data there cannot be resumed with it; resume with a data file, or without --data",
            path.display()
        ));
    }
    let input = BufReader::new(
        File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?,
    );
    let mut kept = 0;
    let mut dropped: HashSet<u64> = HashSet::new();
    let mut started: HashSet<u64> = HashSet::new();
    let mut unstarted: Vec<u64> = Vec::new();
    // Why the file is not the run's, when it is not.
    let mut refusal: Option<String> = None;
    let written = engine::files::write_atomic_with(path, |out| {
        let mut blocks: HashSet<u64> = HashSet::new();
        let mut plies: HashSet<u32> = HashSet::new();
        let (mut block, mut keep) = (None, false);
        let mut input = input;
        let mut buf = Vec::new();
        // The line where the tail begins, once it has.
        let mut tail: Option<u64> = None;
        // A line that is not data and can only be the last.
        let mut last_only: Option<u64> = None;
        let mut number = 0u64;
        let not_data = |n: u64| {
            format!(
                "{} line {n} is not a data line this program wrote: it is not the run's data file, and was not changed; resume with the run's data file",
                path.display()
            )
        };
        let mut refuse = |why: String| {
            refusal = Some(why);
            Err(std::io::Error::other("not the run's data file"))
        };
        loop {
            buf.clear();
            let read = read_line_capped(&mut input, &mut buf, MAX_LINE)?;
            if read == LineRead::End {
                break;
            }
            number += 1;
            if let Some(n) = last_only {
                return refuse(not_data(n));
            }
            let parsed = (read == LineRead::Line)
                .then(|| std::str::from_utf8(&buf).ok())
                .flatten()
                .and_then(|line| {
                    let line = line.trim_end_matches(['\n', '\r']);
                    let data = DataLine::parse(line).ok()?;
                    let id = data.game.parse::<u64>().ok()?;
                    Some((line, data, id))
                });
            let Some((line, data, id)) = parsed else {
                // Zero bytes from a crash anywhere in the tail; else a
                // torn line, which begins as a data line does (a game
                // id) and is the last.
                if !buf.contains(&0) {
                    if read == LineRead::TooLong || !buf.first().is_some_and(u8::is_ascii_digit) {
                        return refuse(not_data(number));
                    }
                    last_only = Some(number);
                }
                if read == LineRead::TooLong {
                    skip_line(&mut input)?;
                }
                tail.get_or_insert(number);
                continue;
            };
            if !finished.contains(&id) {
                tail.get_or_insert(number);
                dropped.insert(id);
                continue;
            }
            if let Some(t) = tail {
                return refuse(format!(
                    "{} line {number} holds a position of a finished game after line {t}, which is not one: are they the same run's games? The data file was not changed",
                    path.display()
                ));
            }
            if block != Some(id) {
                block = Some(id);
                plies.clear();
                keep = blocks.insert(id);
            }
            if keep && plies.insert(data.ply) {
                writeln!(out, "{line}")?;
                on_kept(data.position);
                kept += 1;
                if data.ply == 0 {
                    started.insert(id);
                }
            }
        }
        if dropped.len() > max_dropped {
            return refuse(format!(
                "{} holds positions of {} games not finished in the game records (a stop leaves {max_dropped} at most): are they the same run's? The data file was not changed",
                path.display(),
                dropped.len()
            ));
        }
        // Nothing is rewritten when the file is not the run's.
        unstarted.extend(finished.iter().filter(|id| !started.contains(id)));
        if !unstarted.is_empty() {
            return Err(std::io::Error::other("finished games without data"));
        }
        Ok(())
    });
    if let Some(why) = refusal {
        return Err(why);
    }
    if let Some(e) = missing(unstarted) {
        return Err(e);
    }
    written.map_err(|e| format!("cannot rewrite {}: {e}", path.display()))?;
    Ok(Recovered {
        kept,
        dropped: dropped.len(),
    })
}

/// What [`recover_data`] kept and dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Lines kept.
    pub kept: usize,
    /// Games whose lines were dropped (their records not written), at most
    /// the `max_dropped` asked for: for a caller that reports it.
    pub dropped: usize,
}

/// Writes a whole file atomically ([`engine::files`]).
pub fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    engine::files::write_atomic(path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outputs are told apart by the file they would write: a link (even
    /// one to a file not made yet) is the file it names; and an output is
    /// refused before the work where the writer would refuse it.
    #[cfg(unix)]
    #[test]
    fn outputs_are_the_files_their_links_name() {
        let dir = tempfile::tempdir().unwrap();
        let pdn = dir.path().join("games.pdn");
        let json = dir.path().join("s.json");
        std::os::unix::fs::symlink("games.pdn", &json).unwrap();
        let err = distinct_outputs(&[("--pdn", Some(&pdn)), ("--json", Some(&json))]).unwrap_err();
        assert!(
            err.starts_with("--pdn and --json name the same file"),
            "{err}"
        );
        let other = dir.path().join("other.json");
        assert_eq!(
            distinct_outputs(&[("--pdn", Some(&pdn)), ("--json", Some(&other))]),
            Ok(())
        );
        // A link into a folder that does not exist, and a socket.
        let lost = dir.path().join("lost.json");
        std::os::unix::fs::symlink("no-such-folder/x.json", &lost).unwrap();
        let err = writable_place("--json", &lost).unwrap_err();
        assert!(err.contains("the folder"), "{err}");
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let err = writable_place("--json", &socket).unwrap_err();
        assert!(
            err.starts_with("--json: ") && err.contains("neither a file"),
            "{err}"
        );
        assert_eq!(writable_place("--json", Path::new("/dev/stdout")), Ok(()));
        // A folder that exists but cannot be written into: one without
        // write permission (which root may still write), and /sys (which
        // even root may not).
        use std::os::unix::fs::PermissionsExt;
        let ro = dir.path().join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        let mut refused = 0;
        for out in [
            ro.join("x.json"),
            PathBuf::from("/sys/bushka-write-check.json"),
        ] {
            let folder = out.parent().unwrap();
            if !folder.is_dir() || engine::files::writable_dir(folder).is_ok() {
                continue;
            }
            let err = writable_place("--json", &out).unwrap_err();
            assert!(
                err.starts_with(&format!(
                    "--json {}: cannot write in the folder {}: ",
                    out.display(),
                    folder.display()
                )),
                "{err}"
            );
            refused += 1;
        }
        if refused == 0 {
            eprintln!("skipped: no folder this process cannot write into");
        }
        assert_eq!(std::fs::read_dir(&ro).unwrap().count(), 0, "nothing left");
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(writable_place("--json", &ro.join("x.json")), Ok(()));
        assert_eq!(std::fs::read_dir(&ro).unwrap().count(), 0, "nothing left");
        // Records on a stream cannot be resumed: refused, not read or cut.
        for stream in ["/dev/null", "/dev/stdout"] {
            let err = recover_pdn(Path::new(stream), |_| Ok(())).unwrap_err();
            assert!(err.contains("is not a regular file"), "{err}");
        }
    }

    #[test]
    fn complete_games_are_cut_after_each_result_and_blank_line() {
        let one = "[Event \"e\"]\n[Round \"1\"]\n\n1. e23 b56 1-0\n\n";
        let two = "[Round \"2\"]\n\n1. e23 1/2-1/2\n\n";
        let torn = "[Round \"3\"]\n\n1. e23 b";
        let text = format!("{one}{two}{torn}");
        assert_eq!(complete_games(&text), [one, two]);
        assert_eq!(complete_games(one.trim_end()), Vec::<&str>::new());
        assert!(complete_games("").is_empty());
    }

    /// The rounds of the games `recover_pdn` keeps.
    fn rounds_recovered(path: &Path) -> Vec<String> {
        let mut rounds = Vec::new();
        recover_pdn(path, |g| {
            rounds.push(g.round);
            Ok(())
        })
        .unwrap();
        rounds
    }

    /// A write cut inside a character (a name in UTF-8) is a torn game like
    /// any other: cut off, the whole games before it kept.
    #[test]
    fn a_game_cut_inside_a_character_is_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.pdn");
        let whole = "[Round \"1\"]\n[White \"ä\"]\n\n1. e23 1-0\n\n";
        let mut bytes = whole.as_bytes().to_vec();
        bytes.extend_from_slice(b"[Event \"e\"]\n[Round \"2\"]\n[White \"\xC3");
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(rounds_recovered(&path), ["1"]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
    }

    #[test]
    fn a_refused_pdn_is_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.pdn");
        let text = "[Round \"1\"]\n\n1. e23 1-0\n\n[Event \"e\"]\n[Round \"2\"]\n\n1. e23 b";
        std::fs::write(&path, text).unwrap();
        let err = recover_pdn(&path, |_| Err("not this run".into())).unwrap_err();
        assert_eq!(err, "not this run");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert_eq!(rounds_recovered(&path), ["1"]);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[Round \"1\"]\n\n1. e23 1-0\n\n"
        );
    }

    /// Writes `text` to `path` and checks that `recover` refuses it in one
    /// line saying all of `expect`, leaving the file as it was.
    fn refused_unchanged(
        path: &Path,
        text: &str,
        expect: &[&str],
        recover: impl FnOnce(&Path) -> Result<(), String>,
    ) {
        std::fs::write(path, text).unwrap();
        let err = recover(path).unwrap_err();
        assert!(
            expect.iter().all(|e| err.contains(e)) && !err.contains('\n'),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(path).unwrap(), text);
    }

    /// `recover_data` of a run whose records finish `finished`, one game
    /// without its record allowed.
    fn data_of(finished: &[u64]) -> impl Fn(&Path) -> Result<(), String> + '_ {
        move |path| recover_data(path, &finished.iter().copied().collect(), 1, |_| {}).map(|_| ())
    }

    /// `recover_pdn` accepting every game.
    fn pdn_of(path: &Path) -> Result<(), String> {
        recover_pdn(path, |_| Ok(()))
    }

    /// What `recover_pdn` says of a file that is not game records.
    const NOT_RECORDS: &str = "not game records this program wrote";

    /// `--resume` given a file that is not the run's (notes, a data file
    /// as the PDN, games followed by other text) refuses it and leaves it
    /// as it was, even before any game is finished; only a last line of
    /// data, or a record begun at the end of the PDN, is torn.
    #[test]
    fn files_that_are_not_the_runs_are_refused_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes.txt");
        let text = "important notes\nmore notes\n";
        refused_unchanged(&notes, text, &["line 1 is not a data line"], data_of(&[]));
        refused_unchanged(&notes, text, &[NOT_RECORDS], pdn_of);
        // A data file given as the PDN.
        let data = dir.path().join("run.data");
        refused_unchanged(&data, "0\tA\t0\t5\t1\n", &[NOT_RECORDS], pdn_of);
        // A line that is not data before the last.
        let text = "0\tA\t0\t5\t1\nnot data\n0\tB\t1\t6\t1\n";
        refused_unchanged(&data, text, &["line 2 is not a data line"], data_of(&[0]));
        // Games, then notes.
        let pdn = dir.path().join("run.pdn");
        let text = "[Round \"1\"]\n\n1. e23 1-0\n\nmy notes on game 1\n";
        refused_unchanged(&pdn, text, &[NOT_RECORDS], pdn_of);
        // A record begun at the end is cut; other text in brackets is not.
        let whole = "[Event \"e\"]\n\n1. e23 1-0\n\n";
        for tail in ["[1, 2, 3]\n", "[section]\nkey = 1\n"] {
            refused_unchanged(&pdn, &format!("{whole}{tail}"), &[NOT_RECORDS], pdn_of);
        }
        for tail in ["[Event \"e\"]\n[Ro", "[Eve", "\0\0\0\0", "\0\0\0\0{whole}"] {
            // A crash's hole, then records: cut before the hole.
            let tail = tail.replace("{whole}", whole);
            std::fs::write(&pdn, format!("{whole}{tail}")).unwrap();
            assert_eq!(rounds_recovered(&pdn).len(), 1, "{tail:?}");
            assert_eq!(std::fs::read_to_string(&pdn).unwrap(), whole, "{tail:?}");
        }
        // Games, then blank lines: cut.
        std::fs::write(&pdn, "[Round \"1\"]\n\n1. e23 1-0\n\n\n\n").unwrap();
        assert_eq!(rounds_recovered(&pdn), ["1"]);
        assert_eq!(
            std::fs::read_to_string(&pdn).unwrap(),
            "[Round \"1\"]\n\n1. e23 1-0\n\n"
        );
    }

    /// What a stopped run leaves beyond its finished games is a tail: the
    /// block of the game whose record was not written, zero bytes where
    /// writes did not reach the disk, a torn last line; dropped, but the
    /// lines of more than `max_dropped` games are refused (2 here shows the
    /// dropping). A finished game's line after the tail began is another
    /// run's order: refused, the file unchanged.
    #[test]
    fn the_unfinished_tail_is_dropped_and_a_finished_game_after_it_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.data");
        let text = "0\tA\t0\t5\t1\n1\tB\t0\t6\t1\n\0\0\0\0\n2\tC\t0\t7\t1\n2\tC\t1";
        // Two games without records where one was allowed: refused as it was.
        refused_unchanged(
            &path,
            text,
            &[
                "positions of 2 games not finished in the game records",
                "The data file was not changed",
            ],
            data_of(&[0]),
        );
        let finished: HashSet<u64> = [0].into_iter().collect();
        assert_eq!(
            recover_data(&path, &finished, 2, |_| {}),
            Ok(Recovered {
                kept: 1,
                dropped: 2
            })
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "0\tA\t0\t5\t1\n");
        // The records of no game, the positions of two: the wrong PDN.
        let text = "0\tA\t0\t5\t1\n1\tB\t0\t6\t1\n";
        refused_unchanged(
            &path,
            text,
            &["positions of 2 games not finished"],
            data_of(&[]),
        );
        // One game's, with no record: a run stopped in its first game.
        std::fs::write(&path, "0\tA\t0\t5\t1\n").unwrap();
        assert_eq!(
            recover_data(&path, &HashSet::new(), 1, |_| {}).map(|r| r.kept),
            Ok(0)
        );
        for text in ["1\tB\t0\t6\t1\n0\tA\t0\t5\t1\n", "\0\0\n0\tA\t0\t5\t1\n"] {
            refused_unchanged(
                &path,
                text,
                &[
                    "line 2 holds a position of a finished game after line 1",
                    "The data file was not changed",
                ],
                data_of(&[0]),
            );
        }
        // A torn line is the last; text that is no prefix of a data line
        // (it begins with a game id) is not torn, even last.
        let text = "0\tA\t0\t5\t1\n0\tA\n0\tB\t1\t6\t1\n";
        refused_unchanged(&path, text, &["line 2 is not a data line"], data_of(&[0]));
        let text = "0\tA\t0\t5\t1\nmy notes\n";
        refused_unchanged(&path, text, &["line 2 is not a data line"], data_of(&[0]));
    }

    /// A data file without a finished game's positions (added on resume,
    /// or another run's) is refused and left as it was; a missing one too,
    /// once games are finished.
    #[test]
    fn data_without_a_finished_game_is_refused_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.data");
        let finished: HashSet<u64> = [0, 3].into_iter().collect();
        let err = recover_data(&path, &finished, 1, |_| {}).unwrap_err();
        assert!(
            err.contains("no positions of 2 finished game(s) (round 1 first)"),
            "{err}"
        );
        assert!(!path.exists());
        assert_eq!(
            recover_data(&path, &HashSet::new(), 1, |_| {}),
            Ok(Recovered::default())
        );
        let text = "0\tA\t0\t5\t1\n0\tB\t1\t6\t1\n";
        std::fs::write(&path, text).unwrap();
        let err = recover_data(&path, &finished, 1, |_| {}).unwrap_err();
        assert!(
            err.contains("no positions of 1 finished game(s) (round 4 first)"),
            "{err}"
        );
        assert!(!err.contains('\n'), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn recovered_data_keeps_the_first_block_of_each_finished_game() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let path = dir.join("run.data");
        let text = "0\tA\t0\t5\t1\n0\tB\t1\t6\t1\n0\tB2\t1\t6\t1\n\
                    1\tC\t0\t-3\t0.5\n\
                    0\tD\t2\t7\t1\n\
                    5\tU\t0\t0\t0\n\
                    1\tE";
        std::fs::write(&path, text).unwrap();
        let finished: HashSet<u64> = [0, 1].into_iter().collect();
        let mut seen = Vec::new();
        let kept = recover_data(&path, &finished, 1, |p| seen.push(p.to_string()))
            .unwrap()
            .kept;
        // Game 0's repeated ply 1 and its second block, unfinished game 5 and
        // the cut last line (no ply) are dropped.
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "0\tA\t0\t5\t1\n0\tB\t1\t6\t1\n1\tC\t0\t-3\t0.5\n"
        );
        assert_eq!(kept, 3);
        assert_eq!(seen, ["A", "B", "C"]);
    }
}
