//! Bashnya rules-core benchmarks: perft with bulk counting at the leaves (one
//! thread) from the start and from two positions with tall columns and kings,
//! and move generation per position.
//!
//! Run with `cargo bench --bench bashnya`; the perft throughput is reported in
//! leaf nodes per second (criterion's "elem/s").

// `criterion_group!` defines a public function without documentation.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use engine::bashnya::Position;
use engine::perft::perft;
use engine::{Game, MoveList};
use std::hint::black_box;

/// Named perft positions and depths: the start, and two positions with tall
/// columns under a black king (`tall_black_king_a1` is a line of
/// `data/perft/bashnya.txt`; `tall_black_king_a7` is not).
const PERFT: [(&str, &str, u32); 3] = [
    (
        "start",
        "W:a1=w,c1=w,e1=w,g1=w,b2=w,d2=w,f2=w,h2=w,a3=w,c3=w,e3=w,g3=w,b6=b,d6=b,f6=b,h6=b,a7=b,c7=b,e7=b,g7=b,b8=b,d8=b,f8=b,h8=b",
        9,
    ),
    (
        "tall_black_king_a7",
        "W:e1=w,b2=www,h2=w,c3=wb,g3=wbb,b4=wbbb,a5=b,a7=Bwwww,e7=b,g7=bb,b8=b",
        8,
    ),
    (
        "tall_black_king_a1",
        "B:a1=Bwwww,e1=w,f2=w,h2=w,c3=wbb,g3=w,b4=w,h4=w,c5=b,g5=wb,f6=b,c7=b,e7=b,g7=b,d8=b,f8=b,h8=b",
        9,
    ),
];

fn position(text: &str) -> Position {
    Position::parse_position(text).expect("benchmark position")
}

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("bashnya_perft");
    group.sample_size(10);
    for (name, text, depth) in PERFT {
        let pos = position(text);
        group.throughput(Throughput::Elements(perft(&pos, depth)));
        group.bench_function(format!("{name}_d{depth}"), |b| {
            b.iter(|| perft(black_box(&pos), depth));
        });
    }
    group.finish();
}

/// Every position of the first plies of the perft positions' trees: a mix of
/// openings and tall-column middle games.
fn sample_positions() -> Vec<Position> {
    fn walk(pos: &Position, depth: u32, out: &mut Vec<Position>) {
        out.push(*pos);
        if depth > 0 {
            let mut list = MoveList::new();
            pos.generate(&mut list);
            for m in &list {
                walk(&pos.play(m), depth - 1, out);
            }
        }
    }
    let mut out = Vec::new();
    for (_, text, _) in PERFT {
        walk(&position(text), 4, &mut out);
    }
    out
}

fn bench_movegen(c: &mut Criterion) {
    let positions = sample_positions();
    let mut group = c.benchmark_group("bashnya_movegen");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("generate", |b| {
        let mut list = MoveList::new();
        b.iter(|| {
            let mut n = 0;
            for pos in &positions {
                black_box(pos).generate(&mut list);
                n += black_box(&list).len();
            }
            n
        });
    });
    group.bench_function("count_moves", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| black_box(p).count_moves())
                .sum::<u64>()
        });
    });
    group.bench_function("generate_and_play", |b| {
        let mut list = MoveList::new();
        b.iter(|| {
            let mut h = 0u64;
            for pos in &positions {
                pos.generate(&mut list);
                for m in &list {
                    // The whole position goes through black_box, not just its
                    // hash, so that no board update can be dropped.
                    h ^= black_box(black_box(pos).play(m)).hash();
                }
            }
            h
        });
    });
    group.finish();
}

criterion_group!(benches, bench_perft, bench_movegen);
criterion_main!(benches);
