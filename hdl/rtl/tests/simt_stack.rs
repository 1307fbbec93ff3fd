mod common;

use common::{assert_contract_ports, lint_all};
use warpforge_contract::units::simt_stack::SimtStackConfig;

fn cfg(warp_size: usize, pc_bits: usize, depth: usize) -> SimtStackConfig {
    SimtStackConfig {
        warp_size,
        pc_bits,
        depth,
    }
}

/// Minimum, default, maximum and odd sizes.
fn configs() -> Vec<SimtStackConfig> {
    vec![
        cfg(2, 4, 2),
        cfg(32, 32, 32),
        cfg(64, 32, 64),
        cfg(7, 5, 3),
        cfg(33, 13, 17),
    ]
}

#[test]
fn top_module_has_exactly_the_contract_ports() {
    for c in configs() {
        let d = warpforge_hdl::simt_stack::generate(&c);
        assert_contract_ports(&d, &c.module_name(), &c.ports(), &d.module);
    }
}

#[test]
fn lint_clean_min_default_max_odd() {
    for c in configs() {
        lint_all(&warpforge_hdl::simt_stack::generate(&c));
    }
}
