//! Cycle model, stimulus and spec vectors of `dwr-pst`, DWR's Partner-Synch Table
//! (spec/dwr.md §2.7, §3.4, §3.5; contract `units/dwr_pst.rs`).
//!
//! [`Pst`] is the table itself (arrival rules and the Eq. 5-1 release). The standalone unit
//! model drives it from its ports; the composite `dwr` model embeds the same type and drives
//! it from its own sub-warp states, so the PST rules live in one place on the model side.

use crate::dwr::{group_all, group_any, pack_fields, spread_groups, Bits, Fields, Vb};
use crate::rng::Rng;
use crate::words::{low_bits, port_offset};
use crate::{Model, SpecVector, Stimulus};
use warpforge_contract::units::dwr::Geometry;
use warpforge_contract::units::dwr_pst::{self, PstConfig};
use warpforge_contract::Layout;

/// A deliberate PST bug, to show that the invariant checks catch wrong behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PstFault {
    /// Eq. 5-1 without rule D4: a member blocked in `__syncthreads` does not count as arrived.
    NoD4,
    /// Release is evaluated only in cycles with an arrival (an exit alone never releases).
    ReleaseOnlyOnArrival,
    /// A released row keeps its valid bit and lock vector.
    KeepRowOnRelease,
    /// An ILT hit still locks (no bypass).
    HitLocks,
}

/// What one arrival did to its row (§3.4 step 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    /// The arrival touched the PST (not a bypass, not an ignored sub-warp).
    pub locked: bool,
    /// The row was invalid and opened with the arriving PC.
    pub opened: bool,
    /// The row was valid with another PC: the ILT must insert the arriving PC (A4).
    pub mismatch: bool,
}

/// The result of one Eq. 5-1 evaluation over every row (§3.5, A1, D4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Release {
    /// Releasing rows, row `n` at bit `n`.
    pub rows: Bits,
    /// Releasing rows in which some member counted as arrived only by rule D4.
    pub d4: Bits,
    /// Releasing rows at their base bit `nW` (the sub-warp space).
    pub base: Bits,
    /// Locked members of the releasing rows: they become COMBINE_READY.
    pub released: Bits,
}

impl Release {
    pub fn any(&self) -> bool {
        !self.rows.is_zero()
    }
}

/// The Partner-Synch Table: one row {valid, pc, lock[W]} per partner group.
#[derive(Clone, Debug)]
pub struct Pst {
    n: usize,
    /// Every sub-warp.
    all: Bits,
    w: usize,
    m: usize,
    pc_bits: usize,
    /// Row `n` valid, at bit `n`.
    valid_rows: Bits,
    /// Row `n` valid, at bit `nW` (aligned with the sub-warp space).
    valid_base: Bits,
    /// Lock bit `m` of row `n` at bit `nW+m` (= the sub-warp's index).
    lock: Bits,
    pc: Vec<u64>,
    /// `dbg_pc` image: row `n`'s pc at `n·P`, 0 for an invalid row.
    pc_image: Vec<u64>,
    /// An arrival happened since the last `clear` (only for [`PstFault::ReleaseOnlyOnArrival`]).
    arrived_this_cycle: bool,
    fault: Option<PstFault>,
}

impl Pst {
    pub fn new(g: &Geometry) -> Pst {
        let m = g.groups();
        Pst {
            n: g.subwarps(),
            all: Bits::low(g.subwarps()),
            w: g.group_size,
            m,
            pc_bits: g.pc_bits,
            valid_rows: Bits::ZERO,
            valid_base: Bits::ZERO,
            lock: Bits::ZERO,
            pc: vec![0; m],
            pc_image: vec![0; (m * g.pc_bits).div_ceil(64)],
            arrived_this_cycle: false,
            fault: None,
        }
    }

    pub fn inject_fault(&mut self, fault: Option<PstFault>) {
        self.fault = fault;
    }

    /// Every row invalid, lock 0.
    pub fn reset(&mut self) {
        self.valid_rows = Bits::ZERO;
        self.valid_base = Bits::ZERO;
        self.lock = Bits::ZERO;
        self.pc.iter_mut().for_each(|p| *p = 0);
        self.pc_image.iter_mut().for_each(|w| *w = 0);
        self.arrived_this_cycle = false;
    }

    pub fn rows(&self) -> usize {
        self.m
    }
    /// Valid rows, row `n` at bit `n`.
    pub fn valid_rows(&self) -> Bits {
        self.valid_rows
    }
    /// Valid rows at their base bit `nW`.
    pub fn valid_base(&self) -> Bits {
        self.valid_base
    }
    /// Lock bits, sub-warp `s` at bit `s`.
    pub fn lock(&self) -> Bits {
        self.lock
    }
    /// Row `n`'s barrier PC while it is valid.
    pub fn row_pc(&self, row: usize) -> Option<u64> {
        self.valid_rows.get(row).then(|| self.pc[row])
    }
    /// The `dbg_pc` port image.
    pub fn pc_image(&self) -> &[u64] {
        &self.pc_image
    }

    /// §3.4 step 1: a `bar.synch_partner` of sub-warp `sw` at `pc` acts; `hit` is its ILT lookup.
    /// A hit bypasses (the PST is untouched, I-BYPASS); `sw ≥ N` is ignored.
    pub fn arrive(&mut self, sw: usize, pc: u64, hit: bool) -> Arrival {
        if sw >= self.n || (hit && self.fault != Some(PstFault::HitLocks)) {
            return Arrival::default();
        }
        self.arrived_this_cycle = true;
        let row = sw / self.w;
        let mut a = Arrival {
            locked: true,
            ..Arrival::default()
        };
        if !self.valid_rows.get(row) {
            // First non-bypassed arrival of the episode: the row takes its PC.
            self.valid_rows.set(row);
            self.valid_base.set(row * self.w);
            self.pc[row] = pc;
            self.pc_image.set_field(row, self.pc_bits, pc);
            a.opened = true;
        } else if self.pc[row] != pc {
            // Partners synchronizing from different PCs: useless barrier (A4: row PC stays).
            a.mismatch = true;
        }
        self.lock.set(sw);
        a
    }

    /// Eq. 5-1 with A1 and D4 on the rows as they are now: row `n` releases when it is valid
    /// and each member `s` has `¬sw_valid[s] ∨ lock ∨ sw_blockbar[s]`. Changes nothing.
    pub fn evaluate(&self, sw_valid: &Bits, sw_blockbar: &Bits) -> Release {
        if self.valid_base.is_zero()
            || (self.fault == Some(PstFault::ReleaseOnlyOnArrival) && !self.arrived_this_cycle)
        {
            return Release::default();
        }
        let all = self.all;
        let blockbar = if self.fault == Some(PstFault::NoD4) {
            Bits::ZERO
        } else {
            *sw_blockbar
        };
        let arrived = all.not_in(*sw_valid) | self.lock | blockbar;
        let base = group_all(arrived, self.w) & self.valid_base;
        if base.is_zero() {
            return Release::default();
        }
        // Members that arrived only by D4: valid, blocked, not locked.
        let by_d4 = (*sw_valid & blockbar).not_in(self.lock);
        let d4_base = group_any(by_d4, self.w) & base;
        let mut rel = Release {
            base,
            released: self.lock & spread_groups(base, self.w),
            ..Release::default()
        };
        for b in base.iter() {
            rel.rows.set(b / self.w);
        }
        for b in d4_base.iter() {
            rel.d4.set(b / self.w);
        }
        rel
    }

    /// A6: clear the released rows (valid 0, lock 0). Ends the cycle's arrival bookkeeping.
    pub fn clear(&mut self, rel: &Release) {
        self.arrived_this_cycle = false;
        if !rel.any() || self.fault == Some(PstFault::KeepRowOnRelease) {
            return;
        }
        self.valid_rows = self.valid_rows.not_in(rel.rows);
        self.valid_base = self.valid_base.not_in(rel.base);
        self.lock = self.lock.not_in(spread_groups(rel.base, self.w));
        for row in rel.rows.iter() {
            self.pc[row] = 0;
            self.pc_image.set_field(row, self.pc_bits, 0);
        }
    }

    /// Structural invariants of the table alone: locks only in valid rows, a valid row has a
    /// lock bit (I-ROWNONEMPTY), the two copies of the valid bits agree.
    pub fn check(&self) -> Result<(), String> {
        let spread_valid = spread_groups(self.valid_base, self.w);
        if !self.lock.not_in(spread_valid).is_zero() {
            return Err(format!(
                "I-LOCK: lock bits {} outside valid rows {}",
                self.lock, self.valid_rows
            ));
        }
        let nonempty = group_any(self.lock, self.w);
        if nonempty != self.valid_base {
            let row = self
                .valid_base
                .not_in(nonempty)
                .iter()
                .next()
                .map_or(0, |b| b / self.w);
            return Err(format!(
                "I-ROWNONEMPTY: row {row} valid with an empty lock vector"
            ));
        }
        if self.valid_rows.count() != self.valid_base.count() {
            return Err("PST: the valid-row copies disagree".into());
        }
        Ok(())
    }

    /// Every row's pc (0 for an invalid row).
    pub fn pcs(&self) -> &[u64] {
        &self.pc
    }

    /// One-line summary: the valid rows as `n:{pc,lock}`.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for row in self.valid_rows.iter() {
            s.push_str(&format!(
                " {row}:{{{:#x},{:#b}}}",
                self.pc[row],
                self.lock.bits(row * self.w, self.w)
            ));
        }
        if s.is_empty() {
            s.push_str(" -");
        }
        s
    }
}

// ---------------------------------------------------------------------------------------
// The standalone unit

#[derive(Clone, Copy, Debug)]
struct InPorts {
    reset: usize,
    arr_valid: usize,
    arr_sw: usize,
    arr_pc: usize,
    arr_hit: usize,
    sw_valid: usize,
    sw_blockbar: usize,
}

#[derive(Clone, Copy, Debug)]
struct OutPorts {
    arr_mismatch: usize,
    rel: usize,
    rel_d4: usize,
    released: usize,
    dbg_valid: usize,
    dbg_pc: usize,
    dbg_lock: usize,
}

impl InPorts {
    fn new(l: &Layout) -> InPorts {
        let o = |n| port_offset(&l.inputs, "dwr-pst", n);
        InPorts {
            reset: o("reset"),
            arr_valid: o("arr_valid"),
            arr_sw: o("arr_sw"),
            arr_pc: o("arr_pc"),
            arr_hit: o("arr_hit"),
            sw_valid: o("sw_valid"),
            sw_blockbar: o("sw_blockbar"),
        }
    }
}

impl OutPorts {
    fn new(l: &Layout) -> OutPorts {
        let o = |n| port_offset(&l.outputs, "dwr-pst", n);
        OutPorts {
            arr_mismatch: o("arr_mismatch"),
            rel: o("rel"),
            rel_d4: o("rel_d4"),
            released: o("released"),
            dbg_valid: o("dbg_valid"),
            dbg_pc: o("dbg_pc"),
            dbg_lock: o("dbg_lock"),
        }
    }
}

/// What happened in the last stepped cycle, for `check_invariants`.
#[derive(Clone, Debug, Default)]
struct LastCycle {
    stepped: bool,
    reset: bool,
    /// Rows at the start of the cycle.
    valid_before: Bits,
    lock_before: Bits,
    pc_before: Vec<u64>,
    arr: Option<(usize, u64, bool)>,
    arrival: Arrival,
    sw_valid: Bits,
    sw_blockbar: Bits,
    rel: Release,
}

/// Event counters of the standalone PST model (coverage).
#[derive(Clone, Debug, Default)]
pub struct PstCounters {
    pub cycles: u64,
    pub resets: u64,
    pub opened: u64,
    pub same_pc: u64,
    pub mismatches: u64,
    pub bypasses: u64,
    pub ignored_arrivals: u64,
    pub releases: u64,
    pub d4_releases: u64,
    /// Releases in a cycle without an arrival to that row (exit or blockbar alone).
    pub releases_without_arrival: u64,
    /// Cycles in which two or more rows released.
    pub multi_row_releases: u64,
    /// Rows opened and released in the same cycle.
    pub open_and_release: u64,
    /// Cycles with every row valid.
    pub table_full: u64,
}

/// The cycle model of `dwr-pst`.
#[derive(Clone, Debug)]
pub struct DwrPstModel {
    n: usize,
    w: usize,
    m: usize,
    swb: usize,
    pc_bits: usize,
    nw: usize,
    mw: usize,
    inp: InPorts,
    out: OutPorts,
    pst: Pst,
    last: LastCycle,
    counters: PstCounters,
    cycle: u64,
}

impl DwrPstModel {
    pub fn new(cfg: &PstConfig) -> Self {
        let g = &cfg.geometry;
        let layout = Layout::new(&cfg.ports());
        DwrPstModel {
            n: g.subwarps(),
            w: g.group_size,
            m: g.groups(),
            swb: g.subwarp_bits(),
            pc_bits: g.pc_bits,
            nw: g.subwarps().div_ceil(64),
            mw: g.groups().div_ceil(64),
            inp: InPorts::new(&layout),
            out: OutPorts::new(&layout),
            pst: Pst::new(g),
            last: LastCycle {
                pc_before: vec![0; g.groups()],
                ..LastCycle::default()
            },
            counters: PstCounters::default(),
            cycle: 0,
        }
    }

    /// Make the model deliberately wrong (tests of the invariant checker only).
    pub fn inject_fault(&mut self, fault: Option<PstFault>) {
        self.pst.inject_fault(fault);
    }

    pub fn table(&self) -> &Pst {
        &self.pst
    }

    pub fn counters(&self) -> &PstCounters {
        &self.counters
    }
}

impl Model for DwrPstModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let (i, o) = (self.inp, self.out);
        let all = Bits::low(self.n);
        let reset = inputs[i.reset] & 1 != 0;
        let arr_valid = inputs[i.arr_valid] & 1 != 0;
        let arr_sw = inputs.field_at(i.arr_sw, 0, self.swb) as usize;
        let arr_pc = inputs.field_at(i.arr_pc, 0, self.pc_bits);
        let arr_hit = inputs[i.arr_hit] & 1 != 0;
        let sw_valid = Bits::read(&inputs[i.sw_valid..], self.nw) & all;
        let sw_blockbar = Bits::read(&inputs[i.sw_blockbar..], self.nw) & all;

        // Debug ports: the registered rows at the start of the cycle.
        self.pst
            .valid_rows()
            .write(&mut outputs[o.dbg_valid..], self.mw);
        let img = self.pst.pc_image();
        outputs[o.dbg_pc..o.dbg_pc + img.len()].copy_from_slice(img);
        self.pst.lock().write(&mut outputs[o.dbg_lock..], self.nw);

        let last = &mut self.last;
        last.stepped = true;
        last.reset = reset;
        last.valid_before = self.pst.valid_rows();
        last.lock_before = self.pst.lock();
        last.pc_before.copy_from_slice(self.pst.pcs());
        last.sw_valid = sw_valid;
        last.sw_blockbar = sw_blockbar;
        last.arr = arr_valid.then_some((arr_sw, arr_pc, arr_hit));
        self.cycle += 1;
        self.counters.cycles += 1;

        if reset {
            self.pst.reset();
            last.arrival = Arrival::default();
            last.rel = Release::default();
            outputs[o.arr_mismatch] = 0;
            Bits::ZERO.write(&mut outputs[o.rel..], self.mw);
            Bits::ZERO.write(&mut outputs[o.rel_d4..], self.mw);
            Bits::ZERO.write(&mut outputs[o.released..], self.nw);
            self.counters.resets += 1;
            return;
        }

        // Step 1: the arrival; step 2: Eq. 5-1 on every row, then clear the released rows.
        let arrival = if arr_valid {
            self.pst.arrive(arr_sw, arr_pc, arr_hit)
        } else {
            Arrival::default()
        };
        let rel = self.pst.evaluate(&sw_valid, &sw_blockbar);
        self.pst.clear(&rel);

        outputs[o.arr_mismatch] = arrival.mismatch as u64;
        rel.rows.write(&mut outputs[o.rel..], self.mw);
        rel.d4.write(&mut outputs[o.rel_d4..], self.mw);
        rel.released.write(&mut outputs[o.released..], self.nw);

        let c = &mut self.counters;
        if arr_valid {
            if arr_sw >= self.n {
                c.ignored_arrivals += 1;
            } else if arr_hit {
                c.bypasses += 1;
            } else if arrival.opened {
                c.opened += 1;
            } else if arrival.mismatch {
                c.mismatches += 1;
            } else {
                c.same_pc += 1;
            }
        }
        let n_rel = rel.rows.count() as u64;
        c.releases += n_rel;
        c.d4_releases += rel.d4.count() as u64;
        c.multi_row_releases += (n_rel >= 2) as u64;
        let arr_row = (arrival.locked).then(|| arr_sw / self.w);
        c.releases_without_arrival +=
            rel.rows.iter().filter(|&r| Some(r) != arr_row).count() as u64;
        c.open_and_release += (arrival.opened && arr_row.is_some_and(|r| rel.rows.get(r))) as u64;
        c.table_full += (self.pst.valid_rows().count() == self.m) as u64;
        last.arrival = arrival;
        last.rel = rel;
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let c = &self.counters;
        vec![
            // Arrivals that locked their row (an ILT hit bypasses the PST).
            ("arrivals", c.opened + c.same_pc + c.mismatches),
            ("releases", c.releases),
            ("rows_opened", c.opened),
            ("mismatches", c.mismatches),
            ("ilt_bypasses", c.bypasses),
            ("d4_releases", c.d4_releases),
        ]
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.pst.check()?;
        let l = &self.last;
        if !l.stepped {
            return Ok(());
        }
        if l.reset {
            if !self.pst.valid_rows().is_zero() || !self.pst.lock().is_zero() {
                return Err("state after reset is not the reset state".into());
            }
            return Ok(());
        }
        // The rows after the arrival and before the release, rebuilt from the start-of-cycle
        // rows and the arrival alone (§3.4 step 1).
        let mut valid = l.valid_before;
        let mut lock = l.lock_before;
        let mut opened: Option<(usize, u64)> = None;
        let mut want_mismatch = false;
        if let Some((sw, pc, hit)) = l.arr {
            if sw < self.n && !hit {
                let row = sw / self.w;
                if !valid.get(row) {
                    valid.set(row);
                    opened = Some((row, pc));
                } else if l.pc_before[row] != pc {
                    want_mismatch = true;
                }
                lock.set(sw);
            }
        }
        let pc_of = |row: usize| match opened {
            Some((r, pc)) if r == row => pc,
            _ => l.pc_before[row],
        };
        if l.arrival.mismatch != want_mismatch {
            return Err(format!(
                "I-EPISODE: arr_mismatch = {} for arrival {:?} on rows {}",
                l.arrival.mismatch as u8, l.arr, l.valid_before
            ));
        }
        // Eq. 5-1 per row on W-bit fields: a member has arrived when it is invalid, locked
        // or blocked in __syncthreads; only D4 when valid, blocked and not locked.
        let all = Bits::low(self.n);
        let arrived = all.not_in(l.sw_valid) | lock | l.sw_blockbar;
        let only_d4 = (l.sw_valid & l.sw_blockbar).not_in(lock);
        let full = if self.w == 64 {
            u64::MAX
        } else {
            (1u64 << self.w) - 1
        };
        let mut want_rel = Bits::ZERO;
        let mut want_d4 = Bits::ZERO;
        let mut want_released = Bits::ZERO;
        for row in valid.iter() {
            if arrived.bits(row * self.w, self.w) == full {
                want_rel.set(row);
                if only_d4.bits(row * self.w, self.w) != 0 {
                    want_d4.set(row);
                }
                for k in 0..self.w {
                    if lock.get(row * self.w + k) {
                        want_released.set(row * self.w + k);
                    }
                }
            }
        }
        if l.rel.rows != want_rel {
            return Err(format!(
                "I-RELEASE/I-LIVENESS: Eq. 5-1 holds for rows {want_rel} but rel = {}",
                l.rel.rows
            ));
        }
        if l.rel.d4 != want_d4 {
            return Err(format!("D4: rel_d4 = {}, expected {want_d4}", l.rel.d4));
        }
        if l.rel.released != want_released {
            return Err(format!(
                "I-RELEASE: released {}, locked members of released rows {want_released}",
                l.rel.released
            ));
        }
        // A6: released rows are cleared; every other row is exactly as the arrival left it
        // (I-EPISODE, I-BYPASS).
        let now_valid = self.pst.valid_rows();
        if !(now_valid & want_rel).is_zero() {
            return Err(format!(
                "A6: rows {} released but still valid",
                now_valid & want_rel
            ));
        }
        if now_valid != valid.not_in(want_rel) || self.pst.lock() != lock.not_in(want_released) {
            return Err(format!(
                "I-EPISODE/I-BYPASS: rows {} locks {}, expected rows {} locks {}",
                now_valid,
                self.pst.lock(),
                valid.not_in(want_rel),
                lock.not_in(want_released)
            ));
        }
        for row in now_valid.iter() {
            if self.pst.pcs()[row] != pc_of(row) {
                return Err(format!(
                    "I-EPISODE: row {row} pc {:#x}, first arrival's pc {:#x}",
                    self.pst.pcs()[row],
                    pc_of(row)
                ));
            }
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        format!("cycle {} pst rows{}", self.cycle, self.pst.summary())
    }
}

// ---------------------------------------------------------------------------------------
// Stimulus

/// Constrained-random inputs for `dwr-pst`. It keeps the scheduler's view (which sub-warps
/// are locked), arrives only with unlocked sub-warps, keeps locked ones valid and not in
/// `__syncthreads`, and toggles the valid and blockbar bits of the others freely — often
/// dropping the last members of several groups in one cycle.
#[derive(Clone, Debug)]
pub struct DwrPstStimulus {
    rng: Rng,
    n: usize,
    w: usize,
    swb: usize,
    pc_bits: usize,
    nw: usize,
    inp: InPorts,
    out_released: usize,
    /// Locked sub-warps (the scheduler's WAIT_PARTNER).
    locked: Bits,
    valid: Bits,
    blockbar: Bits,
    /// The last cycle's arrival (sub-warp, and whether it could lock).
    last_arrival: Option<usize>,
    phase_left: u64,
    arrive_rate: u64,
    hit_rate: u64,
    pool: [u64; 4],
    pool_size: usize,
    toggle_rate: u64,
    mass_exit_rate: u64,
}

impl DwrPstStimulus {
    pub fn new(cfg: &PstConfig, seed: u64) -> Self {
        let g = &cfg.geometry;
        let layout = Layout::new(&cfg.ports());
        DwrPstStimulus {
            rng: Rng::new(seed),
            n: g.subwarps(),
            w: g.group_size,
            swb: g.subwarp_bits(),
            pc_bits: g.pc_bits,
            nw: g.subwarps().div_ceil(64),
            inp: InPorts::new(&layout),
            out_released: port_offset(&layout.outputs, "dwr-pst", "released"),
            locked: Bits::ZERO,
            valid: Bits::ZERO,
            blockbar: Bits::ZERO,
            last_arrival: None,
            phase_left: 0,
            arrive_rate: 2,
            hit_rate: 5,
            pool: [0; 4],
            pool_size: 2,
            toggle_rate: 10,
            mass_exit_rate: 50,
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 200 + r.below(800);
        self.arrive_rate = 1 + r.below(4);
        self.hit_rate = [0, 5, 10, 3][r.below(4) as usize];
        self.pool_size = 1 + r.below(4) as usize;
        let mask = low_bits(self.pc_bits);
        for p in self.pool.iter_mut() {
            *p = r.next_u64() & mask;
        }
        self.toggle_rate = 2 + r.below(30);
        self.mass_exit_rate = 10 + r.below(200);
        if r.chance(1, 3) {
            // A busy phase: every sub-warp running, few exits, so rows stay open and the
            // table fills up.
            self.valid = Bits::low(self.n);
            self.blockbar = Bits::ZERO;
            self.toggle_rate = 50 + r.below(200);
            self.mass_exit_rate = 500 + r.below(2000);
        }
    }

    /// A member of `set`, uniformly.
    fn random_member(&mut self, set: Bits) -> Option<usize> {
        let k = set.count();
        if k == 0 {
            return None;
        }
        set.nth(self.rng.below(k as u64) as usize)
    }
}

impl Stimulus for DwrPstStimulus {
    fn next(&mut self, cycle: u64, prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        let i = self.inp;
        let all = Bits::low(self.n);
        // Last cycle: the arrival locked (unless released at once), released members unlock.
        if cycle > 0 && !prev_outputs.is_empty() {
            if let Some(sw) = self.last_arrival.take() {
                self.locked.set(sw);
            }
            let released = Bits::read(&prev_outputs[self.out_released..], self.nw);
            self.locked = self.locked.not_in(released);
        }
        self.last_arrival = None;
        if cycle < 2 || self.rng.chance(1, 20_000) {
            inputs[i.reset] = 1;
            self.locked = Bits::ZERO;
            self.valid = Bits::ZERO;
            self.blockbar = Bits::ZERO;
            return;
        }
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;

        // Unlocked sub-warps come and go, and block in __syncthreads, freely.
        let free = all.not_in(self.locked);
        if self.rng.chance(1, self.toggle_rate) {
            if let Some(s) = self.random_member(free) {
                self.valid.toggle(s);
            }
        }
        if self.rng.chance(1, self.toggle_rate) {
            if let Some(s) = self.random_member(free) {
                self.blockbar.toggle(s);
            }
        }
        if self.rng.chance(1, 4 * self.toggle_rate) {
            // Launch a whole group.
            let g = self.rng.below((self.n / self.w) as u64) as usize;
            for s in g * self.w..(g + 1) * self.w {
                self.valid.set(s);
            }
        }
        if self.rng.chance(1, self.mass_exit_rate) {
            // The unlocked members of several groups exit (or block) in one cycle.
            let drop = free & Bits::random(&mut self.rng, self.n, 4);
            if self.rng.chance(1, 3) {
                self.blockbar = self.blockbar | drop;
            } else {
                self.valid = self.valid.not_in(drop);
            }
        }
        // An arrival of a valid, unlocked sub-warp (sometimes of an invalid or out-of-range one).
        let mut sw_valid = self.valid | self.locked;
        let blockbar = self.blockbar.not_in(self.locked);
        if self.rng.chance(1, self.arrive_rate) {
            let cand = (self.valid & all).not_in(self.locked).not_in(blockbar);
            let sw = if self.rng.chance(1, 50) {
                Some(self.rng.below(1 << self.swb) as usize)
            } else {
                self.random_member(cand)
            };
            if let Some(sw) = sw {
                let pc = self.pool[self.rng.below(self.pool_size as u64) as usize];
                let hit = self.rng.chance(self.hit_rate, 20);
                inputs[i.arr_valid] = 1;
                inputs.set_field_at(i.arr_sw, 0, self.swb, sw as u64);
                inputs.set_field_at(i.arr_pc, 0, self.pc_bits, pc);
                inputs[i.arr_hit] = hit as u64;
                if sw < self.n && !hit {
                    self.last_arrival = Some(sw);
                    // A locked sub-warp stays valid and out of __syncthreads.
                    sw_valid.set(sw);
                    self.valid.set(sw);
                    self.blockbar.clear(sw);
                }
            }
        }
        let blockbar = self.blockbar.not_in(self.locked);
        let blockbar = match self.last_arrival {
            Some(sw) => {
                let mut b = blockbar;
                b.clear(sw);
                b
            }
            None => blockbar,
        };
        sw_valid.write(&mut inputs[i.sw_valid..], self.nw);
        blockbar.write(&mut inputs[i.sw_blockbar..], self.nw);
    }
}

// ---------------------------------------------------------------------------------------
// Spec vectors

fn pst_vb(name: &str, sets: &[&str]) -> Vb {
    Vb::new(name, dwr_pst::NAME, sets)
}

/// The directed vectors of `dwr-pst` (docs/dwr.md §8.15 and the arrival and release rules).
pub fn spec_vectors() -> Vec<SpecVector> {
    let small = ["threads=32", "group_size=4"];
    let mut v = vec![];

    // §4.4 trace: A arrives (row invalid → opens), C arrives at the same PC, B is invalid.
    v.push(
        pst_vb(
            "dwr.md §4.4 PST trace: open, same PC, release with B invalid",
            &small,
        )
        .reset()
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 0),
                ("arr_pc", 10),
                ("sw_valid", 0b0101),
            ],
            &[
                ("arr_mismatch", 0),
                ("rel", 0),
                ("rel_d4", 0),
                ("released", 0),
                ("dbg_valid", 0),
            ],
        )
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 2),
                ("arr_pc", 10),
                ("sw_valid", 0b0101),
            ],
            &[
                ("dbg_valid", 1),
                ("dbg_pc", 10),
                ("dbg_lock", 0b0001),
                ("arr_mismatch", 0),
                ("rel", 1),
                ("rel_d4", 0),
                ("released", 0b0101),
            ],
        )
        .cycle(
            &[("sw_valid", 0b0101)],
            &[
                ("dbg_valid", 0),
                ("dbg_pc", 0),
                ("dbg_lock", 0),
                ("rel", 0),
                ("released", 0),
            ],
        )
        .done(),
    );

    // Arrival rules: open, bypass on an ILT hit, same PC, different PC (mismatch, row PC
    // kept), bypass again, then a D4 release by the last member blocking in __syncthreads.
    let full = ("sw_valid", 0b1111);
    v.push(
        pst_vb(
            "dwr.md §3.4 arrival rules: open, ILT hit, same PC, mismatch, D4 release",
            &small,
        )
        .reset()
        .cycle(
            &[("arr_valid", 1), ("arr_sw", 1), ("arr_pc", 20), full],
            &[("arr_mismatch", 0), ("rel", 0), ("dbg_valid", 0)],
        )
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 3),
                ("arr_pc", 20),
                ("arr_hit", 1),
                full,
            ],
            &[
                ("dbg_valid", 1),
                ("dbg_pc", 20),
                ("dbg_lock", 0b0010),
                ("arr_mismatch", 0),
                ("rel", 0),
            ],
        )
        .cycle(
            &[("arr_valid", 1), ("arr_sw", 2), ("arr_pc", 20), full],
            &[
                ("dbg_valid", 1),
                ("dbg_pc", 20),
                ("dbg_lock", 0b0010),
                ("arr_mismatch", 0),
                ("rel", 0),
            ],
        )
        .cycle(
            &[("arr_valid", 1), ("arr_sw", 0), ("arr_pc", 33), full],
            &[
                ("dbg_lock", 0b0110),
                ("arr_mismatch", 1),
                ("rel", 0),
                ("released", 0),
            ],
        )
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 3),
                ("arr_pc", 33),
                ("arr_hit", 1),
                full,
            ],
            &[
                ("dbg_valid", 1),
                ("dbg_pc", 20),
                ("dbg_lock", 0b0111),
                ("arr_mismatch", 0),
                ("rel", 0),
            ],
        )
        .cycle(
            &[full, ("sw_blockbar", 0b1000)],
            &[
                ("dbg_valid", 1),
                ("dbg_pc", 20),
                ("dbg_lock", 0b0111),
                ("rel", 1),
                ("rel_d4", 1),
                ("released", 0b0111),
            ],
        )
        .cycle(
            &[full],
            &[("dbg_valid", 0), ("dbg_pc", 0), ("dbg_lock", 0), ("rel", 0)],
        )
        .done(),
    );

    // S4 at table level: an exit alone releases the group.
    v.push(
        pst_vb(
            "dwr.md S4 exit-only release: sw_valid drop with no arrival",
            &small,
        )
        .reset()
        .cycle(
            &[("arr_valid", 1), ("arr_sw", 0), ("arr_pc", 5), full],
            &[("rel", 0)],
        )
        .cycle(
            &[("arr_valid", 1), ("arr_sw", 1), ("arr_pc", 5), full],
            &[("rel", 0)],
        )
        .cycle(
            &[("arr_valid", 1), ("arr_sw", 2), ("arr_pc", 5), full],
            &[("rel", 0)],
        )
        .cycle(&[full], &[("dbg_lock", 0b0111), ("rel", 0)])
        .cycle(
            &[("sw_valid", 0b0111)],
            &[
                ("dbg_valid", 1),
                ("dbg_lock", 0b0111),
                ("rel", 1),
                ("rel_d4", 0),
                ("released", 0b0111),
            ],
        )
        .cycle(
            &[("sw_valid", 0b0111)],
            &[("dbg_valid", 0), ("dbg_lock", 0)],
        )
        .done(),
    );

    // A row opened and released in one cycle is never seen valid; a lone member; D4 with the
    // opening arrival.
    v.push(
        pst_vb(
            "dwr.md S10 lone member: a row opened and released in one cycle",
            &small,
        )
        .reset()
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 0),
                ("arr_pc", 7),
                ("sw_valid", 0b0001),
            ],
            &[
                ("rel", 1),
                ("released", 0b0001),
                ("rel_d4", 0),
                ("arr_mismatch", 0),
            ],
        )
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 0),
                ("arr_pc", 7),
                ("sw_valid", 0b0011),
                ("sw_blockbar", 0b0010),
            ],
            &[
                ("dbg_valid", 0),
                ("rel", 1),
                ("rel_d4", 1),
                ("released", 0b0001),
            ],
        )
        .cycle(
            &[("sw_valid", 0b0011)],
            &[("dbg_valid", 0), ("dbg_lock", 0), ("rel", 0)],
        )
        .done(),
    );

    // Many rows release in one cycle: W = 2, rows 0–3 each hold member 0, then every
    // member 1 exits at once.
    let pcs = pack_fields(32, &[3, 4, 5, 6]);
    v.push(
        pst_vb(
            "dwr.md §3.5 four rows released by one cycle of exits",
            &["threads=64", "group_size=2"],
        )
        .reset()
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 0),
                ("arr_pc", 3),
                ("sw_valid", 0xFF),
            ],
            &[("rel", 0)],
        )
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 2),
                ("arr_pc", 4),
                ("sw_valid", 0xFF),
            ],
            &[("rel", 0)],
        )
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 4),
                ("arr_pc", 5),
                ("sw_valid", 0xFF),
            ],
            &[("rel", 0)],
        )
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 6),
                ("arr_pc", 6),
                ("sw_valid", 0xFF),
            ],
            &[("rel", 0)],
        )
        .cycle_words(
            &[("sw_valid", vec![0x55])],
            &[
                ("dbg_valid", vec![0b1111]),
                ("dbg_pc", pcs),
                ("dbg_lock", vec![0x55]),
                ("rel", vec![0b1111]),
                ("rel_d4", vec![0]),
                ("released", vec![0x55]),
            ],
        )
        .cycle(
            &[("sw_valid", 0x55)],
            &[("dbg_valid", 0), ("dbg_pc", 0), ("dbg_lock", 0)],
        )
        .done(),
    );

    // An arrival of a sub-warp number ≥ N is ignored (N = 12 needs 4-bit sub-warp numbers).
    let mut dbg_pc = vec![0u64; 2];
    dbg_pc.set_field(2, 32, 1);
    v.push(
        pst_vb(
            "dwr-pst arr_sw >= N is ignored",
            &["threads=96", "group_size=4"],
        )
        .reset()
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 13),
                ("arr_pc", 1),
                ("sw_valid", 0xFFF),
            ],
            &[("rel", 0), ("arr_mismatch", 0), ("released", 0)],
        )
        .cycle(
            &[
                ("arr_valid", 1),
                ("arr_sw", 11),
                ("arr_pc", 1),
                ("sw_valid", 0xFFF),
            ],
            &[("dbg_valid", 0), ("rel", 0)],
        )
        .cycle_words(
            &[("sw_valid", vec![0xFFF])],
            &[
                ("dbg_valid", vec![0b100]),
                ("dbg_pc", dbg_pc),
                ("dbg_lock", vec![0x800]),
            ],
        )
        .done(),
    );
    v
}
