//! Cost of one five-piece material (KKKvKK, 42 million positions), to
//! estimate what the whole five-piece set costs; the longest win and loss of
//! each side, and a sample of positions, are checked against their moves.
//! Ignored by default: it
//! needs (and builds or reuses) the four-piece tables in `BUSHKA_TB_DIR` or
//! else the workspace's `data/tb/`.

use engine::bushka::tb::{build_materials, BuildOptions, Indexer, Material};
use engine::search::Exact;
use engine::{Game, MoveList};
use std::path::PathBuf;

#[test]
#[ignore = "builds a 42-million-position table, minutes (cargo test -p bushka-engine --test engine -- --ignored five_piece_kings_table_cost)"]
fn five_piece_kings_table_cost() {
    let dir = std::env::var_os("BUSHKA_TB_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/tb"),
        PathBuf::from,
    );
    let opts = BuildOptions::new(5, dir);
    let mut list = Material::all_up_to(4);
    list.push(Material::parse("KKKvKK").unwrap());
    let (tb, reports) = build_materials(&opts, &list).expect("build");
    let r = reports.last().unwrap();
    eprintln!(
        "{}: {} positions, {} bytes, {:.1} s, longest {}{}",
        r.material,
        r.positions,
        r.bytes,
        r.seconds,
        r.longest,
        if r.reused { " (reused)" } else { "" }
    );
    assert_eq!(r.material, Material::parse("KKKvKK").unwrap());
    let t = tb.table(r.material).unwrap();
    for side in [engine::Color::White, engine::Color::Black] {
        let s = t.stats(side);
        // Each side to move has half the positions, each counted once.
        assert_eq!(2 * s.positions, r.positions, "{}", side.name());
        assert_eq!(s.wins + s.draws + s.losses, s.positions, "{}", side.name());
        let win = s.longest_win.as_ref().map_or(0, |l| l.plies);
        assert!(s.wins > 0 && win > 0, "{}", side.name());
        eprintln!(
            "{} {} wins {} draws {} losses {} longest win {win} loss {:?}",
            r.material,
            side.name(),
            s.wins,
            s.draws,
            s.losses,
            s.longest_loss.as_ref().map(|l| l.plies)
        );
        // The longest win: its value, and a best move to a loss one ply
        // shorter. The longest loss: every move leads to a win, the longest
        // one ply shorter.
        let example = s.longest_win.as_ref().and_then(|l| l.example);
        let p = example.expect("the longest win's position");
        let (v, best) = tb.best_move(&p).unwrap();
        assert_eq!(v, Exact::Win(win), "{}", p.to_text());
        let after = tb.value(&p.play(&best.unwrap())).unwrap();
        assert_eq!(after, Exact::Loss(win - 1), "{}", p.to_text());
        if let Some(l) = s.longest_loss.as_ref() {
            let p = l.example.expect("the longest loss's position");
            assert_eq!(tb.value(&p).unwrap(), Exact::Loss(l.plies));
            if l.plies > 0 {
                assert_eq!(
                    longest_reply_win(&tb, &p),
                    Some(l.plies - 1),
                    "{}",
                    p.to_text()
                );
            }
        }
    }
    // A sample of positions: each value agrees with its moves' values.
    let ix = Indexer::new(r.material);
    let mut checked = 0;
    for i in (0..ix.size()).step_by(25_013) {
        for side in [engine::Color::White, engine::Color::Black] {
            let Some(p) = ix.position(i, side) else {
                continue;
            };
            let mut list = MoveList::new();
            p.generate(&mut list);
            let kids: Vec<Exact> = list.iter().map(|m| tb.value(&p.play(m)).unwrap()).collect();
            let fastest_loss = kids
                .iter()
                .filter_map(|k| {
                    if let Exact::Loss(d) = k {
                        Some(*d)
                    } else {
                        None
                    }
                })
                .min();
            match tb.value(&p).unwrap() {
                Exact::Win(d) => assert_eq!(fastest_loss, Some(d - 1), "{}", p.to_text()),
                Exact::Loss(0) => assert!(kids.is_empty(), "{}", p.to_text()),
                Exact::Loss(d) => assert_eq!(longest_reply_win(&tb, &p), Some(d - 1)),
                Exact::Draw => {
                    assert_eq!(fastest_loss, None, "{}", p.to_text());
                    assert!(kids.contains(&Exact::Draw), "{}", p.to_text());
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 1_500, "{checked} positions sampled");
}

/// When every move of `p` leads to a win for the opponent, the longest one.
fn longest_reply_win(
    tb: &engine::bushka::tb::Tablebase,
    p: &engine::bushka::Position,
) -> Option<u32> {
    let mut list = MoveList::new();
    p.generate(&mut list);
    let mut longest = None;
    for m in &list {
        match tb.value(&p.play(m)).unwrap() {
            Exact::Win(d) => longest = longest.max(Some(d)),
            _ => return None,
        }
    }
    longest
}
