//! The trace buffers ([`TraceBuffers`], a plain struct) and their port-level model
//! ([`DtmTbModel`]), written from the contract (`units/dtm_tb.rs`) and spec/dtm.md §2.4,
//! §3.3 (`tb_append`, `tb_finalize`), §3.4 and §7.

use crate::dtm_mtt::{Slot, MAX_K};
use crate::Model;
use warpforge_contract::units::dtm_mtt::{get, get_slot, RID_BITS};
use warpforge_contract::units::dtm_tb::{TbConfig, SRCS};
use warpforge_contract::Layout;

/// A deliberate model bug, for tests that show lockstep catches a wrong RTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TbFault {
    /// A source already produced inside the trace (in `oc`) is taken as a new input.
    OutputsAreInputs,
}

/// One INTRA instruction as the buffer saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    pub pc: u64,
    /// (rid, value before the instruction) per used source.
    pub srcs: Vec<(u64, u64)>,
    pub dst: u64,
    pub res: u64,
}

/// [`Instr`] with its sources held inline: the model keeps one per append and copies them
/// into commits, so they must not allocate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Op {
    pub pc: u64,
    n: usize,
    srcs: [(u64, u64); SRCS],
    pub dst: u64,
    pub res: u64,
}

impl Op {
    /// At most [`SRCS`] sources.
    pub fn new(pc: u64, srcs: &[(u64, u64)], dst: u64, res: u64) -> Op {
        let mut o = Op {
            pc,
            n: srcs.len(),
            srcs: [(0, 0); SRCS],
            dst,
            res,
        };
        o.srcs[..srcs.len()].copy_from_slice(srcs);
        o
    }
    pub fn srcs(&self) -> &[(u64, u64)] {
        &self.srcs[..self.n]
    }
    pub fn instr(&self) -> Instr {
        Instr {
            pc: self.pc,
            srcs: self.srcs().to_vec(),
            dst: self.dst,
            res: self.res,
        }
    }
}

/// An event of one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Close,
    Append(Op),
}

/// An event in stage 2, or the one being decoded into the other slot (decoded in place and
/// read a cycle later: an event is not copied through the pipeline).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Pending {
    valid: bool,
    close: bool,
    tid: usize,
    kid: u64,
    op: Op,
}

/// A register and its value.
pub type RidVal = (u64, u64);

/// A context held compactly: `n` valid slots in order (the valid slots of §2.4's layout are a
/// prefix, so a count says which); the rids (9 bits each) in 16-bit lanes of one word, so a
/// search compares every slot at once (a buffer is searched on every append), the values
/// apart.
#[derive(Clone, Copy, Debug, Default, Hash, PartialEq, Eq)]
struct Cx {
    n: usize,
    /// Slot k's rid in bits 16k..16k+16; lanes at and above `n` are zero.
    rids: u128,
    val: [u64; MAX_K],
}

/// One in every 16-bit lane.
const LANES: u128 = u128::MAX / 0xffff;

impl Cx {
    fn rid(&self, k: usize) -> u16 {
        (self.rids >> (16 * k)) as u16
    }
    /// The slot of `r` among the first `upto`, if any.
    #[inline]
    fn find_in(&self, r: u16, upto: usize) -> Option<usize> {
        const { assert!(MAX_K * 16 == 128 && RID_BITS < 15) };
        // A lane is zero exactly where the rid equals r; adding 0x7fff carries into a lane's
        // top bit exactly when it is not zero (rids have at most 15 bits, so no lane
        // overflows into the next).
        let x = self.rids ^ (r as u128 * LANES);
        let zero = !(x + 0x7fff * LANES) & (0x8000 * LANES);
        let used = if upto >= MAX_K {
            u128::MAX
        } else {
            (1u128 << (16 * upto)) - 1
        };
        let hit = zero & used;
        (hit != 0).then(|| hit.trailing_zeros() as usize / 16)
    }
    #[inline]
    fn has_in(&self, r: u16, upto: usize) -> bool {
        self.find_in(r, upto).is_some()
    }
    #[inline]
    fn has(&self, r: u16) -> bool {
        self.has_in(r, self.n)
    }
    /// Appends a slot; the caller keeps `n` within the context's size.
    #[inline]
    fn push(&mut self, r: u16, v: u64) {
        self.rids |= (r as u128) << (16 * self.n);
        self.val[self.n] = v;
        self.n += 1;
    }
    fn clear(&mut self) {
        self.n = 0;
        self.rids = 0;
    }
    fn slots(&self) -> impl Iterator<Item = RidVal> + '_ {
        (0..self.n).map(|k| (self.rid(k) as u64, self.val[k]))
    }
}

/// A trace being built or committed: §2.4's `start_pc, npc, len, ic, oc`.
#[derive(Clone, Copy, Debug, Default, Hash)]
struct Tr {
    pc: u64,
    npc: u64,
    len: u64,
    ic: Cx,
    oc: Cx,
}

/// A buffer (§2.4): the trace being built and, for the I2-style check, the instructions in it
/// (the vector is reused: cleared, never dropped, when the buffer restarts).
#[derive(Clone, Debug, Default)]
struct Buffer {
    t: Tr,
    ops: Vec<Op>,
}

/// Event counters (coverage), in [`TraceBuffers::events`] order.
#[derive(Clone, Copy, Debug, Default)]
pub struct TbEvents {
    pub commits: u64,
    pub appends: u64,
    pub closes: u64,
    pub dropped_single: u64,
    pub k_in_splits: u64,
    pub k_out_splits: u64,
    pub l_max_commits: u64,
    pub pc_breaks: u64,
    pub too_many_inputs: u64,
    pub no_buffer: u64,
    pub back_to_back: u64,
    pub oc_rewrites: u64,
}

/// Per-thread trace buffers with the formation rules and their two-stage pipeline.
#[derive(Clone, Debug)]
pub struct TraceBuffers {
    cfg: TbConfig,
    /// Thread → its buffer index while active.
    own: Vec<Option<usize>>,
    bufs: Vec<Buffer>,
    free: Vec<bool>,
    /// Buffer → the thread holding it (kept with `own`; checked against it).
    holder: Vec<Option<usize>>,
    nfree: usize,
    cycles: u64,
    active_image: Vec<u64>,
    /// Stage 2's event is `s2[now]`; the next one is decoded into `s2[now ^ 1]`.
    s2: [Pending; 2],
    now: usize,
    /// Registered outputs: the kernel tag of a commit at the last edge (the trace is
    /// `commit`), and the stage-2 status.
    cm: Option<u64>,
    st: Option<(usize, u64, bool)>,
    last_tid: Option<usize>,
    /// What the last cycle did, for the checks: the thread, and whether it committed.
    last: Option<(usize, bool)>,
    /// The trace the last event committed and its instructions (swapped with the buffer's).
    commit: Option<Tr>,
    commit_ops: Vec<Op>,
    fault: Option<TbFault>,
    pub ev: TbEvents,
}

impl TraceBuffers {
    pub fn new(cfg: &TbConfig) -> TraceBuffers {
        assert!(
            cfg.k_in <= MAX_K && cfg.k_out <= MAX_K,
            "at most {MAX_K} context slots"
        );
        TraceBuffers {
            own: vec![None; cfg.threads],
            bufs: vec![Buffer::default(); cfg.pool],
            free: vec![true; cfg.pool],
            holder: vec![None; cfg.pool],
            nfree: cfg.pool,
            cycles: 0,
            active_image: vec![0; cfg.threads.div_ceil(64)],
            s2: [Pending::default(); 2],
            now: 0,
            cm: None,
            st: None,
            last_tid: None,
            last: None,
            commit: None,
            commit_ops: vec![],
            fault: None,
            ev: TbEvents::default(),
            cfg: cfg.clone(),
        }
    }

    pub fn inject_fault(&mut self, f: Option<TbFault>) {
        self.fault = f;
    }

    /// The buffers' state (ownership, free list, contents) as one hash, for I12.
    pub fn digest(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (&self.own, &self.free, &self.holder).hash(&mut h);
        for b in &self.bufs {
            (&b.t, &b.ops).hash(&mut h);
        }
        h.finish()
    }

    pub fn reset(&mut self) {
        self.own.iter_mut().for_each(|o| *o = None);
        self.free.iter_mut().for_each(|f| *f = true);
        self.holder.iter_mut().for_each(|h| *h = None);
        self.nfree = self.cfg.pool;
        self.active_image.iter_mut().for_each(|x| *x = 0);
        self.s2 = [Pending::default(); 2];
        self.cm = None;
        self.st = None;
        self.last_tid = None;
        self.last = None;
    }

    fn set_own(&mut self, tid: usize, b: Option<usize>) {
        let bit = 1u64 << (tid % 64);
        match (self.own[tid], b) {
            (Some(old), None) => {
                self.holder[old] = None;
                self.free[old] = true;
                self.nfree += 1;
                self.active_image[tid / 64] &= !bit;
            }
            (None, Some(new)) => {
                self.holder[new] = Some(tid);
                self.free[new] = false;
                self.nfree -= 1;
                self.active_image[tid / 64] |= bit;
            }
            _ => {}
        }
        self.own[tid] = b;
    }

    /// Buffer `b` starts an empty trace at `pc`.
    fn restart(&mut self, b: usize, pc: u64) {
        let buf = &mut self.bufs[b];
        buf.t.pc = pc;
        buf.t.npc = pc;
        buf.t.len = 0;
        buf.t.ic.clear();
        buf.t.oc.clear();
        buf.ops.clear();
    }

    /// `tb_finalize` of buffer `b`: the commit if it has two or more instructions (the
    /// buffer's contents are stale afterwards until [`Self::restart`]).
    fn finalize(&mut self, b: usize) {
        let len = self.bufs[b].t.len;
        if len >= 2 {
            self.ev.commits += 1;
            self.commit = Some(self.bufs[b].t);
            std::mem::swap(&mut self.bufs[b].ops, &mut self.commit_ops);
        } else {
            self.ev.dropped_single += (len == 1) as u64;
            self.commit = None;
        }
    }

    /// Step 3: the new inputs (first occurrence, not in ic or oc) and whether dst is new.
    fn news(&self, b: usize, i: &Op) -> (usize, [(u16, u64); SRCS], bool) {
        let t = &self.bufs[b].t;
        let oc_is_read = self.fault != Some(TbFault::OutputsAreInputs);
        let mut new_ic = [(0u16, 0u64); SRCS];
        let mut n = 0;
        for &(r, v) in i.srcs() {
            let r = r as u16;
            let in_oc = oc_is_read && t.oc.has(r);
            if !new_ic[..n].iter().any(|s| s.0 == r) && !t.ic.has(r) && !in_oc {
                new_ic[n] = (r, v);
                n += 1;
            }
        }
        (n, new_ic, !t.oc.has(i.dst as u16))
    }

    /// One event in stage 2 (a commit goes to `self.commit`); returns the buffer length after
    /// it, no-buffer.
    fn apply(&mut self, tid: usize, close: bool, i: &Op) -> (u64, bool) {
        let (ki, ko) = (self.cfg.k_in, self.cfg.k_out);
        let cur = self.own[tid];
        self.commit = None;
        if close {
            self.ev.closes += 1;
            if let Some(b) = cur {
                self.finalize(b);
            }
            self.set_own(tid, None);
            return (0, false);
        }
        self.ev.appends += 1;
        // Step 1: a break in the PC sequence.
        let mut keep = cur;
        if let Some(b) = cur {
            if self.bufs[b].t.npc != i.pc {
                self.ev.pc_breaks += 1;
                self.finalize(b);
                self.restart(b, i.pc);
            }
        } else if self.cfg.per_thread() {
            keep = Some(tid);
            self.restart(tid, i.pc);
        } else if let Some(f) = (0..self.cfg.pool).find(|&k| self.free[k]) {
            keep = Some(f);
            self.restart(f, i.pc);
        } else {
            self.ev.no_buffer += 1;
            return (0, true);
        }
        let b = keep.expect("a buffer");
        // Steps 3-4.
        let (mut n_new, mut new_ic, mut new_oc) = self.news(b, i);
        let nic = self.bufs[b].t.ic.n;
        let noc = self.bufs[b].t.oc.n;
        if self.bufs[b].t.len > 0 && (nic + n_new > ki || noc + new_oc as usize > ko) {
            if nic + n_new > ki {
                self.ev.k_in_splits += 1;
            } else {
                self.ev.k_out_splits += 1;
            }
            self.finalize(b);
            self.restart(b, i.pc);
            (n_new, new_ic, new_oc) = self.news(b, i);
        }
        // The instruction alone overflows: it cannot be in a trace.
        if n_new > ki {
            self.ev.too_many_inputs += 1;
            self.set_own(tid, None);
            return (0, false);
        }
        // Step 5.
        let buf = &mut self.bufs[b];
        for &(r, v) in &new_ic[..n_new] {
            buf.t.ic.push(r, v);
        }
        let dst = i.dst as u16;
        if new_oc {
            buf.t.oc.push(dst, i.res);
        } else {
            let k = buf.t.oc.find_in(dst, buf.t.oc.n).expect("dst is in oc");
            buf.t.oc.val[k] = i.res;
            self.ev.oc_rewrites += 1;
        }
        buf.t.len += 1;
        buf.t.npc = (i.pc + self.cfg.isz as u64) & pc_mask(self.cfg.pc_bits);
        buf.ops.push(*i);
        // Step 6.
        if buf.t.len == self.cfg.l_max as u64 {
            self.ev.l_max_commits += 1;
            self.finalize(b);
            self.set_own(tid, None);
            return (0, false);
        }
        let len = self.bufs[b].t.len;
        self.set_own(tid, Some(b));
        (len, false)
    }

    /// One clock edge with `ev` driven this cycle: (tid, kid, event).
    pub fn cycle(&mut self, ev: Option<(usize, u64, Event)>) {
        let next = self.incoming();
        *next = Pending::default();
        if let Some((tid, kid, e)) = ev {
            (next.valid, next.tid, next.kid) = (true, tid, kid);
            match e {
                Event::Close => next.close = true,
                Event::Append(op) => next.op = op,
            }
        }
        self.edge();
    }

    /// The slot this cycle's event is decoded into.
    pub(crate) fn incoming(&mut self) -> &mut Pending {
        &mut self.s2[self.now ^ 1]
    }

    /// One clock edge: stage 2's event applied, the incoming one moves to stage 2.
    pub(crate) fn edge(&mut self) {
        self.last = None;
        self.cm = None;
        self.st = None;
        self.cycles += 1;
        let e = &self.s2[self.now];
        if e.valid {
            let (tid, kid, close) = (e.tid, e.kid, e.close);
            if self.last_tid == Some(tid) {
                self.ev.back_to_back += 1;
            }
            let op = e.op;
            let (len, nobuf) = self.apply(tid, close, &op);
            self.st = Some((tid, len, nobuf));
            self.cm = self.commit.is_some().then_some(kid);
            self.last = Some((tid, self.commit.is_some()));
            self.last_tid = Some(tid);
        } else {
            self.last_tid = None;
        }
        self.now ^= 1;
    }

    /// The commit at the last edge: its kernel tag and trace.
    fn committed(&self) -> Option<(u64, &Tr)> {
        self.cm.zip(self.commit.as_ref())
    }

    /// §7 I4 on the touched buffer and on a commit, I2 (the commit's contexts re-derived from
    /// its instructions), and the pool's bookkeeping.
    pub fn check(&self) -> Result<(), String> {
        let c = &self.cfg;
        let Some((tid, committed)) = &self.last else {
            return Ok(());
        };
        if let Some(b) = self.own[*tid] {
            shape(c, &self.bufs[b].t, 1).map_err(|e| format!("I4: thread {tid}'s buffer: {e}"))?;
            if self.holder[b] != Some(*tid) || self.free[b] {
                return Err(format!(
                    "TB_POOL: buffer {b} of thread {tid} is held by {:?}",
                    self.holder[b]
                ));
            }
        }
        // The whole pool now and then (every buffer held once, the free count).
        if self.cycles.is_multiple_of(1024) {
            let mut held = vec![false; c.pool];
            for (t, o) in self.own.iter().enumerate() {
                if let Some(b) = *o {
                    if held[b] || self.holder[b] != Some(t) {
                        return Err(format!("TB_POOL: buffer {b} held twice"));
                    }
                    held[b] = true;
                }
            }
            let n = held.iter().filter(|h| **h).count();
            if n + self.nfree != c.pool || self.free.iter().filter(|f| **f).count() != self.nfree {
                return Err("TB_POOL: free count does not match the held buffers".into());
            }
        }
        if let (true, Some(t)) = (committed, &self.commit) {
            let instrs = &self.commit_ops;
            shape(c, t, 2).map_err(|e| format!("I4: commit: {e}"))?;
            if !derives(instrs, t) {
                // The slow path only builds the message.
                let (ic, oc) = derive(&instrs.iter().map(Op::instr).collect::<Vec<_>>());
                let got_ic: Vec<RidVal> = t.ic.slots().collect();
                let got_oc: Vec<RidVal> = t.oc.slots().collect();
                return Err(format!(
                    "I2: commit at {:#x}: contexts {got_ic:?} / {got_oc:?}, instructions give {ic:?} / {oc:?}",
                    t.pc
                ));
            }
            if instrs.len() as u64 != t.len || instrs[0].pc != t.pc {
                return Err("I4: commit length or start differs from its instructions".into());
            }
        }
        Ok(())
    }

    pub fn events(&self) -> Vec<(&'static str, u64)> {
        let e = &self.ev;
        vec![
            ("commits", e.commits),
            ("appends", e.appends),
            ("closes", e.closes),
            ("dropped_single", e.dropped_single),
            ("k_in_splits", e.k_in_splits),
            ("k_out_splits", e.k_out_splits),
            ("l_max_commits", e.l_max_commits),
            ("pc_breaks", e.pc_breaks),
            ("too_many_inputs", e.too_many_inputs),
            ("no_buffer", e.no_buffer),
            ("back_to_back", e.back_to_back),
            ("oc_rewrites", e.oc_rewrites),
        ]
    }
}

pub fn pc_mask(bits: usize) -> u64 {
    if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// I4: `min_len ≤ len ≤ l_max`, `npc = pc + len·isz`, `|ic| ≤ k_in`, `|oc| ≤ k_out`, rids
/// unique within each context (the valid slots are a prefix by construction: a count).
#[inline]
fn shape(c: &TbConfig, t: &Tr, min_len: u64) -> Result<(), String> {
    if t.len < min_len || t.len > c.l_max as u64 {
        return Err(format!("len {}", t.len));
    }
    if t.npc != (t.pc + t.len * c.isz as u64) & pc_mask(c.pc_bits) {
        return Err(format!("npc {:#x} for pc {:#x} len {}", t.npc, t.pc, t.len));
    }
    for (ctx, k) in [(&t.ic, c.k_in), (&t.oc, c.k_out)] {
        if ctx.n > k {
            return Err(format!("{} context slots of {k}", ctx.n));
        }
        // At most MAX_K slots: each against the ones before it.
        if (1..ctx.n).any(|a| ctx.has_in(ctx.rid(a), a)) {
            return Err("repeated rid in a context".into());
        }
    }
    Ok(())
}

/// Whether [`derive`] of `ops` gives `t`'s contexts (their valid slots, in order), without
/// allocating: a context has at most `MAX_K` slots, so a longer derived list differs.
fn derives(ops: &[Op], t: &Tr) -> bool {
    let (mut ic, mut oc) = (Cx::default(), Cx::default());
    for i in ops {
        for &(r, v) in i.srcs() {
            let r = r as u16;
            if !ic.has(r) && !oc.has(r) {
                if ic.n == MAX_K {
                    return false;
                }
                ic.push(r, v);
            }
        }
        let d = i.dst as u16;
        match oc.find_in(d, oc.n) {
            Some(k) => oc.val[k] = i.res,
            None if oc.n == MAX_K => return false,
            None => oc.push(d, i.res),
        }
    }
    let same = |a: &Cx, b: &Cx| a.n == b.n && a.rids == b.rids && a.val[..a.n] == b.val[..b.n];
    same(&t.ic, &ic) && same(&t.oc, &oc)
}

/// The contexts of a run of instructions, from §3.3's definition: registers read before any
/// write inside the run (first value, in order), final values of registers written.
pub fn derive(instrs: &[Instr]) -> (Vec<RidVal>, Vec<RidVal>) {
    let (mut ic, mut oc): (Vec<RidVal>, Vec<RidVal>) = (vec![], vec![]);
    for i in instrs {
        for &(r, v) in &i.srcs {
            if !ic.iter().any(|s| s.0 == r) && !oc.iter().any(|s| s.0 == r) {
                ic.push((r, v));
            }
        }
        match oc.iter_mut().find(|s| s.0 == i.dst) {
            Some(s) => s.1 = i.res,
            None => oc.push((i.dst, i.res)),
        }
    }
    (ic, oc)
}

/// Word offsets of the ports.
#[derive(Clone, Debug)]
pub(crate) struct Ports {
    pub reset: usize,
    pub ev_valid: usize,
    pub ev_tid: usize,
    pub ev_kid: usize,
    pub ev_close: usize,
    pub ev_pc: usize,
    pub ev_src_v: usize,
    pub ev_src_rid: usize,
    pub ev_src_val: usize,
    pub ev_dst: usize,
    pub ev_res: usize,
    pub o_cm_valid: usize,
    pub o_cm_kid: usize,
    pub o_cm_pc: usize,
    pub o_cm_npc: usize,
    pub o_cm_len: usize,
    pub o_cm_ic: usize,
    pub o_cm_oc: usize,
    pub o_st_valid: usize,
    pub o_st_tid: usize,
    pub o_st_len: usize,
    pub o_st_nobuf: usize,
    pub o_free_count: usize,
    pub o_dbg_active: usize,
    /// Words of `cm_ic`, `cm_oc`, and of all the outputs.
    pub cm_ic_words: usize,
    pub cm_oc_words: usize,
    pub out_words: usize,
}

impl Ports {
    pub fn new(cfg: &TbConfig) -> Ports {
        let l = Layout::new(&cfg.ports());
        let i = |n: &str| l.input(n).expect("dtm-tb input").offset;
        let o = |n: &str| l.output(n).expect("dtm-tb output").offset;
        Ports {
            reset: i("reset"),
            ev_valid: i("ev_valid"),
            ev_tid: i("ev_tid"),
            ev_kid: i("ev_kid"),
            ev_close: i("ev_close"),
            ev_pc: i("ev_pc"),
            ev_src_v: i("ev_src_v"),
            ev_src_rid: i("ev_src_rid"),
            ev_src_val: i("ev_src_val"),
            ev_dst: i("ev_dst"),
            ev_res: i("ev_res"),
            o_cm_valid: o("cm_valid"),
            o_cm_kid: o("cm_kid"),
            o_cm_pc: o("cm_pc"),
            o_cm_npc: o("cm_npc"),
            o_cm_len: o("cm_len"),
            o_cm_ic: o("cm_ic"),
            o_cm_oc: o("cm_oc"),
            o_st_valid: o("st_valid"),
            o_st_tid: o("st_tid"),
            o_st_len: o("st_len"),
            o_st_nobuf: o("st_nobuf"),
            o_free_count: o("free_count"),
            o_dbg_active: o("dbg_active"),
            cm_ic_words: l.output("cm_ic").expect("dtm-tb output").words,
            cm_oc_words: l.output("cm_oc").expect("dtm-tb output").words,
            out_words: l.out_words,
        }
    }
}

/// Decodes the event on the inputs into `e` (in place; `valid` false when there is none).
/// Not called in a reset cycle.
pub(crate) fn decode(val_bits: usize, p: &Ports, x: &[u64], e: &mut Pending) {
    e.valid = x[p.ev_valid] & 1 == 1;
    if !e.valid {
        return;
    }
    (e.tid, e.kid) = (x[p.ev_tid] as usize, x[p.ev_kid]);
    e.close = x[p.ev_close] & 1 == 1;
    if e.close {
        return;
    }
    let v = val_bits;
    let i = &mut e.op;
    (i.pc, i.dst, i.res, i.n) = (x[p.ev_pc], x[p.ev_dst], x[p.ev_res], 0);
    // The three rids (27 bits) sit in one word.
    let (used, rids) = (x[p.ev_src_v], x[p.ev_src_rid]);
    for s in (0..SRCS).filter(|&s| used >> s & 1 == 1) {
        i.srcs[i.n] = (
            rids >> (s * RID_BITS) & ((1 << RID_BITS) - 1),
            get(&x[p.ev_src_val..], s * v, v),
        );
        i.n += 1;
    }
}

/// The port-level model of `dtm-tb`.
#[derive(Clone, Debug)]
pub struct DtmTbModel {
    pub tb: TraceBuffers,
    p: Ports,
    /// The output words of the registered state, packed once after each edge (a step copies
    /// them out): most cycles change only the status ports and one `dbg_active` word.
    img: Vec<u64>,
    /// `img` holds a commit's ports (they must be cleared the next cycle).
    cm_shown: bool,
}

impl DtmTbModel {
    pub fn new(cfg: &TbConfig) -> DtmTbModel {
        const { assert!(SRCS * RID_BITS <= 64) };
        let p = Ports::new(cfg);
        let mut m = DtmTbModel {
            tb: TraceBuffers::new(cfg),
            img: vec![0; p.out_words],
            p,
            cm_shown: false,
        };
        m.pack(true);
        m
    }

    pub fn inject_fault(&mut self, f: Option<TbFault>) {
        self.tb.inject_fault(f);
    }

    /// Packs the registered outputs into `img` after an edge: the status ports and the free
    /// count always, a commit's ports when there is one (cleared the cycle after), and the
    /// `dbg_active` word of the event's thread (the only one an event changes); `all` after
    /// construction and reset.
    fn pack(&mut self, all: bool) {
        let (t, p, img) = (&self.tb, &self.p, &mut self.img);
        let (v, sb) = (t.cfg.val_bits, t.cfg.slot_bits());
        let (ic, oc) = (p.o_cm_ic, p.o_cm_oc);
        let cm = t.committed();
        if cm.is_some() || self.cm_shown || all {
            for o in [p.o_cm_valid, p.o_cm_kid, p.o_cm_pc, p.o_cm_npc, p.o_cm_len] {
                img[o] = 0;
            }
            img[ic..ic + p.cm_ic_words].iter_mut().for_each(|w| *w = 0);
            img[oc..oc + p.cm_oc_words].iter_mut().for_each(|w| *w = 0);
        }
        self.cm_shown = cm.is_some();
        if let Some((kid, tr)) = cm {
            img[p.o_cm_valid] = 1;
            img[p.o_cm_kid] = kid;
            img[p.o_cm_pc] = tr.pc;
            img[p.o_cm_npc] = tr.npc;
            img[p.o_cm_len] = tr.len;
            for (at, ctx) in [(ic, &tr.ic), (oc, &tr.oc)] {
                for k in 0..ctx.n {
                    // The slot's words are zero: v, rid and value are or-ed in.
                    let head = 1 | (ctx.rid(k) as u64) << 1;
                    or_bits(&mut img[at..], k * sb, 1 + RID_BITS, head);
                    or_bits(&mut img[at..], k * sb + 1 + RID_BITS, v, ctx.val[k]);
                }
            }
        }
        let (valid, tid, len, nobuf) = match t.st {
            Some((tid, len, nobuf)) => (1, tid, len, nobuf as u64),
            None => (0, 0, 0, 0),
        };
        img[p.o_st_valid] = valid;
        img[p.o_st_tid] = tid as u64;
        img[p.o_st_len] = len;
        img[p.o_st_nobuf] = nobuf;
        img[p.o_free_count] = t.nfree as u64;
        let d = p.o_dbg_active;
        if all {
            img[d..d + t.active_image.len()].copy_from_slice(&t.active_image);
        } else if valid == 1 {
            img[d + tid / 64] = t.active_image[tid / 64];
        }
    }
}

impl Model for DtmTbModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        outputs.copy_from_slice(&self.img);
        let reset = inputs[self.p.reset] & 1 == 1;
        if reset {
            self.tb.reset();
        } else {
            let v = self.tb.cfg.val_bits;
            decode(v, &self.p, inputs, self.tb.incoming());
            self.tb.edge();
        }
        self.pack(reset);
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.tb.check()
    }

    fn check_inputs(&self, inputs: &[u64]) -> Result<(), String> {
        let (x, p) = (inputs, &self.p);
        if x[p.reset] & 1 == 0 && x[p.ev_valid] & 1 == 1 {
            let tid = x[p.ev_tid] as usize;
            if tid >= self.tb.cfg.threads {
                return Err(format!("port ev_tid: {tid} is not a thread"));
            }
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        let t = &self.tb;
        format!(
            "active={} free={} s2={:?} cm={:?}",
            t.own.iter().flatten().count(),
            t.nfree,
            Some(&t.s2[t.now])
                .filter(|e| e.valid)
                .map(|e| (e.tid, e.close)),
            t.committed().map(|(k, tr)| (k, tr.pc, tr.len)),
        )
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        self.tb.events()
    }
}

/// Packs an instruction's sources into the `ev_src_*` words (for vectors and stimulus).
pub fn pack_srcs(cfg: &TbConfig, srcs: &[(u64, u64)]) -> (u64, Vec<u64>, Vec<u64>) {
    let (nr, nv) = src_words(cfg);
    let (mut rid, mut val) = (vec![0u64; nr], vec![0u64; nv]);
    let v = put_srcs(cfg, srcs, &mut rid, &mut val);
    (v, rid, val)
}

/// The words of `ev_src_rid` and `ev_src_val`.
pub(crate) fn src_words(cfg: &TbConfig) -> (usize, usize) {
    (
        (SRCS * RID_BITS).div_ceil(64),
        (SRCS * cfg.val_bits).div_ceil(64),
    )
}

/// [`pack_srcs`] into the port words (every word of the two ports rewritten); returns
/// `ev_src_v`.
pub(crate) fn put_srcs(
    cfg: &TbConfig,
    srcs: &[(u64, u64)],
    rid: &mut [u64],
    val: &mut [u64],
) -> u64 {
    let (r, vals) = src_bits(cfg, srcs);
    let (_, nv) = src_words(cfg);
    rid[0] = r;
    val[..nv].copy_from_slice(&vals[..nv]);
    (1u64 << srcs.len()) - 1
}

/// The `ev_src_rid` word (three 9-bit rids fit in one) and the `ev_src_val` words of `srcs`.
#[inline]
pub(crate) fn src_bits(cfg: &TbConfig, srcs: &[(u64, u64)]) -> (u64, [u64; 3]) {
    const { assert!(SRCS * RID_BITS <= 64) };
    let v = cfg.val_bits;
    let (mut r, mut vals) = (0u64, [0u64; 3]);
    for (s, &(rr, x)) in srcs.iter().enumerate() {
        r |= (rr & ((1 << RID_BITS) - 1)) << (s * RID_BITS);
        or_bits(&mut vals, s * v, v, x & pc_mask(v));
    }
    (r, vals)
}

/// Ors `x` (`width` ≤ 64 bits, nothing above) into `words` at bit `at`, whose bits there are
/// zero.
#[inline]
fn or_bits(words: &mut [u64], at: usize, width: usize, x: u64) {
    let (w, o) = (at / 64, at % 64);
    words[w] |= x << o;
    if o + width > 64 {
        words[w + 1] |= x >> (64 - o);
    }
}

/// Unpacks a committed context (for tests).
pub fn unpack_ctx(words: &[u64], n: usize, val_bits: usize) -> Vec<Slot> {
    let sb = 1 + RID_BITS + val_bits;
    (0..n).map(|k| get_slot(words, k * sb, val_bits)).collect()
}
