//! The `dwr-pst` model on its own: spec vectors (the §3.4 arrival rules, Eq. 5-1 releases
//! including an exit alone and D4), constrained-random runs with the invariants checked every
//! cycle and the corners counted, fault injection and reproducibility.

mod dwr_common;

use dwr_common::{random_run, sets};
use warpforge_contract::params::Params;
use warpforge_contract::units::dwr_pst::{self, PstConfig};
use warpforge_contract::Layout;
use warpforge_testbench::dwr_pst::{
    spec_vectors, DwrPstModel, DwrPstStimulus, PstCounters, PstFault,
};
use warpforge_testbench::{harness, Model, SpecVector};

fn config(s: &[String]) -> PstConfig {
    let p = Params::resolve(dwr_pst::NAME, dwr_pst::PARAMS, None, s)
        .unwrap_or_else(|e| panic!("bad parameters: {e}"));
    PstConfig::from_params(&p).unwrap_or_else(|e| panic!("bad parameters: {e}"))
}

fn run(v: &SpecVector, fault: Option<PstFault>) -> Result<(), String> {
    assert_eq!(v.unit, dwr_pst::NAME);
    let cfg = config(&v.sets);
    let mut model = DwrPstModel::new(&cfg);
    model.inject_fault(fault);
    harness::run_vector(&mut model, &Layout::new(&cfg.ports()), v).map(|_| ())
}

#[test]
fn every_spec_vector_passes() {
    let vectors = spec_vectors();
    for v in &vectors {
        run(v, None).unwrap();
    }
    assert!(vectors.len() >= 6);
    let checked: usize = vectors
        .iter()
        .flat_map(|v| &v.cycles)
        .map(|c| c.expect.len())
        .sum();
    assert!(checked > 80, "only {checked} expected values");
    for want in [
        "§4.4",
        "arrival rules",
        "exit-only",
        "lone member",
        "four rows",
        ">= N",
    ] {
        assert!(
            vectors.iter().any(|v| v.name.contains(want)),
            "no vector {want}"
        );
    }
}

#[test]
fn faulty_tables_fail_the_vectors() {
    // Each wrong rule is visible at the ports of some vector.
    let vectors = spec_vectors();
    for fault in [
        PstFault::NoD4,
        PstFault::ReleaseOnlyOnArrival,
        PstFault::KeepRowOnRelease,
        PstFault::HitLocks,
    ] {
        assert!(
            vectors.iter().any(|v| run(v, Some(fault)).is_err()),
            "{fault:?} passes every vector"
        );
    }
}

fn configs() -> Vec<Vec<String>> {
    [
        &["threads=64", "group_size=8"][..],
        &["threads=32", "group_size=4"],
        &["threads=96", "group_size=4"],
        &["threads=64", "group_size=2", "pc_bits=8"],
        &[],
        &["threads=512", "subwarp_size=16", "group_size=2"],
        &["threads=2048", "group_size=8"],
    ]
    .iter()
    .map(|s| sets(s))
    .collect()
}

fn run_random(s: &[String], seed: u64, cycles: u64) -> PstCounters {
    let cfg = config(s);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrPstModel::new(&cfg);
    let mut stim = DwrPstStimulus::new(&cfg, seed);
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
        let c = run_random(&s, 3, 30_000);
        eprintln!("{s:?}: {c:?}");
        total += c.cycles;
        assert!(
            c.opened > 100 && c.same_pc > 100 && c.mismatches > 100 && c.bypasses > 100,
            "{s:?}: {c:?}"
        );
        assert!(c.releases > 100 && c.d4_releases > 10, "{s:?}: {c:?}");
        assert!(
            c.releases_without_arrival > 10 && c.open_and_release > 10,
            "{s:?}: {c:?}"
        );
        if cfg.geometry.groups() >= 2 {
            assert!(c.multi_row_releases > 0, "{s:?}: {c:?}");
        }
        assert!(c.resets >= 2, "{s:?}: {c:?}");
        if cfg.geometry.groups() <= 16 {
            assert!(c.table_full > 0, "{s:?}: {c:?}");
        }
        if !cfg.geometry.subwarps().is_power_of_two() {
            assert!(c.ignored_arrivals > 0, "{s:?}: {c:?}");
        }
    }
    assert!(total >= 200_000);
}

#[test]
fn wrong_behaviour_is_caught_by_the_invariants() {
    let cfg = config(&sets(&["threads=64", "group_size=4"]));
    let layout = Layout::new(&cfg.ports());
    for (fault, want) in [
        (PstFault::NoD4, "Eq. 5-1"),
        (PstFault::ReleaseOnlyOnArrival, "Eq. 5-1"),
        (PstFault::KeepRowOnRelease, "A6"),
        (PstFault::HitLocks, "I-"),
    ] {
        let mut model = DwrPstModel::new(&cfg);
        model.inject_fault(Some(fault));
        let mut stim = DwrPstStimulus::new(&cfg, 9);
        let e = harness::first_failure(&mut model, &mut stim, &layout, 100_000)
            .unwrap_or_else(|| panic!("{fault:?} never caught"));
        assert!(e.contains(want), "{fault:?}: {e}");
    }
}

#[test]
fn the_stimulus_is_reproducible_from_its_seed() {
    let cfg = config(&sets(&["threads=64", "group_size=4"]));
    let layout = Layout::new(&cfg.ports());
    let stream = |seed| {
        harness::io_trace(
            &mut DwrPstModel::new(&cfg),
            &mut DwrPstStimulus::new(&cfg, seed),
            &layout,
            5_000,
        )
    };
    assert_eq!(stream(5), stream(5));
    assert_ne!(stream(5), stream(6));
}

/// The coverage counters over the §3.4 arrival-rules vector: five arrivals, of which two are
/// ILT hits (bypasses) and three lock (open, same PC, mismatch); one release, by D4.
#[test]
fn events_count_the_arrival_rules_vector() {
    let v = spec_vectors()
        .into_iter()
        .find(|v| v.name.contains("§3.4 arrival rules"))
        .unwrap();
    let cfg = config(&v.sets);
    let mut model = DwrPstModel::new(&cfg);
    harness::run_vector(&mut model, &Layout::new(&cfg.ports()), &v).unwrap();
    assert_eq!(
        model.events(),
        [
            ("arrivals", 3),
            ("releases", 1),
            ("rows_opened", 1),
            ("mismatches", 1),
            ("ilt_bypasses", 2),
            ("d4_releases", 1)
        ]
    );
}

#[test]
fn events_of_a_random_run() {
    let s = sets(&["threads=64", "group_size=4"]);
    let cfg = config(&s);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrPstModel::new(&cfg);
    let mut stim = DwrPstStimulus::new(&cfg, 8);
    random_run(
        &mut model,
        &mut stim,
        &layout,
        5_000,
        "events",
        |_, _, _| {},
    );
    let e = model.events();
    assert_eq!(e[0].0, "arrivals");
    assert!(e[0].1 > 0 && e[1].1 > 0, "{e:?}");
}
