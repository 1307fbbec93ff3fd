//! The `crown-barrier` model on its own: the spec vectors (C4, C5, C7, the one-sided branch),
//! constrained-random runs over several geometries with the invariants checked every cycle
//! and the corners counted, and faults that must be caught.

use warpforge_contract::params::Params;
use warpforge_contract::units::crown::Warp;
use warpforge_contract::units::crown_barrier::{self, BarrierConfig};
use warpforge_contract::Layout;
use warpforge_testbench::crown_barrier::{
    spec_vectors, BarrierFault, BarrierTable, CrownBarrierModel, CrownBarrierStimulus, Probe,
};
use warpforge_testbench::{harness, Model, SpecVector, Stimulus};

fn config(s: &[&str]) -> BarrierConfig {
    let s: Vec<String> = s.iter().map(|x| x.to_string()).collect();
    let p = Params::resolve(crown_barrier::NAME, crown_barrier::PARAMS, None, &s).unwrap();
    BarrierConfig::from_params(&p).unwrap()
}

fn run(v: &SpecVector, fault: Option<BarrierFault>) -> Result<(), String> {
    let sets: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    let cfg = config(&sets);
    let mut m = CrownBarrierModel::new(&cfg);
    m.inject_fault(fault);
    harness::run_vector(&mut m, &Layout::new(&cfg.ports()), v).map(|_| ())
}

#[test]
fn every_spec_vector_passes() {
    let vectors = spec_vectors();
    for v in &vectors {
        run(v, None).unwrap();
    }
    for want in ["C4", "C5", "C7", "one-sided"] {
        assert!(vectors.iter().any(|v| v.name.contains(want)), "{want}");
    }
}

#[test]
fn each_fault_fails_its_vector() {
    for (fault, vector) in [
        (BarrierFault::NoDedup, "C4"),
        (BarrierFault::ProbeBeforeReserve, "one-sided"),
        (BarrierFault::OneSetProbe, "C7"),
    ] {
        let v = spec_vectors()
            .into_iter()
            .find(|v| v.name.contains(vector))
            .unwrap();
        assert!(run(&v, Some(fault)).is_err(), "{fault:?} passes {vector}");
    }
}

/// The struct the `crown` top uses, without ports: C7 through `cycle`.
#[test]
fn barrier_struct_c7() {
    let cfg = config(&[]);
    let mut t = BarrierTable::new(&cfg);
    let warp = |thi: u64| Warp {
        pc: 0x30,
        lanes: 0xFF,
        thi: vec![thi; 8],
    };
    assert_eq!(t.cycle(Some(&warp(0)), None, false).allocated, vec![0]);
    assert_eq!(t.cycle(Some(&warp(9)), None, false).allocated, vec![8]);
    let p = Probe {
        lanes: 0xFF,
        pc: vec![0x30; 8],
        thi: vec![0, 0, 0, 0, 9, 9, 9, 9],
    };
    let o = t.cycle(None, Some(&p), false);
    assert_eq!((o.hit, o.arrived_in.clone()), (0xFF, vec![0, 8]));
    t.check().unwrap();
    assert_eq!((t.live(), t.used(), t.head()), (2, 2, None));
}

fn random(sets: &[&str], seed: u64, cycles: u64) -> Vec<(&'static str, u64)> {
    let cfg = config(sets);
    let layout = Layout::new(&cfg.ports());
    let mut m = CrownBarrierModel::new(&cfg);
    let mut s = CrownBarrierStimulus::new(&cfg, seed);
    let (mut i, mut o) = (vec![0u64; layout.in_words], vec![0u64; layout.out_words]);
    for c in 0..cycles {
        s.next(c, &o, &mut i);
        m.step(&i, &mut o);
        m.check_invariants()
            .unwrap_or_else(|e| panic!("{sets:?} seed {seed} cycle {c}: {e}: {}", m.state_line()));
    }
    m.events()
}

#[test]
fn random_runs_keep_the_invariants_and_reach_the_corners() {
    for sets in [
        &[][..],
        &["sets=4", "ways=2", "w=4", "threads=64"],
        &["sets=8", "ways=4", "w=16", "threads=512", "pc_bits=12"],
        &["sets=1", "ways=3", "w=8", "threads=64", "pc_bits=8"],
    ] {
        for seed in [1, 2] {
            let ev = random(sets, seed, 50_000);
            let get = |n: &str| ev.iter().find(|e| e.0 == n).unwrap().1;
            let mut need = vec![
                "reserves",
                "dedups",
                "alloc_fails",
                "arrivals",
                "completions",
                "drains",
                "same_cycle_absorbs",
                "multi_completions",
                "set_full_cycles",
            ];
            if !sets.contains(&"sets=1") {
                need.extend(["multi_set_reserves", "multi_set_arrivals"]);
            }
            for n in need {
                assert!(get(n) > 0, "{sets:?} seed {seed}: no {n}: {ev:?}");
            }
        }
    }
}

#[test]
fn a_wrong_table_breaks_lockstep_with_the_right_one() {
    for fault in [
        BarrierFault::NoDedup,
        BarrierFault::ProbeBeforeReserve,
        BarrierFault::OneSetProbe,
    ] {
        let cfg = config(&[]);
        let layout = Layout::new(&cfg.ports());
        let (mut good, mut bad) = (CrownBarrierModel::new(&cfg), CrownBarrierModel::new(&cfg));
        bad.inject_fault(Some(fault));
        let mut s = CrownBarrierStimulus::new(&cfg, 5);
        let mut i = vec![0u64; layout.in_words];
        let (mut og, mut ob) = (vec![0u64; layout.out_words], vec![0u64; layout.out_words]);
        let differs = (0..50_000).any(|c| {
            s.next(c, &og, &mut i);
            good.step(&i, &mut og);
            bad.step(&i, &mut ob);
            og != ob
        });
        assert!(differs, "{fault:?} never shows at the ports");
    }
}
