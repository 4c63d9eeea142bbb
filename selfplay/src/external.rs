//! An external engine speaking the Hub protocol of `bushka hub`.

use crate::player::{Choice, Forfeit, Player};
use crate::spec::EngineSpec;
use engine::hub::quote;
use engine::record::GameRecord;
use engine::search::{Clock, Score, MATE_BOUND, MAX_PLY};
use engine::Game;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Extra time granted above the engine's own limit before it forfeits.
const GRACE: Duration = Duration::from_secs(5);
/// Time allowed for a depth- or node-limited move.
const UNTIMED_MOVE: Duration = Duration::from_secs(120);

/// A running external engine.
pub struct ExternalPlayer<G: Game> {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
    level: String,
    move_time: Duration,
    /// The game clock of the next move and how long to wait for it.
    clock: Option<(Clock, Duration)>,
    dead: Option<String>,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> ExternalPlayer<G> {
    /// Starts `cmd` (split on spaces, double quotes group words) and greets it.
    pub fn start(cmd: &str, spec: &EngineSpec) -> Result<Self, String> {
        let words = split_command(cmd);
        let (program, args) = words.split_first().ok_or("empty engine command")?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("engine {}: cannot start '{cmd}': {e}", spec.name))?;
        let input = child.stdin.take().ok_or("no engine stdin")?;
        let out = BufReader::new(child.stdout.take().ok_or("no engine stdout")?);
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in out.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let (level, move_time) = match (spec.depth, spec.nodes, spec.movetime) {
            (None, None, None) if spec.tc.is_some() => ("level".to_string(), UNTIMED_MOVE),
            (_, _, Some(ms)) => (
                format!("level move-time={:.3}", ms as f64 / 1000.0),
                Duration::from_millis(ms),
            ),
            (_, Some(n), None) => (format!("level nodes={n}"), UNTIMED_MOVE),
            (Some(d), None, None) => (format!("level depth={d}"), UNTIMED_MOVE),
            (None, None, None) => ("level depth=4".to_string(), UNTIMED_MOVE),
        };
        let mut p = ExternalPlayer {
            child,
            input,
            lines,
            level,
            move_time,
            clock: None,
            dead: None,
            _game: std::marker::PhantomData,
        };
        let hello = Duration::from_secs(10);
        p.send("hub")
            .and_then(|_| p.wait_for("wait", hello))
            .map_err(|e| format!("engine {}: {e}", spec.name))?;
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
                .map_err(|e| e.clone())?;
        }
        if let Some(w) = &spec.weights {
            p.send(&format!("set-param name=weights value={}", quote(w)))
                .map_err(|e| e.clone())?;
        }
        p.send("init")
            .and_then(|_| p.wait_for("ready", hello))
            .map_err(|e| format!("engine {}: {e}", spec.name))?;
        Ok(p)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.input, "{line}")
            .and_then(|_| self.input.flush())
            .map_err(|e| format!("cannot write to engine: {e}"))
    }

    /// Reads lines until one starts with `prefix`; `error` lines are fatal.
    fn wait_for(&mut self, prefix: &str, limit: Duration) -> Result<String, String> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.starts_with(prefix) => return Ok(l),
                Ok(l) if l.starts_with("error") => return Err(format!("engine said: {l}")),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => return Err("timeout".into()),
                Err(RecvTimeoutError::Disconnected) => return Err("engine exited".into()),
            }
        }
    }
}

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

/// The value of `key=` in a protocol line (quoted or bare).
fn value_of(line: &str, key: &str) -> Option<String> {
    engine::hub::tokenize(line)
        .ok()?
        .1
        .into_iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v)
}

/// A score from another program: `winN`/`lossN` within the search's ply
/// limit (else not read), centi-men held below the win scores.
fn parse_score(s: &str) -> Option<Score> {
    let plies = |n: &str| n.parse::<u32>().ok().filter(|&n| n as usize <= MAX_PLY);
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
    fn is_alive(&self) -> bool {
        self.dead.is_none()
    }

    fn set_clock(&mut self, clock: Option<Clock>, allowance: Option<Duration>) {
        self.clock = clock.zip(allowance);
    }

    fn new_game(&mut self) {
        if self.send("new-game").is_err() {
            self.dead = Some("cannot write to engine".into());
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
        // On a clock the harness's allowance is the limit; else the engine's
        // own limit and a grace period.
        let wait = match self.clock {
            Some((_, allowance)) => allowance.min(self.move_time + GRACE),
            None => self.move_time + GRACE,
        };
        let deadline = Instant::now() + wait;
        let done = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.starts_with("done") => break l,
                Ok(l) if l.starts_with("info") => {
                    score = value_of(&l, "score")
                        .and_then(|s| parse_score(&s))
                        .or(score);
                    depth = value_of(&l, "depth").and_then(|d| d.parse().ok()).or(depth);
                }
                Ok(l) if l.starts_with("error") => return Err(Forfeit::Crash(l)),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    self.dead = Some("timed out".into());
                    return Err(Forfeit::Timeout);
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.dead = Some("engine exited".into());
                    return Err(Forfeit::Crash("engine exited".into()));
                }
            }
        };
        let text = value_of(&done, "move").ok_or_else(|| Forfeit::IllegalMove("(none)".into()))?;
        let mv = game
            .current()
            .parse_move(&text)
            .map_err(|_| Forfeit::IllegalMove(text.clone()))?;
        Ok(Choice { mv, score, depth })
    }
}

impl<G: Game> Drop for ExternalPlayer<G> {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_of_other_programs_stay_in_range() {
        assert_eq!(parse_score("win7"), Some(Score::Win(7)));
        assert_eq!(parse_score("loss0"), Some(Score::Loss(0)));
        assert_eq!(parse_score("-35"), Some(Score::Cp(-35)));
        // Beyond the ply limit a win is not a score of ours; it is not read.
        assert_eq!(parse_score(&format!("win{}", MAX_PLY + 1)), None);
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
