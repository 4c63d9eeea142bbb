//! The atlas's conclusions: first moves ranked, classified and followed by
//! their most testing replies, as JSON and as a Markdown report.
//!
//! * **Verdict** of a line, from its Elo interval for White: `gains` (the
//!   whole 95% interval above 0), `loses` (below 0), else `holds`; `n/a`
//!   with fewer than two pairs (no interval); pairs all alike have no
//!   interval, and their LOS decides (past 97.5% gains, under 2.5% loses).
//! * **Character**, from the share of decisive games against the other lines
//!   of the same length: the third with the most decisive games is `sharp`,
//!   the third with the most draws `quiet`, the rest `balanced`.
//! * **Main alleys**: the first moves with a verdict that do not lose and are not clearly
//!   worse than the best one (their interval reaches the best one's lower
//!   end), each with its most testing reply (the one that leaves White the
//!   lowest score) and the deep search's principal variation.

use crate::atlas::LineResult;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One first move with its verdict and its replies.
#[derive(Clone, Debug, Serialize)]
pub struct FirstMove {
    /// Rank by White's score (1 = best for White).
    pub rank: usize,
    /// The move.
    pub line: String,
    /// `gains`, `holds` or `loses` (for White).
    pub verdict: &'static str,
    /// `sharp`, `balanced` or `quiet`.
    pub character: &'static str,
    /// Whether it is one of the main alleys.
    pub main_alley: bool,
    /// The reply that leaves White the lowest score, when replies were measured.
    pub most_testing_reply: Option<String>,
    /// White's score after that reply.
    pub most_testing_reply_score: Option<f64>,
    /// Replies measured.
    pub replies: usize,
    /// Its measurement.
    pub result: LineResult,
}

/// The whole atlas.
#[derive(Clone, Debug, Serialize)]
pub struct Atlas {
    /// The game.
    pub game: String,
    /// Longest line, in plies.
    pub plies: usize,
    /// How the lines were measured, as the command gave it.
    pub settings: String,
    /// The evaluation that measured them, as the folder's `settings.txt`
    /// records it (its kind and the weights' id).
    pub evaluation: String,
    /// Lines the settings call for.
    pub lines_expected: usize,
    /// Lines measured so far.
    pub lines_measured: usize,
    /// Sum of the lines' wall times, in seconds.
    pub seconds: f64,
    /// First moves, best for White first.
    pub first_moves: Vec<FirstMove>,
    /// Terminations over every game, by side: `white`, `black`, `draw`.
    pub terminations: BTreeMap<String, BTreeMap<String, u64>>,
    /// Every measured line, in line order.
    pub lines: Vec<LineResult>,
}

/// The verdict of an interval for White: `n/a` for a line of fewer than two
/// pairs (one pair, as at a fixed depth, has no spread to give an interval).
/// Pairs that all scored alike give no interval either: their verdict is
/// that of the LOS (cutechess-cli's, from wins and losses), past 97.5%
/// or under 2.5%, as an interval clear of 0 is an LOS past those.
pub fn verdict(r: &LineResult) -> &'static str {
    let pairs = r.pairs.iter().sum::<u64>();
    if pairs < 2 {
        return "n/a";
    }
    if r.pairs.contains(&pairs) {
        let los = selfplay::stats::Pentanomial::new(r.pairs).estimates().los;
        return if los > 0.975 {
            "gains"
        } else if los < 0.025 {
            "loses"
        } else {
            "holds"
        };
    }
    let (_, lo, hi) = r.elo_interval();
    if lo > 0.0 {
        "gains"
    } else if hi < 0.0 {
        "loses"
    } else {
        "holds"
    }
}

/// The character of each line among `lines`: the third with the most
/// decisive games `sharp`, the third with the fewest `quiet` (a third of
/// `n` rounded down each; lines tied across a boundary stay `balanced`).
pub fn characters(lines: &[&LineResult]) -> Vec<&'static str> {
    let mut decisive: Vec<f64> = lines.iter().map(|r| 1.0 - r.draw_rate).collect();
    decisive.sort_by(f64::total_cmp);
    let n = decisive.len();
    if n < 3 {
        return vec!["balanced"; n];
    }
    let third = n / 3;
    // Quiet: below the first share that is not among the lowest third;
    // sharp: above the last that is not among the highest third.
    let (low, high) = (decisive[third], decisive[n - third - 1]);
    lines
        .iter()
        .map(|r| {
            let d = 1.0 - r.draw_rate;
            if d > high {
                "sharp"
            } else if d < low {
                "quiet"
            } else {
                "balanced"
            }
        })
        .collect()
}

/// Builds the atlas from the measured lines.
pub fn build(
    game: &str,
    plies: usize,
    settings: &str,
    evaluation: &str,
    lines_expected: usize,
    results: &BTreeMap<String, LineResult>,
) -> Atlas {
    // Every interval from Student's t over the pairs (see
    // [`LineResult::with_t_interval`]).
    let results: BTreeMap<String, LineResult> = results
        .iter()
        .map(|(k, r)| (k.clone(), r.with_t_interval()))
        .collect();
    let results = &results;
    let mut firsts: Vec<&LineResult> = results.values().filter(|r| r.plies == 1).collect();
    firsts.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.line.cmp(&b.line)));
    let chars = characters(&firsts);
    let best_lower = firsts.first().map(|r| r.elo_interval().1);
    let first_moves = firsts
        .iter()
        .zip(chars)
        .enumerate()
        .map(|(i, (r, character))| {
            let replies: Vec<&LineResult> = results
                .values()
                .filter(|c| c.plies == 2 && c.line.split(' ').next() == Some(r.line.as_str()))
                .collect();
            let testing = replies
                .iter()
                .min_by(|a, b| a.score.total_cmp(&b.score).then(a.line.cmp(&b.line)));
            let v = verdict(r);
            let close_to_best = best_lower.is_none_or(|lo| r.elo_interval().2 >= lo);
            FirstMove {
                rank: i + 1,
                line: r.line.clone(),
                verdict: v,
                character,
                // A line without an interval (one pair) is no alley.
                main_alley: v != "loses" && v != "n/a" && close_to_best,
                most_testing_reply: testing.map(|t| t.line.clone()),
                most_testing_reply_score: testing.map(|t| t.score),
                replies: replies.len(),
                result: (*r).clone(),
            }
        })
        .collect();
    let mut terminations: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for r in results.values() {
        for (side, by) in [
            ("white", &r.white_wins_by),
            ("black", &r.black_wins_by),
            ("draw", &r.draws_by),
        ] {
            let t = terminations.entry(side.to_string()).or_default();
            for (why, n) in by {
                // Saturating: each line's counts were checked, their sum
                // over lines of an edited file may still not fit.
                let count = t.entry(why.clone()).or_insert(0);
                *count = count.saturating_add(*n);
            }
        }
    }
    Atlas {
        game: game.to_string(),
        plies,
        settings: settings.to_string(),
        evaluation: evaluation.to_string(),
        lines_expected,
        lines_measured: results.len(),
        seconds: results.values().map(|r| r.seconds).sum(),
        first_moves,
        terminations,
        lines: results.values().cloned().collect(),
    }
}

/// An Elo interval as text (`-inf`/`+inf` for an infinite value).
fn interval(r: &LineResult) -> String {
    let text = |v: f64| {
        if v.is_finite() {
            format!("{v:+.0}")
        } else if v > 0.0 {
            "+inf".to_string()
        } else {
            "-inf".to_string()
        }
    };
    let (elo, lo, hi) = r.elo_interval();
    format!("{} [{}, {}]", text(elo), text(lo), text(hi))
}

/// The Markdown report; `chart` and `diagrams` are file names beside it.
pub fn markdown(atlas: &Atlas, chart: Option<&str>, diagrams: &[(String, String)]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Opening atlas: {}\n", atlas.game);
    let _ = writeln!(
        md,
        "Every opening line of up to {} plies from the start, measured by a deep \
         search and by self-play from the position it reaches (the same engine on \
         both sides, independent games counted in pairs). Every figure is White's: \
         the score White makes from the line's position, its Elo advantage with a \
         95% interval over the pairs.\n",
        atlas.plies
    );
    let _ = writeln!(md, "Settings: `{}`.\n", atlas.settings);
    let _ = writeln!(md, "Evaluation: `{}`.\n", atlas.evaluation);
    let _ = writeln!(
        md,
        "Lines measured: {} of {}; games: {}; time: {:.0} s of lines measured \
         (wall time of each line, summed).\n",
        atlas.lines_measured,
        atlas.lines_expected,
        atlas
            .lines
            .iter()
            .fold(0u64, |sum, r| sum.saturating_add(r.games)),
        atlas.seconds
    );
    if let Some(c) = chart {
        let _ = writeln!(md, "![First moves ranked by White's score]({c})\n");
    }
    let alleys: Vec<&FirstMove> = atlas.first_moves.iter().filter(|f| f.main_alley).collect();
    let _ = writeln!(md, "## Main alleys\n");
    if atlas.first_moves.is_empty() {
        let _ = writeln!(md, "No first move measured yet.\n");
    } else if alleys.is_empty() && atlas.first_moves.iter().all(|f| f.verdict == "n/a") {
        let _ = writeln!(md, "None: one pair a line gives no interval.\n");
    } else if alleys.is_empty() {
        let _ = writeln!(md, "None: every first move measured loses for White.\n");
    }
    for f in &alleys {
        let reply = match (&f.most_testing_reply, f.most_testing_reply_score) {
            (Some(l), Some(s)) => format!(
                "; most testing reply `{}` (White scores {:.0}%)",
                l.split(' ').nth(1).unwrap_or(l),
                100.0 * s
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            md,
            "* `{}` {} ({}, {}): White scores {:.0}%, Elo {}{reply}; deep search {} for White at depth {}: `{}`",
            f.line,
            f.verdict,
            f.character,
            percent(f.result.draw_rate, "draws"),
            100.0 * f.result.score,
            interval(&f.result),
            white_score(&f.result),
            f.result.search.depth,
            f.result.search.pv.join(" ")
        );
    }
    let _ = writeln!(md, "\n## First moves\n");
    let _ = writeln!(
        md,
        "| rank | move | White's score | Elo (95%) | draws | mean plies | verdict | character | most testing reply | deep search (White) |"
    );
    let _ = writeln!(
        md,
        "| ---: | --- | ---: | --- | ---: | ---: | --- | --- | --- | --- |"
    );
    for f in &atlas.first_moves {
        let r = &f.result;
        let reply = match (&f.most_testing_reply, f.most_testing_reply_score) {
            (Some(l), Some(s)) => format!("`{l}` {:.0}%", 100.0 * s),
            _ => "-".into(),
        };
        let _ = writeln!(
            md,
            "| {} | `{}` | {:.1}% | {} | {:.0}% | {:.0} | {} | {} | {reply} | {} `{}` |",
            f.rank,
            f.line,
            100.0 * r.score,
            interval(r),
            100.0 * r.draw_rate,
            r.mean_plies,
            f.verdict,
            f.character,
            white_score(r),
            r.search
                .pv
                .iter()
                .take(6)
                .cloned()
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    let _ = writeln!(md, "\n## How the games end\n");
    let _ = writeln!(md, "| result | how | games |");
    let _ = writeln!(md, "| --- | --- | ---: |");
    for (side, by) in &atlas.terminations {
        for (why, n) in by {
            let _ = writeln!(md, "| {side} | {why} | {n} |");
        }
    }
    if !diagrams.is_empty() {
        let _ = writeln!(md, "\n## Key positions\n");
        for (file, caption) in diagrams {
            let _ = writeln!(md, "**{caption}**\n\n![{caption}]({file})\n");
        }
    }
    md
}

/// The deep search's score for White: centi-men, or who wins in how many plies.
fn white_score(r: &LineResult) -> String {
    let s = r.search.score;
    let mate = engine::search::MATE;
    if s >= engine::search::MATE_BOUND {
        format!("White wins in {}", mate - s)
    } else if s <= -engine::search::MATE_BOUND {
        format!("Black wins in {}", mate + s)
    } else {
        format!("{s:+}")
    }
}

/// A share as a percentage with a word.
fn percent(x: f64, what: &str) -> String {
    format!("{:.0}% {what}", 100.0 * x)
}
