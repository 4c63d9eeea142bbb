//! Game records in PDN (Portable Draughts Notation): writer, streaming
//! reader and a legality check by replay.
//!
//! A record is `[Tag "value"]` headers, a blank line, numbered moves in the
//! game's own notation (docs/rules.md 1.7 / 2.5) and a result token. Our records
//! name the game with `[GameType "bushka"]` or `[GameType "bashnya"]` (the
//! names of [`GameKind::name`]; standard PDN uses numbers for its draughts
//! variants, which have no number for these two games), give the start
//! position in `[FEN "..."]` (the position text of docs/rules.md 1.8 / 2.5), and
//! keep harness details such as `[Termination "..."]` as extra tags.

use engine::files::{read_line_capped, skip_line_capped, LineRead, MAX_LINE};
use engine::game::strip_annotations;
use engine::{Color, Game, GameKind, MoveError, MoveList, Outcome, PositionError};
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, BufRead, Write};
use std::str::FromStr;
use thiserror::Error;

/// Lines of movetext are wrapped before this column.
pub const LINE_WIDTH: usize = 80;

/// The result token of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PdnResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*`: unknown or unfinished.
    Unknown,
}

impl PdnResult {
    /// The token as written.
    pub fn as_str(self) -> &'static str {
        match self {
            PdnResult::WhiteWins => "1-0",
            PdnResult::BlackWins => "0-1",
            PdnResult::Draw => "1/2-1/2",
            PdnResult::Unknown => "*",
        }
    }

    /// The result of a game that ended with this outcome.
    pub fn from_outcome(outcome: Outcome) -> Self {
        match outcome {
            Outcome::Win(Color::White) => PdnResult::WhiteWins,
            Outcome::Win(Color::Black) => PdnResult::BlackWins,
            Outcome::Draw => PdnResult::Draw,
        }
    }

    /// The outcome this result records (`None` for `*`).
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            PdnResult::WhiteWins => Some(Outcome::Win(Color::White)),
            PdnResult::BlackWins => Some(Outcome::Win(Color::Black)),
            PdnResult::Draw => Some(Outcome::Draw),
            PdnResult::Unknown => None,
        }
    }
}

impl fmt::Display for PdnResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PdnResult {
    type Err = ();

    /// Reads `1-0`, `0-1`, `1/2-1/2`, `*`, and the draughts scores `2-0`,
    /// `0-2`, `1-1`.
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "1-0" | "2-0" => Ok(PdnResult::WhiteWins),
            "0-1" | "0-2" => Ok(PdnResult::BlackWins),
            "1/2-1/2" | "1-1" | "½-½" => Ok(PdnResult::Draw),
            "*" => Ok(PdnResult::Unknown),
            _ => Err(()),
        }
    }
}

/// One game: its tags, start position, moves and result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// `[Event]`.
    pub event: String,
    /// `[Site]`, written only when present.
    pub site: Option<String>,
    /// `[Date]`, `YYYY.MM.DD` with `?` for unknown parts.
    pub date: String,
    /// `[Round]`.
    pub round: String,
    /// `[White]`: the engine playing White.
    pub white: String,
    /// `[Black]`: the engine playing Black.
    pub black: String,
    /// `[Result]` and the result token.
    pub result: PdnResult,
    /// `[GameType]`: `bushka` or `bashnya` (empty when a read record had none).
    pub game_type: String,
    /// `[FEN]`: the start position text; `None` means the game's initial position.
    pub fen: Option<String>,
    /// Further tags in order, e.g. `Termination` or adjudication limits.
    /// Names should be letters, digits and `_` (the writer replaces others by `_`).
    pub extra: Vec<(String, String)>,
    /// The moves in the game's notation, one text per ply.
    pub moves: Vec<String>,
    /// Comments by the index of the move they follow (`{...}` after it in
    /// the movetext), e.g. the harness's `{+0.12/9 0.040s}` annotations.
    /// Read comments have their whitespace runs made single spaces; a
    /// comment before the first move is not kept.
    pub comments: BTreeMap<usize, String>,
}

impl GameRecord {
    /// An empty record of the given game with `?` for unknown tags.
    pub fn new(kind: GameKind) -> Self {
        GameRecord {
            game_type: kind.name().to_string(),
            ..GameRecord::blank()
        }
    }

    /// The record a reader starts from: every tag unknown, no game type.
    fn blank() -> Self {
        GameRecord {
            event: "?".into(),
            site: None,
            date: "????.??.??".into(),
            round: "?".into(),
            white: "?".into(),
            black: "?".into(),
            result: PdnResult::Unknown,
            game_type: String::new(),
            fen: None,
            extra: Vec::new(),
            moves: Vec::new(),
            comments: BTreeMap::new(),
        }
    }

    /// The value of an extra tag, by name.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.extra
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets an extra tag, replacing an earlier value of the same name.
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.extra.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.extra.push((name.to_string(), value)),
        }
    }

    /// The game named by `[GameType]`, if it names one.
    pub fn game_kind(&self) -> Option<GameKind> {
        self.game_type.parse().ok()
    }

    /// The side that makes the first move: the FEN's side letter (both games'
    /// position texts start with `W` or `B`), White without a FEN.
    pub fn first_mover(&self) -> Color {
        match self.fen.as_deref().map(str::trim_start) {
            Some(fen) if fen.starts_with(['B', 'b']) => Color::Black,
            _ => Color::White,
        }
    }

    /// The whole record as PDN text, ending with a blank line.
    pub fn to_pdn(&self) -> String {
        self.to_string()
    }

    /// Writes the record as PDN text.
    pub fn write_pdn<W: Write>(&self, out: &mut W) -> io::Result<()> {
        out.write_all(self.to_pdn().as_bytes())
    }

    /// Every tag in the order written.
    fn tags(&self) -> Vec<(&str, &str)> {
        let mut tags = vec![("Event", self.event.as_str())];
        if let Some(site) = &self.site {
            tags.push(("Site", site));
        }
        tags.extend([
            ("Date", self.date.as_str()),
            ("Round", &self.round),
            ("White", &self.white),
            ("Black", &self.black),
            ("Result", self.result.as_str()),
            ("GameType", &self.game_type),
        ]);
        if let Some(fen) = &self.fen {
            tags.push(("FEN", fen));
        }
        tags.extend(self.extra.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        tags
    }

    /// The movetext in units that are never split across lines.
    fn movetext_units(&self) -> Vec<String> {
        let offset = usize::from(self.first_mover() == Color::Black);
        let mut units: Vec<String> = self
            .moves
            .iter()
            .enumerate()
            .map(|(i, mv)| {
                let ply = i + offset;
                let mut unit = if ply % 2 == 0 {
                    format!("{}. {mv}", ply / 2 + 1)
                } else if i == 0 {
                    format!("1... {mv}")
                } else {
                    mv.clone()
                };
                if let Some(c) = self.comments.get(&i).map(|c| comment_text(c)) {
                    if !c.is_empty() {
                        unit.push_str(&format!(" {{{c}}}"));
                    }
                }
                unit
            })
            .collect();
        units.push(self.result.as_str().to_string());
        units
    }
}

impl fmt::Display for GameRecord {
    /// The PDN text of the record.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, value) in self.tags() {
            writeln!(f, "[{} \"{}\"]", tag_name(name), escape(value))?;
        }
        writeln!(f)?;
        let mut line = String::new();
        for unit in self.movetext_units() {
            if !line.is_empty() && line.len() + 1 + unit.len() > LINE_WIDTH {
                writeln!(f, "{line}")?;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&unit);
        }
        writeln!(f, "{line}")?;
        writeln!(f)
    }
}

/// A comment as written and read back: whitespace runs become one space and
/// `}` (which would close it) becomes `)`.
fn comment_text(text: &str) -> String {
    text.replace('}', ")")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A tag name made safe to write: characters outside `[A-Za-z0-9_]` become `_`.
fn tag_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "_".into()
    } else {
        cleaned
    }
}

/// A tag value with `\` and `"` escaped; line breaks become spaces (a tag
/// must stay on one line).
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Why a PDN text could not be read; every error names its line (1-based).
#[derive(Debug, Error)]
pub enum PdnError {
    /// The input could not be read; the reader stops.
    #[error("line {line}: read error: {source}")]
    Io {
        /// The line being read.
        line: usize,
        /// The underlying error.
        source: io::Error,
    },
    /// A line longer than [`MAX_LINE`] bytes (its game is skipped).
    #[error("line {line}: longer than {MAX_LINE} bytes")]
    LineTooLong {
        /// The offending line.
        line: usize,
    },
    /// A game whose text runs past [`MAX_GAME_BYTES`] (its comment or
    /// movetext never ends, say); it is skipped.
    #[error(
        "line {line}: the game starting on line {start} is longer than {MAX_GAME_BYTES} bytes"
    )]
    GameTooLong {
        /// Where the limit was passed.
        line: usize,
        /// Where the game starts.
        start: usize,
    },
    /// A line that runs on past [`MAX_GAME_BYTES`] bytes without an end;
    /// the reader stops.
    #[error(
        "line {line}: runs on past {MAX_GAME_BYTES} bytes without a line end; the rest is not read"
    )]
    EndlessLine {
        /// The offending line.
        line: usize,
    },
    /// A line that is not UTF-8.
    #[error("line {line}: not valid UTF-8")]
    InvalidUtf8 {
        /// The offending line.
        line: usize,
    },
    /// A tag line that is not `[Name "value"]`.
    #[error("line {line}: malformed tag: {}", engine::files::quoted(reason, 200))]
    BadTag {
        /// The tag's line.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A result tag or token that is not `1-0`, `0-1`, `1/2-1/2` or `*`.
    #[error("line {line}: bad result '{}'", engine::files::quoted(text, 80))]
    BadResult {
        /// Where it stands.
        line: usize,
        /// The text found.
        text: String,
    },
    /// A move in numeric square notation (`22-17`), which other draughts
    /// games' PDN uses; these games' moves name squares by letter and digit.
    #[error(
        "line {line}: '{}' is in numeric square notation, which is not read: squares are written by letter and digit (c3-d4 in Bashnya, f45 in Bushka)",
        engine::files::quoted(text, 80)
    )]
    NumericSquares {
        /// Where it stands.
        line: usize,
        /// The text found.
        text: String,
    },
    /// The result tag and the result token disagree.
    #[error("line {line}: result token {token} contradicts [Result \"{tag}\"]")]
    ResultMismatch {
        /// The token's line.
        line: usize,
        /// The tag's value.
        tag: PdnResult,
        /// The token.
        token: PdnResult,
    },
    /// Movetext that neither is a move nor belongs in one.
    #[error(
        "line {line}: unexpected '{}' in movetext",
        engine::files::quoted(text, 80)
    )]
    Unexpected {
        /// Where it stands.
        line: usize,
        /// The text found.
        text: String,
    },
    /// A `{` comment never closed.
    #[error("line {line}: comment opened here is never closed")]
    UnterminatedComment {
        /// Where the comment opens.
        line: usize,
    },
    /// The game's movetext ends (at a new header or the end of input) with no
    /// result token.
    #[error("line {line}: game starting on line {start} has no result token")]
    MissingResult {
        /// Where the end was noticed.
        line: usize,
        /// Where the game starts.
        start: usize,
    },
}

impl PdnError {
    /// The line the error refers to (1-based).
    pub fn line(&self) -> usize {
        match self {
            PdnError::Io { line, .. }
            | PdnError::InvalidUtf8 { line }
            | PdnError::LineTooLong { line }
            | PdnError::EndlessLine { line }
            | PdnError::GameTooLong { line, .. }
            | PdnError::BadTag { line, .. }
            | PdnError::BadResult { line, .. }
            | PdnError::NumericSquares { line, .. }
            | PdnError::ResultMismatch { line, .. }
            | PdnError::Unexpected { line, .. }
            | PdnError::UnterminatedComment { line }
            | PdnError::MissingResult { line, .. } => *line,
        }
    }
}

/// The most text one game may have (tags, movetext and comments): a game
/// of 10,000 plies with a comment on each move has about a tenth of it.
pub const MAX_GAME_BYTES: usize = 16 << 20;

/// One input line: its number, its text (lossily decoded), whether it
/// was valid UTF-8 and whether it was cut at [`MAX_LINE`] bytes.
struct Line {
    number: usize,
    text: String,
    valid: bool,
    too_long: bool,
}

impl Line {
    /// True for a header line.
    fn is_tag(&self) -> bool {
        self.text.trim_start().starts_with('[')
    }

    /// Whether the line is headers, and nothing else, the first of them
    /// `[Event "..."]`: how a game's header section begins (every record
    /// this program writes does so).
    fn starts_a_game(&self) -> bool {
        let t = self.text.trim();
        t.starts_with("[Event \"")
            && read_tags(t, self.number, &mut GameRecord::blank(), &mut None).is_ok()
    }
}

/// Reads games one at a time from any buffered input, holding one line and
/// one game in memory. After an error it skips to the next game's header
/// and goes on; after a read error it stops.
pub struct PdnReader<R> {
    input: R,
    line_number: usize,
    buffer: Vec<u8>,
    pushed_back: Option<Line>,
    recovering: Option<bool>,
    finished: bool,
}

/// Counts `line` into the text of the game starting on line `start`;
/// past [`MAX_GAME_BYTES`] the game is too long.
fn add_game_text(bytes: &mut usize, line: &Line, start: usize) -> Result<(), PdnError> {
    *bytes += line.text.len() + 1;
    if *bytes > MAX_GAME_BYTES {
        return Err(PdnError::GameTooLong {
            line: line.number,
            start,
        });
    }
    Ok(())
}

/// What a movetext scan of one line found.
enum Scan {
    /// The line is used up; the game goes on.
    More,
    /// The game's result token.
    End(PdnResult),
}

impl<R: BufRead> PdnReader<R> {
    /// A reader over `input`.
    pub fn new(input: R) -> Self {
        PdnReader {
            input,
            line_number: 0,
            buffer: Vec::new(),
            pushed_back: None,
            recovering: None,
            finished: false,
        }
    }

    /// A reader over `input` that follows `lines` lines already read
    /// elsewhere: its line numbers (in errors) count from there.
    pub fn after_lines(input: R, lines: usize) -> Self {
        let mut r = Self::new(input);
        r.line_number = lines;
        r
    }

    /// The next line without its line ending, `None` at the end of input.
    fn next_line(&mut self) -> Result<Option<Line>, PdnError> {
        if let Some(line) = self.pushed_back.take() {
            return Ok(Some(line));
        }
        self.buffer.clear();
        let io = |source| PdnError::Io {
            line: self.line_number + 1,
            source,
        };
        // A line has at most MAX_LINE bytes, so one without an end cannot
        // fill the memory; the rest of a longer one is passed over.
        let too_long = match read_line_capped(&mut self.input, &mut self.buffer, MAX_LINE) {
            Ok(LineRead::End) => return Ok(None),
            Ok(LineRead::Line) => false,
            Ok(LineRead::TooLong) => {
                // Past a game's most, the input is given up: an endless
                // stream (`/dev/zero`) would be read for ever.
                let skip = MAX_GAME_BYTES as u64;
                if !skip_line_capped(&mut self.input, skip).map_err(io)? {
                    return Err(PdnError::EndlessLine {
                        line: self.line_number + 1,
                    });
                }
                true
            }
            Err(e) => return Err(io(e)),
        };
        self.line_number += 1;
        while matches!(self.buffer.last(), Some(b'\n' | b'\r')) {
            self.buffer.pop();
        }
        // A byte order mark some editors put at the start of a file.
        if self.line_number == 1 && self.buffer.starts_with(&[0xEF, 0xBB, 0xBF]) {
            self.buffer.drain(..3);
        }
        let (text, valid) = match std::str::from_utf8(&self.buffer) {
            Ok(text) => (text.to_string(), true),
            Err(_) => (String::from_utf8_lossy(&self.buffer).into_owned(), false),
        };
        Ok(Some(Line {
            number: self.line_number,
            text,
            valid,
            too_long,
        }))
    }

    /// Skips the rest of a broken game: up to a header line that follows a
    /// line that is not a header. `after_tag` tells whether the broken line
    /// was a header.
    fn skip_broken_game(&mut self, mut after_tag: bool) -> Result<(), PdnError> {
        while let Some(line) = self.next_line()? {
            let is_tag = line.is_tag();
            if is_tag && !after_tag {
                self.pushed_back = Some(line);
                return Ok(());
            }
            after_tag = is_tag;
        }
        Ok(())
    }

    /// Reads one game; `Ok(None)` at the end of input.
    fn read_game(&mut self) -> Result<Option<GameRecord>, PdnError> {
        let mut record = GameRecord::blank();
        let mut result_tag: Option<PdnResult> = None;
        let mut start: Option<usize> = None;
        let mut moves_seen = false;
        let mut comment_from: Option<usize> = None;
        let mut comment = String::new();
        let mut last_line = self.line_number;
        let mut game_bytes = 0;
        // Whether the game has headers, and whether they have been followed
        // by a blank line or movetext without moves: an `[Event` header
        // line after that starts the next game (other headers after a blank
        // line are still this game's). A comment before any header, such as
        // a file's opening remark, does not end a header section.
        let mut tags_seen = false;
        let mut headers_over = false;
        while let Some(line) = self.next_line()? {
            last_line = line.number;
            if line.too_long {
                self.recovering = Some(line.is_tag());
                return Err(PdnError::LineTooLong { line: line.number });
            }
            if !line.valid {
                self.recovering = Some(line.is_tag());
                return Err(PdnError::InvalidUtf8 { line: line.number });
            }
            if comment_from.is_none() {
                let trimmed = line.text.trim();
                if trimmed.is_empty() || trimmed.starts_with('%') {
                    headers_over |= trimmed.is_empty() && tags_seen;
                    continue;
                }
                if trimmed.starts_with('[') {
                    if moves_seen || (headers_over && line.starts_a_game()) {
                        let start = start.unwrap_or(line.number);
                        let number = line.number;
                        self.pushed_back = Some(line);
                        return Err(PdnError::MissingResult {
                            line: number,
                            start,
                        });
                    }
                    tags_seen = true;
                    let first = *start.get_or_insert(line.number);
                    if let Err(e) = add_game_text(&mut game_bytes, &line, first) {
                        self.recovering = Some(true);
                        return Err(e);
                    }
                    if let Err(e) = read_tags(trimmed, line.number, &mut record, &mut result_tag) {
                        self.recovering = Some(true);
                        return Err(e);
                    }
                    continue;
                }
            } else if let (Some(opened), true) = (comment_from, line.starts_a_game()) {
                // A comment left open would swallow the games after it: a
                // line of whole headers beginning with `[Event` (which no
                // comment this program writes holds, as they are written on
                // one line) starts the next.
                self.pushed_back = Some(line);
                return Err(PdnError::UnterminatedComment { line: opened });
            }
            headers_over |= tags_seen;
            // The game's text so far (a header line of the next game, read
            // above, is not counted).
            let first = *start.get_or_insert(line.number);
            if let Err(e) = add_game_text(&mut game_bytes, &line, first) {
                self.recovering = Some(false);
                return Err(e);
            }
            let mut state = MovetextState {
                moves: &mut record.moves,
                comments: &mut record.comments,
                comment: &mut comment,
                comment_from: &mut comment_from,
                moves_seen: &mut moves_seen,
            };
            match scan_movetext(&line, &mut state) {
                Ok(Scan::More) => {}
                Ok(Scan::End(token)) => {
                    if let Some(tag) = result_tag.filter(|&tag| tag != token) {
                        self.recovering = Some(false);
                        return Err(PdnError::ResultMismatch {
                            line: line.number,
                            tag,
                            token,
                        });
                    }
                    record.result = token;
                    return Ok(Some(record));
                }
                Err(e) => {
                    self.recovering = Some(false);
                    return Err(e);
                }
            }
        }
        if let Some(line) = comment_from {
            return Err(PdnError::UnterminatedComment { line });
        }
        match start {
            None => Ok(None),
            Some(start) => Err(PdnError::MissingResult {
                line: last_line,
                start,
            }),
        }
    }
}

impl<R: BufRead> Iterator for PdnReader<R> {
    type Item = Result<GameRecord, PdnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        if let Some(after_tag) = self.recovering.take() {
            if let Err(e) = self.skip_broken_game(after_tag) {
                self.finished = true;
                return Some(Err(e));
            }
        }
        match self.read_game() {
            Ok(Some(record)) => Some(Ok(record)),
            Ok(None) => {
                self.finished = true;
                None
            }
            Err(e) => {
                if matches!(e, PdnError::Io { .. } | PdnError::EndlessLine { .. }) {
                    self.finished = true;
                }
                Some(Err(e))
            }
        }
    }
}

/// Reads every `[Name "value"]` on a header line into the record.
fn read_tags(
    mut rest: &str,
    line: usize,
    record: &mut GameRecord,
    result_tag: &mut Option<PdnResult>,
) -> Result<(), PdnError> {
    let bad = |reason: &str| PdnError::BadTag {
        line,
        reason: reason.to_string(),
    };
    while !rest.is_empty() {
        let body = rest
            .strip_prefix('[')
            .ok_or_else(|| bad("text after the closing ']'"))?;
        let name_len = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len());
        let name = &body[..name_len];
        if name.is_empty() {
            return Err(bad("missing tag name"));
        }
        // A name is letters and digits, of any length: shown cut.
        let name_shown = engine::files::cut(name, 40);
        let after_name = body[name_len..].trim_start();
        let quoted = after_name
            .strip_prefix('"')
            .ok_or_else(|| bad(&format!("tag {name_shown} has no quoted value")))?;
        let (value, after_value) = unescape(quoted)
            .ok_or_else(|| bad(&format!("value of tag {name_shown} is not terminated")))?;
        rest = after_value
            .trim_start()
            .strip_prefix(']')
            .ok_or_else(|| bad(&format!("tag {name_shown} has no closing ']'")))?
            .trim_start();
        store_tag(name, value, line, record, result_tag)?;
    }
    Ok(())
}

/// The value of a quoted string (after its opening quote) and the text
/// after its closing quote; `None` if it never closes.
fn unescape(text: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &text[i + 1..])),
            '\\' => match chars.next() {
                Some((_, e @ ('"' | '\\'))) => value.push(e),
                Some((_, other)) => {
                    value.push('\\');
                    value.push(other);
                }
                None => return None,
            },
            c => value.push(c),
        }
    }
    None
}

/// Puts one tag into its field, or among the extra tags.
fn store_tag(
    name: &str,
    value: String,
    line: usize,
    record: &mut GameRecord,
    result_tag: &mut Option<PdnResult>,
) -> Result<(), PdnError> {
    match name {
        "Event" => record.event = value,
        "Site" => record.site = Some(value),
        "Date" => record.date = value,
        "Round" => record.round = value,
        "White" => record.white = value,
        "Black" => record.black = value,
        "GameType" => record.game_type = value,
        "FEN" => record.fen = Some(value),
        "Result" => {
            let result = value.trim().parse().map_err(|()| PdnError::BadResult {
                line,
                text: value.clone(),
            })?;
            *result_tag = Some(result);
            record.result = result;
        }
        _ => record.set_tag(name, value),
    }
    Ok(())
}

/// What the movetext scan keeps between lines.
struct MovetextState<'a> {
    moves: &'a mut Vec<String>,
    comments: &'a mut BTreeMap<usize, String>,
    /// The text of the comment being read.
    comment: &'a mut String,
    /// The line a `{` opened on, while a comment is open.
    comment_from: &'a mut Option<usize>,
    moves_seen: &'a mut bool,
}

impl MovetextState<'_> {
    /// Files a finished comment under the move before it.
    fn close_comment(&mut self) {
        *self.comment_from = None;
        let text = comment_text(self.comment);
        self.comment.clear();
        let Some(last) = self.moves.len().checked_sub(1) else {
            return;
        };
        if text.is_empty() {
            return;
        }
        self.comments
            .entry(last)
            .and_modify(|c| {
                c.push(' ');
                c.push_str(&text);
            })
            .or_insert(text);
    }
}

/// Reads the movetext on one line: moves go into `moves`, comments into
/// `comments`; comments may span lines (`comment_from` holds the line a `{`
/// opened on).
fn scan_movetext(line: &Line, st: &mut MovetextState<'_>) -> Result<Scan, PdnError> {
    let mut rest = line.text.as_str();
    loop {
        if st.comment_from.is_some() {
            if let Some(end) = rest.find('}') {
                st.comment.push_str(&rest[..end]);
                st.close_comment();
                rest = &rest[end + 1..];
            } else {
                st.comment.push_str(rest);
                st.comment.push(' ');
                return Ok(Scan::More);
            }
        }
        rest = rest.trim_start();
        if rest.is_empty() || rest.starts_with(';') {
            return Ok(Scan::More);
        }
        if let Some(after) = rest.strip_prefix('{') {
            *st.comment_from = Some(line.number);
            rest = after;
            continue;
        }
        let stop = |c: char| c.is_whitespace() || c == '{' || c == ';';
        let mut end = rest.find(stop).unwrap_or(rest.len());
        // A move's captured-square list written with spaces (`d4e3x(f4,
        // e2)`, as `play` takes it) is one token, read without them.
        let unclosed = rest[..end].find('(').is_some_and(|i| i > 0) && !rest[..end].contains(')');
        // Its `)` on this line, before any comment.
        let close = rest[end..]
            .find([')', '{', ';'])
            .filter(|&i| unclosed && rest[end + i..].starts_with(')'));
        if let Some(i) = close {
            let after = end + i + 1;
            end = after + rest[after..].find(stop).unwrap_or(rest.len() - after);
        }
        let token = &rest[..end];
        let token: std::borrow::Cow<'_, str> = if token.contains(char::is_whitespace) {
            token.split_whitespace().collect::<String>().into()
        } else {
            token.into()
        };
        rest = &rest[end..];
        if let Some(result) = read_token(&token, line.number, st.moves, st.moves_seen)? {
            return Ok(Scan::End(result));
        }
    }
}

/// Handles one movetext token; `Some` for the result token.
fn read_token(
    token: &str,
    line: usize,
    moves: &mut Vec<String>,
    moves_seen: &mut bool,
) -> Result<Option<PdnResult>, PdnError> {
    if let Ok(result) = token.parse::<PdnResult>() {
        return Ok(Some(result));
    }
    let unexpected = || PdnError::Unexpected {
        line,
        text: token.to_string(),
    };
    if let Some(nag) = token.strip_prefix('$') {
        return if !nag.is_empty() && nag.bytes().all(|b| b.is_ascii_digit()) {
            Ok(None)
        } else {
            Err(unexpected())
        };
    }
    if token.starts_with(['(', ')', '[', ']', '}']) {
        return Err(unexpected());
    }
    let mut mv = token;
    if token.starts_with(|c: char| c.is_ascii_digit()) {
        // A move number (`12.`, `12...`, or glued `12.f45`); moves of both
        // games start with a letter, so anything else is a broken result.
        let digits = token.bytes().take_while(u8::is_ascii_digit).count();
        let after = &token[digits..];
        let dots = after.bytes().take_while(|&b| b == b'.').count();
        if dots == 0 {
            // `22-17`, `9x18`, `5:14`: numeric squares, as in the PDN of
            // other draughts games (`7-2`, a score such as `2-0` written
            // wrong, stays a bad result).
            let second = after
                .get(1..)
                .unwrap_or("")
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            let numeric = second > 0
                && (after.starts_with(['x', ':'])
                    || (after.starts_with('-') && digits.max(second) >= 2));
            if numeric {
                return Err(PdnError::NumericSquares {
                    line,
                    text: token.to_string(),
                });
            }
            return Err(PdnError::BadResult {
                line,
                text: token.to_string(),
            });
        }
        mv = &after[dots..];
        // Glued to its number, only a move (or annotation marks) may follow:
        // `12.1-0` or `12.5:c7` would be written back as a separate token
        // that reads differently.
        if mv.starts_with(|c: char| !c.is_ascii_alphabetic() && !"!?+-=#".contains(c)) {
            return Err(unexpected());
        }
        *moves_seen = true;
    }
    let mv = strip_annotations(mv);
    if mv.is_empty() || mv.bytes().all(|b| b"!?+-=#".contains(&b)) {
        return Ok(None);
    }
    // Moves of both games start with a letter; anything else (`%h6`, say,
    // which written at the start of a line would be an escape line) is not
    // a move.
    if !mv.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(unexpected());
    }
    *moves_seen = true;
    moves.push(mv.to_string());
    Ok(None)
}

/// Why a record does not replay legally.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayError {
    /// `[GameType]` names another game (or none that exists).
    #[error("game type '{}' is not {expected}", engine::files::quoted(found, 40))]
    WrongGame {
        /// The tag's value.
        found: String,
        /// The game replayed.
        expected: &'static str,
    },
    /// The `[FEN]` position text is invalid.
    #[error("bad FEN: {0}")]
    BadPosition(#[from] PositionError),
    /// A move that cannot be read or is not legal.
    #[error("ply {} ({}): {reason}", .index + 1, engine::files::quoted(text, 80))]
    IllegalMove {
        /// The move's index in the record (0 for the first move).
        index: usize,
        /// The move as recorded.
        text: String,
        /// Why it was refused.
        reason: MoveError,
    },
    /// A move after the game had ended in a draw by threefold repetition.
    #[error("ply {} ({}): the game had already ended, drawn by threefold repetition", .index + 1, engine::files::quoted(text, 80))]
    AfterRepetition {
        /// The move's index in the record (0 for the first move).
        index: usize,
        /// The move as recorded.
        text: String,
    },
    /// The game ended by the rules (no legal move, or a threefold
    /// repetition), but the result says otherwise.
    #[error("result {recorded} contradicts the final position, where {} ({expected})", if *.expected == PdnResult::Draw { "the position has occurred three times" } else { "the side to move has no move" })]
    WrongResult {
        /// The recorded result.
        recorded: PdnResult,
        /// The result the rules give.
        expected: PdnResult,
    },
}

/// A record replayed by the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay<G: Game> {
    /// The start position.
    pub start: G,
    /// The moves played.
    pub moves: Vec<G::Move>,
    /// The position after the last move.
    pub end: G,
    /// The rules' verdict on `end`: a win when the side to move has no legal
    /// move, a draw when it is a threefold repetition.
    pub outcome: Option<Outcome>,
}

/// Replays a record in game `G` from its FEN (or the initial position),
/// reading every move with [`Game::parse_move`]. Fails at the first bad
/// move, at a move after a threefold repetition (which ends the game, docs/rules.md
/// 1.6), on a `[GameType]` of another game, and on a result that contradicts
/// a final position without legal moves or a final threefold repetition
/// (`*`, no result, contradicts nothing; other endings, such as adjudicated
/// draws, are not judged).
pub fn replay<G: Game>(record: &GameRecord) -> Result<Replay<G>, ReplayError> {
    if !record.game_type.is_empty() && record.game_kind() != Some(G::KIND) {
        return Err(ReplayError::WrongGame {
            found: record.game_type.clone(),
            expected: G::KIND.name(),
        });
    }
    let start = match &record.fen {
        Some(fen) => G::parse_position(fen)?,
        None => G::start(),
    };
    let mut position = start;
    let mut moves = Vec::with_capacity(record.moves.len());
    // How often each position since the last irreversible move occurred.
    let mut seen: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
    seen.insert(Game::hash(&position), 1);
    for (index, text) in record.moves.iter().enumerate() {
        if seen.get(&Game::hash(&position)).is_some_and(|&n| n >= 3) {
            return Err(ReplayError::AfterRepetition {
                index,
                text: text.clone(),
            });
        }
        let mv = position
            .parse_move(text)
            .map_err(|reason| ReplayError::IllegalMove {
                index,
                text: text.clone(),
                reason,
            })?;
        let after = position.play(&mv);
        if position.is_irreversible(&mv, &after) {
            seen.clear();
        }
        position = after;
        *seen.entry(Game::hash(&position)).or_default() += 1;
        moves.push(mv);
    }
    let mut list = MoveList::new();
    position.generate(&mut list);
    let outcome = list
        .is_empty()
        .then(|| Outcome::Win(position.side_to_move().opponent()));
    // A game that ends on a threefold repetition is drawn (docs/rules.md 1.6).
    let repeated = seen.get(&Game::hash(&position)).is_some_and(|&n| n >= 3);
    let outcome = outcome.or(repeated.then_some(Outcome::Draw));
    if let Some(outcome) = outcome {
        let expected = PdnResult::from_outcome(outcome);
        if record.result != expected && record.result != PdnResult::Unknown {
            return Err(ReplayError::WrongResult {
                recorded: record.result,
                expected,
            });
        }
    }
    Ok(Replay {
        start,
        moves,
        end: position,
        outcome,
    })
}
