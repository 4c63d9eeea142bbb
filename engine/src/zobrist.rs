//! Deterministic random keys for Zobrist hashing, computed at compile time.

/// The FNV-1a offset basis: [`fnv1a`] over no bytes.
pub const FNV1A_START: u64 = 0xcbf2_9ce4_8422_2325;

/// 64-bit FNV-1a over `bytes`, continued from the hash `h` ([`FNV1A_START`]
/// for a fresh hash). The one stable text and file hash of the program:
/// run ids, job names, weights-file checksums, the tuner's game keys.
pub fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// One step of SplitMix64: a well-mixed 64-bit sequence from a counter.
pub const fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `N` keys drawn from a seed; distinct seeds give unrelated tables.
pub const fn keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut i = 0;
    while i < N {
        out[i] = splitmix64(
            seed.wrapping_mul(0x1000_0000_01B3)
                .wrapping_add(i as u64 * 0x9E37_79B9),
        );
        i += 1;
    }
    out
}
