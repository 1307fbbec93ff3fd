//! msap-router with V > 1 in lockstep: what the quick and full suites' constrained-random jobs
//! cover with VCs (V = 2 in the quick suite, run by tests/lockstep.rs; V = 2 and V = 4 in
//! `regress --suite full`), and proof that
//! lockstep catches a wrong V > 1 RTL: SA stage-1 arbiters that commit every grant (the iSLIP
//! rule of §2.6 broken) reported at the first cycle and port the model with that fault
//! predicts.

use warpforge_contract::units::msap_router::{RouterConfig, PARAMS};
use warpforge_contract::Params;
use warpforge_cosim::lockstep;
use warpforge_cosim::registry::Unit;
use warpforge_cosim::regress;
use warpforge_testbench::msap_router::{MsapRouterModel, RouterFault};

const UNIT: &str = "msap-router";

#[test]
fn vc_configurations_in_the_suites() {
    // V = 2 in the quick suite (run by `cargo test`), V = 4 in the full one.
    let quick = regress::configs(UNIT).concat();
    assert!(
        quick.iter().any(|s| s == "vcs=2"),
        "no quick configuration at V = 2"
    );
    let full: Vec<Vec<String>> = regress::full_only_configs(UNIT);
    assert!(
        full.concat().iter().any(|s| s == "vcs=4"),
        "no full configuration at V = 4"
    );
    let vc = regress::configs(UNIT)
        .into_iter()
        .chain(full)
        .filter(|c| c.iter().any(|s| s == "vcs=2" || s == "vcs=4"))
        .count();
    assert!(vc >= 3, "{vc} VC configurations");
}

#[test]
fn stage1_commit_without_stage2_is_caught() {
    // The quick suite's V = 2 configuration.
    let sets = ["vcs=2".to_string()];
    let unit = Unit::resolve(UNIT, &sets).unwrap();
    let p = Params::resolve(unit.name(), PARAMS, None, &unit.params.as_sets()).unwrap();
    let cfg = RouterConfig::from_params(&p).unwrap();
    let mut d = unit.design();
    for i in 0..5 {
        let from = format!("sa1__{i}__commit__drv = 1'b0;");
        assert_eq!(d.verilog.matches(&from).count(), 1, "`{from}`");
        d.verilog = d.verilog.replace(
            &from,
            &format!("sa1__{i}__commit__drv = sa1__{i}__gnt_valid;"),
        );
    }
    let mut bad = MsapRouterModel::new(&cfg);
    bad.inject_fault(Some(RouterFault::Stage1AlwaysCommits));
    lockstep::check_planted_bug(&unit, &d, Box::new(bad), 3, 1_000_000)
        .unwrap_or_else(|e| panic!("{e}"));
}
