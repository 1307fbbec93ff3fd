//! A reactive Icarus Verilog harness for the DWR tests: the design runs in `vvp`, and each
//! cycle the test writes one line of inputs and reads back every output sampled before the
//! clock edge, so a Rust environment can react to what the unit did (the pick it announced,
//! the bundle it issued). Also the spec's environment for the `dwr` unit: per-sub-warp
//! programs, a serial memory pipe, and a `__syncthreads` block barrier.
#![allow(dead_code)] // each test binary uses a subset

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use warpforge_contract::{Dir, Port};
use warpforge_hdl::Design;

/// A value of any width, least significant 64-bit word first.
pub type Val = Vec<u64>;

pub fn val(x: u64) -> Val {
    vec![x]
}

/// A vector with the given bits set.
pub fn bits(set: impl IntoIterator<Item = usize>) -> Val {
    let mut v = vec![];
    for i in set {
        if v.len() <= i / 64 {
            v.resize(i / 64 + 1, 0);
        }
        v[i / 64] |= 1 << (i % 64);
    }
    if v.is_empty() {
        v.push(0);
    }
    v
}

/// The outputs of one cycle.
#[derive(Clone, Debug, Default)]
pub struct Outs(pub BTreeMap<String, Val>);

impl Outs {
    fn word(&self, name: &str) -> &Val {
        self.0
            .get(name)
            .unwrap_or_else(|| panic!("no output {name}"))
    }
    /// The whole value; it must fit in 64 bits.
    pub fn get(&self, name: &str) -> u64 {
        let v = self.word(name);
        assert!(
            v.iter().skip(1).all(|&w| w == 0),
            "{name} does not fit in 64 bits"
        );
        v[0]
    }
    pub fn bit(&self, name: &str, i: usize) -> bool {
        self.word(name)
            .get(i / 64)
            .is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }
    /// Field `i` of `width` bits (at most 64).
    pub fn field(&self, name: &str, i: usize, width: usize) -> u64 {
        (0..width)
            .filter(|&b| self.bit(name, i * width + b))
            .map(|b| 1u64 << b)
            .sum()
    }
    pub fn is_zero(&self, name: &str) -> bool {
        self.word(name).iter().all(|&w| w == 0)
    }
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("-V").output().is_ok()
}

/// A running simulation. Inputs not given in a cycle are 0.
pub struct Sim {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    inputs: Vec<Port>,
    outputs: Vec<Port>,
    dir: PathBuf,
    pub cycle: u64,
}

impl Sim {
    /// Compile `design` with a stdin-driven testbench; `None` (with a message) without Icarus.
    pub fn start(design: &Design, ports: &[Port]) -> Option<Sim> {
        if !have("iverilog") || !have("vvp") {
            eprintln!(
                "SKIPPED: iverilog/vvp not installed, {} not simulated",
                design.module
            );
            return None;
        }
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "warpforge-dwr-sim-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let inputs: Vec<Port> = ports.iter().filter(|p| p.dir == Dir::In).cloned().collect();
        let outputs: Vec<Port> = ports
            .iter()
            .filter(|p| p.dir == Dir::Out)
            .cloned()
            .collect();
        let mut tb = String::from("module tb;\n  reg clock = 0;\n  integer got;\n");
        for p in &inputs {
            tb += &format!("  reg [{}:0] {};\n", p.width - 1, p.name);
        }
        for p in &outputs {
            tb += &format!("  wire [{}:0] {};\n", p.width - 1, p.name);
        }
        let conns: Vec<String> = std::iter::once(".clock(clock)".to_string())
            .chain(ports.iter().map(|p| format!(".{0}({0})", p.name)))
            .collect();
        tb += &format!("  {} dut({});\n", design.module, conns.join(", "));
        let in_fmt = vec!["%h"; inputs.len()].join(" ");
        let in_args: Vec<&str> = inputs.iter().map(|p| p.name.as_str()).collect();
        let out_fmt = vec!["%h"; outputs.len()].join(" ");
        let out_args: Vec<&str> = outputs.iter().map(|p| p.name.as_str()).collect();
        tb += &format!(
            "  initial begin\n    forever begin\n      got = $fscanf(32'h8000_0000, \"{in_fmt}\", {});\n      if (got != {}) $finish;\n      #1;\n      $display(\"OUT {out_fmt}\", {});\n      $fflush;\n      clock = 1; #1; clock = 0;\n    end\n  end\nendmodule\n",
            in_args.join(", "),
            inputs.len(),
            out_args.join(", ")
        );
        std::fs::write(dir.join("tb.v"), tb).unwrap();
        std::fs::write(dir.join("dut.v"), &design.verilog).unwrap();
        let out = Command::new("iverilog")
            .args(["-g2005", "-o"])
            .arg(dir.join("sim"))
            .arg(dir.join("tb.v"))
            .arg(dir.join("dut.v"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "iverilog failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut child = Command::new("vvp")
            .arg("-n")
            .arg(dir.join("sim"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Some(Sim {
            child,
            stdin,
            stdout,
            inputs,
            outputs,
            dir,
            cycle: 0,
        })
    }

    /// One cycle: drive `given` (others 0), sample every output, then clock. Outputs of a
    /// reset cycle are unspecified: unknown bits read 0 there, and are an error elsewhere.
    pub fn step(&mut self, given: &[(&str, Val)]) -> Outs {
        let reset = given.iter().any(|(n, v)| *n == "reset" && v[0] & 1 == 1);
        for (name, _) in given {
            assert!(
                self.inputs.iter().any(|p| p.name == *name),
                "no input {name}"
            );
        }
        let mut line = String::new();
        for p in &self.inputs {
            let v = given
                .iter()
                .find(|(n, _)| *n == p.name)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| vec![0]);
            let mut hex = String::new();
            for w in v.iter().rev() {
                hex += &format!("{w:016x}");
            }
            line += &hex;
            line.push(' ');
        }
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
        let mut text = String::new();
        self.stdout.read_line(&mut text).unwrap();
        let fields: Vec<&str> = text
            .trim()
            .strip_prefix("OUT ")
            .unwrap_or_else(|| panic!("simulation stopped at cycle {}: {text}", self.cycle))
            .split_whitespace()
            .collect();
        assert_eq!(fields.len(), self.outputs.len());
        let mut outs = Outs::default();
        for (p, f) in self.outputs.iter().zip(fields) {
            assert!(
                reset || !f.contains(['x', 'z', 'X', 'Z']),
                "cycle {}: {} = {f}",
                self.cycle,
                p.name
            );
            let digits: Vec<u8> = f
                .bytes()
                .rev()
                .map(|c| (c as char).to_digit(16).unwrap_or(0) as u8)
                .collect();
            let mut v = vec![0u64; digits.len().div_ceil(16).max(1)];
            for (i, d) in digits.iter().enumerate() {
                v[i / 16] |= (*d as u64) << (4 * (i % 16));
            }
            outs.0.insert(p.name.clone(), v);
        }
        self.cycle += 1;
        outs
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.stdin.write_all(b"stop\n");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

// ---------------------------------------------------------------------------------------------
// The `dwr` unit's environment (docs/dwr.md §8): the front end that knows each sub-warp's
// program, the memory that completes long instructions, and the block barrier.
// ---------------------------------------------------------------------------------------------

/// Instruction classes as `inst_kind` codes.
pub const ALU: u64 = 0;
pub const LONG: u64 = 1;
pub const BARP: u64 = 2;
pub const BSYNC: u64 = 3;
pub const EXIT: u64 = 4;

/// State codes.
pub const EMPTY: u64 = 0;
pub const READY: u64 = 1;
pub const STALLED: u64 = 2;
pub const WAIT_BLOCKBAR: u64 = 3;
pub const WAIT_PARTNER: u64 = 4;
pub const COMBINE_READY: u64 = 5;

/// One instruction of a sub-warp's program.
#[derive(Clone, Copy, Debug)]
pub struct Inst {
    pub kind: u64,
    pub pc: u64,
}

pub fn prog(list: &[(u64, u64)]) -> Vec<Inst> {
    list.iter().map(|&(kind, pc)| Inst { kind, pc }).collect()
}

/// The environment of the `dwr` unit, driven by the unit's announced picks and issues.
pub struct Env {
    pub n: usize,
    pub w: usize,
    pub s: usize,
    pub pc_bits: usize,
    pub programs: Vec<Vec<Inst>>,
    /// Next instruction of each sub-warp.
    pub next: Vec<usize>,
    pub masks: Vec<u64>,
    /// Cycles a memory request is in service.
    pub service: u64,
    /// Requests are served one at a time (the spec's example, §3.10 rule 6), else pipelined.
    pub serial: bool,
    mem_free_at: u64,
    /// Writebacks due: cycle → sub-warps.
    due: BTreeMap<u64, Vec<usize>>,
    /// Sub-warps that take part in the block barrier, and which of them wait there.
    pub block: Vec<usize>,
    release_pending: Vec<usize>,
    /// The announced pick of the previous cycle: (sub-warp, fused).
    pick: Option<(usize, bool)>,
    /// `ready` in the listed cycles (all ones otherwise).
    pub ready: BTreeMap<u64, Val>,
    /// Further inputs for the listed cycles.
    pub extra: BTreeMap<u64, Vec<(&'static str, Val)>>,
}

impl Env {
    pub fn new(n: usize, w: usize, s: usize, pc_bits: usize, programs: Vec<Vec<Inst>>) -> Env {
        let count = programs.len();
        Env {
            n,
            w,
            s,
            pc_bits,
            programs,
            next: vec![0; count],
            masks: vec![(1u64 << s) - 1; n],
            service: 9,
            serial: true,
            mem_free_at: 0,
            due: BTreeMap::new(),
            block: (0..count).collect(),
            release_pending: vec![],
            pick: None,
            ready: BTreeMap::new(),
            extra: BTreeMap::new(),
        }
    }

    fn current(&self, sw: usize) -> Option<Inst> {
        self.programs
            .get(sw)
            .and_then(|p| p.get(self.next[sw]))
            .copied()
    }

    /// The inputs of cycle `t` (after the reset cycle), given the outputs of cycle `t − 1`.
    pub fn inputs(&mut self, t: u64) -> Vec<(&'static str, Val)> {
        let ready = self
            .ready
            .get(&t)
            .cloned()
            .unwrap_or_else(|| bits(0..self.n));
        let mut v: Vec<(&'static str, Val)> = vec![("ready", ready)];
        if let Some((sw, _)) = self.pick {
            let kind = self.current(sw).map_or(ALU, |i| i.kind);
            v.push(("inst_kind", val(kind)));
            let n0 = sw / self.w * self.w;
            let mut pcs = vec![0u64; (self.w * self.pc_bits).div_ceil(64)];
            let mut masks = vec![0u64; (self.w * self.s).div_ceil(64)];
            for m in 0..self.w {
                let pc = self.current(n0 + m).map_or(0, |i| i.pc);
                for b in 0..self.pc_bits {
                    if (pc >> b) & 1 == 1 {
                        let i = m * self.pc_bits + b;
                        pcs[i / 64] |= 1 << (i % 64);
                    }
                }
                let mask = self.masks.get(n0 + m).copied().unwrap_or(0);
                for b in 0..self.s {
                    if (mask >> b) & 1 == 1 {
                        let i = m * self.s + b;
                        masks[i / 64] |= 1 << (i % 64);
                    }
                }
            }
            v.push(("grp_pc", pcs));
            v.push(("grp_mask", masks));
        }
        if let Some(list) = self.due.remove(&t) {
            v.push(("writeback", bits(list)));
        }
        if !self.release_pending.is_empty() {
            v.push(("blockbar_release", bits(self.release_pending.drain(..))));
        }
        v.extend(self.extra.remove(&t).unwrap_or_default());
        v
    }

    /// Writebacks still to come.
    pub fn pending(&self) -> usize {
        self.due.values().map(Vec::len).sum()
    }

    /// React to the outputs of cycle `t`.
    pub fn observe(&mut self, t: u64, o: &Outs) {
        if o.get("issue_valid") == 1 {
            let sw = o.get("issue_sw") as usize;
            let base = o.get("issue_group") as usize * self.w;
            let members: Vec<usize> = (0..self.w)
                .filter(|&m| o.bit("issue_members", m))
                .map(|m| base + m)
                .collect();
            let long =
                o.get("issue_fused") == 1 || self.current(sw).is_some_and(|i| i.kind == LONG);
            if long {
                // One request for the whole bundle, served after the pipe is free.
                let start = if self.serial {
                    (t + 1).max(self.mem_free_at)
                } else {
                    t + 1
                };
                let done = start + self.service - 1;
                self.mem_free_at = done + 1;
                self.due
                    .entry(done)
                    .or_default()
                    .extend(members.iter().copied());
            }
            for m in members {
                self.next[m] += 1;
            }
        }
        self.pick =
            (o.get("nxt_valid") == 1).then(|| (o.get("nxt_sw") as usize, o.get("nxt_fused") == 1));
        // The block barrier: release once every live member of the block waits in it.
        let st = |s: usize| o.field("dbg_state", s, 3);
        let waiting: Vec<usize> = self
            .block
            .iter()
            .copied()
            .filter(|&s| st(s) == WAIT_BLOCKBAR)
            .collect();
        if !waiting.is_empty()
            && self
                .block
                .iter()
                .all(|&s| st(s) == WAIT_BLOCKBAR || st(s) == EMPTY)
        {
            self.release_pending = waiting;
        }
    }
}
