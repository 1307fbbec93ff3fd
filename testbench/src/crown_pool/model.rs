//! The issue pool ([`IssuePool`]) as a plain struct the `crown` top model composes, and the
//! port-level unit model ([`CrownPoolModel`]).

use warpforge_contract::units::crown::{CrownCommon, Warp};
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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolEntry {
    pub warp: Warp,
    pub slot: usize,
}

impl PoolEntry {
    /// `self = e` with its warp [`Warp::normalized`] to `w` lanes, reusing `thi`'s buffer
    /// (no allocation once it holds `w` lanes).
    fn assign_normalized(&mut self, e: &PoolEntry, w: usize) {
        let lanes = e.warp.lanes;
        self.warp.pc = e.warp.pc;
        self.warp.lanes = lanes;
        let thi = &mut self.warp.thi;
        if thi.len() != w {
            thi.resize(w, 0);
        }
        // One pass, no per-lane bounds check on the source: lanes past its end read 0.
        let src = &e.warp.thi[..e.warp.thi.len().min(w)];
        thi.fill(0);
        for (l, (d, &t)) in thi.iter_mut().zip(src).enumerate() {
            *d = t & 0u64.wrapping_sub(lanes >> l & 1);
        }
        self.slot = e.slot;
    }
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
    /// Freed entries' storage, reused by refills (no allocation per refill).
    spare: Vec<PoolEntry>,
    /// Entry e valid at bit e (pool ≤ 16), and how many, kept with `entries`.
    valid: u64,
    count: usize,
    /// The entry issued most recently.
    last: usize,
    cycles: u64,
    violation: Option<String>,
    fault: Option<PoolFault>,
    /// The entry the last cycle refilled (and did not issue).
    refilled: Option<usize>,
    held: Held,
    track: bool,
    pub ev: PoolEvents,
}

/// The threads (`c.thread(l, t)` as bits) and second-level rows the valid entries hold, kept
/// with each refill, issue and reset, so that a refill's distinctness is checked against
/// them (O(w)) rather than by rescanning the pool. `clash` records a refill that broke
/// distinctness (or the lane rule): from then on the sets no longer mirror the pool and
/// [`IssuePool::check`] rescans it.
#[derive(Clone, Debug)]
struct Held {
    threads: [u64; 64],
    slots: [u64; 64],
    clash: bool,
}

impl Held {
    /// Empty sets; `track` false leaves them stale from the start (a pool nobody checks).
    fn new(track: bool) -> Held {
        Held {
            threads: [0; 64],
            slots: [0; 64],
            clash: !track,
        }
    }
}

/// [`IssuePool::check`] checks the pool's contents in every cycle with a refill and every
/// this many cycles besides.
const FULL_CHECK_PERIOD: u64 = 256;

impl IssuePool {
    pub fn new(cfg: &PoolConfig) -> IssuePool {
        Self::with_tracking(cfg, true)
    }

    /// A pool without the held sets: for a stimulus's shadow pool, whose invariants nobody
    /// checks ([`IssuePool::check`] still works: it rescans).
    pub(crate) fn untracked(cfg: &PoolConfig) -> IssuePool {
        Self::with_tracking(cfg, false)
    }

    fn with_tracking(cfg: &PoolConfig, track: bool) -> IssuePool {
        let empty = PoolEntry {
            warp: Warp {
                pc: 0,
                lanes: 0,
                thi: vec![0; cfg.common.w],
            },
            slot: 0,
        };
        IssuePool {
            entries: vec![None; cfg.pool],
            spare: vec![empty; cfg.pool],
            valid: 0,
            count: 0,
            last: cfg.pool - 1,
            cycles: 0,
            violation: None,
            fault: None,
            refilled: None,
            held: Held::new(track),
            track,
            ev: PoolEvents::default(),
            cfg: cfg.clone(),
        }
    }

    pub fn inject_fault(&mut self, fault: Option<PoolFault>) {
        self.fault = fault;
    }

    /// Every entry invalid; the first selection searches from entry 0.
    pub fn reset(&mut self) {
        for e in self.entries.iter_mut() {
            if let Some(x) = e.take() {
                self.spare.push(x);
            }
        }
        self.valid = 0;
        self.count = 0;
        self.last = self.cfg.pool - 1;
        self.refilled = None;
        self.held = Held::new(self.track);
    }

    pub fn entries(&self) -> &[Option<PoolEntry>] {
        &self.entries
    }
    /// Entry `i` if valid.
    pub fn entry(&self, i: usize) -> Option<&PoolEntry> {
        self.entries[i].as_ref()
    }
    pub fn count(&self) -> usize {
        self.count
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
        let start = if start >= n { start - n } else { start };
        // Entries start.. first, then 0..start.
        let v = self.valid;
        let i = match v >> start {
            0 if v == 0 => return None,
            0 => v.trailing_zeros() as usize,
            hi => start + hi.trailing_zeros() as usize,
        };
        self.entries[i].as_ref().map(|e| (i, e))
    }

    /// One clock cycle from start-of-cycle state: `refill` goes to the lowest free entry,
    /// `issue` frees the selected entry. Returns (issued entry, refilled entry). A refill
    /// with no free entry is a protocol break: recorded and dropped.
    pub fn cycle(
        &mut self,
        refill: Option<PoolEntry>,
        issue: bool,
    ) -> (Option<usize>, Option<usize>) {
        self.cycle_ref(refill.as_ref(), issue)
    }

    /// [`IssuePool::cycle`] copying the refill into the entry's storage.
    pub fn cycle_ref(
        &mut self,
        refill: Option<&PoolEntry>,
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
        let free = (!self.valid).trailing_zeros() as usize;
        let free = (free < n).then_some(free);
        let mut refilled = None;
        if let Some(e) = refill {
            match free {
                Some(f) => {
                    refilled = Some(f);
                    self.ev.refills += 1;
                    // Stored as tables store warps: thi zero outside the lanes.
                    let mut x = self.spare.pop().unwrap_or_default();
                    x.assign_normalized(e, self.cfg.common.w);
                    self.entries[f] = Some(x);
                    self.valid |= 1 << f;
                    self.count += 1;
                    self.hold(f);
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
            // The entry after `last`, modulo n without a division.
            let next = if self.last + 1 == n { 0 } else { self.last + 1 };
            if s != next {
                self.ev.lrr_skips += 1;
            }
            if s <= self.last {
                self.ev.wraps += 1;
            }
            self.ev.issues += 1;
            if refilled.is_some() {
                self.ev.refill_and_issue += 1;
            }
            self.release(s);
            if let Some(x) = self.entries[s].take() {
                self.spare.push(x);
            }
            self.valid &= !(1 << s);
            self.count -= 1;
            self.last = s;
            issued = Some(s);
        }
        // An entry refilled and issued in one cycle is gone: nothing new to check.
        self.refilled = refilled.filter(|&f| self.valid >> f & 1 == 1);
        (issued, refilled)
    }

    /// Adds refilled entry `f`'s threads and row to the held sets; a clash with them (or a
    /// row out of range, or a thread index outside the lanes) marks the sets stale.
    fn hold(&mut self, f: usize) {
        let (c, h) = (&self.cfg.common, &mut self.held);
        let Some(e) = &self.entries[f] else { return };
        if h.clash {
            return;
        }
        let s = e.slot % 4096;
        h.clash |= e.slot >= self.cfg.n2 || h.slots[s / 64] >> (s % 64) & 1 == 1;
        h.slots[s / 64] |= 1 << (s % 64);
        let thi = &e.warp.thi[..e.warp.thi.len().min(c.w)];
        // Lanes outside the warp: their thread index must be 0.
        let mut outside = !e.warp.lanes;
        while outside != 0 {
            let l = outside.trailing_zeros() as usize;
            outside &= outside - 1;
            match thi.get(l) {
                Some(&t) => h.clash |= t != 0,
                None => break,
            }
        }
        for x in held_threads(c, e) {
            h.clash |= h.threads[x / 64] >> (x % 64) & 1 == 1;
            h.threads[x / 64] |= 1 << (x % 64);
        }
    }

    /// Removes issued entry `s`'s threads and row from the held sets.
    fn release(&mut self, s: usize) {
        let (c, h) = (&self.cfg.common, &mut self.held);
        let Some(e) = &self.entries[s] else { return };
        if h.clash {
            return;
        }
        let x = e.slot % 4096;
        h.slots[x / 64] &= !(1 << (x % 64));
        for x in held_threads(c, e) {
            h.threads[x / 64] &= !(1 << (x % 64));
        }
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
        let periodic = self.cycles.is_multiple_of(FULL_CHECK_PERIOD);
        if self.refilled.is_none() && !periodic {
            return Ok(());
        }
        // A refill was checked against the held sets when it came; the scan below runs
        // periodically, and for its message once they saw a clash.
        if !periodic && !self.held.clash {
            return Ok(());
        }
        // Threads and second-level rows seen, as bit sets (N ≤ 4096, n2 ≤ N).
        let mut threads = [0u64; 64];
        let mut slots = [0u64; 64];
        for i in 0..self.cfg.pool {
            let Some(e) = self.entry(i) else { continue };
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
#[derive(Clone, Copy, Debug)]
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

/// OR `values`, `width` (≤ 64) bits each, into consecutive fields from bit 0 of `out` (zero
/// there), gathering each word in a register: one store per word, where ORing field by field
/// into memory makes every field wait for the last one's store.
pub(crate) fn or_packed(out: &mut [u64], width: usize, values: impl IntoIterator<Item = u64>) {
    let m = mask(width);
    let (mut acc, mut b, mut w) = (0u64, 0usize, 0usize);
    for v in values {
        let v = v & m;
        acc |= v << b;
        b += width;
        if b >= 64 {
            out[w] |= acc;
            w += 1;
            b -= 64;
            // The field's bits that did not fit (none when it ended on the word boundary).
            acc = if b == 0 { 0 } else { v >> (width - b) };
        }
    }
    if b > 0 {
        out[w] |= acc;
    }
}

/// Decode one cycle's input words: (reset, refill, issue). The refill, when `ref_valid` is
/// high, is written into `e` (its `thi` buffer reused).
pub(crate) fn decode(
    cfg: &PoolConfig,
    p: &Ports,
    inputs: &[u64],
    e: &mut PoolEntry,
) -> (bool, bool, bool) {
    let c = &cfg.common;
    let refill = inputs[p.ref_valid] & 1 == 1;
    if refill {
        let (o, n) = p.ref_thi;
        let (words, tb) = (&inputs[o..o + n], c.thi_bits());
        e.warp.pc = inputs[p.ref_pc] & mask(c.pc_bits);
        e.warp.lanes = inputs[p.ref_lanes] & c.all_lanes();
        let thi = &mut e.warp.thi;
        if thi.len() != c.w {
            thi.resize(c.w, 0);
        }
        for (l, t) in thi.iter_mut().enumerate() {
            *t = words::get(words, l * tb, tb);
        }
        e.slot = (inputs[p.ref_slot] & mask(cfg.slot_bits())) as usize;
    }
    (inputs[p.reset] & 1 == 1, refill, inputs[p.issue] & 1 == 1)
}

/// The port-level model of `crown-pool`.
#[derive(Clone, Debug)]
pub struct CrownPoolModel {
    pub pool: IssuePool,
    p: Ports,
    /// The decoded refill, reused every cycle.
    refill: PoolEntry,
}

impl CrownPoolModel {
    pub fn new(cfg: &PoolConfig) -> CrownPoolModel {
        CrownPoolModel {
            pool: IssuePool::new(cfg),
            p: Ports::new(cfg),
            refill: PoolEntry::default(),
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
            or_packed(&mut out[o..], c.thi_bits(), e.warp.thi.iter().copied());
            out[p.sel_slot] = e.slot as u64;
        }
        let sb = q.cfg.slot_bits();
        out[p.dbg_valid] = q.valid;
        // Every entry's row in index order, 0 for an invalid entry.
        let slots = q
            .entries
            .iter()
            .map(|e| e.as_ref().map_or(0, |e| e.slot as u64));
        or_packed(&mut out[p.dbg_slot..], sb, slots);
        out[p.dbg_last] = q.last as u64;
    }
}

impl Model for CrownPoolModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.outputs(outputs);
        let (reset, refill, issue) = decode(&self.pool.cfg, &self.p, inputs, &mut self.refill);
        if reset {
            self.pool.reset();
        } else {
            self.pool.cycle_ref(refill.then_some(&self.refill), issue);
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
        let e: Vec<String> = (0..q.cfg.pool)
            .map(|i| match q.entry(i) {
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

#[cfg(test)]
mod tests {
    #[test]
    fn or_packed_matches_words_set_field_by_field() {
        for width in [1, 3, 7, 9, 13, 32, 63, 64] {
            let vals: Vec<u64> = (1..=20u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            let (mut a, mut b) = ([0u64; 24], [0u64; 24]);
            super::or_packed(&mut a, width, vals.iter().copied());
            for (i, &v) in vals.iter().enumerate() {
                crate::words::set(&mut b, i * width, width, v);
            }
            assert_eq!(a, b, "width {width}");
        }
    }
}

/// Entry `e`'s threads (thread id mod 4096: the held-set bit), one per lane it holds, in lane
/// order; stops at a lane without a thread index.
fn held_threads<'a>(c: &'a CrownCommon, e: &'a PoolEntry) -> impl Iterator<Item = usize> + 'a {
    let thi = &e.warp.thi[..e.warp.thi.len().min(c.w)];
    let mut lanes = e.warp.lanes & c.all_lanes();
    std::iter::from_fn(move || {
        if lanes == 0 {
            return None;
        }
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let &t = thi.get(l)?;
        Some(c.thread(l, t) as usize % 4096)
    })
}
