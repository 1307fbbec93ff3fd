//! Runtime faults: out-of-bounds and misaligned accesses, divergent barriers, the step limit,
//! a PC outside the program and invalid launches are one-line errors naming the thread, the
//! PC and the instruction — in thread mode and in warp mode.

use warpforge_contract::isa::{Instr, Op};
use warpforge_testbench::isa::warp::{run_warps, WarpOptions};
use warpforge_testbench::isa::{assemble, AsmOptions, Fault, Launch, Machine, Program};

fn asm(src: &str) -> Program {
    assemble(src, "f.s", &AsmOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn thread_run(p: &Program, l: &Launch) -> Result<(), Fault> {
    Machine::new(p, l)?.run().map(|_| ())
}

fn warp_run(p: &Program, l: &Launch, w: u32) -> Result<(), Fault> {
    let mut m = Machine::new(p, l)?;
    run_warps(&mut m, &WarpOptions::new(w)).map(|_| ())
}

/// Both modes fail, with one line containing every piece of `parts`.
fn both_fail(p: &Program, l: &Launch, parts: &[&str]) -> String {
    let mut last = String::new();
    for r in [thread_run(p, l), warp_run(p, l, 8), warp_run(p, l, 32)] {
        let f = r.expect_err("the run should fault").to_string();
        assert!(!f.contains('\n'), "one line: {f}");
        for part in parts {
            assert!(f.contains(part), "`{part}` missing from: {f}");
        }
        last = f;
    }
    last
}

const OOB: &str = ".kernel oob\n.regs 4\n.param a\n\
    ld.param.u32 %r0, [a]\n\
    shl.b32 %r1, %tid.x, 2\n\
    add.s32 %r0, %r0, %r1\n\
    ld.global.u32 %r2, [%r0+12]\n\
    exit\n";

#[test]
fn out_of_bounds_global_load_names_thread_pc_and_instruction() {
    let p = asm(OOB);
    // 4 words: thread 0 reads word 3 (fine), thread 1 reads word 4 (past the end).
    let l = Launch::new([1, 1, 1], [4, 1, 1]).buffer("a", vec![0; 4]);
    let f = both_fail(
        &p,
        &l,
        &[
            "out-of-bounds global access",
            "pc 3",
            "`ld.global.b32 %r2, [%r0+12]`",
        ],
    );
    assert!(f.starts_with("block (0,0,0) thread (1,0,0) pc 3 "), "{f}");
}

#[test]
fn misaligned_and_shared_faults() {
    let p = asm(".kernel mis\n.regs 4\n.param a\n\
        ld.param.u32 %r0, [a]\n\
        ld.global.u32 %r1, [%r0+2]\n\
        exit\n");
    let l = Launch::new([1, 1, 1], [2, 1, 1]).buffer("a", vec![0; 4]);
    both_fail(
        &p,
        &l,
        &["misaligned global access", "thread (0,0,0)", "pc 1"],
    );

    let p = asm(".kernel sh\n.regs 4\n.shared 16\n\
        shl.b32 %r0, %tid.x, 3\n\
        st.shared.u32 [%r0], %r1\n\
        exit\n");
    let l = Launch::new([1, 1, 1], [4, 1, 1]);
    // Thread 2 writes byte 16: past the 16-byte shared memory.
    both_fail(
        &p,
        &l,
        &[
            "out-of-bounds shared access at address 0x10",
            "thread (2,0,0)",
            "pc 1",
        ],
    );
}

#[test]
fn barriers_at_different_pcs_never_complete() {
    let p = asm(".kernel div\n.regs 2\n\
        setp.lt.u32 %p0, %tid.x, 16\n\
        @%p0 bra LOW\n\
        bar.sync 0\n\
        exit\n\
        LOW: bar.sync 0\n\
        exit\n");
    // Warps of 16: each warp is uniform, but the two halves wait at different bar.syncs.
    let l = Launch::new([1, 1, 1], [32, 1, 1]);
    let f = thread_run(&p, &l).unwrap_err().to_string();
    assert!(
        f.contains("divergent barrier") && f.contains("bar.sync at pc"),
        "{f}"
    );
    let f = warp_run(&p, &l, 16).unwrap_err().to_string();
    assert!(
        f.contains("divergent barrier") && f.contains("bar.sync at pc"),
        "{f}"
    );
    // Warps of 32: the warp reaches a bar.sync with the other half parked on its stack.
    let f = warp_run(&p, &l, 32).unwrap_err().to_string();
    assert!(
        f.contains("divergent barrier") && f.contains("parked"),
        "{f}"
    );
}

#[test]
fn exited_threads_count_as_arrived() {
    // Threads 4.. exit early; the others sync twice and still finish.
    let p = asm(".kernel early\n.regs 2\n.shared 64\n\
        setp.ge.u32 %p0, %tid.x, 4\n\
        @%p0 exit\n\
        shl.b32 %r0, %tid.x, 2\n\
        st.shared.u32 [%r0], %r0\n\
        bar.sync 0\n\
        ld.shared.u32 %r1, [%r0]\n\
        bar.sync 0\n\
        exit\n");
    let l = Launch::new([2, 1, 1], [16, 1, 1]);
    thread_run(&p, &l).unwrap();
    warp_run(&p, &l, 8).unwrap();
    warp_run(&p, &l, 32).unwrap();
}

#[test]
fn runaway_loop_hits_the_step_limit() {
    let p = asm(".kernel spin\n.regs 2\n\
        L: add.s32 %r0, %r0, 1\n\
        bra L\n");
    let mut l = Launch::new([1, 1, 1], [4, 1, 1]);
    l.max_steps = 1000;
    let f = both_fail(
        &p,
        &l,
        &["step limit of 1000 instructions", "thread (0,0,0)"],
    );
    assert!(f.contains("pc "), "{f}");
}

#[test]
fn pc_past_the_end_of_a_binary_program() {
    // The assembler refuses this, but a hand-made binary can do it.
    let p = Program {
        name: "falls".into(),
        regs: 1,
        shared_bytes: 0,
        params: vec![],
        code: vec![Instr::new(Op::Nop)],
        lines: vec![0],
    };
    let l = Launch::new([1, 1, 1], [2, 1, 1]);
    both_fail(
        &p,
        &l,
        &["PC outside the program of 1 instructions", "pc 1"],
    );
}

#[test]
fn invalid_launches_are_reported_before_running() {
    let p = asm(OOB);
    let cases: Vec<(Launch, &str)> = vec![
        (
            Launch::new([1, 1, 1], [0, 1, 1]).buffer("a", vec![0]),
            "block dimensions",
        ),
        (
            Launch::new([1, 1, 1], [64, 32, 1]).buffer("a", vec![0]),
            "at most 1024",
        ),
        (
            Launch::new([0, 1, 1], [4, 1, 1]).buffer("a", vec![0]),
            "grid dimensions",
        ),
        (Launch::new([1, 1, 1], [4, 1, 1]), "declares parameter `a`"),
        (
            Launch::new([1, 1, 1], [4, 1, 1])
                .buffer("a", vec![0])
                .param("b", 1),
            "not declared",
        ),
    ];
    for (l, want) in cases {
        let f = Machine::new(&p, &l).unwrap_err().to_string();
        assert!(f.starts_with("invalid launch: ") && f.contains(want), "{f}");
        assert!(!f.contains('\n'));
    }
    let mut m = Machine::new(
        &p,
        &Launch::new([1, 1, 1], [4, 1, 1]).buffer("a", vec![0; 8]),
    )
    .unwrap();
    assert!(run_warps(&mut m, &WarpOptions::new(65)).is_err());
    assert!(m.step(1, 0).is_err(), "no block 1");
    assert!(m.step(0, 4).is_err(), "no thread 4");
}

#[test]
fn stack_overflow_is_a_fault_not_a_panic() {
    // A two-sided divergence needs three entries: with a depth of 2 it overflows.
    let p = asm(".kernel ifelse\n.regs 2\n\
        setp.le.u32 %p0, %tid.x, %r0\n\
        @%p0 bra ELSE\n\
        add.s32 %r1, %r1, 1\n\
        bra END\n\
        ELSE: add.s32 %r1, %r1, 2\n\
        END: exit\n");
    let l = Launch::new([1, 1, 1], [32, 1, 1]);
    let mut m = Machine::new(&p, &l).unwrap();
    let mut o = WarpOptions::new(32);
    o.stack_depth = 2;
    let f = run_warps(&mut m, &o).unwrap_err().to_string();
    assert!(f.contains("SIMT stack overflow"), "{f}");
    let mut m = Machine::new(&p, &l).unwrap();
    o.stack_depth = 3;
    let (s, _) = run_warps(&mut m, &o).unwrap();
    assert_eq!(s.max_stack_depth, 3);
}

#[test]
fn a_loop_whose_exit_diverges_every_iteration_keeps_a_constant_depth() {
    // Each iteration one more lane leaves the loop: 31 divergent branches, yet the paths
    // replace the looping entry instead of stacking up.
    let p = asm(".kernel grow\n.regs 2\n\
        L: setp.le.u32 %p0, %tid.x, %r0\n\
        @%p0 bra DONE\n\
        add.s32 %r0, %r0, 1\n\
        bra L\n\
        DONE: exit\n");
    let l = Launch::new([1, 1, 1], [32, 1, 1]);
    let mut m = Machine::new(&p, &l).unwrap();
    let mut o = WarpOptions::new(32);
    o.stack_depth = 2;
    let (s, _) = run_warps(&mut m, &o).unwrap();
    assert_eq!(s.divergent_branches, 31);
    assert_eq!(s.max_stack_depth, 2);
}
