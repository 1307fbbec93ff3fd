//! The simt-stack model on its own: spec vectors (crown.md §2.7, §2.8 and corner cases),
//! long random runs with the invariants checked every cycle, fault injection, and stimulus
//! reproducibility.

use warpforge_contract::params::Params;
use warpforge_contract::units::simt_stack::{self, SimtStackConfig};
use warpforge_contract::Layout;
use warpforge_testbench::simt_stack::{
    spec_vectors, SimtStackFault, SimtStackModel, SimtStackStats, SimtStackStimulus,
};
use warpforge_testbench::{harness, Model, SpecVector, Stimulus};

fn config(sets: &[String]) -> SimtStackConfig {
    let p = Params::resolve(simt_stack::NAME, simt_stack::PARAMS, None, sets)
        .unwrap_or_else(|e| panic!("bad vector parameters: {e}"));
    SimtStackConfig::from_params(&p).unwrap_or_else(|e| panic!("bad vector parameters: {e}"))
}

fn cfg(warp_size: usize, pc_bits: usize, depth: usize) -> SimtStackConfig {
    SimtStackConfig {
        warp_size,
        pc_bits,
        depth,
    }
}

/// Drive one spec vector through the model (the shared harness: listed inputs packed, the
/// rest 0; listed outputs compared on every non-reset cycle; invariants every cycle).
fn run_vector(v: &SpecVector) -> Result<Vec<Vec<u64>>, String> {
    assert_eq!(v.unit, simt_stack::NAME);
    let cfg = config(&v.sets);
    let layout = Layout::new(&cfg.ports());
    let mut model = SimtStackModel::new(&cfg);
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
    for want in [
        "§2.7 Fig 2-3",
        "§2.8 Fig 2-4 stack snapshots (W0)",
        "one-sided",
        "same IPDOM",
        "overflow",
        "exit of a path",
    ] {
        assert!(
            vectors.iter().any(|v| v.name.contains(want)),
            "no vector {want}"
        );
    }
    for v in &vectors {
        run_vector(v).unwrap();
        // Every non-reset cycle checks the whole state digest.
        for c in v.cycles.iter().skip(1) {
            assert!(
                c.expect.iter().any(|(n, _)| *n == "dbg_stack"),
                "{}",
                v.name
            );
        }
    }
}

#[test]
fn fig_2_3_lane_activity_is_43_of_56() {
    let v = vector("§2.7 Fig 2-3");
    let cfg = config(&v.sets);
    let layout = Layout::new(&cfg.ports());
    let trace = run_vector(&v).unwrap();
    let (commit, mask) = (
        layout.input("commit").unwrap().offset,
        layout.output("mask").unwrap().offset,
    );
    let mut issues = 0;
    let mut lanes = 0;
    for (c, cycle) in v.cycles.iter().enumerate() {
        let mut inputs = vec![0u64; layout.in_words];
        for (n, val) in &cycle.inputs {
            inputs[layout.input(n).unwrap().offset] = val[0];
        }
        if inputs[commit] == 1 {
            issues += 1;
            lanes += trace[c][mask].count_ones();
        }
    }
    assert_eq!(issues, 7);
    assert_eq!(lanes, 43);
    let activity = lanes as f64 / (issues * cfg.warp_size) as f64;
    assert_eq!(format!("{:.1}%", 100.0 * activity), "76.8%");
}

#[test]
fn a_wrong_expectation_is_reported() {
    let mut v = vector("Fig 2-4 stack snapshots (W0)");
    let c = &mut v.cycles[4];
    for (n, val) in c.expect.iter_mut() {
        if *n == "dbg_stack" {
            val[0] ^= 1 << 9; // one mask bit of the bottom entry
        }
    }
    let e = run_vector(&v).unwrap_err();
    assert!(e.contains("dbg_stack"), "{e}");
}

fn random_run(cfg: &SimtStackConfig, seed: u64, cycles: u64) -> SimtStackStats {
    let layout = Layout::new(&cfg.ports());
    let mut model = SimtStackModel::new(cfg);
    let mut stim = SimtStackStimulus::new(cfg, seed);
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    let pc_mask = (1u64 << cfg.pc_bits) - 1;
    for c in 0..cycles {
        stim.next(c, &outputs, &mut inputs);
        for s in &layout.inputs {
            if s.width < 64 {
                assert_eq!(
                    inputs[s.offset] >> s.width,
                    0,
                    "cycle {c}: {} wider than its port",
                    s.name
                );
            }
        }
        model.step(&inputs, &mut outputs);
        if let Err(e) = model.check_invariants() {
            panic!(
                "{cfg:?} seed {seed} cycle {c}: {e}\n  {}",
                model.state_line()
            );
        }
        assert_eq!(outputs[layout.output("pc").unwrap().offset] & !pc_mask, 0);
    }
    *model.stats()
}

#[test]
fn random_runs_keep_every_invariant_and_cover_the_corners() {
    let configs = [
        cfg(32, 32, 32),
        cfg(8, 8, 3),
        cfg(4, 4, 2),
        cfg(64, 16, 8),
        cfg(16, 6, 64),
    ];
    let mut total = 0;
    for c in &configs {
        let mut st = SimtStackStats::default();
        for seed in [11, 12, 13] {
            let s = random_run(c, seed, 25_000);
            st.cycles += s.cycles;
            st.resets += s.resets;
            st.launches += s.launches;
            st.commits += s.commits;
            st.advances += s.advances;
            st.uniform_branches += s.uniform_branches;
            st.divergent_branches += s.divergent_branches;
            st.one_sided += s.one_sided;
            st.exits += s.exits;
            st.refused += s.refused;
            st.pops += s.pops;
            st.cascades += s.cascades;
            st.max_depth = st.max_depth.max(s.max_depth);
            st.full_cycles += s.full_cycles;
        }
        eprintln!("{c:?}: {st:?}");
        total += st.cycles;
        assert!(st.launches > 100 && st.exits > 100, "{c:?}: {st:?}");
        assert!(
            st.advances > 1000 && st.uniform_branches > 500,
            "{c:?}: {st:?}"
        );
        assert!(
            st.divergent_branches > 1000 && st.one_sided > 100,
            "{c:?}: {st:?}"
        );
        assert!(st.pops > 1000, "{c:?}: {st:?}");
        // A cascade needs an exit that empties the entries below the TOS (an entry that
        // would wait at its own RPC is replaced, never kept), so it is rarer than a pop:
        // impossible with two entries.
        if c.depth >= 3 {
            assert!(st.cascades > 10, "{c:?}: {st:?}");
        }
        assert!(st.resets > 9, "{c:?}: {st:?}");
        // Each divergence parks at least one lane in a pending entry, so a warp of W
        // threads never needs more than 2W-1 entries: a deeper stack never overflows.
        let reachable = c.depth.min(2 * c.warp_size - 1);
        assert_eq!(st.max_depth, reachable, "{c:?}: {st:?}");
        if c.depth < 2 * c.warp_size - 1 {
            assert!(st.refused > 20 && st.full_cycles > 100, "{c:?}: {st:?}");
        } else {
            assert_eq!(st.refused, 0, "{c:?}: {st:?}");
        }
    }
    assert!(total >= 300_000);
}

/// Run a faulty model until `check_invariants` fails; return the message.
fn catch(cfg: &SimtStackConfig, fault: SimtStackFault) -> String {
    let layout = Layout::new(&cfg.ports());
    let mut model = SimtStackModel::new(cfg);
    model.inject_fault(Some(fault));
    let mut stim = SimtStackStimulus::new(cfg, 3);
    harness::first_failure(&mut model, &mut stim, &layout, 50_000)
        .unwrap_or_else(|| panic!("{fault:?} was never caught"))
}

#[test]
fn wrong_stack_updates_are_caught_by_the_invariants() {
    let e = catch(&cfg(8, 8, 8), SimtStackFault::TakenGetsWholeMask);
    assert!(e.contains("sibling"), "{e}");
    let e = catch(&cfg(8, 8, 3), SimtStackFault::PushPastCapacity);
    assert!(e.contains("exceeds capacity"), "{e}");
}

fn stream(cfg: &SimtStackConfig, seed: u64, cycles: u64) -> Vec<u64> {
    let layout = Layout::new(&cfg.ports());
    let mut model = SimtStackModel::new(cfg);
    let mut stim = SimtStackStimulus::new(cfg, seed);
    harness::io_trace(&mut model, &mut stim, &layout, cycles)
}

#[test]
fn same_seed_gives_the_same_stimulus() {
    let c = cfg(32, 32, 32);
    assert_eq!(stream(&c, 42, 5000), stream(&c, 42, 5000));
    assert_ne!(stream(&c, 42, 5000), stream(&c, 43, 5000));
}

#[test]
fn first_two_cycles_reset() {
    let c = cfg(8, 8, 4);
    let s = stream(&c, 7, 3);
    let layout = Layout::new(&c.ports());
    let r = layout.input("reset").unwrap().offset;
    // io_trace: per cycle the inputs, then the outputs.
    let w = layout.in_words + layout.out_words;
    assert_eq!((s[r], s[w + r], s[2 * w + r]), (1, 1, 0));
}

/// Model + stimulus + invariant checks at the default configuration must leave most of the
/// lockstep budget (10^6 cycles/s) to the RTL. Timing-dependent, so run on demand:
/// `cargo test --release -p warpforge-testbench --test simt_stack_model -- --ignored`.
#[test]
#[ignore]
fn throughput_at_the_default_config() {
    let c = cfg(32, 32, 32);
    let layout = Layout::new(&c.ports());
    let mut model = SimtStackModel::new(&c);
    let mut stim = SimtStackStimulus::new(&c, 1);
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
        "simt-stack: {:.1} M cycles/s (stimulus + step + invariants)",
        cps / 1e6
    );
    assert!(cps > 4e6, "{cps:.0} cycles/s");
}

fn vector_events(name: &str) -> Vec<(&'static str, u64)> {
    let v = vector(name);
    let cfg = config(&v.sets);
    let mut model = SimtStackModel::new(&cfg);
    harness::run_vector(&mut model, &Layout::new(&cfg.ports()), &v).unwrap();
    model.events()
}

/// The coverage counters on two spec vectors, counted from their cycles.
#[test]
fn events_count_the_spec_vectors_cycles() {
    // Fig 2-3: one launch; seven commits (four advances, the divergent branch at PC1, the
    // uniform jump to the RPC, the exit); pops when the else path reaches PC5, when PC3
    // jumps to its RPC and when the exit empties the last entry.
    assert_eq!(
        vector_events("§2.7 Fig 2-3"),
        [
            ("commits", 7),
            ("divergences", 1),
            ("pops", 3),
            ("exits", 1),
            ("launches", 1),
            ("refused", 0)
        ]
    );
    // Overflow: two refused divergent commits, two accepted (one push; none, replacing the
    // TOS), one advance after the second launch; the launch that wins over a commit counts
    // only as a launch.
    assert_eq!(
        vector_events("overflow (depth 2)"),
        [
            ("commits", 5),
            ("divergences", 2),
            ("pops", 0),
            ("exits", 0),
            ("launches", 2),
            ("refused", 2)
        ]
    );
}

#[test]
fn events_of_a_random_run() {
    let c = cfg(8, 8, 4);
    let layout = Layout::new(&c.ports());
    let mut model = SimtStackModel::new(&c);
    let mut stim = SimtStackStimulus::new(&c, 3);
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    for cycle in 0..5_000 {
        stim.next(cycle, &outputs, &mut inputs);
        model.step(&inputs, &mut outputs);
    }
    let e = model.events();
    assert_eq!(e[0].0, "commits");
    assert!(e.iter().all(|x| x.1 > 0), "{e:?}");
}
