//! Bashnya move notation and position text: round trips over random games,
//! every route of every capture, and malformed input of every kind.

use crate::support::bashnya_oracle;

use engine::bashnya::{Move, Position};
use engine::{Game, MoveError, MoveList, PositionError};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn pos(text: &str) -> Position {
    Position::parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn legal(p: &Position) -> MoveList<Move> {
    let mut list = MoveList::new();
    p.generate(&mut list);
    list
}

/// Checks every way of writing every legal move of `p`.
fn check_notation(p: &Position) {
    let moves = legal(p);
    for m in &moves {
        let text = p.move_text(m);
        assert_eq!(p.parse_move(&text), Ok(*m), "{text} in {}", p.to_text());
        assert_eq!(
            p.parse_move(&format!("{text}!?")),
            Ok(*m),
            "annotated {text}"
        );
    }
    // Every route the oracle finds names the move with that result.
    let board = bashnya_oracle::Board::parse(&p.to_text());
    let routes = bashnya_oracle::routes_by_result(&board);
    for (result, texts) in routes {
        for text in texts {
            let m = p
                .parse_move(&text)
                .unwrap_or_else(|e| panic!("{text} in {}: {e}", p.to_text()));
            assert_eq!(p.play(&m).to_text(), result, "{text} in {}", p.to_text());
        }
    }
    check_start_end(p, &moves);
}

/// `start:end` is read when exactly one legal capture matches, unless it is itself a full route.
fn check_start_end(p: &Position, moves: &[Move]) {
    for m in moves.iter().filter(|m| m.is_capture()) {
        let short = format!(
            "{}:{}",
            engine::bashnya::square_name(m.from()),
            engine::bashnya::square_name(m.to())
        );
        let same: Vec<&Move> = moves
            .iter()
            .filter(|o| o.from() == m.from() && o.to() == m.to())
            .collect();
        let single_jump = moves
            .iter()
            .find(|o| o.captures() == 1 && p.move_text(o) == short);
        match (single_jump, same.len()) {
            (Some(o), _) => assert_eq!(p.parse_move(&short), Ok(*o)),
            (None, 1) => assert_eq!(p.parse_move(&short), Ok(*m)),
            (None, _) => assert!(
                matches!(p.parse_move(&short), Err(MoveError::Ambiguous(..))),
                "{short}"
            ),
        }
    }
}

#[test]
fn notation_and_position_text_round_trip_in_random_games() {
    let mut ambiguous_seen = 0;
    for seed in 0..300u64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut p = Position::start();
        for _ in 0..200 {
            let text = p.to_text();
            assert_eq!(Position::parse_position(&text), Ok(p), "{text}");
            assert_eq!(p.mirror().mirror(), p);
            check_notation(&p);
            let moves = legal(&p);
            ambiguous_seen += usize::from(moves.iter().filter(|m| m.is_capture()).count() > 1);
            if moves.is_empty() {
                break;
            }
            p = p.play(&moves[rng.random_range(0..moves.len())]);
        }
    }
    assert!(ambiguous_seen > 100);
}

#[test]
fn start_end_ambiguity_is_an_error() {
    // Two different captures from h4 end on d8 (found in a random game).
    let p = pos("B:e3=w,g3=wb,b4=w,h4=BbwWwwwww,e5=b,h6=bbbbbw,a7=b,c7=wbb");
    assert!(matches!(
        p.parse_move("h4:d8"),
        Err(MoveError::Ambiguous(..))
    ));
    match p.parse_move("h4:d8") {
        Err(MoveError::Ambiguous(_, names)) => {
            assert_eq!(names, "h4:e1:a5:d8 or h4:f2:b6:d8");
        }
        other => panic!("h4:d8: {other:?}"),
    }
    // Each full route is its own move, with its own prisoners.
    let a = p.parse_move("h4:e1:a5:d8").unwrap();
    let b = p.parse_move("h4:f2:b6:d8").unwrap();
    assert_ne!(a, b);
    assert_eq!(p.move_text(&a), "h4:e1:a5:d8");
    assert_eq!(p.move_text(&b), "h4:f2:b6:d8");
    assert_eq!(
        p.play(&a).to_text(),
        "W:e3=w,g3=b,e5=b,h6=bbbbbw,a7=b,c7=bb,d8=BbwWwwwwwwww"
    );
    assert_eq!(
        p.play(&b).to_text(),
        "W:g3=b,b4=w,e5=b,h6=bbbbbw,a7=b,c7=bb,d8=BbwWwwwwwwww"
    );
    // A complete one-jump route is read as that route although a longer
    // capture also goes from e3 to c1.
    let q = pos("W:e1=wwbb,d2=bbbwwWw,e3=WbbbB,b4=bww,g5=b,f8=bwww");
    assert_eq!(q.parse_move("e3:c1").unwrap().captures(), 1);
    assert_eq!(q.parse_move("e3:h6:c1").unwrap().captures(), 2);
    // Alternative route to the same move is accepted.
    let r = pos("W:b2=b,d4=W,e5=b");
    let m = r.parse_move("d4:h8:a1").unwrap();
    assert_eq!(r.move_text(&m), "d4:f6:a1");
}

#[test]
fn bad_moves_are_typed_errors() {
    let p = Position::start();
    let syntax = [
        "",
        "c3",
        "c3-",
        "c3d4",
        "c3-d4-e5",
        "c3:d4-e5",
        "c3x d4",
        "z9-a1",
        "c3-d9",
        "b1-c2",
        "C3-D4",
        "c3--d4",
        ":",
        "c3:",
        ":d4",
        "c3::e5",
        "ц3-d4",
        "c3-d4 extra",
        "🙂",
        "c3:e5:c7:e5:c7:e5:c7:e5:c7:e5:c7:e5:c7:e5",
    ];
    for text in syntax {
        assert!(
            matches!(p.parse_move(text), Err(MoveError::Syntax(..))),
            "{text:?}: {:?}",
            p.parse_move(text)
        );
    }
    let illegal = [
        "c3-e5", "a1-b2", "d6-c5", "c3:e5", "h8-g7", "c3-c3", "b2-a3", "c3:a5:c7",
    ];
    for text in illegal {
        assert!(
            matches!(p.parse_move(text), Err(MoveError::Illegal(..))),
            "{text:?}: {:?}",
            p.parse_move(text)
        );
    }
    // A step when a capture is compulsory: the legal moves are named.
    let c = pos("W:a1=w,c3=w,d4=b");
    for text in ["a1-b2", "c3-e5"] {
        assert_eq!(
            c.parse_move(text).unwrap_err().to_string(),
            format!("illegal move '{text}': a capture is due, the legal moves are c3:e5")
        );
    }
    assert!(c.parse_move("c3:e5").is_ok());
    // A partial route is not a move.
    let d = pos("W:c3=w,d4=b,f6=b");
    assert!(matches!(
        d.parse_move("c3:e5"),
        Err(MoveError::CaptureDue(..))
    ));
    assert!(d.parse_move("c3:g7").is_ok());
}

#[test]
fn position_text_round_trips_and_accepts_an_empty_board() {
    for text in ["W:a1=w,c3=wb,d6=Bww,h8=b", "B:", "W:", "B:g1=B,b8=W"] {
        assert_eq!(pos(text).to_text(), text);
    }
    // Squares in any order, spaces around items, are read and printed in index order.
    assert_eq!(pos(" W: h8=b , a1=w ").to_text(), "W:a1=w,h8=b");
    let tall = format!("W:d4={}", "wb".repeat(12));
    assert_eq!(pos(&tall).column(13).height(), 24);
}

#[test]
fn bad_positions_are_typed_errors() {
    use PositionError::*;
    type Check = fn(&PositionError) -> bool;
    let cases: &[(&str, Check)] = &[
        ("", |e| matches!(e, Malformed(_))),
        ("W", |e| matches!(e, Malformed(_))),
        ("X:a1=w", |e| matches!(e, Malformed(_))),
        ("w:a1=w", |e| matches!(e, Malformed(_))),
        ("WB:a1=w", |e| matches!(e, Malformed(_))),
        ("W:a1", |e| matches!(e, Malformed(_))),
        ("W:a1=w,", |e| matches!(e, Malformed(_))),
        ("W:,a1=w", |e| matches!(e, Malformed(_))),
        ("W:a1=w,,c3=b", |e| matches!(e, Malformed(_))),
        ("Ж:a1=w", |e| matches!(e, Malformed(_))),
        // Bushka's piece lists: the second ':' is named, not read as a piece.
        (
            "W:a1=w:b",
            |e| matches!(e, Malformed(m) if m.starts_with("one ':' only")),
        ),
        (
            "W:Wa1=w:B",
            |e| matches!(e, Malformed(m) if m.starts_with("one ':' only")),
        ),
        ("W:a1=", |e| matches!(e, BadColumn(..))),
        ("W:a1=x", |e| matches!(e, BadColumn(..))),
        ("W:a1=wé", |e| matches!(e, BadColumn(..))),
        ("W:a1=w w", |e| matches!(e, BadColumn(..))),
        ("W:a1=K", |e| matches!(e, BadColumn(..))),
        ("W:i1=w", |e| matches!(e, UnknownSquare(_))),
        ("W:a9=w", |e| matches!(e, UnknownSquare(_))),
        ("W:a0=w", |e| matches!(e, UnknownSquare(_))),
        ("W:A1=w", |e| matches!(e, UnknownSquare(_))),
        ("W:a11=w", |e| matches!(e, UnknownSquare(_))),
        ("W:=w", |e| matches!(e, UnknownSquare(_))),
        ("W:ä1=w", |e| matches!(e, UnknownSquare(_))),
        ("W:b1=w", |e| matches!(e, LightSquare(_))),
        ("W:a2=w", |e| matches!(e, LightSquare(_))),
        ("W:a1=w,a1=b", |e| matches!(e, DuplicateSquare(_))),
        ("W:c3=w,e5=b,c3=b", |e| matches!(e, DuplicateSquare(_))),
        ("W:b8=w", |e| matches!(e, ManOnPromotionRow(..))),
        ("B:a1=b", |e| matches!(e, ManOnPromotionRow(..))),
        ("W:h8=wB", |e| matches!(e, ManOnPromotionRow(..))),
        ("W:a1=wwwwwwwwwwwww", |e| matches!(e, TooManyPieces(_))),
        ("W:e5=bbbbbbb,c3=bbbbbb", |e| matches!(e, TooManyPieces(_))),
        ("W:a1=wbwbwbwbwbwbwbwbwbwbwbwbw", |e| {
            matches!(e, TooManyPieces(_))
        }),
    ];
    for (text, ok) in cases {
        match Position::parse_position(text) {
            Err(e) => assert!(ok(&e), "{text:?} gave {e:?}"),
            Ok(p) => panic!("{text:?} was accepted as {}", p.to_text()),
        }
    }
    // Prisoners may be men on any rank; a king commander may stand anywhere.
    assert!(Position::parse_position("W:b8=Ww,a1=Bb").is_ok());
}

/// Random strings (many of them almost valid) never make either parser
/// panic; what they accept reads back the same, and what they refuse is
/// refused in one line.
#[test]
fn parsers_never_panic_on_noise() {
    let alphabet: Vec<char> = "WBwb:=,-a1c3d4e5h8i9 ж🙂!?x0".chars().collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let p = pos("W:a1=W,c3=bb,e5=b");
    for _ in 0..20_000 {
        let len = rng.random_range(0..24);
        let s: String = (0..len)
            .map(|_| alphabet[rng.random_range(0..alphabet.len())])
            .collect();
        match Position::parse_position(&s) {
            Ok(q) => assert_eq!(
                Position::parse_position(&q.to_text()).map(|r| r.to_text()),
                Ok(q.to_text()),
                "{s:?}"
            ),
            Err(e) => assert!(!e.to_string().contains('\n'), "{s:?}: {e}"),
        }
        let start = Position::start();
        for at in [&p, &start] {
            match at.parse_move(&s) {
                Ok(m) => {
                    assert!(legal(at).contains(&m), "{s:?}");
                    assert_eq!(at.parse_move(&at.move_text(&m)), Ok(m), "{s:?}");
                }
                Err(e) => assert!(!e.to_string().contains('\n'), "{s:?}: {e}"),
            }
        }
    }
}
