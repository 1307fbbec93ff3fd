//! `crown-l2` and `crown-pool` in lockstep: their spec vectors on model and RTL (Icarus), the
//! quick suite's constrained-random configurations (run by tests/lockstep.rs) of the two units (≥ 3 configurations covering
//! n2 ∈ {16, 128, 512}, w ∈ {4, 8, 16}, pool ∈ {2, 8, 16}, 2 seeds, ≥ 10^6 cycles per unit),
//! and proof that lockstep catches a wrong RTL: a variant built only here (same-cycle pushes
//! in descending order; fixed-priority selection instead of LRR) is reported at the first
//! cycle and port where it differs, which this test predicts from the model with the same
//! fault.

use warpforge_cosim::lockstep::{self, Options, Source};
use warpforge_cosim::registry::{self, Unit};
use warpforge_cosim::regress;
use warpforge_hdl::Design;
use warpforge_testbench::crown_l2::{CrownL2Model, L2Fault};
use warpforge_testbench::crown_pool::{CrownPoolModel, PoolFault};
use warpforge_testbench::Model;

const UNITS: [&str; 2] = ["crown-l2", "crown-pool"];

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
    let sets = |unit| -> Vec<Vec<String>> { regress::configs(unit) };
    let has = |unit, key: &str, values: &[&str]| {
        for v in values {
            let kv = format!("{key}={v}");
            assert!(
                sets(unit).iter().any(|c| c.contains(&kv)
                    || (c.iter().all(|s| !s.starts_with(&format!("{key}=")))
                        && registry::catalogue()
                            .find(|i| i.name == unit)
                            .unwrap()
                            .params
                            .iter()
                            .any(|p| p.name == key && p.default.to_string() == *v))),
                "{unit}: no configuration with {kv}"
            );
        }
    };
    has("crown-l2", "n2", &["16", "128", "512"]);
    has("crown-l2", "w", &["4", "8", "16"]);
    has("crown-l2", "pool", &["2", "8", "16"]);
    has("crown-pool", "pool", &["2", "8", "16"]);
    has("crown-pool", "w", &["4", "8", "16"]);
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

/// `unit`'s design with every `from` replaced (`count` occurrences expected).
fn planted(unit: &Unit, from: &str, to: &str, count: usize) -> Design {
    let mut d = unit.design();
    assert_eq!(d.verilog.matches(from).count(), count, "`{from}`");
    d.verilog = d.verilog.replace(from, to);
    d
}

fn check_caught(unit: &Unit, design: &Design, bad: Box<dyn Model>) {
    lockstep::check_planted_bug(unit, design, bad, 3, 1_000_000).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn descending_pushes_in_the_rtl_are_caught() {
    let unit = Unit::resolve("crown-l2", &["n2=16".into()]).unwrap();
    let d = planted(
        &unit,
        "(upd_row < lowest_free__idx)",
        "(upd_row > lowest_free__idx)",
        1,
    );
    let cfg = unit_cfg_l2(&unit);
    let mut bad = CrownL2Model::new(&cfg);
    bad.inject_fault(Some(L2Fault::PushDescending));
    check_caught(&unit, &d, Box::new(bad));
}

#[test]
fn fixed_priority_selection_in_the_rtl_is_caught() {
    let unit = Unit::resolve("crown-pool", &["pool=4".into(), "n2=16".into()]).unwrap();
    // The chain "lowest valid entry above last" never fires: the lowest valid entry wins.
    let d = planted(&unit, "(last__q < ", "(last__q < 0 * ", 3);
    let cfg = unit_cfg_pool(&unit);
    let mut bad = CrownPoolModel::new(&cfg);
    bad.inject_fault(Some(PoolFault::LowestFirst));
    check_caught(&unit, &d, Box::new(bad));
}

/// The ready FIFO's ring is two RAM banks with its first two entries in registers, filled
/// from this cycle's pushes when the FIFO is short and from a bank read when it is long. A
/// 2-row table (banks at the RAM's smallest depth, the ring wrapping every other push) in
/// random lockstep reaches the short-FIFO corners: pops that also push with one or two rows
/// on the FIFO, two pushes at once. (Pops on consecutive cycles with a long FIFO need more
/// rows: the quick suite's `n2=16` runs count thousands of `pop_streaks`.)
#[test]
fn a_two_row_table_reaches_the_ring_corners() {
    let sets: Vec<String> = ["n2=2", "pool=2", "w=4", "threads=64"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let u = Unit::resolve("crown-l2", &sets).unwrap();
    for seed in [1, 2] {
        let r = lockstep::run(
            &u,
            u.model(),
            Source::Random(u.stimulus(seed)),
            Options::new(100_000, seed),
        )
        .unwrap();
        assert!(r.passed(), "{}", r.render());
        for e in ["short_pop_pushes", "double_pushes"] {
            let n = r.coverage.events.get(e).and_then(|v| v.as_u64());
            assert!(n.unwrap_or(0) > 100, "seed {seed}: {e} {n:?}");
        }
    }
}

/// An RTL whose ring registers take the wrong row is caught by random lockstep of a 4-row
/// table: the entry after the head bypassed from the second push instead of the first; the
/// head bypassed from the second push; the bank read behind the entry after the head
/// ignored (a stale register).
#[test]
fn wrong_ring_bypasses_in_the_rtl_are_caught() {
    let sets: Vec<String> = ["n2=4", "pool=2", "w=8", "threads=64"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let unit = Unit::resolve("crown-l2", &sets).unwrap();
    for (from, to) in [
        ("h1__d__drv = first;", "h1__d__drv = second;"),
        ("h0__d__drv = first;", "h0__d__drv = second;"),
        ("h1_ram__d__drv = 32'h1;", "h1_ram__d__drv = 32'h0;"),
    ] {
        let d = planted(&unit, from, to, 1);
        let r = lockstep::run_design(
            &unit,
            &d,
            unit.model(),
            Source::Random(unit.stimulus(1)),
            Options::new(100_000, 1),
        )
        .unwrap();
        assert!(r.mismatch.is_some(), "`{to}` not caught: {}", r.render());
    }
}

fn unit_cfg_l2(unit: &Unit) -> warpforge_contract::units::crown_l2::L2Config {
    use warpforge_contract::units::crown_l2::{L2Config, PARAMS};
    let p = warpforge_contract::Params::resolve("crown-l2", PARAMS, None, &unit.params.as_sets())
        .unwrap();
    L2Config::from_params(&p).unwrap()
}

fn unit_cfg_pool(unit: &Unit) -> warpforge_contract::units::crown_pool::PoolConfig {
    use warpforge_contract::units::crown_pool::{PoolConfig, PARAMS};
    let p = warpforge_contract::Params::resolve("crown-pool", PARAMS, None, &unit.params.as_sets())
        .unwrap();
    PoolConfig::from_params(&p).unwrap()
}
