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

use std::ffi::OsStr;
use std::fmt::Debug;
use std::path::Path;
use std::process::Command;

/// The program under test.
fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_bushka")
}

/// A fresh folder of one test (`bushka-NAME-` and a random part, in the
/// system's temporary folder), removed with all in it when the test ends,
/// passed or failed. It stands for its path (`dir.join(..)`, `&dir`).
struct TestDir(tempfile::TempDir);

impl std::ops::Deref for TestDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for TestDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<OsStr> for TestDir {
    fn as_ref(&self) -> &OsStr {
        self.0.path().as_os_str()
    }
}

fn temp_dir(name: &str) -> TestDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("bushka-{name}-"))
        .tempdir()
        .unwrap();
    TestDir(dir)
}

/// Runs the program, which must succeed; its standard output.
fn run_ok<S: AsRef<OsStr> + Debug>(args: &[S]) -> String {
    let o = Command::new(bin()).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

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

/// Makes a named pipe at `path` (one that no process writes: opening it to
/// read would wait).
#[cfg(unix)]
fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}
