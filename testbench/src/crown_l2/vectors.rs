//! Spec vectors of `crown-l2`: the transitions of spec/crown.md §3.3 that touch the second
//! level (T0 insert, T1 refill, T2 issue, T3 commit back to ready, T10 `__syncthreads`
//! release, exit frees), the ready-FIFO rule of §3.4.2 ("several warps becoming ready in one
//! cycle are pushed in ascending index"), the refill's one-cycle RAM latency, and the lowest
//! free row / full / pop-on-empty corners. Expected values are written from the contract by
//! hand; thread-index words are packed lane by lane (lane l at bit 7l for N = 1024, w = 8).

use crate::dwr::Vb;
use crate::SpecVector;
use warpforge_contract::units::crown::pack_thi;
use warpforge_contract::units::crown_l2::NAME;

/// Thread-index word of a w = 8, 7-bit warp with `thi` on the lanes of `lanes`.
fn thi(lanes: u64, each: u64) -> u64 {
    let v: Vec<u64> = (0..8)
        .map(|l| if lanes >> l & 1 == 1 { each } else { 0 })
        .collect();
    pack_thi(&v, 7)[0]
}

/// `dbg_state` of `n` rows from the states written two bits per row (row r at bits 2r, as
/// read in the comments): the port holds them as two bit-planes (bit 0 of row r at bit r,
/// bit 1 at bit n + r).
fn planes(n: usize, rows: u64) -> u64 {
    (0..n)
        .map(|r| (rows >> (2 * r) & 1) << r | (rows >> (2 * r + 1) & 1) << (n + r))
        .sum()
}

fn st16(rows: u64) -> u64 {
    planes(16, rows)
}

fn st4(rows: u64) -> u64 {
    planes(4, rows)
}

/// Inputs of an insert.
fn ins(pc: u64, lanes: u64, t: u64) -> Vec<(&'static str, u64)> {
    vec![
        ("ins_valid", 1),
        ("ins_pc", pc),
        ("ins_lanes", lanes),
        ("ins_thi", thi(lanes, t)),
    ]
}

/// Inputs of a commit update (`write`: pc and lanes written).
fn upd(row: u64, state: u64, write: Option<(u64, u64)>) -> Vec<(&'static str, u64)> {
    let mut v = vec![("upd_valid", 1), ("upd_row", row), ("upd_state", state)];
    if let Some((pc, lanes)) = write {
        v.extend([("upd_wr", 1), ("upd_pc", pc), ("upd_lanes", lanes)]);
    }
    v
}

fn iss(row: u64) -> Vec<(&'static str, u64)> {
    vec![("iss_valid", 1), ("iss_row", row)]
}

fn pop() -> Vec<(&'static str, u64)> {
    vec![("pop", 1)]
}

/// Expected refill result.
fn out(row: u64, pc: u64, lanes: u64, thi_word: u64) -> Vec<(&'static str, u64)> {
    vec![
        ("out_valid", 1),
        ("out_row", row),
        ("out_pc", pc),
        ("out_lanes", lanes),
        ("out_thi", thi_word),
    ]
}

fn no_out() -> Vec<(&'static str, u64)> {
    vec![
        ("out_valid", 0),
        ("out_row", 0),
        ("out_pc", 0),
        ("out_lanes", 0),
        ("out_thi", 0),
    ]
}

fn cat(parts: &[Vec<(&'static str, u64)>]) -> Vec<(&'static str, u64)> {
    parts.concat()
}

/// T0 → T1 → T2 → T3 on two warps: inserts take the lowest free rows and queue in order; a
/// pop shows the row's payload one cycle later (RAM latency) and the row leaves the ready
/// count at once; issue makes it waiting-exec; a commit writes the next PC with a dropped
/// lane and makes it ready at the FIFO's tail; the dropped lane's thread index reads 0.
fn transitions() -> SpecVector {
    let a = thi(0xff, 5);
    Vb::new(
        "crown §3.3 T0-T3: insert, refill with 1-cycle RAM latency, issue, commit (n2=16)",
        NAME,
        &["n2=16"],
    )
    .reset()
    .cycle(
        &ins(0x100, 0xff, 5),
        &cat(&[
            vec![
                ("ins_row", 0),
                ("full", 0),
                ("ready_count", 0),
                ("free_count", 16),
                ("occupancy", 0),
            ],
            no_out(),
        ]),
    )
    .cycle(
        &ins(0x200, 0x0f, 1),
        &[
            ("ins_row", 1),
            ("ready_count", 1),
            ("free_count", 15),
            ("occupancy", 1),
            ("dbg_head", 0),
            ("dbg_state", st16(0b01)),
        ],
    )
    // T1: the head (row 0) leaves the FIFO at this edge...
    .cycle(
        &pop(),
        &[
            ("ready_count", 2),
            ("dbg_state", st16(0b0101)),
            ("dbg_in_pool", 0),
            ("out_valid", 0),
        ],
    )
    // ...and its payload shows one cycle later, the row marked in the pool.
    .cycle(
        &[],
        &cat(&[
            out(0, 0x100, 0xff, a),
            vec![("ready_count", 1), ("dbg_in_pool", 1), ("dbg_head", 1)],
        ]),
    )
    // T2: issued → waiting-exec, out of the pool.
    .cycle(
        &iss(0),
        &cat(&[
            no_out(),
            vec![("ready_count", 1), ("dbg_state", st16(0b0101))],
        ]),
    )
    // T3: commit, uniform, next PC, lane 7 dropped (it arrived at a barrier).
    .cycle(
        &upd(0, 1, Some((0x101, 0x7f))),
        &[
            ("dbg_state", st16(0b0110)),
            ("dbg_in_pool", 0),
            ("ready_count", 1),
        ],
    )
    .cycle(
        &pop(),
        &[
            ("ready_count", 2),
            ("dbg_head", 1),
            ("dbg_state", st16(0b0101)),
        ],
    )
    .cycle(
        &pop(),
        &cat(&[
            out(1, 0x200, 0x0f, thi(0x0f, 1)),
            vec![("ready_count", 1), ("dbg_head", 0), ("dbg_in_pool", 0b10)],
        ]),
    )
    .cycle(
        &[],
        &cat(&[
            out(0, 0x101, 0x7f, thi(0x7f, 5)),
            vec![("ready_count", 0), ("dbg_in_pool", 0b11), ("dbg_head", 0)],
        ]),
    )
    .cycle(&[], &no_out())
    .done()
}

/// §3.4.2: rows becoming ready in one cycle are pushed in ascending index — an insert below
/// the updated row and an update below the inserted row — and popped in that order.
fn ascending_pushes() -> SpecVector {
    let mut v = Vb::new(
        "crown §3.4.2 ready FIFO: same-cycle pushes in ascending index (n2=16)",
        NAME,
        &["n2=16"],
    )
    .reset();
    for r in 0..4u64 {
        v = v.cycle(&ins(0x10 + r, 1 << r, 0), &[("ins_row", r)]);
    }
    v = v
        .cycle(&pop(), &[("ready_count", 4), ("dbg_head", 0)])
        .cycle(&cat(&[pop(), iss(0)]), &[("out_row", 0)])
        .cycle(&cat(&[pop(), iss(1)]), &[("out_row", 1)])
        .cycle(&cat(&[pop(), iss(2)]), &[("out_row", 2)])
        .cycle(
            &iss(3),
            &[
                ("out_row", 3),
                ("dbg_state", st16(0b01_10_10_10)),
                ("ready_count", 0),
            ],
        )
        // Exit: row 0 freed.
        .cycle(
            &upd(0, 0, None),
            &[("dbg_state", st16(0b10_10_10_10)), ("dbg_in_pool", 0)],
        )
        // Insert into row 0 and row 3 back to ready: pushes 0, 3.
        .cycle(
            &cat(&[ins(0x20, 0x01, 1), upd(3, 1, None)]),
            &[("ins_row", 0), ("dbg_state", st16(0b10_10_10_00))],
        )
        .cycle(
            &upd(2, 0, None),
            &[
                ("ready_count", 2),
                ("dbg_head", 0),
                ("dbg_state", st16(0b01_10_10_01)),
            ],
        )
        // Insert into row 2 and row 1 back to ready: pushes 1, 2.
        .cycle(
            &cat(&[ins(0x21, 0x04, 1), upd(1, 1, None)]),
            &[("ins_row", 2), ("dbg_state", st16(0b01_00_10_01))],
        )
        .cycle(
            &pop(),
            &[
                ("ready_count", 4),
                ("dbg_head", 0),
                ("dbg_state", st16(0b01_01_01_01)),
            ],
        )
        .cycle(&pop(), &out(0, 0x20, 0x01, thi(0x01, 1)))
        .cycle(&pop(), &out(3, 0x13, 0x08, 0))
        .cycle(&pop(), &out(1, 0x11, 0x02, 0))
        .cycle(
            &[],
            &cat(&[out(2, 0x21, 0x04, thi(0x04, 1)), vec![("ready_count", 0)]]),
        )
        .cycle(&[], &no_out());
    v.done()
}

/// A full table (ins_row 0 and full while no row is free), a pop of an empty FIFO (no
/// effect), `__syncthreads` (waiting-sync, then T10 back to ready), exit freeing a row.
fn full_sync_exit() -> SpecVector {
    Vb::new(
        "crown §3.3 T10 and exit; full, lowest free row, pop on empty (n2=4, pool=2)",
        NAME,
        &["n2=4", "pool=2"],
    )
    .reset()
    .cycle(
        &pop(),
        &[("ready_count", 0), ("free_count", 4), ("ins_row", 0)],
    )
    .cycle(&ins(0x40, 0x01, 2), &cat(&[no_out(), vec![("ins_row", 0)]]))
    .cycle(&ins(0x41, 0x02, 2), &[("ins_row", 1)])
    .cycle(&ins(0x42, 0x04, 2), &[("ins_row", 2)])
    .cycle(
        &ins(0x43, 0x08, 2),
        &[("ins_row", 3), ("full", 0), ("free_count", 1)],
    )
    .cycle(
        &pop(),
        &[
            ("full", 1),
            ("ins_row", 0),
            ("free_count", 0),
            ("occupancy", 4),
            ("ready_count", 4),
        ],
    )
    .cycle(&iss(0), &[("out_row", 0), ("ready_count", 3)])
    // __syncthreads: waiting-sync, then released (T10): ready at the tail.
    .cycle(&upd(0, 3, None), &[("dbg_state", st4(0b01_01_01_10))])
    .cycle(&upd(0, 1, None), &[("dbg_state", st4(0b01_01_01_11))])
    .cycle(
        &pop(),
        &[
            ("dbg_state", st4(0b01_01_01_01)),
            ("ready_count", 4),
            ("dbg_head", 1),
        ],
    )
    .cycle(
        &iss(1),
        &cat(&[
            out(1, 0x41, 0x02, thi(0x02, 2)),
            vec![("ready_count", 3), ("dbg_head", 2)],
        ]),
    )
    // Exit: row 1 freed; the next cycle it is the lowest free row.
    .cycle(
        &upd(1, 0, None),
        &[("full", 1), ("dbg_state", st4(0b01_01_10_01))],
    )
    .cycle(
        &[],
        &[
            ("full", 0),
            ("ins_row", 1),
            ("free_count", 1),
            ("occupancy", 3),
            ("dbg_state", st4(0b01_01_00_01)),
        ],
    )
    .done()
}

/// Table 4-1's geometry (512 rows, 32-bit PC, 8 × 7-bit thread indices): the widest values
/// round-trip through the RAM.
fn thesis_geometry() -> SpecVector {
    let all = thi(0xff, 0x7f);
    let mut v = Vb::new(
        "crown Table 4-1 geometry: 512 rows, 90-bit payload round trip (defaults)",
        NAME,
        &[],
    )
    .reset();
    v = v.cycle(
        &ins(0xffff_ffff, 0xff, 0x7f),
        &[("ins_row", 0), ("free_count", 512), ("ready_count", 0)],
    );
    v = v
        .cycle(&pop(), &[("ready_count", 1), ("occupancy", 1)])
        .cycle(&[], &out(0, 0xffff_ffff, 0xff, all))
        .cycle(&iss(0), &no_out())
        .cycle(&upd(0, 1, Some((0x8000_0001, 0x81))), &[])
        .cycle(&pop(), &[("ready_count", 1)])
        .cycle(
            &[],
            &cat(&[
                out(0, 0x8000_0001, 0x81, thi(0x81, 0x7f)),
                vec![("ready_count", 0)],
            ]),
        );
    v.done()
}

/// The directed vectors of `crown-l2`.
pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        transitions(),
        ascending_pushes(),
        full_sync_exit(),
        thesis_geometry(),
    ]
}
