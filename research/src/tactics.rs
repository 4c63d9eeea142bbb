//! The inventory of tactics: positions of real games where the side to move
//! has a forced gain that a shallow look does not see.
//!
//! A position is a **tactic** when all of these hold:
//!
//! 1. The deep search (the engine, `deep` plies with its quiescence) finds a
//!    line that gains at least `min_gain` centi-men of material by its end
//!    (material counted as the `material` baseline counts it), or wins.
//! 2. The line begins with a **sacrifice** (the opponent captures at once)
//!    or a **quiet move** (no capture) — a capture that wins by itself is
//!    no combination.
//! 3. A **shallow look** (`shallow` plies, full width, the static
//!    evaluation at the leaves, no capture extension) prefers another move:
//!    the combination lies beyond its horizon.
//! 4. A **verifying** search (`verify` plies) still plays the same first move
//!    and still gains at least `min_gain` (or wins).
//!
//! Found positions are de-duplicated by position, a position on the solution
//! line of a tactic found earlier is left out (the same combination a move
//! later), and each is classified by motif ([`Motifs`]) and stored with its
//! solution line.

use engine::eval::{EvalKind, EvalSource, Evaluator, Material};
use engine::search::{Engine, Limits, Score, SearchInput};
use engine::tt::HashSize;
use engine::{bashnya, bushka, Color, Game, MoveList};
use serde::{Deserialize, Serialize};

/// What counts as a tactic, and how hard to look.
#[derive(Clone, Debug)]
pub struct MineConfig {
    /// Plies of the shallow look (full width, static evaluation at the leaves).
    pub shallow: u32,
    /// Depth of the deep search.
    pub deep: u32,
    /// Depth of the verifying search.
    pub verify: u32,
    /// Least material gain, in centi-men (a man is 100).
    pub min_gain: i32,
    /// Table size of the searches.
    pub hash: HashSize,
    /// The evaluation of every search and of the shallow look (the game's
    /// default, the feature weights or the pattern weights, all built in).
    pub eval: EvalKind,
}

impl Default for MineConfig {
    fn default() -> Self {
        MineConfig {
            shallow: 2,
            deep: 8,
            verify: 10,
            min_gain: 100,
            hash: HashSize::fixed(16),
            eval: EvalKind::Auto,
        }
    }
}

impl MineConfig {
    /// Refuses settings that cannot be run, naming the option.
    pub fn check(&self) -> Result<(), String> {
        if self.shallow == 0 || self.shallow > 6 {
            return Err(format!("--shallow {}: expected 1 to 6", self.shallow));
        }
        if self.deep <= self.shallow || self.deep > 30 {
            return Err(format!(
                "--deep {}: expected more than --shallow and at most 30",
                self.deep
            ));
        }
        if self.verify < self.deep || self.verify > 32 {
            return Err(format!(
                "--verify {}: expected at least --deep and at most 32",
                self.verify
            ));
        }
        if self.min_gain <= 0 {
            return Err(format!("--min-gain {}: expected above 0", self.min_gain));
        }
        // A table too large for the memory is refused now, not by an abort
        // in a search thread.
        // (One table a search thread.)
        engine::tt::Table::can_have(self.hash, rayon::current_num_threads())
            .map_err(|e| format!("--hash: {e}"))?;
        Ok(())
    }
}

/// One tactic: the problem and its solution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tactic {
    /// The position (position text), the solver to move.
    pub position: String,
    /// The solution line from the deep search, in notation (solver's first).
    pub solution: Vec<String>,
    /// `sacrifice` or `quiet move`: how the line begins.
    pub first_move_kind: String,
    /// The motif ([`Motifs`]).
    pub motif: String,
    /// Material gained by the line's end, in centi-men (`None` when it wins
    /// the game).
    pub gain: Option<i32>,
    /// The move the shallow look prefers.
    pub shallow_move: String,
    /// The verifying search's score, as the engine prints it.
    pub score: String,
    /// Where it was found: the game's index in its file (from 1) and ply.
    pub source: String,
}

impl Tactic {
    /// Checks that the tactic is one mining could have written for the
    /// position of hash `hash` in game `G`: its position reads and has that
    /// hash, its problem line ([`Tactic::problem_line`]) reads back with the
    /// same solution, each solution move is one token, the motif has no
    /// surrounding space, and no field holds a control character (a line
    /// break or a tab would split the problem set's lines and fields).
    pub fn check<G: Game>(&self, hash: u64) -> Result<(), String> {
        let fields = [
            ("position", &self.position),
            ("first_move_kind", &self.first_move_kind),
            ("motif", &self.motif),
            ("shallow_move", &self.shallow_move),
            ("score", &self.score),
            ("source", &self.source),
        ];
        for (name, text) in fields {
            if text.chars().any(char::is_control) {
                return Err(format!("the tactic's {name} holds a control character"));
            }
        }
        if self.motif.is_empty() || self.motif.trim() != self.motif {
            return Err(format!(
                "the tactic's motif {:?} is empty or padded",
                self.motif
            ));
        }
        if let Some(bad) = self
            .solution
            .iter()
            .find(|m| m.is_empty() || m.chars().any(|c| c.is_whitespace() || c.is_control()))
        {
            return Err(format!(
                "the tactic's solution move {bad:?} is not one token"
            ));
        }
        let pos = G::parse_position(&self.position).map_err(|e| format!("position: {e}"))?;
        if Game::hash(&pos) != hash {
            return Err(format!(
                "the tactic's position is not the position of hash {hash}"
            ));
        }
        let problem = parse_problem::<G>(&self.problem_line())?;
        if problem.solution.len() != self.solution.len() {
            return Err("the tactic's solution does not read back move for move".into());
        }
        Ok(())
    }

    /// The problem-set line: `position<TAB>solution<TAB>motif<TAB>gain`
    /// (gain `win` or centi-men).
    pub fn problem_line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}",
            self.position,
            self.solution.join(" "),
            self.motif,
            self.gain
                .map_or_else(|| "win".to_string(), |g| g.to_string())
        )
    }
}

/// Motifs by game: how a combination's line is named.
pub trait Motifs: Game {
    /// The motif of the solution line `line` played from `pos`.
    fn motif(pos: &Self, line: &[Self::Move]) -> &'static str;
}

/// Material of `pos` from `side`'s view.
fn material<G: Game>(pos: &G, side: Color) -> i32
where
    Material: Evaluator<G>,
{
    let m = Material::default().evaluate(pos);
    if pos.side_to_move() == side {
        m
    } else {
        -m
    }
}

/// A plain alpha-beta of `depth` plies with the static evaluation at the
/// leaves and no capture extension: the shallow look. Returns the best move
/// and its score for the side to move.
pub fn shallow_best<G: Game>(
    pos: &G,
    depth: u32,
    eval: &dyn Evaluator<G>,
) -> Option<(G::Move, i32)> {
    let mut list = MoveList::new();
    pos.generate(&mut list);
    let mut best: Option<(G::Move, i32)> = None;
    let mut alpha = -i32::MAX;
    for mv in &list {
        let s = -negamax(&pos.play(mv), depth - 1, -i32::MAX, -alpha, eval);
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((*mv, s));
            alpha = alpha.max(s);
        }
    }
    best
}

/// The shallow look's exact score of `mv` from `pos` (a full window), for
/// the side to move.
pub fn shallow_score<G: Game>(pos: &G, mv: &G::Move, depth: u32, eval: &dyn Evaluator<G>) -> i32 {
    -negamax(&pos.play(mv), depth - 1, -i32::MAX, i32::MAX, eval)
}

/// Score of a lost position for the side to move.
const LOST: i32 = 1_000_000;

fn negamax<G: Game>(
    pos: &G,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    eval: &dyn Evaluator<G>,
) -> i32 {
    let mut list = MoveList::new();
    pos.generate(&mut list);
    if list.is_empty() {
        return -LOST;
    }
    if depth == 0 {
        return eval.evaluate(pos);
    }
    let mut best = -i32::MAX;
    for mv in &list {
        let s = -negamax(&pos.play(mv), depth - 1, -beta, -alpha, eval);
        best = best.max(s);
        alpha = alpha.max(s);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The engine's search of `pos` to `depth`: its line and score.
fn search<G: EvalSource>(
    engine: &mut Engine<G>,
    eval: &dyn Evaluator<G>,
    pos: &G,
    depth: u32,
) -> (Vec<G::Move>, Score) {
    engine.clear();
    let r = engine.search(eval, &SearchInput::new(*pos, Limits::depth(depth)), |_| {});
    (r.pv, r.score)
}

/// What a line gains: material at its end less material now, from the
/// solver's view, or `None` when the line wins the game.
fn gain_of<G: Game>(pos: &G, line: &[G::Move], score: Score) -> Option<i32>
where
    Material: Evaluator<G>,
{
    if is_win(score) {
        return None;
    }
    let side = pos.side_to_move();
    let mut end = *pos;
    for mv in line {
        end = end.play(mv);
    }
    Some(material(&end, side) - material(pos, side))
}

/// Whether a search score is a found win.
fn is_win(score: Score) -> bool {
    matches!(score, Score::Win(_))
}

/// Whether a search score is a found loss: a line that loses the game is
/// no tactic, whatever material it takes on the way.
fn is_loss(score: Score) -> bool {
    matches!(score, Score::Loss(_))
}

/// Looks for a tactic in one position; `source` says where it is from.
pub fn mine_position<G: EvalSource + Motifs>(
    pos: &G,
    cfg: &MineConfig,
    engine: &mut Engine<G>,
    eval: &dyn Evaluator<G>,
    source: &str,
) -> Option<Tactic>
where
    Material: Evaluator<G>,
{
    let (line, score) = search(engine, eval, pos, cfg.deep);
    if is_loss(score) {
        return None;
    }
    let first = *line.first()?;
    let gain = gain_of(pos, &line, score);
    if gain.is_some_and(|g| g < cfg.min_gain) && !is_win(score) {
        return None;
    }
    let after = pos.play(&first);
    let kind = if !G::is_capture(&first) {
        if after.must_capture() {
            "sacrifice"
        } else {
            "quiet move"
        }
    } else {
        return None;
    };
    // The shallow look misses the move only when it scores the move below
    // its own choice: a move it scores as high is one it could have chosen.
    let (shallow, best) = shallow_best(pos, cfg.shallow, eval)?;
    if shallow == first || shallow_score(pos, &first, cfg.shallow, eval) >= best {
        return None;
    }
    let (vline, vscore) = search(engine, eval, pos, cfg.verify);
    if vline.first() != Some(&first) || is_loss(vscore) {
        return None;
    }
    let vgain = gain_of(pos, &vline, vscore);
    if vgain.is_some_and(|g| g < cfg.min_gain) && !is_win(vscore) {
        return None;
    }
    let solution = notation(pos, &vline);
    Some(Tactic {
        position: pos.to_text(),
        solution,
        first_move_kind: kind.to_string(),
        motif: G::motif(pos, &vline).to_string(),
        gain: if is_win(vscore) { None } else { vgain },
        shallow_move: pos.move_text(&shallow),
        score: vscore.to_string(),
        source: source.to_string(),
    })
}

/// A line in notation.
fn notation<G: Game>(pos: &G, line: &[G::Move]) -> Vec<String> {
    let mut p = *pos;
    line.iter()
        .map(|mv| {
            let t = p.move_text(mv);
            p = p.play(mv);
            t
        })
        .collect()
}

/// The solver's moves of a line (every other move from the first), each
/// with the position it is played from.
fn solver_moves<G: Game>(pos: &G, line: &[G::Move]) -> Vec<(G, G::Move)> {
    let mut p = *pos;
    let mut out = Vec::new();
    for (i, mv) in line.iter().enumerate() {
        if i % 2 == 0 {
            out.push((p, *mv));
        }
        p = p.play(mv);
    }
    out
}

impl Motifs for bushka::Position {
    /// In order: a **T-strike** (the first move leaves the opponent only
    /// captures, and at least two that take different pieces: a line of
    /// n men has n - 1 linear captures of the same pieces, rules 1.5, which
    /// are one choice); **a man given to open a line** (a sacrifice, then
    /// the solver's largest capture is linear); a **linear capture**; a
    /// **piece-capture chain** (the largest capture takes two or more in
    /// steps); with no capture of the solver's, a **breakthrough to a king**
    /// (the line ends with the solver holding more kings) or else a **quiet
    /// build-up**.
    fn motif(pos: &Self, line: &[Self::Move]) -> &'static str {
        let Some(first) = line.first() else {
            return "quiet build-up";
        };
        let after = pos.play(first);
        let mut list = MoveList::new();
        after.generate(&mut list);
        let choices: std::collections::HashSet<u64> = list.iter().map(|m| m.captured).collect();
        if after.must_capture() && choices.len() >= 2 {
            return "T-strike";
        }
        let biggest = solver_moves(pos, line)
            .into_iter()
            .filter(|(_, mv)| Self::is_capture(mv))
            .max_by_key(|(_, mv)| Self::captured_count(mv));
        let Some((_, mv)) = biggest else {
            // No capture of the solver's: what it gains is a king.
            let kings = |p: &Self| p.kings(pos.side()).count_ones();
            let mut end = *pos;
            for m in line {
                end = end.play(m);
            }
            return if kings(&end) > kings(pos) {
                "breakthrough to a king"
            } else {
                "quiet build-up"
            };
        };
        let linear = mv.kind == bushka::MoveKind::Linear;
        match (linear, after.must_capture()) {
            (true, true) => "a man given to open a line",
            (true, false) => "linear capture",
            (false, _) if Self::captured_count(&mv) >= 2 => "piece-capture chain",
            _ => "quiet build-up",
        }
    }
}

impl Motifs for bashnya::Position {
    /// In order: **prisoners freed** (a solver's capture leaves the solver
    /// more columns than before it: a taken column's prisoners come free);
    /// a **king's long route** (a king's capture of three or more jumps); a
    /// **column recaptured** (the opponent's capture answered by a capture);
    /// else a **forcing sequence**.
    fn motif(pos: &Self, line: &[Self::Move]) -> &'static str {
        let solver = pos.side();
        let columns = |p: &Self| p.columns_of(solver).count_ones();
        let mine = solver_moves(pos, line);
        for (from, mv) in &mine {
            if mv.is_capture() && columns(&from.play(mv)) > columns(from) {
                return "prisoners freed";
            }
        }
        for (from, mv) in &mine {
            let king = from
                .column(mv.from())
                .top()
                .is_some_and(bashnya::Piece::is_king);
            if king && mv.captures() >= 3 {
                return "king's long route";
            }
        }
        let mut last_was_their_capture = false;
        for (i, mv) in line.iter().enumerate() {
            let solver_move = i % 2 == 0;
            if solver_move && last_was_their_capture && mv.is_capture() {
                return "column recaptured";
            }
            last_was_their_capture = !solver_move && mv.is_capture();
        }
        "forcing sequence"
    }
}

/// Every position of a game worth a look: the start and the position after
/// each move, with where it is from (`game N ply P`).
pub fn positions_of<G: Game>(replay: &selfplay::pdn::Replay<G>, game: usize) -> Vec<(String, G)> {
    let mut out = Vec::with_capacity(replay.moves.len() + 1);
    let mut p = replay.start;
    out.push((format!("game {game} ply 0"), p));
    for (i, mv) in replay.moves.iter().enumerate() {
        p = p.play(mv);
        out.push((format!("game {game} ply {}", i + 1), p));
    }
    out
}

/// The positions mined: the first of each repeated position, in order.
pub fn distinct<G: Game>(positions: &[(String, G)]) -> Vec<&(String, G)> {
    let mut seen = std::collections::HashSet::new();
    positions
        .iter()
        .filter(|(_, p)| seen.insert(Game::hash(p)))
        .collect()
}

/// Reads one line of a mining journal, `{"hash": H, "tactic": T or null}`
/// (a missing tactic is none). A tactic is taken only as mining writes it
/// ([`Tactic::check`]): a journal changed by hand or by a fault would
/// otherwise put lines into the problem set that do not read back.
pub fn parse_journal_line<G: Game>(text: &[u8]) -> Result<(u64, Option<Tactic>), String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Line {
        hash: u64,
        tactic: Option<Tactic>,
    }
    let Line { hash, tactic } = serde_json::from_slice(text).map_err(|e| {
        format!(
            "not a journal line: {}",
            engine::files::escape_controls(&e.to_string())
        )
    })?;
    if let Some(t) = &tactic {
        t.check::<G>(hash)?;
    }
    Ok((hash, tactic))
}

/// One line of a mining journal, as [`parse_journal_line`] reads it.
pub fn journal_line(hash: u64, tactic: &Option<Tactic>) -> String {
    serde_json::json!({ "hash": hash, "tactic": tactic }).to_string()
}

/// What mining found at each position looked at, by position hash (`None`:
/// no tactic): a run's journal, so that a stopped run goes on from it.
pub type Mined = std::collections::HashMap<u64, Option<Tactic>>;

/// Mines positions in parallel (one engine per rayon job), skipping
/// repeated positions and those already in `done`; `on_result` gets each
/// new position's hash and result as it is found (a search is
/// deterministic, so a resumed run finds what the whole run would). The
/// tactics come back in the order of the positions. An evaluation that
/// cannot be made is an error.
pub fn mine<G: EvalSource + Motifs>(
    positions: &[(String, G)],
    cfg: &MineConfig,
    done: &Mined,
    on_result: &(dyn Fn(u64, &Option<Tactic>) + Sync),
) -> Result<Vec<Tactic>, String>
where
    Material: Evaluator<G>,
{
    use rayon::prelude::*;
    let unique = distinct(positions);
    let eval = G::select_eval(None, cfg.eval).map_err(|e| format!("--eval: {e}"))?;
    // Each thread's engine; a table that cannot be had is an error.
    let found: Vec<Option<Tactic>> = unique
        .par_iter()
        .map_init(
            || Engine::<G>::try_new(cfg.hash, 1).map_err(|e| format!("--hash: {e}")),
            |engine, (source, pos)| {
                let hash = Game::hash(pos);
                if let Some(known) = done.get(&hash) {
                    return Ok(known.clone());
                }
                let engine = engine.as_mut().map_err(|e| e.clone())?;
                let t = mine_position(pos, cfg, engine, eval.as_ref(), source);
                on_result(hash, &t);
                Ok(t)
            },
        )
        .collect::<Result<_, String>>()?;
    Ok(drop_continuations::<G>(found.into_iter().flatten()))
}

/// Keeps a tactic only when its position is not on the solution line of a
/// tactic kept before it (a combination found again a move later is the
/// same combination).
fn drop_continuations<G: Game>(found: impl Iterator<Item = Tactic>) -> Vec<Tactic> {
    let mut on_a_line = std::collections::HashSet::new();
    let mut kept = Vec::new();
    for t in found {
        let Ok(pos) = G::parse_position(&t.position) else {
            continue;
        };
        if on_a_line.contains(&Game::hash(&pos)) {
            continue;
        }
        let mut p = pos;
        for text in &t.solution {
            let Ok(mv) = p.parse_move(text) else { break };
            p = p.play(&mv);
            on_a_line.insert(Game::hash(&p));
        }
        kept.push(t);
    }
    kept
}

/// A problem read back from a problem set.
#[derive(Clone, Debug)]
pub struct Problem<G: Game> {
    /// The position, solver to move.
    pub position: G,
    /// The solution line, every move legal in turn.
    pub solution: Vec<G::Move>,
    /// The motif named by the miner.
    pub motif: String,
    /// The gain in centi-men, `None` for a win.
    pub gain: Option<i32>,
}

/// Reads one problem-set line, `position<TAB>solution<TAB>motif<TAB>gain`,
/// checking that the solution is a line of legal moves.
pub fn parse_problem<G: Game>(line: &str) -> Result<Problem<G>, String> {
    let fields: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('\t').collect();
    let [pos, solution, motif, gain] = fields[..] else {
        return Err(format!(
            "expected 4 tab-separated fields (position, solution, motif, gain), found {}",
            fields.len()
        ));
    };
    let position = G::parse_position(pos.trim()).map_err(|e| format!("position: {e}"))?;
    let mut p = position;
    let mut moves = Vec::new();
    for text in solution.split_whitespace() {
        let mv = p
            .parse_move(text)
            .map_err(|e| format!("solution move {}: {e}", moves.len() + 1))?;
        moves.push(mv);
        p = p.play(&mv);
    }
    if moves.is_empty() {
        return Err("the solution is empty".into());
    }
    let gain = match gain.trim() {
        "win" => None,
        g => Some(g.parse::<i32>().map_err(|_| {
            let g = engine::files::escape_controls(g);
            format!("gain '{g}': expected centi-men or 'win'")
        })?),
    };
    Ok(Problem {
        position,
        solution: moves,
        motif: motif.trim().to_string(),
        gain,
    })
}
