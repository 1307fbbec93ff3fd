//! Bit sets of up to 256 indices and packed-field helpers shared by the four DWR models.

use super::*;

// ---------------------------------------------------------------------------------------
// Shared helpers: sets of up to 256 sub-warps, rows or entries; packed fields.

/// A set of up to 256 indices (sub-warps, PST rows, ILT entries): bit `i` = index `i`.
/// The contract caps N at 256 sub-warps, so every DWR vector fits in four words.
#[derive(Clone, Copy, Default, Eq)]
pub struct Bits(pub [u64; 4]);

impl PartialEq for Bits {
    #[inline]
    fn eq(&self, o: &Bits) -> bool {
        ((self.0[0] ^ o.0[0]) | (self.0[1] ^ o.0[1]) | (self.0[2] ^ o.0[2]) | (self.0[3] ^ o.0[3]))
            == 0
    }
}

impl Bits {
    pub const ZERO: Bits = Bits([0; 4]);

    /// Indices `0 … n−1`.
    #[inline]
    pub fn low(n: usize) -> Bits {
        let mut b = Bits::ZERO;
        for (k, w) in b.0.iter_mut().enumerate() {
            let lo = 64 * k;
            *w = if n >= lo + 64 {
                u64::MAX
            } else if n > lo {
                (1u64 << (n - lo)) - 1
            } else {
                0
            };
        }
        b
    }
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    #[inline]
    pub fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    #[inline]
    pub fn toggle(&mut self, i: usize) {
        self.0[i / 64] ^= 1 << (i % 64);
    }
    #[inline]
    pub fn is_zero(&self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }
    #[inline]
    pub fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    /// `self ∖ other`.
    #[inline]
    pub fn not_in(self, other: Bits) -> Bits {
        Bits([
            self.0[0] & !other.0[0],
            self.0[1] & !other.0[1],
            self.0[2] & !other.0[2],
            self.0[3] & !other.0[3],
        ])
    }
    /// `width` (≤ 64) bits starting at bit `at`.
    #[inline]
    pub fn bits(&self, at: usize, width: usize) -> u64 {
        get_bits(&self.0, at, width)
    }
    /// Indices `lo … hi−1`.
    pub fn range(lo: usize, hi: usize) -> Bits {
        Bits::low(hi).not_in(Bits::low(lo))
    }
    /// The first index ≥ `start`.
    #[inline]
    pub fn first_from(&self, start: usize) -> Option<usize> {
        let mut k = start / 64;
        if k >= 4 {
            return None;
        }
        let mut w = self.0[k] & (u64::MAX << (start % 64));
        loop {
            if w != 0 {
                return Some(64 * k + w.trailing_zeros() as usize);
            }
            k += 1;
            if k == 4 {
                return None;
            }
            w = self.0[k];
        }
    }
    /// The `k`-th index in ascending order (k < count).
    pub fn nth(&self, k: usize) -> Option<usize> {
        let mut k = k;
        for (i, &w) in self.0.iter().enumerate() {
            let c = w.count_ones() as usize;
            if k < c {
                let mut x = w;
                for _ in 0..k {
                    x &= x - 1;
                }
                return Some(64 * i + x.trailing_zeros() as usize);
            }
            k -= c;
        }
        None
    }
    /// The indices in ascending order.
    pub fn iter(&self) -> BitsIter {
        BitsIter { b: *self, k: 0 }
    }
    /// Read `nwords` words of a port.
    #[inline]
    pub fn read(words: &[u64], nwords: usize) -> Bits {
        let mut b = Bits::ZERO;
        b.0[..nwords].copy_from_slice(&words[..nwords]);
        b
    }
    /// Write `nwords` words of a port.
    #[inline]
    pub fn write(&self, out: &mut [u64], nwords: usize) {
        out[..nwords].copy_from_slice(&self.0[..nwords]);
    }
    /// Indices `0 … n−1`, each present with probability about `level`/8.
    pub fn random(rng: &mut Rng, n: usize, level: u8) -> Bits {
        let mut b = Bits::ZERO;
        for (k, w) in b.0.iter_mut().enumerate().take(n.div_ceil(64)) {
            *w = density_mask(rng, level);
            if n < 64 * (k + 1) {
                *w &= (1u64 << (n - 64 * k)) - 1;
            }
        }
        b
    }
}

impl BitAnd for Bits {
    type Output = Bits;
    #[inline]
    fn bitand(self, o: Bits) -> Bits {
        Bits([
            self.0[0] & o.0[0],
            self.0[1] & o.0[1],
            self.0[2] & o.0[2],
            self.0[3] & o.0[3],
        ])
    }
}

impl BitOr for Bits {
    type Output = Bits;
    #[inline]
    fn bitor(self, o: Bits) -> Bits {
        Bits([
            self.0[0] | o.0[0],
            self.0[1] | o.0[1],
            self.0[2] | o.0[2],
            self.0[3] | o.0[3],
        ])
    }
}

impl BitXor for Bits {
    type Output = Bits;
    #[inline]
    fn bitxor(self, o: Bits) -> Bits {
        Bits([
            self.0[0] ^ o.0[0],
            self.0[1] ^ o.0[1],
            self.0[2] ^ o.0[2],
            self.0[3] ^ o.0[3],
        ])
    }
}

impl fmt::Display for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&warpforge_contract::manifest::format_value(&self.0))
    }
}

impl fmt::Debug for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

pub struct BitsIter {
    pub(super) b: Bits,
    pub(super) k: usize,
}

impl Iterator for BitsIter {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.k < 4 {
            let w = self.b.0[self.k];
            if w != 0 {
                self.b.0[self.k] = w & (w - 1);
                return Some(64 * self.k + w.trailing_zeros() as usize);
            }
            self.k += 1;
        }
        None
    }
}

/// Move every `width`-bit field (< 64 bits) of an `nfields`-field image up by one field; the
/// top field falls off and field 0 becomes 0.
pub(super) fn shift_fields_up(img: &mut [u64], width: usize, nfields: usize) {
    for i in (0..img.len()).rev() {
        let carry = if i > 0 { img[i - 1] >> (64 - width) } else { 0 };
        img[i] = (img[i] << width) | carry;
    }
    let total = nfields * width;
    let top = img.len() - 1;
    if total - 64 * top < 64 {
        img[top] &= (1u64 << (total - 64 * top)) - 1;
    }
}

/// Bits at multiples of `w` (group base positions) in a word.
pub(super) fn base_word(w: usize) -> u64 {
    match w {
        2 => 0x5555_5555_5555_5555,
        4 => 0x1111_1111_1111_1111,
        8 => 0x0101_0101_0101_0101,
        _ => unreachable!("group size {w}: the contract allows 2, 4, 8"),
    }
}

/// Bit `nW` set iff all `W` bits of group `n` are set. Groups never straddle a word (W | 64).
pub(crate) fn group_all(x: Bits, w: usize) -> Bits {
    let mut out = Bits::ZERO;
    for k in 0..4 {
        let mut v = x.0[k];
        let mut step = 1;
        while step < w {
            v &= v >> step;
            step *= 2;
        }
        out.0[k] = v & base_word(w);
    }
    out
}

/// Bit `nW` set iff some bit of group `n` is set.
pub(crate) fn group_any(x: Bits, w: usize) -> Bits {
    let mut out = Bits::ZERO;
    for k in 0..4 {
        let mut v = x.0[k];
        let mut step = 1;
        while step < w {
            v |= v >> step;
            step *= 2;
        }
        out.0[k] = v & base_word(w);
    }
    out
}

/// From group base bits `nW` to every bit of those groups.
pub(crate) fn spread_groups(base: Bits, w: usize) -> Bits {
    let mut out = base;
    for k in 0..4 {
        let mut v = base.0[k] & base_word(w);
        let mut step = 1;
        while step < w {
            v |= v << step;
            step *= 2;
        }
        out.0[k] = v;
    }
    out
}

/// `width` (≤ 64) bits at bit `at` of `words` (inlined: the models read fields every cycle).
#[inline]
pub(super) fn get_bits(words: &[u64], at: usize, width: usize) -> u64 {
    let (w, b) = (at / 64, at % 64);
    let mut v = words[w] >> b;
    if b != 0 && b + width > 64 {
        v |= words[w + 1] << (64 - b);
    }
    if width >= 64 {
        v
    } else {
        v & ((1u64 << width) - 1)
    }
}

/// Write `width` (≤ 64) bits of `v` at bit `at` of `words`, other bits untouched.
#[inline]
pub(super) fn set_bits(words: &mut [u64], at: usize, width: usize, v: u64) {
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let v = v & mask;
    let (w, b) = (at / 64, at % 64);
    words[w] = (words[w] & !(mask << b)) | (v << b);
    if b != 0 && b + width > 64 {
        let hi = 64 - b;
        words[w + 1] = (words[w + 1] & !(mask >> hi)) | (v >> hi);
    }
}

/// Fixed-width fields in flat word vectors.
pub(crate) trait Fields {
    /// Field `i` of `width` bits (≤ 64).
    fn get_field(&self, i: usize, width: usize) -> u64;
    fn set_field(&mut self, i: usize, width: usize, v: u64);
    /// `width` bits at bit `bit` of the port starting at word `word`.
    fn field_at(&self, word: usize, bit: usize, width: usize) -> u64;
    fn set_field_at(&mut self, word: usize, bit: usize, width: usize, v: u64);
}

impl Fields for [u64] {
    #[inline]
    fn get_field(&self, i: usize, width: usize) -> u64 {
        get_bits(self, i * width, width)
    }
    #[inline]
    fn set_field(&mut self, i: usize, width: usize, v: u64) {
        set_bits(self, i * width, width, v)
    }
    #[inline]
    fn field_at(&self, word: usize, bit: usize, width: usize) -> u64 {
        get_bits(&self[word..], bit, width)
    }
    #[inline]
    fn set_field_at(&mut self, word: usize, bit: usize, width: usize, v: u64) {
        set_bits(&mut self[word..], bit, width, v)
    }
}

/// `values` packed as consecutive `width`-bit fields.
pub(crate) fn pack_fields(width: usize, values: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; (width * values.len()).div_ceil(64).max(1)];
    for (i, &v) in values.iter().enumerate() {
        out.set_field(i, width, v);
    }
    out
}

/// Builder of one spec vector (the four DWR units).
pub(crate) struct Vb {
    pub(super) v: SpecVector,
}

impl Vb {
    pub(crate) fn new(name: &str, unit: &'static str, sets: &[&str]) -> Vb {
        Vb {
            v: SpecVector {
                name: name.into(),
                unit,
                sets: sets.iter().map(|s| s.to_string()).collect(),
                cycles: vec![],
            },
        }
    }
    pub(crate) fn reset(mut self) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: vec![("reset", vec![1])],
            expect: vec![],
        });
        self
    }
    pub(crate) fn cycle(
        self,
        inputs: &[(&'static str, u64)],
        expect: &[(&'static str, u64)],
    ) -> Vb {
        let w =
            |l: &[(&'static str, u64)]| l.iter().map(|&(n, v)| (n, vec![v])).collect::<Vec<_>>();
        self.cycle_words(&w(inputs), &w(expect))
    }
    pub(crate) fn cycle_words(
        mut self,
        inputs: &[(&'static str, Vec<u64>)],
        expect: &[(&'static str, Vec<u64>)],
    ) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: inputs.to_vec(),
            expect: expect.to_vec(),
        });
        self
    }
    pub(crate) fn done(self) -> SpecVector {
        self.v
    }
}

pub(super) fn offset(slots: &[warpforge_contract::manifest::Slot], name: &str) -> usize {
    crate::words::port_offset(slots, "dwr", name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn bit_sets_across_words() {
        let mut b = Bits::ZERO;
        for i in [0, 63, 64, 130, 255] {
            b.set(i);
        }
        assert_eq!(b.count(), 5);
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![0, 63, 64, 130, 255]);
        assert_eq!(
            (b.nth(0), b.nth(2), b.nth(4), b.nth(5)),
            (Some(0), Some(64), Some(255), None)
        );
        assert_eq!(
            (b.first_from(1), b.first_from(65), b.first_from(256)),
            (Some(63), Some(130), None)
        );
        assert_eq!(Bits::low(70).count(), 70);
        assert_eq!(
            Bits::range(60, 70).iter().collect::<Vec<_>>(),
            (60..70).collect::<Vec<_>>()
        );
        assert_eq!(b.bits(62, 4), 0b0110);
        assert!(b.not_in(b).is_zero() && (b ^ b).is_zero() && (b | Bits::ZERO) == b);
    }

    #[test]
    pub(super) fn group_reductions_for_every_group_size() {
        for w in [2usize, 4, 8] {
            // Group 1 full, group 2 one bit, group 5 (second word for W=8 at bit 40) full.
            let mut x = Bits::ZERO;
            for k in 0..w {
                x.set(w + k);
                x.set(5 * w + k);
            }
            x.set(2 * w + 1);
            x.set(64 + w); // a group in the second word
            let all = group_all(x, w);
            assert_eq!(all.iter().collect::<Vec<_>>(), vec![w, 5 * w], "W = {w}");
            let any = group_any(x, w);
            assert_eq!(
                any.iter().collect::<Vec<_>>(),
                vec![w, 2 * w, 5 * w, 64 + w],
                "W = {w}"
            );
            let spread = spread_groups(all, w);
            assert_eq!(spread.count(), 2 * w);
            assert_eq!(spread & x, spread);
        }
    }

    #[test]
    pub(super) fn fields_straddle_words_and_shift_up() {
        let mut img = vec![0u64; 3];
        img.set_field(2, 30, 0x3FFF_FFFF);
        assert_eq!(img.get_field(2, 30), 0x3FFF_FFFF);
        assert_eq!(img.get_field(1, 30), 0);
        assert_eq!(pack_fields(32, &[1, 2, 3]), vec![1 | 2 << 32, 3]);
        // Three 20-bit stages: stage fields move up by one, the top one falls off.
        let mut pipe = pack_fields(20, &[5, 6, 7]);
        shift_fields_up(&mut pipe, 20, 3);
        assert_eq!(pipe, pack_fields(20, &[0, 5, 6]));
    }
}
