mod common;

use common::{assert_contract_ports, lint_all};
use warpforge_contract::units::warp_sched::{IssuePolicy, WarpSchedConfig};

fn cfg(warps: usize, schedulers: usize, policy: IssuePolicy) -> WarpSchedConfig {
    WarpSchedConfig::new(warps, schedulers, policy)
}

/// Minimum, default, maximum and odd sizes, both policies.
fn configs() -> Vec<WarpSchedConfig> {
    let mut v = vec![];
    for policy in [IssuePolicy::Lrr, IssuePolicy::Gto] {
        v.push(cfg(2, 1, policy));
        v.push(cfg(2, 2, policy));
        v.push(cfg(48, 2, policy));
        v.push(cfg(64, 2, policy));
        v.push(cfg(64, 1, policy));
        v.push(cfg(7, 2, policy));
        v.push(cfg(33, 1, policy));
    }
    v
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
