// The checks of the `data` fuzz target (fuzz/fuzz_targets/data.rs, which
// includes this file) on one input, also run on the committed corpus by
// `fuzz_regressions.rs`. Kept free of anything but std, `engine` and
// `selfplay`, so that both can compile it.

/// Runs `selfplay::output::recover_data` (the `--resume` path of a
/// training-data file) on `data` written to `path`, and checks what it kept
/// or that it refused in one line and left the file as it was; then reads
/// the position field of each line in both games.
pub fn check_data_file(data: &[u8], path: &std::path::Path) {
    use engine::data::DataLine;
    use engine::{bashnya, bushka, Game};
    use selfplay::output::recover_data;
    use std::collections::HashSet;

    std::fs::write(path, data).expect("temporary file");
    // Games 0..4 count as finished where the input has a start line (ply 0)
    // of theirs; lines of other games make the tail (any number of them:
    // the refusal of too many is tested in `selfplay`).
    let finished: HashSet<u64> = String::from_utf8_lossy(data)
        .lines()
        .filter_map(|l| DataLine::parse(l).ok())
        .filter(|d| d.ply == 0)
        .filter_map(|d| d.game.parse::<u64>().ok())
        .filter(|id| *id < 4)
        .collect();
    let mut positions = 0;
    let result = recover_data(path, &finished, usize::MAX, |_| positions += 1);
    let out = std::fs::read(path).expect("read back");
    let _ = std::fs::remove_file(path);
    match result {
        Ok(selfplay::output::Recovered { kept, .. }) => {
            // Accepted: every line but the last (a torn end) is a data line
            // or holds zero bytes (a crash's hole), and no line of a finished
            // game follows one that is not.
            let lines: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
            let mut tail = false;
            for (i, line) in lines.iter().enumerate() {
                // A line longer than the reader's cap is never data to it.
                let bare = line.len() as u64 - u64::from(line.ends_with(b"\n"));
                let capped = bare <= engine::files::MAX_LINE;
                let parsed = std::str::from_utf8(line)
                    .ok()
                    .filter(|_| capped)
                    .and_then(|l| {
                        let d = DataLine::parse(l.trim_end_matches(['\n', '\r'])).ok()?;
                        d.game.parse::<u64>().ok()
                    });
                match parsed {
                    Some(id) if finished.contains(&id) => {
                        assert!(!tail, "a finished game's line after the tail: {line:?}");
                    }
                    Some(_) => tail = true,
                    None => {
                        assert!(
                            i + 1 == lines.len() || line.contains(&0),
                            "not data before the last: {line:?}"
                        );
                        tail = true;
                    }
                }
            }
            let text = std::str::from_utf8(&out).expect("kept lines are text");
            let input = String::from_utf8_lossy(data);
            // An unterminated last line keeps a final '\r' when read, and
            // loses it once written back with its '\n': compare without it.
            let lines: HashSet<&str> = input.lines().map(|l| l.trim_end_matches('\r')).collect();
            let mut seen = HashSet::new();
            let mut n = 0;
            for line in text.lines() {
                n += 1;
                assert!(
                    lines.contains(line.trim_end_matches('\r')),
                    "a kept line is not in the input: {line:?}"
                );
                let mut f = line.split('\t');
                let id: u64 = f.next().and_then(|x| x.parse().ok()).expect("kept id");
                assert!(finished.contains(&id), "line of an unfinished game kept");
                let ply = f.nth(1).expect("kept ply");
                assert!(seen.insert((id, ply.to_string())), "duplicate kept: {line}");
            }
            assert_eq!(n, kept, "reported count");
            assert_eq!(positions, kept, "positions seen");
        }
        Err(e) => {
            // Only a file with a line that is not data and cannot be torn,
            // a finished game's line after the tail, or a finished game
            // whose first block lacks its start, is refused, in one line;
            // the file is then left as it was.
            assert!(
                !e.contains(engine::files::LINE_BREAKS),
                "not one line: {e:?}"
            );
            assert!(
                e.contains("is not a data line")
                    || e.contains("after line")
                    || e.contains("holds no positions of"),
                "refused: {e}"
            );
            assert_eq!(out, data, "a refused file was changed");
        }
    }
    // The position field of every line, as the tuner reads it.
    if let Ok(text) = std::str::from_utf8(data) {
        for line in text.lines().take(64) {
            if let Some(pos) = line.split('\t').nth(1) {
                if let Ok(p) = bushka::Position::parse_position(pos) {
                    assert_eq!(bushka::Position::parse_position(&p.to_text()), Ok(p));
                }
                if let Ok(p) = bashnya::Position::parse_position(pos) {
                    assert_eq!(
                        bashnya::Position::parse_position(&p.to_text()).map(|q| q.to_text()),
                        Ok(p.to_text())
                    );
                }
            }
        }
    }
}
