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

#[cfg(test)]
mod tests {
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
