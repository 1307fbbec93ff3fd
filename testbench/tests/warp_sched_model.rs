//! The warp-sched model on its own: spec vectors, long constrained-random runs with the
//! invariants checked every cycle, fault injection, and stimulus reproducibility.

use warpforge_contract::manifest::Dir;
use warpforge_contract::params::Params;
use warpforge_contract::units::warp_sched::{self, QueueOrder, RecTrigger, WarpSchedConfig};
use warpforge_contract::Layout;
use warpforge_testbench::warp_sched::{
    spec_vectors, Corners, WarpSchedFault, WarpSchedModel, WarpSchedStimulus,
};
use warpforge_testbench::{harness, Model, SpecVector, Stimulus};

fn config(sets: &[String]) -> WarpSchedConfig {
    let p = Params::resolve(warp_sched::NAME, warp_sched::PARAMS, None, sets)
        .unwrap_or_else(|e| panic!("bad vector parameters: {e}"));
    WarpSchedConfig::from_params(&p).unwrap_or_else(|e| panic!("bad vector parameters: {e}"))
}

fn cfg(warps: usize, schedulers: usize, policy: &str) -> WarpSchedConfig {
    config(&[
        format!("warps={warps}"),
        format!("schedulers={schedulers}"),
        format!("policy={policy}"),
    ])
}

/// Drive one spec vector through the model (the shared harness: listed inputs packed, the
/// rest 0; listed outputs compared on every non-reset cycle; invariants every cycle).
fn run_vector(v: &SpecVector) -> Result<(), String> {
    assert_eq!(v.unit, warp_sched::NAME);
    let cfg = config(&v.sets);
    let layout = Layout::new(&cfg.ports());
    let mut model = WarpSchedModel::new(&cfg);
    harness::run_vector(&mut model, &layout, v).map(|_| ())
}

#[test]
fn every_spec_vector_passes() {
    let vectors = spec_vectors();
    assert!(vectors.len() >= 13, "only {} vectors", vectors.len());
    let mut checked = 0;
    for v in &vectors {
        run_vector(v).unwrap();
        checked += v.cycles.iter().map(|c| c.expect.len()).sum::<usize>();
    }
    assert!(checked > 200, "only {checked} expected values");
    for want in [
        "§4.1 vector A (lrr)",
        "§4.1 vector A (gto)",
        "§4.2 vector B (lrr)",
        "§4.2 vector B (gto)",
        "S2",
        "S3",
        "S4",
        "S5",
        "S6",
        "two schedulers",
        "§4.2 vector B (mto)",
        "§4.2 vector B (motrr)",
        "§4.2 vector B (motrr-recency)",
        "§4.3 vector C",
        "§4.3 saturation and tie",
        "§4.3b vector E (defaults)",
        "§4.3b vector E (mem_order=oldest)",
        "§4.3b vector E (split_ptr=true)",
        "§4.4 vector D (lrr)",
        "§4.4 vector D (gto)",
        "§4.4 vector D (mto)",
        "§4.4 vector D (motrr)",
        "§4.4 vector D (motrr-recency)",
        "rec_trigger=issue, S11",
        "S8 cap edge",
        "S10 shared recency register",
        "with split_ptr=true (S11)",
        "§6.1 ordering: events",
        "§6.1 ordering: row 8 priority position 10",
        "§6.1 greedy within TB",
        "§6.2 simultaneous arrivals (w6",
        "§6.2 simultaneous arrivals (variant",
        "T3",
        "T4",
        "T5",
        "bar_sched_en=false (BAR T1)",
    ] {
        assert!(
            vectors.iter().any(|v| v.name.contains(want)),
            "no vector {want}"
        );
    }
}

#[test]
fn a_wrong_expectation_is_reported() {
    // The runner really compares: flip one expected issue slot of vector A.
    let mut v = spec_vectors()
        .into_iter()
        .find(|v| v.name.contains("vector A (gto)"))
        .unwrap();
    let c = v
        .cycles
        .iter_mut()
        .find(|c| c.expect.iter().any(|(n, _)| *n == "issue_slot"))
        .unwrap();
    for (n, val) in c.expect.iter_mut() {
        if *n == "issue_slot" {
            val[0] ^= 1;
        }
    }
    let e = run_vector(&v).unwrap_err();
    assert!(e.contains("issue_slot"), "{e}");
}

/// What a random run exercised.
#[derive(Default, Debug)]
struct Coverage {
    cycles: u64,
    issues: [u64; 2],
    dual_issue: u64,
    mem_issues: u64,
    launches: u64,
    launch_bursts: u64,
    exits: u64,
    exit_bursts: u64,
    resets_after_start: u64,
    all_resident: u64,
    few_resident: u64,
    no_unit_free: u64,
    greedy_dropped: u64,
}

fn random_run(cfg: &WarpSchedConfig, seed: u64, cycles: u64, cov: &mut Coverage) {
    let layout = Layout::new(&cfg.ports());
    let mut model = WarpSchedModel::new(cfg);
    let mut stim = WarpSchedStimulus::new(cfg, seed);
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    let o = |n: &str| layout.output(n).unwrap().offset;
    let i = |n: &str| layout.input(n).unwrap().offset;
    let (iv, imem, res) = (o("issue_valid"), o("issue_is_mem"), o("dbg_resident"));
    let (ireset, ilaunch, iexit, ifree) = (i("reset"), i("launch"), i("exit"), i("unit_free"));
    let all = if cfg.warps == 64 {
        u64::MAX
    } else {
        (1 << cfg.warps) - 1
    };
    let mut prev_gv = 0u64;
    for c in 0..cycles {
        stim.next(c, &outputs, &mut inputs);
        // Protocol: launches only into free slots, exits only of resident warps.
        let resident = model.resident();
        if inputs[ireset] == 0 {
            assert_eq!(
                inputs[ilaunch] & resident,
                0,
                "cycle {c}: launch into resident"
            );
            assert_eq!(inputs[iexit] & !resident, 0, "cycle {c}: exit of free slot");
        }
        model.step(&inputs, &mut outputs);
        if let Err(e) = model.check_invariants() {
            panic!(
                "{cfg:?} seed {seed} cycle {c}: {e}\n  {}",
                model.state_line()
            );
        }
        cov.cycles += 1;
        if inputs[ireset] != 0 {
            cov.resets_after_start += (c >= 2) as u64;
            prev_gv = 0;
            continue;
        }
        let v = outputs[iv];
        for s in 0..cfg.schedulers {
            cov.issues[s] += v >> s & 1;
        }
        cov.dual_issue += (v == 0b11) as u64;
        cov.mem_issues += outputs[imem].count_ones() as u64;
        let (l, x) = (inputs[ilaunch], inputs[iexit]);
        cov.launches += l.count_ones() as u64;
        cov.launch_bursts += (l.count_ones() >= 2) as u64;
        cov.exits += x.count_ones() as u64;
        cov.exit_bursts += (x.count_ones() >= 2) as u64;
        cov.all_resident += (outputs[res] == all) as u64;
        let n_res = outputs[res].count_ones();
        cov.few_resident += (n_res > 0 && n_res <= 3) as u64;
        cov.no_unit_free += (inputs[ifree] == 0) as u64;
        // A greedy bit that is clear after an edge: only an exit or relaunch of its warp.
        let now_gv = model_greedy(&model, cfg.schedulers);
        cov.greedy_dropped += (prev_gv & !now_gv != 0) as u64;
        prev_gv = now_gv;
    }
}

fn model_greedy(m: &WarpSchedModel, schedulers: usize) -> u64 {
    (0..schedulers).fold(0, |acc, s| acc | (m.greedy_valid(s) as u64) << s)
}

#[test]
fn random_runs_keep_every_invariant_and_cover_the_corners() {
    let configs = [
        cfg(48, 2, "gto"),
        cfg(48, 2, "lrr"),
        cfg(64, 2, "gto"),
        cfg(7, 1, "lrr"),
        cfg(16, 1, "gto"),
        cfg(2, 2, "lrr"),
    ];
    let mut total = 0;
    for c in &configs {
        let mut cov = Coverage::default();
        for seed in [1, 2, 3] {
            random_run(c, seed, 25_000, &mut cov);
        }
        total += cov.cycles;
        for s in 0..c.schedulers {
            assert!(cov.issues[s] > 1000, "{c:?}: scheduler {s} issued {cov:?}");
        }
        if c.schedulers == 2 {
            assert!(cov.dual_issue > 100, "{c:?}: {cov:?}");
        }
        assert!(cov.mem_issues > 100, "{c:?}: {cov:?}");
        assert!(cov.launches > 100 && cov.exits > 100, "{c:?}: {cov:?}");
        if c.warps >= 4 {
            assert!(
                cov.launch_bursts > 10 && cov.exit_bursts > 5,
                "{c:?}: {cov:?}"
            );
            assert!(cov.few_resident > 1000, "{c:?}: {cov:?}");
        }
        assert!(cov.all_resident > 1000, "{c:?}: {cov:?}");
        assert!(cov.no_unit_free > 1000, "{c:?}: {cov:?}");
        assert!(cov.greedy_dropped > 10, "{c:?}: {cov:?}");
        eprintln!("{c:?}: {cov:?}");
    }
    assert!(total >= 400_000);
}

#[test]
fn mid_run_resets_happen() {
    // About one reset in 20 000 cycles after the initial two.
    let c = cfg(48, 2, "gto");
    let mut cov = Coverage::default();
    random_run(&c, 99, 200_000, &mut cov);
    assert!(
        (2..=40).contains(&cov.resets_after_start),
        "{} mid-run resets",
        cov.resets_after_start
    );
}

/// Run a faulty model until `check_invariants` fails; return the message.
fn catch(cfg: &WarpSchedConfig, fault: WarpSchedFault) -> String {
    let layout = Layout::new(&cfg.ports());
    let mut model = WarpSchedModel::new(cfg);
    model.inject_fault(Some(fault));
    let mut stim = WarpSchedStimulus::new(cfg, 5);
    harness::first_failure(&mut model, &mut stim, &layout, 50_000)
        .unwrap_or_else(|| panic!("{fault:?} was never caught"))
}

#[test]
fn wrong_decisions_are_caught_by_the_invariants() {
    let e = catch(&cfg(8, 1, "gto"), WarpSchedFault::GtoPicksYoungest);
    assert!(e.starts_with("I5"), "{e}");
    let e = catch(&cfg(8, 2, "lrr"), WarpSchedFault::LrrSkipsFirst);
    assert!(e.starts_with("I4"), "{e}");
    let e = catch(&cfg(8, 2, "gto"), WarpSchedFault::DropIssue);
    assert!(e.starts_with("I2"), "{e}");
    let e = catch(&cfg(8, 1, "gto"), WarpSchedFault::KeepGreedyOnExit);
    assert!(e.contains("greedy"), "{e}");
}

fn stream(cfg: &WarpSchedConfig, seed: u64, cycles: u64) -> Vec<u64> {
    let layout = Layout::new(&cfg.ports());
    let mut model = WarpSchedModel::new(cfg);
    let mut stim = WarpSchedStimulus::new(cfg, seed);
    harness::io_trace(&mut model, &mut stim, &layout, cycles)
}

#[test]
fn same_seed_gives_the_same_stimulus() {
    let c = cfg(48, 2, "gto");
    assert_eq!(stream(&c, 42, 5000), stream(&c, 42, 5000));
    assert_ne!(stream(&c, 42, 5000), stream(&c, 43, 5000));
}

#[test]
fn first_two_cycles_reset() {
    let c = cfg(48, 2, "lrr");
    let s = stream(&c, 7, 3);
    let layout = Layout::new(&c.ports());
    let r = layout.input("reset").unwrap().offset;
    // io_trace: per cycle the inputs, then the outputs.
    let w = layout.in_words + layout.out_words;
    assert_eq!((s[r], s[w + r], s[2 * w + r]), (1, 1, 0));
}

/// Model + stimulus + invariant checks at the default configuration must leave most of the
/// lockstep budget (10^6 cycles/s) to the RTL. Timing-dependent, so run on demand:
/// `cargo test --release -p warpforge-testbench --test warp_sched_model -- --ignored`.
#[test]
#[ignore]
fn throughput_at_the_default_config() {
    for policy in ["gto", "lrr"] {
        let c = cfg(48, 2, policy);
        let layout = Layout::new(&c.ports());
        let mut model = WarpSchedModel::new(&c);
        let mut stim = WarpSchedStimulus::new(&c, 1);
        let mut inputs = vec![0u64; layout.in_words];
        let mut outputs = vec![0u64; layout.out_words];
        let n = 2_000_000;
        let t = std::time::Instant::now();
        for cycle in 0..n {
            stim.next(cycle, &outputs, &mut inputs);
            model.step(&inputs, &mut outputs);
            model.check_invariants().unwrap();
        }
        let cps = n as f64 / t.elapsed().as_secs_f64();
        eprintln!(
            "warp-sched {policy:?}: {:.1} M cycles/s (stimulus + step + invariants)",
            cps / 1e6
        );
        assert!(cps > 4e6, "{cps:.0} cycles/s");
    }
}

fn sets(list: &[&str]) -> WarpSchedConfig {
    config(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

fn vector(name: &str) -> SpecVector {
    spec_vectors()
        .into_iter()
        .find(|v| v.name.contains(name))
        .unwrap_or_else(|| panic!("no vector {name}"))
}

/// Run a vector on a model with `fault` injected; the error (vector mismatch or invariant).
fn run_vector_with(v: &SpecVector, fault: WarpSchedFault) -> Result<(), String> {
    let cfg = config(&v.sets);
    let layout = Layout::new(&cfg.ports());
    let mut model = WarpSchedModel::new(&cfg);
    model.inject_fault(Some(fault));
    harness::run_vector(&mut model, &layout, v).map(|_| ())
}

#[test]
fn the_new_vectors_reject_wrong_policies() {
    for (name, fault) in [
        (
            "§4.2 vector B (motrr-recency)",
            WarpSchedFault::IgnoreRecency,
        ),
        (
            "§4.4 vector D (motrr-recency)",
            WarpSchedFault::IgnoreRecency,
        ),
        ("§4.3 vector C", WarpSchedFault::EvictNewest),
        ("§4.3 saturation and tie", WarpSchedFault::EvictNewest),
        (
            "§4.3b vector E (defaults)",
            WarpSchedFault::MemIgnoresGreedy,
        ),
        ("§4.2 vector B (mto)", WarpSchedFault::ComputeFirst),
        (
            "§6.1 ordering: row 1 priority position 0",
            WarpSchedFault::BarIgnoresWaiters,
        ),
        ("§6.1 ordering: events", WarpSchedFault::NoReleaseByExit),
        ("T5", WarpSchedFault::NoReleaseByExit),
    ] {
        let v = vector(name);
        assert!(
            run_vector_with(&v, fault).is_err(),
            "{name} passes with {fault:?}"
        );
    }
}

/// Run the model on random stimulus with the invariants and the input protocol checked
/// every cycle; return the corners it reached.
fn corners_of(cfg: &WarpSchedConfig, seeds: &[u64], cycles: u64) -> Corners {
    let layout = Layout::new(&cfg.ports());
    let mut model = WarpSchedModel::new(cfg);
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    let i = |n: &str| layout.input(n).unwrap().offset;
    let (ireset, ilaunch, iexit) = (i("reset"), i("launch"), i("exit"));
    let mut replacements = 0u64;
    for &seed in seeds {
        let mut stim = WarpSchedStimulus::new(cfg, seed);
        for c in 0..cycles {
            stim.next(c, &outputs, &mut inputs);
            if inputs[ireset] == 0 {
                // Launches into resident slots are replacements (legal, and wanted here);
                // exits only of resident warps.
                let resident = model.resident();
                assert_eq!(inputs[iexit] & !resident, 0, "cycle {c}: exit of free slot");
                replacements += (inputs[ilaunch] & resident != 0) as u64;
            }
            model.step(&inputs, &mut outputs);
            if let Err(e) = model.check_invariants() {
                panic!(
                    "{cfg:?} seed {seed} cycle {c}: {e}\n  {}",
                    model.state_line()
                );
            }
        }
    }
    if cfg.has_recency() || cfg.has_barrier() {
        assert!(replacements > 100, "{replacements} replacements");
    }
    model.corners()
}

const CLASS_SPLIT_CONFIGS: &[&[&str]] = &[
    &["policy=mto", "warps=48", "schedulers=2"],
    &[
        "policy=mto",
        "warps=4",
        "schedulers=1",
        "mem_order=oldest",
        "mto_comp_order=oldest",
    ],
    &["policy=mto", "warps=16", "schedulers=2", "split_ptr=true"],
    &["policy=motrr", "warps=48", "schedulers=2"],
    &[
        "policy=motrr",
        "warps=7",
        "schedulers=1",
        "split_ptr=true",
        "mem_order=oldest",
    ],
];

const RECENCY_CONFIGS: &[&[&str]] = &[
    &["policy=motrr-recency", "warps=48", "schedulers=2"],
    &[
        "policy=motrr-recency",
        "warps=48",
        "schedulers=2",
        "n_cpl=2",
        "cnt_bits=3",
    ],
    &[
        "policy=motrr-recency",
        "warps=4",
        "schedulers=1",
        "cnt_bits=2",
        "rec_cap=ceil",
    ],
    &[
        "policy=motrr-recency",
        "warps=9",
        "schedulers=2",
        "rec_cap=below",
        "n_cpl=4",
        "split_ptr=true",
        "rec_class=global",
    ],
    &[
        "policy=motrr-recency",
        "warps=32",
        "schedulers=2",
        "rec_trigger=issue",
        "rec_class=global",
        "cnt_bits=4",
    ],
    &[
        "policy=motrr-recency",
        "warps=6",
        "schedulers=1",
        "rec_trigger=issue",
        "mem_order=oldest",
    ],
];

const BARRIER_CONFIGS: &[&[&str]] = &[
    &["policy=bar-gto", "warps=48", "schedulers=2"],
    &["policy=bar-gto", "warps=4", "schedulers=1", "ctas=2"],
    &["policy=bar-gto", "warps=12", "schedulers=2", "ctas=4"],
    &["policy=bar-gto", "warps=64", "schedulers=2", "ctas=16"],
    &[
        "policy=bar-gto",
        "warps=24",
        "schedulers=1",
        "bar_sched_en=false",
    ],
];

#[test]
fn class_split_random_runs_reach_their_corners() {
    for p in CLASS_SPLIT_CONFIGS {
        let c = sets(p);
        let k = corners_of(&c, &[1, 2], 60_000);
        assert!(k.issues > 20_000 && k.mem_issues > 5_000, "{p:?}: {k:?}");
        assert!(k.compute_fallback > 100, "{p:?}: {k:?}");
        if c.mem_order == QueueOrder::Gto {
            assert!(k.mem_greedy_not_oldest > 100, "{p:?}: {k:?}");
        }
        if c.split_pointers() {
            assert!(k.pointers_apart > 1000, "{p:?}: {k:?}");
        }
    }
}

#[test]
fn recency_random_runs_reach_their_corners() {
    for p in RECENCY_CONFIGS {
        let c = sets(p);
        let k = corners_of(&c, &[1, 2], 60_000);
        assert!(k.rec_events > 5_000, "{p:?}: {k:?}");
        assert!(k.rec_evict_event > 500, "{p:?}: {k:?}");
        // cap 0 exists at one resident warp for floor/below
        if c.recency.cap.cap(1) == 0 {
            assert!(k.rec_cap0_event > 10, "{p:?}: {k:?}");
        }
        assert!(k.rec_changed_pick > 100, "{p:?}: {k:?}");
        if c.recency.trigger == RecTrigger::Complete || c.warps <= 8 {
            assert!(k.rec_event_on_launch > 0, "{p:?}: {k:?}");
        }
        if c.warps >= 8 {
            assert!(k.rec_multi_evict_leave > 0, "{p:?}: {k:?}");
        }
        if c.recency.cnt_bits <= 3 && c.warps >= 8 {
            assert!(k.rec_tie_evict > 100, "{p:?}: {k:?}");
        }
        if c.recency.trigger == RecTrigger::Complete {
            assert!(k.rec_dropped > 100, "{p:?}: {k:?}");
        }
    }
}

#[test]
fn barrier_random_runs_reach_their_corners() {
    for p in BARRIER_CONFIGS {
        let c = sets(p);
        let k = corners_of(&c, &[1, 2], 60_000);
        assert!(k.bar_arrivals > 1_000, "{p:?}: {k:?}");
        assert!(k.bar_release_arrival > 100, "{p:?}: {k:?}");
        assert!(k.bar_release_exit > 5, "{p:?}: {k:?}");
        assert!(k.bar_waiting_leaves > 50, "{p:?}: {k:?}");
        assert!(k.bar_one_warp_release > 10, "{p:?}: {k:?}");
        if c.schedulers == 2 {
            assert!(k.bar_dual_arrival > 10, "{p:?}: {k:?}");
        }
        if c.barrier.sched_en {
            assert!(k.bar_rank_reorders > 100, "{p:?}: {k:?}");
        } else {
            assert_eq!(k.bar_rank_reorders, 0, "{p:?}");
        }
    }
}

/// Run a faulty model until `check_invariants` fails; return the message.
fn catch_in(sets_: &[&str], fault: WarpSchedFault) -> String {
    let cfg = sets(sets_);
    let layout = Layout::new(&cfg.ports());
    let mut model = WarpSchedModel::new(&cfg);
    model.inject_fault(Some(fault));
    let mut stim = WarpSchedStimulus::new(&cfg, 5);
    harness::first_failure(&mut model, &mut stim, &layout, 100_000)
        .unwrap_or_else(|| panic!("{fault:?} was never caught in {sets_:?}"))
}

#[test]
fn wrong_new_policies_are_caught_by_the_invariants() {
    use WarpSchedFault::*;
    let split = ["policy=motrr", "warps=8", "split_ptr=true"];
    let rec = ["policy=motrr-recency", "warps=8", "cnt_bits=3"];
    let bar = ["policy=bar-gto", "warps=12", "ctas=4"];
    for (cfg, fault, want) in [
        (&["policy=mto", "warps=8"][..], ComputeFirst, "I6"),
        (&["policy=motrr", "warps=8"][..], MemIgnoresGreedy, "I7"),
        (&split[..], KeepGreedyOnExit, "greedy"),
        (&rec[..], IgnoreRecency, "I9"),
        (&rec[..], EvictNewest, "I12"),
        (&bar[..], BarIgnoresWaiters, "BAR I4"),
        (&bar[..], NoReleaseByExit, "BAR I2"),
        (&bar[..], DropIssue, "I2"),
    ] {
        let e = catch_in(cfg, fault);
        assert!(
            e.starts_with(want) || (want == "greedy" && e.contains(want)),
            "{fault:?} in {cfg:?}: {e}"
        );
    }
}

/// Copy the port `name` from one layout's words to another's.
fn copy_port(from: &Layout, fw: &[u64], to: &Layout, tw: &mut [u64], name: &str) {
    let (a, b) = (from.input(name).unwrap(), to.input(name).unwrap());
    tw[b.offset..b.offset + b.words].copy_from_slice(&fw[a.offset..a.offset + a.words]);
}

fn same_output(la: &Layout, oa: &[u64], lb: &Layout, ob: &[u64], name: &str) -> bool {
    let (a, b) = (la.output(name).unwrap(), lb.output(name).unwrap());
    oa[a.offset..a.offset + a.words] == ob[b.offset..b.offset + b.words]
}

/// BAR T1 (a): without bar.sync, bar-gto with the feature off is GTO on every common output,
/// state digests included, cycle for cycle.
#[test]
fn barrier_feature_off_is_gto_cycle_for_cycle() {
    for (warps, scheds, seed) in [(48, 2, 1), (8, 1, 2), (13, 2, 3)] {
        let w = format!("warps={warps}");
        let s = format!("schedulers={scheds}");
        let gto = sets(&["policy=gto", &w, &s]);
        let bar = sets(&["policy=bar-gto", "bar_sched_en=false", "ctas=4", &w, &s]);
        let (lg, lb) = (Layout::new(&gto.ports()), Layout::new(&bar.ports()));
        let (mut mg, mut mb) = (WarpSchedModel::new(&gto), WarpSchedModel::new(&bar));
        let mut stim = WarpSchedStimulus::new(&gto, seed);
        let mut rng = warpforge_testbench::rng::Rng::new(seed);
        let (mut ig, mut ib) = (vec![0; lg.in_words], vec![0; lb.in_words]);
        let (mut og, mut ob) = (vec![0; lg.out_words], vec![0; lb.out_words]);
        let tb = lb.input("launch_tb").unwrap();
        let mut issues = 0;
        for c in 0..200_000u64 {
            stim.next(c, &og, &mut ig);
            ib.iter_mut().for_each(|x| *x = 0);
            for p in [
                "reset",
                "has_inst",
                "ready",
                "unit_free",
                "is_mem",
                "launch",
                "exit",
            ] {
                copy_port(&lg, &ig, &lb, &mut ib, p);
            }
            for k in 0..tb.words {
                ib[tb.offset + k] = rng.next_u64() & tb.word_mask(k);
            }
            mg.step(&ig, &mut og);
            mb.step(&ib, &mut ob);
            mb.check_invariants().unwrap();
            if ig[lg.input("reset").unwrap().offset] != 0 {
                continue;
            }
            for p in gto.ports().iter().filter(|p| p.dir == Dir::Out) {
                assert!(
                    same_output(&lg, &og, &lb, &ob, &p.name),
                    "{w} {s} cycle {c}: {} differs",
                    p.name
                );
            }
            issues += og[lg.output("issue_valid").unwrap().offset].count_ones();
        }
        assert!(issues > 50_000, "{issues}");
    }
}

/// BAR T1 (b): with barriers, bar-gto with the feature off issues as GTO does when GTO is told
/// the waiting warps are not ready.
#[test]
fn barrier_feature_off_with_barriers_is_gto_on_the_ready_warps() {
    for (warps, scheds, seed) in [(48, 2, 4), (12, 1, 5)] {
        let w = format!("warps={warps}");
        let s = format!("schedulers={scheds}");
        let gto = sets(&["policy=gto", &w, &s]);
        let bar = sets(&["policy=bar-gto", "bar_sched_en=false", "ctas=8", &w, &s]);
        let (lg, lb) = (Layout::new(&gto.ports()), Layout::new(&bar.ports()));
        let (mut mg, mut mb) = (WarpSchedModel::new(&gto), WarpSchedModel::new(&bar));
        let mut stim = WarpSchedStimulus::new(&bar, seed);
        let (mut ig, mut ib) = (vec![0; lg.in_words], vec![0; lb.in_words]);
        let (mut og, mut ob) = (vec![0; lg.out_words], vec![0; lb.out_words]);
        let ready = lg.input("ready").unwrap().offset;
        let mut released = 0;
        for c in 0..200_000u64 {
            stim.next(c, &ob, &mut ib);
            for p in [
                "reset",
                "has_inst",
                "ready",
                "unit_free",
                "is_mem",
                "launch",
                "exit",
            ] {
                copy_port(&lb, &ib, &lg, &mut ig, p);
            }
            ig[ready] &= !mb.waiting();
            mg.step(&ig, &mut og);
            mb.step(&ib, &mut ob);
            mb.check_invariants().unwrap();
            mg.check_invariants().unwrap();
            if ig[lg.input("reset").unwrap().offset] != 0 {
                continue;
            }
            for p in [
                "issue_valid",
                "issue_slot",
                "issue_is_mem",
                "dbg_older",
                "dbg_last_issued",
            ] {
                assert!(
                    same_output(&lg, &og, &lb, &ob, p),
                    "{w} {s} cycle {c}: {p} differs"
                );
            }
            released += (ob[lb.output("bar_release").unwrap().offset] != 0) as u64;
        }
        assert!(released > 500, "{released} releases");
    }
}

#[test]
fn new_policy_stimulus_is_reproducible() {
    for p in [
        &["policy=motrr-recency", "rec_class=global"][..],
        &["policy=bar-gto", "warps=12"][..],
    ] {
        let c = sets(p);
        assert_eq!(stream(&c, 42, 5000), stream(&c, 42, 5000));
        assert_ne!(stream(&c, 42, 5000), stream(&c, 43, 5000));
    }
}

/// Model + stimulus + invariants for every new policy at 48 warps (run on demand, like the
/// LRR/GTO throughput test).
#[test]
#[ignore]
fn throughput_of_the_new_policies() {
    for p in ["mto", "motrr", "motrr-recency", "bar-gto"] {
        let c = sets(&[&format!("policy={p}")]);
        let layout = Layout::new(&c.ports());
        let mut model = WarpSchedModel::new(&c);
        let mut stim = WarpSchedStimulus::new(&c, 1);
        let mut inputs = vec![0u64; layout.in_words];
        let mut outputs = vec![0u64; layout.out_words];
        let n = 1_000_000;
        let t = std::time::Instant::now();
        for cycle in 0..n {
            stim.next(cycle, &outputs, &mut inputs);
            model.step(&inputs, &mut outputs);
            model.check_invariants().unwrap();
        }
        let cps = n as f64 / t.elapsed().as_secs_f64();
        eprintln!("warp-sched {p}: {:.1} M cycles/s", cps / 1e6);
        assert!(cps > 1e6, "{p}: {cps:.0} cycles/s");
    }
}
