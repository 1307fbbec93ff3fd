//! The issue pool ([`IssuePool`]) as a plain struct the `crown` top model composes, and the
//! port-level unit model ([`CrownPoolModel`]).

use warpforge_contract::units::crown::{unpack_thi, Warp};
use warpforge_contract::units::crown_pool::PoolConfig;
use warpforge_contract::Layout;

use crate::words;
use crate::Model;

/// A deliberate model bug, for tests that show lockstep catches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolFault {
    /// Selection searches from the last issued entry itself, not the one after it.
    SearchFromLast,
    /// Selection is the lowest valid entry (fixed priority, not LRR).
    LowestFirst,
}

/// One pool entry: the warp and its second-level row (A6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolEntry {
    pub warp: Warp,
    pub slot: usize,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct PoolEvents {
    pub issues: u64,
    pub refills: u64,
    /// Cycles with both a refill and an issue.
    pub refill_and_issue: u64,
    /// Selections that skipped an invalid entry after the last issued one.
    pub lrr_skips: u64,
    /// Selections at or below the last issued entry (the search wrapped).
    pub wraps: u64,
    pub full_cycles: u64,
    pub empty_cycles: u64,
}

/// CROWN's issue pool (§3.4.1): `pool` entries, LRR selection, one refill per cycle.
#[derive(Clone, Debug)]
pub struct IssuePool {
    cfg: PoolConfig,
    entries: Vec<Option<PoolEntry>>,
    /// The entry issued most recently.
    last: usize,
    cycles: u64,
    violation: Option<String>,
    fault: Option<PoolFault>,
    /// The entry the last cycle refilled (and did not issue).
    refilled: Option<usize>,
    pub ev: PoolEvents,
}

/// [`IssuePool::check`] checks the pool's contents in every cycle with a refill and every
/// this many cycles besides.
const FULL_CHECK_PERIOD: u64 = 256;

impl IssuePool {
    pub fn new(cfg: &PoolConfig) -> IssuePool {
        IssuePool {
            entries: vec![None; cfg.pool],
            last: cfg.pool - 1,
            cycles: 0,
            violation: None,
            fault: None,
            refilled: None,
            ev: PoolEvents::default(),
            cfg: cfg.clone(),
        }
    }

    pub fn inject_fault(&mut self, fault: Option<PoolFault>) {
        self.fault = fault;
    }

    /// Every entry invalid; the first selection searches from entry 0.
    pub fn reset(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = None);
        self.last = self.cfg.pool - 1;
        self.refilled = None;
    }

    pub fn entries(&self) -> &[Option<PoolEntry>] {
        &self.entries
    }
    pub fn count(&self) -> usize {
        self.entries.iter().filter(|e| e.is_some()).count()
    }
    pub fn has_free(&self) -> bool {
        self.count() < self.cfg.pool
    }
    pub fn last(&self) -> usize {
        self.last
    }
    pub fn violation(&self) -> Option<&str> {
        self.violation.as_deref()
    }

    /// LRR: the first valid entry in the order last+1, …, last (modulo pool).
    pub fn select(&self) -> Option<(usize, &PoolEntry)> {
        let n = self.cfg.pool;
        let start = match self.fault {
            Some(PoolFault::SearchFromLast) => self.last,
            Some(PoolFault::LowestFirst) => 0,
            None => self.last + 1,
        };
        (0..n)
            .map(|k| (start + k) % n)
            .find_map(|i| self.entries[i].as_ref().map(|e| (i, e)))
    }

    /// One clock cycle from start-of-cycle state: `refill` goes to the lowest free entry,
    /// `issue` frees the selected entry. Returns (issued entry, refilled entry). A refill
    /// with no free entry is a protocol break: recorded and dropped.
    pub fn cycle(
        &mut self,
        refill: Option<PoolEntry>,
        issue: bool,
    ) -> (Option<usize>, Option<usize>) {
        self.cycles += 1;
        let n = self.cfg.pool;
        match self.count() {
            0 => self.ev.empty_cycles += 1,
            c if c == n => self.ev.full_cycles += 1,
            _ => {}
        }
        let selected = self.select().map(|(i, _)| i);
        let free = self.entries.iter().position(|e| e.is_none());
        let mut refilled = None;
        if let Some(mut e) = refill {
            match free {
                Some(f) => {
                    refilled = Some(f);
                    self.ev.refills += 1;
                    // Stored as tables store warps: thi zero outside the lanes.
                    e.warp.normalize(self.cfg.common.w);
                    self.entries[f] = Some(e);
                }
                None => {
                    if self.violation.is_none() {
                        self.violation = Some(format!(
                            "cycle {}: contract: ref_valid with no free entry",
                            self.cycles
                        ));
                    }
                }
            }
        }
        let mut issued = None;
        if let (true, Some(s)) = (issue, selected) {
            if s != (self.last + 1) % n {
                self.ev.lrr_skips += 1;
            }
            if s <= self.last {
                self.ev.wraps += 1;
            }
            self.ev.issues += 1;
            if refilled.is_some() {
                self.ev.refill_and_issue += 1;
            }
            self.entries[s] = None;
            self.last = s;
            issued = Some(s);
        }
        // An entry refilled and issued in one cycle is gone: nothing new to check.
        self.refilled = refilled.filter(|&f| self.entries[f].is_some());
        (issued, refilled)
    }

    /// §7.1 for the pool: capacity, distinct second-level rows, distinct threads in their
    /// own lanes, lane-free thread indices zero, a contract break.
    pub fn check(&self) -> Result<(), String> {
        if let Some(v) = &self.violation {
            return Err(v.clone());
        }
        let c = &self.cfg.common;
        if self.last >= self.cfg.pool {
            return Err(format!("last issued entry {} out of range", self.last));
        }
        // Only a refill adds to the pool (issues remove entries, a reset clears them): the
        // distinctness checks run in cycles with a refill, and every FULL_CHECK_PERIOD-th.
        if self.refilled.is_none() && !self.cycles.is_multiple_of(FULL_CHECK_PERIOD) {
            return Ok(());
        }
        // Threads and second-level rows seen, as bit sets (N ≤ 4096, n2 ≤ N).
        let mut threads = [0u64; 64];
        let mut slots = [0u64; 64];
        for (i, e) in self.entries.iter().enumerate() {
            let Some(e) = e else { continue };
            if e.slot >= self.cfg.n2 {
                return Err(format!("entry {i}: slot {} is not a row", e.slot));
            }
            let s = e.slot % 4096;
            if slots[s / 64] >> (s % 64) & 1 == 1 {
                return Err(format!("entry {i}: slot {} is in the pool twice", e.slot));
            }
            slots[s / 64] |= 1 << (s % 64);
            for (l, &t) in e.warp.thi.iter().enumerate().take(c.w) {
                if e.warp.lanes >> l & 1 == 0 {
                    if t != 0 {
                        return Err(format!("entry {i}: a thread index outside the lanes"));
                    }
                    continue;
                }
                let x = c.thread(l, t) as usize % 4096;
                if threads[x / 64] >> (x % 64) & 1 == 1 {
                    return Err(format!("thread {} is in two pool entries", c.thread(l, t)));
                }
                threads[x / 64] |= 1 << (x % 64);
            }
        }
        Ok(())
    }

    pub fn events(&self) -> Vec<(&'static str, u64)> {
        let e = &self.ev;
        vec![
            ("issues", e.issues),
            ("refills", e.refills),
            ("refill_and_issue", e.refill_and_issue),
            ("lrr_skips", e.lrr_skips),
            ("wraps", e.wraps),
            ("full_cycles", e.full_cycles),
            ("empty_cycles", e.empty_cycles),
        ]
    }
}

/// Where each port lives in the flat vectors.
#[derive(Clone, Debug)]
pub(crate) struct Ports {
    pub reset: usize,
    pub ref_valid: usize,
    pub ref_pc: usize,
    pub ref_lanes: usize,
    pub ref_thi: (usize, usize),
    pub ref_slot: usize,
    pub issue: usize,
    pub has_free: usize,
    pub sel_valid: usize,
    pub sel_idx: usize,
    pub sel_pc: usize,
    pub sel_lanes: usize,
    pub sel_thi: (usize, usize),
    pub sel_slot: usize,
    pub count: usize,
    pub dbg_valid: usize,
    pub dbg_last: usize,
    pub dbg_slot: usize,
}

impl Ports {
    pub fn new(cfg: &PoolConfig) -> Ports {
        let l = Layout::new(&cfg.ports());
        let i = |n: &str| l.input(n).expect("crown-pool input").offset;
        let o = |n: &str| l.output(n).expect("crown-pool output").offset;
        let iw = |n: &str| {
            let s = l.input(n).unwrap();
            (s.offset, s.words)
        };
        let ow = |n: &str| {
            let s = l.output(n).unwrap();
            (s.offset, s.words)
        };
        Ports {
            reset: i("reset"),
            ref_valid: i("ref_valid"),
            ref_pc: i("ref_pc"),
            ref_lanes: i("ref_lanes"),
            ref_thi: iw("ref_thi"),
            ref_slot: i("ref_slot"),
            issue: i("issue"),
            has_free: o("has_free"),
            sel_valid: o("sel_valid"),
            sel_idx: o("sel_idx"),
            sel_pc: o("sel_pc"),
            sel_lanes: o("sel_lanes"),
            sel_thi: ow("sel_thi"),
            sel_slot: o("sel_slot"),
            count: o("count"),
            dbg_valid: o("dbg_valid"),
            dbg_last: o("dbg_last"),
            dbg_slot: o("dbg_slot"),
        }
    }
}

pub(crate) fn mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// Decode one cycle's input words: (reset, refill, issue).
pub(crate) fn decode(
    cfg: &PoolConfig,
    p: &Ports,
    inputs: &[u64],
) -> (bool, Option<PoolEntry>, bool) {
    let c = &cfg.common;
    let refill = (inputs[p.ref_valid] & 1 == 1).then(|| {
        let (o, n) = p.ref_thi;
        PoolEntry {
            warp: Warp {
                pc: inputs[p.ref_pc] & mask(c.pc_bits),
                lanes: inputs[p.ref_lanes] & c.all_lanes(),
                thi: unpack_thi(&inputs[o..o + n], c.w, c.thi_bits()),
            },
            slot: (inputs[p.ref_slot] & mask(cfg.slot_bits())) as usize,
        }
    });
    (inputs[p.reset] & 1 == 1, refill, inputs[p.issue] & 1 == 1)
}

/// The port-level model of `crown-pool`.
#[derive(Clone, Debug)]
pub struct CrownPoolModel {
    pub pool: IssuePool,
    p: Ports,
}

impl CrownPoolModel {
    pub fn new(cfg: &PoolConfig) -> CrownPoolModel {
        CrownPoolModel {
            pool: IssuePool::new(cfg),
            p: Ports::new(cfg),
        }
    }

    pub fn inject_fault(&mut self, fault: Option<PoolFault>) {
        self.pool.inject_fault(fault);
    }

    fn outputs(&self, out: &mut [u64]) {
        let (q, p) = (&self.pool, &self.p);
        let c = &q.cfg.common;
        out.iter_mut().for_each(|x| *x = 0);
        out[p.has_free] = q.has_free() as u64;
        out[p.count] = q.count() as u64;
        if let Some((i, e)) = q.select() {
            out[p.sel_valid] = 1;
            out[p.sel_idx] = i as u64;
            out[p.sel_pc] = e.warp.pc;
            out[p.sel_lanes] = e.warp.lanes;
            let (o, _) = p.sel_thi;
            let tb = c.thi_bits();
            for (l, &t) in e.warp.thi.iter().enumerate() {
                words::set(&mut out[o..], l * tb, tb, t);
            }
            out[p.sel_slot] = e.slot as u64;
        }
        let sb = q.cfg.slot_bits();
        for (i, e) in q.entries.iter().enumerate() {
            if let Some(e) = e {
                out[p.dbg_valid] |= 1 << i;
                words::set(&mut out[p.dbg_slot..], i * sb, sb, e.slot as u64);
            }
        }
        out[p.dbg_last] = q.last as u64;
    }
}

impl Model for CrownPoolModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.outputs(outputs);
        let (reset, refill, issue) = decode(&self.pool.cfg, &self.p, inputs);
        if reset {
            self.pool.reset();
        } else {
            self.pool.cycle(refill, issue);
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.pool.check()
    }

    fn check_inputs(&self, inputs: &[u64]) -> Result<(), String> {
        let (reset, refill) = (
            inputs[self.p.reset] & 1 == 1,
            inputs[self.p.ref_valid] & 1 == 1,
        );
        if !reset && refill && !self.pool.has_free() {
            return Err("port ref_valid: the pool has no free entry".into());
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        let q = &self.pool;
        let e: Vec<String> = q
            .entries
            .iter()
            .map(|e| match e {
                Some(e) => format!("{}@{:#x}/{:#x}", e.slot, e.warp.pc, e.warp.lanes),
                None => "-".into(),
            })
            .collect();
        format!("last={} entries=[{}]", q.last, e.join(" "))
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        self.pool.events()
    }
}
