//! Move notation (docs/rules.md 1.7): `f45`, `gf5`, `g3x5`, `hxe5`, `e8h6x`,
//! `ef8x`, `c54x`, `f6x`, and the long form `d4e3x(f4,e2)`.

use super::board::{
    bit, from_lines, letter_char, lines, name, number_char, parse_letter, parse_number,
    parse_square, step, Bits, Square, DIRS,
};
use super::movegen::{generate, Move, MoveKind};
use super::position::Position;
use crate::game::{strip_annotations, MoveError};
use crate::movelist::MoveList;

/// The short text of a move, without captured squares.
pub fn base_text(mv: &Move) -> String {
    let (lf, nf) = lines(mv.from);
    let (lt, nt) = lines(mv.to);
    let (l, n) = (letter_char(lf), number_char(nf));
    match mv.kind {
        MoveKind::Quiet if lf == lt => format!("{l}{n}{}", number_char(nt)),
        MoveKind::Quiet => format!("{l}{}{n}", letter_char(lt)),
        MoveKind::Linear if lf == lt => format!("{l}{n}x{}", number_char(nt)),
        MoveKind::Linear => format!("{l}x{}{n}", letter_char(lt)),
        MoveKind::Piece if mv.from == mv.to => format!("{l}{n}x"),
        MoveKind::Piece if nf == nt => format!("{l}{}{n}x", letter_char(lt)),
        MoveKind::Piece if lf == lt => format!("{l}{n}{}x", number_char(nt)),
        MoveKind::Piece => format!("{}{}x", name(mv.from), name(mv.to)),
    }
}

/// The text of a legal move: the short form, or the long form when another
/// legal move has the same short form.
pub fn move_text(pos: &Position, mv: &Move) -> String {
    let base = base_text(mv);
    if mv.kind != MoveKind::Piece {
        return base;
    }
    let mut list = MoveList::new();
    generate(pos, &mut list);
    if list.iter().all(|m| m == mv || base_text(m) != base) {
        return base;
    }
    let order = capture_order(pos, mv);
    let squares: Vec<String> = order.into_iter().map(name).collect();
    format!("{base}({})", squares.join(","))
}

/// The captured squares of a piece capture in the order of one route that makes it.
pub fn capture_order(pos: &Position, mv: &Move) -> Vec<Square> {
    capture_route(pos, mv).1
}

/// One route that makes a piece capture: the squares the piece lands on in
/// order (`mv.to` last), and the squares whose pieces it takes, in the same
/// order. A route not found (a move not of this position) gives `[mv.to]`
/// and the captured squares in board order.
pub fn capture_route(pos: &Position, mv: &Move) -> (Vec<Square>, Vec<Square>) {
    let us = pos.side();
    let king = pos.kings(us) & bit(mv.from) != 0;
    let occupied = pos.occupied() & !bit(mv.from);
    let mut order = Vec::new();
    let mut landings = Vec::new();
    let walk = Walk {
        occupied,
        king,
        own_men: pos.men(us),
        mv,
    };
    if walk.route(mv.from, 0, &mut order, &mut landings) {
        (landings, order)
    } else {
        (vec![mv.to], Bits(mv.captured).collect())
    }
}

/// The board seen by a capture route search.
struct Walk<'a> {
    occupied: u64,
    king: bool,
    own_men: u64,
    mv: &'a Move,
}

impl Walk<'_> {
    /// Depth-first search for a step sequence from `sq` taking exactly
    /// `mv.captured`, the pieces taken pushed to `order` and the squares
    /// landed on to `landings`.
    fn route(
        &self,
        sq: Square,
        taken: u64,
        order: &mut Vec<Square>,
        landings: &mut Vec<Square>,
    ) -> bool {
        if taken == self.mv.captured {
            return sq == self.mv.to;
        }
        for d in DIRS {
            // A man starts only in a direction in which it is isolated.
            let starting_man = !self.king && taken == 0;
            if starting_man && step(sq, d.reverse()).is_some_and(|b| self.own_men & bit(b) != 0) {
                continue;
            }
            let mut land = None;
            let mut t = step(sq, d);
            while let Some(x) = t.filter(|&x| self.occupied & bit(x) == 0) {
                land = Some(x);
                t = step(x, d);
                if !self.king {
                    break;
                }
            }
            let (Some(land), Some(target)) = (land, t) else {
                continue;
            };
            let tb = bit(target);
            if self.mv.captured & tb != 0 && taken & tb == 0 {
                order.push(target);
                landings.push(land);
                if self.route(land, taken | tb, order, landings) {
                    return true;
                }
                order.pop();
                landings.pop();
            }
        }
        false
    }
}

/// What a move text asks for.
struct Pattern {
    kind: MoveKind,
    from: Square,
    to: Square,
    captured: Option<u64>,
}

fn syntax(text: &str, why: &str) -> MoveError {
    MoveError::Syntax(text.to_string(), why.to_string())
}

const FORMS: &str =
    "expected a form such as f45, gf5, g3x5, hxe5, e8h6x, ef8x, c54x, f6x or d4e3x(f4,e2)";

/// Reads the text into a pattern, checking square names: the optional
/// captured-square list, then the body's shape (docs/rules.md 1.7).
fn read_pattern(original: &str, text: &str) -> Result<Pattern, MoveError> {
    let (body, captured) = split_captured(original, text)?;
    let c: Vec<char> = body.chars().collect();
    let (kind, from, to) = read_body(original, &c)?;
    if c.iter().filter(|&&ch| ch == 'x').count() > 1
        || (kind == MoveKind::Piece && c.last() != Some(&'x'))
    {
        return Err(syntax(original, FORMS));
    }
    if captured.is_some() && kind != MoveKind::Piece {
        return Err(syntax(
            original,
            "only a piece capture may list its captured squares",
        ));
    }
    Ok(Pattern {
        kind,
        from,
        to,
        captured,
    })
}

/// Splits `d4e3x(f4,e2)` into its body and the set of listed squares.
fn split_captured<'a>(original: &str, text: &'a str) -> Result<(&'a str, Option<u64>), MoveError> {
    let Some(open) = text.find('(') else {
        return Ok((text, None));
    };
    let inner = text[open + 1..]
        .strip_suffix(')')
        .ok_or_else(|| syntax(original, "the captured-square list must end with ')'"))?;
    let mut set = 0u64;
    for item in inner.split(',') {
        let item = item.trim();
        let sq = parse_square(item).ok_or_else(|| {
            syntax(
                original,
                &format!(
                    "unknown square '{}' in the captured list",
                    crate::files::quoted(item, 20)
                ),
            )
        })?;
        if set & bit(sq) != 0 {
            return Err(syntax(
                original,
                &format!("square {item} is listed twice in the captured list"),
            ));
        }
        set |= bit(sq);
    }
    Ok((&text[..open], Some(set)))
}

/// The kind and the two squares a move text's body names, by its length and
/// where its `x` stands.
fn read_body(original: &str, c: &[char]) -> Result<(MoveKind, Square, Square), MoveError> {
    let letter = |i: usize| c.get(i).copied().and_then(parse_letter);
    let number = |i: usize| c.get(i).copied().and_then(parse_number);
    // The square on letter line `l` and number line `n`.
    let sq = |l: Option<u8>, n: Option<u8>| -> Result<Square, MoveError> {
        match (l, n) {
            (Some(l), Some(n)) => from_lines(l, n).ok_or_else(|| {
                syntax(
                    original,
                    &format!(
                        "no square {}{} on the board",
                        letter_char(l),
                        number_char(n)
                    ),
                )
            }),
            _ => Err(syntax(original, FORMS)),
        }
    };
    Ok(match (c.len(), c.iter().position(|&ch| ch == 'x')) {
        // f45: along a letter line; gf5: along a number line.
        (3, None) if number(1).is_some() => (
            MoveKind::Quiet,
            sq(letter(0), number(1))?,
            sq(letter(0), number(2))?,
        ),
        (3, None) => (
            MoveKind::Quiet,
            sq(letter(0), number(2))?,
            sq(letter(1), number(2))?,
        ),
        // g3x5 and hxe5: linear captures.
        (4, Some(2)) => (
            MoveKind::Linear,
            sq(letter(0), number(1))?,
            sq(letter(0), number(3))?,
        ),
        (4, Some(1)) => (
            MoveKind::Linear,
            sq(letter(0), number(3))?,
            sq(letter(2), number(3))?,
        ),
        // f6x, c54x, ef8x, e8h6x: piece captures.
        (3, Some(2)) => {
            let s = sq(letter(0), number(1))?;
            (MoveKind::Piece, s, s)
        }
        (4, Some(3)) if number(1).is_some() => (
            MoveKind::Piece,
            sq(letter(0), number(1))?,
            sq(letter(0), number(2))?,
        ),
        (4, Some(3)) => (
            MoveKind::Piece,
            sq(letter(0), number(2))?,
            sq(letter(1), number(2))?,
        ),
        (5, Some(4)) => (
            MoveKind::Piece,
            sq(letter(0), number(1))?,
            sq(letter(2), number(3))?,
        ),
        _ => return Err(syntax(original, FORMS)),
    })
}

/// Finds the legal move a text names.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, MoveError> {
    let clean = strip_annotations(text);
    if clean.is_empty() {
        return Err(syntax(text, "empty move"));
    }
    let pattern = read_pattern(text, clean)?;
    let mut list = MoveList::new();
    generate(pos, &mut list);
    let matches: Vec<Move> = list
        .iter()
        .filter(|m| {
            m.kind == pattern.kind
                && m.from == pattern.from
                && m.to == pattern.to
                && pattern.captured.is_none_or(|c| c == m.captured)
        })
        .copied()
        .collect();
    match matches.as_slice() {
        [] => Err(MoveError::no_match(
            text.trim(),
            crate::Game::must_capture(pos),
            &list.iter().map(|m| move_text(pos, m)).collect::<Vec<_>>(),
        )),
        [m] => Ok(*m),
        several => Err(MoveError::Ambiguous(
            text.trim().to_string(),
            several
                .iter()
                .map(|m| move_text(pos, m))
                .collect::<Vec<_>>()
                .join(" or "),
        )),
    }
}
