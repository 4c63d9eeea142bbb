//! Cost of one five-piece material (KKKvKK, 42 million positions), to
//! estimate what the whole five-piece set costs, with its counts checked. Ignored by default: it
//! needs (and builds or reuses) the four-piece tables in `BUSHKA_TB_DIR` or
//! else the workspace's `data/tb/`.

use engine::bushka::tb::{build_materials, BuildOptions, Material};
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
    }
}
