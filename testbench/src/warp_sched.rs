//! Cycle model, stimulus and spec vectors of `warp-sched`, the issue-stage warp scheduler:
//! LRR and GTO (spec/latency_hiding_scheduler.md §2), MTO, MOTRR and MOTRR+Recency (same spec,
//! §2.4 and §3) and the barrier-aware `bar-gto` (spec/barrier.md §2–3), as the contract
//! (`warpforge_contract::units::warp_sched`) defines them cycle by cycle.
//!
//! Age is kept as the launch order of the resident warps (a list, oldest first), never as an
//! age matrix; `dbg_older` is derived from that list. The barrier table keeps counters; the
//! invariants recount them from the per-slot state.

use crate::rng::Rng;
use crate::{words, Model, SpecVector, Stimulus, VectorCycle};
use warpforge_contract::units::warp_sched::{
    IssuePolicy, QueueOrder, RecClass, RecTrigger, WarpSchedConfig,
};
use warpforge_contract::Layout;

/// Offset (in words) of a port in its flat vector.
fn offset(slots: &[warpforge_contract::manifest::Slot], name: &str) -> usize {
    slots
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("warp-sched contract has no port `{name}`"))
        .offset
}

/// Offset and word count of a port that only some configurations have.
fn opt_port(slots: &[warpforge_contract::manifest::Slot], name: &str) -> Option<(usize, usize)> {
    slots
        .iter()
        .find(|s| s.name == name)
        .map(|s| (s.offset, s.words))
}

/// A mask of the low `n` bits.
fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Iterate the set bits of a mask, ascending.
fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(w)
        }
    })
}

#[derive(Clone, Copy, Debug)]
struct InPorts {
    reset: usize,
    has_inst: usize,
    ready: usize,
    unit_free: usize,
    is_mem: usize,
    launch: usize,
    exit: usize,
    mem_complete: Option<usize>,
    cpl_global: Option<usize>,
    is_global: Option<usize>,
    is_bar: Option<usize>,
    /// Word offset of `launch_tb` (W·tbb bits, several words).
    launch_tb: Option<usize>,
}

impl InPorts {
    fn new(l: &Layout) -> InPorts {
        let o = |n| offset(&l.inputs, n);
        let p = |n| opt_port(&l.inputs, n).map(|(o, _)| o);
        InPorts {
            reset: o("reset"),
            has_inst: o("has_inst"),
            ready: o("ready"),
            unit_free: o("unit_free"),
            is_mem: o("is_mem"),
            launch: o("launch"),
            exit: o("exit"),
            mem_complete: p("mem_complete"),
            cpl_global: p("cpl_global"),
            is_global: p("is_global"),
            is_bar: p("is_bar"),
            launch_tb: p("launch_tb"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct OutPorts {
    issue_valid: usize,
    issue_slot: usize,
    issue_is_mem: usize,
    dbg_resident: usize,
    dbg_last_valid: usize,
    dbg_last_issued: usize,
    dbg_greedy_valid: usize,
    dbg_older: usize,
    dbg_older_words: usize,
    bar_release: Option<usize>,
    tb_has_waiter: Option<usize>,
    dbg_cmp_last_valid: Option<usize>,
    dbg_cmp_last_issued: Option<usize>,
    dbg_cmp_greedy_valid: Option<usize>,
    dbg_recent: Option<usize>,
    dbg_rec_cnt: Option<(usize, usize)>,
    dbg_w_active: Option<usize>,
    dbg_waiting: Option<usize>,
    dbg_warp_tb: Option<(usize, usize)>,
    dbg_bar_cnt: Option<(usize, usize)>,
    dbg_bar_live: Option<(usize, usize)>,
}

impl OutPorts {
    fn new(l: &Layout) -> OutPorts {
        let o = |n| offset(&l.outputs, n);
        let p = |n| opt_port(&l.outputs, n);
        let p1 = |n| opt_port(&l.outputs, n).map(|(o, _)| o);
        OutPorts {
            issue_valid: o("issue_valid"),
            issue_slot: o("issue_slot"),
            issue_is_mem: o("issue_is_mem"),
            dbg_resident: o("dbg_resident"),
            dbg_last_valid: o("dbg_last_valid"),
            dbg_last_issued: o("dbg_last_issued"),
            dbg_greedy_valid: o("dbg_greedy_valid"),
            dbg_older: o("dbg_older"),
            dbg_older_words: l.output("dbg_older").map_or(0, |s| s.words),
            bar_release: p1("bar_release"),
            tb_has_waiter: p1("tb_has_waiter"),
            dbg_cmp_last_valid: p1("dbg_cmp_last_valid"),
            dbg_cmp_last_issued: p1("dbg_cmp_last_issued"),
            dbg_cmp_greedy_valid: p1("dbg_cmp_greedy_valid"),
            dbg_recent: p1("dbg_recent"),
            dbg_rec_cnt: p("dbg_rec_cnt"),
            dbg_w_active: p1("dbg_w_active"),
            dbg_waiting: p1("dbg_waiting"),
            dbg_warp_tb: p("dbg_warp_tb"),
            dbg_bar_cnt: p("dbg_bar_cnt"),
            dbg_bar_live: p("dbg_bar_live"),
        }
    }
}

/// A deliberate model bug, to show that `check_invariants` catches wrong decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpSchedFault {
    /// GTO falls back to the youngest eligible warp instead of the oldest.
    GtoPicksYoungest,
    /// LRR skips the first eligible warp of the rotation when there is a second one.
    LrrSkipsFirst,
    /// Scheduler 0 never issues.
    DropIssue,
    /// The greedy bit survives the exit of its warp.
    KeepGreedyOnExit,
    /// Class-split: the compute pick is taken even when a memory warp is eligible.
    ComputeFirst,
    /// Class-split: the memory queue ignores the greedy warp (oldest only).
    MemIgnoresGreedy,
    /// MOTRR+Recency: the compute pick ignores the R bits.
    IgnoreRecency,
    /// Recency Register U4 evicts the recent warp with the smallest counter.
    EvictNewest,
    /// bar-gto: CTAs ranked by slot only, not by waiters.
    BarIgnoresWaiters,
    /// bar-gto: a barrier releases only in a cycle with an arrival of that CTA (not by exit).
    NoReleaseByExit,
}

/// Per scheduler: an issue pointer (LRR rotation and GTO greedy warp).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pointer {
    last_valid: bool,
    last_issued: usize,
    greedy_valid: bool,
}

/// How often the random runs reached the corners the specs care about (counted by the model
/// in non-reset cycles).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Corners {
    pub issues: u64,
    pub mem_issues: u64,
    /// Class-split: a compute issue while some resident warp had a ready memory head that the
    /// LD/ST pipe could not take (LH S6).
    pub compute_fallback: u64,
    /// Class-split: the memory pick is the greedy warp, not the oldest memory warp.
    pub mem_greedy_not_oldest: u64,
    /// Split pointers: both valid and on different slots.
    pub pointers_apart: u64,
    pub rec_events: u64,
    /// Recency: R bits cleared by U4 after an event.
    pub rec_evict_event: u64,
    /// Recency: several R bits cleared at once when warps leave (U6).
    pub rec_multi_evict_leave: u64,
    /// Recency: an event while cap = 0 (the warp joins and leaves at once, S8).
    pub rec_cap0_event: u64,
    /// Recency: an eviction among several recent warps tied at the largest count.
    pub rec_tie_evict: u64,
    /// Recency: completions beyond `n_cpl` dropped.
    pub rec_dropped: u64,
    /// Recency: an event for a slot launched in the same cycle (LH Vector C step 11).
    pub rec_event_on_launch: u64,
    /// MOTRR+Recency: the compute pick differs from plain MOTRR's.
    pub rec_changed_pick: u64,
    pub bar_arrivals: u64,
    pub bar_release_arrival: u64,
    /// A release in a cycle without an arrival of that CTA (an exit completes it, BAR G4).
    pub bar_release_exit: u64,
    /// Two arrivals of one CTA in one cycle (BAR G6).
    pub bar_dual_arrival: u64,
    pub bar_waiting_leaves: u64,
    /// A release of a one-warp CTA (BAR T4).
    pub bar_one_warp_release: u64,
    /// The chosen CTA is not the lowest CTA slot with a candidate (waiters ranked it up).
    pub bar_rank_reorders: u64,
}

/// What happened in the last stepped cycle, for `check_invariants`.
#[derive(Clone, Debug, Default)]
struct LastCycle {
    stepped: bool,
    reset: bool,
    eligible: u64,
    is_mem: u64,
    launch: u64,
    exit: u64,
    resident: u64,
    /// `order_before` is valid (the order changed at the edge).
    order_changed: bool,
    order_before: Vec<u8>,
    pointers: Vec<Pointer>,
    cmp_pointers: Vec<Pointer>,
    picks: Vec<Option<usize>>,
    issue_is_mem: u64,
    recent: u64,
    /// Recency events applied at the edge.
    events: u64,
    waiting: u64,
    warp_tb: Vec<u8>,
    bar_cnt: [u8; 16],
    release: u64,
}

/// The cycle model of `warp-sched`.
#[derive(Clone, Debug)]
pub struct WarpSchedModel {
    cfg: WarpSchedConfig,
    policy: IssuePolicy,
    split: bool,
    slot_bits: usize,
    all: u64,
    /// Per scheduler: the slots it supervises.
    supervised: Vec<u64>,
    /// Per scheduler: its slots ascending (for the independent rotation checks).
    supervised_list: Vec<Vec<usize>>,
    inp: InPorts,
    out: OutPorts,
    resident: u64,
    /// Resident slots, oldest warp first.
    order: Vec<u8>,
    /// Per scheduler the pointer P (with split pointers: the memory pointer Pm).
    pointers: Vec<Pointer>,
    /// Per scheduler the compute pointer Pc (split pointers only).
    cmp_pointers: Vec<Pointer>,
    picks: Vec<Option<usize>>,
    /// Packed `dbg_older`, rebuilt from `order` when residency changes.
    older_image: Vec<u64>,
    older_dirty: bool,
    // Recency Register (motrr-recency).
    cnt_max: u8,
    recent: u64,
    cnt: [u8; 64],
    /// Model-only bookkeeping for I11/I12: the number of the latest event of each slot since
    /// its launch (0 = none) and the number of events so far.
    ev_seq: [u64; 64],
    ev_total: u64,
    // Barrier table (bar-gto).
    waiting: u64,
    warp_tb: [u8; 64],
    /// Resident slots of each CTA slot.
    tb_members: [u64; 16],
    bar_cnt: [u8; 16],
    bar_live: [u8; 16],
    last: LastCycle,
    corners: Corners,
    fault: Option<WarpSchedFault>,
    cycle: u64,
}

impl WarpSchedModel {
    pub fn new(cfg: &WarpSchedConfig) -> Self {
        let layout = Layout::new(&cfg.ports());
        let out = OutPorts::new(&layout);
        let supervised_list: Vec<Vec<usize>> = (0..cfg.schedulers)
            .map(|s| cfg.supervised(s).collect())
            .collect();
        let supervised = supervised_list
            .iter()
            .map(|l| l.iter().fold(0u64, |m, &w| m | 1 << w))
            .collect();
        let cnt_max = cfg.recency.cnt_max() as u8;
        WarpSchedModel {
            policy: cfg.issue_policy,
            split: cfg.split_pointers(),
            slot_bits: cfg.slot_bits(),
            all: low_bits(cfg.warps),
            supervised,
            supervised_list,
            inp: InPorts::new(&layout),
            older_image: vec![0; out.dbg_older_words],
            out,
            resident: 0,
            order: Vec::with_capacity(64),
            pointers: vec![Pointer::default(); cfg.schedulers],
            cmp_pointers: vec![Pointer::default(); cfg.schedulers],
            picks: vec![None; cfg.schedulers],
            older_dirty: false,
            cnt_max,
            recent: 0,
            cnt: [cnt_max; 64],
            ev_seq: [0; 64],
            ev_total: 0,
            waiting: 0,
            warp_tb: [0; 64],
            tb_members: [0; 16],
            bar_cnt: [0; 16],
            bar_live: [0; 16],
            last: LastCycle {
                order_before: Vec::with_capacity(64),
                pointers: vec![Pointer::default(); cfg.schedulers],
                cmp_pointers: vec![Pointer::default(); cfg.schedulers],
                picks: vec![None; cfg.schedulers],
                warp_tb: vec![0; 64],
                ..LastCycle::default()
            },
            corners: Corners::default(),
            fault: None,
            cycle: 0,
            cfg: cfg.clone(),
        }
    }

    /// Make the model deliberately wrong (tests of the invariant checker only).
    pub fn inject_fault(&mut self, fault: Option<WarpSchedFault>) {
        self.fault = fault;
    }

    /// Resident slots, oldest warp first.
    pub fn age_order(&self) -> Vec<usize> {
        self.order.iter().map(|&w| w as usize).collect()
    }

    pub fn resident(&self) -> u64 {
        self.resident
    }

    /// Scheduler `s`'s last issued slot (`None` = NONE); the memory pointer when split.
    pub fn last_issued(&self, s: usize) -> Option<usize> {
        let p = self.pointers[s];
        p.last_valid.then_some(p.last_issued)
    }

    /// Scheduler `s`'s last issued warp keeps greedy priority (memory pointer when split).
    pub fn greedy_valid(&self, s: usize) -> bool {
        self.pointers[s].greedy_valid
    }

    /// The slot each scheduler issued in the last cycle.
    pub fn last_picks(&self) -> &[Option<usize>] {
        &self.picks
    }

    /// Recency Register R bits (motrr-recency).
    pub fn recent(&self) -> u64 {
        self.recent
    }

    /// Recency Register counter of slot `w`.
    pub fn rec_cnt(&self, w: usize) -> u64 {
        self.cnt[w] as u64
    }

    /// bar-gto: warps waiting at their CTA's barrier.
    pub fn waiting(&self) -> u64 {
        self.waiting
    }

    /// bar-gto: (warps waiting, resident warps) of CTA slot `t`.
    pub fn barrier_entry(&self, t: usize) -> (u64, u64) {
        (self.bar_cnt[t] as u64, self.bar_live[t] as u64)
    }

    /// Corner counts since construction.
    pub fn corners(&self) -> Corners {
        self.corners
    }

    fn rebuild_older(&mut self) {
        self.older_image.iter_mut().for_each(|w| *w = 0);
        let mut older = 0u64;
        for &w in &self.order {
            let w = w as usize;
            words::set(
                &mut self.older_image,
                w * self.cfg.warps,
                self.cfg.warps,
                older,
            );
            older |= 1 << w;
        }
        self.older_dirty = false;
    }

    /// `rot(P, X)`: the lowest slot of X above last_issued, else the lowest slot of X.
    fn rot(p: Pointer, x: u64) -> Option<usize> {
        if x == 0 {
            return None;
        }
        if p.last_valid {
            let after = x & ((u64::MAX << p.last_issued) << 1);
            if after != 0 {
                return Some(after.trailing_zeros() as usize);
            }
        }
        Some(x.trailing_zeros() as usize)
    }

    /// `old(X)`: the warp of X launched first.
    fn old(&self, x: u64) -> Option<usize> {
        if x == 0 {
            return None;
        }
        self.order
            .iter()
            .map(|&w| w as usize)
            .find(|&w| x >> w & 1 != 0)
    }

    /// `gto(P, X)`: the greedy warp if it is in X, else the oldest of X.
    fn gto(&self, p: Pointer, x: u64) -> Option<usize> {
        if p.last_valid && p.greedy_valid && x >> p.last_issued & 1 != 0 {
            return Some(p.last_issued);
        }
        self.old(x)
    }

    fn cmp_pointer(&self, s: usize) -> Pointer {
        if self.split {
            self.cmp_pointers[s]
        } else {
            self.pointers[s]
        }
    }

    /// This scheduler's pick among `elig` (already restricted to its slots).
    fn pick(&self, s: usize, elig: u64, is_mem: u64) -> Option<usize> {
        if elig == 0 {
            return None;
        }
        let p = self.pointers[s];
        match self.policy {
            IssuePolicy::Lrr => {
                let w = Self::rot(p, elig)?;
                if self.fault == Some(WarpSchedFault::LrrSkipsFirst) && elig.count_ones() > 1 {
                    // Rotation continues from w: the second eligible warp.
                    let rest = elig & !(1 << w);
                    let after = rest & ((u64::MAX << w) << 1);
                    return Some(if after != 0 {
                        after.trailing_zeros() as usize
                    } else {
                        rest.trailing_zeros() as usize
                    });
                }
                Some(w)
            }
            IssuePolicy::Gto => {
                if p.greedy_valid && elig >> p.last_issued & 1 != 0 {
                    return Some(p.last_issued);
                }
                if self.fault == Some(WarpSchedFault::GtoPicksYoungest) {
                    return self
                        .order
                        .iter()
                        .rev()
                        .map(|&w| w as usize)
                        .find(|&w| elig >> w & 1 != 0);
                }
                self.old(elig)
            }
            IssuePolicy::Mto | IssuePolicy::Motrr | IssuePolicy::MotrrRecency => {
                let mem = elig & is_mem;
                let comp = elig & !is_mem;
                let compute_first = self.fault == Some(WarpSchedFault::ComputeFirst);
                if mem != 0 && !(compute_first && comp != 0) {
                    let ignore_greedy = self.fault == Some(WarpSchedFault::MemIgnoresGreedy);
                    return match self.cfg.mem_order {
                        QueueOrder::Gto if !ignore_greedy => self.gto(p, mem),
                        _ => self.old(mem),
                    };
                }
                let pc = self.cmp_pointer(s);
                match self.policy {
                    IssuePolicy::Mto => match self.cfg.mto_comp_order {
                        QueueOrder::Gto => self.gto(pc, comp),
                        QueueOrder::Oldest => self.old(comp),
                    },
                    IssuePolicy::Motrr => Self::rot(pc, comp),
                    _ => {
                        let recent = comp & self.recent;
                        if recent != 0 && self.fault != Some(WarpSchedFault::IgnoreRecency) {
                            Self::rot(pc, recent)
                        } else {
                            Self::rot(pc, comp)
                        }
                    }
                }
            }
            IssuePolicy::BarGto => {
                if !self.cfg.barrier.sched_en {
                    return self.gto(p, elig);
                }
                Some(self.gto(p, elig & self.tb_members[self.best_cta(elig)?])?)
            }
        }
    }

    /// bar-gto: `T*`, the CTA slot holding a candidate with the most waiters (lowest on ties).
    fn best_cta(&self, elig: u64) -> Option<usize> {
        let mut best: Option<usize> = None;
        for t in 0..self.cfg.barrier.ctas {
            if elig & self.tb_members[t] == 0 {
                continue;
            }
            let better = match best {
                None => true,
                Some(b) => {
                    self.fault != Some(WarpSchedFault::BarIgnoresWaiters)
                        && self.bar_cnt[t] > self.bar_cnt[b]
                }
            };
            if better {
                best = Some(t);
            }
        }
        best
    }

    /// U4: while more warps are recent than the cap allows, clear the R bit of the recent
    /// warp with the largest counter (ties: lowest slot). Returns the number cleared.
    fn u4(&mut self, w_active: usize) -> u32 {
        let cap = self.cfg.recency.cap.cap(w_active);
        let mut cleared = 0;
        while self.recent.count_ones() as usize > cap {
            let newest = self.fault == Some(WarpSchedFault::EvictNewest);
            let mut victim = None::<usize>;
            let mut ties = 0;
            for w in bits(self.recent) {
                match victim {
                    None => {
                        victim = Some(w);
                        ties = 1;
                    }
                    Some(v) => {
                        let (c, cv) = (self.cnt[w], self.cnt[v]);
                        if (!newest && c > cv) || (newest && c < cv) {
                            victim = Some(w);
                            ties = 1;
                        } else if c == cv {
                            ties += 1;
                        }
                    }
                }
            }
            let v = victim.expect("recent is not empty");
            if ties > 1 {
                self.corners.rec_tie_evict += 1;
            }
            self.recent &= !(1 << v);
            cleared += 1;
        }
        cleared
    }

    /// U2–U5 for one event of slot `e`, with `w_active` resident warps.
    fn recency_event(&mut self, e: usize, w_active: usize) {
        let max = self.cnt_max;
        for j in 0..self.cfg.warps {
            if j != e && self.cnt[j] < max {
                self.cnt[j] += 1;
            }
        }
        self.cnt[e] = 0;
        self.recent |= 1 << e;
        self.ev_total += 1;
        self.ev_seq[e] = self.ev_total;
        self.corners.rec_events += 1;
        if self.cfg.recency.cap.cap(w_active) == 0 {
            self.corners.rec_cap0_event += 1;
        }
        self.corners.rec_evict_event += self.u4(w_active) as u64;
    }

    fn reset_state(&mut self) {
        if self.resident != 0 || !self.order.is_empty() {
            self.older_dirty = true;
        }
        self.resident = 0;
        self.order.clear();
        self.pointers
            .iter_mut()
            .for_each(|p| *p = Pointer::default());
        self.cmp_pointers
            .iter_mut()
            .for_each(|p| *p = Pointer::default());
        self.recent = 0;
        self.cnt = [self.cnt_max; 64];
        self.ev_seq = [0; 64];
        self.waiting = 0;
        self.warp_tb = [0; 64];
        self.tb_members = [0; 16];
        self.bar_cnt = [0; 16];
        self.bar_live = [0; 16];
    }

    /// The registered state on the debug ports (and `tb_has_waiter`).
    fn write_state(&mut self, outputs: &mut [u64]) {
        let o = self.out;
        if self.older_dirty {
            self.rebuild_older();
        }
        outputs[o.dbg_older..o.dbg_older + o.dbg_older_words].copy_from_slice(&self.older_image);
        outputs[o.dbg_resident] = self.resident;
        let pack = |ptrs: &[Pointer], sb: usize| {
            let (mut lv, mut li, mut gv) = (0u64, 0u64, 0u64);
            for (s, p) in ptrs.iter().enumerate() {
                lv |= (p.last_valid as u64) << s;
                li |= (p.last_issued as u64) << (s * sb);
                gv |= (p.greedy_valid as u64) << s;
            }
            (lv, li, gv)
        };
        let (lv, li, gv) = pack(&self.pointers, self.slot_bits);
        outputs[o.dbg_last_valid] = lv;
        outputs[o.dbg_last_issued] = li;
        outputs[o.dbg_greedy_valid] = gv;
        if let (Some(a), Some(b), Some(c)) = (
            o.dbg_cmp_last_valid,
            o.dbg_cmp_last_issued,
            o.dbg_cmp_greedy_valid,
        ) {
            let (lv, li, gv) = pack(&self.cmp_pointers, self.slot_bits);
            outputs[a] = lv;
            outputs[b] = li;
            outputs[c] = gv;
        }
        if let Some(r) = o.dbg_recent {
            outputs[r] = self.recent;
        }
        if let Some((off, n)) = o.dbg_rec_cnt {
            let cb = self.cfg.recency.cnt_bits;
            let image = &mut outputs[off..off + n];
            image.iter_mut().for_each(|x| *x = 0);
            for w in 0..self.cfg.warps {
                words::set(image, w * cb, cb, self.cnt[w] as u64);
            }
        }
        if let Some(a) = o.dbg_w_active {
            outputs[a] = self.resident.count_ones() as u64;
        }
        if let Some(a) = o.dbg_waiting {
            outputs[a] = self.waiting;
        }
        if let Some((off, n)) = o.dbg_warp_tb {
            let tbb = self.cfg.tb_bits();
            let image = &mut outputs[off..off + n];
            image.iter_mut().for_each(|x| *x = 0);
            for w in bits(self.resident) {
                words::set(image, w * tbb, tbb, self.warp_tb[w] as u64);
            }
        }
        let ab = self.cfg.count_bits();
        let ctas = self.cfg.barrier.ctas;
        for (port, table) in [
            (o.dbg_bar_cnt, &self.bar_cnt),
            (o.dbg_bar_live, &self.bar_live),
        ] {
            if let Some((off, n)) = port {
                let image = &mut outputs[off..off + n];
                image.iter_mut().for_each(|x| *x = 0);
                for (t, &v) in table.iter().enumerate().take(ctas) {
                    words::set(image, t * ab, ab, v as u64);
                }
            }
        }
        if let Some(a) = o.tb_has_waiter {
            outputs[a] = (0..ctas).fold(0, |m, t| m | ((self.bar_cnt[t] != 0) as u64) << t);
        }
    }
}

impl Model for WarpSchedModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let (i, o, all) = (self.inp, self.out, self.all);
        let reset = inputs[i.reset] & 1 != 0;
        let has_inst = inputs[i.has_inst] & all;
        let ready = inputs[i.ready] & all;
        let unit_free = inputs[i.unit_free] & all;
        let is_mem = inputs[i.is_mem] & all;
        let launch = inputs[i.launch] & all;
        let exit = inputs[i.exit] & all;
        let is_bar = i.is_bar.map_or(0, |p| inputs[p] & all);

        // State ports: the registered state at the start of the cycle.
        self.write_state(outputs);

        // Issue: one pick per scheduler from the start-of-cycle state.
        let mut eligible = self.resident & has_inst & ready & unit_free;
        if self.cfg.has_barrier() {
            eligible &= !self.waiting;
        }
        let (mut iv, mut islot, mut imem) = (0u64, 0u64, 0u64);
        for s in 0..self.cfg.schedulers {
            let mut pick = self.pick(s, eligible & self.supervised[s], is_mem);
            if s == 0 && self.fault == Some(WarpSchedFault::DropIssue) {
                pick = None;
            }
            if let Some(w) = pick {
                iv |= 1 << s;
                islot |= (w as u64) << (s * self.slot_bits);
                imem |= (is_mem >> w & 1) << s;
            }
            self.picks[s] = pick;
        }
        outputs[o.issue_valid] = iv;
        outputs[o.issue_slot] = islot;
        outputs[o.issue_is_mem] = imem;
        if let Some(a) = o.bar_release {
            outputs[a] = 0;
        }

        let last = &mut self.last;
        last.stepped = true;
        last.reset = reset;
        last.eligible = eligible;
        last.is_mem = is_mem;
        last.launch = launch;
        last.exit = exit;
        last.resident = self.resident;
        last.pointers.copy_from_slice(&self.pointers);
        last.cmp_pointers.copy_from_slice(&self.cmp_pointers);
        last.picks.copy_from_slice(&self.picks);
        last.issue_is_mem = imem;
        last.order_changed = false;
        last.recent = self.recent;
        last.events = 0;
        last.release = 0;
        if self.cfg.has_barrier() {
            last.waiting = self.waiting;
            last.warp_tb.copy_from_slice(&self.warp_tb);
            last.bar_cnt = self.bar_cnt;
        }
        self.cycle += 1;

        // The clock edge.
        if reset {
            self.reset_state();
            return;
        }
        self.count_pick_corners(eligible, is_mem, has_inst & ready & self.resident);

        // 1. Pointers: set on issue (per class when split), then greediness ends for a pointer
        // whose warp leaves or is replaced (this wins over the issue).
        let keep = self.fault == Some(WarpSchedFault::KeepGreedyOnExit);
        for s in 0..self.cfg.schedulers {
            if let Some(w) = self.picks[s] {
                let p = Pointer {
                    last_valid: true,
                    last_issued: w,
                    greedy_valid: true,
                };
                if self.split && is_mem >> w & 1 == 0 {
                    self.cmp_pointers[s] = p;
                } else {
                    self.pointers[s] = p;
                }
            }
            for p in [&mut self.pointers[s], &mut self.cmp_pointers[s]] {
                if p.last_valid && (exit | launch) >> p.last_issued & 1 != 0 && !keep {
                    p.greedy_valid = false;
                }
            }
        }

        // 2. Leaving warps (exit, or replaced by a launch).
        let leaving = (exit | launch) & self.resident;
        let stay = self.resident & !leaving;
        if leaving != 0 {
            if self.cfg.has_recency() {
                for w in bits(leaving) {
                    self.recent &= !(1 << w);
                    self.cnt[w] = self.cnt_max;
                    self.ev_seq[w] = 0;
                }
                if self.u4(stay.count_ones() as usize) >= 2 {
                    self.corners.rec_multi_evict_leave += 1;
                }
            }
            if self.cfg.has_barrier() {
                for w in bits(leaving) {
                    let t = self.warp_tb[w] as usize;
                    self.bar_live[t] -= 1;
                    if self.waiting >> w & 1 != 0 {
                        self.bar_cnt[t] -= 1;
                        self.corners.bar_waiting_leaves += 1;
                    }
                    self.tb_members[t] &= !(1 << w);
                    self.warp_tb[w] = 0;
                }
                self.waiting &= !leaving;
            }
        }

        // 3. Barrier arrivals: an issued bar.sync of a warp that stays.
        let mut arrived_ctas = 0u64;
        if self.cfg.has_barrier() {
            let mut arrivals = [0u8; 16];
            for s in 0..self.cfg.schedulers {
                if let Some(w) = self.picks[s] {
                    if is_bar >> w & 1 != 0 && leaving >> w & 1 == 0 {
                        let t = self.warp_tb[w] as usize;
                        self.waiting |= 1 << w;
                        self.bar_cnt[t] += 1;
                        arrivals[t] += 1;
                        arrived_ctas |= 1 << t;
                        self.corners.bar_arrivals += 1;
                    }
                }
            }
            self.corners.bar_dual_arrival += arrivals.iter().any(|&a| a >= 2) as u64;
        }

        // 4. Launches: the youngest warps, ascending by slot.
        if (exit | launch) & (self.resident | launch) != 0 {
            let last = &mut self.last;
            last.order_before.clear();
            last.order_before.extend_from_slice(&self.order);
            last.order_changed = true;
            self.order.retain(|&w| leaving >> w & 1 == 0);
            for w in bits(launch) {
                self.order.push(w as u8);
            }
            self.resident = stay | launch;
            self.older_dirty = true;
        }
        if launch != 0 {
            if self.cfg.has_recency() {
                for w in bits(launch) {
                    self.recent &= !(1 << w);
                    self.cnt[w] = self.cnt_max;
                    self.ev_seq[w] = 0;
                }
            }
            if let Some(tb) = i.launch_tb {
                let tbb = self.cfg.tb_bits();
                for w in bits(launch) {
                    let t = words::get(&inputs[tb..], w * tbb, tbb) as usize;
                    self.warp_tb[w] = t as u8;
                    self.tb_members[t] |= 1 << w;
                    self.bar_live[t] += 1;
                }
            }
        }

        // 5. Recency events, ascending slot, against W_active after the launches.
        if self.cfg.has_recency() {
            let rec = self.cfg.recency;
            let events = match rec.trigger {
                RecTrigger::Complete => {
                    let mut m = i.mem_complete.map_or(0, |p| inputs[p]) & self.resident;
                    if rec.class == RecClass::Global {
                        m &= i.cpl_global.map_or(0, |p| inputs[p]);
                    }
                    let mut taken = 0u64;
                    for w in bits(m).take(rec.n_cpl) {
                        taken |= 1 << w;
                    }
                    self.corners.rec_dropped += (m & !taken).count_ones() as u64;
                    taken
                }
                RecTrigger::Issue => {
                    let global = i.is_global.map_or(all, |p| inputs[p]);
                    let mut m = 0u64;
                    for w in self.picks.iter().flatten() {
                        m |= 1 << w;
                    }
                    m & is_mem
                        & self.resident
                        & if rec.class == RecClass::Global {
                            global
                        } else {
                            all
                        }
                }
            };
            self.corners.rec_event_on_launch += (events & launch).count_ones() as u64;
            let w_active = self.resident.count_ones() as usize;
            for e in bits(events) {
                self.recency_event(e, w_active);
            }
            self.last.events = events;
        }

        // 6. Barrier release: every CTA whose live warps all wait.
        if self.cfg.has_barrier() {
            let mut release = 0u64;
            for t in 0..self.cfg.barrier.ctas {
                let (c, l) = (self.bar_cnt[t], self.bar_live[t]);
                if c > 0 && c == l {
                    if self.fault == Some(WarpSchedFault::NoReleaseByExit)
                        && arrived_ctas >> t & 1 == 0
                    {
                        continue;
                    }
                    release |= 1 << t;
                    self.bar_cnt[t] = 0;
                    self.waiting &= !self.tb_members[t];
                    if arrived_ctas >> t & 1 != 0 {
                        self.corners.bar_release_arrival += 1;
                    } else {
                        self.corners.bar_release_exit += 1;
                    }
                    self.corners.bar_one_warp_release += (l == 1) as u64;
                }
            }
            if let Some(a) = o.bar_release {
                outputs[a] = release;
            }
            self.last.release = release;
        }
    }

    fn check_inputs(&self, inputs: &[u64]) -> Result<(), String> {
        let (i, all) = (self.inp, self.all);
        if inputs[i.reset] & 1 != 0 || !self.cfg.has_recency() {
            return Ok(());
        }
        let rec = self.cfg.recency;
        if rec.trigger != RecTrigger::Complete {
            return Ok(());
        }
        // The completions that are events (step 5): of slots resident after the launches.
        let (launch, exit) = (inputs[i.launch] & all, inputs[i.exit] & all);
        let resident_after = (self.resident & !(exit | launch)) | launch;
        let mut m = i.mem_complete.map_or(0, |p| inputs[p]) & resident_after;
        if rec.class == RecClass::Global {
            m &= i.cpl_global.map_or(0, |p| inputs[p]);
        }
        let n = m.count_ones() as usize;
        if n > rec.n_cpl {
            return Err(format!(
                "port mem_complete: {n} memory completions of resident warps in one cycle (0x{m:x}), but the unit takes n_cpl = {} per cycle and would drop the rest",
                rec.n_cpl
            ));
        }
        Ok(())
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let c = &self.corners;
        let mut e = vec![("issues", c.issues), ("mem_issues", c.mem_issues)];
        if self.cfg.has_recency() {
            e.push(("recency_events", c.rec_events));
            e.push(("recency_evictions", c.rec_evict_event));
            e.push(("completions_dropped", c.rec_dropped));
        }
        if self.cfg.has_barrier() {
            e.push(("barrier_arrivals", c.bar_arrivals));
            e.push((
                "barrier_releases",
                c.bar_release_arrival + c.bar_release_exit,
            ));
        }
        e
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.check_state()?;
        let l = &self.last;
        if !l.stepped {
            return Ok(());
        }
        if l.reset {
            let rec_reset = self.recent == 0 && self.cnt.iter().all(|&c| c == self.cnt_max);
            let bar_reset = self.waiting == 0
                && self.bar_cnt.iter().all(|&c| c == 0)
                && self.bar_live.iter().all(|&c| c == 0);
            if self.resident != 0
                || self.pointers.iter().any(|p| *p != Pointer::default())
                || self.cmp_pointers.iter().any(|p| *p != Pointer::default())
                || !rec_reset
                || !bar_reset
            {
                return Err("state after reset is not the reset state".into());
            }
            return Ok(());
        }
        self.check_edge()?;
        self.check_picks()
    }

    fn state_line(&self) -> String {
        let mut s = format!(
            "cycle {} resident={:#x} age(oldest first)={:?}",
            self.cycle, self.resident, self.order
        );
        let ptr = |p: &Pointer| {
            let last = if p.last_valid {
                p.last_issued.to_string()
            } else {
                "NONE".into()
            };
            format!("last={last} greedy={}", p.greedy_valid as u8)
        };
        for (k, p) in self.pointers.iter().enumerate() {
            s.push_str(&format!(" | s{k}: {}", ptr(p)));
            if self.split {
                s.push_str(&format!(" cmp {}", ptr(&self.cmp_pointers[k])));
            }
        }
        if self.cfg.has_recency() {
            let cnt: Vec<u8> = self.cnt[..self.cfg.warps].to_vec();
            s.push_str(&format!(" | R={:#x} cnt={cnt:?}", self.recent));
        }
        if self.cfg.has_barrier() {
            let c = self.cfg.barrier.ctas;
            s.push_str(&format!(
                " | waiting={:#x} bar_cnt={:?} bar_live={:?}",
                self.waiting,
                &self.bar_cnt[..c],
                &self.bar_live[..c]
            ));
        }
        s
    }
}

impl WarpSchedModel {
    /// Corner counters that depend on this cycle's pick (before the edge).
    fn count_pick_corners(&mut self, eligible: u64, is_mem: u64, ready_heads: u64) {
        for s in 0..self.cfg.schedulers {
            let Some(w) = self.picks[s] else { continue };
            self.corners.issues += 1;
            self.corners.mem_issues += is_mem >> w & 1;
            let e = eligible & self.supervised[s];
            if self.policy.class_split() {
                let mem = e & is_mem;
                if mem == 0 && ready_heads & is_mem & self.supervised[s] != 0 {
                    self.corners.compute_fallback += 1;
                }
                if mem != 0 && self.old(mem) != Some(w) {
                    self.corners.mem_greedy_not_oldest += 1;
                }
                if mem == 0 && self.policy == IssuePolicy::MotrrRecency {
                    let comp = e & !is_mem;
                    self.corners.rec_changed_pick +=
                        (Self::rot(self.cmp_pointer(s), comp) != Some(w)) as u64;
                }
            }
            if self.policy == IssuePolicy::BarGto && self.cfg.barrier.sched_en {
                let lowest = (0..self.cfg.barrier.ctas).find(|&t| e & self.tb_members[t] != 0);
                self.corners.bar_rank_reorders += (lowest != Some(self.warp_tb[w] as usize)) as u64;
            }
        }
        if self.split {
            for s in 0..self.cfg.schedulers {
                let (m, c) = (self.pointers[s], self.cmp_pointers[s]);
                self.corners.pointers_apart +=
                    (m.last_valid && c.last_valid && m.last_issued != c.last_issued) as u64;
            }
        }
    }

    /// Invariants of the committed state alone.
    fn check_state(&self) -> Result<(), String> {
        if self.resident & !self.all != 0 {
            return Err(format!("resident {:#x} outside the slots", self.resident));
        }
        let mut seen = 0u64;
        for &w in &self.order {
            if seen >> w & 1 != 0 {
                return Err(format!("slot {w} twice in the age order"));
            }
            seen |= 1 << w;
        }
        if seen != self.resident {
            return Err(format!(
                "age order holds {seen:#x} but resident is {:#x}",
                self.resident
            ));
        }
        let mut ptrs: Vec<(&str, usize, &Pointer)> = vec![];
        for s in 0..self.cfg.schedulers {
            ptrs.push(("pointer", s, &self.pointers[s]));
            if self.split {
                ptrs.push(("compute pointer", s, &self.cmp_pointers[s]));
            } else if self.cmp_pointers[s] != Pointer::default() {
                return Err(format!("scheduler {s}: compute pointer used without split"));
            }
        }
        for (what, s, p) in ptrs {
            if p.last_valid && self.supervised[s] >> p.last_issued & 1 == 0 {
                return Err(format!(
                    "scheduler {s}: {what} last_issued {} is not one of its slots",
                    p.last_issued
                ));
            }
            if !p.last_valid && (p.last_issued != 0 || p.greedy_valid) {
                return Err(format!("scheduler {s}: NONE {what} with state {p:?}"));
            }
            if p.greedy_valid && self.resident >> p.last_issued & 1 == 0 {
                return Err(format!(
                    "scheduler {s}: {what} greedy_valid for non-resident slot {}",
                    p.last_issued
                ));
            }
        }
        if self.cfg.has_recency() {
            self.check_recency_state()?;
        }
        if self.cfg.has_barrier() {
            self.check_barrier_state()?;
        }
        Ok(())
    }

    /// LH I10–I12 on the Recency Register.
    fn check_recency_state(&self) -> Result<(), String> {
        let w_active = self.resident.count_ones() as usize;
        let cap = self.cfg.recency.cap.cap(w_active);
        let max = self.cnt_max;
        if self.recent.count_ones() as usize > cap {
            return Err(format!(
                "I10: {} recent warps, cap {cap} at W_active {w_active}",
                self.recent.count_ones()
            ));
        }
        if self.recent & !self.resident != 0 {
            return Err(format!(
                "I10: R set for non-resident slots {:#x}",
                self.recent & !self.resident
            ));
        }
        for w in 0..self.cfg.warps {
            let resident = self.resident >> w & 1 != 0;
            let c = self.cnt[w];
            if !resident && c != max {
                return Err(format!("I10: slot {w} not resident with cnt {c}"));
            }
            // I11: the counter counts the events of other slots since the slot's latest.
            let want = if resident && self.ev_seq[w] != 0 {
                (self.ev_total - self.ev_seq[w]).min(max as u64) as u8
            } else {
                max
            };
            if resident && c != want {
                return Err(format!(
                    "I11: slot {w} cnt {c}, but {want} events of other slots since its latest"
                ));
            }
        }
        // I12: R = 1 warps had later events than every R = 0 warp with an event (ties at
        // CMAX excepted).
        let oldest_recent = bits(self.recent).map(|w| self.ev_seq[w]).min();
        if let Some(r) = oldest_recent {
            for z in bits(self.resident & !self.recent) {
                if self.ev_seq[z] > r && self.cnt[z] != max {
                    return Err(format!(
                        "I12: slot {z} (R = 0) had an event after a recent warp's"
                    ));
                }
            }
        }
        Ok(())
    }

    /// BAR I1–I3 on the barrier table.
    fn check_barrier_state(&self) -> Result<(), String> {
        let mut cnt = [0u8; 16];
        let mut live = [0u8; 16];
        for w in bits(self.resident) {
            let t = self.warp_tb[w] as usize;
            if t >= self.cfg.barrier.ctas {
                return Err(format!("slot {w} in CTA slot {t}"));
            }
            live[t] += 1;
            cnt[t] += (self.waiting >> w & 1) as u8;
        }
        if self.waiting & !self.resident != 0 {
            return Err(format!(
                "BAR I3: non-resident slots wait {:#x}",
                self.waiting & !self.resident
            ));
        }
        for t in 0..self.cfg.barrier.ctas {
            if self.bar_cnt[t] != cnt[t] {
                return Err(format!(
                    "BAR I1: CTA {t} bar_cnt {} but {} warps wait",
                    self.bar_cnt[t], cnt[t]
                ));
            }
            if self.bar_live[t] != live[t] {
                return Err(format!(
                    "BAR I2: CTA {t} bar_live {} but {} warps resident",
                    self.bar_live[t], live[t]
                ));
            }
            if cnt[t] != 0 && cnt[t] >= live[t] {
                return Err(format!(
                    "BAR I2: CTA {t}: all {} live warps wait but no release",
                    live[t]
                ));
            }
        }
        let l = &self.last;
        for t in bits(l.release) {
            if self.bar_cnt[t] != 0 || self.waiting & self.tb_members[t] != 0 {
                return Err(format!("BAR I5: CTA {t} released but warps still wait"));
            }
        }
        Ok(())
    }

    /// The edge's residency, age and Recency event rules.
    fn check_edge(&self) -> Result<(), String> {
        let l = &self.last;
        if self.resident != (l.resident & !l.exit) | l.launch {
            return Err(format!(
                "resident {:#x} != (before {:#x} & !exit {:#x}) | launch {:#x}",
                self.resident, l.resident, l.exit, l.launch
            ));
        }
        if l.order_changed {
            let n_launch = l.launch.count_ones() as usize;
            let kept = self.order.len() - n_launch;
            let mut want_kept = l
                .order_before
                .iter()
                .filter(|&&w| (l.exit | l.launch) >> w & 1 == 0);
            for k in 0..kept {
                if want_kept.next() != Some(&self.order[k]) {
                    return Err("surviving warps changed their relative age".into());
                }
            }
            let mut lm = l.launch;
            for k in kept..self.order.len() {
                if self.order[k] as u32 != lm.trailing_zeros() {
                    return Err(
                        "launched warps are not the youngest in ascending slot order".into(),
                    );
                }
                lm &= lm - 1;
            }
        }
        if self.cfg.has_recency() && l.events.count_ones() == 1 {
            let e = l.events.trailing_zeros() as usize;
            let cap = self
                .cfg
                .recency
                .cap
                .cap(self.resident.count_ones() as usize);
            if cap >= 1 && (self.cnt[e] != 0 || self.recent >> e & 1 == 0) {
                return Err(format!(
                    "I11: after the only event (slot {e}) cnt = {}, R = {}",
                    self.cnt[e],
                    self.recent >> e & 1
                ));
            }
        }
        Ok(())
    }

    /// I1–I9, I13 and BAR I3/I4: each scheduler's pick recomputed from its definition.
    fn check_picks(&self) -> Result<(), String> {
        let l = &self.last;
        let n_sched = self.cfg.schedulers;
        let order_before: &[u8] = if l.order_changed {
            &l.order_before
        } else {
            &self.order
        };
        // Age rank at the start of the cycle (0 = oldest).
        let mut rank = [u8::MAX; 64];
        for (k, &w) in order_before.iter().enumerate() {
            rank[w as usize] = k as u8;
        }
        let oldest = |set: u64| -> Option<usize> {
            let (mut best, mut m) = (None::<usize>, set);
            while m != 0 {
                let w = m.trailing_zeros() as usize;
                if best.is_none_or(|b| rank[w] < rank[b]) {
                    best = Some(w);
                }
                m &= m - 1;
            }
            best
        };
        let greedy_then_oldest = |p: Pointer, set: u64| -> Option<usize> {
            if p.last_valid && p.greedy_valid && set >> p.last_issued & 1 != 0 {
                Some(p.last_issued)
            } else {
                oldest(set)
            }
        };
        for s in 0..n_sched {
            let e = l.eligible & self.supervised[s];
            let pick = l.picks[s];
            // Walk the supervised list from the position after last_issued (a slot's position
            // in its list is slot / schedulers).
            let list = &self.supervised_list[s];
            let rotation = |p: Pointer, set: u64| -> Option<usize> {
                let start = if p.last_valid {
                    p.last_issued / n_sched + 1
                } else {
                    0
                };
                let (after, upto) = list.split_at(start.min(list.len()));
                upto.iter()
                    .chain(after)
                    .copied()
                    .find(|&w| set >> w & 1 != 0)
            };
            // I1: the issued slot is supervised and eligible; issue_is_mem follows it.
            if let Some(w) = pick {
                if self.supervised[s] >> w & 1 == 0 {
                    return Err(format!("I1: scheduler {s} issued slot {w}, not its own"));
                }
                if e >> w & 1 == 0 {
                    let why = if l.waiting >> w & 1 != 0 {
                        "BAR I3: a waiting warp issued"
                    } else {
                        "I1: ineligible slot"
                    };
                    return Err(format!("{why}: scheduler {s} issued slot {w}"));
                }
                if l.issue_is_mem >> s & 1 != l.is_mem >> w & 1 {
                    return Err(format!(
                        "scheduler {s}: issue_is_mem differs from is_mem[{w}]"
                    ));
                }
            } else if l.issue_is_mem >> s & 1 != 0 {
                return Err(format!("scheduler {s}: issue_is_mem without an issue"));
            }
            // I2: work-conserving.
            if e != 0 && pick.is_none() {
                return Err(format!(
                    "I2: scheduler {s} had eligible warps {e:#x} but did not issue"
                ));
            }
            // I3: a pointer moves only on an issue (of its class when split); greedy sets on
            // such an issue and clears only when its warp leaves the slot.
            let pick_mem = pick.map(|w| l.is_mem >> w & 1 != 0);
            // No allocation per cycle: the pointer, and the compute pointer when split.
            let mut checks = [
                ("pointer", l.pointers[s], self.pointers[s], pick),
                (
                    "compute pointer",
                    l.cmp_pointers[s],
                    self.cmp_pointers[s],
                    pick.filter(|_| pick_mem == Some(false)),
                ),
            ];
            let n_checks = if self.split {
                checks[0].3 = pick.filter(|_| pick_mem == Some(true));
                2
            } else {
                1
            };
            for &(what, before, now, moved) in &checks[..n_checks] {
                let (want_valid, want_slot) = match moved {
                    Some(w) => (true, w),
                    None => (before.last_valid, before.last_issued),
                };
                if now.last_valid != want_valid || now.last_issued != want_slot {
                    return Err(format!(
                        "I3: scheduler {s} {what} {now:?} after {pick:?} from {before:?}"
                    ));
                }
                let left = want_valid && (l.exit | l.launch) >> want_slot & 1 != 0;
                let want_greedy = (moved.is_some() || before.greedy_valid) && !left;
                if now.greedy_valid != want_greedy {
                    return Err(format!(
                        "I3: scheduler {s} {what} greedy_valid {} (expected {want_greedy}: pick {pick:?}, before {before:?}, slot left {left})",
                        now.greedy_valid
                    ));
                }
            }
            let p = l.pointers[s];
            let pc = if self.split { l.cmp_pointers[s] } else { p };
            let (name, want) = match self.policy {
                IssuePolicy::Lrr => ("I4 (LRR first eligible in rotation)", rotation(p, e)),
                IssuePolicy::Gto => {
                    let want = if p.greedy_valid && e >> p.last_issued & 1 != 0 {
                        Some(p.last_issued)
                    } else {
                        oldest(e)
                    };
                    ("I5 (GTO greedy else oldest)", want)
                }
                IssuePolicy::Mto | IssuePolicy::Motrr | IssuePolicy::MotrrRecency => {
                    let mem = e & l.is_mem;
                    let comp = e & !l.is_mem;
                    if mem != 0 {
                        if pick_mem != Some(true) {
                            return Err(format!(
                                "I6: scheduler {s} issued {pick:?} (compute) with memory warps {mem:#x} eligible"
                            ));
                        }
                        let want = match self.cfg.mem_order {
                            QueueOrder::Gto => greedy_then_oldest(p, mem),
                            QueueOrder::Oldest => oldest(mem),
                        };
                        ("I7 (memory pick greedy else oldest)", want)
                    } else {
                        match self.policy {
                            IssuePolicy::Mto => {
                                let want = match self.cfg.mto_comp_order {
                                    QueueOrder::Gto => greedy_then_oldest(pc, comp),
                                    QueueOrder::Oldest => oldest(comp),
                                };
                                ("MTO compute pick", want)
                            }
                            IssuePolicy::Motrr => {
                                ("I8 (MOTRR compute rotation)", rotation(pc, comp))
                            }
                            _ => {
                                let r = l.recent;
                                if (comp & r == 0 || comp & !r == 0) && pick != rotation(pc, comp) {
                                    return Err(format!(
                                        "I13: scheduler {s} issued {pick:?}, MOTRR would issue {:?} (all candidates' R equal)",
                                        rotation(pc, comp)
                                    ));
                                }
                                let want = if comp & r != 0 {
                                    rotation(pc, comp & r)
                                } else {
                                    rotation(pc, comp)
                                };
                                ("I9 (recent first, then rotation)", want)
                            }
                        }
                    }
                }
                IssuePolicy::BarGto => {
                    // BAR I4: the largest key (bar_cnt, -CTA slot), then GTO inside the CTA.
                    let set = if self.cfg.barrier.sched_en {
                        let mut best: Option<(u8, usize)> = None;
                        for w in list.iter().copied().filter(|&w| e >> w & 1 != 0) {
                            let t = l.warp_tb[w] as usize;
                            let key = l.bar_cnt[t];
                            if best.is_none_or(|(k, bt)| key > k || (key == k && t < bt)) {
                                best = Some((key, t));
                            }
                        }
                        match best {
                            Some((_, t)) => list
                                .iter()
                                .filter(|&&w| e >> w & 1 != 0 && l.warp_tb[w] as usize == t)
                                .fold(0u64, |m, &w| m | 1 << w),
                            None => 0,
                        }
                    } else {
                        e
                    };
                    (
                        "BAR I4 (most waiters, lowest CTA, GTO inside)",
                        greedy_then_oldest(p, set),
                    )
                }
            };
            if pick != want {
                return Err(format!(
                    "{name}: scheduler {s} issued {pick:?}, expected {want:?} (eligible {e:#x}, pointer {p:?})"
                ));
            }
        }
        Ok(())
    }
}
/// A random mask with bit density `level`/8 (0 = none, 8 = all), from a few draws.
pub(crate) fn density_mask(rng: &mut Rng, level: u8) -> u64 {
    let mut r = || rng.next_u64();
    match level {
        0 => 0,
        1 => r() & r() & r(),
        2 => r() & r(),
        3 => r() & (r() | r() & r()),
        4 => r(),
        5 => r() | (r() & r() & r()),
        6 => r() | r(),
        7 => r() | r() | r(),
        _ => u64::MAX,
    }
}

/// How many warps a stimulus phase keeps resident.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Occupancy {
    /// At most a few warps.
    Few,
    /// Fill every slot (launch bursts), rare exits.
    Full,
    /// Random launches and exits.
    Churn,
}

/// Constrained-random, protocol-legal inputs for `warp-sched`: launches into free slots
/// (for the new policies also, rarely, replacements of resident warps), exits only of resident
/// warps, densities that change every few hundred cycles.
#[derive(Clone, Debug)]
pub struct WarpSchedStimulus {
    rng: Rng,
    warps: usize,
    all: u64,
    inp: InPorts,
    out_issue_valid: usize,
    out_issue_slot: usize,
    schedulers: usize,
    slot_bits: usize,
    /// Residency implied by the inputs driven so far.
    resident: u64,
    phase_left: u64,
    /// Density levels (0..=8) of has_inst, ready, unit_free, is_mem.
    levels: [u8; 4],
    occupancy: Occupancy,
    few_limit: u32,
    /// Cycles left of a unit_free = 0 stretch (backpressure).
    stall_left: u64,
    /// Warps that issued last cycle are often not ready (a dependent next instruction).
    dependent: bool,
    // motrr-recency: completions (density level, or a focus on one or two slots so counters
    // saturate and tie) and the global flags.
    has_recency: bool,
    cpl_level: u8,
    cpl_focus: u64,
    // bar-gto: CTA of each slot as launched, CTAs with many bar.sync heads this phase.
    has_barrier: bool,
    ctas: usize,
    tb_bits: usize,
    slot_tb: [u8; 64],
    bar_ctas: u64,
    bar_level: u8,
}

impl WarpSchedStimulus {
    pub fn new(cfg: &WarpSchedConfig, seed: u64) -> Self {
        let layout = Layout::new(&cfg.ports());
        WarpSchedStimulus {
            rng: Rng::new(seed),
            warps: cfg.warps,
            all: low_bits(cfg.warps),
            inp: InPorts::new(&layout),
            out_issue_valid: offset(&layout.outputs, "issue_valid"),
            out_issue_slot: offset(&layout.outputs, "issue_slot"),
            schedulers: cfg.schedulers,
            slot_bits: cfg.slot_bits(),
            resident: 0,
            phase_left: 0,
            levels: [8; 4],
            occupancy: Occupancy::Churn,
            few_limit: 2,
            stall_left: 0,
            dependent: false,
            has_recency: cfg.has_recency(),
            cpl_level: 2,
            cpl_focus: 0,
            has_barrier: cfg.has_barrier(),
            ctas: cfg.barrier.ctas,
            tb_bits: cfg.tb_bits(),
            slot_tb: [0; 64],
            bar_ctas: 0,
            bar_level: 4,
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 100 + r.below(500);
        // Mostly mid densities, often the extremes.
        let level = |r: &mut Rng| match r.below(16) {
            0 => 0,
            1..=4 => 8,
            5 => 1,
            _ => 1 + r.below(7) as u8,
        };
        for k in 0..4 {
            self.levels[k] = level(r);
        }
        // Long backpressure stretches: some phases have no free unit at all.
        if r.chance(1, 10) {
            self.levels[2] = 0;
        }
        self.occupancy = match r.below(4) {
            0 => Occupancy::Few,
            1 => Occupancy::Full,
            _ => Occupancy::Churn,
        };
        self.few_limit = 1 + r.below(4) as u32;
        self.dependent = r.chance(1, 2);
        // New draws only for the new policies, so LRR/GTO stimulus streams stay as they were.
        if self.has_recency {
            self.cpl_level = r.below(5) as u8;
            self.cpl_focus = if r.chance(1, 3) {
                (1u64 << r.below(self.warps as u64)) | (1u64 << r.below(self.warps as u64))
            } else {
                0
            };
        }
        if self.has_barrier {
            self.bar_ctas = r.next_u64() & low_bits(self.ctas);
            self.bar_level = 1 + r.below(8) as u8;
        }
    }

    /// A CTA slot for a launch group: mostly one with no resident warp.
    fn pick_cta(&mut self, resident: u64) -> usize {
        let mut used = 0u64;
        for w in bits(resident) {
            used |= 1 << self.slot_tb[w];
        }
        let free = low_bits(self.ctas) & !used;
        if free != 0 && self.rng.chance(3, 4) {
            self.random_bit(free)
        } else {
            self.rng.below(self.ctas as u64) as usize
        }
    }

    /// A random set bit of `m` (m != 0).
    fn random_bit(&mut self, m: u64) -> usize {
        let mut k = self.rng.below(m.count_ones() as u64);
        let mut m = m;
        while k > 0 {
            m &= m - 1;
            k -= 1;
        }
        m.trailing_zeros() as usize
    }

    /// Up to `n` free slots for one CTA: consecutive free slots from a random start.
    fn cta_slots(&mut self, free: u64, n: u32) -> u64 {
        if free == 0 {
            return 0;
        }
        let start = self.random_bit(free);
        let mut picked = 0u64;
        let mut m = free & (u64::MAX << start);
        if m.count_ones() < n {
            m = free;
        }
        while m != 0 && picked.count_ones() < n {
            picked |= m & m.wrapping_neg();
            m &= m - 1;
        }
        picked
    }
}

impl Stimulus for WarpSchedStimulus {
    fn next(&mut self, cycle: u64, prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        let all = self.all;
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let i = self.inp;
        inputs[i.has_inst] = density_mask(&mut self.rng, self.levels[0]) & all;
        let mut ready = density_mask(&mut self.rng, self.levels[1]) & all;
        let mut unit_free = density_mask(&mut self.rng, self.levels[2]) & all;
        inputs[i.is_mem] = density_mask(&mut self.rng, self.levels[3]) & all;
        if self.stall_left > 0 {
            self.stall_left -= 1;
            unit_free = 0;
        } else if self.rng.chance(1, 300) {
            self.stall_left = 5 + self.rng.below(60);
        }
        // React to last cycle's issues: the issued warps' next instruction often waits.
        if self.dependent && cycle > 0 && !prev_outputs.is_empty() {
            let iv = prev_outputs[self.out_issue_valid];
            let slots = prev_outputs[self.out_issue_slot];
            for s in 0..self.schedulers {
                if iv >> s & 1 != 0 && self.rng.chance(1, 2) {
                    let w = slots >> (s * self.slot_bits) & low_bits(self.slot_bits);
                    ready &= !(1u64 << w);
                }
            }
        }
        inputs[i.ready] = ready;
        inputs[i.unit_free] = unit_free;

        if cycle < 2 || self.rng.chance(1, 20_000) {
            inputs[i.reset] = 1;
            self.resident = 0;
            return;
        }

        // Exits of resident warps, launches into free slots (never both on one slot).
        let resident = self.resident;
        let mut exit = 0u64;
        let n_res = resident.count_ones();
        let (p_exit, p_burst) = match self.occupancy {
            Occupancy::Few => (30, 400),
            Occupancy::Full => (150, 2000),
            Occupancy::Churn => (12, 150),
        };
        if resident != 0 {
            if self.rng.chance(1, p_exit)
                || (self.occupancy == Occupancy::Few && n_res > self.few_limit)
            {
                exit |= 1 << self.random_bit(resident);
            }
            if self.rng.chance(1, p_burst) {
                exit |= resident & density_mask(&mut self.rng, 4);
            }
        }
        let free = all & !resident;
        let mut launch = 0u64;
        match self.occupancy {
            Occupancy::Few => {
                if n_res < self.few_limit && self.rng.chance(1, 8) {
                    let room = self.few_limit - n_res;
                    let n = 1 + self.rng.below(room as u64) as u32;
                    launch = self.cta_slots(free, n);
                }
            }
            Occupancy::Full => {
                if free != 0 && self.rng.chance(1, 3) {
                    let n = 1 + self.rng.below(self.warps.min(16) as u64) as u32;
                    launch = self.cta_slots(free, n);
                }
            }
            Occupancy::Churn => {
                if free != 0 && self.rng.chance(1, 10) {
                    let n = 1 + self.rng.below(8) as u32;
                    launch = self.cta_slots(free, n);
                }
            }
        }
        // New policies: sometimes a launch into a resident slot (the warp is replaced, with
        // or without its exit), e.g. of a waiting or recent warp.
        if (self.has_recency || self.has_barrier) && resident != 0 && self.rng.chance(1, 40) {
            let w = self.random_bit(resident);
            launch |= 1 << w;
            if self.rng.chance(1, 2) {
                exit |= 1 << w;
            }
        }
        inputs[i.exit] = exit;
        inputs[i.launch] = launch;
        self.resident = (resident & !exit) | launch;
        let after = self.resident;
        if self.has_recency {
            // Completions mostly of warps resident after the edge, sometimes of any slot.
            let mut cpl = if self.cpl_focus != 0 {
                self.cpl_focus & density_mask(&mut self.rng, 4)
            } else {
                density_mask(&mut self.rng, self.cpl_level) & after
            };
            if self.rng.chance(1, 40) {
                cpl |= self.rng.next_u64() & all;
            }
            if let Some(p) = i.mem_complete {
                inputs[p] = cpl & all;
            }
            if let Some(p) = i.cpl_global {
                inputs[p] = density_mask(&mut self.rng, 6) & all;
            }
            if let Some(p) = i.is_global {
                inputs[p] = density_mask(&mut self.rng, 6) & all;
            }
        }
        if self.has_barrier {
            if let Some(off) = i.launch_tb {
                let tbb = self.tb_bits;
                let group = self.pick_cta(resident & !exit);
                let scatter = self.rng.chance(1, 8);
                for w in bits(launch) {
                    let t = if scatter {
                        self.rng.below(self.ctas as u64) as usize
                    } else {
                        group
                    };
                    self.slot_tb[w] = t as u8;
                    words::set(&mut inputs[off..], w * tbb, tbb, t as u64);
                }
                // Garbage in the fields of slots that do not launch (must be ignored).
                if self.rng.chance(1, 16) {
                    let w = self.rng.below(self.warps as u64) as usize;
                    if launch >> w & 1 == 0 {
                        words::set(&mut inputs[off..], w * tbb, tbb, self.rng.next_u64());
                    }
                }
            }
            if let Some(p) = i.is_bar {
                let mut heavy = 0u64;
                for w in bits(after) {
                    if self.bar_ctas >> self.slot_tb[w] & 1 != 0 {
                        heavy |= 1 << w;
                    }
                }
                let dense = density_mask(&mut self.rng, self.bar_level) & heavy;
                let sparse = density_mask(&mut self.rng, 1) & all;
                inputs[p] = dense | sparse;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Spec vectors

/// A slot mask from a bit string, leftmost character = W0 (the spec's convention).
fn slots(s: &str) -> u64 {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .enumerate()
        .fold(0, |m, (k, c)| if c == '1' { m | 1 << k } else { m })
}

fn one(v: u64) -> Vec<u64> {
    vec![v]
}

/// Builder for one warp-sched spec vector.
struct Vb {
    v: SpecVector,
}

impl Vb {
    fn new(name: &str, warps: usize, schedulers: usize, policy: &str) -> Vb {
        Vb {
            v: SpecVector {
                name: name.into(),
                unit: "warp-sched",
                sets: vec![
                    format!("warps={warps}"),
                    format!("schedulers={schedulers}"),
                    format!("policy={policy}"),
                ],
                cycles: vec![],
            },
        }
    }
    fn reset(mut self) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: vec![("reset", one(1))],
            expect: vec![],
        });
        self
    }
    /// A cycle that only launches `mask`.
    fn launch(mut self, mask: u64) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: vec![("launch", one(mask))],
            expect: vec![("issue_valid", one(0))],
        });
        self
    }
    fn cycle(mut self, inputs: &[(&'static str, u64)], expect: &[(&'static str, u64)]) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: inputs.iter().map(|&(n, v)| (n, one(v))).collect(),
            expect: expect.iter().map(|&(n, v)| (n, one(v))).collect(),
        });
        self
    }
    /// A cycle where `elig` warps are eligible (has_inst, ready, unit_free all set), one
    /// scheduler, expecting `issue` (None = no issue).
    fn elig(self, elig: u64, issue: Option<usize>) -> Vb {
        let e = [("has_inst", elig), ("ready", elig), ("unit_free", elig)];
        match issue {
            Some(w) => self.cycle(&e, &[("issue_valid", 1), ("issue_slot", w as u64)]),
            None => self.cycle(&e, &[("issue_valid", 0), ("issue_slot", 0)]),
        }
    }
    fn done(self) -> SpecVector {
        self.v
    }
}

/// §4.1 Vector A: 4 warps, ages W1,W3,W0,W2 (oldest first), all heads COMP.
fn vector_a(policy: &str) -> SpecVector {
    let table: [(&str, Option<usize>, Option<usize>); 12] = [
        ("1111", Some(0), Some(1)),
        ("1111", Some(1), Some(1)),
        ("1011", Some(2), Some(3)),
        ("1010", Some(0), Some(0)),
        ("0000", None, None),
        ("0101", Some(1), Some(1)),
        ("1111", Some(2), Some(1)),
        ("0010", Some(2), Some(2)),
        ("1101", Some(3), Some(1)),
        ("1111", Some(0), Some(1)),
        ("0111", Some(1), Some(1)),
        ("1000", Some(0), Some(0)),
    ];
    let mut b = Vb::new(
        &format!("latency_hiding_scheduler.md §4.1 vector A ({policy})"),
        4,
        1,
        policy,
    )
    .reset()
    .launch(slots("0100"))
    .launch(slots("0001"))
    .launch(slots("1000"))
    .launch(slots("0010"));
    for (k, (e, lrr, gto)) in table.iter().enumerate() {
        let issue = if policy == "lrr" { *lrr } else { *gto };
        b = b.elig(slots(e), issue);
        if k == 0 {
            // The ages the table assumes: W0 has W1,W3 older; W2 has W1,W3,W0; W3 has W1.
            let c = b.v.cycles.last_mut().unwrap();
            c.expect.push(("dbg_resident", one(0xf)));
            c.expect.push(("dbg_older", one(0x2b0a)));
            c.expect.push(("dbg_last_valid", one(0)));
        }
    }
    b.done()
}

/// §4.2 Vector B, LRR and GTO columns: 6 warps, ages W1,W3,W5,W0,W2,W4 (oldest first).
/// One row of Vector B: class, ready, mem_ok, LRR issue, GTO issue.
type RowB = (
    &'static str,
    &'static str,
    bool,
    Option<usize>,
    Option<usize>,
);

fn vector_b(policy: &str) -> SpecVector {
    let table: [RowB; 12] = [
        ("CCCMCM", "111111", true, Some(0), Some(1)),
        ("CCCMCM", "111111", true, Some(1), Some(1)),
        ("CCCMCM", "111111", false, Some(2), Some(1)),
        ("CCCCCM", "101111", true, Some(3), Some(3)),
        ("CCCCCC", "111111", true, Some(4), Some(3)),
        ("MCCCCC", "011111", true, Some(5), Some(3)),
        ("MCCCMC", "111111", true, Some(0), Some(3)),
        ("MCCCMC", "111111", true, Some(1), Some(3)),
        ("CCCCMC", "111111", false, Some(2), Some(3)),
        ("--CCCC", "001111", true, Some(3), Some(3)),
        ("CCCCCC", "110000", true, Some(0), Some(1)),
        ("CCCCCC", "000000", true, None, None),
    ];
    let mut b = Vb::new(
        &format!("latency_hiding_scheduler.md §4.2 vector B ({policy})"),
        6,
        1,
        policy,
    )
    .reset();
    for w in [1, 3, 5, 0, 2, 4] {
        b = b.launch(1 << w);
    }
    for (class, ready, mem_ok, lrr, gto) in table {
        let bits = |want: char| {
            class
                .chars()
                .enumerate()
                .fold(0u64, |m, (k, c)| if c == want { m | 1 << k } else { m })
        };
        let (comp, mem) = (bits('C'), bits('M'));
        let unit_free = comp | if mem_ok { mem } else { 0 };
        let issue = if policy == "lrr" { lrr } else { gto };
        let expect: Vec<(&'static str, u64)> = match issue {
            Some(w) => vec![
                ("issue_valid", 1),
                ("issue_slot", w as u64),
                ("issue_is_mem", mem >> w & 1),
            ],
            None => vec![("issue_valid", 0), ("issue_is_mem", 0)],
        };
        b = b.cycle(
            &[
                ("has_inst", comp | mem),
                ("ready", slots(ready)),
                ("unit_free", unit_free),
                ("is_mem", mem),
            ],
            &expect,
        );
    }
    b.done()
}

/// §7.3 S2: LRR fairness — always-eligible warps issue in a fixed cyclic order, and a warp
/// that stays eligible issues within n cycles.
fn s2_lrr_fairness() -> SpecVector {
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §7.3 S2 LRR fairness",
        5,
        1,
        "lrr",
    )
    .reset()
    .launch(0b11111);
    for k in 0..12 {
        b = b.elig(0b11111, Some(k % 5));
    }
    // Last issued W1; W3 eligible throughout, the others come and go.
    b.elig(slots("11011"), Some(3))
        .elig(slots("10011"), Some(4))
        .elig(slots("11010"), Some(0))
        .elig(slots("01110"), Some(1))
        .elig(slots("00010"), Some(3))
        .elig(slots("10010"), Some(0))
        .done()
}

/// §7.3 S3: GTO stickiness — the greedy warp keeps issuing while eligible even when older
/// warps are eligible; an always-eligible second warp never issues.
fn s3_gto_stickiness() -> SpecVector {
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §7.3 S3 GTO stickiness",
        4,
        1,
        "gto",
    )
    .reset()
    .launch(0b1111) // ages = slot order
    .elig(slots("0010"), Some(2));
    for _ in 0..3 {
        b = b.elig(slots("1111"), Some(2));
    }
    b = b
        .elig(slots("1101"), Some(0))
        .elig(slots("1111"), Some(0))
        .elig(slots("0001"), Some(3));
    for _ in 0..5 {
        b = b.elig(slots("1001"), Some(3));
    }
    b.done()
}

/// §7.3 S4: the greedy warp exits and a new warp is launched into its slot the next cycle:
/// it has no greedy priority (GTO takes the oldest), and LRR still rotates from that slot.
fn s4_exit_relaunch(policy: &str) -> SpecVector {
    let (first, second) = if policy == "gto" { (0, 0) } else { (3, 0) };
    Vb::new(
        &format!(
            "latency_hiding_scheduler.md §7.3 S4 exit and relaunch into the same slot ({policy})"
        ),
        4,
        1,
        policy,
    )
    .reset()
    .launch(0b1111)
    .elig(slots("0010"), Some(2))
    // W2 issues again and exits at the same edge: the exit wins over the greedy set.
    .cycle(
        &[
            ("has_inst", slots("0010")),
            ("ready", slots("0010")),
            ("unit_free", slots("0010")),
            ("exit", slots("0010")),
        ],
        &[
            ("issue_valid", 1),
            ("issue_slot", 2),
            ("dbg_greedy_valid", 1),
            ("dbg_last_issued", 2),
        ],
    )
    .cycle(
        &[("launch", slots("0010"))],
        &[
            ("issue_valid", 0),
            ("dbg_resident", slots("1101")),
            ("dbg_last_valid", 1),
            ("dbg_last_issued", 2),
            ("dbg_greedy_valid", 0),
        ],
    )
    // The new W2 is the youngest: ages W0,W1,W3,W2.
    .cycle(
        &[
            ("has_inst", 0b1111),
            ("ready", 0b1111),
            ("unit_free", 0b1111),
        ],
        &[
            ("issue_valid", 1),
            ("issue_slot", first),
            ("dbg_resident", 0b1111),
            ("dbg_greedy_valid", 0),
            ("dbg_last_issued", 2),
            ("dbg_older", 0x3b10),
        ],
    )
    .elig(0b1111, Some(second))
    .done()
}

/// §7.3 S5: age ≠ slot — CTA A in slots 4–7, then CTA B in slots 0–3: GTO prefers 4–7.
fn s5_age_not_slot() -> SpecVector {
    let all = slots("11111111");
    Vb::new(
        "latency_hiding_scheduler.md §7.3 S5 age is not slot order",
        8,
        1,
        "gto",
    )
    .reset()
    .launch(slots("00001111"))
    .launch(slots("11110000"))
    .cycle(
        &[("has_inst", all), ("ready", all), ("unit_free", all)],
        &[
            ("issue_valid", 1),
            ("issue_slot", 4),
            ("dbg_resident", 0xff),
            ("dbg_older", 0x7030_1000_f7f3_f1f0),
        ],
    )
    .elig(slots("11110111"), Some(5))
    .elig(slots("11110001"), Some(7))
    .elig(slots("11110000"), Some(0))
    .elig(all, Some(0))
    .done()
}

/// §7.3 S6 for LRR/GTO: the LD/ST pipe is busy (unit_free = 0 for memory heads): the
/// policies skip those warps in their order; issue_is_mem follows the issued warp.
fn s6_ldst_busy(policy: &str) -> SpecVector {
    let lrr = policy == "lrr";
    let mem = slots("1100");
    let all = slots("1111");
    let c = |ready: u64, unit_free: u64| {
        [
            ("has_inst", all),
            ("ready", ready),
            ("unit_free", unit_free),
            ("is_mem", mem),
        ]
    };
    let busy = slots("0011");
    let x = |w: u64, m: u64| [("issue_valid", 1), ("issue_slot", w), ("issue_is_mem", m)];
    Vb::new(
        &format!("latency_hiding_scheduler.md §7.3 S6 LD/ST busy ({policy})"),
        4,
        1,
        policy,
    )
    .reset()
    .launch(all)
    .cycle(&c(all, busy), &x(2, 0))
    .cycle(&c(all, busy), &if lrr { x(3, 0) } else { x(2, 0) })
    .cycle(&c(all, all), &if lrr { x(0, 1) } else { x(2, 0) })
    .cycle(&c(slots("1101"), all), &if lrr { x(1, 1) } else { x(0, 1) })
    .done()
}

/// Two schedulers: slot w belongs to scheduler w mod 2; both issue in the same cycle, each
/// from its own slots.
fn two_schedulers(policy: &str) -> SpecVector {
    let lrr = policy == "lrr";
    let all = slots("111111");
    let even = slots("101010");
    let odd = slots("010101");
    // issue_slot packs 3 bits per scheduler.
    let pair = |a: u64, b: u64| a | b << 3;
    let e = |m: u64, is_mem: u64| {
        [
            ("has_inst", m),
            ("ready", m),
            ("unit_free", m),
            ("is_mem", is_mem),
        ]
    };
    let b = Vb::new(
        &format!("warp-sched two schedulers issue from their own slots ({policy})"),
        6,
        2,
        policy,
    )
    .reset()
    .launch(all)
    .cycle(
        &e(all, slots("010000")),
        &[
            ("issue_valid", 0b11),
            ("issue_slot", pair(0, 1)),
            ("issue_is_mem", 0b10),
        ],
    );
    if lrr {
        b.cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(2, 3))],
        )
        .cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(4, 5))],
        )
        .cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(0, 1))],
        )
        .cycle(
            &e(even, 0),
            &[("issue_valid", 0b01), ("issue_slot", pair(2, 0))],
        )
        .cycle(
            &e(odd, 0),
            &[
                ("issue_valid", 0b10),
                ("issue_slot", pair(0, 3)),
                ("dbg_last_valid", 0b11),
                ("dbg_last_issued", pair(2, 1)),
            ],
        )
        .done()
    } else {
        b.cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(0, 1))],
        )
        .cycle(
            &e(slots("001111"), 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(2, 3))],
        )
        .cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(2, 3))],
        )
        .cycle(
            &e(even, 0),
            &[("issue_valid", 0b01), ("issue_slot", pair(2, 0))],
        )
        .cycle(
            &e(odd, 0),
            &[
                ("issue_valid", 0b10),
                ("issue_slot", pair(0, 3)),
                ("dbg_greedy_valid", 0b11),
                ("dbg_last_issued", pair(2, 3)),
            ],
        )
        .done()
    }
}

/// Exit and launch of one slot in one cycle (the exit applies first: the slot ends resident
/// and youngest), and a launch into a resident slot (the warp is replaced, youngest again);
/// both end the greediness of the last issued warp.
fn relaunch_rules(policy: &str) -> SpecVector {
    let lrr = policy == "lrr";
    Vb::new(
        &format!("warp-sched exit+launch in one cycle and launch into a resident slot ({policy})"),
        4,
        1,
        policy,
    )
    .reset()
    .launch(0b1111)
    .elig(slots("0100"), Some(1))
    .cycle(
        &[("exit", slots("0100")), ("launch", slots("0100"))],
        &[("issue_valid", 0), ("dbg_greedy_valid", 1)],
    )
    // Ages now W0,W2,W3,W1.
    .cycle(
        &[("launch", slots("0010"))],
        &[
            ("issue_valid", 0),
            ("dbg_resident", 0b1111),
            ("dbg_greedy_valid", 0),
            ("dbg_last_issued", 1),
            ("dbg_older", 0x51d0),
        ],
    )
    // Ages now W0,W3,W1,W2.
    .cycle(
        &[
            ("has_inst", 0b1111),
            ("ready", 0b1111),
            ("unit_free", 0b1111),
        ],
        &[
            ("issue_valid", 1),
            ("issue_slot", if lrr { 2 } else { 0 }),
            ("dbg_older", 0x1b90),
        ],
    )
    .elig(slots("0111"), Some(3))
    .done()
}

/// The directed vectors of warp-sched (spec/latency_hiding_scheduler.md §4 and §7.3).
pub fn spec_vectors() -> Vec<SpecVector> {
    let mut v = vec![];
    for p in ["lrr", "gto"] {
        v.push(vector_a(p));
        v.push(vector_b(p));
        v.push(s4_exit_relaunch(p));
        v.push(s6_ldst_busy(p));
        v.push(two_schedulers(p));
        v.push(relaunch_rules(p));
    }
    v.push(s2_lrr_fairness());
    v.push(s3_gto_stickiness());
    v.push(s5_age_not_slot());
    v.extend(lh_vectors());
    v.extend(bar_vectors());
    v
}

// ---------------------------------------------------------------------------------------
// Spec vectors of the latency-hiding policies (LH §4) and the barrier-aware policy (BAR §6)

impl Vb {
    /// One more `--set` for the vector.
    fn set(mut self, kv: &str) -> Vb {
        self.v.sets.push(kv.to_string());
        self
    }
    /// Add expectations to the last cycle.
    fn also(mut self, expect: &[(&'static str, u64)]) -> Vb {
        let c = self.v.cycles.last_mut().expect("a cycle");
        c.expect.extend(expect.iter().map(|&(n, v)| (n, one(v))));
        self
    }
}

/// Recency counters packed `bits` per slot (`dbg_rec_cnt`, one word for these sizes).
fn packed(cnt: &[u64], bits: usize) -> u64 {
    cnt.iter()
        .enumerate()
        .fold(0, |m, (k, &c)| m | c << (k * bits))
}

/// LH §4.2 Vector B, columns MTO, MOTRR and MOTRR+R; MOTRR+R also checks the Recency Register
/// state columns ("R in" in the row, "R out"/"cnt out" in the next cycle).
fn vector_b_class_split(policy: &str) -> SpecVector {
    let class = [
        "CCCMCM", "CCCMCM", "CCCMCM", "CCCCCM", "CCCCCC", "MCCCCC", "MCCCMC", "MCCCMC", "CCCCMC",
        "--CCCC", "CCCCCC", "CCCCCC",
    ];
    let ready = [
        "111111", "111111", "111111", "101111", "111111", "011111", "111111", "111111", "111111",
        "001111", "110000", "000000",
    ];
    let mem_ok = [1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1];
    let column: [i8; 12] = match policy {
        "mto" => [3, 3, 1, 5, 5, 5, 0, 0, 0, 3, 1, -1],
        "motrr" => [3, 3, 4, 5, 0, 1, 0, 0, 1, 2, 0, -1],
        _ => [3, 3, 0, 5, 0, 1, 0, 0, 1, 3, 0, -1],
    };
    let completions = [
        "001000", "100000", "", "000010", "010000", "", "000100", "000001", "", "001000", "",
        "100010",
    ];
    let r_out = [
        "001000", "101000", "101000", "101010", "110010", "110010", "010110", "010101", "010101",
        "001101", "001101", "101010",
    ];
    let cnt_out: [[u64; 6]; 12] = [
        [63, 63, 0, 63, 63, 63],
        [0, 63, 1, 63, 63, 63],
        [0, 63, 1, 63, 63, 63],
        [1, 63, 2, 63, 0, 63],
        [2, 0, 3, 63, 1, 63],
        [2, 0, 3, 63, 1, 63],
        [3, 1, 4, 0, 2, 63],
        [4, 2, 5, 1, 3, 0],
        [4, 2, 5, 1, 3, 0],
        [5, 3, 0, 2, 4, 1],
        [5, 3, 0, 2, 4, 1],
        [1, 5, 2, 4, 0, 3],
    ];
    let recency = policy == "motrr-recency";
    let mut b = Vb::new(
        &format!("latency_hiding_scheduler.md §4.2 vector B ({policy})"),
        6,
        1,
        policy,
    );
    if recency {
        b = b.set("n_cpl=2");
    }
    b = b.reset();
    for w in [1, 3, 5, 0, 2, 4] {
        b = b.launch(1 << w);
    }
    for k in 0..12 {
        let bitsof = |want: char| {
            class[k]
                .chars()
                .enumerate()
                .fold(0u64, |m, (j, c)| if c == want { m | 1 << j } else { m })
        };
        let (comp, mem) = (bitsof('C'), bitsof('M'));
        let unit_free = comp | if mem_ok[k] == 1 { mem } else { 0 };
        let mut inputs = vec![
            ("has_inst", comp | mem),
            ("ready", slots(ready[k])),
            ("unit_free", unit_free),
            ("is_mem", mem),
        ];
        let mut expect: Vec<(&'static str, u64)> = match column[k] {
            -1 => vec![("issue_valid", 0), ("issue_is_mem", 0)],
            w => vec![
                ("issue_valid", 1),
                ("issue_slot", w as u64),
                ("issue_is_mem", mem >> w & 1),
            ],
        };
        if recency {
            inputs.push(("mem_complete", slots(completions[k])));
            let (r_in, cnt_in) = if k == 0 {
                (0, [63; 6])
            } else {
                (slots(r_out[k - 1]), cnt_out[k - 1])
            };
            expect.extend([
                ("dbg_recent", r_in),
                ("dbg_rec_cnt", packed(&cnt_in, 6)),
                ("dbg_w_active", 6),
            ]);
        }
        b = b.cycle(&inputs, &expect);
    }
    if recency {
        b = b.cycle(
            &[],
            &[
                ("dbg_recent", slots(r_out[11])),
                ("dbg_rec_cnt", packed(&cnt_out[11], 6)),
            ],
        );
        assert_eq!(packed(&cnt_out[11], 6), 0xc0102141);
    }
    b.done()
}

/// LH §4.3 Vector C: the Recency Register with launches and exits (8 slots, no issue). Each
/// step's state is checked in the next cycle.
fn vector_c() -> SpecVector {
    // (exits, launches, completions, W_active, R, cnt) per step.
    type Step = (
        &'static str,
        &'static str,
        &'static str,
        u64,
        &'static str,
        [u64; 8],
    );
    let steps: [Step; 12] = [
        (
            "",
            "",
            "10000000",
            4,
            "10000000",
            [0, 63, 63, 63, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "01000000",
            4,
            "11000000",
            [1, 0, 63, 63, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "00100000",
            4,
            "01100000",
            [2, 1, 0, 63, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "01000000",
            4,
            "01100000",
            [3, 0, 1, 63, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "00010000",
            4,
            "01010000",
            [4, 1, 2, 0, 63, 63, 63, 63],
        ),
        (
            "",
            "00001100",
            "",
            6,
            "01010000",
            [4, 1, 2, 0, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "00001000",
            6,
            "01011000",
            [5, 2, 3, 1, 0, 63, 63, 63],
        ),
        (
            "",
            "",
            "00000100",
            6,
            "00011100",
            [6, 3, 4, 2, 1, 0, 63, 63],
        ),
        (
            "00001000",
            "",
            "",
            5,
            "00010100",
            [6, 3, 4, 2, 63, 0, 63, 63],
        ),
        (
            "00100100",
            "",
            "",
            3,
            "00010000",
            [6, 3, 63, 2, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "10000000",
            3,
            "10000000",
            [0, 4, 63, 3, 63, 63, 63, 63],
        ),
        (
            "",
            "00000010",
            "00000010",
            4,
            "10000010",
            [1, 5, 63, 4, 63, 63, 0, 63],
        ),
    ];
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §4.3 vector C (recency register, launches and exits)",
        8,
        1,
        "motrr-recency",
    )
    .reset()
    .launch(slots("11110000"));
    // Step k's inputs in cycle k, its state in cycle k + 1 (a trailing cycle after step 11).
    for k in 0..=steps.len() {
        let expect = match k.checked_sub(1).map(|p| &steps[p]) {
            Some(p) => vec![
                ("dbg_w_active", p.3),
                ("dbg_recent", slots(p.4)),
                ("dbg_rec_cnt", packed(&p.5, 6)),
                ("issue_valid", 0),
            ],
            None => vec![],
        };
        let inputs = match steps.get(k) {
            Some(st) => vec![
                ("exit", slots(st.0)),
                ("launch", slots(st.1)),
                ("mem_complete", slots(st.2)),
            ],
            None => vec![],
        };
        b = b.cycle(&inputs, &expect);
    }
    b.done()
}

/// LH §4.3 saturation/tie case (S9): counters saturate at 63; a tie at 63 evicts the lowest
/// slot.
fn vector_c_saturation() -> SpecVector {
    let cpl = |w: usize| [("mem_complete", 1u64 << w)];
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §4.3 saturation and tie (S9)",
        6,
        1,
        "motrr-recency",
    )
    .reset()
    .launch(0b111111)
    .cycle(&cpl(0), &[])
    .cycle(&cpl(2), &[])
    .cycle(&cpl(1), &[]);
    b = b.cycle(
        &cpl(1),
        &[
            ("dbg_recent", slots("111000")),
            ("dbg_rec_cnt", packed(&[2, 0, 1, 63, 63, 63], 6)),
        ],
    );
    for _ in 1..70 {
        b = b.cycle(&cpl(1), &[]);
    }
    b.cycle(
        &cpl(3),
        &[
            ("dbg_recent", slots("111000")),
            ("dbg_rec_cnt", packed(&[63, 0, 63, 63, 63, 63], 6)),
        ],
    )
    .cycle(
        &[],
        &[
            ("dbg_recent", slots("011100")),
            ("dbg_rec_cnt", packed(&[63, 1, 63, 0, 63, 63], 6)),
        ],
    )
    .done()
}

/// LH §4.3b Vector E (MOTRR, 3 warps): `mem_order` and `split_ptr` (G1, G2, S11).
fn vector_e(knob: &str) -> SpecVector {
    let rows: [(&str, &str, bool); 7] = [
        ("MMC", "011", true),
        ("MMC", "111", true),
        ("MCM", "111", true),
        ("CCC", "001", true),
        ("MCM", "111", true),
        ("MCM", "111", true),
        ("MCC", "111", false),
    ];
    let column: [u64; 7] = match knob {
        "mem_order=oldest" => [1, 0, 0, 2, 0, 0, 1],
        "split_ptr=true" => [1, 1, 0, 2, 0, 0, 1],
        _ => [1, 1, 0, 2, 2, 2, 1],
    };
    let mut b = Vb::new(
        &format!("latency_hiding_scheduler.md §4.3b vector E ({knob})"),
        3,
        1,
        "motrr",
    );
    if knob != "defaults" {
        b = b.set(knob);
    }
    b = b.reset().launch(0b111);
    for (k, (class, ready, mem_ok)) in rows.iter().enumerate() {
        let bitsof = |want: char| {
            class
                .chars()
                .enumerate()
                .fold(0u64, |m, (j, c)| if c == want { m | 1 << j } else { m })
        };
        let (comp, mem) = (bitsof('C'), bitsof('M'));
        let unit_free = comp | if *mem_ok { mem } else { 0 };
        let w = column[k];
        b = b.cycle(
            &[
                ("has_inst", comp | mem),
                ("ready", slots(ready)),
                ("unit_free", unit_free),
                ("is_mem", mem),
            ],
            &[
                ("issue_valid", 1),
                ("issue_slot", w),
                ("issue_is_mem", mem >> w & 1),
            ],
        );
        if knob == "split_ptr=true" && k == 4 {
            b = b.also(&[
                ("dbg_last_valid", 1),
                ("dbg_last_issued", 0),
                ("dbg_cmp_last_valid", 1),
                ("dbg_cmp_last_issued", 2),
            ]);
        }
    }
    b.done()
}

/// LH §4.4 Vector D: the closed-loop programs W0 CCM, W1 CCM, W2 CCCM, W3 MCMM (latency 6).
/// The inputs follow from the expected issue column (walked here, not by running a model).
fn vector_d(policy: &str, trigger_issue: bool) -> SpecVector {
    let programs = ["CCM", "CCM", "CCCM", "MCMM"];
    let (column, runtime) = match policy {
        "lrr" => (
            "W0.C W1.C W2.C W3.M W0.C W1.C W2.C W0.M W1.M W2.C W3.C W2.M W3.M - - - - - W3.M",
            24,
        ),
        "gto" => (
            "W0.C W0.C W0.M W1.C W1.C W1.M W2.C W2.C W2.C W2.M W3.M - - - - - W3.C W3.M - - - - - W3.M",
            29,
        ),
        "mto" => (
            "W3.M W0.C W0.C W0.M W1.C W1.C W1.M W2.C W2.C W2.C W2.M W3.C W3.M - - - - - W3.M",
            24,
        ),
        "motrr" => (
            "W3.M W0.C W1.C W2.C W0.C W0.M W1.C W1.M W2.C W3.C W3.M W2.C W2.M - - - W3.M",
            22,
        ),
        _ => (
            "W3.M W0.C W1.C W2.C W0.C W0.M W3.C W3.M W1.C W1.M W2.C W2.C W2.M W3.M",
            19,
        ),
    };
    let issues: Vec<Option<(usize, char)>> = column
        .split_whitespace()
        .map(|t| {
            (t != "-").then(|| {
                let w = t[1..2].parse::<usize>().unwrap();
                (w, t.chars().last().unwrap())
            })
        })
        .collect();
    // MOTRR+R: R after each cycle (a change at the listed cycle, kept until the next).
    let r_changes: &[(usize, &str)] = if trigger_issue {
        &[
            (0, "0001"),
            (5, "1001"),
            (9, "0101"),
            (12, "0110"),
            (13, "0011"),
        ]
    } else {
        &[
            (5, "0001"),
            (10, "1001"),
            (14, "0101"),
            (17, "0110"),
            (18, "0011"),
        ]
    };
    let recency = policy == "motrr-recency";
    let name = if trigger_issue {
        format!("latency_hiding_scheduler.md §4.4 vector D ({policy}, rec_trigger=issue, S11)")
    } else {
        format!("latency_hiding_scheduler.md §4.4 vector D ({policy})")
    };
    let mut b = Vb::new(&name, 4, 1, policy);
    if trigger_issue {
        b = b.set("rec_trigger=issue");
    }
    b = b.reset().launch(0b1111);
    let mut pc = [0usize; 4];
    let mut rdy = [0usize; 4];
    let mut mem_issue_at: Vec<(usize, usize)> = vec![];
    let mut r_after = 0u64;
    for t in 0..runtime {
        let mut has_inst = 0u64;
        let mut is_mem = 0u64;
        let mut ready = 0u64;
        for k in 0..4 {
            if pc[k] < programs[k].len() {
                has_inst |= 1 << k;
                if programs[k].as_bytes()[pc[k]] == b'M' {
                    is_mem |= 1 << k;
                }
            }
            if t >= rdy[k] {
                ready |= 1 << k;
            }
        }
        let cpl = mem_issue_at
            .iter()
            .filter(|&&(at, _)| at + 5 == t)
            .fold(0u64, |m, &(_, k)| m | 1 << k);
        let mut inputs = vec![
            ("has_inst", has_inst),
            ("ready", ready),
            ("unit_free", 0b1111),
            ("is_mem", is_mem),
        ];
        if recency && !trigger_issue {
            inputs.push(("mem_complete", cpl));
        }
        let issue = issues.get(t).copied().flatten();
        let mut expect = match issue {
            Some((w, class)) => {
                assert!(
                    (has_inst & ready) >> w & 1 != 0 && (is_mem >> w & 1 == 1) == (class == 'M'),
                    "vector D ({policy}) cycle {t}: W{w}.{class} cannot issue"
                );
                pc[w] += 1;
                rdy[w] = if class == 'M' {
                    mem_issue_at.push((t, w));
                    t + 6
                } else {
                    t + 1
                };
                vec![
                    ("issue_valid", 1),
                    ("issue_slot", w as u64),
                    ("issue_is_mem", (class == 'M') as u64),
                ]
            }
            None => vec![("issue_valid", 0)],
        };
        if recency {
            expect.push(("dbg_recent", r_after));
        }
        b = b.cycle(&inputs, &expect);
        if let Some(&(_, r)) = r_changes.iter().find(|&&(c, _)| c == t) {
            r_after = slots(r);
        }
    }
    let last_completion = mem_issue_at.iter().map(|&(at, _)| at + 5).max().unwrap();
    assert_eq!(last_completion + 1, runtime, "vector D ({policy}) runtime");
    if recency {
        b = b.cycle(&[], &[("dbg_recent", r_after), ("issue_valid", 0)]);
    }
    b.done()
}

/// LH G17: MTO's compute queue, greedy then oldest (default) or oldest only.
fn mto_comp_order(order: &str) -> SpecVector {
    let comp = |ready: &str| {
        [
            ("has_inst", 0b111),
            ("unit_free", 0b111),
            ("ready", slots(ready)),
        ]
    };
    let x = |w: u64| [("issue_valid", 1), ("issue_slot", w), ("issue_is_mem", 0)];
    let greedy = order == "gto";
    Vb::new(
        &format!("latency_hiding_scheduler.md G17 mto_comp_order={order}"),
        3,
        1,
        "mto",
    )
    .set(&format!("mto_comp_order={order}"))
    .reset()
    .launch(0b111)
    .cycle(&comp("011"), &x(1))
    .cycle(&comp("111"), &x(if greedy { 1 } else { 0 }))
    .cycle(&comp("101"), &x(0))
    .cycle(&comp("111"), &x(0))
    .done()
}

/// LH S8: W_active = 1 keeps R empty; W_active = 5 (odd) allows 2 recent warps, the latest.
fn s8_cap_edge() -> SpecVector {
    let cpl = |w: usize| [("mem_complete", 1u64 << w)];
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §7.3 S8 cap edge",
        6,
        1,
        "motrr-recency",
    )
    .reset()
    .launch(0b000001);
    for _ in 0..3 {
        b = b.cycle(&cpl(0), &[]);
    }
    b = b.cycle(
        &[("launch", slots("011110"))],
        &[
            ("dbg_recent", 0),
            ("dbg_rec_cnt", packed(&[0, 63, 63, 63, 63, 63], 6)),
            ("dbg_w_active", 1),
        ],
    );
    let mut recent: Vec<usize> = vec![];
    for w in 0..5 {
        let r = recent.iter().fold(0u64, |m, &x| m | 1 << x);
        b = b.cycle(&cpl(w), &[("dbg_recent", r), ("dbg_w_active", 5)]);
        recent.push(w);
        if recent.len() > 2 {
            recent.remove(0);
        }
    }
    let r = recent.iter().fold(0u64, |m, &x| m | 1 << x);
    b.cycle(&[], &[("dbg_recent", r)]).done()
}

/// LH S10: two schedulers share one Recency Register; the cap is SM-wide (48 warps: 24).
fn s10_shared_register() -> SpecVector {
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §7.3 S10 shared recency register",
        48,
        2,
        "motrr-recency",
    )
    .reset()
    .launch(low_bits(48));
    let mut recent: Vec<usize> = vec![];
    for w in 0..48 {
        let r = recent.iter().fold(0u64, |m, &x| m | 1 << x);
        b = b.cycle(&[("mem_complete", 1u64 << w)], &[("dbg_recent", r)]);
        recent.push(w);
        if recent.len() > 24 {
            // The oldest event has the largest count: an odd slot's event evicts an even
            // slot (and vice versa).
            recent.remove(0);
        }
    }
    let r = recent.iter().fold(0u64, |m, &x| m | 1 << x);
    b.cycle(&[], &[("dbg_recent", r), ("dbg_w_active", 48)])
        .done()
}

/// LH S11: `split_ptr=true` leaves LRR and GTO untouched (Vectors A and B unchanged).
fn split_ptr_leaves_baselines(policy: &str) -> Vec<SpecVector> {
    [vector_a(policy), vector_b(policy)]
        .into_iter()
        .map(|mut v| {
            v.name = format!("{} with split_ptr=true (S11)", v.name);
            v.sets.push("split_ptr=true".into());
            v
        })
        .collect()
}

/// The vectors of the latency-hiding policies.
fn lh_vectors() -> Vec<SpecVector> {
    let mut v = vec![];
    for p in ["mto", "motrr", "motrr-recency"] {
        v.push(vector_b_class_split(p));
    }
    v.push(vector_c());
    v.push(vector_c_saturation());
    for k in ["defaults", "mem_order=oldest", "split_ptr=true"] {
        v.push(vector_e(k));
    }
    for p in ["lrr", "gto", "mto", "motrr", "motrr-recency"] {
        v.push(vector_d(p, false));
    }
    v.push(vector_d("motrr-recency", true));
    v.push(s8_cap_edge());
    v.push(mto_comp_order("gto"));
    v.push(mto_comp_order("oldest"));
    v.push(s10_shared_register());
    for p in ["lrr", "gto"] {
        v.extend(split_ptr_leaves_baselines(p));
    }
    v
}

/// `launch_tb` with field `w` = `tb(w)` (`tbb` bits each), one word.
fn tb_fields(warps: usize, tbb: usize, tb: impl Fn(usize) -> u64) -> u64 {
    (0..warps).fold(0, |m, w| m | tb(w) << (w * tbb))
}

/// BAR §6.1 setup: 12 warps, 3 CTAs of 4 (TB0 = w0–3, TB1 = w4–7, TB2 = w8–11), one scheduler.
fn bar_setup(name: &str) -> Vb {
    let launch_tb = tb_fields(12, 3, |w| (w / 4) as u64);
    assert_eq!(launch_tb, 0x4_9224_9000);
    Vb::new(name, 12, 1, "bar-gto").set("ctas=8").reset().cycle(
        &[("launch", 0xfff), ("launch_tb", launch_tb)],
        &[("issue_valid", 0)],
    )
}

/// BAR §6.1 event of one row: (event warp, what it does).
#[derive(Clone, Copy)]
enum BarEvent {
    Bar(usize),
    Exit(usize),
    Issue(usize),
    None,
}

/// Drive one §6.1 row's event: the event warp is the only ready warp.
fn bar_event(b: Vb, ev: BarEvent, expect: &[(&'static str, u64)]) -> Vb {
    let base = [("has_inst", 0xfff), ("unit_free", 0xfff)];
    let mut inputs: Vec<(&'static str, u64)> = base.to_vec();
    let mut exp: Vec<(&'static str, u64)> = expect.to_vec();
    match ev {
        BarEvent::Bar(w) => {
            inputs.extend([("ready", 1 << w), ("is_bar", 1 << w)]);
            exp.extend([("issue_valid", 1), ("issue_slot", w as u64)]);
        }
        BarEvent::Exit(w) => {
            inputs.extend([("ready", 1 << w), ("exit", 1 << w)]);
            exp.extend([("issue_valid", 1), ("issue_slot", w as u64)]);
        }
        BarEvent::Issue(w) => {
            inputs.push(("ready", 1 << w));
            exp.extend([("issue_valid", 1), ("issue_slot", w as u64)]);
        }
        BarEvent::None => exp.push(("issue_valid", 0)),
    }
    b.cycle(&inputs, &exp)
}

/// One probe cycle of a priority list: every warp ready except the first `j` of `list`.
fn bar_probe(b: Vb, list: &[usize], j: usize) -> Vb {
    let skip = list[..j].iter().fold(0u64, |m, &w| m | 1 << w);
    let expect = match list.get(j) {
        Some(&w) => vec![("issue_valid", 1), ("issue_slot", w as u64)],
        None => vec![("issue_valid", 0)],
    };
    b.cycle(
        &[
            ("has_inst", 0xfff),
            ("unit_free", 0xfff),
            ("ready", 0xfff & !skip),
        ],
        &expect,
    )
}

/// The rows of BAR §6.1: event, (cnt, live) per TB at the start, waiting at the start,
/// priority list, bar_release of the row.
type BarRow = (
    BarEvent,
    [u64; 3],
    [u64; 3],
    &'static [usize],
    &'static [usize],
    u64,
);

const BAR_ROWS: [BarRow; 9] = [
    (
        BarEvent::Bar(5),
        [0, 0, 0],
        [4, 4, 4],
        &[],
        &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
        0,
    ),
    (
        BarEvent::Bar(9),
        [0, 1, 0],
        [4, 4, 4],
        &[5],
        &[4, 6, 7, 0, 1, 2, 3, 8, 9, 10, 11],
        0,
    ),
    (
        BarEvent::Bar(10),
        [0, 1, 1],
        [4, 4, 4],
        &[5, 9],
        &[4, 6, 7, 8, 10, 11, 0, 1, 2, 3],
        0,
    ),
    (
        BarEvent::Bar(8),
        [0, 1, 2],
        [4, 4, 4],
        &[5, 9, 10],
        &[8, 11, 4, 6, 7, 0, 1, 2, 3],
        0,
    ),
    (
        BarEvent::Bar(11),
        [0, 1, 3],
        [4, 4, 4],
        &[5, 8, 9, 10],
        &[11, 4, 6, 7, 0, 1, 2, 3],
        0b100,
    ),
    (
        BarEvent::Exit(4),
        [0, 1, 0],
        [4, 4, 4],
        &[5],
        &[4, 6, 7, 0, 1, 2, 3, 11, 8, 9, 10],
        0,
    ),
    (
        BarEvent::Bar(6),
        [0, 1, 0],
        [4, 3, 4],
        &[5],
        &[6, 7, 0, 1, 2, 3, 8, 9, 10, 11],
        0,
    ),
    (
        BarEvent::Exit(7),
        [0, 2, 0],
        [4, 3, 4],
        &[5, 6],
        &[7, 0, 1, 2, 3, 8, 9, 10, 11],
        0b010,
    ),
    (
        BarEvent::None,
        [0, 0, 0],
        [4, 2, 4],
        &[],
        &[0, 1, 2, 3, 5, 6, 8, 9, 10, 11],
        0,
    ),
];

/// Drive rows 0 … r−1 of §6.1 with their state checks.
fn bar_rows(mut b: Vb, r: usize) -> Vb {
    for (ev, cnt, live, waiting, _, release) in BAR_ROWS.iter().take(r) {
        let f = |v: &[u64; 3]| v.iter().enumerate().fold(0, |m, (t, &c)| m | c << (4 * t));
        let has_waiter = cnt
            .iter()
            .enumerate()
            .fold(0, |m, (t, &c)| m | ((c != 0) as u64) << t);
        b = bar_event(
            b,
            *ev,
            &[
                ("dbg_bar_cnt", f(cnt)),
                ("dbg_bar_live", f(live)),
                ("tb_has_waiter", has_waiter),
                ("dbg_waiting", waiting.iter().fold(0, |m, &w| m | 1 << w)),
                ("bar_release", *release),
            ],
        );
    }
    b
}

/// BAR §6.1 (T2): the event sequence with its table state, then every row's whole priority
/// list (one vector per list position) and the greedy-within-TB checks.
fn bar_ordering() -> Vec<SpecVector> {
    let mut v = vec![bar_rows(
        bar_setup("barrier.md §6.1 ordering: events, barrier table, releases"),
        BAR_ROWS.len(),
    )
    .done()];
    for (r, row) in BAR_ROWS.iter().enumerate() {
        let list = row.4;
        for j in 0..=list.len() {
            let name = format!("barrier.md §6.1 ordering: row {r} priority position {j}");
            v.push(bar_probe(bar_rows(bar_setup(&name), r), list, j).done());
        }
    }
    let greedy: [(&str, &[BarEvent], &[usize]); 3] = [
        (
            "last_issued w2",
            &[BarEvent::Issue(2)],
            &[2, 0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11],
        ),
        (
            "last_issued w6 (greedy does not jump TB0)",
            &[BarEvent::Issue(6)],
            &[0, 1, 2, 3, 6, 4, 5, 7, 8, 9, 10, 11],
        ),
        (
            "w8 waiting, last_issued w1",
            &[BarEvent::Bar(8), BarEvent::Issue(1)],
            &[9, 10, 11, 1, 0, 2, 3, 4, 5, 6, 7],
        ),
    ];
    for (what, events, list) in greedy {
        for j in 0..=list.len() {
            let name = format!("barrier.md §6.1 greedy within TB: {what}, position {j}");
            let mut b = bar_setup(&name);
            for &e in events {
                b = bar_event(b, e, &[]);
            }
            v.push(bar_probe(b, list, j).done());
        }
    }
    v
}

/// BAR §6.2 (T2): two schedulers, same-cycle arrivals of one CTA (TB1 = w4–7).
fn bar_simultaneous(variant: bool) -> SpecVector {
    let launch_tb = tb_fields(8, 3, |w| (w >= 4) as u64);
    assert_eq!(launch_tb, 0x24_9000);
    let all = 0xffu64;
    let pair = |a: u64, b: u64| a | b << 3;
    let bar = |m: u64| {
        [
            ("has_inst", all),
            ("unit_free", all),
            ("ready", m),
            ("is_bar", m),
        ]
    };
    let name = if variant {
        "barrier.md §6.2 simultaneous arrivals (variant: w6 and w5 together, then w7)"
    } else {
        "barrier.md §6.2 simultaneous arrivals (w6 and w7 complete the barrier)"
    };
    let b = Vb::new(name, 8, 2, "bar-gto").reset().cycle(
        &[("launch", all), ("launch_tb", launch_tb)],
        &[("issue_valid", 0)],
    );
    let bits = |ws: &[usize]| ws.iter().fold(0u64, |m, &w| m | 1 << w);
    if !variant {
        b.cycle(
            &bar(bits(&[4, 5])),
            &[
                ("issue_valid", 0b11),
                ("issue_slot", pair(4, 5)),
                ("bar_release", 0),
            ],
        )
        .cycle(
            &bar(bits(&[6, 7])),
            &[
                ("issue_valid", 0b11),
                ("issue_slot", pair(6, 7)),
                ("dbg_bar_cnt", 2 << 4),
                ("dbg_waiting", bits(&[4, 5])),
                ("bar_release", 0b10),
            ],
        )
        .cycle(
            &[
                ("has_inst", all),
                ("unit_free", all),
                ("ready", bits(&[4, 5])),
            ],
            &[
                ("issue_valid", 0b11),
                ("issue_slot", pair(4, 5)),
                ("dbg_bar_cnt", 0),
                ("dbg_waiting", 0),
                ("tb_has_waiter", 0),
            ],
        )
        .done()
    } else {
        b.cycle(
            &bar(bits(&[4])),
            &[("issue_valid", 0b01), ("issue_slot", pair(4, 0))],
        )
        .cycle(
            &bar(bits(&[6, 5])),
            &[
                ("issue_valid", 0b11),
                ("issue_slot", pair(6, 5)),
                ("dbg_bar_cnt", 1 << 4),
                ("bar_release", 0),
            ],
        )
        .cycle(
            &bar(bits(&[7])),
            &[
                ("issue_valid", 0b10),
                ("issue_slot", pair(0, 7)),
                ("dbg_bar_cnt", 3 << 4),
                ("tb_has_waiter", 0b10),
                ("bar_release", 0b10),
            ],
        )
        .cycle(
            &[],
            &[("dbg_bar_cnt", 0), ("dbg_waiting", 0), ("tb_has_waiter", 0)],
        )
        .done()
    }
}

/// BAR T3: no waiters: the lowest CTA slot first (even if younger), GTO inside it.
fn bar_t3() -> SpecVector {
    let launch_tb = tb_fields(8, 2, |w| if w < 4 { 2 } else { 1 });
    let all = [("has_inst", 0xff), ("unit_free", 0xff), ("ready", 0xff)];
    Vb::new(
        "barrier.md T3 no barriers: lowest CTA slot first",
        8,
        1,
        "bar-gto",
    )
    .set("ctas=4")
    .reset()
    .cycle(&[("launch", 0xff), ("launch_tb", launch_tb)], &[])
    .cycle(&all, &[("issue_valid", 1), ("issue_slot", 4)])
    .cycle(&all, &[("issue_valid", 1), ("issue_slot", 4)])
    .cycle(
        &[("has_inst", 0xff), ("unit_free", 0xff), ("ready", 0xef)],
        &[("issue_valid", 1), ("issue_slot", 5)],
    )
    .cycle(
        &[("has_inst", 0xff), ("unit_free", 0xff), ("ready", 0x0f)],
        &[("issue_valid", 1), ("issue_slot", 0)],
    )
    .done()
}

/// BAR T4 (one-warp CTA releases at once) and T5 (exits between barriers leave no stuck
/// waiter; the last exit releases).
fn bar_t4_t5() -> Vec<SpecVector> {
    let e = |ready: u64, is_bar: u64, exit: u64| {
        [
            ("has_inst", 0xf),
            ("unit_free", 0xf),
            ("ready", ready),
            ("is_bar", is_bar),
            ("exit", exit),
        ]
    };
    let t4 = Vb::new("barrier.md T4 one-warp CTA", 4, 1, "bar-gto")
        .set("ctas=4")
        .reset()
        .cycle(&[("launch", 0xf), ("launch_tb", 0b01_01_01_00)], &[])
        .cycle(
            &e(0b0001, 0b0001, 0),
            &[("issue_valid", 1), ("issue_slot", 0), ("bar_release", 0b01)],
        )
        .cycle(
            &e(0b0001, 0, 0),
            &[
                ("issue_valid", 1),
                ("issue_slot", 0),
                ("dbg_waiting", 0),
                ("dbg_bar_cnt", 0),
                ("dbg_bar_live", 1 | 3 << 3),
                ("tb_has_waiter", 0),
            ],
        )
        .done();
    let t5 = Vb::new("barrier.md T5 exits between barriers", 4, 1, "bar-gto")
        .set("ctas=4")
        .reset()
        .cycle(&[("launch", 0xf), ("launch_tb", 0)], &[])
        .cycle(
            &e(0b0001, 0b0001, 0),
            &[("issue_slot", 0), ("bar_release", 0)],
        )
        .cycle(
            &e(0b0010, 0, 0b0010),
            &[("issue_slot", 1), ("bar_release", 0)],
        )
        .cycle(&e(0, 0, 0b0100), &[("issue_valid", 0), ("bar_release", 0)])
        .cycle(
            &e(0, 0, 0b1000),
            &[
                ("issue_valid", 0),
                ("dbg_bar_cnt", 1),
                ("dbg_bar_live", 2),
                ("dbg_waiting", 0b0001),
                ("bar_release", 0b0001),
            ],
        )
        .cycle(
            &e(0b0001, 0, 0b0001),
            &[
                ("issue_valid", 1),
                ("issue_slot", 0),
                ("dbg_bar_cnt", 0),
                ("dbg_bar_live", 1),
                ("dbg_waiting", 0),
            ],
        )
        .cycle(
            &[("launch", 0b0100), ("launch_tb", 3 << 4)],
            &[
                ("dbg_bar_live", 0),
                ("dbg_resident", 0),
                ("tb_has_waiter", 0),
            ],
        )
        .cycle(&[], &[("dbg_bar_live", 1 << 9), ("dbg_warp_tb", 3 << 4)])
        .done();
    vec![t4, t5]
}

/// BAR T1 on the GTO vectors: `bar-gto` with `bar_sched_en=false` gives GTO's answers.
fn bar_off_is_gto() -> Vec<SpecVector> {
    [
        vector_a("gto"),
        vector_b("gto"),
        s3_gto_stickiness(),
        s5_age_not_slot(),
    ]
    .into_iter()
    .map(|mut v| {
        v.name = format!("{} as bar-gto with bar_sched_en=false (BAR T1)", v.name);
        for s in v.sets.iter_mut() {
            if s == "policy=gto" {
                *s = "policy=bar-gto".into();
            }
        }
        v.sets.push("bar_sched_en=false".into());
        v
    })
    .collect()
}

/// The vectors of the barrier-aware policy.
fn bar_vectors() -> Vec<SpecVector> {
    let mut v = bar_ordering();
    v.push(bar_simultaneous(false));
    v.push(bar_simultaneous(true));
    v.push(bar_t3());
    v.extend(bar_t4_t5());
    v.extend(bar_off_is_gto());
    v
}
