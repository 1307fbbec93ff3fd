//! The register file: `rf_banks` RAM primitives of equal depth (the total storage of one RAM
//! of `rf_kb`), each with one read and one write port. Warp-register R (the warp's register
//! base + r) lives in bank R mod rf_banks; a row holds one lane group of one warp-register.
//!
//! - Write: one row per cycle (writeback or the dispatcher's zeroing), addressed by the flat
//!   row R · groups + group as with one RAM; the bank is R's low bits, the row within the
//!   bank (R / rf_banks) · groups + group. Only the addressed bank writes.
//! - Read: each bank has its own row address (`raddr`, bank k in field k) and its own
//!   `rdata` field one cycle later; operand read decides which operand each bank serves.
//!
//! With one bank this is exactly the one RAM it replaces.

use super::{ram, tpl, Dims, Ram};
use crate::primitives::Wire;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RegFile {
    pub clock: Signal<In, Clock>,
    pub we: Signal<In, Bit>,
    /// Flat row: warp-register · groups + group.
    pub waddr: Wire<In>,
    pub wdata: Wire<In>,
    pub wbe: Wire<In>,
    pub re: Signal<In, Bit>,
    /// Per bank (field k, `brb` bits): the row read.
    pub raddr: Wire<In>,
    /// Per bank (field k, simd_width × 32 bits): the row read at the last edge with `re`.
    pub rdata: Wire<Out>,
    banks: Vec<Ram>,
    _d: Dims,
}

impl RegFile {
    pub fn new(d: &Dims) -> RegFile {
        RegFile {
            clock: Default::default(),
            we: Default::default(),
            waddr: Wire::new(d.rb),
            wdata: Wire::new(d.l * 32),
            wbe: Wire::new(d.l * 4),
            re: Default::default(),
            raddr: Wire::new(d.nb * d.brb),
            rdata: Wire::new(d.nb * d.l * 32),
            banks: (0..d.nb).map(|_| ram(d.brd, d.l * 32, true)).collect(),
            _d: d.clone(),
        }
    }
}

impl Logic for RegFile {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.rdata.connect();
        for b in &mut self.banks {
            b.clock.connect();
            b.we.connect();
            b.wbe.connect();
            b.waddr.connect();
            b.wdata.connect();
            b.re.connect();
            b.raddr.connect();
        }
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        let mut v = String::from("always @(*) begin\n");
        for k in 0..d.nb {
            // Constant shifts and masks: wiring only.
            v += &tpl(
                "    banks$#K#$clock = clock;
    banks$#K#$we = we && (((waddr >> #LG#) & #BM#) == #K#);
    banks$#K#$waddr = ((waddr >> #SH#) << #LG#) | (waddr & #GM#);
    banks$#K#$wdata = wdata;
    banks$#K#$wbe = wbe;
    banks$#K#$re = re;
    banks$#K#$raddr = raddr[#K#*#BRB# +: #BRB#];
    rdata[#K#*#L32# +: #L32#] = banks$#K#$rdata;
",
                &[
                    ("K", k),
                    ("LG", d.lg),
                    ("BM", d.nb - 1),
                    ("SH", d.lg + d.lb),
                    ("GM", d.g - 1),
                    ("BRB", d.brb),
                    ("L32", d.l * 32),
                ],
            );
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}
