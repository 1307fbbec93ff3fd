//! The `msap-pl` model: the §4.1 vectors, I-1 under random stimulus on several
//! configurations (every event seen), faults caught by a vector and by the invariant, a fill
//! of an empty table flagged, reproducibility.

use warpforge_contract::units::msap_pl::{self, PlConfig};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::harness::{self, first_failure, io_trace, run_vector};
use warpforge_testbench::msap_pl::{spec_vectors, MsapPlModel, MsapPlStimulus, PlFault};
use warpforge_testbench::{Model, SpecVector};

fn cfg(sets: &[&str]) -> PlConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(msap_pl::NAME, msap_pl::PARAMS, None, &sets).unwrap();
    PlConfig::from_params(&p).unwrap()
}

fn vcfg(v: &SpecVector) -> PlConfig {
    let s: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    cfg(&s)
}

#[test]
fn spec_vectors_pass_on_the_model() {
    for v in &spec_vectors() {
        let c = vcfg(v);
        run_vector(&mut MsapPlModel::new(&c), &Layout::new(&c.ports()), v)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn faults_fail_a_spec_vector() {
    for fault in [PlFault::CountMerges, PlFault::NoLag] {
        let caught = spec_vectors().iter().any(|v| {
            let c = vcfg(v);
            let mut m = MsapPlModel::new(&c);
            m.inject_fault(Some(fault));
            harness::misses_an_expectation(&mut m, &Layout::new(&c.ports()), v)
        });
        assert!(caught, "{fault:?} passes every vector");
    }
    // I-1 sees the missing lag.
    let c = cfg(&[]);
    let mut m = MsapPlModel::new(&c);
    m.inject_fault(Some(PlFault::NoLag));
    let mut stim = MsapPlStimulus::new(&c, 1);
    let f = first_failure(&mut m, &mut stim, &Layout::new(&c.ports()), 10_000);
    assert!(f.as_ref().is_some_and(|f| f.contains("I-1")), "{f:?}");
}

#[test]
fn random_stimulus_keeps_i1_and_covers_the_events() {
    for (sets, seed) in [
        (&[][..], 1),
        (&["mshr_entries=4", "pl_bits=2", "pl_shift=0"][..], 2),
        (&["mshr_entries=200", "pl_bits=4", "pl_shift=3"][..], 3),
        (&["mshr_entries=1", "pl_bits=1", "pl_shift=0"][..], 4),
    ] {
        let c = cfg(sets);
        let layout = Layout::new(&c.ports());
        let mut m = MsapPlModel::new(&c);
        let mut stim = MsapPlStimulus::new(&c, seed);
        assert_eq!(
            first_failure(&mut m, &mut stim, &layout, 300_000),
            None,
            "{sets:?}"
        );
        for (name, n) in m.events() {
            // One entry: an allocation needs it free, a fill needs it valid.
            let possible = name != "alloc_and_fill" || c.mshr_entries > 1;
            assert_eq!(n > 0, possible, "{sets:?}: event {name} = {n}");
        }
    }
}

#[test]
fn a_fill_of_an_empty_table_is_flagged() {
    let c = cfg(&[]);
    let layout = Layout::new(&c.ports());
    let mut m = MsapPlModel::new(&c);
    let mut ins = vec![0u64; layout.in_words];
    ins[layout.input("fill").unwrap().offset] = 1;
    let e = m.check_inputs(&ins).unwrap_err();
    assert!(e.contains("port fill"), "{e}");
    let mut out = vec![0u64; layout.out_words];
    m.step(&ins, &mut out);
    assert!(m
        .check_invariants()
        .unwrap_err()
        .contains("fill with no valid"));
}

#[test]
fn same_seed_same_trace() {
    let c = cfg(&[]);
    let layout = Layout::new(&c.ports());
    let run = |seed| {
        io_trace(
            &mut MsapPlModel::new(&c),
            &mut MsapPlStimulus::new(&c, seed),
            &layout,
            3000,
        )
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
}
