//! Suite kernels on the SM RTL through the harness (`sm_run`): every retirement record
//! checked against the interpreter, final memory against the interpreter and the host
//! reference. Each kernel at its small size or `size`, whichever is smaller.

use warpforge_contract::params::Params;
use warpforge_contract::units::sm::{SmConfig, NAME, PARAMS};
use warpforge_cosim::sm_run::{run, SmRunOptions};
use warpforge_testbench::isa::asm::{assemble, AsmOptions};
use warpforge_testbench::isa::kernels;

fn cfg(sets: &[&str]) -> (SmConfig, Params) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(NAME, PARAMS, None, &sets).unwrap();
    (SmConfig::from_params(&p).unwrap(), p)
}

fn run_kernels(sets: &[&str], names: &[&str], size: u32) -> Vec<(String, Result<String, String>)> {
    let (c, p) = cfg(sets);
    let design = warpforge_hdl::sm::generate(&c);
    let manifest = c.manifest(&p);
    let mut out = vec![];
    for name in names {
        let k = kernels::find(name).unwrap();
        let program = assemble(k.source, name, &AsmOptions::default()).unwrap();
        let launch = (k.make)(size.min(k.sizes[0]), 1).unwrap();
        let r = run(
            &c,
            &design,
            &manifest,
            &program,
            &launch,
            Some(k.check),
            &SmRunOptions::new(1),
        );
        let r = r
            .map(|s| {
                format!(
                    "{} cycles, {} warp-instructions",
                    s.cycles, s.warp_instructions
                )
            })
            .map_err(|e| e.to_string());
        eprintln!("{name}: {r:?}");
        out.push((name.to_string(), r));
    }
    out
}

const SUITE: &[&str] = &[
    "vecadd",
    "saxpy",
    "matmul",
    "stencil",
    "mandelbrot",
    "transpose",
    "reduce",
    "scan",
    "histogram",
    "bitonic",
    "pathfinder",
    "bfs",
    "nqueens",
    "strmatch",
];

#[test]
fn suite_kernels_on_a_16_warp_sm() {
    let res = run_kernels(
        &[
            "warps=16",
            "warp_size=32",
            "simd_width=8",
            "rf_kb=64",
            "shared_kb=16",
            "cta_slots=4",
            "pc_bits=10",
            "stack_depth=32",
            "mem_latency=20",
            "mem_stall_pct=10",
        ],
        SUITE,
        64,
    );
    let failed: Vec<_> = res.iter().filter(|(_, r)| r.is_err()).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}
