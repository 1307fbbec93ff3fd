//! Reconvergence: the assembler's IPDOM on hand-built control flow (if/else, nested, loops
//! with breaks, several exits), and the warp-level mode reproducing spec/crown.md §2.7
//! (Fig 2-3: 7 issues, 43 active lane slots, 76.8%) and §2.8 (Fig 2-4).

use warpforge_contract::isa::Op;
use warpforge_testbench::isa::kernels::CROWN_FIG2_3;
use warpforge_testbench::isa::warp::{run_warps, TraceRow, WarpOptions};
use warpforge_testbench::isa::{assemble, AsmOptions, Launch, Machine, Program};
use warpforge_testbench::simt_stack::Entry;

fn asm(src: &str) -> Program {
    assemble(src, "test.s", &AsmOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// (target, rpc) of the branch at `pc`.
fn branch(p: &Program, pc: usize) -> (u32, u32) {
    assert_eq!(p.code[pc].op, Op::Bra, "pc {pc} is not a branch");
    (p.code[pc].target(), p.code[pc].rpc())
}

fn e(pc: u64, mask: u64, rpc: Option<u64>) -> Entry {
    Entry { pc, mask, rpc }
}

fn run_traced(
    p: &Program,
    threads: u32,
    warp: u32,
) -> (warpforge_testbench::isa::WarpStats, Vec<TraceRow>) {
    let mut m = Machine::new(p, &Launch::new([1, 1, 1], [threads, 1, 1])).unwrap();
    let mut o = WarpOptions::new(warp);
    o.trace = true;
    o.stack_depth = 8;
    run_warps(&mut m, &o).unwrap()
}

#[test]
fn if_else_reconverges_at_the_join() {
    let p = asm(".kernel k\n.regs 2\n\
        setp.lt.u32 %p0, %tid.x, 3\n\
        @%p0 bra THEN\n\
        add.s32 %r0, %r0, 1\n\
        bra JOIN\n\
        THEN: add.s32 %r0, %r0, 2\n\
        JOIN: exit\n");
    assert_eq!(branch(&p, 1), (4, 5));
}

#[test]
fn nested_ifs_reconverge_innermost_first() {
    let p = asm(".kernel k\n.regs 2\n\
        setp.lt.u32 %p0, %tid.x, 4\n\
        @!%p0 bra OUTER_END\n\
        setp.lt.u32 %p1, %tid.x, 2\n\
        @!%p1 bra INNER_ELSE\n\
        add.s32 %r0, %r0, 1\n\
        bra INNER_END\n\
        INNER_ELSE: add.s32 %r0, %r0, 2\n\
        INNER_END: add.s32 %r0, %r0, 3\n\
        OUTER_END: exit\n");
    assert_eq!(branch(&p, 1), (8, 8), "outer if: reconverges after it");
    assert_eq!(branch(&p, 3), (6, 7), "inner if/else: at the inner join");
    assert_eq!(branch(&p, 5), (7, 7));
}

#[test]
fn loop_with_break_reconverges_at_the_loop_exit() {
    // while (i < n) { if (x) break; i++ }  then exit.
    let p = asm(".kernel k\n.regs 4\n\
        mov.u32 %r0, 0\n\
        HEAD: setp.ge.u32 %p0, %r0, 10\n\
        @%p0 bra AFTER\n\
        setp.eq.u32 %p1, %tid.x, %r0\n\
        @%p1 bra AFTER\n\
        add.s32 %r0, %r0, 1\n\
        bra HEAD\n\
        AFTER: st.shared.u32 [%r1], %r0\n\
        exit\n");
    assert_eq!(branch(&p, 2), (7, 7), "loop test");
    assert_eq!(branch(&p, 4), (7, 7), "break");
    assert_eq!(branch(&p, 6), (1, 1), "back edge");
}

#[test]
fn several_exits_reconverge_at_the_virtual_exit() {
    let p = asm(".kernel k\n.regs 2\n\
        setp.lt.u32 %p0, %tid.x, 3\n\
        @%p0 bra A\n\
        add.s32 %r0, %r0, 1\n\
        exit\n\
        A: add.s32 %r0, %r0, 2\n\
        exit\n");
    // IPDOM is the virtual exit: the program length (no instruction has that PC).
    assert_eq!(branch(&p, 1), (4, 6));
    // And the warp mode runs it: both paths end by exit.
    let (s, t) = run_traced(&p, 8, 8);
    assert_eq!(s.divergent_branches, 1);
    assert_eq!(
        t.iter().map(|r| r.pc).collect::<Vec<_>>(),
        vec![0, 1, 4, 5, 2, 3]
    );
    assert_eq!(s.active_lanes, 8 + 8 + 3 + 3 + 5 + 5);
}

#[test]
fn endless_loop_branch_gets_the_virtual_exit() {
    let p = asm(".kernel k\n.regs 2\n\
        setp.lt.u32 %p0, %tid.x, 3\n\
        @%p0 bra SPIN\n\
        exit\n\
        SPIN: bra SPIN\n");
    assert_eq!(branch(&p, 1), (3, 4));
    assert_eq!(branch(&p, 3), (3, 4));
}

#[test]
fn crown_fig2_3_sbr_trace_7_issues_43_lanes() {
    let p = asm(CROWN_FIG2_3);
    assert_eq!(p.code.len(), 7);
    assert_eq!(
        branch(&p, 1),
        (4, 5),
        "line 5 (PC5) is the IPDOM of the branch at line 2"
    );
    let (s, trace) = run_traced(&p, 8, 8);
    let rows: Vec<(u32, u64, Vec<Entry>)> =
        trace.into_iter().map(|r| (r.pc, r.mask, r.stack)).collect();
    let want = vec![
        (0, 0xFF, vec![e(1, 0xFF, None)]),
        (
            1,
            0xFF,
            vec![e(5, 0xFF, None), e(2, 0xE0, Some(5)), e(4, 0x1F, Some(5))],
        ),
        (4, 0x1F, vec![e(5, 0xFF, None), e(2, 0xE0, Some(5))]),
        (2, 0xE0, vec![e(5, 0xFF, None), e(3, 0xE0, Some(5))]),
        (3, 0xE0, vec![e(5, 0xFF, None)]),
        (5, 0xFF, vec![e(6, 0xFF, None)]),
        (6, 0xFF, vec![]),
    ];
    assert_eq!(rows, want);
    assert_eq!(s.warp_instructions, 7);
    assert_eq!(s.active_lanes, 43);
    assert_eq!(s.divergent_branches, 1);
    assert!((s.simd_efficiency() - 43.0 / 56.0).abs() < 1e-12);
    assert_eq!(format!("{:.1}%", 100.0 * s.simd_efficiency()), "76.8%");
}

#[test]
fn crown_fig2_4_one_sided_then_two_sided_divergence() {
    // A ends in a one-sided branch (lanes 4-7 straight to F); B in a two-sided one (C: lanes
    // 0-1, D: lanes 2-3). A's paths reconverge at F, B's at E; D (taken) runs before C.
    let p = asm(".kernel fig2_4\n.regs 2\n\
        setp.ge.u32 %p0, %tid.x, 4\n\
        @%p0 bra F\n\
        setp.ge.u32 %p1, %tid.x, 2\n\
        @%p1 bra D\n\
        C: add.s32 %r0, %r0, 1\n\
        bra E\n\
        D: add.s32 %r0, %r0, 2\n\
        E: add.s32 %r0, %r0, 10\n\
        F: exit\n");
    assert_eq!(branch(&p, 1), (8, 8));
    assert_eq!(branch(&p, 3), (6, 7));
    let (s, trace) = run_traced(&p, 8, 8);
    let issued: Vec<(u32, u64)> = trace.iter().map(|r| (r.pc, r.mask)).collect();
    assert_eq!(
        issued,
        vec![
            (0, 0xFF),
            (1, 0xFF),
            (2, 0x0F),
            (3, 0x0F),
            (6, 0x0C),
            (4, 0x03),
            (5, 0x03),
            (7, 0x0F),
            (8, 0xFF)
        ]
    );
    // After A's branch: only the B path is pushed (one-sided), the rest waits at F.
    assert_eq!(trace[1].stack, vec![e(8, 0xFF, None), e(2, 0x0F, Some(8))]);
    // After B's branch: E for both, D on top.
    assert_eq!(
        trace[3].stack,
        vec![
            e(8, 0xFF, None),
            e(7, 0x0F, Some(8)),
            e(4, 0x03, Some(7)),
            e(6, 0x0C, Some(7))
        ]
    );
    assert_eq!(s.divergent_branches, 2);
    assert_eq!(s.active_lanes, 8 + 8 + 4 + 4 + 2 + 2 + 2 + 4 + 8);
}

#[test]
fn warp_size_changes_the_issue_count_not_the_result() {
    // Fig 2-3 with warps of 4: warp 0 (lanes 0-3) all take the else path (5 uniform
    // issues), warp 1 (lane 4 else, lanes 5-7 then) diverges as in the figure (7 issues).
    // With warps of 1, lanes 0-4 issue 5 instructions each and lanes 5-7 issue 6.
    let p = asm(CROWN_FIG2_3);
    let (s8, _) = run_traced(&p, 8, 8);
    let (s4, _) = run_traced(&p, 8, 4);
    let (s1, _) = run_traced(&p, 8, 1);
    // Thread-instructions are the same; smaller warps issue more and waste fewer lanes.
    assert_eq!(s1.active_lanes, s8.active_lanes);
    assert_eq!(s1.warp_instructions, 5 * 5 + 3 * 6);
    assert_eq!(s4.warp_instructions, 5 + 7);
    assert_eq!(s4.active_lanes, 43);
    assert!(s4.warp_instructions > s8.warp_instructions);
    assert!(s4.simd_efficiency() > s8.simd_efficiency());
    assert!((s1.simd_efficiency() - 1.0).abs() < 1e-12);
}
