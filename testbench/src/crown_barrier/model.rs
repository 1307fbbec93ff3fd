//! The reconvergence-barrier table as a plain struct ([`BarrierTable`]) and the port-level
//! model of `crown-barrier` that drives it.

use super::ports::{InPorts, OutPorts};
use crate::words::{get, set};
use crate::Model;
use std::collections::VecDeque;
use warpforge_contract::units::crown::Warp;
use warpforge_contract::units::crown_barrier::BarrierConfig;
use warpforge_contract::Layout;

/// A deliberate table bug, to show that lockstep and the invariants catch wrong behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierFault {
    /// No dedup: a covered lane gets a second live barrier (A8).
    NoDedup,
    /// The arrival check does not see this cycle's reservation (no one-sided absorb).
    ProbeBeforeReserve,
    /// Arrivals are only looked up in the set of the warp's lane 0 (A7 broken).
    OneSetProbe,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Entry {
    pub valid: bool,
    pub complete: bool,
    /// The reconvergence PC R.
    pub pc: u64,
    pub expected: u64,
    pub arrived: u64,
    pub thi: Vec<u64>,
}

impl Entry {
    fn empty(w: usize) -> Entry {
        Entry {
            thi: vec![0; w],
            ..Entry::default()
        }
    }
    fn live(&self) -> bool {
        self.valid && !self.complete
    }
}

/// An arrival check: lane `l` of `lanes` holds thread index `thi[l]` and goes next to `pc[l]`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Probe {
    pub lanes: u64,
    pub pc: Vec<u64>,
    pub thi: Vec<u64>,
}

/// What one cycle did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BarrierOutcome {
    /// Probed lanes that arrived (absorbed into a barrier).
    pub hit: u64,
    /// Entries allocated by the reservation.
    pub allocated: Vec<usize>,
    /// Reserved lanes dropped as already covered (A8).
    pub dedup: u32,
    /// Groups whose set was full (bar_alloc_fail).
    pub fail: u32,
    /// Entries that completed, in completion order.
    pub completed: Vec<usize>,
    /// Entries whose arrival bits the probe set.
    pub arrived_in: Vec<usize>,
    /// The drained head, as the reincarnated warp {pc R, lanes = expected, thi}.
    pub drained: Option<Warp>,
}

/// The reconvergence-barrier table (§3.4.5, §3.6): `sets × ways` entries, a thread's set the
/// high bits of its thread index; reserve with dedup, per-lane arrival in every set a warp
/// spans, completion in entry order, oldest-completion drain.
#[derive(Clone, Debug)]
pub struct BarrierTable {
    cfg: BarrierConfig,
    w: usize,
    entries: Vec<Entry>,
    /// Complete entries, oldest first: the drain order (an entry's `ord` is its position).
    done: VecDeque<usize>,
    /// Sets written since `begin_cycle` (bit per set).
    dirty: u64,
    fault: Option<BarrierFault>,
}

impl BarrierTable {
    pub fn new(cfg: &BarrierConfig) -> BarrierTable {
        BarrierTable {
            w: cfg.w(),
            entries: vec![Entry::empty(cfg.w()); cfg.entries()],
            done: VecDeque::new(),
            dirty: 0,
            fault: None,
            cfg: cfg.clone(),
        }
    }
    pub fn inject_fault(&mut self, fault: Option<BarrierFault>) {
        self.fault = fault;
    }
    pub fn config(&self) -> &BarrierConfig {
        &self.cfg
    }
    pub fn reset(&mut self) {
        let w = self.w;
        self.entries.iter_mut().for_each(|e| *e = Entry::empty(w));
        self.done.clear();
        self.dirty = u64::MAX;
    }
    /// Forget which sets the last cycle wrote (the checks look only at written sets).
    pub fn begin_cycle(&mut self) {
        self.dirty = 0;
    }
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }
    /// The oldest complete entry (start of cycle): what a drain this cycle frees.
    pub fn head(&self) -> Option<usize> {
        self.done.front().copied()
    }
    pub fn head_warp(&self) -> Option<Warp> {
        self.head().map(|e| self.warp_of(e))
    }
    fn warp_of(&self, e: usize) -> Warp {
        let x = &self.entries[e];
        Warp {
            pc: x.pc,
            lanes: x.expected,
            thi: x.thi.clone(),
        }
    }
    /// Completion rank of entry `e` (0 when it is not complete).
    pub fn ord(&self, e: usize) -> usize {
        if self.entries[e].complete {
            self.done.iter().position(|&d| d == e).unwrap_or(0)
        } else {
            0
        }
    }
    /// Complete entries in drain order.
    pub fn drain_order(&self) -> impl Iterator<Item = usize> + '_ {
        self.done.iter().copied()
    }
    /// Valid incomplete entries.
    pub fn live(&self) -> usize {
        self.entries.iter().filter(|e| e.live()).count()
    }
    /// Valid entries.
    pub fn used(&self) -> usize {
        self.entries.iter().filter(|e| e.valid).count()
    }
    pub fn occupancy(&self, set: usize) -> usize {
        let ways = self.cfg.ways;
        self.entries[set * ways..(set + 1) * ways]
            .iter()
            .filter(|e| e.valid)
            .count()
    }
    fn set_range(&self, set: usize) -> std::ops::Range<usize> {
        set * self.cfg.ways..(set + 1) * self.cfg.ways
    }

    /// The live entry of `set` holding thread (`l`, `thi`) at `pc`, not yet arrived when
    /// `unarrived` (the match rule of §3.4.5, or the dedup cover test without it).
    fn find(&self, set: usize, pc: u64, l: usize, thi: u64, unarrived: bool) -> Option<usize> {
        self.set_range(set).find(|&e| {
            let x = &self.entries[e];
            x.live()
                && x.pc == pc
                && x.expected >> l & 1 == 1
                && (!unarrived || x.arrived >> l & 1 == 0)
                && x.thi[l] == thi
        })
    }

    /// One cycle: the reservation, the arrival check (seeing the reservation), completions,
    /// then the drain of the start-of-cycle head when `drain`.
    pub fn cycle(
        &mut self,
        rsv: Option<&Warp>,
        prb: Option<&Probe>,
        drain: bool,
    ) -> BarrierOutcome {
        let w = self.w;
        let all = (1u64 << w) - 1;
        let mut out = BarrierOutcome::default();
        let head = if drain { self.head() } else { None };
        let start =
            (self.fault == Some(BarrierFault::ProbeBeforeReserve)).then(|| self.entries.clone());

        // 1. Reserve: per set group, drop covered lanes, allocate the lowest free way.
        if let Some(v) = rsv {
            let lanes = v.lanes & all;
            let mut groups: Vec<(usize, u64)> = vec![];
            for l in (0..w).filter(|&l| lanes >> l & 1 == 1) {
                let s = self.cfg.set_of(v.thi[l]);
                let covered = self.find(s, v.pc, l, v.thi[l], false).is_some()
                    && self.fault != Some(BarrierFault::NoDedup);
                if covered {
                    out.dedup += 1;
                    continue;
                }
                match groups.iter_mut().find(|g| g.0 == s) {
                    Some(g) => g.1 |= 1 << l,
                    None => groups.push((s, 1 << l)),
                }
            }
            groups.sort();
            for (s, g) in groups {
                match self.set_range(s).find(|&e| !self.entries[e].valid) {
                    Some(e) => {
                        self.entries[e] = Entry {
                            valid: true,
                            complete: false,
                            pc: v.pc,
                            expected: g,
                            arrived: 0,
                            thi: (0..w)
                                .map(|l| if g >> l & 1 == 1 { v.thi[l] } else { 0 })
                                .collect(),
                        };
                        self.dirty |= 1 << s;
                        out.allocated.push(e);
                    }
                    None => out.fail += 1,
                }
            }
        }

        // 2. Arrival check, per lane in its own set.
        if let Some(p) = prb {
            let lanes = p.lanes & all;
            let first_set = (0..w)
                .find(|&l| lanes >> l & 1 == 1)
                .map(|l| self.cfg.set_of(p.thi[l]));
            for l in (0..w).filter(|&l| lanes >> l & 1 == 1) {
                let mut s = self.cfg.set_of(p.thi[l]);
                if self.fault == Some(BarrierFault::OneSetProbe) {
                    s = first_set.unwrap_or(s);
                }
                let Some(e) = self.find(s, p.pc[l], l, p.thi[l], true) else {
                    continue;
                };
                if let Some(st) = &start {
                    if !st[e].valid {
                        continue;
                    }
                }
                self.entries[e].arrived |= 1 << l;
                out.hit |= 1 << l;
                if !out.arrived_in.contains(&e) {
                    out.arrived_in.push(e);
                }
                self.dirty |= 1 << s;
            }
        }

        // 3. Completion, in entry order.
        let mut touched = out.arrived_in.clone();
        touched.sort();
        for e in touched {
            let x = &mut self.entries[e];
            if x.arrived == x.expected {
                x.complete = true;
                self.done.push_back(e);
                out.completed.push(e);
            }
        }

        // 4. Drain.
        if let Some(h) = head {
            out.drained = Some(self.warp_of(h));
            self.entries[h] = Entry::empty(w);
            self.done.pop_front();
            self.dirty |= 1 << (h / self.cfg.ways);
        }
        out
    }

    /// §7.1.4 on the sets written since `begin_cycle`: arrived ⊆ expected; thi 0 outside
    /// expected; every thread of a barrier maps to its set; complete iff arrived = expected;
    /// at most one live barrier per (thread, PC); invalid entries cleared. And the drain
    /// order holds exactly the complete entries.
    pub fn check(&self) -> Result<(), String> {
        let w = self.w;
        for s in 0..self.cfg.sets {
            if self.dirty >> s.min(63) & 1 == 0 {
                continue;
            }
            for e in self.set_range(s) {
                let x = &self.entries[e];
                if !x.valid {
                    let clear = !x.complete
                        && x.pc == 0
                        && x.expected == 0
                        && x.arrived == 0
                        && x.thi.iter().all(|&t| t == 0);
                    if !clear {
                        return Err(format!("entry {e}: invalid but not cleared"));
                    }
                    continue;
                }
                if x.expected == 0 {
                    return Err(format!("entry {e}: a barrier expecting no lane"));
                }
                if x.arrived & !x.expected != 0 {
                    return Err(format!(
                        "entry {e}: arrived {:#x} not within expected {:#x}",
                        x.arrived, x.expected
                    ));
                }
                if x.complete != (x.arrived == x.expected) {
                    return Err(format!(
                        "entry {e}: complete iff every expected lane arrived"
                    ));
                }
                for l in 0..w {
                    if x.expected >> l & 1 == 0 {
                        if x.thi[l] != 0 {
                            return Err(format!("entry {e}: lane {l} not expected but thi != 0"));
                        }
                    } else if self.cfg.set_of(x.thi[l]) != s {
                        return Err(format!(
                            "entry {e} (set {s}): lane {l}'s thread (thi {}) belongs to set {}",
                            x.thi[l],
                            self.cfg.set_of(x.thi[l])
                        ));
                    }
                }
                if !x.complete {
                    for f in self.set_range(s).filter(|&f| f > e) {
                        let y = &self.entries[f];
                        if y.live() && y.pc == x.pc {
                            let both = x.expected & y.expected;
                            if let Some(l) =
                                (0..w).find(|&l| both >> l & 1 == 1 && x.thi[l] == y.thi[l])
                            {
                                return Err(format!(
                                    "entries {e} and {f}: two live barriers at pc {:#x} for thread (lane {l}, thi {}) (A8)",
                                    x.pc, x.thi[l]
                                ));
                            }
                        }
                    }
                }
            }
        }
        let complete = self
            .entries
            .iter()
            .filter(|e| e.valid && e.complete)
            .count();
        if complete != self.done.len() || self.done.iter().any(|&e| !self.entries[e].complete) {
            return Err("drain order does not hold exactly the complete entries".into());
        }
        Ok(())
    }

    pub fn summary(&self) -> String {
        let mut s = String::new();
        for (e, x) in self.entries.iter().enumerate().filter(|(_, x)| x.valid) {
            s.push_str(&format!(
                " e{e}[pc {:#x} exp {:#x} arr {:#x}{}]",
                x.pc,
                x.expected,
                x.arrived,
                if x.complete { " done" } else { "" }
            ));
        }
        if s.is_empty() {
            s.push_str(" -");
        }
        s
    }
}

/// Event counters (coverage).
#[derive(Clone, Debug, Default)]
pub struct BarrierCounters {
    pub cycles: u64,
    /// Barriers allocated.
    pub reserves: u64,
    /// Reserved lanes dropped as covered.
    pub dedups: u64,
    /// Groups without a barrier (bar_alloc_fail).
    pub alloc_fails: u64,
    /// Probed lanes absorbed.
    pub arrivals: u64,
    pub completions: u64,
    pub drains: u64,
    /// Reservations that allocated in two or more sets (a mixed-group warp, A7).
    pub multi_set_reserves: u64,
    /// Probes whose hits fell in two or more sets (C7).
    pub multi_set_arrivals: u64,
    /// Hits on an entry allocated the same cycle (the one-sided branch).
    pub same_cycle_absorbs: u64,
    /// Cycles completing two or more barriers.
    pub multi_completions: u64,
    /// Cycles starting with some set full.
    pub set_full_cycles: u64,
}

/// The cycle model of `crown-barrier`.
#[derive(Clone, Debug)]
pub struct CrownBarrierModel {
    cfg: BarrierConfig,
    inp: InPorts,
    out: OutPorts,
    table: BarrierTable,
    counters: BarrierCounters,
    cycle: u64,
    /// Debug-port images (registered state), updated per entry as it changes.
    img: Vec<u64>,
    img_at: usize,
    img_words: usize,
}

impl CrownBarrierModel {
    pub fn new(cfg: &BarrierConfig) -> Self {
        let layout = Layout::new(&cfg.ports());
        let first = layout.output("dbg_valid").unwrap().offset;
        let img_words = layout.out_words - first;
        let out = OutPorts::new(&layout);
        let mut m = CrownBarrierModel {
            inp: InPorts::new(&layout),
            out,
            table: BarrierTable::new(cfg),
            counters: BarrierCounters::default(),
            cycle: 0,
            img: vec![0; img_words],
            img_at: first,
            img_words,
            cfg: cfg.clone(),
        };
        m.assert_debug_ports_last(&layout);
        m
    }

    fn assert_debug_ports_last(&mut self, layout: &Layout) {
        // The debug ports are the contract's last outputs: one image copied per cycle.
        let dbg = layout
            .outputs
            .iter()
            .position(|s| s.name == "dbg_valid")
            .unwrap();
        assert!(layout.outputs[dbg..]
            .iter()
            .all(|s| s.name.starts_with("dbg_")));
    }

    pub fn inject_fault(&mut self, fault: Option<BarrierFault>) {
        self.table.inject_fault(fault);
    }
    pub fn table(&self) -> &BarrierTable {
        &self.table
    }
    pub fn counters(&self) -> &BarrierCounters {
        &self.counters
    }

    /// Rewrite entry `e`'s fields in the debug image.
    fn refresh(&mut self, e: usize) {
        let (w, t, p, ob) = (
            self.cfg.w(),
            self.cfg.thi_bits(),
            self.cfg.pc_bits(),
            self.cfg.ord_bits(),
        );
        let base = 64 * self.img_at;
        let o = &self.out;
        let (v, c, pc, ex, ar, th, od) = (
            o.dbg_valid - base,
            o.dbg_complete - base,
            o.dbg_pc - base,
            o.dbg_expected - base,
            o.dbg_arrived - base,
            o.dbg_thi - base,
            o.dbg_ord - base,
        );
        let x = &self.table.entries()[e];
        let ord = self.table.ord(e) as u64;
        let img = &mut self.img;
        set(img, v + e, 1, x.valid as u64);
        set(img, c + e, 1, x.complete as u64);
        set(img, pc + e * p, p, x.pc);
        set(img, ex + e * w, w, x.expected);
        set(img, ar + e * w, w, x.arrived);
        for l in 0..w {
            set(img, th + (e * w + l) * t, t, x.thi[l]);
        }
        set(img, od + e * ob, ob, ord);
    }

    fn probe_in(&self, inputs: &[u64]) -> Probe {
        let (w, t, p) = (self.cfg.w(), self.cfg.thi_bits(), self.cfg.pc_bits());
        let i = &self.inp;
        Probe {
            lanes: get(inputs, i.prb_lanes, w),
            pc: (0..w).map(|l| get(inputs, i.prb_pc + l * p, p)).collect(),
            thi: (0..w).map(|l| get(inputs, i.prb_thi + l * t, t)).collect(),
        }
    }
    fn reserve_in(&self, inputs: &[u64]) -> Option<Warp> {
        let (w, t, p) = (self.cfg.w(), self.cfg.thi_bits(), self.cfg.pc_bits());
        let i = &self.inp;
        (get(inputs, i.rsv_valid, 1) == 1).then(|| Warp {
            pc: get(inputs, i.rsv_pc, p),
            lanes: get(inputs, i.rsv_lanes, w),
            thi: (0..w).map(|l| get(inputs, i.rsv_thi + l * t, t)).collect(),
        })
    }
}

impl Model for CrownBarrierModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let (w, t, p) = (self.cfg.w(), self.cfg.thi_bits(), self.cfg.pc_bits());
        outputs[..self.img_at].iter_mut().for_each(|x| *x = 0);
        outputs[self.img_at..self.img_at + self.img_words].copy_from_slice(&self.img);
        let o = self.out;
        // Registered outputs.
        let cb = self.cfg.count_bits();
        set(outputs, o.live, cb, self.table.live() as u64);
        set(outputs, o.used, cb, self.table.used() as u64);
        if let Some(h) = self.table.head() {
            let x = &self.table.entries()[h];
            set(outputs, o.head_valid, 1, 1);
            set(outputs, o.head_entry, self.cfg.entry_bits(), h as u64);
            set(outputs, o.head_pc, p, x.pc);
            set(outputs, o.head_lanes, w, x.expected);
            for l in 0..w {
                set(outputs, o.head_thi + l * t, t, x.thi[l]);
            }
        }
        self.cycle += 1;
        self.counters.cycles += 1;
        self.table.begin_cycle();
        if get(inputs, self.inp.reset, 1) == 1 {
            self.table.reset();
            for e in 0..self.cfg.entries() {
                self.refresh(e);
            }
            return;
        }
        let c = &mut self.counters;
        c.set_full_cycles +=
            (0..self.cfg.sets).any(|s| self.table.occupancy(s) == self.cfg.ways) as u64;
        let rsv = self.reserve_in(inputs);
        let prb = self.probe_in(inputs);
        let drain = get(inputs, self.inp.drain, 1) == 1;
        let before: Vec<usize> = self.table.drain_order().collect();
        let r = self.table.cycle(rsv.as_ref(), Some(&prb), drain);

        let lb = self.cfg.lane_count_bits();
        set(outputs, o.prb_hit, w, r.hit);
        set(outputs, o.rsv_new, lb, r.allocated.len() as u64);
        set(outputs, o.rsv_dedup, lb, r.dedup as u64);
        set(outputs, o.rsv_fail, lb, r.fail as u64);

        let c = &mut self.counters;
        let ways = self.cfg.ways;
        c.reserves += r.allocated.len() as u64;
        c.dedups += r.dedup as u64;
        c.alloc_fails += r.fail as u64;
        c.arrivals += r.hit.count_ones() as u64;
        c.completions += r.completed.len() as u64;
        c.drains += r.drained.is_some() as u64;
        c.multi_set_reserves += (r.allocated.len() >= 2) as u64;
        let mut hit_sets: Vec<usize> = r.arrived_in.iter().map(|e| e / ways).collect();
        hit_sets.dedup();
        c.multi_set_arrivals += (hit_sets.len() >= 2) as u64;
        c.same_cycle_absorbs += r.arrived_in.iter().any(|e| r.allocated.contains(e)) as u64;
        c.multi_completions += (r.completed.len() >= 2) as u64;

        // Debug image: every entry written this cycle, and every rank that moved.
        let mut dirty: Vec<usize> = r.allocated.clone();
        dirty.extend(&r.arrived_in);
        if r.drained.is_some() {
            // Every rank moved down by one.
            dirty.extend(before);
            dirty.extend(self.table.drain_order());
        }
        dirty.sort();
        dirty.dedup();
        for e in dirty {
            self.refresh(e);
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.table.check()?;
        let live = self.table.live();
        let used = self.table.used();
        if live > used || used > self.cfg.entries() {
            return Err("live/used counts out of range".into());
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        format!("cycle {}{}", self.cycle, self.table.summary())
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let c = &self.counters;
        vec![
            ("reserves", c.reserves),
            ("dedups", c.dedups),
            ("alloc_fails", c.alloc_fails),
            ("arrivals", c.arrivals),
            ("completions", c.completions),
            ("drains", c.drains),
            ("multi_set_reserves", c.multi_set_reserves),
            ("multi_set_arrivals", c.multi_set_arrivals),
            ("same_cycle_absorbs", c.same_cycle_absorbs),
            ("multi_completions", c.multi_completions),
            ("set_full_cycles", c.set_full_cycles),
        ]
    }
}
