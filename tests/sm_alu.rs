//! sm-alu in lockstep against deliberately wrong RTL: variants of the generated Verilog, built
//! only here, with one planted bug each. Lockstep must stop at the first cycle the bug shows,
//! on port `result`.

use warpforge_cosim::lockstep::{self, Options, Source};
use warpforge_cosim::registry::Unit;
use warpforge_hdl::primitives::separate_instance;
use warpforge_testbench::words;

/// `design` with `from` replaced by `to` (exactly once) in the module of the instance at
/// `path` from the top (the top itself when empty), given a module of its own first: identical
/// lanes share one module in the emitted Verilog.
fn plant(unit: &Unit, path: &[&str], from: &str, to: &str) -> warpforge_hdl::Design {
    let mut d = unit.design();
    let module = if path.is_empty() {
        d.module.clone()
    } else {
        let (v, m) = separate_instance(&d.verilog, &d.module, path)
            .unwrap_or_else(|| panic!("no instance {}", path.join(".")));
        d.verilog = v;
        m
    };
    let start = d
        .verilog
        .find(&format!("\nmodule {module}("))
        .unwrap_or_else(|| panic!("no module {module}"));
    let end = start + d.verilog[start..].find("endmodule").unwrap();
    let body = &d.verilog[start..end];
    assert_eq!(body.matches(from).count(), 1, "{from} in {module}");
    let planted = body.replace(from, to);
    d.verilog = format!("{}{}{}", &d.verilog[..start], planted, &d.verilog[end..]);
    d
}

/// The inputs of the first `cycles` cycles of `unit`'s stimulus with `seed`, and the model's
/// outputs.
fn trace(unit: &Unit, seed: u64, cycles: u64) -> (Vec<Vec<u64>>, Vec<Vec<u64>>) {
    let layout = unit.manifest().layout();
    let mut stim = unit.stimulus(seed);
    let mut model = unit.model();
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    let (mut ins, mut outs) = (vec![], vec![]);
    for c in 0..cycles {
        stim.next(c, &outputs, &mut inputs);
        model.step(&inputs, &mut outputs);
        ins.push(inputs.clone());
        outs.push(outputs.clone());
    }
    (ins, outs)
}

/// The first cycle, out of reset, that issues `op` and is not followed by a reset within
/// `stages` cycles (so its result must show `stages` cycles later).
fn first_issue(unit: &Unit, ins: &[Vec<u64>], op: Option<u64>, stages: usize) -> u64 {
    let layout = unit.manifest().layout();
    let bit = |c: usize, port: &str, width: usize| {
        words::get(&ins[c], 64 * layout.input(port).unwrap().offset, width)
    };
    (0..ins.len() - stages)
        .find(|&c| {
            (c..=c + stages).all(|k| bit(k, "reset", 1) == 0)
                && bit(c, "valid", 1) == 1
                && op.is_none_or(|o| bit(c, "op", 7) == o)
        })
        .expect("the stimulus issues the op") as u64
}

#[test]
fn planted_off_by_one_in_one_lane_is_caught_at_its_cycle() {
    // One stage at 8 lanes; three stages at 2 lanes (the result shows 3 cycles after issue).
    for (lanes, stages) in [(8usize, 1usize), (2, 3)] {
        let unit = Unit::resolve(
            "sm-alu",
            &[format!("lanes={lanes}"), format!("stages={stages}")],
        )
        .unwrap();
        let lane = (lanes - 1).min(3);
        let lane_inst = format!("lane__{lane}");
        let design = plant(
            &unit,
            &[lane_inst.as_str(), "ints"],
            "result = a + b;",
            "result = a + b + 32'h1;",
        );
        // Where it must show: `stages` cycles after the first issued add.s32.
        let (ins, _) = trace(&unit, 11, 200_000);
        let first = first_issue(&unit, &ins, Some(2), stages) + stages as u64;
        let r = lockstep::run_design(
            &unit,
            &design,
            unit.model(),
            Source::Random(unit.stimulus(11)),
            Options::new(first + 1000, 11),
        )
        .unwrap();
        let m = r.mismatch.expect("the planted bug is caught");
        assert_eq!((m.cycle, m.port.as_str()), (first, "result"), "{lane_inst}");
        assert_eq!(r.cycles, first + 1);
    }
}

#[test]
fn planted_short_pipeline_is_caught_on_out_valid() {
    // At three stages, `valid` taken from the first instead of the second pipeline register:
    // results come a cycle early, and lockstep stops at the first one.
    let unit = Unit::resolve("sm-alu", &["lanes=2".into(), "stages=3".into()]).unwrap();
    let design = plant(
        &unit,
        &[],
        "late_valid = |(valid_pipe__q & k_last);",
        "late_valid = |(valid_pipe__q & 64'h1);",
    );
    let (ins, _) = trace(&unit, 4, 10_000);
    let early = first_issue(&unit, &ins, None, 3) + 2;
    let r = lockstep::run_design(
        &unit,
        &design,
        unit.model(),
        Source::Random(unit.stimulus(4)),
        Options::new(10_000, 4),
    )
    .unwrap();
    let m = r.mismatch.expect("the planted latency bug is caught");
    assert_eq!((m.cycle, m.port.as_str()), (early, "out_valid"));
}

#[test]
fn planted_round_half_up_is_caught_on_a_tie() {
    // Lane 0 rounds ties away from zero instead of to even.
    let unit = Unit::resolve("sm-alu", &["lanes=4".into()]).unwrap();
    let layout = unit.manifest().layout();
    let design = plant(
        &unit,
        &["lane__0", "round"],
        "inc = round_bit & (sticky | m24[32'h0]);",
        "inc = round_bit;",
    );
    let r = lockstep::run_design(
        &unit,
        &design,
        unit.model(),
        Source::Random(unit.stimulus(5)),
        Options::new(2_000_000, 5),
    )
    .unwrap();
    let m = r.mismatch.expect("the planted rounding bug is caught");
    assert_eq!(m.port, "result");
    // The cycle before issued a rounded FP op, and lane 0 differs by one unit in the last
    // place: the even result (model) against the one above it (planted RTL).
    let (ins, outs) = trace(&unit, 5, m.cycle + 1);
    let c = m.cycle as usize;
    let op = words::get(&ins[c - 1], 64 * layout.input("op").unwrap().offset, 7);
    assert!(
        (40..=43).contains(&op) || op == 54 || op == 55,
        "op {op} at cycle {}",
        c - 1
    );
    let res = 64 * layout.output("result").unwrap().offset;
    let want = words::get(&outs[c], res, 32) as u32;
    assert_eq!(want & 1, 0, "ties to even give an even mantissa: {want:#x}");
    let actual = u128::from_str_radix(m.actual.trim_start_matches("0x"), 16).unwrap() as u32;
    assert_eq!(
        actual,
        want + 1,
        "lane 0: model {want:#x}, planted rtl {actual:#x}"
    );
    // The other lanes are right.
    let expected = u128::from_str_radix(m.expected.trim_start_matches("0x"), 16).unwrap();
    let actual_all = u128::from_str_radix(m.actual.trim_start_matches("0x"), 16).unwrap();
    assert_eq!(expected >> 32, actual_all >> 32);
}

#[test]
fn spec_vectors_pass_on_model_and_rtl() {
    let vectors = warpforge_cosim::registry::spec_vectors("sm-alu");
    assert!(vectors.len() >= 30);
    for v in &vectors {
        lockstep::run_spec_vector(v).unwrap_or_else(|e| panic!("{e}"));
    }
}
