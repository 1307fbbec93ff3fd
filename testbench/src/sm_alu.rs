//! Cycle model, stimulus and spec vectors of `sm-alu`, the SM's SIMD execution lanes
//! (contract `warpforge_contract::units::sm_alu`). Each lane is [`crate::isa::alu::lane`], the
//! same function the ISA interpreter executes; the unit adds `stages` − 1 cycles of delay (a
//! queue of results in flight, emptied by reset) and the output registers.

use crate::isa::alu;
use crate::isa::fp;
use crate::rng::Rng;
use crate::words;
use crate::{Model, SpecVector, Stimulus, VectorCycle};
use std::collections::VecDeque;
use warpforge_contract::isa::Op;
use warpforge_contract::units::sm_alu::{SmAluConfig, NAME, WORD_BITS};
use warpforge_contract::Layout;

/// Bit offsets of the ports in the flat word vectors.
#[derive(Clone, Copy, Debug)]
struct Ports {
    reset: usize,
    valid: usize,
    op: usize,
    a: usize,
    b: usize,
    c: usize,
    pa: usize,
    pb: usize,
    pc: usize,
    out_valid: usize,
    result: usize,
    pred: usize,
}

impl Ports {
    fn new(cfg: &SmAluConfig) -> Ports {
        let l = Layout::new(&cfg.ports());
        let i = |n: &str| 64 * l.input(n).expect("sm-alu input").offset;
        let o = |n: &str| 64 * l.output(n).expect("sm-alu output").offset;
        Ports {
            reset: i("reset"),
            valid: i("valid"),
            op: i("op"),
            a: i("a"),
            b: i("b"),
            c: i("c"),
            pa: i("pa"),
            pb: i("pb"),
            pc: i("pc"),
            out_valid: o("out_valid"),
            result: o("result"),
            pred: o("pred"),
        }
    }
}

/// The results of one issued op, per lane, on their way to the output registers.
#[derive(Clone, Debug)]
struct InFlight {
    result: Vec<u32>,
    pred: u64,
}

/// The cycle model of `sm-alu`: the ops in flight (`stages` − 1 slots, newest first; `None` =
/// no op) and the output registers, loaded each cycle from the oldest slot.
#[derive(Clone, Debug)]
pub struct SmAluModel {
    lanes: usize,
    stages: usize,
    ports: Ports,
    in_flight: VecDeque<Option<InFlight>>,
    out_valid: bool,
    result: Vec<u32>,
    pred: u64,
    /// Whether an op left the pipeline into the output registers at the last edge.
    last_valid: bool,
    /// Coverage: valid ops (out of reset) and their classes (see [`OpClass`]), ops in flight
    /// that a reset dropped, cycles with every slot of a deep pipeline busy.
    counts: [u64; 7],
}

/// The coverage class of an opcode: the classes partition the valid ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpClass {
    /// FP32 ops that write a register: add/sub/mul/fma, min/max, abs/neg, conversions.
    Fp = 1,
    /// Integer ops that write a register: mov, integer ALU, selp.
    Int = 2,
    /// Ops that write a predicate: integer and FP `setp`, predicate logic.
    Pred = 3,
    /// Non-lane and unassigned opcode numbers (result and predicate 0).
    Other = 4,
}

fn op_class(code: u8) -> OpClass {
    match Op::from_code(code) {
        Some(op) if alu::writes_pred(op) => OpClass::Pred,
        Some(op) if FP_ARITH.contains(&op) || FP_OTHER.contains(&op) => OpClass::Fp,
        Some(op) if alu::is_lane_op(op) => OpClass::Int,
        _ => OpClass::Other,
    }
}

impl SmAluModel {
    pub fn new(cfg: &SmAluConfig) -> Self {
        SmAluModel {
            lanes: cfg.lanes,
            stages: cfg.stages,
            ports: Ports::new(cfg),
            in_flight: (1..cfg.stages).map(|_| None).collect(),
            out_valid: false,
            result: vec![0; cfg.lanes],
            pred: 0,
            last_valid: false,
            counts: [0; 7],
        }
    }
}

impl SmAluModel {
    /// The lanes' results of the op issued with `inputs` (not in reset, `valid` high).
    fn issue(&mut self, inputs: &[u64]) -> InFlight {
        let p = self.ports;
        let op = words::get(inputs, p.op, 7) as u8;
        self.counts[0] += 1;
        self.counts[op_class(op) as usize] += 1;
        let (pa, pb, pc) = (
            words::get(inputs, p.pa, self.lanes),
            words::get(inputs, p.pb, self.lanes),
            words::get(inputs, p.pc, self.lanes),
        );
        let mut done = InFlight {
            result: vec![0; self.lanes],
            pred: 0,
        };
        for l in 0..self.lanes {
            let at = WORD_BITS * l;
            let (r, pr) = alu::lane_code(
                op,
                words::get(inputs, p.a + at, WORD_BITS) as u32,
                words::get(inputs, p.b + at, WORD_BITS) as u32,
                words::get(inputs, p.c + at, WORD_BITS) as u32,
                pa >> l & 1 == 1,
                pb >> l & 1 == 1,
                pc >> l & 1 == 1,
            );
            done.result[l] = r;
            done.pred |= (pr as u64) << l;
        }
        done
    }
}

impl Model for SmAluModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let p = self.ports;
        // Outputs: the registers.
        words::set(outputs, p.out_valid, 1, self.out_valid as u64);
        for (l, &r) in self.result.iter().enumerate() {
            words::set(outputs, p.result + WORD_BITS * l, WORD_BITS, r as u64);
        }
        words::set(outputs, p.pred, self.lanes, self.pred);

        // The clock edge.
        let reset = words::get(inputs, p.reset, 1) == 1;
        let valid = words::get(inputs, p.valid, 1) == 1;
        if reset {
            // Every op in flight is dropped.
            for slot in self.in_flight.iter_mut() {
                self.counts[5] += slot.is_some() as u64;
                *slot = None;
            }
        } else if self.stages > 1 && self.in_flight.iter().all(Option::is_some) {
            self.counts[6] += 1;
        }
        let issued = if valid && !reset {
            Some(self.issue(inputs))
        } else {
            None
        };
        self.in_flight.push_front(issued);
        let leaving = self.in_flight.pop_back().flatten();
        self.last_valid = leaving.is_some();
        match leaving {
            Some(done) => {
                self.out_valid = true;
                self.result = done.result;
                self.pred = done.pred;
            }
            None => {
                self.out_valid = false;
                self.result.iter_mut().for_each(|r| *r = 0);
                self.pred = 0;
            }
        }
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let [ops, fp, int, pred, other, dropped, full] = self.counts;
        vec![
            ("ops", ops),
            ("fp_ops", fp),
            ("int_ops", int),
            ("pred_ops", pred),
            ("other_ops", other),
            ("dropped_by_reset", dropped),
            ("pipeline_full", full),
        ]
    }

    fn check_invariants(&self) -> Result<(), String> {
        if self.in_flight.len() != self.stages - 1 {
            return Err(format!(
                "{} ops in flight slots at {} stages",
                self.in_flight.len(),
                self.stages
            ));
        }
        if let Some(f) = self.in_flight.iter().flatten().find(|f| {
            f.result.len() != self.lanes || (self.lanes < 64 && f.pred >> self.lanes != 0)
        }) {
            return Err(format!(
                "an op in flight has {} lanes or pred {:#x} at {} lanes",
                f.result.len(),
                f.pred,
                self.lanes
            ));
        }
        if self.out_valid != self.last_valid {
            return Err(format!(
                "out_valid = {} after an edge where {} op left the pipeline",
                self.out_valid as u8,
                if self.last_valid { "an" } else { "no" }
            ));
        }
        if !self.out_valid && (self.pred != 0 || self.result.iter().any(|&r| r != 0)) {
            return Err("result/pred nonzero without out_valid".into());
        }
        if self.lanes < 64 && self.pred >> self.lanes != 0 {
            return Err(format!(
                "pred {:#x} has bits above lane {}",
                self.pred, self.lanes
            ));
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        let res: Vec<String> = self.result.iter().map(|r| format!("{r:08x}")).collect();
        let flight: String = self
            .in_flight
            .iter()
            .map(|s| if s.is_some() { '1' } else { '0' })
            .collect();
        format!(
            "in_flight={flight} out_valid={} pred={:#x} result=[{}]",
            self.out_valid as u8,
            self.pred,
            res.join(" ")
        )
    }
}

// ---------------------------------------------------------------------------------------
// Stimulus

/// Every lane opcode.
pub fn lane_ops() -> Vec<Op> {
    Op::ALL
        .iter()
        .copied()
        .filter(|&o| alu::is_lane_op(o))
        .collect()
}

const FP_ARITH: &[Op] = &[Op::FAdd, Op::FSub, Op::FMul, Op::FFma];
const FP_OTHER: &[Op] = &[
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
];

/// FP32 words the rules single out.
const FP_SPECIAL: &[u32] = &[
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x0000_0001, // smallest subnormal
    0x807F_FFFF, // largest subnormal, negative
    0x0040_0000, // a subnormal
    0x7F80_0000, // +Inf
    0xFF80_0000, // -Inf
    0x7FC0_0000, // quiet NaN
    0xFFC0_0001, // quiet NaN, negative, payload
    0x7F80_0001, // signalling NaN
    0xFFBF_FFFF, // signalling NaN, negative, full payload
    0x7FFF_FFFF, // the canonical NaN
    0x7F7F_FFFF, // max normal
    0xFF7F_FFFF, // -max normal
    0x0080_0000, // min normal
    0x8080_0000, // -min normal
    0x0080_0001,
    0x3F80_0000, // 1.0
    0xBF80_0000, // -1.0
    0x3F00_0000, // 0.5
    0xBF00_0000, // -0.5
    0x3FC0_0000, // 1.5
    0xBFC0_0000, // -1.5
    0x4020_0000, // 2.5
    0xC020_0000, // -2.5
    0x4060_0000, // 3.5
    0x3EFF_FFFF, // 0.49999997
    0x3F00_0001, // 0.50000006
    0x3F7F_FFFF, // 1 - 2^-24
    0x3F7F_FFFE, // 1 - 2^-23
    0x4F00_0000, // 2^31
    0x4EFF_FFFF, // 2^31 - 128
    0xCF00_0000, // -2^31
    0xCF00_0001, // -2^31 - 256
    0x4F80_0000, // 2^32
    0x4F7F_FFFF, // 2^32 - 256
    0xD380_0000, // -2^40
    0x4B80_0000, // 2^24
    0x4B80_0001, // 2^24 + 2
    0x3380_0000, // 2^-24
    0x3440_0000, // 3 * 2^-24
    0x7F00_0000, // 2^127
    0x0100_0000, // 2^-125
];

/// Integer words the rules single out.
const INT_SPECIAL: &[u32] = &[
    0,
    1,
    2,
    0xFFFF_FFFF,
    0x8000_0000,
    0x7FFF_FFFF,
    0x8000_0001,
    31,
    32,
    33,
    40,
    63,
    64,
    0xFFFF_FFE0,
    0x0100_0001,
    0x0100_0003,
    0x7FFF_FFC0,
    0x7FFF_FF80,
    0xFFFF_FF80,
    0x0000_FFFF,
    0xFFFF_0000,
];

/// The constrained-random stimulus of `sm-alu`. Phases pick how often an instruction issues
/// and which opcodes appear (all lane ops; FP add/sub/mul/fma only; integer only; a sprinkle
/// of non-lane and unassigned opcode numbers); each lane's operands are drawn from the special
/// words of the rules (±0, subnormals, ±Inf, NaNs of both kinds with payloads, extreme
/// normals, conversion and rounding boundaries, shift amounts, INT_MIN), from random values
/// with exponents near overflow, underflow or each other, from mantissas with few significant
/// bits (products that tie), from pairs that cancel exactly or nearly, from addends that
/// cancel a product, and from uniform words. Rare mid-run resets (1 in 10,000 cycles: each
/// drops what a deep pipeline has in flight).
#[derive(Clone, Debug)]
pub struct SmAluStimulus {
    rng: Rng,
    lanes: usize,
    ports: Ports,
    ops: Vec<Op>,
    phase_left: u64,
    /// Per 16: an instruction issues.
    p_valid: u64,
    /// 0 all ops, 1 FP arithmetic only, 2 integer and predicate only, 3 FP other.
    mix: u8,
}

impl SmAluStimulus {
    pub fn new(cfg: &SmAluConfig, seed: u64) -> Self {
        SmAluStimulus {
            rng: Rng::new(seed),
            lanes: cfg.lanes,
            ports: Ports::new(cfg),
            ops: lane_ops(),
            phase_left: 0,
            p_valid: 16,
            mix: 0,
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 50 + r.below(2000);
        self.p_valid = [16, 16, 15, 12, 8, 2][r.below(6) as usize];
        self.mix = [0, 0, 1, 1, 2, 3][r.below(6) as usize];
    }

    fn pick_op(&mut self) -> u8 {
        let r = &mut self.rng;
        if r.chance(1, 40) {
            // Not a lane op: memory, control, nop, or an unassigned number.
            return r.below(128) as u8;
        }
        let op = match self.mix {
            1 => FP_ARITH[r.below(FP_ARITH.len() as u64) as usize],
            2 => loop {
                let o = self.ops[r.below(self.ops.len() as u64) as usize];
                if (o as u8) < Op::FAdd as u8 {
                    break o;
                }
            },
            3 => FP_OTHER[r.below(FP_OTHER.len() as u64) as usize],
            _ => {
                if r.chance(1, 3) {
                    FP_ARITH[r.below(FP_ARITH.len() as u64) as usize]
                } else {
                    self.ops[r.below(self.ops.len() as u64) as usize]
                }
            }
        };
        op as u8
    }

    /// A random FP32 word, biased to the hard cases.
    fn fp_word(&mut self) -> u32 {
        let r = &mut self.rng;
        let sign = (r.below(2) as u32) << 31;
        match r.below(10) {
            0 | 1 => FP_SPECIAL[r.below(FP_SPECIAL.len() as u64) as usize],
            2 => {
                // Few significant mantissa bits: products and sums that tie.
                let k = 1 + r.below(23) as u32;
                let frac = (r.next_u64() as u32 & ((1 << k) - 1)) << (23 - k);
                sign | (100 + r.below(55) as u32) << 23 | frac
            }
            3 => {
                // Near overflow or underflow.
                let e = if r.chance(1, 2) {
                    240 + r.below(15) as u32
                } else {
                    1 + r.below(12) as u32
                };
                sign | e << 23 | (r.next_u64() as u32 & 0x7F_FFFF)
            }
            4 => {
                // Around 1 (cancellation, rounding, conversion ranges).
                sign | (120 + r.below(40) as u32) << 23 | (r.next_u64() as u32 & 0x7F_FFFF)
            }
            5 => {
                // Mantissa all ones or nearly (carries out of the rounding).
                let e = 1 + r.below(254) as u32;
                sign | e << 23 | (0x7F_FFFF - (r.below(4) as u32))
            }
            _ => r.next_u64() as u32,
        }
    }

    /// A second operand related to `a`: equal, negated, nearly equal, a half-ulp of it, or an
    /// exponent close to it.
    fn fp_partner(&mut self, a: u32) -> u32 {
        let r = &mut self.rng;
        let e = (a >> 23) & 0xFF;
        match r.below(6) {
            0 => a ^ 0x8000_0000,
            1 => (a ^ 0x8000_0000)
                .wrapping_add(r.below(5) as u32)
                .wrapping_sub(2),
            2 if e > 24 => (a & 0x8000_0000) ^ ((e - 24) << 23), // half an ulp of a
            3 if e > 24 => ((e - 24) << 23) | (r.below(4) as u32) << 21 | (r.below(2) as u32) << 31,
            _ => {
                let d = r.below(60) as i64 - 30;
                let e2 = (e as i64 + d).clamp(0, 255) as u32;
                (r.below(2) as u32) << 31 | e2 << 23 | (r.next_u64() as u32 & 0x7F_FFFF)
            }
        }
    }

    fn int_word(&mut self) -> u32 {
        let r = &mut self.rng;
        match r.below(6) {
            0 | 1 => INT_SPECIAL[r.below(INT_SPECIAL.len() as u64) as usize],
            2 => r.below(70) as u32,
            3 => (r.next_u64() as u32) >> r.below(32),
            _ => r.next_u64() as u32,
        }
    }

    fn operands(&mut self, op: u8) -> (u32, u32, u32) {
        let is_fp = (Op::FAdd as u8..=Op::CvtU32F32Rz as u8).contains(&op)
            && op != Op::CvtF32S32 as u8
            && op != Op::CvtF32U32 as u8;
        if !is_fp || self.rng.chance(1, 16) {
            let (a, b, c) = (self.int_word(), self.int_word(), self.int_word());
            return (a, b, c);
        }
        let a = self.fp_word();
        let b = if self.rng.chance(1, 2) {
            self.fp_partner(a)
        } else {
            self.fp_word()
        };
        let c = if op == Op::FFma as u8 && self.rng.chance(1, 2) {
            // An addend that cancels the product exactly or nearly.
            let p = fp::mul(a, b) ^ 0x8000_0000;
            p.wrapping_add(self.rng.below(5) as u32).wrapping_sub(2)
        } else if self.rng.chance(1, 2) {
            self.fp_partner(a)
        } else {
            self.fp_word()
        };
        (a, b, c)
    }
}

impl Stimulus for SmAluStimulus {
    fn next(&mut self, cycle: u64, _prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        let p = self.ports;
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        if cycle < 2 || self.rng.chance(1, 10_000) {
            words::set(inputs, p.reset, 1, 1);
            return;
        }
        let valid = self.rng.chance(self.p_valid, 16);
        // Without valid the operands are still driven (the unit must ignore them).
        let op = self.pick_op();
        words::set(inputs, p.valid, 1, valid as u64);
        words::set(inputs, p.op, 7, op as u64);
        for l in 0..self.lanes {
            let (a, b, c) = self.operands(op);
            let at = WORD_BITS * l;
            words::set(inputs, p.a + at, WORD_BITS, a as u64);
            words::set(inputs, p.b + at, WORD_BITS, b as u64);
            words::set(inputs, p.c + at, WORD_BITS, c as u64);
        }
        for port in [p.pa, p.pb, p.pc] {
            let m = self.rng.mask(self.lanes, 8, 16);
            words::set(inputs, port, self.lanes, m);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Spec vectors: worked cases of docs/isa.md's rules, with the expected words written out by
// hand from the rules (not computed by the model).

/// One lane of a worked case: operands and the expected result and predicate.
#[derive(Clone, Copy, Debug)]
struct Case {
    a: u32,
    b: u32,
    c: u32,
    pa: bool,
    pb: bool,
    pc: bool,
    result: u32,
    pred: bool,
}

fn r2(a: u32, b: u32, result: u32) -> Case {
    Case {
        a,
        b,
        c: 0,
        pa: false,
        pb: false,
        pc: false,
        result,
        pred: false,
    }
}

fn r1(a: u32, result: u32) -> Case {
    r2(a, 0, result)
}

fn r3(a: u32, b: u32, c: u32, result: u32) -> Case {
    Case {
        c,
        ..r2(a, b, result)
    }
}

fn p2(a: u32, b: u32, pred: bool) -> Case {
    Case {
        pred,
        ..r2(a, b, 0)
    }
}

fn pp(pa: bool, pb: bool, pred: bool) -> Case {
    Case {
        pa,
        pb,
        pred,
        ..r2(0, 0, 0)
    }
}

/// Lanes of every spec vector.
const VECTOR_LANES: usize = 4;

/// `cases` packed into the lane ports: lane `l` takes `cases[l]` (the first case repeats in the
/// remaining lanes).
fn pack(cases: &[Case], f: &dyn Fn(&Case) -> u32) -> Vec<u64> {
    let lane = |l: usize| cases.get(l).copied().unwrap_or(cases[0]);
    (0..VECTOR_LANES / 2)
        .map(|w| f(&lane(2 * w)) as u64 | (f(&lane(2 * w + 1)) as u64) << 32)
        .collect()
}

fn pack_bits(cases: &[Case], f: &dyn Fn(&Case) -> bool) -> u64 {
    let lane = |l: usize| cases.get(l).copied().unwrap_or(cases[0]);
    (0..VECTOR_LANES).map(|l| (f(&lane(l)) as u64) << l).sum()
}

/// The inputs that issue `op` with `cases`.
fn issue_inputs(op: Op, cases: &[Case]) -> Vec<(&'static str, Vec<u64>)> {
    assert!(!cases.is_empty() && cases.len() <= VECTOR_LANES);
    vec![
        ("valid", vec![1]),
        ("op", vec![op as u64]),
        ("a", pack(cases, &|c| c.a)),
        ("b", pack(cases, &|c| c.b)),
        ("c", pack(cases, &|c| c.c)),
        ("pa", vec![pack_bits(cases, &|c| c.pa)]),
        ("pb", vec![pack_bits(cases, &|c| c.pb)]),
        ("pc", vec![pack_bits(cases, &|c| c.pc)]),
    ]
}

/// The outputs showing `cases`' results.
fn shown(cases: &[Case]) -> Vec<(&'static str, Vec<u64>)> {
    vec![
        ("out_valid", vec![1]),
        ("result", pack(cases, &|c| c.result)),
        ("pred", vec![pack_bits(cases, &|c| c.pred)]),
    ]
}

/// The outputs of a cycle without a result.
fn nothing() -> Vec<(&'static str, Vec<u64>)> {
    vec![
        ("out_valid", vec![0]),
        ("result", vec![0, 0]),
        ("pred", vec![0]),
    ]
}

/// A vector: after a reset, `op` issues once with `cases` in lanes 0.. (the first case repeats
/// in the remaining lanes); the next cycle shows the results; then an idle cycle clears them.
fn vector(name: &str, op: Op, cases: &[Case]) -> SpecVector {
    SpecVector {
        name: format!("isa.md: {name}"),
        unit: NAME,
        sets: vec![format!("lanes={VECTOR_LANES}")],
        cycles: vec![
            VectorCycle {
                inputs: vec![("reset", vec![1])],
                expect: vec![],
            },
            VectorCycle {
                inputs: issue_inputs(op, cases),
                expect: nothing(),
            },
            VectorCycle {
                inputs: vec![],
                expect: shown(cases),
            },
            VectorCycle {
                inputs: vec![],
                expect: nothing(),
            },
        ],
    }
}

/// `v` (a [`vector`]) at pipeline depth `stages`: `stages` − 1 more cycles without a result
/// between the issue and the result.
fn deepen(mut v: SpecVector, stages: usize) -> SpecVector {
    v.name = format!("{} (stages={stages})", v.name);
    v.sets.push(format!("stages={stages}"));
    for _ in 1..stages {
        v.cycles.insert(
            2,
            VectorCycle {
                inputs: vec![],
                expect: nothing(),
            },
        );
    }
    v
}

/// One cycle of a [`pipeline_vector`]: reset, an op issued, or idle.
enum Drive {
    Reset,
    Issue(Op, Vec<Case>),
    Idle,
}

/// The contract's pipeline rule as a vector: the `drives`, one per cycle after an initial
/// reset, then idle cycles until the last result has left. An op issued in cycle `u` shows in
/// cycle `u + stages` unless a reset came in cycles `u … u + stages − 1`; every other cycle
/// shows nothing. (The expectations follow from the rule and the hand-written cases.)
fn pipeline_vector(name: &str, stages: usize, drives: Vec<Drive>) -> SpecVector {
    let n = 1 + drives.len() + stages + 1;
    let mut cycles: Vec<VectorCycle> = (0..n)
        .map(|c| VectorCycle {
            inputs: if c == 0 {
                vec![("reset", vec![1])]
            } else {
                vec![]
            },
            expect: if c == 0 { vec![] } else { nothing() },
        })
        .collect();
    let resets: Vec<usize> = drives
        .iter()
        .enumerate()
        .filter(|(_, d)| matches!(d, Drive::Reset))
        .map(|(i, _)| i + 1)
        .collect();
    for (i, d) in drives.into_iter().enumerate() {
        let u = i + 1;
        match d {
            Drive::Reset => {
                cycles[u].inputs = vec![("reset", vec![1])];
                // Outputs in a reset cycle are not compared.
                cycles[u].expect = vec![];
            }
            Drive::Issue(op, cases) => {
                cycles[u].inputs = issue_inputs(op, &cases);
                if !resets.iter().any(|&r| (u..u + stages).contains(&r)) {
                    cycles[u + stages].expect = shown(&cases);
                }
            }
            Drive::Idle => {}
        }
    }
    SpecVector {
        name: format!("sm_alu contract: {name} (stages={stages})"),
        unit: NAME,
        sets: vec![format!("lanes={VECTOR_LANES}"), format!("stages={stages}")],
        cycles,
    }
}

/// The pipeline rules at depth `stages`: one op per cycle, in order, each `stages` cycles
/// later whatever its kind; a reset drops the ops in flight (and the op of its own cycle).
fn pipeline_vectors(stages: usize) -> Vec<SpecVector> {
    let add = || Drive::Issue(Op::Add, vec![r2(3, 4, 7), r2(NEG, NEG, 0)]);
    // 1.5 · 2.5 = 3.75; 1 · 1 = 1.
    let fmul = || {
        Drive::Issue(
            Op::FMul,
            vec![r2(0x3FC0_0000, 0x4020_0000, 0x4070_0000), r2(ONE, ONE, ONE)],
        )
    };
    // -1 < 1 (signed); 1 < 1 is false.
    let setp = || Drive::Issue(Op::SetLtS, vec![p2(0xFFFF_FFFF, 1, true), p2(1, 1, false)]);
    vec![
        pipeline_vector(
            "one op per cycle, in order, integer and FP alike",
            stages,
            vec![add(), fmul(), setp(), Drive::Idle, fmul(), add()],
        ),
        pipeline_vector(
            "reset drops the ops in flight",
            stages,
            vec![fmul(), add(), Drive::Reset, setp(), fmul()],
        ),
    ]
}

/// Every spec vector: the worked cases at one stage and again at three (every cut of the
/// FP path but the last between issue and result), and the pipeline rules at two and four.
pub fn spec_vectors() -> Vec<SpecVector> {
    let worked = worked_vectors();
    let mut all: Vec<SpecVector> = worked.iter().cloned().map(|v| deepen(v, 3)).collect();
    all.splice(0..0, worked);
    all.extend(pipeline_vectors(2));
    all.extend(pipeline_vectors(4));
    all
}

const NAN: u32 = 0x7FFF_FFFF;
const ONE: u32 = 0x3F80_0000;
const NEG: u32 = 0x8000_0000;
const INF: u32 = 0x7F80_0000;
const MAX: u32 = 0x7F7F_FFFF;
const MIN_NORMAL: u32 = 0x0080_0000;

/// The worked cases of docs/isa.md (integer rules, then the FP32 rules), each as a vector.
fn worked_vectors() -> Vec<SpecVector> {
    vec![
        vector(
            "abs.s32 wraps: abs(-2^31) = -2^31",
            Op::Abs,
            &[r1(NEG, NEG), r1(0xFFFF_FFFB, 5), r1(7, 7), r1(0, 0)],
        ),
        vector(
            "neg.s32 wraps: neg(-2^31) = -2^31",
            Op::Neg,
            &[
                r1(NEG, NEG),
                r1(1, 0xFFFF_FFFF),
                r1(0, 0),
                r1(0x7FFF_FFFF, NEG | 1),
            ],
        ),
        vector(
            "shl.b32 by 32 or more is 0",
            Op::Shl,
            &[
                r2(1, 32, 0),
                r2(1, 31, NEG),
                r2(0xABCD, 0, 0xABCD),
                r2(5, 0xFFFF_FFFF, 0),
            ],
        ),
        vector(
            "shr.u32 by 32 or more is 0",
            Op::ShrU,
            &[
                r2(NEG, 32, 0),
                r2(NEG, 31, 1),
                r2(NEG, 40, 0),
                r2(0xF0, 4, 0xF),
            ],
        ),
        vector(
            "shr.s32 by 40 fills with the sign",
            Op::ShrS,
            &[
                r2(NEG, 40, 0xFFFF_FFFF),
                r2(0x7FFF_FFFF, 40, 0),
                r2(0x8000_0010, 4, 0xF800_0001),
                r2(0xFFFF_FFF0, 0x8000_0000, 0xFFFF_FFFF),
            ],
        ),
        vector(
            "mul.hi.s32 of INT_MIN",
            Op::MulHiS,
            &[
                r2(NEG, NEG, 0x4000_0000),
                r2(0xFFFF_FFFF, 1, 0xFFFF_FFFF),
                r2(NEG, 0x7FFF_FFFF, 0xC000_0000),
                r2(0x10000, 0x10000, 1),
            ],
        ),
        vector(
            "mul.hi.u32",
            Op::MulHiU,
            &[
                r2(0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFE),
                r2(NEG, 2, 1),
                r2(NEG, NEG, 0x4000_0000),
            ],
        ),
        vector(
            "mul.lo.s32 and mad.lo.s32 keep the low 32 bits",
            Op::MadLo,
            &[
                r3(3, 4, 5, 17),
                r3(0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF, 0),
                r3(0x10000, 0x10000, 7, 7),
            ],
        ),
        vector(
            "clz.b32 of 0 is 32",
            Op::Clz,
            &[r1(0, 32), r1(1, 31), r1(NEG, 0), r1(0x0001_0000, 15)],
        ),
        vector(
            "popc.b32",
            Op::Popc,
            &[r1(0, 0), r1(0xFFFF_FFFF, 32), r1(0x8000_0001, 2)],
        ),
        vector(
            "min.s32 / min.u32 differ on negative numbers",
            Op::MinS,
            &[r2(0xFFFF_FFFF, 1, 0xFFFF_FFFF), r2(NEG, 0x7FFF_FFFF, NEG)],
        ),
        vector(
            "max.u32 of a negative number",
            Op::MaxU,
            &[r2(0xFFFF_FFFF, 1, 0xFFFF_FFFF), r2(NEG, 0x7FFF_FFFF, NEG)],
        ),
        vector(
            "setp.lt.s32 is signed",
            Op::SetLtS,
            &[p2(0xFFFF_FFFF, 0, true), p2(0, NEG, false), p2(5, 5, false)],
        ),
        vector(
            "setp.lt.u32 is unsigned",
            Op::SetLtU,
            &[p2(0xFFFF_FFFF, 0, false), p2(0, NEG, true), p2(5, 5, false)],
        ),
        vector(
            "selp.b32 picks A when the predicate holds",
            Op::Selp,
            &[
                Case {
                    pc: true,
                    ..r2(11, 22, 11)
                },
                r2(11, 22, 22),
            ],
        ),
        vector(
            "xor.pred",
            Op::PXor,
            &[
                pp(false, false, false),
                pp(true, false, true),
                pp(false, true, true),
                pp(true, true, false),
            ],
        ),
        vector(
            "not.pred reads pa",
            Op::PNot,
            &[pp(false, true, true), pp(true, false, false)],
        ),
        vector("mov.b32", Op::Mov, &[r2(0xDEAD_BEEF, 5, 0xDEAD_BEEF)]),
        vector(
            "ld.global is not a lane op: result and pred 0",
            Op::LdGlobal,
            &[Case {
                pa: true,
                pb: true,
                pc: true,
                ..r2(1, 2, 0)
            }],
        ),
        vector(
            "bra is not a lane op: result and pred 0",
            Op::Bra,
            &[Case {
                pa: true,
                pb: true,
                pc: true,
                ..r2(1, 2, 0)
            }],
        ),
        // FP32.
        vector(
            "add.f32 rounds to nearest even",
            Op::FAdd,
            &[
                r2(ONE, 0x3380_0000, ONE),         // 1 + 2^-24: a tie, to the even 1
                r2(ONE, 0x3440_0000, ONE + 2),     // 1 + 3·2^-24: a tie, to the even 1 + 2^-22
                r2(ONE, 0x3380_0001, ONE + 1),     // just above the tie
                r2(0x4B80_0000, ONE, 0x4B80_0000), // 2^24 + 1: a tie, to 2^24
            ],
        ),
        vector(
            "fma.rn.f32 rounds once: (1+2^-12)^2 - 1 keeps 2^-24",
            Op::FFma,
            &[
                r3(0x3F80_0800, 0x3F80_0800, 0xBF80_0000, 0x3A00_0400),
                r3(ONE, ONE, 0xBF80_0000, 0), // exact cancellation: +0
                r3(NEG, ONE, NEG, NEG),       // -0·1 + -0 = -0
                r3(MAX, 0x4000_0000, 0xFF7F_FFFF, MAX), // the product overflows, the sum does not
            ],
        ),
        vector(
            "sub.f32: the product of mul then sub differs from fma",
            Op::FSub,
            &[
                // mul(1+2^-12, 1+2^-12) rounds to 1+2^-11; minus 1 is 2^-11
                r2(0x3F80_1000, ONE, 0x3A00_0000),
                r2(NEG, 0, NEG),                 // -0 - +0 = -0
                r2(0x4040_0000, 0x4040_0000, 0), // x - x = +0
            ],
        ),
        vector(
            "subnormal inputs are read as zero",
            Op::FAdd,
            &[
                r2(ONE, 0x0000_0001, ONE),
                r2(0x0000_0001, 0x8000_0002, 0),   // +0 + -0 = +0
                r2(0x8000_0001, 0x8000_0002, NEG), // -0 + -0 = -0
                r2(0x007F_FFFF, MIN_NORMAL, MIN_NORMAL),
            ],
        ),
        vector(
            "mul.f32: subnormal input is zero, 0 × Inf is the canonical NaN",
            Op::FMul,
            &[
                r2(0x0000_0001, 0x7F00_0000, 0),
                r2(0x8000_0001, 0x7F00_0000, NEG),
                r2(0, INF, NAN),
                r2(0xFF80_0000, 0x8000_0000, NAN),
            ],
        ),
        vector(
            "mul.f32: a subnormal result is flushed to signed zero, after rounding",
            Op::FMul,
            &[
                r2(MIN_NORMAL, 0x3F00_0000, 0),          // 2^-127: flushed
                r2(MIN_NORMAL | NEG, 0x3F00_0000, NEG),  // -2^-127: flushed to -0
                r2(0x3F7F_FFFF, MIN_NORMAL, MIN_NORMAL), // 2^-126 - 2^-150 rounds up to 2^-126
                r2(0x3F7F_FFFE, MIN_NORMAL, 0),          // 2^-126 - 2^-149 is subnormal: flushed
            ],
        ),
        vector(
            "mul.f32 overflows to Inf; Inf - Inf is NaN",
            Op::FMul,
            &[
                r2(MAX, 0x4000_0000, INF),
                r2(MAX, 0xC000_0000, 0xFF80_0000),
                r2(0x7FC0_0001, ONE, NAN),
                r2(INF, 0xBF80_0000, 0xFF80_0000),
            ],
        ),
        vector(
            "add.f32: Inf + -Inf is NaN, max + max is Inf",
            Op::FAdd,
            &[
                r2(INF, 0xFF80_0000, NAN),
                r2(MAX, MAX, INF),
                r2(0xFF80_0001, ONE, NAN),
                r2(INF, MAX | NEG, INF),
            ],
        ),
        vector(
            "min.f32: NaN loses; -0 is below +0",
            Op::FMin,
            &[
                r2(0x7FC0_0000, ONE, ONE),
                r2(0xFF80_0001, 0x7FC0_0001, NAN),
                r2(NEG, 0, NEG),
                r2(0, NEG, NEG),
            ],
        ),
        vector(
            "max.f32: NaN loses; +0 is above -0; subnormals are zeros",
            Op::FMax,
            &[
                r2(ONE, 0xFF80_0001, ONE),
                r2(NEG, 0, 0),
                r2(0x8000_0005, 0x0000_0003, 0),
                r2(0xFF80_0000, 0xC000_0000, 0xC000_0000),
            ],
        ),
        vector(
            "abs.f32 / neg.f32 flush and canonicalize",
            Op::FNeg,
            &[
                r1(0x0000_0001, NEG),
                r1(0x7F80_0001, NAN),
                r1(ONE, 0xBF80_0000),
                r1(NEG, 0),
            ],
        ),
        vector(
            "abs.f32",
            Op::FAbs,
            &[
                r1(0x8000_0001, 0),
                r1(0xFFC0_0000, NAN),
                r1(0xBF80_0000, ONE),
                r1(0xFF80_0000, INF),
            ],
        ),
        vector(
            "setp.ne.f32 is true with NaN",
            Op::FSetNe,
            &[
                p2(0x7FC0_0000, ONE, true),
                p2(0x7FC0_0000, 0x7FC0_0000, true),
                p2(ONE, ONE, false),
                p2(NEG, 0, false),
            ],
        ),
        vector(
            "setp.eq.f32: NaN unequal, -0 = +0, subnormal = 0",
            Op::FSetEq,
            &[
                p2(0x7FC0_0000, 0x7FC0_0000, false),
                p2(NEG, 0, true),
                p2(0x0000_0010, 0, true),
                p2(ONE, 0x3F80_0001, false),
            ],
        ),
        vector(
            "setp.lt/ge.f32 are false with NaN",
            Op::FSetGe,
            &[
                p2(0x7FC0_0000, ONE, false),
                p2(ONE, 0xFF80_0001, false),
                p2(0, NEG, true),
                p2(0xC000_0000, 0xBF80_0000, false),
            ],
        ),
        vector(
            "cvt.rni.s32.f32: ties to even, saturating",
            Op::CvtS32F32Rn,
            &[
                r1(0x4020_0000, 2),           // 2.5 → 2
                r1(0xC020_0000, 0xFFFF_FFFE), // -2.5 → -2
                r1(0xD380_0000, NEG),         // -2^40 saturates
                r1(0x3FC0_0000, 2),           // 1.5 → 2
            ],
        ),
        vector(
            "cvt.rni.s32.f32: 0.5 → 0, 3.5 → 4, NaN → 0, 2^31 saturates",
            Op::CvtS32F32Rn,
            &[
                r1(0x3F00_0000, 0),
                r1(0x4060_0000, 4),
                r1(0x7FC0_0000, 0),
                r1(0x4F00_0000, 0x7FFF_FFFF),
            ],
        ),
        vector(
            "cvt.rzi.s32.f32 truncates and saturates",
            Op::CvtS32F32Rz,
            &[
                r1(0x402C_CCCD, 2),           // 2.7 → 2
                r1(0xC02C_CCCD, 0xFFFF_FFFE), // -2.7 → -2
                r1(0xCF00_0000, NEG),         // -2^31 fits
                r1(0xCF00_0001, NEG),         // below -2^31 saturates
            ],
        ),
        vector(
            "cvt.rzi.u32.f32: negatives give 0, 2^32 saturates",
            Op::CvtU32F32Rz,
            &[
                r1(0xC0A0_0000, 0),           // -5
                r1(0x4F80_0000, 0xFFFF_FFFF), // 2^32
                r1(0x4F7F_FFFF, 0xFFFF_FF00), // 2^32 - 256
                r1(0xBF7F_FFFF, 0),           // -0.99999994
            ],
        ),
        vector(
            "cvt.rn.f32.s32 rounds to nearest even",
            Op::CvtF32S32,
            &[
                r1(16_777_217, 0x4B80_0000),  // 2^24 + 1 → 2^24
                r1(16_777_219, 0x4B80_0002),  // 2^24 + 3 → 2^24 + 4
                r1(NEG, 0xCF00_0000),         // -2^31
                r1(0x7FFF_FFFF, 0x4F00_0000), // 2^31 - 1 → 2^31
            ],
        ),
        vector(
            "cvt.rn.f32.u32 rounds to nearest even",
            Op::CvtF32U32,
            &[
                r1(0xFFFF_FFFF, 0x4F80_0000),
                r1(0, 0),
                r1(NEG, 0x4F00_0000),
                r1(0xFFFF_FF7F, 0x4F7F_FFFF),
            ],
        ),
    ]
}
