//! The opening atlas: every opening line up to a number of plies, each
//! measured by a deep search and by self-play from the position it reaches.
//!
//! Every figure is from the **first player's** (White's) point of view: a
//! line's score is what White scores from the position after it, when the
//! same engine plays both sides. The games are independent (each between
//! two fresh instances of the engine) and counted in pairs, for the
//! pentanomial model of [`selfplay::stats`].
//!
//! A run appends one JSON line per measured line to a results file as soon
//! as the line is done; a run started again over the same folder skips the
//! lines already there (resume), and shards (`K/N`) share the folder, each
//! writing its own file.

use engine::eval::{EvalKind, EvalSource};
use engine::search::{Engine, Limits, SearchInput};
use engine::tt::HashSize;
use engine::{Color, Game, MoveList, Outcome};
use selfplay::game::{play_game, Adjudication};
use selfplay::player::make_player;
use selfplay::shard::Shard;
use selfplay::spec::EngineSpec;
use selfplay::stats::{GameResult, Pentanomial};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What an atlas run measures, and how.
#[derive(Clone, Debug)]
pub struct AtlasConfig {
    /// Longest opening line, in plies (every line of 1 ..= plies is measured).
    pub plies: usize,
    /// Depth of the deep search of each line's position.
    pub search_depth: u32,
    /// Time per move of the self-play games, in milliseconds.
    pub movetime: Option<u64>,
    /// Depth per move of the self-play games (instead of a move time): a
    /// search at a fixed depth is deterministic, so every game of a line is
    /// the same game, and a line gets one pair ([`FIXED_DEPTH_GAMES`]):
    /// for quick checks.
    pub game_depth: Option<u32>,
    /// Games per line (pairs of two; an odd number is rounded up).
    pub games: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// Table size of each engine.
    pub hash: HashSize,
    /// Adjudication of the games.
    pub adjudication: Adjudication,
    /// The evaluation of the deep search and of both sides of the games
    /// (the game's default, the feature weights or the pattern weights,
    /// all built in).
    pub eval: EvalKind,
    /// Measure only this shard's block of the lines (split as
    /// [`Shard::pairs`] splits a self-play run's game pairs).
    pub shard: Option<Shard>,
}

/// The most games a line may ask for.
pub const MAX_GAMES: usize = 1_000_000;

/// The games a line plays at a fixed depth: every game repeats the first.
pub const FIXED_DEPTH_GAMES: usize = 2;

/// Longest opening line: the report reads the first moves and their
/// replies, so longer lines would cost (about 25-fold a ply) for nothing.
pub const MAX_PLIES: usize = 2;

/// Longest lines a report alone reads back (a folder of 3-ply lines).
pub const MAX_REPORT_PLIES: usize = 3;

impl Default for AtlasConfig {
    fn default() -> Self {
        AtlasConfig {
            plies: 2,
            search_depth: 10,
            movetime: Some(40),
            game_depth: None,
            games: 20,
            concurrency: std::thread::available_parallelism().map_or(1, usize::from),
            hash: HashSize::fixed(16),
            adjudication: Adjudication::default(),
            eval: EvalKind::Auto,
            shard: None,
        }
    }
}

impl AtlasConfig {
    /// Refuses settings that cannot be run, with a message naming the option.
    pub fn check(&self) -> Result<(), String> {
        if self.plies == 0 || self.plies > MAX_PLIES {
            return Err(format!(
                "--plies {}: expected 1 or {MAX_PLIES} (the report ranks the first moves and their replies)",
                self.plies
            ));
        }
        if !(1..=MAX_GAMES).contains(&self.games) {
            return Err(format!(
                "--games {}: expected 1 to {MAX_GAMES} games a line",
                self.games
            ));
        }
        if !(1..=1024).contains(&self.concurrency) {
            return Err(format!(
                "--concurrency {}: expected 1 to 1024",
                self.concurrency
            ));
        }
        if self.search_depth == 0 || self.search_depth > 40 {
            return Err(format!(
                "--search-depth {}: expected 1 to 40",
                self.search_depth
            ));
        }
        if self.movetime.is_some() == self.game_depth.is_some() {
            return Err("give the games either a move time or a depth, not both".into());
        }
        if self.movetime == Some(0) || self.game_depth == Some(0) {
            return Err("the games' move time or depth must be above 0".into());
        }
        if self.game_depth.is_some() && self.games > FIXED_DEPTH_GAMES {
            return Err(format!(
                "--games {}: games at a fixed depth all repeat the first; with --game-depth a line plays {FIXED_DEPTH_GAMES}",
                self.games
            ));
        }
        // A table too large for the memory is refused now, not by an abort
        // in a search thread: two players a game being played, and the deep
        // search.
        let tables = 2 * self.concurrency + 1;
        engine::tt::Table::can_have(self.hash, tables).map_err(|e| format!("--hash: {e}"))?;
        // The games' engine is read now: a value it refuses (a depth over
        // its bound) stops the run before anything is searched or written.
        self.engine_spec().map_err(|e| match self.movetime {
            Some(ms) => format!("--movetime {ms}: {e}"),
            None => format!("--game-depth {}: {e}", self.game_depth.unwrap_or(1)),
        })?;
        Ok(())
    }

    /// The engine both sides of every game are.
    fn engine_spec(&self) -> Result<EngineSpec, String> {
        // `check` has made sure exactly one of the two is set.
        let limit = match self.movetime {
            Some(ms) => format!("movetime={ms}"),
            None => format!("depth={}", self.game_depth.unwrap_or(1)),
        };
        EngineSpec::parse(&format!(
            "name=atlas,{limit},hash={},eval={}",
            self.hash,
            self.eval.name()
        ))
        .map_err(|e| e.to_string())
    }

    /// The name of this shard's results file.
    pub fn results_file(&self, dir: &Path) -> PathBuf {
        match self.shard {
            Some(s) => dir.join(format!("lines-{}-of-{}.jsonl", s.index, s.count)),
            None => dir.join("lines.jsonl"),
        }
    }
}

/// An opening line: its moves from the start and the position it reaches.
#[derive(Clone, Debug)]
pub struct Line<G: Game> {
    /// The moves, in the game's notation.
    pub moves: Vec<String>,
    /// The position after them.
    pub position: G,
}

impl<G: Game> Line<G> {
    /// The line as text: its moves separated by spaces.
    pub fn key(&self) -> String {
        self.moves.join(" ")
    }
}

/// Every line of 1 ..= `plies` plies from the start, shorter lines first, each
/// in the order the move generator gives (a line that ends the game is not
/// extended).
pub fn lines<G: Game>(plies: usize) -> Vec<Line<G>> {
    let mut out = Vec::new();
    let mut frontier = vec![Line {
        moves: Vec::new(),
        position: G::start(),
    }];
    let mut list = MoveList::new();
    for _ in 0..plies {
        let mut next = Vec::new();
        for line in &frontier {
            line.position.generate(&mut list);
            for mv in &list {
                let mut moves = line.moves.clone();
                moves.push(line.position.move_text(mv));
                next.push(Line {
                    moves,
                    position: line.position.play(mv),
                });
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

/// The deep search of a line's position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchFigures {
    /// Depth searched.
    pub depth: u32,
    /// The score for White in centi-men (a found win or loss as ±30000
    /// less its distance in plies).
    pub score: i32,
    /// The score as the engine prints it, for the side to move.
    pub score_text: String,
    /// The principal variation, in notation.
    pub pv: Vec<String>,
    /// Nodes searched.
    pub nodes: u64,
}

/// Everything measured of one line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineResult {
    /// The moves, in notation, separated by spaces.
    pub line: String,
    /// Plies in the line.
    pub plies: usize,
    /// The position after the line (position text).
    pub position: String,
    /// The deep search.
    pub search: SearchFigures,
    /// Games played.
    pub games: u64,
    /// Games White won.
    pub white_wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games Black won.
    pub black_wins: u64,
    /// White's pair scores `[LL, LD, DD/WL, WD, WW]`.
    pub pairs: [u64; 5],
    /// White's mean score per game.
    pub score: f64,
    /// White's Elo advantage, with its 95% interval from the pairs; an
    /// infinite value is written as null (every game won or every game lost),
    /// and [`LineResult::elo_interval`] gives it back with its sign.
    pub elo: Option<f64>,
    /// Lower end of the interval (null when infinite).
    pub elo_lower: Option<f64>,
    /// Upper end of the interval (null when infinite).
    pub elo_upper: Option<f64>,
    /// Share of games drawn.
    pub draw_rate: f64,
    /// Mean length of the games, in plies from the line's position.
    pub mean_plies: f64,
    /// How White's wins came about (termination text and count).
    pub white_wins_by: BTreeMap<String, u64>,
    /// How Black's wins came about.
    pub black_wins_by: BTreeMap<String, u64>,
    /// How the draws came about.
    pub draws_by: BTreeMap<String, u64>,
    /// Wall time the line took (search and games), in seconds.
    pub seconds: f64,
}

/// The 97.5% quantile of Student's t distribution with `df` degrees of
/// freedom (exact to three decimals up to 30, then the Cornish-Fisher
/// expansion around the normal quantile).
pub fn student_t_975(df: u64) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df as usize - 1],
        _ => {
            let z: f64 = 1.959_964;
            let n = df as f64;
            z + (z.powi(3) + z) / (4.0 * n)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * n * n)
        }
    }
}

impl LineResult {
    /// The line with its Elo interval from Student's t over the pairs (the
    /// pair scores' sample variance, n - 1 degrees of freedom): with the 5
    /// to 20 pairs an atlas line has, the normal approximation that
    /// `bushka selfplay` uses (and the results file records) is too narrow.
    /// Fewer than two pairs keep the recorded interval; pairs that do not
    /// vary have none (both ends null: the file may record one of zero
    /// width, written before such results had none).
    pub fn with_t_interval(&self) -> LineResult {
        let mut out = self.clone();
        let n: u64 = self.pairs.iter().sum();
        if n < 2 {
            return out;
        }
        let nf = n as f64;
        let values = [0.0, 0.25, 0.5, 0.75, 1.0];
        let mean: f64 = self
            .pairs
            .iter()
            .zip(values)
            .map(|(&c, v)| c as f64 * v)
            .sum::<f64>()
            / nf;
        let var: f64 = self
            .pairs
            .iter()
            .zip(values)
            .map(|(&c, v)| c as f64 * (v - mean) * (v - mean))
            .sum::<f64>()
            / (nf - 1.0);
        if var <= 0.0 {
            (out.elo_lower, out.elo_upper) = (None, None);
            return out;
        }
        let half = student_t_975(n - 1) * (var / nf).sqrt();
        let elo = |s: f64| {
            let e = selfplay::stats::score_to_elo(s);
            e.is_finite().then_some(e)
        };
        out.elo_lower = elo((mean - half).max(0.0));
        out.elo_upper = elo((mean + half).min(1.0));
        out
    }

    /// White's Elo, and its interval's lower and upper ends, with the
    /// infinities the file writes as null given back their signs: every
    /// game won makes all three +inf and every game lost all three -inf
    /// (the pairs do not vary); otherwise only an end can be infinite, the
    /// lower one -inf and the upper one +inf.
    pub fn elo_interval(&self) -> (f64, f64, f64) {
        let (neg, pos) = (f64::NEG_INFINITY, f64::INFINITY);
        let open = |x: Option<f64>, otherwise: f64| {
            x.unwrap_or(if self.score >= 1.0 {
                pos
            } else if self.score <= 0.0 {
                neg
            } else {
                otherwise
            })
        };
        let centre = if self.score > 0.5 { pos } else { neg };
        (
            open(self.elo, centre),
            open(self.elo_lower, neg),
            open(self.elo_upper, pos),
        )
    }

    /// Checks the counts agree with each other (a results file may have been
    /// edited or damaged).
    pub fn consistent(&self) -> Result<(), String> {
        let line = engine::files::quoted(&self.line, 80);
        // Sums that overflow are refused like any others that disagree (an
        // edited file's counts may be anything).
        fn total(mut xs: impl Iterator<Item = u64>) -> Option<u64> {
            xs.try_fold(0u64, u64::checked_add)
        }
        let sum = total([self.white_wins, self.draws, self.black_wins].into_iter());
        if sum != Some(self.games) {
            return Err(format!(
                "line {line}: {} wins + {} draws + {} losses is not {} games",
                self.white_wins, self.draws, self.black_wins, self.games
            ));
        }
        let pairs = total(self.pairs.iter().copied()).and_then(|p| p.checked_mul(2));
        if pairs != Some(self.games) {
            return Err(format!(
                "line {line}: {:?} pairs do not make {} games",
                self.pairs, self.games
            ));
        }
        let by = |m: &BTreeMap<String, u64>| total(m.values().copied());
        if by(&self.white_wins_by) != Some(self.white_wins)
            || by(&self.black_wins_by) != Some(self.black_wins)
            || by(&self.draws_by) != Some(self.draws)
        {
            return Err(format!(
                "line {line}: the reasons do not add up to the results"
            ));
        }
        Ok(())
    }
}

/// One finished game, from White's side.
struct Played {
    result: GameResult,
    plies: usize,
    reason: String,
}

/// Measures one line: the deep search, then the games.
pub fn measure_line<G: EvalSource>(
    line: &Line<G>,
    cfg: &AtlasConfig,
    pool: &rayon::ThreadPool,
) -> Result<LineResult, String>
where
    engine::eval::Material: engine::eval::Evaluator<G>,
{
    let clock = std::time::Instant::now();
    let search = deep_search(line, cfg)?;
    let spec = cfg.engine_spec()?;
    let pairs = cfg.games.div_ceil(2);
    // Game 2p has the first instance as White, game 2p + 1 the second; the
    // instances are the same engine, so only the colours swap.
    let played: Vec<Result<Played, String>> = pool.install(|| {
        use rayon::prelude::*;
        (0..2 * pairs)
            .into_par_iter()
            .map(|g| play_one(line, &spec, cfg, g as u64))
            .collect()
    });
    let played: Vec<Played> = played.into_iter().collect::<Result<_, _>>()?;
    let mut r = summarise(line, search, &played);
    r.seconds = clock.elapsed().as_secs_f64();
    Ok(r)
}

/// The deep search of the line's position, with the score turned to White's.
pub fn deep_search<G: EvalSource>(
    line: &Line<G>,
    cfg: &AtlasConfig,
) -> Result<SearchFigures, String> {
    let mut engine = Engine::<G>::try_new(cfg.hash, 1).map_err(|e| format!("--hash: {e}"))?;
    let eval = G::select_eval(None, cfg.eval).map_err(|e| format!("--eval: {e}"))?;
    let input = SearchInput::new(line.position, Limits::depth(cfg.search_depth));
    let result = engine.search(eval.as_ref(), &input, |_| {});
    let mut pos = line.position;
    let mut pv = Vec::new();
    for mv in &result.pv {
        pv.push(pos.move_text(mv));
        pos = pos.play(mv);
    }
    let raw = result.score.internal();
    Ok(SearchFigures {
        depth: result.depth,
        score: if line.position.side_to_move() == Color::White {
            raw
        } else {
            -raw
        },
        score_text: result.score.to_string(),
        pv,
        nodes: result.nodes,
    })
}

/// Plays game `g` of a line.
fn play_one<G: EvalSource>(
    line: &Line<G>,
    spec: &EngineSpec,
    cfg: &AtlasConfig,
    g: u64,
) -> Result<Played, String>
where
    engine::eval::Material: engine::eval::Evaluator<G>,
{
    let mut first = make_player::<G>(spec, 2 * g, None)?;
    let mut second = make_player::<G>(spec, 2 * g + 1, None)?;
    let players: [&mut dyn selfplay::player::Player<G>; 2] = if g.is_multiple_of(2) {
        [first.as_mut(), second.as_mut()]
    } else {
        [second.as_mut(), first.as_mut()]
    };
    let done = play_game(line.position, players, &cfg.adjudication, None);
    let result = match done.outcome {
        Outcome::Win(Color::White) => GameResult::Win,
        Outcome::Win(Color::Black) => GameResult::Loss,
        Outcome::Draw => GameResult::Draw,
    };
    Ok(Played {
        result,
        plies: done.record.len(),
        reason: done.reason,
    })
}

/// Counts and estimates from a line's games.
fn summarise<G: Game>(line: &Line<G>, search: SearchFigures, played: &[Played]) -> LineResult {
    let mut penta = Pentanomial::default();
    for pair in played.chunks(2) {
        if let [a, b] = pair {
            penta.add_pair(a.result, b.result);
        }
    }
    let e = penta.estimates();
    let count = |r: GameResult| played.iter().filter(|p| p.result == r).count() as u64;
    let reasons = |r: GameResult| {
        let mut m = BTreeMap::new();
        for p in played.iter().filter(|p| p.result == r) {
            *m.entry(p.reason.clone()).or_insert(0) += 1;
        }
        m
    };
    let games = played.len() as u64;
    let finite = |x: f64| x.is_finite().then_some(x);
    LineResult {
        line: line.key(),
        plies: line.moves.len(),
        position: line.position.to_text(),
        search,
        games,
        white_wins: count(GameResult::Win),
        draws: count(GameResult::Draw),
        black_wins: count(GameResult::Loss),
        pairs: penta.counts,
        score: e.score,
        elo: finite(e.elo.value),
        elo_lower: finite(e.elo.lower),
        elo_upper: finite(e.elo.upper),
        draw_rate: count(GameResult::Draw) as f64 / games.max(1) as f64,
        mean_plies: played.iter().map(|p| p.plies as f64).sum::<f64>() / games.max(1) as f64,
        white_wins_by: reasons(GameResult::Win),
        black_wins_by: reasons(GameResult::Loss),
        draws_by: reasons(GameResult::Draw),
        seconds: 0.0,
    }
}

/// Checks a folder's `settings.txt` (its first line the settings of the
/// results in it, its second `evaluation ID`) against a run's: results of
/// other settings or of another evaluation must not be mixed in. A report
/// alone (`report_only`) measures nothing and needs only the settings. The
/// error reads after the folder's name; text from the file is escaped.
pub fn check_settings(
    text: &str,
    settings: &str,
    eval: &str,
    report_only: bool,
) -> Result<(), String> {
    if text.trim().is_empty() {
        return Err(
            "has an empty settings.txt (a run stopped while writing it?): remove it and run again"
                .into(),
        );
    }
    let mut lines = text.lines();
    let old = lines.next().unwrap_or_default().trim();
    // A report alone measures nothing: the evaluation it would measure
    // with (`--eval`) is no matter.
    let without_eval = |s: &str| s.split(" --eval ").next().unwrap_or_default().to_string();
    let same = if report_only {
        without_eval(old) == without_eval(settings)
    } else {
        old == settings
    };
    if !same {
        let fix = if report_only {
            "give those settings for its report"
        } else {
            "use another --out"
        };
        return Err(format!(
            "holds results of other settings ({}); {fix}",
            engine::files::quoted(old, 200)
        ));
    }
    if report_only {
        return Ok(());
    }
    match lines
        .next()
        .and_then(|l| l.trim().strip_prefix("evaluation "))
    {
        Some(old) if old == eval => Ok(()),
        Some(old) => Err(format!(
            "holds results of another evaluation ({}; this build's is {eval}); \
             use another --out, or --report-only",
            engine::files::quoted(old, 200)
        )),
        None => Err(
            "does not record the evaluation its results were measured with (an \
             older build made it); use another --out, or --report-only"
                .into(),
        ),
    }
}

/// Reads every results file (`lines*.jsonl`) of a folder: the lines measured
/// so far, by line text. A line measured twice (by two shards given the same
/// number, say) is an error, and so is a damaged line; a last line cut short
/// by a kill is left out (it will be measured again).
pub fn read_results(dir: &Path) -> Result<BTreeMap<String, LineResult>, String> {
    let mut out = BTreeMap::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("lines") && n.ends_with(".jsonl"))
        })
        .collect();
    files.sort();
    for file in files {
        read_file(&file, &mut out)?;
    }
    Ok(out)
}

/// Adds one results file's lines to `out`.
fn read_file(file: &Path, out: &mut BTreeMap<String, LineResult>) -> Result<(), String> {
    use engine::files::{read_line_capped, LineRead, MAX_LINE};
    let io = |e: std::io::Error| format!("{}: {e}", file.display());
    let f = std::fs::File::open(file).map_err(io)?;
    let mut input = std::io::BufReader::new(f);
    let mut buf = Vec::new();
    // A line that does not read is an error unless it is the last one: a
    // kill mid-write leaves at most the last line cut short.
    let mut unread: Option<String> = None;
    for i in 0.. {
        buf.clear();
        let read = read_line_capped(&mut input, &mut buf, MAX_LINE).map_err(io)?;
        if read == LineRead::End {
            break;
        }
        if let Some(e) = unread.take() {
            return Err(e);
        }
        if read == LineRead::TooLong {
            return Err(format!(
                "{} line {}: longer than {MAX_LINE} bytes",
                file.display(),
                i + 1
            ));
        }
        let Ok(raw) = std::str::from_utf8(&buf) else {
            unread = Some(format!("{} line {}: not UTF-8 text", file.display(), i + 1));
            continue;
        };
        if raw.trim().is_empty() {
            continue;
        }
        let r: LineResult = match serde_json::from_str(raw) {
            Ok(r) => r,
            Err(e) => {
                let e = engine::files::quoted(&e.to_string(), 400);
                unread = Some(format!("{} line {}: {e}", file.display(), i + 1));
                continue;
            }
        };
        r.consistent()
            .map_err(|e| format!("{} line {}: {e}", file.display(), i + 1))?;
        if out.insert(r.line.clone(), r).is_some() {
            return Err(format!(
                "{} line {}: the line is measured twice in this folder",
                file.display(),
                i + 1
            ));
        }
    }
    Ok(())
}

/// Appends one result to the results file and flushes it to disk.
pub fn append_result(file: &Path, r: &LineResult) -> Result<(), String> {
    let io = |e: std::io::Error| format!("{}: {e}", file.display());
    let text = serde_json::to_string(r).map_err(|e| e.to_string())?;
    // A last line cut short by a kill (never read as a result) is cut off;
    // a whole one without its line break (a file edited by hand) is ended.
    let mut f = engine::files::append_after_whole_lines(file, |tail| {
        serde_json::from_slice::<LineResult>(tail).is_ok()
    })
    .map_err(io)?;
    f.write_all(format!("{text}\n").as_bytes()).map_err(io)?;
    f.sync_data().map_err(io)
}

/// The lines this run (or shard) still has to measure.
pub fn todo<G: Game>(
    cfg: &AtlasConfig,
    done: &BTreeMap<String, LineResult>,
) -> Vec<(usize, Line<G>)> {
    let seen: HashSet<&str> = done.keys().map(String::as_str).collect();
    let all = lines::<G>(cfg.plies);
    // A shard's lines are a block of the list, as a self-play shard's games.
    let block = cfg.shard.map_or(0..all.len(), |s| s.pairs(all.len()));
    all.into_iter()
        .enumerate()
        .filter(|(i, _)| block.contains(i))
        .filter(|(_, l)| !seen.contains(l.key().as_str()))
        .collect()
}
