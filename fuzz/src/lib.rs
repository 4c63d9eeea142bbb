//! Invariant checks shared by the fuzz targets.
//!
//! Every target feeds arbitrary bytes to one of the engine's readers. A
//! reader may refuse its input with an error; it may never panic, hang or
//! accept something it cannot write back. What is accepted is checked here:
//! text round trips, the incremental hash against the hash from scratch,
//! colour-mirror symmetry, copy-make and the notation of every legal move.

use engine::eval::{Evaluator, Weights};
use engine::{bashnya, bushka, Game, MoveList};
use std::collections::HashSet;

/// Checks that an error message is one line: no line feed, no carriage
/// return, no Unicode line or paragraph separator (a terminal, a log or a
/// page would show each as a break).
pub fn assert_one_line(message: &str) {
    assert!(
        !message.contains(['\n', '\r', '\u{2028}', '\u{2029}']),
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

/// A game whose hash can be recomputed from scratch.
pub trait Scratch: Game {
    /// The Zobrist hash computed from the pieces, not incrementally.
    fn scratch_hash(&self) -> u64;
}

impl Scratch for bushka::Position {
    fn scratch_hash(&self) -> u64 {
        self.compute_hash()
    }
}

impl Scratch for bashnya::Position {
    fn scratch_hash(&self) -> u64 {
        self.computed_hash()
    }
}

/// The Zobrist hash kept by the position.
fn zob<G: Game>(p: &G) -> u64 {
    <G as Game>::hash(p)
}

/// Checks every invariant of one position and of each position one move on.
pub fn check_position<G: Scratch>(p: &G) {
    let before = *p;
    let text = p.to_text();
    let back = G::parse_position(&text)
        .unwrap_or_else(|e| panic!("the position's own text '{text}' is refused: {e}"));
    assert_eq!(back.to_text(), text, "text round trip");
    assert_eq!(zob(&back), zob(p), "hash after a text round trip of {text}");
    assert_eq!(zob(p), p.scratch_hash(), "incremental hash of {text}");
    let m = p.mirror();
    assert_eq!(zob(&m), m.scratch_hash(), "hash of the mirror of {text}");
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
        assert_eq!(zob(&next), next.scratch_hash(), "hash after {t} in {text}");
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
pub fn check_text<G: Scratch>(data: &[u8]) {
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
