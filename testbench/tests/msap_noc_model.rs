//! The `msap-noc` model: its network-level vectors, every invariant under random traffic on
//! 2×2, 4×4 and 8×8 meshes (the main events seen), faults caught by a vector and by the
//! invariants, T-5 / T-9 (I-8: with one PL on every request the MSAA + MSAR network's
//! links and ports equal the baseline's), drain (I-14: everything answered once injection
//! stops), reproducibility.

use warpforge_contract::units::msap_noc::{self, NocConfig};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::harness::{self, first_failure, io_trace, run_vector};
use warpforge_testbench::msap_noc::{
    spec_vectors, MsapNocModel, MsapNocStimulus, NocFault, Pattern, PlMode, Traffic,
};
use warpforge_testbench::{Model, SpecVector, Stimulus};

fn cfg(sets: &[&str]) -> NocConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(msap_noc::NAME, msap_noc::PARAMS, None, &sets).unwrap();
    NocConfig::from_params(&p).unwrap()
}

fn vcfg(v: &SpecVector) -> NocConfig {
    let s: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    cfg(&s)
}

#[test]
fn spec_vectors_pass_on_the_model() {
    let v = spec_vectors();
    assert!(v.len() >= 7);
    for v in &v {
        let c = vcfg(v);
        run_vector(&mut MsapNocModel::new(&c), &Layout::new(&c.ports()), v)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn faults_fail_a_vector() {
    for fault in [NocFault::ReplyPlZero, NocFault::RouterPlIgnored] {
        let caught = spec_vectors().iter().any(|v| {
            let c = vcfg(v);
            let mut m = MsapNocModel::new(&c);
            m.inject_fault(Some(fault));
            harness::misses_an_expectation(&mut m, &Layout::new(&c.ports()), v)
        });
        assert!(caught, "{fault:?} passes every vector");
    }
}

const SMALL: &[&[&str]] = &[
    &["mesh_x=2", "mesh_y=2", "mc_place=corner"],
    &[
        "mesh_x=2",
        "mesh_y=2",
        "mc_mask=3",
        "pipe_stages=2",
        "buf_depth=4",
        "msaa_en=false",
        "msar_en=false",
        "reply_flits=1",
    ],
    &[
        "mesh_x=4",
        "mesh_y=2",
        "mc_mask=129",
        "pipe_stages=3",
        "rr_ptr=shared",
        "age_thresh=4",
        "msar_age_thresh=3",
        "pl_bits=2",
        "ni_depth=2",
        "rq_depth=2",
        "svc_lat=1",
        "reply_flits=2",
        "line_bits=3",
    ],
    // V > 1: every packet on its flow's VC (the routers keep it).
    &["mesh_x=4", "mesh_y=4", "mc_place=middle", "vcs=2"],
    &[
        "mesh_x=2",
        "mesh_y=2",
        "mc_place=corner",
        "vcs=4",
        "buf_depth=4",
        "pl_bits=2",
        "reply_flits=3",
    ],
];

fn events(m: &MsapNocModel) -> std::collections::HashMap<&'static str, u64> {
    m.events().into_iter().collect()
}

#[test]
fn random_traffic_keeps_every_invariant() {
    for sets in SMALL {
        let c = cfg(sets);
        let mut m = MsapNocModel::new(&c);
        let mut s = MsapNocStimulus::new(&c, 7);
        let l = Layout::new(&c.ports());
        if let Some(e) = first_failure(&mut m, &mut s, &l, 25_000) {
            panic!("{sets:?}: {e}");
        }
        let ev = events(&m);
        for e in ["replies", "injected", "ni_full", "req_contended"] {
            assert!(ev[e] > 0, "{sets:?}: no {e}: {ev:?}");
        }
        // Multi-flit replies drain the reply queue slower than the buffer dequeues.
        if c.reply_flits > 1 {
            assert!(ev["l2_stalls"] > 0, "{sets:?}: {ev:?}");
        }
        // Priority wins need MSAA (and three-way contention: on the 2×2 mesh two inputs
        // alternate, each reaching VA while the other holds the output); reorders need MSAR.
        if c.mesh_x >= 4 {
            assert_eq!(ev["req_priority_wins"] > 0, c.msaa_en, "{sets:?}: {ev:?}");
        }
        if !c.msaa_en {
            assert_eq!(ev["req_priority_wins"] + ev["rep_priority_wins"], 0);
        }
        assert_eq!(ev["mc_reorders"] > 0, c.msar_en, "{sets:?}: {ev:?}");
        assert_eq!(
            ev["req_urgent_grants"] > 0,
            c.age_thresh > 0,
            "{sets:?}: {ev:?}"
        );
    }
}

#[test]
fn the_8x8_system_keeps_every_invariant() {
    let c = cfg(&["mesh_x=8", "mesh_y=8"]);
    assert_eq!((c.n_sm(), c.n_mc()), (56, 8));
    let mut m = MsapNocModel::new(&c);
    let mut s = MsapNocStimulus::new(&c, 3);
    if let Some(e) = first_failure(&mut m, &mut s, &Layout::new(&c.ports()), 4_000) {
        panic!("{e}");
    }
    assert!(events(&m)["replies"] > 200, "{:?}", events(&m));
}

#[test]
fn faults_break_the_invariants() {
    let c = cfg(SMALL[0]);
    let l = Layout::new(&c.ports());
    let mut m = MsapNocModel::new(&c);
    m.inject_fault(Some(NocFault::ReplyPlZero));
    let e = first_failure(&mut m, &mut MsapNocStimulus::new(&c, 1), &l, 20_000)
        .expect("replies at PL 0 pass the invariants");
    assert!(e.contains("I-2"), "{e}");
}

#[test]
fn the_lowest_free_vc_reorders_a_flow() {
    // The network relies on routers that keep a packet's VC: with the router unit's
    // lowest-free-VC allocation a request can reach its MC on another VC than its flow's,
    // and the MC returns its credit to the flow's VC (I-10 at the MC's router), or a younger
    // request of the flow overtakes an older one (I-12).
    let c = cfg(SMALL[3]);
    let l = Layout::new(&c.ports());
    let mut m = MsapNocModel::new(&c);
    m.inject_fault(Some(NocFault::LowestFreeVc));
    let e = first_failure(&mut m, &mut MsapNocStimulus::new(&c, 1), &l, 25_000)
        .expect("the lowest free VC kept every flow in order");
    assert!(e.contains("I-9/I-12") || e.contains("I-10"), "{e}");
}

#[test]
fn a_tag_two_outstanding_requests_share_is_no_i2_failure() {
    // Seed 3 on the default 2×2 mesh: at cycle 102,584 SM 0 has two requests to MC 0 with
    // tag 14 and line 0 outstanding (one from cycle 97,910 at PL 4, still there after 64
    // younger requests of SM 0, and one from 102,390 at PL 0); the reply at PL 4 answers the
    // older. Matching by PL and age keeps the run going; a reply whose PL none of them has
    // still fails I-2 (above).
    let c = cfg(&[]);
    let l = Layout::new(&c.ports());
    let mut m = MsapNocModel::new(&c);
    let mut s = MsapNocStimulus::new(&c, 3);
    if let Some(e) = first_failure(&mut m, &mut s, &l, 110_000) {
        panic!("{e}");
    }
    assert!(events(&m)["mc_reorders"] > 0);
}

/// A deterministic traffic run with `pl` for every SM; the trace of the functional ports and
/// of every router's links.
fn trace(sets: &[&str], pl: u64, cycles: u64) -> Vec<u64> {
    let c = cfg(sets);
    let l = Layout::new(&c.ports());
    let mut m = MsapNocModel::new(&c);
    let mut t = Traffic::new(&c, 11);
    t.pattern = Pattern::Hotspot;
    t.pl = PlMode::Forced(vec![pl]);
    t.line_pool = 3;
    let (mut inp, mut out) = (vec![0u64; l.in_words], vec![0u64; l.out_words]);
    let mut all = vec![];
    let names = [
        "inj_ready",
        "rep_valid",
        "rep_src",
        "rep_tag",
        "rep_pl",
        "mc_deq",
    ];
    for cy in 0..cycles {
        inp.iter_mut().for_each(|w| *w = 0);
        t.rate = if (cy / 2000) % 2 == 0 { 0.02 } else { 0.3 };
        if cy == 0 {
            inp[l.input("reset").unwrap().offset] = 1;
        } else {
            t.next(cy, &out, &mut inp);
        }
        m.step(&inp, &mut out);
        m.check_invariants().unwrap();
        for n in names {
            let s = l.output(n).unwrap();
            all.extend_from_slice(&out[s.offset..s.offset + s.words]);
        }
        for r in m.rq.iter().chain(&m.rp) {
            let (f, cr) = r.links();
            all.extend(f.iter().map(|x| x.map_or(u64::MAX, |v| v)));
            all.push(cr as u64);
        }
    }
    all
}

#[test]
fn one_pl_everywhere_is_the_baseline() {
    // T-5 / T-9 (I-8) on the model: MSAA + MSAR with every request at PL 0 or 7 gives the
    // baseline build's trace; a mixed-PL run does not (the comparison can fail).
    for mesh in [
        &["mesh_x=4", "mesh_y=4", "mc_place=middle"][..],
        &["mesh_x=8", "mesh_y=8"][..],
    ] {
        let cycles = if mesh[0] == "mesh_x=8" { 3_000 } else { 8_000 };
        let mut base: Vec<&str> = mesh.to_vec();
        base.extend(["msaa_en=false", "msar_en=false"]);
        for pl in [0, 7] {
            let b = trace(&base, pl, cycles);
            assert!(trace(mesh, pl, cycles) == b, "{mesh:?} PL {pl}");
        }
    }
    let c = cfg(&["mesh_x=4", "mesh_y=4", "mc_place=middle"]);
    let l = Layout::new(&c.ports());
    let mixed = io_trace(
        &mut MsapNocModel::new(&c),
        &mut MsapNocStimulus::new(&c, 5),
        &l,
        5_000,
    );
    let c2 = cfg(&[
        "mesh_x=4",
        "mesh_y=4",
        "mc_place=middle",
        "msaa_en=false",
        "msar_en=false",
    ]);
    let l2 = Layout::new(&c2.ports());
    let base = io_trace(
        &mut MsapNocModel::new(&c2),
        &mut MsapNocStimulus::new(&c2, 5),
        &l2,
        5_000,
    );
    assert!(mixed != base);
}

#[test]
fn everything_drains() {
    // I-14: after injection stops, every request is answered.
    for sets in SMALL {
        let c = cfg(sets);
        let l = Layout::new(&c.ports());
        let mut m = MsapNocModel::new(&c);
        let mut s = MsapNocStimulus::new(&c, 9);
        s.resets = false;
        let (mut inp, mut out) = (vec![0u64; l.in_words], vec![0u64; l.out_words]);
        for cy in 0..8_000u64 {
            if cy == 4_000 {
                s.traffic.generating = false;
                s.traffic.drop_queued();
            }
            // Saturate first, then stop generating; the source queues empty into the NIs.
            s.traffic.rate = 1.0;
            if cy < 4_000 {
                s.next(cy, &out, &mut inp);
            } else {
                inp.iter_mut().for_each(|w| *w = 0);
                s.traffic.next(cy, &out, &mut inp);
            }
            m.step(&inp, &mut out);
            m.check_invariants()
                .unwrap_or_else(|e| panic!("{sets:?}: {e}"));
        }
        assert_eq!(s.traffic.queued(), 0, "{sets:?}");
        assert_eq!(m.in_flight(), 0, "{sets:?}: {}", m.state_line());
        assert!(m.ev.replies > 100);
    }
}

#[test]
fn reproducible() {
    let c = cfg(SMALL[0]);
    let l = Layout::new(&c.ports());
    let run = || {
        io_trace(
            &mut MsapNocModel::new(&c),
            &mut MsapNocStimulus::new(&c, 4),
            &l,
            3_000,
        )
    };
    assert_eq!(run(), run());
}
