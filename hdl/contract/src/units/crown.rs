//! Shared by every CROWN unit (spec/crown.md §0.3, §3.4): the three common parameters, their
//! validation, the thread-index geometry and the warp value that travels between the tables.
//!
//! A warp value on any port is `{pc[pc_bits], lanes[w], thi[w × thi_bits]}`: lane `l` of the
//! warp holds thread `t = thi[l]·w + l` (a thread never changes lane, §3.4.6), and lane `l`'s
//! thread index sits at bits `l·thi_bits …`. Lanes outside `lanes` carry no thread: every
//! table stores their `thi` as zero, so that state digests of RTL and model agree.

use crate::manifest::{Manifest, Port, Table};
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

    /// [`Warp::normalized`] in place (no allocation when `thi` already has `w` lanes).
    pub fn normalize(&mut self, w: usize) {
        self.thi.resize(w, 0);
        for (l, t) in self.thi.iter_mut().enumerate() {
            if self.lanes >> l & 1 == 0 {
                *t = 0;
            }
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
    let mask = field_mask(thi_bits);
    for (l, &t) in thi.iter().enumerate() {
        let (at, t) = (l * thi_bits, t & mask);
        let (w, b) = (at / 64, at % 64);
        words[w] |= t << b;
        if b + thi_bits > 64 && b != 0 {
            words[w + 1] |= t >> (64 - b);
        }
    }
    words
}

/// The inverse of [`pack_thi`]: `w` thread indices from port words (missing words read as 0).
pub fn unpack_thi(words: &[u64], w: usize, thi_bits: usize) -> Vec<u64> {
    let mask = field_mask(thi_bits);
    let word = |i: usize| words.get(i).copied().unwrap_or(0);
    (0..w)
        .map(|l| {
            let at = l * thi_bits;
            let (i, b) = (at / 64, at % 64);
            let mut v = word(i) >> b;
            if b + thi_bits > 64 && b != 0 {
                v |= word(i + 1) << (64 - b);
            }
            v & mask
        })
        .collect()
}

fn field_mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

// ---------------------------------------------------------------------------------------------
// The `crown` top (spec/crown.md §3.3–§3.10): the four sub-units together.
// ---------------------------------------------------------------------------------------------
//
// # What the unit is
//
// The issue pool (`crown-pool`), the second level (`crown-l2`), the Ready and Waiting Lookups
// (`crown-lookup`) and the barrier table (`crown-barrier`), joined by the per-cycle ordering
// of §3.9 and the pseudo-code of §3.10. Every sub-unit keeps its own contract; the top adds
// the commit port, the issue port and the arbitration of the second level's one payload write.
//
// # Inputs (sampled in the cycle they are driven)
//
// - `reset`: synchronous; every sub-unit resets, the holding register empties.
// - `cmt_valid, cmt_kind[3], cmt_row, cmt_pc, cmt_lanes, cmt_thi, cmt_taken, cmt_target,
//   cmt_rpc, cmt_rpc_valid`: one commit event (≤ 1 per cycle), taken when `cmt_ready`. Kinds:
//   - `0 launch` (T0): a new warp `{cmt_pc, cmt_lanes, cmt_thi}` enters the second level.
//   - `1 advance` (T3, T10): second-level row `cmt_row` (waiting-exec or waiting-sync) holding
//     `{cmt_lanes, cmt_thi}` goes on at `cmt_pc`: arrival check, then the row is written
//     `{cmt_pc, lanes not absorbed}` and made ready, or freed if every lane was absorbed.
//   - `2 branch` (T4): lanes `cmt_taken` go to `cmt_target`, the other lanes of `cmt_lanes`
//     to `cmt_pc` (the fall-through). If all lanes agree it is an advance. Otherwise: barriers
//     are reserved at R = `cmt_rpc` for `cmt_lanes` unless `cmt_rpc_valid` is 0 (R is the
//     kernel exit, A16); the arrival check probes every lane at its own next PC (it sees this
//     cycle's reservation, so a path at R is absorbed at once); what is left of the
//     fall-through path is Ready Lookup insert 0, of the taken path insert 1; the row is freed.
//   - `3 exit` (T12): lanes `cmt_taken` retire; the rest of `cmt_lanes` advance to `cmt_pc`
//     (A16, a predicated exit), or the row is freed when none is left.
//   - `4 load` (T8): row `cmt_row` dispatched a long-latency load at `cmt_pc`. A partial warp
//     is offered to the Waiting Lookup; if it is taken the row is freed and the request's tag
//     is that Waiting Lookup row (`cmt_tag_wl` = 1, `cmt_tag_row`); otherwise the row stays
//     waiting-exec and the tag is the row (`cmt_tag_wl` = 0), completed later by an advance.
//   - `5 complete`: Waiting Lookup row `cmt_row`'s lanes `cmt_taken` have their data.
//   - `6 sync` (`__syncthreads`): row `cmt_row` becomes waiting-sync with `{cmt_pc, cmt_lanes}`
//     written (`cmt_pc` = the PC after the barrier); its release is an advance.
// - `iss_ready`: the pipeline takes the selected warp this cycle.
//
// # One cycle (every decision reads start-of-cycle state; results commit at the edge)
//
// 1. `cmt_ready` = holding register empty, and the second level has a free row for every
//    insert the event may need (launch 1, divergent branch 2). A taken event drives the
//    sub-units as above.
// 2. **Payload-write arbitration.** The second level writes one row per cycle. Order: the
//    holding register (its warp is inserted; commit is stalled that cycle) → the commit (a
//    launch, an advance / exit / sync row write, the first Ready Lookup bypass; a second
//    bypass goes to the holding register) → one transfer, oldest source first (A13 as
//    narrowed by the single port): a ready Waiting Lookup row (probed for arrivals on the
//    way, so not in a cycle whose commit probes), else a complete barrier when `ready_count
//    = 0`, else a Ready Lookup row when `ready_count < 2`. A divergent branch claims the
//    port whether or not it bypasses (so a transfer never waits on the Ready Lookup's
//    result). A transfer needs a free second-level row. Transferred warps are
//    inserted as ready; a Waiting Lookup row absorbed completely is just freed.
// 3. **Refill** (T1): the second level's read result of the last cycle is written into the
//    pool; the ready FIFO head is popped when the pool has more free entries at the start of
//    the cycle than refills arriving this cycle.
// 4. **Issue** (T2): with `iss_ready`, the pool's LRR selection issues; its row becomes
//    waiting-exec.
//
// # Outputs
//
// Combinational: `cmt_ready`, `cmt_tag_wl`, `cmt_tag_row` (load events), `ev_*` per-cycle
// event counts. Registered: `iss_valid, iss_row, iss_pc, iss_lanes, iss_thi` (the pool's
// selection), `ready_count`, `l2_occupancy`, `bar_live`, `hold_valid`. Debug: every
// sub-unit's state digest under its prefix (`l2_`, `pool_`, `rl_`, `wl_`, `bar_`) and the
// holding register.

/// Unit name of the top.
pub const NAME: &str = "crown";

/// `rl_rows`: Ready Lookup rows (§3.4.3: 8; 4 in the sensitivity study).
pub const RL_ROWS: ParamSpec = ParamSpec::int("rl_rows", 2, 16, 8, "Ready Lookup rows");
/// `wl_rows`: Waiting Lookup rows (§3.4.4: 8).
pub const WL_ROWS: ParamSpec = ParamSpec::int("wl_rows", 2, 16, 8, "Waiting Lookup rows");

pub const PARAMS: &[ParamSpec] = &[
    W,
    THREADS,
    PC_BITS,
    super::crown_l2::N2,
    super::crown_l2::POOL,
    RL_ROWS,
    WL_ROWS,
    super::crown_barrier::SETS,
    super::crown_barrier::WAYS,
];

/// Commit-event kinds (`cmt_kind`).
pub mod kind {
    pub const LAUNCH: u64 = 0;
    pub const ADVANCE: u64 = 1;
    pub const BRANCH: u64 = 2;
    pub const EXIT: u64 = 3;
    pub const LOAD: u64 = 4;
    pub const COMPLETE: u64 = 5;
    pub const SYNC: u64 = 6;
}

/// The top's configuration: the common geometry and every sub-unit's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrownConfig {
    pub l2: super::crown_l2::L2Config,
    pub pool: super::crown_pool::PoolConfig,
    pub rl: super::crown_lookup::LookupConfig,
    pub wl: super::crown_lookup::LookupConfig,
    pub bar: super::crown_barrier::BarrierConfig,
}

impl CrownConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let common = CrownCommon::from_params(p)?;
        Self::new(
            common,
            p.usize("n2"),
            p.usize("pool"),
            p.usize("rl_rows"),
            p.usize("wl_rows"),
            p.usize("sets"),
            p.usize("ways"),
        )
    }

    /// Validates every size against the geometry (messages name the parameter).
    pub fn new(
        common: CrownCommon,
        n2: usize,
        pool: usize,
        rl_rows: usize,
        wl_rows: usize,
        sets: usize,
        ways: usize,
    ) -> Result<Self, ParamError> {
        use super::crown_lookup::{LookupConfig, LookupKind};
        super::crown_l2::check_n2(n2 as i64, pool as i64)?;
        let rename = |e: ParamError, name: &str| ParamError(e.0.replacen("rows", name, 1));
        Ok(CrownConfig {
            l2: super::crown_l2::L2Config {
                common: common.clone(),
                n2,
                pool,
            },
            pool: super::crown_pool::PoolConfig {
                common: common.clone(),
                pool,
                n2,
            },
            rl: LookupConfig::new(LookupKind::Ready, rl_rows, common.clone())
                .map_err(|e| rename(e, "rl_rows"))?,
            wl: LookupConfig::new(LookupKind::Waiting, wl_rows, common.clone())
                .map_err(|e| rename(e, "wl_rows"))?,
            bar: super::crown_barrier::BarrierConfig::new(sets, ways, common)?,
        })
    }

    pub fn common(&self) -> &CrownCommon {
        &self.l2.common
    }

    /// Bits of `cmt_row`: a second-level row or a Waiting Lookup row.
    pub fn row_bits(&self) -> usize {
        self.l2.row_bits().max(self.wl.row_bits())
    }

    pub fn module_name(&self) -> String {
        let c = self.common();
        format!(
            "crown_n{}_e{}_r{}_q{}_b{}x{}_w{}_t{}_p{}",
            self.l2.n2,
            self.pool.pool,
            self.rl.rows,
            self.wl.rows,
            self.bar.sets,
            self.bar.ways,
            c.w,
            c.threads,
            c.pc_bits
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let c = self.common();
        let (p, w, tv, rb) = (c.pc_bits, c.w, c.thi_vec_bits(), self.row_bits());
        let l2rb = self.l2.row_bits();
        let mut v = vec![
            Port::input("reset", 1, "synchronous reset of every table"),
            Port::input("cmt_valid", 1, "a commit event is present"),
            Port::input(
                "cmt_kind",
                3,
                "0 launch, 1 advance, 2 branch, 3 exit, 4 load, 5 complete, 6 sync",
            ),
            Port::input(
                "cmt_row",
                rb,
                "second-level row (Waiting Lookup row for complete)",
            ),
            Port::input(
                "cmt_pc",
                p,
                "next PC (branch: fall-through; load: the load's PC)",
            ),
            Port::input("cmt_lanes", w, "the warp's lanes"),
            Port::input("cmt_thi", tv, "lane l's thread index at l*thi_bits"),
            Port::input(
                "cmt_taken",
                w,
                "branch: taken lanes; exit: exiting lanes; complete: lanes done",
            ),
            Port::input("cmt_target", p, "branch target"),
            Port::input("cmt_rpc", p, "branch reconvergence PC R"),
            Port::input(
                "cmt_rpc_valid",
                1,
                "R is not the kernel exit (reserve barriers)",
            ),
            Port::input("iss_ready", 1, "the pipeline takes the selected warp"),
            Port::input(
                "cta_mask",
                c.thi_bits(),
                "thread-index bits naming the CTA: the lookups merge only within one (A14 merge_scope = cta); 0 = any",
            ),
            Port::output("cmt_ready", 1, true, "the commit event is taken this cycle"),
            Port::output(
                "cmt_tag_wl",
                1,
                true,
                "load: the request is tagged with a Waiting Lookup row",
            ),
            Port::output("cmt_tag_row", rb, true, "load: the tag's row"),
            Port::output("iss_valid", 1, false, "the pool selects a warp"),
            Port::output("iss_row", l2rb, false, "its second-level row"),
            Port::output("iss_pc", p, false, "its PC"),
            Port::output("iss_lanes", w, false, "its lanes"),
            Port::output("iss_thi", tv, false, "its thread indices"),
            Port::output(
                "ready_count",
                self.l2.count_bits(),
                false,
                "second-level ready count",
            ),
            Port::output(
                "l2_occupancy",
                self.l2.count_bits(),
                false,
                "second-level rows not free",
            ),
            Port::output(
                "bar_live",
                self.bar.count_bits(),
                false,
                "live (incomplete) barriers",
            ),
            Port::output(
                "hold_valid",
                1,
                false,
                "the holding register has a bypass warp",
            ),
            Port::output(
                "ev_rl_merge",
                self.rl.merge_bits(),
                true,
                "lanes merged in the Ready Lookup",
            ),
            Port::output(
                "ev_wl_merge",
                self.wl.merge_bits(),
                true,
                "lanes merged in the Waiting Lookup",
            ),
            Port::output(
                "ev_bar_fail",
                self.bar.lane_count_bits(),
                true,
                "barrier allocation failures",
            ),
            Port::output("ev_arrive", w, true, "lanes absorbed by barriers"),
            Port::output(
                "ev_transfer",
                2,
                true,
                "transfer source: 0 none, 1 WL, 2 barrier, 3 RL",
            ),
            Port::debug(
                "dbg_hold",
                1 + p + w + tv,
                "holding register {valid, pc, lanes, thi}",
            ),
        ];
        let prefixed = |pre: &str, ports: Vec<Port>| -> Vec<Port> {
            ports
                .into_iter()
                .filter(|q| q.name.starts_with("dbg_"))
                .map(|mut q| {
                    q.name = format!("{pre}_{}", q.name);
                    q
                })
                .collect()
        };
        v.extend(prefixed("l2", self.l2.ports()));
        v.extend(prefixed("pool", self.pool.ports()));
        v.extend(prefixed("rl", self.rl.ports()));
        v.extend(prefixed("wl", self.wl.ports()));
        v.extend(prefixed("bar", self.bar.ports()));
        v
    }

    /// Every sub-unit's tables, prefixed, and the holding register.
    pub fn tables(&self) -> Vec<Table> {
        let c = self.common();
        let mut t = vec![];
        for (pre, tabs) in [
            ("l2", self.l2.tables()),
            ("pool", self.pool.tables()),
            ("rl", self.rl.tables()),
            ("wl", self.wl.tables()),
            ("bar", self.bar.tables()),
        ] {
            for mut x in tabs {
                // Counted (Table 4-1) names keep their meaning; the prefix says whose.
                x.name = if x.name.starts_with("extra_") || x.name.starts_with("base_") {
                    let (kind, rest) = x.name.split_once('_').unwrap();
                    format!("{kind}_{pre}_{rest}")
                } else {
                    x.name
                };
                t.push(x);
            }
        }
        t.push(Table::new(
            "extra_hold",
            1,
            1 + c.pc_bits + c.w + c.thi_vec_bits(),
            "holding register for a second bypass warp (the second level's one write port)",
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

    fn top(sets: &[&str]) -> Result<CrownConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        CrownConfig::from_params(&p)
    }

    #[test]
    fn top_storage_is_table_4_1() {
        let c = top(&[]).unwrap();
        let s = crate::manifest::split_storage(&c.tables());
        // 12,288 + 46,080 + 704 + 704 (the pool is baseline-equivalent, §3.4.1).
        assert_eq!(s.counted_bits, 59_776);
        crate::units::dwr::assert_port_names_ok(&c.ports());
        assert_eq!(c.row_bits(), 9);
        let names: Vec<String> = c.ports().into_iter().map(|p| p.name).collect();
        for n in [
            "bar_dbg_arrived",
            "rl_dbg_thi",
            "wl_dbg_pending",
            "l2_dbg_state",
        ] {
            assert!(names.iter().any(|x| x == n), "{n}");
        }
    }

    #[test]
    fn top_validation_names_the_parameter() {
        assert!(top(&["rl_rows=17"]).unwrap_err().0.contains("rl_rows"));
        assert_eq!(
            top(&["n2=4"]).unwrap_err().0,
            "n2 = 4: must be a power of two from pool = 8 to 4096"
        );
        assert!(top(&["sets=32", "threads=128"])
            .unwrap_err()
            .0
            .starts_with("sets = 32"));
        assert!(top(&["w=4", "threads=64", "n2=16", "sets=4"]).is_ok());
    }
}
