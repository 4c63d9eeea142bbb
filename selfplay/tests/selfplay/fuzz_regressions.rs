//! Inputs found by the fuzz targets in `fuzz/` (scripts/fuzz.sh), kept as
//! tests once fixed. Each test names its target and what went wrong.

use selfplay::pdn::{GameRecord, PdnError, PdnReader};

fn read_all(text: &str) -> Vec<Result<GameRecord, PdnError>> {
    PdnReader::new(text.as_bytes()).collect()
}

/// The `pdn` target's invariant: every record that reads writes back as one
/// record that reads back to the same text.
fn assert_round_trips(text: &str) {
    for rec in read_all(text).into_iter().flatten() {
        let written = rec.to_pdn();
        let again = read_all(&written);
        assert_eq!(
            again.len(),
            1,
            "one record wrote as {}:\n{written}",
            again.len()
        );
        match &again[0] {
            Ok(back) => assert_eq!(back.to_pdn(), written),
            Err(e) => panic!("a record read from PDN does not read back: {e}\n{written}"),
        }
    }
}

/// fuzz target `pdn`: a move number glued to something that is not a move
/// (`10.5:c7:a5`) was read as the move `5:c7:a5`, which the writer then wrote
/// as a separate token that reads as a broken result.
#[test]
fn pdn_glued_move_number_then_digit() {
    let text = "[GameType \"bushka\"]\n\n1. e12 10.5:c7:a5 b8-a7 1-0\n";
    assert_round_trips(text);
    let read = read_all(text);
    assert!(
        matches!(read[0], Err(PdnError::Unexpected { ref text, .. }) if text == "10.5:c7:a5"),
        "{read:?}"
    );
    // Glued results and NAGs are refused the same way; glued moves still read.
    for bad in [
        "1. 12.1-0 1-0",
        "1. 12.$5 1-0",
        "1. 12.(x) 1-0",
        "1. 3.4.e3 1-0",
    ] {
        assert_round_trips(bad);
        assert!(read_all(bad)[0].is_err(), "{bad}");
    }
    let ok = read_all("1. 12.f45! 13...gf5 1-0");
    let moves = ok[0].as_ref().map(|r| r.moves.clone()).ok();
    assert_eq!(moves, Some(vec!["f45".to_string(), "gf5".to_string()]));
    assert_round_trips("1. 12.f45! 13...gf5 1-0");
}

/// Runs `check` on every input kept for fuzz target `target` (in name
/// order), naming the input that fails; returns how many there are.
fn each_input(target: &str, mut check: impl FnMut(&[u8])) -> usize {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    files.sort();
    for path in &files {
        let data = std::fs::read(path).expect("a corpus file");
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&data)));
        assert!(r.is_ok(), "fuzz input {} fails", path.display());
    }
    files.len()
}

/// The `pdn` target's corpus (`fuzz/corpus/pdn`) through the target's own
/// checks (`fuzz_pdn_check.rs`, which the target includes): every record
/// read writes back as one record that reads back the same, replays (or is
/// refused in one line) in its game, and gives finite clock figures.
#[test]
fn the_pdn_fuzz_corpus_reads_writes_back_and_replays() {
    let mut records = 0;
    let files = each_input("pdn", |data| {
        records += super::fuzz_pdn_check::check_pdn(data);
    });
    assert!(
        files > 100 && records > 100,
        "{files} inputs, {records} records"
    );
}

/// The `pdn_resume` target's corpus (`fuzz/corpus/pdn_resume`) through the
/// target's own checks (`fuzz_pdn_resume_check.rs`, which the target
/// includes): the PDN file `--resume` finds is cut to its whole games, or
/// refused in one line and left as it was.
#[test]
fn pdn_resume_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.pdn");
    let (mut accepted, mut refused) = (0, 0);
    each_input(
        "pdn_resume",
        |input| match super::fuzz_pdn_resume_check::check_pdn_resume(input, &path) {
            Some(true) => accepted += 1,
            Some(false) => refused += 1,
            None => {}
        },
    );
    // The seeds: a torn record, zero bytes and blank space are cut; notes
    // after the games, and a game the caller refuses, are not.
    assert!(
        accepted >= 3 && refused >= 2,
        "{accepted} accepted, {refused} refused"
    );
}

/// The `data` target's corpus (`fuzz/corpus/data`) through the target's
/// own checks (`fuzz_data_check.rs`, which the target includes): the
/// `--resume` path of a training-data file keeps only whole lines of
/// finished games, or refuses in one line and changes nothing.
#[test]
fn data_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.data");
    let inputs = each_input("data", |data| {
        super::fuzz_data_check::check_data_file(data, &path);
    });
    assert!(inputs >= 100, "{inputs} inputs");
}

/// The `shard` target's corpus (`fuzz/corpus/shard`) through the target's
/// own checks (`fuzz_shard_check.rs`, which the target includes): shards,
/// queue and submission answers, run members, cluster states and complete
/// games read as the cluster driver reads them.
#[test]
fn shard_corpus() {
    let mut shards = 0;
    let inputs = each_input("shard", |data| {
        shards += super::fuzz_shard_check::check_shard_texts(data);
    });
    assert!(
        inputs >= 4 && shards >= 3,
        "{inputs} inputs, {shards} shards"
    );
}

/// The `merge_summary` target's corpus (`fuzz/corpus/merge_summary`)
/// through the target's own checks (`fuzz_merge_summary_check.rs`, which
/// the target includes): a shard's summary is read and its shards checked
/// as a merge does, or refused in one line.
#[test]
fn merge_summary_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("summary.json");
    let (mut accepted, mut refused) = (0, 0);
    each_input("merge_summary", |input| {
        if super::fuzz_merge_summary_check::check_merge_summary(input, &path) {
            accepted += 1;
        } else {
            refused += 1;
        }
    });
    // The seeds: shards 1/12 and 2/2 of real runs are read; a whole run's
    // summary, a changed id, a shard out of range, a torn file and a PDN
    // are not.
    assert!(
        accepted >= 2 && refused >= 5,
        "{accepted} accepted, {refused} refused"
    );
}

/// The `specs` target's corpus (`fuzz/corpus/specs`) through the target's
/// own checks (`fuzz_specs_check.rs`, which the target includes): the
/// command line's short texts and an external engine's values read back
/// the same or are refused in one line.
#[test]
fn specs_corpus() {
    let mut specs = 0;
    let inputs = each_input("specs", |data| {
        specs += super::fuzz_specs_check::check_specs_texts(data);
    });
    assert!(
        inputs >= 4 && specs >= 3,
        "{inputs} inputs, {specs} engine descriptions"
    );
}
