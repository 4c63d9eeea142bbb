//! The state of a fit on disk, so that a long fit can be resumed
//! (`bushka tune --resume`) and carried on past its epochs.
//!
//! A checkpoint holds everything the optimiser carries from one epoch to the
//! next (the parameters, Adam's moments and step count, the best epoch's
//! parameters and the loss curve), so a fit resumed from it goes on exactly
//! as it would have without the break: the epochs are deterministic, and the
//! floats are stored bit for bit. It also holds the fit's key (the settings
//! and the data's size and initial losses): a checkpoint is only resumed by
//! the fit that wrote it.
//!
//! The file: the line `bushka tune checkpoint 1`, the key as `name<TAB>value`
//! lines, an empty line, then little-endian binary: the epoch, the epochs
//! the fit was to run, Adam's steps, the best epoch and the parameter count
//! `n` (u64 each), four arrays of `n`
//! f64 (parameters, first and second moments, best parameters), the curve's
//! length and its (training, validation) losses as f64 pairs, and an FNV-1a
//! checksum (u64) of everything before it. It is written atomically
//! ([`engine::files`]).

use crate::error::TuneError;
use crate::train::EpochLoss;
use std::path::Path;

/// The first line of a checkpoint file.
const MAGIC: &[u8] = b"bushka tune checkpoint 1\n";
/// The longest key section read (a guard against a file that is not one).
const MAX_KEY_BYTES: usize = 64 * 1024;

/// The longest checkpoint read: four arrays of 8-byte numbers for the most
/// parameters a weights file can carry (4 bytes each, up to
/// [`engine::eval::MAX_WEIGHTS_FILE`]), with room for the key and the loss
/// curve. A longer file (a data file named by mistake, `/dev/zero`) is
/// refused instead of filling the memory.
pub const MAX_CHECKPOINT: u64 = 9 * engine::eval::MAX_WEIGHTS_FILE;

/// What identifies a fit: named values that a resumed fit must match.
pub type Key = Vec<(String, String)>;

/// A fit's state after an epoch.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The fit it belongs to.
    pub key: Key,
    /// The last epoch done.
    pub epoch: usize,
    /// The epochs the fit that wrote it was to run: fewer done means it was
    /// stopped before its end.
    pub planned: usize,
    /// Adam's step count.
    pub steps: u64,
    /// The epoch with the lowest validation loss so far.
    pub best_epoch: usize,
    /// The parameters after `epoch`.
    pub params: Vec<f64>,
    /// Adam's mean gradient.
    pub m: Vec<f64>,
    /// Adam's mean squared gradient.
    pub v: Vec<f64>,
    /// The parameters of `best_epoch`.
    pub best: Vec<f64>,
    /// The loss curve from epoch 0 to `epoch`.
    pub curve: Vec<EpochLoss>,
}

/// FNV-1a over `bytes` ([`engine::zobrist::fnv1a`]).
fn fnv1a(bytes: &[u8]) -> u64 {
    engine::zobrist::fnv1a(engine::zobrist::FNV1A_START, bytes)
}

impl Checkpoint {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.params.len();
        let mut out = Vec::with_capacity(MAGIC.len() + 256 + 32 * n + 16 * self.curve.len());
        out.extend_from_slice(MAGIC);
        for (name, value) in &self.key {
            out.extend_from_slice(format!("{name}\t{value}\n").as_bytes());
        }
        out.push(b'\n');
        let u64s = |out: &mut Vec<u8>, v: u64| out.extend_from_slice(&v.to_le_bytes());
        u64s(&mut out, self.epoch as u64);
        u64s(&mut out, self.planned as u64);
        u64s(&mut out, self.steps);
        u64s(&mut out, self.best_epoch as u64);
        u64s(&mut out, n as u64);
        for a in [&self.params, &self.m, &self.v, &self.best] {
            for x in a {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        u64s(&mut out, self.curve.len() as u64);
        for e in &self.curve {
            out.extend_from_slice(&e.train.to_le_bytes());
            out.extend_from_slice(&e.validation.to_le_bytes());
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// A checkpoint from a file's bytes; any damage is an error that says what.
    pub fn from_bytes(bytes: &[u8]) -> Result<Checkpoint, String> {
        if !bytes.starts_with(MAGIC) {
            return Err(
                "not a tuning checkpoint (its first line is not `bushka tune checkpoint 1`)".into(),
            );
        }
        if bytes.len() < MAGIC.len() + 8 {
            return Err("cut short".into());
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a(body) != u64::from_le_bytes(sum.try_into().map_err(|_| "cut short")?) {
            return Err("damaged (its checksum does not match)".into());
        }
        // From the magic line's newline: the key lines, then an empty line.
        let rest = &body[MAGIC.len() - 1..];
        let end = rest
            .windows(2)
            .take(MAX_KEY_BYTES)
            .position(|w| w == b"\n\n")
            .ok_or("no end to its key section")?;
        let text = std::str::from_utf8(&rest[1..end.max(1)]).map_err(|_| "its key is not UTF-8")?;
        let key = text
            .split('\n')
            .filter(|_| !text.is_empty())
            .map(|l| {
                l.split_once('\t')
                    .map(|(a, b)| (a.to_string(), b.to_string()))
                    .ok_or_else(|| format!("key line without a tab: {l:?}"))
            })
            .collect::<Result<Key, String>>()?;
        let mut r = Reader(&rest[end + 2..]);
        let epoch = r.count("epoch")?;
        let planned = r.count("planned epochs")?;
        let steps = r.u64()?;
        let best_epoch = r.count("best epoch")?;
        let n = r.count("parameter count")?;
        if r.0.len() / 32 < n {
            return Err(format!("cut short: {n} parameters announced"));
        }
        let params = r.f64s(n)?;
        let m = r.f64s(n)?;
        let v = r.f64s(n)?;
        let best = r.f64s(n)?;
        let len = r.count("curve length")?;
        if r.0.len() / 16 != len || r.0.len() % 16 != 0 {
            return Err(format!(
                "cut short or too long: {len} epochs of losses announced"
            ));
        }
        let curve = (0..len)
            .map(|e| {
                Ok(EpochLoss {
                    epoch: e,
                    train: r.f64()?,
                    validation: r.f64()?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        if len != epoch + 1 {
            return Err(format!("epoch {epoch} with {len} losses"));
        }
        if best_epoch > epoch {
            return Err(format!("best epoch {best_epoch} after epoch {epoch}"));
        }
        if ![&params, &m, &v, &best]
            .iter()
            .all(|a| a.iter().all(|x| x.is_finite()))
        {
            return Err("a parameter is not a number".into());
        }
        Ok(Checkpoint {
            key,
            epoch,
            planned,
            steps,
            best_epoch,
            params,
            m,
            v,
            best,
            curve,
        })
    }

    /// Writes the checkpoint atomically.
    pub fn write(&self, path: &Path) -> Result<(), TuneError> {
        engine::files::write_atomic(path, &self.to_bytes()).map_err(|error| TuneError::Io {
            path: path.display().to_string(),
            error,
        })
    }

    /// Whether the fit that wrote it ran all its epochs.
    pub fn finished(&self) -> bool {
        self.epoch >= self.planned
    }

    /// Reads a checkpoint; `None` when there is no file.
    pub fn read(path: &Path) -> Result<Option<Checkpoint>, TuneError> {
        Checkpoint::read_within(path, MAX_CHECKPOINT)
    }

    /// [`Checkpoint::read`], refusing a file longer than `max` bytes.
    fn read_within(path: &Path, max: u64) -> Result<Option<Checkpoint>, TuneError> {
        let bytes = match engine::files::read_capped(path, max) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => {
                return Err(TuneError::Io {
                    path: path.display().to_string(),
                    error,
                })
            }
        };
        Checkpoint::from_bytes(&bytes)
            .map(Some)
            .map_err(|m| TuneError::Checkpoint(format!("{}: {m}", path.display())))
    }

    /// Refuses a checkpoint written by another fit, naming the first
    /// difference.
    pub fn check_key(&self, key: &Key, path: &Path) -> Result<(), TuneError> {
        let other = |m: String| {
            TuneError::Checkpoint(format!(
                "{} is of another fit: {m} (name another --out, or remove it to start afresh)",
                path.display()
            ))
        };
        for (name, value) in key {
            match self.key.iter().find(|(n, _)| n == name) {
                Some((_, there)) if there == value => {}
                Some((_, there)) => {
                    return Err(other(format!(
                        "{name} {} there, {value} here",
                        engine::files::quoted(there, 60)
                    )))
                }
                None => return Err(other(format!("it has no {name}"))),
            }
        }
        if self.key.len() != key.len() {
            return Err(other(format!(
                "{} key entries there, {} here",
                self.key.len(),
                key.len()
            )));
        }
        Ok(())
    }
}

/// Reads little-endian numbers off the front of a slice.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u64(&mut self) -> Result<u64, String> {
        let (head, rest) = self.0.split_first_chunk::<8>().ok_or("cut short")?;
        self.0 = rest;
        Ok(u64::from_le_bytes(*head))
    }

    fn count(&mut self, what: &str) -> Result<usize, String> {
        let v = self.u64()?;
        usize::try_from(v)
            .ok()
            .filter(|&c| c < 1 << 40)
            .ok_or_else(|| format!("{what} {v} out of range"))
    }

    fn f64(&mut self) -> Result<f64, String> {
        self.u64().map(f64::from_bits)
    }

    fn f64s(&mut self, n: usize) -> Result<Vec<f64>, String> {
        (0..n).map(|_| self.f64()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            key: vec![
                ("lr".into(), "1.0".into()),
                ("training positions".into(), "12".into()),
            ],
            epoch: 2,
            planned: 5,
            steps: 6,
            best_epoch: 1,
            params: vec![1.5, -2.25, 0.1],
            m: vec![0.0, 1e-300, -0.5],
            v: vec![3.0, 4.0, 5.0],
            best: vec![1.0, 2.0, 3.0],
            curve: (0..3)
                .map(|e| EpochLoss {
                    epoch: e,
                    train: 0.1 / (e + 1) as f64,
                    validation: f64::NAN,
                })
                .collect(),
        }
    }

    #[test]
    fn a_checkpoint_reads_back_bit_for_bit() {
        let c = sample();
        let back = Checkpoint::from_bytes(&c.to_bytes()).unwrap();
        assert_eq!(back.key, c.key);
        assert_eq!(
            (back.epoch, back.planned, back.steps, back.best_epoch),
            (2, 5, 6, 1)
        );
        assert_eq!(back.params, c.params);
        assert_eq!(back.m, c.m);
        assert_eq!(back.v, c.v);
        assert_eq!(back.best, c.best);
        for (a, b) in back.curve.iter().zip(&c.curve) {
            assert_eq!(a.epoch, b.epoch);
            assert_eq!(a.train.to_bits(), b.train.to_bits());
            assert_eq!(a.validation.to_bits(), b.validation.to_bits());
        }
    }

    #[test]
    fn damage_anywhere_is_an_error_not_a_panic() {
        let bytes = sample().to_bytes();
        for cut in 0..bytes.len() {
            assert!(
                Checkpoint::from_bytes(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            let e = Checkpoint::from_bytes(&b).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
        }
        let e = Checkpoint::from_bytes(b"{\"mg\": []}").unwrap_err();
        assert!(e.starts_with("not a tuning checkpoint"), "{e}");
    }

    #[test]
    fn another_fit_is_named_by_its_first_difference() {
        let c = sample();
        let path = Path::new("t.checkpoint");
        assert!(c.check_key(&c.key, path).is_ok());
        let mut key = c.key.clone();
        key[0].1 = "2.0".into();
        let e = c.check_key(&key, path).unwrap_err().to_string();
        assert!(e.contains("lr 1.0 there, 2.0 here"), "{e}");
        key.push(("batch".into(), "5".into()));
        key[0].1 = "1.0".into();
        let e = c.check_key(&key, path).unwrap_err().to_string();
        assert!(e.contains("it has no batch"), "{e}");
    }

    /// A file past the bound is refused after one byte more than it is
    /// read; the bound itself is a constant of the reader.
    #[test]
    fn a_checkpoint_past_the_bound_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.checkpoint");
        let bytes = sample().to_bytes();
        std::fs::write(&path, &bytes).unwrap();
        let n = bytes.len() as u64;
        assert!(Checkpoint::read_within(&path, n).unwrap().is_some());
        let e = Checkpoint::read_within(&path, n - 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with(&format!("t.checkpoint: longer than {} bytes", n - 1)),
            "{e}"
        );
        assert!(Checkpoint::read(&dir.path().join("none"))
            .unwrap()
            .is_none());
    }
}
