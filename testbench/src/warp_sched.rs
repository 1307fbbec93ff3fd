//! Model of warp-sched (to be written).
