//! The V > 1 router of the model ([`VcRouter`], behind [`super::MsapRouterModel`] when
//! `vcs > 1`): per input VC a buffer, front, state, route, latched PL and granted output VC;
//! per output VC busy, owner and credits; the separable input-first allocators of §3.4 for VA
//! and SA, each stage a [`PrioRr`] (stage 1 per input over its V VCs, stage 2 per output over
//! the five inputs), stage-1 pointers committed only for inputs that won stage 2 (§2.6's
//! iSLIP rule). Invariants checked every cycle as for V = 1, per output VC where §7.1 says so:
//! I-3 … I-5 on every VA and SA round, I-9, I-10 per VC, I-11 per output VC (a packet's flits
//! contiguous on its VC, from the owning input VC), and no two flits of one input per cycle.

use std::collections::VecDeque;

use warpforge_contract::units::msap_router::{RouterConfig, ACTIVE, IDLE, PORTS, VA};

use super::model::{decode, xy_route, Ports, RouterEvents, RouterFault};
use crate::msap_arbiter::PrioRr;
use crate::words;

#[derive(Clone, Debug, Default)]
struct InVc {
    buf: VecDeque<u64>,
    front: Option<u64>,
    state: u64,
    route: usize,
    vcpl: u32,
    ovc: usize,
    cret: bool,
}

#[derive(Clone, Debug, Default)]
struct OutVc {
    busy: bool,
    owner: usize,
    credit: u32,
    /// I-11: the input VC whose packet is on this output VC (head seen, tail not yet).
    stream: Option<usize>,
}

/// One separable round: per input the stage-1 winner (VC, level), per output the stage-2
/// grant (input, level) with its request vector.
struct Round {
    s1: [Option<(usize, u32, u32)>; PORTS],
    s2: [Option<(usize, u32, u32)>; PORTS],
}

#[derive(Clone, Debug)]
pub(crate) struct VcRouter {
    cfg: RouterConfig,
    p: Ports,
    v: usize,
    inp: Vec<InVc>,
    out: Vec<OutVc>,
    oreg: [Option<u64>; PORTS],
    va1: Vec<PrioRr>,
    va2: Vec<PrioRr>,
    sa1: Vec<PrioRr>,
    sa2: Vec<PrioRr>,
    arrived: u64,
    left: u64,
    cycles: u64,
    violation: Option<String>,
    pub fault: Option<RouterFault>,
    pub ev: RouterEvents,
    /// SA rounds at an output with two or more inputs (V > 1: the switch is contended).
    pub sa_contended: u64,
    /// An output sent a flit of another VC's packet while a packet was open on one of its VCs.
    pub vc_interleaved: u64,
}

impl VcRouter {
    pub fn new(cfg: &RouterConfig, p: Ports) -> VcRouter {
        let a1 = cfg.arbiter1();
        let a2 = cfg.arbiter();
        let mut r = VcRouter {
            v: cfg.vcs,
            inp: vec![InVc::default(); cfg.nq()],
            out: vec![OutVc::default(); cfg.nq()],
            oreg: [None; PORTS],
            va1: (0..PORTS).map(|_| PrioRr::new(&a1)).collect(),
            va2: (0..PORTS).map(|_| PrioRr::new(&a2)).collect(),
            sa1: (0..PORTS).map(|_| PrioRr::new(&a1)).collect(),
            sa2: (0..PORTS).map(|_| PrioRr::new(&a2)).collect(),
            arrived: 0,
            left: 0,
            cycles: 0,
            violation: None,
            fault: None,
            ev: RouterEvents::default(),
            sa_contended: 0,
            vc_interleaved: 0,
            cfg: cfg.clone(),
            p,
        };
        r.reset();
        r
    }

    /// The registered links: per output port its flit, the `in_credit` bits (q = p·V + v).
    pub fn links(&self) -> ([Option<u64>; PORTS], u32) {
        let cr = self
            .inp
            .iter()
            .enumerate()
            .fold(0, |a, (q, i)| a | (i.cret as u32) << q);
        (self.oreg, cr)
    }

    fn reset(&mut self) {
        for a in [&mut self.va1, &mut self.va2, &mut self.sa1, &mut self.sa2] {
            a.iter_mut().for_each(|a| a.reset());
        }
        self.inp.iter_mut().for_each(|i| *i = InVc::default());
        for o in &mut self.out {
            *o = OutVc {
                credit: self.cfg.buf_depth as u32,
                ..OutVc::default()
            };
        }
        self.oreg = [None; PORTS];
        self.arrived = 0;
        self.left = 0;
    }

    fn fail(&mut self, what: String) {
        if self.violation.is_none() {
            self.violation = Some(format!("cycle {}: {what}", self.cycles));
        }
    }

    /// A separable round: `req1[p]` = input p's requesting VCs, `target(q)` the output an input
    /// VC asks for, `pl(q)` its PL. Checks I-3 … I-5 at both stages.
    fn round(
        &mut self,
        what: &str,
        req1: [u32; PORTS],
        target: &dyn Fn(usize) -> usize,
        pl: &dyn Fn(usize) -> u32,
        sa: bool,
    ) -> Round {
        let v = self.v;
        let mut s1 = [None; PORTS];
        for (p, &req) in req1.iter().enumerate() {
            let pls: Vec<u32> = (0..v).map(|k| pl(p * v + k)).collect();
            let arb = if sa { &self.sa1[p] } else { &self.va1[p] };
            let lv = arb.levels(&pls);
            let win = arb.arbitrate_levels(req, &lv);
            self.check_grant(what, "input", p, req, &lv, win);
            s1[p] = win.map(|(g, m)| (g, m, req));
        }
        let mut s2 = [None; PORTS];
        let mut granted = [false; PORTS];
        #[allow(clippy::needless_range_loop)] // o indexes outputs and arbiters alike
        for o in 0..PORTS {
            let mut req = 0u32;
            let mut pls = [0u32; PORTS];
            for (p, w) in s1.iter().enumerate() {
                if let Some((k, _, _)) = *w {
                    pls[p] = pl(p * v + k);
                    if target(p * v + k) == o {
                        req |= 1 << p;
                    }
                }
            }
            let arb = if sa { &self.sa2[o] } else { &self.va2[o] };
            let lv = arb.levels(&pls);
            let win = arb.arbitrate_levels(req, &lv);
            self.check_grant(what, "output", o, req, &lv, win);
            if let Some((g, m)) = win {
                if granted[g] {
                    self.fail(format!("I-3: {what}: input {g} granted twice"));
                }
                granted[g] = true;
                let e = &mut self.ev;
                if !sa {
                    e.grants += 1;
                    e.contended += (req.count_ones() >= 2) as u64;
                    e.priority_wins += (0..PORTS).any(|r| req >> r & 1 == 1 && lv[r] < m) as u64;
                } else {
                    self.sa_contended += (req.count_ones() >= 2) as u64;
                }
                s2[o] = Some((g, m, req));
            }
        }
        Round { s1, s2 }
    }

    fn check_grant(
        &mut self,
        what: &str,
        side: &str,
        k: usize,
        req: u32,
        lv: &[u32; 16],
        win: Option<(usize, u32)>,
    ) {
        match win {
            None if req != 0 => self.fail(format!("I-4: {what} {side} {k}: requests, no grant")),
            None => {}
            Some((g, m)) => {
                if req >> g & 1 == 0 {
                    self.fail(format!("I-3: {what} {side} {k}: grant {g} without request"));
                }
                if let Some(r) = (0..16).find(|&r| req >> r & 1 == 1 && lv[r] > m) {
                    self.fail(format!(
                        "I-5: {what} {side} {k}: requester {r} above the winner {g}"
                    ));
                }
            }
        }
    }

    fn commit(&mut self, r: &Round, sa: bool) {
        if sa && self.fault == Some(RouterFault::Stage1AlwaysCommits) {
            for (p, s) in r.s1.iter().enumerate() {
                if let Some((k, m1, req1)) = *s {
                    self.sa1[p].commit(req1, k, m1);
                }
            }
            for (o, s) in r.s2.iter().enumerate() {
                if let Some((g, m, req)) = *s {
                    self.sa2[o].commit(req, g, m);
                }
            }
            return;
        }
        for (o, s) in r.s2.iter().enumerate() {
            let Some((g, m, req)) = *s else { continue };
            let (k, m1, req1) = r.s1[g].expect("a stage-2 grant has a stage-1 winner");
            if sa {
                self.sa2[o].commit(req, g, m);
                self.sa1[g].commit(req1, k, m1);
            } else {
                self.va2[o].commit(req, g, m);
                self.va1[g].commit(req1, k, m1);
            }
        }
    }

    fn write_outputs(&self, va: &Round, sa: &Round, out: &mut [u64]) {
        let (p, c) = (&self.p, &self.cfg);
        let (fb, cb, pb, vb, ob) = (
            c.flit_bits(),
            c.count_bits(),
            c.pl_bits,
            c.vb(),
            c.owner_bits(),
        );
        out.iter_mut().for_each(|w| *w = 0);
        for (k, f) in self.oreg.iter().enumerate() {
            if let Some(f) = *f {
                out[p.out_valid] |= 1 << k;
                words::set(&mut out[p.out_flit..], k * fb, fb, f);
            }
            if let Some((g, _, _)) = va.s2[k] {
                words::set(&mut out[p.dbg_gnt..], PORTS * k, PORTS, 1 << g);
            }
            if let Some((g, _, _)) = sa.s2[k] {
                words::set(&mut out[p.dbg_sa..], PORTS * k, PORTS, 1 << g);
            }
        }
        for (q, i) in self.inp.iter().enumerate() {
            words::set(&mut out[p.in_credit..], q, 1, i.cret as u64);
            words::set(&mut out[p.dbg_count..], q * cb, cb, i.buf.len() as u64);
            words::set(&mut out[p.dbg_front..], q, 1, i.front.is_some() as u64);
            words::set(&mut out[p.dbg_state..], 2 * q, 2, i.state);
            words::set(&mut out[p.dbg_route..], 3 * q, 3, i.route as u64);
            words::set(&mut out[p.dbg_vcpl..], pb * q, pb, i.vcpl as u64);
            words::set(&mut out[p.dbg_ovc..], vb * q, vb, i.ovc as u64);
        }
        for (q, o) in self.out.iter().enumerate() {
            words::set(&mut out[p.dbg_busy..], q, 1, o.busy as u64);
            words::set(&mut out[p.dbg_owner..], ob * q, ob, o.owner as u64);
            words::set(&mut out[p.dbg_credit..], cb * q, cb, o.credit as u64);
        }
        let ptrs = |arbs: &[PrioRr], at: usize, out: &mut [u64]| {
            let a = arbs[0].config();
            let ib = a.idx_bits();
            let w = a.ptrs() * ib;
            for (k, arb) in arbs.iter().enumerate() {
                for (j, &v) in arb.ptrs().iter().enumerate() {
                    words::set(&mut out[at..], k * w + j * ib, ib, v as u64);
                }
            }
        };
        ptrs(&self.va2, p.dbg_ptr, out);
        ptrs(&self.va1, p.dbg_ptr_va1, out);
        ptrs(&self.sa1, p.dbg_ptr_sa1, out);
        ptrs(&self.sa2, p.dbg_ptr_sa2, out);
    }

    pub fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.cycles += 1;
        let cfg = self.cfg.clone();
        let (v, fb, depth) = (self.v, cfg.flit_bits(), cfg.buf_depth);
        let reset = inputs[self.p.reset] & 1 == 1;
        let pl_of = |i: &InVc| {
            if self.fault == Some(RouterFault::PlIgnored) {
                0
            } else {
                i.vcpl
            }
        };
        let pls: Vec<u32> = self.inp.iter().map(pl_of).collect();
        // RC from the state at the start of the cycle: an IDLE VC with a head in front.
        let rc: Vec<bool> = self
            .inp
            .iter()
            .map(|i| i.state == IDLE && i.front.is_some_and(|f| decode(&cfg, f).head))
            .collect();
        let routes: Vec<usize> = self.inp.iter().map(|i| i.route).collect();

        // VA: an input VC in VA asks for its route while one of that output's VCs is free.
        let free: Vec<Option<usize>> = (0..PORTS)
            .map(|o| (0..v).find(|&w| !self.out[o * v + w].busy))
            .collect();
        // With a static VC (the network's routers) only the packet's own VC will do.
        let stat = cfg.static_vc && self.fault != Some(RouterFault::LowestFreeVc);
        let mut req1 = [0u32; PORTS];
        for (q, i) in self.inp.iter().enumerate() {
            let ok = if stat {
                !self.out[i.route * v + q % v].busy
            } else {
                free[i.route].is_some()
            };
            if i.state == VA && ok {
                req1[q / v] |= 1 << (q % v);
            }
        }
        let va = self.round("VA", req1, &|q| routes[q], &|q| pls[q], false);

        // SA: an ACTIVE input VC with a front flit and a credit on its output VC.
        let mut req1 = [0u32; PORTS];
        for (q, i) in self.inp.iter().enumerate() {
            if i.state != ACTIVE || i.front.is_none() {
                continue;
            }
            let ok = self.out[i.route * v + i.ovc].credit > 0;
            if ok || self.fault == Some(RouterFault::NoCreditCheck) {
                req1[q / v] |= 1 << (q % v);
            } else {
                self.ev.credit_stalls += 1;
            }
        }
        let sa = self.round("SA", req1, &|q| routes[q], &|q| pls[q], true);

        self.write_outputs(&va, &sa, outputs);
        if reset {
            self.reset();
            return;
        }
        self.commit(&va, false);
        self.commit(&sa, true);

        // VA grants: the output's lowest free VC.
        for (o, s) in va.s2.iter().enumerate() {
            let Some((g, _, _)) = *s else { continue };
            let q = g * v + va.s1[g].unwrap().0;
            let w = if stat {
                q % v
            } else {
                free[o].expect("VA grants only with a free VC")
            };
            if self.out[o * v + w].busy {
                self.fail(format!("VA granted busy output VC {o}.{w} to input VC {q}"));
            }
            self.out[o * v + w].busy = true;
            self.out[o * v + w].owner = q;
            self.inp[q].state = ACTIVE;
            self.inp[q].ovc = w;
        }

        // SA grants: the front flit leaves on its output VC (vc field rewritten).
        let vmask = ((1u64 << cfg.vb()) - 1) << cfg.vc_at();
        let mut go = vec![false; cfg.nq()];
        let mut sent = [None::<u64>; PORTS];
        for (o, s) in sa.s2.iter().enumerate() {
            let Some((g, _, _)) = *s else { continue };
            let q = g * v + sa.s1[g].unwrap().0;
            go[q] = true;
            let (f, w) = (self.inp[q].front.unwrap(), self.inp[q].ovc);
            let f = (f & !vmask) | (w as u64) << cfg.vc_at();
            sent[o] = Some(f);
            let fl = decode(&cfg, f);
            let ovc = &mut self.out[o * v + w];
            if !ovc.busy || ovc.owner != q {
                self.fail(format!(
                    "I-11: input VC {q} sends on output {o} VC {w}, which it does not own"
                ));
            }
            let stream = self.out[o * v + w].stream;
            match stream {
                None if !fl.head => self.fail(format!(
                    "I-11: output {o} VC {w}: a body flit without its head"
                )),
                Some(r) if r != q || fl.head => self.fail(format!(
                    "I-11: output {o} VC {w}: input VC {q}'s flit inside input VC {r}'s packet"
                )),
                _ => {}
            }
            let others_open = (0..v).any(|k| k != w && self.out[o * v + k].stream.is_some());
            self.vc_interleaved += others_open as u64;
            let ovc = &mut self.out[o * v + w];
            ovc.stream = (!fl.tail).then_some(q);
            let release = fl.tail || (self.fault == Some(RouterFault::ReleaseAtHead) && fl.head);
            if release {
                ovc.busy = false;
            }
            if ovc.credit == 0 {
                self.violation.get_or_insert(format!(
                    "cycle {}: I-10: output {o} VC {w}: a flit without a credit",
                    self.cycles
                ));
            }
            ovc.credit = ovc.credit.saturating_sub(1);
            if fl.tail {
                self.inp[q].state = IDLE;
            }
            self.left += 1;
            self.ev.flits += 1;
            self.ev.packets += fl.tail as u64;
            self.ev.ejected += (o == 0) as u64;
        }
        self.oreg = sent;

        // Input VCs: RC latches, buffer reads, arrivals.
        for (q, g) in go.iter().enumerate() {
            let i = &mut self.inp[q];
            if rc[q] {
                let f = decode(&cfg, i.front.unwrap());
                i.state = VA;
                i.route = xy_route(cfg.x, cfg.y, f.dst_x, f.dst_y);
                i.vcpl = f.pl;
            }
            let rd = !i.buf.is_empty() && (i.front.is_none() || *g);
            if *g {
                i.front = None;
            }
            if rd {
                i.front = i.buf.pop_front();
            }
            i.cret = rd;
        }
        let in_valid = inputs[self.p.in_valid];
        for p in 0..PORTS {
            if in_valid >> p & 1 == 0 {
                continue;
            }
            let f = words::get(&inputs[self.p.in_flit..], p * fb, fb);
            let vc = ((f >> cfg.vc_at()) & ((1u64 << cfg.vb()) - 1)) as usize;
            let q = p * v + vc;
            if self.inp[q].buf.len() >= depth {
                self.fail(format!(
                    "I-10: input {p} VC {vc}: a flit into a full buffer"
                ));
            }
            self.inp[q].buf.push_back(f);
            self.arrived += 1;
        }
        self.ev.full_buffers += self.inp.iter().filter(|i| i.buf.len() == depth).count() as u64;

        for (q, o) in self.out.iter_mut().enumerate() {
            if words::get(&inputs[self.p.out_credit..], q, 1) == 1 {
                o.credit += 1;
                if o.credit as usize > depth {
                    self.violation.get_or_insert(format!(
                        "cycle {}: I-10: output VC {q}: {} credits, above buf_depth",
                        self.cycles, o.credit
                    ));
                }
            }
        }
    }

    pub fn check_invariants(&self) -> Result<(), String> {
        if let Some(v) = &self.violation {
            return Err(v.clone());
        }
        let held: u64 = self
            .inp
            .iter()
            .map(|i| (i.buf.len() + i.front.is_some() as usize) as u64)
            .sum();
        if self.arrived != self.left + held {
            return Err(format!(
                "I-9: {} flits arrived, {} left, {held} held",
                self.arrived, self.left
            ));
        }
        let v = self.v;
        for (k, o) in self.out.iter().enumerate() {
            if o.credit as usize > self.cfg.buf_depth {
                return Err(format!("I-10: output VC {k}: {} credits", o.credit));
            }
            if let Some(q) = o.stream {
                if !o.busy || o.owner != q {
                    return Err(format!(
                        "I-11: output VC {k} released inside input VC {q}'s packet"
                    ));
                }
            }
        }
        for (q, i) in self.inp.iter().enumerate() {
            if i.buf.len() > self.cfg.buf_depth {
                return Err(format!("I-10: input VC {q} holds {} flits", i.buf.len()));
            }
            let o = &self.out[i.route * v + i.ovc];
            if i.state == ACTIVE && !(o.busy && o.owner == q) {
                return Err(format!(
                    "I-11: input VC {q} is ACTIVE without owning its output VC"
                ));
            }
        }
        Ok(())
    }

    pub fn check_inputs(&self, inputs: &[u64]) -> Result<(), String> {
        if inputs[self.p.reset] & 1 == 1 {
            return Ok(());
        }
        let (fb, v) = (self.cfg.flit_bits(), self.v);
        for p in 0..PORTS {
            if inputs[self.p.in_valid] >> p & 1 == 1 {
                let f = words::get(&inputs[self.p.in_flit..], p * fb, fb);
                let vc = ((f >> self.cfg.vc_at()) & ((1u64 << self.cfg.vb()) - 1)) as usize;
                if self.inp[p * v + vc].buf.len() >= self.cfg.buf_depth {
                    return Err(format!("port in_valid: input {p} VC {vc}'s buffer is full"));
                }
            }
        }
        for (q, o) in self.out.iter().enumerate() {
            if words::get(&inputs[self.p.out_credit..], q, 1) == 1
                && o.credit as usize >= self.cfg.buf_depth
            {
                return Err(format!(
                    "port out_credit: output VC {q} already has every credit"
                ));
            }
        }
        Ok(())
    }

    pub fn state_line(&self) -> String {
        let ins: Vec<String> = self
            .inp
            .iter()
            .map(|i| {
                format!(
                    "{}{}s{}r{}v{}pl{}",
                    i.buf.len(),
                    if i.front.is_some() { "+f" } else { "" },
                    i.state,
                    i.route,
                    i.ovc,
                    i.vcpl
                )
            })
            .collect();
        let outs: Vec<String> = self
            .out
            .iter()
            .map(|o| format!("{}{}c{}", if o.busy { "b" } else { "-" }, o.owner, o.credit))
            .collect();
        format!("in=[{}] out=[{}]", ins.join(" "), outs.join(" "))
    }
}
