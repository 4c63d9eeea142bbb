//! Invariant checks shared by the fuzz targets.
//!
//! Every target feeds arbitrary bytes to one of the engine's readers. A
//! reader may refuse its input with an error; it may never panic, hang or
//! accept something it cannot write back. What is accepted is checked here:
//! text round trips, the incremental hash against the hash from scratch,
//! colour-mirror symmetry, copy-make and the notation of every legal move.

use engine::eval::{Evaluator, Weights};
use engine::{Game, MoveList};
use std::collections::HashSet;

/// Checks that an error message is one line: no line feed, no carriage
/// return, no Unicode line or paragraph separator (a terminal, a log or a
/// page would show each as a break).
pub fn assert_one_line(message: &str) {
    assert!(
        !message.contains(engine::files::LINE_BREAKS),
        "not one line: {message:?}"
    );
}

/// A fresh folder of this fuzz process for one input, named after `what`,
/// in memory when the machine has `/dev/shm`.
// Used by the targets that write files; the engine's regression tests,
// which include this file, do not.
#[allow(dead_code)]
pub fn input_dir(what: &str) -> std::path::PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        std::path::PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("bushka-fuzz-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    dir
}

/// Most move texts tried against one position per input.
pub const MAX_MOVE_LINES: usize = 64;

/// The Zobrist hash kept by the position.
fn zob<G: Game>(p: &G) -> u64 {
    <G as Game>::hash(p)
}

/// Checks every invariant of one position and of each position one move on.
pub fn check_position<G: Game>(p: &G) {
    let before = *p;
    let text = p.to_text();
    let back = G::parse_position(&text)
        .unwrap_or_else(|e| panic!("the position's own text '{text}' is refused: {e}"));
    assert_eq!(back.to_text(), text, "text round trip");
    assert_eq!(zob(&back), zob(p), "hash after a text round trip of {text}");
    assert_eq!(zob(p), p.hash_from_scratch(), "incremental hash of {text}");
    let m = p.mirror();
    assert_eq!(
        zob(&m),
        m.hash_from_scratch(),
        "hash of the mirror of {text}"
    );
    assert_eq!(m.mirror().to_text(), text, "mirror twice of {text}");
    assert_eq!(m.side_to_move(), p.side_to_move().opponent());

    let mut list = MoveList::new();
    p.generate(&mut list);
    assert_eq!(p.count_moves(), list.len() as u64, "count_moves of {text}");
    assert_eq!(
        m.count_moves(),
        list.len() as u64,
        "mirror move count of {text}"
    );
    let capture = list.iter().any(G::is_capture);
    assert_eq!(p.must_capture(), capture, "must_capture of {text}");
    let leaf = (!capture).then_some(!list.is_empty());
    assert_eq!(p.quiet_moves_exist(), leaf, "quiet_moves_exist of {text}");

    let mut results = HashSet::new();
    for mv in &list {
        let t = p.move_text(mv);
        match p.parse_move(&t) {
            Ok(parsed) => assert_eq!(parsed, *mv, "'{t}' names another move in {text}"),
            Err(e) => panic!("the notation '{t}' of a legal move is refused in {text}: {e}"),
        }
        let next = p.play(mv);
        assert_eq!(*p, before, "play changed the position {text}");
        assert_eq!(next.side_to_move(), p.side_to_move().opponent());
        assert_eq!(
            zob(&next),
            next.hash_from_scratch(),
            "hash after {t} in {text}"
        );
        let next_text = next.to_text();
        assert!(
            G::parse_position(&next_text).is_ok(),
            "position after {t} in {text} is refused: {next_text}"
        );
        assert!(
            results.insert(next_text),
            "two moves of {text} give the same position ({t})"
        );
    }
    assert_eq!(p.to_text(), text, "generation changed the position");
}

/// A position text on the first line, move texts on the others: the texts
/// are read against the position (or the start when it does not parse).
pub fn check_text<G: Game>(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = s.split('\n');
    let first = lines.next().unwrap_or("");
    let p = match G::parse_position(first) {
        Ok(p) => {
            check_position(&p);
            p
        }
        Err(e) => {
            assert_one_line(&e.to_string());
            G::start()
        }
    };
    let mut list = MoveList::new();
    p.generate(&mut list);
    for line in lines.take(MAX_MOVE_LINES) {
        match p.parse_move(line) {
            Ok(mv) => {
                assert!(
                    list.contains(&mv),
                    "'{line}' parsed to a move that is not legal"
                );
                let t = p.move_text(&mv);
                assert_eq!(p.parse_move(&t).ok(), Some(mv), "round trip of '{line}'");
                check_position(&p.play(&mv));
            }
            Err(e) => assert_one_line(&e.to_string()),
        }
    }
}

/// Evaluation invariants of weights that were accepted: a colour-mirrored
/// position gets the same score for its side to move.
pub fn check_weights(w: &Weights) {
    engine::with_game!(w.kind(), G => eval_symmetry::<G>(w));
}

/// Checks that `w` scores each position of a short game as its colour
/// mirror.
pub fn eval_symmetry<G: Game>(w: &(impl Evaluator<G> + ?Sized)) {
    let mut p = G::start();
    let mut list = MoveList::new();
    // A short deterministic game: the first legal move, then the last, ...
    for ply in 0..40 {
        let e = w.evaluate(&p);
        assert_eq!(
            e,
            w.evaluate(&p.mirror()),
            "mirror evaluation of {}",
            p.to_text()
        );
        p.generate(&mut list);
        if list.is_empty() {
            break;
        }
        let i = if ply % 2 == 0 { 0 } else { list.len() - 1 };
        p = p.play(&list[i]);
    }
}

/// A weights file as the commands load it (`--weights`, `weights=`, the
/// hub's `weights`): under each `--eval` choice, `select_eval` refuses it in
/// one line or gives an evaluator that scores positions as their colour
/// mirrors, and a file that loads has a one-line id (`eval_id`).
pub fn check_weights_file<G: engine::eval::Patterns>(path: &str)
where
    engine::eval::Material: Evaluator<G>,
{
    use engine::eval::{eval_id, select_eval, EvalKind};
    for kind in [EvalKind::Auto, EvalKind::Features, EvalKind::Patterns] {
        match select_eval::<G>(Some(path), kind) {
            Ok(eval) => {
                eval_symmetry::<G>(&*eval);
                let id = eval_id::<G>(Some(path), kind).expect("a loaded file has an id");
                assert_one_line(&id);
            }
            Err(e) => assert_one_line(&e),
        }
    }
}

/// The sink a fuzzed hub writes its protocol lines to.
pub type HubSink = std::sync::Arc<std::sync::Mutex<Vec<u8>>>;

/// Lines of one hub script.
const MAX_HUB_LINES: usize = 256;
/// The level that every search is held to when a script asks for more.
const SAFE_LEVEL: &str = "level nodes=200";
/// Puts a hub back in its starting state (small table, one thread).
const HUB_RESET: [&str; 7] = [
    "stop",
    "set-param name=hash value=1",
    "set-param name=threads value=1",
    "set-param name=tb value=none",
    "set-param name=game value=bashnya",
    "set-param name=game value=bushka",
    SAFE_LEVEL,
];

/// A hub writing into a new sink, as the `hub` target and its corpus replay
/// use it (one per process: each allocates the default table).
pub fn new_hub() -> (engine::hub::Hub, HubSink) {
    let sink: HubSink = Default::default();
    let out: engine::hub::Output = sink.clone();
    (
        engine::hub::Hub::new(out).expect("the hub's default table"),
        sink,
    )
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

/// The lines actually sent for one script line: searches are kept tiny so
/// no input can hang the target (a `level` that could search long is
/// followed by `level nodes=200`, a game switch, which keeps the limits, by
/// the last safe level all the same), and hash, threads, weights and tb
/// values are bounded (the protocol allows 64 GB tables, and weights or
/// tables named by path are read from disk).
fn sanitize_hub_line(line: &str, level: &mut String) -> Vec<String> {
    use engine::hub::{quote, tokenize};
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
                    vec![format!("set-param name=weights value={}", quote(&v))]
                }
                "tb" => {
                    // Endgame tables are read from a folder: never a real one.
                    let v = value.unwrap_or_default();
                    let v = if v.is_empty() || v == "none" {
                        v
                    } else {
                        "/nonexistent/tb".to_string()
                    };
                    vec![format!("set-param name=tb value={}", quote(&v))]
                }
                // A game switch keeps the limits; bound them again all the same.
                _ => vec![line.to_string(), level.clone()],
            }
        }
        _ => vec![line.to_string()],
    }
}

/// One hub session (the `hub` target): `data` is a whole script of lines,
/// read by the hub's line reader (line breaks, a carriage return before one,
/// lines that are not UTF-8: one error each, in one line, the input read
/// past them), bounded (`sanitize_hub_line`) and fed to `hub` after a reset.
/// Every line the hub writes is a protocol line, and every error one short
/// line. Returns the number of script lines.
pub fn check_hub_script(hub: &mut engine::hub::Hub, sink: &HubSink, data: &[u8]) -> usize {
    let mut input = std::io::Cursor::new(data);
    let mut script = Vec::new();
    while script.len() < MAX_HUB_LINES {
        match engine::hub::next_line(&mut input) {
            Ok(None) => break,
            Ok(Some(line)) => {
                assert!(!line.contains('\n'), "a line holds its break: {line:?}");
                script.push(line);
            }
            Err(e) => {
                assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e}");
                assert_one_line(&e.to_string());
            }
        }
    }
    for line in HUB_RESET {
        assert!(hub.handle(line));
    }
    let mut level = SAFE_LEVEL.to_string();
    'script: for raw in &script {
        for line in sanitize_hub_line(raw, &mut level) {
            if !hub.handle(&line) {
                break 'script;
            }
        }
    }
    // Wait for a running search; `quit` has already stopped it.
    hub.handle("stop");
    let mut out = sink
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let text = String::from_utf8_lossy(&out);
    for l in text.split_terminator('\n') {
        assert!(
            !l.contains('\r'),
            "a carriage return in a protocol line: {l:?}"
        );
        let word = l.split(' ').next().unwrap_or("");
        if word == "error" {
            // Whatever an error quotes is escaped and cut.
            assert_one_line(l);
            assert!(l.len() < 2000, "a long error line: {} bytes", l.len());
        }
        assert!(
            ["id", "param", "wait", "ready", "pong", "info", "done", "error"].contains(&word),
            "unexpected protocol output line: {l}"
        );
    }
    out.clear();
    script.len()
}

/// Largest endgame table made per input, in positions per side.
const MAX_TB_POSITIONS: u64 = 1 << 16;

/// Endgame-table files (the `tb_file` target): arbitrary bytes through the
/// file check (a file that passes has exactly its header's size), then a
/// file made whole from the input (a small material from its first bytes,
/// the data cycled from the rest, the right checksum) must pass, lose its
/// pass with one byte changed, and give a table whose indices and positions
/// map onto each other. Returns whether the input passed the file check as
/// it was.
pub fn check_tb_file(data: &[u8]) -> bool {
    use engine::bushka::tb::{decode, encode, file, Indexer, Material, Table};
    use engine::Color;
    let passed = match file::check("fuzz.tb", data) {
        Ok((_, per_side)) => {
            assert_eq!(data.len() as u64, 2 * per_side + file::HEADER as u64 + 8);
            true
        }
        Err(e) => {
            assert_one_line(&e.to_string());
            false
        }
    };
    let Some((head, rest)) = data.split_first_chunk::<4>() else {
        return passed;
    };
    let mat = Material::new(head[0] % 3, head[1] % 3, head[2] % 3, head[3] % 3);
    if mat.side(Color::White) == 0 || mat.side(Color::Black) == 0 {
        return passed;
    }
    let ix = Indexer::new(mat);
    let n = ix.size();
    if n == 0 || n > MAX_TB_POSITIONS || rest.is_empty() {
        return passed;
    }
    let body: Vec<u8> = rest.iter().copied().cycle().take(2 * n as usize).collect();
    let mut whole = file::header(mat, n).to_vec();
    whole.extend_from_slice(&body);
    whole.extend_from_slice(&file::checksum(&body).to_le_bytes());
    assert_eq!(file::check("fuzz.tb", &whole).ok(), Some((mat, n)));
    let at = rest[0] as usize * 257 % whole.len();
    let mut changed = whole.clone();
    changed[at] ^= 1 << (rest[rest.len() - 1] % 8);
    assert!(
        file::check("fuzz.tb", &changed).is_err(),
        "a changed byte at {at} passes"
    );
    let table = Table::from_data(mat, &body);
    for side in [Color::White, Color::Black] {
        let bytes = table.side_bytes(side);
        assert_eq!(bytes.len() as u64, n);
        for chunk in rest.chunks(8).take(16) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            let idx = u64::from_le_bytes(word) % n;
            let Some(pos) = ix.position(idx, side) else {
                panic!("index {idx} of {n} has no position");
            };
            assert_eq!(pos.side(), side);
            assert_eq!(Material::of(&pos), mat);
            assert_eq!(ix.index(&pos), Some(idx), "{}", pos.to_text());
            let b = bytes[idx as usize];
            assert_eq!(encode(decode(b)), Some(b));
        }
    }
    passed
}

/// Weights JSON for both games (the `weights` target): refused in one line,
/// or read exactly (written back and read back equal) into weights of the
/// game asked for that score mirrored positions alike. Returns how many of
/// the two games read the input.
pub fn check_weights_json(data: &[u8]) -> usize {
    let Ok(text) = std::str::from_utf8(data) else {
        return 0;
    };
    let mut read = 0;
    for kind in [engine::GameKind::Bushka, engine::GameKind::Bashnya] {
        match Weights::from_json(kind, text) {
            Ok(w) => {
                read += 1;
                assert_eq!(w.kind(), kind);
                let json = w.to_json();
                let back = Weights::from_json(kind, &json)
                    .unwrap_or_else(|e| panic!("own JSON refused: {e}\n{json}"));
                assert_eq!(back, w, "weights JSON round trip");
                check_weights(&w);
            }
            Err(e) => assert_one_line(&e.to_string()),
        }
    }
    read
}

/// Binary pattern-weights files for both games (the `pattern_weights`
/// target): refused in one line, or written back byte for byte and read
/// back equal, as weights of the game asked for. Returns how many of the two
/// games read the input.
pub fn check_pattern_weights(data: &[u8]) -> usize {
    let mut read = 0;
    for kind in [engine::GameKind::Bushka, engine::GameKind::Bashnya] {
        match engine::eval::PatternWeights::from_bytes(kind, data) {
            Ok(w) => {
                read += 1;
                assert_eq!(w.kind(), kind);
                let bytes = w.to_bytes();
                assert_eq!(bytes, data, "binary weights round trip");
                let back = engine::eval::PatternWeights::from_bytes(kind, &bytes)
                    .unwrap_or_else(|e| panic!("own file refused: {e}"));
                assert_eq!(back, w);
            }
            Err(e) => assert_one_line(&e.to_string()),
        }
    }
    read
}
