//! The hierarchical Verilator build: a module whose inlined copies would pass the limit is
//! Verilated once as a hierarchy block and called by each instance. Here a small design made to
//! pass it (three instances of a long accumulator): the choice, the build, every cycle's
//! outputs against a hand computation, seeded random initial registers inside the blocks, and
//! a waveform.

use warpforge_contract::{Manifest, Params, Port};
use warpforge_cosim::verilator::{self, hier_blocks, Rtl};
use warpforge_hdl::Design;

const LANES: usize = 3;

/// `acc3`: three instances of an 8-bit accumulator with synchronous reset. The accumulator
/// carries a long comment so that its copies pass the limit with a tiny body.
fn acc3(pad_lines: usize) -> Design {
    let mut v = String::from(
        "module acc3(clock,reset,d,q);\n    input wire clock;\n    input wire reset;\n    \
         input wire [23:0] d;\n    output wire [23:0] q;\n",
    );
    for i in 0..LANES {
        v += &format!(
            "    acc3__cell c{i}(\n        .clock(clock),\n        .reset(reset),\n        \
             .d(d[{}:{}]),\n        .q(q[{}:{}])\n    );\n",
            8 * i + 7,
            8 * i,
            8 * i + 7,
            8 * i
        );
    }
    v += "endmodule // acc3\n\nmodule acc3__cell(clock,reset,d,q);\n    input wire clock;\n    \
          input wire reset;\n    input wire [7:0] d;\n    output reg [7:0] q;\n";
    for i in 0..pad_lines {
        v += &format!("    // {i}\n");
    }
    v += "    always @(posedge clock) begin\n        if (reset) q <= 8'd0;\n        \
          else q <= q + d;\n    end\nendmodule // acc3__cell\n";
    Design {
        module: "acc3".into(),
        verilog: v,
    }
}

fn manifest() -> Manifest {
    Manifest {
        unit: "test-unit".into(),
        module: "acc3".into(),
        params: Params::defaults(&[]),
        ports: vec![
            Port::input("reset", 1, ""),
            Port::input("d", 24, ""),
            Port::output("q", 24, false, ""),
        ],
        tables: vec![],
    }
}

/// Run `ds` (one input word per cycle, after one reset cycle) and return each cycle's `q`.
fn run(rtl: &mut Rtl, m: &Manifest, ds: &[u64]) -> Vec<u64> {
    let layout = m.layout();
    let (reset, d) = (
        layout.input("reset").unwrap().offset,
        layout.input("d").unwrap().offset,
    );
    let q = layout.output("q").unwrap().offset;
    let mut qs = vec![];
    for (c, &x) in std::iter::once(&0).chain(ds).enumerate() {
        let mut inp = vec![0u64; layout.in_words];
        inp[reset] = (c == 0) as u64;
        inp[d] = x;
        let mut out = vec![0u64; layout.out_words];
        rtl.run(&inp, &mut out);
        qs.push(out[q]);
    }
    qs
}

#[test]
fn a_block_copied_past_the_limit_is_built_once_and_runs_cycle_exact() {
    // Two extra copies of a cell of just over 100k lines pass the 200k-line limit.
    let d = acc3(100_010);
    let blocks = hier_blocks(&d.verilog);
    assert_eq!(blocks.len(), 1, "{blocks:?}");
    assert_eq!(
        (blocks[0].module.as_str(), blocks[0].instances),
        ("acc3__cell", LANES)
    );
    // A tenth of the padding: inlined as before.
    assert!(hier_blocks(&acc3(10_000).verilog).is_empty());

    let m = manifest();
    let compiled = verilator::build(&d, &m, false).unwrap();
    // The block's model has its own folder beside the top's sources.
    let own: Vec<String> = std::fs::read_dir(compiled.dir.join("obj"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with("_h0"))
        .collect();
    assert_eq!(
        own.len(),
        1,
        "no hierarchy block folder in {}",
        compiled.dir.display()
    );

    let mut x = 0x2545_f491_4f6c_dd1du64;
    let ds: Vec<u64> = (0..200)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x & 0xff_ffff
        })
        .collect();
    let mut first = vec![];
    for seed in [1, 2] {
        let mut rtl = Rtl::load(&compiled, &m.layout(), seed).unwrap();
        let qs = run(&mut rtl, &m, &ds);
        first.push(qs[0]);
        // After the reset cycle each lane holds the sum of its inputs so far, modulo 256.
        let mut acc = [0u64; LANES];
        for (c, &q) in qs.iter().enumerate().skip(1) {
            let want: u64 = (0..LANES).map(|i| acc[i] << (8 * i)).sum();
            assert_eq!(q, want, "seed {seed} cycle {c}");
            for (i, a) in acc.iter_mut().enumerate() {
                *a = (*a + (ds[c - 1] >> (8 * i) & 0xff)) & 0xff;
            }
        }
    }
    // Before reset the blocks' registers hold the seed's random values, not zeros.
    assert_ne!(first[0], first[1], "initial q equal for two seeds");
    assert!(first.iter().all(|&q| q != 0), "{first:x?}");
}

#[test]
fn a_hierarchical_build_writes_a_waveform_of_the_top() {
    let d = acc3(100_010);
    let m = manifest();
    let compiled = verilator::build(&d, &m, true).unwrap();
    let mut rtl = Rtl::load(&compiled, &m.layout(), 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("acc3.vcd");
    rtl.trace(&vcd, 0).unwrap();
    let qs = run(&mut rtl, &m, &[0x010203; 4]);
    rtl.finish_trace().unwrap();
    assert_eq!(qs[4], 0x030609);
    let text = std::fs::read_to_string(&vcd).unwrap();
    // The top's ports are traced (signals inside a hierarchy block cannot be).
    for name in [" clock ", " d ", " q "] {
        assert!(text.contains(name), "no{name}in the VCD");
    }
    assert!(text.contains("#45"), "not every cycle dumped");
}
