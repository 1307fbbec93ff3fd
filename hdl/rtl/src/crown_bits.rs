//! Lane-field helpers shared by the CROWN tables. A CROWN table keeps, per row and lane, a
//! thread index (and the barrier table a PC per probed lane); these blocks compare and merge
//! such fields for every row at once. `#[hdl_gen]` kernels have no part-selects with computed
//! bounds, so each is Verilog written out field by field (constant part-selects, which
//! Verilator compiles to word operations), like [`crate::primitives::Concat`].

use crate::primitives::{bits_for, Wire};
use rust_hdl::prelude::*;

/// Number of ones in `x`.
#[derive(LogicBlock)]
pub struct PopCount {
    pub x: Wire<In>,
    pub count: Wire<Out>,
}

impl PopCount {
    pub fn new(width: usize) -> PopCount {
        PopCount {
            x: Wire::new(width),
            count: Wire::new(bits_for(width)),
        }
    }
}

impl Logic for PopCount {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.count.connect();
    }
    fn hdl(&self) -> Verilog {
        let w = self.x.width();
        if w == 1 {
            // A scalar has no bit select.
            return Verilog::Custom("always @(*) count = x;\n".into());
        }
        let terms: Vec<String> = (0..w).map(|i| format!("x[{i}]")).collect();
        Verilog::Custom(format!(
            "always @(*) count = {}'d0 + {};\n",
            self.count.width(),
            terms.join(" + ")
        ))
    }
}

/// A table of `rows × lanes` fields of `f` bits (field `(r, l)` at `(r·lanes + l)·f`) rebuilt
/// from its old contents and two per-lane sources: field `(r, l)` becomes
/// `(keep[r·lanes+l] ? base(r, l) : 0) | (a_lanes[r·lanes+l] ? a(l) : 0) |
/// (b_lanes[r·lanes+l] ? b(l) : 0)`. Used to write the thread indices of the lanes an insert
/// merges into or allocates in each row, and to clear freed rows.
#[derive(LogicBlock)]
pub struct LaneMerge {
    pub base: Wire<In>,
    pub keep: Wire<In>,
    pub a: Wire<In>,
    pub a_lanes: Wire<In>,
    pub b: Wire<In>,
    pub b_lanes: Wire<In>,
    pub merged: Wire<Out>,
    _rows: usize,
    _lanes: usize,
    _f: usize,
}

impl LaneMerge {
    pub fn new(rows: usize, lanes: usize, f: usize) -> LaneMerge {
        LaneMerge {
            base: Wire::new(rows * lanes * f),
            keep: Wire::new(rows * lanes),
            a: Wire::new(lanes * f),
            a_lanes: Wire::new(rows * lanes),
            b: Wire::new(lanes * f),
            b_lanes: Wire::new(rows * lanes),
            merged: Wire::new(rows * lanes * f),
            _rows: rows,
            _lanes: lanes,
            _f: f,
        }
    }
}

impl Logic for LaneMerge {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.merged.connect();
    }
    fn hdl(&self) -> Verilog {
        let (n, w, f) = (self._rows * self._lanes, self._lanes, self._f);
        let mut code = String::from("always @(*) begin\n");
        for i in 0..n {
            let (lo, src) = (i * f, (i % w) * f);
            code += &format!(
                "    merged[{hi}:{lo}] = (keep[{i}] ? base[{hi}:{lo}] : {f}'d0) | (a_lanes[{i}] ? a[{sh}:{src}] : {f}'d0) | (b_lanes[{i}] ? b[{sh}:{src}] : {f}'d0);\n",
                hi = lo + f - 1,
                sh = src + f - 1
            );
        }
        code += "end\n";
        Verilog::Custom(code)
    }
}

/// Per-lane equality of a table's fields with one vector's: `eq[r·lanes + l]` = field
/// `(r, l)` of `fields` equals field `l` of `v` (`f`-bit fields). The barrier table's tag
/// compare, one row per way of the lanes' sets.
#[derive(LogicBlock)]
pub struct LaneEq {
    pub fields: Wire<In>,
    pub v: Wire<In>,
    pub eq: Wire<Out>,
    _lanes: usize,
    _f: usize,
    _vs: usize,
}

impl LaneEq {
    pub fn new(rows: usize, lanes: usize, f: usize) -> LaneEq {
        LaneEq::strided(rows, lanes, f, f)
    }
    /// `v`'s lane `l` is the low `f` bits of its `vs`-bit field `l` (a thread index's
    /// in-set bits).
    pub fn strided(rows: usize, lanes: usize, f: usize, vs: usize) -> LaneEq {
        LaneEq {
            fields: Wire::new(rows * lanes * f),
            v: Wire::new(lanes * vs),
            eq: Wire::new(rows * lanes),
            _lanes: lanes,
            _f: f,
            _vs: vs,
        }
    }
}

impl Logic for LaneEq {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.eq.connect();
    }
    fn hdl(&self) -> Verilog {
        let (n, w, f) = (self.eq.width(), self._lanes, self._f);
        let mut code = String::from("always @(*) begin\n");
        for i in 0..n {
            let (lo, src) = (i * f, (i % w) * self._vs);
            code += &format!(
                "    eq[{i}] = fields[{hi}:{lo}] == v[{sh}:{src}];\n",
                hi = lo + f - 1,
                sh = src + f - 1
            );
        }
        code += "end\n";
        Verilog::Custom(code)
    }
}

/// Every pair's equality: `eq[r·m + j]` = field `r` of `rows` equals field `j` of `v`
/// (`f`-bit fields). The barrier table uses one row: the reservation's R against each probed
/// lane's next PC (the arrival check of the entries written this cycle); the table's own
/// entries are compared through the lanes' set reads ([`SetRead`], [`LaneEq`]).
#[derive(LogicBlock)]
pub struct CrossEq {
    pub rows: Wire<In>,
    pub v: Wire<In>,
    pub eq: Wire<Out>,
    _m: usize,
    _f: usize,
}

impl CrossEq {
    pub fn new(n: usize, m: usize, f: usize) -> CrossEq {
        CrossEq {
            rows: Wire::new(n * f),
            v: Wire::new(m * f),
            eq: Wire::new(n * m),
            _m: m,
            _f: f,
        }
    }
}

impl Logic for CrossEq {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.eq.connect();
    }
    fn hdl(&self) -> Verilog {
        let (nm, m, f) = (self.eq.width(), self._m, self._f);
        let mut code = String::from("always @(*) begin\n");
        for i in 0..nm {
            let (lo, src) = ((i / m) * f, (i % m) * f);
            code += &format!(
                "    eq[{i}] = rows[{hi}:{lo}] == v[{sh}:{src}];\n",
                hi = lo + f - 1,
                sh = src + f - 1
            );
        }
        code += "end\n";
        Verilog::Custom(code)
    }
}

/// Which lanes of a warp belong to each entry's set: `masks[e·lanes + l]` = the set of lane
/// `l`'s thread (the high `set_bits` bits of its `thi_bits`-bit thread index, field `l` of
/// `thi`) is entry `e`'s set, `e / ways` (A7).
#[derive(LogicBlock)]
pub struct SetMasks {
    pub thi: Wire<In>,
    pub masks: Wire<Out>,
    _lanes: usize,
    _ways: usize,
    _thi_bits: usize,
    _set_bits: usize,
}

impl SetMasks {
    pub fn new(
        entries: usize,
        ways: usize,
        lanes: usize,
        thi_bits: usize,
        set_bits: usize,
    ) -> Self {
        SetMasks {
            thi: Wire::new(lanes * thi_bits),
            masks: Wire::new(entries * lanes),
            _lanes: lanes,
            _ways: ways,
            _thi_bits: thi_bits,
            _set_bits: set_bits,
        }
    }
}

impl Logic for SetMasks {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.masks.connect();
    }
    fn hdl(&self) -> Verilog {
        let (n, w, ways, t, sb) = (
            self.masks.width(),
            self._lanes,
            self._ways,
            self._thi_bits,
            self._set_bits,
        );
        let mut code = String::from("always @(*) begin\n");
        for i in 0..n {
            if sb == 0 {
                code += &format!("    masks[{i}] = 1'b1;\n");
            } else {
                let lo = (i % w) * t + t - sb;
                code += &format!(
                    "    masks[{i}] = thi[{hi}:{lo}] == {sb}'d{set};\n",
                    hi = lo + sb - 1,
                    set = (i / w) / ways
                );
            }
        }
        code += "end\n";
        Verilog::Custom(code)
    }
}

/// CTA tags of `rows` warps (A14, `merge_scope = cta`): `tag[r]` = OR over the lanes `l` set
/// in `lanes[r·w + l]` of `thi(r, l) & mask` (`f`-bit thread indices, field `(r, l)` at
/// `(r·w + l)·f`). Every lane of a warp of one CTA gives the same value, so the OR is that
/// CTA's tag without a priority pick; with `mask` 0 every tag is 0 (the thesis's match rule).
#[derive(LogicBlock)]
pub struct CtaTag {
    pub thi: Wire<In>,
    pub lanes: Wire<In>,
    pub mask: Wire<In>,
    pub tag: Wire<Out>,
    _rows: usize,
    _lanes: usize,
}

impl CtaTag {
    pub fn new(rows: usize, lanes: usize, f: usize) -> CtaTag {
        CtaTag {
            thi: Wire::new(rows * lanes * f),
            lanes: Wire::new(rows * lanes),
            mask: Wire::new(f),
            tag: Wire::new(rows * f),
            _rows: rows,
            _lanes: lanes,
        }
    }
}

impl Logic for CtaTag {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.tag.connect();
    }
    fn hdl(&self) -> Verilog {
        let (w, f) = (self._lanes, self.mask.width());
        // A one-bit port has no bit select.
        let lane = |i: usize| {
            if self._rows * w == 1 {
                "lanes".to_string()
            } else {
                format!("lanes[{i}]")
            }
        };
        let mut code = String::from("always @(*) begin\n");
        for r in 0..self._rows {
            let terms: Vec<String> = (0..w)
                .map(|l| {
                    let i = r * w + l;
                    format!("({} ? thi[{}:{}] : {f}'d0)", lane(i), i * f + f - 1, i * f)
                })
                .collect();
            code += &format!(
                "    tag[{}:{}] = ({}) & mask;\n",
                r * f + f - 1,
                r * f,
                terms.join(" | ")
            );
        }
        code += "end\n";
        Verilog::Custom(code)
    }
}

/// A part-select `[hi:lo]`, or nothing for a one-bit vector (Verilog cannot bit-select a
/// scalar).
fn sel(width: usize, hi: usize, lo: usize) -> String {
    if width == 1 {
        String::new()
    } else if hi == lo {
        format!("[{lo}]")
    } else {
        format!("[{hi}:{lo}]")
    }
}

/// The per-lane set read of §3.4.5 ("parallel per-lane set reads"): lane `l` selects the
/// `ways` entries of its thread's set (the high `set_bits` of its `thi_bits`-bit thread
/// index, field `l` of `thi`), a `sets`:1 multiplexer per field. `fields` holds `per` bits
/// per entry (entry `e = set·ways + way` at `e·per`); lane `l` reads bits `l·lane_stride ..
/// + f` of each, to `read` field `way·lanes + l` (`f` bits). A thread can only match an
/// entry of its own set, so the tag compare needs `ways × lanes` comparators, not
/// `entries × lanes`.
#[derive(LogicBlock)]
pub struct SetRead {
    pub fields: Wire<In>,
    pub thi: Wire<In>,
    pub read: Wire<Out>,
    _sets: usize,
    _ways: usize,
    _lanes: usize,
    _per: usize,
    _stride: usize,
    _f: usize,
    _thi_bits: usize,
    _set_bits: usize,
}

impl SetRead {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        sets: usize,
        ways: usize,
        lanes: usize,
        per: usize,
        lane_stride: usize,
        f: usize,
        thi_bits: usize,
        set_bits: usize,
    ) -> SetRead {
        SetRead {
            fields: Wire::new(sets * ways * per),
            thi: Wire::new(lanes * thi_bits),
            read: Wire::new(ways * lanes * f),
            _sets: sets,
            _ways: ways,
            _lanes: lanes,
            _per: per,
            _stride: lane_stride,
            _f: f,
            _thi_bits: thi_bits,
            _set_bits: set_bits,
        }
    }
}

impl Logic for SetRead {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.read.connect();
    }
    fn hdl(&self) -> Verilog {
        let (ways, w, per, f, t, sb) = (
            self._ways,
            self._lanes,
            self._per,
            self._f,
            self._thi_bits,
            self._set_bits,
        );
        let (rw, fw, tw) = (self.read.width(), self.fields.width(), self.thi.width());
        // A binary tree of 2:1 multiplexers on the set bits (FPGA tools pack these into
        // LUTs and their wide-mux cells; a case statement became a one-hot select).
        fn tree(
            sets: std::ops::Range<usize>,
            bit: usize,
            leaf: &dyn Fn(usize) -> String,
            sel_bit: &dyn Fn(usize) -> String,
        ) -> String {
            if sets.len() == 1 {
                return leaf(sets.start);
            }
            let mid = sets.start + sets.len() / 2;
            format!(
                "({} ? {} : {})",
                sel_bit(bit - 1),
                tree(mid..sets.end, bit - 1, leaf, sel_bit),
                tree(sets.start..mid, bit - 1, leaf, sel_bit)
            )
        }
        let mut code = String::from("always @(*) begin\n");
        for l in 0..w {
            // Bit `b` of lane `l`'s set: bit `t - sb + b` of its thread index.
            let sel_bit = |b: usize| {
                let i = l * t + t - sb + b;
                format!("thi{}", sel(tw, i, i))
            };
            for way in 0..ways {
                let dst = (way * w + l) * f;
                let leaf = |s: usize| {
                    let src = (s * ways + way) * per + l * self._stride;
                    format!("fields{}", sel(fw, src + f - 1, src))
                };
                code += &format!(
                    "    read{} = {};\n",
                    sel(rw, dst + f - 1, dst),
                    tree(0..self._sets, sb, &leaf, &sel_bit)
                );
            }
        }
        code += "end\n";
        Verilog::Custom(code)
    }
}

/// Back from the lanes' set reads to the table's entries: `hit[e·lanes + l]` = `a` and `b`
/// at field `(e mod ways)·lanes + l` (the lane's compare with the way of `e` in its own set)
/// and `masks[e·lanes + l]` (`e` is in lane `l`'s set, [`SetMasks`]).
#[derive(LogicBlock)]
pub struct SetScatter {
    pub a: Wire<In>,
    pub b: Wire<In>,
    pub masks: Wire<In>,
    pub hit: Wire<Out>,
    _ways: usize,
    _lanes: usize,
}

impl SetScatter {
    pub fn new(entries: usize, ways: usize, lanes: usize) -> SetScatter {
        SetScatter {
            a: Wire::new(ways * lanes),
            b: Wire::new(ways * lanes),
            masks: Wire::new(entries * lanes),
            hit: Wire::new(entries * lanes),
            _ways: ways,
            _lanes: lanes,
        }
    }
}

impl Logic for SetScatter {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.hit.connect();
    }
    fn hdl(&self) -> Verilog {
        let (n, w, ways) = (self.hit.width(), self._lanes, self._ways);
        let (aw, hw) = (self.a.width(), self.hit.width());
        let mut code = String::from("always @(*) begin\n");
        for i in 0..n {
            let j = ((i / w) % ways) * w + i % w;
            code += &format!(
                "    hit{h} = a{s} & b{s} & masks{h};\n",
                h = sel(hw, i, i),
                s = sel(aw, j, j)
            );
        }
        code += "end\n";
        Verilog::Custom(code)
    }
}

/// One-hot read: `out` = OR over `n` fields of `data` (`f` bits each) of field `i` where
/// `sel[i]`, and `index` = OR of those `i`. With at most one `sel` bit set (the head: one
/// complete entry has rank 0) this is that field, without a priority chain.
#[derive(LogicBlock)]
pub struct OrSelect {
    pub sel: Wire<In>,
    pub data: Wire<In>,
    pub out: Wire<Out>,
    pub index: Wire<Out>,
}

impl OrSelect {
    pub fn new(n: usize, f: usize) -> OrSelect {
        OrSelect {
            sel: Wire::new(n),
            data: Wire::new(n * f),
            out: Wire::new(f),
            index: Wire::new(bits_for(n.max(2) - 1)),
        }
    }
}

impl Logic for OrSelect {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.out.connect();
        self.index.connect();
    }
    fn hdl(&self) -> Verilog {
        let (n, f, ib) = (self.sel.width(), self.out.width(), self.index.width());
        let dw = self.data.width();
        let s = |i: usize| format!("sel{}", sel(n, i, i));
        let terms: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    "({} ? data{} : {f}'d0)",
                    s(i),
                    sel(dw, i * f + f - 1, i * f)
                )
            })
            .collect();
        let idx: Vec<String> = (1..n)
            .map(|i| format!("({} ? {ib}'d{i} : {ib}'d0)", s(i)))
            .collect();
        let idx = if idx.is_empty() {
            format!("{ib}'d0")
        } else {
            idx.join(" | ")
        };
        Verilog::Custom(format!(
            "always @(*) begin\n    out = {};\n    index = {idx};\nend\n",
            terms.join(" | ")
        ))
    }
}
