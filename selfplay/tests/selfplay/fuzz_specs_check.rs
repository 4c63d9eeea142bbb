// The checks of the `specs` fuzz target (fuzz/fuzz_targets/specs.rs, which
// includes this file) on one input, also run on the committed corpus by
// `fuzz_regressions.rs`. Kept free of anything but std, `engine` and
// `selfplay`, so that both can compile it.

/// Checks that an error is one line.
fn specs_one_line(e: impl std::fmt::Display) {
    let e = e.to_string();
    assert!(
        !e.contains(engine::files::LINE_BREAKS),
        "not one line: {e:?}"
    );
}

/// An opening book from the input, as position lines and as the games of a
/// PDN text (after 0 and 2 plies): every position writes back and reads
/// back the same, or the book is refused in one line.
fn specs_book<G: engine::Game>(text: &str, data: &[u8]) {
    use selfplay::openings::{book_from_pdn, parse_book};
    match parse_book::<G>(text) {
        Ok(positions) => {
            assert!(!positions.is_empty());
            for p in positions {
                assert_eq!(G::parse_position(&p.to_text()).ok(), Some(p));
            }
        }
        Err(e) => specs_one_line(e),
    }
    for plies in [0, 2] {
        match book_from_pdn::<G, _>(data, plies) {
            Ok(book) => {
                let texts: std::collections::HashSet<String> =
                    book.positions.iter().map(engine::Game::to_text).collect();
                assert_eq!(texts.len(), book.positions.len(), "a position twice");
                for p in book.positions {
                    assert_eq!(G::parse_position(&p.to_text()).ok(), Some(p));
                }
            }
            Err(e) => specs_one_line(e),
        }
    }
}

/// The short texts of the command line, from each line of one input:
/// engine descriptions (`--engine`, re-read by `selfplay merge` from what a
/// run wrote), time controls, endgame-table materials, `--anchor NAME=ELO`,
/// `--sprt`, `--adjudicate-win` and `--each`; and the input as an opening
/// book. Each is refused with a one-line error or read so that what it
/// writes back reads back the same. Each line is also read as an external
/// engine's: the words of a `cmd=` text, the values and the score of a
/// `done` or `info` line. Returns how many lines read as an engine
/// description.
pub fn check_specs_texts(data: &[u8]) -> usize {
    use engine::bushka::tb::Material;
    use engine::{bashnya, bushka};
    use selfplay::clock::TimeControl;
    use selfplay::external::{parse_score, split_command, value_of};
    use selfplay::game::{parse_win, MAX_WIN_MOVES};
    use selfplay::ratings::parse_anchor;
    use selfplay::spec::{with_each, EngineSpec};
    use selfplay::stats::Sprt;
    let Ok(text) = std::str::from_utf8(data) else {
        return 0;
    };
    let names = ["a".to_string(), "b".to_string()];
    let mut specs = 0;
    for line in text.lines().take(64) {
        let words = split_command(line);
        assert!(words.iter().all(|w| !w.is_empty()));
        for key in ["move", "depth", "score"] {
            if let Some(v) = value_of(line, key) {
                let _ = parse_score(&v);
            }
        }
        match Sprt::parse(line) {
            Ok(s) => assert!(s.lower_bound() < 0.0 && s.upper_bound() > 0.0),
            Err(e) => specs_one_line(e),
        }
        match parse_win(line) {
            Ok((score, moves)) => assert!(score > 0 && (1..=MAX_WIN_MOVES).contains(&moves)),
            Err(e) => specs_one_line(e),
        }
        match with_each(Some(line), "name=a") {
            Ok(t) => assert!(t.ends_with("name=a")),
            Err(e) => specs_one_line(e),
        }
        match EngineSpec::parse(line) {
            Ok(s) => {
                specs += 1;
                let again = s.to_string();
                let back = EngineSpec::parse(&again)
                    .unwrap_or_else(|e| panic!("'{again}' (from '{line}') refused: {e}"));
                assert_eq!(back, s, "engine spec round trip of '{line}'");
            }
            Err(e) => specs_one_line(e),
        }
        match line.parse::<TimeControl>() {
            Ok(tc) => {
                let again = tc.to_string();
                assert_eq!(
                    again.parse::<TimeControl>(),
                    Ok(tc),
                    "'{again}' from '{line}'"
                );
            }
            Err(e) => specs_one_line(e),
        }
        match Material::parse(line) {
            Ok(m) => assert_eq!(Material::parse(&m.to_string()), Ok(m), "'{line}'"),
            Err(e) => specs_one_line(e),
        }
        match parse_anchor(line, &names) {
            Ok((i, elo)) => assert!(i < names.len() && elo.is_finite(), "'{line}'"),
            Err(e) => specs_one_line(e),
        }
    }
    specs_book::<bushka::Position>(text, data);
    specs_book::<bashnya::Position>(text, data);
    specs
}
