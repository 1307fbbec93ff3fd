//! Directed simulations of the `dwr` unit (Icarus Verilog, reactive environment): the spec's
//! worked example (§4, Fig. 5-2: DWR done at 48 with one fused load), its DWR-off and
//! BAR_LAT = 24 variants, and the scenario vectors of §4.7 and §8.2 as docs/dwr.md §8 maps
//! them onto the ports.

mod dwr_harness;

use dwr_harness::*;
use warpforge_contract::units::dwr::{self, DwrConfig};
use warpforge_contract::Params;

fn config(sets: &[&str]) -> DwrConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    DwrConfig::from_params(&Params::resolve(dwr::NAME, dwr::PARAMS, None, &sets).unwrap()).unwrap()
}

/// Reset, then spec cycles 0 … `cycles − 1` (spec cycle 0 launches `launch`); the outputs of
/// each spec cycle.
fn run(cfg: &DwrConfig, env: &mut Env, launch: Val, cycles: u64) -> Option<Vec<Outs>> {
    let mut sim = Sim::start(&warpforge_hdl::dwr::generate(cfg), &cfg.ports())?;
    sim.step(&[("reset", val(1))]);
    let mut trace = vec![];
    for t in 0..cycles {
        let mut inputs = env.inputs(t);
        if t == 0 {
            inputs.push(("launch", launch.clone()));
        }
        let o = sim.step(&inputs);
        env.observe(t, &o);
        trace.push(o);
    }
    Some(trace)
}

/// The sub-warp issued in each cycle (None when nothing issues).
fn issued(trace: &[Outs]) -> Vec<Option<u64>> {
    trace
        .iter()
        .map(|o| (o.get("issue_valid") == 1).then(|| o.get("issue_sw")))
        .collect()
}

/// The §4 BFS fragment (Alg. 5-5): A and C run 0…9, P at 10, the load at 11, 12…14, exit at
/// 15; B leaves at 7 for the exit. `with_p = false` is the same program without the barrier.
fn bfs_programs(with_p: bool) -> Vec<Vec<Inst>> {
    let mut ac: Vec<(u64, u64)> = (0..10).map(|pc| (ALU, pc)).collect();
    if with_p {
        ac.push((BARP, 10));
    }
    ac.push((LONG, 11));
    ac.extend([(ALU, 12), (ALU, 13), (ALU, 14), (EXIT, 15)]);
    let mut b: Vec<(u64, u64)> = (0..7).map(|pc| (ALU, pc)).collect();
    b.push((EXIT, 15));
    vec![prog(&ac), prog(&b), prog(&ac)]
}

fn bfs_env(with_p: bool) -> Env {
    let mut env = Env::new(4, 4, 8, 32, bfs_programs(with_p));
    env.masks = vec![0xFF, 0xFF, 0xFF, 0];
    env
}

#[test]
fn s1_bfs_example_dwr_done_at_48_with_one_fused_load() {
    let cfg = config(&["threads=32", "group_size=4", "bar_lat=1"]);
    let mut env = bfs_env(true);
    let Some(tr) = run(&cfg, &mut env, bits(0..3), 50) else {
        return;
    };
    let (a, b, c) = (Some(0), Some(1), Some(2));
    let mut want: Vec<Option<u64>> = vec![None];
    want.extend((1..=21).map(|t| Some((t - 1) % 3)));
    want.extend([a, b, c, a, c, a, c, a, c, a]); // 22–31
    want.extend([None; 9]); // 32–40
    want.extend([a, c, a, c, a, c, a, c, None]); // 41–49
    assert_eq!(issued(&tr), want);

    // The fused load at 31: A and C, one bundle, PC 11, their two slices of the mask.
    let f = &tr[31];
    assert_eq!(f.get("issue_fused"), 1);
    assert_eq!(f.get("issue_members"), 0b0101);
    assert_eq!(f.get("issue_size"), 2);
    assert_eq!(f.get("issue_pc"), 11);
    assert_eq!(f.get("issue_mask"), 0x00FF_00FF);
    // It is the load's only issue: nothing else fused, nothing else at PC 11.
    for (t, o) in tr.iter().enumerate() {
        if t != 31 && o.get("issue_valid") == 1 {
            assert_eq!(o.get("issue_fused"), 0, "cycle {t}");
            assert_eq!(o.get("issue_size"), 1, "cycle {t}");
            assert_ne!(o.get("issue_pc"), 11, "cycle {t}");
        }
    }
    // §4.5: completion 48, 40 slots (39 bundles, the fused load takes 31–32), idle 33–40.
    let completion = tr.iter().rposition(|o| o.get("issue_valid") == 1).unwrap();
    assert_eq!(completion, 48);
    let busy: Vec<usize> = (0..=48).filter(|&t| tr[t].get("slot_busy") == 1).collect();
    assert_eq!(busy.len(), 40);
    let idle: Vec<usize> = (1..=48).filter(|&t| tr[t].get("slot_busy") == 0).collect();
    assert_eq!(idle, (33..=40).collect::<Vec<_>>());
    assert_eq!(tr[32].get("dbg_hold"), 1);
    assert_eq!(tr.iter().filter(|o| o.get("issue_valid") == 1).count(), 39);

    // §4.4 state trace (3 bits per sub-warp, A lowest) and PST row 0.
    for t in 1..=21 {
        assert_eq!(tr[t].get("dbg_state"), 0x049, "cycle {t}");
    }
    for (t, st) in [
        (23, 0x049),
        (24, 0x041),
        (29, 0x041),
        (30, 0x044),
        (31, 0x145),
    ] {
        assert_eq!(tr[t].get("dbg_state"), st, "cycle {t}");
    }
    for t in 32..=40 {
        assert_eq!(tr[t].get("dbg_state"), 0x082, "cycle {t}");
    }
    for (t, st) in [(41, 0x041), (47, 0x041), (48, 0x040), (49, 0)] {
        assert_eq!(tr[t].get("dbg_state"), st, "cycle {t}");
    }
    assert_eq!(
        (
            tr[30].get("dbg_pst_valid"),
            tr[30].get("dbg_pst_pc"),
            tr[30].get("dbg_pst_lock")
        ),
        (1, 10, 0b0001)
    );
    for t in (0..50).filter(|&t| t != 30) {
        assert_eq!(tr[t].get("dbg_pst_valid"), 0, "cycle {t}");
    }
    // The barrier actions, the release and the fused pick.
    assert_eq!(
        (
            tr[29].get("act_valid"),
            tr[29].get("act_sw"),
            tr[29].get("act_hit")
        ),
        (1, 0, 0)
    );
    assert_eq!(
        (
            tr[30].get("act_valid"),
            tr[30].get("act_sw"),
            tr[30].get("act_mismatch")
        ),
        (1, 2, 0)
    );
    assert_eq!(tr[29].get("rel"), 0);
    assert_eq!(tr[30].get("rel"), 1);
    assert_eq!(
        (
            tr[30].get("nxt_valid"),
            tr[30].get("nxt_sw"),
            tr[30].get("nxt_fused")
        ),
        (1, 0, 1)
    );
    for (t, o) in tr.iter().enumerate() {
        assert_eq!(o.get("rel_d4"), 0, "cycle {t}");
        assert_eq!(o.get("dbg_ilt_valid"), 0, "cycle {t}");
        if t != 29 && t != 30 {
            assert_eq!(o.get("act_valid"), 0, "cycle {t}");
        }
    }
    // Round-robin pointer (the last issued sub-warp; 3 = N − 1 after reset).
    for (t, ptr) in [
        (0, 3),
        (1, 3),
        (2, 0),
        (21, 1),
        (22, 2),
        (23, 0),
        (26, 0),
        (30, 0),
        (31, 2),
        (32, 2),
        (40, 2),
        (49, 2),
    ] {
        assert_eq!(tr[t].get("dbg_ptr"), ptr, "cycle {t}");
    }
}

#[test]
fn s1_same_program_without_barrier_done_at_51() {
    let cfg = config(&["threads=32", "group_size=4", "bar_lat=1"]);
    let mut env = bfs_env(false);
    let Some(tr) = run(&cfg, &mut env, bits(0..3), 53) else {
        return;
    };
    let (a, c) = (Some(0), Some(2));
    let got = issued(&tr);
    assert_eq!(got[29], a);
    assert_eq!(got[30], c);
    assert_eq!(&got[39..=42], &[a, a, a, a]);
    assert_eq!(&got[48..=51], &[c, c, c, c]);
    let completion = tr.iter().rposition(|o| o.get("issue_valid") == 1).unwrap();
    assert_eq!(completion, 51);
    let idle: Vec<usize> = (1..=51).filter(|&t| tr[t].get("slot_busy") == 0).collect();
    let want: Vec<usize> = (31..=38).chain(43..=47).collect();
    assert_eq!(idle, want);
    assert_eq!(51 - idle.len(), 38);
    assert!(tr
        .iter()
        .all(|o| o.get("issue_fused") == 0 && o.get("act_valid") == 0));
}

#[test]
fn s13_bar_lat_24_fused_load_at_54_done_at_71() {
    let cfg = config(&["threads=32", "group_size=4", "bar_lat=24"]);
    let mut env = bfs_env(true);
    let Some(tr) = run(&cfg, &mut env, bits(0..3), 73) else {
        return;
    };
    let got = issued(&tr);
    assert_eq!((got[29], got[30]), (Some(0), Some(2)));
    assert!(got[31..54].iter().all(|x| x.is_none()));
    // A's barrier travels the pipeline and acts at the end of 52, C's at 53.
    assert_eq!((tr[52].get("act_valid"), tr[52].get("act_sw")), (1, 0));
    assert_eq!((tr[53].get("act_valid"), tr[53].get("act_sw")), (1, 2));
    assert_eq!(tr[53].get("rel"), 1);
    assert_eq!(tr[52].get("rel"), 0);
    // Stage k of the pipeline holds the barrier issued k cycles ago.
    assert_eq!(tr[40].field("dbg_pipe_valid", 0, 1), 0);
    assert_eq!(tr[40].get("dbg_pipe_valid"), 0b11 << 9); // A at stage 11, C at stage 10
    assert_eq!(tr[40].field("dbg_pipe_sw", 10, 2), 0);
    assert_eq!(tr[40].field("dbg_pipe_sw", 9, 2), 2);
    assert_eq!(tr[40].field("dbg_pipe_pc", 10, 32), 10);
    let f = &tr[54];
    assert_eq!(
        (
            f.get("issue_fused"),
            f.get("issue_members"),
            f.get("issue_pc")
        ),
        (1, 0b0101, 11)
    );
    let completion = tr.iter().rposition(|o| o.get("issue_valid") == 1).unwrap();
    assert_eq!(completion, 71);
    let slots = (0..=71).filter(|&t| tr[t].get("slot_busy") == 1).count();
    assert_eq!((slots, 71 - slots), (40, 31));
}

/// The valid ILT entries as (entry, tag), entry = set · ways + way.
fn ilt_entries(cfg: &DwrConfig, o: &Outs) -> Vec<(usize, u64)> {
    let tb = cfg.ilt.tag_bits();
    (0..cfg.ilt.entries())
        .filter(|&e| o.bit("dbg_ilt_valid", e))
        .map(|e| (e, o.field("dbg_ilt_tag", e, tb)))
        .collect()
}

/// The run drained: every sub-warp EMPTY, no PST row, nothing in flight.
fn assert_drained(cfg: &DwrConfig, o: &Outs) {
    let n = cfg.geometry.subwarps();
    for s in 0..n {
        assert_eq!(o.field("dbg_state", s, 3), EMPTY, "sub-warp {s} not EMPTY");
    }
    assert!(o.is_zero("dbg_pst_valid"), "a PST row is still valid");
    assert!(o.is_zero("dbg_pipe_valid"));
}

/// Alg. 5-2(a) (§4.7, S5): sw0 runs 0, P2, ld, P4, ld, exit; sw1 runs 0, P4, ld, exit.
fn alg52a() -> Vec<Vec<Inst>> {
    vec![
        prog(&[
            (ALU, 0),
            (BARP, 1),
            (LONG, 2),
            (BARP, 3),
            (LONG, 4),
            (EXIT, 5),
        ]),
        prog(&[(ALU, 0), (BARP, 3), (LONG, 4), (EXIT, 5)]),
    ]
}

#[test]
fn s5_alg_5_2a_sw0_first_learns_p4() {
    let cfg = config(&["threads=16", "group_size=2", "bar_lat=1"]);
    let mut env = Env::new(2, 2, 8, 32, alg52a());
    env.service = 3;
    let Some(tr) = run(&cfg, &mut env, bits(0..2), 30) else {
        return;
    };
    let act = |t: usize| {
        let o = &tr[t];
        (
            o.get("act_valid"),
            o.get("act_sw"),
            o.get("act_hit"),
            o.get("act_mismatch"),
        )
    };
    assert_eq!(act(3), (1, 0, 0, 0));
    assert_eq!(
        (
            tr[4].get("dbg_pst_valid"),
            tr[4].get("dbg_pst_pc"),
            tr[4].get("dbg_pst_lock")
        ),
        (1, 1, 0b01)
    );
    assert_eq!(act(4), (1, 1, 0, 1));
    assert_eq!(tr[4].get("rel"), 1);
    assert_eq!((tr[4].get("nxt_sw"), tr[4].get("nxt_fused")), (0, 1));
    // P4 (PC 3) is learned: set 3 (= 3 mod 4), way 0, tag 0.
    assert_eq!(ilt_entries(&cfg, &tr[5]), vec![(3 * 8, 0)]);
    // Two separate bundles: sw0's load at 2, then sw1's at 4.
    for (t, members, pc) in [(5, 0b01, 2), (6, 0b10, 4)] {
        let o = &tr[t];
        assert_eq!(
            (
                o.get("issue_fused"),
                o.get("issue_members"),
                o.get("issue_size"),
                o.get("issue_pc")
            ),
            (1, members, 1, pc),
            "cycle {t}"
        );
    }
    // sw0 later passes P4 by the ILT: a hit, no PST change, its load issues alone.
    let later: Vec<usize> = (7..30).filter(|&t| tr[t].get("act_valid") == 1).collect();
    assert_eq!(later.len(), 1);
    let t = later[0];
    assert_eq!(act(t), (1, 0, 1, 0));
    assert_eq!(tr[t + 1].get("dbg_pst_valid"), 0);
    assert_eq!(tr[t + 1].field("dbg_state", 0, 3), READY);
    let loads: Vec<usize> = (t..30)
        .filter(|&u| tr[u].get("issue_valid") == 1 && tr[u].get("issue_pc") == 4)
        .collect();
    assert_eq!(loads.len(), 1);
    assert_eq!(tr[loads[0]].get("issue_fused"), 0);
    assert_eq!(ilt_entries(&cfg, &tr[29]), vec![(24, 0)]);
    assert_drained(&cfg, &tr[29]);
}

#[test]
fn s5_alg_5_2a_reverse_order_learns_p2() {
    let cfg = config(&["threads=16", "group_size=2", "bar_lat=1"]);
    let mut env = Env::new(2, 2, 8, 32, alg52a());
    env.service = 3;
    env.ready.insert(0, bits([1]));
    env.ready.insert(1, bits([1]));
    let Some(tr) = run(&cfg, &mut env, bits(0..2), 30) else {
        return;
    };
    assert_eq!(issued(&tr)[1..=4], [Some(1), Some(1), Some(0), Some(0)]);
    assert_eq!(
        (
            tr[3].get("dbg_pst_valid"),
            tr[3].get("dbg_pst_pc"),
            tr[3].get("dbg_pst_lock")
        ),
        (1, 3, 0b10)
    );
    assert_eq!(
        (
            tr[4].get("act_sw"),
            tr[4].get("act_mismatch"),
            tr[4].get("rel")
        ),
        (0, 1, 1)
    );
    // P2 (PC 1) is learned: set 1, tag 0.
    assert_eq!(ilt_entries(&cfg, &tr[5]), vec![(8, 0)]);
    assert_eq!(
        (tr[5].get("issue_members"), tr[5].get("issue_pc")),
        (0b10, 4)
    );
    assert_eq!(
        (tr[6].get("issue_members"), tr[6].get("issue_pc")),
        (0b01, 2)
    );
    // sw0 reaches P4 after sw1 exited: the row opens and releases in one cycle.
    let t = (7..30).find(|&t| tr[t].get("act_valid") == 1).unwrap();
    assert_eq!(
        (
            tr[t].get("act_sw"),
            tr[t].get("act_mismatch"),
            tr[t].get("rel")
        ),
        (0, 0, 1)
    );
    assert_eq!(tr[t].field("dbg_state", 1, 3), EMPTY);
    assert_eq!(tr[t + 1].get("dbg_pst_valid"), 0);
    let f = &tr[t + 1];
    assert_eq!(
        (
            f.get("issue_fused"),
            f.get("issue_members"),
            f.get("issue_size"),
            f.get("issue_pc")
        ),
        (1, 0b01, 1, 4)
    );
    assert_eq!(ilt_entries(&cfg, &tr[29]), vec![(8, 0)]);
    assert_drained(&cfg, &tr[29]);
}

/// Alg. 5-2(b) (S6): sw0 runs 0, P2, ld, bar.sync, exit; sw1 runs 0, bar.sync, exit.
fn alg52b(d4_learn: bool) -> Option<(DwrConfig, Vec<Outs>)> {
    let learn = format!("d4_learn={d4_learn}");
    let cfg = config(&["threads=16", "group_size=2", "bar_lat=1", &learn]);
    let programs = vec![
        prog(&[(ALU, 0), (BARP, 1), (LONG, 2), (BSYNC, 3), (EXIT, 4)]),
        prog(&[(ALU, 0), (BSYNC, 3), (EXIT, 4)]),
    ];
    let mut env = Env::new(2, 2, 8, 32, programs);
    env.service = 3;
    let tr = run(&cfg, &mut env, bits(0..2), 25)?;
    Some((cfg, tr))
}

#[test]
fn s6_alg_5_2b_d4_release_and_learning() {
    for learn in [true, false] {
        let Some((cfg, tr)) = alg52b(learn) else {
            return;
        };
        assert_eq!((tr[3].get("act_sw"), tr[3].get("rel")), (0, 0));
        // sw1 blocks in __syncthreads at 4: the row releases by rule D4.
        assert_eq!(
            (tr[4].get("issue_sw"), tr[4].get("rel"), tr[4].get("rel_d4")),
            (1, 1, 1)
        );
        assert_eq!(tr[5].get("dbg_state"), (WAIT_BLOCKBAR << 3) | COMBINE_READY);
        let f = &tr[5];
        assert_eq!(
            (
                f.get("issue_fused"),
                f.get("issue_members"),
                f.get("issue_pc")
            ),
            (1, 0b01, 2)
        );
        // D4 learning inserts the row PC (P2 = PC 1: set 1, tag 0).
        let want = if learn { vec![(8, 0)] } else { vec![] };
        assert_eq!(ilt_entries(&cfg, &tr[5]), want, "d4_learn={learn}");
        assert_eq!(ilt_entries(&cfg, &tr[24]), want, "d4_learn={learn}");
        // sw1 stayed WAIT_BLOCKBAR through the release; both leave after the block barrier.
        assert!((5..8).all(|t| tr[t].field("dbg_state", 1, 3) == WAIT_BLOCKBAR));
        assert_drained(&cfg, &tr[24]);
    }
}

#[test]
fn s7_alg_5_3_divergent_syncthreads_leave_dwr_alone() {
    let cfg = config(&["threads=16", "group_size=2", "bar_lat=1"]);
    let programs = vec![
        prog(&[(ALU, 0), (BSYNC, 2), (EXIT, 5)]),
        prog(&[(ALU, 0), (ALU, 3), (BSYNC, 4), (EXIT, 5)]),
    ];
    let mut env = Env::new(2, 2, 8, 32, programs);
    let Some(tr) = run(&cfg, &mut env, bits(0..2), 15) else {
        return;
    };
    for (t, o) in tr.iter().enumerate() {
        assert_eq!((o.get("rel"), o.get("act_valid")), (0, 0), "cycle {t}");
        assert!(
            o.is_zero("dbg_pst_valid") && o.is_zero("dbg_ilt_valid"),
            "cycle {t}"
        );
    }
    assert!(tr
        .iter()
        .any(|o| o.get("dbg_state") == (WAIT_BLOCKBAR << 3 | WAIT_BLOCKBAR)));
    assert_drained(&cfg, &tr[14]);
}

/// Every sub-warp of `subwarps` runs P at `p`, the load at `p + 1`, then exits.
fn p_ld_exit(subwarps: usize, p: u64) -> Vec<Vec<Inst>> {
    (0..subwarps)
        .map(|_| prog(&[(BARP, p), (LONG, p + 1), (EXIT, p + 2)]))
        .collect()
}

#[test]
fn s2_full_group_of_eight_one_bundle() {
    let cfg = config(&["threads=64", "group_size=8", "bar_lat=1"]);
    let mut env = Env::new(8, 8, 8, 32, p_ld_exit(8, 0));
    let Some(tr) = run(&cfg, &mut env, bits(0..8), 30) else {
        return;
    };
    // End-of-cycle lock vector 0x01 … 0x7F, then 0x00: the eighth arrival releases at once.
    for c in 1..=7u64 {
        assert_eq!(tr[c as usize + 1].get("dbg_pst_lock"), (1 << c) - 1);
    }
    assert_eq!(tr[8].get("rel"), 1);
    assert_eq!(
        (tr[9].get("dbg_pst_valid"), tr[9].get("dbg_pst_lock")),
        (0, 0)
    );
    let f = &tr[9];
    assert_eq!(
        (
            f.get("issue_fused"),
            f.get("issue_members"),
            f.get("issue_size"),
            f.get("issue_pc")
        ),
        (1, 0xFF, 8, 1)
    );
    assert_eq!(f.get("issue_mask"), u64::MAX);
    assert!((9..=16).all(|t| tr[t].get("slot_busy") == 1));
    assert!((10..=16).all(|t| tr[t].get("issue_valid") == 0));
    assert_eq!(tr[10].get("dbg_hold"), 7);
    assert_eq!(tr[16].get("dbg_hold"), 1);
    assert_eq!(tr[17].get("dbg_hold"), 0);
    assert_drained(&cfg, &tr[29]);
}

#[test]
fn s3_partial_group_of_five_masks_the_short_subwarp() {
    let cfg = config(&["threads=128", "group_size=8", "bar_lat=1"]);
    let mut env = Env::new(16, 8, 8, 32, p_ld_exit(13, 0));
    env.masks[12] = 0x0F; // 100 threads: sub-warp 12 has 4
    let Some(tr) = run(&cfg, &mut env, bits(0..13), 60) else {
        return;
    };
    let t = (0..60).find(|&t| tr[t].get("rel") & 0b10 != 0).unwrap();
    assert_eq!(
        tr[t].get("act_sw"),
        12,
        "group 1 releases at its fifth valid arrival"
    );
    let b = tr
        .iter()
        .find(|o| o.get("issue_fused") == 1 && o.get("issue_group") == 1)
        .unwrap();
    assert_eq!((b.get("issue_members"), b.get("issue_size")), (0b11111, 5));
    assert_eq!(b.get("issue_mask"), 0xF_FFFF_FFFF);
    assert_drained(&cfg, &tr[59]);
}

#[test]
fn s4_exit_alone_releases_the_group() {
    let cfg = config(&["threads=64", "group_size=8", "bar_lat=1"]);
    let mut programs = p_ld_exit(7, 0);
    programs.push(prog(&[(ALU, 0), (EXIT, 1)]));
    let mut env = Env::new(8, 8, 8, 32, programs);
    let Some(tr) = run(&cfg, &mut env, bits(0..8), 30) else {
        return;
    };
    assert_eq!(issued(&tr)[1..=9], [0, 1, 2, 3, 4, 5, 6, 7, 7].map(Some));
    assert_eq!((tr[9].get("rel"), tr[9].get("act_valid")), (1, 0));
    assert_eq!((tr[9].get("nxt_sw"), tr[9].get("nxt_fused")), (0, 1));
    let f = &tr[10];
    assert_eq!((f.get("issue_members"), f.get("issue_size")), (0x7F, 7));
    assert!((10..=16).all(|t| tr[t].get("slot_busy") == 1));
    assert!(tr.iter().all(|o| o.is_zero("dbg_ilt_valid")));
    assert_drained(&cfg, &tr[29]);
}

#[test]
fn s8_ilt_bypass_leaves_the_pst_alone() {
    let cfg = config(&["threads=16", "group_size=2", "bar_lat=1"]);
    let programs = vec![
        prog(&[(BARP, 5), (LONG, 6), (BARP, 9), (LONG, 10), (EXIT, 11)]),
        prog(&[(BARP, 9), (LONG, 10), (BARP, 9), (LONG, 10), (EXIT, 11)]),
    ];
    let mut env = Env::new(2, 2, 8, 32, programs);
    env.service = 3;
    let Some(tr) = run(&cfg, &mut env, bits(0..2), 40) else {
        return;
    };
    // Episode 1: row PC 5, sw1 at P@9 mismatches and teaches the ILT PC 9.
    assert_eq!((tr[2].get("act_sw"), tr[2].get("act_mismatch")), (1, 1));
    let acts: Vec<usize> = (3..40).filter(|&t| tr[t].get("act_valid") == 1).collect();
    assert_eq!(acts.len(), 2);
    for &t in &acts {
        assert_eq!(tr[t].get("act_hit"), 1, "cycle {t}");
        assert_eq!(tr[t].get("rel"), 0, "cycle {t}");
    }
    for t in 3..40 {
        assert_eq!(tr[t].get("dbg_pst_valid"), 0, "cycle {t}");
    }
    // The loads after the bypass issue alone, unfused.
    let last_loads: Vec<usize> = (acts[0]..40)
        .filter(|&t| tr[t].get("issue_valid") == 1 && tr[t].get("issue_pc") == 10)
        .collect();
    assert_eq!(last_loads.len(), 2);
    assert!(last_loads.iter().all(|&t| tr[t].get("issue_fused") == 0));
    assert_drained(&cfg, &tr[39]);
}

#[test]
fn s9_ilt_fifo_eviction_and_relearning() {
    let cfg = config(&["threads=16", "group_size=2", "bar_lat=1"]);
    // Ten episodes: sw0 opens the row at P@1 (set 1), sw1 arrives at P@4i (set 0, tag i),
    // i = 1 … 9, then P@4 again.
    let mut p0 = vec![];
    let mut p1 = vec![];
    for i in (1..=9).chain([1]) {
        p0.extend([(BARP, 1), (LONG, 2)]);
        p1.extend([(BARP, 4 * i), (LONG, 4 * i + 1)]);
    }
    p0.push((EXIT, 3));
    p1.push((EXIT, 3));
    let mut env = Env::new(2, 2, 8, 32, vec![prog(&p0), prog(&p1)]);
    env.service = 2;
    let Some(tr) = run(&cfg, &mut env, bits(0..2), 200) else {
        return;
    };
    let mismatches: Vec<usize> = (0..200)
        .filter(|&t| tr[t].get("act_mismatch") == 1)
        .collect();
    assert_eq!(mismatches.len(), 10);
    assert!(mismatches.iter().all(|&t| tr[t].get("act_sw") == 1));
    assert!((0..200).all(|t| tr[t].get("act_hit") == 0));
    let set0 = |o: &Outs| -> Vec<u64> {
        (0..8)
            .map(|v| {
                if o.bit("dbg_ilt_valid", v) {
                    o.field("dbg_ilt_tag", v, 30)
                } else {
                    0
                }
            })
            .collect()
    };
    // After eight inserts set 0 is full in insertion order; the ninth (tag 9) evicts way 0.
    let after = |k: usize| &tr[mismatches[k] + 1];
    assert_eq!(set0(after(7)), vec![1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(after(7).field("dbg_ilt_ptr", 0, 3), 0);
    assert_eq!(set0(after(8)), vec![9, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(after(8).field("dbg_ilt_ptr", 0, 3), 1);
    // PC 4 was evicted: it re-synchronizes, mismatches again and is re-learned in way 1.
    assert_eq!(set0(after(9)), vec![9, 1, 3, 4, 5, 6, 7, 8]);
    assert_eq!(after(9).field("dbg_ilt_ptr", 0, 3), 2);
    assert_drained(&cfg, &tr[199]);
}

#[test]
fn s10_lone_subwarp_released_after_bar_lat() {
    let cfg = config(&["threads=64", "group_size=8", "bar_lat=24"]);
    let mut env = Env::new(8, 8, 8, 32, vec![prog(&[(BARP, 5), (LONG, 6), (EXIT, 7)])]);
    let Some(tr) = run(&cfg, &mut env, bits([0]), 45) else {
        return;
    };
    assert_eq!(issued(&tr)[1], Some(0));
    assert!((1..24).all(|t| tr[t].get("act_valid") == 0));
    assert_eq!((tr[24].get("act_valid"), tr[24].get("rel")), (1, 1));
    assert!(issued(&tr)[2..25].iter().all(|x| x.is_none()));
    let f = &tr[25];
    assert_eq!(
        (
            f.get("issue_fused"),
            f.get("issue_members"),
            f.get("issue_size"),
            f.get("issue_pc")
        ),
        (1, 1, 1, 6)
    );
    assert_drained(&cfg, &tr[44]);
}

#[test]
fn s11_three_pcs_in_one_episode() {
    for slices in ["members", "one"] {
        let fs = format!("fused_slices={slices}");
        let cfg = config(&["threads=64", "group_size=8", "bar_lat=1", &fs]);
        let programs: Vec<Vec<Inst>> = [4, 4, 8, 12, 8]
            .iter()
            .map(|&p| prog(&[(BARP, p), (LONG, p + 1), (EXIT, p + 2)]))
            .collect();
        let mut env = Env::new(8, 8, 8, 32, programs);
        env.service = 3;
        let Some(tr) = run(&cfg, &mut env, bits(0..5), 30) else {
            return;
        };
        assert_eq!((tr[3].get("act_sw"), tr[3].get("act_mismatch")), (2, 1));
        assert_eq!((tr[4].get("act_sw"), tr[4].get("act_mismatch")), (3, 1));
        assert_eq!((tr[5].get("act_sw"), tr[5].get("act_hit")), (4, 1));
        assert_eq!((issued(&tr)[6], tr[6].get("issue_fused")), (Some(4), 0));
        assert_eq!((issued(&tr)[10], tr[10].get("rel")), (Some(4), 1));
        // PCs 8 (set 0, tag 2) and 12 (set 0, tag 3) were learned; the row PC 4 was not.
        assert_eq!(ilt_entries(&cfg, &tr[11]), vec![(0, 2), (1, 3)]);
        let second = if slices == "members" { 13 } else { 12 };
        for (t, members, pc) in [(11, 0b11, 5), (second, 0b100, 9), (second + 1, 0b1000, 13)] {
            let o = &tr[t];
            assert_eq!(
                (
                    o.get("issue_fused"),
                    o.get("issue_members"),
                    o.get("issue_pc")
                ),
                (1, members, pc),
                "{slices}, cycle {t}"
            );
        }
        assert_eq!(tr[12].get("slot_busy"), 1);
        assert_drained(&cfg, &tr[29]);
    }
}

#[test]
fn s12_grid_start_flushes_the_ilt_unless_persistent() {
    for flush in [true, false] {
        let knob = format!("ilt_flush={flush}");
        let cfg = config(&["threads=16", "group_size=2", "bar_lat=1", &knob]);
        let mut env = Env::new(2, 2, 8, 32, alg52a());
        env.service = 3;
        env.extra.insert(25, vec![("grid_start", val(1))]);
        let Some(tr) = run(&cfg, &mut env, bits(0..2), 28) else {
            return;
        };
        assert_eq!(ilt_entries(&cfg, &tr[25]), vec![(24, 0)]);
        let want = if flush { vec![] } else { vec![(24, 0)] };
        assert_eq!(ilt_entries(&cfg, &tr[26]), want, "ilt_flush={flush}");
        assert_eq!(tr[26].get("dbg_ilt_ptr"), if flush { 0 } else { 1 << 9 });
    }
}

#[test]
fn s15_fused_members_wake_together() {
    let cfg = config(&["threads=64", "group_size=8", "bar_lat=1"]);
    let mut env = Env::new(8, 8, 8, 32, p_ld_exit(4, 0));
    let Some(tr) = run(&cfg, &mut env, bits(0..4), 30) else {
        return;
    };
    let f = (0..30).find(|&t| tr[t].get("issue_fused") == 1).unwrap();
    assert_eq!(tr[f].get("issue_members"), 0b1111);
    let woke = (f..30)
        .find(|&t| (0..4).any(|s| tr[t].field("dbg_state", s, 3) == READY))
        .unwrap();
    assert!((0..4).all(|s| tr[woke].field("dbg_state", s, 3) == READY));
}

#[test]
fn reset_mid_episode_returns_to_the_reset_state() {
    let cfg = config(&["threads=64", "group_size=8", "bar_lat=3"]);
    let mut env = Env::new(8, 8, 8, 32, p_ld_exit(8, 0));
    env.extra.insert(5, vec![("reset", val(1))]);
    let Some(tr) = run(&cfg, &mut env, bits(0..8), 7) else {
        return;
    };
    assert!(!tr[5].is_zero("dbg_pipe_valid") || !tr[5].is_zero("dbg_pst_valid"));
    let o = &tr[6];
    for port in [
        "dbg_state",
        "dbg_pst_valid",
        "dbg_pipe_valid",
        "dbg_ilt_valid",
        "dbg_hold",
    ] {
        assert!(o.is_zero(port), "{port}");
    }
    assert_eq!(
        (o.get("dbg_ptr"), o.get("issue_valid"), o.get("slot_busy")),
        (7, 0, 0)
    );
}
