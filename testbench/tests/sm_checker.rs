//! The SM retirement-record checker, driven by a reference "SM" that steps a second
//! interpreter warp by warp: faithful records pass, and each corrupted field is reported at
//! the right record, lane and field.

use warpforge_testbench::isa::{assemble, AsmOptions, Launch, Machine, StepOutcome};
use warpforge_testbench::sm::{Checker, Record};

const SRC: &str = "
.kernel k
.regs 6
.param out, n
        mov.u32     %r0, %tid.x
        ld.param.u32 %r1, [out]
        shl.b32     %r2, %r0, 2
        add.s32     %r1, %r1, %r2
        mul.lo.s32  %r3, %r0, %r0
        setp.lt.u32 %p1, %r0, 5
   @%p1 add.s32     %r3, %r3, 100
        mov.u32     %r4, %clock
        st.global.u32 [%r1], %r3
        exit
";

fn machine() -> Machine {
    let p = assemble(SRC, "k.s", &AsmOptions::default()).unwrap();
    let l = Launch::new([2, 1, 1], [16, 1, 1])
        .buffer("out", vec![0; 32])
        .param("n", 32);
    Machine::new(&p, &l).unwrap()
}

/// Records of a straight-line kernel: warps of 8 in turn, one instruction each.
fn records() -> Vec<Record> {
    let mut m = machine();
    let mut out = Vec::new();
    let mut cycle = 0;
    for cta in 0..2u64 {
        let mut live = true;
        while live {
            live = false;
            for warp in 0..2u32 {
                let mut r = Record {
                    cycle,
                    cta,
                    warp,
                    values: vec![0; 8],
                    st_addr: vec![0; 8],
                    st_data: vec![0; 8],
                    clock: 1000 + cycle as u32,
                    ..Record::default()
                };
                for lane in 0..8 {
                    let t = warp * 8 + lane as u32;
                    let StepOutcome::Retired(ret) = m.step(cta, t).unwrap() else {
                        continue;
                    };
                    live = true;
                    r.pc = ret.pc;
                    r.mask |= 1 << lane;
                    if !ret.executed {
                        continue;
                    }
                    r.exec |= 1 << lane;
                    if let Some((d, v)) = ret.reg_write {
                        r.rd_we = true;
                        r.rd = d;
                        r.values[lane] = v;
                        if ret.instr.a_sreg && ret.instr.a == 15 {
                            r.values[lane] = r.clock;
                            m.set_reg(cta, t, d, r.clock);
                        }
                    }
                    if let Some((d, v)) = ret.pred_write {
                        r.pd_we = true;
                        r.pd = d;
                        r.pvalues |= (v as u64) << lane;
                    }
                    if let Some(w) = ret.mem_write {
                        r.st_we = true;
                        r.st_addr[lane] = w.addr;
                        r.st_data[lane] = w.value;
                    }
                }
                if r.mask != 0 {
                    out.push(r);
                    cycle += 3;
                }
            }
        }
    }
    out
}

fn run(recs: &[Record]) -> Result<Checker, warpforge_testbench::sm::Mismatch> {
    let mut c = Checker::new(machine(), 8);
    for r in recs {
        c.check(r)?;
    }
    Ok(c)
}

#[test]
fn faithful_records_pass_and_every_block_finishes() {
    let recs = records();
    assert_eq!(recs.len(), 2 * 2 * 10);
    let c = run(&recs).unwrap();
    c.finish().unwrap();
    assert_eq!(c.records, 40);
    assert_eq!(c.thread_steps, 40 * 8);
    // The guarded add ran in tid 0..5 of each block only.
    assert_eq!(c.active_lanes, 40 * 8 - 2 * (16 - 5));
    let out = c.machine.buffer("out").unwrap();
    assert_eq!(out[7], 49);
    assert_eq!(out[3], 109);
}

#[test]
fn a_wrong_lane_value_is_reported_at_its_record_lane_and_field() {
    let mut recs = records();
    // The mul.lo of block 1, warp 1 (pc 4): lane 3 is thread 11, expected 121.
    let i = recs
        .iter()
        .position(|r| r.cta == 1 && r.warp == 1 && r.pc == 4)
        .unwrap();
    recs[i].values[3] += 1;
    let e = run(&recs).err().unwrap();
    assert_eq!(
        (e.cta, e.warp, e.pc, e.lane, e.field),
        (1, 1, 4, Some(3), "value")
    );
    assert_eq!((e.expected.as_str(), e.actual.as_str()), ("0x79", "0x7a"));
    assert!(e.to_string().contains("mul.lo.s32"), "{e}");
}

#[test]
fn guard_destination_store_and_clock_differences_are_caught() {
    let base = records();
    let at = |pc: u32| {
        base.iter()
            .position(|r| r.cta == 0 && r.warp == 0 && r.pc == pc)
            .unwrap()
    };
    let cases: Vec<(usize, Box<dyn Fn(&mut Record)>, &str)> = vec![
        (at(6), Box::new(|r| r.exec |= 1 << 6), "guard"),
        (at(4), Box::new(|r| r.rd = 2), "destination"),
        (at(5), Box::new(|r| r.pvalues ^= 1 << 7), "predicate"),
        (at(8), Box::new(|r| r.st_addr[2] += 4), "store address"),
        (at(8), Box::new(|r| r.st_data[1] ^= 1), "store data"),
        (at(8), Box::new(|r| r.st_shared = true), "store"),
        (at(7), Box::new(|r| r.values[0] = r.clock + 1), "clock"),
        (at(3), Box::new(|r| r.pc = 4), "pc"),
        (at(3), Box::new(|r| r.mask = 0), "mask"),
    ];
    for (i, corrupt, field) in cases {
        let mut recs = base.clone();
        corrupt(&mut recs[i]);
        let e = run(&recs)
            .err()
            .unwrap_or_else(|| panic!("{field} not caught"));
        assert_eq!(e.field, field, "{e}");
        assert_eq!(e.cycle, base[i].cycle);
    }
}

#[test]
fn a_thread_run_twice_or_a_record_dropped_is_caught() {
    let mut recs = records();
    let dup = recs[recs.len() - 1].clone();
    recs.push(dup);
    assert_eq!(run(&recs).err().unwrap().field, "state");
    let mut recs = records();
    recs.remove(5);
    assert_eq!(run(&recs).err().unwrap().field, "pc");
    let mut recs = records();
    recs.pop();
    let c = run(&recs).unwrap();
    assert!(c.finish().unwrap_err().contains("1 of 2 blocks"));
}
