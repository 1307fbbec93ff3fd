//! The priority round-robin arbiter ([`PrioRr`]) and the port-level model
//! ([`MsapArbiterModel`]), which asserts §7.1 I-3 … I-8 for the arbiter every cycle.

use warpforge_contract::units::msap_arbiter::ArbiterConfig;
use warpforge_contract::Layout;

use crate::words;
use crate::Model;

/// A deliberate model bug, for tests that show lockstep catches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArbFault {
    /// The search starts at the pointer itself, not the requester after it.
    SearchFromPtr,
    /// A committed grant does not move the pointer.
    NoPointerMove,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct ArbEvents {
    /// Committed grants.
    pub grants: u64,
    /// Committed grants while a requester of a lower level waited.
    pub priority_wins: u64,
    /// Committed grants with two or more requesters at the winning level.
    pub ties: u64,
    /// Committed grants at the urgent level.
    pub urgent_grants: u64,
    /// Grants offered but not used (`commit` low).
    pub unused_grants: u64,
    /// Cycles with no requester.
    pub idle: u64,
}

/// MSAA's arbiter (§2.6): pointers, loss counters, arbitrate, commit.
#[derive(Clone, Debug)]
pub struct PrioRr {
    cfg: ArbiterConfig,
    ptr: Vec<usize>,
    lost: Vec<u32>,
    lost_max: u32,
    fault: Option<ArbFault>,
}

impl PrioRr {
    pub fn new(cfg: &ArbiterConfig) -> PrioRr {
        PrioRr {
            ptr: vec![cfg.n - 1; cfg.ptrs()],
            lost: vec![0; cfg.n],
            lost_max: ((1u64 << cfg.lost_bits()) - 1) as u32,
            fault: None,
            cfg: cfg.clone(),
        }
    }

    pub fn reset(&mut self) {
        self.ptr.iter_mut().for_each(|p| *p = self.cfg.n - 1);
        self.lost.iter_mut().for_each(|l| *l = 0);
    }

    pub fn ptrs(&self) -> &[usize] {
        &self.ptr
    }
    pub fn lost(&self) -> &[u32] {
        &self.lost
    }
    pub fn config(&self) -> &ArbiterConfig {
        &self.cfg
    }

    /// Requester i's effective level at PL `pl`.
    pub fn eff_lvl(&self, i: usize, pl: u32) -> u32 {
        if !self.cfg.msaa_en {
            0
        } else if self.cfg.ageing() && self.lost[i] >= self.cfg.age_thresh as u32 {
            self.cfg.urgent_lvl() as u32
        } else {
            pl
        }
    }

    fn ptr_index(&self, lvl: u32) -> usize {
        if self.ptr.len() == 1 {
            0
        } else {
            lvl as usize
        }
    }

    /// Every requester's effective level (index i < n).
    pub fn levels(&self, pl: &[u32]) -> [u32; 16] {
        let mut lv = [0u32; 16];
        let n = self.cfg.n;
        if !self.cfg.msaa_en {
            // Every requester at level 0.
        } else if !self.cfg.ageing() {
            lv[..n].copy_from_slice(&pl[..n]);
        } else {
            for (i, l) in lv.iter_mut().enumerate().take(n) {
                *l = self.eff_lvl(i, pl[i]);
            }
        }
        lv
    }

    /// The winner and its level, from the requests (`req` bit i) and PLs.
    pub fn arbitrate(&self, req: u32, pl: &[u32]) -> Option<(usize, u32)> {
        self.arbitrate_levels(req, &self.levels(pl))
    }

    /// [`PrioRr::arbitrate`] from effective levels.
    pub fn arbitrate_levels(&self, req: u32, lv: &[u32; 16]) -> Option<(usize, u32)> {
        let n = self.cfg.n;
        let req = req & low_mask(n);
        if req == 0 {
            return None;
        }
        let mut m = 0;
        let mut r = req;
        while r != 0 {
            m = m.max(lv[r.trailing_zeros() as usize]);
            r &= r - 1;
        }
        let mut at_m = 0u32;
        let mut r = req;
        while r != 0 {
            let i = r.trailing_zeros() as usize;
            at_m |= ((lv[i] == m) as u32) << i;
            r &= r - 1;
        }
        let p = self.ptr[self.ptr_index(m)];
        let start = if self.fault == Some(ArbFault::SearchFromPtr) {
            p
        } else {
            (p + 1) % n
        };
        Some((first_from(at_m, start), m))
    }

    /// A used grant to `g` at level `lvl`: the pointer moves, losses count.
    pub fn commit(&mut self, req: u32, g: usize, lvl: u32) {
        if self.fault != Some(ArbFault::NoPointerMove) {
            let k = self.ptr_index(lvl);
            self.ptr[k] = g;
        }
        if self.cfg.ageing() {
            for i in 0..self.cfg.n {
                if i == g {
                    self.lost[i] = 0;
                } else if req >> i & 1 == 1 && self.lost[i] < self.lost_max {
                    self.lost[i] += 1;
                }
            }
        }
    }
}

/// The first requester after `p` in cyclic order (a plain round-robin arbiter).
fn next_after(p: usize, n: usize, req: u32) -> Option<usize> {
    let req = req & low_mask(n);
    (req != 0).then(|| first_from(req, (p + 1) % n))
}

/// Bits 0 .. n.
fn low_mask(n: usize) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1 << n) - 1
    }
}

/// The first set bit of `set` (non-zero) in cyclic order from bit `start`: the ring's tail
/// `start ..`, then its head.
fn first_from(set: u32, start: usize) -> usize {
    let tail = if start >= 32 {
        0
    } else {
        set & !((1u32 << start) - 1)
    };
    if tail != 0 {
        tail.trailing_zeros() as usize
    } else {
        set.trailing_zeros() as usize
    }
}

/// Where each port lives in the flat vectors.
#[derive(Clone, Debug)]
pub(crate) struct Ports {
    pub reset: usize,
    pub req: usize,
    pub pl: usize,
    pub commit: usize,
    pub gnt_valid: usize,
    pub gnt: usize,
    pub gnt_idx: usize,
    pub gnt_lvl: usize,
    pub dbg_ptr: usize,
    pub dbg_lost: usize,
}

impl Ports {
    pub fn new(cfg: &ArbiterConfig) -> Ports {
        let l = Layout::new(&cfg.ports());
        let i = |n: &str| l.input(n).unwrap().offset;
        let o = |n: &str| l.output(n).unwrap().offset;
        Ports {
            reset: i("reset"),
            req: i("req"),
            pl: i("pl"),
            commit: i("commit"),
            gnt_valid: o("gnt_valid"),
            gnt: o("gnt"),
            gnt_idx: o("gnt_idx"),
            gnt_lvl: o("gnt_lvl"),
            dbg_ptr: o("dbg_ptr"),
            dbg_lost: o("dbg_lost"),
        }
    }
}

/// The port-level model of `msap-arbiter`.
#[derive(Clone, Debug)]
pub struct MsapArbiterModel {
    arb: PrioRr,
    p: Ports,
    /// This cycle's PLs (n ≤ 16).
    pl: [u32; 16],
    /// Requesters still waiting after the last cycle (bit i), with their PL (the protocol).
    pending: u32,
    pending_pl: [u32; 16],
    /// `dbg_ptr`'s words, repacked after the pointers moved.
    ptr_words: [u64; 2],
    ptrs_moved: bool,
    /// I-6: grants at requester i's level to others since i started waiting at it.
    overtaken: Vec<u32>,
    waited_lvl: Vec<u32>,
    /// I-8: a plain round-robin arbiter fed the same requests, and whether every committed
    /// round since reset had all its requesters at one level.
    rr: usize,
    uniform: bool,
    uni_lvl: Option<u32>,
    /// Pointer and loss-counter widths.
    ib: usize,
    lb: usize,
    cycles: u64,
    violation: Option<String>,
    pub ev: ArbEvents,
}

impl MsapArbiterModel {
    pub fn new(cfg: &ArbiterConfig) -> MsapArbiterModel {
        MsapArbiterModel {
            arb: PrioRr::new(cfg),
            p: Ports::new(cfg),
            pl: [0; 16],
            pending: 0,
            pending_pl: [0; 16],
            ptr_words: [0; 2],
            ptrs_moved: true,
            overtaken: vec![0; cfg.n],
            waited_lvl: vec![0; cfg.n],
            rr: cfg.n - 1,
            uniform: true,
            uni_lvl: None,
            ib: cfg.idx_bits(),
            lb: cfg.lost_bits(),
            cycles: 0,
            violation: None,
            ev: ArbEvents::default(),
        }
    }

    pub fn inject_fault(&mut self, fault: Option<ArbFault>) {
        self.arb.fault = fault;
    }

    fn decode(&mut self, inputs: &[u64]) -> (bool, u32, bool) {
        let c = &self.arb.cfg;
        let pb = c.pl_bits;
        // n · pl_bits ≤ 64: one word.
        let w = inputs[self.p.pl];
        let m = (1u64 << pb) - 1;
        for (i, pl) in self.pl.iter_mut().enumerate().take(c.n) {
            *pl = (w >> (i * pb) & m) as u32;
        }
        let req = (inputs[self.p.req] & ((1u64 << c.n) - 1)) as u32;
        (
            inputs[self.p.reset] & 1 == 1,
            req,
            inputs[self.p.commit] & 1 == 1,
        )
    }

    fn fail(&mut self, what: String) {
        if self.violation.is_none() {
            self.violation = Some(format!("cycle {}: {what}", self.cycles));
        }
    }

    fn reset(&mut self) {
        self.arb.reset();
        self.ptrs_moved = true;
        self.pending = 0;
        self.overtaken.iter_mut().for_each(|o| *o = 0);
        self.rr = self.arb.cfg.n - 1;
        self.uniform = true;
        self.uni_lvl = None;
    }

    /// §7.1 on one arbitration: I-3 (the grant goes to one requester), I-4 (work
    /// conservation), I-5 (no requester above the winner's level), I-8 (uniform levels: the
    /// plain RR arbiter's choice). `levels`: bit l set when some requester is at level l.
    fn check_round(&mut self, req: u32, lv: &[u32; 16], win: Option<(usize, u32)>, levels: u32) {
        let n = self.arb.cfg.n;
        match win {
            None if req != 0 => self.fail("I-4: requesters but no grant".into()),
            None => {}
            Some((g, m)) => {
                if req >> g & 1 == 0 {
                    self.fail(format!("I-3: grant to {g}, which does not request"));
                }
                if levels >> m >> 1 != 0 {
                    // The first requester above the winner's level names the failure.
                    let i = (0..n).find(|&i| req >> i & 1 == 1 && lv[i] > m).unwrap();
                    let l = lv[i];
                    self.fail(format!(
                        "I-5: requester {i} at level {l} above winner {g} ({m})"
                    ));
                }
                let one = levels.count_ones() == 1 && self.uni_lvl.is_none_or(|u| levels == 1 << u);
                if self.uniform && one {
                    let rr = next_after(self.rr, n, req);
                    if rr != Some(g) {
                        self.fail(format!("I-8: one level, grant {g}, plain RR {rr:?}"));
                    }
                }
            }
        }
    }

    /// I-6 and I-7 after a committed grant.
    fn check_after_commit(&mut self, req: u32, g: usize, m: u32) {
        let c = &self.arb.cfg;
        let (n, shared, ageing, bound) = (c.n, c.shared_ptr, c.ageing(), c.age_thresh + c.n - 1);
        let mut others = req & low_mask(n) & !(1 << g);
        while others != 0 {
            let i = others.trailing_zeros() as usize;
            others &= others - 1;
            let l = self.arb.eff_lvl(i, self.pl[i]);
            // Counted at i's level before this commit (its level may rise to urgent now).
            if self.waited_lvl[i] == m {
                self.overtaken[i] += 1;
            }
            if !shared && self.overtaken[i] > n as u32 - 1 {
                self.fail(format!(
                    "I-6: requester {i} overtaken {} times at level {m}",
                    self.overtaken[i]
                ));
            }
            if l != self.waited_lvl[i] {
                self.waited_lvl[i] = l;
                self.overtaken[i] = 0;
            }
            if ageing && self.arb.lost[i] as usize > bound {
                self.fail(format!(
                    "I-7: requester {i} lost {} rounds",
                    self.arb.lost[i]
                ));
            }
        }
        self.overtaken[g] = 0;
    }

    /// The pointers packed as `dbg_ptr` holds them (at most 17 pointers of 4 bits).
    fn pack_ptrs(&self) -> [u64; 2] {
        let mut ptrs = 0u128;
        for (k, &v) in self.arb.ptr.iter().enumerate() {
            ptrs |= (v as u128) << (k * self.ib);
        }
        [ptrs as u64, (ptrs >> 64) as u64]
    }

    fn outputs(&mut self, win: Option<(usize, u32)>, out: &mut [u64]) {
        let p = &self.p;
        out.iter_mut().for_each(|x| *x = 0);
        if let Some((g, m)) = win {
            out[p.gnt_valid] = 1;
            out[p.gnt] = 1 << g;
            out[p.gnt_idx] = g as u64;
            out[p.gnt_lvl] = m as u64;
        }
        // The pointers move only on a commit or a reset: repack them then.
        if self.ptrs_moved {
            self.ptr_words = self.pack_ptrs();
            self.ptrs_moved = false;
        }
        out[p.dbg_ptr] = self.ptr_words[0];
        if self.arb.ptr.len() * self.ib > 64 {
            out[p.dbg_ptr + 1] = self.ptr_words[1];
        }
        if self.lb > 0 {
            let lost = self.arb.lost.iter().map(|&v| v as u64);
            words::or_seq(&mut out[p.dbg_lost..], 0, self.lb, lost);
        }
    }
}

impl Model for MsapArbiterModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.cycles += 1;
        let (reset, req, commit) = self.decode(inputs);
        let lv = self.arb.levels(&self.pl);
        let win = self.arb.arbitrate_levels(req, &lv);
        self.outputs(win, outputs);
        if reset {
            self.reset();
            return;
        }
        let n = self.arb.cfg.n;
        // The requesters' levels (bit l: some requester at level l) and how many are at
        // the winner's.
        let (mut levels, mut at_m) = (0u32, 0u32);
        if let Some((_, m)) = win {
            let mut r = req;
            while r != 0 {
                let l = lv[r.trailing_zeros() as usize];
                levels |= 1 << l;
                at_m += (l == m) as u32;
                r &= r - 1;
            }
        }
        self.check_round(req, &lv, win, levels);
        let mut fresh = req & !self.pending;
        while fresh != 0 {
            let i = fresh.trailing_zeros() as usize;
            fresh &= fresh - 1;
            self.waited_lvl[i] = lv[i];
            self.overtaken[i] = 0;
        }
        match win {
            None => self.ev.idle += 1,
            Some(_) if !commit => self.ev.unused_grants += 1,
            Some((g, m)) => {
                let e = &mut self.ev;
                e.grants += 1;
                e.ties += (at_m >= 2) as u64;
                e.priority_wins += (levels & ((1 << m) - 1) != 0) as u64;
                e.urgent_grants +=
                    (self.arb.cfg.ageing() && m as usize == self.arb.cfg.urgent_lvl()) as u64;
                if levels.count_ones() > 1 || self.uni_lvl.is_some_and(|u| levels != 1 << u) {
                    self.uniform = false;
                }
                self.uni_lvl = Some(m);
                self.rr = next_after(self.rr, n, req).unwrap();
                self.arb.commit(req, g, m);
                // Only the pointer of level m moved.
                let k = self.arb.ptr_index(m);
                let v = self.arb.ptr[k] as u64;
                words::set(&mut self.ptr_words, k * self.ib, self.ib, v);
                self.check_after_commit(req, g, m);
            }
        }
        let granted = match win {
            Some((g, _)) if commit => 1 << g,
            _ => 0,
        };
        self.pending = req & !granted;
        self.pending_pl = self.pl;
    }

    fn check_invariants(&self) -> Result<(), String> {
        if let Some(v) = &self.violation {
            return Err(v.clone());
        }
        let n = self.arb.cfg.n;
        if let Some(p) = self.arb.ptr.iter().find(|&&p| p >= n) {
            return Err(format!("pointer {p} is not a requester"));
        }
        Ok(())
    }

    fn check_inputs(&self, inputs: &[u64]) -> Result<(), String> {
        let mut m = self.clone();
        let (reset, req, _) = m.decode(inputs);
        if reset {
            return Ok(());
        }
        for (i, &p) in self.pending_pl.iter().enumerate().take(self.arb.cfg.n) {
            if self.pending >> i & 1 == 1 {
                if req >> i & 1 == 0 {
                    return Err(format!("port req: requester {i} withdrew before its grant"));
                }
                if m.pl[i] != p {
                    return Err(format!(
                        "port pl: requester {i} changed its PL while waiting"
                    ));
                }
            }
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        format!("ptr={:?} lost={:?}", self.arb.ptr, self.arb.lost)
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let e = &self.ev;
        vec![
            ("grants", e.grants),
            ("priority_wins", e.priority_wins),
            ("ties", e.ties),
            ("urgent_grants", e.urgent_grants),
            ("unused_grants", e.unused_grants),
            ("idle", e.idle),
        ]
    }
}
