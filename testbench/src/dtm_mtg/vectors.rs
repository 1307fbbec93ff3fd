//! Spec vectors of `dtm-mtg` at the ports: spec/dtm.md §4.1 (Table 2, cases 1–6), the MTG
//! side of §4.3 (entries G1–G6, their uids, the INTER/INTRA hits) and of §4.5(a) (lane order
//! and parallel lookup), S8 (fully associative LRU), S9 (kernels do not share entries; retire
//! and flush), and the A14 pass rule. Expected hits, ways, uids and pass timing are written
//! by hand from the contract; only the set numbers are computed, with the contract's H.
//!
//! A request's response shows one cycle after its pass (the RAM read); a reset is followed by
//! a flush of sets/ports cycles (`busy`).

use crate::words;
use crate::{SpecVector, VectorCycle};
use warpforge_contract::units::dtm::set_of;
use warpforge_contract::units::dtm_mtg::{MtgConfig, NAME, PARAMS};
use warpforge_contract::Params;

/// One lane of a request: (lane, sv1, sv2, sv3, res, uid).
type Lane = (usize, u64, u64, u64, u64, u64);
/// One lane of a response: (lane, hit, way, evict, res, uid) — the set is computed from the
/// request's key.
type Out = (usize, bool, usize, bool, u64, u64);

struct Vb {
    v: SpecVector,
    cfg: MtgConfig,
}

type Ports = Vec<(&'static str, Vec<u64>)>;

impl Vb {
    fn new(name: &str, sets: &[&str]) -> Vb {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets).expect("vector parameters");
        Vb {
            cfg: MtgConfig::from_params(&p).expect("vector configuration"),
            v: SpecVector {
                name: name.into(),
                unit: NAME,
                sets,
                cycles: vec![],
            },
        }
    }

    fn field(&self, width: usize, vals: &[(usize, u64)]) -> Vec<u64> {
        let mut w = vec![0u64; (width * self.cfg.simd).div_ceil(64)];
        for &(l, x) in vals {
            words::set(&mut w, l * width, width, x);
        }
        w
    }

    /// Inputs of a request of `op` (true: upsert).
    fn req(&self, upsert: bool, kid: u64, pc: u64, lanes: &[Lane]) -> Ports {
        let (v, u) = (self.cfg.val_bits, self.cfg.uid_bits);
        let m: u64 = lanes.iter().map(|l| 1u64 << l.0).sum();
        let f = |g: fn(&Lane) -> u64, width| {
            self.field(
                width,
                &lanes.iter().map(|l| (l.0, g(l))).collect::<Vec<_>>(),
            )
        };
        vec![
            ("req_valid", vec![1]),
            ("req_op", vec![upsert as u64]),
            ("req_mask", vec![m]),
            ("req_kid", vec![kid]),
            ("req_pc", vec![pc]),
            ("req_sv1", f(|l| l.1, v)),
            ("req_sv2", f(|l| l.2, v)),
            ("req_sv3", f(|l| l.3, v)),
            ("req_res", f(|l| l.4, v)),
            ("req_uid", f(|l| l.5, u)),
        ]
    }

    /// Expected response of a pass of `op` over the lanes of `outs` of the request `lanes`.
    fn rsp(&self, upsert: bool, kid: u64, pc: u64, lanes: &[Lane], outs: &[Out]) -> Ports {
        let c = &self.cfg;
        let key = |l: usize| {
            let x = lanes
                .iter()
                .find(|x| x.0 == l)
                .expect("lane of the request");
            set_of(c.sets(), kid, pc, [x.1, x.2, x.3]) as u64
        };
        let m: u64 = outs.iter().map(|o| 1u64 << o.0).sum();
        let g = |width, f: &dyn Fn(&Out) -> u64| {
            self.field(width, &outs.iter().map(|o| (o.0, f(o))).collect::<Vec<_>>())
        };
        vec![
            ("rsp_valid", vec![1]),
            ("rsp_op", vec![upsert as u64]),
            ("rsp_lanes", vec![m]),
            ("rsp_set", g(c.set_bits(), &|o| key(o.0))),
            ("rsp_hit", g(1, &|o| o.1 as u64)),
            ("rsp_way", g(c.way_bits(), &|o| o.2 as u64)),
            ("rsp_evict", g(1, &|o| o.3 as u64)),
            ("rsp_res", g(c.val_bits, &|o| o.4)),
            ("rsp_uid", g(c.uid_bits, &|o| o.5)),
        ]
    }

    fn cycle(mut self, inputs: Ports, expect: Ports) -> Vb {
        self.v.cycles.push(VectorCycle { inputs, expect });
        self
    }

    /// Reset, then the flush: `busy` for sets/ports cycles, not ready.
    fn reset(mut self) -> Vb {
        self = self.cycle(vec![("reset", vec![1])], vec![]);
        for _ in 0..self.cfg.bank_rows() {
            self = self.cycle(vec![], vec![("busy", vec![1]), ("rsp_valid", vec![0])]);
        }
        self
    }

    fn done(self) -> SpecVector {
        self.v
    }
}

fn none() -> Ports {
    vec![("rsp_valid", vec![0]), ("rsp_lanes", vec![0])]
}

fn with(mut a: Ports, b: Ports) -> Ports {
    a.extend(b);
    a
}

fn ready(r: bool) -> Ports {
    vec![("req_ready", vec![r as u64]), ("busy", vec![0])]
}

/// A one-lane operation followed by its response: `ops` are (upsert, kid, pc, lane, out).
fn serial(mut vb: Vb, ops: &[(bool, u64, u64, Lane, Out)]) -> Vb {
    let mut prev: Option<Ports> = None;
    for &(up, kid, pc, lane, out) in ops {
        let expect = with(ready(true), prev.take().unwrap_or_else(none));
        let inp = vb.req(up, kid, pc, &[lane]);
        prev = Some(vb.rsp(up, kid, pc, &[lane], &[out]));
        vb = vb.cycle(inp, expect);
    }
    if let Some(p) = prev {
        vb = vb.cycle(vec![], p);
    }
    vb.cycle(vec![], none())
}

const L: bool = false; // lookup
const U: bool = true; // upsert

/// §4.1 (Table 2): G = {0x40, (3,4,0), 7, uid 5}. The unit sees only eligible
/// instructions, as a lookup at operand read and an upsert at writeback.
fn table_2() -> SpecVector {
    let vb = Vb::new(
        "dtm §4.1 Table 2 cases 1-6 (MTG: NR insert, operands differ, INTER, INTRA, A2)",
        &["entries=64", "ways=4", "ports=2", "simd_width=4"],
    )
    .reset();
    // Sets (16): (0x40,3,4) and (0x40,3,5) share set 3; (0x50,3,4) is set 7.
    let g = (0, 3, 4, 0, 7, 5);
    let vb = serial(vb, &[(U, 0, 0x40, g, (0, false, 0, false, 0, 0))]);
    // Case 1: `ld` at 0x48 is not eligible: no request; nothing changes.
    let vb = vb.cycle(vec![], with(ready(true), none()));
    serial(
        vb,
        &[
            // Case 2: 0x50 (3,4): lookup misses (NR), the upsert inserts.
            (L, 0, 0x50, (0, 3, 4, 0, 0, 5), (0, false, 0, false, 0, 0)),
            (U, 0, 0x50, (0, 3, 4, 0, 7, 5), (0, false, 0, false, 0, 0)),
            // Case 3: 0x40 (3,5): NR, inserted beside G (way 1 of set 3); G kept.
            (L, 0, 0x40, (0, 3, 5, 0, 0, 5), (0, false, 0, false, 0, 0)),
            (U, 0, 0x40, (0, 3, 5, 0, 8, 5), (0, false, 1, false, 0, 0)),
            // Case 4: uid 6 hits G, whose uid is 5: INTER, r3 = 7; the upsert sets uid 6.
            (L, 0, 0x40, (0, 3, 4, 0, 0, 6), (0, true, 0, false, 7, 5)),
            (U, 0, 0x40, (0, 3, 4, 0, 7, 6), (0, true, 0, false, 7, 5)),
            // Case 6: then uid 5: INTER (A2: the entry holds uid 6); uid back to 5.
            (L, 0, 0x40, (0, 3, 4, 0, 0, 5), (0, true, 0, false, 7, 6)),
            (U, 0, 0x40, (0, 3, 4, 0, 7, 5), (0, true, 0, false, 7, 6)),
            // Case 5 (G as at the start, uid 5): INTRA, r3 = 7; refresh keeps uid 5.
            (L, 0, 0x40, (0, 3, 4, 0, 0, 5), (0, true, 0, false, 7, 5)),
            (U, 0, 0x40, (0, 3, 4, 0, 7, 5), (0, true, 0, false, 7, 5)),
            // The other entries are there, each once.
            (L, 0, 0x50, (0, 3, 4, 0, 0, 5), (0, true, 0, false, 7, 5)),
            (L, 0, 0x40, (0, 3, 5, 0, 0, 5), (0, true, 1, false, 8, 5)),
        ],
    )
    .done()
}

/// The MTG side of §4.3 (default configuration): T0 (uid 0) and T1 (uid 1) run the loop
/// body; T0.3 is a trace hit and never reaches the MTG. Sets (128): G1 69, G2 78, G3 116,
/// G4 118, G5 116 (beside G3: way 1), G6 70.
fn example_4_3() -> SpecVector {
    let vb = Vb::new("dtm §4.3 MTG entries G1-G6, uids, INTER/INTRA", &[]).reset();
    let (g1, g2, g3, g4) = (
        (0x100, 5, 7, 12),
        (0x108, 12, 0, 48),
        (0x110, 48, 255, 48),
        (0x118, 48, 5, 53),
    );
    let (g5, g6) = ((0x110, 48, 15, 0), (0x118, 0, 5, 5));
    let lane = |g: (u64, u64, u64, u64), uid| (0, g.1, g.2, 0, g.3, uid);
    let miss = (0, false, 0, false, 0, 0);
    let hit = |res, uid| (0, true, 0, false, res, uid);
    let mut ops = vec![];
    // Steps 1-4, T0.1: NR, G1-G4 inserted with uid 0.
    for g in [g1, g2, g3, g4] {
        ops.push((L, 0, g.0, lane(g, 0), miss));
        ops.push((U, 0, g.0, lane(g, 0), miss));
    }
    // Steps 7-10, T0.2: INTRA (uid 0 found).
    for g in [g1, g2, g3, g4] {
        ops.push((L, 0, g.0, lane(g, 0), hit(g.3, 0)));
        ops.push((U, 0, g.0, lane(g, 0), hit(g.3, 0)));
    }
    // Steps 13-16, T1.1: INTER on G1, G2 (uid 0 found, uid 1 stored); G5, G6 inserted.
    for g in [g1, g2] {
        ops.push((L, 0, g.0, lane(g, 1), hit(g.3, 0)));
        ops.push((U, 0, g.0, lane(g, 1), hit(g.3, 0)));
    }
    ops.push((L, 0, g5.0, lane(g5, 1), miss));
    ops.push((U, 0, g5.0, lane(g5, 1), (0, false, 1, false, 0, 0)));
    ops.push((L, 0, g6.0, lane(g6, 1), miss));
    ops.push((U, 0, g6.0, lane(g6, 1), miss));
    // Steps 22-25, T1.2: INTRA ×4 (uid 1 found everywhere).
    for (g, way) in [(g1, 0), (g2, 0), (g5, 1), (g6, 0)] {
        ops.push((L, 0, g.0, lane(g, 1), (0, true, way, false, g.3, 1)));
        ops.push((U, 0, g.0, lane(g, 1), (0, true, way, false, g.3, 1)));
    }
    // Final uids: G1=1, G2=1, G3=0, G4=0, G5=1, G6=1 (looked up by a third thread).
    for (g, way, uid) in [
        (g1, 0, 1),
        (g2, 0, 1),
        (g3, 0, 0),
        (g4, 0, 0),
        (g5, 1, 1),
        (g6, 0, 1),
    ] {
        ops.push((L, 0, g.0, lane(g, 9), (0, true, way, false, g.3, uid)));
    }
    serial(vb, &ops).done()
}

/// §4.5(a) on a 4-lane warp, uids 100..103: r1 = [1,1,1,9], r2 = 2, `add` at 0x200. Lanes
/// 0-2 share a key (set 1) and lane 3's key is set 9: all four are bank 1 of 4, so each
/// request takes four passes (A14), in lane order.
fn example_4_5a() -> SpecVector {
    let mut vb = Vb::new(
        "dtm §4.5(a) lane order, parallel lookup, bank passes (A14)",
        &["entries=64", "ways=4", "ports=4", "simd_width=4"],
    )
    .reset();
    let pc = 0x200;
    let lanes: Vec<Lane> = (0..4)
        .map(|l| {
            let r1 = if l == 3 { 9 } else { 1 };
            (l, r1, 2, 0, r1 + 2, 100 + l as u64)
        })
        .collect();
    let run = |mut vb: Vb, upsert: bool, outs: [Out; 4], prev: Ports| -> (Vb, Ports) {
        let inp = vb.req(upsert, 0, pc, &lanes);
        let mut prev = prev;
        for (k, out) in outs.iter().enumerate() {
            let expect = with(ready(k == 3), prev);
            let served: u64 = (1u64 << k) - 1;
            let expect = with(expect, vec![("dbg_served", vec![served])]);
            prev = vb.rsp(upsert, 0, pc, &lanes, &[*out]);
            vb = vb.cycle(inp.clone(), expect);
        }
        (vb, prev)
    };
    let miss = |l| (l, false, 0, false, 0, 0);
    // First execution: the lookups all miss (the upserts come later, at writeback).
    let (v, p) = run(vb, L, [miss(0), miss(1), miss(2), miss(3)], none());
    // Writeback in lane order: lane 0 inserts, lanes 1 and 2 refresh (uid 100 → 101 →
    // 102), lane 3 inserts into its own set.
    let (v, p) = run(
        v,
        U,
        [
            (0, false, 0, false, 0, 0),
            (1, true, 0, false, 3, 100),
            (2, true, 0, false, 3, 101),
            (3, false, 0, false, 0, 0),
        ],
        p,
    );
    // Second execution: lanes 0 and 1 INTER (uid 102 found), lanes 2 and 3 INTRA.
    let (v, p) = run(
        v,
        L,
        [
            (0, true, 0, false, 3, 102),
            (1, true, 0, false, 3, 102),
            (2, true, 0, false, 3, 102),
            (3, true, 0, false, 11, 103),
        ],
        p,
    );
    let (v, p) = run(
        v,
        U,
        [
            (0, true, 0, false, 3, 102),
            (1, true, 0, false, 3, 100),
            (2, true, 0, false, 3, 101),
            (3, true, 0, false, 11, 103),
        ],
        p,
    );
    vb = v.cycle(vec![], p);
    vb.cycle(vec![], none()).done()
}

/// A14: lanes in different banks are one pass; a bank conflict ends the pass and the rest
/// follow the next cycle, still in lane order. pc 0x300, sv1 = a: set a, bank a mod 4.
fn passes() -> SpecVector {
    let vb = Vb::new(
        "dtm A14 passes: distinct banks in one cycle, a conflict splits the request",
        &["entries=64", "ways=4", "ports=4", "simd_width=4"],
    )
    .reset();
    let pc = 0x300;
    let one: Vec<Lane> = vec![
        (0, 0, 0, 0, 10, 1),
        (1, 1, 0, 0, 11, 1),
        (2, 2, 0, 0, 12, 1),
        (3, 3, 0, 0, 13, 1),
    ];
    // Banks 0, 1, 0, 2: the pass is lanes {0, 1}, then {2, 3}.
    let two: Vec<Lane> = vec![
        (0, 4, 0, 0, 14, 2),
        (1, 5, 0, 0, 15, 2),
        (2, 0, 0, 0, 10, 2),
        (3, 6, 0, 0, 16, 2),
    ];
    let ins = |l| (l, false, 0, false, 0, 0);
    let (q1, q2) = (vb.req(U, 0, pc, &one), vb.req(U, 0, pc, &two));
    let vb = vb.cycle(q1, with(ready(true), none()));
    let r1 = vb.rsp(U, 0, pc, &one, &[ins(0), ins(1), ins(2), ins(3)]);
    let vb = vb.cycle(
        q2.clone(),
        with(with(ready(false), r1), vec![("dbg_served", vec![0])]),
    );
    let r2 = vb.rsp(U, 0, pc, &two, &[ins(0), ins(1)]);
    let vb = vb.cycle(
        q2,
        with(with(ready(true), r2), vec![("dbg_served", vec![0b0011])]),
    );
    // Lane 2's key (sv1 = 0) is the first request's lane 0 entry: refreshed, uid 1 → 2.
    let r3 = vb.rsp(
        U,
        0,
        pc,
        &two,
        &[(2, true, 0, false, 10, 1), (3, false, 0, false, 0, 0)],
    );
    let vb = vb.cycle(vec![], with(r3, vec![("dbg_served", vec![0])]));
    vb.cycle(vec![], none()).done()
}

/// S8: 16 entries, 16 ways (fully associative). 17 distinct keys evict the first; touching
/// the 2nd before an 18th key makes the 3rd the victim.
fn s8_lru() -> SpecVector {
    let vb = Vb::new(
        "dtm S8 fully associative LRU: 17th key evicts the 1st, a touch saves the 2nd",
        &["entries=16", "ways=16", "ports=1", "simd_width=1"],
    )
    .reset();
    let k = |i: u64| (0, i, 0, 0, 100 + i, 7);
    let mut ops = vec![];
    for i in 1..=16 {
        ops.push((U, 0, 0x80, k(i), (0, false, i as usize - 1, false, 0, 0)));
    }
    ops.push((U, 0, 0x80, k(17), (0, false, 0, true, 0, 0)));
    ops.push((L, 0, 0x80, k(1), (0, false, 0, false, 0, 0)));
    ops.push((L, 0, 0x80, k(2), (0, true, 1, false, 102, 7)));
    ops.push((U, 0, 0x80, k(18), (0, false, 2, true, 0, 0)));
    ops.push((L, 0, 0x80, k(3), (0, false, 0, false, 0, 0)));
    ops.push((L, 0, 0x80, k(2), (0, true, 1, false, 102, 7)));
    ops.push((L, 0, 0x80, k(17), (0, true, 0, false, 117, 7)));
    serial(vb, &ops).done()
}

/// S9 / A18 / I11: kernels 1 and 2 with identical PC and values keep separate entries;
/// retiring kernel 1 (a sweep, `busy` for sets/ports cycles) leaves kernel 2's entry; a
/// flush leaves nothing.
fn s9_kernels() -> SpecVector {
    let cfg = &["entries=64", "ways=4", "ports=2", "simd_width=4"];
    let vb = Vb::new(
        "dtm S9 kernel isolation, retire sweep and flush (A18, I11)",
        cfg,
    )
    .reset();
    let x = (1, 3, 4, 0, 7, 5);
    let miss = (1, false, 0, false, 0, 0);
    let vb = serial(
        vb,
        &[
            (U, 1, 0x40, x, miss),
            (L, 2, 0x40, x, miss),
            (U, 2, 0x40, x, miss),
            (L, 1, 0x40, x, (1, true, 0, false, 7, 5)),
            (L, 2, 0x40, x, (1, true, 0, false, 7, 5)),
        ],
    );
    let rows = vb.cfg.bank_rows();
    let sweep = |mut vb: Vb, all: bool, kid: u64| {
        vb = vb.cycle(
            vec![
                ("inv_valid", vec![1]),
                ("inv_all", vec![all as u64]),
                ("inv_kid", vec![kid]),
            ],
            vec![("busy", vec![0])],
        );
        for r in 0..rows {
            // A request waits: not ready, nothing served.
            let inp = vb.req(L, 2, 0x40, &[x]);
            vb = vb.cycle(
                inp,
                vec![
                    ("busy", vec![1]),
                    ("req_ready", vec![0]),
                    ("dbg_sweep_row", vec![r as u64]),
                    ("rsp_valid", vec![0]),
                ],
            );
        }
        vb
    };
    let vb = sweep(vb, false, 1);
    let vb = serial(
        vb,
        &[
            (L, 1, 0x40, x, miss),
            (L, 2, 0x40, x, (1, true, 0, false, 7, 5)),
        ],
    );
    let vb = sweep(vb, true, 0);
    serial(vb, &[(L, 2, 0x40, x, miss)]).done()
}

pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        table_2(),
        example_4_3(),
        example_4_5a(),
        passes(),
        s8_lru(),
        s9_kernels(),
    ]
}
