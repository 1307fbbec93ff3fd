//! RTL of dtm-mtt, DTM@GPU's trace memo table (spec/dtm.md §2.3, §2.5, §3.5; contract
//! `warpforge_contract::units::dtm_mtt`, normative).
//!
//! Storage:
//! - one RAM primitive per way (`rows__w`, depth `sets`, one row = {pc, npc, len, ic, oc}):
//!   every way of a set is read in the same cycle at the set index, so the tag compare and
//!   the MRU-candidate search run on the RAM outputs, and FPGA tools map the rows to block
//!   RAM;
//! - `valid` and `kid` per row in flip-flops (a kernel retire compares every row's kid at
//!   once), the LRU ranks in flip-flops.
//!
//! Lookup pipeline (the RAM's read is synchronous, so a lookup is read-then-compare):
//! - cycle t (stage 1): `lk_*` → every way's RAM reads row `set(lk_kid, lk_pc)`;
//! - t+1 (stage 2): tag compare on the RAM outputs (through the write bypass), the `cand`
//!   matches of lowest rank are `cand_*` and are captured with their rows;
//! - t+2 (stage 3): `cv_val` (the operand collector's values for `cand_ic`) compared slot by
//!   slot, longest `len` then MRU wins, LRU touch; `res_*` registered, visible at t+3.
//!
//! An upsert takes stage 1 and 2 (its read, then the key compare and the write), `up_*`
//! visible at t+2. The bypass register holds the row written at the last edge: the request
//! in stage 2 read its set at that same edge (read-first), so it sees the write through the
//! bypass, never a stale row.
//!
//! The body is a Verilog template filled from the configuration (unrolled per way, candidate
//! and slot), as the RAM primitive and the register planes are: rust-hdl kernels cannot
//! index with signals.

use crate::primitives::{emit, Wire};
use crate::ram::Ram;
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::dtm_mtt::MttConfig;
use warpforge_contract::units::ram::RamConfig;

#[derive(LogicBlock)]
pub struct Mtt {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub lk_valid: Signal<In, Bit>,
    pub lk_kid: Wire<In>,
    pub lk_pc: Wire<In>,
    pub cv_val: Wire<In>,
    pub up_valid: Signal<In, Bit>,
    pub up_kid: Wire<In>,
    pub up_pc: Wire<In>,
    pub up_npc: Wire<In>,
    pub up_len: Wire<In>,
    pub up_ic: Wire<In>,
    pub up_oc: Wire<In>,
    pub inv_valid: Signal<In, Bit>,
    pub inv_kid: Wire<In>,
    pub flush: Signal<In, Bit>,
    pub cand_valid: Wire<Out>,
    pub cand_way: Wire<Out>,
    pub cand_ic: Wire<Out>,
    pub res_valid: Signal<Out, Bit>,
    pub res_hit: Signal<Out, Bit>,
    pub res_way: Wire<Out>,
    pub res_len: Wire<Out>,
    pub res_npc: Wire<Out>,
    pub res_oc: Wire<Out>,
    pub up_done: Signal<Out, Bit>,
    pub up_found: Signal<Out, Bit>,
    pub up_evict: Signal<Out, Bit>,
    pub up_set: Wire<Out>,
    pub up_way: Wire<Out>,
    pub dbg_valid: Wire<Out>,
    pub dbg_rank: Wire<Out>,
    rows: Vec<Ram>,
    _cfg: MttConfig,
}

impl Mtt {
    pub fn new(cfg: &MttConfig) -> Mtt {
        let (kb, p, v, lb, sb, wb, c) = (
            cfg.kid_bits,
            cfg.pc_bits,
            cfg.val_bits,
            cfg.len_bits(),
            cfg.set_bits(),
            cfg.way_bits(),
            cfg.cand,
        );
        let ram = RamConfig {
            depth: cfg.sets().max(2),
            width: cfg.row_bits(),
            ports: 2,
            byte_write: false,
        };
        Mtt {
            clock: Default::default(),
            reset: Default::default(),
            lk_valid: Default::default(),
            lk_kid: Wire::new(kb),
            lk_pc: Wire::new(p),
            cv_val: Wire::new(c * cfg.k_in * v),
            up_valid: Default::default(),
            up_kid: Wire::new(kb),
            up_pc: Wire::new(p),
            up_npc: Wire::new(p),
            up_len: Wire::new(lb),
            up_ic: Wire::new(cfg.ic_bits()),
            up_oc: Wire::new(cfg.oc_bits()),
            inv_valid: Default::default(),
            inv_kid: Wire::new(kb),
            flush: Default::default(),
            cand_valid: Wire::new(c),
            cand_way: Wire::new(c * wb),
            cand_ic: Wire::new(c * cfg.k_in * 10),
            res_valid: Default::default(),
            res_hit: Default::default(),
            res_way: Wire::new(wb),
            res_len: Wire::new(lb),
            res_npc: Wire::new(p),
            res_oc: Wire::new(cfg.oc_bits()),
            up_done: Default::default(),
            up_found: Default::default(),
            up_evict: Default::default(),
            up_set: Wire::new(sb),
            up_way: Wire::new(wb),
            dbg_valid: Wire::new(cfg.entries),
            dbg_rank: Wire::new(cfg.entries * wb),
            rows: (0..cfg.ways).map(|_| Ram::new(&ram)).collect(),
            _cfg: cfg.clone(),
        }
    }

    fn verilog(&self) -> String {
        let c = &self._cfg;
        let (w, e, kb, p, v, lb, sb, wb, nc, ki, ko) = (
            c.ways,
            c.entries,
            c.kid_bits,
            c.pc_bits,
            c.val_bits,
            c.len_bits(),
            c.set_bits(),
            c.way_bits(),
            c.cand,
            c.k_in,
            c.k_out,
        );
        let (rb, icb, ocb, slot) = (c.row_bits(), c.ic_bits(), c.oc_bits(), c.slot_bits());
        // Row fields (LSB first): pc, npc, len, ic, oc.
        let (o_npc, o_len, o_ic, o_oc) = (p, 2 * p, 2 * p + lb, 2 * p + lb + icb);
        let set_mask = c.sets() - 1;
        let mut s = String::new();
        // Inputs as vectors (a one-bit port cannot be bit-selected).
        s += &format!(
            "wire [{}:0] i_cv = cv_val;\nwire [{}:0] i_upic = up_ic;\n",
            nc * ki * v - 1,
            icb - 1
        );
        // Stage 1: the set hash of §2.5 without values.
        s += &format!(
            "wire [39:0] lk_h = ({{8'd0, lk_pc}} >> {sh}) ^ {{{pad}'d0, lk_kid}};\n\
             wire [39:0] up_h = ({{8'd0, up_pc}} >> {sh}) ^ {{{pad}'d0, up_kid}};\n\
             wire [{sbm}:0] lk_set = lk_h[{sbm}:0] & {sb}'d{set_mask};\n\
             wire [{sbm}:0] up_set1 = up_h[{sbm}:0] & {sb}'d{set_mask};\n",
            sh = c.pc_shift,
            pad = 40 - kb,
            sbm = sb - 1,
        );
        // State.
        s += &format!(
            "reg [{em}:0] valid;\nreg [{}:0] kidv;\nreg [{}:0] rank;\n",
            e * kb - 1,
            e * wb - 1,
            em = e - 1
        );
        s += &format!(
            "reg s2_lk;\nreg s2_up;\nreg [{}:0] s2_set;\nreg [{}:0] s2_kid;\nreg [{}:0] s2_pc;\n\
             reg [{}:0] s2_npc;\nreg [{}:0] s2_len;\nreg [{}:0] s2_ic;\nreg [{}:0] s2_oc;\n",
            sb - 1,
            kb - 1,
            p - 1,
            p - 1,
            lb - 1,
            icb - 1,
            ocb - 1
        );
        s += &format!(
            "reg fw_v;\nreg [{}:0] fw_set;\nreg [{}:0] fw_way;\nreg [{}:0] fw_row;\n",
            sb - 1,
            wb - 1,
            rb - 1
        );
        s += &format!(
            "reg s3_v;\nreg [{}:0] s3_set;\nreg [{}:0] s3_cv;\nreg [{}:0] s3_way;\nreg [{}:0] s3_row;\n",
            sb - 1,
            nc - 1,
            nc * wb - 1,
            nc * rb - 1
        );
        // Stage 2: the set's rows (through the bypass), valid bits, kids, ranks. The set's
        // flip-flops (and stage 3's ranks) are chosen by a `case` over the sets, which
        // synthesis maps to a parallel multiplexer; a select at a run-time offset
        // (`x[s2_set * width +: width]`) became barrel shifters over the whole table that
        // Yosys' techmap did not finish in 8 minutes.
        s += &format!(
            "reg [{}:0] s2_vset;\nreg [{}:0] s2_kset;\nreg [{}:0] s2_rset;\nreg [{}:0] s3_rset;\n\
             always @(*) begin\n    s2_vset = 0;\n    s2_kset = 0;\n    s2_rset = 0;\n    s3_rset = 0;\n    case (s2_set)\n",
            w - 1,
            w * kb - 1,
            w * wb - 1,
            w * wb - 1
        );
        for set in 0..c.sets() {
            s += &format!(
                "        {sb}'d{set}: begin s2_vset = valid[{} +: {w}]; s2_kset = kidv[{} +: {}]; s2_rset = rank[{} +: {}]; end\n",
                set * w,
                set * w * kb,
                w * kb,
                set * w * wb,
                w * wb
            );
        }
        s += "        default: ;\n    endcase\n    case (s3_set)\n";
        for set in 0..c.sets() {
            s += &format!(
                "        {sb}'d{set}: s3_rset = rank[{} +: {}];\n",
                set * w * wb,
                w * wb
            );
        }
        s += "        default: ;\n    endcase\nend\n";
        for k in 0..w {
            s += &format!(
                "wire [{rbm}:0] row{k} = (fw_v && fw_set == s2_set && fw_way == {wb}'d{k}) ? fw_row : rows${k}$rdata;\n\
                 wire sv{k} = s2_vset[{k}];\n\
                 wire [{kbm}:0] sk{k} = s2_kset[{} +: {kb}];\n\
                 wire [{wbm}:0] sr{k} = s2_rset[{} +: {wb}];\n\
                 wire tag{k} = sv{k} && sk{k} == s2_kid && row{k}[{pm}:0] == s2_pc;\n\
                 wire mt{k} = s2_lk && tag{k};\n\
                 wire eq{k} = tag{k} && row{k}[{o_len} +: {lb}] == s2_len && row{k}[{o_ic} +: {icb}] == s2_ic;\n",
                k * kb,
                k * wb,
                rbm = rb - 1,
                kbm = kb - 1,
                wbm = wb - 1,
                pm = p - 1,
            );
        }
        // Order of each match among the matches (its rank among them: 0 = most recent).
        for k in 0..w {
            let terms: Vec<String> = (0..w)
                .filter(|&j| j != k)
                .map(|j| format!("{{{}'d0, (mt{j} && sr{j} < sr{k})}}", wb + 5))
                .collect();
            let sum = if terms.is_empty() {
                format!("{}'d0", wb + 6)
            } else {
                terms.join(" + ")
            };
            s += &format!("wire [{}:0] ord{k} = {sum};\n", wb + 5);
        }
        // Candidates.
        s += &format!(
            "reg [{}:0] c_valid;\nreg [{}:0] c_way;\nreg [{}:0] c_row;\nreg [{}:0] c_ic;\n",
            nc - 1,
            nc * wb - 1,
            nc * rb - 1,
            nc * ki * 10 - 1
        );
        s += "always @(*) begin\n    c_valid = 0;\n    c_way = 0;\n    c_row = 0;\n    c_ic = 0;\n";
        for ci in 0..nc {
            for k in 0..w {
                s += &format!(
                    "    if (mt{k} && ord{k} == {ci}) begin c_valid[{ci}] = 1'b1; c_way[{} +: {wb}] = {wb}'d{k}; c_row[{} +: {rb}] = row{k}; end\n",
                    ci * wb,
                    ci * rb
                );
            }
            for kk in 0..ki {
                s += &format!(
                    "    c_ic[{} +: 10] = c_row[{} +: 10];\n",
                    (ci * ki + kk) * 10,
                    ci * rb + o_ic + kk * slot
                );
            }
        }
        s += "end\n";
        // Upsert: found, victim.
        s += &format!(
            "reg u_found;\nreg [{wbm}:0] f_way;\nreg any_inv;\nreg [{wbm}:0] inv_way;\nreg [{wbm}:0] lru_way;\n\
             reg [{wbm}:0] u_way;\nreg wr_en;\nreg [{}:0] new_row;\n",
            rb - 1,
            wbm = wb - 1
        );
        s += "always @(*) begin\n    u_found = 1'b0;\n    f_way = 0;\n    any_inv = 1'b0;\n    inv_way = 0;\n    lru_way = 0;\n";
        for k in (0..w).rev() {
            s += &format!(
                "    if (eq{k}) begin u_found = 1'b1; f_way = {wb}'d{k}; end\n    \
                 if (!sv{k}) begin any_inv = 1'b1; inv_way = {wb}'d{k}; end\n    \
                 if (sr{k} == {wb}'d{}) lru_way = {wb}'d{k};\n",
                w - 1
            );
        }
        s += "    u_way = u_found ? f_way : (any_inv ? inv_way : lru_way);\n    wr_en = s2_up && !u_found;\n";
        s += &format!(
            "    new_row = {{s2_oc, s2_ic, s2_len, s2_npc, s2_pc}};\nend\n\
             wire [{}:0] u_idx = s2_set * {w} + u_way;\n",
            bits_for(e * 2) - 1
        );
        // Stage 3: value test of the captured candidates, longest len then MRU.
        s += &format!(
            "reg hit;\nreg [{wbm}:0] h_way;\nreg [{lbm}:0] h_len;\nreg [{rbm}:0] h_row;\nreg ok;\n\
             always @(*) begin\n    hit = 1'b0;\n    h_way = 0;\n    h_len = 0;\n    h_row = 0;\n",
            wbm = wb - 1,
            lbm = lb - 1,
            rbm = rb - 1
        );
        for ci in 0..nc {
            s += &format!("    ok = s3_v && s3_cv[{ci}];\n");
            for kk in 0..ki {
                let at = ci * rb + o_ic + kk * slot;
                s += &format!(
                    "    if (s3_row[{at}] && s3_row[{} +: {v}] != i_cv[{} +: {v}]) ok = 1'b0;\n",
                    at + 10,
                    (ci * ki + kk) * v
                );
            }
            s += &format!(
                "    if (ok && (!hit || s3_row[{} +: {lb}] > h_len)) begin hit = 1'b1; h_way = s3_way[{} +: {wb}]; h_len = s3_row[{} +: {lb}]; h_row = s3_row[{} +: {rb}]; end\n",
                ci * rb + o_len,
                ci * wb,
                ci * rb + o_len,
                ci * rb
            );
        }
        s += "end\n";
        // LRU: touch A (the upsert) on the stage-2 set, then touch B (a stage-3 hit).
        let touch = |name: &str, base: &str, way: &str| -> String {
            let mut t = format!("reg [{}:0] {name};\nalways @(*) begin\n", w * wb - 1);
            for k in 0..w {
                t += &format!(
                    "    if ({way} == {wb}'d{k}) {name}[{o} +: {wb}] = 0;\n    \
                     else if ({base}[{o} +: {wb}] < {base}[{way} * {wb} +: {wb}]) {name}[{o} +: {wb}] = {base}[{o} +: {wb}] + 1'b1;\n    \
                     else {name}[{o} +: {wb}] = {base}[{o} +: {wb}];\n",
                    o = k * wb
                );
            }
            t + "end\n"
        };
        let sr_all: Vec<String> = (0..w).rev().map(|k| format!("sr{k}")).collect();
        s += &format!(
            "wire [{}:0] rk_s2 = {{{}}};\n",
            w * wb - 1,
            sr_all.join(", ")
        );
        s += &touch("rk_a", "rk_s2", "u_way");
        s += &format!(
            "wire [{}:0] rk_s3 = (s2_up && s3_set == s2_set) ? rk_a : s3_rset;\n",
            w * wb - 1
        );
        s += &touch("rk_b", "rk_s3", "h_way");
        // Reset ranks: way k of every set has rank k.
        let init: Vec<bool> = (0..e * wb)
            .map(|b| ((b / wb) % w) >> (b % wb) & 1 == 1)
            .collect();
        s += &format!(
            "localparam [{}:0] RANK_INIT = {}'h{};\n",
            e * wb - 1,
            e * wb,
            hex(&init)
        );
        // Clocked state.
        s += "integer i;\nalways @(posedge clock) begin\n    if (reset) begin\n";
        s += "        valid <= 0;\n        rank <= RANK_INIT;\n        s2_lk <= 1'b0;\n        s2_up <= 1'b0;\n        fw_v <= 1'b0;\n        s3_v <= 1'b0;\n";
        s += "        res_valid <= 1'b0;\n        res_hit <= 1'b0;\n        res_way <= 0;\n        res_len <= 0;\n        res_npc <= 0;\n        res_oc <= 0;\n";
        s += "        up_done <= 1'b0;\n        up_found <= 1'b0;\n        up_evict <= 1'b0;\n        up_set <= 0;\n        up_way <= 0;\n    end else begin\n";
        // Stage 1 → 2.
        s += "        s2_lk <= lk_valid;\n        s2_up <= up_valid && !lk_valid;\n        s2_set <= lk_valid ? lk_set : up_set1;\n        s2_kid <= lk_valid ? lk_kid : up_kid;\n        s2_pc <= lk_valid ? lk_pc : up_pc;\n        s2_npc <= up_npc;\n        s2_len <= up_len;\n        s2_ic <= up_ic;\n        s2_oc <= up_oc;\n";
        // Stage 2: write, bypass, capture. Rows are written through a decoder over constant
        // indices (a run-time index on the left became a shifter over the whole table).
        s += &format!(
            "        fw_v <= wr_en;\n        fw_set <= s2_set;\n        fw_way <= u_way;\n        fw_row <= new_row;\n\
             \x20       if (wr_en) for (i = 0; i < {e}; i = i + 1)\n\
             \x20           if (u_idx == i) begin valid[i] <= 1'b1; kidv[i * {kb} +: {kb}] <= s2_kid; end\n\
             \x20       if (s2_up || hit) for (i = 0; i < {sets}; i = i + 1) begin\n\
             \x20           if (s2_up && s2_set == i) rank[i * {ww} +: {ww}] <= rk_a;\n\
             \x20           if (hit && s3_set == i) rank[i * {ww} +: {ww}] <= rk_b;\n\
             \x20       end\n\
             \x20       up_done <= s2_up;\n        up_found <= s2_up && u_found;\n        up_evict <= wr_en && !any_inv;\n\
             \x20       up_set <= s2_up ? s2_set : {sb}'d0;\n        up_way <= s2_up ? u_way : {wb}'d0;\n\
             \x20       s3_v <= s2_lk;\n        s3_set <= s2_set;\n        s3_cv <= c_valid;\n        s3_way <= c_way;\n        s3_row <= c_row;\n\
             \x20       res_valid <= s3_v;\n        res_hit <= hit;\n        res_way <= h_way;\n        res_len <= h_len;\n\
             \x20       res_npc <= hit ? h_row[{o_npc} +: {p}] : {p}'d0;\n        res_oc <= hit ? h_row[{o_oc} +: {ocb}] : {ocb}'d0;\n",
            ww = w * wb,
            sets = c.sets()
        );
        // Kernel retire and flush, after the insert.
        s += &format!(
            "        if (inv_valid) for (i = 0; i < {e}; i = i + 1)\n\
             \x20           if ((wr_en && i == u_idx) ? (s2_kid == inv_kid) : (kidv[i * {kb} +: {kb}] == inv_kid)) valid[i] <= 1'b0;\n\
             \x20       if (flush) valid <= 0;\n    end\nend\n"
        );
        // Outputs from state.
        s += "always @(*) begin\n    cand_valid = s2_lk ? c_valid : 0;\n    cand_way = s2_lk ? c_way : 0;\n    cand_ic = s2_lk ? c_ic : 0;\n    dbg_valid = valid;\n    dbg_rank = rank;\nend\n";
        // RAM ports.
        s += "always @(*) begin\n";
        for k in 0..w {
            s += &format!(
                "    rows${k}$clock = clock;\n    rows${k}$re = lk_valid | up_valid;\n    \
                 rows${k}$raddr = lk_valid ? lk_set : up_set1;\n    \
                 rows${k}$we = wr_en && (u_way == {wb}'d{k});\n    rows${k}$waddr = s2_set;\n    \
                 rows${k}$wdata = new_row;\n    rows${k}$wbe = 1'b1;\n"
            );
        }
        s += "end\n";
        let _ = ko;
        s
    }
}

fn bits_for(n: usize) -> usize {
    crate::primitives::bits_for(n)
}

/// A bit vector (bit 0 first) as hex digits, most significant first.
fn hex(bits: &[bool]) -> String {
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

impl Logic for Mtt {
    fn update(&mut self) {}
    fn connect(&mut self) {
        for o in [
            &mut self.cand_valid,
            &mut self.cand_way,
            &mut self.cand_ic,
            &mut self.res_way,
            &mut self.res_len,
            &mut self.res_npc,
            &mut self.res_oc,
            &mut self.up_set,
            &mut self.up_way,
            &mut self.dbg_valid,
            &mut self.dbg_rank,
        ] {
            o.connect();
        }
        self.res_valid.connect();
        self.res_hit.connect();
        self.up_done.connect();
        self.up_found.connect();
        self.up_evict.connect();
        for r in &mut self.rows {
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
        Verilog::Custom(self.verilog())
    }
}

/// Verilog of one dtm-mtt configuration.
pub fn generate(cfg: &MttConfig) -> Design {
    let mut block = Mtt::new(cfg);
    emit(&mut block, &cfg.module_name())
}
