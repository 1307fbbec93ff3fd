//! ram RTL: the top module's ports equal the contract's, the design is lint clean at the
//! extremes of every parameter, and an Icarus simulation (a second simulator beside Verilator)
//! shows the contract's read latency, read-first collision and byte-enable merge.

mod common;

use common::{assert_contract_ports, lint_all, num, simulate, Step};
use warpforge_contract::params::Params;
use warpforge_contract::units::ram::{self, RamConfig};

fn cfg(sets: &[&str]) -> RamConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(ram::NAME, ram::PARAMS, None, &sets).unwrap();
    RamConfig::from_params(&p).unwrap()
}

fn configs() -> Vec<RamConfig> {
    let variants: &[&[&str]] = &[
        &[],
        &["depth=2", "width=1", "ports=1"],
        &["depth=16", "width=8", "byte_write=true"],
        &["depth=4096", "width=64", "ports=1", "byte_write=true"],
        &["depth=8", "width=1024", "ports=1", "byte_write=true"],
    ];
    variants.iter().map(|v| cfg(v)).collect()
}

#[test]
fn top_module_has_exactly_the_contract_ports() {
    for c in configs() {
        let d = warpforge_hdl::ram::generate(&c);
        assert_contract_ports(&d, &c.module_name(), &c.ports(), &d.module);
    }
}

#[test]
fn lint_clean_at_every_extreme() {
    // The 4096-row configuration is left out: Yosys needs minutes for its 4096-step
    // initial loop on a loaded machine (`warpforge lint` checks it on demand).
    for c in configs().into_iter().filter(|c| c.depth < 4096) {
        lint_all(&warpforge_hdl::ram::generate(&c));
    }
}

#[test]
fn memory_is_one_array_with_an_initial_zero_and_no_reset() {
    let d = warpforge_hdl::ram::generate(&cfg(&[]));
    assert_eq!(d.verilog.matches("reg [89:0] mem_rows [0:511];").count(), 1);
    assert!(d.verilog.contains("mem_rows[mem_init] = 90'd0;"));
    // The RAM module has no reset input.
    let ram_module = &d.verilog[d.verilog.find("module ram_d512_w90_p2__store(").unwrap()..];
    assert!(ram_module
        .starts_with("module ram_d512_w90_p2__store(clock,we,wbe,waddr,wdata,re,raddr,rdata);"));
    assert!(
        !d.verilog.contains("no_rw_check"),
        "collision logic must stay"
    );
}

/// 16 x 8 with byte writes (one lane: `wbe` is a scalar), two ports.
#[test]
fn icarus_read_latency_read_first_and_byte_enable() {
    let c = cfg(&["depth=16", "width=8", "byte_write=true"]);
    let d = warpforge_hdl::ram::generate(&c);
    let steps: Vec<Step> = vec![
        vec![("re", 1), ("raddr", 3)],
        vec![("we", 1), ("waddr", 3), ("wdata", 0x5a), ("wbe", 1)],
        // A write with the lane disabled changes nothing; a read of row 3 in its cycle.
        vec![
            ("we", 1),
            ("waddr", 3),
            ("wdata", 0xff),
            ("re", 1),
            ("raddr", 3),
        ],
        // Read during write of row 3: the old row.
        vec![
            ("we", 1),
            ("waddr", 3),
            ("wdata", 0x11),
            ("wbe", 1),
            ("re", 1),
            ("raddr", 3),
        ],
        vec![("re", 1), ("raddr", 3)],
        vec![],
    ];
    let Some(seen) = simulate(&d, &c.ports(), &steps) else {
        return;
    };
    let rdata: Vec<u128> = seen.iter().map(|s| num(s, "rdata")).collect();
    assert_eq!(rdata, [0, 0, 0, 0x5a, 0x5a, 0x11]);
}
