//! The trace memo table ([`Mtt`], a plain struct) and its port-level model ([`DtmMttModel`]),
//! written from the contract (`units/dtm_mtt.rs`) and spec/dtm.md §2.3, §2.5, §3.5, §7.

use warpforge_contract::units::dtm_mtt::{get, get_slot, put, put_slot, MttConfig};
use warpforge_contract::Layout;

use crate::Model;
use std::cell::Cell;

/// A deliberate model bug, for tests that show lockstep catches a wrong RTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MttFault {
    /// With no invalid way, the victim is the MRU way instead of the LRU way.
    VictimMru,
}

/// A context slot: `(rid, val)` when valid.
pub type Slot = Option<(u64, u64)>;

/// Most context slots (the `k_in` / `k_out` limit).
pub const MAX_K: usize = 8;

/// A context: `n` slots held inline (no allocation; the model copies rows every cycle).
#[derive(Clone, Copy, Debug, Default)]
pub struct Ctx {
    n: usize,
    s: [Slot; MAX_K],
}

impl Ctx {
    /// `n` empty slots.
    pub fn empty(n: usize) -> Ctx {
        assert!(n <= MAX_K, "at most {MAX_K} context slots");
        Ctx {
            n,
            s: [None; MAX_K],
        }
    }
}

impl std::ops::Deref for Ctx {
    type Target = [Slot];
    fn deref(&self) -> &[Slot] {
        &self.s[..self.n]
    }
}

impl std::ops::DerefMut for Ctx {
    fn deref_mut(&mut self) -> &mut [Slot] {
        &mut self.s[..self.n]
    }
}

impl PartialEq for Ctx {
    fn eq(&self, o: &Ctx) -> bool {
        **self == **o
    }
}

impl Eq for Ctx {}

impl std::hash::Hash for Ctx {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (**self).hash(h)
    }
}

impl FromIterator<Slot> for Ctx {
    fn from_iter<I: IntoIterator<Item = Slot>>(it: I) -> Ctx {
        let mut c = Ctx::empty(0);
        for x in it {
            c.s[c.n] = x;
            c.n += 1;
        }
        c
    }
}

/// A memoized trace (§2.3) without its valid bit and kid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Trace {
    pub pc: u64,
    pub npc: u64,
    pub len: u64,
    pub ic: Ctx,
    pub oc: Ctx,
}

// An upsert carries its row inline: one per cycle at most, and no allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum Req {
    Lookup { kid: u64, pc: u64, set: usize },
    Upsert { kid: u64, set: usize, t: Trace },
}

/// A lookup in stage 3: its set, kid, pc and the candidates `(way, row)` (MRU first).
#[derive(Clone, Debug)]
struct Stage3 {
    set: usize,
    kid: u64,
    pc: u64,
    cands: Vec<(usize, Trace, u64)>,
}

/// The outcome of an upsert, shown the cycle after its stage 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpOut {
    pub found: bool,
    pub evict: bool,
    pub set: usize,
    pub way: usize,
}

/// Event counters (coverage), in [`Mtt::events`] order.
#[derive(Clone, Copy, Debug, Default)]
pub struct MttEvents {
    pub hits: u64,
    pub lookups: u64,
    pub misses_with_candidates: u64,
    pub two_or_more_matches: u64,
    pub longer_beats_mru: u64,
    pub upserts: u64,
    pub refreshes: u64,
    pub evictions: u64,
    pub bypassed_reads: u64,
    pub retire_clears: u64,
    pub flushes: u64,
}

/// What the last cycle did, for the invariant checks.
#[derive(Clone, Debug, Default)]
struct LastCycle {
    touched_sets: Vec<usize>,
    /// The way made MRU last in each touched set.
    mru: Vec<(usize, usize)>,
    retired: Option<u64>,
    /// A hit: (lookup kid, lookup pc, row kid, row, values tested).
    hit: Option<(u64, u64, u64, Trace, [u64; MAX_K])>,
}

/// DTM@GPU's trace memo table with its lookup and upsert pipeline.
#[derive(Clone, Debug)]
pub struct Mtt {
    cfg: MttConfig,
    valid: Vec<bool>,
    kid: Vec<u64>,
    rank: Vec<usize>,
    rows: Vec<Trace>,
    s2: Option<Req>,
    s3: Option<Stage3>,
    /// `res_*`: None = no lookup finished; Some(None) = a miss.
    res: Option<Option<(usize, Trace)>>,
    up: Option<UpOut>,
    /// The row written at the last edge (set, way): only for the bypass counter.
    last_write: Option<(usize, usize)>,
    valid_image: Vec<u64>,
    rank_image: Vec<u64>,
    last: LastCycle,
    /// I4 of each row, worked out when the row is written (rows change only then): 0 holds,
    /// [`I4_LEN`] or [`I4_RID`].
    row_i4: Vec<u8>,
    /// Stage 2's matches as [`DtmMttModel`]'s outputs found them this cycle (the edge reads
    /// the same state).
    s2_matches: Option<(usize, [usize; 32])>,
    /// Per set: its rows or valid bits changed since [`Mtt::check`] last found its I4 and I6
    /// holding (a set's keys change only then, so a clean set needs no rescan; a cell, as
    /// the check reads the state).
    keys_changed: Vec<Cell<bool>>,
    /// A candidate buffer for the next lookup in stage 3 (reused, not reallocated).
    spare_cands: Vec<(usize, Trace, u64)>,
    fault: Option<MttFault>,
    pub ev: MttEvents,
}

/// A row whose length is outside 2..=l_max.
const I4_LEN: u8 = 1;
/// A row with a rid twice in a context.
const I4_RID: u8 = 2;

impl Mtt {
    pub fn new(cfg: &MttConfig) -> Mtt {
        let e = cfg.entries;
        let mut m = Mtt {
            valid: vec![false; e],
            kid: vec![0; e],
            rank: vec![0; e],
            rows: vec![Trace::default(); e],
            s2: None,
            s3: None,
            res: None,
            up: None,
            last_write: None,
            valid_image: vec![0; e.div_ceil(64)],
            rank_image: vec![0; (e * cfg.way_bits()).div_ceil(64)],
            last: LastCycle::default(),
            row_i4: vec![0; e],
            keys_changed: vec![Cell::new(true); cfg.sets()],
            s2_matches: None,
            spare_cands: vec![],
            fault: None,
            ev: MttEvents::default(),
            cfg: cfg.clone(),
        };
        for i in 0..e {
            m.row_i4[i] = m.i4(&m.rows[i]);
        }
        m.reset();
        m
    }

    /// The table's state (valid bits, kids, LRU ranks, rows) as one hash, for I12.
    pub fn digest(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (&self.valid, &self.kid, &self.rank, &self.rows).hash(&mut h);
        h.finish()
    }

    pub fn config(&self) -> &MttConfig {
        &self.cfg
    }

    pub fn inject_fault(&mut self, f: Option<MttFault>) {
        self.fault = f;
    }

    /// Synchronous reset: no valid row, rank[w] = w, the pipeline empty (rows kept).
    pub fn reset(&mut self) {
        let w = self.cfg.ways;
        for i in 0..self.cfg.entries {
            self.valid[i] = false;
            self.set_rank(i, i % w);
        }
        self.keys_changed.iter().for_each(|c| c.set(true));
        self.valid_image.iter_mut().for_each(|x| *x = 0);
        self.s2 = None;
        self.s3 = None;
        self.res = None;
        self.up = None;
        self.last_write = None;
        self.last = LastCycle::default();
        self.s2_matches = None;
    }

    /// §7 I4 of one row, bar the set and way: its length, then a repeated rid in a context.
    fn i4(&self, t: &Trace) -> u8 {
        if t.len < 2 || t.len > self.cfg.l_max as u64 {
            return I4_LEN;
        }
        for ctx in [&t.ic, &t.oc] {
            let repeated = ctx
                .iter()
                .enumerate()
                .any(|(a, x)| x.is_some_and(|x| ctx[a + 1..].iter().flatten().any(|y| y.0 == x.0)));
            if repeated {
                return I4_RID;
            }
        }
        0
    }

    /// §2.5's hash without values: `((pc >> pc_shift) ^ kid) mod sets`.
    pub fn set_of(&self, kid: u64, pc: u64) -> usize {
        (((pc >> self.cfg.pc_shift) ^ kid) as usize) & (self.cfg.sets() - 1)
    }

    fn set_rank(&mut self, i: usize, r: usize) {
        self.rank[i] = r;
        let wb = self.cfg.way_bits();
        put(&mut self.rank_image, i * wb, wb, r as u64);
    }

    fn set_valid(&mut self, i: usize, v: bool) {
        self.valid[i] = v;
        self.keys_changed[i / self.cfg.ways].set(true);
        let bit = 1u64 << (i % 64);
        if v {
            self.valid_image[i / 64] |= bit;
        } else {
            self.valid_image[i / 64] &= !bit;
        }
    }

    /// Makes way `way` of `set` the MRU.
    fn touch(&mut self, set: usize, way: usize) {
        let base = set * self.cfg.ways;
        let r = self.rank[base + way];
        for k in 0..self.cfg.ways {
            if k == way {
                self.set_rank(base + k, 0);
            } else if self.rank[base + k] < r {
                self.set_rank(base + k, self.rank[base + k] + 1);
            }
        }
        self.last.touched_sets.push(set);
        self.last.mru.retain(|&(s, _)| s != set);
        self.last.mru.push((set, way));
    }

    /// The valid ways of `set` holding (kid, pc), MRU first: (count, ways).
    fn matches(&self, set: usize, kid: u64, pc: u64) -> (usize, [usize; 32]) {
        let base = set * self.cfg.ways;
        // Indexed by rank: ranks are a permutation of the ways.
        let mut by_rank = [usize::MAX; 32];
        for k in 0..self.cfg.ways {
            if self.valid[base + k] && self.kid[base + k] == kid && self.rows[base + k].pc == pc {
                by_rank[self.rank[base + k]] = k;
            }
        }
        let mut out = [0usize; 32];
        let mut n = 0;
        for &k in by_rank.iter().take(self.cfg.ways) {
            if k != usize::MAX {
                out[n] = k;
                n += 1;
            }
        }
        (n, out)
    }

    /// Stage 2 of the lookup now in it: its candidates' set and ways, MRU first. The matches
    /// are kept for this cycle's edge, which reads the same state.
    fn candidate_ways(&mut self) -> (usize, usize, [usize; 32]) {
        self.s2_matches = None;
        match self.s2 {
            Some(Req::Lookup { kid, pc, set }) => {
                let (n, m) = self.matches(set, kid, pc);
                self.s2_matches = Some((n, m));
                (set, n.min(self.cfg.cand), m)
            }
            _ => (0, 0, [0; 32]),
        }
    }

    fn upsert(&mut self, kid: u64, set: usize, t: &Trace) -> UpOut {
        let (w, base) = (self.cfg.ways, set * self.cfg.ways);
        self.ev.upserts += 1;
        let found = (0..w).find(|&k| {
            let r = &self.rows[base + k];
            self.valid[base + k]
                && self.kid[base + k] == kid
                && r.pc == t.pc
                && r.len == t.len
                && r.ic == t.ic
        });
        if let Some(k) = found {
            self.ev.refreshes += 1;
            self.touch(set, k);
            return UpOut {
                found: true,
                evict: false,
                set,
                way: k,
            };
        }
        let invalid = (0..w).find(|&k| !self.valid[base + k]);
        let victim_rank = match self.fault {
            Some(MttFault::VictimMru) => 0,
            None => w - 1,
        };
        let way = invalid.unwrap_or_else(|| {
            (0..w)
                .find(|&k| self.rank[base + k] == victim_rank)
                .expect("ranks are a permutation")
        });
        if invalid.is_none() {
            self.ev.evictions += 1;
        }
        self.rows[base + way] = *t;
        self.row_i4[base + way] = self.i4(t);
        self.kid[base + way] = kid;
        self.set_valid(base + way, true);
        self.last_write = Some((set, way));
        self.touch(set, way);
        UpOut {
            found: false,
            evict: invalid.is_none(),
            set,
            way,
        }
    }

    /// One clock edge with this cycle's inputs (outputs already taken from the state).
    pub fn cycle(&mut self, inp: &Inputs) {
        self.last.touched_sets.clear();
        self.last.mru.clear();
        self.last.retired = None;
        self.last.hit = None;
        let wrote_before = self.last_write.take();
        // Stage 2.
        let mut new_s3 = None;
        let mut new_up = None;
        match self.s2.take() {
            Some(Req::Lookup { kid, pc, set }) => {
                let (n, ways) = match self.s2_matches.take() {
                    Some(m) => m,
                    None => self.matches(set, kid, pc),
                };
                let base = set * self.cfg.ways;
                let mut cands = std::mem::take(&mut self.spare_cands);
                cands.clear();
                cands.extend(
                    ways[..n.min(self.cfg.cand)]
                        .iter()
                        .map(|&k| (k, self.rows[base + k], self.kid[base + k])),
                );
                if wrote_before.is_some_and(|(s, _)| s == set) {
                    self.ev.bypassed_reads += 1;
                }
                if n >= 2 {
                    self.ev.two_or_more_matches += 1;
                }
                new_s3 = Some(Stage3 {
                    set,
                    kid,
                    pc,
                    cands,
                });
            }
            Some(Req::Upsert { kid, set, t }) => {
                if wrote_before.is_some_and(|(s, _)| s == set) {
                    self.ev.bypassed_reads += 1;
                }
                new_up = Some(self.upsert(kid, set, &t));
            }
            None => {}
        }
        // Stage 3: value test, longest len then MRU (A11).
        let mut new_res = None;
        if let Some(s3) = self.s3.take() {
            self.ev.lookups += 1;
            let mut best: Option<usize> = None;
            for (c, (_, t, _)) in s3.cands.iter().enumerate() {
                let ok = t.ic.iter().enumerate().all(|(k, s)| match s {
                    Some((_, val)) => *val == inp.cv[c * self.cfg.k_in + k],
                    None => true,
                });
                if ok && best.is_none_or(|b| t.len > s3.cands[b].1.len) {
                    best = Some(c);
                }
            }
            new_res = Some(best.map(|b| {
                let (way, t, rkid) = s3.cands[b];
                if b > 0 {
                    self.ev.longer_beats_mru += 1;
                }
                self.ev.hits += 1;
                self.touch(s3.set, way);
                let mut vals = [0u64; MAX_K];
                for (k, x) in vals.iter_mut().enumerate().take(self.cfg.k_in) {
                    *x = inp.cv[b * self.cfg.k_in + k];
                }
                self.last.hit = Some((s3.kid, s3.pc, rkid, t, vals));
                (way, t)
            }));
            if best.is_none() && !s3.cands.is_empty() {
                self.ev.misses_with_candidates += 1;
            }
            self.spare_cands = s3.cands;
        }
        // Kernel retire and flush, after the insert.
        if let Some(k) = inp.inv {
            for i in 0..self.cfg.entries {
                if self.valid[i] && self.kid[i] == k {
                    self.set_valid(i, false);
                    self.ev.retire_clears += 1;
                }
            }
            self.last.retired = Some(k);
        }
        if inp.flush {
            self.ev.flushes += 1;
            for i in 0..self.cfg.entries {
                self.valid[i] = false;
            }
            self.valid_image.iter_mut().for_each(|x| *x = 0);
            self.keys_changed.iter().for_each(|c| c.set(true));
        }
        // Stage 1.
        self.s2 = if let Some((kid, pc)) = inp.lookup {
            Some(Req::Lookup {
                kid,
                pc,
                set: self.set_of(kid, pc),
            })
        } else {
            inp.upsert.as_ref().map(|(kid, t)| Req::Upsert {
                kid: *kid,
                set: self.set_of(*kid, t.pc),
                t: *t,
            })
        };
        self.s3 = new_s3;
        self.res = new_res;
        self.up = new_up;
    }

    /// The spec's invariants on the sets the last cycle changed (§7 I4, I6, I10, I11, I15).
    pub fn check(&self) -> Result<(), String> {
        let (w, c) = (self.cfg.ways, &self.cfg);
        let touched = &self.last.touched_sets;
        for (n, &set) in touched.iter().enumerate() {
            // A set touched twice in the cycle is the same state: checked once.
            if touched[..n].contains(&set) {
                continue;
            }
            let base = set * w;
            // Ways ≤ 32: the ranks seen as bits.
            let mut seen = 0u64;
            for k in 0..w {
                let r = self.rank[base + k];
                if r >= w || seen >> r & 1 == 1 {
                    return Err(format!("I15: set {set}: ranks are not a permutation"));
                }
                seen |= 1 << r;
            }
            if !self.keys_changed[set].get() {
                continue;
            }
            for k in 0..w {
                if !self.valid[base + k] {
                    continue;
                }
                let t = &self.rows[base + k];
                match self.row_i4[base + k] {
                    I4_LEN => return Err(format!("I4: set {set} way {k}: len {}", t.len)),
                    I4_RID => return Err(format!("I4: set {set} way {k}: repeated rid")),
                    _ => {}
                }
                for j in k + 1..w {
                    let o = &self.rows[base + j];
                    if self.valid[base + j]
                        && self.kid[base + j] == self.kid[base + k]
                        && (o.pc, o.len, &o.ic) == (t.pc, t.len, &t.ic)
                    {
                        return Err(format!("I6: set {set}: ways {k} and {j} share a key"));
                    }
                }
            }
            // Until the set's keys change again, the scan above would pass again.
            self.keys_changed[set].set(false);
        }
        for &(set, way) in &self.last.mru {
            if self.rank[set * w + way] != 0 {
                return Err(format!("I15: set {set}: way {way} touched but not MRU"));
            }
        }
        if let Some(k) = self.last.retired {
            if (0..c.entries).any(|i| self.valid[i] && self.kid[i] == k) {
                return Err(format!("I11: a row of retired kid {k} is still valid"));
            }
        }
        if let Some((lkid, lpc, rkid, t, vals)) = &self.last.hit {
            if lkid != rkid || *lpc != t.pc {
                return Err(format!(
                    "I11: kid {lkid} pc {lpc:#x} hit a row of kid {rkid}"
                ));
            }
            for (k, s) in t.ic.iter().enumerate() {
                if let Some((rid, val)) = s {
                    if *val != vals[k] {
                        return Err(format!("I10: hit with r{rid} = {:#x} ≠ {val:#x}", vals[k]));
                    }
                }
            }
        }
        Ok(())
    }

    pub fn events(&self) -> Vec<(&'static str, u64)> {
        let e = &self.ev;
        vec![
            ("hits", e.hits),
            ("lookups", e.lookups),
            ("misses_with_candidates", e.misses_with_candidates),
            ("two_or_more_matches", e.two_or_more_matches),
            ("longer_beats_mru", e.longer_beats_mru),
            ("upserts", e.upserts),
            ("refreshes", e.refreshes),
            ("evictions", e.evictions),
            ("bypassed_reads", e.bypassed_reads),
            ("retire_clears", e.retire_clears),
            ("flushes", e.flushes),
        ]
    }

    /// Valid rows (kid, set, way, trace), for tests.
    pub fn valid_rows(&self) -> Vec<(u64, usize, usize, Trace)> {
        let w = self.cfg.ways;
        (0..self.cfg.entries)
            .filter(|&i| self.valid[i])
            .map(|i| (self.kid[i], i / w, i % w, self.rows[i]))
            .collect()
    }
}

/// One cycle's inputs, decoded.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub reset: bool,
    pub lookup: Option<(u64, u64)>,
    /// `cv_val`, candidate-major.
    pub cv: Vec<u64>,
    pub upsert: Option<(u64, Trace)>,
    pub inv: Option<u64>,
    pub flush: bool,
}

/// Word offset of each port in the cycle's vectors (`o_*`: outputs).
#[derive(Clone, Debug)]
pub(crate) struct Ports {
    pub reset: usize,
    pub lk_valid: usize,
    pub lk_kid: usize,
    pub lk_pc: usize,
    pub cv_val: usize,
    pub up_valid: usize,
    pub up_kid: usize,
    pub up_pc: usize,
    pub up_npc: usize,
    pub up_len: usize,
    pub up_ic: usize,
    pub up_oc: usize,
    pub inv_valid: usize,
    pub inv_kid: usize,
    pub flush: usize,
    pub o_cand_valid: usize,
    pub o_cand_way: usize,
    pub o_cand_ic: usize,
    pub o_res_valid: usize,
    pub o_res_hit: usize,
    pub o_res_way: usize,
    pub o_res_len: usize,
    pub o_res_npc: usize,
    pub o_res_oc: usize,
    pub o_up_done: usize,
    pub o_up_found: usize,
    pub o_up_evict: usize,
    pub o_up_set: usize,
    pub o_up_way: usize,
    pub o_dbg_valid: usize,
    pub o_dbg_rank: usize,
}

impl Ports {
    pub fn new(cfg: &MttConfig) -> Ports {
        let l = Layout::new(&cfg.ports());
        let i = |n: &str| l.input(n).expect("dtm-mtt input").offset;
        let o = |n: &str| l.output(n).expect("dtm-mtt output").offset;
        Ports {
            reset: i("reset"),
            lk_valid: i("lk_valid"),
            lk_kid: i("lk_kid"),
            lk_pc: i("lk_pc"),
            cv_val: i("cv_val"),
            up_valid: i("up_valid"),
            up_kid: i("up_kid"),
            up_pc: i("up_pc"),
            up_npc: i("up_npc"),
            up_len: i("up_len"),
            up_ic: i("up_ic"),
            up_oc: i("up_oc"),
            inv_valid: i("inv_valid"),
            inv_kid: i("inv_kid"),
            flush: i("flush"),
            o_cand_valid: o("cand_valid"),
            o_cand_way: o("cand_way"),
            o_cand_ic: o("cand_ic"),
            o_res_valid: o("res_valid"),
            o_res_hit: o("res_hit"),
            o_res_way: o("res_way"),
            o_res_len: o("res_len"),
            o_res_npc: o("res_npc"),
            o_res_oc: o("res_oc"),
            o_up_done: o("up_done"),
            o_up_found: o("up_found"),
            o_up_evict: o("up_evict"),
            o_up_set: o("up_set"),
            o_up_way: o("up_way"),
            o_dbg_valid: o("dbg_valid"),
            o_dbg_rank: o("dbg_rank"),
        }
    }
}

pub(crate) fn decode(cfg: &MttConfig, p: &Ports, x: &[u64]) -> Inputs {
    let mut inp = Inputs::default();
    decode_into(cfg, p, x, &mut inp);
    inp
}

/// [`decode`] into `inp`, reusing its buffer.
pub(crate) fn decode_into(cfg: &MttConfig, p: &Ports, x: &[u64], inp: &mut Inputs) {
    let (v, ki, ko) = (cfg.val_bits, cfg.k_in, cfg.k_out);
    let sb = cfg.slot_bits();
    inp.reset = x[p.reset] & 1 == 1;
    inp.flush = x[p.flush] & 1 == 1;
    inp.lookup = (x[p.lk_valid] & 1 == 1).then(|| (x[p.lk_kid], x[p.lk_pc]));
    let cv = &x[p.cv_val..];
    inp.cv.clear();
    inp.cv.extend((0..cfg.cand * ki).map(|k| get(cv, k * v, v)));
    inp.upsert = (x[p.up_valid] & 1 == 1).then(|| {
        let (ic, oc) = (&x[p.up_ic..], &x[p.up_oc..]);
        let t = Trace {
            pc: x[p.up_pc],
            npc: x[p.up_npc],
            len: x[p.up_len],
            ic: (0..ki).map(|k| get_slot(ic, k * sb, v)).collect(),
            oc: (0..ko).map(|k| get_slot(oc, k * sb, v)).collect(),
        };
        (x[p.up_kid], t)
    });
    inp.inv = (x[p.inv_valid] & 1 == 1).then(|| x[p.inv_kid]);
}

/// The port-level model of `dtm-mtt`.
#[derive(Clone, Debug)]
pub struct DtmMttModel {
    pub table: Mtt,
    p: Ports,
    inp: Inputs,
}

impl DtmMttModel {
    pub fn new(cfg: &MttConfig) -> DtmMttModel {
        DtmMttModel {
            table: Mtt::new(cfg),
            p: Ports::new(cfg),
            inp: Inputs::default(),
        }
    }

    pub fn inject_fault(&mut self, f: Option<MttFault>) {
        self.table.inject_fault(f);
    }

    fn outputs(&mut self, out: &mut [u64]) {
        out.iter_mut().for_each(|w| *w = 0);
        // Stage 2 candidates.
        let (set, n, ways) = self.table.candidate_ways();
        let t = &self.table;
        let c = &t.cfg;
        let (wb, ki, v, sb) = (c.way_bits(), c.k_in, c.val_bits, c.slot_bits());
        let p = &self.p;
        for (ci, &way) in ways[..n].iter().enumerate() {
            let row = &t.rows[set * c.ways + way];
            out[p.o_cand_valid] |= 1 << ci;
            put(&mut out[p.o_cand_way..], ci * wb, wb, way as u64);
            for (k, s) in row.ic.iter().enumerate() {
                if let Some((rid, _)) = s {
                    put(
                        &mut out[p.o_cand_ic..],
                        (ci * ki + k) * 10,
                        10,
                        1 | rid << 1,
                    );
                }
            }
        }
        if let Some(res) = &t.res {
            out[p.o_res_valid] = 1;
            if let Some((way, row)) = res {
                out[p.o_res_hit] = 1;
                out[p.o_res_way] = *way as u64;
                out[p.o_res_len] = row.len;
                out[p.o_res_npc] = row.npc;
                let oc = &mut out[p.o_res_oc..];
                for (k, s) in row.oc.iter().enumerate() {
                    put_slot(oc, k * sb, v, *s);
                }
            }
        }
        if let Some(u) = &t.up {
            out[p.o_up_done] = 1;
            out[p.o_up_found] = u.found as u64;
            out[p.o_up_evict] = u.evict as u64;
            out[p.o_up_set] = u.set as u64;
            out[p.o_up_way] = u.way as u64;
        }
        let dv = p.o_dbg_valid;
        out[dv..dv + t.valid_image.len()].copy_from_slice(&t.valid_image);
        let dr = p.o_dbg_rank;
        out[dr..dr + t.rank_image.len()].copy_from_slice(&t.rank_image);
    }
}

impl Model for DtmMttModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.outputs(outputs);
        // Decoded in place: the inputs hold a whole row (moving them costs a copy).
        decode_into(&self.table.cfg, &self.p, inputs, &mut self.inp);
        if self.inp.reset {
            self.table.reset();
        } else {
            self.table.cycle(&self.inp);
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.table.check()
    }

    fn check_inputs(&self, inputs: &[u64]) -> Result<(), String> {
        let inp = decode(&self.table.cfg, &self.p, inputs);
        if inp.reset {
            return Ok(());
        }
        if inp.lookup.is_some() && inp.upsert.is_some() {
            return Err("port up_valid: a lookup and an upsert in one cycle".into());
        }
        if let Some((_, t)) = &inp.upsert {
            if t.len < 2 || t.len > self.table.cfg.l_max as u64 {
                return Err(format!("port up_len: {} is not 2..=l_max", t.len));
            }
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        let t = &self.table;
        format!(
            "valid_rows={} s2={:?} s3_cands={:?} res={:?} up={:?}",
            t.valid.iter().filter(|v| **v).count(),
            t.s2.as_ref().map(|r| match r {
                Req::Lookup { set, .. } => format!("lookup set {set}"),
                Req::Upsert { set, .. } => format!("upsert set {set}"),
            }),
            t.s3.as_ref()
                .map(|s| s.cands.iter().map(|c| c.0).collect::<Vec<_>>()),
            t.res.as_ref().map(|r| r.as_ref().map(|h| (h.0, h.1.len))),
            t.up,
        )
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        self.table.events()
    }
}
