//! Tuning with patterns: the model's evaluation is the engine's pattern
//! evaluation, the gradient is the model's derivative, and a run lowers the
//! loss and writes weights the engine reads.

use engine::eval::patterns::mirror_table;
use engine::eval::{PatternWeights, Patterns, Weights};
use engine::{bashnya, bushka, Game, GameKind, MoveList};
use std::io::Cursor;
use tuner::model::{eval, loss_and_gradient};
use tuner::train::{params_to_pattern_weights, pattern_weights_to_params};
use tuner::{Loader, TuneConfig};

/// Data lines of seeded random games: every position, the result of a
/// "game" made up from a hash so both results occur.
fn data<G: Game>(games: u64) -> String {
    let mut out = String::new();
    let mut list = MoveList::new();
    for g in 0..games {
        let mut p = G::start();
        let result = ["1", "0", "0.5"][(engine::zobrist::splitmix64(g) % 3) as usize];
        for ply in 0..80u64 {
            out.push_str(&format!("{g}\t{}\t{ply}\t-\t{result}\n", p.to_text()));
            p.generate(&mut list);
            if list.is_empty() {
                break;
            }
            let pick = engine::zobrist::splitmix64(g * 1000 + ply) as usize % list.len();
            p = p.play(&list[pick]);
        }
    }
    out
}

/// Random small pattern weights of a game.
fn random(kind: GameKind) -> PatternWeights {
    let n = engine::eval::patterns::file::region_set(kind).len();
    let v = |seed: u64| -> Vec<i16> {
        (0..n)
            .map(|i| (engine::zobrist::splitmix64(seed ^ i as u64) % 201) as i16 - 100)
            .collect()
    };
    PatternWeights::from_parts(Weights::default_for(kind), v(1), v(2)).unwrap()
}

fn model_is_the_engine<G: Patterns>() {
    let text = data::<G>(30);
    let mut loader = Loader::<G>::new().with_patterns();
    loader
        .add_reader("mem", Cursor::new(text.into_bytes()))
        .unwrap();
    let loaded = loader.finish(0.0).unwrap();
    let d = &loaded.train;
    assert_eq!(d.stride(), G::SET.regions);
    assert_eq!(d.pattern_count(), G::SET.len());
    let w = random(G::KIND);
    let params = pattern_weights_to_params(&w);
    assert_eq!(params.len(), d.param_count());
    assert_eq!(
        params_to_pattern_weights(G::KIND, d.feature_count(), &params).unwrap(),
        w
    );
    let mirror = mirror_table::<G>();
    // The engine's score of each position of the data, keyed by its
    // pattern indices (computed square by square), which the loader keeps
    // beside each position it stores.
    let mut scores: std::collections::HashMap<Vec<u32>, Vec<i32>> = Default::default();
    let mut lines = 0;
    for line in data::<G>(30).lines() {
        let p = G::parse_position(line.split('\t').nth(1).unwrap()).unwrap();
        let key: Vec<u32> = engine::eval::patterns::plain_indices(&p)
            .into_iter()
            .map(|i| u32::try_from(i).unwrap())
            .collect();
        scores
            .entry(key)
            .or_default()
            .push(w.score_white(&p, &mirror));
        lines += 1;
    }
    // Each stored position's model value is the engine's score of that
    // very position (within 1: the engine's taper rounds toward zero).
    assert!(d.len() > 100 && d.len() <= lines, "{}", d.len());
    for i in 0..d.len() {
        let m = eval(d, &params, i).round() as i32;
        let own = scores
            .get(d.patterns(i))
            .unwrap_or_else(|| panic!("position {i}: its patterns are no data position's"));
        assert!(
            own.iter().any(|s| (s - m).abs() <= 1),
            "position {i}: model value {m}, the engine's score of its position {own:?}"
        );
    }
    // The gradient matches finite differences on pattern parameters.
    let mut grad = vec![0.0; params.len()];
    let k = 1.0;
    let base = loss_and_gradient(d, &params, k, 0..d.len(), &mut grad);
    let touched: Vec<usize> = (2 * d.feature_count()..params.len())
        .filter(|&j| grad[j] != 0.0)
        .take(5)
        .collect();
    assert!(!touched.is_empty());
    for j in touched {
        let mut p = params.clone();
        p[j] += 1e-3;
        let mut g2 = vec![0.0; params.len()];
        let up = loss_and_gradient(d, &p, k, 0..d.len(), &mut g2);
        let numeric = (up - base) / 1e-3;
        assert!(
            (numeric - grad[j]).abs() <= 1e-3 * grad[j].abs().max(1e-6),
            "parameter {j}: {numeric} v {}",
            grad[j]
        );
    }
}

#[test]
fn bushka_model_and_gradient_are_the_engine_pattern_evaluation() {
    model_is_the_engine::<bushka::Position>();
}

#[test]
fn bashnya_model_and_gradient_are_the_engine_pattern_evaluation() {
    model_is_the_engine::<bashnya::Position>();
}

#[test]
fn pattern_tuning_lowers_the_loss_and_writes_a_file_the_engine_reads() {
    type P = bashnya::Position;
    let text = data::<P>(60);
    let mut loader = Loader::<P>::new().with_patterns();
    loader
        .add_reader("mem", Cursor::new(text.into_bytes()))
        .unwrap();
    let mut loaded = loader.finish(0.0).unwrap();
    let init = PatternWeights::default_for(GameKind::Bashnya);
    let cfg = TuneConfig {
        epochs: 5,
        lr: 5.0,
        regularize: 0.0,
        k: Some(1.0),
        ..TuneConfig::default()
    };
    let o = tuner::tune_patterns(&mut loaded, &init, &cfg).unwrap();
    let first = o.curve.first().unwrap().train;
    let last = o.curve.last().unwrap().train;
    assert!(last < first, "{first} -> {last}");
    let w = o.patterns.unwrap();
    assert!(!w.patterns_are_zero());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.patterns");
    w.save(&path).unwrap();
    assert_eq!(PatternWeights::load(GameKind::Bashnya, &path).unwrap(), w);
    // Feature-only tuning refuses data with patterns.
    assert!(tuner::tune(&mut loaded, init.features(), &cfg).is_err());
}

/// A fit broken off and resumed from its checkpoint ends exactly where the
/// same fit run straight through does: the same weights, the same kept
/// epoch and the same loss curve, bit for bit; another fit's checkpoint is
/// refused by its first difference.
#[test]
fn a_resumed_pattern_fit_equals_one_run_straight_through() {
    type P = bushka::Position;
    let load = || {
        let mut loader = Loader::<P>::new().with_patterns();
        loader
            .add_reader("mem", Cursor::new(data::<P>(40).into_bytes()))
            .unwrap();
        loader.finish(0.25).unwrap()
    };
    let init = PatternWeights::default_for(GameKind::Bushka);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.checkpoint");
    let cfg = |epochs, checkpoint: Option<&std::path::Path>, resume| TuneConfig {
        epochs,
        lr: 4.0,
        batch: 97,
        regularize: 50.0,
        k: Some(1.0),
        checkpoint: checkpoint.map(std::path::Path::to_path_buf),
        resume,
        ..TuneConfig::default()
    };
    let straight = tuner::tune_patterns(&mut load(), &init, &cfg(6, None, false)).unwrap();
    let first = tuner::tune_patterns(&mut load(), &init, &cfg(3, Some(&path), false)).unwrap();
    assert_eq!(first.resumed, 0);
    let saved = tuner::Checkpoint::read(&path).unwrap().unwrap();
    assert_eq!((saved.epoch, saved.curve.len()), (3, 4));
    let resumed = tuner::tune_patterns(&mut load(), &init, &cfg(6, Some(&path), true)).unwrap();
    assert_eq!(resumed.resumed, 3);
    assert_eq!(resumed.patterns, straight.patterns);
    assert_eq!(resumed.best_epoch, straight.best_epoch);
    let bits = |o: &tuner::TuneOutcome| -> Vec<(u64, u64)> {
        o.curve
            .iter()
            .map(|e| (e.train.to_bits(), e.validation.to_bits()))
            .collect()
    };
    assert_eq!(bits(&resumed), bits(&straight));
    // At its end already: nothing to run, the same result.
    let again = tuner::tune_patterns(&mut load(), &init, &cfg(6, Some(&path), true)).unwrap();
    assert_eq!((again.resumed, again.curve.len()), (6, 7));
    assert_eq!(again.patterns, straight.patterns);
    // Fewer epochs than it holds, or other settings: refused, by name.
    let e = tuner::tune_patterns(&mut load(), &init, &cfg(5, Some(&path), true)).unwrap_err();
    assert!(
        e.to_string().contains("is at epoch 6, past --epochs 5"),
        "{e}"
    );
    let mut other = cfg(8, Some(&path), true);
    other.lr = 2.0;
    let e = tuner::tune_patterns(&mut load(), &init, &other).unwrap_err();
    assert!(e.to_string().contains("lr 4.0 there, 2.0 here"), "{e}");
    // Other initial weights, even in one pattern weight that may be
    // exercised by no position (so that the initial losses are the same):
    // refused, by name, not resumed with the old starting point.
    let mut mg = init.pattern_mg().to_vec();
    *mg.last_mut().unwrap() += 1;
    let moved = PatternWeights::from_parts(init.features().clone(), mg, init.pattern_eg().to_vec())
        .unwrap();
    let e = tuner::tune_patterns(&mut load(), &moved, &cfg(8, Some(&path), true)).unwrap_err();
    assert!(
        e.to_string()
            .contains("is of another fit: initial weights "),
        "{e}"
    );
}
