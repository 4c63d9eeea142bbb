//! Evaluation tuning (Texel-style logistic regression) from self-play data.
//!
//! [`load`] streams `bushka selfplay --data` files into compact sets of quiet,
//! de-duplicated positions whose features come from the engine's own
//! extractors ([`engine::eval::Features::feature_vec`]); capture-pending
//! positions are skipped or played out to their quiet end by [`resolve`];
//! [`model`] predicts `sigmoid(k * eval / 100)` for White; [`kfit`] fits `k`;
//! [`train`] runs Adam in parallel; [`checkpoint`] saves a fit so that it can
//! be resumed; [`plot`] writes the loss curve.

pub mod checkpoint;
pub mod dataset;
pub mod error;
pub mod kfit;
pub mod load;
pub mod model;
pub mod plot;
pub mod resolve;
pub mod synthetic;
pub mod train;

pub use checkpoint::Checkpoint;
pub use dataset::{Dataset, Sample};
pub use error::TuneError;
pub use kfit::fit_k;
pub use load::{load_files, load_files_with, BadLine, LoadReport, Loaded, Loader};
pub use train::{tune, tune_patterns, EpochLoss, Trainer, TuneConfig, TuneOutcome};
