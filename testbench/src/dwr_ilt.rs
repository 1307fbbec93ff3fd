//! Cycle model, stimulus and spec vectors of `dwr-ilt`, DWR's Ignore-List Table
//! (spec/dwr.md §2.8, §3.8, A7–A10; contract `units/dwr_ilt.rs`).
//!
//! [`Ilt`] is the table itself (lookup, FIFO insert without duplicates, flush); the standalone
//! unit model drives it from its ports and the composite `dwr` model embeds the same type.

use crate::dwr::{pack_fields, Bits, Fields, Vb};
use crate::rng::Rng;
use crate::words::port_offset;
use crate::{Model, SpecVector, Stimulus};
use warpforge_contract::units::dwr_ilt::{self, IltConfig};
use warpforge_contract::Layout;

/// A deliberate ILT bug, to show that the invariant checks catch wrong behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IltFault {
    /// Inserts do not look for the tag first: duplicates appear.
    Duplicates,
    /// A lookup ignores the valid bits, and a flush keeps the tags: stale entries hit.
    StaleHit,
    /// The FIFO pointer does not advance: every insert overwrites the same way.
    StuckPointer,
}

/// What one insert request did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Insert {
    /// A way was written (the tag was not already in its set).
    pub written: bool,
    /// The written way held a valid entry, now evicted.
    pub evicted: bool,
}

/// The Ignore-List Table: `sets × ways` entries {valid, tag} and a FIFO pointer per set.
#[derive(Clone, Debug)]
pub struct Ilt {
    cfg: IltConfig,
    ways: usize,
    tag_bits: usize,
    ptr_bits: usize,
    /// Entry `e = set·ways + way` at bit `e`.
    valid: Bits,
    tag: Vec<u64>,
    ptr: Vec<usize>,
    /// `dbg_tag` and `dbg_ptr` images, kept up to date by every write.
    tag_image: Vec<u64>,
    ptr_image: Vec<u64>,
    /// Sets written since `begin_cycle` (bit per set), so checks look only at what changed.
    dirty: u32,
    fault: Option<IltFault>,
}

impl Ilt {
    pub fn new(cfg: &IltConfig) -> Ilt {
        let e = cfg.entries();
        Ilt {
            ways: cfg.ways,
            tag_bits: cfg.tag_bits(),
            ptr_bits: cfg.ptr_bits(),
            valid: Bits::ZERO,
            tag: vec![0; e],
            ptr: vec![0; cfg.sets],
            tag_image: vec![0; (e * cfg.tag_bits()).div_ceil(64)],
            ptr_image: vec![0; (cfg.sets * cfg.ptr_bits()).div_ceil(64)],
            dirty: 0,
            fault: None,
            cfg: cfg.clone(),
        }
    }

    pub fn inject_fault(&mut self, fault: Option<IltFault>) {
        self.fault = fault;
    }

    pub fn config(&self) -> &IltConfig {
        &self.cfg
    }

    /// Every valid bit 0, every pointer 0 (reset, and an honoured flush).
    pub fn reset(&mut self) {
        self.valid = Bits::ZERO;
        self.tag.iter_mut().for_each(|t| *t = 0);
        self.ptr.iter_mut().for_each(|p| *p = 0);
        self.tag_image.iter_mut().for_each(|w| *w = 0);
        self.ptr_image.iter_mut().for_each(|w| *w = 0);
        self.dirty = if self.cfg.sets >= 32 {
            u32::MAX
        } else {
            (1u32 << self.cfg.sets) - 1
        };
    }

    /// Start a cycle: forget which sets the last one wrote.
    pub fn begin_cycle(&mut self) {
        self.dirty = 0;
    }

    /// Sets written since `begin_cycle`, set `i` at bit `i`.
    pub fn changed_sets(&self) -> u32 {
        self.dirty
    }

    /// A9: a kernel launch empties the table when `ilt_flush` is on. Returns whether it did.
    pub fn flush(&mut self) -> bool {
        if self.cfg.flush_on_launch {
            if self.fault == Some(IltFault::StaleHit) {
                // The bug: the flush drops the valid bits but the tags stay and still hit.
                let tags = self.tag.clone();
                self.reset();
                self.tag = tags;
            } else {
                self.reset();
            }
        }
        self.cfg.flush_on_launch
    }

    /// The valid way of `set` holding `tag`.
    fn find(&self, set: usize, tag: u64) -> Option<usize> {
        let base = set * self.ways;
        (0..self.ways).find(|&way| {
            let e = base + way;
            (self.valid.get(e) || self.fault == Some(IltFault::StaleHit)) && self.tag[e] == tag
        })
    }

    /// A `bar.synch_partner` looks its PC up (§2.8). No replacement update on a hit (A8).
    pub fn lookup(&self, pc: u64) -> bool {
        self.find(self.cfg.set_of(pc), self.cfg.tag_of(pc))
            .is_some()
    }

    /// Insert `pc` (a useless barrier's PC): nothing if its tag is already in its set,
    /// otherwise write the way at the set's FIFO pointer and advance the pointer (A8).
    pub fn insert(&mut self, pc: u64) -> Insert {
        let (set, tag) = (self.cfg.set_of(pc), self.cfg.tag_of(pc));
        if self.fault != Some(IltFault::Duplicates) && self.find(set, tag).is_some() {
            return Insert::default();
        }
        self.dirty |= 1 << set;
        let way = self.ptr[set];
        let e = set * self.ways + way;
        let evicted = self.valid.get(e);
        self.valid.set(e);
        self.tag[e] = tag;
        self.tag_image.set_field(e, self.tag_bits, tag);
        if self.fault != Some(IltFault::StuckPointer) {
            self.ptr[set] = (way + 1) % self.ways;
            self.ptr_image
                .set_field(set, self.ptr_bits, self.ptr[set] as u64);
        }
        Insert {
            written: true,
            evicted,
        }
    }

    /// Copy `other`'s contents into this table (same configuration, no allocation).
    pub fn copy_from(&mut self, other: &Ilt) {
        self.valid = other.valid;
        self.tag.copy_from_slice(&other.tag);
        self.ptr.copy_from_slice(&other.ptr);
        self.tag_image.copy_from_slice(&other.tag_image);
        self.ptr_image.copy_from_slice(&other.ptr_image);
        self.dirty = other.dirty;
    }

    /// Valid entries, `e = set·ways + way` at bit `e`.
    pub fn valid(&self) -> Bits {
        self.valid
    }
    pub fn tag_image(&self) -> &[u64] {
        &self.tag_image
    }
    pub fn ptr_image(&self) -> &[u64] {
        &self.ptr_image
    }
    /// Entry `e`'s tag while valid.
    pub fn entry(&self, e: usize) -> Option<u64> {
        self.valid.get(e).then(|| self.tag[e])
    }
    pub fn pointer(&self, set: usize) -> usize {
        self.ptr[set]
    }
    /// Valid entries in `set`.
    pub fn occupancy(&self, set: usize) -> usize {
        self.valid.bits(set * self.ways, self.ways).count_ones() as usize
    }

    /// I-ILT on the table alone: no duplicate tags in a set; a set that is not full holds
    /// exactly ways `0 … ptr−1`; the debug images agree with the entries. Looks at the sets
    /// written since `begin_cycle` (the others were checked when they last changed).
    pub fn check(&self) -> Result<(), String> {
        let w = self.ways;
        for set in 0..self.cfg.sets {
            if self.dirty >> set & 1 == 0 {
                continue;
            }
            let ptr = self.ptr[set];
            if ptr >= w {
                return Err(format!("I-ILT: set {set} pointer {ptr} out of range"));
            }
            let vmask = self.valid.bits(set * w, w);
            let full = vmask.count_ones() as usize == w;
            if !full && vmask != (1u64 << ptr) - 1 {
                return Err(format!(
                    "I-ILT: set {set}: valid ways {vmask:#b} are not 0..{ptr} (FIFO fill order)"
                ));
            }
            for a in 0..w {
                let ea = set * w + a;
                if !self.valid.get(ea) {
                    if self.tag_image.get_field(ea, self.tag_bits) != 0 {
                        return Err(format!("ILT entry {ea}: invalid but dbg tag is not 0"));
                    }
                    continue;
                }
                if self.tag_image.get_field(ea, self.tag_bits) != self.tag[ea] {
                    return Err(format!("ILT entry {ea}: dbg tag disagrees"));
                }
                for b in a + 1..w {
                    let eb = set * w + b;
                    if self.valid.get(eb) && self.tag[ea] == self.tag[eb] {
                        return Err(format!(
                            "I-ILT: set {set}: tag {:#x} in ways {a} and {b} (duplicate)",
                            self.tag[ea]
                        ));
                    }
                }
            }
            if self.ptr_image.get_field(set, self.ptr_bits) != ptr as u64 {
                return Err(format!("ILT set {set}: dbg pointer disagrees"));
            }
        }
        Ok(())
    }

    /// One-line summary: per non-empty set, its tags in way order and the pointer.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for set in 0..self.cfg.sets {
            let occ = self.occupancy(set);
            if occ == 0 {
                continue;
            }
            s.push_str(&format!(" s{set}[ptr {}:", self.ptr[set]));
            for way in 0..self.ways {
                if let Some(t) = self.entry(set * self.ways + way) {
                    s.push_str(&format!(" {t:#x}"));
                }
            }
            s.push(']');
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
    flush: usize,
    lookup_pc: usize,
    ins_valid: usize,
    ins_pc: usize,
}

#[derive(Clone, Copy, Debug)]
struct OutPorts {
    hit: usize,
    ins_written: usize,
    ins_evict: usize,
    dbg_valid: usize,
    dbg_tag: usize,
    dbg_ptr: usize,
}

impl InPorts {
    fn new(l: &Layout) -> InPorts {
        let o = |n| port_offset(&l.inputs, "dwr-ilt", n);
        InPorts {
            reset: o("reset"),
            flush: o("flush"),
            lookup_pc: o("lookup_pc"),
            ins_valid: o("ins_valid"),
            ins_pc: o("ins_pc"),
        }
    }
}

impl OutPorts {
    fn new(l: &Layout) -> OutPorts {
        let o = |n| port_offset(&l.outputs, "dwr-ilt", n);
        OutPorts {
            hit: o("hit"),
            ins_written: o("ins_written"),
            ins_evict: o("ins_evict"),
            dbg_valid: o("dbg_valid"),
            dbg_tag: o("dbg_tag"),
            dbg_ptr: o("dbg_ptr"),
        }
    }
}

#[derive(Clone, Debug)]
struct LastCycle {
    stepped: bool,
    reset: bool,
    before: Ilt,
    lookup_pc: u64,
    hit: bool,
    requests: [Option<u64>; 3],
    results: [Insert; 3],
    flushed: bool,
}

/// Event counters of the standalone ILT model (coverage).
#[derive(Clone, Debug, Default)]
pub struct IltCounters {
    pub cycles: u64,
    pub resets: u64,
    pub hits: u64,
    pub misses: u64,
    pub inserts: u64,
    pub duplicates: u64,
    /// Duplicates of a request earlier in the same cycle.
    pub same_cycle_duplicates: u64,
    pub evictions: u64,
    pub flushes: u64,
    pub flushes_with_inserts: u64,
    /// Cycles that looked up a PC inserted in the same cycle (a miss unless already present).
    pub lookup_of_insert: u64,
    /// Cycles starting with some set full.
    pub set_full: u64,
    /// Cycles with 2 and with 3 insert requests.
    pub multi_requests: [u64; 2],
}

/// The cycle model of `dwr-ilt`.
#[derive(Clone, Debug)]
pub struct DwrIltModel {
    k: usize,
    pc_bits: usize,
    ew: usize,
    inp: InPorts,
    out: OutPorts,
    ilt: Ilt,
    last: LastCycle,
    counters: IltCounters,
    cycle: u64,
}

impl DwrIltModel {
    pub fn new(cfg: &IltConfig) -> Self {
        let layout = Layout::new(&cfg.ports());
        let ilt = Ilt::new(cfg);
        DwrIltModel {
            k: cfg.insert_ports,
            pc_bits: cfg.pc_bits,
            ew: cfg.entries().div_ceil(64),
            inp: InPorts::new(&layout),
            out: OutPorts::new(&layout),
            last: LastCycle {
                stepped: false,
                reset: false,
                before: ilt.clone(),
                lookup_pc: 0,
                hit: false,
                requests: [None; 3],
                results: [Insert::default(); 3],
                flushed: false,
            },
            ilt,
            counters: IltCounters::default(),
            cycle: 0,
        }
    }

    pub fn inject_fault(&mut self, fault: Option<IltFault>) {
        self.ilt.inject_fault(fault);
    }

    pub fn table(&self) -> &Ilt {
        &self.ilt
    }

    pub fn counters(&self) -> &IltCounters {
        &self.counters
    }
}

impl Model for DwrIltModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let (i, o, p) = (self.inp, self.out, self.pc_bits);
        let reset = inputs[i.reset] & 1 != 0;
        let flush = inputs[i.flush] & 1 != 0;
        let lookup_pc = inputs.field_at(i.lookup_pc, 0, p);
        let ins_valid = inputs[i.ins_valid];

        // Debug ports: the registered table at the start of the cycle.
        self.ilt.valid().write(&mut outputs[o.dbg_valid..], self.ew);
        let t = self.ilt.tag_image();
        outputs[o.dbg_tag..o.dbg_tag + t.len()].copy_from_slice(t);
        let pi = self.ilt.ptr_image();
        outputs[o.dbg_ptr..o.dbg_ptr + pi.len()].copy_from_slice(pi);

        self.ilt.begin_cycle();
        self.last.before.copy_from(&self.ilt);
        self.last.stepped = true;
        self.last.reset = reset;
        self.cycle += 1;
        self.counters.cycles += 1;
        if reset {
            self.ilt.reset();
            outputs[o.hit] = 0;
            outputs[o.ins_written] = 0;
            outputs[o.ins_evict] = 0;
            self.counters.resets += 1;
            return;
        }
        let c = &mut self.counters;
        c.set_full += (0..self.ilt.config().sets)
            .any(|s| self.ilt.occupancy(s) == self.ilt.config().ways) as u64;

        // 1. lookup on the registered table; 2. inserts in order; 3. flush.
        let hit = self.ilt.lookup(lookup_pc);
        let mut requests = [None; 3];
        let mut results = [Insert::default(); 3];
        let (mut written, mut evict) = (0u64, 0u64);
        for k in 0..self.k {
            if ins_valid >> k & 1 == 0 {
                continue;
            }
            let pc = inputs.field_at(i.ins_pc, k * p, p);
            requests[k] = Some(pc);
            let r = self.ilt.insert(pc);
            results[k] = r;
            written |= (r.written as u64) << k;
            evict |= (r.evicted as u64) << k;
            c.inserts += r.written as u64;
            c.evictions += r.evicted as u64;
            if !r.written {
                c.duplicates += 1;
                c.same_cycle_duplicates += requests[..k].contains(&Some(pc)) as u64;
            }
            c.lookup_of_insert += (pc == lookup_pc) as u64;
        }
        let n_req = requests.iter().flatten().count();
        if n_req >= 2 {
            c.multi_requests[n_req - 2] += 1;
        }
        let flushed = flush && self.ilt.flush();
        if flushed {
            written = 0;
            evict = 0;
            c.flushes += 1;
            c.flushes_with_inserts += (n_req > 0) as u64;
        }
        c.hits += hit as u64;
        c.misses += !hit as u64;
        outputs[o.hit] = hit as u64;
        outputs[o.ins_written] = written;
        outputs[o.ins_evict] = evict;
        let l = &mut self.last;
        l.lookup_pc = lookup_pc;
        l.hit = hit;
        l.requests = requests;
        l.results = results;
        l.flushed = flushed;
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let c = &self.counters;
        // Inserts first: a lookup happens in every cycle out of reset, so it is no sign of
        // activity.
        vec![
            ("inserts", c.inserts),
            ("lookups", c.hits + c.misses),
            ("hits", c.hits),
            ("evictions", c.evictions),
            ("flushes", c.flushes),
            ("duplicates", c.duplicates),
        ]
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.ilt.check()?;
        let l = &self.last;
        if !l.stepped {
            return Ok(());
        }
        let now = &self.ilt;
        if l.reset || l.flushed {
            if !now.valid().is_zero() || (0..now.config().sets).any(|s| now.pointer(s) != 0) {
                return Err("I-ILT: not empty after a reset or flush".into());
            }
            return Ok(());
        }
        // The lookup saw the registered table: hit iff a valid way of the set holds the tag.
        let cfg = now.config();
        let (set, tag) = (cfg.set_of(l.lookup_pc), cfg.tag_of(l.lookup_pc));
        let present = (0..cfg.ways).any(|w| l.before.entry(set * cfg.ways + w) == Some(tag));
        if present != l.hit {
            return Err(format!(
                "ILT lookup of {:#x}: hit = {}, table holds it: {}",
                l.lookup_pc, l.hit as u8, present as u8
            ));
        }
        // The table changes only by the inserts: every entry that changed holds a requested
        // PC's tag in that PC's set, and each request wrote at most one way.
        let mut changed = 0;
        for e in 0..cfg.entries() {
            let (b, a) = (l.before.entry(e), now.entry(e));
            if b == a {
                continue;
            }
            changed += 1;
            let set = e / cfg.ways;
            let ok = l
                .requests
                .iter()
                .flatten()
                .any(|&pc| cfg.set_of(pc) == set && Some(cfg.tag_of(pc)) == a);
            if !ok {
                return Err(format!(
                    "I-ILT: entry {e} changed to {a:?} without an insert of it"
                ));
            }
        }
        let writes = l.results.iter().filter(|r| r.written).count();
        if changed > writes {
            return Err(format!(
                "I-ILT: {changed} entries changed by {writes} writes"
            ));
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        format!("cycle {} ilt{}", self.cycle, self.ilt.summary())
    }
}

// ---------------------------------------------------------------------------------------
// Stimulus

/// Constrained-random inputs for `dwr-ilt`: lookup and insert PCs from a small pool that is
/// mostly in one or two sets (so sets fill and evict), duplicates inside one cycle, the same
/// PC looked up and inserted in one cycle, and rare flushes (also with inserts).
#[derive(Clone, Debug)]
pub struct DwrIltStimulus {
    rng: Rng,
    k: usize,
    pc_bits: usize,
    pc_shift: usize,
    sets: usize,
    inp: InPorts,
    pool: Vec<u64>,
    phase_left: u64,
    insert_rate: u64,
    hot_sets: [usize; 2],
}

impl DwrIltStimulus {
    pub fn new(cfg: &IltConfig, seed: u64) -> Self {
        let layout = Layout::new(&cfg.ports());
        DwrIltStimulus {
            rng: Rng::new(seed),
            k: cfg.insert_ports,
            pc_bits: cfg.pc_bits,
            pc_shift: cfg.pc_shift,
            sets: cfg.sets,
            inp: InPorts::new(&layout),
            pool: Vec::with_capacity(64),
            phase_left: 0,
            insert_rate: 2,
            hot_sets: [0, 0],
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 300 + r.below(1500);
        self.insert_rate = 1 + r.below(6);
        self.hot_sets = [
            r.below(self.sets as u64) as usize,
            r.below(self.sets as u64) as usize,
        ];
        // A pool of distinct-enough PCs: mostly in the two hot sets; the low pc_shift bits
        // random (they must not matter).
        let size = 4 + r.below(40) as usize;
        self.pool.clear();
        let mask = if self.pc_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.pc_bits) - 1
        };
        for _ in 0..size {
            let ix = r.next_u64();
            let set = if r.chance(3, 4) {
                self.hot_sets[r.below(2) as usize]
            } else {
                r.below(self.sets as u64) as usize
            };
            let ix = (ix & !(self.sets as u64 - 1)) | set as u64;
            // Small tags most of the time, so tags repeat.
            let ix = if r.chance(1, 2) { ix & 0xFF } else { ix };
            let pc = (ix << self.pc_shift | r.below(1 << self.pc_shift)) & mask;
            self.pool.push(pc);
        }
    }

    fn pick(&mut self) -> u64 {
        self.pool[self.rng.below(self.pool.len() as u64) as usize]
    }
}

impl Stimulus for DwrIltStimulus {
    fn next(&mut self, cycle: u64, _prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        let i = self.inp;
        if cycle < 2 || self.rng.chance(1, 30_000) {
            inputs[i.reset] = 1;
            return;
        }
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let p = self.pc_bits;
        let mut ins_valid = 0u64;
        let mut first = None;
        for k in 0..self.k {
            if !self.rng.chance(1, self.insert_rate) {
                continue;
            }
            // Often a duplicate of an earlier request of this cycle.
            let pc = match first {
                Some(f) if self.rng.chance(1, 3) => f,
                _ => self.pick(),
            };
            first.get_or_insert(pc);
            ins_valid |= 1 << k;
            inputs.set_field_at(i.ins_pc, k * p, p, pc);
        }
        inputs[i.ins_valid] = ins_valid;
        let lookup = match first {
            Some(f) if self.rng.chance(1, 4) => f,
            _ => self.pick(),
        };
        inputs.set_field_at(i.lookup_pc, 0, p, lookup);
        if self.rng.chance(1, 2_000) {
            inputs[i.flush] = 1;
        }
    }
}

// ---------------------------------------------------------------------------------------
// Spec vectors

/// The directed vectors of `dwr-ilt` (docs/dwr.md §8.10, §8.15).
pub fn spec_vectors() -> Vec<SpecVector> {
    let mut v = vec![];

    // S9 as plain inserts: PCs 4i (set 0, tag i) fill the 8 ways, the 9th evicts way 0 (PC 4)
    // and the pointer wraps to 1; PC 4 again misses and is re-learned in way 1, evicting PC 8.
    let mut b = Vb::new(
        "dwr.md S9 ILT capacity: FIFO fill, eviction, re-learning",
        dwr_ilt::NAME,
        &[],
    )
    .reset();
    let tags_after = |k: usize| -> Vec<u64> {
        // Entries of set 0 after k inserts of 4, 8, …, 36, 4.
        let order: Vec<u64> = (1..=9).chain([1]).collect();
        let mut ways = [0u64; 8];
        let mut valid = 0u64;
        for (n, &t) in order.iter().take(k).enumerate() {
            ways[n % 8] = t;
            valid |= 1 << (n % 8);
        }
        let mut img = vec![0u64; (32 * 30usize).div_ceil(64)];
        for (w, &t) in ways.iter().enumerate() {
            if valid >> w & 1 == 1 {
                img.set_field(w, 30, t);
            }
        }
        img
    };
    let valid_after = |k: usize| -> u64 { (1u64 << k.min(8)) - 1 };
    for k in 0..10 {
        let pc = if k < 9 { 4 * (k as u64 + 1) } else { 4 };
        b = b.cycle_words(
            &[
                ("ins_valid", vec![1]),
                ("ins_pc", vec![pc]),
                ("lookup_pc", vec![pc]),
            ],
            &[
                ("hit", vec![0]),
                ("ins_written", vec![1]),
                ("ins_evict", vec![(k >= 8) as u64]),
                ("dbg_valid", vec![valid_after(k)]),
                ("dbg_tag", tags_after(k)),
                ("dbg_ptr", vec![(k % 8) as u64]),
            ],
        );
    }
    // Final table: way 0 = PC 36 (tag 9), way 1 = PC 4 (tag 1), ways 2–7 = PCs 12…32;
    // PC 8 is gone, PC 4 and 36 hit.
    b = b
        .cycle(
            &[("lookup_pc", 8)],
            &[("hit", 0), ("dbg_valid", 0xFF), ("dbg_ptr", 2)],
        )
        .cycle(&[("lookup_pc", 4)], &[("hit", 1)])
        .cycle(&[("lookup_pc", 36)], &[("hit", 1)])
        .cycle_words(
            &[("lookup_pc", vec![12])],
            &[("hit", vec![1]), ("dbg_tag", tags_after(10))],
        );
    v.push(b.done());

    // Lookup of a PC in the cycle it is inserted misses, the next cycle hits; a re-insert is a
    // duplicate (no write, pointer unchanged); hits do not move the pointer.
    v.push(
        Vb::new(
            "dwr-ilt lookup sees the registered table; duplicates and hits change nothing",
            dwr_ilt::NAME,
            &[],
        )
        .reset()
        .cycle(
            &[("ins_valid", 1), ("ins_pc", 10), ("lookup_pc", 10)],
            &[("hit", 0), ("ins_written", 1), ("ins_evict", 0)],
        )
        .cycle(
            &[("lookup_pc", 10)],
            &[("hit", 1), ("dbg_valid", 1 << 16), ("dbg_ptr", 1 << 6)],
        )
        .cycle(
            &[("ins_valid", 1), ("ins_pc", 10), ("lookup_pc", 14)],
            &[("hit", 0), ("ins_written", 0), ("ins_evict", 0)],
        )
        .cycle(
            &[("lookup_pc", 10)],
            &[("hit", 1), ("dbg_valid", 1 << 16), ("dbg_ptr", 1 << 6)],
        )
        .cycle(&[("lookup_pc", 11)], &[("hit", 0), ("dbg_ptr", 1 << 6)])
        .done(),
    );

    // Three requests of one PC in one cycle write one way; three different PCs of one set
    // in one cycle fill three ways in request order.
    let k3 = ["insert_ports=3"];
    let three = |a: u64, b: u64, c: u64| pack_fields(32, &[a, b, c]);
    let mut tags = vec![0u64; 15];
    tags.set_field(4, 30, 5); // set 1 (entries 8..15): way 0 = PC 21 (tag 5)
    let mut tags2 = tags.clone();
    for (way, t) in [(1, 1), (2, 2), (3, 3)] {
        tags2.set_field(8 + way, 30, t); // PCs 5, 9, 13
    }
    let mut tags_fixed = vec![0u64; 15];
    tags_fixed.set_field(8, 30, 5);
    let mut tags2_fixed = tags_fixed.clone();
    for (way, t) in [(1, 1), (2, 2), (3, 3)] {
        tags2_fixed.set_field(8 + way, 30, t);
    }
    let _ = (tags, tags2);
    v.push(
        Vb::new(
            "dwr-ilt three inserts per cycle: duplicates collapse, order kept",
            dwr_ilt::NAME,
            &k3,
        )
        .reset()
        .cycle_words(
            &[("ins_valid", vec![0b111]), ("ins_pc", three(21, 21, 21))],
            &[("ins_written", vec![0b001]), ("ins_evict", vec![0])],
        )
        .cycle_words(
            &[
                ("ins_valid", vec![0b111]),
                ("ins_pc", three(5, 9, 13)),
                ("lookup_pc", vec![21]),
            ],
            &[
                ("hit", vec![1]),
                ("ins_written", vec![0b111]),
                ("dbg_valid", vec![1 << 8]),
                ("dbg_tag", tags_fixed),
                ("dbg_ptr", vec![1 << 3]),
            ],
        )
        .cycle_words(
            &[("ins_valid", vec![0b101]), ("ins_pc", three(9, 0, 17))],
            &[
                ("ins_written", vec![0b100]),
                ("dbg_valid", vec![0xF << 8]),
                ("dbg_tag", tags2_fixed),
                ("dbg_ptr", vec![4 << 3]),
            ],
        )
        .cycle(&[], &[("dbg_valid", 0x1F << 8), ("dbg_ptr", 5 << 3)])
        .done(),
    );

    // A flush with inserts: the inserts report nothing and the table is empty next cycle;
    // with ilt_flush=false the flush is ignored.
    v.push(
        Vb::new(
            "dwr.md S12 ILT flush at kernel launch discards the cycle's inserts",
            dwr_ilt::NAME,
            &[],
        )
        .reset()
        .cycle(&[("ins_valid", 1), ("ins_pc", 3)], &[("ins_written", 1)])
        .cycle(
            &[
                ("ins_valid", 1),
                ("ins_pc", 7),
                ("flush", 1),
                ("lookup_pc", 3),
            ],
            &[
                ("hit", 1),
                ("ins_written", 0),
                ("ins_evict", 0),
                ("dbg_valid", 1 << 24),
            ],
        )
        .cycle(
            &[("lookup_pc", 3)],
            &[("hit", 0), ("dbg_valid", 0), ("dbg_tag", 0), ("dbg_ptr", 0)],
        )
        .cycle(&[("lookup_pc", 7)], &[("hit", 0), ("dbg_valid", 0)])
        .done(),
    );
    v.push(
        Vb::new(
            "dwr.md S12 ILT persists across launches with ilt_flush=false",
            dwr_ilt::NAME,
            &["ilt_flush=false"],
        )
        .reset()
        .cycle(&[("ins_valid", 1), ("ins_pc", 3)], &[("ins_written", 1)])
        .cycle(
            &[("ins_valid", 1), ("ins_pc", 7), ("flush", 1)],
            &[("ins_written", 1), ("dbg_valid", 1 << 24)],
        )
        .cycle(
            &[("lookup_pc", 3)],
            &[
                ("hit", 1),
                ("dbg_valid", 1 << 24 | 1 << 25),
                ("dbg_ptr", 2 << 9),
            ],
        )
        .done(),
    );

    // A7: with pc_shift = 3 (byte PCs of 8-byte instructions) PCs 0x18 and 0x1F are the same
    // instruction (set 3, tag 0); 0x20 is set 0, tag 1. A 2 × 4 table has 31-bit tags.
    v.push(
        Vb::new(
            "dwr.md A7 ILT indexed by instruction index (pc_shift=3, 2x4)",
            dwr_ilt::NAME,
            &["pc_shift=3", "ilt_sets=2", "ilt_ways=4"],
        )
        .reset()
        .cycle(&[("ins_valid", 1), ("ins_pc", 0x18)], &[("ins_written", 1)])
        .cycle(
            &[("ins_valid", 1), ("ins_pc", 0x1F), ("lookup_pc", 0x1C)],
            &[("hit", 1), ("ins_written", 0), ("dbg_valid", 1 << 4)],
        )
        .cycle(
            &[("ins_valid", 1), ("ins_pc", 0x20), ("lookup_pc", 0x20)],
            &[("hit", 0), ("ins_written", 1)],
        )
        .cycle_words(
            &[("lookup_pc", vec![0x27])],
            &[
                ("hit", vec![1]),
                ("dbg_valid", vec![1 << 4 | 1]),
                ("dbg_tag", pack_fields(28, &[2, 0, 0, 0, 1])),
                ("dbg_ptr", vec![0b0101]),
            ],
        )
        .done(),
    );
    v
}
