//! The `crown-pool` model: its spec vectors, invariants under random stimulus on several
//! configurations, deliberate LRR faults caught by a spec vector, the refill-when-full
//! contract break flagged, and reproducibility.

use warpforge_contract::units::crown::Warp;
use warpforge_contract::units::crown_pool::{self, PoolConfig};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::crown_pool::{
    spec_vectors, CrownPoolModel, CrownPoolStimulus, IssuePool, PoolEntry, PoolFault,
};
use warpforge_testbench::harness::{self, first_failure, io_trace, run_vector};
use warpforge_testbench::Model;

fn cfg(sets: &[&str]) -> PoolConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(crown_pool::NAME, crown_pool::PARAMS, None, &sets).unwrap();
    PoolConfig::from_params(&p).unwrap()
}

fn vcfg(v: &warpforge_testbench::SpecVector) -> PoolConfig {
    let s: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    cfg(&s)
}

#[test]
fn spec_vectors_pass_on_the_model() {
    for v in &spec_vectors() {
        let c = vcfg(v);
        run_vector(&mut CrownPoolModel::new(&c), &Layout::new(&c.ports()), v)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn lrr_faults_fail_a_spec_vector() {
    for fault in [PoolFault::SearchFromLast, PoolFault::LowestFirst] {
        let caught = spec_vectors().iter().any(|v| {
            let c = vcfg(v);
            let mut m = CrownPoolModel::new(&c);
            m.inject_fault(Some(fault));
            harness::misses_an_expectation(&mut m, &Layout::new(&c.ports()), v)
        });
        assert!(caught, "{fault:?} passes every vector");
    }
}

#[test]
fn random_stimulus_keeps_every_invariant_and_covers_the_corners() {
    for (sets, seed) in [
        (&["pool=2", "n2=16", "w=4", "threads=64"][..], 1),
        (&["pool=8"][..], 2),
        (&["pool=16", "n2=16", "w=16", "threads=128"][..], 3),
    ] {
        let c = cfg(sets);
        let layout = Layout::new(&c.ports());
        let mut m = CrownPoolModel::new(&c);
        let mut stim = CrownPoolStimulus::new(&c, seed);
        assert_eq!(
            first_failure(&mut m, &mut stim, &layout, 200_000),
            None,
            "{sets:?}"
        );
        for (name, n) in m.events() {
            assert!(n > 0, "{sets:?}: event {name} never happened");
        }
    }
}

#[test]
fn a_refill_of_a_full_pool_is_flagged() {
    let c = cfg(&["pool=2", "n2=16"]);
    let mut q = IssuePool::new(&c);
    let e = |slot: usize| PoolEntry {
        warp: Warp {
            pc: 1,
            lanes: 1 << slot,
            thi: vec![0; 8],
        },
        slot,
    };
    q.cycle(Some(e(0)), false);
    q.cycle(Some(e(1)), false);
    assert!(q.check().is_ok() && !q.has_free());
    // An issue frees an entry only at the edge: a refill in the same cycle has no room.
    q.cycle(Some(e(2)), true);
    let err = q.check().unwrap_err();
    assert!(err.contains("ref_valid with no free entry"), "{err}");
}

#[test]
fn same_seed_same_trace() {
    let c = cfg(&[]);
    let layout = Layout::new(&c.ports());
    let run = |seed| {
        io_trace(
            &mut CrownPoolModel::new(&c),
            &mut CrownPoolStimulus::new(&c, seed),
            &layout,
            3000,
        )
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
}

/// The distinctness checks track the pool's threads and rows from refill to issue: a refill
/// that repeats a held row or thread fails in its own cycle, one that reuses what an issue
/// freed passes, and a reset forgets everything.
#[test]
fn distinctness_is_checked_in_the_refill_cycle() {
    let c = cfg(&["pool=4", "n2=16"]);
    let e = |slot: usize, lane: usize, thi: u64| {
        let mut t = vec![0; 8];
        t[lane] = thi;
        PoolEntry {
            warp: Warp {
                pc: 1,
                lanes: 1 << lane,
                thi: t,
            },
            slot,
        }
    };
    // Refill, issue it (the only entry), refill the same row and thread: legal.
    let mut q = IssuePool::new(&c);
    q.cycle(Some(e(3, 0, 5)), false);
    assert!(q.check().is_ok());
    q.cycle(None, true);
    q.cycle(Some(e(3, 0, 5)), false);
    assert_eq!(q.check(), Ok(()));
    // The same row again, with other threads.
    q.cycle(Some(e(3, 1, 2)), false);
    assert_eq!(
        q.check(),
        Err("entry 1: slot 3 is in the pool twice".into())
    );
    // The same thread (lane 0, index 5 is thread 5·8) in another row.
    let mut q = IssuePool::new(&c);
    q.cycle(Some(e(3, 0, 5)), false);
    q.cycle(Some(e(4, 0, 5)), false);
    assert_eq!(q.check(), Err("thread 40 is in two pool entries".into()));
    // Issuing one of the two ends the clash (the next refill's check passes); a reset too.
    q.cycle(None, true);
    q.cycle(Some(e(5, 1, 1)), false);
    assert_eq!(q.check(), Ok(()));
    q.reset();
    q.cycle(Some(e(3, 0, 5)), false);
    q.cycle(Some(e(4, 0, 6)), false);
    assert_eq!(q.check(), Ok(()));
}
