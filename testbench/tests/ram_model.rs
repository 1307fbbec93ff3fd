//! The `ram` model: its spec vectors, its invariant checker (each deliberate fault is caught,
//! by the invariants under random stimulus and by a spec vector), the stimulus's coverage of
//! the corners the contract names, and reproducibility.

use warpforge_contract::units::ram::{self, RamConfig};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::harness::{first_failure, io_trace, run_vector};
use warpforge_testbench::ram::{spec_vectors, RamFault, RamModel, RamStimulus};
use warpforge_testbench::{Model, Stimulus};

fn cfg(sets: &[String]) -> RamConfig {
    let p = Params::resolve(ram::NAME, ram::PARAMS, None, sets).unwrap();
    RamConfig::from_params(&p).unwrap()
}

fn sets(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

#[test]
fn spec_vectors_pass_on_the_model() {
    let vectors = spec_vectors();
    assert!(vectors.len() >= 6);
    for v in &vectors {
        let c = cfg(&v.sets);
        let layout = Layout::new(&c.ports());
        run_vector(&mut RamModel::new(&c), &layout, v).unwrap_or_else(|e| panic!("{e}"));
    }
}

const FAULTS: [RamFault; 3] = [
    RamFault::NewDataOnCollision,
    RamFault::IgnoreLaneOneEnable,
    RamFault::ReadWithoutEnable,
];

#[test]
fn every_fault_fails_the_invariants_under_random_stimulus() {
    let c = cfg(&sets(&["depth=64", "width=32", "byte_write=true"]));
    let layout = Layout::new(&c.ports());
    for fault in FAULTS {
        let mut m = RamModel::new(&c);
        m.inject_fault(Some(fault));
        let mut stim = RamStimulus::new(&c, 11);
        let e = first_failure(&mut m, &mut stim, &layout, 100_000)
            .unwrap_or_else(|| panic!("{fault:?} not caught"));
        assert!(!e.is_empty());
    }
    // The correct model passes the same run.
    let mut m = RamModel::new(&c);
    let mut stim = RamStimulus::new(&c, 11);
    assert_eq!(first_failure(&mut m, &mut stim, &layout, 100_000), None);
}

#[test]
fn every_fault_fails_a_spec_vector() {
    for fault in FAULTS {
        let caught = spec_vectors().iter().any(|v| {
            let c = cfg(&v.sets);
            let mut m = RamModel::new(&c);
            m.inject_fault(Some(fault));
            // Outputs only: the invariants would catch it too.
            warpforge_testbench::harness::misses_an_expectation(&mut m, &Layout::new(&c.ports()), v)
        });
        assert!(caught, "{fault:?} passes every spec vector");
    }
}

/// The stimulus reaches the contract's corners: same-row read during write with different
/// data, reads of written rows, partial byte writes, idle cycles, resets after start-up.
#[test]
fn stimulus_covers_collisions_byte_lanes_idle_and_reset() {
    for s in [
        sets(&["depth=16", "width=8", "ports=1"]),
        sets(&[]),
        sets(&["depth=1024", "width=32", "byte_write=true"]),
    ] {
        let c = cfg(&s);
        let layout = Layout::new(&c.ports());
        let at = |n: &str| layout.input(n).unwrap().offset;
        let (we, re, wa, ra) = (
            at("we"),
            at("re"),
            at(c.write_addr_port()),
            at(c.read_addr_port()),
        );
        let mut stim = RamStimulus::new(&c, 3);
        let mut m = RamModel::new(&c);
        let mut inputs = vec![0u64; layout.in_words];
        let mut out = vec![0u64; layout.out_words];
        let (mut collide_diff, mut nonzero_reads, mut partial, mut idle, mut resets) =
            (0, 0, 0, 0, 0);
        for cyc in 0..200_000u64 {
            stim.next(cyc, &out, &mut inputs);
            let before = m.row(inputs[wa] as usize);
            m.step(&inputs, &mut out);
            let (w, r) = (inputs[we] & 1 == 1, inputs[re] & 1 == 1);
            if w && r && inputs[wa] == inputs[ra] && m.row(inputs[wa] as usize) != before {
                collide_diff += 1;
            }
            if r && m.rdata().iter().any(|&x| x != 0) {
                nonzero_reads += 1;
            }
            if let Some(s) = layout.input("wbe") {
                let be = inputs[s.offset];
                if w && be != 0 && be != 0xf {
                    partial += 1;
                }
            }
            idle += (!w && !r) as u64;
            resets += (cyc > 2 && inputs[layout.input("reset").unwrap().offset] == 1) as u64;
        }
        assert!(
            collide_diff > 1000,
            "{s:?}: {collide_diff} changing collisions"
        );
        assert!(
            nonzero_reads > 10_000,
            "{s:?}: {nonzero_reads} reads of data"
        );
        assert!(idle > 1000, "{s:?}: {idle} idle cycles");
        assert!(resets > 5, "{s:?}: {resets} resets");
        if c.byte_write {
            assert!(partial > 1000, "{s:?}: {partial} partial writes");
        }
    }
}

#[test]
fn same_seed_same_trace() {
    let c = cfg(&sets(&[
        "depth=8",
        "width=1024",
        "ports=1",
        "byte_write=true",
    ]));
    let layout = Layout::new(&c.ports());
    let run = |seed| {
        io_trace(
            &mut RamModel::new(&c),
            &mut RamStimulus::new(&c, seed),
            &layout,
            5_000,
        )
    };
    assert_eq!(run(4), run(4));
    assert_ne!(run(4), run(5));
}

fn vector_events(name: &str) -> Vec<(&'static str, u64)> {
    let v = spec_vectors()
        .into_iter()
        .find(|v| v.name.contains(name))
        .unwrap_or_else(|| panic!("no vector {name}"));
    let c = cfg(&v.sets);
    let mut m = RamModel::new(&c);
    run_vector(&mut m, &Layout::new(&c.ports()), &v).unwrap_or_else(|e| panic!("{e}"));
    m.events()
}

/// The coverage counters on two spec vectors, counted by hand from their cycles (the reset
/// cycle's read counts: the RAM ignores reset).
#[test]
fn events_count_the_spec_vectors_cycles() {
    // Reads of row 3 in 7 of 8 cycles, writes in 4, two of them to the row being read.
    assert_eq!(
        vector_events("read during write returns the old row"),
        [
            ("writes", 4),
            ("reads", 7),
            ("collisions", 2),
            ("partial_writes", 0)
        ]
    );
    // Writes with enables 0xf, 0b0101 (reading its row), 0, 0b1000; reads in cycles
    // 0, 2, 3, 5, 6.
    assert_eq!(
        vector_events("byte-enable merge"),
        [
            ("writes", 4),
            ("reads", 5),
            ("collisions", 1),
            ("partial_writes", 3)
        ]
    );
}

/// A random run makes the RAM write, and its counters agree with a count from the inputs.
#[test]
fn events_of_a_random_run() {
    let c = cfg(&sets(&["depth=64", "width=32", "byte_write=true"]));
    let layout = Layout::new(&c.ports());
    let at = |n: &str| layout.input(n).unwrap().offset;
    let (we, re, wa, ra, be) = (
        at("we"),
        at("re"),
        at(c.write_addr_port()),
        at(c.read_addr_port()),
        at("wbe"),
    );
    let mut stim = RamStimulus::new(&c, 7);
    let mut m = RamModel::new(&c);
    let mut inputs = vec![0u64; layout.in_words];
    let mut out = vec![0u64; layout.out_words];
    let mut want = [0u64; 4];
    for cyc in 0..5_000u64 {
        stim.next(cyc, &out, &mut inputs);
        m.step(&inputs, &mut out);
        let (w, r) = (inputs[we] & 1 == 1, inputs[re] & 1 == 1);
        let same = inputs[wa] & 63 == inputs[ra] & 63;
        want[0] += w as u64;
        want[1] += r as u64;
        want[2] += (w && r && same) as u64;
        want[3] += (w && inputs[be] & 0xf != 0xf) as u64;
    }
    let e = m.events();
    assert_eq!(e[0].0, "writes");
    assert!(e[0].1 > 0, "{e:?}");
    let got: Vec<u64> = e.iter().map(|x| x.1).collect();
    assert_eq!(got, want, "{e:?}");
}
