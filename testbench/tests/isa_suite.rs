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
