//! The compact in-memory training set: every position's features stored flat
//! (indices and values in contiguous arrays), with its phase and targets.

/// One position as the builder receives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// `(feature index, value)` pairs, White minus Black; repeated indices add up.
    pub entries: Vec<(u16, i16)>,
    /// The middle-game share of the taper, `phase / PHASE_MAX` in `0..=1`.
    pub mg_share: f32,
    /// The game result from White's view: 1, 0.5 or 0 (an average after de-duplication).
    pub result: f32,
    /// The search score from White's view in centi-men, `None` when unknown.
    pub score: Option<f32>,
}

/// Positions in flat arrays: position `i` owns entries `offsets[i]..offsets[i + 1]`.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    features: usize,
    offsets: Vec<usize>,
    index: Vec<u16>,
    value: Vec<i16>,
    mg_share: Vec<f32>,
    result: Vec<f32>,
    score: Vec<f32>,
    target: Vec<f32>,
}

impl Dataset {
    /// An empty set for a game with `features` features.
    pub fn new(features: usize) -> Dataset {
        Dataset {
            features,
            offsets: vec![0],
            ..Dataset::default()
        }
    }

    /// Appends a position; entries with an index beyond the feature count are
    /// dropped, repeated indices are merged, zero values left out. The target
    /// starts as the result (see [`Dataset::set_targets`]).
    pub fn push(&mut self, sample: &Sample) {
        let start = self.index.len();
        for &(i, v) in &sample.entries {
            if (i as usize) >= self.features || v == 0 {
                continue;
            }
            match self.index[start..].iter().position(|&j| j == i) {
                Some(p) => {
                    let slot = &mut self.value[start + p];
                    *slot = slot.saturating_add(v);
                }
                None => {
                    self.index.push(i);
                    self.value.push(v);
                }
            }
        }
        self.offsets.push(self.index.len());
        self.mg_share.push(sample.mg_share.clamp(0.0, 1.0));
        self.result.push(sample.result);
        self.score.push(sample.score.unwrap_or(f32::NAN));
        self.target.push(sample.result);
    }

    /// Number of features of the game (half the parameter count).
    pub fn feature_count(&self) -> usize {
        self.features
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.mg_share.len()
    }

    /// True when there is no position.
    pub fn is_empty(&self) -> bool {
        self.mg_share.is_empty()
    }

    /// Total stored feature entries (the work of one pass).
    pub fn entry_count(&self) -> usize {
        self.index.len()
    }

    /// The feature indices and values of position `i`.
    #[inline(always)]
    pub fn entries(&self, i: usize) -> (&[u16], &[i16]) {
        let (a, b) = (self.offsets[i], self.offsets[i + 1]);
        (&self.index[a..b], &self.value[a..b])
    }

    /// The middle-game share of position `i`.
    #[inline(always)]
    pub fn mg_share(&self, i: usize) -> f32 {
        self.mg_share[i]
    }

    /// The training target of position `i`: the probability White scores.
    #[inline(always)]
    pub fn target(&self, i: usize) -> f32 {
        self.target[i]
    }

    /// The game result of position `i` from White's view.
    pub fn result(&self, i: usize) -> f32 {
        self.result[i]
    }

    /// The search score of position `i` (White's view), if known.
    pub fn score(&self, i: usize) -> Option<f32> {
        let s = self.score[i];
        (!s.is_nan()).then_some(s)
    }

    /// Sets every target to `(1 - lambda) * result + lambda * sigmoid(k * score / 100)`;
    /// a position without a score keeps its result.
    pub fn set_targets(&mut self, k: f64, lambda: f64) {
        let lambda = lambda.clamp(0.0, 1.0);
        for i in 0..self.len() {
            let r = self.result[i] as f64;
            self.target[i] = match self.score(i) {
                Some(s) if lambda > 0.0 => {
                    ((1.0 - lambda) * r + lambda * crate::model::sigmoid(k * s as f64 / 100.0))
                        as f32
                }
                _ => r as f32,
            };
        }
    }

    /// Replaces the targets (for synthetic data); extra values are ignored.
    pub fn set_target_values(&mut self, targets: &[f32]) {
        for (t, &v) in self.target.iter_mut().zip(targets) {
            *t = v;
        }
    }

    /// Which parameters the data exercises: `[mg..., eg...]`, true where some
    /// position has the feature non-zero with a non-zero share of that half.
    pub fn exercised(&self) -> Vec<bool> {
        let n = self.features;
        let mut used = vec![false; 2 * n];
        for i in 0..self.len() {
            let p = self.mg_share[i];
            let (idx, _) = self.entries(i);
            for &f in idx {
                if p > 0.0 {
                    used[f as usize] = true;
                }
                if p < 1.0 {
                    used[n + f as usize] = true;
                }
            }
        }
        used
    }
}
