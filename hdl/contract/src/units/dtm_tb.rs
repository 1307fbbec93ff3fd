//! `dtm-tb`: DTM@GPU's per-thread trace buffers and trace-formation rules (spec/dtm.md
//! §2.4, §3.3 `tb_append` / `tb_finalize`, §3.4; A6, A12, A16).
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::dtm_tb`) and
//! the model (`warpforge_testbench::dtm_tb`) are written from it independently.
//!
//! # What the unit is
//!
//! `pool` buffers (`TB_POOL`; `tb_pool = 0` means one per thread, the default). A buffer is
//! `{active, start_pc, npc, len, ic[k_in], oc[k_out]}` (§2.4, the MTT entry's layout);
//! context slots `{v, rid, val}` fill from slot 0 up, so the valid slots are a prefix. The
//! rows (`start_pc, npc, len, ic, oc`) live in block RAM (one RAM primitive, depth `pool`
//! rounded up to a power of two); each thread's `active` bit, and with a smaller pool its
//! buffer index and the pool's free bits, live in flip-flops. With one buffer per thread,
//! thread `t` uses buffer `t`. With a smaller pool a thread gets the lowest free buffer when
//! it starts a trace and gives it back when the trace closes; a thread that finds none does
//! not build (§2.4: always safe, traces are a hint).
//!
//! # Inputs (sampled in the cycle they are driven)
//!
//! - `reset`: synchronous; next state: no active buffer, every pool buffer free, no event
//!   in flight. The RAM is not cleared (a buffer is written whenever it starts).
//! - `ev_valid, ev_tid, ev_kid, ev_close`: an event of thread `ev_tid` (its kernel tag
//!   `ev_kid` goes with a commit). `ev_close` = 1: a delimiter (NR, INTER, ineligible,
//!   guard-false lane (A16), an MTT hit (A12), exit or kernel end): the buffer is finalized.
//!   `ev_close` = 0: an INTRA instruction at `ev_pc` with sources `ev_src_v[3]`,
//!   `ev_src_rid[3·9]`, `ev_src_val[3·val_bits]` (the guard predicate counts as a source,
//!   A16; values as read before the instruction) and destination `ev_dst` ← `ev_res`.
//!
//! Protocol: at most one event per cycle (the RAM's one read port).
//!
//! # One event (stage 2, the cycle after it is driven; start-of-cycle state)
//!
//! `finalize`: if the buffer is active with `len ≥ 2` it is committed (`cm_*` next cycle);
//! the thread's buffer becomes inactive (a pool buffer is freed). At most one commit per
//! event follows from the rules below.
//!
//! An append (`ev_close` = 0), in order:
//! 1. An active buffer whose `npc ≠ ev_pc` is finalized first ([D]: traces are straight
//!    runs, so `npc = pc + len·isz` always holds).
//! 2. Without an active buffer one is started `{start_pc = ev_pc, len 0, no slots}` (a pool
//!    thread takes the lowest free buffer; with none free the event is dropped, `st_nobuf`).
//! 3. New inputs: the valid sources, first occurrence of each rid, whose rid is in neither
//!    `ic` nor `oc` (read before written). New output: `ev_dst` unless it is in `oc`.
//! 4. If `|ic| + new inputs > k_in` or `|oc| + new outputs > k_out`: the buffer is
//!    finalized and started again at `ev_pc` (A6: the overflowing instruction starts the new
//!    buffer); if the instruction alone needs more than `k_in` inputs it cannot be in a
//!    trace and the buffer stays inactive ([D]). A buffer finalized and started again in
//!    the same event (steps 1 and 4) stays with its thread.
//! 5. The new inputs go to the next free `ic` slots in source order; `oc[ev_dst] = ev_res`
//!    (its slot if present, else the next free); `len += 1`; `npc = ev_pc + isz`.
//! 6. `len == l_max`: finalize.
//!
//! # Outputs (functions of registered state)
//!
//! - `cm_valid`: a trace was committed at the last edge; `cm_kid, cm_pc, cm_npc, cm_len,
//!   cm_ic, cm_oc`: the MTT upsert, in `dtm-mtt`'s `up_*` layout (zero without `cm_valid`).
//! - `st_valid`: an event left stage 2 at the last edge; `st_tid` its thread; `st_len` the
//!   thread's buffer length after it (0 when inactive); `st_nobuf`: an append found no
//!   buffer.
//! - `free_count`: free pool buffers (with one buffer per thread: threads − active).
//! - Debug (state digest): `dbg_active[threads]`: thread t holds an active buffer.
//!
//! # Storage
//!
//! Counted (§2.4): `tb` = pool × (1 + 2·pc_bits + len_bits + (k_in + k_out)·(10 +
//! val_bits)) = 406 bits per buffer at the defaults. Extras: the thread → buffer map and the
//! free bits (smaller pool only), the stage-2 write bypass.

use super::dtm_mtt::{self, RID_BITS};
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "dtm-tb";

/// Sources per instruction (sv1..sv3, §2.2).
pub const SRCS: usize = 3;

pub const THREADS: ParamSpec = ParamSpec::int(
    "threads",
    2,
    2048,
    1536,
    "resident threads per SM (§2.4: 1536)",
);
pub const TB_POOL: ParamSpec = ParamSpec::int(
    "tb_pool",
    0,
    2048,
    0,
    "TB_POOL: trace buffers per SM, 1..threads; 0 = one per thread (§2.4 [D])",
);
pub const ISZ: ParamSpec = ParamSpec::int(
    "isz",
    1,
    16,
    8,
    "PC step of one instruction (§4: 8-byte instructions; 1 for PCs that count instructions)",
);

pub const PARAMS: &[ParamSpec] = &[
    THREADS,
    TB_POOL,
    dtm_mtt::K_IN,
    dtm_mtt::K_OUT,
    dtm_mtt::L_MAX,
    dtm_mtt::VAL_BITS,
    dtm_mtt::PC_BITS,
    dtm_mtt::KID_BITS,
    ISZ,
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbConfig {
    pub threads: usize,
    /// Buffers; equal to `threads` when each thread has its own.
    pub pool: usize,
    pub k_in: usize,
    pub k_out: usize,
    pub l_max: usize,
    pub val_bits: usize,
    pub pc_bits: usize,
    pub kid_bits: usize,
    pub isz: usize,
}

impl Default for TbConfig {
    fn default() -> Self {
        TbConfig {
            threads: 1536,
            pool: 1536,
            k_in: 4,
            k_out: 4,
            l_max: 16,
            val_bits: 32,
            pc_bits: 32,
            kid_bits: 4,
            isz: 8,
        }
    }
}

impl TbConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let (threads, pool) = (p.int("threads"), p.int("tb_pool"));
        if pool > threads {
            return Err(ParamError(format!(
                "tb_pool = {pool}: TB_POOL must be from 1 to threads = {threads} (0: one per thread)"
            )));
        }
        Ok(TbConfig {
            threads: threads as usize,
            pool: if pool == 0 { threads } else { pool } as usize,
            k_in: p.usize("k_in"),
            k_out: p.usize("k_out"),
            l_max: p.usize("l_max"),
            val_bits: p.usize("val_bits"),
            pc_bits: p.usize("pc_bits"),
            kid_bits: p.usize("kid_bits"),
            isz: p.usize("isz"),
        })
    }

    /// One buffer per thread: no map, no allocation.
    pub fn per_thread(&self) -> bool {
        self.pool == self.threads
    }
    pub fn tid_bits(&self) -> usize {
        index_bits(self.threads)
    }
    pub fn buf_bits(&self) -> usize {
        index_bits(self.pool)
    }
    /// RAM depth: the pool rounded up to a power of two.
    pub fn depth(&self) -> usize {
        self.pool.next_power_of_two().max(2)
    }
    pub fn len_bits(&self) -> usize {
        index_bits(self.l_max + 1)
    }
    pub fn count_bits(&self) -> usize {
        index_bits(self.pool + 1)
    }
    pub fn slot_bits(&self) -> usize {
        dtm_mtt::slot_bits(self.val_bits)
    }
    pub fn ic_bits(&self) -> usize {
        self.k_in * self.slot_bits()
    }
    pub fn oc_bits(&self) -> usize {
        self.k_out * self.slot_bits()
    }
    /// A RAM row: start_pc, npc, len, ic, oc (LSB first).
    pub fn row_bits(&self) -> usize {
        2 * self.pc_bits + self.len_bits() + self.ic_bits() + self.oc_bits()
    }
    /// §2.4's buffer: active and the row.
    pub fn buffer_bits(&self) -> usize {
        1 + self.row_bits()
    }

    pub fn module_name(&self) -> String {
        format!(
            "dtm_tb_t{}_b{}_i{}_o{}_l{}_v{}_p{}_k{}_z{}",
            self.threads,
            self.pool,
            self.k_in,
            self.k_out,
            self.l_max,
            self.val_bits,
            self.pc_bits,
            self.kid_bits,
            self.isz
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (tb, kb, p, v, lb) = (
            self.tid_bits(),
            self.kid_bits,
            self.pc_bits,
            self.val_bits,
            self.len_bits(),
        );
        vec![
            Port::input("reset", 1, "synchronous reset: no active buffer"),
            Port::input("ev_valid", 1, "an event of thread ev_tid"),
            Port::input("ev_tid", tb, "the thread"),
            Port::input("ev_kid", kb, "its kernel tag (goes with a commit)"),
            Port::input(
                "ev_close",
                1,
                "1: a delimiter (finalize); 0: an INTRA instruction",
            ),
            Port::input("ev_pc", p, "the instruction's PC"),
            Port::input("ev_src_v", SRCS, "source s is used (the guard counts)"),
            Port::input("ev_src_rid", SRCS * RID_BITS, "source s's rid at s*9"),
            Port::input(
                "ev_src_val",
                SRCS * v,
                "source s's value before the instruction",
            ),
            Port::input("ev_dst", RID_BITS, "the destination rid"),
            Port::input("ev_res", v, "the value written"),
            Port::output("cm_valid", 1, false, "a trace committed at the last edge"),
            Port::output("cm_kid", kb, false, "its kernel tag"),
            Port::output("cm_pc", p, false, "its first PC"),
            Port::output("cm_npc", p, false, "the PC after it"),
            Port::output("cm_len", lb, false, "its length (2..l_max)"),
            Port::output(
                "cm_ic",
                self.ic_bits(),
                false,
                "input context {v, rid, val}",
            ),
            Port::output(
                "cm_oc",
                self.oc_bits(),
                false,
                "output context {v, rid, val}",
            ),
            Port::output("st_valid", 1, false, "an event finished at the last edge"),
            Port::output("st_tid", tb, false, "its thread"),
            Port::output("st_len", lb, false, "the thread's buffer length after it"),
            Port::output("st_nobuf", 1, false, "an append found no free buffer"),
            Port::output("free_count", self.count_bits(), false, "free buffers"),
            Port::debug(
                "dbg_active",
                self.threads,
                "thread t holds an active buffer",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        let mut t = vec![Table::new(
            "tb",
            self.pool,
            self.buffer_bits(),
            "trace buffers {active, start_pc, npc, len, ic, oc} (§2.4); the rows in block RAM",
        )];
        if !self.per_thread() {
            t.push(Table::new(
                "extra_map",
                self.threads,
                self.buf_bits(),
                "thread -> buffer index (TB_POOL)",
            ));
            t.push(Table::new("extra_free", self.pool, 1, "free pool buffers"));
        }
        t.push(Table::new(
            "extra_bypass",
            1,
            1 + self.buf_bits() + self.row_bits(),
            "stage-2 write bypass: the row written at the last edge",
        ));
        t
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

    fn cfg(sets: &[&str]) -> Result<TbConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        TbConfig::from_params(&p)
    }

    #[test]
    fn buffer_is_406_bits_at_32_bit_values() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, TbConfig::default());
        assert_eq!(c.buffer_bits(), 406);
        let s = split_storage(&c.tables());
        assert_eq!(s.counted_bits, 1536 * 406);
        assert_port_names_ok(&c.ports());
        let p = cfg(&["threads=64", "tb_pool=8"]).unwrap();
        assert_eq!((p.pool, p.buf_bits(), p.depth()), (8, 3, 8));
    }

    #[test]
    fn bad_pool_names_what_is_allowed() {
        assert_eq!(
            cfg(&["threads=64", "tb_pool=65"]).unwrap_err().0,
            "tb_pool = 65: TB_POOL must be from 1 to threads = 64 (0: one per thread)"
        );
        assert!(cfg(&["k_out=0"]).unwrap_err().0.contains("k_out"));
    }
}
