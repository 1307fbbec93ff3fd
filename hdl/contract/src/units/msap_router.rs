//! `msap-router`: one mesh router of the MSAP network (spec/msap.md §2.5, §3.4): 5 ports,
//! input-queued, credit-based wormhole, XY routing, one VC per port (the paper's V = 1; 2 or 4
//! with separable allocators, below), MSAA
//! arbitration by the packet's latched PL at every output port (`msaa_en = false`: the
//! baseline round-robin router).
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::msap_router`)
//! and the model (`warpforge_testbench::msap_router`) are written from it independently.
//!
//! # Ports and flits
//!
//! Port p ∈ {0 Local, 1 North (y−1), 2 East (x+1), 3 South (y+1), 4 West (x−1)}; p is also the
//! requester index of every output arbiter. A flit is `flit_bits` wide, fields from bit 0:
//! `head`, `tail`, `dst_x` (xb = ⌈log2 mesh_x⌉), `dst_y` (yb), `pl` (pl_bits), `payload`.
//! `dst = {dst_y, dst_x}` is the §2.1 node id `mesh_x·y + x` when `mesh_x` is a power of two.
//! Only a head flit's `dst` and `pl` are read; body and tail flits inherit them. The router
//! never changes a flit.
//!
//! # State
//!
//! Per input p: a FIFO of `buf_depth` flits (a RAM, read one row at a time) plus the front
//! register `front` (the row read last; valid flag `fv`); `state` ∈ {IDLE 0, VA 1, ACTIVE 2},
//! the latched route `route` and PL `vcpl`. Per output o: `busy[o]` with owner `owner[o]`,
//! the credit counter `credit[o]` (reset `buf_depth`: the downstream buffer is as deep), the
//! output register (`out_valid`, `out_flit`); per input the credit-return register. One
//! `msap-arbiter` per output port (n = 5, the arbiter contract's state: pointers, loss
//! counters).
//!
//! # One cycle (everything from the state at the start of the cycle and this cycle's inputs)
//!
//! ```text
//! route(f)  = f.dst_x > x ? E : f.dst_x < x ? W : f.dst_y > y ? S : f.dst_y < y ? N : Local
//! rc[p]     = state[p] == IDLE && fv[p] && front[p].head                      // RC this cycle
//! want[p]   = state[p] == VA  ||  (pipe_stages <= 3 && rc[p])                 // requests VA
//! wroute[p] = state[p] == VA ? route[p] : route(front[p]);  wpl[p] likewise (vcpl / front.pl)
//! VA        : per output o, requesters p with want[p] && wroute[p] == o && !busy[o]; the
//!             arbiter (PL = wpl) grants g, always committed: busy[o] = 1, owner[o] = g
//! go[p]     = fv[p] && credit[route(p)] > 0 &&
//!             (state[p] == ACTIVE || (pipe_stages == 2 && granted[p]))        // SA + ST
//!             where route(p) is the route the input owns (granted this cycle or latched)
//! ```
//!
//! At the edge: `rc[p]` latches `route = route(front)`, `vcpl = front.pl` and moves to VA
//! (with `pipe_stages = 4` always; with ≤ 3 only if not granted). A grant moves the input to
//! ACTIVE. `go[p]` copies `front[p]` into output `route(p)`'s register (`out_valid` = 1,
//! else 0) and decrements its credit; a `go` with a tail flit frees the output and returns
//! the input to IDLE. `out_credit[o]` adds one credit (both in one cycle: unchanged). The
//! front refills when `count[p] > 0 && (!fv[p] || go[p])`: the RAM row is read (the row is free
//! from now: `in_credit[p]` = 1 in the next cycle), `fv` = 1; otherwise `fv &= !go`. An
//! `in_valid[p]` flit is written into the RAM at the edge (counted from the next cycle).
//!
//! Latency, uncontended: a head on `in_*` in cycle a is in the RAM from a+1, in the front from
//! a+2, and on `out_*` in a + 1 + pipe_stages: with 4 stages RC a+2, VA a+3, SA a+4, on the
//! output (ST, the link register) a+5; 3 folds RC into VA, 2 also SA into VA. A released
//! output is granted again from the next cycle.
//!
//! # Inputs
//!
//! `reset` (synchronous: buffers empty, IDLE, credits `buf_depth`, arbiters reset), per port
//! `in_valid`, `in_flit` (only with upstream credit: a flit into a full buffer is a protocol
//! error), `out_credit` (one credit per cycle and port, never above `buf_depth`).
//!
//! # V > 1 (`vcs` = 2 or 4; 4 stages, no ageing)
//!
//! The flit gains `vc` (⌈log2 V⌉ bits) after `tail`; `in_valid[p]` writes the flit into the
//! buffer of input VC q = p·V + vc. Everything per input above is per input VC q (buffer,
//! front, `state`, `route`, `vcpl`, plus `ovc`, the output VC it holds; `in_credit` bit q);
//! `busy`, `owner` (= q) and `credit` are per output VC o·V + w (`out_credit` bit o·V + w).
//!
//! ```text
//! free[o]   = some w with !busy[o][w];  fw[o] = the lowest such w
//! VA  s1[p] : arbiter over v with state[q] == VA && free[route[q]]           (n = V, PL vcpl)
//!     s2[o] : arbiter over inputs p whose s1 winner routes to o      (n = 5, PL its vcpl)
//!             grant g: output VC (o, fw[o]) busy, owner q; q ACTIVE, ovc[q] = fw[o]
//! SA  s1[p] : arbiter over v with state[q] == ACTIVE && fv[q] && credit[route[q]][ovc[q]] > 0
//!     s2[o] : arbiter over inputs p whose s1 winner routes to o
//!             grant g: go[q] — front[q] with vc = ovc[q] into output o's register, credit
//!             of (o, ovc) − 1, a tail frees (o, ovc) and returns q to IDLE
//! ```
//!
//! With `static_vc` (set by `msap-noc`, not a parameter of the router alone) VA of input VC
//! q = p·V + v asks only while output VC (route, v) is free and is granted that VC: a packet
//! keeps its VC at every hop (§6 item 16's static VC per flow, so a flow stays in order).
//!
//! Stage-2 arbiters commit every grant; a stage-1 arbiter commits only when its input won
//! stage 2 (§2.6, iSLIP). VA and SA read only the state at the start of the cycle. RC, buffer
//! reads and credit returns are as for V = 1, per input VC.
//!
//! # Storage
//!
//! Base (any VC router): flit buffers, fronts, occupancy counters, state, route, owner, busy,
//! credits, output and credit registers, the RR pointer per output. Counted (MSAA): the
//! latched PL per input (`vcpl`, §2.10). Extra: the arbiters' other level pointers and loss
//! counters.

use super::msap::PL_BITS;
use super::msap_arbiter::{ArbiterConfig, AGE_THRESH, MSAA_EN, RR_PTR};
use super::ram::RamConfig;
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "msap-router";

/// Ports; the index is the arbiter requester index (§2.5).
pub const PORTS: usize = 5;
pub const LOCAL: usize = 0;
pub const NORTH: usize = 1;
pub const EAST: usize = 2;
pub const SOUTH: usize = 3;
pub const WEST: usize = 4;

/// Input states.
pub const IDLE: u64 = 0;
pub const VA: u64 = 1;
pub const ACTIVE: u64 = 2;

pub const MESH_X: ParamSpec = ParamSpec::int("mesh_x", 2, 16, 8, "mesh columns (MESH_X)");
pub const MESH_Y: ParamSpec = ParamSpec::int("mesh_y", 2, 16, 8, "mesh rows (MESH_Y)");
pub const X: ParamSpec = ParamSpec::int("x", 0, 15, 3, "this router's column (< mesh_x)");
pub const Y: ParamSpec = ParamSpec::int("y", 0, 15, 3, "this router's row (< mesh_y)");
pub const VCS: ParamSpec = ParamSpec::int(
    "vcs",
    1,
    4,
    1,
    "virtual channels per port (V: 1, the paper's, 2 or 4)",
);
pub const BUF_DEPTH: ParamSpec = ParamSpec::int(
    "buf_depth",
    2,
    16,
    8,
    "flits per input buffer, a power of two (a block RAM)",
);
pub const PIPE_STAGES: ParamSpec = ParamSpec::int(
    "pipe_stages",
    2,
    4,
    4,
    "router stages: 4 = RC, VA, SA, ST; 3 folds RC into VA; 2 also SA",
);
pub const PAYLOAD_BITS: ParamSpec = ParamSpec::int(
    "payload_bits",
    1,
    32,
    16,
    "flit bits the router carries unread",
);

pub const PARAMS: &[ParamSpec] = &[
    MESH_X,
    MESH_Y,
    X,
    Y,
    VCS,
    BUF_DEPTH,
    PIPE_STAGES,
    PL_BITS,
    PAYLOAD_BITS,
    MSAA_EN,
    RR_PTR,
    AGE_THRESH,
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouterConfig {
    pub mesh_x: usize,
    pub mesh_y: usize,
    pub x: usize,
    pub y: usize,
    pub vcs: usize,
    pub buf_depth: usize,
    pub pipe_stages: usize,
    pub pl_bits: usize,
    pub payload_bits: usize,
    pub msaa_en: bool,
    pub shared_ptr: bool,
    pub age_thresh: usize,
    /// V > 1: a packet keeps its VC at every hop (VA asks for the output VC of its own input
    /// VC's index; §6 item 16's static VC per flow). `msap-noc` sets it; the router unit
    /// alone takes the lowest free VC.
    pub static_vc: bool,
}

impl Default for RouterConfig {
    fn default() -> Self {
        RouterConfig {
            mesh_x: 8,
            mesh_y: 8,
            x: 3,
            y: 3,
            vcs: 1,
            buf_depth: 8,
            pipe_stages: 4,
            pl_bits: 3,
            payload_bits: 16,
            msaa_en: true,
            shared_ptr: false,
            age_thresh: 0,
            static_vc: false,
        }
    }
}

impl RouterConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let c = RouterConfig {
            mesh_x: p.usize("mesh_x"),
            mesh_y: p.usize("mesh_y"),
            x: p.usize("x"),
            y: p.usize("y"),
            vcs: p.usize("vcs"),
            buf_depth: p.usize("buf_depth"),
            pipe_stages: p.usize("pipe_stages"),
            pl_bits: p.usize("pl_bits"),
            payload_bits: p.usize("payload_bits"),
            msaa_en: p.bool("msaa_en"),
            shared_ptr: p.str("rr_ptr") == "shared",
            age_thresh: p.usize("age_thresh"),
            static_vc: false,
        };
        if c.x >= c.mesh_x {
            return Err(ParamError(format!(
                "x = {}: must be below mesh_x = {} (the router sits inside the mesh)",
                c.x, c.mesh_x
            )));
        }
        if c.y >= c.mesh_y {
            return Err(ParamError(format!(
                "y = {}: must be below mesh_y = {} (the router sits inside the mesh)",
                c.y, c.mesh_y
            )));
        }
        if !c.buf_depth.is_power_of_two() {
            return Err(ParamError(format!(
                "buf_depth = {}: must be a power of two (2, 4, 8, 16: the buffer is a block RAM)",
                c.buf_depth
            )));
        }
        if c.vcs == 3 {
            return Err(ParamError(
                "vcs = 3: must be 1, 2 or 4 (a power of two: the flit's vc field indexes it)"
                    .into(),
            ));
        }
        if c.vcs > 1 && c.pipe_stages != 4 {
            return Err(ParamError(format!(
                "pipe_stages = {}: must be 4 with vcs > 1 (the folded pipelines are built for V = 1)",
                c.pipe_stages
            )));
        }
        if c.vcs > 1 && c.age_thresh > 0 {
            return Err(ParamError(format!(
                "age_thresh = {}: must be 0 with vcs > 1 (per-VC loss counters are built for V = 1)",
                c.age_thresh
            )));
        }
        if c.age_thresh > 0 && !c.msaa_en {
            return Err(ParamError(format!(
                "age_thresh = {}: must be 0 with msaa_en = false (every requester is at level 0)",
                c.age_thresh
            )));
        }
        Ok(c)
    }

    /// The per-output-port VA arbiter (requester index = input port).
    pub fn arbiter(&self) -> ArbiterConfig {
        ArbiterConfig::new(
            PORTS,
            self.pl_bits,
            self.msaa_en,
            self.shared_ptr,
            self.age_thresh,
        )
    }
    /// Stage-1 arbiter of a separable allocator (V > 1): per input port over its V VCs.
    pub fn arbiter1(&self) -> ArbiterConfig {
        ArbiterConfig::new(self.vcs, self.pl_bits, self.msaa_en, self.shared_ptr, 0)
    }
    /// Bits of the flit's `vc` field: 0 with V = 1.
    pub fn vb(&self) -> usize {
        if self.vcs > 1 {
            index_bits(self.vcs)
        } else {
            0
        }
    }
    /// Input VCs (and output VCs): 5·V; input VC q is port q / V, VC q % V.
    pub fn nq(&self) -> usize {
        PORTS * self.vcs
    }
    /// Owner field of an output VC: the owning input VC p·V + v.
    pub fn owner_bits(&self) -> usize {
        3 + self.vb()
    }
    pub fn vc_at(&self) -> usize {
        2
    }
    pub fn xb(&self) -> usize {
        index_bits(self.mesh_x)
    }
    pub fn yb(&self) -> usize {
        index_bits(self.mesh_y)
    }
    /// Flit field offsets: head 0, tail 1, vc (V > 1), dst_x, dst_y, pl, payload.
    pub fn dst_x_at(&self) -> usize {
        2 + self.vb()
    }
    pub fn dst_y_at(&self) -> usize {
        self.dst_x_at() + self.xb()
    }
    pub fn pl_at(&self) -> usize {
        self.dst_y_at() + self.yb()
    }
    pub fn payload_at(&self) -> usize {
        self.pl_at() + self.pl_bits
    }
    pub fn flit_bits(&self) -> usize {
        self.payload_at() + self.payload_bits
    }
    /// Buffer-occupancy and credit-counter bits (0 ..= buf_depth).
    pub fn count_bits(&self) -> usize {
        super::msap::bits_for(self.buf_depth)
    }
    /// The flit buffer of one input.
    pub fn ram(&self) -> RamConfig {
        RamConfig {
            depth: self.buf_depth,
            width: self.flit_bits(),
            ports: 2,
            byte_write: false,
        }
    }
    /// Whether the neighbour behind port p exists (the mesh edge has none).
    pub fn has_port(&self, p: usize) -> bool {
        match p {
            NORTH => self.y > 0,
            EAST => self.x + 1 < self.mesh_x,
            SOUTH => self.y + 1 < self.mesh_y,
            WEST => self.x > 0,
            _ => true,
        }
    }

    pub fn module_name(&self) -> String {
        let v = if self.vcs > 1 {
            let sv = if self.static_vc { "_sv" } else { "" };
            format!("_v{}{sv}", self.vcs)
        } else {
            String::new()
        };
        format!(
            "msap_router_m{}x{}_at{}_{}_b{}_s{}_pb{}_w{}_{}_{}_a{}{v}",
            self.mesh_x,
            self.mesh_y,
            self.x,
            self.y,
            self.buf_depth,
            self.pipe_stages,
            self.pl_bits,
            self.payload_bits,
            if self.msaa_en { "msaa" } else { "rr" },
            if self.shared_ptr { "sh" } else { "pl" },
            self.age_thresh
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let doc = |vc: &'static str, one: &'static str| if self.vcs > 1 { vc } else { one };
        let (n, fb, cb, pb) = (PORTS, self.flit_bits(), self.count_bits(), self.pl_bits);
        let (nq, ob) = (self.nq(), self.owner_bits());
        let a = self.arbiter();
        let mut v = vec![
            Port::input(
                "reset",
                1,
                "synchronous reset: buffers empty, inputs IDLE, credits buf_depth",
            ),
            Port::input("in_valid", n, "a flit arrives at input p (bit p)"),
            Port::input("in_flit", n * fb, "input p's flit at bits p*flit_bits"),
            Port::input(
                "out_credit",
                nq,
                doc(
                    "the downstream of output VC o*V+w returns one credit",
                    "the downstream of output p returns one credit",
                ),
            ),
            Port::output("out_valid", n, false, "output p sends a flit (ST register)"),
            Port::output("out_flit", n * fb, false, "output p's flit, 0 when idle"),
            Port::output(
                "in_credit",
                nq,
                false,
                doc(
                    "input VC p*V+v freed a buffer row in the last cycle",
                    "input p freed a buffer row in the last cycle",
                ),
            ),
            Port::debug(
                "dbg_count",
                nq * cb,
                doc(
                    "per input VC: flits in its RAM",
                    "per input: flits in its RAM",
                ),
            ),
            Port::debug(
                "dbg_front",
                nq,
                doc(
                    "per input VC: the front register holds a flit",
                    "per input: the front register holds a flit",
                ),
            ),
            Port::debug(
                "dbg_state",
                nq * 2,
                doc(
                    "per input VC: IDLE 0, VA 1, ACTIVE 2",
                    "per input: IDLE 0, VA 1, ACTIVE 2",
                ),
            ),
            Port::debug(
                "dbg_route",
                nq * 3,
                doc(
                    "per input VC: latched output port",
                    "per input: latched output port",
                ),
            ),
            Port::debug(
                "dbg_vcpl",
                nq * pb,
                doc("per input VC: latched PL", "per input: latched PL"),
            ),
            Port::debug(
                "dbg_busy",
                nq,
                doc(
                    "per output VC: owned by a packet",
                    "per output: owned by a packet",
                ),
            ),
            Port::debug(
                "dbg_owner",
                nq * ob,
                doc(
                    "per output VC: the owning input VC p*V+v",
                    "per output: the owning input",
                ),
            ),
            Port::debug(
                "dbg_credit",
                nq * cb,
                doc(
                    "per output VC: downstream credits",
                    "per output: downstream credits",
                ),
            ),
            Port::debug(
                "dbg_gnt",
                n * n,
                "per output o: its VA grant this cycle (one-hot over inputs) at bits 5o",
            ),
            Port::debug(
                "dbg_ptr",
                n * a.ptrs() * a.idx_bits(),
                doc(
                    "per output: its VA arbiter's pointers",
                    "per output: its arbiter's pointers",
                ),
            ),
            Port::debug(
                "dbg_lost",
                n * (n * a.lost_bits()).max(1),
                doc(
                    "per output: its VA arbiter's loss counters",
                    "per output: its arbiter's loss counters",
                ),
            ),
        ];
        if self.vcs > 1 {
            let a1 = self.arbiter1();
            let p1 = a1.ptrs() * a1.idx_bits();
            v.extend([
                Port::debug(
                    "dbg_ovc",
                    nq * self.vb(),
                    "per input VC: the output VC it was granted",
                ),
                Port::debug(
                    "dbg_sa",
                    n * n,
                    "per output o: its SA grant this cycle (one-hot over inputs) at bits 5o",
                ),
                Port::debug(
                    "dbg_ptr_va1",
                    n * p1,
                    "per input: its VA stage-1 arbiter's pointers",
                ),
                Port::debug(
                    "dbg_ptr_sa1",
                    n * p1,
                    "per input: its SA stage-1 arbiter's pointers",
                ),
                Port::debug(
                    "dbg_ptr_sa2",
                    n * a.ptrs() * a.idx_bits(),
                    "per output: its SA stage-2 arbiter's pointers",
                ),
            ]);
        }
        v
    }

    pub fn tables(&self) -> Vec<Table> {
        let doc = |vc: &'static str, one: &'static str| if self.vcs > 1 { vc } else { one };
        let (n, nq, cb) = (PORTS, self.nq(), self.count_bits());
        let a = self.arbiter();
        let ib = a.idx_bits();
        let rows = self.buf_depth;
        let pw = index_bits(rows);
        let mut t = vec![
            Table::new(
                "base_flit_buf",
                nq * rows,
                self.flit_bits(),
                doc("input VC flit buffers (block RAM)", "input flit buffers (block RAM)"),
            ),
            Table::new(
                "base_in_ctl",
                nq,
                self.flit_bits() + 1 + cb + 2 * pw + 2 + 3 + 1 + self.vb(),
                doc("per input VC: front flit and valid, count, pointers, state, route, credit return, output VC", "per input: front flit and valid, count, pointers, state, route, credit return"),
            ),
            Table::new(
                "base_out_ctl",
                n,
                self.vcs * (1 + self.owner_bits() + cb) + 1 + self.flit_bits() + ib,
                doc("per output: per VC busy, owner, credits; output register, RR pointer", "per output: busy, owner, credits, output register, RR pointer"),
            ),
            Table::new("vcpl", nq, self.pl_bits, "latched PL per input VC (§2.10)"),
        ];
        if self.vcs > 1 {
            let a1 = self.arbiter1();
            let ib1 = a1.idx_bits();
            // Stage-1 arbiters (VA and SA) per input, the SA stage-2 arbiter per output.
            t.push(Table::new(
                "base_sep1_ptr",
                2 * n,
                ib1,
                "separable allocators' stage-1 RR pointers (VA, SA) per input",
            ));
            t.push(Table::new(
                "base_sa2_ptr",
                n,
                ib,
                "SA stage-2 RR pointer per output",
            ));
            if a.ptrs() > 1 {
                t.push(Table::new(
                    "extra_sep1_lvl_ptr",
                    2 * n * (a1.ptrs() - 1),
                    ib1,
                    "per-level pointers of the stage-1 arbiters",
                ));
                t.push(Table::new(
                    "extra_sa2_lvl_ptr",
                    n * (a.ptrs() - 1),
                    ib,
                    "per-level pointers of the SA stage-2 arbiters",
                ));
            }
        }
        if a.ptrs() > 1 {
            t.push(Table::new(
                "extra_lvl_ptr",
                n * (a.ptrs() - 1),
                ib,
                "per-level RR pointers beyond the baseline's one, per output",
            ));
        }
        if a.ageing() {
            t.push(Table::new(
                "extra_lost",
                n * n,
                a.lost_bits(),
                "loss counters per (output, input) (§2.7)",
            ));
        }
        t
    }

    pub fn manifest(&self, params: &Params) -> Manifest {
        Manifest {
            unit: NAME.into(),
            module: self.module_name(),
            params: params.clone(),
            ports: self.ports(),
            tables: self.tables(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::dwr::assert_port_names_ok;

    fn cfg(sets: &[&str]) -> Result<RouterConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        RouterConfig::from_params(&p)
    }

    #[test]
    fn defaults_and_widths() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, RouterConfig::default());
        // 2 framing + 3 + 3 dst + 3 pl + 16 payload.
        assert_eq!((c.flit_bits(), c.pl_at(), c.count_bits()), (27, 8, 4));
        assert_port_names_ok(&c.ports());
        assert!((0..PORTS).all(|p| c.has_port(p)));
        let c = cfg(&["x=0", "y=7"]).unwrap();
        assert!(!c.has_port(WEST) && !c.has_port(SOUTH) && c.has_port(NORTH));
    }

    #[test]
    fn validation() {
        assert!(cfg(&["x=8"])
            .unwrap_err()
            .0
            .starts_with("x = 8: must be below mesh_x = 8"));
        assert!(cfg(&["mesh_y=4", "y=4"])
            .unwrap_err()
            .0
            .starts_with("y = 4"));
        assert!(cfg(&["buf_depth=6"])
            .unwrap_err()
            .0
            .contains("power of two"));
        assert_eq!(
            cfg(&["buf_depth=0"]).unwrap_err().0,
            "--set buf_depth=0: buf_depth must be an integer from 2 to 16"
        );
        assert!(cfg(&["vcs=0"]).unwrap_err().0.contains("from 1 to 4"));
        assert!(cfg(&["vcs=3"])
            .unwrap_err()
            .0
            .starts_with("vcs = 3: must be 1, 2 or 4"));
        assert!(cfg(&["vcs=2", "pipe_stages=3"])
            .unwrap_err()
            .0
            .starts_with("pipe_stages = 3: must be 4 with vcs > 1"));
        assert!(cfg(&["vcs=4", "age_thresh=2"])
            .unwrap_err()
            .0
            .starts_with("age_thresh = 2: must be 0 with vcs > 1"));
        // V > 1: the vc field after the framing bits, ports per VC.
        let c = cfg(&["vcs=4"]).unwrap();
        assert_eq!(
            (c.vb(), c.dst_x_at(), c.flit_bits(), c.nq()),
            (2, 4, 29, 20)
        );
        assert_port_names_ok(&c.ports());
        assert!(c.module_name().ends_with("_a0_v4"));
        assert_eq!(cfg(&[]).unwrap().vb(), 0);
        assert!(cfg(&["msaa_en=false", "age_thresh=3"])
            .unwrap_err()
            .0
            .starts_with("age_thresh = 3"));
    }
}
