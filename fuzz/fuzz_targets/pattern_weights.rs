//! Binary pattern weights files for both games: refused with a one-line
//! error or read exactly (written back byte for byte, read back equal).
#![no_main]

use engine::eval::PatternWeights;
use engine::GameKind;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for kind in [GameKind::Bushka, GameKind::Bashnya] {
        match PatternWeights::from_bytes(kind, data) {
            Ok(w) => {
                assert_eq!(w.kind(), kind);
                let bytes = w.to_bytes();
                assert_eq!(bytes, data, "binary weights round trip");
                let back = PatternWeights::from_bytes(kind, &bytes)
                    .unwrap_or_else(|e| panic!("own file refused: {e}"));
                assert_eq!(back, w);
            }
            Err(e) => fuzz_support::assert_one_line(&e.to_string()),
        }
    }
});
