//! The `warp-sched` spec vectors (LRR/GTO and the shared cases).

use super::*;

use super::vectors_lh::*;

// ---------------------------------------------------------------------------------------
// Spec vectors

/// A slot mask from a bit string, leftmost character = W0 (the spec's convention).
pub(super) fn slots(s: &str) -> u64 {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .enumerate()
        .fold(0, |m, (k, c)| if c == '1' { m | 1 << k } else { m })
}

pub(super) fn one(v: u64) -> Vec<u64> {
    vec![v]
}

/// Builder for one warp-sched spec vector.
pub(super) struct Vb {
    pub(super) v: SpecVector,
}

impl Vb {
    pub(super) fn new(name: &str, warps: usize, schedulers: usize, policy: &str) -> Vb {
        Vb {
            v: SpecVector {
                name: name.into(),
                unit: "warp-sched",
                sets: vec![
                    format!("warps={warps}"),
                    format!("schedulers={schedulers}"),
                    format!("policy={policy}"),
                ],
                cycles: vec![],
            },
        }
    }
    pub(super) fn reset(mut self) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: vec![("reset", one(1))],
            expect: vec![],
        });
        self
    }
    /// A cycle that only launches `mask`.
    pub(super) fn launch(mut self, mask: u64) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: vec![("launch", one(mask))],
            expect: vec![("issue_valid", one(0))],
        });
        self
    }
    pub(super) fn cycle(
        mut self,
        inputs: &[(&'static str, u64)],
        expect: &[(&'static str, u64)],
    ) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: inputs.iter().map(|&(n, v)| (n, one(v))).collect(),
            expect: expect.iter().map(|&(n, v)| (n, one(v))).collect(),
        });
        self
    }
    /// A cycle where `elig` warps are eligible (has_inst, ready, unit_free all set), one
    /// scheduler, expecting `issue` (None = no issue).
    pub(super) fn elig(self, elig: u64, issue: Option<usize>) -> Vb {
        let e = [("has_inst", elig), ("ready", elig), ("unit_free", elig)];
        match issue {
            Some(w) => self.cycle(&e, &[("issue_valid", 1), ("issue_slot", w as u64)]),
            None => self.cycle(&e, &[("issue_valid", 0), ("issue_slot", 0)]),
        }
    }
    pub(super) fn done(self) -> SpecVector {
        self.v
    }
}

/// §4.1 Vector A: 4 warps, ages W1,W3,W0,W2 (oldest first), all heads COMP.
pub(super) fn vector_a(policy: &str) -> SpecVector {
    let table: [(&str, Option<usize>, Option<usize>); 12] = [
        ("1111", Some(0), Some(1)),
        ("1111", Some(1), Some(1)),
        ("1011", Some(2), Some(3)),
        ("1010", Some(0), Some(0)),
        ("0000", None, None),
        ("0101", Some(1), Some(1)),
        ("1111", Some(2), Some(1)),
        ("0010", Some(2), Some(2)),
        ("1101", Some(3), Some(1)),
        ("1111", Some(0), Some(1)),
        ("0111", Some(1), Some(1)),
        ("1000", Some(0), Some(0)),
    ];
    let mut b = Vb::new(
        &format!("latency_hiding_scheduler.md §4.1 vector A ({policy})"),
        4,
        1,
        policy,
    )
    .reset()
    .launch(slots("0100"))
    .launch(slots("0001"))
    .launch(slots("1000"))
    .launch(slots("0010"));
    for (k, (e, lrr, gto)) in table.iter().enumerate() {
        let issue = if policy == "lrr" { *lrr } else { *gto };
        b = b.elig(slots(e), issue);
        if k == 0 {
            // The ages the table assumes: W0 has W1,W3 older; W2 has W1,W3,W0; W3 has W1.
            let c = b.v.cycles.last_mut().unwrap();
            c.expect.push(("dbg_resident", one(0xf)));
            c.expect.push(("dbg_older", one(0x2b0a)));
            c.expect.push(("dbg_last_valid", one(0)));
        }
    }
    b.done()
}

/// §4.2 Vector B, LRR and GTO columns: 6 warps, ages W1,W3,W5,W0,W2,W4 (oldest first).
/// One row of Vector B: class, ready, mem_ok, LRR issue, GTO issue.
pub(super) type RowB = (
    &'static str,
    &'static str,
    bool,
    Option<usize>,
    Option<usize>,
);

pub(super) fn vector_b(policy: &str) -> SpecVector {
    let table: [RowB; 12] = [
        ("CCCMCM", "111111", true, Some(0), Some(1)),
        ("CCCMCM", "111111", true, Some(1), Some(1)),
        ("CCCMCM", "111111", false, Some(2), Some(1)),
        ("CCCCCM", "101111", true, Some(3), Some(3)),
        ("CCCCCC", "111111", true, Some(4), Some(3)),
        ("MCCCCC", "011111", true, Some(5), Some(3)),
        ("MCCCMC", "111111", true, Some(0), Some(3)),
        ("MCCCMC", "111111", true, Some(1), Some(3)),
        ("CCCCMC", "111111", false, Some(2), Some(3)),
        ("--CCCC", "001111", true, Some(3), Some(3)),
        ("CCCCCC", "110000", true, Some(0), Some(1)),
        ("CCCCCC", "000000", true, None, None),
    ];
    let mut b = Vb::new(
        &format!("latency_hiding_scheduler.md §4.2 vector B ({policy})"),
        6,
        1,
        policy,
    )
    .reset();
    for w in [1, 3, 5, 0, 2, 4] {
        b = b.launch(1 << w);
    }
    for (class, ready, mem_ok, lrr, gto) in table {
        let bits = |want: char| {
            class
                .chars()
                .enumerate()
                .fold(0u64, |m, (k, c)| if c == want { m | 1 << k } else { m })
        };
        let (comp, mem) = (bits('C'), bits('M'));
        let unit_free = comp | if mem_ok { mem } else { 0 };
        let issue = if policy == "lrr" { lrr } else { gto };
        let expect: Vec<(&'static str, u64)> = match issue {
            Some(w) => vec![
                ("issue_valid", 1),
                ("issue_slot", w as u64),
                ("issue_is_mem", mem >> w & 1),
            ],
            None => vec![("issue_valid", 0), ("issue_is_mem", 0)],
        };
        b = b.cycle(
            &[
                ("has_inst", comp | mem),
                ("ready", slots(ready)),
                ("unit_free", unit_free),
                ("is_mem", mem),
            ],
            &expect,
        );
    }
    b.done()
}

/// §7.3 S2: LRR fairness — always-eligible warps issue in a fixed cyclic order, and a warp
/// that stays eligible issues within n cycles.
pub(super) fn s2_lrr_fairness() -> SpecVector {
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §7.3 S2 LRR fairness",
        5,
        1,
        "lrr",
    )
    .reset()
    .launch(0b11111);
    for k in 0..12 {
        b = b.elig(0b11111, Some(k % 5));
    }
    // Last issued W1; W3 eligible throughout, the others come and go.
    b.elig(slots("11011"), Some(3))
        .elig(slots("10011"), Some(4))
        .elig(slots("11010"), Some(0))
        .elig(slots("01110"), Some(1))
        .elig(slots("00010"), Some(3))
        .elig(slots("10010"), Some(0))
        .done()
}

/// §7.3 S3: GTO stickiness — the greedy warp keeps issuing while eligible even when older
/// warps are eligible; an always-eligible second warp never issues.
pub(super) fn s3_gto_stickiness() -> SpecVector {
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §7.3 S3 GTO stickiness",
        4,
        1,
        "gto",
    )
    .reset()
    .launch(0b1111) // ages = slot order
    .elig(slots("0010"), Some(2));
    for _ in 0..3 {
        b = b.elig(slots("1111"), Some(2));
    }
    b = b
        .elig(slots("1101"), Some(0))
        .elig(slots("1111"), Some(0))
        .elig(slots("0001"), Some(3));
    for _ in 0..5 {
        b = b.elig(slots("1001"), Some(3));
    }
    b.done()
}

/// §7.3 S4: the greedy warp exits and a new warp is launched into its slot the next cycle:
/// it has no greedy priority (GTO takes the oldest), and LRR still rotates from that slot.
pub(super) fn s4_exit_relaunch(policy: &str) -> SpecVector {
    let (first, second) = if policy == "gto" { (0, 0) } else { (3, 0) };
    Vb::new(
        &format!(
            "latency_hiding_scheduler.md §7.3 S4 exit and relaunch into the same slot ({policy})"
        ),
        4,
        1,
        policy,
    )
    .reset()
    .launch(0b1111)
    .elig(slots("0010"), Some(2))
    // W2 issues again and exits at the same edge: the exit wins over the greedy set.
    .cycle(
        &[
            ("has_inst", slots("0010")),
            ("ready", slots("0010")),
            ("unit_free", slots("0010")),
            ("exit", slots("0010")),
        ],
        &[
            ("issue_valid", 1),
            ("issue_slot", 2),
            ("dbg_greedy_valid", 1),
            ("dbg_last_issued", 2),
        ],
    )
    .cycle(
        &[("launch", slots("0010"))],
        &[
            ("issue_valid", 0),
            ("dbg_resident", slots("1101")),
            ("dbg_last_valid", 1),
            ("dbg_last_issued", 2),
            ("dbg_greedy_valid", 0),
        ],
    )
    // The new W2 is the youngest: ages W0,W1,W3,W2.
    .cycle(
        &[
            ("has_inst", 0b1111),
            ("ready", 0b1111),
            ("unit_free", 0b1111),
        ],
        &[
            ("issue_valid", 1),
            ("issue_slot", first),
            ("dbg_resident", 0b1111),
            ("dbg_greedy_valid", 0),
            ("dbg_last_issued", 2),
            ("dbg_older", 0x3b10),
        ],
    )
    .elig(0b1111, Some(second))
    .done()
}

/// §7.3 S5: age ≠ slot — CTA A in slots 4–7, then CTA B in slots 0–3: GTO prefers 4–7.
pub(super) fn s5_age_not_slot() -> SpecVector {
    let all = slots("11111111");
    Vb::new(
        "latency_hiding_scheduler.md §7.3 S5 age is not slot order",
        8,
        1,
        "gto",
    )
    .reset()
    .launch(slots("00001111"))
    .launch(slots("11110000"))
    .cycle(
        &[("has_inst", all), ("ready", all), ("unit_free", all)],
        &[
            ("issue_valid", 1),
            ("issue_slot", 4),
            ("dbg_resident", 0xff),
            ("dbg_older", 0x7030_1000_f7f3_f1f0),
        ],
    )
    .elig(slots("11110111"), Some(5))
    .elig(slots("11110001"), Some(7))
    .elig(slots("11110000"), Some(0))
    .elig(all, Some(0))
    .done()
}

/// §7.3 S6 for LRR/GTO: the LD/ST pipe is busy (unit_free = 0 for memory heads): the
/// policies skip those warps in their order; issue_is_mem follows the issued warp.
pub(super) fn s6_ldst_busy(policy: &str) -> SpecVector {
    let lrr = policy == "lrr";
    let mem = slots("1100");
    let all = slots("1111");
    let c = |ready: u64, unit_free: u64| {
        [
            ("has_inst", all),
            ("ready", ready),
            ("unit_free", unit_free),
            ("is_mem", mem),
        ]
    };
    let busy = slots("0011");
    let x = |w: u64, m: u64| [("issue_valid", 1), ("issue_slot", w), ("issue_is_mem", m)];
    Vb::new(
        &format!("latency_hiding_scheduler.md §7.3 S6 LD/ST busy ({policy})"),
        4,
        1,
        policy,
    )
    .reset()
    .launch(all)
    .cycle(&c(all, busy), &x(2, 0))
    .cycle(&c(all, busy), &if lrr { x(3, 0) } else { x(2, 0) })
    .cycle(&c(all, all), &if lrr { x(0, 1) } else { x(2, 0) })
    .cycle(&c(slots("1101"), all), &if lrr { x(1, 1) } else { x(0, 1) })
    .done()
}

/// Two schedulers: slot w belongs to scheduler w mod 2; both issue in the same cycle, each
/// from its own slots.
pub(super) fn two_schedulers(policy: &str) -> SpecVector {
    let lrr = policy == "lrr";
    let all = slots("111111");
    let even = slots("101010");
    let odd = slots("010101");
    // issue_slot packs 3 bits per scheduler.
    let pair = |a: u64, b: u64| a | b << 3;
    let e = |m: u64, is_mem: u64| {
        [
            ("has_inst", m),
            ("ready", m),
            ("unit_free", m),
            ("is_mem", is_mem),
        ]
    };
    let b = Vb::new(
        &format!("warp-sched two schedulers issue from their own slots ({policy})"),
        6,
        2,
        policy,
    )
    .reset()
    .launch(all)
    .cycle(
        &e(all, slots("010000")),
        &[
            ("issue_valid", 0b11),
            ("issue_slot", pair(0, 1)),
            ("issue_is_mem", 0b10),
        ],
    );
    if lrr {
        b.cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(2, 3))],
        )
        .cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(4, 5))],
        )
        .cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(0, 1))],
        )
        .cycle(
            &e(even, 0),
            &[("issue_valid", 0b01), ("issue_slot", pair(2, 0))],
        )
        .cycle(
            &e(odd, 0),
            &[
                ("issue_valid", 0b10),
                ("issue_slot", pair(0, 3)),
                ("dbg_last_valid", 0b11),
                ("dbg_last_issued", pair(2, 1)),
            ],
        )
        .done()
    } else {
        b.cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(0, 1))],
        )
        .cycle(
            &e(slots("001111"), 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(2, 3))],
        )
        .cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(2, 3))],
        )
        .cycle(
            &e(even, 0),
            &[("issue_valid", 0b01), ("issue_slot", pair(2, 0))],
        )
        .cycle(
            &e(odd, 0),
            &[
                ("issue_valid", 0b10),
                ("issue_slot", pair(0, 3)),
                ("dbg_greedy_valid", 0b11),
                ("dbg_last_issued", pair(2, 3)),
            ],
        )
        .done()
    }
}

/// Exit and launch of one slot in one cycle (the exit applies first: the slot ends resident
/// and youngest), and a launch into a resident slot (the warp is replaced, youngest again);
/// both end the greediness of the last issued warp.
pub(super) fn relaunch_rules(policy: &str) -> SpecVector {
    let lrr = policy == "lrr";
    Vb::new(
        &format!("warp-sched exit+launch in one cycle and launch into a resident slot ({policy})"),
        4,
        1,
        policy,
    )
    .reset()
    .launch(0b1111)
    .elig(slots("0100"), Some(1))
    .cycle(
        &[("exit", slots("0100")), ("launch", slots("0100"))],
        &[("issue_valid", 0), ("dbg_greedy_valid", 1)],
    )
    // Ages now W0,W2,W3,W1.
    .cycle(
        &[("launch", slots("0010"))],
        &[
            ("issue_valid", 0),
            ("dbg_resident", 0b1111),
            ("dbg_greedy_valid", 0),
            ("dbg_last_issued", 1),
            ("dbg_older", 0x51d0),
        ],
    )
    // Ages now W0,W3,W1,W2.
    .cycle(
        &[
            ("has_inst", 0b1111),
            ("ready", 0b1111),
            ("unit_free", 0b1111),
        ],
        &[
            ("issue_valid", 1),
            ("issue_slot", if lrr { 2 } else { 0 }),
            ("dbg_older", 0x1b90),
        ],
    )
    .elig(slots("0111"), Some(3))
    .done()
}

/// The directed vectors of warp-sched (spec/latency_hiding_scheduler.md §4 and §7.3).
pub fn spec_vectors() -> Vec<SpecVector> {
    let mut v = vec![];
    for p in ["lrr", "gto"] {
        v.push(vector_a(p));
        v.push(vector_b(p));
        v.push(s4_exit_relaunch(p));
        v.push(s6_ldst_busy(p));
        v.push(two_schedulers(p));
        v.push(relaunch_rules(p));
    }
    v.push(s2_lrr_fairness());
    v.push(s3_gto_stickiness());
    v.push(s5_age_not_slot());
    v.extend(lh_vectors());
    v.extend(bar_vectors());
    v
}
