//! The engine protocol on text lines, modelled on the Hub protocol of
//! draughts engines (Scan 3's version 2). See `docs/hub.md`.
//!
//! Input is read on a thread of its own and handled on the caller's thread;
//! `go think` searches on a worker thread. Commands that come while a search
//! with a limit runs wait for it, in order; `stop` and `quit` act at once
//! (a `stop` behind a waiting `go` also ends that go's search), and `ping`
//! is answered at once when nothing waits.

use crate::eval::{EvalSource, SharedEval};
use crate::files::{read_line_capped, skip_line, LineRead, MAX_LINE};
use crate::game::{Game, GameKind};
use crate::record::GameRecord;
use crate::search::{Clock, Engine, Info, Limits, Score, SearchInput};
use crate::tt::HashSize;
use crate::{bashnya, bushka, with_game};
use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Where protocol lines go: shared by the reader and the search thread.
pub type Output = Arc<Mutex<dyn Write + Send>>;

/// A command's arguments: bare words (no value) and `key=value` pairs.
pub type Args = Vec<(String, Option<String>)>;

/// Splits a line into the command and its arguments: bare words and
/// `key=value` pairs, where a value may be quoted (`"a b"`, `\"` inside).
pub fn tokenize(line: &str) -> Result<(String, Args), String> {
    let mut chars = line.trim().chars().peekable();
    let mut words: Vec<(String, Option<String>)> = Vec::new();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek().is_none() {
            break;
        }
        let mut key = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() || c == '=' {
                break;
            }
            key.push(c);
            chars.next();
        }
        if chars.peek() != Some(&'=') {
            words.push((key, None));
            continue;
        }
        chars.next();
        let mut value = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '"' => {
                        closed = true;
                        break;
                    }
                    '\\' => value.push(chars.next().ok_or("unfinished escape in a quoted value")?),
                    _ => value.push(c),
                }
            }
            if !closed {
                return Err(format!(
                    "unterminated quote in the value of '{}'",
                    crate::files::quoted(&key, 40)
                ));
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                value.push(c);
                chars.next();
            }
        }
        if key.is_empty() {
            return Err("a value without a name".into());
        }
        words.push((key, Some(value)));
    }
    if words.is_empty() {
        return Ok((String::new(), words));
    }
    let (cmd, v) = words.remove(0);
    if v.is_some() {
        return Err(format!(
            "'{}=' cannot start a command",
            crate::files::quoted(&cmd, 40)
        ));
    }
    Ok((cmd, words))
}

/// Quotes a value when it needs it. Control characters (a line break in a
/// file's text quoted by an error) become spaces: a protocol line stays one
/// line.
pub fn quote(value: &str) -> String {
    let value: String = value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if !value.is_empty() && !value.contains(|c: char| c.is_whitespace() || "\"\\=".contains(c)) {
        value
    } else {
        format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// One game's protocol state.
struct Session<G: EvalSource> {
    engine: Arc<Mutex<Engine<G>>>,
    stop: Arc<AtomicBool>,
    eval: SharedEval<G>,
    /// The game from the `pos` command's position through its moves: the
    /// position to search, its history and whether it has ended.
    game: GameRecord<G>,
    limits: Limits,
}

impl<G: EvalSource> Session<G> {
    /// The game this session plays.
    fn kind(&self) -> GameKind {
        G::KIND
    }

    /// A session with a table of `hash`, or why its memory could not be had.
    fn new(hash: HashSize, threads: usize) -> Result<Self, String> {
        let engine = Engine::try_new(hash, threads)?;
        let stop = engine.stop_flag();
        Ok(Session {
            engine: Arc::new(Mutex::new(engine)),
            stop,
            eval: G::default_eval(),
            game: GameRecord::new(G::start()),
            limits: Limits::depth(12),
        })
    }

    /// The engine, locked (a panicked holder leaves it usable).
    fn engine(&self) -> std::sync::MutexGuard<'_, Engine<G>> {
        self.engine
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Loads endgame tables for the search (`None` unloads them).
    fn set_tables(&mut self, dir: Option<&str>) -> Result<(), String> {
        let oracle = match dir {
            Some(d) => Some(G::open_tables(std::path::Path::new(d))?),
            None => None,
        };
        self.engine().set_oracle(oracle);
        Ok(())
    }

    /// `pos pos=TEXT moves="m1 m2"` (or `pos start`).
    fn set_position(&mut self, text: Option<&str>, moves: Option<&str>) -> Result<(), String> {
        let start = match text {
            None | Some("start") => G::start(),
            Some(t) => G::parse_position(t).map_err(|e| e.to_string())?,
        };
        let mut game = GameRecord::new(start);
        for (i, m) in moves.unwrap_or("").split_whitespace().enumerate() {
            let at = || format!("move {} ({})", i + 1, crate::files::quoted(m, 40));
            if game.repetitions() >= 3 {
                return Err(format!(
                    "{}: the game had already ended, drawn by threefold repetition",
                    at()
                ));
            }
            game.push_text(m).map_err(|e| format!("{}: {e}", at()))?;
        }
        self.game = game;
        Ok(())
    }

    /// Starts a search on a worker thread; it prints `info` lines and `done`.
    fn go(&mut self, out: Output) -> std::io::Result<JoinHandle<()>> {
        let engine = Arc::clone(&self.engine);
        let eval = Arc::clone(&self.eval);
        let pos = *self.game.current();
        let input = SearchInput {
            position: pos,
            history: self.game.search_history(),
            limits: self.limits,
        };
        self.stop.store(false, Relaxed);
        let unbounded = self.limits == Limits::default();
        // A third occurrence has ended the game, drawn (docs/rules.md 1.6):
        // no move is offered, as when the side to move has none.
        let over = self.game.repetitions() >= 3;
        let stop = Arc::clone(&self.stop);
        std::thread::Builder::new()
            .name("hub-search".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let best = if over {
                    None
                } else {
                    let mut engine = engine
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    // A search that panics (a defect) is reported, and still
                    // answered with `done`, which the GUI waits for.
                    let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        engine
                            .search(&*eval, &input, |info| {
                                send(&out, &info_line(&pos, info));
                            })
                            .best
                    }));
                    searched.unwrap_or_else(|p| {
                        let why = crate::files::panic_message(p.as_ref());
                        send(
                            &out,
                            &error_line(&format!("internal error in the search: {why}")),
                        );
                        None
                    })
                };
                // A search without limits answers only when stopped, also
                // when it ended by itself (a forced result found, or the
                // deepest depth searched).
                while unbounded && !stop.load(Relaxed) {
                    std::thread::sleep(WAIT_POLL);
                }
                let line = match best {
                    Some(m) => format!("done move={}", quote(&pos.move_text(&m))),
                    None => "done".to_string(),
                };
                send(&out, &line);
            })
    }
}

/// The `info` line of an iteration.
fn info_line<G: Game>(pos: &G, info: &Info<G::Move>) -> String {
    let score = match info.score {
        Score::Cp(c) => c.to_string(),
        Score::Win(n) => format!("win{n}"),
        Score::Loss(n) => format!("loss{n}"),
    };
    let mut p = *pos;
    let pv: Vec<String> = info
        .pv
        .iter()
        .map(|m| {
            let t = p.move_text(m);
            p = p.play(m);
            t
        })
        .collect();
    format!(
        "info depth={} score={} nodes={} time={:.3} nps={} pv={}",
        info.depth,
        score,
        info.nodes,
        info.time.as_secs_f64(),
        info.nps(),
        quote(&pv.join(" "))
    )
}

fn send(out: &Output, line: &str) {
    let mut w = out
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let _ = writeln!(w, "{line}");
    let _ = w.flush();
}

/// Either game's session.
enum AnySession {
    Bushka(Session<bushka::Position>),
    Bashnya(Session<bashnya::Position>),
}

impl From<Session<bushka::Position>> for AnySession {
    fn from(s: Session<bushka::Position>) -> AnySession {
        AnySession::Bushka(s)
    }
}

impl From<Session<bashnya::Position>> for AnySession {
    fn from(s: Session<bashnya::Position>) -> AnySession {
        AnySession::Bashnya(s)
    }
}

/// Calls a method on the session of whichever game is being played.
macro_rules! on_session {
    ($s:expr, $x:ident => $body:expr) => {
        match $s {
            AnySession::Bushka($x) => $body,
            AnySession::Bashnya($x) => $body,
        }
    };
}

/// The protocol state machine.
pub struct Hub {
    session: AnySession,
    out: Output,
    search: Option<JoinHandle<()>>,
    /// The running search has no limit: it ends only on `stop`.
    search_unbounded: bool,
    hash: HashSize,
    /// The table has its size (`hash`). A hub starts with the smallest and
    /// takes its size at `set-param name=hash`, `init` or its first search,
    /// whichever comes first, so that a program given its own size never
    /// holds the default table too.
    table_ready: bool,
    threads: usize,
    weights: String,
    eval: crate::eval::EvalKind,
    tb: String,
}

impl Hub {
    /// A hub writing to `out`, playing Bushka until told otherwise; `Err`
    /// when its table cannot be had.
    pub fn new(out: Output) -> Result<Hub, String> {
        Ok(Hub {
            session: AnySession::Bushka(Session::new(HashSize::MIN, 1)?),
            out,
            search: None,
            search_unbounded: false,
            hash: HashSize::default_here(),
            table_ready: false,
            threads: 1,
            weights: "default".into(),
            eval: crate::eval::EvalKind::Auto,
            tb: "none".into(),
        })
    }

    fn say(&self, line: &str) {
        send(&self.out, line);
    }

    fn error(&self, message: &str) {
        self.say(&error_line(message));
    }

    fn searching(&self) -> bool {
        self.search.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// A search with a limit is running: commands other than `stop`,
    /// `ping` and `quit` wait for its `done`.
    fn bounded_search_running(&self) -> bool {
        !self.search_unbounded && self.searching()
    }

    fn stop_search(&mut self) {
        if let Some(h) = self.search.take() {
            on_session!(&self.session, s => s.stop.store(true, Relaxed));
            let _ = h.join();
        }
    }

    /// Handles one line; returns false after `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        let (cmd, args) = match tokenize(line) {
            Ok(t) => t,
            Err(e) => {
                self.error(&e);
                return true;
            }
        };
        let get = |k: &str| {
            args.iter()
                .find(|(key, _)| key == k)
                .and_then(|(_, v)| v.clone())
        };
        let flag = |k: &str| args.iter().any(|(key, v)| key == k && v.is_none());
        // A misspelt or repeated argument is refused, not ignored (the
        // engine would act on something the GUI did not mean); `quit`,
        // `ping` and `stop` act whatever follows them.
        if let Err(e) = check_args(&cmd, &args) {
            if !matches!(cmd.as_str(), "quit" | "ping" | "stop") {
                self.error(&e);
                return true;
            }
        }
        if !matches!(cmd.as_str(), "quit" | "ping" | "stop") && !self.search_unbounded {
            // A search with a limit ends by itself: commands wait for its `done`.
            if let Some(h) = self.search.take() {
                let _ = h.join();
            }
        }
        match cmd.as_str() {
            "" => {}
            "quit" => {
                self.stop_search();
                return false;
            }
            "ping" => self.say("pong"),
            "stop" => self.stop_search(),
            _ if self.searching() && self.search_unbounded => self.error(&format!(
                "busy searching without a limit: send 'stop' before '{}'",
                crate::files::quoted(&cmd, 40)
            )),
            "hub" => self.identify(),
            "init" => {
                // The table is had now, off any clock, unless `hash` set it.
                if let Err(e) = self.ready_table() {
                    self.error(&e);
                }
                self.say("ready");
            }
            "new-game" => {
                self.stop_search();
                self.new_game();
            }
            "pos" if flag("start") && get("pos").is_some() => {
                self.error("pos: give one of 'start' and 'pos='");
            }
            "pos" => {
                let text = if flag("start") {
                    Some("start".to_string())
                } else {
                    get("pos")
                };
                let moves = get("moves");
                if let Err(e) = on_session!(&mut self.session, s => s.set_position(text.as_deref(), moves.as_deref()))
                {
                    self.error(&e);
                }
            }
            "level" => match parse_level(&args) {
                Ok(l) => on_session!(&mut self.session, s => s.limits = l),
                Err(e) => self.error(&e),
            },
            "go" => {
                self.stop_search();
                if let Err(e) = self.ready_table() {
                    // The search still runs, with the table there is.
                    self.error(&e);
                }
                let out = Arc::clone(&self.out);
                let unbounded = on_session!(&self.session, s => s.limits == Limits::default());
                match on_session!(&mut self.session, s => s.go(out)) {
                    Ok(h) => {
                        self.search_unbounded = unbounded;
                        self.search = Some(h);
                    }
                    Err(e) => {
                        // Every `go` gets its `done`, a GUI waits for it.
                        self.error(&format!("cannot start the search: {e}"));
                        self.say("done");
                    }
                }
            }
            "set-param" => match (get("name"), get("value")) {
                (Some(n), Some(v)) => {
                    if let Err(e) = self.set_param(&n, &v) {
                        self.error(&e);
                    }
                }
                _ => self.error("set-param needs name=... value=..."),
            },
            other => self.error(&format!(
                "unknown command '{}'",
                crate::files::quoted(other, 60)
            )),
        }
        true
    }

    /// Gives the table its size (`hash`) at `init` or before the first
    /// search; on failure the table stays as it is, and `hash` says so.
    fn ready_table(&mut self) -> Result<(), String> {
        if self.table_ready {
            return Ok(());
        }
        self.table_ready = true;
        let size = self.hash;
        let result = on_session!(&mut self.session, s => s.engine().set_hash(size));
        if result.is_err() {
            self.hash = on_session!(&self.session, s => s.engine().hash_size());
        }
        result
    }

    /// The size the table has now: `hash`, or the smallest before it is ready.
    fn table_now(&self) -> HashSize {
        if self.table_ready {
            self.hash
        } else {
            HashSize::MIN
        }
    }

    /// Forgets what the engine learned and goes back to the start position.
    fn new_game(&mut self) {
        on_session!(&mut self.session, s => {
            s.engine().clear();
            let _ = s.set_position(None, None);
        });
    }

    fn identify(&self) {
        self.say(&format!(
            "id name=bushka version={}",
            env!("CARGO_PKG_VERSION")
        ));
        self.say(&format!(
            "param name=game value={} type=enum values=\"bushka bashnya\"",
            self.game().name()
        ));
        self.say(&format!(
            "param name=hash value={} type=int min=1 max={}",
            self.hash,
            crate::tt::max_hash_mib()
        ));
        self.say(&format!(
            "param name=threads value={} type=int min=1 max=256",
            self.threads
        ));
        self.say(&format!(
            "param name=weights value={} type=string",
            quote(&self.weights)
        ));
        self.say(&format!(
            "param name=eval value={} type=enum values=\"auto features patterns\"",
            self.eval.name()
        ));
        self.say(&format!(
            "param name=tb value={} type=string",
            quote(&self.tb)
        ));
        self.say("wait");
    }

    fn game(&self) -> GameKind {
        on_session!(&self.session, s => s.kind())
    }

    fn set_param(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "game" => {
                // A new game starts: in another game, a new session that
                // keeps the limits, hash and threads (weights, eval and
                // tables belong to a game and go back to their defaults).
                let kind: GameKind = value.parse()?;
                self.stop_search();
                if kind == self.game() {
                    self.new_game();
                } else {
                    let limits = on_session!(&self.session, s => s.limits);
                    // The old table gives back its memory first, so that the
                    // two are never held at once; the old session stays,
                    // with its table again, when the new one's cannot be had.
                    on_session!(&mut self.session, s => s.engine().set_hash(HashSize::MIN))?;
                    let size = self.table_now();
                    let new = with_game!(kind, G => Session::<G>::new(size, self.threads).map(AnySession::from));
                    self.session = match new {
                        Ok(session) => session,
                        Err(e) => {
                            let back =
                                on_session!(&mut self.session, s => s.engine().set_hash(size));
                            if let Err(again) = back {
                                // What the table is now, for the next session.
                                self.hash = on_session!(&self.session, s => s.engine().hash_size());
                                return Err(format!(
                                    "{e}; the old game's table is now the smallest ({again})"
                                ));
                            }
                            return Err(e);
                        }
                    };
                    on_session!(&mut self.session, s => s.limits = limits);
                    self.weights = "default".into();
                    self.eval = crate::eval::EvalKind::Auto;
                    self.tb = "none".into();
                }
            }
            "hash" => {
                let size: HashSize = value.parse()?;
                if let Err(e) = on_session!(&mut self.session, s => s.engine().set_hash(size)) {
                    // The old size came back, or the smallest (the error
                    // says); a table not yet had keeps its size to come.
                    if self.table_ready {
                        self.hash = on_session!(&self.session, s => s.engine().hash_size());
                    }
                    return Err(e);
                }
                self.hash = size;
                self.table_ready = true;
            }
            "threads" => {
                let t: usize = parse_in(value, 1, 256, "threads")?;
                self.threads = t;
                on_session!(&mut self.session, s => s.engine().set_threads(t));
            }
            "tb" => {
                let dir = (!value.is_empty() && value != "none").then_some(value);
                on_session!(&mut self.session, s => s.set_tables(dir))?;
                self.tb = value.to_string();
            }
            "weights" => {
                let kind = self.eval;
                on_session!(&mut self.session, s => {
                    s.eval = EvalSource::select_eval(Some(value), kind)?;
                });
                self.weights = value.to_string();
            }
            "eval" => {
                let kind: crate::eval::EvalKind = value.parse()?;
                let weights = self.weights.clone();
                on_session!(&mut self.session, s => {
                    s.eval = EvalSource::select_eval(Some(&weights), kind)?;
                });
                self.eval = kind;
            }
            other => {
                return Err(format!(
                    "unknown parameter '{}'",
                    crate::files::quoted(other, 60)
                ))
            }
        }
        Ok(())
    }
}

fn parse_in(value: &str, min: usize, max: usize, what: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!(
            "{what} must be a whole number from {min} to {max}, got '{}'",
            crate::files::quoted(value, 60)
        )),
    }
}

fn seconds(value: &str, what: &str) -> Result<Duration, String> {
    match value.parse::<f64>() {
        Ok(s) if (0.0..1e9).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "{what} must be a number of seconds, got '{}'",
            crate::files::quoted(value, 60)
        )),
    }
}

/// Refuses an argument that `cmd` does not take, a bare word where it
/// takes a value (or the reverse), and an argument given twice. Unknown
/// commands are left to their own error.
fn check_args(cmd: &str, args: &[(String, Option<String>)]) -> Result<(), String> {
    // Each argument, and whether it takes a value.
    let takes: &[(&str, bool)] = match cmd {
        "pos" => &[("start", false), ("pos", true), ("moves", true)],
        "go" => &[("think", false)],
        "set-param" => &[("name", true), ("value", true)],
        "level" => &[
            ("depth", true),
            ("nodes", true),
            ("move-time", true),
            ("time", true),
            ("inc", true),
            ("moves-to-go", true),
            ("infinite", false),
        ],
        "hub" | "init" | "new-game" | "ping" | "stop" | "quit" => &[],
        _ => return Ok(()),
    };
    for (i, (k, v)) in args.iter().enumerate() {
        let key = crate::files::quoted(k, 40);
        match takes.iter().find(|(name, _)| name == k) {
            None if takes.is_empty() => {
                return Err(format!("{cmd} takes no arguments, got '{key}'"))
            }
            None => {
                let names: Vec<&str> = takes.iter().map(|(name, _)| *name).collect();
                return Err(format!(
                    "{cmd}: unknown argument '{key}' (expected {})",
                    names.join(", ")
                ));
            }
            Some((_, true)) if v.is_none() => return Err(format!("{cmd}: '{key}' needs a value")),
            Some((_, false)) if v.is_some() => {
                return Err(format!("{cmd}: '{key}' takes no value"))
            }
            _ => {}
        }
        if args[..i].iter().any(|(earlier, _)| earlier == k) {
            return Err(format!("{cmd}: '{key}' given twice"));
        }
    }
    Ok(())
}

/// `level depth=D | nodes=N | move-time=S | time=S inc=S moves-to-go=M` (times in seconds).
fn parse_level(args: &[(String, Option<String>)]) -> Result<Limits, String> {
    let mut l = Limits::default();
    let mut clock: Option<Clock> = None;
    let mut infinite = false;
    for (k, v) in args {
        if k == "infinite" {
            // No limit: the same as `level` alone.
            if v.is_some() {
                return Err("level: 'infinite' takes no value".into());
            }
            infinite = true;
            continue;
        }
        let v = v
            .as_deref()
            .ok_or_else(|| format!("level: '{}' needs a value", crate::files::quoted(k, 40)))?;
        match k.as_str() {
            "depth" => l.depth = Some(parse_in(v, 1, 100, "depth")? as u32),
            "nodes" => {
                l.nodes = Some(v.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| {
                    format!(
                        "nodes must be a positive whole number, got '{}'",
                        crate::files::quoted(v, 60)
                    )
                })?);
            }
            "move-time" => l.movetime = Some(seconds(v, "move-time")?),
            "time" => {
                clock
                    .get_or_insert(Clock::new(Duration::ZERO, Duration::ZERO))
                    .time = seconds(v, "time")?;
            }
            "inc" => {
                clock
                    .get_or_insert(Clock::new(Duration::ZERO, Duration::ZERO))
                    .inc = seconds(v, "inc")?;
            }
            "moves-to-go" => {
                clock
                    .get_or_insert(Clock::new(Duration::ZERO, Duration::ZERO))
                    .moves_to_go = Some(parse_in(v, 1, 10_000, "moves-to-go")? as u32);
            }
            other => {
                return Err(format!(
                    "level: unknown limit '{}'",
                    crate::files::quoted(other, 40)
                ))
            }
        }
    }
    l.clock = clock;
    if infinite && l != Limits::default() {
        return Err("level: 'infinite' with a limit: give one or the other".into());
    }
    Ok(l)
}

/// How often the loop looks whether a search with a limit has ended while
/// commands wait for it.
const WAIT_POLL: Duration = Duration::from_millis(5);

/// The most bytes of command lines read and not yet carried out (each line
/// counted with [`LINE_COST`] more); beyond it lines are refused one by one,
/// except `stop` and `quit`, so input that floods the hub cannot fill the
/// memory and the reader never waits (a client that writes a long script
/// before it reads the answers is never blocked).
const MAX_PENDING: usize = 16 << 20;

/// What a waiting line costs beside its text.
const LINE_COST: usize = 64;

/// A line's command word (`None` when it does not read).
fn command_of(line: &str) -> Option<String> {
    tokenize(line).ok().map(|(cmd, _)| cmd)
}

/// The next input line without its line break (`\n` or `\r\n`; `None` at
/// the end of the input), as [`run`] reads it. A line longer than
/// [`MAX_LINE`] bytes is passed over and read as an error, so one line
/// without an end cannot fill the memory; a line that is not UTF-8 is an
/// error too (`InvalidData` both, the input read past them).
pub fn next_line(input: &mut impl BufRead) -> std::io::Result<Option<String>> {
    let mut buf = Vec::new();
    match read_line_capped(input, &mut buf, MAX_LINE)? {
        LineRead::End => return Ok(None),
        LineRead::TooLong => {
            skip_line(input)?;
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("line longer than {MAX_LINE} bytes"),
            ));
        }
        LineRead::Line => {}
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// Lines the reader refused, the first of them as shown.
struct Dropped(String);

/// The protocol's `error` line: whatever the message quotes stays one
/// short line.
fn error_line(message: &str) -> String {
    format!(
        "error message={}",
        quote(&crate::files::quoted(message, 300))
    )
}

/// Runs the protocol until `quit` or the end of the input. At the end of
/// the input the commands still waiting are handled in turn, a search
/// without a limit is stopped and one with a limit finishes and prints its
/// move. `Err` (after an `error` line) when the engine cannot start: its
/// smallest table or its input thread cannot be had (its default table is
/// had at `init`, where a failure is an `error` line and the smallest is
/// kept).
pub fn run(input: impl BufRead + Send + 'static, out: Output) -> Result<(), String> {
    // Lines read and not yet carried out, in bytes (see MAX_PENDING).
    let pending = Arc::new(AtomicUsize::new(0));
    // Lines refused since the last report of them.
    let dropped = Arc::new(AtomicUsize::new(0));
    // A line, an error to report, or lines dropped (the first of them).
    let (tx, rx) = channel::<Result<Result<String, String>, Dropped>>();
    let reader_pending = Arc::clone(&pending);
    let reader_dropped = Arc::clone(&dropped);
    let reader = std::thread::Builder::new()
        .name("hub-input".into())
        .spawn(move || {
            let mut input = input;
            loop {
                let item = match next_line(&mut input) {
                    Ok(None) => return,
                    Ok(Some(line)) => {
                        let cost = line.len() + LINE_COST;
                        let control = matches!(line.trim(), "stop" | "quit");
                        if control || reader_pending.load(Relaxed) + cost <= MAX_PENDING {
                            reader_pending.fetch_add(cost, Relaxed);
                            Ok(line)
                        } else if reader_dropped.fetch_add(1, Relaxed) == 0 {
                            // One report in the channel at a time: it tells
                            // how many were dropped when it is read.
                            Err(Dropped(crate::files::cut(&line, 40)))
                        } else {
                            continue;
                        }
                    }
                    // A line too long or not UTF-8 is one bad line; any
                    // other read error ends the input.
                    Err(e) => {
                        let fatal = e.kind() != std::io::ErrorKind::InvalidData;
                        let sent = tx.send(Ok(Err(format!("unreadable input line: {e}"))));
                        if sent.is_err() || fatal {
                            return;
                        }
                        continue;
                    }
                };
                let item = match item {
                    Ok(line) => Ok(Ok(line)),
                    Err(first) => Err(first),
                };
                if tx.send(item).is_err() {
                    return;
                }
            }
        });
    let mut hub = match Hub::new(Arc::clone(&out)) {
        Ok(hub) => hub,
        Err(e) => {
            send(&out, &error_line(&e));
            return Err(e);
        }
    };
    if let Err(e) = reader {
        let e = format!("cannot start the input thread: {e}");
        hub.error(&e);
        return Err(e);
    }
    // Commands that came while a search with a limit ran, in order.
    let mut waiting: VecDeque<String> = VecDeque::new();
    loop {
        // Waiting lines are carried out once the search is done; a `stop`
        // or `ping` whose turn has come acts at once, during a search too
        // (a `stop` kept for a `go` ends that go's search).
        loop {
            let now = match waiting.front() {
                None => break,
                Some(l) => {
                    !hub.bounded_search_running()
                        || matches!(command_of(l).as_deref(), Some("stop" | "ping"))
                }
            };
            if !now {
                break;
            }
            let line = waiting.pop_front().expect("a line waits");
            pending.fetch_sub(line.len() + LINE_COST, Relaxed);
            if !hub.handle(&line) {
                return Ok(());
            }
        }
        let next = if waiting.is_empty() {
            rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            rx.recv_timeout(WAIT_POLL)
        };
        match next {
            Ok(Ok(Ok(line))) => {
                let busy = hub.bounded_search_running() || !waiting.is_empty();
                let command = command_of(&line);
                let keep = busy && command.as_deref() != Some("quit");
                if !keep {
                    pending.fetch_sub(line.len() + LINE_COST, Relaxed);
                }
                match command.as_deref() {
                    Some("quit") => {
                        hub.handle(&line);
                        return Ok(());
                    }
                    // `stop` ends the running search at once; sent after a
                    // `go` that waits, it ends that go's search too.
                    Some("stop") => {
                        hub.handle(&line);
                        if keep {
                            let kept = keep_stops(&mut waiting, &line);
                            // The line was counted once when it was read.
                            let cost = line.len() + LINE_COST;
                            if kept == 0 {
                                pending.fetch_sub(cost, Relaxed);
                            } else {
                                pending.fetch_add((kept - 1) * cost, Relaxed);
                            }
                        }
                    }
                    // `ping` is answered once what came before it is done:
                    // at once while a search runs with nothing waiting.
                    Some("ping") if waiting.is_empty() => {
                        if keep {
                            pending.fetch_sub(line.len() + LINE_COST, Relaxed);
                        }
                        hub.handle(&line);
                    }
                    _ if busy => waiting.push_back(line),
                    _ => {
                        if !hub.handle(&line) {
                            return Ok(());
                        }
                    }
                }
            }
            Ok(Ok(Err(message))) => hub.error(&message),
            Ok(Err(Dropped(first))) => {
                let n = dropped.swap(0, Relaxed);
                hub.error(&format!(
                    "more than {MAX_PENDING} bytes of commands wait already: {n} line(s) dropped, the first '{first}'"
                ));
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    for line in waiting {
        if !hub.handle(&line) {
            return Ok(());
        }
    }
    if hub.search_unbounded {
        hub.stop_search();
    } else if let Some(h) = hub.search.take() {
        let _ = h.join();
    }
    Ok(())
}

/// A `stop` that came while commands wait: it is kept right after each
/// waiting `go` that has none after it, so that it ends the search that go
/// starts, before any command that would wait for that search. Returns how
/// many were kept.
fn keep_stops(waiting: &mut VecDeque<String>, stop: &str) -> usize {
    let is = |l: &str, name: &str| command_of(l).as_deref() == Some(name);
    let mut kept = 0;
    let mut out = VecDeque::with_capacity(waiting.len() + 1);
    let mut lines = std::mem::take(waiting).into_iter().peekable();
    while let Some(line) = lines.next() {
        let go = is(&line, "go");
        out.push_back(line);
        if go && !lines.peek().is_some_and(|next| is(next, "stop")) {
            out.push_back(stop.to_string());
            kept += 1;
        }
    }
    *waiting = out;
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_of(hub: &Hub) -> HashSize {
        on_session!(&hub.session, s => s.engine().hash_size())
    }

    /// A hub holds the smallest table until it is given its size, is sent
    /// `init` or first searches: a program setting `hash` (as self-play
    /// does before `init`) never holds the default table too, and one that
    /// never does has the default before its first search.
    #[test]
    fn the_table_takes_its_size_at_hash_init_or_the_first_search() {
        let sink: Output = Arc::new(Mutex::new(Vec::<u8>::new()));
        let mut hub = Hub::new(Arc::clone(&sink)).unwrap();
        assert_eq!(table_of(&hub), HashSize::MIN);
        for line in ["set-param name=game value=bashnya", "new-game"] {
            assert!(hub.handle(line));
        }
        assert_eq!(table_of(&hub), HashSize::MIN, "no table had yet");
        assert!(hub.handle("set-param name=hash value=2"));
        assert_eq!(table_of(&hub), HashSize::fixed(2));
        assert!(hub.handle("set-param name=game value=bushka"));
        assert_eq!(table_of(&hub), HashSize::fixed(2), "a game switch keeps it");
        assert!(hub.handle("init"));
        assert_eq!(
            table_of(&hub),
            HashSize::fixed(2),
            "init keeps a size given"
        );

        let mut fresh = Hub::new(Arc::clone(&sink)).unwrap();
        assert!(fresh.handle("init"));
        assert_eq!(table_of(&fresh), HashSize::default_here());
        let mut searched = Hub::new(Arc::clone(&sink)).unwrap();
        for line in ["level depth=1", "go think", "stop"] {
            assert!(searched.handle(line));
        }
        assert_eq!(table_of(&searched), HashSize::default_here());
        assert_eq!(searched.hash, HashSize::default_here());
    }

    /// A table over the built-in 1 GiB is a size like any other: set, kept
    /// across a game switch, and replaced (the engine reported its size
    /// through the built-in constructor, which stopped the program).
    #[test]
    fn a_table_over_one_gib_is_set_and_replaced() {
        let big = 1025;
        if crate::tt::max_hash_mib() < big {
            eprintln!("skipped: this process may hold no {big} MiB table");
            return;
        }
        let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
        let mut hub = Hub::new(buf.clone()).unwrap();
        assert!(hub.handle(&format!("set-param name=hash value={big}")));
        assert_eq!(table_of(&hub).get(), big);
        assert!(hub.handle("set-param name=game value=bashnya"));
        assert_eq!(table_of(&hub).get(), big, "a game switch keeps it");
        assert!(hub.handle("set-param name=hash value=8"));
        assert_eq!(table_of(&hub), HashSize::fixed(8));
        assert!(hub.handle("ping"));
        let out = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        assert_eq!(out, "pong\n");
    }

    #[test]
    fn an_overlong_or_undecodable_line_is_one_bad_line() {
        let mut text = b"ping\r\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE as usize + 10));
        text.extend(b"\n\xff\xfe\nping\n");
        let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
        run(std::io::Cursor::new(text), buf.clone()).unwrap();
        let out = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [
                "pong",
                &format!(
                    "error message=\"unreadable input line: line longer than {MAX_LINE} bytes\""
                ) as &str,
                "error message=\"unreadable input line: not UTF-8 text\"",
                "pong"
            ]
        );
    }

    #[test]
    fn commands_waiting_for_a_search_are_bounded() {
        // More than MAX_PENDING bytes of commands arrive while a search
        // runs: the ones past the budget are refused one by one, each line
        // gets exactly one answer, and the `stop` at the end always gets
        // through (the search, to depth 60, ends by it alone: without it
        // this test would not end).
        let filler = "x".repeat(1000);
        let flood = MAX_PENDING / 1000 + 100;
        let mut text = String::from("level depth=60\ngo\n");
        for i in 0..flood {
            text.push_str(&format!("bogus{i}{filler}\n"));
        }
        text.push_str("stop\n");
        let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
        run(std::io::Cursor::new(text.into_bytes()), buf.clone()).unwrap();
        let out = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        // Reports of dropped lines give their number.
        let dropped: usize = lines
            .iter()
            .filter_map(|l| {
                l.split(" line(s) dropped")
                    .next()
                    .filter(|_| l.contains("dropped"))
            })
            .map(|head| head.rsplit(' ').next().unwrap().parse::<usize>().unwrap())
            .sum();
        let unknown = lines
            .iter()
            .filter(|l| l.contains("unknown command"))
            .count();
        assert!(dropped >= 100, "{dropped} dropped");
        assert_eq!(unknown + dropped, flood, "every line is answered once");
        assert_eq!(lines.iter().filter(|l| l.starts_with("done")).count(), 1);
        assert!(lines.last().unwrap().contains("unknown command"));
    }

    #[test]
    fn tokenizer_reads_quotes_and_flags() {
        let (c, a) = tokenize(r#"pos pos="W:We1:Be0" moves="e12 e09""#).unwrap();
        assert_eq!(c, "pos");
        assert_eq!(a[0], ("pos".into(), Some("W:We1:Be0".into())));
        assert_eq!(a[1], ("moves".into(), Some("e12 e09".into())));
        let (c, a) = tokenize("go think").unwrap();
        assert_eq!((c.as_str(), a), ("go", vec![("think".to_string(), None)]));
        assert!(tokenize(r#"pos pos="abc"#).is_err());
        assert!(tokenize("=x").is_err());
        assert_eq!(
            tokenize(r#"x v="a\"b""#).unwrap().1[0].1.as_deref(),
            Some("a\"b")
        );
        assert_eq!(quote("a b"), "\"a b\"");
        assert_eq!(quote("ab"), "ab");
        assert_eq!(quote(""), "\"\"");
        assert_eq!(quote("a\nb\r\tc"), "\"a b  c\"");
        // Any space the tokenizer splits on is quoted.
        assert_eq!(quote("a\u{a0}b"), "\"a\u{a0}b\"");
        assert_eq!(
            tokenize(&format!("x v={}", quote("a\u{3000}b"))).unwrap().1[0]
                .1
                .as_deref(),
            Some("a\u{3000}b")
        );
    }

    #[test]
    fn level_parsing() {
        let l = parse_level(&tokenize("level depth=5").unwrap().1).unwrap();
        assert_eq!(l.depth, Some(5));
        let l = parse_level(&tokenize("level time=60 inc=0.5").unwrap().1).unwrap();
        assert_eq!(l.clock.unwrap().inc, Duration::from_millis(500));
        let l = parse_level(&tokenize("level time=9 moves-to-go=12").unwrap().1).unwrap();
        assert_eq!(l.clock.unwrap().moves_to_go, Some(12));
        assert!(parse_level(&tokenize("level time=9 moves-to-go=0").unwrap().1).is_err());
        assert!(parse_level(&tokenize("level depth=x").unwrap().1).is_err());
        assert!(parse_level(&tokenize("level move-time=-1").unwrap().1).is_err());
        assert!(parse_level(&tokenize("level speed=3").unwrap().1).is_err());
    }
}
