//! Constrained-random stimulus of `dtm-mtt`: it plays the trace buffers (upserts) and the
//! operand collector (lookups, then the candidates' register values). A small register file
//! (a few rids, GPRs and predicates, values from a small domain) supplies both the upserted
//! input contexts and the lookup answers, so value tests hit and miss often; PCs come from a
//! small pool whose members collide in one set, with several lengths per PC (nested
//! prefixes, A11). Phases vary the lookup/upsert mix, the value domain and how often an
//! answer is the register's value; kernel retires, flushes and resets are rare; inputs that
//! are not valid carry random values.

use super::model::Ports;
use crate::rng::Rng;
use crate::Stimulus;
use warpforge_contract::units::dtm_mtt::{get, put, put_slot, MttConfig};

#[derive(Clone, Debug)]
pub struct DtmMttStimulus {
    rng: Rng,
    cfg: MttConfig,
    p: Ports,
    rids: Vec<u64>,
    regs: Vec<u64>,
    pcs: Vec<u64>,
    kids: u64,
    phase_left: u64,
    /// Per 64: a lookup, an upsert.
    p_lk: u64,
    p_up: u64,
    /// Per 16: an answer is the register's value.
    p_match: u64,
    /// Register values are below this.
    dom: u64,
}

impl DtmMttStimulus {
    pub fn new(cfg: &MttConfig, seed: u64) -> DtmMttStimulus {
        let mut s = DtmMttStimulus {
            rng: Rng::new(seed),
            p: Ports::new(cfg),
            rids: vec![],
            regs: vec![],
            pcs: vec![],
            kids: 1,
            phase_left: 0,
            p_lk: 24,
            p_up: 24,
            p_match: 14,
            dom: 4,
            cfg: cfg.clone(),
        };
        s.new_phase();
        s
    }

    fn vmask(&self) -> u64 {
        if self.cfg.val_bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.cfg.val_bits) - 1
        }
    }

    fn pmask(&self) -> u64 {
        (1u64 << self.cfg.pc_bits) - 1
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 200 + r.below(3000);
        (self.p_lk, self.p_up) = match r.below(4) {
            0 => (40, 20),
            1 => (20, 40),
            2 => (60, 4),
            _ => (30, 30),
        };
        self.p_match = [16, 15, 12, 8][r.below(4) as usize];
        self.dom = [2, 4, 16, 1 << 20][r.below(4) as usize];
        self.kids = 1 + r.below(3.min(1 << self.cfg.kid_bits));
        let n = 3 + r.below(6) as usize;
        self.rids = (0..n)
            .map(|_| {
                if r.chance(1, 5) {
                    256 + r.below(8)
                } else {
                    r.below(256)
                }
            })
            .collect();
        self.rids.sort();
        self.rids.dedup();
        // The rids' order changes as contexts are drawn; `reg` finds them by value.
        self.regs = (0..self.rids.len()).map(|_| 0).collect();
        for k in 0..self.regs.len() {
            self.regs[k] = self.rng.below(self.dom) & self.vmask();
        }
        // PCs: a base and members colliding in its set, plus a few elsewhere.
        let stride = (self.cfg.sets() as u64) << self.cfg.pc_shift;
        let base = self.rng.below(1 << 16) * 8;
        let m = 2 + self.rng.below(self.cfg.ways as u64 + 3);
        let mut pcs: Vec<u64> = (0..m).map(|j| (base + j * stride) & self.pmask()).collect();
        for _ in 0..self.rng.below(4) {
            pcs.push((self.rng.below(1 << 20) * 8) & self.pmask());
        }
        self.pcs = pcs;
    }

    fn reg(&self, rid: u64) -> Option<u64> {
        self.rids
            .iter()
            .position(|&x| x == rid)
            .map(|k| self.regs[k])
    }
}

/// `n` distinct rids (at most the pool's) with values, the rest of the 8 slots empty: the
/// register's value (`own_values`, mostly) or a random one in `dom` masked by `vm`. A function of the fields it uses, so the caller can hold other
/// fields borrowed.
fn random_ctx(
    rng: &mut Rng,
    rids: &mut [u64],
    regs: &mut [u64],
    (dom, vm): (u64, u64),
    n: usize,
    own_values: bool,
) -> [Option<(u64, u64)>; 8] {
    let mut out = [None; 8];
    let m = rids.len();
    for (k, slot) in out.iter_mut().enumerate().take(n.min(m)) {
        let j = k + rng.below((m - k) as u64) as usize;
        rids.swap(k, j);
        regs.swap(k, j);
        let rid = rids[k];
        let val = if own_values && rng.chance(7, 8) {
            regs[k]
        } else {
            rng.below(dom) & vm
        };
        *slot = Some((rid, val));
    }
    out
}

impl Stimulus for DtmMttStimulus {
    fn next(&mut self, cycle: u64, prev: &[u64], x: &mut [u64]) {
        x.iter_mut().for_each(|w| *w = 0);
        if cycle == 0 || self.rng.chance(1, 60_000) {
            x[self.p.reset] = 1;
            return;
        }
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let p = &self.p;
        let c = &self.cfg;
        let (ki, v, sb) = (c.k_in, c.val_bits, c.slot_bits());
        let vm = self.vmask();
        // Stage 3: answer the candidates shown last cycle.
        let cand_valid = prev[p.o_cand_valid];
        for ci in 0..c.cand {
            for k in 0..ki {
                let s = get(&prev[p.o_cand_ic..], (ci * ki + k) * 10, 10);
                let val =
                    if cand_valid >> ci & 1 == 1 && s & 1 == 1 && self.rng.chance(self.p_match, 16)
                    {
                        self.reg(s >> 1).unwrap_or(0)
                    } else {
                        self.rng.next_u64() & vm
                    };
                put(&mut x[p.cv_val..], (ci * ki + k) * v, v, val);
            }
        }
        // Don't-care request fields carry noise.
        x[p.lk_kid] = self.rng.below(1 << c.kid_bits);
        x[p.lk_pc] = self.rng.next_u64() & self.pmask();
        x[p.up_kid] = self.rng.below(1 << c.kid_bits);
        x[p.inv_kid] = self.rng.below(1 << c.kid_bits);
        let kid = self.rng.below(self.kids);
        let pc = self.pcs[self.rng.below(self.pcs.len() as u64) as usize];
        let roll = self.rng.below(64);
        if roll < self.p_lk {
            x[p.lk_valid] = 1;
            x[p.lk_kid] = kid;
            x[p.lk_pc] = pc;
        } else if roll < self.p_lk + self.p_up {
            let lens = [2, 3, 4, c.l_max as u64];
            let len = if self.rng.chance(3, 4) {
                lens[self.rng.below(4) as usize]
            } else {
                2 + self.rng.below(c.l_max as u64 - 1)
            };
            let nic = self.rng.below(ki as u64 + 1) as usize;
            let noc = 1 + self.rng.below(c.k_out as u64) as usize;
            let d = (self.dom, vm);
            let (rng, rids, regs) = (&mut self.rng, &mut self.rids, &mut self.regs);
            let ic = random_ctx(rng, rids, regs, d, nic, true);
            let oc = random_ctx(rng, rids, regs, d, noc, false);
            x[p.up_valid] = 1;
            x[p.up_kid] = kid;
            x[p.up_pc] = pc;
            x[p.up_npc] = (pc + 8 * len) & self.pmask();
            x[p.up_len] = len;
            for (k, s) in ic.iter().enumerate().take(ki) {
                put_slot(&mut x[p.up_ic..], k * sb, v, *s);
            }
            for (k, s) in oc.iter().enumerate().take(c.k_out) {
                put_slot(&mut x[p.up_oc..], k * sb, v, *s);
            }
        }
        if self.rng.chance(1, 500) {
            x[p.inv_valid] = 1;
            x[p.inv_kid] = self.rng.below(self.kids);
        }
        if self.rng.chance(1, 5000) {
            x[p.flush] = 1;
        }
        if self.rng.chance(1, 6) {
            let k = self.rng.below(self.regs.len() as u64) as usize;
            self.regs[k] = self.rng.below(self.dom) & vm;
        }
    }
}
