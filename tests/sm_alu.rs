//! sm-alu in lockstep against deliberately wrong RTL: variants of the generated Verilog, built
//! only here, with one planted bug each. Lockstep must stop at the first cycle the bug shows,
//! on port `result`.

use warpforge_cosim::lockstep::{self, Options, Source};
use warpforge_cosim::registry::Unit;
use warpforge_testbench::words;

/// `design` with `from` replaced by `to` inside module `module` only (exactly once).
fn plant(unit: &Unit, module: &str, from: &str, to: &str) -> warpforge_hdl::Design {
    let mut d = unit.design();
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

#[test]
fn planted_off_by_one_in_one_lane_is_caught_at_its_cycle() {
    let unit = Unit::resolve("sm-alu", &["lanes=8".into()]).unwrap();
    let layout = unit.manifest().layout();
    let design = plant(
        &unit,
        "sm_alu_l8__lane__3__ints",
        "result = a + b;",
        "result = a + b + 32'h1;",
    );
    // Where it must show: the cycle after the first issued add.s32 (outside reset).
    let (ins, _) = trace(&unit, 11, 200_000);
    let bit = |c: usize, port: &str, width: usize| {
        words::get(&ins[c], 64 * layout.input(port).unwrap().offset, width)
    };
    let first = (0..ins.len() - 1)
        .find(|&c| {
            bit(c, "reset", 1) == 0
                && bit(c, "valid", 1) == 1
                && bit(c, "op", 7) == 2
                && bit(c + 1, "reset", 1) == 0
        })
        .expect("the stimulus issues add.s32") as u64
        + 1;
    let r = lockstep::run_design(
        &unit,
        &design,
        unit.model(),
        Source::Random(unit.stimulus(11)),
        Options::new(first + 1000, 11),
    )
    .unwrap();
    let m = r.mismatch.expect("the planted bug is caught");
    assert_eq!((m.cycle, m.port.as_str()), (first, "result"));
    assert_eq!(r.cycles, first + 1);
}

#[test]
fn planted_round_half_up_is_caught_on_a_tie() {
    // Lane 0 rounds ties away from zero instead of to even.
    let unit = Unit::resolve("sm-alu", &["lanes=4".into()]).unwrap();
    let layout = unit.manifest().layout();
    let design = plant(
        &unit,
        "sm_alu_l4__lane__0__round",
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
