//! The DTM execution mode's analysis and cycle-model modes (spec/dtm.md A1, A5, A7, A10) on
//! hand-built kernels whose reuse follows from the rules by hand, and on the suite: each
//! mode changes what it should, and never a kernel's result.

use warpforge_contract::units::dtm_top::{self, DtmConfig, DtmModes};
use warpforge_contract::Params;
use warpforge_testbench::dtm::DtmFault;
use warpforge_testbench::isa::dtm::{
    run_dtm_modes, warps_needed, DtmEngine, DtmStats, ModelEngine,
};
use warpforge_testbench::isa::kernels::SUITE;
use warpforge_testbench::isa::suite::run_dtm_case_modes;
use warpforge_testbench::isa::{assemble, AsmOptions, Launch, Machine};

fn cfg(sets: &[&str]) -> DtmConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(dtm_top::NAME, dtm_top::PARAMS, None, &sets).unwrap();
    DtmConfig::from_params(&p).unwrap()
}

fn modes(sets: &[&str]) -> DtmModes {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let (top, m) = DtmModes::split(&sets, false).unwrap();
    assert!(top.is_empty());
    m
}

/// Runs `src` as one block of `threads` on the model; the stats and the `out` buffer.
fn run(
    src: &str,
    threads: u32,
    top: &[&str],
    mode_sets: &[&str],
    fault: Option<DtmFault>,
) -> Result<(DtmStats, Vec<u32>), String> {
    let p = assemble(src, "t.s", &AsmOptions::default()).map_err(|e| e.to_string())?;
    let launch = Launch::new([1, 1, 1], [threads, 1, 1]).buffer("out", vec![0; threads as usize]);
    let mut m = Machine::new(&p, &launch).map_err(|e| e.to_string())?;
    let base = cfg(top);
    let c = base.with_warps(warps_needed(&m, &base));
    let md = modes(mode_sets);
    let ec = if md.lane_tables {
        c.lane_table()
    } else {
        c.clone()
    };
    let mut es: Vec<ModelEngine> = (0..if md.lane_tables { c.simd } else { 1 })
        .map(|_| {
            let mut e = ModelEngine::new(&ec);
            e.model.inject_fault(fault);
            e
        })
        .collect();
    let engines: Vec<&mut dyn DtmEngine> = es.iter_mut().map(|e| e as &mut dyn DtmEngine).collect();
    let s = run_dtm_modes(&mut m, &c, &md, engines)?;
    Ok((s, m.buffer("out").unwrap().to_vec()))
}

/// Every thread stores r3 to out[tid].
const STORE: &str = "
        mov.u32     %r4, %tid.x
        shl.b32     %r4, %r4, 2
        ld.param.u32 %r6, [out]
        add.s32     %r6, %r6, %r4
        st.global.u32 [%r6], %r3
        exit
";

/// Two lanes run three eligible instructions with equal operands once: with the parallel
/// lookup (A7) lane 1 misses lane 0's inserts; in lane order it hits each of them (INTER).
#[test]
fn lane_serial_turns_a_same_instruction_miss_into_an_inter_hit() {
    let src = format!(
        ".kernel pair\n.regs 8\n.param out\n
        mov.u32     %r1, 5
        mov.u32     %r2, 7
        add.s32     %r3, %r1, %r2
        {STORE}"
    );
    let top = ["simd_width=2", "mtg_ports=2"];
    let (par, out_p) = run(&src, 2, &top, &[], None).unwrap();
    let (ser, out_s) = run(&src, 2, &top, &["lane_serial=1"], None).unwrap();
    assert_eq!((par.inter, par.intra, par.trace), (0, 0, 0));
    // mov, mov, add on lane 1; the address instructions differ per lane.
    assert_eq!((ser.inter, ser.intra, ser.trace), (3, 0, 0));
    // Lane 0 still executes every one of them: no issue slot is freed (§5.6).
    assert_eq!((par.bypassed, ser.bypassed), (0, 0));
    assert_eq!(ser.saved_cycles, 0);
    assert_eq!(par.itot, ser.itot);
    assert_eq!(out_p, vec![12, 12]);
    assert_eq!(out_s, out_p);
}

/// One thread loops 4 times over `add; setp; mov 9; add r3 = r2 + r2; @p0 bra`. Without
/// branch eligibility: iteration 2 makes mov/add INTRA and the branch closes the trace
/// [mov, add], reused in iterations 3 and 4. With it the branch also hits the MTG in
/// iterations 2 and 3 (p0 = 1 as in iteration 1; iteration 4's p0 = 0 is new) and still
/// closes the trace.
const LOOP: &str = ".kernel loop\n.regs 8\n.param out\n
        mov.u32     %r1, 0
LOOP:   add.s32     %r1, %r1, 1
        setp.lt.u32 %p0, %r1, 4
        mov.u32     %r2, 9
        add.s32     %r3, %r2, %r2
        @%p0 bra    LOOP
        add.s32     %r3, %r3, %r1
        mov.u32     %r4, %tid.x
        shl.b32     %r4, %r4, 2
        ld.param.u32 %r6, [out]
        add.s32     %r6, %r6, %r4
        st.global.u32 [%r6], %r3
        exit
";

#[test]
fn a_branch_is_reused_only_with_branch_eligible_and_never_enters_a_trace() {
    let top = ["simd_width=2", "mtg_ports=2"];
    let (off, out_off) = run(LOOP, 1, &top, &[], None).unwrap();
    let (on, out_on) = run(LOOP, 1, &top, &["branch_eligible=1"], None).unwrap();
    assert_eq!((off.inter, off.intra, off.trace), (0, 2, 4));
    assert_eq!((on.inter, on.intra, on.trace), (0, 4, 4));
    // The two reused branches are the thread's only active lane: bypassed.
    assert_eq!(on.bypassed, off.bypassed + 2);
    assert_eq!(out_off, vec![18 + 4]);
    assert_eq!(out_on, out_off);
    // A model that appends the branch to the trace resumes after it even when taken: the
    // execution mode stops it (the trace's outputs differ from executing it).
    let e = run(
        LOOP,
        1,
        &top,
        &["branch_eligible=1"],
        Some(DtmFault::BranchEntersTrace),
    )
    .expect_err("a trace through a branch went unnoticed");
    assert!(e.contains("I2"), "{e}");
}

/// Two warps of two lanes; r7 = [0, 1 | 1, 0] (warp 0 | warp 1). `add r3 = r7 + 10` in
/// warp 1 finds warp 0's entries only across lanes; `mov r1, 5` finds them in its lane.
#[test]
fn lane_tables_never_share_between_lanes() {
    let src = ".kernel cross\n.regs 8\n.param out\n
        mov.u32     %r1, 5
        mov.u32     %r4, %tid.x
        shr.u32     %r5, %r4, 1
        xor.b32     %r6, %r4, %r5
        and.b32     %r7, %r6, 1
        add.s32     %r3, %r7, 10
        shl.b32     %r4, %r4, 2
        ld.param.u32 %r6, [out]
        add.s32     %r6, %r6, %r4
        st.global.u32 [%r6], %r3
        exit
";
    let top = ["simd_width=2", "mtg_ports=2"];
    let (sm, out_sm) = run(src, 4, &top, &[], None).unwrap();
    let (lane, out_lane) = run(src, 4, &top, &["table_scope=lane"], None).unwrap();
    // Per SM: warp 1's two lanes hit at mov and at add (lane 0 on lane 1's entry).
    assert_eq!((sm.inter, sm.intra), (4, 0));
    // Per lane: only the mov, each lane on its own table's entry.
    assert_eq!((lane.inter, lane.intra), (2, 0));
    assert_eq!(out_sm, vec![10, 11, 11, 10]);
    assert_eq!(out_lane, out_sm);
}

/// Warps of 4 lanes on a 2-lane functional unit (2 groups). r7 = [0, 0, 4, 6 | 0, 0, 12,
/// 14] (warp 0 | warp 1): in warp 1 `add r3 = r7 + 10` reuses on lanes 0-1 (warp 0's
/// entry) and executes on lanes 2-3; every other eligible instruction has per-thread
/// operands.
#[test]
fn group_skip_saves_exactly_the_groups_whose_lanes_all_reuse() {
    let src = ".kernel groups\n.regs 8\n.param out\n
        mov.u32     %r4, %tid.x
        and.b32     %r5, %r4, 2
        mul.lo.s32  %r7, %r5, %r4
        add.s32     %r3, %r7, 10
        shl.b32     %r4, %r4, 2
        ld.param.u32 %r6, [out]
        add.s32     %r6, %r6, %r4
        st.global.u32 [%r6], %r3
        exit
";
    let top = ["simd_width=4", "mtg_ports=4"];
    let (no, out_no) = run(src, 8, &top, &["fu_width=2"], None).unwrap();
    let (gs, out_gs) = run(src, 8, &top, &["fu_width=2", "group_skip=1"], None).unwrap();
    // 2 warps × 9 instructions × 2 FU cycles.
    assert_eq!((no.warp_instructions, no.cycles_without), (18, 36));
    assert_eq!((no.inter, no.bypassed, no.saved_groups), (2, 0, 0));
    assert_eq!(no.saved_cycles, 0);
    // Warp 1's add: group 0 (lanes 0-1) reuses, group 1 executes.
    assert_eq!(gs.saved_groups, 1);
    assert_eq!((gs.saved_cycles, gs.cycles_dtm), (1, 35));
    assert_eq!((no.idle_groups, gs.idle_groups), (0, 0));
    assert_eq!(out_gs, out_no);
    // Six threads: warp 1 is lanes 0-1 (r7 = 0, 0), so its add reuses on every active lane:
    // the FU is bypassed (both cycles saved, not a group). Group 1 has no active lane in
    // warp 1's 8 other instructions: divergence, not DTM, so never credited.
    let (six, _) = run(src, 6, &top, &["fu_width=2", "group_skip=1"], None).unwrap();
    assert_eq!((six.bypassed, six.saved_groups, six.idle_groups), (1, 0, 8));
    assert_eq!(six.saved_cycles, 2);
}

/// Memoization never changes a result: every suite kernel gives the host reference's
/// output (I1), every reuse equals executing it (I2), the counts equal warp mode's (I7) —
/// with every mode on, in two runs (the per-SM modes together; per-lane tables).
#[test]
fn every_mode_leaves_every_kernel_output_unchanged() {
    let c = cfg(&["mtg_entries=256", "mtt_entries=256"]);
    let all = [
        vec![
            "lane_serial=1",
            "branch_eligible=1",
            "fu_width=2",
            "group_skip=1",
        ],
        vec!["table_scope=lane", "branch_eligible=1"],
    ];
    for sets in all {
        let md = modes(&sets);
        let mut make = |c: &DtmConfig| -> Result<Box<dyn DtmEngine>, String> {
            Ok(Box::new(ModelEngine::new(c)))
        };
        let (mut inter, mut saved_groups) = (0, 0);
        for k in SUITE {
            let r =
                run_dtm_case_modes(k, k.sizes[0], 1, &c, &md, &AsmOptions::default(), &mut make);
            assert!(r.passed(), "{sets:?} {}: {}", k.name, r.error.unwrap());
            let s = r.stats.unwrap();
            inter += s.inter;
            saved_groups += s.saved_groups;
        }
        assert!(inter > 0, "{sets:?}");
        assert_eq!(saved_groups > 0, md.group_skip, "{sets:?}");
    }
}
