//! Model of simt-stack (to be written).
