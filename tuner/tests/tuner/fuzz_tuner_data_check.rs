// The checks of the `tuner_data` fuzz target (fuzz/fuzz_targets/tuner_data.rs,
// which includes this file) on one input, also run on the committed corpus
// by `fuzz_corpus.rs`. Kept free of anything but std, `engine` and `tuner`,
// so that both can compile it.

/// Training-data lines as the tuner reads them: `DataLine::parse` on every
/// line (what it accepts writes back and reads back the same; a refusal is
/// one line), then the streaming loader of both games over the whole input,
/// skipping and resolving capture-pending positions (every skipped line
/// reported in one line). Returns how many lines `DataLine::parse` accepted.
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
    let mut a = Loader::<bushka::Position>::new();
    a.add_reader("fuzz", data).expect("reading a slice");
    if let Ok(l) = a.finish(0.25) {
        for b in &l.report.bad_examples {
            one_line(&b.to_string());
        }
    }
    let mut b = Loader::<bashnya::Position>::new();
    b.add_reader("fuzz", data).expect("reading a slice");
    let _ = b.finish(0.0);
    let material = || Arc::new(Material::default());
    let mut c = Loader::<bushka::Position>::resolving(material());
    c.add_reader("fuzz", data).expect("reading a slice");
    let _ = c.finish(0.0);
    let mut d = Loader::<bashnya::Position>::resolving(material());
    d.add_reader("fuzz", data).expect("reading a slice");
    let _ = d.finish(0.0);
    // The pattern loader (`tune --eval patterns`): each position's pattern
    // indices stored beside its features.
    let mut e = Loader::<bushka::Position>::new().with_patterns();
    e.add_reader("fuzz", data).expect("reading a slice");
    let _ = e.finish(0.25);
    let mut f = Loader::<bashnya::Position>::resolving(material()).with_patterns();
    f.add_reader("fuzz", data).expect("reading a slice");
    let _ = f.finish(0.0);
    read
}
