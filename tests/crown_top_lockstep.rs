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

/// The comparison can fail: a model that lets a transfer take the write port in a divergent
/// branch's cycle (the planted bug) departs from the RTL on C2, and lockstep says where.
#[test]
fn planted_bug_is_caught_by_lockstep() {
    cache();
    let c = default_config();
    let mut e = RtlEngine::new(&c, 3).unwrap();
    e.model_mut().crown.inject_fault(Some(
        warpforge_testbench::crown::CrownFault::BranchFreesPort,
    ));
    let err = match run_vector(&VECTORS[1], &mut e, &c) {
        Ok(_) => panic!("lockstep missed the planted bug"),
        Err(e) => e,
    };
    assert!(err.contains("lockstep cycle"), "{err}");
}

/// Seeded random programs (divergence, loops, barriers, loads, atomics) on three more
/// configurations (w = 4, 8, 16; small tables), RTL and model in lockstep every cycle.
#[test]
fn random_programs_on_three_configurations() {
    use warpforge_testbench::isa::crown::run_crown;
    use warpforge_testbench::isa::Machine;
    use warpforge_testbench::sm::{random_program, RandomOptions};
    cache();
    let configs = [
        cfg(&[
            "w=4",
            "threads=128",
            "n2=128",
            "sets=4",
            "ways=2",
            "rl_rows=3",
            "wl_rows=2",
            "pool=4",
        ]),
        cfg(&[
            "threads=256",
            "n2=256",
            "sets=2",
            "ways=3",
            "rl_rows=4",
            "wl_rows=4",
            "pool=2",
        ]),
        cfg(&[
            "w=16",
            "threads=256",
            "n2=256",
            "sets=2",
            "ways=4",
            "rl_rows=16",
            "wl_rows=3",
            "pool=16",
            "pc_bits=12",
        ]),
    ];
    let mut cycles = 0;
    for (i, c) in configs.iter().enumerate() {
        for seed in 0..4u64 {
            let opts = RandomOptions {
                fp: false,
                ..Default::default()
            };
            let (p, launch) = random_program(1000 * i as u64 + seed, opts);
            let mut m = Machine::new(&p, &launch).unwrap();
            let mut e = RtlEngine::new(c, seed).unwrap();
            let s = run_crown(&mut m, &CrownOptions::new(c.clone()), &mut e)
                .unwrap_or_else(|e| panic!("config {i} seed {seed}: {e}"));
            cycles += s.cycles;
        }
    }
    eprintln!("{cycles} lockstep cycles");
    assert!(cycles > 10_000);
}
