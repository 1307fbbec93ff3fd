//! RTL of dtm-mtg: DTM@GPU's memo table MTG (spec/dtm.md §2.2, §2.5, §3.2; contract
//! `warpforge_contract::units::dtm_mtg`).
//!
//! Storage: `ports` banks; each bank has one RAM primitive per way (rows = sets / ports,
//! {kid, pc, sv1, sv2, sv3, res, uid}) and one meta RAM (per row: the ways' valid bits and
//! their LRU ranks stored as rank XOR way). Every table bit is block RAM; flip-flops hold only
//! the pass registers, the one-cycle write bypass per bank and the sweep state.
//!
//! Stage 1 (from the inputs): H per lane, the pass (the ascending prefix of unserved lanes
//! with distinct banks), per bank the selected lane's key into the pass registers and its
//! row address to the bank's RAMs (or the sweep row while busy).
//! Stage 2 (from registers and RAM outputs, the next cycle): the row view (RAM output, or the
//! row written at the last edge), the key compare per way, the victim (lowest invalid way,
//! else rank ways−1), the new ranks, the writes (the hit or victim way's row, the meta row),
//! and the response.
//!
//! Each bank (its way RAMs, its meta RAM and its stage 2) is a module of its own, [`MtgBank`]:
//! the banks are identical, so the emitter keeps one copy and synthesis maps it once.
//!
//! The datapath depends on `simd_width`, `ways` and `ports` at generation time, so each module
//! body is written out as Verilog (one statement per lane, bank and way) around its instances,
//! as `RamUnit` wires its RAM.

use crate::primitives::{emit, Wire};
use crate::ram::Ram;
use crate::Design;
use rust_hdl::prelude::*;
use std::fmt::Write;
use warpforge_contract::units::dtm_mtg::MtgConfig;
use warpforge_contract::units::ram::RamConfig;

/// The memo table.
#[derive(LogicBlock)]
pub struct Mtg {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub req_valid: Signal<In, Bit>,
    pub req_op: Signal<In, Bit>,
    pub req_mask: Wire<In>,
    pub req_kid: Wire<In>,
    pub req_pc: Wire<In>,
    pub req_sv1: Wire<In>,
    pub req_sv2: Wire<In>,
    pub req_sv3: Wire<In>,
    pub req_res: Wire<In>,
    pub req_uid: Wire<In>,
    pub inv_valid: Signal<In, Bit>,
    pub inv_all: Signal<In, Bit>,
    pub inv_kid: Wire<In>,
    pub req_ready: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_op: Signal<Out, Bit>,
    pub rsp_lanes: Wire<Out>,
    pub rsp_set: Wire<Out>,
    pub rsp_hit: Wire<Out>,
    pub rsp_way: Wire<Out>,
    pub rsp_evict: Wire<Out>,
    pub rsp_res: Wire<Out>,
    pub rsp_uid: Wire<Out>,
    pub dbg_served: Wire<Out>,
    pub dbg_sweep_row: Wire<Out>,
    bank: Vec<MtgBank>,
    _cfg: MtgConfig,
}

impl Mtg {
    pub fn new(cfg: &MtgConfig) -> Mtg {
        let (s, v, u) = (cfg.simd, cfg.val_bits, cfg.uid_bits);
        Mtg {
            clock: Default::default(),
            reset: Default::default(),
            req_valid: Default::default(),
            req_op: Default::default(),
            req_mask: Wire::new(s),
            req_kid: Wire::new(cfg.kid_bits),
            req_pc: Wire::new(cfg.pc_bits),
            req_sv1: Wire::new(s * v),
            req_sv2: Wire::new(s * v),
            req_sv3: Wire::new(s * v),
            req_res: Wire::new(s * v),
            req_uid: Wire::new(s * u),
            inv_valid: Default::default(),
            inv_all: Default::default(),
            inv_kid: Wire::new(cfg.kid_bits),
            req_ready: Default::default(),
            busy: Default::default(),
            rsp_valid: Default::default(),
            rsp_op: Default::default(),
            rsp_lanes: Wire::new(s),
            rsp_set: Wire::new(s * cfg.set_bits()),
            rsp_hit: Wire::new(s),
            rsp_way: Wire::new(s * cfg.way_bits()),
            rsp_evict: Wire::new(s),
            rsp_res: Wire::new(s * v),
            rsp_uid: Wire::new(s * u),
            dbg_served: Wire::new(s),
            dbg_sweep_row: Wire::new(cfg.row_bits()),
            bank: (0..cfg.ports).map(|_| MtgBank::new(cfg)).collect(),
            _cfg: *cfg,
        }
    }
}

/// One bank (A14): a way RAM per way and a meta RAM, `sets / ports` rows each, and the stage
/// 2 of the lane it serves. Stage 1 (the pass, the lane's key and row) is the parent's; the
/// key fields shared by all banks (`op`, `kid`, `pc`) and the sweep's stage 2 (`sw_*`) come in
/// registered, the lane's values (`sv1`..`uid`) unregistered and are registered here.
#[derive(LogicBlock)]
pub struct MtgBank {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Stage 1: this bank serves `lane` in this pass.
    pub go: Signal<In, Bit>,
    /// Stage 1: a sweep is on (read `raddr` for it, serve no lane).
    pub busy: Signal<In, Bit>,
    /// Stage 1: the bank row read.
    pub raddr: Wire<In>,
    pub lane: Wire<In>,
    pub sv1: Wire<In>,
    pub sv2: Wire<In>,
    pub sv3: Wire<In>,
    pub res: Wire<In>,
    pub uid: Wire<In>,
    /// Stage 2 (registered by the parent): the request's op, kid and pc.
    pub op: Signal<In, Bit>,
    pub kid: Wire<In>,
    pub pc: Wire<In>,
    /// Stage 2 of the sweep: on, flush, the kid retired.
    pub sw_v: Signal<In, Bit>,
    pub sw_all: Signal<In, Bit>,
    pub sw_kid: Wire<In>,
    /// Stage 2: a lane is served, which, and the bank row read for it.
    pub s2_v: Signal<Out, Bit>,
    pub s2_lane: Wire<Out>,
    pub rd_row: Wire<Out>,
    /// Stage 2: the lane's response.
    pub rsp_hit: Signal<Out, Bit>,
    pub rsp_way: Wire<Out>,
    pub rsp_evict: Signal<Out, Bit>,
    pub rsp_res: Wire<Out>,
    pub rsp_uid: Wire<Out>,
    way_ram: Vec<Ram>,
    meta_ram: Ram,
    _cfg: MtgConfig,
}

impl MtgBank {
    pub fn new(cfg: &MtgConfig) -> MtgBank {
        let (v, u) = (cfg.val_bits, cfg.uid_bits);
        let ram = |width: usize| {
            Ram::new(&RamConfig {
                depth: cfg.ram_depth(),
                width,
                ports: 2,
                byte_write: false,
            })
        };
        MtgBank {
            clock: Default::default(),
            reset: Default::default(),
            go: Default::default(),
            busy: Default::default(),
            raddr: Wire::new(cfg.row_bits()),
            lane: Wire::new(cfg.lane_bits()),
            sv1: Wire::new(v),
            sv2: Wire::new(v),
            sv3: Wire::new(v),
            res: Wire::new(v),
            uid: Wire::new(u),
            op: Default::default(),
            kid: Wire::new(cfg.kid_bits),
            pc: Wire::new(cfg.pc_bits),
            sw_v: Default::default(),
            sw_all: Default::default(),
            sw_kid: Wire::new(cfg.kid_bits),
            s2_v: Default::default(),
            s2_lane: Wire::new(cfg.lane_bits()),
            rd_row: Wire::new(cfg.row_bits()),
            rsp_hit: Default::default(),
            rsp_way: Wire::new(cfg.way_bits()),
            rsp_evict: Default::default(),
            rsp_res: Wire::new(v),
            rsp_uid: Wire::new(u),
            way_ram: (0..cfg.ways).map(|_| ram(cfg.way_row_bits())).collect(),
            meta_ram: ram(cfg.meta_bits()),
            _cfg: *cfg,
        }
    }

    fn verilog(&self) -> String {
        let c = &self._cfg;
        let (v, k, u, p) = (c.val_bits, c.kid_bits, c.uid_bits, c.pc_bits);
        let nw = c.ways;
        let (rb, lb, wb) = (c.row_bits(), c.lane_bits(), c.way_bits());
        let rw = c.way_row_bits();
        let mw = c.meta_bits();
        let rk = c.rank_bits();
        let keyw = k + p + 3 * v;
        let mut o = String::new();
        macro_rules! w {
            ($($t:tt)*) => { writeln!(o, $($t)*).unwrap() };
        }
        w!("// Registers: stage 2 of the lane served, and the one-cycle write bypass.");
        w!("reg s2_v_q;");
        w!("reg [{}:0] s2_lane_q;", lb - 1);
        w!("reg [{}:0] rd_row_q;", rb - 1);
        for f in ["sv1", "sv2", "sv3", "res"] {
            w!("reg [{}:0] s2_{f};", v - 1);
        }
        w!("reg [{}:0] s2_uid;", u - 1);
        w!("reg bpm_v;");
        w!("reg bpr_v;");
        w!("reg [{}:0] bp_row;", rb - 1);
        w!("reg [{}:0] bp_way;", wb - 1);
        w!("reg [{}:0] bp_data;", rw - 1);
        w!("reg [{}:0] bp_meta;", mw - 1);
        w!("wire re = !reset && (busy || go);");
        w!("// Stage 2: the rows as read (or as written at the last edge), compare, victim, LRU.");
        let mram = "meta_ram$rdata";
        w!(
            "wire [{}:0] m = (bpm_v && bp_row == rd_row_q) ? bp_meta : {mram};",
            mw - 1
        );
        w!("wire [{}:0] vb = m[{}:0];", nw - 1, nw - 1);
        for wy in 0..nw {
            let ram = format!("way_ram${wy}$rdata");
            w!(
                "wire [{}:0] r{wy} = (bpr_v && bp_row == rd_row_q && bp_way == {wb}'d{wy}) ? bp_data : {ram};",
                rw - 1
            );
            if rk > 0 {
                w!(
                    "wire [{}:0] k{wy} = m[{}:{}] ^ {rk}'d{wy};",
                    rk - 1,
                    nw + (wy + 1) * rk - 1,
                    nw + wy * rk
                );
            }
            w!(
                "wire mt{wy} = vb[{wy}] && (r{wy}[{}:{}] == {{kid, pc, s2_sv1, s2_sv2, s2_sv3}});",
                rw - 1,
                rw - keyw
            );
            w!(
                "wire clr{wy} = vb[{wy}] && (sw_all || r{wy}[{}:{}] == sw_kid);",
                rw - 1,
                rw - k
            );
        }
        let mts: Vec<String> = (0..nw).map(|wy| format!("mt{wy}")).collect();
        w!("wire hit = {};", mts.join(" || "));
        w!("wire [{}:0] hway = {};", wb - 1, first_index(&mts, wb));
        let invs: Vec<String> = (0..nw).map(|wy| format!("!vb[{wy}]")).collect();
        w!("wire hasinv = {};", invs.join(" || "));
        w!("wire [{}:0] iway = {};", wb - 1, first_index(&invs, wb));
        if rk > 0 {
            let lrus: Vec<String> = (0..nw)
                .map(|wy| format!("k{wy} == {rk}'d{}", nw - 1))
                .collect();
            w!("wire [{}:0] lway = {};", wb - 1, first_index(&lrus, wb));
        } else {
            w!("wire [{}:0] lway = {wb}'d0;", wb - 1);
        }
        w!("wire [{}:0] vway = hasinv ? iway : lway;", wb - 1);
        w!("wire [{}:0] tway = hit ? hway : vway;", wb - 1);
        w!("wire touch = s2_v_q && (hit || op);");
        w!("wire wrow = s2_v_q && op;");
        // The touched way's row and rank.
        let mut trow = format!("{rw}'d0");
        for wy in (0..nw).rev() {
            trow = format!("(tway == {wb}'d{wy}) ? r{wy} : {trow}");
        }
        w!("wire [{}:0] trow = {trow};", rw - 1);
        let mut ranks_new = vec![];
        if rk > 0 {
            let mut tk = format!("{rk}'d0");
            for wy in (0..nw).rev() {
                tk = format!("(tway == {wb}'d{wy}) ? k{wy} : {tk}");
            }
            w!("wire [{}:0] tk = {tk};", rk - 1);
            for wy in 0..nw {
                w!(
                    "wire [{}:0] nk{wy} = (tway == {wb}'d{wy}) ? {rk}'d0 : (k{wy} < tk) ? k{wy} + {rk}'d1 : k{wy};",
                    rk - 1
                );
                ranks_new.push(format!("(nk{wy} ^ {rk}'d{wy})"));
            }
        }
        let tone = format!("({nw}'d1 << tway)");
        w!("wire [{}:0] nvb = vb | (op ? {tone} : {nw}'d0);", nw - 1);
        ranks_new.reverse();
        ranks_new.push("nvb".to_string());
        w!(
            "wire [{}:0] req_meta = {{{}}};",
            mw - 1,
            ranks_new.join(", ")
        );
        let clrs: Vec<String> = (0..nw).rev().map(|wy| format!("clr{wy}")).collect();
        w!("wire [{}:0] svb = vb & ~{{{}}};", nw - 1, clrs.join(", "));
        if rk > 0 {
            w!(
                "wire [{}:0] sweep_meta = sw_all ? {mw}'d0 : {{m[{}:{nw}], svb}};",
                mw - 1,
                mw - 1
            );
        } else {
            w!("wire [{}:0] sweep_meta = sw_all ? {mw}'d0 : svb;", mw - 1);
        }
        w!("wire mwe = !reset && (sw_v || touch);");
        w!("wire [{}:0] mwdata = sw_v ? sweep_meta : req_meta;", mw - 1);
        w!(
            "wire [{}:0] rwdata = hit ? {{trow[{}:{u}], s2_uid}} : {{kid, pc, s2_sv1, s2_sv2, s2_sv3, s2_res, s2_uid}};",
            rw - 1,
            rw - 1
        );
        w!("wire rwe = !reset && wrow;");
        // Response of this bank.
        w!("wire o_hit = s2_v_q && hit;");
        w!("wire [{}:0] o_way = (hit || op) ? tway : {wb}'d0;", wb - 1);
        w!("wire o_evict = wrow && !hit && !hasinv;");
        w!(
            "wire [{}:0] o_res = hit ? trow[{}:{u}] : {v}'d0;",
            v - 1,
            u + v - 1
        );
        w!(
            "wire [{}:0] o_uid = hit ? trow[{}:0] : {u}'d0;",
            u - 1,
            u - 1
        );
        w!("always @(posedge clock) begin");
        w!("    s2_v_q <= !reset && !busy && go;");
        w!("    s2_lane_q <= lane;");
        w!("    if (re) rd_row_q <= raddr;");
        for f in ["sv1", "sv2", "sv3", "res", "uid"] {
            w!("    s2_{f} <= {f};");
        }
        w!("    bpm_v <= mwe;");
        w!("    bpr_v <= rwe;");
        w!("    bp_row <= rd_row_q;");
        w!("    bp_way <= tway;");
        w!("    bp_data <= rwdata;");
        w!("    bp_meta <= mwdata;");
        w!("end");
        w!("// The RAMs: read at stage 1, written at stage 2 (address: the row read).");
        w!("always @(*) begin");
        let rams = (0..nw)
            .map(|wy| {
                (
                    format!("way_ram${wy}$"),
                    format!("rwe && tway == {wb}'d{wy}"),
                    "rwdata",
                )
            })
            .chain(std::iter::once((
                "meta_ram$".to_string(),
                "mwe".to_string(),
                "mwdata",
            )));
        for (r, we, data) in rams {
            w!("    {r}clock = clock;");
            w!("    {r}we = {we};");
            w!("    {r}wbe = 1'b1;");
            w!("    {r}waddr = rd_row_q;");
            w!("    {r}wdata = {data};");
            w!("    {r}re = re;");
            w!("    {r}raddr = raddr;");
        }
        w!("end");
        w!("always @(*) begin");
        w!("    s2_v = s2_v_q;");
        w!("    s2_lane = s2_lane_q;");
        w!("    rd_row = rd_row_q;");
        for f in ["hit", "way", "evict", "res", "uid"] {
            w!("    rsp_{f} = o_{f};");
        }
        w!("end");
        o
    }
}

impl Logic for MtgBank {
    fn update(&mut self) {}
    fn connect(&mut self) {
        for r in self
            .way_ram
            .iter_mut()
            .chain(std::iter::once(&mut self.meta_ram))
        {
            r.clock.connect();
            r.we.connect();
            r.wbe.connect();
            r.waddr.connect();
            r.wdata.connect();
            r.re.connect();
            r.raddr.connect();
        }
        self.s2_v.connect();
        self.s2_lane.connect();
        self.rd_row.connect();
        self.rsp_hit.connect();
        self.rsp_way.connect();
        self.rsp_evict.connect();
        self.rsp_res.connect();
        self.rsp_uid.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(self.verilog())
    }
}

/// `x` (of `from` bits) zero-extended to `to` bits.
fn zext(x: &str, from: usize, to: usize) -> String {
    if from == to {
        x.to_string()
    } else if from > to {
        format!("{x}[{}:0]", to - 1)
    } else {
        format!("{{{}'d0, {x}}}", to - from)
    }
}

/// A value of `v` bits folded to 32 (high half XOR low half, §2.5).
fn fold(x: &str, v: usize) -> String {
    if v <= 32 {
        zext(x, v, 32)
    } else {
        format!(
            "({x}[31:0] ^ {})",
            zext(&format!("{x}[{}:32]", v - 1), v - 32, 32)
        )
    }
}

/// `n` ternary terms: the index of the first `conds[i]`, else 0, as a `bits`-bit value.
fn first_index(conds: &[String], bits: usize) -> String {
    let mut e = format!("{bits}'d0");
    for (i, c) in conds.iter().enumerate().rev() {
        e = format!("({c}) ? {bits}'d{i} : {e}");
    }
    e
}

impl Mtg {
    fn verilog(&self) -> String {
        let c = &self._cfg;
        let (s, v, k, u, p) = (c.simd, c.val_bits, c.kid_bits, c.uid_bits, c.pc_bits);
        let nb = c.ports;
        let (sl, pl) = (c.set_log2(), c.port_log2());
        let (rb, lb, sb, wb) = (c.row_bits(), c.lane_bits(), c.set_bits(), c.way_bits());
        let last_row = c.bank_rows() - 1;
        let mut o = String::new();
        macro_rules! w {
            ($($t:tt)*) => { writeln!(o, $($t)*).unwrap() };
        }
        w!("// Registers (reset below; the RAMs have none).");
        w!("reg [{}:0] served_q;", s - 1);
        w!("reg busy_q;");
        w!("reg [{}:0] sweep_row_q;", rb - 1);
        w!("reg sweep_all_q;");
        w!("reg [{}:0] sweep_kid_q;", k - 1);
        w!("reg sw2_v;");
        w!("reg sw2_all;");
        w!("reg [{}:0] sw2_kid;", k - 1);
        w!("reg s2_op;");
        w!("reg [{}:0] s2_kid;", k - 1);
        w!("reg [{}:0] s2_pc;", p - 1);
        w!("// Stage 1: H per lane (§2.5), set, bank, bank row.");
        let pc_word = format!("({} >> 2)", zext("req_pc", p, 32));
        for l in 0..s {
            for f in ["sv1", "sv2", "sv3"] {
                w!(
                    "wire [{}:0] l{l}_{f} = req_{f}[{}:{}];",
                    v - 1,
                    (l + 1) * v - 1,
                    l * v
                );
            }
            w!("wire [31:0] l{l}_f1 = {};", fold(&format!("l{l}_sv1"), v));
            w!("wire [31:0] l{l}_f2 = {};", fold(&format!("l{l}_sv2"), v));
            w!("wire [31:0] l{l}_f3 = {};", fold(&format!("l{l}_sv3"), v));
            w!(
                "wire [31:0] l{l}_h = {pc_word} ^ l{l}_f1 ^ {{l{l}_f2[24:0], l{l}_f2[31:25]}} ^ {{l{l}_f3[18:0], l{l}_f3[31:19]}} ^ {};",
                zext("req_kid", k, 32)
            );
            if sl > 0 {
                w!("wire [{}:0] l{l}_set = l{l}_h[{}:0];", sb - 1, sl - 1);
            } else {
                w!("wire [0:0] l{l}_set = 1'd0;");
            }
            if pl > 0 {
                w!("wire [{}:0] l{l}_bank = l{l}_h[{}:0];", pl - 1, pl - 1);
            } else {
                w!("wire [0:0] l{l}_bank = 1'd0;");
            }
            if sl > pl {
                w!(
                    "wire [{}:0] l{l}_row = {};",
                    rb - 1,
                    zext(&format!("l{l}_h[{}:{pl}]", sl - 1), sl - pl, rb)
                );
            } else {
                w!("wire [{}:0] l{l}_row = {rb}'d0;", rb - 1);
            }
        }
        w!("// The pass: ascending unserved lanes while their banks differ (A14).");
        w!(
            "wire [{}:0] rem = (req_valid && !busy_q) ? (req_mask & ~served_q) : {s}'d0;",
            s - 1
        );
        w!("wire [{}:0] used_0 = {nb}'d0;", nb - 1);
        w!("wire stop_0 = 1'b0;");
        for l in 0..s {
            w!("wire take_{l} = rem[{l}] && !stop_{l} && !used_{l}[l{l}_bank];");
            w!(
                "wire stop_{} = stop_{l} || (rem[{l}] && used_{l}[l{l}_bank]);",
                l + 1
            );
            w!(
                "wire [{}:0] used_{} = used_{l} | (take_{l} ? ({nb}'d1 << l{l}_bank) : {nb}'d0);",
                nb - 1,
                l + 1
            );
        }
        let takes: Vec<String> = (0..s).rev().map(|l| format!("take_{l}")).collect();
        w!("wire [{}:0] pass = {{{}}};", s - 1, takes.join(", "));
        w!("wire ready_now = !busy_q && ((rem & ~pass) == {s}'d0);");
        for b in 0..nb {
            let sels: Vec<String> = (0..s)
                .map(|l| format!("(take_{l} && l{l}_bank == {}'d{b})", pl.max(1)))
                .collect();
            for (l, sel) in sels.iter().enumerate() {
                w!("wire b{b}_sel{l} = {sel};");
            }
            let any: Vec<String> = (0..s).map(|l| format!("b{b}_sel{l}")).collect();
            w!("wire b{b}_go = {};", any.join(" || "));
            let conds: Vec<String> = (0..s).map(|l| format!("b{b}_sel{l}")).collect();
            w!(
                "wire [{}:0] b{b}_lane = {};",
                lb - 1,
                first_index(&conds, lb)
            );
            let pick = |name: &str, width: usize| -> String {
                (0..s)
                    .map(|l| {
                        format!(
                            "(b{b}_sel{l} ? {} : {width}'d0)",
                            name.replace('#', &l.to_string())
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" | ")
            };
            w!("wire [{}:0] b{b}_row1 = {};", rb - 1, pick("l#_row", rb));
            w!("wire [{}:0] b{b}_sv1 = {};", v - 1, pick("l#_sv1", v));
            w!("wire [{}:0] b{b}_sv2 = {};", v - 1, pick("l#_sv2", v));
            w!("wire [{}:0] b{b}_sv3 = {};", v - 1, pick("l#_sv3", v));
            let res_l: Vec<String> = (0..s)
                .map(|l| {
                    format!(
                        "(b{b}_sel{l} ? req_res[{}:{}] : {v}'d0)",
                        (l + 1) * v - 1,
                        l * v
                    )
                })
                .collect();
            w!("wire [{}:0] b{b}_res = {};", v - 1, res_l.join(" | "));
            let uid_l: Vec<String> = (0..s)
                .map(|l| {
                    format!(
                        "(b{b}_sel{l} ? req_uid[{}:{}] : {u}'d0)",
                        (l + 1) * u - 1,
                        l * u
                    )
                })
                .collect();
            w!("wire [{}:0] b{b}_uid = {};", u - 1, uid_l.join(" | "));
            w!(
                "wire [{}:0] b{b}_raddr = busy_q ? sweep_row_q : b{b}_row1;",
                rb - 1
            );
        }

        w!("// Stage 2 is each bank's; its outputs, and the set of its lane (bank row above the bank bits).");
        for b in 0..nb {
            w!("wire b{b}_s2_v = bank${b}$s2_v;");
            w!("wire [{}:0] b{b}_s2_lane = bank${b}$s2_lane;", lb - 1);
            w!("wire [{}:0] b{b}_rd_row = bank${b}$rd_row;", rb - 1);
            w!("wire [0:0] b{b}_o_hit = bank${b}$rsp_hit;");
            w!("wire [{}:0] b{b}_o_way = bank${b}$rsp_way;", wb - 1);
            w!("wire [0:0] b{b}_o_evict = bank${b}$rsp_evict;");
            w!("wire [{}:0] b{b}_o_res = bank${b}$rsp_res;", v - 1);
            w!("wire [{}:0] b{b}_o_uid = bank${b}$rsp_uid;", u - 1);
            let set_expr = if sl == 0 {
                format!("{sb}'d0")
            } else if pl == 0 {
                zext(&format!("b{b}_rd_row[{}:0]", sl - 1), sl, sb)
            } else if sl > pl {
                format!("{{b{b}_rd_row[{}:0], {pl}'d{b}}}", sl - pl - 1)
            } else {
                format!("{sb}'d{b}")
            };
            w!("wire [{}:0] b{b}_o_set = {set_expr};", sb - 1);
        }
        // Per lane: the bank serving it (one at most).
        for l in 0..s {
            for b in 0..nb {
                w!("wire o{l}_b{b} = b{b}_s2_v && b{b}_s2_lane == {lb}'d{l};");
            }
        }
        let lane_or = |l: usize, f: &str, width: usize| -> String {
            (0..nb)
                .map(|b| format!("(o{l}_b{b} ? b{b}_{f} : {width}'d0)"))
                .collect::<Vec<_>>()
                .join(" | ")
        };
        let cat = |f: &str, width: usize| -> String {
            let parts: Vec<String> = (0..s)
                .rev()
                .map(|l| format!("({})", lane_or(l, f, width)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        };
        let lanes: Vec<String> = (0..s)
            .rev()
            .map(|l| {
                (0..nb)
                    .map(|b| format!("o{l}_b{b}"))
                    .collect::<Vec<_>>()
                    .join(" || ")
            })
            .map(|x| format!("({x})"))
            .collect();
        let valids: Vec<String> = (0..nb).map(|b| format!("b{b}_s2_v")).collect();
        w!("wire any_s2 = {};", valids.join(" || "));

        w!("// Next state.");
        w!("always @(posedge clock) begin");
        w!("    if (reset) begin");
        w!("        served_q <= {s}'d0;");
        w!("        busy_q <= 1'b1;");
        w!("        sweep_row_q <= {rb}'d0;");
        w!("        sweep_all_q <= 1'b1;");
        w!("        sweep_kid_q <= {k}'d0;");
        w!("    end else begin");
        w!("        if (req_valid && !busy_q) served_q <= ready_now ? {s}'d0 : (served_q | pass);");
        w!("        if (busy_q) begin");
        w!("            sweep_row_q <= (sweep_row_q == {rb}'d{last_row}) ? {rb}'d0 : sweep_row_q + {rb}'d1;");
        w!("            if (sweep_row_q == {rb}'d{last_row}) busy_q <= 1'b0;");
        w!("        end else if (inv_valid) begin");
        w!("            busy_q <= 1'b1;");
        w!("            sweep_row_q <= {rb}'d0;");
        w!("            sweep_all_q <= inv_all;");
        w!("            sweep_kid_q <= inv_kid;");
        w!("        end");
        w!("    end");
        w!("    sw2_v <= !reset && busy_q;");
        w!("    sw2_all <= sweep_all_q;");
        w!("    sw2_kid <= sweep_kid_q;");
        w!("    s2_op <= req_op;");
        w!("    s2_kid <= req_kid;");
        w!("    s2_pc <= req_pc;");
        w!("end");

        w!("// The banks: stage 1's lane and row in, stage 2's shared registers.");
        w!("always @(*) begin");
        for b in 0..nb {
            let r = format!("bank${b}$");
            w!("    {r}clock = clock;");
            w!("    {r}reset = reset;");
            w!("    {r}go = b{b}_go;");
            w!("    {r}busy = busy_q;");
            w!("    {r}raddr = b{b}_raddr;");
            w!("    {r}lane = b{b}_lane;");
            for f in ["sv1", "sv2", "sv3", "res", "uid"] {
                w!("    {r}{f} = b{b}_{f};");
            }
            w!("    {r}op = s2_op;");
            w!("    {r}kid = s2_kid;");
            w!("    {r}pc = s2_pc;");
            w!("    {r}sw_v = sw2_v;");
            w!("    {r}sw_all = sw2_all;");
            w!("    {r}sw_kid = sw2_kid;");
        }
        w!("end");

        w!("// Outputs.");
        w!("always @(*) begin");
        w!("    req_ready = ready_now;");
        w!("    busy = busy_q;");
        w!("    rsp_valid = any_s2;");
        w!("    rsp_op = any_s2 && s2_op;");
        w!("    rsp_lanes = {{{}}};", lanes.join(", "));
        w!("    rsp_set = {};", cat("o_set", sb));
        w!("    rsp_hit = {};", cat("o_hit", 1));
        w!("    rsp_way = {};", cat("o_way", wb));
        w!("    rsp_evict = {};", cat("o_evict", 1));
        w!("    rsp_res = {};", cat("o_res", v));
        w!("    rsp_uid = {};", cat("o_uid", u));
        w!("    dbg_served = served_q;");
        w!("    dbg_sweep_row = sweep_row_q;");
        w!("end");
        o
    }
}

impl Logic for Mtg {
    // Simulation is Verilator's job; rust-hdl only generates.
    fn update(&mut self) {}
    fn connect(&mut self) {
        for r in self.bank.iter_mut() {
            r.clock.connect();
            r.reset.connect();
            r.go.connect();
            r.busy.connect();
            r.raddr.connect();
            r.lane.connect();
            r.sv1.connect();
            r.sv2.connect();
            r.sv3.connect();
            r.res.connect();
            r.uid.connect();
            r.op.connect();
            r.kid.connect();
            r.pc.connect();
            r.sw_v.connect();
            r.sw_all.connect();
            r.sw_kid.connect();
        }
        self.req_ready.connect();
        self.busy.connect();
        self.rsp_valid.connect();
        self.rsp_op.connect();
        self.rsp_lanes.connect();
        self.rsp_set.connect();
        self.rsp_hit.connect();
        self.rsp_way.connect();
        self.rsp_evict.connect();
        self.rsp_res.connect();
        self.rsp_uid.connect();
        self.dbg_served.connect();
        self.dbg_sweep_row.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(self.verilog())
    }
}

/// Verilog of one dtm-mtg configuration.
pub fn generate(cfg: &MtgConfig) -> Design {
    let mut block = Mtg::new(cfg);
    emit(&mut block, &cfg.module_name())
}
