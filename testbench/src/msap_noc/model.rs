//! The port-level model of `msap-noc` ([`MsapNocModel`]): the router models of both meshes
//! ([`MsapRouterModel`], the V > 1 router with a static VC when `vcs > 1`) and the MC buffer
//! models ([`MsapMcModel`]) wired by the contract's rules, the NIs and the L2 stand-in on plain Rust state, and the network-level checks of
//! spec/msap.md §7.1 every cycle: each block's own invariants, I-9 / I-12 (every request
//! reaches its MC exactly once, in injection order per (SM, MC) flow, fields intact), I-2
//! (a reply carries its request's PL), I-9 for replies (every reply matches one outstanding
//! request of its SM, none twice), I-10 for the NI credits and I-14 (a watchdog: requests
//! outstanding and nothing delivered for `WDOG` cycles).

use std::collections::VecDeque;

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
    /// V > 1: the request mesh's routers give the lowest free VC, not the packet's own
    /// (requests of one flow can overtake each other: I-12).
    LowestFreeVc,
    /// V > 1: SM 0's NI sends every request on VC 0, not its flow's VC.
    NiVcZero,
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
    /// Credits per VC of the router's Local input.
    credit: [u32; 4],
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
    credit: [u32; 4],
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

/// Field widths and port offsets, looked up once (a step reads them for every block).
#[derive(Clone, Debug)]
struct Consts {
    /// Node address, PL, tag, line and MC-index bits.
    nb: usize,
    pb: usize,
    tb: usize,
    lb: usize,
    mb: usize,
    fb: usize,
    /// V, the flit's `vc` field width, and where `dst` starts (2 + vb).
    v: usize,
    fa: usize,
    /// Digest widths: one router's outputs, one MC buffer's, one NI's, one MC NI's.
    rbits: usize,
    mbits: usize,
    nib: usize,
    mcnib: usize,
    /// Bits of a reply-queue count, of a reply record, of an NI credit counter.
    rqb: usize,
    rb: usize,
    crb: usize,
    /// msap-noc ports.
    i_reset: usize,
    i_iv: usize,
    i_imc: usize,
    i_ipl: usize,
    i_itag: usize,
    i_iline: usize,
    o_ready: usize,
    o_rv: usize,
    o_rs: usize,
    o_rt: usize,
    o_rpl: usize,
    o_deq: usize,
    o_dbg_req: usize,
    o_dbg_rep: usize,
    o_dbg_mc: usize,
    o_dbg_ni: usize,
    o_dbg_mcni: usize,
    /// Router ports.
    r_reset: usize,
    r_iv: usize,
    r_if: usize,
    r_oc: usize,
    /// MC buffer ports.
    m_reset: usize,
    m_v: usize,
    m_line: usize,
    m_pl: usize,
    m_meta: usize,
    m_l2: usize,
    m_ov: usize,
    m_pl_out: usize,
    m_line_out: usize,
    m_mv: usize,
    m_meta_out: usize,
    /// Per block output, its (word offset, width) in layout order: the digest's fields.
    r_fields: Vec<(usize, usize)>,
    m_fields: Vec<(usize, usize)>,
}

impl Consts {
    fn new(c: &NocConfig, nl: &Layout, rl: &BlockPorts, ml: &BlockPorts) -> Consts {
        let i = |n: &str| nl.input(n).unwrap().offset;
        let o = |n: &str| nl.output(n).unwrap().offset;
        let fields = |l: &Layout| l.outputs.iter().map(|s| (s.offset, s.width)).collect();
        Consts {
            nb: c.node_bits(),
            pb: c.pl_bits,
            tb: c.tag_bits,
            lb: c.line_bits,
            mb: c.mc_bits(),
            fb: c.flit_bits(),
            v: c.vcs,
            fa: 2 + c.vb(),
            rbits: c.router_out_bits(),
            mbits: c.mc_out_bits(),
            nib: c.ni_bits(),
            mcnib: c.mcni_bits(),
            rqb: warpforge_contract::units::msap::bits_for(c.rq_depth),
            rb: c.rec_bits(),
            crb: c.credit_bits(),
            i_reset: i("reset"),
            i_iv: i("inj_valid"),
            i_imc: i("inj_mc"),
            i_ipl: i("inj_pl"),
            i_itag: i("inj_tag"),
            i_iline: i("inj_line"),
            o_ready: o("inj_ready"),
            o_rv: o("rep_valid"),
            o_rs: o("rep_src"),
            o_rt: o("rep_tag"),
            o_rpl: o("rep_pl"),
            o_deq: o("mc_deq"),
            o_dbg_req: o("dbg_req"),
            o_dbg_rep: o("dbg_rep"),
            o_dbg_mc: o("dbg_mc"),
            o_dbg_ni: o("dbg_ni"),
            o_dbg_mcni: o("dbg_mcni"),
            r_reset: rl.i("reset"),
            r_iv: rl.i("in_valid"),
            r_if: rl.i("in_flit"),
            r_oc: rl.i("out_credit"),
            m_reset: ml.i("reset"),
            m_v: ml.i("in_valid"),
            m_line: ml.i("in_line"),
            m_pl: ml.i("in_pl"),
            m_meta: ml.i("in_meta"),
            m_l2: ml.i("l2_ready"),
            m_ov: ml.o("out_valid"),
            m_pl_out: ml.o("out_pl"),
            m_line_out: ml.o("out_line"),
            m_mv: ml.o("meta_valid"),
            m_meta_out: ml.o("meta"),
            r_fields: fields(&rl.l),
            m_fields: fields(&ml.l),
        }
    }
}

/// A router's registered link outputs: per output port its flit, the `in_credit` bits.
type Links = ([Option<u64>; PORTS], u32);

/// The port-level model of `msap-noc`.
pub struct MsapNocModel {
    pub cfg: NocConfig,
    nl: Layout,
    k: Consts,
    /// SM node ids (increasing), every node's flit address, its neighbour per port.
    sms: Vec<usize>,
    addr: Vec<u64>,
    nbr: Vec<[Option<usize>; PORTS]>,
    /// Per-cycle scratch, kept to avoid allocating every cycle.
    rq_links: Vec<Links>,
    rp_links: Vec<Links>,
    deq: Vec<bool>,
    ni_send: Vec<bool>,
    mc_send: Vec<Option<u64>>,
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
    /// Node address → node id (usize::MAX: no node).
    node_of_addr: Vec<usize>,
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

/// OR `width` bits of `src` (from bit 0) into `dst` at bit `at` (the field is zero there):
/// a source word at a time, shifted into one or two destination words.
fn or_bits(dst: &mut [u64], at: usize, src: &[u64], width: usize) {
    let (w0, b) = (at / 64, at % 64);
    let n = width.div_ceil(64);
    for (j, &s) in src[..n].iter().enumerate() {
        let v = if j + 1 == n {
            s & mask(width - 64 * j)
        } else {
            s
        };
        dst[w0 + j] |= v << b;
        if b != 0 && b + (width - 64 * j).min(64) > 64 {
            dst[w0 + j + 1] |= v >> (64 - b);
        }
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
        let nl = Layout::new(&cfg.ports());
        let mut sm_of = vec![None; n];
        let mut mc_of = vec![None; n];
        for (k, &i) in cfg.sms().iter().enumerate() {
            sm_of[i] = Some(k);
        }
        for (m, &i) in cfg.mcs.iter().enumerate() {
            mc_of[i] = Some(m);
        }
        let mut node_of_addr = vec![usize::MAX; 1 << cfg.node_bits()];
        for i in 0..n {
            node_of_addr[cfg.addr(i) as usize] = i;
        }
        let mut m = MsapNocModel {
            k: Consts::new(cfg, &nl, &rl, &ml),
            nl,
            sms: cfg.sms(),
            addr: (0..n).map(|i| cfg.addr(i)).collect(),
            nbr: (0..n)
                .map(|i| std::array::from_fn(|p| neighbour(cfg, i, p)))
                .collect(),
            rq_links: Vec::with_capacity(n),
            rp_links: Vec::with_capacity(n),
            deq: vec![false; cfg.n_mc()],
            ni_send: vec![false; cfg.n_sm()],
            mc_send: vec![None; cfg.n_mc()],
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
            ni: vec![],
            mcni: vec![],
            sm_of,
            mc_of,
            node_of_addr,
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
        let rf = match fault {
            Some(NocFault::RouterPlIgnored) => Some(RouterFault::PlIgnored),
            Some(NocFault::LowestFreeVc) => Some(RouterFault::LowestFreeVc),
            _ => None,
        };
        self.rq.iter_mut().for_each(|r| r.inject_fault(rf));
    }

    fn reset_nis(&mut self) {
        let c = &self.cfg;
        self.ni = vec![
            Ni {
                credit: [c.buf_depth as u32; 4],
                ..Ni::default()
            };
            c.n_sm()
        ];
        self.mcni = vec![
            McNi {
                credit: [c.buf_depth as u32; 4],
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
        let k = &self.k;
        let (nb, pb, tb, fa) = (k.nb, k.pb, k.tb, k.fa);
        let pl = f >> (fa + nb) & mask(pb);
        let src = f >> (fa + nb + pb) & mask(nb);
        let tag = f >> (fa + 2 * nb + pb) & mask(tb);
        let line = f >> (fa + 2 * nb + pb + tb) & mask(k.lb);
        (self.node_of_addr[src as usize], tag, line, pl)
    }

    /// The reply flit k of a record `{pl, line, dst, tag}` from MC node `mc_node`.
    fn reply_flit(&self, rec: u64, k: u32, mc_node: usize) -> u64 {
        let (nb, pb, tb, lb, fa) = (self.k.nb, self.k.pb, self.k.tb, self.k.lb, self.k.fa);
        let pl = match self.fault {
            Some(NocFault::ReplyPlZero) => 0,
            _ => rec & mask(pb),
        };
        let line = rec >> pb & mask(lb);
        let dst = rec >> (pb + lb) & mask(nb);
        let tag = rec >> (pb + lb + nb) & mask(tb);
        let head = (k == 0) as u64;
        let tail = (k as usize == self.cfg.reply_flits - 1) as u64;
        let vc = self.cfg.vc_of(self.addr[mc_node], dst);
        head | tail << 1
            | vc << 2
            | dst << fa
            | pl << (fa + nb)
            | self.addr[mc_node] << (fa + nb + pb)
            | tag << (fa + 2 * nb + pb)
            | line << (fa + 2 * nb + pb + tb)
    }

    /// Step one router of a mesh with its Local port's (valid, flit, credit return) and the
    /// neighbours' links.
    fn step_router(
        &mut self,
        reply: bool,
        i: usize,
        reset: bool,
        local: Option<u64>,
        local_credit: u32,
    ) {
        const OPP: [usize; PORTS] = [0, 3, 4, 1, 2];
        let k = &self.k;
        let fb = k.fb;
        let links = if reply {
            &self.rp_links
        } else {
            &self.rq_links
        };
        let rin = &mut self.rin;
        rin.iter_mut().for_each(|w| *w = 0);
        rin[k.r_reset] = reset as u64;
        let mut iv = 0u64;
        let v = k.v;
        let vm = (1u64 << v) - 1;
        let mut oc = local_credit as u64;
        if let Some(f) = local {
            iv |= 1;
            words::set(&mut rin[k.r_if..], 0, fb, f);
        }
        for (p, nb) in self.nbr[i].iter().enumerate().skip(1) {
            if let Some(j) = *nb {
                let q = OPP[p];
                if let Some(f) = links[j].0[q] {
                    iv |= 1 << p;
                    words::set(&mut rin[k.r_if..], p * fb, fb, f);
                }
                oc |= (links[j].1 as u64 >> (q * v) & vm) << (p * v);
            }
        }
        rin[k.r_iv] = iv;
        rin[k.r_oc] = oc;
        if reply {
            self.rp[i].step(&self.rin, &mut self.rp_out[i]);
        } else {
            self.rq[i].step(&self.rin, &mut self.rq_out[i]);
        }
    }

    fn write_outputs(&self, out: &mut [u64]) {
        let c = &self.cfg;
        let k = &self.k;
        let (nb, pb, tb, fa) = (k.nb, k.pb, k.tb, k.fa);
        out.iter_mut().for_each(|w| *w = 0);
        // Every field below lands in a cleared vector: OR it in.
        let or = |out: &mut [u64], at: usize, w: usize, v: u64| words::or_seq(out, at, w, [v]);
        for (s, &i) in self.sms.iter().enumerate() {
            let ni = &self.ni[s];
            if ni.rows.len() < c.ni_depth {
                or(&mut out[k.o_ready..], s, 1, 1);
            }
            if let Some(f) = self.rp_links[i].0[0] {
                if f >> 1 & 1 == 1 {
                    or(&mut out[k.o_rv..], s, 1, 1);
                    or(
                        &mut out[k.o_rs..],
                        s * nb,
                        nb,
                        f >> (fa + nb + pb) & mask(nb),
                    );
                    or(
                        &mut out[k.o_rt..],
                        s * tb,
                        tb,
                        f >> (fa + 2 * nb + pb) & mask(tb),
                    );
                    or(&mut out[k.o_rpl..], s * pb, pb, f >> (fa + nb) & mask(pb));
                }
            }
        }
        for (m, &d) in self.deq.iter().enumerate() {
            if d {
                or(&mut out[k.o_deq..], m, 1, 1);
            }
        }
        // Digests: each block's outputs, port after port, block after block.
        for (base, outs) in [(k.o_dbg_req, &self.rq_out), (k.o_dbg_rep, &self.rp_out)] {
            for (i, v) in outs.iter().enumerate() {
                let mut at = i * k.rbits;
                for &(off, width) in &k.r_fields {
                    or_bits(&mut out[base..], at, &v[off..], width);
                    at += width;
                }
            }
        }
        for (m, v) in self.mc_out.iter().enumerate() {
            let mut at = m * k.mbits;
            for &(off, width) in &k.m_fields {
                or_bits(&mut out[k.o_dbg_mc..], at, &v[off..], width);
                at += width;
            }
        }
        let (base, nib) = (k.o_dbg_ni, k.nib);
        let cntb = nib - 1 - k.v * k.crb;
        for (s, ni) in self.ni.iter().enumerate() {
            let mut v = ni.rows.len() as u64 | (ni.front.is_some() as u64) << cntb;
            for w in 0..k.v {
                v |= (ni.credit[w] as u64) << (cntb + 1 + w * k.crb);
            }
            or(&mut out[base..], s * nib, nib, v);
        }
        let (base, rqb, rb) = (k.o_dbg_mcni, k.rqb, k.rb);
        for (m, n) in self.mcni.iter().enumerate() {
            let mut at = m * k.mcnib;
            let mut put = |w: usize, v: u64| {
                or(&mut out[base..], at, w, v);
                at += w;
            };
            put(rqb, n.resv as u64);
            let (v, pl, line) = n.s0.map_or((0, 0, 0), |(p, l)| (1, p, l));
            put(1, v);
            put(pb, pl);
            put(k.lb, line);
            for d in &n.dl {
                put(1, d.is_some() as u64);
                put(rb, d.unwrap_or(0));
            }
            put(rqb, n.rows.len() as u64);
            put(1, n.front.is_some() as u64);
            put(3, n.k as u64);
            for w in 0..k.v {
                put(k.crb, n.credit[w] as u64);
            }
        }
    }
}

/// The `vc` field of a flit (0 with V = 1: no field).
fn vc_at(f: u64, v: usize) -> usize {
    (f >> 2) as usize & (v - 1)
}

/// Node `i`'s neighbour through port `p` (1 North, 2 East, 3 South, 4 West), if any.
fn neighbour(c: &NocConfig, i: usize, p: usize) -> Option<usize> {
    let (x, y) = c.xy(i);
    match p {
        1 if y > 0 => Some(i - c.mesh_x),
        2 if x + 1 < c.mesh_x => Some(i + 1),
        3 if y + 1 < c.mesh_y => Some(i + c.mesh_x),
        4 if x > 0 => Some(i - 1),
        _ => None,
    }
}

impl Model for MsapNocModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.cycles += 1;
        self.done.clear();
        let (o_iv, o_imc, o_ipl, o_itag, o_iline) = (
            self.k.i_iv,
            self.k.i_imc,
            self.k.i_ipl,
            self.k.i_itag,
            self.k.i_iline,
        );
        let reset = inputs[self.k.i_reset] & 1 == 1;
        let (nb, pb, tb, lb, mb) = (self.k.nb, self.k.pb, self.k.tb, self.k.lb, self.k.mb);
        let (fa, v) = (self.k.fa, self.k.v);
        let (n, n_mc) = (self.cfg.nodes(), self.cfg.n_mc());
        let (ni_depth, rq_depth, buf_depth, reply_flits) = (
            self.cfg.ni_depth,
            self.cfg.rq_depth,
            self.cfg.buf_depth,
            self.cfg.reply_flits,
        );

        // The links of this cycle (registered router outputs).
        self.rq_links.clear();
        self.rq_links.extend(self.rq.iter().map(|r| r.links()));
        self.rp_links.clear();
        self.rp_links.extend(self.rp.iter().map(|r| r.links()));

        // MC buffers: arrivals from the request mesh, l2_ready from the reservations.
        let k = &self.k;
        let (mi_reset, mi_v, mi_line, mi_pl, mi_meta, mi_l2, mo_v) =
            (k.m_reset, k.m_v, k.m_line, k.m_pl, k.m_meta, k.m_l2, k.m_ov);
        for m in 0..n_mc {
            let i = self.cfg.mcs[m];
            let l2 = (self.mcni[m].resv as usize) < rq_depth;
            let min = &mut self.min;
            min.iter_mut().for_each(|w| *w = 0);
            min[mi_reset] = reset as u64;
            min[mi_l2] = l2 as u64;
            if let Some(f) = self.rq_links[i].0[0] {
                let src_at = fa + nb + pb;
                min[mi_v] = 1;
                min[mi_line] = f >> (src_at + nb + tb) & mask(lb);
                min[mi_pl] = f >> (fa + nb) & mask(pb);
                min[mi_meta] = f >> src_at & mask(nb + tb);
            }
            self.mc[m].step(&self.min, &mut self.mc_out[m]);
            let ov = self.mc_out[m][mo_v] & 1 == 1;
            self.deq[m] = ov && l2;
            if ov && !l2 {
                self.ev.l2_stalls += 1;
            }
        }

        // NI fronts sent this cycle.
        for (s, ni) in self.ni.iter().enumerate() {
            self.ni_send[s] = ni.front.is_some_and(|f| ni.credit[vc_at(f, v)] > 0);
        }
        for m in 0..n_mc {
            let x = &self.mcni[m];
            self.mc_send[m] = match x.front {
                Some(r) => {
                    let f = self.reply_flit(r, x.k, self.cfg.mcs[m]);
                    (x.credit[vc_at(f, v)] > 0).then_some(f)
                }
                None => None,
            };
        }

        // Routers.
        for i in 0..n {
            // Sinks return the credit on the arriving flit's VC; an MC buffer at a departure
            // (V = 1) or, with V > 1, when the departing request's meta names its VC.
            let sink = |l: &Links| l.0[0].map_or(0, |f| 1 << vc_at(f, v));
            let (local, credit) = match (self.sm_of[i], self.mc_of[i]) {
                (Some(s), _) => (
                    self.ni_send[s].then(|| self.ni[s].front.unwrap()),
                    sink(&self.rq_links[i]),
                ),
                (_, Some(m)) if v == 1 => (None, self.deq[m] as u32),
                (_, Some(m)) => {
                    let mo = &self.mc_out[m];
                    let cr = (mo[self.k.m_mv] & 1 == 1).then(|| {
                        let src = mo[self.k.m_meta_out] & mask(nb);
                        1 << self.cfg.vc_of(src, self.addr[i])
                    });
                    (None, cr.unwrap_or(0))
                }
                _ => unreachable!(),
            };
            self.step_router(false, i, reset, local, credit);
            let local = self.mc_of[i].and_then(|m| self.mc_send[m]);
            let credit = sink(&self.rp_links[i]);
            self.step_router(true, i, reset, local, credit);
        }

        self.write_outputs(outputs);
        if reset {
            self.reset_nis();
            return;
        }

        // Scoreboard: requests reaching MCs (I-9, I-12, I-2) and replies reaching SMs.
        for i in 0..n {
            if let Some(f) = self.rq_links[i].0[0] {
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
                let flow = &mut self.flows[s * n_mc + m];
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
            if let Some(f) = self.rp_links[i].0[0] {
                let Some(s) = self.sm_of[i] else {
                    self.fail(format!("I-9: a reply ejected at MC node {i}"));
                    continue;
                };
                if f >> 1 & 1 == 0 {
                    continue;
                }
                let (src, tag, line, pl) = self.fields(f);
                let m = self.mc_of.get(src).copied().flatten();
                // A tag repeats every 2^tag_bits requests of an SM, and MSAR lets a request
                // wait while younger ones pass: several outstanding requests can share
                // (MC, tag, line), and the reply is one of them — the oldest with its PL.
                // I-2 fails when none has it.
                let (mut same, mut with_pl) = (None, None::<usize>);
                for (h, &(mm, r)) in self.outstanding[s].iter().enumerate() {
                    if Some(mm) == m && r.tag == tag && r.line == line {
                        same.get_or_insert(h);
                        if r.pl == pl && with_pl.is_none_or(|w| r.at < self.outstanding[s][w].1.at)
                        {
                            with_pl = Some(h);
                        }
                    }
                }
                let hit = with_pl.or(same);
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
        for (s, &i) in self.sms.iter().enumerate() {
            let wr = words::get(&inputs[o_iv..], s, 1) == 1;
            let ni = &mut self.ni[s];
            let ready = ni.rows.len() < ni_depth;
            if wr && !ready {
                self.ev.ni_full += 1;
            }
            if ni.front.is_some() && !self.ni_send[s] {
                self.ev.ni_stalls += 1;
            }
            let send = self.ni_send[s];
            let rd = !ni.rows.is_empty() && (ni.front.is_none() || send);
            let sv = ni.front.map_or(0, |f| vc_at(f, v));
            let cr = self.rq_links[i].1;
            for w in 0..v {
                ni.credit[w] = ni.credit[w] - (send && sv == w) as u32 + (cr >> w & 1);
            }
            if send {
                ni.front = None;
            }
            if rd {
                ni.front = ni.rows.pop_front();
            }
            if wr && ready {
                let c = &self.cfg;
                let mcx = words::get(&inputs[o_imc..], s * mb, mb) as usize;
                let mi = c.mcs.get(mcx).copied().unwrap_or(c.mcs[0]);
                let m = self.mc_of[mi].unwrap();
                let pl = words::get(&inputs[o_ipl..], s * pb, pb);
                let tag = words::get(&inputs[o_itag..], s * tb, tb);
                let line = words::get(&inputs[o_iline..], s * lb, lb);
                let vc = match self.fault {
                    Some(NocFault::NiVcZero) if s == 0 => 0,
                    _ => c.vc_of(self.addr[i], self.addr[mi]),
                };
                let f = 3
                    | vc << 2
                    | self.addr[mi] << fa
                    | pl << (fa + nb)
                    | self.addr[i] << (fa + nb + pb)
                    | tag << (fa + 2 * nb + pb)
                    | line << (fa + 2 * nb + pb + tb);
                ni.rows.push_back(f);
                self.flows[s * n_mc + m].push_back(Req {
                    tag,
                    line,
                    pl,
                    at: self.cycles,
                });
                self.ev.injected += 1;
            }
            if ni.credit[..v].iter().any(|&x| x as usize > buf_depth) {
                let cr = ni.credit;
                let what = format!("I-10: SM {s}'s NI holds {cr:?} credits");
                if self.violation.is_none() {
                    self.violation = Some(format!("cycle {}: {what}", self.cycles));
                }
            }
        }

        // MC nodes: the L2 stand-in and the reply NI.
        let (mo_pl, mo_line, mo_mv, mo_meta) = (
            self.k.m_pl_out,
            self.k.m_line_out,
            self.k.m_mv,
            self.k.m_meta_out,
        );
        for m in 0..n_mc {
            let i = self.cfg.mcs[m];
            let mo = &self.mc_out[m];
            let meta = (mo[mo_mv] & 1 == 1).then_some(mo[mo_meta]);
            let (pl, line) = (mo[mo_pl], mo[mo_line]);
            let rec = self.mcni[m].s0.map(|(pl, line)| {
                let meta = meta.unwrap_or(0);
                let src = meta & mask(nb);
                let tag = meta >> nb & mask(tb);
                pl | line << pb | src << (pb + lb) | tag << (pb + lb + nb)
            });
            if self.mcni[m].s0.is_some() != meta.is_some() {
                self.fail(format!("MC {m}: meta_valid does not follow the dequeue"));
            }
            let x = &mut self.mcni[m];
            let write = if x.dl.is_empty() {
                rec
            } else {
                let last = x.dl.pop().unwrap();
                x.dl.insert(0, rec);
                last
            };
            x.s0 = self.deq[m].then_some((pl, line));
            let sent = self.mc_send[m].is_some();
            let pop = sent && x.k as usize == reply_flits - 1;
            if sent {
                x.k = if pop { 0 } else { x.k + 1 };
            }
            x.resv = x.resv + self.deq[m] as u32 - pop as u32;
            let sv = self.mc_send[m].map_or(0, |f| vc_at(f, v));
            let cr = self.rp_links[i].1;
            for w in 0..v {
                x.credit[w] = x.credit[w] - (sent && sv == w) as u32 + (cr >> w & 1);
            }
            if x.credit[..v].iter().any(|&c| c as usize > buf_depth) && self.violation.is_none() {
                let c = x.credit;
                self.violation = Some(format!(
                    "cycle {}: I-10: MC {m}'s reply NI holds {c:?} credits",
                    self.cycles
                ));
            }
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
            if x.resv as usize > rq_depth || x.rows.len() > rq_depth {
                let (r, q) = (x.resv, x.rows.len());
                self.fail(format!(
                    "MC {m}: {r} replies reserved, {q} queued (rq_depth {rq_depth})"
                ));
            }
        }
        let in_flight = self.in_flight();
        if in_flight > 0 && self.cycles - self.last_progress > WDOG {
            self.fail(format!(
                "I-14: {in_flight} requests outstanding and nothing delivered for {WDOG} cycles"
            ));
            self.last_progress = self.cycles;
        }
        if in_flight == 0 {
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
            rs.iter().map(|r| f(&r.counters())).sum::<u64>()
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
