//! Three kings against one with the four-piece tables: the engine, probing
//! them in its search, converts every won position within the table's
//! distance against a defender that also probes them. Ignored by default: it
//! builds (or reuses) every table of up to four pieces, in `BUSHKA_TB_DIR`
//! or else the workspace's `data/tb/`.

use engine::bushka::tb::{BuildOptions, Indexer, Material};
use engine::bushka::Position;
use engine::eval::Material as MaterialEval;
use engine::search::{Engine, Exact, Limits, Oracle, SearchInput};
use engine::tt::HashSize;
use engine::{Color, Game, MoveList};
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use std::sync::Arc;

/// The folder of the four-piece tables.
fn tb_dir() -> PathBuf {
    std::env::var_os("BUSHKA_TB_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/tb"),
        PathBuf::from,
    )
}

#[test]
#[ignore = "builds the four-piece tables, about a minute the first time (cargo test -p bushka-engine --test engine -- --ignored engine_converts_three_kings_v_king_within_the_table_distance)"]
fn engine_converts_three_kings_v_king_within_the_table_distance() {
    let opts = BuildOptions::new(4, tb_dir());
    let (tb, _) = engine::bushka::tb::build(&opts).expect("build the four-piece tables");
    let tb = Arc::new(tb);
    let oracle: Arc<dyn Oracle<Position>> = tb.clone();
    let mat = Material::parse("KKKvK").unwrap();
    let ix = Indexer::new(mat);
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0x0034_B196);
    let mut attacker = Engine::<Position>::new(HashSize::fixed(16), 1);
    let mut defender = Engine::<Position>::new(HashSize::fixed(16), 1);
    attacker.set_oracle(Some(oracle.clone()));
    defender.set_oracle(Some(oracle));
    let eval = MaterialEval::default();
    let (mut games, mut longest) = (0, 0);
    while games < 200 {
        let side = if rng.random::<bool>() {
            Color::White
        } else {
            Color::Black
        };
        let start = ix.position(rng.random_range(0..ix.size()), side).unwrap();
        // The distance for the three kings' side (White) to end the game.
        let ((Color::White, Exact::Win(distance)) | (Color::Black, Exact::Loss(distance))) =
            (side, tb.value(&start).unwrap())
        else {
            continue;
        };
        games += 1;
        longest = longest.max(distance);
        attacker.clear();
        defender.clear();
        let mut pos = start;
        let mut history: Vec<u64> = Vec::new();
        let mut plies = 0u32;
        let mut list = MoveList::new();
        loop {
            pos.generate(&mut list);
            if list.is_empty() {
                break;
            }
            assert!(
                plies < distance,
                "{}: not over after {plies} plies (table: {distance})",
                start.to_text()
            );
            let engine = if pos.side() == Color::White {
                &mut attacker
            } else {
                &mut defender
            };
            let input = SearchInput {
                position: pos,
                history: history.clone(),
                limits: Limits::depth(2),
            };
            let r = engine.search(&eval, &input, |_| {});
            let mv = r.best.expect("a legal move");
            let after = pos.play(&mv);
            if pos.is_irreversible(&mv, &after) {
                history.clear();
            } else {
                history.push(pos.hash());
            }
            pos = after;
            plies += 1;
        }
        assert_eq!(
            pos.side(),
            Color::Black,
            "{}: the defender won",
            start.to_text()
        );
        assert!(
            plies <= distance,
            "{}: {plies} > {distance}",
            start.to_text()
        );
    }
    eprintln!("200 won three-kings-v-king positions converted; longest table distance {longest}");
}
