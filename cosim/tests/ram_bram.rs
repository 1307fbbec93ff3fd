//! The `ram` unit maps to block RAM on every FPGA family: Yosys `synth_ice40`, `synth_ecp5` and
//! `synth_xilinx` of its Verilog give block-RAM cells, and the storage is not a flip-flop (or
//! LUT-RAM) array: the flip-flops are a small fraction of the stored bits.

use warpforge_cosim::area::{fpga, FpgaResources};
use warpforge_cosim::registry::Unit;

fn count(r: &FpgaResources, cells: &[&str]) -> u64 {
    cells.iter().filter_map(|c| r.cells.get(*c)).sum()
}

/// Synthesise `sets` and check each family; returns (bits, ice40, ecp5, xilinx).
fn check(sets: &[&str], bits: usize) -> [FpgaResources; 3] {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let u = Unit::resolve("ram", &sets).unwrap();
    assert_eq!(u.manifest().storage_bits(), bits);
    let f = fpga(&u.design()).expect("yosys runs");
    // Far fewer flip-flops than stored bits: the rows are in block RAM (what remains is the
    // read register and Yosys' read-first logic on iCE40 and ECP5, about one row wide).
    let few = (bits / 100) as u64;
    for (name, r) in [
        ("ice40", &f.ice40),
        ("ecp5", &f.ecp5),
        ("xilinx", &f.xilinx),
    ] {
        assert!(r.brams > 0, "{name}: no block RAM: {:?}", r.cells);
        assert!(r.ffs < few, "{name}: {} flip-flops for {bits} bits", r.ffs);
        assert_eq!(r.lutrams, 0, "{name}: LUT RAM: {:?}", r.cells);
    }
    // Enough block RAM for every bit: 4 Kbit per SB_RAM40_4K, 18 Kbit per DP16KD or
    // PDPW16KD, 18 / 36 Kbit per RAMB18E1 / RAMB36E1.
    let ice = count(&f.ice40, &["SB_RAM40_4K"]);
    let ecp = count(&f.ecp5, &["DP16KD", "PDPW16KD"]);
    let x18 = count(&f.xilinx, &["RAMB18E1"]);
    let x36 = count(&f.xilinx, &["RAMB36E1"]);
    assert_eq!(ice, f.ice40.brams);
    assert_eq!(ecp, f.ecp5.brams);
    assert_eq!(x18 + x36, f.xilinx.brams);
    assert!(ice as usize * 4096 >= bits, "{ice} SB_RAM40_4K");
    assert!(ecp as usize * 18432 >= bits, "{ecp} DP16KD/PDPW16KD");
    assert!(
        (x18 + 2 * x36) as usize * 18432 >= bits,
        "{x18} RAMB18, {x36} RAMB36"
    );
    [f.ice40, f.ecp5, f.xilinx]
}

#[test]
fn default_ram_is_block_ram_on_ice40_ecp5_and_xilinx() {
    let [ice40, ecp5, xilinx] = check(&[], 512 * 90);
    // 512 x 90: twelve 512 x 8 iCE40 blocks, three 512 x 36 ECP5 / 7-series blocks; Xilinx
    // gives read-first natively, so nothing else.
    assert_eq!(ice40.brams, 12);
    assert_eq!(ecp5.brams, 3);
    assert_eq!(xilinx.brams, 3);
    assert_eq!((xilinx.ffs, xilinx.luts), (0, 0), "{:?}", xilinx.cells);
    eprintln!(
        "ice40 {:?}\necp5 {:?}\nxilinx {:?}",
        ice40.cells, ecp5.cells, xilinx.cells
    );
}

#[test]
fn byte_write_ram_is_block_ram_with_byte_enables() {
    let [ice40, ecp5, xilinx] = check(&["depth=1024", "width=32", "byte_write=true"], 32 * 1024);
    eprintln!(
        "ice40 {:?}\necp5 {:?}\nxilinx {:?}",
        ice40.cells, ecp5.cells, xilinx.cells
    );
}
