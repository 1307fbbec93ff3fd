//! The MSAP units in lockstep: their spec vectors on model and RTL (Icarus), the quick
//! suite's constrained-random configurations (run by tests/lockstep.rs) of each unit (≥ 3 configurations, 2 seeds, ≥ 10^6
//! cycles per unit), and proof that lockstep catches a wrong RTL: a variant built only here is
//! reported at the first cycle and port where it differs, which this test predicts from the
//! model with the same fault.

use warpforge_contract::Params;
use warpforge_cosim::lockstep;
use warpforge_cosim::registry::{self, Unit};
use warpforge_cosim::regress;
use warpforge_hdl::Design;
use warpforge_testbench::msap_arbiter::{ArbFault, MsapArbiterModel};
use warpforge_testbench::msap_mc::{McFault, MsapMcModel};
use warpforge_testbench::msap_pl::{MsapPlModel, PlFault};
use warpforge_testbench::Model;

const UNITS: [&str; 3] = ["msap-arbiter", "msap-pl", "msap-mc"];

#[test]
fn spec_vectors_pass_on_model_and_rtl() {
    for unit in UNITS {
        let vectors = registry::spec_vectors(unit);
        assert!(vectors.len() >= 2, "{unit}");
        for v in &vectors {
            lockstep::run_spec_vector(v).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

#[test]
fn random_lockstep_covers_the_configurations() {
    for unit in UNITS {
        assert!(regress::configs(unit).len() >= 3, "{unit}");
    }
    let jobs: Vec<_> = regress::jobs("quick")
        .unwrap()
        .into_iter()
        .filter(|j| j.is_lockstep() && UNITS.contains(&j.unit))
        .collect();
    // tests/lockstep.rs runs every unit's quick jobs (and fails on any of them); here, what
    // they cover.
    for unit in UNITS {
        let of_unit: Vec<_> = jobs.iter().filter(|j| j.unit == unit).collect();
        let seeds: std::collections::BTreeSet<_> = of_unit.iter().map(|j| j.seed).collect();
        assert!(seeds.len() >= 2, "{unit}: seeds {seeds:?}");
        let cycles: u64 = of_unit.iter().map(|j| j.cycles).sum();
        assert!(cycles >= 1_000_000, "{unit}: only {cycles} lockstep cycles");
    }
}

/// `unit`'s design with each `(from, to)` replaced (`from` must occur exactly once).
fn planted(unit: &Unit, edits: &[(String, String)]) -> Design {
    let mut d = unit.design();
    for (from, to) in edits {
        assert_eq!(d.verilog.matches(from.as_str()).count(), 1, "`{from}`");
        d.verilog = d.verilog.replace(from.as_str(), to);
    }
    d
}

fn check_caught(unit: &Unit, design: &Design, bad: Box<dyn Model>) {
    lockstep::check_planted_bug(unit, design, bad, 3, 1_000_000).unwrap_or_else(|e| panic!("{e}"));
}

fn params(unit: &Unit, specs: &[warpforge_contract::ParamSpec]) -> Params {
    Params::resolve(unit.name(), specs, None, &unit.params.as_sets()).unwrap()
}

#[test]
fn arbiter_pointer_that_never_moves_is_caught() {
    use warpforge_contract::units::msap_arbiter::{ArbiterConfig, PARAMS};
    // The default configuration (a quick-suite one: its good build is cached by then).
    let unit = Unit::resolve("msap-arbiter", &[]).unwrap();
    let cfg = ArbiterConfig::from_params(&params(&unit, PARAMS)).unwrap();
    // Every level's pointer keeps its value on a used grant.
    let edits: Vec<_> = (0..cfg.ptrs())
        .map(|k| {
            (
                format!("ptr__{k}__d__drv = g;"),
                format!("ptr__{k}__d__drv = ptr__{k}__q;"),
            )
        })
        .collect();
    let d = planted(&unit, &edits);
    let mut bad = MsapArbiterModel::new(&cfg);
    bad.inject_fault(Some(ArbFault::NoPointerMove));
    check_caught(&unit, &d, Box::new(bad));
}

#[test]
fn pl_counting_merged_misses_is_caught() {
    use warpforge_contract::units::msap_pl::{PlConfig, PARAMS};
    let unit = Unit::resolve("msap-pl", &[]).unwrap();
    let cfg = PlConfig::from_params(&params(&unit, PARAMS)).unwrap();
    let d = planted(
        &unit,
        &[(
            "alloc = miss & ~merge & ~full;".into(),
            "alloc = miss & ~full;".into(),
        )],
    );
    let mut bad = MsapPlModel::new(&cfg);
    bad.inject_fault(Some(PlFault::CountMerges));
    check_caught(&unit, &d, Box::new(bad));
}

#[test]
fn mc_without_the_line_guard_is_caught() {
    use warpforge_contract::units::msap_mc::{McConfig, PARAMS};
    // A quick-suite configuration with narrow lines, so requests share lines often.
    let sets = [
        "depth=4",
        "pl_bits=2",
        "line_bits=6",
        "meta_bits=3",
        "age_thresh=3",
    ];
    let unit = Unit::resolve("msap-mc", &sets.map(String::from)).unwrap();
    let cfg = McConfig::from_params(&params(&unit, PARAMS)).unwrap();
    let d = planted(
        &unit,
        &[(
            "localparam  guard = 64'h1;".into(),
            "localparam  guard = 64'h0;".into(),
        )],
    );
    let mut bad = MsapMcModel::new(&cfg);
    bad.inject_fault(Some(McFault::NoGuard));
    check_caught(&unit, &d, Box::new(bad));
}
