//! The `dwr-sco` model on its own: spec vectors (fusing exactly the combine-ready partners at
//! the selected PC; the matched mode), random runs with I-FUSE/I-SINGLE checked on every
//! bundle and the bundle sizes counted, fault injection and reproducibility.

mod dwr_common;

use dwr_common::{random_run, sets};
use warpforge_contract::params::Params;
use warpforge_contract::units::dwr_sco::{self, ScoConfig};
use warpforge_contract::Layout;
use warpforge_testbench::dwr_sco::{
    spec_vectors, DwrScoModel, DwrScoStimulus, ScoCounters, ScoFault,
};
use warpforge_testbench::{harness, Model, SpecVector};

fn config(s: &[String]) -> ScoConfig {
    let p = Params::resolve(dwr_sco::NAME, dwr_sco::PARAMS, None, s)
        .unwrap_or_else(|e| panic!("bad parameters: {e}"));
    ScoConfig::from_params(&p).unwrap_or_else(|e| panic!("bad parameters: {e}"))
}

fn run(v: &SpecVector, fault: Option<ScoFault>) -> Result<(), String> {
    assert_eq!(v.unit, dwr_sco::NAME);
    let cfg = config(&v.sets);
    let mut model = DwrScoModel::new(&cfg);
    model.inject_fault(fault);
    harness::run_vector(&mut model, &Layout::new(&cfg.ports()), v).map(|_| ())
}

#[test]
fn every_spec_vector_passes() {
    let vectors = spec_vectors();
    for v in &vectors {
        run(v, None).unwrap();
    }
    let checked: usize = vectors
        .iter()
        .flat_map(|v| &v.cycles)
        .map(|c| c.expect.len())
        .sum();
    assert!(checked > 50, "only {checked} expected values");
    for want in ["§4 SCO", "group 1", "matched", ">= N"] {
        assert!(
            vectors.iter().any(|v| v.name.contains(want)),
            "no vector {want}"
        );
    }
}

#[test]
fn faulty_combiners_fail_the_vectors() {
    let vectors = spec_vectors();
    for fault in [ScoFault::AnyPc, ScoFault::DropPartner] {
        assert!(
            vectors.iter().any(|v| run(v, Some(fault)).is_err()),
            "{fault:?} passes every vector"
        );
    }
}

fn configs() -> Vec<Vec<String>> {
    [
        &[][..],
        &["group_size=4", "threads=32"],
        &["group_size=2", "threads=96"],
        &["group_size=4", "threads=96", "sco_match=matched"],
        &[
            "group_size=8",
            "subwarp_size=32",
            "threads=2048",
            "pc_bits=12",
        ],
        &["group_size=8", "threads=64", "sco_match=matched"],
    ]
    .iter()
    .map(|s| sets(s))
    .collect()
}

fn run_random(s: &[String], seed: u64, cycles: u64) -> ScoCounters {
    let cfg = config(s);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrScoModel::new(&cfg);
    let mut stim = DwrScoStimulus::new(&cfg, seed);
    random_run(
        &mut model,
        &mut stim,
        &layout,
        cycles,
        &format!("{s:?} seed {seed}"),
        |_, _, _| {},
    );
    model.counters().clone()
}

#[test]
fn random_runs_keep_every_invariant_and_reach_the_corners() {
    let mut total = 0;
    for s in configs() {
        let cfg = config(&s);
        let c = run_random(&s, 7, 40_000);
        eprintln!("{s:?}: {c:?}");
        total += c.cycles;
        for size in 1..=cfg.geometry.group_size {
            assert!(c.fused_by_size[size - 1] > 10, "{s:?}: size {size}: {c:?}");
        }
        assert!(
            c.single > 1000 && c.idle > 1000 && c.partners_left_out > 1000,
            "{s:?}: {c:?}"
        );
        if !cfg.geometry.subwarps().is_power_of_two() {
            assert!(c.out_of_range > 10, "{s:?}: {c:?}");
        }
    }
    assert!(total >= 200_000);
}

#[test]
fn wrong_behaviour_is_caught_by_the_invariants() {
    for fault in [ScoFault::AnyPc, ScoFault::DropPartner] {
        let cfg = config(&sets(&["group_size=4", "threads=64"]));
        let layout = Layout::new(&cfg.ports());
        let mut model = DwrScoModel::new(&cfg);
        model.inject_fault(Some(fault));
        let mut stim = DwrScoStimulus::new(&cfg, 1);
        let e = harness::first_failure(&mut model, &mut stim, &layout, 10_000)
            .unwrap_or_else(|| panic!("{fault:?} never caught"));
        assert!(e.contains("I-FUSE"), "{fault:?}: {e}");
    }
}

#[test]
fn the_stimulus_is_reproducible_from_its_seed() {
    let cfg = config(&sets(&["group_size=4", "threads=64"]));
    let layout = Layout::new(&cfg.ports());
    let stream = |seed| {
        harness::io_trace(
            &mut DwrScoModel::new(&cfg),
            &mut DwrScoStimulus::new(&cfg, seed),
            &layout,
            3_000,
        )
    };
    assert_eq!(stream(5), stream(5));
    assert_ne!(stream(5), stream(6));
}

/// The coverage counters over the §4 vector: four fused bundles (sizes 2, 2, 1 with its
/// partner at another PC left out, 3), two plain selections, one cycle without a selection.
#[test]
fn events_count_the_section_4_vector() {
    let v = spec_vectors()
        .into_iter()
        .find(|v| v.name.contains("§4 SCO: fuse exactly"))
        .unwrap();
    let cfg = config(&v.sets);
    let mut model = DwrScoModel::new(&cfg);
    harness::run_vector(&mut model, &Layout::new(&cfg.ports()), &v).unwrap();
    assert_eq!(
        model.events(),
        [
            ("fusions", 4),
            ("fused_subwarps", 8),
            ("singles", 2),
            ("partners_left_out", 1)
        ]
    );
}

#[test]
fn events_of_a_random_run() {
    let s = sets(&[]);
    let cfg = config(&s);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrScoModel::new(&cfg);
    let mut stim = DwrScoStimulus::new(&cfg, 8);
    random_run(
        &mut model,
        &mut stim,
        &layout,
        5_000,
        "events",
        |_, _, _| {},
    );
    let e = model.events();
    assert_eq!(e[0].0, "fusions");
    assert!(e[0].1 > 0 && e[1].1 > e[0].1, "{e:?}");
}
