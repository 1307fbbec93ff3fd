//! RTL of dtm-tb, DTM@GPU's per-thread trace buffers (spec/dtm.md §2.4, §3.3, §3.4;
//! contract `warpforge_contract::units::dtm_tb`, normative).
//!
//! Storage: the buffer rows {start_pc, npc, len, ic, oc} in one RAM primitive (block RAM,
//! depth `pool` rounded up to a power of two); per thread the `active` bit, and with a
//! smaller pool its buffer index and the pool's free bits, in flip-flops.
//!
//! Pipeline: cycle t (stage 1) reads the thread's buffer row; t+1 (stage 2) applies the
//! formation rules to it and writes it back; the commit and the event status are registered
//! and visible at t+2. Two events of one thread in consecutive cycles: the second read its
//! row at the edge the first wrote it (read-first), so stage 2 takes the row from the write
//! bypass register instead.
//!
//! The body is a Verilog template filled from the configuration (unrolled per slot and
//! source), as in `dtm_mtt`.

use crate::primitives::{emit, Wire};
use crate::ram::Ram;
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::dtm_tb::{TbConfig, SRCS};
use warpforge_contract::units::ram::RamConfig;

#[derive(LogicBlock)]
pub struct Tb {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ev_valid: Signal<In, Bit>,
    pub ev_tid: Wire<In>,
    pub ev_kid: Wire<In>,
    pub ev_close: Signal<In, Bit>,
    pub ev_pc: Wire<In>,
    pub ev_src_v: Wire<In>,
    pub ev_src_rid: Wire<In>,
    pub ev_src_val: Wire<In>,
    pub ev_dst: Wire<In>,
    pub ev_res: Wire<In>,
    pub cm_valid: Signal<Out, Bit>,
    pub cm_kid: Wire<Out>,
    pub cm_pc: Wire<Out>,
    pub cm_npc: Wire<Out>,
    pub cm_len: Wire<Out>,
    pub cm_ic: Wire<Out>,
    pub cm_oc: Wire<Out>,
    pub st_valid: Signal<Out, Bit>,
    pub st_tid: Wire<Out>,
    pub st_len: Wire<Out>,
    pub st_nobuf: Signal<Out, Bit>,
    pub free_count: Wire<Out>,
    pub dbg_active: Wire<Out>,
    rows: Ram,
    _cfg: TbConfig,
}

impl Tb {
    pub fn new(cfg: &TbConfig) -> Tb {
        let (tb, kb, p, v, lb) = (
            cfg.tid_bits(),
            cfg.kid_bits,
            cfg.pc_bits,
            cfg.val_bits,
            cfg.len_bits(),
        );
        Tb {
            clock: Default::default(),
            reset: Default::default(),
            ev_valid: Default::default(),
            ev_tid: Wire::new(tb),
            ev_kid: Wire::new(kb),
            ev_close: Default::default(),
            ev_pc: Wire::new(p),
            ev_src_v: Wire::new(SRCS),
            ev_src_rid: Wire::new(SRCS * 9),
            ev_src_val: Wire::new(SRCS * v),
            ev_dst: Wire::new(9),
            ev_res: Wire::new(v),
            cm_valid: Default::default(),
            cm_kid: Wire::new(kb),
            cm_pc: Wire::new(p),
            cm_npc: Wire::new(p),
            cm_len: Wire::new(lb),
            cm_ic: Wire::new(cfg.ic_bits()),
            cm_oc: Wire::new(cfg.oc_bits()),
            st_valid: Default::default(),
            st_tid: Wire::new(tb),
            st_len: Wire::new(lb),
            st_nobuf: Default::default(),
            free_count: Wire::new(cfg.count_bits()),
            dbg_active: Wire::new(cfg.threads),
            rows: Ram::new(&RamConfig {
                depth: cfg.depth(),
                width: cfg.row_bits(),
                ports: 2,
                byte_write: false,
            }),
            _cfg: cfg.clone(),
        }
    }

    fn verilog(&self) -> String {
        let c = &self._cfg;
        let (t, np, tb, bb, kb, p, v, lb, ki, ko) = (
            c.threads,
            c.pool,
            c.tid_bits(),
            c.buf_bits(),
            c.kid_bits,
            c.pc_bits,
            c.val_bits,
            c.len_bits(),
            c.k_in,
            c.k_out,
        );
        let (rb, icb, ocb, sl, cb) = (
            c.row_bits(),
            c.ic_bits(),
            c.oc_bits(),
            c.slot_bits(),
            c.count_bits(),
        );
        let (o_npc, o_len, o_ic, o_oc) = (p, 2 * p, 2 * p + lb, 2 * p + lb + icb);
        let pooled = !c.per_thread();
        let cnt = 5; // width of small counters (≤ 16)
        let mut s = String::new();
        // State and stage-2 registers.
        s += &format!("reg [{}:0] act;\nreg [{}:0] nfree;\n", t - 1, cb - 1);
        if pooled {
            s += &format!("reg [{}:0] map;\nreg [{}:0] freev;\n", t * bb - 1, np - 1);
        }
        s += &format!(
            "reg s2_v;\nreg [{}:0] s2_tid;\nreg [{}:0] s2_kid;\nreg s2_close;\nreg [{}:0] s2_pc;\n\
             reg [2:0] s2_sv;\nreg [26:0] s2_rid;\nreg [{}:0] s2_val;\nreg [8:0] s2_dst;\nreg [{}:0] s2_res;\n\
             reg fw_v;\nreg [{}:0] fw_buf;\nreg [{}:0] fw_row;\n",
            tb - 1,
            kb - 1,
            p - 1,
            3 * v - 1,
            v - 1,
            bb - 1,
            rb - 1
        );
        // Stage 1: the thread's buffer.
        let rd_buf = if pooled {
            format!("map[ev_tid * {bb} +: {bb}]")
        } else {
            "ev_tid".to_string()
        };
        // Stage 2: the current buffer and its row.
        let cur_buf = if pooled {
            format!("map[s2_tid * {bb} +: {bb}]")
        } else {
            "s2_tid".to_string()
        };
        s += &format!(
            "wire cur_act = act[s2_tid];\nwire [{bbm}:0] cur_buf = {cur_buf};\n\
             wire [{rbm}:0] row = (fw_v && fw_buf == cur_buf) ? fw_row : rows$rdata;\n\
             wire [{pm}:0] b_spc = row[0 +: {p}];\nwire [{pm}:0] b_npc = row[{o_npc} +: {p}];\n\
             wire [{lbm}:0] b_len = row[{o_len} +: {lb}];\nwire [{icm}:0] b_ic = row[{o_ic} +: {icb}];\n\
             wire [{ocm}:0] b_oc = row[{o_oc} +: {ocb}];\n",
            bbm = bb - 1,
            rbm = rb - 1,
            pm = p - 1,
            lbm = lb - 1,
            icm = icb - 1,
            ocm = ocb - 1,
        );
        // The lowest free pool buffer.
        if pooled {
            s += &format!(
                "reg any_free;\nreg [{}:0] lf;\ninteger j;\nalways @(*) begin\n    any_free = 1'b0;\n    lf = 0;\n    \
                 for (j = {}; j >= 0; j = j - 1) if (freev[j]) begin any_free = 1'b1; lf = j; end\nend\n",
                bb - 1,
                np - 1
            );
        } else {
            s += "wire any_free = 1'b1;\n";
            s += &format!("wire [{}:0] lf = s2_tid;\n", bb - 1);
        }
        // The formation rules.
        s += &format!(
            "reg disc;\nreg have;\nreg fresh;\nreg ovf;\nreg toobig;\nreg nobuf;\nreg appended;\nreg res_act;\n\
             reg commit_old;\nreg commit_new;\nreg [{cm}:0] ic_n;\nreg [{cm}:0] oc_n;\nreg [{cm}:0] n_new;\nreg [{cm}:0] n_f;\n\
             reg [2:0] dup;\nreg [2:0] in_ic;\nreg [2:0] in_oc;\nreg [2:0] nw;\nreg [2:0] nf;\nreg d_in_oc;\nreg [{cm}:0] d_slot;\n\
             reg [{cm}:0] pos0;\nreg [{cm}:0] pos1;\nreg [{cm}:0] pos2;\n\
             reg [{icm}:0] n_ic;\nreg [{ocm}:0] n_oc;\nreg [{lbm}:0] n_len;\nreg [{pm}:0] n_spc;\nreg [{pm}:0] n_npc;\n\
             reg [{bbm}:0] buf_w;\nreg [{rbm}:0] n_row;\n",
            cm = cnt - 1,
            icm = icb - 1,
            ocm = ocb - 1,
            lbm = lb - 1,
            pm = p - 1,
            bbm = bb - 1,
            rbm = rb - 1,
        );
        s += "always @(*) begin\n";
        s += "    disc = !s2_close && cur_act && b_npc != s2_pc;\n    have = !s2_close && cur_act && !disc;\n";
        // Base counts (valid slots are a prefix).
        s += "    ic_n = 0;\n    oc_n = 0;\n";
        for k in 0..ki {
            s += &format!("    if (have && b_ic[{}]) ic_n = {k} + 1;\n", k * sl);
        }
        for k in 0..ko {
            s += &format!("    if (have && b_oc[{}]) oc_n = {k} + 1;\n", k * sl);
        }
        for j in 0..SRCS {
            s += &format!("    dup[{j}] = 1'b0;\n    in_ic[{j}] = 1'b0;\n    in_oc[{j}] = 1'b0;\n");
            for jj in 0..j {
                s += &format!(
                    "    if (s2_sv[{jj}] && s2_rid[{} +: 9] == s2_rid[{} +: 9]) dup[{j}] = 1'b1;\n",
                    jj * 9,
                    j * 9
                );
            }
            for k in 0..ki {
                s += &format!(
                    "    if (have && b_ic[{}] && b_ic[{} +: 9] == s2_rid[{} +: 9]) in_ic[{j}] = 1'b1;\n",
                    k * sl,
                    k * sl + 1,
                    j * 9
                );
            }
            for k in 0..ko {
                s += &format!(
                    "    if (have && b_oc[{}] && b_oc[{} +: 9] == s2_rid[{} +: 9]) in_oc[{j}] = 1'b1;\n",
                    k * sl,
                    k * sl + 1,
                    j * 9
                );
            }
            s += &format!(
                "    nf[{j}] = s2_sv[{j}] && !dup[{j}];\n    nw[{j}] = nf[{j}] && !in_ic[{j}] && !in_oc[{j}];\n"
            );
        }
        s += "    d_in_oc = 1'b0;\n    d_slot = 0;\n";
        for k in 0..ko {
            s += &format!(
                "    if (have && b_oc[{}] && b_oc[{} +: 9] == s2_dst) begin d_in_oc = 1'b1; d_slot = {k}; end\n",
                k * sl,
                k * sl + 1
            );
        }
        s += &format!(
            "    n_new = nw[0] + nw[1] + nw[2];\n    n_f = nf[0] + nf[1] + nf[2];\n\
             \x20   ovf = have && (ic_n + n_new > {ki} || (!d_in_oc && oc_n + 1 > {ko}));\n\
             \x20   fresh = !s2_close && (!have || ovf);\n\
             \x20   toobig = fresh && n_f > {ki};\n\
             \x20   nobuf = !s2_close && !cur_act && !any_free;\n\
             \x20   appended = !s2_close && !toobig && !nobuf;\n\
             \x20   commit_old = cur_act && b_len >= 2 && (s2_close || disc || ovf);\n"
        );
        // The appended buffer: fresh (empty base) or continued.
        s += &format!(
            "    n_spc = have && !ovf ? b_spc : s2_pc;\n    n_npc = s2_pc + {isz};\n\
             \x20   n_len = (have && !ovf) ? b_len + 1'b1 : 1;\n\
             \x20   n_ic = (have && !ovf) ? b_ic : 0;\n    n_oc = (have && !ovf) ? b_oc : 0;\n",
            isz = c.isz
        );
        // Input slots: new sources in order after the existing ones.
        s += "    if (have && !ovf) begin\n        pos0 = ic_n;\n        pos1 = ic_n + nw[0];\n        pos2 = ic_n + nw[0] + nw[1];\n";
        s += &slot_writes(ki, sl, v, "nw");
        s += "    end else begin\n        pos0 = 0;\n        pos1 = nf[0];\n        pos2 = nf[0] + nf[1];\n";
        s += &slot_writes(ki, sl, v, "nf");
        s += "    end\n";
        // The output slot.
        for k in 0..ko {
            s += &format!(
                "    if ((have && !ovf && d_in_oc) ? (d_slot == {k}) : ((have && !ovf ? oc_n : 0) == {k})) n_oc[{} +: {sl}] = {{s2_res, s2_dst, 1'b1}};\n",
                k * sl
            );
        }
        s += &format!(
            "    commit_new = appended && n_len == {};\n    res_act = appended && !commit_new;\n",
            c.l_max
        );
        s += "    buf_w = cur_act ? cur_buf : lf;\n    n_row = {n_oc, n_ic, n_len, n_npc, n_spc};\nend\n";
        // RAM ports.
        s += &format!(
            "always @(*) begin\n    rows$clock = clock;\n    rows$re = ev_valid;\n    rows$raddr = {rd_buf};\n    \
             rows$we = s2_v && res_act;\n    rows$waddr = buf_w;\n    rows$wdata = n_row;\n    rows$wbe = 1'b1;\nend\n"
        );
        // Clocked state.
        s += &format!(
            "always @(posedge clock) begin\n    if (reset) begin\n        act <= 0;\n        nfree <= {cb}'d{np};\n{}        \
             s2_v <= 1'b0;\n        fw_v <= 1'b0;\n        cm_valid <= 1'b0;\n        cm_kid <= 0;\n        cm_pc <= 0;\n        \
             cm_npc <= 0;\n        cm_len <= 0;\n        cm_ic <= 0;\n        cm_oc <= 0;\n        st_valid <= 1'b0;\n        \
             st_tid <= 0;\n        st_len <= 0;\n        st_nobuf <= 1'b0;\n    end else begin\n",
            if pooled {
                format!("        freev <= {{{np}{{1'b1}}}};\n")
            } else {
                String::new()
            }
        );
        s += "        s2_v <= ev_valid;\n        s2_tid <= ev_tid;\n        s2_kid <= ev_kid;\n        s2_close <= ev_close;\n        s2_pc <= ev_pc;\n        s2_sv <= ev_src_v;\n        s2_rid <= ev_src_rid;\n        s2_val <= ev_src_val;\n        s2_dst <= ev_dst;\n        s2_res <= ev_res;\n";
        s += "        fw_v <= s2_v && res_act;\n        fw_buf <= buf_w;\n        fw_row <= n_row;\n";
        s += "        if (s2_v) begin\n            act[s2_tid] <= res_act;\n";
        s += "            if (cur_act && !res_act) nfree <= nfree + 1'b1;\n            if (!cur_act && res_act) nfree <= nfree - 1'b1;\n";
        if pooled {
            s += &format!(
                "            if (cur_act && !res_act) freev[cur_buf] <= 1'b1;\n            \
                 if (!cur_act && res_act) begin freev[lf] <= 1'b0; map[s2_tid * {bb} +: {bb}] <= lf; end\n"
            );
        }
        s += "        end\n";
        s += &format!(
            "        cm_valid <= s2_v && (commit_old || commit_new);\n        cm_kid <= (s2_v && (commit_old || commit_new)) ? s2_kid : {kb}'d0;\n\
             \x20       cm_pc <= !s2_v ? {p}'d0 : commit_old ? b_spc : commit_new ? n_spc : {p}'d0;\n\
             \x20       cm_npc <= !s2_v ? {p}'d0 : commit_old ? b_npc : commit_new ? n_npc : {p}'d0;\n\
             \x20       cm_len <= !s2_v ? {lb}'d0 : commit_old ? b_len : commit_new ? n_len : {lb}'d0;\n\
             \x20       cm_ic <= !s2_v ? {icb}'d0 : commit_old ? b_ic : commit_new ? n_ic : {icb}'d0;\n\
             \x20       cm_oc <= !s2_v ? {ocb}'d0 : commit_old ? b_oc : commit_new ? n_oc : {ocb}'d0;\n\
             \x20       st_valid <= s2_v;\n        st_tid <= s2_v ? s2_tid : {tb}'d0;\n\
             \x20       st_len <= (s2_v && res_act) ? n_len : {lb}'d0;\n        st_nobuf <= s2_v && nobuf;\n    end\nend\n"
        );
        s += "always @(*) begin\n    free_count = nfree;\n    dbg_active = act;\nend\n";
        let _ = t;
        s
    }
}

/// The input-slot writes of an append: source j goes to slot pos_j when `flag[j]`.
fn slot_writes(ki: usize, sl: usize, v: usize, flag: &str) -> String {
    let mut s = String::new();
    for j in 0..SRCS {
        for k in 0..ki {
            s += &format!(
                "        if ({flag}[{j}] && pos{j} == {k}) n_ic[{} +: {sl}] = {{s2_val[{} +: {v}], s2_rid[{} +: 9], 1'b1}};\n",
                k * sl,
                j * v,
                j * 9
            );
        }
    }
    s
}

impl Logic for Tb {
    fn update(&mut self) {}
    fn connect(&mut self) {
        for o in [
            &mut self.cm_kid,
            &mut self.cm_pc,
            &mut self.cm_npc,
            &mut self.cm_len,
            &mut self.cm_ic,
            &mut self.cm_oc,
            &mut self.st_tid,
            &mut self.st_len,
            &mut self.free_count,
            &mut self.dbg_active,
        ] {
            o.connect();
        }
        self.cm_valid.connect();
        self.st_valid.connect();
        self.st_nobuf.connect();
        let r = &mut self.rows;
        r.clock.connect();
        r.we.connect();
        r.wbe.connect();
        r.waddr.connect();
        r.wdata.connect();
        r.re.connect();
        r.raddr.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(self.verilog())
    }
}

/// Verilog of one dtm-tb configuration.
pub fn generate(cfg: &TbConfig) -> Design {
    let mut block = Tb::new(cfg);
    emit(&mut block, &cfg.module_name())
}
