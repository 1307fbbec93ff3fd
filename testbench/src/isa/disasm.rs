//! The disassembler: [`Program`] → assembly text that reassembles to the same words. Branch
//! targets get labels `L<pc>`; each branch's reconvergence PC is shown as a comment (the
//! assembler recomputes it).

use std::collections::BTreeSet;
use std::fmt::Write;

use warpforge_contract::isa::{Format, Instr, Op, Special};

use super::Program;

fn operand_a(i: &Instr) -> String {
    if i.a_sreg {
        match Special::from_code(i.a) {
            Some(s) => s.name().to_string(),
            None => format!("%sreg{}", i.a),
        }
    } else {
        format!("%r{}", i.a)
    }
}

fn int_imm(v: u32) -> String {
    let s = v as i32;
    if (-65536..65536).contains(&s) {
        s.to_string()
    } else {
        format!("{v:#x}")
    }
}

fn imm(i: &Instr) -> String {
    if i.op.is_f32() {
        format!("0f{:08X}", i.imm)
    } else {
        int_imm(i.imm)
    }
}

fn operand_b(i: &Instr) -> String {
    if i.b_imm {
        imm(i)
    } else {
        format!("%r{}", i.b)
    }
}

fn address(i: &Instr) -> String {
    let off = i.imm as i32;
    if i.imm == 0 {
        format!("[{}]", operand_a(i))
    } else if (-65536..0).contains(&off) {
        format!("[{}-{}]", operand_a(i), -off)
    } else {
        format!("[{}+{}]", operand_a(i), int_imm(i.imm))
    }
}

/// One instruction in assembly syntax. `params` names `ld.param` offsets; `label` names a
/// branch target (default `L<pc>`).
pub fn format_instr(i: &Instr, params: &[String], label: Option<&dyn Fn(u32) -> String>) -> String {
    let mut s = String::new();
    if let Some(g) = i.guard {
        let _ = write!(s, "@{}%p{} ", if g.negate { "!" } else { "" }, g.pred);
    }
    s.push_str(i.op.mnemonic());
    let d = format!("%r{}", i.d);
    let ops: Vec<String> = match i.op.format() {
        Format::None => {
            if i.op.is_barrier() {
                vec!["0".into()]
            } else {
                vec![]
            }
        }
        Format::Mov if i.b_imm => vec![d, int_imm(i.imm)],
        Format::Mov | Format::Alu1 => vec![d, operand_a(i)],
        Format::Alu2 => vec![d, operand_a(i), operand_b(i)],
        Format::Alu3 => vec![
            d,
            operand_a(i),
            format!("%r{}", i.b),
            format!("%r{}", i.c()),
        ],
        Format::Selp => vec![
            d,
            operand_a(i),
            format!("%r{}", i.b),
            format!("%p{}", i.c()),
        ],
        Format::Setp => vec![format!("%p{}", i.d), operand_a(i), operand_b(i)],
        Format::Pred2 => vec![
            format!("%p{}", i.d),
            format!("%p{}", i.a),
            format!("%p{}", i.b),
        ],
        Format::Pred1 => vec![format!("%p{}", i.d), format!("%p{}", i.a)],
        Format::Load => vec![d, address(i)],
        Format::Store => vec![address(i), format!("%r{}", i.b)],
        Format::LoadParam => {
            let idx = (i.imm / 4) as usize;
            match params.get(idx) {
                Some(n) if i.imm.is_multiple_of(4) => vec![d, format!("[{n}]")],
                _ => vec![d, format!("[{}]", i.imm)],
            }
        }
        Format::Atom => vec![d, address(i), format!("%r{}", i.b)],
        Format::Cas => vec![d, address(i), format!("%r{}", i.b), format!("%r{}", i.c())],
        Format::Branch => vec![match label {
            Some(f) => f(i.target()),
            None => format!("L{}", i.target()),
        }],
    };
    if !ops.is_empty() {
        s.push(' ');
        s.push_str(&ops.join(", "));
    }
    s
}

/// The whole program as assembly text.
pub fn disassemble(p: &Program) -> String {
    let targets: BTreeSet<u32> = p
        .code
        .iter()
        .filter(|i| i.op == Op::Bra)
        .map(|i| i.target())
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, ".kernel {}", p.name);
    let _ = writeln!(out, ".regs {}", p.regs);
    if p.shared_bytes != 0 {
        let _ = writeln!(out, ".shared {}", p.shared_bytes);
    }
    for n in &p.params {
        let _ = writeln!(out, ".param {n}");
    }
    let n = p.code.len() as u32;
    for (pc, ins) in p.code.iter().enumerate() {
        let pc = pc as u32;
        if targets.contains(&pc) {
            let _ = writeln!(out, "L{pc}:");
        }
        let text = format_instr(ins, &p.params, None);
        if ins.op == Op::Bra {
            let rpc = if ins.rpc() >= n {
                "exit".to_string()
            } else {
                format!("L{}", ins.rpc())
            };
            let _ = writeln!(out, "    {text:<40} // pc {pc}, reconverges at {rpc}");
        } else {
            let _ = writeln!(out, "    {text:<40} // pc {pc}");
        }
    }
    out
}
