//! Result files written as games finish, and their recovery on `--resume`.

use crate::pdn::{GameRecord, PdnReader};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file that every finished game is appended to and flushed.
pub struct AppendFile {
    file: File,
    path: PathBuf,
}

impl AppendFile {
    /// Opens for appending (creating it).
    pub fn open(path: &Path) -> Result<Self, String> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        Ok(AppendFile {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends a block in one write and flushes it to the operating system.
    pub fn append(&mut self, text: &str) -> Result<(), String> {
        self.file
            .write_all(text.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// True when a file exists and has content.
pub fn has_content(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() > 0)
}

/// Games read back from a PDN file, with the file cut after the last complete
/// one (a game being written when the run was killed is dropped).
pub fn recover_pdn(path: &Path) -> Result<Vec<GameRecord>, String> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let end = complete_prefix(path)?;
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    file.set_len(end)
        .map_err(|e| format!("cannot truncate {}: {e}", path.display()))?;
    let reader = BufReader::new(
        File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?,
    );
    let mut games = Vec::new();
    for g in PdnReader::new(reader) {
        games.push(g.map_err(|e| format!("{}: {e}", path.display()))?);
    }
    Ok(games)
}

/// Byte length of the part of a PDN file made of complete games: each game
/// written by the harness ends with its result token and a blank line.
fn complete_prefix(path: &Path) -> Result<u64, String> {
    let mut reader = BufReader::new(
        File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?,
    );
    let (mut offset, mut end) = (0u64, 0u64);
    let mut result_seen = false;
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        offset += n as u64;
        let t = line.trim();
        if t.is_empty() {
            if result_seen && line.ends_with('\n') {
                end = offset;
                result_seen = false;
            }
        } else if !t.starts_with('[') {
            let last = t.rsplit(' ').next().unwrap_or("");
            result_seen = matches!(last, "1-0" | "0-1" | "1/2-1/2" | "*");
        }
    }
    Ok(end)
}

/// Keeps the data lines of finished games only (first copy of each line), by
/// streaming into a new file that replaces the old one.
pub fn recover_data(path: &Path, finished: &HashSet<u64>) -> Result<usize, String> {
    if !path.exists() {
        return Ok(0);
    }
    let tmp = path.with_extension("recover.tmp");
    let mut kept = 0;
    {
        let input = BufReader::new(
            File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?,
        );
        let mut out = BufWriter::new(
            File::create(&tmp).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?,
        );
        let mut seen: HashSet<(u64, String)> = HashSet::new();
        for line in input.lines() {
            let line = line.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let mut f = line.split('\t');
            let (Some(id), Some(_), Some(ply)) = (f.next(), f.next(), f.next()) else {
                continue;
            };
            let Ok(id) = id.parse::<u64>() else { continue };
            // Data is written before its game's PDN record: only games in the PDN are whole.
            if !finished.contains(&id) {
                continue;
            }
            if seen.insert((id, ply.to_string())) {
                writeln!(out, "{line}").map_err(|e| e.to_string())?;
                kept += 1;
            }
        }
        out.flush().map_err(|e| e.to_string())?;
        out.get_mut().sync_all().map_err(|e| e.to_string())?;
    }
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))?;
    Ok(kept)
}

/// Writes a whole file atomically: a temporary file renamed over the target.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension("tmp");
    let mut f = File::create(&tmp).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))
}
