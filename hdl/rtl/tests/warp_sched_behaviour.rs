//! Directed simulations of warp-sched (Icarus Verilog): the spec's vectors A and B
//! (spec/latency_hiding_scheduler.md §4.1, §4.2, LRR and GTO columns) and the residency,
//! age and greedy rules.

mod common;

use common::{num, simulate, Seen, Step};
use warpforge_contract::units::warp_sched::{IssuePolicy, WarpSchedConfig};

fn run(cfg: &WarpSchedConfig, steps: &[Step]) -> Option<Vec<Seen>> {
    simulate(
        &warpforge_hdl::warp_sched::generate(cfg),
        &cfg.ports(),
        steps,
    )
}

/// A per-slot bit string as in the spec tables, leftmost character = slot 0.
fn slots(s: &str) -> u64 {
    s.chars()
        .enumerate()
        .filter(|&(_, c)| c == '1')
        .map(|(i, _)| 1u64 << i)
        .sum()
}

/// Launch steps that give the slots the listed ages (0 = oldest), one warp per cycle.
fn launch_in_age_order(ages: &[usize]) -> Vec<Step> {
    let mut by_age: Vec<usize> = (0..ages.len()).collect();
    by_age.sort_by_key(|&w| ages[w]);
    by_age
        .iter()
        .map(|&w| vec![("launch", 1u64 << w)])
        .collect()
}

/// The slot issued by scheduler 0 in each sampled cycle, or None.
fn issued(seen: &Seen) -> Option<u64> {
    (num(seen, "issue_valid") & 1 == 1).then(|| num(seen, "issue_slot") as u64)
}

#[test]
fn vector_a_lrr_and_gto() {
    // Ages W0=2, W1=0, W2=3, W3=1; all heads compute; eligibility per cycle.
    let eligible = [
        "1111", "1111", "1011", "1010", "0000", "0101", "1111", "0010", "1101", "1111", "0111",
        "1000",
    ];
    let lrr = [0, 1, 2, 0, 9, 1, 2, 2, 3, 0, 1, 0];
    let gto = [1, 1, 3, 0, 9, 1, 1, 2, 1, 1, 1, 0];
    for (policy, expect) in [(IssuePolicy::Lrr, lrr), (IssuePolicy::Gto, gto)] {
        let cfg = WarpSchedConfig::new(4, 1, policy);
        let mut steps = launch_in_age_order(&[2, 0, 3, 1]);
        let setup = steps.len();
        for e in eligible {
            steps.push(vec![
                ("has_inst", slots(e)),
                ("ready", 0xF),
                ("unit_free", 0xF),
            ]);
        }
        let Some(seen) = run(&cfg, &steps) else {
            return;
        };
        // Age matrix after the launches: W0 behind W1, W3; W2 behind all; W3 behind W1.
        assert_eq!(num(&seen[setup], "dbg_older"), 0x2B0A);
        assert_eq!(num(&seen[setup], "dbg_resident"), 0xF);
        for (c, &want) in expect.iter().enumerate() {
            let got = issued(&seen[setup + c]);
            let want = (want != 9).then_some(want);
            assert_eq!(got, want, "{policy:?} cycle {c}");
        }
        // The pointer after the last cycle (sampled in no further cycle: check the one before).
        assert_eq!(num(&seen[setup + 11], "dbg_last_issued"), 1);
        assert_eq!(num(&seen[setup + 11], "dbg_last_valid"), 1);
    }
}

#[test]
fn vector_b_lrr_and_gto() {
    // 6 warps; ages W0=3, W1=0, W2=4, W3=1, W4=5, W5=2. Class C/M/- per slot, ready, and
    // whether the LD/ST unit accepts (unit_free of memory heads).
    let rows = [
        ("CCCMCM", "111111", 1),
        ("CCCMCM", "111111", 1),
        ("CCCMCM", "111111", 0),
        ("CCCCCM", "101111", 1),
        ("CCCCCC", "111111", 1),
        ("MCCCCC", "011111", 1),
        ("MCCCMC", "111111", 1),
        ("MCCCMC", "111111", 1),
        ("CCCCMC", "111111", 0),
        ("--CCCC", "001111", 1),
        ("CCCCCC", "110000", 1),
        ("CCCCCC", "000000", 1),
    ];
    let lrr = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 0, 9];
    let gto = [1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 1, 9];
    for (policy, expect) in [(IssuePolicy::Lrr, lrr), (IssuePolicy::Gto, gto)] {
        let cfg = WarpSchedConfig::new(6, 1, policy);
        let mut steps = launch_in_age_order(&[3, 0, 4, 1, 5, 2]);
        let setup = steps.len();
        for (class, ready, mem_ok) in rows {
            let is_mem = slots(&class.replace('M', "1"));
            let has_inst = slots(&class.replace(['C', 'M'], "1"));
            let unit_free = if mem_ok == 1 { 0x3F } else { 0x3F & !is_mem };
            steps.push(vec![
                ("has_inst", has_inst),
                ("ready", slots(ready)),
                ("unit_free", unit_free),
                ("is_mem", is_mem),
            ]);
        }
        let Some(seen) = run(&cfg, &steps) else {
            return;
        };
        for (c, &want) in expect.iter().enumerate() {
            let s = &seen[setup + c];
            let want = (want != 9).then_some(want);
            assert_eq!(issued(s), want, "{policy:?} cycle {c}");
            let mem = want.is_some_and(|w| rows[c].0.as_bytes()[w as usize] == b'M');
            assert_eq!(
                num(s, "issue_is_mem"),
                u128::from(mem),
                "{policy:?} cycle {c}"
            );
        }
    }
}

#[test]
fn two_schedulers_pack_their_issues() {
    // 6 slots: scheduler 0 has 0, 2, 4; scheduler 1 has 1, 3, 5. Slot bits = 3.
    let cfg = WarpSchedConfig::new(6, 2, IssuePolicy::Lrr);
    let all = 0x3F;
    let mut steps = vec![vec![("launch", all)]];
    steps.push(vec![
        ("has_inst", slots("001001")),
        ("ready", all),
        ("unit_free", all),
        ("is_mem", slots("000001")),
    ]);
    steps.push(vec![
        ("has_inst", slots("100000")),
        ("ready", all),
        ("unit_free", all),
    ]);
    steps.push(vec![]);
    let Some(seen) = run(&cfg, &steps) else {
        return;
    };
    // Cycle 1: scheduler 0 issues slot 2, scheduler 1 slot 5 (a memory instruction).
    assert_eq!(num(&seen[1], "issue_valid"), 0b11);
    assert_eq!(num(&seen[1], "issue_slot"), 2 | 5 << 3);
    assert_eq!(num(&seen[1], "issue_is_mem"), 0b10);
    // Cycle 2: only scheduler 0 (slot 0); scheduler 1's field is 0.
    assert_eq!(num(&seen[2], "issue_valid"), 0b01);
    assert_eq!(num(&seen[2], "issue_slot"), 0);
    assert_eq!(num(&seen[2], "issue_is_mem"), 0);
    // Cycle 3: pointers 0 and 5, both valid and greedy.
    assert_eq!(num(&seen[3], "dbg_last_issued"), 5 << 3);
    assert_eq!(num(&seen[3], "dbg_last_valid"), 0b11);
    assert_eq!(num(&seen[3], "dbg_greedy_valid"), 0b11);
    // Launched together, lower slots are older: row w holds every slot below w.
    let mut older = 0u128;
    for w in 0..6 {
        older |= ((1u128 << w) - 1) << (w * 6);
    }
    assert_eq!(num(&seen[3], "dbg_older"), older);
}

#[test]
fn gto_greed_ends_when_the_warp_leaves_or_is_replaced() {
    let cfg = WarpSchedConfig::new(4, 1, IssuePolicy::Gto);
    let go = |elig: u64| vec![("has_inst", elig), ("ready", 0xF), ("unit_free", 0xF)];
    let mut steps = vec![vec![("launch", 0b0011)], vec![("launch", 0b0100)]];
    steps.push(go(0b0100)); // 2: W2 (youngest) issues alone and becomes greedy
    steps.push(go(0b0111)); // 3: greedy W2 keeps issuing over older W0, W1
    let mut exit_w2 = go(0b0111);
    exit_w2.push(("exit", 0b0100)); // 4: W2 issues and exits in the same cycle
    steps.push(exit_w2);
    steps.push(vec![("launch", 0b0100)]); // 5: a new warp takes slot 2
    steps.push(go(0b0111)); // 6: no greed inherited: oldest W0 issues
    let mut replace = go(0b0101);
    replace.push(("launch", 0b0001)); // 7: W0 issues; slot 0 relaunched in the same cycle
    steps.push(replace);
    steps.push(go(0b0111)); // 8: greed lost; oldest is now W1
    steps.push(vec![]); // 9
    let Some(seen) = run(&cfg, &steps) else {
        return;
    };
    let slot = |c: usize| issued(&seen[c]);
    assert_eq!(slot(2), Some(2));
    assert_eq!(slot(3), Some(2));
    assert_eq!(slot(4), Some(2));
    assert_eq!(num(&seen[5], "dbg_resident"), 0b0011);
    assert_eq!(num(&seen[5], "dbg_greedy_valid"), 0);
    assert_eq!(num(&seen[5], "dbg_last_issued"), 2);
    assert_eq!(num(&seen[5], "dbg_last_valid"), 1);
    assert_eq!(slot(6), Some(0));
    assert_eq!(slot(7), Some(0));
    assert_eq!(num(&seen[8], "dbg_greedy_valid"), 0);
    assert_eq!(slot(8), Some(1));
    // Ages at 9: W1 oldest, then W2 (launched at 5), then W0 (relaunched at 7).
    let rows = [0b0110u128, 0b0000, 0b0010, 0];
    let older: u128 = rows.iter().enumerate().map(|(w, r)| r << (4 * w)).sum();
    assert_eq!(num(&seen[9], "dbg_older"), older);
    assert_eq!(num(&seen[9], "dbg_resident"), 0b0111);
}

#[test]
fn exit_and_launch_of_one_slot_in_one_cycle_make_it_the_youngest() {
    let cfg = WarpSchedConfig::new(3, 1, IssuePolicy::Lrr);
    let steps = vec![
        vec![("launch", 0b111)],
        vec![("exit", 0b001), ("launch", 0b011)], // W0 leaves and returns; W1 replaced
        vec![("exit", 0b100)],
        vec![],
    ];
    let Some(seen) = run(&cfg, &steps) else {
        return;
    };
    // After step 0: W0 < W1 < W2 by slot.
    assert_eq!(num(&seen[1], "dbg_older"), 0b011 << 6 | 0b001 << 3);
    // After step 1: W2 oldest, then W0, then W1 (launched together, lower slot older).
    assert_eq!(num(&seen[2], "dbg_older"), 0b101 << 3 | 0b100);
    assert_eq!(num(&seen[2], "dbg_resident"), 0b111);
    // After W2 exits its row and column vanish from the debug view.
    assert_eq!(num(&seen[3], "dbg_older"), 0b001 << 3);
    assert_eq!(num(&seen[3], "dbg_resident"), 0b011);
}

#[test]
fn reset_clears_residency_and_pointers() {
    let cfg = WarpSchedConfig::new(4, 2, IssuePolicy::Gto);
    let steps = vec![
        vec![("launch", 0xF)],
        vec![("has_inst", 0xF), ("ready", 0xF), ("unit_free", 0xF)],
        vec![
            ("reset", 1),
            ("has_inst", 0xF),
            ("ready", 0xF),
            ("unit_free", 0xF),
        ],
        vec![("has_inst", 0xF), ("ready", 0xF), ("unit_free", 0xF)],
    ];
    let Some(seen) = run(&cfg, &steps) else {
        return;
    };
    assert_eq!(num(&seen[1], "issue_valid"), 0b11);
    assert_eq!(num(&seen[2], "dbg_greedy_valid"), 0b11);
    for port in [
        "dbg_resident",
        "dbg_last_valid",
        "dbg_last_issued",
        "dbg_greedy_valid",
        "dbg_older",
        "issue_valid",
    ] {
        assert_eq!(num(&seen[3], port), 0, "{port}");
    }
}

#[test]
fn gto_new_greedy_warp_keeps_greed_when_the_previous_one_exits() {
    let cfg = WarpSchedConfig::new(4, 1, IssuePolicy::Gto);
    let go = |elig: u64| vec![("has_inst", elig), ("ready", 0xF), ("unit_free", 0xF)];
    // Ages: W0 oldest, then W1, then W2.
    let mut steps = vec![
        vec![("launch", 0b0001)],
        vec![("launch", 0b0010)],
        vec![("launch", 0b0100)],
    ];
    steps.push(go(0b0100)); // 3: W2 issues: greedy
    let mut switch = go(0b0010);
    switch.push(("exit", 0b0100)); // 4: W1 issues while W2 (last issued) exits
    steps.push(switch);
    steps.push(go(0b0011)); // 5: W1 is greedy: it issues before the older W0
    steps.push(vec![]);
    let Some(seen) = run(&cfg, &steps) else {
        return;
    };
    assert_eq!(issued(&seen[3]), Some(2));
    assert_eq!(issued(&seen[4]), Some(1));
    assert_eq!(num(&seen[5], "dbg_greedy_valid"), 1);
    assert_eq!(num(&seen[5], "dbg_last_issued"), 1);
    assert_eq!(issued(&seen[5]), Some(1));
}
