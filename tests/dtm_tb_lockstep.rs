//! `dtm-tb` in lockstep: its spec vectors on model and RTL, the quick suite's
//! constrained-random configurations (run by tests/lockstep.rs) (≥ 3 configurations: pools 3..128 (smaller than the threads and
//! one per thread), k_in/k_out 1..8, l_max 4..16; 2 seeds; ≥ 10^6 cycles), and proof that
//! lockstep catches a wrong RTL: a variant built only here (a source the trace already wrote
//! taken as a new input) is reported at
//! the first cycle and port where it differs, which this test predicts from the model with
//! the same fault.

use warpforge_cosim::lockstep;
use warpforge_cosim::registry::{self, Unit};
use warpforge_cosim::regress;
use warpforge_hdl::Design;
use warpforge_testbench::dtm_tb::{DtmTbModel, TbFault};

const UNIT: &str = "dtm-tb";

#[test]
fn spec_vectors_pass_on_model_and_rtl() {
    let vectors = registry::spec_vectors(UNIT);
    assert!(vectors.len() >= 5);
    for v in &vectors {
        lockstep::run_spec_vector(v).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn random_lockstep_covers_the_configurations() {
    let cfgs = regress::configs(UNIT);
    let has = |kv: &str| cfgs.iter().any(|c| c.iter().any(|s| s == kv));
    for kv in [
        "tb_pool=3",
        "tb_pool=4",
        "tb_pool=16",
        "threads=64",
        "k_in=2",
        "k_in=8",
        "k_out=1",
        "k_out=8",
        "l_max=4",
        "isz=1",
        "val_bits=64",
    ] {
        assert!(has(kv), "no configuration with {kv}");
    }
    // tests/lockstep.rs runs every unit's quick jobs (and fails on any of them); here, what
    // they cover.
    let c = regress::coverage(UNIT, "quick").unwrap();
    assert!(c.seeds >= 2, "{c:?}");
    assert!(c.jobs >= 6, "{c:?}");
    assert!(c.cycles >= 1_000_000, "{c:?}");
}

#[test]
fn outputs_taken_as_inputs_in_the_rtl_are_caught() {
    let unit = Unit::resolve(UNIT, &["threads=16".into(), "tb_pool=4".into()]).unwrap();
    // Source j is never found in oc (k_out = 4 slots compared per source).
    let mut d: Design = unit.design();
    for j in 0..3 {
        let from = format!(") in_oc[{j}] = 1'b1;");
        assert_eq!(d.verilog.matches(&from).count(), 4);
        d.verilog = d.verilog.replace(&from, &format!(") in_oc[{j}] = 1'b0;"));
    }
    let c = {
        use warpforge_contract::units::dtm_tb::{TbConfig, PARAMS};
        let p = warpforge_contract::Params::resolve(UNIT, PARAMS, None, &unit.params.as_sets())
            .unwrap();
        TbConfig::from_params(&p).unwrap()
    };
    let mut bad = DtmTbModel::new(&c);
    bad.inject_fault(Some(TbFault::OutputsAreInputs));
    lockstep::check_planted_bug(&unit, &d, Box::new(bad), 3, 1_000_000)
        .unwrap_or_else(|e| panic!("{e}"));
}
