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
    /// Valid entry j is older than valid entry i.
    pub fn older(&self, i: usize, j: usize) -> bool {
        matches!((self.slots[i], self.slots[j]), (Some(a), Some(b)) if b.seq < a.seq)
    }

    fn guard_on(&self) -> bool {
        self.cfg.line_guard && self.fault != Some(McFault::NoGuard)
    }

    /// Slot i holds an entry no older entry to its line holds back.
    pub fn eligible(&self, i: usize) -> bool {
        let Some(e) = self.slots[i] else { return false };
        !self.guard_on()
            || !self
                .slots
                .iter()
                .flatten()
                .any(|o| o.seq < e.seq && o.req.line == e.req.line)
    }

    pub fn urgent(&self, i: usize) -> bool {
        self.cfg.ageing() && self.bypass(i) >= self.cfg.age_thresh as u64
    }

    fn key(&self, i: usize) -> u64 {
        match self.slots[i] {
            _ if !self.cfg.msar_en => 0,
            _ if self.urgent(i) => self.cfg.urgent_key(),
            Some(e) => e.req.pl,
            None => 0,
        }
    }

    /// The entry that leaves if L2 is ready: the oldest eligible entry of maximum key.
    pub fn select(&self) -> Option<usize> {
        let mut best: Option<(u64, u64, usize)> = None;
        for i in 0..self.slots.len() {
            if !self.eligible(i) {
                continue;
            }
            let (k, seq) = (self.key(i), self.slots[i].unwrap().seq);
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
        best.map(|b| b.2)
    }

    fn fail(&mut self, what: String) {
        if self.violation.is_none() {
            self.violation = Some(format!("cycle {}: {what}", self.cycles));
        }
    }

    /// §7.1 on the selection: I-13 (against a stable sort of the eligible entries by key),
    /// the oldest entry always eligible, the guard's same-line order, I-8 (one PL and nobody
    /// urgent: the FIFO's choice), I-7 (bypass within the threshold).
    fn check_selection(&mut self, sel: Option<usize>) {
        let valid: Vec<usize> = (0..self.slots.len())
            .filter(|&i| self.slots[i].is_some())
            .collect();
        let seq = |i: usize| self.slots[i].unwrap().seq;
        let oldest = valid.iter().copied().min_by_key(|&i| seq(i));
        let mut sorted: Vec<usize> = valid
            .iter()
            .copied()
            .filter(|&i| self.eligible(i))
            .collect();
        sorted.sort_by_key(|&i| seq(i));
        sorted.sort_by_key(|&i| std::cmp::Reverse(self.key(i)));
        if sorted.first().copied() != sel {
            return self.fail(format!(
                "I-13: selected {sel:?}, stable order says {:?}",
                sorted.first()
            ));
        }
        if let Some(o) = oldest {
            if !self.eligible(o) {
                return self.fail(format!("the oldest entry (slot {o}) is not eligible"));
            }
        }
        if let (Some(s), true) = (sel, self.cfg.line_guard) {
            let e = self.slots[s].unwrap();
            if valid
                .iter()
                .any(|&i| seq(i) < e.seq && self.slots[i].unwrap().req.line == e.req.line)
            {
                return self.fail(format!(
                    "I-13: slot {s} passes an older request to its line"
                ));
            }
        }
        let one_pl = valid
            .windows(2)
            .all(|w| self.slots[w[0]].unwrap().req.pl == self.slots[w[1]].unwrap().req.pl);
        if one_pl && !valid.iter().any(|&i| self.urgent(i)) && sel != oldest {
            return self.fail(format!("I-8: one PL, selected {sel:?}, FIFO {oldest:?}"));
        }
        if let Some(&i) = valid
            .iter()
            .find(|&&i| self.bypass(i) > self.cfg.age_thresh as u64)
        {
            self.fail(format!("I-7: slot {i} bypassed {} times", self.bypass(i)));
        }
    }

    /// One cycle from start-of-cycle state; returns (the entry that left, the slot filled).
    pub fn cycle(
        &mut self,
        arrival: Option<Request>,
        l2_ready: bool,
    ) -> (Option<Request>, Option<usize>) {
        self.cycles += 1;
        let sel = self.select();
        self.check_selection(sel);
        let free = self.free_slot();
        if (0..self.slots.len()).any(|i| self.slots[i].is_some() && !self.eligible(i)) {
            self.ev.guard_blocks += 1;
        }
        let mut left = None;
        if let (true, Some(s)) = (l2_ready, sel) {
            let out = self.slots[s].unwrap();
            let urgent = self.urgent(s);
            let was_oldest = self.slots.iter().flatten().all(|o| o.seq >= out.seq);
            let bumped: Vec<usize> = (0..self.slots.len())
                .filter(|&i| self.eligible(i) && self.slots[i].unwrap().seq < out.seq)
                .collect();
            for i in bumped.into_iter().filter(|_| self.cfg.ageing()) {
                self.slots[i].as_mut().unwrap().bypass += 1;
            }
            self.slots[s] = None;
            let e = &mut self.ev;
            e.departures += 1;
            e.reorders += !was_oldest as u64;
            e.urgent_departures += urgent as u64;
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

    fn outputs(&self, out: &mut [u64]) {
        let (q, p, c) = (&self.q, &self.p, &self.q.cfg);
        out.iter_mut().for_each(|x| *x = 0);
        out[p.in_ready] = q.free_slot().is_some() as u64;
        if let Some(s) = q.select() {
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
        out[p.count] = q.count() as u64;
        let (d, pb, lb, bb) = (c.depth, c.pl_bits, c.line_bits, c.bypass_bits());
        for i in 0..d {
            let Some(r) = q.request(i) else { continue };
            words::set(&mut out[p.dbg_valid..], i, 1, 1);
            words::set(&mut out[p.dbg_elig..], i, 1, q.eligible(i) as u64);
            words::set(&mut out[p.dbg_pl..], i * pb, pb, r.pl);
            words::set(&mut out[p.dbg_line..], i * lb, lb, r.line);
            for j in 0..d {
                if q.older(i, j) {
                    words::set(&mut out[p.dbg_older..], i * d + j, 1, 1);
                }
            }
            if bb > 0 {
                words::set(&mut out[p.dbg_bypass..], i * bb, bb, q.bypass(i));
            }
        }
    }
}

impl Model for MsapMcModel {
    fn step(&mut self, inputs: &[u64], out: &mut [u64]) {
        self.outputs(out);
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
        let (left, _) = self.q.cycle(arrival, l2_ready);
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
