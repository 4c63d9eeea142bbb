//! Endgame tables of up to three pieces against an independent solver, the
//! consistency of every stored value with its moves, the index, and files.

use engine::bushka::board::{bit, promotion_row, Bits, BOARD};
use engine::bushka::tb::retro::predecessors;
use engine::bushka::tb::{BuildOptions, Indexer, Material, Table, Tablebase};
use engine::bushka::Position;
use engine::search::Exact;
use engine::{Color, Game, MoveList};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::OnceLock;

/// A fresh folder in Cargo's scratch folder for tests (under `target/`),
/// named by this process, so that runs at once (debug and release, two
/// `cargo test`) keep apart. The shared tables live in a static, which is
/// never dropped, so they cannot be removed when the tests end: the folders
/// of earlier runs whose process has gone are removed here instead.
fn temp_dir(tag: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let me = std::process::id();
    for entry in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix("tb-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != me && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let dir = root.join(format!("tb-{me}-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The tables of up to three pieces, built once per test run.
fn small() -> &'static (PathBuf, Tablebase) {
    static TB: OnceLock<(PathBuf, Tablebase)> = OnceLock::new();
    TB.get_or_init(|| {
        let dir = temp_dir("small");
        let opts = BuildOptions::new(3, dir.clone());
        let (tb, reports) = engine::bushka::tb::build(&opts).expect("build");
        assert_eq!(reports.len(), Material::all_up_to(3).len());
        (dir, tb)
    })
}

/// Every placement of a material, by brute force over the squares.
fn all_positions(mat: Material, side: Color) -> Vec<Position> {
    let allowed = |c: Color, king: bool| {
        if king {
            BOARD
        } else {
            BOARD & !promotion_row(c)
        }
    };
    // Pieces to place: (colour, king), with an ordering constraint for equal kinds.
    let mut kinds = Vec::new();
    for c in [Color::White, Color::Black] {
        for _ in 0..mat.kings[c as usize] {
            kinds.push((c, true));
        }
        for _ in 0..mat.men[c as usize] {
            kinds.push((c, false));
        }
    }
    let mut out = Vec::new();
    let mut squares = vec![0u8; kinds.len()];
    fn place(
        i: usize,
        kinds: &[(Color, bool)],
        squares: &mut Vec<u8>,
        allowed: &dyn Fn(Color, bool) -> u64,
        side: Color,
        out: &mut Vec<Position>,
    ) {
        if i == kinds.len() {
            let (mut w, mut b, mut k) = (0u64, 0u64, 0u64);
            for (j, &(c, king)) in kinds.iter().enumerate() {
                let s = bit(squares[j]);
                if c == Color::White {
                    w |= s;
                } else {
                    b |= s;
                }
                if king {
                    k |= s;
                }
            }
            out.push(Position::from_parts(w, b, k, side));
            return;
        }
        for sq in Bits(allowed(kinds[i].0, kinds[i].1)) {
            // Same kind as the previous piece: strictly increasing squares.
            if i > 0 && kinds[i - 1] == kinds[i] && sq <= squares[i - 1] {
                continue;
            }
            if squares[..i].contains(&sq) {
                continue;
            }
            squares[i] = sq;
            place(i + 1, kinds, squares, allowed, side, out);
        }
    }
    place(0, &kinds, &mut squares, &allowed, side, &mut out);
    out
}

/// Exact values by a plain fixpoint over the explicit graph of every
/// position reachable from `starts`, built with the generic `Game` API only.
fn solve_graph(starts: &[Position]) -> HashMap<Position, Exact> {
    let mut ids: HashMap<Position, usize> = HashMap::new();
    let mut nodes: Vec<Position> = Vec::new();
    let mut edges: Vec<Vec<usize>> = Vec::new();
    for &p in starts {
        if let std::collections::hash_map::Entry::Vacant(e) = ids.entry(p) {
            e.insert(nodes.len());
            nodes.push(p);
        }
    }
    let mut list = MoveList::new();
    let mut i = 0;
    while i < nodes.len() {
        let p = nodes[i];
        p.generate(&mut list);
        let mut out = Vec::with_capacity(list.len());
        for mv in &list {
            let c = p.play(mv);
            let id = *ids.entry(c).or_insert_with(|| {
                nodes.push(c);
                nodes.len() - 1
            });
            out.push(id);
        }
        edges.push(out);
        i += 1;
    }
    let mut value: Vec<Option<Exact>> = vec![None; nodes.len()];
    for n in 0u32.. {
        let mut new = value.clone();
        let mut changed = false;
        for (i, e) in edges.iter().enumerate() {
            if value[i].is_some() {
                continue;
            }
            let v = if e.is_empty() {
                Some(Exact::Loss(0))
            } else if e.iter().any(|&c| matches!(value[c], Some(Exact::Loss(_)))) {
                let best = e
                    .iter()
                    .filter_map(|&c| match value[c] {
                        Some(Exact::Loss(d)) => Some(d),
                        _ => None,
                    })
                    .min();
                best.map(|d| Exact::Win(d + 1))
            } else if e.iter().all(|&c| matches!(value[c], Some(Exact::Win(_)))) {
                let worst = e
                    .iter()
                    .filter_map(|&c| match value[c] {
                        Some(Exact::Win(d)) => Some(d),
                        _ => None,
                    })
                    .max();
                worst.map(|d| Exact::Loss(d + 1))
            } else {
                None
            };
            if let Some(v) = v {
                let d = match v {
                    Exact::Win(d) | Exact::Loss(d) => d,
                    Exact::Draw => unreachable!(),
                };
                assert_eq!(d, n, "fixpoint labels distance {d} at iteration {n}");
                new[i] = Some(v);
                changed = true;
            }
        }
        value = new;
        if !changed && n > 0 {
            break;
        }
    }
    nodes
        .into_iter()
        .zip(value)
        .map(|(p, v)| (p, v.unwrap_or(Exact::Draw)))
        .collect()
}

/// The table agrees with the independent solver at every position of `mat`.
fn agrees_with_solver(mat: Material) {
    let (_, tb) = small();
    let mut starts = all_positions(mat, Color::White);
    starts.extend(all_positions(mat, Color::Black));
    let ix = Indexer::new(mat);
    assert_eq!(starts.len() as u64, 2 * ix.size(), "{mat}: index size");
    let solved = solve_graph(&starts);
    let mut seen = [0u64; 3];
    for p in &starts {
        let want = solved[p];
        let got = tb.value(p).expect("in the tables");
        assert_eq!(got, want, "{mat}: {}", p.to_text());
        seen[match want {
            Exact::Win(_) => 0,
            Exact::Draw => 1,
            Exact::Loss(_) => 2,
        }] += 1;
    }
    eprintln!(
        "{mat}: wins {} draws {} losses {}",
        seen[0], seen[1], seen[2]
    );
}

#[test]
fn king_v_king_matches_the_solver() {
    agrees_with_solver(Material::parse("KvK").unwrap());
}

#[test]
fn two_kings_v_king_match_the_solver() {
    agrees_with_solver(Material::parse("KKvK").unwrap());
    agrees_with_solver(Material::parse("KvKK").unwrap());
}

#[test]
fn king_and_man_v_king_match_the_solver() {
    agrees_with_solver(Material::parse("KMvK").unwrap());
    agrees_with_solver(Material::parse("KvKM").unwrap());
}

#[test]
fn men_endings_match_the_solver() {
    agrees_with_solver(Material::parse("MvM").unwrap());
    agrees_with_solver(Material::parse("MMvK").unwrap());
}

/// Every win has a move to a loss one ply shorter and none faster; every
/// loss has only moves to wins, the longest one ply shorter; every draw has
/// a drawing move and no winning one.
#[test]
fn every_value_is_consistent_with_its_moves() {
    use rayon::prelude::*;
    let (_, tb) = small();
    for mat in Material::all_up_to(3) {
        let ix = Indexer::new(mat);
        for side in [Color::White, Color::Black] {
            (0..ix.size()).into_par_iter().for_each(|i| {
                let p = ix.position(i, side).unwrap();
                let v = tb.value(&p).unwrap();
                let mut list = MoveList::new();
                p.generate(&mut list);
                let kids: Vec<Exact> = list.iter().map(|m| tb.value(&p.play(m)).unwrap()).collect();
                let losses = kids.iter().filter_map(|k| match k {
                    Exact::Loss(d) => Some(*d),
                    _ => None,
                });
                let wins = kids.iter().filter_map(|k| match k {
                    Exact::Win(d) => Some(*d),
                    _ => None,
                });
                let text = p.to_text();
                match v {
                    Exact::Win(d) => assert_eq!(losses.min(), Some(d - 1), "{text}"),
                    Exact::Loss(0) => assert!(kids.is_empty(), "{text}"),
                    Exact::Loss(d) => {
                        assert!(kids.iter().all(|k| matches!(k, Exact::Win(_))), "{text}");
                        assert_eq!(wins.max(), Some(d - 1), "{text}");
                    }
                    Exact::Draw => {
                        assert_eq!(losses.count(), 0, "{text}");
                        assert!(kids.contains(&Exact::Draw), "{text}");
                    }
                }
            });
        }
    }
}

/// Files read back give the values the build computed; the best move of
/// every position realises its value.
#[test]
fn probe_agrees_with_the_build() {
    let (dir, built) = small();
    let opened = Tablebase::open(dir).expect("open");
    assert_eq!(opened.max_pieces(), 3);
    for mat in Material::all_up_to(3) {
        let a = built.table(mat).unwrap();
        let b = opened.table(mat).unwrap();
        for side in [Color::White, Color::Black] {
            assert_eq!(a.side_bytes(side), b.side_bytes(side), "{mat}");
        }
    }
    let mat = Material::parse("KMvK").unwrap();
    let ix = Indexer::new(mat);
    for i in (0..ix.size()).step_by(7) {
        for side in [Color::White, Color::Black] {
            let p = ix.position(i, side).unwrap();
            let (v, best) = opened.best_move(&p).unwrap();
            let Some(mv) = best else {
                assert_eq!(v, Exact::Loss(0));
                continue;
            };
            let after = opened.value(&p.play(&mv)).unwrap();
            let expect = match v {
                Exact::Win(d) => Exact::Loss(d - 1),
                Exact::Loss(d) => {
                    assert!(matches!(after, Exact::Win(e) if e == d - 1));
                    after
                }
                Exact::Draw => Exact::Draw,
            };
            assert_eq!(after, expect, "{}", p.to_text());
            // The oracle answers the same.
            let oracle: &dyn engine::search::Oracle<Position> = &opened;
            assert_eq!(oracle.probe(&p), Some(v));
        }
    }
    // Outside the tables: an error, not a panic.
    let big = Position::parse_position("W:WKe1,Ke3,Ke5:BKe7").unwrap();
    assert!(opened.value(&big).is_err());
    let oracle: &dyn engine::search::Oracle<Position> = &opened;
    assert_eq!(oracle.probe(&big), None);
}

/// index -> position -> index for every index, and a brute-force count
/// shows the index has no holes.
#[test]
fn index_round_trips() {
    for text in [
        "KvK", "MvM", "KMvM", "MMvM", "MvMM", "KKvM", "MMvK", "MvKK", "KvKM",
    ] {
        let mat = Material::parse(text).unwrap();
        let ix = Indexer::new(mat);
        let brute = all_positions(mat, Color::White);
        assert_eq!(brute.len() as u64, ix.size(), "{mat}");
        let mut hit = vec![false; ix.size() as usize];
        for p in &brute {
            let i = ix.index(p).expect("indexable");
            assert!(!hit[i as usize], "{mat}: two placements share index {i}");
            hit[i as usize] = true;
        }
        for i in 0..ix.size() {
            let p = ix.position(i, Color::Black).unwrap();
            assert_eq!(Material::of(&p), mat);
            assert_eq!(p.men(Color::White) & promotion_row(Color::White), 0);
            assert_eq!(p.men(Color::Black) & promotion_row(Color::Black), 0);
            assert_eq!(ix.index(&p), Some(i), "{mat} {}", p.to_text());
        }
        assert!(ix.position(ix.size(), Color::White).is_none());
    }
}

/// Playing backwards finds exactly the positions whose quiet, non-promoting
/// moves lead to a position.
#[test]
fn predecessors_invert_the_move_generator() {
    for text in ["KMvM", "MMvK", "KvMM", "MMvM"] {
        let mat = Material::parse(text).unwrap();
        let ix = Indexer::new(mat);
        let mut forward: HashMap<Position, HashSet<Position>> = HashMap::new();
        let mut list = MoveList::new();
        for side in [Color::White, Color::Black] {
            for i in 0..ix.size() {
                let p = ix.position(i, side).unwrap();
                p.generate(&mut list);
                for mv in &list {
                    let c = p.play(mv);
                    if mv.captured == 0 && Material::of(&c) == mat {
                        forward.entry(c).or_default().insert(p);
                    }
                }
            }
        }
        for side in [Color::White, Color::Black] {
            for i in 0..ix.size() {
                let c = ix.position(i, side).unwrap();
                let mut back = HashSet::new();
                predecessors(&c, |p| assert!(back.insert(p), "{text}: duplicate"));
                let want = forward.remove(&c).unwrap_or_default();
                assert_eq!(back, want, "{text}: {}", c.to_text());
            }
        }
    }
}

/// Damaged files are errors, never panics.
#[test]
fn damaged_files_are_errors() {
    let (dir, _) = small();
    let src = dir.join("KMvK.tb");
    let bytes = std::fs::read(&src).unwrap();
    let bad = temp_dir("bad");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", bytes[..bytes.len() / 2].to_vec()),
        ("empty", Vec::new()),
        ("flipped", {
            let mut b = bytes.clone();
            let n = b.len();
            b[n / 2] ^= 0x40;
            b
        }),
        ("header", {
            let mut b = bytes.clone();
            b[12] = 200;
            b
        }),
        ("magic", b"hello world, not a table at all....".to_vec()),
    ];
    for (name, data) in cases {
        let path = bad.join(format!("{name}.tb"));
        std::fs::write(&path, data).unwrap();
        assert!(Table::load(&path).is_err(), "{name}");
        std::fs::remove_file(&path).unwrap();
    }
    // A file longer than its header says is refused by its size, before
    // its body is read: one byte more, and 4 GiB more (a sparse file).
    let long = bad.join("long.tb");
    for extra in [1, 1 << 32] {
        std::fs::write(&long, &bytes).unwrap();
        let file = std::fs::OpenOptions::new().write(true).open(&long).unwrap();
        file.set_len(bytes.len() as u64 + extra).unwrap();
        drop(file);
        let err = Table::load(&long).unwrap_err().to_string();
        let want = format!(
            "{} bytes, expected {} (truncated or padded)",
            bytes.len() as u64 + extra,
            bytes.len()
        );
        assert!(err.contains(&want), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    std::fs::remove_file(&long).unwrap();
    // Anything but a regular file (here a FIFO no one writes to, which a
    // read would wait on for ever) is refused without being opened.
    let fifo = bad.join("fifo.tb");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let err = Table::load(&fifo).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        let err = Tablebase::open(&bad).expect_err("refused").to_string();
        assert!(err.contains("not a regular file"), "{err}");
        std::fs::remove_file(&fifo).unwrap();
        // A build that finds a FIFO where a table goes refuses it, rather
        // than write the table into it (waiting for a reader for ever).
        let dir = bad.join("build");
        std::fs::create_dir_all(&dir).unwrap();
        let kvk = dir.join("KvK.tb");
        assert!(std::process::Command::new("mkfifo")
            .arg(&kvk)
            .status()
            .unwrap()
            .success());
        let err = engine::bushka::tb::build(&BuildOptions::new(2, dir.clone()))
            .expect_err("refused")
            .to_string();
        assert_eq!(
            err,
            format!(
                "{}: not a regular file (remove it to build the table)",
                kvk.display()
            )
        );
        std::fs::remove_file(&kvk).unwrap();
        // A folder named by a file is not one.
        let file = bad.join("file");
        std::fs::write(&file, "x").unwrap();
        let err = engine::bushka::tb::build(&BuildOptions::new(2, file.clone()))
            .expect_err("refused")
            .to_string();
        assert_eq!(err, format!("{}: not a folder", file.display()));
        std::fs::remove_file(&file).unwrap();
    } else {
        #[cfg(target_os = "linux")]
        panic!("mkfifo failed");
    }
    assert!(Tablebase::open(&bad).is_err(), "no tables");
    assert!(Tablebase::open(bad.join("missing")).is_err());
    let _ = std::fs::remove_dir_all(&bad);
}

/// A folder that exists but cannot be written into is refused before any
/// material is solved (whose table would be lost at its write): one
/// without write permission (which root may still write), and /sys (which
/// even root may not).
#[cfg(unix)]
#[test]
fn a_folder_that_cannot_be_written_is_refused_before_solving() {
    use std::os::unix::fs::PermissionsExt;
    let ro = temp_dir("read-only");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let mut refused = 0;
    for dir in [ro.clone(), PathBuf::from("/sys")] {
        if !dir.is_dir() || engine::files::writable_dir(&dir).is_ok() {
            continue;
        }
        let mut opts = BuildOptions::new(2, dir.clone());
        let solved = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = solved.clone();
        opts.progress = Some(std::sync::Arc::new(
            move |_: &engine::bushka::tb::BuildProgress| {
                count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            },
        ));
        let err = engine::bushka::tb::build(&opts).expect_err("refused");
        let err = err.to_string();
        assert!(err.contains(&dir.display().to_string()), "{err}");
        assert_eq!(
            solved.load(std::sync::atomic::Ordering::Relaxed),
            0,
            "{err}"
        );
        refused += 1;
    }
    if refused == 0 {
        eprintln!("skipped: no folder this process cannot write into");
    }
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    let _ = std::fs::remove_dir_all(&ro);
}

#[test]
fn material_texts() {
    assert_eq!(Material::parse("KKKvK").unwrap(), Material::new(3, 0, 1, 0));
    assert_eq!(Material::parse("KMvK").unwrap().to_string(), "KMvK");
    assert_eq!(Material::parse("MKvMM").unwrap().to_string(), "KMvMM");
    for bad in ["", "KK", "vK", "KvX", "K v", "KKKKKKKKvK"] {
        assert!(Material::parse(bad).is_err(), "{bad}");
    }
    let all = Material::all_up_to(4);
    assert_eq!(all.len(), 4 + 12 + 25);
    let position: HashMap<Material, usize> = all.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    for (i, m) in all.iter().enumerate() {
        // A promotion's material comes earlier.
        for c in 0..2 {
            if m.men[c] > 0 {
                let mut p = *m;
                p.men[c] -= 1;
                p.kings[c] += 1;
                assert!(position[&p] < i, "{p} before {m}");
            }
        }
    }
}

/// Material texts that name no table are one-line errors, never a panic or
/// a wrapped count (255 kings and a man once read as no piece at all).
#[test]
fn bad_material_texts_are_named() {
    let many = format!("{}MvK", "K".repeat(255));
    for (text, word) in [
        ("KK", "must look like KKKvK"),
        ("KvX", "unknown piece letter 'X'"),
        ("vK", "each side needs a piece"),
        (many.as_str(), "too many pieces"),
        ("KKKKKKKKvK", "too many pieces"),
    ] {
        let e = Material::parse(text).unwrap_err();
        assert!(e.contains(word), "{text}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
