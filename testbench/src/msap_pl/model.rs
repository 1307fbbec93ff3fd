//! The occupancy counter and PL register ([`PlGen`]) and the port-level model
//! ([`MsapPlModel`]), which asserts I-1 every cycle.

use warpforge_contract::units::msap::quantise;
use warpforge_contract::units::msap_pl::PlConfig;
use warpforge_contract::Layout;

use crate::Model;

/// A deliberate model bug, for tests that show lockstep catches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlFault {
    /// Merged secondary misses are counted as entries.
    CountMerges,
    /// The PL is taken from the next occupancy (no register lag).
    NoLag,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct PlEvents {
    pub allocs: u64,
    pub merges: u64,
    pub fills: u64,
    /// Primary misses refused with the table full (§2.2's reservation-fail counter).
    pub rsv_fails: u64,
    pub alloc_and_fill: u64,
    /// Cycles with the top PL.
    pub top_pl_cycles: u64,
}

/// §2.2: the MSHR occupancy counter and `pl_reg`.
#[derive(Clone, Debug)]
pub struct PlGen {
    cfg: PlConfig,
    occ: u64,
    pl: u64,
    /// The occupancy `pl` was computed from (I-1's one-cycle lag).
    prev_occ: u64,
    fault: Option<PlFault>,
    violation: Option<String>,
    pub ev: PlEvents,
}

impl PlGen {
    pub fn new(cfg: &PlConfig) -> PlGen {
        PlGen {
            cfg: cfg.clone(),
            occ: 0,
            pl: 0,
            prev_occ: 0,
            fault: None,
            violation: None,
            ev: PlEvents::default(),
        }
    }
    pub fn reset(&mut self) {
        (self.occ, self.pl, self.prev_occ) = (0, 0, 0);
    }
    pub fn occ(&self) -> u64 {
        self.occ
    }
    pub fn pl(&self) -> u64 {
        self.pl
    }
    pub fn full(&self) -> bool {
        self.occ == self.cfg.mshr_entries as u64
    }
    /// (accept, rsv_fail) of a miss this cycle.
    pub fn decide(&self, miss: bool, merge: bool) -> (bool, bool) {
        (
            miss && (merge || !self.full()),
            miss && !merge && self.full(),
        )
    }

    /// One cycle; returns whether the miss was accepted.
    pub fn cycle(&mut self, miss: bool, merge: bool, fill: bool) -> bool {
        let (accept, fail) = self.decide(miss, merge);
        let alloc = accept && (!merge || self.fault == Some(PlFault::CountMerges));
        let alloc = alloc && !self.full();
        if fill && self.occ == 0 && self.violation.is_none() {
            self.violation = Some("contract: fill with no valid MSHR entry".into());
        }
        let free = fill && self.occ > 0;
        let e = &mut self.ev;
        e.allocs += (alloc && !merge) as u64;
        e.merges += (miss && merge) as u64;
        e.fills += free as u64;
        e.rsv_fails += fail as u64;
        e.alloc_and_fill += (alloc && free) as u64;
        let (pb, ps) = (self.cfg.pl_bits, self.cfg.pl_shift);
        e.top_pl_cycles += (self.pl == quantise(u64::MAX, pb, 0)) as u64;
        let next = self.occ + alloc as u64 - free as u64;
        self.prev_occ = self.occ;
        self.pl = if self.fault == Some(PlFault::NoLag) {
            quantise(next, pb, ps)
        } else {
            quantise(self.occ, pb, ps)
        };
        self.occ = next;
        accept
    }

    /// I-1: the PL is in range and is the quantised occupancy of one cycle earlier; the
    /// quantiser never falls as occupancy rises; the occupancy is at most the table size.
    pub fn check(&self) -> Result<(), String> {
        if let Some(v) = &self.violation {
            return Err(v.clone());
        }
        let (pb, ps) = (self.cfg.pl_bits, self.cfg.pl_shift);
        if self.occ > self.cfg.mshr_entries as u64 {
            return Err(format!(
                "occupancy {} above {}",
                self.occ, self.cfg.mshr_entries
            ));
        }
        if self.pl > quantise(u64::MAX, pb, 0) || self.pl != quantise(self.prev_occ, pb, ps) {
            return Err(format!(
                "I-1: pl_reg {} but min(top, {} >> {ps}) = {}",
                self.pl,
                self.prev_occ,
                quantise(self.prev_occ, pb, ps)
            ));
        }
        if self.occ > 0 && quantise(self.occ, pb, ps) < quantise(self.occ - 1, pb, ps) {
            return Err(format!(
                "I-1: the PL falls from occupancy {} to {}",
                self.occ - 1,
                self.occ
            ));
        }
        Ok(())
    }

    pub fn events(&self) -> Vec<(&'static str, u64)> {
        let e = &self.ev;
        vec![
            ("allocs", e.allocs),
            ("merges", e.merges),
            ("fills", e.fills),
            ("rsv_fails", e.rsv_fails),
            ("alloc_and_fill", e.alloc_and_fill),
            ("top_pl_cycles", e.top_pl_cycles),
        ]
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Ports {
    pub reset: usize,
    pub miss: usize,
    pub merge: usize,
    pub fill: usize,
    pub accept: usize,
    pub rsv_fail: usize,
    pub mshr_occ: usize,
    pub pl: usize,
}

impl Ports {
    pub fn new(cfg: &PlConfig) -> Ports {
        let l = Layout::new(&cfg.ports());
        let i = |n: &str| l.input(n).unwrap().offset;
        let o = |n: &str| l.output(n).unwrap().offset;
        Ports {
            reset: i("reset"),
            miss: i("miss"),
            merge: i("merge"),
            fill: i("fill"),
            accept: o("accept"),
            rsv_fail: o("rsv_fail"),
            mshr_occ: o("mshr_occ"),
            pl: o("pl"),
        }
    }
}

/// The port-level model of `msap-pl`.
#[derive(Clone, Debug)]
pub struct MsapPlModel {
    pub gen: PlGen,
    p: Ports,
}

impl MsapPlModel {
    pub fn new(cfg: &PlConfig) -> MsapPlModel {
        MsapPlModel {
            gen: PlGen::new(cfg),
            p: Ports::new(cfg),
        }
    }
    pub fn inject_fault(&mut self, fault: Option<PlFault>) {
        self.gen.fault = fault;
    }
}

impl Model for MsapPlModel {
    fn step(&mut self, inputs: &[u64], out: &mut [u64]) {
        let p = &self.p;
        let bit = |o: usize| inputs[o] & 1 == 1;
        let (reset, miss, merge, fill) = (bit(p.reset), bit(p.miss), bit(p.merge), bit(p.fill));
        let (accept, fail) = self.gen.decide(miss, merge);
        out[p.accept] = accept as u64;
        out[p.rsv_fail] = fail as u64;
        out[p.mshr_occ] = self.gen.occ;
        out[p.pl] = self.gen.pl;
        if reset {
            self.gen.reset();
        } else {
            self.gen.cycle(miss, merge, fill);
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.gen.check()
    }

    fn check_inputs(&self, inputs: &[u64]) -> Result<(), String> {
        let p = &self.p;
        if inputs[p.reset] & 1 == 0 && inputs[p.fill] & 1 == 1 && self.gen.occ == 0 {
            return Err("port fill: no valid MSHR entry to free".into());
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        format!("occ={} pl={}", self.gen.occ, self.gen.pl)
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        self.gen.events()
    }
}
