//! `tb`: endgame tablebases for Bushka (issue 8, in progress).

use anyhow::{bail, Result};

/// The tablebase commands.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum TbCommand {
    /// Build the tables.
    Build,
}

/// `bushka tb ...`.
pub fn tb(_cmd: &TbCommand) -> Result<()> {
    bail!("tablebases are not built yet")
}
