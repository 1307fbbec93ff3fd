//! The `dwr` composite cycle model.

use super::*;

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
    pub(super) fn reset(n: usize) -> States {
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

    pub(super) fn set_mut(&mut self, st: State) -> &mut Bits {
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
    pub(super) fn go(&mut self, s: usize, from: State, to: State) {
        self.set_mut(from).clear(s);
        self.set_mut(to).set(s);
    }

    /// Move the sub-warps of `mask` (all in `from`) to `to`.
    pub(super) fn go_all(&mut self, mask: Bits, from: State, to: State) {
        let f = self.set_mut(from);
        *f = f.not_in(mask);
        let t = self.set_mut(to);
        *t = *t | mask;
    }

    /// Bit `k` of each sub-warp's state code (§2.6 encoding), as three sets.
    pub(super) fn planes(&self) -> [Bits; 3] {
        [
            self.ready | self.blockbar | self.cr,
            self.stalled | self.blockbar,
            self.waitp | self.cr,
        ]
    }

    pub(super) fn sets(&self) -> [Bits; 6] {
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
pub(super) struct InPorts {
    pub(super) reset: usize,
    pub(super) grid_start: usize,
    pub(super) launch: usize,
    pub(super) ready: usize,
    pub(super) inst_kind: usize,
    pub(super) grp_pc: usize,
    pub(super) grp_mask: usize,
    pub(super) writeback: usize,
    pub(super) blockbar_release: usize,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct OutPorts {
    pub(super) issue_valid: usize,
    pub(super) issue_sw: usize,
    pub(super) issue_fused: usize,
    pub(super) issue_group: usize,
    pub(super) issue_members: usize,
    pub(super) issue_size: usize,
    pub(super) issue_pc: usize,
    pub(super) issue_mask: usize,
    pub(super) slot_busy: usize,
    pub(super) act_valid: usize,
    pub(super) act_sw: usize,
    pub(super) act_hit: usize,
    pub(super) act_mismatch: usize,
    pub(super) rel: usize,
    pub(super) rel_d4: usize,
    pub(super) nxt_valid: usize,
    pub(super) nxt_sw: usize,
    pub(super) nxt_fused: usize,
    pub(super) dbg_state: usize,
    pub(super) dbg_matched: usize,
    pub(super) dbg_ptr: usize,
    pub(super) dbg_hold: usize,
    pub(super) dbg_pipe_valid: usize,
    pub(super) dbg_pipe_sw: usize,
    pub(super) dbg_pipe_pc: usize,
    pub(super) dbg_pst_valid: usize,
    pub(super) dbg_pst_pc: usize,
    pub(super) dbg_pst_lock: usize,
    pub(super) dbg_ilt_valid: usize,
    pub(super) dbg_ilt_tag: usize,
    pub(super) dbg_ilt_ptr: usize,
}

impl InPorts {
    pub(super) fn new(l: &Layout) -> InPorts {
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
    pub(super) fn new(l: &Layout) -> OutPorts {
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
pub(super) struct Stage {
    pub(super) valid: bool,
    pub(super) sw: usize,
    pub(super) pc: u64,
}

/// The bundle issued in a cycle.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Issued {
    pub(super) sel: usize,
    pub(super) fused: bool,
    pub(super) members: u64,
    pub(super) kind: Option<InstKind>,
}

/// The barrier action of a cycle.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Action {
    pub(super) sw: usize,
    pub(super) pc: u64,
    pub(super) hit: bool,
    pub(super) mismatch: bool,
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
pub(super) struct LastCycle {
    pub(super) stepped: bool,
    pub(super) reset: bool,
    pub(super) s: States,
    pub(super) s_lock: Bits,
    pub(super) s_valid_rows: Bits,
    pub(super) s_row_pc: Vec<u64>,
    pub(super) s_matched: Bits,
    /// The ILT sets the insert requests address, as they were before the inserts.
    pub(super) ilt_before: [Option<(usize, [Option<u64>; 16])>; 3],
    /// The acting barrier's PC is in the ILT at the start of the cycle (a plain scan).
    pub(super) ilt_present: bool,
    pub(super) s_hold: usize,
    pub(super) ready_in: Bits,
    pub(super) grp_pc: [u64; 8],
    pub(super) grp_mask: [u64; 4],
    pub(super) issued: Option<Issued>,
    pub(super) issue_mask: [u64; 4],
    pub(super) act: Option<Action>,
    pub(super) rel: Release,
    pub(super) requests: [Option<u64>; 3],
    pub(super) flushed: bool,
    pub(super) pick: Option<usize>,
}

/// The cycle model of `dwr`.
#[derive(Clone, Debug)]
pub struct DwrModel {
    pub(super) cfg: DwrConfig,
    pub(super) n: usize,
    pub(super) w: usize,
    pub(super) s: usize,
    pub(super) p: usize,
    pub(super) swb: usize,
    pub(super) nw: usize,
    pub(super) mw: usize,
    pub(super) ew: usize,
    pub(super) mask_words: usize,
    /// Every sub-warp.
    pub(super) all: Bits,
    /// Lanes of each member position (for the bundle mask).
    pub(super) lanes: Vec<[u64; 4]>,
    pub(super) inp: InPorts,
    pub(super) out: OutPorts,
    pub(super) st: States,
    pub(super) matched: Bits,
    pub(super) pst: Pst,
    pub(super) ilt: Ilt,
    /// Barrier pipeline stages 1 … L−1 as a ring; stage k at `(head + k − 1) mod (L−1)`.
    pub(super) pipe: Vec<Stage>,
    pub(super) head: usize,
    /// Sub-warps whose own barrier is in the pipeline.
    pub(super) in_pipe: Bits,
    /// Valid pipeline stages.
    pub(super) pipe_count: usize,
    pub(super) ptr: usize,
    pub(super) sel: Option<usize>,
    pub(super) hold: usize,
    /// `dbg_state` image: sub-warp `s`'s code at `3s`, updated for the sub-warps that change.
    pub(super) state_image: Vec<u64>,
    /// `dbg_pipe_valid`, `dbg_pipe_sw`, `dbg_pipe_pc` images, moved with the stages.
    pub(super) pipe_images: [Vec<u64>; 3],
    pub(super) last: LastCycle,
    pub(super) counters: DwrCounters,
    pub(super) fault: Option<DwrFault>,
    pub(super) cycle: u64,
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

    pub(super) fn reset_state(&mut self) {
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

    pub(super) fn write_debug(&mut self, outputs: &mut [u64]) {
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

    pub(super) fn snapshot(&mut self, reset: bool) {
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

    pub(super) fn zero_functional(&self, outputs: &mut [u64]) {
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
