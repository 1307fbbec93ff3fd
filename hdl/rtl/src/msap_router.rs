//! RTL of msap-router: one MSAP mesh router (spec/msap.md §2.5, §3.4; contract
//! `warpforge_contract::units::msap_router`), V = 1.
//!
//! Per input: the flit buffer is the RAM primitive (a row is read only when it moves to the
//! front register, one per cycle), so the front register is the RAM's read register itself;
//! RC reads the head's fields from it. Per output: one [`PrioArb`] does VA over the five
//! inputs (requester index = input port, `commit` always: with V = 1 every VA grant is used,
//! §2.6), a busy/owner pair, the credit counter and the ST register that drives the link.
//! SA needs no arbiter with V = 1: each output has one owner and each input one VC.

use crate::msap_arbiter::PrioArb;
use crate::primitives::{emit, Concat, Fixed, Split, Wire, WordReg, WordRegInit};
use crate::ram::Ram;
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::msap_router::{RouterConfig, PORTS};

#[derive(LogicBlock)]
pub struct MsapRouter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Wire<In>,
    pub in_flit: Wire<In>,
    pub out_credit: Wire<In>,
    pub out_valid: Wire<Out>,
    pub out_flit: Wire<Out>,
    pub in_credit: Wire<Out>,
    pub dbg_count: Wire<Out>,
    pub dbg_front: Wire<Out>,
    pub dbg_state: Wire<Out>,
    pub dbg_route: Wire<Out>,
    pub dbg_vcpl: Wire<Out>,
    pub dbg_busy: Wire<Out>,
    pub dbg_owner: Wire<Out>,
    pub dbg_credit: Wire<Out>,
    pub dbg_gnt: Wire<Out>,
    pub dbg_ptr: Wire<Out>,
    pub dbg_lost: Wire<Out>,
    /// The router's column and row: ports rather than constants, so every router of a mesh
    /// is the same module text (the parent drives them with constants; synthesis propagates
    /// them).
    pub at_x: Wire<In>,
    pub at_y: Wire<In>,

    // Per input.
    ins: Split,
    buf: Vec<Ram>,
    f_head: Vec<Signal<Local, Bit>>,
    f_tail: Vec<Signal<Local, Bit>>,
    f_dx: Vec<Wire<Local>>,
    f_dy: Vec<Wire<Local>>,
    f_pl: Vec<Wire<Local>>,
    cnt: Vec<WordReg>,
    wp: Vec<WordReg>,
    rp: Vec<WordReg>,
    fv: Vec<WordReg>,
    st: Vec<WordReg>,
    rt: Vec<WordReg>,
    vcpl: Vec<WordReg>,
    cret: Vec<WordReg>,
    // Per output.
    arb: Vec<PrioArb>,
    busy: Vec<WordReg>,
    owner: Vec<WordReg>,
    credit: Vec<WordRegInit>,
    ov: Vec<WordReg>,
    of: Vec<WordReg>,

    wpl_pack: Concat,
    flit_pack: Concat,
    count_pack: Concat,
    state_pack: Concat,
    route_pack: Concat,
    vcpl_pack: Concat,
    owner_pack: Concat,
    credit_pack: Concat,
    gnt_pack: Concat,
    ptr_pack: Concat,
    lost_pack: Concat,

    // This cycle.
    fr_route: Vec<Wire<Local>>,
    rc: Vec<Signal<Local, Bit>>,
    want: Vec<Signal<Local, Bit>>,
    wroute: Vec<Wire<Local>>,
    granted: Vec<Signal<Local, Bit>>,
    oroute: Vec<Wire<Local>>,
    crd_ok: Vec<Signal<Local, Bit>>,
    go: Vec<Signal<Local, Bit>>,
    rd: Vec<Signal<Local, Bit>>,
    wr: Vec<Signal<Local, Bit>>,
    req: Vec<Wire<Local>>,
    dec: Vec<Signal<Local, Bit>>,
    vec_ov: Wire<Local>,
    vec_fv: Wire<Local>,
    vec_busy: Wire<Local>,
    vec_cret: Wire<Local>,
    unit: Wire<Local>,
    sh_dx: Fixed,
    sh_dy: Fixed,
    sh_pl: Fixed,
    rc_in_va: Fixed,
    sa_in_va: Fixed,
}

impl MsapRouter {
    pub fn new(cfg: &RouterConfig) -> MsapRouter {
        let n = PORTS;
        let (fb, cb, pb) = (cfg.flit_bits(), cfg.count_bits(), cfg.pl_bits);
        let pw = cfg.ram().addr_bits();
        let a = cfg.arbiter();
        let regs = |w: usize| (0..n).map(|_| WordReg::new(w)).collect::<Vec<_>>();
        let wires = |w: usize| (0..n).map(|_| Wire::new(w)).collect::<Vec<_>>();
        let bits = || (0..n).map(|_| Default::default()).collect::<Vec<_>>();
        let ptr_w = a.ptrs() * a.idx_bits();
        let lost_w = (n * a.lost_bits()).max(1);
        MsapRouter {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Wire::new(n),
            in_flit: Wire::new(n * fb),
            out_credit: Wire::new(n),
            out_valid: Wire::new(n),
            out_flit: Wire::new(n * fb),
            in_credit: Wire::new(n),
            dbg_count: Wire::new(n * cb),
            dbg_front: Wire::new(n),
            dbg_state: Wire::new(n * 2),
            dbg_route: Wire::new(n * 3),
            dbg_vcpl: Wire::new(n * pb),
            dbg_busy: Wire::new(n),
            dbg_owner: Wire::new(n * 3),
            dbg_credit: Wire::new(n * cb),
            dbg_gnt: Wire::new(n * n),
            dbg_ptr: Wire::new(n * ptr_w),
            dbg_lost: Wire::new(n * lost_w),
            at_x: Wire::new(cfg.xb()),
            at_y: Wire::new(cfg.yb()),
            ins: Split::new(&vec![fb; n]),
            buf: (0..n).map(|_| Ram::new(&cfg.ram())).collect(),
            f_head: bits(),
            f_tail: bits(),
            f_dx: wires(cfg.xb()),
            f_dy: wires(cfg.yb()),
            f_pl: wires(pb),
            cnt: regs(cb),
            wp: regs(pw),
            rp: regs(pw),
            fv: regs(1),
            st: regs(2),
            rt: regs(3),
            vcpl: regs(pb),
            cret: regs(1),
            arb: (0..n).map(|_| PrioArb::new(&a)).collect(),
            busy: regs(1),
            owner: regs(3),
            credit: (0..n)
                .map(|_| WordRegInit::new(cb, cfg.buf_depth as u64))
                .collect(),
            ov: regs(1),
            of: regs(fb),
            wpl_pack: Concat::new(&vec![pb; n]),
            flit_pack: Concat::new(&vec![fb; n]),
            count_pack: Concat::new(&vec![cb; n]),
            state_pack: Concat::new(&vec![2; n]),
            route_pack: Concat::new(&vec![3; n]),
            vcpl_pack: Concat::new(&vec![pb; n]),
            owner_pack: Concat::new(&vec![3; n]),
            credit_pack: Concat::new(&vec![cb; n]),
            gnt_pack: Concat::new(&vec![n; n]),
            ptr_pack: Concat::new(&vec![ptr_w; n]),
            lost_pack: Concat::new(&vec![lost_w; n]),
            fr_route: wires(3),
            rc: bits(),
            want: bits(),
            wroute: wires(3),
            granted: bits(),
            oroute: wires(3),
            crd_ok: bits(),
            go: bits(),
            rd: bits(),
            wr: bits(),
            req: wires(n),
            dec: bits(),
            vec_ov: Wire::new(n),
            vec_fv: Wire::new(n),
            vec_busy: Wire::new(n),
            vec_cret: Wire::new(n),
            unit: Wire::new(n),
            sh_dx: Fixed::new(cfg.dst_x_at() as u64),
            sh_dy: Fixed::new(cfg.dst_y_at() as u64),
            sh_pl: Fixed::new(cfg.pl_at() as u64),
            rc_in_va: Fixed::new((cfg.pipe_stages <= 3) as u64),
            sa_in_va: Fixed::new((cfg.pipe_stages == 2) as u64),
        }
    }
}

impl Logic for MsapRouter {
    #[hdl_gen]
    fn update(&mut self) {
        for p in 0..self.cnt.len() {
            self.buf[p].clock.next = self.clock.val();
            self.cnt[p].clock.next = self.clock.val();
            self.cnt[p].reset.next = self.reset.val();
            self.wp[p].clock.next = self.clock.val();
            self.wp[p].reset.next = self.reset.val();
            self.rp[p].clock.next = self.clock.val();
            self.rp[p].reset.next = self.reset.val();
            self.fv[p].clock.next = self.clock.val();
            self.fv[p].reset.next = self.reset.val();
            self.st[p].clock.next = self.clock.val();
            self.st[p].reset.next = self.reset.val();
            self.rt[p].clock.next = self.clock.val();
            self.rt[p].reset.next = self.reset.val();
            self.vcpl[p].clock.next = self.clock.val();
            self.vcpl[p].reset.next = self.reset.val();
            self.cret[p].clock.next = self.clock.val();
            self.cret[p].reset.next = self.reset.val();
            self.arb[p].clock.next = self.clock.val();
            self.arb[p].reset.next = self.reset.val();
            self.busy[p].clock.next = self.clock.val();
            self.busy[p].reset.next = self.reset.val();
            self.owner[p].clock.next = self.clock.val();
            self.owner[p].reset.next = self.reset.val();
            self.credit[p].clock.next = self.clock.val();
            self.credit[p].reset.next = self.reset.val();
            self.ov[p].clock.next = self.clock.val();
            self.ov[p].reset.next = self.reset.val();
            self.of[p].clock.next = self.clock.val();
            self.of[p].reset.next = self.reset.val();
        }
        self.unit.next = 1.into();
        self.ins.whole.next = self.in_flit.val();

        // RC: XY route of the front flit (X first); the requests and their PLs.
        for p in 0..self.cnt.len() {
            // The front flit's fields (the wires' widths cut the shifted row).
            self.f_head[p].next = self.buf[p].rdata.val().get_bit(0);
            self.f_tail[p].next = self.buf[p].rdata.val().get_bit(1);
            self.f_dx[p].next = self.buf[p].rdata.val() >> self.sh_dx.val();
            self.f_dy[p].next = self.buf[p].rdata.val() >> self.sh_dy.val();
            self.f_pl[p].next = self.buf[p].rdata.val() >> self.sh_pl.val();
            self.fr_route[p].next = 0.into();
            // `d + 1 <= at` rather than `d < at`: at the mesh edge (at = 0) the latter is a
            // constant comparison Verilator's lint rejects.
            if self.f_dy[p].val() + 1 <= self.at_y.val() {
                self.fr_route[p].next = 1.into();
            }
            if self.f_dy[p].val() > self.at_y.val() {
                self.fr_route[p].next = 3.into();
            }
            if self.f_dx[p].val() + 1 <= self.at_x.val() {
                self.fr_route[p].next = 4.into();
            }
            if self.f_dx[p].val() > self.at_x.val() {
                self.fr_route[p].next = 2.into();
            }
            self.rc[p].next =
                (self.st[p].q.val() == 0) & self.fv[p].q.val().any() & self.f_head[p].val();
            self.want[p].next =
                (self.st[p].q.val() == 1) | (self.rc_in_va.val().any() & self.rc[p].val());
            self.wroute[p].next = self.fr_route[p].val();
            self.wpl_pack.parts[p].next = self.f_pl[p].val();
            if self.st[p].q.val() != 0 {
                self.wroute[p].next = self.rt[p].q.val();
                self.wpl_pack.parts[p].next = self.vcpl[p].q.val();
            }
        }

        // VA: one arbiter per output over the inputs that want it while it is free.
        for o in 0..self.busy.len() {
            self.req[o].next = 0.into();
            for p in 0..self.cnt.len() {
                if self.want[p].val() & (self.wroute[p].val() == o) & !self.busy[o].q.val().any() {
                    self.req[o].next = self.req[o].val() | (self.unit.val() << p);
                }
            }
            self.arb[o].req.next = self.req[o].val();
            self.arb[o].pl.next = self.wpl_pack.whole.val();
            self.arb[o].commit.next = true;
            self.gnt_pack.parts[o].next = self.arb[o].gnt.val();
            self.ptr_pack.parts[o].next = self.arb[o].dbg_ptr.val();
            self.lost_pack.parts[o].next = self.arb[o].dbg_lost.val();
        }

        // SA + ST: an input that owns its output moves its front flit when a credit is left.
        for p in 0..self.cnt.len() {
            self.granted[p].next = false;
            for o in 0..self.busy.len() {
                if self.arb[o].gnt.val().get_bit(p) {
                    self.granted[p].next = true;
                }
            }
            self.oroute[p].next = self.wroute[p].val();
            self.crd_ok[p].next = false;
            for o in 0..self.busy.len() {
                if (self.oroute[p].val() == o) & (self.credit[o].q.val() != 0) {
                    self.crd_ok[p].next = true;
                }
            }
            self.go[p].next = self.fv[p].q.val().any()
                & self.crd_ok[p].val()
                & ((self.st[p].q.val() == 2) | (self.sa_in_va.val().any() & self.granted[p].val()));

            // Input state.
            self.st[p].d.next = self.st[p].q.val();
            self.rt[p].d.next = self.rt[p].q.val();
            self.vcpl[p].d.next = self.vcpl[p].q.val();
            if self.rc[p].val() {
                self.st[p].d.next = 1.into();
                self.rt[p].d.next = self.fr_route[p].val();
                self.vcpl[p].d.next = self.f_pl[p].val();
            }
            if self.granted[p].val() {
                self.st[p].d.next = 2.into();
            }
            if self.go[p].val() & self.f_tail[p].val() {
                self.st[p].d.next = 0.into();
            }

            // The buffer: a write per arriving flit, a read when the front is free or leaving.
            self.wr[p].next = self.in_valid.val().get_bit(p);
            self.rd[p].next =
                (self.cnt[p].q.val() != 0) & (!self.fv[p].q.val().any() | self.go[p].val());
            self.buf[p].we.next = self.wr[p].val();
            self.buf[p].wbe.next = 1.into();
            self.buf[p].waddr.next = self.wp[p].q.val();
            self.buf[p].wdata.next = self.ins.parts[p].val();
            self.buf[p].re.next = self.rd[p].val();
            self.buf[p].raddr.next = self.rp[p].q.val();
            self.wp[p].d.next = self.wp[p].q.val();
            if self.wr[p].val() {
                self.wp[p].d.next = self.wp[p].q.val() + 1;
            }
            self.rp[p].d.next = self.rp[p].q.val();
            if self.rd[p].val() {
                self.rp[p].d.next = self.rp[p].q.val() + 1;
            }
            self.cnt[p].d.next = self.cnt[p].q.val();
            if self.wr[p].val() & !self.rd[p].val() {
                self.cnt[p].d.next = self.cnt[p].q.val() + 1;
            }
            if self.rd[p].val() & !self.wr[p].val() {
                self.cnt[p].d.next = self.cnt[p].q.val() - 1;
            }
            self.fv[p].d.next =
                (self.rd[p].val() | (self.fv[p].q.val().any() & !self.go[p].val())).into();
            self.cret[p].d.next = self.rd[p].val().into();
        }

        // Per output: ownership, credits, the ST register.
        for o in 0..self.busy.len() {
            self.busy[o].d.next = self.busy[o].q.val();
            self.owner[o].d.next = self.owner[o].q.val();
            if self.arb[o].gnt_valid.val() {
                self.busy[o].d.next = 1.into();
                self.owner[o].d.next = self.arb[o].gnt_idx.val();
            }
            self.dec[o].next = false;
            self.of[o].d.next = 0.into();
            for p in 0..self.cnt.len() {
                if self.go[p].val() & (self.oroute[p].val() == o) {
                    self.dec[o].next = true;
                    self.of[o].d.next = self.buf[p].rdata.val();
                    // The tail releases the output (§2.5: no wait for its credit).
                    if self.f_tail[p].val() {
                        self.busy[o].d.next = 0.into();
                    }
                }
            }
            self.ov[o].d.next = self.dec[o].val().into();
            self.credit[o].d.next = self.credit[o].q.val();
            if self.dec[o].val() & !self.out_credit.val().get_bit(o) {
                self.credit[o].d.next = self.credit[o].q.val() - 1;
            }
            if !self.dec[o].val() & self.out_credit.val().get_bit(o) {
                self.credit[o].d.next = self.credit[o].q.val() + 1;
            }
        }

        // Outputs and the state digest.
        self.vec_ov.next = 0.into();
        self.vec_fv.next = 0.into();
        self.vec_busy.next = 0.into();
        self.vec_cret.next = 0.into();
        for p in 0..self.cnt.len() {
            if self.ov[p].q.val().any() {
                self.vec_ov.next = self.vec_ov.val() | (self.unit.val() << p);
            }
            if self.fv[p].q.val().any() {
                self.vec_fv.next = self.vec_fv.val() | (self.unit.val() << p);
            }
            if self.busy[p].q.val().any() {
                self.vec_busy.next = self.vec_busy.val() | (self.unit.val() << p);
            }
            if self.cret[p].q.val().any() {
                self.vec_cret.next = self.vec_cret.val() | (self.unit.val() << p);
            }
            self.flit_pack.parts[p].next = self.of[p].q.val();
            self.count_pack.parts[p].next = self.cnt[p].q.val();
            self.state_pack.parts[p].next = self.st[p].q.val();
            self.route_pack.parts[p].next = self.rt[p].q.val();
            self.vcpl_pack.parts[p].next = self.vcpl[p].q.val();
            self.owner_pack.parts[p].next = self.owner[p].q.val();
            self.credit_pack.parts[p].next = self.credit[p].q.val();
        }
        self.out_valid.next = self.vec_ov.val();
        self.out_flit.next = self.flit_pack.whole.val();
        self.in_credit.next = self.vec_cret.val();
        self.dbg_count.next = self.count_pack.whole.val();
        self.dbg_front.next = self.vec_fv.val();
        self.dbg_state.next = self.state_pack.whole.val();
        self.dbg_route.next = self.route_pack.whole.val();
        self.dbg_vcpl.next = self.vcpl_pack.whole.val();
        self.dbg_busy.next = self.vec_busy.val();
        self.dbg_owner.next = self.owner_pack.whole.val();
        self.dbg_credit.next = self.credit_pack.whole.val();
        self.dbg_gnt.next = self.gnt_pack.whole.val();
        self.dbg_ptr.next = self.ptr_pack.whole.val();
        self.dbg_lost.next = self.lost_pack.whole.val();
    }
}

/// The `msap-router` unit on its own: a [`MsapRouter`] at the position its configuration
/// names (`x`, `y` as constants), with the router's ports.
#[derive(LogicBlock)]
pub struct MsapRouterAt {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Wire<In>,
    pub in_flit: Wire<In>,
    pub out_credit: Wire<In>,
    pub out_valid: Wire<Out>,
    pub out_flit: Wire<Out>,
    pub in_credit: Wire<Out>,
    pub dbg_count: Wire<Out>,
    pub dbg_front: Wire<Out>,
    pub dbg_state: Wire<Out>,
    pub dbg_route: Wire<Out>,
    pub dbg_vcpl: Wire<Out>,
    pub dbg_busy: Wire<Out>,
    pub dbg_owner: Wire<Out>,
    pub dbg_credit: Wire<Out>,
    pub dbg_gnt: Wire<Out>,
    pub dbg_ptr: Wire<Out>,
    pub dbg_lost: Wire<Out>,
    core: MsapRouter,
    x: Fixed,
    y: Fixed,
}

impl MsapRouterAt {
    pub fn new(cfg: &RouterConfig) -> MsapRouterAt {
        let core = MsapRouter::new(cfg);
        MsapRouterAt {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Wire::new(core.in_valid.width()),
            in_flit: Wire::new(core.in_flit.width()),
            out_credit: Wire::new(core.out_credit.width()),
            out_valid: Wire::new(core.out_valid.width()),
            out_flit: Wire::new(core.out_flit.width()),
            in_credit: Wire::new(core.in_credit.width()),
            dbg_count: Wire::new(core.dbg_count.width()),
            dbg_front: Wire::new(core.dbg_front.width()),
            dbg_state: Wire::new(core.dbg_state.width()),
            dbg_route: Wire::new(core.dbg_route.width()),
            dbg_vcpl: Wire::new(core.dbg_vcpl.width()),
            dbg_busy: Wire::new(core.dbg_busy.width()),
            dbg_owner: Wire::new(core.dbg_owner.width()),
            dbg_credit: Wire::new(core.dbg_credit.width()),
            dbg_gnt: Wire::new(core.dbg_gnt.width()),
            dbg_ptr: Wire::new(core.dbg_ptr.width()),
            dbg_lost: Wire::new(core.dbg_lost.width()),
            core,
            x: Fixed::new(cfg.x as u64),
            y: Fixed::new(cfg.y as u64),
        }
    }
}

impl Logic for MsapRouterAt {
    #[hdl_gen]
    fn update(&mut self) {
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.core.at_x.next = self.x.val();
        self.core.at_y.next = self.y.val();
        self.core.in_valid.next = self.in_valid.val();
        self.core.in_flit.next = self.in_flit.val();
        self.core.out_credit.next = self.out_credit.val();
        self.out_valid.next = self.core.out_valid.val();
        self.out_flit.next = self.core.out_flit.val();
        self.in_credit.next = self.core.in_credit.val();
        self.dbg_count.next = self.core.dbg_count.val();
        self.dbg_front.next = self.core.dbg_front.val();
        self.dbg_state.next = self.core.dbg_state.val();
        self.dbg_route.next = self.core.dbg_route.val();
        self.dbg_vcpl.next = self.core.dbg_vcpl.val();
        self.dbg_busy.next = self.core.dbg_busy.val();
        self.dbg_owner.next = self.core.dbg_owner.val();
        self.dbg_credit.next = self.core.dbg_credit.val();
        self.dbg_gnt.next = self.core.dbg_gnt.val();
        self.dbg_ptr.next = self.core.dbg_ptr.val();
        self.dbg_lost.next = self.core.dbg_lost.val();
    }
}

/// The first statement of the kernel's SA part, which reads the arbiters' grants.
const SA_START: &str = "        granted__0 = 1'b0;\n";

/// Verilog of one msap-router configuration.
///
/// rust-hdl writes the kernel as one `always @(*)` block. That block drives the arbiters'
/// requests and reads their grants, and Verilator does not split a block this large by
/// itself: it sees a combinational loop (`UNOPTFLAT`) and evaluates it iteratively. The
/// block is cut in two where SA starts (everything before it — RC, the requests — reads no
/// grant; nothing after it writes a variable the first part writes), which is the same logic.
pub fn generate(cfg: &RouterConfig) -> Design {
    if cfg.vcs > 1 {
        return crate::msap_router_vc::generate(cfg);
    }
    let mut block = MsapRouterAt::new(cfg);
    let mut d = emit(&mut block, &cfg.module_name());
    d.verilog = split_kernels(&d.verilog, 1);
    d
}

/// Cut the kernel of each router module in `verilog` where SA starts (see [`generate`]); a
/// design that instantiates `routers` routers (`msap-noc`) does the same. Identical router
/// modules are merged by the emitter, so there are between one and `routers` of them.
pub fn split_kernels(verilog: &str, routers: usize) -> String {
    let found = verilog.matches(SA_START).count();
    assert!(
        (1..=routers).contains(&found),
        "the SA part starts once per router module ({found} for {routers} routers)"
    );
    cut_before(verilog, SA_START)
}

/// `verilog` with every combinational block that holds the statement line `mark` ended just
/// before it and a new block begun there.
pub(crate) fn cut_before(verilog: &str, mark: &str) -> String {
    verilog.replace(mark, &format!("    end\n    always @(*) begin\n{mark}"))
}
