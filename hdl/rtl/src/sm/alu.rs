//! RTL of `sm-alu`: the SM's SIMD execution lanes (contract
//! `warpforge_contract::units::sm_alu`, semantics in docs/isa.md).
//!
//! `lanes` copies of one [`AluLane`] block between the operand ports and three output
//! registers (`out_valid`, `result`, `pred`: cleared without `valid`). A lane computes every
//! Mov/Alu1/Alu2/Alu3/Selp/Setp/Pred1/Pred2 opcode, combinationally at `stages = 1`, or cut
//! by up to three register stages ([`cuts`]: after the multiplier, after the FP sum, after the
//! normalising count) so that a deeper unit runs at a higher clock, one op per cycle:
//!
//! - integer: adder/subtractor, one 33 × 33 signed multiplier ([`MulSigned`]) shared by
//!   `mul.lo`, `mul.hi.s32` (sign-extended operands), `mul.hi.u32` and `mad.lo` (zero-extended)
//!   and by the FP datapath's 24 × 24 mantissa product; signed compares by flipping the sign
//!   bit; shifts with the ≥ 32 rules; a SWAR popcount; a 32-bit leading-zero count;
//! - FP32: the [`Fpu`] (fused multiply-add for add/sub/mul/fma, conversions, min/max,
//!   compares), fed the shared multiplier's product.

use super::fpu::{FpuFront, FpuRound, EXP_BITS, SUM_BITS};
use crate::primitives::{
    bits_for, emit, Concat, Fixed, LeadingZeros, MulSigned, Split, SplitAny, Wire, WordReg,
};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::sm_alu::{SmAluConfig, MAX_STAGES, OP_BITS, WORD_BITS};

/// Operand width of the shared signed multiplier: 32 bits and a sign-extension bit.
const MUL_BITS: usize = 33;

/// The operands of the lane's shared 33 × 33 signed multiplier: `a`, `b` sign-extended for
/// `mul.hi.s32`, zero-extended for the other integer products, and for FP32 the mantissas
/// (hidden bit, 0 for a zero or subnormal) of `a` and of `b` (mul, fma) or of 1.0 (add, sub).
#[derive(LogicBlock)]
pub struct MulOperands {
    pub op: Wire<In>,
    pub a: Wire<In>,
    pub b: Wire<In>,
    pub ma: Wire<Out>,
    pub mb: Wire<Out>,

    k_sign: Fixed,
    k_frac: Fixed,
    k_hidden: Fixed,
    ea: Wire<Local>,
    eb: Wire<Local>,
}

impl MulOperands {
    pub fn new() -> MulOperands {
        MulOperands {
            op: Wire::new(OP_BITS),
            a: Wire::new(WORD_BITS),
            b: Wire::new(WORD_BITS),
            ma: Wire::new(MUL_BITS),
            mb: Wire::new(MUL_BITS),
            k_sign: Fixed::new(0x8000_0000),
            k_frac: Fixed::new(0x7F_FFFF),
            k_hidden: Fixed::new(0x80_0000),
            ea: Wire::new(8),
            eb: Wire::new(8),
        }
    }
}

impl Default for MulOperands {
    fn default() -> Self {
        MulOperands::new()
    }
}

impl Logic for MulOperands {
    #[hdl_gen]
    fn update(&mut self) {
        self.ea.next = self.a.val() >> 23;
        self.eb.next = self.b.val() >> 23;
        self.ma.next = self.a.val();
        self.mb.next = self.b.val();
        if self.op.val() == 5 {
            self.ma.next = self.a.val() | ((self.a.val() & self.k_sign.val()) << 1);
            self.mb.next = self.b.val() | ((self.b.val() & self.k_sign.val()) << 1);
        }
        if (self.op.val() >= 40) & (self.op.val() <= 43) {
            self.ma.next = 0.into();
            if self.ea.val() != 0 {
                self.ma.next = (self.a.val() & self.k_frac.val()) | self.k_hidden.val();
            }
            self.mb.next = 0.into();
            if (self.op.val() == 40) | (self.op.val() == 41) {
                self.mb.next = self.k_hidden.val();
            } else if self.eb.val() != 0 {
                self.mb.next = (self.b.val() & self.k_frac.val()) | self.k_hidden.val();
            }
        }
    }
}

/// The integer and predicate ops of one lane, given the shared product and `clz(a)`.
#[derive(LogicBlock)]
pub struct IntAlu {
    pub op: Wire<In>,
    pub a: Wire<In>,
    pub b: Wire<In>,
    pub c: Wire<In>,
    pub pa: Signal<In, Bit>,
    pub pb: Signal<In, Bit>,
    pub pc: Signal<In, Bit>,
    /// The multiplier's product (low 64 bits).
    pub prod: Wire<In>,
    /// Leading zeros of `a` (32 for 0).
    pub clz: Wire<In>,
    pub result: Wire<Out>,
    pub pred: Signal<Out, Bit>,

    k_sign: Fixed,
    k_ones: Fixed,
    k_m1: Fixed,
    k_m2: Fixed,
    k_m4: Fixed,

    lo: Wire<Local>,
    hi: Wire<Local>,
    a_key: Wire<Local>,
    b_key: Wire<Local>,
    shift: Wire<Local>,
    sra: Wire<Local>,
    pop1: Wire<Local>,
    pop2: Wire<Local>,
    pop3: Wire<Local>,
    pop4: Wire<Local>,
    pop5: Wire<Local>,
}

impl IntAlu {
    pub fn new() -> IntAlu {
        IntAlu {
            op: Wire::new(OP_BITS),
            a: Wire::new(WORD_BITS),
            b: Wire::new(WORD_BITS),
            c: Wire::new(WORD_BITS),
            pa: Default::default(),
            pb: Default::default(),
            pc: Default::default(),
            prod: Wire::new(64),
            clz: Wire::new(bits_for(WORD_BITS)),
            result: Wire::new(WORD_BITS),
            pred: Default::default(),
            k_sign: Fixed::new(0x8000_0000),
            k_ones: Fixed::new(0xFFFF_FFFF),
            k_m1: Fixed::new(0x5555_5555),
            k_m2: Fixed::new(0x3333_3333),
            k_m4: Fixed::new(0x0F0F_0F0F),
            lo: Wire::new(WORD_BITS),
            hi: Wire::new(WORD_BITS),
            a_key: Wire::new(WORD_BITS),
            b_key: Wire::new(WORD_BITS),
            shift: Wire::new(5),
            sra: Wire::new(WORD_BITS),
            pop1: Wire::new(WORD_BITS),
            pop2: Wire::new(WORD_BITS),
            pop3: Wire::new(WORD_BITS),
            pop4: Wire::new(WORD_BITS),
            pop5: Wire::new(WORD_BITS),
        }
    }
}

impl Default for IntAlu {
    fn default() -> Self {
        IntAlu::new()
    }
}

// Opcodes (warpforge_contract::isa::Op; the test `opcodes_match_the_contract` keeps them in
// step): 1 mov, 2 add, 3 sub, 4 mul.lo, 5 mul.hi.s32, 6 mul.hi.u32, 7 mad.lo, 8 min.s32,
// 9 min.u32, 10 max.s32, 11 max.u32, 12 abs, 13 neg, 14 and, 15 or, 16 xor, 17 not, 18 shl,
// 19 shr.u32, 20 shr.s32, 21 popc, 22 clz, 23 selp, 24–29 setp eq/ne/lt/le/gt/ge.s32,
// 30–33 setp lt/le/gt/ge.u32, 34 and.pred, 35 or.pred, 36 xor.pred, 37 not.pred,
// 38 mov.pred, 40–58 FP32 (the FPU blocks).

impl Logic for IntAlu {
    #[hdl_gen]
    fn update(&mut self) {
        self.lo.next = self.prod.val();
        self.hi.next = self.prod.val() >> 32;
        self.a_key.next = self.a.val() ^ self.k_sign.val();
        self.b_key.next = self.b.val() ^ self.k_sign.val();
        self.shift.next = self.b.val();
        if self.b.val() >= 31 {
            self.shift.next = 31.into();
        }
        self.sra.next = self.a.val() >> self.shift.val();
        if self.a.val().get_bit(31) {
            self.sra.next =
                self.sra.val() | (self.k_ones.val() ^ (self.k_ones.val() >> self.shift.val()));
        }
        // Population count, SWAR: 2-, 4-, 8-bit fields, then the byte sums.
        self.pop1.next = self.a.val() - ((self.a.val() >> 1) & self.k_m1.val());
        self.pop2.next =
            (self.pop1.val() & self.k_m2.val()) + ((self.pop1.val() >> 2) & self.k_m2.val());
        self.pop3.next = (self.pop2.val() + (self.pop2.val() >> 4)) & self.k_m4.val();
        self.pop4.next = self.pop3.val() + (self.pop3.val() >> 8);
        self.pop5.next = (self.pop4.val() + (self.pop4.val() >> 16)) & 63usize.into();

        self.result.next = 0.into();
        self.pred.next = false;
        match self.op.val().index() {
            1 => self.result.next = self.a.val(),
            2 => self.result.next = self.a.val() + self.b.val(),
            3 => self.result.next = self.a.val() - self.b.val(),
            4 => self.result.next = self.lo.val(),
            5 => self.result.next = self.hi.val(),
            6 => self.result.next = self.hi.val(),
            7 => self.result.next = self.lo.val() + self.c.val(),
            8 => {
                self.result.next = self.b.val();
                if self.a_key.val() < self.b_key.val() {
                    self.result.next = self.a.val();
                }
            }
            9 => {
                self.result.next = self.b.val();
                if self.a.val() < self.b.val() {
                    self.result.next = self.a.val();
                }
            }
            10 => {
                self.result.next = self.b.val();
                if self.a_key.val() > self.b_key.val() {
                    self.result.next = self.a.val();
                }
            }
            11 => {
                self.result.next = self.b.val();
                if self.a.val() > self.b.val() {
                    self.result.next = self.a.val();
                }
            }
            12 => {
                self.result.next = self.a.val();
                if self.a.val().get_bit(31) {
                    self.result.next = 0.into();
                    self.result.next = self.result.val() - self.a.val();
                }
            }
            13 => {
                self.result.next = 0.into();
                self.result.next = self.result.val() - self.a.val();
            }
            14 => self.result.next = self.a.val() & self.b.val(),
            15 => self.result.next = self.a.val() | self.b.val(),
            16 => self.result.next = self.a.val() ^ self.b.val(),
            17 => self.result.next = !self.a.val(),
            18 => {
                if self.b.val() < 32 {
                    self.result.next = self.a.val() << self.shift.val();
                }
            }
            19 => {
                if self.b.val() < 32 {
                    self.result.next = self.a.val() >> self.shift.val();
                }
            }
            20 => self.result.next = self.sra.val(),
            21 => self.result.next = self.pop5.val(),
            22 => self.result.next = self.clz.val(),
            23 => {
                self.result.next = self.b.val();
                if self.pc.val() {
                    self.result.next = self.a.val();
                }
            }
            24 => self.pred.next = self.a.val() == self.b.val(),
            25 => self.pred.next = self.a.val() != self.b.val(),
            26 => self.pred.next = self.a_key.val() < self.b_key.val(),
            27 => self.pred.next = self.a_key.val() <= self.b_key.val(),
            28 => self.pred.next = self.a_key.val() > self.b_key.val(),
            29 => self.pred.next = self.a_key.val() >= self.b_key.val(),
            30 => self.pred.next = self.a.val() < self.b.val(),
            31 => self.pred.next = self.a.val() <= self.b.val(),
            32 => self.pred.next = self.a.val() > self.b.val(),
            33 => self.pred.next = self.a.val() >= self.b.val(),
            34 => self.pred.next = self.pa.val() & self.pb.val(),
            35 => self.pred.next = self.pa.val() | self.pb.val(),
            36 => self.pred.next = self.pa.val() ^ self.pb.val(),
            37 => self.pred.next = !self.pa.val(),
            38 => self.pred.next = self.pa.val(),
            _ => {}
        }
    }
}

/// Pipeline registers between two stages of a lane: `q[i]` is `d[i]` of the previous cycle,
/// or `d[i]` itself when `bypass` (the cut is not used at this depth; it then costs nothing).
/// No reset: these hold data only; `valid` travels beside them in [`SmAlu`], reset there.
#[derive(LogicBlock)]
pub struct PipeRegs {
    pub clock: Signal<In, Clock>,
    pub d: Vec<Wire<In>>,
    pub q: Vec<Wire<Out>>,
    /// Not a signal (leading underscore: rust-hdl skips it).
    _bypass: bool,
}

impl PipeRegs {
    pub fn new(widths: &[usize], bypass: bool) -> PipeRegs {
        PipeRegs {
            clock: Default::default(),
            d: widths.iter().map(|&w| Wire::new(w)).collect(),
            q: widths.iter().map(|&w| Wire::new(w)).collect(),
            _bypass: bypass,
        }
    }
}

impl Logic for PipeRegs {
    fn update(&mut self) {}
    fn connect(&mut self) {
        for q in &mut self.q {
            q.connect();
        }
    }
    fn hdl(&self) -> Verilog {
        // Port names as rust-hdl declares them (`d$i`); `emit` renames them with the rest.
        let (head, op) = if self._bypass {
            ("always @(*) begin\n", "=")
        } else {
            ("always @(posedge clock) begin\n", "<=")
        };
        let mut code = String::from(head);
        for i in 0..self.d.len() {
            code += &format!("    q${i} {op} d${i};\n");
        }
        code += "end\n";
        Verilog::Custom(code)
    }
    fn timing(&self) -> Vec<TimingInfo> {
        if self._bypass {
            return vec![];
        }
        vec![TimingInfo {
            name: "pipe".into(),
            clock: "clock".into(),
            inputs: (0..self.d.len()).map(|i| format!("d${i}")).collect(),
            outputs: (0..self.q.len()).map(|i| format!("q${i}")).collect(),
        }]
    }
}

/// Where a lane's pipeline is cut, by depth (docs/sm-alu.md "Pipeline"): cut A after the
/// shared multiplier, cut B after the FP alignment and sum (and the integer ALU), cut C
/// after the normalising leading-zero count. `stages` − 1 of them are registers.
pub fn cuts(stages: usize) -> [bool; 3] {
    [stages >= 3, stages >= 2, stages >= 4]
}

/// Fields through cut A: op, a, b, c, pa, pb, pc, the product.
const CUT_A: [usize; 8] = [
    OP_BITS,
    WORD_BITS,
    WORD_BITS,
    WORD_BITS,
    1,
    1,
    1,
    2 * MUL_BITS,
];
/// Fields through cut B: rounded, other, other_pred, pre, pre_exp, sign, zero_sign, special,
/// special_val; cut C adds the leading-zero count.
const CUT_B: [usize; 9] = [1, WORD_BITS, 1, SUM_BITS, EXP_BITS, 1, 1, 1, WORD_BITS];

/// One SIMD lane: `(result, pred)` of `op` on `a`, `b`, `c`, `pa`, `pb`, `pc`, `stages` − 1
/// cycles later (combinational at one stage). Its kernel only wires the blocks (each
/// submodule input driven once, by a plain assignment) through the cuts, and picks the
/// integer, the unrounded FP (`other`) or the rounded FP result.
#[derive(LogicBlock)]
pub struct AluLane {
    pub clock: Signal<In, Clock>,
    pub op: Wire<In>,
    pub a: Wire<In>,
    pub b: Wire<In>,
    pub c: Wire<In>,
    pub pa: Signal<In, Bit>,
    pub pb: Signal<In, Bit>,
    pub pc: Signal<In, Bit>,
    pub result: Wire<Out>,
    pub pred: Signal<Out, Bit>,

    operands: MulOperands,
    mul: MulSigned,
    cut_a: PipeRegs,
    clz: LeadingZeros,
    ints: IntAlu,
    front: FpuFront,
    cut_b: PipeRegs,
    norm_lz: LeadingZeros,
    cut_c: PipeRegs,
    round: FpuRound,

    /// After cut A: the op; the op's result is rounded; the result or predicate of an op
    /// that is not.
    op_a: Wire<Local>,
    rounded: Signal<Local, Bit>,
    other: Wire<Local>,
    other_pred: Signal<Local, Bit>,
}

impl AluLane {
    pub fn new(stages: usize) -> AluLane {
        let [a, b, c] = cuts(stages);
        let mut cut_c = CUT_B.to_vec();
        cut_c.push(bits_for(SUM_BITS));
        AluLane {
            clock: Default::default(),
            op: Wire::new(OP_BITS),
            a: Wire::new(WORD_BITS),
            b: Wire::new(WORD_BITS),
            c: Wire::new(WORD_BITS),
            pa: Default::default(),
            pb: Default::default(),
            pc: Default::default(),
            result: Wire::new(WORD_BITS),
            pred: Default::default(),
            operands: MulOperands::new(),
            mul: MulSigned::new(MUL_BITS, MUL_BITS),
            cut_a: PipeRegs::new(&CUT_A, !a),
            clz: LeadingZeros::new(WORD_BITS),
            ints: IntAlu::new(),
            front: FpuFront::new(),
            cut_b: PipeRegs::new(&CUT_B, !b),
            norm_lz: LeadingZeros::new(SUM_BITS),
            cut_c: PipeRegs::new(&cut_c, !c),
            round: FpuRound::new(),
            op_a: Wire::new(OP_BITS),
            rounded: Default::default(),
            other: Wire::new(WORD_BITS),
            other_pred: Default::default(),
        }
    }
}

impl Logic for AluLane {
    #[hdl_gen]
    fn update(&mut self) {
        self.cut_a.clock.next = self.clock.val();
        self.cut_b.clock.next = self.clock.val();
        self.cut_c.clock.next = self.clock.val();

        // Stage 1: the shared multiplier.
        self.operands.op.next = self.op.val();
        self.operands.a.next = self.a.val();
        self.operands.b.next = self.b.val();
        self.mul.a.next = self.operands.ma.val();
        self.mul.b.next = self.operands.mb.val();
        self.cut_a.d[0].next = self.op.val();
        self.cut_a.d[1].next = self.a.val();
        self.cut_a.d[2].next = self.b.val();
        self.cut_a.d[3].next = self.c.val();
        self.cut_a.d[4].next = self.pa.val().into();
        self.cut_a.d[5].next = self.pb.val().into();
        self.cut_a.d[6].next = self.pc.val().into();
        self.cut_a.d[7].next = self.mul.p.val();

        // Stage 2: the integer ops, and the FP32 front (unpack, align, add).
        self.op_a.next = self.cut_a.q[0].val();
        self.clz.x.next = self.cut_a.q[1].val();
        self.ints.op.next = self.cut_a.q[0].val();
        self.ints.a.next = self.cut_a.q[1].val();
        self.ints.b.next = self.cut_a.q[2].val();
        self.ints.c.next = self.cut_a.q[3].val();
        self.ints.pa.next = self.cut_a.q[4].val().any();
        self.ints.pb.next = self.cut_a.q[5].val().any();
        self.ints.pc.next = self.cut_a.q[6].val().any();
        self.ints.prod.next = self.cut_a.q[7].val();
        self.ints.clz.next = self.clz.count.val();

        self.front.op.next = self.cut_a.q[0].val();
        self.front.a.next = self.cut_a.q[1].val();
        self.front.b.next = self.cut_a.q[2].val();
        self.front.c.next = self.cut_a.q[3].val();
        self.front.prod.next = self.cut_a.q[7].val();

        // add/sub/mul/fma and int → float are rounded; the other FP ops are not.
        self.rounded.next = ((self.op_a.val() >= 40) & (self.op_a.val() <= 43))
            | (self.op_a.val() == 54)
            | (self.op_a.val() == 55);
        self.other.next = self.ints.result.val();
        self.other_pred.next = self.ints.pred.val();
        if (self.op_a.val() >= 44) & (self.op_a.val() <= 58) & !self.rounded.val() {
            self.other.next = self.front.misc.val();
            self.other_pred.next = self.front.misc_pred.val();
        }
        self.cut_b.d[0].next = self.rounded.val().into();
        self.cut_b.d[1].next = self.other.val();
        self.cut_b.d[2].next = self.other_pred.val().into();
        self.cut_b.d[3].next = self.front.pre.val();
        self.cut_b.d[4].next = self.front.pre_exp.val();
        self.cut_b.d[5].next = self.front.sign.val().into();
        self.cut_b.d[6].next = self.front.zero_sign.val().into();
        self.cut_b.d[7].next = self.front.special.val().into();
        self.cut_b.d[8].next = self.front.special_val.val();

        // Stage 3: the normalising leading-zero count.
        self.norm_lz.x.next = self.cut_b.q[3].val();
        self.cut_c.d[0].next = self.cut_b.q[0].val();
        self.cut_c.d[1].next = self.cut_b.q[1].val();
        self.cut_c.d[2].next = self.cut_b.q[2].val();
        self.cut_c.d[3].next = self.cut_b.q[3].val();
        self.cut_c.d[4].next = self.cut_b.q[4].val();
        self.cut_c.d[5].next = self.cut_b.q[5].val();
        self.cut_c.d[6].next = self.cut_b.q[6].val();
        self.cut_c.d[7].next = self.cut_b.q[7].val();
        self.cut_c.d[8].next = self.cut_b.q[8].val();
        self.cut_c.d[9].next = self.norm_lz.count.val();

        // Stage 4: normalise, round, range, specials; the lane's result.
        self.round.pre.next = self.cut_c.q[3].val();
        self.round.pre_exp.next = self.cut_c.q[4].val();
        self.round.lz.next = self.cut_c.q[9].val();
        self.round.sign.next = self.cut_c.q[5].val().any();
        self.round.zero_sign.next = self.cut_c.q[6].val().any();
        self.round.special.next = self.cut_c.q[7].val().any();
        self.round.special_val.next = self.cut_c.q[8].val();
        self.result.next = self.cut_c.q[1].val();
        if self.cut_c.q[0].val().any() {
            self.result.next = self.round.result.val();
        }
        self.pred.next = self.cut_c.q[2].val().any();
    }
}

/// The unit: the lanes between the packed operand ports and the output registers; beside the
/// lanes, `valid` through `stages` − 1 registers (cleared by reset) decides whether the output
/// registers load the lanes' results or zeros.
#[derive(LogicBlock)]
pub struct SmAlu {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub op: Wire<In>,
    pub a: Wire<In>,
    pub b: Wire<In>,
    pub c: Wire<In>,
    pub pa: Wire<In>,
    pub pb: Wire<In>,
    pub pc: Wire<In>,
    pub out_valid: Signal<Out, Bit>,
    pub result: Wire<Out>,
    pub pred: Wire<Out>,

    lane: Vec<AluLane>,
    a_parts: Split,
    b_parts: Split,
    c_parts: Split,
    pa_bits: SplitAny,
    pb_bits: SplitAny,
    pc_bits: SplitAny,
    result_pack: Concat,
    pred_pack: Concat,
    /// `valid` of the last `stages` − 1 cycles, newest in bit 0.
    valid_pipe: WordReg,
    /// Whether the pipeline has cuts, and the bit of `valid_pipe` beside the last one.
    k_deep: Fixed,
    k_last: Fixed,
    valid_in: Wire<Local>,
    late_valid: Signal<Local, Bit>,
    valid_reg: WordReg,
    result_reg: WordReg,
    pred_reg: WordReg,
}

impl SmAlu {
    pub fn new(cfg: &SmAluConfig) -> SmAlu {
        let (l, w) = (cfg.lanes, cfg.lanes * WORD_BITS);
        let s = cfg.stages;
        SmAlu {
            clock: Default::default(),
            reset: Default::default(),
            valid: Default::default(),
            op: Wire::new(OP_BITS),
            a: Wire::new(w),
            b: Wire::new(w),
            c: Wire::new(w),
            pa: Wire::new(l),
            pb: Wire::new(l),
            pc: Wire::new(l),
            out_valid: Default::default(),
            result: Wire::new(w),
            pred: Wire::new(l),
            lane: (0..l).map(|_| AluLane::new(s)).collect(),
            a_parts: Split::new(&vec![WORD_BITS; l]),
            b_parts: Split::new(&vec![WORD_BITS; l]),
            c_parts: Split::new(&vec![WORD_BITS; l]),
            pa_bits: SplitAny::new(&vec![1; l]),
            pb_bits: SplitAny::new(&vec![1; l]),
            pc_bits: SplitAny::new(&vec![1; l]),
            result_pack: Concat::new(&vec![WORD_BITS; l]),
            pred_pack: Concat::new(&vec![1; l]),
            valid_pipe: WordReg::new(MAX_STAGES),
            k_deep: Fixed::new((s > 1) as u64),
            k_last: Fixed::new(if s > 1 { 1 << (s - 2) } else { 0 }),
            valid_in: Wire::new(1),
            late_valid: Default::default(),
            valid_reg: WordReg::new(1),
            result_reg: WordReg::new(w),
            pred_reg: WordReg::new(l),
        }
    }
}

impl Logic for SmAlu {
    #[hdl_gen]
    fn update(&mut self) {
        self.valid_pipe.clock.next = self.clock.val();
        self.valid_pipe.reset.next = self.reset.val();
        self.valid_reg.clock.next = self.clock.val();
        self.valid_reg.reset.next = self.reset.val();
        self.result_reg.clock.next = self.clock.val();
        self.result_reg.reset.next = self.reset.val();
        self.pred_reg.clock.next = self.clock.val();
        self.pred_reg.reset.next = self.reset.val();
        self.a_parts.whole.next = self.a.val();
        self.b_parts.whole.next = self.b.val();
        self.c_parts.whole.next = self.c.val();
        self.pa_bits.whole.next = self.pa.val();
        self.pb_bits.whole.next = self.pb.val();
        self.pc_bits.whole.next = self.pc.val();
        for l in 0..self.lane.len() {
            self.lane[l].clock.next = self.clock.val();
            self.lane[l].op.next = self.op.val();
            self.lane[l].a.next = self.a_parts.parts[l].val();
            self.lane[l].b.next = self.b_parts.parts[l].val();
            self.lane[l].c.next = self.c_parts.parts[l].val();
            self.lane[l].pa.next = self.pa_bits.parts[l].val().any();
            self.lane[l].pb.next = self.pb_bits.parts[l].val().any();
            self.lane[l].pc.next = self.pc_bits.parts[l].val().any();
            self.result_pack.parts[l].next = self.lane[l].result.val();
            self.pred_pack.parts[l].next = self.lane[l].pred.val().into();
        }
        self.valid_in.next = self.valid.val().into();
        self.valid_pipe.d.next = (self.valid_pipe.q.val() << 1) | self.valid_in.val();
        self.late_valid.next = self.valid.val();
        if self.k_deep.val().any() {
            self.late_valid.next = (self.valid_pipe.q.val() & self.k_last.val()).any();
        }
        self.valid_reg.d.next = self.late_valid.val().into();
        self.result_reg.d.next = 0.into();
        self.pred_reg.d.next = 0.into();
        if self.late_valid.val() {
            self.result_reg.d.next = self.result_pack.whole.val();
            self.pred_reg.d.next = self.pred_pack.whole.val();
        }
        self.out_valid.next = self.valid_reg.q.val().any();
        self.result.next = self.result_reg.q.val();
        self.pred.next = self.pred_reg.q.val();
    }
}

/// Verilog of one sm-alu configuration.
pub fn generate(cfg: &SmAluConfig) -> Design {
    let mut block = SmAlu::new(cfg);
    emit(&mut block, &cfg.module_name())
}

#[cfg(test)]
mod tests {
    use warpforge_contract::isa::Op;

    /// The literals in the lane and FPU kernels are these opcode numbers.
    #[test]
    fn opcodes_match_the_contract() {
        let codes: Vec<u8> = [
            Op::Mov,
            Op::Add,
            Op::Sub,
            Op::MulLo,
            Op::MulHiS,
            Op::MulHiU,
            Op::MadLo,
            Op::MinS,
            Op::MinU,
            Op::MaxS,
            Op::MaxU,
            Op::Abs,
            Op::Neg,
            Op::And,
            Op::Or,
            Op::Xor,
            Op::Not,
            Op::Shl,
            Op::ShrU,
            Op::ShrS,
            Op::Popc,
            Op::Clz,
            Op::Selp,
            Op::SetEq,
            Op::SetNe,
            Op::SetLtS,
            Op::SetLeS,
            Op::SetGtS,
            Op::SetGeS,
            Op::SetLtU,
            Op::SetLeU,
            Op::SetGtU,
            Op::SetGeU,
            Op::PAnd,
            Op::POr,
            Op::PXor,
            Op::PNot,
            Op::PMov,
        ]
        .iter()
        .map(|&o| o as u8)
        .collect();
        assert_eq!(codes, (1..=38).collect::<Vec<u8>>());
        let fp: Vec<u8> = [
            Op::FAdd,
            Op::FSub,
            Op::FMul,
            Op::FFma,
            Op::FMin,
            Op::FMax,
            Op::FAbs,
            Op::FNeg,
            Op::FSetEq,
            Op::FSetNe,
            Op::FSetLt,
            Op::FSetLe,
            Op::FSetGt,
            Op::FSetGe,
            Op::CvtF32S32,
            Op::CvtF32U32,
            Op::CvtS32F32Rz,
            Op::CvtS32F32Rn,
            Op::CvtU32F32Rz,
        ]
        .iter()
        .map(|&o| o as u8)
        .collect();
        assert_eq!(fp, (40..=58).collect::<Vec<u8>>());
        assert_eq!(Op::from_code(39), None);
    }
}
