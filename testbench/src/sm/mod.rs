//! What the SM RTL is checked against when it runs kernels (DESIGN.md "Lockstep", SM level):
//! the launch image the harness loads, the global memory that serves the SM's memory port,
//! and the retirement-record checker that steps the reference interpreter for exactly the
//! threads each record names and compares every field.
//!
//! The RTL decides the order in which warps run; the interpreter follows it thread by thread
//! (`Machine::step`), so any scheduling policy is checked without false alarms.

pub mod checker;
pub mod image;
pub mod memory;
pub mod random;

pub use checker::{Checker, Mismatch, Record};
pub use image::Image;
pub use memory::MemServer;
pub use random::{random_program, RandomOptions};
