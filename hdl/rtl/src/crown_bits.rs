//! Lane-field helpers shared by the CROWN tables. A CROWN table keeps, per row and lane, a
//! thread index (and the barrier table a PC per probed lane); these blocks compare and merge
//! such fields for every row at once. `#[hdl_gen]` kernels have no part-selects with computed
//! bounds, so each is a few lines of Verilog with constant loop bounds (unrolled by every
//! tool), like [`crate::primitives::Concat`].

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
        let (w, cb) = (self.x.width(), self.count.width());
        Verilog::Custom(format!(
            "integer i;\nalways @(*) begin\n    count = {cb}'d0;\n    for (i = 0; i < {w}; i = i + 1)\n        count = count + x[i];\nend\n"
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
        Verilog::Custom(format!(
            "integer i;\nalways @(*) begin\n    for (i = 0; i < {n}; i = i + 1)\n        merged[i*{f} +: {f}] = (keep[i] ? base[i*{f} +: {f}] : {f}'d0)\n            | (a_lanes[i] ? a[(i%{w})*{f} +: {f}] : {f}'d0)\n            | (b_lanes[i] ? b[(i%{w})*{f} +: {f}] : {f}'d0);\nend\n"
        ))
    }
}

/// Per-lane equality of a table's fields with one vector's: `eq[r·lanes + l]` = field
/// `(r, l)` of `fields` equals field `l` of `v` (`f`-bit fields). The thread-index half of
/// the barrier table's tag compare.
#[derive(LogicBlock)]
pub struct LaneEq {
    pub fields: Wire<In>,
    pub v: Wire<In>,
    pub eq: Wire<Out>,
    _lanes: usize,
    _f: usize,
}

impl LaneEq {
    pub fn new(rows: usize, lanes: usize, f: usize) -> LaneEq {
        LaneEq {
            fields: Wire::new(rows * lanes * f),
            v: Wire::new(lanes * f),
            eq: Wire::new(rows * lanes),
            _lanes: lanes,
            _f: f,
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
        Verilog::Custom(format!(
            "integer i;\nalways @(*) begin\n    for (i = 0; i < {n}; i = i + 1)\n        eq[i] = fields[i*{f} +: {f}] == v[(i%{w})*{f} +: {f}];\nend\n"
        ))
    }
}

/// Every pair's equality: `eq[r·m + j]` = field `r` of `rows` equals field `j` of `v`
/// (`f`-bit fields). The PC half of the barrier table's tag compare, a row's R against each
/// probed lane's next PC.
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
        Verilog::Custom(format!(
            "integer i;\nalways @(*) begin\n    for (i = 0; i < {nm}; i = i + 1)\n        eq[i] = rows[(i/{m})*{f} +: {f}] == v[(i%{m})*{f} +: {f}];\nend\n"
        ))
    }
}
