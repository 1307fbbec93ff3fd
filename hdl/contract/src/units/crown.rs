//! Shared by every CROWN unit (spec/crown.md §0.3, §3.4): the three common parameters, their
//! validation, the thread-index geometry and the warp value that travels between the tables.
//!
//! A warp value on any port is `{pc[pc_bits], lanes[w], thi[w × thi_bits]}`: lane `l` of the
//! warp holds thread `t = thi[l]·w + l` (a thread never changes lane, §3.4.6), and lane `l`'s
//! thread index sits at bits `l·thi_bits …`. Lanes outside `lanes` carry no thread: every
//! table stores their `thi` as zero, so that state digests of RTL and model agree.

use crate::params::{ParamError, ParamSpec, Params};

/// `w`: lanes per CROWN warp, the SIMD width (§0.3: 8).
pub const W: ParamSpec = ParamSpec::int(
    "w",
    4,
    32,
    8,
    "lanes per CROWN warp = SIMD width (4, 8, 16 or 32)",
);
/// `threads`: N, thread slots per SM (§0.3: 1024).
pub const THREADS: ParamSpec = ParamSpec::int(
    "threads",
    32,
    4096,
    1024,
    "thread slots per SM, N (a power of two, at least 8·w)",
);
/// `pc_bits`: stored PC width (Table 4-1 counts 32).
pub const PC_BITS: ParamSpec = ParamSpec::int("pc_bits", 8, 32, 32, "stored PC width");

/// The common geometry of a CROWN unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrownCommon {
    pub w: usize,
    pub threads: usize,
    pub pc_bits: usize,
}

impl Default for CrownCommon {
    fn default() -> Self {
        CrownCommon {
            w: 8,
            threads: 1024,
            pc_bits: 32,
        }
    }
}

impl CrownCommon {
    /// Validates `w`, `threads` and `pc_bits` of `p` (each must be declared by the unit).
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let w = p.int("w");
        if ![4, 8, 16, 32].contains(&w) {
            return Err(ParamError(format!("w = {w}: must be 4, 8, 16 or 32")));
        }
        let threads = p.int("threads");
        if !(threads as u64).is_power_of_two() || threads < 8 * w || threads > 4096 {
            return Err(ParamError(format!(
                "threads = {threads}: must be a power of two from 8·w = {} to 4096",
                8 * w
            )));
        }
        let pc_bits = p.int("pc_bits");
        if !(8..=32).contains(&pc_bits) {
            return Err(ParamError(format!(
                "pc_bits = {pc_bits}: must be an integer from 8 to 32"
            )));
        }
        Ok(CrownCommon {
            w: w as usize,
            threads: threads as usize,
            pc_bits: pc_bits as usize,
        })
    }

    /// Bits of one lane's thread index: log2(N / w) (7 at the thesis' N = 1024, w = 8).
    pub fn thi_bits(&self) -> usize {
        (self.threads / self.w).trailing_zeros() as usize
    }

    /// Bits of a warp's `thi` vector: w × thi_bits.
    pub fn thi_vec_bits(&self) -> usize {
        self.w * self.thi_bits()
    }

    /// Thread slot held by lane `lane` with thread index `thi`.
    pub fn thread(&self, lane: usize, thi: u64) -> u64 {
        thi * self.w as u64 + lane as u64
    }

    /// Mask of all `w` lanes.
    pub fn all_lanes(&self) -> u64 {
        if self.w == 64 {
            u64::MAX
        } else {
            (1u64 << self.w) - 1
        }
    }
}

/// A warp value: `thi[l]` is lane `l`'s thread index (0 for a lane outside `lanes`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Warp {
    pub pc: u64,
    pub lanes: u64,
    pub thi: Vec<u64>,
}

impl Warp {
    /// The warp with every lane outside `lanes` zeroed (as tables store it).
    pub fn normalized(&self, w: usize) -> Warp {
        Warp {
            pc: self.pc,
            lanes: self.lanes,
            thi: (0..w)
                .map(|l| {
                    if self.lanes >> l & 1 == 1 {
                        self.thi.get(l).copied().unwrap_or(0)
                    } else {
                        0
                    }
                })
                .collect(),
        }
    }

    /// The thread slots this warp holds, lane by lane.
    pub fn threads(&self, c: &CrownCommon) -> Vec<u64> {
        (0..c.w)
            .filter(|&l| self.lanes >> l & 1 == 1)
            .map(|l| c.thread(l, self.thi[l]))
            .collect()
    }
}

/// Pack per-lane thread indices into port words (lane `l` at bit `l·thi_bits`).
pub fn pack_thi(thi: &[u64], thi_bits: usize) -> Vec<u64> {
    let bits = thi.len() * thi_bits;
    let mut words = vec![0u64; bits.div_ceil(64).max(1)];
    for (l, &t) in thi.iter().enumerate() {
        for b in 0..thi_bits {
            if t >> b & 1 == 1 {
                let at = l * thi_bits + b;
                words[at / 64] |= 1 << (at % 64);
            }
        }
    }
    words
}

/// The inverse of [`pack_thi`]: `w` thread indices from port words.
pub fn unpack_thi(words: &[u64], w: usize, thi_bits: usize) -> Vec<u64> {
    (0..w)
        .map(|l| {
            (0..thi_bits)
                .filter(|b| {
                    let at = l * thi_bits + b;
                    words.get(at / 64).is_some_and(|x| x >> (at % 64) & 1 == 1)
                })
                .map(|b| 1u64 << b)
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn common(sets: &[&str]) -> Result<CrownCommon, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve("crown", &[W, THREADS, PC_BITS], None, &sets)?;
        CrownCommon::from_params(&p)
    }

    #[test]
    fn thesis_geometry_and_validation() {
        let c = common(&[]).unwrap();
        assert_eq!((c.w, c.threads, c.pc_bits, c.thi_bits()), (8, 1024, 32, 7));
        assert_eq!(c.thi_vec_bits(), 56);
        assert_eq!(c.thread(3, 9), 75);
        assert_eq!(common(&["w=16", "threads=128"]).unwrap().thi_bits(), 3);
        assert_eq!(
            common(&["w=12"]).unwrap_err().0,
            "w = 12: must be 4, 8, 16 or 32"
        );
        assert_eq!(
            common(&["w=32", "threads=128"]).unwrap_err().0,
            "threads = 128: must be a power of two from 8·w = 256 to 4096"
        );
        assert!(common(&["threads=1000"]).is_err());
    }

    #[test]
    fn thi_packing_round_trips() {
        let thi = vec![0x7f, 0, 9, 1, 0x40, 3, 2, 0x11];
        let words = pack_thi(&thi, 7);
        assert_eq!(words.len(), 1);
        assert_eq!(words[0] & 0x7f, 0x7f);
        assert_eq!(unpack_thi(&words, 8, 7), thi);
        let wide: Vec<u64> = (0..32).map(|i| i as u64 % 8).collect();
        assert_eq!(unpack_thi(&pack_thi(&wide, 3), 32, 3), wide);
        let w = Warp {
            pc: 4,
            lanes: 0b101,
            thi: vec![1, 2, 3, 4],
        };
        assert_eq!(w.normalized(4).thi, vec![1, 0, 3, 0]);
    }
}
