//! Weights files: the compiled-in defaults, the JSON round trip, the atomic
//! save, and every way a file is refused (each message naming the key).

use engine::eval::weights::{names_of, FORMAT_VERSION, MAX_WEIGHT};
use engine::eval::{Weights, WeightsError};
use engine::GameKind;
use serde_json::{json, Value};

const KINDS: [GameKind; 2] = [GameKind::Bushka, GameKind::Bashnya];

fn default_json(kind: GameKind) -> Value {
    serde_json::from_str(&Weights::default_for(kind).to_json()).unwrap()
}

/// Edits the default file of `kind` and reads it back.
fn edited(kind: GameKind, edit: impl FnOnce(&mut Value)) -> Result<Weights, WeightsError> {
    let mut v = default_json(kind);
    edit(&mut v);
    Weights::from_json(kind, &v.to_string())
}

/// The error of an edited file, with its one-line message.
fn refused(kind: GameKind, edit: impl FnOnce(&mut Value)) -> (WeightsError, String) {
    let e = edited(kind, edit).expect_err("must be refused");
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "{msg}");
    (e, msg)
}

#[test]
fn defaults_are_complete_and_not_material() {
    for kind in KINDS {
        let text = match kind {
            GameKind::Bushka => include_str!("../../../data/weights/bushka.json"),
            GameKind::Bashnya => include_str!("../../../data/weights/bashnya.json"),
        };
        let w = Weights::from_json(kind, text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(w, Weights::default_for(kind));
        assert_ne!(w, Weights::material(kind));
        assert_eq!(w.kind(), kind);
        assert_eq!(w.names(), names_of(kind));
        assert_eq!(w.mg().len(), w.names().len());
        assert_eq!(w.eg().len(), w.names().len());
        // A man is worth 100 at default weights.
        let man = if kind == GameKind::Bushka {
            "man"
        } else {
            "man_columns"
        };
        assert_eq!(w.weight(man), Some((100, 100)));
        assert_eq!(w.weight("no_such_feature"), None);
        // The file on disk is exactly what to_json writes.
        assert_eq!(w.to_json(), text);
    }
}

#[test]
fn json_round_trip() {
    for kind in KINDS {
        let mut w = Weights::default_for(kind);
        let names = w.names();
        for (i, name) in names.iter().enumerate() {
            assert!(w.set_weight(name, i as i32 * 7 - 100, -(i as i32) * 3));
        }
        assert!(!w.set_weight("nope", 1, 1));
        assert!(!w.set_weight(names[0], MAX_WEIGHT + 1, 0));
        let back = Weights::from_json(kind, &w.to_json()).unwrap();
        assert_eq!(back, w);
        // As saved by an editor that starts files with a byte order mark.
        let marked = format!("\u{feff}{}", w.to_json());
        assert_eq!(Weights::from_json(kind, &marked).unwrap(), w);
        let v = Weights::from_vectors(kind, w.mg().to_vec(), w.eg().to_vec()).unwrap();
        assert_eq!(v, w);
    }
}

#[test]
fn save_is_atomic_and_loads_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for kind in KINDS {
        let path = dir.join(format!("{}.json", kind.name()));
        let mut w = Weights::default_for(kind);
        w.set_weight(w.names()[3], 42, -42);
        w.save(&path).unwrap();
        assert_eq!(Weights::load(kind, &path).unwrap(), w);
        // Overwriting replaces the file whole; no temporary is left behind.
        Weights::material(kind).save(&path).unwrap();
        assert_eq!(Weights::load(kind, &path).unwrap(), Weights::material(kind));
        let other = if kind == GameKind::Bushka {
            GameKind::Bashnya
        } else {
            GameKind::Bushka
        };
        let e = Weights::load(other, &path).unwrap_err();
        assert!(matches!(e, WeightsError::WrongGame { .. }), "{e}");
    }
    let left: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    assert_eq!(left.len(), 2, "{left:?}");
    let e = Weights::load(GameKind::Bushka, &dir.join("missing.json")).unwrap_err();
    assert!(matches!(e, WeightsError::Io { .. }), "{e}");
    assert!(e.to_string().contains("missing.json"));
    // Saving into a directory that does not exist fails cleanly.
    let e = Weights::default_for(GameKind::Bushka)
        .save(&dir.join("no/such/dir/w.json"))
        .unwrap_err();
    assert!(matches!(e, WeightsError::Io { .. }), "{e}");
}

#[test]
fn refuses_missing_weight() {
    for kind in KINDS {
        let (e, msg) = refused(kind, |v| {
            v["weights"].as_object_mut().unwrap().remove("tempo");
        });
        assert!(
            matches!(e, WeightsError::MissingWeight(ref k) if k == "tempo"),
            "{e}"
        );
        assert!(msg.contains("'tempo'"), "{msg}");
        let (e, msg) = refused(kind, |v| {
            v["weights"]["tempo"].as_object_mut().unwrap().remove("eg");
        });
        assert!(matches!(e, WeightsError::MissingWeight(_)), "{e}");
        assert!(msg.contains("'tempo.eg'"), "{msg}");
    }
}

#[test]
fn refuses_unknown_weight() {
    for kind in KINDS {
        let (e, msg) = refused(kind, |v| {
            v["weights"]["bogus"] = json!({"mg": 1, "eg": 2});
        });
        assert!(matches!(e, WeightsError::UnknownWeight(_)), "{e}");
        assert!(msg.contains("'bogus'"), "{msg}");
        let (_, msg) = refused(kind, |v| {
            v["weights"]["tempo"]["middle"] = json!(3);
        });
        assert!(msg.contains("'tempo.middle'"), "{msg}");
        // A key with a line break in it is shown escaped: still one line.
        let (_, msg) = refused(kind, |v| {
            v["weights"]["a\nb"] = json!({"mg": 1, "eg": 2});
        });
        assert!(msg.contains(r"'a\nb'"), "{msg}");
        let (_, msg) = refused(kind, |v| {
            v["x\ny"] = json!(1);
        });
        assert!(msg.contains(r"'x\ny'"), "{msg}");
    }
}

#[test]
fn refuses_non_numeric_weight() {
    for kind in KINDS {
        for bad in [json!("12"), json!(null), json!(true), json!([1, 2])] {
            let (e, msg) = refused(kind, |v| v["weights"]["tempo"]["mg"] = bad.clone());
            assert!(matches!(e, WeightsError::NotNumeric(_)), "{e}");
            assert!(msg.contains("'tempo.mg'"), "{msg}");
        }
        let (e, msg) = refused(kind, |v| v["weights"]["tempo"] = json!(5));
        assert!(matches!(e, WeightsError::NotAPair(_)), "{e}");
        assert!(
            msg.contains("'tempo' is not an object {\"mg\": ..., \"eg\": ...}"),
            "{msg}"
        );
        let (e, msg) = refused(kind, |v| v["weights"]["tempo"]["eg"] = json!(1e12));
        assert!(matches!(e, WeightsError::OutOfRange(_)), "{e}");
        assert!(msg.contains("'tempo.eg'"), "{msg}");
        // Fractions are rounded to whole centi-men.
        let w = edited(kind, |v| v["weights"]["tempo"]["eg"] = json!(2.6)).unwrap();
        assert_eq!(w.weight("tempo").map(|t| t.1), Some(3));
    }
}

/// A key given twice is refused, at the top and in the weights, whichever
/// value would have counted.
#[test]
fn refuses_a_key_given_twice() {
    for kind in KINDS {
        let text = Weights::default_for(kind).to_json();
        assert!(Weights::from_json(kind, &text).is_ok());
        let first_eg = format!("weights.{}.eg", names_of(kind)[0]);
        for (from, to, key) in [
            (
                "\"weights\": {",
                "\"weights\": { \"tempo\": { \"mg\": 1, \"eg\": 1 },",
                "weights.tempo",
            ),
            ("{", "{ \"format\": 1,", "format"),
            ("\"mg\":", "\"eg\": 0, \"mg\":", first_eg.as_str()),
        ] {
            let twice = text.replacen(from, to, 1);
            assert_ne!(twice, text);
            let e = Weights::from_json(kind, &twice).unwrap_err();
            assert!(matches!(e, WeightsError::DuplicateKey(_)), "{e}");
            assert_eq!(
                e.to_string(),
                format!("weights file: key '{key}' is given twice")
            );
        }
        // A long key is named cut.
        let long = "k".repeat(10_000);
        let twice = text.replacen('{', &format!("{{ \"{long}\": 1, \"{long}\": 2,"), 1);
        let msg = Weights::from_json(kind, &twice).unwrap_err().to_string();
        assert!(msg.len() < 120 && msg.contains("kkk..."), "{msg}");
    }
}

#[test]
fn refuses_other_game_version_and_shape() {
    for kind in KINDS {
        let (e, msg) = refused(kind, |v| v["game"] = json!("chess"));
        assert!(matches!(e, WeightsError::WrongGame { .. }), "{e}");
        assert!(msg.contains("'game'") && msg.contains("chess"), "{msg}");
        let (e, msg) = refused(kind, |v| v["format"] = json!(FORMAT_VERSION + 1));
        assert!(matches!(e, WeightsError::Version { .. }), "{e}");
        assert!(msg.contains("version 2"), "{msg}");
        let (e, _) = refused(kind, |v| v["format"] = json!("1"));
        assert!(matches!(e, WeightsError::Version { .. }), "{e}");
        // A whole number written with a fraction is that number.
        assert!(edited(kind, |v| v["format"] = json!(1.0)).is_ok());
        let (e, _) = refused(kind, |v| v["format"] = json!(1.5));
        assert!(matches!(e, WeightsError::Version { .. }), "{e}");
        // What the file gave is cut, not echoed whole.
        let (_, msg) = refused(kind, |v| v["format"] = json!("x".repeat(10_000)));
        assert!(msg.len() < 200 && msg.contains("xxx..."), "{msg}");
        for key in ["game", "format", "weights"] {
            let (e, msg) = refused(kind, |v| {
                v.as_object_mut().unwrap().remove(key);
            });
            assert!(matches!(e, WeightsError::MissingKey(_)), "{e}");
            assert!(msg.contains(&format!("'{key}'")), "{msg}");
        }
        let (e, msg) = refused(kind, |v| v["comment"] = json!("hi"));
        assert!(matches!(e, WeightsError::UnknownKey(_)), "{e}");
        assert!(msg.contains("'comment'"), "{msg}");
        let (e, msg) = refused(kind, |v| v["game"] = json!(7));
        assert!(matches!(e, WeightsError::BadKey(..)), "{e}");
        assert!(msg.contains("'game'"), "{msg}");
        let (e, msg) = refused(kind, |v| v["weights"] = json!([1, 2]));
        assert!(matches!(e, WeightsError::BadKey(..)), "{e}");
        assert!(msg.contains("'weights'"), "{msg}");
    }
    // The other game's defaults are refused as such.
    let other = Weights::default_for(GameKind::Bashnya).to_json();
    let e = Weights::from_json(GameKind::Bushka, &other).unwrap_err();
    assert!(matches!(e, WeightsError::WrongGame { .. }), "{e}");
    for text in ["", "{", "[1]", "null", "{\"game\": \"bushka\",}"] {
        let e = Weights::from_json(GameKind::Bushka, text).unwrap_err();
        assert!(matches!(e, WeightsError::Json(_)), "{text}: {e}");
        assert!(!e.to_string().contains('\n'));
    }
}

#[test]
fn from_vectors_checks_lengths_and_range() {
    let n = names_of(GameKind::Bushka).len();
    let e = Weights::from_vectors(GameKind::Bushka, vec![0; n - 1], vec![0; n]).unwrap_err();
    assert!(matches!(e, WeightsError::Length { .. }), "{e}");
    let mut big = vec![0; n];
    big[1] = MAX_WEIGHT + 1;
    let e = Weights::from_vectors(GameKind::Bushka, vec![0; n], big).unwrap_err();
    assert!(e.to_string().contains("'king.eg'"), "{e}");
    assert!(Weights::from_vectors(GameKind::Bushka, vec![0; n], vec![0; n]).is_ok());
}

#[test]
fn weights_option_values() {
    use engine::bushka::Position;
    use engine::eval::{EvalSource, Evaluator};
    let p = <Position as engine::Game>::parse_position("W:We1,e2,e3:Be9").unwrap();
    let material = Position::load_eval("material").unwrap();
    assert_eq!(material.evaluate(&p), 200);
    // `default` is the game's default evaluation: Bushka's adopted patterns.
    let default = Position::load_eval("default").unwrap();
    assert_eq!(default.evaluate(&p), Position::default_eval().evaluate(&p));
    let features =
        Position::select_eval(Some("default"), engine::eval::EvalKind::Features).unwrap();
    assert_eq!(
        features.evaluate(&p),
        Weights::default_for(GameKind::Bushka).evaluate(&p)
    );
    let e = Position::load_eval("/no/such/weights.json").err().unwrap();
    assert!(e.contains("/no/such/weights.json"), "{e}");
}
