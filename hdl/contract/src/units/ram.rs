//! `ram`: the synchronous-read RAM primitive as a unit of its own, so that it is proven like
//! every other unit (lint, lockstep against an independent model, spec vectors, area). The SM
//! register file, CROWN's second-level table and DTM's memo tables are built from it.
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::ram`) and the
//! model (`warpforge_testbench::ram`) are written from it independently. `docs/ram.md` has the
//! timing diagram and the FPGA mapping.
//!
//! # What the unit is
//!
//! `depth` rows of `width` bits, one read port with a registered output (1-cycle latency) and
//! one write port. With `ports = 2` (simple dual port) the two have their own address; with
//! `ports = 1` (single port) one address `addr` serves both. With `byte_write` the row is
//! written byte by byte under `wbe` (`width` a multiple of 8). There is no true dual port: the
//! iCE40 block RAM has one read and one write port, so a second write port would not map.
//!
//! # Sizes
//!
//! `D` = `depth` (a power of two, 2 … 4096: every address names a row; see [`MAX_DEPTH`]), `W` = `width`
//! (1 … 1024), `ab` = log2 D address bits, `B` = W / 8 byte lanes (with `byte_write`).
//!
//! # Inputs (sampled in the cycle they are driven; every value is legal in every cycle)
//!
//! - `reset`: the harness's reset. The RAM has none (block RAMs cannot clear): a reset cycle
//!   reads and writes like any other, and neither the rows nor `rdata` change because of it.
//! - `we`: write this cycle. `wdata[W]`: the data; `wbe[B]` (with `byte_write` only): byte
//!   lane `k` (bits `8k … 8k+7`) is written only if `wbe[k]`; without `byte_write` the whole
//!   row is written.
//! - `waddr[ab]` (`ports = 2`) or `addr[ab]` (`ports = 1`): the row written.
//! - `re`: read this cycle. `raddr[ab]` (`ports = 2`) or `addr[ab]` (`ports = 1`): the row read.
//!
//! # The clock edge
//!
//! With `re`: `rdata ← row[raddr]` as it was **before** this edge; without `re`: `rdata` keeps
//! its value. With `we`: `row[waddr]` ← `wdata` (byte lanes with `wbe` set only, with
//! `byte_write`). Read during write of the same row (`re ∧ we ∧ raddr = waddr`, and every
//! `re ∧ we` cycle with `ports = 1`): the read returns the **old** row (read-first); the
//! write happens. This is deterministic on every target: Xilinx block RAM does it natively
//! (READ_FIRST); iCE40 and ECP5 block RAMs leave a same-cycle collision undefined, so Yosys
//! adds the logic that gives it (a one-cycle write delay with forwarding: about W + ab
//! flip-flops and W LUTs per read port, never a flip-flop array; `docs/ram.md` has the
//! measured counts).
//!
//! # Outputs
//!
//! Registered: `rdata[W]` = the last row read (1-cycle read latency). At start-up every row and
//! `rdata` are zero (an `initial` block: block-RAM initial contents on FPGAs; Verilator runs it
//! after its random initialisation).
//!
//! # State and storage
//!
//! `rows`: D × W bits (the table `area` counts). There is no state-digest port: the rows are
//! observed through reads, which the stimulus issues nearly every cycle.

use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "ram";

/// Largest `depth`. Yosys 0.23 unrolls the `initial` loop that zeroes the rows in time that
/// grows faster than the depth (4096 rows: seconds; 16384: over two minutes of CPU in the
/// Verilog frontend alone), so lint and synthesis of deeper memories would time out; a deeper
/// table is several of these.
pub const MAX_DEPTH: usize = 1 << 12;
/// Largest `width`.
pub const MAX_WIDTH: usize = 1024;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::int(
        "depth",
        2,
        MAX_DEPTH as i64,
        512,
        "rows (a power of two); 512 x 90 is CROWN's second-level table row",
    ),
    ParamSpec::int("width", 1, MAX_WIDTH as i64, 90, "bits per row"),
    ParamSpec::int(
        "ports",
        1,
        2,
        2,
        "1: one address for read or write; 2: simple dual port (a write port and a read port)",
    ),
    ParamSpec::boolean(
        "byte_write",
        false,
        "per-byte write enables wbe (width a multiple of 8)",
    ),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RamConfig {
    pub depth: usize,
    pub width: usize,
    /// 1 (single port) or 2 (simple dual port).
    pub ports: usize,
    pub byte_write: bool,
}

impl Default for RamConfig {
    fn default() -> Self {
        RamConfig {
            depth: 512,
            width: 90,
            ports: 2,
            byte_write: false,
        }
    }
}

impl RamConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let depth = p.int("depth");
        if !(2..=MAX_DEPTH as i64).contains(&depth) || !(depth as u64).is_power_of_two() {
            return Err(ParamError(format!(
                "depth = {depth}: must be a power of two from 2 to {MAX_DEPTH} (so that every address names a row)"
            )));
        }
        let width = p.int("width");
        if !(1..=MAX_WIDTH as i64).contains(&width) {
            return Err(ParamError(format!(
                "width = {width}: must be an integer from 1 to {MAX_WIDTH}"
            )));
        }
        let ports = p.int("ports");
        if !(1..=2).contains(&ports) {
            return Err(ParamError(format!(
                "ports = {ports}: must be 1 (single port) or 2 (simple dual port)"
            )));
        }
        let byte_write = p.bool("byte_write");
        if byte_write && width % 8 != 0 {
            return Err(ParamError(format!(
                "byte_write = true with width = {width}: per-byte write enables need a width that is a multiple of 8"
            )));
        }
        Ok(RamConfig {
            depth: depth as usize,
            width: width as usize,
            ports: ports as usize,
            byte_write,
        })
    }

    /// Address bits.
    pub fn addr_bits(&self) -> usize {
        index_bits(self.depth)
    }

    /// Byte lanes of a row (with `byte_write`).
    pub fn lanes(&self) -> usize {
        self.width / 8
    }

    pub fn module_name(&self) -> String {
        format!(
            "ram_d{}_w{}_p{}{}",
            self.depth,
            self.width,
            self.ports,
            if self.byte_write { "_be" } else { "" }
        )
    }

    /// The name of the write address port (`waddr`, or `addr` with one port).
    pub fn write_addr_port(&self) -> &'static str {
        if self.ports == 1 {
            "addr"
        } else {
            "waddr"
        }
    }

    /// The name of the read address port (`raddr`, or `addr` with one port).
    pub fn read_addr_port(&self) -> &'static str {
        if self.ports == 1 {
            "addr"
        } else {
            "raddr"
        }
    }

    pub fn ports(&self) -> Vec<Port> {
        let (ab, w) = (self.addr_bits(), self.width);
        let mut v = vec![
            Port::input(
                "reset",
                1,
                "the harness's reset; the RAM has none: rows and rdata are unchanged by it",
            ),
            Port::input("we", 1, "write this cycle"),
        ];
        if self.ports == 1 {
            v.push(Port::input(
                "addr",
                ab,
                "the row written (we) and read (re): one port",
            ));
        } else {
            v.push(Port::input("waddr", ab, "the row written"));
        }
        v.push(Port::input("wdata", w, "the data written"));
        if self.byte_write {
            v.push(Port::input(
                "wbe",
                self.lanes(),
                "byte enables: lane k (bits 8k..8k+7) is written only if wbe[k]",
            ));
        }
        v.push(Port::input(
            "re",
            1,
            "read this cycle (rdata holds otherwise)",
        ));
        if self.ports == 2 {
            v.push(Port::input("raddr", ab, "the row read"));
        }
        v.push(Port::output(
            "rdata",
            w,
            false,
            "the row read in the previous read cycle, as it was before that cycle's write (read-first)",
        ));
        v
    }

    pub fn tables(&self) -> Vec<Table> {
        vec![Table::new(
            "rows",
            self.depth,
            self.width,
            "the RAM's rows (block RAM on FPGAs)",
        )]
    }

    pub fn manifest(&self, params: &Params) -> Manifest {
        Manifest {
            unit: NAME.into(),
            module: self.module_name(),
            params: params.clone(),
            ports: self.ports(),
            tables: self.tables(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Dir;
    use crate::units::dwr::assert_port_names_ok;

    fn cfg(sets: &[&str]) -> Result<RamConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        RamConfig::from_params(&p)
    }

    fn names(ports: &[Port]) -> Vec<&str> {
        ports.iter().map(|p| p.name.as_str()).collect()
    }

    #[test]
    fn defaults_are_the_crown_second_level_row() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, RamConfig::default());
        assert_eq!(
            (c.depth, c.width, c.ports, c.byte_write),
            (512, 90, 2, false)
        );
        assert_eq!(c.addr_bits(), 9);
        assert_eq!(c.tables()[0].total_bits(), 512 * 90);
        assert_eq!(c.module_name(), "ram_d512_w90_p2");
    }

    #[test]
    fn ports_follow_the_port_count_and_byte_write() {
        let two = cfg(&[]).unwrap().ports();
        assert_port_names_ok(&two);
        assert_eq!(
            names(&two),
            ["reset", "we", "waddr", "wdata", "re", "raddr", "rdata"]
        );
        let one = cfg(&["ports=1", "depth=16", "width=8", "byte_write=true"])
            .unwrap()
            .ports();
        assert_port_names_ok(&one);
        assert_eq!(
            names(&one),
            ["reset", "we", "addr", "wdata", "wbe", "re", "rdata"]
        );
        let w = |ports: &[Port], n: &str| ports.iter().find(|p| p.name == n).unwrap().width;
        assert_eq!(
            (w(&one, "addr"), w(&one, "wbe"), w(&one, "rdata")),
            (4, 1, 8)
        );
        let big = cfg(&["depth=4096", "width=1024", "byte_write=true"])
            .unwrap()
            .ports();
        assert_eq!((w(&big, "raddr"), w(&big, "wbe")), (12, 128));
        for p in &big {
            assert!(!p.debug);
            if p.dir == Dir::Out {
                assert!(!p.combinational, "rdata is registered");
            }
        }
    }

    #[test]
    fn validation_names_values_and_what_is_allowed() {
        assert_eq!(
            cfg(&["depth=48"]).unwrap_err().0,
            "depth = 48: must be a power of two from 2 to 4096 (so that every address names a row)"
        );
        assert_eq!(
            cfg(&["depth=1"]).unwrap_err().0,
            "--set depth=1: depth must be an integer from 2 to 4096"
        );
        assert_eq!(
            cfg(&["width=0"]).unwrap_err().0,
            "--set width=0: width must be an integer from 1 to 1024"
        );
        assert_eq!(
            cfg(&["ports=3"]).unwrap_err().0,
            "--set ports=3: ports must be an integer from 1 to 2"
        );
        assert_eq!(
            cfg(&["byte_write=true"]).unwrap_err().0,
            "byte_write = true with width = 90: per-byte write enables need a width that is a multiple of 8"
        );
        assert!(cfg(&["byte_write=true", "width=96"]).is_ok());
        assert!(cfg(&["depth=2", "width=1", "ports=1"]).is_ok());
        assert_eq!(
            cfg(&["depth=8192"]).unwrap_err().0,
            "--set depth=8192: depth must be an integer from 2 to 4096"
        );
    }

    #[test]
    fn module_names_differ_per_configuration() {
        let mut seen = std::collections::BTreeSet::new();
        for v in [
            &[][..],
            &["ports=1"],
            &["width=96"],
            &["width=96", "byte_write=true"],
            &["depth=1024"],
        ] {
            assert!(seen.insert(cfg(v).unwrap().module_name()), "{v:?}");
        }
    }
}
