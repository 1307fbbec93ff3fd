//! The `crown` top model: the spec vectors (C1, C2, the one-sided branch, §2.7) through the
//! CROWN execution mode, planted bugs, and every suite kernel on the model with its output
//! checked against the host reference.

use warpforge_contract::params::Params;
use warpforge_contract::units::crown::{CrownConfig, NAME, PARAMS};
use warpforge_testbench::crown::ports::PortEngine;
use warpforge_testbench::crown::vectors::{default_config, run_vector, VECTORS};
use warpforge_testbench::crown::{
    CrownCounters, CrownFault, CrownIn, CrownOut, Engine, ModelEngine,
};
use warpforge_testbench::isa::asm::AsmOptions;
use warpforge_testbench::isa::crown::CrownOptions;
use warpforge_testbench::isa::kernels::SUITE;
use warpforge_testbench::isa::suite::run_crown_case;

fn cfg(sets: &[&str]) -> CrownConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    CrownConfig::from_params(&Params::resolve(NAME, PARAMS, None, &sets).unwrap()).unwrap()
}

#[test]
fn spec_vectors_on_the_model() {
    let c = default_config();
    for v in VECTORS {
        let mut e = ModelEngine::new(&c);
        let r = run_vector(v, &mut e, &c).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        (v.check)(&r).unwrap_or_else(|e| panic!("{}: {e}", v.name));
    }
}

#[test]
fn planted_bugs_fail_the_vectors() {
    let c = default_config();
    // Skipping the taken path's arrival check breaks the one-sided vector.
    let mut e = ModelEngine::new(&c);
    e.model.inject_fault(Some(CrownFault::NoTakenProbe));
    // (The model's own reconvergence-bypass check, §7.1 item 5, stops the run.)
    let err = run_vector(&VECTORS[2], &mut e, &c).err().unwrap();
    assert!(err.contains("while a barrier there awaits it"), "{err}");
    // A transfer in the second branch's cycle drains w0's then-path before w1's joins it:
    // C2's merge, and its 11 issues, are lost.
    let mut e = ModelEngine::new(&c);
    e.model.inject_fault(Some(CrownFault::BranchFreesPort));
    let r = run_vector(&VECTORS[1], &mut e, &c).unwrap();
    let err = (VECTORS[1].check)(&r).unwrap_err();
    assert!(err.starts_with("issues"), "{err}");
}

fn suite_on(c: &CrownConfig, size: usize) {
    for k in SUITE {
        let mut e = ModelEngine::new(c);
        let o = CrownOptions::new(c.clone());
        let r = run_crown_case(k, k.sizes[size], 1, &o, &AsmOptions::default(), &mut e);
        assert!(r.passed(), "{}: {:?} {:?}", k.name, r.skipped, r.error);
        let s = r.crown.unwrap();
        assert!(s.engine.issues > 0 && s.engine.retired > 0, "{}", k.name);
    }
}

#[test]
fn suite_on_the_thesis_configuration() {
    suite_on(&cfg(&[]), 0);
}

#[test]
fn suite_on_small_tables() {
    // Few barriers (allocation failures), 2-row lookups (bypasses), a pool of 2, n2 = 2N/w.
    suite_on(
        &cfg(&[
            "sets=4",
            "ways=2",
            "rl_rows=2",
            "wl_rows=2",
            "pool=2",
            "n2=256",
        ]),
        0,
    );
}

fn figures(k: &str, sets: &[&str]) -> warpforge_testbench::isa::crown::CrownStats {
    let c = cfg(sets);
    let k = SUITE.iter().find(|x| x.name == k).unwrap();
    let mut e = ModelEngine::new(&c);
    let o = CrownOptions::new(c.clone());
    let r = run_crown_case(k, k.sizes[0], 1, &o, &AsmOptions::default(), &mut e);
    assert!(r.passed(), "{}: {:?}", k.name, r.error);
    r.crown.unwrap()
}

/// §7.2.12 on the divergent kernels, as far as they hold here: a one-entry barrier table
/// fails allocations and raises the peak second-level occupancy (mandelbrot, nqueens; strmatch
/// reconverges only at the exit, so it reserves none) and lowers nqueens' lane activity — but
/// raises mandelbrot's (its barriers hold loop-exit groups, see docs/crown.md); a 4-row Ready
/// Lookup merges fewer lanes (strmatch 345 → 170, mandelbrot 52 → 14).
#[test]
fn design_space_trends() {
    let mut merges = vec![];
    for k in ["strmatch", "mandelbrot", "nqueens"] {
        let base = figures(k, &[]);
        let few = figures(k, &["sets=1", "ways=1"]);
        let rl4 = figures(k, &["rl_rows=4"]);
        assert!(few.engine.peak_l2 >= base.engine.peak_l2, "{k}");
        assert!(
            few.engine.bar_alloc_fail >= base.engine.bar_alloc_fail,
            "{k}"
        );
        assert!(
            rl4.engine.rl_merged_lanes <= base.engine.rl_merged_lanes,
            "{k}"
        );
        merges.push((k, base, few, rl4));
    }
    let (_, s, _, s4) = &merges[0];
    assert!(s4.engine.rl_merged_lanes < s.engine.rl_merged_lanes);
    assert!(s4.lane_activity() < s.lane_activity());
    for (k, base, few, _) in &merges[1..] {
        assert!(few.engine.peak_l2 > base.engine.peak_l2, "{k}");
        assert!(few.engine.bar_alloc_fail > 0, "{k}");
    }
    let (_, nq, nq1, _) = &merges[2];
    assert!(nq1.lane_activity() < nq.lane_activity());
    let (_, md, md1, _) = &merges[1];
    assert!(
        md1.lane_activity() > md.lane_activity(),
        "the mandelbrot exception"
    );
}

/// Seeded random programs (divergent branches, loops with per-thread trip counts, guarded
/// instructions, block barriers, loads, atomics) in CROWN mode on three configurations: every
/// invariant holds every cycle, every thread retires, every issued thread is at its warp's PC.
#[test]
fn random_programs_on_three_configurations() {
    use warpforge_testbench::isa::crown::run_crown;
    use warpforge_testbench::isa::Machine;
    use warpforge_testbench::sm::{random_program, RandomOptions};
    let configs = [
        cfg(&[]),
        // n2 = N (A5): with fewer rows, fragments waiting at bar.sync can fill the second level
        // while a complete barrier holds their CTA's last threads (seen at n2 = 2N/w).
        cfg(&[
            "w=4",
            "threads=256",
            "n2=256",
            "sets=8",
            "ways=2",
            "rl_rows=3",
            "wl_rows=2",
            "pool=4",
        ]),
        cfg(&[
            "w=16",
            "threads=512",
            "n2=512",
            "sets=2",
            "ways=4",
            "rl_rows=16",
            "wl_rows=4",
            "pool=16",
        ]),
    ];
    let mut cycles = 0;
    let mut merges = 0;
    let mut arrivals = 0;
    for (i, c) in configs.iter().enumerate() {
        for seed in 0..12u64 {
            let (p, launch) = random_program(100 * i as u64 + seed, RandomOptions::default());
            let mut m = Machine::new(&p, &launch).unwrap();
            let mut e = ModelEngine::new(c);
            let o = CrownOptions::new(c.clone());
            let s = run_crown(&mut m, &o, &mut e)
                .unwrap_or_else(|e| panic!("config {i} seed {seed}: {e}"));
            assert_eq!(
                s.engine.retired,
                launch.grid.iter().product::<u32>() as u64 * 64
            );
            cycles += s.cycles;
            merges += s.engine.rl_merged_lanes + s.engine.wl_merged_lanes;
            arrivals += s.engine.arrivals;
        }
    }
    // The programs exercise regrouping and reconvergence, not just uniform code.
    assert!(
        merges > 0 && arrivals > 0,
        "merges {merges} arrivals {arrivals}"
    );
    eprintln!("{cycles} cycles, {merges} lanes merged, {arrivals} arrivals");
}

/// Two engines side by side: their decisions must agree every cycle.
struct Pair<A: Engine, B: Engine>(A, B);

impl<A: Engine, B: Engine> Engine for Pair<A, B> {
    fn cycle(&mut self, inp: &CrownIn) -> Result<CrownOut, String> {
        let a = self.0.cycle(inp)?;
        let b = self.1.cycle(inp)?;
        if a != b {
            return Err(format!("engines differ: {a:?} vs {b:?}"));
        }
        Ok(a)
    }
    fn counters(&self) -> CrownCounters {
        self.0.counters()
    }
    fn state_line(&self) -> String {
        self.0.state_line()
    }
    fn idle(&self) -> bool {
        self.0.idle() && self.1.idle()
    }
}

/// The port-level model (packed vectors, every sub-unit's digest: what the RTL is compared
/// on) decides exactly as the struct model on the spec vectors and on suite kernels.
#[test]
fn port_level_model_agrees_with_the_struct_model() {
    let c = default_config();
    for v in VECTORS {
        let mut e = PortEngine::new(&c);
        let r = run_vector(v, &mut e, &c).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        (v.check)(&r).unwrap_or_else(|e| panic!("{} (port level): {e}", v.name));
    }
    for name in ["strmatch", "bfs", "reduce", "nqueens"] {
        let k = SUITE.iter().find(|k| k.name == name).unwrap();
        let mut e = Pair(ModelEngine::new(&c), PortEngine::new(&c));
        let o = CrownOptions::new(c.clone());
        let r = run_crown_case(k, k.sizes[0], 1, &o, &AsmOptions::default(), &mut e);
        assert!(r.passed(), "{name}: {:?}", r.error);
    }
}

/// A14: with a 4 × 2 barrier table, cross-CTA merging (the thesis's rule) deadlocks bitonic
/// (docs/crown.md: a warp of two CTAs reserves a barrier one CTA's threads never reach, the
/// other CTA waits at `bar.sync` for them); `merge_scope = cta` runs it to the right output,
/// and on the thesis's tables it gives the suite the right outputs too.
#[test]
fn merge_scope_cta_removes_the_small_barrier_table_deadlock() {
    let c = cfg(&["sets=4", "ways=2"]);
    let k = SUITE.iter().find(|x| x.name == "bitonic").unwrap();
    let mut o = CrownOptions::new(c.clone());
    o.stall_limit = 20_000;
    let mut e = ModelEngine::new(&c);
    let any = run_crown_case(k, k.sizes[0], 1, &o, &AsmOptions::default(), &mut e);
    let err = any.error.expect("cross-CTA merging should deadlock here");
    assert!(err.contains("no issue and no commit"), "{err}");
    o.cta_scope = true;
    let mut e = ModelEngine::new(&c);
    let cta = run_crown_case(k, k.sizes[0], 1, &o, &AsmOptions::default(), &mut e);
    assert!(cta.passed(), "{:?}", cta.error);
    let s = cta.crown.unwrap();
    assert!(
        s.engine.bar_alloc_fail > 0,
        "the small table should still fail allocations"
    );

    let c = cfg(&[]);
    for k in SUITE {
        let mut o = CrownOptions::new(c.clone());
        o.cta_scope = true;
        let mut e = ModelEngine::new(&c);
        let r = run_crown_case(k, k.sizes[0], 1, &o, &AsmOptions::default(), &mut e);
        assert!(r.passed(), "{}: {:?} {:?}", k.name, r.skipped, r.error);
    }
}
