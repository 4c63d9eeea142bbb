//! docs/rules.md section 1: worked examples, one position per rule bullet, notation.

use engine::bushka::{MoveKind, Position};
use engine::{Game, MoveError, MoveList};

fn pos(text: &str) -> Position {
    Position::parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Every legal move as `notation -> resulting position`, sorted by notation.
fn moves(p: &Position) -> Vec<(String, String)> {
    let mut list = MoveList::new();
    p.generate(&mut list);
    let mut out: Vec<_> = list
        .iter()
        .map(|m| (p.move_text(m), p.play(m).to_text()))
        .collect();
    out.sort();
    out
}

fn texts(p: &Position) -> Vec<String> {
    moves(p).into_iter().map(|(m, _)| m).collect()
}

fn play(p: &Position, text: &str) -> Position {
    let m = p
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{text} in {}: {e}", p.to_text()));
    p.play(&m)
}

/// Asserts the exact legal moves (sorted texts) and the result of each.
fn assert_moves(start: &str, expected: &[(&str, &str)]) {
    let mut want: Vec<(String, String)> = expected
        .iter()
        .map(|(m, r)| (m.to_string(), pos(r).to_text()))
        .collect();
    want.sort();
    assert_eq!(moves(&pos(start)), want, "moves of {start}");
}

// ---- docs/rules.md 1.2 ----

#[test]
fn twenty_four_opening_moves_nine_men_fifteen_lines() {
    let p = Position::start();
    assert_eq!(p.to_text(), engine::bushka::START);
    let mut list = MoveList::new();
    p.generate(&mut list);
    assert_eq!(list.len(), 24);
    assert_eq!(p.count_moves(), 24);
    // A man step moves the head of its line; a line move moves a man from behind.
    let single = list
        .iter()
        .filter(|m| engine::bushka::board::step(m.from, dir_of(m.from, m.to)) == Some(m.to))
        .count();
    assert_eq!((single, list.len() - single), (9, 15));
}

fn dir_of(from: u8, to: u8) -> engine::bushka::board::Dir {
    use engine::bushka::board::{to_xy, Dir};
    let ((fx, fy), (tx, ty)) = (to_xy(from), to_xy(to));
    match ((tx - fx).signum(), (ty - fy).signum()) {
        (1, 1) => Dir::NE,
        (-1, 1) => Dir::NW,
        (1, -1) => Dir::SE,
        _ => Dir::SW,
    }
}

// ---- docs/rules.md 1.9: worked examples ----

const SEVEN: &str = "W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0";

#[test]
fn seven_men_in_one_capture() {
    let p = play(&pos(SEVEN), "dc3");
    assert_eq!(texts(&p), ["c54x"]);
    let p = play(&p, "c54x");
    assert_eq!(p, pos("W:We1,e2,f3:Bc4,d4,e5,e6,e7,e8,e9,e0"));
    let p = play(&p, "f34");
    assert_eq!(texts(&p), ["cxe4"]);
    let p = play(&p, "cxe4");
    assert_eq!(p, pos("W:We1,e2:Bd4,e4,e5,e6,e7,e8,e9,e0"));
    assert_eq!(texts(&p), ["e1x3"]);
    let m = p.parse_move("e1x3").unwrap();
    assert_eq!((m.kind, m.capture_count()), (MoveKind::Linear, 7));
    let p = p.play(&m);
    assert_eq!(p, pos("B:We2,e3:Bd4"));
}

#[test]
fn the_wrong_order() {
    let p = play(&pos(SEVEN), "f34");
    assert_moves(
        &p.to_text(),
        &[("d4e3x", "W:We1,d3:Bc5,e3,e5,e6,e7,e8,e9,e0")],
    );
}

#[test]
fn t_strike() {
    let p = play(&pos("W:We4,f4:Bd4,e7"), "e45");
    assert_moves(
        &p.to_text(),
        &[("de4x", "W:We5:Be4,e7"), ("e76x", "W:Wf4:Bd4,e6")],
    );
    let after_de4 = play(&p, "de4x");
    assert_moves(&after_de4.to_text(), &[("e5x", "B:We5:B")]);
    let after_e76 = play(&p, "e76x");
    assert_moves(&after_e76.to_text(), &[("f4e5x", "B:We5:B")]);
}

#[test]
fn backward_linear_capture() {
    let p = play(&pos("W:We1,e6,e7:Be4,e5"), "e12");
    assert_moves(&p.to_text(), &[("e5x3", "W:We6,e7:Be3,e4")]);
    let p = play(&p, "e5x3");
    assert_eq!(texts(&p), ["e7x5"]);
    let p = play(&p, "e7x5");
    assert_eq!(p, pos("B:We5,e6:B"));
    assert_eq!(p.count_moves(), 0);
}

// ---- docs/rules.md 1.3-1.4: non-capturing moves ----

#[test]
fn man_steps_forward_only() {
    assert_moves("W:We5:Bb7", &[("e56", "B:We6:Bb7"), ("ed5", "B:Wd5:Bb7")]);
    assert_moves("B:Wa5:Be5", &[("e54", "W:Wa5:Be4"), ("ef5", "W:Wa5:Bf5")]);
}

#[test]
fn line_of_three_gives_two_line_moves_and_the_head_step() {
    assert_moves(
        "W:We2,e3,e4:Bb7",
        &[
            ("e45", "B:We2,e3,e5:Bb7"),
            ("e35", "B:We2,e4,e5:Bb7"),
            ("e25", "B:We3,e4,e5:Bb7"),
            ("ed2", "B:Wd2,e3,e4:Bb7"),
            ("ed3", "B:We2,d3,e4:Bb7"),
            ("ed4", "B:We2,e3,d4:Bb7"),
        ],
    );
}

#[test]
fn a_king_is_never_part_of_a_line() {
    // The king on e2 does not join e3-e4: only e3 can be moved in front.
    let t = texts(&pos("W:WKe2,e3,e4:Bb7"));
    assert_eq!(t, ["e21", "e35", "e45", "ed2", "ed3", "ed4", "ef2"]);
    // A king in front blocks the line: no line move, no step onto e5; the
    // men step aside, the king moves along its lines (e4 stops it below).
    assert_moves(
        "W:We2,e3,e4,Ke5:Bb7",
        &[
            ("ed2", "B:Wd2,e3,e4,Ke5:Bb7"),
            ("ed3", "B:We2,d3,e4,Ke5:Bb7"),
            ("ed4", "B:We2,e3,d4,Ke5:Bb7"),
            ("e56", "B:We2,e3,e4,Ke6:Bb7"),
            ("e57", "B:We2,e3,e4,Ke7:Bb7"),
            ("e58", "B:We2,e3,e4,Ke8:Bb7"),
            ("e59", "B:We2,e3,e4,Ke9:Bb7"),
            ("e50", "B:We2,e3,e4,Ke0:Bb7"),
            ("ed5", "B:We2,e3,e4,Kd5:Bb7"),
            ("ec5", "B:We2,e3,e4,Kc5:Bb7"),
            ("eb5", "B:We2,e3,e4,Kb5:Bb7"),
            ("ea5", "B:We2,e3,e4,Ka5:Bb7"),
            ("ef5", "B:We2,e3,e4,Kf5:Bb7"),
            ("eg5", "B:We2,e3,e4,Kg5:Bb7"),
            ("eh5", "B:We2,e3,e4,Kh5:Bb7"),
            ("ei5", "B:We2,e3,e4,Ki5:Bb7"),
        ],
    );
}

#[test]
fn only_the_front_man_of_a_line_move_promotes() {
    assert_moves(
        "W:Wd7,d8:Bb5",
        &[
            ("d89", "B:Wd7,Kd9:Bb5"),
            ("d79", "B:Wd8,Kd9:Bb5"),
            ("dc7", "B:Wc7,d8:Bb5"),
            ("dc8", "B:Wd7,Kc8:Bb5"),
        ],
    );
}

#[test]
fn flying_king_moves() {
    let p = pos("W:WKe5:Bb7");
    assert_eq!(p.count_moves(), 17);
    assert_eq!(texts(&p).len(), 17);
    // Blocked by any piece, own or enemy, with no capture of an adjacent piece.
    assert_eq!(
        texts(&pos("W:WKe3:Be4")),
        ["e31", "e32", "ec3", "ed3", "ef3", "eg3"]
    );
}

// ---- docs/rules.md 1.5: captures ----

#[test]
fn linear_capture_takes_the_whole_opposing_line() {
    assert_moves("W:We1,e2:Be4,e5,e6", &[("e1x3", "B:We2,e3:B")]);
}

#[test]
fn linear_capture_takes_a_king_alone() {
    assert_moves("W:We1,e2:BKe4,e5", &[("e1x3", "B:We2,e3:Be5")]);
}

#[test]
fn a_king_ends_the_opposing_line() {
    assert_moves("W:We1,e2:Be4,Ke5,e6", &[("e1x3", "B:We2,e3:BKe5,e6")]);
}

#[test]
fn every_man_behind_the_head_can_make_the_linear_capture() {
    assert_moves(
        "W:We1,e2,e3:Be5,e6",
        &[("e1x4", "B:We2,e3,e4:B"), ("e2x4", "B:We1,e3,e4:B")],
    );
}

#[test]
fn linear_capture_along_a_number_line() {
    // Line d4-c4... heads towards e4 along the 4-line: written with the letters.
    let p = pos("B:We2,f4:Bc4,d4");
    assert_eq!(texts(&p), ["cxe4"]);
}

#[test]
fn linear_capture_beats_a_bigger_piece_capture() {
    // The king could take two (e7 then g6); the line h4-h5 takes one, and must.
    assert_moves("W:WKe5,h4,h5:Be7,g6,h7", &[("h4x6", "B:Wh5,h6,Ke5:Bg6,e7")]);
}

#[test]
fn linear_majority_rule() {
    // e-line takes two men, the d-line one: only the bigger capture is legal.
    let t = texts(&pos("W:We1,e2,d2,d3:Be4,e5,d5"));
    assert_eq!(t, ["e1x3"]);
}

#[test]
fn man_captures_backward_by_approach() {
    assert_moves("W:We5:Be3", &[("e54x", "B:We4:B")]);
}

#[test]
fn king_lands_next_to_its_victim() {
    // The landing square is forced: e4, just before e5.
    assert_moves("W:WKe3:Be5,Ke7,c5", &[("e34x", "B:WKe4:Bc5,Ke7")]);
}

#[test]
fn captured_pieces_block_until_the_end() {
    // After taking e3 from e2 the king may not pass e3 to reach e5.
    assert_moves("W:WKe1:Be3,e5", &[("e12x", "B:WKe2:Be5")]);
}

#[test]
fn piece_capture_majority_rule() {
    // The king takes two (two routes); the man's single capture b45x is not allowed.
    assert_moves(
        "W:WKe5,b4:Be7,g6,b6",
        &[("e5f6x", "B:WKf6,b4:B"), ("e5c6x", "B:Wb4,Kc6:B")],
    );
}

#[test]
fn a_head_cannot_start_a_piece_capture_towards_its_line() {
    // From the seven-men example: d4 heads c4-d4 towards e4, so only the line captures.
    let p = pos("B:We1,e2,f4:Bc4,d4,e5,e6,e7,e8,e9,e0");
    let list: Vec<_> = texts(&p);
    assert_eq!(list, ["cxe4"]);
}

#[test]
fn no_promotion_by_capture_and_ending_on_the_start_square() {
    // T-strike ending: the man returns to e5, takes two, and stays a man.
    let p = play(&play(&pos("W:We4,f4:Bd4,e7"), "e45"), "de4x");
    let m = p.parse_move("e5x").unwrap();
    let e5 = engine::bushka::board::parse_square("e5").unwrap();
    assert_eq!((m.from, m.to, m.capture_count()), (e5, e5, 2));
    assert_eq!(p.play(&m).to_text(), "B:We5:B");
}

// ---- docs/rules.md 1.6: no legal move ----

#[test]
fn no_pieces_or_blocked_means_no_moves() {
    assert_eq!(pos("W:W:Be5").count_moves(), 0);
    // The white man on a5 has one forward square, a6, and it is taken.
    assert_eq!(pos("W:Wa5:Ba6,b6").count_moves(), 0);
}

// ---- docs/rules.md 1.7: notation ----

#[test]
fn notation_forms_parse() {
    let p = pos("W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0");
    let dc3 = p.parse_move("dc3").unwrap();
    assert_eq!(p.move_text(&dc3), "dc3");
    for t in ["dc3!", "dc3?!", " dc3 ", "dc3+"] {
        assert_eq!(p.parse_move(t), Ok(dc3), "{t}");
    }
    let p = play(&p, "dc3");
    let m = p.parse_move("c54x").unwrap();
    assert_eq!(p.parse_move("c5c4x"), Ok(m));
    assert_eq!(p.parse_move("c54x(c3)"), Ok(m));
    assert_eq!(p.parse_move("c5c4x(c3)"), Ok(m));
    // A square listed twice is malformed text, not the same capture.
    assert_eq!(
        p.parse_move("c54x(c3,c3)").unwrap_err().to_string(),
        "cannot read move 'c54x(c3,c3)': square c3 is listed twice in the captured list"
    );
    // A capture of another piece, and a quiet move, while a capture is
    // due: the legal moves are named.
    let due = MoveError::CaptureDue("c54x(d3)".into(), p.move_text(&m));
    assert_eq!(p.parse_move("c54x(d3)"), Err(due));
    assert_eq!(
        p.parse_move("e12").unwrap_err().to_string(),
        format!(
            "illegal move 'e12': a capture is due, the legal moves are {}",
            p.move_text(&m)
        )
    );
}

#[test]
fn long_form_when_two_captures_share_a_text() {
    // Such positions are rare: find some in seeded random games, then check that
    // the long form reads back and the short form alone is refused as ambiguous.
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
    let mut found = 0;
    for _ in 0..20_000 {
        let mut p = Position::start();
        for _ in 0..rng.random_range(10..80) {
            let mut list = MoveList::new();
            p.generate(&mut list);
            if list.is_empty() {
                break;
            }
            let texts: Vec<String> = list.iter().map(|m| p.move_text(m)).collect();
            if texts.iter().any(|t| t.contains('(')) {
                found += 1;
                for (m, t) in list.iter().zip(&texts) {
                    assert_eq!(p.parse_move(t), Ok(*m));
                    if t.contains('(') {
                        let open = t.find('(').unwrap();
                        let short = &t[..open];
                        assert!(matches!(p.parse_move(short), Err(MoveError::Ambiguous(..))));
                        // The captured squares may be given in any order.
                        let mut squares: Vec<&str> = t[open + 1..t.len() - 1].split(',').collect();
                        squares.reverse();
                        let reordered = format!("{short}({})", squares.join(","));
                        assert_eq!(p.parse_move(&reordered), Ok(*m), "{reordered}");
                    }
                }
            }
            p = p.play(&list[rng.random_range(0..list.len())]);
        }
        if found >= 3 {
            break;
        }
    }
    assert!(found >= 1, "no long-form capture found in random games");
}

#[test]
fn bad_move_texts_are_errors() {
    let p = Position::start();
    for t in [
        "", "x", "e", "e1", "zz9", "e1x", "a1b", "e23x4", "j45", "e45(", "e45(e3)", "ed2x3",
        "e6789", "ééé", "e1e2e3", "f2f3", "(e2)",
    ] {
        assert!(p.parse_move(t).is_err(), "{t:?} should be refused");
    }
    assert!(matches!(p.parse_move("e12"), Err(MoveError::Illegal(_))));
    assert!(matches!(p.parse_move("a11"), Err(MoveError::Syntax(..))));
}
