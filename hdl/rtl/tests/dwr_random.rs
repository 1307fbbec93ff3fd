//! Random programs on the `dwr` RTL (Icarus Verilog) with the spec's invariants (§8.1, as
//! docs/dwr.md §7 states them at unit level) checked on the outputs every cycle, and a drain
//! at the end of every kernel: every program ends in an exit, so every sub-warp must reach
//! EMPTY and every PST row must close (no deadlock, I-LIVENESS).

mod dwr_harness;

use dwr_harness::*;
use warpforge_contract::units::dwr::{self, DwrConfig};
use warpforge_contract::Params;

/// xorshift64*: a deterministic generator without dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A kernel: per sub-warp a random program of ALU, long, `bar.sync` and `bar.synch_partner` +
/// sensitive load pairs, ending in an exit. Barrier PCs come from a small pool so that
/// partners meet at one PC (fusion) and at different ones (mismatch, ILT learning), and most
/// of them fall into one ILT set (FIFO eviction).
fn kernel(rng: &mut Rng, subwarps: usize, pc_bits: usize) -> Vec<Vec<Inst>> {
    let pc_max = (1u64 << pc_bits) - 2;
    let pool: Vec<u64> = (0..12)
        .map(|i| if i < 9 { 4 * (i + 1) } else { 4 * i + 1 })
        .map(|p| p.min(pc_max))
        .collect();
    let syncs = rng.below(3);
    (0..subwarps)
        .map(|_| {
            let mut p = vec![];
            let len = 4 + rng.below(12);
            let mut sync_left = syncs;
            for _ in 0..len {
                match rng.below(10) {
                    0..=3 => {
                        let pc = pool[rng.below(pool.len() as u64) as usize];
                        p.push((BARP, pc));
                        p.push((LONG, pc + 1));
                    }
                    4..=5 => p.push((LONG, 50 % pc_max)),
                    6 if sync_left > 0 => {
                        sync_left -= 1;
                        p.push((BSYNC, 60 % pc_max));
                    }
                    _ => p.push((ALU, 70 % pc_max)),
                }
            }
            p.push((EXIT, 3));
            prog(&p)
        })
        .collect()
}

/// The invariants on one cycle's outputs (registered state) and the bundle it issued.
fn check(cfg: &DwrConfig, o: &Outs, driven_mask: &[u64], t: u64) {
    let g = &cfg.geometry;
    let (n, w, s_bits) = (g.subwarps(), g.group_size, g.subwarp_size);
    let st: Vec<u64> = (0..n).map(|s| o.field("dbg_state", s, 3)).collect();
    assert!(
        st.iter().all(|&x| x <= COMBINE_READY),
        "cycle {t}: bad state code"
    );
    for row in 0..g.groups() {
        let valid = o.bit("dbg_pst_valid", row);
        let lock = o.field("dbg_pst_lock", row, w);
        // I-LOCK, I-NOVALIDLOCK: a lock bit exactly for each WAIT_PARTNER member.
        for m in 0..w {
            let locked = (lock >> m) & 1 == 1;
            assert_eq!(
                locked,
                st[row * w + m] == WAIT_PARTNER,
                "cycle {t}: I-LOCK row {row} member {m}"
            );
        }
        // I-ROWNONEMPTY; an invalid row reads all zero.
        assert_eq!(valid, lock != 0, "cycle {t}: I-ROWNONEMPTY row {row}");
        // I-LIVENESS: no registered row satisfies Eq. 5-1.
        if valid {
            let arrived = (0..w).all(|m| {
                let x = st[row * w + m];
                x == EMPTY || x == WAIT_PARTNER || x == WAIT_BLOCKBAR
            });
            assert!(!arrived, "cycle {t}: I-LIVENESS row {row} could release");
        }
    }
    // I-ILT: no duplicate tag in a set, valid ways are 0 … ptr−1 until the set is full.
    let ilt = &cfg.ilt;
    for set in 0..ilt.sets {
        let ptr = o.field("dbg_ilt_ptr", set, ilt.ptr_bits()) as usize;
        let valid: Vec<bool> = (0..ilt.ways)
            .map(|v| o.bit("dbg_ilt_valid", set * ilt.ways + v))
            .collect();
        let tags: Vec<u64> = (0..ilt.ways)
            .filter(|&v| valid[v])
            .map(|v| o.field("dbg_ilt_tag", set * ilt.ways + v, ilt.tag_bits()))
            .collect();
        let mut dedup = tags.clone();
        dedup.sort_unstable();
        dedup.dedup();
        assert_eq!(dedup.len(), tags.len(), "cycle {t}: duplicate in set {set}");
        if !valid.iter().all(|&v| v) {
            assert!(
                (0..ilt.ways).all(|v| valid[v] == (v < ptr)),
                "cycle {t}: set {set} not filled in FIFO order"
            );
        }
    }
    // I-ISSUE, I-FUSE, I-SINGLE.
    let hold = o.get("dbg_hold");
    assert_eq!(
        o.get("slot_busy"),
        u64::from(o.get("issue_valid") == 1 || hold > 0),
        "cycle {t}"
    );
    if hold > 0 {
        assert_eq!(o.get("issue_valid"), 0, "cycle {t}: issue during a hold");
    }
    if o.get("issue_valid") == 1 {
        let sel = o.get("issue_sw") as usize;
        let group = o.get("issue_group") as usize;
        assert_eq!(group, sel / w);
        let members = o.get("issue_members");
        assert_eq!(
            o.get("issue_size"),
            members.count_ones() as u64,
            "cycle {t}"
        );
        assert!(
            (members >> (sel % w)) & 1 == 1,
            "cycle {t}: sel not a member"
        );
        if o.get("issue_fused") == 1 {
            for m in (0..w).filter(|&m| (members >> m) & 1 == 1) {
                assert_eq!(st[group * w + m], COMBINE_READY, "cycle {t}: I-FUSE");
            }
        } else {
            assert_eq!(members, 1 << (sel % w), "cycle {t}: I-SINGLE");
            assert!(
                st[sel] == READY,
                "cycle {t}: picked a sub-warp that is not READY"
            );
        }
        for m in 0..w {
            let want = if (members >> m) & 1 == 1 {
                driven_mask.get(group * w + m).copied().unwrap_or(0)
            } else {
                0
            };
            assert_eq!(
                o.field("issue_mask", m, s_bits),
                want,
                "cycle {t}: mask slice {m}"
            );
        }
    }
}

fn random_kernels(sets: &[&str], seed: u64, kernels: usize) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let cfg =
        DwrConfig::from_params(&Params::resolve(dwr::NAME, dwr::PARAMS, None, &sets).unwrap())
            .unwrap();
    let g = cfg.geometry.clone();
    let n = g.subwarps();
    let Some(mut sim) = Sim::start(&warpforge_hdl::dwr::generate(&cfg), &cfg.ports()) else {
        return;
    };
    sim.step(&[("reset", val(1))]);
    let mut rng = Rng(seed);
    let mut fused_bundles = 0;
    let mut mismatches = 0;
    for k in 0..kernels {
        let live = 1 + rng.below(n as u64) as usize;
        let mut env = Env::new(
            n,
            g.group_size,
            g.subwarp_size,
            g.pc_bits,
            kernel(&mut rng, live, g.pc_bits),
        );
        env.service = 1 + rng.below(6);
        env.serial = rng.below(2) == 0;
        env.masks = (0..n)
            .map(|_| rng.next() & ((1u64 << g.subwarp_size) - 1) | 1)
            .collect();
        let mut t = 0;
        let mut quiet = 0;
        loop {
            let mut inputs = env.inputs(t);
            if t == 0 {
                inputs.push(("launch", bits(0..live)));
                inputs.push(("grid_start", val(1)));
            }
            if rng.below(8) == 0 {
                // Hazards: some sub-warps may not be picked next cycle.
                let ready: Vec<usize> = (0..n).filter(|_| rng.below(2) == 0).collect();
                inputs.retain(|(p, _)| *p != "ready");
                inputs.push(("ready", bits(ready)));
            }
            let o = sim.step(&inputs);
            check(&cfg, &o, &env.masks, t);
            fused_bundles += o.get("issue_fused");
            mismatches += o.get("act_mismatch");
            env.observe(t, &o);
            let drained = (0..n).all(|s| o.field("dbg_state", s, 3) == EMPTY)
                && o.is_zero("dbg_pst_valid")
                && o.is_zero("dbg_pipe_valid");
            if t > 2 && drained {
                break;
            }
            // Deadlock: nothing issues, nothing is in flight, yet the kernel is not done.
            let busy = o.get("slot_busy") == 1
                || o.get("nxt_valid") == 1
                || env.pending() > 0
                || !o.is_zero("dbg_pipe_valid");
            quiet = if busy { 0 } else { quiet + 1 };
            assert!(quiet < 20, "kernel {k} (seed {seed}): stuck at cycle {t}");
            t += 1;
        }
    }
    // The runs must have exercised the mechanism.
    assert!(
        fused_bundles > 0 && mismatches > 0,
        "{fused_bundles} fused, {mismatches} mismatches"
    );
}

#[test]
fn random_kernels_dwr64_bar_lat_1() {
    random_kernels(
        &[
            "threads=64",
            "group_size=8",
            "bar_lat=1",
            "pc_bits=8",
            "ilt_sets=2",
            "ilt_ways=2",
        ],
        11,
        25,
    );
}

#[test]
fn random_kernels_dwr32_bar_lat_3_matched() {
    random_kernels(
        &[
            "threads=64",
            "group_size=4",
            "bar_lat=3",
            "sco_match=matched",
            "ilt_sets=4",
            "ilt_ways=2",
        ],
        12,
        25,
    );
}

#[test]
fn random_kernels_dwr16_no_d4_learning_one_slice() {
    random_kernels(
        &[
            "threads=48",
            "group_size=2",
            "bar_lat=2",
            "d4_learn=false",
            "fused_slices=one",
            "ilt_sets=1",
            "ilt_ways=2",
            "pc_bits=9",
        ],
        13,
        25,
    );
}

#[test]
fn random_kernels_default_configuration() {
    random_kernels(&[], 14, 3);
}
