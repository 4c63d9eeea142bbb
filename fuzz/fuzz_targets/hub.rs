//! Hub protocol sessions: each input is a whole script of lines, read by
//! the hub's line reader, fed to one hub. Searches are kept tiny so no input can hang the target: a `level`
//! that could search long is followed by `level nodes=200`, a game switch
//! (which keeps the limits) by the last safe level all the same, and hash,
//! threads, weights and tb values are bounded (the protocol allows 64 GB
//! tables, and weights or tables named by path are read from disk).
#![no_main]

use engine::hub::{next_line, tokenize, Hub, Output};
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// Lines of one script.
const MAX_LINES: usize = 256;
/// The level that every search is held to when the script asks for more.
const SAFE_LEVEL: &str = "level nodes=200";
/// Puts the hub back in its starting state (small table, one thread).
const RESET: [&str; 7] = [
    "stop",
    "set-param name=hash value=1",
    "set-param name=threads value=1",
    "set-param name=tb value=none",
    "set-param name=game value=bashnya",
    "set-param name=game value=bushka",
    SAFE_LEVEL,
];

type Sink = Arc<Mutex<Vec<u8>>>;

thread_local! {
    /// One hub for the whole run (a new one allocates a 64 MB table); it is
    /// reset before every script.
    static HUB: RefCell<Option<(Hub, Sink)>> = const { RefCell::new(None) };
}

/// True when a `level` line leaves the search bounded by a few hundred nodes
/// or a tiny depth (the last value of a key wins, as in the hub).
fn safe_level(args: &[(String, Option<String>)]) -> bool {
    let (mut nodes, mut depth) = (None, None);
    for (k, v) in args {
        match (k.as_str(), v.as_deref()) {
            ("nodes", Some(v)) => nodes = v.parse::<u64>().ok(),
            ("depth", Some(v)) => depth = v.parse::<u64>().ok(),
            _ => {}
        }
    }
    nodes.is_some_and(|n| n <= 2000) || depth.is_some_and(|d| d <= 3)
}

/// The lines actually sent for one script line.
fn sanitize(line: &str, level: &mut String) -> Vec<String> {
    let Ok((cmd, args)) = tokenize(line) else {
        return vec![line.to_string()];
    };
    let get = |k: &str| {
        args.iter()
            .find(|(key, _)| key == k)
            .and_then(|(_, v)| v.clone())
    };
    match cmd.as_str() {
        "level" => {
            if safe_level(&args) {
                *level = line.to_string();
                vec![line.to_string()]
            } else {
                *level = SAFE_LEVEL.to_string();
                vec![line.to_string(), SAFE_LEVEL.to_string()]
            }
        }
        "set-param" => {
            let (name, value) = (get("name").unwrap_or_default(), get("value"));
            let bounded = |cap: usize| match value.as_deref().map(str::parse::<usize>) {
                Some(Ok(v)) if v >= 1 => {
                    vec![format!("set-param name={name} value={}", v.min(cap))]
                }
                _ => vec![line.to_string()],
            };
            match name.as_str() {
                "hash" => bounded(4),
                "threads" => bounded(3),
                "weights" => {
                    let v = value.unwrap_or_default();
                    let v = match v.as_str() {
                        "default" | "material" => v,
                        _ if v.len() % 2 == 0 => {
                            concat!(env!("CARGO_MANIFEST_DIR"), "/../data/weights/bushka.json")
                                .to_string()
                        }
                        _ => "/nonexistent/weights.json".to_string(),
                    };
                    vec![format!(
                        "set-param name=weights value={}",
                        engine::hub::quote(&v)
                    )]
                }
                "tb" => {
                    // Endgame tables are read from a folder: never a real one.
                    let v = value.unwrap_or_default();
                    let v = if v.is_empty() || v == "none" {
                        v
                    } else {
                        "/nonexistent/tb".to_string()
                    };
                    vec![format!(
                        "set-param name=tb value={}",
                        engine::hub::quote(&v)
                    )]
                }
                // A game switch keeps the limits; bound them again all the same.
                _ => vec![line.to_string(), level.clone()],
            }
        }
        _ => vec![line.to_string()],
    }
}

fuzz_target!(|data: &[u8]| {
    // The script's lines as the hub's input thread reads them: line breaks,
    // a carriage return before one, lines that are not UTF-8 (one error
    // each, in one line, the input read past them).
    let mut input = std::io::Cursor::new(data);
    let mut script = Vec::new();
    while script.len() < MAX_LINES {
        match next_line(&mut input) {
            Ok(None) => break,
            Ok(Some(line)) => {
                assert!(!line.contains('\n'), "a line holds its break: {line:?}");
                script.push(line);
            }
            Err(e) => {
                assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e}");
                fuzz_support::assert_one_line(&e.to_string());
            }
        }
    }
    HUB.with(|cell| {
        let mut cell = cell.borrow_mut();
        let (hub, sink) = cell.get_or_insert_with(|| {
            let sink: Sink = Arc::new(Mutex::new(Vec::new()));
            let out: Output = sink.clone();
            (Hub::new(out).expect("the hub's default table"), sink)
        });
        for line in RESET {
            assert!(hub.handle(line));
        }
        let mut level = SAFE_LEVEL.to_string();
        'script: for raw in &script {
            for line in sanitize(raw, &mut level) {
                if !hub.handle(&line) {
                    break 'script;
                }
            }
        }
        // Wait for a running search; `quit` has already stopped it.
        hub.handle("stop");
        let mut out = sink.lock().unwrap_or_else(|e| e.into_inner());
        let text = String::from_utf8_lossy(&out);
        for l in text.split_terminator('\n') {
            assert!(
                !l.contains('\r'),
                "a carriage return in a protocol line: {l:?}"
            );
            let word = l.split(' ').next().unwrap_or("");
            if word == "error" {
                // Whatever an error quotes is escaped and cut.
                fuzz_support::assert_one_line(l);
                assert!(l.len() < 2000, "a long error line: {} bytes", l.len());
            }
            assert!(
                ["id", "param", "wait", "ready", "pong", "info", "done", "error"].contains(&word),
                "unexpected protocol output line: {l}"
            );
        }
        out.clear();
    });
});
