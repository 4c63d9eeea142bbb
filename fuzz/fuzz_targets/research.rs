//! The research readers: problem-set lines of both games (a line that is
//! read must have a legal solution that reads back the same), mining
//! journal lines (a tactic taken writes a problem line that reads, and the
//! journal line writes back the same), an atlas folder's `settings.txt`
//! (what passes names the settings given) and atlas results files (a file
//! read must hold only consistent results).
#![no_main]

use engine::{bashnya, bushka, Game};
use libfuzzer_sys::fuzz_target;
use research::tactics::{journal_line, parse_journal_line, parse_problem};

/// Reads every line as a problem of game `G` and checks what is accepted.
fn problems<G: Game>(text: &str) {
    for line in text.lines().take(32) {
        match parse_problem::<G>(line) {
            Err(e) => fuzz_support::assert_one_line(&e),
            Ok(p) => {
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
}

/// Reads every line as a mining journal line of game `G`.
fn journal<G: Game>(data: &[u8]) {
    for line in data.split(|&b| b == b'\n').take(32) {
        match parse_journal_line::<G>(line) {
            Ok((hash, tactic)) => {
                if let Some(t) = &tactic {
                    let p = parse_problem::<G>(&t.problem_line()).expect("a tactic taken reads");
                    assert_eq!(p.solution.len(), t.solution.len());
                }
                let again = journal_line(hash, &tactic);
                assert_eq!(
                    parse_journal_line::<G>(again.as_bytes()),
                    Ok((hash, tactic))
                );
            }
            Err(e) => fuzz_support::assert_one_line(&e),
        }
    }
}

/// The settings a run states, the evaluation it uses.
const SETTINGS: &str = "bushka atlas --game bushka --plies 2 --games 2 --search-depth 4 --hash 16";
const EVAL: &str = "material 0123456789abcdef";

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        problems::<bushka::Position>(text);
        problems::<bashnya::Position>(text);
    }
    journal::<bushka::Position>(data);
    journal::<bashnya::Position>(data);
    let text = String::from_utf8_lossy(data);
    for report_only in [false, true] {
        match research::atlas::check_settings(&text, SETTINGS, EVAL, report_only) {
            Ok(()) => assert_eq!(text.lines().next().map(str::trim), Some(SETTINGS)),
            Err(e) => fuzz_support::assert_one_line(&e),
        }
    }
    let dir = fuzz_support::input_dir("research");
    let file = dir.join("lines.jsonl");
    std::fs::write(&file, data).expect("temporary file");
    match research::atlas::read_results(&dir) {
        Ok(results) => {
            for r in results.values() {
                r.consistent().expect("a result read is consistent");
            }
        }
        Err(e) => fuzz_support::assert_one_line(&e),
    }
    let _ = std::fs::remove_dir_all(&dir);
});
