//! The lockstep flow end to end: spec vectors on model and RTL (under Icarus), constrained-random lockstep
//! over several configurations and seeds, and proof that the harness can fail: a planted
//! difference is reported at the right cycle and port, with a replay that writes a waveform.

use warpforge_contract::params::ParamKind;
use warpforge_cosim::lockstep::{self, Options, Source};
use warpforge_cosim::registry::{self, Unit};
use warpforge_cosim::regress;
use warpforge_testbench::Model;

#[test]
fn spec_vectors_pass_on_model_and_rtl() {
    // The SM's worked examples are programs (cosim/tests/sm.rs), not port-level vectors.
    for unit in registry::names()
        .into_iter()
        .filter(|u| !registry::kernel_level(u))
    {
        let vectors = registry::spec_vectors(unit);
        assert!(!vectors.is_empty(), "{unit} has spec vectors");
        for v in &vectors {
            lockstep::run_spec_vector(v).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// The quick regression suite: ≥ 3 configurations per unit, 2 seeds each, ≥ 10^6 lockstep
/// cycles per unit in total (a network unit: its own budget), and as much for each policy of a unit that has policies.
#[test]
fn random_lockstep_quick_suite() {
    let jobs: Vec<_> = regress::jobs("quick")
        .unwrap()
        .into_iter()
        .filter(|j| j.is_lockstep())
        .collect();
    let summary = regress::run("quick", &jobs, 2, &|r, k, n| {
        eprintln!(
            "[{k}/{n}] {} {} ({} cycles)",
            if r.passed { "pass" } else { "FAIL" },
            r.id,
            r.cycles
        )
    });
    let failures: Vec<_> = summary
        .results
        .iter()
        .filter(|r| !r.passed)
        .map(|r| r.message.clone())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Kernel-level units (the SM) are covered by programs: cosim/tests/sm.rs and the full suite.
    for unit in registry::names()
        .into_iter()
        .filter(|u| !registry::kernel_level(u))
    {
        let configs = regress::configs(unit).len();
        assert!(configs >= 3, "{unit}: {configs} configurations");
        let cycles = summary.cycles.get(unit).copied().unwrap_or(0);
        let want = regress::network_cycles(unit, "quick").unwrap_or(1_000_000);
        assert!(cycles >= want, "{unit}: only {cycles} lockstep cycles");
    }
    let run: std::collections::HashMap<_, _> =
        summary.results.iter().map(|r| (&r.id, r.cycles)).collect();
    for info in registry::catalogue().filter(|i| !registry::kernel_level(i.name)) {
        let Some(policy) = info.params.iter().find(|p| p.name == "policy") else {
            continue;
        };
        let ParamKind::Choice { choices } = policy.kind else {
            panic!("{}: policy is a choice", info.name)
        };
        for &name in choices {
            let of_policy: Vec<_> = jobs
                .iter()
                .filter(|j| j.unit == info.name && regress::variant(&j.sets) == Some(name))
                .collect();
            let configs: std::collections::BTreeSet<_> =
                of_policy.iter().map(|j| &j.sets).collect();
            let schedulers: std::collections::BTreeSet<_> = configs
                .iter()
                .filter_map(|c| c.iter().find(|s| s.starts_with("schedulers=")))
                .collect();
            let cycles: u64 = of_policy.iter().map(|j| run[&j.id]).sum();
            assert!(
                configs.len() >= 3,
                "{}/{name}: {} configurations",
                info.name,
                configs.len()
            );
            assert!(
                schedulers.len() >= 2,
                "{}/{name}: one scheduler count only",
                info.name
            );
            assert!(
                cycles >= 1_000_000,
                "{}/{name}: only {cycles} lockstep cycles",
                info.name
            );
        }
    }
}

/// A deliberately wrong model: the real one, except that one bit of one output port is
/// flipped at one cycle.
struct Planted {
    inner: Box<dyn Model>,
    cycle: u64,
    word: usize,
    now: u64,
}

impl Model for Planted {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.inner.step(inputs, outputs);
        if self.now == self.cycle {
            outputs[self.word] ^= 1;
        }
        self.now += 1;
    }
    fn check_invariants(&self) -> Result<(), String> {
        self.inner.check_invariants()
    }
    fn state_line(&self) -> String {
        self.inner.state_line()
    }
}

fn planted_run(
    unit: &Unit,
    port: &str,
    cycle: u64,
    cycles: u64,
    wave: Option<std::path::PathBuf>,
) -> lockstep::Report {
    let layout = unit.manifest().layout();
    let word = layout.output(port).unwrap().offset;
    let model = Box::new(Planted {
        inner: unit.model(),
        cycle,
        word,
        now: 0,
    });
    let mut opts = Options::new(cycles, 3);
    opts.wave = wave;
    lockstep::run(unit, model, Source::Random(unit.stimulus(3)), opts).unwrap()
}

#[test]
fn planted_difference_is_reported_at_its_cycle_and_port() {
    for (unit, port, cycle) in [
        ("warp-sched", "issue_slot", 12_345u64),
        ("simt-stack", "dbg_stack", 7_777),
        ("simt-stack", "pc", 4_100),
    ] {
        let u = Unit::resolve(unit, &[]).unwrap();
        let r = planted_run(&u, port, cycle, cycle + 5000, None);
        let m = r
            .mismatch
            .as_ref()
            .unwrap_or_else(|| panic!("{unit}: planted difference not found"));
        assert_eq!((m.cycle, m.port.as_str()), (cycle, port), "{unit}");
        assert_ne!(m.expected, m.actual);
        assert_eq!(r.cycles, cycle + 1, "the run stops at the first difference");
        let replay = r.replay.as_deref().unwrap();
        assert!(
            replay.contains("--seed 3")
                && replay.contains(&format!("--cycles {}", cycle + 1))
                && replay.contains("--wave"),
            "{replay}"
        );
    }
}

#[test]
fn replay_writes_a_waveform_and_the_model_state_log() {
    let u = Unit::resolve(
        "simt-stack",
        &["warp_size=8".into(), "pc_bits=8".into(), "depth=4".into()],
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let wave = dir.path().join("fail.vcd");
    let cycle = 3000;
    // As the replay command does: run up to and including the failing cycle.
    let r = planted_run(&u, "depth", cycle, cycle + 1, Some(wave.clone()));
    assert_eq!(r.mismatch.as_ref().map(|m| m.cycle), Some(cycle));
    let vcd = std::fs::read_to_string(&wave).unwrap();
    assert!(vcd.contains("$enddefinitions"), "a VCD header");
    assert!(
        vcd.contains(&format!("#{}\n", 10 * cycle)),
        "the failing cycle is in the waveform"
    );
    assert!(
        !vcd.contains("#0\n"),
        "only the window before the failure is written"
    );
    let log = std::fs::read_to_string(lockstep::state_log_path(&wave)).unwrap();
    assert!(
        log.contains(&format!("t={} cycle={cycle} ", 10 * cycle)),
        "state log has the failing cycle"
    );
}

#[test]
fn dump_replays_as_stimulus_with_identical_outputs() {
    // A quick-suite configuration: its Verilator build is shared with the random lockstep.
    let u = Unit::resolve(
        "warp-sched",
        &["warps=4".into(), "schedulers=1".into(), "policy=gto".into()],
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("d.jsonl");
    let mut opts = Options::new(500, 9);
    opts.dump = Some(dump.clone());
    let r = lockstep::run(&u, u.model(), Source::Random(u.stimulus(9)), opts).unwrap();
    assert!(r.passed());
    let path = dump.to_string_lossy().into_owned();
    let trace = lockstep::parse_stimulus(&path, &u.manifest().layout()).unwrap();
    assert_eq!(trace.len(), 500);
    let dump2 = dir.path().join("d2.jsonl");
    let mut opts = Options::new(10_000, 9);
    opts.dump = Some(dump2.clone());
    let r2 = lockstep::run(&u, u.model(), Source::Trace(trace), opts).unwrap();
    assert!(r2.passed());
    assert_eq!(r2.cycles, 500, "a trace runs for its length");
    assert_eq!(
        std::fs::read_to_string(dump).unwrap(),
        std::fs::read_to_string(dump2).unwrap()
    );
}

#[test]
fn second_build_of_a_design_comes_from_the_cache() {
    // A quick-suite configuration: its Verilator build is shared with the random lockstep.
    let u = Unit::resolve(
        "warp-sched",
        &["warps=2".into(), "schedulers=1".into(), "policy=lrr".into()],
    )
    .unwrap();
    let (d, m) = (u.design(), u.manifest());
    warpforge_cosim::verilator::build(&d, &m, false).unwrap();
    let again = warpforge_cosim::verilator::build(&d, &m, false).unwrap();
    assert!(!again.built, "not rebuilt");
    assert!(again.library.exists());
}
