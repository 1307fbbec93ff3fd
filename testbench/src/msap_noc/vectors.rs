//! Network-level spec vectors of `msap-noc`, on the 2×2 mesh with its MC at node 1 = (1, 0)
//! (`mc_place=corner`; SMs 0, 1, 2 at nodes 0, 2, 3). The cycles follow from the contract's
//! timing, with S = pipe_stages:
//!
//! - a request offered in cycle c is written into the NI at that edge, read into its front in
//!   c+1 and sent into the router in c+2;
//! - a router puts a head that arrived in cycle a on its output in a + 1 + S (uncontended);
//!   over h routers a request reaches its MC's buffer in c + 2 + h·(1 + S);
//! - the buffer selects it the cycle after (`mc_deq`), the reply is in the reply queue
//!   `svc_lat` cycles later and its head enters the reply mesh 2 cycles after that; its tail
//!   leaves the last router `reply_flits − 1` cycles after the head: `rep_valid`.
//!
//! - N-1 (round trip): one request from SM 0 (one hop east): every cycle's `rep_valid` and
//!   `mc_deq` checked, the reply's tag, PL (the request's, §2.9) and source (the MC's node),
//!   for 4 and 2 router stages and 1- and 5-flit replies.
//! - N-2 (MSAA at network level, T-2/S-R1 through the mesh): SM 0 (PL 7, from the West) and
//!   SM 2 (PL 0, from the South) inject in the same cycle; their heads meet at the MC router's
//!   ejection port in the same VA round. MSAA serves SM 0 first; the baseline RR arbiter
//!   (pointer at reset, S = index 3 before W = 4) serves SM 2 first. The loser's request
//!   leaves 2 cycles after the winner's (the 1-flit winner frees the output at its SA, the
//!   next VA round is the cycle after), its reply queues behind the first reply's 5 flits in
//!   the reply NI and in the MC router's Local input.
//! - N-3 (T-9, every SM at one PL): N-2's timing with both PLs 7 equals the baseline's.

use crate::{SpecVector, VectorCycle};
use warpforge_contract::units::msap_noc::{NocConfig, NAME, PARAMS};
use warpforge_contract::Params;

fn config(sets: &[String]) -> NocConfig {
    let p = Params::resolve(NAME, PARAMS, None, sets).unwrap();
    NocConfig::from_params(&p).unwrap()
}

/// A request: SM, cycle offered, PL, tag, line.
struct Inj {
    sm: usize,
    at: usize,
    pl: u64,
    tag: u64,
    line: u64,
}

/// Expected: per reply (SM, cycle of the tail, tag, PL), the cycles `mc_deq` is 1.
fn vector(
    name: &str,
    sets: &[&str],
    inj: &[Inj],
    reps: &[(usize, usize, u64, u64)],
    deqs: &[usize],
) -> SpecVector {
    let mut sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    sets.splice(
        0..0,
        ["mesh_x=2", "mesh_y=2", "mc_place=corner"].map(String::from),
    );
    let c = config(&sets);
    let (pb, tb, lb, nb) = (c.pl_bits, c.tag_bits, c.line_bits, c.node_bits());
    let last = reps.iter().map(|r| r.1).max().unwrap() + 3;
    let mut cycles = vec![VectorCycle {
        inputs: vec![("reset", vec![1])],
        expect: vec![],
    }];
    for cy in 1..=last {
        let mut inputs = vec![];
        let (mut v, mut pl, mut tag, mut line) = (0u64, 0u64, 0u64, 0u64);
        for i in inj.iter().filter(|i| i.at == cy) {
            v |= 1 << i.sm;
            pl |= i.pl << (i.sm * pb);
            tag |= i.tag << (i.sm * tb);
            line |= i.line << (i.sm * lb);
        }
        if v != 0 {
            inputs = vec![
                ("inj_valid", vec![v]),
                ("inj_mc", vec![0]),
                ("inj_pl", vec![pl]),
                ("inj_tag", vec![tag]),
                ("inj_line", vec![line]),
            ];
        }
        let (mut rv, mut rt, mut rp, mut rs) = (0u64, 0u64, 0u64, 0u64);
        for &(sm, at, t, p) in reps {
            if at == cy {
                rv |= 1 << sm;
                rt |= t << (sm * tb);
                rp |= p << (sm * pb);
                rs |= c.addr(c.mcs[0]) << (sm * nb);
            }
        }
        cycles.push(VectorCycle {
            inputs,
            expect: vec![
                ("rep_valid", vec![rv]),
                ("rep_tag", vec![rt]),
                ("rep_pl", vec![rp]),
                ("rep_src", vec![rs]),
                ("mc_deq", vec![deqs.contains(&cy) as u64]),
                ("inj_ready", vec![0b111]),
            ],
        });
    }
    SpecVector {
        name: format!("msap.md §7.2 {name}"),
        unit: NAME,
        sets,
        cycles,
    }
}

pub fn spec_vectors() -> Vec<SpecVector> {
    let mut v = vec![];
    // N-1: one hop (h = 2 routers each way).
    for (s, f, lat) in [(4usize, 5usize, 4usize), (2, 5, 4), (4, 1, 1), (3, 2, 7)] {
        let c0 = 1;
        let at_mc = c0 + 2 + 2 * (1 + s);
        let deq = at_mc + 1;
        let head_in = deq + lat + 2;
        let tail = head_in + 2 * (1 + s) + f - 1;
        v.push(vector(
            &format!("N-1 round trip (pipe_stages={s}, reply_flits={f}, svc_lat={lat})"),
            &[
                &format!("pipe_stages={s}"),
                &format!("reply_flits={f}"),
                &format!("svc_lat={lat}"),
            ],
            &[Inj {
                sm: 0,
                at: c0,
                pl: 5,
                tag: 0x2a,
                line: 0x33,
            }],
            &[(0, tail, 0x2a, 5)],
            &[deq],
        ));
    }
    // N-2 / N-3: SM 0 (node 0, West input of the MC router) and SM 2 (node 3, South input).
    let c0 = 1;
    let at_mc = c0 + 2 + 2 * 5;
    let (d1, d2) = (at_mc + 1, at_mc + 3);
    // First reply: as N-1. Second: its head reaches the front of the MC router's Local input
    // the cycle after the first reply's tail leaves it, then RC, VA, SA and one more router.
    let tail1 = d1 + 4 + 2 + 2 * 5 + 4;
    let first_tail_sa = d1 + 4 + 2 + 4 + 4;
    let tail2 = first_tail_sa + 1 + 3 + 5 + 4;
    let inj = |pl0: u64, pl2: u64| {
        [
            Inj {
                sm: 0,
                at: c0,
                pl: pl0,
                tag: 1,
                line: 0x10,
            },
            Inj {
                sm: 2,
                at: c0,
                pl: pl2,
                tag: 2,
                line: 0x20,
            },
        ]
    };
    v.push(vector(
        "N-2 MSAA: the PL-7 request wins the MC router's ejection port",
        &[],
        &inj(7, 0),
        &[(0, tail1, 1, 7), (2, tail2, 2, 0)],
        &[d1, d2],
    ));
    v.push(vector(
        "N-2 baseline (msaa_en=false, msar_en=false): round robin serves South first",
        &["msaa_en=false", "msar_en=false"],
        &inj(7, 0),
        &[(2, tail1, 2, 0), (0, tail2, 1, 7)],
        &[d1, d2],
    ));
    v.push(vector(
        "N-3 (T-9) every SM at PL 7: the baseline's order",
        &[],
        &inj(7, 7),
        &[(2, tail1, 2, 7), (0, tail2, 1, 7)],
        &[d1, d2],
    ));
    v
}
