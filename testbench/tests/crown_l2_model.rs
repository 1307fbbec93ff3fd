//! The `crown-l2` model: its spec vectors, its invariants under constrained-random stimulus
//! on several configurations, the contract breaks it flags (one payload write per cycle and
//! the others), deliberate faults caught by a spec vector, the stimulus's coverage, and
//! reproducibility.

use warpforge_contract::units::crown::Warp;
use warpforge_contract::units::crown_l2::{self, L2Config, READY, WAIT_EXEC};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::crown_l2::{
    spec_vectors, CrownL2Model, CrownL2Stimulus, L2Fault, L2Ops, L2Update, SecondLevel,
};
use warpforge_testbench::harness::{self, first_failure, io_trace, run_vector};
use warpforge_testbench::Model;

fn cfg(sets: &[&str]) -> L2Config {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(crown_l2::NAME, crown_l2::PARAMS, None, &sets).unwrap();
    L2Config::from_params(&p).unwrap()
}

fn vcfg(v: &warpforge_testbench::SpecVector) -> L2Config {
    let s: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    cfg(&s)
}

#[test]
fn spec_vectors_pass_on_the_model() {
    let vectors = spec_vectors();
    assert!(vectors.len() >= 4);
    for v in &vectors {
        let c = vcfg(v);
        run_vector(&mut CrownL2Model::new(&c), &Layout::new(&c.ports()), v)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// A fault is caught when some vector's listed outputs differ from the faulty model's.
fn caught_by_a_vector(fault: L2Fault) -> bool {
    spec_vectors().iter().any(|v| {
        let c = vcfg(v);
        let mut m = CrownL2Model::new(&c);
        m.inject_fault(Some(fault));
        harness::misses_an_expectation(&mut m, &Layout::new(&c.ports()), v)
    })
}

#[test]
fn faults_fail_a_spec_vector() {
    for f in [L2Fault::PushDescending, L2Fault::PopForgetsInPool] {
        assert!(caught_by_a_vector(f), "{f:?} passes every vector");
    }
}

#[test]
fn a_forgotten_in_pool_bit_fails_the_invariants() {
    let c = cfg(&["n2=16"]);
    let mut m = CrownL2Model::new(&c);
    m.inject_fault(Some(L2Fault::PopForgetsInPool));
    let mut stim = CrownL2Stimulus::new(&c, 5);
    let e = first_failure(&mut m, &mut stim, &Layout::new(&c.ports()), 10_000).expect("caught");
    assert!(
        e.contains("ready FIFO iff ready and not in the pool"),
        "{e}"
    );
}

#[test]
fn random_stimulus_keeps_every_invariant_and_covers_the_corners() {
    for (sets, seed) in [
        (&["n2=16", "pool=2", "w=4", "threads=64"][..], 1),
        (&["n2=128", "w=16"][..], 2),
        (&["n2=512"][..], 3),
        (
            &["n2=512", "pool=16", "w=16", "threads=1024", "pc_bits=8"][..],
            4,
        ),
    ] {
        let c = cfg(sets);
        let layout = Layout::new(&c.ports());
        let mut m = CrownL2Model::new(&c);
        let mut stim = CrownL2Stimulus::new(&c, seed);
        assert_eq!(
            first_failure(&mut m, &mut stim, &layout, 200_000),
            None,
            "{sets:?}"
        );
        m.table.check(true).unwrap();
        for (name, n) in m.events() {
            assert!(n > 0, "{sets:?}: event {name} never happened");
        }
    }
}

fn warp(pc: u64, lanes: u64, thi: u64) -> Warp {
    Warp {
        pc,
        lanes,
        thi: vec![thi; 8],
    }
}

/// One row inserted, popped and issued: waiting-exec, ready for an update.
fn waiting_row() -> SecondLevel {
    let mut t = SecondLevel::new(&cfg(&["n2=16"]));
    t.cycle(&L2Ops {
        insert: Some(warp(1, 0xff, 0)),
        ..L2Ops::default()
    });
    t.cycle(&L2Ops {
        pop: true,
        ..L2Ops::default()
    });
    t.cycle(&L2Ops {
        issue: Some(0),
        ..L2Ops::default()
    });
    assert_eq!(t.state(0), WAIT_EXEC);
    assert!(t.check(true).is_ok());
    t
}

#[test]
fn the_model_flags_every_contract_break() {
    let upd = |state, write| L2Update {
        row: 0,
        state,
        write,
    };
    let cases: Vec<(L2Ops, &str)> = vec![
        (
            L2Ops {
                insert: Some(warp(2, 0x01, 1)),
                update: Some(upd(READY, Some((3, 0xff)))),
                ..L2Ops::default()
            },
            "one payload write per cycle",
        ),
        (
            L2Ops {
                update: Some(upd(READY, Some((3, 0x1ff)))),
                ..L2Ops::default()
            },
            "adds lanes",
        ),
        (
            L2Ops {
                issue: Some(0),
                ..L2Ops::default()
            },
            "is not in the pool",
        ),
        (
            L2Ops {
                insert: Some(warp(2, 0x01, 0)),
                ..L2Ops::default()
            },
            "is held by row 0",
        ),
    ];
    for (ops, want) in cases {
        let mut t = waiting_row();
        t.cycle(&ops);
        let e = t.check(false).unwrap_err();
        assert!(e.contains(want), "{e}");
    }
    // The same write alone, and an insert in another cycle, are fine.
    let mut t = waiting_row();
    t.cycle(&L2Ops {
        update: Some(upd(READY, Some((3, 0xff)))),
        ..L2Ops::default()
    });
    t.cycle(&L2Ops {
        insert: Some(warp(2, 0x01, 1)),
        ..L2Ops::default()
    });
    assert!(t.check(true).is_ok());
    assert_eq!(t.fifo(), vec![0, 1]);
    // An update of a ready row (on the FIFO) and an insert into a full table.
    let mut t = SecondLevel::new(&cfg(&["n2=2", "pool=2"]));
    for k in 0..2 {
        t.cycle(&L2Ops {
            insert: Some(warp(k, 1 << k, 0)),
            ..L2Ops::default()
        });
    }
    assert!(t.full());
    let e = t
        .check_ops(&L2Ops {
            insert: Some(warp(5, 0x10, 0)),
            ..L2Ops::default()
        })
        .unwrap_err();
    assert!(e.contains("while full"), "{e}");
    let e = t
        .check_ops(&L2Ops {
            update: Some(upd(READY, None)),
            ..L2Ops::default()
        })
        .unwrap_err();
    assert!(e.contains("a commit updates a waiting row"), "{e}");
}

#[test]
fn same_seed_same_trace() {
    let c = cfg(&["n2=128"]);
    let layout = Layout::new(&c.ports());
    let run = |seed| {
        io_trace(
            &mut CrownL2Model::new(&c),
            &mut CrownL2Stimulus::new(&c, seed),
            &layout,
            3000,
        )
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
}
