//! Directed simulations of the standalone dwr-pst, dwr-sco and dwr-ilt units (Icarus
//! Verilog), from the vectors of docs/dwr.md §8.10 and §8.15.

mod dwr_harness;

use dwr_harness::*;
use warpforge_contract::units::{dwr_ilt, dwr_pst, dwr_sco};
use warpforge_contract::Params;

fn params(unit: &str, specs: &[warpforge_contract::params::ParamSpec], sets: &[&str]) -> Params {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Params::resolve(unit, specs, None, &sets).unwrap()
}

fn pst_sim(sets: &[&str]) -> Option<Sim> {
    let c = dwr_pst::PstConfig::from_params(&params(dwr_pst::NAME, dwr_pst::PARAMS, sets)).unwrap();
    let mut sim = Sim::start(&warpforge_hdl::dwr_pst::generate(&c), &c.ports())?;
    sim.step(&[("reset", val(1))]);
    Some(sim)
}

fn arrive(sw: u64, pc: u64, hit: bool, valid: u64, blockbar: u64) -> Vec<(&'static str, Val)> {
    vec![
        ("arr_valid", val(1)),
        ("arr_sw", val(sw)),
        ("arr_pc", val(pc)),
        ("arr_hit", val(hit as u64)),
        ("sw_valid", val(valid)),
        ("sw_blockbar", val(blockbar)),
    ]
}

#[test]
fn pst_worked_example_rows_open_lock_release() {
    let Some(mut sim) = pst_sim(&["threads=32", "group_size=4"]) else {
        return;
    };
    // §4.4: A (0) arrives at P = 10 with B (1) exited and D (3) never launched.
    let o = sim.step(&arrive(0, 10, false, 0b0101, 0));
    assert_eq!(
        (o.get("rel"), o.get("arr_mismatch"), o.get("released")),
        (0, 0, 0)
    );
    // C (2) arrives at the same PC: Eq. 5-1 holds, both are released, the row clears.
    let o = sim.step(&arrive(2, 10, false, 0b0101, 0));
    assert_eq!(
        (o.get("dbg_valid"), o.get("dbg_pc"), o.get("dbg_lock")),
        (1, 10, 0b0001)
    );
    assert_eq!(
        (o.get("rel"), o.get("released"), o.get("rel_d4")),
        (1, 0b0101, 0)
    );
    let o = sim.step(&[("sw_valid", val(0b0101))]);
    assert_eq!(
        (o.get("dbg_valid"), o.get("dbg_pc"), o.get("dbg_lock")),
        (0, 0, 0)
    );
}

#[test]
fn pst_exit_alone_releases_and_d4_counts_blocked_partners() {
    let Some(mut sim) = pst_sim(&["threads=32", "group_size=4"]) else {
        return;
    };
    // S4: sub-warp 0 waits; the others exit without a barrier.
    let o = sim.step(&arrive(0, 7, false, 0b1111, 0));
    assert_eq!(o.get("rel"), 0);
    let o = sim.step(&[("sw_valid", val(0b0111))]);
    assert_eq!(o.get("rel"), 0);
    let o = sim.step(&[("sw_valid", val(0b0001))]);
    assert_eq!(
        (o.get("rel"), o.get("released"), o.get("rel_d4")),
        (1, 0b0001, 0)
    );
    // D4: sub-warp 3 is the only partner not at a barrier, and it blocks in __syncthreads.
    sim.step(&arrive(0, 7, false, 0b1111, 0));
    sim.step(&arrive(1, 7, false, 0b1111, 0));
    let o = sim.step(&arrive(2, 9, false, 0b1111, 0));
    assert_eq!((o.get("arr_mismatch"), o.get("rel")), (1, 0));
    let o = sim.step(&[("sw_valid", val(0b1111)), ("sw_blockbar", val(0b1000))]);
    assert_eq!((o.get("dbg_pc"), o.get("dbg_lock")), (7, 0b0111));
    assert_eq!(
        (o.get("rel"), o.get("rel_d4"), o.get("released")),
        (1, 1, 0b0111)
    );
}

#[test]
fn pst_hit_bypasses_and_out_of_range_is_ignored() {
    let Some(mut sim) = pst_sim(&["threads=48", "group_size=2"]) else {
        return;
    };
    let o = sim.step(&arrive(4, 3, true, 0b111111, 0));
    assert_eq!((o.get("rel"), o.get("arr_mismatch")), (0, 0));
    let o = sim.step(&arrive(7, 3, false, 0b111111, 0)); // N = 6: no such sub-warp
    assert_eq!((o.get("dbg_valid"), o.get("rel")), (0, 0));
    let o = sim.step(&arrive(4, 3, false, 0b111111, 0));
    assert_eq!(o.get("dbg_valid"), 0);
    // Several rows released by one cycle of exits.
    sim.step(&arrive(0, 5, false, 0b111111, 0));
    let o = sim.step(&[("sw_valid", val(0b010101))]);
    assert_eq!(o.get("dbg_valid"), 0b101);
    assert_eq!((o.get("rel"), o.get("released")), (0b101, 0b010001));
    assert_eq!(o.field("dbg_pc", 2, 32), 3);
}

fn sco_sim(sets: &[&str]) -> Option<Sim> {
    let c = dwr_sco::ScoConfig::from_params(&params(dwr_sco::NAME, dwr_sco::PARAMS, sets)).unwrap();
    Sim::start(&warpforge_hdl::dwr_sco::generate(&c), &c.ports())
}

fn select(sel: u64, cr: u64, matched: u64, pcs: [u64; 4]) -> Vec<(&'static str, Val)> {
    let grp_pc: u64 = pcs.iter().enumerate().map(|(j, &p)| p << (16 * j)).sum();
    vec![
        ("sel_valid", val(1)),
        ("sel_sw", val(sel)),
        ("cr", val(cr)),
        ("matched", val(matched)),
        ("grp_pc", val(grp_pc)),
        ("grp_mask", val(0x00FF_FFFF)),
    ]
}

#[test]
fn sco_fuses_exactly_the_combine_ready_partners_at_the_pc() {
    let Some(mut sim) = sco_sim(&["threads=32", "group_size=4", "pc_bits=16"]) else {
        return;
    };
    let o = sim.step(&select(0, 0b0101, 0, [11, 15, 11, 0]));
    assert_eq!(
        (
            o.get("bundle_fused"),
            o.get("bundle_members"),
            o.get("bundle_size")
        ),
        (1, 0b0101, 2)
    );
    assert_eq!(
        (o.get("bundle_pc"), o.get("bundle_mask")),
        (11, 0x00FF_00FF)
    );
    let o = sim.step(&select(0, 0b0101, 0, [11, 15, 12, 0]));
    assert_eq!((o.get("bundle_members"), o.get("bundle_size")), (0b0001, 1));
    let o = sim.step(&select(0, 0, 0, [11, 15, 11, 0]));
    assert_eq!(
        (o.get("bundle_fused"), o.get("bundle_members")),
        (0, 0b0001)
    );
    assert_eq!(o.get("bundle_mask"), 0xFF);
    let o = sim.step(&select(2, 0b0101, 0, [11, 15, 11, 0]));
    assert_eq!((o.get("bundle_members"), o.get("bundle_pc")), (0b0101, 11));
    let o = sim.step(&[]);
    for port in [
        "bundle_valid",
        "bundle_members",
        "bundle_size",
        "bundle_pc",
        "bundle_mask",
    ] {
        assert_eq!(o.get(port), 0, "{port}");
    }
}

#[test]
fn sco_matched_mode_uses_the_matched_bits() {
    let Some(mut sim) = sco_sim(&[
        "threads=32",
        "group_size=4",
        "pc_bits=16",
        "sco_match=matched",
    ]) else {
        return;
    };
    let o = sim.step(&select(0, 0b0101, 0b0100, [11, 15, 11, 0]));
    assert_eq!(o.get("bundle_members"), 0b0001);
    let o = sim.step(&select(2, 0b0101, 0b0100, [11, 15, 11, 0]));
    assert_eq!(o.get("bundle_members"), 0b0100);
    let o = sim.step(&select(0, 0b0101, 0b0101, [11, 15, 12, 0]));
    assert_eq!((o.get("bundle_members"), o.get("bundle_size")), (0b0101, 2));
}

fn ilt_sim(sets: &[&str]) -> Option<Sim> {
    let c = dwr_ilt::IltConfig::from_params(&params(dwr_ilt::NAME, dwr_ilt::PARAMS, sets)).unwrap();
    let mut sim = Sim::start(&warpforge_hdl::dwr_ilt::generate(&c), &c.ports())?;
    sim.step(&[("reset", val(1))]);
    Some(sim)
}

#[test]
fn ilt_fifo_fill_eviction_and_relearning() {
    let Some(mut sim) = ilt_sim(&[]) else {
        return;
    };
    // S9 as plain inserts: PCs 4i all map to set 0 with tag i.
    for i in 1..=9u64 {
        let o = sim.step(&[("ins_valid", val(1)), ("ins_pc", val(4 * i))]);
        assert_eq!(o.get("ins_written"), 1, "insert {i}");
        assert_eq!(o.get("ins_evict"), u64::from(i == 9), "insert {i}");
    }
    let o = sim.step(&[("lookup_pc", val(4))]);
    assert_eq!(o.get("hit"), 0, "PC 4 was evicted");
    assert_eq!(o.field("dbg_ptr", 0, 3), 1);
    let o = sim.step(&[
        ("ins_valid", val(1)),
        ("ins_pc", val(4)),
        ("lookup_pc", val(8)),
    ]);
    assert_eq!(
        (o.get("ins_written"), o.get("ins_evict"), o.get("hit")),
        (1, 1, 1)
    );
    let o = sim.step(&[("lookup_pc", val(8))]);
    assert_eq!(o.get("hit"), 0, "PC 8 was evicted by the re-learned PC 4");
    let tags: Vec<u64> = (0..8).map(|v| o.field("dbg_tag", v, 30)).collect();
    assert_eq!(tags, vec![9, 1, 3, 4, 5, 6, 7, 8]);
    assert_eq!(o.get("dbg_valid"), 0xFF);
}

#[test]
fn ilt_three_requests_in_order_lookup_sees_registered_table_flush() {
    let Some(mut sim) = ilt_sim(&["insert_ports=3", "pc_bits=16"]) else {
        return;
    };
    let three = |a: u64, b: u64, c: u64| val(a | (b << 16) | (c << 32));
    // The same PC three times: one write. A lookup in that cycle still misses.
    let o = sim.step(&[
        ("ins_valid", val(0b111)),
        ("ins_pc", three(6, 6, 6)),
        ("lookup_pc", val(6)),
    ]);
    assert_eq!((o.get("ins_written"), o.get("hit")), (0b001, 0));
    let o = sim.step(&[("lookup_pc", val(6))]);
    assert_eq!(o.get("hit"), 1);
    assert_eq!(o.get("dbg_valid"), 1 << 16); // set 2, way 0
                                             // Two new PCs of one set and a duplicate, in order.
    let o = sim.step(&[("ins_valid", val(0b111)), ("ins_pc", three(10, 6, 14))]);
    assert_eq!(o.get("ins_written"), 0b101);
    let o = sim.step(&[]);
    assert_eq!(o.get("dbg_valid"), 0b111 << 16);
    assert_eq!(o.field("dbg_ptr", 2, 3), 3);
    // A flush discards the cycle's inserts and empties the table.
    let o = sim.step(&[
        ("flush", val(1)),
        ("ins_valid", val(0b001)),
        ("ins_pc", three(3, 0, 0)),
    ]);
    assert_eq!(o.get("ins_written"), 0);
    let o = sim.step(&[]);
    assert_eq!((o.get("dbg_valid"), o.get("dbg_ptr")), (0, 0));
}

#[test]
fn ilt_indexes_the_instruction_index_and_may_persist() {
    let Some(mut sim) = ilt_sim(&["ilt_sets=2", "ilt_ways=4", "pc_shift=3", "ilt_flush=false"])
    else {
        return;
    };
    // Byte PCs of 8-byte instructions: 0x18 is instruction 3, set 1, tag 1.
    sim.step(&[("ins_valid", val(1)), ("ins_pc", val(0x18))]);
    let o = sim.step(&[("lookup_pc", val(0x1F)), ("flush", val(1))]);
    assert_eq!(o.get("hit"), 1, "the low pc_shift bits are ignored");
    assert_eq!(o.get("dbg_valid"), 1 << 4);
    assert_eq!(o.field("dbg_tag", 4, 28), 1);
    let o = sim.step(&[("lookup_pc", val(0x08))]);
    assert_eq!(
        (o.get("hit"), o.get("dbg_valid")),
        (0, 1 << 4),
        "flush ignored"
    );
}
