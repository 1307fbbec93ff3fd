//! Flip-flop tables indexed by a signal, as Verilog primitives: [`RegPlanes`] (`n` fields of
//! `w` bits with several write ports and one read port) and [`LowestZero`] (the lowest zero
//! bit of a vector, a priority encoder).
//!
//! A `#[hdl_gen]` kernel can only index with loop constants, so a table of hundreds of rows
//! written at a signal address becomes one comparator and multiplexer per row per port: tens
//! of thousands of Verilog lines that Verilator compiles for minutes and simulates slowly. An
//! indexed part-select (`q[addr*w +: w] <= d`) is compact but Yosys builds it as a barrel
//! shifter over the whole table. So the table is stored as `w` bit-planes of `n` bits, and a
//! write is `plane = plane & ~sel | sel & {n{bit}}` with `sel = 1 << addr` (a decoder, once
//! the constant shift is optimised): whole-vector operations that Verilator evaluates a word
//! at a time, and per-row enable logic in synthesis.

use crate::primitives::Wire;
use rust_hdl::prelude::*;

/// `n` fields of `w` bits in flip-flops, stored as bit-planes: `q` = {plane w−1, …, plane 0},
/// bit `b` of field `i` at `q[b·n + i]`. `ports` write ports apply in port order at the edge (a
/// later port wins on the same field); synchronous reset to zero; `rdata` = field `raddr`
/// (combinational).
#[derive(LogicBlock)]
pub struct RegPlanes {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub we: Vec<Signal<In, Bit>>,
    pub waddr: Vec<Wire<In>>,
    pub wdata: Vec<Wire<In>>,
    pub raddr: Wire<In>,
    pub rdata: Wire<Out>,
    pub q: Wire<Out>,
    _n: usize,
}

impl RegPlanes {
    pub fn new(n: usize, w: usize, ports: usize) -> RegPlanes {
        let ab = crate::primitives::bits_for(n - 1);
        RegPlanes {
            clock: Default::default(),
            reset: Default::default(),
            we: (0..ports).map(|_| Default::default()).collect(),
            waddr: (0..ports).map(|_| Wire::new(ab)).collect(),
            wdata: (0..ports).map(|_| Wire::new(w)).collect(),
            raddr: Wire::new(ab),
            rdata: Wire::new(w),
            q: Wire::new(n * w),
            _n: n,
        }
    }
}

impl Logic for RegPlanes {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.rdata.connect();
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        let (n, w, ports) = (self._n, self.rdata.width(), self.we.len());
        let one = |v: &str, b: usize| {
            if w == 1 {
                v.to_string()
            } else {
                format!("{v}[{b}]")
            }
        };
        let mut v = String::new();
        for k in 0..ports {
            v += &format!(
                "wire [{}:0] sel{k} = we${k} ? ({n}'d1 << waddr${k}) : {n}'d0;\n",
                n - 1
            );
        }
        v += &format!("reg [{}:0] planes_next;\n", n * w - 1);
        v += "always @(*) begin\n    planes_next = q;\n";
        for k in 0..ports {
            for b in 0..w {
                let (hi, lo) = (b * n + n - 1, b * n);
                v += &format!(
                    "    planes_next[{hi}:{lo}] = (planes_next[{hi}:{lo}] & ~sel{k}) | (sel{k} & {{{n}{{{}}}}});\n",
                    one(&format!("wdata${k}"), b)
                );
            }
        }
        v += "end\n";
        v += &format!(
            "always @(posedge clock) begin\n    if (reset) q <= {}'d0;\n    else q <= planes_next;\nend\n",
            n * w
        );
        // The read: each plane is a constant slice, indexed by the address (an n:1 mux).
        for b in 0..w {
            v += &format!(
                "wire [{}:0] plane{b} = q[{}:{}];\n",
                n - 1,
                b * n + n - 1,
                b * n
            );
        }
        v += "always @(*) begin\n";
        for b in 0..w {
            v += &format!("    {} = plane{b}[raddr];\n", one("rdata", b));
        }
        v += "end\n";
        Verilog::Custom(v)
    }
    fn timing(&self) -> Vec<TimingInfo> {
        let mut inputs = vec!["reset".to_string(), "raddr".to_string()];
        for k in 0..self.we.len() {
            inputs.extend([
                format!("we${k}"),
                format!("waddr${k}"),
                format!("wdata${k}"),
            ]);
        }
        vec![TimingInfo {
            name: "regplanes".into(),
            clock: "clock".into(),
            inputs,
            outputs: vec!["q".into(), "rdata".into()],
        }]
    }
}

/// The lowest zero bit of `x`: `idx` (0 when none) and `found`. The zero bits are isolated to
/// their lowest one (`z & −z`, a carry chain) and encoded bit by bit (index bit `k` = OR of
/// the positions whose index has bit `k`): no `n`-deep priority chain.
#[derive(LogicBlock)]
pub struct LowestZero {
    pub x: Wire<In>,
    pub idx: Wire<Out>,
    pub found: Signal<Out, Bit>,
}

impl LowestZero {
    pub fn new(n: usize) -> LowestZero {
        LowestZero {
            x: Wire::new(n),
            idx: Wire::new(crate::primitives::bits_for(n - 1)),
            found: Default::default(),
        }
    }
}

impl Logic for LowestZero {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.idx.connect();
        self.found.connect();
    }
    fn hdl(&self) -> Verilog {
        let n = self.x.width();
        let mut v = format!(
            "wire [{}:0] zeros = ~x;\nwire [{}:0] lowest = zeros & (~zeros + 1'b1);\n",
            n - 1,
            n - 1
        );
        v += "always @(*) begin\n    found = |zeros;\n";
        for k in 0..self.idx.width() {
            let mask: Vec<bool> = (0..n).map(|i| i >> k & 1 == 1).collect();
            // A one-bit index is a scalar: no bit-select.
            let bit = if self.idx.width() == 1 {
                "idx".to_string()
            } else {
                format!("idx[{k}]")
            };
            v += &format!("    {bit} = |(lowest & {n}'h{});\n", to_hex(&mask));
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}

/// A bit vector (bit 0 first) as a hex literal, most significant digit first.
fn to_hex(bits: &[bool]) -> String {
    let digits = bits.len().div_ceil(4);
    (0..digits)
        .rev()
        .map(|d| {
            let nib = (0..4)
                .filter(|b| bits.get(4 * d + b).copied().unwrap_or(false))
                .map(|b| 1 << b)
                .sum::<u32>();
            std::char::from_digit(nib, 16).unwrap()
        })
        .collect()
}
