//! The fuzz corpus as a regression suite: every input kept in
//! `fuzz/corpus/` (real examples, inputs the fuzzers found interesting, and
//! every crash once fixed) is run through the fuzz targets' own checks
//! (`fuzz/src/lib.rs`) on each `cargo test`, without libFuzzer.

#[path = "../../../fuzz/src/lib.rs"]
mod fuzz_support;

use engine::eval::Weights;
use engine::{bashnya, bushka, GameKind};
use std::path::PathBuf;

/// The inputs kept for one fuzz target, in name order.
fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "empty corpus {}", dir.display());
    files
        .into_iter()
        .map(|p| {
            let data = std::fs::read(&p).expect("corpus file");
            (p, data)
        })
        .collect()
}

/// Runs `check` on every input, naming the file that fails.
fn run_corpus(target: &str, mut check: impl FnMut(&[u8])) {
    for (path, data) in corpus(target) {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&data)));
        if let Err(e) = r {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(ToString::to_string))
                .unwrap_or_default();
            panic!("fuzz input {} fails: {why}", path.display());
        }
    }
}

#[test]
fn corpus_text_bushka() {
    run_corpus("text_bushka", fuzz_support::check_text::<bushka::Position>);
}

#[test]
fn corpus_text_bashnya() {
    run_corpus(
        "text_bashnya",
        fuzz_support::check_text::<bashnya::Position>,
    );
}

/// The `weights` target's corpus: refused in one line or read exactly, in
/// both games.
#[test]
fn corpus_weights() {
    let mut read = 0;
    run_corpus("weights", |data| {
        read += fuzz_support::check_weights_json(data);
    });
    assert!(read >= 2, "{read} weights read");
}

/// The `weights_file` target's corpus: each input as a weights file loaded
/// under every `--eval` choice in both games, refused in one line or
/// scoring mirrored positions alike.
#[test]
fn corpus_weights_file() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("weights");
    let text = path.to_str().expect("a UTF-8 path").to_string();
    run_corpus("weights_file", |data| {
        std::fs::write(&path, data).expect("write the input");
        fuzz_support::check_weights_file::<bushka::Position>(&text);
        fuzz_support::check_weights_file::<bashnya::Position>(&text);
    });
}

/// The shipped weights files read, write back the same and score mirrored
/// positions alike (the weights fuzz target's seeds).
#[test]
fn shipped_weights_are_symmetric() {
    for kind in [GameKind::Bushka, GameKind::Bashnya] {
        let w = Weights::default_for(kind);
        assert_eq!(Weights::from_json(kind, &w.to_json()).ok(), Some(w.clone()));
        fuzz_support::check_weights(&w);
    }
}

/// The `pattern_weights` target's corpus (cut headers, refused in one
/// line), and the shipped pattern files (too large for the corpus), each
/// read in its own game only and written back byte for byte.
#[test]
fn corpus_pattern_weights() {
    run_corpus("pattern_weights", |data| {
        fuzz_support::check_pattern_weights(data);
    });
    for name in ["bushka", "bashnya"] {
        let path = format!(
            "{}/../data/weights/{name}.patterns",
            env!("CARGO_MANIFEST_DIR")
        );
        let data = std::fs::read(&path).expect("the shipped pattern weights");
        assert_eq!(fuzz_support::check_pattern_weights(&data), 1, "{path}");
    }
}

/// The `hub` target's corpus: each input a protocol script fed to one hub
/// (reset before each), every output line a protocol line and every error
/// one short line.
#[test]
fn corpus_hub() {
    let (mut hub, sink) = fuzz_support::new_hub();
    let mut lines = 0;
    run_corpus("hub", |data| {
        lines += fuzz_support::check_hub_script(&mut hub, &sink, data);
    });
    assert!(lines > 500, "{lines} script lines");
}

/// The `tb_file` target's corpus: a real table file (2-piece MvM) passes the file check,
/// damaged ones are refused in one line, and the tables made whole from
/// each input map indices and positions onto each other.
#[test]
fn corpus_tb_file() {
    let mut passed = 0;
    run_corpus("tb_file", |data| {
        passed += usize::from(fuzz_support::check_tb_file(data));
    });
    assert!(passed >= 1, "no input passed the file check");
}
