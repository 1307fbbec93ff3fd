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
