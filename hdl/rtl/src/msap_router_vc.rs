//! RTL of msap-router with V > 1 virtual channels (spec/msap.md §2.5, §3.4; contract
//! `warpforge_contract::units::msap_router`, "V > 1"). `msap_router::generate` builds this
//! for `vcs > 1`; the V = 1 router stays its own design.
//!
//! Per input VC q = p·V + v: its buffer in the RAM primitive (read one row at a time into the
//! RAM's read register, the front), state, route, latched PL and granted output VC. Per output
//! VC: busy, owner, credits. VA and SA are separable input-first allocators, each stage a
//! [`PrioArb`]: stage 1 per input over its V VCs, stage 2 per output over the five stage-1
//! winners that target it. A stage-2 arbiter always commits; a stage-1 arbiter commits only
//! when its input won a stage-2 grant (the iSLIP rule of §2.6). VA gives the output's lowest
//! free VC. SA moves one flit per input and per output per cycle, its `vc` field rewritten
//! to the output VC.
//!
//! rust-hdl indexes arrays only by loop variables, so the (port, VC) of each q are constants
//! (`qp`, `qv`) compared inside the loops; synthesis folds the comparisons.

use crate::msap_arbiter::PrioArb;
use crate::primitives::{emit, Concat, Fixed, Split, Wire, WordReg, WordRegInit};
use crate::ram::Ram;
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::msap_router::{RouterConfig, PORTS};

#[derive(LogicBlock)]
pub struct MsapRouterVc {
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
    pub dbg_ovc: Wire<Out>,
    pub dbg_sa: Wire<Out>,
    pub dbg_ptr_va1: Wire<Out>,
    pub dbg_ptr_sa1: Wire<Out>,
    pub dbg_ptr_sa2: Wire<Out>,
    pub at_x: Wire<In>,
    pub at_y: Wire<In>,

    // Per input port.
    ins: Split,
    in_vc: Vec<Wire<Local>>,
    va1: Vec<PrioArb>,
    sa1: Vec<PrioArb>,
    va1_req: Vec<Wire<Local>>,
    va1_pl: Vec<Wire<Local>>,
    sa1_req: Vec<Wire<Local>>,
    sa1_pl: Vec<Wire<Local>>,
    va1_rt: Vec<Wire<Local>>,
    sa1_rt: Vec<Wire<Local>>,
    va2_plc: Concat,
    sa2_plc: Concat,

    // Per input VC.
    qp: Vec<Fixed>,
    qv: Vec<Fixed>,
    qsh: Vec<Fixed>,
    qid: Vec<Fixed>,
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
    ovc: Vec<WordReg>,
    cret: Vec<WordReg>,
    fr_route: Vec<Wire<Local>>,
    rc: Vec<Signal<Local, Bit>>,
    va_req: Vec<Signal<Local, Bit>>,
    sa_req: Vec<Signal<Local, Bit>>,
    s1va: Vec<Signal<Local, Bit>>,
    s1sa: Vec<Signal<Local, Bit>>,
    vgrant: Vec<Signal<Local, Bit>>,
    go: Vec<Signal<Local, Bit>>,
    new_ovc: Vec<Wire<Local>>,
    wr: Vec<Signal<Local, Bit>>,
    rd: Vec<Signal<Local, Bit>>,

    // Per output port.
    va2: Vec<PrioArb>,
    sa2: Vec<PrioArb>,
    free: Vec<Signal<Local, Bit>>,
    fw: Vec<Wire<Local>>,
    ov: Vec<WordReg>,
    of: Vec<WordReg>,
    sent: Vec<Signal<Local, Bit>>,

    // Per output VC.
    oqp: Vec<Fixed>,
    oqv: Vec<Fixed>,
    busy: Vec<WordReg>,
    owner: Vec<WordReg>,
    credit: Vec<WordRegInit>,
    dec: Vec<Signal<Local, Bit>>,

    flit_pack: Concat,
    count_pack: Concat,
    state_pack: Concat,
    route_pack: Concat,
    vcpl_pack: Concat,
    ovc_pack: Concat,
    owner_pack: Concat,
    credit_pack: Concat,
    gnt_pack: Concat,
    sa_pack: Concat,
    ptr_pack: Concat,
    lost_pack: Concat,
    pva1_pack: Concat,
    psa1_pack: Concat,
    psa2_pack: Concat,
    vec_ov: Wire<Local>,
    vec_fv: Wire<Local>,
    vec_busy: Wire<Local>,
    vec_cret: Wire<Local>,
    unit: Wire<Local>,
    sh_dx: Fixed,
    sh_dy: Fixed,
    sh_pl: Fixed,
    sh_vc: Fixed,
    keep: Fixed,
    /// 1: static VC (a packet keeps its VC at every hop, the network's routers).
    stat: Fixed,
}

impl MsapRouterVc {
    pub fn new(cfg: &RouterConfig) -> MsapRouterVc {
        assert!(cfg.vcs > 1, "the V = 1 router is msap_router::MsapRouter");
        let (n, v, nq) = (PORTS, cfg.vcs, cfg.nq());
        let (fb, cb, pb, vb, ob) = (
            cfg.flit_bits(),
            cfg.count_bits(),
            cfg.pl_bits,
            cfg.vb(),
            cfg.owner_bits(),
        );
        let pw = cfg.ram().addr_bits();
        let (a1, a2) = (cfg.arbiter1(), cfg.arbiter());
        let regs = |k: usize, w: usize| (0..k).map(|_| WordReg::new(w)).collect::<Vec<_>>();
        let wires = |k: usize, w: usize| (0..k).map(|_| Wire::new(w)).collect::<Vec<_>>();
        let bits = |k: usize| (0..k).map(|_| Default::default()).collect::<Vec<_>>();
        let fixed = |f: &dyn Fn(usize) -> u64, k: usize| (0..k).map(|i| Fixed::new(f(i))).collect();
        let p1 = a1.ptrs() * a1.idx_bits();
        let p2 = a2.ptrs() * a2.idx_bits();
        let lost_w = (n * a2.lost_bits()).max(1);
        let vmask = ((1u64 << vb) - 1) << cfg.vc_at();
        let fmask = if fb >= 64 { u64::MAX } else { (1u64 << fb) - 1 };
        MsapRouterVc {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Wire::new(n),
            in_flit: Wire::new(n * fb),
            out_credit: Wire::new(nq),
            out_valid: Wire::new(n),
            out_flit: Wire::new(n * fb),
            in_credit: Wire::new(nq),
            dbg_count: Wire::new(nq * cb),
            dbg_front: Wire::new(nq),
            dbg_state: Wire::new(nq * 2),
            dbg_route: Wire::new(nq * 3),
            dbg_vcpl: Wire::new(nq * pb),
            dbg_busy: Wire::new(nq),
            dbg_owner: Wire::new(nq * ob),
            dbg_credit: Wire::new(nq * cb),
            dbg_gnt: Wire::new(n * n),
            dbg_ptr: Wire::new(n * p2),
            dbg_lost: Wire::new(n * lost_w),
            dbg_ovc: Wire::new(nq * vb),
            dbg_sa: Wire::new(n * n),
            dbg_ptr_va1: Wire::new(n * p1),
            dbg_ptr_sa1: Wire::new(n * p1),
            dbg_ptr_sa2: Wire::new(n * p2),
            at_x: Wire::new(cfg.xb()),
            at_y: Wire::new(cfg.yb()),
            ins: Split::new(&vec![fb; n]),
            in_vc: wires(n, vb),
            va1: (0..n).map(|_| PrioArb::new(&a1)).collect(),
            sa1: (0..n).map(|_| PrioArb::new(&a1)).collect(),
            va1_req: wires(n, v),
            va1_pl: wires(n, v * pb),
            sa1_req: wires(n, v),
            sa1_pl: wires(n, v * pb),
            va1_rt: wires(n, 3),
            sa1_rt: wires(n, 3),
            va2_plc: Concat::new(&vec![pb; n]),
            sa2_plc: Concat::new(&vec![pb; n]),
            qp: fixed(&|q| (q / v) as u64, nq),
            qv: fixed(&|q| (q % v) as u64, nq),
            qsh: fixed(&|q| ((q % v) * pb) as u64, nq),
            qid: fixed(&|q| q as u64, nq),
            buf: (0..nq).map(|_| Ram::new(&cfg.ram())).collect(),
            f_head: bits(nq),
            f_tail: bits(nq),
            f_dx: wires(nq, cfg.xb()),
            f_dy: wires(nq, cfg.yb()),
            f_pl: wires(nq, pb),
            cnt: regs(nq, cb),
            wp: regs(nq, pw),
            rp: regs(nq, pw),
            fv: regs(nq, 1),
            st: regs(nq, 2),
            rt: regs(nq, 3),
            vcpl: regs(nq, pb),
            ovc: regs(nq, vb),
            cret: regs(nq, 1),
            fr_route: wires(nq, 3),
            rc: bits(nq),
            va_req: bits(nq),
            sa_req: bits(nq),
            s1va: bits(nq),
            s1sa: bits(nq),
            vgrant: bits(nq),
            go: bits(nq),
            new_ovc: wires(nq, vb),
            wr: bits(nq),
            rd: bits(nq),
            va2: (0..n).map(|_| PrioArb::new(&a2)).collect(),
            sa2: (0..n).map(|_| PrioArb::new(&a2)).collect(),
            free: bits(n),
            fw: wires(n, vb),
            ov: regs(n, 1),
            of: regs(n, fb),
            sent: bits(n),
            oqp: fixed(&|q| (q / v) as u64, nq),
            oqv: fixed(&|q| (q % v) as u64, nq),
            busy: regs(nq, 1),
            owner: regs(nq, ob),
            credit: (0..nq)
                .map(|_| WordRegInit::new(cb, cfg.buf_depth as u64))
                .collect(),
            dec: bits(nq),
            flit_pack: Concat::new(&vec![fb; n]),
            count_pack: Concat::new(&vec![cb; nq]),
            state_pack: Concat::new(&vec![2; nq]),
            route_pack: Concat::new(&vec![3; nq]),
            vcpl_pack: Concat::new(&vec![pb; nq]),
            ovc_pack: Concat::new(&vec![vb; nq]),
            owner_pack: Concat::new(&vec![ob; nq]),
            credit_pack: Concat::new(&vec![cb; nq]),
            gnt_pack: Concat::new(&vec![n; n]),
            sa_pack: Concat::new(&vec![n; n]),
            ptr_pack: Concat::new(&vec![p2; n]),
            lost_pack: Concat::new(&vec![lost_w; n]),
            pva1_pack: Concat::new(&vec![p1; n]),
            psa1_pack: Concat::new(&vec![p1; n]),
            psa2_pack: Concat::new(&vec![p2; n]),
            vec_ov: Wire::new(n),
            vec_fv: Wire::new(nq),
            vec_busy: Wire::new(nq),
            vec_cret: Wire::new(nq),
            unit: Wire::new(nq),
            sh_dx: Fixed::new(cfg.dst_x_at() as u64),
            sh_dy: Fixed::new(cfg.dst_y_at() as u64),
            sh_pl: Fixed::new(cfg.pl_at() as u64),
            sh_vc: Fixed::new(cfg.vc_at() as u64),
            keep: Fixed::new(fmask & !vmask),
            stat: Fixed::new(cfg.static_vc as u64),
        }
    }
}

impl Logic for MsapRouterVc {
    // `d + 1 <= at` rather than `d < at`: at the mesh edge (at = 0) the latter is a constant
    // comparison Verilator's lint rejects.
    #[allow(clippy::int_plus_one)]
    #[hdl_gen]
    fn update(&mut self) {
        for q in 0..self.cnt.len() {
            self.buf[q].clock.next = self.clock.val();
            self.cnt[q].clock.next = self.clock.val();
            self.cnt[q].reset.next = self.reset.val();
            self.wp[q].clock.next = self.clock.val();
            self.wp[q].reset.next = self.reset.val();
            self.rp[q].clock.next = self.clock.val();
            self.rp[q].reset.next = self.reset.val();
            self.fv[q].clock.next = self.clock.val();
            self.fv[q].reset.next = self.reset.val();
            self.st[q].clock.next = self.clock.val();
            self.st[q].reset.next = self.reset.val();
            self.rt[q].clock.next = self.clock.val();
            self.rt[q].reset.next = self.reset.val();
            self.vcpl[q].clock.next = self.clock.val();
            self.vcpl[q].reset.next = self.reset.val();
            self.ovc[q].clock.next = self.clock.val();
            self.ovc[q].reset.next = self.reset.val();
            self.cret[q].clock.next = self.clock.val();
            self.cret[q].reset.next = self.reset.val();
            self.busy[q].clock.next = self.clock.val();
            self.busy[q].reset.next = self.reset.val();
            self.owner[q].clock.next = self.clock.val();
            self.owner[q].reset.next = self.reset.val();
            self.credit[q].clock.next = self.clock.val();
            self.credit[q].reset.next = self.reset.val();
        }
        for p in 0..self.va1.len() {
            self.va1[p].clock.next = self.clock.val();
            self.va1[p].reset.next = self.reset.val();
            self.sa1[p].clock.next = self.clock.val();
            self.sa1[p].reset.next = self.reset.val();
            self.va2[p].clock.next = self.clock.val();
            self.va2[p].reset.next = self.reset.val();
            self.sa2[p].clock.next = self.clock.val();
            self.sa2[p].reset.next = self.reset.val();
            self.ov[p].clock.next = self.clock.val();
            self.ov[p].reset.next = self.reset.val();
            self.of[p].clock.next = self.clock.val();
            self.of[p].reset.next = self.reset.val();
        }
        self.unit.next = 1.into();
        self.ins.whole.next = self.in_flit.val();
        for p in 0..self.va1.len() {
            self.in_vc[p].next = self.ins.parts[p].val() >> self.sh_vc.val();
        }

        // Each output's lowest free VC.
        for o in 0..self.va2.len() {
            self.free[o].next = false;
            self.fw[o].next = 0.into();
            for k in 0..self.busy.len() {
                if (self.oqp[k].val() == o) & !self.busy[k].q.val().any() & !self.free[o].val() {
                    self.free[o].next = true;
                    self.fw[o].next = self.oqv[k].val();
                }
            }
        }

        // RC (XY, X first) and the stage-1 requests of VA and SA, per input VC.
        for q in 0..self.cnt.len() {
            self.f_head[q].next = self.buf[q].rdata.val().get_bit(0);
            self.f_tail[q].next = self.buf[q].rdata.val().get_bit(1);
            self.f_dx[q].next = self.buf[q].rdata.val() >> self.sh_dx.val();
            self.f_dy[q].next = self.buf[q].rdata.val() >> self.sh_dy.val();
            self.f_pl[q].next = self.buf[q].rdata.val() >> self.sh_pl.val();
            self.fr_route[q].next = 0.into();
            if self.f_dy[q].val() + 1 <= self.at_y.val() {
                self.fr_route[q].next = 1.into();
            }
            if self.f_dy[q].val() > self.at_y.val() {
                self.fr_route[q].next = 3.into();
            }
            if self.f_dx[q].val() + 1 <= self.at_x.val() {
                self.fr_route[q].next = 4.into();
            }
            if self.f_dx[q].val() > self.at_x.val() {
                self.fr_route[q].next = 2.into();
            }
            self.rc[q].next =
                (self.st[q].q.val() == 0) & self.fv[q].q.val().any() & self.f_head[q].val();
            // VA: in VA while its output has a free VC (static VC: its own VC is free).
            self.va_req[q].next = false;
            for o in 0..self.va2.len() {
                if (self.st[q].q.val() == 1)
                    & (self.rt[q].q.val() == o)
                    & self.free[o].val()
                    & !self.stat.val().any()
                {
                    self.va_req[q].next = true;
                }
            }
            for k in 0..self.busy.len() {
                if self.stat.val().any()
                    & (self.st[q].q.val() == 1)
                    & (self.oqp[k].val() == self.rt[q].q.val())
                    & (self.oqv[k].val() == self.qv[q].val())
                    & !self.busy[k].q.val().any()
                {
                    self.va_req[q].next = true;
                }
            }
            // SA: ACTIVE with a front flit and a credit on its output VC.
            self.sa_req[q].next = false;
            for k in 0..self.busy.len() {
                if (self.st[q].q.val() == 2)
                    & self.fv[q].q.val().any()
                    & (self.oqp[k].val() == self.rt[q].q.val())
                    & (self.oqv[k].val() == self.ovc[q].q.val())
                    & (self.credit[k].q.val() != 0)
                {
                    self.sa_req[q].next = true;
                }
            }
        }
        for p in 0..self.va1.len() {
            self.va1_req[p].next = 0.into();
            self.va1_pl[p].next = 0.into();
            self.sa1_req[p].next = 0.into();
            self.sa1_pl[p].next = 0.into();
            for q in 0..self.cnt.len() {
                if self.qp[q].val() == p {
                    self.va1_pl[p].next =
                        self.va1_pl[p].val() | (self.vcpl[q].q.val() << self.qsh[q].val());
                    self.sa1_pl[p].next =
                        self.sa1_pl[p].val() | (self.vcpl[q].q.val() << self.qsh[q].val());
                    if self.va_req[q].val() {
                        self.va1_req[p].next =
                            self.va1_req[p].val() | (self.unit.val() << self.qv[q].val());
                    }
                    if self.sa_req[q].val() {
                        self.sa1_req[p].next =
                            self.sa1_req[p].val() | (self.unit.val() << self.qv[q].val());
                    }
                }
            }
            self.va1[p].req.next = self.va1_req[p].val();
            self.va1[p].pl.next = self.va1_pl[p].val();
            self.sa1[p].req.next = self.sa1_req[p].val();
            self.sa1[p].pl.next = self.sa1_pl[p].val();
        }

        // Stage 2: the stage-1 winners' routes and PLs, per output (reads stage-1 grants).
        for q in 0..self.cnt.len() {
            self.s1va[q].next = false;
            self.s1sa[q].next = false;
            for p in 0..self.va1.len() {
                if (self.qp[q].val() == p)
                    & self.va1[p].gnt_valid.val()
                    & (self.va1[p].gnt_idx.val() == self.qv[q].val())
                {
                    self.s1va[q].next = true;
                }
                if (self.qp[q].val() == p)
                    & self.sa1[p].gnt_valid.val()
                    & (self.sa1[p].gnt_idx.val() == self.qv[q].val())
                {
                    self.s1sa[q].next = true;
                }
            }
        }
        for p in 0..self.va1.len() {
            self.va1_rt[p].next = 0.into();
            self.sa1_rt[p].next = 0.into();
            self.va2_plc.parts[p].next = 0.into();
            self.sa2_plc.parts[p].next = 0.into();
            for q in 0..self.cnt.len() {
                if (self.qp[q].val() == p) & self.s1va[q].val() {
                    self.va1_rt[p].next = self.rt[q].q.val();
                    self.va2_plc.parts[p].next = self.vcpl[q].q.val();
                }
                if (self.qp[q].val() == p) & self.s1sa[q].val() {
                    self.sa1_rt[p].next = self.rt[q].q.val();
                    self.sa2_plc.parts[p].next = self.vcpl[q].q.val();
                }
            }
        }
        for o in 0..self.va2.len() {
            self.va2[o].req.next = 0.into();
            self.sa2[o].req.next = 0.into();
            for p in 0..self.va1.len() {
                if self.va1[p].gnt_valid.val() & (self.va1_rt[p].val() == o) {
                    self.va2[o].req.next = self.va2[o].req.val() | (self.unit.val() << p);
                }
                if self.sa1[p].gnt_valid.val() & (self.sa1_rt[p].val() == o) {
                    self.sa2[o].req.next = self.sa2[o].req.val() | (self.unit.val() << p);
                }
            }
            self.va2[o].pl.next = self.va2_plc.whole.val();
            self.sa2[o].pl.next = self.sa2_plc.whole.val();
            self.va2[o].commit.next = true;
            self.sa2[o].commit.next = true;
        }

        // Grants (reads stage-2 grants): stage 1 commits for the inputs that won stage 2.
        for p in 0..self.va1.len() {
            self.va1[p].commit.next = false;
            self.sa1[p].commit.next = false;
            for o in 0..self.va2.len() {
                if self.va2[o].gnt.val().get_bit(p) {
                    self.va1[p].commit.next = true;
                }
                if self.sa2[o].gnt.val().get_bit(p) {
                    self.sa1[p].commit.next = true;
                }
            }
            self.pva1_pack.parts[p].next = self.va1[p].dbg_ptr.val();
            self.psa1_pack.parts[p].next = self.sa1[p].dbg_ptr.val();
            // Stage-2 grants and state, read in this part only (no loop through a block).
            self.gnt_pack.parts[p].next = self.va2[p].gnt.val();
            self.sa_pack.parts[p].next = self.sa2[p].gnt.val();
            self.ptr_pack.parts[p].next = self.va2[p].dbg_ptr.val();
            self.lost_pack.parts[p].next = self.va2[p].dbg_lost.val();
            self.psa2_pack.parts[p].next = self.sa2[p].dbg_ptr.val();
        }
        for q in 0..self.cnt.len() {
            self.vgrant[q].next = false;
            self.go[q].next = false;
            self.new_ovc[q].next = 0.into();
            for o in 0..self.va2.len() {
                if (self.rt[q].q.val() == o) & !self.stat.val().any() {
                    self.new_ovc[q].next = self.fw[o].val();
                }
                if (self.rt[q].q.val() == o) & self.stat.val().any() {
                    self.new_ovc[q].next = self.qv[q].val();
                }
                if self.rt[q].q.val() == o {
                    if self.s1va[q].val()
                        & self.va2[o].gnt_valid.val()
                        & (self.va2[o].gnt_idx.val() == self.qp[q].val())
                    {
                        self.vgrant[q].next = true;
                    }
                    if self.s1sa[q].val()
                        & self.sa2[o].gnt_valid.val()
                        & (self.sa2[o].gnt_idx.val() == self.qp[q].val())
                    {
                        self.go[q].next = true;
                    }
                }
            }

            // Input VC state.
            self.st[q].d.next = self.st[q].q.val();
            self.rt[q].d.next = self.rt[q].q.val();
            self.vcpl[q].d.next = self.vcpl[q].q.val();
            self.ovc[q].d.next = self.ovc[q].q.val();
            if self.rc[q].val() {
                self.st[q].d.next = 1.into();
                self.rt[q].d.next = self.fr_route[q].val();
                self.vcpl[q].d.next = self.f_pl[q].val();
            }
            if self.vgrant[q].val() {
                self.st[q].d.next = 2.into();
                self.ovc[q].d.next = self.new_ovc[q].val();
            }
            if self.go[q].val() & self.f_tail[q].val() {
                self.st[q].d.next = 0.into();
            }

            // The VC's buffer: written when a flit of this VC arrives on its port.
            self.wr[q].next = false;
            self.buf[q].wdata.next = 0.into();
            for p in 0..self.va1.len() {
                if (self.qp[q].val() == p) & (self.in_vc[p].val() == self.qv[q].val()) {
                    self.buf[q].wdata.next = self.ins.parts[p].val();
                    if self.in_valid.val().get_bit(p) {
                        self.wr[q].next = true;
                    }
                }
            }
            self.rd[q].next =
                (self.cnt[q].q.val() != 0) & (!self.fv[q].q.val().any() | self.go[q].val());
            self.buf[q].we.next = self.wr[q].val();
            self.buf[q].wbe.next = 1.into();
            self.buf[q].waddr.next = self.wp[q].q.val();
            self.buf[q].re.next = self.rd[q].val();
            self.buf[q].raddr.next = self.rp[q].q.val();
            self.wp[q].d.next = self.wp[q].q.val();
            if self.wr[q].val() {
                self.wp[q].d.next = self.wp[q].q.val() + 1;
            }
            self.rp[q].d.next = self.rp[q].q.val();
            if self.rd[q].val() {
                self.rp[q].d.next = self.rp[q].q.val() + 1;
            }
            self.cnt[q].d.next = self.cnt[q].q.val();
            if self.wr[q].val() & !self.rd[q].val() {
                self.cnt[q].d.next = self.cnt[q].q.val() + 1;
            }
            if self.rd[q].val() & !self.wr[q].val() {
                self.cnt[q].d.next = self.cnt[q].q.val() - 1;
            }
            self.fv[q].d.next =
                (self.rd[q].val() | (self.fv[q].q.val().any() & !self.go[q].val())).into();
            self.cret[q].d.next = self.rd[q].val().into();
        }

        // Per output: the ST register takes the moving flit with its output VC.
        for o in 0..self.va2.len() {
            self.sent[o].next = false;
            self.of[o].d.next = 0.into();
            for q in 0..self.cnt.len() {
                if self.go[q].val() & (self.rt[q].q.val() == o) {
                    self.sent[o].next = true;
                    self.of[o].d.next = (self.buf[q].rdata.val() & self.keep.val())
                        | (self.ovc[q].q.val() << self.sh_vc.val());
                }
            }
            self.ov[o].d.next = self.sent[o].val().into();
        }

        // Per output VC: ownership (VA grant; the tail releases it), credits.
        for k in 0..self.busy.len() {
            self.busy[k].d.next = self.busy[k].q.val();
            self.owner[k].d.next = self.owner[k].q.val();
            self.dec[k].next = false;
            for q in 0..self.cnt.len() {
                if self.vgrant[q].val()
                    & (self.oqp[k].val() == self.rt[q].q.val())
                    & (self.oqv[k].val() == self.new_ovc[q].val())
                {
                    self.busy[k].d.next = 1.into();
                    self.owner[k].d.next = self.qid[q].val();
                }
                if self.go[q].val()
                    & (self.oqp[k].val() == self.rt[q].q.val())
                    & (self.oqv[k].val() == self.ovc[q].q.val())
                {
                    self.dec[k].next = true;
                    if self.f_tail[q].val() {
                        self.busy[k].d.next = 0.into();
                    }
                }
            }
            self.credit[k].d.next = self.credit[k].q.val();
            if self.dec[k].val() & !self.out_credit.val().get_bit(k) {
                self.credit[k].d.next = self.credit[k].q.val() - 1;
            }
            if !self.dec[k].val() & self.out_credit.val().get_bit(k) {
                self.credit[k].d.next = self.credit[k].q.val() + 1;
            }
        }

        // Outputs and the state digest.
        self.vec_ov.next = 0.into();
        for o in 0..self.va2.len() {
            if self.ov[o].q.val().any() {
                self.vec_ov.next = self.vec_ov.val() | (self.unit.val() << o);
            }
            self.flit_pack.parts[o].next = self.of[o].q.val();
        }
        self.vec_fv.next = 0.into();
        self.vec_busy.next = 0.into();
        self.vec_cret.next = 0.into();
        for q in 0..self.cnt.len() {
            if self.fv[q].q.val().any() {
                self.vec_fv.next = self.vec_fv.val() | (self.unit.val() << q);
            }
            if self.busy[q].q.val().any() {
                self.vec_busy.next = self.vec_busy.val() | (self.unit.val() << q);
            }
            if self.cret[q].q.val().any() {
                self.vec_cret.next = self.vec_cret.val() | (self.unit.val() << q);
            }
            self.count_pack.parts[q].next = self.cnt[q].q.val();
            self.state_pack.parts[q].next = self.st[q].q.val();
            self.route_pack.parts[q].next = self.rt[q].q.val();
            self.vcpl_pack.parts[q].next = self.vcpl[q].q.val();
            self.ovc_pack.parts[q].next = self.ovc[q].q.val();
            self.owner_pack.parts[q].next = self.owner[q].q.val();
            self.credit_pack.parts[q].next = self.credit[q].q.val();
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
        self.dbg_ovc.next = self.ovc_pack.whole.val();
        self.dbg_sa.next = self.sa_pack.whole.val();
        self.dbg_ptr_va1.next = self.pva1_pack.whole.val();
        self.dbg_ptr_sa1.next = self.psa1_pack.whole.val();
        self.dbg_ptr_sa2.next = self.psa2_pack.whole.val();
    }
}

/// The V > 1 unit: a [`MsapRouterVc`] at its configuration's position.
#[derive(LogicBlock)]
pub struct MsapRouterVcAt {
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
    pub dbg_ovc: Wire<Out>,
    pub dbg_sa: Wire<Out>,
    pub dbg_ptr_va1: Wire<Out>,
    pub dbg_ptr_sa1: Wire<Out>,
    pub dbg_ptr_sa2: Wire<Out>,
    core: MsapRouterVc,
    x: Fixed,
    y: Fixed,
}

impl MsapRouterVcAt {
    pub fn new(cfg: &RouterConfig) -> MsapRouterVcAt {
        let c = MsapRouterVc::new(cfg);
        let w = |x: &Wire<Out>| Wire::new(x.width());
        MsapRouterVcAt {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Wire::new(c.in_valid.width()),
            in_flit: Wire::new(c.in_flit.width()),
            out_credit: Wire::new(c.out_credit.width()),
            out_valid: w(&c.out_valid),
            out_flit: w(&c.out_flit),
            in_credit: w(&c.in_credit),
            dbg_count: w(&c.dbg_count),
            dbg_front: w(&c.dbg_front),
            dbg_state: w(&c.dbg_state),
            dbg_route: w(&c.dbg_route),
            dbg_vcpl: w(&c.dbg_vcpl),
            dbg_busy: w(&c.dbg_busy),
            dbg_owner: w(&c.dbg_owner),
            dbg_credit: w(&c.dbg_credit),
            dbg_gnt: w(&c.dbg_gnt),
            dbg_ptr: w(&c.dbg_ptr),
            dbg_lost: w(&c.dbg_lost),
            dbg_ovc: w(&c.dbg_ovc),
            dbg_sa: w(&c.dbg_sa),
            dbg_ptr_va1: w(&c.dbg_ptr_va1),
            dbg_ptr_sa1: w(&c.dbg_ptr_sa1),
            dbg_ptr_sa2: w(&c.dbg_ptr_sa2),
            core: c,
            x: Fixed::new(cfg.x as u64),
            y: Fixed::new(cfg.y as u64),
        }
    }
}

impl Logic for MsapRouterVcAt {
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
        self.dbg_ovc.next = self.core.dbg_ovc.val();
        self.dbg_sa.next = self.core.dbg_sa.val();
        self.dbg_ptr_va1.next = self.core.dbg_ptr_va1.val();
        self.dbg_ptr_sa1.next = self.core.dbg_ptr_sa1.val();
        self.dbg_ptr_sa2.next = self.core.dbg_ptr_sa2.val();
    }
}

/// The first statements of the kernel's stage-2 part (reads stage-1 grants) and of its grant
/// part (reads stage-2 grants).
const STAGE2_START: &str = "        s1va__0 = 1'b0;\n";
const GRANT_START: &str = "        va1__0__commit__drv = 1'b0;\n";

/// In each arbiter's kernel: where its pointer update (reads `commit`) and its grant outputs
/// start.
const ARB_UPDATE_START: &str = "        upd = commit & found;\n";
const ARB_GRANT_START: &str = "        gnt_valid = found;\n";

/// Verilog of one V > 1 msap-router configuration. As for V = 1 the kernel is cut into
/// always blocks where a part starts reading the arbiters' grants (stage 1, then stage 2),
/// so Verilator sees no combinational loop through one block. A stage-1 arbiter's `commit`
/// depends on stage-2 grants, and `PrioArb`'s kernel computes its grant and its pointer
/// update in one block: each arbiter module of this design (not the V = 1 router's) is cut
/// the same way, into search, pointer update and grant outputs — the same logic.
/// The kernel cuts of [`generate`] in a design holding V > 1 routers (`msap-noc`): every
/// router module and every arbiter module cut alike.
pub fn split_vc_kernels(verilog: &str) -> String {
    let mut v = verilog.to_string();
    for mark in [STAGE2_START, GRANT_START, ARB_UPDATE_START, ARB_GRANT_START] {
        assert!(v.contains(mark), "{mark:?} starts a part");
        v = crate::msap_router::cut_before(&v, mark);
    }
    v
}

pub fn generate(cfg: &RouterConfig) -> Design {
    let mut block = MsapRouterVcAt::new(cfg);
    let mut d = emit(&mut block, &cfg.module_name());
    for mark in [STAGE2_START, GRANT_START] {
        let n = d.verilog.matches(mark).count();
        assert_eq!(n, 1, "{mark:?} starts one part");
        d.verilog = crate::msap_router::cut_before(&d.verilog, mark);
    }
    let arbs = d.verilog.matches("(clock,reset,req,pl,commit,").count();
    for mark in [ARB_UPDATE_START, ARB_GRANT_START] {
        let n = d.verilog.matches(mark).count();
        assert_eq!(n, arbs, "{mark:?} once per arbiter module");
        d.verilog = crate::msap_router::cut_before(&d.verilog, mark);
    }
    d
}
