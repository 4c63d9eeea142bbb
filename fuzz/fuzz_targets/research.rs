//! The research readers: problem-set lines of both games (a line that is
//! read must have a legal solution that reads back the same), and atlas
//! results files (a file read must hold only consistent results).
#![no_main]

use engine::{bashnya, bushka, Game};
use libfuzzer_sys::fuzz_target;
use research::tactics::parse_problem;

/// Reads every line as a problem of game `G` and checks what is accepted.
fn problems<G: Game>(text: &str) {
    for line in text.lines().take(32) {
        if let Ok(p) = parse_problem::<G>(line) {
            assert!(!p.solution.is_empty());
            let mut pos = p.position;
            let mut again = Vec::new();
            for mv in &p.solution {
                again.push(pos.move_text(mv));
                pos = pos.play(mv);
            }
            let line = format!(
                "{}\t{}\t{}\t{}",
                p.position.to_text(),
                again.join(" "),
                p.motif,
                p.gain.map_or_else(|| "win".into(), |g| g.to_string())
            );
            let back = parse_problem::<G>(&line).expect("a written problem reads back");
            assert_eq!(back.solution, p.solution);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        problems::<bushka::Position>(text);
        problems::<bashnya::Position>(text);
    }
    let dir = tempfile_dir();
    let file = dir.join("lines.jsonl");
    std::fs::write(&file, data).expect("temporary file");
    if let Ok(results) = research::atlas::read_results(&dir) {
        for r in results.values() {
            r.consistent().expect("a result read is consistent");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
});

/// A fresh folder for one input.
fn tempfile_dir() -> std::path::PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        std::path::PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("bushka-fuzz-research-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    dir
}
