//! The `dtm` top model: spec vectors, invariants under the random requester on several
//! configurations with every event counter reached, and the planted sequencer fault caught.

use warpforge_contract::units::dtm_top::{self, DtmConfig};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::dtm::{spec_vectors, DtmFault, DtmModel, DtmStimulus};
use warpforge_testbench::harness::{first_failure, run_vector};
use warpforge_testbench::Model;

fn cfg(sets: &[&str]) -> DtmConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(dtm_top::NAME, dtm_top::PARAMS, None, &sets).unwrap();
    DtmConfig::from_params(&p).unwrap()
}

pub const CONFIGS: &[&[&str]] = &[
    &[
        "mtg_entries=16",
        "mtg_ways=16",
        "mtg_ports=1",
        "mtt_entries=16",
        "mtt_ways=4",
        "warps=2",
        "simd_width=4",
    ],
    &[
        "mtg_entries=64",
        "mtg_ways=4",
        "mtg_ports=4",
        "mtt_entries=32",
        "mtt_ways=2",
        "cand=1",
        "warps=3",
        "simd_width=8",
    ],
    &[
        "mtg_entries=32",
        "mtg_ways=2",
        "mtg_ports=2",
        "mtt_entries=16",
        "mtt_ways=16",
        "cand=3",
        "k_in=2",
        "k_out=2",
        "l_max=4",
        "simd_width=4",
        "trace_policy=unanimous",
        "isz=8",
        "pc_shift=2",
    ],
];

#[test]
fn spec_vectors_pass_on_the_model() {
    let vs = spec_vectors();
    for v in &vs {
        let p = Params::resolve(dtm_top::NAME, dtm_top::PARAMS, None, &v.sets).unwrap();
        let c = DtmConfig::from_params(&p).unwrap();
        let mut m = DtmModel::new(&c);
        let lay = Layout::new(&c.ports());
        run_vector(&mut m, &lay, v).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn invariants_hold_under_random_requests_and_every_event_happens() {
    for sets in CONFIGS {
        let c = cfg(sets);
        let lay = Layout::new(&c.ports());
        let mut total: Vec<(&str, u64)> = vec![];
        for seed in [1, 2] {
            let mut m = DtmModel::new(&c);
            let mut s = DtmStimulus::new(&c, seed);
            let r = first_failure(&mut m, &mut s, &lay, 60_000);
            assert!(r.is_none(), "{sets:?} seed {seed}: {}", r.unwrap());
            let ev = m.events();
            eprintln!("{sets:?} seed {seed}: {ev:?}");
            if total.is_empty() {
                total = ev;
            } else {
                total.iter_mut().zip(ev).for_each(|(t, e)| t.1 += e.1);
            }
        }
        for (name, n) in total {
            let partial = name == "partial_hits" || name == "skipped_requests";
            if partial && sets.contains(&"trace_policy=unanimous") {
                assert_eq!(n, 0, "unanimous never takes a partial hit: {name}");
                continue;
            }
            assert!(n > 0, "{sets:?}: {name} never happened");
        }
    }
}

#[test]
fn the_planted_group_fault_is_caught() {
    let c = cfg(CONFIGS[0]);
    let lay = Layout::new(&c.ports());
    let mut caught = false;
    for seed in 1..6 {
        let mut m = DtmModel::new(&c);
        m.inject_fault(Some(DtmFault::GroupIgnoresNpc));
        let mut s = DtmStimulus::new(&c, seed);
        if let Some(e) = first_failure(&mut m, &mut s, &lay, 60_000) {
            assert!(e.contains("A9"), "{e}");
            caught = true;
            break;
        }
    }
    assert!(caught, "a group mixing npcs went unnoticed");
}

#[test]
fn warps_of_32_lanes_run_clean() {
    // The widest request: per-lane fields and the MTG's 2 + 2·32-bit event record.
    let c = cfg(&[
        "simd_width=32",
        "warps=2",
        "mtg_entries=64",
        "mtt_entries=32",
    ]);
    let lay = Layout::new(&c.ports());
    let mut m = DtmModel::new(&c);
    let mut s = DtmStimulus::new(&c, 3);
    let r = first_failure(&mut m, &mut s, &lay, 20_000);
    assert!(r.is_none(), "{}", r.unwrap());
    assert!(m.events().iter().any(|(n, v)| *n == "inter" && *v > 0));
}
