//! The page in headless Chromium, driven through WebDriver (chromedriver):
//! whole games by clicks against the engine, a PDN replay, an error shown.
//!
//! Needs Debian's `chromium` and `chromium-driver`; without them each test
//! says why and passes, except under `CI=true`, where it fails.

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use web::{router, AppState};

const CHROMIUMS: [&str; 2] = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A page in a browser, with the server and chromedriver it needs.
pub struct Browser {
    /// The WebDriver session.
    pub client: Client,
    /// The page's address.
    pub base: String,
    /// The server's state (its sessions).
    pub state: std::sync::Arc<AppState>,
    _driver: Driver,
    _profile: tempfile::TempDir,
}

/// Chromedriver in a process group of its own, which holds the browser it
/// starts, under a shell that leads the group: the shell waits for the
/// driver, and ends the whole group when its input closes, which it does
/// when this test process ends, however it ends (a kill, a Ctrl-C that
/// reaches only the terminal's group). Dropped (a test's end, a panic
/// anywhere after the start), the group is asked to end, then made to,
/// and waited for, so that the browser has gone before its profile folder
/// is removed.
struct Driver {
    shell: Child,
    /// The shell's input, open while the test runs.
    _input: Option<std::process::ChildStdin>,
}

impl Driver {
    /// The driver's process group (the shell's id).
    fn group(&self) -> String {
        format!("-{}", self.shell.id())
    }

    /// Sends `signal` to the whole group; whether any process took it.
    fn signal(&self, signal: &str) -> bool {
        Command::new("kill")
            .args([signal, "--", &self.group()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The shell is reaped only at the end: until then the group's id
        // cannot be taken by another process, so every signal is ours.
        let group = self.shell.id();
        let ended = |within: Duration| {
            let t = Instant::now();
            while live_in_group(group) && t.elapsed() < within {
                std::thread::sleep(Duration::from_millis(20));
            }
        };
        self.signal("-TERM");
        ended(Duration::from_secs(5));
        self.signal("-KILL");
        ended(Duration::from_secs(2));
        let _ = self.shell.wait();
    }
}

/// Whether a process of group `group` still runs (a zombie, which only
/// waits to be reaped, does not count).
fn live_in_group(group: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|e| {
        std::fs::read_to_string(e.path().join("stat"))
            .ok()
            .and_then(|stat| {
                // After the name: state, parent, group.
                let rest = stat.rsplit_once(") ")?.1.to_string();
                let mut fields = rest.split(' ');
                let state = fields.next()?.to_string();
                let pgrp = fields.nth(1)?.parse::<u32>().ok()?;
                Some(pgrp == group && state != "Z")
            })
            .unwrap_or(false)
    })
}

/// The browser and driver binaries, or why the test cannot run.
fn tools() -> Result<(&'static str, &'static str), String> {
    let chromium = CHROMIUMS
        .into_iter()
        .find(|p| Path::new(p).exists())
        .ok_or("chromium is not installed (apt-get install chromium)")?;
    if !Path::new(CHROMEDRIVER).exists() {
        return Err("chromedriver is not installed (apt-get install chromium-driver)".into());
    }
    Ok((chromium, CHROMEDRIVER))
}

/// A port nobody listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl Browser {
    /// Starts the server (watching `watch`), chromedriver and a headless
    /// Chromium at the page; `None` (after saying why) when the tools are
    /// missing outside CI.
    pub async fn start(watch: Option<web::watch::WatchFiles>) -> Option<Browser> {
        let (chromium, driver_bin) = match tools() {
            Ok(t) => t,
            Err(why) if std::env::var("CI").is_ok_and(|v| v == "true") => {
                panic!("browser tests cannot run under CI=true: {why}")
            }
            Err(why) => {
                eprintln!("skipped: {why}");
                return None;
            }
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}/", listener.local_addr().unwrap());
        let state = AppState::new(watch);
        let served = std::sync::Arc::clone(&state);
        tokio::spawn(async move { axum::serve(listener, router(served)).await });
        // The profile folder holds the browser's temporary files too, so
        // that they go with it (declared first, it is removed last).
        let profile = tempfile::tempdir().unwrap();
        let scratch = profile.path().join("tmp");
        std::fs::create_dir(&scratch).unwrap();
        let (driver, port) = spawn_driver(driver_bin, &scratch);
        let t = Instant::now();
        let client = connect(chromium, port, profile.path()).await;
        eprintln!("browser up in {:?}", t.elapsed());
        let b = Browser {
            client,
            base,
            state,
            _driver: driver,
            _profile: profile,
        };
        let t = Instant::now();
        b.client.goto(&b.base).await.unwrap();
        b.wait("document.body.dataset.ready === 'true'").await;
        eprintln!("page ready in {:?}", t.elapsed());
        Some(b)
    }

    /// Waits (up to 15 s) until the script expression is true; returns it.
    pub async fn wait(&self, condition: &str) -> Value {
        let start = Instant::now();
        loop {
            let v = self
                .client
                .execute(&format!("return ({condition});"), vec![])
                .await
                .unwrap();
            if v.as_bool() != Some(false) && !v.is_null() {
                return v;
            }
            assert!(
                start.elapsed() < Duration::from_secs(15),
                "timed out waiting for {condition}; status: {}",
                self.text("status").await
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Evaluates a script expression.
    pub async fn eval(&self, expr: &str) -> Value {
        self.client
            .execute(&format!("return ({expr});"), vec![])
            .await
            .unwrap()
    }

    /// The text of the element with this id.
    pub async fn text(&self, id: &str) -> String {
        match self.client.find(Locator::Id(id)).await {
            Ok(e) => e.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// Clicks the element the CSS selector finds.
    pub async fn click(&self, css: &str) {
        self.client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{css}: {e}"))
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {css}: {e}"));
    }

    /// Clicks a square of the board (the piece on it, when there is one).
    /// The board is redrawn when the page hears from the server, so an
    /// element found just before may be gone when clicked, and none may be
    /// found while the board is being replaced: it is then looked for again
    /// (for a second at most).
    pub async fn click_square(&self, name: &str) {
        let css = format!("#board [data-square='{name}']");
        let mut last_error = String::new();
        for _ in 0..20 {
            let hits = self.client.find_all(Locator::Css(&css)).await.unwrap();
            let Some(target) = hits.last() else {
                last_error = format!("no square {name}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            match target.click().await {
                Ok(()) => return,
                Err(e) if e.to_string().contains("stale element") => {
                    last_error = e.to_string();
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!("click {name}: {e}"),
            }
        }
        panic!("click {name}: {last_error}");
    }

    /// Chooses an option of a `<select>`.
    pub async fn select(&self, id: &str, value: &str) {
        self.click(&format!("#{id} option[value='{value}']")).await;
    }

    /// Starts a new game of `game` from `position` (empty: the start).
    pub async fn new_game(&self, game: &str, position: &str) {
        self.select("game", game).await;
        let input = self.client.find(Locator::Id("position")).await.unwrap();
        input.clear().await.unwrap();
        if !position.is_empty() {
            input.send_keys(position).await.unwrap();
        }
        let before = self.eval("window.app.updates").await;
        self.click("#new").await;
        self.wait(&format!(
            "window.app.state.game === '{game}' && window.app.updates > {before}"
        ))
        .await;
    }

    /// Waits for the human's turn (or the end); plays the legal move that
    /// takes most (the first such) by clicking its from square and each
    /// landing square. Returns false when the game is over.
    pub async fn click_a_move(&self) -> bool {
        self.wait("!window.app.engineBusy && (window.app.state.result !== null || window.app.state.side === document.getElementById('side').value)").await;
        let state = self.eval("window.app.state").await;
        if !state["result"].is_null() {
            return false;
        }
        let legal = state["legal"].as_array().unwrap();
        let mv = legal
            .iter()
            .rev()
            .max_by_key(|m| m["captured"].as_array().unwrap().len())
            .unwrap();
        let ply = state["ply"].as_u64().unwrap();
        self.click_square(mv["from"].as_str().unwrap()).await;
        // Each landing square in turn, until the page has played the move
        // (it does as soon as the squares clicked name one move).
        for sq in mv["path"].as_array().unwrap() {
            let played = self.eval(&format!("window.app.state.ply > {ply}")).await;
            if played == true {
                break;
            }
            self.click_square(sq.as_str().unwrap()).await;
        }
        self.wait(&format!("window.app.state.ply > {ply}")).await;
        let played = self
            .eval(&format!("window.app.state.moves[{ply}].text"))
            .await;
        assert_eq!(played, mv["text"], "the clicks played another move");
        true
    }

    /// Saves a PNG screenshot of the window.
    pub async fn screenshot(&self, path: &Path) {
        let png = self.client.screenshot().await.unwrap();
        std::fs::write(path, png).unwrap();
    }

    /// Closes the browser and stops chromedriver.
    pub async fn finish(self) {
        let _ = self.client.clone().close().await;
        // Dropped here: the browser's process group is ended whether or not
        // the session closed.
    }
}

/// Starts chromedriver on a free port and waits until it listens there,
/// with `scratch` as the temporary folder of it and its browser. A driver
/// that ends at once (another took the port between the choice and the
/// start) is started again on another port.
fn spawn_driver(bin: &str, scratch: &Path) -> (Driver, u16) {
    use std::os::unix::process::CommandExt;
    for _ in 0..5 {
        let port = free_port();
        let mut shell = Command::new("sh")
            .args([
                "-c",
                // A list run in the background reads /dev/null unless told
                // otherwise: the watcher is given the shell's input.
                "exec 3<&0; \"$1\" \"--port=$2\" </dev/null & d=$!; { cat <&3 >/dev/null; kill -TERM 0; } & wait \"$d\"",
                "sh",
                bin,
                &port.to_string(),
            ])
            .env("TMPDIR", scratch)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("chromedriver starts");
        let input = shell.stdin.take();
        let mut driver = Driver {
            shell,
            _input: input,
        };
        let start = Instant::now();
        let mut ended = false;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if driver.shell.try_wait().is_ok_and(|s| s.is_some()) {
                ended = true;
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "chromedriver does not listen"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // The port answered; a driver that could not bind it (another took
        // the port first) ends soon after.
        std::thread::sleep(Duration::from_millis(300));
        if !ended && driver.shell.try_wait().is_ok_and(|s| s.is_none()) {
            return (driver, port);
        }
        eprintln!("chromedriver ended on port {port}; trying another");
    }
    panic!("chromedriver ended five times at start");
}

async fn connect(chromium: &str, port: u16, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1280,860",
        &format!("--user-data-dir={}", profile.display()),
    ];
    let caps = json!({ "goog:chromeOptions": { "binary": chromium, "args": args } });
    let Value::Object(caps) = caps else {
        unreachable!()
    };
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a WebDriver session")
}

/// Plays a game to its end by clicks against the engine at depth 1; returns the result.
async fn play_out(b: &Browser, game: &str, position: &str) -> String {
    b.new_game(game, position).await;
    let mut plies = 0;
    while b.click_a_move().await {
        plies += 1;
        assert!(plies < 60, "{game} game from {position} does not end");
    }
    b.eval("window.app.state.result")
        .await
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn complete_games_by_clicks_against_the_engine() {
    let Some(b) = Browser::start(None).await else {
        return;
    };
    b.select("strength", "depth:1").await;
    // Bushka: the human's quiet move, the engine's forced capture, a linear capture that wins.
    assert_eq!(play_out(&b, "bushka", "W:We1,e6,e7:Be4,e5").await, "1-0");
    b.wait(
        "document.getElementById('status').textContent.includes('Game over: 1-0 (no legal move)')",
    )
    .await;
    assert_eq!(
        b.eval("window.app.state.moves.map(m => m.text).join(' ')")
            .await,
        "e12 e5x3 e7x5"
    );
    // Bashnya: two double jumps part at e5, so the page waits for the third
    // square; c3:e5:g7 takes the tops of two columns into the capturer's
    // column, the engine's only move takes that top back from behind (a man
    // captures backwards), freeing the two black men beneath it, and White
    // has no column left: 0-1 whatever the evaluation.
    b.new_game("bashnya", "W:c3=w,d4=b,f6=b,d6=b,h6=b").await;
    b.click_square("c3").await;
    b.click_square("e5").await;
    let targets = "[...document.querySelectorAll('#board .sq.tgt')].map(g => g.dataset.square).sort().join(' ')";
    assert_eq!(b.eval(targets).await, "c7 g7");
    assert_eq!(b.eval("window.app.state.ply").await, 0);
    b.click_square("g7").await;
    b.wait("window.app.state.ply > 0").await;
    assert!(!b.click_a_move().await, "White has no move left");
    assert_eq!(b.eval("window.app.state.result").await, "0-1");
    b.wait(
        "document.getElementById('status').textContent.includes('Game over: 0-1 (no legal move)')",
    )
    .await;
    assert_eq!(
        b.eval("window.app.state.moves.map(m => m.text).join(' ')")
            .await,
        "c3:e5:g7 h6:f8"
    );
    assert_eq!(
        b.eval("document.querySelectorAll('#moves span').length")
            .await,
        2
    );
    b.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_from_the_start_by_clicks() {
    let Some(b) = Browser::start(None).await else {
        return;
    };
    b.select("strength", "depth:1").await;
    for game in ["bushka", "bashnya"] {
        b.new_game(game, "").await;
        for _ in 0..3 {
            assert!(b.click_a_move().await);
        }
        b.wait("window.app.state.ply === 6 && !window.app.engineBusy")
            .await;
        assert_eq!(
            b.eval("document.querySelectorAll('#moves span').length")
                .await,
            6
        );
        // Undo takes back the engine's reply and the human's move.
        b.click("#undo").await;
        b.wait("window.app.state.ply === 4").await;
    }
    b.finish().await;
}

/// Types a move into the move box and waits until it is played.
async fn type_move(b: &Browser, mv: &str) {
    let ply = b.eval("window.app.state.ply").await;
    let el = b.client.find(Locator::Id("move-text")).await.unwrap();
    el.send_keys(&format!("{mv}\n")).await.unwrap();
    b.wait(&format!("window.app.state.ply > {ply}")).await;
}

fn write_temp(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const TWO_GAMES: &str = "[White \"alpha\"]\n[Black \"beta\"]\n[Result \"1-0\"]\n[GameType \"bushka\"]\n[FEN \"W:We1,e6,e7:Be4,e5\"]\n\n1. e12 e5x3 2. e7x5 1-0\n\n\
[White \"beta\"]\n[Black \"alpha\"]\n[Result \"*\"]\n[GameType \"bashnya\"]\n\n1. c3-d4 f6-e5 2. d4:f6 g7:e5 *\n\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pdn_file_replays_with_buttons_and_keys() {
    let Some(b) = Browser::start(None).await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = write_temp(dir.path(), "two.pdn", TWO_GAMES);
    let input = b.client.find(Locator::Id("pdn-file")).await.unwrap();
    input.send_keys(&file.display().to_string()).await.unwrap();
    b.wait(
        "window.app.state.game === 'bushka' && window.app.state.ply === 3 && window.app.view === 0",
    )
    .await;
    assert!(b.text("status").await.starts_with("Replay: ply 0 of 3"));
    assert_eq!(
        b.eval("document.querySelectorAll('#pdn-games tr').length")
            .await,
        2
    );
    b.click("#next").await;
    b.click("#next").await;
    b.wait("window.app.view === 2").await;
    // The capture of ply 2 is marked on the board.
    b.wait("document.querySelectorAll('#board .cx').length === 1")
        .await;
    let body = b.client.find(Locator::Css("body")).await.unwrap();
    body.send_keys("\u{E014}").await.unwrap(); // Right arrow
    b.wait("window.app.view === 3").await;
    body.send_keys("\u{E011}").await.unwrap(); // Home
    b.wait("window.app.view === 0").await;
    b.click("#last").await;
    b.wait("window.app.view === 3 && document.getElementById('status').textContent.startsWith('Game over: 1-0')").await;
    b.click("#pdn-games tr[data-index='1']").await;
    b.wait("window.app.state.game === 'bashnya' && window.app.view === 0 && window.app.state.ply === 4").await;
    body.send_keys("\u{E010}").await.unwrap(); // End
                                               // The view changes before the move list is drawn: wait for both.
    b.wait("window.app.view === 4 && document.querySelector('#moves .now') !== null")
        .await;
    assert_eq!(
        b.eval("document.querySelector('#moves .now').textContent")
            .await,
        "g7:e5"
    );
    b.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_request_shows_its_message() {
    let Some(b) = Browser::start(None).await else {
        return;
    };
    let input = b.client.find(Locator::Id("move-text")).await.unwrap();
    input.send_keys("zz9\n").await.unwrap();
    let shown = b
        .wait("!document.getElementById('error').hidden && document.getElementById('error').textContent")
        .await;
    assert!(
        shown.as_str().unwrap().contains("cannot read move 'zz9'"),
        "{shown}"
    );
    b.select("game", "bashnya").await;
    let pos = b.client.find(Locator::Id("position")).await.unwrap();
    pos.send_keys("W:z9=w").await.unwrap();
    b.click("#new").await;
    let shown = b
        .wait("document.getElementById('error').textContent.includes('position text')")
        .await;
    assert_eq!(shown, true);
    assert!(
        b.text("error").await.contains("unknown square 'z9'"),
        "{}",
        b.text("error").await
    );
    b.finish().await;
}

/// A new game started while the engine thinks (as White, on five seconds a
/// move) ends that search quietly and asks the engine again in the new
/// game, which it then opens; Stop makes it move at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_game_while_the_engine_thinks_asks_it_again() {
    let Some(b) = Browser::start(None).await else {
        return;
    };
    b.select("strength", "movetime:5000").await;
    b.select("side", "black").await;
    b.new_game("bashnya", "").await;
    b.wait("window.app.engineBusy === true").await;
    let before = b.eval("window.app.updates").await;
    b.click("#new").await;
    b.wait(&format!("window.app.updates > {before}")).await;
    // The new game ended the first search (its request gets a 409); the
    // page asks again, and the server starts a second search.
    let id = b.eval("window.app.session").await;
    let id = id.as_str().unwrap().to_string();
    let mut searching = false;
    for _ in 0..1500 {
        searching = b
            .state
            .sessions
            .with(&id, |s| Ok(s.search.is_some()))
            .unwrap();
        if searching {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(searching, "the engine was not asked again");
    assert_eq!(b.eval("window.app.state.ply").await, 0);
    b.click("#stop").await;
    b.wait("window.app.engineBusy === false && window.app.state.ply === 1")
        .await;
    assert_eq!(b.text("error").await, "", "no error shown");
    // The move came from the stop, not from the five seconds running out.
    let thought = b.eval("window.app.lastInfo.time_ms").await;
    assert!(thought.as_f64().is_some_and(|t| t < 4000.0), "{thought}");
    b.finish().await;
}

/// Analyse pressed while the engine thinks does not end the engine's
/// search (the engine moves, no error shows); the analysis starts once it
/// is the human's turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyse_while_the_engine_thinks_waits_for_its_move() {
    let Some(b) = Browser::start(None).await else {
        return;
    };
    b.select("strength", "movetime:1000").await;
    b.select("side", "black").await;
    b.new_game("bushka", "").await;
    b.wait("window.app.engineBusy === true").await;
    b.click("#analyse").await;
    assert_eq!(b.eval("window.app.source === null").await, true);
    b.wait("window.app.engineBusy === false && window.app.state.ply === 1")
        .await;
    assert_eq!(b.text("error").await, "", "no error shown");
    b.wait("window.app.source !== null && window.app.source.url.endsWith('ply=1')")
        .await;
    b.finish().await;
}

/// In a replay the analysis follows the position shown, a typed move is
/// refused with the reason (the board shows an earlier ply), and a Bushka
/// double capture is played by clicking its two landing squares.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_analysis_typed_moves_and_a_double_capture() {
    let Some(b) = Browser::start(None).await else {
        return;
    };
    b.select("mode", "human").await;
    b.new_game("bashnya", "").await;
    type_move(&b, "c3-d4").await;
    type_move(&b, "f6-e5").await;
    b.click("#analyse").await;
    b.wait("window.app.source !== null && window.app.source.url.endsWith('ply=2')")
        .await;
    b.click("#first").await;
    b.wait("window.app.view === 0 && window.app.source !== null && window.app.source.url.endsWith('ply=0')")
        .await;
    let el = b.client.find(Locator::Id("move-text")).await.unwrap();
    el.send_keys("d4:f6\n").await.unwrap();
    let shown = b
        .wait("!document.getElementById('error').hidden && document.getElementById('error').textContent")
        .await;
    assert!(
        shown
            .as_str()
            .unwrap()
            .starts_with("the board shows ply 0 of 2"),
        "{shown}"
    );
    assert_eq!(b.eval("window.app.state.ply").await, 2);
    b.click("#analyse").await;
    b.new_game("bushka", "W:Wg3:Be3,f5").await;
    for sq in ["g3", "f3", "f4"] {
        b.click_square(sq).await;
    }
    b.wait("window.app.state.ply === 1").await;
    assert_eq!(b.eval("window.app.state.moves[0].text").await, "g3f4x");
    b.finish().await;
}

/// A tab opened as a copy of another (its sessionStorage copied, the
/// session id with it) gets the same game in a session of its own; a game
/// the server has ended (idle too long) is set up again from the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copied_tab_and_an_ended_session_keep_their_games() {
    let Some(b) = Browser::start(None).await else {
        return;
    };
    b.select("mode", "human").await;
    b.new_game("bashnya", "").await;
    type_move(&b, "c3-d4").await;
    let first = b.eval("window.app.session").await;
    let first_window = b.client.window().await.unwrap();
    b.eval("window.open(location.href) !== null").await;
    let windows = b.client.windows().await.unwrap();
    let copy = windows
        .into_iter()
        .find(|w| *w != first_window)
        .expect("the opened tab");
    b.client.switch_to_window(copy).await.unwrap();
    b.wait("document.body.dataset.ready === 'true' && window.app.state !== null")
        .await;
    // (The copy's own mode is the default, play the engine, so its engine
    // may already be answering c3-d4 in its own session.)
    assert_eq!(b.eval("window.app.state.moves[0].text").await, "c3-d4");
    assert_ne!(
        b.eval("window.app.session").await,
        first,
        "the copy shares the session"
    );
    b.client.close_window().await.unwrap();
    b.client.switch_to_window(first_window).await.unwrap();
    assert_eq!(b.eval("window.app.session").await, first);
    // The server ends every session; the next move finds the game gone.
    b.state.sessions.sweep(Duration::ZERO);
    let el = b.client.find(Locator::Id("move-text")).await.unwrap();
    el.send_keys("f6-e5\n").await.unwrap();
    let shown = b
        .wait("document.getElementById('error').textContent.includes('set up again') && document.getElementById('error').textContent")
        .await;
    assert!(
        shown
            .as_str()
            .unwrap()
            .starts_with("the server had ended this game"),
        "{shown}"
    );
    assert_ne!(b.eval("window.app.session").await, first);
    assert_eq!(b.eval("window.app.state.ply").await, 1);
    el.clear().await.unwrap();
    type_move(&b, "f6-e5").await;
    assert_eq!(b.eval("window.app.state.ply").await, 2);
    b.finish().await;
}

/// The screenshots in docs/web/, made again by
/// `cargo test -p bushka-web --test web -- --ignored screenshots`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "writes docs/web/*.png; run with: cargo test -p bushka-web --test web -- --ignored screenshots"]
async fn screenshots() {
    let Some(b) = Browser::start(None).await else {
        return;
    };
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/web");
    std::fs::create_dir_all(&docs).unwrap();
    b.select("mode", "human").await;
    b.new_game("bushka", "").await;
    b.screenshot(&docs.join("bushka-start.png")).await;
    b.new_game("bashnya", "").await;
    b.screenshot(&docs.join("bashnya-start.png")).await;
    // A middle game of column draughts (depth-4 self-play, ply 23), then
    // the capture that makes its tallest column: last move and taken piece marked.
    b.new_game(
        "bashnya",
        "B:a1=w,c1=w,e1=w,g1=w,b2=w,f2=wb,h2=w,a3=w,c3=w,e3=ww,d6=wbbbb,f6=b,h6=b,c7=b,g7=b,b8=b,f8=b,h8=b",
    )
    .await;
    type_move(&b, "c7:e5").await;
    b.screenshot(&docs.join("bashnya-columns.png")).await;
    b.new_game("bushka", "").await;
    for _ in 0..4 {
        let mv = b.eval("window.app.state.legal[2].text").await;
        type_move(&b, mv.as_str().unwrap()).await;
    }
    b.click("#analyse").await;
    b.wait("window.app.lastInfo && window.app.lastInfo.depth >= 10")
        .await;
    b.screenshot(&docs.join("bushka-analysis.png")).await;
    b.finish().await;
}
