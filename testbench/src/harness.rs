//! Driving a model from a spec vector: the one place that packs a vector's listed inputs into
//! port words and checks its listed outputs. Used by the model tests and by the cosim crate
//! (which checks the RTL against the same expectations).

use crate::{Model, SpecVector, Stimulus, VectorCycle};
use warpforge_contract::manifest::format_value;
use warpforge_contract::Layout;

/// The input words of every cycle of `v`: listed ports as given, the others 0.
pub fn vector_inputs(layout: &Layout, v: &SpecVector) -> Result<Vec<Vec<u64>>, String> {
    v.cycles
        .iter()
        .enumerate()
        .map(|(c, cycle)| {
            let mut words = vec![0u64; layout.in_words];
            for (name, value) in &cycle.inputs {
                let slot = layout
                    .input(name)
                    .ok_or_else(|| format!("{}: cycle {c}: no input port {name}", v.name))?;
                let wide = value.len() > slot.words
                    || value
                        .iter()
                        .enumerate()
                        .any(|(k, w)| w & !slot.word_mask(k) != 0);
                if wide {
                    return Err(format!(
                        "{}: cycle {c}: {name} is wider than its port",
                        v.name
                    ));
                }
                words[slot.offset..slot.offset + value.len()].copy_from_slice(value);
            }
            Ok(words)
        })
        .collect()
}

/// True when the `reset` input is high in `inputs` (such cycles are not compared).
pub fn in_reset(layout: &Layout, inputs: &[u64]) -> bool {
    layout
        .input("reset")
        .is_some_and(|s| inputs[s.offset] & 1 == 1)
}

/// Compare the outputs a vector cycle lists with `outputs`; `side` names who produced them.
pub fn check_expected(
    layout: &Layout,
    v: &SpecVector,
    c: usize,
    cycle: &VectorCycle,
    outputs: &[u64],
    side: &str,
) -> Result<(), String> {
    for (name, want) in &cycle.expect {
        let slot = layout
            .output(name)
            .ok_or_else(|| format!("{}: cycle {c}: no output port {name}", v.name))?;
        let got: Vec<u64> = (0..slot.words)
            .map(|i| outputs[slot.offset + i] & slot.word_mask(i))
            .collect();
        let mut want = want.clone();
        want.resize(slot.words, 0);
        if got != want {
            return Err(format!(
                "{}: cycle {c}: {side} {name} = {}, spec says {}",
                v.name,
                format_value(&got),
                format_value(&want)
            ));
        }
    }
    Ok(())
}

/// Run `v` on `model` (fresh, in its reset state): invariants checked every cycle, listed
/// outputs compared on every cycle whose reset is low. Returns every cycle's outputs.
pub fn run_vector(
    model: &mut dyn Model,
    layout: &Layout,
    v: &SpecVector,
) -> Result<Vec<Vec<u64>>, String> {
    let inputs = vector_inputs(layout, v)?;
    let mut outputs = vec![0u64; layout.out_words];
    let mut trace = Vec::with_capacity(inputs.len());
    for (c, (cycle, inp)) in v.cycles.iter().zip(&inputs).enumerate() {
        model.step(inp, &mut outputs);
        model
            .check_invariants()
            .map_err(|e| format!("{}: cycle {c}: invariant: {e}", v.name))?;
        if !in_reset(layout, inp) {
            check_expected(layout, v, c, cycle, &outputs, "model")
                .map_err(|e| format!("{e} ({})", model.state_line()))?;
        }
        trace.push(outputs.clone());
    }
    Ok(trace)
}

/// Whether `model` (fresh) misses one of `v`'s expected outputs — its invariants not checked,
/// so a faulty model shows at the ports (fault-injection tests).
pub fn misses_an_expectation(model: &mut dyn Model, layout: &Layout, v: &SpecVector) -> bool {
    let inputs = vector_inputs(layout, v).expect("a spec vector's inputs");
    let mut out = vec![0u64; layout.out_words];
    v.cycles
        .iter()
        .zip(&inputs)
        .enumerate()
        .any(|(k, (cyc, inp))| {
            model.step(inp, &mut out);
            !in_reset(layout, inp) && check_expected(layout, v, k, cyc, &out, "model").is_err()
        })
}

/// Run `stim` into `model` until the model's invariants fail: the message, or None after
/// `cycles` cycles. (Fault-injection tests: a wrong model must be caught.)
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

/// Run `stim` into `model` for `cycles` cycles: every cycle's input words, then its output
/// words, end to end (reproducibility tests compare two of these).
pub fn io_trace(
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
        all.extend_from_slice(&outputs);
    }
    all
}
