//! The sm-alu model on its own: spec vectors, a constrained-random run with invariants and
//! coverage of every lane opcode and the hard FP cases, and stimulus reproducibility.

use warpforge_contract::isa::Op;
use warpforge_contract::params::Params;
use warpforge_contract::units::sm_alu::{self, SmAluConfig};
use warpforge_contract::Layout;
use warpforge_testbench::sm_alu::{lane_ops, spec_vectors, SmAluModel, SmAluStimulus};
use warpforge_testbench::{harness, words, Model, Stimulus};

fn config(sets: &[&str]) -> SmAluConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(sm_alu::NAME, sm_alu::PARAMS, None, &sets).unwrap();
    SmAluConfig::from_params(&p).unwrap()
}

#[test]
fn every_spec_vector_passes_on_the_model() {
    let vectors = spec_vectors();
    assert!(vectors.len() >= 30);
    for v in &vectors {
        let sets: Vec<&str> = v.sets.iter().map(String::as_str).collect();
        let cfg = config(&sets);
        let layout = Layout::new(&cfg.ports());
        harness::run_vector(&mut SmAluModel::new(&cfg), &layout, v).unwrap();
    }
    let mut names: Vec<&str> = vectors.iter().map(|v| v.name.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), vectors.len(), "vector names are unique");
}

#[test]
fn a_wrong_expectation_is_reported() {
    let mut v = spec_vectors()
        .into_iter()
        .find(|v| v.name.contains("fma.rn.f32 rounds once"))
        .unwrap();
    v.cycles[2].expect[1].1[0] ^= 1;
    let cfg = config(&["lanes=4"]);
    let e = harness::run_vector(&mut SmAluModel::new(&cfg), &Layout::new(&cfg.ports()), &v)
        .unwrap_err();
    assert!(e.contains("result"), "{e}");
}

#[test]
fn random_run_keeps_invariants_and_covers_every_op_and_the_hard_cases() {
    for (lanes, stages) in [(1usize, 1usize), (3, 4), (8, 2), (64, 3)] {
        let cfg = config(&[&format!("lanes={lanes}"), &format!("stages={stages}")]);
        let layout = Layout::new(&cfg.ports());
        let (iv, iop, ia, ib, ireset) = (
            64 * layout.input("valid").unwrap().offset,
            64 * layout.input("op").unwrap().offset,
            64 * layout.input("a").unwrap().offset,
            64 * layout.input("b").unwrap().offset,
            64 * layout.input("reset").unwrap().offset,
        );
        let mut model = SmAluModel::new(&cfg);
        let mut stim = SmAluStimulus::new(&cfg, 5 + lanes as u64);
        let mut inputs = vec![0u64; layout.in_words];
        let mut outputs = vec![0u64; layout.out_words];
        let mut seen_ops = std::collections::BTreeSet::new();
        let (mut idle, mut resets, mut other_ops) = (0u64, 0u64, 0u64);
        let (mut nan_in, mut sub_in, mut inf_in, mut cancel) = (0u64, 0u64, 0u64, 0u64);
        let mut fp_arith = 0u64;
        for cycle in 0..200_000u64 {
            stim.next(cycle, &outputs, &mut inputs);
            model.step(&inputs, &mut outputs);
            model
                .check_invariants()
                .unwrap_or_else(|e| panic!("lanes {lanes} cycle {cycle}: {e}"));
            if words::get(&inputs, ireset, 1) == 1 {
                resets += 1;
                continue;
            }
            if words::get(&inputs, iv, 1) == 0 {
                idle += 1;
                continue;
            }
            let op = words::get(&inputs, iop, 7) as u8;
            match Op::from_code(op) {
                Some(o) if lane_ops().contains(&o) => {
                    seen_ops.insert(o);
                }
                _ => other_ops += 1,
            }
            if (Op::FAdd as u8..=Op::FFma as u8).contains(&op) {
                fp_arith += 1;
                for l in 0..lanes {
                    let a = words::get(&inputs, ia + 32 * l, 32) as u32;
                    let b = words::get(&inputs, ib + 32 * l, 32) as u32;
                    let e = (a >> 23) & 0xFF;
                    nan_in += (e == 0xFF && a & 0x7F_FFFF != 0) as u64;
                    inf_in += (a & 0x7FFF_FFFF == 0x7F80_0000) as u64;
                    sub_in += (e == 0 && a & 0x7F_FFFF != 0) as u64;
                    cancel += (a ^ b == 0x8000_0000) as u64;
                }
            }
        }
        assert_eq!(
            seen_ops.len(),
            lane_ops().len(),
            "lanes {lanes}: {seen_ops:?}"
        );
        // docs/sm-alu.md counts the FP add/sub/mul/fma operand pairs of the full suite from
        // this share of cycles (at least a fifth).
        eprintln!("lanes {lanes}: FP add/sub/mul/fma in {fp_arith} of 200000 cycles");
        assert!(
            fp_arith * 5 >= 200_000,
            "lanes {lanes}: {fp_arith} FP arith cycles"
        );
        assert!(
            idle > 1000 && resets > 2 && other_ops > 100,
            "lanes {lanes}"
        );
        assert!(
            nan_in > 100 && sub_in > 100 && inf_in > 100 && cancel > 100,
            "lanes {lanes}: nan {nan_in} sub {sub_in} inf {inf_in} cancel {cancel}"
        );
        let e: std::collections::BTreeMap<_, _> = model.events().into_iter().collect();
        if stages > 1 {
            assert!(
                e["dropped_by_reset"] > 0 && e["pipeline_full"] > 1000,
                "lanes {lanes} stages {stages}: {e:?}"
            );
        }
    }
}

/// A deep unit's outputs are the one-stage unit's, `stages` − 1 cycles later, on the same
/// inputs — except that a reset in between leaves nothing (all outputs 0).
#[test]
fn a_deep_unit_is_the_one_stage_unit_delayed() {
    for stages in 2..=4usize {
        let one = config(&["lanes=3"]);
        let deep = config(&["lanes=3", &format!("stages={stages}")]);
        let layout = Layout::new(&one.ports());
        let ireset = 64 * layout.input("reset").unwrap().offset;
        let mut stim = SmAluStimulus::new(&one, 21);
        let (mut m1, mut ms) = (SmAluModel::new(&one), SmAluModel::new(&deep));
        let mut inputs = vec![0u64; layout.in_words];
        let (mut o1, mut os) = (vec![0u64; layout.out_words], vec![0u64; layout.out_words]);
        let (mut hist1, mut resets) = (vec![], vec![]);
        let (mut compared, mut blanked) = (0u64, 0u64);
        for t in 0..100_000usize {
            stim.next(t as u64, &o1, &mut inputs);
            m1.step(&inputs, &mut o1);
            ms.step(&inputs, &mut os);
            ms.check_invariants().unwrap();
            // o1 / os are the outputs of cycle t (shown before its edge).
            hist1.push(o1.clone());
            resets.push(words::get(&inputs, ireset, 1) == 1);
            if t < stages || resets[t] {
                continue;
            }
            if resets[t + 1 - stages..t].iter().any(|&r| r) {
                assert!(os.iter().all(|&w| w == 0), "stages {stages} cycle {t}");
                blanked += 1;
            } else {
                assert_eq!(os, hist1[t + 1 - stages], "stages {stages} cycle {t}");
                compared += 1;
            }
        }
        assert!(compared > 90_000 && blanked > 0, "{compared} {blanked}");
    }
}

#[test]
fn stimulus_is_reproducible() {
    let cfg = config(&["lanes=5"]);
    let layout = Layout::new(&cfg.ports());
    let run = |seed| {
        harness::io_trace(
            &mut SmAluModel::new(&cfg),
            &mut SmAluStimulus::new(&cfg, seed),
            &layout,
            3000,
        )
    };
    assert_eq!(run(9), run(9));
    assert_ne!(run(9), run(10));
}

/// The coverage counters over a few hand-driven cycles: a valid op during reset and an idle
/// cycle count nothing; `setp.lt.f32` is a predicate op (the classes partition the ops).
#[test]
fn events_count_valid_ops_by_class() {
    let cfg = config(&["lanes=2"]);
    let layout = Layout::new(&cfg.ports());
    let at = |n: &str| 64 * layout.input(n).unwrap().offset;
    let mut model = SmAluModel::new(&cfg);
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    // (reset, valid, op code)
    let cycles: [(u64, u64, u8); 10] = [
        (1, 1, Op::Add as u8),
        (0, 1, Op::Add as u8),
        (0, 1, Op::FFma as u8),
        (0, 1, Op::CvtS32F32Rn as u8),
        (0, 0, Op::FAdd as u8),
        (0, 1, Op::FSetLt as u8),
        (0, 1, Op::PXor as u8),
        (0, 1, Op::Selp as u8),
        (0, 1, Op::LdGlobal as u8),
        (0, 1, 39),
    ];
    for (reset, valid, op) in cycles {
        words::set(&mut inputs, at("reset"), 1, reset);
        words::set(&mut inputs, at("valid"), 1, valid);
        words::set(&mut inputs, at("op"), 7, op as u64);
        model.step(&inputs, &mut outputs);
    }
    assert_eq!(
        model.events(),
        [
            ("ops", 8),
            ("fp_ops", 2),
            ("int_ops", 2),
            ("pred_ops", 2),
            ("other_ops", 2),
            ("dropped_by_reset", 0),
            ("pipeline_full", 0)
        ]
    );
}

/// At three stages: a reset drops the two ops in flight (not the reset cycle's own), and
/// the pipeline is full in cycles where both slots hold an op.
#[test]
fn events_count_ops_dropped_by_reset() {
    let cfg = config(&["lanes=2", "stages=3"]);
    let layout = Layout::new(&cfg.ports());
    let at = |n: &str| 64 * layout.input(n).unwrap().offset;
    let mut model = SmAluModel::new(&cfg);
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    // (reset, valid): full before the 4th and 5th cycle's edges, two dropped at the 5th.
    let cycles: [(u64, u64); 7] = [(1, 1), (0, 1), (0, 1), (0, 1), (1, 1), (0, 1), (0, 0)];
    for (reset, valid) in cycles {
        words::set(&mut inputs, at("reset"), 1, reset);
        words::set(&mut inputs, at("valid"), 1, valid);
        words::set(&mut inputs, at("op"), 7, Op::Add as u64);
        model.step(&inputs, &mut outputs);
        model.check_invariants().unwrap();
    }
    let e: std::collections::BTreeMap<_, _> = model.events().into_iter().collect();
    assert_eq!(
        (e["ops"], e["dropped_by_reset"], e["pipeline_full"]),
        (4, 2, 1)
    );
}

#[test]
fn events_of_a_random_run() {
    let cfg = config(&["lanes=4"]);
    let layout = Layout::new(&cfg.ports());
    let mut model = SmAluModel::new(&cfg);
    let mut stim = SmAluStimulus::new(&cfg, 3);
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    for cycle in 0..5_000u64 {
        stim.next(cycle, &outputs, &mut inputs);
        model.step(&inputs, &mut outputs);
    }
    let e = model.events();
    assert_eq!(e[0].0, "ops");
    assert!(e[0].1 > 0, "{e:?}");
    // The classes partition the ops; at one stage nothing is in flight to drop.
    assert_eq!(e[0].1, e[1..5].iter().map(|x| x.1).sum::<u64>(), "{e:?}");
    assert!(e[..5].iter().all(|x| x.1 > 0), "{e:?}");
    assert_eq!((e[5].1, e[6].1), (0, 0), "{e:?}");
}
