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
    // A14 `merge_scope = cta` through the RTL: bitonic, which deadlocks on these small
    // barrier tables when warps regroup across CTAs (tests/crown_model.rs), runs to the right
    // output when the lookups keep CTAs apart.
    let k = SUITE.iter().find(|k| k.name == "bitonic").unwrap();
    let mut e = RtlEngine::new(&c, 7).unwrap();
    let mut o = CrownOptions::new(c.clone());
    o.cta_scope = true;
    let r = run_crown_case(k, k.sizes[0], 1, &o, &AsmOptions::default(), &mut e);
    assert!(r.passed(), "bitonic, merge_scope = cta: {:?}", r.error);
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

/// Seeded random programs (divergence, loops, barriers, loads, atomics) on the three
/// configurations `regress` uses (W = 4, 8, 16; small tables), RTL and model in lockstep every
/// cycle: programs in seed order until each configuration has run a third of 10^6 cycles.
#[test]
fn random_programs_on_three_configurations() {
    use warpforge_cosim::crown_run::run_random;
    use warpforge_cosim::regress::CROWN_CONFIGS;
    cache();
    let mut total = 0;
    for (i, sets) in CROWN_CONFIGS.iter().enumerate() {
        let c = cfg(sets);
        let (mut cycles, mut programs) = (0, 0);
        let mut seed = 1000 * i as u64;
        while cycles < 1_000_000 / 3 + 1 {
            let mut e = RtlEngine::new(&c, seed).unwrap();
            let s = run_random(&c, seed, &mut e)
                .unwrap_or_else(|e| panic!("config {i} seed {seed}: {e}"));
            cycles += s.cycles;
            programs += 1;
            seed += 1;
        }
        eprintln!("config {i}: {programs} programs, {cycles} lockstep cycles");
        total += cycles;
    }
    assert!(total >= 1_000_000);
}

/// `regress --suite full` lists CROWN-mode jobs, and they run: a random-program job on a small
/// configuration and a kernel job on the thesis configuration, both through the RTL.
#[test]
fn regress_runs_crown_program_jobs() {
    use warpforge_cosim::regress::{jobs, run_crown_job, CROWN_CONFIGS};
    cache();
    let full = jobs("full").unwrap();
    let crown: Vec<_> = full.iter().filter(|j| j.unit == NAME).collect();
    assert!(crown
        .iter()
        .any(|j| j.program.as_deref() == Some("random:0..25")));
    assert!(crown
        .iter()
        .any(|j| j.program.as_deref() == Some("kernel:strmatch@500")));
    assert_eq!(crown.len(), 14 + 600 / 25);
    assert!(!jobs("quick")
        .unwrap()
        .iter()
        .any(|j| j.unit == NAME && j.program.is_some()));
    let (ok, cycles, msg) = run_crown_job(&cfg(CROWN_CONFIGS[0]), "random:0..1");
    assert!(ok && cycles > 0, "{msg}");
    let (ok, cycles, msg) = run_crown_job(&default_config(), "kernel:reduce@1000");
    assert!(ok && cycles > 0 && msg.is_empty(), "{msg}");
}
