//! Position text (docs/rules.md 1.8): round trips and every kind of bad input.

use engine::bushka::Position;
use engine::{Game, PositionError};

#[test]
fn examples_of_the_rules_read_and_print() {
    for t in [
        "W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0",
        "B:WKe5,f4:Bd4,Ke7",
        "B:We5,e6:B",
        engine::bushka::START,
    ] {
        let p = Position::parse_position(t).unwrap();
        assert_eq!(Position::parse_position(&p.to_text()), Ok(p));
    }
    assert_eq!(
        Position::parse_position(engine::bushka::START),
        Ok(Position::start())
    );
    // Any order, spaces around items, lists in either order.
    assert_eq!(
        Position::parse_position(" B : Bd4, Ke7 : W Kf4 ,Ke5 ").map(|p| p.to_text()),
        Ok("B:WKf4,Ke5:Bd4,Ke7".to_string())
    );
}

#[test]
fn malformed_texts_name_the_problem() {
    use PositionError::*;
    type Check = fn(&PositionError) -> bool;
    let cases: &[(&str, Check)] = &[
        ("", |e| matches!(e, Malformed(_))),
        ("W", |e| matches!(e, Malformed(_))),
        ("W:We1", |e| matches!(e, Malformed(_))),
        ("W:We1:Be0:Bd4", |e| matches!(e, Malformed(_))),
        ("X:We1:Be0", |e| matches!(e, Malformed(_))),
        ("WB:We1:Be0", |e| matches!(e, Malformed(_))),
        ("W:We1:We2", |e| matches!(e, Malformed(_))),
        ("W:Xe1:Be0", |e| matches!(e, Malformed(_))),
        ("W:We1,,e2:Be0", |e| matches!(e, Malformed(_))),
        ("W:WK:Be0", |e| matches!(e, Malformed(_))),
        ("W:Wa1:Be0", |e| *e == UnknownSquare("a1".into())),
        ("W:Wj5:Be0", |e| *e == UnknownSquare("j5".into())),
        ("W:We11:Be0", |e| *e == UnknownSquare("e11".into())),
        ("W:Wé1:Be0", |e| matches!(e, UnknownSquare(_))),
        ("W:We1,e1:Be0", |e| *e == DuplicateSquare("e1".into())),
        ("W:We1:Be1", |e| *e == DuplicateSquare("e1".into())),
        ("W:We0:Bd4", |e| {
            *e == ManOnPromotionRow("white", "e0".into())
        }),
        ("W:Wd4:Bi5", |e| {
            *e == ManOnPromotionRow("black", "i5".into())
        }),
    ];
    for (text, ok) in cases {
        let err = Position::parse_position(text).expect_err(text);
        assert!(ok(&err), "{text:?} gave {err:?}");
        assert!(!err.to_string().contains('\n'));
    }
    // Kings may stand on any row.
    assert!(Position::parse_position("W:WKe0:BKi5").is_ok());
}

#[test]
fn mirror_is_an_involution_and_keeps_move_counts() {
    let p = Position::parse_position("W:We1,e2,d3,Kf3:Bc5,d4,e5,e6,e7,e8,e9,e0").unwrap();
    let m = p.mirror();
    assert_eq!(m.mirror(), p);
    assert_eq!(m.count_moves(), p.count_moves());
    assert_eq!(Position::start().mirror(), {
        let s = Position::start();
        Position::parse_position(&s.to_text().replacen('W', "B", 1)).unwrap()
    });
}
