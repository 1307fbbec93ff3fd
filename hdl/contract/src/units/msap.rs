//! Shared pieces of the MSAP units (spec/msap.md): the priority-level width parameter and the
//! PL quantiser of §2.2 both sides use.

use crate::params::ParamSpec;

/// `PL_BITS`: width of a priority level (3 in the paper: PL 0–7).
pub const PL_BITS: ParamSpec = ParamSpec::int(
    "pl_bits",
    1,
    4,
    3,
    "priority-level width (PL 0 .. 2^pl_bits - 1)",
);

/// The highest PL of `pl_bits`.
pub fn max_pl(pl_bits: usize) -> u64 {
    (1 << pl_bits) - 1
}

/// §2.2: `PL = min(2^PL_BITS − 1, occ >> PL_SHIFT)`.
pub fn quantise(occ: u64, pl_bits: usize, pl_shift: usize) -> u64 {
    (occ >> pl_shift).min(max_pl(pl_bits))
}

/// Bits of a counter that holds 0 ..= `max` (at least 1).
pub fn bits_for(max: usize) -> usize {
    crate::index_bits(max + 1)
}

#[cfg(test)]
mod tests {
    #[test]
    fn quantiser_table() {
        // §4.1.
        let occ = [0, 3, 4, 7, 8, 9, 10, 11, 12, 15, 16, 20, 24, 27, 28, 31, 32];
        let pl = [0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 4, 5, 6, 6, 7, 7, 7];
        for (o, p) in occ.iter().zip(pl) {
            assert_eq!(super::quantise(*o, 3, 2), p, "occ {o}");
        }
        assert_eq!(super::bits_for(0), 1);
        assert_eq!(super::bits_for(32), 6);
    }
}
