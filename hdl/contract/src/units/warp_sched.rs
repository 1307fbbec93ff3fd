//! `warp-sched`: the issue-stage warp scheduler of one SM — LRR and GTO
//! (spec/latency_hiding_scheduler.md §2), the latency-hiding policies MTO, MOTRR and
//! MOTRR+Recency (same spec, §2.4 and §3), and the barrier-aware policy (spec/barrier.md §2–3).
//!
//! This comment is the normative cycle-level contract. The RTL and the model are written from
//! it independently and must agree on every output, every cycle. "LH" refers to
//! spec/latency_hiding_scheduler.md, "BAR" to spec/barrier.md; `docs/scheduling.md` explains the
//! decisions and maps the spec vectors onto these ports.
//!
//! # Sizes and encodings
//!
//! `W` = `warps`, `S` = `schedulers`, `ib` = [`WarpSchedConfig::slot_bits`] (bits of a slot
//! index), `ab` = [`WarpSchedConfig::count_bits`] (bits of a count 0 … W), `cb` = `cnt_bits`,
//! `CMAX` = 2^cb − 1, `C` = `ctas` (CTA slots, a power of two), `tbb` = log2 C
//! ([`WarpSchedConfig::tb_bits`]). Slot `w` belongs to scheduler `w mod S` (its *supervised*
//! slots). Per-slot vectors carry slot `w` in bit `w`, per-scheduler vectors scheduler `s` in
//! bit `s`, per-CTA vectors CTA slot `t` in bit `t`; a vector of `k`-bit fields carries field
//! `i` in bits `[i·k, (i+1)·k)`.
//!
//! # Policies (parameter `policy`, [`IssuePolicy`])
//!
//! `lrr`, `gto` (unchanged), `mto`, `motrr`, `motrr-recency` (LH §2.4, §3: the paper's
//! proposal), `bar-gto` (BAR §3: CTAs ranked by how many of their warps wait at the barrier, GTO
//! inside a CTA). `mto`, `motrr` and `motrr-recency` are the *class-split* policies. Knobs that a
//! policy does not use are accepted and ignored (they change neither ports nor behaviour).
//!
//! # Inputs (sampled in the cycle they are driven; every value is legal in every cycle)
//!
//! All policies:
//! - `reset`: synchronous. The next state is the reset state (below); every other input is
//!   ignored; outputs in a reset cycle are unspecified (not compared).
//! - `has_inst[W]`, `ready[W]`, `unit_free[W]`, `is_mem[W]`: the I-buffer head of slot `w` is
//!   decoded and valid; it has no hazard (for `bar-gto`: apart from this unit's own barrier
//!   wait, see `waiting`); the pipe it needs can accept it; it goes to the LD/ST pipe (MEM class,
//!   LH §3.3; every other head is COMP). Ignored for slots that are not resident.
//! - `launch[W]`: a warp is assigned to slot `w` at this edge. If the slot is resident, its warp
//!   is *replaced*: the old warp leaves exactly as if it exited, then the new one arrives.
//! - `exit[W]`: the resident warp of slot `w` leaves at this edge; ignored for a slot that is not
//!   resident. `exit` and `launch` on one slot = a launch into a resident slot.
//!
//! `motrr-recency` only (LH U1, G3, G4):
//! - `mem_complete[W]` (`rec_trigger = complete`): a memory instruction of the warp in slot `w`
//!   completes this cycle (loads: final writeback; stores, atomics, membar: retired by the LD/ST
//!   unit). At most one completion per slot per cycle.
//! - `cpl_global[W]` (`rec_trigger = complete`, `rec_class = global`): that completing
//!   instruction is a global or local access. Completions without it are not recency events.
//! - `is_global[W]` (`rec_trigger = issue`, `rec_class = global`): the head instruction is a
//!   global or local access. MEM issues without it are not recency events.
//!
//! `bar-gto` only (BAR §3.1, G7):
//! - `is_bar[W]`: the head instruction of slot `w` is `bar.sync`; when that warp issues, it
//!   *arrives* at its CTA's barrier (GPGPU-Sim counts the arrival at issue). `is_mem` is not
//!   looked at for this (`issue_is_mem` still reports it).
//! - `launch_tb[W·tbb]`: field `w` = the CTA slot (0 … C−1, the hardware CTA slot, BAR G1) of the
//!   warp launched into slot `w`; sampled only where `launch[w]` is set.
//!
//! # State and reset
//!
//! Always: `resident[W]`; the launch order of the resident warps (kept as an age matrix in RTL:
//! `older[w][j]` = the warp in `j` is older than the warp in `w`); per scheduler a pointer
//! `P = {last_valid, last_issued[ib], greedy_valid}`. With split pointers
//! ([`WarpSchedConfig::split_pointers`]: `split_ptr` and a class-split policy) each scheduler has
//! a memory pointer `Pm` and a compute pointer `Pc` (LH G2); otherwise `Pm = Pc = P`.
//! `motrr-recency`: the per-SM Recency Register, `R[W]` and `cnt[W]` (cb bits), shared by both
//! schedulers (LH G9), and `W_active = popcount(resident)` (no register of its own: it is a
//! function of residency; resident warps waiting at a barrier count, LH G22).
//! `bar-gto`: per slot `warp_tb[tbb]` and `waiting`; per CTA slot the barrier table (BLUT)
//! `bar_cnt[t]` (warps of CTA `t` waiting at the barrier) and `bar_live[t]` (its resident
//! warps), `ab` bits each. A CTA slot is *valid* when `bar_live[t] > 0` (no separate bit).
//!
//! Reset: nothing resident; every pointer NONE (`last_valid = 0`, `last_issued = 0`,
//! `greedy_valid = 0`); `R = 0`, `cnt = CMAX` in every slot (LH U7); `warp_tb = 0`,
//! `waiting = 0`, `bar_cnt = bar_live = 0`.
//!
//! # Selection (combinational, from the registered state and this cycle's inputs)
//!
//! `eligible(w) = resident ∧ has_inst ∧ ready ∧ unit_free` (for `bar-gto` also `∧ ¬waiting`).
//! Scheduler `s`'s candidates `E` are its eligible supervised slots; it issues at most one warp
//! (LH G15). Orders over a set `X ⊆ E`, for a pointer `P`:
//! - `rot(P, X)`: the lowest slot of `X` above `last_issued` if `last_valid` and one exists, else
//!   the lowest slot of `X` (LH §2.2: the slot after `last_issued` first, `last_issued` last;
//!   NONE ⇒ lowest slot).
//! - `old(X)`: the warp of `X` launched first (LH §2.1 age; launches of one cycle are older in
//!   ascending slot order).
//! - `gto(P, X)`: `last_issued` if `last_valid ∧ greedy_valid ∧ last_issued ∈ X`, else `old(X)`.
//!
//! The pick (none when the set is empty):
//! - `lrr`: `rot(P, E)`. `gto`: `gto(P, E)`.
//! - class-split (LH §3.4): `M = {w ∈ E : is_mem[w]}`, `K = E \ M`. If `M ≠ ∅` the pick is the
//!   memory pick `gto(Pm, M)` (`mem_order = gto`) or `old(M)` (`mem_order = oldest`) (LH G1).
//!   Otherwise the compute pick: `mto`: `gto(Pc, K)` (`mto_comp_order = gto`) or `old(K)`
//!   (`oldest`) (LH G17); `motrr`: `rot(Pc, K)`; `motrr-recency`: `rot(Pc, K ∩ R)` if that is
//!   not empty, else `rot(Pc, K \ R)` (R bits never affect the memory pick).
//! - `bar-gto` with `bar_sched_en` (BAR §3.2, §3.3): among the CTA slots that hold a candidate
//!   of this scheduler, `T*` = the one with the largest `bar_cnt` (the shared table, so both
//!   schedulers rank CTAs alike), ties to the lowest CTA slot; the pick is
//!   `gto(P, {w ∈ E : warp_tb[w] = T*})` (the greedy warp keeps precedence only inside its own
//!   CTA; older first inside the CTA). With `bar_sched_en = false`: `gto(P, E)` — plain GTO, with
//!   the barrier still tracked and waiting warps still excluded (BAR T1).
//!
//! # The clock edge (not in reset), in this order (LH §3.6, BAR §3.1)
//!
//! Let `L` = the resident slots with `exit` or `launch` set (the warps that leave).
//! 1. **Pointers.** For each scheduler that issued `w`: `P ← {1, w, 1}`; with split pointers
//!    only `Pm` (if `is_mem[w]`) or only `Pc` (otherwise) is written. Then, for every pointer of
//!    every scheduler: if `last_valid` and the slot `last_issued` (as just updated) has `exit` or
//!    `launch` set, `greedy_valid ← 0` (its warp leaves or is replaced: this wins over an issue
//!    in the same cycle; the rotation position stays).
//! 2. **Leaving warps** `L`: not resident. `motrr-recency`: `R ← 0`, `cnt ← CMAX` for each; then
//!    U4 once with `W_active` counted after the leaving and before the launches (LH U6).
//!    `bar-gto`: `bar_live[warp_tb[w]] −= 1`, and if `waiting[w]`: `bar_cnt[warp_tb[w]] −= 1`,
//!    `waiting[w] ← 0`.
//! 3. **Barrier arrivals** (`bar-gto`): each warp `w` issued this cycle with `is_bar[w]` and
//!    `w ∉ L`: `waiting[w] ← 1`, `bar_cnt[warp_tb[w]] += 1`. (Up to S arrivals per cycle, also
//!    of one CTA, BAR G6. An arrival of a warp that leaves at this edge does not count.)
//! 4. **Launches**: each slot with `launch` set is resident and holds the youngest warp
//!    (launches of one cycle ascending by slot). `motrr-recency`: `R ← 0`, `cnt ← CMAX`.
//!    `bar-gto`: `warp_tb[w] ← launch_tb` field `w`, `waiting[w] ← 0`, `bar_live[warp_tb] += 1`.
//! 5. **Recency events** (`motrr-recency`, LH U1–U5). The events of this cycle, in ascending slot
//!    order: with `rec_trigger = complete` the slots with `mem_complete` (and `cpl_global` when
//!    `rec_class = global`) that are resident after step 4, and of those only the `n_cpl`
//!    lowest (the RTL is sized for `n_cpl` completions per cycle, LH §3.8; further ones are
//!    dropped); with `rec_trigger = issue` the warps issued this cycle with `is_mem` (and
//!    `is_global` when `rec_class = global`) that are resident after step 4. For each event
//!    `e`, one after the other: `cnt[j] ← min(cnt[j] + 1, CMAX)` for every slot `j ≠ e`
//!    (resident or not) (U2); `cnt[e] ← 0`; `R[e] ← 1` (U3); U4 with `W_active` after step 4.
//!    Events are per slot: a slot launched this cycle is resident here, so its completion (or
//!    MEM issue) in the same cycle counts for the new warp (LH Vector C step 11); a slot that
//!    leaves and is not relaunched has no event.
//! 6. **Barrier release** (`bar-gto`, BAR §3.1): every CTA slot `t` with `bar_cnt[t] > 0` and
//!    `bar_cnt[t] = bar_live[t]` (values after steps 2–4) releases: `bar_cnt[t] ← 0` and
//!    `waiting ← 0` for all its warps, which are eligible again from the next cycle. An exit can
//!    therefore complete a barrier (BAR G4), and a one-warp CTA's `bar.sync` never waits (T4).
//!
//! **U4 (cap).** `cap = rec_cap(W_active)`: `floor` ⌊W_active/2⌋ (LH G6 [REC]), `ceil`
//! ⌈W_active/2⌉, `below` max(⌈W_active/2⌉ − 1, 0) (the paper's literal "drop when the group
//! reaches W_active/2"). While `popcount(R) > cap`: clear `R` of the `R = 1` slot with the
//! largest `cnt`, ties to the lowest slot (LH G7). Equivalently, with `n = popcount(R) − cap`,
//! clear the first `n` of the `R = 1` slots ordered by (`cnt` descending, slot ascending). In
//! step 5 at most one slot is cleared per event; in step 2 several may be. A warp whose `R` was
//! cleared re-joins only at its next event (LH G11).
//!
//! The age matrix follows steps 2 and 4 as before: a launched warp is younger than every warp
//! that stays and than the warps launched with it into higher slots.
//!
//! # Outputs
//!
//! Combinational (Mealy): `issue_valid[S]`, `issue_slot[S·ib]` (0 when none), `issue_is_mem[S]`
//! (= `is_mem` of the issued slot, 0 when none); `bar-gto`: `bar_release[C]` (CTA slot `t`
//! releases at this edge, step 6).
//! Registered (Moore): `bar-gto`: `tb_has_waiter[C]` (bit `t` = `bar_cnt[t] ≠ 0`: the barrier
//! state the L1D bypass reads, BAR §4.2).
//!
//! # State digest (`dbg_*`: registered state at the start of the cycle, compared every cycle)
//!
//! - `dbg_resident[W]`; `dbg_older[W·W]`: bit `w·W + j` set when slots `j` and `w` are resident
//!   and `j` holds the older warp.
//! - `dbg_last_valid[S]`, `dbg_last_issued[S·ib]` (0 when NONE), `dbg_greedy_valid[S]`: the
//!   pointer `P`, or with split pointers the memory pointer `Pm`.
//! - split pointers: `dbg_cmp_last_valid[S]`, `dbg_cmp_last_issued[S·ib]`,
//!   `dbg_cmp_greedy_valid[S]`: the compute pointer `Pc`.
//! - `motrr-recency`: `dbg_recent[W]` (`R`), `dbg_rec_cnt[W·cb]` (`cnt[w]` in field `w`; CMAX
//!   for every slot that is not resident), `dbg_w_active[ab]` (`popcount(resident)`).
//! - `bar-gto`: `dbg_waiting[W]`, `dbg_warp_tb[W·tbb]` (field `w` = `warp_tb[w]`, 0 for a slot
//!   that is not resident), `dbg_bar_cnt[C·ab]`, `dbg_bar_live[C·ab]` (field `t`).
//!
//! # Invariants (the model asserts them every cycle; LH §7.2, BAR §8)
//!
//! LH I1 ≤ 1 issue per scheduler, of one of its eligible slots; I2 work-conserving; I3 a
//! pointer moves only on an issue (of its class, with split pointers), `greedy_valid` sets on
//! such an issue and clears only by step 1; I4 (`lrr`) / I5 (`gto`) the pick is the order's
//! first; I6 (class-split) a COMP issue only when no MEM warp was eligible; I7 the MEM pick is
//! the order's first; I8 (`motrr`) / I9 (`motrr-recency`) the COMP pick is the rotation's first
//! (recent first); I10 `popcount(R) ≤ cap(W_active)`, `R[w] ⇒ resident[w]`, and a slot that is
//! not resident has `cnt = CMAX`; I11 after a cycle whose only event is `e` and `cap ≥ 1`:
//! `cnt[e] = 0`, `R[e] = 1`; I12 (LRU) no resident `R = 0` warp had its latest event (since
//! its launch) after the latest event of an `R = 1` warp, unless both counters are CMAX; I13
//! `motrr-recency` with all `R` equal picks as `motrr`.
//! BAR I1 `bar_cnt[t] = popcount(waiting ∧ warp_tb = t)`; I2 `bar_live[t] = popcount(resident ∧
//! warp_tb = t)`, `bar_cnt[t] = 0 ∨ bar_cnt[t] < bar_live[t]`; I3 `waiting ⇒ resident`, a
//! waiting warp never issues; I4 the pick has the largest key (`bar_cnt`, −CTA slot, greedy,
//! −age); I5 a release leaves `bar_cnt = 0` and no waiting warp in that CTA.
//!
//! # Storage ([`WarpSchedConfig::tables`])
//!
//! Every policy: `age_matrix` W×W, `resident` W×1, `issue_pointer` S×(ib+2). Split pointers:
//! `cmp_issue_pointer` S×(ib+2). `motrr-recency`: `recency_register` W×(cb+1) — 48 × 7 = 336
//! bits per SM, the paper's count (LH §3.9). `bar-gto`: `blut` C×(2·ab), `warp_tb` W×tbb,
//! `bar_waiting` W×1.

use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "warp-sched";
pub const POLICIES: &[&str] = &["lrr", "gto", "mto", "motrr", "motrr-recency", "bar-gto"];
pub const QUEUE_ORDERS: &[&str] = &["gto", "oldest"];
pub const REC_TRIGGERS: &[&str] = &["complete", "issue"];
pub const REC_CLASSES: &[&str] = &["ldst", "global"];
pub const REC_CAPS: &[&str] = &["floor", "ceil", "below"];

/// Most CTA slots per SM the barrier table supports.
pub const MAX_CTAS: usize = 16;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::int("warps", 2, 64, 48, "warp slots per SM"),
    ParamSpec::int(
        "schedulers",
        1,
        2,
        2,
        "warp schedulers per SM; slot w belongs to scheduler w mod n",
    ),
    ParamSpec::choice(
        "policy",
        POLICIES,
        "gto",
        "issue policy: lrr (loose round robin), gto (greedy then oldest), mto (memory then oldest), \
         motrr (memory oldest then round robin), motrr-recency (MOTRR + Recency Register), \
         bar-gto (CTAs ranked by warps waiting at the barrier, GTO inside a CTA)",
    ),
    ParamSpec::choice(
        "mem_order",
        QUEUE_ORDERS,
        "gto",
        "LH G1, class-split policies: memory-queue order, gto (greedy then oldest) or oldest",
    ),
    ParamSpec::choice(
        "mto_comp_order",
        QUEUE_ORDERS,
        "gto",
        "LH G17, mto: compute-queue order, gto (greedy then oldest) or oldest",
    ),
    ParamSpec::boolean(
        "split_ptr",
        false,
        "LH G2, class-split policies: separate memory and compute issue pointers",
    ),
    ParamSpec::choice(
        "rec_trigger",
        REC_TRIGGERS,
        "complete",
        "LH G3, motrr-recency: a warp becomes recent when a memory instruction completes or issues",
    ),
    ParamSpec::choice(
        "rec_class",
        REC_CLASSES,
        "ldst",
        "LH G4, motrr-recency: recency events from every LD/ST-pipe instruction or global/local only",
    ),
    ParamSpec::choice(
        "rec_cap",
        REC_CAPS,
        "floor",
        "LH G6, motrr-recency: recent warps kept, floor(W/2), ceil(W/2) or below (ceil(W/2)-1)",
    ),
    ParamSpec::int(
        "cnt_bits",
        1,
        8,
        6,
        "LH G7, motrr-recency: bits of each Recency Register counter (saturating)",
    ),
    ParamSpec::int(
        "n_cpl",
        1,
        4,
        1,
        "LH §3.8, motrr-recency: memory completions taken per cycle (lowest slots first)",
    ),
    ParamSpec::int(
        "ctas",
        2,
        16,
        8,
        "bar-gto: CTA slots per SM (power of two), entries of the barrier table",
    ),
    ParamSpec::boolean(
        "bar_sched_en",
        true,
        "BAR G18 BAR_SCHED_EN, bar-gto: rank CTAs by barrier waiters (false: plain GTO order)",
    ),
];

/// The issue policy (parameter `policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IssuePolicy {
    Lrr,
    Gto,
    /// Memory Then Oldest (LH §2.4).
    Mto,
    /// Memory Oldest Then Round Robin (LH §2.4).
    Motrr,
    /// MOTRR + Recency, the paper's proposal (LH §3).
    MotrrRecency,
    /// Barrier-aware: CTAs by barrier waiters, GTO inside (BAR §3).
    BarGto,
}

impl IssuePolicy {
    pub const ALL: [IssuePolicy; 6] = [
        IssuePolicy::Lrr,
        IssuePolicy::Gto,
        IssuePolicy::Mto,
        IssuePolicy::Motrr,
        IssuePolicy::MotrrRecency,
        IssuePolicy::BarGto,
    ];

    /// The parameter value.
    pub fn name(self) -> &'static str {
        match self {
            IssuePolicy::Lrr => "lrr",
            IssuePolicy::Gto => "gto",
            IssuePolicy::Mto => "mto",
            IssuePolicy::Motrr => "motrr",
            IssuePolicy::MotrrRecency => "motrr-recency",
            IssuePolicy::BarGto => "bar-gto",
        }
    }

    pub fn from_name(name: &str) -> Result<IssuePolicy, ParamError> {
        IssuePolicy::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                ParamError(format!(
                    "policy = {name}: must be one of {}",
                    POLICIES.join(", ")
                ))
            })
    }

    /// MTO, MOTRR and MOTRR+Recency: memory-class warps first, then compute-class warps.
    pub fn class_split(self) -> bool {
        matches!(
            self,
            IssuePolicy::Mto | IssuePolicy::Motrr | IssuePolicy::MotrrRecency
        )
    }
}

/// Order of a queue that is either GTO-ordered or oldest-first (LH G1, G17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueueOrder {
    /// Greedy (the pointer's warp, while `greedy_valid`) then oldest.
    Gto,
    /// Oldest first, no greedy warp.
    Oldest,
}

impl QueueOrder {
    fn from_name(key: &str, name: &str) -> Result<QueueOrder, ParamError> {
        match name {
            "gto" => Ok(QueueOrder::Gto),
            "oldest" => Ok(QueueOrder::Oldest),
            other => Err(ParamError(format!(
                "{key} = {other}: must be one of {}",
                QUEUE_ORDERS.join(", ")
            ))),
        }
    }
}

/// What makes a warp recent (LH G3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecTrigger {
    /// A `mem_complete` pulse (spec default).
    Complete,
    /// The issue of a MEM instruction.
    Issue,
}

/// Which memory instructions are recency events (LH G4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecClass {
    /// Every LD/ST-pipe instruction (spec default).
    LdSt,
    /// Global and local accesses only.
    Global,
}

/// How many recent warps are kept (LH G6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecCap {
    /// ⌊W_active/2⌋ (spec default).
    Floor,
    /// ⌈W_active/2⌉.
    Ceil,
    /// ⌈W_active/2⌉ − 1 (at least 0): the paper's literal "≥ W_active/2 ⇒ drop one".
    Below,
}

impl RecCap {
    /// The number of recent warps allowed with `w_active` resident warps.
    pub fn cap(self, w_active: usize) -> usize {
        match self {
            RecCap::Floor => w_active / 2,
            RecCap::Ceil => w_active.div_ceil(2),
            RecCap::Below => w_active.div_ceil(2).saturating_sub(1),
        }
    }
}

/// The Recency Register's knobs (used by `motrr-recency` only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecencyConfig {
    pub trigger: RecTrigger,
    pub class: RecClass,
    pub cap: RecCap,
    /// Bits of each counter; counters saturate at 2^cnt_bits − 1.
    pub cnt_bits: usize,
    /// Completion events taken per cycle (`rec_trigger = complete`).
    pub n_cpl: usize,
}

impl RecencyConfig {
    /// The saturation value (also the reset, launch and exit value) of a counter.
    pub fn cnt_max(&self) -> u64 {
        (1u64 << self.cnt_bits) - 1
    }
}

impl Default for RecencyConfig {
    fn default() -> Self {
        RecencyConfig {
            trigger: RecTrigger::Complete,
            class: RecClass::LdSt,
            cap: RecCap::Floor,
            cnt_bits: 6,
            n_cpl: 1,
        }
    }
}

/// The barrier table's knobs (used by `bar-gto` only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BarrierConfig {
    /// CTA slots per SM (a power of two).
    pub ctas: usize,
    /// Rank CTAs by barrier waiters; false: plain GTO order.
    pub sched_en: bool,
}

impl Default for BarrierConfig {
    fn default() -> Self {
        BarrierConfig {
            ctas: 8,
            sched_en: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpSchedConfig {
    pub warps: usize,
    pub schedulers: usize,
    pub issue_policy: IssuePolicy,
    /// Memory-queue order of the class-split policies (LH G1).
    pub mem_order: QueueOrder,
    /// Compute-queue order of `mto` (LH G17).
    pub mto_comp_order: QueueOrder,
    /// Separate memory and compute pointers in the class-split policies (LH G2).
    pub split_ptr: bool,
    pub recency: RecencyConfig,
    pub barrier: BarrierConfig,
}

impl WarpSchedConfig {
    /// A configuration with every knob at its default.
    pub fn new(warps: usize, schedulers: usize, issue_policy: IssuePolicy) -> Self {
        WarpSchedConfig {
            warps,
            schedulers,
            issue_policy,
            mem_order: QueueOrder::Gto,
            mto_comp_order: QueueOrder::Gto,
            split_ptr: false,
            recency: RecencyConfig::default(),
            barrier: BarrierConfig::default(),
        }
    }

    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let int = |key: &str, lo: usize, hi: usize| -> Result<usize, ParamError> {
            let v = p.int(key);
            if v < lo as i64 || v > hi as i64 {
                return Err(ParamError(format!(
                    "{key} = {v}: must be an integer from {lo} to {hi}"
                )));
            }
            Ok(v as usize)
        };
        let warps = int("warps", 2, 64)?;
        let schedulers = int("schedulers", 1, 2)?;
        let issue_policy = IssuePolicy::from_name(p.str("policy"))?;
        let mem_order = QueueOrder::from_name("mem_order", p.str("mem_order"))?;
        let mto_comp_order = QueueOrder::from_name("mto_comp_order", p.str("mto_comp_order"))?;
        let trigger = match p.str("rec_trigger") {
            "complete" => RecTrigger::Complete,
            "issue" => RecTrigger::Issue,
            other => {
                return Err(ParamError(format!(
                    "rec_trigger = {other}: must be one of {}",
                    REC_TRIGGERS.join(", ")
                )))
            }
        };
        let class = match p.str("rec_class") {
            "ldst" => RecClass::LdSt,
            "global" => RecClass::Global,
            other => {
                return Err(ParamError(format!(
                    "rec_class = {other}: must be one of {}",
                    REC_CLASSES.join(", ")
                )))
            }
        };
        let cap = match p.str("rec_cap") {
            "floor" => RecCap::Floor,
            "ceil" => RecCap::Ceil,
            "below" => RecCap::Below,
            other => {
                return Err(ParamError(format!(
                    "rec_cap = {other}: must be one of {}",
                    REC_CAPS.join(", ")
                )))
            }
        };
        let cnt_bits = int("cnt_bits", 1, 8)?;
        let n_cpl = int("n_cpl", 1, 4)?;
        let ctas = p.int("ctas");
        if !(2..=MAX_CTAS as i64).contains(&ctas) || !(ctas as u64).is_power_of_two() {
            return Err(ParamError(format!(
                "ctas = {ctas}: must be 2, 4, 8 or 16 (a power of two, so that every launch_tb value names a CTA slot)"
            )));
        }
        Ok(WarpSchedConfig {
            warps,
            schedulers,
            issue_policy,
            mem_order,
            mto_comp_order,
            split_ptr: p.bool("split_ptr"),
            recency: RecencyConfig {
                trigger,
                class,
                cap,
                cnt_bits,
                n_cpl,
            },
            barrier: BarrierConfig {
                ctas: ctas as usize,
                sched_en: p.bool("bar_sched_en"),
            },
        })
    }

    /// Bits of a slot index.
    pub fn slot_bits(&self) -> usize {
        index_bits(self.warps)
    }

    /// Bits of a warp count 0 … warps (`W_active`, barrier-table fields).
    pub fn count_bits(&self) -> usize {
        index_bits(self.warps + 1)
    }

    /// Bits of a CTA slot (log2 `ctas`).
    pub fn tb_bits(&self) -> usize {
        index_bits(self.barrier.ctas)
    }

    /// Slots supervised by scheduler `s`, ascending.
    pub fn supervised(&self, s: usize) -> impl Iterator<Item = usize> + '_ {
        (s..self.warps).step_by(self.schedulers)
    }

    /// Separate memory and compute pointers are in use (LH G2; never for LRR/GTO/bar-gto).
    pub fn split_pointers(&self) -> bool {
        self.split_ptr && self.issue_policy.class_split()
    }

    /// The unit has the Recency Register.
    pub fn has_recency(&self) -> bool {
        self.issue_policy == IssuePolicy::MotrrRecency
    }

    /// The unit has the barrier table.
    pub fn has_barrier(&self) -> bool {
        self.issue_policy == IssuePolicy::BarGto
    }

    pub fn module_name(&self) -> String {
        let base = |p: &str| format!("warp_sched_{p}_w{}_s{}", self.warps, self.schedulers);
        let order = |o: QueueOrder| match o {
            QueueOrder::Gto => "g",
            QueueOrder::Oldest => "o",
        };
        let ptr = if self.split_pointers() { "p2" } else { "p1" };
        match self.issue_policy {
            IssuePolicy::Lrr => base("lrr"),
            IssuePolicy::Gto => base("gto"),
            IssuePolicy::Mto => format!(
                "{}_m{}_c{}_{ptr}",
                base("mto"),
                order(self.mem_order),
                order(self.mto_comp_order)
            ),
            IssuePolicy::Motrr => format!("{}_m{}_{ptr}", base("motrr"), order(self.mem_order)),
            IssuePolicy::MotrrRecency => {
                let r = &self.recency;
                let trigger = match r.trigger {
                    RecTrigger::Complete => format!("tc{}", r.n_cpl),
                    RecTrigger::Issue => "ti".to_string(),
                };
                format!(
                    "{}_m{}_{ptr}_{trigger}_{}_{}_b{}",
                    base("motrr_r"),
                    order(self.mem_order),
                    match r.class {
                        RecClass::LdSt => "ld",
                        RecClass::Global => "gl",
                    },
                    match r.cap {
                        RecCap::Floor => "hf",
                        RecCap::Ceil => "hc",
                        RecCap::Below => "hb",
                    },
                    r.cnt_bits
                )
            }
            IssuePolicy::BarGto => format!(
                "{}_c{}_{}",
                base("bar_gto"),
                self.barrier.ctas,
                if self.barrier.sched_en { "on" } else { "off" }
            ),
        }
    }

    pub fn ports(&self) -> Vec<Port> {
        let (w, s, ib) = (self.warps, self.schedulers, self.slot_bits());
        let (ab, c, tbb) = (self.count_bits(), self.barrier.ctas, self.tb_bits());
        let rec = &self.recency;
        let mut ports = vec![
            Port::input(
                "reset",
                1,
                "synchronous reset: no warp resident, pointers NONE",
            ),
            Port::input("has_inst", w, "per slot: I-buffer head decoded and valid"),
            Port::input(
                "ready",
                w,
                if self.has_barrier() {
                    "per slot: scoreboard clear, no control hazard (this unit's barrier wait is applied on top)"
                } else {
                    "per slot: not at a barrier, scoreboard clear, no control hazard"
                },
            ),
            Port::input(
                "unit_free",
                w,
                "per slot: the pipe the head instruction needs can accept",
            ),
            Port::input(
                "is_mem",
                w,
                "per slot: the head instruction goes to the LD/ST pipe",
            ),
            Port::input(
                "launch",
                w,
                "per slot: a warp is assigned to this (free) slot at the edge",
            ),
            Port::input("exit", w, "per slot: the resident warp exits at the edge"),
        ];
        if self.has_recency() {
            match (rec.trigger, rec.class) {
                (RecTrigger::Complete, class) => {
                    ports.push(Port::input(
                        "mem_complete",
                        w,
                        "per slot: a memory instruction of this warp completes (recency event)",
                    ));
                    if class == RecClass::Global {
                        ports.push(Port::input(
                            "cpl_global",
                            w,
                            "per slot: the completing memory instruction is a global/local access",
                        ));
                    }
                }
                (RecTrigger::Issue, RecClass::Global) => ports.push(Port::input(
                    "is_global",
                    w,
                    "per slot: the head instruction is a global/local access",
                )),
                (RecTrigger::Issue, RecClass::LdSt) => {}
            }
        }
        if self.has_barrier() {
            ports.push(Port::input(
                "is_bar",
                w,
                "per slot: the head instruction is bar.sync (its issue is a barrier arrival)",
            ));
            ports.push(Port::input(
                "launch_tb",
                w * tbb,
                "per slot: CTA slot of the warp launched into the slot (field w, tb_bits each)",
            ));
        }
        ports.extend([
            Port::output(
                "issue_valid",
                s,
                true,
                "per scheduler: a warp issues this cycle",
            ),
            Port::output(
                "issue_slot",
                s * ib,
                true,
                "per scheduler: slot index of the issuing warp (0 when none)",
            ),
            Port::output(
                "issue_is_mem",
                s,
                true,
                "per scheduler: the issued instruction is a memory instruction",
            ),
        ]);
        if self.has_barrier() {
            ports.push(Port::output(
                "bar_release",
                c,
                true,
                "per CTA slot: its barrier completes at this edge (waiters eligible next cycle)",
            ));
            ports.push(Port::output(
                "tb_has_waiter",
                c,
                false,
                "per CTA slot: some warp of it waits at the barrier (bar_cnt != 0)",
            ));
        }
        ports.extend([
            Port::debug("dbg_resident", w, "per slot: a warp is resident"),
            Port::debug("dbg_last_valid", s, "per scheduler: last_issued is not NONE (memory pointer if split)"),
            Port::debug("dbg_last_issued", s * ib, "per scheduler: last issued slot, 0 when NONE (memory pointer if split)"),
            Port::debug("dbg_greedy_valid", s, "per scheduler: the last issued warp keeps greedy priority (memory pointer if split)"),
            Port::debug(
                "dbg_older",
                w * w,
                "age matrix: bit w*warps+j set when warps in slots j and w are resident and j is older",
            ),
        ]);
        if self.split_pointers() {
            ports.extend([
                Port::debug(
                    "dbg_cmp_last_valid",
                    s,
                    "per scheduler: compute pointer last_issued is not NONE",
                ),
                Port::debug(
                    "dbg_cmp_last_issued",
                    s * ib,
                    "per scheduler: compute pointer last_issued, 0 when NONE",
                ),
                Port::debug(
                    "dbg_cmp_greedy_valid",
                    s,
                    "per scheduler: compute pointer greedy_valid",
                ),
            ]);
        }
        if self.has_recency() {
            ports.extend([
                Port::debug("dbg_recent", w, "Recency Register R bit per slot"),
                Port::debug(
                    "dbg_rec_cnt",
                    w * rec.cnt_bits,
                    "Recency Register counter of slot w at w*cnt_bits (max value when not resident)",
                ),
                Port::debug("dbg_w_active", ab, "W_active = number of resident warps"),
            ]);
        }
        if self.has_barrier() {
            ports.extend([
                Port::debug(
                    "dbg_waiting",
                    w,
                    "per slot: the warp waits at its CTA's barrier",
                ),
                Port::debug(
                    "dbg_warp_tb",
                    w * tbb,
                    "CTA slot of the warp in slot w at w*tb_bits (0 when not resident)",
                ),
                Port::debug(
                    "dbg_bar_cnt",
                    c * ab,
                    "barrier table: warps of CTA t waiting, field t",
                ),
                Port::debug(
                    "dbg_bar_live",
                    c * ab,
                    "barrier table: resident warps of CTA t, field t",
                ),
            ]);
        }
        ports
    }

    pub fn tables(&self) -> Vec<Table> {
        let (w, s, ib) = (self.warps, self.schedulers, self.slot_bits());
        let mut t = vec![
            Table::new(
                "age_matrix",
                w,
                w,
                "per slot: which resident slots hold older warps",
            ),
            Table::new("resident", w, 1, "per slot: a warp is resident"),
            Table::new(
                "issue_pointer",
                s,
                ib + 2,
                "per scheduler: last_issued, its valid bit, greedy_valid",
            ),
        ];
        if self.split_pointers() {
            t.push(Table::new(
                "cmp_issue_pointer",
                s,
                ib + 2,
                "per scheduler: the compute queue's last_issued, valid bit, greedy_valid (LH G2)",
            ));
        }
        if self.has_recency() {
            t.push(Table::new(
                "recency_register",
                w,
                self.recency.cnt_bits + 1,
                "per slot: recency counter and R bit (LH §3.2; 48 x 7 = 336 bits)",
            ));
        }
        if self.has_barrier() {
            t.push(Table::new(
                "blut",
                self.barrier.ctas,
                2 * self.count_bits(),
                "barrier table per CTA slot: warps waiting at the barrier, resident warps (BAR S1)",
            ));
            t.push(Table::new(
                "warp_tb",
                w,
                self.tb_bits(),
                "per slot: CTA slot of its warp",
            ));
            t.push(Table::new(
                "bar_waiting",
                w,
                1,
                "per slot: the warp waits at the barrier",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Dir;
    use crate::units::dwr::assert_port_names_ok;

    fn cfg(sets: &[&str]) -> Result<WarpSchedConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        WarpSchedConfig::from_params(&p)
    }

    fn port<'a>(ports: &'a [Port], name: &str) -> &'a Port {
        ports
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no port {name}"))
    }

    fn names(ports: &[Port]) -> Vec<&str> {
        ports.iter().map(|p| p.name.as_str()).collect()
    }

    const BASE_PORTS: &[&str] = &[
        "reset",
        "has_inst",
        "ready",
        "unit_free",
        "is_mem",
        "launch",
        "exit",
        "issue_valid",
        "issue_slot",
        "issue_is_mem",
        "dbg_resident",
        "dbg_last_valid",
        "dbg_last_issued",
        "dbg_greedy_valid",
        "dbg_older",
    ];

    #[test]
    fn recency_register_is_336_bits_at_48_warps() {
        for s in ["1", "2"] {
            let c = cfg(&["policy=motrr-recency", &format!("schedulers={s}")]).unwrap();
            let t = c.tables();
            let r = t.iter().find(|t| t.name == "recency_register").unwrap();
            assert_eq!((r.entries, r.bits), (48, 7));
            assert_eq!(r.total_bits(), 336);
            // over GTO of the same size the policy adds exactly the Recency Register
            let gto = cfg(&["policy=gto", &format!("schedulers={s}")]).unwrap();
            let bits = |t: &[Table]| t.iter().map(Table::total_bits).sum::<usize>();
            assert_eq!(bits(&t) - bits(&gto.tables()), 336);
        }
        // 32 warps (LH G12: Table 1's 1024 threads) and 4-bit counters
        let c = cfg(&["policy=motrr-recency", "warps=32", "cnt_bits=4"]).unwrap();
        let r = c
            .tables()
            .into_iter()
            .find(|t| t.name == "recency_register");
        assert_eq!(r.unwrap().total_bits(), 32 * 5);
    }

    #[test]
    fn lrr_and_gto_keep_their_ports_tables_and_module_names() {
        for p in ["lrr", "gto"] {
            // knobs of other policies change nothing (LH S11: split_ptr leaves LRR/GTO alone)
            for extra in [vec![], vec!["split_ptr=true", "mem_order=oldest", "ctas=4"]] {
                let mut sets = vec![format!("policy={p}"), "warps=48".into()];
                sets.extend(extra.iter().map(|s| s.to_string()));
                let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
                let c = cfg(&sets).unwrap();
                assert_eq!(names(&c.ports()), BASE_PORTS);
                assert_eq!(c.module_name(), format!("warp_sched_{p}_w48_s2"));
                let t = c.tables();
                let tn: Vec<&str> = t.iter().map(|t| t.name.as_str()).collect();
                assert_eq!(tn, ["age_matrix", "resident", "issue_pointer"]);
                assert_eq!(
                    t.iter().map(Table::total_bits).sum::<usize>(),
                    48 * 48 + 48 + 16
                );
            }
        }
        assert_eq!(
            WarpSchedConfig::new(6, 2, IssuePolicy::Lrr),
            cfg(&["warps=6", "policy=lrr"]).unwrap()
        );
    }

    #[test]
    fn every_policy_name_round_trips() {
        for p in POLICIES {
            let c = cfg(&[&format!("policy={p}")]).unwrap();
            assert_eq!(c.issue_policy.name(), *p);
            assert_eq!(c, WarpSchedConfig::new(48, 2, c.issue_policy));
        }
    }

    #[test]
    fn port_widths_class_split_and_recency() {
        // 48 warps, 2 schedulers, defaults: motrr-recency with mem_complete, 6-bit counters
        let c = cfg(&["policy=motrr-recency"]).unwrap();
        let ports = c.ports();
        assert_port_names_ok(&ports);
        for (n, wd) in [
            ("mem_complete", 48),
            ("issue_slot", 12),
            ("dbg_recent", 48),
            ("dbg_rec_cnt", 288),
            ("dbg_w_active", 6),
            ("dbg_older", 48 * 48),
        ] {
            assert_eq!(port(&ports, n).width, wd, "{n}");
        }
        assert!(!names(&ports).contains(&"dbg_cmp_last_issued"));
        assert!(!names(&ports).contains(&"cpl_global"));
        // issue trigger restricted to global/local: is_global replaces mem_complete
        let c = cfg(&[
            "policy=motrr-recency",
            "rec_trigger=issue",
            "rec_class=global",
            "warps=4",
            "schedulers=1",
            "cnt_bits=3",
        ])
        .unwrap();
        let ports = c.ports();
        assert_port_names_ok(&ports);
        assert!(!names(&ports).contains(&"mem_complete"));
        assert_eq!(port(&ports, "is_global").width, 4);
        assert_eq!(port(&ports, "dbg_rec_cnt").width, 12);
        assert_eq!(port(&ports, "dbg_w_active").width, 3);
        assert_eq!(port(&ports, "issue_slot").width, 2);
        // completion trigger restricted to global/local: cpl_global next to mem_complete
        let c = cfg(&["policy=motrr-recency", "rec_class=global"]).unwrap();
        let n = names(&c.ports()).join(" ");
        assert!(n.contains("mem_complete cpl_global"), "{n}");
        // split pointers: a compute pointer digest, and its table
        let c = cfg(&["policy=motrr", "split_ptr=true", "warps=33"]).unwrap();
        let ports = c.ports();
        assert_port_names_ok(&ports);
        assert_eq!(port(&ports, "dbg_cmp_last_issued").width, 12);
        assert_eq!(port(&ports, "dbg_cmp_greedy_valid").width, 2);
        assert!(!names(&ports).contains(&"mem_complete"));
        let t = c.tables();
        assert!(t
            .iter()
            .any(|t| t.name == "cmp_issue_pointer" && t.total_bits() == 16));
        // mto and motrr without split pointers have exactly the baseline ports
        for p in ["mto", "motrr"] {
            let c = cfg(&[&format!("policy={p}")]).unwrap();
            assert_eq!(names(&c.ports()), BASE_PORTS);
        }
    }

    #[test]
    fn port_widths_barrier_policy() {
        let c = cfg(&["policy=bar-gto"]).unwrap();
        let ports = c.ports();
        assert_port_names_ok(&ports);
        for (n, wd) in [
            ("is_bar", 48),
            ("launch_tb", 48 * 3),
            ("bar_release", 8),
            ("tb_has_waiter", 8),
            ("dbg_waiting", 48),
            ("dbg_warp_tb", 144),
            ("dbg_bar_cnt", 8 * 6),
            ("dbg_bar_live", 8 * 6),
        ] {
            assert_eq!(port(&ports, n).width, wd, "{n}");
        }
        assert!(port(&ports, "bar_release").combinational);
        assert!(!port(&ports, "tb_has_waiter").combinational);
        // barrier table storage: 8 x (6 + 6), per-slot CTA id and waiting bit
        let t = c.tables();
        let b = t.iter().find(|t| t.name == "blut").unwrap();
        assert_eq!(b.total_bits(), 96);
        let gto = cfg(&["policy=gto"]).unwrap().tables();
        let bits = |t: &[Table]| t.iter().map(Table::total_bits).sum::<usize>();
        assert_eq!(bits(&t) - bits(&gto), 96 + 48 * 3 + 48);
        // 64 warps need 7-bit counts; 4 CTA slots need 2-bit ids
        let c = cfg(&["policy=bar-gto", "warps=64", "ctas=4", "schedulers=1"]).unwrap();
        let ports = c.ports();
        assert_eq!(port(&ports, "launch_tb").width, 128);
        assert_eq!(port(&ports, "dbg_bar_cnt").width, 4 * 7);
        assert_eq!(port(&ports, "issue_slot").width, 6);
    }

    #[test]
    fn functional_outputs_and_digests() {
        for p in POLICIES {
            for split in ["false", "true"] {
                let c = cfg(&[&format!("policy={p}"), &format!("split_ptr={split}")]).unwrap();
                let ports = c.ports();
                assert_port_names_ok(&ports);
                for q in &ports {
                    if q.debug {
                        assert!(q.name.starts_with("dbg_") && !q.combinational, "{}", q.name);
                    } else if q.dir == Dir::Out {
                        // only tb_has_waiter is registered among the functional outputs
                        assert_eq!(q.combinational, q.name != "tb_has_waiter", "{}", q.name);
                    }
                }
                // the existing ports come first and in their old order
                let base: Vec<&str> = names(&ports)
                    .into_iter()
                    .filter(|n| BASE_PORTS.contains(n))
                    .collect();
                assert_eq!(base, BASE_PORTS);
            }
        }
    }

    #[test]
    fn cap_rules() {
        let caps = |r: RecCap| (0..8).map(|w| r.cap(w)).collect::<Vec<_>>();
        assert_eq!(caps(RecCap::Floor), [0, 0, 1, 1, 2, 2, 3, 3]);
        assert_eq!(caps(RecCap::Ceil), [0, 1, 1, 2, 2, 3, 3, 4]);
        assert_eq!(caps(RecCap::Below), [0, 0, 0, 1, 1, 2, 2, 3]);
        assert_eq!(RecCap::Floor.cap(48), 24);
        let r = cfg(&["policy=motrr-recency", "cnt_bits=3"])
            .unwrap()
            .recency;
        assert_eq!(r.cnt_max(), 7);
        assert_eq!(RecencyConfig::default().cnt_max(), 63);
    }

    #[test]
    fn module_names_differ_per_configuration() {
        let variants: &[&[&str]] = &[
            &["policy=lrr"],
            &["policy=gto"],
            &["policy=mto"],
            &["policy=mto", "mem_order=oldest"],
            &["policy=mto", "mto_comp_order=oldest"],
            &["policy=mto", "split_ptr=true"],
            &["policy=motrr"],
            &["policy=motrr", "mem_order=oldest"],
            &["policy=motrr", "split_ptr=true"],
            &["policy=motrr-recency"],
            &["policy=motrr-recency", "n_cpl=2"],
            &["policy=motrr-recency", "rec_trigger=issue"],
            &["policy=motrr-recency", "rec_class=global"],
            &["policy=motrr-recency", "rec_cap=ceil"],
            &["policy=motrr-recency", "rec_cap=below"],
            &["policy=motrr-recency", "cnt_bits=5"],
            &["policy=motrr-recency", "split_ptr=true"],
            &["policy=motrr-recency", "mem_order=oldest"],
            &["policy=bar-gto"],
            &["policy=bar-gto", "ctas=4"],
            &["policy=bar-gto", "bar_sched_en=false"],
            &["policy=gto", "warps=8"],
            &["policy=gto", "schedulers=1"],
        ];
        let mut seen = std::collections::BTreeSet::new();
        for v in variants {
            let name = cfg(v).unwrap().module_name();
            assert!(
                name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "{name}"
            );
            assert!(seen.insert(name.clone()), "{v:?} -> {name}");
        }
        // the n_cpl knob means nothing with the issue trigger, nor do recency knobs elsewhere
        let a = cfg(&["policy=motrr-recency", "rec_trigger=issue", "n_cpl=3"]).unwrap();
        let b = cfg(&["policy=motrr-recency", "rec_trigger=issue"]).unwrap();
        assert_eq!(a.module_name(), b.module_name());
        let a = cfg(&["policy=motrr", "cnt_bits=3", "ctas=2"]).unwrap();
        assert_eq!(a.module_name(), "warp_sched_motrr_w48_s2_mg_p1");
    }

    #[test]
    fn validation_names_values_and_what_is_allowed() {
        let e = cfg(&["policy=rr"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set policy=rr: policy must be one of lrr, gto, mto, motrr, motrr-recency, bar-gto"
        );
        let e = cfg(&["ctas=6"]).unwrap_err();
        assert_eq!(
            e.0,
            "ctas = 6: must be 2, 4, 8 or 16 (a power of two, so that every launch_tb value names a CTA slot)"
        );
        let e = cfg(&["ctas=32"]).unwrap_err();
        assert_eq!(e.0, "--set ctas=32: ctas must be an integer from 2 to 16");
        let e = cfg(&["cnt_bits=0"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set cnt_bits=0: cnt_bits must be an integer from 1 to 8"
        );
        let e = cfg(&["n_cpl=5"]).unwrap_err();
        assert_eq!(e.0, "--set n_cpl=5: n_cpl must be an integer from 1 to 4");
        let e = cfg(&["rec_trigger=commit"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set rec_trigger=commit: rec_trigger must be one of complete, issue"
        );
        let e = cfg(&["mem_order=youngest"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set mem_order=youngest: mem_order must be one of gto, oldest"
        );
        let e = cfg(&["split_ptr=maybe"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set split_ptr=maybe: split_ptr must be true or false"
        );
        // from_params re-checks what widths depend on, also for parameter sets resolved
        // against wider declarations than PARAMS
        let wide: Vec<ParamSpec> = PARAMS
            .iter()
            .map(|s| match s.name {
                "cnt_bits" | "warps" | "n_cpl" => ParamSpec::int(s.name, 0, 100, 6, s.doc),
                _ => s.clone(),
            })
            .collect();
        for (set, msg) in [
            ("cnt_bits=9", "cnt_bits = 9: must be an integer from 1 to 8"),
            ("warps=65", "warps = 65: must be an integer from 2 to 64"),
            ("n_cpl=0", "n_cpl = 0: must be an integer from 1 to 4"),
        ] {
            let p = Params::resolve(NAME, &wide, None, &[set.to_string()]).unwrap();
            assert_eq!(WarpSchedConfig::from_params(&p).unwrap_err().0, msg);
        }
        assert_eq!(
            IssuePolicy::from_name("bawl").unwrap_err().0,
            "policy = bawl: must be one of lrr, gto, mto, motrr, motrr-recency, bar-gto"
        );
        let d = cfg(&[]).unwrap();
        assert_eq!(d.issue_policy, IssuePolicy::Gto);
        assert_eq!(d.recency, RecencyConfig::default());
        assert_eq!(d.barrier, BarrierConfig::default());
        assert_eq!((d.mem_order, d.split_ptr), (QueueOrder::Gto, false));
    }

    #[test]
    fn supervised_slots_and_widths() {
        let c = cfg(&["warps=7", "policy=bar-gto", "ctas=2"]).unwrap();
        assert_eq!(c.supervised(0).collect::<Vec<_>>(), [0, 2, 4, 6]);
        assert_eq!(c.supervised(1).collect::<Vec<_>>(), [1, 3, 5]);
        assert_eq!((c.slot_bits(), c.count_bits(), c.tb_bits()), (3, 3, 1));
        assert!(!c.split_pointers() && c.has_barrier() && !c.has_recency());
    }
}
