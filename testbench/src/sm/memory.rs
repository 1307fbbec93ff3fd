//! The global memory behind the SM's memory port, as the harness serves it: requests are
//! performed when accepted (so memory order is acceptance order) and answered in order after
//! `latency` cycles; `stall_pct` makes the port refuse requests at random (back-pressure),
//! reproducibly from the seed.

use crate::isa::launch::Memory;
use crate::rng::Rng;
use std::collections::VecDeque;
use warpforge_contract::units::sm::{
    BLOCK_BYTES, BLOCK_WORDS, MEM_ATOM_ADD, MEM_ATOM_CAS, MEM_ATOM_EXCH, MEM_ATOM_MAX_S,
    MEM_ATOM_MAX_U, MEM_READ, MEM_WRITE,
};

pub type Block = [u32; BLOCK_WORDS];

#[derive(Clone, Debug)]
pub struct MemServer {
    pub memory: Memory,
    latency: u64,
    stall_pct: u64,
    rng: Rng,
    /// Responses not yet delivered: (cycle due, data).
    pending: VecDeque<(u64, Block)>,
    pub reads: u64,
    pub writes: u64,
    pub atomics: u64,
}

impl MemServer {
    pub fn new(memory: Memory, latency: u64, stall_pct: u64, seed: u64) -> MemServer {
        MemServer {
            memory,
            latency: latency.max(1),
            stall_pct,
            rng: Rng::new(seed ^ 0x6d65_6d6f_7279),
            pending: VecDeque::new(),
            reads: 0,
            writes: 0,
            atomics: 0,
        }
    }

    /// `mreq_ready` for this cycle.
    pub fn ready(&mut self) -> bool {
        self.stall_pct == 0 || !self.rng.chance(self.stall_pct, 100)
    }

    /// The response presented in `cycle`, if one is due (one per cycle, in request order).
    pub fn response(&mut self, cycle: u64) -> Option<Block> {
        match self.pending.front() {
            Some(&(due, _)) if due <= cycle => self.pending.pop_front().map(|(_, d)| d),
            _ => None,
        }
    }

    /// Requests accepted but not yet answered.
    pub fn outstanding(&self) -> usize {
        self.pending.len()
    }

    fn word(&self, addr: u32) -> u32 {
        self.memory
            .index(addr)
            .map(|i| self.memory.words[i])
            .unwrap_or(0)
    }

    fn index(&self, addr: u32, what: &str) -> Result<usize, String> {
        self.memory.index(addr).map_err(|_| {
            format!(
                "the SM's {what} at {addr:#x} is outside every global buffer ({})",
                self.memory.describe()
            )
        })
    }

    /// Performs a request accepted in `cycle`. `Err` is a request the memory cannot serve
    /// (a bad operation, a misaligned block, a write outside every buffer).
    pub fn accept(
        &mut self,
        cycle: u64,
        op: u64,
        addr: u32,
        wdata: &Block,
        wmask: u64,
    ) -> Result<(), String> {
        let mut resp = [0u32; BLOCK_WORDS];
        match op {
            MEM_READ | MEM_WRITE => {
                if addr as usize % BLOCK_BYTES != 0 {
                    return Err(format!(
                        "the SM's block request at {addr:#x} is not {BLOCK_BYTES}-byte aligned"
                    ));
                }
                if op == MEM_READ {
                    self.reads += 1;
                    for (i, r) in resp.iter_mut().enumerate() {
                        *r = self.word(addr + 4 * i as u32);
                    }
                } else {
                    self.writes += 1;
                    for (i, &w) in wdata.iter().enumerate() {
                        if wmask >> i & 1 == 1 {
                            let j = self.index(addr + 4 * i as u32, "write")?;
                            self.memory.words[j] = w;
                        }
                    }
                }
            }
            MEM_ATOM_ADD | MEM_ATOM_MAX_S | MEM_ATOM_MAX_U | MEM_ATOM_EXCH | MEM_ATOM_CAS => {
                self.atomics += 1;
                let j = self.index(addr, "atomic")?;
                let old = self.memory.words[j];
                let b = wdata[0];
                self.memory.words[j] = match op {
                    MEM_ATOM_ADD => old.wrapping_add(b),
                    MEM_ATOM_MAX_S => (old as i32).max(b as i32) as u32,
                    MEM_ATOM_MAX_U => old.max(b),
                    MEM_ATOM_EXCH => b,
                    _ => {
                        if old == b {
                            wdata[1]
                        } else {
                            old
                        }
                    }
                };
                resp[0] = old;
            }
            other => {
                return Err(format!(
                    "the SM sent memory operation {other}, which is not a MEM_* code"
                ))
            }
        }
        self.pending.push_back((cycle + self.latency, resp));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::launch::Buffer;

    fn server(latency: u64) -> MemServer {
        let m = Memory::new(&[Buffer {
            name: "a".into(),
            data: (0..20).collect(),
        }])
        .unwrap();
        MemServer::new(m, latency, 0, 1)
    }

    #[test]
    fn reads_answer_after_the_latency_in_order_and_zero_outside_buffers() {
        let mut s = server(3);
        let z = [0u32; BLOCK_WORDS];
        s.accept(10, MEM_READ, 0x1000, &z, 0).unwrap();
        s.accept(11, MEM_READ, 0x1040, &z, 0).unwrap();
        assert!(s.response(12).is_none());
        let a = s.response(13).unwrap();
        assert_eq!(a[5], 5);
        let b = s.response(14).unwrap();
        assert_eq!((b[0], b[3], b[4]), (16, 19, 0));
        assert!(s
            .accept(15, MEM_READ, 0x1004, &z, 0)
            .unwrap_err()
            .contains("aligned"));
    }

    #[test]
    fn writes_honour_the_mask_and_atomics_return_the_old_word() {
        let mut s = server(1);
        let mut d = [7u32; BLOCK_WORDS];
        s.accept(0, MEM_WRITE, 0x1000, &d, 0b101).unwrap();
        assert_eq!(&s.memory.words[0..3], &[7, 1, 7]);
        d[0] = 5;
        s.accept(1, MEM_ATOM_ADD, 0x1004, &d, 0).unwrap();
        assert_eq!(s.memory.words[1], 6);
        d[1] = 99;
        s.accept(2, MEM_ATOM_CAS, 0x1004, &d, 0).unwrap(); // 6 != 5: unchanged
        s.accept(3, MEM_ATOM_CAS, 0x1008, &d, 0).unwrap(); // 7 != 5
        d[0] = 7;
        s.accept(4, MEM_ATOM_CAS, 0x1008, &d, 0).unwrap(); // 7 == 7: swap
        assert_eq!((s.memory.words[1], s.memory.words[2]), (6, 99));
        assert_eq!(s.response(10).unwrap()[0], 0); // the write's acknowledgement
        assert_eq!(s.response(10).unwrap()[0], 1); // atom.add saw 1
        assert!(s
            .accept(5, MEM_WRITE, 0x2000, &d, 1)
            .unwrap_err()
            .contains("outside"));
    }

    #[test]
    fn back_pressure_follows_the_seed() {
        let m = Memory::new(&[]).unwrap();
        let mut a = MemServer::new(m.clone(), 1, 50, 9);
        let mut b = MemServer::new(m, 1, 50, 9);
        let ra: Vec<bool> = (0..64).map(|_| a.ready()).collect();
        let rb: Vec<bool> = (0..64).map(|_| b.ready()).collect();
        assert_eq!(ra, rb);
        assert!(ra.iter().any(|&r| r) && ra.iter().any(|&r| !r));
    }
}
