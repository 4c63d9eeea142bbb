// The checks of the `shard` fuzz target (fuzz/fuzz_targets/shard.rs, which
// includes this file) on one input, also run on the committed corpus by
// `fuzz_regressions.rs`. Kept free of anything but std, `selfplay` and
// `serde_json`, so that both can compile it.

/// The texts the sharding and the cluster driver read, from one input: a
/// shard `K/N` on each line (accepted ones write back the same and cover
/// their run's pairs in order), `squeue` and `sbatch` answers, a summary's
/// `run` member, the cluster driver's state file (a state read writes back
/// the same), and the split of a PDN text into complete games (a prefix of
/// the input, in order). Every refusal is one line. Returns how many lines
/// read as a shard.
pub fn check_shard_texts(data: &[u8]) -> usize {
    use selfplay::cluster::{parse_sbatch, parse_squeue, State};
    use selfplay::output::complete_games;
    use selfplay::shard::{RunInfo, Shard};
    let one_line = |e: &str| {
        assert!(
            !e.contains(engine::files::LINE_BREAKS),
            "not one line: {e:?}"
        );
    };
    let Ok(text) = std::str::from_utf8(data) else {
        return 0;
    };
    let mut shards = 0;
    for line in text.lines().take(64) {
        if let Ok(s) = line.parse::<Shard>() {
            shards += 1;
            assert!(1 <= s.index && s.index <= s.count);
            assert_eq!(s.to_string().parse::<Shard>(), Ok(s));
            for pairs in [s.count.saturating_add(line.len()), usize::MAX] {
                let r = s.pairs(pairs);
                assert!(r.start <= r.end && r.end <= pairs);
            }
        }
    }
    for (task, _) in parse_squeue(text) {
        assert!(task.to_string().len() <= text.len());
    }
    if let Err(e) = parse_sbatch(text) {
        one_line(&e);
    }
    if let Ok(run) = serde_json::from_str::<RunInfo>(text) {
        let again = serde_json::to_string(&run).expect("writes");
        let back: RunInfo = serde_json::from_str(&again).expect("reads back");
        assert_eq!(back, run);
    }
    for (run, shards) in [("0123456789abcdef", 4), ("", 1)] {
        match State::parse(text, run, shards) {
            Ok(state) => assert_eq!(State::parse(&state.to_json(), run, shards), Ok(state)),
            Err(e) => one_line(&e),
        }
    }
    let games = complete_games(text);
    let joined: String = games.concat();
    assert!(
        text.starts_with(&joined),
        "complete games are a prefix, in order"
    );
    shards
}
