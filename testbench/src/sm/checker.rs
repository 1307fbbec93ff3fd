//! The retirement-record checker: for every warp-instruction the SM RTL retires, step the
//! reference interpreter for exactly the threads the record names and compare PC, guard,
//! destination register and predicate values, and memory writes, lane by lane. The first
//! difference is a [`Mismatch`] naming cycle, block, warp, PC, lane and field.

use crate::isa::disasm::format_instr;
use crate::isa::interp::Space;
use crate::isa::{Machine, StepOutcome};
use std::fmt;
use warpforge_contract::isa::{Instr, Op, Special};

/// One retirement record as the RTL reports it (contract `sm`, ports `ret_*`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub cycle: u64,
    /// Linear block id in the grid.
    pub cta: u64,
    /// Warp index within the block.
    pub warp: u32,
    /// Hardware warp slot (reported, not checked).
    pub slot: u32,
    pub pc: u32,
    /// Lanes that retire the instruction.
    pub mask: u64,
    /// Lanes whose guard passed.
    pub exec: u64,
    pub rd_we: bool,
    pub rd: u8,
    pub pd_we: bool,
    pub pd: u8,
    /// Per lane: value written to `rd`.
    pub values: Vec<u32>,
    /// Per lane: value written to `pd`.
    pub pvalues: u64,
    pub st_we: bool,
    pub st_shared: bool,
    pub st_addr: Vec<u32>,
    pub st_data: Vec<u32>,
    /// The `%clock` value the instruction read.
    pub clock: u32,
}

/// The first difference between the RTL and the interpreter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    pub cta: u64,
    pub warp: u32,
    pub pc: u32,
    /// The instruction at `pc` in assembly syntax (empty when `pc` is outside the program).
    pub instr: String,
    pub lane: Option<usize>,
    pub field: &'static str,
    pub expected: String,
    pub actual: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MISMATCH at cycle {}: block {} warp {} pc {}",
            self.cycle, self.cta, self.warp, self.pc
        )?;
        if !self.instr.is_empty() {
            write!(f, " `{}`", self.instr)?;
        }
        if let Some(l) = self.lane {
            write!(f, " lane {l}")?;
        }
        write!(
            f,
            ": {} expected {} (interpreter) actual {} (rtl)",
            self.field, self.expected, self.actual
        )
    }
}

/// Steps the interpreter along the RTL's retirements.
pub struct Checker {
    pub machine: Machine,
    warp_size: u32,
    /// Warp-instructions checked.
    pub records: u64,
    /// Thread-instructions checked (lanes in the records' masks).
    pub thread_steps: u64,
    /// Lanes that executed (guard passed).
    pub active_lanes: u64,
}

fn reads_clock(i: &Instr) -> bool {
    i.a_sreg && i.a == Special::Clock as u8
}

impl Checker {
    pub fn new(machine: Machine, warp_size: u32) -> Checker {
        Checker {
            machine,
            warp_size,
            records: 0,
            thread_steps: 0,
            active_lanes: 0,
        }
    }

    pub fn check(&mut self, r: &Record) -> Result<(), Mismatch> {
        let instr = self.machine.program.code.get(r.pc as usize).copied();
        let text = instr
            .map(|i| format_instr(&i, &self.machine.program.params, None))
            .unwrap_or_default();
        let miss =
            |lane: Option<usize>, field: &'static str, expected: String, actual: String| Mismatch {
                cycle: r.cycle,
                cta: r.cta,
                warp: r.warp,
                pc: r.pc,
                instr: text.clone(),
                lane,
                field,
                expected,
                actual,
            };
        let Some(ins) = instr else {
            return Err(miss(
                None,
                "pc",
                format!("a PC below {}", self.machine.program.code.len()),
                r.pc.to_string(),
            ));
        };
        if r.mask == 0 {
            return Err(miss(None, "mask", "at least one lane".into(), "0x0".into()));
        }
        if r.exec & !r.mask != 0 {
            return Err(miss(
                None,
                "exec",
                format!("a subset of mask {:#x}", r.mask),
                format!("{:#x}", r.exec),
            ));
        }
        if r.cta >= self.machine.num_blocks() {
            return Err(miss(
                None,
                "block",
                format!("below {}", self.machine.num_blocks()),
                r.cta.to_string(),
            ));
        }
        self.records += 1;
        let threads = self.machine.threads_per_block() as u64;
        for lane in 0..self.warp_size as usize {
            if r.mask >> lane & 1 == 0 {
                continue;
            }
            let l = Some(lane);
            let t = r.warp as u64 * self.warp_size as u64 + lane as u64;
            if t >= threads {
                return Err(miss(l, "thread", format!("below {threads}"), t.to_string()));
            }
            let t = t as u32;
            self.thread_steps += 1;
            let ret = match self.machine.step(r.cta, t) {
                Ok(StepOutcome::Retired(ret)) => ret,
                Ok(StepOutcome::WaitingAtBarrier) => {
                    return Err(miss(
                        l,
                        "state",
                        "waiting at bar.sync".into(),
                        "retired an instruction".into(),
                    ))
                }
                Ok(StepOutcome::Exited) => {
                    return Err(miss(
                        l,
                        "state",
                        "exited".into(),
                        "retired an instruction".into(),
                    ))
                }
                Err(f) => {
                    return Err(miss(
                        l,
                        "fault",
                        f.to_string(),
                        "retired an instruction".into(),
                    ))
                }
            };
            if ret.pc != r.pc {
                return Err(miss(l, "pc", ret.pc.to_string(), r.pc.to_string()));
            }
            let exec = r.exec >> lane & 1 == 1;
            if ret.executed != exec {
                return Err(miss(l, "guard", ret.executed.to_string(), exec.to_string()));
            }
            if !exec {
                continue;
            }
            self.active_lanes += 1;
            let value = r.values.get(lane).copied().unwrap_or(0);
            match ret.reg_write {
                Some((d, v)) => {
                    if !r.rd_we || r.rd != d {
                        let got = if r.rd_we {
                            format!("%r{}", r.rd)
                        } else {
                            "none".into()
                        };
                        return Err(miss(l, "destination", format!("%r{d}"), got));
                    }
                    if reads_clock(&ins) {
                        // %clock is the hardware's: a move must show the reported value,
                        // and the interpreter continues with the RTL's result.
                        if ins.op == Op::Mov && value != r.clock {
                            return Err(miss(
                                l,
                                "clock",
                                format!("{:#x}", r.clock),
                                format!("{value:#x}"),
                            ));
                        }
                        self.machine.set_reg(r.cta, t, d, value);
                    } else if v != value {
                        return Err(miss(l, "value", format!("{v:#x}"), format!("{value:#x}")));
                    }
                }
                None if r.rd_we => {
                    return Err(miss(l, "destination", "none".into(), format!("%r{}", r.rd)))
                }
                None => {}
            }
            let pv = r.pvalues >> lane & 1 == 1;
            match ret.pred_write {
                Some((d, v)) => {
                    if !r.pd_we || r.pd != d {
                        let got = if r.pd_we {
                            format!("%p{}", r.pd)
                        } else {
                            "none".into()
                        };
                        return Err(miss(l, "predicate destination", format!("%p{d}"), got));
                    }
                    if v != pv {
                        return Err(miss(l, "predicate", v.to_string(), pv.to_string()));
                    }
                }
                None if r.pd_we => {
                    return Err(miss(
                        l,
                        "predicate destination",
                        "none".into(),
                        format!("%p{}", r.pd),
                    ))
                }
                None => {}
            }
            match ret.mem_write {
                Some(w) => {
                    let shared = w.space == Space::Shared;
                    if !r.st_we || r.st_shared != shared {
                        let got = match (r.st_we, r.st_shared) {
                            (false, _) => "none",
                            (true, true) => "shared",
                            (true, false) => "global",
                        };
                        return Err(miss(
                            l,
                            "store",
                            if shared { "shared" } else { "global" }.into(),
                            got.into(),
                        ));
                    }
                    let (a, d) = (
                        r.st_addr.get(lane).copied().unwrap_or(0),
                        r.st_data.get(lane).copied().unwrap_or(0),
                    );
                    if a != w.addr {
                        return Err(miss(
                            l,
                            "store address",
                            format!("{:#x}", w.addr),
                            format!("{a:#x}"),
                        ));
                    }
                    if d != w.value {
                        return Err(miss(
                            l,
                            "store data",
                            format!("{:#x}", w.value),
                            format!("{d:#x}"),
                        ));
                    }
                }
                None if r.st_we => return Err(miss(l, "store", "none".into(), "a write".into())),
                None => {}
            }
            // Barrier arrivals and exits need no field of their own: the interpreter's state
            // follows, and a thread the RTL runs on too early shows as a `state` mismatch.
        }
        Ok(())
    }

    /// After the RTL says `done`: every block must have finished in the interpreter too.
    pub fn finish(&self) -> Result<(), String> {
        let (done, all) = (self.machine.blocks_finished(), self.machine.num_blocks());
        if done != all {
            return Err(format!(
                "the SM reported done, but only {done} of {all} blocks have finished in the interpreter"
            ));
        }
        Ok(())
    }
}
