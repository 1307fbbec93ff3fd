//! Cycle model, stimulus and spec vectors of `dwr`, Dynamic Warp Resizing for one SM: the
//! sub-warp scheduler states, the round-robin pick, the barrier pipeline, and the PST, ILT and
//! SCO (spec/dwr.md §2.6–§2.9, §3.4–§3.10; contract `units/dwr.rs`, docs/dwr.md).
//!
//! The PST, ILT and SCO are the very types the standalone models use ([`Pst`], [`Ilt`],
//! [`form_bundle`]); this module adds what only the composite has, and the small bit-set and
//! field helpers the four DWR models share.

use crate::dwr_ilt::{Ilt, IltFault};
use crate::dwr_pst::{Pst, PstFault, Release};
use crate::dwr_sco::{bundle_mask, check_fuse, form_bundle, member_lanes, ScoFault};
use crate::rng::Rng;
use crate::warp_sched::density_mask;
use crate::{Model, SpecVector, Stimulus, VectorCycle};
use std::fmt;
use std::ops::{BitAnd, BitOr, BitXor};
use warpforge_contract::units::dwr::{self, DwrConfig, FusedSlices, InstKind, State};
use warpforge_contract::units::dwr_sco::ScoMatch;
use warpforge_contract::Layout;

// ---------------------------------------------------------------------------------------
// Shared helpers: sets of up to 256 sub-warps, rows or entries; packed fields.

/// A set of up to 256 indices (sub-warps, PST rows, ILT entries): bit `i` = index `i`.
/// The contract caps N at 256 sub-warps, so every DWR vector fits in four words.
#[derive(Clone, Copy, Default, Eq)]
pub struct Bits(pub [u64; 4]);

impl PartialEq for Bits {
    #[inline]
    fn eq(&self, o: &Bits) -> bool {
        ((self.0[0] ^ o.0[0]) | (self.0[1] ^ o.0[1]) | (self.0[2] ^ o.0[2]) | (self.0[3] ^ o.0[3]))
            == 0
    }
}

impl Bits {
    pub const ZERO: Bits = Bits([0; 4]);

    /// Indices `0 … n−1`.
    #[inline]
    pub fn low(n: usize) -> Bits {
        let mut b = Bits::ZERO;
        for (k, w) in b.0.iter_mut().enumerate() {
            let lo = 64 * k;
            *w = if n >= lo + 64 {
                u64::MAX
            } else if n > lo {
                (1u64 << (n - lo)) - 1
            } else {
                0
            };
        }
        b
    }
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    #[inline]
    pub fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    #[inline]
    pub fn toggle(&mut self, i: usize) {
        self.0[i / 64] ^= 1 << (i % 64);
    }
    #[inline]
    pub fn is_zero(&self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }
    #[inline]
    pub fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    /// `self ∖ other`.
    #[inline]
    pub fn not_in(self, other: Bits) -> Bits {
        Bits([
            self.0[0] & !other.0[0],
            self.0[1] & !other.0[1],
            self.0[2] & !other.0[2],
            self.0[3] & !other.0[3],
        ])
    }
    /// `width` (≤ 64) bits starting at bit `at`.
    #[inline]
    pub fn bits(&self, at: usize, width: usize) -> u64 {
        get_bits(&self.0, at, width)
    }
    /// Indices `lo … hi−1`.
    pub fn range(lo: usize, hi: usize) -> Bits {
        Bits::low(hi).not_in(Bits::low(lo))
    }
    /// The first index ≥ `start`.
    #[inline]
    pub fn first_from(&self, start: usize) -> Option<usize> {
        let mut k = start / 64;
        if k >= 4 {
            return None;
        }
        let mut w = self.0[k] & (u64::MAX << (start % 64));
        loop {
            if w != 0 {
                return Some(64 * k + w.trailing_zeros() as usize);
            }
            k += 1;
            if k == 4 {
                return None;
            }
            w = self.0[k];
        }
    }
    /// The `k`-th index in ascending order (k < count).
    pub fn nth(&self, k: usize) -> Option<usize> {
        let mut k = k;
        for (i, &w) in self.0.iter().enumerate() {
            let c = w.count_ones() as usize;
            if k < c {
                let mut x = w;
                for _ in 0..k {
                    x &= x - 1;
                }
                return Some(64 * i + x.trailing_zeros() as usize);
            }
            k -= c;
        }
        None
    }
    /// The indices in ascending order.
    pub fn iter(&self) -> BitsIter {
        BitsIter { b: *self, k: 0 }
    }
    /// Read `nwords` words of a port.
    #[inline]
    pub fn read(words: &[u64], nwords: usize) -> Bits {
        let mut b = Bits::ZERO;
        b.0[..nwords].copy_from_slice(&words[..nwords]);
        b
    }
    /// Write `nwords` words of a port.
    #[inline]
    pub fn write(&self, out: &mut [u64], nwords: usize) {
        out[..nwords].copy_from_slice(&self.0[..nwords]);
    }
    /// Indices `0 … n−1`, each present with probability about `level`/8.
    pub fn random(rng: &mut Rng, n: usize, level: u8) -> Bits {
        let mut b = Bits::ZERO;
        for (k, w) in b.0.iter_mut().enumerate().take(n.div_ceil(64)) {
            *w = density_mask(rng, level);
            if n < 64 * (k + 1) {
                *w &= (1u64 << (n - 64 * k)) - 1;
            }
        }
        b
    }
}

impl BitAnd for Bits {
    type Output = Bits;
    #[inline]
    fn bitand(self, o: Bits) -> Bits {
        Bits([
            self.0[0] & o.0[0],
            self.0[1] & o.0[1],
            self.0[2] & o.0[2],
            self.0[3] & o.0[3],
        ])
    }
}

impl BitOr for Bits {
    type Output = Bits;
    #[inline]
    fn bitor(self, o: Bits) -> Bits {
        Bits([
            self.0[0] | o.0[0],
            self.0[1] | o.0[1],
            self.0[2] | o.0[2],
            self.0[3] | o.0[3],
        ])
    }
}

impl BitXor for Bits {
    type Output = Bits;
    #[inline]
    fn bitxor(self, o: Bits) -> Bits {
        Bits([
            self.0[0] ^ o.0[0],
            self.0[1] ^ o.0[1],
            self.0[2] ^ o.0[2],
            self.0[3] ^ o.0[3],
        ])
    }
}

impl fmt::Display for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&warpforge_contract::manifest::format_value(&self.0))
    }
}

impl fmt::Debug for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

pub struct BitsIter {
    b: Bits,
    k: usize,
}

impl Iterator for BitsIter {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.k < 4 {
            let w = self.b.0[self.k];
            if w != 0 {
                self.b.0[self.k] = w & (w - 1);
                return Some(64 * self.k + w.trailing_zeros() as usize);
            }
            self.k += 1;
        }
        None
    }
}

/// Move every `width`-bit field (< 64 bits) of an `nfields`-field image up by one field; the
/// top field falls off and field 0 becomes 0.
fn shift_fields_up(img: &mut [u64], width: usize, nfields: usize) {
    for i in (0..img.len()).rev() {
        let carry = if i > 0 { img[i - 1] >> (64 - width) } else { 0 };
        img[i] = (img[i] << width) | carry;
    }
    let total = nfields * width;
    let top = img.len() - 1;
    if total - 64 * top < 64 {
        img[top] &= (1u64 << (total - 64 * top)) - 1;
    }
}

/// Bits at multiples of `w` (group base positions) in a word.
fn base_word(w: usize) -> u64 {
    match w {
        2 => 0x5555_5555_5555_5555,
        4 => 0x1111_1111_1111_1111,
        8 => 0x0101_0101_0101_0101,
        _ => unreachable!("group size {w}: the contract allows 2, 4, 8"),
    }
}

/// Bit `nW` set iff all `W` bits of group `n` are set. Groups never straddle a word (W | 64).
pub(crate) fn group_all(x: Bits, w: usize) -> Bits {
    let mut out = Bits::ZERO;
    for k in 0..4 {
        let mut v = x.0[k];
        let mut step = 1;
        while step < w {
            v &= v >> step;
            step *= 2;
        }
        out.0[k] = v & base_word(w);
    }
    out
}

/// Bit `nW` set iff some bit of group `n` is set.
pub(crate) fn group_any(x: Bits, w: usize) -> Bits {
    let mut out = Bits::ZERO;
    for k in 0..4 {
        let mut v = x.0[k];
        let mut step = 1;
        while step < w {
            v |= v >> step;
            step *= 2;
        }
        out.0[k] = v & base_word(w);
    }
    out
}

/// From group base bits `nW` to every bit of those groups.
pub(crate) fn spread_groups(base: Bits, w: usize) -> Bits {
    let mut out = base;
    for k in 0..4 {
        let mut v = base.0[k] & base_word(w);
        let mut step = 1;
        while step < w {
            v |= v << step;
            step *= 2;
        }
        out.0[k] = v;
    }
    out
}

/// `width` (≤ 64) bits at bit `at` of `words` (inlined: the models read fields every cycle).
#[inline]
fn get_bits(words: &[u64], at: usize, width: usize) -> u64 {
    let (w, b) = (at / 64, at % 64);
    let mut v = words[w] >> b;
    if b != 0 && b + width > 64 {
        v |= words[w + 1] << (64 - b);
    }
    if width >= 64 {
        v
    } else {
        v & ((1u64 << width) - 1)
    }
}

/// Write `width` (≤ 64) bits of `v` at bit `at` of `words`, other bits untouched.
#[inline]
fn set_bits(words: &mut [u64], at: usize, width: usize, v: u64) {
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let v = v & mask;
    let (w, b) = (at / 64, at % 64);
    words[w] = (words[w] & !(mask << b)) | (v << b);
    if b != 0 && b + width > 64 {
        let hi = 64 - b;
        words[w + 1] = (words[w + 1] & !(mask >> hi)) | (v >> hi);
    }
}

/// Fixed-width fields in flat word vectors.
pub(crate) trait Fields {
    /// Field `i` of `width` bits (≤ 64).
    fn get_field(&self, i: usize, width: usize) -> u64;
    fn set_field(&mut self, i: usize, width: usize, v: u64);
    /// `width` bits at bit `bit` of the port starting at word `word`.
    fn field_at(&self, word: usize, bit: usize, width: usize) -> u64;
    fn set_field_at(&mut self, word: usize, bit: usize, width: usize, v: u64);
}

impl Fields for [u64] {
    #[inline]
    fn get_field(&self, i: usize, width: usize) -> u64 {
        get_bits(self, i * width, width)
    }
    #[inline]
    fn set_field(&mut self, i: usize, width: usize, v: u64) {
        set_bits(self, i * width, width, v)
    }
    #[inline]
    fn field_at(&self, word: usize, bit: usize, width: usize) -> u64 {
        get_bits(&self[word..], bit, width)
    }
    #[inline]
    fn set_field_at(&mut self, word: usize, bit: usize, width: usize, v: u64) {
        set_bits(&mut self[word..], bit, width, v)
    }
}

/// `values` packed as consecutive `width`-bit fields.
pub(crate) fn pack_fields(width: usize, values: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; (width * values.len()).div_ceil(64).max(1)];
    for (i, &v) in values.iter().enumerate() {
        out.set_field(i, width, v);
    }
    out
}

/// Builder of one spec vector (the four DWR units).
pub(crate) struct Vb {
    v: SpecVector,
}

impl Vb {
    pub(crate) fn new(name: &str, unit: &'static str, sets: &[&str]) -> Vb {
        Vb {
            v: SpecVector {
                name: name.into(),
                unit,
                sets: sets.iter().map(|s| s.to_string()).collect(),
                cycles: vec![],
            },
        }
    }
    pub(crate) fn reset(mut self) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: vec![("reset", vec![1])],
            expect: vec![],
        });
        self
    }
    pub(crate) fn cycle(
        self,
        inputs: &[(&'static str, u64)],
        expect: &[(&'static str, u64)],
    ) -> Vb {
        let w =
            |l: &[(&'static str, u64)]| l.iter().map(|&(n, v)| (n, vec![v])).collect::<Vec<_>>();
        self.cycle_words(&w(inputs), &w(expect))
    }
    pub(crate) fn cycle_words(
        mut self,
        inputs: &[(&'static str, Vec<u64>)],
        expect: &[(&'static str, Vec<u64>)],
    ) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: inputs.to_vec(),
            expect: expect.to_vec(),
        });
        self
    }
    pub(crate) fn done(self) -> SpecVector {
        self.v
    }
}

fn offset(slots: &[warpforge_contract::manifest::Slot], name: &str) -> usize {
    slots
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("dwr contract has no port `{name}`"))
        .offset
}

// ---------------------------------------------------------------------------------------
// Sub-warp states

/// The sub-warp states as six disjoint sets (§2.6): one bit per sub-warp in exactly one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct States {
    pub empty: Bits,
    pub ready: Bits,
    pub stalled: Bits,
    pub blockbar: Bits,
    pub waitp: Bits,
    pub cr: Bits,
}

impl States {
    fn reset(n: usize) -> States {
        States {
            empty: Bits::low(n),
            ..States::default()
        }
    }

    /// Sub-warp `s`'s state.
    pub fn of(&self, s: usize) -> State {
        if self.ready.get(s) {
            State::Ready
        } else if self.stalled.get(s) {
            State::Stalled
        } else if self.blockbar.get(s) {
            State::WaitBlockbar
        } else if self.waitp.get(s) {
            State::WaitPartner
        } else if self.cr.get(s) {
            State::CombineReady
        } else {
            State::Empty
        }
    }

    fn set_mut(&mut self, st: State) -> &mut Bits {
        match st {
            State::Empty => &mut self.empty,
            State::Ready => &mut self.ready,
            State::Stalled => &mut self.stalled,
            State::WaitBlockbar => &mut self.blockbar,
            State::WaitPartner => &mut self.waitp,
            State::CombineReady => &mut self.cr,
        }
    }

    /// Move sub-warp `s` from `from` to `to` (it must be in `from`).
    fn go(&mut self, s: usize, from: State, to: State) {
        self.set_mut(from).clear(s);
        self.set_mut(to).set(s);
    }

    /// Move the sub-warps of `mask` (all in `from`) to `to`.
    fn go_all(&mut self, mask: Bits, from: State, to: State) {
        let f = self.set_mut(from);
        *f = f.not_in(mask);
        let t = self.set_mut(to);
        *t = *t | mask;
    }

    /// Bit `k` of each sub-warp's state code (§2.6 encoding), as three sets.
    fn planes(&self) -> [Bits; 3] {
        [
            self.ready | self.blockbar | self.cr,
            self.stalled | self.blockbar,
            self.waitp | self.cr,
        ]
    }

    fn sets(&self) -> [Bits; 6] {
        [
            self.empty,
            self.ready,
            self.stalled,
            self.blockbar,
            self.waitp,
            self.cr,
        ]
    }
}

// ---------------------------------------------------------------------------------------
// The composite model

#[derive(Clone, Copy, Debug)]
struct InPorts {
    reset: usize,
    grid_start: usize,
    launch: usize,
    ready: usize,
    inst_kind: usize,
    grp_pc: usize,
    grp_mask: usize,
    writeback: usize,
    blockbar_release: usize,
}

#[derive(Clone, Copy, Debug)]
struct OutPorts {
    issue_valid: usize,
    issue_sw: usize,
    issue_fused: usize,
    issue_group: usize,
    issue_members: usize,
    issue_size: usize,
    issue_pc: usize,
    issue_mask: usize,
    slot_busy: usize,
    act_valid: usize,
    act_sw: usize,
    act_hit: usize,
    act_mismatch: usize,
    rel: usize,
    rel_d4: usize,
    nxt_valid: usize,
    nxt_sw: usize,
    nxt_fused: usize,
    dbg_state: usize,
    dbg_matched: usize,
    dbg_ptr: usize,
    dbg_hold: usize,
    dbg_pipe_valid: usize,
    dbg_pipe_sw: usize,
    dbg_pipe_pc: usize,
    dbg_pst_valid: usize,
    dbg_pst_pc: usize,
    dbg_pst_lock: usize,
    dbg_ilt_valid: usize,
    dbg_ilt_tag: usize,
    dbg_ilt_ptr: usize,
}

impl InPorts {
    fn new(l: &Layout) -> InPorts {
        let o = |n| offset(&l.inputs, n);
        InPorts {
            reset: o("reset"),
            grid_start: o("grid_start"),
            launch: o("launch"),
            ready: o("ready"),
            inst_kind: o("inst_kind"),
            grp_pc: o("grp_pc"),
            grp_mask: o("grp_mask"),
            writeback: o("writeback"),
            blockbar_release: o("blockbar_release"),
        }
    }
}

impl OutPorts {
    fn new(l: &Layout) -> OutPorts {
        let o = |n| offset(&l.outputs, n);
        OutPorts {
            issue_valid: o("issue_valid"),
            issue_sw: o("issue_sw"),
            issue_fused: o("issue_fused"),
            issue_group: o("issue_group"),
            issue_members: o("issue_members"),
            issue_size: o("issue_size"),
            issue_pc: o("issue_pc"),
            issue_mask: o("issue_mask"),
            slot_busy: o("slot_busy"),
            act_valid: o("act_valid"),
            act_sw: o("act_sw"),
            act_hit: o("act_hit"),
            act_mismatch: o("act_mismatch"),
            rel: o("rel"),
            rel_d4: o("rel_d4"),
            nxt_valid: o("nxt_valid"),
            nxt_sw: o("nxt_sw"),
            nxt_fused: o("nxt_fused"),
            dbg_state: o("dbg_state"),
            dbg_matched: o("dbg_matched"),
            dbg_ptr: o("dbg_ptr"),
            dbg_hold: o("dbg_hold"),
            dbg_pipe_valid: o("dbg_pipe_valid"),
            dbg_pipe_sw: o("dbg_pipe_sw"),
            dbg_pipe_pc: o("dbg_pipe_pc"),
            dbg_pst_valid: o("dbg_pst_valid"),
            dbg_pst_pc: o("dbg_pst_pc"),
            dbg_pst_lock: o("dbg_pst_lock"),
            dbg_ilt_valid: o("dbg_ilt_valid"),
            dbg_ilt_tag: o("dbg_ilt_tag"),
            dbg_ilt_ptr: o("dbg_ilt_ptr"),
        }
    }
}

/// A deliberate bug in the composite or one of its tables, to show that the invariant
/// checks catch wrong behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DwrFault {
    Pst(PstFault),
    Ilt(IltFault),
    Sco(ScoFault),
    /// Round robin takes the second candidate when there are two or more.
    RrSkipsFirst,
    /// A `writeback` also wakes a sub-warp whose own barrier is in the pipeline.
    WritebackDuringBarrier,
    /// A fused bundle holds the issue slot for one slice only, whatever `fused_slices`.
    NoSliceHold,
}

/// One stage of the barrier pipeline: a `bar.synch_partner` on its way through BAR_LAT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Stage {
    valid: bool,
    sw: usize,
    pc: u64,
}

/// The bundle issued in a cycle.
#[derive(Clone, Copy, Debug, Default)]
struct Issued {
    sel: usize,
    fused: bool,
    members: u64,
    kind: Option<InstKind>,
}

/// The barrier action of a cycle.
#[derive(Clone, Copy, Debug, Default)]
struct Action {
    sw: usize,
    pc: u64,
    hit: bool,
    mismatch: bool,
}

/// Event counters (coverage of the corners).
#[derive(Clone, Debug, Default)]
pub struct DwrCounters {
    pub cycles: u64,
    pub resets: u64,
    /// Plain issues by `inst_kind` class: ALU, LONG, BAR_PARTNER, BAR_SYNC, EXIT.
    pub single_by_kind: [u64; 5],
    /// Plain issues with `inst_kind` 5–7 (act as ALU).
    pub junk_kinds: u64,
    /// Fused bundles by size (index = size − 1).
    pub fused_by_size: [u64; 8],
    /// Fused bundles that left a combine-ready partner (at another PC, or unmatched) out.
    pub partners_left_out: u64,
    /// Cycles with the slot held by a later slice.
    pub hold_cycles: u64,
    pub barrier_actions: u64,
    pub hits: u64,
    pub opened: u64,
    pub same_pc: u64,
    pub mismatches: u64,
    pub releases: u64,
    pub d4_releases: u64,
    /// Rows released in a cycle without a barrier action on them (exit or bar.sync).
    pub releases_without_action: u64,
    /// Cycles in which two rows released.
    pub multi_row_releases: u64,
    /// Rows opened and released by the same barrier action (lone member, S10).
    pub open_and_release: u64,
    pub ilt_inserts: u64,
    pub ilt_duplicates: u64,
    pub ilt_evictions: u64,
    /// Cycles with 1, 2, 3 ILT insert requests.
    pub insert_requests: [u64; 3],
    pub flushes: u64,
    pub flushes_with_inserts: u64,
    /// Cycles starting with every PST row valid.
    pub pst_full: u64,
    /// Cycles starting with some ILT set full.
    pub ilt_set_full: u64,
    pub launches: u64,
    pub launches_ignored: u64,
    pub writebacks: u64,
    /// Writebacks ignored because the sub-warp's own barrier is in the pipeline.
    pub writebacks_during_barrier: u64,
    pub blockbar_releases: u64,
    /// Cycles with four or more kinds of event at once (issue, writeback, block release,
    /// launch, barrier action, release).
    pub busy_cycles: u64,
    /// Cycles in which every sub-warp is EMPTY.
    pub all_empty: u64,
}

/// What happened in the last stepped cycle, for `check_invariants`.
#[derive(Clone, Debug, Default)]
struct LastCycle {
    stepped: bool,
    reset: bool,
    s: States,
    s_lock: Bits,
    s_valid_rows: Bits,
    s_row_pc: Vec<u64>,
    s_matched: Bits,
    /// The ILT sets the insert requests address, as they were before the inserts.
    ilt_before: [Option<(usize, [Option<u64>; 16])>; 3],
    /// The acting barrier's PC is in the ILT at the start of the cycle (a plain scan).
    ilt_present: bool,
    s_hold: usize,
    ready_in: Bits,
    grp_pc: [u64; 8],
    grp_mask: [u64; 4],
    issued: Option<Issued>,
    issue_mask: [u64; 4],
    act: Option<Action>,
    rel: Release,
    requests: [Option<u64>; 3],
    flushed: bool,
    pick: Option<usize>,
}

/// The cycle model of `dwr`.
#[derive(Clone, Debug)]
pub struct DwrModel {
    cfg: DwrConfig,
    n: usize,
    w: usize,
    s: usize,
    p: usize,
    swb: usize,
    nw: usize,
    mw: usize,
    ew: usize,
    mask_words: usize,
    /// Every sub-warp.
    all: Bits,
    /// Lanes of each member position (for the bundle mask).
    lanes: Vec<[u64; 4]>,
    inp: InPorts,
    out: OutPorts,
    st: States,
    matched: Bits,
    pst: Pst,
    ilt: Ilt,
    /// Barrier pipeline stages 1 … L−1 as a ring; stage k at `(head + k − 1) mod (L−1)`.
    pipe: Vec<Stage>,
    head: usize,
    /// Sub-warps whose own barrier is in the pipeline.
    in_pipe: Bits,
    /// Valid pipeline stages.
    pipe_count: usize,
    ptr: usize,
    sel: Option<usize>,
    hold: usize,
    /// `dbg_state` image: sub-warp `s`'s code at `3s`, updated for the sub-warps that change.
    state_image: Vec<u64>,
    /// `dbg_pipe_valid`, `dbg_pipe_sw`, `dbg_pipe_pc` images, moved with the stages.
    pipe_images: [Vec<u64>; 3],
    last: LastCycle,
    counters: DwrCounters,
    fault: Option<DwrFault>,
    cycle: u64,
}

impl DwrModel {
    pub fn new(cfg: &DwrConfig) -> Self {
        let g = &cfg.geometry;
        let layout = Layout::new(&cfg.ports());
        let q = cfg.pipe_port_stages();
        let n = g.subwarps();
        let mut model = DwrModel {
            n,
            w: g.group_size,
            s: g.subwarp_size,
            p: g.pc_bits,
            swb: g.subwarp_bits(),
            nw: n.div_ceil(64),
            mw: g.groups().div_ceil(64),
            ew: cfg.ilt.entries().div_ceil(64),
            mask_words: g.warp_mask_bits().div_ceil(64),
            all: Bits::low(n),
            lanes: member_lanes(g.group_size, g.subwarp_size),
            inp: InPorts::new(&layout),
            out: OutPorts::new(&layout),
            st: States::reset(n),
            matched: Bits::ZERO,
            pst: Pst::new(g),
            ilt: Ilt::new(&cfg.ilt),
            pipe: vec![Stage::default(); cfg.pipe_stages()],
            head: 0,
            in_pipe: Bits::ZERO,
            pipe_count: 0,
            ptr: n - 1,
            sel: None,
            hold: 0,
            state_image: vec![0; (3 * n).div_ceil(64)],
            pipe_images: [
                vec![0; q.div_ceil(64)],
                vec![0; (q * g.subwarp_bits()).div_ceil(64)],
                vec![0; (q * g.pc_bits).div_ceil(64)],
            ],
            last: LastCycle {
                s_row_pc: vec![0; g.groups()],
                ..LastCycle::default()
            },
            counters: DwrCounters::default(),
            fault: None,
            cycle: 0,
            cfg: cfg.clone(),
        };
        model.reset_state();
        model
    }

    /// Make the model deliberately wrong (tests of the invariant checker only).
    pub fn inject_fault(&mut self, fault: Option<DwrFault>) {
        self.fault = fault;
        self.pst.inject_fault(match fault {
            Some(DwrFault::Pst(f)) => Some(f),
            _ => None,
        });
        self.ilt.inject_fault(match fault {
            Some(DwrFault::Ilt(f)) => Some(f),
            _ => None,
        });
    }

    pub fn config(&self) -> &DwrConfig {
        &self.cfg
    }
    pub fn states(&self) -> &States {
        &self.st
    }
    pub fn pst(&self) -> &Pst {
        &self.pst
    }
    pub fn ilt(&self) -> &Ilt {
        &self.ilt
    }
    pub fn counters(&self) -> &DwrCounters {
        &self.counters
    }
    /// Barriers in the pipeline.
    pub fn barriers_in_flight(&self) -> usize {
        self.in_pipe.count()
    }
    /// Every sub-warp EMPTY, every row invalid, no barrier in flight.
    pub fn drained(&self) -> bool {
        self.st.empty == Bits::low(self.n)
            && self.pst.valid_rows().is_zero()
            && self.in_pipe.is_zero()
    }

    fn reset_state(&mut self) {
        self.st = States::reset(self.n);
        self.matched = Bits::ZERO;
        self.pst.reset();
        self.ilt.reset();
        self.pipe.iter_mut().for_each(|s| *s = Stage::default());
        self.head = 0;
        self.in_pipe = Bits::ZERO;
        self.pipe_count = 0;
        self.ptr = self.n - 1;
        self.sel = None;
        self.hold = 0;
        self.state_image.iter_mut().for_each(|x| *x = 0);
        for img in self.pipe_images.iter_mut() {
            img.iter_mut().for_each(|x| *x = 0);
        }
    }

    fn write_debug(&mut self, outputs: &mut [u64]) {
        let o = self.out;
        let st = &self.st;
        let img = &self.state_image;
        outputs[o.dbg_state..o.dbg_state + img.len()].copy_from_slice(img);
        let matched = if self.cfg.sco_match == ScoMatch::Matched {
            self.matched & (st.waitp | st.cr)
        } else {
            Bits::ZERO
        };
        matched.write(&mut outputs[o.dbg_matched..], self.nw);
        outputs[o.dbg_ptr] = self.ptr as u64;
        outputs[o.dbg_hold] = self.hold as u64;
        for (img, port) in
            self.pipe_images
                .iter()
                .zip([o.dbg_pipe_valid, o.dbg_pipe_sw, o.dbg_pipe_pc])
        {
            outputs[port..port + img.len()].copy_from_slice(img);
        }
        self.pst
            .valid_rows()
            .write(&mut outputs[o.dbg_pst_valid..], self.mw);
        let img = self.pst.pc_image();
        outputs[o.dbg_pst_pc..o.dbg_pst_pc + img.len()].copy_from_slice(img);
        self.pst
            .lock()
            .write(&mut outputs[o.dbg_pst_lock..], self.nw);
        self.ilt
            .valid()
            .write(&mut outputs[o.dbg_ilt_valid..], self.ew);
        let img = self.ilt.tag_image();
        outputs[o.dbg_ilt_tag..o.dbg_ilt_tag + img.len()].copy_from_slice(img);
        let img = self.ilt.ptr_image();
        outputs[o.dbg_ilt_ptr..o.dbg_ilt_ptr + img.len()].copy_from_slice(img);
    }

    fn snapshot(&mut self, reset: bool) {
        let l = &mut self.last;
        l.stepped = true;
        l.reset = reset;
        l.s = self.st;
        l.s_lock = self.pst.lock();
        l.s_valid_rows = self.pst.valid_rows();
        l.s_row_pc.copy_from_slice(self.pst.pcs());
        l.s_matched = self.matched;
        l.ilt_before = [None; 3];
        l.ilt_present = false;
        l.s_hold = self.hold;
        l.issued = None;
        l.act = None;
        l.rel = Release::default();
        l.requests = [None; 3];
        l.flushed = false;
        l.pick = None;
    }

    fn zero_functional(&self, outputs: &mut [u64]) {
        let o = self.out;
        for port in [
            o.issue_valid,
            o.issue_sw,
            o.issue_fused,
            o.issue_group,
            o.issue_members,
            o.issue_size,
            o.issue_pc,
            o.slot_busy,
            o.act_valid,
            o.act_sw,
            o.act_hit,
            o.act_mismatch,
            o.nxt_valid,
            o.nxt_sw,
            o.nxt_fused,
        ] {
            outputs[port] = 0;
        }
        outputs[o.issue_mask..o.issue_mask + self.mask_words]
            .iter_mut()
            .for_each(|x| *x = 0);
        Bits::ZERO.write(&mut outputs[o.rel..], self.mw);
        Bits::ZERO.write(&mut outputs[o.rel_d4..], self.mw);
    }
}

impl Model for DwrModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let (i, o) = (self.inp, self.out);
        let (w, p) = (self.w, self.p);
        let all = self.all;
        let reset = inputs[i.reset] & 1 != 0;
        self.write_debug(outputs);
        self.snapshot(reset);
        self.ilt.begin_cycle();
        self.cycle += 1;
        self.counters.cycles += 1;
        if reset {
            self.reset_state();
            self.zero_functional(outputs);
            self.counters.resets += 1;
            return;
        }
        let grid_start = inputs[i.grid_start] & 1 != 0;
        let launch = Bits::read(&inputs[i.launch..], self.nw) & all;
        let ready_in = Bits::read(&inputs[i.ready..], self.nw) & all;
        let kind = InstKind::from_code(inputs[i.inst_kind]);
        let writeback = Bits::read(&inputs[i.writeback..], self.nw) & all;
        let blockbar_release = Bits::read(&inputs[i.blockbar_release..], self.nw) & all;
        self.last.ready_in = ready_in;

        let c = &mut self.counters;
        c.pst_full += (self.pst.valid_rows().count() == self.pst.rows()) as u64;
        let icfg = self.ilt.config();
        c.ilt_set_full += (0..icfg.sets).any(|s| self.ilt.occupancy(s) == icfg.ways) as u64;
        c.all_empty += (self.st.empty == all) as u64;

        let s0 = self.st;
        let mut nx = self.st;
        let hold_s = self.hold;

        // 1. Issue of the registered pick (§3.6, A13, A20).
        let mut issued_bar: Option<Stage> = None;
        outputs[o.slot_busy] = (self.sel.is_some() || hold_s > 0) as u64;
        if let Some(sel) = self.sel {
            let (g, m) = (sel / w, sel % w);
            let grp_pc = &mut self.last.grp_pc;
            for (j, pc) in grp_pc.iter_mut().enumerate().take(w) {
                *pc = inputs.field_at(i.grp_pc, j * p, p);
            }
            let gm = &mut self.last.grp_mask;
            gm[..self.mask_words]
                .copy_from_slice(&inputs[i.grp_mask..i.grp_mask + self.mask_words]);
            let fused = s0.cr.get(sel);
            let sco_fault = match self.fault {
                Some(DwrFault::Sco(f)) => Some(f),
                _ => None,
            };
            let members = form_bundle(
                self.cfg.sco_match,
                m,
                s0.cr.bits(g * w, w),
                self.matched.bits(g * w, w),
                &self.last.grp_pc[..w],
                sco_fault,
            );
            let size = members.count_ones() as usize;
            outputs[o.issue_valid] = 1;
            outputs[o.issue_sw] = sel as u64;
            outputs[o.issue_fused] = fused as u64;
            outputs[o.issue_group] = g as u64;
            outputs[o.issue_members] = members;
            outputs[o.issue_size] = size as u64;
            outputs[o.issue_pc] = self.last.grp_pc[m];
            let mask_out = &mut outputs[o.issue_mask..o.issue_mask + self.mask_words];
            bundle_mask(&self.last.grp_mask, members, &self.lanes, mask_out);
            self.last.issue_mask = [0; 4];
            self.last.issue_mask[..self.mask_words].copy_from_slice(mask_out);
            if fused {
                for j in 0..w {
                    if members >> j & 1 == 1 {
                        nx.go(g * w + j, State::CombineReady, State::Stalled);
                    }
                }
                self.ptr = g * w + (63 - members.leading_zeros() as usize);
                self.hold = match self.cfg.fused_slices {
                    _ if self.fault == Some(DwrFault::NoSliceHold) => 0,
                    FusedSlices::Members => size - 1,
                    FusedSlices::One => 0,
                };
                c.fused_by_size[size - 1] += 1;
                c.partners_left_out += (s0.cr.bits(g * w, w) & !members != 0) as u64;
            } else {
                self.ptr = sel;
                match kind {
                    InstKind::Alu => {
                        c.junk_kinds += (inputs[i.inst_kind] & 7 >= 5) as u64;
                    }
                    InstKind::Long => nx.go(sel, State::Ready, State::Stalled),
                    InstKind::BarPartner => {
                        nx.go(sel, State::Ready, State::Stalled);
                        issued_bar = Some(Stage {
                            valid: true,
                            sw: sel,
                            pc: self.last.grp_pc[m],
                        });
                    }
                    InstKind::BarSync => nx.go(sel, State::Ready, State::WaitBlockbar),
                    InstKind::Exit => nx.go(sel, State::Ready, State::Empty),
                }
                c.single_by_kind[kind.code() as usize] += 1;
            }
            self.last.issued = Some(Issued {
                sel,
                fused,
                members,
                kind: (!fused).then_some(kind),
            });
        } else {
            for port in [
                o.issue_valid,
                o.issue_sw,
                o.issue_fused,
                o.issue_group,
                o.issue_members,
                o.issue_size,
                o.issue_pc,
            ] {
                outputs[port] = 0;
            }
            outputs[o.issue_mask..o.issue_mask + self.mask_words]
                .iter_mut()
                .for_each(|x| *x = 0);
            if self.hold > 0 {
                self.hold -= 1;
                c.hold_cycles += 1;
            }
        }

        // 2–4. Writeback, block-barrier release, launch: each tests the state in S.
        let blocked_wb = if self.fault == Some(DwrFault::WritebackDuringBarrier) {
            Bits::ZERO
        } else {
            self.in_pipe
        };
        let wb = (writeback & s0.stalled).not_in(blocked_wb);
        nx.go_all(wb, State::Stalled, State::Ready);
        let br = blockbar_release & s0.blockbar;
        nx.go_all(br, State::WaitBlockbar, State::Ready);
        let la = launch & s0.empty;
        nx.go_all(la, State::Empty, State::Ready);
        c.writebacks += wb.count() as u64;
        c.writebacks_during_barrier += (writeback & s0.stalled & self.in_pipe).count() as u64;
        c.blockbar_releases += br.count() as u64;
        c.launches += la.count() as u64;
        c.launches_ignored += launch.not_in(s0.empty).count() as u64;

        // 5. Barrier action (§3.4, §3.10 rule 3).
        let acting = if self.pipe.is_empty() {
            issued_bar
        } else {
            let len = self.pipe.len();
            let sg = self.pipe[(self.head + len - 1) % len];
            sg.valid.then_some(sg)
        };
        let mut requests: [Option<u64>; 3] = [None; 3];
        let mut n_req = 0;
        let mut act_row = None;
        if let Some(b) = acting {
            let hit = self.ilt.lookup(b.pc);
            let icfg = self.ilt.config();
            let (set, tag) = (icfg.set_of(b.pc), icfg.tag_of(b.pc));
            self.last.ilt_present =
                (0..icfg.ways).any(|way| self.ilt.entry(set * icfg.ways + way) == Some(tag));
            let arrival = self.pst.arrive(b.sw, b.pc, hit);
            let from = if nx.stalled.get(b.sw) {
                State::Stalled
            } else {
                nx.of(b.sw)
            };
            if hit {
                nx.go(b.sw, from, State::Ready);
                c.hits += 1;
            } else {
                nx.go(b.sw, from, State::WaitPartner);
                if self.cfg.sco_match == ScoMatch::Matched {
                    if arrival.mismatch {
                        self.matched.clear(b.sw);
                    } else {
                        self.matched.set(b.sw);
                    }
                }
                if arrival.mismatch {
                    requests[0] = Some(b.pc);
                    n_req = 1;
                }
                act_row = Some(b.sw / w);
                c.opened += arrival.opened as u64;
                c.mismatches += arrival.mismatch as u64;
                c.same_pc += (!arrival.opened && !arrival.mismatch) as u64;
            }
            c.barrier_actions += 1;
            outputs[o.act_valid] = 1;
            outputs[o.act_sw] = b.sw as u64;
            outputs[o.act_hit] = hit as u64;
            outputs[o.act_mismatch] = arrival.mismatch as u64;
            self.last.act = Some(Action {
                sw: b.sw,
                pc: b.pc,
                hit,
                mismatch: arrival.mismatch,
            });
        } else {
            outputs[o.act_valid] = 0;
            outputs[o.act_sw] = 0;
            outputs[o.act_hit] = 0;
            outputs[o.act_mismatch] = 0;
        }

        // 6. Release: Eq. 5-1 on every row after steps 1–5 (A1, D4, D5).
        let sw_valid = all.not_in(nx.empty);
        let rel = self.pst.evaluate(&sw_valid, &nx.blockbar);
        if rel.any() {
            nx.go_all(rel.released, State::WaitPartner, State::CombineReady);
            if self.cfg.d4_learn {
                for row in rel.d4.iter() {
                    if n_req < requests.len() {
                        requests[n_req] = self.pst.row_pc(row);
                        n_req += 1;
                    }
                }
            }
            let n_rel = rel.rows.count() as u64;
            c.releases += n_rel;
            c.d4_releases += rel.d4.count() as u64;
            c.multi_row_releases += (n_rel >= 2) as u64;
            c.releases_without_action +=
                rel.rows.iter().filter(|&r| Some(r) != act_row).count() as u64;
            c.open_and_release += (self.last.act.is_some_and(|a| !a.hit)
                && act_row.is_some_and(|r| rel.rows.get(r) && !self.last.s_valid_rows.get(r)))
                as u64;
        }
        self.pst.clear(&rel);
        rel.rows.write(&mut outputs[o.rel..], self.mw);
        rel.d4.write(&mut outputs[o.rel_d4..], self.mw);

        // 7. ILT: inserts in order (mismatch, then D4 rows ascending), then the flush.
        let icfg = self.ilt.config();
        let ways = icfg.ways;
        for (k, pc) in requests.iter().enumerate() {
            let Some(pc) = pc else { continue };
            let set = icfg.set_of(*pc);
            if self.last.ilt_before[..k]
                .iter()
                .flatten()
                .any(|(s2, _)| *s2 == set)
            {
                continue;
            }
            let mut copy = [None; 16];
            for (way, e) in copy.iter_mut().enumerate().take(ways) {
                *e = self.ilt.entry(set * ways + way);
            }
            self.last.ilt_before[k] = Some((set, copy));
        }
        for pc in requests.iter().flatten() {
            let r = self.ilt.insert(*pc);
            c.ilt_inserts += r.written as u64;
            c.ilt_duplicates += !r.written as u64;
            c.ilt_evictions += r.evicted as u64;
        }
        if n_req > 0 {
            c.insert_requests[n_req - 1] += 1;
        }
        if grid_start && self.ilt.flush() {
            c.flushes += 1;
            c.flushes_with_inserts += (n_req > 0) as u64;
            self.last.flushed = true;
        }
        self.last.requests = requests;

        // 8. Barrier pipeline: shift by one; stage 1 takes this cycle's barrier.
        if !self.pipe.is_empty() {
            if let Some(b) = acting {
                self.in_pipe.clear(b.sw);
            }
            let len = self.pipe.len();
            self.head = (self.head + len - 1) % len;
            // The slot of the acted stage takes the new stage 1.
            self.pipe_count -= self.pipe[self.head].valid as usize;
            self.pipe[self.head] = issued_bar.unwrap_or_default();
            self.pipe_count += issued_bar.is_some() as usize;
            // The debug images move with the stages: every field up by one, the acted one
            // falls off the top, stage 1 takes the new barrier.
            let widths = [1, self.swb, self.p];
            for (img, &width) in self.pipe_images.iter_mut().zip(&widths) {
                shift_fields_up(img, width, len);
            }
            if let Some(b) = issued_bar {
                self.in_pipe.set(b.sw);
                self.pipe_images[0].set_field(0, 1, 1);
                self.pipe_images[1].set_field(0, self.swb, b.sw as u64);
                self.pipe_images[2].set_field(0, self.p, b.pc);
            }
        }

        // 9. Pick for t+1 from the final state (§3.10 rule 1, A20, A23).
        let (old, new) = (s0.planes(), nx.planes());
        let changed = (old[0] ^ new[0]) | (old[1] ^ new[1]) | (old[2] ^ new[2]);
        for sw in changed.iter() {
            let code =
                new[0].get(sw) as u64 | (new[1].get(sw) as u64) << 1 | (new[2].get(sw) as u64) << 2;
            set_bits(&mut self.state_image, 3 * sw, 3, code);
        }
        self.st = nx;
        let pick = if self.hold > 0 {
            None
        } else {
            let cand = (nx.ready | nx.cr) & ready_in;
            let first = cand.first_from(self.ptr + 1).or_else(|| cand.first_from(0));
            match first {
                Some(f) if self.fault == Some(DwrFault::RrSkipsFirst) && cand.count() >= 2 => {
                    let mut rest = cand;
                    rest.clear(f);
                    rest.first_from(f + 1).or_else(|| rest.first_from(0))
                }
                x => x,
            }
        };
        self.sel = pick;
        outputs[o.nxt_valid] = pick.is_some() as u64;
        outputs[o.nxt_sw] = pick.unwrap_or(0) as u64;
        outputs[o.nxt_fused] = pick.is_some_and(|s| nx.cr.get(s)) as u64;
        let kinds = [
            self.last.issued.is_some(),
            !wb.is_zero(),
            !br.is_zero(),
            !la.is_zero(),
            acting.is_some(),
            rel.any(),
        ];
        c.busy_cycles += (kinds.iter().filter(|&&k| k).count() >= 4) as u64;
        self.last.rel = rel;
        self.last.pick = pick;
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let c = &self.counters;
        let fusions: u64 = c.fused_by_size.iter().sum();
        let members: u64 = (1..).zip(c.fused_by_size).map(|(k, n)| k * n).sum();
        vec![
            ("issues", c.single_by_kind.iter().sum::<u64>() + fusions),
            ("fusions", fusions),
            ("fused_subwarps", members),
            ("barrier_actions", c.barrier_actions),
            ("ilt_hits", c.hits),
            ("partner_releases", c.releases),
            ("ilt_inserts", c.ilt_inserts),
            ("ilt_evictions", c.ilt_evictions),
            ("flushes", c.flushes),
            ("launches", c.launches),
            ("writebacks", c.writebacks),
            ("blockbar_releases", c.blockbar_releases),
        ]
    }

    fn check_invariants(&self) -> Result<(), String> {
        let (n, w) = (self.n, self.w);
        let all = self.all;
        let st = &self.st;
        // The six states partition the sub-warps.
        let sets = st.sets();
        let mut union = Bits::ZERO;
        for (k, a) in sets.iter().enumerate() {
            if !(*a & union).is_zero() {
                return Err(format!(
                    "states: a sub-warp in two states ({:?})",
                    State::ALL[k]
                ));
            }
            union = union | *a;
        }
        if union != all {
            return Err("states: a sub-warp in no state".into());
        }
        self.pst.check()?;
        self.ilt.check()?;
        // I-LOCK (and I-NOVALIDLOCK): lock bits are exactly the WAIT_PARTNER sub-warps.
        if self.pst.lock() != st.waitp {
            return Err(format!(
                "I-LOCK: lock bits {} but WAIT_PARTNER {}",
                self.pst.lock(),
                st.waitp
            ));
        }
        // The registered pick is issuable; hold and pick exclude each other.
        if let Some(s) = self.sel {
            if !(st.ready | st.cr).get(s) {
                return Err(format!(
                    "pick {s} is {:?}, not READY or COMBINE_READY",
                    st.of(s)
                ));
            }
            if self.hold > 0 {
                return Err("I-ISSUE: a pick while a fused bundle holds the slot".into());
            }
        }
        if self.hold >= w {
            return Err(format!("hold {} ≥ W", self.hold));
        }
        // Barrier pipeline: one barrier per sub-warp, each STALLED.
        if !self.in_pipe.not_in(st.stalled).is_zero() {
            return Err(format!(
                "barrier pipeline: sub-warps {} with a barrier in flight are not STALLED",
                self.in_pipe.not_in(st.stalled)
            ));
        }
        // One barrier per sub-warp: as many in-flight sub-warps as valid stages (the stages
        // themselves are read every cycle by `dbg_pipe_*` and compared with the RTL).
        if self.in_pipe.count() != self.pipe_count {
            return Err(format!(
                "barrier pipeline: {} sub-warps in flight in {} valid stages",
                self.in_pipe.count(),
                self.pipe_count
            ));
        }
        // I-LIVENESS: no valid row satisfies Eq. 5-1 in the registered state.
        let arrived = st.empty | self.pst.lock() | st.blockbar;
        let full = (1u64 << w) - 1;
        for row in self.pst.valid_rows().iter() {
            if arrived.bits(row * w, w) == full {
                return Err(format!(
                    "I-LIVENESS: row {row} satisfies Eq. 5-1 but is still valid ({})",
                    self.pst.summary()
                ));
            }
        }
        let l = &self.last;
        if !l.stepped {
            return Ok(());
        }
        if l.reset {
            let clean = st.empty == all
                && self.pst.valid_rows().is_zero()
                && self.ilt.valid().is_zero()
                && self.in_pipe.is_zero()
                && self.ptr == n - 1
                && self.sel.is_none()
                && self.hold == 0;
            return if clean {
                Ok(())
            } else {
                Err("state after reset is not the reset state".into())
            };
        }
        // I-FUSE / I-SINGLE on the issued bundle.
        if let Some(b) = l.issued {
            check_fuse(
                self.cfg.sco_match,
                w,
                self.s,
                b.sel,
                &l.s.cr,
                &l.s_matched,
                &l.grp_pc[..w],
                &l.grp_mask,
                b.members,
                b.members.count_ones() as u64,
                &l.issue_mask,
            )?;
            let g = b.sel / w;
            // §3.9 at port level: where a plain issue leaves its sub-warp (steps 2–4 test the
            // state at the start of the cycle, so they cannot apply to it).
            if let Some(kind) = b.kind {
                let now = st.of(b.sel);
                let ok = match kind {
                    InstKind::Alu => now == State::Ready,
                    InstKind::Long => now == State::Stalled,
                    InstKind::BarPartner if self.cfg.bar_lat > 1 => now == State::Stalled,
                    InstKind::BarPartner => {
                        matches!(now, State::Ready | State::WaitPartner | State::CombineReady)
                    }
                    InstKind::BarSync => now == State::WaitBlockbar,
                    InstKind::Exit => now == State::Empty,
                };
                if !ok {
                    return Err(format!(
                        "§3.9: sub-warp {} issued {kind:?} and is now {now:?}",
                        b.sel
                    ));
                }
            }
            if b.fused {
                let size = b.members.count_ones() as usize;
                let want_hold = match self.cfg.fused_slices {
                    FusedSlices::Members => size - 1,
                    FusedSlices::One => 0,
                };
                if self.hold != want_hold {
                    return Err(format!(
                        "I-ISSUE: a fused bundle of {size} holds {} more slices, not {want_hold}",
                        self.hold
                    ));
                }
                for j in 0..w {
                    if b.members >> j & 1 == 1 && !st.stalled.get(g * w + j) {
                        return Err(format!(
                            "I-FUSE: member {} is not STALLED after issue",
                            g * w + j
                        ));
                    }
                }
            }
        }
        // I-RELEASE: the new COMBINE_READY sub-warps are exactly the locked members of the
        // released rows; each released row satisfied Eq. 5-1 after steps 1–5 and is now clear.
        let mut locked_post = l.s_lock;
        if let Some(a) = l.act {
            if !a.hit {
                locked_post.set(a.sw);
            }
        }
        let mut rel_members = Bits::ZERO;
        for row in l.rel.rows.iter() {
            if self.pst.valid_rows().get(row) {
                return Err(format!("I-RELEASE: row {row} released but still valid"));
            }
            for k in 0..w {
                let s = row * w + k;
                if !(st.empty.get(s) || locked_post.get(s) || st.blockbar.get(s)) {
                    return Err(format!(
                        "I-RELEASE: row {row} released while sub-warp {s} ({:?}) had not arrived",
                        st.of(s)
                    ));
                }
                if locked_post.get(s) {
                    rel_members.set(s);
                }
            }
        }
        let new_cr = st.cr.not_in(l.s.cr);
        if new_cr != rel_members {
            return Err(format!(
                "I-RELEASE: new COMBINE_READY {new_cr}, locked members of released rows {rel_members}"
            ));
        }
        // I-BYPASS / I-EPISODE: a row changes only by this cycle's (non-bypassed) arrival and
        // its release; an open row keeps the PC of its first arrival.
        let opened = l.act.filter(|a| !a.hit && !l.s_valid_rows.get(a.sw / w));
        let mut want_valid = l.s_valid_rows;
        if let Some(a) = opened {
            want_valid.set(a.sw / w);
        }
        let want_valid = want_valid.not_in(l.rel.rows);
        if self.pst.valid_rows() != want_valid {
            return Err(format!(
                "I-EPISODE: valid rows {} but expected {} (opened {:?}, released {})",
                self.pst.valid_rows(),
                want_valid,
                opened.map(|a| a.sw / w),
                l.rel.rows
            ));
        }
        let mut rel_spread = Bits::ZERO;
        for row in l.rel.rows.iter() {
            for k in 0..w {
                rel_spread.set(row * w + k);
            }
        }
        if self.pst.lock() != locked_post.not_in(rel_spread) {
            return Err(format!(
                "I-BYPASS: lock vectors {} changed by other than the arrival (expected {})",
                self.pst.lock(),
                locked_post.not_in(rel_spread)
            ));
        }
        let pcs = self.pst.pcs();
        for row in self.pst.valid_rows().iter() {
            let want = match opened {
                Some(a) if a.sw / w == row => a.pc,
                _ => l.s_row_pc[row],
            };
            if pcs[row] != want {
                return Err(format!(
                    "I-EPISODE: row {row} pc {:#x}, first arrival's pc {want:#x}",
                    pcs[row]
                ));
            }
        }
        if let Some(a) = l.act {
            if a.hit != l.ilt_present {
                return Err(format!(
                    "I-BYPASS: barrier pc {:#x} hit = {} but the ILT holds it: {}",
                    a.pc, a.hit as u8, l.ilt_present as u8
                ));
            }
            if a.hit && !st.ready.get(a.sw) {
                return Err(format!(
                    "I-BYPASS: sub-warp {} hit in the ILT but is {:?}",
                    a.sw,
                    st.of(a.sw)
                ));
            }
        }
        // I-ILT: the requests are the mismatch PC, then the D4 rows' PCs ascending; the
        // table changes only by them (or a flush).
        let mut want: [Option<u64>; 3] = [None; 3];
        let mut k = 0;
        if let Some(a) = l.act.filter(|a| a.mismatch) {
            want[0] = Some(a.pc);
            k = 1;
        }
        if self.cfg.d4_learn {
            for row in l.rel.d4.iter() {
                let pc = match opened {
                    Some(a) if a.sw / w == row => a.pc,
                    _ => l.s_row_pc[row],
                };
                if k == 3 {
                    return Err("I-ILT: more than three insert requests in one cycle".into());
                }
                want[k] = Some(pc);
                k += 1;
            }
        }
        if l.requests != want {
            return Err(format!(
                "I-ILT: insert requests {:?}, expected the mismatch then the D4 rows {want:?}",
                l.requests
            ));
        }
        if l.flushed {
            if !self.ilt.valid().is_zero() {
                return Err("I-ILT: not empty after a flush".into());
            }
        } else {
            let icfg = self.ilt.config();
            let copied = l.ilt_before.iter().flatten();
            for set in 0..icfg.sets {
                if self.ilt.changed_sets() >> set & 1 == 1 && !copied.clone().any(|c| c.0 == set) {
                    return Err(format!(
                        "I-ILT: set {set} changed without an insert into it"
                    ));
                }
            }
            let mut changed = 0;
            for (set, before) in copied {
                for (way, b) in before.iter().enumerate().take(icfg.ways) {
                    let now = self.ilt.entry(set * icfg.ways + way);
                    if now == *b {
                        continue;
                    }
                    changed += 1;
                    let ok = l
                        .requests
                        .iter()
                        .flatten()
                        .any(|&pc| icfg.set_of(pc) == *set && Some(icfg.tag_of(pc)) == now);
                    if !ok {
                        return Err(format!(
                            "I-ILT: set {set} way {way} changed to {now:?} without an insert of it"
                        ));
                    }
                }
            }
            if changed > l.requests.iter().flatten().count() {
                return Err("I-ILT: more entries changed than insert requests".into());
            }
        }
        // The pick: the first candidate after the pointer (round robin), none while holding.
        let cand = (st.ready | st.cr) & l.ready_in;
        match l.pick {
            Some(_) if self.hold > 0 => {
                return Err("I-ISSUE: a pick while a fused bundle holds the slot".into());
            }
            None if self.hold == 0 && !cand.is_zero() => {
                return Err(format!("round robin: no pick among candidates {cand}"));
            }
            Some(p) => {
                if !cand.get(p) {
                    return Err(format!("round robin: picked {p}, not a candidate"));
                }
                // No candidate strictly between the pointer and the pick, going round.
                let between = if p > self.ptr {
                    Bits::range(self.ptr + 1, p)
                } else {
                    Bits::range(self.ptr + 1, n) | Bits::range(0, p)
                };
                if !(cand & between).is_zero() {
                    return Err(format!(
                        "round robin: picked {p} after pointer {}, skipping {}",
                        self.ptr,
                        cand & between
                    ));
                }
            }
            None => {}
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        let mut s = format!("cycle {} states[", self.cycle);
        for sw in 0..self.n {
            let code = self.st.of(sw).code();
            s.push(char::from(b'0' + code as u8));
        }
        s.push_str(&format!(
            "] ptr {} pick {:?} hold {} pipe {:?} pst{} ilt{}",
            self.ptr,
            self.sel,
            self.hold,
            self.in_pipe.iter().collect::<Vec<_>>(),
            self.pst.summary(),
            self.ilt.summary()
        ));
        s
    }
}

// ---------------------------------------------------------------------------------------
// Stimulus

/// How the stimulus's `__syncthreads` block barrier releases sub-warps blocked in `bar.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockMode {
    /// The block is the partner group: release when every live member is blocked.
    Group,
    /// The block is the whole SM.
    All,
    /// Release blocked sub-warps at random.
    Random,
}

/// The stimulus's view of one sub-warp's program.
#[derive(Clone, Copy, Debug, Default)]
struct SwProg {
    alive: bool,
    pc: u64,
    /// The next instruction is the sensitive one after a `bar.synch_partner`.
    after_bar: bool,
    at_sync: bool,
    sync_since: u64,
    mask: u64,
}

#[derive(Clone, Debug)]
struct Phase {
    left: u64,
    /// Weights of ALU, LONG, BAR_PARTNER, BAR_SYNC, EXIT, codes 5–7.
    weights: [u64; 6],
    /// Out of 8: a barrier PC is the group's current target PC.
    agree: u64,
    ready_level: u8,
    wb_max: u64,
    launch_rate: u64,
    block: BlockMode,
    /// Inconsistent PCs, spurious writebacks and launches, random instruction classes.
    chaos: bool,
    /// No new barriers or launches; everything runs to its exit.
    drain: bool,
    /// One in `grid_rate` cycles pulses `grid_start`.
    grid_rate: u64,
    /// One in `retarget` barriers moves its group's target PC.
    retarget: u64,
}

/// Constrained-random inputs for `dwr`: a small program model per sub-warp, advanced when
/// the unit issues it. On each `nxt_*` announcement it draws the picked sub-warp's next
/// instruction (barriers weighted high, PCs from a small pool concentrated on one ILT set and
/// often shared by a group), completes long and fused instructions with `writeback` after
/// random delays (fused members together), releases `__syncthreads` by group, SM or at random,
/// launches and exits sub-warps (also while partners wait), holds `ready` low in bursts,
/// pulses `grid_start`, resets very rarely, and now and then drains everything. All inputs
/// are legal by the contract; the bookkeeping only steers towards the interesting states.
#[derive(Clone, Debug)]
pub struct DwrStimulus {
    rng: Rng,
    n: usize,
    all: Bits,
    w: usize,
    s: usize,
    p: usize,
    nw: usize,
    sets: usize,
    pc_mask: u64,
    inp: InPorts,
    out: OutPorts,
    prog: Vec<SwProg>,
    alive: Bits,
    at_sync: Bits,
    last_drive: Option<(usize, InstKind, u64)>,
    reset_last: bool,
    wheel: [Bits; 64],
    phase: Phase,
    targets: Vec<u64>,
    pool: Vec<u64>,
    stopped: bool,
    ready_burst: u64,
}

impl DwrStimulus {
    pub fn new(cfg: &DwrConfig, seed: u64) -> Self {
        let g = &cfg.geometry;
        let layout = Layout::new(&cfg.ports());
        let n = g.subwarps();
        let mut st = DwrStimulus {
            rng: Rng::new(seed),
            n,
            all: Bits::low(n),
            w: g.group_size,
            s: g.subwarp_size,
            p: g.pc_bits,
            nw: n.div_ceil(64),
            sets: cfg.ilt.sets,
            pc_mask: if g.pc_bits >= 64 {
                u64::MAX
            } else {
                (1u64 << g.pc_bits) - 1
            },
            inp: InPorts::new(&layout),
            out: OutPorts::new(&layout),
            prog: vec![SwProg::default(); n],
            alive: Bits::ZERO,
            at_sync: Bits::ZERO,
            last_drive: None,
            reset_last: false,
            wheel: [Bits::ZERO; 64],
            phase: Phase {
                left: 0,
                weights: [1; 6],
                agree: 6,
                ready_level: 8,
                wb_max: 10,
                launch_rate: 4,
                block: BlockMode::Group,
                chaos: false,
                drain: false,
                grid_rate: 3000,
                retarget: 4,
            },
            targets: vec![0; g.groups()],
            pool: Vec::with_capacity(48),
            stopped: false,
            ready_burst: 0,
        };
        st.new_phase();
        st
    }

    /// Stop issuing arrivals and launches for good: every sub-warp runs to its exit (the
    /// no-deadlock runs end with this).
    pub fn drain(&mut self) {
        self.stopped = true;
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        let ph = &mut self.phase;
        ph.left = 200 + r.below(3000);
        ph.weights = [
            r.below(6),
            r.below(4),
            1 + r.below(8),
            [0, 0, 1, 2][r.below(4) as usize],
            [0, 1, 1, 2][r.below(4) as usize],
            r.below(2),
        ];
        ph.agree = 4 + r.below(5);
        ph.ready_level = if r.chance(1, 2) {
            8
        } else {
            3 + r.below(6) as u8
        };
        ph.wb_max = [0, 3, 10, 30, 63][r.below(5) as usize];
        ph.launch_rate = 1 + r.below(30);
        ph.block = [BlockMode::Group, BlockMode::All, BlockMode::Random][r.below(3) as usize];
        ph.chaos = r.chance(1, 4);
        ph.drain = r.chance(1, 10);
        ph.grid_rate = [200, 1000, 3000, 30_000][r.below(4) as usize];
        ph.retarget = [2, 4, 16][r.below(3) as usize];
        // Barrier PCs: a pool concentrated on one or two ILT sets, so that sets fill and
        // evict; some phases use few PCs (fusion), others many (mismatches, ILT churn).
        let size = [2, 4, 8, 16, 40][r.below(5) as usize];
        let hot = [r.below(self.sets as u64), r.below(self.sets as u64)];
        self.pool.clear();
        for _ in 0..size {
            let set = if r.chance(3, 4) {
                hot[r.below(2) as usize]
            } else {
                r.below(self.sets as u64)
            };
            let ix = (r.below(64) * self.sets as u64 + set) & self.pc_mask;
            self.pool.push(ix);
        }
        for t in self.targets.iter_mut() {
            *t = self.pool[r.below(self.pool.len() as u64) as usize];
        }
    }

    fn clear_all(&mut self) {
        self.prog.iter_mut().for_each(|p| *p = SwProg::default());
        self.alive = Bits::ZERO;
        self.at_sync = Bits::ZERO;
        self.wheel = [Bits::ZERO; 64];
        self.last_drive = None;
    }

    fn schedule_writeback(&mut self, cycle: u64, members: Bits) {
        let d = self.rng.below(self.phase.wb_max + 1);
        let slot = ((cycle + d) % 64) as usize;
        self.wheel[slot] = self.wheel[slot] | members;
    }

    /// Learn what the unit issued last cycle (the outputs of cycle − 1).
    fn observe(&mut self, cycle: u64, prev: &[u64]) {
        let o = self.out;
        if prev[o.issue_valid] & 1 == 0 {
            return;
        }
        let mask = self.pc_mask;
        if prev[o.issue_fused] & 1 == 1 {
            let g = prev[o.issue_group] as usize;
            let members = prev[o.issue_members];
            let mut set = Bits::ZERO;
            for j in 0..self.w {
                if members >> j & 1 == 1 {
                    let s = g * self.w + j;
                    let p = &mut self.prog[s];
                    p.pc = (p.pc + 1) & mask;
                    p.after_bar = false;
                    set.set(s);
                }
            }
            self.schedule_writeback(cycle, set);
        } else if let Some((s, kind, pc)) = self.last_drive {
            let p = &mut self.prog[s];
            match kind {
                InstKind::Alu => p.pc = (p.pc + 1) & mask,
                InstKind::Long => {
                    p.pc = (p.pc + 1) & mask;
                    p.after_bar = false;
                    let mut b = Bits::ZERO;
                    b.set(s);
                    self.schedule_writeback(cycle, b);
                }
                InstKind::BarPartner => {
                    p.pc = (pc + 1) & mask;
                    p.after_bar = true;
                    if self.phase.chaos && self.rng.chance(1, 4) {
                        // A writeback while the barrier is in flight: must be ignored.
                        let mut b = Bits::ZERO;
                        b.set(s);
                        let slot = ((cycle + self.rng.below(3)) % 64) as usize;
                        self.wheel[slot] = self.wheel[slot] | b;
                    }
                }
                InstKind::BarSync => {
                    p.pc = (p.pc + 1) & mask;
                    p.at_sync = true;
                    p.sync_since = cycle;
                    self.at_sync.set(s);
                }
                InstKind::Exit => {
                    *p = SwProg::default();
                    self.alive.clear(s);
                    self.at_sync.clear(s);
                }
            }
        }
    }

    /// Is some live partner of `s`'s block waiting in `__syncthreads`?
    fn block_waits(&self, s: usize) -> bool {
        match self.phase.block {
            BlockMode::Group => self.at_sync.bits(s / self.w * self.w, self.w) != 0,
            BlockMode::All => !self.at_sync.is_zero(),
            BlockMode::Random => false,
        }
    }

    /// The next instruction of READY sub-warp `s`: its class and PC.
    fn decide(&mut self, s: usize, drain: bool) -> (InstKind, u64) {
        let p = self.prog[s];
        if p.after_bar {
            // The sensitive instruction after a bypassed barrier, issued alone.
            return (InstKind::Long, p.pc);
        }
        if drain {
            return (InstKind::Exit, p.pc);
        }
        if self.block_waits(s) && self.rng.chance(3, 4) {
            return (InstKind::BarSync, p.pc);
        }
        let wts = self.phase.weights;
        let total: u64 = wts.iter().sum::<u64>().max(1);
        let mut x = self.rng.below(total);
        let mut k = 0;
        while k < 5 && x >= wts[k] {
            x -= wts[k];
            k += 1;
        }
        match k {
            1 => (InstKind::Long, p.pc),
            2 => {
                let g = s / self.w;
                let pc = if self.rng.chance(self.phase.agree, 8) {
                    self.targets[g]
                } else {
                    self.pool[self.rng.below(self.pool.len() as u64) as usize]
                };
                if self.rng.chance(1, self.phase.retarget) {
                    self.targets[g] = self.pool[self.rng.below(self.pool.len() as u64) as usize];
                }
                (InstKind::BarPartner, pc)
            }
            3 => (InstKind::BarSync, p.pc),
            4 => (InstKind::Exit, p.pc),
            _ => (InstKind::Alu, p.pc),
        }
    }

    fn drive_issue(&mut self, s: usize, fused: bool, drain: bool, inputs: &mut [u64]) {
        let i = self.inp;
        let (w, p) = (self.w, self.p);
        let g = s / w;
        let code = if fused {
            // Ignored for a combine-ready pick.
            self.rng.below(8)
        } else {
            let (kind, pc) = self.decide(s, drain);
            if kind == InstKind::BarPartner {
                self.prog[s].pc = pc;
            }
            self.last_drive = Some((s, kind, pc));
            if kind == InstKind::Alu && self.phase.weights[5] > 0 && self.rng.chance(1, 4) {
                5 + self.rng.below(3)
            } else {
                kind.code()
            }
        };
        inputs[i.inst_kind] = code;
        for j in 0..w {
            let sw = g * w + j;
            let pr = self.prog[sw];
            let mut pc = if pr.alive { pr.pc } else { self.rng.below(4) };
            if self.phase.chaos && self.rng.chance(1, 16) {
                pc =
                    (self.pool[self.rng.below(self.pool.len() as u64) as usize] + 1) & self.pc_mask;
            }
            inputs.set_field_at(i.grp_pc, j * p, p, pc);
            inputs.set_field_at(i.grp_mask, j * self.s, self.s, pr.mask);
        }
    }

    fn launch(&mut self, empty: Bits) -> Bits {
        let r = &mut self.rng;
        let w = self.w;
        let pick = |r: &mut Rng, set: Bits| set.nth(r.below(set.count().max(1) as u64) as usize);
        let Some(first) = pick(r, empty) else {
            return Bits::ZERO;
        };
        let mut l = Bits::ZERO;
        match r.below(10) {
            // The empty members of a group (a block aligned to W·S slots, A11).
            0..=4 => {
                let g = first / w;
                for s in g * w..(g + 1) * w {
                    if empty.get(s) {
                        l.set(s);
                    }
                }
            }
            // One sub-warp (also into a group with an open row).
            5..=7 => l.set(first),
            // A run of sub-warps that may span groups.
            _ => {
                let len = 1 + r.below(2 * w as u64) as usize;
                for s in first..(first + len).min(self.n) {
                    if empty.get(s) {
                        l.set(s);
                    }
                }
            }
        }
        for s in l.iter() {
            let mask = match r.below(8) {
                0 => r.next_u64(),
                1 => 0,
                _ => u64::MAX,
            };
            self.prog[s] = SwProg {
                alive: true,
                pc: r.below(16),
                mask: mask
                    & if self.s >= 64 {
                        u64::MAX
                    } else {
                        (1 << self.s) - 1
                    },
                ..SwProg::default()
            };
        }
        self.alive = self.alive | l;
        l
    }
}

impl Stimulus for DwrStimulus {
    fn next(&mut self, cycle: u64, prev: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|x| *x = 0);
        let (i, o) = (self.inp, self.out);
        let all = self.all;
        if cycle > 0 && !self.reset_last && !prev.is_empty() {
            self.observe(cycle, prev);
        }
        self.last_drive = None;
        let announced =
            cycle > 0 && !self.reset_last && !prev.is_empty() && prev[o.nxt_valid] & 1 == 1;
        self.reset_last = false;
        if cycle < 2 || (!self.stopped && self.rng.chance(1, 200_000)) {
            inputs[i.reset] = 1;
            self.clear_all();
            self.reset_last = true;
            return;
        }
        if self.phase.left == 0 || (self.phase.drain && self.alive.is_zero()) {
            self.new_phase();
        }
        self.phase.left -= 1;
        let drain = self.stopped || self.phase.drain;
        let chaos = self.phase.chaos && !self.stopped;

        // The sub-warp announced on nxt_* last cycle issues now.
        if announced {
            let s = prev[o.nxt_sw] as usize;
            let fused = prev[o.nxt_fused] & 1 == 1;
            self.drive_issue(s, fused, drain, inputs);
        }

        // Completions due this cycle (fused members together), sometimes a spurious one.
        let slot = (cycle % 64) as usize;
        let mut wb = self.wheel[slot];
        self.wheel[slot] = Bits::ZERO;
        if chaos && self.rng.chance(1, 40) {
            wb.set(self.rng.below(self.n as u64) as usize);
        }
        wb.write(&mut inputs[i.writeback..], self.nw);

        // The __syncthreads block barrier.
        let mut rel = Bits::ZERO;
        if !self.at_sync.is_zero() {
            let pending = self.alive.not_in(self.at_sync);
            rel = if drain {
                self.at_sync
            } else {
                match self.phase.block {
                    BlockMode::Group => {
                        let done =
                            group_any(self.at_sync, self.w).not_in(group_any(pending, self.w));
                        spread_groups(done, self.w) & self.at_sync
                    }
                    BlockMode::All if pending.is_zero() => self.at_sync,
                    BlockMode::All => Bits::ZERO,
                    BlockMode::Random => self.at_sync & Bits::random(&mut self.rng, self.n, 1),
                }
            };
            // A watchdog, so that no sub-warp waits forever when the phase changes.
            if cycle % 64 == 0 {
                for s in self.at_sync.iter() {
                    if cycle - self.prog[s].sync_since > 3000 {
                        rel.set(s);
                    }
                }
            }
            for s in rel.iter() {
                self.prog[s].at_sync = false;
            }
            self.at_sync = self.at_sync.not_in(rel);
        }
        rel.write(&mut inputs[i.blockbar_release..], self.nw);

        // Launches into EMPTY sub-warps; now and then a launch bit for a live one (ignored).
        let mut launch = Bits::ZERO;
        if !drain && self.rng.chance(1, self.phase.launch_rate) {
            launch = self.launch(all.not_in(self.alive));
        }
        if chaos && self.rng.chance(1, 50) {
            launch.set(self.rng.below(self.n as u64) as usize);
        }
        launch.write(&mut inputs[i.launch..], self.nw);

        // Hazards: ready density by phase, bursts of nothing ready.
        let ready = if drain {
            all
        } else if self.ready_burst > 0 {
            self.ready_burst -= 1;
            Bits::ZERO
        } else {
            if self.rng.chance(1, 500) {
                self.ready_burst = 5 + self.rng.below(50);
            }
            Bits::random(&mut self.rng, self.n, self.phase.ready_level)
        };
        ready.write(&mut inputs[i.ready..], self.nw);

        if !self.stopped && self.rng.chance(1, self.phase.grid_rate) {
            inputs[i.grid_start] = 1;
        }
    }
}

// ---------------------------------------------------------------------------------------
// Spec vectors

use InstKind::{Alu, BarPartner as Bar, BarSync, Exit, Long};

/// One planned spec cycle of a `dwr` vector.
#[derive(Clone, Debug, Default)]
struct Plan {
    launch: u64,
    wb: u64,
    bbr: u64,
    ready: Option<u64>,
    grid: bool,
    /// The sub-warp that issues, and the members if it is a fused issue.
    issue: Option<(usize, Option<u64>)>,
    act: Option<(usize, bool, bool)>,
    rel: u64,
    rel_d4: u64,
    expect: Vec<(&'static str, Vec<u64>)>,
}

/// A `dwr` spec vector written as per-sub-warp programs plus the schedule the spec gives
/// (who issues when, barrier outcomes, releases, environment events). The builder turns it
/// into port values: `inst_kind`, `grp_pc`, `grp_mask` from the programs, and the expected
/// `issue_*`, `slot_busy`, `nxt_*`, `act_*`, `rel`, `rel_d4` of every cycle.
struct Script {
    name: String,
    sets: Vec<String>,
    cfg: DwrConfig,
    progs: Vec<Vec<(u64, InstKind)>>,
    masks: Vec<u64>,
    plan: Vec<Plan>,
}

impl Script {
    fn new(name: &str, sets: &[&str], progs: Vec<Vec<(u64, InstKind)>>) -> Script {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let params = warpforge_contract::Params::resolve(dwr::NAME, dwr::PARAMS, None, &sets)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let cfg = DwrConfig::from_params(&params).unwrap_or_else(|e| panic!("{name}: {e}"));
        let n = cfg.geometry.subwarps();
        let full = (1u64 << cfg.geometry.subwarp_size) - 1;
        let mut progs = progs;
        progs.resize(n, vec![]);
        Script {
            name: name.into(),
            sets,
            masks: progs
                .iter()
                .map(|p| if p.is_empty() { 0 } else { full })
                .collect(),
            cfg,
            progs,
            plan: vec![],
        }
    }
    fn at(&mut self, c: usize) -> &mut Plan {
        if self.plan.len() <= c {
            self.plan.resize(c + 1, Plan::default());
        }
        &mut self.plan[c]
    }
    fn launch(&mut self, c: usize, mask: u64) -> &mut Self {
        self.at(c).launch = mask;
        self
    }
    fn issue(&mut self, c: usize, sw: usize) -> &mut Self {
        assert!(
            self.at(c).issue.is_none(),
            "{}: two issues at {c}",
            self.name
        );
        self.at(c).issue = Some((sw, None));
        self
    }
    /// A `bar.synch_partner` issued at `c`; it acts at `c + BAR_LAT − 1`.
    fn bar(&mut self, c: usize, sw: usize, hit: bool, mismatch: bool) -> &mut Self {
        self.issue(c, sw);
        let a = c + self.cfg.bar_lat - 1;
        self.at(a).act = Some((sw, hit, mismatch));
        self
    }
    fn fused(&mut self, c: usize, sw: usize, members: u64) -> &mut Self {
        assert!(
            self.at(c).issue.is_none(),
            "{}: two issues at {c}",
            self.name
        );
        self.at(c).issue = Some((sw, Some(members)));
        self
    }
    fn wb(&mut self, c: usize, mask: u64) -> &mut Self {
        self.at(c).wb = mask;
        self
    }
    fn bbr(&mut self, c: usize, mask: u64) -> &mut Self {
        self.at(c).bbr = mask;
        self
    }
    fn ready(&mut self, c: usize, mask: u64) -> &mut Self {
        self.at(c).ready = Some(mask);
        self
    }
    fn grid(&mut self, c: usize) -> &mut Self {
        self.at(c).grid = true;
        self
    }
    fn rel(&mut self, c: usize, rows: u64) -> &mut Self {
        self.at(c).rel = rows;
        self
    }
    fn rel_d4(&mut self, c: usize, rows: u64) -> &mut Self {
        self.at(c).rel_d4 = rows;
        self
    }
    fn expect(&mut self, c: usize, port: &'static str, v: u64) -> &mut Self {
        self.at(c).expect.push((port, vec![v]));
        self
    }
    fn expect_words(&mut self, c: usize, port: &'static str, v: Vec<u64>) -> &mut Self {
        self.at(c).expect.push((port, v));
        self
    }

    /// The vector: a reset cycle, then spec cycles 0 … `end` (spec cycle c = vector cycle c+1).
    fn build(&mut self, end: usize) -> SpecVector {
        self.at(end);
        let g = &self.cfg.geometry;
        let (n, w, s, p) = (g.subwarps(), g.group_size, g.subwarp_size, g.pc_bits);
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut pos = vec![0usize; n];
        let mut hold = 0usize;
        let mut cycles = vec![VectorCycle {
            inputs: vec![("reset", vec![1])],
            expect: vec![],
        }];
        let pc_of = |progs: &[Vec<(u64, InstKind)>], pos: &[usize], sw: usize| {
            progs[sw].get(pos[sw]).map_or(0, |x| x.0)
        };
        for c in 0..=end {
            let pl = self.plan[c].clone();
            let mut inputs: Vec<(&'static str, Vec<u64>)> =
                vec![("ready", vec![pl.ready.unwrap_or(all)])];
            for (port, v) in [
                ("launch", pl.launch),
                ("writeback", pl.wb),
                ("blockbar_release", pl.bbr),
            ] {
                if v != 0 {
                    inputs.push((port, vec![v]));
                }
            }
            if pl.grid {
                inputs.push(("grid_start", vec![1]));
            }
            let mut ex: Vec<(&'static str, Vec<u64>)> = vec![];
            let zero_issue = |ex: &mut Vec<(&'static str, Vec<u64>)>| {
                for port in [
                    "issue_valid",
                    "issue_sw",
                    "issue_fused",
                    "issue_group",
                    "issue_members",
                    "issue_size",
                    "issue_pc",
                    "issue_mask",
                ] {
                    ex.push((port, vec![0]));
                }
            };
            let busy;
            match pl.issue {
                Some((sw, fused)) => {
                    let (grp, m) = (sw / w, sw % w);
                    let step = self.progs[sw].get(pos[sw]).copied();
                    let Some((pc, kind)) = step else {
                        panic!(
                            "{}: cycle {c}: sub-warp {sw} has no instruction left",
                            self.name
                        )
                    };
                    let members = fused.unwrap_or(1 << m);
                    let kind_code = match fused {
                        Some(_) => {
                            assert_eq!(
                                kind, Long,
                                "{}: cycle {c}: fused issue of a non-sensitive instruction",
                                self.name
                            );
                            Long.code()
                        }
                        None => {
                            let is_bar = kind == Bar;
                            let planned = (c + self.cfg.bar_lat - 1 <= end)
                                && self.plan[c + self.cfg.bar_lat - 1]
                                    .act
                                    .is_some_and(|a| a.0 == sw);
                            assert_eq!(
                                is_bar, planned,
                                "{}: cycle {c}: barrier issue needs bar()",
                                self.name
                            );
                            kind.code()
                        }
                    };
                    let gpc: Vec<u64> = (0..w)
                        .map(|j| pc_of(&self.progs, &pos, grp * w + j))
                        .collect();
                    let gmask: Vec<u64> = (0..w).map(|j| self.masks[grp * w + j]).collect();
                    inputs.push(("inst_kind", vec![kind_code]));
                    inputs.push(("grp_pc", pack_fields(p, &gpc)));
                    inputs.push(("grp_mask", pack_fields(s, &gmask)));
                    let member_masks: Vec<u64> = (0..w)
                        .map(|j| if members >> j & 1 == 1 { gmask[j] } else { 0 })
                        .collect();
                    ex.push(("issue_valid", vec![1]));
                    ex.push(("issue_sw", vec![sw as u64]));
                    ex.push(("issue_fused", vec![fused.is_some() as u64]));
                    ex.push(("issue_group", vec![grp as u64]));
                    ex.push(("issue_members", vec![members]));
                    ex.push(("issue_size", vec![members.count_ones() as u64]));
                    ex.push(("issue_pc", vec![pc]));
                    ex.push(("issue_mask", pack_fields(s, &member_masks)));
                    busy = true;
                    for j in 0..w {
                        if members >> j & 1 == 1 {
                            pos[grp * w + j] += 1;
                        }
                    }
                    hold = match (fused, self.cfg.fused_slices) {
                        (Some(_), FusedSlices::Members) => members.count_ones() as usize - 1,
                        _ => 0,
                    };
                }
                None => {
                    zero_issue(&mut ex);
                    busy = hold > 0;
                    hold = hold.saturating_sub(1);
                }
            }
            ex.push(("slot_busy", vec![busy as u64]));
            match pl.act {
                Some((sw, hit, mis)) => {
                    ex.push(("act_valid", vec![1]));
                    ex.push(("act_sw", vec![sw as u64]));
                    ex.push(("act_hit", vec![hit as u64]));
                    ex.push(("act_mismatch", vec![mis as u64]));
                }
                None => {
                    for port in ["act_valid", "act_sw", "act_hit", "act_mismatch"] {
                        ex.push((port, vec![0]));
                    }
                }
            }
            ex.push(("rel", vec![pl.rel]));
            ex.push(("rel_d4", vec![pl.rel_d4]));
            if c < end {
                let nxt = &self.plan[c + 1].issue;
                ex.push(("nxt_valid", vec![nxt.is_some() as u64]));
                ex.push(("nxt_sw", vec![nxt.map_or(0, |x| x.0 as u64)]));
                ex.push(("nxt_fused", vec![nxt.is_some_and(|x| x.1.is_some()) as u64]));
            }
            ex.extend(pl.expect.iter().cloned());
            cycles.push(VectorCycle { inputs, expect: ex });
        }
        SpecVector {
            name: self.name.clone(),
            unit: dwr::NAME,
            sets: self.sets.clone(),
            cycles,
        }
    }
}

/// A program: `(pc, class)` per instruction.
fn prog(steps: &[(u64, InstKind)]) -> Vec<(u64, InstKind)> {
    steps.to_vec()
}

/// Programs of the §4 example (Alg. 5-5): A and C run 0–9, P at 10, the load at 11, 12–14,
/// exit at 15; B runs 0–6 and exits at 15. `with_p = false` is the same kernel without DWR.
fn bfs_progs(with_p: bool) -> Vec<Vec<(u64, InstKind)>> {
    let mut ac: Vec<(u64, InstKind)> = (0..10).map(|pc| (pc, Alu)).collect();
    if with_p {
        ac.push((10, Bar));
    }
    ac.extend([(11, Long), (12, Alu), (13, Alu), (14, Alu), (15, Exit)]);
    let mut b: Vec<(u64, InstKind)> = (0..7).map(|pc| (pc, Alu)).collect();
    b.push((15, Exit));
    vec![ac.clone(), b, ac, vec![]]
}

/// Cycles 1–28 of the §4 example: sub-warp (c−1) mod 3 issues at c ≤ 21, then A, B, C, A,
/// C, A, C.
fn bfs_prefix(sc: &mut Script) {
    sc.launch(0, 0b0111);
    for c in 1..=21 {
        sc.issue(c, (c - 1) % 3);
    }
    for (c, sw) in [
        (22, 0),
        (23, 1),
        (24, 2),
        (25, 0),
        (26, 2),
        (27, 0),
        (28, 2),
    ] {
        sc.issue(c, sw);
    }
}

/// §4 / S1: the BFS fragment with DWR, BAR_LAT = 1 (docs/dwr.md §8.1).
fn s1_bfs() -> SpecVector {
    let mut sc = Script::new(
        "dwr.md §4 S1 BFS fragment (Fig. 5-2): DWR done at 48, one fused load",
        &["threads=32", "group_size=4", "bar_lat=1"],
        bfs_progs(true),
    );
    sc.masks = vec![0xFF, 0xFF, 0xFF, 0];
    bfs_prefix(&mut sc);
    sc.bar(29, 0, false, false)
        .bar(30, 2, false, false)
        .rel(30, 1);
    sc.fused(31, 0, 0b0101).wb(40, 0b0101);
    for (k, c) in (41..=48).enumerate() {
        sc.issue(c, [0, 2][k % 2]);
    }
    // The §4.4 trace in the state digest (docs/dwr.md §8.1 table).
    let trace: &[(usize, u64, (u64, u64, u64), u64, u64)] = &[
        (0, 0x000, (0, 0, 0), 3, 0),
        (1, 0x049, (0, 0, 0), 3, 0),
        (2, 0x049, (0, 0, 0), 0, 0),
        (21, 0x049, (0, 0, 0), 1, 0),
        (22, 0x049, (0, 0, 0), 2, 0),
        (23, 0x049, (0, 0, 0), 0, 0),
        (24, 0x041, (0, 0, 0), 1, 0),
        (25, 0x041, (0, 0, 0), 2, 0),
        (26, 0x041, (0, 0, 0), 0, 0),
        (27, 0x041, (0, 0, 0), 2, 0),
        (28, 0x041, (0, 0, 0), 0, 0),
        (29, 0x041, (0, 0, 0), 2, 0),
        (30, 0x044, (1, 10, 0b0001), 0, 0),
        (31, 0x145, (0, 0, 0), 2, 0),
        (32, 0x082, (0, 0, 0), 2, 1),
        (40, 0x082, (0, 0, 0), 2, 0),
        (41, 0x041, (0, 0, 0), 2, 0),
        (42, 0x041, (0, 0, 0), 0, 0),
        (47, 0x041, (0, 0, 0), 2, 0),
        (48, 0x040, (0, 0, 0), 0, 0),
        (49, 0x000, (0, 0, 0), 2, 0),
    ];
    for &(c, state, (v, pc, lock), ptr, hold) in trace {
        sc.expect(c, "dbg_state", state)
            .expect(c, "dbg_pst_valid", v)
            .expect(c, "dbg_pst_pc", pc)
            .expect(c, "dbg_pst_lock", lock)
            .expect(c, "dbg_ptr", ptr)
            .expect(c, "dbg_hold", hold);
    }
    for c in 3..=20 {
        sc.expect(c, "dbg_state", 0x049)
            .expect(c, "dbg_ptr", ((c - 2) % 3) as u64);
    }
    for c in 33..=39 {
        sc.expect(c, "dbg_state", 0x082).expect(c, "dbg_hold", 0);
    }
    for c in 0..=49 {
        sc.expect(c, "dbg_ilt_valid", 0);
    }
    sc.build(49)
}

/// S1, second part: the same kernel without DWR (no P, loads LONG, one memory pipe): done at 51.
fn s1_bfs_no_dwr() -> SpecVector {
    let mut sc = Script::new(
        "dwr.md §4 S1 BFS fragment without DWR: done at 51, idle 31-38 and 43-47",
        &["threads=32", "group_size=4", "bar_lat=1"],
        bfs_progs(false),
    );
    sc.masks = vec![0xFF, 0xFF, 0xFF, 0];
    bfs_prefix(&mut sc);
    sc.issue(29, 0).issue(30, 2).wb(38, 0b0001).wb(47, 0b0100);
    for c in 39..=42 {
        sc.issue(c, 0);
    }
    for c in 48..=51 {
        sc.issue(c, 2);
    }
    sc.build(52)
}

/// S13: the S1 program with BAR_LAT = 24: the fused load at 54, done at 71.
fn s13_bar_lat_24() -> SpecVector {
    let mut sc = Script::new(
        "dwr.md S13 BFS fragment with BAR_LAT=24: fused load at 54, done at 71",
        &["threads=32", "group_size=4", "bar_lat=24"],
        bfs_progs(true),
    );
    sc.masks = vec![0xFF, 0xFF, 0xFF, 0];
    bfs_prefix(&mut sc);
    sc.bar(29, 0, false, false)
        .bar(30, 2, false, false)
        .rel(53, 1);
    sc.fused(54, 0, 0b0101).wb(63, 0b0101);
    for (k, c) in (64..=71).enumerate() {
        sc.issue(c, [0, 2][k % 2]);
    }
    // The barriers travel through the 23 pipeline stages.
    sc.expect(29, "dbg_pipe_valid", 0)
        .expect(30, "dbg_pipe_valid", 0b1)
        .expect(31, "dbg_pipe_valid", 0b11)
        .expect(52, "dbg_pipe_valid", 0b11 << 21)
        .expect(53, "dbg_pipe_valid", 1 << 22)
        .expect(54, "dbg_pipe_valid", 0);
    let mut sws = vec![0u64; 23];
    sws[22] = 2;
    let mut pcs = vec![0u64; 23];
    pcs[22] = 10;
    sc.expect_words(53, "dbg_pipe_sw", pack_fields(2, &sws))
        .expect_words(53, "dbg_pipe_pc", pack_fields(32, &pcs))
        .expect(53, "dbg_state", 0x084)
        .expect(53, "dbg_pst_lock", 0b0001);
    sc.build(72)
}

/// §4.7 Alg. 5-2(a) / S5, order "sw0 at P2 first" and the reverse order.
fn s5_alg52a(reverse: bool) -> SpecVector {
    let progs = vec![
        prog(&[
            (0, Alu),
            (1, Bar),
            (2, Long),
            (3, Bar),
            (4, Long),
            (5, Exit),
        ]),
        prog(&[(0, Alu), (3, Bar), (4, Long), (5, Exit)]),
    ];
    let sets = ["threads=16", "group_size=2", "bar_lat=1"];
    if !reverse {
        let mut sc = Script::new(
            "dwr.md S5 Alg. 5-2(a) sw0 at P2 first: ILT = {P4}, no deadlock",
            &sets,
            progs,
        );
        sc.launch(0, 0b11).issue(1, 0).issue(2, 1);
        sc.bar(3, 0, false, false).bar(4, 1, false, true).rel(4, 1);
        sc.fused(5, 0, 0b01)
            .fused(6, 1, 0b10)
            .wb(8, 0b01)
            .wb(9, 0b10);
        sc.bar(9, 0, true, false)
            .issue(10, 1)
            .issue(11, 0)
            .wb(14, 0b01)
            .issue(15, 0);
        sc.expect(4, "dbg_pst_valid", 1)
            .expect(4, "dbg_pst_pc", 1)
            .expect(4, "dbg_pst_lock", 0b01);
        for c in [5, 9, 10, 16] {
            sc.expect(c, "dbg_pst_valid", 0)
                .expect(c, "dbg_ilt_valid", 1 << 24)
                .expect(c, "dbg_ilt_ptr", 1 << 9);
        }
        sc.build(16)
    } else {
        let mut sc = Script::new(
            "dwr.md S5 Alg. 5-2(a) reverse order: ILT = {P2}, no deadlock",
            &sets,
            progs,
        );
        sc.launch(0, 0b11).ready(0, 0b10).ready(1, 0b10).issue(1, 1);
        sc.bar(2, 1, false, false)
            .issue(3, 0)
            .bar(4, 0, false, true)
            .rel(4, 1);
        sc.fused(5, 1, 0b10)
            .fused(6, 0, 0b01)
            .wb(8, 0b10)
            .wb(9, 0b01)
            .issue(9, 1);
        sc.bar(10, 0, false, false)
            .rel(10, 1)
            .fused(11, 0, 0b01)
            .wb(14, 0b01)
            .issue(15, 0);
        sc.expect(3, "dbg_pst_valid", 1)
            .expect(3, "dbg_pst_pc", 3)
            .expect(3, "dbg_pst_lock", 0b10);
        for c in [5, 10, 16] {
            sc.expect(c, "dbg_ilt_valid", 1 << 8)
                .expect(c, "dbg_ilt_ptr", 1 << 3);
        }
        sc.expect(11, "dbg_pst_valid", 0);
        sc.build(16)
    }
}

/// §4.7 Alg. 5-2(b) / S6: a partner blocked in __syncthreads releases by rule D4.
fn s6_alg52b(d4_learn: bool) -> SpecVector {
    let progs = vec![
        prog(&[(0, Alu), (1, Bar), (2, Long), (3, BarSync), (4, Exit)]),
        prog(&[(0, Alu), (3, BarSync), (4, Exit)]),
    ];
    let name = if d4_learn {
        "dwr.md S6 Alg. 5-2(b): D4 release, ILT = {P2} with d4_learn"
    } else {
        "dwr.md S6 Alg. 5-2(b): D4 release, ILT empty without d4_learn"
    };
    let learn = format!("d4_learn={d4_learn}");
    let mut sc = Script::new(
        name,
        &["threads=16", "group_size=2", "bar_lat=1", &learn],
        progs,
    );
    sc.launch(0, 0b11)
        .issue(1, 0)
        .issue(2, 1)
        .bar(3, 0, false, false);
    sc.issue(4, 1)
        .rel(4, 1)
        .rel_d4(4, 1)
        .fused(5, 0, 0b01)
        .wb(8, 0b01)
        .issue(9, 0);
    sc.bbr(10, 0b11).issue(11, 1).issue(12, 0);
    sc.expect(5, "dbg_state", 0b011_101)
        .expect(10, "dbg_state", 0b011_011)
        .expect(11, "dbg_state", 0b001_001);
    let ilt = if d4_learn { 1 << 8 } else { 0 };
    for c in [4, 5, 13] {
        sc.expect(c, "dbg_ilt_valid", if c == 4 { 0 } else { ilt });
    }
    sc.build(13)
}

/// §4.7 Alg. 5-3 / S7: both sub-warps block in __syncthreads at different PCs; the PST
/// stays out of it. A block release of a sub-warp that is not yet blocked is ignored.
fn s7_alg53() -> SpecVector {
    let progs = vec![
        prog(&[(0, Alu), (1, BarSync), (3, Exit)]),
        prog(&[(0, Alu), (2, BarSync), (3, Exit)]),
    ];
    let mut sc = Script::new(
        "dwr.md S7 Alg. 5-3: divergent __syncthreads, DWR unaffected",
        &["threads=16", "group_size=2", "bar_lat=1"],
        progs,
    );
    sc.launch(0, 0b11)
        .issue(1, 0)
        .issue(2, 1)
        .issue(3, 0)
        .bbr(3, 0b01)
        .issue(4, 1);
    sc.bbr(5, 0b11).issue(6, 0).issue(7, 1);
    sc.expect(4, "dbg_state", 0b001_011)
        .expect(5, "dbg_state", 0b011_011)
        .expect(6, "dbg_state", 0b001_001);
    for c in 0..=8 {
        sc.expect(c, "dbg_pst_valid", 0)
            .expect(c, "dbg_ilt_valid", 0);
    }
    sc.build(8)
}

/// S2: a full group of 8 meets at one barrier: one bundle of 8, 8 slices.
fn s2_full_group() -> SpecVector {
    let p = prog(&[(0, Bar), (1, Long), (2, Exit)]);
    let mut sc = Script::new(
        "dwr.md S2 full group W=8: lock 0x01..0x7F then 0x00, one bundle of 8",
        &["threads=64", "group_size=8", "bar_lat=1"],
        vec![p; 8],
    );
    sc.launch(0, 0xFF);
    for c in 1..=8 {
        sc.bar(c, c - 1, false, false);
    }
    sc.rel(8, 1).fused(9, 0, 0xFF).wb(18, 0xFF);
    for k in 0..8 {
        sc.issue(19 + k, k);
    }
    for c in 2..=8 {
        sc.expect(c, "dbg_pst_lock", (1 << (c - 1)) - 1)
            .expect(c, "dbg_pst_valid", 1);
    }
    sc.expect(9, "dbg_pst_lock", 0)
        .expect(9, "dbg_pst_valid", 0);
    for (k, c) in (10..=17).enumerate() {
        sc.expect(c, "dbg_hold", (7 - k) as u64);
    }
    sc.expect(10, "dbg_state", 0x49_2492)
        .expect(19, "dbg_state", 0x24_9249);
    sc.build(27)
}

/// S3: a partial group (a 100-thread block): group 1 releases with 5 valid sub-warps, and
/// lanes 4–7 of sub-warp 12 stay masked.
fn s3_partial_group() -> SpecVector {
    let p = prog(&[(0, Bar), (1, Long), (2, Exit)]);
    let mut progs = vec![p; 13];
    progs.resize(16, vec![]);
    let mut sc = Script::new(
        "dwr.md S3 partial group (MU, 100 threads): release with 5 valid",
        &["threads=128", "group_size=8", "bar_lat=1"],
        progs,
    );
    sc.masks[12] = 0x0F;
    sc.launch(0, 0x1FFF);
    for c in 1..=13 {
        sc.bar(c, c - 1, false, false);
    }
    sc.rel(8, 0b01)
        .rel(13, 0b10)
        .fused(14, 0, 0xFF)
        .fused(22, 8, 0x1F);
    sc.wb(30, 0xFF).wb(31, 0x1F00);
    for k in 0..13 {
        sc.issue(31 + k, k);
    }
    sc.expect(13, "dbg_pst_lock", 0xF00)
        .expect(14, "dbg_pst_valid", 0);
    sc.build(44)
}

/// S4: an exit alone releases the waiting partners; they issue the next cycle.
fn s4_exit_release() -> SpecVector {
    let p = prog(&[(0, Bar), (1, Long), (2, Exit)]);
    let mut progs = vec![p; 7];
    progs.push(prog(&[(0, Alu), (1, Exit)]));
    let mut sc = Script::new(
        "dwr.md S4 exit-triggered release: bundle of 7 the next cycle",
        &["threads=64", "group_size=8", "bar_lat=1"],
        progs,
    );
    sc.launch(0, 0xFF);
    for c in 1..=7 {
        sc.bar(c, c - 1, false, false);
    }
    sc.issue(8, 7)
        .issue(9, 7)
        .rel(9, 1)
        .fused(10, 0, 0x7F)
        .wb(20, 0x7F);
    for k in 0..7 {
        sc.issue(21 + k, k);
    }
    for c in [9, 10, 28] {
        sc.expect(c, "dbg_ilt_valid", 0);
    }
    sc.build(28)
}

/// S8: PCs in the ILT are bypassed: no PST change, each load alone.
fn s8_bypass() -> SpecVector {
    let progs = vec![
        prog(&[(5, Bar), (6, Long), (9, Bar), (10, Long), (11, Exit)]),
        prog(&[(9, Bar), (10, Long), (9, Bar), (10, Long), (11, Exit)]),
    ];
    let mut sc = Script::new(
        "dwr.md S8 ILT bypass: P@9 learned, then passed without the PST",
        &["threads=16", "group_size=2", "bar_lat=1"],
        progs,
    );
    sc.launch(0, 0b11)
        .bar(1, 0, false, false)
        .bar(2, 1, false, true)
        .rel(2, 1);
    sc.fused(3, 0, 0b01).fused(4, 1, 0b10).wb(6, 0b11);
    sc.bar(7, 0, true, false)
        .bar(8, 1, true, false)
        .issue(9, 0)
        .issue(10, 1);
    sc.wb(12, 0b11).issue(13, 0).issue(14, 1);
    for c in 3..=11 {
        sc.expect(c, "dbg_pst_valid", 0)
            .expect(c, "dbg_pst_lock", 0);
    }
    sc.expect(8, "dbg_state", 0b001_001)
        .expect(9, "dbg_state", 0b001_001);
    sc.expect(3, "dbg_ilt_valid", 1 << 8)
        .expect(15, "dbg_ilt_valid", 1 << 8);
    sc.build(15)
}

/// S9: nine useless barrier PCs of one set: one FIFO eviction; the evicted PC re-synchronizes
/// and is re-learned.
fn s9_ilt_capacity() -> SpecVector {
    let mut p0 = vec![];
    for _ in 0..10 {
        p0.extend([(1, Bar), (2, Long)]);
    }
    p0.push((3, Exit));
    let mut p1 = vec![];
    for i in 1..=9u64 {
        p1.extend([(4 * i, Bar), (4 * i + 1, Long)]);
    }
    p1.extend([(4, Bar), (5, Long), (50, Exit)]);
    let mut sc = Script::new(
        "dwr.md S9 ILT capacity: 9 PCs in one set, FIFO eviction, re-learning",
        &["threads=16", "group_size=2", "bar_lat=1"],
        vec![p0, p1],
    );
    sc.launch(0, 0b11);
    // Tags of set 0 after k inserts of PCs 4, 8, …, 36, 4 (tag = PC / 4).
    let img = |k: usize| {
        let mut ways = [0u64; 8];
        let order: Vec<u64> = (1..=9).chain([1]).collect();
        for (i, &t) in order.iter().take(k).enumerate() {
            ways[i % 8] = t;
        }
        let mut tags = vec![0u64; 32];
        tags[..8].copy_from_slice(&ways);
        pack_fields(30, &tags)
    };
    for i in 1..=10usize {
        let c = 5 * i - 4;
        sc.bar(c, 0, false, false)
            .bar(c + 1, 1, false, true)
            .rel(c + 1, 1);
        sc.fused(c + 2, 0, 0b01)
            .fused(c + 3, 1, 0b10)
            .wb(c + 4, 0b11);
        sc.expect(c + 2, "dbg_ilt_valid", (1u64 << i.min(8)) - 1)
            .expect(c + 2, "dbg_ilt_ptr", (i % 8) as u64)
            .expect_words(c + 2, "dbg_ilt_tag", img(i));
    }
    sc.issue(51, 0).issue(52, 1);
    sc.build(53)
}

/// S10: a lone valid sub-warp releases after BAR_LAT; a writeback during its barrier is
/// ignored.
fn s10_lone() -> SpecVector {
    let progs = vec![prog(&[(5, Bar), (6, Long), (7, Exit)])];
    let mut sc = Script::new(
        "dwr.md S10 lone sub-warp: released after BAR_LAT=24, 1-member bundle",
        &["threads=64", "group_size=8", "bar_lat=24"],
        progs,
    );
    sc.launch(0, 0b1)
        .bar(1, 0, false, false)
        .rel(24, 1)
        .fused(25, 0, 0b1);
    sc.wb(10, 0b1).wb(30, 0b1).issue(31, 0);
    sc.expect(11, "dbg_state", 2)
        .expect(2, "dbg_pipe_valid", 1)
        .expect(24, "dbg_pipe_valid", 1 << 22)
        .expect(25, "dbg_pipe_valid", 0)
        .expect(25, "dbg_state", 5);
    sc.build(32)
}

/// S11: three PCs in one episode: bundles {row-PC members}, {x}, {y}.
fn s11_three_pcs(one_slice: bool) -> SpecVector {
    let progs = vec![
        prog(&[(4, Bar), (5, Long), (6, Exit)]),
        prog(&[(4, Bar), (5, Long), (6, Exit)]),
        prog(&[(8, Bar), (9, Long), (10, Exit)]),
        prog(&[(12, Bar), (13, Long), (14, Exit)]),
        prog(&[(8, Bar), (9, Long), (10, Exit)]),
    ];
    let (name, sets): (&str, &[&str]) = if one_slice {
        (
            "dwr.md S11 three PCs in one episode, fused_slices=one",
            &[
                "threads=64",
                "group_size=8",
                "bar_lat=1",
                "fused_slices=one",
            ],
        )
    } else {
        (
            "dwr.md S11 three PCs in one episode: bundles {0,1}, {2}, {3}",
            &["threads=64", "group_size=8", "bar_lat=1"],
        )
    };
    let mut sc = Script::new(name, sets, progs);
    sc.launch(0, 0x1F)
        .bar(1, 0, false, false)
        .bar(2, 1, false, false);
    sc.bar(3, 2, false, true)
        .bar(4, 3, false, true)
        .bar(5, 4, true, false);
    sc.issue(6, 4)
        .wb(9, 0b10000)
        .issue(10, 4)
        .rel(10, 1)
        .fused(11, 0, 0b11);
    let t = if one_slice {
        sc.fused(12, 2, 0b100).fused(13, 3, 0b1000);
        15
    } else {
        sc.fused(13, 2, 0b100).fused(14, 3, 0b1000);
        16
    };
    sc.wb(t, 0b1111);
    for k in 0..4 {
        sc.issue(t + 1 + k, k);
    }
    sc.expect(5, "dbg_ilt_valid", 0b11)
        .expect(5, "dbg_ilt_ptr", 2)
        .expect(5, "dbg_pst_pc", 4);
    sc.expect_words(5, "dbg_ilt_tag", pack_fields(30, &[2, 3]));
    sc.build(t + 5)
}

/// S12: grid launch flushes the ILT (also discarding an insert of the same cycle); with
/// ilt_flush=false the entry persists and the next launch bypasses.
fn s12_relaunch(flush: bool) -> SpecVector {
    let progs = vec![
        prog(&[(5, Bar), (6, Long), (5, Bar), (6, Long), (7, Exit)]),
        prog(&[(9, Bar), (10, Long), (9, Bar), (10, Long), (11, Exit)]),
    ];
    if flush {
        let mut sc = Script::new(
            "dwr.md S12 grid relaunch flushes the ILT",
            &["threads=16", "group_size=2", "bar_lat=1"],
            progs,
        );
        sc.launch(0, 0b11)
            .bar(1, 0, false, false)
            .bar(2, 1, false, true)
            .rel(2, 1);
        sc.fused(3, 0, 0b01).fused(4, 1, 0b10).wb(5, 0b11).grid(5);
        sc.bar(6, 0, false, false)
            .bar(7, 1, false, true)
            .rel(7, 1)
            .grid(7);
        sc.fused(8, 0, 0b01)
            .fused(9, 1, 0b10)
            .wb(10, 0b11)
            .issue(11, 0)
            .issue(12, 1);
        for (c, v) in [(3, 1u64 << 8), (5, 1 << 8), (6, 0), (7, 0), (8, 0), (13, 0)] {
            sc.expect(c, "dbg_ilt_valid", v).expect(
                c,
                "dbg_ilt_ptr",
                if v == 0 { 0 } else { 1 << 3 },
            );
        }
        sc.build(13)
    } else {
        let mut sc = Script::new(
            "dwr.md S12 ILT persists across launches with ilt_flush=false",
            &["threads=16", "group_size=2", "bar_lat=1", "ilt_flush=false"],
            progs,
        );
        sc.launch(0, 0b11)
            .bar(1, 0, false, false)
            .bar(2, 1, false, true)
            .rel(2, 1);
        sc.fused(3, 0, 0b01).fused(4, 1, 0b10).wb(5, 0b11).grid(5);
        sc.bar(6, 0, false, false)
            .bar(7, 1, true, false)
            .issue(8, 1)
            .wb(10, 0b10);
        sc.issue(11, 1)
            .rel(11, 1)
            .fused(12, 0, 0b01)
            .wb(14, 0b01)
            .issue(15, 0);
        for c in [3, 6, 16] {
            sc.expect(c, "dbg_ilt_valid", 1 << 8);
        }
        sc.expect(8, "dbg_pst_valid", 1)
            .expect(8, "dbg_pst_pc", 5)
            .expect(8, "dbg_pst_lock", 0b01);
        sc.build(16)
    }
}

/// S14: non-sensitive long instructions (ld.shared) of one group at one PC never fuse.
fn s14_no_fusion() -> SpecVector {
    let p = prog(&[(0, Long), (1, Exit)]);
    let mut sc = Script::new(
        "dwr.md S14 non-sensitive memory never fuses",
        &["threads=32", "group_size=4", "bar_lat=1"],
        vec![p; 4],
    );
    sc.launch(0, 0xF);
    for c in 1..=4 {
        sc.issue(c, c - 1);
    }
    sc.wb(6, 0xF);
    for c in 7..=10 {
        sc.issue(c, c - 7);
    }
    sc.build(11)
}

/// S15: a fused bundle's members wake together on one writeback.
fn s15_wake_together() -> SpecVector {
    let p = prog(&[(0, Bar), (1, Long), (2, Exit)]);
    let mut sc = Script::new(
        "dwr.md S15 fused members complete together",
        &["threads=32", "group_size=4", "bar_lat=1"],
        vec![p; 4],
    );
    sc.launch(0, 0xF);
    for c in 1..=4 {
        sc.bar(c, c - 1, false, false);
    }
    sc.rel(4, 1).fused(5, 0, 0xF).wb(12, 0xF);
    for c in 13..=16 {
        sc.issue(c, c - 13);
    }
    sc.expect(12, "dbg_state", 0x492)
        .expect(13, "dbg_state", 0x249);
    sc.build(17)
}

/// A5: two sub-warps locked at the same non-row PC (its ILT entry flushed between their
/// arrivals): `pc` fuses them, `matched` does not (docs/dwr.md §9 item 7).
fn a5_match_modes(matched: bool) -> SpecVector {
    let progs = vec![
        prog(&[(4, Bar), (5, Long), (6, Exit)]),
        prog(&[(4, Bar), (5, Long), (6, Exit)]),
        prog(&[(8, Bar), (9, Long), (10, Exit)]),
        prog(&[(0, Alu), (8, Bar), (9, Long), (10, Exit)]),
    ];
    let (name, mode) = if matched {
        (
            "dwr.md A5 sco_match=matched: unmatched partners at one PC issue alone",
            "sco_match=matched",
        )
    } else {
        (
            "dwr.md A5 sco_match=pc: partners at one non-row PC fuse",
            "sco_match=pc",
        )
    };
    let mut sc = Script::new(
        name,
        &["threads=32", "group_size=4", "bar_lat=1", mode],
        progs,
    );
    sc.launch(0, 0xF)
        .bar(1, 0, false, false)
        .bar(2, 1, false, false)
        .bar(3, 2, false, true);
    sc.issue(4, 3)
        .grid(4)
        .bar(5, 3, false, true)
        .rel(5, 1)
        .fused(6, 0, 0b0011);
    if matched {
        sc.fused(8, 2, 0b0100).fused(9, 3, 0b1000);
    } else {
        sc.fused(8, 2, 0b1100);
    }
    sc.wb(12, 0xF);
    for c in 13..=16 {
        sc.issue(c, c - 13);
    }
    sc.expect(4, "dbg_ilt_valid", 1)
        .expect(5, "dbg_ilt_valid", 0)
        .expect(6, "dbg_ilt_valid", 1);
    let m = |v: u64| if matched { v } else { 0 };
    sc.expect(2, "dbg_matched", m(0b0001))
        .expect(3, "dbg_matched", m(0b0011))
        .expect(4, "dbg_matched", m(0b0011))
        .expect(6, "dbg_matched", m(0b0011))
        .expect(7, "dbg_matched", 0)
        .expect(8, "dbg_matched", 0);
    sc.build(17)
}

/// Three ILT inserts in one cycle (BAR_LAT = 2): a mismatching barrier acts on row 0 and
/// completes it by D4, while a BAR_SYNC issued in the same cycle completes row 1 by D4. The
/// inserts go in order: the mismatch PC, then the D4 rows' PCs ascending.
fn three_inserts() -> SpecVector {
    let progs = vec![
        prog(&[(8, Bar), (9, Long), (10, Exit)]),
        prog(&[(0, Alu), (12, Bar), (13, Long), (14, Exit)]),
        prog(&[(0, BarSync), (1, Exit)]),
        vec![],
        prog(&[(16, Bar), (17, Long), (18, Exit)]),
        prog(&[(0, Alu), (1, BarSync), (2, Exit)]),
    ];
    let mut sc = Script::new(
        "dwr.md §5 three ILT inserts in one cycle: mismatch, then D4 rows ascending",
        &["threads=64", "group_size=4", "bar_lat=2"],
        progs,
    );
    sc.launch(0, 0x37)
        .bar(1, 0, false, false)
        .issue(2, 1)
        .issue(3, 2)
        .bar(4, 4, false, false);
    sc.issue(5, 5)
        .bar(6, 1, false, true)
        .issue(7, 5)
        .rel(7, 0b11)
        .rel_d4(7, 0b11);
    sc.fused(8, 0, 0b0001)
        .fused(9, 1, 0b0010)
        .fused(10, 4, 0b0001);
    sc.bbr(11, 0x24).wb(11, 0x13);
    for (c, sw) in [(12, 5), (13, 0), (14, 1), (15, 2), (16, 4)] {
        sc.issue(c, sw);
    }
    sc.expect(7, "dbg_ilt_valid", 0)
        .expect(7, "dbg_pst_valid", 0b11);
    sc.expect(8, "dbg_ilt_valid", 0b111)
        .expect(8, "dbg_ilt_ptr", 3)
        .expect(8, "dbg_pst_valid", 0);
    sc.expect_words(8, "dbg_ilt_tag", pack_fields(30, &[3, 2, 4]));
    sc.expect(8, "dbg_state", 0o0035_0355);
    sc.build(17)
}

/// A reset in the middle of an episode returns everything to the reset state (BAR_LAT = 2).
fn reset_mid_episode() -> SpecVector {
    let sets = ["threads=16", "group_size=2", "bar_lat=2"];
    Vb::new(
        "dwr reset mid-episode: PST, pipeline, pick and pointer return to reset",
        dwr::NAME,
        &sets,
    )
    .reset()
    .cycle(
        &[("launch", 0b11), ("ready", 0b11)],
        &[("nxt_valid", 1), ("nxt_sw", 0), ("dbg_ptr", 1)],
    )
    .cycle_words(
        &[
            ("ready", vec![0b11]),
            ("inst_kind", vec![2]),
            ("grp_pc", pack_fields(32, &[1, 5])),
            ("grp_mask", vec![0xFFFF]),
        ],
        &[
            ("issue_valid", vec![1]),
            ("issue_sw", vec![0]),
            ("issue_pc", vec![1]),
            ("act_valid", vec![0]),
            ("nxt_sw", vec![1]),
        ],
    )
    .cycle_words(
        &[
            ("ready", vec![0b11]),
            ("inst_kind", vec![0]),
            ("grp_pc", pack_fields(32, &[2, 5])),
            ("grp_mask", vec![0xFFFF]),
        ],
        &[
            ("dbg_pipe_valid", vec![1]),
            ("dbg_pipe_sw", vec![0]),
            ("dbg_pipe_pc", vec![1]),
            ("issue_sw", vec![1]),
            ("act_valid", vec![1]),
            ("act_sw", vec![0]),
            ("rel", vec![0]),
            ("nxt_valid", vec![1]),
            ("nxt_sw", vec![1]),
        ],
    )
    .cycle(&[("reset", 1)], &[])
    .cycle(
        &[("launch", 0b10), ("ready", 0b11)],
        &[
            ("dbg_state", 0),
            ("dbg_pst_valid", 0),
            ("dbg_pst_lock", 0),
            ("dbg_pipe_valid", 0),
            ("dbg_ptr", 1),
            ("dbg_hold", 0),
            ("issue_valid", 0),
            ("slot_busy", 0),
            ("nxt_valid", 1),
            ("nxt_sw", 1),
        ],
    )
    .cycle_words(
        &[
            ("inst_kind", vec![4]),
            ("grp_pc", pack_fields(32, &[0, 6])),
            ("grp_mask", vec![0xFFFF]),
        ],
        &[
            ("issue_valid", vec![1]),
            ("issue_sw", vec![1]),
            ("issue_pc", vec![6]),
            ("issue_mask", vec![0xFF00]),
        ],
    )
    .cycle(&[], &[("dbg_state", 0), ("issue_valid", 0)])
    .done()
}

/// The directed vectors of `dwr`: §4 (S1, its DWR-off twin, S13), §4.7 (S5–S7), the §8.2
/// scenarios S2–S4 and S8–S15, the A5 modes and a mid-episode reset.
pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        s1_bfs(),
        s1_bfs_no_dwr(),
        s13_bar_lat_24(),
        s5_alg52a(false),
        s5_alg52a(true),
        s6_alg52b(true),
        s6_alg52b(false),
        s7_alg53(),
        s2_full_group(),
        s3_partial_group(),
        s4_exit_release(),
        s8_bypass(),
        s9_ilt_capacity(),
        s10_lone(),
        s11_three_pcs(false),
        s11_three_pcs(true),
        s12_relaunch(true),
        s12_relaunch(false),
        s14_no_fusion(),
        s15_wake_together(),
        a5_match_modes(false),
        a5_match_modes(true),
        three_inserts(),
        reset_mid_episode(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_sets_across_words() {
        let mut b = Bits::ZERO;
        for i in [0, 63, 64, 130, 255] {
            b.set(i);
        }
        assert_eq!(b.count(), 5);
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![0, 63, 64, 130, 255]);
        assert_eq!(
            (b.nth(0), b.nth(2), b.nth(4), b.nth(5)),
            (Some(0), Some(64), Some(255), None)
        );
        assert_eq!(
            (b.first_from(1), b.first_from(65), b.first_from(256)),
            (Some(63), Some(130), None)
        );
        assert_eq!(Bits::low(70).count(), 70);
        assert_eq!(
            Bits::range(60, 70).iter().collect::<Vec<_>>(),
            (60..70).collect::<Vec<_>>()
        );
        assert_eq!(b.bits(62, 4), 0b0110);
        assert!(b.not_in(b).is_zero() && (b ^ b).is_zero() && (b | Bits::ZERO) == b);
    }

    #[test]
    fn group_reductions_for_every_group_size() {
        for w in [2usize, 4, 8] {
            // Group 1 full, group 2 one bit, group 5 (second word for W=8 at bit 40) full.
            let mut x = Bits::ZERO;
            for k in 0..w {
                x.set(w + k);
                x.set(5 * w + k);
            }
            x.set(2 * w + 1);
            x.set(64 + w); // a group in the second word
            let all = group_all(x, w);
            assert_eq!(all.iter().collect::<Vec<_>>(), vec![w, 5 * w], "W = {w}");
            let any = group_any(x, w);
            assert_eq!(
                any.iter().collect::<Vec<_>>(),
                vec![w, 2 * w, 5 * w, 64 + w],
                "W = {w}"
            );
            let spread = spread_groups(all, w);
            assert_eq!(spread.count(), 2 * w);
            assert_eq!(spread & x, spread);
        }
    }

    #[test]
    fn fields_straddle_words_and_shift_up() {
        let mut img = vec![0u64; 3];
        img.set_field(2, 30, 0x3FFF_FFFF);
        assert_eq!(img.get_field(2, 30), 0x3FFF_FFFF);
        assert_eq!(img.get_field(1, 30), 0);
        assert_eq!(pack_fields(32, &[1, 2, 3]), vec![1 | 2 << 32, 3]);
        // Three 20-bit stages: stage fields move up by one, the top one falls off.
        let mut pipe = pack_fields(20, &[5, 6, 7]);
        shift_fields_up(&mut pipe, 20, 3);
        assert_eq!(pipe, pack_fields(20, &[0, 5, 6]));
    }
}
