//! The `msap-mc` model: vectors M-1 … M-4, I-7 / I-8 / I-13 under random stimulus on several
//! configurations (every event seen where the configuration allows it), faults caught by a
//! vector and by the invariants, a random run against a stable-sort reference of §2.8 kept
//! here, reproducibility.

use warpforge_contract::units::msap_mc::{self, McConfig};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::harness::{self, first_failure, io_trace, run_vector};
use warpforge_testbench::msap_mc::{
    spec_vectors, McFault, MsapMcModel, MsapMcStimulus, MsarQueue, Request,
};
use warpforge_testbench::rng::Rng;
use warpforge_testbench::{Model, SpecVector};

fn cfg(sets: &[&str]) -> McConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(msap_mc::NAME, msap_mc::PARAMS, None, &sets).unwrap();
    McConfig::from_params(&p).unwrap()
}

fn vcfg(v: &SpecVector) -> McConfig {
    let s: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    cfg(&s)
}

#[test]
fn spec_vectors_pass_on_the_model() {
    let v = spec_vectors();
    assert!(v.len() >= 8);
    for v in &v {
        let c = vcfg(v);
        run_vector(&mut MsapMcModel::new(&c), &Layout::new(&c.ports()), v)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn faults_fail_a_spec_vector_and_the_invariants() {
    for fault in [McFault::YoungestFirst, McFault::NoGuard] {
        let caught = spec_vectors().iter().any(|v| {
            let c = vcfg(v);
            let mut m = MsapMcModel::new(&c);
            m.inject_fault(Some(fault));
            harness::misses_an_expectation(&mut m, &Layout::new(&c.ports()), v)
        });
        assert!(caught, "{fault:?} passes every vector");
        let c = cfg(&["line_bits=4"]);
        let mut m = MsapMcModel::new(&c);
        m.inject_fault(Some(fault));
        let mut stim = MsapMcStimulus::new(&c, 2);
        let f = first_failure(&mut m, &mut stim, &Layout::new(&c.ports()), 100_000);
        assert!(
            f.as_ref().is_some_and(|f| f.contains("I-13")),
            "{fault:?}: {f:?}"
        );
    }
}

#[test]
fn random_stimulus_keeps_every_invariant_and_covers_the_events() {
    for (sets, seed) in [
        (&[][..], 1),
        (
            &[
                "depth=4",
                "pl_bits=2",
                "line_bits=6",
                "meta_bits=3",
                "age_thresh=3",
            ][..],
            2,
        ),
        (
            &[
                "depth=16",
                "line_guard=false",
                "age_thresh=5",
                "meta_bits=40",
            ][..],
            3,
        ),
        (&["depth=5", "msar_en=false", "line_bits=8"][..], 4),
        (&["depth=32", "age_thresh=20", "pl_bits=4"][..], 5),
    ] {
        let c = cfg(sets);
        let layout = Layout::new(&c.ports());
        let mut m = MsapMcModel::new(&c);
        let mut stim = MsapMcStimulus::new(&c, seed);
        assert_eq!(
            first_failure(&mut m, &mut stim, &layout, 100_000),
            None,
            "{sets:?}"
        );
        for (name, n) in m.events() {
            let possible = match name {
                "reorders" => c.msar_en,
                "guard_blocks" => c.line_guard,
                "urgent_departures" => c.ageing(),
                _ => true,
            };
            assert_eq!(n > 0, possible, "{sets:?}: event {name} = {n}");
        }
    }
}

/// §2.8's rule as a stable sort, kept here: the departure order of a batch of requests that
/// are all queued before L2 is ready is the stable sort by descending PL, subject to the guard
/// (a request never leaves before an older one to its line).
#[test]
fn batches_leave_in_stable_pl_order() {
    let c = cfg(&["depth=16", "line_bits=3"]);
    let mut rng = Rng::new(11);
    for _ in 0..2000 {
        let n = 1 + rng.below(16) as usize;
        let reqs: Vec<Request> = (0..n)
            .map(|k| Request {
                line: rng.below(8),
                pl: rng.below(8),
                meta: k as u64,
            })
            .collect();
        let mut q = MsarQueue::new(&c);
        for r in &reqs {
            q.cycle(Some(*r), false);
        }
        let mut got = vec![];
        while let (Some(r), _) = q.cycle(None, true) {
            got.push(r.meta as usize);
        }
        q.check().unwrap();
        // Reference: repeatedly take, among the requests with no older pending request to
        // their line, the first of the highest PL in arrival order.
        let mut left: Vec<usize> = (0..n).collect();
        let mut want = vec![];
        while !left.is_empty() {
            let free: Vec<usize> = left
                .iter()
                .copied()
                .filter(|&k| !left.iter().any(|&o| o < k && reqs[o].line == reqs[k].line))
                .collect();
            let top = free.iter().map(|&k| reqs[k].pl).max().unwrap();
            let k = *free.iter().find(|&&k| reqs[k].pl == top).unwrap();
            want.push(k);
            left.retain(|&x| x != k);
        }
        assert_eq!(got, want, "{reqs:?}");
    }
}

#[test]
fn same_seed_same_trace() {
    let c = cfg(&[]);
    let layout = Layout::new(&c.ports());
    let run = |seed| {
        io_trace(
            &mut MsapMcModel::new(&c),
            &mut MsapMcStimulus::new(&c, seed),
            &layout,
            3000,
        )
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
}
