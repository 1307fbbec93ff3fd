//! The second-level table ([`SecondLevel`]) as a plain struct the `crown` top model composes,
//! and the port-level unit model ([`CrownL2Model`]) that drives it from the contract's ports.

use std::collections::VecDeque;
use warpforge_contract::units::crown::{pack_thi, unpack_thi, Warp};
use warpforge_contract::units::crown_l2::{L2Config, FREE, READY, WAIT_EXEC, WAIT_SYNC};
use warpforge_contract::Layout;

use crate::words;
use crate::Model;

/// A deliberate model bug, for tests that show the checks (and lockstep) catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L2Fault {
    /// Two rows becoming ready in one cycle are pushed in DESCENDING index.
    PushDescending,
    /// A popped row is not marked in the pool (it stays ready and off the FIFO).
    PopForgetsInPool,
}

/// A commit update (T3, T4's free, T8, T10, exit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct L2Update {
    pub row: usize,
    /// 0 free, 1 ready, 2 waiting-exec, 3 waiting-sync.
    pub state: u64,
    /// With `Some((pc, lanes))` the row's pc and lanes are written too (thi kept).
    pub write: Option<(u64, u64)>,
}

/// Everything driven into the table in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct L2Ops {
    /// Insert a new ready warp into the lowest free row.
    pub insert: Option<Warp>,
    pub update: Option<L2Update>,
    /// Refill: take the ready FIFO head (nothing when empty).
    pub pop: bool,
    /// The pool issued this row.
    pub issue: Option<usize>,
}

/// The result of a refill read, shown the cycle after the pop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refill {
    pub row: usize,
    pub warp: Warp,
}

/// Event counters (coverage), in [`SecondLevel::events`] order.
#[derive(Clone, Copy, Debug, Default)]
pub struct L2Events {
    pub pops: u64,
    pub inserts: u64,
    pub updates: u64,
    pub payload_writes: u64,
    pub issues: u64,
    pub frees: u64,
    pub to_ready: u64,
    pub to_wait_sync: u64,
    /// Cycles in which two rows were pushed on the FIFO.
    pub double_pushes: u64,
    pub pops_on_empty: u64,
    pub full_cycles: u64,
    /// Pops in a cycle that also pushes, the FIFO holding one or two rows: the new head or the
    /// entry after it is a row pushed this cycle.
    pub short_pop_pushes: u64,
    /// Pops right after a pop that left two or more rows: the head moves on every cycle.
    pub pop_streaks: u64,
}

/// CROWN's second-level warp table (§3.4.2): per-row state and in-pool bit, payload, ready
/// FIFO, and the registered result of the last refill read.
#[derive(Clone, Debug)]
pub struct SecondLevel {
    cfg: L2Config,
    state: Vec<u64>,
    in_pool: Vec<bool>,
    /// Images of `state` (2 bits per row), `in_pool` and the free rows, kept with them: the
    /// `dbg_*` ports and `ins_row` / `free_count` without a scan of every row per cycle.
    state_image: Vec<u64>,
    pool_image: Vec<u64>,
    free_image: Vec<u64>,
    nfree: usize,
    pc: Vec<u64>,
    lanes: Vec<u64>,
    /// Thread indices as inserted (zero outside the inserted lanes); read masked by `lanes`.
    thi: Vec<Vec<u64>>,
    fifo: VecDeque<usize>,
    /// Times each row is on the FIFO, kept with every push and pop (checked against the
    /// row states on the touched rows every cycle, and against the FIFO itself every 256).
    on_fifo: Vec<u32>,
    out: Option<Refill>,
    /// Thread slot → the row holding it (thread conservation, checked incrementally).
    owner: Vec<Option<usize>>,
    /// Rows whose state or payload changed in the last cycle (checked every cycle).
    touched: Vec<usize>,
    cycles: u64,
    /// The last cycle popped and left two or more rows (for `pop_streaks`).
    popped_long: bool,
    violation: Option<String>,
    fault: Option<L2Fault>,
    pub ev: L2Events,
}

impl SecondLevel {
    pub fn new(cfg: &L2Config) -> SecondLevel {
        let n = cfg.n2;
        SecondLevel {
            state: vec![FREE; n],
            in_pool: vec![false; n],
            state_image: vec![0; (2 * n).div_ceil(64)],
            pool_image: vec![0; n.div_ceil(64)],
            free_image: all_ones(n),
            nfree: n,
            pc: vec![0; n],
            lanes: vec![0; n],
            thi: vec![vec![0; cfg.common.w]; n],
            fifo: VecDeque::with_capacity(n),
            on_fifo: vec![0; n],
            out: None,
            owner: vec![None; cfg.common.threads],
            touched: vec![],
            cycles: 0,
            popped_long: false,
            violation: None,
            fault: None,
            ev: L2Events::default(),
            cfg: cfg.clone(),
        }
    }

    pub fn config(&self) -> &L2Config {
        &self.cfg
    }

    pub fn inject_fault(&mut self, fault: Option<L2Fault>) {
        self.fault = fault;
    }

    /// Synchronous reset: every row free, FIFO empty, no read result (the payload RAM keeps
    /// its contents, which no row then refers to).
    pub fn reset(&mut self) {
        self.state.iter_mut().for_each(|s| *s = FREE);
        self.in_pool.iter_mut().for_each(|p| *p = false);
        self.state_image.iter_mut().for_each(|x| *x = 0);
        self.pool_image.iter_mut().for_each(|x| *x = 0);
        self.free_image = all_ones(self.cfg.n2);
        self.nfree = self.cfg.n2;
        self.fifo.clear();
        self.on_fifo.iter_mut().for_each(|c| *c = 0);
        self.out = None;
        self.owner.iter_mut().for_each(|o| *o = None);
        self.touched.clear();
        self.popped_long = false;
    }

    pub fn rows(&self) -> usize {
        self.cfg.n2
    }
    /// Row `r`'s state (0 free, 1 ready, 2 waiting-exec, 3 waiting-sync).
    pub fn state(&self, r: usize) -> u64 {
        self.state[r]
    }
    pub fn in_pool(&self, r: usize) -> bool {
        self.in_pool[r]
    }
    /// Row `r`'s warp (thi zero outside its lanes); meaningful while the row is not free.
    pub fn warp(&self, r: usize) -> Warp {
        Warp {
            pc: self.pc[r],
            lanes: self.lanes[r],
            thi: self.thi[r].clone(),
        }
        .normalized(self.cfg.common.w)
    }
    /// The lowest free row (`ins_row`), None when full.
    pub fn lowest_free(&self) -> Option<usize> {
        self.free_image
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| 64 * i + w.trailing_zeros() as usize)
    }
    pub fn full(&self) -> bool {
        self.nfree == 0
    }
    pub fn free_count(&self) -> usize {
        self.nfree
    }

    fn set_state(&mut self, r: usize, s: u64) {
        let was_free = self.state[r] == FREE;
        self.state[r] = s;
        // Two bit-planes, as the dbg_state port.
        let n = self.cfg.n2;
        words::set(&mut self.state_image, r, 1, s & 1);
        words::set(&mut self.state_image, n + r, 1, s >> 1);
        let bit = 1u64 << (r % 64);
        match (was_free, s == FREE) {
            (true, false) => {
                self.free_image[r / 64] &= !bit;
                self.nfree -= 1;
            }
            (false, true) => {
                self.free_image[r / 64] |= bit;
                self.nfree += 1;
            }
            _ => {}
        }
    }

    fn set_in_pool(&mut self, r: usize, on: bool) {
        self.in_pool[r] = on;
        let bit = 1u64 << (r % 64);
        if on {
            self.pool_image[r / 64] |= bit;
        } else {
            self.pool_image[r / 64] &= !bit;
        }
    }
    pub fn occupancy(&self) -> usize {
        self.cfg.n2 - self.free_count()
    }
    /// Rows on the ready FIFO (ready and not in the pool): what T5 / T7 test.
    pub fn ready_count(&self) -> usize {
        self.fifo.len()
    }
    /// The FIFO head: the row the next pop takes.
    pub fn head(&self) -> Option<usize> {
        self.fifo.front().copied()
    }
    /// The ready FIFO, head first.
    pub fn fifo(&self) -> Vec<usize> {
        self.fifo.iter().copied().collect()
    }
    /// The refill read of the last cycle (`out_*`).
    pub fn out(&self) -> Option<&Refill> {
        self.out.as_ref()
    }
    /// The first contract violation seen (one payload write per cycle, insert when full,
    /// update of a row that is not waiting, issue of a row not in the pool, lanes added).
    pub fn violation(&self) -> Option<&str> {
        self.violation.as_deref()
    }

    fn flag(&mut self, why: String) {
        if self.violation.is_none() {
            self.violation = Some(format!("cycle {}: contract: {why}", self.cycles));
        }
    }

    /// The protocol of one cycle's operations in the current state: Err names the first
    /// break. (The RTL's behaviour is unspecified after one.)
    pub fn check_ops(&self, ops: &L2Ops) -> Result<(), String> {
        let n = self.cfg.n2;
        if let Some(u) = &ops.update {
            if ops.insert.is_some() && u.write.is_some() {
                return Err(
                    "one payload write per cycle: ins_valid with upd_valid and upd_wr".into(),
                );
            }
            if u.row >= n {
                return Err(format!("upd_row {} is not a row", u.row));
            }
            let s = self.state[u.row];
            if !(s == WAIT_EXEC || s == WAIT_SYNC) || self.in_pool[u.row] {
                return Err(format!(
                    "upd_row {}: a commit updates a waiting row (state {s}, in pool {})",
                    u.row, self.in_pool[u.row] as u8
                ));
            }
            if let Some((_, lanes)) = u.write {
                if lanes & !self.lanes[u.row] != 0 {
                    return Err(format!(
                        "upd_lanes {lanes:#x} adds lanes to row {} (lanes {:#x})",
                        u.row, self.lanes[u.row]
                    ));
                }
            }
        }
        if ops.insert.is_some() && self.full() {
            return Err("ins_valid while full (A5: commit must stall)".into());
        }
        if let Some(r) = ops.issue {
            if r >= n || !self.in_pool[r] {
                return Err(format!("iss_row {r} is not in the pool"));
            }
        }
        Ok(())
    }

    /// One clock cycle: every operation reads the start-of-cycle state; the results commit
    /// at the edge. Returns the row an insert went to. A protocol break is recorded
    /// ([`SecondLevel::violation`]) and the offending operation dropped.
    pub fn cycle(&mut self, ops: &L2Ops) -> Option<usize> {
        self.cycles += 1;
        self.touched.clear();
        if let Err(why) = self.check_ops(ops) {
            self.flag(why);
        }
        let w = self.cfg.common.w;
        let full = self.full();
        if full {
            self.ev.full_cycles += 1;
        }
        // Start-of-cycle decisions.
        let ins_row = self.lowest_free();
        let head = self.head();
        let mut pushes: Vec<usize> = vec![];
        let mut payload_writes = 0;

        // 1. Insert (T0 / bypass).
        let mut inserted = None;
        if let (Some(warp), Some(r)) = (&ops.insert, ins_row) {
            let v = warp.normalized(w);
            self.pc[r] = v.pc;
            self.lanes[r] = v.lanes;
            self.thi[r] = v.thi.clone();
            self.set_state(r, READY);
            self.set_in_pool(r, false);
            // Claimed after the update: a commit may free a row whose threads the insert
            // carries (a divergent branch's bypass).
            pushes.push(r);
            inserted = Some(r);
            payload_writes += 1;
            self.ev.inserts += 1;
            self.touched.push(r);
        }
        // 2. Commit update.
        if let Some(u) = &ops.update {
            let ok = u.row < self.cfg.n2
                && (self.state[u.row] == WAIT_EXEC || self.state[u.row] == WAIT_SYNC)
                && !self.in_pool[u.row];
            if ok {
                let r = u.row;
                self.ev.updates += 1;
                if let Some((pc, lanes)) = u.write {
                    if inserted.is_none() {
                        self.release(r);
                        self.pc[r] = pc;
                        self.lanes[r] = lanes;
                        self.claim(r);
                        payload_writes += 1;
                    }
                }
                self.set_state(r, u.state & 3);
                match self.state[r] {
                    READY => {
                        pushes.push(r);
                        self.ev.to_ready += 1;
                    }
                    FREE => {
                        self.release(r);
                        self.ev.frees += 1;
                    }
                    WAIT_SYNC => self.ev.to_wait_sync += 1,
                    _ => {}
                }
                self.touched.push(r);
            }
        }
        if let Some(r) = inserted {
            self.claim(r);
        }
        // 3. Refill read: the head leaves the FIFO and goes to the pool; payload next cycle.
        self.out = None;
        let (popped_long, before) = (self.popped_long, self.fifo.len());
        self.popped_long = false;
        if ops.pop {
            match head {
                Some(h) => {
                    self.fifo.pop_front();
                    self.on_fifo[h] -= 1;
                    if self.fault != Some(L2Fault::PopForgetsInPool) {
                        self.set_in_pool(h, true);
                    }
                    self.out = Some(Refill {
                        row: h,
                        warp: self.warp(h),
                    });
                    self.ev.pops += 1;
                    self.ev.pop_streaks += popped_long as u64;
                    self.ev.short_pop_pushes += (!pushes.is_empty() && before <= 2) as u64;
                    self.popped_long = before >= 3;
                    self.touched.push(h);
                }
                None => self.ev.pops_on_empty += 1,
            }
        }
        // 4. Issue (T2).
        if let Some(r) = ops.issue {
            if r < self.cfg.n2 && self.in_pool[r] {
                self.set_state(r, WAIT_EXEC);
                self.set_in_pool(r, false);
                self.ev.issues += 1;
                self.touched.push(r);
            }
        }
        // 5. Rows that became ready, ascending index, after the existing entries.
        pushes.sort_unstable();
        if self.fault == Some(L2Fault::PushDescending) {
            pushes.reverse();
        }
        if pushes.len() == 2 {
            self.ev.double_pushes += 1;
        }
        for &r in &pushes {
            self.on_fifo[r] += 1;
        }
        self.fifo.extend(pushes);
        self.ev.payload_writes += payload_writes;
        inserted
    }

    /// Record row `r`'s threads as held by it.
    fn claim(&mut self, r: usize) {
        for t in self.warp(r).threads(&self.cfg.common) {
            let t = t as usize;
            if let Some(o) = self.owner[t] {
                if o != r {
                    let why = format!("thread {t} inserted in row {r} is held by row {o}");
                    self.flag(why);
                }
            }
            self.owner[t] = Some(r);
        }
    }

    /// Row `r`'s threads are no longer held by it.
    fn release(&mut self, r: usize) {
        for t in self.warp(r).threads(&self.cfg.common) {
            if self.owner[t as usize] == Some(r) {
                self.owner[t as usize] = None;
            }
        }
    }

    /// The invariants of §7.1 that concern this table, on the rows touched in the last cycle
    /// (every cycle) and on every row (every 256 cycles, and on demand with `full`).
    pub fn check(&self, full: bool) -> Result<(), String> {
        if let Some(v) = &self.violation {
            return Err(v.clone());
        }
        let n = self.cfg.n2;
        let every = full || self.cycles.is_multiple_of(256);
        if every {
            // The FIFO itself: no row twice, each entry ready and not in the pool, and the
            // kept counts agree with it.
            let mut seen = vec![0u32; n];
            for &r in &self.fifo {
                seen[r] += 1;
                if seen[r] > 1 {
                    return Err(format!("row {r} is on the ready FIFO twice"));
                }
                if self.state[r] != READY || self.in_pool[r] {
                    return Err(format!(
                        "row {r} is on the ready FIFO with state {} in pool {}",
                        self.state[r], self.in_pool[r] as u8
                    ));
                }
            }
            if seen != self.on_fifo {
                return Err("the ready FIFO and its per-row counts differ".into());
            }
        }
        let on_fifo = &self.on_fifo;
        let rows: Vec<usize> = if every {
            (0..n).collect()
        } else {
            self.touched.clone()
        };
        let mut pooled = 0;
        for &r in &rows {
            let ready_out = self.state[r] == READY && !self.in_pool[r];
            if on_fifo[r] > 1 {
                return Err(format!("row {r} is on the ready FIFO twice"));
            }
            if ready_out != (on_fifo[r] == 1) {
                return Err(format!(
                    "row {r}: on the ready FIFO iff ready and not in the pool (state {}, in pool {}, on FIFO {})",
                    self.state[r], self.in_pool[r] as u8, on_fifo[r]
                ));
            }
            if self.in_pool[r] {
                pooled += 1;
                if self.state[r] != READY {
                    return Err(format!(
                        "row {r} is in the pool with state {}",
                        self.state[r]
                    ));
                }
            }
            // Thread conservation: each held thread is owned by this row only, in its lane.
            if self.state[r] != FREE {
                for t in self.warp(r).threads(&self.cfg.common) {
                    if self.owner[t as usize] != Some(r) {
                        return Err(format!(
                            "thread {t} of row {r} is recorded in {:?}",
                            self.owner[t as usize]
                        ));
                    }
                }
            }
        }
        if rows.len() == n {
            let free: Vec<usize> = (0..n).filter(|&r| self.state[r] == FREE).collect();
            if free.len() != self.nfree || free.first().copied() != self.lowest_free() {
                return Err(format!(
                    "free rows: {} counted, {} kept; lowest {:?}, kept {:?}",
                    free.len(),
                    self.nfree,
                    free.first(),
                    self.lowest_free()
                ));
            }
            if pooled > self.cfg.pool {
                return Err(format!(
                    "{pooled} rows in the pool, more than its {} entries",
                    self.cfg.pool
                ));
            }
            let held: usize = (0..n)
                .filter(|&r| self.state[r] != FREE)
                .map(|r| self.lanes[r].count_ones() as usize)
                .sum();
            let owned = self.owner.iter().filter(|o| o.is_some()).count();
            if held != owned {
                return Err(format!(
                    "thread conservation: rows hold {held} threads, {owned} are recorded"
                ));
            }
        }
        Ok(())
    }

    pub fn events(&self) -> Vec<(&'static str, u64)> {
        let e = &self.ev;
        vec![
            ("pops", e.pops),
            ("inserts", e.inserts),
            ("updates", e.updates),
            ("payload_writes", e.payload_writes),
            ("issues", e.issues),
            ("frees", e.frees),
            ("to_ready", e.to_ready),
            ("to_wait_sync", e.to_wait_sync),
            ("double_pushes", e.double_pushes),
            ("pops_on_empty", e.pops_on_empty),
            ("full_cycles", e.full_cycles),
            ("short_pop_pushes", e.short_pop_pushes),
            ("pop_streaks", e.pop_streaks),
        ]
    }
}

/// Where each port lives in the flat vectors.
#[derive(Clone, Debug)]
pub(crate) struct Ports {
    pub reset: usize,
    pub ins_valid: usize,
    pub ins_pc: usize,
    pub ins_lanes: usize,
    pub ins_thi: (usize, usize),
    pub upd_valid: usize,
    pub upd_row: usize,
    pub upd_state: usize,
    pub upd_wr: usize,
    pub upd_pc: usize,
    pub upd_lanes: usize,
    pub pop: usize,
    pub iss_valid: usize,
    pub iss_row: usize,
    pub ins_row: usize,
    pub full: usize,
    pub out_valid: usize,
    pub out_row: usize,
    pub out_pc: usize,
    pub out_lanes: usize,
    pub out_thi: (usize, usize),
    pub ready_count: usize,
    pub free_count: usize,
    pub occupancy: usize,
    pub dbg_state: (usize, usize),
    pub dbg_in_pool: (usize, usize),
    pub dbg_head: usize,
}

impl Ports {
    pub fn new(cfg: &L2Config) -> Ports {
        let l = Layout::new(&cfg.ports());
        let i = |n: &str| l.input(n).expect("crown-l2 input").offset;
        let o = |n: &str| l.output(n).expect("crown-l2 output").offset;
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
            ins_valid: i("ins_valid"),
            ins_pc: i("ins_pc"),
            ins_lanes: i("ins_lanes"),
            ins_thi: iw("ins_thi"),
            upd_valid: i("upd_valid"),
            upd_row: i("upd_row"),
            upd_state: i("upd_state"),
            upd_wr: i("upd_wr"),
            upd_pc: i("upd_pc"),
            upd_lanes: i("upd_lanes"),
            pop: i("pop"),
            iss_valid: i("iss_valid"),
            iss_row: i("iss_row"),
            ins_row: o("ins_row"),
            full: o("full"),
            out_valid: o("out_valid"),
            out_row: o("out_row"),
            out_pc: o("out_pc"),
            out_lanes: o("out_lanes"),
            out_thi: ow("out_thi"),
            ready_count: o("ready_count"),
            free_count: o("free_count"),
            occupancy: o("occupancy"),
            dbg_state: ow("dbg_state"),
            dbg_in_pool: ow("dbg_in_pool"),
            dbg_head: o("dbg_head"),
        }
    }
}

/// Decode one cycle's input words into table operations.
pub(crate) fn decode(cfg: &L2Config, p: &Ports, inputs: &[u64]) -> (bool, L2Ops) {
    let c = &cfg.common;
    let bit = |at: usize| inputs[at] & 1 == 1;
    let rmask = (cfg.n2 - 1) as u64;
    let mut ops = L2Ops::default();
    if bit(p.ins_valid) {
        let (o, n) = p.ins_thi;
        ops.insert = Some(Warp {
            pc: inputs[p.ins_pc] & pc_mask(c.pc_bits),
            lanes: inputs[p.ins_lanes] & c.all_lanes(),
            thi: unpack_thi(&inputs[o..o + n], c.w, c.thi_bits()),
        });
    }
    if bit(p.upd_valid) {
        ops.update = Some(L2Update {
            row: (inputs[p.upd_row] & rmask) as usize,
            state: inputs[p.upd_state] & 3,
            write: bit(p.upd_wr).then(|| {
                (
                    inputs[p.upd_pc] & pc_mask(c.pc_bits),
                    inputs[p.upd_lanes] & c.all_lanes(),
                )
            }),
        });
    }
    ops.pop = bit(p.pop);
    if bit(p.iss_valid) {
        ops.issue = Some((inputs[p.iss_row] & rmask) as usize);
    }
    (bit(p.reset), ops)
}

fn all_ones(n: usize) -> Vec<u64> {
    let mut v = vec![u64::MAX; n.div_ceil(64)];
    if !n.is_multiple_of(64) {
        *v.last_mut().unwrap() = (1u64 << (n % 64)) - 1;
    }
    v
}

pub(crate) fn pc_mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// The port-level model of `crown-l2`.
#[derive(Clone, Debug)]
pub struct CrownL2Model {
    pub table: SecondLevel,
    p: Ports,
}

impl CrownL2Model {
    pub fn new(cfg: &L2Config) -> CrownL2Model {
        CrownL2Model {
            table: SecondLevel::new(cfg),
            p: Ports::new(cfg),
        }
    }

    pub fn inject_fault(&mut self, fault: Option<L2Fault>) {
        self.table.inject_fault(fault);
    }

    /// Outputs of the current (start-of-cycle) state.
    fn outputs(&self, out: &mut [u64]) {
        let (t, p) = (&self.table, &self.p);
        let c = &t.cfg.common;
        out.iter_mut().for_each(|x| *x = 0);
        out[p.ins_row] = t.lowest_free().unwrap_or(0) as u64;
        out[p.full] = t.full() as u64;
        if let Some(r) = t.out() {
            out[p.out_valid] = 1;
            out[p.out_row] = r.row as u64;
            out[p.out_pc] = r.warp.pc;
            out[p.out_lanes] = r.warp.lanes;
            let words = pack_thi(&r.warp.thi, c.thi_bits());
            let (o, n) = p.out_thi;
            out[o..o + n].copy_from_slice(&words[..n]);
        }
        out[p.ready_count] = t.ready_count() as u64;
        out[p.free_count] = t.free_count() as u64;
        out[p.occupancy] = t.occupancy() as u64;
        let (so, sn) = p.dbg_state;
        out[so..so + sn].copy_from_slice(&t.state_image);
        let (po, pn) = p.dbg_in_pool;
        out[po..po + pn].copy_from_slice(&t.pool_image);
        out[p.dbg_head] = t.head().unwrap_or(0) as u64;
    }
}

impl Model for CrownL2Model {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.outputs(outputs);
        let (reset, ops) = decode(&self.table.cfg, &self.p, inputs);
        if reset {
            self.table.reset();
        } else {
            self.table.cycle(&ops);
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.table.check(false)
    }

    fn check_inputs(&self, inputs: &[u64]) -> Result<(), String> {
        let (reset, ops) = decode(&self.table.cfg, &self.p, inputs);
        if reset {
            return Ok(());
        }
        self.table.check_ops(&ops)
    }

    fn state_line(&self) -> String {
        let t = &self.table;
        let fifo: Vec<String> = t.fifo.iter().take(16).map(|r| r.to_string()).collect();
        format!(
            "free={} ready_fifo=[{}{}] in_pool={:?} out={:?}",
            t.free_count(),
            fifo.join(","),
            if t.fifo.len() > 16 { ",…" } else { "" },
            (0..t.rows()).filter(|&r| t.in_pool[r]).collect::<Vec<_>>(),
            t.out().map(|o| (o.row, o.warp.pc, o.warp.lanes)),
        )
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        self.table.events()
    }
}
