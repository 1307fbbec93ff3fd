//! `dwr` in lockstep on insert-heavy configurations: one ILT set of two ways with `d4_learn`'s
//! three insert ports, so the barriers' PCs all meet in one set and the ILT's inserts evict
//! all the time, at BAR_LAT = 2, 3 and 5. The quick suite's dwr configurations
//! (`cosim/src/regress.rs`) include small ILTs too, but do not check that the stimulus reached
//! the ILT's paths; here each run must show ≥ 1,000 evictions, inserts and hits and ≥ 100
//! flushes, so the ILT's FIFO and flush paths are compared every cycle against the model.

use warpforge_cosim::lockstep::{self, Options, Source};
use warpforge_cosim::registry::Unit;

/// One ILT set of two ways, three insert ports (d4_learn), 8-bit PCs.
fn unit(bar_lat: u32) -> Unit {
    let sets = [
        "threads=64",
        "group_size=2",
        "ilt_sets=1",
        "ilt_ways=2",
        "pc_bits=8",
    ];
    let mut v: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    v.push(format!("bar_lat={bar_lat}"));
    Unit::resolve("dwr", &v).unwrap()
}

#[test]
fn insert_heavy_configurations_pass() {
    for (bar_lat, seed) in [(2, 11), (3, 12), (5, 13)] {
        let u = unit(bar_lat);
        let r = lockstep::run(
            &u,
            u.model(),
            Source::Random(u.stimulus(seed)),
            Options::new(200_000, seed),
        )
        .unwrap();
        assert!(r.passed(), "bar_lat={bar_lat}\n{}", r.render());
        let ev = |name: &str| r.coverage.events[name].as_u64().unwrap();
        // The ILT was exercised: many evictions, inserts and hits, and flushes.
        for (name, least) in [
            ("ilt_evictions", 1000),
            ("ilt_inserts", 1000),
            ("ilt_hits", 1000),
            ("flushes", 100),
        ] {
            assert!(
                ev(name) >= least,
                "bar_lat={bar_lat}: {name} = {}",
                ev(name)
            );
        }
    }
}
