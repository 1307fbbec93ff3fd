//! RTL of `dtm`, DTM@GPU's top (spec/dtm.md §3.5; contract
//! `warpforge_contract::units::dtm_top`, normative): the `dtm-mtg`, `dtm-mtt` and `dtm-tb`
//! blocks instantiated unchanged, and a sequencer that runs one warp instruction at a time
//! through them (MTT test per lane, grouping by the leader's `npc`, MTG lookup, response,
//! writeback, MTG upsert, trace-buffer events, drain; kernel retire).
//!
//! The glue is a Verilog template filled from the configuration (unrolled per lane), as in
//! the three blocks; rust-hdl cannot see its drivers of the blocks' inputs, so the design
//! is emitted unchecked and linted by Verilator and Yosys.

use crate::dtm_mtg::Mtg;
use crate::dtm_mtt::Mtt;
use crate::dtm_tb::Tb;
use crate::primitives::{emit_glued, Wire};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::dtm_mtt::RID_BITS;
use warpforge_contract::units::dtm_top::{state::*, DtmConfig};

#[derive(LogicBlock)]
pub struct Dtm {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rq_valid: Signal<In, Bit>,
    pub rq_warp: Wire<In>,
    pub rq_kid: Wire<In>,
    pub rq_pc: Wire<In>,
    pub rq_act: Wire<In>,
    pub rq_elig: Signal<In, Bit>,
    pub rq_guard: Wire<In>,
    pub rq_sv1: Wire<In>,
    pub rq_sv2: Wire<In>,
    pub rq_sv3: Wire<In>,
    pub rq_uid: Wire<In>,
    pub rq_src_v: Wire<In>,
    pub rq_src_rid: Wire<In>,
    pub rq_dst: Wire<In>,
    pub rf_val: Wire<In>,
    pub wb_valid: Signal<In, Bit>,
    pub wb_res: Wire<In>,
    pub ret_valid: Signal<In, Bit>,
    pub ret_all: Signal<In, Bit>,
    pub ret_kid: Wire<In>,
    pub rq_ready: Signal<Out, Bit>,
    pub rf_valid: Signal<Out, Bit>,
    pub rf_lane: Wire<Out>,
    pub rf_cand: Wire<Out>,
    pub rf_rid: Wire<Out>,
    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_trace: Wire<Out>,
    pub rsp_full: Signal<Out, Bit>,
    pub rsp_npc: Wire<Out>,
    pub rsp_len: Wire<Out>,
    pub rsp_oc: Wire<Out>,
    pub rsp_hit: Wire<Out>,
    pub rsp_inter: Wire<Out>,
    pub rsp_res: Wire<Out>,
    pub rsp_exec: Wire<Out>,
    pub rsp_bypass: Signal<Out, Bit>,
    pub rsp_skip: Wire<Out>,
    pub rsp_resume: Wire<Out>,
    pub wb_ready: Signal<Out, Bit>,
    pub dbg_state: Wire<Out>,
    pub dbg_mtg_rsp: Wire<Out>,
    pub dbg_mtg_way: Wire<Out>,
    pub dbg_mtt: Wire<Out>,
    pub dbg_tb: Wire<Out>,
    pub dbg_skip: Wire<Out>,
    mtg: Mtg,
    mtt: Mtt,
    tb: Tb,
    _cfg: DtmConfig,
}

impl Dtm {
    pub fn new(cfg: &DtmConfig) -> Dtm {
        let ports = cfg.ports();
        let width = |name: &str| ports.iter().find(|p| p.name == name).unwrap().width;
        Dtm {
            clock: Default::default(),
            reset: Default::default(),
            rq_valid: Default::default(),
            rq_warp: Wire::new(width("rq_warp")),
            rq_kid: Wire::new(width("rq_kid")),
            rq_pc: Wire::new(width("rq_pc")),
            rq_act: Wire::new(width("rq_act")),
            rq_elig: Default::default(),
            rq_guard: Wire::new(width("rq_guard")),
            rq_sv1: Wire::new(width("rq_sv1")),
            rq_sv2: Wire::new(width("rq_sv2")),
            rq_sv3: Wire::new(width("rq_sv3")),
            rq_uid: Wire::new(width("rq_uid")),
            rq_src_v: Wire::new(width("rq_src_v")),
            rq_src_rid: Wire::new(width("rq_src_rid")),
            rq_dst: Wire::new(width("rq_dst")),
            rf_val: Wire::new(width("rf_val")),
            wb_valid: Default::default(),
            wb_res: Wire::new(width("wb_res")),
            ret_valid: Default::default(),
            ret_all: Default::default(),
            ret_kid: Wire::new(width("ret_kid")),
            rq_ready: Default::default(),
            rf_valid: Default::default(),
            rf_lane: Wire::new(width("rf_lane")),
            rf_cand: Wire::new(width("rf_cand")),
            rf_rid: Wire::new(width("rf_rid")),
            rsp_valid: Default::default(),
            rsp_trace: Wire::new(width("rsp_trace")),
            rsp_full: Default::default(),
            rsp_npc: Wire::new(width("rsp_npc")),
            rsp_len: Wire::new(width("rsp_len")),
            rsp_oc: Wire::new(width("rsp_oc")),
            rsp_hit: Wire::new(width("rsp_hit")),
            rsp_inter: Wire::new(width("rsp_inter")),
            rsp_res: Wire::new(width("rsp_res")),
            rsp_exec: Wire::new(width("rsp_exec")),
            rsp_bypass: Default::default(),
            rsp_skip: Wire::new(width("rsp_skip")),
            rsp_resume: Wire::new(width("rsp_resume")),
            wb_ready: Default::default(),
            dbg_state: Wire::new(width("dbg_state")),
            dbg_mtg_rsp: Wire::new(width("dbg_mtg_rsp")),
            dbg_mtg_way: Wire::new(width("dbg_mtg_way")),
            dbg_mtt: Wire::new(width("dbg_mtt")),
            dbg_tb: Wire::new(width("dbg_tb")),
            dbg_skip: Wire::new(width("dbg_skip")),
            mtg: Mtg::new(&cfg.mtg),
            mtt: Mtt::new(&cfg.mtt),
            tb: Tb::new(&cfg.tb),
            _cfg: cfg.clone(),
        }
    }

    fn verilog(&self) -> String {
        let c = &self._cfg;
        let (n, v, u, p, k) = (
            c.simd,
            c.val_bits(),
            c.mtg.uid_bits,
            c.mtg.pc_bits,
            c.mtg.kid_bits,
        );
        let (w, t, wb, lnb, tidb) = (
            c.warps,
            c.threads(),
            c.warp_bits(),
            c.lane_bits(),
            c.tb.tid_bits(),
        );
        let (lb, ob) = (c.mtt.len_bits(), c.oc_bits());
        let mut s = String::new();
        let r = |s: &mut String, name: &str, width: usize| {
            *s += &format!("reg [{}:0] {name};\n", width - 1);
        };
        for (name, width) in [
            ("st", BITS),
            ("lane", lnb),
            ("tid", tidb),
            ("q_warp", wb),
            ("q_kid", k),
            ("q_pc", p),
            ("q_act", n),
            ("q_mttl", n),
            ("q_guard", n),
            ("q_sv1", n * v),
            ("q_sv2", n * v),
            ("q_sv3", n * v),
            ("q_uid", n * u),
            ("q_srcv", 3),
            ("q_rid", 3 * RID_BITS),
            ("q_dst", RID_BITS),
            ("thit", n),
            ("tnpc", n * p),
            ("tlen", n * lb),
            ("toc", n * ob),
            ("grp", n),
            ("mlk", n),
            ("mhit", n),
            ("mres", n * v),
            ("wres", n * v),
            ("muid", n * u),
            ("skip", w * n),
            ("resume", w * p),
            ("ret_kid_q", k),
        ] {
            r(&mut s, name, width);
        }
        s += "reg cnt;\nreg q_elig;\nreg full;\nreg ret_all_q;\n";
        // Combinational helpers.
        for (name, width) in [
            ("hitm", n),
            ("inter", n),
            ("intra", n),
            ("exec", n),
            ("a_sk", n),
            ("a_act", n),
            ("a_mttl", n),
            ("g_grp", n),
            ("g_mlk", n),
            ("ld_npc", p),
            ("r_npc", p),
            ("r_len", lb),
            ("ures", n * v),
            ("a_w", wb),
        ] {
            r(&mut s, name, width);
        }
        s += "reg a_clear;\nreg g_full;\n";
        s += "always @(*) begin\n";
        s += "    hitm = mhit & mlk;\n    inter = 0;\n";
        for l in 0..n {
            s += &format!(
                "    if (hitm[{l}] && muid[{} +: {u}] != q_uid[{} +: {u}]) inter[{l}] = 1'b1;\n",
                l * u,
                l * u
            );
        }
        s += "    intra = hitm & ~inter;\n    exec = q_act & q_guard & ~grp & ~hitm;\n";
        // Accept: the warp's skip region ends at resume_pc (A9).
        s += &format!(
            "    a_w = (rq_warp >= {w}) ? {wb}'d{} : rq_warp;\n    a_sk = skip[a_w * {n} +: {n}];\n    \
             a_clear = a_sk != 0 && resume[a_w * {p} +: {p}] == rq_pc;\n    if (a_clear) a_sk = 0;\n    \
             a_act = rq_act & ~a_sk;\n",
            w - 1
        );
        // I12: disabled, no lane is ever tested or looked up.
        s += &match c.enable {
            true => format!("    a_mttl = (a_sk == 0 && rq_elig) ? a_act : {n}'d0;\n"),
            false => format!("    a_mttl = {n}'d0;\n"),
        };
        // Group: the leader is the lowest hit lane; grp = hit lanes with its npc.
        s += "    ld_npc = 0;\n";
        for l in (0..n).rev() {
            s += &format!("    if (thit[{l}]) ld_npc = tnpc[{} +: {p}];\n", l * p);
        }
        s += "    g_grp = 0;\n";
        for l in 0..n {
            s += &format!(
                "    if (thit[{l}] && tnpc[{} +: {p}] == ld_npc) g_grp[{l}] = 1'b1;\n",
                l * p
            );
        }
        if c.unanimous {
            s += "    if (g_grp != q_act) g_grp = 0;\n";
        }
        s += "    g_full = g_grp != 0 && g_grp == q_act;\n";
        s += &match c.enable {
            true => {
                format!("    g_mlk = (q_elig && !g_full) ? (q_act & ~g_grp & q_guard) : {n}'d0;\n")
            }
            false => format!("    g_mlk = {n}'d0;\n"),
        };
        // The response's trace: its leader's npc and len.
        s += "    r_npc = 0;\n    r_len = 0;\n";
        for l in (0..n).rev() {
            s += &format!(
                "    if (grp[{l}]) begin r_npc = tnpc[{} +: {p}]; r_len = tlen[{} +: {lb}]; end\n",
                l * p,
                l * lb
            );
        }
        for l in 0..n {
            s += &format!(
                "    ures[{o} +: {v}] = hitm[{l}] ? mres[{o} +: {v}] : wres[{o} +: {v}];\n",
                o = l * v
            );
        }
        s += "end\n";
        // The units' inputs.
        let tb_ev = format!("((st == {TB_EV} && q_act[lane]) || st == {RET_TB})");
        s += &format!(
            "always @(*) begin\n    tb$clock = clock;\n    tb$reset = reset;\n    tb$ev_valid = {tb_ev};\n    \
             tb$ev_tid = !{tb_ev} ? {tidb}'d0 : (st == {TB_EV}) ? q_warp * {n} + lane : tid;\n    \
             tb$ev_kid = !{tb_ev} ? {k}'d0 : (st == {TB_EV}) ? q_kid : ret_kid_q;\n    \
             tb$ev_close = {tb_ev} && (st == {RET_TB} || !intra[lane]);\n    \
             tb$ev_pc = {tb_ev} ? q_pc : {p}'d0;\n    tb$ev_src_v = {tb_ev} ? q_srcv : 3'd0;\n    \
             tb$ev_src_rid = {tb_ev} ? q_rid : 27'd0;\n    \
             tb$ev_src_val = {tb_ev} ? {{q_sv3[lane * {v} +: {v}], q_sv2[lane * {v} +: {v}], q_sv1[lane * {v} +: {v}]}} : {}'d0;\n    \
             tb$ev_dst = {tb_ev} ? q_dst : 9'd0;\n    tb$ev_res = {tb_ev} ? mres[lane * {v} +: {v}] : {v}'d0;\nend\n",
            3 * v
        );
        let lk = format!("(st == {MTT_LK} && q_mttl[lane])");
        s += &format!(
            "always @(*) begin\n    mtt$clock = clock;\n    mtt$reset = reset;\n    mtt$lk_valid = {lk};\n    \
             mtt$lk_kid = {lk} ? q_kid : {k}'d0;\n    mtt$lk_pc = {lk} ? q_pc : {p}'d0;\n    mtt$cv_val = rf_val;\n    \
             mtt$up_valid = tb$cm_valid;\n    mtt$up_kid = tb$cm_kid;\n    mtt$up_pc = tb$cm_pc;\n    mtt$up_npc = tb$cm_npc;\n    \
             mtt$up_len = tb$cm_len;\n    mtt$up_ic = tb$cm_ic;\n    mtt$up_oc = tb$cm_oc;\n    \
             mtt$inv_valid = st == {RET_INV} && !ret_all_q;\n    mtt$flush = st == {RET_INV} && ret_all_q;\n    \
             mtt$inv_kid = (st == {RET_INV}) ? ret_kid_q : {k}'d0;\nend\n"
        );
        let rq = format!("(st == {MTG_LK} || st == {MTG_UP})");
        s += &format!(
            "always @(*) begin\n    mtg$clock = clock;\n    mtg$reset = reset;\n    mtg$req_valid = {rq};\n    \
             mtg$req_op = st == {MTG_UP};\n    mtg$req_mask = {rq} ? mlk : {n}'d0;\n    mtg$req_kid = {rq} ? q_kid : {k}'d0;\n    \
             mtg$req_pc = {rq} ? q_pc : {p}'d0;\n    mtg$req_sv1 = {rq} ? q_sv1 : 0;\n    mtg$req_sv2 = {rq} ? q_sv2 : 0;\n    \
             mtg$req_sv3 = {rq} ? q_sv3 : 0;\n    mtg$req_res = {rq} ? ures : 0;\n    mtg$req_uid = {rq} ? q_uid : 0;\n    \
             mtg$inv_valid = st == {RET_INV};\n    mtg$inv_all = st == {RET_INV} && ret_all_q;\n    \
             mtg$inv_kid = (st == {RET_INV}) ? ret_kid_q : {k}'d0;\nend\n"
        );
        // The top's outputs.
        let rsp = format!("(st == {RSP})");
        s += &format!(
            "always @(*) begin\n    rq_ready = st == {IDLE};\n    rf_valid = st == {MTT_WAIT} && mtt$cand_valid != 0;\n    \
             rf_lane = rf_valid ? lane : {lnb}'d0;\n    rf_cand = mtt$cand_valid;\n    rf_rid = mtt$cand_ic;\n    \
             rsp_valid = {rsp};\n    rsp_trace = {rsp} ? grp : {n}'d0;\n    rsp_full = {rsp} && full;\n    \
             rsp_npc = {rsp} ? r_npc : {p}'d0;\n    rsp_len = {rsp} ? r_len : {lb}'d0;\n    rsp_oc = 0;\n    rsp_res = 0;\n"
        );
        for l in 0..n {
            s += &format!(
                "    if ({rsp} && grp[{l}]) rsp_oc[{o} +: {ob}] = toc[{o} +: {ob}];\n    if ({rsp} && hitm[{l}]) rsp_res[{ov} +: {v}] = mres[{ov} +: {v}];\n",
                o = l * ob,
                ov = l * v
            );
        }
        s += &format!(
            "    rsp_hit = {rsp} ? hitm : {n}'d0;\n    rsp_inter = {rsp} ? inter : {n}'d0;\n    rsp_exec = {rsp} ? exec : {n}'d0;\n    \
             rsp_bypass = {rsp} && exec == 0 && (grp | hitm) != 0;\n    rsp_skip = {rsp} ? skip[q_warp * {n} +: {n}] : {n}'d0;\n    \
             rsp_resume = ({rsp} && skip[q_warp * {n} +: {n}] != 0) ? resume[q_warp * {p} +: {p}] : {p}'d0;\n    \
             wb_ready = st == {WB};\n    dbg_state = st;\n    \
             dbg_mtg_rsp = {{mtg$rsp_hit, mtg$rsp_lanes, mtg$rsp_op, mtg$rsp_valid}};\n    dbg_mtg_way = mtg$rsp_way;\n    \
             dbg_mtt = {{mtt$up_way, mtt$up_found, mtt$up_done, mtt$res_len, mtt$res_way, mtt$res_hit, mtt$res_valid}};\n    \
             dbg_tb = {{tb$cm_len, tb$cm_valid, tb$st_len, tb$st_nobuf, tb$st_valid}};\n    dbg_skip = skip;\nend\n"
        );
        // The sequencer.
        s += "always @(posedge clock) begin\n    if (reset) begin\n";
        s += &format!("        st <= {RET_WAIT};\n");
        for name in [
            "lane",
            "tid",
            "q_warp",
            "q_kid",
            "q_pc",
            "q_act",
            "q_mttl",
            "q_guard",
            "q_sv1",
            "q_sv2",
            "q_sv3",
            "q_uid",
            "q_srcv",
            "q_rid",
            "q_dst",
            "thit",
            "tnpc",
            "tlen",
            "toc",
            "grp",
            "mlk",
            "mhit",
            "mres",
            "wres",
            "muid",
            "skip",
            "resume",
            "ret_kid_q",
            "cnt",
            "q_elig",
            "full",
            "ret_all_q",
        ] {
            s += &format!("        {name} <= 0;\n");
        }
        s += "    end else begin\n        case (st)\n";
        // I12: disabled, a retire is taken and does nothing (no buffer, MTT or MTG touched).
        let retire = match c.enable {
            true => format!(
                "                ret_all_q <= ret_all;\n                ret_kid_q <= ret_kid;\n                \
                 tid <= 0;\n                st <= {RET_TB};\n"
            ),
            false => String::new(),
        };
        s += &format!(
            "        {IDLE}: begin\n            if (ret_valid) begin\n{retire}            end else if (rq_valid) begin\n                \
             q_warp <= a_w;\n                q_kid <= rq_kid;\n                q_pc <= rq_pc;\n                q_elig <= rq_elig;\n                \
             q_guard <= rq_guard;\n                q_sv1 <= rq_sv1;\n                q_sv2 <= rq_sv2;\n                q_sv3 <= rq_sv3;\n                \
             q_uid <= rq_uid;\n                q_srcv <= rq_src_v;\n                q_rid <= rq_src_rid;\n                q_dst <= rq_dst;\n                \
             if (a_clear) skip[a_w * {n} +: {n}] <= {n}'d0;\n                q_act <= a_act;\n                q_mttl <= a_mttl;\n                \
             thit <= 0;\n                mhit <= 0;\n                grp <= 0;\n                full <= 1'b0;\n                mlk <= 0;\n                \
             lane <= 0;\n                st <= (a_mttl != 0) ? {MTT_LK} : {GROUP};\n            end\n        end\n"
        );
        s += &format!(
            "        {MTT_LK}: begin\n            if (q_mttl[lane]) st <= {MTT_WAIT};\n            else if (lane == {nm}) st <= {GROUP};\n            \
             else lane <= lane + 1'b1;\n        end\n        {MTT_WAIT}: begin\n            if (mtt$res_valid) begin\n                \
             thit[lane] <= mtt$res_hit;\n                tnpc[lane * {p} +: {p}] <= mtt$res_npc;\n                tlen[lane * {lb} +: {lb}] <= mtt$res_len;\n                \
             toc[lane * {ob} +: {ob}] <= mtt$res_oc;\n                if (lane == {nm}) st <= {GROUP};\n                \
             else begin lane <= lane + 1'b1; st <= {MTT_LK}; end\n            end\n        end\n",
            nm = n - 1
        );
        s += &format!(
            "        {GROUP}: begin\n            grp <= g_grp;\n            full <= g_full;\n            \
             if (g_grp != 0 && !g_full) begin\n                skip[q_warp * {n} +: {n}] <= g_grp;\n                resume[q_warp * {p} +: {p}] <= ld_npc;\n            end\n            \
             mlk <= g_mlk;\n            st <= (g_mlk != 0) ? {MTG_LK} : {RSP};\n        end\n"
        );
        s += &format!("        {MTG_LK}, {MTG_LKW}: begin\n            if (mtg$rsp_valid && !mtg$rsp_op) begin\n");
        for l in 0..n {
            s += &format!(
                "                if (mtg$rsp_lanes[{l}]) begin mhit[{l}] <= mtg$rsp_hit[{l}]; mres[{ov} +: {v}] <= mtg$rsp_res[{ov} +: {v}]; muid[{ou} +: {u}] <= mtg$rsp_uid[{ou} +: {u}]; end\n",
                ov = l * v,
                ou = l * u
            );
        }
        s += &format!(
            "            end\n            if (st == {MTG_LKW}) st <= {RSP};\n            else if (mtg$req_ready) st <= {MTG_LKW};\n        end\n        \
             {RSP}: st <= {WB};\n        {WB}: begin\n            if (wb_valid) begin\n                wres <= wb_res;\n                lane <= 0;\n                \
             st <= {after_wb};\n            end\n        end\n        \
             {MTG_UP}: begin\n            if (mtg$req_ready) begin lane <= 0; st <= {TB_EV}; end\n        end\n        \
             {TB_EV}: begin\n            if (lane == {nm}) begin cnt <= 1'b0; st <= {DRAIN}; end\n            else lane <= lane + 1'b1;\n        end\n        \
             {DRAIN}, {RET_DRAIN}: begin\n            if (cnt) st <= (st == {DRAIN}) ? {IDLE} : {RET_INV};\n            else cnt <= 1'b1;\n        end\n        \
             {RET_TB}: begin\n            if (tid == {tm}) begin cnt <= 1'b0; st <= {RET_DRAIN}; end\n            else tid <= tid + 1'b1;\n        end\n        \
             {RET_INV}: begin\n            skip <= 0;\n            resume <= 0;\n            st <= {RET_WAIT};\n        end\n        \
             default: begin\n            if (!mtg$busy) st <= {IDLE};\n        end\n        endcase\n    end\nend\n",
            nm = n - 1,
            tm = t - 1,
            // I12: disabled, no upsert and no trace-buffer event: ready again after writeback.
            after_wb = match c.enable {
                true => format!("(mlk != 0) ? {MTG_UP} : {TB_EV}"),
                false => format!("{IDLE}"),
            }
        );
        s
    }
}

impl Logic for Dtm {
    fn update(&mut self) {}
    fn connect(&mut self) {}
    fn hdl(&self) -> Verilog {
        Verilog::Custom(self.verilog())
    }
}

/// Verilog of one `dtm` configuration.
pub fn generate(cfg: &DtmConfig) -> Design {
    let mut block = Dtm::new(cfg);
    emit_glued(&mut block, &cfg.module_name())
}
