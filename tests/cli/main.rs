//! The `bushka` command line, driven as a child process
//! (`env!("CARGO_BIN_EXE_bushka")`), one module per command family, built as
//! one test binary (`cargo test -p bushka --test cli`).

mod atlas;
mod cli;
mod clock;
mod cluster;
mod hub;
mod selfplay;
mod serve;
mod shard;
mod tactics;
mod tb;

/// Arguments held as `String`s, as `Command::args` and the helpers take them.
fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// A refused command's standard error, checked: exit status 2, one line
/// naming the problem, no panic.
fn refusal(o: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}
