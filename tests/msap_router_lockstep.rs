//! msap-router in lockstep: its spec vectors (S-R1, T-3) on model and RTL (Icarus), what the
//! quick suite's constrained-random jobs cover (run by tests/lockstep.rs: 3 configurations, 2
//! seeds, ≥ 10^6 cycles), and proof that lockstep catches a wrong RTL: arbiters fed PL 0
//! (the router without MSAA while its model arbitrates by PL) reported at the first cycle and
//! port the model with the same fault predicts.

use warpforge_contract::units::msap_router::{RouterConfig, PARAMS};
use warpforge_contract::Params;
use warpforge_cosim::lockstep;
use warpforge_cosim::registry::{self, Unit};
use warpforge_cosim::regress;
use warpforge_testbench::msap_router::{MsapRouterModel, RouterFault};

const UNIT: &str = "msap-router";

#[test]
fn spec_vectors_pass_on_model_and_rtl() {
    let vectors = registry::spec_vectors(UNIT);
    assert!(vectors.len() >= 7);
    for v in &vectors {
        lockstep::run_spec_vector(v).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn random_lockstep_covers_the_configurations() {
    let configs = regress::configs(UNIT);
    assert!(configs.len() >= 3);
    let c = regress::coverage(UNIT, "quick").unwrap();
    assert!(c.seeds >= 2, "{c:?}");
    assert!(c.cycles >= 1_000_000, "{c:?}");
    // Both arbitration modes, every pipeline depth, ageing, both pointer modes.
    let all = configs.concat().join(",");
    for s in [
        "msaa_en=false",
        "pipe_stages=2",
        "pipe_stages=3",
        "age_thresh=4",
        "rr_ptr=shared",
    ] {
        assert!(all.contains(s), "no quick configuration with {s}");
    }
}

#[test]
fn arbiters_without_the_pl_are_caught() {
    // The default configuration (a quick-suite one: its good build is cached by then).
    let unit = Unit::resolve(UNIT, &[]).unwrap();
    let p = Params::resolve(unit.name(), PARAMS, None, &unit.params.as_sets()).unwrap();
    let cfg = RouterConfig::from_params(&p).unwrap();
    let mut d = unit.design();
    for o in 0..5 {
        let from = format!("arb__{o}__pl__drv = wpl_pack__whole;");
        assert_eq!(d.verilog.matches(&from).count(), 1, "`{from}`");
        d.verilog = d
            .verilog
            .replace(&from, &format!("arb__{o}__pl__drv = 15'd0;"));
    }
    let mut bad = MsapRouterModel::new(&cfg);
    bad.inject_fault(Some(RouterFault::PlIgnored));
    lockstep::check_planted_bug(&unit, &d, Box::new(bad), 3, 1_000_000)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn corner_routers_lint_clean() {
    // At a mesh edge a coordinate compare against 0 or the last column must not turn into a
    // constant comparison (Verilator -Wall rejects those).
    for sets in [["x=0", "y=0"], ["x=7", "y=7"]] {
        let unit = Unit::resolve(UNIT, &sets.map(String::from)).unwrap();
        let r = warpforge_cosim::lint::lint(&unit.design(), &unit.manifest()).unwrap();
        assert!(r.passed, "{sets:?}: {:?}", r.verilator.diagnostics);
    }
}
