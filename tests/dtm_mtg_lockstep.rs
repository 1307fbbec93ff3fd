//! `dtm-mtg` in lockstep: its spec vectors on model and RTL (Icarus), the quick suite's
//! constrained-random configurations (run by tests/lockstep.rs) (≥ 3 configurations covering entries 16 to 1024, ways 1 to
//! 16, ports 1 to 8, 2 seeds, ≥ 10^6 cycles), and proof that lockstep catches a wrong RTL: a
//! variant built only here (the victim ignores invalid ways) is reported at the first cycle
//! and port where it differs, which this test predicts from the model with the same fault.

use warpforge_cosim::lockstep;
use warpforge_cosim::registry::{self, Unit};
use warpforge_cosim::regress;
use warpforge_hdl::Design;
use warpforge_testbench::dtm_mtg::{DtmMtgModel, MtgFault};

const UNIT: &str = "dtm-mtg";

#[test]
fn spec_vectors_pass_on_model_and_rtl() {
    let vectors = registry::spec_vectors(UNIT);
    assert_eq!(vectors.len(), 6);
    for v in &vectors {
        lockstep::run_spec_vector(v).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn random_lockstep_covers_the_configurations() {
    let cfgs = regress::configs(UNIT);
    assert!(cfgs.len() >= 3);
    let has = |kv: &str| cfgs.iter().any(|c| c.iter().any(|s| s == kv));
    for kv in [
        "entries=16",
        "entries=64",
        "ways=16",
        "ways=1",
        "ways=4",
        "ports=1",
        "ports=2",
        "ports=4",
        "val_bits=64",
    ] {
        assert!(has(kv), "no configuration with {kv}");
    }
    // tests/lockstep.rs runs every unit's quick jobs (and fails on any of them); here, what
    // they cover.
    let c = regress::coverage(UNIT, "quick").unwrap();
    assert!(c.seeds >= 2, "{c:?}");
    assert!(c.cycles >= 1_000_000, "{c:?}");
}

#[test]
fn a_victim_that_ignores_invalid_ways_in_the_rtl_is_caught() {
    let sets: Vec<String> = ["entries=32", "ways=4", "ports=1", "simd_width=4"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let unit = Unit::resolve(UNIT, &sets).unwrap();
    // The planted bug: the victim is the LRU way even when an invalid way exists.
    let mut d: Design = unit.design();
    // One bank (ports = 1), so the bank module and this line exist once.
    let from = "vway = hasinv ?";
    assert_eq!(d.verilog.matches(from).count(), 1);
    d.verilog = d.verilog.replace(from, "vway = 1'b0 ?");
    let cfg = {
        use warpforge_contract::units::dtm_mtg::{MtgConfig, PARAMS};
        let p = warpforge_contract::Params::resolve(UNIT, PARAMS, None, &unit.params.as_sets())
            .unwrap();
        MtgConfig::from_params(&p).unwrap()
    };
    let mut bad = DtmMtgModel::new(&cfg);
    bad.inject_fault(Some(MtgFault::VictimIgnoresInvalid));
    lockstep::check_planted_bug(&unit, &d, Box::new(bad), 3, 1_000_000)
        .unwrap_or_else(|e| panic!("{e}"));
}
