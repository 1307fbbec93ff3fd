//! DTM execution mode on the model: every suite kernel's outputs equal the host reference
//! with reused results taken from the tables (I1), every reuse equals executing (I2), the
//! counts equal warp mode's (I7); reuse happens of every kind on the suite.

use warpforge_contract::units::dtm_top::{self, DtmConfig};
use warpforge_contract::Params;
use warpforge_testbench::isa::dtm::{DtmEngine, ModelEngine};
use warpforge_testbench::isa::kernels::SUITE;
use warpforge_testbench::isa::suite::run_dtm_case;
use warpforge_testbench::isa::AsmOptions;

fn cfg(sets: &[&str]) -> DtmConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(dtm_top::NAME, dtm_top::PARAMS, None, &sets).unwrap();
    DtmConfig::from_params(&p).unwrap()
}

#[test]
fn every_suite_kernel_passes_with_reuse_taken_from_the_model() {
    let c = cfg(&["mtg_entries=256", "mtt_entries=256"]);
    let mut make =
        |c: &DtmConfig| -> Result<Box<dyn DtmEngine>, String> { Ok(Box::new(ModelEngine::new(c))) };
    let (mut inter, mut intra, mut trace, mut bypassed) = (0, 0, 0, 0);
    for k in SUITE {
        let r = run_dtm_case(k, k.sizes[0], 1, &c, &AsmOptions::default(), &mut make);
        assert!(r.passed(), "{}: {}", k.name, r.error.unwrap());
        let s = r.stats.unwrap();
        eprintln!(
            "{:12} reuse {:5.1}% inter {} intra {} trace {} bypassed {} saved {} of {} ({:.1}s)",
            k.name,
            s.reuse_pct(),
            s.inter,
            s.intra,
            s.trace,
            s.bypassed,
            s.saved_cycles,
            s.cycles_without,
            r.seconds
        );
        inter += s.inter;
        intra += s.intra;
        trace += s.trace;
        bypassed += s.bypassed;
    }
    assert!(inter > 0 && intra > 0 && trace > 0 && bypassed > 0);
}

/// The shadow check (I2) can fail: a model that delivers a wrong MTG result, or a wrong
/// trace output, is caught by the execution mode at the first such reuse.
#[test]
fn a_wrong_reused_value_is_caught() {
    use warpforge_testbench::dtm::DtmFault;
    use warpforge_testbench::isa::kernels::find;
    let c = cfg(&["mtg_entries=256", "mtt_entries=256"]);
    for (fault, what) in [
        (DtmFault::ResultOffByOne, "the MTG gave"),
        (DtmFault::TraceValueOffByOne, "differs from executing it"),
    ] {
        let mut make = |c: &DtmConfig| -> Result<Box<dyn DtmEngine>, String> {
            let mut e = ModelEngine::new(c);
            e.model.inject_fault(Some(fault));
            Ok(Box::new(e))
        };
        let k = find("nqueens").unwrap();
        let r = run_dtm_case(k, k.sizes[0], 1, &c, &AsmOptions::default(), &mut make);
        let e = r.error.expect("a wrong reused value went unnoticed");
        assert!(e.contains("I2") && e.contains(what), "{e}");
    }
}

/// I12 on the model: with `enable = 0` a kernel reuses nothing, saves no cycle (the cycle
/// count is warp mode's: one issue slot per warp instruction) and leaves the tables' digest
/// as reset left it; enabled, the same kernel does all three, so each assertion can fail.
/// A top that still looks up and inserts while disabled is caught by the model's I12 check.
#[test]
fn a_disabled_dtm_is_neutral_and_a_top_inserting_while_disabled_is_caught() {
    use warpforge_testbench::dtm::DtmFault;
    use warpforge_testbench::isa::kernels::find;
    use warpforge_testbench::isa::suite::{run_case, Mode};
    let k = find("pathfinder").unwrap();
    let asm = AsmOptions::default();
    let base = run_case(k, k.sizes[0], 1, Mode::Warp(8), &asm);
    let slots = base.warp.expect("warp mode counts").warp_instructions;
    let run = |sets: &[&str], fault: Option<DtmFault>| {
        let mut make = |c: &DtmConfig| -> Result<Box<dyn DtmEngine>, String> {
            let mut e = ModelEngine::new(c);
            e.model.inject_fault(fault);
            Ok(Box::new(e))
        };
        run_dtm_case(k, k.sizes[0], 1, &cfg(sets), &asm, &mut make)
    };
    let off = run(&["enable=0"], None);
    assert!(off.passed(), "{}", off.error.unwrap());
    let s = off.stats.unwrap();
    assert_eq!(
        (s.inter, s.intra, s.trace, s.bypassed, s.saved_cycles),
        (0, 0, 0, 0, 0)
    );
    assert_eq!((s.cycles_without, s.cycles_dtm), (slots, slots));
    assert!(!s.tables_changed);
    let on = run(&["enable=1"], None).stats.unwrap();
    assert!(on.inter + on.intra + on.trace > 0 && on.cycles_dtm < slots && on.tables_changed);
    let bad = run(&["enable=0"], Some(DtmFault::InsertWhileDisabled));
    let e = bad
        .error
        .expect("a top inserting while disabled went unnoticed");
    assert!(e.contains("I12: DTM disabled, but dtm-"), "{e}");
}
