//! The `warp-sched` cycle model.

use super::*;

#[derive(Clone, Copy, Debug)]
pub(super) struct InPorts {
    pub(super) reset: usize,
    pub(super) has_inst: usize,
    pub(super) ready: usize,
    pub(super) unit_free: usize,
    pub(super) is_mem: usize,
    pub(super) launch: usize,
    pub(super) exit: usize,
    pub(super) mem_complete: Option<usize>,
    pub(super) cpl_global: Option<usize>,
    pub(super) is_global: Option<usize>,
    pub(super) is_bar: Option<usize>,
    /// Word offset of `launch_tb` (W·tbb bits, several words).
    pub(super) launch_tb: Option<usize>,
}

impl InPorts {
    pub(super) fn new(l: &Layout) -> InPorts {
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
pub(super) struct OutPorts {
    pub(super) issue_valid: usize,
    pub(super) issue_slot: usize,
    pub(super) issue_is_mem: usize,
    pub(super) dbg_resident: usize,
    pub(super) dbg_last_valid: usize,
    pub(super) dbg_last_issued: usize,
    pub(super) dbg_greedy_valid: usize,
    pub(super) dbg_older: usize,
    pub(super) dbg_older_words: usize,
    pub(super) bar_release: Option<usize>,
    pub(super) tb_has_waiter: Option<usize>,
    pub(super) dbg_cmp_last_valid: Option<usize>,
    pub(super) dbg_cmp_last_issued: Option<usize>,
    pub(super) dbg_cmp_greedy_valid: Option<usize>,
    pub(super) dbg_recent: Option<usize>,
    pub(super) dbg_rec_cnt: Option<(usize, usize)>,
    pub(super) dbg_w_active: Option<usize>,
    pub(super) dbg_waiting: Option<usize>,
    pub(super) dbg_warp_tb: Option<(usize, usize)>,
    pub(super) dbg_bar_cnt: Option<(usize, usize)>,
    pub(super) dbg_bar_live: Option<(usize, usize)>,
}

impl OutPorts {
    pub(super) fn new(l: &Layout) -> OutPorts {
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
pub(super) struct Pointer {
    pub(super) last_valid: bool,
    pub(super) last_issued: usize,
    pub(super) greedy_valid: bool,
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
pub(super) struct LastCycle {
    pub(super) stepped: bool,
    pub(super) reset: bool,
    pub(super) eligible: u64,
    pub(super) is_mem: u64,
    pub(super) launch: u64,
    pub(super) exit: u64,
    pub(super) resident: u64,
    /// `order_before` is valid (the order changed at the edge).
    pub(super) order_changed: bool,
    pub(super) order_before: Vec<u8>,
    pub(super) pointers: Vec<Pointer>,
    pub(super) cmp_pointers: Vec<Pointer>,
    pub(super) picks: Vec<Option<usize>>,
    pub(super) issue_is_mem: u64,
    pub(super) recent: u64,
    /// Recency events applied at the edge.
    pub(super) events: u64,
    pub(super) waiting: u64,
    pub(super) warp_tb: Vec<u8>,
    pub(super) bar_cnt: [u8; 16],
    pub(super) release: u64,
}

/// The cycle model of `warp-sched`.
#[derive(Clone, Debug)]
pub struct WarpSchedModel {
    pub(super) cfg: WarpSchedConfig,
    pub(super) policy: IssuePolicy,
    pub(super) split: bool,
    pub(super) slot_bits: usize,
    pub(super) all: u64,
    /// Per scheduler: the slots it supervises.
    pub(super) supervised: Vec<u64>,
    /// Per scheduler: its slots ascending (for the independent rotation checks).
    pub(super) supervised_list: Vec<Vec<usize>>,
    pub(super) inp: InPorts,
    pub(super) out: OutPorts,
    pub(super) resident: u64,
    /// Resident slots, oldest warp first.
    pub(super) order: Vec<u8>,
    /// Per scheduler the pointer P (with split pointers: the memory pointer Pm).
    pub(super) pointers: Vec<Pointer>,
    /// Per scheduler the compute pointer Pc (split pointers only).
    pub(super) cmp_pointers: Vec<Pointer>,
    pub(super) picks: Vec<Option<usize>>,
    /// Packed `dbg_older`, rebuilt from `order` when residency changes.
    pub(super) older_image: Vec<u64>,
    pub(super) older_dirty: bool,
    // Recency Register (motrr-recency).
    pub(super) cnt_max: u8,
    pub(super) recent: u64,
    pub(super) cnt: [u8; 64],
    /// Model-only bookkeeping for I11/I12: the number of the latest event of each slot since
    /// its launch (0 = none) and the number of events so far.
    pub(super) ev_seq: [u64; 64],
    pub(super) ev_total: u64,
    // Barrier table (bar-gto).
    pub(super) waiting: u64,
    pub(super) warp_tb: [u8; 64],
    /// Resident slots of each CTA slot.
    pub(super) tb_members: [u64; 16],
    pub(super) bar_cnt: [u8; 16],
    pub(super) bar_live: [u8; 16],
    pub(super) last: LastCycle,
    pub(super) corners: Corners,
    pub(super) fault: Option<WarpSchedFault>,
    pub(super) cycle: u64,
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

    pub(super) fn rebuild_older(&mut self) {
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
    pub(super) fn rot(p: Pointer, x: u64) -> Option<usize> {
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
    pub(super) fn old(&self, x: u64) -> Option<usize> {
        if x == 0 {
            return None;
        }
        self.order
            .iter()
            .map(|&w| w as usize)
            .find(|&w| x >> w & 1 != 0)
    }

    /// `gto(P, X)`: the greedy warp if it is in X, else the oldest of X.
    pub(super) fn gto(&self, p: Pointer, x: u64) -> Option<usize> {
        if p.last_valid && p.greedy_valid && x >> p.last_issued & 1 != 0 {
            return Some(p.last_issued);
        }
        self.old(x)
    }

    pub(super) fn cmp_pointer(&self, s: usize) -> Pointer {
        if self.split {
            self.cmp_pointers[s]
        } else {
            self.pointers[s]
        }
    }

    /// This scheduler's pick among `elig` (already restricted to its slots).
    pub(super) fn pick(&self, s: usize, elig: u64, is_mem: u64) -> Option<usize> {
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
    pub(super) fn best_cta(&self, elig: u64) -> Option<usize> {
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
    pub(super) fn u4(&mut self, w_active: usize) -> u32 {
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
    pub(super) fn recency_event(&mut self, e: usize, w_active: usize) {
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

    pub(super) fn reset_state(&mut self) {
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
    pub(super) fn write_state(&mut self, outputs: &mut [u64]) {
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
    pub(super) fn count_pick_corners(&mut self, eligible: u64, is_mem: u64, ready_heads: u64) {
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
    pub(super) fn check_state(&self) -> Result<(), String> {
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
    pub(super) fn check_recency_state(&self) -> Result<(), String> {
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
    pub(super) fn check_barrier_state(&self) -> Result<(), String> {
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
    pub(super) fn check_edge(&self) -> Result<(), String> {
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
    pub(super) fn check_picks(&self) -> Result<(), String> {
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
