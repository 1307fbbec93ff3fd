//! RTL of simt-stack (to be written).
