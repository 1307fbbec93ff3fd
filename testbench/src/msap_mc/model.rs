//! The MSAR queue ([`MsarQueue`]): slots with arrival sequence numbers, selection by a scan
//! for the maximum key and the lowest sequence number; and the port-level model
//! ([`MsapMcModel`]), which asserts I-7 (MSAR part), I-8 (MSAR part) and I-13 every cycle.

use warpforge_contract::units::msap_mc::McConfig;
use warpforge_contract::Layout;

use crate::words;
use crate::Model;

/// A deliberate model bug, for tests that show lockstep catches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McFault {
    /// Among equal keys the youngest leaves first.
    YoungestFirst,
    /// The same-line guard is ignored.
    NoGuard,
}

/// A request as it enters the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub line: u64,
    pub pl: u64,
    pub meta: u64,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    req: Request,
    /// Arrival order.
    seq: u64,
    bypass: u64,
}

/// One cycle's picture of the queue (slot-indexed bit masks; depth ≤ 32).
#[derive(Clone, Copy, Debug)]
pub struct View {
    pub valid: u64,
    pub elig: u64,
    /// Row i: the valid entries older than valid entry i.
    pub older: [u64; 32],
    pub key: [u64; 32],
    pub sel: Option<usize>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct McEvents {
    pub departures: u64,
    pub arrivals: u64,
    /// Departures of an entry that was not the oldest.
    pub reorders: u64,
    /// Cycles with a valid entry held back by the same-line guard.
    pub guard_blocks: u64,
    pub urgent_departures: u64,
    /// Arrivals refused with the buffer full.
    pub refused: u64,
    pub arrive_and_depart: u64,
}

/// MSAR (§2.8): `depth` slots, dequeue the oldest eligible entry of the highest key.
#[derive(Clone, Debug)]
pub struct MsarQueue {
    cfg: McConfig,
    slots: Vec<Option<Entry>>,
    next_seq: u64,
    fault: Option<McFault>,
    violation: Option<String>,
    cycles: u64,
    pub ev: McEvents,
}

impl MsarQueue {
    pub fn new(cfg: &McConfig) -> MsarQueue {
        MsarQueue {
            cfg: cfg.clone(),
            slots: vec![None; cfg.depth],
            next_seq: 0,
            fault: None,
            violation: None,
            cycles: 0,
            ev: McEvents::default(),
        }
    }

    pub fn reset(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
    }

    pub fn count(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }
    pub fn free_slot(&self) -> Option<usize> {
        self.slots.iter().position(|s| s.is_none())
    }
    pub fn request(&self, i: usize) -> Option<Request> {
        self.slots[i].map(|e| e.req)
    }
    pub fn bypass(&self, i: usize) -> u64 {
        self.slots[i].map_or(0, |e| e.bypass)
    }
    fn guard_on(&self) -> bool {
        self.cfg.line_guard && self.fault != Some(McFault::NoGuard)
    }

    pub fn urgent(&self, i: usize) -> bool {
        self.cfg.ageing() && self.bypass(i) >= self.cfg.age_thresh as u64
    }

    /// The start-of-cycle picture: ages, eligibility, keys, the selection. One pass over the
    /// pairs of valid entries; everything else in the cycle reads it.
    pub fn view(&self) -> View {
        let d = self.slots.len();
        let mut v = View {
            valid: 0,
            elig: 0,
            older: [0; 32],
            key: [0; 32],
            sel: None,
        };
        for (i, s) in self.slots.iter().enumerate() {
            let Some(e) = s else { continue };
            v.valid |= 1 << i;
            let mut blocked = false;
            for (j, o) in self.slots.iter().enumerate().take(d) {
                if let Some(o) = o {
                    if o.seq < e.seq {
                        v.older[i] |= 1 << j;
                        blocked |= o.req.line == e.req.line;
                    }
                }
            }
            if !(blocked && self.guard_on()) {
                v.elig |= 1 << i;
            }
            v.key[i] = if !self.cfg.msar_en {
                0
            } else if self.urgent(i) {
                self.cfg.urgent_key()
            } else {
                e.req.pl
            };
        }
        // The oldest eligible entry of the maximum key.
        let mut best: Option<(u64, u64, usize)> = None;
        for i in (0..d).filter(|&i| v.elig >> i & 1 == 1) {
            let (k, seq) = (v.key[i], self.slots[i].unwrap().seq);
            let better = match best {
                None => true,
                Some((bk, bs, _)) if self.fault == Some(McFault::YoungestFirst) => {
                    k > bk || (k == bk && seq > bs)
                }
                Some((bk, bs, _)) => k > bk || (k == bk && seq < bs),
            };
            if better {
                best = Some((k, seq, i));
            }
        }
        v.sel = best.map(|b| b.2);
        v
    }

    /// Slot i holds an entry no older entry to its line holds back.
    pub fn eligible(&self, i: usize) -> bool {
        self.view().elig >> i & 1 == 1
    }

    /// The entry that leaves if L2 is ready: the oldest eligible entry of maximum key.
    pub fn select(&self) -> Option<usize> {
        self.view().sel
    }

    fn fail(&mut self, what: String) {
        if self.violation.is_none() {
            self.violation = Some(format!("cycle {}: {what}", self.cycles));
        }
    }

    /// §7.1 on the selection, each as its own property: I-13 (the selection is eligible, no
    /// eligible entry has a higher key, none with its key is older), the oldest entry always
    /// eligible, the guard's same-line order, I-8 (one PL and nobody urgent: the FIFO's
    /// choice), I-7 (bypass within the threshold).
    fn check_selection(&mut self, v: &View) {
        let seq = |q: &Self, i: usize| q.slots[i].unwrap().seq;
        let valid = || (0..self.slots.len()).filter(move |&i| v.valid >> i & 1 == 1);
        let oldest = valid().min_by_key(|&i| seq(self, i));
        let Some(s) = v.sel else {
            if v.valid != 0 {
                self.fail("I-13: entries but no selection".into());
            }
            return;
        };
        let elig = |i: usize| v.elig >> i & 1 == 1;
        if !elig(s) {
            return self.fail(format!("I-13: slot {s} selected but not eligible"));
        }
        for i in valid().filter(|&i| elig(i)) {
            if v.key[i] > v.key[s] || (v.key[i] == v.key[s] && seq(self, i) < seq(self, s)) {
                return self.fail(format!("I-13: slot {i} goes before the selected slot {s}"));
            }
        }
        if let Some(o) = oldest {
            if !elig(o) {
                return self.fail(format!("the oldest entry (slot {o}) is not eligible"));
            }
        }
        let line = |i: usize| self.slots[i].unwrap().req.line;
        if self.cfg.line_guard && valid().any(|i| seq(self, i) < seq(self, s) && line(i) == line(s))
        {
            return self.fail(format!(
                "I-13: slot {s} passes an older request to its line"
            ));
        }
        let pl = |i: usize| self.slots[i].unwrap().req.pl;
        let one_pl = valid().all(|i| pl(i) == pl(s));
        if one_pl && !valid().any(|i| self.urgent(i)) && Some(s) != oldest {
            return self.fail(format!("I-8: one PL, selected {s}, FIFO {oldest:?}"));
        }
        if self.cfg.ageing() {
            if let Some(i) = valid().find(|&i| self.bypass(i) > self.cfg.age_thresh as u64) {
                self.fail(format!("I-7: slot {i} bypassed {} times", self.bypass(i)));
            }
        }
    }

    /// One cycle from start-of-cycle state; returns (the entry that left, the slot filled).
    pub fn cycle(
        &mut self,
        arrival: Option<Request>,
        l2_ready: bool,
    ) -> (Option<Request>, Option<usize>) {
        let v = self.view();
        self.cycle_with(&v, arrival, l2_ready)
    }

    /// [`MsarQueue::cycle`] with this cycle's [`View`] already computed.
    pub fn cycle_with(
        &mut self,
        v: &View,
        arrival: Option<Request>,
        l2_ready: bool,
    ) -> (Option<Request>, Option<usize>) {
        self.cycles += 1;
        self.check_selection(v);
        let free = self.free_slot();
        if v.elig != v.valid {
            self.ev.guard_blocks += 1;
        }
        let mut left = None;
        if let (true, Some(s)) = (l2_ready, v.sel) {
            let out = self.slots[s].unwrap();
            let urgent = self.urgent(s);
            if self.cfg.ageing() {
                // Every eligible entry older than the one leaving was bypassed.
                for i in 0..self.slots.len() {
                    if v.elig >> i & 1 == 1 && self.slots[i].unwrap().seq < out.seq {
                        self.slots[i].as_mut().unwrap().bypass += 1;
                    }
                }
            }
            let e = &mut self.ev;
            e.departures += 1;
            e.reorders += (v.older[s] != 0) as u64;
            e.urgent_departures += urgent as u64;
            self.slots[s] = None;
            left = Some(out.req);
        }
        let mut filled = None;
        if let Some(r) = arrival {
            match free {
                Some(f) => {
                    self.slots[f] = Some(Entry {
                        req: r,
                        seq: self.next_seq,
                        bypass: 0,
                    });
                    self.next_seq += 1;
                    self.ev.arrivals += 1;
                    self.ev.arrive_and_depart += left.is_some() as u64;
                    filled = Some(f);
                }
                None => self.ev.refused += 1,
            }
        }
        (left, filled)
    }

    pub fn check(&self) -> Result<(), String> {
        match &self.violation {
            Some(v) => Err(v.clone()),
            None => Ok(()),
        }
    }

    pub fn events(&self) -> Vec<(&'static str, u64)> {
        let e = &self.ev;
        vec![
            ("departures", e.departures),
            ("arrivals", e.arrivals),
            ("reorders", e.reorders),
            ("guard_blocks", e.guard_blocks),
            ("urgent_departures", e.urgent_departures),
            ("refused", e.refused),
            ("arrive_and_depart", e.arrive_and_depart),
        ]
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Ports {
    pub reset: usize,
    pub in_valid: usize,
    pub in_line: usize,
    pub in_pl: usize,
    pub in_meta: usize,
    pub l2_ready: usize,
    pub in_ready: usize,
    pub out_valid: usize,
    pub out_idx: usize,
    pub out_line: usize,
    pub out_pl: usize,
    pub out_urgent: usize,
    pub meta_valid: usize,
    pub meta: usize,
    pub count: usize,
    pub dbg_valid: usize,
    pub dbg_elig: usize,
    pub dbg_pl: usize,
    pub dbg_line: usize,
    pub dbg_older: usize,
    pub dbg_bypass: usize,
}

impl Ports {
    pub fn new(cfg: &McConfig) -> Ports {
        let l = Layout::new(&cfg.ports());
        let i = |n: &str| l.input(n).unwrap().offset;
        let o = |n: &str| l.output(n).unwrap().offset;
        Ports {
            reset: i("reset"),
            in_valid: i("in_valid"),
            in_line: i("in_line"),
            in_pl: i("in_pl"),
            in_meta: i("in_meta"),
            l2_ready: i("l2_ready"),
            in_ready: o("in_ready"),
            out_valid: o("out_valid"),
            out_idx: o("out_idx"),
            out_line: o("out_line"),
            out_pl: o("out_pl"),
            out_urgent: o("out_urgent"),
            meta_valid: o("meta_valid"),
            meta: o("meta"),
            count: o("count"),
            dbg_valid: o("dbg_valid"),
            dbg_elig: o("dbg_elig"),
            dbg_pl: o("dbg_pl"),
            dbg_line: o("dbg_line"),
            dbg_older: o("dbg_older"),
            dbg_bypass: o("dbg_bypass"),
        }
    }
}

fn mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// The port-level model of `msap-mc`.
#[derive(Clone, Debug)]
pub struct MsapMcModel {
    pub q: MsarQueue,
    p: Ports,
    /// The meta read at the last edge (an entry left in the previous cycle).
    meta_out: Option<u64>,
}

impl MsapMcModel {
    pub fn new(cfg: &McConfig) -> MsapMcModel {
        MsapMcModel {
            q: MsarQueue::new(cfg),
            p: Ports::new(cfg),
            meta_out: None,
        }
    }
    pub fn inject_fault(&mut self, fault: Option<McFault>) {
        self.q.fault = fault;
    }

    fn outputs(&self, v: &View, out: &mut [u64]) {
        let (q, p, c) = (&self.q, &self.p, &self.q.cfg);
        out.iter_mut().for_each(|x| *x = 0);
        out[p.in_ready] = q.free_slot().is_some() as u64;
        if let Some(s) = v.sel {
            let r = q.request(s).unwrap();
            out[p.out_valid] = 1;
            out[p.out_idx] = s as u64;
            out[p.out_line] = r.line;
            out[p.out_pl] = r.pl;
            out[p.out_urgent] = q.urgent(s) as u64;
        }
        if let Some(m) = self.meta_out {
            out[p.meta_valid] = 1;
            out[p.meta] = m;
        }
        out[p.count] = v.valid.count_ones() as u64;
        let (d, pb, lb, bb) = (c.depth, c.pl_bits, c.line_bits, c.bypass_bits());
        out[p.dbg_valid] = v.valid;
        out[p.dbg_elig] = v.elig;
        for i in 0..d {
            let Some(r) = q.request(i) else { continue };
            words::set(&mut out[p.dbg_pl..], i * pb, pb, r.pl);
            words::set(&mut out[p.dbg_line..], i * lb, lb, r.line);
            words::set(&mut out[p.dbg_older..], i * d, d, v.older[i]);
            if bb > 0 {
                words::set(&mut out[p.dbg_bypass..], i * bb, bb, q.bypass(i));
            }
        }
    }
}

impl Model for MsapMcModel {
    fn step(&mut self, inputs: &[u64], out: &mut [u64]) {
        let v = self.q.view();
        self.outputs(&v, out);
        let (p, c) = (&self.p, &self.q.cfg);
        if inputs[p.reset] & 1 == 1 {
            self.q.reset();
            self.meta_out = None;
            return;
        }
        let arrival = (inputs[p.in_valid] & 1 == 1).then(|| Request {
            line: inputs[p.in_line] & mask(c.line_bits),
            pl: inputs[p.in_pl] & mask(c.pl_bits),
            meta: inputs[p.in_meta] & mask(c.meta_bits),
        });
        let l2_ready = inputs[p.l2_ready] & 1 == 1;
        let (left, _) = self.q.cycle_with(&v, arrival, l2_ready);
        self.meta_out = left.map(|r| r.meta);
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.q.check()
    }

    fn state_line(&self) -> String {
        let e: Vec<String> = self
            .q
            .slots
            .iter()
            .map(|s| match s {
                Some(e) => format!("#{}:{:#x}/pl{}/b{}", e.seq, e.req.line, e.req.pl, e.bypass),
                None => "-".into(),
            })
            .collect();
        format!("slots=[{}]", e.join(" "))
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        self.q.events()
    }
}
