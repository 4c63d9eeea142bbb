//! The processor check run first thing: the default build uses the build
//! machine's instruction set (`target-cpu=native` in `.cargo/config.toml`),
//! and a binary copied to an older processor (a cluster node of another
//! generation) would otherwise die of an illegal instruction somewhere in
//! the search. This check names what is missing in one line instead.

/// Declares [`enabled`] and [`detected`] from one list of extensions, so
/// that what the build uses and what is asked of the processor cannot drift.
#[cfg(target_arch = "x86_64")]
macro_rules! extensions {
    ($($f:tt),* $(,)?) => {
        /// The instruction set extensions this build was compiled to use.
        fn enabled() -> Vec<&'static str> {
            let mut v = Vec::new();
            $( if cfg!(target_feature = $f) { v.push($f); } )*
            v
        }

        /// Whether the running processor has an extension (by its Rust name).
        fn detected(f: &str) -> bool {
            match f {
                $( $f => std::arch::is_x86_feature_detected!($f), )*
                _ => false,
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
extensions!(
    "sse3",
    "ssse3",
    "sse4.1",
    "sse4.2",
    "popcnt",
    "cmpxchg16b",
    "avx",
    "avx2",
    "fma",
    "bmi1",
    "bmi2",
    "lzcnt",
    "movbe",
    "f16c",
    "adx",
    "aes",
    "pclmulqdq",
    "sha",
    "xsave",
    "rdrand",
    "rdseed",
    "avx512f",
    "avx512cd",
    "avx512bw",
    "avx512dq",
    "avx512vl",
    "avx512vbmi",
    "avx512vnni",
    "avx512bitalg",
    "avx512vpopcntdq",
    "gfni",
    "vaes",
    "vpclmulqdq",
);

#[cfg(not(target_arch = "x86_64"))]
fn enabled() -> Vec<&'static str> {
    Vec::new()
}

#[cfg(not(target_arch = "x86_64"))]
fn detected(_: &str) -> bool {
    true
}

/// The extensions of `build` the processor lacks according to `has`.
fn missing<'a>(build: &[&'a str], has: impl Fn(&str) -> bool) -> Vec<&'a str> {
    build.iter().copied().filter(|f| !has(f)).collect()
}

/// The one-line error when this processor cannot run this build, else
/// `None`. `BUSHKA_CPU_LACKS=avx2,bmi2` pretends the processor lacks those
/// (to see the message without an old machine).
pub fn check() -> Option<String> {
    let pretend = std::env::var("BUSHKA_CPU_LACKS").unwrap_or_default();
    let lacks: Vec<&str> = pretend.split(',').map(str::trim).collect();
    let gone = missing(&enabled(), |f| detected(f) && !lacks.contains(&f));
    if gone.is_empty() {
        return None;
    }
    Some(format!(
        "error: this bushka was built for a processor with {} (target-cpu=native on the build machine) and this one lacks them: build it on this machine, or for the oldest processor that will run it (see docs/cluster.md)",
        gone.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_processor_runs_this_build() {
        assert_eq!(missing(&enabled(), detected), Vec::<&str>::new());
    }

    #[test]
    fn lacking_extensions_are_named() {
        let build = ["popcnt", "avx2", "bmi2"];
        assert_eq!(missing(&build, |f| f == "popcnt"), ["avx2", "bmi2"]);
        assert!(missing(&build, |_| true).is_empty());
    }
}
