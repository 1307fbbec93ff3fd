//! Constrained-random stimulus for the `dtm` top: a requester that runs small straight-line
//! programs on `warps` warps with a register file per thread, answers the operand
//! collector's extra reads (`rf_*`), applies reused results and traces, executes the other
//! lanes, writes back, and now and then retires the kernel. Values are drawn from a few
//! small numbers so that instructions repeat their operands (MTG hits, traces).

use warpforge_contract::units::dtm_top::DtmConfig;
use warpforge_contract::Layout;

use super::model::Io;
use crate::rng::Rng;
use crate::Stimulus;

/// General registers per thread in the programs (rids 0..GPRS); p0 is rid 0x100.
const GPRS: usize = 8;
const P0: u64 = 0x100;
const PROG: usize = 10;

#[derive(Clone, Debug)]
struct Ins {
    elig: bool,
    srcs: [usize; 2],
    nsrc: usize,
    guarded: bool,
    /// GPR index; `GPRS` means p0.
    dst: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// May present a request or a retire once `rq_ready` is seen after `since`.
    Ready { since: u64 },
    /// A request is in flight; waiting for its response.
    Wait,
}

pub struct DtmStimulus {
    cfg: DtmConfig,
    rng: Rng,
    i: Io,
    o: Io,
    prog: Vec<Ins>,
    kid: u64,
    pc: Vec<usize>,
    /// regs[thread][r], r = GPRS is p0.
    regs: Vec<Vec<u64>>,
    phase: Phase,
    warp: usize,
    /// The request in flight: per lane its three source values.
    sv: Vec<[u64; 3]>,
}

impl DtmStimulus {
    pub fn new(cfg: &DtmConfig, seed: u64) -> DtmStimulus {
        let lay = Layout::new(&cfg.ports());
        let mut s = DtmStimulus {
            cfg: cfg.clone(),
            rng: Rng::new(seed ^ 0xd7a1),
            i: Io::new(&lay, true),
            o: Io::new(&lay, false),
            prog: vec![],
            kid: 1,
            pc: vec![0; cfg.warps],
            regs: vec![vec![0; GPRS + 1]; cfg.threads()],
            phase: Phase::Ready { since: 0 },
            warp: 0,
            sv: vec![[0; 3]; cfg.simd],
        };
        s.new_kernel();
        s
    }

    fn new_kernel(&mut self) {
        let r = &mut self.rng;
        // A pure program reads r0..r3 and writes r4..r7 only: every loop repeats its values
        // (INTRA runs, traces); otherwise values drift (INTER, NR).
        let pure = r.chance(1, 2);
        let half = GPRS as u64 / 2;
        self.prog = (0..PROG)
            .map(|k| {
                // The last instruction stands for the loop branch: ineligible (A5).
                let elig = k + 1 < PROG && !r.chance(1, 6);
                let mut src = || {
                    (if pure {
                        r.below(half)
                    } else {
                        r.below(GPRS as u64)
                    }) as usize
                };
                let srcs = [src(), src()];
                Ins {
                    elig,
                    srcs,
                    nsrc: 1 + r.below(2) as usize,
                    guarded: r.chance(1, 5),
                    dst: if !elig && !pure && r.chance(1, 2) {
                        GPRS
                    } else if pure {
                        (half + r.below(half)) as usize
                    } else {
                        r.below(GPRS as u64) as usize
                    },
                }
            })
            .collect();
        self.pc.iter_mut().for_each(|p| *p = 0);
        let vals = 1 + self.rng.below(4);
        for t in 0..self.regs.len() {
            for r in 0..GPRS {
                self.regs[t][r] = self.rng.below(vals);
            }
            self.regs[t][GPRS] = self.rng.chance(3, 4) as u64;
        }
    }

    fn val_mask(&self) -> u64 {
        let v = self.cfg.val_bits();
        if v >= 64 {
            u64::MAX
        } else {
            (1 << v) - 1
        }
    }

    /// The eligible instruction's function: a fixed function of its PC and operands.
    fn exec(&self, pc: usize, sv: &[u64; 3]) -> u64 {
        ((sv[0].wrapping_mul(3) ^ sv[1].wrapping_add(pc as u64)) % 5) & self.val_mask()
    }

    fn rid_val(&self, t: usize, rid: u64) -> u64 {
        if rid & P0 != 0 {
            self.regs[t][GPRS]
        } else {
            self.regs[t][rid as usize % GPRS]
        }
    }

    fn isz(&self) -> u64 {
        self.cfg.tb.isz as u64
    }

    fn present(&mut self, cycle: u64) {
        let c = self.cfg.clone();
        let (n, v) = (c.simd, c.val_bits());
        if self.rng.chance(1, 150) {
            self.i.set("ret_valid", 0, 1, 1);
            let all = self.rng.chance(1, 3);
            self.i.set("ret_all", 0, 1, all as u64);
            self.i.set("ret_kid", 0, c.mtg.kid_bits, self.kid);
            self.kid = (self.kid + 1) % 3;
            self.new_kernel();
            self.phase = Phase::Ready { since: cycle };
            return;
        }
        let w = self.rng.below(c.warps as u64) as usize;
        self.warp = w;
        let pc = self.pc[w];
        let ins = self.prog[pc].clone();
        // Mostly full warps; divergent masks; single lanes (whole-warp trace hits).
        let act = match self.rng.below(4) {
            0 | 1 => (1u64 << n) - 1,
            2 => self.rng.mask(n, 2, 3),
            _ => 1 << (w % n),
        };
        let i = &mut self.i;
        i.set("rq_valid", 0, 1, 1);
        i.set("rq_warp", 0, c.warp_bits(), w as u64);
        i.set("rq_kid", 0, c.mtg.kid_bits, self.kid);
        i.set("rq_pc", 0, c.mtg.pc_bits, pc as u64 * c.tb.isz as u64);
        i.set("rq_act", 0, n, act);
        i.set("rq_elig", 0, 1, ins.elig as u64);
        let mut guard = 0;
        for l in 0..n {
            let t = w * n + l;
            let regs = &self.regs[t];
            let g = !ins.guarded || regs[GPRS] == 1;
            guard |= (g as u64) << l;
            let mut sv = [0u64; 3];
            for k in 0..ins.nsrc {
                sv[k] = regs[ins.srcs[k]];
            }
            if ins.guarded {
                sv[2] = regs[GPRS];
            }
            self.sv[l] = sv;
            let i = &mut self.i;
            i.set("rq_sv1", l * v, v, sv[0]);
            i.set("rq_sv2", l * v, v, sv[1]);
            i.set("rq_sv3", l * v, v, sv[2]);
            i.set("rq_uid", l * c.mtg.uid_bits, c.mtg.uid_bits, t as u64);
        }
        let i = &mut self.i;
        i.set("rq_guard", 0, n, guard);
        let (mut sv_mask, mut rids) = (0u64, 0u64);
        for k in 0..ins.nsrc {
            sv_mask |= 1 << k;
            rids |= (ins.srcs[k] as u64) << (9 * k);
        }
        if ins.guarded {
            sv_mask |= 4;
            rids |= P0 << 18;
        }
        i.set("rq_src_v", 0, 3, sv_mask);
        i.set("rq_src_rid", 0, 27, rids);
        let dst = if ins.dst == GPRS { P0 } else { ins.dst as u64 };
        i.set("rq_dst", 0, 9, dst);
        self.phase = Phase::Wait;
    }

    /// The response: apply traces and reused results, execute the rest, write back.
    fn respond(&mut self, cycle: u64) {
        let c = self.cfg.clone();
        let (n, v) = (c.simd, c.val_bits());
        let w = self.warp;
        let pc = self.pc[w];
        let ins = self.prog[pc].clone();
        let o = &self.o;
        let (grp, hit, exec) = (
            o.get("rsp_trace", 0, n),
            o.get("rsp_hit", 0, n),
            o.get("rsp_exec", 0, n),
        );
        let full = o.get("rsp_full", 0, 1) == 1;
        let npc = o.get("rsp_npc", 0, c.mtg.pc_bits);
        let (ob, sl) = (c.oc_bits(), c.slot_bits());
        for l in 0..n {
            let t = w * n + l;
            if grp >> l & 1 == 1 {
                for k in 0..c.mtt.k_out {
                    let at = l * ob + k * sl;
                    if self.o.get("rsp_oc", at, 1) == 1 {
                        let rid = self.o.get("rsp_oc", at + 1, 9);
                        let val = self.o.get("rsp_oc", at + 10, v);
                        let r = if rid & P0 != 0 {
                            GPRS
                        } else {
                            rid as usize % GPRS
                        };
                        self.regs[t][r] = val;
                    }
                }
            }
            let res = if hit >> l & 1 == 1 {
                Some(self.o.get("rsp_res", l * v, v))
            } else if exec >> l & 1 == 1 {
                Some(if ins.elig {
                    self.exec(pc * c.tb.isz, &self.sv[l])
                } else {
                    self.rng.below(if ins.dst == GPRS { 2 } else { 4 })
                })
            } else {
                None
            };
            if let Some(r) = res {
                self.i.set("wb_res", l * v, v, r);
                self.regs[t][ins.dst] = r;
            }
        }
        self.i.set("wb_valid", 0, 1, 1);
        let len = PROG as u64;
        let next = if full {
            npc / self.isz()
        } else {
            pc as u64 + 1
        };
        self.pc[w] = (next % len) as usize;
        self.phase = Phase::Ready { since: cycle };
    }
}

impl Stimulus for DtmStimulus {
    fn next(&mut self, cycle: u64, prev: &[u64], inputs: &mut [u64]) {
        self.o.w.copy_from_slice(prev);
        self.i.clear();
        let c = self.cfg.clone();
        if cycle < 2 {
            self.i.set("reset", 0, 1, 1);
            self.phase = Phase::Ready { since: cycle };
        } else {
            // The operand collector: the candidates' input registers of the lane shown.
            if self.o.get("rf_valid", 0, 1) == 1 {
                let l = self.o.get("rf_lane", 0, c.lane_bits()) as usize;
                let t = self.warp * c.simd + l;
                let (ki, v) = (c.mtt.k_in, c.val_bits());
                for k in 0..c.mtt.cand * ki {
                    if self.o.get("rf_rid", k * 10, 1) == 1 {
                        let rid = self.o.get("rf_rid", k * 10 + 1, 9);
                        let val = self.rid_val(t, rid);
                        self.i.set("rf_val", k * v, v, val);
                    }
                }
            }
            match self.phase {
                Phase::Wait => {
                    if self.o.get("rsp_valid", 0, 1) == 1 {
                        self.respond(cycle);
                    }
                }
                Phase::Ready { since } => {
                    if cycle > since + 1 && self.o.get("rq_ready", 0, 1) == 1 {
                        self.present(cycle);
                    }
                }
            }
        }
        inputs.copy_from_slice(&self.i.w);
    }
}
