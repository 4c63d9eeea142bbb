//! Self-checks of the independent Bushka oracle (engine/tests/engine/support/bushka_oracle.rs)
//! against docs/rules.md section 1 and the reference perft counts.

use crate::support::bushka_oracle;

use bushka_oracle::{parse, perft, square_name, square_xy, successors, OPiece, OPos};
use std::collections::BTreeSet;
use std::time::Instant;

/// The position after moving the piece on `from` to `to` and removing `captured`,
/// side to move flipped (no promotion: none of the examples promotes).
fn after(pos: &OPos, from: &str, to: &str, captured: &[&str]) -> OPos {
    let mut next = *pos;
    let (fx, fy) = square_xy(from);
    let (tx, ty) = square_xy(to);
    let piece = next.board[fx as usize][fy as usize].expect("no piece on from-square");
    assert_eq!(piece.white, pos.white_to_move, "moving the wrong colour");
    next.board[fx as usize][fy as usize] = None;
    for sq in captured {
        let (cx, cy) = square_xy(sq);
        let victim = next.board[cx as usize][cy as usize].expect("nothing to capture");
        assert_ne!(victim.white, piece.white, "capturing own piece on {sq}");
        next.board[cx as usize][cy as usize] = None;
    }
    assert!(
        next.board[tx as usize][ty as usize].is_none(),
        "to-square occupied"
    );
    next.board[tx as usize][ty as usize] = Some(piece);
    next.white_to_move = !pos.white_to_move;
    next
}

fn show(set: &BTreeSet<OPos>) -> Vec<String> {
    set.iter().map(bushka_oracle::to_text).collect()
}

/// Play a move that must be legal (one of the successors).
fn play(pos: &OPos, from: &str, to: &str, captured: &[&str]) -> OPos {
    let next = after(pos, from, to, captured);
    let succ = successors(pos);
    assert!(
        succ.contains(&next),
        "{from}-{to} x{captured:?} is not legal in {}; successors: {:#?}",
        bushka_oracle::to_text(pos),
        show(&succ)
    );
    next
}

/// Assert that the legal moves of `pos` are exactly the given ones.
fn assert_exactly(pos: &OPos, moves: &[(&str, &str, &[&str])]) {
    let expected: BTreeSet<OPos> = moves.iter().map(|&(f, t, c)| after(pos, f, t, c)).collect();
    assert_eq!(expected.len(), moves.len(), "expected moves not distinct");
    let got = successors(pos);
    assert_eq!(
        show(&got),
        show(&expected),
        "successors of {}",
        bushka_oracle::to_text(pos)
    );
}

#[test]
fn square_names_round_trip() {
    assert_eq!(square_name(0, 0), "e1");
    assert_eq!(square_name(9, 9), "e0");
    assert_eq!(square_name(0, 8), "a5");
    assert_eq!(square_name(8, 0), "i5");
    assert_eq!(square_xy("e1"), (0, 0));
    assert_eq!(square_xy("e0"), (9, 9));
    assert_eq!(square_xy("a5"), (0, 8));
    assert_eq!(square_xy("i5"), (8, 0));
    let mut count = 0;
    for x in 0..10 {
        for y in 0..10 {
            if (x + y) % 2 == 0 {
                count += 1;
                assert_eq!(square_xy(&square_name(x, y)), (x, y));
            }
        }
    }
    assert_eq!(count, 50);
    // Back ranks (docs/rules.md 1.1).
    for name in ["a6", "b7", "c8", "d9", "e0"] {
        assert_eq!(square_xy(name).1, 9, "{name}");
    }
    for name in ["e1", "f2", "g3", "h4", "i5"] {
        assert_eq!(square_xy(name).1, 0, "{name}");
    }
}

#[test]
fn parse_and_format() {
    let pos = parse("B:WKe5,f4:Bd4,Ke7");
    assert!(!pos.white_to_move);
    let (x, y) = square_xy("e5");
    assert_eq!(
        pos.board[x as usize][y as usize],
        Some(OPiece {
            white: true,
            king: true
        })
    );
    let (x, y) = square_xy("d4");
    assert_eq!(
        pos.board[x as usize][y as usize],
        Some(OPiece {
            white: false,
            king: false
        })
    );
    assert_eq!(parse(&bushka_oracle::to_text(&pos)), pos);
    let empty_black = parse("B:We5,e6:B");
    assert_eq!(parse(&bushka_oracle::to_text(&empty_black)), empty_black);
    assert!(successors(&empty_black).is_empty());
    // The initial position: rows 0-2 white, rows 7-9 black.
    let init = bushka_oracle::initial();
    for x in 0..10 {
        for y in 0..10 {
            let p = init.board[x][y];
            if (x + y) % 2 == 1 || (3..7).contains(&y) {
                assert_eq!(p, None);
            } else {
                assert_eq!(p.map(|p| (p.white, p.king)), Some((y < 3, false)));
            }
        }
    }
}

#[test]
fn start_position_has_24_moves() {
    let init = bushka_oracle::initial();
    let succ = successors(&init);
    assert_eq!(succ.len(), 24, "{:#?}", show(&succ));
    // 9 man moves and 15 line moves: every move moves exactly one man.
    for s in &succ {
        assert!(!s.white_to_move);
        let changed: usize = (0..10)
            .flat_map(|x| (0..10).map(move |y| (x, y)))
            .filter(|&(x, y)| s.board[x][y] != init.board[x][y])
            .count();
        assert_eq!(changed, 2);
    }
}

#[test]
fn quiet_move_kinds() {
    // A white line d2-d3-d4 (number direction N+1 along the d-line) plus a king.
    let pos = parse("W:Wd2,d3,d4,Ke1:Ba5");
    // d4 steps to d5 (N+1) or c4 (L-1); d3 steps to c3; d2 is blocked (d3 in front,
    // the board edge to the left). Line moves along the d-line: d3 or d2 placed on d5.
    let mut moves: Vec<(&str, &str, &[&str])> = vec![
        ("d4", "d5", &[]),
        ("d4", "c4", &[]),
        ("d3", "d5", &[]),
        ("d2", "d5", &[]),
        ("d3", "c3", &[]),
    ];
    // King e1: along the e-line e2..e0 (none occupied) and nothing else from the corner.
    let king_targets = ["e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9", "e0"];
    for t in king_targets {
        moves.push(("e1", t, &[]));
    }
    assert_exactly(&pos, &moves);
    // A white man reaching the back rank promotes; in a line move only the front man.
    let pos = parse("W:Wd7,d8:Ba5");
    let succ = successors(&pos);
    let (x9, y9) = square_xy("d9");
    let promoted: Vec<_> = succ
        .iter()
        .filter(|s| s.board[x9 as usize][y9 as usize].is_some())
        .collect();
    assert_eq!(promoted.len(), 2);
    for s in promoted {
        assert!(s.board[x9 as usize][y9 as usize].unwrap().king);
    }
    for s in &succ {
        let kings = s
            .board
            .iter()
            .flatten()
            .flatten()
            .filter(|p| p.king)
            .count();
        assert!(kings <= 1);
    }
}

#[test]
fn seven_men_in_one_capture() {
    let start = parse("W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0");
    // White dc3 (d3 to c3).
    let pos = play(&start, "d3", "c3", &[]);
    // Black's only legal move: c54x (c5 to c4 taking c3).
    assert_exactly(&pos, &[("c5", "c4", &["c3"])]);
    let pos = after(&pos, "c5", "c4", &["c3"]);
    // White f34.
    let pos = play(&pos, "f3", "f4", &[]);
    // Black's only legal move: linear capture cxe4, c4 placed on e4 taking f4.
    assert_exactly(&pos, &[("c4", "e4", &["f4"])]);
    let pos = after(&pos, "c4", "e4", &["f4"]);
    // White's only legal move: e1x3, e1 placed on e3, taking e4..e0: 7 men.
    let seven: &[&str] = &["e4", "e5", "e6", "e7", "e8", "e9", "e0"];
    assert_exactly(&pos, &[("e1", "e3", seven)]);
    let pos = after(&pos, "e1", "e3", seven);
    // Black is left with d4 alone.
    assert_eq!(pos, parse("B:We2,e3:Bd4"));
}

#[test]
fn the_wrong_order() {
    let start = parse("W:We1,e2,d3,f3:Bc5,d4,e5,e6,e7,e8,e9,e0");
    let pos = play(&start, "f3", "f4", &[]);
    // Black's only legal move: d4e3x (d4-e4 taking f4, then e4-e3 taking e2).
    assert_exactly(&pos, &[("d4", "e3", &["f4", "e2"])]);
}

#[test]
fn t_strike() {
    let start = parse("W:We4,f4:Bd4,e7");
    let pos = play(&start, "e4", "e5", &[]);
    // Exactly two: de4x (taking f4) and e76x (taking e5).
    assert_exactly(&pos, &[("d4", "e4", &["f4"]), ("e7", "e6", &["e5"])]);
    // After de4x: White's only move e5x (e5-e6 taking e7, back to e5 taking e4).
    let a = after(&pos, "d4", "e4", &["f4"]);
    assert_exactly(&a, &[("e5", "e5", &["e7", "e4"])]);
    // After e76x: White's only move f4e5x (f4-e4 taking d4, e4-e5 taking e6).
    let b = after(&pos, "e7", "e6", &["e5"]);
    assert_exactly(&b, &[("f4", "e5", &["d4", "e6"])]);
    assert!(successors(&after(&b, "f4", "e5", &["d4", "e6"])).is_empty());
}

#[test]
fn backward_linear_capture() {
    let start = parse("W:We1,e6,e7:Be4,e5");
    let pos = play(&start, "e1", "e2", &[]);
    // Black's only legal move: e5x3 (line e4-e5 moves down, e5 placed on e3, taking e2).
    assert_exactly(&pos, &[("e5", "e3", &["e2"])]);
    let pos = after(&pos, "e5", "e3", &["e2"]);
    // White's only legal move: e7x5 (line e6-e7 moves backward, taking e4 and e3).
    assert_exactly(&pos, &[("e7", "e5", &["e4", "e3"])]);
    let pos = after(&pos, "e7", "e5", &["e4", "e3"]);
    assert_eq!(pos, parse("B:We5,e6:B"));
    assert!(successors(&pos).is_empty());
}

/// Reference lines `(position, depth, nodes)` from data/perft/bushka.txt (a copy of shared/perft/bushka.txt).
fn reference_lines() -> Vec<(String, u32, u64)> {
    crate::support::perft_suite::lines("bushka")
        .into_iter()
        .map(|l| (l.text, l.depth, l.nodes))
        .collect()
}

/// Lines with at most this many nodes run in the default test; the rest are ignored.
const PERFT_CAP: u64 = 300_000;

fn check_perft(select: impl Fn(u64) -> bool) {
    let lines = reference_lines();
    let mut failures = Vec::new();
    let mut ran = 0;
    for (fen, depth, nodes) in lines.iter().filter(|l| select(l.2)) {
        let t = Instant::now();
        let got = perft(&parse(fen), *depth);
        ran += 1;
        eprintln!(
            "{fen} depth {depth}: {got} (expected {nodes}) in {:.2?}",
            t.elapsed()
        );
        if got != *nodes {
            failures.push(format!("{fen} depth {depth}: got {got}, expected {nodes}"));
        }
    }
    assert!(ran > 0, "no perft lines selected");
    assert!(
        failures.is_empty(),
        "perft mismatches:\n{}",
        failures.join("\n")
    );
}

#[test]
fn perft_reference_small() {
    check_perft(|nodes| nodes <= PERFT_CAP);
}

#[test]
#[ignore = "large perft counts (cargo test -p bushka-engine --test engine -- --ignored perft_reference_large)"]
fn perft_reference_large() {
    check_perft(|nodes| nodes > PERFT_CAP);
}

#[test]
fn king_captures_by_approach_only() {
    // A flying king lands on the last empty square before the piece it takes.
    let pos = parse("W:WKe1:Be5");
    assert_exactly(&pos, &[("e1", "e4", &["e5"])]);
    // A piece directly next to the king cannot be taken in that direction; the
    // corner king then has no move at all.
    assert!(successors(&parse("W:WKe1:Be2")).is_empty());
}

#[test]
fn linear_capture_takes_the_opposing_line_up_to_a_king() {
    // The black line e4-e5 is taken, the king on e6 ends it and stays.
    let pos = parse("W:We1,e2:Be4,e5,Ke6,e7");
    assert_exactly(&pos, &[("e1", "e3", &["e4", "e5"])]);
    // A king as the first target is taken alone.
    let pos = parse("W:We1,e2:BKe4,e5");
    assert_exactly(&pos, &[("e1", "e3", &["e4"])]);
    // A line of three gives two linear captures with the same pieces taken.
    let pos = parse("W:We1,e2,e3:Be5,e6");
    assert_exactly(
        &pos,
        &[("e1", "e4", &["e5", "e6"]), ("e2", "e4", &["e5", "e6"])],
    );
}

#[test]
fn linear_precedence_and_majority() {
    let s = |x: i32, y: i32| square_name(x, y);
    let (k, b1, b2, land) = (s(8, 0), s(6, 2), s(9, 3), s(8, 2));
    // The king on (8,0) can take two men ((6,2), then (9,3)); the line e1-e2 can take
    // e4 alone. The linear capture is compulsory all the same.
    let text = format!("W:We1,e2,K{k}:Be4,{b1},{b2}");
    let pos = parse(&text);
    assert_exactly(&pos, &[("e1", "e3", &["e4"])]);
    // Without the line, e2 could take e4 alone; the majority rule forces the king.
    let text = format!("W:We2,K{k}:Be4,{b1},{b2}");
    let pos = parse(&text);
    assert_exactly(&pos, &[(&k, &land, &[&b1, &b2])]);
}
