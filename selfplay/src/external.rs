//! An external engine speaking the Hub protocol of `bushka hub`.

use crate::player::{Choice, Forfeit, Player};
use crate::spec::EngineSpec;
use engine::files::{read_line_capped, LineRead, MAX_LINE};
use engine::hub::quote;
use engine::record::GameRecord;
use engine::search::{Clock, Score, MATE_BOUND, MAX_WIN_DISTANCE};
use engine::Game;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

/// Extra time granted above the engine's own limit before it forfeits.
const GRACE: Duration = Duration::from_secs(5);
/// Time allowed for a depth- or node-limited move.
const UNTIMED_MOVE: Duration = Duration::from_secs(120);
/// Lines read ahead of the harness; an engine that writes faster waits.
/// With lines of at most [`MAX_LINE`] bytes, at most 64 MiB wait.
const LINES_AHEAD: usize = 64;

/// A line from the engine, or why no more will be read.
type Line = Result<String, String>;

/// A running external engine.
pub struct ExternalPlayer<G: Game> {
    child: Child,
    input: ChildStdin,
    lines: Receiver<Line>,
    level: String,
    move_time: Duration,
    /// The game clock of the next move and how long to wait for it.
    clock: Option<(Clock, Duration)>,
    /// How long the `pong` after `new-game` may take.
    new_game_wait: Duration,
    dead: Option<String>,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> ExternalPlayer<G> {
    /// Starts `cmd` (split on spaces, double quotes group words) and greets it.
    pub fn start(cmd: &str, spec: &EngineSpec) -> Result<Self, String> {
        let words = split_command(cmd);
        let (program, args) = words.split_first().ok_or("empty engine command")?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        end_with_this_thread(&mut command);
        let mut child = command.spawn().map_err(|e| {
            format!(
                "engine {}: cannot start '{}': {e}",
                spec.name,
                engine::files::quoted(cmd, 200)
            )
        })?;
        let input = child.stdin.take().ok_or("no engine stdin")?;
        let out = BufReader::new(child.stdout.take().ok_or("no engine stdout")?);
        let (tx, lines) = sync_channel(LINES_AHEAD);
        std::thread::spawn(move || read_lines(out, &tx));
        let (level, move_time) = level_of(spec);
        let mut p = ExternalPlayer {
            child,
            input,
            lines,
            level,
            move_time,
            clock: None,
            new_game_wait: new_game_wait(spec.hash.get()),
            dead: None,
            _game: std::marker::PhantomData,
        };
        let hello = HELLO;
        p.send("hub")
            .and_then(|_| p.wait_for("wait", hello))
            .map_err(|e| format!("engine {}: after 'hub': {e}", spec.name))?;
        let setup = [
            format!("set-param name=game value={}", G::KIND.name()),
            format!("set-param name=threads value={}", spec.threads),
            format!("set-param name=hash value={}", spec.hash),
        ];
        for line in setup {
            p.send(&line)
                .map_err(|e| format!("engine {}: {e}", spec.name))?;
        }
        if let Some(e) = spec.eval {
            p.send(&format!("set-param name=eval value={}", e.name()))
                .map_err(|e| format!("engine {}: {e}", spec.name))?;
        }
        if let Some(w) = &spec.weights {
            p.send(&format!("set-param name=weights value={}", quote(w)))
                .map_err(|e| format!("engine {}: {e}", spec.name))?;
        }
        // `init` may have the table made (and touched) before `ready`.
        let made = p.new_game_wait;
        p.send("init")
            .and_then(|_| p.wait_for("ready", made))
            .map_err(|e| format!("engine {}: after 'init': {e}", spec.name))?;
        Ok(p)
    }

    /// Writes a line; a failed write ends the engine (it is restarted).
    fn send(&mut self, line: &str) -> Result<(), String> {
        let sent = writeln!(self.input, "{line}").and_then(|_| self.input.flush());
        sent.map_err(|e| self.died(format!("cannot write to engine: {e}")))
    }

    /// Marks the engine as finished (the harness starts a new one before
    /// its next game), stops it (it may still be searching, taking a core
    /// from the games on the clock) and returns why.
    fn died(&mut self, why: String) -> String {
        self.dead = Some(why.clone());
        self.kill();
        why
    }

    /// The next line before `deadline`. Past it, no line is read, however
    /// many are waiting: an engine that floods its output still runs out of
    /// time. `Err(None)` is the deadline; `Err(Some(why))`, an engine that
    /// can be read no more.
    fn next_line(&mut self, deadline: Instant) -> Result<String, Option<String>> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(None);
        }
        match self.lines.recv_timeout(left) {
            Ok(Ok(line)) => Ok(line),
            Ok(Err(why)) => Err(Some(self.died(why))),
            Err(RecvTimeoutError::Timeout) => Err(None),
            Err(RecvTimeoutError::Disconnected) => Err(Some(self.died("engine exited".into()))),
        }
    }

    /// Reads lines until one starts with `prefix`; `error` lines are fatal.
    fn wait_for(&mut self, prefix: &str, limit: Duration) -> Result<String, String> {
        let deadline = Instant::now() + limit;
        loop {
            match self.next_line(deadline) {
                Ok(l) if l.starts_with(prefix) => return Ok(l),
                Ok(l) if l.starts_with("error") => {
                    return Err(format!(
                        "engine said: {}",
                        engine::files::quoted(&l, crate::player::MAX_QUOTED)
                    ))
                }
                Ok(_) => {}
                Err(None) => {
                    return Err(format!(
                        "no '{prefix}' line within {} s",
                        limit.as_secs_f64()
                    ))
                }
                Err(Some(why)) => return Err(why),
            }
        }
    }
}

/// The time an engine has to answer `hub` and `init`.
const HELLO: Duration = Duration::from_secs(10);

/// The time an engine with a table of `hash` MiB has to answer `init`
/// (which may make the table) and the `ping` after `new-game` (which
/// clears it): [`HELLO`] and a second more for each 100 MiB (clearing runs
/// at gigabytes a second; a busy node or a first touch of the memory is
/// slower).
fn new_game_wait(hash: usize) -> Duration {
    HELLO + Duration::from_secs_f64(hash as f64 / 100.0)
}

/// The `level` line of an engine's own limits (every one it is given, as
/// the harness's own engines obey them together; `depth=4` when it has
/// neither a limit nor a clock), and how long a move may take before the
/// grace period: its move time, or [`UNTIMED_MOVE`].
fn level_of(spec: &EngineSpec) -> (String, Duration) {
    let mut level = "level".to_string();
    if let Some(d) = spec.depth {
        level.push_str(&format!(" depth={d}"));
    }
    if let Some(n) = spec.nodes {
        level.push_str(&format!(" nodes={n}"));
    }
    if let Some(ms) = spec.movetime {
        level.push_str(&format!(" move-time={:.3}", ms as f64 / 1000.0));
    }
    if level == "level" && spec.tc.is_none() {
        level.push_str(" depth=4");
    }
    let move_time = spec.movetime.map_or(UNTIMED_MOVE, Duration::from_millis);
    (level, move_time)
}

/// Reads the engine's output a line at a time into `tx` until it ends: text
/// that is not UTF-8 is read with replacement characters (and then is no
/// command the harness knows); a line longer than [`MAX_LINE`] (a longer
/// one ends the engine) or a read error ends the reading, with why.
fn read_lines(mut out: impl BufRead, tx: &SyncSender<Line>) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let line = match read_line_capped(&mut out, &mut buf, MAX_LINE) {
            Ok(LineRead::End) => return,
            Ok(LineRead::TooLong) => {
                Err(format!("engine wrote a line longer than {MAX_LINE} bytes"))
            }
            Ok(LineRead::Line) => {
                let text = String::from_utf8_lossy(&buf);
                Ok(text.trim_end_matches(['\n', '\r']).to_string())
            }
            Err(e) => Err(format!("cannot read from engine: {e}")),
        };
        let last = line.is_err();
        if tx.send(line).is_err() || last {
            return;
        }
    }
}

/// Has the system end the engine when the thread that starts it ends, as
/// it does when the harness is killed (a `kill PID`, a supervisor's stop,
/// the out-of-memory killer), when no `Drop` runs: otherwise the engine
/// would live on, searching, with no parent. A tournament's worker starts
/// and drops its engines itself, so they never outlive it anyway. Only the
/// engine itself is ended this way: an engine behind a wrapper script
/// lives on unless the script `exec`s it.
#[cfg(target_os = "linux")]
fn end_with_this_thread(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id();
    // SAFETY: between fork and exec the closure makes only the system calls
    // `prctl`, `getppid` and `_exit`, which are async-signal-safe, and
    // allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The harness ended before the request was made: end now.
            if u32::try_from(libc::getppid()).ok() != Some(parent) {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn end_with_this_thread(_command: &mut Command) {}

/// Splits a command line on spaces, keeping double-quoted words together.
pub fn split_command(cmd: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in cmd.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// The value of `key=` in a protocol line of another program (quoted or
/// bare).
pub fn value_of(line: &str, key: &str) -> Option<String> {
    engine::hub::tokenize(line)
        .ok()?
        .1
        .into_iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v)
}

/// A score from another program: `winN`/`lossN` up to the longest distance
/// a score holds ([`MAX_WIN_DISTANCE`]; else not read), centi-men held below
/// the win scores.
pub fn parse_score(s: &str) -> Option<Score> {
    let plies = |n: &str| {
        n.parse::<u32>()
            .ok()
            .filter(|&n| i64::from(n) <= i64::from(MAX_WIN_DISTANCE))
    };
    if let Some(n) = s.strip_prefix("win") {
        plies(n).map(Score::Win)
    } else if let Some(n) = s.strip_prefix("loss") {
        plies(n).map(Score::Loss)
    } else {
        let most = MATE_BOUND - 1;
        s.parse::<i32>()
            .ok()
            .map(|c| Score::Cp(c.clamp(-most, most)))
    }
}

impl<G: Game> Player<G> for ExternalPlayer<G> {
    fn is_alive(&mut self) -> bool {
        if self.dead.is_none() && !matches!(self.child.try_wait(), Ok(None)) {
            self.dead = Some("engine exited".into());
        }
        self.dead.is_none()
    }

    fn set_clock(&mut self, clock: Option<Clock>, allowance: Option<Duration>) {
        self.clock = clock.zip(allowance);
    }

    fn new_game(&mut self) {
        // The engine's work for a new game (clearing its table) is done
        // before the game's clock starts: `ping` waits for it. A failed
        // write or no `pong` marks the engine finished: its first move
        // forfeits, and a new one is started for the next game.
        if self.dead.is_some() {
            return;
        }
        let ready = self
            .send("new-game")
            .and_then(|()| self.send("ping"))
            .and_then(|()| self.wait_for("pong", self.new_game_wait));
        if let Err(e) = ready {
            if self.dead.is_none() {
                self.died(format!("after 'new-game': {e}"));
            }
        }
    }

    fn choose(&mut self, game: &GameRecord<G>) -> Result<Choice<G::Move>, Forfeit> {
        if let Some(why) = &self.dead {
            return Err(Forfeit::Crash(why.clone()));
        }
        let mut p = *game.start();
        let mut texts = Vec::with_capacity(game.len());
        for m in game.moves() {
            texts.push(p.move_text(m));
            p = p.play(m);
        }
        let mut level = self.level.clone();
        if let Some((c, _)) = self.clock {
            level.push_str(&format!(
                " time={:.3} inc={:.3}",
                c.time.as_secs_f64(),
                c.inc.as_secs_f64()
            ));
            if let Some(m) = c.moves_to_go {
                level.push_str(&format!(" moves-to-go={m}"));
            }
        }
        let pos = format!(
            "pos pos={} moves={}",
            quote(&game.start().to_text()),
            quote(&texts.join(" "))
        );
        for line in [pos, level, "go think".to_string()] {
            self.send(&line).map_err(Forfeit::Crash)?;
        }
        let (mut score, mut depth) = (None, None);
        // On a clock the clock is the limit (the harness waits for all the
        // time the side has left); else the engine's own limit and a grace
        // period.
        let wait = match self.clock {
            Some((_, allowance)) => allowance,
            None => self.move_time + GRACE,
        };
        let deadline = Instant::now() + wait;
        let done = loop {
            match self.next_line(deadline) {
                Ok(l) if l.starts_with("done") => break l,
                Ok(l) if l.starts_with("info") => {
                    score = value_of(&l, "score")
                        .and_then(|s| parse_score(&s))
                        .or(score);
                    depth = value_of(&l, "depth").and_then(|d| d.parse().ok()).or(depth);
                }
                // The engine may still be searching, and would answer this
                // move in the next game: it is restarted.
                Ok(l) if l.starts_with("error") => return Err(Forfeit::Crash(self.died(l))),
                Ok(_) => {}
                Err(None) => {
                    self.kill();
                    self.dead = Some("timed out".into());
                    return Err(Forfeit::Timeout);
                }
                Err(Some(why)) => return Err(Forfeit::Crash(why)),
            }
        };
        let text = value_of(&done, "move").ok_or_else(|| {
            Forfeit::IllegalMove(format!(
                "(none read from '{}')",
                engine::files::quoted(&done, crate::player::MAX_QUOTED)
            ))
        })?;
        let mv = game
            .current()
            .parse_move(&text)
            .map_err(|_| Forfeit::IllegalMove(text.clone()))?;
        Ok(Choice { mv, score, depth })
    }
}

impl<G: Game> Drop for ExternalPlayer<G> {
    fn drop(&mut self) {
        // What the engine started, noted while it runs (once it has gone,
        // its children belong to another parent).
        let started = self.descendants();
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        kill_all(&started);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl<G: Game> ExternalPlayer<G> {
    /// Stops the engine and every process it started (an engine behind a
    /// wrapper script is the wrapper's child).
    fn kill(&mut self) {
        kill_all(&self.descendants());
        let _ = self.child.kill();
    }

    /// The processes the engine started, while it runs (once it has been
    /// reaped its id may be another process's).
    fn descendants(&mut self) -> Vec<Process> {
        match self.child.try_wait() {
            Ok(None) => descendants(self.child.id()),
            _ => Vec::new(),
        }
    }
}

/// A process: its id and its start time (in clock ticks after boot), which
/// tell it from a later process given the same id.
type Process = (i32, u64);

/// Reads a process's parent and start time from `/proc/<id>/stat`.
#[cfg(target_os = "linux")]
fn stat_of(id: i32) -> Option<(i32, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{id}/stat")).ok()?;
    // After the command name (in parentheses, which may hold anything):
    // state, parent, ..., start time (the 20th field after the name).
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some((fields.get(1)?.parse().ok()?, fields.get(19)?.parse().ok()?))
}

/// Every process descended from `id`, children before their children.
#[cfg(target_os = "linux")]
fn descendants(id: u32) -> Vec<Process> {
    let Ok(root) = i32::try_from(id) else {
        return Vec::new();
    };
    let mut all: Vec<(i32, i32, u64)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            if let Some((parent, start)) = stat_of(pid) {
                all.push((pid, parent, start));
            }
        }
    }
    let mut found: Vec<Process> = Vec::new();
    let mut parents = vec![root];
    while let Some(parent) = parents.pop() {
        for &(pid, p, start) in &all {
            if p == parent && !found.iter().any(|&(f, _)| f == pid) {
                found.push((pid, start));
                parents.push(pid);
            }
        }
    }
    found
}

/// Kills each process still running that is the same one as noted.
#[cfg(target_os = "linux")]
fn kill_all(processes: &[Process]) {
    for &(pid, start) in processes {
        if stat_of(pid).is_some_and(|(_, s)| s == start) {
            // SAFETY: kill(2) takes plain integers and touches no memory of
            // ours; the id is a process this engine started, checked by its
            // start time just above.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

/// Elsewhere only the engine's own process is stopped.
#[cfg(not(target_os = "linux"))]
fn descendants(_id: u32) -> Vec<Process> {
    Vec::new()
}

#[cfg(not(target_os = "linux"))]
fn kill_all(_processes: &[Process]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_for_a_new_game_grows_with_the_table() {
        assert_eq!(new_game_wait(16), Duration::from_millis(10_160));
        assert_eq!(
            new_game_wait(16_384),
            Duration::from_secs_f64(10.0 + 163.84)
        );
    }

    #[test]
    fn scores_of_other_programs_stay_in_range() {
        assert_eq!(parse_score("win7"), Some(Score::Win(7)));
        assert_eq!(parse_score("loss0"), Some(Score::Loss(0)));
        assert_eq!(parse_score("-35"), Some(Score::Cp(-35)));
        // Beyond the longest distance a win is not a score of ours; it is
        // not read.
        assert_eq!(
            parse_score(&format!("win{MAX_WIN_DISTANCE}")),
            Some(Score::Win(512))
        );
        assert_eq!(parse_score(&format!("win{}", MAX_WIN_DISTANCE + 1)), None);
        assert_eq!(parse_score("win2147483648"), None);
        assert_eq!(parse_score("loss4294967295"), None);
        // Centi-men never reach the win scores.
        let most = MATE_BOUND - 1;
        assert_eq!(parse_score("2147483647"), Some(Score::Cp(most)));
        assert_eq!(parse_score("-2147483648"), Some(Score::Cp(-most)));
        for s in ["2147483647", "-2147483648", "win128", "loss128"] {
            let v = parse_score(s).unwrap().internal();
            assert!(
                v.checked_neg().is_some() && v.abs() <= engine::search::MATE,
                "{s}"
            );
        }
        assert_eq!(parse_score("win"), None);
        assert_eq!(parse_score("x"), None);
    }
}
