//! `msap-noc`: the MSAP core–memory network as one unit (spec/msap.md §2.1, §2.4, §2.8, §2.9,
//! §3): a `mesh_x × mesh_y` mesh of `msap-router`s for requests (SM → MC) and a second,
//! identical mesh for replies (MC → SM), an NI per SM node (injection queue), and at every MC
//! node the `msap-mc` request buffer (MSAR), a fixed-latency L2 stand-in and the reply NI.
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::msap_noc`)
//! and the model (`warpforge_testbench::msap_noc`) are written from it independently. The
//! routers and the MC buffers follow their own contracts unchanged.
//!
//! # Nodes
//!
//! Node id `mesh_x·y + x`; MC nodes from `mc_place` (or `mc_mask`, bit i = node i), the others
//! are SM nodes; SM s and MC m are the s-th / m-th such node in increasing id (§2.1). A node's
//! address in a flit is `{y, x}` (`x` in the low ⌈log2 mesh_x⌉ bits) — the router's
//! `{dst_y, dst_x}`.
//!
//! # Flits
//!
//! The router's flit with `payload = {line, tag, src}` from bit 0: `src` the sending node's
//! address, `tag` (tag_bits), `line` (line_bits). A request is one flit (head = tail = 1, §2.3
//! read request); a reply is `reply_flits` flits (head on the first, tail on the last, every
//! flit carrying the same fields): `dst` = the request's src, `pl` = the request's pl (§2.9,
//! inherited), `src` = the MC's node, `tag` and `line` echoed.
//!
//! # Wiring (every link registered: the routers' outputs are registers)
//!
//! Router port p of node (x, y) receives the flit its neighbour's opposite output sent
//! (`out_valid`/`out_flit`) and returns the neighbour's credits (`in_credit` → the
//! neighbour's `out_credit`); ports at the mesh edge get 0. Both meshes alike.
//!
//! - SM NI (request mesh, Local input): a FIFO of request flits, `ni_depth` RAM rows plus the
//!   RAM's read register (the front). `inj_ready[s]` = rows < `ni_depth` (registered state);
//!   `inj_valid && inj_ready` writes the flit `{head, tail, dst = MC inj_mc's address, pl =
//!   inj_pl, src = the SM's node, tag, line}` at the edge. The front is sent when `credit > 0`
//!   (credit: the router's Local input buffer, reset `buf_depth`, +1 on its `in_credit[0]`,
//!   −1 per flit); the front refills from the RAM when empty or sent (as a router input).
//! - Local outputs at SM nodes (both meshes) are sinks: `out_credit[0] = out_valid[0]`. A
//!   reply's tail at an SM node is `rep_valid[s]` with its `src`, `tag`, `pl`.
//! - MC node m, request mesh: the Local output feeds `msap-mc` (`in_valid` = out_valid[0],
//!   line/pl/meta = {tag, src} from the flit). Its buffer depth is `buf_depth`, so the router's
//!   Local-output credits count its free slots: `out_credit[0]` = a departure (`deq`). The
//!   buffer is therefore never full when a flit arrives.
//! - `l2_ready[m]` = `resv[m] < rq_depth`, `resv` counting replies reserved (from the
//!   departure until the reply's tail leaves the reply NI). `deq[m]` = out_valid && l2_ready.
//! - L2 stand-in, fixed latency `svc_lat` (≥ 1) cycles from `deq` to the reply queue: at the
//!   `deq` edge `s0 = {1, out_pl, out_line}`; the next cycle the buffer's `meta` is there and
//!   `{s0, meta}` enters a delay line of `svc_lat − 1` registers (or, for 1, the queue
//!   directly); its last stage is written into the reply queue.
//! - MC reply NI: a FIFO (`rq_depth` RAM rows plus the front) of replies; the front sends flit
//!   k (k = 0 … reply_flits − 1) into the reply mesh's Local input when `credit > 0`; after the
//!   tail the front refills and `resv −= 1`.
//!
//! # Parameters
//!
//! Mesh, placement, the routers' (`buf_depth`, `pipe_stages`, `pl_bits`, `msaa_en`, `rr_ptr`,
//! `age_thresh`; both meshes), the MC's (`msar_en`, `line_guard`, `msar_age_thresh`), the
//! queues (`ni_depth`, `rq_depth`), `svc_lat`, `reply_flits`, field widths, `vcs`.
//!
//! # V > 1 (`vcs` = 2 or 4; the routers' V > 1 rules: 4 stages, no ageing)
//!
//! The routers are the V > 1 router with `static_vc` (a packet keeps its VC at every hop).
//! Every packet travels on `vc = (src + dst) mod V` of its node addresses, which both NIs
//! write into the flit's `vc` field: fixed per (src, dst) flow, so a flow's packets stay in
//! one FIFO chain of input VCs and never overtake each other (§6 item 16; the lowest free VC
//! per hop could reorder two requests of one SM to one line). Each NI keeps one credit
//! counter per VC of its router's Local input (reset `buf_depth`, +1 on `in_credit` bit v,
//! −1 per flit sent on v); its front is sent when its VC's counter is > 0. Sinks return the
//! credit on the arriving flit's VC. An MC buffer has `buf_depth·V` slots and a departure
//! returns the credit to the VC of the departing request, computed from its meta (`src`)
//! the next cycle (when `meta` is there): per VC at most `buf_depth` requests are in the
//! buffer, so it never overflows. `buf_depth·V` ≤ 32. Digests: the NI and MC NI credits per
//! VC (VC 0 first).
//!
//! # Storage
//!
//! The routers' and MC buffers' own tables, plus per SM an NI queue (RAM) and per MC a reply
//! queue (RAM) and the L2 stand-in's delay line.

use super::msap::{bits_for, PL_BITS};
use super::msap_arbiter::{AGE_THRESH, MSAA_EN, RR_PTR};
use super::msap_mc::{McConfig, LINE_GUARD, MSAR_EN};
use super::msap_router::{RouterConfig, BUF_DEPTH, PIPE_STAGES};
use super::ram::RamConfig;
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "msap-noc";

/// §2.1's MC positions on the 8×8 mesh.
pub const SPEC_MCS: [(usize, usize); 8] = [
    (2, 0),
    (5, 0),
    (0, 2),
    (7, 2),
    (0, 5),
    (7, 5),
    (2, 7),
    (5, 7),
];

/// The unit's default mesh is the smallest (2×2): a default configuration is generated,
/// linted and replayed under Icarus by every flow, and the 8×8 system's Verilog is 30 MB.
/// `warpforge noc` and the full suite run the paper's 8×8.
pub const MESH_X: ParamSpec =
    ParamSpec::int("mesh_x", 2, 16, 2, "mesh columns (MESH_X; the paper's 8)");
pub const MESH_Y: ParamSpec =
    ParamSpec::int("mesh_y", 2, 16, 2, "mesh rows (MESH_Y; the paper's 8)");
pub const MC_PLACE: ParamSpec = ParamSpec::choice(
    "mc_place",
    &["auto", "spec", "middle", "corner"],
    "auto",
    "MC nodes: spec = §2.1's 8 (needs 8x8 or larger), middle = column mesh_x/2, corner = (mesh_x-1, 0); auto = spec on 8x8 or larger, else middle",
);
pub const MC_MASK: ParamSpec = ParamSpec::int(
    "mc_mask",
    0,
    i64::MAX,
    0,
    "MC nodes as a bit mask of node ids (bit i = node i; 0: use mc_place)",
);
pub const VCS: ParamSpec = ParamSpec::int(
    "vcs",
    0,
    16,
    1,
    "virtual channels per port (V: 1, the paper's, 2 or 4; a packet keeps its VC)",
);
pub const MSAR_AGE: ParamSpec = ParamSpec::int(
    "msar_age_thresh",
    0,
    255,
    0,
    "MSAR_AGE_THRESH of the MC buffers (0: off)",
);
pub const NI_DEPTH: ParamSpec = ParamSpec::int(
    "ni_depth",
    2,
    16,
    8,
    "SM NI injection queue rows (NI_DEPTH; a RAM: a power of two)",
);
pub const RQ_DEPTH: ParamSpec = ParamSpec::int(
    "rq_depth",
    2,
    16,
    8,
    "MC reply queue rows (a RAM: a power of two)",
);
pub const SVC_LAT: ParamSpec = ParamSpec::int(
    "svc_lat",
    1,
    16,
    4,
    "cycles from the MC buffer's dequeue to the reply queue (fixed L2 latency)",
);
pub const REPLY_FLITS: ParamSpec = ParamSpec::int(
    "reply_flits",
    1,
    5,
    5,
    "flits per reply (§2.3: a read reply is 5 flits)",
);
pub const TAG_BITS: ParamSpec = ParamSpec::int("tag_bits", 1, 8, 6, "request tag (MSHR index)");
pub const LINE_BITS: ParamSpec = ParamSpec::int(
    "line_bits",
    1,
    20,
    8,
    "line-address bits carried (the same-line guard compares them)",
);

pub const PARAMS: &[ParamSpec] = &[
    MESH_X,
    MESH_Y,
    MC_PLACE,
    MC_MASK,
    VCS,
    BUF_DEPTH,
    PIPE_STAGES,
    PL_BITS,
    MSAA_EN,
    RR_PTR,
    AGE_THRESH,
    MSAR_EN,
    LINE_GUARD,
    MSAR_AGE,
    NI_DEPTH,
    RQ_DEPTH,
    SVC_LAT,
    REPLY_FLITS,
    TAG_BITS,
    LINE_BITS,
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NocConfig {
    pub mesh_x: usize,
    pub mesh_y: usize,
    /// MC node ids, increasing.
    pub mcs: Vec<usize>,
    pub buf_depth: usize,
    pub pipe_stages: usize,
    pub pl_bits: usize,
    pub msaa_en: bool,
    pub shared_ptr: bool,
    pub age_thresh: usize,
    pub msar_en: bool,
    pub line_guard: bool,
    pub msar_age: usize,
    pub ni_depth: usize,
    pub rq_depth: usize,
    pub svc_lat: usize,
    pub reply_flits: usize,
    pub tag_bits: usize,
    pub line_bits: usize,
    pub vcs: usize,
    place: String,
}

fn err<T>(s: String) -> Result<T, ParamError> {
    Err(ParamError(s))
}

impl NocConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let (mx, my) = (p.usize("mesh_x"), p.usize("mesh_y"));
        let n = mx * my;
        let mask = p.int("mc_mask") as u64;
        let place = match p.str("mc_place") {
            "auto" if mx >= 8 && my >= 8 => "spec",
            "auto" => "middle",
            other => other,
        };
        let mcs: Vec<usize> = if mask != 0 {
            if let Some(b) = (n..63).find(|&b| mask >> b & 1 == 1) {
                return err(format!(
                    "mc_mask bit {b}: node {b} is outside the {mx}x{my} mesh (ids 0..{})",
                    n - 1
                ));
            }
            (0..n).filter(|&i| mask >> i & 1 == 1).collect()
        } else {
            match place {
                "spec" => {
                    if mx < 8 || my < 8 {
                        return err(format!(
                            "mc_place = spec: the mesh {mx}x{my} is too small for §2.1's MC list (needs 8x8 or larger; use middle or corner)"
                        ));
                    }
                    let mut v: Vec<usize> = SPEC_MCS.iter().map(|&(x, y)| mx * y + x).collect();
                    v.sort();
                    v
                }
                "middle" => (0..my).map(|y| mx * y + mx / 2).collect(),
                _ => vec![mx - 1],
            }
        };
        if mcs.len() + 2 > n {
            return err(format!(
                "mc_mask = {mask}: {} of the {n} nodes are MCs; at least two SM nodes are needed",
                mcs.len()
            ));
        }
        let c = NocConfig {
            mesh_x: mx,
            mesh_y: my,
            mcs,
            buf_depth: p.usize("buf_depth"),
            pipe_stages: p.usize("pipe_stages"),
            pl_bits: p.usize("pl_bits"),
            msaa_en: p.bool("msaa_en"),
            shared_ptr: p.str("rr_ptr") == "shared",
            age_thresh: p.usize("age_thresh"),
            msar_en: p.bool("msar_en"),
            line_guard: p.bool("line_guard"),
            msar_age: p.usize("msar_age_thresh"),
            ni_depth: p.usize("ni_depth"),
            rq_depth: p.usize("rq_depth"),
            svc_lat: p.usize("svc_lat"),
            reply_flits: p.usize("reply_flits"),
            tag_bits: p.usize("tag_bits"),
            line_bits: p.usize("line_bits"),
            vcs: p.usize("vcs"),
            place: if mask != 0 {
                format!("k{mask:x}")
            } else {
                place.to_string()
            },
        };
        if ![1, 2, 4].contains(&c.vcs) {
            return err(format!(
                "vcs = {}: must be 1, 2 or 4 (the paper's one VC per port, or 2 / 4 virtual channels)",
                c.vcs
            ));
        }
        if c.vcs > 1 && c.pipe_stages != 4 {
            return err(format!(
                "pipe_stages = {}: must be 4 with vcs > 1 (the folded pipelines are built for V = 1)",
                c.pipe_stages
            ));
        }
        if c.vcs > 1 && c.age_thresh > 0 {
            return err(format!(
                "age_thresh = {}: must be 0 with vcs > 1 (per-VC loss counters are built for V = 1)",
                c.age_thresh
            ));
        }
        if c.buf_depth * c.vcs > 32 {
            return err(format!(
                "buf_depth = {}: must be at most {} with vcs = {} (an MC buffer holds buf_depth·vcs requests, at most 32)",
                c.buf_depth,
                32 / c.vcs,
                c.vcs
            ));
        }
        for (name, v) in [
            ("buf_depth", c.buf_depth),
            ("ni_depth", c.ni_depth),
            ("rq_depth", c.rq_depth),
        ] {
            if !v.is_power_of_two() {
                return err(format!(
                    "{name} = {v}: must be a power of two (2, 4, 8, 16: the queue is a block RAM)"
                ));
            }
        }
        if c.age_thresh > 0 && !c.msaa_en {
            return err(format!(
                "age_thresh = {}: must be 0 with msaa_en = false (every requester is at level 0)",
                c.age_thresh
            ));
        }
        if c.msar_age > 0 && !c.msar_en {
            return err(format!(
                "msar_age_thresh = {}: must be 0 with msar_en = false (the FIFO has no bypasses)",
                c.msar_age
            ));
        }
        if c.payload_bits() > 32 {
            return err(format!(
                "line_bits = {}: the payload (node {} + tag {} + line bits) must fit 32 bits",
                c.line_bits,
                c.node_bits(),
                c.tag_bits
            ));
        }
        Ok(c)
    }

    pub fn nodes(&self) -> usize {
        self.mesh_x * self.mesh_y
    }
    pub fn xy(&self, id: usize) -> (usize, usize) {
        (id % self.mesh_x, id / self.mesh_x)
    }
    /// SM node ids, increasing.
    pub fn sms(&self) -> Vec<usize> {
        (0..self.nodes())
            .filter(|i| !self.mcs.contains(i))
            .collect()
    }
    pub fn n_sm(&self) -> usize {
        self.nodes() - self.mcs.len()
    }
    pub fn n_mc(&self) -> usize {
        self.mcs.len()
    }
    pub fn xb(&self) -> usize {
        index_bits(self.mesh_x)
    }
    /// Address bits of a node in a flit ({y, x}).
    pub fn node_bits(&self) -> usize {
        self.xb() + index_bits(self.mesh_y)
    }
    /// A node's flit address.
    pub fn addr(&self, id: usize) -> u64 {
        let (x, y) = self.xy(id);
        (x | y << self.xb()) as u64
    }
    pub fn mc_bits(&self) -> usize {
        index_bits(self.n_mc())
    }
    pub fn payload_bits(&self) -> usize {
        self.node_bits() + self.tag_bits + self.line_bits
    }
    /// The router of node `id` (both meshes).
    pub fn router(&self, id: usize) -> RouterConfig {
        let (x, y) = self.xy(id);
        RouterConfig {
            mesh_x: self.mesh_x,
            mesh_y: self.mesh_y,
            x,
            y,
            vcs: self.vcs,
            buf_depth: self.buf_depth,
            pipe_stages: self.pipe_stages,
            pl_bits: self.pl_bits,
            payload_bits: self.payload_bits(),
            msaa_en: self.msaa_en,
            shared_ptr: self.shared_ptr,
            age_thresh: self.age_thresh,
            static_vc: self.vcs > 1,
        }
    }
    /// The MC request buffer: `buf_depth` slots per VC, so the router's per-VC credits never
    /// overfill it.
    pub fn mc(&self) -> McConfig {
        McConfig {
            depth: self.buf_depth * self.vcs,
            pl_bits: self.pl_bits,
            line_bits: self.line_bits,
            meta_bits: self.meta_bits(),
            msar_en: self.msar_en,
            line_guard: self.line_guard,
            age_thresh: self.msar_age,
        }
    }
    /// MC meta: `{tag, src}` from bit 0.
    pub fn meta_bits(&self) -> usize {
        self.node_bits() + self.tag_bits
    }
    pub fn flit_bits(&self) -> usize {
        self.router(0).flit_bits()
    }
    /// Bits of the flit's `vc` field (0 with V = 1); `dst` starts at `2 + vb`.
    pub fn vb(&self) -> usize {
        self.router(0).vb()
    }
    /// The VC of a packet from node address `src` to `dst` (both meshes): `(src + dst) mod V`,
    /// fixed per flow, so packets of a flow never overtake each other (§6 item 16).
    pub fn vc_of(&self, src: u64, dst: u64) -> u64 {
        (src + dst) % self.vcs as u64
    }
    pub fn ni_ram(&self) -> RamConfig {
        RamConfig {
            depth: self.ni_depth,
            width: self.flit_bits(),
            ports: 2,
            byte_write: false,
        }
    }
    /// A reply record: `{pl, line, dst, tag}` from bit 0 (dst = the requesting SM's address).
    pub fn rec_bits(&self) -> usize {
        self.pl_bits + self.line_bits + self.node_bits() + self.tag_bits
    }
    pub fn rq_ram(&self) -> RamConfig {
        RamConfig {
            depth: self.rq_depth,
            width: self.rec_bits(),
            ports: 2,
            byte_write: false,
        }
    }
    pub fn credit_bits(&self) -> usize {
        bits_for(self.buf_depth)
    }
    pub fn ni_bits(&self) -> usize {
        self.vcs * self.credit_bits() + 1 + bits_for(self.ni_depth)
    }
    /// Per MC NI digest, from bit 0: resv, s0 {v, pl, line}, the delay line's stages
    /// {v, record}, reply-queue rows, front valid, flit counter (3 bits), credits (per VC).
    pub fn mcni_bits(&self) -> usize {
        let rb = bits_for(self.rq_depth);
        rb + (1 + self.pl_bits + self.line_bits)
            + (self.svc_lat - 1) * (1 + self.rec_bits())
            + rb
            + 1
            + 3
            + self.vcs * self.credit_bits()
    }
    pub fn router_out_bits(&self) -> usize {
        self.router(0)
            .ports()
            .iter()
            .filter(|p| p.dir == crate::manifest::Dir::Out)
            .map(|p| p.width)
            .sum()
    }
    pub fn mc_out_bits(&self) -> usize {
        self.mc()
            .ports()
            .iter()
            .filter(|p| p.dir == crate::manifest::Dir::Out)
            .map(|p| p.width)
            .sum()
    }

    pub fn module_name(&self) -> String {
        format!(
            "msap_noc_m{}x{}_{}_b{}_s{}_pb{}_{}_{}_a{}_{}_{}_ma{}_n{}_r{}_l{}_f{}_t{}_w{}",
            self.mesh_x,
            self.mesh_y,
            self.place,
            self.buf_depth,
            self.pipe_stages,
            self.pl_bits,
            if self.msaa_en { "msaa" } else { "rr" },
            if self.shared_ptr { "sh" } else { "pl" },
            self.age_thresh,
            if self.msar_en { "msar" } else { "fifo" },
            if self.line_guard { "g" } else { "ng" },
            self.msar_age,
            self.ni_depth,
            self.rq_depth,
            self.svc_lat,
            self.reply_flits,
            self.tag_bits,
            self.line_bits
        ) + &if self.vcs > 1 {
            format!("_v{}", self.vcs)
        } else {
            String::new()
        }
    }

    pub fn ports(&self) -> Vec<Port> {
        let (s, m) = (self.n_sm(), self.n_mc());
        let (pb, tb, lb, nb, mb) = (
            self.pl_bits,
            self.tag_bits,
            self.line_bits,
            self.node_bits(),
            self.mc_bits(),
        );
        vec![
            Port::input("reset", 1, "synchronous reset of every block"),
            Port::input("inj_valid", s, "SM s offers a request (bit s)"),
            Port::input("inj_mc", s * mb, "its destination MC index"),
            Port::input("inj_pl", s * pb, "its PL (stamped at the source)"),
            Port::input("inj_tag", s * tb, "its tag"),
            Port::input("inj_line", s * lb, "its line address"),
            Port::output("inj_ready", s, false, "SM s's NI queue has a free row"),
            Port::output("rep_valid", s, false, "a reply's tail reaches SM s"),
            Port::output("rep_src", s * nb, false, "its MC's node address"),
            Port::output("rep_tag", s * tb, false, "its tag"),
            Port::output("rep_pl", s * pb, false, "its PL (the request's)"),
            Port::output("mc_deq", m, false, "MC m's buffer sends a request to L2"),
            Port::debug(
                "dbg_req",
                self.nodes() * self.router_out_bits(),
                "request mesh: every router's outputs (links and state), node by node",
            ),
            Port::debug(
                "dbg_rep",
                self.nodes() * self.router_out_bits(),
                "reply mesh: every router's outputs, node by node",
            ),
            Port::debug(
                "dbg_mc",
                m * self.mc_out_bits(),
                "every MC buffer's outputs",
            ),
            Port::debug(
                "dbg_ni",
                s * self.ni_bits(),
                "per SM: NI rows, front, credit",
            ),
            Port::debug(
                "dbg_mcni",
                m * self.mcni_bits(),
                "per MC: L2 stand-in and reply NI",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        let n = self.nodes();
        let mut t = vec![];
        for (name, k, cfgt) in [
            ("req_", n, self.router(0).tables()),
            ("rep_", n, self.router(0).tables()),
            ("mc_", self.n_mc(), self.mc().tables()),
        ] {
            for tab in cfgt {
                t.push(Table::new(
                    &format!("{name}{}", tab.name),
                    tab.entries * k,
                    tab.bits,
                    &tab.doc,
                ));
            }
        }
        t.push(Table::new(
            "base_ni_queue",
            self.n_sm() * self.ni_depth,
            self.flit_bits(),
            "SM NI injection queues (block RAM)",
        ));
        t.push(Table::new(
            "base_reply_queue",
            self.n_mc() * self.rq_depth,
            self.rec_bits(),
            "MC reply queues (block RAM)",
        ));
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

    fn cfg(sets: &[&str]) -> Result<NocConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        NocConfig::from_params(&p)
    }

    #[test]
    fn defaults_and_placement() {
        let c = cfg(&[]).unwrap();
        assert_eq!((c.mesh_x, c.mesh_y, c.mcs.clone()), (2, 2, vec![1, 3]));
        let c = cfg(&["mesh_x=8", "mesh_y=8"]).unwrap();
        assert_eq!(c.mcs, vec![2, 5, 16, 23, 40, 47, 58, 61]);
        assert_eq!(
            (c.n_sm(), c.sms()[2], c.node_bits(), c.mc_bits()),
            (56, 3, 6, 3)
        );
        assert_port_names_ok(&c.ports());
        let c = cfg(&["mesh_x=2", "mesh_y=2", "mc_place=corner"]).unwrap();
        assert_eq!((c.mcs.clone(), c.sms()), (vec![1], vec![0, 2, 3]));
        let c = cfg(&["mesh_x=4", "mesh_y=4", "mc_place=middle"]).unwrap();
        assert_eq!(c.mcs, vec![2, 6, 10, 14]);
        let c = cfg(&["mesh_x=4", "mesh_y=2", "mc_mask=9"]).unwrap();
        assert_eq!(c.mcs, vec![0, 3]);
    }

    #[test]
    fn validation() {
        let e = |s: &[&str]| cfg(s).unwrap_err().0;
        assert!(e(&["mesh_x=4", "mesh_y=8", "mc_place=spec"])
            .starts_with("mc_place = spec: the mesh 4x8 is too small"));
        assert!(e(&["mesh_x=2", "mesh_y=2", "mc_mask=32"]).starts_with("mc_mask bit 5: node 5"));
        assert!(e(&["mesh_x=2", "mesh_y=2", "mc_mask=15"]).contains("at least two SM"));
        assert!(e(&["vcs=0"]).starts_with("vcs = 0: must be 1, 2 or 4"));
        assert!(e(&["vcs=3"]).starts_with("vcs = 3: must be 1, 2 or 4"));
        assert!(
            e(&["vcs=2", "pipe_stages=3"]).starts_with("pipe_stages = 3: must be 4 with vcs > 1")
        );
        assert!(e(&["vcs=4", "age_thresh=2"]).starts_with("age_thresh = 2: must be 0 with vcs > 1"));
        assert!(e(&["vcs=4", "buf_depth=16"]).starts_with("buf_depth = 16: must be at most 8"));
        // V > 1: the vc field after the framing bits, the MC buffer per VC, credits per VC.
        let c = cfg(&["vcs=2"]).unwrap();
        let c1 = cfg(&[]).unwrap();
        assert_eq!(
            (c.vb(), c.flit_bits(), c.mc().depth),
            (1, c1.flit_bits() + 1, 16)
        );
        assert_eq!(c.ni_bits(), c1.ni_bits() + c.credit_bits());
        assert!(c.router(0).static_vc && !c1.router(0).static_vc);
        assert!(c.module_name().ends_with("_w8_v2") && c1.module_name().ends_with("_w8"));
        assert_port_names_ok(&c.ports());
        assert_eq!((c.vc_of(1, 2), c.vc_of(2, 2)), (1, 0));
        assert!(e(&["ni_depth=6"]).starts_with("ni_depth = 6"));
        assert!(e(&["mesh_x=8", "mesh_y=8", "line_bits=20", "tag_bits=8"])
            .starts_with("line_bits = 20"));
        assert!(e(&["msar_en=false", "msar_age_thresh=2"]).starts_with("msar_age_thresh = 2"));
    }
}
