//! The SM pipeline's stages. `alu`: the execute stage's SIMD lanes (`sm-alu`), with its FP32
//! datapath in `fpu`.

pub mod alu;
pub mod fpu;
