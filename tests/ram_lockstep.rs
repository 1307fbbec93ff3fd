//! The `ram` unit in lockstep: its spec vectors on model and RTL, and proof that lockstep
//! catches a wrong RAM: an RTL variant built only here (a read that returns the new row on a
//! collision; a byte lane written whatever its enable) is reported at the first cycle and
//! port where it differs, which this test predicts from the model with the same fault.

use warpforge_contract::manifest::format_value;
use warpforge_cosim::lockstep::{self, Options, Source};
use warpforge_cosim::registry::{self, Unit};
use warpforge_hdl::Design;
use warpforge_testbench::ram::{RamFault, RamModel};
use warpforge_testbench::{harness, Model};

#[test]
fn ram_spec_vectors_pass_on_model_and_rtl() {
    let vectors = registry::spec_vectors("ram");
    assert!(vectors.len() >= 6);
    for v in &vectors {
        lockstep::run_spec_vector(v).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The first compared cycle where the correct model and the model with `fault` give different
/// outputs on `seed`'s stimulus: (cycle, expected rdata, faulty rdata).
fn first_divergence(unit: &Unit, fault: RamFault, seed: u64, cycles: u64) -> (u64, String, String) {
    let layout = unit.manifest().layout();
    let p = warpforge_contract::Params::resolve(
        "ram",
        warpforge_contract::units::ram::PARAMS,
        None,
        &unit.params.as_sets(),
    )
    .unwrap();
    let cfg = warpforge_contract::units::ram::RamConfig::from_params(&p).unwrap();
    let mut good = RamModel::new(&cfg);
    let mut bad = RamModel::new(&cfg);
    bad.inject_fault(Some(fault));
    let mut stim = unit.stimulus(seed);
    let (mut inputs, mut out_good, mut out_bad) = (
        vec![0u64; layout.in_words],
        vec![0u64; layout.out_words],
        vec![0u64; layout.out_words],
    );
    let rdata = layout.output("rdata").unwrap().clone();
    for c in 0..cycles {
        stim.next(c, &out_good, &mut inputs);
        good.step(&inputs, &mut out_good);
        bad.step(&inputs, &mut out_bad);
        let word = |o: &[u64]| o[rdata.offset..rdata.offset + rdata.words].to_vec();
        if !harness::in_reset(&layout, &inputs) && word(&out_good) != word(&out_bad) {
            return (
                c,
                format_value(&word(&out_good)),
                format_value(&word(&out_bad)),
            );
        }
    }
    panic!("{fault:?} never shows at the ports in {cycles} cycles");
}

/// `unit`'s design with one line of its RAM module replaced.
fn planted(unit: &Unit, from: &str, to: &str) -> Design {
    let mut d = unit.design();
    assert_eq!(
        d.verilog.matches(from).count(),
        1,
        "`{from}` not found once"
    );
    d.verilog = d.verilog.replace(from, to);
    d
}

fn check_caught(unit: &Unit, design: &Design, fault: RamFault) {
    let seed = 3;
    let (cycle, expected, actual) = first_divergence(unit, fault, seed, 1_000_000);
    assert!(cycle > 2, "the fault shows after start-up");
    let r = lockstep::run_design(
        unit,
        design,
        unit.model(),
        Source::Random(unit.stimulus(seed)),
        Options::new(cycle + 10_000, seed),
    )
    .unwrap();
    let m = r
        .mismatch
        .as_ref()
        .unwrap_or_else(|| panic!("{fault:?}: the planted RTL bug was not caught"));
    assert_eq!((m.cycle, m.port.as_str()), (cycle, "rdata"), "{fault:?}");
    assert_eq!(
        (m.expected.as_str(), m.actual.as_str()),
        (expected.as_str(), actual.as_str())
    );
    assert_eq!(r.cycles, cycle + 1, "the run stops at the first difference");
    // The same stimulus passes with the real RTL up to well past that cycle.
    let ok = lockstep::run(
        unit,
        unit.model(),
        Source::Random(unit.stimulus(seed)),
        Options::new(cycle + 10_000, seed),
    )
    .unwrap();
    assert!(ok.passed(), "{}", ok.render());
}

#[test]
fn write_first_rtl_is_caught_at_the_first_collision_that_shows() {
    let unit = Unit::resolve("ram", &[]).unwrap();
    let d = planted(
        &unit,
        "if (re) rdata <= mem_rows[raddr];",
        "if (re) rdata <= (we && waddr == raddr) ? wdata : mem_rows[raddr];",
    );
    check_caught(&unit, &d, RamFault::NewDataOnCollision);
}

#[test]
fn ignored_byte_enable_is_caught_at_the_first_read_that_shows_it() {
    let unit = Unit::resolve(
        "ram",
        &[
            "depth=1024".into(),
            "width=32".into(),
            "byte_write=true".into(),
        ],
    )
    .unwrap();
    let d = planted(&unit, "if (we && wbe[1])", "if (we)");
    check_caught(&unit, &d, RamFault::IgnoreLaneOneEnable);
}
