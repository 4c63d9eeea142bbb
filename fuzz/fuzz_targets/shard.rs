//! The texts the sharding and the cluster driver read: a shard `K/N`
//! (accepted ones write back the same and cover their run's pairs in
//! order), `squeue` and `sbatch` answers, a summary's `run` member, and the
//! split of a PDN text into complete games (each piece is a prefix-free cut
//! of the input, in order), and the cluster driver's state file (a state
//! read writes back the same).
#![no_main]

use libfuzzer_sys::fuzz_target;
use selfplay::cluster::{parse_sbatch, parse_squeue, State};
use selfplay::output::complete_games;
use selfplay::shard::{RunInfo, Shard};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for line in text.lines().take(64) {
        if let Ok(s) = line.parse::<Shard>() {
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
        fuzz_support::assert_one_line(&e.to_string());
    }
    if let Ok(run) = serde_json::from_str::<RunInfo>(text) {
        let again = serde_json::to_string(&run).expect("writes");
        let back: RunInfo = serde_json::from_str(&again).expect("reads back");
        assert_eq!(back, run);
    }
    for (run, shards) in [("0123456789abcdef", 4), ("", 1)] {
        match State::parse(text, run, shards) {
            Ok(state) => assert_eq!(State::parse(&state.to_json(), run, shards), Ok(state)),
            Err(e) => fuzz_support::assert_one_line(&e),
        }
    }
    let games = complete_games(text);
    let joined: String = games.concat();
    assert!(
        text.starts_with(&joined),
        "complete games are a prefix, in order"
    );
});
