//! A small, stable, non-cryptographic hash (FNV-1a): lock byte ranges and
//! shortened terminal keys must come out the same in every process.

/// FNV-1a: a small, stable hash (also what keeps terminal keys apart).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}
