//! The short texts of the command line: engine descriptions (`--engine`,
//! re-read by `selfplay merge` from what a run wrote), time controls,
//! endgame-table materials, `--anchor NAME=ELO`, and opening books (position
//! lines, or the games of a PDN text). Each is refused with a one-line error
//! or read so that what it writes back reads back the same. Each line is
//! also read as an external engine's: the words of a `cmd=` text, the values
//! and the score of a `done` or `info` line; and as `--sprt`,
//! `--adjudicate-win` and `--each` read it.
#![no_main]

use engine::bushka::tb::Material;
use engine::{bashnya, bushka, Game};
use libfuzzer_sys::fuzz_target;
use selfplay::clock::TimeControl;
use selfplay::external::{parse_score, split_command, value_of};
use selfplay::game::{parse_win, MAX_WIN_MOVES};
use selfplay::openings::{book_from_pdn, parse_book};
use selfplay::ratings::parse_anchor;
use selfplay::spec::{with_each, EngineSpec};
use selfplay::stats::Sprt;

fn one_line(e: impl std::fmt::Display) {
    let e = e.to_string();
    fuzz_support::assert_one_line(&e);
}

fn book<G: Game>(text: &str, data: &[u8]) {
    match parse_book::<G>(text) {
        Ok(positions) => {
            assert!(!positions.is_empty());
            for p in positions {
                assert_eq!(G::parse_position(&p.to_text()).ok(), Some(p));
            }
        }
        Err(e) => one_line(e),
    }
    for plies in [0, 2] {
        match book_from_pdn::<G, _>(data, plies) {
            Ok((positions, _)) => {
                for p in positions {
                    assert_eq!(G::parse_position(&p.to_text()).ok(), Some(p));
                }
            }
            Err(e) => one_line(e),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let names = ["a".to_string(), "b".to_string()];
    for line in text.lines().take(64) {
        // An external engine's lines as the harness reads them: the words of
        // a `cmd=` text, the values of `done`/`info` lines and their score.
        let words = split_command(line);
        assert!(words.iter().all(|w| !w.is_empty()));
        for key in ["move", "depth", "score"] {
            if let Some(v) = value_of(line, key) {
                let _ = parse_score(&v);
            }
        }
        // `--sprt`, `--adjudicate-win`, `--each` (with a description).
        match Sprt::parse(line) {
            Ok(s) => assert!(s.lower_bound() < 0.0 && s.upper_bound() > 0.0),
            Err(e) => one_line(e),
        }
        match parse_win(line) {
            Ok((score, moves)) => assert!(score > 0 && (1..=MAX_WIN_MOVES).contains(&moves)),
            Err(e) => one_line(e),
        }
        match with_each(Some(line), "name=a") {
            Ok(t) => assert!(t.ends_with("name=a")),
            Err(e) => one_line(e),
        }
        match EngineSpec::parse(line) {
            Ok(s) => {
                let again = s.to_string();
                let back = EngineSpec::parse(&again)
                    .unwrap_or_else(|e| panic!("'{again}' (from '{line}') refused: {e}"));
                assert_eq!(back, s, "engine spec round trip of '{line}'");
            }
            Err(e) => one_line(e),
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
            Err(e) => one_line(e),
        }
        match Material::parse(line) {
            Ok(m) => assert_eq!(Material::parse(&m.to_string()), Ok(m), "'{line}'"),
            Err(e) => one_line(e),
        }
        match parse_anchor(line, &names) {
            Ok((i, elo)) => assert!(i < names.len() && elo.is_finite(), "'{line}'"),
            Err(e) => one_line(e),
        }
    }
    book::<bushka::Position>(text, data);
    book::<bashnya::Position>(text, data);
});
