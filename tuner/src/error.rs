//! The tuner's typed errors: every message is one line.

use thiserror::Error;

/// Why tuning could not start or finish.
#[derive(Debug, Error)]
pub enum TuneError {
    /// A file could not be opened, read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file concerned.
        path: String,
        /// What the system said (part of the message, so not a separate source).
        error: std::io::Error,
    },
    /// No line of the data gave a usable position.
    #[error("no usable positions in the data ({0})")]
    NoData(String),
    /// An option value outside its range.
    #[error("{0}")]
    BadOption(String),
    /// The loss stopped being a number: the fit is given up.
    #[error("the fit diverged at epoch {epoch} (training loss {loss}): nothing written; try a smaller --lr or --regularize")]
    Diverged {
        /// The epoch at which it did.
        epoch: usize,
        /// Its training loss.
        loss: f64,
    },
    /// A checkpoint that cannot be resumed: damaged, or of another fit.
    #[error("checkpoint {0}")]
    Checkpoint(String),
    /// The initial or tuned weights were refused.
    #[error(transparent)]
    Weights(#[from] engine::eval::WeightsError),
    /// The loss plot could not be drawn.
    #[error("loss plot {path}: {message}")]
    Plot {
        /// The image file.
        path: String,
        /// What went wrong.
        message: String,
    },
}
