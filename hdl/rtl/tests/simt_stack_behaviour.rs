//! Directed simulations of simt-stack (Icarus Verilog): the spec's SBR traces
//! (spec/crown.md §2.7, §2.8), paths replacing a TOS that reconverges at their rpc, same-cycle
//! pop cascades, exit, overflow refusal and reset.

mod common;

use common::{num, simulate, Seen, Step};
use warpforge_contract::units::simt_stack::SimtStackConfig;

/// A stack entry as the spec writes it: (pc, mask, rpc), rpc None for "—".
type Entry = (u64, u64, Option<u64>);

fn cfg(warp_size: usize, pc_bits: usize, depth: usize) -> SimtStackConfig {
    SimtStackConfig {
        warp_size,
        pc_bits,
        depth,
    }
}

fn run(cfg: &SimtStackConfig, steps: &[Step]) -> Option<Vec<Seen>> {
    simulate(
        &warpforge_hdl::simt_stack::generate(cfg),
        &cfg.ports(),
        steps,
    )
}

fn launch(pc: u64, mask: u64) -> Step {
    vec![("launch", 1), ("launch_pc", pc), ("launch_mask", mask)]
}

fn go(next_pc: u64) -> Step {
    vec![("commit", 1), ("next_pc", next_pc)]
}

fn branch(next_pc: u64, taken: u64, target: u64, rpc: u64) -> Step {
    vec![
        ("commit", 1),
        ("branch", 1),
        ("next_pc", next_pc),
        ("taken", taken),
        ("target", target),
        ("rpc", rpc),
    ]
}

fn exit() -> Step {
    vec![("commit", 1), ("exit", 1)]
}

/// Check every registered output against the expected stack (bottom first).
fn assert_stack(c: &SimtStackConfig, seen: &Seen, stack: &[Entry], when: &str) {
    let (p, w) = (c.pc_bits, c.warp_size);
    let mut dbg = 0u128;
    for (i, &(pc, mask, rpc)) in stack.iter().enumerate() {
        let e = u128::from(pc)
            | u128::from(mask) << p
            | u128::from(rpc.unwrap_or(0)) << (p + w)
            | u128::from(rpc.is_some()) << (2 * p + w);
        dbg |= e << (i * c.entry_bits());
    }
    assert_eq!(num(seen, "dbg_stack"), dbg, "{when}: dbg_stack");
    assert_eq!(num(seen, "depth"), stack.len() as u128, "{when}: depth");
    assert_eq!(
        num(seen, "empty"),
        u128::from(stack.is_empty()),
        "{when}: empty"
    );
    let (pc, mask, rpc) = stack.last().copied().unwrap_or((0, 0, None));
    assert_eq!(num(seen, "pc"), u128::from(pc), "{when}: pc");
    assert_eq!(num(seen, "mask"), u128::from(mask), "{when}: mask");
    assert_eq!(
        num(seen, "tos_rpc"),
        u128::from(rpc.unwrap_or(0)),
        "{when}: tos_rpc"
    );
    assert_eq!(
        num(seen, "tos_rpc_valid"),
        u128::from(rpc.is_some()),
        "{when}: tos_rpc_valid"
    );
}

#[test]
fn fig_2_3_trace() {
    // §2.7: one 8-thread warp; PC1 branches to PC4 (else path, lanes 0-4) with rpc PC5.
    let c = cfg(8, 4, 4);
    let steps = vec![
        launch(0, 0xFF),
        go(1),                 // PC0
        branch(2, 0x1F, 4, 5), // PC1: divergent
        go(5),                 // PC4 reaches the rpc: popped
        go(3),                 // PC2
        branch(4, 0xE0, 5, 5), // PC3: uniform jump to PC5 (all active lanes taken)
        go(6),                 // PC5
        exit(),                // PC6
        vec![],
    ];
    let Some(seen) = run(&c, &steps) else {
        return;
    };
    let expect: [&[Entry]; 9] = [
        &[],
        &[(0, 0xFF, None)],
        &[(1, 0xFF, None)],
        &[(5, 0xFF, None), (2, 0xE0, Some(5)), (4, 0x1F, Some(5))],
        &[(5, 0xFF, None), (2, 0xE0, Some(5))],
        &[(5, 0xFF, None), (3, 0xE0, Some(5))],
        &[(5, 0xFF, None)],
        &[(6, 0xFF, None)],
        &[],
    ];
    for (i, stack) in expect.iter().enumerate() {
        assert_stack(&c, &seen[i], stack, &format!("step {i}"));
        assert_eq!(num(&seen[i], "overflow"), 0);
        assert_eq!(num(&seen[i], "overflowed"), 0);
    }
}

#[test]
fn fig_2_4_nested_divergence() {
    // §2.8, warp W0 with A=1, B=2, C=3, D=4, E=5, F=6: A's branch is one-sided (lanes 4-7
    // jump straight to F, the rpc: no entry), B's two-sided (D taken, runs first).
    let c = cfg(8, 4, 4);
    let steps = vec![
        launch(1, 0xFF),
        branch(2, 0xF0, 6, 6), // (c)
        branch(3, 0x0C, 4, 5), // (d)
        go(5),                 // D done: (f)
        go(5),                 // C done: (f')
        go(6),                 // E done: (g)
        vec![],
    ];
    let Some(seen) = run(&c, &steps) else {
        return;
    };
    let expect: [&[Entry]; 7] = [
        &[],
        &[(1, 0xFF, None)],
        &[(6, 0xFF, None), (2, 0x0F, Some(6))],
        &[
            (6, 0xFF, None),
            (5, 0x0F, Some(6)),
            (3, 0x03, Some(5)),
            (4, 0x0C, Some(5)),
        ],
        &[(6, 0xFF, None), (5, 0x0F, Some(6)), (3, 0x03, Some(5))],
        &[(6, 0xFF, None), (5, 0x0F, Some(6))],
        &[(6, 0xFF, None)],
    ];
    for (i, stack) in expect.iter().enumerate() {
        assert_stack(&c, &seen[i], stack, &format!("step {i}"));
    }
}

#[test]
fn paths_replace_a_tos_that_already_reconverges_at_their_rpc() {
    // Outer and inner branch share rpc 20: the inner paths replace the outer path's entry
    // (its lanes already wait at 20 in the bottom entry), so four entries suffice where
    // keeping it would need five.
    let c = cfg(8, 5, 4);
    let steps = vec![
        launch(0, 0xFF),
        branch(1, 0x0F, 10, 20),
        branch(12, 0x03, 11, 20),
        go(20),
        go(20),
        branch(20, 0x30, 5, 20), // one-sided, rpc 20 again: the taken path replaces the TOS
        go(20),
        vec![],
    ];
    let Some(seen) = run(&c, &steps) else {
        return;
    };
    let expect: [&[Entry]; 8] = [
        &[],
        &[(0, 0xFF, None)],
        &[(20, 0xFF, None), (1, 0xF0, Some(20)), (10, 0x0F, Some(20))],
        &[
            (20, 0xFF, None),
            (1, 0xF0, Some(20)),
            (12, 0x0C, Some(20)),
            (11, 0x03, Some(20)),
        ],
        &[(20, 0xFF, None), (1, 0xF0, Some(20)), (12, 0x0C, Some(20))],
        &[(20, 0xFF, None), (1, 0xF0, Some(20))],
        &[(20, 0xFF, None), (5, 0x30, Some(20))],
        &[(20, 0xFF, None)],
    ];
    for (i, stack) in expect.iter().enumerate() {
        assert_stack(&c, &seen[i], stack, &format!("step {i}"));
        assert_eq!(num(&seen[i], "overflow"), 0, "step {i}");
    }
}

#[test]
fn replacement_counts_for_overflow() {
    // Depth 3, full: two paths replacing the TOS need one entry more and are refused; one
    // path replacing it fits.
    let c = cfg(8, 5, 3);
    let steps = vec![
        launch(0, 0xFF),
        branch(1, 0x0F, 10, 20),
        branch(12, 0x03, 11, 20),
        branch(20, 0x03, 11, 20),
        vec![],
    ];
    let Some(seen) = run(&c, &steps) else {
        return;
    };
    let full: &[Entry] = &[(20, 0xFF, None), (1, 0xF0, Some(20)), (10, 0x0F, Some(20))];
    assert_eq!(num(&seen[2], "overflow"), 1);
    assert_stack(&c, &seen[3], full, "after the refusal");
    assert_eq!(num(&seen[3], "overflow"), 0);
    assert_eq!(num(&seen[3], "overflowed"), 1);
    let replaced: &[Entry] = &[(20, 0xFF, None), (1, 0xF0, Some(20)), (11, 0x03, Some(20))];
    assert_stack(&c, &seen[4], replaced, "one path replaced the TOS");
}

#[test]
fn exits_unwind_emptied_entries_in_one_cycle() {
    // §2.8 shape: after D's lanes exit, C's exit empties C and the entry waiting at E.
    let c = cfg(8, 4, 4);
    let steps = vec![
        launch(1, 0xFF),
        branch(2, 0xF0, 6, 6),
        branch(3, 0x0C, 4, 5),
        exit(),
        exit(),
        vec![],
    ];
    let Some(seen) = run(&c, &steps) else {
        return;
    };
    let expect: [&[Entry]; 6] = [
        &[],
        &[(1, 0xFF, None)],
        &[(6, 0xFF, None), (2, 0x0F, Some(6))],
        &[
            (6, 0xFF, None),
            (5, 0x0F, Some(6)),
            (3, 0x03, Some(5)),
            (4, 0x0C, Some(5)),
        ],
        &[(6, 0xF3, None), (5, 0x03, Some(6)), (3, 0x03, Some(5))],
        &[(6, 0xF0, None)],
    ];
    for (i, stack) in expect.iter().enumerate() {
        assert_stack(&c, &seen[i], stack, &format!("step {i}"));
    }
}

#[test]
fn exit_removes_the_lanes_from_every_entry() {
    let c = cfg(8, 4, 4);
    let steps = vec![
        launch(0, 0xFF),
        branch(1, 0x0F, 2, 9),
        exit(), // the taken path (lanes 0-3) exits
        go(9),  // the fall-through path reaches the rpc
        exit(),
        vec![],
    ];
    let Some(seen) = run(&c, &steps) else {
        return;
    };
    let expect: [&[Entry]; 6] = [
        &[],
        &[(0, 0xFF, None)],
        &[(9, 0xFF, None), (1, 0xF0, Some(9)), (2, 0x0F, Some(9))],
        &[(9, 0xF0, None), (1, 0xF0, Some(9))],
        &[(9, 0xF0, None)],
        &[],
    ];
    for (i, stack) in expect.iter().enumerate() {
        assert_stack(&c, &seen[i], stack, &format!("step {i}"));
    }
}

#[test]
fn overflow_refuses_the_commit_until_launch() {
    let c = cfg(4, 4, 2);
    let steps = vec![
        launch(0, 0xF),
        branch(1, 0x3, 2, 3), // needs 2 entries more: refused
        vec![
            ("commit", 1),
            ("next_pc", 7),
            ("launch", 1),
            ("launch_pc", 4),
            ("launch_mask", 0x1),
        ],
        branch(5, 0x1, 6, 7), // uniform taken: TOS.pc <- 6 (no refusal)
        branch(7, 0x0, 6, 9), // uniform not taken: TOS.pc <- 7
        launch(0, 0xF),
        branch(1, 0x3, 9, 9), // one push fits (depth 2)
        branch(2, 0x4, 4, 3), // divergent on a full stack: refused
        vec![("reset", 1)],
        vec![],
    ];
    let Some(seen) = run(&c, &steps) else {
        return;
    };
    let flags = |i: usize| (num(&seen[i], "overflow"), num(&seen[i], "overflowed"));
    assert_eq!(flags(1), (1, 0));
    assert_stack(&c, &seen[2], &[(0, 0xF, None)], "after the refusal");
    // Launch wins over the commit of the same cycle and clears the sticky flag.
    assert_eq!(flags(2), (0, 1));
    assert_stack(&c, &seen[3], &[(4, 0x1, None)], "after launch");
    assert_eq!(flags(3), (0, 0));
    assert_stack(&c, &seen[4], &[(6, 0x1, None)], "uniform taken");
    assert_stack(&c, &seen[5], &[(7, 0x1, None)], "uniform not taken");
    assert_stack(
        &c,
        &seen[7],
        &[(9, 0xF, None), (1, 0xC, Some(9))],
        "one-sided push",
    );
    assert_eq!(flags(7), (1, 0));
    assert_eq!(flags(8), (0, 1));
    assert_stack(
        &c,
        &seen[8],
        &[(9, 0xF, None), (1, 0xC, Some(9))],
        "refused again",
    );
    // Reset: overflow low in the reset cycle, everything cleared after it.
    assert_eq!(flags(8).0, 0);
    assert_eq!(flags(9), (0, 0));
    assert_stack(&c, &seen[9], &[], "after reset");
}

#[test]
fn commits_on_an_empty_stack_and_empty_launches_do_nothing() {
    let c = cfg(4, 4, 3);
    let steps = vec![
        branch(1, 0x3, 2, 3),
        launch(5, 0x0), // no live thread: popped at once
        go(6),
        vec![],
    ];
    let Some(seen) = run(&c, &steps) else {
        return;
    };
    for (i, s) in seen.iter().enumerate() {
        assert_stack(&c, s, &[], &format!("step {i}"));
        assert_eq!(num(s, "overflow"), 0);
    }
}
