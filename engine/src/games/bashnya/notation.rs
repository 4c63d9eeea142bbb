//! Move notation (docs/rules.md 2.5): `c3-d4`, captures `c3:e5:c7`.
//!
//! Reading accepts the complete route of any legal capture (when several
//! routes give one move, each of them), and `start:end` alone when exactly one
//! legal capture matches; a text that is a complete route is always read as
//! that route. Annotation marks (`!`, `?`, ...) are ignored.

use super::captures::{CaptureSearch, RouteSink};
use super::geometry::{parse_square, SquareNameError};
use super::movegen::{generate, has_capture};
use super::moves::Move;
use super::position::Position;
use crate::game::{strip_annotations, MoveError};
use crate::movelist::MoveList;

impl Position {
    /// Reads a move text and finds the legal move it names.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let clean = strip_annotations(text);
        let syntax = |why: String| MoveError::Syntax(clean.to_string(), why);
        let (squares, capture) = split_squares(clean).map_err(syntax)?;
        let mut legal = MoveList::new();
        generate(self, &mut legal);
        let found = if capture {
            self.find_capture(&legal, &squares, clean)?
        } else {
            legal
                .iter()
                .find(|m| !m.is_capture() && m.from == squares[0] && m.to() == squares[1])
                .copied()
        };
        found.ok_or_else(|| {
            MoveError::no_match(
                clean,
                legal.iter().any(Move::is_capture),
                &legal.iter().map(|m| self.move_text(m)).collect::<Vec<_>>(),
            )
        })
    }

    /// The legal capture a route (or `start:end`) names, if any.
    fn find_capture(
        &self,
        legal: &[Move],
        squares: &[u8],
        text: &str,
    ) -> Result<Option<Move>, MoveError> {
        if !has_capture(self) || self.columns_of(self.side) & (1 << squares[0]) == 0 {
            return Ok(None);
        }
        let route = &squares[1..];
        let mut sink = RouteSink { routes: Vec::new() };
        CaptureSearch::new(self).run(squares[0], &mut sink);
        if let Some(full) = sink.routes.iter().find(|m| m.route() == route) {
            let result = self.after(full);
            return Ok(legal
                .iter()
                .find(|m| m.from == squares[0] && self.after(m) == result)
                .copied());
        }
        if route.len() != 1 {
            return Ok(None);
        }
        let matches: Vec<&Move> = legal
            .iter()
            .filter(|m| m.from == squares[0] && m.to() == route[0])
            .collect();
        match matches.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(**one)),
            many => {
                let names: Vec<String> = many.iter().map(ToString::to_string).collect();
                Err(MoveError::Ambiguous(text.to_string(), names.join(" or ")))
            }
        }
    }

    /// The notation of a move: its full route, which no other legal move shares.
    pub fn move_text(&self, mv: &Move) -> String {
        mv.to_string()
    }
}

/// Splits `a-b` or `a:b:c...` into squares; the flag is true for a capture.
fn split_squares(text: &str) -> Result<(Vec<u8>, bool), String> {
    let capture = text.contains(':');
    let quiet = text.contains('-');
    let parts: Vec<&str> = match (capture, quiet) {
        (true, true) => return Err("mixes '-' and ':'".into()),
        (false, false) => return Err("expected from-to or from:landing:...".into()),
        (true, false) => text.split(':').collect(),
        (false, true) => text.split('-').collect(),
    };
    if !capture && parts.len() != 2 {
        return Err("a step or king move names exactly two squares".into());
    }
    if parts.len() > 1 + super::moves::MAX_JUMPS {
        return Err("longer than any capture".into());
    }
    let squares = parts
        .iter()
        .map(|p| read_square(p.trim()))
        .collect::<Result<Vec<u8>, String>>()?;
    Ok((squares, capture))
}

fn read_square(name: &str) -> Result<u8, String> {
    match parse_square(name) {
        Ok(sq) => Ok(sq),
        Err(SquareNameError::Unknown) if name.is_empty() => Err("missing square".into()),
        Err(SquareNameError::Unknown) => Err(format!(
            "unknown square '{}'",
            crate::files::quoted(name, 20)
        )),
        Err(SquareNameError::Light) => Err(format!("{name} is a light square")),
    }
}
