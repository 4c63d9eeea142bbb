//! Bushka move generation speed: perft with bulk counting, and generation per position.
//!
//! `cargo bench --bench movegen`; the perft groups report leaf nodes per second
//! as "elements/s".

// `criterion_group!` defines a public function without documentation.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use engine::bushka::Position;
use engine::perft::{perft, perft_parallel};
use engine::{Game, MoveList};
use std::hint::black_box;

/// Start position and three middle games with kings, lines and captures.
const POSITIONS: [(&str, &str, u32); 4] = [
    ("start", engine::bushka::START, 6),
    (
        "lines",
        "W:We1,g3,h4,e2,f3,h5,e3,f4,h6,f5,g6:Bd3,d6,b5,c6,e8,f9,b6,d8,e9,a6,b7,c8,d9,e0",
        6,
    ),
    ("kings", "B:We3,h6,g7,f7,d6:Bc4,Kb7", 7),
    (
        "captures",
        "W:We1,f2,g3,i5,e2,f3,g4,h5,i6,e4,g6,h7,e5:Bd4,c5,e8,f9,b6,c7,d8,e9,a6,c8,d9,e0",
        7,
    ),
];

fn perft_benches(c: &mut Criterion) {
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut group = c.benchmark_group(format!("bushka_perft_{threads}t"));
        group.sample_size(10);
        for (name, text, depth) in POSITIONS {
            let pos = Position::parse_position(text).unwrap();
            let nodes = perft(&pos, depth);
            group.throughput(Throughput::Elements(nodes));
            group.bench_with_input(BenchmarkId::new(name, depth), &pos, |b, pos| {
                b.iter(|| pool.install(|| perft_parallel(black_box(pos), depth)));
            });
        }
        group.finish();
    }
}

/// Every position met in a fixed set of self-play-like walks from the start.
fn sample_positions() -> Vec<Position> {
    let mut out = Vec::new();
    for seed in 0..50u64 {
        let mut p = Position::start();
        let mut s = seed;
        for _ in 0..120 {
            let mut list = MoveList::new();
            p.generate(&mut list);
            if list.is_empty() {
                break;
            }
            out.push(p);
            s = engine::zobrist::splitmix64(s);
            p = p.play(&list[(s % list.len() as u64) as usize]);
        }
    }
    out
}

fn generation_benches(c: &mut Criterion) {
    let positions = sample_positions();
    let mut group = c.benchmark_group("bushka_movegen");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("generate", |b| {
        let mut list = MoveList::new();
        b.iter(|| {
            let mut n = 0;
            for p in &positions {
                p.generate(&mut list);
                n += black_box(&list).len();
            }
            n
        });
    });
    group.bench_function("generate_and_play", |b| {
        let mut list = MoveList::new();
        b.iter(|| {
            let mut h = 0u64;
            for p in &positions {
                p.generate(&mut list);
                for m in &list {
                    // The whole position goes through black_box: the hash alone
                    // is made from the move and the old board, so keeping
                    // only it would let the compiler drop the board updates.
                    h ^= black_box(p.play(m)).hash();
                }
            }
            h
        });
    });
    group.finish();
}

criterion_group!(benches, perft_benches, generation_benches);
criterion_main!(benches);
