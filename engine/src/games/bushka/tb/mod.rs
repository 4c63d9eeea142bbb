//! Endgame tablebases for Bushka: exact values with distances for every
//! position of small materials.
//!
//! Each material (kings and men per side) has a perfect index of its piece
//! placements ([`index`]) and one byte per position and side to move: `0` a
//! draw, else the distance `d + 1` in plies to the end of the game, a win
//! when `d` is odd (the opponent is to move with no move after `d` plies) and
//! a loss when it is even. [`build`] solves the materials by retrograde
//! analysis, smallest first; [`Tablebase`] loads them and answers in O(1),
//! also as a search [`Oracle`].

pub mod build;
pub mod file;
pub mod index;
pub mod material;
pub mod retro;

pub use build::{
    build, build_materials, BuildOptions, BuildProgress, MaterialReport, ProgressSink,
};
pub use index::Indexer;
pub use material::Material;

use crate::bushka::{Move, Position};
use crate::game::{Color, Game};
use crate::movelist::MoveList;
use crate::search::{Exact, Oracle};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// The default folder of the tables.
pub const DEFAULT_DIR: &str = "data/tb";

/// Why a table could not be built, read or probed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TbError {
    /// A file could not be read or written.
    #[error("{0}: {1}")]
    Io(String, String),
    /// A table file is damaged or not a table.
    #[error("{0}: corrupt table: {1}")]
    Corrupt(String, String),
    /// The position's material has no table in the folder.
    #[error("no table for {0} (material outside the built tables)")]
    Missing(String),
    /// A distance longer than one byte can hold.
    #[error("{0}: a distance exceeds 254 plies, more than the format holds")]
    TooLong(String),
    /// The position cannot be indexed (a man on its promotion row).
    #[error("position outside the tables: {0}")]
    Invalid(String),
}

/// The value stored for a byte of a table.
#[inline]
pub fn decode(b: u8) -> Exact {
    match b {
        0 => Exact::Draw,
        _ if (b - 1) % 2 == 1 => Exact::Win(b as u32 - 1),
        _ => Exact::Loss(b as u32 - 1),
    }
}

/// The byte stored for a value (`None` past 254 plies).
pub fn encode(e: Exact) -> Option<u8> {
    match e {
        Exact::Draw => Some(0),
        Exact::Win(d) | Exact::Loss(d) => u8::try_from(d.checked_add(1)?).ok(),
    }
}

/// One material's table in memory.
#[derive(Clone, Debug)]
pub struct Table {
    indexer: Indexer,
    /// The whole file: header, White-to-move bytes, Black-to-move bytes, checksum.
    bytes: Arc<Vec<u8>>,
}

impl Table {
    /// A table from solved bytes (White to move, then Black to move).
    pub fn from_data(mat: Material, data: &[u8]) -> Table {
        let mut bytes = vec![0u8; file::HEADER];
        bytes.extend_from_slice(data);
        Table {
            indexer: Indexer::new(mat),
            bytes: Arc::new(bytes),
        }
    }

    /// Reads and checks a table file.
    pub fn load(path: &Path) -> Result<Table, TbError> {
        let (mat, _, bytes) = file::read(path)?;
        Ok(Table {
            indexer: Indexer::new(mat),
            bytes: Arc::new(bytes),
        })
    }

    /// The material of the table.
    pub fn material(&self) -> Material {
        self.indexer.material()
    }

    /// Its index.
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// The stored bytes of one side to move, one per index.
    pub fn side_bytes(&self, side: Color) -> &[u8] {
        let n = self.indexer.size() as usize;
        let start = file::HEADER + side as usize * n;
        self.bytes.get(start..start + n).unwrap_or(&[])
    }

    /// The stored byte of a position of this material.
    #[inline]
    fn byte(&self, side: Color, idx: u64) -> u8 {
        let i = file::HEADER + side as usize * self.indexer.size() as usize + idx as usize;
        self.bytes.get(i).copied().unwrap_or(0)
    }
}

/// The tables of a folder, by material: exact values and best moves.
#[derive(Clone, Debug)]
pub struct Tablebase {
    tables: Vec<Option<Table>>,
    dir: PathBuf,
    most: u8,
}

impl Tablebase {
    /// No tables yet (the builder adds them as it solves them).
    pub fn empty(dir: &Path) -> Tablebase {
        Tablebase {
            tables: vec![None; Material::CODES],
            dir: dir.to_path_buf(),
            most: 0,
        }
    }

    /// Loads every table file (`*.tb`) of a folder, checking each; an empty
    /// folder or a damaged file is an error.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase, TbError> {
        let dir = dir.as_ref();
        let name = dir.display().to_string();
        let entries =
            std::fs::read_dir(dir).map_err(|e| TbError::Io(name.clone(), e.to_string()))?;
        let mut tb = Tablebase::empty(dir);
        for entry in entries {
            let entry = entry.map_err(|e| TbError::Io(name.clone(), e.to_string()))?;
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "tb") {
                tb.insert(Table::load(&path)?);
            }
        }
        if tb.most == 0 {
            return Err(TbError::Io(
                name,
                "no table files (*.tb); run `bushka tb build`".into(),
            ));
        }
        Ok(tb)
    }

    /// [`Tablebase::open`] as a search oracle: `engine.set_oracle(Some(oracle))`.
    pub fn open_oracle(dir: impl AsRef<Path>) -> Result<Arc<dyn Oracle<Position>>, TbError> {
        Ok(Arc::new(Tablebase::open(dir)?))
    }

    /// Adds (or replaces) a material's table.
    pub fn insert(&mut self, table: Table) {
        let mat = table.material();
        self.most = self.most.max(mat.total());
        self.tables[mat.code()] = Some(table);
    }

    /// The folder the tables came from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The most pieces of any loaded table.
    pub fn max_pieces(&self) -> u8 {
        self.most
    }

    /// The table of a material, when loaded.
    pub fn table(&self, mat: Material) -> Option<&Table> {
        if !mat.in_range() {
            return None;
        }
        self.tables.get(mat.code()).and_then(|t| t.as_ref())
    }

    /// The exact value of a position for the side to move. A side without
    /// pieces needs no table; any other material needs its table.
    pub fn value(&self, pos: &Position) -> Result<Exact, TbError> {
        let us = pos.side();
        if pos.pieces(us) == 0 {
            return Ok(Exact::Loss(0));
        }
        if pos.pieces(us.opponent()) == 0 {
            return Ok(if pos.count_moves() == 0 {
                Exact::Loss(0)
            } else {
                Exact::Win(1)
            });
        }
        let mat = Material::of(pos);
        let table = self
            .table(mat)
            .ok_or_else(|| TbError::Missing(mat.to_string()))?;
        let idx = table
            .indexer
            .index(pos)
            .ok_or_else(|| TbError::Invalid(pos.to_text()))?;
        Ok(decode(table.byte(us, idx)))
    }

    /// The best move and the position's value: the fastest win, the slowest
    /// loss, or a move that keeps the draw (`None` with no legal move).
    pub fn best_move(&self, pos: &Position) -> Result<(Exact, Option<Move>), TbError> {
        let value = self.value(pos)?;
        let mut list = MoveList::new();
        pos.generate(&mut list);
        let mut best: Option<(i64, Move)> = None;
        for mv in &list {
            let child = self.value(&pos.play(mv))?;
            // Our preference for the child's value (for its side to move).
            let rank = match child {
                Exact::Loss(d) => 1_000_000 - d as i64,
                Exact::Draw => 0,
                Exact::Win(d) => -1_000_000 + d as i64,
            };
            if best.is_none_or(|(r, _)| rank > r) {
                best = Some((rank, *mv));
            }
        }
        Ok((value, best.map(|(_, m)| m)))
    }
}

impl Oracle<Position> for Tablebase {
    fn probe(&self, pos: &Position) -> Option<Exact> {
        if Material::of(pos).total() > self.most {
            return None;
        }
        self.value(pos).ok()
    }
}

/// Counts of one side to move of one material.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideStats {
    /// The side to move.
    pub side: Color,
    /// Positions (legal placements).
    pub positions: u64,
    /// Won for the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost for the side to move.
    pub losses: u64,
    /// The longest win for the side to move (none when it has no win).
    pub longest_win: Option<Longest>,
    /// The longest loss for the side to move (none when it has no loss).
    pub longest_loss: Option<Longest>,
}

/// The longest result of one kind, with a position that has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Longest {
    /// Its length in plies.
    pub plies: u32,
    /// A position of that length (the first in the table's order).
    pub example: Option<Position>,
}

impl Table {
    /// Counts of wins, draws and losses for one side to move, and its
    /// longest win and longest loss.
    pub fn stats(&self, side: Color) -> SideStats {
        let bytes = self.side_bytes(side);
        let (mut wins, mut draws, mut losses) = (0u64, 0u64, 0u64);
        let (mut win_max, mut loss_max) = (None::<(u8, usize)>, None::<(u8, usize)>);
        for (i, &b) in bytes.iter().enumerate() {
            match decode(b) {
                Exact::Draw => draws += 1,
                Exact::Win(_) => {
                    wins += 1;
                    if win_max.is_none_or(|(m, _)| b > m) {
                        win_max = Some((b, i));
                    }
                }
                Exact::Loss(_) => {
                    losses += 1;
                    if loss_max.is_none_or(|(m, _)| b > m) {
                        loss_max = Some((b, i));
                    }
                }
            }
        }
        let longest = |max: Option<(u8, usize)>| {
            max.map(|(b, i)| Longest {
                plies: u32::from(b) - 1,
                example: self.indexer.position(i as u64, side),
            })
        };
        SideStats {
            side,
            positions: bytes.len() as u64,
            wins,
            draws,
            losses,
            longest_win: longest(win_max),
            longest_loss: longest(loss_max),
        }
    }
}
