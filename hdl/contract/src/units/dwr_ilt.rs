//! `dwr-ilt`: DWR's Ignore-List Table (spec/dwr.md §2.8, §3.8; decisions A7–A10 of §7).
//!
//! This comment is the normative cycle-level contract of the unit; the same table is embedded
//! in the composite unit [`super::dwr`] with `insert_ports` = 3 (1 without `d4_learn`).
//!
//! A set-associative list of the PCs of *useless* sensitive barriers. `bar.synch_partner`
//! looks its own PC up every time it acts; a hit means "do not lock" (selective
//! synchronization). A PST PC mismatch inserts the arriving barrier's PC.
//!
//! # Geometry and indexing
//!
//! `sets` = `ilt_sets` (a power of two, 1 … 16) × `ways` = `ilt_ways` (2 … 16); entry
//! `e = set·ways + way`. Indexing by instruction index (A7, parameter `pc_shift`): the PC's
//! instruction index is `ix = pc >> pc_shift`; its set is `ix mod sets` (the low
//! `sb = log2(sets)` bits of `ix`) and its tag is `ix >> sb`, `tb = pc_bits − pc_shift − sb`
//! bits ([`IltConfig::set_of`], [`IltConfig::tag_of`]). The `pc_shift` low PC bits are ignored.
//! With the PCs of `contract::isa` (they count instructions) `pc_shift = 0`, which with 4 sets
//! is the thesis' "two low PC bits, 30-bit tag"; a byte-addressed front end with 2^k-byte
//! instructions sets `pc_shift = k` so that the sets are actually used (A7).
//!
//! # State and reset
//!
//! Per entry {valid, tag}; per set a FIFO pointer `ptr` (0 … ways−1, `pb` =
//! [`IltConfig::ptr_bits`] bits): the way the next insert into that set writes. Ways of a set
//! are therefore written in the order 0, 1, …, ways−1, 0, …; while a set is not full its valid
//! ways are exactly `0 … ptr−1`. Reset: every valid bit 0, every pointer 0.
//!
//! # Inputs (sampled in the cycle they are driven)
//!
//! - `reset`: synchronous; the next state is the reset state; other inputs are ignored;
//!   outputs in a reset cycle are unspecified (not compared).
//! - `flush`: kernel (grid) launch. With `ilt_flush = true` (A9 [REC]) the table is empty from
//!   the next cycle; with `ilt_flush = false` (the "persist" knob) it is ignored.
//! - `lookup_pc[P]`: the PC looked up this cycle (the acting barrier's PC).
//! - `ins_valid[K]`, `ins_pc[K·P]`: up to `K` = `insert_ports` insert requests; request `k`
//!   is bit `k` / field `k`. In the composite, request 0 is the PST mismatch and requests 1, 2
//!   are D4-learning inserts.
//!
//! # One cycle (not in reset)
//!
//! 1. **Lookup** on the registered state: `hit` = some valid way of `set_of(lookup_pc)` holds
//!    `tag_of(lookup_pc)`. A hit changes nothing (no replacement update on a hit, A8).
//! 2. **Inserts**, `k = 0 … K−1` in order, each on the table as left by the previous ones:
//!    request `k` with `ins_valid[k] = 1` and PC `q`, set `i = set_of(q)`:
//!    - a valid way of set `i` already holds `tag_of(q)` (a duplicate, possibly written by an
//!      earlier request of this cycle): nothing changes;
//!    - otherwise the way `v = ptr[i]` is written {valid 1, tag `tag_of(q)`}, `ptr[i] ← (v+1)
//!      mod ways`; if way `v` was valid, its PC is evicted (FIFO per set, A8 [REC]).
//! 3. **Flush**: if `flush` and `ilt_flush`, every valid bit and pointer becomes 0, discarding
//!    step 2.
//!
//! There is no other way to remove an entry (A10: no un-learning).
//!
//! # Outputs
//!
//! All combinational (Mealy): `hit` (step 1), `ins_written[K]` (request `k` wrote a way in
//! step 2), `ins_evict[K]` (and the way it wrote was valid). Both are 0 for every request in a
//! cycle whose flush is honoured.
//!
//! # State digest (registered state at the start of the cycle)
//!
//! `dbg_valid[E]`: bit `e`. `dbg_tag[E·tb]`: entry `e`'s tag in bits `[e·tb, (e+1)·tb)`, 0
//! when invalid. `dbg_ptr[sets·pb]`: set `i`'s pointer in bits `[i·pb, (i+1)·pb)`.
//!
//! # Storage
//!
//! `ilt`: `E × (1 + tb)` — the thesis' 31-bit entries, 124 B for 4 × 8 with 32-bit PCs (62 B
//! for 4 × 4, 32 B for 2 × 4). `extra_ilt_fifo`: `sets × pb` pointer bits the thesis does not
//! count (its replacement policy is unspecified).

use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "dwr-ilt";

pub const ILT_SETS: ParamSpec = ParamSpec::int(
    "ilt_sets",
    1,
    16,
    4,
    "ILT sets (a power of two); the set is the low bits of the instruction index",
);
pub const ILT_WAYS: ParamSpec =
    ParamSpec::int("ilt_ways", 2, 16, 8, "ILT ways per set, replaced FIFO");
pub const PC_SHIFT: ParamSpec = ParamSpec::int(
    "pc_shift",
    0,
    3,
    0,
    "log2 of the PC step per instruction: the ILT indexes PC >> pc_shift (A7; 0 = PCs count instructions)",
);
pub const ILT_FLUSH: ParamSpec = ParamSpec::boolean(
    "ilt_flush",
    true,
    "flush the ILT at kernel launch (A9); false = entries persist across launches",
);
pub const INSERT_PORTS: ParamSpec = ParamSpec::int(
    "insert_ports",
    1,
    3,
    1,
    "insert requests per cycle, applied in order (the dwr unit uses 3 with d4_learn)",
);

pub const PARAMS: &[ParamSpec] = &[
    ILT_SETS,
    ILT_WAYS,
    super::dwr::PC_BITS,
    PC_SHIFT,
    ILT_FLUSH,
    INSERT_PORTS,
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IltConfig {
    pub sets: usize,
    pub ways: usize,
    pub pc_bits: usize,
    pub pc_shift: usize,
    /// A9: `flush` empties the table (else it is ignored).
    pub flush_on_launch: bool,
    pub insert_ports: usize,
}

impl IltConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        IltConfig::new(
            p.usize("ilt_sets"),
            p.usize("ilt_ways"),
            p.usize("pc_bits"),
            p.usize("pc_shift"),
            p.bool("ilt_flush"),
            p.usize("insert_ports"),
        )
    }

    pub fn new(
        sets: usize,
        ways: usize,
        pc_bits: usize,
        pc_shift: usize,
        flush_on_launch: bool,
        insert_ports: usize,
    ) -> Result<Self, ParamError> {
        if !(1..=16).contains(&sets) || !sets.is_power_of_two() {
            return Err(ParamError(format!(
                "ilt_sets = {sets}: must be a power of two: 1, 2, 4, 8 or 16"
            )));
        }
        if !(2..=16).contains(&ways) {
            return Err(ParamError(format!(
                "ilt_ways = {ways}: must be an integer from 2 to 16"
            )));
        }
        if !(1..=3).contains(&insert_ports) {
            return Err(ParamError(format!(
                "insert_ports = {insert_ports}: must be an integer from 1 to 3"
            )));
        }
        let set_bits = sets.trailing_zeros() as usize;
        if pc_bits <= pc_shift + set_bits || pc_bits > 32 {
            return Err(ParamError(format!(
                "pc_bits = {pc_bits} leaves no ILT tag bits: needs pc_bits > pc_shift + log2(ilt_sets) = {pc_shift} + {set_bits} (and at most 32)"
            )));
        }
        Ok(IltConfig {
            sets,
            ways,
            pc_bits,
            pc_shift,
            flush_on_launch,
            insert_ports,
        })
    }

    /// E: entries.
    pub fn entries(&self) -> usize {
        self.sets * self.ways
    }
    /// log2(sets): bits of the set index (0 for one set).
    pub fn set_bits(&self) -> usize {
        self.sets.trailing_zeros() as usize
    }
    /// Tag bits: pc_bits − pc_shift − set_bits.
    pub fn tag_bits(&self) -> usize {
        self.pc_bits - self.pc_shift - self.set_bits()
    }
    /// Bits of one entry as the thesis counts them: valid + tag.
    pub fn entry_bits(&self) -> usize {
        1 + self.tag_bits()
    }
    /// Bits of a set's FIFO pointer (a way index).
    pub fn ptr_bits(&self) -> usize {
        index_bits(self.ways)
    }
    /// The set a PC maps to.
    pub fn set_of(&self, pc: u64) -> usize {
        ((pc >> self.pc_shift) as usize) & (self.sets - 1)
    }
    /// The tag a PC stores (bits above the set index of its instruction index).
    pub fn tag_of(&self, pc: u64) -> u64 {
        let tag = pc >> (self.pc_shift + self.set_bits());
        tag & ((1u64 << self.tag_bits()) - 1)
    }

    pub fn module_name(&self) -> String {
        format!(
            "dwr_ilt_{}x{}_p{}_sh{}_k{}_{}",
            self.sets,
            self.ways,
            self.pc_bits,
            self.pc_shift,
            self.insert_ports,
            if self.flush_on_launch { "f" } else { "k" }
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (p, k) = (self.pc_bits, self.insert_ports);
        vec![
            Port::input(
                "reset",
                1,
                "synchronous reset: every entry invalid, every FIFO pointer 0",
            ),
            Port::input("flush", 1, "kernel launch: empty the table (if ilt_flush)"),
            Port::input("lookup_pc", p, "PC of the barrier looked up this cycle"),
            Port::input(
                "ins_valid",
                k,
                "insert request k is present (applied in order k = 0, 1, ...)",
            ),
            Port::input("ins_pc", k * p, "PC of insert request k at k*pc_bits"),
            Port::output(
                "hit",
                1,
                true,
                "lookup_pc is in the table (registered contents)",
            ),
            Port::output(
                "ins_written",
                k,
                true,
                "request k wrote a way (it was not a duplicate)",
            ),
            Port::output(
                "ins_evict",
                k,
                true,
                "request k overwrote a valid entry (FIFO eviction)",
            ),
            Port::debug(
                "dbg_valid",
                self.entries(),
                "valid bit of entry set*ways+way",
            ),
            Port::debug(
                "dbg_tag",
                self.entries() * self.tag_bits(),
                "tag of entry e at e*tag_bits (0 if invalid)",
            ),
            Port::debug(
                "dbg_ptr",
                self.sets * self.ptr_bits(),
                "FIFO pointer of set i at i*ptr_bits",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        vec![
            Table::new(
                "ilt",
                self.entries(),
                self.entry_bits(),
                "ILT entries {valid, tag} (thesis §5-6)",
            ),
            Table::new(
                "extra_ilt_fifo",
                self.sets,
                self.ptr_bits(),
                "per-set FIFO victim pointer (A8; not in the thesis count)",
            ),
        ]
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
    use crate::manifest::split_storage;
    use crate::units::dwr::assert_port_names_ok;

    fn cfg(sets: &[&str]) -> Result<IltConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        IltConfig::from_params(&p)
    }

    #[test]
    fn thesis_sizes_32_16_8_entries() {
        for (geom, entry_bits, bytes) in [
            (["ilt_sets=4", "ilt_ways=8"], 31, 124),
            (["ilt_sets=4", "ilt_ways=4"], 31, 62),
            (["ilt_sets=2", "ilt_ways=4"], 32, 32),
        ] {
            let c = cfg(&geom).unwrap();
            let t = c.tables();
            let ilt = t.iter().find(|t| t.name == "ilt").unwrap();
            assert_eq!(ilt.bits, entry_bits, "{geom:?}");
            assert_eq!(ilt.total_bits(), bytes * 8, "{geom:?}");
            // the FIFO pointers are listed apart from the thesis count
            let s = split_storage(&t);
            assert_eq!(s.counted_bits, bytes * 8);
            assert_eq!(s.extra_bits, c.sets * c.ptr_bits());
        }
    }

    #[test]
    fn index_by_instruction_index() {
        let c = cfg(&[]).unwrap();
        assert_eq!((c.set_bits(), c.tag_bits(), c.ptr_bits()), (2, 30, 3));
        assert_eq!(c.set_of(10), 2);
        assert_eq!(c.tag_of(10), 2);
        assert_eq!(c.set_of(0xFFFF_FFFF), 3);
        assert_eq!(c.tag_of(0xFFFF_FFFF), (1 << 30) - 1);
        // byte-addressed PCs of 8-byte instructions: index = pc >> 3
        let b = cfg(&["pc_shift=3"]).unwrap();
        assert_eq!(b.tag_bits(), 27);
        assert_eq!(b.set_of(0x18), 3);
        assert_eq!(b.set_of(0x1F), 3);
        assert_eq!(b.tag_of(0x20), 1);
        // one set: every PC in set 0, tag = instruction index
        let one = cfg(&["ilt_sets=1", "pc_bits=8"]).unwrap();
        assert_eq!((one.set_bits(), one.tag_bits()), (0, 8));
        assert_eq!((one.set_of(0xAB), one.tag_of(0xAB)), (0, 0xAB));
    }

    #[test]
    fn port_widths() {
        let c = cfg(&[]).unwrap();
        let ports = c.ports();
        assert_port_names_ok(&ports);
        let w = |n: &str| ports.iter().find(|p| p.name == n).unwrap().width;
        assert_eq!(w("lookup_pc"), 32);
        assert_eq!(w("ins_valid"), 1);
        assert_eq!(w("dbg_valid"), 32);
        assert_eq!(w("dbg_tag"), 960);
        assert_eq!(w("dbg_ptr"), 12);
        let k3 = cfg(&["insert_ports=3", "ilt_sets=2", "ilt_ways=4", "pc_bits=12"]).unwrap();
        let ports = k3.ports();
        let w = |n: &str| ports.iter().find(|p| p.name == n).unwrap().width;
        assert_eq!(w("ins_pc"), 36);
        assert_eq!(w("ins_evict"), 3);
        assert_eq!(w("dbg_tag"), 8 * 11);
        assert_eq!(w("dbg_ptr"), 4);
        assert!(ports
            .iter()
            .filter(|p| p.name.starts_with("ins_w"))
            .all(|p| p.combinational));
    }

    #[test]
    fn validation() {
        assert_eq!(
            cfg(&["ilt_sets=6"]).unwrap_err().0,
            "ilt_sets = 6: must be a power of two: 1, 2, 4, 8 or 16"
        );
        let e = cfg(&["pc_bits=5", "ilt_sets=16", "pc_shift=1"]).unwrap_err();
        assert!(e.0.starts_with("pc_bits = 5 leaves no ILT tag bits"), "{e}");
        assert!(cfg(&["pc_bits=6", "ilt_sets=16", "pc_shift=1"]).is_ok());
        let e = cfg(&["ilt_ways=1"]).unwrap_err();
        assert_eq!(
            e.0,
            "--set ilt_ways=1: ilt_ways must be an integer from 2 to 16"
        );
    }

    #[test]
    fn module_names_distinguish_configs() {
        let a = cfg(&[]).unwrap().module_name();
        let b = cfg(&["ilt_flush=false"]).unwrap().module_name();
        let c = cfg(&["insert_ports=2"]).unwrap().module_name();
        assert!(a != b && b != c && a != c);
    }
}
