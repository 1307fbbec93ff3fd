//! Spec vectors of `msap-pl`: T-1, the §4.1 / §2.2 quantiser table walked up from 0 to 32
//! entries and back, with allocations and fills in the same cycle, `pl` one cycle behind
//! `mshr_occ` (§3.1); merged secondary misses not counted; a primary miss refused when the
//! table is full. Expected values are written out by hand from the spec's table.

use crate::dwr::Vb;
use crate::SpecVector;
use warpforge_contract::units::msap_pl::NAME;

/// §2.2's table: the PL of occupancy 0 ..= 32 (28–32 → 7).
const PL_OF_OCC: [u64; 33] = [
    0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7,
    7,
];

fn t1() -> SpecVector {
    let mut b = Vb::new(
        "msap §4.1 T-1 quantiser: occupancy 0..32 and back, PL one cycle behind",
        NAME,
        &[],
    )
    .reset();
    let state = |occ: usize, prev: usize| vec![("mshr_occ", occ as u64), ("pl", PL_OF_OCC[prev])];
    // Up: one allocation per cycle; every third cycle a merged miss in between and an
    // allocation plus a fill (occupancy unchanged).
    let (mut occ, mut prev) = (0usize, 0usize);
    while occ < 32 {
        let mut e = state(occ, prev);
        e.extend([("accept", 1), ("rsv_fail", 0)]);
        b = b.cycle(&[("miss", 1)], &e);
        prev = occ;
        occ += 1;
        if occ % 3 == 0 {
            b = b.cycle(
                &[("miss", 1), ("merge", 1)],
                &[state(occ, prev), vec![("accept", 1)]].concat(),
            );
            prev = occ;
            b = b.cycle(&[("miss", 1), ("fill", 1)], &state(occ, prev));
        }
    }
    // Full: a primary miss is refused (even with a fill in the same cycle), a merge is not.
    b = b.cycle(
        &[("miss", 1)],
        &[state(32, 31), vec![("accept", 0), ("rsv_fail", 1)]].concat(),
    );
    b = b.cycle(
        &[("miss", 1), ("fill", 1)],
        &[state(32, 32), vec![("accept", 0), ("rsv_fail", 1)]].concat(),
    );
    prev = 32;
    occ = 31;
    b = b.cycle(
        &[("miss", 1), ("merge", 1)],
        &[state(occ, prev), vec![("accept", 1), ("rsv_fail", 0)]].concat(),
    );
    prev = occ;
    // Down: one fill per cycle.
    while occ > 0 {
        b = b.cycle(&[("fill", 1)], &state(occ, prev));
        prev = occ;
        occ -= 1;
    }
    b = b.cycle(&[], &state(0, 1));
    b.cycle(&[], &state(0, 0)).done()
}

/// Two-bit PLs, no shift, four entries: PL = min(3, occ).
fn small() -> SpecVector {
    let mut b = Vb::new(
        "msap §2.2 quantiser with pl_bits=2, pl_shift=0, 4 entries",
        NAME,
        &["mshr_entries=4", "pl_bits=2", "pl_shift=0"],
    )
    .reset();
    let rows: [(u64, u64); 7] = [(0, 0), (1, 0), (2, 1), (3, 2), (4, 3), (4, 3), (4, 3)];
    for (occ, pl) in rows {
        b = b.cycle(
            &[("miss", 1)],
            &[
                ("mshr_occ", occ),
                ("pl", pl),
                ("rsv_fail", (occ == 4) as u64),
            ],
        );
    }
    b.done()
}

pub fn spec_vectors() -> Vec<SpecVector> {
    vec![t1(), small()]
}
