// The checks of the `pdn` fuzz target (fuzz/fuzz_targets/pdn.rs, which
// includes this file) on one input, also run on the committed corpus by
// `fuzz_regressions.rs`. Kept free of anything but std, `engine` and
// `selfplay`, so that both can compile it.

/// Records read per input (the reader is streaming; this only bounds time).
const PDN_MAX_RECORDS: usize = 64;

/// Checks that an error is one line.
fn pdn_one_line(e: &str) {
    assert!(
        !e.contains(engine::files::LINE_BREAKS),
        "not one line: {e:?}"
    );
}

/// Replays a record in game `G`: refused in one line, or the replayed
/// moves, written in our notation, replay to the same end.
fn pdn_check_replay<G: engine::Game>(rec: &selfplay::pdn::GameRecord) {
    let r = match selfplay::pdn::replay::<G>(rec) {
        Ok(r) => r,
        Err(e) => {
            pdn_one_line(&e.to_string());
            return;
        }
    };
    assert_eq!(r.moves.len(), rec.moves.len());
    // The replayed moves, written in our notation, replay to the same end.
    let mut p = r.start;
    let mut texts = Vec::new();
    for m in &r.moves {
        texts.push(p.move_text(m));
        p = p.play(m);
    }
    assert_eq!(p, r.end);
    let mut again = rec.clone();
    again.moves = texts;
    let r2 = selfplay::pdn::replay::<G>(&again)
        .unwrap_or_else(|e| panic!("our own notation fails: {e}"));
    assert_eq!(r2.moves, r.moves);
    assert_eq!(r2.end, r.end);
}

/// PDN files (the `pdn` target): arbitrary bytes through the streaming
/// reader; every record that reads writes back as one record that reads
/// back the same and is replayed in its game (both games when it names
/// none); the records' clock tags and time comments are read as `pdn clock`
/// reads them (every figure finite, the counts consistent). Returns how
/// many records read.
pub fn check_pdn(data: &[u8]) -> usize {
    use engine::{bashnya, bushka};
    use selfplay::clock::TimeProfile;
    use selfplay::pdn::PdnReader;
    let mut records = 0;
    let mut profile = TimeProfile::default();
    for rec in PdnReader::new(data).take(PDN_MAX_RECORDS) {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                pdn_one_line(&e.to_string());
                continue;
            }
        };
        records += 1;
        profile.add(&rec);
        // What was read writes back as a record that reads back the same.
        let text = rec.to_pdn();
        let mut again = PdnReader::new(text.as_bytes());
        let back = match again.next() {
            Some(Ok(b)) => b,
            other => panic!("a record read from PDN does not read back: {other:?}\n{text}"),
        };
        assert!(again.next().is_none(), "one record wrote as two:\n{text}");
        assert_eq!(back.to_pdn(), text, "PDN write/read is not a fixed point");
        match rec.game_kind() {
            Some(kind) => engine::with_game!(kind, G => pdn_check_replay::<G>(&rec)),
            None => {
                pdn_check_replay::<bushka::Position>(&rec);
                pdn_check_replay::<bashnya::Position>(&rec);
            }
        }
    }
    assert!(profile.timed <= profile.games && profile.forfeits <= 2 * profile.timed);
    let figures = [
        profile.used,
        profile.allotted,
        profile.max_share,
        profile.share(),
    ];
    assert!(
        figures.iter().all(|f| f.is_finite() && *f >= 0.0),
        "{profile:?}"
    );
    assert!(profile.min_left.is_none_or(f64::is_finite), "{profile:?}");
    // Each side counted once, in one band; no figure of a band negative.
    let sides: u64 = profile.by_length.iter().map(|b| b.sides).sum();
    assert!(sides <= 2 * profile.timed, "{profile:?}");
    for b in &profile.by_length {
        assert_eq!(b.left.len() as u64, b.sides, "{profile:?}");
        let mut figures = vec![b.given, b.used];
        figures.extend(&b.left);
        assert!(
            figures.iter().all(|f| f.is_finite() && *f >= 0.0),
            "{profile:?}"
        );
    }
    let moves = profile.per_move.iter().filter(|m| m.0 > 0).count();
    assert_eq!(profile.csv().lines().count(), 1 + moves);
    records
}
