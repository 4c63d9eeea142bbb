//! A deliberately plain, independent Bushka move generator ("oracle") for tests.
//!
//! Written square by square straight from `docs/rules.md` section 1, with no
//! bitboards and nothing from the `engine` crate, so that it can be used to check
//! the fast generator. Speed is not a goal.
//!
//! Coordinates are the Cartesian ones of docs/rules.md 1.1: `board[x][y]`, `x` = column
//! 0..9 left to right, `y` = row 0..9 from White's side; dark squares have `x + y`
//! even. White plays up the board (towards `y = 9`).
#![allow(dead_code)]

use std::collections::BTreeSet;

/// One piece on the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct OPiece {
    pub white: bool,
    pub king: bool,
}

/// A Bushka position: side to move and the board, `board[x][y]`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct OPos {
    pub white_to_move: bool,
    pub board: [[Option<OPiece>; 10]; 10],
}

/// The four diagonal directions: `N+1`, `N-1`, `L-1`, `L+1` (docs/rules.md 1.1).
pub const DIRS: [(i32, i32); 4] = [(1, 1), (-1, -1), (-1, 1), (1, -1)];

/// Is `(x, y)` a square of the board (dark squares only)?
pub fn on_board(x: i32, y: i32) -> bool {
    (0..10).contains(&x) && (0..10).contains(&y) && (x + y) % 2 == 0
}

/// Name of the square `(x, y)` in docs/rules.md 1.1 notation, e.g. `(0,0)` is `e1`.
pub fn square_name(x: i32, y: i32) -> String {
    assert!(on_board(x, y), "not a dark square: ({x},{y})");
    let l = (x - y) / 2 + 4; // 0..8
    let n = (x + y) / 2 + 1; // 1..10
    let letter = (b'a' + l as u8) as char;
    let digit = (b'0' + (n % 10) as u8) as char;
    format!("{letter}{digit}")
}

/// Coordinates of a square name such as `e1` or `a5`. Panics on a bad name.
pub fn square_xy(name: &str) -> (i32, i32) {
    let b = name.as_bytes();
    assert!(b.len() == 2, "bad square name {name:?}");
    assert!((b'a'..=b'i').contains(&b[0]), "bad letter in {name:?}");
    assert!(b[1].is_ascii_digit(), "bad digit in {name:?}");
    let l = (b[0] - b'a') as i32;
    let n = if b[1] == b'0' {
        10
    } else {
        (b[1] - b'0') as i32
    };
    let x = (n - 1) + (l - 4);
    let y = (n - 1) - (l - 4);
    assert!(on_board(x, y), "square {name:?} is off the board");
    (x, y)
}

/// An empty board with the given side to move.
pub fn empty(white_to_move: bool) -> OPos {
    OPos {
        white_to_move,
        board: [[None; 10]; 10],
    }
}

/// Parse the position text of docs/rules.md 1.8, e.g. `W:We1,e2,Kd3:Bc5,d4`.
/// Panics on malformed input (test code only).
pub fn parse(text: &str) -> OPos {
    let fields: Vec<&str> = text.trim().split(':').collect();
    assert!(fields.len() == 3, "position text needs 3 fields: {text:?}");
    let white_to_move = match fields[0].trim() {
        "W" => true,
        "B" => false,
        other => panic!("bad side to move {other:?} in {text:?}"),
    };
    let mut pos = empty(white_to_move);
    let mut seen_sides = Vec::new();
    for field in &fields[1..] {
        let field = field.trim();
        let white = match field.chars().next() {
            Some('W') => true,
            Some('B') => false,
            _ => panic!("bad side field {field:?} in {text:?}"),
        };
        assert!(!seen_sides.contains(&white), "side listed twice: {text:?}");
        seen_sides.push(white);
        let rest = &field[1..];
        if rest.trim().is_empty() {
            continue;
        }
        for token in rest.split(',') {
            let token = token.trim();
            let (king, name) = match token.strip_prefix('K') {
                Some(name) => (true, name),
                None => (false, token),
            };
            let (x, y) = square_xy(name);
            assert!(
                pos.board[x as usize][y as usize].is_none(),
                "square {name} listed twice in {text:?}"
            );
            if !king {
                assert!(
                    y != promotion_row(white),
                    "man on its promotion row at {name} in {text:?}"
                );
            }
            pos.board[x as usize][y as usize] = Some(OPiece { white, king });
        }
    }
    pos
}

/// Format a position in the docs/rules.md 1.8 text (squares in a fixed order).
pub fn to_text(pos: &OPos) -> String {
    let mut s = String::from(if pos.white_to_move { "W" } else { "B" });
    for white in [true, false] {
        s.push(':');
        s.push(if white { 'W' } else { 'B' });
        let mut first = true;
        for y in 0..10 {
            for x in 0..10 {
                if let Some(p) = pos.board[x as usize][y as usize] {
                    if p.white == white {
                        if !first {
                            s.push(',');
                        }
                        first = false;
                        if p.king {
                            s.push('K');
                        }
                        s.push_str(&square_name(x, y));
                    }
                }
            }
        }
    }
    s
}

/// The starting position of docs/rules.md 1.2.
pub fn initial() -> OPos {
    parse(
        "W:We1,f2,g3,h4,i5,e2,f3,g4,h5,i6,d2,e3,f4,g5,h6:\
         Ba5,b6,c7,d8,e9,a6,b7,c8,d9,e0,b5,c6,d7,e8,f9",
    )
}

fn get(board: &[[Option<OPiece>; 10]; 10], x: i32, y: i32) -> Option<OPiece> {
    board[x as usize][y as usize]
}

fn set(board: &mut [[Option<OPiece>; 10]; 10], x: i32, y: i32, p: Option<OPiece>) {
    board[x as usize][y as usize] = p;
}

/// Is there a man of colour `white` on `(x, y)` (which must be on the board)?
fn own_man_at(board: &[[Option<OPiece>; 10]; 10], x: i32, y: i32, white: bool) -> bool {
    on_board(x, y) && get(board, x, y) == Some(OPiece { white, king: false })
}

/// Is `(x, y)` on the board and empty?
fn empty_at(board: &[[Option<OPiece>; 10]; 10], x: i32, y: i32) -> bool {
    on_board(x, y) && get(board, x, y).is_none()
}

/// White's forward directions are `N+1` and `L-1`; Black's are `N-1` and `L+1`.
fn forward_dirs(white: bool) -> [(i32, i32); 2] {
    if white {
        [(1, 1), (-1, 1)]
    } else {
        [(-1, -1), (1, -1)]
    }
}

/// The opponent's back rank, where a man of colour `white` promotes.
fn promotion_row(white: bool) -> i32 {
    if white {
        9
    } else {
        0
    }
}

/// The position after a move: `board` is the new board, the side flips.
fn finish(pos: &OPos, board: [[Option<OPiece>; 10]; 10]) -> OPos {
    OPos {
        white_to_move: !pos.white_to_move,
        board,
    }
}

/// The men of a line whose head is `(hx, hy)` in direction `(dx, dy)`, head first:
/// `h, h-d, h-2d, ...` while they hold men of colour `white`.
fn line_of_men(pos: &OPos, hx: i32, hy: i32, dx: i32, dy: i32, white: bool) -> Vec<(i32, i32)> {
    let mut men = Vec::new();
    let (mut x, mut y) = (hx, hy);
    while own_man_at(&pos.board, x, y, white) {
        men.push((x, y));
        x -= dx;
        y -= dy;
    }
    men
}

/// All linear captures of the side to move, as (pieces captured, resulting position).
fn linear_captures(pos: &OPos) -> Vec<(usize, OPos)> {
    let me = pos.white_to_move;
    let mut out = Vec::new();
    for hx in 0..10 {
        for hy in 0..10 {
            if !own_man_at(&pos.board, hx, hy, me) {
                continue;
            }
            for &(dx, dy) in &DIRS {
                // h must be the head of a line in direction d: h-d holds an own man.
                if !own_man_at(&pos.board, hx - dx, hy - dy, me) {
                    continue;
                }
                // h+d empty.
                if !empty_at(&pos.board, hx + dx, hy + dy) {
                    continue;
                }
                // h+2d holds an opponent's piece T.
                let (tx, ty) = (hx + 2 * dx, hy + 2 * dy);
                if !on_board(tx, ty) {
                    continue;
                }
                let target = match get(&pos.board, tx, ty) {
                    Some(p) if p.white != me => p,
                    _ => continue,
                };
                let mut captured = vec![(tx, ty)];
                if !target.king {
                    // The whole opposing line of men headed by T.
                    let (mut x, mut y) = (tx + dx, ty + dy);
                    while own_man_at(&pos.board, x, y, !me) {
                        captured.push((x, y));
                        x += dx;
                        y += dy;
                    }
                }
                let line = line_of_men(pos, hx, hy, dx, dy, me);
                assert!(line.len() >= 2);
                // Any man from the second to the last is placed on h+d.
                for &(mx, my) in &line[1..] {
                    let mut board = pos.board;
                    set(&mut board, mx, my, None);
                    set(
                        &mut board,
                        hx + dx,
                        hy + dy,
                        Some(OPiece {
                            white: me,
                            king: false,
                        }),
                    );
                    for &(cx, cy) in &captured {
                        set(&mut board, cx, cy, None);
                    }
                    out.push((captured.len(), finish(pos, board)));
                }
            }
        }
    }
    out
}

/// Recursive search of piece-capture sequences.
///
/// `board` has the capturing piece removed from its starting square (it counts as
/// empty during the sequence); captured pieces are still on `board` and are listed
/// in `captured`. `(x, y)` is where the piece stands now. `dirs_allowed` restricts
/// the first step (men start only in directions where they are isolated).
#[allow(clippy::too_many_arguments)]
fn piece_capture_search(
    pos: &OPos,
    board: &[[Option<OPiece>; 10]; 10],
    piece: OPiece,
    x: i32,
    y: i32,
    captured: &mut Vec<(i32, i32)>,
    dirs_allowed: &[(i32, i32)],
    out: &mut Vec<(usize, OPos)>,
) {
    let mut continued = false;
    for &(dx, dy) in dirs_allowed {
        // Find the landing square and the target square in this direction.
        let (land, target) = if piece.king {
            // Fly over empty squares; land on the last empty one before a piece.
            let (mut jx, mut jy) = (x + dx, y + dy);
            if !empty_at(board, jx, jy) {
                continue; // j >= 1: an adjacent piece cannot be taken this way
            }
            while empty_at(board, jx + dx, jy + dy) {
                jx += dx;
                jy += dy;
            }
            ((jx, jy), (jx + dx, jy + dy))
        } else {
            if !empty_at(board, x + dx, y + dy) {
                continue;
            }
            ((x + dx, y + dy), (x + 2 * dx, y + 2 * dy))
        };
        if !on_board(target.0, target.1) {
            continue;
        }
        match get(board, target.0, target.1) {
            Some(p) if p.white != piece.white => {}
            _ => continue,
        }
        if captured.contains(&target) {
            continue; // blocks, but cannot be captured again
        }
        continued = true;
        captured.push(target);
        piece_capture_search(pos, board, piece, land.0, land.1, captured, &DIRS, out);
        captured.pop();
    }
    if !continued && !captured.is_empty() {
        // Sequence complete: remove the captured pieces, put the piece down.
        let mut result = *board;
        for &(cx, cy) in captured.iter() {
            set(&mut result, cx, cy, None);
        }
        assert!(get(&result, x, y).is_none());
        // No promotion by capture (docs/rules.md 1.5); a capture never ends on a back rank.
        assert!(
            piece.king || y != promotion_row(piece.white),
            "capture ended on the back rank"
        );
        set(&mut result, x, y, Some(piece));
        out.push((captured.len(), finish(pos, result)));
    }
}

/// All complete piece captures of the side to move, as (pieces captured, position).
fn piece_captures(pos: &OPos) -> Vec<(usize, OPos)> {
    let me = pos.white_to_move;
    let mut out = Vec::new();
    for x in 0..10 {
        for y in 0..10 {
            let piece = match get(&pos.board, x, y) {
                Some(p) if p.white == me => p,
                _ => continue,
            };
            let dirs: Vec<(i32, i32)> = if piece.king {
                DIRS.to_vec()
            } else {
                // A man may only start a capture in a direction in which it is
                // isolated: the square behind it holds no man of its own colour.
                DIRS.iter()
                    .copied()
                    .filter(|&(dx, dy)| !own_man_at(&pos.board, x - dx, y - dy, me))
                    .collect()
            };
            let mut board = pos.board;
            set(&mut board, x, y, None); // the starting square counts as empty
            let mut captured = Vec::new();
            piece_capture_search(pos, &board, piece, x, y, &mut captured, &dirs, &mut out);
        }
    }
    out
}

/// All non-capturing moves of the side to move (resulting positions).
fn quiet_moves(pos: &OPos) -> Vec<OPos> {
    let me = pos.white_to_move;
    let mut out = Vec::new();
    for x in 0..10 {
        for y in 0..10 {
            let piece = match get(&pos.board, x, y) {
                Some(p) if p.white == me => p,
                _ => continue,
            };
            if piece.king {
                for &(dx, dy) in &DIRS {
                    let (mut tx, mut ty) = (x + dx, y + dy);
                    while empty_at(&pos.board, tx, ty) {
                        let mut board = pos.board;
                        set(&mut board, x, y, None);
                        set(&mut board, tx, ty, Some(piece));
                        out.push(finish(pos, board));
                        tx += dx;
                        ty += dy;
                    }
                }
                continue;
            }
            for &(dx, dy) in &forward_dirs(me) {
                let (tx, ty) = (x + dx, y + dy);
                if !empty_at(&pos.board, tx, ty) {
                    continue;
                }
                let placed = OPiece {
                    white: me,
                    king: ty == promotion_row(me),
                };
                // Single step of this man.
                let mut board = pos.board;
                set(&mut board, x, y, None);
                set(&mut board, tx, ty, Some(placed));
                out.push(finish(pos, board));
                // Line moves: (x, y) is the head of a line in direction d when the
                // square behind it holds an own man; any man from the second to the
                // last is placed in front of the head.
                let line = line_of_men(pos, x, y, dx, dy, me);
                for &(mx, my) in line.iter().skip(1) {
                    let mut board = pos.board;
                    set(&mut board, mx, my, None);
                    set(&mut board, tx, ty, Some(placed));
                    out.push(finish(pos, board));
                }
            }
        }
    }
    out
}

/// Keep only the positions of the moves capturing the most pieces.
fn majority(moves: Vec<(usize, OPos)>) -> BTreeSet<OPos> {
    let best = moves.iter().map(|m| m.0).max().unwrap_or(0);
    moves
        .into_iter()
        .filter(|m| m.0 == best)
        .map(|m| m.1)
        .collect()
}

/// The set of positions after every legal move (side to move flipped).
pub fn successors(pos: &OPos) -> BTreeSet<OPos> {
    let linear = linear_captures(pos);
    if !linear.is_empty() {
        return majority(linear);
    }
    let piece = piece_captures(pos);
    if !piece.is_empty() {
        return majority(piece);
    }
    quiet_moves(pos).into_iter().collect()
}

/// Number of leaf positions at `depth`, counting moves by distinct resulting position.
pub fn perft(pos: &OPos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let succ = successors(pos);
    if depth == 1 {
        return succ.len() as u64;
    }
    succ.iter().map(|p| perft(p, depth - 1)).sum()
}
