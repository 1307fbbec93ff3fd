//! Memory (LSU): one warp-instruction at a time, in order, over the whole warp. `start`
//! latches operand read's packet, addresses and data (so operand read and execute go on with
//! other warps' instructions while this one waits for memory); the results are offered
//! (`o_valid`) until writeback takes them (`take`), and the next one may start that cycle.
//! Memory instructions therefore reach writeback in the order they used memory.
//!
//! - `ld.global` / `st.global`: coalesced into 64-byte blocks — take the lowest pending
//!   lane's block, serve every pending lane in it with one request (`MEM_READ`, or
//!   `MEM_WRITE` with the words the lanes write: lanes writing the same word, the highest
//!   lane wins, as the interpreter executes lanes in order), and present the next block's
//!   request at once, without waiting for the response: the port answers in request order,
//!   so a queue of each outstanding request's lanes (`sel_q`, as deep as a warp has lanes —
//!   the most blocks one instruction can touch) says which lanes each response serves. The
//!   instruction is done when every lane was requested and every response has come back.
//!   The queue is flip-flops, not the RAM primitive: its head row is needed in the cycle a
//!   response arrives (a synchronous-read RAM would answer a cycle late), and it is at most
//!   warp_size² bits (1 kbit on the thesis SM, 64 bits on the small one).
//! - `atom.global.*`: one request per executing lane in ascending lane order (`MEM_ATOM_*`,
//!   b in word 0, CAS's swap value c in word 1), each waited for; the old word is the result.
//! - shared memory: one lane per cycle in ascending lane order in the SM's shared RAM, at the
//!   CTA slot's partition base (loads and atomics read then, for atomics, write the new word
//!   the next cycle).
//! - `ld.param`: the parameter word `imm / 4` for every executing lane.
//!
//! Per lane the record gets the byte address (`st_addr`, `A + imm`; CAS: `A`) and the word
//! that lane's write left in memory (`st_data`: a store's own data — for lanes that collide,
//! memory ends with the highest lane's — an atomic's new word). All `mreq_*` outputs are
//! registers.

use super::{tpl, Dims, PK_UNPACK};
use crate::primitives::Wire;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Memory {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub take: Signal<In, Bit>,
    pub in_pk: Wire<In>,
    pub opa: Wire<In>,
    pub opb: Wire<In>,
    pub opc: Wire<In>,
    pub shbase: Wire<In>,
    pub param_we: Signal<In, Bit>,
    pub param_addr: Wire<In>,
    pub param_wdata: Wire<In>,
    pub mreq_ready: Signal<In, Bit>,
    pub mresp_valid: Signal<In, Bit>,
    pub mresp_data: Wire<In>,
    pub sh_rdata: Wire<In>,
    pub result: Wire<Out>,
    pub st_addr: Wire<Out>,
    pub st_data: Wire<Out>,
    pub pk: Wire<Out>,
    pub slot: Wire<Out>,
    pub ready: Signal<Out, Bit>,
    pub o_valid: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    pub mreq_valid: Signal<Out, Bit>,
    pub mreq_op: Wire<Out>,
    pub mreq_addr: Wire<Out>,
    pub mreq_wdata: Wire<Out>,
    pub mreq_wmask: Wire<Out>,
    pub sh_we: Signal<Out, Bit>,
    pub sh_waddr: Wire<Out>,
    pub sh_wdata: Wire<Out>,
    pub sh_re: Signal<Out, Bit>,
    pub sh_raddr: Wire<Out>,
    _d: Dims,
}

impl Memory {
    pub fn new(d: &Dims) -> Memory {
        let t32 = d.t * 32;
        Memory {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            take: Default::default(),
            in_pk: Wire::new(d.pk()),
            opa: Wire::new(t32),
            opb: Wire::new(t32),
            opc: Wire::new(t32),
            shbase: Wire::new(d.shb),
            param_we: Default::default(),
            param_addr: Wire::new(4),
            param_wdata: Wire::new(32),
            mreq_ready: Default::default(),
            mresp_valid: Default::default(),
            mresp_data: Wire::new(512),
            sh_rdata: Wire::new(32),
            result: Wire::new(t32),
            st_addr: Wire::new(t32),
            st_data: Wire::new(t32),
            pk: Wire::new(d.pk()),
            slot: Wire::new(d.sb),
            ready: Default::default(),
            o_valid: Default::default(),
            busy: Default::default(),
            mreq_valid: Default::default(),
            mreq_op: Wire::new(3),
            mreq_addr: Wire::new(32),
            mreq_wdata: Wire::new(512),
            mreq_wmask: Wire::new(16),
            sh_we: Default::default(),
            sh_waddr: Wire::new(d.shb),
            sh_wdata: Wire::new(32),
            sh_re: Default::default(),
            sh_raddr: Wire::new(d.shb),
            _d: d.clone(),
        }
    }
}

const BODY: &str = r#"
reg [#PK#-1:0] pk_q;
reg [#T#*32-1:0] b_q;
reg [#T#*32-1:0] c_q;
reg [6:0] n_op;
reg n_cas;
reg [3:0] st;
reg [#T#-1:0] pending;
reg [#T#-1:0] sel_q [0:#T#-1];
reg [#SB6#-1:0] q_head;
reg [#SB6#-1:0] q_tail;
reg [#SB6#:0] q_cnt;
reg push;
reg pop;
reg [#T#-1:0] head_sel;
reg [#T#-1:0] cur_oh;
reg [31:0] params [0:15];
reg is_ldg;
reg is_stg;
reg is_lds;
reg is_sts;
reg is_ldp;
reg is_atg;
reg is_ats;
reg is_cas;
reg [2:0] afn;
reg found;
reg [#T#-1:0] low_oh;
reg [25:0] blk;
reg [#T#-1:0] sel;
reg [511:0] bw;
reg [15:0] bm;
reg [31:0] la;
reg [31:0] lb;
reg [31:0] lc;
reg [31:0] old;
reg [31:0] nw;
integer i;
integer w;
integer wd;

initial begin
    for (w = 0; w < 16; w = w + 1) params[w] = 32'd0;
end

always @(*) begin
    is_ldg = (op == 7'd64);
    is_stg = (op == 7'd65);
    is_lds = (op == 7'd66);
    is_sts = (op == 7'd67);
    is_ldp = (op == 7'd68);
    is_atg = (op >= 7'd72 && op <= 7'd76);
    is_ats = (op >= 7'd80 && op <= 7'd84);
    is_cas = (op == 7'd76) || (op == 7'd84);
    afn = op[2:0];
    // The lowest pending lane and the lanes in its block.
    // Every lane is selected with constant indices (a one-hot OR), never with a variable
    // part-select of a warp-wide vector: synthesis builds those as barrel shifters (this
    // stage was ~48k ECP5 LUTs that way).
    found = |pending;
    low_oh = pending & ~(pending - 1'b1);
    la = 32'd0;
    lb = 32'd0;
    lc = 32'd0;
    for (i = 0; i < #T#; i = i + 1) begin
        if (low_oh[i]) begin
            la = la | st_addr[i*32 +: 32];
            lb = lb | b_q[i*32 +: 32];
            lc = lc | c_q[i*32 +: 32];
        end
    end
    blk = la[31:6];
    sel = 0;
    for (i = 0; i < #T#; i = i + 1) begin
        sel[i] = pending[i] && (st_addr[i*32 + 6 +: 26] == blk);
    end
    // The block's words: per word, the highest selected lane writing it.
    bw = 512'd0;
    bm = 16'd0;
    for (wd = 0; wd < 16; wd = wd + 1) begin
        for (i = 0; i < #T#; i = i + 1) begin
            if (sel[i] && (st_addr[i*32 + 2 +: 4] == wd)) begin
                bw[wd*32 +: 32] = b_q[i*32 +: 32];
                bm[wd] = 1'b1;
            end
        end
    end
    // Shared memory: the current lane's word; an atomic's new word from the old one read.
    old = (st == 4'd7) ? sh_rdata : mresp_data[31:0];
    case (afn)
    3'd0: nw = old + lb;
    3'd1: nw = ($signed(old) > $signed(lb)) ? old : lb;
    3'd2: nw = (old > lb) ? old : lb;
    3'd3: nw = lb;
    default: nw = (old == lb) ? lc : old;
    endcase
    sh_re = (st == 4'd6) && found && (is_lds || is_ats);
    sh_raddr = shbase + la[#SHB#+1:2];
    sh_we = ((st == 4'd6) && found && is_sts) || ((st == 4'd7) && is_ats);
    sh_waddr = shbase + la[#SHB#+1:2];
    sh_wdata = is_sts ? lb : nw;
    // The instruction being started (decided from operand read's packet).
    // A block request presented this cycle (the port is free or takes the previous one);
    // a block response arrives.
    push = (st == 4'd1) && found && (!mreq_valid || mreq_ready);
    pop = (st == 4'd1) && mresp_valid;
    head_sel = sel_q[q_head];
    n_op = in_pk[6:0];
    n_cas = (n_op == 7'd76) || (n_op == 7'd84);
    pk = pk_q;
    slot = u_slot;
    o_valid = (st == 4'd10);
    busy = (st != 4'd0);
end

// Depends on `take`: a process of its own.
always @(*) begin
    ready = (st == 4'd0) || (st == 4'd10 && take);
end

always @(posedge clock) begin
    if (param_we) params[param_addr] <= param_wdata;
end

always @(posedge clock) begin
    if (reset) begin
        st <= 4'd0;
        pending <= 0;
        cur_oh <= 0;
        result <= 0;
        st_addr <= 0;
        st_data <= 0;
        pk_q <= 0;
        b_q <= 0;
        c_q <= 0;
        mreq_valid <= 1'b0;
        mreq_op <= 3'd0;
        mreq_addr <= 32'd0;
        mreq_wdata <= 512'd0;
        mreq_wmask <= 16'd0;
        q_head <= 0;
        q_tail <= 0;
        q_cnt <= 0;
    end else begin
        if (push) begin
            sel_q[q_tail] <= sel;
            q_tail <= (q_tail == #T# - 1) ? 0 : q_tail + 1'b1;
        end
        if (pop) begin
            for (i = 0; i < #T#; i = i + 1) begin
                if (head_sel[i]) begin
                    if (is_ldg) result[i*32 +: 32] <= word_of(mresp_data, st_addr[i*32 + 2 +: 4]);
                    else st_data[i*32 +: 32] <= b_q[i*32 +: 32];
                end
            end
            q_head <= (q_head == #T# - 1) ? 0 : q_head + 1'b1;
        end
        q_cnt <= q_cnt + push - pop;
        if (start) begin
            pk_q <= in_pk;
            b_q <= opb;
            c_q <= opc;
            pending <= in_pk[#O_EXEC# +: #T#];
            for (i = 0; i < #T#; i = i + 1) begin
                st_addr[i*32 +: 32] <= n_cas ? opa[i*32 +: 32] : (opa[i*32 +: 32] + in_pk[63:32]);
                st_data[i*32 +: 32] <= 32'd0;
                result[i*32 +: 32] <= (n_op == 7'd68) ? params[in_pk[37:34]] : 32'd0;
            end
            if (n_op == 7'd68) st <= 4'd9;
            else if (n_op == 7'd64 || n_op == 7'd65) st <= 4'd1;
            else if (n_op >= 7'd72 && n_op <= 7'd76) st <= 4'd4;
            else st <= 4'd6;
        end else case (st)
        4'd0: st <= 4'd0;
        4'd1: begin
            if (push) begin
                mreq_valid <= 1'b1;
                mreq_op <= is_stg ? 3'd1 : 3'd0;
                mreq_addr <= {blk, 6'd0};
                mreq_wdata <= bw;
                mreq_wmask <= is_stg ? bm : 16'd0;
                pending <= pending & ~sel;
            end else begin
                if (mreq_ready) mreq_valid <= 1'b0;
                if (!found && !mreq_valid && q_cnt == 0) st <= 4'd9;
            end
        end
        4'd2: if (mreq_ready) begin
            mreq_valid <= 1'b0;
            st <= 4'd3;
        end
        // Atomics: one request at a time.
        4'd3: if (mresp_valid) begin
            for (i = 0; i < #T#; i = i + 1) begin
                if (cur_oh[i]) begin
                    result[i*32 +: 32] <= mresp_data[31:0];
                    st_data[i*32 +: 32] <= nw;
                end
            end
            pending <= pending & ~cur_oh;
            st <= 4'd4;
        end
        4'd4: begin
            if (!found) begin
                st <= 4'd9;
            end else begin
                mreq_valid <= 1'b1;
                mreq_op <= 3'd2 + afn;
                mreq_addr <= la;
                mreq_wdata <= {448'd0, lc, lb};
                mreq_wmask <= 16'd0;
                cur_oh <= low_oh;
                st <= 4'd2;
            end
        end
        4'd6: begin
            if (!found) begin
                st <= 4'd9;
            end else if (is_sts) begin
                for (i = 0; i < #T#; i = i + 1) begin
                    if (low_oh[i]) st_data[i*32 +: 32] <= lb;
                end
                pending <= pending & ~low_oh;
            end else begin
                st <= 4'd7;
            end
        end
        4'd7: begin
            for (i = 0; i < #T#; i = i + 1) begin
                if (low_oh[i]) begin
                    result[i*32 +: 32] <= sh_rdata;
                    if (is_ats) st_data[i*32 +: 32] <= nw;
                end
            end
            pending <= pending & ~low_oh;
            st <= 4'd6;
        end
        4'd10: if (take) st <= 4'd0;
        default: st <= 4'd10;
        endcase
    end
end

// Word `idx` of a 64-byte block, as a case (a 16-way multiplexer).
function [31:0] word_of;
    input [511:0] block;
    input [3:0] idx;
    begin
        case (idx)
        4'd0: word_of = block[0 +: 32];
        4'd1: word_of = block[32 +: 32];
        4'd2: word_of = block[64 +: 32];
        4'd3: word_of = block[96 +: 32];
        4'd4: word_of = block[128 +: 32];
        4'd5: word_of = block[160 +: 32];
        4'd6: word_of = block[192 +: 32];
        4'd7: word_of = block[224 +: 32];
        4'd8: word_of = block[256 +: 32];
        4'd9: word_of = block[288 +: 32];
        4'd10: word_of = block[320 +: 32];
        4'd11: word_of = block[352 +: 32];
        4'd12: word_of = block[384 +: 32];
        4'd13: word_of = block[416 +: 32];
        4'd14: word_of = block[448 +: 32];
        default: word_of = block[480 +: 32];
        endcase
    end
endfunction
"#;

impl Logic for Memory {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.result.connect();
        self.st_addr.connect();
        self.st_data.connect();
        self.pk.connect();
        self.slot.connect();
        self.ready.connect();
        self.o_valid.connect();
        self.busy.connect();
        self.mreq_valid.connect();
        self.mreq_op.connect();
        self.mreq_addr.connect();
        self.mreq_wdata.connect();
        self.mreq_wmask.connect();
        self.sh_we.connect();
        self.sh_waddr.connect();
        self.sh_wdata.connect();
        self.sh_re.connect();
        self.sh_raddr.connect();
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        let mut vars = d.pk_vars();
        vars.extend([("SB6", 7), ("SHB", d.shb)]);
        Verilog::Custom(tpl(&format!("{PK_UNPACK}{BODY}"), &vars))
    }
}
