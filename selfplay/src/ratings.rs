//! Joint ratings of several engines from all their games at once: the
//! maximum-likelihood Elo ratings of the logistic (Bradley-Terry) model, a
//! draw counting as half a win and half a loss, as Ordo computes them.
//!
//! Engine `i` scores against `j` with expectation
//! `p = 1 / (1 + 10^((r_j - r_i) / 400))`. The log-likelihood of the
//! results, `sum s_ij ln p_ij + (n_ij - s_ij) ln (1 - p_ij)` over the
//! pairings (`s_ij` points in `n_ij` games), is maximized by Newton's method
//! with one rating held at the anchor. The 95% intervals are
//! `±1.96` standard errors from the sandwich `H⁻¹ J H⁻¹`: `H` the observed
//! information matrix (the negative Hessian at the maximum), `J` the sum over
//! the games of the outer products of each game's score gradient, both
//! without the anchor's row and column. `H` alone takes a game's score to
//! vary as a win or a loss does; `J` counts how it varied, so that draws,
//! which vary less, narrow the intervals as they narrow those of a match's
//! Elo (for two engines they agree, to first order, with the match's
//! interval from single games). They are intervals relative to the
//! anchor, whose own interval is empty. Games count one by one, as single
//! games do in a match: where an opening decides both games of a pair the
//! true spread is wider (the pair lines' pentanomial intervals show it),
//! where pairs split it is narrower. With no spread at all (only draws, say)
//! the interval is unknown, `±inf`, not a point.
//!
//! The maximum exists only when every group of engines scored some points
//! against the rest and gave some away (the graph of "scored against" is
//! strongly connected). When it does not (an engine that lost every game
//! has rating minus infinity), one virtual draw is added to every pairing
//! that played, as BayesElo's prior does, and the result says so.

use thiserror::Error;

/// One pairing's results: engines `a` and `b` by index, and `a`'s wins,
/// draws and losses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairResult {
    /// First engine.
    pub a: usize,
    /// Second engine.
    pub b: usize,
    /// `a`'s wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// `a`'s losses.
    pub losses: u64,
}

/// Why no ratings could be computed.
#[derive(Debug, Error, PartialEq)]
pub enum RatingError {
    /// Some engines never met the others, even indirectly.
    #[error("the engines do not all meet each other, directly or through others")]
    Disconnected,
    /// The anchor is not an engine.
    #[error("the anchor {} is not one of the engines", engine::files::escape_controls(.0))]
    UnknownAnchor(String),
    /// A pairing names an engine that does not exist.
    #[error("a pairing names engine {0}, beyond the {1} engines")]
    BadIndex(usize, usize),
    /// Newton's method did not settle (should not happen for connected data).
    #[error("the ratings did not converge")]
    NoConvergence,
}

/// Joint ratings.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Ratings {
    /// Elo of each engine (in the engines' order).
    pub elo: Vec<f64>,
    /// Standard error of each rating relative to the anchor (0 for the anchor).
    pub error: Vec<f64>,
    /// The anchor's index.
    pub anchor: usize,
    /// The anchor's rating.
    pub anchor_elo: f64,
    /// Virtual draws added to each pairing (0: the plain maximum likelihood).
    pub prior_draws: f64,
}

impl Ratings {
    /// The 95% interval of engine `i` (value ± 1.96 standard errors).
    pub fn interval(&self, i: usize) -> [f64; 3] {
        let m = 1.959_963_984_540_054 * self.error[i];
        [self.elo[i], self.elo[i] - m, self.elo[i] + m]
    }
}

const SCALE: f64 = std::f64::consts::LN_10 / 400.0;

fn expected(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

/// Points and games of each ordered pair, with `prior` virtual draws per pairing.
fn tables(n: usize, results: &[PairResult], prior: f64) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let mut points = vec![vec![0.0; n]; n];
    let mut games = vec![vec![0.0; n]; n];
    let mut met = vec![vec![false; n]; n];
    for r in results {
        let (w, d, l) = (r.wins as f64, r.draws as f64, r.losses as f64);
        points[r.a][r.b] += w + d / 2.0;
        points[r.b][r.a] += l + d / 2.0;
        games[r.a][r.b] += w + d + l;
        games[r.b][r.a] += w + d + l;
        if w + d + l > 0.0 {
            met[r.a][r.b] = true;
            met[r.b][r.a] = true;
        }
    }
    for i in 0..n {
        for j in 0..n {
            if met[i][j] {
                points[i][j] += prior / 2.0;
                games[i][j] += prior;
            }
        }
    }
    (points, games)
}

/// Engines reachable from engine 0 along edges `edge(i, j)`.
fn reachable(n: usize, edge: impl Fn(usize, usize) -> bool) -> Vec<bool> {
    let mut seen = vec![false; n];
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(i) = stack.pop() {
        for (j, s) in seen.iter_mut().enumerate() {
            if !*s && edge(i, j) {
                *s = true;
                stack.push(j);
            }
        }
    }
    seen
}

/// Solves `m x = v` by Gaussian elimination with partial pivoting; `None`
/// when `m` is singular.
fn solve(mut m: Vec<Vec<f64>>, mut v: Vec<f64>) -> Option<Vec<f64>> {
    let k = v.len();
    for c in 0..k {
        let p = (c..k).max_by(|&x, &y| m[x][c].abs().total_cmp(&m[y][c].abs()))?;
        if m[p][c].abs() < 1e-300 {
            return None;
        }
        m.swap(c, p);
        v.swap(c, p);
        let pivot = m[c].clone();
        for r in c + 1..k {
            let f = m[r][c] / pivot[c];
            for (x, value) in m[r].iter_mut().enumerate().skip(c) {
                *value -= f * pivot[x];
            }
            v[r] -= f * v[c];
        }
    }
    let mut x = vec![0.0; k];
    for c in (0..k).rev() {
        let s: f64 = (c + 1..k).map(|j| m[c][j] * x[j]).sum();
        x[c] = (v[c] - s) / m[c][c];
    }
    Some(x)
}

/// The joint ratings of `n` engines from their pairings' results, engine
/// `anchor` held at `anchor_elo`.
pub fn joint_ratings(
    n: usize,
    results: &[PairResult],
    anchor: usize,
    anchor_elo: f64,
) -> Result<Ratings, RatingError> {
    if let Some(r) = results.iter().find(|r| r.a >= n || r.b >= n) {
        return Err(RatingError::BadIndex(r.a.max(r.b), n));
    }
    if anchor >= n {
        return Err(RatingError::UnknownAnchor(anchor.to_string()));
    }
    let (points, games) = tables(n, results, 0.0);
    if reachable(n, |i, j| games[i][j] > 0.0).contains(&false) {
        return Err(RatingError::Disconnected);
    }
    // Strongly connected in "scored against": every engine reachable from
    // engine 0 and engine 0 from every engine.
    let exists = !reachable(n, |i, j| points[i][j] > 0.0).contains(&false)
        && !reachable(n, |i, j| points[j][i] > 0.0).contains(&false);
    let prior = if exists { 0.0 } else { 1.0 };
    let (points, games) = tables(n, results, prior);
    let free: Vec<usize> = (0..n).filter(|&i| i != anchor).collect();
    let mut elo = vec![anchor_elo; n];
    // A matrix over the free ratings with `weight(i, j)` for each pairing
    // that played, as the Hessian of a pairwise likelihood is built.
    let pairwise = |weight: &dyn Fn(usize, usize) -> f64| -> Vec<Vec<f64>> {
        let mut h = vec![vec![0.0; free.len()]; free.len()];
        for (x, &i) in free.iter().enumerate() {
            for (j, &played) in games[i].iter().enumerate() {
                if j == i || played == 0.0 {
                    continue;
                }
                let w = SCALE * SCALE * weight(i, j);
                h[x][x] += w;
                if let Some(y) = free.iter().position(|&f| f == j) {
                    h[x][y] -= w;
                }
            }
        }
        h
    };
    let information = |elo: &[f64]| {
        pairwise(&|i, j| {
            let p = expected(elo[i] - elo[j]);
            games[i][j] * p * (1.0 - p)
        })
    };
    // The largest step of the last iteration.
    let mut last = f64::INFINITY;
    for _ in 0..500 {
        let gradient: Vec<f64> = free
            .iter()
            .map(|&i| {
                (0..n)
                    .filter(|&j| j != i)
                    .map(|j| SCALE * (points[i][j] - games[i][j] * expected(elo[i] - elo[j])))
                    .sum()
            })
            .collect();
        let step = solve(information(&elo), gradient).ok_or(RatingError::NoConvergence)?;
        let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        // Long steps are shortened: far from the maximum the quadratic
        // model of the likelihood overshoots.
        let damp = if largest > 200.0 {
            200.0 / largest
        } else {
            1.0
        };
        for (&i, s) in free.iter().zip(&step) {
            elo[i] += damp * s;
        }
        last = largest;
        // Settled when no rating moves by a millionth of an Elo. Rounding in
        // a lopsided pairing of many games (an expected score a hair from 1)
        // keeps the steps from shrinking much below that.
        if largest < 1e-6 {
            break;
        }
    }
    // Steps still above a thousandth of an Elo (ratings are given to a
    // tenth) after every iteration: Newton's method did not settle.
    if last >= 1e-3 || elo.iter().any(|e| !e.is_finite()) {
        return Err(RatingError::NoConvergence);
    }
    let h = information(&elo);
    // Each pairing's sum over its games of the squared difference between
    // the score and its expectation (the virtual draws count as draws).
    let mut spread = vec![vec![0.0; n]; n];
    for r in results {
        let p = expected(elo[r.a] - elo[r.b]);
        let (w, d, l) = (r.wins as f64, r.draws as f64, r.losses as f64);
        let sq = w * (1.0 - p).powi(2) + d * (0.5 - p).powi(2) + l * p.powi(2);
        spread[r.a][r.b] += sq;
        spread[r.b][r.a] += sq;
    }
    if prior > 0.0 {
        for i in 0..n {
            for j in 0..n {
                if i != j && games[i][j] > 0.0 {
                    spread[i][j] += prior * (0.5 - expected(elo[i] - elo[j])).powi(2);
                }
            }
        }
    }
    let j = pairwise(&|a, b| spread[a][b]);
    let columns: Vec<Vec<f64>> = (0..free.len())
        .map(|x| {
            let mut unit = vec![0.0; free.len()];
            unit[x] = 1.0;
            solve(h.clone(), unit).ok_or(RatingError::NoConvergence)
        })
        .collect::<Result<_, _>>()?;
    let mut error = vec![0.0; n];
    for (x, &i) in free.iter().enumerate() {
        // Row x of H⁻¹ (H is symmetric: its column x) times J times column x.
        let hx = &columns[x];
        let variance: f64 = (0..free.len())
            .map(|u| hx[u] * (0..free.len()).map(|v| j[u][v] * hx[v]).sum::<f64>())
            .sum();
        // No spread seen (every game a draw, say): nothing is known of it.
        error[i] = if variance > 0.0 {
            variance.sqrt()
        } else {
            f64::INFINITY
        };
    }
    Ok(Ratings {
        elo,
        error,
        anchor,
        anchor_elo,
        prior_draws: prior,
    })
}

/// Reads `--anchor NAME=ELO` against the engines' names: (index, Elo).
pub fn parse_anchor(text: &str, names: &[String]) -> Result<(usize, f64), String> {
    // At the last `=`: an engine's name may hold one, a number never does.
    let (name, elo) = text.rsplit_once('=').ok_or_else(|| {
        format!(
            "--anchor '{}': expected NAME=ELO",
            engine::files::quoted(text, 60)
        )
    })?;
    let elo: f64 = elo
        .trim()
        .parse()
        .ok()
        .filter(|e: &f64| e.is_finite() && e.abs() <= 100_000.0)
        .ok_or_else(|| {
            format!(
                "--anchor '{}': ELO must be a number within ±100000",
                engine::files::quoted(text, 60)
            )
        })?;
    let index = names.iter().position(|n| n == name.trim()).ok_or_else(|| {
        format!(
            "--anchor '{}': no engine is named '{}'",
            engine::files::quoted(text, 60),
            engine::files::quoted(name.trim(), 40)
        )
    })?;
    Ok((index, elo))
}

/// The ratings as a ladder, best first: rank, name, Elo, 95% interval, games.
pub fn ladder(r: &Ratings, names: &[String], games: &[u64]) -> String {
    let mut order: Vec<usize> = (0..r.elo.len()).collect();
    order.sort_by(|&x, &y| r.elo[y].total_cmp(&r.elo[x]));
    let mut out = format!(
        "joint ratings (anchor {} = {:.0}; 95% intervals relative to it{})\n",
        names.get(r.anchor).map_or("?", String::as_str),
        r.anchor_elo,
        if r.prior_draws > 0.0 {
            "; one virtual draw per pairing added, since an engine has no win or no loss"
        } else {
            ""
        }
    );
    out.push_str(&format!(
        "{:>4} {:<16} {:>8} {:>20} {:>6}\n",
        "rank", "engine", "Elo", "95%", "games"
    ));
    for (rank, &i) in order.iter().enumerate() {
        let [v, lo, hi] = r.interval(i);
        out.push_str(&format!(
            "{:>4} {:<16} {:>8.1} [{:>8.1}, {:>8.1}] {:>6}\n",
            rank + 1,
            names.get(i).map_or("?", String::as_str),
            v,
            lo,
            hi,
            games.get(i).copied().unwrap_or(0)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pr(a: usize, b: usize, wins: u64, draws: u64, losses: u64) -> PairResult {
        PairResult {
            a,
            b,
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn two_engines_get_the_elo_of_their_score() {
        // 60% for the first: 400 log10(0.6/0.4) = 70.4365 Elo.
        let r = joint_ratings(2, &[pr(0, 1, 50, 20, 30)], 1, 0.0).unwrap();
        assert!((r.elo[0] - 70.436_504).abs() < 1e-4, "{}", r.elo[0]);
        assert_eq!((r.error[1], r.prior_draws), (0.0, 0.0));
        // Its standard error is the match's: the spread of the scores about
        // 0.6 (50 x 0.4^2 + 20 x 0.1^2 + 30 x 0.6^2 = 19) over the slope of
        // the expected score, 100 games x 0.6 x 0.4 x ln 10 / 400: 31.551.
        let expect = 19f64.sqrt() / (100.0 * 0.24 * SCALE);
        assert!(
            (r.error[0] - expect).abs() < 1e-3,
            "{} vs {expect}",
            r.error[0]
        );
        assert!((expect - 31.551).abs() < 1e-3);
        // Draws narrow it; all draws between equals leave no spread at all,
        // and then nothing is known of it.
        let even = joint_ratings(2, &[pr(0, 1, 0, 40, 0)], 1, 0.0).unwrap();
        assert_eq!((even.elo[0], even.error[0]), (0.0, f64::INFINITY));
    }

    #[test]
    fn moving_the_anchor_shifts_every_rating() {
        let res = [pr(0, 1, 5, 2, 3), pr(1, 2, 4, 4, 2), pr(0, 2, 6, 1, 3)];
        let a = joint_ratings(3, &res, 0, 0.0).unwrap();
        let b = joint_ratings(3, &res, 2, 1000.0).unwrap();
        for i in 0..3 {
            assert!((b.elo[i] - b.elo[2] - (a.elo[i] - a.elo[2])).abs() < 1e-6);
        }
    }

    #[test]
    fn a_perfect_score_adds_the_prior_and_strangers_are_refused() {
        let r = joint_ratings(2, &[pr(0, 1, 10, 0, 0)], 0, 0.0).unwrap();
        // One virtual draw: 10.5 of 11, 400 log10(10.5 / 0.5) = 528.89 above.
        assert_eq!(r.prior_draws, 1.0);
        assert!((r.elo[1] + 528.888).abs() < 0.01, "{}", r.elo[1]);
        assert_eq!(
            joint_ratings(4, &[pr(0, 1, 1, 0, 1), pr(2, 3, 1, 1, 0)], 0, 0.0),
            Err(RatingError::Disconnected)
        );
    }

    /// Many games with a perfect score leave the expected score a hair
    /// from 1, where rounding stops the steps shrinking; the fit still
    /// settles, at the prior's value.
    #[test]
    fn lopsided_pairings_of_many_games_settle() {
        let r =
            joint_ratings(3, &[pr(0, 1, 10_000, 0, 0), pr(2, 0, 10_000, 0, 0)], 0, 0.0).unwrap();
        // 10000.5 of 10001: 400 log10(20001) = 1720.42 each way.
        assert!((r.elo[1] + 1720.42).abs() < 0.01, "{}", r.elo[1]);
        assert!((r.elo[2] - 1720.42).abs() < 0.01, "{}", r.elo[2]);
        // Random round robins of up to 20,000 games a pairing, a third of
        // the results one-sided.
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for table in 0..300 {
            let n = 3 + (table % 4);
            let mut res = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    let games = 1 + next(20_000);
                    let (w, d) = match next(3) {
                        0 => (games, 0),
                        _ => {
                            let w = next(games + 1);
                            (w, next(games - w + 1))
                        }
                    };
                    res.push(pr(a, b, w, d, games - w - d));
                }
            }
            let fit = joint_ratings(n, &res, 0, 0.0);
            assert!(fit.is_ok(), "table {table}: {res:?}: {fit:?}");
        }
    }

    #[test]
    fn anchors_are_read_by_name() {
        let names = ["a".to_string(), "b".to_string()];
        assert_eq!(parse_anchor("b=1500", &names), Ok((1, 1500.0)));
        assert!(parse_anchor("c=0", &names).is_err());
        assert!(parse_anchor("b", &names).is_err());
        assert!(parse_anchor("b=x", &names).is_err());
        // A name may hold `=` (name=x=1 names an engine "x=1").
        let names = ["x=1".to_string(), "b".to_string()];
        assert_eq!(parse_anchor("x=1=50", &names), Ok((0, 50.0)));
        assert!(parse_anchor("x=50", &names).is_err());
    }
}
