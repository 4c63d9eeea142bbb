//! The texts the sharding and the cluster driver read: shards `K/N`,
//! `squeue` and `sbatch` answers, a summary's `run` member, the cluster
//! driver's state file and the split of a PDN text into complete games.
//! The checks are in `selfplay/tests/selfplay/fuzz_shard_check.rs`
//! (included below), which `cargo test` also runs on the committed corpus.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../selfplay/tests/selfplay/fuzz_shard_check.rs");

fuzz_target!(|data: &[u8]| {
    check_shard_texts(data);
});
