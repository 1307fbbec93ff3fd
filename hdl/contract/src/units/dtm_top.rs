//! `dtm`: DTM@GPU in the SIMT pipeline — the `dtm-mtg`, `dtm-mtt` and `dtm-tb` units
//! instantiated unchanged in one top, sequenced by the warp-level rules of spec/dtm.md §3.5
//! (A7, A9, A12, A15, A16, A18).
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::dtm_top`)
//! and the model (`warpforge_testbench::dtm`) are written from it independently. The model
//! composes the three units' models; the RTL instantiates the three units' RTL.
//!
//! # What the unit is
//!
//! One SM's memo tables: an MTG, an MTT and the trace buffers of `warps` × `simd_width`
//! resident threads (thread `t = warp·S + lane`, S = `simd_width` = the warp's lanes). A
//! **request** is one warp instruction at operand read: warp, kid, pc, the SIMT active mask
//! `act`, the instruction's eligibility (§2.6, decided by the requester), the per-lane guard,
//! per lane the three source values `sv1..sv3` (zero-filled, the guard counted, A16) and the
//! thread's `uid` (A3), and — for trace formation — the instruction's source register ids
//! and destination. The top answers per lane: trace hit (with the trace's `oc`), MTG hit
//! (with `res`, INTER or INTRA), or execute; then takes the executed results at writeback.
//!
//! # The sequence of one warp instruction (a state machine; one instruction at a time)
//!
//! 1. **Accept** (`rq_valid` while `rq_ready`). Skip region of the warp (A9): if its
//!    `skip_mask ≠ 0` and `pc == resume_pc` it is cleared. `act = rq_act & ~skip_mask`.
//! 2. **MTT test** (only with no open skip region and an eligible instruction): for each
//!    lane of `act`, in ascending order, one lookup at a time: `lk` (kid, pc); while the MTT
//!    shows its candidates the top shows them on `rf_*` with the lane (the operand collector's
//!    extra reads, A8); the requester drives `rf_val` in the next cycle (passed to `cv_val`);
//!    the top waits for `res_valid` and records hit, `npc`, `len`, `oc` for the lane.
//! 3. **Group** (one cycle): leader = lowest hit lane; `grp` = hit lanes with the leader's
//!    `npc` (A9). Under `trace_policy = unanimous` a `grp ≠ act` is ignored (`grp = 0`).
//!    `grp == act ≠ 0`: a full hit (the warp jumps to `npc`). Else `grp ≠ 0`: the warp's
//!    `skip_mask := grp`, `resume_pc := npc`.
//! 4. **MTG lookup** of `mlk = act & ~grp & guard` (eligible instructions only): one MTG
//!    lookup request held until `req_ready`, then one cycle for the last pass's response. Each
//!    lane sees the table as it was before this instruction's upserts (A7: parallel).
//! 5. **Response** (`rsp_valid` for one cycle): `rsp_trace = grp` with their `oc`;
//!    `rsp_hit` = MTG hits with `res`, `rsp_inter` those whose entry's uid is not the lane's;
//!    `rsp_exec = act & guard & ~grp & ~rsp_hit` (the lanes the functional unit runs);
//!    `rsp_bypass` = no exec lane and at least one reused lane (§3.5 rule 3: the FU is
//!    bypassed); `rsp_skip` / `rsp_resume` the warp's skip region after this instruction.
//! 6. **Writeback** (`wb_valid`, any later cycle; `wb_res` the exec lanes' results).
//! 7. **MTG upsert** of `mlk` (every eligible lane, §3.3): res = the MTG's `res` on a hit,
//!    else `wb_res`; uid = the lane's. Held until `req_ready` (ascending lane order, A7).
//! 8. **Trace buffers**: for each lane of `act` in ascending order, one event per cycle:
//!    an INTRA lane appends (sources `rq_src_*` with the lane's values, destination `rq_dst`,
//!    the MTG's `res`); every other lane of `act` closes its buffer (NR, INTER, ineligible,
//!    guard-false, trace hit — A12, A16). Lanes outside `act` get no event (I13).
//!    A committed trace (`cm_*`) goes straight to the MTT's upsert port.
//! 9. **Drain** (2 cycles: the last commit reaches the MTT), then `rq_ready` again.
//!
//! **Kernel retire / flush** (`ret_valid` while `rq_ready`; A18): every thread's buffer is
//! closed (one event per cycle, tagged `ret_kid`: a trace still open is committed under the
//! retiring tag and invalidated with it), 2 drain cycles, then one cycle drives the MTT's
//! `inv_valid` (or `flush` with `ret_all`) and the MTG's `inv_valid`, every skip region is
//! cleared, and the top waits while the MTG sweeps (`busy`).
//!
//! **Disabled** (`enable = 0`, `DTM_ENABLE`, I12): every request takes steps 1, 3, 5 and 6
//! only — no MTT test (`mttl = 0`), no MTG lookup or upsert (`mlk = 0`), no trace-buffer
//! event, no drain: `rsp_exec = act & guard`, nothing reused, no skip region; after writeback
//! the top is ready again. A retire is accepted and does nothing. So no unit ever receives
//! a request and the tables keep the state reset left them in (the MTG's reset flush still
//! runs); the SM's timing is the baseline's (every warp instruction issues).
//!
//! Order within one cycle (A15) follows from the sequence: MTT upserts happen only in the
//! trace-buffer and drain phases, MTG upserts only in phase 7, lookups only in 2 and 4.
//!
//! # Inputs
//!
//! `reset` (synchronous; all three units reset, the MTG starts its flush, the top waits in
//! the retire-wait state until it ends); `rq_*` (sampled when accepted); `rf_val[cand·k_in·V]`
//! (candidate c's input slot k at `(c·k_in+k)·V`, for the lane shown on `rf_lane` in the
//! previous cycle); `wb_valid`, `wb_res[S·V]`; `ret_valid`, `ret_all`, `ret_kid`. Requests and
//! retires presented while `rq_ready` is low are ignored.
//!
//! # Outputs (functions of registered state and the units' registered outputs)
//!
//! `rq_ready`; `rf_valid`, `rf_lane`, `rf_cand[cand]`, `rf_rid[cand·k_in·10]` (`{v, rid}`);
//! `rsp_*` (valid in one cycle only, zero otherwise); `wb_ready` (waiting for writeback);
//! debug: `dbg_state`, and the units' event records for lockstep (I8): the MTG response
//! (`dbg_mtg_rsp` = {valid, op, lanes, hit}, `dbg_mtg_way`), the MTT lookup result and
//! upsert outcome (`dbg_mtt`), the trace-buffer status and commit (`dbg_tb`), the skip
//! masks (`dbg_skip`).
//!
//! # Analysis modes of the model (not the RTL)
//!
//! `DtmModel::set_branch_eligible` (A5's `BRANCH_ELIGIBLE`): a request whose `rq_dst` is
//! `BRANCH_DST` is a branch; in phase 8 every lane of `act` closes its buffer, INTRA or
//! not, so no trace covers a branch (I3, I4). The other modes (`MODE_PARAMS`) are the
//! requester's: they change what is presented, not the top.
//!
//! # Storage
//!
//! The three units' tables (counted as theirs) plus the top's state: per warp the skip mask
//! and resume PC (`extra_skip`), and the latched request and per-lane results
//! (`extra_sequencer`).

use super::dtm::{KID_BITS, PC_BITS, UID_BITS};
use super::dtm_mtg::{self, MtgConfig};
use super::dtm_mtt::{self, MttConfig, RID_BITS};
use super::dtm_tb::{self, TbConfig};
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "dtm";

/// Top states (the `dbg_state` encoding).
pub mod state {
    pub const IDLE: u64 = 0;
    pub const MTT_LK: u64 = 1;
    pub const MTT_WAIT: u64 = 2;
    pub const GROUP: u64 = 3;
    pub const MTG_LK: u64 = 4;
    pub const MTG_LKW: u64 = 5;
    pub const RSP: u64 = 6;
    pub const WB: u64 = 7;
    pub const MTG_UP: u64 = 8;
    pub const TB_EV: u64 = 9;
    pub const DRAIN: u64 = 10;
    pub const RET_TB: u64 = 11;
    pub const RET_DRAIN: u64 = 12;
    pub const RET_INV: u64 = 13;
    pub const RET_WAIT: u64 = 14;
    pub const BITS: usize = 4;
}

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::int(
        "mtg_entries",
        16,
        8192,
        1024,
        "MTG entries (power of two; §2.5 sweep 16..8192)",
    ),
    ParamSpec::int("mtg_ways", 1, 32, 8, "MTG ways (power of two)"),
    ParamSpec::int(
        "mtg_ports",
        1,
        32,
        8,
        "MTG banks = lanes per cycle (A14; ≤ simd_width)",
    ),
    ParamSpec::int(
        "mtt_entries",
        16,
        8192,
        1024,
        "MTT entries (power of two; A19: equal to the MTG by default)",
    ),
    ParamSpec::int("mtt_ways", 1, 32, 8, "MTT ways (power of two)"),
    dtm_mtt::CAND,
    dtm_mtt::K_IN,
    dtm_mtt::K_OUT,
    dtm_mtt::L_MAX,
    ParamSpec::int(
        "warps",
        1,
        64,
        4,
        "resident warps (threads = warps × simd_width)",
    ),
    ParamSpec::int(
        "simd_width",
        1,
        32,
        8,
        "lanes of a warp request (the paper's core is 8-wide, §5.1)",
    ),
    dtm_tb::TB_POOL,
    ParamSpec::choice(
        "trace_policy",
        &["partial", "unanimous"],
        "partial",
        "A9: partial-warp trace hits (skip mask) or whole-warp hits only",
    ),
    ParamSpec::int(
        "val_bits",
        8,
        64,
        32,
        "register value bits (the ISA is 32-bit; A4 assumes 64)",
    ),
    KID_BITS,
    UID_BITS,
    PC_BITS,
    ParamSpec::int(
        "pc_shift",
        0,
        4,
        0,
        "PC bits the MTT hash drops (0: PCs count instructions; 2 for §4's byte PCs)",
    ),
    ParamSpec::int(
        "isz",
        1,
        16,
        1,
        "PC step of one instruction (1: PCs count instructions; 8 for §4's vectors)",
    ),
    ParamSpec::int(
        "enable",
        0,
        1,
        1,
        "DTM_ENABLE (I12): 0 = no lookup, no insert, tables never change",
    ),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DtmConfig {
    pub mtg: MtgConfig,
    pub mtt: MttConfig,
    pub tb: TbConfig,
    pub warps: usize,
    pub simd: usize,
    pub unanimous: bool,
    /// `DTM_ENABLE` (I12): false = every request answered "execute", no table touched.
    pub enable: bool,
}

/// A unit's parameters from the top's (`map`: the unit's name = value); a unit's own range
/// error names the top's parameter (`prefix` + name).
fn sub(
    specs: &[ParamSpec],
    unit: &str,
    map: &[(&str, String)],
    prefix: &str,
) -> Result<Params, ParamError> {
    let sets: Vec<String> = map.iter().map(|(k, v)| format!("{k}={v}")).collect();
    Params::resolve(unit, specs, None, &sets)
        .map_err(|e| ParamError(e.0.replace("--set ", &format!("--set {prefix}"))))
}

impl DtmConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let (s, w) = (p.usize("simd_width"), p.usize("warps"));
        let threads = w * s;
        if threads < 2 {
            return Err(ParamError(format!(
                "warps = {w} with simd_width = {s}: at least 2 threads (warps × simd_width)"
            )));
        }
        let g = |k: &str| p.int(k).to_string();
        let common = |v: &mut Vec<(&str, String)>| {
            for k in ["val_bits", "kid_bits", "pc_bits"] {
                v.push((k, g(k)));
            }
        };
        let mut gm = vec![
            ("entries", g("mtg_entries")),
            ("ways", g("mtg_ways")),
            ("ports", g("mtg_ports")),
            ("simd_width", g("simd_width")),
            ("uid_bits", g("uid_bits")),
        ];
        common(&mut gm);
        let gp = sub(dtm_mtg::PARAMS, dtm_mtg::NAME, &gm, "mtg_")?;
        let mtg = MtgConfig::from_params(&gp).map_err(|e| ParamError(format!("mtg_{}", e.0)))?;
        let mut tm = vec![
            ("entries", g("mtt_entries")),
            ("ways", g("mtt_ways")),
            ("cand", g("cand")),
            ("k_in", g("k_in")),
            ("k_out", g("k_out")),
            ("l_max", g("l_max")),
            ("pc_shift", g("pc_shift")),
        ];
        common(&mut tm);
        let tp = sub(dtm_mtt::PARAMS, dtm_mtt::NAME, &tm, "mtt_")?;
        let mtt = MttConfig::from_params(&tp).map_err(|e| ParamError(format!("mtt_{}", e.0)))?;
        let mut bm = vec![
            ("threads", threads.to_string()),
            ("tb_pool", g("tb_pool")),
            ("k_in", g("k_in")),
            ("k_out", g("k_out")),
            ("l_max", g("l_max")),
            ("isz", g("isz")),
        ];
        common(&mut bm);
        let bp = sub(dtm_tb::PARAMS, dtm_tb::NAME, &bm, "")?;
        let tb = TbConfig::from_params(&bp)?;
        Ok(DtmConfig {
            mtg,
            mtt,
            tb,
            warps: w,
            simd: s,
            unanimous: p.str("trace_policy") == "unanimous",
            enable: p.int("enable") == 1,
        })
    }

    /// The same configuration with `warps` resident warps (the trace buffers follow: one per
    /// thread, or the pool capped at the threads). The DTM execution mode sizes the SM to
    /// the kernel's block this way.
    pub fn with_warps(&self, warps: usize) -> DtmConfig {
        let mut c = self.clone();
        let threads = (warps * self.simd).max(2);
        let per_thread = self.tb.per_thread();
        c.warps = warps;
        c.tb.threads = threads;
        c.tb.pool = if per_thread {
            threads
        } else {
            self.tb.pool.min(threads)
        };
        c
    }

    pub fn threads(&self) -> usize {
        self.warps * self.simd
    }
    pub fn warp_bits(&self) -> usize {
        index_bits(self.warps)
    }
    pub fn lane_bits(&self) -> usize {
        index_bits(self.simd)
    }
    pub fn val_bits(&self) -> usize {
        self.mtg.val_bits
    }
    pub fn slot_bits(&self) -> usize {
        dtm_mtt::slot_bits(self.val_bits())
    }
    /// One lane's output context.
    pub fn oc_bits(&self) -> usize {
        self.mtt.oc_bits()
    }

    pub fn module_name(&self) -> String {
        format!(
            "dtm_top_w{}_s{}_b{}_i{}_{}{}__{}__{}",
            self.warps,
            self.simd,
            self.tb.pool,
            self.tb.isz,
            if self.unanimous { "u" } else { "p" },
            if self.enable { "" } else { "_off" },
            self.mtg.module_name(),
            self.mtt.module_name()
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (s, v, k, u, p) = (
            self.simd,
            self.val_bits(),
            self.mtg.kid_bits,
            self.mtg.uid_bits,
            self.mtg.pc_bits,
        );
        let (c, ki, lb) = (self.mtt.cand, self.mtt.k_in, self.mtt.len_bits());
        vec![
            Port::input(
                "reset",
                1,
                "synchronous reset of the top and the three units",
            ),
            Port::input("rq_valid", 1, "a warp instruction at operand read"),
            Port::input("rq_warp", self.warp_bits(), "its warp"),
            Port::input("rq_kid", k, "its kernel tag"),
            Port::input("rq_pc", p, "its PC"),
            Port::input("rq_act", s, "SIMT active mask"),
            Port::input("rq_elig", 1, "the instruction is eligible (§2.6)"),
            Port::input("rq_guard", s, "per lane: guard true (1 without a guard)"),
            Port::input("rq_sv1", s * v, "per lane: source value 1 (0 if unused)"),
            Port::input("rq_sv2", s * v, "per lane: source value 2"),
            Port::input("rq_sv3", s * v, "per lane: source value 3 or the guard"),
            Port::input("rq_uid", s * u, "per lane: the thread's uid (A3)"),
            Port::input("rq_src_v", 3, "source s is a register (the guard counts)"),
            Port::input("rq_src_rid", 3 * RID_BITS, "source s's rid at s*9"),
            Port::input("rq_dst", RID_BITS, "the destination rid"),
            Port::input(
                "rf_val",
                c * ki * v,
                "values of the registers shown on rf_rid last cycle, for lane rf_lane",
            ),
            Port::input("wb_valid", 1, "writeback of the instruction in flight"),
            Port::input("wb_res", s * v, "per lane: the executed result"),
            Port::input("ret_valid", 1, "kernel retire (A18)"),
            Port::input("ret_all", 1, "flush every entry"),
            Port::input("ret_kid", k, "the retiring kernel's tag"),
            Port::output("rq_ready", 1, false, "a request or retire is accepted"),
            Port::output(
                "rf_valid",
                1,
                false,
                "MTT candidates' input registers to read",
            ),
            Port::output("rf_lane", self.lane_bits(), false, "for this lane"),
            Port::output("rf_cand", c, false, "candidate c exists"),
            Port::output(
                "rf_rid",
                c * ki * (1 + RID_BITS),
                false,
                "{v, rid} of candidate c's input slot k",
            ),
            Port::output("rsp_valid", 1, false, "the response to the request"),
            Port::output("rsp_trace", s, false, "lanes reusing a trace (grp)"),
            Port::output("rsp_full", 1, false, "every active lane reuses the trace"),
            Port::output("rsp_npc", p, false, "the trace's next PC"),
            Port::output("rsp_len", lb, false, "the trace's length"),
            Port::output(
                "rsp_oc",
                s * self.oc_bits(),
                false,
                "per lane: the trace's output context",
            ),
            Port::output("rsp_hit", s, false, "lanes reusing an MTG result"),
            Port::output("rsp_inter", s, false, "of those, INTER (another thread's)"),
            Port::output("rsp_res", s * v, false, "per lane: the reused result"),
            Port::output("rsp_exec", s, false, "lanes the functional unit executes"),
            Port::output(
                "rsp_bypass",
                1,
                false,
                "no lane executes and some lane reuses: the FU is bypassed",
            ),
            Port::output("rsp_skip", s, false, "the warp's skip mask after this"),
            Port::output("rsp_resume", p, false, "its resume PC"),
            Port::output("wb_ready", 1, false, "waiting for writeback"),
            Port::debug("dbg_state", state::BITS, "sequencer state"),
            Port::debug("dbg_mtg_rsp", 2 + 2 * s, "MTG: {hit, lanes, op, valid}"),
            Port::debug("dbg_mtg_way", s * self.mtg.way_bits(), "MTG: way per lane"),
            Port::debug(
                "dbg_mtt",
                4 + 2 * self.mtt.way_bits() + lb,
                "MTT: {up_way, up_found, up_done, res_len, res_way, res_hit, res_valid}",
            ),
            Port::debug(
                "dbg_tb",
                3 + 2 * lb,
                "TB: {cm_len, cm_valid, st_len, st_nobuf, st_valid}",
            ),
            Port::debug("dbg_skip", self.warps * s, "skip mask of warp w at w*S"),
        ]
    }

    /// Flip-flops of the sequencer: per warp the skip region; the latched request and
    /// the per-lane results.
    pub fn skip_bits(&self) -> usize {
        self.warps * (self.simd + self.mtg.pc_bits)
    }
    pub fn sequencer_bits(&self) -> usize {
        let (s, v, u) = (self.simd, self.val_bits(), self.mtg.uid_bits);
        let req = self.warp_bits()
            + self.mtg.kid_bits
            + self.mtg.pc_bits
            + 3 * s
            + 1
            + 3 * s * v
            + s * u
            + 3
            + 27
            + 9;
        let lanes =
            s * (1 + self.mtg.pc_bits + self.mtt.len_bits() + self.oc_bits()) + s * (2 + 2 * v + u);
        req + lanes + state::BITS + index_bits(self.threads())
    }

    pub fn tables(&self) -> Vec<Table> {
        let mut t = vec![];
        for (pre, tabs) in [
            ("mtg", self.mtg.tables()),
            ("mtt", self.mtt.tables()),
            ("tb", self.tb.tables()),
        ] {
            for x in tabs {
                // The units' extras share names: qualify them by unit.
                let name = match x.name.strip_prefix("extra_") {
                    Some(rest) => format!("extra_{pre}_{rest}"),
                    None => x.name.clone(),
                };
                t.push(Table { name, ..x });
            }
        }
        t.push(Table::new(
            "extra_skip",
            self.warps,
            self.simd + self.mtg.pc_bits,
            "per warp: skip mask and resume PC (A9)",
        ));
        t.push(Table::new(
            "extra_sequencer",
            1,
            self.sequencer_bits(),
            "latched request and per-lane MTT/MTG results (flip-flops)",
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

/// The destination rid a requester gives a branch under `branch_eligible` (analysis only):
/// no register has it (a predicate index above the ISA's), and the model closes every
/// lane's trace buffer on such a request, so traces stay straight-line (A5).
pub const BRANCH_DST: u64 = 0x1FF;

/// Parameters of the DTM execution mode that are not the top's hardware: analysis modes of
/// the model (A1, A5, A7) and the cycle model's SIMD width (A10, A20). `run --suite --dtm`
/// takes them with `--set` beside the top's.
pub const MODE_PARAMS: &[ParamSpec] = &[
    ParamSpec::choice(
        "table_scope",
        &["sm", "lane"],
        "sm",
        "A1: one MTG/MTT pair per SM, or one per lane (Table 1's reading; model only)",
    ),
    ParamSpec::int(
        "lane_serial",
        0,
        1,
        0,
        "A7: 1 = lanes of one warp instruction see each other's upserts in lane order (the paper's serial analysis; model only)",
    ),
    ParamSpec::int(
        "branch_eligible",
        0,
        1,
        0,
        "A5: 1 = branches are MTG-eligible (key: PC and condition; result: taken); model only",
    ),
    ParamSpec::int(
        "fu_width",
        0,
        32,
        0,
        "cycle model: lanes the functional unit runs per cycle (0 = simd_width); a warp instruction takes ceil(simd_width / fu_width) cycles",
    ),
    ParamSpec::int(
        "group_skip",
        0,
        1,
        0,
        "A10: 1 = fu_width-lane groups whose active lanes all reuse take no cycle",
    ),
];

/// The analysis and cycle-model modes of the DTM execution mode (`MODE_PARAMS`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DtmModes {
    /// A1 `TABLE_SCOPE = lane`: one table pair per lane.
    pub lane_tables: bool,
    /// A7 `LANE_SERIAL`.
    pub lane_serial: bool,
    /// A5 `BRANCH_ELIGIBLE`.
    pub branch_eligible: bool,
    /// Lanes per FU cycle (the SIMD width); 0: the top's `simd_width`.
    pub fu_width: usize,
    /// A10 `GROUP_SKIP`.
    pub group_skip: bool,
}

impl DtmModes {
    /// Splits `sets` into the top's and the modes'; checks the modes against the top
    /// (`simd_width`) and the engine (`rtl`: the `dtm` RTL answers). Errors are one line
    /// naming the parameter and what is allowed.
    pub fn split(sets: &[String], rtl: bool) -> Result<(Vec<String>, DtmModes), ParamError> {
        let is_mode = |s: &String| {
            let key = s.split('=').next().unwrap_or("");
            MODE_PARAMS.iter().any(|p| p.name == key)
        };
        let (mode_sets, top): (Vec<String>, Vec<String>) = sets.iter().cloned().partition(is_mode);
        let p = Params::resolve("dtm (execution mode)", MODE_PARAMS, None, &mode_sets)?;
        let simd = Params::resolve(NAME, PARAMS, None, &top)
            .map(|t| t.usize("simd_width"))
            .unwrap_or(8);
        let fu = match p.usize("fu_width") {
            0 => simd,
            f => f,
        };
        let m = DtmModes {
            lane_tables: p.str("table_scope") == "lane",
            lane_serial: p.int("lane_serial") == 1,
            branch_eligible: p.int("branch_eligible") == 1,
            fu_width: p.usize("fu_width"),
            group_skip: p.int("group_skip") == 1,
        };
        if fu > simd {
            return Err(ParamError(format!(
                "fu_width = {fu}: at most simd_width = {simd} (the warp's lanes), or 0 for simd_width"
            )));
        }
        if m.group_skip && fu == simd {
            return Err(ParamError(format!(
                "group_skip = 1: needs a SIMD width below the warp size: fu_width < simd_width = {simd} (e.g. fu_width=8 with simd_width=32, the paper's core)"
            )));
        }
        if rtl {
            let model_only = [
                (
                    m.lane_tables,
                    "table_scope = lane",
                    "the dtm RTL has one table pair per SM",
                ),
                (
                    m.lane_serial,
                    "lane_serial = 1",
                    "the dtm RTL looks up in parallel (A7)",
                ),
                (
                    m.branch_eligible,
                    "branch_eligible = 1",
                    "branches are never eligible in the RTL (A5)",
                ),
            ];
            if let Some((_, what, why)) = model_only.iter().find(|x| x.0) {
                return Err(ParamError(format!(
                    "{what}: analysis only, with --model-only ({why})"
                )));
            }
        }
        Ok((top, m))
    }

    /// The lanes are presented to the tables one at a time, each with its own trace (§3.3's
    /// per-thread reference semantics): under `lane_serial` and with per-lane tables.
    pub fn per_lane(&self) -> bool {
        self.lane_tables || self.lane_serial
    }
}

impl DtmConfig {
    /// The top of one lane's tables under `table_scope = lane`: a one-lane warp (thread =
    /// the warp), the same table sizes, one MTG bank.
    pub fn lane_table(&self) -> DtmConfig {
        let mut c = self.clone();
        c.simd = 1;
        c.mtg.simd = 1;
        c.mtg.ports = 1;
        c.tb.threads = self.warps.max(2);
        c.tb.pool = if self.tb.per_thread() {
            c.tb.threads
        } else {
            self.tb.pool.min(c.tb.threads)
        };
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::dwr::assert_port_names_ok;

    fn cfg(sets: &[&str]) -> Result<DtmConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        DtmConfig::from_params(&p)
    }

    #[test]
    fn defaults_compose_the_three_units() {
        let c = cfg(&[]).unwrap();
        assert_eq!(
            (c.mtg.entries, c.mtt.entries, c.tb.threads),
            (1024, 1024, 32)
        );
        assert_eq!((c.tb.isz, c.mtt.pc_shift), (1, 0));
        assert_port_names_ok(&c.ports());
        let names: Vec<String> = c.tables().iter().map(|t| t.name.clone()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "{names:?}");
    }

    #[test]
    fn bad_parameters_name_the_unit_parameter() {
        assert_eq!(
            cfg(&["mtg_entries=100"]).unwrap_err().0,
            "mtg_entries = 100: must be a power of two from 16 to 8192"
        );
        assert!(cfg(&["mtt_ways=3"])
            .unwrap_err()
            .0
            .starts_with("mtt_ways = 3"));
        assert!(cfg(&["mtg_ports=16"])
            .unwrap_err()
            .0
            .starts_with("mtg_ports = 16"));
        assert!(cfg(&["warps=1", "simd_width=1"])
            .unwrap_err()
            .0
            .contains("at least 2 threads"));
        assert!(cfg(&["tb_pool=40"]).unwrap_err().0.contains("tb_pool = 40"));
    }

    #[test]
    fn modes_are_split_from_the_top_and_checked() {
        let sets: Vec<String> = [
            "mtg_entries=64",
            "lane_serial=1",
            "simd_width=16",
            "fu_width=4",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (top, m) = DtmModes::split(&sets, false).unwrap();
        assert_eq!(
            top,
            vec!["mtg_entries=64".to_string(), "simd_width=16".to_string()]
        );
        assert!(m.lane_serial && !m.lane_tables && !m.branch_eligible && !m.group_skip);
        assert_eq!(m.fu_width, 4);
        assert!(m.per_lane());
        // With the RTL answering the analysis modes are refused.
        let e = DtmModes::split(&sets, true).unwrap_err().0;
        assert!(e.starts_with("lane_serial = 1: analysis only"), "{e}");
        let (_, none) = DtmModes::split(&[], true).unwrap();
        assert_eq!(none, DtmModes::default());
    }

    #[test]
    fn a_lane_table_is_a_one_lane_top_of_the_same_sizes() {
        let c = cfg(&["warps=3"]).unwrap();
        let l = c.lane_table();
        assert_eq!((l.simd, l.mtg.simd, l.mtg.ports, l.warps), (1, 1, 1, 3));
        assert_eq!(
            (l.mtg.entries, l.mtt.entries),
            (c.mtg.entries, c.mtt.entries)
        );
        assert_eq!((l.tb.threads, l.tb.pool), (3, 3));
        assert_port_names_ok(&l.ports());
    }
}
