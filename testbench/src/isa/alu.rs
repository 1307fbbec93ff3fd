//! One SIMD lane of the SM's execute stage: the semantics of every opcode of formats Mov,
//! Alu1, Alu2, Alu3, Selp, Setp, Pred1 and Pred2, written once. The interpreter
//! (`interp::exec`) calls [`lane`] for these ops and the `sm-alu` unit model calls it for every
//! lane, so the ISA semantics on the model side live only here (and in [`super::fp`] for the
//! FP32 rules).

use super::fp::{self, Cmp};
use warpforge_contract::isa::{Format, Op};

/// True for the opcodes the lanes compute (formats Mov, Alu1, Alu2, Alu3, Selp, Setp, Pred1,
/// Pred2).
#[inline(always)]
pub fn is_lane_op(op: Op) -> bool {
    matches!(
        op.format(),
        Format::Mov
            | Format::Alu1
            | Format::Alu2
            | Format::Alu3
            | Format::Selp
            | Format::Setp
            | Format::Pred1
            | Format::Pred2
    )
}

/// True for the opcodes that write a predicate (formats Setp, Pred1, Pred2).
#[inline(always)]
pub fn writes_pred(op: Op) -> bool {
    matches!(op.format(), Format::Setp | Format::Pred1 | Format::Pred2)
}

/// One lane: `(result, pred)` of `op` on operand A `a` (for `mov` the value to move), operand
/// B `b` (immediate substituted), third source `c`, and predicate operands `pa`, `pb` (predicate
/// logic) and `pc` (selp). Register-writing ops give `pred = false`; predicate-writing ops give
/// `result = 0`; any other op gives `(0, false)`.
#[inline(always)]
pub fn lane(op: Op, a: u32, b: u32, c: u32, pa: bool, pb: bool, pc: bool) -> (u32, bool) {
    let r = |v: u32| (v, false);
    let p = |v: bool| (0, v);
    match op {
        Op::Mov => r(a),
        Op::Add => r(a.wrapping_add(b)),
        Op::Sub => r(a.wrapping_sub(b)),
        Op::MulLo => r(a.wrapping_mul(b)),
        Op::MulHiS => r(((a as i32 as i64 * b as i32 as i64) >> 32) as u32),
        Op::MulHiU => r(((a as u64 * b as u64) >> 32) as u32),
        Op::MadLo => r(a.wrapping_mul(b).wrapping_add(c)),
        Op::MinS => r((a as i32).min(b as i32) as u32),
        Op::MinU => r(a.min(b)),
        Op::MaxS => r((a as i32).max(b as i32) as u32),
        Op::MaxU => r(a.max(b)),
        Op::Abs => r((a as i32).wrapping_abs() as u32),
        Op::Neg => r(a.wrapping_neg()),
        Op::And => r(a & b),
        Op::Or => r(a | b),
        Op::Xor => r(a ^ b),
        Op::Not => r(!a),
        Op::Shl => r(if b >= 32 { 0 } else { a << b }),
        Op::ShrU => r(if b >= 32 { 0 } else { a >> b }),
        Op::ShrS => r(((a as i32) >> b.min(31)) as u32),
        Op::Popc => r(a.count_ones()),
        Op::Clz => r(a.leading_zeros()),
        Op::Selp => r(if pc { a } else { b }),
        Op::SetEq => p(a == b),
        Op::SetNe => p(a != b),
        Op::SetLtS => p((a as i32) < (b as i32)),
        Op::SetLeS => p((a as i32) <= (b as i32)),
        Op::SetGtS => p((a as i32) > (b as i32)),
        Op::SetGeS => p((a as i32) >= (b as i32)),
        Op::SetLtU => p(a < b),
        Op::SetLeU => p(a <= b),
        Op::SetGtU => p(a > b),
        Op::SetGeU => p(a >= b),
        Op::PAnd => p(pa & pb),
        Op::POr => p(pa | pb),
        Op::PXor => p(pa ^ pb),
        Op::PNot => p(!pa),
        Op::PMov => p(pa),
        Op::FAdd => r(fp::add(a, b)),
        Op::FSub => r(fp::sub(a, b)),
        Op::FMul => r(fp::mul(a, b)),
        Op::FFma => r(fp::fma(a, b, c)),
        Op::FMin => r(fp::min(a, b)),
        Op::FMax => r(fp::max(a, b)),
        Op::FAbs => r(fp::abs(a)),
        Op::FNeg => r(fp::neg(a)),
        Op::FSetEq => p(fp::compare(Cmp::Eq, a, b)),
        Op::FSetNe => p(fp::compare(Cmp::Ne, a, b)),
        Op::FSetLt => p(fp::compare(Cmp::Lt, a, b)),
        Op::FSetLe => p(fp::compare(Cmp::Le, a, b)),
        Op::FSetGt => p(fp::compare(Cmp::Gt, a, b)),
        Op::FSetGe => p(fp::compare(Cmp::Ge, a, b)),
        Op::CvtF32S32 => r(fp::f32_from_s32(a)),
        Op::CvtF32U32 => r(fp::f32_from_u32(a)),
        Op::CvtS32F32Rz => r(fp::s32_from_f32_rz(a)),
        Op::CvtS32F32Rn => r(fp::s32_from_f32_rn(a)),
        Op::CvtU32F32Rz => r(fp::u32_from_f32_rz(a)),
        // Memory, control, barriers and nop are not lane ops.
        _ => (0, false),
    }
}

/// [`lane`] by opcode number: unassigned numbers give `(0, false)`.
pub fn lane_code(op: u8, a: u32, b: u32, c: u32, pa: bool, pb: bool, pc: bool) -> (u32, bool) {
    match Op::from_code(op) {
        Some(op) => lane(op, a, b, c, pa, pb, pc),
        None => (0, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lane_op_has_its_format_and_others_give_zero() {
        for &op in Op::ALL {
            let (r, p) = lane(op, 0xFFFF_FFFF, 0xFFFF_FFFF, 7, true, true, true);
            if !is_lane_op(op) {
                assert_eq!((r, p), (0, false), "{op:?}");
            } else if writes_pred(op) {
                assert_eq!(r, 0, "{op:?}");
            } else {
                assert!(!p, "{op:?}");
            }
        }
        for code in 0..128u8 {
            if Op::from_code(code).is_none() {
                assert_eq!(lane_code(code, 1, 2, 3, true, true, true), (0, false));
            }
        }
    }

    #[test]
    fn integer_corner_cases_of_the_isa_page() {
        let l = |op, a, b| lane(op, a, b, 0, false, false, false).0;
        assert_eq!(l(Op::Abs, 0x8000_0000, 0), 0x8000_0000);
        assert_eq!(l(Op::Shl, 1, 32), 0);
        assert_eq!(l(Op::ShrU, 0x8000_0000, 40), 0);
        assert_eq!(l(Op::ShrS, 0x8000_0000, 40), 0xFFFF_FFFF);
        assert_eq!(l(Op::Clz, 0, 0), 32);
        assert_eq!(l(Op::MulHiS, 0x8000_0000, 0x8000_0000), 0x4000_0000);
        assert_eq!(l(Op::MulHiU, 0xFFFF_FFFF, 0xFFFF_FFFF), 0xFFFF_FFFE);
        assert_eq!(lane(Op::MadLo, 3, 4, 5, false, false, false).0, 17);
        assert_eq!(lane(Op::Selp, 1, 2, 0, false, false, true).0, 1);
        assert_eq!(lane(Op::PXor, 0, 0, 0, true, false, false).1, true);
    }
}
