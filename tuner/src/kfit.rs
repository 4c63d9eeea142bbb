//! Fitting the scale `k` of `sigmoid(k * eval / 100)` to the initial weights:
//! the `k` whose predictions best match the game results (mean squared error).
//!
//! A log-spaced scan over [`K_MIN`]..[`K_MAX`] brackets the minimum, then a
//! golden-section search narrows it. The targets are the results alone (not
//! blended with the search scores, whose own scaling uses this `k`).

use crate::dataset::Dataset;
use crate::model::{eval, sigmoid};
use rayon::prelude::*;

/// Smallest `k` considered (per man of evaluation).
pub const K_MIN: f64 = 0.01;
/// Largest `k` considered.
pub const K_MAX: f64 = 100.0;

/// Mean squared error of `sigmoid(k * e / 100)` against `results`, in parallel.
pub fn result_loss(evals: &[f64], results: &[f64], k: f64) -> f64 {
    if evals.is_empty() {
        return f64::NAN;
    }
    // In fixed parts: the fitted k is the same whatever the threads.
    let sum = crate::model::sum_in_parts(0..evals.len().min(results.len()), |i| {
        let d = sigmoid(k * evals[i] / 100.0) - results[i];
        d * d
    });
    sum / evals.len() as f64
}

/// The `k` in `K_MIN..=K_MAX` that minimises `f` (assumed unimodal near its
/// best scan point): a 61-point log scan, then golden-section search.
pub fn minimise_k(f: impl Fn(f64) -> f64) -> f64 {
    const STEPS: usize = 60;
    let (lo, hi) = (K_MIN.ln(), K_MAX.ln());
    let at = |j: usize| lo + (hi - lo) * j as f64 / STEPS as f64;
    let mut best = (0, f64::INFINITY);
    for j in 0..=STEPS {
        let v = f(at(j).exp());
        if v < best.1 {
            best = (j, v);
        }
    }
    let (mut a, mut b) = (at(best.0.saturating_sub(1)), at((best.0 + 1).min(STEPS)));
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - g * (b - a);
    let mut d = a + g * (b - a);
    let (mut fc, mut fd) = (f(c.exp()), f(d.exp()));
    for _ in 0..60 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = f(c.exp());
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = f(d.exp());
        }
    }
    ((a + b) / 2.0).exp()
}

/// Whether `k` lies within one scan step of [`K_MIN`] or [`K_MAX`]: a `k`
/// fitted there is the range's end, not a minimum found (results that barely
/// follow the evaluation, or weights on a wildly wrong scale).
pub fn at_a_bound(k: f64) -> bool {
    let step = (K_MAX / K_MIN).powf(1.0 / 60.0);
    k <= K_MIN * step || k >= K_MAX / step
}

/// The `k` that best fits the results of `data` under parameters `w`.
pub fn fit_k(data: &Dataset, w: &[f64]) -> f64 {
    if data.is_empty() || w.len() < data.param_count() {
        return 1.0;
    }
    let evals: Vec<f64> = (0..data.len())
        .into_par_iter()
        .map(|i| eval(data, w, i))
        .collect();
    let results: Vec<f64> = (0..data.len()).map(|i| data.result(i) as f64).collect();
    minimise_k(|k| result_loss(&evals, &results, k))
}
