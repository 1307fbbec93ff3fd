//! Smoke tests of the SM RTL under Verilator: small hand-written kernels, memory served from a
//! Vec, results checked against host-side references. (The full harness — every retirement
//! record checked against the interpreter — is `warpforge run <kernel> --rtl`.)

use warpforge_contract::manifest::Layout;
use warpforge_contract::params::Params;
use warpforge_contract::units::sm::{SmConfig, NAME, PARAMS};
use warpforge_cosim::verilator::{build, Rtl};
use warpforge_testbench::isa::asm::{assemble, AsmOptions};

const BASE: u32 = 0x1000;

fn cfg(sets: &[&str]) -> (SmConfig, Params) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = Params::resolve(NAME, PARAMS, None, &sets).unwrap();
    (SmConfig::from_params(&p).unwrap(), p)
}

struct Sim {
    rtl: Rtl,
    layout: Layout,
    inp: Vec<u64>,
    out: Vec<u64>,
    cycle: u64,
}

impl Sim {
    fn new(c: &SmConfig, p: &Params) -> Sim {
        let design = warpforge_hdl::sm::generate(c);
        let manifest = c.manifest(p);
        let compiled = build(&design, &manifest, false).expect("verilator build");
        let layout = manifest.layout();
        let rtl = Rtl::load(&compiled, &layout, 1).unwrap();
        Sim {
            rtl,
            inp: vec![0; layout.in_words],
            out: vec![0; layout.out_words],
            layout,
            cycle: 0,
        }
    }
    fn set(&mut self, name: &str, v: u64) {
        let s = self
            .layout
            .input(name)
            .unwrap_or_else(|| panic!("no input {name}"));
        self.inp[s.offset] = v & s.word_mask(0);
        for i in 1..s.words {
            self.inp[s.offset + i] = 0;
        }
    }
    fn set_words32(&mut self, name: &str, words: &[u32]) {
        let s = self.layout.input(name).unwrap().clone();
        for i in 0..s.words {
            self.inp[s.offset + i] = 0;
        }
        for (i, w) in words.iter().enumerate() {
            self.inp[s.offset + i / 2] |= (*w as u64) << (32 * (i % 2));
        }
    }
    fn get(&self, name: &str) -> u64 {
        let s = self
            .layout
            .output(name)
            .unwrap_or_else(|| panic!("no output {name}"));
        self.out[s.offset]
    }
    fn word32(&self, name: &str, i: usize) -> u32 {
        let s = self.layout.output(name).unwrap();
        (self.out[s.offset + i / 2] >> (32 * (i % 2))) as u32
    }
    fn step(&mut self) {
        let inp = self.inp.clone();
        self.rtl.run(&inp, &mut self.out);
        self.cycle += 1;
    }
}

struct Kernel {
    src: &'static str,
    grid: [u64; 3],
    block: [u64; 3],
    params: Vec<u32>,
}

/// Runs a kernel to `done`; returns global memory (words from BASE), the retirement count and
/// the cycle count. Memory: latency `lat` cycles, refuses every third request cycle.
fn run(sets: &[&str], k: &Kernel, mem: &mut [u32], lat: u64) -> (usize, u64) {
    let (c, p) = cfg(sets);
    let prog = assemble(k.src, "k.s", &AsmOptions::default()).expect("assembles");
    let mut sim = Sim::new(&c, &p);
    sim.set("reset", 1);
    sim.step();
    sim.step();
    sim.set("reset", 0);
    for (pc, ins) in prog.code.iter().enumerate() {
        sim.set("imem_we", 1);
        sim.set("imem_addr", pc as u64);
        sim.set("imem_wdata", ins.encode());
        sim.step();
    }
    sim.set("imem_we", 0);
    for (i, v) in k.params.iter().enumerate() {
        sim.set("param_we", 1);
        sim.set("param_addr", i as u64);
        sim.set("param_wdata", *v as u64);
        sim.step();
    }
    sim.set("param_we", 0);
    sim.set("k_regs", prog.regs as u64);
    sim.set("k_shared_words", (prog.shared_bytes / 4) as u64);
    for (n, v) in ["k_grid_x", "k_grid_y", "k_grid_z"].iter().zip(k.grid) {
        sim.set(n, v);
    }
    for (n, v) in ["k_block_x", "k_block_y", "k_block_z"].iter().zip(k.block) {
        sim.set(n, v);
    }
    sim.set("start", 1);
    sim.step();
    sim.set("start", 0);
    // Outstanding requests: (due cycle, op, addr, wdata, wmask).
    let mut queue: std::collections::VecDeque<(u64, u64, u32, Vec<u32>, u64)> = Default::default();
    let mut retired = 0;
    let idx = |a: u32| ((a - BASE) / 4) as usize;
    // SM_SMOKE_TRACE=N: print the retirement records and stop after N cycles.
    let trace: Option<u64> = std::env::var("SM_SMOKE_TRACE")
        .ok()
        .and_then(|v| v.parse().ok());
    let limit = trace.unwrap_or(2_000_000);
    for _ in 0..limit {
        // Inputs of this cycle from last cycle's outputs.
        let ready = !sim.cycle.is_multiple_of(3);
        sim.set("mreq_ready", ready as u64);
        sim.set("mresp_valid", 0);
        if let Some(front) = queue.front() {
            if front.0 <= sim.cycle {
                let (_, op, addr, wdata, wmask) = queue.pop_front().unwrap();
                let mut resp = vec![0u32; 16];
                match op {
                    0 => {
                        for (i, r) in resp.iter_mut().enumerate() {
                            *r = mem[idx(addr) + i];
                        }
                    }
                    1 => {
                        for (i, w) in wdata.iter().enumerate() {
                            if wmask >> i & 1 == 1 {
                                mem[idx(addr) + i] = *w;
                            }
                        }
                    }
                    _ => {
                        let old = mem[idx(addr)];
                        let (b, cc) = (wdata[0], wdata[1]);
                        mem[idx(addr)] = match op {
                            2 => old.wrapping_add(b),
                            3 => (old as i32).max(b as i32) as u32,
                            4 => old.max(b),
                            5 => b,
                            _ => {
                                if old == b {
                                    cc
                                } else {
                                    old
                                }
                            }
                        };
                        resp[0] = old;
                    }
                }
                sim.set("mresp_valid", 1);
                sim.set_words32("mresp_data", &resp);
            }
        }
        // The outputs read after a step are that cycle's (the SM's outputs are registered).
        sim.step();
        let (v, op, addr) = (
            sim.get("mreq_valid"),
            sim.get("mreq_op"),
            sim.get("mreq_addr"),
        );
        let wdata: Vec<u32> = (0..16).map(|i| sim.word32("mreq_wdata", i)).collect();
        let wmask = sim.get("mreq_wmask");
        if v == 1 && ready {
            queue.push_back((sim.cycle + lat, op, addr as u32, wdata, wmask));
        }
        if sim.get("ret_valid") == 1 {
            retired += 1;
            if trace.is_some() {
                eprintln!(
                    "cycle {} cta {} warp {} slot {} pc {} mask {:#x} exec {:#x} rd_we {} rd {} v0 {:#x}",
                    sim.cycle,
                    sim.get("ret_cta"),
                    sim.get("ret_warp"),
                    sim.get("ret_slot"),
                    sim.get("ret_pc"),
                    sim.get("ret_mask"),
                    sim.get("ret_exec"),
                    sim.get("ret_rd_we"),
                    sim.get("ret_rd"),
                    sim.word32("ret_values", 0)
                );
            }
        }
        assert_eq!(sim.get("fault"), 0, "fault code {}", sim.get("fault_code"));
        if sim.get("done") == 1 {
            assert!(queue.is_empty());
            return (retired, sim.get("cnt_cycles"));
        }
    }
    panic!("kernel did not finish");
}

const SMALL: &[&str] = &[
    "warps=4",
    "warp_size=8",
    "simd_width=8",
    "rf_kb=4",
    "shared_kb=1",
    "cta_slots=2",
    "pc_bits=8",
    "stack_depth=8",
];

const DIVERGE: &str = "
.kernel diverge
.regs 8
.param a, out, n
        mov.u32     %r0, %tid.x
        mov.u32     %r1, %ctaid.x
        mov.u32     %r2, %ntid.x
        mad.lo.s32  %r3, %r1, %r2, %r0
        ld.param.u32 %r4, [n]
        setp.ge.u32 %p0, %r3, %r4
        @%p0 bra    DONE
        ld.param.u32 %r5, [a]
        shl.b32     %r6, %r3, 2
        add.s32     %r5, %r5, %r6
        ld.global.u32 %r7, [%r5]
        and.b32     %r0, %r3, 1
        setp.eq.s32 %p1, %r0, 0
        @%p1 bra    EVEN
        mul.lo.s32  %r7, %r7, 3
        bra         JOIN
EVEN:   add.s32     %r7, %r7, 1000
JOIN:   ld.param.u32 %r5, [out]
        add.s32     %r5, %r5, %r6
        st.global.u32 [%r5], %r7
DONE:   exit
";

#[test]
fn divergent_kernel_over_several_ctas() {
    let n = 30u32;
    let mut mem = vec![0u32; 1024];
    for (i, m) in mem.iter_mut().enumerate().take(64) {
        *m = i as u32 * 7 + 1;
    }
    let k = Kernel {
        src: DIVERGE,
        grid: [4, 1, 1],
        block: [12, 1, 1],
        params: vec![BASE, BASE + 0x400, n],
    };
    let (retired, cycles) = run(SMALL, &k, &mut mem, 5);
    for i in 0..64usize {
        let a = i as u32 * 7 + 1;
        let want = if (i as u32) < n {
            if i % 2 == 0 {
                a + 1000
            } else {
                a * 3
            }
        } else {
            0
        };
        assert_eq!(mem[256 + i], want, "out[{i}]");
    }
    assert!(retired > 0 && cycles > 0);
}

const SHBAR: &str = "
.kernel shbar
.regs 8
.shared 256
.param out, cnt
        mov.u32     %r0, %tid.x
        shl.b32     %r1, %r0, 2
        add.s32     %r2, %r0, 5
        st.shared.u32 [%r1], %r2
        bar.sync    0
        mov.u32     %r3, %ntid.x
        add.s32     %r4, %r0, 1
        setp.ge.u32 %p0, %r4, %r3
        @%p0 mov.u32 %r4, 0
        shl.b32     %r4, %r4, 2
        ld.shared.u32 %r5, [%r4]
        mov.u32     %r6, %ctaid.x
        mad.lo.s32  %r7, %r6, %r3, %r0
        shl.b32     %r7, %r7, 2
        ld.param.u32 %r6, [out]
        add.s32     %r6, %r6, %r7
        st.global.u32 [%r6], %r5
        ld.param.u32 %r6, [cnt]
        mov.u32     %r2, 1
        atom.global.add.u32 %r7, [%r6], %r2
        atom.shared.add.u32 %r7, [%r1+128], %r2
        exit
";

fn shbar(sets: &[&str]) {
    let (grid, block) = (5u32, 20u32);
    let mut mem = vec![0u32; 1024];
    let k = Kernel {
        src: SHBAR,
        grid: [grid as u64, 1, 1],
        block: [block as u64, 1, 1],
        params: vec![BASE, BASE + 0x800],
    };
    run(sets, &k, &mut mem, 4);
    for c in 0..grid {
        for t in 0..block {
            let want = (t + 1) % block + 5;
            assert_eq!(mem[(c * block + t) as usize], want, "cta {c} thread {t}");
        }
    }
    assert_eq!(mem[0x200], grid * block, "atomic count");
}

#[test]
fn shared_barrier_atomics_lane_groups_two_schedulers() {
    shbar(&[
        "warps=8",
        "warp_size=8",
        "simd_width=2",
        "schedulers=2",
        "policy=lrr",
        "rf_kb=4",
        "shared_kb=1",
        "cta_slots=2",
        "pc_bits=8",
        "stack_depth=8",
    ]);
}

#[test]
fn shared_barrier_atomics_bar_gto() {
    shbar(&[
        "warps=8",
        "warp_size=8",
        "simd_width=4",
        "schedulers=1",
        "policy=bar-gto",
        "rf_kb=4",
        "shared_kb=1",
        "cta_slots=2",
        "pc_bits=8",
        "stack_depth=8",
    ]);
}

#[test]
fn shared_barrier_atomics_motrr_recency_two_schedulers() {
    shbar(&[
        "warps=8",
        "warp_size=8",
        "simd_width=4",
        "schedulers=2",
        "policy=motrr-recency",
        "rf_kb=4",
        "shared_kb=1",
        "cta_slots=2",
        "pc_bits=8",
        "stack_depth=8",
    ]);
}
