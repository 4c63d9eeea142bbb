//! Evaluation: a static judgement of a position for the search.
//!
//! [`Material`] counts pieces; [`Weights`] is the tunable evaluation: a
//! tapered weighted sum of the named features of [`features`], whose
//! extractors live in [`bushka`] and [`bashnya`]. The search and the tuner
//! both score through those extractors, so the evaluation exists once.

pub mod bashnya;
pub mod bushka;
pub mod features;
pub mod patterns;
pub mod weights;

pub use features::{FeatureSink, FeatureVec, Features, FEATURE_CAPACITY, PHASE_MAX};
pub use patterns::{EvalKind, PatternEval, PatternWeights, Patterns};
pub use weights::{Weights, WeightsError};

use crate::game::Game;
use crate::search::SharedOracle;
use std::path::Path;
use std::sync::Arc;

/// An evaluator that can be shared with the search threads.
pub type SharedEval<G> = Arc<dyn Evaluator<G>>;

/// What the commands load for a game: its evaluation and its endgame tables.
pub trait EvalSource: Patterns {
    /// The evaluation used when no weights file is set.
    fn default_eval() -> SharedEval<Self>;
    /// The evaluation of a `--weights` value: `material` (the material-only
    /// baseline), `default`, or a weights file.
    fn load_eval(path: &str) -> Result<SharedEval<Self>, String>;
    /// The evaluation of a `--weights` value (or none) under an `--eval`
    /// choice (see [`select_eval`]).
    fn select_eval(weights: Option<&str>, kind: EvalKind) -> Result<SharedEval<Self>, String>;
    /// The endgame tables of a folder (built by `bushka tb build`).
    fn open_tables(dir: &Path) -> Result<SharedOracle<Self>, String>;
}

impl EvalSource for crate::bushka::Position {
    fn default_eval() -> SharedEval<Self> {
        default_eval::<Self>()
    }
    fn select_eval(weights: Option<&str>, kind: EvalKind) -> Result<SharedEval<Self>, String> {
        select_eval::<Self>(weights, kind)
    }
    fn load_eval(path: &str) -> Result<SharedEval<Self>, String> {
        load_eval::<Self>(path)
    }
    fn open_tables(dir: &Path) -> Result<SharedOracle<Self>, String> {
        crate::bushka::tb::Tablebase::open_oracle(dir).map_err(|e| e.to_string())
    }
}

impl EvalSource for crate::bashnya::Position {
    fn default_eval() -> SharedEval<Self> {
        default_eval::<Self>()
    }
    fn select_eval(weights: Option<&str>, kind: EvalKind) -> Result<SharedEval<Self>, String> {
        select_eval::<Self>(weights, kind)
    }
    fn load_eval(path: &str) -> Result<SharedEval<Self>, String> {
        load_eval::<Self>(path)
    }
    fn open_tables(_dir: &Path) -> Result<SharedOracle<Self>, String> {
        Err("endgame tables exist for Bushka only".into())
    }
}

/// A static evaluation, in centi-men (a man = 100 at default weights), from
/// the side to move's point of view.
pub trait Evaluator<G: Game>: Send + Sync {
    /// The score of `pos` for the side to move.
    fn evaluate(&self, pos: &G) -> i32;
}

/// Counts material only: a man 100, a king `king` (the `material` baseline).
#[derive(Clone, Copy, Debug)]
pub struct Material {
    /// Value of a king in centi-men.
    pub king: i32,
}

impl Default for Material {
    fn default() -> Self {
        Material { king: 300 }
    }
}

impl Evaluator<crate::bushka::Position> for Material {
    fn evaluate(&self, pos: &crate::bushka::Position) -> i32 {
        let us = pos.side();
        let them = us.opponent();
        let score =
            |c| pos.men(c).count_ones() as i32 * 100 + pos.kings(c).count_ones() as i32 * self.king;
        score(us) - score(them)
    }
}

impl Evaluator<crate::bashnya::Position> for Material {
    /// Pieces free under their own commander count; prisoners count for nobody.
    fn evaluate(&self, pos: &crate::bashnya::Position) -> i32 {
        let us = pos.side();
        let mut score = 0;
        let mut occ = pos.occupied();
        while occ != 0 {
            let sq = occ.trailing_zeros() as u8;
            occ &= occ - 1;
            let col = pos.column(sq);
            let Some(top) = col.top() else { continue };
            let owner = top.color();
            let value: i32 = col
                .pieces()
                .filter(|p| p.color() == owner)
                .map(|p| if p.is_king() { self.king } else { 100 })
                .sum();
            score += if owner == us { value } else { -value };
        }
        score
    }
}

/// The evaluation every command uses unless told otherwise: the embedded
/// pattern weights where the game has adopted them, else the default
/// feature weights.
fn default_eval<G: Patterns>() -> SharedEval<G>
where
    Material: Evaluator<G>,
{
    if G::PATTERNS_BY_DEFAULT {
        if let Ok(e) = pattern_eval::<G>(&PatternWeights::default_for(G::KIND)) {
            return e;
        }
    }
    default_features::<G>()
}

/// What [`EvalSource::default_eval`] is, as a short text: its kind and a
/// hash of its weights (`patterns 1f0c...` or `features 9a2e...`). Runs that
/// resume from files (the atlas, the tactics journal) keep it, so that a
/// build with other built-in weights does not mix its results into theirs.
pub fn default_eval_id<G: Patterns>() -> String {
    if G::PATTERNS_BY_DEFAULT {
        // The test `default_eval` makes: these weights compile.
        let w = PatternWeights::default_for(G::KIND);
        if PatternEval::<G>::new(&w).is_some() {
            return embedded_patterns_id::<G>();
        }
    }
    embedded_features_id::<G>()
}

/// The id of the embedded pattern weights (`patterns` and a hash).
fn embedded_patterns_id<G: Patterns>() -> String {
    use crate::zobrist::{fnv1a, FNV1A_START};
    let w = PatternWeights::default_for(G::KIND);
    format!("patterns {:016x}", fnv1a(FNV1A_START, &w.to_bytes()))
}

/// The id of the default feature weights (`features` and a hash).
fn embedded_features_id<G: Patterns>() -> String {
    use crate::zobrist::{fnv1a, FNV1A_START};
    let json = Weights::default_for(G::KIND).to_json();
    format!("features {:016x}", fnv1a(FNV1A_START, json.as_bytes()))
}

/// The most a weights file may hold: the largest, Bashnya's pattern
/// weights, is under 1 MiB.
pub const MAX_WEIGHTS_FILE: u64 = 64 << 20;

/// Reads a weights file (JSON or binary), refusing one past
/// [`MAX_WEIGHTS_FILE`] (a data file named by mistake, `/dev/zero`).
pub fn read_weights_file(path: &Path) -> std::io::Result<Vec<u8>> {
    crate::files::read_capped(path, MAX_WEIGHTS_FILE)
}

/// The file a `--weights` value names: none for the built-in weights
/// [`select_eval`] knows by name (`default`, `material`).
pub fn weights_file(weights: Option<&str>) -> Option<&str> {
    weights.filter(|w| !matches!(*w, "default" | "material"))
}

/// What [`select_eval`] makes of a `--weights` value (or none) under an
/// `--eval` choice, as a short text that changes when the evaluation does:
/// the embedded weights' kind and hash, `material`, or the choice and a
/// hash of the weights file's bytes (`auto file 3c1d...`; a JSON file under
/// `patterns` adds the embedded pattern weights' id). Runs that
/// resume from files keep it, so that games or results of another
/// evaluation (another build's embedded weights, a weights file changed in
/// between) are not mixed into theirs.
pub fn eval_id<G: Patterns>(weights: Option<&str>, kind: EvalKind) -> Result<String, String> {
    use crate::zobrist::{fnv1a, FNV1A_START};
    match weights {
        None | Some("default") => Ok(match kind {
            EvalKind::Auto => default_eval_id::<G>(),
            EvalKind::Features => embedded_features_id::<G>(),
            EvalKind::Patterns => embedded_patterns_id::<G>(),
        }),
        Some("material") => Ok("material".into()),
        Some(path) => {
            let bytes = read_weights_file(Path::new(path))
                .map_err(|e| format!("weights file {}: {e}", crate::files::quoted(path, 200)))?;
            let id = format!("{} file {:016x}", kind.name(), fnv1a(FNV1A_START, &bytes));
            // Feature weights under `patterns` play with the embedded
            // pattern weights: they are part of the evaluation.
            if kind == EvalKind::Patterns && !patterns::file::is_binary(&bytes) {
                return Ok(format!("{id} with {}", embedded_patterns_id::<G>()));
            }
            Ok(id)
        }
    }
}

/// The default feature weights alone (`data/weights/<game>.json`).
fn default_features<G: Patterns>() -> SharedEval<G>
where
    Material: Evaluator<G>,
{
    G::compile(&Weights::default_for(G::KIND))
}

/// The evaluation named by a `--weights` value: `material`, `default`, or a
/// weights file (JSON feature weights, or a binary file of feature and
/// pattern weights, told apart by the binary file's magic).
fn load_eval<G: Patterns>(path: &str) -> Result<SharedEval<G>, String>
where
    Material: Evaluator<G>,
{
    select_eval::<G>(Some(path), EvalKind::Auto)
}

/// The pattern evaluator of pattern weights.
fn pattern_eval<G: Patterns>(w: &PatternWeights) -> Result<SharedEval<G>, String> {
    PatternEval::<G>::new(w)
        .map(|e| Arc::new(e) as SharedEval<G>)
        .ok_or_else(|| format!("pattern weights are not for {}", G::KIND.name()))
}

/// The evaluation of a `--weights` value (or none) under an `--eval` choice:
///
/// | weights            | auto       | features        | patterns |
/// | ------------------ | ---------- | --------------- | -------- |
/// | none or `default`  | the game's default (embedded patterns where adopted, else features) | default features | embedded default patterns |
/// | `material`         | material   | material        | refused |
/// | JSON file          | its features | its features  | its features with the embedded patterns |
/// | binary file        | its features and patterns | its features | its features and patterns |
pub fn select_eval<G: Patterns>(
    weights: Option<&str>,
    kind: EvalKind,
) -> Result<SharedEval<G>, String>
where
    Material: Evaluator<G>,
{
    let patterns = kind == EvalKind::Patterns;
    match weights {
        None | Some("default") => match kind {
            EvalKind::Auto => Ok(default_eval::<G>()),
            EvalKind::Features => Ok(default_features::<G>()),
            EvalKind::Patterns => pattern_eval::<G>(&PatternWeights::default_for(G::KIND)),
        },
        Some("material") if patterns => {
            Err("weights 'material' have no pattern weights (use --eval features)".into())
        }
        Some("material") => Ok(Arc::new(Material::default())),
        Some(path) => {
            let bytes = read_weights_file(Path::new(path))
                .map_err(|e| format!("weights file {}: {e}", crate::files::quoted(path, 200)))?;
            if patterns::file::is_binary(&bytes) {
                let w = PatternWeights::from_bytes(G::KIND, &bytes)
                    .map_err(|e| format!("{path}: {e}"))?;
                if kind == EvalKind::Features {
                    Ok(G::compile(w.features()))
                } else {
                    pattern_eval::<G>(&w)
                }
            } else {
                let text = String::from_utf8(bytes).map_err(|_| {
                    format!(
                        "weights file {} is neither JSON text nor a binary weights file",
                        crate::files::quoted(path, 200)
                    )
                })?;
                let w = Weights::from_json(G::KIND, &text).map_err(|e| format!("{path}: {e}"))?;
                if patterns {
                    let mut p = PatternWeights::default_for(G::KIND);
                    p.set_features(w);
                    pattern_eval::<G>(&p)
                } else {
                    Ok(G::compile(&w))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bushka::Position;

    /// The names `weights_file` takes for built-in weights are the ones
    /// `select_eval` makes without a file; anything else is read as a file.
    #[test]
    fn weights_file_leaves_out_exactly_the_built_in_names() {
        for name in ["default", "material"] {
            assert_eq!(weights_file(Some(name)), None);
            assert!(select_eval::<Position>(Some(name), EvalKind::Features).is_ok());
        }
        assert_eq!(weights_file(None), None);
        let missing = "no-such-dir/w.json";
        assert_eq!(weights_file(Some(missing)), Some(missing));
        let err = select_eval::<Position>(Some(missing), EvalKind::Features)
            .err()
            .unwrap();
        assert!(err.contains("weights file"), "{err}");
    }

    /// A file past the bound is refused after reading one byte more than
    /// it (here a sparse file, so nothing is written), by every reader.
    #[test]
    fn a_weights_file_past_the_bound_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.json");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_WEIGHTS_FILE + 1).unwrap();
        drop(f);
        let text = big.to_str().unwrap();
        let want = format!("longer than {MAX_WEIGHTS_FILE} bytes");
        for kind in [EvalKind::Features, EvalKind::Patterns] {
            let err = select_eval::<Position>(Some(text), kind).err().unwrap();
            assert!(err.contains(&want), "{err}");
            let err = eval_id::<Position>(Some(text), kind).unwrap_err();
            assert!(err.contains(&want), "{err}");
        }
        let err = Weights::load(crate::GameKind::Bushka, &big)
            .unwrap_err()
            .to_string();
        assert!(err.contains(&want), "{err}");
        let err = PatternWeights::load(crate::GameKind::Bushka, &big)
            .unwrap_err()
            .to_string();
        assert!(err.contains(&want), "{err}");
        // At the bound it is read (and then refused as no weights).
        let small = dir.path().join("small.bin");
        std::fs::write(&small, b"abc").unwrap();
        assert_eq!(crate::files::read_capped(&small, 3).unwrap(), b"abc");
        assert!(crate::files::read_capped(&small, 2).is_err());
    }
}
