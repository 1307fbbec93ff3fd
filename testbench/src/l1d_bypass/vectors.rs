//! Spec vectors of `l1d-bypass` (spec/barrier.md §6.3–§6.5, T1/I8; docs/scheduling.md
//! §9.9) and contract vectors for the knobs the spec leaves as options.

use crate::{SpecVector, VectorCycle};
use warpforge_contract::units::l1d_bypass::*;

/// One access of a vector: a load with every resource available unless changed.
#[derive(Clone, Copy, Debug)]
struct Acc {
    store: bool,
    probe: Probe,
    tb: u64,
    waiters: u64,
    merge_ok: bool,
    mshr_ok: bool,
    mq_ok: bool,
}

impl Acc {
    fn load(probe: Probe) -> Acc {
        Acc {
            store: false,
            probe,
            tb: 0,
            waiters: 0,
            merge_ok: true,
            mshr_ok: true,
            mq_ok: true,
        }
    }
    fn store(probe: Probe) -> Acc {
        Acc {
            store: true,
            ..Acc::load(probe)
        }
    }
    fn tb(self, tb: u64, waiters: u64) -> Acc {
        Acc {
            tb,
            waiters,
            ..self
        }
    }
    fn no_mq(self) -> Acc {
        Acc {
            mq_ok: false,
            ..self
        }
    }
    fn no_mshr(self) -> Acc {
        Acc {
            mshr_ok: false,
            ..self
        }
    }
    fn no_merge(self) -> Acc {
        Acc {
            merge_ok: false,
            ..self
        }
    }
}

/// What a vector cycle expects: the decision, its stall reason, and the registered state.
#[derive(Clone, Copy, Debug)]
struct Want {
    decision: Decision,
    why: StallWhy,
    epoch_end: bool,
    mode: Mode,
    acc: u64,
    miss: u64,
}

/// Builder for one l1d-bypass spec vector (starts with a reset cycle).
struct Vb {
    v: SpecVector,
}

impl Vb {
    fn new(name: &str, sets: &[&str]) -> Vb {
        Vb {
            v: SpecVector {
                name: name.into(),
                unit: NAME,
                sets: sets.iter().map(|s| s.to_string()).collect(),
                cycles: vec![VectorCycle {
                    inputs: vec![("reset", vec![1])],
                    expect: vec![],
                }],
            },
        }
    }

    fn push(&mut self, acc: Option<Acc>, kernel_start: bool, w: Want) {
        let mut inputs: Vec<(&'static str, Vec<u64>)> = vec![];
        if let Some(a) = acc {
            inputs.extend([
                ("acc_valid", vec![1]),
                ("acc_store", vec![a.store as u64]),
                ("acc_probe", vec![a.probe.code()]),
                ("acc_tb", vec![a.tb]),
                ("tb_has_waiter", vec![a.waiters]),
                ("merge_ok", vec![a.merge_ok as u64]),
                ("mshr_ok", vec![a.mshr_ok as u64]),
                ("mq_ok", vec![a.mq_ok as u64]),
            ]);
        }
        if kernel_start {
            inputs.push(("kernel_start", vec![1]));
        }
        self.v.cycles.push(VectorCycle {
            inputs,
            expect: vec![
                ("decision", vec![w.decision.code()]),
                ("stall_why", vec![w.why.code()]),
                ("epoch_end", vec![w.epoch_end as u64]),
                ("mode", vec![w.mode.code()]),
                ("dbg_acc", vec![w.acc]),
                ("dbg_miss", vec![w.miss]),
            ],
        });
    }

    /// A cycle with access `acc`, expecting `decision`/`why`, no epoch end, and the given
    /// registered state (mode, A, M) at the start of the cycle.
    fn step(
        mut self,
        acc: Acc,
        decision: Decision,
        why: StallWhy,
        (mode, a, m): (Mode, u64, u64),
    ) -> Vb {
        self.push(
            Some(acc),
            false,
            Want {
                decision,
                why,
                epoch_end: false,
                mode,
                acc: a,
                miss: m,
            },
        );
        self
    }

    /// A cycle without an access (reads the registered state).
    fn idle(mut self, (mode, a, m): (Mode, u64, u64)) -> Vb {
        self.push(
            None,
            false,
            Want {
                decision: Decision::None,
                why: StallWhy::None,
                epoch_end: false,
                mode,
                acc: a,
                miss: m,
            },
        );
        self
    }

    /// One whole epoch of `epoch` loads from empty counters in mode `mode`: `misses` of them
    /// MISS (ALLOC), the others HIT, misses first when `misses_first`. The last one ends the
    /// epoch.
    fn epoch(mut self, epoch: u64, misses: u64, misses_first: bool, mode: Mode) -> Vb {
        let mut m = 0;
        for j in 0..epoch {
            let miss = if misses_first {
                j < misses
            } else {
                j >= epoch - misses
            };
            let (probe, decision) = if miss {
                (Probe::Miss, Decision::Alloc)
            } else {
                (Probe::Hit, Decision::Hit)
            };
            self.push(
                Some(Acc::load(probe)),
                false,
                Want {
                    decision,
                    why: StallWhy::None,
                    epoch_end: j == epoch - 1,
                    mode,
                    acc: j,
                    miss: m,
                },
            );
            m += miss as u64;
        }
        self
    }

    /// The rest of an epoch of misses from `A = a`, `M = m` (MISS → ALLOC); the last one
    /// ends the epoch.
    fn epoch_rest(mut self, epoch: u64, a: u64, m: u64, mode: Mode) -> Vb {
        for j in a..epoch {
            self.push(
                Some(Acc::load(Probe::Miss)),
                false,
                Want {
                    decision: Decision::Alloc,
                    why: StallWhy::None,
                    epoch_end: j == epoch - 1,
                    mode,
                    acc: j,
                    miss: m + j - a,
                },
            );
        }
        self
    }

    fn done(self) -> SpecVector {
        self.v
    }
}

use Decision as D;
use Mode::{Full, Partial, Retain};
use StallWhy as Why;

/// §6.3 with EPOCH = 10: epochs of 5, 6, 9, 10, 0 misses give RETAIN, PARTIAL (0.6 is
/// inclusive), PARTIAL (0.9 is not FULL), FULL, RETAIN.
fn modes_epoch10() -> SpecVector {
    let mut b = Vb::new("barrier.md §6.3 miss-rate modes (epoch=10)", &["epoch=10"]);
    let epochs = [
        (5, Retain),
        (6, Partial),
        (9, Partial),
        (10, Full),
        (0, Retain),
    ];
    let mut mode = Retain;
    for (k, &(misses, next)) in epochs.iter().enumerate() {
        b = b.epoch(10, misses, k % 2 == 0, mode);
        mode = next;
    }
    b.idle((Retain, 0, 0)).done()
}

/// §6.3 boundaries at EPOCH = 1024: M = 614, 615, 921, 922.
fn modes_epoch1024(misses: u64, want: Mode) -> SpecVector {
    Vb::new(
        &format!("barrier.md §6.3 boundary M={misses} of 1024 (epoch=1024)"),
        &[],
    )
    .epoch(1024, misses, false, Retain)
    .idle((want, 0, 0))
    .done()
}

/// The accounting sequence of §6.4 after a PARTIAL prefix (6 of 10), `acc_tb = 1`.
fn accounting_steps(b: Vb, count_stores: bool) -> Vb {
    let r = Probe::MissNoWay;
    let b = b
        .epoch(10, 6, true, Retain)
        .step(
            Acc::load(Probe::Hit).tb(1, 0),
            D::Hit,
            Why::None,
            (Partial, 0, 0),
        )
        .step(
            Acc::load(Probe::Miss).tb(1, 0),
            D::Alloc,
            Why::None,
            (Partial, 1, 0),
        )
        .step(Acc::load(r).tb(1, 0), D::Stall, Why::NoWay, (Partial, 2, 1))
        .step(Acc::load(r).tb(1, 0), D::Stall, Why::NoWay, (Partial, 2, 1))
        .step(
            Acc::load(r).tb(1, 0b10),
            D::Bypass,
            Why::None,
            (Partial, 2, 1),
        )
        .step(
            Acc::load(Probe::HitReserved).tb(1, 0),
            D::Merge,
            Why::None,
            (Partial, 3, 2),
        )
        .step(
            Acc::store(Probe::Miss).tb(1, 0),
            D::Write,
            Why::None,
            (Partial, 4, 2),
        );
    if count_stores {
        // The store miss counts in A and M.
        b.idle((Partial, 5, 3))
    } else {
        // §6.4: A = 4, M = 2 (the retried request once, as a miss; the store not at all).
        b.idle((Partial, 4, 2))
    }
}

fn accounting() -> SpecVector {
    accounting_steps(
        Vb::new(
            "barrier.md §6.4 counter accounting (epoch=10)",
            &["epoch=10"],
        ),
        false,
    )
    .done()
}

fn accounting_with_stores() -> SpecVector {
    accounting_steps(
        Vb::new(
            "contract: §6.4 stream with count_stores=true (epoch=10)",
            &["epoch=10", "count_stores=true"],
        ),
        true,
    )
    .done()
}

/// §6.5 a (RETAIN): a blocked miss stalls whatever its CTA's barrier state.
fn decisions_retain() -> SpecVector {
    let r = Probe::MissNoWay;
    Vb::new(
        "barrier.md §6.5 decisions a (RETAIN, epoch=10)",
        &["epoch=10"],
    )
    .step(
        Acc::load(r).tb(0, 0b001),
        D::Stall,
        Why::NoWay,
        (Retain, 0, 0),
    )
    // Row 4 does not depend on the miss queue: still NOWAY.
    .step(
        Acc::load(r).tb(0, 0b001).no_mq(),
        D::Stall,
        Why::NoWay,
        (Retain, 0, 0),
    )
    .step(
        Acc::load(Probe::Miss).tb(0, 0b001),
        D::Alloc,
        Why::None,
        (Retain, 0, 0),
    )
    .idle((Retain, 1, 1))
    .done()
}

/// §6.5 b, c, d (PARTIAL after 6 of 10 misses).
fn decisions_partial() -> SpecVector {
    let r = Probe::MissNoWay;
    Vb::new(
        "barrier.md §6.5 decisions b-d (PARTIAL, epoch=10)",
        &["epoch=10"],
    )
    .epoch(10, 6, false, Retain)
    .step(Acc::load(r).tb(1, 0), D::Stall, Why::NoWay, (Partial, 0, 0))
    .step(
        Acc::load(r).tb(1, 0b010),
        D::Bypass,
        Why::None,
        (Partial, 0, 0),
    )
    .step(
        Acc::load(Probe::Miss).tb(1, 0b010),
        D::Alloc,
        Why::None,
        (Partial, 1, 1),
    )
    // Another CTA's waiter does not make this one eligible.
    .step(
        Acc::load(r).tb(2, 0b011),
        D::Stall,
        Why::NoWay,
        (Partial, 2, 2),
    )
    // Row 8: an eligible blocked miss with the miss queue full stalls on the queue.
    .step(
        Acc::load(r).tb(1, 0b010).no_mq(),
        D::Stall,
        Why::MissQueue,
        (Partial, 2, 2),
    )
    .idle((Partial, 2, 2))
    .done()
}

/// §6.5 e, f, g (FULL after 10 of 10 misses).
fn decisions_full() -> SpecVector {
    let r = Probe::MissNoWay;
    Vb::new(
        "barrier.md §6.5 decisions e-g (FULL, epoch=10)",
        &["epoch=10"],
    )
    .epoch(10, 10, true, Retain)
    .step(Acc::load(r).tb(2, 0), D::Bypass, Why::None, (Full, 0, 0))
    .step(
        Acc::load(r).tb(2, 0).no_mq(),
        D::Stall,
        Why::MissQueue,
        (Full, 1, 1),
    )
    .step(
        Acc::load(Probe::Hit).tb(2, 0),
        D::Hit,
        Why::None,
        (Full, 1, 1),
    )
    // A miss with a free way allocates in every mode (G12).
    .step(
        Acc::load(Probe::Miss).tb(2, 0),
        D::Alloc,
        Why::None,
        (Full, 2, 1),
    )
    .idle((Full, 3, 2))
    .done()
}

/// T1/I8: the same stimulus with `bypass_en` true and false. Off, every would-be BYPASS is
/// the RETAIN-mode STALL (NOWAY), while the monitor still runs.
fn bypass_enable(en: bool) -> SpecVector {
    let r = Probe::MissNoWay;
    let name = format!("barrier.md T1/I8 bypass_en={en} (epoch=10)");
    let set = format!("bypass_en={en}");
    let b = Vb::new(&name, &["epoch=10", &set]).epoch(10, 10, false, Retain);
    let b = if en {
        b.step(Acc::load(r).tb(3, 0), D::Bypass, Why::None, (Full, 0, 0))
            .step(
                Acc::load(r).tb(3, 0).no_mq(),
                D::Stall,
                Why::MissQueue,
                (Full, 1, 1),
            )
            .step(
                Acc::load(Probe::Miss).tb(3, 0),
                D::Alloc,
                Why::None,
                (Full, 1, 1),
            )
            .step(
                Acc::load(Probe::Hit).tb(3, 0),
                D::Hit,
                Why::None,
                (Full, 2, 2),
            )
            .idle((Full, 3, 2))
    } else {
        b.step(Acc::load(r).tb(3, 0), D::Stall, Why::NoWay, (Full, 0, 0))
            .step(
                Acc::load(r).tb(3, 0).no_mq(),
                D::Stall,
                Why::NoWay,
                (Full, 0, 0),
            )
            .step(
                Acc::load(Probe::Miss).tb(3, 0),
                D::Alloc,
                Why::None,
                (Full, 0, 0),
            )
            .step(
                Acc::load(Probe::Hit).tb(3, 0),
                D::Hit,
                Why::None,
                (Full, 1, 1),
            )
            .idle((Full, 2, 1))
    };
    b.done()
}

/// The MSHR-type failures: stalls by default, bypass-eligible with `bypass_on_mshr_full`
/// (G13); a bypassed pending hit counts as a miss.
fn mshr_full(flag: bool) -> SpecVector {
    let name = format!("contract: MSHR-full and merge-limit failures, bypass_on_mshr_full={flag}");
    let set = format!("bypass_on_mshr_full={flag}");
    let b = Vb::new(&name, &["epoch=10", &set]).epoch(10, 10, true, Retain);
    let miss = Acc::load(Probe::Miss).tb(1, 0);
    let pend = Acc::load(Probe::HitReserved).tb(1, 0);
    let b = if flag {
        b.step(miss.no_mshr(), D::Bypass, Why::None, (Full, 0, 0))
            .step(pend.no_merge(), D::Bypass, Why::None, (Full, 1, 1))
            .step(
                miss.no_mshr().no_mq(),
                D::Stall,
                Why::MissQueue,
                (Full, 2, 2),
            )
            .step(
                pend.no_merge().no_mq(),
                D::Stall,
                Why::MissQueue,
                (Full, 2, 2),
            )
            // With an MSHR free but no queue room, a MISS is not MSHR-type: it stalls on MQ.
            .step(miss.no_mq(), D::Stall, Why::MissQueue, (Full, 2, 2))
            .step(miss, D::Alloc, Why::None, (Full, 2, 2))
            .idle((Full, 3, 3))
    } else {
        b.step(miss.no_mshr(), D::Stall, Why::Mshr, (Full, 0, 0))
            .step(pend.no_merge(), D::Stall, Why::Mshr, (Full, 0, 0))
            .step(miss.no_mshr().no_mq(), D::Stall, Why::Mshr, (Full, 0, 0))
            .step(miss.no_mq(), D::Stall, Why::MissQueue, (Full, 0, 0))
            // A pending hit needs no MSHR entry or queue room to merge.
            .step(pend.no_mshr().no_mq(), D::Merge, Why::None, (Full, 0, 0))
            .idle((Full, 1, 0))
    };
    b.done()
}

/// `bypass_on_mshr_full` in PARTIAL mode: only a CTA with a waiter may bypass.
fn mshr_full_partial() -> SpecVector {
    let miss = Acc::load(Probe::Miss).no_mshr();
    Vb::new(
        "contract: bypass_on_mshr_full in PARTIAL mode",
        &["epoch=10", "bypass_on_mshr_full=true"],
    )
    .epoch(10, 7, true, Retain)
    .step(
        miss.tb(5, 0b0001_1111),
        D::Stall,
        Why::Mshr,
        (Partial, 0, 0),
    )
    .step(
        miss.tb(5, 0b0010_0000),
        D::Bypass,
        Why::None,
        (Partial, 0, 0),
    )
    .idle((Partial, 1, 1))
    .done()
}

/// `bypass_all_misses` (G12 ALL_MISSES): an eligible miss is sent around the L1D even when a
/// way is free; otherwise it allocates.
fn all_misses() -> SpecVector {
    let miss = Acc::load(Probe::Miss);
    Vb::new(
        "contract: bypass_all_misses=true",
        &["epoch=4", "bypass_all_misses=true"],
    )
    // RETAIN: not eligible, so every miss allocates; four misses end the epoch in FULL.
    .step(miss.tb(0, 1), D::Alloc, Why::None, (Retain, 0, 0))
    .epoch_rest(4, 1, 1, Retain)
    .step(miss, D::Bypass, Why::None, (Full, 0, 0))
    // Sending needs only queue room: a free MSHR does not turn it into an ALLOC.
    .step(miss.no_mq(), D::Stall, Why::MissQueue, (Full, 1, 1))
    .step(miss.no_mshr(), D::Bypass, Why::None, (Full, 1, 1))
    .step(
        Acc::load(Probe::HitReserved).no_merge(),
        D::Stall,
        Why::Mshr,
        (Full, 2, 2),
    )
    .idle((Full, 2, 2))
    .done()
}

/// `kernel_start` on the edge that ends an epoch: it wins over the new mode and the counters
/// (`all`), over the counters only (`counters`), or does nothing (`none`). Then a launch in
/// the middle of an epoch.
fn kernel_start(reset: &str) -> SpecVector {
    let name = format!("contract: kernel_start with launch_reset={reset} (epoch=4)");
    let set = format!("launch_reset={reset}");
    let mut b = Vb::new(&name, &["epoch=4", &set]);
    let miss = Acc::load(Probe::Miss);
    for j in 0..3 {
        b = b.step(miss, D::Alloc, Why::None, (Retain, j, j));
    }
    // The fourth miss ends the epoch (FULL) in the cycle of the launch.
    b.push(
        Some(miss),
        true,
        Want {
            decision: D::Alloc,
            why: Why::None,
            epoch_end: true,
            mode: Retain,
            acc: 3,
            miss: 3,
        },
    );
    let after = if reset == "all" { Retain } else { Full };
    b = b.step(miss, D::Alloc, Why::None, (after, 0, 0)).step(
        Acc::load(Probe::Hit),
        D::Hit,
        Why::None,
        (after, 1, 1),
    );
    // A launch in the middle of an epoch, with a counted hit in its cycle.
    b.push(
        Some(Acc::load(Probe::Hit)),
        true,
        Want {
            decision: D::Hit,
            why: Why::None,
            epoch_end: false,
            mode: after,
            acc: 2,
            miss: 1,
        },
    );
    let (a, m) = if reset == "none" { (3, 1) } else { (0, 0) };
    b.idle((after, a, m)).done()
}

/// The default thresholds written as the spec writes them (10·M > 9·A, 10·M ≥ 6·A, and
/// RETAIN for A = 0), used to state the expected modes of the cumulative vector.
fn mode_by_hand(a: u64, m: u64) -> Mode {
    if a == 0 {
        Retain
    } else if 10 * m > 9 * a {
        Full
    } else if 10 * m >= 6 * a {
        Partial
    } else {
        Retain
    }
}

/// The cumulative window (§4.1 alternative): 32-bit counters, the mode follows `f` at every
/// edge, never an epoch end; `A = 0` gives RETAIN.
fn cumulative() -> SpecVector {
    let miss = Acc::load(Probe::Miss);
    let hit = Acc::load(Probe::Hit);
    let noway = Acc::load(Probe::MissNoWay);
    let mut b = Vb::new("contract: window=cumulative", &["window=cumulative"])
        .idle((Retain, 0, 0))
        .step(miss, D::Alloc, Why::None, (Retain, 0, 0))
        // f(1, 1): FULL
        .step(hit, D::Hit, Why::None, (Full, 1, 1))
        // f(2, 1): 10 < 12: RETAIN
        .step(miss, D::Alloc, Why::None, (Retain, 2, 1))
        // f(3, 2): 20 >= 18 and 20 <= 27: PARTIAL
        .step(noway.tb(0, 1), D::Bypass, Why::None, (Partial, 3, 2))
        // f(4, 3): 30 >= 24, 30 <= 36: PARTIAL; CTA 1 has no waiter
        .step(noway.tb(1, 1), D::Stall, Why::NoWay, (Partial, 4, 3));
    // Nine more misses, up to f(13, 12): 120 > 117: FULL.
    for j in 0..9 {
        let mode = mode_by_hand(4 + j, 3 + j);
        b = b.step(miss, D::Alloc, Why::None, (mode, 4 + j, 3 + j));
    }
    b.idle((Full, 13, 12))
        .step(hit, D::Hit, Why::None, (Full, 13, 12))
        // f(14, 12): 120 <= 126: PARTIAL
        .idle((Partial, 14, 12))
        .done()
}

/// EPOCH = 1: every counted access ends an epoch and sets the mode from itself alone.
fn epoch_one() -> SpecVector {
    let end = |b: &mut Vb, acc: Acc, d: Decision, mode: Mode| {
        b.push(
            Some(acc),
            false,
            Want {
                decision: d,
                why: Why::None,
                epoch_end: true,
                mode,
                acc: 0,
                miss: 0,
            },
        )
    };
    let mut b = Vb::new("contract: epoch=1", &["epoch=1"]);
    end(&mut b, Acc::load(Probe::Miss), D::Alloc, Retain);
    end(&mut b, Acc::load(Probe::MissNoWay), D::Bypass, Full);
    end(&mut b, Acc::load(Probe::Hit), D::Hit, Full);
    // A stall is not counted: no epoch end, the mode stays.
    b = b.step(
        Acc::load(Probe::MissNoWay),
        D::Stall,
        Why::NoWay,
        (Retain, 0, 0),
    );
    // A store is not counted (count_stores = false): no epoch end.
    b = b.step(Acc::store(Probe::Miss), D::Write, Why::None, (Retain, 0, 0));
    end(&mut b, Acc::load(Probe::HitReserved), D::Merge, Retain);
    b.idle((Retain, 0, 0)).done()
}

/// Extreme thresholds: `full_pct = 100` makes FULL unreachable (100·M > 100·A never holds),
/// `partial_pct = 0` makes every non-empty window at least PARTIAL.
fn extreme_thresholds() -> SpecVector {
    Vb::new(
        "contract: full_pct=100 partial_pct=0 (epoch=4)",
        &["epoch=4", "full_pct=100", "partial_pct=0"],
    )
    .epoch(4, 4, true, Retain)
    .epoch(4, 0, true, Partial)
    .idle((Partial, 0, 0))
    .done()
}

/// The directed vectors of l1d-bypass: every §6.3–§6.5 and T1/I8 item of spec/barrier.md at
/// port level (docs/scheduling.md §9.9), then contract vectors for the optional knobs.
pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        modes_epoch10(),
        modes_epoch1024(614, Retain),
        modes_epoch1024(615, Partial),
        modes_epoch1024(921, Partial),
        modes_epoch1024(922, Full),
        accounting(),
        decisions_retain(),
        decisions_partial(),
        decisions_full(),
        bypass_enable(true),
        bypass_enable(false),
        accounting_with_stores(),
        mshr_full(false),
        mshr_full(true),
        mshr_full_partial(),
        all_misses(),
        kernel_start("all"),
        kernel_start("counters"),
        kernel_start("none"),
        cumulative(),
        epoch_one(),
        extreme_thresholds(),
    ]
}
