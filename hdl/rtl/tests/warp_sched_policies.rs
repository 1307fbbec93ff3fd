//! The latency-hiding and barrier-aware policies of warp-sched: exact contract ports and
//! clean lint for small, default, maximum and odd sizes and every knob.

mod common;

use common::{assert_contract_ports, lint_all};
use warpforge_contract::params::Params;
use warpforge_contract::units::warp_sched::{WarpSchedConfig, NAME, PARAMS};

fn cfg(sets: &[&str]) -> WarpSchedConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(NAME, PARAMS, None, &sets).unwrap();
    WarpSchedConfig::from_params(&p).unwrap()
}

/// Every policy and knob at least once, at sizes from 2 to 64 warps.
fn configs() -> Vec<WarpSchedConfig> {
    let sets: &[&[&str]] = &[
        &["policy=mto", "warps=2", "schedulers=1"],
        &["policy=mto", "warps=48"],
        &[
            "policy=mto",
            "mem_order=oldest",
            "mto_comp_order=oldest",
            "warps=7",
        ],
        &["policy=mto", "split_ptr=true", "warps=64", "schedulers=1"],
        &["policy=motrr", "warps=4", "schedulers=1"],
        &["policy=motrr", "warps=48"],
        &[
            "policy=motrr",
            "split_ptr=true",
            "mem_order=oldest",
            "warps=33",
        ],
        &["policy=motrr-recency", "warps=2", "schedulers=1"],
        &["policy=motrr-recency", "warps=48"],
        &["policy=motrr-recency", "warps=16", "n_cpl=4", "cnt_bits=8"],
        &[
            "policy=motrr-recency",
            "warps=5",
            "rec_trigger=issue",
            "cnt_bits=1",
        ],
        &[
            "policy=motrr-recency",
            "warps=9",
            "rec_trigger=issue",
            "rec_class=global",
            "rec_cap=ceil",
            "split_ptr=true",
        ],
        &[
            "policy=motrr-recency",
            "warps=12",
            "rec_class=global",
            "rec_cap=below",
            "n_cpl=2",
            "schedulers=1",
        ],
        &["policy=bar-gto", "warps=2", "schedulers=1", "ctas=2"],
        &["policy=bar-gto", "warps=48"],
        &["policy=bar-gto", "warps=64", "ctas=16"],
        &["policy=bar-gto", "warps=11", "ctas=4", "bar_sched_en=false"],
    ];
    sets.iter().map(|s| cfg(s)).collect()
}

#[test]
fn top_module_has_exactly_the_contract_ports() {
    for c in configs() {
        let d = warpforge_hdl::warp_sched::generate(&c);
        assert_contract_ports(&d, &c.module_name(), &c.ports(), &d.module);
    }
}

#[test]
fn lint_clean_min_default_max_odd() {
    for c in configs() {
        lint_all(&warpforge_hdl::warp_sched::generate(&c));
    }
}
