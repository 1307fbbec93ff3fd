//! Interim RAM for the SM tables until the project's RAM primitive (`crate::ram`, branch
//! `ram`) lands: the same ports and semantics (synchronous read with one cycle of latency,
//! read-first on a collision, optional byte enables, no reset, contents start at zero), so the
//! switch is one line in [`super::ram`].

use crate::primitives::Wire;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct SmRam {
    pub clock: Signal<In, Clock>,
    pub we: Signal<In, Bit>,
    /// Byte enables (`width / 8` bits) with byte writes; otherwise one bit, not read.
    pub wbe: Wire<In>,
    pub waddr: Wire<In>,
    pub wdata: Wire<In>,
    pub re: Signal<In, Bit>,
    pub raddr: Wire<In>,
    pub rdata: Wire<Out>,
    _depth: usize,
    _byte_write: bool,
}

impl SmRam {
    pub fn new(depth: usize, width: usize, byte_write: bool) -> SmRam {
        assert!(depth >= 2 && depth.is_power_of_two());
        let ab = warpforge_contract::index_bits(depth);
        SmRam {
            clock: Default::default(),
            we: Default::default(),
            wbe: Wire::new(if byte_write { width / 8 } else { 1 }),
            waddr: Wire::new(ab),
            wdata: Wire::new(width),
            re: Default::default(),
            raddr: Wire::new(ab),
            rdata: Wire::new(width),
            _depth: depth,
            _byte_write: byte_write,
        }
    }
}

impl Logic for SmRam {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.rdata.connect();
    }
    fn hdl(&self) -> Verilog {
        let (w, d) = (self.wdata.width(), self._depth);
        let mut v = format!(
            "reg [{}:0] mem_rows [0:{}];\ninteger mem_init;\n",
            w - 1,
            d - 1
        );
        v += &format!("initial begin\n    for (mem_init = 0; mem_init < {d}; mem_init = mem_init + 1) mem_rows[mem_init] = {w}'d0;\n    rdata = {w}'d0;\nend\n");
        v += "always @(posedge clock) begin\n";
        if self._byte_write {
            let lanes = w / 8;
            v += "    if (we) begin\n";
            for k in 0..lanes {
                let en = if lanes == 1 {
                    "wbe".to_string()
                } else {
                    format!("wbe[{k}]")
                };
                v += &format!(
                    "        if ({en}) mem_rows[waddr][{}:{}] <= wdata[{}:{}];\n",
                    8 * k + 7,
                    8 * k,
                    8 * k + 7,
                    8 * k
                );
            }
            v += "    end\n";
        } else {
            v += "    if (we) mem_rows[waddr] <= wdata;\n";
        }
        v += "    if (re) rdata <= mem_rows[raddr];\nend\n";
        Verilog::Custom(v)
    }
}
