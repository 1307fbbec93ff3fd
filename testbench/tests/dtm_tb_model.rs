//! The `dtm-tb` model: its spec vectors, its invariants (I2-style context re-derivation, I4,
//! pool bookkeeping) under constrained-random stimulus on several configurations with the
//! coverage the stimulus reaches, the planted fault caught by a spec vector and by the
//! invariants, the contexts' definition on §4.3, and reproducibility.

use warpforge_contract::units::dtm_tb::{self, TbConfig};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::dtm_tb::{
    derive, spec_vectors, DtmTbModel, DtmTbStimulus, Instr, TbFault,
};
use warpforge_testbench::harness::{self, first_failure, io_trace, run_vector};
use warpforge_testbench::Model;

fn cfg(sets: &[&str]) -> TbConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(dtm_tb::NAME, dtm_tb::PARAMS, None, &sets).unwrap();
    TbConfig::from_params(&p).unwrap()
}

fn vcfg(v: &warpforge_testbench::SpecVector) -> TbConfig {
    let s: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    cfg(&s)
}

#[test]
fn spec_vectors_pass_on_the_model() {
    let vectors = spec_vectors();
    assert!(vectors.len() >= 5);
    for v in &vectors {
        let c = vcfg(v);
        run_vector(&mut DtmTbModel::new(&c), &Layout::new(&c.ports()), v)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn the_planted_fault_fails_a_spec_vector() {
    let caught = spec_vectors().iter().any(|v| {
        let c = vcfg(v);
        let mut m = DtmTbModel::new(&c);
        m.inject_fault(Some(TbFault::OutputsAreInputs));
        harness::misses_an_expectation(&mut m, &Layout::new(&c.ports()), v)
    });
    assert!(caught);
}

#[test]
fn the_invariants_catch_the_fault() {
    let c = cfg(&["threads=16", "tb_pool=4"]);
    let layout = Layout::new(&c.ports());
    let mut m = DtmTbModel::new(&c);
    m.inject_fault(Some(TbFault::OutputsAreInputs));
    let e = first_failure(&mut m, &mut DtmTbStimulus::new(&c, 1), &layout, 100_000)
        .expect("the fault breaks I2");
    assert!(e.starts_with("I2"), "{e}");
}

#[test]
fn contexts_of_x1() {
    let i = |pc, srcs: &[(u64, u64)], dst, res| Instr {
        pc,
        srcs: srcs.to_vec(),
        dst,
        res,
    };
    let (ic, oc) = derive(&[
        i(0x100, &[(1, 5), (2, 7)], 3, 12),
        i(0x108, &[(3, 12)], 4, 48),
        i(0x110, &[(4, 48), (6, 255)], 5, 48),
        i(0x118, &[(5, 48), (1, 5)], 7, 53),
    ]);
    assert_eq!(ic, vec![(1, 5), (2, 7), (6, 255)]);
    assert_eq!(oc, vec![(3, 12), (4, 48), (5, 48), (7, 53)]);
}

#[test]
fn invariants_hold_and_coverage_is_reached() {
    for (sets, seed) in [
        (
            vec![
                "threads=16",
                "tb_pool=4",
                "k_in=2",
                "k_out=1",
                "l_max=4",
                "val_bits=8",
            ],
            1,
        ),
        (
            vec![
                "threads=64",
                "k_in=3",
                "k_out=2",
                "l_max=6",
                "isz=1",
                "pc_bits=12",
            ],
            2,
        ),
        (
            vec!["threads=8", "tb_pool=3", "k_in=8", "k_out=8", "val_bits=64"],
            3,
        ),
        (vec![], 4),
    ] {
        let c = cfg(&sets);
        let layout = Layout::new(&c.ports());
        let mut m = DtmTbModel::new(&c);
        let mut s = DtmTbStimulus::new(&c, seed);
        assert_eq!(
            first_failure(&mut m, &mut s, &layout, 80_000),
            None,
            "{sets:?}"
        );
        for (name, n) in m.events() {
            let pooled = c.pool < c.threads;
            let reachable = match name {
                "no_buffer" => pooled,
                "too_many_inputs" => c.k_in < 3,
                "l_max_commits" => c.l_max <= 8,
                _ => true,
            };
            assert!(!reachable || n > 0, "{sets:?}: event {name} never happened");
        }
    }
}

#[test]
fn stimulus_is_reproducible() {
    let c = cfg(&["threads=32", "tb_pool=5"]);
    let l = Layout::new(&c.ports());
    let run = |seed| {
        io_trace(
            &mut DtmTbModel::new(&c),
            &mut DtmTbStimulus::new(&c, seed),
            &l,
            3000,
        )
    };
    assert_eq!(run(9), run(9));
    assert_ne!(run(9), run(10));
}
