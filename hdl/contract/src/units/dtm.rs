//! Definitions shared by the DTM@GPU units (spec/dtm.md): field widths, the `kid` tag and the
//! set-index hash `H` of §2.5, which the RTL and the models must compute identically.
//!
//! Widths (§2.2, A4): the digest assumes 64-bit values; warpforge's ISA is 32-bit, so
//! `val_bits` defaults to 32 (64 stays allowed). `pc_bits` 32, `uid_bits` 32 (A3: a linear
//! global thread id), `kid_bits` 4 (A18).

use crate::params::ParamSpec;

pub const VAL_BITS: ParamSpec = ParamSpec::int(
    "val_bits",
    8,
    64,
    32,
    "bits of a register value (sv1..sv3, res); the ISA is 32-bit (the digest's A4 assumes 64)",
);
pub const KID_BITS: ParamSpec = ParamSpec::int(
    "kid_bits",
    1,
    8,
    4,
    "kernel tag bits (A18: entries tagged by kernel)",
);
pub const UID_BITS: ParamSpec = ParamSpec::int(
    "uid_bits",
    1,
    32,
    32,
    "thread id bits (A3: linear global thread id)",
);
pub const PC_BITS: ParamSpec = ParamSpec::int("pc_bits", 8, 32, 32, "PC bits");
pub const SIMD_WIDTH: ParamSpec = ParamSpec::int(
    "simd_width",
    1,
    32,
    8,
    "lanes per request (the paper's core is 8-wide SIMD, §5.1)",
);

/// A value folded to 32 bits: high half XOR low half (§2.5).
pub fn fold(v: u64) -> u32 {
    (v ^ (v >> 32)) as u32
}

/// The hash `H(kid, pc, sv1, sv2, sv3)` of §2.5 as a 32-bit word: `pc >> 2`, XOR each folded
/// value rotated left by 0, 7 and 13, XOR `kid`. A table keeps the low log2(sets) bits. The
/// trace table's `H(kid, pc)` is the same function with zero values.
pub fn hash_h(kid: u64, pc: u64, sv: [u64; 3]) -> u32 {
    ((pc as u32) >> 2)
        ^ fold(sv[0])
        ^ fold(sv[1]).rotate_left(7)
        ^ fold(sv[2]).rotate_left(13)
        ^ kid as u32
}

/// The set of `H` in a table of `sets` sets (a power of two).
pub fn set_of(sets: usize, kid: u64, pc: u64, sv: [u64; 3]) -> usize {
    hash_h(kid, pc, sv) as usize & (sets - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_folds_rotates_and_tags() {
        assert_eq!(hash_h(0, 0x100, [0, 0, 0]), 0x40);
        assert_eq!(hash_h(0, 0, [5, 0, 0]), 5);
        assert_eq!(hash_h(0, 0, [0, 1, 0]), 1 << 7);
        assert_eq!(hash_h(0, 0, [0, 0, 1]), 1 << 13);
        assert_eq!(hash_h(3, 0, [0, 0, 0]), 3);
        // A 64-bit value: high half XOR low half; the rotation wraps.
        assert_eq!(hash_h(0, 0, [0x1_0000_0001, 0, 0]), 0);
        assert_eq!(hash_h(0, 0, [0, 0x8000_0000, 0]), 1 << 6);
        assert_eq!(
            set_of(128, 1, 0x40, [3, 4, 0]),
            (0x10 ^ 3 ^ (4 << 7) ^ 1) & 127
        );
    }
}
