//! The port-level model of `msap-router` ([`MsapRouterModel`]): the contract's cycle rules on
//! plain Rust state, one [`PrioRr`] per output port for VA, and the router-level invariants of
//! spec/msap.md §7.1 checked every cycle: I-3 … I-5 and I-7 on every VA round, I-9
//! (conservation: arrived = left + held), I-10 (credits in 0 ..= buf_depth, no write into a
//! full buffer, no credit beyond the depth), I-11 (wormhole: per output, flits of one packet
//! contiguous, head first, from the owning input, the output owned from VA to the tail).

use std::collections::VecDeque;

use warpforge_contract::units::msap_router::{RouterConfig, ACTIVE, IDLE, PORTS, VA};
use warpforge_contract::Layout;

use super::vc_model::VcRouter;
use crate::msap_arbiter::PrioRr;
use crate::words;
use crate::Model;

/// A deliberate model bug, for tests that show the checks and lockstep catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouterFault {
    /// VA ignores the PL (every requester at PL 0).
    PlIgnored,
    /// A flit leaves without a downstream credit.
    NoCreditCheck,
    /// The output is released at the head, not the tail (packets interleave).
    ReleaseAtHead,
    /// V > 1: SA's stage-1 arbiters commit every grant, also when stage 2 refused it (breaks
    /// §2.6's iSLIP commit rule).
    Stage1AlwaysCommits,
    /// V > 1 with a static VC: VA gives the lowest free VC instead (a flow can be reordered).
    LowestFreeVc,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct RouterEvents {
    /// Flits sent on any output.
    pub flits: u64,
    /// Packets (tails) sent.
    pub packets: u64,
    /// VA grants.
    pub grants: u64,
    /// VA grants with two or more requesters.
    pub contended: u64,
    /// VA grants while a requester of a lower level waited.
    pub priority_wins: u64,
    /// VA grants at the urgent level.
    pub urgent_grants: u64,
    /// Cycles an owning input had a flit but its output had no credit.
    pub credit_stalls: u64,
    /// Cycles an input buffer was full.
    pub full_buffers: u64,
    /// Flits ejected at the Local output.
    pub ejected: u64,
    /// A grant to an output in the cycle after its tail left (back-to-back packets).
    pub back_to_back: u64,
}

/// Where each port lives in the flat vectors.
#[derive(Clone, Debug)]
pub(crate) struct Ports {
    pub reset: usize,
    pub in_valid: usize,
    pub in_flit: usize,
    pub out_credit: usize,
    pub out_valid: usize,
    pub out_flit: usize,
    pub in_credit: usize,
    pub dbg_count: usize,
    pub dbg_front: usize,
    pub dbg_state: usize,
    pub dbg_route: usize,
    pub dbg_vcpl: usize,
    pub dbg_busy: usize,
    pub dbg_owner: usize,
    pub dbg_credit: usize,
    pub dbg_gnt: usize,
    pub dbg_ptr: usize,
    pub dbg_lost: usize,
    /// V > 1 only (0 otherwise).
    pub dbg_ovc: usize,
    pub dbg_sa: usize,
    pub dbg_ptr_va1: usize,
    pub dbg_ptr_sa1: usize,
    pub dbg_ptr_sa2: usize,
}

impl Ports {
    pub fn new(cfg: &RouterConfig) -> Ports {
        let l = Layout::new(&cfg.ports());
        let i = |n: &str| l.input(n).unwrap().offset;
        let o = |n: &str| l.output(n).unwrap().offset;
        let vo = |n: &str| l.output(n).map_or(0, |s| s.offset);
        Ports {
            reset: i("reset"),
            in_valid: i("in_valid"),
            in_flit: i("in_flit"),
            out_credit: i("out_credit"),
            out_valid: o("out_valid"),
            out_flit: o("out_flit"),
            in_credit: o("in_credit"),
            dbg_count: o("dbg_count"),
            dbg_front: o("dbg_front"),
            dbg_state: o("dbg_state"),
            dbg_route: o("dbg_route"),
            dbg_vcpl: o("dbg_vcpl"),
            dbg_busy: o("dbg_busy"),
            dbg_owner: o("dbg_owner"),
            dbg_credit: o("dbg_credit"),
            dbg_gnt: o("dbg_gnt"),
            dbg_ptr: o("dbg_ptr"),
            dbg_lost: o("dbg_lost"),
            dbg_ovc: vo("dbg_ovc"),
            dbg_sa: vo("dbg_sa"),
            dbg_ptr_va1: vo("dbg_ptr_va1"),
            dbg_ptr_sa1: vo("dbg_ptr_sa1"),
            dbg_ptr_sa2: vo("dbg_ptr_sa2"),
        }
    }
}

/// Flit fields.
#[derive(Clone, Copy, Debug)]
pub struct Flit {
    pub head: bool,
    pub tail: bool,
    pub dst_x: usize,
    pub dst_y: usize,
    pub pl: u32,
}

/// Decode a flit word.
pub fn decode(cfg: &RouterConfig, f: u64) -> Flit {
    FlitFormat::new(cfg).decode(f)
}

/// The flit's field positions, computed once per model: a router decodes each buffer front
/// several times a cycle.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlitFormat {
    x_at: u32,
    x_mask: u64,
    y_at: u32,
    y_mask: u64,
    pl_at: u32,
    pl_mask: u64,
}

impl FlitFormat {
    pub fn new(cfg: &RouterConfig) -> FlitFormat {
        FlitFormat {
            x_at: cfg.dst_x_at() as u32,
            x_mask: words::low_bits(cfg.xb()),
            y_at: cfg.dst_y_at() as u32,
            y_mask: words::low_bits(cfg.yb()),
            pl_at: cfg.pl_at() as u32,
            pl_mask: words::low_bits(cfg.pl_bits),
        }
    }

    #[inline]
    pub fn decode(&self, f: u64) -> Flit {
        Flit {
            head: f & 1 == 1,
            tail: f >> 1 & 1 == 1,
            dst_x: (f >> self.x_at & self.x_mask) as usize,
            dst_y: (f >> self.y_at & self.y_mask) as usize,
            pl: (f >> self.pl_at & self.pl_mask) as u32,
        }
    }
}

/// Field widths of the port vectors, computed once per model.
#[derive(Clone, Copy, Debug)]
struct Widths {
    /// Flit, buffer count / credit, PL, arbiter index and loss-counter bits.
    fb: usize,
    cb: usize,
    pb: usize,
    ib: usize,
    lb: usize,
    /// Bits of one arbiter's pointers and loss counters in `dbg_ptr` / `dbg_lost`.
    ptr_w: usize,
    lost_w: usize,
    /// The arbiters' urgent level (ageing).
    urgent: u32,
}

impl Widths {
    fn new(c: &RouterConfig) -> Widths {
        let a = c.arbiter();
        Widths {
            fb: c.flit_bits(),
            cb: c.count_bits(),
            pb: c.pl_bits,
            ib: a.idx_bits(),
            lb: a.lost_bits(),
            ptr_w: a.ptrs() * a.idx_bits(),
            lost_w: (PORTS * a.lost_bits()).max(1),
            urgent: a.urgent_lvl() as u32,
        }
    }
}

/// The XY route (§2.5: X first) at router (x, y) to (dx, dy).
pub fn xy_route(x: usize, y: usize, dx: usize, dy: usize) -> usize {
    use warpforge_contract::units::msap_router::{EAST, LOCAL, NORTH, SOUTH, WEST};
    if dx > x {
        EAST
    } else if dx < x {
        WEST
    } else if dy > y {
        SOUTH
    } else if dy < y {
        NORTH
    } else {
        LOCAL
    }
}

#[derive(Clone, Debug, Default)]
struct Input {
    /// The RAM rows in FIFO order.
    buf: VecDeque<u64>,
    front: Option<u64>,
    state: u64,
    route: usize,
    vcpl: u32,
    cret: bool,
}

#[derive(Clone, Debug, Default)]
struct Output {
    busy: bool,
    owner: usize,
    credit: u32,
    reg: Option<u64>,
    /// I-11: the input whose packet is on the link (head seen, tail not yet).
    stream: Option<usize>,
    /// The tail left in the last cycle.
    freed: bool,
}

/// The port-level model of `msap-router`.
#[derive(Clone, Debug)]
pub struct MsapRouterModel {
    cfg: RouterConfig,
    p: Ports,
    fmt: FlitFormat,
    w: Widths,
    arb: Vec<PrioRr>,
    /// The `dbg_ptr` and `dbg_lost` words of the arbiters' state, repacked only when a
    /// commit or a reset changed it (most cycles grant nothing).
    ptr_words: Vec<u64>,
    lost_words: Vec<u64>,
    arb_changed: bool,
    inp: Vec<Input>,
    out: Vec<Output>,
    /// I-9: flits that arrived and that left.
    arrived: u64,
    left: u64,
    cycles: u64,
    violation: Option<String>,
    fault: Option<RouterFault>,
    pub ev: RouterEvents,
    /// With V > 1 the router is this one (separable allocators, per-VC state).
    vc: Option<Box<VcRouter>>,
}

impl MsapRouterModel {
    pub fn new(cfg: &RouterConfig) -> MsapRouterModel {
        let mut m = MsapRouterModel {
            p: Ports::new(cfg),
            fmt: FlitFormat::new(cfg),
            w: Widths::new(cfg),
            ptr_words: vec![0; Layout::new(&cfg.ports()).output("dbg_ptr").unwrap().words],
            lost_words: vec![0; Layout::new(&cfg.ports()).output("dbg_lost").unwrap().words],
            arb_changed: true,
            arb: (0..PORTS).map(|_| PrioRr::new(&cfg.arbiter())).collect(),
            inp: vec![Input::default(); PORTS],
            out: vec![Output::default(); PORTS],
            arrived: 0,
            left: 0,
            cycles: 0,
            violation: None,
            fault: None,
            ev: RouterEvents::default(),
            vc: (cfg.vcs > 1).then(|| Box::new(VcRouter::new(cfg, Ports::new(cfg)))),
            cfg: cfg.clone(),
        };
        m.reset();
        m
    }

    /// The registered link outputs of this cycle, before [`Model::step`]: per output port the
    /// flit in its ST register, and the `in_credit` bits (bit p, or p·V + v with V > 1). A
    /// mesh model wires neighbours with these, as the links are registers.
    pub fn links(&self) -> ([Option<u64>; PORTS], u32) {
        if let Some(r) = &self.vc {
            return r.links();
        }
        (
            std::array::from_fn(|o| self.out[o].reg),
            (0..PORTS).fold(0, |a, p| a | (self.inp[p].cret as u32) << p),
        )
    }

    pub fn inject_fault(&mut self, fault: Option<RouterFault>) {
        self.fault = fault;
        if let Some(r) = &mut self.vc {
            r.fault = fault;
        }
    }

    /// The event counters (the V > 1 router's when `vcs > 1`).
    pub fn counters(&self) -> RouterEvents {
        self.vc.as_ref().map_or(self.ev, |r| r.ev)
    }

    fn reset(&mut self) {
        self.arb.iter_mut().for_each(|a| a.reset());
        self.arb_changed = true;
        self.inp.iter_mut().for_each(|i| *i = Input::default());
        for o in &mut self.out {
            *o = Output {
                credit: self.cfg.buf_depth as u32,
                ..Output::default()
            };
        }
        self.arrived = 0;
        self.left = 0;
    }

    fn fail(&mut self, what: String) {
        if self.violation.is_none() {
            self.violation = Some(format!("cycle {}: {what}", self.cycles));
        }
    }

    fn flit_in(&self, inputs: &[u64], p: usize) -> u64 {
        let fb = self.w.fb;
        words::get(&inputs[self.p.in_flit..], p * fb, fb)
    }

    /// Repack `ptr_words` / `lost_words` after the arbiters changed.
    fn pack_arbiters(&mut self) {
        let w = self.w;
        self.ptr_words.iter_mut().for_each(|x| *x = 0);
        self.lost_words.iter_mut().for_each(|x| *x = 0);
        for (k, arb) in self.arb.iter().enumerate() {
            let ptrs = arb.ptrs().iter().map(|&v| v as u64);
            words::or_seq(&mut self.ptr_words, k * w.ptr_w, w.ib, ptrs);
            if w.lb > 0 {
                let lost = arb.lost().iter().map(|&v| v as u64);
                words::or_seq(&mut self.lost_words, k * w.lost_w, w.lb, lost);
            }
        }
        self.arb_changed = false;
    }

    fn write_outputs(&mut self, gnt: &[u32; PORTS], out: &mut [u64]) {
        if self.arb_changed {
            self.pack_arbiters();
        }
        let (p, w) = (&self.p, &self.w);
        let (fb, cb, pb) = (w.fb, w.cb, w.pb);
        out.iter_mut().for_each(|w| *w = 0);
        // Every field below lands in a cleared vector: OR it in.
        for (k, o) in self.out.iter().enumerate() {
            if let Some(f) = o.reg {
                out[p.out_valid] |= 1 << k;
                words::or_seq(&mut out[p.out_flit..], k * fb, fb, [f]);
            }
            out[p.dbg_busy] |= (o.busy as u64) << k;
            out[p.dbg_owner] |= (o.owner as u64) << (3 * k);
            out[p.dbg_credit] |= (o.credit as u64) << (cb * k);
            out[p.dbg_gnt] |= (gnt[k] as u64) << (PORTS * k);
        }
        for (k, i) in self.inp.iter().enumerate() {
            out[p.in_credit] |= (i.cret as u64) << k;
            out[p.dbg_count] |= (i.buf.len() as u64) << (cb * k);
            out[p.dbg_front] |= (i.front.is_some() as u64) << k;
            out[p.dbg_state] |= i.state << (2 * k);
            out[p.dbg_route] |= (i.route as u64) << (3 * k);
            out[p.dbg_vcpl] |= (i.vcpl as u64) << (pb * k);
        }
        out[p.dbg_ptr..p.dbg_ptr + self.ptr_words.len()].copy_from_slice(&self.ptr_words);
        out[p.dbg_lost..p.dbg_lost + self.lost_words.len()].copy_from_slice(&self.lost_words);
    }
}

impl Model for MsapRouterModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        if let Some(r) = &mut self.vc {
            return r.step(inputs, outputs);
        }
        self.cycles += 1;
        let fmt = self.fmt;
        let c = &self.cfg;
        let (x, y, stages, age_thresh, depth) =
            (c.x, c.y, c.pipe_stages, c.age_thresh, c.buf_depth);
        let reset = inputs[self.p.reset] & 1 == 1;
        let in_valid = inputs[self.p.in_valid];
        let out_credit = inputs[self.p.out_credit];

        // RC and the VA requests (from the state at the start of the cycle).
        let mut rc = [false; PORTS];
        let mut want = [false; PORTS];
        let mut wroute = [0usize; PORTS];
        let mut wpl = [0u32; PORTS];
        for (p, i) in self.inp.iter().enumerate() {
            wroute[p] = i.route;
            wpl[p] = i.vcpl;
            if let Some(f) = i.front.map(|f| fmt.decode(f)) {
                if i.state == IDLE && f.head {
                    rc[p] = true;
                    wroute[p] = xy_route(x, y, f.dst_x, f.dst_y);
                    wpl[p] = f.pl;
                }
            }
            want[p] = i.state == VA || (stages <= 3 && rc[p]);
        }
        if self.fault == Some(RouterFault::PlIgnored) {
            wpl = [0; PORTS];
        }

        // VA per output.
        let mut gnt = [0u32; PORTS];
        let mut granted = [false; PORTS];
        let mut commits = [None; PORTS];
        #[allow(clippy::needless_range_loop)] // o indexes outputs, grants and arbiters alike
        for o in 0..PORTS {
            if self.out[o].busy {
                continue;
            }
            let req = (0..PORTS)
                .filter(|&p| want[p] && wroute[p] == o)
                .fold(0u32, |r, p| r | 1 << p);
            if req == 0 {
                // No requester: no grant, nothing moves (the arbiter's answer is None).
                continue;
            }
            let lv = self.arb[o].levels(&wpl);
            let win = self.arb[o].arbitrate_levels(req, &lv);
            match win {
                None if req != 0 => self.fail(format!("I-4: output {o}: requests but no grant")),
                None => {}
                Some((g, m)) => {
                    if req >> g & 1 == 0 {
                        self.fail(format!("I-3: output {o} granted to input {g}, no request"));
                    }
                    let reqs = (0..PORTS).filter(|&p| req >> p & 1 == 1);
                    if let Some(r) = reqs.clone().find(|&r| lv[r] > m) {
                        self.fail(format!(
                            "I-5: output {o}: input {r} at level {} above winner {g} ({m})",
                            lv[r]
                        ));
                    }
                    if granted[g] {
                        self.fail(format!("I-3: input {g} granted twice"));
                    }
                    gnt[o] = 1 << g;
                    granted[g] = true;
                    let e = &mut self.ev;
                    e.grants += 1;
                    e.contended += (req.count_ones() >= 2) as u64;
                    e.priority_wins += reqs.clone().any(|r| lv[r] < m) as u64;
                    e.urgent_grants += (age_thresh > 0 && m == self.w.urgent) as u64;
                    e.back_to_back += self.out[o].freed as u64;
                    commits[o] = Some((req, g, m));
                }
            }
        }
        // The outputs of this cycle: registered state plus this cycle's grants.
        self.write_outputs(&gnt, outputs);
        if reset {
            self.reset();
            return;
        }
        // Every VA grant is used (V = 1): pointers and loss counters move at the edge.
        let bound = (age_thresh + PORTS - 1) as u32;
        for (o, (req, g, m)) in commits
            .iter()
            .enumerate()
            .filter_map(|(o, c)| c.map(|c| (o, c)))
        {
            self.arb[o].commit(req, g, m);
            self.arb_changed = true;
            if age_thresh > 0 {
                if let Some(l) = self.arb[o].lost().iter().find(|&&l| l > bound) {
                    self.fail(format!("I-7: output {o}: a loss count of {l}"));
                }
            }
        }

        // SA + ST.
        let mut sent = [None::<(usize, u64)>; PORTS];
        // Inputs that send a flit this cycle, bit p.
        let mut going = 0u32;
        for (p, &g) in granted.iter().enumerate() {
            let i = &self.inp[p];
            let owns = i.state == ACTIVE || (stages == 2 && g);
            let Some(f) = i.front else { continue };
            if !owns {
                continue;
            }
            let o = wroute[p];
            if self.out[o].credit == 0 && self.fault != Some(RouterFault::NoCreditCheck) {
                self.ev.credit_stalls += 1;
                continue;
            }
            if let Some((q, _)) = sent[o] {
                self.fail(format!("I-3: two flits for output {o}"));
                going &= !(1 << q);
            }
            sent[o] = Some((p, f));
            going |= 1 << p;
        }
        for o in &mut self.out {
            o.freed = false;
        }
        for (o, g) in gnt.iter().enumerate() {
            if *g != 0 {
                self.out[o].busy = true;
                self.out[o].owner = g.trailing_zeros() as usize;
            }
        }

        // Inputs: state, buffer reads and writes.
        for p in 0..PORTS {
            let go = going >> p & 1 == 1;
            let i = &mut self.inp[p];
            let front = i.front.map(|f| fmt.decode(f));
            if rc[p] {
                i.state = VA;
                i.route = wroute[p];
                i.vcpl = front.unwrap().pl;
            }
            if granted[p] {
                i.state = ACTIVE;
            }
            if go && front.unwrap().tail {
                i.state = IDLE;
            }
            let rd = !i.buf.is_empty() && (i.front.is_none() || go);
            if go {
                i.front = None;
            }
            if rd {
                i.front = i.buf.pop_front();
            }
            i.cret = rd;
            if in_valid >> p & 1 == 1 {
                if i.buf.len() >= depth {
                    self.violation.get_or_insert(format!(
                        "cycle {}: I-10: input {p}: a flit into a full buffer",
                        self.cycles
                    ));
                }
                let f = self.flit_in(inputs, p);
                self.inp[p].buf.push_back(f);
                self.arrived += 1;
            }
            if self.inp[p].buf.len() == depth {
                self.ev.full_buffers += 1;
            }
        }

        // Outputs: registers, credits, ownership, I-11.
        for (o, &s) in sent.iter().enumerate() {
            let ret = out_credit >> o & 1 == 1;
            let out = &mut self.out[o];
            out.reg = s.map(|(_, f)| f);
            if let Some((p, f)) = s {
                let fl = fmt.decode(f);
                if !out.busy || out.owner != p {
                    self.violation.get_or_insert(format!(
                        "cycle {}: I-11: input {p} sends on output {o}, which it does not own",
                        self.cycles
                    ));
                }
                match out.stream {
                    None if !fl.head => {
                        self.violation.get_or_insert(format!(
                            "cycle {}: I-11: output {o}: a body flit without its head",
                            self.cycles
                        ));
                    }
                    Some(q) if q != p || fl.head => {
                        self.violation.get_or_insert(format!(
                            "cycle {}: I-11: output {o}: input {p}'s flit inside input {q}'s packet",
                            self.cycles
                        ));
                    }
                    _ => {}
                }
                out.stream = (!fl.tail).then_some(p);
                let release =
                    fl.tail || (self.fault == Some(RouterFault::ReleaseAtHead) && fl.head);
                if release {
                    out.busy = false;
                    out.freed = true;
                }
                if out.credit == 0 {
                    self.violation.get_or_insert(format!(
                        "cycle {}: I-10: output {o}: a flit without a credit",
                        self.cycles
                    ));
                }
                out.credit = out.credit.saturating_sub(1);
                self.left += 1;
                self.ev.flits += 1;
                self.ev.packets += fl.tail as u64;
                self.ev.ejected += (o == 0) as u64;
            }
            if ret {
                out.credit += 1;
                if out.credit as usize > depth {
                    self.violation.get_or_insert(format!(
                        "cycle {}: I-10: output {o}: {} credits, above buf_depth",
                        self.cycles, out.credit
                    ));
                }
            }
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        if let Some(r) = &self.vc {
            return r.check_invariants();
        }
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
        for (k, o) in self.out.iter().enumerate() {
            if o.credit as usize > self.cfg.buf_depth {
                return Err(format!("I-10: output {k}: {} credits", o.credit));
            }
            // I-11: an output is owned while a packet streams on it, and only by that input.
            if let Some(p) = o.stream {
                if !o.busy || o.owner != p {
                    return Err(format!(
                        "I-11: output {k} released inside input {p}'s packet"
                    ));
                }
            }
        }
        for (k, i) in self.inp.iter().enumerate() {
            if i.buf.len() > self.cfg.buf_depth {
                return Err(format!("I-10: input {k} holds {} flits", i.buf.len()));
            }
            if i.state == ACTIVE && !(self.out[i.route].busy && self.out[i.route].owner == k) {
                return Err(format!(
                    "I-11: input {k} is ACTIVE without owning its output"
                ));
            }
        }
        Ok(())
    }

    fn check_inputs(&self, inputs: &[u64]) -> Result<(), String> {
        if let Some(r) = &self.vc {
            return r.check_inputs(inputs);
        }
        if inputs[self.p.reset] & 1 == 1 {
            return Ok(());
        }
        for p in 0..PORTS {
            if inputs[self.p.in_valid] >> p & 1 == 1 && self.inp[p].buf.len() >= self.cfg.buf_depth
            {
                return Err(format!("port in_valid: input {p}'s buffer is full"));
            }
            if inputs[self.p.out_credit] >> p & 1 == 1
                && self.out[p].credit as usize >= self.cfg.buf_depth
            {
                return Err(format!(
                    "port out_credit: output {p} already has every credit"
                ));
            }
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        if let Some(r) = &self.vc {
            return r.state_line();
        }
        let ins: Vec<String> = self
            .inp
            .iter()
            .map(|i| {
                format!(
                    "{}{}s{}r{}pl{}",
                    i.buf.len(),
                    if i.front.is_some() { "+f" } else { "" },
                    i.state,
                    i.route,
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

    fn events(&self) -> Vec<(&'static str, u64)> {
        let e = &self.counters();
        let mut v = vec![
            ("flits", e.flits),
            ("packets", e.packets),
            ("grants", e.grants),
            ("contended", e.contended),
            ("priority_wins", e.priority_wins),
            ("urgent_grants", e.urgent_grants),
            ("credit_stalls", e.credit_stalls),
            ("full_buffers", e.full_buffers),
            ("ejected", e.ejected),
            ("back_to_back", e.back_to_back),
        ];
        if let Some(r) = &self.vc {
            v.retain(|(n, _)| !matches!(*n, "urgent_grants" | "back_to_back"));
            v.push(("sa_contended", r.sa_contended));
            v.push(("vc_interleaved", r.vc_interleaved));
        }
        v
    }
}
