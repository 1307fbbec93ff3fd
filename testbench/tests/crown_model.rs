//! The `crown` top model: spec vectors, invariants, and kernels in CROWN mode.

use warpforge_contract::params::Params;
use warpforge_contract::units::crown::{CrownConfig, NAME, PARAMS};
use warpforge_testbench::crown::ModelEngine;
use warpforge_testbench::isa::asm::AsmOptions;
use warpforge_testbench::isa::crown::CrownOptions;
use warpforge_testbench::isa::kernels::SUITE;
use warpforge_testbench::isa::suite::run_crown_case;

fn cfg(sets: &[&str]) -> CrownConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    CrownConfig::from_params(&Params::resolve(NAME, PARAMS, None, &sets).unwrap()).unwrap()
}

#[test]
fn suite_small_on_the_model() {
    let c = cfg(&[]);
    for k in SUITE {
        let mut e = ModelEngine::new(&c);
        let o = CrownOptions::new(c.clone());
        let r = run_crown_case(k, k.sizes[0], 1, &o, &AsmOptions::default(), &mut e);
        let s = r.crown.as_ref();
        eprintln!(
            "{:12} {:?} {:?} la {:.1} issues {} sbr32 {:.1} sbr8 {:.1} {:.2}s",
            k.name,
            r.skipped,
            r.error,
            s.map_or(0.0, |s| s.lane_activity()),
            s.map_or(0, |s| s.engine.issues),
            r.sbr32.as_ref().map_or(0.0, |x| 100.0 * x.simd_efficiency()),
            r.sbr8.as_ref().map_or(0.0, |x| 100.0 * x.simd_efficiency()),
            r.seconds
        );
        assert!(r.passed(), "{}: {:?} {:?}", k.name, r.skipped, r.error);
    }
}
