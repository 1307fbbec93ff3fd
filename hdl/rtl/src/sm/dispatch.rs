//! CTA dispatch: launches the grid's CTAs into CTA slots and their warps into warp slots.
//!
//! Resources are partitioned statically per CTA slot once the launch is known (a few setup
//! cycles after `start`): CTA slot `t` owns warp slots `t·wpc … t·wpc + wpc − 1` (wpc = warps
//! per CTA = ⌈threads / warp_size⌉), warp-registers `t·wpc·regs …` of the register file and
//! shared words `t·k_shared_words …`. A CTA slot is usable when all three partitions fit
//! (equal partitions as resources allow); the linear block ids 0, 1, … (x fastest) go to the
//! lowest free usable slot.
//!
//! Launching one CTA walks, one step per cycle: zero its shared partition (one word per
//! cycle), then per warp: zero its registers (one RF row per cycle), write its rows of the
//! special-register table (`%tid` of every lane, x fastest, one lane-group row per cycle, and
//! the live-thread mask), then launch it (zero its predicate row, load its reconvergence
//! stack with the mask, tell the scheduler). Table writes wait while the back end uses the
//! same RAM port (`*_busy`). A CTA slot frees when all its warps have finished (the live
//! count reaches 0); `all_done` when every CTA of the grid has finished.

use super::{tpl, Dims};
use crate::primitives::Wire;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Dispatch {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub k_regs: Wire<In>,
    pub k_shared_words: Wire<In>,
    pub k_grid_x: Wire<In>,
    pub k_grid_y: Wire<In>,
    pub k_grid_z: Wire<In>,
    pub k_block_x: Wire<In>,
    pub k_block_y: Wire<In>,
    pub k_block_z: Wire<In>,
    /// Per warp slot: its reconvergence stack is empty (the warp has finished).
    pub empty: Wire<In>,
    pub rf_busy: Signal<In, Bit>,
    pub sh_busy: Signal<In, Bit>,
    pub pred_busy: Signal<In, Bit>,
    pub launch: Wire<Out>,
    pub launch_mask: Wire<Out>,
    pub launch_cta: Wire<Out>,
    pub resident: Wire<Out>,
    pub finish: Wire<Out>,
    pub w_cta: Wire<Out>,
    pub w_wid: Wire<Out>,
    pub w_rbase: Wire<Out>,
    pub c_lin: Wire<Out>,
    pub c_ctaid: Wire<Out>,
    pub c_shbase: Wire<Out>,
    pub c_live: Wire<Out>,
    pub rf_we: Signal<Out, Bit>,
    pub rf_waddr: Wire<Out>,
    pub pred_we: Signal<Out, Bit>,
    pub pred_waddr: Wire<Out>,
    pub tid_we: Signal<Out, Bit>,
    pub tid_waddr: Wire<Out>,
    pub tid_wdata: Wire<Out>,
    pub sh_we: Signal<Out, Bit>,
    pub sh_waddr: Wire<Out>,
    pub running: Signal<Out, Bit>,
    pub all_done: Signal<Out, Bit>,
    _d: Dims,
}

impl Dispatch {
    pub fn new(d: &Dims) -> Dispatch {
        Dispatch {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            k_regs: Wire::new(7),
            k_shared_words: Wire::new(15),
            k_grid_x: Wire::new(16),
            k_grid_y: Wire::new(16),
            k_grid_z: Wire::new(16),
            k_block_x: Wire::new(11),
            k_block_y: Wire::new(11),
            k_block_z: Wire::new(11),
            empty: Wire::new(d.w),
            rf_busy: Default::default(),
            sh_busy: Default::default(),
            pred_busy: Default::default(),
            launch: Wire::new(d.w),
            launch_mask: Wire::new(d.t),
            launch_cta: Wire::new(d.cb),
            resident: Wire::new(d.w),
            finish: Wire::new(d.w),
            w_cta: Wire::new(d.w * d.cb),
            w_wid: Wire::new(d.w * d.wib),
            w_rbase: Wire::new(d.w * d.rwb),
            c_lin: Wire::new(d.c * 32),
            c_ctaid: Wire::new(d.c * 48),
            c_shbase: Wire::new(d.c * d.shb),
            c_live: Wire::new(d.c * d.lcb),
            rf_we: Default::default(),
            rf_waddr: Wire::new(d.rb),
            pred_we: Default::default(),
            pred_waddr: Wire::new(d.sb),
            tid_we: Default::default(),
            tid_waddr: Wire::new(d.tb),
            tid_wdata: Wire::new(d.l * 32),
            sh_we: Default::default(),
            sh_waddr: Wire::new(d.shb),
            running: Default::default(),
            all_done: Default::default(),
            _d: d.clone(),
        }
    }
}

const BODY: &str = r#"
// Launch setup (computed once after start).
reg run;
reg [2:0] setup;
reg [31:0] threads;
reg [#LCB#-1:0] wpc;
reg [15:0] prf;
reg [47:0] total;
reg [47:0] next_lin;
reg [15:0] cx;
reg [15:0] cy;
reg [15:0] cz;
reg [#C#-1:0] usable;
reg [#C#-1:0] c_busy;
// The CTA walk.
reg [2:0] ws;
reg [#CB#-1:0] wt;
reg [#LCB#-1:0] wk;
reg [15:0] zc;
reg [9:0] tx;
reg [9:0] ty;
reg [9:0] tz;
reg [15:0] tlin;
reg [#T#-1:0] lmask;
reg [15:0] rb_cur;
reg [15:0] sl_cur;
reg [#W#-1:0] resident_q;
// Combinational helpers.
reg found;
reg [#CB#-1:0] free_t;
reg [#C#*#LCB#-1:0] live_next;
reg [#LCB#-1:0] dec;
reg [9:0] nx;
reg [9:0] ny;
reg [9:0] nz;
reg [#T#-1:0] gmask;
reg [15:0] last_zc;
integer i;
integer j;
integer k;

always @(*) begin
    running = run;
    resident = resident_q;
    finish = resident_q & empty;
    // Lowest free usable CTA slot.
    found = 1'b0;
    free_t = #CB#'d0;
    for (k = #C# - 1; k >= 0; k = k - 1) begin
        if (usable[k] && !c_busy[k]) begin
            found = 1'b1;
            free_t = k;
        end
    end
    // Live warps per CTA slot after this cycle's finishes.
    for (k = 0; k < #C#; k = k + 1) begin
        dec = #LCB#'d0;
        for (j = 0; j < #W#; j = j + 1) begin
            if (finish[j] && (w_cta[j*#CB# +: #CB#] == k)) dec = dec + 1'b1;
        end
        live_next[k*#LCB# +: #LCB#] = c_live[k*#LCB# +: #LCB#] - dec;
    end
    // The special-register row of the current lane group: %tid of each lane, x fastest.
    nx = tx;
    ny = ty;
    nz = tz;
    tid_wdata = #L32#'d0;
    gmask = #T#'d0;
    for (i = 0; i < #L#; i = i + 1) begin
        tid_wdata[i*32 +: 32] = {2'b00, nz, ny, nx};
        if ((tlin + i) < threads) gmask[zc[#GBW#:0]*#L# + i] = 1'b1;
        if ((nx + 1'b1) == k_block_x) begin
            nx = 10'd0;
            if ((ny + 1'b1) == k_block_y) begin
                ny = 10'd0;
                nz = nz + 1'b1;
            end else begin
                ny = ny + 1'b1;
            end
        end else begin
            nx = nx + 1'b1;
        end
    end
    last_zc = (k_regs * #G#) - 1'b1;
    // Table writes of the walk.
    sh_we = (ws == 3'd1) && !sh_busy;
    sh_waddr = wt * k_shared_words + zc;
    rf_we = (ws == 3'd2) && !rf_busy;
    rf_waddr = rb_cur * #G# + zc;
    tid_we = (ws == 3'd3);
    tid_waddr = sl_cur * #G# + zc;
    pred_we = (ws == 3'd4) && !pred_busy;
    pred_waddr = sl_cur;
    launch = #W#'d0;
    if (ws == 3'd4 && !pred_busy) launch[sl_cur] = 1'b1;
    launch_mask = lmask;
    launch_cta = wt;
    all_done = run && (setup == 3'd0) && (next_lin == total) && (ws == 3'd0) && (c_busy == #C#'d0);
    for (k = 0; k < #C#; k = k + 1) c_shbase[k*#SHB# +: #SHB#] = k * k_shared_words;
end

always @(posedge clock) begin
    if (reset) begin
        run <= 1'b0;
        setup <= 3'd0;
        threads <= 32'd0;
        wpc <= #LCB#'d0;
        prf <= 16'd0;
        total <= 48'd0;
        next_lin <= 48'd0;
        cx <= 16'd0;
        cy <= 16'd0;
        cz <= 16'd0;
        usable <= #C#'d0;
        c_busy <= #C#'d0;
        ws <= 3'd0;
        wt <= #CB#'d0;
        wk <= #LCB#'d0;
        zc <= 16'd0;
        tx <= 10'd0;
        ty <= 10'd0;
        tz <= 10'd0;
        tlin <= 16'd0;
        lmask <= #T#'d0;
        rb_cur <= 16'd0;
        sl_cur <= 16'd0;
        resident_q <= #W#'d0;
        w_cta <= 0;
        w_wid <= 0;
        w_rbase <= 0;
        c_lin <= 0;
        c_ctaid <= 0;
        c_live <= 0;
    end else begin
        if (start) begin
            run <= 1'b1;
            setup <= 3'd1;
            next_lin <= 48'd0;
            cx <= 16'd0;
            cy <= 16'd0;
            cz <= 16'd0;
            ws <= 3'd0;
        end else if (run && all_done) begin
            run <= 1'b0;
        end
        // Setup: threads and grid size, warps per CTA, registers per CTA, usable slots.
        if (!start && setup == 3'd1) begin
            threads <= k_block_x * k_block_y * k_block_z;
            total <= k_grid_x * k_grid_y * k_grid_z;
            setup <= 3'd2;
        end
        if (setup == 3'd2) begin
            wpc <= (threads + #T# - 1) >> #TSH#;
            setup <= 3'd3;
        end
        if (setup == 3'd3) begin
            prf <= wpc * k_regs;
            setup <= 3'd4;
        end
        if (setup == 3'd4) begin
            for (k = 0; k < #C#; k = k + 1) begin
                usable[k] <= ((k + 1) * wpc <= #W#) && ((k + 1) * prf <= #RWC#)
                    && ((k + 1) * k_shared_words <= #SHW#) && (wpc != 0);
            end
            setup <= 3'd0;
        end
        // Finishing warps leave; CTA slots whose last warp finished free.
        resident_q <= (resident_q & ~finish) | launch;
        for (k = 0; k < #C#; k = k + 1) begin
            c_live[k*#LCB# +: #LCB#] <= live_next[k*#LCB# +: #LCB#];
            if (c_busy[k] && live_next[k*#LCB# +: #LCB#] == #LCB#'d0) c_busy[k] <= 1'b0;
        end
        case (ws)
        3'd0: begin
            if (run && !start && setup == 3'd0 && next_lin != total && found) begin
                wt <= free_t;
                c_busy[free_t] <= 1'b1;
                c_live[free_t*#LCB# +: #LCB#] <= wpc;
                c_lin[free_t*32 +: 32] <= next_lin[31:0];
                c_ctaid[free_t*48 +: 48] <= {cz, cy, cx};
                next_lin <= next_lin + 1'b1;
                if ((cx + 1'b1) == k_grid_x) begin
                    cx <= 16'd0;
                    if ((cy + 1'b1) == k_grid_y) begin
                        cy <= 16'd0;
                        cz <= cz + 1'b1;
                    end else begin
                        cy <= cy + 1'b1;
                    end
                end else begin
                    cx <= cx + 1'b1;
                end
                zc <= 16'd0;
                tx <= 10'd0;
                ty <= 10'd0;
                tz <= 10'd0;
                tlin <= 16'd0;
                wk <= #LCB#'d0;
                rb_cur <= free_t * prf;
                sl_cur <= free_t * wpc;
                ws <= (k_shared_words != 15'd0) ? 3'd1 : 3'd2;
            end
        end
        3'd1: begin
            if (!sh_busy) begin
                zc <= zc + 1'b1;
                if (zc == k_shared_words - 1'b1) begin
                    zc <= 16'd0;
                    ws <= 3'd2;
                end
            end
        end
        3'd2: begin
            if (!rf_busy) begin
                zc <= zc + 1'b1;
                if (zc == last_zc) begin
                    zc <= 16'd0;
                    lmask <= #T#'d0;
                    ws <= 3'd3;
                end
            end
        end
        3'd3: begin
            tx <= nx;
            ty <= ny;
            tz <= nz;
            tlin <= tlin + #L#;
            lmask <= lmask | gmask;
            zc <= zc + 1'b1;
            if (zc == #G# - 1) begin
                zc <= 16'd0;
                ws <= 3'd4;
            end
        end
        default: begin
            if (!pred_busy) begin
                w_cta[sl_cur*#CB# +: #CB#] <= wt;
                w_wid[sl_cur*#WIB# +: #WIB#] <= wk;
                w_rbase[sl_cur*#RWB# +: #RWB#] <= rb_cur;
                wk <= wk + 1'b1;
                rb_cur <= rb_cur + k_regs;
                sl_cur <= sl_cur + 1'b1;
                zc <= 16'd0;
                ws <= ((wk + 1'b1) == wpc) ? 3'd0 : 3'd2;
            end
        end
        endcase
    end
end
"#;

impl Logic for Dispatch {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.launch.connect();
        self.launch_mask.connect();
        self.launch_cta.connect();
        self.resident.connect();
        self.finish.connect();
        self.w_cta.connect();
        self.w_wid.connect();
        self.w_rbase.connect();
        self.c_lin.connect();
        self.c_ctaid.connect();
        self.c_shbase.connect();
        self.c_live.connect();
        self.rf_we.connect();
        self.rf_waddr.connect();
        self.pred_we.connect();
        self.pred_waddr.connect();
        self.tid_we.connect();
        self.tid_waddr.connect();
        self.tid_wdata.connect();
        self.sh_we.connect();
        self.sh_waddr.connect();
        self.running.connect();
        self.all_done.connect();
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        Verilog::Custom(tpl(
            BODY,
            &[
                ("LCB", d.lcb),
                ("CB", d.cb),
                ("C", d.c),
                ("T", d.t),
                ("W", d.w),
                ("L32", d.l * 32),
                ("L", d.l),
                ("G", d.g),
                ("GBW", d.gb - 1),
                ("SHB", d.shb),
                ("TSH", d.t.trailing_zeros() as usize),
                ("RWC", d.rwc),
                ("SHW", d.sh_words),
                ("WIB", d.wib),
                ("RWB", d.rwb),
            ],
        ))
    }
}
