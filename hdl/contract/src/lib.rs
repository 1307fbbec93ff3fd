//! Contract types shared by the RTL (`warpforge-hdl`) and the reference models
//! (`warpforge-testbench`). They say *what* a unit is — its parameters, ports, tables and
//! encodings — never *how* it works: each side implements the behaviour independently.

pub mod checksum;
pub mod isa;
pub mod manifest;
pub mod params;
pub mod units;

pub use manifest::{Dir, Layout, Manifest, Port, Table};
pub use params::{ParamError, ParamKind, ParamSpec, Params, Value};

/// Number of bits needed to index `n` items (at least 1).
pub fn index_bits(n: usize) -> usize {
    let mut b = 1;
    while (1usize << b) < n {
        b += 1;
    }
    b
}

#[cfg(test)]
mod tests {
    use super::index_bits;
    #[test]
    fn index_bits_of_powers_and_between() {
        assert_eq!(index_bits(1), 1);
        assert_eq!(index_bits(2), 1);
        assert_eq!(index_bits(3), 2);
        assert_eq!(index_bits(48), 6);
        assert_eq!(index_bits(64), 6);
        assert_eq!(index_bits(65), 7);
    }
}
