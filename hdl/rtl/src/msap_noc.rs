//! RTL of `msap-noc`: the MSAP core–memory network (spec/msap.md §2.1, §2.4, §2.8, §2.9, §3;
//! contract `warpforge_contract::units::msap_noc`, normative).
//!
//! The blocks are the units' own RTL, instantiated unchanged: one [`MsapRouter`] per node in
//! each of the two meshes (request, reply; with `vcs > 1` the [`MsapRouterVc`] built with a
//! static VC per flow, the NIs' and MC credits per VC: contract "V > 1"), one [`MsapMc`] per MC node, and the RAM primitive
//! for every NI queue (read one row at a time into its front register, as a router input
//! does). The glue — links, credits, NIs, the L2 stand-in — is a Verilog template unrolled
//! per node, as in `dtm_top`; rust-hdl cannot see its drivers of the blocks' inputs, so the
//! design is emitted unchecked and linted by Verilator.

use crate::msap_mc::MsapMc;
use crate::msap_router::{split_kernels, MsapRouter};
use crate::msap_router_vc::{split_vc_kernels, MsapRouterVc};
use crate::primitives::{emit_glued, Wire};
use crate::ram::Ram;
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::manifest::Dir;
use warpforge_contract::units::msap_noc::NocConfig;

#[derive(LogicBlock)]
pub struct MsapNoc {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub inj_valid: Wire<In>,
    pub inj_mc: Wire<In>,
    pub inj_pl: Wire<In>,
    pub inj_tag: Wire<In>,
    pub inj_line: Wire<In>,
    pub inj_ready: Wire<Out>,
    pub rep_valid: Wire<Out>,
    pub rep_src: Wire<Out>,
    pub rep_tag: Wire<Out>,
    pub rep_pl: Wire<Out>,
    pub mc_deq: Wire<Out>,
    pub dbg_req: Wire<Out>,
    pub dbg_rep: Wire<Out>,
    pub dbg_mc: Wire<Out>,
    pub dbg_ni: Wire<Out>,
    pub dbg_mcni: Wire<Out>,
    rq: Vec<MsapRouter>,
    rp: Vec<MsapRouter>,
    /// With V > 1 the routers are these (`rq`, `rp` stay empty).
    rqv: Vec<MsapRouterVc>,
    rpv: Vec<MsapRouterVc>,
    mc: Vec<MsapMc>,
    ni: Vec<Ram>,
    rqq: Vec<Ram>,
    _cfg: NocConfig,
}

impl MsapNoc {
    pub fn new(cfg: &NocConfig) -> MsapNoc {
        let ports = cfg.ports();
        let width = |name: &str| ports.iter().find(|p| p.name == name).unwrap().width;
        let n = cfg.nodes();
        let (n1, nv) = if cfg.vcs > 1 { (0, n) } else { (n, 0) };
        MsapNoc {
            clock: Default::default(),
            reset: Default::default(),
            inj_valid: Wire::new(width("inj_valid")),
            inj_mc: Wire::new(width("inj_mc")),
            inj_pl: Wire::new(width("inj_pl")),
            inj_tag: Wire::new(width("inj_tag")),
            inj_line: Wire::new(width("inj_line")),
            inj_ready: Wire::new(width("inj_ready")),
            rep_valid: Wire::new(width("rep_valid")),
            rep_src: Wire::new(width("rep_src")),
            rep_tag: Wire::new(width("rep_tag")),
            rep_pl: Wire::new(width("rep_pl")),
            mc_deq: Wire::new(width("mc_deq")),
            dbg_req: Wire::new(width("dbg_req")),
            dbg_rep: Wire::new(width("dbg_rep")),
            dbg_mc: Wire::new(width("dbg_mc")),
            dbg_ni: Wire::new(width("dbg_ni")),
            dbg_mcni: Wire::new(width("dbg_mcni")),
            rq: (0..n1).map(|i| MsapRouter::new(&cfg.router(i))).collect(),
            rp: (0..n1).map(|i| MsapRouter::new(&cfg.router(i))).collect(),
            rqv: (0..nv).map(|i| MsapRouterVc::new(&cfg.router(i))).collect(),
            rpv: (0..nv).map(|i| MsapRouterVc::new(&cfg.router(i))).collect(),
            mc: (0..cfg.n_mc()).map(|_| MsapMc::new(&cfg.mc())).collect(),
            ni: (0..cfg.n_sm()).map(|_| Ram::new(&cfg.ni_ram())).collect(),
            rqq: (0..cfg.n_mc()).map(|_| Ram::new(&cfg.rq_ram())).collect(),
            _cfg: cfg.clone(),
        }
    }

    fn verilog(&self) -> String {
        let c = &self._cfg;
        let (mx, my, n) = (c.mesh_x, c.mesh_y, c.nodes());
        let (fb, pb, tb, lb, nb, mb) = (
            c.flit_bits(),
            c.pl_bits,
            c.tag_bits,
            c.line_bits,
            c.node_bits(),
            c.mc_bits(),
        );
        let cb = c.credit_bits();
        let nib = warpforge_contract::units::msap::bits_for(c.ni_depth);
        let rqb = warpforge_contract::units::msap::bits_for(c.rq_depth);
        let (nip, rqp) = (c.ni_ram().addr_bits(), c.rq_ram().addr_bits());
        let rb = c.rec_bits();
        let rf = c.reply_flits;
        // V > 1: the flit's vc field (vb bits) after head and tail; the routers' instances.
        let (v, vb) = (c.vcs, c.vb());
        let fa = 2 + vb;
        let (src_at, pl_at) = (fa + nb + pb, fa + nb);
        let (rqn, rpn) = if v > 1 { ("rqv", "rpv") } else { ("rq", "rp") };
        let sms = c.sms();
        let mut s = String::new();
        let sm_of = |i: usize| sms.iter().position(|&x| x == i);
        let mc_of = |i: usize| c.mcs.iter().position(|&x| x == i);
        let d = c.svc_lat - 1;

        // SM NIs.
        for (k, &i) in sms.iter().enumerate() {
            if v > 1 {
                break;
            }
            s += &format!(
                "reg [{}:0] ni_cr_{k};\nreg ni_fv_{k};\nreg [{}:0] ni_cnt_{k};\nreg [{}:0] ni_wp_{k};\nreg [{}:0] ni_rp_{k};\n\
                 reg [{}:0] ni_dst_{k};\nwire ni_send_{k} = ni_fv_{k} && ni_cr_{k} != 0;\n\
                 wire ni_ready_{k} = ni_cnt_{k} < {nib}'d{};\nwire ni_wr_{k} = inj_valid[{k}] && ni_ready_{k};\n\
                 wire ni_rd_{k} = ni_cnt_{k} != 0 && (!ni_fv_{k} || ni_send_{k});\n",
                cb - 1,
                nib - 1,
                nip - 1,
                nip - 1,
                nb - 1,
                c.ni_depth
            );
            s += &format!("always @(*) begin\n    case (inj_mc[{} +: {mb}])\n", k * mb);
            for (m, &mi) in c.mcs.iter().enumerate() {
                s += &format!("    {mb}'d{m}: ni_dst_{k} = {nb}'d{};\n", c.addr(mi));
            }
            s += &format!(
                "    default: ni_dst_{k} = {nb}'d{};\n    endcase\nend\n",
                c.addr(c.mcs[0])
            );
            s += &format!(
                "always @(*) begin\n    ni${k}$clock = clock;\n    ni${k}$we = ni_wr_{k};\n    ni${k}$wbe = 1'b1;\n    \
                 ni${k}$waddr = ni_wp_{k};\n    ni${k}$wdata = {{inj_line[{} +: {lb}], inj_tag[{} +: {tb}], {nb}'d{}, inj_pl[{} +: {pb}], ni_dst_{k}, 2'b11}};\n    \
                 ni${k}$re = ni_rd_{k};\n    ni${k}$raddr = ni_rp_{k};\nend\n",
                k * lb,
                k * tb,
                c.addr(i),
                k * pb
            );
            s += &format!(
                "always @(posedge clock) begin\n    if (reset) begin\n        ni_cr_{k} <= {cb}'d{};\n        ni_fv_{k} <= 1'b0;\n        \
                 ni_cnt_{k} <= 0;\n        ni_wp_{k} <= 0;\n        ni_rp_{k} <= 0;\n    end else begin\n        \
                 ni_cr_{k} <= ni_cr_{k} - (ni_send_{k} ? 1'b1 : 1'b0) + (rq${i}$in_credit[0] ? 1'b1 : 1'b0);\n        \
                 ni_fv_{k} <= ni_rd_{k} || (ni_fv_{k} && !ni_send_{k});\n        \
                 ni_cnt_{k} <= ni_cnt_{k} + (ni_wr_{k} ? 1'b1 : 1'b0) - (ni_rd_{k} ? 1'b1 : 1'b0);\n        \
                 if (ni_wr_{k}) ni_wp_{k} <= ni_wp_{k} + 1'b1;\n        if (ni_rd_{k}) ni_rp_{k} <= ni_rp_{k} + 1'b1;\n    end\nend\n",
                c.buf_depth
            );
        }

        // SM NIs with V > 1: the flow's VC in the flit, a credit counter per VC.
        for (k, &i) in sms.iter().enumerate() {
            if v == 1 {
                break;
            }
            for w in 0..v {
                s += &format!("reg [{}:0] ni_cr_{k}_{w};\n", cb - 1);
            }
            let ok: Vec<String> = (0..v)
                .map(|w| format!("(ni${k}$rdata[2 +: {vb}] == {vb}'d{w} && ni_cr_{k}_{w} != 0)"))
                .collect();
            s += &format!(
                "reg ni_fv_{k};\nreg [{}:0] ni_cnt_{k};\nreg [{}:0] ni_wp_{k};\nreg [{}:0] ni_rp_{k};\n\
                 reg [{}:0] ni_dst_{k};\nreg [{}:0] ni_vc_{k};\nwire ni_send_{k} = ni_fv_{k} && ({});\n\
                 wire ni_ready_{k} = ni_cnt_{k} < {nib}'d{};\nwire ni_wr_{k} = inj_valid[{k}] && ni_ready_{k};\n\
                 wire ni_rd_{k} = ni_cnt_{k} != 0 && (!ni_fv_{k} || ni_send_{k});\n",
                nib - 1,
                nip - 1,
                nip - 1,
                nb - 1,
                vb - 1,
                ok.join(" || "),
                c.ni_depth
            );
            s += &format!("always @(*) begin\n    case (inj_mc[{} +: {mb}])\n", k * mb);
            for (m, &mi) in c.mcs.iter().enumerate() {
                s += &format!(
                    "    {mb}'d{m}: begin ni_dst_{k} = {nb}'d{}; ni_vc_{k} = {vb}'d{}; end\n",
                    c.addr(mi),
                    c.vc_of(c.addr(i), c.addr(mi))
                );
            }
            s += &format!(
                "    default: begin ni_dst_{k} = {nb}'d{}; ni_vc_{k} = {vb}'d{}; end\n    endcase\nend\n",
                c.addr(c.mcs[0]),
                c.vc_of(c.addr(i), c.addr(c.mcs[0]))
            );
            s += &format!(
                "always @(*) begin\n    ni${k}$clock = clock;\n    ni${k}$we = ni_wr_{k};\n    ni${k}$wbe = 1'b1;\n    \
                 ni${k}$waddr = ni_wp_{k};\n    ni${k}$wdata = {{inj_line[{} +: {lb}], inj_tag[{} +: {tb}], {nb}'d{}, inj_pl[{} +: {pb}], ni_dst_{k}, ni_vc_{k}, 2'b11}};\n    \
                 ni${k}$re = ni_rd_{k};\n    ni${k}$raddr = ni_rp_{k};\nend\n",
                k * lb,
                k * tb,
                c.addr(i),
                k * pb
            );
            s += "always @(posedge clock) begin\n    if (reset) begin\n";
            for w in 0..v {
                s += &format!("        ni_cr_{k}_{w} <= {cb}'d{};\n", c.buf_depth);
            }
            s += &format!(
                "        ni_fv_{k} <= 1'b0;\n        ni_cnt_{k} <= 0;\n        ni_wp_{k} <= 0;\n        ni_rp_{k} <= 0;\n    end else begin\n"
            );
            for w in 0..v {
                s += &format!(
                    "        ni_cr_{k}_{w} <= ni_cr_{k}_{w} - (ni_send_{k} && ni${k}$rdata[2 +: {vb}] == {vb}'d{w} ? 1'b1 : 1'b0) + ({rqn}${i}$in_credit[{w}] ? 1'b1 : 1'b0);\n"
                );
            }
            s += &format!(
                "        ni_fv_{k} <= ni_rd_{k} || (ni_fv_{k} && !ni_send_{k});\n        \
                 ni_cnt_{k} <= ni_cnt_{k} + (ni_wr_{k} ? 1'b1 : 1'b0) - (ni_rd_{k} ? 1'b1 : 1'b0);\n        \
                 if (ni_wr_{k}) ni_wp_{k} <= ni_wp_{k} + 1'b1;\n        if (ni_rd_{k}) ni_rp_{k} <= ni_rp_{k} + 1'b1;\n    end\nend\n"
            );
        }

        // MC nodes: buffer, L2 stand-in, reply NI.
        for (m, &i) in c.mcs.iter().enumerate() {
            let t0 = s.len();
            s += &format!(
                "reg [{}:0] resv_{m};\nreg s0v_{m};\nreg [{}:0] s0pl_{m};\nreg [{}:0] s0ln_{m};\n\
                 reg [{}:0] rq_cnt_{m};\nreg rq_fv_{m};\nreg [2:0] rq_k_{m};\nreg [{}:0] rq_cr_{m};\n\
                 reg [{}:0] rq_wp_{m};\nreg [{}:0] rq_rp_{m};\n\
                 wire l2r_{m} = resv_{m} < {rqb}'d{};\nwire deq_{m} = mc${m}$out_valid && l2r_{m};\n\
                 wire [{}:0] rec_{m} = {{mc${m}$meta[{nb} +: {tb}], mc${m}$meta[0 +: {nb}], s0ln_{m}, s0pl_{m}}};\n",
                rqb - 1,
                pb - 1,
                lb - 1,
                rqb - 1,
                cb - 1,
                rqp - 1,
                rqp - 1,
                c.rq_depth,
                rb - 1
            );
            for j in 0..d {
                s += &format!("reg dv_{m}_{j};\nreg [{}:0] dr_{m}_{j};\n", rb - 1);
            }
            let (lastv, lastr) = if d == 0 {
                (format!("s0v_{m}"), format!("rec_{m}"))
            } else {
                (format!("dv_{m}_{}", d - 1), format!("dr_{m}_{}", d - 1))
            };
            s += &format!(
                "wire rq_send_{m} = rq_fv_{m} && rq_cr_{m} != 0;\nwire rq_pop_{m} = rq_send_{m} && rq_k_{m} == 3'd{};\n\
                 wire rq_rd_{m} = rq_cnt_{m} != 0 && (!rq_fv_{m} || rq_pop_{m});\nwire rq_wr_{m} = {lastv};\n\
                 wire [{}:0] rq_fl_{m} = {{rqq${m}$rdata[{} +: {lb}], rqq${m}$rdata[{} +: {tb}], {nb}'d{}, rqq${m}$rdata[0 +: {pb}], \
                 rqq${m}$rdata[{} +: {nb}], rq_k_{m} == 3'd{}, rq_k_{m} == 3'd0}};\n",
                rf - 1,
                fb - 1,
                pb,
                pb + lb + nb,
                c.addr(i),
                pb + lb,
                rf - 1
            );
            s += &format!(
                "always @(*) begin\n    mc${m}$clock = clock;\n    mc${m}$reset = reset;\n    mc${m}$in_valid = {rqn}${i}$out_valid[0];\n    \
                 mc${m}$in_line = {rqn}${i}$out_flit[{} +: {lb}];\n    mc${m}$in_pl = {rqn}${i}$out_flit[{pl_at} +: {pb}];\n    \
                 mc${m}$in_meta = {rqn}${i}$out_flit[{src_at} +: {}];\n    mc${m}$l2_ready = l2r_{m};\nend\n",
                src_at + nb + tb,
                nb + tb
            );
            s += &format!(
                "always @(*) begin\n    rqq${m}$clock = clock;\n    rqq${m}$we = rq_wr_{m};\n    rqq${m}$wbe = 1'b1;\n    \
                 rqq${m}$waddr = rq_wp_{m};\n    rqq${m}$wdata = {lastr};\n    rqq${m}$re = rq_rd_{m};\n    rqq${m}$raddr = rq_rp_{m};\nend\n"
            );
            s += &format!(
                "always @(posedge clock) begin\n    if (reset) begin\n        resv_{m} <= 0;\n        s0v_{m} <= 1'b0;\n        s0pl_{m} <= 0;\n        \
                 s0ln_{m} <= 0;\n        rq_cnt_{m} <= 0;\n        rq_fv_{m} <= 1'b0;\n        rq_k_{m} <= 3'd0;\n        \
                 rq_cr_{m} <= {cb}'d{};\n        rq_wp_{m} <= 0;\n        rq_rp_{m} <= 0;\n",
                c.buf_depth
            );
            for j in 0..d {
                s += &format!("        dv_{m}_{j} <= 1'b0;\n        dr_{m}_{j} <= 0;\n");
            }
            s += &format!(
                "    end else begin\n        resv_{m} <= resv_{m} + (deq_{m} ? 1'b1 : 1'b0) - (rq_pop_{m} ? 1'b1 : 1'b0);\n        \
                 s0v_{m} <= deq_{m};\n        s0pl_{m} <= deq_{m} ? mc${m}$out_pl : {pb}'d0;\n        s0ln_{m} <= deq_{m} ? mc${m}$out_line : {lb}'d0;\n        \
                 rq_cnt_{m} <= rq_cnt_{m} + (rq_wr_{m} ? 1'b1 : 1'b0) - (rq_rd_{m} ? 1'b1 : 1'b0);\n        \
                 rq_fv_{m} <= rq_rd_{m} || (rq_fv_{m} && !rq_pop_{m});\n        \
                 if (rq_send_{m}) rq_k_{m} <= rq_pop_{m} ? 3'd0 : rq_k_{m} + 3'd1;\n        \
                 rq_cr_{m} <= rq_cr_{m} - (rq_send_{m} ? 1'b1 : 1'b0) + ({rpn}${i}$in_credit[0] ? 1'b1 : 1'b0);\n        \
                 if (rq_wr_{m}) rq_wp_{m} <= rq_wp_{m} + 1'b1;\n        if (rq_rd_{m}) rq_rp_{m} <= rq_rp_{m} + 1'b1;\n"
            );
            for j in 0..d {
                let (pv, pr) = if j == 0 {
                    (format!("s0v_{m}"), format!("(s0v_{m} ? rec_{m} : {rb}'d0)"))
                } else {
                    (format!("dv_{m}_{}", j - 1), format!("dr_{m}_{}", j - 1))
                };
                s += &format!("        dv_{m}_{j} <= {pv};\n        dr_{m}_{j} <= {pr};\n");
            }
            s += "    end\nend\n";
            if v > 1 {
                let t = s.split_off(t0);
                s += &mc_vcs(c, &t, m, i, rpn);
            }
        }

        // Routers: links between neighbours, Local ports to the NIs, MC buffers and sinks.
        let opp = [0usize, 3, 4, 1, 2];
        // A sink's credit return: with V > 1 on the arriving flit's VC.
        let sink = |net: &str, i: usize| {
            if c.vcs == 1 {
                return format!("{net}${i}$out_valid[0]");
            }
            let bits: Vec<String> = (0..c.vcs)
                .rev()
                .map(|w| {
                    format!(
                        "({net}${i}$out_valid[0] && {net}${i}$out_flit[2 +: {vb}] == {vb}'d{w})"
                    )
                })
                .collect();
            format!("{{{}}}", bits.join(", "))
        };
        let zero = if c.vcs == 1 {
            "1'b0".to_string()
        } else {
            format!("{}'d0", c.vcs)
        };
        for (net, tag) in [(rqn, 0), (rpn, 1)] {
            for i in 0..n {
                let (x, y) = c.xy(i);
                let nbr = |p: usize| -> Option<usize> {
                    match p {
                        1 if y > 0 => Some(i - mx),
                        2 if x + 1 < mx => Some(i + 1),
                        3 if y + 1 < my => Some(i + mx),
                        4 if x > 0 => Some(i - 1),
                        _ => None,
                    }
                };
                let mut v = vec![];
                let mut f = vec![];
                let mut cr = vec![];
                // Local.
                match (tag, sm_of(i), mc_of(i)) {
                    (0, Some(k), _) => {
                        v.push(format!("ni_send_{k}"));
                        f.push(format!("(ni_send_{k} ? ni${k}$rdata : {fb}'d0)"));
                        cr.push(sink(net, i));
                    }
                    (0, None, Some(m)) => {
                        v.push("1'b0".into());
                        f.push(format!("{fb}'d0"));
                        cr.push(if c.vcs == 1 {
                            format!("deq_{m}")
                        } else {
                            format!("mccr_{m}")
                        });
                    }
                    (_, _, Some(m)) => {
                        v.push(format!("rq_send_{m}"));
                        f.push(format!("(rq_send_{m} ? rq_fl_{m} : {fb}'d0)"));
                        cr.push(sink(net, i));
                    }
                    _ => {
                        v.push("1'b0".into());
                        f.push(format!("{fb}'d0"));
                        cr.push(sink(net, i));
                    }
                }
                #[allow(clippy::needless_range_loop)] // p is the port, opp[p] its neighbour's
                for p in 1..5 {
                    match nbr(p) {
                        Some(j) => {
                            let q = opp[p];
                            v.push(format!("{net}${j}$out_valid[{q}]"));
                            f.push(format!("{net}${j}$out_flit[{} +: {fb}]", q * fb));
                            cr.push(if c.vcs == 1 {
                                format!("{net}${j}$in_credit[{q}]")
                            } else {
                                format!("{net}${j}$in_credit[{} +: {}]", q * c.vcs, c.vcs)
                            });
                        }
                        None => {
                            v.push("1'b0".into());
                            f.push(format!("{fb}'d0"));
                            cr.push(zero.clone());
                        }
                    }
                }
                let rev =
                    |xs: &Vec<String>| xs.iter().rev().cloned().collect::<Vec<_>>().join(", ");
                // The position is a port of the router (so all routers share one module).
                let r = c.router(i);
                s += &format!(
                    "always @(*) begin\n    {net}${i}$clock = clock;\n    {net}${i}$reset = reset;\n    \
                     {net}${i}$at_x = {}'d{x};\n    {net}${i}$at_y = {}'d{y};\n    \
                     {net}${i}$in_valid = {{{}}};\n    {net}${i}$in_flit = {{{}}};\n    {net}${i}$out_credit = {{{}}};\nend\n",
                    r.xb(),
                    r.yb(),
                    rev(&v),
                    rev(&f),
                    rev(&cr)
                );
            }
        }

        // Outputs.
        let router_outs: Vec<String> = c
            .router(0)
            .ports()
            .iter()
            .filter(|p| p.dir == Dir::Out)
            .map(|p| p.name.clone())
            .collect();
        let mc_outs: Vec<String> = c
            .mc()
            .ports()
            .iter()
            .filter(|p| p.dir == Dir::Out)
            .map(|p| p.name.clone())
            .collect();
        let cat = |parts: Vec<String>| {
            let v: Vec<String> = parts.into_iter().rev().collect();
            format!("{{{}}}", v.join(", "))
        };
        // Replies' tails at the SM nodes (port 0's flit is at bit 0 of `out_flit`).
        for (k, &i) in sms.iter().enumerate() {
            let fl = format!("{rpn}${i}$out_flit");
            s += &format!(
                "wire rv_{k} = {rpn}${i}$out_valid[0] && {fl}[1];\n\
                 wire [{}:0] rs_{k} = rv_{k} ? {fl}[{src_at} +: {nb}] : {nb}'d0;\n\
                 wire [{}:0] rt_{k} = rv_{k} ? {fl}[{} +: {tb}] : {tb}'d0;\n\
                 wire [{}:0] rpl_{k} = rv_{k} ? {fl}[{pl_at} +: {pb}] : {pb}'d0;\n",
                nb - 1,
                tb - 1,
                src_at + nb,
                pb - 1
            );
        }
        s += "always @(*) begin\n";
        let per_sm = |p: &str| cat((0..sms.len()).map(|k| format!("{p}_{k}")).collect());
        s += &format!(
            "    inj_ready = {};\n    rep_valid = {};\n    rep_src = {};\n    rep_tag = {};\n    rep_pl = {};\n",
            per_sm("ni_ready"),
            per_sm("rv"),
            per_sm("rs"),
            per_sm("rt"),
            per_sm("rpl")
        );
        s += &format!(
            "    mc_deq = {};\n",
            cat((0..c.n_mc()).map(|m| format!("deq_{m}")).collect())
        );
        for (net, port) in [(rqn, "dbg_req"), (rpn, "dbg_rep")] {
            let parts = (0..n)
                .flat_map(|i| router_outs.iter().map(move |o| format!("{net}${i}${o}")))
                .collect();
            s += &format!("    {port} = {};\n", cat(parts));
        }
        let parts = (0..c.n_mc())
            .flat_map(|m| mc_outs.iter().map(move |o| format!("mc${m}${o}")))
            .collect();
        s += &format!("    dbg_mc = {};\n", cat(parts));
        let parts = (0..sms.len())
            .flat_map(|k| {
                let mut p = vec![format!("ni_cnt_{k}"), format!("ni_fv_{k}")];
                if c.vcs == 1 {
                    p.push(format!("ni_cr_{k}"));
                } else {
                    p.extend((0..c.vcs).map(|w| format!("ni_cr_{k}_{w}")));
                }
                p
            })
            .collect();
        s += &format!("    dbg_ni = {};\n", cat(parts));
        let mut parts = vec![];
        for m in 0..c.n_mc() {
            parts.extend([
                format!("resv_{m}"),
                format!("s0v_{m}"),
                format!("s0pl_{m}"),
                format!("s0ln_{m}"),
            ]);
            for j in 0..d {
                parts.extend([format!("dv_{m}_{j}"), format!("dr_{m}_{j}")]);
            }
            parts.extend([
                format!("rq_cnt_{m}"),
                format!("rq_fv_{m}"),
                format!("rq_k_{m}"),
            ]);
            if c.vcs == 1 {
                parts.push(format!("rq_cr_{m}"));
            } else {
                parts.extend((0..c.vcs).map(|w| format!("rq_cr_{m}_{w}")));
            }
        }
        s += &format!("    dbg_mcni = {};\nend\n", cat(parts));
        s
    }
}

impl Logic for MsapNoc {
    fn update(&mut self) {}
    fn connect(&mut self) {}
    fn hdl(&self) -> Verilog {
        Verilog::Custom(self.verilog())
    }
}

/// MC node `m` (node `i`) with V > 1: `t` is its V = 1 text, made per VC. The reply NI's
/// flits carry `rvc` = (MC + destination address) mod V and it keeps a credit counter per
/// VC; the request router's Local-output credit goes back to the VC of the departing
/// request (`mccr`), from its meta's `src` the cycle after the departure.
fn mc_vcs(c: &NocConfig, t: &str, m: usize, i: usize, rpn: &str) -> String {
    let (v, vb, cb) = (c.vcs, c.vb(), c.credit_bits());
    let (pb, lb) = (c.pl_bits, c.line_bits);
    let a = c.addr(i) % v as u64;
    let mut t = t.to_string();
    let mut r = |old: &str, new: String| {
        assert_eq!(t.matches(old).count(), 1, "{old}");
        t = t.replace(old, &new);
    };
    let mut decl: String = (0..v)
        .map(|w| {
            format!(
                "reg [{}:0] rq_cr_{m}_{w};
",
                cb - 1
            )
        })
        .collect();
    decl += &format!(
        "wire [{}:0] rvc_{m} = rqq${m}$rdata[{} +: {vb}] + {vb}'d{a};
         wire [{}:0] mcv_{m} = mc${m}$meta[0 +: {vb}] + {vb}'d{a};
",
        vb - 1,
        pb + lb,
        vb - 1
    );
    let bits: Vec<String> = (0..v)
        .rev()
        .map(|w| format!("(mc${m}$meta_valid && mcv_{m} == {vb}'d{w})"))
        .collect();
    decl += &format!(
        "wire [{}:0] mccr_{m} = {{{}}};
",
        v - 1,
        bits.join(", ")
    );
    r(
        &format!(
            "reg [{}:0] rq_cr_{m};
",
            cb - 1
        ),
        decl,
    );
    let ok: Vec<String> = (0..v)
        .map(|w| format!("(rvc_{m} == {vb}'d{w} && rq_cr_{m}_{w} != 0)"))
        .collect();
    r(
        &format!("wire rq_send_{m} = rq_fv_{m} && rq_cr_{m} != 0;"),
        format!("wire rq_send_{m} = rq_fv_{m} && ({});", ok.join(" || ")),
    );
    r(
        &format!("+: {}], rq_k_{m} == 3'd", c.node_bits()),
        format!("+: {}], rvc_{m}, rq_k_{m} == 3'd", c.node_bits()),
    );
    r(
        &format!(
            "        rq_cr_{m} <= {cb}'d{};
",
            c.buf_depth
        ),
        (0..v)
            .map(|w| {
                format!(
                    "        rq_cr_{m}_{w} <= {cb}'d{};
",
                    c.buf_depth
                )
            })
            .collect(),
    );
    r(
        &format!(
            "        rq_cr_{m} <= rq_cr_{m} - (rq_send_{m} ? 1'b1 : 1'b0) + ({rpn}${i}$in_credit[0] ? 1'b1 : 1'b0);
"
        ),
        (0..v)
            .map(|w| {
                format!(
                    "        rq_cr_{m}_{w} <= rq_cr_{m}_{w} - (rq_send_{m} && rvc_{m} == {vb}'d{w} ? 1'b1 : 1'b0) + ({rpn}${i}$in_credit[{w}] ? 1'b1 : 1'b0);
"
                )
            })
            .collect(),
    );
    t
}

/// Verilog of one `msap-noc` configuration.
pub fn generate(cfg: &NocConfig) -> Design {
    let mut block = MsapNoc::new(cfg);
    let mut d = emit_glued(&mut block, &cfg.module_name());
    d.verilog = if cfg.vcs > 1 {
        split_vc_kernels(&d.verilog)
    } else {
        split_kernels(&d.verilog, 2 * cfg.nodes())
    };
    d
}
