//! Execute: the warp's ALU-format instruction through `simd_width` lanes, one lane group per
//! cycle (warp_size / simd_width cycles), results captured one cycle later (the lanes'
//! registered outputs) into the warp-wide `result` (32 bits per lane) and `presult` (one
//! predicate bit per lane). Predicate operands per lane: `pa` = `%p[a]`, `pb` = `%p[b]`
//! (predicate logic), `pc` = `%p[imm[2:0]]` (selp).
//!
//! The lanes are the `sm-alu` block's ports (valid, op, a, b, c, pa, pb, pc → out_valid,
//! result, pred, one cycle of latency). Until that block lands (branch `smalu`) this file
//! carries [`IntLanes`], an interim integer-only lane block with the same ports: every
//! integer, compare, predicate, mov and selp op; the FP32 opcodes give 0.

use super::{tpl, Dims};
use crate::primitives::Wire;
use rust_hdl::prelude::*;

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
    alu: IntLanes,
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
            alu: IntLanes::new(d.l),
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

/// Interim integer lanes with the `sm-alu` ports (see the module comment).
#[derive(LogicBlock)]
pub struct IntLanes {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub op: Wire<In>,
    pub a: Wire<In>,
    pub b: Wire<In>,
    pub c: Wire<In>,
    pub pa: Wire<In>,
    pub pb: Wire<In>,
    pub pc: Wire<In>,
    pub out_valid: Signal<Out, Bit>,
    pub result: Wire<Out>,
    pub pred: Wire<Out>,
    _lanes: usize,
}

impl IntLanes {
    pub fn new(lanes: usize) -> IntLanes {
        IntLanes {
            clock: Default::default(),
            reset: Default::default(),
            valid: Default::default(),
            op: Wire::new(7),
            a: Wire::new(lanes * 32),
            b: Wire::new(lanes * 32),
            c: Wire::new(lanes * 32),
            pa: Wire::new(lanes),
            pb: Wire::new(lanes),
            pc: Wire::new(lanes),
            out_valid: Default::default(),
            result: Wire::new(lanes * 32),
            pred: Wire::new(lanes),
            _lanes: lanes,
        }
    }
}

const LANES: &str = r#"
reg [31:0] x;
reg [31:0] y;
reg [31:0] z;
reg [63:0] ps;
reg [63:0] pu;
reg [31:0] r;
reg p;
reg [#L#*32-1:0] r_all;
reg [#L#-1:0] p_all;
reg [#L#-1:0] pa_w;
reg [#L#-1:0] pb_w;
reg [#L#-1:0] pc_w;
integer i;
integer k;

always @(*) begin
    pa_w = pa;
    pb_w = pb;
    pc_w = pc;
    r_all = 0;
    p_all = 0;
    k = 0;
    for (i = 0; i < #L#; i = i + 1) begin
        x = a[i*32 +: 32];
        y = b[i*32 +: 32];
        z = c[i*32 +: 32];
        ps = $signed(x) * $signed(y);
        pu = x * y;
        r = 32'd0;
        p = 1'b0;
        case (op)
        7'd1: r = x;
        7'd2: r = x + y;
        7'd3: r = x - y;
        7'd4: r = pu[31:0];
        7'd5: r = ps[63:32];
        7'd6: r = pu[63:32];
        7'd7: r = pu[31:0] + z;
        7'd8: r = ($signed(x) < $signed(y)) ? x : y;
        7'd9: r = (x < y) ? x : y;
        7'd10: r = ($signed(x) > $signed(y)) ? x : y;
        7'd11: r = (x > y) ? x : y;
        7'd12: r = x[31] ? (32'd0 - x) : x;
        7'd13: r = 32'd0 - x;
        7'd14: r = x & y;
        7'd15: r = x | y;
        7'd16: r = x ^ y;
        7'd17: r = ~x;
        7'd18: r = (y >= 32'd32) ? 32'd0 : (x << y[4:0]);
        7'd19: r = (y >= 32'd32) ? 32'd0 : (x >> y[4:0]);
        7'd20: r = $signed(x) >>> ((y >= 32'd31) ? 5'd31 : y[4:0]);
        7'd21: begin
            for (k = 0; k < 32; k = k + 1) r = r + x[k];
        end
        7'd22: begin
            r = 32'd32;
            for (k = 0; k < 32; k = k + 1) if (x[k]) r = 31 - k;
        end
        7'd23: r = pc_w[i] ? x : y;
        7'd24: p = (x == y);
        7'd25: p = (x != y);
        7'd26: p = ($signed(x) < $signed(y));
        7'd27: p = ($signed(x) <= $signed(y));
        7'd28: p = ($signed(x) > $signed(y));
        7'd29: p = ($signed(x) >= $signed(y));
        7'd30: p = (x < y);
        7'd31: p = (x <= y);
        7'd32: p = (x > y);
        7'd33: p = (x >= y);
        7'd34: p = pa_w[i] & pb_w[i];
        7'd35: p = pa_w[i] | pb_w[i];
        7'd36: p = pa_w[i] ^ pb_w[i];
        7'd37: p = !pa_w[i];
        7'd38: p = pa_w[i];
        default: begin
            r = 32'd0;
            p = 1'b0;
        end
        endcase
        r_all[i*32 +: 32] = r;
        p_all[i] = p;
    end
end

always @(posedge clock) begin
    if (reset) begin
        out_valid <= 1'b0;
        result <= 0;
        pred <= 0;
    end else begin
        out_valid <= valid;
        result <= valid ? r_all : 0;
        pred <= valid ? p_all : 0;
    end
end
"#;

impl Logic for IntLanes {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.out_valid.connect();
        self.result.connect();
        self.pred.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(tpl(LANES, &[("L", self._lanes)]))
    }
}
