//! Shared by the DWR model tests: drive a spec vector or a random run through a model.

#![allow(dead_code)]

use warpforge_contract::Layout;
use warpforge_testbench::{Model, SpecVector, Stimulus};

/// Drive one spec vector: listed inputs packed with `Layout`, the rest 0; listed outputs
/// compared on every non-reset cycle; invariants checked every cycle. Returns the outputs
/// of every cycle (for counting the spec's numbers).
pub fn run_vector(
    v: &SpecVector,
    model: &mut dyn Model,
    layout: &Layout,
) -> Result<Vec<Vec<u64>>, String> {
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    let mut trace = vec![];
    for (c, cycle) in v.cycles.iter().enumerate() {
        inputs.iter_mut().for_each(|w| *w = 0);
        let mut reset = false;
        for (name, value) in &cycle.inputs {
            let slot = layout
                .input(name)
                .ok_or_else(|| format!("{}: cycle {c}: no input port {name}", v.name))?;
            assert!(
                value.len() <= slot.words,
                "{}: cycle {c}: {name} too wide",
                v.name
            );
            for (k, w) in value.iter().enumerate() {
                assert_eq!(
                    w & !slot.word_mask(k),
                    0,
                    "{}: cycle {c}: {name} wider than the port",
                    v.name
                );
            }
            inputs[slot.offset..slot.offset + value.len()].copy_from_slice(value);
            reset |= *name == "reset" && value[0] & 1 != 0;
        }
        model.step(&inputs, &mut outputs);
        model
            .check_invariants()
            .map_err(|e| format!("{}: cycle {c}: invariant: {e}", v.name))?;
        trace.push(outputs.clone());
        if reset {
            continue;
        }
        for (name, want) in &cycle.expect {
            let slot = layout
                .output(name)
                .ok_or_else(|| format!("{}: cycle {c}: no output port {name}", v.name))?;
            let got: Vec<u64> = (0..slot.words)
                .map(|k| outputs[slot.offset + k] & slot.word_mask(k))
                .collect();
            let mut want = want.clone();
            want.resize(slot.words, 0);
            if got != want {
                return Err(format!(
                    "{}: vector cycle {c} (spec cycle {}): {name} = {got:x?}, expected {want:x?}\n  {}",
                    v.name,
                    c as i64 - 1,
                    model.state_line()
                ));
            }
        }
    }
    Ok(trace)
}

/// Every output bit above its port's width is 0 (the model never writes outside a port).
pub fn assert_clean_outputs(layout: &Layout, outputs: &[u64]) {
    for s in &layout.outputs {
        for k in 0..s.words {
            assert_eq!(
                outputs[s.offset + k] & !s.word_mask(k),
                0,
                "port {} has bits above its width",
                s.name
            );
        }
    }
}

/// Run `cycles` cycles of `stim` into `model` with the invariants checked every cycle;
/// `each` sees (cycle, inputs, outputs) after the step.
pub fn random_run(
    model: &mut dyn Model,
    stim: &mut dyn Stimulus,
    layout: &Layout,
    cycles: u64,
    what: &str,
    mut each: impl FnMut(u64, &[u64], &[u64]),
) {
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    for c in 0..cycles {
        stim.next(c, &outputs, &mut inputs);
        model.step(&inputs, &mut outputs);
        if let Err(e) = model.check_invariants() {
            panic!("{what}: cycle {c}: {e}\n  {}", model.state_line());
        }
        if c % 997 == 0 {
            assert_clean_outputs(layout, &outputs);
        }
        each(c, &inputs, &outputs);
    }
}

/// Run until the model's invariants fail; the message, or None after `cycles`.
pub fn first_failure(
    model: &mut dyn Model,
    stim: &mut dyn Stimulus,
    layout: &Layout,
    cycles: u64,
) -> Option<String> {
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    for c in 0..cycles {
        stim.next(c, &outputs, &mut inputs);
        model.step(&inputs, &mut outputs);
        if let Err(e) = model.check_invariants() {
            return Some(e);
        }
    }
    None
}

/// The inputs `stim` drives for `cycles` cycles against `model` (for reproducibility tests).
pub fn input_stream(
    model: &mut dyn Model,
    stim: &mut dyn Stimulus,
    layout: &Layout,
    cycles: u64,
) -> Vec<u64> {
    let mut inputs = vec![0u64; layout.in_words];
    let mut outputs = vec![0u64; layout.out_words];
    let mut all = vec![];
    for c in 0..cycles {
        stim.next(c, &outputs, &mut inputs);
        model.step(&inputs, &mut outputs);
        all.extend_from_slice(&inputs);
    }
    all
}

pub fn sets(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}
