//! The model the tuner fits: `sigmoid(k * eval / 100)`, the probability that
//! White scores, with `eval` the tapered weighted sum of the features in
//! centi-men from White's view (the search's evaluation, without its integer
//! rounding); mean squared error against the targets, and its gradient.
//!
//! Parameters are one vector `[mg_0 .. mg_n, eg_0 .. eg_n]`, followed, for a
//! set with patterns, by the pattern parameters `[pmg_0 .. pmg_P, peg_0 ..
//! peg_P]`: a region with index `j` (White's view) adds `theta[j] -
//! theta[mirror(j)]` to each half, as the engine's pattern evaluation does.

use crate::dataset::Dataset;
use rayon::prelude::*;

/// Positions per parallel job: large enough that a job's gradient buffer is
/// cheap next to its work.
const JOB: usize = 8192;

/// The logistic function.
#[inline(always)]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// White's evaluation of position `i` in centi-men under parameters `w`.
#[inline(always)]
pub fn eval(data: &Dataset, w: &[f64], i: usize) -> f64 {
    let n = data.feature_count();
    let (idx, val) = data.entries(i);
    let (mut mg, mut eg) = (0.0f64, 0.0f64);
    for (&f, &v) in idx.iter().zip(val) {
        let f = f as usize;
        mg += w[f] * v as f64;
        eg += w[n + f] * v as f64;
    }
    let np = data.pattern_count();
    if np > 0 {
        let (pm, pe) = w[2 * n..].split_at(np);
        let mirror = data.mirror();
        for &j in data.patterns(i) {
            let (j, m) = (j as usize, mirror[j as usize] as usize);
            mg += pm[j] - pm[m];
            eg += pe[j] - pe[m];
        }
    }
    let p = data.mg_share(i) as f64;
    mg * p + eg * (1.0 - p)
}

/// Mean squared error over positions `range` of `data`, in parallel.
pub fn loss(data: &Dataset, w: &[f64], k: f64, range: std::ops::Range<usize>) -> f64 {
    let count = range.len();
    if count == 0 || w.len() < data.param_count() {
        return f64::NAN;
    }
    let sum = sum_in_parts(range, |i| {
        let d = sigmoid(k * eval(data, w, i) / 100.0) - data.target(i) as f64;
        d * d
    });
    sum / count as f64
}

/// The most parts a range is summed in (each part of a gradient holds a
/// whole gradient vector).
const MAX_PARTS: usize = 32;

/// The parts a range is summed in: about `JOB` positions or more each (a
/// range a little over `JOB` splits in two halves), at most [`MAX_PARTS`],
/// fixed by the range alone. Each part is summed in order and
/// the parts' sums are added in order, so a loss or a gradient comes out the
/// same to the bit whatever the number of threads (rayon's own splitting
/// depends on them, and a resumed fit must find the losses it started from).
pub fn parts(range: std::ops::Range<usize>) -> Vec<std::ops::Range<usize>> {
    let n = range.len();
    let k = n.div_ceil(JOB).clamp(1, MAX_PARTS);
    let size = n.div_ceil(k).max(1);
    (0..k)
        .map(|p| {
            let a = (range.start + p * size).min(range.end);
            a..(a + size).min(range.end)
        })
        .filter(|r| !r.is_empty())
        .collect()
}

/// The sum of `f` over a range, in [`parts`] computed in parallel.
pub fn sum_in_parts(range: std::ops::Range<usize>, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    let partial: Vec<f64> = parts(range)
        .into_par_iter()
        .map(|part| part.map(&f).sum::<f64>())
        .collect();
    partial.iter().sum()
}

/// Mean squared error over the whole set.
pub fn loss_all(data: &Dataset, w: &[f64], k: f64) -> f64 {
    loss(data, w, k, 0..data.len())
}

/// The loss over positions `range` and its gradient with respect to `w`
/// (written to `grad`, same length as `w`). Each parallel job sums into its
/// own buffer; the buffers are added at the end.
pub fn loss_and_gradient(
    data: &Dataset,
    w: &[f64],
    k: f64,
    range: std::ops::Range<usize>,
    grad: &mut [f64],
) -> f64 {
    let n = data.feature_count();
    let len = data.param_count();
    let np = data.pattern_count();
    grad.iter_mut().for_each(|g| *g = 0.0);
    let count = range.len();
    if count == 0 || w.len() < len || grad.len() < len {
        return f64::NAN;
    }
    let scale = k / 100.0;
    // Each part its own sum and gradient, added in order (see [`parts`]).
    let partial: Vec<(f64, Vec<f64>)> = parts(range)
        .into_par_iter()
        .map(|part| {
            part.fold((0.0f64, vec![0.0f64; len]), |(mut sum, mut buf), i| {
                let s = sigmoid(scale * eval(data, w, i));
                let d = s - data.target(i) as f64;
                sum += d * d;
                // d/dw of (s - t)^2 = 2 (s - t) s (1 - s) k/100 * d eval/dw.
                let g = 2.0 * d * s * (1.0 - s) * scale;
                let p = data.mg_share(i) as f64;
                let (gm, ge) = (g * p, g * (1.0 - p));
                let (idx, val) = data.entries(i);
                for (&f, &v) in idx.iter().zip(val) {
                    let f = f as usize;
                    buf[f] += gm * v as f64;
                    buf[n + f] += ge * v as f64;
                }
                if np > 0 {
                    let mirror = data.mirror();
                    for &j in data.patterns(i) {
                        let (j, m) = (j as usize, mirror[j as usize] as usize);
                        buf[2 * n + j] += gm;
                        buf[2 * n + m] -= gm;
                        buf[2 * n + np + j] += ge;
                        buf[2 * n + np + m] -= ge;
                    }
                }
                (sum, buf)
            })
        })
        .collect();
    // Into `grad` (zeroed above), part after part: the same additions in
    // the same order as into a fresh vector.
    let mut sum = 0.0f64;
    for (s, b) in &partial {
        sum += s;
        grad[..len].iter_mut().zip(b).for_each(|(a, b)| *a += b);
    }
    let inv = 1.0 / count as f64;
    grad[..len].iter_mut().for_each(|g| *g *= inv);
    sum * inv
}
