//! The `crown` top model ([`Crown`]): the sub-unit models composed per §3.9 and §3.10, with
//! the second level's one payload write arbitrated as the contract (`units/crown.rs`) says,
//! and every §7.1 invariant checked on the whole machine.

use warpforge_contract::units::crown::{kind, CrownConfig, Warp};
use warpforge_contract::units::crown_l2::{FREE, READY, WAIT_SYNC};

use crate::crown_barrier::{BarrierOutcome, BarrierTable, Probe};
use crate::crown_l2::{L2Ops, L2Update, SecondLevel};
use crate::crown_lookup::{ReadyLookup, WaitingLookup};
use crate::crown_pool::{IssuePool, PoolEntry};

/// One commit event (`cmt_*`). `row` is a second-level row, or a Waiting Lookup row for
/// `complete`; `rpc` None = the branch reconverges at the kernel exit (no barrier, A16).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitEvent {
    pub kind: u64,
    pub row: usize,
    pub pc: u64,
    pub lanes: u64,
    pub thi: Vec<u64>,
    pub taken: u64,
    pub target: u64,
    pub rpc: Option<u64>,
}

impl CommitEvent {
    /// An event of `kind` for row `row` holding `warp`, going on at `pc`.
    pub fn new(kind: u64, row: usize, pc: u64, warp: &Warp) -> CommitEvent {
        CommitEvent {
            kind,
            row,
            pc,
            lanes: warp.lanes,
            thi: warp.thi.clone(),
            taken: 0,
            target: 0,
            rpc: None,
        }
    }

    pub fn warp(&self, pc: u64, lanes: u64) -> Warp {
        Warp {
            pc,
            lanes,
            thi: self.thi.clone(),
        }
    }
}

/// One cycle's inputs.
#[derive(Clone, Debug, Default)]
pub struct CrownIn {
    pub cmt: Option<CommitEvent>,
    pub iss_ready: bool,
    /// The thread-index bits naming a CTA (A14 `merge_scope = cta`; 0: merge across CTAs),
    /// set at kernel launch.
    pub cta_mask: u64,
}

/// Transfer source of a cycle (`ev_transfer`).
pub const XFER_NONE: u8 = 0;
pub const XFER_WL: u8 = 1;
pub const XFER_BAR: u8 = 2;
pub const XFER_RL: u8 = 3;

/// One cycle's outputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrownOut {
    pub cmt_ready: bool,
    /// A load's tag: (in the Waiting Lookup, row).
    pub tag: Option<(bool, usize)>,
    /// The warp issued this cycle and its second-level row.
    pub issued: Option<(usize, Warp)>,
    pub arrived: u64,
    pub transfer: u8,
    pub rl_merge: u32,
    pub wl_merge: u32,
    pub bar_fail: u32,
}

/// Counters for coverage and for the thesis' figures (§7.2.13).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrownCounters {
    pub cycles: u64,
    pub issues: u64,
    pub active_lanes: u64,
    pub commits: u64,
    pub commit_stalls: u64,
    pub launches: u64,
    pub divergent_branches: u64,
    pub rl_inserts: u64,
    pub rl_merged_lanes: u64,
    pub rl_allocs: u64,
    pub rl_bypasses: u64,
    pub wl_inserts: u64,
    pub wl_merged_lanes: u64,
    pub wl_refused: u64,
    pub bar_reserved: u64,
    pub bar_dedup_lanes: u64,
    pub bar_alloc_fail: u64,
    pub arrivals: u64,
    pub xfer_wl: u64,
    pub xfer_bar: u64,
    pub xfer_rl: u64,
    pub holds: u64,
    pub retired: u64,
    pub peak_l2: u64,
    pub peak_bar_live: u64,
    pub peak_rl: u64,
    pub peak_wl: u64,
}

impl CrownCounters {
    /// Eq. 2-1: active lane slots over issue cycles × SIMD width, in percent.
    pub fn lane_activity(&self, w: usize) -> f64 {
        if self.issues == 0 {
            0.0
        } else {
            100.0 * self.active_lanes as f64 / (self.issues as f64 * w as f64)
        }
    }
}

/// A deliberate top-level bug (planted-bug tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrownFault {
    /// A divergent branch leaves the second level's write port to a transfer.
    BranchFreesPort,
    /// The arrival check is skipped for the taken path of a branch.
    NoTakenProbe,
}

/// The CROWN top (§3.3–§3.10).
#[derive(Clone, Debug)]
pub struct Crown {
    cfg: CrownConfig,
    pub l2: SecondLevel,
    pub pool: IssuePool,
    pub rl: ReadyLookup,
    pub wl: WaitingLookup,
    pub bar: BarrierTable,
    pub hold: Option<Warp>,
    pub ctr: CrownCounters,
    /// Thread slot launched and not retired.
    live: Vec<bool>,
    nlive: usize,
    violation: Option<String>,
    fault: Option<CrownFault>,
}

impl Crown {
    pub fn new(cfg: &CrownConfig) -> Crown {
        let n = cfg.common().threads;
        Crown {
            l2: SecondLevel::new(&cfg.l2),
            pool: IssuePool::new(&cfg.pool),
            rl: ReadyLookup::new(&cfg.rl),
            wl: WaitingLookup::new(&cfg.wl),
            bar: BarrierTable::new(&cfg.bar),
            hold: None,
            ctr: CrownCounters::default(),
            live: vec![false; n],
            nlive: 0,
            violation: None,
            fault: None,
            cfg: cfg.clone(),
        }
    }

    pub fn config(&self) -> &CrownConfig {
        &self.cfg
    }

    pub fn inject_fault(&mut self, f: Option<CrownFault>) {
        self.fault = f;
    }

    /// Threads launched and not retired.
    pub fn live_threads(&self) -> usize {
        self.nlive
    }

    /// Every table empty (all launched threads retired).
    pub fn idle(&self) -> bool {
        self.nlive == 0 && self.l2.occupancy() == 0 && self.hold.is_none()
    }

    fn flag(&mut self, why: String) {
        if self.violation.is_none() {
            self.violation = Some(format!("cycle {}: {why}", self.ctr.cycles));
        }
    }

    /// The warp the pool selects (registered `iss_*`): (row, warp).
    pub fn selected(&self) -> Option<(usize, Warp)> {
        self.pool.select().map(|(_, e)| (e.slot, e.warp.clone()))
    }

    /// `cmt_ready` for `ev` in the current state (combinational, from registered state and
    /// the event alone): no warp in the holding register, and a free second-level row for a
    /// launch or a divergent branch (its paths may bypass the Ready Lookup; a second bypass
    /// goes to the holding register and takes the row the branch frees, next cycle).
    pub fn accepts(&self, ev: &CommitEvent) -> bool {
        let rows = match self.normalize(ev).kind {
            kind::LAUNCH | kind::BRANCH => 1,
            _ => 0,
        };
        self.hold.is_none() && self.l2.free_count() >= rows
    }

    /// A divergent branch's surviving paths: (fall-through, taken).
    fn paths(&self, e: &CommitEvent, hit: u64) -> (Option<Warp>, Option<Warp>) {
        let w = self.cfg.common().w;
        let fall = e.lanes & !e.taken & !hit;
        let taken = e.lanes & e.taken & !hit;
        (
            (fall != 0).then(|| e.warp(e.pc, fall).normalized(w)),
            (taken != 0).then(|| e.warp(e.target, taken).normalized(w)),
        )
    }

    /// A branch whose lanes all go one way is an advance (§3.10 `len(paths) == 1`).
    fn normalize(&self, ev: &CommitEvent) -> CommitEvent {
        let mut e = ev.clone();
        let w = self.cfg.common().w;
        e.lanes &= self.cfg.common().all_lanes();
        e.thi = Warp {
            pc: 0,
            lanes: e.lanes,
            thi: e.thi.clone(),
        }
        .normalized(w)
        .thi;
        if e.kind == kind::BRANCH {
            let t = e.taken & e.lanes;
            if t == 0 || t == e.lanes {
                e.kind = kind::ADVANCE;
                if t != 0 {
                    e.pc = e.target;
                }
            }
        }
        e
    }

    /// One clock cycle (§3.9): every decision reads start-of-cycle state.
    pub fn cycle(&mut self, inp: &CrownIn) -> CrownOut {
        self.ctr.cycles += 1;
        self.rl.set_cta_mask(inp.cta_mask);
        self.wl.set_cta_mask(inp.cta_mask);
        let c = self.cfg.common().clone();
        let w = c.w;
        let mut out = CrownOut::default();

        // Start-of-cycle state.
        let ready_count = self.l2.ready_count();
        let l2_free = self.l2.free_count();
        let sel = self.pool.select().map(|(_, e)| e.clone());
        let refill = self.l2.out().map(|r| PoolEntry {
            warp: r.warp.clone(),
            slot: r.row,
        });
        let pool_free = self.cfg.pool.pool - self.pool.count();

        // 1. The commit event.
        let ev = inp.cmt.as_ref().map(|e| self.normalize(e));
        out.cmt_ready = inp.cmt.as_ref().is_some_and(|e| self.accepts(e));
        let ev = if out.cmt_ready { ev } else { None };
        if inp.cmt.is_some() && !out.cmt_ready {
            self.ctr.commit_stalls += 1;
        }
        if let Some(e) = &ev {
            self.ctr.commits += 1;
            self.check_event(e);
        }
        let k = ev.as_ref().map(|e| e.kind);
        let divergent = k == Some(kind::BRANCH);

        // 2. Who writes the second level's payload, and whether a transfer runs.
        let port_claimed = self.hold.is_some()
            || matches!(
                k,
                Some(kind::LAUNCH | kind::ADVANCE | kind::EXIT | kind::SYNC)
            )
            || k == Some(kind::BRANCH) && self.fault != Some(CrownFault::BranchFreesPort);
        let probes = matches!(k, Some(kind::ADVANCE | kind::BRANCH | kind::EXIT));
        let mut transfer = XFER_NONE;
        if !port_claimed && l2_free >= 1 {
            if self.wl.head().is_some() && !probes {
                transfer = XFER_WL;
            } else if self.bar.head().is_some() && ready_count == 0 {
                transfer = XFER_BAR;
            } else if self.rl.head().is_some() && ready_count < 2 {
                transfer = XFER_RL;
            }
        }
        out.transfer = transfer;

        // 3. Barrier table: reserve, arrival check, drain.
        let rsv = match &ev {
            Some(e) if divergent => e.rpc.map(|r| e.warp(r, e.lanes)),
            _ => None,
        };
        let wl_head = if transfer == XFER_WL {
            self.wl.head_warp()
        } else {
            None
        };
        let mut pcs = vec![0u64; w];
        let prb: Option<Warp> = match &ev {
            Some(e) if probes => {
                let lanes = if e.kind == kind::EXIT {
                    e.lanes & !e.taken
                } else {
                    e.lanes
                };
                let mut lanes = lanes;
                for (l, p) in pcs.iter_mut().enumerate() {
                    let taken = e.kind == kind::BRANCH && e.taken >> l & 1 == 1;
                    *p = if taken { e.target } else { e.pc };
                    if taken && self.fault == Some(CrownFault::NoTakenProbe) {
                        lanes &= !(1 << l);
                    }
                }
                Some(e.warp(e.pc, lanes))
            }
            _ => wl_head.as_ref().map(|h| {
                pcs.iter_mut().for_each(|p| *p = h.pc);
                h.clone()
            }),
        };
        let prb = prb.map(|v| Probe {
            lanes: v.lanes,
            pc: pcs.clone(),
            thi: v.thi,
        });
        self.bar.begin_cycle();
        let bo: BarrierOutcome = self
            .bar
            .cycle(rsv.as_ref(), prb.as_ref(), transfer == XFER_BAR);
        let hit = bo.hit;
        out.arrived = hit;
        out.bar_fail = bo.fail;
        self.ctr.bar_reserved += bo.allocated.len() as u64;
        self.ctr.bar_dedup_lanes += bo.dedup as u64;
        self.ctr.bar_alloc_fail += bo.fail as u64;
        self.ctr.arrivals += hit.count_ones() as u64;

        // 4. Ready Lookup: the surviving paths, fall-through first (A17).
        let (ins0, ins1) = match &ev {
            Some(e) if divergent => {
                self.ctr.divergent_branches += 1;
                self.paths(e, hit)
            }
            _ => (None, None),
        };
        self.ctr.rl_inserts += ins0.is_some() as u64 + ins1.is_some() as u64;
        let ro = self
            .rl
            .cycle([ins0.as_ref(), ins1.as_ref()], transfer == XFER_RL);
        out.rl_merge = ro.merged;
        self.ctr.rl_merged_lanes += ro.merged as u64;
        self.ctr.rl_allocs += ro.alloc.iter().filter(|a| a.is_some()).count() as u64;

        // 5. Waiting Lookup: a load's insert, a completion, the drain.
        let wl_ins = match &ev {
            Some(e) if e.kind == kind::LOAD => Some(e.warp(e.pc, e.lanes)),
            _ => None,
        };
        let cpl = match &ev {
            Some(e) if e.kind == kind::COMPLETE => Some((e.row, e.taken)),
            _ => None,
        };
        let wo = self.wl.cycle(wl_ins.as_ref(), cpl, transfer == XFER_WL);
        out.wl_merge = wo.merged;
        self.ctr.wl_merged_lanes += wo.merged as u64;

        // 6. The second level: at most one payload write.
        let mut ops = L2Ops::default();
        if let Some(h) = self.hold.take() {
            ops.insert = Some(h);
        }
        let mut retire = 0u64;
        if let Some(e) = &ev {
            let go_on = |lanes: u64| {
                let rem = lanes & !hit;
                L2Update {
                    row: e.row,
                    state: if rem != 0 { READY } else { FREE },
                    write: (rem != 0).then_some((e.pc, rem)),
                }
            };
            match e.kind {
                kind::LAUNCH => {
                    ops.insert = Some(e.warp(e.pc, e.lanes));
                    self.ctr.launches += 1;
                    for t in e.warp(e.pc, e.lanes).threads(&c) {
                        let t = t as usize;
                        if self.live[t] {
                            self.flag(format!("launch of thread {t}, which is live"));
                        }
                        self.live[t] = true;
                        self.nlive += 1;
                    }
                }
                kind::ADVANCE => ops.update = Some(go_on(e.lanes)),
                kind::EXIT => {
                    retire = e.lanes & e.taken;
                    ops.update = Some(go_on(e.lanes & !e.taken));
                }
                kind::BRANCH => {
                    ops.update = Some(L2Update {
                        row: e.row,
                        state: FREE,
                        write: None,
                    });
                    match (&ro.bypass[0], &ro.bypass[1]) {
                        (Some(a), Some(b)) => {
                            ops.insert = Some(a.clone());
                            self.hold = Some(b.normalized(w));
                            self.ctr.holds += 1;
                        }
                        (Some(a), None) | (None, Some(a)) => ops.insert = Some(a.clone()),
                        _ => {}
                    }
                    self.ctr.rl_bypasses += ro.bypass.iter().filter(|b| b.is_some()).count() as u64;
                }
                kind::LOAD => {
                    self.ctr.wl_inserts += 1;
                    match wo.ins_row {
                        Some(r) => {
                            out.tag = Some((true, r));
                            ops.update = Some(L2Update {
                                row: e.row,
                                state: FREE,
                                write: None,
                            });
                        }
                        None => {
                            self.ctr.wl_refused += 1;
                            out.tag = Some((false, e.row));
                        }
                    }
                }
                kind::SYNC => {
                    ops.update = Some(L2Update {
                        row: e.row,
                        state: WAIT_SYNC,
                        write: Some((e.pc, e.lanes)),
                    })
                }
                _ => {}
            }
        }
        let moved = match transfer {
            XFER_WL => wo.drained.map(|d| {
                let rem = d.lanes & !hit;
                self.ctr.xfer_wl += 1;
                Warp { lanes: rem, ..d }.normalized(w)
            }),
            XFER_BAR => {
                self.ctr.xfer_bar += 1;
                bo.drained.clone()
            }
            XFER_RL => {
                self.ctr.xfer_rl += 1;
                ro.drained.clone()
            }
            _ => None,
        };
        if let Some(m) = moved {
            if m.lanes != 0 {
                if ops.insert.is_some() {
                    self.flag("a transfer and another insert in one cycle".into());
                }
                ops.insert = Some(m);
            }
        }
        if transfer == XFER_BAR && ready_count != 0 || transfer == XFER_RL && ready_count >= 2 {
            self.flag(format!(
                "transfer {transfer} with ready count {ready_count}"
            ));
        }
        ops.pop = ready_count > 0 && pool_free > refill.is_some() as usize;
        let issue = inp.iss_ready && sel.is_some();
        ops.issue = if issue {
            sel.as_ref().map(|e| e.slot)
        } else {
            None
        };
        if let Some(e) = &sel {
            if issue {
                self.check_issue(&e.warp);
                self.ctr.issues += 1;
                self.ctr.active_lanes += e.warp.lanes.count_ones() as u64;
                out.issued = Some((e.slot, e.warp.clone()));
            }
        }
        if let Err(why) = self.l2.check_ops(&ops) {
            self.flag(format!("second level: {why}"));
        }
        self.l2.cycle(&ops);
        self.pool.cycle(refill, issue);

        // Retirement (exit commits).
        for l in (0..w).filter(|&l| retire >> l & 1 == 1) {
            let t = c.thread(l, ev.as_ref().unwrap().thi[l]) as usize;
            if !self.live[t] {
                self.flag(format!("thread {t} retires but is not live"));
            } else {
                self.live[t] = false;
                self.nlive -= 1;
                self.ctr.retired += 1;
            }
        }
        let x = &mut self.ctr;
        x.peak_l2 = x.peak_l2.max(self.l2.occupancy() as u64);
        x.peak_bar_live = x.peak_bar_live.max(self.bar.live() as u64);
        x.peak_rl = x.peak_rl.max(self.rl.count() as u64);
        x.peak_wl = x.peak_wl.max(self.wl.count() as u64);
        out
    }

    /// Event-level invariants on the start-of-cycle state (§7.1 items 5, 6).
    fn check_event(&mut self, e: &CommitEvent) {
        let w = self.cfg.common().w;
        if e.kind == kind::EXIT {
            // 6. No barrier at exit.
            for l in (0..w).filter(|&l| (e.lanes & e.taken) >> l & 1 == 1) {
                if waits_for(&self.bar, None, l, e.thi[l]) {
                    let t = self.cfg.common().thread(l, e.thi[l]);
                    self.flag(format!("thread {t} exits while a barrier expects it"));
                }
            }
        }
    }

    /// 5. No reconvergence bypass: no issued thread is awaited by a live barrier at its PC.
    fn check_issue(&mut self, v: &Warp) {
        let w = self.cfg.common().w;
        for l in (0..w).filter(|&l| v.lanes >> l & 1 == 1) {
            if waits_for(&self.bar, Some(v.pc), l, v.thi[l]) {
                let t = self.cfg.common().thread(l, v.thi[l]);
                self.flag(format!(
                    "thread {t} issues pc {} while a barrier there awaits it",
                    v.pc
                ));
            }
        }
    }

    /// Every §7.1 invariant on the committed state: the sub-units' own checks, thread
    /// conservation over every location, pool copies, capacities.
    pub fn check(&self) -> Result<(), String> {
        if let Some(v) = &self.violation {
            return Err(v.clone());
        }
        self.l2
            .check(false)
            .map_err(|e| format!("second level: {e}"))?;
        self.pool.check().map_err(|e| format!("issue pool: {e}"))?;
        self.rl.check().map_err(|e| format!("Ready Lookup: {e}"))?;
        self.wl
            .check()
            .map_err(|e| format!("Waiting Lookup: {e}"))?;
        self.bar.check().map_err(|e| format!("barriers: {e}"))?;
        let c = self.cfg.common().clone();
        // Threads located so far, as a bit set.
        let mut seen = vec![0u64; c.threads.div_ceil(64)];
        let mut count = 0usize;
        let mut mark = |t: u64, at: &str, seen: &mut Vec<u64>, live: &Vec<bool>| {
            let t = t as usize;
            if seen[t / 64] >> (t % 64) & 1 == 1 {
                return Err(format!(
                    "thread conservation: thread {t} is in two places ({at})"
                ));
            }
            if !live[t] {
                return Err(format!(
                    "thread conservation: thread {t} in {at} is not live"
                ));
            }
            seen[t / 64] |= 1 << (t % 64);
            count += 1;
            Ok(())
        };
        for r in 0..self.l2.rows() {
            if self.l2.state(r) != FREE {
                for t in self.l2.warp(r).threads(&c) {
                    mark(t, "second level", &mut seen, &self.live)?;
                }
            }
        }
        for row in self.rl.rows().iter().filter(|r| r.valid) {
            for t in row.warp().threads(&c) {
                mark(t, "Ready Lookup", &mut seen, &self.live)?;
            }
        }
        for row in self.wl.rows().iter().filter(|r| r.valid) {
            for t in row.warp().threads(&c) {
                mark(t, "Waiting Lookup", &mut seen, &self.live)?;
            }
        }
        for x in self.bar.entries().iter().filter(|x| x.valid) {
            let v = Warp {
                pc: x.pc,
                lanes: x.arrived,
                thi: x.thi.clone(),
            };
            for t in v.threads(&c) {
                mark(t, "a barrier", &mut seen, &self.live)?;
            }
        }
        if let Some(h) = &self.hold {
            for t in h.threads(&c) {
                mark(t, "the holding register", &mut seen, &self.live)?;
            }
        }
        if count != self.nlive {
            return Err(format!(
                "thread conservation: {count} threads located, {} live",
                self.nlive
            ));
        }
        // The pool's copies (A6): each entry is its row's warp, the row marked in the pool.
        for e in self.pool.entries().iter().flatten() {
            if !self.l2.in_pool(e.slot) || self.l2.warp(e.slot) != e.warp {
                return Err(format!(
                    "issue pool entry for row {} is not that row's warp",
                    e.slot
                ));
            }
        }
        // 8. Capacity.
        if self.pool.count() > self.cfg.pool.pool
            || self.rl.count() > self.cfg.rl.rows
            || self.wl.count() > self.cfg.wl.rows
        {
            return Err("a table holds more rows than it has".into());
        }
        Ok(())
    }

    pub fn state_line(&self) -> String {
        format!(
            "l2 {} rows ({} ready), pool {}, rl {}, wl {}, barriers {} live {} used, hold {}",
            self.l2.occupancy(),
            self.l2.ready_count(),
            self.pool.count(),
            self.rl.count(),
            self.wl.count(),
            self.bar.live(),
            self.bar.used(),
            self.hold.is_some() as u8
        )
    }
}

/// Does a live barrier expect thread (lane, thi) — at `pc`, when given — and it has not
/// arrived?
fn waits_for(bar: &BarrierTable, pc: Option<u64>, lane: usize, thi: u64) -> bool {
    let c = bar.config();
    let set = c.set_of(thi);
    bar.entries()[set * c.ways..(set + 1) * c.ways]
        .iter()
        .any(|x| {
            x.valid
                && !x.complete
                && pc.is_none_or(|p| x.pc == p)
                && x.expected >> lane & 1 == 1
                && x.arrived >> lane & 1 == 0
                && x.thi[lane] == thi
        })
}
