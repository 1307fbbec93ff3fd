//! The `dwr` spec vectors.

use super::*;

// ---------------------------------------------------------------------------------------
// Spec vectors

use InstKind::{Alu, BarPartner as Bar, BarSync, Exit, Long};

/// One planned spec cycle of a `dwr` vector.
#[derive(Clone, Debug, Default)]
pub(super) struct Plan {
    pub(super) launch: u64,
    pub(super) wb: u64,
    pub(super) bbr: u64,
    pub(super) ready: Option<u64>,
    pub(super) grid: bool,
    /// The sub-warp that issues, and the members if it is a fused issue.
    pub(super) issue: Option<(usize, Option<u64>)>,
    pub(super) act: Option<(usize, bool, bool)>,
    pub(super) rel: u64,
    pub(super) rel_d4: u64,
    pub(super) expect: Vec<(&'static str, Vec<u64>)>,
}

/// A `dwr` spec vector written as per-sub-warp programs plus the schedule the spec gives
/// (who issues when, barrier outcomes, releases, environment events). The builder turns it
/// into port values: `inst_kind`, `grp_pc`, `grp_mask` from the programs, and the expected
/// `issue_*`, `slot_busy`, `nxt_*`, `act_*`, `rel`, `rel_d4` of every cycle.
pub(super) struct Script {
    pub(super) name: String,
    pub(super) sets: Vec<String>,
    pub(super) cfg: DwrConfig,
    pub(super) progs: Vec<Vec<(u64, InstKind)>>,
    pub(super) masks: Vec<u64>,
    pub(super) plan: Vec<Plan>,
}

impl Script {
    pub(super) fn new(name: &str, sets: &[&str], progs: Vec<Vec<(u64, InstKind)>>) -> Script {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let params = warpforge_contract::Params::resolve(dwr::NAME, dwr::PARAMS, None, &sets)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let cfg = DwrConfig::from_params(&params).unwrap_or_else(|e| panic!("{name}: {e}"));
        let n = cfg.geometry.subwarps();
        let full = (1u64 << cfg.geometry.subwarp_size) - 1;
        let mut progs = progs;
        progs.resize(n, vec![]);
        Script {
            name: name.into(),
            sets,
            masks: progs
                .iter()
                .map(|p| if p.is_empty() { 0 } else { full })
                .collect(),
            cfg,
            progs,
            plan: vec![],
        }
    }
    pub(super) fn at(&mut self, c: usize) -> &mut Plan {
        if self.plan.len() <= c {
            self.plan.resize(c + 1, Plan::default());
        }
        &mut self.plan[c]
    }
    pub(super) fn launch(&mut self, c: usize, mask: u64) -> &mut Self {
        self.at(c).launch = mask;
        self
    }
    pub(super) fn issue(&mut self, c: usize, sw: usize) -> &mut Self {
        assert!(
            self.at(c).issue.is_none(),
            "{}: two issues at {c}",
            self.name
        );
        self.at(c).issue = Some((sw, None));
        self
    }
    /// A `bar.synch_partner` issued at `c`; it acts at `c + BAR_LAT − 1`.
    pub(super) fn bar(&mut self, c: usize, sw: usize, hit: bool, mismatch: bool) -> &mut Self {
        self.issue(c, sw);
        let a = c + self.cfg.bar_lat - 1;
        self.at(a).act = Some((sw, hit, mismatch));
        self
    }
    pub(super) fn fused(&mut self, c: usize, sw: usize, members: u64) -> &mut Self {
        assert!(
            self.at(c).issue.is_none(),
            "{}: two issues at {c}",
            self.name
        );
        self.at(c).issue = Some((sw, Some(members)));
        self
    }
    pub(super) fn wb(&mut self, c: usize, mask: u64) -> &mut Self {
        self.at(c).wb = mask;
        self
    }
    pub(super) fn bbr(&mut self, c: usize, mask: u64) -> &mut Self {
        self.at(c).bbr = mask;
        self
    }
    pub(super) fn ready(&mut self, c: usize, mask: u64) -> &mut Self {
        self.at(c).ready = Some(mask);
        self
    }
    pub(super) fn grid(&mut self, c: usize) -> &mut Self {
        self.at(c).grid = true;
        self
    }
    pub(super) fn rel(&mut self, c: usize, rows: u64) -> &mut Self {
        self.at(c).rel = rows;
        self
    }
    pub(super) fn rel_d4(&mut self, c: usize, rows: u64) -> &mut Self {
        self.at(c).rel_d4 = rows;
        self
    }
    pub(super) fn expect(&mut self, c: usize, port: &'static str, v: u64) -> &mut Self {
        self.at(c).expect.push((port, vec![v]));
        self
    }
    pub(super) fn expect_words(&mut self, c: usize, port: &'static str, v: Vec<u64>) -> &mut Self {
        self.at(c).expect.push((port, v));
        self
    }

    /// The vector: a reset cycle, then spec cycles 0 … `end` (spec cycle c = vector cycle c+1).
    pub(super) fn build(&mut self, end: usize) -> SpecVector {
        self.at(end);
        let g = &self.cfg.geometry;
        let (n, w, s, p) = (g.subwarps(), g.group_size, g.subwarp_size, g.pc_bits);
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut pos = vec![0usize; n];
        let mut hold = 0usize;
        let mut cycles = vec![VectorCycle {
            inputs: vec![("reset", vec![1])],
            expect: vec![],
        }];
        let pc_of = |progs: &[Vec<(u64, InstKind)>], pos: &[usize], sw: usize| {
            progs[sw].get(pos[sw]).map_or(0, |x| x.0)
        };
        for c in 0..=end {
            let pl = self.plan[c].clone();
            let mut inputs: Vec<(&'static str, Vec<u64>)> =
                vec![("ready", vec![pl.ready.unwrap_or(all)])];
            for (port, v) in [
                ("launch", pl.launch),
                ("writeback", pl.wb),
                ("blockbar_release", pl.bbr),
            ] {
                if v != 0 {
                    inputs.push((port, vec![v]));
                }
            }
            if pl.grid {
                inputs.push(("grid_start", vec![1]));
            }
            let mut ex: Vec<(&'static str, Vec<u64>)> = vec![];
            let zero_issue = |ex: &mut Vec<(&'static str, Vec<u64>)>| {
                for port in [
                    "issue_valid",
                    "issue_sw",
                    "issue_fused",
                    "issue_group",
                    "issue_members",
                    "issue_size",
                    "issue_pc",
                    "issue_mask",
                ] {
                    ex.push((port, vec![0]));
                }
            };
            let busy;
            match pl.issue {
                Some((sw, fused)) => {
                    let (grp, m) = (sw / w, sw % w);
                    let step = self.progs[sw].get(pos[sw]).copied();
                    let Some((pc, kind)) = step else {
                        panic!(
                            "{}: cycle {c}: sub-warp {sw} has no instruction left",
                            self.name
                        )
                    };
                    let members = fused.unwrap_or(1 << m);
                    let kind_code = match fused {
                        Some(_) => {
                            assert_eq!(
                                kind, Long,
                                "{}: cycle {c}: fused issue of a non-sensitive instruction",
                                self.name
                            );
                            Long.code()
                        }
                        None => {
                            let is_bar = kind == Bar;
                            let planned = (c + self.cfg.bar_lat - 1 <= end)
                                && self.plan[c + self.cfg.bar_lat - 1]
                                    .act
                                    .is_some_and(|a| a.0 == sw);
                            assert_eq!(
                                is_bar, planned,
                                "{}: cycle {c}: barrier issue needs bar()",
                                self.name
                            );
                            kind.code()
                        }
                    };
                    let gpc: Vec<u64> = (0..w)
                        .map(|j| pc_of(&self.progs, &pos, grp * w + j))
                        .collect();
                    let gmask: Vec<u64> = (0..w).map(|j| self.masks[grp * w + j]).collect();
                    inputs.push(("inst_kind", vec![kind_code]));
                    inputs.push(("grp_pc", pack_fields(p, &gpc)));
                    inputs.push(("grp_mask", pack_fields(s, &gmask)));
                    let member_masks: Vec<u64> = (0..w)
                        .map(|j| if members >> j & 1 == 1 { gmask[j] } else { 0 })
                        .collect();
                    ex.push(("issue_valid", vec![1]));
                    ex.push(("issue_sw", vec![sw as u64]));
                    ex.push(("issue_fused", vec![fused.is_some() as u64]));
                    ex.push(("issue_group", vec![grp as u64]));
                    ex.push(("issue_members", vec![members]));
                    ex.push(("issue_size", vec![members.count_ones() as u64]));
                    ex.push(("issue_pc", vec![pc]));
                    ex.push(("issue_mask", pack_fields(s, &member_masks)));
                    busy = true;
                    for j in 0..w {
                        if members >> j & 1 == 1 {
                            pos[grp * w + j] += 1;
                        }
                    }
                    hold = match (fused, self.cfg.fused_slices) {
                        (Some(_), FusedSlices::Members) => members.count_ones() as usize - 1,
                        _ => 0,
                    };
                }
                None => {
                    zero_issue(&mut ex);
                    busy = hold > 0;
                    hold = hold.saturating_sub(1);
                }
            }
            ex.push(("slot_busy", vec![busy as u64]));
            match pl.act {
                Some((sw, hit, mis)) => {
                    ex.push(("act_valid", vec![1]));
                    ex.push(("act_sw", vec![sw as u64]));
                    ex.push(("act_hit", vec![hit as u64]));
                    ex.push(("act_mismatch", vec![mis as u64]));
                }
                None => {
                    for port in ["act_valid", "act_sw", "act_hit", "act_mismatch"] {
                        ex.push((port, vec![0]));
                    }
                }
            }
            ex.push(("rel", vec![pl.rel]));
            ex.push(("rel_d4", vec![pl.rel_d4]));
            if c < end {
                let nxt = &self.plan[c + 1].issue;
                ex.push(("nxt_valid", vec![nxt.is_some() as u64]));
                ex.push(("nxt_sw", vec![nxt.map_or(0, |x| x.0 as u64)]));
                ex.push(("nxt_fused", vec![nxt.is_some_and(|x| x.1.is_some()) as u64]));
            }
            ex.extend(pl.expect.iter().cloned());
            cycles.push(VectorCycle { inputs, expect: ex });
        }
        SpecVector {
            name: self.name.clone(),
            unit: dwr::NAME,
            sets: self.sets.clone(),
            cycles,
        }
    }
}

/// A program: `(pc, class)` per instruction.
pub(super) fn prog(steps: &[(u64, InstKind)]) -> Vec<(u64, InstKind)> {
    steps.to_vec()
}

/// Programs of the §4 example (Alg. 5-5): A and C run 0–9, P at 10, the load at 11, 12–14,
/// exit at 15; B runs 0–6 and exits at 15. `with_p = false` is the same kernel without DWR.
pub(super) fn bfs_progs(with_p: bool) -> Vec<Vec<(u64, InstKind)>> {
    let mut ac: Vec<(u64, InstKind)> = (0..10).map(|pc| (pc, Alu)).collect();
    if with_p {
        ac.push((10, Bar));
    }
    ac.extend([(11, Long), (12, Alu), (13, Alu), (14, Alu), (15, Exit)]);
    let mut b: Vec<(u64, InstKind)> = (0..7).map(|pc| (pc, Alu)).collect();
    b.push((15, Exit));
    vec![ac.clone(), b, ac, vec![]]
}

/// Cycles 1–28 of the §4 example: sub-warp (c−1) mod 3 issues at c ≤ 21, then A, B, C, A,
/// C, A, C.
pub(super) fn bfs_prefix(sc: &mut Script) {
    sc.launch(0, 0b0111);
    for c in 1..=21 {
        sc.issue(c, (c - 1) % 3);
    }
    for (c, sw) in [
        (22, 0),
        (23, 1),
        (24, 2),
        (25, 0),
        (26, 2),
        (27, 0),
        (28, 2),
    ] {
        sc.issue(c, sw);
    }
}

/// §4 / S1: the BFS fragment with DWR, BAR_LAT = 1 (docs/dwr.md §8.1).
pub(super) fn s1_bfs() -> SpecVector {
    let mut sc = Script::new(
        "dwr.md §4 S1 BFS fragment (Fig. 5-2): DWR done at 48, one fused load",
        &["threads=32", "group_size=4", "bar_lat=1"],
        bfs_progs(true),
    );
    sc.masks = vec![0xFF, 0xFF, 0xFF, 0];
    bfs_prefix(&mut sc);
    sc.bar(29, 0, false, false)
        .bar(30, 2, false, false)
        .rel(30, 1);
    sc.fused(31, 0, 0b0101).wb(40, 0b0101);
    for (k, c) in (41..=48).enumerate() {
        sc.issue(c, [0, 2][k % 2]);
    }
    // The §4.4 trace in the state digest (docs/dwr.md §8.1 table).
    let trace: &[(usize, u64, (u64, u64, u64), u64, u64)] = &[
        (0, 0x000, (0, 0, 0), 3, 0),
        (1, 0x049, (0, 0, 0), 3, 0),
        (2, 0x049, (0, 0, 0), 0, 0),
        (21, 0x049, (0, 0, 0), 1, 0),
        (22, 0x049, (0, 0, 0), 2, 0),
        (23, 0x049, (0, 0, 0), 0, 0),
        (24, 0x041, (0, 0, 0), 1, 0),
        (25, 0x041, (0, 0, 0), 2, 0),
        (26, 0x041, (0, 0, 0), 0, 0),
        (27, 0x041, (0, 0, 0), 2, 0),
        (28, 0x041, (0, 0, 0), 0, 0),
        (29, 0x041, (0, 0, 0), 2, 0),
        (30, 0x044, (1, 10, 0b0001), 0, 0),
        (31, 0x145, (0, 0, 0), 2, 0),
        (32, 0x082, (0, 0, 0), 2, 1),
        (40, 0x082, (0, 0, 0), 2, 0),
        (41, 0x041, (0, 0, 0), 2, 0),
        (42, 0x041, (0, 0, 0), 0, 0),
        (47, 0x041, (0, 0, 0), 2, 0),
        (48, 0x040, (0, 0, 0), 0, 0),
        (49, 0x000, (0, 0, 0), 2, 0),
    ];
    for &(c, state, (v, pc, lock), ptr, hold) in trace {
        sc.expect(c, "dbg_state", state)
            .expect(c, "dbg_pst_valid", v)
            .expect(c, "dbg_pst_pc", pc)
            .expect(c, "dbg_pst_lock", lock)
            .expect(c, "dbg_ptr", ptr)
            .expect(c, "dbg_hold", hold);
    }
    for c in 3..=20 {
        sc.expect(c, "dbg_state", 0x049)
            .expect(c, "dbg_ptr", ((c - 2) % 3) as u64);
    }
    for c in 33..=39 {
        sc.expect(c, "dbg_state", 0x082).expect(c, "dbg_hold", 0);
    }
    for c in 0..=49 {
        sc.expect(c, "dbg_ilt_valid", 0);
    }
    sc.build(49)
}

/// S1, second part: the same kernel without DWR (no P, loads LONG, one memory pipe): done at 51.
pub(super) fn s1_bfs_no_dwr() -> SpecVector {
    let mut sc = Script::new(
        "dwr.md §4 S1 BFS fragment without DWR: done at 51, idle 31-38 and 43-47",
        &["threads=32", "group_size=4", "bar_lat=1"],
        bfs_progs(false),
    );
    sc.masks = vec![0xFF, 0xFF, 0xFF, 0];
    bfs_prefix(&mut sc);
    sc.issue(29, 0).issue(30, 2).wb(38, 0b0001).wb(47, 0b0100);
    for c in 39..=42 {
        sc.issue(c, 0);
    }
    for c in 48..=51 {
        sc.issue(c, 2);
    }
    sc.build(52)
}

/// S13: the S1 program with BAR_LAT = 24: the fused load at 54, done at 71.
pub(super) fn s13_bar_lat_24() -> SpecVector {
    let mut sc = Script::new(
        "dwr.md S13 BFS fragment with BAR_LAT=24: fused load at 54, done at 71",
        &["threads=32", "group_size=4", "bar_lat=24"],
        bfs_progs(true),
    );
    sc.masks = vec![0xFF, 0xFF, 0xFF, 0];
    bfs_prefix(&mut sc);
    sc.bar(29, 0, false, false)
        .bar(30, 2, false, false)
        .rel(53, 1);
    sc.fused(54, 0, 0b0101).wb(63, 0b0101);
    for (k, c) in (64..=71).enumerate() {
        sc.issue(c, [0, 2][k % 2]);
    }
    // The barriers travel through the 23 pipeline stages.
    sc.expect(29, "dbg_pipe_valid", 0)
        .expect(30, "dbg_pipe_valid", 0b1)
        .expect(31, "dbg_pipe_valid", 0b11)
        .expect(52, "dbg_pipe_valid", 0b11 << 21)
        .expect(53, "dbg_pipe_valid", 1 << 22)
        .expect(54, "dbg_pipe_valid", 0);
    let mut sws = vec![0u64; 23];
    sws[22] = 2;
    let mut pcs = vec![0u64; 23];
    pcs[22] = 10;
    sc.expect_words(53, "dbg_pipe_sw", pack_fields(2, &sws))
        .expect_words(53, "dbg_pipe_pc", pack_fields(32, &pcs))
        .expect(53, "dbg_state", 0x084)
        .expect(53, "dbg_pst_lock", 0b0001);
    sc.build(72)
}

/// §4.7 Alg. 5-2(a) / S5, order "sw0 at P2 first" and the reverse order.
pub(super) fn s5_alg52a(reverse: bool) -> SpecVector {
    let progs = vec![
        prog(&[
            (0, Alu),
            (1, Bar),
            (2, Long),
            (3, Bar),
            (4, Long),
            (5, Exit),
        ]),
        prog(&[(0, Alu), (3, Bar), (4, Long), (5, Exit)]),
    ];
    let sets = ["threads=16", "group_size=2", "bar_lat=1"];
    if !reverse {
        let mut sc = Script::new(
            "dwr.md S5 Alg. 5-2(a) sw0 at P2 first: ILT = {P4}, no deadlock",
            &sets,
            progs,
        );
        sc.launch(0, 0b11).issue(1, 0).issue(2, 1);
        sc.bar(3, 0, false, false).bar(4, 1, false, true).rel(4, 1);
        sc.fused(5, 0, 0b01)
            .fused(6, 1, 0b10)
            .wb(8, 0b01)
            .wb(9, 0b10);
        sc.bar(9, 0, true, false)
            .issue(10, 1)
            .issue(11, 0)
            .wb(14, 0b01)
            .issue(15, 0);
        sc.expect(4, "dbg_pst_valid", 1)
            .expect(4, "dbg_pst_pc", 1)
            .expect(4, "dbg_pst_lock", 0b01);
        for c in [5, 9, 10, 16] {
            sc.expect(c, "dbg_pst_valid", 0)
                .expect(c, "dbg_ilt_valid", 1 << 24)
                .expect(c, "dbg_ilt_ptr", 1 << 9);
        }
        sc.build(16)
    } else {
        let mut sc = Script::new(
            "dwr.md S5 Alg. 5-2(a) reverse order: ILT = {P2}, no deadlock",
            &sets,
            progs,
        );
        sc.launch(0, 0b11).ready(0, 0b10).ready(1, 0b10).issue(1, 1);
        sc.bar(2, 1, false, false)
            .issue(3, 0)
            .bar(4, 0, false, true)
            .rel(4, 1);
        sc.fused(5, 1, 0b10)
            .fused(6, 0, 0b01)
            .wb(8, 0b10)
            .wb(9, 0b01)
            .issue(9, 1);
        sc.bar(10, 0, false, false)
            .rel(10, 1)
            .fused(11, 0, 0b01)
            .wb(14, 0b01)
            .issue(15, 0);
        sc.expect(3, "dbg_pst_valid", 1)
            .expect(3, "dbg_pst_pc", 3)
            .expect(3, "dbg_pst_lock", 0b10);
        for c in [5, 10, 16] {
            sc.expect(c, "dbg_ilt_valid", 1 << 8)
                .expect(c, "dbg_ilt_ptr", 1 << 3);
        }
        sc.expect(11, "dbg_pst_valid", 0);
        sc.build(16)
    }
}

/// §4.7 Alg. 5-2(b) / S6: a partner blocked in __syncthreads releases by rule D4.
pub(super) fn s6_alg52b(d4_learn: bool) -> SpecVector {
    let progs = vec![
        prog(&[(0, Alu), (1, Bar), (2, Long), (3, BarSync), (4, Exit)]),
        prog(&[(0, Alu), (3, BarSync), (4, Exit)]),
    ];
    let name = if d4_learn {
        "dwr.md S6 Alg. 5-2(b): D4 release, ILT = {P2} with d4_learn"
    } else {
        "dwr.md S6 Alg. 5-2(b): D4 release, ILT empty without d4_learn"
    };
    let learn = format!("d4_learn={d4_learn}");
    let mut sc = Script::new(
        name,
        &["threads=16", "group_size=2", "bar_lat=1", &learn],
        progs,
    );
    sc.launch(0, 0b11)
        .issue(1, 0)
        .issue(2, 1)
        .bar(3, 0, false, false);
    sc.issue(4, 1)
        .rel(4, 1)
        .rel_d4(4, 1)
        .fused(5, 0, 0b01)
        .wb(8, 0b01)
        .issue(9, 0);
    sc.bbr(10, 0b11).issue(11, 1).issue(12, 0);
    sc.expect(5, "dbg_state", 0b011_101)
        .expect(10, "dbg_state", 0b011_011)
        .expect(11, "dbg_state", 0b001_001);
    let ilt = if d4_learn { 1 << 8 } else { 0 };
    for c in [4, 5, 13] {
        sc.expect(c, "dbg_ilt_valid", if c == 4 { 0 } else { ilt });
    }
    sc.build(13)
}

/// §4.7 Alg. 5-3 / S7: both sub-warps block in __syncthreads at different PCs; the PST
/// stays out of it. A block release of a sub-warp that is not yet blocked is ignored.
pub(super) fn s7_alg53() -> SpecVector {
    let progs = vec![
        prog(&[(0, Alu), (1, BarSync), (3, Exit)]),
        prog(&[(0, Alu), (2, BarSync), (3, Exit)]),
    ];
    let mut sc = Script::new(
        "dwr.md S7 Alg. 5-3: divergent __syncthreads, DWR unaffected",
        &["threads=16", "group_size=2", "bar_lat=1"],
        progs,
    );
    sc.launch(0, 0b11)
        .issue(1, 0)
        .issue(2, 1)
        .issue(3, 0)
        .bbr(3, 0b01)
        .issue(4, 1);
    sc.bbr(5, 0b11).issue(6, 0).issue(7, 1);
    sc.expect(4, "dbg_state", 0b001_011)
        .expect(5, "dbg_state", 0b011_011)
        .expect(6, "dbg_state", 0b001_001);
    for c in 0..=8 {
        sc.expect(c, "dbg_pst_valid", 0)
            .expect(c, "dbg_ilt_valid", 0);
    }
    sc.build(8)
}

/// S2: a full group of 8 meets at one barrier: one bundle of 8, 8 slices.
pub(super) fn s2_full_group() -> SpecVector {
    let p = prog(&[(0, Bar), (1, Long), (2, Exit)]);
    let mut sc = Script::new(
        "dwr.md S2 full group W=8: lock 0x01..0x7F then 0x00, one bundle of 8",
        &["threads=64", "group_size=8", "bar_lat=1"],
        vec![p; 8],
    );
    sc.launch(0, 0xFF);
    for c in 1..=8 {
        sc.bar(c, c - 1, false, false);
    }
    sc.rel(8, 1).fused(9, 0, 0xFF).wb(18, 0xFF);
    for k in 0..8 {
        sc.issue(19 + k, k);
    }
    for c in 2..=8 {
        sc.expect(c, "dbg_pst_lock", (1 << (c - 1)) - 1)
            .expect(c, "dbg_pst_valid", 1);
    }
    sc.expect(9, "dbg_pst_lock", 0)
        .expect(9, "dbg_pst_valid", 0);
    for (k, c) in (10..=17).enumerate() {
        sc.expect(c, "dbg_hold", (7 - k) as u64);
    }
    sc.expect(10, "dbg_state", 0x49_2492)
        .expect(19, "dbg_state", 0x24_9249);
    sc.build(27)
}

/// S3: a partial group (a 100-thread block): group 1 releases with 5 valid sub-warps, and
/// lanes 4–7 of sub-warp 12 stay masked.
pub(super) fn s3_partial_group() -> SpecVector {
    let p = prog(&[(0, Bar), (1, Long), (2, Exit)]);
    let mut progs = vec![p; 13];
    progs.resize(16, vec![]);
    let mut sc = Script::new(
        "dwr.md S3 partial group (MU, 100 threads): release with 5 valid",
        &["threads=128", "group_size=8", "bar_lat=1"],
        progs,
    );
    sc.masks[12] = 0x0F;
    sc.launch(0, 0x1FFF);
    for c in 1..=13 {
        sc.bar(c, c - 1, false, false);
    }
    sc.rel(8, 0b01)
        .rel(13, 0b10)
        .fused(14, 0, 0xFF)
        .fused(22, 8, 0x1F);
    sc.wb(30, 0xFF).wb(31, 0x1F00);
    for k in 0..13 {
        sc.issue(31 + k, k);
    }
    sc.expect(13, "dbg_pst_lock", 0xF00)
        .expect(14, "dbg_pst_valid", 0);
    sc.build(44)
}

/// S4: an exit alone releases the waiting partners; they issue the next cycle.
pub(super) fn s4_exit_release() -> SpecVector {
    let p = prog(&[(0, Bar), (1, Long), (2, Exit)]);
    let mut progs = vec![p; 7];
    progs.push(prog(&[(0, Alu), (1, Exit)]));
    let mut sc = Script::new(
        "dwr.md S4 exit-triggered release: bundle of 7 the next cycle",
        &["threads=64", "group_size=8", "bar_lat=1"],
        progs,
    );
    sc.launch(0, 0xFF);
    for c in 1..=7 {
        sc.bar(c, c - 1, false, false);
    }
    sc.issue(8, 7)
        .issue(9, 7)
        .rel(9, 1)
        .fused(10, 0, 0x7F)
        .wb(20, 0x7F);
    for k in 0..7 {
        sc.issue(21 + k, k);
    }
    for c in [9, 10, 28] {
        sc.expect(c, "dbg_ilt_valid", 0);
    }
    sc.build(28)
}

/// S8: PCs in the ILT are bypassed: no PST change, each load alone.
pub(super) fn s8_bypass() -> SpecVector {
    let progs = vec![
        prog(&[(5, Bar), (6, Long), (9, Bar), (10, Long), (11, Exit)]),
        prog(&[(9, Bar), (10, Long), (9, Bar), (10, Long), (11, Exit)]),
    ];
    let mut sc = Script::new(
        "dwr.md S8 ILT bypass: P@9 learned, then passed without the PST",
        &["threads=16", "group_size=2", "bar_lat=1"],
        progs,
    );
    sc.launch(0, 0b11)
        .bar(1, 0, false, false)
        .bar(2, 1, false, true)
        .rel(2, 1);
    sc.fused(3, 0, 0b01).fused(4, 1, 0b10).wb(6, 0b11);
    sc.bar(7, 0, true, false)
        .bar(8, 1, true, false)
        .issue(9, 0)
        .issue(10, 1);
    sc.wb(12, 0b11).issue(13, 0).issue(14, 1);
    for c in 3..=11 {
        sc.expect(c, "dbg_pst_valid", 0)
            .expect(c, "dbg_pst_lock", 0);
    }
    sc.expect(8, "dbg_state", 0b001_001)
        .expect(9, "dbg_state", 0b001_001);
    sc.expect(3, "dbg_ilt_valid", 1 << 8)
        .expect(15, "dbg_ilt_valid", 1 << 8);
    sc.build(15)
}

/// S9: nine useless barrier PCs of one set: one FIFO eviction; the evicted PC re-synchronizes
/// and is re-learned.
pub(super) fn s9_ilt_capacity() -> SpecVector {
    let mut p0 = vec![];
    for _ in 0..10 {
        p0.extend([(1, Bar), (2, Long)]);
    }
    p0.push((3, Exit));
    let mut p1 = vec![];
    for i in 1..=9u64 {
        p1.extend([(4 * i, Bar), (4 * i + 1, Long)]);
    }
    p1.extend([(4, Bar), (5, Long), (50, Exit)]);
    let mut sc = Script::new(
        "dwr.md S9 ILT capacity: 9 PCs in one set, FIFO eviction, re-learning",
        &["threads=16", "group_size=2", "bar_lat=1"],
        vec![p0, p1],
    );
    sc.launch(0, 0b11);
    // Tags of set 0 after k inserts of PCs 4, 8, …, 36, 4 (tag = PC / 4).
    let img = |k: usize| {
        let mut ways = [0u64; 8];
        let order: Vec<u64> = (1..=9).chain([1]).collect();
        for (i, &t) in order.iter().take(k).enumerate() {
            ways[i % 8] = t;
        }
        let mut tags = vec![0u64; 32];
        tags[..8].copy_from_slice(&ways);
        pack_fields(30, &tags)
    };
    for i in 1..=10usize {
        let c = 5 * i - 4;
        sc.bar(c, 0, false, false)
            .bar(c + 1, 1, false, true)
            .rel(c + 1, 1);
        sc.fused(c + 2, 0, 0b01)
            .fused(c + 3, 1, 0b10)
            .wb(c + 4, 0b11);
        sc.expect(c + 2, "dbg_ilt_valid", (1u64 << i.min(8)) - 1)
            .expect(c + 2, "dbg_ilt_ptr", (i % 8) as u64)
            .expect_words(c + 2, "dbg_ilt_tag", img(i));
    }
    sc.issue(51, 0).issue(52, 1);
    sc.build(53)
}

/// S10: a lone valid sub-warp releases after BAR_LAT; a writeback during its barrier is
/// ignored.
pub(super) fn s10_lone() -> SpecVector {
    let progs = vec![prog(&[(5, Bar), (6, Long), (7, Exit)])];
    let mut sc = Script::new(
        "dwr.md S10 lone sub-warp: released after BAR_LAT=24, 1-member bundle",
        &["threads=64", "group_size=8", "bar_lat=24"],
        progs,
    );
    sc.launch(0, 0b1)
        .bar(1, 0, false, false)
        .rel(24, 1)
        .fused(25, 0, 0b1);
    sc.wb(10, 0b1).wb(30, 0b1).issue(31, 0);
    sc.expect(11, "dbg_state", 2)
        .expect(2, "dbg_pipe_valid", 1)
        .expect(24, "dbg_pipe_valid", 1 << 22)
        .expect(25, "dbg_pipe_valid", 0)
        .expect(25, "dbg_state", 5);
    sc.build(32)
}

/// S11: three PCs in one episode: bundles {row-PC members}, {x}, {y}.
pub(super) fn s11_three_pcs(one_slice: bool) -> SpecVector {
    let progs = vec![
        prog(&[(4, Bar), (5, Long), (6, Exit)]),
        prog(&[(4, Bar), (5, Long), (6, Exit)]),
        prog(&[(8, Bar), (9, Long), (10, Exit)]),
        prog(&[(12, Bar), (13, Long), (14, Exit)]),
        prog(&[(8, Bar), (9, Long), (10, Exit)]),
    ];
    let (name, sets): (&str, &[&str]) = if one_slice {
        (
            "dwr.md S11 three PCs in one episode, fused_slices=one",
            &[
                "threads=64",
                "group_size=8",
                "bar_lat=1",
                "fused_slices=one",
            ],
        )
    } else {
        (
            "dwr.md S11 three PCs in one episode: bundles {0,1}, {2}, {3}",
            &["threads=64", "group_size=8", "bar_lat=1"],
        )
    };
    let mut sc = Script::new(name, sets, progs);
    sc.launch(0, 0x1F)
        .bar(1, 0, false, false)
        .bar(2, 1, false, false);
    sc.bar(3, 2, false, true)
        .bar(4, 3, false, true)
        .bar(5, 4, true, false);
    sc.issue(6, 4)
        .wb(9, 0b10000)
        .issue(10, 4)
        .rel(10, 1)
        .fused(11, 0, 0b11);
    let t = if one_slice {
        sc.fused(12, 2, 0b100).fused(13, 3, 0b1000);
        15
    } else {
        sc.fused(13, 2, 0b100).fused(14, 3, 0b1000);
        16
    };
    sc.wb(t, 0b1111);
    for k in 0..4 {
        sc.issue(t + 1 + k, k);
    }
    sc.expect(5, "dbg_ilt_valid", 0b11)
        .expect(5, "dbg_ilt_ptr", 2)
        .expect(5, "dbg_pst_pc", 4);
    sc.expect_words(5, "dbg_ilt_tag", pack_fields(30, &[2, 3]));
    sc.build(t + 5)
}

/// S12: grid launch flushes the ILT (also discarding an insert of the same cycle); with
/// ilt_flush=false the entry persists and the next launch bypasses.
pub(super) fn s12_relaunch(flush: bool) -> SpecVector {
    let progs = vec![
        prog(&[(5, Bar), (6, Long), (5, Bar), (6, Long), (7, Exit)]),
        prog(&[(9, Bar), (10, Long), (9, Bar), (10, Long), (11, Exit)]),
    ];
    if flush {
        let mut sc = Script::new(
            "dwr.md S12 grid relaunch flushes the ILT",
            &["threads=16", "group_size=2", "bar_lat=1"],
            progs,
        );
        sc.launch(0, 0b11)
            .bar(1, 0, false, false)
            .bar(2, 1, false, true)
            .rel(2, 1);
        sc.fused(3, 0, 0b01).fused(4, 1, 0b10).wb(5, 0b11).grid(5);
        sc.bar(6, 0, false, false)
            .bar(7, 1, false, true)
            .rel(7, 1)
            .grid(7);
        sc.fused(8, 0, 0b01)
            .fused(9, 1, 0b10)
            .wb(10, 0b11)
            .issue(11, 0)
            .issue(12, 1);
        for (c, v) in [(3, 1u64 << 8), (5, 1 << 8), (6, 0), (7, 0), (8, 0), (13, 0)] {
            sc.expect(c, "dbg_ilt_valid", v).expect(
                c,
                "dbg_ilt_ptr",
                if v == 0 { 0 } else { 1 << 3 },
            );
        }
        sc.build(13)
    } else {
        let mut sc = Script::new(
            "dwr.md S12 ILT persists across launches with ilt_flush=false",
            &["threads=16", "group_size=2", "bar_lat=1", "ilt_flush=false"],
            progs,
        );
        sc.launch(0, 0b11)
            .bar(1, 0, false, false)
            .bar(2, 1, false, true)
            .rel(2, 1);
        sc.fused(3, 0, 0b01).fused(4, 1, 0b10).wb(5, 0b11).grid(5);
        sc.bar(6, 0, false, false)
            .bar(7, 1, true, false)
            .issue(8, 1)
            .wb(10, 0b10);
        sc.issue(11, 1)
            .rel(11, 1)
            .fused(12, 0, 0b01)
            .wb(14, 0b01)
            .issue(15, 0);
        for c in [3, 6, 16] {
            sc.expect(c, "dbg_ilt_valid", 1 << 8);
        }
        sc.expect(8, "dbg_pst_valid", 1)
            .expect(8, "dbg_pst_pc", 5)
            .expect(8, "dbg_pst_lock", 0b01);
        sc.build(16)
    }
}

/// S14: non-sensitive long instructions (ld.shared) of one group at one PC never fuse.
pub(super) fn s14_no_fusion() -> SpecVector {
    let p = prog(&[(0, Long), (1, Exit)]);
    let mut sc = Script::new(
        "dwr.md S14 non-sensitive memory never fuses",
        &["threads=32", "group_size=4", "bar_lat=1"],
        vec![p; 4],
    );
    sc.launch(0, 0xF);
    for c in 1..=4 {
        sc.issue(c, c - 1);
    }
    sc.wb(6, 0xF);
    for c in 7..=10 {
        sc.issue(c, c - 7);
    }
    sc.build(11)
}

/// S15: a fused bundle's members wake together on one writeback.
pub(super) fn s15_wake_together() -> SpecVector {
    let p = prog(&[(0, Bar), (1, Long), (2, Exit)]);
    let mut sc = Script::new(
        "dwr.md S15 fused members complete together",
        &["threads=32", "group_size=4", "bar_lat=1"],
        vec![p; 4],
    );
    sc.launch(0, 0xF);
    for c in 1..=4 {
        sc.bar(c, c - 1, false, false);
    }
    sc.rel(4, 1).fused(5, 0, 0xF).wb(12, 0xF);
    for c in 13..=16 {
        sc.issue(c, c - 13);
    }
    sc.expect(12, "dbg_state", 0x492)
        .expect(13, "dbg_state", 0x249);
    sc.build(17)
}

/// A5: two sub-warps locked at the same non-row PC (its ILT entry flushed between their
/// arrivals): `pc` fuses them, `matched` does not (docs/dwr.md §9 item 7).
pub(super) fn a5_match_modes(matched: bool) -> SpecVector {
    let progs = vec![
        prog(&[(4, Bar), (5, Long), (6, Exit)]),
        prog(&[(4, Bar), (5, Long), (6, Exit)]),
        prog(&[(8, Bar), (9, Long), (10, Exit)]),
        prog(&[(0, Alu), (8, Bar), (9, Long), (10, Exit)]),
    ];
    let (name, mode) = if matched {
        (
            "dwr.md A5 sco_match=matched: unmatched partners at one PC issue alone",
            "sco_match=matched",
        )
    } else {
        (
            "dwr.md A5 sco_match=pc: partners at one non-row PC fuse",
            "sco_match=pc",
        )
    };
    let mut sc = Script::new(
        name,
        &["threads=32", "group_size=4", "bar_lat=1", mode],
        progs,
    );
    sc.launch(0, 0xF)
        .bar(1, 0, false, false)
        .bar(2, 1, false, false)
        .bar(3, 2, false, true);
    sc.issue(4, 3)
        .grid(4)
        .bar(5, 3, false, true)
        .rel(5, 1)
        .fused(6, 0, 0b0011);
    if matched {
        sc.fused(8, 2, 0b0100).fused(9, 3, 0b1000);
    } else {
        sc.fused(8, 2, 0b1100);
    }
    sc.wb(12, 0xF);
    for c in 13..=16 {
        sc.issue(c, c - 13);
    }
    sc.expect(4, "dbg_ilt_valid", 1)
        .expect(5, "dbg_ilt_valid", 0)
        .expect(6, "dbg_ilt_valid", 1);
    let m = |v: u64| if matched { v } else { 0 };
    sc.expect(2, "dbg_matched", m(0b0001))
        .expect(3, "dbg_matched", m(0b0011))
        .expect(4, "dbg_matched", m(0b0011))
        .expect(6, "dbg_matched", m(0b0011))
        .expect(7, "dbg_matched", 0)
        .expect(8, "dbg_matched", 0);
    sc.build(17)
}

/// Three ILT inserts in one cycle (BAR_LAT = 2): a mismatching barrier acts on row 0 and
/// completes it by D4, while a BAR_SYNC issued in the same cycle completes row 1 by D4. The
/// inserts go in order: the mismatch PC, then the D4 rows' PCs ascending.
pub(super) fn three_inserts() -> SpecVector {
    let progs = vec![
        prog(&[(8, Bar), (9, Long), (10, Exit)]),
        prog(&[(0, Alu), (12, Bar), (13, Long), (14, Exit)]),
        prog(&[(0, BarSync), (1, Exit)]),
        vec![],
        prog(&[(16, Bar), (17, Long), (18, Exit)]),
        prog(&[(0, Alu), (1, BarSync), (2, Exit)]),
    ];
    let mut sc = Script::new(
        "dwr.md §5 three ILT inserts in one cycle: mismatch, then D4 rows ascending",
        &["threads=64", "group_size=4", "bar_lat=2"],
        progs,
    );
    sc.launch(0, 0x37)
        .bar(1, 0, false, false)
        .issue(2, 1)
        .issue(3, 2)
        .bar(4, 4, false, false);
    sc.issue(5, 5)
        .bar(6, 1, false, true)
        .issue(7, 5)
        .rel(7, 0b11)
        .rel_d4(7, 0b11);
    sc.fused(8, 0, 0b0001)
        .fused(9, 1, 0b0010)
        .fused(10, 4, 0b0001);
    sc.bbr(11, 0x24).wb(11, 0x13);
    for (c, sw) in [(12, 5), (13, 0), (14, 1), (15, 2), (16, 4)] {
        sc.issue(c, sw);
    }
    sc.expect(7, "dbg_ilt_valid", 0)
        .expect(7, "dbg_pst_valid", 0b11);
    sc.expect(8, "dbg_ilt_valid", 0b111)
        .expect(8, "dbg_ilt_ptr", 3)
        .expect(8, "dbg_pst_valid", 0);
    sc.expect_words(8, "dbg_ilt_tag", pack_fields(30, &[3, 2, 4]));
    sc.expect(8, "dbg_state", 0o0035_0355);
    sc.build(17)
}

/// A reset in the middle of an episode returns everything to the reset state (BAR_LAT = 2).
pub(super) fn reset_mid_episode() -> SpecVector {
    let sets = ["threads=16", "group_size=2", "bar_lat=2"];
    Vb::new(
        "dwr reset mid-episode: PST, pipeline, pick and pointer return to reset",
        dwr::NAME,
        &sets,
    )
    .reset()
    .cycle(
        &[("launch", 0b11), ("ready", 0b11)],
        &[("nxt_valid", 1), ("nxt_sw", 0), ("dbg_ptr", 1)],
    )
    .cycle_words(
        &[
            ("ready", vec![0b11]),
            ("inst_kind", vec![2]),
            ("grp_pc", pack_fields(32, &[1, 5])),
            ("grp_mask", vec![0xFFFF]),
        ],
        &[
            ("issue_valid", vec![1]),
            ("issue_sw", vec![0]),
            ("issue_pc", vec![1]),
            ("act_valid", vec![0]),
            ("nxt_sw", vec![1]),
        ],
    )
    .cycle_words(
        &[
            ("ready", vec![0b11]),
            ("inst_kind", vec![0]),
            ("grp_pc", pack_fields(32, &[2, 5])),
            ("grp_mask", vec![0xFFFF]),
        ],
        &[
            ("dbg_pipe_valid", vec![1]),
            ("dbg_pipe_sw", vec![0]),
            ("dbg_pipe_pc", vec![1]),
            ("issue_sw", vec![1]),
            ("act_valid", vec![1]),
            ("act_sw", vec![0]),
            ("rel", vec![0]),
            ("nxt_valid", vec![1]),
            ("nxt_sw", vec![1]),
        ],
    )
    .cycle(&[("reset", 1)], &[])
    .cycle(
        &[("launch", 0b10), ("ready", 0b11)],
        &[
            ("dbg_state", 0),
            ("dbg_pst_valid", 0),
            ("dbg_pst_lock", 0),
            ("dbg_pipe_valid", 0),
            ("dbg_ptr", 1),
            ("dbg_hold", 0),
            ("issue_valid", 0),
            ("slot_busy", 0),
            ("nxt_valid", 1),
            ("nxt_sw", 1),
        ],
    )
    .cycle_words(
        &[
            ("inst_kind", vec![4]),
            ("grp_pc", pack_fields(32, &[0, 6])),
            ("grp_mask", vec![0xFFFF]),
        ],
        &[
            ("issue_valid", vec![1]),
            ("issue_sw", vec![1]),
            ("issue_pc", vec![6]),
            ("issue_mask", vec![0xFF00]),
        ],
    )
    .cycle(&[], &[("dbg_state", 0), ("issue_valid", 0)])
    .done()
}

/// The directed vectors of `dwr`: §4 (S1, its DWR-off twin, S13), §4.7 (S5–S7), the §8.2
/// scenarios S2–S4 and S8–S15, the A5 modes and a mid-episode reset.
pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        s1_bfs(),
        s1_bfs_no_dwr(),
        s13_bar_lat_24(),
        s5_alg52a(false),
        s5_alg52a(true),
        s6_alg52b(true),
        s6_alg52b(false),
        s7_alg53(),
        s2_full_group(),
        s3_partial_group(),
        s4_exit_release(),
        s8_bypass(),
        s9_ilt_capacity(),
        s10_lone(),
        s11_three_pcs(false),
        s11_three_pcs(true),
        s12_relaunch(true),
        s12_relaunch(false),
        s14_no_fusion(),
        s15_wake_together(),
        a5_match_modes(false),
        a5_match_modes(true),
        three_inserts(),
        reset_mid_episode(),
    ]
}
