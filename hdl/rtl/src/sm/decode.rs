//! Decode: the instruction register of the back end, its decoded fields, and the sequencing of
//! one warp-instruction through operand read → execute or memory → writeback.
//!
//! The back end holds one warp-instruction at a time (the stages below it each work over the
//! warp's lane groups for several cycles); the front end (fetch, warp select, issue queue)
//! runs ahead of it. States: take the issue-queue head (read its instruction-buffer row) →
//! latch the word with the warp's TOS PC and mask → operands → execute (ALU formats) or
//! memory (LD/ST formats) → writeback (which commits and retires) → next. An unknown opcode
//! stops the SM (`bad`: FAULT_BAD_INSTRUCTION); only the opcode is checked, the other fields
//! are taken as the encoding says.

use super::{tpl, Dims};
use crate::primitives::Wire;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Decode {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub halt: Signal<In, Bit>,
    pub q_valid: Signal<In, Bit>,
    pub q_slot: Wire<In>,
    pub ib_rdata: Wire<In>,
    pub pcs: Wire<In>,
    pub masks: Wire<In>,
    pub opr_done: Signal<In, Bit>,
    pub exe_done: Signal<In, Bit>,
    pub lsu_done: Signal<In, Bit>,
    pub wb_done: Signal<In, Bit>,
    pub pop: Signal<Out, Bit>,
    pub ib_re: Signal<Out, Bit>,
    pub ib_raddr: Wire<Out>,
    pub slot: Wire<Out>,
    pub pc: Wire<Out>,
    pub mask: Wire<Out>,
    pub op: Wire<Out>,
    pub asr: Signal<Out, Bit>,
    pub gd: Signal<Out, Bit>,
    pub gn: Signal<Out, Bit>,
    pub gp: Wire<Out>,
    pub rd: Wire<Out>,
    pub ra: Wire<Out>,
    pub rb: Wire<Out>,
    pub bimm: Signal<Out, Bit>,
    pub imm: Wire<Out>,
    pub f_alu: Signal<Out, Bit>,
    pub f_wrd: Signal<Out, Bit>,
    pub f_wpd: Signal<Out, Bit>,
    pub f_mem: Signal<Out, Bit>,
    pub f_bra: Signal<Out, Bit>,
    pub f_exit: Signal<Out, Bit>,
    pub f_bar: Signal<Out, Bit>,
    pub opr_start: Signal<Out, Bit>,
    pub exe_start: Signal<Out, Bit>,
    pub lsu_start: Signal<Out, Bit>,
    pub wb_start: Signal<Out, Bit>,
    pub bad: Signal<Out, Bit>,
    pub idle: Signal<Out, Bit>,
    _d: Dims,
}

impl Decode {
    pub fn new(d: &Dims) -> Decode {
        Decode {
            clock: Default::default(),
            reset: Default::default(),
            halt: Default::default(),
            q_valid: Default::default(),
            q_slot: Wire::new(d.sb),
            ib_rdata: Wire::new(64),
            pcs: Wire::new(d.w * d.p),
            masks: Wire::new(d.w * d.t),
            opr_done: Default::default(),
            exe_done: Default::default(),
            lsu_done: Default::default(),
            wb_done: Default::default(),
            pop: Default::default(),
            ib_re: Default::default(),
            ib_raddr: Wire::new(d.sb),
            slot: Wire::new(d.sb),
            pc: Wire::new(d.p),
            mask: Wire::new(d.t),
            op: Wire::new(7),
            asr: Default::default(),
            gd: Default::default(),
            gn: Default::default(),
            gp: Wire::new(3),
            rd: Wire::new(6),
            ra: Wire::new(6),
            rb: Wire::new(6),
            bimm: Default::default(),
            imm: Wire::new(32),
            f_alu: Default::default(),
            f_wrd: Default::default(),
            f_wpd: Default::default(),
            f_mem: Default::default(),
            f_bra: Default::default(),
            f_exit: Default::default(),
            f_bar: Default::default(),
            opr_start: Default::default(),
            exe_start: Default::default(),
            lsu_start: Default::default(),
            wb_start: Default::default(),
            bad: Default::default(),
            idle: Default::default(),
            _d: d.clone(),
        }
    }
}

const BODY: &str = r#"
reg [3:0] st;
reg [63:0] ir;
reg [#SB#-1:0] slot_q;
reg [#P#-1:0] pc_q;
reg [#T#-1:0] mask_q;
reg valid_op;
reg is_setp;

always @(*) begin
    slot = slot_q;
    pc = pc_q;
    mask = mask_q;
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
    is_setp = (op >= 7'd24 && op <= 7'd33) || (op >= 7'd48 && op <= 7'd53);
    f_alu = (op >= 7'd1 && op <= 7'd38) || (op >= 7'd40 && op <= 7'd58);
    f_wpd = is_setp || (op >= 7'd34 && op <= 7'd38);
    f_mem = (op >= 7'd64 && op <= 7'd68) || (op >= 7'd72 && op <= 7'd76) || (op >= 7'd80 && op <= 7'd84);
    f_wrd = (f_alu && !f_wpd) || op == 7'd64 || op == 7'd66 || op == 7'd68
        || (op >= 7'd72 && op <= 7'd76) || (op >= 7'd80 && op <= 7'd84);
    f_bra = (op == 7'd96);
    f_exit = (op == 7'd97);
    f_bar = (op == 7'd98);
    valid_op = f_alu || f_mem || op == 7'd0 || (op >= 7'd96 && op <= 7'd99);
    pop = (st == 4'd0) && q_valid && !halt;
    ib_re = pop;
    ib_raddr = q_slot;
    opr_start = (st == 4'd2) && valid_op;
    bad = (st == 4'd2) && !valid_op;
    exe_start = (st == 4'd4);
    lsu_start = (st == 4'd6);
    wb_start = (st == 4'd8);
    idle = (st == 4'd0);
end

always @(posedge clock) begin
    if (reset) begin
        st <= 4'd0;
        ir <= 64'd0;
        slot_q <= #SB#'d0;
        pc_q <= #P#'d0;
        mask_q <= #T#'d0;
    end else if (halt) begin
        st <= 4'd10;
    end else begin
        case (st)
        4'd0: if (q_valid) begin
            slot_q <= q_slot;
            st <= 4'd1;
        end
        4'd1: begin
            ir <= ib_rdata;
            pc_q <= pcs[slot_q*#P# +: #P#];
            mask_q <= masks[slot_q*#T# +: #T#];
            st <= 4'd2;
        end
        4'd2: st <= valid_op ? 4'd3 : 4'd10;
        4'd3: if (opr_done) st <= f_alu ? 4'd4 : (f_mem ? 4'd6 : 4'd8);
        4'd4: st <= 4'd5;
        4'd5: if (exe_done) st <= 4'd8;
        4'd6: st <= 4'd7;
        4'd7: if (lsu_done) st <= 4'd8;
        4'd8: st <= 4'd9;
        4'd9: if (wb_done) st <= 4'd0;
        default: st <= 4'd10;
        endcase
    end
end
"#;

impl Logic for Decode {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.pop.connect();
        self.ib_re.connect();
        self.ib_raddr.connect();
        self.slot.connect();
        self.pc.connect();
        self.mask.connect();
        self.op.connect();
        self.asr.connect();
        self.gd.connect();
        self.gn.connect();
        self.gp.connect();
        self.rd.connect();
        self.ra.connect();
        self.rb.connect();
        self.bimm.connect();
        self.imm.connect();
        self.f_alu.connect();
        self.f_wrd.connect();
        self.f_wpd.connect();
        self.f_mem.connect();
        self.f_bra.connect();
        self.f_exit.connect();
        self.f_bar.connect();
        self.opr_start.connect();
        self.exe_start.connect();
        self.lsu_start.connect();
        self.wb_start.connect();
        self.bad.connect();
        self.idle.connect();
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        Verilog::Custom(tpl(BODY, &[("SB", d.sb), ("P", d.p), ("T", d.t)]))
    }
}
