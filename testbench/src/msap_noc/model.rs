//! The port-level model of `msap-noc` ([`MsapNocModel`]): the router models of both meshes
//! ([`MsapRouterModel`]) and the MC buffer models ([`MsapMcModel`]) wired by the contract's
//! rules, the NIs and the L2 stand-in on plain Rust state, and the network-level checks of
//! spec/msap.md §7.1 every cycle: each block's own invariants, I-9 / I-12 (every request
//! reaches its MC exactly once, in injection order per (SM, MC) flow, fields intact), I-2
//! (a reply carries its request's PL), I-9 for replies (every reply matches one outstanding
//! request of its SM, none twice), I-10 for the NI credits and I-14 (a watchdog: requests
//! outstanding and nothing delivered for `WDOG` cycles).

use std::collections::{HashMap, VecDeque};

use warpforge_contract::units::msap_noc::NocConfig;
use warpforge_contract::units::msap_router::PORTS;
use warpforge_contract::Layout;

use crate::msap_mc::MsapMcModel;
use crate::msap_router::{MsapRouterModel, RouterFault};
use crate::words;
use crate::Model;

/// I-14: cycles without a delivery while requests are outstanding.
pub const WDOG: u64 = 10_000;

/// A deliberate model bug, for tests that show the checks and lockstep catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NocFault {
    /// Replies take PL 0 instead of the request's (breaks I-2 and the reply network's order).
    ReplyPlZero,
    /// The request mesh's arbiters ignore the PL (a router fault in every router).
    RouterPlIgnored,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct NocEvents {
    pub injected: u64,
    pub arrived: u64,
    pub replies: u64,
    /// Cycles an SM offered a request its NI refused (queue full).
    pub ni_full: u64,
    /// Cycles an NI front waited for a router credit.
    pub ni_stalls: u64,
    /// Cycles an MC buffer had a request but no reply slot (l2_ready = 0).
    pub l2_stalls: u64,
    /// Departures from an MC buffer that were not its oldest entry (MSAR reorders).
    pub mc_reorders: u64,
}

/// One request as the scoreboard knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Req {
    pub tag: u64,
    pub line: u64,
    pub pl: u64,
    /// The cycle its NI accepted it.
    pub at: u64,
}

#[derive(Clone, Debug, Default)]
struct Ni {
    rows: VecDeque<u64>,
    front: Option<u64>,
    credit: u32,
}

#[derive(Clone, Debug, Default)]
struct McNi {
    resv: u32,
    /// The dequeue of the last cycle: (pl, line).
    s0: Option<(u64, u64)>,
    /// The delay line's records (`svc_lat − 1` stages).
    dl: Vec<Option<u64>>,
    rows: VecDeque<u64>,
    front: Option<u64>,
    k: u32,
    credit: u32,
}

/// Offsets of a block's ports in its flat vectors.
#[derive(Clone, Debug)]
struct BlockPorts {
    l: Layout,
}

impl BlockPorts {
    fn i(&self, n: &str) -> usize {
        self.l.input(n).unwrap().offset
    }
    fn o(&self, n: &str) -> usize {
        self.l.output(n).unwrap().offset
    }
}

/// The port-level model of `msap-noc`.
pub struct MsapNocModel {
    pub cfg: NocConfig,
    nl: Layout,
    rl: BlockPorts,
    ml: BlockPorts,
    pub rq: Vec<MsapRouterModel>,
    pub rp: Vec<MsapRouterModel>,
    pub mc: Vec<MsapMcModel>,
    rq_out: Vec<Vec<u64>>,
    rp_out: Vec<Vec<u64>>,
    mc_out: Vec<Vec<u64>>,
    rin: Vec<u64>,
    min: Vec<u64>,
    ni: Vec<Ni>,
    mcni: Vec<McNi>,
    /// Node id → SM index / MC index.
    sm_of: Vec<Option<usize>>,
    mc_of: Vec<Option<usize>>,
    /// Node address → node id.
    node_of_addr: HashMap<u64, usize>,
    /// Requests in flight per (SM, MC), injection order.
    flows: Vec<VecDeque<Req>>,
    /// Requests at or past their MC, per SM: (MC, request).
    outstanding: Vec<Vec<(usize, Req)>>,
    /// Completed round trips of the last cycle: (SM, MC, request, cycle).
    pub done: Vec<(usize, usize, Req)>,
    cycles: u64,
    last_progress: u64,
    violation: Option<String>,
    fault: Option<NocFault>,
    pub ev: NocEvents,
}

fn mask(b: usize) -> u64 {
    if b >= 64 {
        u64::MAX
    } else {
        (1 << b) - 1
    }
}

/// Copy `width` bits from `src` (from bit 0) into `dst` at bit `at`.
fn copy_bits(dst: &mut [u64], at: usize, src: &[u64], width: usize) {
    let mut done = 0;
    while done < width {
        let w = (width - done).min(64);
        words::set(dst, at + done, w, words::get(src, done, w));
        done += w;
    }
}

impl MsapNocModel {
    pub fn new(cfg: &NocConfig) -> MsapNocModel {
        let n = cfg.nodes();
        let rl = BlockPorts {
            l: Layout::new(&cfg.router(0).ports()),
        };
        let ml = BlockPorts {
            l: Layout::new(&cfg.mc().ports()),
        };
        let mut sm_of = vec![None; n];
        let mut mc_of = vec![None; n];
        for (k, &i) in cfg.sms().iter().enumerate() {
            sm_of[i] = Some(k);
        }
        for (m, &i) in cfg.mcs.iter().enumerate() {
            mc_of[i] = Some(m);
        }
        let mut m = MsapNocModel {
            nl: Layout::new(&cfg.ports()),
            rq: (0..n)
                .map(|i| MsapRouterModel::new(&cfg.router(i)))
                .collect(),
            rp: (0..n)
                .map(|i| MsapRouterModel::new(&cfg.router(i)))
                .collect(),
            mc: (0..cfg.n_mc())
                .map(|_| MsapMcModel::new(&cfg.mc()))
                .collect(),
            rq_out: vec![vec![0; rl.l.out_words]; n],
            rp_out: vec![vec![0; rl.l.out_words]; n],
            mc_out: vec![vec![0; ml.l.out_words]; cfg.n_mc()],
            rin: vec![0; rl.l.in_words],
            min: vec![0; ml.l.in_words],
            rl,
            ml,
            ni: vec![],
            mcni: vec![],
            sm_of,
            mc_of,
            node_of_addr: (0..n).map(|i| (cfg.addr(i), i)).collect(),
            flows: vec![VecDeque::new(); cfg.n_sm() * cfg.n_mc()],
            outstanding: vec![vec![]; cfg.n_sm()],
            done: vec![],
            cycles: 0,
            last_progress: 0,
            violation: None,
            fault: None,
            ev: NocEvents::default(),
            cfg: cfg.clone(),
        };
        m.reset_nis();
        m
    }

    pub fn inject_fault(&mut self, fault: Option<NocFault>) {
        self.fault = fault;
        let rf = (fault == Some(NocFault::RouterPlIgnored)).then_some(RouterFault::PlIgnored);
        self.rq.iter_mut().for_each(|r| r.inject_fault(rf));
    }

    fn reset_nis(&mut self) {
        let c = &self.cfg;
        self.ni = vec![
            Ni {
                credit: c.buf_depth as u32,
                ..Ni::default()
            };
            c.n_sm()
        ];
        self.mcni = vec![
            McNi {
                credit: c.buf_depth as u32,
                dl: vec![None; c.svc_lat - 1],
                ..McNi::default()
            };
            c.n_mc()
        ];
        self.flows.iter_mut().for_each(|f| f.clear());
        self.outstanding.iter_mut().for_each(|o| o.clear());
    }

    fn fail(&mut self, what: String) {
        if self.violation.is_none() {
            self.violation = Some(format!("cycle {}: {what}", self.cycles));
        }
    }

    /// Requests accepted and not yet answered.
    pub fn in_flight(&self) -> usize {
        self.flows.iter().map(|f| f.len()).sum::<usize>()
            + self.outstanding.iter().map(|o| o.len()).sum::<usize>()
    }

    /// Request fields of a flit: (src node, tag, line, pl).
    fn fields(&self, f: u64) -> (usize, u64, u64, u64) {
        let c = &self.cfg;
        let (nb, pb, tb) = (c.node_bits(), c.pl_bits, c.tag_bits);
        let pl = f >> (2 + nb) & mask(pb);
        let src = f >> (2 + nb + pb) & mask(nb);
        let tag = f >> (2 + 2 * nb + pb) & mask(tb);
        let line = f >> (2 + 2 * nb + pb + tb) & mask(c.line_bits);
        let node = self.node_of_addr.get(&src).copied().unwrap_or(usize::MAX);
        (node, tag, line, pl)
    }

    /// The reply flit k of a record `{pl, line, dst, tag}` from MC node `mc_node`.
    fn reply_flit(&self, rec: u64, k: u32, mc_node: usize) -> u64 {
        let c = &self.cfg;
        let (nb, pb, tb, lb) = (c.node_bits(), c.pl_bits, c.tag_bits, c.line_bits);
        let pl = match self.fault {
            Some(NocFault::ReplyPlZero) => 0,
            _ => rec & mask(pb),
        };
        let line = rec >> pb & mask(lb);
        let dst = rec >> (pb + lb) & mask(nb);
        let tag = rec >> (pb + lb + nb) & mask(tb);
        let head = (k == 0) as u64;
        let tail = (k as usize == c.reply_flits - 1) as u64;
        head | tail << 1
            | dst << 2
            | pl << (2 + nb)
            | c.addr(mc_node) << (2 + nb + pb)
            | tag << (2 + 2 * nb + pb)
            | line << (2 + 2 * nb + pb + tb)
    }

    fn neighbour(&self, i: usize, p: usize) -> Option<usize> {
        let c = &self.cfg;
        let (x, y) = c.xy(i);
        match p {
            1 if y > 0 => Some(i - c.mesh_x),
            2 if x + 1 < c.mesh_x => Some(i + 1),
            3 if y + 1 < c.mesh_y => Some(i + c.mesh_x),
            4 if x > 0 => Some(i - 1),
            _ => None,
        }
    }

    /// Step one router of a mesh with its Local port's (valid, flit, credit return) and the
    /// neighbours' links.
    #[allow(clippy::too_many_arguments)]
    fn step_router(
        &mut self,
        reply: bool,
        i: usize,
        reset: bool,
        links: &[([Option<u64>; PORTS], [bool; PORTS])],
        local: Option<u64>,
        local_credit: bool,
    ) {
        const OPP: [usize; PORTS] = [0, 3, 4, 1, 2];
        let fb = self.cfg.flit_bits();
        let (o_reset, o_iv, o_if, o_oc) = (
            self.rl.i("reset"),
            self.rl.i("in_valid"),
            self.rl.i("in_flit"),
            self.rl.i("out_credit"),
        );
        let mut rin = std::mem::take(&mut self.rin);
        rin.iter_mut().for_each(|w| *w = 0);
        rin[o_reset] = reset as u64;
        let mut iv = 0u64;
        let mut oc = local_credit as u64;
        if let Some(f) = local {
            iv |= 1;
            words::set(&mut rin[o_if..], 0, fb, f);
        }
        #[allow(clippy::needless_range_loop)] // p is the port, OPP[p] its neighbour's
        for p in 1..PORTS {
            if let Some(j) = self.neighbour(i, p) {
                let q = OPP[p];
                if let Some(f) = links[j].0[q] {
                    iv |= 1 << p;
                    words::set(&mut rin[o_if..], p * fb, fb, f);
                }
                oc |= (links[j].1[q] as u64) << p;
            }
        }
        rin[o_iv] = iv;
        rin[o_oc] = oc;
        if reply {
            self.rp[i].step(&rin, &mut self.rp_out[i]);
        } else {
            self.rq[i].step(&rin, &mut self.rq_out[i]);
        }
        self.rin = rin;
    }

    fn write_outputs(
        &self,
        out: &mut [u64],
        deq: &[bool],
        rp_links: &[([Option<u64>; PORTS], [bool; PORTS])],
    ) {
        let c = &self.cfg;
        let nl = &self.nl;
        let o = |n: &str| nl.output(n).unwrap().offset;
        let (nb, pb, tb) = (c.node_bits(), c.pl_bits, c.tag_bits);
        out.iter_mut().for_each(|w| *w = 0);
        let (o_ready, o_rv, o_rs, o_rt, o_rpl) = (
            o("inj_ready"),
            o("rep_valid"),
            o("rep_src"),
            o("rep_tag"),
            o("rep_pl"),
        );
        for (k, &i) in c.sms().iter().enumerate() {
            let ni = &self.ni[k];
            if ni.rows.len() < c.ni_depth {
                words::set(&mut out[o_ready..], k, 1, 1);
            }
            if let Some(f) = rp_links[i].0[0] {
                if f >> 1 & 1 == 1 {
                    words::set(&mut out[o_rv..], k, 1, 1);
                    words::set(&mut out[o_rs..], k * nb, nb, f >> (2 + nb + pb) & mask(nb));
                    words::set(
                        &mut out[o_rt..],
                        k * tb,
                        tb,
                        f >> (2 + 2 * nb + pb) & mask(tb),
                    );
                    words::set(&mut out[o_rpl..], k * pb, pb, f >> (2 + nb) & mask(pb));
                }
            }
        }
        let o_deq = o("mc_deq");
        for (m, &d) in deq.iter().enumerate() {
            if d {
                words::set(&mut out[o_deq..], m, 1, 1);
            }
        }
        // Digests: each block's outputs, port after port, block after block.
        let rbits = c.router_out_bits();
        for (port, outs) in [("dbg_req", &self.rq_out), ("dbg_rep", &self.rp_out)] {
            let base = o(port);
            for (i, v) in outs.iter().enumerate() {
                let mut at = i * rbits;
                for s in &self.rl.l.outputs {
                    copy_bits(&mut out[base..], at, &v[s.offset..], s.width);
                    at += s.width;
                }
            }
        }
        let (base, mbits) = (o("dbg_mc"), c.mc_out_bits());
        for (m, v) in self.mc_out.iter().enumerate() {
            let mut at = m * mbits;
            for s in &self.ml.l.outputs {
                copy_bits(&mut out[base..], at, &v[s.offset..], s.width);
                at += s.width;
            }
        }
        let (base, nib) = (o("dbg_ni"), c.ni_bits());
        let cntb = nib - 1 - c.credit_bits();
        for (k, ni) in self.ni.iter().enumerate() {
            let v = ni.rows.len() as u64
                | (ni.front.is_some() as u64) << cntb
                | (ni.credit as u64) << (cntb + 1);
            words::set(&mut out[base..], k * nib, nib, v);
        }
        let (base, mb) = (o("dbg_mcni"), c.mcni_bits());
        let rqb = warpforge_contract::units::msap::bits_for(c.rq_depth);
        let rb = c.rec_bits();
        for (m, n) in self.mcni.iter().enumerate() {
            let mut at = m * mb;
            let mut put = |w: usize, v: u64| {
                words::set(&mut out[base..], at, w, v);
                at += w;
            };
            put(rqb, n.resv as u64);
            let (v, pl, line) = n.s0.map_or((0, 0, 0), |(p, l)| (1, p, l));
            put(1, v);
            put(c.pl_bits, pl);
            put(c.line_bits, line);
            for d in &n.dl {
                put(1, d.is_some() as u64);
                put(rb, d.unwrap_or(0));
            }
            put(rqb, n.rows.len() as u64);
            put(1, n.front.is_some() as u64);
            put(3, n.k as u64);
            put(c.credit_bits(), n.credit as u64);
        }
    }
}

impl Model for MsapNocModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.cycles += 1;
        self.done.clear();
        let c = self.cfg.clone();
        let nl = &self.nl;
        let i_of = |n: &str| nl.input(n).unwrap().offset;
        let (o_iv, o_imc, o_ipl, o_itag, o_iline) = (
            i_of("inj_valid"),
            i_of("inj_mc"),
            i_of("inj_pl"),
            i_of("inj_tag"),
            i_of("inj_line"),
        );
        let reset = inputs[i_of("reset")] & 1 == 1;
        let (nb, pb, tb, lb, mb) = (
            c.node_bits(),
            c.pl_bits,
            c.tag_bits,
            c.line_bits,
            c.mc_bits(),
        );
        let n = c.nodes();
        let sms = c.sms();

        // The links of this cycle (registered router outputs).
        let rq_links: Vec<_> = self.rq.iter().map(|r| r.links()).collect();
        let rp_links: Vec<_> = self.rp.iter().map(|r| r.links()).collect();

        // MC buffers: arrivals from the request mesh, l2_ready from the reservations.
        let mut deq = vec![false; c.n_mc()];
        let (mi_reset, mi_v, mi_line, mi_pl, mi_meta, mi_l2) = (
            self.ml.i("reset"),
            self.ml.i("in_valid"),
            self.ml.i("in_line"),
            self.ml.i("in_pl"),
            self.ml.i("in_meta"),
            self.ml.i("l2_ready"),
        );
        let mo_v = self.ml.o("out_valid");
        #[allow(clippy::needless_range_loop)] // m indexes MCs, their NIs and outputs alike
        for m in 0..c.n_mc() {
            let i = c.mcs[m];
            let l2 = (self.mcni[m].resv as usize) < c.rq_depth;
            let mut min = std::mem::take(&mut self.min);
            min.iter_mut().for_each(|w| *w = 0);
            min[mi_reset] = reset as u64;
            min[mi_l2] = l2 as u64;
            if let Some(f) = rq_links[i].0[0] {
                let src_at = 2 + nb + pb;
                min[mi_v] = 1;
                min[mi_line] = f >> (src_at + nb + tb) & mask(lb);
                min[mi_pl] = f >> (2 + nb) & mask(pb);
                min[mi_meta] = f >> src_at & mask(nb + tb);
            }
            self.mc[m].step(&min, &mut self.mc_out[m]);
            self.min = min;
            let ov = self.mc_out[m][mo_v] & 1 == 1;
            deq[m] = ov && l2;
            if ov && !l2 {
                self.ev.l2_stalls += 1;
            }
        }

        // NI fronts sent this cycle.
        let ni_send: Vec<bool> = self
            .ni
            .iter()
            .map(|n| n.front.is_some() && n.credit > 0)
            .collect();
        let mc_send: Vec<Option<u64>> = (0..c.n_mc())
            .map(|m| {
                let n = &self.mcni[m];
                match n.front {
                    Some(r) if n.credit > 0 => Some(self.reply_flit(r, n.k, c.mcs[m])),
                    _ => None,
                }
            })
            .collect();

        // Routers.
        for i in 0..n {
            let (local, credit) = match (self.sm_of[i], self.mc_of[i]) {
                (Some(k), _) => (
                    ni_send[k].then(|| self.ni[k].front.unwrap()),
                    rq_links[i].0[0].is_some(),
                ),
                (_, Some(m)) => (None, deq[m]),
                _ => unreachable!(),
            };
            self.step_router(false, i, reset, &rq_links, local, credit);
            let local = self.mc_of[i].and_then(|m| mc_send[m]);
            self.step_router(true, i, reset, &rp_links, local, rp_links[i].0[0].is_some());
        }

        self.write_outputs(outputs, &deq, &rp_links);
        if reset {
            self.reset_nis();
            return;
        }

        // Scoreboard: requests reaching MCs (I-9, I-12, I-2) and replies reaching SMs.
        for i in 0..n {
            if let Some(f) = rq_links[i].0[0] {
                let (src, tag, line, pl) = self.fields(f);
                let Some(m) = self.mc_of[i] else {
                    self.fail(format!("I-9: a request ejected at SM node {i}"));
                    continue;
                };
                let Some(s) = self.sm_of.get(src).copied().flatten() else {
                    self.fail(format!(
                        "I-9: a request at MC {m} from node {src}, not an SM"
                    ));
                    continue;
                };
                let flow = &mut self.flows[s * c.n_mc() + m];
                match flow.front() {
                    Some(r) if (r.tag, r.line, r.pl) == (tag, line, pl) => {
                        let r = flow.pop_front().unwrap();
                        self.outstanding[s].push((m, r));
                        self.ev.arrived += 1;
                        self.last_progress = self.cycles;
                    }
                    Some(r) => {
                        let r = *r;
                        self.fail(format!(
                            "I-9/I-12: MC {m} got SM {s}'s request tag {tag} line {line:#x} PL {pl}; next in that flow is tag {} line {:#x} PL {}",
                            r.tag, r.line, r.pl
                        ))
                    }
                    None => self.fail(format!(
                        "I-9: MC {m} got a request from SM {s} that SM never sent (tag {tag})"
                    )),
                }
            }
            if let Some(f) = rp_links[i].0[0] {
                let Some(s) = self.sm_of[i] else {
                    self.fail(format!("I-9: a reply ejected at MC node {i}"));
                    continue;
                };
                if f >> 1 & 1 == 0 {
                    continue;
                }
                let (src, tag, line, pl) = self.fields(f);
                let m = self.mc_of.get(src).copied().flatten();
                let hit = self.outstanding[s]
                    .iter()
                    .position(|&(mm, r)| Some(mm) == m && r.tag == tag && r.line == line);
                match hit {
                    Some(h) => {
                        let (mm, r) = self.outstanding[s].swap_remove(h);
                        if r.pl != pl {
                            self.fail(format!(
                                "I-2: SM {s}'s reply tag {tag} has PL {pl}, its request had {}",
                                r.pl
                            ));
                        }
                        self.done.push((s, mm, r));
                        self.ev.replies += 1;
                        self.last_progress = self.cycles;
                    }
                    None => self.fail(format!(
                        "I-9: SM {s} got a reply (tag {tag}, line {line:#x}, from node {src}) it has no request for"
                    )),
                }
            }
        }

        // SM NIs.
        for (k, &i) in sms.iter().enumerate() {
            let wr = words::get(&inputs[o_iv..], k, 1) == 1;
            let ni = &mut self.ni[k];
            let ready = ni.rows.len() < c.ni_depth;
            if wr && !ready {
                self.ev.ni_full += 1;
            }
            if ni.front.is_some() && ni.credit == 0 {
                self.ev.ni_stalls += 1;
            }
            let send = ni_send[k];
            let rd = !ni.rows.is_empty() && (ni.front.is_none() || send);
            ni.credit = ni.credit - send as u32 + rq_links[i].1[0] as u32;
            if send {
                ni.front = None;
            }
            if rd {
                ni.front = ni.rows.pop_front();
            }
            if wr && ready {
                let mcx = words::get(&inputs[o_imc..], k * mb, mb) as usize;
                let mi = c.mcs.get(mcx).copied().unwrap_or(c.mcs[0]);
                let m = self.mc_of[mi].unwrap();
                let pl = words::get(&inputs[o_ipl..], k * pb, pb);
                let tag = words::get(&inputs[o_itag..], k * tb, tb);
                let line = words::get(&inputs[o_iline..], k * lb, lb);
                let f = 3
                    | c.addr(mi) << 2
                    | pl << (2 + nb)
                    | c.addr(i) << (2 + nb + pb)
                    | tag << (2 + 2 * nb + pb)
                    | line << (2 + 2 * nb + pb + tb);
                ni.rows.push_back(f);
                self.flows[k * c.n_mc() + m].push_back(Req {
                    tag,
                    line,
                    pl,
                    at: self.cycles,
                });
                self.ev.injected += 1;
            }
            if ni.credit as usize > c.buf_depth {
                let cr = ni.credit;
                self.fail(format!("I-10: SM {k}'s NI holds {cr} credits"));
            }
        }

        // MC nodes: the L2 stand-in and the reply NI.
        let mo_pl = self.ml.o("out_pl");
        let mo_line = self.ml.o("out_line");
        let mo_mv = self.ml.o("meta_valid");
        let mo_meta = self.ml.o("meta");
        for m in 0..c.n_mc() {
            let i = c.mcs[m];
            let mo = self.mc_out[m].clone();
            let meta = (mo[mo_mv] & 1 == 1).then_some(mo[mo_meta]);
            let rec = self.mcni[m].s0.map(|(pl, line)| {
                let meta = meta.unwrap_or(0);
                let src = meta & mask(nb);
                let tag = meta >> nb & mask(tb);
                pl | line << pb | src << (pb + lb) | tag << (pb + lb + nb)
            });
            if self.mcni[m].s0.is_some() != meta.is_some() {
                self.fail(format!("MC {m}: meta_valid does not follow the dequeue"));
            }
            let (pl, line) = (mo[mo_pl], mo[mo_line]);
            let x = &mut self.mcni[m];
            let write = if x.dl.is_empty() {
                rec
            } else {
                let last = x.dl.pop().unwrap();
                x.dl.insert(0, rec);
                last
            };
            x.s0 = deq[m].then_some((pl, line));
            let sent = mc_send[m].is_some();
            let pop = sent && x.k as usize == c.reply_flits - 1;
            if sent {
                x.k = if pop { 0 } else { x.k + 1 };
            }
            x.resv = x.resv + deq[m] as u32 - pop as u32;
            x.credit = x.credit - sent as u32 + rp_links[i].1[0] as u32;
            let rd = !x.rows.is_empty() && (x.front.is_none() || pop);
            if pop {
                x.front = None;
            }
            if rd {
                x.front = x.rows.pop_front();
            }
            if let Some(r) = write {
                x.rows.push_back(r);
            }
            if x.resv as usize > c.rq_depth || x.rows.len() > c.rq_depth {
                let (r, q) = (x.resv, x.rows.len());
                self.fail(format!(
                    "MC {m}: {r} replies reserved, {q} queued (rq_depth {})",
                    c.rq_depth
                ));
            }
        }
        if self.in_flight() > 0 && self.cycles - self.last_progress > WDOG {
            self.fail(format!(
                "I-14: {} requests outstanding and nothing delivered for {WDOG} cycles",
                self.in_flight()
            ));
            self.last_progress = self.cycles;
        }
        if self.in_flight() == 0 {
            self.last_progress = self.cycles;
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        if let Some(v) = &self.violation {
            return Err(v.clone());
        }
        for (net, rs) in [("request", &self.rq), ("reply", &self.rp)] {
            for (i, r) in rs.iter().enumerate() {
                r.check_invariants()
                    .map_err(|e| format!("{net} router {i}: {e}"))?;
            }
        }
        for (m, q) in self.mc.iter().enumerate() {
            q.check_invariants().map_err(|e| format!("MC {m}: {e}"))?;
        }
        Ok(())
    }

    fn check_inputs(&self, inputs: &[u64]) -> Result<(), String> {
        let c = &self.cfg;
        let o = |n: &str| self.nl.input(n).unwrap().offset;
        if inputs[o("reset")] & 1 == 1 {
            return Ok(());
        }
        let mb = c.mc_bits();
        for k in 0..c.n_sm() {
            if words::get(&inputs[o("inj_valid")..], k, 1) == 1
                && words::get(&inputs[o("inj_mc")..], k * mb, mb) as usize >= c.n_mc()
            {
                return Err(format!(
                    "port inj_mc: SM {k} names an MC beyond {}",
                    c.n_mc() - 1
                ));
            }
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        let ni: usize = self
            .ni
            .iter()
            .map(|n| n.rows.len() + n.front.is_some() as usize)
            .sum();
        let mcq: Vec<String> = self
            .mc
            .iter()
            .zip(&self.mcni)
            .map(|(q, x)| format!("{}/{}r{}", q.q.count(), x.resv, x.rows.len()))
            .collect();
        format!(
            "in_flight={} ni={ni} mc=[{}] injected={} replies={}",
            self.in_flight(),
            mcq.join(" "),
            self.ev.injected,
            self.ev.replies
        )
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let e = &self.ev;
        let sum = |rs: &[MsapRouterModel], f: fn(&crate::msap_router::RouterEvents) -> u64| {
            rs.iter().map(|r| f(&r.ev)).sum::<u64>()
        };
        let mc_ev = |name: &str| {
            self.mc
                .iter()
                .map(|q| {
                    q.events()
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map_or(0, |x| x.1)
                })
                .sum::<u64>()
        };
        vec![
            ("replies", e.replies),
            ("injected", e.injected),
            ("arrived", e.arrived),
            ("ni_full", e.ni_full),
            ("ni_stalls", e.ni_stalls),
            ("l2_stalls", e.l2_stalls),
            ("req_contended", sum(&self.rq, |v| v.contended)),
            ("req_priority_wins", sum(&self.rq, |v| v.priority_wins)),
            ("rep_priority_wins", sum(&self.rp, |v| v.priority_wins)),
            ("req_urgent_grants", sum(&self.rq, |v| v.urgent_grants)),
            ("req_credit_stalls", sum(&self.rq, |v| v.credit_stalls)),
            ("rep_credit_stalls", sum(&self.rp, |v| v.credit_stalls)),
            ("mc_reorders", mc_ev("reorders")),
            ("mc_guard_waits", mc_ev("guard_blocks")),
        ]
    }
}
