//! The one board renderer: a position as an SVG picture.
//!
//! The page shows these pictures and makes them interactive (every square
//! and every piece carries `data-square`); reports can write them to files
//! as they are. Bushka shows its 50 squares, each with its name (letter
//! line, then number line, as docs/rules.md 1.1 names them); Bashnya shows
//! each column as a stack of discs, commander on top, with files and ranks
//! at the edges.

use crate::view::{BoardView, SquareView};
use engine::GameKind;
use std::fmt::Write;

/// Side of one square in SVG units.
const CELL: f64 = 60.0;
/// Room for the coordinates on the left and at the bottom.
const MARGIN: f64 = 22.0;
/// Space on the top and right edges.
const EDGE: f64 = 6.0;

/// Squares to mark besides the pieces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// The last move's squares (from, landing squares, to).
    pub last: Vec<String>,
    /// Squares whose pieces the last move took.
    pub captured: Vec<String>,
}

/// How to draw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SvgOptions {
    /// Black at the bottom.
    pub flip: bool,
    /// Squares to mark.
    pub marks: Marks,
}

/// The stylesheet inside every picture, so that a saved file looks the same.
const STYLE: &str = "\
.lt{fill:#eed9b6}.dk{fill:#a9774f}.last .dk{fill:#c9a24a}\
.nm{font:9px sans-serif;fill:#f3e6d0;pointer-events:none}\
.co{font:12px sans-serif;fill:#555}\
.w{fill:#f8f5ec;stroke:#2b2b2b;stroke-width:1.5}\
.b{fill:#262626;stroke:#000;stroke-width:1.5}\
.ws{fill:#cfc9b8;stroke:#2b2b2b;stroke-width:1.5}\
.bs{fill:#101010;stroke:#000;stroke-width:1.5}\
.kr{fill:none;stroke:#d9a521;stroke-width:3}\
.ht{font:bold 11px sans-serif;fill:#fff;stroke:#000;stroke-width:2.5;paint-order:stroke;pointer-events:none}\
.cx{stroke:#d22;stroke-width:4;stroke-linecap:round;pointer-events:none}";

/// Escapes text for an SVG attribute or element.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The top-left corner of a square's cell on the picture.
fn corner(board: &BoardView, flip: bool, x: u8, y: u8) -> (f64, f64) {
    let n = board.size - 1;
    let (col, row) = if flip { (n - x, y) } else { (x, n - y) };
    (MARGIN + f64::from(col) * CELL, EDGE + f64::from(row) * CELL)
}

/// Renders a board as a standalone SVG document.
pub fn render(board: &BoardView, opts: &SvgOptions) -> String {
    let side = f64::from(board.size) * CELL;
    let (w, h) = (MARGIN + side + EDGE, EDGE + side + MARGIN);
    let mut s = String::with_capacity(16 * 1024);
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board {}\" viewBox=\"0 0 {w} {h}\" \
         width=\"{w}\" height=\"{h}\"><style>{STYLE}</style>",
        board.game.name()
    );
    let _ = write!(
        s,
        "<rect class=\"lt\" x=\"{MARGIN}\" y=\"{EDGE}\" width=\"{side}\" height=\"{side}\"/>"
    );
    squares(&mut s, board, opts);
    if board.game == GameKind::Bashnya {
        coordinates(&mut s, board, opts.flip);
    }
    pieces(&mut s, board, opts.flip);
    captured(&mut s, board, opts);
    s.push_str("</svg>");
    s
}

/// The dark squares, each a group that the page can highlight.
fn squares(s: &mut String, board: &BoardView, opts: &SvgOptions) {
    for sq in &board.squares {
        let (x, y) = corner(board, opts.flip, sq.x, sq.y);
        let last = if opts.marks.last.contains(&sq.name) {
            " last"
        } else {
            ""
        };
        let _ = write!(
            s,
            "<g class=\"sq{last}\" data-square=\"{n}\"><rect class=\"dk\" x=\"{x}\" y=\"{y}\" \
             width=\"{CELL}\" height=\"{CELL}\"/>",
            n = esc(&sq.name)
        );
        if board.game == GameKind::Bushka {
            let _ = write!(
                s,
                "<text class=\"nm\" x=\"{}\" y=\"{}\">{}</text>",
                x + 3.0,
                y + 11.0,
                esc(&sq.name)
            );
        }
        s.push_str("</g>");
    }
}

/// Files and ranks at the edges of the Bashnya board.
fn coordinates(s: &mut String, board: &BoardView, flip: bool) {
    for i in 0..board.size {
        let (x, _) = corner(board, flip, i, 0);
        let (_, y) = corner(board, flip, 0, i);
        let file = char::from(b'a' + i);
        let _ = write!(
            s,
            "<text class=\"co\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{file}</text>\
             <text class=\"co\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x + CELL / 2.0,
            EDGE + f64::from(board.size) * CELL + 16.0,
            MARGIN / 2.0,
            y + CELL / 2.0 + 4.0,
            i + 1
        );
    }
}

/// The pieces, drawn from the top row down so that a tall column standing
/// over the light square above it is drawn over that square.
fn pieces(s: &mut String, board: &BoardView, flip: bool) {
    let mut order: Vec<&SquareView> = board
        .squares
        .iter()
        .filter(|q| !q.stack.is_empty())
        .collect();
    order.sort_by_key(|q| {
        let (x, y) = corner(board, flip, q.x, q.y);
        (y as i64, x as i64)
    });
    for sq in order {
        let (x, y) = corner(board, flip, sq.x, sq.y);
        let _ = write!(
            s,
            "<g class=\"pc\" data-square=\"{n}\"><title>{n} {stack}</title>",
            n = esc(&sq.name),
            stack = esc(&sq.stack)
        );
        if board.game == GameKind::Bushka {
            disc(s, x + CELL / 2.0, y + CELL / 2.0, sq.stack.chars().next());
        } else {
            column(s, x, y, &sq.stack);
        }
        s.push_str("</g>");
    }
}

/// One flat piece seen from above.
fn disc(s: &mut String, cx: f64, cy: f64, piece: Option<char>) {
    let Some(p) = piece else { return };
    let class = if p.is_ascii_uppercase() {
        p.to_ascii_lowercase()
    } else {
        p
    };
    let r = CELL * 0.38;
    let _ = write!(
        s,
        "<circle class=\"{class}\" cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\"/>"
    );
    if p.is_ascii_uppercase() {
        let _ = write!(
            s,
            "<circle class=\"kr\" cx=\"{cx}\" cy=\"{cy}\" r=\"{}\"/>",
            r * 0.55
        );
    }
}

/// A column seen from the side: one disc per piece, bottom first, the
/// commander on top; a tall column grows over the light square above.
fn column(s: &mut String, x: f64, y: f64, stack: &str) {
    let pieces: Vec<char> = stack.chars().collect();
    let n = pieces.len();
    let cx = x + CELL / 2.0;
    let bottom = y + CELL * 0.74;
    let (rx, ry, thick) = (CELL * 0.37, CELL * 0.15, CELL * 0.09);
    // Up to 1.45 cells of height for the whole column.
    let step = if n > 1 {
        (CELL * 0.16).min(CELL * 1.45 / (n - 1) as f64)
    } else {
        0.0
    };
    for (i, &p) in pieces.iter().rev().enumerate() {
        let cy = bottom - step * i as f64;
        let c = if p.eq_ignore_ascii_case(&'w') {
            'w'
        } else {
            'b'
        };
        let _ = write!(
            s,
            "<path class=\"{c}s\" d=\"M{l},{cy} v{thick} a{rx},{ry} 0 0 0 {d},0 v-{thick} z\"/>\
             <ellipse class=\"{c}\" cx=\"{cx}\" cy=\"{cy}\" rx=\"{rx}\" ry=\"{ry}\"/>",
            l = cx - rx,
            d = 2.0 * rx
        );
        if p.is_ascii_uppercase() {
            let _ = write!(
                s,
                "<ellipse class=\"kr\" cx=\"{cx}\" cy=\"{cy}\" rx=\"{}\" ry=\"{}\"/>",
                rx * 0.55,
                ry * 0.55
            );
        }
    }
    if n > 1 {
        let _ = write!(
            s,
            "<text class=\"ht\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{n}</text>",
            x + CELL - 2.0,
            y + CELL - 3.0
        );
    }
}

/// A red cross over each square whose piece the last move took.
fn captured(s: &mut String, board: &BoardView, opts: &SvgOptions) {
    for sq in board
        .squares
        .iter()
        .filter(|q| opts.marks.captured.contains(&q.name))
    {
        let (x, y) = corner(board, opts.flip, sq.x, sq.y);
        let (a, b) = (CELL * 0.3, CELL * 0.7);
        let _ = write!(
            s,
            "<path class=\"cx\" d=\"M{},{} L{},{} M{},{} L{},{}\"/>",
            x + a,
            y + a,
            x + b,
            y + b,
            x + b,
            y + a,
            x + a,
            y + b
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::Drawable;
    use engine::{bashnya, bushka, Game};

    #[test]
    fn every_square_and_piece_is_drawn() {
        let svg = render(
            &bushka::Position::start().board_view(),
            &SvgOptions::default(),
        );
        assert_eq!(svg.matches("class=\"sq").count(), 50);
        assert_eq!(svg.matches("class=\"pc\"").count(), 30);
        assert!(svg.contains(">e1</text>") && svg.contains(">e0</text>"));
        let pos = bashnya::Position::parse_position("W:a1=wbBb,c3=w,h8=bb").unwrap();
        let svg = render(&pos.board_view(), &SvgOptions::default());
        // Four discs on a1 (a king ring on its black king), one on c3, two on h8.
        assert_eq!(svg.matches("<ellipse class=\"w\"").count(), 2);
        assert_eq!(svg.matches("<ellipse class=\"b\"").count(), 5);
        assert_eq!(svg.matches("class=\"kr\"").count(), 1);
        assert!(svg.contains(">4</text>") && svg.contains(">2</text>"));
    }

    #[test]
    fn flipping_turns_the_board_round() {
        let b = bashnya::Position::start().board_view();
        let (x, y) = corner(&b, false, 0, 0);
        let (fx, fy) = corner(&b, true, 7, 7);
        assert_eq!((x, y), (fx, fy));
        let marks = Marks {
            last: vec!["c3".into(), "d4".into()],
            captured: vec!["e5".into()],
        };
        let svg = render(&b, &SvgOptions { flip: true, marks });
        assert_eq!(svg.matches("class=\"sq last\"").count(), 2);
        assert_eq!(svg.matches("class=\"cx\"").count(), 1);
    }
}
