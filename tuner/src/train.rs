//! The optimiser: Adam over full or mini batches, float weights during
//! training, integers when written. Parameters the data never exercises are
//! never moved. Pattern parameters are updated lazily (sparse Adam): a batch
//! moves, and updates the moments and the pull of, only the pattern
//! parameters its positions touch. The bias correction counts the fit's
//! steps (as LazyAdam does), so a pattern parameter touched for the first
//! time late in a fit moves by about `3.2 * lr` (`0.1 / sqrt(0.001)`), and
//! by about `6.5 * lr` after ten touches of one sign (docs/patterns.md).

use crate::checkpoint::{Checkpoint, Key};
use crate::dataset::Dataset;
use crate::error::TuneError;
use crate::load::Loaded;
use crate::model::{loss_all, loss_and_gradient};
use engine::eval::patterns::{MAX_PATTERN_WEIGHT, PATTERN_SCALE};
use engine::eval::weights::MAX_WEIGHT;
use engine::eval::{PatternWeights, Weights};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Adam's decay of the mean gradient.
const BETA1: f64 = 0.9;
/// Adam's decay of the mean squared gradient.
const BETA2: f64 = 0.999;
/// Adam's guard against division by zero.
const EPSILON: f64 = 1e-8;

/// Float parameters `[mg..., eg...]` from integer weights.
pub fn weights_to_params(w: &Weights) -> Vec<f64> {
    w.mg().iter().chain(w.eg()).map(|&v| v as f64).collect()
}

/// Integer weights from float parameters: rounded and bounded by [`MAX_WEIGHT`].
pub fn params_to_weights(kind: engine::GameKind, p: &[f64]) -> Result<Weights, TuneError> {
    let round = |v: &f64| {
        let r = v.round();
        if r.is_finite() {
            r.clamp(-(MAX_WEIGHT as f64), MAX_WEIGHT as f64) as i32
        } else {
            0
        }
    };
    let n = p.len() / 2;
    let mg = p[..n].iter().map(round).collect();
    let eg = p[n..2 * n].iter().map(round).collect();
    Ok(Weights::from_vectors(kind, mg, eg)?)
}

/// Float parameters of pattern weights: the features', then the patterns'
/// `[mg..., eg...]`, all in centi-men (the file keeps pattern weights in
/// [`PATTERN_SCALE`]ths).
pub fn pattern_weights_to_params(w: &PatternWeights) -> Vec<f64> {
    let mut p = weights_to_params(w.features());
    let scale = f64::from(PATTERN_SCALE);
    p.extend(
        w.pattern_mg()
            .iter()
            .chain(w.pattern_eg())
            .map(|&v| f64::from(v) / scale),
    );
    p
}

/// Pattern weights from float parameters (see [`pattern_weights_to_params`]):
/// features rounded to centi-men and bounded by [`MAX_WEIGHT`], patterns
/// rounded to [`PATTERN_SCALE`]ths and bounded by [`MAX_PATTERN_WEIGHT`].
pub fn params_to_pattern_weights(
    kind: engine::GameKind,
    features: usize,
    p: &[f64],
) -> Result<PatternWeights, TuneError> {
    let weights = params_to_weights(kind, &p[..2 * features])?;
    let rest = &p[2 * features..];
    let max = f64::from(MAX_PATTERN_WEIGHT);
    let scale = f64::from(PATTERN_SCALE);
    let round = |v: &f64| {
        let r = (v * scale).round();
        if r.is_finite() {
            r.clamp(-max, max) as i16
        } else {
            0
        }
    };
    let np = rest.len() / 2;
    let mg = rest[..np].iter().map(round).collect();
    let eg = rest[np..].iter().map(round).collect();
    PatternWeights::from_parts(weights, mg, eg).map_err(|e| TuneError::BadOption(e.to_string()))
}

/// Adam on a dataset: one call of [`Trainer::epoch`] is one pass over it.
pub struct Trainer<'a> {
    data: &'a Dataset,
    k: f64,
    lr: f64,
    batch: usize,
    params: Vec<f64>,
    init: Vec<f64>,
    /// The pull toward `init`: added to each parameter's gradient times its
    /// distance from its initial value.
    pull: f64,
    mask: Vec<bool>,
    m: Vec<f64>,
    v: Vec<f64>,
    grad: Vec<f64>,
    steps: i32,
}

impl<'a> Trainer<'a> {
    /// A trainer from initial parameters; `batch` 0 means the full set per step.
    pub fn new(data: &'a Dataset, init: Vec<f64>, k: f64, lr: f64, batch: usize) -> Self {
        let len = init.len();
        let mut mask = data.exercised();
        mask.resize(len, false);
        Trainer {
            data,
            k,
            lr,
            batch: if batch == 0 { data.len().max(1) } else { batch },
            init: init.clone(),
            params: init,
            pull: 0.0,
            mask,
            m: vec![0.0; len],
            v: vec![0.0; len],
            grad: vec![0.0; len],
            steps: 0,
        }
    }

    /// One pass over the data, one Adam step per batch; returns the mean loss
    /// of the batches (each measured before its step).
    pub fn epoch(&mut self) -> f64 {
        let n = self.data.len();
        let mut total = 0.0;
        let mut start = 0;
        while start < n {
            let end = (start + self.batch).min(n);
            let loss =
                loss_and_gradient(self.data, &self.params, self.k, start..end, &mut self.grad);
            total += loss * (end - start) as f64;
            self.step();
            start = end;
        }
        if n == 0 {
            f64::NAN
        } else {
            total / n as f64
        }
    }

    /// Regularises toward the initial weights: the loss gains
    /// `strength / positions * sum(((w - w0) / 100)^2)`, so that the initial
    /// weights weigh as much as `strength` positions would where a weight is
    /// one man away from them, and matter less the more data there is.
    pub fn regularize(&mut self, strength: f64) {
        let n = self.data.len().max(1) as f64;
        self.pull = 2.0 * strength / n / 1e4;
    }

    /// One Adam update from the gradient in `self.grad`.
    fn step(&mut self) {
        self.steps = self.steps.saturating_add(1);
        let c1 = 1.0 - BETA1.powi(self.steps);
        let c2 = 1.0 - BETA2.powi(self.steps);
        let sparse_from = 2 * self.data.feature_count();
        for j in 0..self.params.len() {
            // Untouched pattern parameters keep their moments (lazy Adam).
            if !self.mask[j] || (j >= sparse_from && self.grad[j] == 0.0) {
                continue;
            }
            let g = self.grad[j] + self.pull * (self.params[j] - self.init[j]);
            self.m[j] = BETA1 * self.m[j] + (1.0 - BETA1) * g;
            self.v[j] = BETA2 * self.v[j] + (1.0 - BETA2) * g * g;
            let (mh, vh) = (self.m[j] / c1, self.v[j] / c2);
            self.params[j] -= self.lr * mh / (vh.sqrt() + EPSILON);
        }
    }

    /// Keeps both halves of a feature's weight where they are (such as the
    /// man's own weight, which the men's piece-square weights can stand in
    /// for).
    pub fn freeze(&mut self, feature: usize) {
        let n = self.data.feature_count();
        for j in [feature, n + feature] {
            if let Some(m) = self.mask.get_mut(j) {
                *m = false;
            }
        }
    }

    /// The current float parameters.
    pub fn params(&self) -> &[f64] {
        &self.params
    }

    /// Adam's first and second moments and its step count (for a checkpoint).
    pub fn moments(&self) -> (&[f64], &[f64], u64) {
        (&self.m, &self.v, self.steps.max(0) as u64)
    }

    /// Carries on from saved parameters, moments and step count (of a
    /// trainer on the same data and settings).
    pub fn restore(
        &mut self,
        params: &[f64],
        m: &[f64],
        v: &[f64],
        steps: u64,
    ) -> Result<(), TuneError> {
        let n = self.params.len();
        if [params.len(), m.len(), v.len()] != [n; 3] {
            return Err(TuneError::BadOption(format!(
                "{} saved parameters for {n}",
                params.len()
            )));
        }
        self.params.copy_from_slice(params);
        self.m.copy_from_slice(m);
        self.v.copy_from_slice(v);
        self.steps = i32::try_from(steps).unwrap_or(i32::MAX);
        Ok(())
    }

    /// Which parameters the data exercises (the others never move).
    pub fn mask(&self) -> &[bool] {
        &self.mask
    }
}

/// The default pull toward the initial weights, in positions (see
/// [`Trainer::regularize`]).
pub const DEFAULT_REGULARIZE: f64 = 1000.0;

/// The default pull for a pattern fit: none. A pattern weight is seen in
/// far fewer positions than [`DEFAULT_REGULARIZE`], so that pull held nearly
/// every one at its start (Bashnya, 2,362,157 positions: validation loss
/// 0.050571 with it, 0.044731 without; docs/patterns.md); the split by game
/// and the best validation epoch guard against overfitting.
pub const DEFAULT_REGULARIZE_PATTERNS: f64 = 0.0;

/// The default pull for a fit of pattern weights (`patterns`) or of the
/// feature weights: [`DEFAULT_REGULARIZE_PATTERNS`] or [`DEFAULT_REGULARIZE`].
pub fn default_regularize(patterns: bool) -> f64 {
    if patterns {
        DEFAULT_REGULARIZE_PATTERNS
    } else {
        DEFAULT_REGULARIZE
    }
}

/// Settings of a tuning run.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    /// Passes over the training set.
    pub epochs: usize,
    /// Adam's step size, in centi-men.
    pub lr: f64,
    /// Positions per step; 0 for the full set.
    pub batch: usize,
    /// Weight of the search score in the target (0 = the result only).
    pub lambda: f64,
    /// The sigmoid scale; fitted to the initial weights when `None`.
    pub k: Option<f64>,
    /// Features whose weights stay at their initial values (indices).
    pub freeze: Vec<usize>,
    /// Regularisation toward the initial weights (see [`Trainer::regularize`]);
    /// [`TuneConfig::default`] has the features' default, a pattern fit
    /// takes [`default_regularize`]`(true)`.
    pub regularize: f64,
    /// Show a progress bar.
    pub progress: bool,
    /// Where the fit's state is saved as it goes ([`crate::checkpoint`]):
    /// at most every [`CHECKPOINT_EVERY`] and after the last epoch.
    pub checkpoint: Option<PathBuf>,
    /// Carry on from the checkpoint when there is one (else start afresh
    /// and replace it; `bushka tune` refuses to replace the checkpoint of a
    /// fit that was stopped before its end).
    pub resume: bool,
}

/// The longest time between two checkpoints of a fit.
pub const CHECKPOINT_EVERY: Duration = Duration::from_secs(30);

impl Default for TuneConfig {
    fn default() -> Self {
        TuneConfig {
            epochs: 100,
            lr: 1.0,
            batch: 16384,
            lambda: 0.0,
            k: None,
            freeze: Vec::new(),
            regularize: DEFAULT_REGULARIZE,
            progress: false,
            checkpoint: None,
            resume: false,
        }
    }
}

/// The losses after one epoch (epoch 0: the initial weights).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochLoss {
    /// The epoch number.
    pub epoch: usize,
    /// Training loss of the weights after the epoch, over the whole
    /// training set (as the validation loss is measured).
    pub train: f64,
    /// Validation loss after the epoch (NaN without a validation set).
    pub validation: f64,
}

/// What a tuning run produced.
#[derive(Clone, Debug)]
pub struct TuneOutcome {
    /// The tuned weights: those of the epoch with the lowest validation loss
    /// (the last epoch when there is no validation set).
    pub weights: Weights,
    /// The tuned feature and pattern weights ([`tune_patterns`]; `None` from [`tune`]).
    pub patterns: Option<PatternWeights>,
    /// The epoch those weights come from.
    pub best_epoch: usize,
    /// The epoch the fit was resumed after (0 for a fit from the start).
    pub resumed: usize,
    /// The sigmoid scale used.
    pub k: f64,
    /// Whether `k` was fitted (else given).
    pub k_fitted: bool,
    /// The loss curve, from epoch 0.
    pub curve: Vec<EpochLoss>,
    /// Parameters the data exercises (of `2 * (features + patterns)`).
    pub exercised: usize,
    /// Wall time of the epochs run by this call, in seconds.
    pub seconds: f64,
}

/// Fits weights to the loaded data, starting from `init`.
pub fn tune(data: &mut Loaded, init: &Weights, cfg: &TuneConfig) -> Result<TuneOutcome, TuneError> {
    if data.train.pattern_count() > 0 {
        return Err(TuneError::BadOption(
            "the data hold pattern indices: tune them with tune_patterns".into(),
        ));
    }
    let start = weights_to_params(init);
    let fit = fit(data, start, cfg)?;
    Ok(TuneOutcome {
        weights: params_to_weights(init.kind(), &fit.best)?,
        patterns: None,
        best_epoch: fit.best_epoch,
        resumed: fit.resumed,
        k: fit.k,
        k_fitted: fit.k_fitted,
        curve: fit.curve,
        exercised: fit.exercised,
        seconds: fit.seconds,
    })
}

/// Fits feature and pattern weights together to data loaded with patterns
/// ([`crate::Loader::with_patterns`]), starting from `init`.
pub fn tune_patterns(
    data: &mut Loaded,
    init: &PatternWeights,
    cfg: &TuneConfig,
) -> Result<TuneOutcome, TuneError> {
    let n = data.train.feature_count();
    let start = pattern_weights_to_params(init);
    if data.train.pattern_count() == 0 || start.len() != data.train.param_count() {
        return Err(TuneError::BadOption(format!(
            "the data hold {} pattern parameters, the initial weights {}",
            data.train.pattern_count(),
            start.len().saturating_sub(2 * n) / 2
        )));
    }
    let fit = fit(data, start, cfg)?;
    let patterns = params_to_pattern_weights(init.kind(), n, &fit.best)?;
    Ok(TuneOutcome {
        weights: patterns.features().clone(),
        patterns: Some(patterns),
        best_epoch: fit.best_epoch,
        resumed: fit.resumed,
        k: fit.k,
        k_fitted: fit.k_fitted,
        curve: fit.curve,
        exercised: fit.exercised,
        seconds: fit.seconds,
    })
}

/// What [`fit`] found.
struct Fit {
    best: Vec<f64>,
    best_epoch: usize,
    resumed: usize,
    k: f64,
    k_fitted: bool,
    curve: Vec<EpochLoss>,
    exercised: usize,
    seconds: f64,
}

/// Adam from `start` (a full parameter vector of the data), keeping the
/// parameters of the epoch with the lowest validation loss.
fn fit(data: &mut Loaded, start: Vec<f64>, cfg: &TuneConfig) -> Result<Fit, TuneError> {
    cfg.check()?;
    if start.len() != data.train.param_count() {
        return Err(TuneError::BadOption(format!(
            "the initial weights have {} features, the data's game has {}",
            start.len() / 2,
            data.train.feature_count()
        )));
    }
    let (k, k_fitted) = match cfg.k {
        Some(k) => (k, false),
        None => (crate::kfit::fit_k(&data.train, &start), true),
    };
    data.train.set_targets(k, cfg.lambda);
    data.validation.set_targets(k, cfg.lambda);
    let (train, valid) = (&data.train, &data.validation);
    let mut curve = vec![EpochLoss {
        epoch: 0,
        train: loss_all(train, &start, k),
        validation: loss_all(valid, &start, k),
    }];
    let bar = engine::progress::bar(cfg.epochs as u64, "epochs", cfg.progress);
    let clock = Instant::now();
    let mut trainer = Trainer::new(train, start.clone(), k, cfg.lr, cfg.batch);
    for &f in &cfg.freeze {
        trainer.freeze(f);
    }
    trainer.regularize(cfg.regularize);
    let exercised = trainer.mask().iter().filter(|&&m| m).count();
    let mut best = (0usize, curve[0].validation, start);
    let key = fit_key(cfg, k, &curve[0], train.len(), valid.len(), &best.2);
    let mut resumed = 0;
    let mut planned_before = None;
    // Writes the fit's state (when it has a checkpoint file). One that
    // cannot be written (a full disk) costs only itself: the fit and its
    // result go on.
    let save =
        |epoch: usize, trainer: &Trainer, best: &(usize, f64, Vec<f64>), curve: &[EpochLoss]| {
            let Some(path) = &cfg.checkpoint else {
                return;
            };
            let (m, v, steps) = trainer.moments();
            let written = Checkpoint {
                key: key.clone(),
                epoch,
                planned: cfg.epochs,
                steps,
                best_epoch: best.0,
                params: trainer.params().to_vec(),
                m: m.to_vec(),
                v: v.to_vec(),
                best: best.2.clone(),
                curve: curve.to_vec(),
            }
            .write(path);
            if let Err(e) = written {
                bar.suspend(|| eprintln!("warning: no checkpoint: {e}"));
            }
        };
    if let (Some(path), true) = (&cfg.checkpoint, cfg.resume) {
        if let Some(c) = Checkpoint::read(path)? {
            c.check_key(&key, path)?;
            if c.epoch > cfg.epochs {
                return Err(TuneError::Checkpoint(format!(
                    "{} is at epoch {}, past --epochs {}",
                    path.display(),
                    c.epoch,
                    cfg.epochs
                )));
            }
            trainer.restore(&c.params, &c.m, &c.v, c.steps)?;
            planned_before = Some(c.planned);
            best = (c.best_epoch, c.curve[c.best_epoch].validation, c.best);
            curve = c.curve;
            resumed = c.epoch;
            bar.set_position(resumed as u64);
        }
    }
    let mut saved = Instant::now();
    for epoch in resumed + 1..=cfg.epochs {
        let during = trainer.epoch();
        if !during.is_finite() || trainer.params().iter().any(|p| !p.is_finite()) {
            bar.finish_and_clear();
            return Err(TuneError::Diverged {
                epoch,
                loss: during,
            });
        }
        // The mean of the batches' losses mixes weights from across the
        // epoch (with one batch, it is the previous epoch's loss); the curve
        // and the summary pair each epoch with its own weights' losses.
        let t = loss_all(train, trainer.params(), k);
        let v = loss_all(valid, trainer.params(), k);
        curve.push(EpochLoss {
            epoch,
            train: t,
            validation: v,
        });
        if valid.is_empty() || v < best.1 {
            best = (epoch, v, trainer.params().to_vec());
        }
        bar.set_message(format!("train {t:.6}  validation {v:.6}"));
        bar.inc(1);
        if epoch == cfg.epochs || saved.elapsed() >= CHECKPOINT_EVERY {
            save(epoch, &trainer, &best, &curve);
            saved = Instant::now();
        }
    }
    // A fit resumed at exactly its new last epoch runs none: its checkpoint
    // is written again all the same, now marked finished, so that it no
    // longer guards a fit that has ended.
    if resumed > 0 && resumed == cfg.epochs && planned_before != Some(cfg.epochs) {
        save(resumed, &trainer, &best, &curve);
    }
    bar.finish_and_clear();
    Ok(Fit {
        best: best.2,
        best_epoch: best.0,
        resumed,
        k,
        k_fitted,
        curve,
        exercised,
        seconds: clock.elapsed().as_secs_f64(),
    })
}

/// What a checkpoint must match to be resumed by this fit: the settings
/// that steer the steps, the initial weights (a hash of every parameter:
/// weights no position exercises leave the losses as they are, but are
/// kept as they start), and the data's sizes and initial losses (which
/// differ when the data or the split do). The number of epochs is not part
/// of it: a resumed fit may go on past the old end.
fn fit_key(
    cfg: &TuneConfig,
    k: f64,
    start: &EpochLoss,
    train: usize,
    validation: usize,
    params: &[f64],
) -> Key {
    let freeze: Vec<String> = cfg.freeze.iter().map(ToString::to_string).collect();
    let init = params.iter().fold(engine::zobrist::FNV1A_START, |h, p| {
        engine::zobrist::fnv1a(h, &p.to_bits().to_le_bytes())
    });
    [
        ("parameters", params.len().to_string()),
        ("initial weights", format!("{init:016x}")),
        ("training positions", train.to_string()),
        ("validation positions", validation.to_string()),
        ("initial training loss", format!("{:?}", start.train)),
        ("initial validation loss", format!("{:?}", start.validation)),
        ("k", format!("{k:?}")),
        ("lr", format!("{:?}", cfg.lr)),
        ("batch", cfg.batch.to_string()),
        ("lambda", format!("{:?}", cfg.lambda)),
        ("regularize", format!("{:?}", cfg.regularize)),
        ("frozen features", format!("[{}]", freeze.join(","))),
    ]
    .into_iter()
    .map(|(n, v)| (n.to_string(), v))
    .collect()
}

/// The largest `--lr` and `--regularize` accepted: far beyond any useful
/// value, below those that overflow the arithmetic.
const MAX_LR: f64 = 1e6;
/// See [`MAX_LR`].
const MAX_REGULARIZE: f64 = 1e12;

impl TuneConfig {
    /// Refuses settings outside their ranges (before any data is read).
    pub fn check(&self) -> Result<(), TuneError> {
        check(self)
    }
}

/// See [`TuneConfig::check`].
fn check(cfg: &TuneConfig) -> Result<(), TuneError> {
    let bad = |m: String| Err(TuneError::BadOption(m));
    if !(cfg.lr.is_finite() && cfg.lr > 0.0 && cfg.lr <= MAX_LR) {
        return bad(format!(
            "--lr {:?}: expected a positive number up to {MAX_LR:e}",
            cfg.lr
        ));
    }
    if !(0.0..=1.0).contains(&cfg.lambda) {
        return bad(format!(
            "--lambda {:?}: expected a number in [0, 1]",
            cfg.lambda
        ));
    }
    if !(cfg.regularize.is_finite() && (0.0..=MAX_REGULARIZE).contains(&cfg.regularize)) {
        return bad(format!(
            "--regularize {:?}: expected a number from 0 to {MAX_REGULARIZE:e}",
            cfg.regularize
        ));
    }
    if let Some(k) = cfg.k {
        let (lo, hi) = (crate::kfit::K_MIN, crate::kfit::K_MAX);
        if !(k.is_finite() && (lo..=hi).contains(&k)) {
            return bad(format!("--k {k:?}: expected a number from {lo} to {hi}"));
        }
    }
    Ok(())
}
