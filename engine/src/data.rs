//! Training data: one line per position of a finished game,
//! `game id<TAB>position text<TAB>ply<TAB>score<TAB>result`.
//!
//! The score is the mover's search score in centi-men from the side to
//! move's view (`-` when unknown; a found win or loss is the search's
//! internal score, about ±30000), the result the game's from White's view
//! (`1`, `0.5`, `0`). The self-play writer, its resume reader and the
//! tuner's loader all read and write lines through [`DataLine`].

use crate::game::{Color, Outcome};
use std::fmt;

/// The fields of one training-data line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataLine<'a> {
    /// The game's id (a number in self-play output; any text without a tab).
    pub game: &'a str,
    /// The position text.
    pub position: &'a str,
    /// The ply of the position in its game.
    pub ply: u32,
    /// The mover's search score (side to move's view), if known.
    pub score: Option<i32>,
    /// The game result from White's view: 1, 0.5 or 0.
    pub result: f32,
}

/// The result field of a finished game: 1, 0.5 or 0 from White's view.
pub fn result_for_white(outcome: Outcome) -> f32 {
    match outcome {
        Outcome::Win(Color::White) => 1.0,
        Outcome::Win(Color::Black) => 0.0,
        Outcome::Draw => 0.5,
    }
}

impl<'a> DataLine<'a> {
    /// Splits a line (its end of line may be included) into its fields; the
    /// error says which field is wrong.
    pub fn parse(line: &'a str) -> Result<DataLine<'a>, String> {
        let fields: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('\t').collect();
        let [game, position, ply, score, result] = fields[..] else {
            return Err(format!(
                "expected 5 tab-separated fields (game, position, ply, score, result), found {}",
                fields.len()
            ));
        };
        if game.trim().is_empty() {
            return Err("empty game id".into());
        }
        // A field quoted back is escaped and cut: it may be anything.
        let quote = |t: &str| crate::files::quoted(t, 40);
        let ply = ply
            .trim()
            .parse::<u32>()
            .map_err(|_| format!("ply '{}' is not a whole number", quote(ply)))?;
        let score = match score.trim() {
            "-" => None,
            s => Some(
                s.parse::<i32>()
                    .map_err(|_| format!("score '{}' is not an integer or '-'", quote(score)))?,
            ),
        };
        let result = match result.trim() {
            "1" | "1.0" => 1.0,
            "0.5" | "1/2" => 0.5,
            "0" | "0.0" => 0.0,
            r => return Err(format!("result '{}' is not 1, 0.5 or 0", quote(r))),
        };
        Ok(DataLine {
            game,
            position,
            ply,
            score,
            result,
        })
    }
}

/// The line without its end of line; [`DataLine::parse`] reads it back.
impl fmt::Display for DataLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\t{}\t{}\t", self.game, self.position, self.ply)?;
        match self.score {
            Some(s) => write!(f, "{s}\t")?,
            None => write!(f, "-\t")?,
        }
        let result = if self.result >= 1.0 {
            "1"
        } else if self.result <= 0.0 {
            "0"
        } else {
            "0.5"
        };
        f.write_str(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip() {
        for text in [
            "12\tW:We1:Be9\t0\t35\t1",
            "3\tB:a1=w,c3=wb\t41\t-\t0.5",
            "0\tW:Wf4:Bd4\t7\t-29987\t0",
        ] {
            let line = DataLine::parse(text).unwrap();
            assert_eq!(line.to_string(), text);
        }
        let line = DataLine::parse("7\tW:We1:Be9\t2\t-4\t1/2\r\n").unwrap();
        assert_eq!(line.result, 0.5);
        assert_eq!(line.to_string(), "7\tW:We1:Be9\t2\t-4\t0.5");
    }

    #[test]
    fn bad_fields_are_named() {
        let cases = [
            ("1\tW:We1:Be9\t0\t35", "expected 5"),
            ("\tW:We1:Be9\t0\t35\t1", "empty game id"),
            ("1\tW:We1:Be9\tx\t35\t1", "ply 'x'"),
            ("1\tW:We1:Be9\t0\t3.5\t1", "score '3.5'"),
            ("1\tW:We1:Be9\t0\t35\t2", "result '2'"),
        ];
        for (text, want) in cases {
            let e = DataLine::parse(text).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn results_for_white() {
        assert_eq!(result_for_white(Outcome::Win(Color::White)), 1.0);
        assert_eq!(result_for_white(Outcome::Win(Color::Black)), 0.0);
        assert_eq!(result_for_white(Outcome::Draw), 0.5);
    }
}
