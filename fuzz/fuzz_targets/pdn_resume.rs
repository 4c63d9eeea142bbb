//! The PDN half of `selfplay --resume` (`selfplay::output::recover_pdn`)
//! over arbitrary bytes written to a temporary file: the first byte chooses
//! which game the caller refuses (none from 3 up), the rest is the file.
//! A refused file is left byte for byte as it was; an accepted one is cut to
//! a prefix of itself that ends after a whole game, dropping only what a
//! killed run can leave (blank space, zero bytes, the start of a record,
//! under 1 MiB); every message is one line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use selfplay::pdn::PdnReader;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, file)) = data.split_first() else {
        return;
    };
    let dir = if std::path::Path::new("/dev/shm").is_dir() {
        std::path::PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let path = dir.join(format!("bushka-fuzz-pdn-resume-{}.pdn", std::process::id()));
    std::fs::write(&path, file).expect("temporary file");
    let refuse = usize::from(choice % 4);
    let mut seen = Vec::new();
    let result = selfplay::output::recover_pdn(&path, |g| {
        if seen.len() == refuse {
            return Err("refused".to_string());
        }
        seen.push(g);
        Ok(())
    });
    let out = std::fs::read(&path).expect("read back");
    let _ = std::fs::remove_file(&path);
    match result {
        Err(e) => {
            assert!(!e.contains(['\n', '\r']), "not one line: {e:?}");
            assert_eq!(out, file, "a refused file was changed");
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
        }
    }
});
