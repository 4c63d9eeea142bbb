//! Fixed-size, lock-free transposition table shared by all search threads.
//!
//! Each entry is two atomics: the packed data and `key ^ data`. A reader
//! accepts an entry only when the two agree with its key, so a write torn by
//! another thread reads as a miss, never as a wrong hit. Four entries form a
//! 64-byte bucket; replacement prefers the same position, then the shallowest
//! or oldest entry.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at most the score (all moves failed low).
    Upper = 1,
    /// The true value is at least the score (a move failed high).
    Lower = 2,
    /// The score is exact.
    Exact = 3,
}

/// A hit: what an earlier search found for this position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    /// Index of the best move in the position's generated move list.
    pub move_index: Option<u16>,
    /// Score, relative to the node (win/loss distances from this position).
    pub score: i16,
    /// Remaining depth the score was searched to.
    pub depth: u8,
    /// Kind of bound.
    pub bound: Bound,
}

#[derive(Default)]
#[repr(C)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

const BUCKET: usize = 4;

#[repr(C, align(64))]
#[derive(Default)]
struct Bucket([Entry; BUCKET]);

/// The largest table this process can hold: half the memory it may use
/// ([`memory_bytes`]), in MiB.
pub fn max_hash_mib() -> usize {
    ((memory_bytes() / 2) >> 20).max(1) as usize
}

/// The memory this process may use, in bytes: the machine's physical
/// memory, or less where a control group limits the process (a container's,
/// or a Slurm job's `--mem`), so a table that fits the machine but not the
/// job is refused instead of killed once touched.
pub fn memory_bytes() -> u64 {
    let physical = physical_memory().unwrap_or(128 << 30);
    let limited = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|text| cgroup_limit(&text, std::path::Path::new("/sys/fs/cgroup")));
    limited.map_or(physical, |l| l.min(physical)).max(1 << 20)
}

fn physical_memory() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf only reads system constants.
        let (pages, size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if pages > 0 && size > 0 {
            return Some(pages as u64 * size as u64);
        }
    }
    None
}

/// The least memory limit of the control groups that `proc_cgroup` (the
/// text of `/proc/self/cgroup`) names, and of their ancestors, read under
/// `root`: `memory.max` in the unified hierarchy (version 2),
/// `memory/.../memory.limit_in_bytes` in the memory controller's (version
/// 1). `None` when no group sets a limit that can be read.
fn cgroup_limit(proc_cgroup: &str, root: &std::path::Path) -> Option<u64> {
    use std::path::Path;
    let mut least: Option<u64> = None;
    for line in proc_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (dir, file) = if controllers.is_empty() {
            (root.to_path_buf(), "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            (root.join("memory"), "memory.limit_in_bytes")
        } else {
            continue;
        };
        // A group's limit binds every group below it; ".." never climbs
        // out of the hierarchy.
        if path.split('/').any(|part| part == "..") {
            continue;
        }
        let mut at = Some(Path::new(path.trim_start_matches('/')));
        while let Some(group) = at {
            // "max" (no limit) and an unreadable file set none.
            let limit = std::fs::read_to_string(dir.join(group).join(file))
                .ok()
                .and_then(|text| text.trim().parse::<u64>().ok());
            if let Some(limit) = limit {
                least = Some(least.map_or(limit, |l| l.min(limit)));
            }
            at = group.parent();
        }
    }
    least
}

/// A table size in MiB, checked: from 1 to half of the memory this process may use
/// ([`max_hash_mib`]). Every command, engine spec and protocol option sizes
/// its table through this type, so each refuses a bad size alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HashSize(usize);

impl HashSize {
    /// 64 MiB, the size commands use unless told otherwise.
    pub const DEFAULT: HashSize = HashSize::fixed(64);
    /// 1 MiB, the smallest table.
    pub const MIN: HashSize = HashSize::fixed(1);

    /// A built-in size, from 1 MiB to 1 GiB, which every machine this runs on
    /// can hold (checked when the program is compiled, in a constant).
    pub const fn fixed(mib: usize) -> HashSize {
        assert!(
            mib >= 1 && mib <= 1024,
            "a built-in table size is 1 to 1024 MiB"
        );
        HashSize(mib)
    }

    /// [`HashSize::DEFAULT`], or half the memory this process may use
    /// when that is less (a small container or job): the size a command
    /// takes when not told one.
    pub fn default_here() -> HashSize {
        HashSize(HashSize::DEFAULT.0.min(max_hash_mib()))
    }

    /// `mib` MiB, or why that size is refused.
    pub fn mib(mib: usize) -> Result<HashSize, String> {
        let max = max_hash_mib();
        if mib == 0 || mib > max {
            return Err(format!(
                "hash must be from 1 to {max} MiB (half of the memory this process may use), got {mib}"
            ));
        }
        Ok(HashSize(mib))
    }

    /// The size in MiB.
    pub fn get(self) -> usize {
        self.0
    }
}

impl std::str::FromStr for HashSize {
    type Err = String;
    fn from_str(s: &str) -> Result<HashSize, String> {
        let mib = s.trim().parse::<usize>().map_err(|_| {
            format!(
                "hash must be a whole number of MiB, got '{}'",
                crate::files::quoted(s, 40)
            )
        })?;
        HashSize::mib(mib)
    }
}

impl std::fmt::Display for HashSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The shared table.
pub struct Table {
    buckets: Vec<Bucket>,
    age: AtomicU8,
}

// The layout of an entry's data word, low bits first: the move's index in
// the generated list plus one (0: no move), the score, the depth, the bound
// (0 marks an empty entry) and the age of the search that wrote it.

/// Bit offset of the move field (16 bits).
const MOVE_SHIFT: u32 = 0;
/// Bit offset of the score field (16 bits, two's complement).
const SCORE_SHIFT: u32 = 16;
/// Bit offset of the depth field (8 bits).
const DEPTH_SHIFT: u32 = 32;
/// Bit offset of the bound field (2 bits).
const BOUND_SHIFT: u32 = 40;
/// Bit offset of the age field (6 bits).
const AGE_SHIFT: u32 = 42;
/// Mask of a 16-bit field.
const MASK16: u64 = 0xFFFF;
/// Mask of the depth field.
const DEPTH_MASK: u64 = 0xFF;
/// Mask of the bound field.
const BOUND_MASK: u64 = 3;
/// Ages count modulo 64: the age field's mask.
const AGE_MASK: u8 = 63;

fn pack(h: Hit, age: u8) -> u64 {
    let mv = h.move_index.map_or(0, |i| i as u64 + 1);
    debug_assert!(mv <= MASK16, "move index {mv} does not fit its field");
    (mv << MOVE_SHIFT)
        | ((h.score as u16 as u64) << SCORE_SHIFT)
        | ((h.depth as u64) << DEPTH_SHIFT)
        | ((h.bound as u64) << BOUND_SHIFT)
        | (((age & AGE_MASK) as u64) << AGE_SHIFT)
}

fn unpack(d: u64) -> Option<(Hit, u8)> {
    let bound = match (d >> BOUND_SHIFT) & BOUND_MASK {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    let mv = ((d >> MOVE_SHIFT) & MASK16) as u16;
    Some((
        Hit {
            move_index: mv.checked_sub(1),
            score: ((d >> SCORE_SHIFT) & MASK16) as u16 as i16,
            depth: ((d >> DEPTH_SHIFT) & DEPTH_MASK) as u8,
            bound,
        },
        ((d >> AGE_SHIFT) as u8) & AGE_MASK,
    ))
}

/// Asks the kernel for 2 MiB pages under the table: random probes then miss
/// the TLB far less often (Linux with transparent huge pages in `madvise` mode).
fn advise_huge_pages(buckets: &Vec<Bucket>) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = buckets.as_ptr() as usize;
        let end = start + buckets.capacity() * size_of::<Bucket>();
        let aligned = start.div_ceil(PAGE) * PAGE;
        if end > aligned {
            // SAFETY: the range lies inside this vector's own allocation;
            // madvise only changes how the kernel backs it, never its contents.
            unsafe {
                libc::madvise(
                    aligned as *mut libc::c_void,
                    end - aligned,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buckets;
}

impl Table {
    /// A table of about `size` MiB; aborts when the memory cannot be had
    /// ([`Table::try_new`] says so instead).
    pub fn new(size: HashSize) -> Table {
        Table::try_new(size).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Whether `count` tables of about `size` MiB can be had, asked of the
    /// allocator without touching the memory.
    pub fn can_have(size: HashSize, count: usize) -> Result<(), String> {
        let n = (size.get() << 20) / size_of::<Bucket>();
        let mut buckets: Vec<Bucket> = Vec::new();
        n.checked_mul(count)
            .and_then(|total| buckets.try_reserve_exact(total).ok())
            .ok_or_else(|| {
                format!(
                    "cannot have {count} x {} MiB of memory for hash tables",
                    size.get()
                )
            })
    }

    /// A table of about `size` MiB, or why the memory could not be had.
    pub fn try_new(size: HashSize) -> Result<Table, String> {
        let n = (size.get() << 20) / size_of::<Bucket>();
        let mut buckets: Vec<Bucket> = Vec::new();
        buckets.try_reserve_exact(n).map_err(|_| {
            format!(
                "cannot have {} MiB of memory for the hash table",
                size.get()
            )
        })?;
        advise_huge_pages(&buckets);
        buckets.resize_with(n, Bucket::default);
        Ok(Table {
            buckets,
            age: AtomicU8::new(0),
        })
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * size_of::<Bucket>()
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        let len = self.buckets.len();
        // SAFETY: the buckets are plain atomics, for which all-zero bytes are
        // the default (empty) value; `&mut self` excludes every other access.
        // One `memset` of the whole table streams past the cache, about twice
        // as fast as storing bucket by bucket.
        unsafe { std::ptr::write_bytes(self.buckets.as_mut_ptr(), 0, len) };
        self.age.store(0, Relaxed);
    }

    /// Marks the start of a new search: older entries become cheaper to replace.
    pub fn new_search(&self) {
        self.age
            .store(self.age.load(Relaxed).wrapping_add(1) & AGE_MASK, Relaxed);
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        let i = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[i]
    }

    /// Starts loading a position's bucket into the cache, so that a later
    /// [`Table::probe`] does not wait for memory.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: prefetching is a hint; any address is allowed, and this one is valid.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks a position up by its hash.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        for e in &self.bucket(key).0 {
            let data = e.data.load(Relaxed);
            if e.check.load(Relaxed) ^ data == key {
                return unpack(data).map(|(h, _)| h);
            }
        }
        None
    }

    /// Stores a search result, replacing the least valuable entry of the bucket.
    #[inline]
    pub fn store(&self, key: u64, hit: Hit) {
        let age = self.age.load(Relaxed);
        let bucket = self.bucket(key);
        let mut victim = &bucket.0[0];
        let mut worst = i32::MAX;
        for e in &bucket.0 {
            let data = e.data.load(Relaxed);
            let old = unpack(data);
            if e.check.load(Relaxed) ^ data == key {
                // Same position: keep a deeper exact-enough result's move if we have none.
                let mut hit = hit;
                if let Some((prev, _)) = old {
                    if hit.move_index.is_none() {
                        hit.move_index = prev.move_index;
                    }
                    if prev.depth > hit.depth + 2 && hit.bound != Bound::Exact {
                        return;
                    }
                }
                let d = pack(hit, age);
                e.data.store(d, Relaxed);
                e.check.store(key ^ d, Relaxed);
                return;
            }
            let value = match old {
                None => i32::MIN,
                Some((h, a)) => h.depth as i32 - 8 * (age.wrapping_sub(a) & AGE_MASK) as i32,
            };
            if value < worst {
                worst = value;
                victim = e;
            }
        }
        let d = pack(hit, age);
        victim.data.store(d, Relaxed);
        victim.check.store(key ^ d, Relaxed);
    }

    /// Permille of a sample of entries written in the current search.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Relaxed);
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for b in &self.buckets[..sample] {
            for e in &b.0 {
                if let Some((_, a)) = unpack(e.data.load(Relaxed)) {
                    used += (a == age) as u32;
                }
            }
        }
        (used * 1000) / (sample * BUCKET).max(1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Writes `text` to `root/rel`, making its folders.
    fn put(root: &std::path::Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_control_group_limits_the_memory() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Version 2: the job's own group says "max", its parent 2 GiB.
        put(root, "slurm/job_7/memory.max", "max\n");
        put(root, "slurm/memory.max", "2147483648\n");
        assert_eq!(cgroup_limit("0::/slurm/job_7\n", root), Some(2 << 30));
        // Version 1 (beside an empty unified line): the least of the group
        // and its ancestors, whichever is lower.
        put(root, "memory/job/memory.limit_in_bytes", "1073741824\n");
        put(
            root,
            "memory/memory.limit_in_bytes",
            "9223372036854771712\n",
        );
        let v1 = "5:cpu,cpuacct:/job\n4:memory:/job\n0::/\n";
        assert_eq!(cgroup_limit(v1, root), Some(1 << 30));
        // No memory controller, no files, unreadable text, or a climb out:
        // no limit.
        assert_eq!(cgroup_limit("3:cpu:/job\n", root), None);
        assert_eq!(cgroup_limit("0::/elsewhere\n", &root.join("none")), None);
        put(root, "bad/memory.max", "lots\n");
        assert_eq!(cgroup_limit("0::/bad\n", root), None);
        assert_eq!(cgroup_limit("0::/slurm/../../etc\n", root), None);
        assert_eq!(cgroup_limit("not a cgroup line", root), None);
    }

    #[test]
    fn a_table_beyond_the_memory_is_an_error() {
        let e = Table::try_new(HashSize(1 << 40)).err().unwrap();
        assert!(
            e.starts_with("cannot have 1099511627776 MiB of memory for the hash table"),
            "{e}"
        );
    }

    fn hit(i: u16, score: i16, depth: u8) -> Hit {
        Hit {
            move_index: Some(i),
            score,
            depth,
            bound: Bound::Exact,
        }
    }

    #[test]
    fn store_and_probe() {
        let t = Table::new(HashSize::MIN);
        assert_eq!(t.probe(42), None);
        t.store(42, hit(3, -123, 7));
        assert_eq!(t.probe(42), Some(hit(3, -123, 7)));
        assert_eq!(t.probe(43), None);
        let h = Hit {
            move_index: None,
            score: i16::MIN,
            depth: 255,
            bound: Bound::Upper,
        };
        t.store(7, h);
        assert_eq!(t.probe(7), Some(h));
    }

    #[test]
    fn clear_forgets_every_entry() {
        let mut t = Table::new(HashSize::MIN);
        let keys: Vec<u64> = (1..5000u64)
            .map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        for &k in &keys {
            t.store(k, hit(1, 5, 3));
        }
        assert!(keys.iter().any(|&k| t.probe(k).is_some()));
        t.new_search();
        t.clear();
        assert!(keys.iter().all(|&k| t.probe(k).is_none()));
        assert_eq!(t.age.load(Relaxed), 0);
        t.store(keys[0], hit(2, 9, 4));
        assert_eq!(t.probe(keys[0]), Some(hit(2, 9, 4)));
    }

    #[test]
    fn a_bucket_keeps_the_deepest_when_full() {
        let t = Table::new(HashSize::MIN);
        let n = t.buckets.len() as u64;
        // Keys that all map to bucket 0: small multiples of 2^64 / n.
        let keys: Vec<u64> = (1..=5u64).map(|i| i * (u64::MAX / n / 8)).collect();
        for (i, &k) in keys.iter().enumerate() {
            t.store(k, hit(i as u16, 0, 10 - i as u8));
        }
        // The shallowest of the first four was replaced by the fifth.
        assert_eq!(t.probe(keys[0]).map(|h| h.depth), Some(10));
        assert_eq!(t.probe(keys[4]).map(|h| h.depth), Some(6));
        assert_eq!(t.probe(keys[3]), None);
    }

    /// Threads hammer the same few buckets; every hit must carry the data that
    /// was stored under that very key (the key is derived from the data).
    #[test]
    fn concurrent_writes_never_give_a_wrong_key_hit() {
        let t = Arc::new(Table::new(HashSize::MIN));
        let n = t.buckets.len() as u64;
        let threads: Vec<_> = (0..4u64)
            .map(|id| {
                let t = Arc::clone(&t);
                std::thread::spawn(move || {
                    let mut wrong = 0;
                    let mut hits = 0;
                    for i in 0..200_000u64 {
                        let v = (i * 7 + id) % 64;
                        let key = (v + 1) * (u64::MAX / n / 128) + (v << 1);
                        t.store(key, hit(v as u16, v as i16 * 3, v as u8));
                        let probe_v = (i * 13 + id * 5) % 64;
                        let probe_key = (probe_v + 1) * (u64::MAX / n / 128) + (probe_v << 1);
                        if let Some(h) = t.probe(probe_key) {
                            hits += 1;
                            if h != hit(probe_v as u16, probe_v as i16 * 3, probe_v as u8) {
                                wrong += 1;
                            }
                        }
                    }
                    (wrong, hits)
                })
            })
            .collect();
        let mut hits = 0;
        for th in threads {
            let (wrong, h) = th.join().unwrap();
            assert_eq!(wrong, 0);
            hits += h;
        }
        assert!(hits > 1000, "the test must exercise hits: {hits}");
    }
}
