//! ISA tools: assembler, interpreter, kernels (to be written).
