//! Engine descriptions: `name=NAME,kind=search,depth=6,...`.

use crate::clock::TimeControl;
use engine::tt::HashSize;
use std::fmt;
use thiserror::Error;

/// What plays the moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Our search with its evaluation (default or a weights file).
    Search,
    /// Our search with a material-only evaluation: a baseline.
    Material,
    /// Uniformly random legal moves (seeded): the weakest baseline.
    Random,
    /// Another program speaking the Hub protocol of `bushka hub`.
    External(String),
}

/// One engine of a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Unique name, used in records and tables.
    pub name: String,
    /// How it plays.
    pub kind: Kind,
    /// Weights file for `kind=search`.
    pub weights: Option<String>,
    /// Evaluation (`eval=auto|features|patterns`) for `kind=search`.
    pub eval: Option<engine::eval::EvalKind>,
    /// Depth limit per move.
    pub depth: Option<u32>,
    /// Node limit per move.
    pub nodes: Option<u64>,
    /// Time per move in milliseconds.
    pub movetime: Option<u64>,
    /// Game clock (`tc=BASE+INC` or `tc=MOVES/BASE+INC`, seconds).
    pub tc: Option<TimeControl>,
    /// Search threads.
    pub threads: usize,
    /// Table size.
    pub hash: HashSize,
}

/// Why an engine description was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SpecError {
    /// A `key=value` item is malformed.
    #[error("engine '{}': expected key=value items separated by commas", engine::files::quoted(.0, 60))]
    Syntax(String),
    /// An unknown key.
    #[error("engine option '{}' is unknown (name, kind, cmd, weights, eval, depth, nodes, movetime, tc, threads, hash)", engine::files::quoted(.0, 60))]
    UnknownKey(String),
    /// A value out of range or of the wrong type.
    #[error("engine option {}={}: {}", engine::files::quoted(.0, 60), engine::files::quoted(.1, 60), .2)]
    BadValue(String, String, std::borrow::Cow<'static, str>),
    /// A time control that does not read (the message of
    /// [`TimeControl`](crate::clock::TimeControl)'s reader, which quotes the
    /// text escaped and cut).
    #[error("engine option tc: {0}")]
    BadTimeControl(String),
    /// No name given.
    #[error("engine '{}' has no name=", engine::files::quoted(.0, 60))]
    NoName(String),
    /// Two engines share a name.
    #[error("two engines are named '{}'", engine::files::quoted(.0, 60))]
    DuplicateName(String),
    /// One key given twice in one engine's description.
    #[error("engine option {}= given twice", engine::files::quoted(.0, 60))]
    Twice(String),
}

/// Splits on commas outside double quotes; quotes are removed.
fn split_items(text: &str) -> Result<Vec<(String, String)>, SpecError> {
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut parts = Vec::new();
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => parts.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if quoted {
        return Err(SpecError::Syntax(text.to_string()));
    }
    parts.push(cur);
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| SpecError::Syntax(text.to_string()))?;
        items.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(items)
}

/// The first key given more than once, if any.
fn twice(items: &[(String, String)]) -> Option<String> {
    items
        .iter()
        .enumerate()
        .find(|(i, (k, _))| items[..*i].iter().any(|(seen, _)| seen == k))
        .map(|(_, (k, _))| k.clone())
}

fn number<T: std::str::FromStr + PartialOrd + fmt::Display>(
    k: &str,
    v: &str,
    min: T,
    max: T,
) -> Result<T, SpecError> {
    match v.parse::<T>() {
        Ok(n) if n >= min && n <= max => Ok(n),
        _ => Err(SpecError::BadValue(
            k.into(),
            v.into(),
            format!("expected a whole number from {min} to {max}").into(),
        )),
    }
}

/// The table size of an engine spec without `hash=`: small, since a
/// tournament holds one table per engine and colour in every game it plays at once.
const SPEC_HASH: HashSize = HashSize::fixed(16);

/// An engine description with `--each`'s items put before it: `each` may
/// not name the engine, and the engine's own items win. An item the engine
/// gives itself is left out of `each`, and so are `kind=` and `cmd=` when
/// the engine gives either (they are one choice: what plays).
pub fn with_each(each: Option<&str>, engine: &str) -> Result<String, String> {
    let Some(each) = each.map(str::trim).filter(|e| !e.is_empty()) else {
        return Ok(engine.to_string());
    };
    let items = split_items(each).map_err(|_| {
        format!(
            "'{}': expected key=value items separated by commas",
            engine::files::quoted(each, 60)
        )
    })?;
    if let Some(k) = twice(&items) {
        return Err(format!(
            "{}: {}= given twice",
            engine::files::quoted(each, 60),
            engine::files::quoted(&k, 60)
        ));
    }
    if items.iter().any(|(k, _)| k == "name") {
        return Err(format!(
            "{}: name= belongs to each --engine",
            engine::files::quoted(each, 60)
        ));
    }
    // A description that does not read is left to its own refusal.
    let own: Vec<String> = split_items(engine)
        .map(|items| items.into_iter().map(|(k, _)| k).collect())
        .unwrap_or_default();
    let what_plays = |k: &str| k == "kind" || k == "cmd";
    let chooses = own.iter().any(|k| what_plays(k));
    let kept: Vec<String> = items
        .into_iter()
        .filter(|(k, _)| !(own.contains(k) || (chooses && what_plays(k))))
        .map(|(k, v)| {
            if v.contains(',') {
                format!("{k}=\"{v}\"")
            } else {
                format!("{k}={v}")
            }
        })
        .collect();
    if kept.is_empty() {
        return Ok(engine.to_string());
    }
    Ok(format!("{},{engine}", kept.join(",")))
}

impl EngineSpec {
    /// What the engine evaluates with, as a short text that changes when
    /// the evaluation does ([`engine::eval::eval_id`]): for `kind=search`
    /// its weights (the embedded ones, or a hash of the file's bytes);
    /// `material`, `random`; `external` (another program: its command is in
    /// the description, its contents are not known).
    pub fn eval_id<G: engine::eval::Patterns>(&self) -> Result<String, String> {
        match &self.kind {
            Kind::Search => {
                engine::eval::eval_id::<G>(self.weights.as_deref(), self.eval.unwrap_or_default())
                    .map_err(|e| format!("engine {}: {e}", self.name))
            }
            Kind::Material => Ok("material".into()),
            Kind::Random => Ok("random".into()),
            Kind::External(_) => Ok("external".into()),
        }
    }

    /// Reads `name=NAME[,kind=...][,cmd="PATH ARGS"][,weights=FILE][,eval=auto|features|patterns][,depth=D][,nodes=N][,movetime=MS][,tc=[MOVES/]BASE[+INC]][,threads=T][,hash=MB]`.
    pub fn parse(text: &str) -> Result<EngineSpec, SpecError> {
        let mut spec = EngineSpec {
            name: String::new(),
            kind: Kind::Search,
            weights: None,
            eval: None,
            depth: None,
            nodes: None,
            movetime: None,
            tc: None,
            threads: 1,
            hash: SPEC_HASH,
        };
        let mut cmd = None;
        let mut kind = None;
        let items = split_items(text)?;
        if let Some(k) = twice(&items) {
            return Err(SpecError::Twice(k));
        }
        for (k, v) in items {
            match k.as_str() {
                // Records keep names on one line, so a name with a control
                // character could not be matched again on a resume.
                "name" if v.chars().any(char::is_control) => {
                    return Err(SpecError::BadValue(
                        k,
                        v,
                        "a name has no control characters".into(),
                    ))
                }
                "name" if !v.is_empty() => spec.name = v,
                "name" => return Err(SpecError::BadValue(k, v, "empty name".into())),
                "kind" => kind = Some(v),
                "cmd" if !v.is_empty() => cmd = Some(v),
                "cmd" => return Err(SpecError::BadValue(k, v, "empty command".into())),
                "weights" => spec.weights = Some(v),
                "eval" => {
                    spec.eval = Some(v.parse().map_err(|_| {
                        SpecError::BadValue(
                            k.clone(),
                            v.clone(),
                            "expected auto, features or patterns".into(),
                        )
                    })?);
                }
                "depth" => spec.depth = Some(number(&k, &v, 1, 100)?),
                "nodes" => spec.nodes = Some(number(&k, &v, 1, u64::MAX)?),
                "movetime" => spec.movetime = Some(number(&k, &v, 1, 86_400_000)?),
                "tc" => spec.tc = Some(v.parse().map_err(SpecError::BadTimeControl)?),
                "threads" => spec.threads = number(&k, &v, 1, 256)?,
                "hash" => {
                    spec.hash = v.parse().map_err(|_| {
                        SpecError::BadValue(
                            k.clone(),
                            v.clone(),
                            "not a whole number of MiB from 1 to half of the memory this process may use"
                                .into(),
                        )
                    })?;
                }
                _ => return Err(SpecError::UnknownKey(k)),
            }
        }
        if spec.name.is_empty() {
            return Err(SpecError::NoName(text.to_string()));
        }
        spec.kind = match (kind.as_deref(), cmd) {
            (Some(k), Some(_)) => {
                return Err(SpecError::BadValue(
                    "kind".into(),
                    k.into(),
                    "a program given by cmd= is its own kind: give one of kind= and cmd=".into(),
                ))
            }
            (None, Some(c)) => Kind::External(c),
            (None | Some("search"), None) => Kind::Search,
            (Some("material"), None) => Kind::Material,
            (Some("random"), None) => Kind::Random,
            (Some(other), None) => {
                return Err(SpecError::BadValue(
                    "kind".into(),
                    other.into(),
                    "expected search, material or random".into(),
                ))
            }
        };
        if spec.depth.is_none()
            && spec.nodes.is_none()
            && spec.movetime.is_none()
            && spec.tc.is_none()
        {
            spec.depth = Some(4);
        }
        Ok(spec)
    }

    /// Checks that names are unique.
    pub fn check_names(specs: &[EngineSpec]) -> Result<(), SpecError> {
        for (i, s) in specs.iter().enumerate() {
            if specs[..i].iter().any(|o| o.name == s.name) {
                return Err(SpecError::DuplicateName(s.name.clone()));
            }
        }
        Ok(())
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Values with a comma are quoted so that the text reads back.
        let value = |v: &str| {
            if v.contains(',') {
                format!("\"{v}\"")
            } else {
                v.to_string()
            }
        };
        write!(f, "name={}", value(&self.name))?;
        match &self.kind {
            Kind::Search => write!(f, ",kind=search")?,
            Kind::Material => write!(f, ",kind=material")?,
            Kind::Random => write!(f, ",kind=random")?,
            Kind::External(c) => write!(f, ",cmd=\"{c}\"")?,
        }
        if let Some(w) = &self.weights {
            write!(f, ",weights={}", value(w))?;
        }
        if let Some(e) = self.eval {
            write!(f, ",eval={}", e.name())?;
        }
        if let Some(d) = self.depth {
            write!(f, ",depth={d}")?;
        }
        if let Some(n) = self.nodes {
            write!(f, ",nodes={n}")?;
        }
        if let Some(m) = self.movetime {
            write!(f, ",movetime={m}")?;
        }
        if let Some(tc) = self.tc {
            write!(f, ",tc={tc}")?;
        }
        write!(f, ",threads={},hash={}", self.threads, self.hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_option() {
        let s = EngineSpec::parse("name=a,kind=material,depth=3,threads=2,hash=8").unwrap();
        assert_eq!(
            (s.kind, s.depth, s.threads, s.hash.get()),
            (Kind::Material, Some(3), 2, 8)
        );
        let s = EngineSpec::parse(r#"name=ext,cmd="./bushka hub --x",movetime=50"#).unwrap();
        assert_eq!(s.kind, Kind::External("./bushka hub --x".into()));
        assert_eq!(s.movetime, Some(50));
        let s = EngineSpec::parse("name=r,kind=random").unwrap();
        assert_eq!(s.kind, Kind::Random);
        let s = EngineSpec::parse("name=c,tc=40/60+0.6").unwrap();
        assert_eq!(
            (s.depth, s.tc.unwrap().to_string()),
            (None, "40/60+0.6".into())
        );
        assert!(s.to_string().contains(",tc=40/60+0.6"));
    }

    #[test]
    fn every_description_reads_back_from_its_text() {
        // The text is what a run records and what its shards and merges read.
        for text in [
            "name=a",
            "name=m,kind=material,depth=3,threads=2,hash=8",
            "name=r,kind=random",
            r#"name=ext,cmd="./bushka hub --x",movetime=50"#,
            r#"name="a,b",weights="w,1.json",eval=patterns,tc=40/60+0.6"#,
            r#"name=p,cmd="engine --opt=1,2",tc=10+0.1"#,
        ] {
            let spec = EngineSpec::parse(text).unwrap();
            let again = EngineSpec::parse(&spec.to_string())
                .unwrap_or_else(|e| panic!("{text} -> {spec}: {e}"));
            assert_eq!(again, spec, "{text} -> {spec}");
        }
    }

    #[test]
    fn refuses_bad_descriptions() {
        for bad in [
            "",
            "kind=search",
            "name=a,depth=0",
            "name=a,depth=x",
            "name=a,speed=3",
            "name=a,kind=alien",
            "name=a,kind=random,cmd=x",
            "name=a,kind=search,cmd=x",
            "name=a,cmd=\"x",
            "name=a,noequals",
            "name=a,tc=0",
            "name=a,tc=10+x",
            "name=",
            // Text with control characters is named escaped, in one line.
            "\r",
            "name=a,sp\reed=3",
            "name=a,depth=\n",
            "name=a,x\u{2028}",
            "name=a\rb",
            "name=\u{1b}[31m",
        ] {
            let e = EngineSpec::parse(bad).unwrap_err().to_string();
            assert!(!e.contains(['\n', '\r', '\u{2028}']), "{bad:?}: {e:?}");
        }
        // A time control's refusal keeps its whole reason.
        let e = EngineSpec::parse("name=a,tc=abc").unwrap_err().to_string();
        assert!(
            e.ends_with(
                "the base must be a positive number of seconds up to a day, in whole milliseconds"
            ),
            "{e}"
        );
        let specs = [
            EngineSpec::parse("name=a").unwrap(),
            EngineSpec::parse("name=a").unwrap(),
        ];
        assert!(EngineSpec::check_names(&specs).is_err());
    }
}
