//! The port-level `crown` model ([`CrownModel`], a [`Model`]): the contract's flat port
//! vectors in and out of [`Crown`], with every sub-unit's state digest — what lockstep with
//! the RTL compares — and [`PortEngine`], the regrouping engine that drives a port-level
//! model through those vectors (the RTL engine of the kernel mode has the same shape).

use std::collections::HashMap;
use warpforge_contract::units::crown::{pack_thi, unpack_thi, CrownConfig, Warp};
use warpforge_contract::Layout;

use super::{CommitEvent, Crown, CrownCounters, CrownIn, CrownOut, Engine};
use crate::words;
use crate::Model;

/// Port lookup by name (word offset, words), hashed once: the model and the engines look
/// ports up every cycle.
#[derive(Clone, Debug)]
pub struct PortMap {
    inputs: HashMap<String, (usize, usize)>,
    outputs: HashMap<String, (usize, usize)>,
    pub n_in: usize,
    pub n_out: usize,
}

impl PortMap {
    pub fn new(cfg: &CrownConfig) -> PortMap {
        let ports = cfg.ports();
        let layout = Layout::new(&ports);
        let map = |slots: &[warpforge_contract::manifest::Slot]| {
            slots
                .iter()
                .map(|s| (s.name.clone(), (s.offset, s.words)))
                .collect()
        };
        PortMap {
            inputs: map(&layout.inputs),
            outputs: map(&layout.outputs),
            n_in: layout.in_words,
            n_out: layout.out_words,
        }
    }
    fn i(&self, n: &str) -> usize {
        self.inputs
            .get(n)
            .unwrap_or_else(|| panic!("crown has no input {n}"))
            .0
    }
    /// An output's word range.
    fn range(&self, n: &str) -> std::ops::Range<usize> {
        let &(at, words) = self
            .outputs
            .get(n)
            .unwrap_or_else(|| panic!("crown has no output {n}"));
        at..at + words
    }
    fn o(&self, n: &str) -> usize {
        self.range(n).start
    }
    fn ow(&self, n: &str) -> usize {
        self.range(n).len()
    }
}

/// Packs one cycle's inputs.
pub fn encode(cfg: &CrownConfig, p: &PortMap, inp: &CrownIn, reset: bool, out: &mut [u64]) {
    let c = cfg.common();
    out.iter_mut().for_each(|x| *x = 0);
    out[p.i("reset")] = reset as u64;
    out[p.i("iss_ready")] = inp.iss_ready as u64;
    out[p.i("cta_mask")] = inp.cta_mask;
    if let Some(e) = &inp.cmt {
        out[p.i("cmt_valid")] = 1;
        out[p.i("cmt_kind")] = e.kind;
        out[p.i("cmt_row")] = e.row as u64;
        out[p.i("cmt_pc")] = e.pc;
        out[p.i("cmt_lanes")] = e.lanes;
        let t = pack_thi(
            &Warp {
                pc: 0,
                lanes: e.lanes,
                thi: e.thi.clone(),
            }
            .normalized(c.w)
            .thi,
            c.thi_bits(),
        );
        let at = p.i("cmt_thi");
        out[at..at + t.len()].copy_from_slice(&t);
        out[p.i("cmt_taken")] = e.taken;
        out[p.i("cmt_target")] = e.target;
        out[p.i("cmt_rpc")] = e.rpc.unwrap_or(0);
        out[p.i("cmt_rpc_valid")] = e.rpc.is_some() as u64;
    }
}

/// Reads one cycle's inputs: (reset, inputs).
pub fn decode(cfg: &CrownConfig, p: &PortMap, inputs: &[u64]) -> (bool, CrownIn) {
    let c = cfg.common();
    let cmt = (inputs[p.i("cmt_valid")] & 1 == 1).then(|| {
        let at = p.i("cmt_thi");
        let n = c.thi_vec_bits().div_ceil(64);
        CommitEvent {
            kind: inputs[p.i("cmt_kind")] & 7,
            row: inputs[p.i("cmt_row")] as usize,
            pc: inputs[p.i("cmt_pc")],
            lanes: inputs[p.i("cmt_lanes")],
            thi: unpack_thi(&inputs[at..at + n], c.w, c.thi_bits()),
            taken: inputs[p.i("cmt_taken")],
            target: inputs[p.i("cmt_target")],
            rpc: (inputs[p.i("cmt_rpc_valid")] & 1 == 1).then_some(inputs[p.i("cmt_rpc")]),
        }
    });
    (
        inputs[p.i("reset")] & 1 == 1,
        CrownIn {
            cmt,
            iss_ready: inputs[p.i("iss_ready")] & 1 == 1,
            cta_mask: inputs[p.i("cta_mask")] & ((1u64 << c.thi_bits()) - 1),
        },
    )
}

/// Reads the outputs the kernel driver needs.
pub fn decode_out(cfg: &CrownConfig, p: &PortMap, o: &[u64]) -> CrownOut {
    let c = cfg.common();
    let issued = (o[p.o("iss_valid")] & 1 == 1).then(|| {
        let at = p.o("iss_thi");
        let t = unpack_thi(&o[at..at + p.ow("iss_thi")], c.w, c.thi_bits());
        (
            o[p.o("iss_row")] as usize,
            Warp {
                pc: o[p.o("iss_pc")],
                lanes: o[p.o("iss_lanes")],
                thi: t,
            },
        )
    });
    CrownOut {
        cmt_ready: o[p.o("cmt_ready")] & 1 == 1,
        tag: Some((
            o[p.o("cmt_tag_wl")] & 1 == 1,
            o[p.o("cmt_tag_row")] as usize,
        )),
        issued,
        arrived: o[p.o("ev_arrive")],
        transfer: o[p.o("ev_transfer")] as u8,
        rl_merge: o[p.o("ev_rl_merge")] as u32,
        wl_merge: o[p.o("ev_wl_merge")] as u32,
        bar_fail: o[p.o("ev_bar_fail")] as u32,
    }
}

/// The port-level model of `crown`.
#[derive(Clone, Debug)]
pub struct CrownModel {
    pub crown: Crown,
    pub p: PortMap,
}

impl CrownModel {
    pub fn new(cfg: &CrownConfig) -> CrownModel {
        CrownModel {
            crown: Crown::new(cfg),
            p: PortMap::new(cfg),
        }
    }

    /// Registered outputs and digests of the start-of-cycle state.
    fn registered(&self, out: &mut [u64]) {
        let (m, p) = (&self.crown, &self.p);
        let cfg = m.config();
        let c = cfg.common();
        let (w, pb, tb) = (c.w, c.pc_bits, c.thi_bits());
        out.iter_mut().for_each(|x| *x = 0);
        if let Some((row, v)) = m.selected() {
            out[p.o("iss_valid")] = 1;
            out[p.o("iss_row")] = row as u64;
            out[p.o("iss_pc")] = v.pc;
            out[p.o("iss_lanes")] = v.lanes;
            let t = pack_thi(&v.thi, tb);
            let at = p.o("iss_thi");
            out[at..at + t.len()].copy_from_slice(&t);
        }
        out[p.o("ready_count")] = m.l2.ready_count() as u64;
        out[p.o("l2_occupancy")] = m.l2.occupancy() as u64;
        out[p.o("bar_live")] = m.bar.live() as u64;
        out[p.o("hold_valid")] = m.hold.is_some() as u64;
        // Each digest port's range is looked up once per cycle, not once per field.
        let field =
            |r: &std::ops::Range<usize>, k: usize, width: usize, v: u64, out: &mut [u64]| {
                words::set(&mut out[r.clone()], k * width, width, v);
            };
        let thi_field = |r: &std::ops::Range<usize>, k: usize, thi: &[u64], out: &mut [u64]| {
            words::or_seq(&mut out[r.clone()], k * w * tb, tb, thi.iter().copied());
        };
        if let Some(h) = &m.hold {
            let d = &mut out[p.range("dbg_hold")];
            words::set(d, 0, 1, 1);
            words::set(d, 1, pb, h.pc);
            words::set(d, 1 + pb, w, h.lanes);
            words::or_seq(d, 1 + pb + w, tb, h.thi.iter().copied());
        }
        // Two bit-planes (the crown-l2 contract): state bit 0 at r, bit 1 at n2 + r.
        let n2 = m.l2.rows();
        let st = &mut out[p.range("l2_dbg_state")];
        words::or_seq(st, 0, 1, (0..n2).map(|r| m.l2.state(r) & 1));
        words::or_seq(st, n2, 1, (0..n2).map(|r| m.l2.state(r) >> 1));
        let ip = &mut out[p.range("l2_dbg_in_pool")];
        words::or_seq(ip, 0, 1, (0..n2).map(|r| m.l2.in_pool(r) as u64));
        out[p.o("l2_dbg_head")] = m.l2.head().unwrap_or(0) as u64;
        let sb = cfg.pool.slot_bits();
        let (pv, ps) = (p.range("pool_dbg_valid"), p.range("pool_dbg_slot"));
        for (k, e) in m.pool.entries().iter().enumerate() {
            if let Some(e) = e {
                field(&pv, k, 1, 1, out);
                field(&ps, k, sb, e.slot as u64, out);
            }
        }
        out[p.o("pool_dbg_last")] = m.pool.last() as u64;
        for (pre, rows, ob) in [
            ("rl", m.rl.rows(), cfg.rl.ord_bits()),
            ("wl", m.wl.rows(), cfg.wl.ord_bits()),
        ] {
            let at = |n: &str| p.range(&format!("{pre}_dbg_{n}"));
            let (rv, rp, rla, rt, ro) = (at("valid"), at("pc"), at("lanes"), at("thi"), at("ord"));
            let rpend = (pre == "wl").then(|| at("pending"));
            for (r, row) in rows.iter().enumerate().filter(|(_, x)| x.valid) {
                let ord = if pre == "rl" {
                    m.rl.ord(r)
                } else {
                    m.wl.ord(r)
                };
                field(&rv, r, 1, 1, out);
                field(&rp, r, pb, row.pc, out);
                field(&rla, r, w, row.lanes, out);
                thi_field(&rt, r, &row.thi, out);
                field(&ro, r, ob, ord as u64, out);
                if let Some(rpend) = &rpend {
                    field(rpend, r, w, row.pending, out);
                }
            }
        }
        let ob = cfg.bar.ord_bits();
        let at = |n: &str| p.range(&format!("bar_dbg_{n}"));
        let (bv, bc, bp, be) = (at("valid"), at("complete"), at("pc"), at("expected"));
        let (ba, bt, bo) = (at("arrived"), at("thi"), at("ord"));
        for (e, x) in m.bar.entries().iter().enumerate().filter(|(_, x)| x.valid) {
            field(&bv, e, 1, 1, out);
            field(&bc, e, 1, x.complete as u64, out);
            field(&bp, e, pb, x.pc, out);
            field(&be, e, w, x.expected, out);
            field(&ba, e, w, x.arrived, out);
            thi_field(&bt, e, &x.thi, out);
            field(&bo, e, ob, m.bar.ord(e) as u64, out);
        }
    }

    /// Combinational outputs of this cycle.
    fn combinational(&self, o: &CrownOut, out: &mut [u64]) {
        let p = &self.p;
        out[p.o("cmt_ready")] = o.cmt_ready as u64;
        if let Some((wl, row)) = o.tag {
            out[p.o("cmt_tag_wl")] = wl as u64;
            out[p.o("cmt_tag_row")] = row as u64;
        }
        out[p.o("ev_rl_merge")] = o.rl_merge as u64;
        out[p.o("ev_wl_merge")] = o.wl_merge as u64;
        out[p.o("ev_bar_fail")] = o.bar_fail as u64;
        out[p.o("ev_arrive")] = o.arrived;
        out[p.o("ev_transfer")] = o.transfer as u64;
    }
}

impl Model for CrownModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.registered(outputs);
        let cfg = self.crown.config().clone();
        let (reset, inp) = decode(&cfg, &self.p, inputs);
        if reset {
            self.crown = Crown::new(&cfg);
            return;
        }
        let o = self.crown.cycle(&inp);
        self.combinational(&o, outputs);
    }
    fn check_invariants(&self) -> Result<(), String> {
        self.crown.check()
    }
    fn state_line(&self) -> String {
        self.crown.state_line()
    }
}

/// A regrouping engine that runs a port-level model through the packed vectors: the same
/// path the RTL takes. Its decisions must equal the struct model's, cycle by cycle.
pub struct PortEngine {
    pub model: CrownModel,
    cfg: CrownConfig,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
}

impl PortEngine {
    pub fn new(cfg: &CrownConfig) -> PortEngine {
        let model = CrownModel::new(cfg);
        PortEngine {
            inputs: vec![0; model.p.n_in],
            outputs: vec![0; model.p.n_out],
            model,
            cfg: cfg.clone(),
        }
    }
    /// The last cycle's output vector.
    pub fn outputs(&self) -> &[u64] {
        &self.outputs
    }
}

impl Engine for PortEngine {
    fn cycle(&mut self, inp: &CrownIn) -> Result<CrownOut, String> {
        encode(&self.cfg, &self.model.p, inp, false, &mut self.inputs);
        self.model.step(&self.inputs, &mut self.outputs);
        self.model.crown.check()?;
        let mut o = decode_out(&self.cfg, &self.model.p, &self.outputs);
        if !inp.iss_ready {
            o.issued = None;
        }
        // The tag means something only for a load the unit took.
        let is_load = inp
            .cmt
            .as_ref()
            .is_some_and(|e| e.kind == warpforge_contract::units::crown::kind::LOAD);
        if !(is_load && o.cmt_ready) {
            o.tag = None;
        }
        Ok(o)
    }
    fn counters(&self) -> CrownCounters {
        self.model.crown.ctr
    }
    fn state_line(&self) -> String {
        self.model.crown.state_line()
    }
    fn idle(&self) -> bool {
        self.model.crown.idle()
    }
}
