//! Constrained-random stimulus of `dtm-mtg`: it plays the SM pipeline around the table —
//! lookups at operand read and upserts at writeback of warp instructions, kernel retires and
//! flushes, rare resets. Every input is legal in every cycle; the stimulus still keeps the
//! requester's habit (hold a request until `req_ready`) most of the time, and breaks it
//! sometimes.
//!
//! Keys come from small pools so that they repeat: per phase a number of kernels (kid), PCs
//! and operand triples; hot phases (few keys: hits, refreshes, the same key on several lanes
//! of one request) alternate with cold ones (many keys: evictions, bank conflicts). Results
//! are a fixed function of the key, as execution would give; uids come from a few threads so
//! that refreshes change the uid (INTER) or keep it (INTRA).

use super::model::Ports;
use crate::rng::Rng;
use crate::words;
use crate::Stimulus;
use warpforge_contract::units::dtm_mtg::MtgConfig;

#[derive(Clone, Debug)]
pub struct DtmMtgStimulus {
    rng: Rng,
    cfg: MtgConfig,
    p: Ports,
    phase_left: u64,
    kids: u64,
    pcs: Vec<u64>,
    triples: Vec<[u64; 3]>,
    /// Per 16: a lane is in the request.
    density: u64,
    /// Per 16: a lane takes a pool triple (else a fresh random one).
    reuse: u64,
    /// The request being presented (held until served), and whether it was presented.
    cur: Vec<u64>,
    presented: bool,
    /// The last lookup's inputs, for the upsert that follows it at writeback.
    last_lookup: Vec<u64>,
    has_last: bool,
}

fn vmask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

impl DtmMtgStimulus {
    pub fn new(cfg: &MtgConfig, seed: u64) -> DtmMtgStimulus {
        DtmMtgStimulus {
            rng: Rng::new(seed ^ 0x6d74_6700),
            p: Ports::new(cfg),
            phase_left: 0,
            kids: 1,
            pcs: vec![0x100],
            triples: vec![[0; 3]],
            density: 8,
            reuse: 14,
            cur: vec![],
            presented: false,
            last_lookup: vec![],
            has_last: false,
            cfg: *cfg,
        }
    }

    fn value(&mut self) -> u64 {
        let v = self.cfg.val_bits;
        match self.rng.below(4) {
            0 => self.rng.below(4),
            1 => vmask(v),
            _ => self.rng.next_u64() & vmask(v),
        }
    }

    fn new_phase(&mut self) {
        self.phase_left = 100 + self.rng.below(2000);
        let hot = self.rng.chance(1, 2);
        let e = self.cfg.entries as u64;
        self.kids = 1 + self.rng.below(if hot { 2 } else { 4 });
        let npc = 1 + self.rng.below(if hot { 3 } else { 12 });
        let ntri = if hot {
            1 + self.rng.below(4)
        } else {
            4 + self.rng.below((e / 2).clamp(4, 96))
        };
        let pmask = vmask(self.cfg.pc_bits);
        self.pcs = (0..npc)
            .map(|_| (self.rng.next_u64() & pmask) & !7)
            .collect();
        self.triples = (0..ntri)
            .map(|_| [self.value(), self.value(), self.value()])
            .collect();
        self.density = 1 + self.rng.below(16);
        self.reuse = 10 + self.rng.below(7);
    }

    /// A fresh request into `self.cur` (the input words it sets).
    fn new_request(&mut self) {
        let (c, p) = (self.cfg, self.p);
        let (s, v, u) = (c.simd, c.val_bits, c.uid_bits);
        // Half of the upserts are the writeback of the last lookup (same lanes and keys).
        if self.has_last && self.rng.chance(1, 2) {
            self.has_last = false;
            self.cur.copy_from_slice(&self.last_lookup);
            self.cur[p.req_op] = 1;
        } else {
            self.has_last = false;
            self.cur.fill(0);
            let op = self.rng.chance(1, 2) as u64;
            self.cur[p.req_op] = op;
            self.cur[p.req_kid] = self.rng.below(self.kids) & vmask(c.kid_bits);
            let pc = self.pcs[self.rng.below(self.pcs.len() as u64) as usize];
            self.cur[p.req_pc] = pc;
            let m = if self.rng.chance(1, 8) {
                vmask(s)
            } else {
                self.rng.mask(s, self.density, 16)
            };
            self.cur[p.req_mask] = m;
            for l in 0..s {
                let t = if self.rng.chance(self.reuse, 16) {
                    self.triples[self.rng.below(self.triples.len() as u64) as usize]
                } else {
                    [self.value(), self.value(), self.value()]
                };
                for (f, &x) in t.iter().enumerate() {
                    words::set(&mut self.cur[p.req_sv[f]..], l * v, v, x);
                }
            }
        }
        // Results as execution would give them; uids of a few threads.
        let pc = self.cur[p.req_pc];
        for l in 0..s {
            let sv: [u64; 3] =
                std::array::from_fn(|f| words::get(&self.cur[p.req_sv[f]..], l * v, v));
            let res = (sv[0].wrapping_mul(3) ^ sv[1].rotate_left(5) ^ sv[2] ^ pc) & vmask(v);
            words::set(&mut self.cur[p.req_res..], l * v, v, res);
            let uid = self.rng.below(6);
            words::set(&mut self.cur[p.req_uid..], l * u, u, uid);
        }
        if self.cur[p.req_op] == 0 {
            self.last_lookup.copy_from_slice(&self.cur);
            self.has_last = true;
        }
    }
}

impl Stimulus for DtmMtgStimulus {
    fn next(&mut self, cycle: u64, prev: &[u64], inputs: &mut [u64]) {
        let p = self.p;
        if self.cur.len() != inputs.len() {
            self.cur = vec![0; inputs.len()];
            self.last_lookup = vec![0; inputs.len()];
        }
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let served = !self.presented || prev[p.req_ready] & 1 == 1;
        if served || self.rng.chance(1, 40) {
            self.new_request();
        }
        inputs.copy_from_slice(&self.cur);
        let idle = self.rng.chance(1, 6);
        inputs[p.req_valid] = (!idle) as u64;
        self.presented = !idle;
        if idle && self.rng.chance(1, 2) {
            // Don't-care request inputs while not valid.
            inputs[p.req_mask] = self.rng.next_u64() & vmask(self.cfg.simd);
            inputs[p.req_op] = self.rng.below(2);
        }
        // Retires and flushes rarer in larger tables, so that those fill up and evict too.
        if self.rng.chance(1, 200 + 4 * self.cfg.entries as u64) {
            inputs[p.inv_valid] = 1;
            inputs[p.inv_all] = self.rng.chance(1, 4) as u64;
            inputs[p.inv_kid] = self.rng.below(self.kids + 1) & vmask(self.cfg.kid_bits);
        } else if self.rng.chance(1, 8) {
            // inv_all / inv_kid are don't-care without inv_valid.
            inputs[p.inv_all] = self.rng.below(2);
            inputs[p.inv_kid] = self.rng.below(16) & vmask(self.cfg.kid_bits);
        }
        inputs[p.reset] = (cycle < 2 || self.rng.chance(1, 40_000)) as u64;
    }
}
