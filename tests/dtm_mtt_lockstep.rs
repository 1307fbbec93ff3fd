//! `dtm-mtt` in lockstep: its spec vectors on model and RTL, the quick suite's
//! constrained-random configurations (run by tests/lockstep.rs) (≥ 3 configurations: entries 16..256, ways 2..16, cand 1..16,
//! k_in/k_out 1..8; 2 seeds; ≥ 10^6 cycles), and proof that lockstep catches a wrong RTL: a
//! variant built only here (the MRU way as the victim instead of the LRU way) is reported at
//! the first cycle and port where it differs, which this test predicts from the model with
//! the same fault.

use warpforge_cosim::lockstep;
use warpforge_cosim::registry::{self, Unit};
use warpforge_cosim::regress;
use warpforge_hdl::Design;
use warpforge_testbench::dtm_mtt::{DtmMttModel, MttFault};

const UNIT: &str = "dtm-mtt";

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
        "entries=16",
        "entries=64",
        "entries=256",
        "ways=2",
        "ways=4",
        "ways=16",
    ] {
        assert!(has(kv), "no configuration with {kv}");
    }
    for kv in [
        "cand=1", "cand=3", "cand=16", "k_in=2", "k_in=8", "k_out=1", "k_out=8",
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
fn mru_victim_in_the_rtl_is_caught() {
    let unit = Unit::resolve(UNIT, &["entries=16".into(), "ways=4".into()]).unwrap();
    // ways = 4: rank bits 2; the LRU way is the one of rank 3.
    let mut d: Design = unit.design();
    let from = "== 2'd3) lru_way";
    assert_eq!(d.verilog.matches(from).count(), 4);
    d.verilog = d.verilog.replace(from, "== 2'd0) lru_way");
    let c = {
        use warpforge_contract::units::dtm_mtt::{MttConfig, PARAMS};
        let p = warpforge_contract::Params::resolve(UNIT, PARAMS, None, &unit.params.as_sets())
            .unwrap();
        MttConfig::from_params(&p).unwrap()
    };
    let mut bad = DtmMttModel::new(&c);
    bad.inject_fault(Some(MttFault::VictimMru));
    lockstep::check_planted_bug(&unit, &d, Box::new(bad), 3, 1_000_000)
        .unwrap_or_else(|e| panic!("{e}"));
}
