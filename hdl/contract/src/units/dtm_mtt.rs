//! `dtm-mtt`: DTM@GPU's trace memo table, "Memo Table T" (spec/dtm.md §2.3, §2.5, §3.3,
//! §3.5 rule 2; A8, A11, A15, A18).
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::dtm_mtt`) and
//! the model (`warpforge_testbench::dtm_mtt`) are written from it independently.
//!
//! # What the unit is
//!
//! `entries` rows in `sets = entries / ways` sets of `ways` ways. A row is a memoized trace
//! `{valid, kid, pc, npc, len, ic[k_in], oc[k_out]}`; a context slot is `{v, rid, val}`
//! (`rid` 9 bits: 1 class bit + 8-bit index, §2.3). `valid` and `kid` live in flip-flops
//! (a kernel retire clears every row of one `kid` in one cycle, A18); `pc, npc, len, ic, oc`
//! live in block RAM, one RAM primitive per way (depth `sets`), all ways read in the same
//! cycle at the set index. Per set, true LRU as a rank per way (0 = MRU, `ways-1` = LRU).
//!
//! **Set index** (§2.5's `H` without values): `((pc >> pc_shift) ^ kid) mod sets`.
//!
//! **Widths.** `val_bits` defaults to 32: the project's ISA is 32-bit (the digest's A4 default
//! of 64 is for PTX). `len` holds 0..=`l_max` (5 bits at 16).
//!
//! # Inputs (sampled in the cycle they are driven)
//!
//! - `reset`: synchronous; next state: no valid row, ranks `rank[w] = w` in every set, the
//!   pipeline empty. The RAM is not cleared (a row is written whenever it becomes valid).
//! - `lk_valid, lk_kid, lk_pc`: a lookup (stage 1): the set is read.
//! - `cv_val`: the register values of the candidates shown on `cand_*` in the previous cycle:
//!   candidate `c`'s input slot `k` at `(c·k_in + k)·val_bits` (stage 3; ignored for
//!   candidates or slots that are not valid).
//! - `up_valid, up_kid, up_pc, up_npc, up_len, up_ic, up_oc`: an upsert (stage 1): the set is
//!   read. Invalid context slots must be all zero (the key compares slots bit for bit).
//! - `inv_valid, inv_kid`: kernel retire: every row tagged `inv_kid` becomes invalid.
//! - `flush`: every row becomes invalid.
//!
//! Protocol: not `lk_valid` and `up_valid` in one cycle (each takes the RAMs' one read port).
//!
//! # One cycle (not in reset; every decision reads start-of-cycle state)
//!
//! 1. **Stage 2** (the request read in the previous cycle), on the set's current rows:
//!    - a lookup: the *matches* are the valid ways with the lookup's `kid` and `pc`; the
//!      candidates are the `cand` matches of lowest rank (MRU first). `cand_*` show them
//!      this cycle and they are captured, with their whole rows, for stage 3.
//!    - an upsert: if a valid way holds the same `(kid, pc, len, ic)` it is touched (made
//!      MRU; I6: no duplicate). Otherwise the victim — the lowest-index invalid way, else the
//!      way of rank `ways-1` — is written `{kid, pc, npc, len, ic, oc}`, becomes valid and is
//!      touched. `up_*` show the outcome in the next cycle.
//! 2. **Stage 3** (the lookup whose candidates were shown in the previous cycle): candidate
//!    `c` *hits* when every valid `ic` slot `k` equals `cv_val[c][k]`. Among the hits the
//!    longest `len` wins, then the lower candidate index (the more recently used; A11). The
//!    winner's way is touched after stage 2's touch (A15). `res_*` show the outcome in the
//!    next cycle, with the row as captured at stage 2 (a later change does not affect it).
//! 3. `inv_valid`: rows with `kid == inv_kid` become invalid; `flush`: every row. Both after
//!    step 1's write (an insert of a retiring kid is cleared at once). Ranks are kept.
//! 4. **Stage 1**: a lookup or upsert reads its set; it is in stage 2 next cycle.
//!
//! Touching way `w`: every way of rank below `rank[w]` gets one more, `rank[w] = 0`.
//!
//! # Outputs
//!
//! Functions of registered state (the RAM's read register included):
//! - `cand_valid[cand]` (bit c: candidate c exists; lowest bits first), `cand_way[cand·wb]`,
//!   `cand_ic[cand·k_in·10]` (`{v, rid}` of each candidate's input slots, slot `(c·k_in+k)`
//!   at 10 bits each, v at bit 0): a lookup in stage 2; all zero otherwise.
//! - `res_valid`: a lookup left stage 3 at the last edge; `res_hit`, `res_way`, `res_len`,
//!   `res_npc`, `res_oc[k_out·(10+val_bits)]` the winner (zero without a hit).
//! - `up_done`: an upsert left stage 2 at the last edge; `up_found` (it touched an existing
//!   entry), `up_evict` (it replaced a valid row), `up_set`, `up_way`.
//! - Debug (state digest): `dbg_valid[entries]` (row `s·ways + w` at that bit), `dbg_rank`
//!   (`rank` of way w of set s at `(s·ways + w)·wb`).
//!
//! # Storage
//!
//! Counted (§2.3): `mtt` = entries × (1 + kid_bits + 2·pc_bits + len_bits + (k_in + k_out) ·
//! (10 + val_bits)) = 1024 × 410 at the defaults. Extras: the LRU ranks, the stage-2 write
//! bypass and the stage-3 candidate registers.

use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "dtm-mtt";

/// Register-id bits (§2.3 [D]: a class bit and an 8-bit index).
pub const RID_BITS: usize = 9;

pub const ENTRIES: ParamSpec = ParamSpec::int(
    "entries",
    16,
    8192,
    1024,
    "MTT rows (§2.5: 16..8192, a power of two; 1024 where the speedup reaches ~10%)",
);
pub const WAYS: ParamSpec = ParamSpec::int(
    "ways",
    1,
    32,
    8,
    "ways per set (a power of two, at most entries; §2.5 [D] 8)",
);
pub const CAND: ParamSpec = ParamSpec::int(
    "cand",
    1,
    32,
    2,
    "MTT_CAND: MRU tag matches value-tested per lookup (1..ways; A8 [D] 2)",
);
pub const K_IN: ParamSpec = ParamSpec::int("k_in", 1, 8, 4, "input-context slots (A6 [D] 4)");
pub const K_OUT: ParamSpec = ParamSpec::int("k_out", 1, 8, 4, "output-context slots (A6 [D] 4)");
pub const L_MAX: ParamSpec = ParamSpec::int(
    "l_max",
    2,
    31,
    16,
    "longest trace (A6 [D] 16); sets the len field's width",
);
pub const VAL_BITS: ParamSpec = ParamSpec::int(
    "val_bits",
    1,
    64,
    32,
    "register value bits (32: the project's ISA is 32-bit; the digest assumes 64)",
);
pub const PC_BITS: ParamSpec = ParamSpec::int("pc_bits", 8, 32, 32, "PC bits (§2.3: 32)");
pub const KID_BITS: ParamSpec =
    ParamSpec::int("kid_bits", 1, 8, 4, "kernel tag bits (§2.2 [D]: 4)");
pub const PC_SHIFT: ParamSpec = ParamSpec::int(
    "pc_shift",
    0,
    4,
    2,
    "low PC bits dropped by the set hash (§2.5: pc>>2; 0 for PCs that count instructions)",
);

pub const PARAMS: &[ParamSpec] = &[
    ENTRIES, WAYS, CAND, K_IN, K_OUT, L_MAX, VAL_BITS, PC_BITS, KID_BITS, PC_SHIFT,
];

/// Bits of a `{v, rid, val}` context slot.
pub fn slot_bits(val_bits: usize) -> usize {
    1 + RID_BITS + val_bits
}

/// Packs a context slot (v at bit 0, rid at 1..10, val above) into `words` at bit `at`.
#[inline]
pub fn put_slot(words: &mut [u64], at: usize, val_bits: usize, slot: Option<(u64, u64)>) {
    let (v, rid, val) = match slot {
        Some((rid, val)) => (1, rid, val),
        None => (0, 0, 0),
    };
    put(words, at, 1, v);
    put(words, at + 1, RID_BITS, rid);
    put(words, at + 1 + RID_BITS, val_bits, val);
}

/// Reads a context slot packed by [`put_slot`].
#[inline]
pub fn get_slot(words: &[u64], at: usize, val_bits: usize) -> Option<(u64, u64)> {
    (get(words, at, 1) == 1).then(|| {
        (
            get(words, at + 1, RID_BITS),
            get(words, at + 1 + RID_BITS, val_bits),
        )
    })
}

#[inline]
fn low_mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// `width` (≤ 64) bits of `words` at bit `at`.
#[inline]
pub fn get(words: &[u64], at: usize, width: usize) -> u64 {
    if width == 0 {
        return 0;
    }
    let (w, o) = (at / 64, at % 64);
    let mut v = words[w] >> o;
    if o + width > 64 {
        v |= words[w + 1] << (64 - o);
    }
    v & low_mask(width)
}

/// Writes `width` (≤ 64) bits of `value` into `words` at bit `at`.
#[inline]
pub fn put(words: &mut [u64], at: usize, width: usize, value: u64) {
    if width == 0 {
        return;
    }
    let (w, o) = (at / 64, at % 64);
    let m = low_mask(width);
    let value = value & m;
    words[w] = words[w] & !(m << o) | value << o;
    if o + width > 64 {
        let hi = 64 - o;
        let m2 = m >> hi;
        words[w + 1] = words[w + 1] & !m2 | value >> hi;
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MttConfig {
    pub entries: usize,
    pub ways: usize,
    pub cand: usize,
    pub k_in: usize,
    pub k_out: usize,
    pub l_max: usize,
    pub val_bits: usize,
    pub pc_bits: usize,
    pub kid_bits: usize,
    pub pc_shift: usize,
}

impl Default for MttConfig {
    fn default() -> Self {
        MttConfig {
            entries: 1024,
            ways: 8,
            cand: 2,
            k_in: 4,
            k_out: 4,
            l_max: 16,
            val_bits: 32,
            pc_bits: 32,
            kid_bits: 4,
            pc_shift: 2,
        }
    }
}

impl MttConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let (entries, ways, cand) = (p.int("entries"), p.int("ways"), p.int("cand"));
        if !(entries as u64).is_power_of_two() {
            return Err(ParamError(format!(
                "entries = {entries}: must be a power of two from 16 to 8192"
            )));
        }
        if !(ways as u64).is_power_of_two() || ways > entries {
            return Err(ParamError(format!(
                "ways = {ways}: must be a power of two from 1 to min(32, entries = {entries})"
            )));
        }
        if cand > ways {
            return Err(ParamError(format!(
                "cand = {cand}: MTT_CAND must be from 1 to ways = {ways}"
            )));
        }
        Ok(MttConfig {
            entries: entries as usize,
            ways: ways as usize,
            cand: cand as usize,
            k_in: p.usize("k_in"),
            k_out: p.usize("k_out"),
            l_max: p.usize("l_max"),
            val_bits: p.usize("val_bits"),
            pc_bits: p.usize("pc_bits"),
            kid_bits: p.usize("kid_bits"),
            pc_shift: p.usize("pc_shift"),
        })
    }

    pub fn sets(&self) -> usize {
        self.entries / self.ways
    }
    /// Set-index bits (a 1-bit port when there is one set).
    pub fn set_bits(&self) -> usize {
        index_bits(self.sets())
    }
    /// Way-index and rank bits.
    pub fn way_bits(&self) -> usize {
        index_bits(self.ways)
    }
    /// `len` holds 0..=l_max.
    pub fn len_bits(&self) -> usize {
        index_bits(self.l_max + 1)
    }
    pub fn slot_bits(&self) -> usize {
        slot_bits(self.val_bits)
    }
    pub fn ic_bits(&self) -> usize {
        self.k_in * self.slot_bits()
    }
    pub fn oc_bits(&self) -> usize {
        self.k_out * self.slot_bits()
    }
    /// A RAM row: pc, npc, len, ic, oc (LSB first).
    pub fn row_bits(&self) -> usize {
        2 * self.pc_bits + self.len_bits() + self.ic_bits() + self.oc_bits()
    }
    /// §2.3's entry: valid, kid and the RAM row.
    pub fn entry_bits(&self) -> usize {
        1 + self.kid_bits + self.row_bits()
    }

    pub fn module_name(&self) -> String {
        format!(
            "dtm_mtt_e{}_w{}_c{}_i{}_o{}_l{}_v{}_p{}_k{}_s{}",
            self.entries,
            self.ways,
            self.cand,
            self.k_in,
            self.k_out,
            self.l_max,
            self.val_bits,
            self.pc_bits,
            self.kid_bits,
            self.pc_shift
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (kb, p, v, lb, sb, wb) = (
            self.kid_bits,
            self.pc_bits,
            self.val_bits,
            self.len_bits(),
            self.set_bits(),
            self.way_bits(),
        );
        let c = self.cand;
        vec![
            Port::input(
                "reset",
                1,
                "synchronous reset: no valid row, pipeline empty",
            ),
            Port::input("lk_valid", 1, "lookup: read the set of (lk_kid, lk_pc)"),
            Port::input("lk_kid", kb, "the looking-up thread's kernel tag"),
            Port::input("lk_pc", p, "its PC"),
            Port::input(
                "cv_val",
                c * self.k_in * v,
                "values of the candidates' input registers shown last cycle (stage 3)",
            ),
            Port::input(
                "up_valid",
                1,
                "upsert a finished trace (from a trace buffer)",
            ),
            Port::input("up_kid", kb, "its kernel tag"),
            Port::input("up_pc", p, "its first PC"),
            Port::input("up_npc", p, "the PC after it"),
            Port::input("up_len", lb, "its length"),
            Port::input(
                "up_ic",
                self.ic_bits(),
                "input context {v, rid, val} per slot",
            ),
            Port::input(
                "up_oc",
                self.oc_bits(),
                "output context {v, rid, val} per slot",
            ),
            Port::input(
                "inv_valid",
                1,
                "kernel retire: invalidate rows tagged inv_kid",
            ),
            Port::input("inv_kid", kb, "the retiring kernel's tag"),
            Port::input("flush", 1, "invalidate every row"),
            Port::output("cand_valid", c, false, "candidate c exists (stage 2)"),
            Port::output("cand_way", c * wb, false, "candidate c's way"),
            Port::output(
                "cand_ic",
                c * self.k_in * (1 + RID_BITS),
                false,
                "{v, rid} of candidate c's input slot k at (c*k_in+k)*10",
            ),
            Port::output("res_valid", 1, false, "a lookup finished at the last edge"),
            Port::output("res_hit", 1, false, "a candidate's input context matched"),
            Port::output("res_way", wb, false, "the winner's way (0 on a miss)"),
            Port::output("res_len", lb, false, "its length"),
            Port::output("res_npc", p, false, "its next PC"),
            Port::output("res_oc", self.oc_bits(), false, "its output context"),
            Port::output("up_done", 1, false, "an upsert finished at the last edge"),
            Port::output("up_found", 1, false, "it refreshed an existing entry"),
            Port::output("up_evict", 1, false, "it replaced a valid row"),
            Port::output("up_set", sb, false, "the set it went to"),
            Port::output("up_way", wb, false, "the way refreshed or written"),
            Port::debug("dbg_valid", self.entries, "row s*ways+w valid at that bit"),
            Port::debug(
                "dbg_rank",
                self.entries * wb,
                "LRU rank of way w of set s at (s*ways+w)*wb (0 = MRU)",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        let (e, wb) = (self.entries, self.way_bits());
        vec![
            Table::new(
                "mtt",
                e,
                self.entry_bits(),
                "trace rows {valid, kid, pc, npc, len, ic, oc} (§2.3); valid and kid in flip-flops, the rest in block RAM",
            ),
            Table::new("extra_lru", e, wb, "true-LRU rank per way (§2.5)"),
            Table::new(
                "extra_bypass",
                1,
                1 + self.set_bits() + wb + self.row_bits(),
                "stage-2 write bypass: the row written at the last edge",
            ),
            Table::new(
                "extra_candidates",
                self.cand,
                1 + wb + self.row_bits(),
                "stage-3 registers: the candidates' rows",
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

    fn cfg(sets: &[&str]) -> Result<MttConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        MttConfig::from_params(&p)
    }

    #[test]
    fn entry_is_410_bits_at_32_bit_values() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, MttConfig::default());
        assert_eq!(c.entry_bits(), 410);
        assert_eq!(cfg(&["val_bits=64"]).unwrap().entry_bits(), 666);
        assert_eq!(
            (c.sets(), c.set_bits(), c.way_bits(), c.len_bits()),
            (128, 7, 3, 5)
        );
        let s = split_storage(&c.tables());
        assert_eq!(s.counted_bits, 1024 * 410);
        assert_port_names_ok(&c.ports());
    }

    #[test]
    fn get_and_put_straddle_words() {
        let mut w = vec![0u64; 3];
        put(&mut w, 60, 10, 0x3ff);
        assert_eq!(w, vec![0xf << 60, 0x3f, 0]);
        assert_eq!(get(&w, 60, 10), 0x3ff);
        put(&mut w, 62, 4, 0);
        assert_eq!((w[0] >> 60, w[1]), (0x3, 0x3c));
        put(&mut w, 64, 64, u64::MAX);
        assert_eq!(get(&w, 64, 64), u64::MAX);
        put(&mut w, 100, 64, 0x1234);
        assert_eq!((get(&w, 100, 64), get(&w, 64, 36)), (0x1234, 0xf_ffff_ffff));
    }

    #[test]
    fn bad_sizes_name_what_is_allowed() {
        assert_eq!(
            cfg(&["entries=100"]).unwrap_err().0,
            "entries = 100: must be a power of two from 16 to 8192"
        );
        assert!(cfg(&["ways=6"]).unwrap_err().0.starts_with("ways = 6"));
        assert!(cfg(&["ways=32", "entries=16"])
            .unwrap_err()
            .0
            .contains("min(32, entries = 16)"));
        assert_eq!(
            cfg(&["cand=3", "ways=2"]).unwrap_err().0,
            "cand = 3: MTT_CAND must be from 1 to ways = 2"
        );
        assert!(cfg(&["k_in=0"]).unwrap_err().0.contains("k_in"));
        assert!(cfg(&["ways=16", "entries=16", "cand=16"]).is_ok());
    }
}
