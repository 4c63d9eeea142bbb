//! A deliberately plain Bashnya move generator, written straight from
//! docs/rules.md 2.2-2.3, for checking the fast one. It shares no code with the
//! engine: it reads and writes position texts itself and walks an 8x8 array
//! square by square. Slow and simple on purpose.

#![allow(dead_code)]

use std::collections::BTreeMap;

/// A column, top piece first, as position-text letters (`w W b B`).
pub type Stack = Vec<char>;

/// A board: `board[file][rank]`, `None` on empty or light squares.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Board {
    pub white_to_move: bool,
    pub squares: [[Option<Stack>; 8]; 8],
}

/// One legal move as the oracle sees it: start, landing squares, result text.
#[derive(Clone, Debug)]
pub struct Found {
    pub from: (i32, i32),
    pub route: Vec<(i32, i32)>,
    pub capture: bool,
    pub result: String,
}

const DIRECTIONS: [(i32, i32); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

fn on_board(f: i32, r: i32) -> bool {
    (0..8).contains(&f) && (0..8).contains(&r)
}

fn is_white(piece: char) -> bool {
    piece == 'w' || piece == 'W'
}

fn is_king(piece: char) -> bool {
    piece == 'W' || piece == 'B'
}

/// Square name such as `c3`.
pub fn name(sq: (i32, i32)) -> String {
    format!("{}{}", (b'a' + sq.0 as u8) as char, sq.1 + 1)
}

impl Board {
    /// Reads a position text (trusted input: the engine's own output).
    pub fn parse(text: &str) -> Board {
        let (side, rest) = text.split_once(':').expect("side");
        let mut squares: [[Option<Stack>; 8]; 8] = Default::default();
        for item in rest.split(',').filter(|s| !s.is_empty()) {
            let (sq, col) = item.split_once('=').expect("square=column");
            let b = sq.as_bytes();
            let f = (b[0] - b'a') as usize;
            let r = (b[1] - b'1') as usize;
            squares[f][r] = Some(col.chars().collect());
        }
        Board {
            white_to_move: side == "W",
            squares,
        }
    }

    /// Writes the position text, squares rank by rank from a1, files left to right.
    pub fn text(&self) -> String {
        let mut items = Vec::new();
        for r in 0..8 {
            for f in 0..8 {
                if let Some(col) = &self.squares[f][r] {
                    items.push(format!(
                        "{}={}",
                        name((f as i32, r as i32)),
                        col.iter().collect::<String>()
                    ));
                }
            }
        }
        format!(
            "{}:{}",
            if self.white_to_move { "W" } else { "B" },
            items.join(",")
        )
    }

    fn at(&self, sq: (i32, i32)) -> Option<&Stack> {
        self.squares[sq.0 as usize][sq.1 as usize].as_ref()
    }

    fn empty(&self, sq: (i32, i32)) -> bool {
        on_board(sq.0, sq.1) && self.at(sq).is_none()
    }

    fn is_mine(&self, sq: (i32, i32)) -> bool {
        self.at(sq)
            .is_some_and(|c| is_white(c[0]) == self.white_to_move)
    }

    fn is_enemy(&self, sq: (i32, i32)) -> bool {
        on_board(sq.0, sq.1)
            && self
                .at(sq)
                .is_some_and(|c| is_white(c[0]) != self.white_to_move)
    }

    fn far_rank(&self) -> i32 {
        if self.white_to_move {
            7
        } else {
            0
        }
    }

    fn forward(&self) -> i32 {
        if self.white_to_move {
            1
        } else {
            -1
        }
    }
}

/// Every legal move.
pub fn legal_moves(board: &Board) -> Vec<Found> {
    let captures = all_captures(board);
    if !captures.is_empty() {
        return captures;
    }
    quiet_moves(board)
}

/// The distinct resulting position texts, sorted.
pub fn results(board: &Board) -> Vec<String> {
    let mut set: Vec<String> = legal_moves(board).into_iter().map(|m| m.result).collect();
    set.sort();
    set.dedup();
    set
}

fn quiet_moves(board: &Board) -> Vec<Found> {
    let mut out = Vec::new();
    for f in 0..8 {
        for r in 0..8 {
            let from = (f, r);
            if !board.is_mine(from) {
                continue;
            }
            let king = is_king(board.at(from).unwrap()[0]);
            for (df, dr) in DIRECTIONS {
                if !king && dr != board.forward() {
                    continue;
                }
                let mut to = (f + df, r + dr);
                while board.empty(to) {
                    out.push(quiet_result(board, from, to));
                    if !king {
                        break;
                    }
                    to = (to.0 + df, to.1 + dr);
                }
            }
        }
    }
    out
}

fn quiet_result(board: &Board, from: (i32, i32), to: (i32, i32)) -> Found {
    let mut next = board.clone();
    let mut col = next.squares[from.0 as usize][from.1 as usize]
        .take()
        .unwrap();
    if to.1 == board.far_rank() {
        col[0] = col[0].to_ascii_uppercase();
    }
    next.squares[to.0 as usize][to.1 as usize] = Some(col);
    next.white_to_move = !board.white_to_move;
    Found {
        from,
        route: vec![to],
        capture: false,
        result: next.text(),
    }
}

/// The state of one capture in progress.
#[derive(Clone)]
struct Capture {
    board: Board,
    from: (i32, i32),
    at: (i32, i32),
    column: Stack,
    route: Vec<(i32, i32)>,
    last: Option<(i32, i32)>,
}

fn all_captures(board: &Board) -> Vec<Found> {
    let mut out = Vec::new();
    for f in 0..8 {
        for r in 0..8 {
            if !board.is_mine((f, r)) {
                continue;
            }
            let mut lifted = board.clone();
            let column = lifted.squares[f as usize][r as usize].take().unwrap();
            let start = Capture {
                board: lifted,
                from: (f, r),
                at: (f, r),
                column,
                route: vec![],
                last: None,
            };
            extend(&start, &mut out);
        }
    }
    out
}

/// A jump: the jumped square and the landing squares beyond it.
type Jump = ((i32, i32), Vec<(i32, i32)>);

/// The jumps available to the capture in progress.
fn jumps(c: &Capture) -> Vec<Jump> {
    let king = is_king(c.column[0]);
    let mut out = Vec::new();
    for (df, dr) in DIRECTIONS {
        let mut over = (c.at.0 + df, c.at.1 + dr);
        if king {
            while c.board.empty(over) {
                over = (over.0 + df, over.1 + dr);
            }
        }
        if !c.board.is_enemy(over) || c.last == Some(over) {
            continue;
        }
        let mut landings = Vec::new();
        let mut land = (over.0 + df, over.1 + dr);
        while c.board.empty(land) {
            landings.push(land);
            if !king {
                break;
            }
            land = (land.0 + df, land.1 + dr);
        }
        if !landings.is_empty() {
            out.push((over, landings));
        }
    }
    out
}

/// The capture after jumping `over` and landing on `land`.
fn jump(c: &Capture, over: (i32, i32), land: (i32, i32)) -> Capture {
    let mut next = c.clone();
    let jumped = next.board.squares[over.0 as usize][over.1 as usize]
        .as_mut()
        .unwrap();
    let taken = jumped.remove(0);
    if jumped.is_empty() {
        next.board.squares[over.0 as usize][over.1 as usize] = None;
    }
    next.column.push(taken);
    if land.1 == c.board.far_rank() {
        next.column[0] = next.column[0].to_ascii_uppercase();
    }
    next.at = land;
    next.route.push(land);
    next.last = Some(over);
    next
}

fn extend(c: &Capture, out: &mut Vec<Found>) {
    let options = jumps(c);
    if options.is_empty() {
        if !c.route.is_empty() {
            out.push(finish(c));
        }
        return;
    }
    for (over, landings) in options {
        let after: Vec<Capture> = landings.iter().map(|&l| jump(c, over, l)).collect();
        // A king must pick a landing from which the capture goes on, if any.
        let going_on: Vec<&Capture> = after.iter().filter(|n| !jumps(n).is_empty()).collect();
        if going_on.is_empty() {
            after.iter().for_each(|n| extend(n, out));
        } else {
            going_on.into_iter().for_each(|n| extend(n, out));
        }
    }
}

fn finish(c: &Capture) -> Found {
    let mut next = c.board.clone();
    next.squares[c.at.0 as usize][c.at.1 as usize] = Some(c.column.clone());
    next.white_to_move = !c.board.white_to_move;
    Found {
        from: c.from,
        route: c.route.clone(),
        capture: true,
        result: next.text(),
    }
}

/// Perft by the oracle, counting distinct resulting positions.
pub fn perft(text: &str, depth: u32) -> u64 {
    let results = results(&Board::parse(text));
    if depth <= 1 {
        return if depth == 0 { 1 } else { results.len() as u64 };
    }
    results.iter().map(|r| perft(r, depth - 1)).sum()
}

/// Every route text per resulting position (for notation tests).
pub fn routes_by_result(board: &Board) -> BTreeMap<String, Vec<String>> {
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for m in legal_moves(board) {
        let sep = if m.capture { ":" } else { "-" };
        let mut text = name(m.from);
        for sq in &m.route {
            text.push_str(sep);
            text.push_str(&name(*sq));
        }
        map.entry(m.result).or_default().push(text);
    }
    map
}
