//! The `dtm-mtg` model: its spec vectors, its invariants (I5, I11, I15, placement) under
//! constrained-random stimulus on several configurations, deliberate faults caught by the
//! vectors and by the invariants, the table's sequential semantics against a plain
//! reference, and the stimulus's coverage.

use std::collections::HashMap;
use warpforge_contract::units::dtm_mtg::{self, MtgConfig};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::dtm_mtg::{
    spec_vectors, DtmMtgModel, DtmMtgStimulus, Key, MemoTable, MtgFault,
};
use warpforge_testbench::harness::{self, run_vector};
use warpforge_testbench::rng::Rng;
use warpforge_testbench::{Model, Stimulus};

fn cfg(sets: &[&str]) -> MtgConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(dtm_mtg::NAME, dtm_mtg::PARAMS, None, &sets).unwrap();
    MtgConfig::from_params(&p).unwrap()
}

fn vcfg(v: &warpforge_testbench::SpecVector) -> MtgConfig {
    let s: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    cfg(&s)
}

#[test]
fn spec_vectors_pass_on_the_model() {
    let vectors = spec_vectors();
    assert_eq!(vectors.len(), 6);
    for v in &vectors {
        let c = vcfg(v);
        run_vector(&mut DtmMtgModel::new(&c), &Layout::new(&c.ports()), v)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// A fault is caught when some vector's listed outputs differ from the faulty model's.
fn caught_by_a_vector(fault: MtgFault) -> bool {
    spec_vectors().iter().any(|v| {
        let c = vcfg(v);
        let mut m = DtmMtgModel::new(&c);
        m.inject_fault(Some(fault));
        harness::misses_an_expectation(&mut m, &Layout::new(&c.ports()), v)
    })
}

#[test]
fn faults_fail_a_spec_vector() {
    for f in [MtgFault::VictimIgnoresInvalid, MtgFault::DuplicateOnUpsert] {
        assert!(caught_by_a_vector(f), "{f:?} passes every vector");
    }
}

/// Runs `cycles` of the stimulus on the model, checking the invariants every cycle.
fn run_random(
    c: &MtgConfig,
    seed: u64,
    cycles: u64,
    fault: Option<MtgFault>,
) -> Result<DtmMtgModel, String> {
    let layout = Layout::new(&c.ports());
    let mut m = DtmMtgModel::new(c);
    m.inject_fault(fault);
    let mut stim = DtmMtgStimulus::new(c, seed);
    let (mut inp, mut out) = (vec![0u64; layout.in_words], vec![0u64; layout.out_words]);
    for cyc in 0..cycles {
        stim.next(cyc, &out, &mut inp);
        m.step(&inp, &mut out);
        m.check_invariants()
            .map_err(|e| format!("cycle {cyc}: {e}"))?;
    }
    Ok(m)
}

#[test]
fn invariants_hold_under_random_stimulus() {
    for (sets, seed) in [
        (&["entries=16", "ways=16", "ports=1", "simd_width=4"][..], 1),
        (&["entries=64", "ways=4", "ports=4", "simd_width=8"][..], 2),
        (
            &[
                "entries=256",
                "ways=2",
                "ports=2",
                "simd_width=32",
                "val_bits=64",
            ][..],
            3,
        ),
        (&[][..], 4),
    ] {
        let c = cfg(sets);
        let m = run_random(&c, seed, 60_000, None).unwrap_or_else(|e| panic!("{sets:?}: {e}"));
        // Coverage: every kind of event happened.
        for (name, n) in m.events() {
            assert!(n > 0, "{sets:?}: no {name}");
        }
    }
}

#[test]
fn a_duplicating_upsert_breaks_i5() {
    let c = cfg(&["entries=16", "ways=4", "ports=1", "simd_width=4"]);
    let e = run_random(&c, 5, 100_000, Some(MtgFault::DuplicateOnUpsert)).unwrap_err();
    assert!(e.contains("I5"), "{e}");
}

/// The table against a plain reference: a map of keys with a global access clock per set
/// (the LRU way is the valid way touched longest ago once the set is full). Hits, results,
/// uids and evictions agree on random operations.
#[test]
fn table_matches_a_timestamp_reference() {
    let (sets, ways) = (4, 4);
    let mut t = MemoTable::new(sets, ways);
    let mut rng = Rng::new(9);
    // Reference: key → (res, uid, last touch); per set, the keys present.
    let mut refm: HashMap<Key, (u64, u64, u64)> = HashMap::new();
    let mut clock = 0;
    for _ in 0..200_000 {
        clock += 1;
        t.begin_cycle();
        let key = Key {
            kid: rng.below(2),
            pc: 0x100 + 8 * rng.below(3),
            sv: [rng.below(5), rng.below(3), 0],
        };
        let set = t.set_of(&key);
        if rng.chance(1, 2) {
            let o = t.lookup(&key);
            match refm.get_mut(&key) {
                Some(e) => {
                    assert!(o.hit && (o.res, o.uid) == (e.0, e.1));
                    e.2 = clock;
                }
                None => assert!(!o.hit),
            }
        } else {
            let (res, uid) = (rng.below(1000), rng.below(4));
            let o = t.upsert(&key, res, uid);
            if let Some(e) = refm.get_mut(&key) {
                assert!(o.hit && o.uid == e.1 && !o.evict);
                e.1 = uid;
                e.2 = clock;
            } else {
                let in_set: Vec<Key> = refm
                    .keys()
                    .filter(|k| t.set_of(k) == set)
                    .copied()
                    .collect();
                assert_eq!(o.evict, in_set.len() == ways);
                if o.evict {
                    let oldest = *in_set.iter().min_by_key(|k| refm[*k].2).unwrap();
                    refm.remove(&oldest);
                }
                refm.insert(key, (res, uid, clock));
            }
        }
        t.check(false).unwrap();
    }
    t.check(true).unwrap();
    assert_eq!(t.occupancy(), refm.len());
}

#[test]
fn the_stimulus_is_reproducible() {
    let c = cfg(&["entries=64", "ways=4", "ports=2", "simd_width=4"]);
    let trace = |seed| {
        let layout = Layout::new(&c.ports());
        let mut s = DtmMtgStimulus::new(&c, seed);
        let mut m = DtmMtgModel::new(&c);
        let (mut i, mut o) = (vec![0u64; layout.in_words], vec![0u64; layout.out_words]);
        let mut all = vec![];
        for k in 0..2000 {
            s.next(k, &o, &mut i);
            m.step(&i, &mut o);
            all.extend_from_slice(&o);
        }
        all
    };
    assert_eq!(trace(3), trace(3));
    assert_ne!(trace(3), trace(4));
}
