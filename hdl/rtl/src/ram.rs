//! The RAM primitive ([`Ram`]) and the `ram` unit that wraps it (contract:
//! `warpforge_contract::units::ram`, normative; `docs/ram.md`).
//!
//! [`Ram`] is a rust-hdl block whose Verilog is written out directly (`Verilog::Custom`, as
//! `RegR` does): rust-hdl has no memory construct, and Yosys infers block RAM only from the
//! textbook pattern, an array written and read in clocked processes:
//!
//! ```verilog
//! reg [W-1:0] mem_rows [0:D-1];
//! always @(posedge clock) if (we) mem_rows[waddr] <= wdata;  // or one process per byte lane
//! always @(posedge clock) if (re) rdata <= mem_rows[raddr];  // old row on a collision: read-first
//! ```
//!
//! - Read-first: the read sees the array before this edge's nonblocking write, in every
//!   simulator and (Yosys guarantees it, adding forwarding logic where the block RAM does not
//!   define a collision) in hardware. No `no_rw_check`: that attribute would let Yosys drop the
//!   collision logic, and hardware would then differ from simulation on a collision.
//! - No reset: block RAMs cannot clear. The rows and `rdata` start at zero from an `initial`
//!   block (Yosys turns it into the block RAM's initial contents; Verilator runs it after its
//!   random initialisation).
//! - Byte lanes are unrolled at generation time (one process per lane, constant
//!   part-selects, no loop): Yosys merges them into one masked write port.
//! - With one port, `waddr` is the shared address and `raddr` is not read.
//!
//! Every instance is a module of its own (`<parent>__<field>`), as with every rust-hdl block.

use crate::primitives::{emit, Wire};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::ram::RamConfig;

/// A synchronous-read RAM: `depth` rows × `width` bits, registered read (1-cycle latency),
/// read-first on a same-row collision, optional byte write enables, no reset.
#[derive(LogicBlock)]
pub struct Ram {
    pub clock: Signal<In, Clock>,
    /// Write this cycle.
    pub we: Signal<In, Bit>,
    /// Byte enables (`width / 8` bits) with `byte_write`; otherwise one bit, not read.
    pub wbe: Wire<In>,
    /// The row written; with one port also the row read.
    pub waddr: Wire<In>,
    pub wdata: Wire<In>,
    /// Read this cycle; `rdata` holds otherwise.
    pub re: Signal<In, Bit>,
    /// The row read (two ports; not read with one port).
    pub raddr: Wire<In>,
    /// The row read at the last edge with `re`, as it was before that edge's write.
    pub rdata: Wire<Out>,
    /// Not signals (leading underscore: rust-hdl skips them).
    _depth: usize,
    _ports: usize,
    _byte_write: bool,
}

impl Ram {
    pub fn new(cfg: &RamConfig) -> Ram {
        assert!(
            cfg.depth >= 2 && cfg.depth.is_power_of_two(),
            "RAM depth {} is not a power of two ≥ 2",
            cfg.depth
        );
        assert!(cfg.ports == 1 || cfg.ports == 2, "RAM ports must be 1 or 2");
        assert!(
            !cfg.byte_write || cfg.width % 8 == 0,
            "byte writes need a width that is a multiple of 8"
        );
        let ab = cfg.addr_bits();
        Ram {
            clock: Default::default(),
            we: Default::default(),
            wbe: Wire::new(if cfg.byte_write { cfg.lanes() } else { 1 }),
            waddr: Wire::new(ab),
            wdata: Wire::new(cfg.width),
            re: Default::default(),
            raddr: Wire::new(ab),
            rdata: Wire::new(cfg.width),
            _depth: cfg.depth,
            _ports: cfg.ports,
            _byte_write: cfg.byte_write,
        }
    }

    /// The body of the module (ports are declared by rust-hdl).
    fn verilog(&self) -> String {
        let (w, d) = (self.wdata.width(), self._depth);
        let read_addr = if self._ports == 1 { "waddr" } else { "raddr" };
        let mut v = String::new();
        v += "// Block RAM: read-first, registered read, no reset (contents start at zero).\n";
        v += &format!("reg [{}:0] mem_rows [0:{}];\n", w - 1, d - 1);
        v += "integer mem_init;\n";
        v += "initial begin\n";
        v += &format!(
            "    for (mem_init = 0; mem_init < {d}; mem_init = mem_init + 1) mem_rows[mem_init] = {w}'d0;\n"
        );
        v += &format!("    rdata = {w}'d0;\n");
        v += "end\n";
        if self._byte_write {
            // One process per byte lane: Yosys merges the lanes into one masked write port
            // (and maps the mask to the block RAM's byte or bit enables), while one process
            // holding every lane makes its `proc` pass take minutes at 128 lanes.
            let lanes = w / 8;
            for k in 0..lanes {
                let en = if lanes == 1 {
                    "wbe".to_string()
                } else {
                    format!("wbe[{k}]")
                };
                let (hi, lo) = (8 * k + 7, 8 * k);
                v += &format!(
                    "always @(posedge clock) if (we && {en}) mem_rows[waddr][{hi}:{lo}] <= wdata[{hi}:{lo}];\n"
                );
            }
        } else {
            v += "always @(posedge clock) if (we) mem_rows[waddr] <= wdata;\n";
        }
        v += &format!("always @(posedge clock) if (re) rdata <= mem_rows[{read_addr}];\n");
        v
    }
}

impl Logic for Ram {
    // Simulation is Verilator's job; rust-hdl only generates.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.rdata.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(self.verilog())
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "ram".into(),
            clock: "clock".into(),
            inputs: vec![
                "we".into(),
                "wbe".into(),
                "waddr".into(),
                "wdata".into(),
                "re".into(),
                "raddr".into(),
            ],
            outputs: vec!["rdata".into()],
        }]
    }
}

/// A port that exists in some configurations only: rust-hdl sees it when present.
pub struct Opt<T>(pub Option<T>);

impl<T: Block> Logic for Opt<T> {
    fn update(&mut self) {}
    fn connect(&mut self) {}
}

impl<T: Block> Block for Opt<T> {
    fn connect_all(&mut self) {
        if let Some(x) = &mut self.0 {
            x.connect_all();
        }
    }
    fn update_all(&mut self) {
        if let Some(x) = &mut self.0 {
            x.update_all();
        }
    }
    fn has_changed(&self) -> bool {
        self.0.as_ref().is_some_and(|x| x.has_changed())
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        if let Some(x) = &self.0 {
            x.accept(name, probe);
        }
    }
}

/// The `ram` unit: the contract's ports around one [`Ram`]. Which ports exist depends on the
/// configuration (`addr` or `waddr`/`raddr`; `wbe` with byte writes), so the wiring is written
/// out as Verilog rather than as an `#[hdl_gen]` kernel.
#[derive(LogicBlock)]
pub struct RamUnit {
    pub clock: Signal<In, Clock>,
    /// Accepted like every unit's; the RAM has no reset.
    pub reset: Signal<In, Bit>,
    pub we: Signal<In, Bit>,
    pub addr: Opt<Wire<In>>,
    pub waddr: Opt<Wire<In>>,
    pub wdata: Wire<In>,
    pub wbe: Opt<Wire<In>>,
    pub re: Signal<In, Bit>,
    pub raddr: Opt<Wire<In>>,
    pub rdata: Wire<Out>,
    store: Ram,
}

impl RamUnit {
    pub fn new(cfg: &RamConfig) -> RamUnit {
        let ab = cfg.addr_bits();
        let some_if = |on: bool, width: usize| Opt(on.then(|| Wire::new(width)));
        RamUnit {
            clock: Default::default(),
            reset: Default::default(),
            we: Default::default(),
            addr: some_if(cfg.ports == 1, ab),
            waddr: some_if(cfg.ports == 2, ab),
            wdata: Wire::new(cfg.width),
            wbe: some_if(cfg.byte_write, cfg.lanes()),
            re: Default::default(),
            raddr: some_if(cfg.ports == 2, ab),
            rdata: Wire::new(cfg.width),
            store: Ram::new(cfg),
        }
    }
}

impl Logic for RamUnit {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.store.clock.connect();
        self.store.we.connect();
        self.store.wbe.connect();
        self.store.waddr.connect();
        self.store.wdata.connect();
        self.store.re.connect();
        self.store.raddr.connect();
        self.rdata.connect();
    }
    fn hdl(&self) -> Verilog {
        // Submodule ports as rust-hdl declares them (`store$x`); `emit` renames them.
        let (waddr, raddr) = if self.addr.0.is_some() {
            ("addr", "addr")
        } else {
            ("waddr", "raddr")
        };
        let wbe = if self.wbe.0.is_some() { "wbe" } else { "1'b1" };
        Verilog::Custom(format!(
            "always @(*) begin\n    store$clock = clock;\n    store$we = we;\n    \
             store$waddr = {waddr};\n    store$wdata = wdata;\n    store$wbe = {wbe};\n    \
             store$re = re;\n    store$raddr = {raddr};\n    rdata = store$rdata;\nend\n"
        ))
    }
}

/// Verilog of one `ram` configuration.
pub fn generate(cfg: &RamConfig) -> Design {
    let mut block = RamUnit::new(cfg);
    emit(&mut block, &cfg.module_name())
}
