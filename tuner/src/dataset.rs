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
    /// Pattern parameter indices of White's view, one a region (empty when
    /// the set has no patterns; see [`Dataset::with_patterns`]).
    pub patterns: Vec<u32>,
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
    /// Regions a position (0: no patterns).
    stride: usize,
    /// `stride` pattern indices a position, White's view.
    patterns: Vec<u32>,
    /// The game's mirror table (Black's view of each index); its length is
    /// the number of pattern parameters of each half.
    mirror: std::sync::Arc<Vec<u32>>,
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

    /// An empty set that also stores `stride` pattern indices a position
    /// (`mirror` the game's [`engine::eval::patterns::mirror_table`]). The
    /// parameters are then `[feature mg, feature eg, pattern mg, pattern eg]`.
    pub fn with_patterns(
        features: usize,
        stride: usize,
        mirror: std::sync::Arc<Vec<u32>>,
    ) -> Dataset {
        Dataset {
            stride,
            mirror,
            ..Dataset::new(features)
        }
    }

    /// Regions stored a position (0 without patterns).
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Pattern parameters of each half (0 without patterns).
    pub fn pattern_count(&self) -> usize {
        if self.stride == 0 {
            0
        } else {
            self.mirror.len()
        }
    }

    /// Length of the parameter vector: `2 * (features + patterns)`.
    pub fn param_count(&self) -> usize {
        2 * (self.features + self.pattern_count())
    }

    /// The mirror table (empty without patterns).
    #[inline(always)]
    pub fn mirror(&self) -> &[u32] {
        &self.mirror
    }

    /// The pattern indices (White's view) of position `i`.
    #[inline(always)]
    pub fn patterns(&self, i: usize) -> &[u32] {
        &self.patterns[i * self.stride..(i + 1) * self.stride]
    }

    /// Bytes held by the stored positions (the vectors' lengths, not their
    /// spare capacity).
    pub fn memory_bytes(&self) -> usize {
        self.offsets.len() * size_of::<usize>()
            + self.index.len() * 2
            + self.value.len() * 2
            + self.mg_share.len() * 4 * 4
            + self.patterns.len() * 4
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
        if self.stride > 0 {
            // A sample without its regions (not made by the pattern loader)
            // gets index 0 of each region's block, whose mirror cancels
            // nothing: callers always give `stride` indices.
            let p = self.pattern_count() as u32;
            for k in 0..self.stride {
                let i = sample.patterns.get(k).copied().unwrap_or(0);
                self.patterns.push(if i < p { i } else { 0 });
            }
        }
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
        let np = self.pattern_count();
        let mut used = vec![false; self.param_count()];
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
            if np > 0 {
                for &j in self.patterns(i) {
                    for j in [j as usize, self.mirror[j as usize] as usize] {
                        used[2 * n + j] |= p > 0.0;
                        used[2 * n + np + j] |= p < 1.0;
                    }
                }
            }
        }
        used
    }
}
