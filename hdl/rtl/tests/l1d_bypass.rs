//! l1d-bypass RTL: the top module's ports equal the contract's, the design is lint clean, and
//! Icarus simulations of the spec's vectors (spec/barrier.md §6.3–§6.5, T1/I8 as mapped in
//! docs/scheduling.md §9.9) and of the knobs give the contract's outputs.

mod common;

use common::{assert_contract_ports, lint_all, num, simulate, Seen, Step};
use warpforge_contract::params::Params;
use warpforge_contract::units::l1d_bypass::{self, L1dBypassConfig};

fn cfg(sets: &[&str]) -> L1dBypassConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(l1d_bypass::NAME, l1d_bypass::PARAMS, None, &sets).unwrap();
    L1dBypassConfig::from_params(&p).unwrap()
}

/// Smallest, default, largest and every knob away from its default.
fn configs() -> Vec<L1dBypassConfig> {
    let variants: &[&[&str]] = &[
        &[],
        &["ctas=2", "epoch=1"],
        &["ctas=16", "epoch=1048576"],
        &["ctas=4", "epoch=10"],
        &["epoch=1023", "full_pct=100", "partial_pct=0"],
        &["window=cumulative", "ctas=2"],
        &["window=cumulative", "full_pct=0", "partial_pct=0"],
        &["launch_reset=counters", "count_stores=true"],
        &["launch_reset=none", "bypass_en=false"],
        &[
            "bypass_on_mshr_full=true",
            "bypass_all_misses=true",
            "epoch=2",
        ],
    ];
    variants.iter().map(|v| cfg(v)).collect()
}

#[test]
fn top_module_has_exactly_the_contract_ports() {
    for c in configs() {
        let d = warpforge_hdl::l1d_bypass::generate(&c);
        assert_contract_ports(&d, &c.module_name(), &c.ports(), &d.module);
    }
}

#[test]
fn lint_clean_min_default_max_and_knobs() {
    for c in configs() {
        lint_all(&warpforge_hdl::l1d_bypass::generate(&c));
    }
}

// --- Directed simulations (Icarus) --------------------------------------------------------

const HIT: u64 = 0;
const HIT_RESERVED: u64 = 1;
const MISS: u64 = 2;
const MISS_NOWAY: u64 = 3;

const NONE: u128 = 0;
const D_HIT: u128 = 1;
const MERGE: u128 = 2;
const ALLOC: u128 = 3;
const BYPASS: u128 = 4;
const STALL: u128 = 5;
const WRITE: u128 = 6;

const RETAIN: u128 = 0;
const PARTIAL: u128 = 1;
const FULL: u128 = 2;

const WHY_NOWAY: u128 = 1;
const WHY_MSHR: u128 = 2;
const WHY_MQ: u128 = 3;

fn run(c: &L1dBypassConfig, steps: &[Step]) -> Option<Vec<Seen>> {
    simulate(&warpforge_hdl::l1d_bypass::generate(c), &c.ports(), steps)
}

/// A load with the given probe, every resource available.
fn load(probe: u64) -> Step {
    vec![
        ("acc_valid", 1),
        ("acc_probe", probe),
        ("merge_ok", 1),
        ("mshr_ok", 1),
        ("mq_ok", 1),
    ]
}

/// `step` with `port` set to `value` (replacing any earlier value).
fn with(mut step: Step, port: &'static str, value: u64) -> Step {
    step.retain(|(n, _)| *n != port);
    step.push((port, value));
    step
}

/// One epoch of `len` loads, the first `misses` of them misses (ALLOC), the rest hits.
fn epoch_of(len: usize, misses: usize) -> Vec<Step> {
    (0..len)
        .map(|i| load(if i < misses { MISS } else { HIT }))
        .collect()
}

fn decided(seen: &Seen) -> (u128, u128) {
    (num(seen, "decision"), num(seen, "stall_why"))
}

#[test]
fn modes_per_epoch_s6_3_epoch_10() {
    let c = cfg(&["epoch=10"]);
    let misses = [5, 6, 9, 10, 0];
    let want = [RETAIN, PARTIAL, PARTIAL, FULL, RETAIN];
    let mut steps: Vec<Step> = misses.iter().flat_map(|&m| epoch_of(10, m)).collect();
    steps.push(vec![]);
    let Some(seen) = run(&c, &steps) else { return };
    for (cycle, s) in seen.iter().enumerate().take(50) {
        let in_epoch = cycle % 10;
        assert_eq!(
            num(s, "epoch_end"),
            u128::from(in_epoch == 9),
            "cycle {cycle}"
        );
        assert_eq!(num(s, "dbg_acc"), in_epoch as u128, "cycle {cycle}");
        let epoch = cycle / 10;
        let mode = if epoch == 0 { RETAIN } else { want[epoch - 1] };
        assert_eq!(num(s, "mode"), mode, "cycle {cycle}");
        let missed_before = in_epoch.min(misses[epoch]) as u128;
        assert_eq!(num(s, "dbg_miss"), missed_before, "cycle {cycle}");
    }
    assert_eq!(num(&seen[50], "mode"), RETAIN);
    assert_eq!(num(&seen[50], "dbg_acc"), 0);
    assert_eq!(num(&seen[50], "decision"), NONE);
}

#[test]
fn mode_boundaries_s6_3_epoch_1024() {
    // 614/1024 < 0.6 <= 615/1024; 921/1024 <= 0.9 < 922/1024.
    let c = cfg(&[]);
    let mut steps = vec![];
    for m in [614, 615, 921, 922] {
        steps.extend(epoch_of(1024, m));
    }
    steps.push(vec![]);
    let Some(seen) = run(&c, &steps) else { return };
    for (k, want) in [RETAIN, PARTIAL, PARTIAL, FULL].into_iter().enumerate() {
        let last = 1024 * (k + 1) - 1;
        assert_eq!(num(&seen[last], "epoch_end"), 1, "epoch {k}");
        assert_eq!(num(&seen[last - 1], "epoch_end"), 0, "epoch {k}");
        assert_eq!(num(&seen[last + 1], "mode"), want, "epoch {k}");
        assert_eq!(num(&seen[last], "dbg_acc"), 1023);
    }
}

/// A prefix epoch of 10 loads that leaves the mode PARTIAL (6 misses) or FULL (10).
fn into_mode(mode: u128) -> Vec<Step> {
    match mode {
        RETAIN => vec![],
        PARTIAL => epoch_of(10, 6),
        _ => epoch_of(10, 10),
    }
}

#[test]
fn accounting_s6_4() {
    let c = cfg(&["epoch=10"]);
    let mut steps = into_mode(PARTIAL);
    let tb1 = |s: Step| with(s, "acc_tb", 1);
    let body = [
        tb1(load(HIT)),
        tb1(load(MISS)),
        tb1(load(MISS_NOWAY)),
        tb1(load(MISS_NOWAY)),
        with(tb1(load(MISS_NOWAY)), "tb_has_waiter", 0b10),
        tb1(load(HIT_RESERVED)),
        with(tb1(load(MISS)), "acc_store", 1),
        vec![],
    ];
    steps.extend(body);
    let Some(seen) = run(&c, &steps) else { return };
    let s = &seen[10..];
    assert_eq!(num(&s[0], "mode"), PARTIAL);
    let want = [
        (D_HIT, 0),
        (ALLOC, 0),
        (STALL, WHY_NOWAY),
        (STALL, WHY_NOWAY),
        (BYPASS, 0),
        (MERGE, 0),
        (WRITE, 0),
        (NONE, 0),
    ];
    for (i, w) in want.into_iter().enumerate() {
        assert_eq!(decided(&s[i]), w, "access {i}");
    }
    assert_eq!(num(&s[7], "dbg_acc"), 4);
    assert_eq!(num(&s[7], "dbg_miss"), 2);
}

#[test]
fn decisions_s6_5() {
    let c = cfg(&["epoch=10"]);
    let tb = |s: Step, t: u64, waiters: u64| with(with(s, "acc_tb", t), "tb_has_waiter", waiters);
    // (mode, accesses, expected decision/stall_why of each)
    let cases: Vec<(u128, Vec<Step>, Vec<(u128, u128)>)> = vec![
        (
            RETAIN,
            vec![tb(load(MISS_NOWAY), 0, 0b001)],
            vec![(STALL, WHY_NOWAY)],
        ),
        (
            PARTIAL,
            vec![
                tb(load(MISS_NOWAY), 1, 0),
                tb(load(MISS_NOWAY), 1, 0b010),
                tb(load(MISS), 1, 0b010),
            ],
            vec![(STALL, WHY_NOWAY), (BYPASS, 0), (ALLOC, 0)],
        ),
        (
            FULL,
            vec![
                tb(load(MISS_NOWAY), 2, 0),
                with(load(MISS_NOWAY), "mq_ok", 0),
                load(HIT),
            ],
            vec![(BYPASS, 0), (STALL, WHY_MQ), (D_HIT, 0)],
        ),
    ];
    for (mode, accesses, want) in cases {
        let mut steps = into_mode(mode);
        let skip = steps.len();
        steps.extend(accesses);
        let Some(seen) = run(&c, &steps) else { return };
        for (i, w) in want.into_iter().enumerate() {
            assert_eq!(num(&seen[skip + i], "mode"), mode);
            assert_eq!(decided(&seen[skip + i]), w, "mode {mode} access {i}");
        }
    }
}

#[test]
fn bypass_disabled_never_bypasses_t1() {
    // FULL mode: with bypass_en every probe-3 load bypasses; without, each one stalls.
    for (en, want) in [("true", (BYPASS, 0)), ("false", (STALL, WHY_NOWAY))] {
        let c = cfg(&["epoch=10", &format!("bypass_en={en}")]);
        let mut steps = into_mode(FULL);
        steps.extend((0..4).map(|t| with(load(MISS_NOWAY), "acc_tb", t)));
        let Some(seen) = run(&c, &steps) else { return };
        for s in &seen[10..] {
            assert_eq!(num(s, "mode"), FULL, "the monitor runs either way");
            assert_eq!(decided(s), want, "bypass_en={en}");
        }
    }
}

#[test]
fn resource_stalls_and_the_optional_bypass_scopes() {
    // Default scopes in FULL mode: MSHR-type failures stall, a free way allocates.
    let base = cfg(&["epoch=10"]);
    let wide = cfg(&[
        "epoch=10",
        "bypass_on_mshr_full=true",
        "bypass_all_misses=true",
    ]);
    let accesses = vec![
        with(load(HIT_RESERVED), "merge_ok", 0),
        with(load(MISS), "mshr_ok", 0),
        with(with(load(MISS), "mshr_ok", 0), "mq_ok", 0),
        with(load(MISS), "mq_ok", 0),
        load(MISS),
    ];
    let base_want = [
        (STALL, WHY_MSHR),
        (STALL, WHY_MSHR),
        (STALL, WHY_MSHR),
        (STALL, WHY_MQ),
        (ALLOC, 0),
    ];
    let wide_want = [
        (BYPASS, 0),
        (BYPASS, 0),
        (STALL, WHY_MQ),
        (STALL, WHY_MQ),
        (BYPASS, 0),
    ];
    for (c, want) in [(base, base_want), (wide, wide_want)] {
        let mut steps = into_mode(FULL);
        steps.extend(accesses.clone());
        steps.push(vec![]);
        let Some(seen) = run(&c, &steps) else { return };
        let mut counted = (0u128, 0u128);
        for (i, w) in want.into_iter().enumerate() {
            assert_eq!(decided(&seen[10 + i]), w, "{} access {i}", c.module_name());
            if w.0 != STALL {
                counted.0 += 1;
                counted.1 += 1;
            }
        }
        assert_eq!(num(&seen[15], "dbg_acc"), counted.0);
        assert_eq!(num(&seen[15], "dbg_miss"), counted.1);
    }
}

#[test]
fn stores_count_only_with_count_stores() {
    let store = |probe| with(load(probe), "acc_store", 1);
    let steps = vec![
        store(HIT),
        store(MISS),
        store(MISS_NOWAY),
        store(HIT_RESERVED),
        vec![],
    ];
    for (flag, acc, miss) in [("false", 0, 0), ("true", 4, 2)] {
        let c = cfg(&[&format!("count_stores={flag}")]);
        let Some(seen) = run(&c, &steps) else { return };
        for s in &seen[..4] {
            assert_eq!(decided(s), (WRITE, 0));
        }
        assert_eq!(num(&seen[4], "dbg_acc"), acc, "count_stores={flag}");
        assert_eq!(num(&seen[4], "dbg_miss"), miss, "count_stores={flag}");
    }
}

#[test]
fn kernel_start_wins_over_the_epoch_end() {
    // Into FULL, then 9 misses and a 10th together with kernel_start: the epoch ends (FULL
    // again), then the launch applies per launch_reset.
    for (reset, mode_after, acc_after) in
        [("all", RETAIN, 0), ("counters", FULL, 0), ("none", FULL, 0)]
    {
        let c = cfg(&["epoch=10", &format!("launch_reset={reset}")]);
        let mut steps = into_mode(FULL);
        steps.extend(epoch_of(9, 9));
        steps.push(with(load(MISS), "kernel_start", 1));
        // A launch in mid-epoch: counters clear (or not) and the mode stays.
        steps.extend(epoch_of(3, 3));
        steps.push(vec![("kernel_start", 1)]);
        steps.push(vec![]);
        let Some(seen) = run(&c, &steps) else { return };
        assert_eq!(num(&seen[19], "epoch_end"), 1, "{reset}");
        assert_eq!(num(&seen[20], "mode"), mode_after, "{reset}");
        assert_eq!(num(&seen[20], "dbg_acc"), acc_after, "{reset}");
        assert_eq!(num(&seen[23], "dbg_acc"), 3, "{reset}");
        let cleared = reset != "none";
        assert_eq!(
            num(&seen[24], "dbg_acc"),
            if cleared { 0 } else { 3 },
            "{reset}"
        );
        assert_eq!(
            num(&seen[24], "dbg_miss"),
            if cleared { 0 } else { 3 },
            "{reset}"
        );
        assert_eq!(num(&seen[24], "mode"), mode_after, "{reset}");
    }
}

#[test]
fn cumulative_window_follows_f_every_edge() {
    // f(A, M) after each access: miss 1/1 FULL, hit 1/2 RETAIN, miss 2/3 PARTIAL, miss 3/4
    // PARTIAL (75 %), miss 4/5 PARTIAL (80 %), then ten misses: 14/15 > 90 % FULL.
    let c = cfg(&["window=cumulative", "ctas=2"]);
    let mut steps = vec![load(MISS), load(HIT), load(MISS), load(MISS), load(MISS)];
    steps.extend(epoch_of(10, 10));
    steps.push(vec![]);
    let Some(seen) = run(&c, &steps) else { return };
    assert_eq!(num(&seen[0], "mode"), RETAIN);
    let want = [FULL, RETAIN, PARTIAL, PARTIAL, PARTIAL];
    for (i, w) in want.into_iter().enumerate() {
        assert_eq!(num(&seen[i + 1], "mode"), w, "after access {i}");
        assert_eq!(num(&seen[i], "epoch_end"), 0);
    }
    assert_eq!(num(&seen[15], "mode"), FULL);
    assert_eq!(num(&seen[15], "dbg_acc"), 15);
    assert_eq!(num(&seen[15], "dbg_miss"), 14);
}

#[test]
fn thresholds_follow_the_percentages() {
    // full_pct = 50, partial_pct = 25, epoch = 4: 1/4 PARTIAL (>= 25 %), 2/4 PARTIAL (not
    // > 50 %), 3/4 FULL, 0/4 RETAIN.
    let c = cfg(&["epoch=4", "full_pct=50", "partial_pct=25"]);
    let mut steps = vec![];
    for m in [1, 2, 3, 0] {
        steps.extend(epoch_of(4, m));
    }
    steps.push(vec![]);
    let Some(seen) = run(&c, &steps) else { return };
    for (k, w) in [PARTIAL, PARTIAL, FULL, RETAIN].into_iter().enumerate() {
        assert_eq!(num(&seen[4 * (k + 1)], "mode"), w, "epoch {k}");
    }
    // full_pct = 100: never FULL; partial_pct = 0: PARTIAL whenever A > 0.
    let c = cfg(&["epoch=2", "full_pct=100", "partial_pct=0"]);
    let Some(seen) = run(&c, &[epoch_of(2, 2), epoch_of(2, 0), vec![vec![]]].concat()) else {
        return;
    };
    assert_eq!(num(&seen[2], "mode"), PARTIAL);
    assert_eq!(num(&seen[4], "mode"), PARTIAL);
}

#[test]
fn epoch_of_one_ends_at_every_counted_access() {
    let c = cfg(&["epoch=1", "ctas=2"]);
    let steps = vec![
        load(MISS),
        vec![],
        load(HIT),
        with(load(MISS_NOWAY), "mq_ok", 0),
        vec![],
    ];
    let Some(seen) = run(&c, &steps) else { return };
    let ends: Vec<u128> = seen.iter().map(|s| num(s, "epoch_end")).collect();
    assert_eq!(ends, [1, 0, 1, 0, 0]);
    let modes: Vec<u128> = seen.iter().map(|s| num(s, "mode")).collect();
    assert_eq!(modes, [RETAIN, FULL, FULL, RETAIN, RETAIN]);
    assert!(seen.iter().all(|s| num(s, "dbg_acc") == 0));
}
