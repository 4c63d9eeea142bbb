// The checks of the `pdn_resume` fuzz target (fuzz/fuzz_targets/pdn_resume.rs,
// which includes this file) on one input, also run on the committed corpus
// by `fuzz_regressions.rs`. Kept free of anything but std and `selfplay`,
// so that both can compile it.

/// Runs `selfplay::output::recover_pdn` (the PDN half of `--resume`) on
/// `input` less its first byte, written to `path`; the first byte modulo 4
/// names the game the caller refuses, counting from 0 (none when the file
/// has fewer games). A refused file is left byte for byte as it was and the
/// message is one line; an accepted one is cut to a prefix of itself that
/// holds exactly the games handed over, dropping only what a killed run
/// leaves (blank space, zero bytes, the start of a record; under 1 MiB).
/// Returns whether the file was accepted (`None` for an empty input).
pub fn check_pdn_resume(input: &[u8], path: &std::path::Path) -> Option<bool> {
    use selfplay::pdn::PdnReader;
    let (&choice, file) = input.split_first()?;
    std::fs::write(path, file).expect("temporary file");
    let refuse = usize::from(choice % 4);
    let mut seen = Vec::new();
    let result = selfplay::output::recover_pdn(path, |g| {
        if seen.len() == refuse {
            return Err("refused".to_string());
        }
        seen.push(g);
        Ok(())
    });
    let out = std::fs::read(path).expect("read back");
    let _ = std::fs::remove_file(path);
    match result {
        Err(e) => {
            assert!(
                !e.contains(engine::files::LINE_BREAKS),
                "not one line: {e:?}"
            );
            assert_eq!(out, file, "a refused file was changed");
            Some(false)
        }
        Ok(()) => {
            assert!(file.starts_with(&out), "the kept part is not a prefix");
            let dropped = &file[out.len()..];
            assert!(dropped.len() <= 1 << 20, "{} bytes dropped", dropped.len());
            let rest = match dropped.iter().position(|b| !b.is_ascii_whitespace()) {
                Some(i) => &dropped[i..],
                None => &[][..],
            };
            let start = b"[Event \"";
            let n = rest.len().min(start.len());
            assert!(
                rest.is_empty() || rest[0] == 0 || rest[..n] == start[..n],
                "dropped what a killed run does not leave: {:?}",
                String::from_utf8_lossy(&rest[..rest.len().min(80)])
            );
            // The games handed over are exactly those of the kept part.
            let again: Vec<_> = PdnReader::new(&out[..])
                .map(|g| g.expect("a game accepted reads again"))
                .collect();
            assert_eq!(again, seen, "the kept file reads as other games");
            Some(true)
        }
    }
}
