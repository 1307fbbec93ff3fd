//! `sm`: the baseline streaming multiprocessor — an in-order SIMT pipeline executing the
//! project's ISA (docs/isa.md), spec/crown.md §2.1–§2.6.
//!
//! This module is the contract between the SM RTL and the harness that runs kernels on it
//! (program load, launch, the global-memory port, the retirement record). Like every contract
//! it says *what* crosses the boundary, never how the pipeline works.
//!
//! Cycle convention as everywhere: inputs are applied with the clock low, outputs are read,
//! then the rising edge commits. Every output of this unit is registered (a function of state
//! only), so the harness may read a cycle's outputs and answer in the next cycle's inputs.
//!
//! ## Session of one kernel
//! 1. `reset` high for at least one cycle.
//! 2. Load: `imem_we` writes instruction `imem_wdata` (the 64-bit encoding of
//!    `warpforge_contract::isa`) at PC `imem_addr`; `param_we` writes parameter word
//!    `param_addr` (byte offset / 4 of `ld.param`). Loads may take as many cycles as needed.
//! 3. `start` high for one cycle with the launch inputs (`k_*`) valid; they must stay
//!    constant until `done`. The SM dispatches the grid's CTAs (linear block ids 0, 1, …, x
//!    fastest) into free CTA slots as registers, shared memory, warp slots and CTA slots
//!    allow, runs them, and raises `done` (sticky until the next `start` or reset) when every
//!    CTA has finished. `fault` instead of `done` means the SM stopped on an error it cannot
//!    execute (e.g. a reconvergence-stack overflow); `fault_code` says which.
//!
//! ## Global memory port (valid/ready, in-order responses)
//! A request is accepted in a cycle where `mreq_valid` and `mreq_ready` are both high.
//! Every request gets exactly one response (`mresp_valid` high for one cycle), responses in
//! request order; the SM is always ready for a response. Operations (`mreq_op`):
//! - `MEM_READ`: the 64-byte block at `mreq_addr` (64-byte aligned); the response carries its
//!   16 words in `mresp_data` (word i in bits 32i..32i+31).
//! - `MEM_WRITE`: writes `mreq_wdata` word i to the block's word i for every set bit i of
//!   `mreq_wmask`; the response is an acknowledgement (data ignored).
//! - `MEM_ATOM_*`: one word at `mreq_addr` (4-byte aligned); operand `b` in `mreq_wdata` word 0,
//!   for CAS the swap value `c` in word 1; performed atomically by the memory, which returns
//!   the old word in `mresp_data` word 0.
//!
//! ## Retirement record
//! One record per retired warp-instruction: `ret_valid` high for one cycle with the other
//! `ret_*` outputs. The harness steps the reference interpreter for each lane in `ret_mask`
//! (thread `ret_warp * warp_size + lane` of block `ret_cta`) and compares. Lanes in
//! `ret_mask` but not in `ret_exec` retired the instruction with its guard false. Records
//! come out in retirement order; memory instructions retire in the order they access memory.
//! A partially guarded `exit` is split as in the interpreter's warp mode: its first record
//! names only the lanes whose guard is false (they step past it), the exiting lanes retire
//! it in a later record of their own with every lane executing. (The split reconverges at
//! the virtual exit PC 2^pc_bits − 1, so programs have at most 2^pc_bits − 1 instructions.)
//!
//! Store and atomic records: `ret_st_data` lane i is the word lane i's own write left in
//! memory (a store's data — where lanes of one coalesced store write the same word, memory
//! ends with the highest lane's —, an atomic's new word), as the interpreter reports stepping
//! that thread. `ret_rd_we`/`ret_pd_we` say what the instruction writes, also in a record
//! whose `ret_exec` is empty.

use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "sm";

pub const POLICIES: &[&str] = &["lrr", "gto", "mto", "motrr", "motrr-recency", "bar-gto"];

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::int("warps", 2, 64, 32, "warp slots (hardware warps resident at once)"),
    ParamSpec::int("warp_size", 2, 64, 32, "threads per warp (a power of two)"),
    ParamSpec::int(
        "simd_width",
        1,
        64,
        8,
        "SIMD lanes (a power of two, at most warp_size); a warp takes warp_size / simd_width cycles per stage",
    ),
    ParamSpec::int("schedulers", 1, 2, 1, "warp schedulers (slots are split between them by slot parity)"),
    ParamSpec::choice("policy", POLICIES, "gto", "warp-sched issue policy"),
    ParamSpec::int(
        "rf_kb",
        1,
        256,
        64,
        "register file capacity in KiB (32-bit registers); a CTA needs warps x warp_size x .regs of them",
    ),
    ParamSpec::int(
        "rf_banks",
        1,
        4,
        4,
        "register-file banks (1, 2 or 4): warp-register r lives in bank r mod rf_banks, so operands in different banks are read in the same cycle",
    ),
    ParamSpec::int("shared_kb", 0, 64, 16, "shared memory in KiB, split between resident CTAs"),
    ParamSpec::int("cta_slots", 1, 16, 8, "CTAs resident at once at most"),
    ParamSpec::int("pc_bits", 4, 16, 12, "PC width: programs of up to 2^pc_bits instructions"),
    ParamSpec::int("stack_depth", 2, 64, 16, "entries of each warp's reconvergence stack"),
    ParamSpec::int(
        "alu_stages",
        1,
        4,
        1,
        "pipeline depth of the execute stage's lanes (sm-alu `stages`): cycles from a lane group's issue to its result",
    ),
    ParamSpec::int(
        "mem_latency",
        1,
        10_000,
        100,
        "harness: cycles from an accepted global request to its response (not part of the RTL)",
    ),
    ParamSpec::int(
        "mem_stall_pct",
        0,
        90,
        0,
        "harness: per-cycle probability (percent) that the memory port refuses a request (not part of the RTL)",
    ),
];

/// `mreq_op` values.
pub const MEM_READ: u64 = 0;
pub const MEM_WRITE: u64 = 1;
pub const MEM_ATOM_ADD: u64 = 2;
pub const MEM_ATOM_MAX_S: u64 = 3;
pub const MEM_ATOM_MAX_U: u64 = 4;
pub const MEM_ATOM_EXCH: u64 = 5;
pub const MEM_ATOM_CAS: u64 = 6;

/// Bytes of a memory block (a coalesced request).
pub const BLOCK_BYTES: usize = 64;
/// Words of a memory block.
pub const BLOCK_WORDS: usize = 16;
/// Parameter words `ld.param` can address.
pub const PARAM_WORDS: usize = 16;
/// Width of a linear block (CTA) id in the retirement record.
pub const CTA_ID_BITS: usize = 32;
/// Widths of the launch inputs.
pub const GRID_DIM_BITS: usize = 16;
pub const BLOCK_DIM_BITS: usize = 11;
/// `fault_code` values.
pub const FAULT_NONE: u64 = 0;
pub const FAULT_STACK_OVERFLOW: u64 = 1;
pub const FAULT_PC_RANGE: u64 = 2;
pub const FAULT_BAD_INSTRUCTION: u64 = 3;
/// A warp reached `bar.sync` with some of its live lanes parked on its reconvergence stack
/// (docs/isa.md: a divergent barrier, which could never complete).
pub const FAULT_DIVERGENT_BARRIER: u64 = 4;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmConfig {
    pub warps: usize,
    pub warp_size: usize,
    pub simd_width: usize,
    pub schedulers: usize,
    pub policy: &'static str,
    pub rf_kb: usize,
    /// Register-file banks (1, 2 or 4), each its own RAM: operand read reads one row per
    /// bank per cycle.
    pub rf_banks: usize,
    pub shared_kb: usize,
    pub cta_slots: usize,
    pub pc_bits: usize,
    pub stack_depth: usize,
    /// Pipeline depth of the execute stage's `sm-alu` lanes.
    pub alu_stages: usize,
    pub mem_latency: usize,
    pub mem_stall_pct: usize,
}

fn pow2(p: &Params, name: &str) -> Result<usize, ParamError> {
    let v = p.usize(name);
    if v.is_power_of_two() {
        Ok(v)
    } else {
        Err(ParamError(format!(
            "sm: parameter `{name}` = {v}: must be a power of two"
        )))
    }
}

impl SmConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let warp_size = pow2(p, "warp_size")?;
        let simd_width = pow2(p, "simd_width")?;
        if simd_width > warp_size {
            return Err(ParamError(format!(
                "sm: parameter `simd_width` = {simd_width}: must be at most warp_size ({warp_size})"
            )));
        }
        let cfg = SmConfig {
            warps: p.usize("warps"),
            warp_size,
            simd_width,
            schedulers: p.usize("schedulers"),
            policy: p.str("policy"),
            rf_kb: p.usize("rf_kb"),
            rf_banks: p.usize("rf_banks"),
            shared_kb: p.usize("shared_kb"),
            cta_slots: p.usize("cta_slots"),
            pc_bits: p.usize("pc_bits"),
            stack_depth: p.usize("stack_depth"),
            alu_stages: p.usize("alu_stages"),
            mem_latency: p.usize("mem_latency"),
            mem_stall_pct: p.usize("mem_stall_pct"),
        };
        if !cfg.rf_banks.is_power_of_two() {
            return Err(ParamError(format!(
                "sm: parameter `rf_banks` = {}: must be 1, 2 or 4",
                cfg.rf_banks
            )));
        }
        if cfg.rf_words() < cfg.warp_size {
            return Err(ParamError(format!(
                "sm: parameter `rf_kb` = {}: the register file must hold at least one register per thread of a warp ({} words)",
                cfg.rf_kb, cfg.warp_size
            )));
        }
        Ok(cfg)
    }

    /// Cycles a warp-instruction spends in a SIMD stage (warp_size / simd_width).
    pub fn groups(&self) -> usize {
        self.warp_size / self.simd_width
    }

    /// 32-bit registers in the register file.
    pub fn rf_words(&self) -> usize {
        self.rf_kb * 256
    }

    /// 32-bit words of shared memory.
    pub fn shared_words(&self) -> usize {
        self.shared_kb * 256
    }

    /// Threads resident at once at most.
    pub fn max_threads(&self) -> usize {
        self.warps * self.warp_size
    }

    pub fn slot_bits(&self) -> usize {
        crate::index_bits(self.warps)
    }

    pub fn cta_slot_bits(&self) -> usize {
        crate::index_bits(self.cta_slots)
    }

    /// Bits of a warp index within a CTA (a CTA has at most 1024 threads).
    pub fn warp_in_cta_bits(&self) -> usize {
        crate::index_bits(1024 / self.warp_size)
    }

    pub fn shared_addr_bits(&self) -> usize {
        crate::index_bits(self.shared_words().max(2))
    }

    /// The name lists every RTL parameter; `_a<alu_stages>` only when the lanes are deeper
    /// than one stage and `_b<rf_banks>` only with more than one bank (those names predate
    /// the parameters).
    pub fn module_name(&self) -> String {
        let mut alu = match self.alu_stages {
            1 => String::new(),
            n => format!("_a{n}"),
        };
        if self.rf_banks > 1 {
            alu += &format!("_b{}", self.rf_banks);
        }
        format!(
            "sm_w{}_t{}_l{}_s{}_{}_r{}_sh{}_c{}_p{}_d{}{alu}",
            self.warps,
            self.warp_size,
            self.simd_width,
            self.schedulers,
            self.policy.replace('-', "_"),
            self.rf_kb,
            self.shared_kb,
            self.cta_slots,
            self.pc_bits,
            self.stack_depth
        )
    }

    /// Whether a kernel fits this SM at all (one CTA resident); `Err` names the limit.
    pub fn check_kernel(
        &self,
        regs: usize,
        shared_bytes: usize,
        threads_per_block: usize,
        params: usize,
        instructions: usize,
    ) -> Result<(), String> {
        let warps_per_cta = threads_per_block.div_ceil(self.warp_size);
        if warps_per_cta > self.warps {
            return Err(format!(
                "a block of {threads_per_block} threads needs {warps_per_cta} warps of {}; the SM has {} warp slots (warps = {})",
                self.warp_size, self.warps, self.warps
            ));
        }
        let rf_need = warps_per_cta * self.warp_size * regs;
        if rf_need > self.rf_words() {
            return Err(format!(
                "a block needs {rf_need} registers ({warps_per_cta} warps x {} threads x {regs} .regs); the register file holds {} (rf_kb = {})",
                self.warp_size,
                self.rf_words(),
                self.rf_kb
            ));
        }
        if shared_bytes > self.shared_kb * 1024 {
            return Err(format!(
                "a block needs {shared_bytes} bytes of shared memory; the SM has {} (shared_kb = {})",
                self.shared_kb * 1024,
                self.shared_kb
            ));
        }
        if params > PARAM_WORDS {
            return Err(format!(
                "the kernel has {params} parameters; the SM's parameter memory holds {PARAM_WORDS}"
            ));
        }
        // PC 2^pc_bits - 1 is the virtual exit (the reconvergence PC of a partially guarded
        // exit's split), so it never holds an instruction.
        if instructions >= 1 << self.pc_bits {
            return Err(format!(
                "the program has {instructions} instructions; the SM's instruction memory holds {} (pc_bits = {}; the last PC is the virtual exit)",
                (1usize << self.pc_bits) - 1,
                self.pc_bits
            ));
        }
        Ok(())
    }

    pub fn ports(&self) -> Vec<Port> {
        let (t, p) = (self.warp_size, self.pc_bits);
        vec![
            Port::input(
                "reset",
                1,
                "synchronous reset: no CTA resident, done and fault cleared",
            ),
            // Program and parameter load.
            Port::input("imem_we", 1, "write instruction imem_wdata at PC imem_addr"),
            Port::input("imem_addr", p, "PC of the instruction written"),
            Port::input("imem_wdata", 64, "the instruction's 64-bit encoding"),
            Port::input("param_we", 1, "write parameter word param_addr"),
            Port::input(
                "param_addr",
                crate::index_bits(PARAM_WORDS),
                "parameter word index (ld.param byte offset / 4)",
            ),
            Port::input("param_wdata", 32, "the parameter word"),
            // Launch.
            Port::input(
                "start",
                1,
                "launch the kernel described by k_* (held until done)",
            ),
            Port::input("k_regs", 7, "general registers per thread (.regs, 1..=64)"),
            Port::input(
                "k_shared_words",
                15,
                "shared memory words per CTA (.shared / 4)",
            ),
            Port::input("k_grid_x", GRID_DIM_BITS, "grid size in x (blocks)"),
            Port::input("k_grid_y", GRID_DIM_BITS, "grid size in y"),
            Port::input("k_grid_z", GRID_DIM_BITS, "grid size in z"),
            Port::input("k_block_x", BLOCK_DIM_BITS, "block size in x (threads)"),
            Port::input("k_block_y", BLOCK_DIM_BITS, "block size in y"),
            Port::input("k_block_z", BLOCK_DIM_BITS, "block size in z"),
            // Global memory.
            Port::input("mreq_ready", 1, "the memory accepts a request this cycle"),
            Port::input("mresp_valid", 1, "a response arrives (in request order)"),
            Port::input(
                "mresp_data",
                32 * BLOCK_WORDS,
                "response data: a block's 16 words, or an atomic's old word in word 0",
            ),
            Port::output("mreq_valid", 1, false, "a request is presented"),
            Port::output("mreq_op", 3, false, "MEM_READ, MEM_WRITE or MEM_ATOM_*"),
            Port::output(
                "mreq_addr",
                32,
                false,
                "byte address: 64-byte aligned block for read/write, word for atomics",
            ),
            Port::output(
                "mreq_wdata",
                32 * BLOCK_WORDS,
                false,
                "write data (word i of the block), or atomic operands b (word 0) and c (word 1)",
            ),
            Port::output(
                "mreq_wmask",
                BLOCK_WORDS,
                false,
                "words of the block a write writes",
            ),
            // Status.
            Port::output("busy", 1, false, "a kernel is running"),
            Port::output(
                "done",
                1,
                false,
                "every CTA of the kernel has finished (sticky until start or reset)",
            ),
            Port::output(
                "fault",
                1,
                false,
                "the SM stopped on an error (sticky until reset)",
            ),
            Port::output("fault_code", 3, false, "FAULT_* code"),
            // Retirement record.
            Port::output("ret_valid", 1, false, "a warp-instruction retires"),
            Port::output(
                "ret_cta",
                CTA_ID_BITS,
                false,
                "its block's linear id in the grid",
            ),
            Port::output(
                "ret_warp",
                self.warp_in_cta_bits(),
                false,
                "its warp's index within the block",
            ),
            Port::output("ret_slot", self.slot_bits(), false, "its warp slot"),
            Port::output("ret_pc", p, false, "its PC"),
            Port::output(
                "ret_mask",
                t,
                false,
                "lanes that retire it (the issue mask)",
            ),
            Port::output("ret_exec", t, false, "lanes whose guard passed"),
            Port::output("ret_rd_we", 1, false, "it writes general register ret_rd"),
            Port::output("ret_rd", 6, false, "destination register"),
            Port::output("ret_pd_we", 1, false, "it writes predicate ret_pd"),
            Port::output("ret_pd", 3, false, "destination predicate"),
            Port::output(
                "ret_values",
                32 * t,
                false,
                "per lane: the value written to ret_rd",
            ),
            Port::output(
                "ret_pvalues",
                t,
                false,
                "per lane: the value written to ret_pd",
            ),
            Port::output("ret_st_we", 1, false, "it writes memory (store or atomic)"),
            Port::output(
                "ret_st_shared",
                1,
                false,
                "the memory written is shared memory",
            ),
            Port::output(
                "ret_st_addr",
                32 * t,
                false,
                "per lane: byte address written",
            ),
            Port::output(
                "ret_st_data",
                32 * t,
                false,
                "per lane: the word in memory after the write",
            ),
            Port::output(
                "ret_clock",
                32,
                false,
                "the %clock value the instruction read",
            ),
            // Performance counters (cycles since start unless named otherwise).
            Port::output("cnt_cycles", 32, false, "cycles from start to done"),
            Port::output("cnt_issued", 32, false, "warp-instructions issued"),
            Port::output(
                "cnt_lanes",
                32,
                false,
                "active lane slots issued (sum of ret_exec popcounts)",
            ),
            Port::output(
                "cnt_stall_sb",
                32,
                false,
                "cycles without issue while some warp waited on its in-flight instruction",
            ),
            Port::output(
                "cnt_stall_mem",
                32,
                false,
                "cycles without issue while a warp-instruction was in the memory unit",
            ),
            Port::output(
                "cnt_stall_bar",
                32,
                false,
                "cycles without issue while every live warp waited at a barrier",
            ),
            Port::output(
                "cnt_stall_idle",
                32,
                false,
                "cycles without issue for any other reason (no warp resident or fetched)",
            ),
            Port::output(
                "cnt_overlap",
                32,
                false,
                "cycles with two or more warp-instructions in the back end (decode to writeback)",
            ),
            Port::output(
                "cnt_opr_read",
                32,
                false,
                "cycles operand read spent reading register-file rows (one per phase per lane group)",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        let t = self.warp_size;
        vec![
            Table::new(
                "base_rf",
                self.rf_words() / self.simd_width,
                32 * self.simd_width,
                "register file, one row per (warp-register, lane group), in rf_banks banks of equal depth",
            ),
            Table::new(
                "base_pred",
                self.warps,
                8 * t,
                "predicate registers, one row per warp slot",
            ),
            Table::new("base_shared", self.shared_words(), 32, "shared memory"),
            Table::new("base_imem", 1 << self.pc_bits, 64, "instruction memory"),
            Table::new("base_param", PARAM_WORDS, 32, "kernel parameters"),
            Table::new(
                "base_stack",
                self.warps * self.stack_depth,
                2 * self.pc_bits + t + 1,
                "reconvergence stacks {pc, mask, rpc, rpc_valid}",
            ),
        ]
    }

    pub fn manifest(&self, params: &Params) -> Manifest {
        Manifest {
            unit: NAME.into(),
            module: self.module_name(),
            params: params.clone(),
            ports: self.ports(),
            tables: self.tables(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(sets: &[&str]) -> Result<SmConfig, String> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets).map_err(|e| e.0)?;
        SmConfig::from_params(&p).map_err(|e| e.0)
    }

    #[test]
    fn defaults_are_the_thesis_sm() {
        let c = cfg(&[]).unwrap();
        assert_eq!((c.warps, c.warp_size, c.simd_width), (32, 32, 8));
        assert_eq!(c.rf_words(), 16 * 1024);
        assert_eq!(c.max_threads(), 1024);
        assert_eq!(c.groups(), 4);
    }

    #[test]
    fn alu_stages_are_one_to_four_and_name_the_module() {
        // One RF bank keeps the bank suffix out of the name.
        let c = cfg(&["alu_stages=3", "rf_banks=1"]).unwrap();
        assert_eq!(c.alu_stages, 3);
        assert!(c.module_name().ends_with("_d16_a3"), "{}", c.module_name());
        assert!(cfg(&["rf_banks=1"])
            .unwrap()
            .module_name()
            .ends_with("_d16"));
        for bad in ["alu_stages=0", "alu_stages=5"] {
            assert_eq!(
                cfg(&[bad]).unwrap_err(),
                format!("--set {bad}: alu_stages must be an integer from 1 to 4")
            );
        }
    }

    #[test]
    fn rf_banks_are_one_two_or_four_and_name_the_module() {
        for n in [1, 2, 4] {
            let c = cfg(&[&format!("rf_banks={n}")]).unwrap();
            assert_eq!(c.rf_banks, n);
            assert_eq!(c.module_name().ends_with(&format!("_b{n}")), n > 1);
        }
        assert_eq!(
            cfg(&["rf_banks=3"]).unwrap_err(),
            "sm: parameter `rf_banks` = 3: must be 1, 2 or 4"
        );
        for bad in ["rf_banks=0", "rf_banks=8"] {
            assert_eq!(
                cfg(&[bad]).unwrap_err(),
                format!("--set {bad}: rf_banks must be an integer from 1 to 4")
            );
        }
    }

    #[test]
    fn widths_must_be_powers_of_two_and_simd_within_the_warp() {
        assert!(cfg(&["warp_size=24"]).unwrap_err().contains("warp_size"));
        assert!(cfg(&["simd_width=3"]).unwrap_err().contains("simd_width"));
        assert!(cfg(&["warp_size=8", "simd_width=16"])
            .unwrap_err()
            .contains("at most warp_size"));
    }

    #[test]
    fn kernels_that_do_not_fit_are_refused_naming_the_limit() {
        let c = cfg(&["warps=4", "warp_size=8", "rf_kb=1", "shared_kb=1"]).unwrap();
        assert!(c.check_kernel(8, 0, 32, 1, 10).is_ok());
        assert!(c
            .check_kernel(8, 0, 64, 1, 10)
            .unwrap_err()
            .contains("warp slots"));
        assert!(c
            .check_kernel(16, 0, 32, 1, 10)
            .unwrap_err()
            .contains("rf_kb"));
        assert!(c
            .check_kernel(8, 2048, 32, 1, 10)
            .unwrap_err()
            .contains("shared_kb"));
        assert!(c
            .check_kernel(8, 0, 32, 17, 10)
            .unwrap_err()
            .contains("parameter"));
        assert!(c
            .check_kernel(8, 0, 32, 1, 5000)
            .unwrap_err()
            .contains("pc_bits"));
    }
}
