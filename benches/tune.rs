//! Tuner speed: the fitting part of an epoch (the gradient pass plus the
//! Adam steps) over one million synthetic positions shaped like Bushka's
//! feature data (113 features, ~45 entries each, no patterns). A
//! `bushka tune` epoch also computes the training and validation losses,
//! and a patterns fit has many more weights: this bench does neither, so it
//! times the fitting code, not a command's epoch.

// `criterion_group!` defines a public function without documentation.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use tuner::synthetic::{synthetic, SyntheticSpec};
use tuner::Trainer;

/// The fitting part of one epoch over 1M positions, full batch and
/// 16384-position batches.
fn epoch(c: &mut Criterion) {
    let spec = SyntheticSpec {
        positions: 1_000_000,
        features: 113,
        entries: 45,
        max_value: 4,
        seed: 1,
    };
    let truth: Vec<f64> = (0..2 * spec.features)
        .map(|i| ((i * 37) % 61) as f64 - 30.0)
        .collect();
    let data = synthetic(&spec, &truth, 1.0);
    let mut group = c.benchmark_group("tune");
    group.sample_size(10);
    for (name, batch) in [("epoch_1m_full_batch", 0), ("epoch_1m_batch_16384", 16384)] {
        let mut trainer = Trainer::new(&data, vec![0.0; 2 * spec.features], 1.0, 1.0, batch);
        group.bench_function(name, |b| b.iter(|| trainer.epoch()));
    }
    group.finish();
}

criterion_group!(benches, epoch);
criterion_main!(benches);
