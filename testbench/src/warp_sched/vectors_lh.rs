//! Spec vectors of the latency-hiding policies (LH §4) and the barrier-aware policy (BAR §6).

use super::*;

use super::vectors::*;

impl Vb {
    /// One more `--set` for the vector.
    pub(super) fn set(mut self, kv: &str) -> Vb {
        self.v.sets.push(kv.to_string());
        self
    }
    /// Add expectations to the last cycle.
    pub(super) fn also(mut self, expect: &[(&'static str, u64)]) -> Vb {
        let c = self.v.cycles.last_mut().expect("a cycle");
        c.expect.extend(expect.iter().map(|&(n, v)| (n, one(v))));
        self
    }
}

/// Recency counters packed `bits` per slot (`dbg_rec_cnt`, one word for these sizes).
pub(super) fn packed(cnt: &[u64], bits: usize) -> u64 {
    cnt.iter()
        .enumerate()
        .fold(0, |m, (k, &c)| m | c << (k * bits))
}

/// LH §4.2 Vector B, columns MTO, MOTRR and MOTRR+R; MOTRR+R also checks the Recency Register
/// state columns ("R in" in the row, "R out"/"cnt out" in the next cycle).
pub(super) fn vector_b_class_split(policy: &str) -> SpecVector {
    let class = [
        "CCCMCM", "CCCMCM", "CCCMCM", "CCCCCM", "CCCCCC", "MCCCCC", "MCCCMC", "MCCCMC", "CCCCMC",
        "--CCCC", "CCCCCC", "CCCCCC",
    ];
    let ready = [
        "111111", "111111", "111111", "101111", "111111", "011111", "111111", "111111", "111111",
        "001111", "110000", "000000",
    ];
    let mem_ok = [1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1];
    let column: [i8; 12] = match policy {
        "mto" => [3, 3, 1, 5, 5, 5, 0, 0, 0, 3, 1, -1],
        "motrr" => [3, 3, 4, 5, 0, 1, 0, 0, 1, 2, 0, -1],
        _ => [3, 3, 0, 5, 0, 1, 0, 0, 1, 3, 0, -1],
    };
    let completions = [
        "001000", "100000", "", "000010", "010000", "", "000100", "000001", "", "001000", "",
        "100010",
    ];
    let r_out = [
        "001000", "101000", "101000", "101010", "110010", "110010", "010110", "010101", "010101",
        "001101", "001101", "101010",
    ];
    let cnt_out: [[u64; 6]; 12] = [
        [63, 63, 0, 63, 63, 63],
        [0, 63, 1, 63, 63, 63],
        [0, 63, 1, 63, 63, 63],
        [1, 63, 2, 63, 0, 63],
        [2, 0, 3, 63, 1, 63],
        [2, 0, 3, 63, 1, 63],
        [3, 1, 4, 0, 2, 63],
        [4, 2, 5, 1, 3, 0],
        [4, 2, 5, 1, 3, 0],
        [5, 3, 0, 2, 4, 1],
        [5, 3, 0, 2, 4, 1],
        [1, 5, 2, 4, 0, 3],
    ];
    let recency = policy == "motrr-recency";
    let mut b = Vb::new(
        &format!("latency_hiding_scheduler.md §4.2 vector B ({policy})"),
        6,
        1,
        policy,
    );
    if recency {
        b = b.set("n_cpl=2");
    }
    b = b.reset();
    for w in [1, 3, 5, 0, 2, 4] {
        b = b.launch(1 << w);
    }
    for k in 0..12 {
        let bitsof = |want: char| {
            class[k]
                .chars()
                .enumerate()
                .fold(0u64, |m, (j, c)| if c == want { m | 1 << j } else { m })
        };
        let (comp, mem) = (bitsof('C'), bitsof('M'));
        let unit_free = comp | if mem_ok[k] == 1 { mem } else { 0 };
        let mut inputs = vec![
            ("has_inst", comp | mem),
            ("ready", slots(ready[k])),
            ("unit_free", unit_free),
            ("is_mem", mem),
        ];
        let mut expect: Vec<(&'static str, u64)> = match column[k] {
            -1 => vec![("issue_valid", 0), ("issue_is_mem", 0)],
            w => vec![
                ("issue_valid", 1),
                ("issue_slot", w as u64),
                ("issue_is_mem", mem >> w & 1),
            ],
        };
        if recency {
            inputs.push(("mem_complete", slots(completions[k])));
            let (r_in, cnt_in) = if k == 0 {
                (0, [63; 6])
            } else {
                (slots(r_out[k - 1]), cnt_out[k - 1])
            };
            expect.extend([
                ("dbg_recent", r_in),
                ("dbg_rec_cnt", packed(&cnt_in, 6)),
                ("dbg_w_active", 6),
            ]);
        }
        b = b.cycle(&inputs, &expect);
    }
    if recency {
        b = b.cycle(
            &[],
            &[
                ("dbg_recent", slots(r_out[11])),
                ("dbg_rec_cnt", packed(&cnt_out[11], 6)),
            ],
        );
        assert_eq!(packed(&cnt_out[11], 6), 0xc0102141);
    }
    b.done()
}

/// LH §4.3 Vector C: the Recency Register with launches and exits (8 slots, no issue). Each
/// step's state is checked in the next cycle.
pub(super) fn vector_c() -> SpecVector {
    // (exits, launches, completions, W_active, R, cnt) per step.
    type Step = (
        &'static str,
        &'static str,
        &'static str,
        u64,
        &'static str,
        [u64; 8],
    );
    let steps: [Step; 12] = [
        (
            "",
            "",
            "10000000",
            4,
            "10000000",
            [0, 63, 63, 63, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "01000000",
            4,
            "11000000",
            [1, 0, 63, 63, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "00100000",
            4,
            "01100000",
            [2, 1, 0, 63, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "01000000",
            4,
            "01100000",
            [3, 0, 1, 63, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "00010000",
            4,
            "01010000",
            [4, 1, 2, 0, 63, 63, 63, 63],
        ),
        (
            "",
            "00001100",
            "",
            6,
            "01010000",
            [4, 1, 2, 0, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "00001000",
            6,
            "01011000",
            [5, 2, 3, 1, 0, 63, 63, 63],
        ),
        (
            "",
            "",
            "00000100",
            6,
            "00011100",
            [6, 3, 4, 2, 1, 0, 63, 63],
        ),
        (
            "00001000",
            "",
            "",
            5,
            "00010100",
            [6, 3, 4, 2, 63, 0, 63, 63],
        ),
        (
            "00100100",
            "",
            "",
            3,
            "00010000",
            [6, 3, 63, 2, 63, 63, 63, 63],
        ),
        (
            "",
            "",
            "10000000",
            3,
            "10000000",
            [0, 4, 63, 3, 63, 63, 63, 63],
        ),
        (
            "",
            "00000010",
            "00000010",
            4,
            "10000010",
            [1, 5, 63, 4, 63, 63, 0, 63],
        ),
    ];
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §4.3 vector C (recency register, launches and exits)",
        8,
        1,
        "motrr-recency",
    )
    .reset()
    .launch(slots("11110000"));
    // Step k's inputs in cycle k, its state in cycle k + 1 (a trailing cycle after step 11).
    for k in 0..=steps.len() {
        let expect = match k.checked_sub(1).map(|p| &steps[p]) {
            Some(p) => vec![
                ("dbg_w_active", p.3),
                ("dbg_recent", slots(p.4)),
                ("dbg_rec_cnt", packed(&p.5, 6)),
                ("issue_valid", 0),
            ],
            None => vec![],
        };
        let inputs = match steps.get(k) {
            Some(st) => vec![
                ("exit", slots(st.0)),
                ("launch", slots(st.1)),
                ("mem_complete", slots(st.2)),
            ],
            None => vec![],
        };
        b = b.cycle(&inputs, &expect);
    }
    b.done()
}

/// LH §4.3 saturation/tie case (S9): counters saturate at 63; a tie at 63 evicts the lowest
/// slot.
pub(super) fn vector_c_saturation() -> SpecVector {
    let cpl = |w: usize| [("mem_complete", 1u64 << w)];
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §4.3 saturation and tie (S9)",
        6,
        1,
        "motrr-recency",
    )
    .reset()
    .launch(0b111111)
    .cycle(&cpl(0), &[])
    .cycle(&cpl(2), &[])
    .cycle(&cpl(1), &[]);
    b = b.cycle(
        &cpl(1),
        &[
            ("dbg_recent", slots("111000")),
            ("dbg_rec_cnt", packed(&[2, 0, 1, 63, 63, 63], 6)),
        ],
    );
    for _ in 1..70 {
        b = b.cycle(&cpl(1), &[]);
    }
    b.cycle(
        &cpl(3),
        &[
            ("dbg_recent", slots("111000")),
            ("dbg_rec_cnt", packed(&[63, 0, 63, 63, 63, 63], 6)),
        ],
    )
    .cycle(
        &[],
        &[
            ("dbg_recent", slots("011100")),
            ("dbg_rec_cnt", packed(&[63, 1, 63, 0, 63, 63], 6)),
        ],
    )
    .done()
}

/// LH §4.3b Vector E (MOTRR, 3 warps): `mem_order` and `split_ptr` (G1, G2, S11).
pub(super) fn vector_e(knob: &str) -> SpecVector {
    let rows: [(&str, &str, bool); 7] = [
        ("MMC", "011", true),
        ("MMC", "111", true),
        ("MCM", "111", true),
        ("CCC", "001", true),
        ("MCM", "111", true),
        ("MCM", "111", true),
        ("MCC", "111", false),
    ];
    let column: [u64; 7] = match knob {
        "mem_order=oldest" => [1, 0, 0, 2, 0, 0, 1],
        "split_ptr=true" => [1, 1, 0, 2, 0, 0, 1],
        _ => [1, 1, 0, 2, 2, 2, 1],
    };
    let mut b = Vb::new(
        &format!("latency_hiding_scheduler.md §4.3b vector E ({knob})"),
        3,
        1,
        "motrr",
    );
    if knob != "defaults" {
        b = b.set(knob);
    }
    b = b.reset().launch(0b111);
    for (k, (class, ready, mem_ok)) in rows.iter().enumerate() {
        let bitsof = |want: char| {
            class
                .chars()
                .enumerate()
                .fold(0u64, |m, (j, c)| if c == want { m | 1 << j } else { m })
        };
        let (comp, mem) = (bitsof('C'), bitsof('M'));
        let unit_free = comp | if *mem_ok { mem } else { 0 };
        let w = column[k];
        b = b.cycle(
            &[
                ("has_inst", comp | mem),
                ("ready", slots(ready)),
                ("unit_free", unit_free),
                ("is_mem", mem),
            ],
            &[
                ("issue_valid", 1),
                ("issue_slot", w),
                ("issue_is_mem", mem >> w & 1),
            ],
        );
        if knob == "split_ptr=true" && k == 4 {
            b = b.also(&[
                ("dbg_last_valid", 1),
                ("dbg_last_issued", 0),
                ("dbg_cmp_last_valid", 1),
                ("dbg_cmp_last_issued", 2),
            ]);
        }
    }
    b.done()
}

/// LH §4.4 Vector D: the closed-loop programs W0 CCM, W1 CCM, W2 CCCM, W3 MCMM (latency 6).
/// The inputs follow from the expected issue column (walked here, not by running a model).
pub(super) fn vector_d(policy: &str, trigger_issue: bool) -> SpecVector {
    let programs = ["CCM", "CCM", "CCCM", "MCMM"];
    let (column, runtime) = match policy {
        "lrr" => (
            "W0.C W1.C W2.C W3.M W0.C W1.C W2.C W0.M W1.M W2.C W3.C W2.M W3.M - - - - - W3.M",
            24,
        ),
        "gto" => (
            "W0.C W0.C W0.M W1.C W1.C W1.M W2.C W2.C W2.C W2.M W3.M - - - - - W3.C W3.M - - - - - W3.M",
            29,
        ),
        "mto" => (
            "W3.M W0.C W0.C W0.M W1.C W1.C W1.M W2.C W2.C W2.C W2.M W3.C W3.M - - - - - W3.M",
            24,
        ),
        "motrr" => (
            "W3.M W0.C W1.C W2.C W0.C W0.M W1.C W1.M W2.C W3.C W3.M W2.C W2.M - - - W3.M",
            22,
        ),
        _ => (
            "W3.M W0.C W1.C W2.C W0.C W0.M W3.C W3.M W1.C W1.M W2.C W2.C W2.M W3.M",
            19,
        ),
    };
    let issues: Vec<Option<(usize, char)>> = column
        .split_whitespace()
        .map(|t| {
            (t != "-").then(|| {
                let w = t[1..2].parse::<usize>().unwrap();
                (w, t.chars().last().unwrap())
            })
        })
        .collect();
    // MOTRR+R: R after each cycle (a change at the listed cycle, kept until the next).
    let r_changes: &[(usize, &str)] = if trigger_issue {
        &[
            (0, "0001"),
            (5, "1001"),
            (9, "0101"),
            (12, "0110"),
            (13, "0011"),
        ]
    } else {
        &[
            (5, "0001"),
            (10, "1001"),
            (14, "0101"),
            (17, "0110"),
            (18, "0011"),
        ]
    };
    let recency = policy == "motrr-recency";
    let name = if trigger_issue {
        format!("latency_hiding_scheduler.md §4.4 vector D ({policy}, rec_trigger=issue, S11)")
    } else {
        format!("latency_hiding_scheduler.md §4.4 vector D ({policy})")
    };
    let mut b = Vb::new(&name, 4, 1, policy);
    if trigger_issue {
        b = b.set("rec_trigger=issue");
    }
    b = b.reset().launch(0b1111);
    let mut pc = [0usize; 4];
    let mut rdy = [0usize; 4];
    let mut mem_issue_at: Vec<(usize, usize)> = vec![];
    let mut r_after = 0u64;
    for t in 0..runtime {
        let mut has_inst = 0u64;
        let mut is_mem = 0u64;
        let mut ready = 0u64;
        for k in 0..4 {
            if pc[k] < programs[k].len() {
                has_inst |= 1 << k;
                if programs[k].as_bytes()[pc[k]] == b'M' {
                    is_mem |= 1 << k;
                }
            }
            if t >= rdy[k] {
                ready |= 1 << k;
            }
        }
        let cpl = mem_issue_at
            .iter()
            .filter(|&&(at, _)| at + 5 == t)
            .fold(0u64, |m, &(_, k)| m | 1 << k);
        let mut inputs = vec![
            ("has_inst", has_inst),
            ("ready", ready),
            ("unit_free", 0b1111),
            ("is_mem", is_mem),
        ];
        if recency && !trigger_issue {
            inputs.push(("mem_complete", cpl));
        }
        let issue = issues.get(t).copied().flatten();
        let mut expect = match issue {
            Some((w, class)) => {
                assert!(
                    (has_inst & ready) >> w & 1 != 0 && (is_mem >> w & 1 == 1) == (class == 'M'),
                    "vector D ({policy}) cycle {t}: W{w}.{class} cannot issue"
                );
                pc[w] += 1;
                rdy[w] = if class == 'M' {
                    mem_issue_at.push((t, w));
                    t + 6
                } else {
                    t + 1
                };
                vec![
                    ("issue_valid", 1),
                    ("issue_slot", w as u64),
                    ("issue_is_mem", (class == 'M') as u64),
                ]
            }
            None => vec![("issue_valid", 0)],
        };
        if recency {
            expect.push(("dbg_recent", r_after));
        }
        b = b.cycle(&inputs, &expect);
        if let Some(&(_, r)) = r_changes.iter().find(|&&(c, _)| c == t) {
            r_after = slots(r);
        }
    }
    let last_completion = mem_issue_at.iter().map(|&(at, _)| at + 5).max().unwrap();
    assert_eq!(last_completion + 1, runtime, "vector D ({policy}) runtime");
    if recency {
        b = b.cycle(&[], &[("dbg_recent", r_after), ("issue_valid", 0)]);
    }
    b.done()
}

/// LH G17: MTO's compute queue, greedy then oldest (default) or oldest only.
pub(super) fn mto_comp_order(order: &str) -> SpecVector {
    let comp = |ready: &str| {
        [
            ("has_inst", 0b111),
            ("unit_free", 0b111),
            ("ready", slots(ready)),
        ]
    };
    let x = |w: u64| [("issue_valid", 1), ("issue_slot", w), ("issue_is_mem", 0)];
    let greedy = order == "gto";
    Vb::new(
        &format!("latency_hiding_scheduler.md G17 mto_comp_order={order}"),
        3,
        1,
        "mto",
    )
    .set(&format!("mto_comp_order={order}"))
    .reset()
    .launch(0b111)
    .cycle(&comp("011"), &x(1))
    .cycle(&comp("111"), &x(if greedy { 1 } else { 0 }))
    .cycle(&comp("101"), &x(0))
    .cycle(&comp("111"), &x(0))
    .done()
}

/// LH S8: W_active = 1 keeps R empty; W_active = 5 (odd) allows 2 recent warps, the latest.
pub(super) fn s8_cap_edge() -> SpecVector {
    let cpl = |w: usize| [("mem_complete", 1u64 << w)];
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §7.3 S8 cap edge",
        6,
        1,
        "motrr-recency",
    )
    .reset()
    .launch(0b000001);
    for _ in 0..3 {
        b = b.cycle(&cpl(0), &[]);
    }
    b = b.cycle(
        &[("launch", slots("011110"))],
        &[
            ("dbg_recent", 0),
            ("dbg_rec_cnt", packed(&[0, 63, 63, 63, 63, 63], 6)),
            ("dbg_w_active", 1),
        ],
    );
    let mut recent: Vec<usize> = vec![];
    for w in 0..5 {
        let r = recent.iter().fold(0u64, |m, &x| m | 1 << x);
        b = b.cycle(&cpl(w), &[("dbg_recent", r), ("dbg_w_active", 5)]);
        recent.push(w);
        if recent.len() > 2 {
            recent.remove(0);
        }
    }
    let r = recent.iter().fold(0u64, |m, &x| m | 1 << x);
    b.cycle(&[], &[("dbg_recent", r)]).done()
}

/// LH S10: two schedulers share one Recency Register; the cap is SM-wide (48 warps: 24).
pub(super) fn s10_shared_register() -> SpecVector {
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §7.3 S10 shared recency register",
        48,
        2,
        "motrr-recency",
    )
    .reset()
    .launch(low_bits(48));
    let mut recent: Vec<usize> = vec![];
    for w in 0..48 {
        let r = recent.iter().fold(0u64, |m, &x| m | 1 << x);
        b = b.cycle(&[("mem_complete", 1u64 << w)], &[("dbg_recent", r)]);
        recent.push(w);
        if recent.len() > 24 {
            // The oldest event has the largest count: an odd slot's event evicts an even
            // slot (and vice versa).
            recent.remove(0);
        }
    }
    let r = recent.iter().fold(0u64, |m, &x| m | 1 << x);
    b.cycle(&[], &[("dbg_recent", r), ("dbg_w_active", 48)])
        .done()
}

/// LH S11: `split_ptr=true` leaves LRR and GTO untouched (Vectors A and B unchanged).
pub(super) fn split_ptr_leaves_baselines(policy: &str) -> Vec<SpecVector> {
    [vector_a(policy), vector_b(policy)]
        .into_iter()
        .map(|mut v| {
            v.name = format!("{} with split_ptr=true (S11)", v.name);
            v.sets.push("split_ptr=true".into());
            v
        })
        .collect()
}

/// The vectors of the latency-hiding policies.
pub(super) fn lh_vectors() -> Vec<SpecVector> {
    let mut v = vec![];
    for p in ["mto", "motrr", "motrr-recency"] {
        v.push(vector_b_class_split(p));
    }
    v.push(vector_c());
    v.push(vector_c_saturation());
    for k in ["defaults", "mem_order=oldest", "split_ptr=true"] {
        v.push(vector_e(k));
    }
    for p in ["lrr", "gto", "mto", "motrr", "motrr-recency"] {
        v.push(vector_d(p, false));
    }
    v.push(vector_d("motrr-recency", true));
    v.push(s8_cap_edge());
    v.push(mto_comp_order("gto"));
    v.push(mto_comp_order("oldest"));
    v.push(s10_shared_register());
    for p in ["lrr", "gto"] {
        v.extend(split_ptr_leaves_baselines(p));
    }
    v
}

/// `launch_tb` with field `w` = `tb(w)` (`tbb` bits each), one word.
pub(super) fn tb_fields(warps: usize, tbb: usize, tb: impl Fn(usize) -> u64) -> u64 {
    (0..warps).fold(0, |m, w| m | tb(w) << (w * tbb))
}

/// BAR §6.1 setup: 12 warps, 3 CTAs of 4 (TB0 = w0–3, TB1 = w4–7, TB2 = w8–11), one scheduler.
pub(super) fn bar_setup(name: &str) -> Vb {
    let launch_tb = tb_fields(12, 3, |w| (w / 4) as u64);
    assert_eq!(launch_tb, 0x4_9224_9000);
    Vb::new(name, 12, 1, "bar-gto").set("ctas=8").reset().cycle(
        &[("launch", 0xfff), ("launch_tb", launch_tb)],
        &[("issue_valid", 0)],
    )
}

/// BAR §6.1 event of one row: (event warp, what it does).
#[derive(Clone, Copy)]
pub(super) enum BarEvent {
    Bar(usize),
    Exit(usize),
    Issue(usize),
    None,
}

/// Drive one §6.1 row's event: the event warp is the only ready warp.
pub(super) fn bar_event(b: Vb, ev: BarEvent, expect: &[(&'static str, u64)]) -> Vb {
    let base = [("has_inst", 0xfff), ("unit_free", 0xfff)];
    let mut inputs: Vec<(&'static str, u64)> = base.to_vec();
    let mut exp: Vec<(&'static str, u64)> = expect.to_vec();
    match ev {
        BarEvent::Bar(w) => {
            inputs.extend([("ready", 1 << w), ("is_bar", 1 << w)]);
            exp.extend([("issue_valid", 1), ("issue_slot", w as u64)]);
        }
        BarEvent::Exit(w) => {
            inputs.extend([("ready", 1 << w), ("exit", 1 << w)]);
            exp.extend([("issue_valid", 1), ("issue_slot", w as u64)]);
        }
        BarEvent::Issue(w) => {
            inputs.push(("ready", 1 << w));
            exp.extend([("issue_valid", 1), ("issue_slot", w as u64)]);
        }
        BarEvent::None => exp.push(("issue_valid", 0)),
    }
    b.cycle(&inputs, &exp)
}

/// One probe cycle of a priority list: every warp ready except the first `j` of `list`.
pub(super) fn bar_probe(b: Vb, list: &[usize], j: usize) -> Vb {
    let skip = list[..j].iter().fold(0u64, |m, &w| m | 1 << w);
    let expect = match list.get(j) {
        Some(&w) => vec![("issue_valid", 1), ("issue_slot", w as u64)],
        None => vec![("issue_valid", 0)],
    };
    b.cycle(
        &[
            ("has_inst", 0xfff),
            ("unit_free", 0xfff),
            ("ready", 0xfff & !skip),
        ],
        &expect,
    )
}

/// The rows of BAR §6.1: event, (cnt, live) per TB at the start, waiting at the start,
/// priority list, bar_release of the row.
pub(super) type BarRow = (
    BarEvent,
    [u64; 3],
    [u64; 3],
    &'static [usize],
    &'static [usize],
    u64,
);

pub(super) const BAR_ROWS: [BarRow; 9] = [
    (
        BarEvent::Bar(5),
        [0, 0, 0],
        [4, 4, 4],
        &[],
        &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
        0,
    ),
    (
        BarEvent::Bar(9),
        [0, 1, 0],
        [4, 4, 4],
        &[5],
        &[4, 6, 7, 0, 1, 2, 3, 8, 9, 10, 11],
        0,
    ),
    (
        BarEvent::Bar(10),
        [0, 1, 1],
        [4, 4, 4],
        &[5, 9],
        &[4, 6, 7, 8, 10, 11, 0, 1, 2, 3],
        0,
    ),
    (
        BarEvent::Bar(8),
        [0, 1, 2],
        [4, 4, 4],
        &[5, 9, 10],
        &[8, 11, 4, 6, 7, 0, 1, 2, 3],
        0,
    ),
    (
        BarEvent::Bar(11),
        [0, 1, 3],
        [4, 4, 4],
        &[5, 8, 9, 10],
        &[11, 4, 6, 7, 0, 1, 2, 3],
        0b100,
    ),
    (
        BarEvent::Exit(4),
        [0, 1, 0],
        [4, 4, 4],
        &[5],
        &[4, 6, 7, 0, 1, 2, 3, 11, 8, 9, 10],
        0,
    ),
    (
        BarEvent::Bar(6),
        [0, 1, 0],
        [4, 3, 4],
        &[5],
        &[6, 7, 0, 1, 2, 3, 8, 9, 10, 11],
        0,
    ),
    (
        BarEvent::Exit(7),
        [0, 2, 0],
        [4, 3, 4],
        &[5, 6],
        &[7, 0, 1, 2, 3, 8, 9, 10, 11],
        0b010,
    ),
    (
        BarEvent::None,
        [0, 0, 0],
        [4, 2, 4],
        &[],
        &[0, 1, 2, 3, 5, 6, 8, 9, 10, 11],
        0,
    ),
];

/// Drive rows 0 … r−1 of §6.1 with their state checks.
pub(super) fn bar_rows(mut b: Vb, r: usize) -> Vb {
    for (ev, cnt, live, waiting, _, release) in BAR_ROWS.iter().take(r) {
        let f = |v: &[u64; 3]| v.iter().enumerate().fold(0, |m, (t, &c)| m | c << (4 * t));
        let has_waiter = cnt
            .iter()
            .enumerate()
            .fold(0, |m, (t, &c)| m | ((c != 0) as u64) << t);
        b = bar_event(
            b,
            *ev,
            &[
                ("dbg_bar_cnt", f(cnt)),
                ("dbg_bar_live", f(live)),
                ("tb_has_waiter", has_waiter),
                ("dbg_waiting", waiting.iter().fold(0, |m, &w| m | 1 << w)),
                ("bar_release", *release),
            ],
        );
    }
    b
}

/// BAR §6.1 (T2): the event sequence with its table state, then every row's whole priority
/// list (one vector per list position) and the greedy-within-TB checks.
pub(super) fn bar_ordering() -> Vec<SpecVector> {
    let mut v = vec![bar_rows(
        bar_setup("barrier.md §6.1 ordering: events, barrier table, releases"),
        BAR_ROWS.len(),
    )
    .done()];
    for (r, row) in BAR_ROWS.iter().enumerate() {
        let list = row.4;
        for j in 0..=list.len() {
            let name = format!("barrier.md §6.1 ordering: row {r} priority position {j}");
            v.push(bar_probe(bar_rows(bar_setup(&name), r), list, j).done());
        }
    }
    let greedy: [(&str, &[BarEvent], &[usize]); 3] = [
        (
            "last_issued w2",
            &[BarEvent::Issue(2)],
            &[2, 0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11],
        ),
        (
            "last_issued w6 (greedy does not jump TB0)",
            &[BarEvent::Issue(6)],
            &[0, 1, 2, 3, 6, 4, 5, 7, 8, 9, 10, 11],
        ),
        (
            "w8 waiting, last_issued w1",
            &[BarEvent::Bar(8), BarEvent::Issue(1)],
            &[9, 10, 11, 1, 0, 2, 3, 4, 5, 6, 7],
        ),
    ];
    for (what, events, list) in greedy {
        for j in 0..=list.len() {
            let name = format!("barrier.md §6.1 greedy within TB: {what}, position {j}");
            let mut b = bar_setup(&name);
            for &e in events {
                b = bar_event(b, e, &[]);
            }
            v.push(bar_probe(b, list, j).done());
        }
    }
    v
}

/// BAR §6.2 (T2): two schedulers, same-cycle arrivals of one CTA (TB1 = w4–7).
pub(super) fn bar_simultaneous(variant: bool) -> SpecVector {
    let launch_tb = tb_fields(8, 3, |w| (w >= 4) as u64);
    assert_eq!(launch_tb, 0x24_9000);
    let all = 0xffu64;
    let pair = |a: u64, b: u64| a | b << 3;
    let bar = |m: u64| {
        [
            ("has_inst", all),
            ("unit_free", all),
            ("ready", m),
            ("is_bar", m),
        ]
    };
    let name = if variant {
        "barrier.md §6.2 simultaneous arrivals (variant: w6 and w5 together, then w7)"
    } else {
        "barrier.md §6.2 simultaneous arrivals (w6 and w7 complete the barrier)"
    };
    let b = Vb::new(name, 8, 2, "bar-gto").reset().cycle(
        &[("launch", all), ("launch_tb", launch_tb)],
        &[("issue_valid", 0)],
    );
    let bits = |ws: &[usize]| ws.iter().fold(0u64, |m, &w| m | 1 << w);
    if !variant {
        b.cycle(
            &bar(bits(&[4, 5])),
            &[
                ("issue_valid", 0b11),
                ("issue_slot", pair(4, 5)),
                ("bar_release", 0),
            ],
        )
        .cycle(
            &bar(bits(&[6, 7])),
            &[
                ("issue_valid", 0b11),
                ("issue_slot", pair(6, 7)),
                ("dbg_bar_cnt", 2 << 4),
                ("dbg_waiting", bits(&[4, 5])),
                ("bar_release", 0b10),
            ],
        )
        .cycle(
            &[
                ("has_inst", all),
                ("unit_free", all),
                ("ready", bits(&[4, 5])),
            ],
            &[
                ("issue_valid", 0b11),
                ("issue_slot", pair(4, 5)),
                ("dbg_bar_cnt", 0),
                ("dbg_waiting", 0),
                ("tb_has_waiter", 0),
            ],
        )
        .done()
    } else {
        b.cycle(
            &bar(bits(&[4])),
            &[("issue_valid", 0b01), ("issue_slot", pair(4, 0))],
        )
        .cycle(
            &bar(bits(&[6, 5])),
            &[
                ("issue_valid", 0b11),
                ("issue_slot", pair(6, 5)),
                ("dbg_bar_cnt", 1 << 4),
                ("bar_release", 0),
            ],
        )
        .cycle(
            &bar(bits(&[7])),
            &[
                ("issue_valid", 0b10),
                ("issue_slot", pair(0, 7)),
                ("dbg_bar_cnt", 3 << 4),
                ("tb_has_waiter", 0b10),
                ("bar_release", 0b10),
            ],
        )
        .cycle(
            &[],
            &[("dbg_bar_cnt", 0), ("dbg_waiting", 0), ("tb_has_waiter", 0)],
        )
        .done()
    }
}

/// BAR T3: no waiters: the lowest CTA slot first (even if younger), GTO inside it.
pub(super) fn bar_t3() -> SpecVector {
    let launch_tb = tb_fields(8, 2, |w| if w < 4 { 2 } else { 1 });
    let all = [("has_inst", 0xff), ("unit_free", 0xff), ("ready", 0xff)];
    Vb::new(
        "barrier.md T3 no barriers: lowest CTA slot first",
        8,
        1,
        "bar-gto",
    )
    .set("ctas=4")
    .reset()
    .cycle(&[("launch", 0xff), ("launch_tb", launch_tb)], &[])
    .cycle(&all, &[("issue_valid", 1), ("issue_slot", 4)])
    .cycle(&all, &[("issue_valid", 1), ("issue_slot", 4)])
    .cycle(
        &[("has_inst", 0xff), ("unit_free", 0xff), ("ready", 0xef)],
        &[("issue_valid", 1), ("issue_slot", 5)],
    )
    .cycle(
        &[("has_inst", 0xff), ("unit_free", 0xff), ("ready", 0x0f)],
        &[("issue_valid", 1), ("issue_slot", 0)],
    )
    .done()
}

/// BAR T4 (one-warp CTA releases at once) and T5 (exits between barriers leave no stuck
/// waiter; the last exit releases).
pub(super) fn bar_t4_t5() -> Vec<SpecVector> {
    let e = |ready: u64, is_bar: u64, exit: u64| {
        [
            ("has_inst", 0xf),
            ("unit_free", 0xf),
            ("ready", ready),
            ("is_bar", is_bar),
            ("exit", exit),
        ]
    };
    let t4 = Vb::new("barrier.md T4 one-warp CTA", 4, 1, "bar-gto")
        .set("ctas=4")
        .reset()
        .cycle(&[("launch", 0xf), ("launch_tb", 0b01_01_01_00)], &[])
        .cycle(
            &e(0b0001, 0b0001, 0),
            &[("issue_valid", 1), ("issue_slot", 0), ("bar_release", 0b01)],
        )
        .cycle(
            &e(0b0001, 0, 0),
            &[
                ("issue_valid", 1),
                ("issue_slot", 0),
                ("dbg_waiting", 0),
                ("dbg_bar_cnt", 0),
                ("dbg_bar_live", 1 | 3 << 3),
                ("tb_has_waiter", 0),
            ],
        )
        .done();
    let t5 = Vb::new("barrier.md T5 exits between barriers", 4, 1, "bar-gto")
        .set("ctas=4")
        .reset()
        .cycle(&[("launch", 0xf), ("launch_tb", 0)], &[])
        .cycle(
            &e(0b0001, 0b0001, 0),
            &[("issue_slot", 0), ("bar_release", 0)],
        )
        .cycle(
            &e(0b0010, 0, 0b0010),
            &[("issue_slot", 1), ("bar_release", 0)],
        )
        .cycle(&e(0, 0, 0b0100), &[("issue_valid", 0), ("bar_release", 0)])
        .cycle(
            &e(0, 0, 0b1000),
            &[
                ("issue_valid", 0),
                ("dbg_bar_cnt", 1),
                ("dbg_bar_live", 2),
                ("dbg_waiting", 0b0001),
                ("bar_release", 0b0001),
            ],
        )
        .cycle(
            &e(0b0001, 0, 0b0001),
            &[
                ("issue_valid", 1),
                ("issue_slot", 0),
                ("dbg_bar_cnt", 0),
                ("dbg_bar_live", 1),
                ("dbg_waiting", 0),
            ],
        )
        .cycle(
            &[("launch", 0b0100), ("launch_tb", 3 << 4)],
            &[
                ("dbg_bar_live", 0),
                ("dbg_resident", 0),
                ("tb_has_waiter", 0),
            ],
        )
        .cycle(&[], &[("dbg_bar_live", 1 << 9), ("dbg_warp_tb", 3 << 4)])
        .done();
    vec![t4, t5]
}

/// BAR T1 on the GTO vectors: `bar-gto` with `bar_sched_en=false` gives GTO's answers.
pub(super) fn bar_off_is_gto() -> Vec<SpecVector> {
    [
        vector_a("gto"),
        vector_b("gto"),
        s3_gto_stickiness(),
        s5_age_not_slot(),
    ]
    .into_iter()
    .map(|mut v| {
        v.name = format!("{} as bar-gto with bar_sched_en=false (BAR T1)", v.name);
        for s in v.sets.iter_mut() {
            if s == "policy=gto" {
                *s = "policy=bar-gto".into();
            }
        }
        v.sets.push("bar_sched_en=false".into());
        v
    })
    .collect()
}

/// The vectors of the barrier-aware policy.
pub(super) fn bar_vectors() -> Vec<SpecVector> {
    let mut v = bar_ordering();
    v.push(bar_simultaneous(false));
    v.push(bar_simultaneous(true));
    v.push(bar_t3());
    v.extend(bar_t4_t5());
    v.extend(bar_off_is_gto());
    v
}
