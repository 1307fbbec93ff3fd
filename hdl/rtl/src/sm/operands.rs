//! Operand read: the warp's sources from the register file, one RAM row (one lane group of
//! one register) per cycle through the single read port — for each group A, B and c in that
//! order (3 × groups reads, pipelined: each row is captured the cycle after it is read) — and
//! its predicate row (one read per instruction). Operand A may instead be a special register:
//! `%tid` from the dispatcher's table (read beside A's row), the launch dimensions, the CTA's
//! id, `%laneid`, `%warpid` (the warp's index in its CTA), `%smid` = 0 and `%clock` (the SM's
//! cycle counter since `start`, sampled when the instruction enters this stage and reported
//! as `clk_read`). `bimm` substitutes the immediate for B (and for A of `mov d, imm`), so the
//! execute stage sees final operands. `exec` = the issue mask ∧ the guard, per lane.
//! Outputs hold the whole warp's operands until the next instruction starts.

use super::{tpl, Dims};
use crate::primitives::Wire;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Operands {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub slot: Wire<In>,
    pub op: Wire<In>,
    pub ra: Wire<In>,
    pub rb: Wire<In>,
    pub imm: Wire<In>,
    pub asr: Signal<In, Bit>,
    pub bimm: Signal<In, Bit>,
    pub gd: Signal<In, Bit>,
    pub gn: Signal<In, Bit>,
    pub gp: Wire<In>,
    pub mask: Wire<In>,
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
    pub exec: Wire<Out>,
    pub clk_read: Wire<Out>,
    pub done: Signal<Out, Bit>,
    _d: Dims,
}

impl Operands {
    pub fn new(d: &Dims) -> Operands {
        let t32 = d.t * 32;
        Operands {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            slot: Wire::new(d.sb),
            op: Wire::new(7),
            ra: Wire::new(6),
            rb: Wire::new(6),
            imm: Wire::new(32),
            asr: Default::default(),
            bimm: Default::default(),
            gd: Default::default(),
            gn: Default::default(),
            gp: Wire::new(3),
            mask: Wire::new(d.t),
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
            rf_rdata: Wire::new(d.l * 32),
            tid_rdata: Wire::new(d.l * 32),
            pred_rdata: Wire::new(d.t * 8),
            rf_re: Default::default(),
            rf_raddr: Wire::new(d.rb),
            tid_re: Default::default(),
            tid_raddr: Wire::new(d.tb),
            pred_re: Default::default(),
            pred_raddr: Wire::new(d.sb),
            opa: Wire::new(t32),
            opb: Wire::new(t32),
            opc: Wire::new(t32),
            preds: Wire::new(d.t * 8),
            exec: Wire::new(d.t),
            clk_read: Wire::new(32),
            done: Default::default(),
            _d: d.clone(),
        }
    }
}

const BODY: &str = r#"
reg act;
reg [#GB#:0] rg;
reg [1:0] rr;
reg pv;
reg [#GB#:0] pg;
reg [1:0] pr;
reg done_q;
reg [31:0] clk_q;
reg [#T#*8-1:0] preds_q;
reg [#T#*32-1:0] opa_q;
reg [#T#*32-1:0] opb_q;
reg [#T#*32-1:0] opc_q;
reg [5:0] rsel;
reg [31:0] sv;
reg [31:0] av;
integer i;

always @(*) begin
    case (rr)
    2'd0: rsel = ra;
    2'd1: rsel = rb;
    default: rsel = imm[5:0];
    endcase
    rf_re = act;
    rf_raddr = (rbase + rsel) * #G# + rg;
    tid_re = act && (rr == 2'd0);
    tid_raddr = slot * #G# + rg;
    pred_re = start;
    pred_raddr = slot;
    opa = opa_q;
    opb = opb_q;
    opc = opc_q;
    preds = preds_q;
    clk_read = clk_q;
    done = done_q;
    for (i = 0; i < #T#; i = i + 1) begin
        exec[i] = mask[i] && (!gd || (preds_q[i*8 + gp] != gn));
    end
end

always @(posedge clock) begin
    if (reset) begin
        act <= 1'b0;
        rg <= 0;
        rr <= 2'd0;
        pv <= 1'b0;
        pg <= 0;
        pr <= 2'd0;
        done_q <= 1'b0;
        clk_q <= 32'd0;
        preds_q <= 0;
        opa_q <= 0;
        opb_q <= 0;
        opc_q <= 0;
    end else begin
        done_q <= pv && (pg == #G# - 1) && (pr == 2'd2);
        if (start) begin
            act <= 1'b1;
            rg <= 0;
            rr <= 2'd0;
            clk_q <= clock_cnt;
        end else if (act) begin
            if (rr == 2'd2) begin
                rr <= 2'd0;
                rg <= rg + 1'b1;
                if (rg == #G# - 1) act <= 1'b0;
            end else begin
                rr <= rr + 1'b1;
            end
        end
        if (pv && pr == 2'd0 && pg == 0) preds_q <= pred_rdata;
        pv <= act;
        pg <= rg;
        pr <= rr;
        if (pv) begin
            for (i = 0; i < #L#; i = i + 1) begin
                if (pr == 2'd0) opa_q[(pg*#L# + i)*32 +: 32] <= av_of(i);
                else if (pr == 2'd1) opb_q[(pg*#L# + i)*32 +: 32] <= bimm ? imm : rf_rdata[i*32 +: 32];
                else opc_q[(pg*#L# + i)*32 +: 32] <= rf_rdata[i*32 +: 32];
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
            default: av_of = clk_q;
            endcase
        end else if (op == 7'd1 && bimm) begin
            av_of = imm;
        end else begin
            av_of = rf_rdata[lane*32 +: 32];
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
        self.exec.connect();
        self.clk_read.connect();
        self.done.connect();
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        Verilog::Custom(tpl(
            BODY,
            &[("GB", d.gb), ("G", d.g), ("T", d.t), ("L", d.l)],
        ))
    }
}
