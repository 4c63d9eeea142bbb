//! The engine protocol, driven through a child process as a GUI would.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

struct Hub {
    child: Child,
    /// `None` once closed.
    input: Option<ChildStdin>,
    lines: Receiver<String>,
}

/// A test that fails midway leaves no engine searching on its own.
impl Drop for Hub {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Hub {
    fn start() -> Hub {
        let mut cmd = Command::new(crate::bin());
        cmd.arg("hub");
        Hub::spawn(cmd)
    }

    /// A hub whose address space is limited to `kib` KiB (`ulimit -v`).
    fn start_limited(kib: u64) -> Hub {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("ulimit -v {kib} && exec \"$0\" hub"));
        cmd.arg(env!("CARGO_BIN_EXE_bushka"));
        Hub::spawn(cmd)
    }

    fn spawn(mut cmd: Command) -> Hub {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for l in out.lines() {
                if tx.send(l.unwrap()).is_err() {
                    break;
                }
            }
        });
        Hub {
            child,
            input: Some(input),
            lines,
        }
    }

    /// Sends several lines in one write, as a fast GUI may.
    fn send_together(&mut self, lines: &[&str]) {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let input = self.input.as_mut().expect("input open");
        input.write_all(text.as_bytes()).unwrap();
        input.flush().unwrap();
    }

    fn send(&mut self, line: &str) {
        self.send_together(&[line]);
    }

    /// Sends `quit`; the engine exits with success.
    fn quit(mut self) {
        self.send("quit");
        assert!(self.child.wait().unwrap().success());
    }

    /// Ends the engine's input, as a GUI that exits does.
    fn close_input(&mut self) {
        self.input = None;
    }

    fn next(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(30))
            .expect("a reply in time")
    }

    /// Reads lines until one starts with `prefix`; returns all read.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let l = self.next();
            let done = l.starts_with(prefix);
            seen.push(l);
            if done {
                return seen;
            }
        }
    }
}

#[test]
fn a_whole_session() {
    let mut h = Hub::start();
    h.send("hub");
    let intro = h.until("wait");
    assert!(intro[0].starts_with("id name=bushka version="));
    for param in ["game", "hash", "threads", "weights", "eval", "tb"] {
        assert!(
            intro
                .iter()
                .any(|l| l.starts_with(&format!("param name={param} "))),
            "{param}: {intro:?}"
        );
    }
    h.send("init");
    assert_eq!(h.next(), "ready");
    h.send("new-game");
    h.send(r#"pos pos="W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0""#);
    h.send("level depth=10");
    h.send("go think");
    let lines = h.until("done");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth=10 score=win")),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap(), "done move=dc3");

    // Moves after a position text, and a legal reply.
    h.send(r#"pos pos=start moves="d23 b54""#);
    h.send("level nodes=3000");
    h.send("go think");
    let mut lines = h.until("done");
    assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:?}");
    let done = lines.pop().unwrap();
    let reply = done
        .strip_prefix("done move=")
        .unwrap_or_else(|| panic!("{done}"));
    {
        use engine::Game;
        let mut p = engine::bushka::Position::start();
        for m in ["d23", "b54"] {
            p = p.play(&p.parse_move(m).unwrap());
        }
        assert!(
            p.parse_move(reply).is_ok(),
            "{reply} is not legal after d23 b54"
        );
    }

    // Errors keep the engine alive.
    let long_level = format!("level depth={}", "9".repeat(5000));
    let long_moves = format!(r#"pos pos=start moves="{}""#, "x".repeat(5000));
    for (bad, why) in [
        ("frobnicate", "unknown command 'frobnicate'"),
        (r#"pos pos="W:Wz1:B""#, "unknown square 'z1'"),
        (
            r#"pos pos=start moves="e23 e23""#,
            "move 1 (e23): illegal move 'e23'",
        ),
        (
            "level depth=abc",
            "depth must be a whole number from 1 to 100, got 'abc'",
        ),
        (
            r#"pos pos="unterminated"#,
            "unterminated quote in the value of 'pos'",
        ),
        ("set-param name=hash value=0", "hash must be from 1 to "),
        (
            "set-param name=colour value=red",
            "unknown parameter 'colour'",
        ),
        ("go fast", "go: unknown argument 'fast' (expected think)"),
        // A misspelt or repeated argument is refused, not ignored.
        (
            r#"pos position="W:We1:Be0""#,
            "pos: unknown argument 'position' (expected start, pos, moves)",
        ),
        ("go think now", "go: unknown argument 'now'"),
        ("level depth=1 depth=2", "level: 'depth' given twice"),
        ("level depth", "level: 'depth' needs a value"),
        ("pos start pos=start", "pos: give one of 'start' and 'pos='"),
        ("init now", "init takes no arguments, got 'now'"),
        // What an error quotes is escaped (a bidi override) and cut.
        ("\u{202e}abc", "u{202e}abc'"),
        (long_level.as_str(), "999..."),
        // A long move keeps its reason after the cut text.
        (long_moves.as_str(), "cannot read move 'xxx"),
    ] {
        h.send(bad);
        let l = h.next();
        assert!(
            l.starts_with("error message=\"") && l.contains(why),
            "{bad}: {l}"
        );
        assert!(l.len() < 400, "{} bytes: {l}", l.len());
    }
    h.send("ping");
    assert_eq!(h.next(), "pong");

    // The other game, then an unbounded search stopped by hand.
    h.send("set-param name=game value=bashnya");
    h.send(r#"pos pos=start moves="c3-d4""#);
    h.send("level");
    h.send("go think");
    std::thread::sleep(Duration::from_millis(300));
    h.send("pos pos=start");
    let busy = h.until("error").pop().unwrap();
    assert!(busy.contains("busy"), "{busy}");
    h.send("stop");
    let lines = h.until("done");
    let done = lines.last().unwrap();
    assert!(
        done.starts_with("done move=") && (done.contains('-') || done.contains(':')),
        "{done}"
    );
    h.quit();
}

/// A `stop` that arrives right behind `go think` ends that search: the
/// search never clears a stop asked before it began. (An engine that cleared
/// it searched on without a limit and never answered again.)
#[test]
fn a_stop_right_behind_go_ends_the_search() {
    let mut h = Hub::start();
    h.send("set-param name=game value=bashnya");
    h.send("pos pos=start");
    h.send("level");
    for i in 0..30 {
        h.send_together(&["go think", "stop"]);
        let done = h.until("done").pop().unwrap();
        assert!(done.starts_with("done move="), "go {i}: {done}");
    }
    // The next search runs to its limit.
    h.send("level depth=6");
    h.send("go think");
    let lines = h.until("done");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth=6 ")),
        "{lines:?}"
    );
    h.quit();
}

/// A search without limits answers only when stopped, also when it finds a
/// forced win long before (three kings against one) and has nothing left
/// to search; `level infinite` is `level` alone.
#[test]
fn an_unbounded_search_waits_for_stop_after_a_forced_win() {
    let mut h = Hub::start();
    h.send("pos pos=W:WKe1,Kf2,Kg3:BKd9");
    h.send("level infinite");
    h.send("go think");
    // The win is found (the search then ends at once by itself)...
    loop {
        let l = h.next();
        assert!(l.starts_with("info "), "{l}");
        if l.contains("score=win") {
            break;
        }
    }
    // ...and no answer comes until the stop.
    std::thread::sleep(Duration::from_millis(500));
    h.send("ping");
    let lines = h.until("pong");
    assert!(
        lines.iter().all(|l| l.starts_with("info ") || l == "pong"),
        "answered before stop: {lines:?}"
    );
    h.send("stop");
    let done = h.until("done").pop().unwrap();
    assert!(done.starts_with("done move="), "{done}");
    h.send("level infinite=1");
    assert!(h.next().contains("'infinite' takes no value"));
    h.send("level infinite depth=5");
    assert!(h.next().contains("'infinite' with a limit"));
    h.quit();
}

/// The depth of an `info` line.
fn depth_of(line: &str) -> u32 {
    line.strip_prefix("info depth=")
        .and_then(|r| r.split(' ').next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("not an info line: {line}"))
}

/// A search that ran to depth 1 only: its `info` lines, at least one.
fn assert_depth_one(lines: &[String]) {
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info")).collect();
    assert!(
        !infos.is_empty() && infos.iter().all(|l| depth_of(l) == 1),
        "{lines:?}"
    );
}

/// The search time of an `info` line, in seconds.
fn time_of(line: &str) -> f64 {
    line.split(' ')
        .find_map(|w| w.strip_prefix("time="))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no time in {line}"))
}

/// While a search with a limit runs, `ping` is answered at once, and other
/// commands wait for its `done`; `stop` sent after them acts at once, then
/// the waiting command takes effect. `ping` behind a waiting command is
/// answered after it.
#[test]
fn ping_and_stop_are_answered_while_other_commands_wait() {
    let mut h = Hub::start();
    h.send("set-param name=game value=bashnya");
    h.send("level move-time=30");
    h.send("go think");
    h.send("ping");
    let before_pong = h.until("pong");
    assert!(
        !before_pong.iter().any(|l| l.starts_with("done")),
        "{before_pong:?}"
    );
    h.send("level depth=1");
    h.send("stop");
    let lines = h.until("done");
    // The search's last iteration may have come before the pong (on a
    // loaded machine the ping waits its turn behind the search's output).
    let last_info = before_pong
        .iter()
        .chain(&lines)
        .rev()
        .find(|l| l.starts_with("info"))
        .expect("an iteration before the stop");
    assert!(time_of(last_info) < 25.0, "not stopped: {last_info}");
    // The `level depth=1` that waited now holds.
    h.send("go think");
    let lines = h.until("done");
    assert_depth_one(&lines);
    h.quit();
}

/// A `stop` sent after a `go think` that waits for the running search ends
/// both searches: every `go` gets its `done`, none runs on without a limit.
#[test]
fn a_stop_behind_a_waiting_go_ends_both_searches() {
    let mut h = Hub::start();
    h.send("set-param name=game value=bashnya");
    h.send("level move-time=30");
    h.send("go think");
    h.until("info");
    h.send_together(&["level", "go think", "stop"]);
    for search in ["first", "second"] {
        let lines = h.until("done");
        assert!(
            lines.last().unwrap().starts_with("done move="),
            "{search}: {lines:?}"
        );
        if let Some(info) = lines.iter().rev().find(|l| l.starts_with("info")) {
            assert!(time_of(info) < 25.0, "{search} not stopped: {info}");
        }
    }
    h.send("ping");
    assert_eq!(h.next(), "pong");
    h.quit();
}

/// The same when the waiting `go` has a limit: the kept `stop` ends its
/// search at once, not at the search's own end.
#[test]
fn a_stop_behind_a_waiting_go_with_a_limit_ends_both_searches() {
    let mut h = Hub::start();
    h.send("set-param name=game value=bashnya");
    h.send("level move-time=30");
    h.send("go think");
    h.until("info");
    h.send_together(&["go think", "stop"]);
    for search in ["first", "second"] {
        let lines = h.until("done");
        if let Some(info) = lines.iter().rev().find(|l| l.starts_with("info")) {
            assert!(time_of(info) < 25.0, "{search} not stopped: {info}");
        }
    }
    let asked = std::time::Instant::now();
    h.send("ping");
    assert_eq!(h.next(), "pong");
    assert!(
        asked.elapsed() < Duration::from_secs(20),
        "the second search ran on"
    );
    h.quit();
}

/// A `stop` sent after two waiting `go think`s with another command between
/// them ends all three searches: it is kept right behind each waiting go,
/// not behind the command that waits for that go's search.
#[test]
fn a_stop_behind_two_waiting_gos_and_a_position_ends_every_search() {
    let mut h = Hub::start();
    h.send("set-param name=game value=bashnya");
    h.send("level move-time=30");
    h.send("go think");
    h.until("info");
    let asked = std::time::Instant::now();
    h.send_together(&["go think", "pos pos=start", "go think", "stop"]);
    for search in ["first", "second", "third"] {
        let lines = h.until("done");
        if let Some(info) = lines.iter().rev().find(|l| l.starts_with("info")) {
            assert!(time_of(info) < 25.0, "{search} not stopped: {info}");
        }
    }
    h.send("ping");
    assert_eq!(h.next(), "pong");
    assert!(
        asked.elapsed() < Duration::from_secs(20),
        "a search ran on: {:?}",
        asked.elapsed()
    );
    h.quit();
}

/// At the end of its input the engine stops a search without a limit,
/// prints its move and exits (a GUI that dies leaves no engine searching).
#[test]
fn the_end_of_input_stops_a_search_without_a_limit() {
    let mut h = Hub::start();
    h.send("set-param name=game value=bashnya");
    h.send("level");
    h.send("go think");
    h.until("info");
    h.close_input();
    let done = h.until("done").pop().unwrap();
    assert!(done.starts_with("done move="), "{done}");
    assert!(h.child.wait().unwrap().success());
}

/// `set-param name=game` starts a new game: in the same game, back at the
/// start position; in the other, with the limits kept.
#[test]
fn setting_the_game_starts_a_new_game() {
    use engine::Game;
    let mut h = Hub::start();
    h.send(r#"pos pos=start moves="d23""#);
    h.send("set-param name=game value=bushka");
    h.send("level depth=1");
    h.send("go think");
    let done = h.until("done").pop().unwrap();
    let reply = done.strip_prefix("done move=").unwrap();
    let start = engine::bushka::Position::start();
    assert!(start.parse_move(reply).is_ok(), "{reply} after a new game");
    h.send("set-param name=game value=bashnya");
    h.send("go think");
    let lines = h.until("done");
    assert_depth_one(&lines);
    h.quit();
}

/// Moves after a threefold repetition are refused, also when the cycle
/// has captures in it (Bashnya: no piece leaves the board).
#[test]
fn moves_after_a_threefold_repetition_are_refused() {
    let cycle = "a1:d4 e1-g3 d4-f2 g3:e1 b2-e5 e1-d2 e5-a1 f2-e1 a1-b2 d2-c1 b2-a1 c1-b2";
    let mut h = Hub::start();
    h.send("set-param name=game value=bashnya");
    h.send(&format!(
        r#"pos pos="W:a1=W,e1=B,b2=BW" moves="{cycle} {cycle}""#
    ));
    h.send("ping");
    assert_eq!(h.next(), "pong", "24 plies, the start a third time");
    // The game is over, drawn: no move is offered, as when the side to
    // move has none.
    h.send("level depth=2");
    h.send("go think");
    assert_eq!(h.next(), "done");
    // Without a limit, `done` still waits for `stop`.
    h.send("level");
    h.send("go think");
    h.send("ping");
    assert_eq!(h.next(), "pong", "no done before stop");
    h.send("stop");
    assert_eq!(h.next(), "done");
    h.send(&format!(
        r#"pos pos="W:a1=W,e1=B,b2=BW" moves="{cycle} {cycle} a1:d4""#
    ));
    let l = h.next();
    assert_eq!(
        l,
        r#"error message="move 25 (a1:d4): the game had already ended, drawn by threefold repetition""#
    );
    h.send("set-param name=game value=bushka");
    h.send(r#"pos pos="W:WKe1:BKa5" moves="e12 a56 e21 a65 e12 a56 e21 a65 e12""#);
    let l = h.next();
    assert!(
        l.starts_with("error message=\"move 9 (e12): the game had"),
        "{l}"
    );
    h.quit();
}

/// A game switch or a new hash size never holds two tables at once: with
/// the address space limited to 1 GiB, a 600 MiB table can be had once but
/// not twice, and the hub still switches games, searches, switches back and
/// takes a 700 MiB table.
#[test]
fn a_game_switch_does_not_need_two_tables() {
    let mut h = Hub::start_limited(1 << 20);
    h.send("set-param name=hash value=600");
    h.send("ping");
    assert_eq!(h.next(), "pong");
    for game in ["bashnya", "bushka"] {
        h.send(&format!("set-param name=game value={game}"));
        h.send("ping");
        assert_eq!(h.next(), "pong", "{game}");
        h.send("level depth=1");
        h.send("go think");
        let lines = h.until("done");
        assert!(lines.iter().all(|l| !l.starts_with("error")), "{lines:?}");
        let done = lines.last().unwrap();
        assert!(done.starts_with("done move="), "{game}: {done}");
        // The move is one of this game's: the switch took place.
        let mv = done
            .trim_start_matches("done move=")
            .split(' ')
            .next()
            .unwrap();
        assert_eq!(
            mv.contains('-') || mv.contains(':'),
            game == "bashnya",
            "{done}"
        );
    }
    // Another size gives back the old table first too: 700 after 600.
    h.send("set-param name=hash value=700");
    h.send("ping");
    assert_eq!(h.next(), "pong");
    // A table beyond the limit is still refused in one line, the old size
    // comes back, and the hub goes on searching.
    h.send("set-param name=hash value=1200");
    let l = h.next();
    assert!(l.starts_with("error message=") && l.contains("hash"), "{l}");
    h.send("go think");
    let lines = h.until("done");
    assert!(lines.iter().all(|l| !l.starts_with("error")), "{lines:?}");
}

/// Without room for its default table (the address space limited to about
/// 58 MiB), the engine starts with its smallest, says at `init` in a
/// protocol `error` line that the default cannot be had, answers `ready`
/// and keeps the smallest (its `hash` parameter says so); a `go` it cannot
/// start still gets its `done`. No panic, and `quit` exits cleanly.
#[test]
fn a_hub_without_room_for_its_table_says_so_and_goes_on() {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 60000 && exec \"$0\" hub")
        .arg(env!("CARGO_BIN_EXE_bushka"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .as_mut()
        .unwrap()
        .write_all(b"init\nhub\nlevel depth=1\ngo think\nquit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("error message=") && lines[0].contains("64 MiB"),
        "{stdout}"
    );
    assert_eq!(lines[1], "ready", "{stdout}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("param name=hash value=1 ")),
        "{stdout}"
    );
    assert!(lines.iter().any(|l| l.starts_with("done")), "{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
