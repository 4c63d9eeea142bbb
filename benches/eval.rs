//! Evaluation speed: evaluations per second of the default feature weights
//! (summed feature by feature), of the same weights compiled (the search's
//! path with `--eval features`), of the compiled features plus pattern
//! weights (the search's default path, `--eval patterns`, here with random
//! pattern weights: every lookup is made whatever the weights hold, so
//! their values do not change the cost), of feature
//! extraction into a vector (the tuner's path) and of material alone, over
//! positions of both games.
//!
//! `cargo bench --bench eval`; "elements/s" is evaluations per second.

// `criterion_group!` defines a public function without documentation.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use engine::eval::{Evaluator, Material, PatternEval, PatternWeights, Patterns, Weights};
use engine::{bashnya, bushka, Game, MoveList};
use std::hint::black_box;

/// Quiet positions (the ones the search evaluates) met in seeded random walks
/// from the start, plus the bench positions of `data/bench/`.
fn sample<G: Game>(bench_file: &str) -> Vec<G> {
    let mut out: Vec<G> = bench_file
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            G::parse_position(l.trim())
                .unwrap_or_else(|e| panic!("a bench position that does not read: {l}: {e}"))
        })
        .collect();
    let mut list = MoveList::new();
    for seed in 0..40u64 {
        let mut p = G::start();
        let mut s = seed;
        for _ in 0..150 {
            p.generate(&mut list);
            if list.is_empty() {
                break;
            }
            if !p.must_capture() {
                out.push(p);
            }
            s = engine::zobrist::splitmix64(s);
            p = p.play(&list[(s % list.len() as u64) as usize]);
        }
    }
    out
}

fn bench_game<G>(c: &mut Criterion, bench_file: &str)
where
    G: Patterns,
    Material: Evaluator<G>,
{
    let positions = sample::<G>(bench_file);
    let weights = Weights::default_for(G::KIND);
    let material = Material::default();
    let mut group = c.benchmark_group(format!("eval_{}", G::KIND.name()));
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("weights", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| weights.evaluate(black_box(p)) as i64)
                .sum::<i64>()
        });
    });
    // The search's evaluator with `--eval features`: the same weights
    // compiled for speed.
    let compiled = G::compile(&weights);
    group.bench_function("compiled", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| compiled.evaluate(black_box(p)) as i64)
                .sum::<i64>()
        });
    });
    // Features and patterns: random pattern weights in [-50, 50].
    let n = G::SET.len();
    let random = |seed: u64| -> Vec<i16> {
        (0..n)
            .map(|i| (engine::zobrist::splitmix64(seed ^ i as u64) % 101) as i16 - 50)
            .collect()
    };
    let pw = PatternWeights::from_parts(weights.clone(), random(1), random(2))
        .expect("random pattern weights in range");
    let patterns = PatternEval::<G>::new(&pw).expect("weights of the game");
    group.bench_function("patterns", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| patterns.evaluate(black_box(p)) as i64)
                .sum::<i64>()
        });
    });
    group.bench_function("feature_vec", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| black_box(black_box(p).feature_vec()).len())
                .sum::<usize>()
        });
    });
    group.bench_function("material", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| material.evaluate(black_box(p)) as i64)
                .sum::<i64>()
        });
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_game::<bushka::Position>(c, include_str!("../data/bench/bushka.txt"));
    bench_game::<bashnya::Position>(c, include_str!("../data/bench/bashnya.txt"));
}

criterion_group!(eval, benches);
criterion_main!(eval);
