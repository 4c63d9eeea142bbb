//! The table file: a header, one byte per position for each side to move,
//! and a checksum; written to a temporary name and renamed into place.

use super::material::Material;
use super::TbError;
use std::io::Write;
use std::path::Path;

/// The first bytes of every table file.
const MAGIC: &[u8; 8] = b"BUSHKATB";
/// The format version.
const VERSION: u32 = 1;
/// Header length: magic, version, material, positions per side.
pub const HEADER: usize = 8 + 4 + 4 + 8;

/// A 64-bit checksum of the data bytes (catches truncation and bit rot).
pub fn checksum(data: &[u8]) -> u64 {
    let mut h = 0x9E37_79B9_7F4A_7C15u64 ^ data.len() as u64;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(23) ^ w).wrapping_mul(0x0100_0000_01B3_0001);
    }
    for &b in chunks.remainder() {
        h = (h.rotate_left(23) ^ b as u64).wrapping_mul(0x0100_0000_01B3_0001);
    }
    h ^ (h >> 29)
}

/// The header of a table file: magic, version, material, positions per side.
pub fn header(mat: Material, per_side: u64) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&[mat.kings[0], mat.men[0], mat.kings[1], mat.men[1]]);
    h[16..].copy_from_slice(&per_side.to_le_bytes());
    h
}

/// Writes a table atomically ([`crate::files`]): the [`header`], the data
/// and its [`checksum`].
pub fn write(path: &Path, mat: Material, per_side: u64, data: &[u8]) -> Result<(), TbError> {
    crate::files::write_atomic_with(path, |f| {
        f.write_all(&header(mat, per_side))?;
        f.write_all(data)?;
        f.write_all(&checksum(data).to_le_bytes())
    })
    .map_err(|e| TbError::Io(path.display().to_string(), e.to_string()))
}

/// Reads and checks a table file; returns its material, positions per side
/// and the whole file (data from [`HEADER`]). Its header and size are
/// checked before the rest is read: anything but a regular file (a FIFO,
/// a device) is refused without being opened, and a file of another size
/// than its header gives is refused without being read.
pub fn read(path: &Path) -> Result<(Material, u64, Vec<u8>), TbError> {
    use std::io::Read;
    let name = path.display().to_string();
    let io = |e: std::io::Error| TbError::Io(name.clone(), e.to_string());
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(TbError::Corrupt(name, "not a regular file".into()));
    }
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut head = Vec::with_capacity(HEADER);
    (&mut file)
        .take(HEADER as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    let (mat, per_side, len) = check_header(&name, &head)?;
    if meta.len() != len as u64 {
        return Err(wrong_size(&name, meta.len(), len));
    }
    let mut bytes = Vec::with_capacity(len);
    bytes.extend_from_slice(&head);
    // One byte more than expected, to see a file that grew meanwhile.
    (&mut file)
        .take((len - HEADER + 1) as u64)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    check(&name, &bytes)?;
    Ok((mat, per_side, bytes))
}

/// The refusal of a file of `found` bytes where `len` were expected.
fn wrong_size(name: &str, found: u64, len: usize) -> TbError {
    TbError::Corrupt(
        name.to_string(),
        format!("{found} bytes, expected {len} (truncated or padded)"),
    )
}

/// Checks the header of a table file named `name` (its first [`HEADER`]
/// bytes, or fewer when the file is shorter); returns its material,
/// positions per side and the length the whole file must have.
fn check_header(name: &str, bytes: &[u8]) -> Result<(Material, u64, usize), TbError> {
    let corrupt = |why: &str| TbError::Corrupt(name.to_string(), why.to_string());
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err(corrupt("not a Bushka table file"));
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != VERSION {
        return Err(corrupt(&format!(
            "format version {version}, expected {VERSION}"
        )));
    }
    let mat = Material::new(bytes[12], bytes[13], bytes[14], bytes[15]);
    if !mat.in_range() {
        return Err(corrupt("material out of range"));
    }
    let mut n = [0u8; 8];
    n.copy_from_slice(&bytes[16..24]);
    let per_side = u64::from_le_bytes(n);
    let expected = super::index::Indexer::new(mat).size();
    if per_side != expected {
        return Err(corrupt(&format!(
            "{per_side} positions per side, {mat} has {expected}"
        )));
    }
    let len = per_side
        .checked_mul(2)
        .and_then(|d| usize::try_from(d).ok())
        .and_then(|d| d.checked_add(HEADER + 8))
        .ok_or_else(|| corrupt("size overflows"))?;
    Ok((mat, per_side, len))
}

/// Checks the bytes of a table file named `name` (header, size and
/// checksum); returns its material and positions per side.
pub fn check(name: &str, bytes: &[u8]) -> Result<(Material, u64), TbError> {
    let corrupt = |why: &str| TbError::Corrupt(name.to_string(), why.to_string());
    if bytes.len() < HEADER + 8 {
        return Err(corrupt("not a Bushka table file"));
    }
    let (mat, per_side, len) = check_header(name, bytes)?;
    if bytes.len() != len {
        return Err(wrong_size(name, bytes.len() as u64, len));
    }
    let data = &bytes[HEADER..len - 8];
    let mut c = [0u8; 8];
    c.copy_from_slice(&bytes[len - 8..]);
    if checksum(data) != u64::from_le_bytes(c) {
        return Err(corrupt("checksum mismatch"));
    }
    Ok((mat, per_side))
}
