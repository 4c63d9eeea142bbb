//! Tuner tests: gradient, recovery of known weights, K fitting, bad data
//! lines, quiet filtering and de-duplication, resolving capture positions,
//! weights-file round trip.

use engine::bushka::Position;
use engine::eval::{Features, Weights};
use engine::{Game, GameKind, MoveList};
use std::io::Cursor;
use tuner::kfit::{fit_k, minimise_k, result_loss};
use tuner::model::{loss_all, loss_and_gradient};
use tuner::synthetic::{synthetic, SyntheticSpec};
use tuner::train::{params_to_weights, weights_to_params};
use tuner::{Dataset, Loader, Sample, Trainer, TuneConfig, TuneError};

/// Deterministic pseudo-random parameters in `-range..=range`.
fn random_params(n: usize, range: i64, seed: u64) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let r = engine::zobrist::splitmix64(seed ^ (i as u64 + 1));
            (r % (2 * range as u64 + 1)) as i64 as f64 - range as f64
        })
        .collect()
}

fn spec(positions: usize) -> SyntheticSpec {
    SyntheticSpec {
        positions,
        features: 12,
        entries: 6,
        max_value: 3,
        seed: 11,
    }
}

#[test]
fn gradient_matches_finite_differences() {
    let truth = random_params(24, 40, 1);
    let data = synthetic(&spec(2000), &truth, 1.3);
    // Away from the optimum, so the gradient is not tiny.
    let w = random_params(24, 30, 2);
    let mut grad = vec![0.0; 24];
    let loss = loss_and_gradient(&data, &w, 1.3, 0..data.len(), &mut grad);
    assert!((loss - loss_all(&data, &w, 1.3)).abs() < 1e-12);
    let h = 1e-4;
    for j in 0..24 {
        let (mut up, mut down) = (w.clone(), w.clone());
        up[j] += h;
        down[j] -= h;
        let fd = (loss_all(&data, &up, 1.3) - loss_all(&data, &down, 1.3)) / (2.0 * h);
        let tol = 1e-6 + 1e-4 * fd.abs();
        assert!(
            (fd - grad[j]).abs() < tol,
            "parameter {j}: analytic {} finite difference {fd}",
            grad[j]
        );
    }
}

#[test]
fn recovers_known_weights() {
    let truth = random_params(24, 50, 3);
    let data = synthetic(&spec(20_000), &truth, 1.0);
    let mut trainer = Trainer::new(&data, vec![0.0; 24], 1.0, 2.0, 1024);
    let first = trainer.epoch();
    let mut last = first;
    for _ in 0..300 {
        last = trainer.epoch();
    }
    assert!(last < first / 100.0, "loss {first} -> {last}");
    for (j, (&got, &want)) in trainer.params().iter().zip(&truth).enumerate() {
        assert!(
            (got - want).abs() < 1.0,
            "parameter {j}: recovered {got}, true {want}"
        );
    }
}

#[test]
fn unexercised_weights_keep_their_values() {
    let mut data = Dataset::new(12);
    // Only features 0 and 1 appear, and only in the middle game.
    for i in 0..200 {
        data.push(&Sample {
            patterns: Vec::new(),
            entries: vec![(0, (i % 5) as i16 - 2), (1, (i % 3) as i16 - 1)],
            mg_share: 1.0,
            result: (i % 2) as f32,
            score: None,
        });
    }
    let init = random_params(24, 20, 5);
    let mut trainer = Trainer::new(&data, init.clone(), 1.0, 1.0, 0);
    for _ in 0..20 {
        trainer.epoch();
    }
    let p = trainer.params();
    // Every parameter but the two features' stays, their end-game twins 12
    // and 13 too: a middle-game share of 1 gives them no gradient, and Adam
    // takes no step without one.
    for j in 2..24 {
        assert_eq!(p[j], init[j], "parameter {j} moved");
    }
    assert_ne!(p[0], init[0]);
    assert_ne!(p[1], init[1]);
}

/// A minimum inside the range is found away from its ends; a loss that
/// only falls toward an end gives that end, which is flagged.
#[test]
fn a_k_at_the_end_of_the_range_is_flagged() {
    let inside = minimise_k(|k| (k.ln() - 1.0).powi(2));
    assert!((inside - std::f64::consts::E).abs() < 1e-3, "{inside}");
    assert!(!tuner::kfit::at_a_bound(inside));
    let low = minimise_k(|k| k);
    assert!(tuner::kfit::at_a_bound(low), "{low}");
    let high = minimise_k(|k| -k);
    assert!(tuner::kfit::at_a_bound(high), "{high}");
}

#[test]
fn k_fitting_finds_the_minimum() {
    // A known function of k with its minimum at 2.5.
    let f = |k: f64| (k.ln() - 2.5f64.ln()).powi(2) + 0.1;
    assert!((minimise_k(f) - 2.5).abs() < 1e-4);

    // Results drawn exactly from sigmoid(1.7 * eval / 100): the fit finds 1.7,
    // and no point of a dense scan does better.
    let truth = random_params(24, 60, 6);
    let probe = synthetic(&spec(5000), &truth, 1.7);
    let mut data = Dataset::new(12);
    for i in 0..probe.len() {
        let (idx, val) = probe.entries(i);
        data.push(&Sample {
            patterns: Vec::new(),
            entries: idx.iter().copied().zip(val.iter().copied()).collect(),
            mg_share: probe.mg_share(i),
            result: probe.target(i),
            score: None,
        });
    }
    let k = fit_k(&data, &truth);
    assert!((k - 1.7).abs() < 1e-3, "fitted k {k}");
    let evals: Vec<f64> = (0..data.len())
        .map(|i| tuner::model::eval(&data, &truth, i))
        .collect();
    let results: Vec<f64> = (0..data.len()).map(|i| data.result(i) as f64).collect();
    let at_k = result_loss(&evals, &results, k);
    for j in 1..=400 {
        let other = j as f64 * 0.01;
        assert!(result_loss(&evals, &results, other) >= at_k - 1e-12);
    }
}

/// The start position's text and one reached position where a capture is due.
fn quiet_and_capture() -> (String, String) {
    let start = Position::start();
    let mut pos = start;
    let mut list = MoveList::new();
    for step in 0..200u64 {
        if pos.must_capture() {
            return (start.to_text(), pos.to_text());
        }
        pos.generate(&mut list);
        if list.is_empty() {
            break;
        }
        let pick = engine::zobrist::splitmix64(step) as usize % list.len();
        pos = pos.play(&list[pick]);
    }
    panic!("no capture found in the test game");
}

#[test]
fn bad_lines_are_reported_with_their_line_numbers() {
    let (quiet, _) = quiet_and_capture();
    let text = format!(
        "0\t{quiet}\t0\t12\t0.5\n\
         # a comment\n\
         0\t{quiet}\t0\t12\n\
         1\tnot a position\t3\t-\t1\n\
         \n\
         2\t{quiet}\tx\t5\t1\n\
         3\t{quiet}\t4\t5\t2\n\
         4\t{quiet}\t4\tbig\t0\n"
    );
    let mut loader = Loader::<Position>::new();
    loader
        .add_reader("mem", Cursor::new(text.into_bytes()))
        .unwrap();
    let loaded = loader.finish(0.0).unwrap();
    let r = &loaded.report;
    assert_eq!(r.lines, 6);
    assert_eq!(r.bad, 5);
    let lines: Vec<u64> = r.bad_examples.iter().map(|b| b.line).collect();
    assert_eq!(lines, vec![3, 4, 6, 7, 8]);
    assert!(r.bad_examples[0].reason.contains("5 tab-separated"));
    assert!(r.bad_examples[1].reason.starts_with("position"));
    assert!(r.bad_examples[2].reason.contains("ply"));
    assert!(r.bad_examples[3].reason.contains("result"));
    assert!(r.bad_examples[4].reason.contains("score"));
    assert_eq!(
        r.bad_examples[0].to_string().split(':').next(),
        Some("mem line 3")
    );
    assert_eq!(loaded.train.len(), 1);
}

#[test]
fn garbage_never_panics() {
    let mut bytes = Vec::new();
    for i in 0..5000u64 {
        let r = engine::zobrist::splitmix64(i);
        bytes.push(match r % 7 {
            0 => b'\t',
            1 => b'\n',
            2 => 0xff,
            _ => (r >> 8) as u8,
        });
    }
    let mut loader = Loader::<Position>::new();
    loader.add_reader("junk", Cursor::new(bytes)).unwrap();
    match loader.finish(0.1) {
        Err(TuneError::NoData(msg)) => assert!(msg.contains("bad")),
        other => panic!("expected NoData, got {other:?}"),
    }
    assert!(matches!(
        Loader::<Position>::new().finish(1.5),
        Err(TuneError::BadOption(_))
    ));
}

/// A line longer than the loader reads (no data line is) is one bad line,
/// named as such; the lines after it are read.
#[test]
fn an_endless_line_is_one_bad_line() {
    let (quiet, _) = quiet_and_capture();
    let mut text = "x".repeat(3 << 20);
    text.push_str(&format!("\n0\t{quiet}\t0\t40\t1\n"));
    let mut loader = Loader::<Position>::new();
    loader.add_reader("mem", Cursor::new(text)).unwrap();
    let loaded = loader.finish(0.0).unwrap();
    let r = &loaded.report;
    assert_eq!((r.lines, r.bad), (2, 1));
    assert_eq!(r.bad_examples[0].line, 1);
    assert!(
        r.bad_examples[0].reason.contains("longer than"),
        "{:?}",
        r.bad_examples
    );
    assert_eq!(loaded.train.len(), 1);
}

#[test]
fn keeps_quiet_positions_and_averages_duplicates() {
    let (quiet, capture) = quiet_and_capture();
    let black_to_move = Position::start()
        .play(&{
            let mut l = MoveList::new();
            Position::start().generate(&mut l);
            l[0]
        })
        .to_text();
    let text = format!(
        "0\t{quiet}\t0\t40\t1\n\
         1\t{quiet}\t0\t-\t0\n\
         1\t{capture}\t9\t10\t0\n\
         2\t{black_to_move}\t1\t30\t0\n"
    );
    let mut loader = Loader::<Position>::new();
    loader.add_reader("mem", Cursor::new(text)).unwrap();
    let loaded = loader.finish(0.0).unwrap();
    let r = &loaded.report;
    assert_eq!((r.lines, r.bad, r.non_quiet, r.duplicates), (4, 0, 1, 1));
    assert_eq!(loaded.train.len(), 2);
    let mut seen = Vec::new();
    for i in 0..loaded.train.len() {
        seen.push((loaded.train.result(i), loaded.train.score(i)));
    }
    seen.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Black's score of 30 is White's -30; the duplicates average 1 and 0.
    assert_eq!(seen, vec![(0.0, Some(-30.0)), (0.5, Some(40.0))]);
    let fv = Position::start().feature_vec();
    assert!(loaded.train.entry_count() >= fv.len());
}

#[test]
fn a_resolving_loader_fits_the_quiet_end_of_a_capture_line() {
    let (quiet, capture) = quiet_and_capture();
    let pos = Position::parse_position(&capture).unwrap();
    let eval = <Position as engine::eval::EvalSource>::default_eval();
    let end = tuner::resolve::quiet_end(&pos, eval.as_ref()).expect("resolves");
    assert!(!end.must_capture());
    // The capture line's mover scored it 10; White's view of that score
    // stays with the resolved position, whoever is to move there.
    let mover_white = pos.side_to_move() == engine::Color::White;
    let text = format!(
        "0\t{quiet}\t0\t40\t1\n\
         1\t{capture}\t9\t10\t0\n"
    );
    let mut loader = Loader::<Position>::resolving(eval.clone());
    loader.add_reader("mem", Cursor::new(text.clone())).unwrap();
    let loaded = loader.finish(0.0).unwrap();
    let r = &loaded.report;
    assert_eq!(
        (r.lines, r.non_quiet, r.resolved, r.duplicates),
        (2, 0, 1, 0)
    );
    assert_eq!(loaded.train.len(), 2);
    let fv = end.feature_vec();
    let at = (0..2)
        .find(|&i| loaded.train.result(i) == 0.0)
        .expect("the capture line's sample");
    // Both as sums by feature (the dataset merges an index's entries).
    let summed = |pairs: &mut dyn Iterator<Item = (u16, i16)>| {
        let mut m = std::collections::BTreeMap::<u16, i32>::new();
        for (i, v) in pairs {
            *m.entry(i).or_default() += v as i32;
        }
        m.retain(|_, v| *v != 0);
        m
    };
    let (idx, val) = loaded.train.entries(at);
    let got = summed(&mut idx.iter().copied().zip(val.iter().copied()));
    let want = summed(&mut fv.entries().iter().copied());
    assert!(!want.is_empty());
    assert_eq!(got, want);
    let white_score = if mover_white { 10.0 } else { -10.0 };
    assert_eq!(loaded.train.score(at), Some(white_score));
    // Without resolution the same line is skipped.
    let mut plain = Loader::<Position>::new();
    plain.add_reader("mem", Cursor::new(text)).unwrap();
    let plain = plain.finish(0.0).unwrap();
    assert_eq!((plain.report.non_quiet, plain.report.resolved), (1, 0));
    assert_eq!(plain.train.len(), 1);
}

#[test]
fn validation_split_is_deterministic_and_disjoint() {
    let start = Position::start();
    let mut lines = String::new();
    let mut pos = start;
    let mut list = MoveList::new();
    let mut quiet = 0;
    for ply in 0..400u64 {
        pos.generate(&mut list);
        if list.is_empty() {
            pos = start;
            continue;
        }
        if !pos.must_capture() {
            quiet += 1;
        }
        lines.push_str(&format!("{ply}\t{}\t{ply}\t-\t0.5\n", pos.to_text()));
        let pick = engine::zobrist::splitmix64(ply) as usize % list.len();
        pos = pos.play(&list[pick]);
    }
    let load = || {
        let mut l = Loader::<Position>::new();
        l.add_reader("mem", Cursor::new(lines.clone())).unwrap();
        l.finish(0.3).unwrap()
    };
    let (a, b) = (load(), load());
    assert_eq!(a.train.len(), b.train.len());
    assert_eq!(a.validation.len(), b.validation.len());
    assert!(a.validation.len() > 10 && a.train.len() > a.validation.len());
    assert!(a.train.len() + a.validation.len() <= quiet);
    for i in 0..a.train.len() {
        assert_eq!(a.train.entries(i), b.train.entries(i));
    }
    for i in 0..a.validation.len() {
        assert_eq!(a.validation.entries(i), b.validation.entries(i));
    }
    assert_disjoint(&a.train, &a.validation);
}

/// No position of `validation` is also in `train`.
fn assert_disjoint(train: &Dataset, validation: &Dataset) {
    let key = |d: &Dataset, i: usize| {
        let (idx, val) = d.entries(i);
        (idx.to_vec(), val.to_vec(), d.mg_share(i).to_bits())
    };
    let trained: std::collections::HashSet<_> = (0..train.len()).map(|i| key(train, i)).collect();
    for i in 0..validation.len() {
        assert!(
            !trained.contains(&key(validation, i)),
            "validation position {i} is also a training position"
        );
    }
}

/// Data lines of 80 games, two per opening with the same moves (as equal
/// engines play them with colours swapped). A game is a seeded random walk
/// from the start whose first `skip` plies are its opening (its ply 0 is the
/// position after them).
fn paired_games(skip: u64) -> String {
    let mut lines = String::new();
    let mut list = MoveList::new();
    for opening in 0..40u64 {
        let mut pos = Position::start();
        let mut game = Vec::new();
        for ply in 0..30 + skip {
            pos.generate(&mut list);
            if list.is_empty() {
                break;
            }
            if ply >= skip {
                game.push(pos.to_text());
            }
            let pick = engine::zobrist::splitmix64(opening * 1000 + ply) as usize % list.len();
            pos = pos.play(&list[pick]);
        }
        for id in [2 * opening, 2 * opening + 1] {
            for (ply, text) in game.iter().enumerate() {
                lines.push_str(&format!("{id}\t{text}\t{ply}\t-\t0.5\n"));
            }
        }
    }
    lines
}

/// The two games of a pair stay on one side of the split, and no validation
/// position is trained on.
#[test]
fn validation_split_keeps_the_games_of_an_opening_together() {
    let load = |skip: u64| {
        let mut l = Loader::<Position>::new();
        l.add_reader("mem", Cursor::new(paired_games(skip)))
            .unwrap();
        l.finish(0.3).unwrap()
    };
    // Every game from the start: one opening, so the split goes by game.
    let from_start = load(0);
    assert!(!from_start.report.split_by_opening);
    assert!(from_start.report.validation_games > 0 && !from_start.train.is_empty());
    let loaded = load(4);
    let r = &loaded.report;
    assert!(r.split_by_opening);
    assert_eq!(r.train_games + r.validation_games, 80);
    assert_eq!(r.validation_games % 2, 0, "a pair was split: {r:?}");
    assert!(r.validation_games >= 10 && r.train_games >= 30, "{r:?}");
    assert!(!loaded.validation.is_empty());
    assert_disjoint(&loaded.train, &loaded.validation);
}

/// Two runs' files number their games alike (from 0): their games are
/// different games, counted apart, and each pair still falls on one side.
#[test]
fn files_of_two_runs_with_the_same_game_ids_count_every_game() {
    let mut l = Loader::<Position>::new();
    for skip in [4, 5] {
        l.add_reader("run", Cursor::new(paired_games(skip)))
            .unwrap();
    }
    let r = l.finish(0.3).unwrap().report;
    assert!(r.split_by_opening);
    assert_eq!(r.train_games + r.validation_games, 160, "{r:?}");
    assert_eq!(r.validation_games % 2, 0, "a pair was split: {r:?}");
}

/// The pull toward the initial weights holds them where the data would move
/// them away, and vanishes at strength 0.
#[test]
fn regularisation_pulls_toward_the_initial_weights() {
    let truth = random_params(24, 40, 5);
    let data = synthetic(&spec(4000), &truth, 1.0);
    let init = vec![0.0; 24];
    let distance = |strength: f64| {
        let mut t = Trainer::new(&data, init.clone(), 1.0, 2.0, 0);
        t.regularize(strength);
        for _ in 0..300 {
            t.epoch();
        }
        t.params().iter().map(|p| p * p).sum::<f64>().sqrt()
    };
    let (free, mild, strong) = (distance(0.0), distance(4000.0), distance(1e8));
    assert!(free > 50.0, "the data move the weights: {free}");
    assert!(mild < free && strong < mild, "{free} {mild} {strong}");
    assert!(
        strong < 1.0,
        "a strong pull keeps them at the start: {strong}"
    );
}

#[test]
fn tuned_weights_round_trip_through_the_file() {
    let (quiet, _) = quiet_and_capture();
    let mut text = String::new();
    for i in 0..50 {
        text.push_str(&format!("{i}\t{quiet}\t0\t{}\t{}\n", i * 3, i % 2));
    }
    let mut loader = Loader::<Position>::new();
    loader.add_reader("mem", Cursor::new(text)).unwrap();
    let mut loaded = loader.finish(0.0).unwrap();
    let init = Weights::default_for(GameKind::Bushka);
    let cfg = TuneConfig {
        epochs: 5,
        lr: 3.0,
        batch: 0,
        lambda: 0.5,
        k: Some(1.0),
        freeze: vec![0],
        regularize: 0.0,
        progress: false,
        checkpoint: None,
        resume: false,
    };
    let out = tuner::tune(&mut loaded, &init, &cfg).unwrap();
    assert_eq!(out.curve.len(), 6);
    assert_eq!(out.weights.weight("man"), init.weight("man"));
    assert!(out.exercised > 0);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let path = dir.join("w.json");
    out.weights.save(&path).unwrap();
    let back = Weights::load(GameKind::Bushka, &path).unwrap();
    assert_eq!(back, out.weights);
    // The float form survives the conversion too.
    let p = weights_to_params(&back);
    assert_eq!(params_to_weights(GameKind::Bushka, &p).unwrap(), back);
    let csv = tuner::plot::curve_csv(&out.curve);
    assert_eq!(csv.lines().count(), 7);
    let png = dir.join("w.loss.png");
    tuner::plot::draw_png(&out.curve, &png).unwrap();
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
    let names = <Position as Features>::NAMES;
    assert_eq!(back.names(), names);
}

/// Synthetic data with Bushka's features, no validation set.
fn bushka_synthetic(seed: u64) -> tuner::Loaded {
    let n = <Position as Features>::NAMES.len();
    let truth = random_params(2 * n, 40, seed);
    let spec = SyntheticSpec {
        features: n,
        ..spec(3000)
    };
    tuner::Loaded {
        train: synthetic(&spec, &truth, 1.0),
        validation: synthetic(
            &SyntheticSpec {
                positions: 0,
                ..spec
            },
            &truth,
            1.0,
        ),
        report: tuner::LoadReport::default(),
    }
}

/// A fit of `epochs` epochs of one batch each, nothing frozen.
fn full_batch(epochs: usize, checkpoint: Option<std::path::PathBuf>) -> TuneConfig {
    TuneConfig {
        epochs,
        lr: 2.0,
        batch: 0,
        lambda: 0.0,
        k: Some(1.0),
        freeze: Vec::new(),
        regularize: 0.0,
        progress: false,
        resume: checkpoint.is_some(),
        checkpoint,
    }
}

/// A fit stopped at epoch 4 of 6 and resumed with `--epochs 4` runs no
/// epoch, yet leaves its checkpoint marked finished: otherwise the next fit
/// without `--resume` would be refused as overwriting a stopped one.
#[test]
fn a_fit_resumed_at_its_last_epoch_marks_its_checkpoint_finished() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.json.checkpoint");
    let init = Weights::default_for(GameKind::Bushka);
    let first = tuner::tune(
        &mut bushka_synthetic(22),
        &init,
        &full_batch(4, Some(path.clone())),
    )
    .unwrap();
    let mut stopped = tuner::Checkpoint::read(&path).unwrap().unwrap();
    assert!(stopped.finished());
    stopped.planned = 6;
    stopped.write(&path).unwrap();
    let again = tuner::tune(
        &mut bushka_synthetic(22),
        &init,
        &full_batch(4, Some(path.clone())),
    )
    .unwrap();
    assert_eq!(again.resumed, 4);
    assert_eq!(again.weights, first.weights);
    let now = tuner::Checkpoint::read(&path).unwrap().unwrap();
    assert_eq!((now.epoch, now.planned), (4, 4));
    assert!(now.finished());
}

/// Each epoch's training loss in the curve is that of the weights after the
/// epoch, over the whole set: with one batch an epoch, the mean of the
/// batches' losses would repeat the previous epoch's.
#[test]
fn each_epochs_training_loss_is_its_own_weights() {
    let mut loaded = bushka_synthetic(21);
    let init = Weights::default_for(GameKind::Bushka);
    let out = tuner::tune(&mut loaded, &init, &full_batch(4, None)).unwrap();
    let curve = &out.curve;
    assert_eq!(curve.len(), 5);
    for pair in curve.windows(2) {
        assert!(pair[1].train < pair[0].train, "{curve:?}");
    }
    // Without a validation set the last epoch is kept: its loss is the
    // curve's last (up to the rounding to whole weights).
    let kept = loss_all(&loaded.train, &weights_to_params(&out.weights), 1.0);
    let last = curve[4].train;
    assert!((kept - last).abs() < 0.01 * last, "{kept} vs {last}");
}

/// Losses, gradients and the fitted k are the same to the bit whatever the
/// number of threads, on a set large enough to be split: a fit resumed on
/// another machine finds the losses it started from, and goes on alike.
#[test]
fn sums_do_not_depend_on_the_threads() {
    let truth = random_params(24, 40, 9);
    let data = synthetic(&spec(70_000), &truth, 1.0);
    let w = random_params(24, 30, 10);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut grad = vec![0.0; w.len()];
            let l = loss_and_gradient(&data, &w, 1.3, 0..data.len(), &mut grad);
            let bits: Vec<u64> = grad.iter().map(|g| g.to_bits()).collect();
            (
                l.to_bits(),
                loss_all(&data, &w, 1.3).to_bits(),
                fit_k(&data, &w).to_bits(),
                bits,
            )
        })
    };
    let one = run(1);
    for threads in [2, 3, 5] {
        assert!(run(threads) == one, "{threads} threads");
    }
}

/// A line that never ends (an endless stream such as `/dev/zero`) is given
/// up after 17 MiB with an error naming it, not read for ever; an over-long
/// line that ends is one bad line.
#[test]
fn an_endless_line_is_given_up() {
    let mut loader = Loader::<Position>::new();
    let endless = std::io::BufReader::new(std::io::repeat(b'x'));
    let e = loader.add_reader("endless", endless).unwrap_err();
    assert_eq!(
        e.to_string(),
        "line 1 has no line end in its first 17 MiB: not a data file"
    );
    let mut long = vec![b'x'; 3 << 20];
    long.push(b'\n');
    let mut loader = Loader::<Position>::new();
    loader.add_reader("long", Cursor::new(long)).unwrap();
    match loader.finish(0.0) {
        Err(TuneError::NoData(msg)) => assert!(
            msg.starts_with("1 lines, 1 bad, ") && msg.contains("line 1: longer than"),
            "{msg}"
        ),
        other => panic!("expected NoData, got {other:?}"),
    }
}
