// The checks of the `research` fuzz target (fuzz/fuzz_targets/research.rs,
// which includes this file) on one input, also run on the committed corpus
// by `tactics.rs`. Kept free of anything but std, `engine` and `research`,
// so that both can compile it.

/// Checks that an error is one line.
fn research_one_line(e: &str) {
    assert!(
        !e.contains(engine::files::LINE_BREAKS),
        "not one line: {e:?}"
    );
}

/// Reads every line as a problem of game `G` and checks what is accepted.
fn research_problems<G: engine::Game>(text: &str) {
    for line in text.lines().take(32) {
        match research::tactics::parse_problem::<G>(line) {
            Err(e) => research_one_line(&e),
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
                let back = research::tactics::parse_problem::<G>(&line)
                    .expect("a written problem reads back");
                assert_eq!(back.solution, p.solution);
            }
        }
    }
}

/// Reads every line as a mining journal line of game `G`.
fn research_journal<G: engine::Game>(data: &[u8]) {
    for line in data.split(|&b| b == b'\n').take(32) {
        match research::tactics::parse_journal_line::<G>(line) {
            Ok((hash, tactic)) => {
                if let Some(t) = &tactic {
                    let p = research::tactics::parse_problem::<G>(&t.problem_line())
                        .expect("a tactic taken reads");
                    assert_eq!(p.solution.len(), t.solution.len());
                }
                let again = research::tactics::journal_line(hash, &tactic);
                assert_eq!(
                    research::tactics::parse_journal_line::<G>(again.as_bytes()),
                    Ok((hash, tactic))
                );
            }
            Err(e) => research_one_line(&e),
        }
    }
}

/// The settings a run states, the evaluation it uses.
const RESEARCH_SETTINGS: &str =
    "bushka atlas --game bushka --plies 2 --games 2 --search-depth 4 --hash 16";
const RESEARCH_EVAL: &str = "material 0123456789abcdef";

/// The research readers on one input: problem-set lines of both games (a
/// line that is read must have a legal solution that reads back the same),
/// mining journal lines (a tactic taken writes a problem line that reads,
/// and the journal line writes back the same), an atlas folder's
/// `settings.txt` (what passes names the settings given) and an atlas
/// results file written into `dir` (a file read must hold only consistent
/// results). Every refusal is one line.
pub fn check_research(data: &[u8], dir: &std::path::Path) {
    use engine::{bashnya, bushka};
    if let Ok(text) = std::str::from_utf8(data) {
        research_problems::<bushka::Position>(text);
        research_problems::<bashnya::Position>(text);
    }
    research_journal::<bushka::Position>(data);
    research_journal::<bashnya::Position>(data);
    let text = String::from_utf8_lossy(data);
    for report_only in [false, true] {
        match research::atlas::check_settings(&text, RESEARCH_SETTINGS, RESEARCH_EVAL, report_only)
        {
            Ok(()) => assert_eq!(text.lines().next().map(str::trim), Some(RESEARCH_SETTINGS)),
            Err(e) => research_one_line(&e),
        }
    }
    let file = dir.join("lines.jsonl");
    std::fs::write(&file, data).expect("temporary file");
    match research::atlas::read_results(dir) {
        Ok(results) => {
            for r in results.values() {
                r.consistent().expect("a result read is consistent");
            }
        }
        Err(e) => research_one_line(&e),
    }
    let _ = std::fs::remove_file(&file);
}
