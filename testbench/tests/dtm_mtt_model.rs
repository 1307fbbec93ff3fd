//! The `dtm-mtt` model: its spec vectors, its invariants under constrained-random stimulus on
//! several configurations with the coverage the stimulus reaches, the fault the lockstep test
//! plants caught by a spec vector, the protocol break it flags, and reproducibility.

use warpforge_contract::units::dtm_mtt::{self, MttConfig};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::dtm_mtt::{
    ctx_words, spec_vectors, DtmMttModel, DtmMttStimulus, MttFault,
};
use warpforge_testbench::harness::{self, first_failure, io_trace, run_vector};
use warpforge_testbench::Model;

fn cfg(sets: &[&str]) -> MttConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(dtm_mtt::NAME, dtm_mtt::PARAMS, None, &sets).unwrap();
    MttConfig::from_params(&p).unwrap()
}

fn vcfg(v: &warpforge_testbench::SpecVector) -> MttConfig {
    let s: Vec<&str> = v.sets.iter().map(|s| s.as_str()).collect();
    cfg(&s)
}

#[test]
fn spec_vectors_pass_on_the_model() {
    let vectors = spec_vectors();
    assert!(vectors.len() >= 5);
    for v in &vectors {
        let c = vcfg(v);
        run_vector(&mut DtmMttModel::new(&c), &Layout::new(&c.ports()), v)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn the_planted_fault_fails_a_spec_vector() {
    let caught = spec_vectors().iter().any(|v| {
        let c = vcfg(v);
        let mut m = DtmMttModel::new(&c);
        m.inject_fault(Some(MttFault::VictimMru));
        harness::misses_an_expectation(&mut m, &Layout::new(&c.ports()), v)
    });
    assert!(caught);
}

#[test]
fn invariants_hold_and_coverage_is_reached() {
    for (sets, seed) in [
        (
            vec!["entries=16", "ways=4", "k_in=2", "k_out=1", "val_bits=8"],
            1,
        ),
        (
            vec![
                "entries=32",
                "ways=8",
                "cand=3",
                "l_max=5",
                "pc_bits=12",
                "pc_shift=0",
            ],
            2,
        ),
        (
            vec!["entries=16", "ways=16", "cand=16", "k_in=8", "k_out=8"],
            3,
        ),
        (vec![], 4),
    ] {
        let c = cfg(&sets);
        let layout = Layout::new(&c.ports());
        let mut m = DtmMttModel::new(&c);
        let mut s = DtmMttStimulus::new(&c, seed);
        assert_eq!(
            first_failure(&mut m, &mut s, &layout, 60_000),
            None,
            "{sets:?}"
        );
        for (name, n) in m.events() {
            assert!(n > 0, "{sets:?}: event {name} never happened");
        }
    }
}

#[test]
fn a_lookup_with_an_upsert_breaks_the_protocol() {
    let c = cfg(&["entries=16"]);
    let l = Layout::new(&c.ports());
    let m = DtmMttModel::new(&c);
    let mut x = vec![0u64; l.in_words];
    x[l.input("lk_valid").unwrap().offset] = 1;
    assert!(m.check_inputs(&x).is_ok());
    x[l.input("up_valid").unwrap().offset] = 1;
    x[l.input("up_len").unwrap().offset] = 2;
    assert!(m.check_inputs(&x).unwrap_err().contains("up_valid"));
}

#[test]
fn stimulus_is_reproducible() {
    let c = cfg(&["entries=32", "ways=4"]);
    let l = Layout::new(&c.ports());
    let run = |seed| {
        io_trace(
            &mut DtmMttModel::new(&c),
            &mut DtmMttStimulus::new(&c, seed),
            &l,
            3000,
        )
    };
    assert_eq!(run(9), run(9));
    assert_ne!(run(9), run(10));
}

/// I4 is worked out when a row is written: an upsert of a row with a bad length or a rid
/// twice in a context fails the check in the cycle its write lands, naming the set and way.
#[test]
fn a_bad_row_fails_i4_in_the_cycle_it_is_written() {
    let c = cfg(&["entries=16", "ways=4"]);
    let l = Layout::new(&c.ports());
    let at = |n: &str| l.input(n).unwrap().offset;
    let two = [Some((3, 1)), Some((3, 2)), None, None];
    let one = [Some((3, 1)), None, None, None];
    for (len, ic, want) in [(1, one, "len 1"), (2, two, "repeated rid")] {
        let mut m = DtmMttModel::new(&c);
        let mut out = vec![0u64; l.out_words];
        let mut x = vec![0u64; l.in_words];
        x[at("reset")] = 1;
        m.step(&x, &mut out);
        x[at("reset")] = 0;
        x[at("up_valid")] = 1;
        x[at("up_pc")] = 0x40;
        x[at("up_npc")] = 0x40 + 8 * len;
        x[at("up_len")] = len;
        for (o, w) in [
            (at("up_ic"), ctx_words(&c, &ic)),
            (at("up_oc"), ctx_words(&c, &one)),
        ] {
            x[o..o + w.len()].copy_from_slice(&w);
        }
        m.step(&x, &mut out);
        assert_eq!(m.check_invariants(), Ok(()));
        m.step(&vec![0u64; l.in_words], &mut out);
        let e = m.check_invariants().unwrap_err();
        assert!(e.starts_with("I4: set ") && e.ends_with(want), "{e}");
    }
}
