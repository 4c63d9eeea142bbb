//! Weights JSON for both games: refused with an error or read exactly.
#![no_main]

use engine::eval::Weights;
use engine::GameKind;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for kind in [GameKind::Bushka, GameKind::Bashnya] {
        match Weights::from_json(kind, text) {
            Ok(w) => {
                assert_eq!(w.kind(), kind);
                let json = w.to_json();
                let back = Weights::from_json(kind, &json)
                    .unwrap_or_else(|e| panic!("own JSON refused: {e}\n{json}"));
                assert_eq!(back, w, "weights JSON round trip");
                fuzz_support::check_weights(&w);
            }
            Err(e) => fuzz_support::assert_one_line(&e.to_string()),
        }
    }
});
