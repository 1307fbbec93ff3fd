//! The bridge between the two implementations: Verilator build and cache, the FFI shim, the
//! lockstep runner and its reports, and the lint and area flows.

pub mod area;
pub mod bench;
pub mod cacti;
pub mod crown_run;
pub mod dtm_run;
pub mod fpga;
pub mod fuzz;
pub mod icarus;
pub mod lint;
pub mod lockstep;
pub mod noc_run;
pub mod outpath;
pub mod registry;
pub mod regress;
pub mod report;
pub mod sm_run;
pub mod tools;
pub mod units;
pub mod verilator;
