//! The `crown-lookup` model on its own: the spec vectors (C3, C6 and the contract's corners),
//! constrained-random runs over several configurations with the invariants and the input
//! protocol checked every cycle and the corners counted, and faults that must be caught.

use warpforge_contract::params::Params;
use warpforge_contract::units::crown::Warp;
use warpforge_contract::units::crown_lookup::{self, LookupConfig};
use warpforge_contract::Layout;
use warpforge_testbench::crown_lookup::{
    spec_vectors, CrownLookupModel, CrownLookupStimulus, LookupFault, ReadyLookup,
};
use warpforge_testbench::{harness, Model, SpecVector, Stimulus};

fn config(s: &[&str]) -> LookupConfig {
    let s: Vec<String> = s.iter().map(|x| x.to_string()).collect();
    let p = Params::resolve(crown_lookup::NAME, crown_lookup::PARAMS, None, &s).unwrap();
    LookupConfig::from_params(&p).unwrap()
}

fn run(v: &SpecVector, fault: Option<LookupFault>) -> Result<(), String> {
    let sets: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    let cfg = config(&sets);
    let mut m = CrownLookupModel::new(&cfg);
    m.inject_fault(fault);
    harness::run_vector(&mut m, &Layout::new(&cfg.ports()), v).map(|_| ())
}

#[test]
fn every_spec_vector_passes() {
    let vectors = spec_vectors();
    for v in &vectors {
        run(v, None).unwrap();
    }
    for want in ["C3", "C6", "bypass when full", "oldest-ready"] {
        assert!(vectors.iter().any(|v| v.name.contains(want)), "{want}");
    }
}

#[test]
fn faulty_tables_fail_the_vectors() {
    for fault in [
        LookupFault::HighestRow,
        LookupFault::MergeIntoDrained,
        LookupFault::CtaBlind,
    ] {
        assert!(
            spec_vectors().iter().any(|v| run(v, Some(fault)).is_err()),
            "{fault:?} passes every vector"
        );
    }
}

/// The struct the `crown` top uses, without ports: C3's rows.
#[test]
fn ready_lookup_struct_c3() {
    let cfg = config(&[]);
    let mut t = ReadyLookup::new(&cfg);
    let warp = |pc, lanes, thi| Warp {
        pc,
        lanes,
        thi: vec![thi; 8],
    };
    for (pc, lanes, thi) in [
        (0x40, 0x0F, 0),
        (0x40, 0x3C, 1),
        (0x80, 0xFF, 2),
        (0x40, 0xC4, 3),
    ] {
        let o = t.cycle([Some(&warp(pc, lanes, thi)), None], false);
        assert!(o.bypass[0].is_none());
        t.check().unwrap();
    }
    let rows: Vec<(u64, u64)> = t
        .rows()
        .iter()
        .filter(|r| r.valid)
        .map(|r| (r.pc, r.lanes))
        .collect();
    assert_eq!(
        rows,
        vec![(0x40, 0xFF), (0x40, 0x0C), (0x80, 0xFF), (0x40, 0x04)]
    );
    assert_eq!(t.rows()[0].thi, vec![0, 0, 0, 0, 1, 1, 3, 3]);
    assert_eq!(t.head(), Some(0));
    let o = t.cycle([None, None], true);
    assert_eq!(o.drained.map(|w| w.lanes), Some(0xFF));
    assert_eq!(t.head(), Some(1));
}

/// Random runs with every cycle's inputs checked against the protocol and the invariants
/// checked; returns the event counters.
fn random(sets: &[&str], seed: u64, cycles: u64) -> Vec<(&'static str, u64)> {
    let cfg = config(sets);
    let layout = Layout::new(&cfg.ports());
    let mut m = CrownLookupModel::new(&cfg);
    let mut s = CrownLookupStimulus::new(&cfg, seed);
    let (mut i, mut o) = (vec![0u64; layout.in_words], vec![0u64; layout.out_words]);
    for c in 0..cycles {
        s.next(c, &o, &mut i);
        m.check_inputs(&i)
            .unwrap_or_else(|e| panic!("{sets:?} seed {seed} cycle {c}: {e}"));
        m.step(&i, &mut o);
        m.check_invariants()
            .unwrap_or_else(|e| panic!("{sets:?} seed {seed} cycle {c}: {e}: {}", m.state_line()));
    }
    m.events()
}

#[test]
fn random_runs_keep_the_invariants_and_reach_the_corners() {
    for sets in [
        &["kind=ready"][..],
        &["kind=ready", "rows=4", "w=4", "threads=64"],
        &["kind=ready", "rows=16", "w=16", "threads=512", "pc_bits=12"],
        &["kind=waiting"],
        &["kind=waiting", "rows=2", "w=4", "threads=32", "pc_bits=8"],
        &["kind=waiting", "rows=16", "w=16"],
    ] {
        for seed in [1, 2] {
            let ev = random(sets, seed, 60_000);
            let get = |n: &str| ev.iter().find(|e| e.0 == n).unwrap().1;
            let ready = sets.contains(&"kind=ready");
            let need: &[&str] = if ready {
                &[
                    "inserts",
                    "merges",
                    "allocations",
                    "bypasses",
                    "drains",
                    "full_cycles",
                    "second_into_first",
                    "drain_with_same_pc",
                    "cta_scoped_cycles",
                    "kept_apart",
                ]
            } else {
                &[
                    "inserts",
                    "merges",
                    "allocations",
                    "refused",
                    "completions",
                    "became_ready",
                    "drains",
                    "full_cycles",
                    "cta_scoped_cycles",
                    "kept_apart",
                ]
            };
            for n in need {
                assert!(get(n) > 0, "{sets:?} seed {seed}: no {n}: {ev:?}");
            }
        }
    }
}

#[test]
fn a_wrong_table_breaks_lockstep_with_the_right_one() {
    for (sets, fault) in [
        (&["kind=ready"][..], LookupFault::HighestRow),
        (&["kind=ready"][..], LookupFault::MergeIntoDrained),
        (&["kind=waiting"][..], LookupFault::HighestRow),
        (&["kind=ready"][..], LookupFault::CtaBlind),
        (&["kind=waiting"][..], LookupFault::CtaBlind),
    ] {
        let cfg = config(sets);
        let layout = Layout::new(&cfg.ports());
        let (mut good, mut bad) = (CrownLookupModel::new(&cfg), CrownLookupModel::new(&cfg));
        bad.inject_fault(Some(fault));
        let mut s = CrownLookupStimulus::new(&cfg, 5);
        let mut i = vec![0u64; layout.in_words];
        let (mut og, mut ob) = (vec![0u64; layout.out_words], vec![0u64; layout.out_words]);
        let differs = (0..50_000).any(|c| {
            s.next(c, &og, &mut i);
            good.step(&i, &mut og);
            bad.step(&i, &mut ob);
            og != ob
        });
        assert!(differs, "{sets:?} {fault:?} never shows at the ports");
    }
}
