//! `dtm` (the DTM@GPU top) in lockstep: its spec vectors on model and RTL, the quick
//! suite's constrained-random configurations (run by tests/lockstep.rs; 3 configurations ×
//! 2 seeds), and proof that lockstep catches a wrong RTL: the sequencer grouping every
//! MTT-hit lane regardless of its `npc` (A9 broken), caught at the cycle and port the model
//! with the same fault predicts.

use warpforge_cosim::lockstep;
use warpforge_cosim::registry::{self, Unit};
use warpforge_cosim::regress;
use warpforge_hdl::Design;
use warpforge_testbench::dtm::{DtmFault, DtmModel};

const UNIT: &str = "dtm";

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
        "mtg_ways=16",
        "mtg_ports=4",
        "cand=1",
        "cand=3",
        "simd_width=8",
        "trace_policy=unanimous",
        "tb_pool=5",
        "isz=8",
    ] {
        assert!(has(kv), "no configuration with {kv}");
    }
    let c = regress::coverage(UNIT, "quick").unwrap();
    assert!(c.seeds >= 2, "{c:?}");
    assert!(c.jobs >= 6, "{c:?}");
}

#[test]
fn a_group_ignoring_npc_in_the_rtl_is_caught() {
    let sets: Vec<String> = regress::configs(UNIT)[0].clone();
    let unit = Unit::resolve(UNIT, &sets).unwrap();
    let mut d: Design = unit.design();
    // `1'b1 | (a == b)` is 1: every hit lane joins the group.
    let from = "] && tnpc[";
    assert_eq!(d.verilog.matches(from).count(), 4);
    d.verilog = d.verilog.replace(from, "] && 1'b1 | tnpc[");
    let c = {
        use warpforge_contract::units::dtm_top::{DtmConfig, PARAMS};
        let p = warpforge_contract::Params::resolve(UNIT, PARAMS, None, &unit.params.as_sets())
            .unwrap();
        DtmConfig::from_params(&p).unwrap()
    };
    let mut bad = DtmModel::new(&c);
    bad.inject_fault(Some(DtmFault::GroupIgnoresNpc));
    lockstep::check_planted_bug(&unit, &d, Box::new(bad), 1, 400_000)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// DTM execution mode through the RTL: four suite kernels (blocks of 128 threads: one
/// Verilator build) with the `dtm` RTL deciding reuse in lockstep with its model every
/// cycle; outputs equal to the host reference (I1), every reuse equal to executing (I2),
/// counts equal to warp mode's (I7). The other kernels and table sizes: `regress --suite
/// full`.
#[test]
fn suite_kernels_run_with_the_rtl_deciding_reuse() {
    use warpforge_contract::units::dtm_top::{DtmConfig, PARAMS};
    use warpforge_cosim::dtm_run::RtlEngine;
    use warpforge_testbench::isa::dtm::DtmEngine;
    use warpforge_testbench::isa::kernels::find;
    use warpforge_testbench::isa::suite::run_dtm_case;
    use warpforge_testbench::isa::AsmOptions;
    let sets: Vec<String> = vec!["mtg_entries=128".into(), "mtt_entries=128".into()];
    let p = warpforge_contract::Params::resolve(UNIT, PARAMS, None, &sets).unwrap();
    let cfg = DtmConfig::from_params(&p).unwrap();
    let mut make = |c: &DtmConfig| -> Result<Box<dyn DtmEngine>, String> {
        RtlEngine::new(c, &sets, 1).map(|e| Box::new(e) as Box<dyn DtmEngine>)
    };
    let mut reused = 0;
    for name in ["reduce", "histogram", "pathfinder", "strmatch"] {
        let k = find(name).unwrap();
        let r = run_dtm_case(k, k.sizes[0], 1, &cfg, &AsmOptions::default(), &mut make);
        assert!(r.passed(), "{name}: {}", r.error.unwrap());
        let s = r.stats.unwrap();
        assert!(
            s.engine_cycles > 10_000,
            "{name}: {} cycles",
            s.engine_cycles
        );
        reused += s.inter + s.intra + s.trace;
    }
    assert!(reused > 0);
}

/// A10 with the RTL answering: `group_skip` is the SM's issue rule over the top's per-lane
/// `rsp_exec`, so the saved lane groups counted from the RTL's responses equal those from
/// the model alone (the same build as above: 128 entries, blocks of 128 threads).
#[test]
fn group_skip_counts_from_the_rtl_equal_the_models() {
    use warpforge_contract::units::dtm_top::{DtmConfig, DtmModes, PARAMS};
    use warpforge_cosim::dtm_run::RtlEngine;
    use warpforge_testbench::isa::dtm::{DtmEngine, ModelEngine};
    use warpforge_testbench::isa::kernels::find;
    use warpforge_testbench::isa::suite::run_dtm_case_modes;
    use warpforge_testbench::isa::AsmOptions;
    let all: Vec<String> = [
        "mtg_entries=128",
        "mtt_entries=128",
        "fu_width=2",
        "group_skip=1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (sets, modes) = DtmModes::split(&all, true).unwrap();
    let p = warpforge_contract::Params::resolve(UNIT, PARAMS, None, &sets).unwrap();
    let cfg = DtmConfig::from_params(&p).unwrap();
    let k = find("pathfinder").unwrap();
    let mut rtl = |c: &DtmConfig| -> Result<Box<dyn DtmEngine>, String> {
        RtlEngine::new(c, &sets, 1).map(|e| Box::new(e) as Box<dyn DtmEngine>)
    };
    let mut model =
        |c: &DtmConfig| -> Result<Box<dyn DtmEngine>, String> { Ok(Box::new(ModelEngine::new(c))) };
    let asm = AsmOptions::default();
    let a = run_dtm_case_modes(k, k.sizes[0], 1, &cfg, &modes, &asm, &mut rtl);
    let b = run_dtm_case_modes(k, k.sizes[0], 1, &cfg, &modes, &asm, &mut model);
    assert!(a.passed(), "{}", a.error.unwrap());
    let (a, b) = (a.stats.unwrap(), b.stats.unwrap());
    assert!(a.saved_groups > 0);
    assert_eq!(
        (a.saved_groups, a.saved_cycles, a.cycles_without),
        (b.saved_groups, b.saved_cycles, b.cycles_without)
    );
}

/// I12 with the RTL answering (`run --suite --dtm --set enable=0`'s path): a kernel whose
/// enabled run reuses (see the model test `a_disabled_dtm_is_neutral…`) reuses nothing,
/// saves no cycle — its cycle count is the baseline's, one issue slot per warp instruction
/// of warp mode — and the tables' digest after the kernel equals the one after reset (the
/// model's tables, equal to the RTL's as far as every output of every cycle shows, I8).
#[test]
fn a_disabled_dtm_is_neutral_with_the_rtl_answering() {
    use warpforge_contract::units::dtm_top::{DtmConfig, PARAMS};
    use warpforge_cosim::dtm_run::RtlEngine;
    use warpforge_testbench::isa::dtm::DtmEngine;
    use warpforge_testbench::isa::kernels::find;
    use warpforge_testbench::isa::suite::{run_case, run_dtm_case, Mode};
    use warpforge_testbench::isa::AsmOptions;
    let sets: Vec<String> = ["mtg_entries=128", "mtt_entries=128", "enable=0"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let p = warpforge_contract::Params::resolve(UNIT, PARAMS, None, &sets).unwrap();
    let cfg = DtmConfig::from_params(&p).unwrap();
    let mut make = |c: &DtmConfig| -> Result<Box<dyn DtmEngine>, String> {
        RtlEngine::new(c, &sets, 1).map(|e| Box::new(e) as Box<dyn DtmEngine>)
    };
    let k = find("pathfinder").unwrap();
    let asm = AsmOptions::default();
    let r = run_dtm_case(k, k.sizes[0], 1, &cfg, &asm, &mut make);
    assert!(r.passed(), "{}", r.error.unwrap());
    let s = r.stats.unwrap();
    let slots = run_case(k, k.sizes[0], 1, Mode::Warp(8), &asm)
        .warp
        .unwrap()
        .warp_instructions;
    assert_eq!(
        (s.inter, s.intra, s.trace, s.bypassed, s.saved_cycles),
        (0, 0, 0, 0, 0)
    );
    assert_eq!((s.cycles_without, s.cycles_dtm), (slots, slots));
    assert!(!s.tables_changed);
    assert!(s.engine_cycles > 1000, "{} cycles", s.engine_cycles);
}

/// The RTL side of I12 can fail: the enabled top's RTL in place of the disabled one (it
/// looks up, inserts and forms traces while `enable = 0`) is caught at the cycle and port
/// the model with the same fault predicts.
#[test]
fn an_rtl_inserting_while_disabled_is_caught() {
    use warpforge_contract::units::dtm_top::{DtmConfig, PARAMS};
    let mut sets: Vec<String> = regress::configs(UNIT)[0].clone();
    sets.push("enable=0".into());
    let unit = Unit::resolve(UNIT, &sets).unwrap();
    let cfg = |sets: &[String]| {
        let p = warpforge_contract::Params::resolve(UNIT, PARAMS, None, sets).unwrap();
        DtmConfig::from_params(&p).unwrap()
    };
    let off = cfg(&sets);
    let on = cfg(&regress::configs(UNIT)[0]);
    let mut d: Design = warpforge_hdl::dtm_top::generate(&on);
    assert_ne!(on.module_name(), off.module_name());
    d.verilog = d.verilog.replace(&on.module_name(), &off.module_name());
    d.module = off.module_name();
    let mut bad = DtmModel::new(&off);
    bad.inject_fault(Some(DtmFault::InsertWhileDisabled));
    lockstep::check_planted_bug(&unit, &d, Box::new(bad), 1, 400_000)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// `regress --suite full` covers the execution mode's modes: `group_skip` and I12 through
/// the RTL, the analysis modes through the model; a `model:` job runs (here `lane_serial`
/// on reduce, whose lanes then hit each other's inserts).
#[test]
fn the_full_suite_runs_every_mode_of_the_execution_mode() {
    use warpforge_cosim::dtm_run::run_dtm_job;
    let jobs = regress::jobs("full").unwrap();
    let has = |set: &str, engine: &str| {
        jobs.iter().any(|j| {
            j.unit == UNIT
                && j.sets.iter().any(|s| s == set)
                && j.program.as_deref().is_some_and(|p| p.starts_with(engine))
        })
    };
    for (set, engine) in [
        ("group_skip=1", "kernel:"),
        ("enable=0", "kernel:"),
        ("lane_serial=1", "model:"),
        ("table_scope=lane", "model:"),
        ("branch_eligible=1", "model:"),
    ] {
        assert!(has(set, engine), "no {engine} job with {set}");
    }
    let (ok, cycles, msg) = run_dtm_job(&["lane_serial=1".into()], "model:reduce@1000");
    assert!(ok && cycles > 1000, "{msg}");
    let (ok, _, msg) = run_dtm_job(&["lane_serial=1".into()], "kernel:reduce@1000");
    assert!(
        !ok && msg.contains("lane_serial = 1: analysis only"),
        "{msg}"
    );
}
