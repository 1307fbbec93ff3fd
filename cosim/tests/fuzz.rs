//! The input readers under seeded fuzzing: random and mutated configs, stimulus files,
//! assembly and kernel images give a value or a one-line error, never a panic. The test suite
//! runs a few seconds per reader; the ignored test (and `warpforge fuzz all --iters 1000000`)
//! runs 10^6 executions of each.

use warpforge_cosim::fuzz;

fn check(target: &str, iters: u64, seed: u64) {
    let r = fuzz::run(target, iters, seed).unwrap();
    assert!(r.failure.is_none(), "{}", r.render());
    assert_eq!(r.executions, iters);
    // The mutations reach both outcomes: some inputs are accepted, most refused.
    assert!(r.accepted > 0 && r.refused > 0, "{}", r.render());
}

#[test]
fn config_loader() {
    check("config", 20_000, 1);
}

#[test]
fn stimulus_reader() {
    check("stimulus", 5_000, 2);
}

#[test]
fn assembler() {
    check("asm", 3_000, 3);
}

#[test]
fn image_decoder() {
    check("wfk", 20_000, 4);
}

#[test]
fn an_unknown_target_is_an_error() {
    assert!(fuzz::run("nothing", 1, 1)
        .unwrap_err()
        .contains("config, stimulus"));
}

#[test]
#[ignore = "10^6 executions per reader, minutes: cargo test -p warpforge-cosim --release --test fuzz -- --ignored"]
fn a_million_executions_each() {
    for (i, t) in fuzz::TARGETS.iter().enumerate() {
        check(t, 1_000_000, 100 + i as u64);
    }
}

/// Found by the stimulus fuzzer (seed 1, execution 149741): a port name with a line break
/// made a two-line error. Names from the input are escaped in every reader's messages.
#[test]
fn names_from_the_input_never_break_the_error_line() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.jsonl");
    std::fs::write(&p, "{\"cycle\": 0, \"\\nputs\": {\"reset\": 1}}\n").unwrap();
    let unit = warpforge_cosim::registry::Unit::resolve("warp-sched", &[]).unwrap();
    let e =
        warpforge_cosim::lockstep::parse_stimulus(p.to_str().unwrap(), &unit.manifest().layout())
            .unwrap_err();
    assert!(!e.contains('\n') && e.contains("`\\nputs`"), "{e}");
    for toml in [
        "unit = \"warp-sched\"\n[params]\n\"wa\\nrps\" = 4\n",
        "unit = \"warp-sched\"\n\"x\\ny\" = 1\n",
        "unit = \"warp\\nsched\"\n",
        "unit = \"warp-sched\"\n[params]\npolicy = \"g\\nto\"\n",
    ] {
        let e = warpforge_cosim::registry::Unit::from_toml("c.toml", toml, &[]).unwrap_err();
        assert!(!e.contains('\n'), "{toml:?}: {e}");
    }
    let e = warpforge_cosim::registry::Unit::resolve("warp-sched", &["a\nb=1".into()]).unwrap_err();
    assert!(!e.contains('\n'), "{e}");
}
