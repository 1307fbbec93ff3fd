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
