//! The kernel suite: every kernel passes its host-side check at two sizes, in thread mode
//! and in warp-level mode with warps of 8 and 32.

use warpforge_testbench::isa::asm::AsmOptions;
use warpforge_testbench::isa::kernels::SUITE;
use warpforge_testbench::isa::suite::{run_case, Mode};

#[test]
fn every_kernel_passes_at_two_sizes_in_thread_and_warp_modes() {
    let mut failures = Vec::new();
    let mut cases = 0;
    for k in SUITE {
        for size in [k.sizes[0], k.sizes[1]] {
            for mode in [Mode::Thread, Mode::Warp(8), Mode::Warp(32)] {
                let r = run_case(k, size, 1, mode, &AsmOptions::default());
                cases += 1;
                eprintln!(
                    "{:<11} size {:>6} {:<7} {:>10} thread-instr {:.3}s {}",
                    k.name,
                    size,
                    mode.label(),
                    r.thread_instructions,
                    r.seconds,
                    r.error.as_deref().unwrap_or("ok")
                );
                if let Some(e) = r.error {
                    failures.push(format!("{} size {size} {}: {e}", k.name, mode.label()));
                }
                assert!(r.thread_instructions > 0);
            }
        }
    }
    assert!(SUITE.len() >= 14);
    assert_eq!(cases, SUITE.len() * 6);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn host_checks_catch_a_wrong_word_in_the_output() {
    use warpforge_testbench::isa::launch::GLOBAL_BASE;
    use warpforge_testbench::isa::suite::program;
    use warpforge_testbench::isa::Machine;
    for k in SUITE {
        let p = program(k, &AsmOptions::default()).unwrap();
        let launch = (k.make)(k.sizes[0], 2).unwrap();
        let mut m = Machine::new(&p, &launch).unwrap();
        m.run().unwrap();
        (k.check)(&launch, &m).unwrap();
        // Corrupting the last word of some buffer must make the check fail.
        let mut caught = false;
        for (_, base, len) in m.memory.layout.clone() {
            if len == 0 {
                continue;
            }
            let i = ((base - GLOBAL_BASE) / 4) as usize + len - 1;
            let mut bad = m.clone();
            bad.memory.words[i] ^= 0x8000_0001;
            if let Err(e) = (k.check)(&launch, &bad) {
                assert!(e.contains("word"), "{}: {e}", k.name);
                caught = true;
            }
        }
        assert!(caught, "{}: no corrupted buffer was noticed", k.name);
    }
}

#[test]
fn nqueens_reference_matches_the_known_totals() {
    use warpforge_testbench::isa::kernels::nqueens_counts;
    let totals: Vec<u32> = (4..=9).map(|n| nqueens_counts(n).iter().sum()).collect();
    assert_eq!(totals, vec![2, 10, 4, 40, 92, 352]);
}

/// Interpreter throughput over the whole suite at the large size; run with
/// `cargo test --release -p warpforge-testbench --test isa_suite -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput_of_thread_and_warp_modes() {
    use warpforge_testbench::isa::suite::bench;
    let t = bench(1, Mode::Thread, 1).unwrap();
    let w = bench(1, Mode::Warp(32), 1).unwrap();
    eprintln!(
        "thread mode: {:.1} M thread-instructions/s; warp mode (32): {:.1} M thread-instructions/s, {:.2} M warp-instructions/s",
        t.thread_instructions_per_sec() / 1e6,
        w.thread_instructions_per_sec() / 1e6,
        w.warp_instructions_per_sec() / 1e6
    );
    assert!(t.thread_instructions > 100_000_000);
    if !cfg!(debug_assertions) {
        assert!(
            t.thread_instructions_per_sec() > 20e6,
            "target: 20 M thread-instructions/s"
        );
    }
}
