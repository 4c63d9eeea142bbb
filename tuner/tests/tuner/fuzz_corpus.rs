//! The `tuner_data` fuzz target's corpus (`fuzz/corpus/tuner_data`) through
//! the target's own checks (`fuzz_tuner_data_check.rs`, which the target
//! includes).

#[test]
fn tuner_data_corpus() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/tuner_data");
    let (mut inputs, mut lines) = (0, 0);
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let r = std::panic::catch_unwind(|| super::fuzz_tuner_data_check::check_tuner_data(&data));
        match r {
            Ok(n) => lines += n,
            Err(_) => panic!("fuzz input {} fails", path.display()),
        }
        inputs += 1;
    }
    // The seeds hold real training data of both games.
    assert!(
        inputs >= 100 && lines >= 100,
        "{inputs} inputs, {lines} lines read"
    );
}
