//! The spec vectors of the `crown` top (spec/crown.md §3.11 C1, C2, §7.2.11 one-sided branch,
//! §2.7): small kernels run in CROWN mode through any [`Engine`] (the model, or the RTL in
//! lockstep with it), each with a check of the spec's figures on the recorded trace.

use warpforge_contract::isa::Op;
use warpforge_contract::params::Params;
use warpforge_contract::units::crown::{kind, CrownConfig, NAME, PARAMS};

use super::{CommitEvent, CrownCounters, CrownIn, CrownOut, Engine};
use crate::isa::crown::{run_crown, CrownOptions, CrownStats};
use crate::isa::kernels::{CROWN_C2, CROWN_FIG2_3, CROWN_ONE_SIDED};
use crate::isa::warp::{run_warps, WarpOptions, WarpStats};
use crate::isa::{assemble, AsmOptions, Launch, Machine, Program};

/// One cycle of a traced run: the event offered and what the engine did.
#[derive(Clone, Debug)]
pub struct TraceRow {
    pub cycle: u64,
    pub cmt: Option<CommitEvent>,
    pub out: CrownOut,
}

/// An engine wrapper that records every cycle.
pub struct Tracing<'a> {
    pub inner: &'a mut dyn Engine,
    pub rows: Vec<TraceRow>,
}

impl Engine for Tracing<'_> {
    fn cycle(&mut self, inp: &CrownIn) -> Result<CrownOut, String> {
        let out = self.inner.cycle(inp)?;
        self.rows.push(TraceRow {
            cycle: self.rows.len() as u64,
            cmt: inp.cmt.clone(),
            out: out.clone(),
        });
        Ok(out)
    }
    fn counters(&self) -> CrownCounters {
        self.inner.counters()
    }
    fn state_line(&self) -> String {
        self.inner.state_line()
    }
    fn idle(&self) -> bool {
        self.inner.idle()
    }
}

/// A kernel vector: source, launch, and the check of its figures.
pub struct KernelVector {
    pub name: &'static str,
    pub source: &'static str,
    pub threads: u32,
    /// The launch's warp size (what `%laneid` wraps at).
    pub launch_warp_size: u32,
    pub check: fn(&Run) -> Result<(), String>,
}

/// A vector's run: CROWN's figures and trace, and SBR-8 on the same launch.
pub struct Run {
    pub program: Program,
    pub stats: CrownStats,
    pub trace: Vec<TraceRow>,
    pub sbr8: WarpStats,
}

impl Run {
    /// Issued warps (pc, lanes) in order.
    pub fn issues(&self) -> Vec<(u64, u64)> {
        self.trace
            .iter()
            .filter_map(|r| r.out.issued.as_ref().map(|(_, v)| (v.pc, v.lanes)))
            .collect()
    }
    /// Taken commit events of `kind` (branches: the divergent ones), with the cycle's outputs.
    pub fn commits(&self, k: u64) -> Vec<(&CommitEvent, &CrownOut)> {
        self.trace
            .iter()
            .filter(|r| r.out.cmt_ready)
            .filter_map(|r| r.cmt.as_ref().map(|c| (c, &r.out)))
            .filter(|(c, _)| c.kind == k)
            .filter(|(c, _)| {
                k != kind::BRANCH || (c.taken & c.lanes != 0 && c.taken & c.lanes != c.lanes)
            })
            .collect()
    }
    /// Lanes absorbed by barriers, cycle by cycle (non-zero only).
    pub fn arrivals(&self) -> Vec<u64> {
        self.trace
            .iter()
            .map(|r| r.out.arrived)
            .filter(|&a| a != 0)
            .collect()
    }
    fn lane_slots(&self) -> u64 {
        self.issues().iter().map(|x| x.1.count_ones() as u64).sum()
    }
}

/// The thesis configuration (all defaults).
pub fn default_config() -> CrownConfig {
    let p = Params::resolve(NAME, PARAMS, None, &[]).expect("defaults");
    CrownConfig::from_params(&p).expect("defaults")
}

/// Runs vector `v` with `engine`.
pub fn run_vector(
    v: &KernelVector,
    engine: &mut dyn Engine,
    cfg: &CrownConfig,
) -> Result<Run, String> {
    let program = assemble(v.source, &format!("{}.s", v.name), &AsmOptions::default())
        .map_err(|e| e.to_string())?;
    let mut launch = Launch::new([1, 1, 1], [v.threads, 1, 1]);
    launch.warp_size = v.launch_warp_size;
    let mut m = Machine::new(&program, &launch).map_err(|e| e.to_string())?;
    let mut t = Tracing {
        inner: engine,
        rows: vec![],
    };
    let stats =
        run_crown(&mut m, &CrownOptions::new(cfg.clone()), &mut t).map_err(|e| e.to_string())?;
    let mut m8 = Machine::new(&program, &launch).map_err(|e| e.to_string())?;
    let (sbr8, _) = run_warps(&mut m8, &WarpOptions::new(8)).map_err(|e| e.to_string())?;
    Ok(Run {
        program,
        stats,
        trace: t.rows,
        sbr8,
    })
}

fn expect<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

/// C1 (§3.11): one barrier completing after exactly two arrival events, 1F then E0; its
/// reincarnation (PC5, FF); 7 issues and 43 lane slots, as SBR.
fn check_c1(r: &Run) -> Result<(), String> {
    expect("issues", r.stats.engine.issues, 7)?;
    expect("lane slots", r.lane_slots(), 43)?;
    expect("barriers reserved", r.stats.engine.bar_reserved, 1)?;
    expect("arrival events", r.arrivals(), vec![0x1F, 0xE0])?;
    let i = r.issues();
    expect("branch issue", i[1], (1, 0xFF))?;
    expect("reincarnated warp", (i[5], i[6]), ((5, 0xFF), (6, 0xFF)))?;
    let b = r.commits(kind::BRANCH);
    expect("divergent branch commits", b.len(), 1)?;
    expect("nothing absorbed at the branch", b[0].1.arrived, 0)?;
    expect("barrier transfers", r.stats.engine.xfer_bar, 1)?;
    Ok(())
}

/// C2 (§3.11): both branches commit before either path drains; the paths merge into two full
/// warps; two barriers complete (B0: 0F then F0, B1: F0 then 0F); 11 issues at 100 % lane
/// activity against SBR-8's 14 issues at 78.6 %.
fn check_c2(r: &Run) -> Result<(), String> {
    expect("issues", r.stats.engine.issues, 11)?;
    expect("lane slots", r.lane_slots(), 88)?;
    expect(
        "lane activity",
        format!("{:.1}", r.stats.lane_activity()),
        "100.0".into(),
    )?;
    expect("barriers reserved", r.stats.engine.bar_reserved, 2)?;
    expect(
        "lanes merged in the Ready Lookup",
        r.stats.engine.rl_merged_lanes,
        8,
    )?;
    // Arrival events: (PC4 warp) lanes 0-3 → B0, 4-7 → B1 in one probe; then the PC3 warp.
    expect("arrival events", r.arrivals(), vec![0xFF, 0xFF])?;
    expect("barrier transfers", r.stats.engine.xfer_bar, 2)?;
    expect("SBR-8 issues", r.sbr8.warp_instructions, 14)?;
    expect("SBR-8 lane slots", r.sbr8.active_lanes, 88)?;
    expect(
        "SBR-8 lane activity",
        format!("{:.1}", 100.0 * r.sbr8.simd_efficiency()),
        "78.6".into(),
    )?;
    Ok(())
}

/// §7.2.11: the lanes whose next PC is the RPC arrive in the branch's own commit, with no
/// path warp for them (one Ready Lookup insert).
fn check_one_sided(r: &Run) -> Result<(), String> {
    let b = r.commits(kind::BRANCH);
    expect("divergent branch commits", b.len(), 1)?;
    expect("lanes arrived at the branch commit", b[0].1.arrived, 0x07)?;
    expect("Ready Lookup inserts", r.stats.engine.rl_inserts, 1)?;
    expect(
        "issues",
        r.issues(),
        vec![(0, 0xFF), (1, 0xFF), (2, 0xF8), (3, 0xFF), (4, 0xFF)],
    )?;
    let rpc = r.program.code[1];
    expect(
        "the branch's target is its rpc",
        (rpc.op, rpc.target(), rpc.rpc()),
        (Op::Bra, 3, 3),
    )?;
    Ok(())
}

/// §2.7 in CROWN mode is C1; its SBR-8 side is the Fig 2-3 trace's 7 issues, 43 lane slots.
fn check_fig2_3(r: &Run) -> Result<(), String> {
    check_c1(r)?;
    expect("SBR issues", r.sbr8.warp_instructions, 7)?;
    expect("SBR lane slots", r.sbr8.active_lanes, 43)
}

pub const VECTORS: &[KernelVector] = &[
    KernelVector {
        name: "crown.md §3.11 C1",
        source: CROWN_FIG2_3,
        threads: 8,
        launch_warp_size: 32,
        check: check_c1,
    },
    KernelVector {
        name: "crown.md §3.11 C2",
        source: CROWN_C2,
        threads: 16,
        launch_warp_size: 12,
        check: check_c2,
    },
    KernelVector {
        name: "crown.md §7.2.11 one-sided branch",
        source: CROWN_ONE_SIDED,
        threads: 8,
        launch_warp_size: 32,
        check: check_one_sided,
    },
    KernelVector {
        name: "crown.md §2.7 (Fig 2-3) on CROWN and SBR-8",
        source: CROWN_FIG2_3,
        threads: 8,
        launch_warp_size: 32,
        check: check_fig2_3,
    },
];
