//! msap-noc in lockstep. Its spec vectors (N-1 … N-3) run on model and RTL (Icarus) in
//! tests/lockstep.rs with every unit's; its constrained-random jobs are the quick suite's
//! (run by tests/lockstep.rs: two 2×2 meshes, a 4×2 one and a 2×2 at V = 2, 2 seeds,
//! 1.2·10^5 cycles; the 4×4 (V = 1, 2, 4) and 8×8 meshes in the full suite). Here: what those
//! jobs cover, and proof that lockstep catches a wrong network: replies that do not inherit
//! their request's PL (the reply NI sends PL 0), and with V = 2 an NI that puts requests on
//! the wrong VC, each reported at the first cycle and port the model with the same fault
//! predicts. And bench's flit count (every router output port's `out_valid`, both meshes,
//! read from the outputs) checked against the hops the completed round trips must have made.

use warpforge_contract::units::msap_noc::{NocConfig, PARAMS};
use warpforge_contract::Params;
use warpforge_cosim::bench::EventCounter;
use warpforge_cosim::lockstep;
use warpforge_cosim::registry::{self, Unit};
use warpforge_cosim::regress;
use warpforge_testbench::msap_noc::{MsapNocModel, NocFault, Traffic};
use warpforge_testbench::Model;

const UNIT: &str = "msap-noc";

#[test]
fn random_lockstep_covers_the_configurations() {
    assert!(registry::spec_vectors(UNIT).len() >= 7);
    let configs = regress::configs(UNIT);
    assert!(configs.len() >= 3);
    let c = regress::coverage(UNIT, "quick").unwrap();
    assert!(c.seeds >= 2, "{c:?}");
    assert!(c.cycles >= 100_000, "{c:?}");
    let all = configs.concat().join(",");
    for s in [
        "mc_place=corner",
        "mesh_x=4",
        "msaa_en=false",
        "msar_en=false",
        "pipe_stages=2",
        "pipe_stages=3",
        "age_thresh=4",
        "msar_age_thresh=3",
        "rr_ptr=shared",
        "reply_flits=1",
        "vcs=2",
    ] {
        assert!(all.contains(s), "no quick configuration with {s}");
    }
    // The 4x4 mesh and the 8x8 system (with MSAP and as the baseline) in the full suite.
    let full: Vec<_> = regress::jobs("full")
        .unwrap()
        .into_iter()
        .filter(|j| j.is_lockstep() && j.unit == UNIT)
        .collect();
    let eight: Vec<_> = full
        .iter()
        .filter(|j| j.sets.contains(&"mesh_x=8".to_string()))
        .collect();
    assert!(eight.len() >= 8 && eight.iter().map(|j| j.cycles).sum::<u64>() >= 1_000_000);
    assert!(full
        .iter()
        .any(|j| j.sets.contains(&"mesh_y=4".to_string())));
    for v in ["vcs=2", "vcs=4"] {
        assert!(
            full.iter().any(|j| j.sets.contains(&v.to_string())),
            "no full job with {v}"
        );
    }
}

#[test]
fn a_wrong_ni_vc_is_caught() {
    // The quick suite's V = 2 configuration: SM 0 (node 0) sends to MCs at nodes 1 and 3,
    // both flows on VC (0 + 1) mod 2 = (0 + 3) mod 2 = 1. The planted bug puts them on VC 0.
    let sets: Vec<String> = ["mesh_x=2", "mesh_y=2", "vcs=2"].map(String::from).to_vec();
    let unit = Unit::resolve(UNIT, &sets).unwrap();
    let p = Params::resolve(unit.name(), PARAMS, None, &unit.params.as_sets()).unwrap();
    let cfg = NocConfig::from_params(&p).unwrap();
    let mut d = unit.design();
    let from = "ni_vc_0 = 1'd1";
    assert_eq!(d.verilog.matches(from).count(), 3, "`{from}`");
    d.verilog = d.verilog.replace(from, "ni_vc_0 = 1'd0");
    let mut bad = MsapNocModel::new(&cfg);
    bad.inject_fault(Some(NocFault::NiVcZero));
    lockstep::check_planted_bug(&unit, &d, Box::new(bad), 3, 100_000)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn replies_without_the_request_pl_are_caught() {
    // The 2x2 quick-suite configuration.
    let sets: Vec<String> = ["mesh_x=2", "mesh_y=2", "mc_place=corner"]
        .map(String::from)
        .to_vec();
    let unit = Unit::resolve(UNIT, &sets).unwrap();
    let p = Params::resolve(unit.name(), PARAMS, None, &unit.params.as_sets()).unwrap();
    let cfg = NocConfig::from_params(&p).unwrap();
    let mut d = unit.design();
    let from = format!("rqq__0__rdata[0 +: {}]", cfg.pl_bits);
    assert_eq!(d.verilog.matches(&from).count(), 1, "`{from}`");
    d.verilog = d.verilog.replace(&from, &format!("{}'d0", cfg.pl_bits));
    let mut bad = MsapNocModel::new(&cfg);
    bad.inject_fault(Some(NocFault::ReplyPlZero));
    lockstep::check_planted_bug(&unit, &d, Box::new(bad), 3, 100_000)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// XY routing sends a flit through |dx| + |dy| router-to-router links and out of the last
/// router's Local port: that many router output ports per flit. A request is one flit, its
/// reply `reply_flits`. Traffic for a while, then none until every request is answered:
/// bench's count of the model's outputs must be the sum over the completed round trips.
#[test]
fn bench_counts_every_flit_at_every_router_output() {
    for extra in [
        vec![],
        vec!["mc_place=corner", "reply_flits=1"],
        vec!["vcs=2", "pipe_stages=4", "age_thresh=0"],
    ] {
        let mut sets: Vec<String> = ["mesh_x=2", "mesh_y=2"].map(String::from).to_vec();
        sets.extend(extra.iter().map(|s| s.to_string()));
        let unit = Unit::resolve(UNIT, &sets).unwrap();
        let p = Params::resolve(unit.name(), PARAMS, None, &unit.params.as_sets()).unwrap();
        let cfg = NocConfig::from_params(&p).unwrap();
        let counter = EventCounter::of(&unit).unwrap();
        assert_eq!(counter.kind, "flits");
        let layout = unit.manifest().layout();
        let reset = layout.input("reset").unwrap().offset;
        let mut model = MsapNocModel::new(&cfg);
        let mut traffic = Traffic::new(&cfg, 7);
        traffic.rate = 0.3;
        let mut inputs = vec![0u64; layout.in_words];
        let (mut out, mut prev) = (vec![0u64; layout.out_words], vec![0u64; layout.out_words]);
        let (mut counted, mut expected, mut trips) = (0u64, 0u64, 0u64);
        let hops = |a: usize, b: usize| {
            let ((ax, ay), (bx, by)) = (cfg.xy(a), cfg.xy(b));
            (ax.abs_diff(bx) + ay.abs_diff(by) + 1) as u64
        };
        let sms = cfg.sms();
        let mut cycle = 0u64;
        loop {
            inputs.iter_mut().for_each(|w| *w = 0);
            if cycle == 0 {
                inputs[reset] = 1;
            } else {
                traffic.generating = cycle < 400;
                traffic.next(cycle, &prev, &mut inputs);
            }
            model.step(&inputs, &mut out);
            if cycle > 0 {
                counted += counter.count(&out);
            }
            for &(s, m, _) in &model.done {
                trips += 1;
                expected += hops(sms[s], cfg.mcs[m]) * (1 + cfg.reply_flits as u64);
            }
            prev.copy_from_slice(&out);
            cycle += 1;
            if cycle > 400 && traffic.queued() == 0 && model.in_flight() == 0 {
                break;
            }
            assert!(cycle < 20_000, "{sets:?}: not drained");
        }
        assert_eq!(trips, model.ev.injected, "{sets:?}");
        assert!(trips > 100, "{sets:?}: {trips} round trips");
        assert_eq!(counted, expected, "{sets:?}: {trips} round trips");
    }
}
