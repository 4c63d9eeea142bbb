//! The engine's integration tests, one module per subject, built as one test
//! binary (`cargo test -p bushka-engine --test engine`). Shared helpers, such
//! as the plain move generators ("oracles") of both games, live in `support`.

mod support;

mod bashnya_oracle;
mod bashnya_perft;
mod bashnya_rules;
mod bashnya_text;
mod bushka_oracle_compare;
mod bushka_oracle_selfcheck;
mod bushka_perft;
mod bushka_rules;
mod bushka_text;
mod eval_features;
mod eval_patterns;
mod eval_weights;
mod properties;
mod regressions;
mod search;
mod tb_five;
mod tb_kings;
mod tb_small;
