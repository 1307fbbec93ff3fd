//! Spec vectors of `msap-arbiter` (spec/msap.md §4.2–§4.7): A-1 (Fig. 5), A-2 (tie-break and
//! pointer policy), A-3 (queued heads), A-4 (within-level starvation with a shared pointer),
//! A-5 (ageing), each with per-level and with shared pointers, and the baseline RR arbiter
//! (`msaa_en = false`) on. Expected winners are the spec's tables; where the spec
//! gives one row for both pointer modes the other mode was derived by hand
//! from §2.6 and agrees with it. Every round is one cycle with `commit`.

use crate::dwr::Vb;
use crate::SpecVector;
use warpforge_contract::units::msap_arbiter::NAME;

/// The PL word of per-requester PLs (3-bit PLs).
fn pl_word(pl: &[u64], pb: usize) -> u64 {
    pl.iter().enumerate().map(|(i, &p)| p << (i * pb)).sum()
}

/// One round: requesters `req` with PLs `pl`, expected winner `g` (and optional extra checks).
fn round(
    b: Vb,
    req: &[usize],
    pl: &[u64],
    g: usize,
    extra: &[(&'static str, u64)],
    pb: usize,
) -> Vb {
    let mask: u64 = req.iter().map(|&i| 1u64 << i).sum();
    let mut expect = vec![("gnt_valid", 1), ("gnt_idx", g as u64), ("gnt", 1 << g)];
    expect.extend_from_slice(extra);
    b.cycle(
        &[("req", mask), ("pl", pl_word(pl, pb)), ("commit", 1)],
        &expect,
    )
}

/// six packets P1..P6 (requesters 0..5) contend from the first round; each leaves
/// when granted.
fn six_packets(name: &str, sets: &[&str], pl: &[u64; 6], order: &[usize; 6]) -> SpecVector {
    let mut b = Vb::new(name, NAME, &[&["n=6"], sets].concat()).reset();
    let mut left: Vec<usize> = (0..6).collect();
    for &g in order {
        b = round(b, &left, pl, g, &[], 3);
        left.retain(|&i| i != g);
    }
    b.cycle(&[("commit", 1)], &[("gnt_valid", 0), ("gnt", 0)])
        .done()
}

const MODES: [(&str, &str); 2] = [
    ("per-level", "rr_ptr=per_level"),
    ("shared", "rr_ptr=shared"),
];

fn a1() -> Vec<SpecVector> {
    let pl = [0, 0, 7, 0, 0, 5];
    let mut v: Vec<SpecVector> = MODES
        .iter()
        .map(|(m, s)| {
            six_packets(
                &format!("msap §4.2 A-1 (Fig. 5) MSAA, {m} pointers"),
                &[s],
                &pl,
                &[2, 5, 0, 1, 3, 4],
            )
        })
        .collect();
    v.push(six_packets(
        "msap §4.2 A-1 (Fig. 5) baseline RR (msaa_en=false)",
        &["msaa_en=false"],
        &pl,
        &[0, 1, 2, 3, 4, 5],
    ));
    v
}

fn a2() -> Vec<SpecVector> {
    let pl = [1, 0, 6, 2, 1, 4];
    vec![
        six_packets(
            "msap §4.3 A-2 tie-break, per-level pointers",
            &["rr_ptr=per_level"],
            &pl,
            &[2, 5, 3, 0, 4, 1],
        ),
        six_packets(
            "msap §4.3 A-2 tie-break, shared pointer",
            &["rr_ptr=shared"],
            &pl,
            &[2, 5, 3, 4, 0, 1],
        ),
    ]
}

/// five queues of heads (PLs head first); a queue's next head requests in the round
/// after its grant.
fn a3_vector(name: &str, sets: &[&str], order: &[usize; 10], msaa: bool) -> SpecVector {
    let queues: [&[u64]; 5] = [&[2, 7], &[5, 0], &[5, 5], &[0, 0], &[7, 1]];
    let mut head = [0usize; 5];
    let mut b = Vb::new(name, NAME, &[&["n=5"], sets].concat()).reset();
    for &g in order {
        let req: Vec<usize> = (0..5).filter(|&i| head[i] < queues[i].len()).collect();
        let pl: Vec<u64> = (0..5)
            .map(|i| queues[i].get(head[i]).copied().unwrap_or(0))
            .collect();
        // Without MSAA every requester is at level 0.
        let lvl = if msaa { pl[g] } else { 0 };
        b = round(b, &req, &pl, g, &[("gnt_lvl", lvl)], 3);
        head[g] += 1;
    }
    b.done()
}

fn a3() -> Vec<SpecVector> {
    let mut v: Vec<SpecVector> = MODES
        .iter()
        .map(|(m, s)| {
            a3_vector(
                &format!("msap §4.4 A-3 queued heads, MSAA, {m} pointers"),
                &[s],
                &[4, 1, 2, 2, 0, 0, 4, 1, 3, 3],
                true,
            )
        })
        .collect();
    v.push(a3_vector(
        "msap §4.4 A-3 queued heads, baseline RR",
        &["msaa_en=false"],
        &[0, 1, 2, 3, 4, 0, 1, 2, 3, 4],
        false,
    ));
    v
}

/// A (1, PL 0) and B (3, PL 0) every round, C (4, PL 7) in odd rounds.
fn a4() -> Vec<SpecVector> {
    let run = |name: &str, set: &str, order: &[usize]| {
        let mut b = Vb::new(name, NAME, &["n=5", set]).reset();
        for (r, &g) in order.iter().enumerate() {
            let mut req = vec![1, 3];
            if r % 2 == 0 {
                req.push(4);
            }
            b = round(b, &req, &[0, 0, 0, 0, 7], g, &[], 3);
        }
        b.done()
    };
    vec![
        run(
            "msap §4.6 A-4 per-level pointers: C A C B …",
            "rr_ptr=per_level",
            &[4, 1, 4, 3, 4, 1, 4, 3, 4, 1, 4, 3],
        ),
        run(
            "msap §4.6 A-4 shared pointer: B starves",
            "rr_ptr=shared",
            &[4, 1, 4, 1, 4, 1, 4, 1, 4, 1, 4, 1],
        ),
    ]
}

/// N = 2, age_thresh = 2; A (0) always PL 0, B (1) always PL 7. dbg_lost shows the
/// counters at the end of the previous round (A at bits 0–1, B at bits 2–3).
fn a5() -> Vec<SpecVector> {
    let mut out = vec![];
    for (m, s) in MODES {
        let mut b = Vb::new(
            &format!("msap §4.7 A-5 ageing (age_thresh=2), {m} pointers"),
            NAME,
            &["n=2", "nlvl=9", "age_thresh=2", s],
        )
        .reset();
        let winners = [1, 1, 0, 1, 1, 0, 1, 1, 0];
        let (mut a_lost, mut b_lost) = (0u64, 0u64);
        for &g in &winners {
            let lvl = if g == 0 { 8 } else { 7 };
            b = round(
                b,
                &[0, 1],
                &[0, 7],
                g,
                &[("gnt_lvl", lvl), ("dbg_lost", a_lost | b_lost << 2)],
                3,
            );
            // The table's "A.lost at end of round": 1, 2, 0, …
            (a_lost, b_lost) = if g == 0 {
                (0, b_lost + 1)
            } else {
                (a_lost + 1, 0)
            };
        }
        out.push(b.done());
    }
    // Without ageing B wins every round.
    let mut b = Vb::new("msap §4.7 A-5 without ageing: B always", NAME, &["n=2"]).reset();
    for _ in 0..12 {
        b = round(
            b,
            &[0, 1],
            &[0, 7],
            1,
            &[("gnt_lvl", 7), ("dbg_lost", 0)],
            3,
        );
    }
    out.push(b.done());
    out
}

pub fn spec_vectors() -> Vec<SpecVector> {
    [a1(), a2(), a3(), a4(), a5()].concat()
}
