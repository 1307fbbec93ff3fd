//! `crown-l2` at its default (512 rows, Table 4-1) keeps its payload in block RAM on every
//! FPGA family, and its ready FIFO's ring in block RAM on iCE40 and ECP5 (Xilinx: distributed
//! RAM, Yosys's choice for 256 × 9 banks): `synth_ice40`, `synth_ecp5` and `synth_xilinx` give
//! block-RAM cells enough for those bits, LUT RAM only for the Xilinx ring, and
//! flip-flops only for the tables kept in flip-flops (state, in-pool bits, the FIFO's
//! pointers and its two head entries) plus the RAMs' read registers and read-first logic —
//! never a flip-flop array of the payload or the ring.

use warpforge_cosim::area::{fpga, FpgaResources};
use warpforge_cosim::registry::Unit;

fn count(r: &FpgaResources, cells: &[&str]) -> u64 {
    cells.iter().filter_map(|c| r.cells.get(*c)).sum()
}

/// Minutes of Yosys on a loaded two-core machine: run with
/// `cargo test --release --test crown_l2_bram -- --ignored`; the figures are in docs/crown.md. The RAM primitive's own BRAM test (`ram_bram.rs`) runs every time.
#[test]
#[ignore]
fn default_crown_l2_payload_is_block_ram_on_ice40_ecp5_and_xilinx() {
    let u = Unit::resolve("crown-l2", &[]).unwrap();
    let m = u.manifest();
    let bits = |name: &str| {
        m.tables
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .total_bits()
    };
    // The payload: pc and thi (Table 4-1's row without the state bits) and the lane mask.
    let payload = 512 * (32 + 8 * 7) + bits("extra_lane_valid");
    assert_eq!(payload, 49_152);
    // What stays in flip-flops: 2 state bits per row, the in-pool bits, the FIFO's pointers
    // and its two head entries (9 bits each) with the flag saying the second is a bank read.
    let ring = bits("extra_ready_fifo");
    assert_eq!(ring, 4608);
    let ff_tables = 512 * 2 + bits("extra_in_pool") + bits("extra_fifo_pointers") + 2 * 9 + 1;
    assert_eq!(ff_tables, 1024 + 512 + 28 + 19);
    let f = fpga(&u.design()).expect("yosys runs");
    // Per RAM: a read register and, on iCE40 / ECP5, Yosys' read-first forwarding (about two
    // rows); payload RAMs of 40 and 56 bits and two 9-bit ring banks, plus the unit's own
    // read-valid and read-row registers.
    let ram_side = 3 * (40 + 56 + 2 * 9) + 64;
    for (name, r) in [
        ("ice40", &f.ice40),
        ("ecp5", &f.ecp5),
        ("xilinx", &f.xilinx),
    ] {
        eprintln!(
            "{name}: {} block RAMs, {} FFs, {} LUTs, {:?}",
            r.brams, r.ffs, r.luts, r.cells
        );
        assert!(r.brams > 0, "{name}: no block RAM: {:?}", r.cells);
        if name == "xilinx" {
            // Yosys puts a 256 × 9 ring bank in distributed RAM (24 RAM64M for both): LUT
            // RAM is allowed for the ring, not for the payload (a cell holds ≤ 256 bits).
            assert!(
                (r.lutrams as usize) * 256 < payload / 4,
                "{name}: {} LUT RAM cells: the payload is not in block RAM",
                r.lutrams
            );
        } else {
            assert_eq!(r.lutrams, 0, "{name}: LUT RAM: {:?}", r.cells);
        }
        assert!(
            (r.ffs as usize) <= ff_tables + ram_side,
            "{name}: {} flip-flops, more than the {ff_tables} the flip-flop tables hold + {ram_side}",
            r.ffs
        );
        assert!(
            (r.ffs as usize) < payload / 4,
            "{name}: {} flip-flops for a {payload}-bit payload",
            r.ffs
        );
    }
    // Enough block RAM for every payload and (iCE40, ECP5) ring bit: 4 Kbit per SB_RAM40_4K,
    // 18 Kbit per DP16KD or PDPW16KD, 18 / 36 Kbit per RAMB18E1 / RAMB36E1.
    let ice = count(&f.ice40, &["SB_RAM40_4K"]);
    let ecp = count(&f.ecp5, &["DP16KD", "PDPW16KD"]);
    let x18 = count(&f.xilinx, &["RAMB18E1"]);
    let x36 = count(&f.xilinx, &["RAMB36E1"]);
    assert_eq!(ice, f.ice40.brams);
    assert_eq!(ecp, f.ecp5.brams);
    assert_eq!(x18 + x36, f.xilinx.brams);
    let stored = payload + ring;
    assert!(ice as usize * 4096 >= stored, "{ice} SB_RAM40_4K");
    assert!(ecp as usize * 18432 >= stored, "{ecp} DP16KD/PDPW16KD");
    assert!(
        (x18 + 2 * x36) as usize * 18432 >= payload,
        "{x18} RAMB18, {x36} RAMB36"
    );
}
