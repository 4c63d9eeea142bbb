//! Synthetic datasets for tests and benchmarks: random sparse features whose
//! targets are exactly the model's prediction under known weights.

use crate::dataset::{Dataset, Sample};
use crate::model::{eval, sigmoid};
use engine::zobrist::splitmix64;

/// A small deterministic random stream.
struct Rng(u64);

impl Rng {
    /// The next 64 random bits.
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        splitmix64(self.0)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Shape of a synthetic dataset.
#[derive(Clone, Copy, Debug)]
pub struct SyntheticSpec {
    /// Positions.
    pub positions: usize,
    /// Features of the imagined game.
    pub features: usize,
    /// Entries per position.
    pub entries: usize,
    /// Largest feature value in magnitude.
    pub max_value: i16,
    /// Seed of the random stream.
    pub seed: u64,
}

/// Random positions with targets `sigmoid(k * eval / 100)` under `truth`
/// (parameters `[mg..., eg...]`, length `2 * spec.features`).
pub fn synthetic(spec: &SyntheticSpec, truth: &[f64], k: f64) -> Dataset {
    let mut rng = Rng(spec.seed);
    let mut data = Dataset::new(spec.features);
    let max = spec.max_value.max(1) as u64;
    for _ in 0..spec.positions {
        let entries = (0..spec.entries)
            .map(|_| {
                let f = rng.below(spec.features as u64) as u16;
                let v = rng.below(2 * max + 1) as i16 - max as i16;
                (f, v)
            })
            .collect();
        let mg_share = (rng.below(257)) as f32 / 256.0;
        data.push(&Sample {
            patterns: Vec::new(),
            entries,
            mg_share,
            result: 0.5,
            score: None,
        });
    }
    let targets: Vec<f32> = (0..data.len())
        .map(|i| sigmoid(k * eval(&data, truth, i) / 100.0) as f32)
        .collect();
    data.set_target_values(&targets);
    data
}
