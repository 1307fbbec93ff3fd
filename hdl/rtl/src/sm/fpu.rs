//! The FP32 datapath of one `sm-alu` lane (docs/isa.md "FP32 rules"; contract
//! `warpforge_contract::units::sm_alu`).
//!
//! One fused multiply-add computes `add.f32`, `sub.f32`, `mul.f32` and `fma.rn.f32`:
//! `add(a, b) = a·1 + b`, `sub(a, b) = a·1 + (−b)`, `mul(a, b) = a·b + (−0)`, each rounded once.
//! The 24 × 24 mantissa product comes from the lane's shared multiplier (`prod`). Two blocks,
//! [`FpuFront`] (stages 1–4, 6 and the other FP ops) and [`FpuRound`] (stage 5), with the
//! leading-zero count between them in the lane, so that no block drives a submodule whose
//! output it reads. Stages:
//!
//! 1. unpack with flush-to-zero (exponent 0 reads as a zero of the same sign), classify zero,
//!    Inf, NaN;
//! 2. product: normalise the 48-bit product by at most one place; exponents are kept with a
//!    bias of 254 (`E = unbiased + 254`, never negative for any product or addend);
//! 3. order the product and the addend by magnitude (exponent, then significand), shift the
//!    smaller right by the exponent difference into a 50-bit window (one guard bit, and the
//!    bits shifted out ORed into a sticky LSB), add or subtract (never negative);
//! 4. `cvt.rn.f32.{s32,u32}` enter here with the integer's magnitude in place of the sum;
//! 5. normalise with a leading-zero count, round to nearest even on 24 bits (guard + sticky),
//!    then the exponent decides: overflow → ±Inf; a biased exponent of 0 before rounding is a
//!    result in [2^-127, 2^-126), which IEEE rounding on the subnormal grid turns into 2^-126
//!    exactly when its 24 bits are all ones (else it stays subnormal and is flushed to ±0);
//!    below that, ±0;
//! 6. specials: NaN inputs, 0 × Inf and Inf − Inf give the canonical NaN; Inf operands pass.
//!
//! Beside it: min/max/abs/neg and the compares on flushed operands (a monotone integer key per
//! operand), and float → integer conversions (a 64-bit fixed-point shift with round and sticky
//! bits, then saturation).

use crate::primitives::{Fixed, Wire};
use rust_hdl::prelude::*;

/// Width of the aligned sum: 48-bit significands, a guard and a sticky bit, a carry.
pub const SUM_BITS: usize = 51;
/// Width of the internal exponents (bias 254, up to 2·254 + 1 + 74).
pub const EXP_BITS: usize = 11;

#[derive(LogicBlock)]
pub struct FpuFront {
    pub op: Wire<In>,
    pub a: Wire<In>,
    pub b: Wire<In>,
    pub c: Wire<In>,
    /// The 24 × 24 mantissa product of the lane's multiplier (low 48 bits): `a`'s mantissa
    /// times `b`'s (mul, fma) or times 1.0 (add, sub); 0 for a zero factor.
    pub prod: Wire<In>,
    /// To [`FpuRound`]: the magnitude to normalise, its exponent (bias 254, value =
    /// `pre`·2^(pre_exp − 254 − 49)), its sign, the sign of an exact zero.
    pub pre: Wire<Out>,
    pub pre_exp: Wire<Out>,
    pub sign: Signal<Out, Bit>,
    pub zero_sign: Signal<Out, Bit>,
    /// The fused multiply-add's result is `special_val` (NaN or Inf), not the rounded sum.
    pub special: Signal<Out, Bit>,
    pub special_val: Wire<Out>,
    /// min/max/abs/neg/compares and float → integer: the result and predicate.
    pub misc: Wire<Out>,
    pub misc_pred: Signal<Out, Bit>,

    k_sign: Fixed,
    k_mag: Fixed,
    k_frac: Fixed,
    k_hidden: Fixed,
    k_nan: Fixed,
    k_inf: Fixed,
    k_one: Fixed,
    k_low31: Fixed,
    k_ones49: Fixed,

    // 1. Unpacked operands: x = first factor (a), y = second factor (b, or 1.0 for add/sub),
    // z = addend (c, ±b, or −0).
    is_arith: Signal<Local, Bit>,
    is_add: Signal<Local, Bit>,
    is_i2f: Signal<Local, Bit>,
    y: Wire<Local>,
    z: Wire<Local>,
    ex: Wire<Local>,
    ey: Wire<Local>,
    ez: Wire<Local>,
    x_zero: Signal<Local, Bit>,
    y_zero: Signal<Local, Bit>,
    z_zero: Signal<Local, Bit>,
    x_inf: Signal<Local, Bit>,
    y_inf: Signal<Local, Bit>,
    z_inf: Signal<Local, Bit>,
    x_nan: Signal<Local, Bit>,
    y_nan: Signal<Local, Bit>,
    z_nan: Signal<Local, Bit>,
    sp: Signal<Local, Bit>,
    sz: Signal<Local, Bit>,
    // 2. Product and addend as 48-bit significands with bias-254 exponents.
    p_zero: Signal<Local, Bit>,
    p_inf: Signal<Local, Bit>,
    p_sig: Wire<Local>,
    p_exp: Wire<Local>,
    z_sig: Wire<Local>,
    z_exp: Wire<Local>,
    // 3. Alignment and sum.
    z_bigger: Signal<Local, Bit>,
    big_sig: Wire<Local>,
    big_exp: Wire<Local>,
    big_sign: Signal<Local, Bit>,
    small_sig: Wire<Local>,
    small_sign: Signal<Local, Bit>,
    diff: Wire<Local>,
    small_wide: Wire<Local>,
    small_shifted: Wire<Local>,
    lost_mask: Wire<Local>,
    lost: Signal<Local, Bit>,
    big_w: Wire<Local>,
    small_w: Wire<Local>,
    eff_sub: Signal<Local, Bit>,
    sum: Wire<Local>,
    // 4. Integer → float.
    i_neg: Signal<Local, Bit>,
    i_mag: Wire<Local>,
    // 5. Normalise and round.
    // Min/max/abs/neg/compares.
    eb: Wire<Local>,
    a_zero: Signal<Local, Bit>,
    b_zero: Signal<Local, Bit>,
    a_nan: Signal<Local, Bit>,
    b_nan: Signal<Local, Bit>,
    a_flush: Wire<Local>,
    b_flush: Wire<Local>,
    a_key: Wire<Local>,
    b_key: Wire<Local>,
    a_ckey: Wire<Local>,
    b_ckey: Wire<Local>,
    unordered: Signal<Local, Bit>,
    // Float → integer.
    f_exp: Wire<Local>,
    f_sig: Wire<Local>,
    f_shift: Wire<Local>,
    fixed: Wire<Local>,
    f_int: Wire<Local>,
    f_low31: Wire<Local>,
    f_mag: Wire<Local>,
    f_big: Signal<Local, Bit>,
}

impl FpuFront {
    pub fn new() -> FpuFront {
        FpuFront {
            op: Wire::new(7),
            a: Wire::new(32),
            b: Wire::new(32),
            c: Wire::new(32),
            prod: Wire::new(48),
            pre: Wire::new(SUM_BITS),
            pre_exp: Wire::new(EXP_BITS),
            sign: Default::default(),
            zero_sign: Default::default(),
            special: Default::default(),
            special_val: Wire::new(32),
            misc: Wire::new(32),
            misc_pred: Default::default(),
            k_sign: Fixed::new(0x8000_0000),
            k_mag: Fixed::new(0x7FFF_FFFF),
            k_frac: Fixed::new(0x7F_FFFF),
            k_hidden: Fixed::new(0x80_0000),
            k_nan: Fixed::new(0x7FFF_FFFF),
            k_inf: Fixed::new(0x7F80_0000),
            k_one: Fixed::new(0x3F80_0000),
            k_low31: Fixed::new((1 << 31) - 1),
            k_ones49: Fixed::new((1 << 49) - 1),
            is_arith: Default::default(),
            is_add: Default::default(),
            is_i2f: Default::default(),
            y: Wire::new(32),
            z: Wire::new(32),
            ex: Wire::new(8),
            ey: Wire::new(8),
            ez: Wire::new(8),
            x_zero: Default::default(),
            y_zero: Default::default(),
            z_zero: Default::default(),
            x_inf: Default::default(),
            y_inf: Default::default(),
            z_inf: Default::default(),
            x_nan: Default::default(),
            y_nan: Default::default(),
            z_nan: Default::default(),
            sp: Default::default(),
            sz: Default::default(),
            p_zero: Default::default(),
            p_inf: Default::default(),
            p_sig: Wire::new(48),
            p_exp: Wire::new(EXP_BITS),
            z_sig: Wire::new(48),
            z_exp: Wire::new(EXP_BITS),
            z_bigger: Default::default(),
            big_sig: Wire::new(48),
            big_exp: Wire::new(EXP_BITS),
            big_sign: Default::default(),
            small_sig: Wire::new(48),
            small_sign: Default::default(),
            diff: Wire::new(EXP_BITS),
            small_wide: Wire::new(49),
            small_shifted: Wire::new(49),
            lost_mask: Wire::new(49),
            lost: Default::default(),
            big_w: Wire::new(50),
            small_w: Wire::new(50),
            eff_sub: Default::default(),
            sum: Wire::new(SUM_BITS),
            i_neg: Default::default(),
            i_mag: Wire::new(32),
            eb: Wire::new(8),
            a_zero: Default::default(),
            b_zero: Default::default(),
            a_nan: Default::default(),
            b_nan: Default::default(),
            a_flush: Wire::new(32),
            b_flush: Wire::new(32),
            a_key: Wire::new(32),
            b_key: Wire::new(32),
            a_ckey: Wire::new(32),
            b_ckey: Wire::new(32),
            unordered: Default::default(),
            f_exp: Wire::new(8),
            f_sig: Wire::new(24),
            f_shift: Wire::new(9),
            fixed: Wire::new(64),
            f_int: Wire::new(32),
            f_low31: Wire::new(31),
            f_mag: Wire::new(33),
            f_big: Default::default(),
        }
    }
}

impl Default for FpuFront {
    fn default() -> Self {
        FpuFront::new()
    }
}

// Opcodes (warpforge_contract::isa::Op; the test `opcodes_match_the_contract` keeps them in
// step): 40 add, 41 sub, 42 mul, 43 fma, 44 min, 45 max, 46 abs, 47 neg, 48–53 setp
// eq/ne/lt/le/gt/ge, 54 cvt.rn.f32.s32, 55 cvt.rn.f32.u32, 56 cvt.rzi.s32.f32,
// 57 cvt.rni.s32.f32, 58 cvt.rzi.u32.f32.

impl Logic for FpuFront {
    #[hdl_gen]
    fn update(&mut self) {
        // 1. Operands of the fused multiply-add.
        self.is_add.next = (self.op.val() == 40) | (self.op.val() == 41);
        self.is_arith.next = (self.op.val() >= 40) & (self.op.val() <= 43);
        self.is_i2f.next = (self.op.val() == 54) | (self.op.val() == 55);
        self.y.next = self.b.val();
        if self.is_add.val() {
            self.y.next = self.k_one.val();
        }
        self.z.next = self.k_sign.val();
        if self.op.val() == 43 {
            self.z.next = self.c.val();
        }
        if self.op.val() == 40 {
            self.z.next = self.b.val();
        }
        if self.op.val() == 41 {
            self.z.next = self.b.val() ^ self.k_sign.val();
        }
        self.ex.next = self.a.val() >> 23;
        self.ey.next = self.y.val() >> 23;
        self.ez.next = self.z.val() >> 23;
        self.x_zero.next = self.ex.val() == 0;
        self.y_zero.next = self.ey.val() == 0;
        self.z_zero.next = self.ez.val() == 0;
        self.x_inf.next = (self.ex.val() == 255) & ((self.a.val() & self.k_frac.val()) == 0);
        self.y_inf.next = (self.ey.val() == 255) & ((self.y.val() & self.k_frac.val()) == 0);
        self.z_inf.next = (self.ez.val() == 255) & ((self.z.val() & self.k_frac.val()) == 0);
        self.x_nan.next = (self.ex.val() == 255) & ((self.a.val() & self.k_frac.val()) != 0);
        self.y_nan.next = (self.ey.val() == 255) & ((self.y.val() & self.k_frac.val()) != 0);
        self.z_nan.next = (self.ez.val() == 255) & ((self.z.val() & self.k_frac.val()) != 0);
        self.sp.next = self.a.val().get_bit(31) ^ self.y.val().get_bit(31);
        self.sz.next = self.z.val().get_bit(31);

        // 2. The product, leading one at bit 47; the addend likewise.
        self.p_zero.next = self.x_zero.val() | self.y_zero.val();
        self.p_inf.next = self.x_inf.val() | self.y_inf.val();
        if self.prod.val().get_bit(47) {
            self.p_sig.next = self.prod.val();
            self.p_exp.next = self.ex.val() + self.ey.val() + 1;
        } else {
            self.p_sig.next = self.prod.val() << 1;
            self.p_exp.next = self.ex.val() + self.ey.val();
        }
        if self.p_zero.val() {
            self.p_sig.next = 0.into();
            self.p_exp.next = 0.into();
        }
        self.z_sig.next = ((self.z.val() & self.k_frac.val()) | self.k_hidden.val()) << 24;
        self.z_exp.next = self.ez.val() + 127;
        if self.z_zero.val() {
            self.z_sig.next = 0.into();
            self.z_exp.next = 0.into();
        }

        // 3. Order by magnitude, align the smaller, add or subtract.
        self.z_bigger.next = (self.z_exp.val() > self.p_exp.val())
            | ((self.z_exp.val() == self.p_exp.val()) & (self.z_sig.val() > self.p_sig.val()));
        if self.z_bigger.val() {
            self.big_sig.next = self.z_sig.val();
            self.big_exp.next = self.z_exp.val();
            self.big_sign.next = self.sz.val();
            self.small_sig.next = self.p_sig.val();
            self.small_sign.next = self.sp.val();
            self.diff.next = self.z_exp.val() - self.p_exp.val();
        } else {
            self.big_sig.next = self.p_sig.val();
            self.big_exp.next = self.p_exp.val();
            self.big_sign.next = self.sp.val();
            self.small_sig.next = self.z_sig.val();
            self.small_sign.next = self.sz.val();
            self.diff.next = self.p_exp.val() - self.z_exp.val();
        }
        self.small_wide.next = self.small_sig.val() << 1;
        self.small_shifted.next = self.small_wide.val() >> self.diff.val();
        // Sticky: a one among the `diff` low bits that the shift drops. A mask of them (a
        // decoder of `diff`, beside the shifter) rather than shifting back and comparing,
        // which put a second barrel shifter after the first on the critical path.
        self.lost_mask.next = !(self.k_ones49.val() << self.diff.val());
        self.lost.next = (self.small_wide.val() & self.lost_mask.val()).any();
        self.big_w.next = self.big_sig.val() << 2;
        self.small_w.next = self.small_shifted.val() << 1;
        if self.lost.val() {
            self.small_w.next = (self.small_shifted.val() << 1) | 1usize.into();
        }
        self.eff_sub.next = self.big_sign.val() ^ self.small_sign.val();
        if self.eff_sub.val() {
            self.sum.next = self.big_w.val() - self.small_w.val();
        } else {
            self.sum.next = self.big_w.val() + self.small_w.val();
        }

        // 4. Integer → float: the magnitude takes the sum's place (value = sum·2^(E−254−49)).
        self.i_neg.next = (self.op.val() == 54) & self.a.val().get_bit(31);
        self.i_mag.next = self.a.val();
        if self.i_neg.val() {
            self.i_mag.next = 0.into();
            self.i_mag.next = self.i_mag.val() - self.a.val();
        }
        self.pre.next = self.sum.val();
        self.pre_exp.next = self.big_exp.val();
        self.sign.next = self.big_sign.val();
        self.zero_sign.next = self.big_sign.val() & !self.eff_sub.val();
        if self.is_i2f.val() {
            self.pre.next = self.i_mag.val() << 19;
            self.pre_exp.next = 284.into();
            self.sign.next = self.i_neg.val();
            self.zero_sign.next = false;
        }

        // 6. Specials of the fused multiply-add.
        self.special.next = false;
        self.special_val.next = self.k_nan.val();
        if self.is_arith.val() {
            if self.p_inf.val() {
                self.special.next = true;
                self.special_val.next = self.k_inf.val();
                if self.sp.val() {
                    self.special_val.next = self.k_inf.val() | self.k_sign.val();
                }
            } else if self.z_inf.val() {
                self.special.next = true;
                self.special_val.next = self.k_inf.val();
                if self.sz.val() {
                    self.special_val.next = self.k_inf.val() | self.k_sign.val();
                }
            }
            if self.x_nan.val()
                | self.y_nan.val()
                | self.z_nan.val()
                | (self.x_inf.val() & self.y_zero.val())
                | (self.x_zero.val() & self.y_inf.val())
                | (self.p_inf.val() & self.z_inf.val() & (self.sp.val() ^ self.sz.val()))
            {
                self.special.next = true;
                self.special_val.next = self.k_nan.val();
            }
        }

        // Flushed operands, NaN flags and order keys for min/max/abs/neg/compares.
        self.eb.next = self.b.val() >> 23;
        self.a_zero.next = self.ex.val() == 0;
        self.b_zero.next = self.eb.val() == 0;
        self.a_nan.next = (self.a.val() & self.k_mag.val()) > self.k_inf.val();
        self.b_nan.next = (self.b.val() & self.k_mag.val()) > self.k_inf.val();
        self.a_flush.next = self.a.val();
        if self.a_zero.val() {
            self.a_flush.next = self.a.val() & self.k_sign.val();
        }
        self.b_flush.next = self.b.val();
        if self.b_zero.val() {
            self.b_flush.next = self.b.val() & self.k_sign.val();
        }
        // Monotone keys: -0 below +0 (min/max); compares use +0 for both zeros.
        if self.a_flush.val().get_bit(31) {
            self.a_key.next = !self.a_flush.val();
        } else {
            self.a_key.next = self.a_flush.val() | self.k_sign.val();
        }
        if self.b_flush.val().get_bit(31) {
            self.b_key.next = !self.b_flush.val();
        } else {
            self.b_key.next = self.b_flush.val() | self.k_sign.val();
        }
        self.a_ckey.next = self.a_key.val();
        if self.a_zero.val() {
            self.a_ckey.next = self.k_sign.val();
        }
        self.b_ckey.next = self.b_key.val();
        if self.b_zero.val() {
            self.b_ckey.next = self.k_sign.val();
        }
        self.unordered.next = self.a_nan.val() | self.b_nan.val();

        // Float → integer: fixed = sig·2^(e−118) (integer part in bits 63..32).
        self.f_exp.next = self.a.val() >> 23;
        self.f_sig.next = 0.into();
        if !self.a_zero.val() {
            self.f_sig.next = (self.a.val() & self.k_frac.val()) | self.k_hidden.val();
        }
        self.f_shift.next = 158.into();
        self.f_shift.next = self.f_shift.val() - self.f_exp.val();
        self.fixed.next = self.f_sig.val() << 40;
        self.fixed.next = self.fixed.val() >> self.f_shift.val();
        self.f_big.next = self.f_exp.val() > 158;
        self.f_int.next = self.fixed.val() >> 32;
        self.f_low31.next = self.fixed.val() & self.k_low31.val();
        self.f_mag.next = self.f_int.val();
        if (self.op.val() == 57)
            & self.fixed.val().get_bit(31)
            & (self.f_low31.val().any() | self.f_int.val().get_bit(0))
        {
            self.f_mag.next = self.f_int.val() + 1;
        }

        self.misc.next = 0.into();
        self.misc_pred.next = false;
        match self.op.val().index() {
            44 => {
                // min: NaN loses; b when it orders strictly below a.
                self.misc.next = self.a_flush.val();
                if self.a_nan.val() | (!self.b_nan.val() & (self.b_key.val() < self.a_key.val())) {
                    self.misc.next = self.b_flush.val();
                }
                if self.a_nan.val() & self.b_nan.val() {
                    self.misc.next = self.k_nan.val();
                }
            }
            45 => {
                self.misc.next = self.a_flush.val();
                if self.a_nan.val() | (!self.b_nan.val() & (self.a_key.val() < self.b_key.val())) {
                    self.misc.next = self.b_flush.val();
                }
                if self.a_nan.val() & self.b_nan.val() {
                    self.misc.next = self.k_nan.val();
                }
            }
            46 => {
                self.misc.next = self.a_flush.val() & self.k_mag.val();
                if self.a_nan.val() {
                    self.misc.next = self.k_nan.val();
                }
            }
            47 => {
                self.misc.next = self.a_flush.val() ^ self.k_sign.val();
                if self.a_nan.val() {
                    self.misc.next = self.k_nan.val();
                }
            }
            48 => {
                self.misc_pred.next =
                    !self.unordered.val() & (self.a_ckey.val() == self.b_ckey.val())
            }
            49 => {
                self.misc_pred.next =
                    self.unordered.val() | (self.a_ckey.val() != self.b_ckey.val())
            }
            50 => {
                self.misc_pred.next =
                    !self.unordered.val() & (self.a_ckey.val() < self.b_ckey.val())
            }
            51 => {
                self.misc_pred.next =
                    !self.unordered.val() & (self.a_ckey.val() <= self.b_ckey.val())
            }
            52 => {
                self.misc_pred.next =
                    !self.unordered.val() & (self.a_ckey.val() > self.b_ckey.val())
            }
            53 => {
                self.misc_pred.next =
                    !self.unordered.val() & (self.a_ckey.val() >= self.b_ckey.val())
            }
            56 => {
                // cvt.rzi.s32.f32
                if !self.a_nan.val() {
                    if self.a.val().get_bit(31) {
                        self.misc.next = 0.into();
                        self.misc.next = self.misc.val() - self.f_mag.val();
                        if self.f_big.val() | (self.f_mag.val() > 0x8000_0000usize) {
                            self.misc.next = self.k_sign.val();
                        }
                    } else {
                        self.misc.next = self.f_mag.val();
                        if self.f_big.val() | (self.f_mag.val() > 0x7FFF_FFFFusize) {
                            self.misc.next = self.k_mag.val();
                        }
                    }
                }
            }
            57 => {
                // cvt.rni.s32.f32 (f_mag is rounded for this op)
                if !self.a_nan.val() {
                    if self.a.val().get_bit(31) {
                        self.misc.next = 0.into();
                        self.misc.next = self.misc.val() - self.f_mag.val();
                        if self.f_big.val() | (self.f_mag.val() > 0x8000_0000usize) {
                            self.misc.next = self.k_sign.val();
                        }
                    } else {
                        self.misc.next = self.f_mag.val();
                        if self.f_big.val() | (self.f_mag.val() > 0x7FFF_FFFFusize) {
                            self.misc.next = self.k_mag.val();
                        }
                    }
                }
            }
            58 => {
                // cvt.rzi.u32.f32
                if !self.a_nan.val() & !self.a.val().get_bit(31) {
                    self.misc.next = self.f_mag.val();
                    if self.f_big.val() {
                        self.misc.next = 0xFFFF_FFFFusize.into();
                    }
                }
            }
            _ => {}
        }
    }
}

/// Normalise, round to nearest even, range and specials: the back half of the FP datapath.
/// The leading-zero count of `pre` comes from a [`crate::primitives::LeadingZeros`] beside it
/// (`lz`).
#[derive(LogicBlock)]
pub struct FpuRound {
    pub pre: Wire<In>,
    pub pre_exp: Wire<In>,
    pub lz: Wire<In>,
    pub sign: Signal<In, Bit>,
    pub zero_sign: Signal<In, Bit>,
    pub special: Signal<In, Bit>,
    pub special_val: Wire<In>,
    pub result: Wire<Out>,

    k_sign: Fixed,
    k_hidden: Fixed,
    k_inf: Fixed,
    k_low26: Fixed,

    norm: Wire<Local>,
    e_off: Wire<Local>,
    m24: Wire<Local>,
    round_bit: Signal<Local, Bit>,
    low26: Wire<Local>,
    sticky: Signal<Local, Bit>,
    inc: Signal<Local, Bit>,
    rounded: Wire<Local>,
    e_round: Wire<Local>,
    frac: Wire<Local>,
    arith: Wire<Local>,
}

impl FpuRound {
    pub fn new() -> FpuRound {
        FpuRound {
            pre: Wire::new(SUM_BITS),
            pre_exp: Wire::new(EXP_BITS),
            lz: Wire::new(crate::primitives::bits_for(SUM_BITS)),
            sign: Default::default(),
            zero_sign: Default::default(),
            special: Default::default(),
            special_val: Wire::new(32),
            result: Wire::new(32),
            k_sign: Fixed::new(0x8000_0000),
            k_hidden: Fixed::new(0x80_0000),
            k_inf: Fixed::new(0x7F80_0000),
            k_low26: Fixed::new((1 << 26) - 1),
            norm: Wire::new(SUM_BITS),
            e_off: Wire::new(EXP_BITS),
            m24: Wire::new(24),
            round_bit: Default::default(),
            low26: Wire::new(26),
            sticky: Default::default(),
            inc: Default::default(),
            rounded: Wire::new(25),
            e_round: Wire::new(EXP_BITS),
            frac: Wire::new(23),
            arith: Wire::new(32),
        }
    }
}

impl Default for FpuRound {
    fn default() -> Self {
        FpuRound::new()
    }
}

impl Logic for FpuRound {
    #[hdl_gen]
    fn update(&mut self) {
        // 5. Normalise (leading one to bit 50), round to nearest even on 24 bits.
        self.norm.next = self.pre.val() << self.lz.val();
        // Biased result exponent + 200 (never negative): E − 126 − lz + 200.
        self.e_off.next = self.pre_exp.val() + 74;
        self.e_off.next = self.e_off.val() - self.lz.val();
        self.m24.next = self.norm.val() >> 27;
        self.round_bit.next = self.norm.val().get_bit(26);
        self.low26.next = self.norm.val() & self.k_low26.val();
        self.sticky.next = self.low26.val().any();
        self.inc.next = self.round_bit.val() & (self.sticky.val() | self.m24.val().get_bit(0));
        self.rounded.next = self.m24.val() + 0;
        if self.inc.val() {
            self.rounded.next = self.m24.val() + 1;
        }
        self.e_round.next = self.e_off.val();
        if self.rounded.val().get_bit(24) {
            self.e_round.next = self.e_off.val() + 1;
        }
        self.frac.next = self.rounded.val();
        if self.zero_sign.val() {
            self.arith.next = self.k_sign.val();
        } else {
            self.arith.next = 0.into();
        }
        if self.pre.val().any() {
            // Range: below 2^-127 → ±0; [2^-127, 2^-126) → 2^-126 when its 24 bits are all
            // ones (IEEE rounding on the subnormal grid), else ±0; overflow → ±Inf.
            self.arith.next = 0.into();
            if (self.e_off.val() == 200) & self.m24.val().all() {
                self.arith.next = self.k_hidden.val();
            }
            if self.e_off.val() > 200 {
                if self.e_round.val() >= 455 {
                    self.arith.next = self.k_inf.val();
                } else {
                    self.arith.next = ((self.e_round.val() - 200) << 23) | self.frac.val();
                }
            }
            if self.sign.val() {
                self.arith.next = self.arith.val() | self.k_sign.val();
            }
        }
        // 6. NaN and Inf results of the fused multiply-add.
        self.result.next = self.arith.val();
        if self.special.val() {
            self.result.next = self.special_val.val();
        }
    }
}
