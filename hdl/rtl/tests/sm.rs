mod common;

use common::{assert_contract_ports, lint_all};
use warpforge_contract::params::Params;
use warpforge_contract::units::sm::{SmConfig, NAME, PARAMS};

fn cfg(sets: &[&str]) -> SmConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(NAME, PARAMS, None, &sets).unwrap();
    SmConfig::from_params(&p).unwrap()
}

fn small() -> SmConfig {
    cfg(&[
        "warps=4",
        "warp_size=8",
        "simd_width=8",
        "rf_kb=4",
        "shared_kb=1",
        "cta_slots=2",
        "pc_bits=8",
        "stack_depth=8",
    ])
}

#[test]
fn top_module_has_exactly_the_contract_ports() {
    for c in [small(), cfg(&[])] {
        let d = warpforge_hdl::sm::generate(&c);
        assert_contract_ports(&d, &c.module_name(), &c.ports(), &d.module);
    }
}

#[test]
fn generates_across_the_parameter_ranges() {
    for (w, t, l) in [
        (2, 2, 1),
        (64, 2, 2),
        (2, 64, 1),
        (3, 16, 16),
        (48, 32, 8),
        (64, 64, 64),
    ] {
        for (s, policy) in [("1", "gto"), ("2", "motrr-recency"), ("2", "bar-gto")] {
            let c = cfg(&[
                &format!("warps={w}"),
                &format!("warp_size={t}"),
                &format!("simd_width={l}"),
                &format!("schedulers={s}"),
                &format!("policy={policy}"),
                "stack_depth=2",
            ]);
            let d = warpforge_hdl::sm::generate(&c);
            assert_contract_ports(&d, &c.module_name(), &c.ports(), &d.module);
        }
    }
}

#[test]
fn lint_clean_small() {
    lint_all(&warpforge_hdl::sm::generate(&small()));
}

#[test]
fn lint_clean_lane_groups_two_schedulers_bar_gto_deep_lanes() {
    lint_all(&warpforge_hdl::sm::generate(&cfg(&[
        "warps=8",
        "warp_size=16",
        "simd_width=4",
        "schedulers=2",
        "policy=bar-gto",
        "rf_kb=8",
        "shared_kb=0",
        "cta_slots=1",
        "pc_bits=6",
        "stack_depth=4",
        "alu_stages=3",
    ])));
}

#[test]
fn lint_clean_smallest() {
    lint_all(&warpforge_hdl::sm::generate(&cfg(&[
        "warps=2",
        "warp_size=2",
        "simd_width=1",
        "rf_kb=1",
        "cta_slots=1",
        "pc_bits=4",
        "stack_depth=2",
    ])));
}

#[test]
#[ignore = "64 warps x 64 lanes: minutes in Yosys; run with --ignored"]
fn lint_clean_largest() {
    lint_all(&warpforge_hdl::sm::generate(&cfg(&[
        "warps=64",
        "warp_size=64",
        "simd_width=64",
        "rf_kb=256",
        "shared_kb=64",
        "cta_slots=16",
        "pc_bits=16",
        "stack_depth=4",
        "policy=motrr-recency",
        "schedulers=2",
    ])));
}

#[test]
#[ignore = "the default configuration (32 warps x 32 threads) takes minutes in Yosys; run with --ignored"]
fn lint_clean_default() {
    lint_all(&warpforge_hdl::sm::generate(&cfg(&[])));
}
