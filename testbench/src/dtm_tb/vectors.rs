//! Spec vectors of `dtm-tb`, written by hand from spec/dtm.md as port-level vectors: §4.3's
//! T0.2 building X1 and T1.2 building X2, §4.4 (K_IN = 2: X1' and the two dropped
//! one-instruction buffers), §4.2 patterns (a)–(e) with `r1 = r1 + 1` (S2, S12), S7 (40
//! INTRA: traces of 16, 16 and 8), S11 (the guard predicate in `ic`), S15 (an MTT hit closes
//! the buffer: committed, or dropped at length 1), a PC break, and TB_POOL (a thread that
//! finds no buffer does not build; a freed buffer goes to the next thread).
//!
//! Timing (contract): an event driven at cycle t shows `st_*` and a commit `cm_*` at t+2.

use super::model::pack_srcs;
use crate::dtm_mtt::ctx_words;
use crate::{SpecVector, VectorCycle};
use warpforge_contract::units::dtm_tb::{TbConfig, NAME, PARAMS};

struct Script {
    cfg: TbConfig,
    name: String,
    sets: Vec<String>,
    cycles: Vec<VectorCycle>,
    /// The next free cycle.
    now: usize,
}

impl Script {
    fn new(name: &str, sets: &[&str]) -> Script {
        let s: Vec<String> = sets.iter().map(|x| x.to_string()).collect();
        let p = warpforge_contract::Params::resolve(NAME, PARAMS, None, &s).unwrap();
        let mut sc = Script {
            cfg: TbConfig::from_params(&p).unwrap(),
            name: name.into(),
            sets: s,
            cycles: vec![],
            now: 1,
        };
        sc.at(0).inputs.push(("reset", vec![1]));
        sc
    }

    fn at(&mut self, c: usize) -> &mut VectorCycle {
        while self.cycles.len() <= c {
            self.cycles.push(VectorCycle::default());
        }
        &mut self.cycles[c]
    }

    /// An INTRA instruction of `tid` at the next cycle; `len` expected after it.
    fn a(&mut self, tid: u64, pc: u64, srcs: &[(u64, u64)], dst: u64, res: u64, len: u64) -> usize {
        let c = self.now;
        self.now += 1;
        let (sv, rid, val) = pack_srcs(&self.cfg, srcs);
        let cy = self.at(c);
        cy.inputs.extend([
            ("ev_valid", vec![1]),
            ("ev_tid", vec![tid]),
            ("ev_pc", vec![pc]),
            ("ev_src_v", vec![sv]),
            ("ev_src_rid", rid),
            ("ev_src_val", val),
            ("ev_dst", vec![dst]),
            ("ev_res", vec![res]),
        ]);
        self.expect_st(c, tid, len, false);
        c
    }

    /// A delimiter of `tid` at the next cycle.
    fn n(&mut self, tid: u64) -> usize {
        let c = self.now;
        self.now += 1;
        self.at(c).inputs.extend([
            ("ev_valid", vec![1]),
            ("ev_tid", vec![tid]),
            ("ev_close", vec![1]),
        ]);
        self.expect_st(c, tid, 0, false);
        c
    }

    fn expect_st(&mut self, c: usize, tid: u64, len: u64, nobuf: bool) {
        self.at(c + 2).expect.extend([
            ("st_valid", vec![1]),
            ("st_tid", vec![tid]),
            ("st_len", vec![len]),
            ("st_nobuf", vec![nobuf as u64]),
        ]);
    }

    /// The event at cycle `c` commits `{pc, npc, len, ic, oc}`.
    fn commit(
        &mut self,
        c: usize,
        pc: u64,
        npc: u64,
        len: u64,
        ic: &[(u64, u64)],
        oc: &[(u64, u64)],
    ) {
        let pad = |x: &[(u64, u64)], n: usize| -> Vec<Option<(u64, u64)>> {
            (0..n).map(|k| x.get(k).copied()).collect()
        };
        let (ki, ko) = (self.cfg.k_in, self.cfg.k_out);
        let (icw, ocw) = (
            ctx_words(&mtt_view(&self.cfg), &pad(ic, ki)),
            ctx_words(&mtt_view(&self.cfg), &pad(oc, ko)),
        );
        self.at(c + 2).expect.extend([
            ("cm_valid", vec![1]),
            ("cm_pc", vec![pc]),
            ("cm_npc", vec![npc]),
            ("cm_len", vec![len]),
            ("cm_ic", icw),
            ("cm_oc", ocw),
        ]);
    }

    /// No commit from the event at cycle `c`.
    fn none(&mut self, c: usize) {
        self.at(c + 2).expect.push(("cm_valid", vec![0]));
    }

    fn done(mut self) -> SpecVector {
        let n = self.now + 2;
        self.at(n);
        SpecVector {
            name: self.name,
            unit: NAME,
            sets: self.sets,
            cycles: self.cycles,
        }
    }
}

/// The MTT configuration whose slot layout the commit uses.
fn mtt_view(c: &TbConfig) -> warpforge_contract::units::dtm_mtt::MttConfig {
    warpforge_contract::units::dtm_mtt::MttConfig {
        k_in: c.k_in,
        k_out: c.k_out,
        val_bits: c.val_bits,
        ..Default::default()
    }
}

const P0: u64 = 256;

/// §4.3 steps 7–11 (T0.2 builds X1) and 22–26 (T1.2 builds X2), interleaved per thread.
fn two_threads() -> SpecVector {
    let mut s = Script::new(
        "dtm §4.3: T0.2 builds X1, T1.2 builds X2 (threads=64)",
        &["threads=64"],
    );
    for (tid, r6, r5, r7) in [(0u64, 255u64, 48u64, 53u64), (1, 15, 0, 5)] {
        s.a(tid, 0x100, &[(1, 5), (2, 7)], 3, 12, 1);
        s.a(tid, 0x108, &[(3, 12)], 4, 48, 2);
        s.a(tid, 0x110, &[(4, 48), (6, r6)], 5, r5, 3);
        s.a(tid, 0x118, &[(5, r5), (1, 5)], 7, r7, 4);
        let c = s.n(tid);
        s.commit(
            c,
            0x100,
            0x120,
            4,
            &[(1, 5), (2, 7), (6, r6)],
            &[(3, 12), (4, 48), (5, r5), (7, r7)],
        );
    }
    s.done()
}

/// §4.4 (K_IN = 2): X1', then a buffer at 0x110 with ic{r4, r6}, dropped at 0x118; a buffer
/// at 0x118 with ic{r5, r1}, dropped at the `ld`.
fn k_in_2() -> SpecVector {
    let mut s = Script::new("dtm §4.4 (k_in=2): X1' only", &["threads=64", "k_in=2"]);
    s.a(0, 0x100, &[(1, 5), (2, 7)], 3, 12, 1);
    s.a(0, 0x108, &[(3, 12)], 4, 48, 2);
    let c9 = s.a(0, 0x110, &[(4, 48), (6, 255)], 5, 48, 1);
    s.commit(c9, 0x100, 0x110, 2, &[(1, 5), (2, 7)], &[(3, 12), (4, 48)]);
    let c10 = s.a(0, 0x118, &[(5, 48), (1, 5)], 7, 53, 1);
    s.none(c10);
    let c11 = s.n(0);
    s.none(c11);
    // T0.3 after X1' (0x110, 0x118 INTRA): the buffer splits again, no trace.
    let c = s.a(0, 0x110, &[(4, 48), (6, 255)], 5, 48, 1);
    s.none(c);
    let c = s.a(0, 0x118, &[(5, 48), (1, 5)], 7, 53, 1);
    s.none(c);
    let c = s.n(0);
    s.none(c);
    s.done()
}

/// §4.2 (a)–(e) with `r1 = r1 + 1` (S12: ic old r1, oc new r1). N and E are delimiters.
fn figure3() -> SpecVector {
    let mut s = Script::new("dtm §4.2 (a)-(e), S12: r1 = r1 + 1 runs", &["threads=64"]);
    let mut pc = 0x200;
    let mut r1 = 10;
    // Each pattern: 'N'/'E' delimiter, 'A' INTRA; the commits expected (start index, len).
    for pat in ["NAAAAAN", "NAAAEAAAN", "NAAANAAAE", "NAEAEN", "NANEN"] {
        let mut run: Option<(u64, u64, u64)> = None; // (pc, r1 at start, len)
        for ch in pat.chars() {
            if ch == 'A' {
                let (p0, v0, l) = run.unwrap_or((pc, r1, 0));
                s.a(0, pc, &[(1, r1)], 1, r1 + 1, l + 1);
                run = Some((p0, v0, l + 1));
                r1 += 1;
            } else {
                let c = s.n(0);
                match run.take() {
                    Some((p0, v0, l)) if l >= 2 => {
                        s.commit(c, p0, p0 + 8 * l, l, &[(1, v0)], &[(1, v0 + l)])
                    }
                    _ => s.none(c),
                }
            }
            pc += 8;
        }
    }
    s.done()
}

/// S7 (40 INTRA that fit: 16, 16, 8), S11 (`@p0 add`: p0 in ic), S15 (an MTT hit closes an
/// open buffer: committed at length ≥ 2, dropped at 1) and a PC break.
fn splits_and_closes() -> SpecVector {
    let mut s = Script::new("dtm S7, S11, S15 and a PC break", &["threads=64"]);
    // r1 = i before instruction i.
    for i in 0..40u64 {
        let (pc, r1) = (0x1000 + 8 * i, i);
        let c = s.a(
            3,
            pc,
            &[(1, r1)],
            1,
            r1 + 1,
            i % 16 + 1 - if i % 16 == 15 { 16 } else { 0 },
        );
        if i % 16 == 15 {
            let start = pc - 8 * 15;
            s.commit(c, start, pc + 8, 16, &[(1, r1 - 15)], &[(1, r1 + 1)]);
        }
    }
    let c = s.n(3);
    s.commit(
        c,
        0x1000 + 8 * 32,
        0x1000 + 8 * 40,
        8,
        &[(1, 32)],
        &[(1, 40)],
    );
    // S11: @p0 add r3, r1, r2 then shl r4, r3: p0 is an input.
    s.a(5, 0x300, &[(P0, 1), (1, 2), (2, 3)], 3, 5, 1);
    s.a(5, 0x308, &[(3, 5)], 4, 20, 2);
    let c = s.n(5);
    s.commit(
        c,
        0x300,
        0x310,
        2,
        &[(P0, 1), (1, 2), (2, 3)],
        &[(3, 5), (4, 20)],
    );
    // S15: an MTT hit (a delimiter) with one instruction open: dropped.
    s.a(5, 0x400, &[(1, 1)], 2, 2, 1);
    let c = s.n(5);
    s.none(c);
    // A PC break: the open trace is committed, the new one starts at the new PC.
    s.a(6, 0x500, &[(1, 1)], 2, 2, 1);
    s.a(6, 0x508, &[(2, 2)], 2, 3, 2);
    let c = s.a(6, 0x600, &[(2, 3)], 2, 4, 1);
    s.commit(c, 0x500, 0x510, 2, &[(1, 1)], &[(2, 3)]);
    let c = s.n(6);
    s.none(c);
    s.done()
}

/// TB_POOL = 2 of 4 threads: the third builder gets no buffer; a freed buffer (the lowest)
/// goes to it.
fn pool() -> SpecVector {
    let mut s = Script::new(
        "dtm TB_POOL=2: no buffer, then the freed one",
        &["threads=4", "tb_pool=2"],
    );
    s.a(0, 0x100, &[(1, 1)], 2, 2, 1);
    s.a(1, 0x100, &[(1, 1)], 2, 2, 1);
    let c = s.now;
    s.now += 1;
    s.at(c).inputs.extend([
        ("ev_valid", vec![1]),
        ("ev_tid", vec![2]),
        ("ev_pc", vec![0x100]),
        ("ev_dst", vec![2]),
    ]);
    s.expect_st(c, 2, 0, true);
    s.at(c + 2).expect.push(("free_count", vec![0]));
    s.n(0);
    s.a(2, 0x100, &[(1, 1)], 2, 2, 1);
    s.a(2, 0x108, &[(2, 2)], 3, 3, 2);
    let c = s.n(2);
    s.commit(c, 0x100, 0x110, 2, &[(1, 1)], &[(2, 2), (3, 3)]);
    s.at(c + 2)
        .expect
        .extend([("free_count", vec![1]), ("dbg_active", vec![0b0010])]);
    s.done()
}

pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        two_threads(),
        k_in_2(),
        figure3(),
        splits_and_closes(),
        pool(),
    ]
}
