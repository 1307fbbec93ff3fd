//! Decode: the first back-end stage. It takes the issue-queue head (reads the warp's
//! instruction-buffer row), latches the word with the warp's TOS PC and mask into the
//! warp-instruction packet, and holds it until operand read takes it (`o_valid` / `take`);
//! the cycle it is taken it may already pop the next queue entry. An unknown opcode stops
//! the SM (`bad`: FAULT_BAD_INSTRUCTION); only the opcode is checked, the other fields are
//! taken as the encoding says.
//!
//! States: 0 empty, 1 reading the buffer row, 2 holding the packet.

use super::{tpl, Dims, PK_UNPACK};
use crate::primitives::Wire;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Decode {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub halt: Signal<In, Bit>,
    pub q_valid: Signal<In, Bit>,
    pub q_slot: Wire<In>,
    pub ib_rdata: Wire<In>,
    pub pcs: Wire<In>,
    pub masks: Wire<In>,
    pub take: Signal<In, Bit>,
    pub pop: Signal<Out, Bit>,
    pub ib_re: Signal<Out, Bit>,
    pub ib_raddr: Wire<Out>,
    pub pk: Wire<Out>,
    pub o_valid: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    pub bad: Signal<Out, Bit>,
    _d: Dims,
}

impl Decode {
    pub fn new(d: &Dims) -> Decode {
        Decode {
            clock: Default::default(),
            reset: Default::default(),
            halt: Default::default(),
            q_valid: Default::default(),
            q_slot: Wire::new(d.sb),
            ib_rdata: Wire::new(64),
            pcs: Wire::new(d.w * d.p),
            masks: Wire::new(d.w * d.t),
            take: Default::default(),
            pop: Default::default(),
            ib_re: Default::default(),
            ib_raddr: Wire::new(d.sb),
            pk: Wire::new(d.pk()),
            o_valid: Default::default(),
            busy: Default::default(),
            bad: Default::default(),
            _d: d.clone(),
        }
    }
}

const BODY: &str = r#"
reg [1:0] st;
reg [#PK#-1:0] pk_q;

always @(*) begin
    pk = pk_q;
    o_valid = (st == 2'd2) && valid_op && !halt;
    bad = (st == 2'd2) && !valid_op;
    ib_raddr = q_slot;
    busy = (st != 2'd0);
end

// Depends on `take`: a process of its own (no false combinational loop through the glue).
always @(*) begin
    pop = !halt && q_valid && (st == 2'd0 || (o_valid && take));
    ib_re = pop;
end

always @(posedge clock) begin
    if (reset) begin
        st <= 2'd0;
        pk_q <= 0;
    end else if (halt) begin
        st <= 2'd3;
    end else begin
        case (st)
        2'd0: if (pop) begin
            pk_q[64 +: #SB#] <= q_slot;
            st <= 2'd1;
        end
        2'd1: begin
            pk_q[63:0] <= ib_rdata;
            pk_q[#O_PC# +: #P#] <= pcs[u_slot*#P# +: #P#];
            pk_q[#O_MASK# +: #T#] <= masks[u_slot*#T# +: #T#];
            pk_q[#O_EXEC# +: #T#] <= #T#'d0;
            pk_q[#O_CLK# +: 32] <= 32'd0;
            st <= 2'd2;
        end
        2'd2: if (!valid_op) begin
            st <= 2'd3;
        end else if (take) begin
            if (pop) pk_q[64 +: #SB#] <= q_slot;
            st <= pop ? 2'd1 : 2'd0;
        end
        default: st <= 2'd3;
        endcase
    end
end
"#;

impl Logic for Decode {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.pop.connect();
        self.ib_re.connect();
        self.ib_raddr.connect();
        self.pk.connect();
        self.o_valid.connect();
        self.busy.connect();
        self.bad.connect();
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        Verilog::Custom(tpl(&format!("{PK_UNPACK}{BODY}"), &d.pk_vars()))
    }
}
