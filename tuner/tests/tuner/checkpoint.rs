//! Tuning checkpoints from the fuzz corpus (`fuzz/corpus/tune_checkpoint`):
//! each is read back byte for byte or refused in one line, as the fuzz
//! target checks.

use tuner::Checkpoint;

#[test]
fn the_fuzz_corpus_reads_back_or_is_refused_in_one_line() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/tune_checkpoint");
    let mut read = 0;
    let mut refused = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        match Checkpoint::from_bytes(&bytes) {
            Ok(c) => {
                assert_eq!(c.to_bytes(), bytes, "{}", path.display());
                read += 1;
            }
            Err(e) => {
                assert!(!e.contains('\n'), "{}: {e}", path.display());
                refused += 1;
            }
        }
    }
    // The corpus holds a real checkpoint and damaged ones.
    assert!(read >= 1 && refused >= 2, "{read} read, {refused} refused");
}
