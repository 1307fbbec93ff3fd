//! Constrained-random stimulus of `msap-router`: it plays the four neighbours and the NI
//! upstream (legal wormhole packets under credit flow control) and the five downstream
//! buffers (each returns one credit per flit it received, after a random delay).
//!
//! Upstream: each existing input sends packets of 1–6 flits (head … tail, one packet at a
//! time: V = 1), to destinations XY routing can bring through that input (a flit from the West
//! neighbour travels east or turns here, …; the NI never addresses its own node), with a PL
//! drawn from the phase's mix. Body flits carry random bits where a head has `dst` and `pl`:
//! only the head's are to be read. A flit is sent only with a credit, which comes back on
//! `in_credit`. Phases vary the injection rate, the PL mix (uniform, one level — the I-8
//! case —, two levels, hog inputs at the top PL), a hot output most packets aim at, and the
//! downstream delays (none, short, long stalls); rare resets.

use std::collections::VecDeque;

use super::model::{xy_route, Ports};
use crate::rng::Rng;
use crate::Stimulus;
use warpforge_contract::units::msap::max_pl;
use warpforge_contract::units::msap_router::{RouterConfig, EAST, NORTH, PORTS, SOUTH, WEST};

#[derive(Clone, Debug)]
pub struct MsapRouterStimulus {
    rng: Rng,
    cfg: RouterConfig,
    p: Ports,
    /// Upstream credits per input VC, and flits left in the packet being sent on it.
    credits: Vec<u32>,
    left: Vec<u32>,
    /// Downstream: per output VC, the cycles at which the received flits' credits return.
    returns: Vec<VecDeque<u64>>,
    phase_left: u64,
    /// Per 64: an input sends a flit this cycle.
    p_send: u64,
    /// 0 uniform, 1 one level, 2 two levels, 3 hogs at the top.
    mix: u64,
    levels: [u64; 2],
    hogs: u32,
    /// Output most destinations are drawn for (PORTS: none).
    hot: usize,
    /// Downstream delay: maximum extra cycles, and the chance (per 64) of a long stall.
    delay: u64,
    p_stall: u64,
    fresh: bool,
    /// Flit field positions and widths, computed once.
    f: FlitFields,
}

#[derive(Clone, Copy, Debug)]
struct FlitFields {
    bits: usize,
    payload_at: usize,
    payload_mask: u64,
    dst_x_at: usize,
    dst_y_at: usize,
    pl_at: usize,
    vc_mask: u64,
    vc_at: usize,
}

impl FlitFields {
    fn new(c: &RouterConfig) -> FlitFields {
        FlitFields {
            bits: c.flit_bits(),
            payload_at: c.payload_at(),
            payload_mask: (1u64 << c.payload_bits) - 1,
            dst_x_at: c.dst_x_at(),
            dst_y_at: c.dst_y_at(),
            pl_at: c.pl_at(),
            vc_mask: ((1u64 << c.vb()) - 1) << c.vc_at(),
            vc_at: c.vc_at(),
        }
    }
}

impl MsapRouterStimulus {
    pub fn new(cfg: &RouterConfig, seed: u64) -> MsapRouterStimulus {
        MsapRouterStimulus {
            rng: Rng::new(seed),
            p: Ports::new(cfg),
            credits: vec![cfg.buf_depth as u32; cfg.nq()],
            left: vec![0; cfg.nq()],
            returns: vec![VecDeque::new(); cfg.nq()],
            phase_left: 0,
            p_send: 32,
            mix: 0,
            levels: [0, 0],
            hogs: 0,
            hot: PORTS,
            delay: 0,
            p_stall: 0,
            fresh: true,
            f: FlitFields::new(cfg),
            cfg: cfg.clone(),
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        let top = max_pl(self.cfg.pl_bits);
        self.phase_left = 100 + r.below(3000);
        self.p_send = [64, 56, 40, 16, 4][r.below(5) as usize];
        self.mix = r.below(4);
        self.levels = [r.below(top + 1), r.below(top + 1)];
        self.hogs = r.below(1 << PORTS) as u32;
        self.hot = r.below(PORTS as u64 + 2).min(PORTS as u64) as usize;
        self.delay = [0, 0, 2, 6][r.below(4) as usize];
        self.p_stall = [0, 0, 1, 4][r.below(4) as usize];
    }

    fn pick_pl(&mut self, p: usize) -> u64 {
        let top = max_pl(self.cfg.pl_bits);
        match self.mix {
            0 => self.rng.below(top + 1),
            1 => self.levels[0],
            2 => self.levels[self.rng.below(2) as usize],
            _ if self.hogs >> p & 1 == 1 => top,
            _ => self.rng.below(top.max(1)),
        }
    }

    /// A destination XY routing can bring through input p, or None (no such input here).
    fn legal_dst(&mut self, p: usize) -> Option<(usize, usize)> {
        let c = &self.cfg;
        let (x, y, mx, my) = (c.x, c.y, c.mesh_x, c.mesh_y);
        if !c.has_port(p) {
            return None;
        }
        let r = &mut self.rng;
        let between =
            |r: &mut Rng, lo: usize, hi: usize| lo + r.below((hi - lo + 1) as u64) as usize;
        Some(match p {
            // From the West neighbour: travelling east (or turning here).
            WEST => (between(r, x, mx - 1), between(r, 0, my - 1)),
            EAST => (between(r, 0, x), between(r, 0, my - 1)),
            // From the North neighbour: travelling south, X already done.
            NORTH => (x, between(r, y, my - 1)),
            SOUTH => (x, between(r, 0, y)),
            // The NI: anywhere but here.
            _ => loop {
                let d = (between(r, 0, mx - 1), between(r, 0, my - 1));
                if d != (x, y) {
                    break d;
                }
            },
        })
    }

    fn dst(&mut self, p: usize) -> Option<(usize, usize)> {
        let mut d = self.legal_dst(p)?;
        // Aim at the hot output when this input can reach it.
        for _ in 0..6 {
            if self.hot == PORTS || xy_route(self.cfg.x, self.cfg.y, d.0, d.1) == self.hot {
                break;
            }
            d = self.legal_dst(p)?;
        }
        Some(d)
    }

    fn flit(&mut self, p: usize, vc: usize, head: bool, tail: bool) -> u64 {
        let c = self.f;
        let noise = self.rng.next_u64();
        let mut f = (head as u64) | (tail as u64) << 1;
        let payload = noise & c.payload_mask;
        f |= payload << c.payload_at;
        if head {
            let (dx, dy) = self.dst(p).unwrap();
            let pl = self.pick_pl(p);
            f |= (dx as u64) << c.dst_x_at | (dy as u64) << c.dst_y_at | pl << c.pl_at;
        } else {
            // Don't-care header bits on body flits.
            let hdr = (noise >> 32) & ((1u64 << (c.payload_at - 2)) - 1);
            f |= hdr << 2;
        }
        // The link VC (V > 1) on every flit: it picks the buffer.
        (f & !c.vc_mask) | (vc as u64) << c.vc_at
    }
}

impl Stimulus for MsapRouterStimulus {
    fn next(&mut self, cycle: u64, prev: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let p = self.p.clone();
        let depth = self.cfg.buf_depth as u32;
        if cycle < 2 || self.rng.chance(1, 100_000) {
            inputs[p.reset] = 1;
            self.credits.iter_mut().for_each(|c| *c = depth);
            self.left.iter_mut().for_each(|l| *l = 0);
            self.returns.iter_mut().for_each(|q| q.clear());
            self.fresh = true;
            return;
        }
        // Last cycle's outputs (none that count right after a reset).
        if !self.fresh && self.cfg.vcs > 1 {
            self.take_vc(cycle, prev);
        } else if !self.fresh {
            for k in 0..PORTS {
                if prev[p.in_credit] >> k & 1 == 1 {
                    self.credits[k] += 1;
                }
                if prev[p.out_valid] >> k & 1 == 1 {
                    let mut d = self.rng.below(self.delay + 1);
                    if self.rng.chance(self.p_stall, 64) {
                        d += self.rng.below(40);
                    }
                    // Credits return in order, one per cycle at most.
                    let at = (cycle + d).max(self.returns[k].back().map_or(0, |&b| b + 1));
                    self.returns[k].push_back(at);
                }
            }
        }
        self.fresh = false;
        if self.cfg.vcs > 1 {
            return self.send_vc(cycle, inputs);
        }
        let fb = self.f.bits;
        for k in 0..PORTS {
            if self.returns[k].front().is_some_and(|&t| t <= cycle) {
                self.returns[k].pop_front();
                inputs[p.out_credit] |= 1 << k;
            }
            if !self.cfg.has_port(k) || self.credits[k] == 0 || !self.rng.chance(self.p_send, 64) {
                continue;
            }
            let head = self.left[k] == 0;
            if head {
                self.left[k] = 1 + self.rng.below(6) as u32;
            }
            self.left[k] -= 1;
            let f = self.flit(k, 0, head, self.left[k] == 0);
            self.credits[k] -= 1;
            inputs[p.in_valid] |= 1 << k;
            crate::words::set(&mut inputs[p.in_flit..], k * fb, fb, f);
        }
    }
}

impl MsapRouterStimulus {
    /// V > 1: credits per input VC back from `in_credit`, and per output VC the credits of the
    /// flits the router sent (the output VC is the flit's `vc` field).
    fn take_vc(&mut self, cycle: u64, prev: &[u64]) {
        let (p, c) = (self.p.clone(), self.cfg.clone());
        let v = c.vcs;
        for q in 0..c.nq() {
            if crate::words::get(&prev[p.in_credit..], q, 1) == 1 {
                self.credits[q] += 1;
            }
        }
        for k in 0..PORTS {
            if prev[p.out_valid] >> k & 1 == 0 {
                continue;
            }
            let fb = self.f.bits;
            let f = crate::words::get(&prev[p.out_flit..], k * fb, fb);
            let q = k * v + ((f & self.f.vc_mask) >> self.f.vc_at) as usize;
            let mut d = self.rng.below(self.delay + 1);
            if self.rng.chance(self.p_stall, 64) {
                d += self.rng.below(40);
            }
            let at = (cycle + d).max(self.returns[q].back().map_or(0, |&b| b + 1));
            self.returns[q].push_back(at);
        }
    }

    /// V > 1: credits due per output VC; per input one flit on a VC with a credit, packets of
    /// different VCs interleaved on the link (each VC's own packet is contiguous).
    fn send_vc(&mut self, cycle: u64, inputs: &mut [u64]) {
        let (p, c) = (self.p.clone(), self.cfg.clone());
        let (v, fb) = (c.vcs, self.f.bits);
        for q in 0..c.nq() {
            if self.returns[q].front().is_some_and(|&t| t <= cycle) {
                self.returns[q].pop_front();
                crate::words::set(&mut inputs[p.out_credit..], q, 1, 1);
            }
        }
        for k in 0..PORTS {
            if !c.has_port(k) || !self.rng.chance(self.p_send, 64) {
                continue;
            }
            // Mostly keep sending on a VC with an open packet; sometimes start another.
            // The VCs with a credit, and those of them with an open packet, in VC order.
            let (mut ready, mut n_ready) = ([0usize; 4], 0);
            let (mut open, mut n_open) = ([0usize; 4], 0);
            for w in (0..v).filter(|&w| self.credits[k * v + w] > 0) {
                ready[n_ready] = w;
                n_ready += 1;
                if self.left[k * v + w] > 0 {
                    open[n_open] = w;
                    n_open += 1;
                }
            }
            if n_ready == 0 {
                continue;
            }
            let w = if n_open > 0 && self.rng.chance(3, 4) {
                open[self.rng.below(n_open as u64) as usize]
            } else {
                ready[self.rng.below(n_ready as u64) as usize]
            };
            let q = k * v + w;
            let head = self.left[q] == 0;
            if head {
                self.left[q] = 1 + self.rng.below(6) as u32;
            }
            self.left[q] -= 1;
            let f = self.flit(k, w, head, self.left[q] == 0);
            self.credits[q] -= 1;
            inputs[p.in_valid] |= 1 << k;
            crate::words::set(&mut inputs[p.in_flit..], k * fb, fb, f);
        }
    }
}
