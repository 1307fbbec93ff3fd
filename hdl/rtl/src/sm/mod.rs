//! RTL of `sm`: the baseline streaming multiprocessor — an in-order SIMT pipeline executing
//! the project's ISA (docs/isa.md; spec/crown.md §2.1–§2.6). Port contract:
//! `warpforge_contract::units::sm`.
//!
//! Stages, one block (one file) each, composed here:
//!
//! | stage | block | what |
//! |---|---|---|
//! | CTA dispatch | [`dispatch::Dispatch`] | CTAs into CTA slots, warps into warp slots, table initialisation |
//! | warp select | [`schedule::Schedule`] | the `warp-sched` block + a 2-entry issue queue |
//! | fetch | [`fetch::Fetch`] | instruction memory → per-warp one-entry instruction buffer |
//! | decode | [`decode::Decode`] | the issued instruction's word, PC and mask: the packet |
//! | operand read | [`operands::Operands`] | register file, predicates, special registers |
//! | execute | [`execute::Execute`] | `simd_width` lanes, one lane group per cycle |
//! | memory | [`memory::Memory`] | coalescing LSU, shared memory, atomics, parameters |
//! | writeback | [`writeback::Writeback`] | RF/predicate writes, stack commit, retirement record, counters |
//! | reconvergence | [`reconv::Reconv`] | one `simt-stack` block per warp slot |
//! | scoreboard | [`scoreboard::Scoreboard`] | per-warp in-flight / instruction-buffer / barrier state |
//!
//! Micro-architecture (choices where the spec leaves them open):
//! - One instruction in flight per warp (crown.md §2.3 [D]): a warp is not eligible until its
//!   instruction has written back; the scoreboard is per warp.
//! - The front end (fetch into per-warp instruction buffers, warp select, issue queue) runs
//!   ahead of the back end. The back end is a pipeline of stages that each hold one
//!   warp-instruction (a packet: word, slot, PC, mask, guard lanes, `%clock` sample) and hand
//!   it on with valid/ready: decode → operand read → execute (ALU formats) | memory (LD/ST
//!   formats) | straight to writeback (control). Writeback takes memory first, then execute,
//!   then control instructions. Up to five warp-instructions (of five different warps) are in
//!   flight; a load waiting for global memory holds only the memory stage, so other warps' ALU
//!   instructions keep flowing past it. Each stage walks the warp's lane groups.
//! - Ordering: each warp's instructions retire in program order (one in flight per warp);
//!   memory instructions retire in the order they used memory (one memory stage, in order);
//!   other instructions of different warps retire in any order — the retirement check steps
//!   each record's threads only, so it needs no more.
//! - Register file ([`regfile::RegFile`]): `rf_banks` RAMs (each one read port for operand
//!   read and one write port with byte enables for writeback and the dispatcher's zeroing),
//!   one row per (warp-register, lane group); warp-register R = the warp's register base + r
//!   lives in bank R mod rf_banks. Per lane group, operand read reads A, B and c in one cycle
//!   where their banks differ and serialises the ones that share a bank (1 to 3 cycles).
//! - Predicates: one RAM row per warp slot (warp_size × 8 bits, a byte per lane); special
//!   registers: `%tid` table, one row per (warp slot, group), written at dispatch.
//! - Shared memory: one RAM, a partition per CTA slot; instruction memory and the
//!   instruction buffers: RAMs; parameters: 16 registers.
//! - Every stage's glue below drives each submodule input exactly once.
//!
//! The stages' bodies are Verilog emitted from Rust (`Verilog::Custom`, as the RAM and
//! `Concat` primitives are) inside rust-hdl blocks; `simt-stack` and `warp-sched` are the
//! project's rust-hdl blocks, instantiated as they are.

pub mod alu;
pub mod decode;
pub mod dispatch;
pub mod execute;
pub mod fetch;
pub mod fpu;
pub mod memory;
pub mod operands;
pub mod reconv;
pub mod regfile;
pub mod schedule;
pub mod scoreboard;
pub mod writeback;

use crate::primitives::{emit_glued, Wire};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::index_bits;
use warpforge_contract::units::sm::SmConfig;
use warpforge_contract::units::warp_sched::{IssuePolicy, WarpSchedConfig};

/// The RAM block the SM's tables use: the project's RAM primitive, simple dual port.
pub(crate) type Ram = crate::ram::Ram;

pub(crate) fn ram(depth: usize, width: usize, byte_write: bool) -> Ram {
    crate::ram::Ram::new(&warpforge_contract::units::ram::RamConfig {
        depth: depth.max(2).next_power_of_two(),
        width,
        ports: 2,
        byte_write,
    })
}

/// Sizes every stage derives from the configuration.
#[derive(Clone, Debug)]
pub struct Dims {
    pub w: usize,
    pub t: usize,
    pub l: usize,
    pub g: usize,
    pub gb: usize,
    pub p: usize,
    pub s: usize,
    pub sb: usize,
    pub c: usize,
    pub cb: usize,
    pub lcb: usize,
    pub wib: usize,
    pub rwc: usize,
    pub rwb: usize,
    pub rf_depth: usize,
    pub rb: usize,
    /// Register-file banks, log2 of them, and log2 of the lane groups (both powers of two).
    pub nb: usize,
    pub lb: usize,
    pub lg: usize,
    /// Rows of one bank (its RAM rounds up to at least 2) and the bits of a bank's row.
    pub brd: usize,
    pub brb: usize,
    pub sh_words: usize,
    pub sh_depth: usize,
    pub shb: usize,
    pub tid_depth: usize,
    pub tb: usize,
    pub depth: usize,
    pub policy: &'static str,
    /// Pipeline depth of the execute stage's lanes.
    pub alu_stages: usize,
}

impl Dims {
    pub fn new(cfg: &SmConfig) -> Dims {
        let g = cfg.groups();
        let rf_depth = (cfg.rf_words() / cfg.simd_width).max(2).next_power_of_two();
        let sh_depth = cfg.shared_words().max(4).next_power_of_two();
        let tid_depth = (cfg.warps * g).max(2).next_power_of_two();
        let rwc = cfg.rf_words() / cfg.warp_size;
        Dims {
            w: cfg.warps,
            t: cfg.warp_size,
            l: cfg.simd_width,
            g,
            gb: index_bits(g),
            p: cfg.pc_bits,
            s: cfg.schedulers,
            sb: index_bits(cfg.warps),
            c: cfg.cta_slots,
            cb: cfg.cta_slot_bits(),
            lcb: index_bits(cfg.warps + 1),
            wib: cfg.warp_in_cta_bits(),
            rwc,
            rwb: index_bits(rwc + 1),
            rf_depth,
            rb: index_bits(rf_depth),
            nb: cfg.rf_banks,
            lb: cfg.rf_banks.trailing_zeros() as usize,
            lg: g.trailing_zeros() as usize,
            brd: rf_depth / cfg.rf_banks,
            brb: index_bits((rf_depth / cfg.rf_banks).max(2)),
            sh_words: cfg.shared_words(),
            sh_depth,
            shb: index_bits(sh_depth),
            tid_depth,
            tb: index_bits(tid_depth),
            depth: cfg.stack_depth,
            policy: cfg.policy,
            alu_stages: cfg.alu_stages,
        }
    }

    /// Width of the warp-instruction packet ([`PK_UNPACK`]).
    pub fn pk(&self) -> usize {
        64 + self.sb + self.p + 2 * self.t + 32
    }

    /// The packet's placeholders for [`tpl`].
    pub fn pk_vars(&self) -> Vec<(&'static str, usize)> {
        let o_pc = 64 + self.sb;
        let o_mask = o_pc + self.p;
        vec![
            ("SB", self.sb),
            ("P", self.p),
            ("T", self.t),
            ("PK", self.pk()),
            ("O_PC", o_pc),
            ("O_MASK", o_mask),
            ("O_EXEC", o_mask + self.t),
            ("O_CLK", o_mask + 2 * self.t),
        ]
    }

    /// The scheduler: the SM's policy and scheduler count, every other knob at its default,
    /// a barrier table with a power-of-two number of CTA slots covering the SM's.
    pub fn sched_cfg(&self) -> WarpSchedConfig {
        let policy = IssuePolicy::from_name(self.policy).expect("policy validated by the contract");
        let mut cfg = WarpSchedConfig::new(self.w, self.s, policy);
        cfg.barrier.ctas = self.c.next_power_of_two().max(2);
        cfg
    }
}

/// The warp-instruction packet every back-end stage holds and hands on: its instruction
/// word, warp slot, PC, issue mask, guard-passing lanes (`exec`, known from operand read on)
/// and the `%clock` sample (also from operand read on).
pub(crate) const PK_UNPACK: &str = r#"
reg [63:0] ir;
reg [#SB#-1:0] u_slot;
reg [#P#-1:0] u_pc;
reg [#T#-1:0] u_mask;
reg [#T#-1:0] u_exec;
reg [31:0] u_clk;
reg [6:0] op;
reg asr;
reg [2:0] gp;
reg gn;
reg gd;
reg [5:0] rd;
reg [5:0] ra;
reg [5:0] rb;
reg bimm;
reg [31:0] imm;
reg f_alu;
reg f_wpd;
reg f_mem;
reg f_wrd;
reg f_bra;
reg f_exit;
reg f_bar;
reg valid_op;

// The classes of an opcode: {valid, bar, exit, bra, wrd, mem, wpd, alu}.
function [7:0] op_class;
    input [6:0] o;
    reg setp;
    reg alu;
    reg wpd;
    reg mem;
    begin
        setp = (o >= 7'd24 && o <= 7'd33) || (o >= 7'd48 && o <= 7'd53);
        alu = (o >= 7'd1 && o <= 7'd38) || (o >= 7'd40 && o <= 7'd58);
        wpd = setp || (o >= 7'd34 && o <= 7'd38);
        mem = (o >= 7'd64 && o <= 7'd68) || (o >= 7'd72 && o <= 7'd76) || (o >= 7'd80 && o <= 7'd84);
        op_class[0] = alu;
        op_class[1] = wpd;
        op_class[2] = mem;
        op_class[3] = (alu && !wpd) || o == 7'd64 || o == 7'd66 || o == 7'd68
            || (o >= 7'd72 && o <= 7'd76) || (o >= 7'd80 && o <= 7'd84);
        op_class[4] = (o == 7'd96);
        op_class[5] = (o == 7'd97);
        op_class[6] = (o == 7'd98);
        op_class[7] = alu || mem || o == 7'd0 || (o >= 7'd96 && o <= 7'd99);
    end
endfunction

always @(*) begin
    ir = pk_q[63:0];
    u_slot = pk_q[64 +: #SB#];
    u_pc = pk_q[#O_PC# +: #P#];
    u_mask = pk_q[#O_MASK# +: #T#];
    u_exec = pk_q[#O_EXEC# +: #T#];
    u_clk = pk_q[#O_CLK# +: 32];
    op = ir[6:0];
    asr = ir[7];
    gp = ir[10:8];
    gn = ir[11];
    gd = ir[12];
    rd = ir[18:13];
    ra = ir[24:19];
    rb = ir[30:25];
    bimm = ir[31];
    imm = ir[63:32];
    {valid_op, f_bar, f_exit, f_bra, f_wrd, f_mem, f_wpd, f_alu} = op_class(op);
end
"#;

/// `#NAME#` placeholders replaced by numbers.
pub(crate) fn tpl(src: &str, vars: &[(&str, usize)]) -> String {
    let mut s = src.to_string();
    for (k, v) in vars {
        s = s.replace(&format!("#{k}#"), &v.to_string());
    }
    if let Some(i) = s.find('#') {
        panic!(
            "unreplaced placeholder near `{}`",
            &s[i..(i + 12).min(s.len())]
        );
    }
    s
}

/// The Verilog for bits `lo .. lo + n` of signal `name` of width `width` (a one-bit signal
/// cannot be bit-selected).
pub(crate) fn bits(name: &str, width: usize, lo: usize, n: usize) -> String {
    if width == n && lo == 0 {
        name.to_string()
    } else if n == 1 {
        format!("{name}[{lo}]")
    } else {
        format!("{name}[{}:{lo}]", lo + n - 1)
    }
}

#[derive(LogicBlock)]
pub struct Sm {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub imem_we: Signal<In, Bit>,
    pub imem_addr: Wire<In>,
    pub imem_wdata: Wire<In>,
    pub param_we: Signal<In, Bit>,
    pub param_addr: Wire<In>,
    pub param_wdata: Wire<In>,
    pub start: Signal<In, Bit>,
    pub k_regs: Wire<In>,
    pub k_shared_words: Wire<In>,
    pub k_grid_x: Wire<In>,
    pub k_grid_y: Wire<In>,
    pub k_grid_z: Wire<In>,
    pub k_block_x: Wire<In>,
    pub k_block_y: Wire<In>,
    pub k_block_z: Wire<In>,
    pub mreq_ready: Signal<In, Bit>,
    pub mresp_valid: Signal<In, Bit>,
    pub mresp_data: Wire<In>,
    pub mreq_valid: Signal<Out, Bit>,
    pub mreq_op: Wire<Out>,
    pub mreq_addr: Wire<Out>,
    pub mreq_wdata: Wire<Out>,
    pub mreq_wmask: Wire<Out>,
    pub busy: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub fault: Signal<Out, Bit>,
    pub fault_code: Wire<Out>,
    pub ret_valid: Signal<Out, Bit>,
    pub ret_cta: Wire<Out>,
    pub ret_warp: Wire<Out>,
    pub ret_slot: Wire<Out>,
    pub ret_pc: Wire<Out>,
    pub ret_mask: Wire<Out>,
    pub ret_exec: Wire<Out>,
    pub ret_rd_we: Signal<Out, Bit>,
    pub ret_rd: Wire<Out>,
    pub ret_pd_we: Signal<Out, Bit>,
    pub ret_pd: Wire<Out>,
    pub ret_values: Wire<Out>,
    pub ret_pvalues: Wire<Out>,
    pub ret_st_we: Signal<Out, Bit>,
    pub ret_st_shared: Signal<Out, Bit>,
    pub ret_st_addr: Wire<Out>,
    pub ret_st_data: Wire<Out>,
    pub ret_clock: Wire<Out>,
    pub cnt_cycles: Wire<Out>,
    pub cnt_issued: Wire<Out>,
    pub cnt_lanes: Wire<Out>,
    pub cnt_stall_sb: Wire<Out>,
    pub cnt_stall_mem: Wire<Out>,
    pub cnt_stall_bar: Wire<Out>,
    pub cnt_stall_idle: Wire<Out>,
    pub cnt_overlap: Wire<Out>,
    pub cnt_opr_read: Wire<Out>,
    disp: dispatch::Dispatch,
    sb: scoreboard::Scoreboard,
    sched: schedule::Schedule,
    fetch: fetch::Fetch,
    dec: decode::Decode,
    opr: operands::Operands,
    exe: execute::Execute,
    lsu: memory::Memory,
    wb: writeback::Writeback,
    reconv: reconv::Reconv,
    rf: regfile::RegFile,
    pred: Ram,
    shmem: Ram,
    tid: Ram,
    _d: Dims,
}

impl Sm {
    pub fn new(cfg: &SmConfig) -> Sm {
        let d = Dims::new(cfg);
        let t = d.t;

        Sm {
            clock: Default::default(),
            reset: Default::default(),
            imem_we: Default::default(),
            imem_addr: Wire::new(d.p),
            imem_wdata: Wire::new(64),
            param_we: Default::default(),
            param_addr: Wire::new(4),
            param_wdata: Wire::new(32),
            start: Default::default(),
            k_regs: Wire::new(7),
            k_shared_words: Wire::new(15),
            k_grid_x: Wire::new(16),
            k_grid_y: Wire::new(16),
            k_grid_z: Wire::new(16),
            k_block_x: Wire::new(11),
            k_block_y: Wire::new(11),
            k_block_z: Wire::new(11),
            mreq_ready: Default::default(),
            mresp_valid: Default::default(),
            mresp_data: Wire::new(512),
            mreq_valid: Default::default(),
            mreq_op: Wire::new(3),
            mreq_addr: Wire::new(32),
            mreq_wdata: Wire::new(512),
            mreq_wmask: Wire::new(16),
            busy: Default::default(),
            done: Default::default(),
            fault: Default::default(),
            fault_code: Wire::new(3),
            ret_valid: Default::default(),
            ret_cta: Wire::new(32),
            ret_warp: Wire::new(d.wib),
            ret_slot: Wire::new(d.sb),
            ret_pc: Wire::new(d.p),
            ret_mask: Wire::new(t),
            ret_exec: Wire::new(t),
            ret_rd_we: Default::default(),
            ret_rd: Wire::new(6),
            ret_pd_we: Default::default(),
            ret_pd: Wire::new(3),
            ret_values: Wire::new(32 * t),
            ret_pvalues: Wire::new(t),
            ret_st_we: Default::default(),
            ret_st_shared: Default::default(),
            ret_st_addr: Wire::new(32 * t),
            ret_st_data: Wire::new(32 * t),
            ret_clock: Wire::new(32),
            cnt_cycles: Wire::new(32),
            cnt_issued: Wire::new(32),
            cnt_lanes: Wire::new(32),
            cnt_stall_sb: Wire::new(32),
            cnt_stall_mem: Wire::new(32),
            cnt_stall_bar: Wire::new(32),
            cnt_stall_idle: Wire::new(32),
            cnt_overlap: Wire::new(32),
            cnt_opr_read: Wire::new(32),
            disp: dispatch::Dispatch::new(&d),
            sb: scoreboard::Scoreboard::new(&d),
            sched: schedule::Schedule::new(&d),
            fetch: fetch::Fetch::new(&d),
            dec: decode::Decode::new(&d),
            opr: operands::Operands::new(&d),
            exe: execute::Execute::new(&d),
            lsu: memory::Memory::new(&d),
            wb: writeback::Writeback::new(&d),
            reconv: reconv::Reconv::new(&d),
            rf: regfile::RegFile::new(&d),
            pred: ram(d.w, d.t * 8, true),
            shmem: ram(d.sh_depth, 32, false),
            tid: ram(d.tid_depth, d.l * 32, false),
            _d: d,
        }
    }
}

include!("glue.rs");

/// Verilog of one `sm` configuration.
pub fn generate(cfg: &SmConfig) -> Design {
    let mut block = Sm::new(cfg);
    emit_glued(&mut block, &cfg.module_name())
}
