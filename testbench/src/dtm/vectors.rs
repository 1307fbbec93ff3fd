//! Spec vectors of the `dtm` top (spec/dtm.md §4.5, S5, S6, S10). A scripted requester runs
//! the spec's warp instructions through the protocol (operand-collector reads answered from
//! its register files, writeback of the executed lanes); its inputs are recorded cycle by
//! cycle, and the response of each instruction is checked against the spec's numbers.

use std::collections::HashMap;

use warpforge_contract::units::dtm_mtt::{put_slot, slot_bits};
use warpforge_contract::units::dtm_top::{self, DtmConfig};
use warpforge_contract::{Layout, Params};

use super::model::{DtmModel, Io};
use crate::{Model, SpecVector, VectorCycle};

/// One instruction of a scenario: its PC, sources (GPR indices), destination and function;
/// `None` for an ineligible one.
#[derive(Clone, Copy)]
struct Ins {
    pc: u64,
    srcs: &'static [u64],
    dst: u64,
    f: Option<fn(&[u64; 3]) -> u64>,
    /// Guard predicate rid (0x100 | p): a source too (A16).
    guard: Option<u64>,
}

struct Script {
    sets: Vec<String>,
    cfg: DtmConfig,
    lay: Layout,
    model: DtmModel,
    i: Io,
    o: Io,
    regs: Vec<HashMap<u64, u64>>,
    inputs: Vec<Vec<u64>>,
    expect: HashMap<usize, Vec<(&'static str, Vec<u64>)>>,
    kid: u64,
}

impl Script {
    fn new(sets: &[&str]) -> Script {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(dtm_top::NAME, dtm_top::PARAMS, None, &sets).unwrap();
        let cfg = DtmConfig::from_params(&p).unwrap();
        let lay = Layout::new(&cfg.ports());
        let mut s = Script {
            model: DtmModel::new(&cfg),
            i: Io::new(&lay, true),
            o: Io::new(&lay, false),
            regs: vec![HashMap::new(); cfg.threads()],
            inputs: vec![],
            expect: HashMap::new(),
            kid: 0,
            sets,
            cfg,
            lay,
        };
        for _ in 0..2 {
            s.i.set("reset", 0, 1, 1);
            s.tick();
        }
        while s.o.get("rq_ready", 0, 1) == 0 {
            s.tick();
        }
        s
    }

    fn tick(&mut self) {
        let mut out = vec![0; self.lay.out_words];
        self.model.step(&self.i.w, &mut out);
        self.inputs.push(self.i.w.clone());
        self.o.w = out;
        self.i.clear();
    }

    /// Run one warp instruction; returns the cycle of its response.
    fn run(&mut self, warp: usize, act: u64, ins: Ins) -> usize {
        let c = self.cfg.clone();
        let (n, v) = (c.simd, c.val_bits());
        let t0 = warp * n;
        let i = &mut self.i;
        i.set("rq_valid", 0, 1, 1);
        i.set("rq_warp", 0, c.warp_bits(), warp as u64);
        i.set("rq_pc", 0, c.mtg.pc_bits, ins.pc);
        i.set("rq_act", 0, n, act);
        i.set("rq_kid", 0, c.mtg.kid_bits, self.kid);
        let mut guard = 0u64;
        for l in 0..n {
            let g = ins
                .guard
                .map_or(1, |p| *self.regs[t0 + l].get(&p).unwrap_or(&0));
            guard |= (g & 1) << l;
        }
        let i = &mut self.i;
        i.set("rq_guard", 0, n, guard);
        i.set("rq_elig", 0, 1, ins.f.is_some() as u64);
        let mut svs = vec![[0u64; 3]; n];
        for (l, sv) in svs.iter_mut().enumerate() {
            for (k, r) in ins.srcs.iter().chain(ins.guard.iter()).enumerate() {
                sv[k] = *self.regs[t0 + l].get(r).unwrap_or(&0);
            }
            let i = &mut self.i;
            i.set("rq_sv1", l * v, v, sv[0]);
            i.set("rq_sv2", l * v, v, sv[1]);
            i.set("rq_sv3", l * v, v, sv[2]);
            i.set("rq_uid", l * 32, 32, 100 + (t0 + l) as u64);
        }
        let i = &mut self.i;
        let nsrc = ins.srcs.len() + ins.guard.is_some() as usize;
        i.set("rq_src_v", 0, 3, (1 << nsrc) - 1);
        for (k, r) in ins.srcs.iter().chain(ins.guard.iter()).enumerate() {
            i.set("rq_src_rid", 9 * k, 9, *r);
        }
        i.set("rq_dst", 0, 9, ins.dst);
        self.tick();
        loop {
            if self.o.get("rf_valid", 0, 1) == 1 {
                let l = self.o.get("rf_lane", 0, c.lane_bits()) as usize;
                for k in 0..c.mtt.cand * c.mtt.k_in {
                    if self.o.get("rf_rid", k * 10, 1) == 1 {
                        let rid = self.o.get("rf_rid", k * 10 + 1, 9);
                        let val = *self.regs[t0 + l].get(&rid).unwrap_or(&0);
                        self.i.set("rf_val", k * v, v, val);
                    }
                }
            }
            if self.o.get("rsp_valid", 0, 1) == 1 {
                let at = self.inputs.len() - 1;
                let (grp, hit, exec) = (
                    self.o.get("rsp_trace", 0, n),
                    self.o.get("rsp_hit", 0, n),
                    self.o.get("rsp_exec", 0, n),
                );
                let ob = c.oc_bits();
                for (l, sv) in svs.iter().enumerate() {
                    let t = t0 + l;
                    if grp >> l & 1 == 1 {
                        for k in 0..c.mtt.k_out {
                            let b = l * ob + k * c.slot_bits();
                            if self.o.get("rsp_oc", b, 1) == 1 {
                                let rid = self.o.get("rsp_oc", b + 1, 9);
                                let val = self.o.get("rsp_oc", b + 10, v);
                                self.regs[t].insert(rid, val);
                            }
                        }
                    }
                    let r = if hit >> l & 1 == 1 {
                        Some(self.o.get("rsp_res", l * v, v))
                    } else if exec >> l & 1 == 1 {
                        Some(ins.f.map_or(0, |f| f(sv)))
                    } else {
                        None
                    };
                    if let Some(r) = r {
                        self.i.set("wb_res", l * v, v, r);
                        self.regs[t].insert(ins.dst, r);
                    }
                }
                self.i.set("wb_valid", 0, 1, 1);
                self.tick();
                while self.o.get("rq_ready", 0, 1) == 0 {
                    self.tick();
                }
                return at;
            }
            self.tick();
        }
    }

    /// Kernel retire of `kid`, or a flush.
    fn retire(&mut self, kid: u64, all: bool) {
        self.i.set("ret_valid", 0, 1, 1);
        self.i.set("ret_all", 0, 1, all as u64);
        self.i.set("ret_kid", 0, self.cfg.mtg.kid_bits, kid);
        self.tick();
        self.tick();
        while self.o.get("rq_ready", 0, 1) == 0 {
            self.tick();
        }
    }

    fn expect(&mut self, at: usize, list: &[(&'static str, u64)]) {
        let e = self.expect.entry(at).or_default();
        for (p, v) in list {
            e.push((p, vec![*v]));
        }
    }

    fn vector(self, name: &str) -> SpecVector {
        let ports: Vec<(&'static str, usize, usize)> = self
            .lay
            .inputs
            .iter()
            .map(|s| {
                let n: &'static str = Box::leak(s.name.clone().into_boxed_str());
                (n, s.offset, s.words)
            })
            .collect();
        let mut expect = self.expect;
        let cycles = self
            .inputs
            .iter()
            .enumerate()
            .map(|(c, w)| VectorCycle {
                inputs: ports
                    .iter()
                    .filter(|(_, o, k)| w[*o..o + k].iter().any(|x| *x != 0))
                    .map(|(n, o, k)| (*n, w[*o..o + k].to_vec()))
                    .collect(),
                expect: expect.remove(&c).unwrap_or_default(),
            })
            .collect();
        SpecVector {
            name: name.into(),
            unit: dtm_top::NAME,
            sets: self.sets,
            cycles,
        }
    }
}

const TOY: &[&str] = &[
    "simd_width=4",
    "warps=2",
    "mtg_entries=16",
    "mtg_ways=16",
    "mtg_ports=1",
    "mtt_entries=16",
    "mtt_ways=4",
    "isz=8",
    "pc_shift=2",
];

fn lanes4(vals: [u64; 4], s: &mut Script, warp: usize, rid: u64) {
    for (l, v) in vals.iter().enumerate() {
        s.regs[warp * 4 + l].insert(rid, *v);
    }
}

const ADD: Ins = Ins {
    pc: 0x200,
    srcs: &[1, 2],
    dst: 3,
    f: Some(|s| s[0] + s[1]),
    guard: None,
};

/// §4.5(a) and S5: parallel lookups, upserts in lane order, the FU bypass; S10: a second
/// warp with equal operands gets INTER.
fn lane_order() -> SpecVector {
    let mut s = Script::new(TOY);
    lanes4([1, 1, 1, 9], &mut s, 0, 1);
    lanes4([2, 2, 2, 2], &mut s, 0, 2);
    lanes4([1, 1, 1, 9], &mut s, 1, 1);
    lanes4([2, 2, 2, 2], &mut s, 1, 2);
    let a = s.run(0, 0b1111, ADD);
    s.expect(
        a,
        &[("rsp_hit", 0), ("rsp_exec", 0b1111), ("rsp_bypass", 0)],
    );
    let b = s.run(0, 0b1111, ADD);
    // uid chain 100 -> 101 -> 102 for (1,2): lanes 0, 1 INTER, lane 2 INTRA; (9,2) 103.
    s.expect(
        b,
        &[
            ("rsp_hit", 0b1111),
            ("rsp_inter", 0b0011),
            ("rsp_exec", 0),
            ("rsp_bypass", 1),
        ],
    );
    let c = s.run(1, 0b1111, ADD);
    s.expect(
        c,
        &[
            ("rsp_hit", 0b1111),
            ("rsp_inter", 0b1111),
            ("rsp_bypass", 1),
        ],
    );
    let mut v = s.vector("dtm.md §4.5(a), S5, S10: lane order, parallel lookup, FU bypass");
    // rsp_res of the second execution: 3, 3, 3, 11 (the stored results).
    v.cycles[b]
        .expect
        .push(("rsp_res", vec![3 | 3 << 32, 3 | 11 << 32]));
    v
}

const BODY: [Ins; 6] = [
    Ins {
        pc: 0x100,
        srcs: &[1, 2],
        dst: 3,
        f: Some(|s| s[0] + s[1]),
        guard: None,
    },
    Ins {
        pc: 0x108,
        srcs: &[3],
        dst: 4,
        f: Some(|s| s[0] << 2),
        guard: None,
    },
    Ins {
        pc: 0x110,
        srcs: &[4, 6],
        dst: 5,
        f: Some(|s| s[0] & s[1]),
        guard: None,
    },
    Ins {
        pc: 0x118,
        srcs: &[5, 1],
        dst: 7,
        f: Some(|s| s[0] ^ s[1]),
        guard: None,
    },
    Ins {
        pc: 0x120,
        srcs: &[9],
        dst: 8,
        f: None,
        guard: None,
    },
    Ins {
        pc: 0x128,
        srcs: &[],
        dst: 0,
        f: None,
        guard: None,
    },
];

/// §4.5(b) and S6: lanes {0,1,3} hit X1, lane 2 runs alone until resume_pc.
fn partial(unanimous: bool) -> SpecVector {
    let mut sets = TOY.to_vec();
    if unanimous {
        sets.push("trace_policy=unanimous");
    }
    let mut s = Script::new(&sets);
    lanes4([5; 4], &mut s, 0, 1);
    lanes4([7; 4], &mut s, 0, 2);
    lanes4([255, 255, 15, 255], &mut s, 0, 6);
    // Two iterations: all NR, then INTRA runs; lane 3 commits X1 (4.3's T0.2).
    for _ in 0..2 {
        for ins in BODY {
            s.run(0, 0b1111, ins);
        }
    }
    let first = s.run(0, 0b1111, BODY[0]);
    if unanimous {
        // Partial hits ignored: every lane takes the MTG path (lane 3 INTRA).
        s.expect(
            first,
            &[
                ("rsp_trace", 0),
                ("rsp_skip", 0),
                ("rsp_hit", 0b1111),
                ("rsp_inter", 0b0111),
            ],
        );
    } else {
        s.expect(
            first,
            &[
                ("rsp_trace", 0b1011),
                ("rsp_full", 0),
                ("rsp_npc", 0x120),
                ("rsp_len", 4),
                ("rsp_skip", 0b1011),
                ("rsp_resume", 0x120),
                ("rsp_hit", 0b0100),
                ("rsp_exec", 0),
                ("rsp_bypass", 1),
            ],
        );
    }
    let mut at = vec![];
    for ins in &BODY[1..5] {
        at.push(s.run(0, 0b1111, *ins));
    }
    if !unanimous {
        // Lane 2 alone inside the skip region; at 0x120 the mask is cleared.
        for a in &at[..3] {
            s.expect(*a, &[("rsp_skip", 0b1011), ("rsp_trace", 0)]);
        }
        s.expect(at[3], &[("rsp_skip", 0), ("rsp_exec", 0b1111)]);
        // Lane 2 now owns the MTG entries of 0x100..0x118 (it alone upserted them): the
        // next iteration is INTRA for it and commits X2 (r6 = 15); then all four lanes hit,
        // X1 and X2 with the same npc: a full-warp hit, no skip region.
        s.run(0, 0b1111, BODY[5]);
        for ins in BODY {
            s.run(0, 0b1111, ins);
        }
        let full = s.run(0, 0b1111, BODY[0]);
        s.expect(
            full,
            &[
                ("rsp_trace", 0b1111),
                ("rsp_full", 1),
                ("rsp_npc", 0x120),
                ("rsp_len", 4),
                ("rsp_skip", 0),
                ("rsp_hit", 0),
                ("rsp_exec", 0),
                ("rsp_bypass", 1),
            ],
        );
    }
    let name = if unanimous {
        "dtm.md §4.5(b) unanimous: the partial hit is ignored"
    } else {
        "dtm.md §4.5(b), S6: partial trace hit, skip mask 1011, resume 0x120; with X2 a full hit"
    };
    let mut v = s.vector(name);
    if !unanimous {
        // X1's output context {r3=12, r4=48, r5=48, r7=53} on lanes 0, 1 and 3.
        let sl = slot_bits(32);
        let ob = 4 * sl;
        let mut oc = vec![0u64; (4 * ob).div_ceil(64)];
        for l in [0, 1, 3] {
            for (k, (r, val)) in [(3, 12), (4, 48), (5, 48), (7, 53)].iter().enumerate() {
                put_slot(&mut oc, l * ob + k * sl, 32, Some((*r, *val)));
            }
        }
        v.cycles[first].expect.push(("rsp_oc", oc));
    }
    v
}

/// S9: two kernels with equal PCs and values do not share entries; a retire removes only
/// its kernel's; a flush removes every entry.
fn kernels() -> SpecVector {
    let mut s = Script::new(TOY);
    lanes4([1, 1, 1, 9], &mut s, 0, 1);
    lanes4([2, 2, 2, 2], &mut s, 0, 2);
    s.kid = 1;
    s.run(0, 0b1111, ADD);
    let a = s.run(0, 0b1111, ADD);
    s.expect(a, &[("rsp_hit", 0b1111)]);
    s.kid = 2;
    let b = s.run(0, 0b1111, ADD);
    s.expect(b, &[("rsp_hit", 0), ("rsp_exec", 0b1111)]);
    s.retire(1, false);
    s.kid = 1;
    let c = s.run(0, 0b1111, ADD);
    s.expect(c, &[("rsp_hit", 0)]);
    s.kid = 2;
    let d = s.run(0, 0b1111, ADD);
    s.expect(d, &[("rsp_hit", 0b1111)]);
    s.retire(0, true);
    let e = s.run(0, 0b1111, ADD);
    s.expect(e, &[("rsp_hit", 0)]);
    s.vector("dtm.md S9, A18: kernels by kid, retire, flush")
}

/// S11 (guard) and S14 (an FP op is never memoized).
fn guard_and_fp() -> SpecVector {
    let mut s = Script::new(TOY);
    lanes4([1, 1, 1, 9], &mut s, 0, 1);
    lanes4([2, 2, 2, 2], &mut s, 0, 2);
    lanes4([1, 1, 0, 1], &mut s, 0, 0x100);
    let gadd = Ins {
        guard: Some(0x100),
        ..ADD
    };
    let a = s.run(0, 0b1111, gadd);
    s.expect(a, &[("rsp_hit", 0), ("rsp_exec", 0b1011)]);
    // Guard-false lane 2 is neither looked up, inserted nor executed: the key (1, 2, p0=1)
    // was upserted by lanes 0 then 1 (uid 101), so lane 0 is INTER, lane 1 INTRA; lane 3
    // INTRA on (9, 2, 1).
    let b = s.run(0, 0b1111, gadd);
    s.expect(
        b,
        &[
            ("rsp_hit", 0b1011),
            ("rsp_inter", 0b0001),
            ("rsp_exec", 0),
            ("rsp_bypass", 1),
        ],
    );
    let fadd = Ins {
        pc: 0x300,
        f: None,
        ..ADD
    };
    s.run(0, 0b1111, fadd);
    let c = s.run(0, 0b1111, fadd);
    s.expect(
        c,
        &[("rsp_hit", 0), ("rsp_exec", 0b1111), ("rsp_bypass", 0)],
    );
    s.vector("dtm.md S11, S14: a guard-false lane is not looked up; add.f32 is never reused")
}

pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        lane_order(),
        partial(false),
        partial(true),
        kernels(),
        guard_and_fp(),
    ]
}
