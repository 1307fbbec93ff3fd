//! The `msap-arbiter` model: spec vectors A-1 … A-5, invariants under random stimulus on
//! several configurations (with every event seen), faults caught by a vector and by the
//! invariants, the request protocol flagged, reproducibility.

use warpforge_contract::units::msap_arbiter::{self, ArbiterConfig};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::harness::{self, first_failure, io_trace, run_vector};
use warpforge_testbench::msap_arbiter::{
    spec_vectors, ArbFault, MsapArbiterModel, MsapArbiterStimulus,
};
use warpforge_testbench::{Model, SpecVector};

fn cfg(sets: &[&str]) -> ArbiterConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(msap_arbiter::NAME, msap_arbiter::PARAMS, None, &sets).unwrap();
    ArbiterConfig::from_params(&p).unwrap()
}

fn vcfg(v: &SpecVector) -> ArbiterConfig {
    let s: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    cfg(&s)
}

#[test]
fn spec_vectors_pass_on_the_model() {
    let v = spec_vectors();
    assert!(v.len() >= 12);
    for v in &v {
        let c = vcfg(v);
        run_vector(&mut MsapArbiterModel::new(&c), &Layout::new(&c.ports()), v)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

fn fails_a_vector(fault: ArbFault) -> bool {
    spec_vectors().iter().any(|v| {
        let c = vcfg(v);
        let mut m = MsapArbiterModel::new(&c);
        m.inject_fault(Some(fault));
        harness::misses_an_expectation(&mut m, &Layout::new(&c.ports()), v)
    })
}

#[test]
fn faults_fail_a_spec_vector_and_the_invariants() {
    for fault in [ArbFault::SearchFromPtr, ArbFault::NoPointerMove] {
        assert!(fails_a_vector(fault), "{fault:?} passes every vector");
        // The invariants (I-6 / I-8) see it under random stimulus too.
        let c = cfg(&[]);
        let mut m = MsapArbiterModel::new(&c);
        m.inject_fault(Some(fault));
        let mut stim = MsapArbiterStimulus::new(&c, 4);
        let f = first_failure(&mut m, &mut stim, &Layout::new(&c.ports()), 200_000);
        assert!(f.is_some(), "{fault:?} keeps every invariant");
    }
}

#[test]
fn random_stimulus_keeps_every_invariant_and_covers_the_events() {
    for (sets, seed) in [
        (&[][..], 1),
        (&["rr_ptr=shared", "n=3", "pl_bits=1", "nlvl=2"][..], 2),
        (&["n=8", "nlvl=9", "age_thresh=4"][..], 3),
        (&["n=16", "pl_bits=4", "nlvl=17", "age_thresh=40"][..], 4),
        (&["msaa_en=false", "n=4"][..], 5),
    ] {
        let c = cfg(sets);
        let layout = Layout::new(&c.ports());
        let mut m = MsapArbiterModel::new(&c);
        let mut stim = MsapArbiterStimulus::new(&c, seed);
        assert_eq!(
            first_failure(&mut m, &mut stim, &layout, 300_000),
            None,
            "{sets:?}"
        );
        for (name, n) in m.events() {
            let expected = match name {
                "urgent_grants" => c.ageing(),
                "priority_wins" => c.msaa_en,
                _ => true,
            };
            assert_eq!(n > 0, expected, "{sets:?}: event {name} = {n}");
        }
    }
}

#[test]
fn a_withdrawn_request_is_flagged() {
    let c = cfg(&["n=2"]);
    let layout = Layout::new(&c.ports());
    let mut m = MsapArbiterModel::new(&c);
    let mut out = vec![0u64; layout.out_words];
    let ins = |req: u64, pl: u64, commit: u64| {
        let mut v = vec![0u64; layout.in_words];
        v[layout.input("req").unwrap().offset] = req;
        v[layout.input("pl").unwrap().offset] = pl;
        v[layout.input("commit").unwrap().offset] = commit;
        v
    };
    // Both request; 0 (PL 5) wins; 1 waits with PL 2.
    m.step(&ins(0b11, 5 | 2 << 3, 1), &mut out);
    assert_eq!(m.check_inputs(&ins(0b10, 2 << 3, 1)), Ok(()));
    let e = m.check_inputs(&ins(0b01, 2 << 3, 1)).unwrap_err();
    assert!(e.contains("requester 1 withdrew"), "{e}");
    let e = m.check_inputs(&ins(0b10, 4 << 3, 1)).unwrap_err();
    assert!(e.contains("changed its PL"), "{e}");
}

#[test]
fn same_seed_same_trace() {
    let c = cfg(&[]);
    let layout = Layout::new(&c.ports());
    let run = |seed| {
        io_trace(
            &mut MsapArbiterModel::new(&c),
            &mut MsapArbiterStimulus::new(&c, seed),
            &layout,
            3000,
        )
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
}
