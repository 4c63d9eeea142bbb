//! Reading the training data that `bushka selfplay --data` writes, streamed
//! line by line (never the whole file in memory), into the compact sets.
//!
//! A line is `game_id<TAB>position<TAB>ply<TAB>score<TAB>result`: the score is
//! the mover's search score in centi-men from the side to move's view (`-`
//! when unknown), the result the game's from White's view (`1`, `0.5`, `0`).
//!
//! Policy:
//! * A malformed line (wrong field count, bad number, position text the game
//!   refuses, invalid UTF-8) is **skipped**, counted, and reported with its
//!   file and line number; blank lines and `#` comments are ignored. Loading
//!   fails only when no usable position remains.
//! * Only **quiet** positions are fitted. One whose side to move must capture
//!   is either **resolved** (with [`Loader::resolving`]: replaced by the quiet
//!   position at the end of its best capture line, see [`crate::resolve`]) or
//!   skipped; one with no legal move is skipped.
//! * Positions are **de-duplicated** by Zobrist hash; the duplicates' results
//!   and known scores are **averaged**.
//! * The validation share is chosen **by opening**: a game falls on the side
//!   its opening position (the game's ply-0 line) hashes to, so the two games
//!   of a pair, which share their opening (and between equal engines all
//!   their moves), and every strongly correlated position of one game land on
//!   the same side. A game whose ply-0 line is absent (`--dedup` data) is
//!   placed by its game id, and so is every game when the data
//!   hold fewer than [`MIN_OPENINGS`] openings (games all played from the
//!   start, say). A position that also
//!   occurs in a training game is trained on (with every occurrence's result
//!   averaged in); the validation set holds only positions that no training
//!   game reached, so its loss shows overfitting.

use crate::dataset::{Dataset, Sample};
use crate::error::TuneError;
use engine::eval::{Evaluator, FeatureVec, Patterns, PHASE_MAX};
use engine::files::{read_line_capped, skip_line_capped, LineRead};
use engine::zobrist::{fnv1a, splitmix64, FNV1A_START};
use engine::Color;
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// Lines parsed in one parallel batch (bounds the memory of a read).
const CHUNK: usize = 1 << 15;

/// Bytes of lines in one batch at most: long lines make smaller batches.
const CHUNK_BYTES: usize = 64 << 20;

/// Fewest distinct openings for the split to go by opening; with fewer, it
/// goes by game.
pub const MIN_OPENINGS: usize = 20;

/// Bad lines kept word for word in the report (the rest are only counted).
pub const BAD_EXAMPLES: usize = 20;

use engine::data::DataLine;

/// A line the loader skipped as malformed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    /// The file (or source name) it came from.
    pub file: String,
    /// Its 1-based line number.
    pub line: u64,
    /// What is wrong with it.
    pub reason: String,
}

impl std::fmt::Display for BadLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The reason may quote the line: one line on the terminal, cut.
        let reason = engine::files::quoted(&self.reason, 200);
        write!(f, "{} line {}: {reason}", self.file, self.line)
    }
}

/// What loading found, for the user.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Data lines read (blank lines and comments not counted).
    pub lines: u64,
    /// Malformed lines skipped.
    pub bad: u64,
    /// The first [`BAD_EXAMPLES`] malformed lines.
    pub bad_examples: Vec<BadLine>,
    /// Positions skipped because the side to move must capture (without a
    /// resolver, or past the resolution's bounds).
    pub non_quiet: u64,
    /// Capture-pending positions resolved to a quiet position and kept (a
    /// capture line that ends the game counts as terminal instead).
    pub resolved: u64,
    /// Positions skipped because the side to move has no legal move.
    pub terminal: u64,
    /// Positions merged into an earlier copy of the same position.
    pub duplicates: u64,
    /// Distinct positions in the training set.
    pub train: usize,
    /// Distinct positions in the validation set.
    pub validation: usize,
    /// Games used for training: a game is its id within its file (each run
    /// numbers its games from 0, so two runs' files hold different games of
    /// the same ids; a game lies in one file, so the shards of a run and
    /// their merged file count alike).
    pub train_games: usize,
    /// Games held out for validation (their positions that no training game
    /// reached are the validation set).
    pub validation_games: usize,
    /// Whether the split went by opening (else by game: fewer than
    /// [`MIN_OPENINGS`] openings).
    pub split_by_opening: bool,
}

/// The loaded sets and the report.
#[derive(Debug)]
pub struct Loaded {
    /// Positions to fit.
    pub train: Dataset,
    /// Held-out positions to measure.
    pub validation: Dataset,
    /// What was read and skipped.
    pub report: LoadReport,
}

/// One line's fate.
enum Parsed {
    Ignored,
    Bad(String),
    NonQuiet,
    Terminal,
    Position {
        game: u64,
        hash: u64,
        features: Box<FeatureVec>,
        patterns: Vec<u32>,
        phase: i32,
        result: f32,
        score: Option<f32>,
        resolved: bool,
    },
}

/// A distinct position gathered so far: where its features are and its sums.
struct Staged {
    hash: u64,
    /// The largest split keys of the games it occurs in: the position is a
    /// training position when any of its games is a training game.
    split: Split,
    start: usize,
    len: usize,
    mg_share: f32,
    result_sum: f64,
    count: u32,
    score_sum: f64,
    score_count: u32,
}

/// Streams data files into de-duplicated quiet positions.
pub struct Loader<G: Patterns> {
    resolver: Option<std::sync::Arc<dyn Evaluator<G>>>,
    seen: HashMap<u64, usize>,
    /// Every game (its file and the hash of its id, see [`game_key`]) with
    /// its split keys.
    games: HashMap<u64, Split>,
    /// Files (readers) read so far.
    files: u64,
    staged: Vec<Staged>,
    entries: Vec<(u16, i16)>,
    /// The mirror table when pattern indices are stored.
    mirror: Option<std::sync::Arc<Vec<u32>>>,
    /// `G::SET.regions` pattern indices for each staged position.
    pattern_idx: Vec<u32>,
    report: LoadReport,
    _game: std::marker::PhantomData<G>,
}

impl<G: Patterns> Default for Loader<G> {
    fn default() -> Self {
        Loader {
            resolver: None,
            seen: HashMap::new(),
            games: HashMap::new(),
            files: 0,
            staged: Vec::new(),
            entries: Vec::new(),
            mirror: None,
            pattern_idx: Vec::new(),
            report: LoadReport::default(),
            _game: std::marker::PhantomData,
        }
    }
}

impl<G: Patterns> Loader<G> {
    /// An empty loader that skips capture-pending positions.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty loader that resolves capture-pending positions through their
    /// best capture line, as judged by `eval` (see [`crate::resolve`]).
    pub fn resolving(eval: std::sync::Arc<dyn Evaluator<G>>) -> Self {
        Loader {
            resolver: Some(eval),
            ..Self::default()
        }
    }

    /// Stores each position's pattern indices too, for
    /// [`crate::train::tune_patterns`].
    #[must_use]
    pub fn with_patterns(mut self) -> Self {
        self.mirror = Some(std::sync::Arc::new(
            engine::eval::patterns::mirror_table::<G>(),
        ));
        self
    }

    /// Reads one data file.
    pub fn add_file(&mut self, path: &Path) -> Result<(), TuneError> {
        let io = |error| TuneError::Io {
            path: path.display().to_string(),
            error,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let reader = std::io::BufReader::with_capacity(1 << 20, file);
        self.add_reader(&path.display().to_string(), reader)
            .map_err(io)
    }

    /// Reads data lines from any reader; `name` labels its bad lines (a line
    /// longer than [`MAX_LINE`] is one).
    pub fn add_reader<R: BufRead>(&mut self, name: &str, mut reader: R) -> std::io::Result<()> {
        self.files += 1;
        let mut line_no = 0u64;
        let mut chunk: Vec<(u64, Vec<u8>)> = Vec::with_capacity(CHUNK);
        let mut chunk_bytes = 0;
        loop {
            let mut buf = Vec::new();
            let read = read_line_capped(&mut reader, &mut buf, MAX_LINE)?;
            let end = read == LineRead::End;
            if !end {
                line_no += 1;
                if read == LineRead::TooLong {
                    // Not a data line (they are a few hundred bytes): the
                    // rest of it is skipped, and it counts as one bad line;
                    // past 16 MiB more the input is given up (an endless
                    // stream such as `/dev/zero` would be read for ever).
                    if !skip_line_capped(&mut reader, MAX_SKIP)? {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            format!(
                                "line {line_no} has no line end in its first {} MiB: not a data file",
                                (MAX_LINE + MAX_SKIP) >> 20
                            ),
                        ));
                    }
                    buf = TOO_LONG.to_vec();
                }
                chunk_bytes += buf.len();
                chunk.push((line_no, buf));
            }
            if chunk.len() == CHUNK || chunk_bytes >= CHUNK_BYTES || (end && !chunk.is_empty()) {
                self.absorb(name, &chunk);
                chunk.clear();
                chunk_bytes = 0;
            }
            if end {
                return Ok(());
            }
        }
    }

    /// Parses a batch of lines in parallel, then merges them in file order.
    fn absorb(&mut self, name: &str, chunk: &[(u64, Vec<u8>)]) {
        let file = self.files;
        let resolver = self.resolver.as_deref();
        let patterns = self.mirror.is_some();
        let parsed: Vec<(Option<Opening>, Parsed)> = chunk
            .par_iter()
            .map(|(_, bytes)| {
                if bytes == TOO_LONG {
                    let why = format!("longer than {MAX_LINE} bytes: not a data line");
                    return (None, Parsed::Bad(why));
                }
                (
                    opening_of(bytes),
                    parse_position::<G>(bytes, resolver, patterns),
                )
            })
            .collect();
        for ((line, _), (opening, p)) in chunk.iter().zip(parsed) {
            if let Some(o) = opening {
                // A game's first ply-0 line fixes its side of the split.
                self.games.entry(game_key(file, o.game)).or_insert(Split {
                    by_opening: split_key(o.position),
                    by_game: split_key(o.game),
                });
            }
            if !matches!(p, Parsed::Ignored) {
                self.report.lines += 1;
            }
            match p {
                Parsed::Ignored => {}
                Parsed::Bad(reason) => {
                    self.report.bad += 1;
                    if self.report.bad_examples.len() < BAD_EXAMPLES {
                        self.report.bad_examples.push(BadLine {
                            file: name.to_string(),
                            line: *line,
                            reason,
                        });
                    }
                }
                Parsed::NonQuiet => self.report.non_quiet += 1,
                Parsed::Terminal => self.report.terminal += 1,
                Parsed::Position {
                    game,
                    hash,
                    features,
                    phase,
                    result,
                    score,
                    resolved,
                    patterns,
                } => {
                    self.report.resolved += resolved as u64;
                    let split = *self.games.entry(game_key(file, game)).or_insert(Split {
                        by_opening: split_key(game),
                        by_game: split_key(game),
                    });
                    if self.mirror.is_some() && !self.seen.contains_key(&hash) {
                        // A new position: its regions, aligned with its staging.
                        let stride = G::SET.regions;
                        self.pattern_idx
                            .extend((0..stride).map(|k| patterns.get(k).copied().unwrap_or(0)));
                    }
                    self.stage(hash, split, &features, phase, result, score);
                }
            }
        }
    }

    /// Adds a position, or merges it into its earlier copy.
    fn stage(
        &mut self,
        hash: u64,
        split: Split,
        fv: &FeatureVec,
        phase: i32,
        result: f32,
        score: Option<f32>,
    ) {
        if let Some(&at) = self.seen.get(&hash) {
            self.report.duplicates += 1;
            let s = &mut self.staged[at];
            s.split.by_opening = s.split.by_opening.max(split.by_opening);
            s.split.by_game = s.split.by_game.max(split.by_game);
            s.result_sum += result as f64;
            s.count += 1;
            if let Some(v) = score {
                s.score_sum += v as f64;
                s.score_count += 1;
            }
            return;
        }
        self.seen.insert(hash, self.staged.len());
        let start = self.entries.len();
        self.entries.extend_from_slice(fv.entries());
        self.staged.push(Staged {
            hash,
            split,
            start,
            len: fv.len(),
            mg_share: phase.clamp(0, PHASE_MAX) as f32 / PHASE_MAX as f32,
            result_sum: result as f64,
            count: 1,
            score_sum: score.unwrap_or(0.0) as f64,
            score_count: score.is_some() as u32,
        });
    }

    /// Splits the positions into training and validation sets (the positions
    /// of a `validation` share of the games, chosen by the hash of their
    /// openings, that no training game reached) in a hash-shuffled order.
    pub fn finish(self, validation: f64) -> Result<Loaded, TuneError> {
        if !(0.0..1.0).contains(&validation) {
            return Err(TuneError::BadOption(format!(
                "--validation {validation}: expected a fraction in [0, 1)"
            )));
        }
        let mut report = self.report;
        if self.staged.is_empty() {
            let first = report
                .bad_examples
                .first()
                .map(|b| format!("; first: {b}"))
                .unwrap_or_default();
            return Err(TuneError::NoData(format!(
                "{} lines, {} bad, {} with a capture pending, {} terminal{first}",
                report.lines, report.bad, report.non_quiet, report.terminal
            )));
        }
        let mut order: Vec<usize> = (0..self.staged.len()).collect();
        order.sort_by_key(|&i| splitmix64(self.staged[i].hash));
        let n = G::NAMES.len();
        let stride = G::SET.regions;
        let (mut train, mut valid) = match &self.mirror {
            Some(m) => (
                Dataset::with_patterns(n, stride, m.clone()),
                Dataset::with_patterns(n, stride, m.clone()),
            ),
            None => (Dataset::new(n), Dataset::new(n)),
        };
        let cut = (validation * 2f64.powi(64)) as u64;
        let openings: std::collections::HashSet<u64> =
            self.games.values().map(|s| s.by_opening).collect();
        let by_opening = openings.len() >= MIN_OPENINGS;
        let key = |s: &Split| if by_opening { s.by_opening } else { s.by_game };
        for i in order {
            let s = &self.staged[i];
            let sample = Sample {
                entries: self.entries[s.start..s.start + s.len].to_vec(),
                mg_share: s.mg_share,
                result: (s.result_sum / s.count as f64) as f32,
                score: (s.score_count > 0).then(|| (s.score_sum / s.score_count as f64) as f32),
                patterns: if self.mirror.is_some() {
                    self.pattern_idx[i * stride..(i + 1) * stride].to_vec()
                } else {
                    Vec::new()
                },
            };
            if key(&s.split) < cut {
                valid.push(&sample);
            } else {
                train.push(&sample);
            }
        }
        if train.is_empty() {
            return Err(TuneError::NoData(
                "every position fell into the validation share".into(),
            ));
        }
        report.train = train.len();
        report.validation = valid.len();
        let valid_games = self.games.values().filter(|s| key(s) < cut).count();
        report.split_by_opening = by_opening;
        report.validation_games = valid_games;
        report.train_games = self.games.len() - valid_games;
        Ok(Loaded {
            train,
            validation: valid,
            report,
        })
    }
}

/// Reads every file into training and validation sets; capture-pending
/// positions are resolved by `resolver` when given, else skipped.
pub fn load_files<G: Patterns>(
    paths: &[std::path::PathBuf],
    validation: f64,
    resolver: Option<std::sync::Arc<dyn Evaluator<G>>>,
) -> Result<Loaded, TuneError> {
    load_files_with(paths, validation, resolver, false)
}

/// [`load_files`], storing each position's pattern indices too when `patterns`.
pub fn load_files_with<G: Patterns>(
    paths: &[std::path::PathBuf],
    validation: f64,
    resolver: Option<std::sync::Arc<dyn Evaluator<G>>>,
    patterns: bool,
) -> Result<Loaded, TuneError> {
    let mut loader = Loader::<G> {
        resolver,
        ..Loader::default()
    };
    if patterns {
        loader = loader.with_patterns();
    }
    for p in paths {
        loader.add_file(p)?;
    }
    loader.finish(validation)
}

/// A well-mixed 64-bit hash of `text`.
fn hash_text(text: &str) -> u64 {
    splitmix64(fnv1a(FNV1A_START, text.as_bytes()))
}

/// Where a game falls in the split: below the cut it is a validation game.
fn split_key(key: u64) -> u64 {
    splitmix64(key ^ 0x005e_ed0f_7a11_da7a)
}

/// Where a game, or a position, falls: split keys by opening and by game
/// (below the cut is the validation side).
#[derive(Clone, Copy, Debug)]
struct Split {
    by_opening: u64,
    by_game: u64,
}

/// The key of a game: its id's hash within the file it was read from. A
/// game's split keys come from its id and opening alone, so a game falls on
/// the same side whichever file holds it.
fn game_key(file: u64, id: u64) -> u64 {
    id ^ splitmix64(file)
}

/// A game's opening: the ply-0 line of a game.
struct Opening {
    /// The game (hash of its id).
    game: u64,
    /// The hash of its position text.
    position: u64,
}

/// The opening a line gives, when it is a well-formed ply-0 line.
fn opening_of(bytes: &[u8]) -> Option<Opening> {
    let text = std::str::from_utf8(bytes).ok()?;
    let line = DataLine::parse(text).ok()?;
    (line.ply == 0).then(|| Opening {
        game: hash_text(line.game),
        position: hash_text(line.position.trim()),
    })
}

/// One line to a position with its features, or the reason it is not used.
fn parse_position<G: Patterns>(
    bytes: &[u8],
    resolver: Option<&dyn Evaluator<G>>,
    patterns: bool,
) -> Parsed {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Parsed::Bad("not valid UTF-8".into());
    };
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Parsed::Ignored;
    }
    let line = match DataLine::parse(text) {
        Ok(l) => l,
        Err(e) => return Parsed::Bad(e),
    };
    let pos = match G::parse_position(line.position.trim()) {
        Ok(p) => p,
        Err(e) => return Parsed::Bad(format!("position: {e}")),
    };
    // The line's score is its own mover's, whoever moves at a resolved end.
    let white = pos.side_to_move() == Color::White;
    let resolved = pos.must_capture();
    let pos = match (resolved, resolver) {
        (false, _) => pos,
        (true, None) => return Parsed::NonQuiet,
        (true, Some(eval)) => match crate::resolve::quiet_end(&pos, eval) {
            Some(end) => end,
            None => return Parsed::NonQuiet,
        },
    };
    if pos.count_moves() == 0 {
        return Parsed::Terminal;
    }
    Parsed::Position {
        game: hash_text(line.game),
        hash: engine::Game::hash(&pos),
        features: Box::new(pos.feature_vec()),
        patterns: if patterns {
            let mut v = Vec::with_capacity(G::SET.regions);
            pos.for_each_pattern(|i| v.push(i as u32));
            v
        } else {
            Vec::new()
        },
        phase: pos.phase(),
        result: line.result,
        score: line
            .score
            .map(|s| if white { s as f32 } else { -(s as f32) }),
        resolved,
    }
}

/// The longest data line read; a longer one is a bad line.
pub use engine::files::MAX_LINE;

/// The most of an over-long line skipped before the input is given up.
const MAX_SKIP: u64 = 16 << 20;

/// Stands for a line longer than [`MAX_LINE`] (no data line holds a NUL).
const TOO_LONG: &[u8] = b"\0too long";
