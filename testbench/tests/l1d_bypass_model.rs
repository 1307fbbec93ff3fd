//! The l1d-bypass model on its own: spec vectors, long constrained-random runs with the
//! invariants checked every cycle and the corners counted, the feature-off equivalence (T1/I8),
//! fault injection, saturation of the cumulative window, and stimulus reproducibility.

use warpforge_contract::params::Params;
use warpforge_contract::units::l1d_bypass::{self, Decision, L1dBypassConfig, Mode, StallWhy};
use warpforge_contract::Layout;
use warpforge_testbench::l1d_bypass::{
    spec_vectors, L1dBypassFault, L1dBypassModel, L1dBypassStimulus,
};
use warpforge_testbench::{harness, Model, SpecVector, Stimulus};

fn config(sets: &[&str]) -> L1dBypassConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(l1d_bypass::NAME, l1d_bypass::PARAMS, None, &sets)
        .unwrap_or_else(|e| panic!("bad parameters: {e}"));
    L1dBypassConfig::from_params(&p).unwrap_or_else(|e| panic!("bad parameters: {e}"))
}

fn run_vector(v: &SpecVector) -> Result<(), String> {
    assert_eq!(v.unit, l1d_bypass::NAME);
    let sets: Vec<&str> = v.sets.iter().map(String::as_str).collect();
    let cfg = config(&sets);
    let layout = Layout::new(&cfg.ports());
    let mut model = L1dBypassModel::new(&cfg);
    harness::run_vector(&mut model, &layout, v).map(|_| ())
}

#[test]
fn every_spec_vector_passes() {
    let vectors = spec_vectors();
    assert!(vectors.len() >= 20, "only {} vectors", vectors.len());
    let mut checked = 0;
    for v in &vectors {
        run_vector(v).unwrap();
        checked += v.cycles.iter().map(|c| c.expect.len()).sum::<usize>();
    }
    assert!(checked > 20_000, "only {checked} expected values");
    for want in [
        "§6.3 miss-rate modes",
        "§6.3 boundary M=614",
        "§6.3 boundary M=615",
        "§6.3 boundary M=921",
        "§6.3 boundary M=922",
        "§6.4 counter accounting",
        "§6.5 decisions a",
        "§6.5 decisions b-d",
        "§6.5 decisions e-g",
        "T1/I8 bypass_en=true",
        "T1/I8 bypass_en=false",
        "bypass_on_mshr_full=true",
        "bypass_all_misses",
        "launch_reset=all",
        "launch_reset=counters",
        "launch_reset=none",
        "window=cumulative",
        "epoch=1",
    ] {
        assert!(
            vectors.iter().any(|v| v.name.contains(want)),
            "no vector {want}"
        );
    }
    // Names are unique (the regress job ids are built from them).
    let mut names: Vec<&str> = vectors.iter().map(|v| v.name.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), vectors.len());
}

#[test]
fn a_wrong_expectation_is_reported() {
    // The runner really compares: claim the §6.4 bypass is a stall.
    let mut v = spec_vectors()
        .into_iter()
        .find(|v| v.name.contains("§6.4"))
        .unwrap();
    let c = v
        .cycles
        .iter_mut()
        .find(|c| {
            c.expect
                .iter()
                .any(|(n, val)| *n == "decision" && val[0] == Decision::Bypass.code())
        })
        .unwrap();
    for (n, val) in c.expect.iter_mut() {
        if *n == "decision" {
            val[0] = Decision::Stall.code();
        }
    }
    let e = run_vector(&v).unwrap_err();
    assert!(e.contains("decision"), "{e}");
}

/// What a random run exercised.
#[derive(Default, Debug)]
struct Coverage {
    cycles: u64,
    decisions: [u64; 7],
    why: [u64; 4],
    mode_cycles: [u64; 3],
    mode_changes: [[u64; 3]; 3],
    epoch_ends: u64,
    kernel_starts: u64,
    launch_on_epoch_end: u64,
    partial_bypass: u64,
    partial_noway: u64,
    retry_bypassed: u64,
    resets_after_start: u64,
}

fn random_run(cfg: &L1dBypassConfig, seed: u64, cycles: u64, cov: &mut Coverage) {
    let layout = Layout::new(&cfg.ports());
    let mut model = L1dBypassModel::new(cfg);
    let mut stim = L1dBypassStimulus::new(cfg, seed);
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    let o = |n: &str| layout.output(n).unwrap().offset;
    let i = |n: &str| layout.input(n).unwrap().offset;
    let (od, ow, oe, om) = (o("decision"), o("stall_why"), o("epoch_end"), o("mode"));
    let (ireset, iks) = (i("reset"), i("kernel_start"));
    let mut prev: Option<(u64, u64)> = None; // last non-reset (decision, mode)
    for c in 0..cycles {
        stim.next(c, &outputs, &mut inputs);
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
            prev = None;
            continue;
        }
        let (d, w, mode) = (outputs[od], outputs[ow], outputs[om]);
        cov.decisions[d as usize] += 1;
        cov.why[w as usize] += 1;
        cov.mode_cycles[mode as usize] += 1;
        cov.epoch_ends += outputs[oe];
        let ks = inputs[iks] & 1;
        cov.kernel_starts += ks;
        cov.launch_on_epoch_end += ks & outputs[oe];
        if mode == Mode::Partial.code() {
            cov.partial_bypass += (d == Decision::Bypass.code()) as u64;
            cov.partial_noway += (w == StallWhy::NoWay.code()) as u64;
        }
        if let Some((pd, pmode)) = prev {
            cov.mode_changes[pmode as usize][mode as usize] += (pmode != mode) as u64;
            cov.retry_bypassed +=
                (pd == Decision::Stall.code() && d == Decision::Bypass.code()) as u64;
        }
        prev = Some((d, mode));
    }
}

/// The random configurations of the model tests (and their expected reach).
fn configs() -> Vec<Vec<&'static str>> {
    vec![
        vec![],
        vec!["epoch=10"],
        vec!["epoch=1", "ctas=2"],
        vec!["epoch=2", "ctas=16", "count_stores=true"],
        vec!["epoch=10", "launch_reset=counters", "ctas=4"],
        vec!["epoch=64", "launch_reset=none"],
        vec![
            "epoch=10",
            "bypass_on_mshr_full=true",
            "bypass_all_misses=true",
        ],
        vec!["epoch=10", "bypass_en=false"],
        vec!["window=cumulative"],
        vec!["epoch=4", "full_pct=100", "partial_pct=0"],
        vec!["epoch=4", "full_pct=75", "partial_pct=75"],
    ]
}

#[test]
fn random_runs_keep_every_invariant_and_cover_the_corners() {
    let mut total = 0;
    for sets in configs() {
        let cfg = config(&sets);
        let mut cov = Coverage::default();
        for seed in [1, 2] {
            random_run(&cfg, seed, 60_000, &mut cov);
        }
        total += cov.cycles;
        let what = format!("{sets:?}: {cov:?}");
        // Every decision except BYPASS (and WRITE without stores) in every configuration.
        for d in [
            Decision::None,
            Decision::Hit,
            Decision::Merge,
            Decision::Alloc,
            Decision::Stall,
            Decision::Write,
        ] {
            assert!(cov.decisions[d.code() as usize] > 100, "{d:?} {what}");
        }
        assert!(cov.why[StallWhy::Mshr.code() as usize] > 100, "{what}");
        assert!(cov.why[StallWhy::MissQueue.code() as usize] > 100, "{what}");
        assert!(cov.why[StallWhy::NoWay.code() as usize] > 100, "{what}");
        assert!(cov.kernel_starts > 5, "{what}");
        assert!((1..=30).contains(&cov.resets_after_start), "{what}");
        let (retain, partial, full) = (cov.mode_cycles[0], cov.mode_cycles[1], cov.mode_cycles[2]);
        if !cfg.bypass_en {
            // T1/I8: never a bypass, although the monitor still reaches every mode.
            assert_eq!(cov.decisions[Decision::Bypass.code() as usize], 0, "{what}");
        } else {
            assert!(
                cov.decisions[Decision::Bypass.code() as usize] > 100,
                "{what}"
            );
            assert!(cov.retry_bypassed > 10, "{what}");
        }
        if cfg.full_pct < 100 {
            assert!(full > 1000, "{what}");
            assert!(
                cov.mode_changes[0][2] + cov.mode_changes[1][2] > 0,
                "{what}"
            );
            assert!(
                cov.mode_changes[2][0] + cov.mode_changes[2][1] > 0,
                "{what}"
            );
        } else {
            // 100·M > 100·A never holds.
            assert_eq!(full, 0, "{what}");
        }
        // PARTIAL needs an epoch miss count M with partial_pct·E ≤ 100·M ≤ full_pct·E (none
        // for E = 1 or E = 2 at the default 60/90).
        let e = match cfg.window {
            l1d_bypass::Window::Epoch => cfg.epoch as u64,
            l1d_bypass::Window::Cumulative => 1000,
        };
        let partial_reachable = (0..=e)
            .any(|m| 100 * m >= cfg.partial_pct as u64 * e && 100 * m <= cfg.full_pct as u64 * e);
        if partial_reachable {
            assert!(partial > 1000, "{what}");
            assert!(cov.partial_noway > 10, "{what}");
            if cfg.bypass_en {
                assert!(cov.partial_bypass > 10, "{what}");
            }
        }
        if cfg.partial_pct > 0 {
            assert!(retain > 1000, "{what}");
        }
        if cfg.window == l1d_bypass::Window::Epoch {
            assert!(cov.epoch_ends > 20, "{what}");
            assert!(cov.launch_on_epoch_end > 0, "{what}");
        } else {
            assert_eq!(cov.epoch_ends, 0, "{what}");
        }
        eprintln!("{what}");
    }
    assert!(total >= 1_000_000);
}

#[test]
fn each_default_policy_config_runs_a_hundred_thousand_cycles() {
    // The regress configurations, at 10^5 cycles each with invariants on.
    for sets in [
        vec![],
        vec!["epoch=10", "ctas=16"],
        vec!["window=cumulative", "ctas=2", "count_stores=true"],
    ] {
        let cfg = config(&sets);
        let mut cov = Coverage::default();
        random_run(&cfg, 77, 100_000, &mut cov);
        assert!(
            cov.decisions[Decision::Bypass.code() as usize] > 100,
            "{cov:?}"
        );
    }
}

/// T1/I8: with `bypass_en = false` the unit decides exactly as it would in RETAIN mode, while
/// its own monitor goes through every mode. The reference is `bypass_en = true` with an epoch
/// too long to end within the run (so it stays in RETAIN).
#[test]
fn feature_off_decides_like_retain_mode() {
    let off = config(&["epoch=10", "bypass_en=false"]);
    let retain = config(&["epoch=1048576"]);
    let layout = Layout::new(&off.ports());
    let mut a = L1dBypassModel::new(&off);
    let mut b = L1dBypassModel::new(&retain);
    let mut stim = L1dBypassStimulus::new(&off, 11);
    let mut inputs = vec![0u64; layout.in_words];
    let (mut oa, mut ob) = (vec![0u64; layout.out_words], vec![0u64; layout.out_words]);
    let (od, ow, om) = (
        layout.output("decision").unwrap().offset,
        layout.output("stall_why").unwrap().offset,
        layout.output("mode").unwrap().offset,
    );
    let ireset = layout.input("reset").unwrap().offset;
    let mut modes = [0u64; 3];
    for c in 0..200_000 {
        stim.next(c, &oa, &mut inputs);
        a.step(&inputs, &mut oa);
        b.step(&inputs, &mut ob);
        a.check_invariants().unwrap();
        b.check_invariants().unwrap();
        if inputs[ireset] != 0 {
            continue;
        }
        assert_eq!(ob[om], Mode::Retain.code(), "cycle {c}");
        assert_eq!(
            (oa[od], oa[ow]),
            (ob[od], ob[ow]),
            "cycle {c}: off vs RETAIN"
        );
        modes[oa[om] as usize] += 1;
    }
    assert!(modes.iter().all(|&n| n > 1000), "{modes:?}");
}

/// Run a faulty model until `check_invariants` fails; return the message.
fn catch(sets: &[&str], fault: L1dBypassFault) -> String {
    let cfg = config(sets);
    let layout = Layout::new(&cfg.ports());
    let mut model = L1dBypassModel::new(&cfg);
    model.inject_fault(Some(fault));
    let mut stim = L1dBypassStimulus::new(&cfg, 5);
    harness::first_failure(&mut model, &mut stim, &layout, 200_000)
        .unwrap_or_else(|| panic!("{fault:?} was never caught"))
}

#[test]
fn wrong_behaviour_is_caught_by_the_invariants() {
    let e = catch(&["epoch=10"], L1dBypassFault::BypassInRetain);
    assert!(e.starts_with("I7"), "{e}");
    let e = catch(&["epoch=10"], L1dBypassFault::IgnoreMissQueue);
    assert!(e.starts_with("I7"), "{e}");
    let e = catch(&["epoch=10"], L1dBypassFault::CountStalls);
    assert!(e.starts_with("I10") || e.starts_with("epoch_end"), "{e}");
    let e = catch(&["epoch=10"], L1dBypassFault::FullAtThreshold);
    assert!(e.starts_with("I6"), "{e}");
    let e = catch(&["epoch=10"], L1dBypassFault::KeepModeOnLaunch);
    assert!(e.starts_with("I6"), "{e}");
    // At epoch = 100, 90 misses is exactly the FULL threshold: caught there too.
    let e = catch(&["epoch=100"], L1dBypassFault::FullAtThreshold);
    assert!(e.starts_with("I6"), "{e}");
}

#[test]
fn the_cumulative_window_saturates_at_two_to_the_32_minus_one() {
    let cfg = config(&["window=cumulative"]);
    let layout = Layout::new(&cfg.ports());
    let mut model = L1dBypassModel::new(&cfg);
    let max = (1u64 << 32) - 1;
    // 95 % misses just below the limit: FULL.
    let m = max / 20 * 19;
    model.preload(max - 1, m, Mode::Full);
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    let i = |n: &str| layout.input(n).unwrap().offset;
    let o = |n: &str| layout.output(n).unwrap().offset;
    inputs[i("acc_valid")] = 1;
    inputs[i("acc_probe")] = 2;
    inputs[i("mshr_ok")] = 1;
    inputs[i("mq_ok")] = 1;
    // The last count: A reaches 2^32 − 1.
    model.step(&inputs, &mut outputs);
    model.check_invariants().unwrap();
    assert_eq!(outputs[o("dbg_acc")], max - 1);
    assert_eq!((model.accesses(), model.misses()), (max, m + 1));
    // Saturated: nothing more is counted, the decision still happens.
    for _ in 0..3 {
        model.step(&inputs, &mut outputs);
        model.check_invariants().unwrap();
        assert_eq!(outputs[o("decision")], Decision::Alloc.code());
        assert_eq!(outputs[o("dbg_acc")], max);
        assert_eq!(outputs[o("dbg_miss")], m + 1);
        assert_eq!(outputs[o("epoch_end")], 0);
    }
    assert_eq!(model.mode(), Mode::Full);
    // A kernel launch restarts it.
    inputs[i("kernel_start")] = 1;
    model.step(&inputs, &mut outputs);
    model.check_invariants().unwrap();
    assert_eq!(
        (model.accesses(), model.misses(), model.mode()),
        (0, 0, Mode::Retain)
    );
}

fn stream(sets: &[&str], seed: u64, cycles: u64) -> Vec<u64> {
    let cfg = config(sets);
    let layout = Layout::new(&cfg.ports());
    let mut model = L1dBypassModel::new(&cfg);
    let mut stim = L1dBypassStimulus::new(&cfg, seed);
    harness::io_trace(&mut model, &mut stim, &layout, cycles)
}

#[test]
fn same_seed_gives_the_same_stimulus() {
    assert_eq!(stream(&[], 42, 5000), stream(&[], 42, 5000));
    assert_ne!(stream(&[], 42, 5000), stream(&[], 43, 5000));
}

#[test]
fn first_two_cycles_reset() {
    let cfg = config(&[]);
    let s = stream(&[], 7, 3);
    let layout = Layout::new(&cfg.ports());
    let r = layout.input("reset").unwrap().offset;
    let w = layout.in_words + layout.out_words;
    assert_eq!((s[r], s[w + r], s[2 * w + r]), (1, 1, 0));
}

/// Model + stimulus + invariants must leave most of the lockstep budget to the RTL.
/// Timing-dependent, so run on demand:
/// `cargo test --release -p warpforge-testbench --test l1d_bypass_model -- --ignored`.
#[test]
#[ignore]
fn throughput_at_the_default_config() {
    let cfg = config(&[]);
    let layout = Layout::new(&cfg.ports());
    let mut model = L1dBypassModel::new(&cfg);
    let mut stim = L1dBypassStimulus::new(&cfg, 1);
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    let n = 5_000_000;
    let t = std::time::Instant::now();
    for cycle in 0..n {
        stim.next(cycle, &outputs, &mut inputs);
        model.step(&inputs, &mut outputs);
        model.check_invariants().unwrap();
    }
    let cps = n as f64 / t.elapsed().as_secs_f64();
    eprintln!(
        "l1d-bypass: {:.1} M cycles/s (stimulus + step + invariants)",
        cps / 1e6
    );
    assert!(cps > 4e6, "{cps:.0} cycles/s");
}
