//! RTL of dwr-ilt: DWR's Ignore-List Table (spec/dwr.md §2.8, §3.8; contract
//! `warpforge_contract::units::dwr_ilt`).
//!
//! `sets` × `ways` entries {valid, tag} and a FIFO victim pointer per set (A8). A PC's
//! instruction index `pc >> pc_shift` (A7) gives its set (low bits) and tag (the rest).
//! Each set is an [`IltSet`] block: the lookup compares its ways' tags (a `ways`-wide tag
//! comparator bank, §5), and the up to K insert requests that map to it are applied one after
//! another — a request whose tag is present, also by an earlier request of this cycle, writes
//! nothing; otherwise it writes the way at the pointer and the pointer advances. A honoured
//! flush (A9) clears every valid bit and pointer and discards the cycle's inserts.
//!
//! The composite `dwr` unit embeds this block with K = 3 (1 without `d4_learn`).

use crate::primitives::{emit, Concat, Fixed, Split, SplitAny, Wire, WordReg};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::dwr_ilt::IltConfig;

/// One set of the ILT: its ways, its FIFO pointer, the lookup and the ordered inserts.
#[derive(LogicBlock)]
pub struct IltSet {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// A honoured flush: empty the set, write nothing.
    pub flush: Signal<In, Bit>,
    /// Set and tag of the looked-up PC.
    pub lookup_set: Wire<In>,
    pub lookup_tag: Wire<In>,
    /// The insert requests of the whole table: valid (bit k), set and tag (field k).
    pub ins_valid: Wire<In>,
    pub ins_set: Wire<In>,
    pub ins_tag: Wire<In>,
    pub hit: Signal<Out, Bit>,
    pub written: Wire<Out>,
    pub evict: Wire<Out>,
    pub dbg_valid: Wire<Out>,
    pub dbg_tag: Wire<Out>,
    pub dbg_ptr: Wire<Out>,

    // State.
    way_valid: Vec<WordReg>,
    way_tag: Vec<WordReg>,
    ptr: WordReg,

    /// This set's index.
    index: Fixed,
    /// ways − 1: the pointer wraps after it.
    last_way: Fixed,
    req_valid: SplitAny,
    req_sets: SplitAny,
    tags: SplitAny,
    written_pack: Concat,
    evict_pack: Concat,
    valid_pack: Concat,
    tag_pack: Concat,

    // The set as left by the requests applied so far this cycle.
    cur_valid: Vec<Wire<Local>>,
    cur_tag: Vec<Wire<Local>>,
    cur_ptr: Wire<Local>,
    // Request k in turn: already present, and whether the way it would write is valid.
    present: Signal<Local, Bit>,
    write: Signal<Local, Bit>,
    victim_valid: Signal<Local, Bit>,
    found: Signal<Local, Bit>,
}

impl IltSet {
    /// Set `index` of a table with `set_bits`-bit set indexes (at least 1 bit).
    pub fn new(index: usize, cfg: &IltConfig, set_bits: usize) -> IltSet {
        let (ways, tag_bits, ptr_bits, requests) =
            (cfg.ways, cfg.tag_bits(), cfg.ptr_bits(), cfg.insert_ports);
        IltSet {
            clock: Default::default(),
            reset: Default::default(),
            flush: Default::default(),
            lookup_set: Wire::new(set_bits),
            lookup_tag: Wire::new(tag_bits),
            ins_valid: Wire::new(requests),
            ins_set: Wire::new(requests * set_bits),
            ins_tag: Wire::new(requests * tag_bits),
            hit: Default::default(),
            written: Wire::new(requests),
            evict: Wire::new(requests),
            dbg_valid: Wire::new(ways),
            dbg_tag: Wire::new(ways * tag_bits),
            dbg_ptr: Wire::new(ptr_bits),
            way_valid: (0..ways).map(|_| WordReg::new(1)).collect(),
            way_tag: (0..ways).map(|_| WordReg::new(tag_bits)).collect(),
            ptr: WordReg::new(ptr_bits),
            index: Fixed::new(index as u64),
            last_way: Fixed::new(ways as u64 - 1),
            req_valid: SplitAny::new(&vec![1; requests]),
            req_sets: SplitAny::new(&vec![set_bits; requests]),
            tags: SplitAny::new(&vec![tag_bits; requests]),
            written_pack: Concat::new(&vec![1; requests]),
            evict_pack: Concat::new(&vec![1; requests]),
            valid_pack: Concat::new(&vec![1; ways]),
            tag_pack: Concat::new(&vec![tag_bits; ways]),
            cur_valid: (0..ways).map(|_| Wire::new(1)).collect(),
            cur_tag: (0..ways).map(|_| Wire::new(tag_bits)).collect(),
            cur_ptr: Wire::new(ptr_bits),
            present: Default::default(),
            write: Default::default(),
            victim_valid: Default::default(),
            found: Default::default(),
        }
    }
}

impl Logic for IltSet {
    #[hdl_gen]
    fn update(&mut self) {
        for v in 0..self.way_valid.len() {
            self.way_valid[v].clock.next = self.clock.val();
            self.way_valid[v].reset.next = self.reset.val();
            self.way_tag[v].clock.next = self.clock.val();
            self.way_tag[v].reset.next = self.reset.val();
        }
        self.ptr.clock.next = self.clock.val();
        self.ptr.reset.next = self.reset.val();
        self.req_valid.whole.next = self.ins_valid.val();
        self.req_sets.whole.next = self.ins_set.val();
        self.tags.whole.next = self.ins_tag.val();

        // Lookup on the registered contents; a hit changes nothing (A8).
        self.found.next = false;
        for v in 0..self.way_valid.len() {
            if self.way_valid[v].q.val().any() & (self.way_tag[v].q.val() == self.lookup_tag.val())
            {
                self.found.next = true;
            }
        }
        self.hit.next = (self.lookup_set.val() == self.index.val()) & self.found.val();

        // Inserts in request order, each on the set as the previous ones left it.
        for v in 0..self.way_valid.len() {
            self.cur_valid[v].next = self.way_valid[v].q.val();
            self.cur_tag[v].next = self.way_tag[v].q.val();
        }
        self.cur_ptr.next = self.ptr.q.val();
        self.present.next = false;
        self.write.next = false;
        self.victim_valid.next = false;
        for k in 0..self.tags.parts.len() {
            self.present.next = false;
            self.victim_valid.next = false;
            for v in 0..self.way_valid.len() {
                if self.cur_valid[v].val().any()
                    & (self.cur_tag[v].val() == self.tags.parts[k].val())
                {
                    self.present.next = true;
                }
                if self.cur_ptr.val() == v {
                    self.victim_valid.next = self.cur_valid[v].val().any();
                }
            }
            self.write.next = self.req_valid.parts[k].val().any()
                & (self.req_sets.parts[k].val() == self.index.val())
                & !self.present.val()
                & !self.flush.val();
            self.written_pack.parts[k].next = self.write.val().into();
            self.evict_pack.parts[k].next = (self.write.val() & self.victim_valid.val()).into();
            if self.write.val() {
                for v in 0..self.way_valid.len() {
                    if self.cur_ptr.val() == v {
                        self.cur_valid[v].next = true.into();
                        self.cur_tag[v].next = self.tags.parts[k].val();
                    }
                }
                if self.cur_ptr.val() == self.last_way.val() {
                    self.cur_ptr.next = 0.into();
                } else {
                    self.cur_ptr.next = self.cur_ptr.val() + 1;
                }
            }
        }

        // Next state; a flush clears the valid bits and the pointer (tags are don't-care).
        for v in 0..self.way_valid.len() {
            self.way_valid[v].d.next = self.cur_valid[v].val();
            self.way_tag[v].d.next = self.cur_tag[v].val();
            if self.flush.val() {
                self.way_valid[v].d.next = false.into();
            }
            self.valid_pack.parts[v].next = self.way_valid[v].q.val();
            self.tag_pack.parts[v].next = 0.into();
            if self.way_valid[v].q.val().any() {
                self.tag_pack.parts[v].next = self.way_tag[v].q.val();
            }
        }
        self.ptr.d.next = self.cur_ptr.val();
        if self.flush.val() {
            self.ptr.d.next = 0.into();
        }

        self.written.next = self.written_pack.whole.val();
        self.evict.next = self.evict_pack.whole.val();
        self.dbg_valid.next = self.valid_pack.whole.val();
        self.dbg_tag.next = self.tag_pack.whole.val();
        self.dbg_ptr.next = self.ptr.q.val();
    }
}

#[derive(LogicBlock)]
pub struct Ilt {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub flush: Signal<In, Bit>,
    pub lookup_pc: Wire<In>,
    pub ins_valid: Wire<In>,
    pub ins_pc: Wire<In>,
    pub hit: Signal<Out, Bit>,
    pub ins_written: Wire<Out>,
    pub ins_evict: Wire<Out>,
    pub dbg_valid: Wire<Out>,
    pub dbg_tag: Wire<Out>,
    pub dbg_ptr: Wire<Out>,

    sets: Vec<IltSet>,

    // Generation-time constants: the indexing of A7 and the A9 knob.
    index_shift: Fixed,
    tag_shift: Fixed,
    set_mask: Fixed,
    flush_enabled: Fixed,

    requests: Split,
    req_set_pack: Concat,
    req_tag_pack: Concat,
    valid_pack: Concat,
    tag_pack: Concat,
    ptr_pack: Concat,

    flushing: Signal<Local, Bit>,
    lookup_set: Wire<Local>,
    lookup_tag: Wire<Local>,
    hits: Signal<Local, Bit>,
    written: Wire<Local>,
    evicted: Wire<Local>,
}

impl Ilt {
    pub fn new(cfg: &IltConfig) -> Ilt {
        let (p, k, tb, pb) = (
            cfg.pc_bits,
            cfg.insert_ports,
            cfg.tag_bits(),
            cfg.ptr_bits(),
        );
        let sb = cfg.set_bits().max(1);
        Ilt {
            clock: Default::default(),
            reset: Default::default(),
            flush: Default::default(),
            lookup_pc: Wire::new(p),
            ins_valid: Wire::new(k),
            ins_pc: Wire::new(k * p),
            hit: Default::default(),
            ins_written: Wire::new(k),
            ins_evict: Wire::new(k),
            dbg_valid: Wire::new(cfg.entries()),
            dbg_tag: Wire::new(cfg.entries() * tb),
            dbg_ptr: Wire::new(cfg.sets * pb),
            sets: (0..cfg.sets).map(|i| IltSet::new(i, cfg, sb)).collect(),
            index_shift: Fixed::new(cfg.pc_shift as u64),
            tag_shift: Fixed::new((cfg.pc_shift + cfg.set_bits()) as u64),
            set_mask: Fixed::new(cfg.sets as u64 - 1),
            flush_enabled: Fixed::new(u64::from(cfg.flush_on_launch)),
            requests: Split::new(&vec![p; k]),
            req_set_pack: Concat::new(&vec![sb; k]),
            req_tag_pack: Concat::new(&vec![tb; k]),
            valid_pack: Concat::new(&vec![cfg.ways; cfg.sets]),
            tag_pack: Concat::new(&vec![cfg.ways * tb; cfg.sets]),
            ptr_pack: Concat::new(&vec![pb; cfg.sets]),
            flushing: Default::default(),
            lookup_set: Wire::new(sb),
            lookup_tag: Wire::new(tb),
            hits: Default::default(),
            written: Wire::new(k),
            evicted: Wire::new(k),
        }
    }
}

impl Logic for Ilt {
    #[hdl_gen]
    fn update(&mut self) {
        self.requests.whole.next = self.ins_pc.val();
        self.flushing.next = self.flush.val() & self.flush_enabled.val().any();
        self.lookup_set.next =
            (self.lookup_pc.val() >> self.index_shift.val()) & self.set_mask.val();
        self.lookup_tag.next = self.lookup_pc.val() >> self.tag_shift.val();
        for k in 0..self.requests.parts.len() {
            self.req_set_pack.parts[k].next =
                (self.requests.parts[k].val() >> self.index_shift.val()) & self.set_mask.val();
            self.req_tag_pack.parts[k].next = self.requests.parts[k].val() >> self.tag_shift.val();
        }

        self.hits.next = false;
        self.written.next = 0.into();
        self.evicted.next = 0.into();
        for i in 0..self.sets.len() {
            self.sets[i].clock.next = self.clock.val();
            self.sets[i].reset.next = self.reset.val();
            self.sets[i].flush.next = self.flushing.val();
            self.sets[i].lookup_set.next = self.lookup_set.val();
            self.sets[i].lookup_tag.next = self.lookup_tag.val();
            self.sets[i].ins_valid.next = self.ins_valid.val();
            self.sets[i].ins_set.next = self.req_set_pack.whole.val();
            self.sets[i].ins_tag.next = self.req_tag_pack.whole.val();
            self.hits.next = self.hits.val() | self.sets[i].hit.val();
            self.written.next = self.written.val() | self.sets[i].written.val();
            self.evicted.next = self.evicted.val() | self.sets[i].evict.val();
            self.valid_pack.parts[i].next = self.sets[i].dbg_valid.val();
            self.tag_pack.parts[i].next = self.sets[i].dbg_tag.val();
            self.ptr_pack.parts[i].next = self.sets[i].dbg_ptr.val();
        }

        self.hit.next = self.hits.val();
        self.ins_written.next = self.written.val();
        self.ins_evict.next = self.evicted.val();
        self.dbg_valid.next = self.valid_pack.whole.val();
        self.dbg_tag.next = self.tag_pack.whole.val();
        self.dbg_ptr.next = self.ptr_pack.whole.val();
    }
}

/// Verilog of one dwr-ilt configuration.
pub fn generate(cfg: &IltConfig) -> Design {
    let mut block = Ilt::new(cfg);
    emit(&mut block, &cfg.module_name())
}
