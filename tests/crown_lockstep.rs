//! `crown-lookup` and `crown-barrier` in lockstep: every spec vector (C3–C7, the one-sided
//! branch, the contract's corners) on model and RTL, constrained-random lockstep on several
//! configurations and seeds with the corners reached in the RTL run, and proof that lockstep
//! catches a wrong RTL: a design with one rule of the contract broken (the draining head
//! still a merge target; the arrival check blind to this cycle's reservation) is reported at
//! the first cycle and port where it differs, which the test predicts from the model with the
//! same fault.

use warpforge_contract::Params;
use warpforge_cosim::lockstep::{self, Options, Source};
use warpforge_cosim::registry::{self, Unit};
use warpforge_hdl::Design;
use warpforge_testbench::crown_barrier::{BarrierFault, CrownBarrierModel};
use warpforge_testbench::crown_lookup::{CrownLookupModel, LookupFault};
use warpforge_testbench::Model;

#[test]
fn crown_spec_vectors_pass_on_model_and_rtl() {
    for unit in ["crown-lookup", "crown-barrier"] {
        let vectors = registry::spec_vectors(unit);
        assert!(vectors.len() >= 4, "{unit}");
        for v in &vectors {
            lockstep::run_spec_vector(v).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// Three configurations per unit (table sizes, w, both lookup kinds), two seeds each; the RTL
/// run must reach the unit's main events.
#[test]
fn random_lockstep_over_configurations_and_seeds() {
    let runs: [(&str, &[&str], &[&str]); 6] = [
        (
            "crown-lookup",
            &["kind=ready"],
            &["merges", "bypasses", "drains", "kept_apart"],
        ),
        (
            "crown-lookup",
            &["kind=ready", "rows=4", "w=4", "threads=64", "pc_bits=8"],
            &["merges", "bypasses", "drains"],
        ),
        (
            "crown-lookup",
            &["kind=waiting", "rows=4", "w=4", "threads=32", "pc_bits=8"],
            &["merges", "refused", "became_ready", "kept_apart"],
        ),
        (
            "crown-barrier",
            &["sets=4", "ways=4", "w=4", "threads=64"],
            &[
                "dedups",
                "alloc_fails",
                "completions",
                "same_cycle_absorbs",
                "multi_set_arrivals",
            ],
        ),
        (
            "crown-barrier",
            &["sets=8", "ways=2", "w=8", "threads=256", "pc_bits=12"],
            &["dedups", "alloc_fails", "completions", "multi_set_arrivals"],
        ),
        (
            "crown-barrier",
            &["sets=1", "ways=3", "w=8", "threads=64", "pc_bits=8"],
            &["dedups", "alloc_fails", "completions", "same_cycle_absorbs"],
        ),
    ];
    for (unit, sets, events) in runs {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let u = Unit::resolve(unit, &sets).unwrap();
        for seed in [1, 2] {
            let r = lockstep::run(
                &u,
                u.model(),
                Source::Random(u.stimulus(seed)),
                Options::new(20_000, seed),
            )
            .unwrap();
            assert!(r.passed(), "{}", r.render());
            for e in events {
                let n = r.coverage.events.get(*e).and_then(|v| v.as_u64());
                assert!(n.unwrap_or(0) > 0, "{unit} {sets:?} seed {seed}: no {e}");
            }
        }
    }
}

/// `unit`'s design with every occurrence of `from` replaced (it must occur).
fn planted(unit: &Unit, from: &str, to: &str) -> Design {
    let mut d = unit.design();
    assert!(d.verilog.contains(from), "`{from}` not in the design");
    d.verilog = d.verilog.replace(from, to);
    d
}

fn check_caught(unit: &Unit, design: &Design, bad: Box<dyn Model>) {
    lockstep::check_planted_bug(unit, design, bad, 3, 200_000).unwrap_or_else(|e| panic!("{e}"));
}

fn params(unit: &Unit) -> Params {
    unit.params.clone()
}

/// A crown-lookup configuration's RTL with `from` replaced by `to`, caught where the model
/// with `fault` says the bug first shows.
fn lookup_bug_is_caught(sets: &[&str], fault: LookupFault, from: &str, to: &str) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let unit = Unit::resolve("crown-lookup", &sets).unwrap();
    let cfg =
        warpforge_contract::units::crown_lookup::LookupConfig::from_params(&params(&unit)).unwrap();
    let mut bad = CrownLookupModel::new(&cfg);
    bad.inject_fault(Some(fault));
    check_caught(&unit, &planted(&unit, from, to), Box::new(bad));
}

#[test]
fn ready_lookup_merging_into_the_draining_head_is_caught() {
    lookup_bug_is_caught(
        &["kind=ready", "rows=4", "w=4", "threads=64", "pc_bits=8"],
        LookupFault::MergeIntoDrained,
        "& ~(draining & |s_valid__parts__",
        "& ~(1'b0 & |s_valid__parts__",
    );
}

#[test]
fn barrier_probe_blind_to_the_reservation_is_caught() {
    let sets: Vec<String> = ["sets=4", "ways=4", "w=4", "threads=64"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let unit = Unit::resolve("crown-barrier", &sets).unwrap();
    let cfg = warpforge_contract::units::crown_barrier::BarrierConfig::from_params(&params(&unit))
        .unwrap();
    let mut bad = CrownBarrierModel::new(&cfg);
    bad.inject_fault(Some(BarrierFault::ProbeBeforeReserve));
    let design = planted(&unit, "& new_pc_eq__eq;", "& 1'b0;");
    check_caught(&unit, &design, Box::new(bad));
}

/// A14: a Waiting Lookup whose CTA tags ignore `cta_mask` merges warps of two CTAs; caught
/// where the CTA-blind model says it first shows.
#[test]
fn waiting_lookup_blind_to_the_cta_is_caught() {
    lookup_bug_is_caught(
        &["kind=waiting", "rows=4", "w=4", "threads=32", "pc_bits=8"],
        LookupFault::CtaBlind,
        "_tag__mask__drv = cta_mask;",
        "_tag__mask__drv = 3'd0;",
    );
}
