//! The two regrouping tables as plain structs ([`ReadyLookup`], [`WaitingLookup`]) and the
//! port-level model of `crown-lookup` that drives one of them.

use super::ports::{InPorts, OutPorts};
use crate::words::{get, or_seq, set};
use crate::Model;
use warpforge_contract::units::crown::Warp;
use warpforge_contract::units::crown_lookup::{LookupConfig, LookupKind};
use warpforge_contract::Layout;

/// A deliberate table bug, to show that lockstep and the invariants catch wrong behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookupFault {
    /// A merge picks the highest-index compatible row instead of the lowest (A9).
    HighestRow,
    /// The draining head is still a merge target.
    MergeIntoDrained,
    /// Merges ignore the CTA tag (A14 `merge_scope = cta` not honoured).
    CtaBlind,
}

/// One row. `seq` orders the rows eligible for draining (smaller = older); `None` for a row
/// that is not eligible (a Waiting Lookup row still pending, or an invalid row).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Row {
    pub valid: bool,
    pub pc: u64,
    pub lanes: u64,
    pub thi: Vec<u64>,
    pub pending: u64,
    pub seq: Option<u64>,
}

impl Row {
    fn empty(w: usize) -> Row {
        Row {
            thi: vec![0; w],
            ..Row::default()
        }
    }
    pub fn warp(&self) -> Warp {
        Warp {
            pc: self.pc,
            lanes: self.lanes,
            thi: self.thi.clone(),
        }
    }
}

/// The rows both kinds share, with drain-order ranks and the checks of §7.1.
#[derive(Clone, Debug)]
struct Rows {
    w: usize,
    /// Thread indices per lane (N / w).
    per_lane: usize,
    pc_mask: u64,
    /// The thread-index bits naming a CTA (A14; 0 = merge across CTAs, the thesis's rule).
    cta_mask: u64,
    rows: Vec<Row>,
    next_seq: u64,
}

impl Rows {
    fn new(cfg: &LookupConfig) -> Rows {
        Rows {
            w: cfg.w(),
            per_lane: 1 << cfg.thi_bits(),
            pc_mask: (1u64 << cfg.pc_bits()) - 1,
            cta_mask: 0,
            rows: vec![Row::empty(cfg.w()); cfg.rows],
            next_seq: 0,
        }
    }
    fn reset(&mut self) {
        let w = self.w;
        self.rows.iter_mut().for_each(|r| *r = Row::empty(w));
    }
    fn stamp(&mut self) -> Option<u64> {
        self.next_seq += 1;
        Some(self.next_seq)
    }
    /// The eligible row with the smallest `seq`.
    fn head(&self) -> Option<usize> {
        (0..self.rows.len())
            .filter(|&r| self.rows[r].valid && self.rows[r].seq.is_some())
            .min_by_key(|&r| self.rows[r].seq)
    }
    /// Row `r`'s rank among the eligible rows (0 for one that is not eligible).
    fn ord(&self, r: usize) -> usize {
        match (self.rows[r].valid, self.rows[r].seq) {
            (true, Some(s)) => self
                .rows
                .iter()
                .filter(|o| o.valid && o.seq.is_some_and(|t| t < s))
                .count(),
            _ => 0,
        }
    }
    /// A warp's CTA tag: `thi & cta_mask` of its lanes, ORed (one value when the warp is of one
    /// CTA; 0 for every warp when the mask is 0).
    fn tag(&self, thi: &[u64], lanes: u64) -> u64 {
        if self.cta_mask == 0 {
            return 0;
        }
        let mut t = 0;
        for (l, x) in thi.iter().enumerate().take(self.w) {
            if lanes >> l & 1 == 1 {
                t |= x;
            }
        }
        t & self.cta_mask
    }
    /// A row at `v`'s PC with room for some of its lanes is of another CTA (coverage).
    fn kept_apart(&self, v: &Warp) -> bool {
        let vt = self.tag(&v.thi, v.lanes);
        (0..self.rows.len()).any(|r| {
            let row = &self.rows[r];
            row.valid && row.pc == v.pc && v.lanes & !row.lanes != 0 && self.row_tag(r) != vt
        })
    }
    fn row_tag(&self, r: usize) -> u64 {
        self.tag(&self.rows[r].thi, self.rows[r].lanes)
    }
    fn free_row(&self) -> Option<usize> {
        self.rows.iter().position(|r| !r.valid)
    }
    fn count(&self) -> usize {
        self.rows.iter().filter(|r| r.valid).count()
    }
    /// Clear row `r` in place (no allocation: this runs every drain) and return its warp.
    fn free(&mut self, r: usize) -> Warp {
        let row = &mut self.rows[r];
        let warp = row.warp();
        row.thi.iter_mut().for_each(|t| *t = 0);
        (row.valid, row.pc, row.lanes, row.pending, row.seq) = (false, 0, 0, 0, None);
        warp
    }
    /// Fill the free row `r` with the lanes `lanes` of `v` (thi zero elsewhere).
    fn fill(&mut self, r: usize, v: &Warp, lanes: u64, pending: u64, seq: Option<u64>) {
        let row = &mut self.rows[r];
        for (l, t) in row.thi.iter_mut().enumerate() {
            *t = if lanes >> l & 1 == 1 { v.thi[l] } else { 0 };
        }
        (row.valid, row.pc, row.lanes, row.pending, row.seq) = (true, v.pc, lanes, pending, seq);
    }

    /// §7.1 on the table: lane fixity (thi 0 outside lanes), no empty valid row, invalid rows
    /// all zero, pending ⊆ lanes, each thread (lane, thi) in at most one row, the eligible
    /// rows' order stamps distinct.
    fn check(&self, kind: LookupKind) -> Result<(), String> {
        let mut seen = [0u64; 64];
        for (i, r) in self.rows.iter().enumerate() {
            if !r.valid {
                let clear = r.pc == 0
                    && r.lanes == 0
                    && r.pending == 0
                    && r.seq.is_none()
                    && r.thi.iter().all(|&t| t == 0);
                if !clear {
                    return Err(format!("row {i}: invalid but not cleared"));
                }
                continue;
            }
            if r.lanes == 0 {
                return Err(format!("row {i}: valid with no lanes"));
            }
            if r.pc & !self.pc_mask != 0 {
                return Err(format!("row {i}: pc wider than pc_bits"));
            }
            if r.pending & !r.lanes != 0 {
                return Err(format!(
                    "row {i}: pending {:#x} not within lanes {:#x}",
                    r.pending, r.lanes
                ));
            }
            match kind {
                LookupKind::Ready if r.pending != 0 || r.seq.is_none() => {
                    return Err(format!("row {i}: a Ready Lookup row is always drainable"));
                }
                LookupKind::Waiting if (r.pending == 0) != r.seq.is_some() => {
                    return Err(format!(
                        "row {i}: ready (pending 0) iff it has a drain stamp"
                    ));
                }
                _ => {}
            }
            let tag = self.row_tag(i);
            for l in 0..self.w {
                let on = r.lanes >> l & 1 == 1;
                if on && r.thi[l] & self.cta_mask != tag {
                    return Err(format!(
                        "row {i}: lane {l} of another CTA than the row (merge_scope = cta)"
                    ));
                }
                if !on && r.thi[l] != 0 {
                    return Err(format!("row {i}: lane {l} empty but thi != 0"));
                }
                // A thread is (lane, thi); its bit in `seen` (N ≤ 4096 threads).
                let t = l * self.per_lane + r.thi[l] as usize;
                if on && t < 64 * 64 {
                    if seen[t / 64] >> (t % 64) & 1 == 1 {
                        return Err(format!(
                            "thread (lane {l}, thi {}) in row {i} and an earlier row (conservation)",
                            r.thi[l]
                        ));
                    }
                    seen[t / 64] |= 1 << (t % 64);
                }
            }
            // Pairs of rows (at most 16): a drain stamp twice.
            if let Some(j) = (i + 1..self.rows.len())
                .find(|&j| self.rows[j].valid && r.seq.is_some() && self.rows[j].seq == r.seq)
            {
                return Err(format!("rows {i} and {j}: the same drain stamp"));
            }
        }
        Ok(())
    }
}

fn masked(v: &Warp, lanes: u64, w: usize) -> Warp {
    Warp {
        pc: v.pc,
        lanes,
        thi: (0..w)
            .map(|l| if lanes >> l & 1 == 1 { v.thi[l] } else { 0 })
            .collect(),
    }
}

/// What one Ready Lookup cycle did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadyOutcome {
    /// Insert k's leftover warp when no row was free (A10: straight to the second level).
    pub bypass: [Option<Warp>; 2],
    /// Lanes merged into existing rows.
    pub merged: u32,
    /// Insert k allocated a row (its index).
    pub alloc: [Option<usize>; 2],
    /// The drained head row.
    pub drained: Option<Warp>,
}

/// The Ready Lookup (§3.4.3, §3.5 step 4): per-lane merge into the lowest compatible row,
/// leftover lanes to the lowest free row, bypass when full, oldest-first drain.
#[derive(Clone, Debug)]
pub struct ReadyLookup {
    t: Rows,
    fault: Option<LookupFault>,
}

impl ReadyLookup {
    pub fn new(cfg: &LookupConfig) -> ReadyLookup {
        ReadyLookup {
            t: Rows::new(cfg),
            fault: None,
        }
    }
    pub fn inject_fault(&mut self, fault: Option<LookupFault>) {
        self.fault = fault;
    }
    pub fn reset(&mut self) {
        self.t.reset();
    }
    /// The CTA mask of A14's `merge_scope = cta` (0: merge across CTAs).
    pub fn set_cta_mask(&mut self, mask: u64) {
        self.t.cta_mask = mask;
    }
    /// The oldest row (start of cycle): what a drain this cycle removes.
    pub fn head(&self) -> Option<usize> {
        self.t.head()
    }
    pub fn head_warp(&self) -> Option<Warp> {
        self.head().map(|r| self.t.rows[r].warp())
    }
    pub fn rows(&self) -> &[Row] {
        &self.t.rows
    }
    pub fn count(&self) -> usize {
        self.t.count()
    }
    pub fn full(&self) -> bool {
        self.t.free_row().is_none()
    }
    /// Drain-order rank of row `r`.
    pub fn ord(&self, r: usize) -> usize {
        self.t.ord(r)
    }

    /// One cycle: `ins[0]` then `ins[1]` (each sees the earlier one), then the drain of the
    /// start-of-cycle head when `drain`.
    pub fn cycle(&mut self, ins: [Option<&Warp>; 2], drain: bool) -> ReadyOutcome {
        let w = self.t.w;
        let head = if drain { self.head() } else { None };
        let mut out = ReadyOutcome::default();
        for (k, v) in ins.iter().enumerate() {
            let Some(v) = v else { continue };
            let lanes = v.lanes & ((1u64 << w) - 1);
            let vtag = self.t.tag(&v.thi, lanes);
            // Each lane goes to the lowest-index row at the PC (and of the warp's CTA, A14)
            // with that lane empty (A9): visiting the rows lowest first, a row takes every
            // lane still left that it has free.
            let mut left = lanes;
            let n = self.t.rows.len();
            for k in 0..n {
                let r = if self.fault == Some(LookupFault::HighestRow) {
                    n - 1 - k
                } else {
                    k
                };
                let same_cta =
                    self.t.row_tag(r) == vtag || self.fault == Some(LookupFault::CtaBlind);
                let row = &mut self.t.rows[r];
                let fits = row.valid
                    && row.pc == v.pc
                    && same_cta
                    && (Some(r) != head || self.fault == Some(LookupFault::MergeIntoDrained));
                let take = if fits { left & !row.lanes } else { 0 };
                if take == 0 {
                    continue;
                }
                row.lanes |= take;
                for l in (0..w).filter(|&l| take >> l & 1 == 1) {
                    row.thi[l] = v.thi[l];
                }
                left &= !take;
                out.merged += take.count_ones();
            }
            if left == 0 {
                continue;
            }
            match self.t.free_row() {
                Some(r) => {
                    let seq = self.t.stamp();
                    self.t.fill(r, v, left, 0, seq);
                    out.alloc[k] = Some(r);
                }
                None => out.bypass[k] = Some(masked(v, left, w)),
            }
        }
        if let Some(h) = head {
            out.drained = Some(self.t.free(h));
        }
        out
    }

    pub fn check(&self) -> Result<(), String> {
        self.t.check(LookupKind::Ready)
    }
}

/// What one Waiting Lookup cycle did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaitingOutcome {
    /// The row that took the insert (merged into or allocated): the load's tag.
    pub ins_row: Option<usize>,
    /// The insert allocated its row (else it merged).
    pub alloc: bool,
    /// Lanes merged into an existing row.
    pub merged: u32,
    /// The row that became ready (pending 0) this cycle.
    pub ready: Option<usize>,
    pub drained: Option<Warp>,
}

/// The Waiting Lookup (§3.4.4, §3.7, A11): whole-warp merge of partial warps into a pending
/// row at the same PC with disjoint lanes, per-lane pending bits, a row ready at pc + 1 when
/// they clear, drained oldest-ready first.
#[derive(Clone, Debug)]
pub struct WaitingLookup {
    t: Rows,
    fault: Option<LookupFault>,
}

impl WaitingLookup {
    pub fn new(cfg: &LookupConfig) -> WaitingLookup {
        WaitingLookup {
            t: Rows::new(cfg),
            fault: None,
        }
    }
    pub fn inject_fault(&mut self, fault: Option<LookupFault>) {
        self.fault = fault;
    }
    pub fn reset(&mut self) {
        self.t.reset();
    }
    /// The CTA mask of A14's `merge_scope = cta` (0: merge across CTAs).
    pub fn set_cta_mask(&mut self, mask: u64) {
        self.t.cta_mask = mask;
    }
    /// The oldest ready row (start of cycle).
    pub fn head(&self) -> Option<usize> {
        self.t.head()
    }
    pub fn head_warp(&self) -> Option<Warp> {
        self.head().map(|r| self.t.rows[r].warp())
    }
    pub fn rows(&self) -> &[Row] {
        &self.t.rows
    }
    pub fn count(&self) -> usize {
        self.t.count()
    }
    pub fn full(&self) -> bool {
        self.t.free_row().is_none()
    }
    pub fn ord(&self, r: usize) -> usize {
        self.t.ord(r)
    }
    /// Would an insert of `v` be taken (a partial warp with a row to go to)?
    pub fn accepts(&self, v: &Warp) -> bool {
        let n = (v.lanes & ((1u64 << self.t.w) - 1)).count_ones() as usize;
        n > 0 && n < self.t.w && (self.merge_target(v).is_some() || self.t.free_row().is_some())
    }
    fn merge_target(&self, v: &Warp) -> Option<usize> {
        let vtag = self.t.tag(&v.thi, v.lanes);
        let fits = |r: &usize| {
            let row = &self.t.rows[*r];
            row.valid
                && row.pc == v.pc
                && (self.t.row_tag(*r) == vtag || self.fault == Some(LookupFault::CtaBlind))
                && row.pending != 0
                && row.lanes & v.lanes == 0
        };
        let n = self.t.rows.len();
        if self.fault == Some(LookupFault::HighestRow) {
            (0..n).rev().find(fits)
        } else {
            (0..n).find(fits)
        }
    }

    /// One cycle: the insert, the completion (on the start-of-cycle pending bits), the row
    /// that became ready, then the drain of the start-of-cycle head when `drain`.
    pub fn cycle(
        &mut self,
        ins: Option<&Warp>,
        cpl: Option<(usize, u64)>,
        drain: bool,
    ) -> WaitingOutcome {
        let w = self.t.w;
        let head = if drain { self.head() } else { None };
        // Rows valid and pending at the start of the cycle, as a bit set (at most 64 rows).
        let was_pending = self.t.rows.iter().enumerate().fold(0u64, |m, (r, row)| {
            m | ((row.valid && row.pending != 0) as u64) << r
        });
        let mut out = WaitingOutcome::default();
        // Where the insert goes is decided on the start-of-cycle table; the completion clears
        // start-of-cycle pending bits, then the insert's lanes are ORed in.
        let target = ins.and_then(|v| self.merge_target(v));
        let free = self.t.free_row();
        if let Some((r, lanes)) = cpl {
            if r < self.t.rows.len() && self.t.rows[r].valid {
                self.t.rows[r].pending &= !lanes;
            }
        }
        if let Some(v) = ins {
            let lanes = v.lanes & ((1u64 << w) - 1);
            let n = lanes.count_ones() as usize;
            if n > 0 && n < w {
                if let Some(r) = target {
                    let row = &mut self.t.rows[r];
                    row.lanes |= lanes;
                    row.pending |= lanes;
                    for l in (0..w).filter(|&l| lanes >> l & 1 == 1) {
                        row.thi[l] = v.thi[l];
                    }
                    out.ins_row = Some(r);
                    out.merged = n as u32;
                } else if let Some(r) = free {
                    self.t.fill(r, v, lanes, lanes, None);
                    out.ins_row = Some(r);
                    out.alloc = true;
                }
            }
        }
        for r in 0..self.t.rows.len() {
            if was_pending >> r & 1 == 1 && self.t.rows[r].pending == 0 {
                let seq = self.t.stamp();
                let mask = self.t.pc_mask;
                let row = &mut self.t.rows[r];
                row.pc = (row.pc + 1) & mask;
                row.seq = seq;
                out.ready = Some(r);
            }
        }
        if let Some(h) = head {
            out.drained = Some(self.t.free(h));
        }
        out
    }

    pub fn check(&self) -> Result<(), String> {
        self.t.check(LookupKind::Waiting)
    }
}

/// Either table.
#[derive(Clone, Debug)]
enum Table {
    Ready(ReadyLookup),
    Waiting(WaitingLookup),
}

impl Table {
    fn rows(&self) -> &Rows {
        match self {
            Table::Ready(t) => &t.t,
            Table::Waiting(t) => &t.t,
        }
    }
}

/// Event counters (coverage).
#[derive(Clone, Debug, Default)]
pub struct LookupCounters {
    pub cycles: u64,
    pub inserts: u64,
    /// Lanes merged into existing rows.
    pub merged_lanes: u64,
    /// Inserts that merged (some lanes, or the whole warp).
    pub merges: u64,
    pub allocations: u64,
    pub bypasses: u64,
    /// Waiting Lookup inserts refused (full warp, or no row).
    pub refused: u64,
    pub completions: u64,
    pub became_ready: u64,
    pub drains: u64,
    /// Cycles starting with every row valid.
    pub full_cycles: u64,
    /// Ready Lookup: cycles where insert 1 merged into a row insert 0 allocated.
    pub second_into_first: u64,
    /// Cycles with a drain and an insert of the head's PC.
    pub drain_with_same_pc: u64,
    /// Cycles with a non-zero `cta_mask` (A14's `merge_scope = cta`).
    pub cta_scoped_cycles: u64,
    /// Inserts that found a row at their PC with a free lane, but of another CTA.
    pub kept_apart: u64,
}

/// The cycle model of `crown-lookup`.
#[derive(Clone, Debug)]
pub struct CrownLookupModel {
    cfg: LookupConfig,
    inp: InPorts,
    out: OutPorts,
    table: Table,
    counters: LookupCounters,
    cycle: u64,
    /// The inserts' warps, decoded into reused buffers.
    ins_buf: Vec<Warp>,
}

impl CrownLookupModel {
    pub fn new(cfg: &LookupConfig) -> Self {
        let layout = Layout::new(&cfg.ports());
        CrownLookupModel {
            inp: InPorts::new(&layout, cfg),
            out: OutPorts::new(&layout),
            table: match cfg.kind {
                LookupKind::Ready => Table::Ready(ReadyLookup::new(cfg)),
                LookupKind::Waiting => Table::Waiting(WaitingLookup::new(cfg)),
            },
            counters: LookupCounters::default(),
            cycle: 0,
            ins_buf: vec![
                Warp {
                    pc: 0,
                    lanes: 0,
                    thi: vec![]
                };
                2
            ],
            cfg: cfg.clone(),
        }
    }

    pub fn inject_fault(&mut self, fault: Option<LookupFault>) {
        match &mut self.table {
            Table::Ready(t) => t.inject_fault(fault),
            Table::Waiting(t) => t.inject_fault(fault),
        }
    }

    pub fn counters(&self) -> &LookupCounters {
        &self.counters
    }

    /// Insert `k`'s warp into `buf` (reused: this runs every cycle); false when not valid.
    fn read_in(&self, inputs: &[u64], k: usize, buf: &mut Warp) -> bool {
        let (w, t, p) = (self.cfg.w(), self.cfg.thi_bits(), self.cfg.pc_bits());
        let i = &self.inp.ins[k];
        if get(inputs, i.valid, 1) == 0 {
            return false;
        }
        buf.pc = get(inputs, i.pc, p);
        buf.lanes = get(inputs, i.lanes, w);
        buf.thi.resize(w, 0);
        for (l, x) in buf.thi.iter_mut().enumerate() {
            *x = get(inputs, i.thi + l * t, t);
        }
        true
    }

    fn warp_in(&self, inputs: &[u64], k: usize) -> Option<Warp> {
        let (w, t, p) = (self.cfg.w(), self.cfg.thi_bits(), self.cfg.pc_bits());
        let i = &self.inp.ins[k];
        (get(inputs, i.valid, 1) == 1).then(|| Warp {
            pc: get(inputs, i.pc, p),
            lanes: get(inputs, i.lanes, w),
            thi: (0..w).map(|l| get(inputs, i.thi + l * t, t)).collect(),
        })
    }

    fn write_warp(&self, outputs: &mut [u64], at: [usize; 3], v: &Warp) {
        let (w, t, p) = (self.cfg.w(), self.cfg.thi_bits(), self.cfg.pc_bits());
        set(outputs, at[0], p, v.pc);
        set(outputs, at[1], w, v.lanes);
        for l in 0..w {
            set(outputs, at[2] + l * t, t, v.thi[l]);
        }
    }

    /// Registered outputs and the state digest, from the start-of-cycle table.
    fn write_state(&self, outputs: &mut [u64]) {
        let (w, t, p) = (self.cfg.w(), self.cfg.thi_bits(), self.cfg.pc_bits());
        let o = &self.out;
        let rows = self.table.rows();
        let ob = self.cfg.ord_bits();
        // Outputs start zeroed; each digest is a run of consecutive fields.
        let rr = &rows.rows;
        or_seq(outputs, o.dbg_valid, 1, rr.iter().map(|r| r.valid as u64));
        or_seq(outputs, o.dbg_pc, p, rr.iter().map(|r| r.pc));
        or_seq(outputs, o.dbg_lanes, w, rr.iter().map(|r| r.lanes));
        for (r, row) in rr.iter().enumerate().filter(|(_, r)| r.valid) {
            or_seq(outputs, o.dbg_thi + r * w * t, t, row.thi.iter().copied());
        }
        or_seq(
            outputs,
            o.dbg_ord,
            ob,
            (0..rr.len()).map(|r| rows.ord(r) as u64),
        );
        if let Some(pd) = o.dbg_pending {
            or_seq(outputs, pd, w, rr.iter().map(|r| r.pending));
        }
        let count = rows.count();
        set(outputs, o.count, self.cfg.count_bits(), count as u64);
        set(outputs, o.full, 1, (count == self.cfg.rows) as u64);
        let head = rows.head();
        set(outputs, o.head_valid, 1, head.is_some() as u64);
        set(
            outputs,
            o.head_row,
            self.cfg.row_bits(),
            head.unwrap_or(0) as u64,
        );
        // Outputs start zeroed: only a head has anything to write.
        if let Some(h) = head {
            let r = &rows.rows[h];
            set(outputs, o.head_pc, p, r.pc);
            set(outputs, o.head_lanes, w, r.lanes);
            for l in 0..w {
                set(outputs, o.head_thi + l * t, t, r.thi[l]);
            }
        }
    }
}

impl Model for CrownLookupModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        outputs.iter_mut().for_each(|x| *x = 0);
        self.write_state(outputs);
        self.cycle += 1;
        self.counters.cycles += 1;
        if get(inputs, self.inp.reset, 1) == 1 {
            match &mut self.table {
                Table::Ready(t) => t.reset(),
                Table::Waiting(t) => t.reset(),
            }
            return;
        }
        let drain = get(inputs, self.inp.drain, 1) == 1;
        let mask = get(inputs, self.inp.cta_mask, self.cfg.thi_bits());
        match &mut self.table {
            Table::Ready(t) => t.set_cta_mask(mask),
            Table::Waiting(t) => t.set_cta_mask(mask),
        }
        self.counters.cta_scoped_cycles += (mask != 0) as u64;
        let w = self.cfg.w();
        let c = &mut self.counters;
        c.full_cycles += (self.table.rows().count() == self.cfg.rows) as u64;
        match self.cfg.kind {
            LookupKind::Ready => {
                let mut buf = std::mem::take(&mut self.ins_buf);
                let (v0, v1) = buf.split_at_mut(1);
                let ins = [
                    self.read_in(inputs, 0, &mut v0[0]).then_some(&v0[0]),
                    self.read_in(inputs, 1, &mut v1[0]).then_some(&v1[0]),
                ];
                let Table::Ready(t) = &mut self.table else {
                    unreachable!()
                };
                self.counters.kept_apart +=
                    ins.iter().flatten().filter(|v| t.t.kept_apart(v)).count() as u64;
                if let (Some(h), true) = (t.head(), drain) {
                    let same = ins.iter().flatten().any(|v| v.pc == t.t.rows[h].pc);
                    self.counters.drain_with_same_pc += same as u64;
                }
                let r = t.cycle(ins, drain);
                let c = &mut self.counters;
                if let (Some(a), Some(v)) = (r.alloc[0], ins[1]) {
                    let row = &t.t.rows[a];
                    c.second_into_first += (row.pc == v.pc
                        && row.lanes & v.lanes & ((1u64 << w) - 1) != 0
                        && ins[0].is_some_and(|u| u.lanes & v.lanes == 0))
                        as u64;
                }
                c.inserts += ins.iter().flatten().count() as u64;
                c.merged_lanes += r.merged as u64;
                c.merges += (r.merged > 0) as u64;
                c.allocations += r.alloc.iter().flatten().count() as u64;
                c.bypasses += r.bypass.iter().flatten().count() as u64;
                c.drains += r.drained.is_some() as u64;
                let mut alloc = 0;
                for k in 0..2 {
                    alloc |= (r.alloc[k].is_some() as u64) << k;
                    if let Some(b) = &r.bypass[k] {
                        let at = self.out.byp[k];
                        set(outputs, at[0], 1, 1);
                        self.write_warp(outputs, [at[1], at[2], at[3]], b);
                    }
                }
                set(
                    outputs,
                    self.out.ev_merge,
                    self.cfg.merge_bits(),
                    r.merged as u64,
                );
                set(outputs, self.out.ev_alloc, 2, alloc);
                self.ins_buf = buf;
            }
            LookupKind::Waiting => {
                let ins = self.warp_in(inputs, 0);
                let i = &self.inp;
                let cpl = (get(inputs, i.cpl_valid, 1) == 1).then(|| {
                    (
                        get(inputs, i.cpl_row, self.cfg.row_bits()) as usize,
                        get(inputs, i.cpl_lanes, w),
                    )
                });
                let Table::Waiting(t) = &mut self.table else {
                    unreachable!()
                };
                self.counters.kept_apart += ins.as_ref().is_some_and(|v| t.t.kept_apart(v)) as u64;
                let r = t.cycle(ins.as_ref(), cpl, drain);
                let c = &mut self.counters;
                c.inserts += ins.is_some() as u64;
                c.merged_lanes += r.merged as u64;
                c.merges += (r.merged > 0) as u64;
                c.allocations += r.alloc as u64;
                c.refused += (ins.is_some() && r.ins_row.is_none()) as u64;
                c.completions += cpl.is_some() as u64;
                c.became_ready += r.ready.is_some() as u64;
                c.drains += r.drained.is_some() as u64;
                set(outputs, self.out.ins_ok, 1, r.ins_row.is_some() as u64);
                set(
                    outputs,
                    self.out.ins_row,
                    self.cfg.row_bits(),
                    r.ins_row.unwrap_or(0) as u64,
                );
                set(
                    outputs,
                    self.out.ev_merge,
                    self.cfg.merge_bits(),
                    r.merged as u64,
                );
                set(outputs, self.out.ev_alloc, 1, r.alloc as u64);
            }
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        match &self.table {
            Table::Ready(t) => t.check(),
            Table::Waiting(t) => t.check(),
        }
    }

    fn check_inputs(&self, inputs: &[u64]) -> Result<(), String> {
        if get(inputs, self.inp.reset, 1) == 1 {
            return Ok(());
        }
        let rows = self.table.rows();
        let w = self.cfg.w();
        let mask = get(inputs, self.inp.cta_mask, self.cfg.thi_bits());
        if mask != rows.cta_mask && rows.count() > 0 {
            return Err(format!(
                "port cta_mask: changed from {:#x} to {mask:#x} while the table holds rows",
                rows.cta_mask
            ));
        }
        // Conservation: an inserted thread is not already in the table, nor in the other
        // insert of the cycle. Threads as bits of (lane, thi) (N ≤ 4096).
        let mut seen = [0u64; 64];
        let per_lane = rows.per_lane;
        for r in rows.rows.iter().filter(|r| r.valid) {
            for l in (0..w).filter(|&l| r.lanes >> l & 1 == 1) {
                let t = l * per_lane + r.thi[l] as usize;
                seen[t / 64] |= 1 << (t % 64);
            }
        }
        let mut v = Warp {
            pc: 0,
            lanes: 0,
            thi: Vec::with_capacity(w),
        };
        for k in 0..self.cfg.inserts() {
            if !self.read_in(inputs, k, &mut v) {
                continue;
            }
            let tag = v.thi[0..w]
                .iter()
                .enumerate()
                .find(|(l, _)| v.lanes >> l & 1 == 1)
                .map_or(0, |(_, x)| x & mask);
            for l in (0..w).filter(|&l| v.lanes >> l & 1 == 1) {
                let t = l * per_lane + v.thi[l] as usize;
                if seen[t / 64] >> (t % 64) & 1 == 1 {
                    return Err(format!(
                        "port ins{k}_lanes: thread (lane {l}, thi {}) is already in the table",
                        v.thi[l]
                    ));
                }
                seen[t / 64] |= 1 << (t % 64);
                if v.thi[l] & mask != tag {
                    return Err(format!(
                        "port ins{k}_thi: lanes of two CTAs under cta_mask {mask:#x} (lane {l}, thi {})",
                        v.thi[l]
                    ));
                }
            }
        }
        if self.cfg.kind == LookupKind::Waiting && get(inputs, self.inp.cpl_valid, 1) == 1 {
            let r = get(inputs, self.inp.cpl_row, self.cfg.row_bits()) as usize;
            let lanes = get(inputs, self.inp.cpl_lanes, w);
            let ok = r < rows.rows.len()
                && rows.rows[r].valid
                && lanes != 0
                && lanes & !rows.rows[r].pending == 0;
            if !ok {
                return Err(format!(
                    "port cpl_lanes: lanes {lanes:#x} of row {r} are not pending"
                ));
            }
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        let rows = self.table.rows();
        let mut s = format!("cycle {}", self.cycle);
        for (i, r) in rows.rows.iter().enumerate().filter(|(_, r)| r.valid) {
            s.push_str(&format!(
                " r{i}[pc {:#x} lanes {:#x} ord {}",
                r.pc,
                r.lanes,
                rows.ord(i)
            ));
            if self.cfg.kind == LookupKind::Waiting {
                s.push_str(&format!(" pend {:#x}", r.pending));
            }
            s.push(']');
        }
        s
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let c = &self.counters;
        vec![
            ("inserts", c.inserts),
            ("merges", c.merges),
            ("merged_lanes", c.merged_lanes),
            ("allocations", c.allocations),
            ("bypasses", c.bypasses),
            ("refused", c.refused),
            ("completions", c.completions),
            ("became_ready", c.became_ready),
            ("drains", c.drains),
            ("full_cycles", c.full_cycles),
            ("second_into_first", c.second_into_first),
            ("drain_with_same_pc", c.drain_with_same_pc),
            ("cta_scoped_cycles", c.cta_scoped_cycles),
            ("kept_apart", c.kept_apart),
        ]
    }
}
