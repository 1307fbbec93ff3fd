//! Stepping named threads one instruction at a time (what SM-level lockstep calls): any
//! interleaving the hardware might choose gives the same results as thread mode, barriers
//! hold threads until the whole block arrives, and each retired record says what changed.

use warpforge_contract::isa::Op;
use warpforge_testbench::isa::interp::{Event, MemWrite, Space};
use warpforge_testbench::isa::kernels;
use warpforge_testbench::isa::suite::program;
use warpforge_testbench::isa::{assemble, AsmOptions, Launch, Machine, StepOutcome};
use warpforge_testbench::rng::Rng;

/// Steps every thread of the launch in a random order until all have exited.
fn run_interleaved(m: &mut Machine, seed: u64) -> u64 {
    let mut rng = Rng::new(seed);
    let (nb, nt) = (m.num_blocks(), m.threads_per_block() as u32);
    let mut done = vec![vec![false; nt as usize]; nb as usize];
    let mut left = nb * nt as u64;
    let mut steps = 0;
    // Keep a few blocks resident at a time, as an SM would.
    let mut resident: Vec<u64> = Vec::new();
    let mut next_block = 0;
    while left > 0 {
        while resident.len() < 3 && next_block < nb {
            resident.push(next_block);
            next_block += 1;
        }
        let b = resident[rng.below(resident.len() as u64) as usize];
        let t = rng.below(nt as u64) as u32;
        if done[b as usize][t as usize] {
            continue;
        }
        // A burst of steps for this thread.
        for _ in 0..1 + rng.below(8) {
            match m.step(b, t).unwrap_or_else(|f| panic!("{f}")) {
                StepOutcome::Retired(r) => {
                    steps += 1;
                    if r.event == Event::Exit {
                        done[b as usize][t as usize] = true;
                        left -= 1;
                        break;
                    }
                }
                StepOutcome::WaitingAtBarrier => break,
                StepOutcome::Exited => unreachable!("stepped an exited thread"),
            }
        }
        if done[b as usize].iter().all(|&d| d) {
            resident.retain(|&x| x != b);
        }
    }
    steps
}

#[test]
fn random_interleavings_match_thread_mode_and_the_host_reference() {
    for name in [
        "vecadd",
        "reduce",
        "scan",
        "bitonic",
        "histogram",
        "bfs",
        "matmul",
        "strmatch",
    ] {
        let k = kernels::find(name).unwrap();
        let p = program(k, &AsmOptions::default()).unwrap();
        let launch = (k.make)(k.sizes[0], 3).unwrap();
        let mut whole = Machine::new(&p, &launch).unwrap();
        let stats = whole.run().unwrap();
        for seed in 0..2 {
            let mut m = Machine::new(&p, &launch).unwrap();
            let steps = run_interleaved(&mut m, seed);
            // bfs has a benign race (a vertex found by two threads in one level): the
            // count may differ, the result may not.
            if name != "bfs" {
                assert_eq!(
                    steps, stats.thread_instructions,
                    "{name}: same instruction count"
                );
            }
            (k.check)(&launch, &m).unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            for b in &launch.buffers {
                assert_eq!(
                    m.buffer(&b.name),
                    whole.buffer(&b.name),
                    "{name} buffer {}",
                    b.name
                );
            }
        }
    }
}

#[test]
fn retired_records_report_register_predicate_and_memory_writes() {
    let p = assemble(
        ".kernel rec\n.regs 4\n.shared 64\n.param a\n\
         mov.u32 %r0, %ntid.x\n\
         setp.lt.u32 %p3, %tid.x, 1\n\
         ld.param.u32 %r1, [a]\n\
         shl.b32 %r2, %tid.x, 2\n\
         add.s32 %r1, %r1, %r2\n\
         @%p3 st.global.u32 [%r1+4], %r0\n\
         atom.shared.add.u32 %r3, [%r2], %r0\n\
         bar.sync 0\n\
         exit\n",
        "rec.s",
        &AsmOptions::default(),
    )
    .unwrap();
    let l = Launch::new([1, 1, 1], [2, 1, 1]).buffer("a", vec![0; 4]);
    let mut m = Machine::new(&p, &l).unwrap();
    let base = m.memory.base_of("a").unwrap();
    let retire = |m: &mut Machine, t: u32| match m.step(0, t).unwrap() {
        StepOutcome::Retired(r) => r,
        other => panic!("{other:?}"),
    };
    let r = retire(&mut m, 0);
    assert_eq!((r.pc, r.reg_write, r.next_pc), (0, Some((0, 2)), 1));
    let r = retire(&mut m, 0);
    assert_eq!(r.pred_write, Some((3, true)));
    for _ in 0..3 {
        retire(&mut m, 0);
    }
    let r = retire(&mut m, 0);
    assert_eq!(r.instr.op, Op::StGlobal);
    assert!(r.executed);
    assert_eq!(
        r.mem_write,
        Some(MemWrite {
            space: Space::Global,
            addr: base + 4,
            value: 2
        })
    );
    let r = retire(&mut m, 0);
    assert_eq!(r.reg_write, Some((3, 0)), "atomics return the old value");
    assert_eq!(
        r.mem_write,
        Some(MemWrite {
            space: Space::Shared,
            addr: 0,
            value: 2
        })
    );
    let r = retire(&mut m, 0);
    assert_eq!(r.event, Event::Barrier);
    // Thread 0 waits until thread 1 arrives.
    assert_eq!(m.step(0, 0).unwrap(), StepOutcome::WaitingAtBarrier);
    for _ in 0..5 {
        retire(&mut m, 1);
    }
    let r = retire(&mut m, 1);
    assert!(!r.executed, "thread 1's guard is false");
    assert_eq!(r.mem_write, None);
    retire(&mut m, 1);
    assert_eq!(retire(&mut m, 1).event, Event::Barrier);
    // The barrier completed on thread 1's arrival: both go on.
    assert_eq!(m.pc(0, 0), Some(8));
    // Lockstep can override a value the hardware decides (e.g. %clock).
    assert!(m.set_reg(0, 1, 3, 77));
    assert_eq!(m.reg(0, 1, 3), Some(77));
    assert_eq!(retire(&mut m, 0).event, Event::Exit);
    assert_eq!(retire(&mut m, 1).event, Event::Exit);
    assert_eq!(m.step(0, 1).unwrap(), StepOutcome::Exited);
    assert_eq!(m.buffer("a").unwrap(), &[0, 2, 0, 0]);
}
