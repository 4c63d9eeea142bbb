//! Endgame-table files: arbitrary bytes through the file check (a file that
//! passes has exactly its header's size), then a file made whole from the
//! input (a small material from its first bytes, the data cycled from the
//! rest, the right checksum) must pass, lose its pass with one byte changed,
//! and give a table whose indices and positions map onto each other.
#![no_main]

use engine::bushka::tb::{decode, encode, file, Indexer, Material, Table};
use engine::{Color, Game};
use libfuzzer_sys::fuzz_target;

/// Largest table made per input, in positions per side.
const MAX_POSITIONS: u64 = 1 << 16;

fuzz_target!(|data: &[u8]| {
    match file::check("fuzz.tb", data) {
        Ok((_, per_side)) => {
            assert_eq!(data.len() as u64, 2 * per_side + file::HEADER as u64 + 8)
        }
        Err(e) => fuzz_support::assert_one_line(&e.to_string()),
    }
    let Some((head, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let mat = Material::new(head[0] % 3, head[1] % 3, head[2] % 3, head[3] % 3);
    if mat.side(Color::White) == 0 || mat.side(Color::Black) == 0 {
        return;
    }
    let ix = Indexer::new(mat);
    let n = ix.size();
    if n == 0 || n > MAX_POSITIONS || rest.is_empty() {
        return;
    }
    let body: Vec<u8> = rest.iter().copied().cycle().take(2 * n as usize).collect();
    let mut whole = file::header(mat, n).to_vec();
    whole.extend_from_slice(&body);
    whole.extend_from_slice(&file::checksum(&body).to_le_bytes());
    assert_eq!(file::check("fuzz.tb", &whole).ok(), Some((mat, n)));
    let at = rest[0] as usize * 257 % whole.len();
    let mut changed = whole.clone();
    changed[at] ^= 1 << (rest[rest.len() - 1] % 8);
    assert!(
        file::check("fuzz.tb", &changed).is_err(),
        "a changed byte at {at} passes"
    );
    let table = Table::from_data(mat, &body);
    for side in [Color::White, Color::Black] {
        let bytes = table.side_bytes(side);
        assert_eq!(bytes.len() as u64, n);
        for chunk in rest.chunks(8).take(16) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            let idx = u64::from_le_bytes(word) % n;
            let Some(pos) = ix.position(idx, side) else {
                panic!("index {idx} of {n} has no position");
            };
            assert_eq!(pos.side(), side);
            assert_eq!(Material::of(&pos), mat);
            assert_eq!(ix.index(&pos), Some(idx), "{}", pos.to_text());
            let b = bytes[idx as usize];
            assert_eq!(encode(decode(b)), Some(b));
        }
    }
});
