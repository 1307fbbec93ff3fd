//! Warp select: the `warp-sched` block (policy and scheduler count from the SM's
//! parameters, every other knob at its default) and a two-entry issue queue in front of the
//! back end.
//!
//! The interface the rest of the SM sees (so another scheduler — DWR's — can take this
//! block's place): per slot `has_inst`, `ready`, `is_mem`, `is_bar`, `launch`, `exit`,
//! `mem_complete`; out `issued` (the slots issued this cycle, at most `schedulers` bits set)
//! and the queue head `q_valid`/`q_slot`, taken by `pop`.
//!
//! With two schedulers both may issue in one cycle; the queue takes both. `unit_free` is low
//! for every slot while the queue cannot take `schedulers` more entries (`unit_full`).
//! `bar-gto` gets `is_bar` and each launched warp's CTA slot; `motrr-recency` gets
//! `mem_complete` (a memory instruction retired) and, as its global-class inputs, the same
//! bits (every LD/ST-pipe access counts as global: the knob stays at its default `ldst`).

use super::{tpl, Dims};
use crate::primitives::Wire;
use crate::warp_sched::WarpSched;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Schedule {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub has_inst: Wire<In>,
    pub ready: Wire<In>,
    pub is_mem: Wire<In>,
    pub is_bar: Wire<In>,
    pub launch: Wire<In>,
    pub exit: Wire<In>,
    pub launch_cta: Wire<In>,
    pub mem_complete: Wire<In>,
    pub pop: Signal<In, Bit>,
    pub issued: Wire<Out>,
    pub q_valid: Signal<Out, Bit>,
    pub q_slot: Wire<Out>,
    pub unit_full: Signal<Out, Bit>,
    sched: WarpSched,
    _d: Dims,
    _tbb: usize,
}

impl Schedule {
    pub fn new(d: &Dims) -> Schedule {
        let cfg = d.sched_cfg();
        Schedule {
            clock: Default::default(),
            reset: Default::default(),
            has_inst: Wire::new(d.w),
            ready: Wire::new(d.w),
            is_mem: Wire::new(d.w),
            is_bar: Wire::new(d.w),
            launch: Wire::new(d.w),
            exit: Wire::new(d.w),
            launch_cta: Wire::new(d.cb),
            mem_complete: Wire::new(d.w),
            pop: Default::default(),
            issued: Wire::new(d.w),
            q_valid: Default::default(),
            q_slot: Wire::new(d.sb),
            unit_full: Default::default(),
            sched: WarpSched::new(&cfg),
            _d: d.clone(),
            _tbb: cfg.tb_bits(),
        }
    }
}

const BODY: &str = r#"
reg [#SB#-1:0] q0;
reg [#SB#-1:0] q1;
reg [1:0] qn;
reg [1:0] nq;
reg [#SB#-1:0] e0;
reg [#SB#-1:0] e1;
reg [#SB#-1:0] s0;
reg [#SB#-1:0] s1;
reg v0;
reg v1;
integer k;

always @(*) begin
    sched$clock = clock;
    sched$reset = reset;
    sched$has_inst = has_inst;
    sched$ready = ready;
    sched$unit_free = (qn + #S# <= 2) ? {#W#{1'b1}} : #W#'d0;
    sched$is_mem = is_mem;
    sched$launch = launch;
    sched$exit = exit;
    sched$mem_complete = mem_complete;
    sched$cpl_global = mem_complete;
    sched$is_global = is_mem;
    sched$is_bar = is_bar;
    for (k = 0; k < #W#; k = k + 1) sched$launch_tb[k*#TBB# +: #TBB#] = launch_cta;
end

always @(*) begin
    unit_full = !(qn + #S# <= 2);
    q_valid = (qn != 2'd0);
    q_slot = q0;
    // The issues of this cycle, scheduler 0 first.
    v0 = #V0#;
    s0 = #S0#;
    v1 = #V1#;
    s1 = #S1#;
    issued = #W#'d0;
    if (v0) issued[s0] = 1'b1;
    if (v1) issued[s1] = 1'b1;
end

// The queue after a pop and up to two pushes.
always @(*) begin
    e0 = q0;
    e1 = q1;
    nq = qn;
    if (pop && qn != 2'd0) begin
        e0 = q1;
        nq = qn - 1'b1;
    end
    if (v0) begin
        if (nq == 2'd0) e0 = s0; else e1 = s0;
        nq = nq + 1'b1;
    end
    if (v1) begin
        if (nq == 2'd0) e0 = s1; else e1 = s1;
        nq = nq + 1'b1;
    end
end

always @(posedge clock) begin
    if (reset) begin
        q0 <= #SB#'d0;
        q1 <= #SB#'d0;
        qn <= 2'd0;
    end else begin
        q0 <= e0;
        q1 <= e1;
        qn <= nq;
    end
end
"#;

impl Logic for Schedule {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.issued.connect();
        self.q_valid.connect();
        self.q_slot.connect();
        self.unit_full.connect();
        let s = &mut self.sched;
        s.clock.connect();
        s.reset.connect();
        s.has_inst.connect();
        s.ready.connect();
        s.unit_free.connect();
        s.is_mem.connect();
        s.launch.connect();
        s.exit.connect();
        s.mem_complete.connect();
        s.cpl_global.connect();
        s.is_global.connect();
        s.is_bar.connect();
        s.launch_tb.connect();
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        let (v0, s0, v1, s1) = if d.s == 2 {
            (
                "sched$issue_valid[0]".to_string(),
                super::bits("sched$issue_slot", 2 * d.sb, 0, d.sb),
                "sched$issue_valid[1]".to_string(),
                super::bits("sched$issue_slot", 2 * d.sb, d.sb, d.sb),
            )
        } else {
            (
                "sched$issue_valid".to_string(),
                "sched$issue_slot".to_string(),
                "1'b0".to_string(),
                format!("{}'d0", d.sb),
            )
        };
        let body = BODY
            .replace("#V0#", &v0)
            .replace("#S0#", &s0)
            .replace("#V1#", &v1)
            .replace("#S1#", &s1);
        Verilog::Custom(tpl(
            &body,
            &[("SB", d.sb), ("S", d.s), ("W", d.w), ("TBB", self._tbb)],
        ))
    }
}
