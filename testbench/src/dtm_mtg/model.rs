//! The memo table as a plain struct ([`MemoTable`]: lookup, upsert, sweep, each applied alone
//! as the contract's sequential semantics say) and the port-level model ([`DtmMtgModel`]):
//! passes, the two-cycle pipeline, the sweep's busy time.

use warpforge_contract::units::dtm::set_of;
use warpforge_contract::units::dtm_mtg::MtgConfig;
use warpforge_contract::Layout;

use crate::words;
use crate::Model;

/// A deliberate model bug, for tests that show the checks (and lockstep) catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MtgFault {
    /// The victim is always the LRU way, even when the set has an invalid way.
    VictimIgnoresInvalid,
    /// An upsert of a present key inserts a second copy (A2/A13 broken).
    DuplicateOnUpsert,
}

/// The key of an entry (§2.2: the PC implies the opcode, types and register ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub kid: u64,
    pub pc: u64,
    pub sv: [u64; 3],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    pub key: Key,
    pub res: u64,
    pub uid: u64,
}

/// What one lane's operation did (the response fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub set: usize,
    pub hit: bool,
    pub way: usize,
    pub evict: bool,
    /// The matching entry's res and uid before the operation (0 without a match).
    pub res: u64,
    pub uid: u64,
}

/// Event counters (coverage), in [`MemoTable::events`] order.
#[derive(Clone, Copy, Debug, Default)]
pub struct MtgEvents {
    pub lookup_hits: u64,
    pub lookups: u64,
    pub upserts: u64,
    pub refreshes: u64,
    pub inserts: u64,
    pub evictions: u64,
    pub passes: u64,
    /// Cycles whose pass left lanes for a later cycle (bank conflicts, A14).
    pub split_passes: u64,
    pub kid_sweeps: u64,
    pub flushes: u64,
    pub swept_entries: u64,
}

/// The MTG: `sets` × `ways` slots and a rank per slot (0 = MRU).
#[derive(Clone, Debug)]
pub struct MemoTable {
    sets: usize,
    ways: usize,
    slots: Vec<Option<Entry>>,
    rank: Vec<u8>,
    fault: Option<MtgFault>,
    violation: Option<String>,
    /// Sets changed since the last invariant check.
    touched: Vec<usize>,
    pub ev: MtgEvents,
}

impl MemoTable {
    pub fn new(sets: usize, ways: usize) -> MemoTable {
        let mut t = MemoTable {
            sets,
            ways,
            slots: vec![None; sets * ways],
            rank: vec![0; sets * ways],
            fault: None,
            violation: None,
            touched: vec![],
            ev: MtgEvents::default(),
        };
        t.flush();
        t
    }

    pub fn inject_fault(&mut self, fault: Option<MtgFault>) {
        self.fault = fault;
    }

    pub fn set_of(&self, k: &Key) -> usize {
        set_of(self.sets, k.kid, k.pc, k.sv)
    }

    /// Empty, ranks reset to rank = way (what a flush writes).
    pub fn flush(&mut self) {
        let w = self.ways;
        self.slots.iter_mut().for_each(|s| *s = None);
        for (i, r) in self.rank.iter_mut().enumerate() {
            *r = (i % w) as u8;
        }
    }

    pub fn entry(&self, set: usize, way: usize) -> Option<&Entry> {
        self.slots[set * self.ways + way].as_ref()
    }

    pub fn rank(&self, set: usize, way: usize) -> u8 {
        self.rank[set * self.ways + way]
    }

    /// Valid entries.
    /// The table's state (entries and LRU ranks) as one hash, for I12 (a disabled DTM never
    /// changes its tables).
    pub fn digest(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.slots.hash(&mut h);
        self.rank.hash(&mut h);
        h.finish()
    }

    pub fn occupancy(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    fn find(&self, set: usize, k: &Key) -> Option<usize> {
        let base = set * self.ways;
        (0..self.ways).find(|&w| self.slots[base + w].is_some_and(|e| e.key == *k))
    }

    /// Make way `w` of `set` MRU.
    fn touch(&mut self, set: usize, w: usize) {
        let base = set * self.ways;
        let r = self.rank[base + w];
        for x in &mut self.rank[base..base + self.ways] {
            if *x < r {
                *x += 1;
            }
        }
        self.rank[base + w] = 0;
    }

    /// The victim of `set` (§2.5): the lowest invalid way, else the LRU way.
    fn victim(&self, set: usize) -> usize {
        let base = set * self.ways;
        let lru = (0..self.ways)
            .find(|&w| self.rank[base + w] as usize == self.ways - 1)
            .unwrap_or(0);
        if self.fault == Some(MtgFault::VictimIgnoresInvalid) {
            return lru;
        }
        (0..self.ways)
            .find(|&w| self.slots[base + w].is_none())
            .unwrap_or(lru)
    }

    /// §3.2 lookup: a hit becomes MRU.
    pub fn lookup(&mut self, k: &Key) -> Outcome {
        self.ev.lookups += 1;
        let set = self.set_of(k);
        let mut o = Outcome {
            set,
            ..Outcome::default()
        };
        if let Some(w) = self.find(set, k) {
            let e = self.slots[set * self.ways + w].unwrap();
            self.touch(set, w);
            self.touched.push(set);
            self.ev.lookup_hits += 1;
            o = Outcome {
                set,
                hit: true,
                way: w,
                evict: false,
                res: e.res,
                uid: e.uid,
            };
            self.check_mru(set, w);
        }
        o
    }

    /// A2/A13 upsert: refresh (uid, MRU) a present key; else allocate the victim.
    pub fn upsert(&mut self, k: &Key, res: u64, uid: u64) -> Outcome {
        self.ev.upserts += 1;
        let set = self.set_of(k);
        self.touched.push(set);
        let present = if self.fault == Some(MtgFault::DuplicateOnUpsert) {
            None
        } else {
            self.find(set, k)
        };
        let o = if let Some(w) = present {
            let e = self.slots[set * self.ways + w].as_mut().unwrap();
            let old = *e;
            e.uid = uid;
            self.ev.refreshes += 1;
            self.touch(set, w);
            Outcome {
                set,
                hit: true,
                way: w,
                evict: false,
                res: old.res,
                uid: old.uid,
            }
        } else {
            let w = self.victim(set);
            let evict = self.slots[set * self.ways + w].is_some();
            self.slots[set * self.ways + w] = Some(Entry { key: *k, res, uid });
            self.ev.inserts += 1;
            self.ev.evictions += evict as u64;
            self.touch(set, w);
            Outcome {
                set,
                hit: false,
                way: w,
                evict,
                res: 0,
                uid: 0,
            }
        };
        self.check_mru(set, o.way);
        o
    }

    /// A18: clear every entry of `kid` (kernel retire), or every entry with `all` (a flush,
    /// which also resets the ranks).
    pub fn sweep(&mut self, all: bool, kid: u64) {
        if all {
            self.ev.flushes += 1;
            self.ev.swept_entries += self.occupancy() as u64;
            self.flush();
            return;
        }
        self.ev.kid_sweeps += 1;
        for s in self.slots.iter_mut() {
            if s.is_some_and(|e| e.key.kid == kid) {
                *s = None;
                self.ev.swept_entries += 1;
            }
        }
        // I11: nothing of that kernel can hit any more.
        if self.slots.iter().flatten().any(|e| e.key.kid == kid) {
            self.violation = Some(format!("I11: an entry of kid {kid} survived its sweep"));
        }
    }

    /// I15: the way just hit or written is MRU.
    fn check_mru(&mut self, set: usize, w: usize) {
        if self.rank(set, w) != 0 && self.violation.is_none() {
            self.violation = Some(format!(
                "I15: set {set} way {w} is not MRU after its access"
            ));
        }
    }

    /// I5 (no duplicate key), placement (an entry sits in H's set) and LRU (the ranks are a
    /// permutation) on one set.
    fn check_set(&self, set: usize) -> Result<(), String> {
        let base = set * self.ways;
        let mut seen = 0u64;
        for w in 0..self.ways {
            let r = self.rank[base + w] as usize;
            if r >= self.ways || seen >> r & 1 == 1 {
                return Err(format!("I15: set {set}: ranks are not a permutation"));
            }
            seen |= 1 << r;
            if let Some(e) = &self.slots[base + w] {
                if self.set_of(&e.key) != set {
                    return Err(format!(
                        "§2.5: set {set} way {w} holds a key of another set"
                    ));
                }
                for x in w + 1..self.ways {
                    if self.slots[base + x].is_some_and(|f| f.key == e.key) {
                        return Err(format!("I5: set {set}: ways {w} and {x} hold the same key"));
                    }
                }
            }
        }
        Ok(())
    }

    /// Start of a cycle: the sets changed in it are collected afresh.
    pub fn begin_cycle(&mut self) {
        self.touched.clear();
    }

    /// The invariants on the sets changed in the last cycle (every set with `all`), and any
    /// violation seen while applying an operation.
    pub fn check(&self, all: bool) -> Result<(), String> {
        if let Some(v) = &self.violation {
            return Err(v.clone());
        }
        if all {
            return (0..self.sets).try_for_each(|s| self.check_set(s));
        }
        self.touched.iter().try_for_each(|&s| self.check_set(s))
    }

    pub fn events(&self) -> Vec<(&'static str, u64)> {
        let e = &self.ev;
        vec![
            ("lookup_hits", e.lookup_hits),
            ("lookups", e.lookups),
            ("upserts", e.upserts),
            ("refreshes", e.refreshes),
            ("inserts", e.inserts),
            ("evictions", e.evictions),
            ("passes", e.passes),
            ("split_passes", e.split_passes),
            ("kid_sweeps", e.kid_sweeps),
            ("flushes", e.flushes),
            ("swept_entries", e.swept_entries),
        ]
    }
}

/// Port offsets (words) and per-lane field widths.
#[derive(Clone, Copy, Debug)]
pub struct Ports {
    pub reset: usize,
    pub req_valid: usize,
    pub req_op: usize,
    pub req_mask: usize,
    pub req_kid: usize,
    pub req_pc: usize,
    pub req_sv: [usize; 3],
    pub req_res: usize,
    pub req_uid: usize,
    pub inv_valid: usize,
    pub inv_all: usize,
    pub inv_kid: usize,
    pub req_ready: usize,
    pub busy: usize,
    pub rsp_valid: usize,
    pub rsp_op: usize,
    pub rsp_lanes: usize,
    pub rsp_set: usize,
    pub rsp_hit: usize,
    pub rsp_way: usize,
    pub rsp_evict: usize,
    pub rsp_res: usize,
    pub rsp_uid: usize,
    pub dbg_served: usize,
    pub dbg_sweep_row: usize,
    pub out_words: usize,
}

impl Ports {
    pub fn new(cfg: &MtgConfig) -> Ports {
        let l = Layout::new(&cfg.ports());
        let i = |n: &str| l.input(n).expect("dtm-mtg input").offset;
        let o = |n: &str| l.output(n).expect("dtm-mtg output").offset;
        Ports {
            reset: i("reset"),
            req_valid: i("req_valid"),
            req_op: i("req_op"),
            req_mask: i("req_mask"),
            req_kid: i("req_kid"),
            req_pc: i("req_pc"),
            req_sv: [i("req_sv1"), i("req_sv2"), i("req_sv3")],
            req_res: i("req_res"),
            req_uid: i("req_uid"),
            inv_valid: i("inv_valid"),
            inv_all: i("inv_all"),
            inv_kid: i("inv_kid"),
            req_ready: o("req_ready"),
            busy: o("busy"),
            rsp_valid: o("rsp_valid"),
            rsp_op: o("rsp_op"),
            rsp_lanes: o("rsp_lanes"),
            rsp_set: o("rsp_set"),
            rsp_hit: o("rsp_hit"),
            rsp_way: o("rsp_way"),
            rsp_evict: o("rsp_evict"),
            rsp_res: o("rsp_res"),
            rsp_uid: o("rsp_uid"),
            dbg_served: o("dbg_served"),
            dbg_sweep_row: o("dbg_sweep_row"),
            out_words: l.out_words,
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

/// One lane's operation in flight (between its read and its compare).
#[derive(Clone, Copy, Debug)]
struct LaneOp {
    lane: usize,
    key: Key,
    res: u64,
    uid: u64,
}

/// The port-level model of `dtm-mtg`.
#[derive(Clone, Debug)]
pub struct DtmMtgModel {
    cfg: MtgConfig,
    p: Ports,
    pub table: MemoTable,
    served: u64,
    busy: bool,
    sweep_row: usize,
    /// The pass read in the last cycle, its operation (true: upsert).
    pending: Vec<LaneOp>,
    pending_upsert: bool,
    /// A sweep accepted in the last cycle: (all, kid).
    pending_sweep: Option<(bool, u64)>,
    cycles: u64,
    /// Scratch: lane banks of this cycle.
    banks: Vec<usize>,
}

impl DtmMtgModel {
    pub fn new(cfg: &MtgConfig) -> DtmMtgModel {
        DtmMtgModel {
            p: Ports::new(cfg),
            table: MemoTable::new(cfg.sets(), cfg.ways),
            served: 0,
            busy: true,
            sweep_row: 0,
            pending: Vec::with_capacity(cfg.simd),
            pending_upsert: false,
            pending_sweep: None,
            cycles: 0,
            banks: vec![0; cfg.simd],
            cfg: *cfg,
        }
    }

    pub fn inject_fault(&mut self, fault: Option<MtgFault>) {
        self.table.inject_fault(fault);
    }

    pub fn config(&self) -> &MtgConfig {
        &self.cfg
    }

    fn lane_key(&self, inputs: &[u64], l: usize) -> Key {
        let c = &self.cfg;
        let v = c.val_bits;
        let f = |at: usize| words::get(&inputs[at..], l * v, v);
        Key {
            kid: inputs[self.p.req_kid] & mask(c.kid_bits),
            pc: inputs[self.p.req_pc] & mask(c.pc_bits),
            sv: [
                f(self.p.req_sv[0]),
                f(self.p.req_sv[1]),
                f(self.p.req_sv[2]),
            ],
        }
    }

    /// Stage 2 of the pass read in the last cycle: apply its lanes, write the response.
    fn respond(&mut self, out: &mut [u64]) {
        let c = &self.cfg;
        let (p, s) = (&self.p, c.simd);
        if self.pending.is_empty() {
            return;
        }
        self.table.ev.passes += 1;
        out[p.rsp_valid] = 1;
        out[p.rsp_op] = self.pending_upsert as u64;
        let (sb, wb, v, u) = (c.set_bits(), c.way_bits(), c.val_bits, c.uid_bits);
        let mut lanes = 0u64;
        for i in 0..self.pending.len() {
            let op = self.pending[i];
            let o = if self.pending_upsert {
                self.table.upsert(&op.key, op.res, op.uid)
            } else {
                self.table.lookup(&op.key)
            };
            let l = op.lane;
            lanes |= 1 << l;
            words::set(&mut out[p.rsp_set..], l * sb, sb, o.set as u64);
            words::set(&mut out[p.rsp_hit..], l, 1, o.hit as u64);
            words::set(&mut out[p.rsp_way..], l * wb, wb, o.way as u64);
            words::set(&mut out[p.rsp_evict..], l, 1, o.evict as u64);
            words::set(&mut out[p.rsp_res..], l * v, v, o.res);
            words::set(&mut out[p.rsp_uid..], l * u, u, o.uid);
        }
        debug_assert!(s <= 64);
        out[p.rsp_lanes] = lanes;
    }
}

impl Model for DtmMtgModel {
    fn step(&mut self, inputs: &[u64], out: &mut [u64]) {
        out.iter_mut().for_each(|x| *x = 0);
        self.cycles += 1;
        let (c, p) = (self.cfg, self.p);
        let bit = |at: usize| inputs[at] & 1 == 1;
        let reset = bit(p.reset);
        self.table.begin_cycle();
        // Stage 2 of the last pass, then a sweep accepted in the last cycle (its writes come
        // after: the pass was read first).
        self.respond(out);
        self.pending.clear();
        if let Some((all, kid)) = self.pending_sweep.take() {
            self.table.sweep(all, kid);
            // Every set may have changed.
            self.table.touched.extend(0..self.table.sets);
        }
        // This cycle's pass (A14): ascending unserved lanes while their banks differ.
        let mut pass = 0u64;
        let rem = if bit(p.req_valid) && !self.busy {
            inputs[p.req_mask] & mask(c.simd) & !self.served
        } else {
            0
        };
        if rem != 0 {
            let mut used = 0u64;
            for l in 0..c.simd {
                if rem >> l & 1 == 0 {
                    continue;
                }
                let key = self.lane_key(inputs, l);
                let bank = self.table.set_of(&key) & (c.ports - 1);
                if used >> bank & 1 == 1 {
                    break;
                }
                used |= 1 << bank;
                pass |= 1 << l;
                self.banks[l] = bank;
                let (v, u) = (c.val_bits, c.uid_bits);
                self.pending.push(LaneOp {
                    lane: l,
                    key,
                    res: words::get(&inputs[p.req_res..], l * v, v),
                    uid: words::get(&inputs[p.req_uid..], l * u, u),
                });
            }
        }
        let ready = !self.busy && rem & !pass == 0;
        out[p.req_ready] = ready as u64;
        out[p.busy] = self.busy as u64;
        out[p.dbg_served] = self.served;
        out[p.dbg_sweep_row] = self.sweep_row as u64;
        self.pending_upsert = bit(p.req_op);

        // Next state.
        if reset {
            self.pending.clear();
            self.pending_sweep = None;
            self.table.flush();
            self.served = 0;
            self.busy = true;
            self.sweep_row = 0;
            return;
        }
        if bit(p.req_valid) && !self.busy {
            if ready {
                self.served = 0;
            } else {
                self.served |= pass;
                self.table.ev.split_passes += 1;
            }
        }
        if self.busy {
            if self.sweep_row == c.bank_rows() - 1 {
                self.busy = false;
                self.sweep_row = 0;
            } else {
                self.sweep_row += 1;
            }
        } else if bit(p.inv_valid) {
            self.busy = true;
            self.sweep_row = 0;
            self.pending_sweep = Some((bit(p.inv_all), inputs[p.inv_kid] & mask(c.kid_bits)));
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.table.check(self.cycles.is_multiple_of(256))
    }

    fn state_line(&self) -> String {
        format!(
            "occupancy={} served={:#x} busy={} sweep_row={} pending={:?}",
            self.table.occupancy(),
            self.served,
            self.busy,
            self.sweep_row,
            self.pending.iter().map(|o| o.lane).collect::<Vec<_>>()
        )
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        self.table.events()
    }
}
