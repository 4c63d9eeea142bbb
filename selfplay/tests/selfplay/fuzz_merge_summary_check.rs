// The checks of the `merge_summary` fuzz target
// (fuzz/fuzz_targets/merge_summary.rs, which includes this file) on one
// input, also run on the committed corpus by `fuzz_regressions.rs`. Kept
// free of anything but std and `selfplay`, so that both can compile it.

/// Reads `input`, written to `path`, as a shard's summary the way
/// `selfplay merge` does (`selfplay::merge::read_part`), then checks the
/// shards it gives the way a merge does (`selfplay::merge::check`). A
/// refusal is one line. An accepted summary has a 16-hex-digit run id that
/// its own options give, is a shard of its run, and names a PDN file; the
/// same shard given twice is refused, and given alone it is a partial set
/// missing exactly the other shards (or, when it is the only shard, the
/// whole set). The file is left as it was. Returns whether the summary was
/// accepted.
pub fn check_merge_summary(input: &[u8], path: &std::path::Path) -> bool {
    use selfplay::merge::{check, read_part};
    let one_line = |e: &str| {
        assert!(
            !e.contains(engine::files::LINE_BREAKS),
            "not one line: {e:?}"
        );
    };
    std::fs::write(path, input).expect("temporary file");
    let read = read_part(path);
    assert_eq!(
        std::fs::read(path).expect("read back"),
        input,
        "reading changed the summary"
    );
    let _ = std::fs::remove_file(path);
    let part = match read {
        Err(e) => {
            one_line(&e);
            return false;
        }
        Ok(part) => part,
    };
    let id = &part.run.id;
    assert!(id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(&part.run.options.id(), id, "the options give the id");
    assert_eq!(part.run.shard, Some(part.shard));
    assert!(1 <= part.shard.index && part.shard.index <= part.shard.count);
    match check(vec![part.clone(), part.clone()], true) {
        Ok(_) => panic!("shard {} given twice was accepted", part.shard),
        Err(e) => {
            one_line(&e);
            assert!(e.contains("given twice"), "{e}");
        }
    }
    match check(vec![part.clone()], true) {
        Ok(set) => {
            assert_eq!(set.parts.len(), 1);
            assert_eq!(set.missing.len(), part.shard.count - 1);
            assert!(set.missing.iter().all(|s| *s != part.shard));
        }
        Err(e) => panic!("a lone shard {} was refused: {e}", part.shard),
    }
    match check(vec![part.clone()], false) {
        Ok(set) => assert_eq!(part.shard.count, 1, "{} missing", set.missing.len()),
        Err(e) => {
            one_line(&e);
            assert!(part.shard.count > 1, "{e}");
            // Ten missing shards are named, then how many more.
            let more = (part.shard.count - 1).saturating_sub(10);
            assert_eq!(e.contains(&format!("and {more} more")), more > 0, "{e}");
        }
    }
    true
}
