//! sm-alu RTL: the top module's ports equal the contract's, the design is lint clean at the
//! smallest, default and largest width, and an Icarus simulation gives worked results of
//! docs/isa.md with one cycle of latency.

mod common;

use common::{assert_contract_ports, lint_all, num, simulate};
use warpforge_contract::params::Params;
use warpforge_contract::units::sm_alu::{self, SmAluConfig};

fn cfg(lanes: usize) -> SmAluConfig {
    cfg_deep(lanes, 1)
}

fn cfg_deep(lanes: usize, stages: usize) -> SmAluConfig {
    let p = Params::resolve(
        sm_alu::NAME,
        sm_alu::PARAMS,
        None,
        &[format!("lanes={lanes}"), format!("stages={stages}")],
    )
    .unwrap();
    SmAluConfig::from_params(&p).unwrap()
}

#[test]
fn top_module_has_exactly_the_contract_ports() {
    for lanes in [1, 2, 8, 64] {
        let c = cfg(lanes);
        let d = warpforge_hdl::sm::alu::generate(&c);
        assert_contract_ports(&d, &c.module_name(), &c.ports(), &d.module);
    }
}

#[test]
fn lint_clean_one_and_eight_lanes() {
    for lanes in [1, 8] {
        lint_all(&warpforge_hdl::sm::alu::generate(&cfg(lanes)));
    }
}

#[test]
fn lint_clean_two_lanes_every_depth() {
    for stages in 2..=4 {
        let c = cfg_deep(2, stages);
        let d = warpforge_hdl::sm::alu::generate(&c);
        assert_contract_ports(&d, &c.module_name(), &c.ports(), &d.module);
        lint_all(&d);
    }
}

#[test]
fn lint_clean_sixty_four_lanes() {
    lint_all(&warpforge_hdl::sm::alu::generate(&cfg(64)));
}

#[test]
fn icarus_gives_worked_results_one_cycle_later() {
    // One lane: fma that rounds once, then add.f32 of a tie, cvt.rni of 2.5, an idle cycle.
    let c = cfg(1);
    let steps = vec![
        vec![
            ("valid", 1),
            ("op", 43),
            ("a", 0x3F80_0800),
            ("b", 0x3F80_0800),
            ("c", 0xBF80_0000),
        ],
        vec![
            ("valid", 1),
            ("op", 40),
            ("a", 0x3F80_0000),
            ("b", 0x3380_0000),
        ],
        vec![("valid", 1), ("op", 57), ("a", 0x4020_0000)],
        vec![("valid", 1), ("op", 53), ("a", 0x7FC0_0000), ("b", 0)],
        vec![("valid", 1), ("op", 49), ("a", 0x7FC0_0000), ("b", 0)],
        vec![],
        vec![],
    ];
    let Some(seen) = simulate(&warpforge_hdl::sm::alu::generate(&c), &c.ports(), &steps) else {
        return;
    };
    assert_eq!(num(&seen[0], "out_valid"), 0);
    assert_eq!(num(&seen[1], "result"), 0x3A00_0400);
    assert_eq!(num(&seen[2], "result"), 0x3F80_0000);
    assert_eq!(num(&seen[3], "result"), 2);
    assert_eq!((num(&seen[4], "result"), num(&seen[4], "pred")), (0, 0));
    assert_eq!((num(&seen[5], "out_valid"), num(&seen[5], "pred")), (1, 1));
    assert_eq!(num(&seen[6], "out_valid"), 0);
}
