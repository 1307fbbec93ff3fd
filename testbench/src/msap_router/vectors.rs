//! Spec vectors of `msap-router`: S-R1 (spec/msap.md §4.5) and T-3's "late high-PL head"
//! (§7.2), on one router at (3, 3) of the 8×8 mesh, contending for the Local (ejection)
//! output. The order of packets on the ejection port is the spec's; the cycles follow from
//! the contract's timing (head on `in_*` in cycle a: at the front in a+2, on the output in
//! a + 1 + pipe_stages uncontended; a released output is granted again in the next cycle).
//! The ejection sink returns each credit in the cycle after the flit.

use crate::{SpecVector, VectorCycle};
use warpforge_contract::units::msap_router::{RouterConfig, EAST, NAME, NORTH, PORTS, SOUTH, WEST};

const AT: (u64, u64) = (3, 3);

/// A flit of a packet from input `p` to this node: payload = 16·p + index.
fn flit(c: &RouterConfig, p: usize, k: usize, len: usize, pl: u64) -> u64 {
    let mut f = (k == 0) as u64 | ((k + 1 == len) as u64) << 1;
    if k == 0 {
        f |= AT.0 << c.dst_x_at() | AT.1 << c.dst_y_at() | pl << c.pl_at();
    }
    f | ((16 * p + k) as u64) << c.payload_at()
}

/// One packet: input, first cycle on `in_*`, length, PL.
struct Pkt {
    p: usize,
    at: usize,
    len: usize,
    pl: u64,
}

/// A vector: the packets sent (one flit per cycle), the order they leave on Local and the
/// cycle each packet's first flit leaves; every cycle's `out_valid` and `out_flit` checked.
fn vector(name: &str, sets: &[&str], pkts: &[Pkt], order: &[(usize, usize)]) -> SpecVector {
    let c = {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = warpforge_contract::Params::resolve(
            NAME,
            warpforge_contract::units::msap_router::PARAMS,
            None,
            &sets,
        )
        .unwrap();
        RouterConfig::from_params(&p).unwrap()
    };
    let fb = c.flit_bits();
    let words = (PORTS * fb).div_ceil(64);
    let last = order
        .iter()
        .map(|&(i, t)| t + pkts[i].len)
        .max()
        .unwrap_or(0)
        + 3;
    let mut cycles = vec![VectorCycle {
        inputs: vec![("reset", vec![1])],
        expect: vec![],
    }];
    let mut out_at = vec![None; last + 2];
    for &(i, t) in order {
        let k = &pkts[i];
        for j in 0..k.len {
            out_at[t + j] = Some(flit(&c, k.p, j, k.len, k.pl));
        }
    }
    for cy in 1..=last {
        let (mut valid, mut flits) = (0u64, vec![0u64; words]);
        for k in pkts {
            if cy >= k.at && cy < k.at + k.len {
                valid |= 1 << k.p;
                crate::words::set(
                    &mut flits,
                    k.p * fb,
                    fb,
                    flit(&c, k.p, cy - k.at, k.len, k.pl),
                );
            }
        }
        let mut inputs = vec![("in_valid", vec![valid]), ("in_flit", flits)];
        if out_at[cy - 1].is_some() {
            inputs.push(("out_credit", vec![1]));
        }
        let mut want = vec![0u64; words];
        if let Some(f) = out_at[cy] {
            crate::words::set(&mut want, 0, fb, f);
        }
        cycles.push(VectorCycle {
            inputs,
            expect: vec![
                ("out_valid", vec![out_at[cy].is_some() as u64]),
                ("out_flit", want),
            ],
        });
    }
    SpecVector {
        name: name.into(),
        unit: NAME,
        sets: sets.iter().map(|s| s.to_string()).collect(),
        cycles,
    }
}

/// S-R1: N, E, S, W each hold one 5-flit packet to this node, all routed before the first VA
/// round; PLs N 5, E 5, S 0, W 7. MSAA: W, N, E, S; baseline: N, E, S, W.
fn s_r1(name: &str, sets: &[&str], order: [usize; 4], stages: usize) -> SpecVector {
    let pkts = [
        Pkt {
            p: NORTH,
            at: 1,
            len: 5,
            pl: 5,
        },
        Pkt {
            p: EAST,
            at: 1,
            len: 5,
            pl: 5,
        },
        Pkt {
            p: SOUTH,
            at: 1,
            len: 5,
            pl: 0,
        },
        Pkt {
            p: WEST,
            at: 1,
            len: 5,
            pl: 7,
        },
    ];
    // First flit on the output at 1 + 1 + stages; a bubble between packets for the VA after
    // the tail, except when SA shares the VA cycle.
    let first = 2 + stages;
    let gap = 5 + (stages > 2) as usize;
    let sched: Vec<(usize, usize)> = order
        .iter()
        .enumerate()
        .map(|(j, &i)| (i, first + j * gap))
        .collect();
    let mut v = vector(name, sets, &pkts, &sched);
    // After RC (cycle 3) every input's PL is latched.
    v.cycles[4]
        .expect
        .push(("dbg_vcpl", vec![5 << 3 | 5 << 6 | 7 << 12]));
    v
}

fn t3(name: &str, sets: &[&str], msaa: bool) -> SpecVector {
    // W streams a PL-0 packet; N's PL-3 head waits from cycle 3; E's PL-7 head arrives at
    // cycle 5, during W's packet: E may not preempt (I-11) but wins the next round.
    let pkts = [
        Pkt {
            p: WEST,
            at: 1,
            len: 5,
            pl: 0,
        },
        Pkt {
            p: NORTH,
            at: 3,
            len: 2,
            pl: 3,
        },
        Pkt {
            p: EAST,
            at: 5,
            len: 2,
            pl: 7,
        },
    ];
    let order = if msaa {
        [(0, 6), (2, 12), (1, 15)]
    } else {
        [(0, 6), (1, 12), (2, 15)]
    };
    vector(name, sets, &pkts, &order)
}

pub fn spec_vectors() -> Vec<SpecVector> {
    let msaa = [WEST, NORTH, EAST, SOUTH].map(|p| p - 1);
    let rr = [NORTH, EAST, SOUTH, WEST].map(|p| p - 1);
    vec![
        s_r1("msap §4.5 S-R1 MSAA: W N E S", &[], msaa, 4),
        s_r1(
            "msap §4.5 S-R1 MSAA, shared pointer",
            &["rr_ptr=shared"],
            msaa,
            4,
        ),
        s_r1(
            "msap §4.5 S-R1 baseline RR: N E S W",
            &["msaa_en=false"],
            rr,
            4,
        ),
        s_r1("msap §4.5 S-R1 MSAA, 3 stages", &["pipe_stages=3"], msaa, 3),
        s_r1(
            "msap §4.5 S-R1 MSAA, 2 stages",
            &["pipe_stages=2", "buf_depth=4"],
            msaa,
            2,
        ),
        t3(
            "msap §7.2 T-3 late PL-7 head waits for the tail, then wins",
            &[],
            true,
        ),
        t3(
            "msap §7.2 T-3 baseline RR: the waiting head goes first",
            &["msaa_en=false"],
            false,
        ),
    ]
}
