//! Spec vectors of `simt-stack`.

use crate::{SpecVector, VectorCycle};

/// A stack snapshot in the spec's notation: (pc, mask, rpc), bottom first.
type Snapshot<'a> = &'a [(u64, u64, Option<u64>)];

/// Builder for one simt-stack spec vector (pc_bits 8 so PCs read as in the spec).
struct Sb {
    v: SpecVector,
    warp_size: usize,
    pc_bits: usize,
    depth: usize,
}

impl Sb {
    fn new(name: &str, warp_size: usize, depth: usize) -> Sb {
        let pc_bits = 8;
        Sb {
            v: SpecVector {
                name: name.into(),
                unit: "simt-stack",
                sets: vec![
                    format!("warp_size={warp_size}"),
                    format!("pc_bits={pc_bits}"),
                    format!("depth={depth}"),
                ],
                cycles: vec![],
            },
            warp_size,
            pc_bits,
            depth,
        }
    }

    /// `dbg_stack` for a snapshot: entry k at bit k·E, fields pc, mask, rpc, rpc_valid.
    fn image(&self, s: Snapshot) -> Vec<u64> {
        let e = 2 * self.pc_bits + self.warp_size + 1;
        let mut w = vec![0u64; (self.depth * e).div_ceil(64)];
        for (k, &(pc, mask, rpc)) in s.iter().enumerate() {
            let mut put = |at: usize, width: usize, v: u64| {
                for b in 0..width {
                    if v >> b & 1 != 0 {
                        w[(at + b) / 64] |= 1 << ((at + b) % 64);
                    }
                }
            };
            put(k * e, self.pc_bits, pc);
            put(k * e + self.pc_bits, self.warp_size, mask);
            if let Some(r) = rpc {
                put(k * e + self.pc_bits + self.warp_size, self.pc_bits, r);
                put(k * e + 2 * self.pc_bits + self.warp_size, 1, 1);
            }
        }
        w
    }

    /// Expected outputs for a cycle that starts with the stack `s`.
    fn state(&self, s: Snapshot, overflowed: bool) -> Vec<(&'static str, Vec<u64>)> {
        let top = s.last().copied();
        let (pc, mask, rpc) = top.unwrap_or((0, 0, None));
        vec![
            ("pc", vec![pc]),
            ("mask", vec![mask]),
            ("tos_rpc", vec![rpc.unwrap_or(0)]),
            ("tos_rpc_valid", vec![rpc.is_some() as u64]),
            ("depth", vec![s.len() as u64]),
            ("empty", vec![s.is_empty() as u64]),
            ("overflowed", vec![overflowed as u64]),
            ("dbg_stack", self.image(s)),
        ]
    }

    fn push(&mut self, inputs: &[(&'static str, u64)], expect: Vec<(&'static str, Vec<u64>)>) {
        self.v.cycles.push(VectorCycle {
            inputs: inputs.iter().map(|&(n, v)| (n, vec![v])).collect(),
            expect,
        });
    }

    fn reset(mut self) -> Sb {
        self.push(&[("reset", 1)], vec![]);
        self
    }

    /// A cycle starting with stack `s` (overflowed clear) that drives `inputs`; `overflow`
    /// is this cycle's expected refusal.
    fn step(self, s: Snapshot, inputs: &[(&'static str, u64)], overflow: bool) -> Sb {
        self.step_of(s, false, inputs, overflow)
    }

    fn step_of(
        mut self,
        s: Snapshot,
        overflowed: bool,
        inputs: &[(&'static str, u64)],
        overflow: bool,
    ) -> Sb {
        let mut e = self.state(s, overflowed);
        e.push(("overflow", vec![overflow as u64]));
        self.push(inputs, e);
        self
    }

    fn done(self) -> SpecVector {
        self.v
    }
}

fn launch(pc: u64, mask: u64) -> [(&'static str, u64); 3] {
    [("launch", 1), ("launch_pc", pc), ("launch_mask", mask)]
}

fn advance(next_pc: u64) -> [(&'static str, u64); 2] {
    [("commit", 1), ("next_pc", next_pc)]
}

fn branch(next_pc: u64, taken: u64, target: u64, rpc: u64) -> [(&'static str, u64); 6] {
    [
        ("commit", 1),
        ("branch", 1),
        ("next_pc", next_pc),
        ("taken", taken),
        ("target", target),
        ("rpc", rpc),
    ]
}

fn exit(next_pc: u64) -> [(&'static str, u64); 3] {
    [("commit", 1), ("exit", 1), ("next_pc", next_pc)]
}

const NO: Option<u64> = None;

/// crown.md §2.7, Fig 2-3: one 8-thread warp, `if (a > 4) … else …`, IPDOM at PC5.
/// Cycles 2..=8 issue the 7 instructions (the `mask` output is the issuing mask).
fn fig_2_3() -> SpecVector {
    Sb::new("crown.md §2.7 Fig 2-3 SBR trace", 8, 4)
        .reset()
        .step(&[], &launch(0, 0xff), false)
        // PC0: a = tid
        .step(&[(0, 0xff, NO)], &advance(1), false)
        // PC1: @(a<=4) bra PC4, rpc PC5: lanes 0-4 take the else path.
        .step(&[(1, 0xff, NO)], &branch(2, 0x1f, 4, 5), false)
        // PC4 (else path, runs first): f -= g*h, then falls into PC5 = its RPC.
        .step(
            &[(5, 0xff, NO), (2, 0xe0, Some(5)), (4, 0x1f, Some(5))],
            &advance(5),
            false,
        )
        // PC2: f += g*h
        .step(&[(5, 0xff, NO), (2, 0xe0, Some(5))], &advance(3), false)
        // PC3: bra PC5 (uniform jump to the RPC)
        .step(
            &[(5, 0xff, NO), (3, 0xe0, Some(5))],
            &branch(4, 0xff, 5, 5),
            false,
        )
        // PC5: k[a] = f
        .step(&[(5, 0xff, NO)], &advance(6), false)
        // PC6: exit
        .step(&[(6, 0xff, NO)], &exit(7), false)
        .step(&[], &[], false)
        .done()
}

/// crown.md §2.8, Fig 2-4: SBR on one warp with the reconstructed masks (W0: B 0F, C 03,
/// D 0C; W1 mirrors it: B F0, C 30, D C0). Blocks A..F are single instructions at PCs
/// 0xA..0xF; A's branch is one-sided (its other lanes go straight to F).
fn fig_2_4(warp: &str, b: u64, c: u64, d: u64) -> SpecVector {
    let (pa, pb, pc, pd, pe, pf) = (0xa, 0xb, 0xc, 0xd, 0xe, 0xf);
    let full = 0xff;
    Sb::new(
        &format!("crown.md §2.8 Fig 2-4 stack snapshots ({warp})"),
        8,
        4,
    )
    .reset()
    .step(&[], &launch(pa, full), false)
    // (b) A's last instruction: lanes !b jump to F (= the RPC), lanes b fall into B.
    .step(&[(pa, full, NO)], &branch(pb, full & !b, pf, pf), false)
    // (c) B's branch: d lanes take D (runs first), c lanes fall into C; IPDOM E.
    .step(
        &[(pf, full, NO), (pb, b, Some(pf))],
        &branch(pc, d, pd, pe),
        false,
    )
    // (d)/(e) D runs and reaches E.
    .step(
        &[
            (pf, full, NO),
            (pe, b, Some(pf)),
            (pc, c, Some(pe)),
            (pd, d, Some(pe)),
        ],
        &advance(pe),
        false,
    )
    // (f) pop; C runs and reaches E.
    .step(
        &[(pf, full, NO), (pe, b, Some(pf)), (pc, c, Some(pe))],
        &advance(pe),
        false,
    )
    // (f') E runs with B's lanes and reaches F.
    .step(&[(pf, full, NO), (pe, b, Some(pf))], &advance(pf), false)
    // (g) full warp at F.
    .step(&[(pf, full, NO)], &exit(pf + 1), false)
    .step(&[], &[], false)
    .done()
}

/// One-sided branches: either the taken or the fall-through lanes start at the RPC and get
/// no entry; uniform branches (all active lanes agree, inactive lanes ignored) push nothing.
fn one_sided() -> SpecVector {
    Sb::new("simt-stack one-sided and uniform branches", 8, 4)
        .reset()
        .step(&[], &launch(0x10, 0xff), false)
        // Taken lanes 0-3 jump to the RPC 0x20: only the fall-through path is pushed.
        .step(&[(0x10, 0xff, NO)], &branch(0x11, 0x0f, 0x20, 0x20), false)
        .step(
            &[(0x20, 0xff, NO), (0x11, 0xf0, Some(0x20))],
            &advance(0x12),
            false,
        )
        .step(
            &[(0x20, 0xff, NO), (0x12, 0xf0, Some(0x20))],
            &advance(0x20),
            false,
        )
        // Fall-through is the RPC: only the taken path (lanes 0, 7) is pushed.
        .step(&[(0x20, 0xff, NO)], &branch(0x21, 0x81, 0x30, 0x21), false)
        .step(
            &[(0x21, 0xff, NO), (0x30, 0x81, Some(0x21))],
            // Uniform not taken: only inactive lanes (1-6) have their taken bit set.
            &branch(0x31, 0x7e, 0x40, 0x50),
            false,
        )
        .step(
            &[(0x21, 0xff, NO), (0x31, 0x81, Some(0x21))],
            // Uniform taken: every active lane (0 and 7) takes it; to the RPC, pop.
            &branch(0x32, 0xff, 0x21, 0x60),
            false,
        )
        // Uniform not taken with the whole warp.
        .step(&[(0x21, 0xff, NO)], &branch(0x22, 0x00, 0x40, 0x50), false)
        .step(&[(0x22, 0xff, NO)], &[], false)
        .done()
}

/// A nested branch whose inner IPDOM equals the outer one: the inner paths replace the
/// outer path's entry (it would only wait at its own RPC, where its parent already holds its
/// lanes), so the depth does not grow; then a loop whose exit diverges every iteration runs at
/// a constant depth.
fn nested_same_ipdom() -> SpecVector {
    Sb::new(
        "simt-stack nested branch with the same IPDOM (inner paths replace their parent path)",
        8,
        8,
    )
    .reset()
    .step(&[], &launch(0, 0xff), false)
    .step(&[(0, 0xff, NO)], &branch(5, 0x0f, 1, 9), false)
    // Inner branch on the taken path, also reconverging at 9; taken bits of inactive
    // lanes (0xf0) do not count. The entry (1, 0x0f, 9) is replaced by its two paths.
    .step(
        &[(9, 0xff, NO), (5, 0xf0, Some(9)), (1, 0x0f, Some(9))],
        &branch(3, 0xf3, 2, 9),
        false,
    )
    .step(
        &[
            (9, 0xff, NO),
            (5, 0xf0, Some(9)),
            (3, 0x0c, Some(9)),
            (2, 0x03, Some(9)),
        ],
        &advance(9),
        false,
    )
    .step(
        &[(9, 0xff, NO), (5, 0xf0, Some(9)), (3, 0x0c, Some(9))],
        &advance(9),
        false,
    )
    // A loop at 5..6 whose exit (to 9) diverges each iteration: `@p bra 5` with rpc 9.
    .step(&[(9, 0xff, NO), (5, 0xf0, Some(9))], &advance(6), false)
    .step(
        &[(9, 0xff, NO), (6, 0xf0, Some(9))],
        &branch(9, 0x70, 5, 9),
        false,
    )
    .step(&[(9, 0xff, NO), (5, 0x70, Some(9))], &advance(6), false)
    .step(
        &[(9, 0xff, NO), (6, 0x70, Some(9))],
        &branch(9, 0x30, 5, 9),
        false,
    )
    .step(&[(9, 0xff, NO), (5, 0x30, Some(9))], &advance(6), false)
    // The last iteration: no lane loops back; the path reaches its RPC and pops.
    .step(
        &[(9, 0xff, NO), (6, 0x30, Some(9))],
        &branch(9, 0x00, 5, 9),
        false,
    )
    .step(&[(9, 0xff, NO)], &exit(10), false)
    .step(&[], &[], false)
    .done()
}

/// Overflow with depth 2: the refused commit raises `overflow` in its cycle and leaves the
/// stack as it was; `overflowed` stays set until a launch.
fn overflow() -> SpecVector {
    let full = 0xff;
    Sb::new("simt-stack overflow (depth 2)", 8, 2)
        .reset()
        .step(&[], &launch(0, full), false)
        // Two pushes onto one entry: 3 > 2, refused.
        .step(&[(0, full, NO)], &branch(1, 0x0f, 4, 8), true)
        // Same state, now overflowed. A one-sided divergence (one push) fits.
        .step_of(&[(0, full, NO)], true, &branch(1, 0x0f, 8, 8), false)
        // Full: a one-sided divergence of the TOS path is refused.
        .step_of(
            &[(8, full, NO), (1, 0xf0, Some(8))],
            true,
            &branch(2, 0x30, 7, 7),
            true,
        )
        // A divergent branch whose paths both start at the RPC needs no entry: accepted even
        // when full; the TOS reaches its own RPC and pops.
        .step_of(
            &[(8, full, NO), (1, 0xf0, Some(8))],
            true,
            &branch(8, 0x30, 8, 8),
            false,
        )
        // Launch wins over a commit that would be refused: no overflow, flag cleared.
        .step_of(
            &[(8, full, NO)],
            true,
            &[
                ("launch", 1),
                ("launch_pc", 0x40),
                ("launch_mask", 0x0f),
                ("commit", 1),
                ("branch", 1),
                ("next_pc", 9),
                ("taken", 0x0f),
                ("target", 0x20),
                ("rpc", 0x30),
            ],
            false,
        )
        .step(&[(0x40, 0x0f, NO)], &advance(0x41), false)
        .step(&[(0x41, 0x0f, NO)], &[], false)
        .done()
}

/// Exit of one path: its lanes leave every entry; the sibling path runs on; exiting the
/// last lanes pops everything (a cascade); commits on an empty stack do nothing.
fn exit_of_a_path() -> SpecVector {
    Sb::new("simt-stack exit of a path", 8, 4)
        .reset()
        .step(&[], &launch(0, 0xff), false)
        .step(&[(0, 0xff, NO)], &branch(1, 0x0f, 4, 8), false)
        // The taken path (lanes 0-3) exits.
        .step(
            &[(8, 0xff, NO), (1, 0xf0, Some(8)), (4, 0x0f, Some(8))],
            &exit(5),
            false,
        )
        .step(&[(8, 0xf0, NO), (1, 0xf0, Some(8))], &advance(8), false)
        .step(&[(8, 0xf0, NO)], &exit(9), false)
        // Empty: a commit is ignored, a launch with no threads leaves it empty.
        .step(&[], &advance(3), false)
        .step(&[], &launch(3, 0), false)
        .step(&[], &launch(0, 0x0f), false)
        .step(&[(0, 0x0f, NO)], &branch(1, 0x0c, 2, 3), false)
        .step(
            &[(3, 0x0f, NO), (1, 0x03, Some(3)), (2, 0x0c, Some(3))],
            &exit(3),
            false,
        )
        // The last live lanes exit inside a divergent region: both entries pop.
        .step(&[(3, 0x03, NO), (1, 0x03, Some(3))], &exit(2), false)
        .step(&[], &[], false)
        .done()
}

/// The directed vectors of simt-stack (crown.md §2.7, §2.8 and the stack corner cases).
pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        fig_2_3(),
        fig_2_4("W0", 0x0f, 0x03, 0x0c),
        fig_2_4("W1", 0xf0, 0x30, 0xc0),
        one_sided(),
        nested_same_ipdom(),
        overflow(),
        exit_of_a_path(),
    ]
}
