// The SM's top-level glue (included by `mod.rs`): every submodule input driven once, the
// table RAMs' ports shared between the stages, the sticky status and the `%clock` counter.

const GLUE: &str = r#"
reg done_q;
reg fault_q;
reg [2:0] code_q;
reg [31:0] cyc;
reg [#CB#-1:0] opr_cta;
reg [#CB#-1:0] lsu_cta;
reg [#CB#-1:0] wb_cta;
reg h_id;
reg h_ex;
reg h_ls;

// The CTA slot of each stage's warp, and the hand-overs between the stages: decode →
// operand read → execute (ALU formats) | memory (LD/ST formats) | writeback (the rest);
// writeback takes from memory, execute and operand read itself (`wb$take_*`).
always @(*) begin
    opr_cta = disp$w_cta[opr$slot*#CB# +: #CB#];
    lsu_cta = disp$w_cta[lsu$slot*#CB# +: #CB#];
    wb_cta = disp$w_cta[wb$slot*#CB# +: #CB#];
end

always @(*) h_ex = opr$o_valid && opr$o_alu && exe$ready;
always @(*) h_ls = opr$o_valid && opr$o_mem && lsu$ready;
always @(*) h_id = dec$o_valid && opr$ready;
// Hand-over strobes, each a process of its own (they close paths through the stages' ready).
always @(*) dec$take = h_id;
always @(*) opr$start = h_id;
always @(*) opr$take = h_ex || h_ls || wb$take_opr;
always @(*) exe$start = h_ex;
always @(*) exe$take = wb$take_exe;
always @(*) lsu$start = h_ls;
always @(*) lsu$take = wb$take_lsu;

always @(*) begin
    // CTA dispatch.
    disp$clock = clock;
    disp$reset = reset;
    disp$start = start;
    disp$k_regs = k_regs;
    disp$k_shared_words = k_shared_words;
    disp$k_grid_x = k_grid_x;
    disp$k_grid_y = k_grid_y;
    disp$k_grid_z = k_grid_z;
    disp$k_block_x = k_block_x;
    disp$k_block_y = k_block_y;
    disp$k_block_z = k_block_z;
    disp$empty = reconv$empty;
    disp$rf_busy = wb$rf_we;
    disp$sh_busy = lsu$sh_we;
    disp$pred_busy = wb$pred_we;
end

always @(*) begin
    // Scoreboard.
    sb$clock = clock;
    sb$reset = reset;
    sb$resident = disp$resident;
    sb$launch = disp$launch;
    sb$empty = reconv$empty;
    sb$issued = sched$issued;
    sb$fetch_start = fetch$fetch_start;
    sb$fetch_slot = fetch$fetch_slot;
    sb$fetch_done = fetch$fetch_done;
    sb$done_slot = fetch$done_slot;
    sb$done_mem = fetch$done_mem;
    sb$done_bar = fetch$done_bar;
    sb$retire = wb$retire;
    sb$retire_slot = wb$slot;
    sb$retire_bar = wb$retire_bar;
    sb$retire_exit = wb$c_exit;
    sb$retire_mask = wb$ret_lanes;
    sb$launch_mask = disp$launch_mask;
    sb$w_cta = disp$w_cta;
    sb$c_live = disp$c_live;
end

always @(*) begin
    // Warp select.
    sched$clock = clock;
    sched$reset = reset;
    sched$has_inst = sb$has_inst;
    sched$ready = sb$ready;
    sched$is_mem = sb$is_mem;
    sched$is_bar = sb$is_bar;
    sched$launch = disp$launch;
    sched$exit = disp$finish;
    sched$launch_cta = disp$launch_cta;
    sched$mem_complete = wb$mem_cpl;
    sched$pop = dec$pop;
end

always @(*) begin
    // Fetch.
    fetch$clock = clock;
    fetch$reset = reset;
    fetch$imem_we = imem_we;
    fetch$imem_addr = imem_addr;
    fetch$imem_wdata = imem_wdata;
    fetch$fetch_need = sb$fetch_need;
    fetch$pcs = reconv$pc;
    fetch$ib_re = dec$ib_re;
    fetch$ib_raddr = dec$ib_raddr;
end

always @(*) begin
    // Decode and sequencing.
    dec$clock = clock;
    dec$reset = reset;
    dec$halt = fault_q;
    dec$q_valid = sched$q_valid;
    dec$q_slot = sched$q_slot;
    dec$ib_rdata = fetch$ib_rdata;
    dec$pcs = reconv$pc;
    dec$masks = reconv$mask;
end

always @(*) begin
    // Operand read.
    opr$clock = clock;
    opr$reset = reset;
    opr$in_pk = dec$pk;
    opr$rbase = disp$w_rbase[opr$slot*#RWB# +: #RWB#];
    opr$warpid = disp$w_wid[opr$slot*#WIB# +: #WIB#];
    opr$ctaid = disp$c_ctaid[opr_cta*48 +: 48];
    opr$k_block_x = k_block_x;
    opr$k_block_y = k_block_y;
    opr$k_block_z = k_block_z;
    opr$k_grid_x = k_grid_x;
    opr$k_grid_y = k_grid_y;
    opr$k_grid_z = k_grid_z;
    opr$clock_cnt = cyc;
    opr$rf_rdata = rf$rdata;
    opr$tid_rdata = tid$rdata;
    opr$pred_rdata = pred$rdata;
end

always @(*) begin
    // Execute.
    exe$clock = clock;
    exe$reset = reset;
    exe$in_pk = opr$pk;
    exe$opa = opr$opa;
    exe$opb = opr$opb;
    exe$opc = opr$opc;
    exe$preds = opr$preds;
end

always @(*) begin
    // Memory.
    lsu$clock = clock;
    lsu$reset = reset;
    lsu$in_pk = opr$pk;
    lsu$opa = opr$opa;
    lsu$opb = opr$opb;
    lsu$opc = opr$opc;
    lsu$shbase = disp$c_shbase[lsu_cta*#SHB# +: #SHB#];
    lsu$param_we = param_we;
    lsu$param_addr = param_addr;
    lsu$param_wdata = param_wdata;
    lsu$mreq_ready = mreq_ready;
    lsu$mresp_valid = mresp_valid;
    lsu$mresp_data = mresp_data;
    lsu$sh_rdata = shmem$rdata;
end

always @(*) begin
    // Writeback.
    wb$clock = clock;
    wb$reset = reset;
    wb$k_start = start;
    wb$running = disp$running;
    wb$lsu_valid = lsu$o_valid;
    wb$lsu_pk = lsu$pk;
    wb$lsu_res = lsu$result;
    wb$st_addr = lsu$st_addr;
    wb$st_data = lsu$st_data;
    wb$exe_valid = exe$o_valid;
    wb$exe_pk = exe$pk;
    wb$alu_res = exe$result;
    wb$alu_pres = exe$presult;
    wb$exe_preds = exe$preds_out;
    wb$opr_valid = opr$o_valid && !opr$o_alu && !opr$o_mem;
    wb$opr_pk = opr$pk;
    wb$rbase = disp$w_rbase[wb$slot*#RWB# +: #RWB#];
    wb$cta_lin = disp$c_lin[wb_cta*32 +: 32];
    wb$wid = disp$w_wid[wb$slot*#WIB# +: #WIB#];
    wb$live = sb$live[wb$slot*#T# +: #T#];
    wb$overflow = reconv$overflow;
    wb$issue_pop = dec$pop;
    wb$lsu_busy = lsu$busy;
    wb$stages_busy = {wb$busy, lsu$busy, exe$busy, opr$busy, dec$busy};
    wb$sched_issue = (sched$issued != #W#'d0);
    wb$resident = disp$resident;
    wb$inflight = sb$inflight;
    wb$barwait = sb$barwait;
    wb$unit_full = sched$unit_full;
    wb$opr_reading = opr$rf_re;
end

always @(*) begin
    // Reconvergence.
    reconv$clock = clock;
    reconv$reset = reset;
    reconv$launch = disp$launch;
    reconv$launch_mask = disp$launch_mask;
    reconv$commit = wb$commit;
    reconv$c_slot = wb$slot;
    reconv$c_next_pc = wb$c_next_pc;
    reconv$c_branch = wb$c_branch;
    reconv$c_taken = wb$c_taken;
    reconv$c_target = wb$c_target;
    reconv$c_rpc = wb$c_rpc;
    reconv$c_exit = wb$c_exit;
end

always @(*) begin
    // Register file: writeback first, the dispatcher's zeroing when it is free.
    rf$clock = clock;
    rf$we = wb$rf_we || disp$rf_we;
    rf$waddr = wb$rf_we ? wb$rf_waddr : disp$rf_waddr;
    rf$wdata = wb$rf_we ? wb$rf_wdata : #L32#'d0;
    rf$wbe = wb$rf_we ? wb$rf_wbe : {#L4#{1'b1}};
    rf$re = opr$rf_re;
    rf$raddr = opr$rf_raddr;
end

always @(*) begin
    // Predicates.
    pred$clock = clock;
    pred$we = wb$pred_we || disp$pred_we;
    pred$waddr = wb$pred_we ? wb$pred_waddr : disp$pred_waddr;
    pred$wdata = wb$pred_we ? wb$pred_wdata : #T8#'d0;
    pred$wbe = wb$pred_we ? wb$pred_wbe : {#T#{1'b1}};
    pred$re = opr$pred_re;
    pred$raddr = opr$pred_raddr;
end

always @(*) begin
    // Special-register table.
    tid$clock = clock;
    tid$we = disp$tid_we;
    tid$wbe = 1'b1;
    tid$waddr = disp$tid_waddr;
    tid$wdata = disp$tid_wdata;
    tid$re = opr$tid_re;
    tid$raddr = opr$tid_raddr;
end

always @(*) begin
    // Shared memory.
    shmem$clock = clock;
    shmem$we = lsu$sh_we || disp$sh_we;
    shmem$waddr = lsu$sh_we ? lsu$sh_waddr : disp$sh_waddr;
    shmem$wdata = lsu$sh_we ? lsu$sh_wdata : 32'd0;
    shmem$wbe = 1'b1;
    shmem$re = lsu$sh_re;
    shmem$raddr = lsu$sh_raddr;
end

always @(*) begin
    // Outputs.
    mreq_valid = lsu$mreq_valid;
    mreq_op = lsu$mreq_op;
    mreq_addr = lsu$mreq_addr;
    mreq_wdata = lsu$mreq_wdata;
    mreq_wmask = lsu$mreq_wmask;
    busy = disp$running && !fault_q;
    done = done_q;
    fault = fault_q;
    fault_code = code_q;
    ret_valid = wb$ret_valid;
    ret_cta = wb$ret_cta;
    ret_warp = wb$ret_warp;
    ret_slot = wb$ret_slot;
    ret_pc = wb$ret_pc;
    ret_mask = wb$ret_mask;
    ret_exec = wb$ret_exec;
    ret_rd_we = wb$ret_rd_we;
    ret_rd = wb$ret_rd;
    ret_pd_we = wb$ret_pd_we;
    ret_pd = wb$ret_pd;
    ret_values = wb$ret_values;
    ret_pvalues = wb$ret_pvalues;
    ret_st_we = wb$ret_st_we;
    ret_st_shared = wb$ret_st_shared;
    ret_st_addr = wb$ret_st_addr;
    ret_st_data = wb$ret_st_data;
    ret_clock = wb$ret_clock;
    cnt_cycles = wb$cnt_cycles;
    cnt_issued = wb$cnt_issued;
    cnt_lanes = wb$cnt_lanes;
    cnt_stall_sb = wb$cnt_stall_sb;
    cnt_stall_mem = wb$cnt_stall_mem;
    cnt_stall_bar = wb$cnt_stall_bar;
    cnt_stall_idle = wb$cnt_stall_idle;
    cnt_overlap = wb$cnt_overlap;
    cnt_opr_read = wb$cnt_opr_read;
end

always @(posedge clock) begin
    if (reset) begin
        done_q <= 1'b0;
        fault_q <= 1'b0;
        code_q <= 3'd0;
        cyc <= 32'd0;
    end else begin
        cyc <= start ? 32'd0 : cyc + 1'b1;
        if (start) done_q <= 1'b0;
        else if (disp$all_done && !fault_q) done_q <= 1'b1;
        if (!fault_q) begin
            if (wb$ovf) begin
                fault_q <= 1'b1;
                code_q <= 3'd1;
            end else if (fetch$pc_fault) begin
                fault_q <= 1'b1;
                code_q <= 3'd2;
            end else if (dec$bad) begin
                fault_q <= 1'b1;
                code_q <= 3'd3;
            end else if (wb$dbar) begin
                fault_q <= 1'b1;
                code_q <= 3'd4;
            end
        end
    end
end
"#;

impl Logic for Sm {
    fn update(&mut self) {}
    fn connect(&mut self) {}
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        Verilog::Custom(tpl(
            GLUE,
            &[
                ("CB", d.cb),
                ("RWB", d.rwb),
                ("WIB", d.wib),
                ("SHB", d.shb),
                ("W", d.w),
                ("L32", d.l * 32),
                ("L4", d.l * 4),
                ("T8", d.t * 8),
                ("T", d.t),
            ],
        ))
    }
}
