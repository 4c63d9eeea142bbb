//! Retrograde analysis of one material at a time, smallest first.
//!
//! One forward pass generates every position's moves once: moves that leave
//! the material (captures, promotions) are valued from the tables built
//! before, moves that stay in it are counted. Then levels `k = 1, 2, ...`:
//! each position that ended at distance `k - 1` is played backwards
//! ([`super::retro`]); a predecessor of a loss wins in `k`, and a predecessor
//! whose last internal move has just turned out to lose loses in `k` (or at
//! its longest external loss, if later). A win is always an odd distance and
//! a loss an even one, so each level only makes one kind. What is never
//! reached is a draw.

use super::index::Indexer;
use super::material::Material;
use super::retro::predecessors;
use super::{encode, file, Table, Tablebase, TbError};
use crate::bushka::Position;
use crate::game::{Color, Game};
use crate::movelist::MoveList;
use crate::search::Exact;
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

/// A step of a table build, reported to [`BuildOptions::progress`] as it
/// happens (the library draws nothing itself).
#[derive(Clone, Debug, PartialEq)]
pub enum BuildProgress {
    /// A file in the folder was unusable and its material is built again.
    Unusable(PathBuf),
    /// Solving a material begins: its positions, both sides to move.
    Start {
        /// The material.
        material: Material,
        /// Positions, both sides to move.
        positions: u64,
    },
    /// So many more positions of the current material had their moves counted.
    Counted(u64),
    /// The backward passes reached this distance from the end, in plies.
    Level(u32),
    /// The current material is solved.
    Solved {
        /// Its longest distance, in plies.
        longest: u32,
    },
    /// A material's table is in the folder, built or reused: a build
    /// stopped later starts again after it.
    Done(MaterialReport),
}

/// The receiver of [`BuildProgress`]; called from worker threads.
pub type ProgressSink = Arc<dyn Fn(&BuildProgress) + Send + Sync>;

/// What to build and where.
#[derive(Clone)]
pub struct BuildOptions {
    /// Every material with at most this many pieces.
    pub pieces: u8,
    /// The folder of the table files.
    pub dir: PathBuf,
    /// Where the build reports its progress (`None`: nowhere).
    pub progress: Option<ProgressSink>,
}

impl BuildOptions {
    /// Every material up to `pieces` pieces in `dir`, reporting nothing.
    pub fn new(pieces: u8, dir: impl Into<PathBuf>) -> BuildOptions {
        BuildOptions {
            pieces,
            dir: dir.into(),
            progress: None,
        }
    }

    fn report(&self, step: &BuildProgress) {
        if let Some(sink) = &self.progress {
            sink(step);
        }
    }
}

/// What happened to one material.
#[derive(Clone, Debug, PartialEq)]
pub struct MaterialReport {
    /// The material.
    pub material: Material,
    /// Positions, both sides to move.
    pub positions: u64,
    /// Bytes of its file.
    pub bytes: u64,
    /// Seconds spent solving it (zero when reused).
    pub seconds: f64,
    /// True when a valid file was already there.
    pub reused: bool,
    /// Longest distance found, in plies.
    pub longest: u32,
}

/// Builds (or reuses) the table of every material up to `opts.pieces` pieces.
pub fn build(opts: &BuildOptions) -> Result<(Tablebase, Vec<MaterialReport>), TbError> {
    build_materials(opts, &Material::all_up_to(opts.pieces))
}

/// Builds (or reuses) the given materials, in order; the tables their moves
/// reach must come earlier in the list or already be in the folder.
pub fn build_materials(
    opts: &BuildOptions,
    materials: &[Material],
) -> Result<(Tablebase, Vec<MaterialReport>), TbError> {
    if opts.dir.exists() && !opts.dir.is_dir() {
        return Err(TbError::Io(
            opts.dir.display().to_string(),
            "not a folder".into(),
        ));
    }
    std::fs::create_dir_all(&opts.dir)
        .and_then(|()| crate::files::writable_dir(&opts.dir))
        .map_err(|e| TbError::Io(opts.dir.display().to_string(), e.to_string()))?;
    let mut tb = Tablebase::empty(&opts.dir);
    let mut reports = Vec::new();
    for &mat in materials {
        let path = opts.dir.join(mat.file_name());
        let bytes_of = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
        // A table is written in place of the file found, which must be a
        // file: a FIFO or a device would take it (or hang the build).
        if std::fs::metadata(&path).is_ok_and(|m| !m.is_file()) {
            return Err(TbError::Io(
                path.display().to_string(),
                "not a regular file (remove it to build the table)".into(),
            ));
        }
        if path.exists() {
            match Table::load(&path) {
                Ok(t) if t.material() == mat => {
                    let longest = [Color::White, Color::Black]
                        .iter()
                        .flat_map(|&s| t.side_bytes(s).iter().max().copied())
                        .max()
                        .unwrap_or(0)
                        .saturating_sub(1) as u32;
                    let report = MaterialReport {
                        material: mat,
                        positions: 2 * t.indexer().size(),
                        bytes: bytes_of(&path),
                        seconds: 0.0,
                        reused: true,
                        longest,
                    };
                    opts.report(&BuildProgress::Done(report.clone()));
                    reports.push(report);
                    tb.insert(t);
                    continue;
                }
                Ok(_) | Err(_) => opts.report(&BuildProgress::Unusable(path.clone())),
            }
        }
        let start = Instant::now();
        let (data, longest) = solve(mat, &tb, opts)?;
        let ix = Indexer::new(mat);
        file::write(&path, mat, ix.size(), &data)?;
        let report = MaterialReport {
            material: mat,
            positions: 2 * ix.size(),
            bytes: bytes_of(&path),
            seconds: start.elapsed().as_secs_f64(),
            reused: false,
            longest,
        };
        opts.report(&BuildProgress::Done(report.clone()));
        reports.push(report);
        tb.insert(Table::from_data(mat, &data));
    }
    Ok((tb, reports))
}

/// Flag bit of `ext`: the position has a move out of the material that does
/// not lose, so it can never lose.
const CANT_LOSE: u16 = 0x8000;
/// The level part of `ext`: with [`CANT_LOSE`], the win a move out of the
/// material gives (0 for none); without it, the longest loss out of it.
const LEVEL: u16 = 0x7FFF;
/// Positions per progress step.
const STEP: usize = 1 << 14;

/// The two sides as indices of the work arrays.
const SIDES: [Color; 2] = [Color::White, Color::Black];

/// Solves one material; returns its bytes (White to move, then Black) and
/// the longest distance. Progress goes to `opts.progress`.
pub fn solve(
    mat: Material,
    known: &Tablebase,
    opts: &BuildOptions,
) -> Result<(Vec<u8>, u32), TbError> {
    let ix = Indexer::new(mat);
    let n = ix.size() as usize;
    opts.report(&BuildProgress::Start {
        material: mat,
        positions: 2 * n as u64,
    });
    let val: [Vec<AtomicU8>; 2] = [0, 1].map(|_| (0..n).map(|_| AtomicU8::new(0)).collect());
    let cnt: [Vec<AtomicU8>; 2] = [0, 1].map(|_| (0..n).map(|_| AtomicU8::new(0)).collect());
    let mut ext: [Vec<u16>; 2] = [Vec::new(), Vec::new()];
    for (s, side) in SIDES.into_iter().enumerate() {
        ext[s] = (0..n)
            .into_par_iter()
            .with_min_len(1024)
            .map_init(MoveList::new, |list, i| {
                if i.is_multiple_of(STEP) {
                    opts.report(&BuildProgress::Counted(STEP.min(n - i) as u64));
                }
                let pos = ix
                    .position(i as u64, side)
                    .ok_or_else(|| TbError::Invalid(format!("{mat} index {i}")))?;
                first_pass(&pos, mat, known, list, &val[s][i], &cnt[s][i])
            })
            .collect::<Result<Vec<u16>, TbError>>()?;
    }
    let last_seed = ext
        .iter()
        .flat_map(|e| e.par_iter().map(|&x| (x & LEVEL) as u32).max())
        .max()
        .unwrap_or(0);
    let mut k = 1u32;
    loop {
        if k >= 255 {
            return Err(TbError::TooLong(mat.to_string()));
        }
        opts.report(&BuildProgress::Level(k));
        let made = AtomicU64::new(0);
        for s in 0..2 {
            let p = 1 - s;
            propagate(&ix, SIDES[s], k, &val[s], &val[p], &cnt[p], &ext[p], &made);
        }
        for s in 0..2 {
            seeds(k, &val[s], &cnt[s], &ext[s], &made);
        }
        if made.load(Relaxed) == 0 && k >= last_seed {
            break;
        }
        k += 1;
    }
    let mut out = Vec::with_capacity(2 * n);
    for v in &val {
        out.extend(v.iter().map(|b| b.load(Relaxed)));
    }
    let longest = out.iter().copied().max().unwrap_or(0).saturating_sub(1) as u32;
    opts.report(&BuildProgress::Solved { longest });
    Ok((out, longest))
}

/// The forward pass of one position: sets its value when it has no move,
/// counts its moves inside the material, and returns its `ext` word.
fn first_pass(
    pos: &Position,
    mat: Material,
    known: &Tablebase,
    list: &mut MoveList<crate::bushka::Move>,
    val: &AtomicU8,
    cnt: &AtomicU8,
) -> Result<u16, TbError> {
    pos.generate(list);
    if list.is_empty() {
        val.store(1, Relaxed);
        return Ok(0);
    }
    let kings = pos.kings(Color::White) | pos.kings(Color::Black);
    let (mut inside, mut win, mut floor, mut cant_lose) = (0u32, u32::MAX, 0u32, false);
    for mv in list.iter() {
        let child = pos.play(mv);
        if mv.captured == 0
            && (child.kings(Color::White) | child.kings(Color::Black)).count_ones()
                == kings.count_ones()
        {
            inside += 1;
            continue;
        }
        match known.value(&child)? {
            Exact::Loss(d) => win = win.min(d + 1),
            Exact::Win(d) => floor = floor.max(d + 1),
            Exact::Draw => cant_lose = true,
        }
    }
    let inside =
        u8::try_from(inside).map_err(|_| TbError::TooLong(format!("{mat}: too many moves")))?;
    cnt.store(inside, Relaxed);
    let level = |d: u32| {
        encode(Exact::Win(d))
            .map(|_| d as u16)
            .ok_or_else(|| TbError::TooLong(mat.to_string()))
    };
    if win != u32::MAX {
        Ok(CANT_LOSE | level(win)?)
    } else if cant_lose {
        Ok(CANT_LOSE)
    } else {
        level(floor)
    }
}

/// Level `k`, first half: plays backwards from every position of `side` to
/// move at distance `k - 1` into the other side's arrays.
#[allow(clippy::too_many_arguments)]
fn propagate(
    ix: &Indexer,
    side: Color,
    k: u32,
    val_c: &[AtomicU8],
    val_p: &[AtomicU8],
    cnt_p: &[AtomicU8],
    ext_p: &[u16],
    made: &AtomicU64,
) {
    let here = k as u8; // distance k - 1, stored plus one
    let next = here + 1;
    let child_lost = (k - 1).is_multiple_of(2);
    val_c
        .par_iter()
        .enumerate()
        .with_min_len(4096)
        .for_each(|(ci, v)| {
            if v.load(Relaxed) != here {
                return;
            }
            let Some(c) = ix.position(ci as u64, side) else {
                return;
            };
            let mut local = 0u64;
            predecessors(&c, |p| {
                let pi = ix.index_unchecked(
                    p.men(Color::White),
                    p.men(Color::Black),
                    p.kings(Color::White),
                    p.kings(Color::Black),
                ) as usize;
                if child_lost {
                    if val_p[pi]
                        .compare_exchange(0, next, Relaxed, Relaxed)
                        .is_ok()
                    {
                        local += 1;
                    }
                } else if cnt_p[pi].fetch_sub(1, Relaxed) == 1 {
                    let e = ext_p[pi];
                    if e & CANT_LOSE == 0
                        && (e & LEVEL) as u32 <= k
                        && val_p[pi]
                            .compare_exchange(0, next, Relaxed, Relaxed)
                            .is_ok()
                    {
                        local += 1;
                    }
                }
            });
            if local > 0 {
                made.fetch_add(local, Relaxed);
            }
        });
}

/// Level `k`, second half: wins and losses whose distance comes from a move
/// out of the material.
fn seeds(k: u32, val: &[AtomicU8], cnt: &[AtomicU8], ext: &[u16], made: &AtomicU64) {
    let next = k as u8 + 1;
    let n = val
        .par_iter()
        .zip(ext.par_iter())
        .zip(cnt.par_iter())
        .with_min_len(4096)
        .filter(|((v, &e), c)| {
            v.load(Relaxed) == 0
                && (e & LEVEL) as u32 == k
                && (e & CANT_LOSE != 0 || c.load(Relaxed) == 0)
                && v.compare_exchange(0, next, Relaxed, Relaxed).is_ok()
        })
        .count();
    made.fetch_add(n as u64, Relaxed);
}
