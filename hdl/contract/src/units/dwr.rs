//! `dwr`: Dynamic Warp Resizing for one SM — the sub-warp scheduler states, the Partner-Synch
//! Table ([`super::dwr_pst`]), the Ignore-List Table ([`super::dwr_ilt`]) and the Sub-warp
//! Combiner ([`super::dwr_sco`]) as one unit (spec/dwr.md §2.6–§2.9, §3.4–§3.10).
//!
//! This comment is the normative cycle-level contract. The RTL and the model are written from
//! it independently and must agree on every output, every cycle. Section numbers (§) and
//! decision numbers (A*, D*) refer to spec/dwr.md; `docs/dwr.md` explains the decisions and maps
//! the spec's vectors onto these ports.
//!
//! # Sizes
//!
//! `S` = `subwarp_size`, `T` = `threads`, `W` = `group_size`, `N = T/S` sub-warps, `M = N/W`
//! partner groups (PST rows), `L` = `bar_lat`, `E = ilt_sets × ilt_ways` ILT entries.
//! Sub-warp `s` belongs to group `n = s / W` at local position `m = s mod W` (§3.1); group `n`
//! is the SCO window `nW … nW+W−1` (§2.9). Widths: `swb` = [`Geometry::subwarp_bits`], `gb` =
//! [`Geometry::group_bits`], `zb` = [`Geometry::size_bits`], `P` = `pc_bits`.
//! Per-sub-warp vectors carry sub-warp `s` in bit `s`; per-group-member vectors carry member
//! `m` in bits `[m·k, (m+1)·k)` for a `k`-bit field.
//!
//! # The environment this unit sits in
//!
//! The unit is the schedule stage of a single-issue SM with DWR. The *environment* (front end,
//! SIMT stacks, pipelines, memory, the `__syncthreads` block barrier) owns the program, the PCs
//! and the active masks. The unit owns the sub-warp states, the round-robin pick, the PST, the
//! ILT, the barrier pipeline and the fused-issue slot occupancy.
//!
//! The pick is made one cycle ahead: at the end of cycle `t−1` the unit picks the sub-warp that
//! issues in cycle `t` from the state as it is at the end of `t−1` (§3.10 rule 1), registers it,
//! and shows it on the `nxt_*` outputs of cycle `t−1`. In cycle `t` the environment therefore
//! knows who issues and drives the instruction class of that sub-warp (`inst_kind`) and the
//! current PCs and active masks of its group (`grp_pc`, `grp_mask`). Every input is legal in
//! every cycle: requests that do not apply to a sub-warp's state are ignored, as stated below.
//!
//! # Sub-warp states (3 bits, §2.6 [REC] encoding; [`State`])
//!
//! `0 EMPTY` (valid = 0) · `1 READY` · `2 STALLED` (an issued instruction, fused bundle or
//! own `bar.synch_partner` in flight) · `3 WAIT_BLOCKBAR` (blocked at `bar.sync`) ·
//! `4 WAIT_PARTNER` (locked in the PST) · `5 COMBINE_READY` (released; its next issue goes
//! through the SCO). Codes 6 and 7 never occur. Valid = state ≠ EMPTY.
//!
//! # Inputs (all sampled in the cycle they are driven)
//!
//! - `reset`: synchronous. The next state is the reset state; every other input is ignored;
//!   outputs in a reset cycle are unspecified (not compared).
//! - `grid_start`: a kernel (grid) launch. With `ilt_flush = true` the ILT is empty from the next
//!   cycle (A9); with `ilt_flush = false` it is ignored. Nothing else changes.
//! - `launch[N]`: thread-block allocation: each EMPTY sub-warp with its bit set is READY from the
//!   next cycle. Ignored for sub-warps that are not EMPTY. The PST is not touched (A6: a group
//!   whose sub-warps are all EMPTY never has a valid row, so allocation always meets a clear row).
//! - `ready[N]`: no hazard: sub-warp `s` may be picked for the NEXT cycle (scoreboard clear,
//!   instruction fetched). Only READY or COMBINE_READY sub-warps can be picked; the bit of any
//!   other sub-warp is ignored. Fused partners do not need it (§3.6).
//! - `inst_kind[3]`: class of the instruction the picked sub-warp issues this cycle
//!   ([`InstKind`]): `0 ALU` (latency 1: the sub-warp stays READY), `1 LONG` (latency > 1,
//!   including a sensitive instruction issued alone after an ILT bypass: STALLED until
//!   `writeback`), `2 BAR_PARTNER` (`bar.synch_partner`, its PC = the picked sub-warp's slice of
//!   `grp_pc`), `3 BAR_SYNC` (`__syncthreads`), `4 EXIT`; codes 5–7 act as ALU. Ignored when
//!   nothing issues and when the picked sub-warp is COMBINE_READY (it then issues its sensitive
//!   instruction through the SCO).
//! - `grp_pc[W·P]`, `grp_mask[W·S]`: the current PC and SIMT active mask of each member of the
//!   picked sub-warp's group (member `m` = sub-warp `nW+m`). Used only in a cycle in which a
//!   bundle issues. The unit trusts them (a COMBINE_READY sub-warp's PC is the PC after its
//!   barrier).
//! - `writeback[N]`: the in-flight instruction (or fused bundle) of these sub-warps completes:
//!   each STALLED sub-warp with its bit set and no `bar.synch_partner` of its own in the barrier
//!   pipeline is READY from the next cycle. Ignored for every other sub-warp. A fused load's
//!   members are woken together by setting all their bits in one cycle (A15).
//! - `blockbar_release[N]`: the `__syncthreads` block barrier lets these sub-warps go: each
//!   WAIT_BLOCKBAR sub-warp with its bit set is READY from the next cycle. Ignored otherwise.
//!
//! # State and reset
//!
//! `state[N]`; the PST (`M` rows {valid, pc, lock[W]}, as [`super::dwr_pst`]); the ILT
//! (`E` entries {valid, tag} and a FIFO pointer per set, as [`super::dwr_ilt`]); the barrier
//! pipeline: stages `k = 1 … L−1`, stage `k` holding {valid, sub-warp, pc} of the
//! `bar.synch_partner` issued `k` cycles ago; the round-robin pointer `ptr` (the last issued
//! sub-warp; after a fused issue its highest member); the registered pick {`sel_valid`,
//! `sel_sw`}; `hold` (issue slices of the current bundle still to come, 0 … W−1); with
//! `sco_match = matched`, a `matched` bit per sub-warp.
//! Reset: every sub-warp EMPTY, PST and ILT empty (valid 0, lock 0, FIFO pointers 0), pipeline
//! empty, `ptr = N−1` (so sub-warp 0 is searched first, §3.10 rule 1), no pick, `hold = 0`,
//! matched bits 0.
//!
//! # One cycle `t` (not in reset)
//!
//! `S` is the registered state at the start of `t`. Steps 2–4 test the state in `S`, so they
//! never apply to a sub-warp that step 1 issues (that one is READY or COMBINE_READY in `S`).
//!
//! 1. **Issue** (§3.6, A13, A20). If `sel_valid` (this implies `hold = 0`), the picked sub-warp
//!    `sel = sel_sw` of group `n`, position `m`, issues a bundle:
//!    - `sel` is COMBINE_READY (a *fused* issue): the members are the positions `j` with
//!      `state[nW+j] = COMBINE_READY` and `match(j)`, where `match(j)` is
//!      `grp_pc[j] = grp_pc[m]` (`sco_match = pc`, A5 [REC]) or
//!      `j = m ∨ (matched[sel] ∧ matched[nW+j])` (`sco_match = matched`). `sel` is always a
//!      member. Every member becomes STALLED. `ptr ← nW + (highest member)`. `hold ← size − 1`
//!      (`fused_slices = members`: the bundle holds the issue slot for one slice per member) or
//!      `0` (`fused_slices = one`).
//!    - otherwise (`sel` is READY) the bundle is `{sel}`; `ptr ← sel`; by `inst_kind`: ALU (and
//!      5–7): no change; LONG: STALLED; BAR_PARTNER: STALLED, and the barrier {sel, pc =
//!      `grp_pc[m]`} enters the barrier pipeline (with `L = 1` it acts in step 5 of this cycle);
//!      BAR_SYNC: WAIT_BLOCKBAR; EXIT: EMPTY (valid is 0 from `t+1`, §3.10 rule 4).
//!
//!    If `sel_valid = 0` and `hold > 0`: `hold ← hold − 1` (a later slice occupies the slot).
//! 2. **Writeback**: `writeback` as above (STALLED in `S`, no own barrier in any valid pipeline
//!    stage of `S`) → READY.
//! 3. **Block-barrier release**: `blockbar_release` (WAIT_BLOCKBAR in `S`) → READY.
//! 4. **Launch**: `launch` (EMPTY in `S`) → READY.
//! 5. **Barrier action** (§3.4, §3.10 rule 3). The acting barrier is pipeline stage `L−1` if
//!    `L > 1`, or the barrier issued in step 1 if `L = 1`: sub-warp `a` (STALLED), PC `p`, so a
//!    barrier issued at `t` acts at the end of `t+L−1` and its effect is visible from `t+L`.
//!    - ILT lookup of `p` in the ILT of `S`. Hit: `a` → READY; the PST is not touched (I-BYPASS).
//!    - Miss: the PST arrival of [`super::dwr_pst`] step 1 for (`a`, `p`): row invalid → the row
//!      opens with pc `p`; same pc → lock only; different pc → lock, row pc unchanged, and a
//!      *mismatch*: ILT insert request #0 = `p` (A4). `a` → WAIT_PARTNER. With
//!      `sco_match = matched`: `matched[a] ← ¬mismatch`.
//! 6. **Release** (Eq. 5-1 with A1, D2, D4, D5; evaluated for every row, after steps 1–5): with
//!    `state'` and the rows as left by steps 1–5, row `n` releases when it is valid and every
//!    member `s = nW+m` has *arrived*: `state'[s] = EMPTY` ∨ `lock[m]` ∨
//!    `state'[s] = WAIT_BLOCKBAR`. On release every member with its lock bit set becomes
//!    COMBINE_READY (a WAIT_BLOCKBAR member stays WAIT_BLOCKBAR, D4) and the row is cleared
//!    (valid 0, lock 0; A6). The release *depends on D4* when some member has
//!    `state'[s] = WAIT_BLOCKBAR`; then, if `d4_learn`, the row's pc is an ILT insert request
//!    (§3.8 optional [REC]; the non-row PCs of locked members were inserted at their own
//!    mismatch). D4 requests follow request #0, in ascending row order. (At most two rows
//!    release in one cycle: one by the barrier action, one by the issued EXIT or BAR_SYNC.)
//! 7. **ILT update**: the insert requests are applied one after another exactly as the inserts
//!    of [`super::dwr_ilt`] (FIFO per set, no duplicates — a request that is already present,
//!    also by an earlier request of this cycle, changes nothing; A8). Then, if `grid_start` and
//!    `ilt_flush`, the ILT is flushed (all valid 0, all FIFO pointers 0), discarding this
//!    cycle's inserts.
//! 8. **Barrier pipeline**: stage `k+1 ← k` for `k = 1 … L−2`; stage 1 ← the barrier issued in
//!    step 1 (invalid if none, or if `L = 1`).
//! 9. **Pick for `t+1`** (§3.10 rule 1, A20, A23): if `hold > 0` after step 1, no pick.
//!    Otherwise the candidates are the sub-warps whose final state (after step 6) is READY or
//!    COMBINE_READY and whose `ready` bit is set; the pick is the first candidate in the order
//!    `ptr+1, ptr+2, …, N−1, 0, …, ptr` (with `ptr` as updated in step 1). It is registered as
//!    {`sel_valid`, `sel_sw`} and shown on `nxt_*`.
//!
//! Precedence. Per sub-warp, at most one of issue / writeback / block release / launch applies
//! (they require different states in `S`); the barrier action (step 5) then the release
//! (step 6) see the result. Per PST row: the barrier action first, then the release evaluation,
//! so a row that is opened or completed and released in one cycle is never seen valid
//! (spec S2: the end-of-cycle lock vector goes 0x7F → 0x00). Per ILT set: lookup on `S`, then
//! the inserts in order, then the flush.
//!
//! # Outputs
//!
//! Functions of registered state only (Moore): `issue_valid` (= `sel_valid`), `issue_sw`
//! (`sel_sw`, 0 when no issue), `issue_fused` (`sel` is COMBINE_READY), `issue_group`
//! (`sel / W`), `slot_busy` (`issue_valid ∨ hold > 0`: the issue slot is in use; a cycle up to
//! completion with `slot_busy = 0` is an idle cycle, §4.5). Combinational (Mealy):
//! `issue_members[W]` (positions of the bundle's members; combinational only with
//! `sco_match = pc`), `issue_size[zb]` (member count; same), `issue_pc[P]` (`grp_pc[m]`),
//! `issue_mask[W·S]` (member `j`'s slice = `grp_mask` slice `j` for members, 0 otherwise: the
//! fused warp's active mask, A18); all `issue_*` are 0 when `issue_valid = 0`.
//! `act_valid`, `act_sw[swb]`, `act_hit`, `act_mismatch`: the barrier action of step 5 (0 when
//! none); combinational only when `L = 1`. `rel[M]`, `rel_d4[M]`: rows released in step 6, and
//! those whose release depended on D4 (the Eq. 5-1 result per row). `nxt_valid`, `nxt_sw[swb]`,
//! `nxt_fused`: the pick of step 9 and whether it is COMBINE_READY (0 when none).
//!
//! # State digest (`dbg_*`: registered state at the start of the cycle, compared every cycle)
//!
//! - `dbg_state[3N]`: sub-warp `s`'s state code in bits `[3s, 3s+3)`.
//! - `dbg_matched[N]`: bit `s` = `matched[s]` if `sco_match = matched` and `s` is WAIT_PARTNER or
//!   COMBINE_READY; 0 otherwise (always 0 with `sco_match = pc`).
//! - `dbg_ptr[swb]`: `ptr`. `dbg_hold[hb]` (`hb` = [`DwrConfig::hold_bits`]): `hold`.
//! - `dbg_pipe_valid[Q]`, `dbg_pipe_sw[Q·swb]`, `dbg_pipe_pc[Q·P]` with `Q = max(L−1, 1)`:
//!   stage `k` in bit / field `k−1`; sub-warp and pc are 0 for an invalid stage; with `L = 1`
//!   the single field is always 0.
//! - `dbg_pst_valid[M]`, `dbg_pst_pc[M·P]`, `dbg_pst_lock[M·W]`: row `n` in bit / field `n`
//!   (lock bit `m` of row `n` at `n·W+m`); pc and lock are 0 for an invalid row.
//! - `dbg_ilt_valid[E]`, `dbg_ilt_tag[E·tb]`, `dbg_ilt_ptr[sets·pb]`: entry `e = set·ways + way`
//!   in bit / field `e`, tag 0 when invalid; set `i`'s FIFO pointer in field `i`
//!   (`tb`, `pb` from [`super::dwr_ilt::IltConfig`]).
//!
//! # Storage
//!
//! [`DwrConfig::tables`] lists the thesis tables `pst` and `ilt` (82 B + 124 B per SM in the
//! default configuration, §5), then `extra_*` tables (DWR state the thesis does not count: the
//! third state bit, the ILT FIFO pointers, matched bits) and `base_*` tables (state a baseline
//! scheduler/pipeline holds anyway: the two baseline state bits, pointer, pick, slot hold and
//! the barrier pipeline latches). [`crate::manifest::split_storage`] sums each class.

use super::dwr_ilt::{self, IltConfig};
use super::dwr_pst::PstConfig;
use super::dwr_sco::{self, ScoConfig, ScoMatch};
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "dwr";

/// Largest supported number of sub-warps per SM (keeps per-sub-warp vectors ≤ 256 bits).
pub const MAX_SUBWARPS: usize = 256;

pub const SUBWARP_SIZE: ParamSpec = ParamSpec::int(
    "subwarp_size",
    1,
    32,
    8,
    "S: threads per sub-warp (= SIMD width), DWR's smallest warp",
);
pub const THREADS: ParamSpec = ParamSpec::int(
    "threads",
    8,
    2048,
    1024,
    "T: thread contexts per SM; N = T/S sub-warps",
);
pub const GROUP_SIZE: ParamSpec = ParamSpec::int(
    "group_size",
    2,
    8,
    8,
    "W: sub-warps per partner group = largest warp in sub-warps (2, 4, 8: DWR-16/32/64 at S = 8)",
);
pub const PC_BITS: ParamSpec = ParamSpec::int("pc_bits", 4, 32, 32, "width of a PC");
pub const BAR_LAT: ParamSpec = ParamSpec::int(
    "bar_lat",
    1,
    32,
    24,
    "BAR_LAT: a bar.synch_partner issued at t acts on ILT/PST at the end of t+BAR_LAT-1 (A12)",
);
pub const D4_LEARN: ParamSpec = ParamSpec::boolean(
    "d4_learn",
    true,
    "a release that depends on rule D4 inserts the row's barrier PC into the ILT (§3.8)",
);
pub const FUSED_SLICE_CHOICES: &[&str] = &["members", "one"];
pub const FUSED_SLICES: ParamSpec = ParamSpec::choice(
    "fused_slices",
    FUSED_SLICE_CHOICES,
    "members",
    "issue slots a fused bundle holds: members (one slice per member, A13) or one",
);

pub const PARAMS: &[ParamSpec] = &[
    SUBWARP_SIZE,
    THREADS,
    GROUP_SIZE,
    PC_BITS,
    dwr_ilt::ILT_SETS,
    dwr_ilt::ILT_WAYS,
    dwr_ilt::PC_SHIFT,
    dwr_ilt::ILT_FLUSH,
    BAR_LAT,
    D4_LEARN,
    dwr_sco::SCO_MATCH,
    FUSED_SLICES,
];

/// The partner-group geometry shared by all four DWR units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// S: threads per sub-warp.
    pub subwarp_size: usize,
    /// T: thread contexts per SM.
    pub threads: usize,
    /// W: sub-warps per partner group.
    pub group_size: usize,
    pub pc_bits: usize,
}

impl Geometry {
    /// Reads `subwarp_size`, `threads`, `group_size`, `pc_bits`.
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        Geometry::new(
            p.usize("subwarp_size"),
            p.usize("threads"),
            p.usize("group_size"),
            p.usize("pc_bits"),
        )
    }

    pub fn new(
        subwarp_size: usize,
        threads: usize,
        group_size: usize,
        pc_bits: usize,
    ) -> Result<Self, ParamError> {
        let (s, t, w) = (subwarp_size, threads, group_size);
        if !(2..=8).contains(&w) || !w.is_power_of_two() {
            return Err(ParamError(format!(
                "group_size = {w}: must be 2, 4 or 8 sub-warps (DWR-16/32/64 at subwarp_size = 8)"
            )));
        }
        if !(1..=32).contains(&s) {
            return Err(ParamError(format!(
                "subwarp_size = {s}: must be an integer from 1 to 32"
            )));
        }
        if !(4..=32).contains(&pc_bits) {
            return Err(ParamError(format!(
                "pc_bits = {pc_bits}: must be an integer from 4 to 32"
            )));
        }
        if t == 0 || t % (s * w) != 0 {
            return Err(ParamError(format!(
                "threads = {t} must be a multiple of subwarp_size × group_size = {s} × {w} = {}",
                s * w
            )));
        }
        if t / s > MAX_SUBWARPS {
            return Err(ParamError(format!(
                "threads / subwarp_size = {t} / {s} = {} sub-warps; at most {MAX_SUBWARPS} are supported",
                t / s
            )));
        }
        Ok(Geometry {
            subwarp_size: s,
            threads: t,
            group_size: w,
            pc_bits,
        })
    }

    /// N: sub-warps per SM.
    pub fn subwarps(&self) -> usize {
        self.threads / self.subwarp_size
    }
    /// M: partner groups = PST rows.
    pub fn groups(&self) -> usize {
        self.subwarps() / self.group_size
    }
    /// Bits of a sub-warp index.
    pub fn subwarp_bits(&self) -> usize {
        index_bits(self.subwarps())
    }
    /// Bits of a group (PST row) index.
    pub fn group_bits(&self) -> usize {
        index_bits(self.groups())
    }
    /// Bits of a member position inside a group (log2 W).
    pub fn member_bits(&self) -> usize {
        index_bits(self.group_size)
    }
    /// Bits of a bundle size 0 … W.
    pub fn size_bits(&self) -> usize {
        index_bits(self.group_size + 1)
    }
    /// Bits of a fused warp's active mask: W·S.
    pub fn warp_mask_bits(&self) -> usize {
        self.group_size * self.subwarp_size
    }
    /// Bits of one PST row as the thesis counts them: valid + PC + lock[W].
    pub fn pst_row_bits(&self) -> usize {
        1 + self.pc_bits + self.group_size
    }
}

/// Sub-warp scheduler state codes (§2.6 [REC]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum State {
    Empty = 0,
    Ready = 1,
    Stalled = 2,
    WaitBlockbar = 3,
    WaitPartner = 4,
    CombineReady = 5,
}

impl State {
    pub const BITS: usize = 3;
    pub const ALL: [State; 6] = [
        State::Empty,
        State::Ready,
        State::Stalled,
        State::WaitBlockbar,
        State::WaitPartner,
        State::CombineReady,
    ];
    pub fn code(self) -> u64 {
        self as u64
    }
    /// The state with this code; `None` for 6 and 7, which never occur.
    pub fn from_code(code: u64) -> Option<State> {
        State::ALL.iter().copied().find(|s| s.code() == code)
    }
}

/// Classes of the instruction a picked READY sub-warp issues (`inst_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum InstKind {
    /// Latency 1: the sub-warp stays READY.
    Alu = 0,
    /// Latency > 1: STALLED until `writeback`.
    Long = 1,
    /// `bar.synch_partner`.
    BarPartner = 2,
    /// `bar.sync` (`__syncthreads`).
    BarSync = 3,
    Exit = 4,
}

impl InstKind {
    pub const BITS: usize = 3;
    pub fn code(self) -> u64 {
        self as u64
    }
    /// The class a 3-bit `inst_kind` value means; codes 5–7 act as ALU.
    pub fn from_code(code: u64) -> InstKind {
        match code & 7 {
            1 => InstKind::Long,
            2 => InstKind::BarPartner,
            3 => InstKind::BarSync,
            4 => InstKind::Exit,
            _ => InstKind::Alu,
        }
    }
}

/// How many issue slots a fused bundle holds (A13).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FusedSlices {
    /// One slice per member (spec [REC]).
    Members,
    /// A single slice whatever the size (the thesis figure's drawing).
    One,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DwrConfig {
    pub geometry: Geometry,
    /// The embedded ILT (its `insert_ports` is 3 with `d4_learn`, else 1).
    pub ilt: IltConfig,
    pub sco_match: ScoMatch,
    /// BAR_LAT.
    pub bar_lat: usize,
    pub d4_learn: bool,
    pub fused_slices: FusedSlices,
}

impl DwrConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let geometry = Geometry::from_params(p)?;
        let d4_learn = p.bool("d4_learn");
        let ilt = IltConfig::new(
            p.usize("ilt_sets"),
            p.usize("ilt_ways"),
            geometry.pc_bits,
            p.usize("pc_shift"),
            p.bool("ilt_flush"),
            if d4_learn { 3 } else { 1 },
        )?;
        let sco_match = ScoMatch::from_name(p.str("sco_match"))?;
        let fused_slices = match p.str("fused_slices") {
            "members" => FusedSlices::Members,
            "one" => FusedSlices::One,
            other => {
                return Err(ParamError(format!(
                    "fused_slices = {other}: must be one of {}",
                    FUSED_SLICE_CHOICES.join(", ")
                )))
            }
        };
        let bar_lat = p.usize("bar_lat");
        if !(1..=32).contains(&bar_lat) {
            return Err(ParamError(format!(
                "bar_lat = {bar_lat}: must be an integer from 1 to 32"
            )));
        }
        Ok(DwrConfig {
            geometry,
            ilt,
            sco_match,
            bar_lat,
            d4_learn,
            fused_slices,
        })
    }

    /// The embedded PST.
    pub fn pst(&self) -> PstConfig {
        PstConfig {
            geometry: self.geometry.clone(),
        }
    }

    /// The embedded SCO.
    pub fn sco(&self) -> ScoConfig {
        ScoConfig {
            geometry: self.geometry.clone(),
            sco_match: self.sco_match,
        }
    }

    /// Barrier pipeline stages holding state: BAR_LAT − 1 (0 when BAR_LAT = 1).
    pub fn pipe_stages(&self) -> usize {
        self.bar_lat - 1
    }

    /// Fields of the `dbg_pipe_*` ports: max(BAR_LAT − 1, 1).
    pub fn pipe_port_stages(&self) -> usize {
        self.pipe_stages().max(1)
    }

    /// Bits of the slot-hold counter (0 … W−1).
    pub fn hold_bits(&self) -> usize {
        index_bits(self.geometry.group_size)
    }

    pub fn module_name(&self) -> String {
        let g = &self.geometry;
        format!(
            "dwr_n{}_g{}_s{}_p{}_i{}x{}_sh{}_b{}_{}{}{}{}",
            g.subwarps(),
            g.group_size,
            g.subwarp_size,
            g.pc_bits,
            self.ilt.sets,
            self.ilt.ways,
            self.ilt.pc_shift,
            self.bar_lat,
            if self.ilt.flush_on_launch { "f" } else { "k" },
            if self.d4_learn { "l" } else { "n" },
            match self.sco_match {
                ScoMatch::Pc => "p",
                ScoMatch::Matched => "m",
            },
            match self.fused_slices {
                FusedSlices::Members => "s",
                FusedSlices::One => "o",
            },
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let g = &self.geometry;
        let (n, m, w, p) = (g.subwarps(), g.groups(), g.group_size, g.pc_bits);
        let (swb, gb, zb) = (g.subwarp_bits(), g.group_bits(), g.size_bits());
        let q = self.pipe_port_stages();
        let l1 = self.bar_lat == 1;
        let pc_match = self.sco_match == ScoMatch::Pc;
        let ilt = &self.ilt;
        vec![
            Port::input("reset", 1, "synchronous reset: all EMPTY, PST/ILT/pipeline empty, ptr = N-1, no pick"),
            Port::input("grid_start", 1, "kernel launch: flush the ILT (if ilt_flush)"),
            Port::input("launch", n, "per sub-warp: EMPTY -> READY (block allocation); ignored if not EMPTY"),
            Port::input("ready", n, "per sub-warp: no hazard, may be picked for the next cycle"),
            Port::input("inst_kind", InstKind::BITS, "class of the picked READY sub-warp's instruction: 0 alu, 1 long, 2 bar.synch_partner, 3 bar.sync, 4 exit"),
            Port::input("grp_pc", w * p, "current PC of each member of the picked sub-warp's group (member m at m*pc_bits)"),
            Port::input("grp_mask", g.warp_mask_bits(), "active mask of each member of the picked sub-warp's group (member m at m*S)"),
            Port::input("writeback", n, "per sub-warp: in-flight instruction completes: STALLED (not on its own barrier) -> READY"),
            Port::input("blockbar_release", n, "per sub-warp: __syncthreads releases it: WAIT_BLOCKBAR -> READY"),
            Port::output("issue_valid", 1, false, "a bundle issues this cycle (the registered pick)"),
            Port::output("issue_sw", swb, false, "the picked sub-warp"),
            Port::output("issue_fused", 1, false, "the picked sub-warp is COMBINE_READY: a fused (SCO) issue of its sensitive instruction"),
            Port::output("issue_group", gb, false, "group of the picked sub-warp"),
            Port::output("issue_members", w, pc_match, "positions in the group of the bundle's members"),
            Port::output("issue_size", zb, pc_match, "number of members (large-warp size in sub-warps)"),
            Port::output("issue_pc", p, true, "PC of the bundle: grp_pc of the picked sub-warp"),
            Port::output("issue_mask", g.warp_mask_bits(), true, "large-warp active mask: member slices of grp_mask, 0 elsewhere"),
            Port::output("slot_busy", 1, false, "the issue slot is in use: a bundle issues or a later slice of a fused bundle"),
            Port::output("act_valid", 1, l1, "a bar.synch_partner performs its ILT/PST action this cycle"),
            Port::output("act_sw", swb, l1, "its sub-warp"),
            Port::output("act_hit", 1, l1, "its PC hits in the ILT: bypass, PST untouched"),
            Port::output("act_mismatch", 1, l1, "ILT miss and the row is valid with another PC: its PC is inserted into the ILT"),
            Port::output("rel", m, true, "per row: Eq. 5-1 releases the group at the end of this cycle"),
            Port::output("rel_d4", m, true, "per row: released, and a member counted as arrived only by rule D4 (WAIT_BLOCKBAR)"),
            Port::output("nxt_valid", 1, true, "a sub-warp is picked to issue next cycle"),
            Port::output("nxt_sw", swb, true, "the sub-warp picked for next cycle"),
            Port::output("nxt_fused", 1, true, "the pick for next cycle is COMBINE_READY"),
            Port::debug("dbg_state", n * State::BITS, "per sub-warp 3-bit state code at [3s, 3s+3)"),
            Port::debug("dbg_matched", n, "per sub-warp matched bit (sco_match = matched; WAIT_PARTNER/COMBINE_READY only)"),
            Port::debug("dbg_ptr", swb, "round-robin pointer: last issued sub-warp (highest member after a fused issue)"),
            Port::debug("dbg_hold", self.hold_bits(), "issue slices of the current fused bundle still to come"),
            Port::debug("dbg_pipe_valid", q, "barrier pipeline: stage k (issued k cycles ago) valid at bit k-1"),
            Port::debug("dbg_pipe_sw", q * swb, "barrier pipeline: stage k sub-warp at field k-1 (0 if invalid)"),
            Port::debug("dbg_pipe_pc", q * p, "barrier pipeline: stage k barrier PC at field k-1 (0 if invalid)"),
            Port::debug("dbg_pst_valid", m, "PST row valid bits"),
            Port::debug("dbg_pst_pc", m * p, "PST row PCs (0 for invalid rows)"),
            Port::debug("dbg_pst_lock", m * w, "PST lock vectors: row n bit m at n*W+m"),
            Port::debug("dbg_ilt_valid", ilt.entries(), "ILT valid bits, entry set*ways+way"),
            Port::debug("dbg_ilt_tag", ilt.entries() * ilt.tag_bits(), "ILT tags (0 for invalid entries)"),
            Port::debug("dbg_ilt_ptr", ilt.sets * ilt.ptr_bits(), "ILT FIFO pointer per set: the way the next insert writes"),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        let g = &self.geometry;
        let n = g.subwarps();
        let mut t = self.pst().tables();
        let mut ilt = self.ilt.tables();
        t.append(&mut ilt);
        t.push(Table::new(
            "extra_state_bit",
            n,
            1,
            "third sub-warp state bit (COMBINE_READY and WAIT_PARTNER need 3 bits; the baseline has 2, §5-6)",
        ));
        if self.sco_match == ScoMatch::Matched {
            t.push(Table::new(
                "extra_matched",
                n,
                1,
                "per sub-warp: locked at the row PC (A5 alternative to SCO PC comparators)",
            ));
        }
        t.push(Table::new(
            "base_state",
            n,
            2,
            "the baseline scheduler's 2-bit warp state per sub-warp",
        ));
        t.push(Table::new(
            "base_scheduler",
            1,
            2 * g.subwarp_bits() + 1 + self.hold_bits(),
            "round-robin pointer, registered pick (valid, sub-warp), issue-slot hold counter",
        ));
        if self.pipe_stages() > 0 {
            t.push(Table::new(
                "base_bar_pipe",
                self.pipe_stages(),
                1 + g.subwarp_bits() + g.pc_bits,
                "pipeline latches carrying a bar.synch_partner {valid, sub-warp, pc} through BAR_LAT",
            ));
        }
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

/// Port names that are Verilog/SystemVerilog keywords must never occur; shared by the tests
/// of the four DWR units.
#[cfg(test)]
pub(crate) fn assert_port_names_ok(ports: &[Port]) {
    const KEYWORDS: &[&str] = &[
        "always",
        "and",
        "assign",
        "begin",
        "bit",
        "buf",
        "byte",
        "case",
        "casex",
        "casez",
        "cell",
        "class",
        "config",
        "const",
        "default",
        "disable",
        "do",
        "edge",
        "else",
        "end",
        "endcase",
        "endmodule",
        "event",
        "final",
        "for",
        "force",
        "forever",
        "fork",
        "function",
        "generate",
        "genvar",
        "if",
        "initial",
        "inout",
        "input",
        "int",
        "integer",
        "join",
        "local",
        "logic",
        "module",
        "nand",
        "negedge",
        "nor",
        "not",
        "null",
        "or",
        "output",
        "parameter",
        "posedge",
        "real",
        "reg",
        "release",
        "repeat",
        "return",
        "signed",
        "string",
        "table",
        "task",
        "time",
        "tri",
        "type",
        "unsigned",
        "var",
        "wait",
        "while",
        "wire",
        "xor",
    ];
    let mut seen = std::collections::BTreeSet::new();
    for p in ports {
        assert!(
            !KEYWORDS.contains(&p.name.as_str()),
            "keyword port {}",
            p.name
        );
        assert!(p.width >= 1, "port {} has width 0", p.name);
        assert!(seen.insert(p.name.clone()), "duplicate port {}", p.name);
        assert!(p.name != "clock", "clock is added by the generator");
        assert!(
            p.name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "port name {} is not a plain identifier",
            p.name
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{split_storage, Dir};

    fn cfg(sets: &[&str]) -> Result<DwrConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        DwrConfig::from_params(&p)
    }

    fn width(ports: &[Port], name: &str) -> usize {
        ports
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no port {name}"))
            .width
    }

    #[test]
    fn default_is_the_thesis_configuration() {
        let c = cfg(&[]).unwrap();
        let g = &c.geometry;
        assert_eq!(
            (g.subwarp_size, g.threads, g.group_size, g.pc_bits),
            (8, 1024, 8, 32)
        );
        assert_eq!((g.subwarps(), g.groups()), (128, 16));
        assert_eq!((c.ilt.sets, c.ilt.ways), (4, 8));
        assert_eq!(c.bar_lat, 24);
        assert!(c.d4_learn && c.ilt.flush_on_launch);
        assert_eq!(c.sco_match, ScoMatch::Pc);
        assert_eq!(c.fused_slices, FusedSlices::Members);
        assert_eq!(c.ilt.insert_ports, 3);
    }

    #[test]
    fn thesis_storage_is_82_plus_124_bytes_for_dwr64() {
        let c = cfg(&[]).unwrap();
        let tables = c.tables();
        let pst = tables.iter().find(|t| t.name == "pst").unwrap();
        let ilt = tables.iter().find(|t| t.name == "ilt").unwrap();
        assert_eq!(pst.total_bits(), 82 * 8);
        assert_eq!(ilt.total_bits(), 124 * 8);
        let s = split_storage(&tables);
        assert_eq!(s.counted_bits, (82 + 124) * 8);
        // extras: third state bit per sub-warp (16 B) + 4 FIFO pointers of 3 bits
        assert_eq!(s.extra_bits, 128 + 4 * 3);
        // baseline: 2 state bits per sub-warp, pointer + pick + hold, 23 pipeline stages
        assert_eq!(s.base_bits, 128 * 2 + (7 + 1 + 7 + 3) + 23 * (1 + 7 + 32));
        // the thesis' "< 1%" claim: 206 B of a 128 KB SM is 0.157 %
        let share = s.counted_share_of_sm();
        assert!((share * 100.0 - 0.157).abs() < 0.001, "{share}");
    }

    #[test]
    fn pst_storage_for_w4_and_w2() {
        for (w, bytes) in [("4", 148), ("2", 280)] {
            let c = cfg(&[&format!("group_size={w}")]).unwrap();
            let pst = c.tables().into_iter().find(|t| t.name == "pst").unwrap();
            assert_eq!(pst.total_bits(), bytes * 8, "W = {w}");
        }
    }

    #[test]
    fn matched_mode_and_single_cycle_barrier_change_tables() {
        let c = cfg(&["sco_match=matched", "bar_lat=1"]).unwrap();
        let t = c.tables();
        assert!(t
            .iter()
            .any(|t| t.name == "extra_matched" && t.total_bits() == 128));
        assert!(!t.iter().any(|t| t.name == "base_bar_pipe"));
        assert_eq!(split_storage(&t).counted_bits, (82 + 124) * 8);
    }

    #[test]
    fn port_widths_default() {
        let c = cfg(&[]).unwrap();
        let ports = c.ports();
        assert_port_names_ok(&ports);
        for (name, w) in [
            ("launch", 128),
            ("ready", 128),
            ("inst_kind", 3),
            ("grp_pc", 256),
            ("grp_mask", 64),
            ("issue_sw", 7),
            ("issue_group", 4),
            ("issue_members", 8),
            ("issue_size", 4),
            ("issue_mask", 64),
            ("rel", 16),
            ("dbg_state", 384),
            ("dbg_hold", 3),
            ("dbg_pipe_valid", 23),
            ("dbg_pipe_sw", 23 * 7),
            ("dbg_pipe_pc", 23 * 32),
            ("dbg_pst_pc", 512),
            ("dbg_pst_lock", 128),
            ("dbg_ilt_valid", 32),
            ("dbg_ilt_tag", 32 * 30),
            ("dbg_ilt_ptr", 12),
        ] {
            assert_eq!(width(&ports, name), w, "{name}");
        }
        // only the documented inputs; every input is a functional port
        let inputs: Vec<&str> = ports
            .iter()
            .filter(|p| p.dir == Dir::In)
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(
            inputs,
            [
                "reset",
                "grid_start",
                "launch",
                "ready",
                "inst_kind",
                "grp_pc",
                "grp_mask",
                "writeback",
                "blockbar_release"
            ]
        );
        assert!(ports
            .iter()
            .filter(|p| p.debug)
            .all(|p| p.name.starts_with("dbg_")));
    }

    #[test]
    fn port_widths_small_vector_config() {
        // the §4 worked example: W = 4 with the fourth sub-warp never launched, BAR_LAT = 1
        let c = cfg(&["threads=32", "group_size=4", "bar_lat=1", "pc_bits=16"]).unwrap();
        let ports = c.ports();
        assert_port_names_ok(&ports);
        for (name, w) in [
            ("launch", 4),
            ("issue_sw", 2),
            ("issue_group", 1),
            ("issue_members", 4),
            ("issue_size", 3),
            ("grp_pc", 64),
            ("grp_mask", 32),
            ("rel", 1),
            ("dbg_pipe_valid", 1),
            ("dbg_pipe_pc", 16),
            ("dbg_ilt_tag", 32 * 14),
        ] {
            assert_eq!(width(&ports, name), w, "{name}");
        }
        // with BAR_LAT = 1 the barrier action depends on this cycle's inst_kind
        let act = ports.iter().find(|p| p.name == "act_valid").unwrap();
        assert!(act.combinational);
        let d = cfg(&[]).unwrap().ports();
        assert!(
            !d.iter()
                .find(|p| p.name == "act_valid")
                .unwrap()
                .combinational
        );
    }

    #[test]
    fn matched_mode_makes_members_registered() {
        let pc = cfg(&[]).unwrap().ports();
        let mt = cfg(&["sco_match=matched"]).unwrap().ports();
        let comb = |ps: &[Port], n: &str| ps.iter().find(|p| p.name == n).unwrap().combinational;
        assert!(comb(&pc, "issue_members") && comb(&pc, "issue_size"));
        assert!(!comb(&mt, "issue_members") && !comb(&mt, "issue_size"));
        assert!(comb(&mt, "issue_mask"));
        assert!(!comb(&mt, "issue_valid") && !comb(&mt, "slot_busy"));
    }

    #[test]
    fn validation_names_values_and_what_is_allowed() {
        let e = cfg(&["threads=1000"]).unwrap_err();
        assert_eq!(
            e.0,
            "threads = 1000 must be a multiple of subwarp_size × group_size = 8 × 8 = 64"
        );
        let e = cfg(&["group_size=6"]).unwrap_err();
        assert!(e.0.starts_with("group_size = 6: must be 2, 4 or 8"), "{e}");
        let e = cfg(&["threads=2048", "subwarp_size=4", "group_size=2"]).unwrap_err();
        assert!(e.0.contains("512 sub-warps; at most 256"), "{e}");
        let e = cfg(&["ilt_sets=3"]).unwrap_err();
        assert!(e.0.starts_with("ilt_sets = 3"), "{e}");
        let e = cfg(&["pc_bits=4", "ilt_sets=16", "pc_shift=1"]).unwrap_err();
        assert!(e.0.contains("pc_bits = 4"), "{e}");
        let e = cfg(&["bar_lat=0"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set bar_lat=0: bar_lat must be an integer from 1 to 32"
        );
        let e = cfg(&["sco_match=any"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set sco_match=any: sco_match must be one of pc, matched"
        );
    }

    #[test]
    fn d4_learning_sets_the_ilt_insert_ports() {
        assert_eq!(cfg(&["d4_learn=false"]).unwrap().ilt.insert_ports, 1);
        assert_eq!(cfg(&["d4_learn=true"]).unwrap().ilt.insert_ports, 3);
    }

    #[test]
    fn module_names_differ_per_configuration() {
        let variants = [
            vec![],
            vec!["group_size=4"],
            vec!["group_size=2"],
            vec!["ilt_ways=4"],
            vec!["ilt_sets=2", "ilt_ways=4"],
            vec!["bar_lat=1"],
            vec!["d4_learn=false"],
            vec!["ilt_flush=false"],
            vec!["sco_match=matched"],
            vec!["fused_slices=one"],
            vec!["pc_shift=2"],
            vec!["pc_bits=16"],
            vec!["subwarp_size=16", "threads=1024"],
        ];
        let mut names = std::collections::BTreeSet::new();
        for v in &variants {
            let c = cfg(v).unwrap();
            let name = c.module_name();
            assert!(name
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_'));
            assert!(names.insert(name), "{v:?}");
        }
    }

    #[test]
    fn state_and_kind_codes() {
        for s in State::ALL {
            assert_eq!(State::from_code(s.code()), Some(s));
        }
        assert_eq!(State::from_code(6), None);
        assert_eq!(InstKind::from_code(2), InstKind::BarPartner);
        assert_eq!(InstKind::from_code(4), InstKind::Exit);
        assert_eq!(InstKind::from_code(6), InstKind::Alu);
    }

    #[test]
    fn manifest_layout_packs_every_port() {
        let c = cfg(&[]).unwrap();
        let p = Params::resolve(NAME, PARAMS, None, &[]).unwrap();
        let m = c.manifest(&p);
        let l = m.layout();
        assert_eq!(l.inputs.len(), 9);
        let in_bits: usize = m.inputs().map(|p| p.width).sum();
        assert_eq!(in_bits, 1 + 1 + 4 * 128 + 3 + 256 + 64);
        assert_eq!(
            m.storage_bits(),
            split_storage(&m.tables).counted_bits + 128 + 12 + 256 + 18 + 920
        );
    }
}
