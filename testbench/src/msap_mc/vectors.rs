//! Spec vectors of `msap-mc` (spec/msap.md §4.8–§4.11, cycle rules of §3.5): M-1 (Fig. 6) at
//! the harness depth 9, at the default depth 8 (REQ9 held at the ejection port) and as the
//! FIFO; M-2 (arrivals interleaved with departures); M-3 with the same-line guard on and off;
//! M-4 (ageing) and its threshold-0 contrast. Slots, lines and metas are the vector's own
//! choices (lowest free slot per §3.5); departures, PLs and the urgent flag are the spec's.

use crate::dwr::Vb;
use crate::SpecVector;
use warpforge_contract::units::msap_mc::NAME;

type Io = Vec<(&'static str, u64)>;

fn arrive(line: u64, pl: u64, meta: u64) -> Io {
    vec![
        ("in_valid", 1),
        ("in_line", line),
        ("in_pl", pl),
        ("in_meta", meta),
    ]
}

fn with(mut a: Io, b: Io) -> Io {
    a.extend(b);
    a
}

/// The selected entry leaving this cycle (L2 ready).
fn leaves(slot: u64, line: u64, pl: u64) -> Io {
    vec![
        ("out_valid", 1),
        ("out_idx", slot),
        ("out_line", line),
        ("out_pl", pl),
    ]
}

/// The meta of the entry that left in the previous cycle.
fn meta(m: u64) -> Io {
    vec![("meta_valid", 1), ("meta", m)]
}

const READY: (&str, u64) = ("l2_ready", 1);

/// M-1: REQk has line 0x100+k and meta k; PLs R1..R9 = 3 1 6 0 2 5 3 7 5.
const M1_PL: [u64; 9] = [3, 1, 6, 0, 2, 5, 3, 7, 5];

fn m1(name: &str, sets: &[&str], order: &[usize; 9]) -> SpecVector {
    let mut b = Vb::new(name, NAME, sets).reset();
    for k in 1..=9u64 {
        b = b.cycle(
            &arrive(0x100 + k, M1_PL[k as usize - 1], k),
            &[("count", k - 1)],
        );
    }
    let mut prev = None;
    for &r in order {
        let r = r as u64;
        let mut e = leaves(r - 1, 0x100 + r, M1_PL[r as usize - 1]);
        if let Some(p) = prev {
            e.extend(meta(p));
        }
        b = b.cycle(&[READY], &e);
        prev = Some(r);
    }
    b.cycle(
        &[READY],
        &with(meta(prev.unwrap()), vec![("out_valid", 0), ("count", 0)]),
    )
    .done()
}

/// M-1 at depth 8: REQ9 waits at the ejection port until REQ8 leaves, enters the next cycle
/// (into REQ8's slot 7) and still leaves 4th.
fn m1_depth8() -> SpecVector {
    let mut b = Vb::new(
        "msap §4.8 M-1 (Fig. 6) at depth 8: REQ9 held at the port, still 4th",
        NAME,
        &[],
    )
    .reset();
    for k in 1..=8u64 {
        b = b.cycle(&arrive(0x100 + k, M1_PL[k as usize - 1], k), &[]);
    }
    let r9 = arrive(0x109, 5, 9);
    b = b.cycle(
        &with(r9.clone(), vec![READY]),
        &with(leaves(7, 0x108, 7), vec![("in_ready", 0), ("count", 8)]),
    );
    b = b.cycle(
        &with(r9, vec![READY]),
        &[leaves(2, 0x103, 6), meta(8), vec![("in_ready", 1)]].concat(),
    );
    // (slot, request) in departure order after R3.
    let rest: [(u64, u64); 7] = [(5, 6), (7, 9), (0, 1), (6, 7), (4, 5), (1, 2), (3, 4)];
    let mut prev = 3;
    for (slot, r) in rest {
        b = b.cycle(
            &[READY],
            &with(leaves(slot, 0x100 + r, M1_PL[r as usize - 1]), meta(prev)),
        );
        prev = r;
    }
    b.cycle(&[READY], &with(meta(prev), vec![("out_valid", 0)]))
        .done()
}

/// M-2: depth 8; arrivals A(2) B(5) C(2) D(7) E(5) F(0) in cycles 0–5, L2 ready from 4.
fn m2() -> SpecVector {
    let mut b = Vb::new(
        "msap §4.9 M-2 arrivals interleaved with departures: D B E A C F",
        NAME,
        &[],
    )
    .reset();
    let pls = [2, 5, 2, 7, 5, 0];
    for k in 0..4u64 {
        b = b.cycle(
            &arrive(0x200 + k, pls[k as usize], k),
            &[("out_valid", (k > 0) as u64)],
        );
    }
    // (slot, request index) leaving in cycles 4..9; E goes to slot 4, F to D's slot 3 (freed
    // at the end of cycle 4).
    let order: [(u64, u64); 6] = [(3, 3), (1, 1), (4, 4), (0, 0), (2, 2), (3, 5)];
    for (c, (slot, r)) in order.into_iter().enumerate() {
        let mut ins: Io = vec![READY];
        if c < 2 {
            let k = 4 + c as u64;
            ins.extend(arrive(0x200 + k, pls[k as usize], k));
        }
        let mut e = leaves(slot, 0x200 + r, pls[r as usize]);
        if c > 0 {
            e.extend(meta(order[c - 1].1));
        }
        b = b.cycle(&ins, &e);
    }
    b.done()
}

/// M-3: W1 = store from SM3 to line X (PL 1), R1 = load from SM3 to X (PL 6), Q = load from
/// SM7 to line Y (PL 3); meta = (sm << 2) | type (0 load, 1 store). L2 ready from cycle 3.
fn m3(guard: bool) -> SpecVector {
    let (x, y) = (0x1_2345, 0x0_0777);
    let (w1, r1, q) = ((3 << 2) | 1, 3 << 2, 7 << 2);
    let mut b = Vb::new(
        &format!(
            "msap §4.10 M-3 same-line guard {}",
            if guard {
                "on: Q W1 R1"
            } else {
                "off: R1 Q W1 (the hazard)"
            }
        ),
        NAME,
        &[if guard {
            "line_guard=true"
        } else {
            "line_guard=false"
        }],
    )
    .reset()
    .cycle(&arrive(x, 1, w1), &[])
    .cycle(&arrive(x, 6, r1), &[])
    .cycle(&arrive(y, 3, q), &[]);
    let order: [(u64, u64, u64, u64); 3] = if guard {
        [(2, y, 3, q), (0, x, 1, w1), (1, x, 6, r1)]
    } else {
        [(1, x, 6, r1), (2, y, 3, q), (0, x, 1, w1)]
    };
    let elig = if guard { 0b101 } else { 0b111 };
    for (c, &(slot, line, pl, _)) in order.iter().enumerate() {
        let mut e = leaves(slot, line, pl);
        if c == 0 {
            e.push(("dbg_elig", elig));
        } else {
            e.extend(meta(order[c - 1].3));
        }
        b = b.cycle(&[READY], &e);
    }
    b.cycle(&[READY], &meta(order[2].3)).done()
}

/// M-4: X (PL 0) then H1 (PL 7) queued; from cycle 0 one PL-7 arrival per cycle, L2 ready.
fn m4(thresh: u64) -> SpecVector {
    let sets: Vec<String> = vec![format!("age_thresh={thresh}")];
    let s: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
    let name = if thresh > 0 {
        "msap §4.11 M-4 ageing (age_thresh=2): H1 H2 X(urgent) H3 H4 …".to_string()
    } else {
        "msap §4.11 M-4 without ageing: X never leaves under the PL-7 stream".to_string()
    };
    let mut b = Vb::new(&name, NAME, &s)
        .reset()
        .cycle(&arrive(0x400, 0, 0x40), &[])
        .cycle(&arrive(0x401, 7, 0x41), &[]);
    // (slot, line, pl, urgent, dbg_bypass at the start of the cycle) per cycle 0..5.
    let rows: Vec<(u64, u64, u64, u64, u64)> = if thresh > 0 {
        vec![
            (1, 0x401, 7, 0, 0),
            (2, 0x402, 7, 0, 1),
            (0, 0x400, 0, 1, 2),
            (1, 0x403, 7, 0, 0),
            (2, 0x404, 7, 0, 0),
            (0, 0x405, 7, 0, 0),
        ]
    } else {
        (0..6).map(|c| (1 + c % 2, 0x401 + c, 7, 0, 0)).collect()
    };
    for (c, &(slot, line, pl, urgent, bypass)) in rows.iter().enumerate() {
        let ins = with(arrive(0x402 + c as u64, 7, 0x42 + c as u64), vec![READY]);
        b = b.cycle(
            &ins,
            &with(
                leaves(slot, line, pl),
                vec![("out_urgent", urgent), ("dbg_bypass", bypass), ("count", 2)],
            ),
        );
    }
    b.done()
}

pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        m1(
            "msap §4.8 M-1 (Fig. 6) MSAR at depth 9: R8 R3 R6 R9 R1 R7 R5 R2 R4",
            &["depth=9"],
            &[8, 3, 6, 9, 1, 7, 5, 2, 4],
        ),
        m1(
            "msap §4.8 M-1 (Fig. 6) FIFO (msar_en=false) at depth 9",
            &["depth=9", "msar_en=false"],
            &[1, 2, 3, 4, 5, 6, 7, 8, 9],
        ),
        m1_depth8(),
        m2(),
        m3(true),
        m3(false),
        m4(2),
        m4(0),
    ]
}
