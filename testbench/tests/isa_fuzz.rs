//! Property tests: the assembler never panics on arbitrary bytes or token soups, the image
//! reader and launch parser never panic on damaged input, and random valid programs (with a
//! step limit) never panic the interpreter in thread mode, warp mode or stepping.

use warpforge_contract::isa::{Field, FieldUse, Guard, ImmUse, Instr, Op, Special};
use warpforge_testbench::isa::cfg::set_branch_rpcs;
use warpforge_testbench::isa::kernels::SUITE;
use warpforge_testbench::isa::warp::{run_warps, WarpOptions};
use warpforge_testbench::isa::{assemble, AsmOptions, Launch, Machine, Program, StepOutcome};
use warpforge_testbench::rng::Rng;

#[test]
fn assembler_survives_random_bytes() {
    let mut rng = Rng::new(11);
    for _ in 0..3000 {
        let len = rng.below(200) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                if rng.chance(3, 4) {
                    b" \n\t%.,[]+-@!:;/0123456789abcdefghijklmnoprstuvwxyz_$"
                        [rng.below(52) as usize]
                } else {
                    rng.next_u64() as u8
                }
            })
            .collect();
        let text = String::from_utf8_lossy(&bytes);
        let _ = assemble(&text, "fuzz.s", &AsmOptions::default());
        let _ = assemble(&text, "fuzz.s", &AsmOptions { dwr_partner: true });
    }
}

#[test]
fn assembler_survives_token_soups() {
    const TOKENS: &[&str] = &[
        ".kernel",
        ".regs",
        ".shared",
        ".param",
        "k",
        "L",
        "L:",
        "M:",
        "add.s32",
        "mad.lo.s32",
        "fma.rn.f32",
        "setp.lt.f32",
        "selp.b32",
        "ld.global.u32",
        "st.shared.u32",
        "ld.param.u32",
        "atom.global.cas.b32",
        "atom.shared.add.u32",
        "bra",
        "exit",
        "bar.sync",
        "bar.synch_partner",
        "and.pred",
        "not.pred",
        "mov.u32",
        "mov.f32",
        "cvt.rn.f32.s32",
        "%r0",
        "%r5",
        "%r63",
        "%r64",
        "%p0",
        "%p7",
        "%p8",
        "%tid.x",
        "%clock",
        "%ctaid.y",
        "0",
        "1",
        "-1",
        "4294967296",
        "0x10",
        "0f3F800000",
        "1.5",
        "1e-3",
        "-2.5e+3",
        ",",
        ",",
        "[",
        "]",
        "+",
        "-",
        "@",
        "@!",
        ";",
        "//",
        "\n",
        "\n",
        "\n",
        "4",
        "64",
    ];
    let mut rng = Rng::new(12);
    let mut accepted = 0;
    for _ in 0..5000 {
        let mut s = String::from(".kernel k\n.regs 8\n.param a\n");
        for _ in 0..rng.below(40) {
            s.push_str(TOKENS[rng.below(TOKENS.len() as u64) as usize]);
            s.push(' ');
        }
        s.push_str("\nexit\n");
        if assemble(&s, "soup.s", &AsmOptions::default()).is_ok() {
            accepted += 1;
        }
    }
    assert!(accepted > 0, "some soups should assemble");
}

#[test]
fn image_reader_and_launch_parser_survive_damage() {
    let mut rng = Rng::new(13);
    let images: Vec<Vec<u8>> = SUITE
        .iter()
        .map(|k| {
            assemble(k.source, k.name, &AsmOptions::default())
                .unwrap()
                .to_bytes()
        })
        .collect();
    for _ in 0..3000 {
        let mut b = images[rng.below(images.len() as u64) as usize].clone();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(b.len() as u64) as usize;
            b[i] = rng.next_u64() as u8;
        }
        if rng.chance(1, 4) {
            b.truncate(rng.below(b.len() as u64) as usize);
        }
        let _ = Program::from_bytes(&b);
    }
    let json = r#"{"grid": [2, 1], "block": 8, "params": {"n": 5, "a": {"buffer": "a"}}, "buffers": [{"name": "a", "words": [1, 2]}]}"#;
    for _ in 0..3000 {
        let mut b = json.as_bytes().to_vec();
        for _ in 0..1 + rng.below(3) {
            let i = rng.below(b.len() as u64) as usize;
            b[i] = b"{}[]\":,0123456789-.eaxz "[rng.below(24) as usize];
        }
        let _ = Launch::from_json(&String::from_utf8_lossy(&b));
    }
}

/// A random instruction that passes the decoder's checks.
fn random_instr(rng: &mut Rng, regs: u8, len: u32, nparams: u32) -> Instr {
    loop {
        let op = Op::ALL[rng.below(Op::ALL.len() as u64) as usize];
        let mut i = Instr::new(op);
        if !op.is_barrier() && rng.chance(1, 4) {
            i.guard = Some(Guard {
                pred: rng.below(8) as u8,
                negate: rng.chance(1, 2),
            });
        }
        i.b_imm = rng.chance(1, 3);
        let u = FieldUse::of(op.format(), i.b_imm);
        let pick = |rng: &mut Rng, f: Field| match f {
            Field::Unused => 0,
            Field::Pred => rng.below(8) as u8,
            _ => rng.below(regs as u64) as u8,
        };
        i.d = pick(rng, u.d);
        i.a = pick(rng, u.a);
        i.b = pick(rng, u.b);
        if u.a == Field::Operand && rng.chance(1, 4) {
            i.a_sreg = true;
            i.a = Special::ALL[rng.below(Special::ALL.len() as u64) as usize] as u8;
        }
        i.imm = match u.imm {
            ImmUse::Unused => 0,
            ImmUse::RegC => rng.below(regs as u64) as u32,
            ImmUse::PredC => rng.below(8) as u32,
            ImmUse::Full => match op {
                Op::Bra => rng.below(len as u64) as u32,
                Op::LdParam => 4 * rng.below(nparams as u64) as u32,
                _ if rng.chance(1, 2) => 4 * rng.below(16) as u32,
                _ => rng.next_u64() as u32,
            },
        };
        if i.validate().is_ok() {
            return i;
        }
    }
}

#[test]
fn random_valid_programs_never_panic_the_interpreter() {
    let mut rng = Rng::new(14);
    let mut ran_ok = 0;
    for case in 0..4000 {
        let regs = 1 + rng.below(12) as u8;
        let len = 2 + rng.below(40) as u32;
        // Prologue: %r0 = buffer address + 4*tid, so that some accesses land in bounds.
        let mut code = Vec::new();
        let mut ldp = Instr::new(Op::LdParam);
        ldp.d = 0;
        code.push(ldp);
        let mut shl = Instr::new(Op::Shl);
        (shl.d, shl.a, shl.a_sreg, shl.b_imm, shl.imm) = (1 % regs, 0, true, true, 2);
        code.push(shl);
        while (code.len() as u32) < len - 1 {
            code.push(random_instr(&mut rng, regs, len, 1));
        }
        code.push(Instr::new(Op::Exit));
        set_branch_rpcs(&mut code);
        if case % 5 == 0 {
            // Hand-made binaries may carry any reconvergence PC.
            for i in code.iter_mut().filter(|i| i.op == Op::Bra) {
                i.imm = Instr::branch_imm(i.target(), rng.below(len as u64 + 1) as u32);
            }
        }
        let p = Program {
            name: format!("r{case}"),
            regs: regs as u32,
            shared_bytes: 4 * rng.below(16) as u32,
            params: vec!["a".into()],
            lines: vec![0; code.len()],
            code,
        };
        let mut l = Launch::new(
            [1 + rng.below(2) as u32, 1, 1],
            [1 + rng.below(40) as u32, 1 + rng.below(2) as u32, 1],
        )
        .buffer("a", vec![1; 64]);
        l.max_steps = 300;
        let Ok(mut m) = Machine::new(&p, &l) else {
            panic!("a valid random program was refused")
        };
        let mut m2 = m.clone();
        let mut m3 = m.clone();
        if m.run().is_ok() {
            ran_ok += 1;
        }
        let mut o = WarpOptions::new(1 + rng.below(64) as u32);
        o.stack_depth = 1 + rng.below(40) as usize;
        let _ = run_warps(&mut m2, &o);
        // Step random threads for a while.
        for _ in 0..200 {
            let b = rng.below(m3.num_blocks());
            let t = rng.below(m3.threads_per_block() as u64) as u32;
            match m3.step(b, t) {
                Ok(StepOutcome::Retired(_))
                | Ok(StepOutcome::WaitingAtBarrier)
                | Ok(StepOutcome::Exited) => {}
                Err(_) => break,
            }
        }
    }
    assert!(
        ran_ok > 10,
        "some random programs should finish cleanly ({ran_ok})"
    );
}
