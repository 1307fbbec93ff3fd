//! The `dwr` model on its own: the spec vectors (§4, §4.7, §8.2), the §4.5 numbers counted
//! from the outputs, long constrained-random runs with the §8.1 invariants checked every
//! cycle and the corners counted, the no-deadlock drain, fault injection and reproducibility.

mod dwr_common;

use dwr_common::sets;
use warpforge_contract::params::Params;
use warpforge_contract::units::dwr::{self, DwrConfig};
use warpforge_contract::Layout;
use warpforge_testbench::dwr::{spec_vectors, DwrCounters, DwrFault, DwrModel, DwrStimulus};
use warpforge_testbench::dwr_ilt::IltFault;
use warpforge_testbench::dwr_pst::PstFault;
use warpforge_testbench::dwr_sco::ScoFault;
use warpforge_testbench::{harness, Model, SpecVector};

fn config(s: &[String]) -> DwrConfig {
    let p = Params::resolve(dwr::NAME, dwr::PARAMS, None, s)
        .unwrap_or_else(|e| panic!("bad parameters: {e}"));
    DwrConfig::from_params(&p).unwrap_or_else(|e| panic!("bad parameters: {e}"))
}

fn run(v: &SpecVector) -> Result<Vec<Vec<u64>>, String> {
    assert_eq!(v.unit, dwr::NAME);
    let cfg = config(&v.sets);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrModel::new(&cfg);
    harness::run_vector(&mut model, &layout, v)
}

fn vector(name: &str) -> SpecVector {
    spec_vectors()
        .into_iter()
        .find(|v| v.name.contains(name))
        .unwrap_or_else(|| panic!("no vector {name}"))
}

#[test]
fn every_spec_vector_passes() {
    let vectors = spec_vectors();
    let mut checked = 0;
    let mut failures = vec![];
    for v in &vectors {
        match run(v) {
            Ok(_) => checked += v.cycles.iter().map(|c| c.expect.len()).sum::<usize>(),
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(vectors.len() >= 20, "only {} vectors", vectors.len());
    assert!(checked > 5000, "only {checked} expected values");
    for want in [
        "§4 S1",
        "without DWR",
        "S13",
        "S5 Alg. 5-2(a) sw0",
        "S5 Alg. 5-2(a) reverse",
        "S6",
        "S7",
        "S2",
        "S3",
        "S4",
        "S8",
        "S9",
        "S10",
        "S11",
        "S12",
        "S14",
        "S15",
        "A5 sco_match=pc",
        "A5 sco_match=matched",
        "reset",
    ] {
        assert!(
            vectors.iter().any(|v| v.name.contains(want)),
            "no vector {want}"
        );
    }
}

#[test]
fn a_wrong_expectation_is_reported() {
    // The runner really compares: flip the expected size of the §4 fused load.
    let mut v = vector("§4 S1");
    let c = &mut v.cycles[32];
    let size = c
        .expect
        .iter_mut()
        .find(|(n, _)| *n == "issue_size")
        .unwrap();
    assert_eq!(size.1, vec![2], "spec cycle 31 is the fused load");
    size.1[0] = 1;
    let e = run(&v).unwrap_err();
    assert!(e.contains("issue_size"), "{e}");
}

/// The §4.5 numbers, counted from a vector's outputs the way the spec defines them.
struct Numbers {
    completion: usize,
    slots: usize,
    bundles: usize,
    idle: Vec<usize>,
    fused: Vec<(usize, u64, u64)>,
}

fn numbers(v: &SpecVector) -> Numbers {
    let cfg = config(&v.sets);
    let layout = Layout::new(&cfg.ports());
    let trace = run(v).unwrap();
    let o = |n: &str| layout.output(n).unwrap().offset;
    let (iv, busy, fused, size, pc) = (
        o("issue_valid"),
        o("slot_busy"),
        o("issue_fused"),
        o("issue_size"),
        o("issue_pc"),
    );
    // Vector cycle k + 1 is spec cycle k.
    let spec: Vec<&Vec<u64>> = trace.iter().skip(1).collect();
    let completion = spec.iter().rposition(|out| out[iv] == 1).unwrap();
    Numbers {
        completion,
        slots: spec[..=completion]
            .iter()
            .filter(|out| out[busy] == 1)
            .count(),
        bundles: spec.iter().filter(|out| out[iv] == 1).count(),
        idle: (1..=completion).filter(|&c| spec[c][busy] == 0).collect(),
        fused: (0..spec.len())
            .filter(|&c| spec[c][iv] == 1 && spec[c][fused] == 1)
            .map(|c| (c, spec[c][size], spec[c][pc]))
            .collect(),
    }
}

#[test]
fn section_4_5_numbers_from_the_outputs() {
    // DWR: done at 48, 40 slots in 39 bundles, idle 33–40, one fused load of 2 at PC 11.
    let d = numbers(&vector("§4 S1"));
    assert_eq!(d.completion, 48);
    assert_eq!(d.slots, 40);
    assert_eq!(d.bundles, 39);
    assert_eq!(d.idle, (33..=40).collect::<Vec<_>>());
    assert_eq!(d.fused, vec![(31, 2, 11)]);
    // Without DWR: done at 51, 38 slots, idle 31–38 and 43–47.
    let s = numbers(&vector("without DWR"));
    assert_eq!(s.completion, 51);
    assert_eq!(s.slots, 38);
    assert_eq!(s.idle, (31..=38).chain(43..=47).collect::<Vec<_>>());
    assert!(s.fused.is_empty());
    // BAR_LAT = 24: the fused load at 54, done at 71 (48 + 23), 40 slots, idle 31.
    let b = numbers(&vector("S13"));
    assert_eq!(b.completion, 71);
    assert_eq!(b.slots, 40);
    assert_eq!(b.idle.len(), 31);
    assert_eq!(b.fused, vec![(54, 2, 11)]);
}

/// The configurations of the random runs: DWR-16/32/64, ILT sizes, BAR_LAT 1, 2 and 24,
/// both SCO modes, one-slice fusion, D4 learning off, a persistent ILT, narrow PCs.
fn random_configs() -> Vec<Vec<String>> {
    [
        &["threads=64", "group_size=8", "bar_lat=1"][..],
        &[
            "threads=64",
            "group_size=4",
            "bar_lat=2",
            "ilt_sets=2",
            "ilt_ways=4",
        ],
        &[
            "threads=32",
            "group_size=2",
            "bar_lat=1",
            "ilt_sets=1",
            "ilt_ways=2",
            "pc_bits=8",
        ],
        &[
            "threads=128",
            "group_size=2",
            "bar_lat=3",
            "ilt_sets=4",
            "ilt_ways=4",
            "sco_match=matched",
        ],
        &[
            "threads=256",
            "group_size=8",
            "bar_lat=2",
            "fused_slices=one",
            "d4_learn=false",
        ],
        &[
            "threads=64",
            "group_size=4",
            "bar_lat=1",
            "sco_match=matched",
            "ilt_flush=false",
            "pc_shift=2",
        ],
        &["bar_lat=24"],
        &[
            "threads=512",
            "subwarp_size=16",
            "group_size=4",
            "bar_lat=5",
            "ilt_sets=16",
            "ilt_ways=16",
        ],
    ]
    .iter()
    .map(|s| sets(s))
    .collect()
}

fn run_random(s: &[String], seed: u64, cycles: u64) -> DwrCounters {
    let cfg = config(s);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrModel::new(&cfg);
    let mut stim = DwrStimulus::new(&cfg, seed);
    let n = cfg.geometry.subwarps();
    let dbg_state = layout.output("dbg_state").unwrap().offset;
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    let mut before: Vec<u64> = vec![0; n];
    for c in 0..cycles {
        warpforge_testbench::Stimulus::next(&mut stim, c, &outputs, &mut inputs);
        model.step(&inputs, &mut outputs);
        if let Err(e) = model.check_invariants() {
            panic!(
                "{s:?} seed {seed}: cycle {c}: {e}\n  {}",
                model.state_line()
            );
        }
        // dbg_state shows the states at the start of the cycle, code by code (§2.6).
        if c > 0 {
            for (sw, &code) in before.iter().enumerate() {
                let shown = warpforge_testbench::words::get(&outputs[dbg_state..], 3 * sw, 3);
                assert_eq!(
                    shown, code,
                    "{s:?} seed {seed}: cycle {c}: dbg_state of sub-warp {sw}"
                );
            }
        }
        for (sw, code) in before.iter_mut().enumerate() {
            *code = model.states().of(sw).code();
        }
        if c % 1009 == 0 {
            dwr_common::assert_clean_outputs(&layout, &outputs);
        }
    }
    model.counters().clone()
}

#[test]
fn random_runs_keep_every_invariant_and_reach_the_corners() {
    let mut total = 0;
    let mut all = DwrCounters::default();
    for s in random_configs() {
        let cfg = config(&s);
        let w = cfg.geometry.group_size;
        let c = run_random(&s, 11, 40_000);
        total += c.cycles;
        eprintln!("{s:?}: {c:?}");
        // Every instruction class, fused bundles of every size, all barrier outcomes.
        assert!(c.single_by_kind.iter().all(|&k| k > 50), "{s:?}: {c:?}");
        for size in 1..=w {
            assert!(
                c.fused_by_size[size - 1] > 0,
                "{s:?}: no fused bundle of {size}: {c:?}"
            );
        }
        assert!(c.partners_left_out > 0, "{s:?}: {c:?}");
        assert!(
            c.hits > 50 && c.opened > 50 && c.same_pc > 50 && c.mismatches > 50,
            "{s:?}: {c:?}"
        );
        assert!(c.releases > 100 && c.d4_releases > 5, "{s:?}: {c:?}");
        assert!(
            c.releases_without_action > 10 && c.open_and_release > 5,
            "{s:?}: {c:?}"
        );
        assert!(
            c.ilt_inserts > 50 && c.ilt_evictions > 0 && c.ilt_set_full > 0,
            "{s:?}: {c:?}"
        );
        assert!(c.resets >= 2, "{s:?}: {c:?}");
        if cfg.ilt.flush_on_launch {
            assert!(c.flushes > 0, "{s:?}: {c:?}");
        }
        assert!(c.launches > 100 && c.launches_ignored > 0, "{s:?}: {c:?}");
        assert!(
            c.writebacks > 100 && c.blockbar_releases > 10,
            "{s:?}: {c:?}"
        );
        if cfg.bar_lat > 1 {
            assert!(c.writebacks_during_barrier > 0, "{s:?}: {c:?}");
        }
        if cfg.geometry.groups() <= 16 {
            assert!(c.pst_full > 0, "{s:?}: {c:?}");
        }
        assert!(c.all_empty > 0, "{s:?}: drains never emptied the SM: {c:?}");
        for (k, v) in [
            c.hold_cycles,
            c.junk_kinds,
            c.multi_row_releases,
            c.ilt_duplicates,
            c.flushes_with_inserts,
            c.busy_cycles,
        ]
        .into_iter()
        .enumerate()
        {
            all.fused_by_size[k] += v;
        }
        all.insert_requests[1] += c.insert_requests[1];
        all.insert_requests[2] += c.insert_requests[2];
    }
    // Rarer corners, over all configurations together.
    let names = [
        "hold",
        "junk kinds",
        "multi-row releases",
        "ILT duplicates",
        "flush with inserts",
        "busy cycles",
    ];
    for (k, name) in names.iter().enumerate() {
        assert!(all.fused_by_size[k] > 0, "never: {name}");
    }
    assert!(
        all.insert_requests[1] > 0,
        "never two ILT inserts in one cycle"
    );
    eprintln!("three ILT inserts in one cycle: {}", all.insert_requests[2]);
    assert!(total >= 300_000);
}

/// I-LIVENESS: every random run that stops issuing arrivals ends with every group released
/// and every sub-warp gone.
#[test]
fn no_deadlock_every_run_drains() {
    let mut runs = 0;
    for s in random_configs() {
        for seed in 1..=6u64 {
            let cfg = config(&s);
            let layout = Layout::new(&cfg.ports());
            let mut model = DwrModel::new(&cfg);
            let mut stim = DwrStimulus::new(&cfg, 100 + seed);
            let what = format!("{s:?} seed {seed}");
            let mut inputs = vec![0u64; layout.in_words];
            let mut outputs = vec![0u64; layout.out_words];
            let busy_for = 2_000 + 1_500 * seed;
            let mut drained_at = None;
            for c in 0..busy_for + 20_000 {
                if c == busy_for {
                    stim.drain();
                }
                warpforge_testbench::Stimulus::next(&mut stim, c, &outputs, &mut inputs);
                model.step(&inputs, &mut outputs);
                model
                    .check_invariants()
                    .unwrap_or_else(|e| panic!("{what}: cycle {c}: {e}"));
                if c > busy_for && model.drained() {
                    drained_at = Some(c - busy_for);
                    break;
                }
            }
            let Some(t) = drained_at else {
                panic!(
                    "{what}: not drained 20000 cycles after the last arrival: {}",
                    model.state_line()
                );
            };
            assert!(model.pst().valid_rows().is_zero());
            assert!(t < 10_000, "{what}: drain took {t} cycles");
            runs += 1;
        }
    }
    assert_eq!(runs, 48);
}

/// Without rule D4 a partner blocked in __syncthreads never releases its group: the drain
/// hangs and the invariants say why.
#[test]
fn without_d4_the_drain_deadlocks_and_the_invariants_see_it() {
    let v = vector("S6 Alg. 5-2(b): D4 release, ILT = {P2}");
    let cfg = config(&v.sets);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrModel::new(&cfg);
    model.inject_fault(Some(DwrFault::Pst(PstFault::NoD4)));
    let e = harness::run_vector(&mut model, &layout, &v).unwrap_err();
    assert!(e.contains("I-LIVENESS"), "{e}");
}

fn catch(s: &[&str], fault: DwrFault) -> String {
    let cfg = config(&sets(s));
    let layout = Layout::new(&cfg.ports());
    for seed in 1..=5 {
        let mut model = DwrModel::new(&cfg);
        model.inject_fault(Some(fault));
        let mut stim = DwrStimulus::new(&cfg, seed);
        if let Some(e) = harness::first_failure(&mut model, &mut stim, &layout, 100_000) {
            return e;
        }
    }
    panic!("{fault:?} was never caught");
}

#[test]
fn wrong_behaviour_is_caught_by_the_invariants() {
    let small = ["threads=64", "group_size=4", "bar_lat=2"];
    for (fault, want) in [
        (DwrFault::Pst(PstFault::NoD4), "I-LIVENESS"),
        (DwrFault::Pst(PstFault::ReleaseOnlyOnArrival), "I-LIVENESS"),
        (DwrFault::Pst(PstFault::KeepRowOnRelease), "I-LOCK"),
        (DwrFault::Pst(PstFault::HitLocks), "I-LOCK"),
        (DwrFault::Ilt(IltFault::Duplicates), "I-ILT"),
        (DwrFault::Ilt(IltFault::StuckPointer), "I-ILT"),
        (DwrFault::Sco(ScoFault::AnyPc), "I-FUSE"),
        (DwrFault::Sco(ScoFault::DropPartner), "I-FUSE"),
        (DwrFault::RrSkipsFirst, "round robin"),
        (DwrFault::NoSliceHold, "I-ISSUE"),
    ] {
        let e = catch(&small, fault);
        assert!(e.contains(want), "{fault:?}: {e}");
    }
    // With BAR_LAT ≥ 3 a writeback wrongly accepted during the barrier shows in the state.
    let e = catch(
        &["threads=64", "group_size=4", "bar_lat=3"],
        DwrFault::WritebackDuringBarrier,
    );
    assert!(e.contains("barrier pipeline"), "{e}");
    // A stale ILT hit after a flush is a hit the table does not hold.
    let e = catch(
        &[
            "threads=32",
            "group_size=2",
            "bar_lat=1",
            "ilt_sets=1",
            "ilt_ways=2",
        ],
        DwrFault::Ilt(IltFault::StaleHit),
    );
    assert!(
        e.contains("I-BYPASS") || e.contains("I-ILT") || e.contains("I-LOCK"),
        "{e}"
    );
}

#[test]
fn the_stimulus_is_reproducible_from_its_seed() {
    let s = sets(&["threads=64", "group_size=4", "bar_lat=2"]);
    let cfg = config(&s);
    let layout = Layout::new(&cfg.ports());
    let stream = |seed| {
        let mut m = DwrModel::new(&cfg);
        let mut st = DwrStimulus::new(&cfg, seed);
        harness::io_trace(&mut m, &mut st, &layout, 5_000)
    };
    assert_eq!(stream(42), stream(42));
    assert_ne!(stream(42), stream(43));
}

#[test]
fn state_line_names_the_state() {
    let cfg = config(&sets(&["threads=32", "group_size=4", "bar_lat=1"]));
    let model = DwrModel::new(&cfg);
    let line = model.state_line();
    assert!(
        line.contains("states[0000]") && line.contains("ptr 3"),
        "{line}"
    );
}

/// Stimulus + model + invariant checks of the four DWR units at their default (thesis)
/// configurations, in cycles per second. Timing-dependent, so run on demand:
/// `cargo test --release -p warpforge-testbench --test dwr_model -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput_at_the_default_configs() {
    use warpforge_contract::units::{dwr_ilt, dwr_pst, dwr_sco};
    use warpforge_testbench::{dwr_ilt as ilt, dwr_pst as pst, dwr_sco as sco, Stimulus};
    fn measure(name: &str, layout: &Layout, model: &mut dyn Model, stim: &mut dyn Stimulus) -> f64 {
        let mut inputs = vec![0u64; layout.in_words];
        let mut outputs = vec![0u64; layout.out_words];
        let n = 1_000_000;
        // The stimulus alone (against fixed outputs), then everything.
        let t = std::time::Instant::now();
        for cycle in 0..n {
            stim.next(cycle, &outputs, &mut inputs);
        }
        let stim_s = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        for cycle in 0..n {
            stim.next(n + cycle, &outputs, &mut inputs);
            model.step(&inputs, &mut outputs);
            model.check_invariants().unwrap();
        }
        let cps = n as f64 / t.elapsed().as_secs_f64();
        eprintln!(
            "{name}: {:.2} M cycles/s (stimulus + step + invariants; the stimulus alone {:.0} ns a cycle)",
            cps / 1e6,
            stim_s / n as f64 * 1e9
        );
        cps
    }
    // DWR_BENCH_UNIT=<unit> measures one unit only (e.g. under `perf stat`).
    let only = std::env::var("DWR_BENCH_UNIT").ok();
    let want = |u: &str| only.as_deref().is_none_or(|o| o == u);
    let p = |name, specs| Params::resolve(name, specs, None, &[]).unwrap();
    let mut rates = vec![];
    if want("dwr") {
        let c = DwrConfig::from_params(&p(dwr::NAME, dwr::PARAMS)).unwrap();
        let (mut m, mut st) = (DwrModel::new(&c), DwrStimulus::new(&c, 1));
        rates.push(measure("dwr", &Layout::new(&c.ports()), &mut m, &mut st));
    }
    if want("dwr-pst") {
        let c = dwr_pst::PstConfig::from_params(&p(dwr_pst::NAME, dwr_pst::PARAMS)).unwrap();
        let (mut m, mut st) = (pst::DwrPstModel::new(&c), pst::DwrPstStimulus::new(&c, 1));
        rates.push(measure(
            "dwr-pst",
            &Layout::new(&c.ports()),
            &mut m,
            &mut st,
        ));
    }
    if want("dwr-ilt") {
        let c = dwr_ilt::IltConfig::from_params(&p(dwr_ilt::NAME, dwr_ilt::PARAMS)).unwrap();
        let (mut m, mut st) = (ilt::DwrIltModel::new(&c), ilt::DwrIltStimulus::new(&c, 1));
        rates.push(measure(
            "dwr-ilt",
            &Layout::new(&c.ports()),
            &mut m,
            &mut st,
        ));
    }
    if want("dwr-sco") {
        let c = dwr_sco::ScoConfig::from_params(&p(dwr_sco::NAME, dwr_sco::PARAMS)).unwrap();
        let (mut m, mut st) = (sco::DwrScoModel::new(&c), sco::DwrScoStimulus::new(&c, 1));
        rates.push(measure(
            "dwr-sco",
            &Layout::new(&c.ports()),
            &mut m,
            &mut st,
        ));
    }
    for cps in rates {
        assert!(cps > 2e5, "{cps:.0} cycles/s");
    }
}

/// The coverage counters over the §4 S1 vector: 39 bundles, one of them a fused pair (the
/// §4.5 numbers above); three sub-warps launched (A, B, C), A and C reach P (two barrier
/// actions, one release of their row), the fused load's two writebacks. The barrier actions,
/// ILT hits and partner releases agree with the action and release ports.
#[test]
fn events_count_the_s1_vector() {
    let v = vector("§4 S1");
    let cfg = config(&v.sets);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrModel::new(&cfg);
    let trace = harness::run_vector(&mut model, &layout, &v).unwrap();
    let e = model.events();
    let get = |n: &str| e.iter().find(|x| x.0 == n).unwrap().1;
    assert_eq!(e[0], ("issues", 39));
    assert_eq!(get("fusions"), 1);
    assert_eq!(get("fused_subwarps"), 2);
    let s = |n: &str| {
        let p = layout.output(n).unwrap();
        trace
            .iter()
            .map(|out| {
                out[p.offset..p.offset + p.words]
                    .iter()
                    .map(|w| w.count_ones() as u64)
                    .sum::<u64>()
            })
            .sum::<u64>()
    };
    assert_eq!(s("issue_valid"), 39);
    assert_eq!(get("barrier_actions"), s("act_valid"));
    assert_eq!(get("ilt_hits"), s("act_hit"));
    assert_eq!(get("partner_releases"), s("rel"));
    assert_eq!(
        e,
        [
            ("issues", 39),
            ("fusions", 1),
            ("fused_subwarps", 2),
            ("barrier_actions", 2),
            ("ilt_hits", 0),
            ("partner_releases", 1),
            ("ilt_inserts", 0),
            ("ilt_evictions", 0),
            ("flushes", 0),
            ("launches", 3),
            ("writebacks", 2),
            ("blockbar_releases", 0)
        ]
    );
}

#[test]
fn events_of_a_random_run() {
    let s = sets(&[]);
    let cfg = config(&s);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrModel::new(&cfg);
    let mut stim = DwrStimulus::new(&cfg, 8);
    dwr_common::random_run(
        &mut model,
        &mut stim,
        &layout,
        5_000,
        "events",
        |_, _, _| {},
    );
    let e = model.events();
    assert_eq!(e[0].0, "issues");
    assert!(e[0].1 > 0, "{e:?}");
    let get = |n: &str| e.iter().find(|x| x.0 == n).unwrap().1;
    assert!(get("fusions") > 0 && get("barrier_actions") > 0, "{e:?}");
}
