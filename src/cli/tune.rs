//! `tune`: fit evaluation weights to self-play data (issue 7, in progress).

use anyhow::{bail, Result};

/// Options of `bushka tune`.
#[derive(clap::Args, Debug, Clone)]
pub struct TuneArgs {
    /// The game: bushka or bashnya.
    #[arg(long, default_value = "bushka")]
    pub game: engine::GameKind,
}

/// `bushka tune`.
pub fn tune(_args: &TuneArgs) -> Result<()> {
    bail!("the tuner is not built yet")
}
