//! Execute: the warp's ALU-format instruction through `simd_width` lanes, one lane group per
//! cycle (warp_size / simd_width cycles), results captured `alu_stages` cycles later (the
//! lanes' registered outputs, in issue order: a result counter names their group) into the
//! warp-wide `result` (32 bits per lane) and `presult` (one predicate bit per lane). The
//! groups overlap in the lanes' pipeline: `o_valid` rises groups + alu_stages + 1 cycles
//! after the `start` cycle (not groups × alu_stages). Predicate operands per lane: `pa` = `%p[a]`, `pb` = `%p[b]`
//! (predicate logic), `pc` = `%p[imm[2:0]]` (selp).
//!
//! The stage holds one warp-instruction: `start` latches operand read's packet and operands
//! (so operand read can go on with the next instruction); the results are offered
//! (`o_valid`) until writeback takes them (`take`).
//!
//! The lanes are the `sm-alu` block ([`super::alu::SmAlu`]: valid, op, a, b, c, pa, pb, pc →
//! out_valid, result, pred, `alu_stages` cycles of latency): every Mov/Alu/Selp/Setp/Pred op
//! incl. FP32.

use super::alu::SmAlu;
use super::{tpl, Dims, PK_UNPACK};
use crate::primitives::Wire;
use rust_hdl::prelude::*;
use warpforge_contract::units::sm_alu::SmAluConfig;

#[derive(LogicBlock)]
pub struct Execute {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub take: Signal<In, Bit>,
    pub in_pk: Wire<In>,
    pub opa: Wire<In>,
    pub opb: Wire<In>,
    pub opc: Wire<In>,
    pub preds: Wire<In>,
    pub result: Wire<Out>,
    pub presult: Wire<Out>,
    pub pk: Wire<Out>,
    pub preds_out: Wire<Out>,
    pub ready: Signal<Out, Bit>,
    pub o_valid: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    alu: SmAlu,
    _d: Dims,
}

impl Execute {
    pub fn new(d: &Dims) -> Execute {
        Execute {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            take: Default::default(),
            in_pk: Wire::new(d.pk()),
            opa: Wire::new(d.t * 32),
            opb: Wire::new(d.t * 32),
            opc: Wire::new(d.t * 32),
            preds: Wire::new(d.t * 8),
            result: Wire::new(d.t * 32),
            presult: Wire::new(d.t),
            pk: Wire::new(d.pk()),
            preds_out: Wire::new(d.t * 8),
            ready: Default::default(),
            o_valid: Default::default(),
            busy: Default::default(),
            alu: SmAlu::new(&SmAluConfig {
                lanes: d.l,
                stages: d.alu_stages,
            }),
            _d: d.clone(),
        }
    }
}

const BODY: &str = r#"
reg [#PK#-1:0] pk_q;
reg [#T#*32-1:0] a_q;
reg [#T#*32-1:0] b_q;
reg [#T#*32-1:0] c_q;
reg [#T#*8-1:0] p_q;
reg act;
reg [#GB#:0] eg;
// A warp-instruction's groups are in the lanes or not all collected yet; `rg` is the group
// of the next result to come out.
reg pend;
reg [#GB#:0] rg;
reg full;
reg [#T#*32-1:0] res_q;
reg [#T#-1:0] pres_q;
reg [#L#-1:0] pa_v;
reg [#L#-1:0] pb_v;
reg [#L#-1:0] pc_v;
integer i;

always @(*) begin
    for (i = 0; i < #L#; i = i + 1) begin
        pa_v[i] = p_q[(eg*#L# + i)*8 + ra[2:0]];
        pb_v[i] = p_q[(eg*#L# + i)*8 + rb[2:0]];
        pc_v[i] = p_q[(eg*#L# + i)*8 + imm[2:0]];
    end
    alu$clock = clock;
    alu$reset = reset;
    alu$valid = act;
    alu$op = op;
    alu$a = a_q[eg*#L#*32 +: #L#*32];
    alu$b = b_q[eg*#L#*32 +: #L#*32];
    alu$c = c_q[eg*#L#*32 +: #L#*32];
    alu$pa = pa_v;
    alu$pb = pb_v;
    alu$pc = pc_v;
    result = res_q;
    presult = pres_q;
    pk = pk_q;
    preds_out = p_q;
    o_valid = full;
    busy = pend || full;
end

// Depends on `take`: a process of its own.
always @(*) begin
    ready = !pend && (!full || take);
end

always @(posedge clock) begin
    if (reset) begin
        pk_q <= 0;
        a_q <= 0;
        b_q <= 0;
        c_q <= 0;
        p_q <= 0;
        act <= 1'b0;
        eg <= 0;
        pend <= 1'b0;
        rg <= 0;
        full <= 1'b0;
        res_q <= 0;
        pres_q <= 0;
    end else begin
        if (take) full <= 1'b0;
        if (alu$out_valid && (rg == #G# - 1)) begin
            full <= 1'b1;
            pend <= 1'b0;
        end
        if (start) begin
            pk_q <= in_pk;
            a_q <= opa;
            b_q <= opb;
            c_q <= opc;
            p_q <= preds;
            act <= 1'b1;
            eg <= 0;
            pend <= 1'b1;
            rg <= 0;
        end else if (act) begin
            eg <= eg + 1'b1;
            if (eg == #G# - 1) act <= 1'b0;
        end
        if (alu$out_valid) begin
            res_q[rg*#L#*32 +: #L#*32] <= alu$result;
            pres_q[rg*#L# +: #L#] <= alu$pred;
            rg <= rg + 1'b1;
        end
    end
end
"#;

impl Logic for Execute {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.result.connect();
        self.presult.connect();
        self.pk.connect();
        self.preds_out.connect();
        self.ready.connect();
        self.o_valid.connect();
        self.busy.connect();
        let a = &mut self.alu;
        a.clock.connect();
        a.reset.connect();
        a.valid.connect();
        a.op.connect();
        a.a.connect();
        a.b.connect();
        a.c.connect();
        a.pa.connect();
        a.pb.connect();
        a.pc.connect();
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        let mut vars = d.pk_vars();
        vars.extend([("GB", d.gb), ("G", d.g), ("L", d.l)]);
        Verilog::Custom(tpl(&format!("{PK_UNPACK}{BODY}"), &vars))
    }
}
