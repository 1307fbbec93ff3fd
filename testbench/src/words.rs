//! Reading and writing port values in flat word vectors by bit offset.

/// Read `width` (≤ 64) bits starting at bit `at` of `words`.
pub fn get(words: &[u64], at: usize, width: usize) -> u64 {
    let (w, b) = (at / 64, at % 64);
    let mut v = words[w] >> b;
    if b + width > 64 && b != 0 {
        v |= words[w + 1] << (64 - b);
    }
    if width == 64 {
        v
    } else {
        v & ((1u64 << width) - 1)
    }
}

/// Write `width` (≤ 64) bits of `value` at bit `at` of `words` (other bits untouched).
pub fn set(words: &mut [u64], at: usize, width: usize, value: u64) {
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let value = value & mask;
    let (w, b) = (at / 64, at % 64);
    words[w] = (words[w] & !(mask << b)) | (value << b);
    if b + width > 64 && b != 0 {
        let hi = 64 - b;
        let mhi = mask >> hi;
        words[w + 1] = (words[w + 1] & !mhi) | (value >> hi);
    }
}

/// OR `values`, each `width` (≤ 64) bits, into consecutive fields from bit `at` of `words`
/// (fields assumed zero, as in a freshly cleared output vector). One pass, a word at a time:
/// the fast way to write a table's per-row digest every cycle.
pub fn or_seq(words: &mut [u64], at: usize, width: usize, values: impl IntoIterator<Item = u64>) {
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let (mut w, mut b) = (at / 64, at % 64);
    for v in values {
        let v = v & mask;
        words[w] |= v << b;
        if b + width > 64 && b != 0 {
            words[w + 1] |= v >> (64 - b);
        }
        b += width;
        w += b / 64;
        b %= 64;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn or_seq_matches_set_field_by_field() {
        for width in [1, 3, 7, 13, 32, 63, 64] {
            let vals: Vec<u64> = (0..20u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            let (mut a, mut b) = ([0u64; 24], [0u64; 24]);
            super::or_seq(&mut a, 5, width, vals.iter().copied());
            for (i, &v) in vals.iter().enumerate() {
                super::set(&mut b, 5 + i * width, width, v);
            }
            assert_eq!(a, b, "width {width}");
        }
    }

    #[test]
    fn straddling_fields() {
        let mut w = [0u64; 3];
        super::set(&mut w, 60, 10, 0x3ff);
        assert_eq!(w[0] >> 60, 0xf);
        assert_eq!(w[1], 0x3f);
        assert_eq!(super::get(&w, 60, 10), 0x3ff);
        super::set(&mut w, 64, 64, u64::MAX);
        assert_eq!(super::get(&w, 64, 64), u64::MAX);
        assert_eq!(super::get(&w, 0, 60), 0);
    }
}

/// A mask of the low `n` bits (all 64 for `n` ≥ 64).
pub fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Word offset of port `name` among `slots` of `unit`'s layout; the contract always lists
/// the ports a model asks for, so a missing one is a bug in the model.
pub fn port_offset(slots: &[warpforge_contract::manifest::Slot], unit: &str, name: &str) -> usize {
    slots
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("{unit} contract has no port `{name}`"))
        .offset
}
