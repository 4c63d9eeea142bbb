//! One position per rule bullet of docs/rules.md 2.2-2.3: exact legal move lists
//! and the key resulting positions.

use engine::bashnya::Position;
use engine::{Game, MoveList};

fn pos(text: &str) -> Position {
    Position::parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The legal moves' texts, sorted.
fn move_texts(p: &Position) -> Vec<String> {
    let mut list = MoveList::new();
    p.generate(&mut list);
    let mut texts: Vec<String> = list.iter().map(|m| p.move_text(m)).collect();
    texts.sort();
    texts
}

/// Asserts the exact legal move list of a position.
fn assert_moves(text: &str, expected: &[&str]) {
    let p = pos(text);
    let mut want: Vec<String> = expected.iter().map(ToString::to_string).collect();
    want.sort();
    assert_eq!(move_texts(&p), want, "moves of {text}");
    assert_eq!(p.count_moves(), want.len() as u64, "count of {text}");
}

/// Asserts the position a move (given as text) leads to.
fn assert_after(text: &str, mv: &str, expected: &str) {
    let p = pos(text);
    let m = p
        .parse_move(mv)
        .unwrap_or_else(|e| panic!("{mv} in {text}: {e}"));
    assert_eq!(p.play(&m).to_text(), expected, "{text} after {mv}");
}

#[test]
fn start_position_has_seven_steps() {
    assert_moves(
        &Position::start().to_text(),
        &[
            "a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4",
        ],
    );
}

#[test]
fn man_commanded_columns_step_forward_only() {
    assert_moves("W:d4=wbb,h2=wB", &["d4-c5", "d4-e5", "h2-g3"]);
    assert_moves("B:d4=bww,a3=bW", &["a3-b2", "d4-c3", "d4-e3"]);
    assert_after("W:d4=wbb,h2=wB", "d4-e5", "B:h2=wB,e5=wbb");
}

#[test]
fn king_commanded_columns_fly() {
    assert_moves(
        "W:d4=Wbw,f6=w",
        &[
            "d4-a1", "d4-a7", "d4-b2", "d4-b6", "d4-c3", "d4-c5", "d4-e3", "d4-e5", "d4-f2",
            "d4-g1", "f6-e7", "f6-g7",
        ],
    );
}

#[test]
fn quiet_promotion_on_the_far_rank() {
    assert_moves("W:c7=wb", &["c7-b8", "c7-d8"]);
    // Only the commander is crowned; the prisoner stays a man.
    assert_after("W:c7=wb", "c7-d8", "B:d8=Wb");
    assert_after("B:f2=bw", "f2-g1", "W:g1=Bw");
}

#[test]
fn capture_is_compulsory_for_every_column() {
    assert_moves("W:a1=w,c3=w,h2=W,d4=b", &["c3:e5"]);
    assert_moves("W:a1=w,g1=Ww,d4=b", &["g1:c5", "g1:b6", "g1:a7"]);
}

#[test]
fn no_majority_rule_but_captures_play_to_the_end() {
    // Taking one piece is as legal as taking two, but the two-piece capture
    // may not stop half way (no c3:e5).
    assert_moves("W:e1=w,c3=w,f2=b,d4=b,f6=b", &["c3:e5:g7", "e1:g3"]);
}

#[test]
fn men_capture_backward() {
    assert_moves("W:e5=w,d4=b", &["e5:c3"]);
    assert_moves("B:d4=b,e5=w", &["d4:f6"]);
}

#[test]
fn column_commanded_by_a_man_captures_backward() {
    assert_moves("W:e5=wbb,d4=b,a1=w", &["e5:c3"]);
    // The taken piece goes to the bottom of the capturing column.
    assert_after("W:e5=wbb,d4=Bw,a1=w", "e5:c3", "B:a1=w,c3=wbbB,d4=w");
}

#[test]
fn only_the_commander_is_taken_and_the_prisoner_is_released() {
    assert_after("W:c3=w,d4=bw", "c3:e5", "B:d4=w,e5=wb");
    // The released white column blocks the king's way back.
    assert_moves("W:a1=W,d4=bw", &["a1:e5", "a1:f6", "a1:g7", "a1:h8"]);
    assert_after("W:a1=W,d4=bw", "a1:e5", "B:d4=w,e5=Wb");
}

#[test]
fn a_king_surfaces_from_inside_a_column() {
    // White takes the black man on top; the black king under it now commands.
    assert_after("W:c3=w,d4=bBw", "c3:e5", "B:d4=Bw,e5=wb");
    // ... and captures as a flying king (a man could only land on f6).
    assert_moves("B:d4=Bw,e5=wb", &["d4:f6", "d4:g7", "d4:h8"]);
    // A king taken prisoner stays a king inside the column.
    assert_after("W:c3=w,d4=B", "c3:e5", "B:e5=wB");
}

#[test]
fn jumped_single_piece_leaves_its_square_at_once() {
    // The king goes back through e5 (just emptied) and over its own start
    // square to take b2; all three landings beyond e5 lead to one position.
    // (Taking b2 first and coming back over e5 gives three more.)
    let text = "W:b2=b,d4=W,e5=b";
    assert_moves(text, &["d4:a1:f6", "d4:a1:g7", "d4:a1:h8", "d4:f6:a1"]);
    for route in ["d4:f6:a1", "d4:g7:a1", "d4:h8:a1", "d4:a1"] {
        assert_after(text, route, "B:a1=Wbb");
    }
}

#[test]
fn a_column_is_jumped_again_after_another_jump() {
    // a1 takes the top of c3, then e5, then comes back over c3 again.
    assert_moves("W:a1=W,c3=bb,e5=b", &["a1:d4:f6:a1", "a1:d4:f6:b2"]);
    assert_after("W:a1=W,c3=bb,e5=b", "a1:d4:f6:b2", "B:b2=Wbbb");
    assert_after("W:a1=W,c3=bB,e5=b", "a1:d4:g7:a1", "B:a1=WbbB");
}

#[test]
fn no_immediate_jump_back_over_the_same_column() {
    assert_moves("W:c3=w,d4=bb", &["c3:e5"]);
    assert_after("W:c3=w,d4=bb", "c3:e5", "B:d4=b,e5=wb");
}

/// The worked examples of docs/rules.md 2.3, with their results as `bushka moves`
/// prints them.
#[test]
fn worked_examples_of_the_re_jump_decision() {
    // d4 is jumped twice, with three jumps between; from c3 the other route
    // may not go straight back over d4, which it has just jumped.
    let text = "W:c3=w,d4=bb,f4=b,f2=b,d2=b";
    assert_moves(text, &["c3:e1:g3:e5:c3", "c3:e5:g3:e1:c3:e5"]);
    assert_after(text, "c3:e5:g3:e1:c3:e5", "B:e5=wbbbbb");
    assert_after(text, "c3:e1:g3:e5:c3", "B:c3=wbbbb,d4=b");
    // Of the king's landings beyond c3 only d4 lets the capture go on.
    assert_moves("W:a1=W,c3=bb,f2=b", &["a1:d4:g1"]);
}

#[test]
fn promotion_during_a_capture_continues_as_a_king() {
    // The man jumps c7 to b8, is crowned, and flies on over f4.
    assert_moves("W:d6=w,c7=b,f4=b", &["d6:b8:g3", "d6:b8:h2"]);
    assert_after("W:d6=w,c7=b,f4=b", "d6:b8:h2", "B:h2=Wbb");
    // Crowned at the end of a capture that cannot go on.
    assert_after("B:c3=b,d2=w", "c3:e1", "W:e1=Bw");
}

#[test]
fn king_must_land_where_the_capture_continues() {
    // Beyond c3 the king could stop on d4..h8, but only from e5 can it go on
    // (over d6, then landing on c7 or b8 as it likes).
    assert_moves("W:a1=W,c3=b,d6=b", &["a1:e5:b8", "a1:e5:c7"]);
    // With no landing that continues, every landing is a move.
    assert_moves(
        "W:a1=W,c3=b",
        &["a1:d4", "a1:e5", "a1:f6", "a1:g7", "a1:h8"],
    );
}

#[test]
fn a_side_without_moves_has_none() {
    assert_moves("W:", &[]);
    assert_moves("B:a1=w,c3=w", &[]);
    // Every white piece is a prisoner.
    assert_moves("W:d4=bw,f6=bww", &[]);
    // Blocked.
    assert_moves("W:a1=w,b2=b,c3=b", &[]);
}

#[test]
fn irreversible_and_progress_moves() {
    // A man's step is progress (for the harness's no-progress limit) but
    // not irreversible: a man captures backwards and can come back.
    let p = pos("W:a1=w,d4=W");
    let mut list = MoveList::new();
    p.generate(&mut list);
    for m in &list {
        assert_eq!(p.is_progress(m), m.from() == 0, "{m}");
        assert!(!p.is_irreversible(m, &p.play(m)), "{m}");
    }
    // A man that crowns stays a king.
    let p = pos("W:c7=w");
    let mut list = MoveList::new();
    p.generate(&mut list);
    assert!(list.iter().all(|m| p.is_irreversible(m, &p.play(m))));
    // A capture that empties a square is irreversible ...
    let c = pos("W:c3=W,d4=b");
    let mut list = MoveList::new();
    c.generate(&mut list);
    assert!(list
        .iter()
        .all(|m| c.is_irreversible(m, &c.play(m)) && c.is_progress(m) && Position::is_capture(m)));
    assert!(list.iter().all(|m| Position::captured_count(m) == 1));
    // ... one that only shortens a column is not.
    let c = pos("W:c3=W,d4=bw");
    let mut list = MoveList::new();
    c.generate(&mut list);
    assert!(!list.is_empty());
    assert!(list
        .iter()
        .all(|m| !c.is_irreversible(m, &c.play(m)) && c.is_progress(m)));
}

/// Twelve plies, two of them captures, that come back to the position they
/// start from: no piece leaves the board in Bashnya, so captures do not end
/// the count of repetitions (docs/rules.md 2.4).
const CYCLE_START: &str = "W:a1=W,e1=B,b2=BW";
const CYCLE: [&str; 12] = [
    "a1:d4", "e1-g3", "d4-f2", "g3:e1", "b2-e5", "e1-d2", "e5-a1", "f2-e1", "a1-b2", "d2-c1",
    "b2-a1", "c1-b2",
];

#[test]
fn a_position_repeats_across_captures() {
    use engine::record::{EndReason, GameRecord};
    use engine::Outcome;
    let mut game = GameRecord::new(pos(CYCLE_START));
    for round in 1..=2 {
        for (i, m) in CYCLE.iter().enumerate() {
            assert_eq!(game.outcome(), None, "round {round}, before {m}");
            game.push_text(m).unwrap_or_else(|e| panic!("{m}: {e}"));
            if i == 3 {
                // The second capture: progress, but not irreversible.
                assert_eq!(game.plies_without_progress(), 0);
            }
        }
        assert_eq!(game.current().to_text(), CYCLE_START);
        assert_eq!(game.repetitions(), round + 1);
    }
    assert_eq!(game.outcome(), Some((Outcome::Draw, EndReason::Repetition)));
    assert_eq!(game.search_history().len(), 24);
}

#[test]
fn mirror_swaps_colours_and_turns_the_board() {
    let p = pos("W:a1=w,c3=Wb,d6=Bww");
    let m = p.mirror();
    assert_eq!(m.to_text(), "B:e3=Wbb,f6=Bw,h8=b");
    assert_eq!(m.mirror(), p);
    assert_eq!(m.count_moves(), p.count_moves());
}

#[test]
fn hash_covers_the_whole_column() {
    let a = pos("W:a1=w,c3=wbw");
    let b = pos("W:a1=w,c3=wwb");
    assert_ne!(a.hash(), b.hash());
    // A column built by a capture hashes as the same column read from text.
    let before = pos("W:c3=w,d4=b");
    let after = before.play(&before.parse_move("c3:e5").unwrap());
    assert_eq!(after.to_text(), "B:e5=wb");
    assert_eq!(after.hash(), pos("B:e5=wb").hash());
    assert_ne!(a.hash(), pos("B:a1=w,c3=wbw").hash());
    assert_ne!(pos("W:c3=wW").hash(), pos("W:c3=ww").hash());
}
