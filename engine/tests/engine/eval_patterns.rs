//! Pattern evaluation: the fast region indices equal the square-by-square
//! ones, the evaluation equals its plain reference and is symmetric under
//! the colour mirror, zero pattern weights change nothing, and the binary
//! weights file round-trips and refuses every kind of damage by name.

use engine::eval::patterns::file::{region_set, HEADER_LEN, MAGIC};
use engine::eval::patterns::{mirror_table, plain_indices, PatternFileError, PATTERN_SCALE};
use engine::eval::select_eval;
use engine::eval::{
    EvalKind, EvalSource, Evaluator, Features, Material, PatternEval, PatternWeights, Patterns,
    SharedEval, Weights,
};
use engine::{bashnya, bushka, Game, GameKind, MoveList};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Positions of seeded random games from the start, every ply kept.
fn playouts<G: Game>(games: usize, seed: u64) -> Vec<G> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut list = MoveList::new();
    for _ in 0..games {
        let mut p = G::start();
        for _ in 0..300 {
            out.push(p);
            p.generate(&mut list);
            if list.is_empty() {
                break;
            }
            p = p.play(&list[rng.random_range(0..list.len())]);
        }
    }
    out
}

/// Random pattern weights (and the default features) of a game.
fn random_weights(kind: GameKind, seed: u64) -> PatternWeights {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = region_set(kind).len();
    let mut v = || -> Vec<i16> { (0..n).map(|_| rng.random_range(-16_000..=16_000)).collect() };
    let (mg, eg) = (v(), v());
    PatternWeights::from_parts(Weights::default_for(kind), mg, eg).unwrap()
}

fn fast_indices<G: Patterns>(p: &G) -> Vec<usize> {
    let mut v = Vec::new();
    p.for_each_pattern(|i| v.push(i));
    v
}

/// The checks of one game over its random games.
fn check_game<G: Patterns + EvalSource>(positions: &[G])
where
    Material: Evaluator<G>,
{
    let set = G::SET;
    let mirror = mirror_table::<G>();
    assert_eq!(mirror.len(), set.len());
    for (i, &m) in mirror.iter().enumerate() {
        assert_eq!(mirror[m as usize] as usize, i, "mirror is an involution");
    }
    // Every square is in some region.
    let regions = G::regions();
    assert_eq!(regions.len(), set.regions);
    let weights = random_weights(G::KIND, 5);
    let eval = PatternEval::<G>::new(&weights).unwrap();
    let zero = PatternEval::<G>::new(&PatternWeights::zero_patterns(Weights::default_for(
        G::KIND,
    )))
    .unwrap();
    let features = G::select_eval(None, EvalKind::Features).unwrap();
    // How often each (region kind, state) is seen, a kind being its base.
    let mut states = std::collections::BTreeMap::<(u32, u32), usize>::new();
    for p in positions {
        let fast = fast_indices(p);
        assert_eq!(fast, plain_indices(p), "{}", p.to_text());
        for (r, &i) in fast.iter().enumerate() {
            assert_eq!(i / set.configs(), r);
        }
        // The mirror's indices are the mirrored indices, region by region.
        let m = p.mirror();
        let mut mirrored: Vec<usize> = fast.iter().map(|&i| mirror[i] as usize).collect();
        let mut of_mirror = fast_indices(&m);
        mirrored.sort_unstable();
        of_mirror.sort_unstable();
        assert_eq!(mirrored, of_mirror, "{}", p.to_text());
        for (r, squares) in regions.iter().enumerate() {
            for &sq in *squares {
                let state = p.square_state(r, sq);
                assert!(state < G::region_states(r));
                *states.entry((G::region_states(r), state)).or_default() += 1;
            }
        }
        let e = eval.evaluate(p);
        assert_eq!(
            eval.score_white(p),
            weights.score_white(p, &mirror),
            "{}",
            p.to_text()
        );
        assert_eq!(eval.evaluate(&m), e, "mirror evaluation of {}", p.to_text());
        assert_eq!(zero.evaluate(p), features.evaluate(p), "{}", p.to_text());
    }
    // The random games reach every square state.
    for r in 0..set.regions {
        let base = G::region_states(r);
        for state in 0..base {
            assert!(states.contains_key(&(base, state)), "{states:?}");
        }
    }
}

#[test]
fn bushka_fast_indices_and_evaluation_match_the_plain_ones() {
    let positions = playouts::<bushka::Position>(100, 1);
    assert!(positions.len() > 3_000, "{}", positions.len());
    check_game(&positions);
}

#[test]
fn bashnya_fast_indices_and_evaluation_match_the_plain_ones() {
    let positions = playouts::<bashnya::Position>(100, 2);
    assert!(positions.len() > 3_000, "{}", positions.len());
    check_game(&positions);
}

#[test]
fn regions_cover_the_board_and_are_closed_under_turning() {
    fn check<G: Patterns>(board: usize) {
        let mut covered = std::collections::BTreeSet::new();
        for (i, r) in G::regions().iter().enumerate() {
            let configs = (G::region_states(i) as usize).pow(r.len() as u32);
            assert_eq!(configs, G::SET.configs);
            covered.extend(r.iter().copied());
            let turned: std::collections::BTreeSet<u8> =
                r.iter().map(|&s| G::turn_square(s)).collect();
            assert!(G::regions().iter().any(|t| t
                .iter()
                .copied()
                .collect::<std::collections::BTreeSet<u8>>()
                == turned));
        }
        assert_eq!(covered.len(), board);
    }
    check::<bushka::Position>(50);
    check::<bashnya::Position>(32);
    assert_eq!(region_set(GameKind::Bushka).len(), 16 * 6561);
    assert_eq!(region_set(GameKind::Bashnya).len(), (21 + 15) * 6561);
}

/// The embedded file of each game, and whether its patterns are adopted.
fn embedded(kind: GameKind) -> (&'static [u8], bool) {
    match kind {
        GameKind::Bushka => (
            <bushka::Position as Patterns>::DEFAULT_PATTERNS,
            <bushka::Position as Patterns>::PATTERNS_BY_DEFAULT,
        ),
        GameKind::Bashnya => (
            <bashnya::Position as Patterns>::DEFAULT_PATTERNS,
            <bashnya::Position as Patterns>::PATTERNS_BY_DEFAULT,
        ),
    }
}

#[test]
fn embedded_defaults_are_trained_where_adopted_else_the_json_features() {
    for kind in [GameKind::Bushka, GameKind::Bashnya] {
        let (bytes, adopted) = embedded(kind);
        let w = PatternWeights::from_bytes(kind, bytes).unwrap();
        assert_eq!(w.to_bytes(), bytes);
        // A game that has not adopted its patterns keeps its JSON features
        // and zero patterns; an adopted set is a trained one.
        assert_eq!(w.patterns_are_zero(), !adopted, "{}", kind.name());
        if !adopted {
            assert_eq!(w.features(), &Weights::default_for(kind));
        }
    }
    // Both games have adopted their patterns, and the default evaluation
    // plays the embedded set.
    fn plays_embedded<G: Patterns + EvalSource>() {
        let auto = G::default_eval();
        let trained = PatternEval::<G>::new(&PatternWeights::default_for(G::KIND)).unwrap();
        assert!(G::PATTERNS_BY_DEFAULT, "{}", G::KIND.name());
        for p in &playouts::<G>(3, 11) {
            assert_eq!(auto.evaluate(p), trained.evaluate(p), "{}", p.to_text());
        }
    }
    plays_embedded::<bushka::Position>();
    plays_embedded::<bashnya::Position>();
}

/// Writes the embedded file of each game that has not adopted pattern
/// weights from its JSON defaults and zero patterns, and reads it back; run
/// when the region sets or the default features change. (An adopted file
/// is written by `bushka tune --eval patterns`; both games have adopted
/// theirs, so today this writes nothing.)
#[test]
#[ignore = "run with: cargo test -p bushka-engine --test engine write_default_pattern_files -- --ignored"]
fn write_default_pattern_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/weights");
    for kind in [GameKind::Bushka, GameKind::Bashnya] {
        if embedded(kind).1 {
            continue;
        }
        let w = PatternWeights::zero_patterns(Weights::default_for(kind));
        let path = root.join(format!("{}.patterns", kind.name()));
        w.save(&path).unwrap();
        assert_eq!(PatternWeights::load(kind, &path).unwrap(), w);
        eprintln!("wrote {}", path.display());
    }
}

/// Writes a valid checksum over edited bytes, so that a later check speaks.
fn resum(b: &mut [u8]) {
    let h = engine::zobrist::fnv1a(
        engine::zobrist::fnv1a(engine::zobrist::FNV1A_START, &b[..32]),
        &b[HEADER_LEN..],
    );
    b[32..40].copy_from_slice(&h.to_le_bytes());
}

#[test]
fn weights_file_round_trips_and_refuses_damage_by_name() {
    let kind = GameKind::Bashnya;
    let w = random_weights(kind, 9);
    let bytes = w.to_bytes();
    assert_eq!(PatternWeights::from_bytes(kind, &bytes).unwrap(), w);
    let load = |b: &[u8]| PatternWeights::from_bytes(kind, b).unwrap_err();
    // Truncated header, truncated body, trailing bytes.
    assert!(matches!(
        load(&bytes[..20]),
        PatternFileError::ShortHeader(20)
    ));
    assert!(matches!(
        load(&bytes[..bytes.len() - 1]),
        PatternFileError::Length {
            kind: "truncated",
            ..
        }
    ));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        load(&long),
        PatternFileError::Length {
            kind: "has trailing bytes",
            ..
        }
    ));
    // Magic, version, game, region set, counts, reserved.
    let edit = |at: usize, value: u32| {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        b
    };
    let mut bad_magic = bytes.clone();
    bad_magic[0] = b'X';
    assert_eq!(load(&bad_magic), PatternFileError::Magic);
    assert_eq!(load(b"{\"game\""), PatternFileError::Magic);
    assert_eq!(load(&edit(8, 3)), PatternFileError::Version { found: 3 });
    assert_eq!(load(&edit(8, 0)), PatternFileError::Version { found: 0 });
    assert!(matches!(
        load(&edit(12, 0)),
        PatternFileError::WrongGame { .. }
    ));
    assert!(matches!(
        PatternWeights::from_bytes(GameKind::Bushka, &bytes).unwrap_err(),
        PatternFileError::WrongGame { .. }
    ));
    assert!(matches!(
        load(&edit(16, 7)),
        PatternFileError::RegionSet { found: 7, .. }
    ));
    assert!(matches!(
        load(&edit(20, 3)),
        PatternFileError::Count {
            what: "feature",
            ..
        }
    ));
    assert!(matches!(
        load(&edit(24, 3)),
        PatternFileError::Count {
            what: "pattern",
            ..
        }
    ));
    assert_eq!(load(&edit(28, 1)), PatternFileError::Reserved(1));
    // One flipped bit of the body.
    let mut flipped = bytes.clone();
    flipped[HEADER_LEN + 1000] ^= 4;
    assert!(matches!(load(&flipped), PatternFileError::Checksum { .. }));
    // A pattern weight out of range, with a checksum that matches.
    let mut big = bytes.clone();
    let at = bytes.len() - 2;
    big[at..].copy_from_slice(&i16::MAX.to_le_bytes());
    resum(&mut big);
    assert!(matches!(load(&big), PatternFileError::OutOfRange(_)));
    // Every message is one line.
    for e in [load(&flipped), load(&edit(16, 7)), load(&bytes[..3])] {
        assert!(!e.to_string().contains('\n'));
    }
    assert_eq!(&bytes[..8], &MAGIC);
}

/// Version 1 kept pattern weights in whole centi-men: such a file reads as
/// the same weights in sixteenths, and one beyond the range is refused.
#[test]
fn version_one_files_read_in_sixteenths() {
    let kind = GameKind::Bushka;
    let n = region_set(kind).len();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut v = || -> Vec<i16> { (0..n).map(|_| rng.random_range(-1_000..=1_000)).collect() };
    let (mg, eg) = (v(), v());
    let centi =
        PatternWeights::from_parts(Weights::default_for(kind), mg.clone(), eg.clone()).unwrap();
    let mut old = centi.to_bytes();
    old[8..12].copy_from_slice(&1u32.to_le_bytes());
    resum(&mut old);
    let read = PatternWeights::from_bytes(kind, &old).unwrap();
    let sixteenths = |v: &[i16]| v.iter().map(|&x| x * PATTERN_SCALE).collect::<Vec<_>>();
    assert_eq!(read.pattern_mg(), &sixteenths(&mg)[..]);
    assert_eq!(read.pattern_eg(), &sixteenths(&eg)[..]);
    // Written back, it is version 2 and reads the same.
    let new = read.to_bytes();
    assert_eq!(u32::from_le_bytes(new[8..12].try_into().unwrap()), 2);
    assert_eq!(PatternWeights::from_bytes(kind, &new).unwrap(), read);
    // Beyond 1,000 centi-men a version-1 weight has no sixteenths in range.
    let at = old.len() - 2;
    old[at..].copy_from_slice(&1_001i16.to_le_bytes());
    resum(&mut old);
    let e = PatternWeights::from_bytes(kind, &old).unwrap_err();
    assert!(matches!(e, PatternFileError::OutOfRange(_)), "{e}");
    assert!(e.to_string().contains("version-1"), "{e}");
}

/// Pattern weights count in sixteenths of a centi-man: on positions of
/// random games, weights of sixteen sixteenths each score as a centi-man
/// added to the features' sums, and weights of half a centi-man each move
/// the score by half a centi-man a region (rounded toward zero once, after
/// the taper), where whole centi-men would have rounded them away.
#[test]
fn pattern_weights_count_in_sixteenths() {
    type P = bushka::Position;
    let kind = GameKind::Bushka;
    let n = region_set(kind).len();
    let features = Weights::default_for(kind);
    let mirror = mirror_table::<P>();
    let phase_max = i64::from(engine::eval::features::PHASE_MAX);
    let mut moved = 0;
    for pos in playouts::<P>(4, 11) {
        // White's regions whose mirror is not among them: each adds its weight.
        let idx = fast_indices(&pos);
        let own: Vec<usize> = idx
            .iter()
            .copied()
            .filter(|&i| !idx.contains(&(mirror[i] as usize)))
            .collect();
        let k = own.len() as i64;
        let (mg, eg) = features.sums_white(&pos);
        let p = i64::from(pos.phase()).clamp(0, phase_max);
        for each in [16i16, 8] {
            let shift = i64::from(each) * k;
            let mut v = vec![0i16; n];
            for &i in &own {
                v[i] = each;
            }
            let w = PatternWeights::from_parts(features.clone(), v.clone(), v).unwrap();
            let scale = i64::from(PATTERN_SCALE);
            let blended =
                (scale * (mg * p + eg * (phase_max - p)) + shift * phase_max) / (scale * phase_max);
            let max_eval = i64::from(engine::eval::weights::MAX_EVAL);
            let want = blended.clamp(-max_eval, max_eval) as i32;
            assert_eq!(w.score_white(&pos, &mirror), want, "{each} {pos:?}");
            let eval = PatternEval::<P>::new(&w).unwrap();
            assert_eq!(eval.score_white(&pos), want);
            if each == 16 {
                // Whole centi-men: the features' taper of the shifted sums.
                assert_eq!(
                    want,
                    engine::eval::weights::taper(mg + k, eg + k, pos.phase())
                );
            } else if k >= 2 && want != features.score_white(&pos) {
                moved += 1;
            }
        }
    }
    assert!(moved > 10, "half-centi-man weights moved {moved} scores");
}

#[test]
fn eval_choice_reads_json_and_binary_files() {
    type P = bushka::Position;
    let dir = tempfile::tempdir().unwrap();
    let w = random_weights(GameKind::Bushka, 3);
    let bin = dir.path().join("w.patterns");
    w.save(&bin).unwrap();
    let json = dir.path().join("w.json");
    Weights::default_for(GameKind::Bushka).save(&json).unwrap();
    let positions = playouts::<P>(5, 4);
    let by = |weights: Option<&std::path::Path>, kind| {
        select_eval::<P>(weights.map(|p| p.to_str().unwrap()), kind).unwrap()
    };
    let patterns = PatternEval::<P>::new(&w).unwrap();
    let features = P::compile(&Weights::default_for(GameKind::Bushka));
    let embedded = PatternWeights::default_for(GameKind::Bushka);
    let mut json_features = embedded.clone();
    json_features.set_features(Weights::default_for(GameKind::Bushka));
    let embedded = PatternEval::<P>::new(&embedded).unwrap();
    let json_features = PatternEval::<P>::new(&json_features).unwrap();
    // (choices, the evaluation they must all equal)
    let cases: [(Vec<SharedEval<P>>, &dyn Evaluator<P>); 4] = [
        (
            vec![
                by(Some(&bin), EvalKind::Auto),
                by(Some(&bin), EvalKind::Patterns),
            ],
            &patterns,
        ),
        (
            vec![
                by(Some(&bin), EvalKind::Features),
                by(Some(&json), EvalKind::Auto),
                by(None, EvalKind::Features),
            ],
            &*features,
        ),
        // Bushka has adopted its patterns: they are the default.
        (
            vec![by(None, EvalKind::Auto), by(None, EvalKind::Patterns)],
            &embedded,
        ),
        // JSON features with the embedded patterns.
        (vec![by(Some(&json), EvalKind::Patterns)], &json_features),
    ];
    for p in &positions {
        for (choices, expected) in &cases {
            let e = expected.evaluate(p);
            for x in choices {
                assert_eq!(x.evaluate(p), e, "{}", p.to_text());
            }
        }
    }
    // A damaged binary file and a file of the other game are refused.
    let mut bytes = std::fs::read(&bin).unwrap();
    bytes.truncate(100);
    std::fs::write(&bin, &bytes).unwrap();
    let e = select_eval::<P>(bin.to_str(), EvalKind::Auto)
        .err()
        .unwrap();
    assert!(e.contains("truncated"), "{e}");
    let other = dir.path().join("other.patterns");
    random_weights(GameKind::Bashnya, 1).save(&other).unwrap();
    let e = select_eval::<P>(other.to_str(), EvalKind::Auto)
        .err()
        .unwrap();
    assert!(e.contains("bashnya"), "{e}");
    assert!(select_eval::<P>(Some("material"), EvalKind::Patterns).is_err());
}

/// What `eval_id` says each `--weights`/`--eval` choice evaluates with: the
/// embedded weights by kind, a file by the hash of its bytes, and a JSON
/// file under `patterns` with the embedded pattern weights it plays with.
#[test]
fn eval_ids_name_what_a_choice_evaluates_with() {
    use engine::eval::{default_eval_id, eval_id, EvalKind};
    type P = bushka::Position;
    let json = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/weights/bushka.json");
    assert_eq!(
        eval_id::<P>(None, EvalKind::Auto).unwrap(),
        default_eval_id::<P>()
    );
    assert_eq!(
        eval_id::<P>(Some("material"), EvalKind::Auto).unwrap(),
        "material"
    );
    let features = eval_id::<P>(None, EvalKind::Features).unwrap();
    let patterns = eval_id::<P>(None, EvalKind::Patterns).unwrap();
    assert!(features.starts_with("features ") && patterns.starts_with("patterns "));
    let file = eval_id::<P>(Some(json), EvalKind::Auto).unwrap();
    assert!(file.starts_with("auto file "), "{file}");
    let with = eval_id::<P>(Some(json), EvalKind::Patterns).unwrap();
    assert_eq!(
        with,
        format!(
            "patterns file {} with {patterns}",
            &file["auto file ".len()..]
        )
    );
    let e = eval_id::<P>(Some("/nonexistent/w.json"), EvalKind::Auto).unwrap_err();
    assert!(e.contains("/nonexistent/w.json"), "{e}");
}
