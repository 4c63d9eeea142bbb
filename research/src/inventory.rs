//! The files of an inventory of tactics: the games read from PDN files,
//! the journal that lets a stopped mining run go on where it was, and the
//! report of what was found (the mining itself is [`crate::tactics`]).

use crate::tactics::{self, Tactic};
use engine::Game;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The journal of a mining run writing `out`: `OUT.partial.jsonl`.
pub fn journal_of(out: &Path) -> PathBuf {
    engine::files::with_suffix(out, ".partial.jsonl")
}

/// A journal opened to append to, with what it holds.
pub struct Journal {
    /// The positions looked at already, by hash, with what each gave.
    pub done: tactics::Mined,
    /// The journal, to append a line a position to.
    pub file: std::fs::File,
    /// The handle holding the journal's lock (one run writes a journal).
    pub lock: std::fs::File,
}

/// Reads a journal left by a stopped run (its first line the settings and
/// inputs it mined, then `{"hash": H, "tactic": T or null}` a position) and
/// opens it, locked, to append; a new journal starts with `key`. A journal
/// of other settings or inputs is refused; a last line cut short by a stop
/// is cut off.
pub fn open_journal<G: Game>(path: &Path, key: &str) -> Result<Journal, String> {
    let named = |e: std::io::Error| format!("{}: {e}", path.display());
    let head = serde_json::json!({ "settings": key }).to_string();
    // Locked before anything is read or cut: one run writes a journal.
    let lock = engine::files::lock_exclusive(path)?;
    let mut file = engine::files::append_after_whole_lines(path, |tail| {
        tail == head.as_bytes() || tactics::parse_journal_line::<G>(tail).is_ok()
    })
    .map_err(named)?;
    // Read a line at a time: a journal holds a line a position mined.
    let mut reader = std::io::BufReader::new(std::fs::File::open(path).map_err(named)?);
    let mut line = Vec::new();
    let mut next_line = |n: usize| -> Result<Option<String>, String> {
        line.clear();
        match engine::files::read_line_capped(&mut reader, &mut line, engine::files::MAX_LINE)
            .map_err(named)?
        {
            engine::files::LineRead::End => Ok(None),
            engine::files::LineRead::TooLong => Err(format!(
                "{} line {n}: longer than {} bytes",
                path.display(),
                engine::files::MAX_LINE
            )),
            engine::files::LineRead::Line => {
                let text = std::str::from_utf8(line.strip_suffix(b"\n").unwrap_or(&line))
                    .map_err(|_| format!("{} line {n}: not UTF-8", path.display()))?;
                Ok(Some(text.strip_suffix('\r').unwrap_or(text).to_string()))
            }
        }
    };
    let mut done = tactics::Mined::new();
    match next_line(1)? {
        None => {
            // A new journal (what is written here is not read back).
            std::io::Write::write_all(&mut file, format!("{head}\n").as_bytes()).map_err(named)?;
            return Ok(Journal { done, file, lock });
        }
        Some(first) if first == head => {}
        Some(first) => {
            return Err(format!(
                "{} is the journal of another mining run ({}); remove it, or mine as it did",
                path.display(),
                engine::files::quoted(&first, 200)
            ))
        }
    }
    let mut n = 2;
    while let Some(text) = next_line(n)? {
        let (hash, tactic) = tactics::parse_journal_line::<G>(text.as_bytes())
            .map_err(|e| format!("{} line {n}: {e}", path.display()))?;
        done.insert(hash, tactic);
        n += 1;
    }
    Ok(Journal { done, file, lock })
}

/// What a journal's settings line names an input by: its canonical path
/// (the same file however the command spells it), its size and a hash of
/// its bytes (an input changed since is another input). The input must be
/// a file: a pipe or a device would not read the same again for its games.
pub fn input_key(path: &Path) -> Result<String, String> {
    let named = |e: std::io::Error| format!("{}: {e}", path.display());
    let file = std::fs::File::open(path).map_err(named)?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(format!("{}: not a regular file", path.display()));
    }
    // Hashed in blocks: a file of games may be large.
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let (mut hash, mut size) = (engine::zobrist::FNV1A_START, 0usize);
    loop {
        let block = std::io::BufRead::fill_buf(&mut reader).map_err(named)?;
        if block.is_empty() {
            break;
        }
        hash = engine::zobrist::fnv1a(hash, block);
        let n = block.len();
        size += n;
        std::io::BufRead::consume(&mut reader, n);
    }
    let canonical = std::fs::canonicalize(path).map_err(named)?;
    Ok(format!(
        "{} ({size} bytes, fnv1a {hash:016x})",
        canonical.display()
    ))
}

/// The positions of the games in the files, each the first time it
/// occurs (what [`tactics::distinct`] keeps, and all that is mined), with
/// where it is from (`FILE game N ply K`), how many games there were and
/// how many positions they have, repeats counted.
/// Repeats (the openings games share, positions met again in a game) are
/// dropped as the games are read rather than kept until mined. A file
/// of no game is an error (the wrong file, not a set of no tactics).
pub fn read_games<G: Game>(files: &[PathBuf]) -> Result<GamesRead<G>, String> {
    let mut games = 0;
    let mut all = 0;
    let mut positions = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for file in files {
        let f = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let reader = selfplay::pdn::PdnReader::new(std::io::BufReader::new(f));
        let before = games;
        for (i, record) in reader.enumerate() {
            let record = record.map_err(|e| format!("{}: {e}", file.display()))?;
            let replay = selfplay::pdn::replay::<G>(&record)
                .map_err(|e| format!("{} game {}: {e}", file.display(), i + 1))?;
            games += 1;
            let name = file.file_name().map_or_else(
                || file.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            for (source, pos) in tactics::positions_of(&replay, i + 1) {
                all += 1;
                if seen.insert(Game::hash(&pos)) {
                    positions.push((format!("{name} {source}"), pos));
                }
            }
        }
        if games == before {
            return Err(format!("no game in {}", file.display()));
        }
    }
    Ok(GamesRead {
        games,
        all,
        positions,
    })
}

/// What [`read_games`] read.
pub struct GamesRead<G> {
    /// Games read.
    pub games: usize,
    /// Their positions, repeats counted.
    pub all: usize,
    /// Each distinct position, where it first occurs and where from.
    pub positions: Vec<(String, G)>,
}

/// What the report gives of one motif.
pub struct Examples<'a> {
    /// Its tactics.
    pub count: usize,
    /// Those that begin with a sacrifice.
    pub sacrifices: usize,
    /// The ones shown: wins first, then the largest gains, three at most.
    pub best: Vec<&'a Tactic>,
}

/// The tactics by motif, with the examples shown of each.
pub fn examples(found: &[Tactic]) -> BTreeMap<&str, Examples<'_>> {
    let mut by_motif: BTreeMap<&str, Vec<&Tactic>> = BTreeMap::new();
    for t in found {
        by_motif.entry(t.motif.as_str()).or_default().push(t);
    }
    by_motif
        .into_iter()
        .map(|(motif, mut list)| {
            let sacrifices = list
                .iter()
                .filter(|t| t.first_move_kind == "sacrifice")
                .count();
            let count = list.len();
            list.sort_by_key(|t| std::cmp::Reverse(t.gain.unwrap_or(i32::MAX)));
            list.truncate(3);
            (
                motif,
                Examples {
                    count,
                    sacrifices,
                    best: list,
                },
            )
        })
        .collect()
}

/// What a mining run did, as its report states it.
pub struct RunFacts<'a> {
    /// The command's settings, as the report quotes them.
    pub settings: &'a str,
    /// Games read.
    pub games: usize,
    /// Positions in them, and how many distinct.
    pub positions: (usize, usize),
    /// Seconds this run took.
    pub seconds: f64,
    /// Positions an earlier, stopped run looked at (its time is not in
    /// `seconds`).
    pub resumed: usize,
}

/// The report: counts per motif and the best examples of each, each with
/// its diagram when `drawn` names one (by position, a path relative to the
/// report).
pub fn report_text(
    found: &[Tactic],
    examples: &BTreeMap<&str, Examples>,
    run: &RunFacts,
    drawn: &BTreeMap<String, String>,
) -> String {
    let (seconds, resumed) = (run.seconds, run.resumed);
    let (positions, distinct) = run.positions;
    let time = if resumed == 0 {
        format!("{seconds:.0} s")
    } else {
        format!("{seconds:.0} s for the positions left after a stopped run had looked at {resumed}")
    };
    let mut md = String::from("# Inventory of tactics\n\n");
    let _ = writeln!(
        md,
        "Positions where the side to move has a forced gain (at least the \
         minimum material by the end of the line, or the game) that begins with \
         a sacrifice or a quiet move, that a shallow look misses and a deeper \
         search confirms (docs/tactics.md).\n\nSettings: `{}`. Games: \
         {}; positions: {positions}, {distinct} of them distinct (each looked at \
         once); tactics: {}; time: {time}.\n",
        run.settings,
        run.games,
        found.len()
    );
    let _ = writeln!(md, "| motif | tactics | sacrifices | quiet moves |");
    let _ = writeln!(md, "| --- | ---: | ---: | ---: |");
    for (motif, e) in examples {
        let _ = writeln!(
            md,
            "| {motif} | {} | {} | {} |",
            e.count,
            e.sacrifices,
            e.count - e.sacrifices
        );
    }
    for (motif, e) in examples {
        let _ = writeln!(md, "\n## {motif}\n");
        for t in &e.best {
            let gain = t
                .gain
                .map_or_else(|| "wins".to_string(), |g| format!("gains {g}"));
            let _ = writeln!(
                md,
                "* `{}` ({}): `{}` {gain} ({}, score {}); a shallow look plays `{}`",
                t.position,
                t.source,
                t.solution.join(" "),
                t.first_move_kind,
                t.score,
                t.shallow_move
            );
            if let Some(file) = drawn.get(&t.position) {
                let _ = writeln!(md, "\n  ![{}]({file})\n", t.position);
            }
        }
    }
    md
}
