//! RTL of warp-sched (to be written).
