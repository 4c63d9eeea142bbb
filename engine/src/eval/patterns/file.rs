//! Pattern weights and their binary file (docs/patterns.md, "Weights file").
//!
//! Layout, every number little-endian:
//!
//! | offset | size | field |
//! | ------ | ---- | ----- |
//! | 0      | 8    | magic `BSKPATW\0` |
//! | 8      | 4    | format version ([`FORMAT_VERSION`]) |
//! | 12     | 4    | game: 0 Bushka, 1 Bashnya |
//! | 16     | 4    | region set id ([`super::RegionSet::id`]) |
//! | 20     | 4    | `F`, the number of named features |
//! | 24     | 4    | `P`, the number of pattern parameters |
//! | 28     | 4    | reserved, zero |
//! | 32     | 8    | checksum: FNV-1a 64 of bytes 0..32 and of the body |
//! | 40     | 8F   | feature weights: `F` mg then `F` eg, `i32` |
//! | 40+8F  | 4P   | pattern weights: `P` mg then `P` eg, `i16`, in [`PATTERN_SCALE`]ths of a centi-man |
//!
//! Version 1 files (pattern weights in whole centi-men) are read too, their
//! pattern weights multiplied by [`PATTERN_SCALE`]; files are written as
//! version 2.
//!
//! A file is refused, with a one-line message naming the problem, when it is
//! shorter than the header, has another magic, version, game or region set,
//! other counts than the game's, a length other than the counts give, a
//! checksum that does not match, or a weight out of range.

use super::{Patterns, RegionSet};
use crate::eval::weights::MAX_WEIGHT;
use crate::eval::Weights;
use crate::game::GameKind;
use crate::with_game;
use crate::zobrist::{fnv1a, FNV1A_START};
use std::path::Path;
use thiserror::Error;

/// The first eight bytes of a binary weights file.
pub const MAGIC: [u8; 8] = *b"BSKPATW\0";

/// The binary format version this code writes (it reads version 1 too).
pub const FORMAT_VERSION: u32 = 2;

/// Pattern weights are kept in this fraction of a centi-man (sixteenths):
/// a tuned pattern weight is mostly smaller than one centi-man, and whole
/// centi-men rounded most of them to zero.
pub const PATTERN_SCALE: i16 = 16;

/// Bytes before the weights.
pub const HEADER_LEN: usize = 40;

/// Largest pattern parameter magnitude, in [`PATTERN_SCALE`]ths of a
/// centi-man (1,000 centi-men): a region's table entry is the difference of
/// two, which stays inside `i16` too.
pub const MAX_PATTERN_WEIGHT: i16 = 16_000;

/// Why a binary weights file was refused; one line naming the problem.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum PatternFileError {
    /// The file could not be read or written.
    #[error("weights file {path}: {message}")]
    Io {
        /// The file concerned.
        path: String,
        /// What the system said.
        message: String,
    },
    /// Fewer bytes than the header.
    #[error("binary weights file truncated: {0} bytes, the header alone is {HEADER_LEN}")]
    ShortHeader(usize),
    /// Not this format's magic.
    #[error("not a binary weights file (bad magic)")]
    Magic,
    /// Another format version.
    #[error(
        "binary weights file: format version {found}, this program reads versions 1 and {FORMAT_VERSION}"
    )]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// The file is for the other game, or an unknown one.
    #[error("binary weights file is for {found}, expected {expected}")]
    WrongGame {
        /// The game in the file.
        found: String,
        /// The game being loaded.
        expected: &'static str,
    },
    /// Another region set.
    #[error("binary weights file: region set {found:#010x}, this program uses {expected:#010x} ({name})")]
    RegionSet {
        /// The set in the file.
        found: u32,
        /// The game's set.
        expected: u32,
        /// The game's set name.
        name: &'static str,
    },
    /// Counts that are not the game's.
    #[error("binary weights file: {what} count {found}, expected {expected}")]
    Count {
        /// `feature` or `pattern`.
        what: &'static str,
        /// The count in the file.
        found: u32,
        /// The game's count.
        expected: usize,
    },
    /// Reserved header bytes that are not zero.
    #[error("binary weights file: reserved header field is {0}, expected 0")]
    Reserved(u32),
    /// A length other than the header's counts give.
    #[error("binary weights file {kind}: {found} bytes, the header says {expected}")]
    Length {
        /// `truncated` or `has trailing bytes`.
        kind: &'static str,
        /// Bytes in the file.
        found: usize,
        /// Bytes the header announces.
        expected: usize,
    },
    /// The body does not match the checksum.
    #[error("binary weights file is corrupt: checksum {found:#018x}, computed {computed:#018x}")]
    Checksum {
        /// The checksum in the file.
        found: u64,
        /// The checksum of the contents.
        computed: u64,
    },
    /// A weight beyond the allowed magnitude.
    #[error("binary weights file: {0} out of range")]
    OutOfRange(String),
}

/// The checksum of a file: its header without the checksum, then the body.
fn checksum(bytes: &[u8]) -> u64 {
    fnv1a(fnv1a(FNV1A_START, &bytes[..32]), &bytes[HEADER_LEN..])
}

/// A game's code in the file.
fn game_code(kind: GameKind) -> u32 {
    match kind {
        GameKind::Bushka => 0,
        GameKind::Bashnya => 1,
    }
}

/// The region set of a game.
pub fn region_set(kind: GameKind) -> RegionSet {
    with_game!(kind, G => <G as Patterns>::SET)
}

/// Feature and pattern weights of one game: everything the pattern
/// evaluation reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternWeights {
    features: Weights,
    mg: Vec<i16>,
    eg: Vec<i16>,
}

/// A little-endian `u32` at `at` (the caller checked the length).
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

impl PatternWeights {
    /// The given feature weights and every pattern weight zero.
    pub fn zero_patterns(features: Weights) -> PatternWeights {
        let n = region_set(features.kind()).len();
        PatternWeights {
            features,
            mg: vec![0; n],
            eg: vec![0; n],
        }
    }

    /// The embedded default of a game (`data/weights/<game>.patterns`).
    ///
    /// # Panics
    /// Never in a built program: the tests check both embedded files.
    pub fn default_for(kind: GameKind) -> PatternWeights {
        let bytes = with_game!(kind, G => <G as Patterns>::DEFAULT_PATTERNS);
        PatternWeights::from_bytes(kind, bytes).unwrap_or_else(|_| {
            // Should a broken file ever be embedded, keep playing on the
            // default features alone.
            PatternWeights::zero_patterns(Weights::default_for(kind))
        })
    }

    /// Weights from parts; `mg` and `eg` must have the region set's length
    /// and every value at most [`MAX_PATTERN_WEIGHT`] in magnitude.
    pub fn from_parts(
        features: Weights,
        mg: Vec<i16>,
        eg: Vec<i16>,
    ) -> Result<PatternWeights, PatternFileError> {
        let set = region_set(features.kind());
        for v in [&mg, &eg] {
            if v.len() != set.len() {
                return Err(PatternFileError::Count {
                    what: "pattern",
                    found: u32::try_from(v.len()).unwrap_or(u32::MAX),
                    expected: set.len(),
                });
            }
        }
        for (half, v) in [("mg", &mg), ("eg", &eg)] {
            if let Some(i) = v
                .iter()
                .position(|x| x.unsigned_abs() > MAX_PATTERN_WEIGHT as u16)
            {
                return Err(PatternFileError::OutOfRange(format!(
                    "pattern weight {i}.{half}"
                )));
            }
        }
        Ok(PatternWeights { features, mg, eg })
    }

    /// The game.
    pub fn kind(&self) -> GameKind {
        self.features.kind()
    }

    /// The named feature weights.
    pub fn features(&self) -> &Weights {
        &self.features
    }

    /// Replaces the named feature weights (of the same game; others are ignored).
    pub fn set_features(&mut self, features: Weights) {
        if features.kind() == self.kind() {
            self.features = features;
        }
    }

    /// The middle-game pattern parameters, in [`PATTERN_SCALE`]ths of a centi-man.
    pub fn pattern_mg(&self) -> &[i16] {
        &self.mg
    }

    /// The end-game pattern parameters, in [`PATTERN_SCALE`]ths of a centi-man.
    pub fn pattern_eg(&self) -> &[i16] {
        &self.eg
    }

    /// True when every pattern weight is zero (the evaluation is the features').
    pub fn patterns_are_zero(&self) -> bool {
        self.mg.iter().chain(&self.eg).all(|&x| x == 0)
    }

    /// White's score computed square by square: the reference the
    /// compiled [`super::PatternEval`] equals. `mirror` is
    /// [`super::mirror_table`] of the game.
    pub fn score_white<G: Patterns>(&self, pos: &G, mirror: &[u32]) -> i32 {
        if G::KIND != self.kind() || mirror.len() != self.mg.len() {
            return 0;
        }
        let (mg, eg) = self.features.sums_white(pos);
        let scale = i64::from(PATTERN_SCALE);
        let (mut mg, mut eg) = (mg * scale, eg * scale);
        for i in super::plain_indices(pos) {
            let m = mirror[i] as usize;
            mg += i64::from(self.mg[i]) - i64::from(self.mg[m]);
            eg += i64::from(self.eg[i]) - i64::from(self.eg[m]);
        }
        crate::eval::weights::taper_units(mg, eg, pos.phase(), scale)
    }

    /// The binary file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let kind = self.kind();
        let set = region_set(kind);
        let f = self.features.mg().len();
        let mut out = Vec::with_capacity(HEADER_LEN + 8 * f + 4 * self.mg.len());
        out.extend_from_slice(&MAGIC);
        for v in [
            FORMAT_VERSION,
            game_code(kind),
            set.id,
            u32::try_from(f).unwrap_or(u32::MAX),
            u32::try_from(self.mg.len()).unwrap_or(u32::MAX),
            0,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&[0; 8]);
        for &w in self.features.mg().iter().chain(self.features.eg()) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for &w in self.mg.iter().chain(&self.eg) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        let sum = checksum(&out);
        out[32..40].copy_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a binary weights file's bytes for `kind`, refusing anything
    /// damaged or meant for something else.
    pub fn from_bytes(kind: GameKind, bytes: &[u8]) -> Result<PatternWeights, PatternFileError> {
        if !MAGIC.starts_with(&bytes[..bytes.len().min(MAGIC.len())]) {
            return Err(PatternFileError::Magic);
        }
        if bytes.len() < HEADER_LEN {
            return Err(PatternFileError::ShortHeader(bytes.len()));
        }
        let version = u32_at(bytes, 8);
        if version != 1 && version != FORMAT_VERSION {
            return Err(PatternFileError::Version { found: version });
        }
        let game = u32_at(bytes, 12);
        if game != game_code(kind) {
            let found = match game {
                0 => "bushka".to_string(),
                1 => "bashnya".to_string(),
                n => format!("unknown game {n}"),
            };
            return Err(PatternFileError::WrongGame {
                found,
                expected: kind.name(),
            });
        }
        let set = region_set(kind);
        let id = u32_at(bytes, 16);
        if id != set.id {
            return Err(PatternFileError::RegionSet {
                found: id,
                expected: set.id,
                name: set.name,
            });
        }
        let features = crate::eval::weights::names_of(kind).len();
        let (f, p) = (u32_at(bytes, 20), u32_at(bytes, 24));
        for (what, found, expected) in [("feature", f, features), ("pattern", p, set.len())] {
            if found as usize != expected {
                return Err(PatternFileError::Count {
                    what,
                    found,
                    expected,
                });
            }
        }
        let reserved = u32_at(bytes, 28);
        if reserved != 0 {
            return Err(PatternFileError::Reserved(reserved));
        }
        let expected = HEADER_LEN + 8 * features + 4 * set.len();
        if bytes.len() != expected {
            return Err(PatternFileError::Length {
                kind: if bytes.len() < expected {
                    "truncated"
                } else {
                    "has trailing bytes"
                },
                found: bytes.len(),
                expected,
            });
        }
        let mut stored = [0u8; 8];
        stored.copy_from_slice(&bytes[32..40]);
        let (found, computed) = (u64::from_le_bytes(stored), checksum(bytes));
        if found != computed {
            return Err(PatternFileError::Checksum { found, computed });
        }
        let body = &bytes[HEADER_LEN..];
        let ints: Vec<i32> = body[..8 * features]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let shorts: Vec<i16> = body[8 * features..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        let (fmg, feg) = ints.split_at(features);
        let weights = Weights::from_vectors(kind, fmg.to_vec(), feg.to_vec()).map_err(|_| {
            PatternFileError::OutOfRange(format!("a feature weight (at most {MAX_WEIGHT})"))
        })?;
        let (pmg, peg) = shorts.split_at(set.len());
        let (pmg, peg) = if version == 1 {
            (scale_version_one(pmg, "mg")?, scale_version_one(peg, "eg")?)
        } else {
            (pmg.to_vec(), peg.to_vec())
        };
        PatternWeights::from_parts(weights, pmg, peg)
    }

    /// Reads a binary weights file.
    pub fn load(kind: GameKind, path: &Path) -> Result<PatternWeights, PatternFileError> {
        let bytes = crate::eval::read_weights_file(path).map_err(|e| PatternFileError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        PatternWeights::from_bytes(kind, &bytes)
    }

    /// Writes the binary file atomically ([`crate::files`]).
    pub fn save(&self, path: &Path) -> Result<(), PatternFileError> {
        crate::files::write_atomic(path, &self.to_bytes()).map_err(|e| PatternFileError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })
    }
}

/// Version-1 pattern weights (whole centi-men) in [`PATTERN_SCALE`]ths,
/// refusing one that has no such value in range.
fn scale_version_one(v: &[i16], half: &str) -> Result<Vec<i16>, PatternFileError> {
    let limit = MAX_PATTERN_WEIGHT / PATTERN_SCALE;
    v.iter()
        .enumerate()
        .map(|(i, &x)| {
            if x.unsigned_abs() > limit.unsigned_abs() {
                Err(PatternFileError::OutOfRange(format!(
                    "version-1 pattern weight {i}.{half} (at most {limit} centi-men)"
                )))
            } else {
                Ok(x * PATTERN_SCALE)
            }
        })
        .collect()
}

/// True when `bytes` start like a binary weights file.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}
