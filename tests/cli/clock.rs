//! `bushka selfplay` on game clocks: a slow protocol engine loses on time.

use std::path::PathBuf;
use std::process::Command;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bushka-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A protocol engine that greets properly and then thinks for a second
/// on every move, on a 0.1-second clock: it loses every game on time, and
/// the records say so and keep its clock.
#[test]
fn a_slow_protocol_engine_loses_on_time() {
    let dir = temp_dir("slow");
    let path = dir.join("slow.sh");
    std::fs::write(
        &path,
        "#!/bin/sh\nwhile read l; do case \"$l\" in hub) echo 'id name=slow'; echo wait;; init) echo ready;; go*) sleep 1; echo 'done move=a1';; quit) exit 0;; esac; done\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let pdn = dir.join("slow.pdn");
    let slow = format!("name=slow,cmd={},tc=0.1", path.display());
    let o = Command::new(env!("CARGO_BIN_EXE_bushka"))
        .args([
            "selfplay",
            "--engine",
            &slow,
            "--engine",
            "name=fast,depth=1,tc=10",
            "--games",
            "2",
            "--time-margin",
            "20",
            "--quiet",
            "--pdn",
            pdn.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("clock slow: 2 games, 2 lost on time"), "{out}");
    let text = std::fs::read_to_string(&pdn).unwrap();
    // Once as White (it moves first) and once as Black.
    for side in ["white", "black"] {
        assert_eq!(
            text.matches(&format!("[Termination \"time forfeit: {side} took 0.1"))
                .count(),
            1,
            "{text}"
        );
    }
    assert_eq!(
        text.matches("[WhiteTimeControl \"0.1\"]").count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.matches("[BlackTimeControl \"0.1\"]").count(),
        1,
        "{text}"
    );
    // The slow side's clock is left as it was before the move it lost on.
    assert_eq!(text.matches("Clock \"0.100\"]").count(), 2, "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
