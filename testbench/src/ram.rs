//! Cycle model, stimulus and spec vectors of `ram`, the synchronous-read RAM primitive, as
//! the contract `units::ram` states it: registered read, read-first on a same-row collision,
//! optional byte write enables, no reset.

use crate::rng::Rng;
use crate::{Model, SpecVector, Stimulus, VectorCycle};
use warpforge_contract::manifest::Slot;
use warpforge_contract::units::ram::{RamConfig, NAME};
use warpforge_contract::Layout;

fn slot(slots: &[Slot], name: &str) -> Slot {
    slots
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("ram contract has no port `{name}`"))
        .clone()
}

/// Where each port lives in the flat input and output vectors.
#[derive(Clone, Debug)]
struct Ports {
    reset: Slot,
    we: Slot,
    waddr: Slot,
    wdata: Slot,
    wbe: Option<Slot>,
    re: Slot,
    raddr: Slot,
    rdata: Slot,
}

impl Ports {
    fn new(cfg: &RamConfig) -> Ports {
        let l = Layout::new(&cfg.ports());
        Ports {
            reset: slot(&l.inputs, "reset"),
            we: slot(&l.inputs, "we"),
            waddr: slot(&l.inputs, cfg.write_addr_port()),
            wdata: slot(&l.inputs, "wdata"),
            wbe: cfg.byte_write.then(|| slot(&l.inputs, "wbe")),
            re: slot(&l.inputs, "re"),
            raddr: slot(&l.inputs, cfg.read_addr_port()),
            rdata: slot(&l.outputs, "rdata"),
        }
    }
}

/// The words of a port, masked to its width.
fn read_port(words: &[u64], s: &Slot) -> Vec<u64> {
    (0..s.words)
        .map(|i| words[s.offset + i] & s.word_mask(i))
        .collect()
}

/// A deliberate model bug, to show that `check_invariants` catches wrong behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RamFault {
    /// A read of the row being written returns the new row (write-first).
    NewDataOnCollision,
    /// Byte lane 1 is written whatever `wbe[1]` says.
    IgnoreLaneOneEnable,
    /// `rdata` follows the read address even without `re`.
    ReadWithoutEnable,
}

/// What the last stepped cycle did, for `check_invariants`.
#[derive(Clone, Debug, Default)]
struct LastCycle {
    stepped: bool,
    re: bool,
    we: bool,
    raddr: usize,
    waddr: usize,
    /// The read row and the written row before the edge, and `rdata` before the edge.
    read_row_before: Vec<u64>,
    write_row_before: Vec<u64>,
    rdata_before: Vec<u64>,
    wdata: Vec<u64>,
    /// The byte enables as driven (empty without `byte_write`).
    wbe: Vec<u64>,
}

/// The cycle model of `ram`.
#[derive(Clone, Debug)]
pub struct RamModel {
    cfg: RamConfig,
    p: Ports,
    /// 64-bit words per row.
    words: usize,
    /// Every row, `words` words each, masked to the width.
    rows: Vec<u64>,
    rdata: Vec<u64>,
    last: LastCycle,
    fault: Option<RamFault>,
}

impl RamModel {
    pub fn new(cfg: &RamConfig) -> Self {
        let words = cfg.width.div_ceil(64);
        RamModel {
            p: Ports::new(cfg),
            words,
            rows: vec![0; cfg.depth * words],
            rdata: vec![0; words],
            last: LastCycle::default(),
            fault: None,
            cfg: cfg.clone(),
        }
    }

    /// Make the model deliberately wrong (tests of the invariant checker only).
    pub fn inject_fault(&mut self, fault: Option<RamFault>) {
        self.fault = fault;
    }

    /// Row `addr` as little-endian words.
    pub fn row(&self, addr: usize) -> Vec<u64> {
        self.rows[addr * self.words..(addr + 1) * self.words].to_vec()
    }

    /// The registered read data.
    pub fn rdata(&self) -> Vec<u64> {
        self.rdata.clone()
    }

    /// The bits of the row that a write with these byte enables changes.
    fn write_mask(&self, wbe: &[u64]) -> Vec<u64> {
        let mut m: Vec<u64> = (0..self.words).map(|i| self.p.rdata.word_mask(i)).collect();
        if self.cfg.byte_write {
            for lane in 0..self.cfg.lanes() {
                let mut on = wbe[lane / 64] >> (lane % 64) & 1 == 1;
                if lane == 1 && self.fault == Some(RamFault::IgnoreLaneOneEnable) {
                    on = true;
                }
                if !on {
                    let (w, b) = (lane * 8 / 64, lane * 8 % 64);
                    m[w] &= !(0xffu64 << b);
                }
            }
        }
        m
    }
}

fn merge(old: &[u64], new: &[u64], mask: &[u64]) -> Vec<u64> {
    old.iter()
        .zip(new)
        .zip(mask)
        .map(|((o, n), m)| (o & !m) | (n & m))
        .collect()
}

impl Model for RamModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let p = &self.p;
        // Outputs: the registered read data.
        outputs[p.rdata.offset..p.rdata.offset + self.words].copy_from_slice(&self.rdata);

        let re = inputs[p.re.offset] & 1 == 1;
        let we = inputs[p.we.offset] & 1 == 1;
        let amask = (self.cfg.depth - 1) as u64;
        let raddr = (inputs[p.raddr.offset] & amask) as usize;
        let waddr = (inputs[p.waddr.offset] & amask) as usize;
        let wdata = read_port(inputs, &p.wdata);
        let wbe = match &p.wbe {
            Some(s) => read_port(inputs, s),
            None => vec![],
        };
        let wmask = self.write_mask(&wbe);
        let read_row_before = self.row(raddr);
        let write_row_before = self.row(waddr);
        self.last = LastCycle {
            stepped: true,
            re,
            we,
            raddr,
            waddr,
            read_row_before: read_row_before.clone(),
            write_row_before: write_row_before.clone(),
            rdata_before: self.rdata.clone(),
            wdata: wdata.clone(),
            wbe: wbe.clone(),
        };

        // The edge (reset has no effect on the RAM). Read-first: the read takes the row as
        // it was before this edge's write.
        let written = merge(&write_row_before, &wdata, &wmask);
        if re || self.fault == Some(RamFault::ReadWithoutEnable) {
            self.rdata = if we && waddr == raddr && self.fault == Some(RamFault::NewDataOnCollision)
            {
                written.clone()
            } else {
                read_row_before
            };
        }
        if we {
            let w = self.words;
            self.rows[waddr * w..(waddr + 1) * w].copy_from_slice(&written);
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        let l = &self.last;
        if !l.stepped {
            return Ok(());
        }
        for (i, w) in self.rdata.iter().enumerate() {
            if w & !self.p.rdata.word_mask(i) != 0 {
                return Err("rdata has bits above the width".into());
            }
        }
        // Read: the old row with `re`, unchanged without.
        let want_rdata = if l.re {
            &l.read_row_before
        } else {
            &l.rdata_before
        };
        if &self.rdata != want_rdata {
            let why = if !l.re {
                "rdata changed without re".to_string()
            } else if l.we && l.waddr == l.raddr {
                format!(
                    "read-first: a read of row {} during its write did not return the old row",
                    l.raddr
                )
            } else {
                format!("rdata is not row {}", l.raddr)
            };
            return Err(why);
        }
        // Write: exactly the enabled byte lanes of the written row change.
        if l.we {
            let mut want = l.write_row_before.clone();
            // The enabled lanes, as the contract states them, bit by bit from the inputs.
            for bit in 0..self.cfg.width {
                let lane_on =
                    !self.cfg.byte_write || l.wbe[bit / 8 / 64] >> (bit / 8 % 64) & 1 == 1;
                if lane_on {
                    let (i, b) = (bit / 64, bit % 64);
                    want[i] = (want[i] & !(1 << b)) | (l.wdata[i] & (1 << b));
                }
            }
            let got = self.row(l.waddr);
            if got != want {
                return Err(format!(
                    "write of row {}: the row is not the old row with the enabled lanes replaced",
                    l.waddr
                ));
            }
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        let hex: Vec<String> = self
            .rdata
            .iter()
            .rev()
            .map(|w| format!("{w:016x}"))
            .collect();
        format!(
            "rdata=0x{} last: re={} raddr={} we={} waddr={}",
            hex.join("_"),
            self.last.re as u8,
            self.last.raddr,
            self.last.we as u8,
            self.last.waddr
        )
    }
}

// ---------------------------------------------------------------------------------------
// Stimulus

/// The constrained-random stimulus of `ram`. Every input value is legal; the constraints
/// shape the traffic so that reads hit written rows: phases with different read and write
/// rates (including idle stretches), addresses mostly from a small hot set (so rows are read
/// back after being written, often many times), frequent same-row read-during-write
/// collisions, byte enables that are all on, all off, one lane or random, values on ignored
/// inputs (`wdata`/`wbe` without `we`, addresses without an enable), and rare resets in the
/// middle of traffic (the RAM ignores them). The first two cycles are resets with a read, so
/// `rdata` is a read row (zero) when comparison starts.
#[derive(Clone, Debug)]
pub struct RamStimulus {
    rng: Rng,
    cfg: RamConfig,
    p: Ports,
    phase_left: u64,
    /// Per 16: a write this cycle, a read this cycle.
    p_we: u64,
    p_re: u64,
    /// Per 16: a read is of the row written this cycle (two ports).
    p_collide: u64,
    /// Per 16: an address comes from the hot set.
    p_hot: u64,
    hot: Vec<u64>,
}

impl RamStimulus {
    pub fn new(cfg: &RamConfig, seed: u64) -> Self {
        RamStimulus {
            rng: Rng::new(seed),
            p: Ports::new(cfg),
            phase_left: 0,
            p_we: 8,
            p_re: 12,
            p_collide: 4,
            p_hot: 12,
            hot: vec![0],
            cfg: cfg.clone(),
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 10 + r.below(400);
        self.p_we = [0, 2, 8, 12, 16][r.below(5) as usize];
        self.p_re = [0, 4, 12, 16, 16][r.below(5) as usize];
        self.p_collide = [0, 2, 6, 12][r.below(4) as usize];
        self.p_hot = [4, 12, 15, 16][r.below(4) as usize];
        let n = 1 + r.below(8) as usize;
        let depth = self.cfg.depth as u64;
        self.hot = (0..n).map(|_| r.below(depth)).collect();
        // The first and the last row are corners.
        if r.chance(1, 4) {
            self.hot.push(0);
            self.hot.push(depth - 1);
        }
    }

    fn address(&mut self) -> u64 {
        if self.rng.chance(self.p_hot, 16) {
            self.hot[self.rng.below(self.hot.len() as u64) as usize]
        } else {
            self.rng.below(self.cfg.depth as u64)
        }
    }

    fn random_port(&mut self, inputs: &mut [u64], s: &Slot) {
        for i in 0..s.words {
            inputs[s.offset + i] = self.rng.next_u64() & s.word_mask(i);
        }
    }
}

impl Stimulus for RamStimulus {
    fn next(&mut self, cycle: u64, _prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let p = self.p.clone();
        let reset = cycle < 2 || self.rng.chance(1, 5000);
        let mut we = self.rng.chance(self.p_we, 16);
        let mut re = self.rng.chance(self.p_re, 16);
        if cycle < 2 {
            // Reset cycles with a read: rdata is defined (row 0, zero) from the first
            // compared cycle on.
            re = true;
            we = false;
        }
        let waddr = self.address();
        let raddr = if self.cfg.ports == 1 || self.rng.chance(self.p_collide, 16) {
            waddr
        } else {
            self.address()
        };
        inputs[p.reset.offset] = reset as u64;
        inputs[p.we.offset] = we as u64;
        inputs[p.re.offset] = re as u64;
        inputs[p.waddr.offset] = waddr;
        inputs[p.raddr.offset] = raddr;
        // Data and enables are driven also when ignored (no write), mostly.
        if we || self.rng.chance(3, 4) {
            self.random_port(inputs, &p.wdata);
            if self.rng.chance(1, 8) {
                // Sparse values: a row that differs from its neighbour in few bits.
                for i in 0..p.wdata.words {
                    inputs[p.wdata.offset + i] &= self.rng.next_u64() & self.rng.next_u64();
                }
            }
        }
        if let Some(s) = &p.wbe {
            match self.rng.below(6) {
                0 | 1 => {
                    for i in 0..s.words {
                        inputs[s.offset + i] = s.word_mask(i);
                    }
                }
                2 => {}
                3 => {
                    let lane = self.rng.below(self.cfg.lanes() as u64) as usize;
                    inputs[s.offset + lane / 64] = 1 << (lane % 64);
                }
                _ => self.random_port(inputs, s),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Spec vectors: the contract's rules at port level.

/// Builder of one vector: a cycle is a list of driven inputs and the `rdata` expected.
struct Vb {
    v: SpecVector,
    cfg: RamConfig,
}

/// One cycle's port values.
#[derive(Clone, Debug, Default)]
struct Cyc {
    reset: bool,
    write: Option<(u64, Vec<u64>, Option<Vec<u64>>)>,
    read: Option<u64>,
}

impl Vb {
    fn new(name: &str, sets: &[&str]) -> Vb {
        let owned: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = warpforge_contract::Params::resolve(
            NAME,
            warpforge_contract::units::ram::PARAMS,
            None,
            &owned,
        )
        .expect("vector parameters are valid");
        Vb {
            v: SpecVector {
                name: name.into(),
                unit: NAME,
                sets: owned,
                cycles: vec![],
            },
            cfg: RamConfig::from_params(&p).expect("vector configuration is valid"),
        }
    }

    /// A cycle: drive `c`, expect `rdata` (None: not checked).
    fn cycle(mut self, c: Cyc, rdata: Option<Vec<u64>>) -> Vb {
        let mut inputs: Vec<(&'static str, Vec<u64>)> = vec![];
        if c.reset {
            inputs.push(("reset", vec![1]));
        }
        let (wa, ra) = (self.cfg.write_addr_port(), self.cfg.read_addr_port());
        let writes = c.write.is_some();
        if let Some((addr, data, be)) = c.write {
            inputs.push(("we", vec![1]));
            inputs.push((wa, vec![addr]));
            inputs.push(("wdata", data));
            if let Some(be) = be {
                inputs.push(("wbe", be));
            }
        }
        if let Some(addr) = c.read {
            inputs.push(("re", vec![1]));
            if ra != wa || !writes {
                inputs.push((ra, vec![addr]));
            }
        }
        let expect = rdata.map(|d| vec![("rdata", d)]).unwrap_or_default();
        self.v.cycles.push(VectorCycle { inputs, expect });
        self
    }

    fn done(self) -> SpecVector {
        self.v
    }
}

fn w(addr: u64, data: &[u64]) -> Cyc {
    Cyc {
        write: Some((addr, data.to_vec(), None)),
        ..Cyc::default()
    }
}

fn wb(addr: u64, data: &[u64], be: &[u64]) -> Cyc {
    Cyc {
        write: Some((addr, data.to_vec(), Some(be.to_vec()))),
        ..Cyc::default()
    }
}

fn r(addr: u64) -> Cyc {
    Cyc {
        read: Some(addr),
        ..Cyc::default()
    }
}

fn rw(c: Cyc, raddr: u64) -> Cyc {
    Cyc {
        read: Some(raddr),
        ..c
    }
}

fn idle() -> Cyc {
    Cyc::default()
}

fn reset() -> Cyc {
    Cyc {
        reset: true,
        ..Cyc::default()
    }
}

/// A 90-bit value (two words).
fn v90(hi: u64, lo: u64) -> Vec<u64> {
    vec![lo, hi & 0x3ff_ffff]
}

/// Write, then read back: contents start at zero, a read shows one cycle later (1-cycle
/// latency), `rdata` holds without `re`, rows are independent.
fn write_then_read() -> SpecVector {
    let a = v90(0x3ff_ffff, 0x0123_4567_89ab_cdef);
    let b = v90(0x155_5555, 0xfedc_ba98_7654_3210);
    let z = v90(0, 0);
    Vb::new(
        "contract: write then read, latency 1, hold (512x90, 2 ports)",
        &[],
    )
    .cycle(rw(reset(), 7), None)
    // Row 7 was never written: zero.
    .cycle(w(5, &a), Some(z.clone()))
    .cycle(w(511, &b), Some(z.clone()))
    .cycle(r(5), Some(z.clone()))
    // The read of row 5 shows in the next cycle, not in its own.
    .cycle(r(511), Some(a.clone()))
    .cycle(idle(), Some(b.clone()))
    // Without re rdata holds, also while another row is written.
    .cycle(w(5, &b), Some(b.clone()))
    .cycle(r(0), Some(b.clone()))
    .cycle(r(5), Some(z.clone()))
    .cycle(idle(), Some(b.clone()))
    .done()
}

/// Read during write of the same row returns the old row (read-first); the write happens.
fn read_during_write() -> SpecVector {
    let a = v90(0x2aa_aaaa, 0xaaaa_aaaa_aaaa_aaaa);
    let b = v90(0x155_5555, 0x5555_5555_5555_5555);
    let z = v90(0, 0);
    Vb::new(
        "contract: read during write returns the old row (512x90, 2 ports)",
        &[],
    )
    .cycle(rw(reset(), 3), None)
    // First write of row 3 with a read of it: the old (zero) row.
    .cycle(rw(w(3, &a), 3), Some(z.clone()))
    .cycle(rw(w(3, &b), 3), Some(z.clone()))
    .cycle(r(3), Some(a.clone()))
    // A read of another row in a write cycle is an ordinary read.
    .cycle(rw(w(4, &a), 3), Some(b.clone()))
    .cycle(rw(w(3, &a), 4), Some(b.clone()))
    .cycle(r(3), Some(a.clone()))
    .cycle(idle(), Some(a.clone()))
    .done()
}

/// One port: one address for both; a write with a read returns the old row.
fn single_port() -> SpecVector {
    Vb::new(
        "contract: one port, read-first on the shared address (16x8)",
        &["depth=16", "width=8", "ports=1"],
    )
    .cycle(rw(reset(), 0), None)
    .cycle(w(15, &[0xa5]), Some(vec![0]))
    .cycle(rw(w(15, &[0x3c]), 15), Some(vec![0]))
    .cycle(r(15), Some(vec![0xa5]))
    .cycle(w(2, &[0xff]), Some(vec![0x3c]))
    .cycle(r(2), Some(vec![0x3c]))
    .cycle(idle(), Some(vec![0xff]))
    .done()
}

/// Byte enables merge the enabled lanes into the row; no lane enabled writes nothing; a
/// read during a byte write returns the old row.
fn byte_enable_merge() -> SpecVector {
    Vb::new(
        "contract: byte-enable merge (1024x32, byte_write)",
        &["depth=1024", "width=32", "byte_write=true"],
    )
    .cycle(rw(reset(), 9), None)
    .cycle(wb(9, &[0x1122_3344], &[0xf]), Some(vec![0]))
    .cycle(rw(wb(9, &[0xaabb_ccdd], &[0b0101]), 9), Some(vec![0]))
    .cycle(r(9), Some(vec![0x1122_3344]))
    .cycle(wb(9, &[0xeeee_eeee], &[0]), Some(vec![0x11bb_33dd]))
    .cycle(
        rw(wb(1023, &[0x5566_7788], &[0b1000]), 9),
        Some(vec![0x11bb_33dd]),
    )
    .cycle(r(1023), Some(vec![0x11bb_33dd]))
    .cycle(idle(), Some(vec![0x5500_0000]))
    .done()
}

/// Wide rows: byte lanes in every 64-bit word of a 1024-bit row.
fn wide_lanes() -> SpecVector {
    let ones = vec![u64::MAX; 16];
    let all = vec![u64::MAX; 2];
    // Lanes 0, 8, 64 and 127: bytes 0 of words 0, 1, 8 and byte 7 of word 15.
    let be = vec![1 | 1 << 8, 1 | 1 << 63];
    let mut want = vec![0u64; 16];
    want[0] = 0xff;
    want[1] = 0xff;
    want[8] = 0xff;
    want[15] = 0xff << 56;
    Vb::new(
        "contract: byte lanes across a 1024-bit row (8x1024, one port)",
        &["depth=8", "width=1024", "ports=1", "byte_write=true"],
    )
    .cycle(rw(reset(), 7), None)
    .cycle(wb(7, &ones, &be), Some(vec![0; 16]))
    .cycle(r(7), Some(vec![0; 16]))
    .cycle(rw(wb(7, &vec![0; 16], &all), 7), Some(want.clone()))
    .cycle(r(7), Some(want))
    .cycle(idle(), Some(vec![0; 16]))
    .done()
}

/// Reset clears nothing: rows and `rdata` survive it, and a write during reset happens.
fn reset_keeps_contents() -> SpecVector {
    let a = v90(0x1, 0x2);
    let b = v90(0x3, 0x4);
    let mut in_reset_write = w(8, &b);
    in_reset_write.reset = true;
    Vb::new(
        "contract: reset keeps rows and rdata (512x90, 2 ports)",
        &[],
    )
    .cycle(rw(reset(), 1), None)
    .cycle(w(6, &a), Some(v90(0, 0)))
    .cycle(r(6), None)
    .cycle(reset(), None)
    .cycle(in_reset_write, None)
    // rdata still holds the row read before the reset.
    .cycle(r(6), Some(a.clone()))
    .cycle(r(8), Some(a))
    .cycle(idle(), Some(b))
    .done()
}

/// The directed vectors of `ram`.
pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        write_then_read(),
        read_during_write(),
        single_port(),
        byte_enable_merge(),
        wide_lanes(),
        reset_keeps_contents(),
    ]
}
