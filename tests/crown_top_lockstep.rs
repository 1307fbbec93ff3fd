//! The `crown` RTL under Verilator making CROWN's regrouping decisions in lockstep with the
//! `crown` model (every output, every sub-unit's digest included, every cycle): the spec
//! vectors (C1, C2, the one-sided branch, §2.7) and small suite kernels with their outputs
//! checked against the host reference.

use warpforge_contract::params::Params;
use warpforge_contract::units::crown::{CrownConfig, NAME, PARAMS};
use warpforge_cosim::crown_run::RtlEngine;
use warpforge_testbench::crown::vectors::{default_config, run_vector, VECTORS};
use warpforge_testbench::isa::asm::AsmOptions;
use warpforge_testbench::isa::crown::CrownOptions;
use warpforge_testbench::isa::kernels::SUITE;
use warpforge_testbench::isa::suite::run_crown_case;

fn cache() {
    if std::env::var_os("WARPFORGE_CACHE").is_none() {
        std::env::set_var(
            "WARPFORGE_CACHE",
            std::env::temp_dir().join("warpforge-crown-test"),
        );
    }
}

fn cfg(sets: &[&str]) -> CrownConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    CrownConfig::from_params(&Params::resolve(NAME, PARAMS, None, &sets).unwrap()).unwrap()
}

#[test]
fn spec_vectors_on_the_rtl() {
    cache();
    let c = default_config();
    for v in VECTORS {
        let mut e = RtlEngine::new(&c, 1).unwrap();
        let r = run_vector(v, &mut e, &c).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        (v.check)(&r).unwrap_or_else(|e| panic!("{} (RTL): {e}", v.name));
    }
}

#[test]
fn kernels_on_the_rtl() {
    cache();
    let c = cfg(&["n2=256", "sets=4", "ways=4", "threads=512"]);
    for name in ["strmatch", "bfs", "reduce", "nqueens"] {
        let k = SUITE.iter().find(|k| k.name == name).unwrap();
        let mut e = RtlEngine::new(&c, 7).unwrap();
        let o = CrownOptions::new(c.clone());
        let r = run_crown_case(k, k.sizes[0], 1, &o, &AsmOptions::default(), &mut e);
        assert!(r.passed(), "{name}: {:?} {:?}", r.skipped, r.error);
    }
}
