//! The `dwr-ilt` model on its own: spec vectors (S9 FIFO capacity, duplicates, same-cycle
//! lookup, flush, A7 indexing), constrained-random runs over several geometries with the
//! invariants checked every cycle and the corners counted, fault injection, reproducibility.

mod dwr_common;

use dwr_common::{random_run, sets};
use warpforge_contract::params::Params;
use warpforge_contract::units::dwr_ilt::{self, IltConfig};
use warpforge_contract::Layout;
use warpforge_testbench::dwr_ilt::{
    spec_vectors, DwrIltModel, DwrIltStimulus, IltCounters, IltFault,
};
use warpforge_testbench::{harness, Model, SpecVector};

fn config(s: &[String]) -> IltConfig {
    let p = Params::resolve(dwr_ilt::NAME, dwr_ilt::PARAMS, None, s)
        .unwrap_or_else(|e| panic!("bad parameters: {e}"));
    IltConfig::from_params(&p).unwrap_or_else(|e| panic!("bad parameters: {e}"))
}

fn run(v: &SpecVector, fault: Option<IltFault>) -> Result<(), String> {
    assert_eq!(v.unit, dwr_ilt::NAME);
    let cfg = config(&v.sets);
    let mut model = DwrIltModel::new(&cfg);
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
    assert!(checked > 80, "only {checked} expected values");
    for want in [
        "S9",
        "registered table",
        "three inserts",
        "flush at kernel launch",
        "persists",
        "A7",
    ] {
        assert!(
            vectors.iter().any(|v| v.name.contains(want)),
            "no vector {want}"
        );
    }
}

#[test]
fn faulty_tables_fail_the_vectors() {
    let vectors = spec_vectors();
    for fault in [
        IltFault::Duplicates,
        IltFault::StaleHit,
        IltFault::StuckPointer,
    ] {
        assert!(
            vectors.iter().any(|v| run(v, Some(fault)).is_err()),
            "{fault:?} passes every vector"
        );
    }
}

fn configs() -> Vec<Vec<String>> {
    [
        &[][..],
        &["ilt_sets=4", "ilt_ways=4"],
        &["ilt_sets=2", "ilt_ways=4"],
        &["ilt_sets=1", "ilt_ways=2", "pc_bits=8"],
        &["ilt_sets=16", "ilt_ways=16", "insert_ports=3"],
        &["insert_ports=3", "pc_shift=3", "ilt_flush=false"],
        &["insert_ports=2", "ilt_sets=8", "ilt_ways=3", "pc_bits=12"],
    ]
    .iter()
    .map(|s| sets(s))
    .collect()
}

fn run_random(s: &[String], seed: u64, cycles: u64) -> IltCounters {
    let cfg = config(s);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrIltModel::new(&cfg);
    let mut stim = DwrIltStimulus::new(&cfg, seed);
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
        let c = run_random(&s, 4, 30_000);
        eprintln!("{s:?}: {c:?}");
        total += c.cycles;
        assert!(c.hits > 1000 && c.misses > 1000, "{s:?}: {c:?}");
        assert!(
            c.inserts > 100 && c.duplicates > 100 && c.evictions > 10,
            "{s:?}: {c:?}"
        );
        assert!(
            c.set_full > 100 && c.lookup_of_insert > 10 && c.resets >= 2,
            "{s:?}: {c:?}"
        );
        if cfg.flush_on_launch {
            assert!(c.flushes > 0, "{s:?}: {c:?}");
        }
        if cfg.insert_ports >= 2 {
            assert!(
                c.multi_requests[0] > 100 && c.same_cycle_duplicates > 10,
                "{s:?}: {c:?}"
            );
        }
        if cfg.insert_ports == 3 {
            assert!(c.multi_requests[1] > 100, "{s:?}: {c:?}");
        }
    }
    assert!(total >= 200_000);
    // Flushes in a cycle with inserts are rare: over more cycles of the 3-port default.
    let c = run_random(&sets(&["insert_ports=3"]), 8, 100_000);
    assert!(c.flushes_with_inserts > 0, "{c:?}");
}

#[test]
fn wrong_behaviour_is_caught_by_the_invariants() {
    let cfg = config(&sets(&["ilt_sets=2", "ilt_ways=4", "insert_ports=3"]));
    let layout = Layout::new(&cfg.ports());
    for (fault, want) in [
        (IltFault::Duplicates, "duplicate"),
        (IltFault::StaleHit, "lookup"),
        (IltFault::StuckPointer, "FIFO"),
    ] {
        let mut model = DwrIltModel::new(&cfg);
        model.inject_fault(Some(fault));
        let mut stim = DwrIltStimulus::new(&cfg, 2);
        let e = harness::first_failure(&mut model, &mut stim, &layout, 200_000)
            .unwrap_or_else(|| panic!("{fault:?} never caught"));
        assert!(e.contains(want), "{fault:?}: {e}");
    }
}

#[test]
fn the_stimulus_is_reproducible_from_its_seed() {
    let cfg = config(&sets(&["insert_ports=3"]));
    let layout = Layout::new(&cfg.ports());
    let stream = |seed| {
        harness::io_trace(
            &mut DwrIltModel::new(&cfg),
            &mut DwrIltStimulus::new(&cfg, seed),
            &layout,
            5_000,
        )
    };
    assert_eq!(stream(5), stream(5));
    assert_ne!(stream(5), stream(6));
}

/// The coverage counters over the S9 vector: ten inserts of which the last two evict, then
/// four lookups of which three hit (every cycle out of reset looks up).
#[test]
fn events_count_the_s9_vector() {
    let v = spec_vectors()
        .into_iter()
        .find(|v| v.name.contains("S9 ILT capacity"))
        .unwrap();
    let cfg = config(&v.sets);
    let mut model = DwrIltModel::new(&cfg);
    harness::run_vector(&mut model, &Layout::new(&cfg.ports()), &v).unwrap();
    assert_eq!(
        model.events(),
        [
            ("inserts", 10),
            ("lookups", 14),
            ("hits", 3),
            ("evictions", 2),
            ("flushes", 0),
            ("duplicates", 0)
        ]
    );
}

#[test]
fn events_of_a_random_run() {
    let s = sets(&[]);
    let cfg = config(&s);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrIltModel::new(&cfg);
    let mut stim = DwrIltStimulus::new(&cfg, 8);
    random_run(
        &mut model,
        &mut stim,
        &layout,
        5_000,
        "events",
        |_, _, _| {},
    );
    let e = model.events();
    assert_eq!(e[0].0, "inserts");
    assert!(e[0].1 > 0 && e[2].1 > 0, "{e:?}");
}
