//! The launch image: what the harness writes into the SM before `start` — instruction words,
//! parameter words and the launch inputs — derived from an assembled program and a launch.

use crate::isa::{Machine, Program};
use warpforge_contract::units::sm::{SmConfig, BLOCK_DIM_BITS, GRID_DIM_BITS};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Instruction encodings, PC 0 first.
    pub imem: Vec<u64>,
    /// Parameter words (`ld.param` byte offset / 4).
    pub params: Vec<u32>,
    pub regs: u32,
    pub shared_words: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

impl Image {
    /// The image of a prepared machine (its parameters are resolved, buffers laid out).
    /// `Err` is one line naming the SM limit the kernel exceeds.
    pub fn new(cfg: &SmConfig, program: &Program, m: &Machine) -> Result<Image, String> {
        let threads = m.threads_per_block();
        cfg.check_kernel(
            program.regs as usize,
            program.shared_bytes as usize,
            threads,
            program.params.len(),
            program.code.len(),
        )?;
        for (d, &g) in m.grid.iter().enumerate() {
            if g as u64 >= 1 << GRID_DIM_BITS {
                return Err(format!(
                    "grid dimension {d} = {g}: the SM takes at most {}",
                    (1u64 << GRID_DIM_BITS) - 1
                ));
            }
        }
        for (d, &b) in m.block.iter().enumerate() {
            if b as u64 >= 1 << BLOCK_DIM_BITS {
                return Err(format!(
                    "block dimension {d} = {b}: the SM takes at most {}",
                    (1u64 << BLOCK_DIM_BITS) - 1
                ));
            }
        }
        Ok(Image {
            imem: program.code.iter().map(|i| i.encode()).collect(),
            params: m.param_words().to_vec(),
            regs: program.regs,
            shared_words: program.shared_bytes / 4,
            grid: m.grid,
            block: m.block,
        })
    }
}
