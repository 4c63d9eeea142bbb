// The checks of the `tuner_data` fuzz target (fuzz/fuzz_targets/tuner_data.rs,
// which includes this file) on one input, also run on the committed corpus
// by `fuzz_corpus.rs`. Kept free of anything but std, `engine` and `tuner`,
// so that both can compile it.

/// Training-data lines as the tuner reads them: `DataLine::parse` on every
/// line (what it accepts writes back and reads back the same; a refusal is
/// one line), then the streaming loader of both games over the whole input,
/// skipping and resolving capture-pending positions: every data line counted
/// once in its report, every bad line and refusal reported in one line.
/// Returns how many lines `DataLine::parse` accepted.
pub fn check_tuner_data(data: &[u8]) -> usize {
    use engine::data::DataLine;
    use engine::eval::Material;
    use engine::{bashnya, bushka};
    use std::sync::Arc;
    use tuner::Loader;
    let one_line = |e: &str| {
        assert!(
            !e.contains(engine::files::LINE_BREAKS),
            "not one line: {e:?}"
        );
    };
    let mut read = 0;
    if let Ok(text) = std::str::from_utf8(data) {
        for line in text.lines().take(256) {
            let d = match DataLine::parse(line) {
                Ok(d) => d,
                Err(e) => {
                    one_line(&e);
                    continue;
                }
            };
            read += 1;
            assert!(d.result == 0.0 || d.result == 0.5 || d.result == 1.0);
            let again = d.to_string();
            let back = DataLine::parse(&again).unwrap_or_else(|e| panic!("{again:?}: {e}"));
            assert_eq!(back, d, "data line round trip");
        }
    }
    // Each loader's count of data lines is the input's lines less the blank
    // ones and comments (a line too long for the reader is one bad line),
    // and every line counted is accounted for once: bad, skipped, merged
    // into an earlier copy, or a position of one of the two sets.
    let counted = data
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| {
            let content = l.len() - usize::from(l.ends_with(b"\n"));
            content as u64 > tuner::load::MAX_LINE
                || std::str::from_utf8(l).map_or(true, |t| {
                    let t = t.trim();
                    !t.is_empty() && !t.starts_with('#')
                })
        })
        .count() as u64;
    let check = |report: Option<&tuner::LoadReport>, resolving: bool, validation: f64| {
        let Some(r) = report else { return };
        assert_eq!(r.lines, counted, "data lines counted");
        let positions = (r.train + r.validation) as u64;
        assert_eq!(
            r.bad + r.non_quiet + r.terminal + r.duplicates + positions,
            r.lines,
            "every line accounted for: {r:?}"
        );
        assert_eq!(
            r.bad_examples.len() as u64,
            r.bad.min(tuner::load::BAD_EXAMPLES as u64)
        );
        for b in &r.bad_examples {
            one_line(&b.to_string());
        }
        if !resolving {
            assert_eq!(r.resolved, 0, "resolved without a resolver");
        }
        assert!(r.resolved <= positions + r.duplicates, "{r:?}");
        if validation == 0.0 {
            assert_eq!(r.validation, 0, "a validation set of no share");
        }
    };
    // A load with no position to fit is refused in one line.
    let done = |result: Result<tuner::Loaded, tuner::TuneError>| match result {
        Ok(l) => Some(l.report),
        Err(e) => {
            one_line(&e.to_string());
            None
        }
    };
    let mut a = Loader::<bushka::Position>::new();
    a.add_reader("fuzz", data).expect("reading a slice");
    check(done(a.finish(0.25)).as_ref(), false, 0.25);
    let mut b = Loader::<bashnya::Position>::new();
    b.add_reader("fuzz", data).expect("reading a slice");
    check(done(b.finish(0.0)).as_ref(), false, 0.0);
    let material = || Arc::new(Material::default());
    let mut c = Loader::<bushka::Position>::resolving(material());
    c.add_reader("fuzz", data).expect("reading a slice");
    check(done(c.finish(0.0)).as_ref(), true, 0.0);
    let mut d = Loader::<bashnya::Position>::resolving(material());
    d.add_reader("fuzz", data).expect("reading a slice");
    check(done(d.finish(0.0)).as_ref(), true, 0.0);
    // The pattern loader (`tune --eval patterns`): each position's pattern
    // indices stored beside its features.
    let mut e = Loader::<bushka::Position>::new().with_patterns();
    e.add_reader("fuzz", data).expect("reading a slice");
    check(done(e.finish(0.25)).as_ref(), false, 0.25);
    let mut f = Loader::<bashnya::Position>::resolving(material()).with_patterns();
    f.add_reader("fuzz", data).expect("reading a slice");
    check(done(f.finish(0.0)).as_ref(), true, 0.0);
    read
}
