//! Synthetic traffic for `msap-noc`, BookSim style: each SM generates read requests by a
//! Bernoulli process at a rate (packets per SM per cycle) into an unbounded source queue; the
//! queue's head is offered to the SM's NI (`inj_valid`) until accepted. Destinations follow
//! a pattern over the MCs; PLs are forced per SM, random, or follow the SM's outstanding
//! requests (an MSHR-occupancy stand-in, §2.2's quantiser). Latency is counted from
//! generation to the reply's tail at the SM, and kept per PL class for packets generated
//! while `measuring` is on. The same generator drives the lockstep stimulus and `warpforge
//! noc`.

use std::collections::{HashMap, VecDeque};

use warpforge_contract::units::msap::{max_pl, quantise};
use warpforge_contract::units::msap_noc::NocConfig;
use warpforge_contract::Layout;

use crate::rng::Rng;
use crate::words;

/// Destination patterns (over the MCs, since requests go SM → MC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Every MC equally likely.
    Uniform,
    /// Every request to MC 0 (T-6's single hot MC).
    Hotspot,
    /// The MC at index (id of the transposed node (y, x)) mod MCs.
    Transpose,
    /// The MC at index (MCs − 1 − (SM mod MCs)).
    Bitcomp,
    /// The nearest MC (Manhattan distance, lowest index on a tie).
    Neighbor,
}

impl Pattern {
    pub fn parse(s: &str) -> Option<Pattern> {
        Some(match s {
            "uniform" => Pattern::Uniform,
            "hotspot" => Pattern::Hotspot,
            "transpose" => Pattern::Transpose,
            "bitcomp" => Pattern::Bitcomp,
            "neighbor" => Pattern::Neighbor,
            _ => return None,
        })
    }
    pub const NAMES: &'static str = "uniform, hotspot, transpose, bitcomp, neighbor";
}

/// How a request's PL is chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlMode {
    /// A fixed PL per SM.
    Forced(Vec<u64>),
    /// Uniform over the levels.
    Random,
    /// `quantise(outstanding requests of the SM, pl_bits, shift)`.
    Occupancy(usize),
}

#[derive(Clone, Copy, Debug)]
pub struct Pkt {
    pub mc: usize,
    pub pl: u64,
    pub tag: u64,
    pub line: u64,
    pub gen: u64,
    pub measured: bool,
}

/// Per-PL latency samples and counts.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Latencies of measured packets, per PL.
    pub lat: Vec<Vec<u64>>,
    /// Measured packets generated / replies received (any time).
    pub measured_gen: u64,
    pub measured_done: u64,
    /// Replies in the measurement window (for accepted throughput).
    pub window_replies: u64,
}

pub struct Traffic {
    cfg: NocConfig,
    rng: Rng,
    pub pattern: Pattern,
    /// Packets per SM per cycle.
    pub rate: f64,
    pub pl: PlMode,
    pub generating: bool,
    pub measuring: bool,
    /// Lines per SM drawn from a small pool so the MC's same-line guard is exercised.
    pub line_pool: u64,
    queues: Vec<VecDeque<Pkt>>,
    offered: Vec<bool>,
    next_tag: Vec<u64>,
    outstanding: Vec<usize>,
    /// In flight: (SM, MC node address, tag) → packets, oldest first.
    waiting: HashMap<(usize, u64, u64), VecDeque<Pkt>>,
    pub stats: Stats,
    mc_addr: Vec<u64>,
    /// SM node ids, increasing.
    sms: Vec<usize>,
    /// Port offsets: inj_ready, rep_valid, rep_src, rep_tag; inj_valid, inj_mc, inj_pl,
    /// inj_tag, inj_line.
    o: [usize; 4],
    i: [usize; 5],
}

impl Traffic {
    pub fn new(cfg: &NocConfig, seed: u64) -> Traffic {
        let s = cfg.n_sm();
        let l = Layout::new(&cfg.ports());
        Traffic {
            rng: Rng::new(seed),
            pattern: Pattern::Uniform,
            rate: 0.05,
            pl: PlMode::Random,
            generating: true,
            measuring: false,
            line_pool: 0,
            queues: vec![VecDeque::new(); s],
            offered: vec![false; s],
            next_tag: vec![0; s],
            outstanding: vec![0; s],
            waiting: HashMap::new(),
            stats: Stats {
                lat: vec![vec![]; 1 << cfg.pl_bits],
                ..Stats::default()
            },
            mc_addr: cfg.mcs.iter().map(|&i| cfg.addr(i)).collect(),
            sms: cfg.sms(),
            o: ["inj_ready", "rep_valid", "rep_src", "rep_tag"]
                .map(|n| l.output(n).unwrap().offset),
            i: ["inj_valid", "inj_mc", "inj_pl", "inj_tag", "inj_line"]
                .map(|n| l.input(n).unwrap().offset),
            cfg: cfg.clone(),
        }
    }

    /// The MC an SM's next request goes to.
    fn dest(&mut self, k: usize) -> usize {
        let c = &self.cfg;
        let m = c.n_mc();
        let node = self.sms[k];
        match self.pattern {
            Pattern::Uniform => self.rng.below(m as u64) as usize,
            Pattern::Hotspot => 0,
            Pattern::Transpose => {
                let (x, y) = c.xy(node);
                let t = (x % c.mesh_y) * c.mesh_x + (y % c.mesh_x);
                t % m
            }
            Pattern::Bitcomp => m - 1 - k % m,
            Pattern::Neighbor => {
                let (x, y) = c.xy(node);
                (0..m)
                    .min_by_key(|&j| {
                        let (a, b) = c.xy(c.mcs[j]);
                        (a.abs_diff(x) + b.abs_diff(y), j)
                    })
                    .unwrap()
            }
        }
    }

    fn pick_pl(&mut self, k: usize) -> u64 {
        let pb = self.cfg.pl_bits;
        match &self.pl {
            PlMode::Forced(v) => v[k % v.len()] & max_pl(pb),
            PlMode::Random => self.rng.below(max_pl(pb) + 1),
            PlMode::Occupancy(shift) => quantise(self.outstanding[k] as u64, pb, *shift),
        }
    }

    /// Forget everything in flight (the unit was reset).
    pub fn clear(&mut self) {
        self.queues.iter_mut().for_each(|q| q.clear());
        self.offered.iter_mut().for_each(|o| *o = false);
        self.outstanding.iter_mut().for_each(|o| *o = 0);
        self.waiting.clear();
    }

    /// Drop the source queues' packets, except a head offered in the last cycle (the NI may
    /// have taken it).
    pub fn drop_queued(&mut self) {
        for (q, &o) in self.queues.iter_mut().zip(&self.offered) {
            q.truncate(o as usize);
        }
    }

    /// Packets waiting in the source queues.
    pub fn queued(&self) -> usize {
        self.queues.iter().map(|q| q.len()).sum()
    }
    /// Requests accepted and not yet answered.
    pub fn in_flight(&self) -> usize {
        self.outstanding.iter().sum()
    }

    /// One cycle: learn what the last cycle's outputs say (acceptances, replies), generate,
    /// and drive this cycle's injection inputs.
    pub fn next(&mut self, cycle: u64, prev: &[u64], inputs: &mut [u64]) {
        let c = &self.cfg;
        let (s, mb, pb, tb, lb, nb) = (
            c.n_sm(),
            c.mc_bits(),
            c.pl_bits,
            c.tag_bits,
            c.line_bits,
            c.node_bits(),
        );
        let [o_ready, o_rv, o_rs, o_rt] = self.o;
        let [i_v, i_mc, i_pl, i_tag, i_line] = self.i;
        for k in 0..s {
            // Last cycle's offer was taken if the NI was ready.
            if self.offered[k] && cycle > 0 && words::get(&prev[o_ready..], k, 1) == 1 {
                let p = self.queues[k].pop_front().unwrap();
                self.outstanding[k] += 1;
                let key = (k, self.mc_addr[p.mc], p.tag);
                self.waiting.entry(key).or_default().push_back(p);
            }
            if cycle > 0 && words::get(&prev[o_rv..], k, 1) == 1 {
                let src = words::get(&prev[o_rs..], k * nb, nb);
                let tag = words::get(&prev[o_rt..], k * tb, tb);
                // The line is not on the reply port: the oldest waiting packet of that
                // (MC, tag) (tags repeat only every 2^tag_bits requests of an SM).
                let key = (k, src, tag);
                let hit = self.waiting.get_mut(&key).and_then(|q| q.pop_front());
                if self.waiting.get(&key).is_some_and(|q| q.is_empty()) {
                    self.waiting.remove(&key);
                }
                if let Some(p) = hit {
                    self.outstanding[k] -= 1;
                    if self.measuring {
                        self.stats.window_replies += 1;
                    }
                    if p.measured {
                        self.stats.measured_done += 1;
                        self.stats.lat[p.pl as usize].push(cycle - 1 - p.gen);
                    }
                }
            }
            // Generation.
            if self.generating
                && self.rng.next_u64() < (self.rate.clamp(0.0, 1.0) * u64::MAX as f64) as u64
            {
                let mc = self.dest(k);
                let pl = self.pick_pl(k);
                let tag = self.next_tag[k] & ((1 << tb) - 1);
                self.next_tag[k] += 1;
                let line = if self.line_pool > 0 {
                    (k as u64 * 7 + self.rng.below(self.line_pool)) & ((1 << lb) - 1)
                } else {
                    self.rng.below(1 << lb)
                };
                self.queues[k].push_back(Pkt {
                    mc,
                    pl,
                    tag,
                    line,
                    gen: cycle,
                    measured: self.measuring,
                });
                self.stats.measured_gen += self.measuring as u64;
            }
            // Offer the head.
            self.offered[k] = false;
            if let Some(p) = self.queues[k].front() {
                self.offered[k] = true;
                words::set(&mut inputs[i_v..], k, 1, 1);
                words::set(&mut inputs[i_mc..], k * mb, mb, p.mc as u64);
                words::set(&mut inputs[i_pl..], k * pb, pb, p.pl);
                words::set(&mut inputs[i_tag..], k * tb, tb, p.tag);
                words::set(&mut inputs[i_line..], k * lb, lb, p.line);
            }
        }
    }
}
