//! The one way this program replaces a file: atomically and durably; a
//! reader of lines of bounded length ([`read_line_capped`]); and the one way
//! text read from outside is quoted in a one-line message
//! ([`escape_controls`]).
//!
//! Weights, endgame tables, summaries, plots and rewritten data files are all
//! written through [`write_atomic_with`]: the content goes to a fresh
//! temporary file in the target's folder, which is flushed to the disk and
//! renamed over the target, and then the folder itself is flushed so that the
//! rename survives a power cut. A crash at any moment leaves either the old
//! file or the new one, never a part of either. A process killed while it
//! writes leaves its temporary behind (hidden: `.NAME.XXXXXX.tmp` beside
//! NAME); the first write of the same file by a later process removes such
//! temporaries. A write holds its temporary locked while it lasts, so one
//! that no process holds (and that has not changed for [`UNHELD_TEMPORARY`],
//! the moment between its making and its locking) is a killed write's; where
//! the filesystem keeps no locks, a temporary unchanged for
//! [`STALE_TEMPORARY`] is taken as one (a younger one may be another
//! process's write in progress). A folder that several hosts write into
//! must keep locks for all of them (NFS keeps them on the server, unless
//! mounted `nolock`).
//! The new file keeps the permissions of the file it replaces; a new file is
//! readable by everyone and writable by its owner (`rw-r--r--`), as a file
//! made by other programs is (a temporary file alone would be private).
//! A link is followed (the file it names is replaced, the link kept).
//! Standard output or error (`/dev/stdout`, `/dev/fd/2`) is written through
//! the process's own descriptor, and a pipe or a character device is
//! appended to: they cannot be replaced. A block device or a socket is
//! refused.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// `text` with every control character (a line break, a carriage return, a
/// tab, a terminal escape), the Unicode line and paragraph separators and
/// the bidirectional overrides written as their escapes (`\n`, `\r`, `\t`,
/// `\u{1b}`, `\u{2028}`, `\u{202e}`): text from a file or a request, or an
/// error that quotes it, made fit for a one-line message that shows what
/// it says.
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control()
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Items named in a one-line message: the first `most`, then how many more
/// (`a, b, c, and 7 more`).
pub fn first_named<T: std::fmt::Display>(items: &[T], most: usize) -> String {
    let mut names: Vec<String> = items.iter().take(most).map(ToString::to_string).collect();
    if items.len() > most {
        names.push(format!("and {} more", items.len() - most));
    }
    names.join(", ")
}

/// `text` cut to `max` characters, with `...` when something was cut: how a
/// long piece of input is quoted in a one-line message.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

/// Text from outside (a file, another program) as a message quotes it: its
/// control characters escaped ([`escape_controls`]), then [`cut`] to `max`
/// characters, so that the message stays one short line.
pub fn quoted(text: &str, max: usize) -> String {
    cut(&escape_controls(text), max)
}

/// Replaces `path` with what `write` puts into the writer it is given.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&mut File>) -> io::Result<()>,
) -> io::Result<()> {
    write_atomic_path(path, |tmp| {
        let mut out = BufWriter::new(tmp);
        write(&mut out)?;
        out.flush()
    })
}

/// Replaces `path` with `bytes`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |out| out.write_all(bytes))
}

/// Replaces `path` with the file `write` fills through the open temporary
/// (for writers that want a `File`, such as an image encoder given a handle).
pub fn write_atomic_path(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let target = match write_target(path)? {
        Target::File(target) => target,
        // Written into: a stream is never cut or replaced.
        stream => {
            let mut file = open_target(stream)?;
            return write(&mut file).and_then(|()| file.flush());
        }
    };
    let path = target.as_path();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = format!(
        ".{}.",
        path.file_name().unwrap_or_default().to_string_lossy()
    );
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    // Once a process for each file it writes: a folder of many files is
    // not listed at every write.
    static CLEANED: std::sync::LazyLock<std::sync::Mutex<std::collections::HashSet<PathBuf>>> =
        std::sync::LazyLock::new(Default::default);
    let first = CLEANED
        .lock()
        .is_ok_and(|mut cleaned| cleaned.insert(dir.join(&prefix)));
    if first {
        remove_stale_temporaries(dir, &prefix);
    }
    let mut tmp = builder.tempfile_in(dir)?;
    // Held while the write lasts: a later process finds it is not a killed
    // write's (where the filesystem keeps no locks, its age tells).
    let _ = tmp.as_file().try_lock();
    write(tmp.as_file_mut())?;
    tmp.as_file().sync_all()?;
    // On failure the temporary is removed when `persist`'s error is dropped.
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// Checks that a file can be created in `dir` (an existing folder), by
/// creating and removing one there: a folder that exists but cannot be
/// written into (its permissions, a read-only mount, an immutable folder)
/// is found before work whose result would be written there at the end.
pub fn writable_dir(dir: &Path) -> io::Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    // Named as a temporary of a write; one a kill left behind is removed
    // by a later check once stale, as theirs are by later writes.
    remove_stale_temporaries(dir, ".write-check.");
    tempfile::Builder::new()
        .prefix(".write-check.")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map(drop)
}

/// Where [`write_atomic_path`] writes.
enum Target {
    /// Standard input, output or error (`/dev/stdout`, `/dev/fd/1`,
    /// `/proc/self/fd/1`, a link to one): written through a duplicate of
    /// the descriptor, which shares its position, whatever it leads to.
    Standard(u8),
    /// A pipe, a character device, or another descriptor of the process:
    /// appended to, never replaced.
    Stream(PathBuf),
    /// A regular file (or none yet) to replace: the file a link names, so
    /// that the link is kept.
    File(PathBuf),
}

/// Whether a write to `path` goes into a stream or replaces a file;
/// anything else (a block device, a socket, a folder) is refused.
fn write_target(path: &Path) -> io::Result<Target> {
    let refuse = |what: &str| {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is {what}, not a file to write", path.display()),
        ))
    };
    // Links followed, a dangling one to the file it will make (at most 40,
    // as the kernel does); a descriptor of the process is not followed
    // further, to what it happens to lead to.
    let mut target = path.to_path_buf();
    for _ in 0..40 {
        match descriptor(&target) {
            Some(0) => return refuse("standard input"),
            Some(fd @ 1..=2) => return Ok(Target::Standard(fd as u8)),
            // Another open descriptor: what it leads to, if it can be
            // written, is appended to (never replaced).
            Some(_) => {
                return match std::fs::metadata(&target) {
                    Ok(m) if m.is_dir() => refuse("a folder"),
                    Ok(m) if is_writable_stream(&m) || m.is_file() => Ok(Target::Stream(target)),
                    Ok(_) => refuse("neither a file, a pipe nor a character device"),
                    Err(_) => refuse("no open descriptor of this process"),
                }
            }
            None => {}
        }
        let link = match std::fs::symlink_metadata(&target) {
            Ok(m) if m.file_type().is_symlink() => std::fs::read_link(&target)?,
            _ => break,
        };
        target = match target.parent() {
            Some(dir) => dir.join(link),
            None => link,
        };
    }
    match std::fs::metadata(&target) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Target::File(target)),
        Err(e) => Err(e),
        Ok(m) if m.is_file() => Ok(Target::File(target)),
        Ok(m) if m.is_dir() => refuse("a folder"),
        Ok(m) if is_writable_stream(&m) => Ok(Target::Stream(target)),
        Ok(_) => refuse("neither a file, a pipe nor a character device"),
    }
}

/// A pipe or a character device (a terminal, `/dev/null`).
fn is_writable_stream(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        t.is_fifo() || t.is_char_device()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// The descriptor of this process a path names, however spelt:
/// `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`
/// or `/proc/PID/fd/N` with this process's id (the folder is resolved, the
/// name is not).
fn descriptor(path: &Path) -> Option<u32> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let dir = std::fs::canonicalize(dir).ok()?;
    let name = path.file_name()?.to_str()?;
    if dir == Path::new("/dev") {
        return match name {
            "stdin" => Some(0),
            "stdout" => Some(1),
            "stderr" => Some(2),
            _ => None,
        };
    }
    // `/dev/fd` and `/proc/self/fd` resolve to `/proc/PID/fd`.
    let own = Path::new("/proc")
        .join(std::process::id().to_string())
        .join("fd");
    if dir == own {
        return name.parse().ok();
    }
    None
}

/// Standard output (1) or error (2) as a file: a duplicate of the
/// descriptor, which shares its position with what this process prints
/// there (printed first).
fn standard(fd: u8) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let owned = if fd == 1 {
            io::stdout().flush()?;
            io::stdout().as_fd().try_clone_to_owned()?
        } else {
            io::stderr().flush()?;
            io::stderr().as_fd().try_clone_to_owned()?
        };
        Ok(File::from(owned))
    }
    #[cfg(not(unix))]
    {
        let _ = fd;
        Err(io::Error::other(
            "standard streams are written only on Unix",
        ))
    }
}

/// Opens `path` to append to (made if missing), as [`write_atomic_path`]
/// would write it: standard output or error through the process's own
/// descriptor, the file a link names, a pipe or a device; refused where it
/// refuses.
pub fn open_append(path: &Path) -> io::Result<File> {
    open_target(write_target(path)?)
}

/// A target opened to append to (made if missing).
fn open_target(target: Target) -> io::Result<File> {
    match target {
        Target::Standard(fd) => standard(fd),
        Target::Stream(p) | Target::File(p) => OpenOptions::new().create(true).append(true).open(p),
    }
}

/// Whether [`write_atomic_path`] would replace a file at `path` (true for
/// a file, a link to one, or none yet), rather than write into a stream or
/// refuse: a summary rewritten as a run goes is only rewritten in a file.
pub fn replaces_a_file(path: &Path) -> bool {
    matches!(write_target(path), Ok(Target::File(_)))
}

/// What a write to `path` would write: the file a link names (followed
/// even when it does not exist yet), or `path` itself for a stream; an
/// error for what would be refused (a folder, a socket, a block device,
/// a loop of links). Outputs are compared by it, so that two names of one
/// file are found to be one.
pub fn output_target(path: &Path) -> io::Result<PathBuf> {
    match write_target(path)? {
        Target::File(p) | Target::Stream(p) => Ok(p),
        Target::Standard(fd) => Ok(PathBuf::from(format!("/dev/fd/{fd}"))),
    }
}

/// How long a temporary of [`write_atomic_path`] must have been left
/// unchanged before the first write of the same file by a later process
/// removes it, where the filesystem keeps no locks (a process looks once a
/// file).
pub const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(3600);

/// How long a temporary that no process holds locked must have been left
/// unchanged before it is taken as a killed write's: a write locks its
/// temporary as soon as it has made it.
pub const UNHELD_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether a process holds the file at `path` locked; `None` where the
/// filesystem does not say (no locks kept, or it cannot be opened).
fn held(path: &Path) -> Option<bool> {
    let file = File::open(path).ok()?;
    match file.try_lock() {
        Ok(()) => Some(false),
        Err(std::fs::TryLockError::WouldBlock) => Some(true),
        Err(std::fs::TryLockError::Error(_)) => None,
    }
}

/// Removes the temporaries (`{prefix}XXXXXX.tmp` in `dir`) that writes of
/// the same file killed before their end left: those no process holds
/// once [`UNHELD_TEMPORARY`] old, or, where locks say nothing, once
/// [`STALE_TEMPORARY`] old; what cannot be read or removed is left.
fn remove_stale_temporaries(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // The prefix, six random characters, the suffix.
        let ours = name
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .is_some_and(|mid| mid.len() == 6 && mid.chars().all(|c| c.is_ascii_alphanumeric()));
        if !ours {
            continue;
        }
        let Some(age) = entry
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
        else {
            continue;
        };
        let stale = age >= UNHELD_TEMPORARY
            && match held(&entry.path()) {
                Some(held) => !held,
                None => age >= STALE_TEMPORARY,
            };
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Flushes a folder's entries (a rename) to the disk where the system allows.
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// The longest line read from a stream of text lines (training data, an
/// engine's output); no such line comes near it.
pub const MAX_LINE: u64 = 1 << 20;

/// What [`read_line_capped`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRead {
    /// The end of the input: nothing read.
    End,
    /// A line (its newline kept, if it had one).
    Line,
    /// The first `max` bytes of a longer line; the rest is still unread
    /// ([`skip_line`] passes it).
    TooLong,
}

/// Appends one line of at most `max` bytes (its newline not counted) to
/// `buf`: the way the engine driver and the tuner read lines of bounded
/// length, so a line without an end cannot fill the memory.
pub fn read_line_capped<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: u64,
) -> io::Result<LineRead> {
    let start = buf.len();
    // One byte past the cap tells a longer line without waiting for more
    // input (an engine's pipe may stay open and silent).
    let n = reader
        .by_ref()
        .take(max.saturating_add(1))
        .read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(LineRead::End);
    }
    let ended = buf.last() == Some(&b'\n');
    let content = n as u64 - u64::from(ended);
    if content > max {
        buf.truncate(start + max as usize);
        return Ok(LineRead::TooLong);
    }
    Ok(LineRead::Line)
}

/// Reads past the end of the current line.
pub fn skip_line<R: BufRead>(reader: &mut R) -> io::Result<()> {
    skip_line_capped(reader, u64::MAX).map(drop)
}

/// [`skip_line`] over at most `max` bytes: whether the line's end (or the
/// input's) came within them. An endless stream (`/dev/zero`) is not read
/// for ever.
pub fn skip_line_capped<R: BufRead>(reader: &mut R, max: u64) -> io::Result<bool> {
    let mut skipped = 0u64;
    loop {
        if skipped >= max {
            return Ok(false);
        }
        let (done, used) = {
            let buf = reader.fill_buf()?;
            if buf.is_empty() {
                return Ok(true);
            }
            let room = usize::try_from(max - skipped)
                .unwrap_or(usize::MAX)
                .min(buf.len());
            match buf[..room].iter().position(|&b| b == b'\n') {
                Some(i) => (true, i + 1),
                None => (false, room),
            }
        };
        reader.consume(used);
        skipped += used as u64;
        if done {
            return Ok(true);
        }
    }
}

/// `path` with `suffix` added to its file name (`train.data` and `.pdn`
/// give `train.data.pdn`): a file kept beside another.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// Opens (creating) and locks `path` so that no second process writes the
/// same results at once (one run or shard started twice, say); the lock
/// lasts as long as the returned file. Only a file is locked: standard
/// output shares its lock with the shell and every process it starts, and
/// a pipe or a device holds nothing a run could resume.
pub fn lock_exclusive(path: &Path) -> Result<File, String> {
    let file = open_append(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    if !replaces_a_file(path) {
        return Ok(file);
    }
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(format!(
            "{} is being written by another process (the same run started twice?)",
            path.display()
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(format!("cannot lock {}: {e}", path.display())),
    }
}

/// The most a run's JSON summary, a cluster's state or a problem set read
/// whole may hold: far more than any holds, far less than the memory.
pub const MAX_TEXT_FILE: u64 = 256 << 20;

/// [`read_capped`] as text: an error for bytes that are not UTF-8, as
/// [`std::fs::read_to_string`] gives.
pub fn read_to_string_capped(path: &Path, max: u64) -> io::Result<String> {
    utf8(read_capped(path, max)?)
}

/// Bytes read as text, with the error [`std::fs::read_to_string`] gives.
fn utf8(bytes: Vec<u8>) -> io::Result<String> {
    String::from_utf8(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// Reads a file that a run wrote (a summary, a cluster's state, a shard's
/// record or data) whole, if it holds at most `max` bytes: a regular file
/// only, so that a pipe named in its place (which would wait for a writer)
/// or an endless device is refused rather than waited for or read until
/// the memory is gone.
pub fn read_regular_to_string(path: &Path, max: u64) -> io::Result<String> {
    utf8(capped(open_regular(path)?, max)?)
}

/// Opens a regular file to read. A pipe or a device (which could wait for
/// a writer, or never end) is refused without being opened, and so is one
/// put in the file's place between the look and the opening.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let refused = || io::Error::new(io::ErrorKind::InvalidInput, "not a regular file");
    if !std::fs::metadata(path)?.is_file() {
        return Err(refused());
    }
    let file = File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(refused());
    }
    Ok(file)
}

/// What a terminal, a log or a page shows as a line break: an error message
/// holds none of them (each is one line; the fuzz targets check it).
pub const LINE_BREAKS: [char; 4] = ['\n', '\r', '\u{2028}', '\u{2029}'];

/// Reads `path` whole if it holds at most `max` bytes; a longer file (or an
/// endless device) is an error after `max + 1` bytes, not a filled memory.
pub fn read_capped(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    capped(File::open(path)?, max)
}

/// All of `file` if it holds at most `max` bytes.
fn capped(file: File, max: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("longer than {max} bytes"),
        ));
    }
    Ok(bytes)
}

/// Opens `path` (made if missing) to append lines after its last whole
/// one. A last line without its line break is kept and ended when
/// `is_whole` accepts it (a file edited by hand), else cut off (a write cut
/// short by a stop): results files that grow a line at a time. Only the
/// file's end is read (back to its last line break), so appending a line
/// costs the same however long the file; a last line without its break
/// longer than [`MAX_LINE`] is no line any reader takes, and is cut off.
/// Anything but a regular file is refused.
pub fn append_after_whole_lines(path: &Path, is_whole: impl Fn(&[u8]) -> bool) -> io::Result<File> {
    use std::io::{Seek, SeekFrom};
    let mut file = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let len = meta.len();
    let start = last_line_start(&mut file, len)?;
    if start < len {
        let whole = len - start <= MAX_LINE && {
            let mut tail = vec![0; (len - start) as usize];
            file.seek(SeekFrom::Start(start))?;
            file.read_exact(&mut tail)?;
            is_whole(&tail)
        };
        if whole {
            file.write_all(b"\n")?;
        } else {
            file.set_len(start)?;
        }
    }
    Ok(file)
}

/// Where the last line of a file `len` bytes long starts: just after its
/// last line break, found reading back from the end a block at a time.
fn last_line_start(file: &mut File, len: u64) -> io::Result<u64> {
    use std::io::{Seek, SeekFrom};
    const BLOCK: u64 = 64 << 10;
    let mut block = vec![0; BLOCK as usize];
    let mut end = len;
    while end > 0 {
        let from = end.saturating_sub(BLOCK);
        let part = &mut block[..(end - from) as usize];
        file.seek(SeekFrom::Start(from))?;
        file.read_exact(part)?;
        if let Some(p) = part.iter().rposition(|&b| b == b'\n') {
            return Ok(from + p as u64 + 1);
        }
        end = from;
    }
    Ok(0)
}

/// The message a panic carried (its payload, as `panic!` makes it), for a
/// one-line error where a thread's panic is caught.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("a panic");
    quoted(text, 200)
}

/// Where a reader of a growing file stands: the bytes it has read, and the
/// last [`ReadPlace::SEAM`] of them, by which a file appended to since (read
/// on from here) is told from one written anew (read again from its start).
/// The watch panel and the cluster driver follow files this way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadPlace {
    read: u64,
    seam: Vec<u8>,
}

impl ReadPlace {
    /// Bytes kept before the read position.
    pub const SEAM: usize = 256;

    /// Bytes read.
    pub fn read(&self) -> u64 {
        self.read
    }

    /// Moves past `text`, the next bytes of the file.
    pub fn pass(&mut self, text: &[u8]) {
        self.read += text.len() as u64;
        let kept = Self::SEAM.min(text.len());
        self.seam.extend_from_slice(&text[text.len() - kept..]);
        let over = self.seam.len().saturating_sub(Self::SEAM);
        self.seam.drain(..over);
    }

    /// True when `file` still holds what was read (it grew, or was
    /// rewritten with the same start): it is no shorter, and the bytes
    /// before the read position are those seen there. Leaves the file's
    /// position anywhere.
    pub fn still_in(&self, file: &mut File) -> io::Result<bool> {
        use std::io::{Seek, SeekFrom};
        if self.read == 0 {
            return Ok(true);
        }
        if file.metadata()?.len() < self.read {
            return Ok(false);
        }
        let mut now = vec![0; self.seam.len()];
        file.seek(SeekFrom::Start(self.read - self.seam.len() as u64))?;
        match file.read_exact(&mut now) {
            // Cut between the look at its length and the reading.
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
            Err(e) => Err(e),
            Ok(()) => Ok(now == self.seam),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A place follows a file appended to, and tells it from one written
    /// anew, shorter, longer, or the same length with other last bytes.
    #[test]
    fn a_read_place_tells_a_file_appended_to_from_one_written_anew() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("grows.txt");
        let first: Vec<u8> = (0..600u32).map(|i| b'a' + (i % 26) as u8).collect();
        std::fs::write(&path, &first).unwrap();
        let mut place = ReadPlace::default();
        assert!(place.still_in(&mut File::open(&path).unwrap()).unwrap());
        place.pass(&first[..100]);
        place.pass(&first[100..]);
        assert_eq!(place.read(), 600);
        assert_eq!(place.seam, first[600 - ReadPlace::SEAM..]);
        // Appended to.
        let mut grown = first.clone();
        grown.extend_from_slice(b"more");
        std::fs::write(&path, &grown).unwrap();
        assert!(place.still_in(&mut File::open(&path).unwrap()).unwrap());
        // Cut short.
        std::fs::write(&path, &first[..599]).unwrap();
        assert!(!place.still_in(&mut File::open(&path).unwrap()).unwrap());
        // Written anew, longer, with another byte just before the place.
        let mut other = grown.clone();
        other[599] = b'!';
        std::fs::write(&path, &other).unwrap();
        assert!(!place.still_in(&mut File::open(&path).unwrap()).unwrap());
        // A byte before the seam changed is not seen (the seam's bound).
        let mut far = grown.clone();
        far[0] = b'!';
        std::fs::write(&path, &far).unwrap();
        assert!(place.still_in(&mut File::open(&path).unwrap()).unwrap());
        // A short file keeps all it read.
        let mut short = ReadPlace::default();
        short.pass(b"ab");
        short.pass(b"");
        assert_eq!((short.read(), &short.seam[..]), (2, &b"ab"[..]));
        std::fs::write(&path, b"abc").unwrap();
        assert!(short.still_in(&mut File::open(&path).unwrap()).unwrap());
        std::fs::write(&path, b"xbc").unwrap();
        assert!(!short.still_in(&mut File::open(&path).unwrap()).unwrap());
    }

    #[test]
    fn a_list_names_its_first_items_then_how_many_more() {
        assert_eq!(first_named(&["a", "b"], 3), "a, b");
        assert_eq!(first_named(&["a", "b", "c"], 3), "a, b, c");
        assert_eq!(first_named(&[1, 2, 3, 4, 5], 3), "1, 2, 3, and 2 more");
        assert_eq!(first_named::<u8>(&[], 3), "");
    }

    /// A write removes the temporaries that killed writes of the same file
    /// left: held by no process and a little old (an hour where locks say
    /// nothing). One just made (being locked), one held however old
    /// (another write in progress), another file's and other names stay.
    #[test]
    fn a_write_removes_the_temporaries_killed_writes_of_its_file_left() {
        let dir = tempfile::tempdir().unwrap();
        let now = std::time::SystemTime::now();
        let make = |name: &str, age: std::time::Duration| {
            let path = dir.path().join(name);
            let f = File::create(&path).unwrap();
            f.set_modified(now - age).unwrap();
            path
        };
        let minute = std::time::Duration::from_secs(60);
        let killed = make(".w.json.aB3xYz.tmp", minute);
        let long_dead = make(".w.json.cD4wXy.tmp", STALE_TEMPORARY * 2);
        let just_made = make(".w.json.Qw12er.tmp", std::time::Duration::ZERO);
        let writing = make(".w.json.Zx98yt.tmp", STALE_TEMPORARY * 2);
        let holder = File::open(&writing).unwrap();
        holder.try_lock().unwrap();
        let other = make(".v.json.aB3xYz.tmp", minute);
        let notes = make(".w.json.notes.tmp", minute);
        let longer = make(".w.json.bak.aB3xYz.tmp", minute);
        write_atomic(&dir.path().join("w.json"), b"{}").unwrap();
        assert!(!killed.exists() && !long_dead.exists());
        for kept in [&just_made, &writing, &other, &notes, &longer] {
            assert!(kept.exists(), "{}", kept.display());
        }
        assert_eq!(std::fs::read(dir.path().join("w.json")).unwrap(), b"{}");
        drop(holder);
    }

    /// A write holds its temporary locked while it lasts.
    #[test]
    fn a_write_holds_its_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.txt");
        let mut seen = Vec::new();
        write_atomic_with(&target, |_| {
            for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
                seen.push((entry.file_name(), held(&entry.path())));
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0].1, Some(true), "{seen:?}");
    }

    #[test]
    fn cut_counts_characters_and_marks_what_it_cut() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "abc...");
        assert_eq!(cut("ééé", 2), "éé...");
        assert_eq!(cut("", 0), "");
        // Quoted text is escaped first, then cut: one short line.
        assert_eq!(quoted("a\nb", 3), "a\\n...");
        assert_eq!(quoted("ab", 3), "ab");
    }

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(
            escape_controls("a\nb\r\tc\u{1b}[2J\u{7f} é \"q\" \\ \u{2028}\u{202e}x"),
            "a\\nb\\r\\tc\\u{1b}[2J\\u{7f} é \"q\" \\ \\u{2028}\\u{202e}x"
        );
    }

    #[test]
    fn lines_are_read_up_to_the_cap_and_a_longer_one_is_named() {
        let text = b"ab\nwxyz\ncdefgh\nij\nlast";
        let mut r = io::BufReader::with_capacity(2, &text[..]);
        let mut buf = Vec::new();
        let mut next = |r: &mut io::BufReader<&[u8]>| {
            buf.clear();
            let read = read_line_capped(r, &mut buf, 4).unwrap();
            (read, String::from_utf8(buf.clone()).unwrap())
        };
        assert_eq!(next(&mut r), (LineRead::Line, "ab\n".into()));
        // Exactly the cap, and its newline.
        assert_eq!(next(&mut r), (LineRead::Line, "wxyz\n".into()));
        assert_eq!(next(&mut r), (LineRead::TooLong, "cdef".into()));
        skip_line(&mut r).unwrap();
        assert_eq!(next(&mut r), (LineRead::Line, "ij\n".into()));
        // Exactly the cap, without a newline, at the end of the input.
        assert_eq!(next(&mut r), (LineRead::Line, "last".into()));
        assert_eq!(next(&mut r), (LineRead::End, String::new()));
        skip_line(&mut r).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_is_readable_by_all_and_a_replaced_one_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.md");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        write_atomic(&path, b"one").unwrap();
        assert_eq!(mode(&path), 0o644);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn appends_after_the_last_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let append = |line: &str| {
            let mut f =
                append_after_whole_lines(&path, |t| t.starts_with(b"{") && t.ends_with(b"}"))
                    .unwrap();
            f.write_all(line.as_bytes()).unwrap();
        };
        append("{1}\n");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{1}\n");
        // Cut short by a stop: cut off.
        std::fs::write(&path, "{1}\n{2").unwrap();
        append("{3}\n");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{1}\n{3}\n");
        // Whole, without its line break: kept and ended.
        std::fs::write(&path, "{1}\n{2}").unwrap();
        append("{3}\n");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{1}\n{2}\n{3}\n");
        assert_eq!(with_suffix(&path, ".pdn"), dir.path().join("r.jsonl.pdn"));
        // Lines longer than a block read back from the end: the last line
        // break is found however far back it is.
        let long = format!("{{{}}}", "x".repeat(200 << 10));
        std::fs::write(&path, format!("{long}\n{long}\n{{2")).unwrap();
        append("{3}\n");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{long}\n{long}\n{{3}}\n")
        );
        std::fs::write(&path, format!("{long}\n{long}")).unwrap();
        append("{3}\n");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{long}\n{long}\n{{3}}\n")
        );
        // A last line past MAX_LINE with no break is no line: cut off, as
        // is a first line cut short.
        let huge = format!("{{{}}}", "x".repeat(MAX_LINE as usize));
        std::fs::write(&path, format!("{{1}}\n{huge}")).unwrap();
        append("{3}\n");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{1}\n{3}\n");
        std::fs::write(&path, "{1").unwrap();
        append("{3}\n");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{3}\n");
        // Not a regular file (a device that reads without end): refused.
        #[cfg(unix)]
        {
            let err = append_after_whole_lines(Path::new("/dev/zero"), |_| true).unwrap_err();
            assert_eq!(err.to_string(), "not a regular file");
        }
    }

    /// A pipe (or a device) is written into, not replaced by a file; a
    /// link is followed, its target replaced and the link kept.
    #[cfg(unix)]
    #[test]
    fn a_pipe_is_written_into_and_a_link_followed() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_atomic(&fifo, b"through").unwrap();
        // Checked before the reader is awaited: had the pipe been replaced,
        // its reader would wait for ever.
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(reader.join().unwrap(), b"through");
        let target = dir.path().join("real.json");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        // A link to a file not made yet: the file is made, the link kept.
        let later = dir.path().join("later.json");
        std::os::unix::fs::symlink("later-target.json", &later).unwrap();
        assert!(replaces_a_file(&later));
        write_atomic(&later, b"made").unwrap();
        assert!(std::fs::symlink_metadata(&later)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            std::fs::read(dir.path().join("later-target.json")).unwrap(),
            b"made"
        );
        // Only files are rewritten as a run goes; a socket is refused.
        assert!(replaces_a_file(&target) && !replaces_a_file(&fifo));
        assert!(!replaces_a_file(Path::new("/dev/stdout")));
        // A stream is opened but not locked (two runs may both print).
        let first = lock_exclusive(Path::new("/dev/null")).unwrap();
        assert!(lock_exclusive(Path::new("/dev/null")).is_ok());
        drop(first);
        let locked = lock_exclusive(&target).unwrap();
        assert!(lock_exclusive(&target)
            .unwrap_err()
            .contains("another process"));
        drop(locked);
        // Standard input, and a descriptor not open, are refused.
        for (path, why) in [
            ("/dev/stdin", "is standard input"),
            ("/dev/fd/1000", "is no open descriptor of this process"),
        ] {
            let err = output_target(Path::new(path)).unwrap_err().to_string();
            assert!(err.contains(why), "{err}");
        }
        assert!(!replaces_a_file(Path::new("/dev/null")));
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let err = write_atomic(&socket, b"x").unwrap_err().to_string();
        assert!(
            err.contains("neither a file, a pipe nor a character device"),
            "{err}"
        );
        assert!(std::fs::symlink_metadata(&socket)
            .unwrap()
            .file_type()
            .is_socket());
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.json");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        write_atomic(&path, b"old").unwrap();
        let e = write_atomic_with(&path, |out| {
            out.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "disk full");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/folder/f");
        assert!(write_atomic(&path, b"x").is_err());
    }
}
