//! Random SM programs: seeded, legal kernels with divergent branches, loops with per-thread
//! trip counts, guarded instructions, block barriers, shared and global memory, atomics and
//! `%clock` reads, run through the same per-instruction lockstep as the suite kernels (the
//! way Nyuzi and Ibex run random instruction streams against their reference).
//!
//! Legal by construction:
//! - every address is in bounds: global loads index `in` with a masked register, stores go
//!   to the thread's own slots of `out`, atomics to the words of `acc`, shared accesses are
//!   masked into the block's shared memory;
//! - `bar.sync` stands only at the top level (never inside a branch or a loop), so every
//!   live thread reaches the same barriers, and no thread exits before the last barrier;
//! - loops count a register down from a value below 8, so every program terminates.
//!
//! Races are allowed: the RTL decides the order, and the interpreter follows it.

use crate::isa::launch::Launch;
use crate::isa::{assemble, AsmOptions, Program};
use crate::rng::Rng;

/// What a generated program may use.
#[derive(Clone, Copy, Debug)]
pub struct RandomOptions {
    /// Top-level statements (each a few instructions).
    pub statements: usize,
    /// FP32 arithmetic and compares.
    pub fp: bool,
    /// Threads per block (1..=1024) and blocks.
    pub block: u32,
    pub grid: u32,
}

impl Default for RandomOptions {
    fn default() -> Self {
        RandomOptions {
            statements: 16,
            fp: true,
            block: 64,
            grid: 2,
        }
    }
}

/// Registers: %r0 = global thread id, %r1 = &out[gtid * OUT_PER_THREAD], %r2 = tid.x,
/// %r3 and %r5 = scratch (addresses, conditions), %r4 = loop counter (only loops write it,
/// with values below 8, so every loop ends); %r6.. hold data.
const FIRST_DATA: u32 = 6;
const REGS: u32 = 15;
const OUT_PER_THREAD: u32 = REGS - FIRST_DATA;
const IN_WORDS: u32 = 256;
const ACC_WORDS: u32 = 16;
const SHARED_WORDS: u32 = 128;

struct Gen<'a> {
    rng: &'a mut Rng,
    opts: RandomOptions,
    out: Vec<String>,
    labels: usize,
}

impl Gen<'_> {
    fn data_reg(&mut self) -> u32 {
        FIRST_DATA + self.rng.below((REGS - FIRST_DATA) as u64) as u32
    }

    fn pred(&mut self) -> u32 {
        self.rng.below(8) as u32
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("L{}", self.labels)
    }

    fn emit(&mut self, s: String) {
        self.out.push(format!("        {s}"));
    }

    fn guard(&mut self) -> String {
        if self.rng.chance(1, 5) {
            let p = self.pred();
            let neg = if self.rng.chance(1, 2) { "!" } else { "" };
            format!("@{neg}%p{p} ")
        } else {
            String::new()
        }
    }

    fn operand_b(&mut self) -> String {
        if self.rng.chance(1, 3) {
            let v = match self.rng.below(4) {
                0 => self.rng.below(32),
                1 => self.rng.next_u64() & 0xffff_ffff,
                2 => 0x8000_0000,
                _ => 1,
            };
            format!("{v}")
        } else {
            format!("%r{}", self.data_reg())
        }
    }

    /// One data-flow instruction (ALU, FP, setp, predicate logic, special register).
    fn alu(&mut self) {
        let g = self.guard();
        let (d, a) = (self.data_reg(), self.data_reg());
        let b = self.operand_b();
        const INT2: &[&str] = &[
            "add.s32",
            "sub.s32",
            "mul.lo.s32",
            "mul.hi.s32",
            "mul.hi.u32",
            "min.s32",
            "min.u32",
            "max.s32",
            "max.u32",
            "and.b32",
            "or.b32",
            "xor.b32",
            "shl.b32",
            "shr.u32",
            "shr.s32",
        ];
        const INT1: &[&str] = &["abs.s32", "neg.s32", "not.b32", "popc.b32", "clz.b32"];
        const FP2: &[&str] = &["add.f32", "sub.f32", "mul.f32", "min.f32", "max.f32"];
        const FP1: &[&str] = &[
            "abs.f32",
            "neg.f32",
            "cvt.rn.f32.s32",
            "cvt.rn.f32.u32",
            "cvt.rzi.s32.f32",
            "cvt.rni.s32.f32",
            "cvt.rzi.u32.f32",
        ];
        const CMP: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge"];
        let choices = if self.opts.fp { 11 } else { 8 };
        match self.rng.below(choices) {
            0..=2 => {
                let op = INT2[self.rng.below(INT2.len() as u64) as usize];
                self.emit(format!("{g}{op} %r{d}, %r{a}, {b}"));
            }
            3 => {
                let op = INT1[self.rng.below(INT1.len() as u64) as usize];
                self.emit(format!("{g}{op} %r{d}, %r{a}"));
            }
            4 => {
                let (b, c) = (self.data_reg(), self.data_reg());
                self.emit(format!("{g}mad.lo.s32 %r{d}, %r{a}, %r{b}, %r{c}"));
            }
            5 => {
                let p = self.pred();
                let cmp = CMP[self.rng.below(6) as usize];
                let ty = if self.rng.chance(1, 2) { "s32" } else { "u32" };
                let ty = if (cmp == "eq" || cmp == "ne") && ty == "u32" {
                    "s32"
                } else {
                    ty
                };
                self.emit(format!("{g}setp.{cmp}.{ty} %p{p}, %r{a}, {b}"));
            }
            6 => {
                let (p, q, r) = (self.pred(), self.pred(), self.pred());
                let op = ["and.pred", "or.pred", "xor.pred"][self.rng.below(3) as usize];
                if self.rng.chance(1, 3) {
                    let op1 = ["not.pred", "mov.pred"][self.rng.below(2) as usize];
                    self.emit(format!("{g}{op1} %p{p}, %p{q}"));
                } else {
                    self.emit(format!("{g}{op} %p{p}, %p{q}, %p{r}"));
                }
                let (b2, p2) = (self.data_reg(), self.pred());
                self.emit(format!("selp.b32 %r{d}, %r{a}, %r{b2}, %p{p2}"));
            }
            7 => {
                let s = [
                    "%tid.x",
                    "%ntid.x",
                    "%ctaid.x",
                    "%nctaid.x",
                    "%laneid",
                    "%warpid",
                    "%smid",
                    "%clock",
                ][self.rng.below(8) as usize];
                self.emit(format!("{g}mov.u32 %r{d}, {s}"));
            }
            8 => {
                let op = FP2[self.rng.below(FP2.len() as u64) as usize];
                let x = self.data_reg();
                self.emit(format!("{g}{op} %r{d}, %r{a}, %r{}", x));
            }
            9 => {
                if self.rng.chance(1, 2) {
                    let op = FP1[self.rng.below(FP1.len() as u64) as usize];
                    self.emit(format!("{g}{op} %r{d}, %r{a}"));
                } else {
                    let (b, c) = (self.data_reg(), self.data_reg());
                    self.emit(format!("{g}fma.rn.f32 %r{d}, %r{a}, %r{b}, %r{c}"));
                }
            }
            _ => {
                let p = self.pred();
                let cmp = CMP[self.rng.below(6) as usize];
                let x = self.data_reg();
                self.emit(format!("{g}setp.{cmp}.f32 %p{p}, %r{a}, %r{}", x));
            }
        }
    }

    /// A memory instruction with an in-bounds address.
    fn memory(&mut self) {
        let (d, a) = (self.data_reg(), self.data_reg());
        let g = self.guard();
        match self.rng.below(6) {
            0 => {
                // in[a & (IN_WORDS-1)]
                self.emit(format!("and.b32 %r3, %r{a}, {}", IN_WORDS - 1));
                self.emit("shl.b32 %r3, %r3, 2".into());
                self.emit("ld.param.u32 %r5, [in]".into());
                self.emit("add.s32 %r3, %r3, %r5".into());
                self.emit(format!("{g}ld.global.u32 %r{d}, [%r3]"));
            }
            1 => {
                let slot = self.rng.below(OUT_PER_THREAD as u64) * 4;
                self.emit(format!("{g}st.global.u32 [%r1+{slot}], %r{a}"));
            }
            2 => {
                self.emit(format!("and.b32 %r3, %r{a}, {}", SHARED_WORDS - 1));
                self.emit("shl.b32 %r3, %r3, 2".into());
                if self.rng.chance(1, 2) {
                    let x = self.data_reg();
                    self.emit(format!("{g}st.shared.u32 [%r3], %r{}", x));
                } else {
                    self.emit(format!("{g}ld.shared.u32 %r{d}, [%r3]"));
                }
            }
            3 => {
                // Own shared word: tid-indexed.
                self.emit(format!("and.b32 %r3, %r2, {}", SHARED_WORDS - 1));
                self.emit("shl.b32 %r3, %r3, 2".into());
                self.emit(format!("{g}st.shared.u32 [%r3+0], %r{a}"));
            }
            4 => {
                let op = ["add.u32", "max.s32", "max.u32", "exch.b32"][self.rng.below(4) as usize];
                self.emit(format!("and.b32 %r3, %r{a}, {}", ACC_WORDS - 1));
                self.emit("shl.b32 %r3, %r3, 2".into());
                if self.rng.chance(1, 2) {
                    self.emit("ld.param.u32 %r5, [acc]".into());
                    self.emit("add.s32 %r3, %r3, %r5".into());
                    let x = self.data_reg();
                    self.emit(format!("{g}atom.global.{op} %r{d}, [%r3], %r{}", x));
                } else {
                    let x = self.data_reg();
                    self.emit(format!("{g}atom.shared.{op} %r{d}, [%r3], %r{}", x));
                }
            }
            _ => {
                let (b, c) = (self.data_reg(), self.data_reg());
                self.emit(format!("and.b32 %r3, %r{a}, {}", ACC_WORDS - 1));
                self.emit("shl.b32 %r3, %r3, 2".into());
                if self.rng.chance(1, 2) {
                    self.emit("ld.param.u32 %r5, [acc]".into());
                    self.emit("add.s32 %r3, %r3, %r5".into());
                    self.emit(format!("{g}atom.global.cas.b32 %r{d}, [%r3], %r{b}, %r{c}"));
                } else {
                    self.emit(format!("{g}atom.shared.cas.b32 %r{d}, [%r3], %r{b}, %r{c}"));
                }
            }
        }
    }

    /// Straight-line filler: ALU and memory instructions.
    fn straight(&mut self, n: usize) {
        for _ in 0..n {
            if self.rng.chance(1, 4) {
                self.memory();
            } else {
                self.alu();
            }
        }
    }

    /// A statement inside divergent code: no barriers.
    fn inner(&mut self, depth: usize) {
        match self.rng.below(if depth < 2 { 4 } else { 2 }) {
            0 | 1 => {
                let n = 1 + self.rng.below(3) as usize;
                self.straight(n)
            }
            2 => self.branch(depth + 1),
            _ => self.lp(depth + 1),
        }
    }

    /// if / if-else on a thread-dependent predicate.
    fn branch(&mut self, depth: usize) {
        let (els, end) = (self.label(), self.label());
        let p = self.pred();
        let a = self.data_reg();
        // Lane-dependent condition so warps diverge.
        let bit = self.rng.below(5);
        self.emit(format!("shr.u32 %r3, %r2, {bit}"));
        self.emit(format!("xor.b32 %r3, %r3, %r{a}"));
        self.emit("and.b32 %r3, %r3, 1".into());
        self.emit(format!("setp.eq.u32 %p{p}, %r3, 0"));
        self.emit(format!("@%p{p} bra {els}"));
        self.inner(depth);
        let two_sided = self.rng.chance(1, 2);
        if two_sided {
            self.emit(format!("bra {end}"));
        }
        self.out.push(format!("{els}:"));
        if two_sided {
            self.inner(depth);
            self.out.push(format!("{end}:"));
        }
        self.emit("nop".into());
    }

    /// A loop whose trip count (0..7) depends on the thread.
    fn lp(&mut self, depth: usize) {
        let (top, end) = (self.label(), self.label());
        let p = self.pred();
        let a = self.data_reg();
        self.emit(format!("xor.b32 %r4, %r2, %r{a}"));
        self.emit("and.b32 %r4, %r4, 7".into());
        self.out.push(format!("{top}:"));
        // Signed <= 0: a nested loop leaves the shared counter at 0, and the outer loop's
        // decrement then ends it at -1.
        self.emit(format!("setp.le.s32 %p{p}, %r4, 0"));
        self.emit(format!("@%p{p} bra {end}"));
        // The body must not clobber the counter: only data registers and %r3.
        let n = 1 + self.rng.below(3) as usize;
        for _ in 0..n {
            self.alu();
        }
        if depth < 2 && self.rng.chance(1, 3) {
            self.branch(depth + 1);
        }
        self.emit("sub.s32 %r4, %r4, 1".into());
        self.emit(format!("bra {top}"));
        self.out.push(format!("{end}:"));
        self.emit("nop".into());
    }
}

/// A random program and its launch (buffers `in`, `out`, `acc`).
pub fn random_program(seed: u64, opts: RandomOptions) -> (Program, Launch) {
    let mut rng = Rng::new(seed);
    let mut g = Gen {
        rng: &mut rng,
        opts,
        out: Vec::new(),
        labels: 0,
    };
    g.out.push(".kernel random".into());
    g.out.push(format!(".regs {REGS}"));
    g.out.push(format!(".shared {}", SHARED_WORDS * 4));
    g.out.push(".param in, out, acc".into());
    g.emit("mov.u32 %r2, %tid.x".into());
    g.emit("mov.u32 %r3, %ntid.x".into());
    g.emit("mad.lo.s32 %r0, %ctaid.x, %r3, %r2".into());
    g.emit(format!("mul.lo.s32 %r1, %r0, {}", 4 * OUT_PER_THREAD));
    g.emit("ld.param.u32 %r3, [out]".into());
    g.emit("add.s32 %r1, %r1, %r3".into());
    for r in FIRST_DATA..REGS {
        // Data registers start from thread-dependent values.
        let k = g.rng.next_u64() as u32;
        g.emit(format!("xor.b32 %r{r}, %r0, {k}"));
    }
    for _ in 0..opts.statements {
        match g.rng.below(10) {
            0..=3 => {
                let n = 1 + g.rng.below(4) as usize;
                g.straight(n)
            }
            4..=5 => g.branch(0),
            6..=7 => g.lp(0),
            _ => g.emit("bar.sync 0".into()),
        }
    }
    // Epilogue: every data register to the thread's own slots; some threads exit early
    // through a partially guarded exit.
    let p = g.pred();
    let bit = g.rng.below(4);
    g.emit(format!("shr.u32 %r3, %r2, {bit}"));
    g.emit("and.b32 %r3, %r3, 1".into());
    g.emit(format!("setp.eq.u32 %p{p}, %r3, 1"));
    for (i, r) in (FIRST_DATA..REGS).enumerate() {
        if i == 4 {
            g.emit(format!("@%p{p} exit"));
        }
        g.emit(format!("st.global.u32 [%r1+{}], %r{r}", 4 * i));
    }
    g.emit("exit".into());
    let src = g.out.join("\n") + "\n";
    let program = assemble(&src, "random.s", &AsmOptions::default())
        .unwrap_or_else(|e| panic!("generated program does not assemble: {e}\n{src}"));
    let threads = opts.block * opts.grid;
    let input: Vec<u32> = (0..IN_WORDS).map(|_| rng.next_u64() as u32).collect();
    let launch = Launch::new([opts.grid, 1, 1], [opts.block, 1, 1])
        .buffer("in", input)
        .buffer("out", vec![0; (threads * OUT_PER_THREAD) as usize])
        .buffer("acc", vec![0; ACC_WORDS as usize]);
    (program, launch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::warp::{run_warps, WarpOptions};
    use crate::isa::Machine;

    #[test]
    fn programs_are_legal_and_terminate_in_thread_and_warp_mode() {
        // Results may differ between the modes (races on shared memory and acc, %clock):
        // the lockstep follows the RTL's order, so only legality and termination matter.
        for seed in 0..300 {
            let (p, l) = random_program(seed, RandomOptions::default());
            let mut a = Machine::new(&p, &l).unwrap();
            let s = a.run().unwrap_or_else(|f| panic!("seed {seed}: {f}"));
            assert_eq!(s.threads, 128, "seed {seed}");
            let mut b = Machine::new(&p, &l).unwrap();
            run_warps(&mut b, &WarpOptions::new(8)).unwrap_or_else(|f| panic!("seed {seed}: {f}"));
            run_warps(&mut Machine::new(&p, &l).unwrap(), &WarpOptions::new(32))
                .unwrap_or_else(|f| panic!("seed {seed}: {f}"));
        }
    }

    #[test]
    fn the_seed_fixes_the_program_and_programs_differ_between_seeds() {
        let o = RandomOptions::default();
        assert_eq!(random_program(5, o).0, random_program(5, o).0);
        assert_ne!(random_program(5, o).0, random_program(6, o).0);
        let text: String = (0..40)
            .map(|s| crate::isa::disassemble(&random_program(s, o).0))
            .collect();
        for needle in [
            "bra",
            "@%p",
            "exit",
            "bar.sync",
            "ld.global",
            "st.global",
            "ld.shared",
            "st.shared",
            "atom.global",
            "atom.shared",
            "cas",
            "fma.rn",
            "setp.lt.f32",
            "%clock",
            "selp",
            "mad.lo",
            "cvt.rni",
        ] {
            assert!(text.contains(needle), "{needle} never generated");
        }
    }
}
