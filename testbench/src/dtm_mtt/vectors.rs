//! Spec vectors of `dtm-mtt`, written by hand from spec/dtm.md as port-level vectors: the MTT
//! part of §4.3 (X1 misses T1 on r6, hits T0.3; X2 beside X1), §4.4 (K_IN = 2: X1'), §4.5(b)
//! (lanes as consecutive lookups: partial hit, then the full hit with X2), S9 (kid isolation,
//! retire, flush), S11 (guard predicate in `ic`), S12 (`r1 = r1 + 1`), S13 (nested prefixes:
//! the longer wins over the MRU), I10 (values differing only in the top bit) and an LRU
//! sequence in the manner of S8 (fully associative: 17 keys evict the first; touching the
//! 2nd before an 18th makes the 3rd the victim).
//!
//! Timing (contract): a lookup driven at cycle t shows `cand_*` at t+1, takes `cv_val` at t+2
//! and shows `res_*` at t+3; an upsert driven at t shows `up_*` at t+2.

use super::model::{Ctx, Trace};
use crate::{SpecVector, VectorCycle};
use warpforge_contract::units::dtm_mtt::{put, put_slot, MttConfig, NAME};

/// GPR `n` and predicate `n` as 9-bit rids (class bit 8).
pub fn r(n: u64) -> u64 {
    n
}
pub fn pr(n: u64) -> u64 {
    256 + n
}

/// A trace with its contexts padded to the configuration's slot counts.
pub fn trace(
    cfg: &MttConfig,
    pc: u64,
    npc: u64,
    len: u64,
    ic: &[(u64, u64)],
    oc: &[(u64, u64)],
) -> Trace {
    let pad = |x: &[(u64, u64)], n: usize| -> Ctx { (0..n).map(|k| x.get(k).copied()).collect() };
    Trace {
        pc,
        npc,
        len,
        ic: pad(ic, cfg.k_in),
        oc: pad(oc, cfg.k_out),
    }
}

/// Packs context slots into port words.
pub fn ctx_words(cfg: &MttConfig, slots: &[super::model::Slot]) -> Vec<u64> {
    let sb = cfg.slot_bits();
    let mut w = vec![0u64; (slots.len() * sb).div_ceil(64)];
    for (k, s) in slots.iter().enumerate() {
        put_slot(&mut w, k * sb, cfg.val_bits, *s);
    }
    w
}

/// A vector under construction: events scheduled at absolute cycles (cycle 0 is reset).
pub struct Script {
    cfg: MttConfig,
    name: String,
    sets: Vec<String>,
    cycles: Vec<VectorCycle>,
}

impl Script {
    pub fn new(name: &str, sets: &[&str]) -> Script {
        let s: Vec<String> = sets.iter().map(|x| x.to_string()).collect();
        let p = warpforge_contract::Params::resolve(
            NAME,
            warpforge_contract::units::dtm_mtt::PARAMS,
            None,
            &s,
        )
        .expect("vector parameters");
        let mut sc = Script {
            cfg: MttConfig::from_params(&p).expect("vector configuration"),
            name: name.into(),
            sets: s,
            cycles: vec![],
        };
        sc.input(0, "reset", vec![1]);
        sc
    }

    pub fn cfg(&self) -> &MttConfig {
        &self.cfg
    }

    fn at(&mut self, c: usize) -> &mut VectorCycle {
        while self.cycles.len() <= c {
            self.cycles.push(VectorCycle::default());
        }
        &mut self.cycles[c]
    }

    pub fn input(&mut self, c: usize, port: &'static str, v: Vec<u64>) {
        self.at(c).inputs.push((port, v));
    }

    pub fn expect(&mut self, c: usize, port: &'static str, v: Vec<u64>) {
        self.at(c).expect.push((port, v));
    }

    /// Upsert `t` with kid `kid` at cycle `c`; at c+2: found / evict / way.
    pub fn upsert(&mut self, c: usize, kid: u64, t: &Trace, found: bool, evict: bool, way: u64) {
        self.input(c, "up_valid", vec![1]);
        self.input(c, "up_kid", vec![kid]);
        self.input(c, "up_pc", vec![t.pc]);
        self.input(c, "up_npc", vec![t.npc]);
        self.input(c, "up_len", vec![t.len]);
        let (ic, oc) = (ctx_words(&self.cfg, &t.ic), ctx_words(&self.cfg, &t.oc));
        self.input(c, "up_ic", ic);
        self.input(c, "up_oc", oc);
        self.expect(c + 2, "up_done", vec![1]);
        self.expect(c + 2, "up_found", vec![found as u64]);
        self.expect(c + 2, "up_evict", vec![evict as u64]);
        self.expect(c + 2, "up_way", vec![way]);
    }

    /// A lookup at cycle `c`: the candidates expected at c+1 (way and trace, MRU first), the
    /// register file `regs` answering their `ic` rids at c+2, and the winner expected at c+3
    /// (`None`: a miss).
    pub fn lookup(
        &mut self,
        c: usize,
        kid: u64,
        pc: u64,
        cands: &[(u64, &Trace)],
        regs: &dyn Fn(u64) -> u64,
        winner: Option<(u64, &Trace)>,
    ) {
        let (ki, v, wb) = (self.cfg.k_in, self.cfg.val_bits, self.cfg.way_bits());
        let nc = self.cfg.cand;
        self.input(c, "lk_valid", vec![1]);
        self.input(c, "lk_kid", vec![kid]);
        self.input(c, "lk_pc", vec![pc]);
        let mut cv_ic = vec![0u64; (nc * ki * 10).div_ceil(64)];
        let mut cv_way = vec![0u64; (nc * wb).div_ceil(64)];
        let mut cv = vec![0u64; (nc * ki * v).div_ceil(64)];
        let mut mask = 0u64;
        for (ci, (way, t)) in cands.iter().enumerate() {
            mask |= 1 << ci;
            put(&mut cv_way, ci * wb, wb, *way);
            for (k, s) in t.ic.iter().enumerate() {
                if let Some((rid, _)) = s {
                    put(&mut cv_ic, (ci * ki + k) * 10, 10, 1 | rid << 1);
                    put(&mut cv, (ci * ki + k) * v, v, regs(*rid));
                }
            }
        }
        self.expect(c + 1, "cand_valid", vec![mask]);
        self.expect(c + 1, "cand_way", cv_way);
        self.expect(c + 1, "cand_ic", cv_ic);
        self.input(c + 2, "cv_val", cv);
        self.expect(c + 3, "res_valid", vec![1]);
        match winner {
            Some((way, t)) => {
                let oc = ctx_words(&self.cfg, &t.oc);
                self.expect(c + 3, "res_hit", vec![1]);
                self.expect(c + 3, "res_way", vec![way]);
                self.expect(c + 3, "res_len", vec![t.len]);
                self.expect(c + 3, "res_npc", vec![t.npc]);
                self.expect(c + 3, "res_oc", oc);
            }
            None => {
                self.expect(c + 3, "res_hit", vec![0]);
                self.expect(c + 3, "res_len", vec![0]);
            }
        }
    }

    pub fn done(mut self, tail: usize) -> SpecVector {
        let n = self.cycles.len() + tail;
        self.at(n);
        SpecVector {
            name: self.name,
            unit: NAME,
            sets: self.sets,
            cycles: self.cycles,
        }
    }
}

/// §4.3's registers of T0 (r6 = 0xFF) and T1 (r6 = 0x0F).
fn t0(rid: u64) -> u64 {
    match rid {
        1 => 5,
        2 => 7,
        6 => 0xFF,
        _ => 0,
    }
}
fn t1(rid: u64) -> u64 {
    if rid == 6 {
        0x0F
    } else {
        t0(rid)
    }
}

/// §4.3 and §4.5(b): X1 misses T1 on r6, hits T0.3; X2 goes beside X1; then each thread
/// hits its own trace (X1 as the second, older candidate).
fn two_threads() -> SpecVector {
    let mut s = Script::new("dtm §4.3 / §4.5(b): X1, X2 and the per-thread hits", &[]);
    let c = s.cfg().clone();
    let x1 = trace(
        &c,
        0x100,
        0x120,
        4,
        &[(r(1), 5), (r(2), 7), (r(6), 255)],
        &[(r(3), 12), (r(4), 48), (r(5), 48), (r(7), 53)],
    );
    let x2 = trace(
        &c,
        0x100,
        0x120,
        4,
        &[(r(1), 5), (r(2), 7), (r(6), 15)],
        &[(r(3), 12), (r(4), 48), (r(5), 0), (r(7), 5)],
    );
    // Step 11: X1 into the empty set (way 0).
    s.upsert(1, 0, &x1, false, false, 0);
    // Step 13: T1 reaches 0x100: X1 is a candidate, r6 differs: miss.
    s.lookup(4, 0, 0x100, &[(0, &x1)], &t1, None);
    // Step 19: T0.3 hits X1: oc written, npc 0x120, trace += 4.
    s.lookup(8, 0, 0x100, &[(0, &x1)], &t0, Some((0, &x1)));
    // Step 26: X2 (another ic: not a duplicate) into way 1.
    s.upsert(12, 0, &x2, false, false, 1);
    // §4.5(b) lanes {0,1,3} (T0's values) and lane 2 (T1's), one lookup per cycle: X2 is
    // MRU, X1 second.
    s.lookup(15, 0, 0x100, &[(1, &x2), (0, &x1)], &t0, Some((0, &x1)));
    s.lookup(16, 0, 0x100, &[(1, &x2), (0, &x1)], &t1, Some((1, &x2)));
    // Re-inserting X1 refreshes it (I6: no duplicate).
    s.upsert(20, 0, &x1, true, false, 0);
    s.done(2)
}

/// §4.4 (K_IN = 2): X1' = {0x100, 0x110, 2, ic{r1, r2}, oc{r3, r4}} hits T0.3.
fn k_in_2() -> SpecVector {
    let mut s = Script::new("dtm §4.4 (k_in=2): X1' hits T0.3", &["k_in=2"]);
    let c = s.cfg().clone();
    let x1p = trace(
        &c,
        0x100,
        0x110,
        2,
        &[(r(1), 5), (r(2), 7)],
        &[(r(3), 12), (r(4), 48)],
    );
    s.upsert(1, 0, &x1p, false, false, 0);
    s.lookup(4, 0, 0x100, &[(0, &x1p)], &t0, Some((0, &x1p)));
    // T1 has the same r1, r2: X1' hits it too (r6 is not in its context).
    s.lookup(5, 0, 0x100, &[(0, &x1p)], &t1, Some((0, &x1p)));
    s.done(2)
}

/// S13 (nested prefixes: the length-4 trace wins although the length-2 one is MRU), S12
/// (`r1 = r1 + 1`: ic old r1, oc new r1) and S11 (a trace recorded with p0 = 1 is not reused
/// with p0 = 0).
fn longest_and_contexts() -> SpecVector {
    let mut s = Script::new(
        "dtm S11, S12, S13: guard in ic, r1 = r1 + 1, longest wins",
        &[],
    );
    let c = s.cfg().clone();
    let l4 = trace(
        &c,
        0x300,
        0x320,
        4,
        &[(r(1), 1), (r(3), 2)],
        &[(r(2), 9), (r(4), 9)],
    );
    let l2 = trace(&c, 0x300, 0x310, 2, &[(r(1), 1)], &[(r(2), 9)]);
    s.upsert(1, 0, &l4, false, false, 0);
    s.upsert(2, 0, &l2, false, false, 1);
    let both = |rid: u64| [0, 1, 9, 2][rid.min(3) as usize];
    let short = |rid: u64| [0, 1, 9, 7][rid.min(3) as usize];
    s.lookup(5, 0, 0x300, &[(1, &l2), (0, &l4)], &both, Some((0, &l4)));
    // The l4 hit (stage 3, cycle 7) made it MRU.
    s.lookup(8, 0, 0x300, &[(0, &l4), (1, &l2)], &short, Some((1, &l2)));
    // S12: r1 = r1 + 1 twice: ic{r1 = 5}, oc{r1 = 7}.
    let inc = trace(&c, 0x400, 0x410, 2, &[(r(1), 5)], &[(r(1), 7)]);
    s.upsert(12, 0, &inc, false, false, 0);
    s.lookup(15, 0, 0x400, &[(0, &inc)], &|_| 5, Some((0, &inc)));
    s.lookup(16, 0, 0x400, &[(0, &inc)], &|_| 6, None);
    // S11: @p0 add recorded with p0 = 1: p0 is in ic.
    let g = trace(
        &c,
        0x500,
        0x510,
        2,
        &[(pr(0), 1), (r(2), 3)],
        &[(r(3), 4), (r(5), 8)],
    );
    // 0x500 shares set 64 with 0x300: way 2.
    s.upsert(20, 0, &g, false, false, 2);
    s.lookup(
        23,
        0,
        0x500,
        &[(2, &g)],
        &|rid| if rid == pr(0) { 0 } else { 3 },
        None,
    );
    s.lookup(
        24,
        0,
        0x500,
        &[(2, &g)],
        &|rid| if rid == pr(0) { 1 } else { 3 },
        Some((2, &g)),
    );
    s.done(2)
}

/// S9 and I11 (kids do not share entries; retire clears one kid; flush clears all) and I10
/// (a value differing only in bit 31 does not hit).
fn kernels_and_bits() -> SpecVector {
    let mut s = Script::new(
        "dtm S9, I10, I11: kid isolation, retire, flush, top bit",
        &[],
    );
    let c = s.cfg().clone();
    let a = trace(&c, 0x100, 0x110, 2, &[(r(1), 0x8000_0001)], &[(r(2), 3)]);
    s.upsert(1, 0, &a, false, false, 0);
    // kid 1, same PC and values: its set is another one; no candidate.
    s.upsert(2, 1, &a, false, false, 0);
    s.lookup(5, 1, 0x100, &[(0, &a)], &|_| 0x8000_0001, Some((0, &a)));
    s.lookup(6, 0, 0x100, &[(0, &a)], &|_| 0x0000_0001, None);
    // Retire kid 1 (cycle 10): its row goes, kid 0's stays.
    s.input(10, "inv_valid", vec![1]);
    s.input(10, "inv_kid", vec![1]);
    s.lookup(11, 1, 0x100, &[], &|_| 0x8000_0001, None);
    s.lookup(12, 0, 0x100, &[(0, &a)], &|_| 0x8000_0001, Some((0, &a)));
    s.input(16, "flush", vec![1]);
    s.lookup(17, 0, 0x100, &[], &|_| 0x8000_0001, None);
    let set0 = ((0x100u64 >> 2) & 127) as usize;
    let mut v = vec![0u64; 16];
    v[set0 * 8 / 64] |= 1 << (set0 * 8 % 64);
    s.expect(13, "dbg_valid", v);
    s.expect(18, "dbg_valid", vec![0; 16]);
    s.done(2)
}

/// LRU in a fully associative 16-entry MTT (S8's sequence, §2.5, I15).
fn lru_sequence() -> SpecVector {
    let mut s = Script::new(
        "dtm S8 on the MTT (entries=ways=16): 17 keys evict the first; a hit on the 2nd makes the 3rd the victim",
        &["entries=16", "ways=16", "cand=1"],
    );
    let c = s.cfg().clone();
    let key = |i: u64| {
        trace(
            &c,
            0x1000 + 0x40 * i,
            0x1010 + 0x40 * i,
            2,
            &[(r(1), i)],
            &[(r(2), i)],
        )
    };
    for i in 0..16u64 {
        s.upsert(1 + i as usize, 0, &key(i), false, false, i);
    }
    // Key 16 evicts key 0 (way 0, the LRU).
    s.upsert(17, 0, &key(16), false, true, 0);
    // Key 0 is gone; key 1 hits (and becomes MRU).
    s.lookup(20, 0, 0x1000, &[], &|_| 0, None);
    s.lookup(24, 0, 0x1040, &[(1, &key(1))], &|_| 1, Some((1, &key(1))));
    // Key 17 evicts key 2 (way 2).
    s.upsert(28, 0, &key(17), false, true, 2);
    s.done(2)
}

pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        two_threads(),
        k_in_2(),
        longest_and_contexts(),
        kernels_and_bits(),
        lru_sequence(),
    ]
}
