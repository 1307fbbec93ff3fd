//! Fetch: fills each warp's one-entry instruction buffer.
//!
//! Each cycle the lowest slot that needs its next instruction (resident, not finished, not in
//! flight, buffer empty: `fetch_need`) reads the instruction memory at its TOS PC; the next
//! cycle the word is written into the instruction-buffer RAM (one row per warp slot) and its
//! class bits (`is_mem`: opcodes 64–95, the LD/ST pipe; `is_bar`: `bar.sync`) go to the
//! scoreboard. The issue stage reads the buffer row of the warp it issues (`ib_re`,
//! `ib_raddr`; `ib_rdata` one cycle later).
//!
//! The program length is the highest PC written plus one; fetching at or above it is
//! `pc_fault` (FAULT_PC_RANGE).

use super::{ram, tpl, Dims, Ram};
use crate::primitives::Wire;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Fetch {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub imem_we: Signal<In, Bit>,
    pub imem_addr: Wire<In>,
    pub imem_wdata: Wire<In>,
    pub fetch_need: Wire<In>,
    pub pcs: Wire<In>,
    pub ib_re: Signal<In, Bit>,
    pub ib_raddr: Wire<In>,
    pub fetch_start: Signal<Out, Bit>,
    pub fetch_slot: Wire<Out>,
    pub fetch_done: Signal<Out, Bit>,
    pub done_slot: Wire<Out>,
    pub done_mem: Signal<Out, Bit>,
    pub done_bar: Signal<Out, Bit>,
    pub ib_rdata: Wire<Out>,
    pub pc_fault: Signal<Out, Bit>,
    imem: Ram,
    ibuf: Ram,
    _d: Dims,
}

impl Fetch {
    pub fn new(d: &Dims) -> Fetch {
        Fetch {
            clock: Default::default(),
            reset: Default::default(),
            imem_we: Default::default(),
            imem_addr: Wire::new(d.p),
            imem_wdata: Wire::new(64),
            fetch_need: Wire::new(d.w),
            pcs: Wire::new(d.w * d.p),
            ib_re: Default::default(),
            ib_raddr: Wire::new(d.sb),
            fetch_start: Default::default(),
            fetch_slot: Wire::new(d.sb),
            fetch_done: Default::default(),
            done_slot: Wire::new(d.sb),
            done_mem: Default::default(),
            done_bar: Default::default(),
            ib_rdata: Wire::new(64),
            pc_fault: Default::default(),
            imem: ram(1 << d.p, 64, false),
            ibuf: ram(d.w.next_power_of_two(), 64, false),
            _d: d.clone(),
        }
    }
}

const BODY: &str = r#"
reg v1;
reg [#SB#-1:0] s1;
reg [#P#-1:0] pc1;
reg [#P#:0] prog_len;
reg found;
reg [#SB#-1:0] pick;
integer k;

always @(*) begin
    found = 1'b0;
    pick = #SB#'d0;
    for (k = #W# - 1; k >= 0; k = k - 1) begin
        if (fetch_need[k]) begin
            found = 1'b1;
            pick = k;
        end
    end
    imem$clock = clock;
    imem$we = imem_we;
    imem$wbe = 1'b1;
    imem$waddr = imem_addr;
    imem$wdata = imem_wdata;
    imem$re = found;
    imem$raddr = pcs[pick*#P# +: #P#];
    ibuf$clock = clock;
    ibuf$we = v1;
    ibuf$wbe = 1'b1;
    ibuf$waddr = s1;
    ibuf$wdata = imem$rdata;
    ibuf$re = ib_re;
    ibuf$raddr = ib_raddr;
    ib_rdata = ibuf$rdata;
    fetch_start = found;
    fetch_slot = pick;
    fetch_done = v1;
    done_slot = s1;
    done_mem = (imem$rdata[6:5] == 2'b10);
    done_bar = (imem$rdata[6:0] == 7'd98);
    pc_fault = v1 && ({1'b0, pc1} >= prog_len);
end

always @(posedge clock) begin
    if (reset) begin
        v1 <= 1'b0;
        s1 <= #SB#'d0;
        pc1 <= #P#'d0;
        prog_len <= 0;
    end else begin
        v1 <= found;
        s1 <= pick;
        pc1 <= pcs[pick*#P# +: #P#];
        if (imem_we && ({1'b0, imem_addr} >= prog_len)) prog_len <= imem_addr + 1'b1;
    end
end
"#;

impl Logic for Fetch {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.fetch_start.connect();
        self.fetch_slot.connect();
        self.fetch_done.connect();
        self.done_slot.connect();
        self.done_mem.connect();
        self.done_bar.connect();
        self.ib_rdata.connect();
        self.pc_fault.connect();
        for r in [&mut self.imem, &mut self.ibuf] {
            r.clock.connect();
            r.we.connect();
            r.wbe.connect();
            r.waddr.connect();
            r.wdata.connect();
            r.re.connect();
            r.raddr.connect();
        }
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        Verilog::Custom(tpl(BODY, &[("SB", d.sb), ("P", d.p), ("W", d.w)]))
    }
}
