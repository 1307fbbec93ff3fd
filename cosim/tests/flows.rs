//! The lint and area flows on small hand-written modules, good and deliberately bad.

use warpforge_contract::{Manifest, Params, Port, Table};
use warpforge_cosim::area::{area, area_hierarchical, area_in, area_with_blocks};
use warpforge_cosim::lint::{lint, lint_in, LintReport};
use warpforge_cosim::tools::FlowError;
use warpforge_hdl::Design;

fn design(module: &str, verilog: &str) -> Design {
    Design {
        module: module.into(),
        verilog: verilog.into(),
    }
}

fn manifest(module: &str, ports: Vec<Port>, tables: Vec<Table>) -> Manifest {
    Manifest {
        unit: "test-unit".into(),
        module: module.into(),
        params: Params::defaults(&[]),
        ports,
        tables,
    }
}

/// An 8-bit register with synchronous reset, in rust-hdl's non-ANSI port style.
const REG8: &str = "
module reg8(clock, reset, d, q);
    input wire clock;
    input wire reset;
    input wire [7:0] d;
    output reg [7:0] q;
    always @(posedge clock) begin
        if (reset) q <= 8'd0;
        else q <= d;
    end
endmodule
";

fn reg8_manifest() -> Manifest {
    manifest(
        "reg8",
        vec![
            Port::input("reset", 1, ""),
            Port::input("d", 8, ""),
            Port::output("q", 8, false, ""),
        ],
        vec![Table::new("q", 1, 8, "the register")],
    )
}

fn run_lint(module: &str, verilog: &str, m: &Manifest) -> LintReport {
    lint(&design(module, verilog), m).expect("lint flow runs")
}

/// The failing checks, by name.
fn failed(r: &LintReport) -> Vec<&'static str> {
    r.checks()
        .into_iter()
        .filter(|(_, c)| !c.passed)
        .map(|(n, _)| n)
        .collect()
}

#[test]
fn clean_module_passes_every_check() {
    let r = run_lint("reg8", REG8, &reg8_manifest());
    assert!(r.passed, "{r}");
    assert!(failed(&r).is_empty());
    assert!(
        r.verilator.version.starts_with("Verilator"),
        "{}",
        r.verilator.version
    );
    assert!(r.yosys.version.starts_with("Yosys"), "{}", r.yosys.version);
    assert!(r.to_string().contains("passed"));
}

#[test]
fn waived_warnings_do_not_fail() {
    // WIDTH (8-bit sum into 4 bits), UNUSEDSIGNAL (`spare`), UNUSEDPARAM (`P`), and a
    // submodule whose name does not match the file (DECLFILENAME) are all waived.
    let v = "
module inc(input wire [3:0] a, output wire [3:0] y);
    parameter P = 3;
    wire [7:0] spare;
    assign spare = {a, a};
    assign y = a + 8'd1;
endmodule
module waived(input wire clock, input wire [3:0] a, output reg [3:0] q);
    wire [3:0] y;
    inc u(.a(a), .y(y));
    always @(posedge clock) q <= y;
endmodule
";
    let m = manifest(
        "waived",
        vec![Port::input("a", 4, ""), Port::output("q", 4, false, "")],
        vec![],
    );
    let r = run_lint("waived", v, &m);
    assert!(r.passed, "{r}");
}

#[test]
fn latch_fails_in_yosys() {
    let v = "
module latchy(input wire clock, input wire en, input wire [3:0] d, output reg [3:0] q);
    always @(*) if (en) q = d;
endmodule
";
    let m = manifest(
        "latchy",
        vec![
            Port::input("en", 1, ""),
            Port::input("d", 4, ""),
            Port::output("q", 4, true, ""),
        ],
        vec![],
    );
    let r = run_lint("latchy", v, &m);
    assert!(!r.passed);
    assert!(!r.yosys.passed, "{r}");
    assert!(
        r.yosys
            .diagnostics
            .iter()
            .any(|d| d.contains("Latch inferred")),
        "{:?}",
        r.yosys.diagnostics
    );
    // Icarus accepts latches, and the ports match: only the latch is wrong.
    assert!(r.iverilog.passed && r.ports.passed, "{r}");
}

#[test]
fn combinational_loop_fails_in_yosys() {
    let v = "
module loopy(input wire clock, input wire a, output wire y);
    wire b;
    wire c;
    assign b = a & c;
    assign c = b | a;
    assign y = c;
endmodule
";
    let m = manifest(
        "loopy",
        vec![Port::input("a", 1, ""), Port::output("y", 1, true, "")],
        vec![],
    );
    let r = run_lint("loopy", v, &m);
    assert!(!r.passed);
    assert!(!r.yosys.passed, "{r}");
    assert!(
        r.yosys.diagnostics.iter().any(|d| d.contains("logic loop")),
        "{:?}",
        r.yosys.diagnostics
    );
}

#[test]
fn loop_through_a_submodule_is_caught() {
    // Each module alone is loop-free; the loop only exists across the hierarchy.
    let v = "
module pass_through(input wire i, output wire o);
    assign o = ~i;
endmodule
module hier_loop(input wire clock, input wire a, output wire y);
    wire back;
    wire fwd;
    assign fwd = a ^ back;
    pass_through u(.i(fwd), .o(back));
    assign y = back;
endmodule
";
    let m = manifest(
        "hier_loop",
        vec![Port::input("a", 1, ""), Port::output("y", 1, true, "")],
        vec![],
    );
    let r = run_lint("hier_loop", v, &m);
    assert!(!r.yosys.passed, "{r}");
}

#[test]
fn unwaived_verilator_warning_fails() {
    // A blocking assignment in a clocked block (BLKSEQ): legal, synthesizable, not waived.
    let v = "
module blk(input wire clock, input wire [3:0] d, output reg [3:0] q);
    always @(posedge clock) q = d;
endmodule
";
    let m = manifest(
        "blk",
        vec![Port::input("d", 4, ""), Port::output("q", 4, false, "")],
        vec![],
    );
    let r = run_lint("blk", v, &m);
    assert!(!r.passed);
    assert_eq!(failed(&r), ["verilator"], "{r}");
    assert!(
        r.verilator.diagnostics.iter().any(|d| d.contains("BLKSEQ")),
        "{:?}",
        r.verilator.diagnostics
    );
    assert!(r.to_string().contains("BLKSEQ"));
}

#[test]
fn syntax_error_fails_every_tool() {
    let v = "module broken(input wire clock, output wire y); assign y = ; endmodule\n";
    let m = manifest("broken", vec![Port::output("y", 1, true, "")], vec![]);
    let r = run_lint("broken", v, &m);
    assert_eq!(
        failed(&r),
        ["verilator", "iverilog", "yosys", "ports"],
        "{r}"
    );
}

#[test]
fn port_mismatches_with_the_manifest_fail() {
    let base = reg8_manifest();
    let variants: Vec<(&str, Manifest)> = vec![
        ("width", {
            let mut m = base.clone();
            m.ports[1].width = 7;
            m
        }),
        ("direction", {
            let mut m = base.clone();
            m.ports[2] = Port::input("q", 8, "");
            m
        }),
        ("missing in Verilog", {
            let mut m = base.clone();
            m.ports.push(Port::output("extra", 1, false, ""));
            m
        }),
        ("missing in manifest", {
            let mut m = base.clone();
            m.ports.remove(0);
            m
        }),
        ("module name", {
            let mut m = base.clone();
            m.module = "other".into();
            m
        }),
    ];
    for (what, m) in variants {
        let r = run_lint("reg8", REG8, &m);
        assert_eq!(failed(&r), ["ports"], "{what}: {r}");
        assert!(!r.passed);
        assert_eq!(
            r.ports.diagnostics.len(),
            1,
            "{what}: {:?}",
            r.ports.diagnostics
        );
    }
}

#[test]
fn design_without_a_clock_fails_the_port_check() {
    let v = "module noclk(input wire a, output wire y); assign y = ~a; endmodule\n";
    let m = manifest(
        "noclk",
        vec![Port::input("a", 1, ""), Port::output("y", 1, true, "")],
        vec![],
    );
    let r = run_lint("noclk", v, &m);
    assert_eq!(failed(&r), ["ports"], "{r}");
    assert!(r.ports.diagnostics[0].contains("clock"));
}

#[test]
fn lint_report_serializes_with_per_tool_results() {
    let r = run_lint("reg8", REG8, &reg8_manifest());
    let j = serde_json::to_value(&r).unwrap();
    assert_eq!(j["unit"], "test-unit");
    assert_eq!(j["passed"], true);
    for tool in ["verilator", "iverilog", "yosys", "ports"] {
        assert_eq!(j[tool]["passed"], true, "{tool}");
        assert!(j[tool]["diagnostics"].is_array(), "{tool}");
    }
}

#[test]
fn area_of_an_8_bit_register() {
    let r = area(&design("reg8", REG8), &reg8_manifest()).expect("area flow runs");
    assert_eq!(r.storage_bits.total, 8);
    assert_eq!(r.storage_bits.tables[0].total, 8);
    assert_eq!(r.yosys.flip_flops, 8, "{:?}", r.yosys.cells);
    assert!(r.yosys.total_cells >= 8);
    // Eight flip-flops alone take well over a hundred transistors.
    assert!(
        r.yosys.cmos.transistors >= 8 * 10,
        "{}",
        r.yosys.cmos.transistors
    );
    assert_eq!(r.fpga.ice40.ffs, 8, "{:?}", r.fpga.ice40.cells);
    assert_eq!(r.fpga.ecp5.ffs, 8, "{:?}", r.fpga.ecp5.cells);
    assert_eq!(r.fpga.xilinx.ffs, 8, "{:?}", r.fpga.xilinx.cells);
    // A plain register needs no LUT logic, carries or RAMs.
    for f in [&r.fpga.ice40, &r.fpga.ecp5, &r.fpga.xilinx] {
        assert_eq!((f.carries, f.brams, f.dsps), (0, 0, 0));
    }
    // No I/O buffers: the unit is measured as a block inside the SM.
    assert!(!r.fpga.xilinx.cells.keys().any(|c| c.contains("BUF")));

    let j = serde_json::to_value(&r).unwrap();
    for key in ["unit", "storage_bits", "yosys", "fpga"] {
        assert!(j.get(key).is_some(), "{key}");
    }
    // One byte is below CACTI's smallest array: the table is costed as flip-flops.
    let c = &j["cacti"];
    let per_ff = c["transistors_per_flip_flop"].as_u64().unwrap();
    assert!(per_ff >= 8, "{c}");
    let t = &c["tables"][0];
    assert_eq!(t["name"], "q");
    assert_eq!(t["method"], "flip-flops");
    assert_eq!(t["flip_flop_transistors"].as_u64().unwrap(), 8 * per_ff);
    assert!(t["fallback_reason"].as_str().unwrap().contains("64 bytes"));
    assert!(t["nodes"].as_array().unwrap().is_empty());
    // No CACTI table: a total of zero (not -0).
    assert_eq!(c["total_mm2"][0]["mm2"].to_string(), "0.0");
    let text = r.to_string();
    assert!(
        text.contains("storage bits") && text.contains("ice40"),
        "{text}"
    );
}

/// A 16-bit accumulator: carries in every FPGA flow.
const ACC: &str = "
module acc(input wire clock, input wire [15:0] x, output reg [15:0] s);
    always @(posedge clock) s <= s + x;
endmodule
";

fn acc_manifest(tables: Vec<Table>) -> Manifest {
    manifest(
        "acc",
        vec![Port::input("x", 16, ""), Port::output("s", 16, false, "")],
        tables,
    )
}

#[test]
fn area_of_an_adder_uses_carries() {
    let r = area(&design("acc", ACC), &acc_manifest(vec![])).expect("area flow runs");
    assert_eq!(r.storage_bits.total, 0);
    assert_eq!(r.yosys.flip_flops, 16);
    assert!(r.yosys.total_cells > 16);
    assert!(
        r.fpga.ice40.carries > 0 && r.fpga.ice40.luts > 0,
        "{:?}",
        r.fpga.ice40
    );
    assert!(r.fpga.ecp5.carries > 0, "{:?}", r.fpga.ecp5);
    assert!(
        r.fpga.xilinx.carries > 0 && r.fpga.xilinx.luts > 0,
        "{:?}",
        r.fpga.xilinx
    );
}

/// A 512 × 90-bit table (CROWN's second-level row) in CACTI at both nodes, and a shape CACTI
/// refuses (two 512-bit rows) falling back to flip-flops with CACTI's reason.
#[test]
fn cacti_models_a_table_at_90_and_22_nm() {
    let m = acc_manifest(vec![
        Table::new("rows", 512, 90, ""),
        Table::new("wide", 2, 512, ""),
    ]);
    let r = area(&design("acc", ACC), &m).expect("area flow runs");
    let c = r.cacti.as_ref().expect("tables give a CACTI view");
    let rows = &c.tables[0];
    assert_eq!(rows.method, "cacti");
    assert_eq!(rows.nodes.len(), 2);
    let (n90, n22) = (&rows.nodes[0], &rows.nodes[1]);
    assert_eq!((n90.node_nm, n22.node_nm), (90, 22));
    // 46 080 bits: at 90 nm a 6T cell is about 1 µm², so between 0.05 and 0.5 mm² with
    // periphery; 22 nm is (90/22)² ≈ 17 times denser, so at least 5 times smaller.
    assert!(n90.area_mm2 > 0.05 && n90.area_mm2 < 0.5, "{n90:?}");
    assert!(n22.area_mm2 * 5.0 < n90.area_mm2, "{n22:?}");
    assert!(n22.access_ns < n90.access_ns && n22.access_ns > 0.0);
    assert!(n22.read_nj < n90.read_nj && n22.read_nj > 0.0);
    assert!(n90.write_nj > 0.0);
    let wide = &c.tables[1];
    assert_eq!(wide.method, "flip-flops");
    assert!(
        wide.fallback_reason
            .as_deref()
            .unwrap()
            .contains("CACTI at 90 nm"),
        "{wide:?}"
    );
    assert_eq!(
        wide.flip_flop_transistors,
        Some(1024 * c.transistors_per_flip_flop)
    );
    // The total is the CACTI tables' sum.
    assert_eq!(c.total_mm2[0].mm2, n90.area_mm2);
    let text = r.to_string();
    assert!(text.contains("rows             90 nm"), "{text}");
    assert!(text.contains("wide             flip-flops"), "{text}");
}

#[test]
fn storage_classes_and_overhead_over_a_baseline() {
    // The accumulator declared as a counted table, an extra and a baseline-held one.
    let m = acc_manifest(vec![
        Table::new("sum", 1, 8, ""),
        Table::new("extra_sum", 1, 4, ""),
        Table::new("base_sum", 1, 4, ""),
    ]);
    let mut r = area(&design("acc", ACC), &m).expect("area flow runs");
    let c = r.storage_bits.classes;
    assert_eq!((c.counted_bits, c.extra_bits, c.base_bits), (8, 4, 4));
    assert!((r.storage_bits.counted_share_of_sm - 1.0 / (128.0 * 1024.0)).abs() < 1e-12);
    assert!(r.to_string().contains("baseline-held"), "{r}");

    let base = area(&design("reg8", REG8), &reg8_manifest()).expect("area flow runs");
    r.set_overhead(&base);
    let o = r.overhead.as_ref().unwrap();
    assert_eq!(o.baseline_module, "reg8");
    assert_eq!(o.storage_bits, 16 - 8);
    assert_eq!(o.flip_flops, 16 - 8);
    assert_eq!(
        o.cells,
        r.yosys.total_cells as i64 - base.yosys.total_cells as i64
    );
    assert_eq!(
        o.xilinx_luts,
        r.fpga.xilinx.luts as i64 - base.fpga.xilinx.luts as i64
    );
    assert_eq!(o.baseline.transistors, base.yosys.cmos.transistors);
    let text = r.to_string();
    assert!(text.contains("overhead over reg8"), "{text}");
    assert!(text.contains("+100.0 %"), "16 flip-flops over 8: {text}");
    let j = serde_json::to_value(&r).unwrap();
    assert_eq!(j["overhead"]["flip_flops"], 8);
}

#[test]
fn area_of_broken_verilog_is_a_one_line_error() {
    let v = "module broken(input wire clock, output wire y); assign y = ; endmodule\n";
    let m = manifest("broken", vec![Port::output("y", 1, true, "")], vec![]);
    let err = area(&design("broken", v), &m).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, FlowError::ToolFailed { .. }), "{text}");
    assert!(text.starts_with("yosys synth"), "{text}");
    assert!(text.contains("ERROR"), "{text}");
    assert!(!text.contains('\n'));
    // The log named in the message was kept for the user.
    if let FlowError::ToolFailed { log: Some(log), .. } = &err {
        assert!(log.exists(), "{}", log.display());
        std::fs::remove_dir_all(log.parent().unwrap()).unwrap();
    } else {
        panic!("no log in {text}");
    }
}

#[test]
fn missing_tools_give_the_install_hint() {
    let empty = tempfile::tempdir().unwrap();
    let path = empty.path().as_os_str();
    let d = design("reg8", REG8);
    let m = reg8_manifest();
    let err = lint_in(&d, &m, path).unwrap_err();
    assert_eq!(
        err.to_string(),
        "verilator not found on PATH; install it with: apt-get install -y verilator"
    );
    let err = area_in(&d, &m, path).unwrap_err();
    assert_eq!(
        err.to_string(),
        "yosys not found on PATH; install it with: apt-get install -y yosys"
    );
    // Yosys alone: CACTI's hint names the set-up that builds it.
    let yosys_only = tempfile::tempdir().unwrap();
    let yosys = warpforge_cosim::tools::require("yosys").unwrap();
    std::os::unix::fs::symlink(yosys, yosys_only.path().join("yosys")).unwrap();
    let err = area_in(&d, &m, yosys_only.path().as_os_str()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cacti not found on PATH; build it with: bash scripts/install-tools.sh (CACTI 7 from \
         the sources in the PyPI package hwcomponents-cacti)"
    );
}

#[test]
fn bad_module_name_is_an_error_not_a_panic() {
    let d = design("reg8; shell", REG8);
    let err = lint(&d, &reg8_manifest()).unwrap_err();
    assert!(matches!(err, FlowError::BadInput(_)), "{err}");
    assert!(area(&d, &reg8_manifest()).is_err());
}

/// The per-block breakdown on a real design: the `ram` unit is one RAM instance (`store`) in
/// a wrapper, so the memory (a block RAM on iCE40; distributed RAM on ECP5 and Xilinx at this
/// small size) must be counted in `store`, nowhere else, and agree with the flattened totals;
/// generic synthesis leaves the array one memory cell.
#[test]
fn area_blocks_put_the_memory_in_its_instance() {
    let u = warpforge_cosim::registry::Unit::resolve(
        "ram",
        &["depth=16".to_string(), "width=8".to_string()],
    )
    .unwrap();
    let r = area_with_blocks(&u.design(), &u.manifest()).unwrap();
    let blocks = r.blocks.as_ref().expect("blocks were asked for");
    let names: Vec<&str> = blocks.iter().map(|b| b.block.as_str()).collect();
    assert_eq!(names, ["(top)", "store"]);
    let (top, store) = (&blocks[0], &blocks[1]);
    assert_eq!(store.ice40.brams, 1);
    for (name, top, store, flat) in [
        ("ice40", &top.ice40, &store.ice40, &r.fpga.ice40),
        ("ecp5", &top.ecp5, &store.ecp5, &r.fpga.ecp5),
        ("xilinx", &top.xilinx, &store.xilinx, &r.fpga.xilinx),
    ] {
        assert_eq!(
            top.brams + top.lutrams,
            0,
            "{name}: no memory in the wrapper"
        );
        assert!(
            store.brams + store.lutrams > 0,
            "{name}: the memory is in store"
        );
        assert_eq!(
            (store.brams, store.lutrams),
            (flat.brams, flat.lutrams),
            "{name}: the flattened total agrees"
        );
    }
    assert!(store.cells > 0);
    // Generic synthesis keeps the array a memory cell (its area is CACTI's), not 128 flip-flops.
    assert_eq!(r.yosys.ram_arrays, 1, "{:?}", r.yosys.cells);
    assert!(r.yosys.flip_flops < 16 * 8, "{:?}", r.yosys.cells);
}

/// `--hier` on a design of identical instances (`dtm-mtg` with 2 banks × 2 ways: two bank
/// modules merged into one, each with two way RAMs of one module and a meta RAM; narrow
/// fields so the four syntheses are short) gives the flat flow's totals: each distinct
/// module is synthesised once and counted per instance. Flip-flops, RAM arrays and every FPGA
/// memory count are identical; logic is not optimised across module boundaries, so generic
/// cells (1,751 against 1,732 flat) and transistors (16,850 against 16,730) are held to 5 %,
/// iCE40 LUTs to 5 %, ECP5 and Xilinx LUTs to 35 % (see below).
#[test]
fn hierarchical_area_agrees_with_the_flat_flow() {
    let sets: Vec<String> = [
        "entries=16",
        "ways=2",
        "ports=2",
        "simd_width=2",
        "val_bits=8",
        "uid_bits=4",
        "pc_bits=8",
        "kid_bits=1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let u = warpforge_cosim::registry::Unit::resolve("dtm-mtg", &sets).unwrap();
    let flat = area(&u.design(), &u.manifest()).unwrap();
    let hier = area_hierarchical(&u.design(), &u.manifest()).unwrap();
    assert!(hier.hierarchical && !flat.hierarchical);
    let (f, h) = (&flat.yosys, &hier.yosys);
    assert_eq!((h.flip_flops, h.ram_arrays), (f.flip_flops, f.ram_arrays));
    assert_eq!(h.ram_arrays, 6, "four way RAMs and two meta RAMs");
    let near = |a: u64, b: u64, tol: f64| (a as f64 - b as f64).abs() / (b as f64) < tol;
    eprintln!(
        "cells {} against {}, transistors {} against {}",
        h.total_cells, f.total_cells, h.cmos.transistors, f.cmos.transistors
    );
    assert!(
        near(h.total_cells, f.total_cells, 0.05),
        "{} cells against {} flat",
        h.total_cells,
        f.total_cells
    );
    assert!(
        near(h.cmos.transistors, f.cmos.transistors, 0.05),
        "{} transistors against {} flat",
        h.cmos.transistors,
        f.cmos.transistors
    );
    for (name, a, b, tol) in [
        ("ice40", &hier.fpga.ice40, &flat.fpga.ice40, 0.05),
        ("ecp5", &hier.fpga.ecp5, &flat.fpga.ecp5, 0.35),
        ("xilinx", &hier.fpga.xilinx, &flat.fpga.xilinx, 0.35),
    ] {
        assert_eq!(
            (a.ffs, a.brams, a.lutrams),
            (b.ffs, b.brams, b.lutrams),
            "{name}"
        );
        // Measured once the banks were modules: iCE40 1,088 against 1,077 (+1 %), ECP5 2,004
        // against 1,655 (+21 %), Xilinx 743 against 1,053 (−29 %): LUT mapping is not
        // optimised across the bank boundary, in either direction (not yet explained), so the
        // hierarchical ECP5 and Xilinx LUT counts are estimates within about a third of the
        // flat ones; iCE40's stay within 5 %.
        eprintln!("{name}: {} LUTs against {} flat", a.luts, b.luts);
        assert!(
            near(a.luts, b.luts, tol),
            "{name}: {} LUTs against {} flat",
            a.luts,
            b.luts
        );
    }
    assert_eq!(hier.storage_bits.total, flat.storage_bits.total);
}
