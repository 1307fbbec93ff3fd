//! The FP32 rules, defined once so that the RTL FPU can match them bit for bit:
//!
//! - every operation rounds to nearest, ties to even (one rounding for `fma`);
//! - subnormal inputs are read as zero of the same sign, and a result that is subnormal after
//!   IEEE-754 rounding is replaced by zero of the same sign;
//! - any NaN result is the one canonical NaN `0x7fffffff`;
//! - `min`/`max` return the other operand when one is NaN (canonical NaN when both are) and
//!   order -0 below +0;
//! - compares see flushed inputs; `eq lt le gt ge` are false when either input is NaN, `ne` is
//!   true then (it is "not equal", the negation of `eq`);
//! - float → integer conversions saturate to the integer range and map NaN to 0; `rzi`
//!   truncates, `rni` rounds to nearest even; integer → float rounds to nearest even.

/// The canonical NaN.
pub const CANONICAL_NAN: u32 = 0x7FFF_FFFF;

const EXP_MASK: u32 = 0x7F80_0000;
const SIGN: u32 = 0x8000_0000;

/// An input as the FPU sees it: subnormals read as signed zero.
#[inline(always)]
pub fn flush_in(x: u32) -> f32 {
    if x & EXP_MASK == 0 {
        f32::from_bits(x & SIGN)
    } else {
        f32::from_bits(x)
    }
}

/// A result as the FPU writes it: NaN canonical, subnormal flushed to signed zero.
#[inline(always)]
pub fn flush_out(r: f32) -> u32 {
    let b = r.to_bits();
    if r.is_nan() {
        CANONICAL_NAN
    } else if b & EXP_MASK == 0 {
        b & SIGN
    } else {
        b
    }
}

#[inline(always)]
pub fn add(a: u32, b: u32) -> u32 {
    flush_out(flush_in(a) + flush_in(b))
}

#[inline(always)]
pub fn sub(a: u32, b: u32) -> u32 {
    flush_out(flush_in(a) - flush_in(b))
}

#[inline(always)]
pub fn mul(a: u32, b: u32) -> u32 {
    flush_out(flush_in(a) * flush_in(b))
}

/// `a * b + c` with one rounding.
#[inline(always)]
pub fn fma(a: u32, b: u32, c: u32) -> u32 {
    flush_out(flush_in(a).mul_add(flush_in(b), flush_in(c)))
}

/// True when `x < y` in the order used by min/max: numeric, with -0 below +0.
fn below(x: f32, y: f32) -> bool {
    x < y || (x == 0.0 && y == 0.0 && x.is_sign_negative() && !y.is_sign_negative())
}

pub fn min(a: u32, b: u32) -> u32 {
    let (x, y) = (flush_in(a), flush_in(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => CANONICAL_NAN,
        (true, false) => flush_out(y),
        (false, true) => flush_out(x),
        _ => flush_out(if below(y, x) { y } else { x }),
    }
}

pub fn max(a: u32, b: u32) -> u32 {
    let (x, y) = (flush_in(a), flush_in(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => CANONICAL_NAN,
        (true, false) => flush_out(y),
        (false, true) => flush_out(x),
        _ => flush_out(if below(x, y) { y } else { x }),
    }
}

pub fn abs(a: u32) -> u32 {
    flush_out(flush_in(a).abs())
}

pub fn neg(a: u32) -> u32 {
    flush_out(-flush_in(a))
}

/// FP compare; `cond` is one of the six conditions.
#[inline(always)]
pub fn compare(cond: Cmp, a: u32, b: u32) -> bool {
    let (x, y) = (flush_in(a), flush_in(b));
    match cond {
        Cmp::Eq => x == y,
        Cmp::Ne => x != y,
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

pub fn f32_from_s32(a: u32) -> u32 {
    flush_out(a as i32 as f32)
}

pub fn f32_from_u32(a: u32) -> u32 {
    flush_out(a as f32)
}

/// Truncate toward zero, saturate, NaN → 0.
pub fn s32_from_f32_rz(a: u32) -> u32 {
    flush_in(a) as i32 as u32
}

/// Round to nearest even, saturate, NaN → 0.
pub fn s32_from_f32_rn(a: u32) -> u32 {
    flush_in(a).round_ties_even() as i32 as u32
}

/// Truncate toward zero, saturate to 0..=u32::MAX, NaN → 0.
pub fn u32_from_f32_rz(a: u32) -> u32 {
    flush_in(a) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    const MIN_NORMAL: u32 = 0x0080_0000;
    const ONE: u32 = 0x3F80_0000;

    #[test]
    fn subnormal_inputs_read_as_zero() {
        // 1.0 + smallest subnormal is exactly 1.0, and subnormal * huge is 0, not a normal.
        assert_eq!(add(ONE, 1), ONE);
        assert_eq!(mul(0x0000_0001, 0x7F00_0000), 0);
        assert_eq!(mul(0x8000_0001, 0x7F00_0000), SIGN);
        // A subnormal compares equal to zero.
        assert!(compare(Cmp::Eq, 0x0000_0010, 0));
    }

    #[test]
    fn subnormal_results_flush_to_signed_zero() {
        // MIN_NORMAL * 0.5 is subnormal in IEEE: flushed.
        assert_eq!(mul(MIN_NORMAL, 0x3F00_0000), 0);
        assert_eq!(mul(MIN_NORMAL | SIGN, 0x3F00_0000), SIGN);
        // MIN_NORMAL * 1.0 stays.
        assert_eq!(mul(MIN_NORMAL, ONE), MIN_NORMAL);
        // Difference of two nearby normals that is subnormal.
        assert_eq!(sub(0x0080_0001, MIN_NORMAL), 0);
    }

    #[test]
    fn nan_is_canonical_and_min_max_prefer_numbers() {
        let qnan = 0x7FC0_0001;
        let snan_neg = 0xFF80_0001;
        assert_eq!(add(qnan, ONE), CANONICAL_NAN);
        assert_eq!(mul(0x7F80_0000, 0), CANONICAL_NAN); // inf * 0
        assert_eq!(neg(snan_neg), CANONICAL_NAN);
        assert_eq!(min(qnan, ONE), ONE);
        assert_eq!(max(ONE, snan_neg), ONE);
        assert_eq!(min(qnan, snan_neg), CANONICAL_NAN);
        assert_eq!(min(0, SIGN), SIGN);
        assert_eq!(max(SIGN, 0), 0);
        assert!(!compare(Cmp::Eq, qnan, qnan));
        assert!(compare(Cmp::Ne, qnan, ONE));
        assert!(!compare(Cmp::Lt, qnan, ONE));
    }

    #[test]
    fn round_to_nearest_even() {
        // 1 + 2^-24 is a tie between 1 and 1 + 2^-23: rounds to 1 (even).
        assert_eq!(add(ONE, 0x3380_0000), ONE);
        // 1 + 3*2^-24 ties between 1+2^-23 and 1+2^-22: rounds to the even 1+2^-22.
        assert_eq!(add(ONE, 0x3440_0000), ONE + 2);
        // fma rounds once: (1+2^-12)^2 - 1 keeps the 2^-24 term that mul then sub would lose.
        let x = 0x3F80_0800; // 1 + 2^-12
        let fused = fma(x, x, 0xBF80_0000);
        let split = sub(mul(x, x), ONE);
        assert_eq!(f32::from_bits(fused), 2f32.powi(-11) + 2f32.powi(-24));
        assert_ne!(fused, split);
        // int → float: 2^24 + 1 ties to 2^24 (even), 2^24 + 3 to 2^24 + 4.
        assert_eq!(f32::from_bits(f32_from_s32(16_777_217)), 16_777_216.0);
        assert_eq!(f32::from_bits(f32_from_u32(16_777_219)), 16_777_220.0);
    }

    #[test]
    fn conversions_saturate() {
        assert_eq!(s32_from_f32_rz(2.7f32.to_bits()), 2);
        assert_eq!(s32_from_f32_rz((-2.7f32).to_bits()) as i32, -2);
        assert_eq!(s32_from_f32_rn(2.5f32.to_bits()), 2);
        assert_eq!(s32_from_f32_rn(3.5f32.to_bits()), 4);
        assert_eq!(s32_from_f32_rz(1e20f32.to_bits()), i32::MAX as u32);
        assert_eq!(s32_from_f32_rz((-1e20f32).to_bits()), i32::MIN as u32);
        assert_eq!(s32_from_f32_rz(CANONICAL_NAN), 0);
        assert_eq!(u32_from_f32_rz((-5.0f32).to_bits()), 0);
        assert_eq!(u32_from_f32_rz(5e9f32.to_bits()), u32::MAX);
    }
}
