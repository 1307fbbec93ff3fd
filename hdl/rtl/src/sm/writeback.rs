//! Writeback: writes the warp's results, commits the instruction to the warp's
//! reconvergence stack, and retires it (the retirement record), then frees the warp.
//!
//! The stage holds one warp-instruction. When empty (or in the cycle it retires) it takes the
//! next one from memory, execute or (control instructions: no result) operand read, in that
//! order of priority, latching its packet and results (`take_*`). Memory instructions reach
//! it in the order they used memory; instructions of different warps retire in any order
//! otherwise, each warp's in program order (one in flight per warp).
//!
//! - general register: one RF row per lane group (warp_size / simd_width cycles), byte
//!   enables for the executing lanes only; the value is the LSU's (memory formats) or the
//!   lanes' result;
//! - predicate: the warp's predicate row, one byte per lane, executing lanes only;
//! - both writes leave through registers (`rf_*`, `pred_*` are registered outputs): the RAMs
//!   write each row one cycle after this stage decides it, so its packet register does not
//!   reach the register file's address decoding in one cycle; the last row lands in the
//!   retiring cycle, before the warp's next instruction can reach operand read;
//! - commit: uniform advance; `bra` with taken = the executing lanes, target `imm[15:0]`,
//!   reconvergence PC `imm[31:16]`; `exit` with every issue lane executing: the lanes finish;
//!   with none: advance; with some (partially guarded): a divergent branch to the `exit`
//!   itself with reconvergence at the virtual exit PC 2^pc_bits − 1 (never executed: the SM
//!   needs programs shorter than 2^pc_bits for it), whose record names only the guard-false
//!   lanes (`ret_exec` = 0); the exiting lanes then issue it again alone. A commit the stack
//!   refuses (`overflow`) stops the SM (FAULT_STACK_OVERFLOW) without a record; so does a
//!   `bar.sync` whose issue mask is not every live lane of the warp (`dbar`:
//!   FAULT_DIVERGENT_BARRIER).
//! - retire: `ret_valid` for one cycle with the record; the scoreboard frees the warp (and,
//!   for `bar.sync`, makes it wait for its CTA); `mem_cpl` (one-hot slot) for memory
//!   instructions (the Recency Register's completion event).
//!
//! Also the performance counters (cleared by `start`, counting while `running`).

use super::{tpl, Dims, PK_UNPACK};
use crate::primitives::Wire;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Writeback {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub k_start: Signal<In, Bit>,
    pub running: Signal<In, Bit>,
    pub lsu_valid: Signal<In, Bit>,
    pub lsu_pk: Wire<In>,
    pub lsu_res: Wire<In>,
    pub st_addr: Wire<In>,
    pub st_data: Wire<In>,
    pub exe_valid: Signal<In, Bit>,
    pub exe_pk: Wire<In>,
    pub alu_res: Wire<In>,
    pub alu_pres: Wire<In>,
    pub exe_preds: Wire<In>,
    pub opr_valid: Signal<In, Bit>,
    pub opr_pk: Wire<In>,
    pub rbase: Wire<In>,
    pub cta_lin: Wire<In>,
    pub wid: Wire<In>,
    pub live: Wire<In>,
    pub overflow: Signal<In, Bit>,
    pub issue_pop: Signal<In, Bit>,
    pub lsu_busy: Signal<In, Bit>,
    pub stages_busy: Wire<In>,
    pub sched_issue: Signal<In, Bit>,
    pub resident: Wire<In>,
    pub inflight: Wire<In>,
    pub barwait: Wire<In>,
    pub unit_full: Signal<In, Bit>,
    /// Operand read reads register-file rows this cycle (counted).
    pub opr_reading: Signal<In, Bit>,
    pub take_lsu: Signal<Out, Bit>,
    pub take_exe: Signal<Out, Bit>,
    pub take_opr: Signal<Out, Bit>,
    pub slot: Wire<Out>,
    pub busy: Signal<Out, Bit>,
    pub rf_we: Signal<Out, Bit>,
    pub rf_waddr: Wire<Out>,
    pub rf_wdata: Wire<Out>,
    pub rf_wbe: Wire<Out>,
    pub pred_we: Signal<Out, Bit>,
    pub pred_waddr: Wire<Out>,
    pub pred_wdata: Wire<Out>,
    pub pred_wbe: Wire<Out>,
    pub commit: Signal<Out, Bit>,
    pub c_next_pc: Wire<Out>,
    pub c_branch: Signal<Out, Bit>,
    pub c_taken: Wire<Out>,
    pub c_target: Wire<Out>,
    pub c_rpc: Wire<Out>,
    pub c_exit: Signal<Out, Bit>,
    pub retire: Signal<Out, Bit>,
    pub retire_bar: Signal<Out, Bit>,
    pub mem_cpl: Wire<Out>,
    pub ovf: Signal<Out, Bit>,
    pub dbar: Signal<Out, Bit>,
    pub ret_lanes: Wire<Out>,
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
    _d: Dims,
}

impl Writeback {
    pub fn new(d: &Dims) -> Writeback {
        let t32 = d.t * 32;
        Writeback {
            clock: Default::default(),
            reset: Default::default(),
            k_start: Default::default(),
            running: Default::default(),
            lsu_valid: Default::default(),
            lsu_pk: Wire::new(d.pk()),
            lsu_res: Wire::new(t32),
            st_addr: Wire::new(t32),
            st_data: Wire::new(t32),
            exe_valid: Default::default(),
            exe_pk: Wire::new(d.pk()),
            alu_res: Wire::new(t32),
            alu_pres: Wire::new(d.t),
            exe_preds: Wire::new(d.t * 8),
            opr_valid: Default::default(),
            opr_pk: Wire::new(d.pk()),
            rbase: Wire::new(d.rwb),
            cta_lin: Wire::new(32),
            wid: Wire::new(d.wib),
            live: Wire::new(d.t),
            overflow: Default::default(),
            issue_pop: Default::default(),
            lsu_busy: Default::default(),
            stages_busy: Wire::new(5),
            sched_issue: Default::default(),
            resident: Wire::new(d.w),
            inflight: Wire::new(d.w),
            barwait: Wire::new(d.w),
            unit_full: Default::default(),
            opr_reading: Default::default(),
            take_lsu: Default::default(),
            take_exe: Default::default(),
            take_opr: Default::default(),
            slot: Wire::new(d.sb),
            busy: Default::default(),
            rf_we: Default::default(),
            rf_waddr: Wire::new(d.rb),
            rf_wdata: Wire::new(d.l * 32),
            rf_wbe: Wire::new(d.l * 4),
            pred_we: Default::default(),
            pred_waddr: Wire::new(d.sb),
            pred_wdata: Wire::new(d.t * 8),
            pred_wbe: Wire::new(d.t),
            commit: Default::default(),
            c_next_pc: Wire::new(d.p),
            c_branch: Default::default(),
            c_taken: Wire::new(d.t),
            c_target: Wire::new(d.p),
            c_rpc: Wire::new(d.p),
            c_exit: Default::default(),
            retire: Default::default(),
            retire_bar: Default::default(),
            mem_cpl: Wire::new(d.w),
            ovf: Default::default(),
            dbar: Default::default(),
            ret_lanes: Wire::new(d.t),
            ret_valid: Default::default(),
            ret_cta: Wire::new(32),
            ret_warp: Wire::new(d.wib),
            ret_slot: Wire::new(d.sb),
            ret_pc: Wire::new(d.p),
            ret_mask: Wire::new(d.t),
            ret_exec: Wire::new(d.t),
            ret_rd_we: Default::default(),
            ret_rd: Wire::new(6),
            ret_pd_we: Default::default(),
            ret_pd: Wire::new(3),
            ret_values: Wire::new(t32),
            ret_pvalues: Wire::new(d.t),
            ret_st_we: Default::default(),
            ret_st_shared: Default::default(),
            ret_st_addr: Wire::new(t32),
            ret_st_data: Wire::new(t32),
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
            _d: d.clone(),
        }
    }
}

const BODY: &str = r#"
reg [#PK#-1:0] pk_q;
reg [#T#*32-1:0] val;
reg [#T#-1:0] pres_q;
reg [#T#*32-1:0] sa_q;
reg [#T#*32-1:0] sd_q;
reg [#T#*8-1:0] preds_q;
reg [1:0] st;
reg [#GB#:0] wg;
reg [#T#-1:0] split;
reg [6:0] pop_n;
reg [31:0] lanes_n;
reg [3:0] busy_n;
reg is_st;
reg is_sh;
reg accept;
reg [#PK#-1:0] n_pk;
reg [7:0] n_cls;
reg n_rf_we;
reg [#RB#-1:0] n_rf_waddr;
reg [#L#*32-1:0] n_rf_wdata;
reg [#L#*4-1:0] n_rf_wbe;
reg n_pred_we;
reg [#T#*8-1:0] n_pred_wdata;
integer i;

always @(*) begin
    // exit: every issue lane executes / some do.
    split = (u_exec != u_mask && u_exec != #T#'d0) ? u_exec : #T#'d0;
    is_st = (op == 7'd65) || (op == 7'd67) || (op >= 7'd72 && op <= 7'd76) || (op >= 7'd80 && op <= 7'd84);
    is_sh = (op == 7'd67) || (op >= 7'd80 && op <= 7'd84);
    slot = u_slot;
    busy = (st != 2'd0);
    // The row written this cycle; registered below, so the RAMs write it one cycle later.
    n_rf_we = (st == 2'd1);
    n_rf_waddr = (rbase + rd) * #G# + wg;
    n_rf_wdata = val[wg*#L#*32 +: #L#*32];
    for (i = 0; i < #L#; i = i + 1) n_rf_wbe[i*4 +: 4] = u_exec[wg*#L# + i] ? 4'hf : 4'h0;
    n_pred_we = (st == 2'd2);
    for (i = 0; i < #T#; i = i + 1) begin
        n_pred_wdata[i*8 +: 8] = preds_q[i*8 +: 8];
        n_pred_wdata[i*8 + rd[2:0]] = pres_q[i];
    end
    commit = (st == 2'd3);
    c_next_pc = u_pc + 1'b1;
    c_branch = f_bra || (f_exit && split != #T#'d0);
    c_taken = f_exit ? split : u_exec;
    c_target = f_bra ? imm[#P#-1:0] : u_pc;
    c_rpc = f_bra ? imm[16 +: #P#] : {#P#{1'b1}};
    c_exit = f_exit && (u_exec == u_mask);
end

// Reads the stack's combinational `overflow`: a process of its own.
always @(*) begin
    // A bar.sync issued to fewer than the warp's live lanes: the others are parked on the
    // stack and can never arrive.
    dbar = (st == 2'd3) && f_bar && (u_mask != live);
    retire = (st == 2'd3) && !overflow && !dbar;
    retire_bar = f_bar;
    ret_lanes = u_mask;
    ovf = (st == 2'd3) && overflow;
    mem_cpl = #W#'d0;
    if (retire && f_mem) mem_cpl[u_slot] = 1'b1;
    pop_n = 7'd0;
    for (i = 0; i < #T#; i = i + 1) pop_n = pop_n + u_exec[i];
    lanes_n = {25'd0, pop_n};
    // The next instruction: memory first, then execute, then operand read's control ones.
    accept = (st == 2'd0) || retire;
    take_lsu = accept && lsu_valid;
    take_exe = accept && !lsu_valid && exe_valid;
    take_opr = accept && !lsu_valid && !exe_valid && opr_valid;
    n_pk = take_lsu ? lsu_pk : (take_exe ? exe_pk : opr_pk);
    n_cls = op_class(n_pk[6:0]);
    busy_n = {3'd0, stages_busy[0]} + stages_busy[1] + stages_busy[2] + stages_busy[3] + stages_busy[4];
end

always @(posedge clock) begin
    if (reset) begin
        pk_q <= 0;
        val <= 0;
        pres_q <= 0;
        sa_q <= 0;
        sd_q <= 0;
        preds_q <= 0;
        st <= 2'd0;
        wg <= 0;
        rf_we <= 1'b0;
        rf_waddr <= 0;
        rf_wdata <= 0;
        rf_wbe <= 0;
        pred_we <= 1'b0;
        pred_waddr <= 0;
        pred_wdata <= 0;
        pred_wbe <= 0;
        ret_valid <= 1'b0;
        ret_cta <= 0;
        ret_warp <= 0;
        ret_slot <= 0;
        ret_pc <= 0;
        ret_mask <= 0;
        ret_exec <= 0;
        ret_rd_we <= 1'b0;
        ret_rd <= 6'd0;
        ret_pd_we <= 1'b0;
        ret_pd <= 3'd0;
        ret_values <= 0;
        ret_pvalues <= 0;
        ret_st_we <= 1'b0;
        ret_st_shared <= 1'b0;
        ret_st_addr <= 0;
        ret_st_data <= 0;
        ret_clock <= 32'd0;
        cnt_cycles <= 32'd0;
        cnt_issued <= 32'd0;
        cnt_lanes <= 32'd0;
        cnt_stall_sb <= 32'd0;
        cnt_stall_mem <= 32'd0;
        cnt_stall_bar <= 32'd0;
        cnt_stall_idle <= 32'd0;
        cnt_overlap <= 32'd0;
        cnt_opr_read <= 32'd0;
    end else begin
        ret_valid <= 1'b0;
        // The RF and predicate writes, one cycle after the stage decides them: the last row
        // is written in the retiring cycle, before the warp can issue again (docs/sm.md,
        // "Timing"), so operand read never reads a row still to be written.
        rf_we <= n_rf_we;
        rf_waddr <= n_rf_waddr;
        rf_wdata <= n_rf_wdata;
        rf_wbe <= n_rf_wbe;
        pred_we <= n_pred_we;
        pred_waddr <= u_slot;
        pred_wdata <= n_pred_wdata;
        pred_wbe <= u_exec;
        case (st)
        2'd1: begin
            wg <= wg + 1'b1;
            if (wg == #G# - 1) st <= 2'd3;
        end
        2'd2: st <= 2'd3;
        2'd3: if (retire) begin
            st <= 2'd0;
            ret_valid <= 1'b1;
            ret_cta <= cta_lin;
            ret_warp <= wid;
            ret_slot <= u_slot;
            ret_pc <= u_pc;
            ret_mask <= (f_exit && split != #T#'d0) ? (u_mask & ~u_exec) : u_mask;
            ret_exec <= (f_exit && split != #T#'d0) ? #T#'d0 : u_exec;
            ret_rd_we <= f_wrd;
            ret_rd <= rd;
            ret_pd_we <= f_wpd;
            ret_pd <= rd[2:0];
            ret_values <= val;
            ret_pvalues <= pres_q & u_exec;
            ret_st_we <= is_st;
            ret_st_shared <= is_sh;
            for (i = 0; i < #T#; i = i + 1) begin
                ret_st_addr[i*32 +: 32] <= (is_st && u_exec[i]) ? sa_q[i*32 +: 32] : 32'd0;
                ret_st_data[i*32 +: 32] <= (is_st && u_exec[i]) ? sd_q[i*32 +: 32] : 32'd0;
            end
            ret_clock <= u_clk;
        end
        default: ;
        endcase
        // Take the next instruction (overrides the state change above).
        if (take_lsu || take_exe || take_opr) begin
            pk_q <= n_pk;
            wg <= 0;
            st <= n_cls[3] ? 2'd1 : (n_cls[1] ? 2'd2 : 2'd3);
            for (i = 0; i < #T#; i = i + 1) begin
                val[i*32 +: 32] <= !n_pk[#O_EXEC# + i] ? 32'd0
                    : (take_lsu ? lsu_res[i*32 +: 32] : (take_exe ? alu_res[i*32 +: 32] : 32'd0));
            end
            pres_q <= take_exe ? alu_pres : #T#'d0;
            preds_q <= exe_preds;
            sa_q <= st_addr;
            sd_q <= st_data;
        end
        // Counters.
        if (k_start) begin
            cnt_cycles <= 32'd0;
            cnt_issued <= 32'd0;
            cnt_lanes <= 32'd0;
            cnt_stall_sb <= 32'd0;
            cnt_stall_mem <= 32'd0;
            cnt_stall_bar <= 32'd0;
            cnt_stall_idle <= 32'd0;
            cnt_overlap <= 32'd0;
            cnt_opr_read <= 32'd0;
        end else if (running) begin
            cnt_cycles <= cnt_cycles + 1'b1;
            if (issue_pop) cnt_issued <= cnt_issued + 1'b1;
            if (retire && !(f_exit && split != #T#'d0)) cnt_lanes <= cnt_lanes + lanes_n;
            if (busy_n >= 4'd2) cnt_overlap <= cnt_overlap + 1'b1;
            if (opr_reading) cnt_opr_read <= cnt_opr_read + 1'b1;
            if (!sched_issue) begin
                if (resident != #W#'d0 && (resident & ~barwait) == #W#'d0)
                    cnt_stall_bar <= cnt_stall_bar + 1'b1;
                else if (lsu_busy)
                    cnt_stall_mem <= cnt_stall_mem + 1'b1;
                else if ((resident & inflight) != #W#'d0 || unit_full)
                    cnt_stall_sb <= cnt_stall_sb + 1'b1;
                else
                    cnt_stall_idle <= cnt_stall_idle + 1'b1;
            end
        end
    end
end
"#;

impl Logic for Writeback {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.rf_we.connect();
        self.rf_waddr.connect();
        self.rf_wdata.connect();
        self.rf_wbe.connect();
        self.pred_we.connect();
        self.pred_waddr.connect();
        self.pred_wdata.connect();
        self.pred_wbe.connect();
        self.commit.connect();
        self.c_next_pc.connect();
        self.c_branch.connect();
        self.c_taken.connect();
        self.c_target.connect();
        self.c_rpc.connect();
        self.c_exit.connect();
        self.retire.connect();
        self.retire_bar.connect();
        self.mem_cpl.connect();
        self.ovf.connect();
        self.dbar.connect();
        self.ret_lanes.connect();
        self.take_lsu.connect();
        self.take_exe.connect();
        self.take_opr.connect();
        self.slot.connect();
        self.busy.connect();
        self.ret_valid.connect();
        self.ret_cta.connect();
        self.ret_warp.connect();
        self.ret_slot.connect();
        self.ret_pc.connect();
        self.ret_mask.connect();
        self.ret_exec.connect();
        self.ret_rd_we.connect();
        self.ret_rd.connect();
        self.ret_pd_we.connect();
        self.ret_pd.connect();
        self.ret_values.connect();
        self.ret_pvalues.connect();
        self.ret_st_we.connect();
        self.ret_st_shared.connect();
        self.ret_st_addr.connect();
        self.ret_st_data.connect();
        self.ret_clock.connect();
        self.cnt_cycles.connect();
        self.cnt_issued.connect();
        self.cnt_lanes.connect();
        self.cnt_stall_sb.connect();
        self.cnt_stall_mem.connect();
        self.cnt_stall_bar.connect();
        self.cnt_stall_idle.connect();
        self.cnt_overlap.connect();
        self.cnt_opr_read.connect();
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        let mut vars = d.pk_vars();
        vars.extend([
            ("GB", d.gb),
            ("G", d.g),
            ("L", d.l),
            ("W", d.w),
            ("RB", d.rb),
        ]);
        Verilog::Custom(tpl(&format!("{PK_UNPACK}{BODY}"), &vars))
    }
}
