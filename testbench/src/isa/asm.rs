//! The assembler: PTX-like text → [`Program`]. One statement per line:
//!
//! ```text
//! label:  @!%p1 add.s32 %r1, %r2, 4;   // comment
//! ```
//!
//! Directives: `.kernel NAME`, `.regs N`, `.shared BYTES`, `.param NAME[, NAME…]`. After
//! parsing, the assembler resolves labels, builds the CFG and writes each branch's
//! reconvergence PC (its immediate post-dominator, [`crate::isa::cfg`]). With
//! [`AsmOptions::dwr_partner`] it puts a `bar.synch_partner` before every global load and
//! store, as DWR's compiler pass does (a label on the load now marks the barrier, so every
//! execution of the load is preceded by it).

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use warpforge_contract::isa::{Format, Guard, Instr, Op, Special, MAX_PROGRAM_LEN, MAX_REGS};

use super::{cfg, Program, MAX_SHARED_BYTES};

/// An assembly error: where (file, 1-based line and column) and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub msg: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.col, self.msg)
    }
}

impl std::error::Error for AsmError {}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AsmOptions {
    /// Insert `bar.synch_partner` before every `ld.global` and `st.global` (DWR).
    pub dwr_partner: bool,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// Names: mnemonics, registers (`%r1`), directives (`.regs`), labels.
    Word(String),
    Num(String),
    P(char),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    col: usize,
}

fn describe(t: Option<&Token>) -> String {
    match t.map(|t| &t.tok) {
        None => "end of line".into(),
        Some(Tok::Word(w)) | Some(Tok::Num(w)) => format!("`{w}`"),
        Some(Tok::P(c)) => format!("`{c}`"),
    }
}

/// Splits one line (comment already removed) into tokens with 1-based columns.
fn lex(line: &str) -> Result<Vec<Token>, (usize, String)> {
    let chars: Vec<char> = line.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    let is_word_start = |c: char| c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '.' | '%');
    let is_word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.');
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if is_word_start(c) {
            let s = i;
            i += 1;
            while i < chars.len() && is_word(chars[i]) {
                i += 1;
            }
            toks.push(Token {
                tok: Tok::Word(chars[s..i].iter().collect()),
                col,
            });
        } else if c.is_ascii_digit() {
            let s = i;
            let radix_prefix = c == '0'
                && chars
                    .get(i + 1)
                    .is_some_and(|x| matches!(x, 'x' | 'X' | 'f' | 'F' | 'b' | 'B'));
            i += 1;
            while i < chars.len() {
                let x = chars[i];
                let exp_sign =
                    !radix_prefix && matches!(x, '+' | '-') && matches!(chars[i - 1], 'e' | 'E');
                if x.is_ascii_alphanumeric() || x == '.' || x == '_' || exp_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            toks.push(Token {
                tok: Tok::Num(chars[s..i].iter().collect()),
                col,
            });
        } else if matches!(c, ',' | '[' | ']' | '+' | '-' | '@' | '!' | ':' | ';') {
            toks.push(Token {
                tok: Tok::P(c),
                col,
            });
            i += 1;
        } else {
            return Err((col, format!("unexpected character `{c}`")));
        }
    }
    Ok(toks)
}

/// Accepted spellings of every opcode: the canonical mnemonic and PTX-style type variants.
/// The flag says whether immediates are FP32 literals.
fn mnemonics() -> &'static HashMap<String, (Op, bool)> {
    static TABLE: OnceLock<HashMap<String, (Op, bool)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = HashMap::new();
        for &op in Op::ALL {
            t.insert(op.mnemonic().to_string(), (op, op.is_f32()));
        }
        let typed = |t: &mut HashMap<String, (Op, bool)>, stem: &str, op: Op, types: &[&str]| {
            for ty in types {
                t.insert(format!("{stem}.{ty}"), (op, *ty == "f32"));
            }
        };
        let any_int = ["s32", "u32", "b32"];
        let any = ["s32", "u32", "b32", "f32"];
        use Op::*;
        for (stem, op) in [
            ("add", Add),
            ("sub", Sub),
            ("mul.lo", MulLo),
            ("mad.lo", MadLo),
            ("setp.eq", SetEq),
            ("setp.ne", SetNe),
            ("and", And),
            ("or", Or),
            ("xor", Xor),
            ("not", Not),
            ("shl", Shl),
            ("popc", Popc),
            ("clz", Clz),
        ] {
            typed(&mut t, stem, op, &any_int);
        }
        for (stem, op) in [
            ("mov", Mov),
            ("selp", Selp),
            ("ld.global", LdGlobal),
            ("st.global", StGlobal),
            ("ld.shared", LdShared),
            ("st.shared", StShared),
            ("ld.param", LdParam),
            ("atom.global.exch", AtomGExch),
            ("atom.global.cas", AtomGCas),
            ("atom.shared.exch", AtomSExch),
            ("atom.shared.cas", AtomSCas),
        ] {
            typed(&mut t, stem, op, &any);
        }
        typed(&mut t, "atom.global.add", AtomGAdd, &["s32", "u32"]);
        typed(&mut t, "atom.shared.add", AtomSAdd, &["s32", "u32"]);
        t.insert("bar.sync_partner".into(), (BarPartner, false));
        t.insert("fma.f32".into(), (FFma, true));
        t
    })
}

/// A parsed instruction waiting for label resolution.
struct Pending {
    ins: Instr,
    line: usize,
    col: usize,
    /// Branch target label and its column.
    target: Option<(String, usize)>,
    /// General registers named, with their columns (checked against `.regs`).
    regs: Vec<(u8, usize)>,
}

struct Parser<'a> {
    file: &'a str,
    line: usize,
    toks: Vec<Token>,
    pos: usize,
    float: bool,
    regs_used: Vec<(u8, usize)>,
}

type PResult<T> = Result<T, AsmError>;

impl<'a> Parser<'a> {
    fn err_at<T>(&self, col: usize, msg: impl Into<String>) -> PResult<T> {
        Err(AsmError {
            file: self.file.to_string(),
            line: self.line,
            col,
            msg: msg.into(),
        })
    }

    /// Column of the current token (or just past the last one at end of line).
    fn col(&self) -> usize {
        match self.toks.get(self.pos) {
            Some(t) => t.col,
            None => self.toks.last().map_or(1, |t| t.col + token_len(&t.tok)),
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn expected<T>(&self, what: &str) -> PResult<T> {
        self.err_at(
            self.col(),
            format!(
                "expected {what}, found {}",
                describe(self.toks.get(self.pos))
            ),
        )
    }

    fn punct(&mut self, c: char) -> PResult<()> {
        if self.peek() == Some(&Tok::P(c)) {
            self.pos += 1;
            Ok(())
        } else {
            self.expected(&format!("`{c}`"))
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::P(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn comma(&mut self) -> PResult<()> {
        self.punct(',')
    }

    fn word(&mut self, what: &str) -> PResult<(String, usize)> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let r = (w.clone(), self.col());
                self.pos += 1;
                Ok(r)
            }
            _ => self.expected(what),
        }
    }

    fn reg(&mut self) -> PResult<u8> {
        let col = self.col();
        match self.peek() {
            Some(Tok::Word(w)) => match parse_indexed(w, "%r", MAX_REGS) {
                Some(r) => {
                    self.pos += 1;
                    self.regs_used.push((r, col));
                    Ok(r)
                }
                None => self.expected("a general register %r0..%r63"),
            },
            _ => self.expected("a general register %r0..%r63"),
        }
    }

    fn pred(&mut self) -> PResult<u8> {
        match self.peek() {
            Some(Tok::Word(w)) => match parse_indexed(w, "%p", 8) {
                Some(p) => {
                    self.pos += 1;
                    Ok(p)
                }
                None => self.expected("a predicate register %p0..%p7"),
            },
            _ => self.expected("a predicate register %p0..%p7"),
        }
    }

    /// Operand A: a general register or a special register.
    fn operand_a(&mut self) -> PResult<(u8, bool)> {
        if let Some(Tok::Word(w)) = self.peek() {
            if let Some(s) = Special::ALL.iter().find(|s| s.name() == w) {
                self.pos += 1;
                return Ok((*s as u8, true));
            }
        }
        match self.reg() {
            Ok(r) => Ok((r, false)),
            Err(_) => {
                self.expected("a general register %r0..%r63 or a special register (%tid.x, …)")
            }
        }
    }

    /// Operand B: a general register or an immediate → (b, b_imm, imm).
    fn operand_b(&mut self) -> PResult<(u8, bool, u32)> {
        match self.peek() {
            Some(Tok::Word(w)) if w.starts_with("%r") => Ok((self.reg()?, false, 0)),
            Some(Tok::Num(_)) | Some(Tok::P('-')) => Ok((0, true, self.imm()?)),
            Some(Tok::Word(w)) if Special::ALL.iter().any(|s| s.name() == w) => self.expected(
                "a general register or an immediate (a special register can only be the first source)",
            ),
            _ => self.expected("a general register or an immediate"),
        }
    }

    /// An immediate: an integer (-2^31..2^32-1), or in FP32 instructions a float literal
    /// (`1.5`, `-2e-3`, `3`); `0x…`/`0f…` give raw bits in either.
    fn imm(&mut self) -> PResult<u32> {
        let col = self.col();
        let neg = self.eat('-');
        let text = match self.peek() {
            Some(Tok::Num(s)) => s.clone(),
            _ => return self.expected("a number"),
        };
        self.pos += 1;
        match parse_number(&text, neg, self.float) {
            Ok(v) => Ok(v),
            Err(m) => self.err_at(col, m),
        }
    }

    /// `[A]`, `[A+off]`, `[A-off]` → (a, a_sreg, offset).
    fn address(&mut self) -> PResult<(u8, bool, u32)> {
        self.punct('[')?;
        let (a, sreg) = self.operand_a()?;
        let mut off = 0u32;
        if matches!(self.peek(), Some(Tok::P('+')) | Some(Tok::P('-'))) {
            let neg = self.peek() == Some(&Tok::P('-'));
            self.pos += 1;
            let col = self.col();
            let text = match self.peek() {
                Some(Tok::Num(s)) => s.clone(),
                _ => return self.expected("an offset"),
            };
            self.pos += 1;
            off = match parse_number(&text, neg, false) {
                Ok(v) => v,
                Err(m) => return self.err_at(col, m),
            };
        }
        self.punct(']')?;
        Ok((a, sreg, off))
    }

    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
}

fn token_len(t: &Tok) -> usize {
    match t {
        Tok::Word(s) | Tok::Num(s) => s.chars().count(),
        Tok::P(_) => 1,
    }
}

/// `%r12` → 12 when below `limit`.
fn parse_indexed(w: &str, prefix: &str, limit: usize) -> Option<u8> {
    let digits = w.strip_prefix(prefix)?;
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: usize = digits.parse().ok()?;
    (v < limit).then_some(v as u8)
}

fn parse_number(text: &str, neg: bool, float: bool) -> Result<u32, String> {
    let t = text.replace('_', "");
    let lower = t.to_ascii_lowercase();
    let raw = if let Some(h) = lower.strip_prefix("0x") {
        Some(u64::from_str_radix(h, 16))
    } else if let Some(h) = lower.strip_prefix("0f") {
        // PTX float bits: exactly 8 hex digits.
        if h.len() != 8 {
            return Err(format!("`{text}`: a 0f literal has exactly 8 hex digits"));
        }
        Some(u64::from_str_radix(h, 16))
    } else {
        lower.strip_prefix("0b").map(|b| u64::from_str_radix(b, 2))
    };
    if let Some(r) = raw {
        let v = r.map_err(|_| format!("`{text}` is not a valid number"))?;
        if v > u32::MAX as u64 {
            return Err(format!("`{text}` does not fit in 32 bits"));
        }
        let v = v as u32;
        return Ok(if neg { v.wrapping_neg() } else { v });
    }
    if float {
        let v: f32 = t
            .parse()
            .map_err(|_| format!("`{text}` is not a valid FP32 number"))?;
        if !v.is_finite() {
            return Err(format!("`{text}` is out of the FP32 range"));
        }
        return Ok(if neg { -v } else { v }.to_bits());
    }
    let v: u64 = t.parse().map_err(|_| {
        format!("`{text}` is not a valid integer (FP32 literals only in .f32 instructions)")
    })?;
    if neg {
        if v > 1 << 31 {
            return Err(format!("`-{text}` does not fit in 32 bits"));
        }
        Ok((v as u32).wrapping_neg())
    } else {
        if v > u32::MAX as u64 {
            return Err(format!("`{text}` does not fit in 32 bits"));
        }
        Ok(v as u32)
    }
}

fn is_label_name(w: &str) -> bool {
    let mut cs = w.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
}

/// Assembles `src`; `file` names it in errors.
pub fn assemble(src: &str, file: &str, opts: &AsmOptions) -> Result<Program, AsmError> {
    let mut name: Option<String> = None;
    let mut regs: Option<(u32, usize)> = None;
    let mut shared: Option<u32> = None;
    let mut params: Vec<String> = Vec::new();
    let mut labels: HashMap<String, usize> = HashMap::new();
    let mut pending: Vec<Pending> = Vec::new();
    let mut seen_directive: HashMap<&'static str, usize> = HashMap::new();
    let mut last_line = 1;

    for (lineno, raw) in src.lines().enumerate() {
        let line = lineno + 1;
        last_line = line;
        let code = match raw.find("//") {
            Some(i) => &raw[..i],
            None => raw,
        };
        let err = |col: usize, msg: String| AsmError {
            file: file.to_string(),
            line,
            col,
            msg,
        };
        let toks = lex(code).map_err(|(c, m)| err(c, m))?;
        let mut p = Parser {
            file,
            line,
            toks,
            pos: 0,
            float: false,
            regs_used: Vec::new(),
        };
        // Labels.
        while let (Some(Tok::Word(w)), Some(Tok::P(':'))) = (
            p.toks.get(p.pos).map(|t| &t.tok),
            p.toks.get(p.pos + 1).map(|t| &t.tok),
        ) {
            let col = p.col();
            if !is_label_name(w) {
                return p.err_at(col, format!("`{w}` is not a valid label name"));
            }
            if labels.insert(w.clone(), pending.len()).is_some() {
                return p.err_at(col, format!("label `{w}` is defined twice"));
            }
            p.pos += 2;
        }
        if p.at_end() {
            continue;
        }
        // Directive.
        if let Some(Tok::Word(w)) = p.peek() {
            if w.starts_with('.') {
                let (d, dcol) = p.word("a directive")?;
                let key: &'static str = match d.as_str() {
                    ".kernel" => ".kernel",
                    ".regs" => ".regs",
                    ".shared" => ".shared",
                    ".param" => ".param",
                    _ => {
                        return p.err_at(
                            dcol,
                            format!(
                            "unknown directive `{d}`: expected .kernel, .regs, .shared or .param"
                        ),
                        )
                    }
                };
                if key != ".param" {
                    if let Some(prev) = seen_directive.insert(key, line) {
                        return p.err_at(dcol, format!("{key} given twice (first on line {prev})"));
                    }
                }
                match key {
                    ".kernel" => {
                        let (n, c) = p.word("a kernel name")?;
                        if !is_label_name(&n) {
                            return p.err_at(c, format!("`{n}` is not a valid kernel name"));
                        }
                        name = Some(n);
                    }
                    ".regs" => {
                        let c = p.col();
                        let v = p.imm()?;
                        if v == 0 || v as usize > MAX_REGS {
                            return p.err_at(
                                c,
                                format!("expected a register count 1..={MAX_REGS}, found {v}"),
                            );
                        }
                        regs = Some((v, line));
                    }
                    ".shared" => {
                        let c = p.col();
                        let v = p.imm()?;
                        if v % 4 != 0 || v > MAX_SHARED_BYTES {
                            return p.err_at(
                                c,
                                format!(
                                    "expected a shared size in bytes, a multiple of 4 up to {MAX_SHARED_BYTES}, found {v}"
                                ),
                            );
                        }
                        shared = Some(v);
                    }
                    _ => loop {
                        let (n, c) = p.word("a parameter name")?;
                        if !is_label_name(&n) {
                            return p.err_at(c, format!("`{n}` is not a valid parameter name"));
                        }
                        if params.contains(&n) {
                            return p.err_at(c, format!("parameter `{n}` declared twice"));
                        }
                        params.push(n);
                        if !p.eat(',') {
                            break;
                        }
                    },
                }
                p.eat(';');
                if !p.at_end() {
                    return p.expected("end of line");
                }
                continue;
            }
        }
        // Instruction.
        let mut guard = None;
        if p.eat('@') {
            let negate = p.eat('!');
            let pred = p.pred()?;
            guard = Some(Guard { pred, negate });
        }
        let (mn, mcol) = p.word("an instruction mnemonic")?;
        let Some(&(op, float)) = mnemonics().get(&mn) else {
            return p.err_at(mcol, format!("unknown instruction `{mn}`"));
        };
        p.float = float;
        if op.is_barrier() && guard.is_some() {
            return p.err_at(
                mcol,
                format!("`{mn}` cannot be guarded (a barrier must be reached by every thread)"),
            );
        }
        let mut ins = Instr::new(op);
        ins.guard = guard;
        let mut target = None;
        match op.format() {
            Format::None => {
                if op.is_barrier() {
                    if let Some(Tok::Num(_)) = p.peek() {
                        let c = p.col();
                        if p.imm()? != 0 {
                            return p.err_at(c, "expected barrier number 0 (the only barrier)");
                        }
                    }
                }
            }
            Format::Mov => {
                ins.d = p.reg()?;
                p.comma()?;
                match p.peek() {
                    Some(Tok::Num(_)) | Some(Tok::P('-')) => {
                        ins.b_imm = true;
                        ins.imm = p.imm()?;
                    }
                    _ => (ins.a, ins.a_sreg) = p.operand_a()?,
                }
            }
            Format::Alu1 => {
                ins.d = p.reg()?;
                p.comma()?;
                (ins.a, ins.a_sreg) = p.operand_a()?;
            }
            Format::Alu2 | Format::Setp => {
                if op.format() == Format::Setp {
                    ins.d = p.pred()?;
                } else {
                    ins.d = p.reg()?;
                }
                p.comma()?;
                (ins.a, ins.a_sreg) = p.operand_a()?;
                p.comma()?;
                (ins.b, ins.b_imm, ins.imm) = p.operand_b()?;
            }
            Format::Alu3 | Format::Selp => {
                ins.d = p.reg()?;
                p.comma()?;
                (ins.a, ins.a_sreg) = p.operand_a()?;
                p.comma()?;
                ins.b = p.reg()?;
                p.comma()?;
                ins.imm = if op.format() == Format::Selp {
                    p.pred()?
                } else {
                    p.reg()?
                } as u32;
            }
            Format::Pred2 => {
                ins.d = p.pred()?;
                p.comma()?;
                ins.a = p.pred()?;
                p.comma()?;
                ins.b = p.pred()?;
            }
            Format::Pred1 => {
                ins.d = p.pred()?;
                p.comma()?;
                ins.a = p.pred()?;
            }
            Format::Load => {
                ins.d = p.reg()?;
                p.comma()?;
                (ins.a, ins.a_sreg, ins.imm) = p.address()?;
            }
            Format::Store => {
                (ins.a, ins.a_sreg, ins.imm) = p.address()?;
                p.comma()?;
                ins.b = p.reg()?;
            }
            Format::LoadParam => {
                ins.d = p.reg()?;
                p.comma()?;
                p.punct('[')?;
                let c = p.col();
                match p.peek() {
                    Some(Tok::Word(w)) => {
                        let Some(i) = params.iter().position(|x| x == w) else {
                            return p.err_at(
                                c,
                                format!(
                                    "unknown parameter `{w}` (declare it with .param before use)"
                                ),
                            );
                        };
                        p.pos += 1;
                        ins.imm = 4 * i as u32;
                    }
                    Some(Tok::Num(_)) => {
                        ins.imm = p.imm()?;
                        if !ins.imm.is_multiple_of(4) || ins.imm / 4 >= params.len() as u32 {
                            return p.err_at(
                                c,
                                format!(
                                    "expected a parameter byte offset 0, 4, … below {}",
                                    4 * params.len()
                                ),
                            );
                        }
                    }
                    _ => return p.expected("a parameter name"),
                }
                p.punct(']')?;
            }
            Format::Atom => {
                ins.d = p.reg()?;
                p.comma()?;
                (ins.a, ins.a_sreg, ins.imm) = p.address()?;
                p.comma()?;
                ins.b = p.reg()?;
            }
            Format::Cas => {
                ins.d = p.reg()?;
                p.comma()?;
                let c = p.col();
                let (a, sreg, off) = p.address()?;
                if off != 0 {
                    return p.err_at(c, "expected `[register]`: compare-and-swap takes no offset");
                }
                (ins.a, ins.a_sreg) = (a, sreg);
                p.comma()?;
                ins.b = p.reg()?;
                p.comma()?;
                ins.imm = p.reg()? as u32;
            }
            Format::Branch => {
                let (l, c) = p.word("a label")?;
                if !is_label_name(&l) {
                    return p.err_at(c, format!("expected a label, found `{l}`"));
                }
                target = Some((l, c));
            }
        }
        p.eat(';');
        if !p.at_end() {
            return p.expected("end of line");
        }
        if opts.dwr_partner && op.is_global_ld_st() {
            pending.push(Pending {
                ins: Instr::new(Op::BarPartner),
                line,
                col: mcol,
                target: None,
                regs: Vec::new(),
            });
        }
        pending.push(Pending {
            ins,
            line,
            col: mcol,
            target,
            regs: std::mem::take(&mut p.regs_used),
        });
    }

    let at = |line: usize, col: usize, msg: String| AsmError {
        file: file.to_string(),
        line,
        col,
        msg,
    };
    let Some(name) = name else {
        return Err(at(1, 1, "expected a `.kernel NAME` directive".into()));
    };
    let Some((regs, _)) = regs else {
        return Err(at(
            1,
            1,
            "expected a `.regs N` directive (registers per thread)".into(),
        ));
    };
    if pending.is_empty() {
        return Err(at(last_line, 1, "expected at least one instruction".into()));
    }
    if pending.len() > MAX_PROGRAM_LEN {
        return Err(at(
            pending[MAX_PROGRAM_LEN].line,
            1,
            format!("the program is longer than {MAX_PROGRAM_LEN} instructions"),
        ));
    }
    let n = pending.len();
    for pe in &pending {
        if let Some(&(r, c)) = pe.regs.iter().find(|(r, _)| *r as u32 >= regs) {
            return Err(at(
                pe.line,
                c,
                format!(
                    "register %r{r} is beyond `.regs {regs}` (%r0..%r{})",
                    regs - 1
                ),
            ));
        }
    }
    let mut code = Vec::with_capacity(n);
    for pe in &mut pending {
        if let Some((l, c)) = &pe.target {
            match labels.get(l) {
                Some(&t) if t < n => pe.ins.imm = t as u32,
                Some(_) => {
                    return Err(at(pe.line, *c, format!("label `{l}` marks no instruction")))
                }
                None => return Err(at(pe.line, *c, format!("undefined label `{l}`"))),
            }
        }
        code.push(pe.ins);
    }
    if let Some(pc) = cfg::falls_off_end(&code) {
        return Err(at(
            pending[pc].line,
            pending[pc].col,
            "execution can run past the end of the program here: expected `exit` or an unguarded `bra` as the last instruction".into(),
        ));
    }
    cfg::set_branch_rpcs(&mut code);
    let program = Program {
        name,
        regs,
        shared_bytes: shared.unwrap_or(0),
        params,
        lines: pending.iter().map(|p| p.line as u32).collect(),
        code,
    };
    // The parser only builds valid instructions; a failure here is a bug, reported as an
    // error rather than a panic.
    if let Err(e) = program.check() {
        return Err(at(1, 1, format!("internal assembler error: {e}")));
    }
    Ok(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asm(src: &str) -> Result<Program, AsmError> {
        assemble(src, "t.s", &AsmOptions::default())
    }

    #[test]
    fn assembles_operand_forms() {
        let p = asm(".kernel k\n.regs 4\n.param n, out\n\
             mov.u32 %r0, %tid.x\n\
             add.s32 %r1, %r0, -1\n\
             add.f32 %r2, %r1, 1.5\n\
             ld.param.u32 %r3, [out]\n\
             st.global.u32 [%r3+8], %r1\n\
             @!%p2 mad.lo.s32 %r1, %ctaid.x, %r2, %r3;\n\
             exit\n")
        .unwrap();
        assert_eq!(p.params, vec!["n", "out"]);
        let c = &p.code;
        assert!(c[0].a_sreg && c[0].a == Special::TidX as u8 && c[0].op == Op::Mov);
        assert_eq!((c[1].b_imm, c[1].imm), (true, (-1i32) as u32));
        assert_eq!(c[2].imm, 1.5f32.to_bits());
        assert_eq!(c[3].imm, 4);
        assert_eq!((c[4].a, c[4].b, c[4].imm), (3, 1, 8));
        assert_eq!(
            c[5].guard,
            Some(Guard {
                pred: 2,
                negate: true
            })
        );
        assert_eq!(c[5].c(), 3);
    }

    #[test]
    fn errors_name_line_column_and_expectation() {
        let e = asm(".kernel k\n.regs 4\n  add.s32 %r1, %q2, 3\n exit\n").unwrap_err();
        assert_eq!((e.line, e.col), (3, 16));
        assert!(e.msg.contains("expected a general register"), "{}", e.msg);
        assert!(e.to_string().starts_with("t.s:3:16: "));
        let e = asm(".kernel k\n.regs 2\n add.s32 %r1, %r2, 3\n exit\n").unwrap_err();
        assert_eq!((e.line, e.col), (3, 15));
        assert!(e.msg.contains(".regs 2"));
        let e = asm(".kernel k\n.regs 2\n bra nowhere\n").unwrap_err();
        assert!(e.msg.contains("undefined label `nowhere`"));
        let e = asm(".kernel k\n.regs 2\n add.s32 %r1, %r1, 1\n").unwrap_err();
        assert!(e.msg.contains("past the end"));
        let e = asm(".kernel k\n.regs 2\n frob %r1\n exit\n").unwrap_err();
        assert_eq!(
            (e.line, e.col, e.msg.as_str()),
            (3, 2, "unknown instruction `frob`")
        );
        let e = asm(".kernel k\n.regs 2\n @%p0 bar.sync 0\n exit\n").unwrap_err();
        assert!(e.msg.contains("cannot be guarded"));
        let e = asm(".kernel k\n.regs 2\n mov.u32 %r0, 4294967296\n exit\n").unwrap_err();
        assert!(e.msg.contains("32 bits"));
        let e = asm(".regs 2\n exit\n").unwrap_err();
        assert!(e.msg.contains(".kernel"));
    }

    #[test]
    fn branch_gets_its_ipdom() {
        let p = asm(".kernel k\n.regs 2\n\
            setp.lt.u32 %p0, %tid.x, 4\n\
            @%p0 bra ELSE\n\
            add.s32 %r0, %r0, 1\n\
            bra JOIN\n\
            ELSE: sub.s32 %r0, %r0, 1\n\
            JOIN: exit\n")
        .unwrap();
        assert_eq!((p.code[1].target(), p.code[1].rpc()), (4, 5));
        assert_eq!((p.code[3].target(), p.code[3].rpc()), (5, 5));
    }

    #[test]
    fn dwr_pass_inserts_partner_barrier_before_global_ld_st_only() {
        let src = ".kernel k\n.regs 2\n.param a\n\
            ld.param.u32 %r0, [a]\n\
            L: ld.global.u32 %r1, [%r0]\n\
            ld.shared.u32 %r1, [%r0]\n\
            st.global.u32 [%r0+4], %r1\n\
            @%p0 bra L\n\
            exit\n";
        let plain = asm(src).unwrap();
        let dwr = assemble(src, "t.s", &AsmOptions { dwr_partner: true }).unwrap();
        assert_eq!(dwr.code.len(), plain.code.len() + 2);
        let ops: Vec<Op> = dwr.code.iter().map(|i| i.op).collect();
        assert_eq!(
            ops,
            vec![
                Op::LdParam,
                Op::BarPartner,
                Op::LdGlobal,
                Op::LdShared,
                Op::BarPartner,
                Op::StGlobal,
                Op::Bra,
                Op::Exit
            ]
        );
        // The branch to L now targets the barrier in front of the load.
        assert_eq!(dwr.code[6].target(), 1);
    }
}
