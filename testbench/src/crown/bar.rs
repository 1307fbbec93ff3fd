//! The barrier table as the top composes it: a thin adapter, so that the top's code names one
//! API for reserve / probe / drain and the table's state.

use warpforge_contract::units::crown::Warp;
use warpforge_contract::units::crown_barrier::BarrierConfig;

/// One entry (`valid` false = free).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BarEntry {
    pub valid: bool,
    pub complete: bool,
    pub pc: u64,
    pub expected: u64,
    pub arrived: u64,
    pub thi: Vec<u64>,
    /// Completion order (smaller = older); meaningful when complete.
    pub cseq: u64,
}

/// What one cycle did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BarOutcome {
    /// Probed lanes absorbed.
    pub hit: u64,
    pub new: u32,
    pub dedup: u32,
    pub fail: u32,
    pub drained: Option<Warp>,
}

/// The reconvergence-barrier table (§3.4.5, §3.6).
#[derive(Clone, Debug)]
pub struct Barriers {
    cfg: BarrierConfig,
    pub e: Vec<BarEntry>,
    next_seq: u64,
}

impl Barriers {
    pub fn new(cfg: &BarrierConfig) -> Barriers {
        Barriers {
            e: vec![
                BarEntry {
                    thi: vec![0; cfg.w()],
                    ..BarEntry::default()
                };
                cfg.entries()
            ],
            next_seq: 0,
            cfg: cfg.clone(),
        }
    }

    pub fn config(&self) -> &BarrierConfig {
        &self.cfg
    }

    /// The oldest complete entry (start of cycle).
    pub fn head(&self) -> Option<usize> {
        (0..self.e.len())
            .filter(|&i| self.e[i].valid && self.e[i].complete)
            .min_by_key(|&i| self.e[i].cseq)
    }

    pub fn head_warp(&self) -> Option<Warp> {
        self.head().map(|i| self.warp_of(i))
    }

    fn warp_of(&self, i: usize) -> Warp {
        let x = &self.e[i];
        Warp {
            pc: x.pc,
            lanes: x.expected,
            thi: x.thi.clone(),
        }
    }

    /// Valid incomplete entries.
    pub fn live(&self) -> usize {
        self.e.iter().filter(|x| x.valid && !x.complete).count()
    }

    /// Does a live entry expect (lane, thi) at `pc` and has it not arrived?
    pub fn waits_for(&self, pc: Option<u64>, lane: usize, thi: u64) -> bool {
        let set = self.cfg.set_of(thi);
        let ways = self.cfg.ways;
        self.e[set * ways..(set + 1) * ways].iter().any(|x| {
            x.valid
                && !x.complete
                && pc.is_none_or(|p| x.pc == p)
                && x.expected >> lane & 1 == 1
                && x.arrived >> lane & 1 == 0
                && x.thi[lane] == thi
        })
    }

    /// One cycle: reserve (`rsv.pc` = R), then the probe (lane l at `pcs[l]`) on the table as
    /// the reservation left it, completion, then the drain of the start-of-cycle head.
    pub fn cycle(
        &mut self,
        rsv: Option<&Warp>,
        prb: Option<(&Warp, &[u64])>,
        drain: bool,
    ) -> BarOutcome {
        let w = self.cfg.w();
        let ways = self.cfg.ways;
        let head = if drain { self.head() } else { None };
        let mut out = BarOutcome::default();
        if let Some(v) = rsv {
            let mut groups: Vec<usize> = (0..w)
                .filter(|&l| v.lanes >> l & 1 == 1)
                .map(|l| self.cfg.set_of(v.thi[l]))
                .collect();
            groups.sort_unstable();
            groups.dedup();
            for g in groups {
                let mut lanes = 0u64;
                for l in (0..w).filter(|&l| v.lanes >> l & 1 == 1) {
                    if self.cfg.set_of(v.thi[l]) != g {
                        continue;
                    }
                    let covered = self.e[g * ways..(g + 1) * ways].iter().any(|x| {
                        x.valid
                            && !x.complete
                            && x.pc == v.pc
                            && x.expected >> l & 1 == 1
                            && x.thi[l] == v.thi[l]
                    });
                    if covered {
                        out.dedup += 1;
                    } else {
                        lanes |= 1 << l;
                    }
                }
                if lanes == 0 {
                    continue;
                }
                let free =
                    (g * ways..(g + 1) * ways).find(|&i| !self.e[i].valid && Some(i) != head);
                match free {
                    Some(i) => {
                        self.e[i] = BarEntry {
                            valid: true,
                            complete: false,
                            pc: v.pc,
                            expected: lanes,
                            arrived: 0,
                            thi: (0..w)
                                .map(|l| if lanes >> l & 1 == 1 { v.thi[l] } else { 0 })
                                .collect(),
                            cseq: 0,
                        };
                        out.new += 1;
                    }
                    None => out.fail += 1,
                }
            }
        }
        if let Some((v, pcs)) = prb {
            let mut touched = vec![];
            for l in (0..w).filter(|&l| v.lanes >> l & 1 == 1) {
                let g = self.cfg.set_of(v.thi[l]);
                if let Some(i) = (g * ways..(g + 1) * ways).find(|&i| {
                    let x = &self.e[i];
                    x.valid
                        && !x.complete
                        && x.pc == pcs[l]
                        && x.expected >> l & 1 == 1
                        && x.arrived >> l & 1 == 0
                        && x.thi[l] == v.thi[l]
                }) {
                    self.e[i].arrived |= 1 << l;
                    out.hit |= 1 << l;
                    touched.push(i);
                }
            }
            touched.sort_unstable();
            touched.dedup();
            for i in touched {
                if self.e[i].arrived == self.e[i].expected {
                    self.e[i].complete = true;
                    self.e[i].cseq = self.next_seq;
                    self.next_seq += 1;
                }
            }
        }
        if let Some(h) = head {
            out.drained = Some(self.warp_of(h));
            self.e[h] = BarEntry {
                thi: vec![0; w],
                ..BarEntry::default()
            };
        }
        out
    }

    /// §7.1 item 4 on the table: arrived ⊆ expected, every thread in the entry's set, at most
    /// one live entry per (thread, PC), no thread index outside the lanes.
    pub fn check(&self) -> Result<(), String> {
        let w = self.cfg.w();
        let ways = self.cfg.ways;
        let mut seen: Vec<(u64, usize, u64)> = vec![];
        for (i, x) in self.e.iter().enumerate() {
            if !x.valid {
                continue;
            }
            if x.arrived & !x.expected != 0 {
                return Err(format!(
                    "barrier {i}: arrived {:#x} not within expected {:#x}",
                    x.arrived, x.expected
                ));
            }
            if x.complete != (x.arrived == x.expected) {
                return Err(format!(
                    "barrier {i}: complete {} with arrived {:#x} expected {:#x}",
                    x.complete, x.arrived, x.expected
                ));
            }
            for l in 0..w {
                if x.expected >> l & 1 == 0 {
                    if x.thi[l] != 0 {
                        return Err(format!(
                            "barrier {i}: thread index in lane {l} outside expected"
                        ));
                    }
                    continue;
                }
                if self.cfg.set_of(x.thi[l]) != i / ways {
                    return Err(format!(
                        "barrier {i}: lane {l} thread index {} outside set {}",
                        x.thi[l],
                        i / ways
                    ));
                }
                if !x.complete {
                    let k = (x.pc, l, x.thi[l]);
                    if seen.contains(&k) {
                        return Err(format!(
                            "two live barriers expect lane {l} thi {} at pc {}",
                            x.thi[l], x.pc
                        ));
                    }
                    seen.push(k);
                }
            }
        }
        Ok(())
    }
}
