//! The `msap-router` model: S-R1 and T-3 vectors, every invariant under random traffic on
//! several configurations (every event seen where the configuration allows it), faults caught
//! by a vector and by the invariants, I-8 (one PL for every packet: the baseline router's
//! trace), delivery checked against a scoreboard kept here, reproducibility.

use std::collections::VecDeque;

use warpforge_contract::units::msap_router::{self, RouterConfig, PORTS};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::harness::{self, first_failure, io_trace, run_vector};
use warpforge_testbench::msap_router::{
    decode, spec_vectors, xy_route, MsapRouterModel, MsapRouterStimulus, RouterFault,
};
use warpforge_testbench::{words, Model, SpecVector, Stimulus};

fn cfg(sets: &[&str]) -> RouterConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(msap_router::NAME, msap_router::PARAMS, None, &sets).unwrap();
    RouterConfig::from_params(&p).unwrap()
}

fn vcfg(v: &SpecVector) -> RouterConfig {
    let s: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    cfg(&s)
}

/// Whether `fault` fails some spec vector's expectations.
fn fails_a_vector(fault: RouterFault) -> bool {
    spec_vectors().iter().any(|v| {
        let c = vcfg(v);
        let mut m = MsapRouterModel::new(&c);
        m.inject_fault(Some(fault));
        harness::misses_an_expectation(&mut m, &Layout::new(&c.ports()), v)
    })
}

#[test]
fn spec_vectors_pass_on_the_model() {
    let v = spec_vectors();
    assert!(v.len() >= 7);
    for v in &v {
        let c = vcfg(v);
        run_vector(&mut MsapRouterModel::new(&c), &Layout::new(&c.ports()), v)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

const CONFIGS: &[&[&str]] = &[
    &[],
    &["pipe_stages=2", "buf_depth=2", "msaa_en=false"],
    &[
        "pipe_stages=3",
        "rr_ptr=shared",
        "age_thresh=4",
        "pl_bits=2",
    ],
    &["mesh_x=4", "mesh_y=4", "x=0", "y=3", "buf_depth=4"],
    &[
        "mesh_x=16",
        "mesh_y=2",
        "x=15",
        "y=0",
        "buf_depth=16",
        "age_thresh=1",
    ],
];

#[test]
fn random_traffic_keeps_every_invariant_and_covers_the_events() {
    for (k, sets) in CONFIGS.iter().enumerate() {
        let c = cfg(sets);
        let layout = Layout::new(&c.ports());
        let mut m = MsapRouterModel::new(&c);
        let mut stim = MsapRouterStimulus::new(&c, 11 + k as u64);
        assert_eq!(
            first_failure(&mut m, &mut stim, &layout, 200_000),
            None,
            "{sets:?}"
        );
        for (name, n) in m.events() {
            let possible = match name {
                "priority_wins" => c.msaa_en,
                "urgent_grants" => c.age_thresh > 0,
                _ => true,
            };
            assert_eq!(n > 0, possible, "{sets:?}: event {name} = {n}");
        }
    }
}

#[test]
fn faults_fail_a_vector_or_the_invariants() {
    assert!(fails_a_vector(RouterFault::PlIgnored));
    for (fault, inv) in [
        (RouterFault::NoCreditCheck, "I-10"),
        (RouterFault::ReleaseAtHead, "I-11"),
    ] {
        let c = cfg(&[]);
        let mut m = MsapRouterModel::new(&c);
        m.inject_fault(Some(fault));
        let mut stim = MsapRouterStimulus::new(&c, 3);
        let f = first_failure(&mut m, &mut stim, &Layout::new(&c.ports()), 200_000);
        assert!(
            f.as_ref().is_some_and(|f| f.contains(inv)),
            "{fault:?}: {f:?}"
        );
    }
}

/// Stimulus wrapper that stamps one PL on every head (I-8's uniform case).
struct OnePl(MsapRouterStimulus, RouterConfig, u64);

impl Stimulus for OnePl {
    fn next(&mut self, cycle: u64, prev: &[u64], inputs: &mut [u64]) {
        self.0.next(cycle, prev, inputs);
        let c = &self.1;
        let fb = c.flit_bits();
        let at = Layout::new(&c.ports()).input("in_flit").unwrap().offset;
        for p in 0..PORTS {
            let f = words::get(&inputs[at..], p * fb, fb);
            if f & 1 == 1 {
                let f = (f & !(((1 << c.pl_bits) - 1) << c.pl_at())) | self.2 << c.pl_at();
                words::set(&mut inputs[at..], p * fb, fb, f);
            }
        }
    }
}

#[test]
fn one_pl_everywhere_gives_the_baseline_trace() {
    // I-8: with every packet at one PL the MSAA router grants exactly as the RR router does;
    // only the pointer digest (per-level pointers) differs.
    for (pl, sets) in [
        (7u64, &["rr_ptr=per_level"][..]),
        (2, &["rr_ptr=shared"][..]),
    ] {
        let trace = |msaa: bool| {
            let mut s: Vec<&str> = sets.to_vec();
            s.push(if msaa {
                "msaa_en=true"
            } else {
                "msaa_en=false"
            });
            let c = cfg(&s);
            let layout = Layout::new(&c.ports());
            let mut m = MsapRouterModel::new(&c);
            let mut stim = OnePl(MsapRouterStimulus::new(&c, 5), c.clone(), pl);
            let (ins, outs) = (layout.in_words, layout.out_words);
            let t = io_trace(&mut m, &mut stim, &layout, 50_000);
            assert!(m.ev.contended > 1000);
            // Every port but the pointer digest (per-level pointers hold more), by name.
            let keep = [
                "out_valid",
                "out_flit",
                "in_credit",
                "dbg_count",
                "dbg_front",
                "dbg_state",
                "dbg_route",
                "dbg_vcpl",
                "dbg_busy",
                "dbg_owner",
                "dbg_credit",
                "dbg_gnt",
            ];
            t.chunks(ins + outs)
                .flat_map(|cy| {
                    let mut v = cy[..ins].to_vec();
                    for k in keep {
                        let s = layout.output(k).unwrap();
                        v.extend_from_slice(&cy[ins + s.offset..ins + s.offset + s.words]);
                    }
                    v
                })
                .collect::<Vec<_>>()
        };
        let (a, b) = (trace(true), trace(false));
        let first = a.iter().zip(&b).position(|(x, y)| x != y);
        assert!(
            first.is_none(),
            "PL {pl} {sets:?}: first difference at word {first:?}"
        );
    }
}

/// A scoreboard independent of the model: every packet that enters leaves whole, contiguous,
/// on the XY output of its head, in order per (input, output).
#[test]
fn every_packet_leaves_whole_on_its_xy_output() {
    for (k, sets) in CONFIGS.iter().enumerate() {
        let c = cfg(sets);
        let layout = Layout::new(&c.ports());
        let slot = |n: &str| {
            layout
                .input(n)
                .map_or_else(|| layout.output(n).unwrap().offset, |s| s.offset)
        };
        let (iv, ifl, ov, ofl, rst) = (
            slot("in_valid"),
            slot("in_flit"),
            slot("out_valid"),
            slot("out_flit"),
            slot("reset"),
        );
        let fb = c.flit_bits();
        let mut m = MsapRouterModel::new(&c);
        let mut stim = MsapRouterStimulus::new(&c, 40 + k as u64);
        let mut inp = vec![0u64; layout.in_words];
        let mut out = vec![0u64; layout.out_words];
        // Per (input, output): flits expected in order; per input: the current packet's route.
        let mut expect: Vec<Vec<VecDeque<u64>>> = vec![vec![VecDeque::new(); PORTS]; PORTS];
        let mut route = [0usize; PORTS];
        let mut on_link: [Option<usize>; PORTS] = [None; PORTS];
        let (mut sent, mut got) = (0u64, 0u64);
        for cy in 0..100_000u64 {
            stim.next(cy, &out, &mut inp);
            m.step(&inp, &mut out);
            if inp[rst] & 1 == 1 {
                (sent, got) = (0, 0);
                expect.iter_mut().flatten().for_each(|q| q.clear());
                on_link = [None; PORTS];
                continue;
            }
            for o in 0..PORTS {
                if out[ov] >> o & 1 == 1 {
                    let f = words::get(&out[ofl..], o * fb, fb);
                    let from = match on_link[o] {
                        Some(p) => p,
                        None => (0..PORTS)
                            .find(|&p| expect[p][o].front() == Some(&f) && f & 1 == 1)
                            .unwrap_or_else(|| {
                                panic!("{sets:?} cycle {cy}: output {o}: unexpected {f:x}")
                            }),
                    };
                    assert_eq!(
                        expect[from][o].pop_front(),
                        Some(f),
                        "{sets:?} cycle {cy} output {o}"
                    );
                    on_link[o] = (f >> 1 & 1 == 0).then_some(from);
                    got += 1;
                }
            }
            for p in 0..PORTS {
                if inp[iv] >> p & 1 == 1 {
                    let f = words::get(&inp[ifl..], p * fb, fb);
                    let d = decode(&c, f);
                    if d.head {
                        route[p] = xy_route(c.x, c.y, d.dst_x, d.dst_y);
                    }
                    expect[p][route[p]].push_back(f);
                    sent += 1;
                }
            }
        }
        assert!(
            m.ev.flits > 20_000 && sent - got <= 5 * (c.buf_depth as u64 + 2),
            "{sets:?}: {sent} sent, {got} left"
        );
    }
}

#[test]
fn same_seed_same_trace() {
    let c = cfg(&[]);
    let layout = Layout::new(&c.ports());
    let run = |seed| {
        io_trace(
            &mut MsapRouterModel::new(&c),
            &mut MsapRouterStimulus::new(&c, seed),
            &layout,
            5_000,
        )
    };
    assert_eq!(run(9), run(9));
    assert_ne!(run(9), run(10));
}

/// §7.2 T-7 on one router: W and E stream single-flit PL-7 packets to this node
/// back to back while N's one PL-0 packet waits for the same (Local) output. The cycle N's
/// flit leaves, if it does within `cycles`.
fn starved_head_leaves(age: usize, cycles: u64) -> Option<u64> {
    let c = if age == 0 {
        cfg(&[])
    } else {
        cfg(&[&format!("age_thresh={age}")])
    };
    let layout = Layout::new(&c.ports());
    let at = |n: &str| {
        layout
            .input(n)
            .map_or_else(|| layout.output(n).unwrap().offset, |s| s.offset)
    };
    let fb = c.flit_bits();
    let flit = |pl: u64, payload: u64| {
        3 | (c.x as u64) << c.dst_x_at()
            | (c.y as u64) << c.dst_y_at()
            | pl << c.pl_at()
            | payload << c.payload_at()
    };
    let mut m = MsapRouterModel::new(&c);
    let mut inp = vec![0u64; layout.in_words];
    let mut out = vec![0u64; layout.out_words];
    let mut credits = [c.buf_depth as u32; PORTS];
    for cy in 0..cycles {
        inp.iter_mut().for_each(|w| *w = 0);
        if cy == 0 {
            inp[at("reset")] = 1;
        } else {
            for (p, c) in credits.iter_mut().enumerate() {
                *c += (out[at("in_credit")] >> p & 1) as u32;
            }
            // The sink returns each credit in the next cycle.
            inp[at("out_credit")] = out[at("out_valid")] & 1;
            let mut send = |p: usize, f: u64, inp: &mut Vec<u64>| {
                if credits[p] > 0 {
                    credits[p] -= 1;
                    inp[at("in_valid")] |= 1 << p;
                    words::set(&mut inp[at("in_flit")..], p * fb, fb, f);
                }
            };
            send(2, flit(7, 2), &mut inp);
            send(4, flit(7, 4), &mut inp);
            if cy == 1 {
                send(1, flit(0, 1), &mut inp);
            }
        }
        m.step(&inp, &mut out);
        m.check_invariants()
            .unwrap_or_else(|e| panic!("age {age}: {e}"));
        let f = words::get(&out[at("out_flit")..], 0, fb);
        if out[at("out_valid")] & 1 == 1 && f >> c.payload_at() == 1 {
            return Some(cy);
        }
    }
    None
}

#[test]
fn t7_a_low_pl_head_starves_without_ageing_and_not_with_it() {
    // Without ageing the PL-0 head never wins while the PL-7 streams last.
    assert_eq!(starved_head_leaves(0, 50_000), None);
    // With ageing it wins once urgent, after age_thresh lost rounds, and I-7 holds
    // throughout (checked by the model).
    for age in [1, 4, 32] {
        let t = starved_head_leaves(age, 50_000).unwrap_or_else(|| panic!("age {age}"));
        // Its first round is in cycle 4; the PL-7 inputs take the output every second cycle.
        let age = age as u64;
        assert!(
            (4 + 2 * age..=8 + 2 * age).contains(&t),
            "age {age}: left at cycle {t}"
        );
    }
}
