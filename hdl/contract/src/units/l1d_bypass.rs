//! `l1d-bypass`: the barrier-aware L1D bypass decision of one SM (spec/barrier.md §4): the
//! miss-rate monitor with its three modes, and the per-access decision of §4.4.
//!
//! This comment is the normative cycle-level contract; the RTL and the model are written from
//! it independently. § numbers and G* decisions refer to spec/barrier.md; `docs/scheduling.md`
//! maps the spec's vectors (§6.3–§6.5) onto these ports.
//!
//! # What the unit is
//!
//! The decision logic that sits in the L1D's miss/allocation path, not the cache. Each cycle
//! the L1D presents the access at the head of the LD/ST queue together with its tag-probe
//! result and the resource state (MSHR, miss queue); the unit answers what happens to it this
//! cycle and keeps the per-SM miss-rate monitor (§4.1, G8, G17). The L1D acts on the answer
//! (a bypassed read carries a `bypassed` flag, is sent like an uncached load, and its response
//! never fills the L1D: §4.4, G15 — outside this unit). A stalled access is retried by the
//! L1D in a later cycle and is then a new access for this unit.
//!
//! # Sizes and encodings
//!
//! `C` = `ctas` (power of two), `tbb` = log2 C, `ab` = [`L1dBypassConfig::counter_bits`]:
//! `index_bits(epoch)` with `window = epoch` (the counters hold 0 … epoch−1), 32 with
//! `window = cumulative`. Codes: [`Probe`], [`Decision`], [`StallWhy`], [`Mode`].
//!
//! # Inputs (sampled in the cycle they are driven; every value is legal in every cycle)
//!
//! - `reset`: synchronous; next state = reset state (mode RETAIN, `A = M = 0`); other inputs
//!   ignored; outputs in a reset cycle are unspecified (not compared).
//! - `kernel_start`: a kernel is launched this cycle (§4.1: the monitor restarts; see
//!   `launch_reset`).
//! - `acc_valid`: an access (global/local, G16) is at the head of the LD/ST queue and probes the
//!   L1D this cycle. All other `acc_*`, `merge_ok`, `mshr_ok`, `mq_ok` are ignored without it.
//! - `acc_store`: the access is a store (write). Otherwise it is a load.
//! - `acc_probe[2]`: the tag probe: `0 HIT`, `1 HIT_RESERVED` (the line is reserved by an
//!   outstanding miss: a pending hit), `2 MISS` (the set has an allocatable victim way),
//!   `3 MISS_NOWAY` (a miss and every way of the set is RESERVED: the reservation failure the
//!   paper targets, §2).
//! - `acc_tb[tbb]`: the CTA slot of the warp that issued the access (§4.2).
//! - `merge_ok`: a HIT_RESERVED access can merge into its MSHR entry (merge limit not reached).
//! - `mshr_ok`: an MSHR entry is free for a new miss.
//! - `mq_ok`: the miss queue has room for a request to L2.
//! - `tb_has_waiter[C]`: bit `t` = CTA slot `t` has a warp waiting at its barrier, as registered
//!   in the barrier table at the start of this cycle (`warp-sched` `tb_has_waiter`, §4.2, G14).
//!
//! # Decision (combinational)
//!
//! `bypass_ok = bypass_en ∧ (mode = FULL ∨ (mode = PARTIAL ∧ tb_has_waiter[acc_tb]))`, with the
//! registered `mode`. `send` = BYPASS if `mq_ok`, else STALL with reason MQ. For an access
//! (`acc_valid`), the first matching line:
//!
//! | access | condition | decision | stall_why | counted |
//! |---|---|---|---|---|
//! | store | – | WRITE (baseline write path, never a bypass; §4.4 row 9) | – | `count_stores`: A; and M if probe is MISS or MISS_NOWAY |
//! | load, HIT | – | HIT (row 1) | – | A |
//! | load, HIT_RESERVED | `merge_ok` | MERGE (row 2) | – | A |
//! | load, HIT_RESERVED | `bypass_on_mshr_full ∧ bypass_ok` | `send` | MQ if stalled | A, M if bypassed |
//! | load, HIT_RESERVED | otherwise | STALL (row 2, merge limit) | MSHR | – |
//! | load, MISS | `bypass_all_misses ∧ bypass_ok` | `send` | MQ if stalled | A, M if bypassed |
//! | load, MISS | `mshr_ok ∧ mq_ok` | ALLOC (row 3) | – | A, M |
//! | load, MISS | `¬mshr_ok ∧ bypass_on_mshr_full ∧ bypass_ok` | `send` | MQ if stalled | A, M if bypassed |
//! | load, MISS | otherwise | STALL | MSHR if `¬mshr_ok`, else MQ | – |
//! | load, MISS_NOWAY | `bypass_ok` | `send` (rows 6, 7, 8) | MQ if stalled | A, M if bypassed |
//! | load, MISS_NOWAY | otherwise | STALL (rows 4, 5) | NOWAY | – |
//!
//! Without `acc_valid` the decision is NONE. `stall_why` is 0 unless the decision is STALL.
//! With the defaults (`bypass_on_mshr_full = bypass_all_misses = false`) a bypass happens only
//! for a load that is MISS_NOWAY with `bypass_ok` and `mq_ok` (I7), and with `bypass_en = false`
//! never (BAR_BYPASS_EN = 0: the baseline L1D, T1/I8).
//!
//! Counting (§4.1, G9): a load is counted once, when it resolves (HIT, MERGE, ALLOC, BYPASS): `A`
//! += 1, and `M` += 1 for ALLOC and BYPASS (a pending hit is not a miss). A stall is not counted
//! (the retry that resolves is). Stores count only with `count_stores`.
//!
//! # The clock edge (not in reset), in order
//!
//! 1. `A' = A + a`, `M' = M + m` with `a`, `m` (0 or 1) this cycle's counts. With
//!    `window = cumulative`, if `A = 2^32 − 1` nothing is counted any more (`A' = A`, `M' = M`).
//! 2. `window = epoch`: if `A' = epoch` the epoch ends (`epoch_end = 1`): `mode ← f(A', M')`,
//!    `A ← 0`, `M ← 0`; otherwise `A ← A'`, `M ← M'`. `window = cumulative` (§4.1 alternative):
//!    `A ← A'`, `M ← M'`, `mode ← f(A', M')` every cycle.
//! 3. `kernel_start` (applied last, so it wins): `launch_reset = all`: `A ← 0`, `M ← 0`,
//!    `mode ← RETAIN` (§4.1, G11); `counters`: `A ← 0`, `M ← 0`, the mode is kept (including
//!    a mode just set by step 2); `none`: no effect.
//!
//! `f(A, M)`: RETAIN if `A = 0`; else FULL if `100·M > full_pct·A`; else PARTIAL if
//! `100·M ≥ partial_pct·A`; else RETAIN (§4.1 with `full_pct = 90`, `partial_pct = 60`:
//! `10·M > 9·A` / `10·M ≥ 6·A`, G10: 0.6 and 0.9 are PARTIAL). A new mode applies from the
//! next cycle.
//!
//! # Outputs
//!
//! Combinational: `decision[3]`, `stall_why[2]`, `epoch_end` (step 2 ends an epoch at this edge;
//! always 0 with `window = cumulative`). Registered: `mode[2]`.
//!
//! # State digest and storage
//!
//! `dbg_acc[ab]` = `A`, `dbg_miss[ab]` = `M` (start of cycle; the mode is the functional output
//! `mode`). Storage: `miss_rate_monitor` = `A`, `M` and the 2-bit mode: 2·10 + 2 = 22 bits with
//! `epoch = 1024` (the spec's estimate says 24 with 11-bit counters; 10 bits suffice because a
//! counter never holds the value `epoch`).
//!
//! # Invariants (the model asserts them every cycle; BAR §8)
//!
//! `M ≤ A < epoch` (epoch window); I6 the mode changes only at an epoch end (or by
//! `kernel_start`), to `f(A', M')`; I7 a bypass only as in the table; I8 `bypass_en = false` ⇒
//! no bypass; I10 every bypass is counted once in `A` and in `M`; a decision is STALL exactly
//! when `stall_why ≠ 0`.

use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "l1d-bypass";

pub const WINDOWS: &[&str] = &["epoch", "cumulative"];
pub const LAUNCH_RESETS: &[&str] = &["all", "counters", "none"];

/// Width of the counters with `window = cumulative`.
pub const CUMULATIVE_BITS: usize = 32;
/// Largest `epoch`.
pub const MAX_EPOCH: usize = 1 << 20;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::int(
        "ctas",
        2,
        16,
        8,
        "CTA slots per SM (power of two): width of tb_has_waiter",
    ),
    ParamSpec::choice(
        "window",
        WINDOWS,
        "epoch",
        "G8: miss rate over epochs of `epoch` counted loads, or cumulative since kernel start",
    ),
    ParamSpec::int(
        "epoch",
        1,
        MAX_EPOCH as i64,
        1024,
        "G8: counted loads per epoch (window = epoch)",
    ),
    ParamSpec::int(
        "full_pct",
        0,
        100,
        90,
        "§4.1: FULL bypass when 100*M > full_pct*A (miss rate above full_pct %)",
    ),
    ParamSpec::int(
        "partial_pct",
        0,
        100,
        60,
        "§4.1: PARTIAL bypass when 100*M >= partial_pct*A and not FULL",
    ),
    ParamSpec::choice(
        "launch_reset",
        LAUNCH_RESETS,
        "all",
        "G8/G11: kernel_start clears counters and mode (all), counters only, or nothing",
    ),
    ParamSpec::boolean(
        "count_stores",
        false,
        "§4.1 option: stores count in A (and M when they miss)",
    ),
    ParamSpec::boolean(
        "bypass_en",
        true,
        "G18 BAR_BYPASS_EN: false = never bypass (the baseline L1D)",
    ),
    ParamSpec::boolean(
        "bypass_on_mshr_full",
        false,
        "G13 BYPASS_ON_MSHR_FULL: MSHR-full and merge-limit failures are bypass-eligible too",
    ),
    ParamSpec::boolean(
        "bypass_all_misses",
        false,
        "G12 BYPASS_SCOPE=ALL_MISSES: bypass eligible misses even when a way is free",
    ),
];

/// `acc_probe` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Probe {
    Hit = 0,
    HitReserved = 1,
    /// A miss whose set has an allocatable victim way.
    Miss = 2,
    /// A miss and every way of the set is RESERVED.
    MissNoWay = 3,
}

impl Probe {
    pub const BITS: usize = 2;
    pub const ALL: [Probe; 4] = [
        Probe::Hit,
        Probe::HitReserved,
        Probe::Miss,
        Probe::MissNoWay,
    ];
    pub fn code(self) -> u64 {
        self as u64
    }
    pub fn from_code(code: u64) -> Probe {
        Probe::ALL[(code & 3) as usize]
    }
}

/// `decision` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Decision {
    /// No access this cycle.
    None = 0,
    Hit = 1,
    /// A pending hit merged into its MSHR entry.
    Merge = 2,
    /// Miss: a line is reserved and the request sent (baseline).
    Alloc = 3,
    /// Sent to L2 around the L1D: no tag, LRU or MSHR change; the response never fills.
    Bypass = 4,
    /// Not accepted this cycle; the L1D retries.
    Stall = 5,
    /// A store, handed to the baseline write path.
    Write = 6,
}

impl Decision {
    pub const BITS: usize = 3;
    pub const ALL: [Decision; 7] = [
        Decision::None,
        Decision::Hit,
        Decision::Merge,
        Decision::Alloc,
        Decision::Bypass,
        Decision::Stall,
        Decision::Write,
    ];
    pub fn code(self) -> u64 {
        self as u64
    }
    /// The decision with this code; `None` for 7, which never occurs.
    pub fn from_code(code: u64) -> Option<Decision> {
        Decision::ALL.iter().copied().find(|d| d.code() == code)
    }
}

/// `stall_why` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum StallWhy {
    /// Not a stall.
    None = 0,
    /// Every way of the set is RESERVED and the access may not bypass.
    NoWay = 1,
    /// No free MSHR entry (miss) or merge limit reached (pending hit).
    Mshr = 2,
    /// The miss queue is full.
    MissQueue = 3,
}

impl StallWhy {
    pub const BITS: usize = 2;
    pub const ALL: [StallWhy; 4] = [
        StallWhy::None,
        StallWhy::NoWay,
        StallWhy::Mshr,
        StallWhy::MissQueue,
    ];
    pub fn code(self) -> u64 {
        self as u64
    }
    pub fn from_code(code: u64) -> StallWhy {
        StallWhy::ALL[(code & 3) as usize]
    }
}

/// `mode` codes (§2 S3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Mode {
    /// No bypass (miss rate below the lower threshold).
    Retain = 0,
    /// Bypass a blocked miss only if its CTA has a warp waiting at the barrier.
    Partial = 1,
    /// Bypass every blocked miss.
    Full = 2,
}

impl Mode {
    pub const BITS: usize = 2;
    pub fn code(self) -> u64 {
        self as u64
    }
    /// The mode with this code; `None` for 3, which never occurs.
    pub fn from_code(code: u64) -> Option<Mode> {
        [Mode::Retain, Mode::Partial, Mode::Full]
            .into_iter()
            .find(|m| m.code() == code)
    }
}

/// The miss-rate window (G8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Window {
    /// Epochs of `epoch` counted loads; the mode is set at each epoch end.
    Epoch,
    /// Counters since kernel start; the mode follows them every cycle.
    Cumulative,
}

/// What `kernel_start` clears.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaunchReset {
    All,
    Counters,
    None,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct L1dBypassConfig {
    pub ctas: usize,
    pub window: Window,
    pub epoch: usize,
    pub full_pct: u32,
    pub partial_pct: u32,
    pub launch_reset: LaunchReset,
    pub count_stores: bool,
    pub bypass_en: bool,
    pub bypass_on_mshr_full: bool,
    pub bypass_all_misses: bool,
}

impl Default for L1dBypassConfig {
    fn default() -> Self {
        L1dBypassConfig {
            ctas: 8,
            window: Window::Epoch,
            epoch: 1024,
            full_pct: 90,
            partial_pct: 60,
            launch_reset: LaunchReset::All,
            count_stores: false,
            bypass_en: true,
            bypass_on_mshr_full: false,
            bypass_all_misses: false,
        }
    }
}

impl L1dBypassConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let ctas = p.int("ctas");
        if !(2..=16).contains(&ctas) || !(ctas as u64).is_power_of_two() {
            return Err(ParamError(format!(
                "ctas = {ctas}: must be 2, 4, 8 or 16 (a power of two, so that every acc_tb value names a CTA slot)"
            )));
        }
        let window = match p.str("window") {
            "epoch" => Window::Epoch,
            "cumulative" => Window::Cumulative,
            other => {
                return Err(ParamError(format!(
                    "window = {other}: must be one of {}",
                    WINDOWS.join(", ")
                )))
            }
        };
        let epoch = p.int("epoch");
        if !(1..=MAX_EPOCH as i64).contains(&epoch) {
            return Err(ParamError(format!(
                "epoch = {epoch}: must be an integer from 1 to {MAX_EPOCH}"
            )));
        }
        let pct = |key: &str| -> Result<u32, ParamError> {
            let v = p.int(key);
            if !(0..=100).contains(&v) {
                return Err(ParamError(format!(
                    "{key} = {v}: must be an integer from 0 to 100"
                )));
            }
            Ok(v as u32)
        };
        let (full_pct, partial_pct) = (pct("full_pct")?, pct("partial_pct")?);
        if partial_pct > full_pct {
            return Err(ParamError(format!(
                "partial_pct = {partial_pct} is above full_pct = {full_pct}: the PARTIAL threshold must not exceed the FULL one"
            )));
        }
        let launch_reset = match p.str("launch_reset") {
            "all" => LaunchReset::All,
            "counters" => LaunchReset::Counters,
            "none" => LaunchReset::None,
            other => {
                return Err(ParamError(format!(
                    "launch_reset = {other}: must be one of {}",
                    LAUNCH_RESETS.join(", ")
                )))
            }
        };
        Ok(L1dBypassConfig {
            ctas: ctas as usize,
            window,
            epoch: epoch as usize,
            full_pct,
            partial_pct,
            launch_reset,
            count_stores: p.bool("count_stores"),
            bypass_en: p.bool("bypass_en"),
            bypass_on_mshr_full: p.bool("bypass_on_mshr_full"),
            bypass_all_misses: p.bool("bypass_all_misses"),
        })
    }

    /// Bits of a CTA slot.
    pub fn tb_bits(&self) -> usize {
        index_bits(self.ctas)
    }

    /// Bits of the `A` and `M` counters.
    pub fn counter_bits(&self) -> usize {
        match self.window {
            Window::Epoch => index_bits(self.epoch),
            Window::Cumulative => CUMULATIVE_BITS,
        }
    }

    pub fn module_name(&self) -> String {
        let window = match self.window {
            Window::Epoch => format!("e{}", self.epoch),
            Window::Cumulative => "cum".to_string(),
        };
        let flag = |b: bool, c: char| if b { c } else { '0' };
        format!(
            "l1d_bypass_c{}_{window}_f{}_p{}_r{}_{}{}{}{}",
            self.ctas,
            self.full_pct,
            self.partial_pct,
            match self.launch_reset {
                LaunchReset::All => "a",
                LaunchReset::Counters => "c",
                LaunchReset::None => "n",
            },
            flag(self.count_stores, 's'),
            flag(self.bypass_en, 'b'),
            flag(self.bypass_on_mshr_full, 'm'),
            flag(self.bypass_all_misses, 'x'),
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (c, ab) = (self.ctas, self.counter_bits());
        vec![
            Port::input("reset", 1, "synchronous reset: mode RETAIN, counters 0"),
            Port::input("kernel_start", 1, "a kernel launch: restart the monitor (launch_reset)"),
            Port::input("acc_valid", 1, "an access at the head of the LD/ST queue probes the L1D this cycle"),
            Port::input("acc_store", 1, "the access is a store"),
            Port::input("acc_probe", Probe::BITS, "probe: 0 hit, 1 hit-reserved, 2 miss with a victim way, 3 miss with every way reserved"),
            Port::input("acc_tb", self.tb_bits(), "CTA slot of the accessing warp"),
            Port::input("merge_ok", 1, "a hit-reserved access can merge into its MSHR entry"),
            Port::input("mshr_ok", 1, "an MSHR entry is free"),
            Port::input("mq_ok", 1, "the miss queue has room"),
            Port::input("tb_has_waiter", c, "per CTA slot: a warp waits at its barrier (registered barrier table)"),
            Port::output("decision", Decision::BITS, true, "0 none, 1 hit, 2 merge, 3 alloc, 4 bypass, 5 stall, 6 write"),
            Port::output("stall_why", StallWhy::BITS, true, "stall reason: 0 none, 1 no way, 2 mshr/merge limit, 3 miss queue"),
            Port::output("epoch_end", 1, true, "the miss-rate epoch ends at this edge (mode recomputed)"),
            Port::output("mode", Mode::BITS, false, "bypass mode: 0 retain, 1 partial, 2 full"),
            Port::debug("dbg_acc", ab, "A: counted loads in the current window"),
            Port::debug("dbg_miss", ab, "M: counted misses (allocated or bypassed) in the current window"),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        vec![Table::new(
            "miss_rate_monitor",
            1,
            2 * self.counter_bits() + Mode::BITS,
            "access counter A, miss counter M, mode register (BAR S3)",
        )]
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

    fn cfg(sets: &[&str]) -> Result<L1dBypassConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        L1dBypassConfig::from_params(&p)
    }

    fn width(ports: &[Port], name: &str) -> usize {
        ports
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no port {name}"))
            .width
    }

    #[test]
    fn defaults_are_the_spec_recommendation() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, L1dBypassConfig::default());
        assert_eq!((c.epoch, c.full_pct, c.partial_pct), (1024, 90, 60));
        assert_eq!(c.counter_bits(), 10);
        assert_eq!(c.tables()[0].total_bits(), 22);
    }

    #[test]
    fn port_widths() {
        let c = cfg(&[]).unwrap();
        let ports = c.ports();
        assert_port_names_ok(&ports);
        for (n, w) in [
            ("acc_probe", 2),
            ("acc_tb", 3),
            ("tb_has_waiter", 8),
            ("decision", 3),
            ("stall_why", 2),
            ("mode", 2),
            ("dbg_acc", 10),
            ("dbg_miss", 10),
        ] {
            assert_eq!(width(&ports, n), w, "{n}");
        }
        // the spec's test build: EPOCH = 10 -> 4-bit counters; 16 CTA slots
        let c = cfg(&["epoch=10", "ctas=16"]).unwrap();
        let ports = c.ports();
        assert_eq!(width(&ports, "dbg_acc"), 4);
        assert_eq!(width(&ports, "acc_tb"), 4);
        assert_eq!(width(&ports, "tb_has_waiter"), 16);
        let c = cfg(&["window=cumulative", "ctas=2"]).unwrap();
        let ports = c.ports();
        assert_eq!(width(&ports, "dbg_miss"), 32);
        assert_eq!(width(&ports, "acc_tb"), 1);
        assert_eq!(c.tables()[0].total_bits(), 66);
        // decisions are combinational, the mode is registered, digests are registered
        for p in &ports {
            if p.dir == Dir::Out && !p.debug {
                assert_eq!(p.combinational, p.name != "mode", "{}", p.name);
            }
            assert_eq!(p.debug, p.name.starts_with("dbg_"));
        }
        assert_eq!(cfg(&["epoch=1"]).unwrap().counter_bits(), 1);
        assert_eq!(cfg(&["epoch=1025"]).unwrap().counter_bits(), 11);
    }

    /// §4.1 with the default percentages, written as the spec writes it.
    fn spec_mode(a: u64, m: u64) -> Mode {
        if a == 0 {
            Mode::Retain
        } else if 10 * m > 9 * a {
            Mode::Full
        } else if 10 * m >= 6 * a {
            Mode::Partial
        } else {
            Mode::Retain
        }
    }

    #[test]
    fn percent_thresholds_equal_the_spec_integer_compare() {
        // f(A, M) of the doc comment with full_pct = 90, partial_pct = 60
        let c = cfg(&[]).unwrap();
        let f = |a: u64, m: u64| {
            if a == 0 {
                Mode::Retain
            } else if 100 * m > c.full_pct as u64 * a {
                Mode::Full
            } else if 100 * m >= c.partial_pct as u64 * a {
                Mode::Partial
            } else {
                Mode::Retain
            }
        };
        for a in 0..=40 {
            for m in 0..=a {
                assert_eq!(f(a, m), spec_mode(a, m), "A={a} M={m}");
            }
        }
        // the §6.3 boundaries at EPOCH = 1024
        for (m, want) in [
            (614, Mode::Retain),
            (615, Mode::Partial),
            (921, Mode::Partial),
            (922, Mode::Full),
        ] {
            assert_eq!(f(1024, m), want, "M={m}");
        }
    }

    #[test]
    fn codes_round_trip() {
        for p in Probe::ALL {
            assert_eq!(Probe::from_code(p.code()), p);
        }
        for d in Decision::ALL {
            assert_eq!(Decision::from_code(d.code()), Some(d));
        }
        assert_eq!(Decision::from_code(7), None);
        for s in StallWhy::ALL {
            assert_eq!(StallWhy::from_code(s.code()), s);
        }
        assert_eq!(Mode::from_code(2), Some(Mode::Full));
        assert_eq!(Mode::from_code(3), None);
    }

    #[test]
    fn validation_names_values_and_what_is_allowed() {
        let e = cfg(&["ctas=12"]).unwrap_err();
        assert_eq!(
            e.0,
            "ctas = 12: must be 2, 4, 8 or 16 (a power of two, so that every acc_tb value names a CTA slot)"
        );
        let e = cfg(&["partial_pct=95"]).unwrap_err();
        assert_eq!(
            e.0,
            "partial_pct = 95 is above full_pct = 90: the PARTIAL threshold must not exceed the FULL one"
        );
        let e = cfg(&["full_pct=101"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set full_pct=101: full_pct must be an integer from 0 to 100"
        );
        let e = cfg(&["epoch=0"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set epoch=0: epoch must be an integer from 1 to 1048576"
        );
        let e = cfg(&["window=sliding"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set window=sliding: window must be one of epoch, cumulative"
        );
        let e = cfg(&["launch_reset=mode"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set launch_reset=mode: launch_reset must be one of all, counters, none"
        );
        assert!(cfg(&["partial_pct=90"]).is_ok());
        assert!(cfg(&["full_pct=100", "partial_pct=0"]).is_ok());
    }

    #[test]
    fn module_names_differ_per_configuration() {
        let variants: &[&[&str]] = &[
            &[],
            &["ctas=4"],
            &["epoch=10"],
            &["window=cumulative"],
            &["full_pct=80"],
            &["partial_pct=50"],
            &["launch_reset=counters"],
            &["launch_reset=none"],
            &["count_stores=true"],
            &["bypass_en=false"],
            &["bypass_on_mshr_full=true"],
            &["bypass_all_misses=true"],
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
        assert_eq!(
            cfg(&[]).unwrap().module_name(),
            "l1d_bypass_c8_e1024_f90_p60_ra_0b00"
        );
    }
}
