//! Named, tapered evaluation weights: the search's evaluator and the tuner's
//! parameters, read from and written to JSON weights files.
//!
//! File format (version [`FORMAT_VERSION`]):
//!
//! ```json
//! { "game": "bushka", "format": 1,
//!   "weights": { "man": { "mg": 100, "eg": 100 }, ... } }
//! ```
//!
//! Every feature of the game must be present, and nothing else. Values are
//! centi-men per unit of the feature; fractional values are rounded.

use super::features::{FeatureSink, FeatureVec, Features, PHASE_MAX};
use super::Evaluator;
use crate::game::GameKind;
use crate::with_game;
use serde_json::Value;
use std::path::Path;
use thiserror::Error;

/// The weights-file format this code reads and writes.
pub const FORMAT_VERSION: u64 = 1;

/// Largest weight magnitude accepted from a file; keeps every sum far from overflow.
pub const MAX_WEIGHT: i32 = 1_000_000;

/// Evaluations are kept inside this bound, well below the search's win scores.
pub const MAX_EVAL: i32 = 20_000;

/// Why a weights file was refused; the message is one line (text from the
/// file is shown with its control characters escaped) and names the key.
#[derive(Debug, Error)]
pub enum WeightsError {
    /// The file could not be read or written.
    #[error("weights file {path}: {error}")]
    Io {
        /// The file concerned.
        path: String,
        /// What the system said (part of the message, so not a separate source).
        error: std::io::Error,
    },
    /// The text is not JSON, or not a JSON object at the top.
    #[error("weights file is not valid JSON: {0}")]
    Json(String),
    /// A required top-level key is absent (`game`, `format` or `weights`).
    #[error("weights file: missing key '{0}'")]
    MissingKey(String),
    /// A top-level key this format does not have.
    #[error("weights file: unknown key '{}'", crate::files::quoted(.0, 80))]
    UnknownKey(String),
    /// A top-level key with a value of the wrong type.
    #[error("weights file: key '{}' has the wrong type ({})", crate::files::quoted(.0, 80), .1)]
    BadKey(String, &'static str),
    /// The file is for another format version (or the version is not a
    /// whole number); what the file gave is shown cut to 40 characters.
    #[error("weights file: format version {}, this program reads version {expected}", crate::files::quoted(.found, 80))]
    Version {
        /// The version in the file.
        found: String,
        /// The version this code reads.
        expected: u64,
    },
    /// The file is for the other game (or an unknown one).
    #[error("weights file: key 'game' is '{}', expected '{expected}'", crate::files::quoted(.found, 80))]
    WrongGame {
        /// The game named in the file.
        found: String,
        /// The game being loaded.
        expected: &'static str,
    },
    /// A feature of the game has no weight (or lacks its `mg` or `eg` half).
    #[error("weights file: missing weight '{}'", crate::files::quoted(.0, 80))]
    MissingWeight(String),
    /// A weight name that is not a feature of the game.
    #[error("weights file: unknown weight '{}'", crate::files::quoted(.0, 80))]
    UnknownWeight(String),
    /// A weight half (`mg` or `eg`) that is not a number.
    #[error("weights file: weight '{}' is not a number", crate::files::quoted(.0, 80))]
    NotNumeric(String),
    /// A weight that is not an `{mg, eg}` object.
    #[error("weights file: weight '{}' is not an object {{\"mg\": ..., \"eg\": ...}}", crate::files::quoted(.0, 80))]
    NotAPair(String),
    /// A key given twice in one object (JSON readers differ on which one
    /// counts, so neither is taken), named by its path of keys
    /// (`weights.tempo.mg`), cut to 60 characters.
    #[error("weights file: key '{}' is given twice", crate::files::quoted(.0, 80))]
    DuplicateKey(String),
    /// A weight beyond [`MAX_WEIGHT`] in magnitude.
    #[error("weights file: weight '{0}' is out of range (at most {MAX_WEIGHT} in magnitude)")]
    OutOfRange(String),
    /// Vectors of the wrong length given to [`Weights::from_vectors`].
    #[error("weights for {game}: {found} values given, the game has {expected} features")]
    Length {
        /// The game.
        game: &'static str,
        /// Values given.
        found: usize,
        /// Features of the game.
        expected: usize,
    },
}

/// Middle-game and end-game weights of one game, blended by phase; the
/// evaluator of the search and the parameters of the tuner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    kind: GameKind,
    mg: Vec<i32>,
    eg: Vec<i32>,
}

/// Adds features straight into the two weighted sums (the search's path: no vector).
struct Scorer<'a> {
    mg: &'a [i32],
    eg: &'a [i32],
    sum_mg: i64,
    sum_eg: i64,
}

impl FeatureSink for Scorer<'_> {
    #[inline(always)]
    fn add(&mut self, index: u16, value: i16) {
        let i = index as usize;
        if let (Some(&m), Some(&e)) = (self.mg.get(i), self.eg.get(i)) {
            self.sum_mg += m as i64 * value as i64;
            self.sum_eg += e as i64 * value as i64;
        }
    }
}

/// The blend of a middle-game and an end-game score at `phase`, bounded by [`MAX_EVAL`].
#[inline(always)]
pub fn taper(mg: i64, eg: i64, phase: i32) -> i32 {
    taper_units(mg, eg, phase, 1)
}

/// [`taper`] of sums kept in `units`ths of a centi-man, giving centi-men:
/// one division, rounding toward zero, so sums that are whole centi-men
/// taper exactly as [`taper`] does and the colour mirror negates the score
/// exactly.
#[inline(always)]
pub fn taper_units(mg: i64, eg: i64, phase: i32, units: i64) -> i32 {
    let p = phase.clamp(0, PHASE_MAX) as i64;
    let blended = (mg * p + eg * (PHASE_MAX as i64 - p)) / (PHASE_MAX as i64 * units);
    blended.clamp(-(MAX_EVAL as i64), MAX_EVAL as i64) as i32
}

/// The feature names of a game.
pub fn names_of(kind: GameKind) -> &'static [&'static str] {
    with_game!(kind, G => G::NAMES)
}

impl Weights {
    /// The compiled-in default weights of a game (`data/weights/<game>.json`).
    pub fn default_for(kind: GameKind) -> Weights {
        let text = with_game!(kind, G => G::DEFAULT_WEIGHTS);
        // The files are checked by the tests; should one ever be broken the
        // engine still plays, on material.
        Weights::from_json(kind, text).unwrap_or_else(|_| Weights::material(kind))
    }

    /// Material only: a man 100 and a king 300 (the columns of Bashnya by
    /// their free pieces), every other weight zero.
    pub fn material(kind: GameKind) -> Weights {
        let mut w = Weights::zero(kind);
        let set = |w: &mut Weights, name: &str, v: i32| {
            if let Some(i) = w.index(name) {
                w.mg[i] = v;
                w.eg[i] = v;
            }
        };
        for &(name, value) in with_game!(kind, G => G::MATERIAL_WEIGHTS) {
            set(&mut w, name, value);
        }
        w
    }

    /// Every weight zero.
    pub fn zero(kind: GameKind) -> Weights {
        let n = names_of(kind).len();
        Weights {
            kind,
            mg: vec![0; n],
            eg: vec![0; n],
        }
    }

    /// Weights from raw vectors in feature order (for the tuner).
    pub fn from_vectors(
        kind: GameKind,
        mg: Vec<i32>,
        eg: Vec<i32>,
    ) -> Result<Weights, WeightsError> {
        let names = names_of(kind);
        for v in [&mg, &eg] {
            if v.len() != names.len() {
                return Err(WeightsError::Length {
                    game: kind.name(),
                    found: v.len(),
                    expected: names.len(),
                });
            }
        }
        for (i, (&m, &e)) in mg.iter().zip(&eg).enumerate() {
            for (v, half) in [(m, "mg"), (e, "eg")] {
                if v.unsigned_abs() > MAX_WEIGHT as u32 {
                    return Err(WeightsError::OutOfRange(format!("{}.{half}", names[i])));
                }
            }
        }
        Ok(Weights { kind, mg, eg })
    }

    /// The game these weights are for.
    pub fn kind(&self) -> GameKind {
        self.kind
    }

    /// The feature names, in vector order.
    pub fn names(&self) -> &'static [&'static str] {
        names_of(self.kind)
    }

    /// The index of a weight name.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names().iter().position(|n| *n == name)
    }

    /// The `(middle game, end game)` weight of a feature.
    pub fn weight(&self, name: &str) -> Option<(i32, i32)> {
        self.index(name).map(|i| (self.mg[i], self.eg[i]))
    }

    /// Sets a feature's weights; false (and no change) for an unknown name or
    /// a value beyond [`MAX_WEIGHT`].
    pub fn set_weight(&mut self, name: &str, mg: i32, eg: i32) -> bool {
        let ok = mg.unsigned_abs() <= MAX_WEIGHT as u32 && eg.unsigned_abs() <= MAX_WEIGHT as u32;
        match self.index(name) {
            Some(i) if ok => {
                self.mg[i] = mg;
                self.eg[i] = eg;
                true
            }
            _ => false,
        }
    }

    /// The middle-game weights in feature order.
    pub fn mg(&self) -> &[i32] {
        &self.mg
    }

    /// The end-game weights in feature order.
    pub fn eg(&self) -> &[i32] {
        &self.eg
    }

    /// White's score of precomputed features at a phase (the tuner's path;
    /// the search computes the very same sum without storing the vector).
    pub fn score_features(&self, features: &FeatureVec, phase: i32) -> i32 {
        let mut s = Scorer {
            mg: &self.mg,
            eg: &self.eg,
            sum_mg: 0,
            sum_eg: 0,
        };
        for &(i, v) in features.entries() {
            s.add(i, v);
        }
        taper(s.sum_mg, s.sum_eg, phase)
    }

    /// White's score of a position.
    #[inline]
    pub fn score_white<G: Features>(&self, pos: &G) -> i32 {
        if G::KIND != self.kind {
            // Weights of the other game mean nothing here: judge nothing.
            return 0;
        }
        let (mg, eg) = self.sums_white(pos);
        taper(mg, eg, pos.phase())
    }

    /// The middle- and end-game sums of White's score, before tapering
    /// (zero for a position of another game).
    #[inline]
    pub fn sums_white<G: Features>(&self, pos: &G) -> (i64, i64) {
        if G::KIND != self.kind {
            return (0, 0);
        }
        let mut s = Scorer {
            mg: &self.mg,
            eg: &self.eg,
            sum_mg: 0,
            sum_eg: 0,
        };
        pos.features(&mut s);
        (s.sum_mg, s.sum_eg)
    }

    /// Reads weights from JSON text, refusing anything but a complete file
    /// for `kind` (a byte order mark before it is skipped).
    pub fn from_json(kind: GameKind, text: &str) -> Result<Weights, WeightsError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if let Some(key) = duplicate_key(text) {
            return Err(WeightsError::DuplicateKey(crate::files::cut(&key, 60)));
        }
        let value: Value =
            serde_json::from_str(text).map_err(|e| WeightsError::Json(e.to_string()))?;
        let Value::Object(top) = value else {
            return Err(WeightsError::Json("the top level is not an object".into()));
        };
        if let Some(key) = top
            .keys()
            .find(|k| !["game", "format", "weights"].contains(&k.as_str()))
        {
            return Err(WeightsError::UnknownKey(key.clone()));
        }
        let get = |key: &str| {
            top.get(key)
                .ok_or_else(|| WeightsError::MissingKey(key.into()))
        };
        let format = get("format")?;
        // A whole number written with a fraction (`1.0`) is that number.
        if format.as_f64() != Some(FORMAT_VERSION as f64) {
            return Err(WeightsError::Version {
                found: crate::files::cut(&format.to_string(), 40),
                expected: FORMAT_VERSION,
            });
        }
        let game = get("game")?
            .as_str()
            .ok_or(WeightsError::BadKey("game".into(), "expected a string"))?;
        if game != kind.name() {
            return Err(WeightsError::WrongGame {
                found: game.into(),
                expected: kind.name(),
            });
        }
        let Value::Object(table) = get("weights")? else {
            return Err(WeightsError::BadKey(
                "weights".into(),
                "expected an object of {mg, eg} objects",
            ));
        };
        let names = names_of(kind);
        if let Some(key) = table.keys().find(|k| !names.contains(&k.as_str())) {
            return Err(WeightsError::UnknownWeight(key.clone()));
        }
        let mut w = Weights::zero(kind);
        for (i, name) in names.iter().enumerate() {
            let entry = table
                .get(*name)
                .ok_or_else(|| WeightsError::MissingWeight((*name).into()))?;
            let Value::Object(halves) = entry else {
                return Err(WeightsError::NotAPair((*name).into()));
            };
            if let Some(key) = halves.keys().find(|k| *k != "mg" && *k != "eg") {
                return Err(WeightsError::UnknownWeight(format!("{name}.{key}")));
            }
            w.mg[i] = read_number(halves.get("mg"), name, "mg")?;
            w.eg[i] = read_number(halves.get("eg"), name, "eg")?;
        }
        Ok(w)
    }

    /// Reads a weights file for `kind`.
    pub fn load(kind: GameKind, path: &Path) -> Result<Weights, WeightsError> {
        let text = crate::eval::read_weights_file(path)
            .and_then(|bytes| {
                String::from_utf8(bytes).map_err(|_| {
                    std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text")
                })
            })
            .map_err(|error| WeightsError::Io {
                path: path.display().to_string(),
                error,
            })?;
        Weights::from_json(kind, &text)
    }

    /// The weights as JSON text, one feature a line in feature order.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        out.push_str("{\n");
        out.push_str(&format!("  \"game\": \"{}\",\n", self.kind.name()));
        out.push_str(&format!("  \"format\": {FORMAT_VERSION},\n"));
        out.push_str("  \"weights\": {\n");
        let names = self.names();
        for (i, name) in names.iter().enumerate() {
            let comma = if i + 1 < names.len() { "," } else { "" };
            out.push_str(&format!(
                "    \"{name}\": {{ \"mg\": {}, \"eg\": {} }}{comma}\n",
                self.mg[i], self.eg[i]
            ));
        }
        out.push_str("  }\n}\n");
        out
    }

    /// Writes the weights file atomically ([`crate::files`]).
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        crate::files::write_atomic(path, self.to_json().as_bytes()).map_err(|error| {
            WeightsError::Io {
                path: path.display().to_string(),
                error,
            }
        })
    }
}

/// The first key that some object of the JSON `text` gives twice, as its
/// path of keys (`weights.tempo`); `None` for text that is not JSON (the
/// reader after this says what is wrong with it).
fn duplicate_key(text: &str) -> Option<String> {
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    /// Any JSON value, walked for the first key an object repeats.
    struct Walk(Option<String>);
    impl<'de> Deserialize<'de> for Walk {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(WalkVisitor)
        }
    }
    struct WalkVisitor;
    impl<'de> Visitor<'de> for WalkVisitor {
        type Value = Walk;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Walk, E> {
            Ok(Walk(None))
        }
        fn visit_i64<E>(self, _: i64) -> Result<Walk, E> {
            Ok(Walk(None))
        }
        fn visit_u64<E>(self, _: u64) -> Result<Walk, E> {
            Ok(Walk(None))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Walk, E> {
            Ok(Walk(None))
        }
        fn visit_str<E>(self, _: &str) -> Result<Walk, E> {
            Ok(Walk(None))
        }
        fn visit_unit<E>(self) -> Result<Walk, E> {
            Ok(Walk(None))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Walk, A::Error> {
            let mut found = None;
            while let Some(Walk(inner)) = seq.next_element::<Walk>()? {
                found = found.or(inner);
            }
            Ok(Walk(found))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Walk, A::Error> {
            let (mut found, mut seen) = (None, std::collections::HashSet::new());
            while let Some(key) = map.next_key::<String>()? {
                let Walk(inner) = map.next_value::<Walk>()?;
                // The path of a duplicate below this key: `key.inner`.
                let below = inner.map(|inner| format!("{key}.{inner}"));
                if seen.insert(key.clone()) {
                    found = found.or(below);
                } else {
                    found = found.or(Some(key));
                }
            }
            Ok(Walk(found))
        }
    }
    serde_json::from_str::<Walk>(text).ok().and_then(|w| w.0)
}

/// One half (`mg` or `eg`) of a weight entry, as an integer.
fn read_number(v: Option<&Value>, name: &str, half: &str) -> Result<i32, WeightsError> {
    let key = || format!("{name}.{half}");
    let v = v.ok_or_else(|| WeightsError::MissingWeight(key()))?;
    let x = v.as_f64().ok_or_else(|| WeightsError::NotNumeric(key()))?;
    if !x.is_finite() || x.abs() > MAX_WEIGHT as f64 {
        return Err(WeightsError::OutOfRange(key()));
    }
    Ok(x.round() as i32)
}

impl<G: Features> Evaluator<G> for Weights {
    /// The tapered weighted sum of the features, for the side to move.
    #[inline]
    fn evaluate(&self, pos: &G) -> i32 {
        let white = self.score_white(pos);
        match pos.side_to_move() {
            crate::game::Color::White => white,
            crate::game::Color::Black => -white,
        }
    }
}
