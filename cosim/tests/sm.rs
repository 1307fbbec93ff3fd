//! The SM RTL under Verilator runs the kernel suite and random programs with every retired
//! warp-instruction checked against the interpreter, and every result against the host
//! reference (kernels) or the interpreter's memory (random programs).

use warpforge_contract::units::sm::{self, SmConfig};
use warpforge_contract::{Manifest, Params};
use warpforge_cosim::sm_run::{random_options, run, SmFailure, SmRunOptions, SmStats};
use warpforge_hdl::primitives::separate_instance;
use warpforge_hdl::Design;
use warpforge_testbench::isa::kernels::SUITE;
use warpforge_testbench::isa::{suite, AsmOptions, Machine};
use warpforge_testbench::sm::random_program;

fn sm(sets: &[&str]) -> (SmConfig, Design, Manifest) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let params = Params::resolve(sm::NAME, sm::PARAMS, None, &sets).unwrap();
    let cfg = SmConfig::from_params(&params).unwrap();
    let design = warpforge_hdl::sm::generate(&cfg);
    let manifest = cfg.manifest(&params);
    (cfg, design, manifest)
}

/// Assemble `src` and run it with `launch` and the default options; a failure panics naming
/// `what`. The stall counters are checked.
fn run_source(
    (cfg, design, manifest): &(SmConfig, Design, Manifest),
    what: &str,
    src: &str,
    launch: &warpforge_testbench::isa::Launch,
) -> SmStats {
    let program =
        warpforge_testbench::isa::assemble(src, &format!("{what}.s"), &AsmOptions::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    let s = run(
        cfg,
        design,
        manifest,
        &program,
        launch,
        None,
        &SmRunOptions::new(1),
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    check_counters(what, &s);
    s
}

/// Counters that must add up: every cycle either issued or is one kind of stall.
fn check_counters(name: &str, s: &SmStats) {
    let stalls = s.stall_scoreboard + s.stall_memory + s.stall_barrier + s.stall_idle;
    assert!(s.cycles > 0 && s.warp_instructions > 0, "{name}: {s:?}");
    assert!(
        stalls <= s.cycles,
        "{name}: stalls {stalls} > cycles {}",
        s.cycles
    );
    assert!(
        stalls + s.warp_instructions >= s.cycles,
        "{name}: {stalls} stall cycles + {} issues < {} cycles",
        s.warp_instructions,
        s.cycles
    );
    assert!(s.active_lanes <= s.thread_instructions);
}

/// Every suite kernel at its small size on one SM configuration.
fn suite_on(sets: &[&str]) {
    let (cfg, design, manifest) = sm(sets);
    let mut failures = Vec::new();
    for k in SUITE {
        let program = suite::program(k, &AsmOptions::default()).unwrap();
        let launch = (k.make)(k.sizes[0], 1).unwrap();
        // The SM retires exactly the dynamic instructions of thread mode, whatever its order.
        let reference = Machine::new(&program, &launch).unwrap().run().unwrap();
        let opts = SmRunOptions::new(1);
        match run(
            &cfg,
            &design,
            &manifest,
            &program,
            &launch,
            Some(k.check),
            &opts,
        ) {
            Ok(s) => {
                check_counters(k.name, &s);
                assert_eq!(
                    s.thread_instructions, reference.thread_instructions,
                    "{}: thread-instructions retired",
                    k.name
                );
            }
            Err(e) => failures.push(format!("{}: {e}", k.name)),
        }
    }
    assert!(
        failures.is_empty(),
        "{}:\n{}",
        cfg.module_name(),
        failures.join("\n")
    );
}

/// The three configurations the suite runs on (warp size 8 and 32, SIMD width 8 and
/// warp-wide, one and two schedulers, LRR and GTO, one- and three-stage lanes, 4, 2 and 1
/// register-file banks); the random
/// programs and the cycle-limit test reuse their builds. `mem_*` are the harness's, not the RTL's.
const A: &[&str] = &[
    "warps=32",
    "warp_size=8",
    "simd_width=8",
    "schedulers=2",
    "policy=lrr",
    "mem_latency=20",
];
const B: &[&str] = &[
    "warps=8",
    "warp_size=32",
    "simd_width=8",
    "policy=gto",
    "mem_latency=40",
    "mem_stall_pct=30",
    "alu_stages=3",
    "rf_banks=2",
];
/// A small SM (configs/sm-small.toml's warps and memories, with 8 SIMD lanes) for random
/// programs and the planted bug.
const SMALL: &[&str] = &[
    "warps=4",
    "warp_size=8",
    "simd_width=8",
    "rf_kb=4",
    "shared_kb=1",
    "cta_slots=2",
];
const C: &[&str] = &[
    "warps=8",
    "warp_size=32",
    "simd_width=32",
    "schedulers=2",
    "policy=gto",
    "mem_latency=10",
    "rf_banks=1",
];

#[test]
fn suite_on_warp8_simd8_two_lrr_schedulers() {
    suite_on(A);
}

#[test]
fn suite_on_warp32_simd8_gto_with_back_pressure() {
    suite_on(B);
}

#[test]
fn suite_on_warp32_warp_wide_simd_two_gto_schedulers() {
    suite_on(C);
}

/// Random programs (seeds `seeds`) on one configuration, each checked per instruction.
fn random_on(sets: &[&str], seeds: std::ops::Range<u64>) {
    let (cfg, design, manifest) = sm(sets);
    let opts = random_options(&cfg);
    for seed in seeds {
        let (program, launch) = random_program(seed, opts);
        let r = run(
            &cfg,
            &design,
            &manifest,
            &program,
            &launch,
            None,
            &SmRunOptions::new(seed),
        );
        if let Err(e) = r {
            panic!("{} random program seed {seed}: {e}", cfg.module_name());
        }
    }
}

/// Random programs run on two small SMs (fast to build and to simulate): warp size 8, and
/// warp size 32 in lane groups of 8 with two schedulers and two-stage lanes.
#[test]
fn random_programs_on_a_small_warp8_sm_with_memory_back_pressure() {
    let mut sets = SMALL.to_vec();
    sets.extend(["mem_latency=5", "mem_stall_pct=20"]);
    random_on(&sets, 0..400);
}

#[test]
fn random_programs_on_a_small_warp32_sm_with_lane_groups() {
    random_on(
        &[
            "warps=2",
            "warp_size=32",
            "simd_width=8",
            "schedulers=2",
            "policy=lrr",
            "rf_kb=8",
            "shared_kb=1",
            "mem_latency=3",
            "alu_stages=2",
            "rf_banks=2",
        ],
        1000..1100,
    );
}

#[test]
fn a_kernel_that_never_ends_stops_at_the_cycle_limit() {
    let (cfg, design, manifest) = sm(&[
        "warps=2",
        "warp_size=8",
        "simd_width=8",
        "rf_kb=1",
        "shared_kb=1",
    ]);
    let src = ".kernel spin\n.regs 1\nL: add.s32 %r0, %r0, 1\n bra L\n";
    let program =
        warpforge_testbench::isa::assemble(src, "spin.s", &AsmOptions::default()).unwrap();
    let launch = warpforge_testbench::isa::Launch::new([1, 1, 1], [8, 1, 1]);
    let mut opts = SmRunOptions::new(1);
    opts.max_cycles = 3000;
    match run(&cfg, &design, &manifest, &program, &launch, None, &opts) {
        Err(SmFailure::Timeout { cycles, records }) => {
            assert_eq!(cycles, 3000);
            assert!(records > 100, "the loop ran: {records} records checked");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
}

/// spec/crown.md §2.7 (thesis Fig 2-3) on the SM RTL: one 8-thread warp through a two-sided
/// branch retires 7 warp-instructions with 43 active lane slots of 56 (76.8 %).
#[test]
fn crown_fig2_3_on_the_sm_retires_7_warp_instructions_with_43_active_lanes() {
    let src = warpforge_testbench::isa::kernels::CROWN_FIG2_3;
    let launch = warpforge_testbench::isa::Launch::new([1, 1, 1], [8, 1, 1]);
    let s = run_source(&sm(A), "crown_fig2_3", src, &launch);
    // Lane slots of the issue masks; 3 of them (the branch's guard-false lanes) do not
    // execute.
    assert_eq!((s.warp_instructions, s.thread_instructions), (7, 43));
    assert_eq!(s.active_lanes, 40);
    assert!((s.simd_utilisation - 43.0 / 56.0).abs() < 1e-9);
}

/// A deliberately wrong SM, built only here: lane 3's integer adder adds one. The first
/// `add.s32` that lane 3 executes must be reported at its PC, lane 3, field `value`, off by
/// exactly one.
#[test]
fn a_planted_alu_bug_in_one_lane_is_reported_at_its_instruction_lane_and_field() {
    let (cfg, mut design, manifest) = sm(SMALL);
    // Identical lanes share one module in the emitted Verilog: lane 3 gets its own first.
    let (separated, ints) = separate_instance(
        &design.verilog,
        &design.module,
        &["exe", "alu", "lane__3", "ints"],
    )
    .expect("lane 3's integer block");
    design.verilog = separated;
    let module = format!("\nmodule {ints}(");
    let start = design
        .verilog
        .find(&module)
        .expect("lane 3's integer block");
    let end = start + design.verilog[start..].find("endmodule").unwrap();
    let body = &design.verilog[start..end];
    assert_eq!(body.matches("result = a + b;").count(), 1);
    let planted = body.replace("result = a + b;", "result = a + b + 32'h1;");
    design.verilog = format!(
        "{}{planted}{}",
        &design.verilog[..start],
        &design.verilog[end..]
    );

    // vecadd in blocks of 32 threads, the small SM's size.
    let k = warpforge_testbench::isa::kernels::find("vecadd").unwrap();
    let program = suite::program(k, &AsmOptions::default()).unwrap();
    let mut launch = (k.make)(64, 1).unwrap();
    launch.grid = [2, 1, 1];
    launch.block = [32, 1, 1];
    let add_pc = program
        .code
        .iter()
        .position(|i| i.op == warpforge_contract::isa::Op::Add)
        .unwrap() as u32;
    match run(
        &cfg,
        &design,
        &manifest,
        &program,
        &launch,
        None,
        &SmRunOptions::new(1),
    ) {
        Err(SmFailure::Mismatch(m)) => {
            assert_eq!((m.pc, m.lane, m.field), (add_pc, Some(3), "value"), "{m}");
            assert!(m.instr.starts_with("add.s32"), "{m}");
            let parse = |s: &str| u32::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
            assert_eq!(parse(&m.actual), parse(&m.expected).wrapping_add(1), "{m}");
        }
        other => panic!("the planted bug was not reported as a mismatch: {other:?}"),
    }
}

/// The scheduler policies the suite configurations do not use, each on a small SM with lane
/// groups (SIMD 4 of 8) and two schedulers, through 12 random programs each (barriers included,
/// so bar-gto's barrier table and motrr-recency's completion events are exercised).
#[test]
fn random_programs_under_every_other_scheduler_policy() {
    for policy in ["mto", "motrr", "motrr-recency", "bar-gto"] {
        let p = format!("policy={policy}");
        random_on(
            &[
                "warps=4",
                "warp_size=8",
                "simd_width=4",
                "schedulers=2",
                &p,
                "rf_kb=4",
                "shared_kb=1",
                "mem_latency=7",
                "mem_stall_pct=10",
                "rf_banks=1",
            ],
            0..12,
        );
    }
}

/// The back end overlaps warp-instructions, by the RTL's own counters, on the small SM (one
/// lane group, four warps):
/// - an ALU loop (no memory instruction) retires more than one warp-instruction per
///   5·groups + 6 cycles — the bound of a back end that holds one warp-instruction at a time
///   (3·groups + 1 cycles of operand read, groups + 1 of execute, groups of writeback and the
///   sequencing between them) — with cycles that hold two or more warp-instructions;
/// - random programs (global and shared memory, barriers) also have such cycles.
#[test]
fn the_back_end_overlaps_warp_instructions_of_different_warps() {
    let small = sm(SMALL);
    let (cfg, design, manifest) = &small;
    let old_bound = 1.0 / (5 * cfg.groups() + 6) as f64;
    let src = ".kernel alu_loop\n.regs 4\n mov.b32 %r0, 0\n mov.b32 %r1, %tid.x\nL: add.s32 %r1, %r1, 3\n mul.lo.s32 %r2, %r1, 5\n xor.b32 %r3, %r2, %r1\n mad.lo.s32 %r1, %r3, %r2, %r1\n add.s32 %r0, %r0, 1\n setp.lt.s32 %p0, %r0, 40\n @%p0 bra L\n exit\n";
    let launch = warpforge_testbench::isa::Launch::new([1, 1, 1], [32, 1, 1]);
    let s = run_source(&small, "alu_loop", src, &launch);
    assert_eq!(s.warp_instructions, 4 * (2 + 40 * 7 + 1), "{s:?}");
    assert!(
        s.ipc > old_bound,
        "alu_loop: IPC {:.4} not above the one-at-a-time bound {old_bound:.4}",
        s.ipc
    );
    assert!(
        s.overlap_cycles > 0 && s.overlap_cycles <= s.cycles,
        "alu_loop: {s:?}"
    );
    let opts = random_options(cfg);
    for seed in [1, 2] {
        let (program, launch) = random_program(seed, opts);
        let s = run(
            cfg,
            design,
            manifest,
            &program,
            &launch,
            None,
            &SmRunOptions::new(seed),
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(
            s.overlap_cycles > 0 && s.overlap_cycles <= s.cycles,
            "seed {seed}: {} overlapped cycles of {}",
            s.overlap_cycles,
            s.cycles
        );
    }
}

/// docs/isa.md: a warp that reaches `bar.sync` with lanes parked on its reconvergence stack
/// can never complete the barrier. Lanes 4–7 branch to one `bar.sync`, lanes 0–3 fall
/// through to another: whichever side runs first reaches its barrier with the other side
/// parked, and the SM stops with FAULT_DIVERGENT_BARRIER at once (not at the cycle limit),
/// without retiring the barrier. With no lane taking the branch (guard 8) it passes.
#[test]
fn a_divergent_barrier_is_a_fault() {
    let (cfg, design, manifest) = sm(SMALL);
    let kernel = |guard: &str| {
        format!(
            ".kernel divbar\n.regs 1\n setp.ge.u32 %p0, %tid.x, {guard}\n @%p0 bra B\n bar.sync 0\n bra DONE\nB: bar.sync 0\nDONE: exit\n"
        )
    };
    let launch = warpforge_testbench::isa::Launch::new([1, 1, 1], [8, 1, 1]);
    let mut opts = SmRunOptions::new(1);
    opts.max_cycles = 20_000;
    for (guard, divergent) in [(4, true), (8, false)] {
        let program = warpforge_testbench::isa::assemble(
            &kernel(&guard.to_string()),
            "divbar.s",
            &AsmOptions::default(),
        )
        .unwrap();
        let r = run(&cfg, &design, &manifest, &program, &launch, None, &opts);
        match (divergent, r) {
            (true, Err(SmFailure::Fault { code, .. })) => {
                assert_eq!(code, sm::FAULT_DIVERGENT_BARRIER)
            }
            (false, Ok(s)) => assert!(s.warp_instructions >= 4, "{s:?}"),
            (d, other) => panic!("guard {guard} (divergent: {d}): {other:?}"),
        }
    }
}

/// Register-file banks, by the RTL's own counters (`cnt_opr_read`: cycles operand read
/// reads rows), on an SM of 8 warps × 32 threads in 8 lane groups of 4:
/// - `spread` uses only r0–r3, so with 4 banks every instruction's rows sit in different
///   banks (warp-register = register base + r): one read phase per group, groups cycles per
///   warp-instruction; with one bank every row is read in turn (A; B unless immediate, unused
///   B fields included; c) — and the kernel takes fewer cycles with 4 banks;
/// - `same_bank` uses only r0 and r4, which share a bank for every register base: with 4
///   banks `add %r4, %r4, %r0` takes two phases and the `mad` three.
#[test]
fn register_file_banks_read_operands_in_parallel_and_serialise_conflicts() {
    const ITERS: u64 = 24;
    let spread = format!(".kernel spread\n.regs 4\n mov.b32 %r0, 0\n mov.b32 %r1, 5\n mov.b32 %r2, 7\n mov.b32 %r3, 1\nL: add.s32 %r1, %r1, %r2\n mul.lo.s32 %r3, %r1, %r2\n xor.b32 %r2, %r3, %r1\n mad.lo.s32 %r1, %r3, %r2, %r1\n add.s32 %r0, %r0, 1\n setp.lt.s32 %p0, %r0, {ITERS}\n @%p0 bra L\n exit\n");
    let same_bank = format!(".kernel same_bank\n.regs 8\n mov.b32 %r0, 0\n mov.b32 %r4, 3\nL: add.s32 %r4, %r4, %r0\n mad.lo.s32 %r4, %r0, %r4, %r0\n add.s32 %r0, %r0, 1\n setp.lt.s32 %p0, %r0, {ITERS}\n @%p0 bra L\n exit\n");
    let launch = warpforge_testbench::isa::Launch::new([1, 1, 1], [256, 1, 1]);
    let run_on = |banks: &str, src: &str| {
        let (cfg, design, manifest) = sm(&[
            "warps=8",
            "warp_size=32",
            "simd_width=4",
            "rf_kb=8",
            "shared_kb=1",
            "cta_slots=2",
            banks,
        ]);
        let groups = cfg.groups() as u64;
        (
            groups,
            run_source(&(cfg, design, manifest), banks, src, &launch),
        )
    };
    let warps = 8;
    let (g, one) = run_on("rf_banks=1", &spread);
    let (_, four) = run_on("rf_banks=4", &spread);
    // Per warp: 4 movs, ITERS loop bodies of 7, exit.
    assert_eq!(four.warp_instructions, warps * (4 + 7 * ITERS + 1));
    assert_eq!(one.warp_instructions, four.warp_instructions);
    assert_eq!(four.opr_read_cycles, g * four.warp_instructions, "{four:?}");
    // One bank: mov imm 1 row; add, mul, xor 2; mad 3; add/setp with immediate 1; bra and
    // exit 2 (their unused B field); per warp 4 + 13 · ITERS + 2 rows per group.
    assert_eq!(
        one.opr_read_cycles,
        g * warps * (4 + 13 * ITERS + 2),
        "{one:?}"
    );
    assert!(
        four.cycles < one.cycles,
        "4 banks: {} cycles, 1 bank: {}",
        four.cycles,
        one.cycles
    );
    let (_, conflict) = run_on("rf_banks=4", &same_bank);
    // Per warp: 2 movs (1 phase), ITERS × (add 2, mad 3, add 1, setp 1, bra 1), exit 1.
    assert_eq!(conflict.warp_instructions, warps * (2 + 5 * ITERS + 1));
    assert_eq!(
        conflict.opr_read_cycles,
        g * warps * (2 + 8 * ITERS + 1),
        "{conflict:?}"
    );
}
