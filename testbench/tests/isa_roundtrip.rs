//! Assembler, disassembler and binary image agree: disassemble(assemble(x)) reassembles to
//! the same words, the image reads back to the same program, and DWR's partner-barrier pass
//! keeps every kernel correct.

use warpforge_contract::isa::Op;
use warpforge_testbench::isa::kernels::{CROWN_FIG2_3, SUITE};
use warpforge_testbench::isa::suite::{run_case, Mode};
use warpforge_testbench::isa::{assemble, disassemble, AsmOptions, Program};

fn sources() -> Vec<(&'static str, &'static str)> {
    let mut v: Vec<_> = SUITE.iter().map(|k| (k.name, k.source)).collect();
    v.push(("crown_fig2_3", CROWN_FIG2_3));
    v
}

#[test]
fn disassembly_reassembles_to_the_same_binary() {
    for dwr in [false, true] {
        let opts = AsmOptions { dwr_partner: dwr };
        for (name, src) in sources() {
            let p = assemble(src, name, &opts).unwrap();
            let text = disassemble(&p);
            let q = assemble(&text, "disassembly", &AsmOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            assert_eq!(q.words(), p.words(), "{name} (dwr {dwr})");
            assert_eq!(
                (&q.name, q.regs, q.shared_bytes, &q.params),
                (&p.name, p.regs, p.shared_bytes, &p.params)
            );
            // And once more: the disassembly is a fixed point.
            assert_eq!(disassemble(&q), text);
        }
    }
}

#[test]
fn binary_image_round_trips_and_rejects_damage() {
    for (name, src) in sources() {
        let p = assemble(src, name, &AsmOptions::default()).unwrap();
        let bytes = p.to_bytes();
        assert!(Program::is_binary(&bytes));
        let q = Program::from_bytes(&bytes).unwrap();
        assert_eq!(q.words(), p.words());
        assert_eq!(q.params, p.params);
        assert!(
            Program::from_bytes(&bytes[..bytes.len() - 1]).is_err(),
            "{name}: truncated"
        );
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(
            Program::from_bytes(&extra).is_err(),
            "{name}: trailing byte"
        );
    }
}

/// The image ends with a CRC-32 of everything before it: every single-bit flip anywhere in
/// an image (header, names, code, checksum) is refused, where without it some decoded to
/// valid, different programs.
#[test]
fn every_single_bit_flip_of_an_image_is_refused() {
    for (name, src) in sources().into_iter().take(4) {
        let bytes = assemble(src, name, &AsmOptions::default())
            .unwrap()
            .to_bytes();
        for bit in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            let e = Program::from_bytes(&b).unwrap_err();
            assert!(!e.contains('\n'), "{name} bit {bit}: {e}");
        }
    }
    let bytes = assemble(".kernel k\n.regs 1\nexit\n", "k.s", &AsmOptions::default())
        .unwrap()
        .to_bytes();
    assert_eq!(&bytes[..4], b"WFK2");
    let mut old = bytes.clone();
    old[3] = b'1';
    assert!(Program::is_binary(&old));
    assert!(Program::from_bytes(&old)
        .unwrap_err()
        .contains("re-assemble"));
}

#[test]
fn dwr_pass_puts_one_partner_barrier_before_each_global_load_and_store() {
    for k in SUITE {
        let plain = assemble(k.source, k.name, &AsmOptions::default()).unwrap();
        let dwr = assemble(k.source, k.name, &AsmOptions { dwr_partner: true }).unwrap();
        let sensitive = plain.code.iter().filter(|i| i.op.is_global_ld_st()).count();
        assert_eq!(dwr.code.len(), plain.code.len() + sensitive, "{}", k.name);
        for (pc, i) in dwr.code.iter().enumerate() {
            if i.op.is_global_ld_st() {
                assert_eq!(dwr.code[pc - 1].op, Op::BarPartner, "{} pc {pc}", k.name);
            }
            if i.op == Op::Bra {
                // No branch jumps straight onto a sensitive instruction past its barrier.
                assert!(
                    !dwr.code[i.target() as usize].op.is_global_ld_st(),
                    "{}",
                    k.name
                );
            }
        }
    }
}

#[test]
fn dwr_kernels_still_pass_and_count_partner_barriers() {
    for k in SUITE {
        let r = run_case(
            k,
            k.sizes[0],
            5,
            Mode::Warp(8),
            &AsmOptions { dwr_partner: true },
        );
        assert!(r.passed(), "{}: {:?}", k.name, r.error);
        let w = r.warp.unwrap();
        assert!(w.partner_barriers > 0, "{}", k.name);
    }
}
