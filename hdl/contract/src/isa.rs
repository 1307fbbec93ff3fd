//! The SIMT instruction encoding: one 64-bit word per instruction, shared by the RTL decoder
//! and the reference tools (assembler, disassembler, interpreter). This module says only what
//! the bits mean; how an instruction behaves is written separately on each side.
//!
//! ```text
//!  63                         32  31  30    25 24    19 18    13  12  11  10  8   7   6     0
//! +-----------------------------+----+--------+--------+--------+----+----+-----+----+-------+
//! |            imm              |bimm|   b    |   a    |   d    | g  | gn | gp  |asr |  op   |
//! +-----------------------------+----+--------+--------+--------+----+----+-----+----+-------+
//! ```
//!
//! - `op` (7 bits): the [`Op`].
//! - `asr`: operand A is the special register numbered `a` ([`Special`]) instead of `%r[a]`.
//! - `g`, `gn`, `gp`: the guard. `g` = guarded; the instruction runs in a thread only when
//!   predicate `%p[gp]` is true (`gn` = 0) or false (`gn` = 1).
//! - `d`, `a`, `b` (6 bits each): register numbers (predicate numbers, 0..7, where the format
//!   says so).
//! - `bimm`: operand B is `imm` instead of `%r[b]`.
//! - `imm` (32 bits): an immediate, an address offset, `c` (a third source register in
//!   `imm[5:0]`), or for `bra` the target PC in `imm[15:0]` and the reconvergence PC in
//!   `imm[31:16]`.
//!
//! PCs count instructions (not bytes). Fields an instruction's [`Format`] does not use must be
//! zero: [`Instr::decode`] rejects anything else, so encode and decode are exact inverses on
//! every valid word.

use std::fmt;

/// Number of general registers a kernel may declare.
pub const MAX_REGS: usize = 64;
/// Number of predicate registers.
pub const NUM_PREDS: usize = 8;
/// Largest program, in instructions (PCs and reconvergence PCs are 16-bit in `bra`).
pub const MAX_PROGRAM_LEN: usize = 0xFFFF;

/// How an instruction uses the fields of its word. `A` is `%r[a]` or a special register (the
/// `asr` bit); `B` is `%r[b]` or `imm` (the `bimm` bit); `c` is the register `imm[5:0]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// No operands (`nop`, `exit`, `bar.sync`, `bar.synch_partner`).
    None,
    /// `d ← A` (bimm = 0) or `d ← imm` (bimm = 1, then a = 0 and asr = 0).
    Mov,
    /// `d ← f(A)`.
    Alu1,
    /// `d ← f(A, B)`.
    Alu2,
    /// `d ← f(A, %r[b], %r[c])`; bimm = 0, imm = c.
    Alu3,
    /// `d ← %p[c] ? A : %r[b]`; bimm = 0, imm = c (a predicate number).
    Selp,
    /// `%p[d] ← cmp(A, B)`.
    Setp,
    /// `%p[d] ← f(%p[a], %p[b])`.
    Pred2,
    /// `%p[d] ← f(%p[a])`.
    Pred1,
    /// `d ← mem[A + imm]`.
    Load,
    /// `mem[A + imm] ← %r[b]`; bimm = 0.
    Store,
    /// `d ← param[imm]` (byte offset into the launch's parameter words); a = 0.
    LoadParam,
    /// `d ← mem[A + imm]; mem[A + imm] ← f(old, %r[b])`; bimm = 0.
    Atom,
    /// `d ← mem[A]; if old == %r[b] { mem[A] ← %r[c] }`; bimm = 0, imm = c.
    Cas,
    /// `bra`: target PC `imm[15:0]`, reconvergence PC `imm[31:16]`.
    Branch,
}

macro_rules! ops {
    ($( $name:ident = $code:literal, $mn:literal, $fmt:ident; )*) => {
        /// Opcodes. The discriminant is the 7-bit `op` field.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Op { $( $name = $code, )* }

        impl Op {
            /// Every opcode, in encoding order.
            pub const ALL: &'static [Op] = &[ $( Op::$name, )* ];

            pub fn from_code(code: u8) -> Option<Op> {
                match code { $( $code => Some(Op::$name), )* _ => None }
            }

            /// The canonical assembly mnemonic (what the disassembler prints).
            pub fn mnemonic(self) -> &'static str {
                match self { $( Op::$name => $mn, )* }
            }

            pub fn format(self) -> Format {
                match self { $( Op::$name => Format::$fmt, )* }
            }
        }
    };
}

ops! {
    Nop = 0, "nop", None;
    Mov = 1, "mov.b32", Mov;
    // Integer arithmetic and logic.
    Add = 2, "add.s32", Alu2;
    Sub = 3, "sub.s32", Alu2;
    MulLo = 4, "mul.lo.s32", Alu2;
    MulHiS = 5, "mul.hi.s32", Alu2;
    MulHiU = 6, "mul.hi.u32", Alu2;
    MadLo = 7, "mad.lo.s32", Alu3;
    MinS = 8, "min.s32", Alu2;
    MinU = 9, "min.u32", Alu2;
    MaxS = 10, "max.s32", Alu2;
    MaxU = 11, "max.u32", Alu2;
    Abs = 12, "abs.s32", Alu1;
    Neg = 13, "neg.s32", Alu1;
    And = 14, "and.b32", Alu2;
    Or = 15, "or.b32", Alu2;
    Xor = 16, "xor.b32", Alu2;
    Not = 17, "not.b32", Alu1;
    Shl = 18, "shl.b32", Alu2;
    ShrU = 19, "shr.u32", Alu2;
    ShrS = 20, "shr.s32", Alu2;
    Popc = 21, "popc.b32", Alu1;
    Clz = 22, "clz.b32", Alu1;
    Selp = 23, "selp.b32", Selp;
    // Integer compares.
    SetEq = 24, "setp.eq.s32", Setp;
    SetNe = 25, "setp.ne.s32", Setp;
    SetLtS = 26, "setp.lt.s32", Setp;
    SetLeS = 27, "setp.le.s32", Setp;
    SetGtS = 28, "setp.gt.s32", Setp;
    SetGeS = 29, "setp.ge.s32", Setp;
    SetLtU = 30, "setp.lt.u32", Setp;
    SetLeU = 31, "setp.le.u32", Setp;
    SetGtU = 32, "setp.gt.u32", Setp;
    SetGeU = 33, "setp.ge.u32", Setp;
    // Predicate logic.
    PAnd = 34, "and.pred", Pred2;
    POr = 35, "or.pred", Pred2;
    PXor = 36, "xor.pred", Pred2;
    PNot = 37, "not.pred", Pred1;
    PMov = 38, "mov.pred", Pred1;
    // FP32 (rules in docs/isa.md: RNE, subnormals flushed, canonical NaN 0x7fffffff).
    FAdd = 40, "add.f32", Alu2;
    FSub = 41, "sub.f32", Alu2;
    FMul = 42, "mul.f32", Alu2;
    FFma = 43, "fma.rn.f32", Alu3;
    FMin = 44, "min.f32", Alu2;
    FMax = 45, "max.f32", Alu2;
    FAbs = 46, "abs.f32", Alu1;
    FNeg = 47, "neg.f32", Alu1;
    FSetEq = 48, "setp.eq.f32", Setp;
    FSetNe = 49, "setp.ne.f32", Setp;
    FSetLt = 50, "setp.lt.f32", Setp;
    FSetLe = 51, "setp.le.f32", Setp;
    FSetGt = 52, "setp.gt.f32", Setp;
    FSetGe = 53, "setp.ge.f32", Setp;
    CvtF32S32 = 54, "cvt.rn.f32.s32", Alu1;
    CvtF32U32 = 55, "cvt.rn.f32.u32", Alu1;
    CvtS32F32Rz = 56, "cvt.rzi.s32.f32", Alu1;
    CvtS32F32Rn = 57, "cvt.rni.s32.f32", Alu1;
    CvtU32F32Rz = 58, "cvt.rzi.u32.f32", Alu1;
    // Memory.
    LdGlobal = 64, "ld.global.b32", Load;
    StGlobal = 65, "st.global.b32", Store;
    LdShared = 66, "ld.shared.b32", Load;
    StShared = 67, "st.shared.b32", Store;
    LdParam = 68, "ld.param.b32", LoadParam;
    AtomGAdd = 72, "atom.global.add.u32", Atom;
    AtomGMaxS = 73, "atom.global.max.s32", Atom;
    AtomGMaxU = 74, "atom.global.max.u32", Atom;
    AtomGExch = 75, "atom.global.exch.b32", Atom;
    AtomGCas = 76, "atom.global.cas.b32", Cas;
    AtomSAdd = 80, "atom.shared.add.u32", Atom;
    AtomSMaxS = 81, "atom.shared.max.s32", Atom;
    AtomSMaxU = 82, "atom.shared.max.u32", Atom;
    AtomSExch = 83, "atom.shared.exch.b32", Atom;
    AtomSCas = 84, "atom.shared.cas.b32", Cas;
    // Control.
    Bra = 96, "bra", Branch;
    Exit = 97, "exit", None;
    BarSync = 98, "bar.sync", None;
    BarPartner = 99, "bar.synch_partner", None;
}

impl Op {
    /// A block barrier or DWR's sensitive barrier: these may not be guarded.
    pub fn is_barrier(self) -> bool {
        matches!(self, Op::BarSync | Op::BarPartner)
    }

    /// Global-memory loads and stores: DWR's "sensitive" instructions (spec/dwr.md §3.2).
    pub fn is_global_ld_st(self) -> bool {
        matches!(self, Op::LdGlobal | Op::StGlobal)
    }

    /// Instructions whose immediate operands are FP32 values (for assembly literals).
    pub fn is_f32(self) -> bool {
        matches!(
            self,
            Op::FAdd
                | Op::FSub
                | Op::FMul
                | Op::FFma
                | Op::FMin
                | Op::FMax
                | Op::FAbs
                | Op::FNeg
                | Op::FSetEq
                | Op::FSetNe
                | Op::FSetLt
                | Op::FSetLe
                | Op::FSetGt
                | Op::FSetGe
        )
    }
}

macro_rules! specials {
    ($( $name:ident = $code:literal, $text:literal; )*) => {
        /// Special (read-only) registers, read through operand A with the `asr` bit.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Special { $( $name = $code, )* }

        impl Special {
            pub const ALL: &'static [Special] = &[ $( Special::$name, )* ];
            pub fn from_code(code: u8) -> Option<Special> {
                match code { $( $code => Some(Special::$name), )* _ => None }
            }
            /// Assembly name, e.g. `%tid.x`.
            pub fn name(self) -> &'static str {
                match self { $( Special::$name => $text, )* }
            }
        }
    };
}

specials! {
    TidX = 0, "%tid.x";
    TidY = 1, "%tid.y";
    TidZ = 2, "%tid.z";
    NtidX = 3, "%ntid.x";
    NtidY = 4, "%ntid.y";
    NtidZ = 5, "%ntid.z";
    CtaidX = 6, "%ctaid.x";
    CtaidY = 7, "%ctaid.y";
    CtaidZ = 8, "%ctaid.z";
    NctaidX = 9, "%nctaid.x";
    NctaidY = 10, "%nctaid.y";
    NctaidZ = 11, "%nctaid.z";
    LaneId = 12, "%laneid";
    WarpId = 13, "%warpid";
    SmId = 14, "%smid";
    Clock = 15, "%clock";
}

/// Guard predicate: run when `%p[pred]` is true, or false when `negate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    pub pred: u8,
    pub negate: bool,
}

/// One decoded instruction: the fields of its word. Which fields matter is given by
/// `op.format()`; the others are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instr {
    pub op: Op,
    pub guard: Option<Guard>,
    /// Operand A is special register `a`.
    pub a_sreg: bool,
    pub d: u8,
    pub a: u8,
    pub b: u8,
    /// Operand B is `imm`.
    pub b_imm: bool,
    pub imm: u32,
}

/// Why a word is not a valid instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What one register field holds in a format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Unused,
    /// A general register.
    Reg,
    /// A general register, or a special register when `asr` is set (operand A only).
    Operand,
    /// A predicate number (0..7).
    Pred,
}

/// What the `imm` field holds in a format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmUse {
    Unused,
    /// A 32-bit value, offset or branch PCs.
    Full,
    /// The third source register `c`.
    RegC,
    /// A predicate number `c` (selp).
    PredC,
}

/// Which fields a format uses (given the `bimm` bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldUse {
    pub d: Field,
    pub a: Field,
    pub b: Field,
    pub imm: ImmUse,
    pub b_imm_allowed: bool,
}

impl FieldUse {
    pub fn of(fmt: Format, b_imm: bool) -> FieldUse {
        use Field::*;
        let f = |d, a, b, imm, b_imm_allowed| FieldUse {
            d,
            a,
            b,
            imm,
            b_imm_allowed,
        };
        // Operand B of Alu2/Setp: the register b, or imm when bimm.
        let (b_ri, imm_ri) = if b_imm {
            (Unused, ImmUse::Full)
        } else {
            (Reg, ImmUse::Unused)
        };
        match fmt {
            Format::None => f(Unused, Unused, Unused, ImmUse::Unused, false),
            Format::Mov if b_imm => f(Reg, Unused, Unused, ImmUse::Full, true),
            Format::Mov => f(Reg, Operand, Unused, ImmUse::Unused, true),
            Format::Alu1 => f(Reg, Operand, Unused, ImmUse::Unused, false),
            Format::Alu2 => f(Reg, Operand, b_ri, imm_ri, true),
            Format::Alu3 => f(Reg, Operand, Reg, ImmUse::RegC, false),
            Format::Selp => f(Reg, Operand, Reg, ImmUse::PredC, false),
            Format::Setp => f(Pred, Operand, b_ri, imm_ri, true),
            Format::Pred2 => f(Pred, Pred, Pred, ImmUse::Unused, false),
            Format::Pred1 => f(Pred, Pred, Unused, ImmUse::Unused, false),
            Format::Load => f(Reg, Operand, Unused, ImmUse::Full, false),
            Format::Store => f(Unused, Operand, Reg, ImmUse::Full, false),
            Format::LoadParam => f(Reg, Unused, Unused, ImmUse::Full, false),
            Format::Atom => f(Reg, Operand, Reg, ImmUse::Full, false),
            Format::Cas => f(Reg, Operand, Reg, ImmUse::RegC, false),
            Format::Branch => f(Unused, Unused, Unused, ImmUse::Full, false),
        }
    }
}

impl Instr {
    /// An instruction with every field zero but `op`.
    pub fn new(op: Op) -> Instr {
        Instr {
            op,
            guard: None,
            a_sreg: false,
            d: 0,
            a: 0,
            b: 0,
            b_imm: false,
            imm: 0,
        }
    }

    /// The third source register (`imm[5:0]`) of `Alu3`, `Selp` and `Cas`.
    pub fn c(&self) -> u8 {
        (self.imm & 63) as u8
    }

    /// Branch target PC.
    pub fn target(&self) -> u32 {
        self.imm & 0xFFFF
    }

    /// Branch reconvergence PC (the immediate post-dominator; the program length when that is
    /// the virtual exit).
    pub fn rpc(&self) -> u32 {
        self.imm >> 16
    }

    /// Builds a `bra` word's immediate.
    pub fn branch_imm(target: u32, rpc: u32) -> u32 {
        (target & 0xFFFF) | (rpc << 16)
    }

    pub fn encode(&self) -> u64 {
        let (g, gn, gp) = match self.guard {
            Some(gd) => (1u64, gd.negate as u64, gd.pred as u64 & 7),
            None => (0, 0, 0),
        };
        (self.op as u64 & 0x7F)
            | (self.a_sreg as u64) << 7
            | gp << 8
            | gn << 11
            | g << 12
            | (self.d as u64 & 63) << 13
            | (self.a as u64 & 63) << 19
            | (self.b as u64 & 63) << 25
            | (self.b_imm as u64) << 31
            | (self.imm as u64) << 32
    }

    /// Decodes a word, rejecting unknown opcodes, nonzero unused fields, out-of-range
    /// predicate or special-register numbers and guarded barriers.
    pub fn decode(word: u64) -> Result<Instr, DecodeError> {
        let code = (word & 0x7F) as u8;
        let op = Op::from_code(code)
            .ok_or_else(|| DecodeError(format!("unknown opcode {code} in word {word:#018x}")))?;
        let guard = if (word >> 12) & 1 == 1 {
            Some(Guard {
                pred: ((word >> 8) & 7) as u8,
                negate: (word >> 11) & 1 == 1,
            })
        } else {
            if (word >> 8) & 0xF != 0 {
                return Err(DecodeError(format!(
                    "guard bits set without the guard flag in word {word:#018x}"
                )));
            }
            None
        };
        let ins = Instr {
            op,
            guard,
            a_sreg: (word >> 7) & 1 == 1,
            d: ((word >> 13) & 63) as u8,
            a: ((word >> 19) & 63) as u8,
            b: ((word >> 25) & 63) as u8,
            b_imm: (word >> 31) & 1 == 1,
            imm: (word >> 32) as u32,
        };
        ins.validate()?;
        Ok(ins)
    }

    /// Checks that the fields fit the format (what `decode` enforces).
    pub fn validate(&self) -> Result<(), DecodeError> {
        let op = self.op;
        let err = |what: &str| {
            Err(DecodeError(format!(
                "{}: {what} (word {:#018x})",
                op.mnemonic(),
                self.encode()
            )))
        };
        if op.is_barrier() && self.guard.is_some() {
            return err("a barrier cannot be guarded");
        }
        if let Some(g) = self.guard {
            if g.pred as usize >= NUM_PREDS {
                return err("guard predicate out of range");
            }
        }
        let fmt = op.format();
        let layout = FieldUse::of(fmt, self.b_imm);
        if self.b_imm && !layout.b_imm_allowed {
            return err("operand B cannot be an immediate");
        }
        if self.a_sreg {
            if layout.a != Field::Operand {
                return err("special-register operand not allowed");
            }
            if Special::from_code(self.a).is_none() {
                return err("unknown special register");
            }
        }
        for (name, used, value) in [
            ("d", layout.d, self.d),
            ("a", layout.a, self.a),
            ("b", layout.b, self.b),
        ] {
            match used {
                Field::Unused if value != 0 => {
                    return err(&format!("unused {name} field is not zero"))
                }
                Field::Pred if value as usize >= NUM_PREDS => {
                    return err(&format!("predicate number in {name} out of range"))
                }
                _ => {}
            }
        }
        match layout.imm {
            ImmUse::Unused if self.imm != 0 => return err("unused imm field is not zero"),
            ImmUse::RegC | ImmUse::PredC if self.imm > 63 => {
                return err("imm holds the register c and must be below 64")
            }
            ImmUse::PredC if self.c() as usize >= NUM_PREDS => {
                return err("selp predicate out of range")
            }
            _ => {}
        }
        Ok(())
    }

    /// General registers this instruction names (read or written), for checking against a
    /// kernel's declared register count.
    pub fn general_registers(&self) -> Vec<u8> {
        let u = FieldUse::of(self.op.format(), self.b_imm);
        let mut r = Vec::new();
        if u.d == Field::Reg {
            r.push(self.d);
        }
        if u.a == Field::Operand && !self.a_sreg {
            r.push(self.a);
        }
        if u.b == Field::Reg {
            r.push(self.b);
        }
        if u.imm == ImmUse::RegC {
            r.push(self.c());
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_fit_seven_bits_and_round_trip() {
        for &op in Op::ALL {
            assert!((op as u8) < 128);
            assert_eq!(Op::from_code(op as u8), Some(op));
        }
        let mut names: Vec<_> = Op::ALL.iter().map(|o| o.mnemonic()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Op::ALL.len(), "mnemonics are unique");
    }

    #[test]
    fn field_positions() {
        let mut i = Instr::new(Op::Add);
        i.guard = Some(Guard {
            pred: 5,
            negate: true,
        });
        i.d = 1;
        i.a = 2;
        i.b_imm = true;
        i.imm = 0xDEAD_BEEF;
        let w = i.encode();
        assert_eq!(w & 0x7F, 2);
        assert_eq!((w >> 8) & 7, 5);
        assert_eq!((w >> 11) & 3, 3);
        assert_eq!((w >> 13) & 63, 1);
        assert_eq!((w >> 19) & 63, 2);
        assert_eq!(w >> 31 & 1, 1);
        assert_eq!(w >> 32, 0xDEAD_BEEF);
        assert_eq!(Instr::decode(w), Ok(i));
    }

    #[test]
    fn decode_rejects_reserved_bits_and_guarded_barriers() {
        let mut i = Instr::new(Op::Exit);
        assert!(Instr::decode(i.encode()).is_ok());
        i.d = 3;
        assert!(Instr::decode(i.encode()).is_err());
        let mut b = Instr::new(Op::BarSync);
        b.guard = Some(Guard {
            pred: 0,
            negate: false,
        });
        assert!(Instr::decode(b.encode()).is_err());
        // Guard bits without the guard flag.
        assert!(Instr::decode(Op::Nop as u64 | 1 << 9).is_err());
        // An unknown opcode.
        assert!(Instr::decode(127).is_err());
        // Alu3 with c out of range.
        let mut m = Instr::new(Op::MadLo);
        m.imm = 64;
        assert!(Instr::decode(m.encode()).is_err());
    }

    #[test]
    fn random_words_decode_to_themselves_or_fail() {
        // A simple LCG so the contract crate needs no generator.
        let mut x: u64 = 0x1234_5678_9abc_def0;
        let mut ok = 0;
        for _ in 0..200_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Clear some high bits often so that valid words appear.
            let w = match x % 4 {
                0 => x,
                1 => x & 0x0000_0000_FFFF_FFFF,
                2 => x & 0x0000_003F_01FF_FFFF,
                _ => x & 0x0000_0000_01FF_F07F,
            };
            if let Ok(i) = Instr::decode(w) {
                assert_eq!(i.encode(), w);
                ok += 1;
            }
        }
        assert!(ok > 1000, "only {ok} valid words");
    }
}
