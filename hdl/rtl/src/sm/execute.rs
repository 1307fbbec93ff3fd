//! Execute: the warp's ALU-format instruction through `simd_width` lanes, one lane group per
//! cycle (warp_size / simd_width cycles), results captured one cycle later (the lanes'
//! registered outputs) into the warp-wide `result` (32 bits per lane) and `presult` (one
//! predicate bit per lane). Predicate operands per lane: `pa` = `%p[a]`, `pb` = `%p[b]`
//! (predicate logic), `pc` = `%p[imm[2:0]]` (selp).
//!
//! The lanes are the `sm-alu` block ([`super::alu::SmAlu`]: valid, op, a, b, c, pa, pb, pc →
//! out_valid, result, pred, one cycle of latency): every Mov/Alu/Selp/Setp/Pred op incl. FP32.

use super::alu::SmAlu;
use super::{tpl, Dims};
use crate::primitives::Wire;
use rust_hdl::prelude::*;
use warpforge_contract::units::sm_alu::SmAluConfig;

#[derive(LogicBlock)]
pub struct Execute {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub op: Wire<In>,
    pub ra: Wire<In>,
    pub rb: Wire<In>,
    pub imm: Wire<In>,
    pub opa: Wire<In>,
    pub opb: Wire<In>,
    pub opc: Wire<In>,
    pub preds: Wire<In>,
    pub result: Wire<Out>,
    pub presult: Wire<Out>,
    pub done: Signal<Out, Bit>,
    alu: SmAlu,
    _d: Dims,
}

impl Execute {
    pub fn new(d: &Dims) -> Execute {
        Execute {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            op: Wire::new(7),
            ra: Wire::new(6),
            rb: Wire::new(6),
            imm: Wire::new(32),
            opa: Wire::new(d.t * 32),
            opb: Wire::new(d.t * 32),
            opc: Wire::new(d.t * 32),
            preds: Wire::new(d.t * 8),
            result: Wire::new(d.t * 32),
            presult: Wire::new(d.t),
            done: Default::default(),
            alu: SmAlu::new(&SmAluConfig { lanes: d.l }),
            _d: d.clone(),
        }
    }
}

const BODY: &str = r#"
reg act;
reg [#GB#:0] eg;
reg pv;
reg [#GB#:0] pg;
reg done_q;
reg [#T#*32-1:0] res_q;
reg [#T#-1:0] pres_q;
reg [#L#-1:0] pa_v;
reg [#L#-1:0] pb_v;
reg [#L#-1:0] pc_v;
integer i;

always @(*) begin
    for (i = 0; i < #L#; i = i + 1) begin
        pa_v[i] = preds[(eg*#L# + i)*8 + ra[2:0]];
        pb_v[i] = preds[(eg*#L# + i)*8 + rb[2:0]];
        pc_v[i] = preds[(eg*#L# + i)*8 + imm[2:0]];
    end
    alu$clock = clock;
    alu$reset = reset;
    alu$valid = act;
    alu$op = op;
    alu$a = opa[eg*#L#*32 +: #L#*32];
    alu$b = opb[eg*#L#*32 +: #L#*32];
    alu$c = opc[eg*#L#*32 +: #L#*32];
    alu$pa = pa_v;
    alu$pb = pb_v;
    alu$pc = pc_v;
    result = res_q;
    presult = pres_q;
    done = done_q;
end

always @(posedge clock) begin
    if (reset) begin
        act <= 1'b0;
        eg <= 0;
        pv <= 1'b0;
        pg <= 0;
        done_q <= 1'b0;
        res_q <= 0;
        pres_q <= 0;
    end else begin
        if (start) begin
            act <= 1'b1;
            eg <= 0;
        end else if (act) begin
            eg <= eg + 1'b1;
            if (eg == #G# - 1) act <= 1'b0;
        end
        pv <= act;
        pg <= eg;
        done_q <= pv && (pg == #G# - 1);
        if (pv) begin
            res_q[pg*#L#*32 +: #L#*32] <= alu$result;
            pres_q[pg*#L# +: #L#] <= alu$pred;
        end
    end
end
"#;

impl Logic for Execute {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.result.connect();
        self.presult.connect();
        self.done.connect();
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
        Verilog::Custom(tpl(
            BODY,
            &[("GB", d.gb), ("G", d.g), ("T", d.t), ("L", d.l)],
        ))
    }
}
