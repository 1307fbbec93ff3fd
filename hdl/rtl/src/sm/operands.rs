//! Operand read: the warp's sources from the register file — for each lane group the rows of
//! A, of B unless it is the immediate, and of c for mad.lo / fma / cas — and its predicate row
//! (one read per instruction). The register file has `rf_banks` banks, each with its own
//! read port (warp-register R in bank R mod rf_banks): a group's rows are read in *phases*,
//! one cycle each, every bank serving one row per phase; an operand whose bank an earlier
//! operand of the group already uses waits for the next phase. The phases (1 to 3) depend
//! only on the instruction's registers, so every group takes the same number; reads are
//! pipelined (each row is captured the cycle after it is read). With one bank this is A, B,
//! c in turn, as with one RAM. Operand A may instead be a special register:
//! `%tid` from the dispatcher's table (read beside A's row), the launch dimensions, the CTA's
//! id, `%laneid`, `%warpid` (the warp's index in its CTA), `%smid` = 0 and `%clock` (the SM's
//! cycle counter since `start`, sampled when the instruction enters this stage and carried in
//! the packet to the retirement record). `bimm` substitutes the immediate for B (and for A of `mov d, imm`), so the
//! execute stage sees final operands. `exec` = the issue mask ∧ the guard, per lane.
//! The stage holds one warp-instruction: it takes decode's packet (`start`), reads, then
//! offers the packet (with `exec` and the `%clock` sample filled in) and the whole warp's
//! operands (`o_valid`, routed by `o_alu` / `o_mem`) until execute, memory or (control
//! instructions) writeback takes them (`take`). It may start the next instruction the cycle
//! its operands are taken: each row is captured one cycle after it is read, so the taker has
//! latched them by then.

use super::{tpl, Dims, PK_UNPACK};
use crate::primitives::Wire;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Operands {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub in_pk: Wire<In>,
    pub take: Signal<In, Bit>,
    pub rbase: Wire<In>,
    pub warpid: Wire<In>,
    pub ctaid: Wire<In>,
    pub k_block_x: Wire<In>,
    pub k_block_y: Wire<In>,
    pub k_block_z: Wire<In>,
    pub k_grid_x: Wire<In>,
    pub k_grid_y: Wire<In>,
    pub k_grid_z: Wire<In>,
    pub clock_cnt: Wire<In>,
    pub rf_rdata: Wire<In>,
    pub tid_rdata: Wire<In>,
    pub pred_rdata: Wire<In>,
    pub rf_re: Signal<Out, Bit>,
    pub rf_raddr: Wire<Out>,
    pub tid_re: Signal<Out, Bit>,
    pub tid_raddr: Wire<Out>,
    pub pred_re: Signal<Out, Bit>,
    pub pred_raddr: Wire<Out>,
    pub opa: Wire<Out>,
    pub opb: Wire<Out>,
    pub opc: Wire<Out>,
    pub preds: Wire<Out>,
    pub slot: Wire<Out>,
    pub pk: Wire<Out>,
    pub ready: Signal<Out, Bit>,
    pub o_valid: Signal<Out, Bit>,
    pub o_alu: Signal<Out, Bit>,
    pub o_mem: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    _d: Dims,
}

impl Operands {
    pub fn new(d: &Dims) -> Operands {
        let t32 = d.t * 32;
        Operands {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            in_pk: Wire::new(d.pk()),
            take: Default::default(),
            rbase: Wire::new(d.rwb),
            warpid: Wire::new(d.wib),
            ctaid: Wire::new(48),
            k_block_x: Wire::new(11),
            k_block_y: Wire::new(11),
            k_block_z: Wire::new(11),
            k_grid_x: Wire::new(16),
            k_grid_y: Wire::new(16),
            k_grid_z: Wire::new(16),
            clock_cnt: Wire::new(32),
            rf_rdata: Wire::new(d.nb * d.l * 32),
            tid_rdata: Wire::new(d.l * 32),
            pred_rdata: Wire::new(d.t * 8),
            rf_re: Default::default(),
            rf_raddr: Wire::new(d.nb * d.brb),
            tid_re: Default::default(),
            tid_raddr: Wire::new(d.tb),
            pred_re: Default::default(),
            pred_raddr: Wire::new(d.sb),
            opa: Wire::new(t32),
            opb: Wire::new(t32),
            opc: Wire::new(t32),
            preds: Wire::new(d.t * 8),
            slot: Wire::new(d.sb),
            pk: Wire::new(d.pk()),
            ready: Default::default(),
            o_valid: Default::default(),
            o_alu: Default::default(),
            o_mem: Default::default(),
            busy: Default::default(),
            _d: d.clone(),
        }
    }
}

const BODY: &str = r#"
reg [#PK#-1:0] pk_q;
reg act;
reg [#GB#:0] rg;
reg [1:0] rr;
reg pv;
reg [#GB#:0] pg;
reg [1:0] pr;
reg full;
reg [#T#*8-1:0] preds_q;
reg [#T#*32-1:0] opa_q;
reg [#T#*32-1:0] opb_q;
reg [#T#*32-1:0] opc_q;
reg [#T#-1:0] exec;
reg a_rf;
reg need_b;
reg need_c;
reg [#RB#-1:0] xa;
reg [#RB#-1:0] xb;
reg [#RB#-1:0] xc;
reg [1:0] ka;
reg [1:0] kb;
reg [1:0] kc;
reg [1:0] ph_b;
reg [1:0] ph_c;
reg [1:0] last_rr;
reg [#L#*32-1:0] da;
reg [#L#*32-1:0] db;
reg [#L#*32-1:0] dc;
integer i;
integer k;

always @(*) begin
    // The warp-registers of A, B and c, their banks, and the phase each is read in: A in the
    // first; B in the first unless A's bank is its bank; c after every earlier operand of
    // its bank. c is read only for the formats with a third source register (mad.lo, fma,
    // cas). With one bank, A is always read and B unless it is the immediate (the single-RAM
    // sequence, cycle for cycle); with banks, only the rows the format uses: A unless it is a
    // special register, B only for the formats with a register B.
#NEED#
    need_c = (op == 7'd7 || op == 7'd43 || op == 7'd76 || op == 7'd84);
    xa = rbase + ra;
    xb = rbase + rb;
    xc = rbase + imm[5:0];
    ka = bank_of(xa);
    kb = bank_of(xb);
    kc = bank_of(xc);
    ph_b = (a_rf && kb == ka) ? 2'd1 : 2'd0;
    ph_c = ((a_rf && kc == ka) ? 2'd1 : 2'd0) + ((need_b && kc == kb) ? 2'd1 : 2'd0);
    last_rr = 2'd0;
    if (need_b && ph_b > last_rr) last_rr = ph_b;
    if (need_c && ph_c > last_rr) last_rr = ph_c;
    // Each bank reads the row of the operand of this phase that lives in it (c's when none
    // does: not captured).
    rf_re = act;
    for (k = 0; k < #NB#; k = k + 1) begin
        if (a_rf && ka == k && rr == 2'd0)
            rf_raddr[k*#BRB# +: #BRB#] = (xa >> #LB#) * #G# + rg;
        else if (need_b && kb == k && rr == ph_b)
            rf_raddr[k*#BRB# +: #BRB#] = (xb >> #LB#) * #G# + rg;
        else
            rf_raddr[k*#BRB# +: #BRB#] = (xc >> #LB#) * #G# + rg;
    end
    da = rf_rdata[ka*#L#*32 +: #L#*32];
    db = rf_rdata[kb*#L#*32 +: #L#*32];
    dc = rf_rdata[kc*#L#*32 +: #L#*32];
    tid_re = act && (rr == 2'd0);
    tid_raddr = u_slot * #G# + rg;
    pred_re = start;
    pred_raddr = in_pk[64 +: #SB#];
    opa = opa_q;
    opb = opb_q;
    opc = opc_q;
    preds = preds_q;
    for (i = 0; i < #T#; i = i + 1) begin
        exec[i] = u_mask[i] && (!gd || (preds_q[i*8 + gp] != gn));
    end
    slot = u_slot;
    pk = pk_q;
    pk[#O_EXEC# +: #T#] = exec;
    o_valid = full;
    o_alu = f_alu;
    o_mem = f_mem;
    busy = act || pv || full;
end

// Depends on `take`: a process of its own.
always @(*) begin
    ready = !act && !pv && (!full || take);
end

always @(posedge clock) begin
    if (reset) begin
        pk_q <= 0;
        act <= 1'b0;
        rg <= 0;
        rr <= 2'd0;
        pv <= 1'b0;
        pg <= 0;
        pr <= 2'd0;
        full <= 1'b0;
        preds_q <= 0;
        opa_q <= 0;
        opb_q <= 0;
        opc_q <= 0;
    end else begin
        if (take) full <= 1'b0;
        if (pv && (pg == #G# - 1) && (pr == last_rr)) full <= 1'b1;
        if (start) begin
            pk_q <= in_pk;
            pk_q[#O_CLK# +: 32] <= clock_cnt;
            act <= 1'b1;
            rg <= 0;
            rr <= 2'd0;
        end else if (act) begin
            if (rr == last_rr) begin
                rr <= 2'd0;
                rg <= rg + 1'b1;
                if (rg == #G# - 1) act <= 1'b0;
            end else begin
                rr <= rr + 2'd1;
            end
        end
        if (pv && pr == 2'd0 && pg == 0) preds_q <= pred_rdata;
        pv <= act;
        pg <= rg;
        pr <= rr;
        if (pv) begin
            for (i = 0; i < #L#; i = i + 1) begin
                if (pr == 2'd0) begin
                    opa_q[(pg*#L# + i)*32 +: 32] <= av_of(i);
                    if (bimm) opb_q[(pg*#L# + i)*32 +: 32] <= imm;
                end
                if (need_b && pr == ph_b) opb_q[(pg*#L# + i)*32 +: 32] <= db[i*32 +: 32];
                if (need_c && pr == ph_c) opc_q[(pg*#L# + i)*32 +: 32] <= dc[i*32 +: 32];
            end
        end
    end
end

// Operand A of lane i of the group being captured: a special register, the immediate of
// `mov d, imm`, or the register row.
function [31:0] av_of;
    input integer lane;
    begin
        if (asr) begin
            case (ra[3:0])
            4'd0: av_of = {22'd0, tid_rdata[lane*32 +: 10]};
            4'd1: av_of = {22'd0, tid_rdata[lane*32 + 10 +: 10]};
            4'd2: av_of = {22'd0, tid_rdata[lane*32 + 20 +: 10]};
            4'd3: av_of = {21'd0, k_block_x};
            4'd4: av_of = {21'd0, k_block_y};
            4'd5: av_of = {21'd0, k_block_z};
            4'd6: av_of = {16'd0, ctaid[15:0]};
            4'd7: av_of = {16'd0, ctaid[31:16]};
            4'd8: av_of = {16'd0, ctaid[47:32]};
            4'd9: av_of = {16'd0, k_grid_x};
            4'd10: av_of = {16'd0, k_grid_y};
            4'd11: av_of = {16'd0, k_grid_z};
            4'd12: av_of = pg * #L# + lane;
            4'd13: av_of = warpid;
            4'd14: av_of = 32'd0;
            default: av_of = u_clk;
            endcase
        end else if (op == 7'd1 && bimm) begin
            av_of = imm;
        end else begin
            av_of = da[lane*32 +: 32];
        end
    end
endfunction
"#;

impl Logic for Operands {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.rf_re.connect();
        self.rf_raddr.connect();
        self.tid_re.connect();
        self.tid_raddr.connect();
        self.pred_re.connect();
        self.pred_raddr.connect();
        self.opa.connect();
        self.opb.connect();
        self.opc.connect();
        self.preds.connect();
        self.slot.connect();
        self.pk.connect();
        self.ready.connect();
        self.o_valid.connect();
        self.o_alu.connect();
        self.o_mem.connect();
        self.busy.connect();
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        let mut vars = d.pk_vars();
        vars.extend([
            ("GB", d.gb),
            ("G", d.g),
            ("L", d.l),
            ("RB", d.rb),
            ("NB", d.nb),
            ("LB", d.lb),
            ("BRB", d.brb),
        ]);
        let need = if d.nb == 1 {
            "    a_rf = 1'b1;\n    need_b = !bimm;".to_string()
        } else {
            format!("    a_rf = !asr;\n    need_b = !bimm && ({});", uses_b())
        };
        let body = BODY.replace("#NEED#", &need);
        Verilog::Custom(tpl(&format!("{PK_UNPACK}{body}{}", bank_of(d.nb)), &vars))
    }
}

/// `bank_of(x)`: the bank of warp-register x, its low bits (2 bits wide for every bank count).
fn bank_of(nb: usize) -> String {
    let body = match nb {
        1 => "2'd0".to_string(),
        2 => "{1'b0, x[0]}".to_string(),
        _ => "x[1:0]".to_string(),
    };
    format!(
        "\nfunction [1:0] bank_of;\n    input [#RB#-1:0] x;\n    begin\n        bank_of = {body};\n    end\nendfunction\n"
    )
}

/// The opcodes whose format reads register B (unless `bimm`), as a Verilog condition on `op`.
fn uses_b() -> String {
    use warpforge_contract::isa::{Field, FieldUse, Op};
    let ops: Vec<String> = Op::ALL
        .iter()
        .filter(|o| FieldUse::of(o.format(), false).b == Field::Reg)
        .map(|o| format!("op == 7'd{}", *o as u8))
        .collect();
    ops.join(" || ")
}
