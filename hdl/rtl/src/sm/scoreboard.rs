//! The per-warp scoreboard. With one instruction in flight per warp (spec/crown.md §2.3 [D])
//! there are no per-register hazards to track: a warp is `ready` when its previous
//! instruction has written back (`inflight` clear) and it does not wait at a barrier. Only
//! that warp waits: the back end overlaps the in-flight instructions of the other warps. Per
//! warp slot it holds:
//! - `inflight`: issued, not yet retired;
//! - the one-entry instruction buffer's state: `ibuf_v` (the next instruction is fetched; the
//!   word itself is in the fetch stage's buffer RAM), its class bits `is_mem` (LD/ST pipe) and
//!   `is_bar` (`bar.sync`), `fpend` (a fetch is under way);
//! - `barwait`: retired a `bar.sync` and waits for its CTA;
//! - `live`: the lanes that have not exited (the launch mask less every `exit` retired), which
//!   writeback compares with a `bar.sync`'s issue mask (a divergent barrier when they differ).
//!
//! Per CTA slot: the barrier arrival count. A CTA's barrier releases when its arrivals equal
//! its live warps (warps that have not finished; a finished warp counts as arrived by leaving
//! the live count).

use super::{tpl, Dims};
use crate::primitives::Wire;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Scoreboard {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub resident: Wire<In>,
    pub launch: Wire<In>,
    pub empty: Wire<In>,
    pub issued: Wire<In>,
    pub fetch_start: Signal<In, Bit>,
    pub fetch_slot: Wire<In>,
    pub fetch_done: Signal<In, Bit>,
    pub done_slot: Wire<In>,
    pub done_mem: Signal<In, Bit>,
    pub done_bar: Signal<In, Bit>,
    pub retire: Signal<In, Bit>,
    pub retire_slot: Wire<In>,
    pub retire_bar: Signal<In, Bit>,
    pub retire_exit: Signal<In, Bit>,
    pub retire_mask: Wire<In>,
    pub launch_mask: Wire<In>,
    pub w_cta: Wire<In>,
    pub c_live: Wire<In>,
    pub has_inst: Wire<Out>,
    pub ready: Wire<Out>,
    pub is_mem: Wire<Out>,
    pub is_bar: Wire<Out>,
    pub fetch_need: Wire<Out>,
    pub inflight: Wire<Out>,
    pub barwait: Wire<Out>,
    pub live: Wire<Out>,
    _d: Dims,
}

impl Scoreboard {
    pub fn new(d: &Dims) -> Scoreboard {
        Scoreboard {
            clock: Default::default(),
            reset: Default::default(),
            resident: Wire::new(d.w),
            launch: Wire::new(d.w),
            empty: Wire::new(d.w),
            issued: Wire::new(d.w),
            fetch_start: Default::default(),
            fetch_slot: Wire::new(d.sb),
            fetch_done: Default::default(),
            done_slot: Wire::new(d.sb),
            done_mem: Default::default(),
            done_bar: Default::default(),
            retire: Default::default(),
            retire_slot: Wire::new(d.sb),
            retire_bar: Default::default(),
            retire_exit: Default::default(),
            retire_mask: Wire::new(d.t),
            launch_mask: Wire::new(d.t),
            w_cta: Wire::new(d.w * d.cb),
            c_live: Wire::new(d.c * d.lcb),
            has_inst: Wire::new(d.w),
            ready: Wire::new(d.w),
            is_mem: Wire::new(d.w),
            is_bar: Wire::new(d.w),
            fetch_need: Wire::new(d.w),
            inflight: Wire::new(d.w),
            barwait: Wire::new(d.w),
            live: Wire::new(d.w * d.t),
            _d: d.clone(),
        }
    }
}

const BODY: &str = r#"
reg [#W#-1:0] ibuf_v;
reg [#W#-1:0] ibm;
reg [#W#-1:0] ibb;
reg [#W#-1:0] fpend;
reg [#W#-1:0] infl;
reg [#W#-1:0] bwait;
reg [#C#*#LCB#-1:0] bar_cnt;
reg [#C#-1:0] rel;
reg [#W#*#T#-1:0] live_q;
integer k;
integer j;

always @(*) begin
    has_inst = ibuf_v & resident;
    ready = ~infl & ~bwait;
    is_mem = ibm;
    is_bar = ibb;
    inflight = infl;
    barwait = bwait;
    live = live_q;
    fetch_need = resident & ~empty & ~ibuf_v & ~infl & ~fpend;
    for (k = 0; k < #C#; k = k + 1) begin
        rel[k] = (bar_cnt[k*#LCB# +: #LCB#] != #LCB#'d0)
            && (bar_cnt[k*#LCB# +: #LCB#] == c_live[k*#LCB# +: #LCB#]);
    end
end

always @(posedge clock) begin
    if (reset) begin
        ibuf_v <= #W#'d0;
        ibm <= #W#'d0;
        ibb <= #W#'d0;
        fpend <= #W#'d0;
        infl <= #W#'d0;
        bwait <= #W#'d0;
        bar_cnt <= 0;
        live_q <= 0;
    end else begin
        for (j = 0; j < #W#; j = j + 1) begin
            if (launch[j]) begin
                ibuf_v[j] <= 1'b0;
                fpend[j] <= 1'b0;
                infl[j] <= 1'b0;
                bwait[j] <= 1'b0;
                live_q[j*#T# +: #T#] <= launch_mask;
            end else begin
                if (fetch_start && fetch_slot == j) fpend[j] <= 1'b1;
                if (fetch_done && done_slot == j) begin
                    fpend[j] <= 1'b0;
                    ibuf_v[j] <= 1'b1;
                    ibm[j] <= done_mem;
                    ibb[j] <= done_bar;
                end
                if (issued[j]) begin
                    infl[j] <= 1'b1;
                    ibuf_v[j] <= 1'b0;
                end
                if (retire && retire_slot == j) begin
                    infl[j] <= 1'b0;
                    if (retire_bar) bwait[j] <= 1'b1;
                    if (retire_exit) live_q[j*#T# +: #T#] <= live_q[j*#T# +: #T#] & ~retire_mask;
                end
                if (rel[w_cta[j*#CB# +: #CB#]]) bwait[j] <= 1'b0;
            end
        end
        for (k = 0; k < #C#; k = k + 1) begin
            if (rel[k]) bar_cnt[k*#LCB# +: #LCB#] <= #LCB#'d0;
            else if (retire && retire_bar && w_cta[retire_slot*#CB# +: #CB#] == k)
                bar_cnt[k*#LCB# +: #LCB#] <= bar_cnt[k*#LCB# +: #LCB#] + 1'b1;
        end
    end
end
"#;

impl Logic for Scoreboard {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.has_inst.connect();
        self.ready.connect();
        self.is_mem.connect();
        self.is_bar.connect();
        self.fetch_need.connect();
        self.inflight.connect();
        self.barwait.connect();
        self.live.connect();
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        Verilog::Custom(tpl(
            BODY,
            &[
                ("W", d.w),
                ("C", d.c),
                ("LCB", d.lcb),
                ("CB", d.cb),
                ("T", d.t),
            ],
        ))
    }
}
