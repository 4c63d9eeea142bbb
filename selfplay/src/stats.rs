//! Match statistics: Elo with confidence intervals, likelihood of
//! superiority, pentanomial (game-pair) estimates and the SPRT.
//!
//! Formulas follow fastchess (trinomial and pentanomial Elo, normalized
//! Elo, LOS from the normal approximation; cutechess-cli's Elo interval is
//! the trinomial one) and fishtest (the normalized-Elo GSPRT).
//! Every function is pure and total: no input panics or returns NaN.
//!
//! Conventions for degenerate inputs:
//! * no games (or no pairs): Elo and nElo are `0.0` with the interval
//!   `(-inf, +inf)`, LOS is `0.5`, the draw ratio `0.0`, the LLR `0.0`;
//! * a score of 1 (all wins) gives `f64::INFINITY` Elo, a score of 0 (all
//!   losses) `f64::NEG_INFINITY`; an interval bound whose score leaves
//!   `[0, 1]` is infinite in the same way;
//! * zero variance (every game or pair has the same result, as after a
//!   game or two) gives no interval either: `(-inf, +inf)` around the
//!   estimate, and LOS as cutechess-cli computes it from wins and losses
//!   (92.1% after two wins, 50% after draws only).

use std::f64::consts::{LN_10, PI, SQRT_2};
use std::fmt;
use thiserror::Error;

/// The two-sided 95% quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Normalized Elo per unit of t-value (`800 / ln 10`), as in fishtest.
pub const NELO_PER_T: f64 = 800.0 / LN_10;

/// One game's result from one engine's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// The engine won.
    Win,
    /// The game was drawn.
    Draw,
    /// The engine lost.
    Loss,
}

impl GameResult {
    /// Points scored: 1, 1/2 or 0.
    pub fn score(self) -> f64 {
        f64::from(self.half_points()) / 2.0
    }

    /// Points scored in half points: 2, 1 or 0.
    pub fn half_points(self) -> u8 {
        match self {
            GameResult::Win => 2,
            GameResult::Draw => 1,
            GameResult::Loss => 0,
        }
    }

    /// The same game seen from the opponent.
    pub fn flipped(self) -> GameResult {
        match self {
            GameResult::Win => GameResult::Loss,
            GameResult::Draw => GameResult::Draw,
            GameResult::Loss => GameResult::Win,
        }
    }
}

/// A point estimate with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The estimate.
    pub value: f64,
    /// Lower end of the 95% interval (may be `-inf`).
    pub lower: f64,
    /// Upper end of the 95% interval (may be `+inf`).
    pub upper: f64,
}

impl Interval {
    /// The interval knowing nothing: `0` in `(-inf, +inf)`.
    pub const UNKNOWN: Interval = Interval {
        value: 0.0,
        lower: f64::NEG_INFINITY,
        upper: f64::INFINITY,
    };

    /// Half the interval's width, the `+/-` figure fastchess prints (`0` for a
    /// point, `inf` when an end is infinite).
    pub fn margin(&self) -> f64 {
        if self.upper == self.lower {
            0.0
        } else {
            (self.upper - self.lower) / 2.0
        }
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.2} +/- {:.2}", self.value, self.margin())
    }
}

/// Logistic Elo difference for an expected score (`+-inf` at 1 and 0).
pub fn score_to_elo(score: f64) -> f64 {
    if score >= 1.0 {
        f64::INFINITY
    } else if score <= 0.0 {
        f64::NEG_INFINITY
    } else {
        // Written so that an even score gives 0, not -0.
        400.0 * (score / (1.0 - score)).log10()
    }
}

/// Expected score for a logistic Elo difference.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Normalized Elo of a score given the standard deviation of one game's (or
/// one pair's, per game) score: `(score - 1/2) / sd * 800 / ln 10`.
pub fn score_to_nelo(score: f64, sd: f64) -> f64 {
    let excess = score - 0.5;
    if sd > 0.0 {
        excess / sd * NELO_PER_T
    } else if excess > 0.0 {
        f64::INFINITY
    } else if excess < 0.0 {
        f64::NEG_INFINITY
    } else {
        0.0
    }
}

/// The error function (std has none on stable), accurate to about 1e-15.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return 0.0;
    }
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 2.5 {
        // Maclaurin series: converges fast and cancels little below 2.5.
        let x2 = x * x;
        let mut power = x;
        let mut factorial = 1.0;
        let mut sum = x;
        for n in 1..200 {
            power *= -x2;
            factorial *= n as f64;
            let term = power / (factorial * (2 * n + 1) as f64);
            sum += term;
            if term.abs() < 1e-17 * sum.abs() {
                break;
            }
        }
        sum * 2.0 / PI.sqrt()
    } else {
        1.0 - erfc_tail(x)
    }
}

/// erfc(x) for x >= 2.5 by its continued fraction, evaluated backwards.
fn erfc_tail(x: f64) -> f64 {
    if x.is_infinite() {
        return 0.0;
    }
    let mut t = x;
    for k in (1..=80).rev() {
        t = x + (k as f64 / 2.0) / t;
    }
    (-x * x).exp() / PI.sqrt() / t
}

/// The standard normal distribution function.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * (1.0 + erf(z / SQRT_2))
}

/// Mean and variance of one sample from a discrete distribution given as
/// `(value, count)` pairs, and the sample size.
fn moments(samples: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n: f64 = samples.iter().map(|&(_, c)| c).sum();
    if n <= 0.0 {
        return None;
    }
    let mean = samples.iter().map(|&(v, c)| v * c).sum::<f64>() / n;
    let var = samples
        .iter()
        .map(|&(v, c)| c * (v - mean) * (v - mean))
        .sum::<f64>()
        / n;
    Some((mean, var.max(0.0), n))
}

/// The Elo, nElo and LOS of a sample of per-game scores, each sample
/// `games` games (1 for single games, 2 for pairs: the sample's standard
/// deviation times `sqrt(games)` is the per-game one nElo takes).
fn estimates(samples: &[(f64, f64)], games: f64) -> Estimates {
    let Some((score, var, n)) = moments(samples) else {
        return Estimates::UNKNOWN;
    };
    let se = (var / n).sqrt();
    let sd = var.sqrt() * games.sqrt();
    let elo = score_to_elo(score);
    let nelo = score_to_nelo(score, sd);
    if se == 0.0 {
        // Every game (or pair) scored the same: the sample shows no spread,
        // so the normal approximation gives no interval; LOS is
        // cutechess-cli's `Phi((W - L) / sqrt(W + L))`, here with wins or
        // losses only (92.1% after 2 wins, 100% after 100).
        let lead = (2.0 * score - 1.0) * n * games;
        let los = if lead == 0.0 {
            0.5
        } else {
            normal_cdf(lead / lead.abs().sqrt())
        };
        let unknown = |value| Interval {
            value,
            ..Interval::UNKNOWN
        };
        return Estimates {
            score,
            elo: unknown(elo),
            nelo: unknown(nelo),
            los,
        };
    }
    let (lo, hi) = (score - Z95 * se, score + Z95 * se);
    Estimates {
        score,
        elo: Interval {
            value: elo,
            lower: score_to_elo(lo),
            upper: score_to_elo(hi),
        },
        nelo: Interval {
            value: nelo,
            lower: score_to_nelo(lo, sd),
            upper: score_to_nelo(hi, sd),
        },
        los: normal_cdf((score - 0.5) / se),
    }
}

/// Everything estimated from a set of results.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimates {
    /// Mean score per game, in `[0, 1]` (`0.5` with no games).
    pub score: f64,
    /// Logistic Elo with its 95% interval.
    pub elo: Interval,
    /// Normalized Elo with its 95% interval.
    pub nelo: Interval,
    /// Likelihood of superiority: the probability that the engine is stronger.
    pub los: f64,
}

impl Estimates {
    /// The estimates of an empty match.
    pub const UNKNOWN: Estimates = Estimates {
        score: 0.5,
        elo: Interval::UNKNOWN,
        nelo: Interval::UNKNOWN,
        los: 0.5,
    };
}

/// Wins, draws and losses of one engine (the trinomial model: games are
/// taken as independent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Trinomial {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Trinomial {
    /// Counts from the three numbers.
    pub fn new(wins: u64, draws: u64, losses: u64) -> Self {
        Trinomial {
            wins,
            draws,
            losses,
        }
    }

    /// Counts one more game.
    pub fn add(&mut self, result: GameResult) {
        match result {
            GameResult::Win => self.wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::Loss => self.losses += 1,
        }
    }

    /// Games played.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points scored (a draw is half a point).
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// The same counts seen from the opponent.
    pub fn flipped(&self) -> Self {
        Trinomial::new(self.losses, self.draws, self.wins)
    }

    /// Share of drawn games (`0` with no games).
    pub fn draw_ratio(&self) -> f64 {
        match self.games() {
            0 => 0.0,
            n => self.draws as f64 / n as f64,
        }
    }

    /// Score, Elo and nElo with 95% intervals from the per-game variance, and
    /// LOS, as fastchess computes them.
    pub fn estimates(&self) -> Estimates {
        estimates(
            &[
                (1.0, self.wins as f64),
                (0.5, self.draws as f64),
                (0.0, self.losses as f64),
            ],
            1.0,
        )
    }
}

/// Game-pair counts (each opening played twice, colours swapped): index =
/// pair score in half points, i.e. `[LL, LD, DD or WL, WD, WW]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pentanomial {
    /// Pairs by score: 0, 1/2, 1, 3/2 and 2 points.
    pub counts: [u64; 5],
}

impl Pentanomial {
    /// Counts from `[LL, LD, DD/WL, WD, WW]`.
    pub fn new(counts: [u64; 5]) -> Self {
        Pentanomial { counts }
    }

    /// The index of a pair of results in `counts`.
    pub fn index(first: GameResult, second: GameResult) -> usize {
        usize::from(first.half_points() + second.half_points())
    }

    /// Counts one more pair.
    pub fn add_pair(&mut self, first: GameResult, second: GameResult) {
        self.counts[Self::index(first, second)] += 1;
    }

    /// Pairs played.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The same counts seen from the opponent.
    pub fn flipped(&self) -> Self {
        let mut counts = self.counts;
        counts.reverse();
        Pentanomial { counts }
    }

    /// The pairs as `(score per game, count)`.
    fn samples(&self) -> [(f64, f64); 5] {
        std::array::from_fn(|i| (i as f64 / 4.0, self.counts[i] as f64))
    }

    /// Score, Elo and nElo with 95% intervals from the variance over pairs,
    /// and LOS, as fastchess computes them (nElo uses the per-game standard
    /// deviation `sqrt(2 * pair variance)`).
    pub fn estimates(&self) -> Estimates {
        estimates(&self.samples(), 2.0)
    }
}

/// Why SPRT parameters were refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SprtError {
    /// alpha or beta outside `[1e-9, 1)`, or their sum not below 1.
    #[error("SPRT error rates must lie in [1e-9, 1) with alpha + beta < 1 (got alpha={alpha}, beta={beta})")]
    BadErrorRates {
        /// The type I error rate given.
        alpha: f64,
        /// The type II error rate given.
        beta: f64,
    },
    /// elo0 not below elo1, or either beyond [`MAX_SPRT_NELO`].
    #[error(
        "SPRT needs elo0 < elo1, both within ±200 normalized Elo (got elo0={elo0}, elo1={elo1})"
    )]
    BadElo {
        /// H0's normalized Elo.
        elo0: f64,
        /// H1's normalized Elo.
        elo1: f64,
    },
}

/// The largest SPRT bound (normalized Elo) taken: far beyond any test
/// worth running, and within the reach of the likelihood fit, which starts
/// from the uniform distribution as fishtest's does and cannot reach a
/// t-value of `1 / (3 sqrt(1/8))` (231.6 nElo) from there.
pub const MAX_SPRT_NELO: f64 = 200.0;

/// What the SPRT concludes so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SprtStatus {
    /// The LLR lies between the bounds: play on.
    Continue,
    /// The LLR reached the upper bound: the engine is at least elo1 (H1).
    AcceptH1,
    /// The LLR reached the lower bound: the engine is at most elo0 (H0).
    AcceptH0,
}

/// The pentanomial normalized-Elo GSPRT of fishtest (and fastchess).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// H0: normalized Elo at most this.
    pub elo0: f64,
    /// H1: normalized Elo at least this.
    pub elo1: f64,
    /// Type I error rate (accepting H1 when H0 holds).
    pub alpha: f64,
    /// Type II error rate (accepting H0 when H1 holds).
    pub beta: f64,
}

/// Pseudo-count fishtest gives an empty pentanomial cell, so that the
/// likelihood never involves `ln 0`.
const REGULARIZE: f64 = 1e-3;

impl Sprt {
    /// Reads `elo0=E0,elo1=E1,alpha=A,beta=B` (the `--sprt` option), any
    /// order; the error quotes the text escaped and cut.
    pub fn parse(text: &str) -> Result<Self, String> {
        let quote = |t: &str| engine::files::quoted(t, 40);
        let mut v = [None; 4];
        for item in text.split(',') {
            let (k, x) = item
                .split_once('=')
                .ok_or_else(|| format!("expected key=value, got '{}'", quote(item)))?;
            let x: f64 = x
                .trim()
                .parse()
                .map_err(|_| format!("{} must be a number, got '{}'", quote(k.trim()), quote(x)))?;
            let i = ["elo0", "elo1", "alpha", "beta"]
                .iter()
                .position(|n| *n == k.trim())
                .ok_or_else(|| format!("unknown key '{}' (elo0, elo1, alpha, beta)", quote(k)))?;
            if v[i].replace(x).is_some() {
                return Err(format!("{}= given twice", quote(k.trim())));
            }
        }
        let need = |i: usize, n: &str| v[i].ok_or_else(|| format!("needs {n}="));
        Sprt::new(
            need(0, "elo0")?,
            need(1, "elo1")?,
            need(2, "alpha")?,
            need(3, "beta")?,
        )
        .map_err(|e| e.to_string())
    }

    /// The smallest error rate a test takes: its bounds stay finite (about
    /// +-20.7 for the other rate at 0.05).
    pub const MIN_ERROR_RATE: f64 = 1e-9;

    /// Checks and stores the test's parameters (elo0 and elo1 in normalized Elo).
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Self, SprtError> {
        // Below MIN_ERROR_RATE a bound's logarithm may overflow to infinity
        // (a subnormal alpha), and the test could never accept.
        let rate_ok = |r: f64| (Self::MIN_ERROR_RATE..1.0).contains(&r);
        if !(rate_ok(alpha) && rate_ok(beta) && alpha + beta < 1.0) {
            return Err(SprtError::BadErrorRates { alpha, beta });
        }
        let within = |e: f64| e.abs() <= MAX_SPRT_NELO;
        if !(within(elo0) && within(elo1) && elo0 < elo1) {
            return Err(SprtError::BadElo { elo0, elo1 });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The lower bound `ln(beta / (1 - alpha))`: at or below it, accept H0.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The upper bound `ln((1 - beta) / alpha)`: at or above it, accept H1.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The decision for a log-likelihood ratio.
    pub fn status(&self, llr: f64) -> SprtStatus {
        if llr >= self.upper_bound() {
            SprtStatus::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtStatus::AcceptH0
        } else {
            SprtStatus::Continue
        }
    }

    /// The decision for the current counts.
    pub fn check(&self, penta: &Pentanomial) -> SprtStatus {
        self.status(self.llr(penta))
    }

    /// The generalized log-likelihood ratio of H1 against H0, as fishtest's
    /// `LLR_normalized`: each hypothesis's distribution is the maximum
    /// likelihood pentanomial distribution whose t-value `(mu - 1/2) / sigma`
    /// equals `sqrt(2) * nelo / (800 / ln 10)`; empty cells get a pseudo-count
    /// of 0.001. `0` with no pairs.
    pub fn llr(&self, penta: &Pentanomial) -> f64 {
        if penta.pairs() == 0 {
            return 0.0;
        }
        let counts = penta
            .counts
            .map(|c| if c == 0 { REGULARIZE } else { c as f64 });
        let n: f64 = counts.iter().sum();
        let observed = counts.map(|c| c / n);
        let t = |nelo: f64| nelo / NELO_PER_T * SQRT_2;
        match (
            mle_with_t_value(&observed, t(self.elo0)),
            mle_with_t_value(&observed, t(self.elo1)),
        ) {
            (Some(h0), Some(h1)) => {
                let per_pair: f64 = (0..5)
                    .map(|i| observed[i] * (h1[i].ln() - h0[i].ln()))
                    .sum();
                if per_pair.is_finite() {
                    n * per_pair
                } else {
                    self.llr_approx(penta)
                }
            }
            _ => self.llr_approx(penta),
        }
    }

    /// fastchess's approximation of the same LLR: the nElo bounds become
    /// scores with the observed variance, then `pairs/2 * ln(var0 / var1)`
    /// where `var_k` is the observed spread around score `k`. No
    /// regularization, so `0` when every pair scored the same.
    pub fn llr_approx(&self, penta: &Pentanomial) -> f64 {
        let Some((score, var, pairs)) = moments(&penta.samples()) else {
            return 0.0;
        };
        if var <= 0.0 {
            return 0.0;
        }
        let to_score = |nelo: f64| 0.5 + nelo * (2.0 * var).sqrt() / NELO_PER_T;
        let spread = |s: f64| var + (score - s) * (score - s);
        let (v0, v1) = (spread(to_score(self.elo0)), spread(to_score(self.elo1)));
        0.5 * pairs * (v0 / v1).ln()
    }
}

/// Pair scores per game, the values of the pentanomial distribution.
const PAIR_VALUES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// The maximum-likelihood distribution on the pair scores, given the observed
/// frequencies, among those with `(mu - 1/2) / sigma = t`: the fixed point of
/// fishtest's `MLE_t_value` (Van den Bergh, "Normalized Elo, practical
/// considerations", 4.1). `None` if an iteration has no solution.
fn mle_with_t_value(observed: &[f64; 5], t: f64) -> Option<[f64; 5]> {
    let mut q = [0.2; 5];
    for _ in 0..100 {
        let mu: f64 = (0..5).map(|i| q[i] * PAIR_VALUES[i]).sum();
        let var: f64 = (0..5).map(|i| q[i] * (PAIR_VALUES[i] - mu).powi(2)).sum();
        let sigma = var.sqrt();
        if sigma.is_nan() || sigma <= 0.0 {
            return None;
        }
        let shifted: [f64; 5] = std::array::from_fn(|i| {
            let z = (mu - PAIR_VALUES[i]) / sigma;
            PAIR_VALUES[i] - 0.5 - t * sigma * (1.0 + z * z) / 2.0
        });
        let x = secular_root(observed, &shifted)?;
        let next: [f64; 5] = std::array::from_fn(|i| observed[i] / (1.0 + x * shifted[i]));
        let change = (0..5).map(|i| (next[i] - q[i]).abs()).fold(0.0, f64::max);
        q = next;
        if change < 1e-13 {
            break;
        }
    }
    q.iter().all(|&p| p > 0.0 && p.is_finite()).then_some(q)
}

/// The root of `sum p_i a_i / (1 + x a_i) = 0` between `-1/max a` and
/// `-1/min a`, where the sum falls from `+inf` to `-inf`; `None` unless the
/// `a_i` take both signs.
fn secular_root(p: &[f64; 5], a: &[f64; 5]) -> Option<f64> {
    let lo_a = a.iter().copied().fold(f64::INFINITY, f64::min);
    let hi_a = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(lo_a < 0.0 && hi_a > 0.0) {
        return None;
    }
    let f = |x: f64| (0..5).map(|i| p[i] * a[i] / (1.0 + x * a[i])).sum::<f64>();
    let (mut lo, mut hi) = (-1.0 / hi_a, -1.0 / lo_a);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// Writes Elo triples (value, lower, upper) to JSON, which has no
/// infinity: a finite figure as a number, an infinite one (a 100% or 0%
/// score) as the string `"inf"` or `"-inf"`, so that its sign is kept.
/// For `#[serde(serialize_with = "...")]`.
pub fn serialize_elo<S: serde::Serializer>(elo: &[f64; 3], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeTuple;
    let mut t = s.serialize_tuple(3)?;
    for x in elo {
        if x.is_finite() {
            t.serialize_element(x)?;
        } else if x.is_nan() {
            t.serialize_element(&Option::<f64>::None)?;
        } else if *x > 0.0 {
            t.serialize_element("inf")?;
        } else {
            t.serialize_element("-inf")?;
        }
    }
    t.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, tol: f64) {
        assert!(
            (actual - expected).abs() <= tol,
            "got {actual}, expected {expected} (tolerance {tol})"
        );
    }

    // Reference values: an independent mpmath script (30 digits), run as
    // `python3 ref.py`:
    //
    //   from mpmath import mp, mpf, erf, log, log10, sqrt
    //   mp.dps = 30
    //   Z = mpf('1.959963984540054'); C = 800 / log(10)
    //   elo = lambda s: -400 * log10(1 / s - 1)
    //   def tri(w, d, l):
    //       n = w + d + l; s = (w + d / mpf(2)) / n
    //       var = (w * (1 - s)**2 + d * (mpf('0.5') - s)**2 + l * s**2) / n
    //       se = sqrt(var / n); lo, hi = s - Z * se, s + Z * se
    //       los = (1 + erf((s - mpf('0.5')) / (sqrt(2) * se))) / 2
    //       nelo = lambda x: (x - mpf('0.5')) / sqrt(var) * C
    //       print(s, elo(s), elo(lo), elo(hi), los, mpf(d) / n, nelo(s), nelo(lo), nelo(hi))
    //   def penta(c):
    //       n = sum(c); a = [mpf(i) / 4 for i in range(5)]; p = [mpf(x) / n for x in c]
    //       s = sum(pi * ai for pi, ai in zip(p, a))
    //       var = sum(pi * (ai - s)**2 for pi, ai in zip(p, a))
    //       se = sqrt(var / n); lo, hi = s - Z * se, s + Z * se
    //       los = (1 + erf((s - mpf('0.5')) / (sqrt(2) * se))) / 2
    //       nelo = lambda x: (x - mpf('0.5')) / sqrt(2 * var) * C
    //       print(s, var, elo(s), elo(lo), elo(hi), los, nelo(s), nelo(lo), nelo(hi))
    //   tri(120, 200, 80); penta([10, 45, 100, 60, 20])
    //
    // By hand for the trinomial: s = (120 + 100) / 400 = 0.55;
    // var = (120 * 0.45^2 + 200 * 0.05^2 + 80 * 0.55^2) / 400
    //     = (24.3 + 0.5 + 24.2) / 400 = 0.1225, sd = 0.35;
    // se = 0.35 / 20 = 0.0175; interval 0.55 -+ 0.0343 = [0.51570, 0.58430];
    // Elo(0.55) = -400 log10(0.45 / 0.55) = 34.86;
    // nElo = 0.05 / 0.35 * 347.4356 = 49.634.

    #[test]
    fn trinomial_matches_reference() {
        let t = Trinomial::new(120, 200, 80);
        let e = t.estimates();
        close(e.score, 0.55, 1e-12);
        close(e.elo.value, 34.860_070_287_560_07, 1e-9);
        close(e.elo.lower, 10.913_503_333_156_15, 1e-9);
        close(e.elo.upper, 59.141_893_951_303_39, 1e-9);
        close(e.los, 0.997_862_633_019_913_7, 1e-12);
        close(t.draw_ratio(), 0.5, 1e-15);
        close(e.nelo.value, 49.633_655_074_657_35, 1e-9);
        close(e.nelo.lower, 15.585_593_346_063_12, 1e-9);
        close(e.nelo.upper, 83.681_716_803_251_58, 1e-9);
        close(
            e.elo.margin(),
            (59.141_893_951_303_39 - 10.913_503_333_156_15) / 2.0,
            1e-9,
        );
        // Seen from the opponent, everything mirrors.
        let f = t.flipped().estimates();
        close(f.elo.value, -e.elo.value, 1e-9);
        close(f.elo.lower, -e.elo.upper, 1e-9);
        close(f.los, 1.0 - e.los, 1e-12);
    }

    // By hand for the pentanomial [10, 45, 100, 60, 20] (235 pairs):
    // s = (45 * 0.25 + 100 * 0.5 + 60 * 0.75 + 20) / 235 = 126.25 / 235
    //   = 0.537234; var = E[x^2] - s^2 = (45/16 + 25 + 33.75 + 20) / 235 - s^2
    //   = 81.5625 / 235 - 0.288621 = 0.058454.
    #[test]
    fn pentanomial_matches_reference() {
        let p = Pentanomial::new([10, 45, 100, 60, 20]);
        let e = p.estimates();
        close(e.score, 0.537_234_042_553_191_5, 1e-12);
        close(e.elo.value, 25.920_848_465_609_62, 1e-9);
        close(e.elo.lower, 4.393_518_013_486_529, 1e-9);
        close(e.elo.upper, 47.648_948_863_184_8, 1e-9);
        close(e.los, 0.990_883_236_675_249_9, 1e-12);
        close(e.nelo.value, 37.834_864_407_511_82, 1e-9);
        close(e.nelo.lower, 6.424_464_889_989_732, 1e-9);
        close(e.nelo.upper, 69.245_263_925_033_91, 1e-9);
    }

    #[test]
    fn pairs_are_indexed_by_half_points() {
        use GameResult::*;
        let mut p = Pentanomial::default();
        p.add_pair(Loss, Loss);
        p.add_pair(Draw, Loss);
        p.add_pair(Win, Loss);
        p.add_pair(Draw, Draw);
        p.add_pair(Draw, Win);
        p.add_pair(Win, Win);
        assert_eq!(p.counts, [1, 1, 2, 1, 1]);
        assert_eq!(p.flipped().counts, [1, 1, 2, 1, 1]);
        let mut t = Trinomial::default();
        for r in [Win, Win, Draw, Loss] {
            t.add(r);
        }
        assert_eq!((t.games(), t.points()), (4, 2.5));
    }

    #[test]
    fn erf_matches_reference() {
        // mpmath: erf(0.1), erf(1), erf(2.4), erf(2.6), erf(4), erf(-3).
        close(erf(0.1), 0.112_462_916_018_284_89, 1e-15);
        close(erf(1.0), 0.842_700_792_949_714_9, 1e-15);
        close(erf(2.4), 0.999_311_486_103_355, 1e-15);
        close(erf(2.6), 0.999_763_965_583_470_7, 1e-15);
        close(erf(4.0), 0.999_999_984_582_742_1, 1e-15);
        close(erf(-3.0), -0.999_977_909_503_001_4, 1e-15);
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
        close(normal_cdf(0.0), 0.5, 1e-15);
    }

    #[test]
    fn edge_cases_are_finite_or_infinite_never_nan() {
        let none = Trinomial::default().estimates();
        assert_eq!(none, Estimates::UNKNOWN);
        assert_eq!(Trinomial::default().draw_ratio(), 0.0);
        assert_eq!(Pentanomial::default().estimates(), Estimates::UNKNOWN);
        assert_eq!(Interval::UNKNOWN.margin(), f64::INFINITY);

        // No spread (every game alike): no interval, and cutechess-cli's
        // LOS from wins and losses.
        let wins = Trinomial::new(10, 0, 0).estimates();
        assert_eq!(wins.elo.value, f64::INFINITY);
        assert_eq!(
            (wins.elo.lower, wins.elo.upper),
            (f64::NEG_INFINITY, f64::INFINITY)
        );
        assert_eq!(wins.elo.margin(), f64::INFINITY);
        assert_eq!(wins.nelo.value, f64::INFINITY);
        assert_eq!(wins.nelo.margin(), f64::INFINITY);
        close(wins.los, normal_cdf(10f64.sqrt()), 1e-15);
        close(Trinomial::new(2, 0, 0).estimates().los, 0.921_350, 1e-6);
        assert_eq!(Trinomial::new(100, 0, 0).estimates().los, 1.0);

        let losses = Trinomial::new(0, 0, 7).estimates();
        assert_eq!(losses.elo.value, f64::NEG_INFINITY);
        assert_eq!(losses.nelo.upper, f64::INFINITY);
        close(losses.los, normal_cdf(-7f64.sqrt()), 1e-15);

        let draws = Trinomial::new(0, 9, 0).estimates();
        assert_eq!(
            (draws.elo.value, draws.elo.lower, draws.elo.upper),
            (0.0, f64::NEG_INFINITY, f64::INFINITY)
        );
        assert_eq!(draws.nelo.value, 0.0);
        assert_eq!(draws.los, 0.5);

        // Pairs alike: one won-drawn pair is a win and a draw; even pairs
        // (each a win and a loss, or two draws) say 50%.
        let one = Pentanomial::new([0, 0, 0, 1, 0]).estimates();
        assert_eq!(one.elo.margin(), f64::INFINITY);
        close(one.los, normal_cdf(1.0), 1e-15);
        let even = Pentanomial::new([0, 0, 2, 0, 0]).estimates();
        assert_eq!((even.elo.value, even.los), (0.0, 0.5));
        assert_eq!(even.nelo.margin(), f64::INFINITY);

        // A bound past score 1 is infinite, the estimate itself finite.
        let mostly = Trinomial::new(9, 1, 0).estimates();
        assert!(mostly.elo.value.is_finite());
        assert_eq!(mostly.elo.upper, f64::INFINITY);
        assert_eq!(mostly.elo.margin(), f64::INFINITY);

        for counts in [[0, 0, 0, 0, 5], [5, 0, 0, 0, 0], [0, 0, 5, 0, 0], [0; 5]] {
            let p = Pentanomial::new(counts);
            let e = p.estimates();
            for v in [
                e.score,
                e.elo.value,
                e.elo.lower,
                e.elo.upper,
                e.los,
                e.nelo.value,
            ] {
                assert!(!v.is_nan(), "{counts:?}");
            }
            let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
            assert!(sprt.llr(&p).is_finite(), "{counts:?}");
            assert!(sprt.llr_approx(&p).is_finite(), "{counts:?}");
        }
    }

    // LLR reference: fishtest's LLR_normalized re-derived independently with
    // mpmath (50 digits; bisection for the secular equation, 200 fixed-point
    // steps, and a check that the MLE has exactly the asked t-value), and
    // fastchess's approximation:
    //
    //   from mpmath import mp, mpf, log, sqrt
    //   mp.dps = 50; C = 800 / log(10); A = [mpf(i) / 4 for i in range(5)]
    //   def stats(q):
    //       mu = sum(qi * ai for qi, ai in zip(q, A))
    //       return mu, sum(qi * (ai - mu)**2 for qi, ai in zip(q, A))
    //   def root(p, b):
    //       f = lambda x: sum(pi * bi / (1 + x * bi) for pi, bi in zip(p, b))
    //       lo, hi = -1 / max(b), -1 / min(b)
    //       for _ in range(400):
    //           mid = (lo + hi) / 2
    //           if f(mid) > 0: lo = mid
    //           else: hi = mid
    //       return (lo + hi) / 2
    //   def mle(p, t):
    //       q = [mpf(1) / 5] * 5
    //       for _ in range(200):
    //           mu, var = stats(q); sg = sqrt(var)
    //           b = [ai - mpf('0.5') - t * sg * (1 + ((mu - ai) / sg)**2) / 2 for ai in A]
    //           x = root(p, b); q = [pi / (1 + x * bi) for pi, bi in zip(p, b)]
    //       mu, var = stats(q)
    //       assert abs((mu - mpf('0.5')) / sqrt(var) - t) < mpf('1e-30')
    //       return q
    //   def exact(e0, e1, c):
    //       r = [mpf(x) if x else mpf('1e-3') for x in c]; n = sum(r); p = [x / n for x in r]
    //       t0, t1 = [mpf(e) / C * sqrt(2) for e in (e0, e1)]
    //       q0, q1 = mle(p, t0), mle(p, t1)
    //       return n * sum(pi * (log(b) - log(a)) for pi, a, b in zip(p, q0, q1))
    //   def approx(e0, e1, c):
    //       n = sum(c); p = [mpf(x) / n for x in c]; s, var = stats(p)
    //       s0, s1 = [mpf(e) * sqrt(2 * var) / C + mpf('0.5') for e in (e0, e1)]
    //       v0, v1 = [sum(pi * (ai - si)**2 for pi, ai in zip(p, A)) for si in (s0, s1)]
    //       return n / 2 * log(v0 / v1)
    //
    // Output:
    //   0 2 [480, 2100, 4200, 2250, 520] exact 1.6857744421827455722 approx 1.685814464251906005
    //   0 5 [10, 45, 100, 60, 20]        exact 0.68087920867919804762 approx 0.67388754669563454177
    //   0 5 [20, 60, 100, 45, 10]        exact -0.77721123340951216877 approx -0.76455038285480873376
    //   -1 3 [0, 3, 7, 5, 2]             exact 0.10985622119185716539 approx 0.093070242378977666218
    //   0 5 [0, 0, 0, 0, 30]             exact 0.60432058424331693394
    //   bounds ln(0.05/0.95) = -2.9444389791664403, ln(0.95/0.05) = 2.9444389791664403
    #[test]
    fn llr_matches_reference() {
        let cases: [(f64, f64, [u64; 5], f64, f64); 4] = [
            (
                0.0,
                2.0,
                [480, 2100, 4200, 2250, 520],
                1.685_774_442_182_745_6,
                1.685_814_464_251_906,
            ),
            (
                0.0,
                5.0,
                [10, 45, 100, 60, 20],
                0.680_879_208_679_198,
                0.673_887_546_695_634_5,
            ),
            (
                0.0,
                5.0,
                [20, 60, 100, 45, 10],
                -0.777_211_233_409_512_2,
                -0.764_550_382_854_808_7,
            ),
            (
                -1.0,
                3.0,
                [0, 3, 7, 5, 2],
                0.109_856_221_191_857_17,
                0.093_070_242_378_977_67,
            ),
        ];
        for (e0, e1, counts, exact, approx) in cases {
            let sprt = Sprt::new(e0, e1, 0.05, 0.05).unwrap();
            let p = Pentanomial::new(counts);
            close(sprt.llr(&p), exact, 1e-9);
            close(sprt.llr_approx(&p), approx, 1e-9);
        }
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
        close(
            sprt.llr(&Pentanomial::new([0, 0, 0, 0, 30])),
            0.604_320_584_243_316_9,
            1e-9,
        );
        assert_eq!(sprt.llr_approx(&Pentanomial::new([0, 0, 0, 0, 30])), 0.0);
        close(sprt.lower_bound(), -2.944_438_979_166_440_3, 1e-15);
        close(sprt.upper_bound(), 2.944_438_979_166_440_3, 1e-15);
        assert_eq!(sprt.llr(&Pentanomial::default()), 0.0);
    }

    #[test]
    fn sprt_status_transitions() {
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
        assert_eq!(sprt.status(0.0), SprtStatus::Continue);
        assert_eq!(sprt.status(sprt.upper_bound()), SprtStatus::AcceptH1);
        assert_eq!(sprt.status(sprt.lower_bound()), SprtStatus::AcceptH0);
        assert_eq!(sprt.status(f64::INFINITY), SprtStatus::AcceptH1);

        // A clearly stronger engine (one block: 1 LD, 3 DD, 4 WD, 2 WW) is
        // accepted as H1 after some blocks; a weaker one (mirror) as H0.
        for (block, expected) in [
            ([0, 1, 3, 4, 2], SprtStatus::AcceptH1),
            ([2, 4, 3, 1, 0], SprtStatus::AcceptH0),
        ] {
            let mut p = Pentanomial::default();
            let mut history = vec![sprt.check(&p)];
            for _ in 0..200 {
                for (c, b) in p.counts.iter_mut().zip(block) {
                    *c += b;
                }
                history.push(sprt.check(&p));
                if history.last() != Some(&SprtStatus::Continue) {
                    break;
                }
            }
            assert_eq!(history[0], SprtStatus::Continue);
            assert!(history.len() > 2, "decided too soon: {history:?}");
            assert_eq!(history.last(), Some(&expected));
        }

        // All wins must eventually stop the test too (the approximation never would).
        let mut p = Pentanomial::default();
        let mut pairs = 0;
        while sprt.check(&p) == SprtStatus::Continue && pairs < 10_000 {
            p.add_pair(GameResult::Win, GameResult::Win);
            pairs += 1;
        }
        assert_eq!(sprt.check(&p), SprtStatus::AcceptH1);
    }

    #[test]
    fn sprt_rejects_bad_parameters() {
        assert!(matches!(
            Sprt::new(0.0, 5.0, 0.0, 0.05),
            Err(SprtError::BadErrorRates { .. })
        ));
        // A subnormal alpha made the upper bound infinite (written as null).
        assert!(matches!(
            Sprt::new(0.0, 5.0, 1e-320, 0.05),
            Err(SprtError::BadErrorRates { .. })
        ));
        let least = Sprt::new(0.0, 5.0, Sprt::MIN_ERROR_RATE, Sprt::MIN_ERROR_RATE).unwrap();
        assert!(least.lower_bound().is_finite() && least.upper_bound().is_finite());
        assert!(matches!(
            Sprt::new(0.0, 5.0, 0.6, 0.5),
            Err(SprtError::BadErrorRates { .. })
        ));
        assert!(matches!(
            Sprt::new(5.0, 5.0, 0.05, 0.05),
            Err(SprtError::BadElo { .. })
        ));
        assert!(matches!(
            Sprt::new(f64::NAN, 5.0, 0.05, 0.05),
            Err(SprtError::BadElo { .. })
        ));
        assert!(matches!(
            Sprt::new(0.0, 5.0, f64::NAN, 0.05),
            Err(SprtError::BadErrorRates { .. })
        ));
        // Bounds that once gave an LLR of NaN (or -inf) are refused; those
        // at the limit give a number whatever the results.
        for (e0, e1) in [(-1e300, 1e300), (0.0, 1e200), (-1000.5, 0.0)] {
            assert!(matches!(
                Sprt::new(e0, e1, 0.05, 0.05),
                Err(SprtError::BadElo { .. })
            ));
        }
        let pentas = [
            [0, 0, 3, 0, 0],
            [3, 0, 0, 0, 0],
            [0, 0, 0, 0, 3],
            [1, 2, 3, 4, 5],
            [0, 1, 0, 0, 0],
        ];
        for (e0, e1) in [
            (-MAX_SPRT_NELO, MAX_SPRT_NELO),
            (0.0, MAX_SPRT_NELO),
            (-MAX_SPRT_NELO, 0.0),
        ] {
            let sprt = Sprt::new(e0, e1, 0.05, 0.05).unwrap();
            for counts in pentas {
                let p = Pentanomial::new(counts);
                assert!(sprt.llr(&p).is_finite(), "{e0} {e1} {counts:?}");
                assert!(sprt.llr_approx(&p).is_finite(), "{e0} {e1} {counts:?}");
            }
        }
        // Within the bounds taken, the likelihood fit finds its distribution
        // (no silent fall back to the approximation) for one-sided results
        // of any size, and a one-sided match decides: past 231.6 nElo it
        // finds none, and all-won pairs would give an LLR of 0 for ever.
        let t = |nelo: f64| nelo / NELO_PER_T * SQRT_2;
        for one in 0..5 {
            for n in [1, 10, 100_000] {
                let mut counts = [REGULARIZE; 5];
                counts[one] = n as f64;
                let total: f64 = counts.iter().sum();
                let observed = counts.map(|c| c / total);
                for bound in [-MAX_SPRT_NELO, MAX_SPRT_NELO] {
                    assert!(mle_with_t_value(&observed, t(bound)).is_some());
                }
            }
        }
        let sprt = Sprt::new(0.0, MAX_SPRT_NELO, 0.05, 0.05).unwrap();
        let won = sprt.llr(&Pentanomial::new([0, 0, 0, 0, 20]));
        assert_eq!(sprt.status(won), SprtStatus::AcceptH1, "{won}");
        assert!(Sprt::new(0.0, MAX_SPRT_NELO + 1.0, 0.05, 0.05).is_err());
        // An even score is 0 Elo, not -0 (printed "-0.0").
        assert!(score_to_elo(0.5).is_sign_positive());
        let even = Trinomial::new(1, 2, 1);
        assert_eq!(format!("{:.1}", even.estimates().elo.value), "0.0");
    }

    #[test]
    fn infinite_elo_keeps_its_sign_in_json() {
        #[derive(serde::Serialize)]
        struct E {
            #[serde(serialize_with = "super::serialize_elo")]
            elo: [f64; 3],
        }
        let text = |elo| serde_json::to_string(&E { elo }).unwrap();
        assert_eq!(
            text([f64::INFINITY, f64::INFINITY, f64::INFINITY]),
            r#"{"elo":["inf","inf","inf"]}"#
        );
        assert_eq!(
            text([-511.5, f64::NEG_INFINITY, -318.75]),
            r#"{"elo":[-511.5,"-inf",-318.75]}"#
        );
        assert_eq!(text([f64::NAN, 1.0, 2.0]), r#"{"elo":[null,1.0,2.0]}"#);
    }
}
