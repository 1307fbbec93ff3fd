//! The four DWR units: the top module declares exactly the contract's ports, and the lint
//! tools pass, for small, default and extreme configurations.

mod common;

use common::{assert_contract_ports, lint_all};
use warpforge_contract::units::{dwr, dwr_ilt, dwr_pst, dwr_sco};
use warpforge_contract::Params;

fn params(unit: &str, specs: &[warpforge_contract::params::ParamSpec], sets: &[&str]) -> Params {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Params::resolve(unit, specs, None, &sets).unwrap_or_else(|e| panic!("{sets:?}: {}", e.0))
}

fn pst(sets: &[&str]) -> dwr_pst::PstConfig {
    dwr_pst::PstConfig::from_params(&params(dwr_pst::NAME, dwr_pst::PARAMS, sets)).unwrap()
}
fn ilt(sets: &[&str]) -> dwr_ilt::IltConfig {
    dwr_ilt::IltConfig::from_params(&params(dwr_ilt::NAME, dwr_ilt::PARAMS, sets)).unwrap()
}
fn sco(sets: &[&str]) -> dwr_sco::ScoConfig {
    dwr_sco::ScoConfig::from_params(&params(dwr_sco::NAME, dwr_sco::PARAMS, sets)).unwrap()
}
fn dwr_cfg(sets: &[&str]) -> dwr::DwrConfig {
    dwr::DwrConfig::from_params(&params(dwr::NAME, dwr::PARAMS, sets)).unwrap()
}

/// Geometries: the default (DWR-64, 1024 threads), DWR-32/16, the smallest, N = 256, a
/// non-power-of-two N, wide sub-warps.
const GEOMETRIES: &[&[&str]] = &[
    &[],
    &["group_size=4"],
    &["group_size=2", "pc_bits=12"],
    &["threads=16", "group_size=2", "pc_bits=4"],
    &["threads=256", "subwarp_size=1", "group_size=8"],
    &["threads=96", "group_size=2", "pc_bits=9"],
    &["threads=2048", "subwarp_size=32", "group_size=4"],
];

const ILTS: &[&[&str]] = &[
    &[],
    &["ilt_sets=4", "ilt_ways=4"],
    &["ilt_sets=2", "ilt_ways=4", "insert_ports=3"],
    &["ilt_sets=1", "ilt_ways=2", "pc_bits=4", "insert_ports=2"],
    &[
        "ilt_sets=16",
        "ilt_ways=16",
        "pc_shift=3",
        "insert_ports=3",
        "ilt_flush=false",
    ],
    &["ilt_sets=8", "ilt_ways=3", "pc_bits=7", "pc_shift=1"],
];

fn dwr_configs() -> Vec<Vec<&'static str>> {
    vec![
        vec![],
        vec!["threads=32", "group_size=4", "bar_lat=1"],
        vec![
            "threads=64",
            "group_size=8",
            "bar_lat=2",
            "sco_match=matched",
        ],
        vec![
            "threads=16",
            "group_size=2",
            "bar_lat=1",
            "d4_learn=false",
            "ilt_sets=1",
            "ilt_ways=2",
            "pc_bits=4",
        ],
        vec![
            "group_size=2",
            "ilt_sets=2",
            "ilt_ways=4",
            "fused_slices=one",
            "bar_lat=32",
        ],
        vec![
            "threads=96",
            "group_size=2",
            "bar_lat=3",
            "pc_bits=9",
            "ilt_flush=false",
            "sco_match=matched",
        ],
    ]
}

#[test]
fn pst_ports_and_lint() {
    for g in GEOMETRIES {
        let c = pst(g);
        let d = warpforge_hdl::dwr_pst::generate(&c);
        assert_contract_ports(&d, &c.module_name(), &c.ports(), &format!("{g:?}"));
        lint_all(&d);
    }
}

#[test]
fn ilt_ports_and_lint() {
    for i in ILTS {
        let c = ilt(i);
        let d = warpforge_hdl::dwr_ilt::generate(&c);
        assert_contract_ports(&d, &c.module_name(), &c.ports(), &format!("{i:?}"));
        lint_all(&d);
    }
}

#[test]
fn sco_ports_and_lint() {
    for g in GEOMETRIES {
        for m in ["sco_match=pc", "sco_match=matched"] {
            let mut sets = g.to_vec();
            sets.push(m);
            let c = sco(&sets);
            let d = warpforge_hdl::dwr_sco::generate(&c);
            assert_contract_ports(&d, &c.module_name(), &c.ports(), &format!("{sets:?}"));
            lint_all(&d);
        }
    }
}

/// The largest configuration: 256 sub-warps, a 16 × 16 ILT, BAR_LAT = 32.
const DWR_MAX: &[&str] = &[
    "threads=2048",
    "subwarp_size=8",
    "group_size=8",
    "ilt_sets=16",
    "ilt_ways=16",
    "pc_shift=3",
    "bar_lat=32",
    "sco_match=matched",
];

#[test]
fn dwr_max_ports_and_lint() {
    let c = dwr_cfg(DWR_MAX);
    let d = warpforge_hdl::dwr::generate(&c);
    assert_contract_ports(&d, &c.module_name(), &c.ports(), "DWR_MAX");
    lint_all(&d);
}

#[test]
fn dwr_ports_and_lint() {
    for sets in dwr_configs() {
        let c = dwr_cfg(&sets);
        let d = warpforge_hdl::dwr::generate(&c);
        assert_contract_ports(&d, &c.module_name(), &c.ports(), &format!("{sets:?}"));
        lint_all(&d);
    }
}
