//! Flip-flop tables indexed by a signal, as Verilog primitives: [`RegFile`] (`n` fields of `w`
//! bits with several write ports and one read port) and [`LowestZero`] (the lowest all-zero
//! field of a packed table, a priority encoder).
//!
//! A `#[hdl_gen]` kernel can only index with loop constants, so a table of hundreds of rows
//! written at a signal address becomes one comparator and multiplexer per row per port, tens of
//! thousands of Verilog lines that Verilator compiles for minutes and simulates slowly. Written
//! directly, an indexed part-select is one statement: Verilator evaluates it in a few word
//! operations and Yosys builds the same decoder the unrolled form would.

use crate::primitives::Wire;
use rust_hdl::prelude::*;

/// `n` fields of `w` bits in flip-flops, packed in `q` (field `i` at bits `i·w …`), with
/// `ports` write ports applied in port order at the edge (a later port wins on the same field)
/// and a synchronous reset to zero. `rdata` = field `raddr` of `q` (combinational).
#[derive(LogicBlock)]
pub struct RegFile {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub we: Vec<Signal<In, Bit>>,
    pub waddr: Vec<Wire<In>>,
    pub wdata: Vec<Wire<In>>,
    pub raddr: Wire<In>,
    pub rdata: Wire<Out>,
    pub q: Wire<Out>,
}

impl RegFile {
    pub fn new(n: usize, w: usize, ports: usize) -> RegFile {
        let ab = crate::primitives::bits_for(n - 1);
        RegFile {
            clock: Default::default(),
            reset: Default::default(),
            we: (0..ports).map(|_| Default::default()).collect(),
            waddr: (0..ports).map(|_| Wire::new(ab)).collect(),
            wdata: (0..ports).map(|_| Wire::new(w)).collect(),
            raddr: Wire::new(ab),
            rdata: Wire::new(w),
            q: Wire::new(n * w),
        }
    }
}

impl Logic for RegFile {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.rdata.connect();
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        let w = self.rdata.width();
        let mut v = String::from("always @(posedge clock) begin\n");
        v += &format!(
            "    if (reset) q <= {}'d0;\n    else begin\n",
            self.q.width()
        );
        for k in 0..self.we.len() {
            v += &format!("        if (we${k}) q[waddr${k} * {w} +: {w}] <= wdata${k};\n");
        }
        v += "    end\nend\n";
        v += &format!("always @(*) rdata = q[raddr * {w} +: {w}];\n");
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
            name: "regfile".into(),
            clock: "clock".into(),
            inputs,
            outputs: vec!["q".into(), "rdata".into()],
        }]
    }
}

/// The lowest field of `x` (`n` fields of `w` bits) that is all zero: `idx` (0 when none) and
/// `found`. The zero flags are isolated to their lowest one (`z & −z`) and encoded bit by bit
/// (index bit `k` = OR of the flags whose position has bit `k`): a carry chain and `log2 n`
/// OR trees, no `n`-deep priority chain.
#[derive(LogicBlock)]
pub struct LowestZero {
    pub x: Wire<In>,
    pub idx: Wire<Out>,
    pub found: Signal<Out, Bit>,
    _n: usize,
}

impl LowestZero {
    pub fn new(n: usize, w: usize) -> LowestZero {
        LowestZero {
            x: Wire::new(n * w),
            idx: Wire::new(crate::primitives::bits_for(n - 1)),
            found: Default::default(),
            _n: n,
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
        let n = self._n;
        let w = self.x.width() / n;
        let mut v = format!(
            "wire [{}:0] zero_flags;\nwire [{}:0] lowest_flag;\n",
            n - 1,
            n - 1
        );
        v += &format!(
            "genvar zero_i;\ngenerate for (zero_i = 0; zero_i < {n}; zero_i = zero_i + 1) begin : zf\n    assign zero_flags[zero_i] = ~|x[zero_i * {w} +: {w}];\nend endgenerate\n"
        );
        v += "assign lowest_flag = zero_flags & (~zero_flags + 1'b1);\n";
        v += "always @(*) begin\n    found = |zero_flags;\n";
        for k in 0..self.idx.width() {
            // The positions whose index has bit k set.
            let mut mask = vec![false; n];
            for (i, m) in mask.iter_mut().enumerate() {
                *m = i >> k & 1 == 1;
            }
            let hex = to_hex(&mask);
            // A one-bit index is a scalar: no bit-select.
            let bit = if self.idx.width() == 1 {
                "idx".to_string()
            } else {
                format!("idx[{k}]")
            };
            v += &format!("    {bit} = |(lowest_flag & {n}'h{hex});\n");
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
