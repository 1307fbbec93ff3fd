//! Shared by the DWR model tests: drive a spec vector or a random run through a model.

#![allow(dead_code)]

use warpforge_contract::Layout;
use warpforge_testbench::{Model, Stimulus};

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

pub fn sets(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}
