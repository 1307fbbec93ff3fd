//! ISA tools: the assembler and disassembler, the control-flow graph with its post-dominator
//! analysis (each branch's reconvergence PC), the reference interpreter (thread mode and
//! warp-level mode with the PDOM stack), launches, the FP32 rules and the kernel suite.
//!
//! The instruction encoding itself is the contract type [`warpforge_contract::isa`]; see
//! `docs/isa.md` for the table, the assembly syntax and the semantics.

pub mod alu;
pub mod asm;
pub mod cfg;
pub mod crown;
pub mod disasm;
pub mod dtm;
pub mod fp;
pub mod interp;
pub mod kernels;
pub mod launch;
pub mod suite;
pub mod warp;

pub use asm::{assemble, AsmError, AsmOptions};
pub use disasm::disassemble;
pub use interp::{Fault, Machine, Retired, StepOutcome, ThreadStats};
pub use launch::{Launch, ParamValue};
pub use warp::{run_warps, WarpOptions, WarpStats};

use warpforge_contract::isa::{Format, Instr, MAX_PROGRAM_LEN, MAX_REGS};

/// Largest shared-memory size a kernel may declare, in bytes.
pub const MAX_SHARED_BYTES: u32 = 64 * 1024;

/// An assembled kernel: its directives and its code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub name: String,
    /// General registers per thread (`.regs`).
    pub regs: u32,
    /// Shared memory per block, in bytes (`.shared`).
    pub shared_bytes: u32,
    /// Parameter names, in declaration order; parameter i is at byte offset 4·i.
    pub params: Vec<String>,
    pub code: Vec<Instr>,
    /// Source line of each instruction (0 when unknown, e.g. loaded from a binary).
    pub lines: Vec<u32>,
}

const MAGIC: &[u8; 4] = b"WFK2";
/// The first image format (no checksum); refused with a hint to re-assemble.
const OLD_MAGIC: &[u8; 4] = b"WFK1";

impl Program {
    pub fn words(&self) -> Vec<u64> {
        self.code.iter().map(|i| i.encode()).collect()
    }

    /// The binary image: magic `WFK2`, then little-endian u32 regs, shared bytes, parameter
    /// count, instruction count, the name and each parameter name (u32 length + UTF-8), the
    /// instruction words (u64 each), and last the CRC-32 (u32) of every byte before it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for v in [
            self.regs,
            self.shared_bytes,
            self.params.len() as u32,
            self.code.len() as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for s in std::iter::once(&self.name).chain(self.params.iter()) {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        for w in self.words() {
            out.extend_from_slice(&w.to_le_bytes());
        }
        let crc = warpforge_contract::checksum::crc32(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// True when `bytes` starts like a binary image (rather than assembly text).
    pub fn is_binary(bytes: &[u8]) -> bool {
        bytes.starts_with(MAGIC) || bytes.starts_with(OLD_MAGIC)
    }

    /// Reads a binary image and checks it ([`Program::check`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Program, String> {
        if bytes.starts_with(OLD_MAGIC) {
            return Err(
                "image format WFK1 (without checksum) is no longer read; re-assemble the source"
                    .into(),
            );
        }
        if !bytes.starts_with(MAGIC) {
            return Err("not a warpforge kernel image (magic WFK2 expected)".into());
        }
        if bytes.len() < MAGIC.len() + 4 {
            return Err(format!("truncated image: {} bytes", bytes.len()));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 4);
        let want = u32::from_le_bytes(tail.try_into().unwrap());
        let got = warpforge_contract::checksum::crc32(body);
        if want != got {
            return Err(format!(
                "damaged image: checksum {got:08x}, the image records {want:08x}"
            ));
        }
        let bytes = body;
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&[u8], String> {
            let s = bytes
                .get(at..at.checked_add(n).ok_or("truncated image")?)
                .ok_or_else(|| format!("truncated image: needs {} bytes at offset {at}", n))?;
            at += n;
            Ok(s)
        };
        if take(4)? != MAGIC {
            return Err("not a warpforge kernel image (magic WFK2 expected)".into());
        }
        let mut u32s = [0u32; 4];
        for v in u32s.iter_mut() {
            *v = u32::from_le_bytes(take(4)?.try_into().unwrap());
        }
        let [regs, shared_bytes, nparams, ninstr] = u32s;
        if nparams > 4096 || ninstr as usize > MAX_PROGRAM_LEN {
            return Err(format!(
                "image header out of range: {nparams} parameters, {ninstr} instructions"
            ));
        }
        let mut strings = Vec::new();
        for _ in 0..=nparams {
            let len = u32::from_le_bytes(take(4)?.try_into().unwrap()) as usize;
            let s = std::str::from_utf8(take(len)?)
                .map_err(|_| "a name in the image is not UTF-8".to_string())?;
            strings.push(s.to_string());
        }
        let mut code = Vec::with_capacity(ninstr as usize);
        for pc in 0..ninstr {
            let w = u64::from_le_bytes(take(8)?.try_into().unwrap());
            code.push(Instr::decode(w).map_err(|e| format!("pc {pc}: {e}"))?);
        }
        if at != bytes.len() {
            return Err(format!(
                "{} trailing bytes after the image",
                bytes.len() - at
            ));
        }
        let name = strings.remove(0);
        let p = Program {
            name,
            regs,
            shared_bytes,
            params: strings,
            lines: vec![0; code.len()],
            code,
        };
        p.check()?;
        Ok(p)
    }

    /// The checks the interpreter relies on: register numbers below `.regs`, branch targets
    /// and reconvergence PCs inside the program, parameter offsets inside the parameter block,
    /// sizes in range.
    pub fn check(&self) -> Result<(), String> {
        if self.code.is_empty() {
            return Err("the program has no instructions".into());
        }
        if self.code.len() > MAX_PROGRAM_LEN {
            return Err(format!(
                "the program has {} instructions; at most {MAX_PROGRAM_LEN} are allowed",
                self.code.len()
            ));
        }
        if self.regs == 0 || self.regs as usize > MAX_REGS {
            return Err(format!(
                "register count {} out of range 1..={MAX_REGS}",
                self.regs
            ));
        }
        if !self.shared_bytes.is_multiple_of(4) || self.shared_bytes > MAX_SHARED_BYTES {
            return Err(format!(
                "shared size {} bytes: must be a multiple of 4 and at most {MAX_SHARED_BYTES}",
                self.shared_bytes
            ));
        }
        let n = self.code.len() as u32;
        for (pc, ins) in self.code.iter().enumerate() {
            ins.validate().map_err(|e| format!("pc {pc}: {e}"))?;
            if let Some(r) = ins
                .general_registers()
                .iter()
                .find(|&&r| r as u32 >= self.regs)
            {
                return Err(format!(
                    "pc {pc}: `{}` uses %r{r} but the kernel declares {} registers",
                    disasm::format_instr(ins, &self.params, None),
                    self.regs
                ));
            }
            match ins.op.format() {
                Format::Branch if ins.target() >= n || ins.rpc() > n => {
                    return Err(format!(
                        "pc {pc}: branch target {} or reconvergence PC {} outside the program of {n} instructions",
                        ins.target(),
                        ins.rpc()
                    ));
                }
                Format::LoadParam
                    if !ins.imm.is_multiple_of(4) || ins.imm / 4 >= self.params.len() as u32 =>
                {
                    return Err(format!(
                        "pc {pc}: parameter offset {} outside the {} declared parameters",
                        ins.imm,
                        self.params.len()
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }
}
